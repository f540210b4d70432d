/* Foundation tests that only make sense on the target: MMU, exception level, counters. */
#include "tests/harness/harness.h"
#include "tests/target/target_tests.h"
#include "boot/boot.h"
#include "boot/sysregs.h"
#include "hal/hal.h"
#include "linker/image_syms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int boot_mmu_enabled(void);

/* An address inside the 1 GiB above the board's RAM that nothing maps. */
static uintptr_t unmapped_address(void)
{
	const struct hal_platform *p = hal_platform();
	const struct hal_region *ram = &p->regions[p->nregions - 1];
	return (uintptr_t)(ram->base + ram->size + 0x100000);
}

static unsigned recurse(unsigned depth)
{
	volatile char pad[1024];
	pad[0] = (char)depth;
	pad[sizeof pad - 1] = (char)depth;
	if (depth == 0xffffffffu)
		return pad[0];
	return recurse(depth + 1) + pad[sizeof pad - 1];
}

/* A fixed workload for the instruction-count check: deterministic integer work. */
static uint64_t workload(void)
{
	uint64_t h = 1469598103934665603ull;
	for (unsigned i = 0; i < 100000; i++)
		h = (h ^ (i & 0xff)) * 1099511628211ull;
	return h;
}

void target_tests_dispatch(const char *cmdline)
{
	const char *m = strstr(cmdline, "mode=");
	if (!m)
		return;
	m += 5;
	if (!strncmp(m, "dataabort", 9)) {
		printf("mode dataabort: reading 0x%lx\n", (unsigned long)unmapped_address());
		fflush(stdout);
		volatile uint32_t *bad = (volatile uint32_t *)unmapped_address();
		printf("read %u: the access did not fault\n", *bad);
		hal_exit(0);
	}
	if (!strncmp(m, "textwrite", 9)) {
		printf("mode textwrite: writing to .text at %p\n", (void *)__text_start);
		fflush(stdout);
		*(volatile uint32_t *)(void *)(__text_start + 64) = 0xd503201f;
		printf("the write to .text did not fault\n");
		hal_exit(0);
	}
	if (!strncmp(m, "stackoverflow", 13)) {
		printf("mode stackoverflow: recursing\n");
		fflush(stdout);
		printf("%u\n", recurse(0));
		hal_exit(0);
	}
	if (!strncmp(m, "icount", 6)) {
		uint64_t t0 = hal_instret();
		uint64_t h = workload();
		uint64_t t1 = hal_instret();
		printf("workload %lx instructions: %lu\n", (unsigned long)h, (unsigned long)(t1 - t0));
		hal_exit(0);
	}
	if (!strncmp(m, "el", 2)) {
		printf("entered at EL%u, running at EL%u, mmu %s\n", hal_entry_el(), hal_current_el(),
		       boot_mmu_enabled() ? "on" : "off");
		hal_exit(hal_current_el() == 1 && boot_mmu_enabled() ? 0 : 1);
	}
	printf("unknown mode\n");
	hal_exit(2);
}

TEST(target, runs_at_el1_with_mmu)
{
	CHECK_EQ(hal_current_el(), 1);
	CHECK(boot_mmu_enabled());
}

TEST(target, counters_advance)
{
	uint64_t a = hal_instret(), c = hal_cycles();
	volatile uint64_t h = workload();
	(void)h;
	CHECK(hal_instret() > a);
	CHECK(hal_cycles() > c);
}

TEST(target, heap_and_cache_maintenance)
{
	uint8_t *p = malloc(1 << 20);
	REQUIRE(p != NULL);
	for (unsigned i = 0; i < (1u << 20); i++)
		p[i] = (uint8_t)i;
	hal_dcache_clean(p, 1 << 20);
	hal_dcache_clean_invalidate(p, 1 << 20);
	unsigned bad = 0;
	for (unsigned i = 0; i < (1u << 20); i++)
		bad += p[i] != (uint8_t)i;
	CHECK_EQ(bad, 0);
	free(p);
}

TEST(target, stack_guard_pages_are_placed)
{
	/* The main stack of core 0 lies above its guard page, inside the stacks area. */
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	CHECK(sp > (uintptr_t)__stacks_start + BOOT_GUARD_SIZE);
	CHECK(sp <= (uintptr_t)__stacks_start + BOOT_STACK_STRIDE);
}

TEST(target, semihosting_file_round_trip)
{
	const char *path = test_data_path("target-roundtrip.bin");
	if (!path)
		SKIP("no data= directory on the command line");
	uint8_t buf[300];
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7);
	REQUIRE(test_write_file(path, buf, sizeof buf) == 0);
	uint8_t *back;
	size_t n;
	REQUIRE(test_read_file(path, &back, &n) == 0);
	CHECK_EQ(n, sizeof buf);
	CHECK_MEM(back, buf, sizeof buf);
	free(back);
}
