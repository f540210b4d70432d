/*
 * The engine model's speed: instructions retired per MAC of a 512 x 512 1x1 convolution (the
 * shape of a real gemm program: 512 input channels, 512 output channels, 64 positions) and per
 * element of a 4 Mi-element elementwise add through the planar engine and of a 4 Mi-element tanh
 * through the activation LUT, on the target under
 * exact icount (make bench). Each counts one whole submission through the session (load, plan,
 * buffers filled by the test's hooks, run, outputs checked by the hooks, canary scan); the
 * figures below separate the model's own part. Every output is checked, so a run that computed
 * nothing fails. The programs are tools/progdesc/benchprog.c's (the host's bench-model runs the
 * same bytes).
 */
#include "app/session.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <malloc.h> /* memalign (newlib has no posix_memalign) */
#include <stdlib.h>

static struct app_session *session(void)
{
	static struct app_session *s;
	if (!s)
		s = session_create(plat_dma());
	return s;
}

static void no_out(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	(void)s;
	(void)n;
}

struct bctx {
	struct bp_expect e;
	uint64_t bad, outputs;
	uint64_t hooks; /* instructions spent in the hooks (not the model's) */
};

/* Inputs: every fp16 of BAR 5 is in0, of BAR 6 in1 (the session zeroes the outputs). */
static void fill(void *vc, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct bctx *c = vc;
	uint64_t t0 = hal_instret();
	if (!is_weights)
		bp_fill_input(&c->e, (unsigned)g->bar, buf, g->size);
	c->hooks += hal_instret() - t0;
}

/* Every computed value (each row's first w fp16) must be the expected one. */
static void check(void *vc, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct bctx *c = vc;
	uint64_t t0 = hal_instret();
	if (!is_weights)
		bp_check_output(&c->e, (unsigned)g->bar, buf, g->size, &c->outputs, &c->bad);
	c->hooks += hal_instret() - t0;
}

static void report(const char *what, const char *unit, uint64_t n, uint64_t count)
{
	uint64_t hund = count ? n * 100 / count : 0;
	printf("bench model %s: %lu instructions for %lu %ss = %lu.%02lu per %s\n", what,
	       (unsigned long)n, (unsigned long)count, unit, (unsigned long)(hund / 100),
	       (unsigned long)(hund % 100), unit);
}

/* Runs prog; returns the instructions of the submission minus the hooks', 0 on failure. */
static uint64_t run(const uint8_t *prog, size_t len, struct bctx *c, uint64_t *total)
{
	struct session_hooks hk = {.fill = fill, .check = check, .ctx = c,
					  .whole_bars = 1u << BP_IN0_BAR | 1u << BP_IN1_BAR};
	struct session_opts o = {.ldr_flags = LDR_F_RAW, .use_defaults = 1, .out = no_out, .hooks = &hk};
	struct session_result res;
	struct app_session *s = session();
	if (!s)
		return 0;
	uint64_t t0 = hal_instret();
	int rc = session_run(s, prog, len, &o, &res);
	uint64_t t1 = hal_instret();
	CHECKF(rc == 0, "submission: %s", session_result_name(&res));
	*total = t1 - t0;
	return rc ? 0 : t1 - t0 - c->hooks;
}

/* Inputs 1.0, weights 2^-8: every output is exactly 512 x 2^-8 = 2.0 (a TD that moved its input
 * unchanged would leave 1.0). */
TEST(bench, model_conv_512)
{
	enum { CIN = 512, COUT = 512, W = 64 };
	size_t cap = bp_conv_bytes(CIN, COUT);
	uint8_t *prog = memalign(64, cap); /* as the firmware holds a program (app/job.c) */
	REQUIRE(prog);
	size_t len = bp_conv(prog, cap, CIN, COUT, W, 0x1c00u /* 2^-8 */);
	REQUIRE(len);
	struct bctx c = {{BP_FP16_ONE, 0, 0x4000u /* 2.0 */, bp_row(W), W, 0, 0, {{0}}}, 0, 0, 0};
	uint64_t total = 0, n = run(prog, len, &c, &total);
	CHECK_EQ(c.outputs, (uint64_t)W * COUT);
	CHECK_EQ(c.bad, 0u);
	report("conv 512x512 1x1 over 64 positions, whole submission", "MAC", n,
	       (uint64_t)CIN * COUT * W);
	free(prog);
}

/* The same convolution on every core of the board (hal_set_workers(0): hal/aarch64/pool.c's
 * helper cores): the instructions of the whole submission, and each core's in the model's
 * tasks (hal_worker_instret). Under icount QEMU runs the cores in turn and its instruction
 * counter is the machine's, so the whole submission counts every core's instructions (as on
 * one core, plus the pool's own); the tasks, which on silicon run at once, are reported by core,
 * and the serial part plus the busiest core's tasks is what the submission's time would be on
 * equal cores. Every output is checked, as on one core. */
TEST(bench, model_conv_512_cores)
{
	enum { CIN = 512, COUT = 512, W = 64, MAXC = 8 };
	size_t cap = bp_conv_bytes(CIN, COUT);
	uint8_t *prog = memalign(64, cap); /* as the firmware holds a program (app/job.c) */
	REQUIRE(prog);
	size_t len = bp_conv(prog, cap, CIN, COUT, W, 0x1c00u /* 2^-8 */);
	REQUIRE(len);
	unsigned nw = hal_set_workers(0);
	CHECK_EQ(nw, hal_platform()->ncores);
	if (nw > MAXC)
		nw = MAXC;
	uint64_t before[MAXC], tasks[MAXC], busiest = 0, all = 0;
	for (unsigned s = 0; s < nw; s++)
		before[s] = hal_worker_instret(s);
	struct bctx c = {{BP_FP16_ONE, 0, 0x4000u /* 2.0 */, bp_row(W), W, 0, 0, {{0}}}, 0, 0, 0};
	uint64_t total = 0, n = run(prog, len, &c, &total);
	hal_set_workers(1);
	CHECK_EQ(c.outputs, (uint64_t)W * COUT);
	CHECK_EQ(c.bad, 0u);
	for (unsigned s = 0; s < nw; s++) {
		tasks[s] = hal_worker_instret(s) - before[s];
		busiest = tasks[s] > busiest ? tasks[s] : busiest;
		all += tasks[s];
	}
	for (unsigned s = 1; s < nw; s++)
		CHECKF(tasks[s] > 0, "core %u ran no task", s);
	char what[96];
	snprintf(what, sizeof what, "conv 512x512 1x1 over 64 positions on %u cores, whole submission", nw);
	report(what, "MAC", n, (uint64_t)CIN * COUT * W);
	printf("bench model conv 512x512 on %u cores, instructions in the model's tasks:", nw);
	for (unsigned s = 0; s < nw; s++)
		printf(" core %u %lu", s, (unsigned long)tasks[s]);
	printf("; all cores %lu, the busiest core's share %lu%%\n", (unsigned long)all,
	       (unsigned long)(all ? busiest * 100 / all : 0));
	/* the cores' tasks overlap on silicon: the rest of the submission and the busiest core's */
	CHECK(n >= all);
	snprintf(what, sizeof what, "conv 512x512 1x1 over 64 positions on %u cores, serial part and busiest core", nw);
	report(what, "MAC", n - all + busiest, (uint64_t)CIN * COUT * W);
	free(prog);
}

/* 4 Mi fp16 a + b: 1024 x 64 x 64, inputs 1.5 and 0.25, outputs 1.75. */
TEST(bench, model_add_4mi)
{
	enum { W = 1024, H = 64, C = 64 };
	static uint8_t prog[BP_WEIGHTS_OFF + 64];
	size_t len = bp_add(prog, sizeof prog, W, H, C);
	REQUIRE(len);
	struct bctx c = {{0x3e00u, 0x3400u, 0x3f00u, bp_row(W), W, 0, 0, {{0}}}, 0, 0, 0};
	uint64_t total = 0, n = run(prog, len, &c, &total);
	CHECK_EQ(c.outputs, (uint64_t)W * H * C);
	CHECK_EQ(c.bad, 0u);
	report("add 4 Mi fp16 (planar engine), whole submission", "element", n, (uint64_t)W * H * C);
}

/* 4 Mi fp16 tanh through the NE's activation LUT (bp_act): inputs 0.5, outputs tanh(0.5) =
 * 0x3765, the record's knot 4 (no interpolation; a TD that moved its input unchanged would leave
 * 0x3800). The first submission builds the model's 65,536-entry table; the figure is the second
 * (the table kept, as for every later submission with the same record). */
TEST(bench, model_act_4mi)
{
	enum { W = 1024, H = 64, C = 64 };
	static uint8_t prog[BP_ACT_BYTES];
	size_t len = bp_act(prog, sizeof prog, W, H, C);
	REQUIRE(len);
	struct bctx c = {{0x3800u, 0, 0x3765u, bp_row(W), W, 0, 0, {{0}}}, 0, 0, 0};
	uint64_t total = 0, first = run(prog, len, &c, &total);
	CHECK(first > 0);
	c.outputs = c.bad = c.hooks = 0;
	uint64_t n = run(prog, len, &c, &total);
	CHECK_EQ(c.outputs, (uint64_t)W * H * C);
	CHECK_EQ(c.bad, 0u);
	report("act tanh (LUT) 4 Mi fp16, whole submission, table kept", "element", n,
	       (uint64_t)W * H * C);
	report("act tanh (LUT) 4 Mi fp16, whole submission, table built", "element", first,
	       (uint64_t)W * H * C);
}
