/* CPU, cache and counter services shared by every AArch64 board. */
#include "hal/hal.h"
#include "hal/aarch64/aarch64.h"

#include <stdint.h>
#include <stdio.h>

void aarch64_semihosting_exit(int status);

static unsigned entry_el;

void aarch64_set_entry_el(unsigned el)
{
	entry_el = el;
}

unsigned hal_entry_el(void)
{
	return entry_el;
}

unsigned hal_current_el(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, CurrentEL" : "=r"(v));
	return (unsigned)(v >> 2) & 3;
}

unsigned hal_cpu_id(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(v));
	return (unsigned)(v & 0xff);
}

void hal_cpu_relax(void)
{
	__asm__ volatile("yield");
}

void hal_exit(int status)
{
	fflush(stdout);
	if (hal_semihosting_available())
		aarch64_semihosting_exit(status);
	/* No host to report to: a clean stop. */
	for (;;)
		__asm__ volatile("wfe");
}

/* ---- cache maintenance by VA to the point of coherency ---- */
static uint64_t dline(void)
{
	uint64_t ctr;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	return 4ull << ((ctr >> 16) & 0xf);
}

#define DCACHE_OP(fn, insn)                                                                     \
	void fn(const void *p, size_t n)                                                        \
	{                                                                                       \
		uint64_t l = dline();                                                           \
		uint64_t a = (uint64_t)(uintptr_t)p & ~(l - 1);                                 \
		uint64_t end = (uint64_t)(uintptr_t)p + n;                                      \
		for (; a < end; a += l)                                                         \
			__asm__ volatile(insn ", %0" ::"r"(a) : "memory");                     \
		__asm__ volatile("dsb sy" ::: "memory");                                        \
	}

static DCACHE_OP(dc_clean, "dc cvac")
static DCACHE_OP(dc_inval, "dc ivac")
static DCACHE_OP(dc_civac, "dc civac")

void hal_dcache_clean(const void *p, size_t n)
{
	dc_clean(p, n);
}

void hal_dcache_invalidate(void *p, size_t n)
{
	dc_inval(p, n);
}

void hal_dcache_clean_invalidate(void *p, size_t n)
{
	dc_civac(p, n);
}

/* ---- counters: PMU cycle counter and the instructions-retired event ---- */
#define PMCR_E (1u << 0)
#define PMCR_P (1u << 1)
#define PMCR_C (1u << 2)
#define PMCR_LC (1u << 6)
#define EVT_INST_RETIRED 0x08

static int have_inst_event;
static uint32_t inst_last;
static uint64_t inst_high;

void aarch64_counters_init(void)
{
	uint64_t ceid;
	__asm__ volatile("mrs %0, pmceid0_el0" : "=r"(ceid));
	have_inst_event = (int)((ceid >> EVT_INST_RETIRED) & 1);
	__asm__ volatile("msr pmcr_el0, %0\n"
			 "msr pmccfiltr_el0, xzr\n"
			 "msr pmevtyper0_el0, %1\n"
			 "msr pmcntenset_el0, %2\n"
			 "isb" ::"r"((uint64_t)(PMCR_E | PMCR_P | PMCR_C | PMCR_LC)),
			 "r"((uint64_t)EVT_INST_RETIRED), "r"((uint64_t)((1u << 31) | 1u)));
}

uint64_t hal_cycles(void)
{
	uint64_t v;
	__asm__ volatile("isb\nmrs %0, pmccntr_el0" : "=r"(v));
	return v;
}

/* Instructions retired: the 32-bit event counter widened in software (read it at least once
 * every 2^32 instructions). Without the event (QEMU without -icount), the cycle counter. */
uint64_t hal_instret(void)
{
	if (!have_inst_event)
		return hal_cycles();
	uint32_t now = aarch64_instret32();
	if (now < inst_last)
		inst_high += 1ull << 32;
	inst_last = now;
	return inst_high | now;
}

/* The low 32 bits of this core's instructions-retired counter (the cycle counter without the
 * event), with no shared state: any core may read it (hal_instret widens core 0's). */
uint32_t aarch64_instret32(void)
{
	uint64_t v;
	if (have_inst_event)
		__asm__ volatile("isb\nmrs %0, pmevcntr0_el0" : "=r"(v));
	else
		__asm__ volatile("isb\nmrs %0, pmccntr_el0" : "=r"(v));
	return (uint32_t)v;
}

/* ---- time: the generic timer's physical count (CNTPCT_EL0) at CNTFRQ_EL0 ticks a second ---- */
#define TIMER_FALLBACK_HZ 1000000000ull /* CNTFRQ left 0 by boot firmware: assume 1 GHz (longer) */

static uint64_t timer_count(void)
{
	uint64_t v;
	__asm__ volatile("isb\nmrs %0, cntpct_el0" : "=r"(v));
	return v;
}

uint64_t hal_timeout_init_us(uint32_t us)
{
	uint64_t hz;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	hz &= 0xffffffffu; /* the frequency is bits [31:0] */
	if (!hz)
		hz = TIMER_FALLBACK_HZ;
	/* us < 2^32 and hz < 2^32: the product fits in 64 bits */
	return timer_count() + ((uint64_t)us * hz + 999999u) / 1000000u;
}

int hal_timeout_elapsed(uint64_t deadline)
{
	return timer_count() > deadline;
}

/* ---- RNDR (FEAT_RNG) ---- */
#define ID_AA64ISAR0_RNDR_LSB 60 /* ID_AA64ISAR0_EL1.RNDR, bits [63:60]: 0 = no RNDR */

int aarch64_rndr(uint64_t *v)
{
	uint64_t isar0;
	__asm__ volatile("mrs %0, id_aa64isar0_el1" : "=r"(isar0));
	if (((isar0 >> ID_AA64ISAR0_RNDR_LSB) & 0xfu) == 0)
		return 0;
	uint64_t r, nzcv;
	/* RNDR is s3_3_c2_c4_0; it sets Z (NZCV bit 30) when it could not deliver a number */
	__asm__ volatile("mrs %0, s3_3_c2_c4_0\nmrs %1, nzcv" : "=r"(r), "=r"(nzcv));
	if (nzcv & (1ull << 30))
		return 0;
	*v = r;
	return 1;
}
