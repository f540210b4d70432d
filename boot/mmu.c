/*
 * Identity-mapped MMU set-up: 4 KiB granule, 39-bit addresses (tables start at level 1).
 * The board's regions (RAM, devices) are mapped first with large blocks; the firmware image is
 * then re-mapped at page granularity with its own permissions: text read-only and executable,
 * rodata read-only, everything else read-write and never executable, and an unmapped guard page
 * under every stack. Later mappings split earlier blocks as needed. The tables come from a fixed
 * pool; a map that needs more stops the boot with a panic (never a partial map, never MMU off).
 */
#include "boot/boot.h"
#include "boot/sysregs.h"
#include "hal/hal.h"
#include "linker/image_syms.h"

#include <stddef.h>
#include <stdint.h>

#define PAGE 4096ull
#define ENTRIES 512
/* Translation tables available (4 KiB each, in .bss); level 1 takes one. Overridable so that a
 * test build can run out (the Makefile's anefw-mmu-pool-test.elf, tests/suites/15-foundation.sh). */
#ifndef BOOT_MMU_TABLE_POOL
#define BOOT_MMU_TABLE_POOL 32
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

#define PTE_VALID (1ull << 0)
#define PTE_TABLE (1ull << 1) /* table at levels 1-2; page at level 3 */
#define PTE_ATTR(i) ((uint64_t)(i) << 2)
#define PTE_AP_RO (2ull << 6)
#define PTE_SH_INNER (3ull << 8)
#define PTE_AF (1ull << 10)
#define PTE_PXN (1ull << 53)
#define PTE_UXN (1ull << 54)
#define PTE_ADDR_MASK 0x0000fffffffff000ull

/* MAIR indices */
#define ATTR_DEVICE 0 /* Device-nGnRE */
#define ATTR_NORMAL 1 /* Normal, write-back read/write-allocate */
#define MAIR_VALUE ((0x04ull << (8 * ATTR_DEVICE)) | (0xffull << (8 * ATTR_NORMAL)))

/* TCR_EL1: T0SZ=25, walks cacheable WB-WA inner shareable, 4 KiB, TTBR1 walks disabled */
#define TCR_T0SZ 25ull
#define TCR_IRGN0_WBWA (1ull << 8)
#define TCR_ORGN0_WBWA (1ull << 10)
#define TCR_SH0_INNER (3ull << 12)
#define TCR_EPD1 (1ull << 23)
#define TCR_IPS_SHIFT 32

static uint64_t tables[BOOT_MMU_TABLE_POOL][ENTRIES] __attribute__((aligned(4096)));
static unsigned tables_used;

/* What core 0 programmed, for the secondary cores (one cache line, cleaned before a release). */
static struct {
	uint64_t mair, tcr, ttbr0, sctlr_set;
	uint64_t on;
} mmu_cfg __attribute__((aligned(64)));

static uint64_t *new_table(void)
{
	if (tables_used >= BOOT_MMU_TABLE_POOL)
		boot_panic("MMU: page-table pool exhausted: this memory map needs more than "
			   STR(BOOT_MMU_TABLE_POOL) " tables (BOOT_MMU_TABLE_POOL in boot/mmu.c)");
	/* tables[] is in .bss, already zero. */
	return tables[tables_used++];
}

static uint64_t leaf_bits(unsigned attrs)
{
	uint64_t d = PTE_VALID | PTE_AF | PTE_UXN;
	if (attrs & HAL_REGION_DEVICE) {
		d |= PTE_ATTR(ATTR_DEVICE) | PTE_PXN;
	} else {
		d |= PTE_ATTR(ATTR_NORMAL) | PTE_SH_INNER;
		if (!(attrs & HAL_REGION_X))
			d |= PTE_PXN;
	}
	if (!(attrs & HAL_REGION_W))
		d |= PTE_AP_RO;
	return d;
}

/* Level 1 entries cover 1 GiB, level 2 2 MiB, level 3 4 KiB. */
static uint64_t level_size(int level)
{
	return 1ull << (12 + 9 * (3 - level));
}

static void map_range(uint64_t *table, int level, uint64_t va, uint64_t end, unsigned attrs)
{
	uint64_t sz = level_size(level);
	while (va < end) {
		unsigned idx = (unsigned)((va / sz) % ENTRIES);
		uint64_t entry_base = va & ~(sz - 1);
		uint64_t entry_end = entry_base + sz;
		uint64_t chunk_end = end < entry_end ? end : entry_end;
		uint64_t *e = &table[idx];
		int whole = (va == entry_base && chunk_end == entry_end);
		int is_table = level < 3 && (*e & PTE_VALID) && (*e & PTE_TABLE);
		if (whole && !is_table) {
			if (attrs & HAL_REGION_GUARD)
				*e = 0;
			else
				*e = (va & PTE_ADDR_MASK) | leaf_bits(attrs) |
				     (level == 3 ? PTE_TABLE : 0);
			va = chunk_end;
			continue;
		}
		/* Partial cover (or an existing table): descend, splitting a block if needed. */
		uint64_t *next;
		if (is_table) {
			next = (uint64_t *)(uintptr_t)(*e & PTE_ADDR_MASK);
		} else {
			next = new_table();
			if (*e & PTE_VALID) {
				/* Split a block: the new table repeats it in smaller pieces. */
				uint64_t bits = *e & ~PTE_ADDR_MASK;
				uint64_t base = *e & PTE_ADDR_MASK;
				uint64_t nsz = level_size(level + 1);
				for (unsigned i = 0; i < ENTRIES; i++)
					next[i] = (base + i * nsz) | bits |
						  (level + 1 == 3 ? PTE_TABLE : 0);
			}
			*e = (uint64_t)(uintptr_t)next | PTE_VALID | PTE_TABLE;
		}
		map_range(next, level + 1, va, chunk_end, attrs);
		va = chunk_end;
	}
}

static void map(uint64_t base, uint64_t size, unsigned attrs)
{
	uint64_t start = base & ~(PAGE - 1);
	uint64_t end = (base + size + PAGE - 1) & ~(PAGE - 1);
	map_range(tables[0], 1, start, end, attrs);
}

void boot_mmu_init(void)
{
	const struct hal_platform *p = hal_platform();
	tables_used = 1; /* tables[0] is the level-1 table */

	for (unsigned i = 0; i < p->nregions; i++) {
		const struct hal_region *r = &p->regions[i];
		if (!(r->attrs & HAL_REGION_GUARD))
			map(r->base, r->size, r->attrs);
	}
	/* The image, page by page. */
	map((uintptr_t)__text_start, (uintptr_t)__text_end - (uintptr_t)__text_start,
	    HAL_REGION_R | HAL_REGION_X);
	map((uintptr_t)__rodata_start, (uintptr_t)__rodata_end - (uintptr_t)__rodata_start,
	    HAL_REGION_R);
	for (unsigned c = 0; c < BOOT_MAX_CORES; c++) {
		map((uintptr_t)__stacks_start + c * BOOT_STACK_STRIDE, BOOT_GUARD_SIZE,
		    HAL_REGION_GUARD);
		map((uintptr_t)__exc_stacks_start + c * BOOT_EXC_STACK_STRIDE, BOOT_GUARD_SIZE,
		    HAL_REGION_GUARD);
	}
	uint64_t pa_range;
	__asm__ volatile("mrs %0, id_aa64mmfr0_el1" : "=r"(pa_range));
	pa_range &= 0xf;
	if (pa_range > 2)
		pa_range = 2; /* 40 bits is ample for both boards */
	uint64_t tcr = TCR_T0SZ | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | TCR_SH0_INNER | TCR_EPD1 |
		       (pa_range << TCR_IPS_SHIFT);

	mmu_cfg.mair = MAIR_VALUE;
	mmu_cfg.tcr = tcr;
	mmu_cfg.ttbr0 = (uint64_t)(uintptr_t)tables[0];
	mmu_cfg.sctlr_set = SCTLR_M | SCTLR_C | SCTLR_I | SCTLR_SA | SCTLR_WXN;
	mmu_cfg.on = 1;
	boot_mmu_enable_core();
}

/* Programs this core from mmu_cfg (core 0 at boot; secondaries, MMU off, once released). */
__attribute__((no_stack_protector)) void boot_mmu_enable_core(void)
{
	if (!mmu_cfg.on)
		return;
	__asm__ volatile("msr mair_el1, %0\n"
			 "msr tcr_el1, %1\n"
			 "msr ttbr0_el1, %2\n"
			 "isb\n"
			 "tlbi vmalle1\n"
			 "dsb ish\n"
			 "isb\n" ::"r"(mmu_cfg.mair),
			 "r"(mmu_cfg.tcr), "r"(mmu_cfg.ttbr0)
			 : "memory");
	uint64_t sctlr;
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(sctlr));
	sctlr |= mmu_cfg.sctlr_set;
	__asm__ volatile("msr sctlr_el1, %0\nisb" ::"r"(sctlr) : "memory");
}

void boot_mmu_publish(void)
{
	/* The tables were written with the MMU off (straight to memory) and never change later. */
	hal_dcache_clean(&mmu_cfg, sizeof mmu_cfg);
}

int boot_mmu_enabled(void)
{
	uint64_t sctlr;
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(sctlr));
	return (int)(sctlr & SCTLR_M);
}
