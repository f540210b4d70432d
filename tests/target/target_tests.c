/* Foundation tests that only make sense on the target: MMU, exception level, counters, cache
 * maintenance. */
#include "tests/harness/harness.h"
#include "tests/target/target_tests.h"
#include "boot/boot.h"
#include "boot/sysregs.h"
#include "fw/common/assert.h"
#include "hal/aarch64/aarch64.h"
#include "hal/hal.h"
#include "linker/image_syms.h"
#include "plat/plat.h"

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
	if (!strncmp(m, "assert", 6)) { /* fw's ASSERT on a false condition: the boot panic, exit 100 */
		static volatile int zero;
		printf("mode assert: asserting zero == 1\n");
		fflush(stdout);
		ASSERT(zero == 1);
		printf("the assertion did not stop the run\n");
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

/* The data survives cleaning and cleaning+invalidating a large heap buffer (QEMU models no
 * cache, so this cannot tell an empty function from a real one: see
 * target.cache_maintenance_covers_every_line below). */
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

/* The stack-protector guard comes from the board's entropy, and the source is named honestly:
 * QEMU's cortex-a53 has no RNDR (ID_AA64ISAR0_EL1.RNDR = 0), so qemu-virt falls back to the timer
 * count and says it is predictable; the Pi's BCM2835 RNG (modelled by QEMU) serves raspi3b. */
extern uintptr_t __stack_chk_guard;
TEST(target, stack_guard_from_board_entropy)
{
	uint64_t isar0, r;
	__asm__ volatile("mrs %0, id_aa64isar0_el1" : "=r"(isar0));
	CHECK_EQ((isar0 >> 60) & 0xf, 0);      /* cortex-a53: no FEAT_RNG */
	CHECK_EQ(aarch64_rndr(&r), 0);         /* so RNDR is not used */
#ifdef ANEFW_BOARD_RASPI3B
	const char *want = "BCM2835 RNG";
#else
	const char *want = "timer count (predictable, not a secret)";
#endif
	CHECKF(strcmp(boot_stack_guard_source(), want) == 0, "guard from \"%s\", expected \"%s\"",
	       boot_stack_guard_source(), want);
	CHECK(__stack_chk_guard != 0);
	CHECK_EQ(__stack_chk_guard & 0xff, 0); /* a string copy stops at its low byte */
	uint64_t a = 0, b = 0;
	CHECK(strcmp(plat_entropy(&a), want) == 0);
	(void)plat_entropy(&b);
	CHECKF(a != b, "two seeds equal: %llx", (unsigned long long)a);
}

/* Waits bounded in time: a deadline 2 ms ahead has not passed at once and has after 2 ms of
 * counter time. */
TEST(target, timeout_bounds_in_time)
{
	uint64_t hz, t0, t;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	REQUIRE((hz & 0xffffffffu) != 0);
	__asm__ volatile("isb\nmrs %0, cntpct_el0" : "=r"(t0));
	uint64_t d = hal_timeout_init_us(2000);
	CHECK(!hal_timeout_elapsed(d));
	unsigned long polls = 0;
	while (!hal_timeout_elapsed(d))
		polls++;
	__asm__ volatile("isb\nmrs %0, cntpct_el0" : "=r"(t));
	uint64_t us = (t - t0) * 1000000u / (hz & 0xffffffffu);
	CHECKF(us >= 2000 && us < 1000000, "elapsed after %llu us (%lu polls)", (unsigned long long)us,
	       polls);
}

TEST(target, semihosting_file_round_trip)
{
	const char *path = test_data_path("target-roundtrip.bin");
	if (!path)
		FAIL("no data= directory on the command line (make test-target and the suites give one)");
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

/*
 * ---- cache maintenance: which DC instructions run, watched by single-stepping ----
 *
 * QEMU's TCG models no data cache: a clean or an invalidate changes nothing a test could read
 * back, through a cacheable or a non-cacheable mapping alike (and boot/mmu.c maps no
 * non-cacheable alias), so a test of data alone passes with empty functions. What can be
 * checked, on QEMU and on a real core alike, is what the functions execute. The test runs each
 * one under the architectural software step (MDSCR_EL1.SS, KDE; the OS lock released): a step
 * exception after every instruction, taken by a vector table of the test's own (VBAR_EL1 is
 * restored afterwards; any other exception goes to the firmware's crash report). The hook
 * records every DC and DSB instruction about to execute, with the address in its register.
 * Required: a DC of an allowed kind (clean: CVAC or CIVAC; invalidate: IVAC or CIVAC;
 * clean+invalidate: CIVAC) on every cache line of the range (lines of CTR_EL0.DminLine, the
 * smallest), none outside the lines the range touches, and a DSB after the last one. The
 * checker itself is shown to fail on an empty function, one that skips the last line, one using
 * the wrong instruction, one with no DSB and one that touches a line past the range.
 */
int target_step_hook(unsigned kind, struct exception_frame *f);
void target_step_call(uintptr_t fn, void *p, size_t n);
extern char target_step_vectors[], target_step_stop[], vectors[];

#define SS_MAX 8192u

#define DC_CVAC 1u
#define DC_IVAC 2u
#define DC_CIVAC 4u

static struct {
	unsigned steps, n, overflow;
	uint8_t op[SS_MAX]; /* DC_* bits, or 0 for a DSB */
	uint64_t addr[SS_MAX];
} ss;

/* Called on SP_EL1 with debug exceptions masked; returns to the stepped code. */
int target_step_hook(unsigned kind, struct exception_frame *f)
{
	unsigned ec = (unsigned)(f->esr >> 26) & 0x3f;
	if (ec != 0x32 && ec != 0x33)
		boot_exception(kind, f); /* not a step: the firmware's crash report */
	ss.steps++;
	if (f->elr == (uint64_t)(uintptr_t)target_step_stop || ss.steps > 20 * SS_MAX) {
		/* back in target_step_call (or stepping far too long): stop stepping */
		uint64_t m;
		__asm__ volatile("mrs %0, mdscr_el1" : "=r"(m));
		__asm__ volatile("msr mdscr_el1, %0\nisb" ::"r"(m & ~1ull));
		f->spsr &= ~(1ull << 21);
		if (f->elr != (uint64_t)(uintptr_t)target_step_stop)
			ss.overflow = 1;
		return 0;
	}
	uint32_t insn = *(const volatile uint32_t *)(uintptr_t)f->elr;
	unsigned rt = insn & 31;
	int op = -1;
	if ((insn & ~31u) == 0xd50b7a20u) /* SYS #3, C7, C10, #1: DC CVAC */
		op = DC_CVAC;
	else if ((insn & ~31u) == 0xd5087620u) /* SYS #0, C7, C6, #1: DC IVAC */
		op = DC_IVAC;
	else if ((insn & ~31u) == 0xd50b7e20u) /* SYS #3, C7, C14, #1: DC CIVAC */
		op = DC_CIVAC;
	else if ((insn & 0xfffff0ffu) == 0xd503309fu) /* DSB <option> */
		op = 0;
	if (op >= 0) {
		if (ss.n < SS_MAX) {
			ss.op[ss.n] = (uint8_t)op;
			ss.addr[ss.n] = rt == 31 ? 0 : f->x[rt];
			ss.n++;
		} else {
			ss.overflow = 1;
		}
	}
	f->spsr |= 1ull << 21; /* SS: step the next instruction too */
	return 0;
}

/*
 * Vectors for the stepped call: the synchronous entries (current EL, SP_EL0 or SP_ELx) save the
 * registers as boot/vectors.S does (struct exception_frame) and call target_step_hook; every
 * other entry goes to the firmware's own vector.
 */
#define SS_VEC_OTHER(off) ".balign 0x80\n\tb vectors + " #off "\n\t"
__asm__(".section .text.target_step, \"ax\"\n\t"
	".balign 2048\n\t"
	".global target_step_vectors\n"
	"target_step_vectors:\n\t"
	"sub sp, sp, #(36 * 8)\n\tstp x0, x1, [sp]\n\tmov x0, #0\n\tb target_step_common\n\t"
	SS_VEC_OTHER(0x080) SS_VEC_OTHER(0x100) SS_VEC_OTHER(0x180)
	".balign 0x80\n\t"
	"sub sp, sp, #(36 * 8)\n\tstp x0, x1, [sp]\n\tmov x0, #4\n\tb target_step_common\n\t"
	SS_VEC_OTHER(0x280) SS_VEC_OTHER(0x300) SS_VEC_OTHER(0x380)
	SS_VEC_OTHER(0x400) SS_VEC_OTHER(0x480) SS_VEC_OTHER(0x500) SS_VEC_OTHER(0x580)
	SS_VEC_OTHER(0x600) SS_VEC_OTHER(0x680) SS_VEC_OTHER(0x700) SS_VEC_OTHER(0x780)
	"\n"
	"target_step_common:\n\t"
	"stp x2, x3, [sp, #(2 * 8)]\n\tstp x4, x5, [sp, #(4 * 8)]\n\t"
	"stp x6, x7, [sp, #(6 * 8)]\n\tstp x8, x9, [sp, #(8 * 8)]\n\t"
	"stp x10, x11, [sp, #(10 * 8)]\n\tstp x12, x13, [sp, #(12 * 8)]\n\t"
	"stp x14, x15, [sp, #(14 * 8)]\n\tstp x16, x17, [sp, #(16 * 8)]\n\t"
	"stp x18, x19, [sp, #(18 * 8)]\n\tstp x20, x21, [sp, #(20 * 8)]\n\t"
	"stp x22, x23, [sp, #(22 * 8)]\n\tstp x24, x25, [sp, #(24 * 8)]\n\t"
	"stp x26, x27, [sp, #(26 * 8)]\n\tstp x28, x29, [sp, #(28 * 8)]\n\t"
	"mrs x1, sp_el0\n\tstp x30, x1, [sp, #(30 * 8)]\n\t"
	"mrs x1, elr_el1\n\tmrs x2, spsr_el1\n\tstp x1, x2, [sp, #(32 * 8)]\n\t"
	"mrs x1, esr_el1\n\tmrs x2, far_el1\n\tstp x1, x2, [sp, #(34 * 8)]\n\t"
	"mov x1, sp\n\t"
	"bl target_step_hook\n\t"
	"ldp x1, x2, [sp, #(32 * 8)]\n\tmsr elr_el1, x1\n\tmsr spsr_el1, x2\n\t"
	"ldp x2, x3, [sp, #(2 * 8)]\n\tldp x4, x5, [sp, #(4 * 8)]\n\t"
	"ldp x6, x7, [sp, #(6 * 8)]\n\tldp x8, x9, [sp, #(8 * 8)]\n\t"
	"ldp x10, x11, [sp, #(10 * 8)]\n\tldp x12, x13, [sp, #(12 * 8)]\n\t"
	"ldp x14, x15, [sp, #(14 * 8)]\n\tldp x16, x17, [sp, #(16 * 8)]\n\t"
	"ldp x18, x19, [sp, #(18 * 8)]\n\tldp x20, x21, [sp, #(20 * 8)]\n\t"
	"ldp x22, x23, [sp, #(22 * 8)]\n\tldp x24, x25, [sp, #(24 * 8)]\n\t"
	"ldp x26, x27, [sp, #(26 * 8)]\n\tldp x28, x29, [sp, #(28 * 8)]\n\t"
	"ldr x30, [sp, #(30 * 8)]\n\tldp x0, x1, [sp]\n\t"
	"add sp, sp, #(36 * 8)\n\t"
	"eret\n\t"
	/* target_step_call(fn, p, n): fn(p, n) with every instruction stepped */
	".balign 4\n\t"
	".global target_step_call\n\t"
	".type target_step_call, %function\n"
	"target_step_call:\n\t"
	"stp x29, x30, [sp, #-32]!\n\tmov x29, sp\n\tstr x19, [sp, #16]\n\t"
	"mrs x19, daif\n\t"
	"mov x16, x0\n\tmov x0, x1\n\tmov x1, x2\n\t"
	"adr x17, 1f\n\tmsr elr_el1, x17\n\t"
	"mrs x17, spsel\n\torr x17, x17, #4\n\t"   /* M: EL1t or EL1h, as now */
	"mrs x15, daif\n\tbic x15, x15, #(1 << 9)\n\torr x17, x17, x15\n\t" /* D clear */
	"orr x17, x17, #(1 << 21)\n\tmsr spsr_el1, x17\n\t" /* SS */
	"mrs x17, mdscr_el1\n\torr x17, x17, #(1 << 13)\n\torr x17, x17, #1\n\t" /* KDE, SS */
	"msr mdscr_el1, x17\n\tisb\n\t"
	"eret\n"
	"1:\tblr x16\n"
	".global target_step_stop\n"
	"target_step_stop:\n\t"
	"msr daif, x19\n\tisb\n\t"
	"ldr x19, [sp, #16]\n\tldp x29, x30, [sp], #32\n\t"
	"ret\n\t"
	".size target_step_call, . - target_step_call\n\t"
	".text\n");

static uint64_t dc_line(void)
{
	uint64_t ctr;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	return 4ull << ((ctr >> 16) & 0xf);
}

/* Runs fn(p, n) stepped; the log is in ss. */
static void dc_stepped(uintptr_t fn, void *p, size_t n)
{
	uint64_t vbar, mdscr;
	memset(&ss, 0, sizeof ss);
	__asm__ volatile("msr oslar_el1, xzr\nisb"); /* release the OS lock (set at reset) */
	__asm__ volatile("mrs %0, vbar_el1\nmrs %1, mdscr_el1" : "=r"(vbar), "=r"(mdscr));
	__asm__ volatile("msr vbar_el1, %0\nisb" ::"r"(target_step_vectors));
	target_step_call(fn, p, n);
	__asm__ volatile("msr mdscr_el1, %0\nmsr vbar_el1, %1\nisb" ::"r"(mdscr), "r"(vbar));
}

#define DCP_NOT_STEPPED 1u /* no step exception arrived */
#define DCP_OVERFLOW 2u    /* more DCs than logged, or stepping did not come back */
#define DCP_LINE_MISSED 4u /* a line of the range without an allowed DC */
#define DCP_WRONG_OP 8u    /* a DC of a kind not allowed */
#define DCP_OUTSIDE 16u    /* a DC on a line the range does not touch */
#define DCP_NO_DSB 32u     /* no DSB after the last DC */

/* The problems of fn(p, n) as a maintenance of the allowed DC kinds over [p, p + n). */
static const char *dc_problem_names(unsigned pr)
{
	static char b[160];
	static const char *const names[] = {"not stepped", "overflow", "line missed", "wrong op",
					    "outside the range", "no dsb after"};
	b[0] = 0;
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (pr & (1u << i))
			snprintf(b + strlen(b), sizeof b - strlen(b), "%s%s", b[0] ? ", " : "",
				 names[i]);
	return b;
}

static unsigned dc_problems(uintptr_t fn, uint8_t *p, size_t n, unsigned allowed)
{
	static uint8_t hit[512];
	uint64_t l = dc_line();
	uint64_t first = (uint64_t)(uintptr_t)p & ~(l - 1);
	uint64_t end = ((uint64_t)(uintptr_t)p + n + l - 1) & ~(l - 1);
	uint64_t nlines = (end - first) / l;
	unsigned prob = 0;
	if (nlines > sizeof hit)
		return DCP_OVERFLOW;
	memset(hit, 0, sizeof hit);
	dc_stepped(fn, p, n);
	if (!ss.steps)
		prob |= DCP_NOT_STEPPED;
	if (ss.overflow)
		prob |= DCP_OVERFLOW;
	int dsb_after_last = 0, any_dc = 0;
	for (unsigned i = 0; i < ss.n; i++) {
		if (!ss.op[i]) {
			dsb_after_last = 1;
			continue;
		}
		any_dc = 1;
		dsb_after_last = 0;
		if (!(ss.op[i] & allowed))
			prob |= DCP_WRONG_OP;
		if (ss.addr[i] < first || ss.addr[i] >= end)
			prob |= DCP_OUTSIDE;
		else if (ss.op[i] & allowed)
			hit[(ss.addr[i] - first) / l] = 1;
	}
	for (uint64_t i = 0; i < nlines; i++)
		if (!hit[i])
			prob |= DCP_LINE_MISSED;
	if (any_dc && !dsb_after_last)
		prob |= DCP_NO_DSB;
	return prob;
}

/* Wrong implementations, for the checker's own test (they only touch dc_buf). */
static void bad_empty(void *p, size_t n)
{
	(void)p;
	(void)n;
	__asm__ volatile("dsb sy" ::: "memory");
}

#define BAD_DC_LOOP(name, insn, last_adj, with_dsb)                                             \
	static __attribute__((noinline)) void name(void *p, size_t n)                          \
	{                                                                                       \
		uint64_t l = dc_line();                                                         \
		uint64_t a = (uint64_t)(uintptr_t)p & ~(l - 1);                                 \
		uint64_t end = (uint64_t)(uintptr_t)p + n + (last_adj);                         \
		for (; a < end; a += l)                                                         \
			__asm__ volatile(insn ", %0" ::"r"(a) : "memory");                     \
		if (with_dsb)                                                                   \
			__asm__ volatile("dsb sy" ::: "memory");                                \
	}
BAD_DC_LOOP(bad_skips_last_line, "dc civac", -(int64_t)dc_line(), 1)
BAD_DC_LOOP(bad_clean_by_ivac, "dc ivac", 0, 1)
BAD_DC_LOOP(bad_no_dsb, "dc civac", 0, 0)
BAD_DC_LOOP(bad_one_line_past, "dc civac", (int64_t)dc_line(), 1)

static uint8_t dc_buf[16384] __attribute__((aligned(4096)));

TEST(target, cache_maintenance_covers_every_line)
{
	uint64_t l = dc_line();
	CHECK(l >= 16 && l <= 2048);
	/* ranges: unaligned at both ends, exactly whole lines, less than one line, one byte */
	static const struct {
		size_t off, len;
	} r[] = {{4096 + 13, 100 * 64 + 7}, {8192, 32 * 64}, {4096 + 70, 40}, {4096 + 63, 1}};
	static const struct {
		const char *name;
		uintptr_t fn;
		unsigned allowed;
	} ops[] = {
		{"hal_dcache_clean", (uintptr_t)hal_dcache_clean, DC_CVAC | DC_CIVAC},
		{"hal_dcache_invalidate", (uintptr_t)hal_dcache_invalidate, DC_IVAC | DC_CIVAC},
		{"hal_dcache_clean_invalidate", (uintptr_t)hal_dcache_clean_invalidate, DC_CIVAC},
	};
	for (unsigned o = 0; o < sizeof ops / sizeof ops[0]; o++)
		for (unsigned i = 0; i < sizeof r / sizeof r[0]; i++) {
			unsigned pr = dc_problems(ops[o].fn, dc_buf + r[i].off, r[i].len, ops[o].allowed);
			CHECKF(pr == 0, "%s(buf + %lu, %lu): %s", ops[o].name, (unsigned long)r[i].off,
			       (unsigned long)r[i].len, dc_problem_names(pr));
		}
	/* the checker fails on wrong implementations, each for its own reason */
	uint8_t *p = dc_buf + r[0].off;
	size_t n = r[0].len;
	CHECK_EQ(dc_problems((uintptr_t)bad_empty, p, n, DC_CIVAC), DCP_LINE_MISSED);
	CHECK_EQ(dc_problems((uintptr_t)bad_skips_last_line, p, n, DC_CIVAC), DCP_LINE_MISSED);
	CHECK_EQ(dc_problems((uintptr_t)bad_clean_by_ivac, p, n, DC_CVAC | DC_CIVAC),
		 DCP_WRONG_OP | DCP_LINE_MISSED);
	CHECK_EQ(dc_problems((uintptr_t)bad_no_dsb, p, n, DC_CIVAC), DCP_NO_DSB);
	CHECK_EQ(dc_problems((uintptr_t)bad_one_line_past, p, n, DC_CIVAC), DCP_OUTSIDE);
	/* and the same run of the real function logged what it should: one DC a line, a DSB */
	CHECK_EQ(dc_problems((uintptr_t)hal_dcache_clean_invalidate, p, n, DC_CIVAC), 0u);
	CHECK_EQ(ss.n, (((uint64_t)(uintptr_t)p + n + l - 1) / l - (uint64_t)(uintptr_t)p / l) + 1);
}

/* hal/aarch64/string.c against byte loops: every source and destination offset 0..15, lengths
 * 0..80 and a long one, moves overlapping both ways; the buffers' edges untouched. */
static uint8_t str_a[512], str_b[512], str_ref[512];

static void str_pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31u + seed * 7u + 1u);
}

TEST(target, string_functions_match_byte_loops)
{
	static const size_t lens[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 80, 300};
	unsigned bad = 0, cases = 0;
	for (unsigned so = 0; so < 16; so++)
		for (unsigned dof = 0; dof < 16; dof++)
			for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++) {
				size_t n = lens[li];
				/* memcpy: distinct buffers */
				str_pattern(str_a, sizeof str_a, so);
				memset(str_b, 0xee, sizeof str_b);
				for (size_t i = 0; i < sizeof str_ref; i++)
					str_ref[i] = 0xee;
				for (size_t i = 0; i < n; i++)
					str_ref[64 + dof + i] = str_a[64 + so + i];
				memcpy(str_b + 64 + dof, str_a + 64 + so, n);
				bad += memcmp(str_b, str_ref, sizeof str_b) != 0;
				/* memmove inside one buffer: source before and after the destination */
				for (int dir = 0; dir < 2; dir++) {
					size_t s = 64 + (dir ? so + 5 : so), d = 64 + (dir ? dof : dof + 5);
					str_pattern(str_a, sizeof str_a, so + dof);
					memcpy(str_ref, str_a, sizeof str_a);
					uint8_t tmp[512];
					for (size_t i = 0; i < n; i++)
						tmp[i] = str_ref[s + i];
					for (size_t i = 0; i < n; i++)
						str_ref[d + i] = tmp[i];
					memmove(str_a + d, str_a + s, n);
					bad += memcmp(str_a, str_ref, sizeof str_a) != 0;
				}
				/* memset */
				str_pattern(str_a, sizeof str_a, dof);
				memcpy(str_ref, str_a, sizeof str_a);
				for (size_t i = 0; i < n; i++)
					str_ref[64 + dof + i] = (uint8_t)(0x5a + so);
				memset(str_a + 64 + dof, 0x5a + (int)so, n);
				bad += memcmp(str_a, str_ref, sizeof str_a) != 0;
				cases += 4;
			}
	CHECKF(bad == 0, "%u of %u string cases differ from the byte loops", bad, cases);
	/* the checker itself: a one-byte difference is seen */
	str_pattern(str_a, sizeof str_a, 1);
	memcpy(str_b, str_a, sizeof str_a);
	str_b[100] ^= 1;
	CHECK(memcmp(str_a, str_b, sizeof str_a) != 0);
}
