/*
 * The engine model's edge behaviour (docs/engine-model.md, "Numerics"), on the real programs in
 * ../shared/fixtures, end to end (loader, control path, engine driver, model), host and target:
 * the values the guide (03-numerics.md, "Edge behavior a correctness oracle must model" and
 * "Saturation hazard", measured on the M1) reports for the silicon:
 * - a NaN enters as +inf: relu(NaN) = inf, sigmoid(NaN) = tanh(NaN) = 1, exp(NaN) = inf,
 *   NaN + 1 = inf;
 * - the engine never produces a NaN: inf - inf = +0, 0 x inf = +0;
 * - subnormals survive the elementwise path and enter the MAC as +0;
 * - a convolution of two or more taps saturates at 2^15 (32752 passes, 32768 is inf), also
 *   where a partial sum gets there and later terms bring the sum back; an elementwise result at
 *   the fp16 limit.
 * Each case is one element of the program's input(s) and the exact fp16 bits expected at the
 * same element of its output. The checker's own test: a wrong expectation fails it.
 */
#include "tests/unit/tsession.h"
#include "fw/common/le.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"
#include "tools/progdesc/progdesc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EDGE_MAX 16

/* fp16 bits */
#define H_ZERO 0x0000u
#define H_NZERO 0x8000u
#define H_ONE 0x3c00u
#define H_TWO 0x4000u
#define H_NTWO 0xc000u
#define H_INF 0x7c00u
#define H_NINF 0xfc00u
#define H_QNAN 0x7e00u
#define H_NQNAN 0xfe00u
#define H_SNAN 0x7d01u
#define H_SUB 0x0001u  /* 2^-24, the smallest subnormal */
#define H_SUB2 0x0003u
#define H_MAX 0x7bffu  /* 65504 */
#define H_256 0x5c00u
#define H_5456 0x6d54u /* fp16 5456, 5460, 5464 (the spacing there is 4) */
#define H_5460 0x6d55u
#define H_5464 0x6d56u
#define H_N5460 0xed55u
#define H_N5464 0xed56u
#define H_32752 0x77ffu /* the largest fp16 below 2^15 */
#define H_20000 0x74e2u
#define H_N10000 0xf0e2u
#define H_TANH_END 0x3bffu /* 0.99951: the tanh record's end knot (see its case) */

struct edge_case {
	const char *name, *path, *orc;
	unsigned n;                /* elements */
	uint16_t a[EDGE_MAX];      /* first input (flat element index) */
	uint16_t b[EDGE_MAX];      /* second input, for two-input programs */
	uint16_t want[EDGE_MAX];   /* the output's bits at the same element */
};

static const struct edge_case cases[] = {
	{"relu(hwx): NaN of any sign or payload is +inf; -inf and -0 are 0; a subnormal passes",
	 "fixtures/hwx/relu.hwx", "model/hwx_relu.orc", 8,
	 {H_QNAN, H_NQNAN, H_SNAN, H_INF, H_NINF, H_NZERO, H_SUB, H_NTWO}, {0},
	 {H_INF, H_INF, H_INF, H_INF, H_ZERO, H_ZERO, H_SUB, H_ZERO}},
	{"sigmoid(hwx): sigmoid(NaN) = sigmoid(inf) = 1", "fixtures/hwx/sigmoid.hwx",
	 "model/hwx_sigmoid.orc", 3, {H_QNAN, H_NQNAN, H_INF}, {0}, {H_ONE, H_ONE, H_ONE}},
	{"sigmoid kernel (two TDs): sigmoid(NaN) = 1", "fixtures/kernels/unary/sigmoid.bin",
	 "model/sigmoid.orc", 2, {H_QNAN, H_INF}, {0}, {H_ONE, H_ONE}},
	/* tanh(NaN) = tanh(+inf). Guide 03 measured 1.0 for a NaN into tanh; this record's input
	 * clamp is [0, 4] on |x| and its end knot 0.99951, and guide 25 says the output stays at the
	 * end knot beyond the clamp, so the record gives 0.99951 at +inf (docs/engine-model.md) */
	{"tanh kernel: tanh(NaN) = tanh(+inf), the record's end knot", "fixtures/kernels/unary/tanh.bin",
	 "model/tanh.orc", 3, {H_QNAN, H_SNAN, H_INF}, {0}, {H_TANH_END, H_TANH_END, H_TANH_END}},
	{"exp kernel: exp(NaN) = inf", "fixtures/kernels/unary/exp.bin", "model/exp.orc", 2,
	 {H_QNAN, H_INF}, {0}, {H_INF, H_INF}},
	{"add kernel: inf - inf = +0, NaN + 1 = inf, -0 + 0 = +0, overflow at the fp16 limit, "
	 "a subnormal passes",
	 "fixtures/kernels/binary/add.bin", "model/add.orc", 6,
	 {H_INF, H_QNAN, H_NZERO, H_MAX, H_SUB, H_NINF},
	 {H_NINF, H_ONE, H_ZERO, H_MAX, H_ZERO, H_INF},
	 {H_ZERO, H_INF, H_ZERO, H_INF, H_SUB, H_ZERO}},
	{"mul kernel: 0 x inf = +0, -0 x inf = +0, NaN x 0 = +0, 256 x 256 = inf, a subnormal "
	 "passes",
	 "fixtures/kernels/binary/mul.bin", "model/mul.orc", 5,
	 {H_ZERO, H_NZERO, H_QNAN, H_256, H_SUB}, {H_INF, H_INF, H_ZERO, H_256, H_ONE},
	 {H_ZERO, H_ZERO, H_ZERO, H_INF, H_SUB}},
	/* conv.hwx: out[o] = 2 x (x0 + x1 + x2), one position, three channels (flat = channel) */
	{"conv: subnormal inputs enter the MAC as +0", "fixtures/hwx/conv.hwx", "model/hwx_conv.orc",
	 3, {H_SUB2, H_SUB2, H_SUB2}, {0}, {H_ZERO, H_ZERO, H_ZERO}},
	{"conv: 2 x (5460 + 5460 + 5464) = 32768 saturates to inf (three taps)", "fixtures/hwx/conv.hwx",
	 "model/hwx_conv.orc", 3, {H_5460, H_5460, H_5464}, {0}, {H_INF, H_INF, H_INF}},
	{"conv: -32768 saturates to -inf", "fixtures/hwx/conv.hwx", "model/hwx_conv.orc", 3,
	 {H_N5460, H_N5460, H_N5464}, {0}, {H_NINF, H_NINF, H_NINF}},
	{"conv: 2 x (5460 + 5460 + 5456) = 32752 passes", "fixtures/hwx/conv.hwx", "model/hwx_conv.orc",
	 3, {H_5460, H_5460, H_5456}, {0}, {H_32752, H_32752, H_32752}},
	/* guide 03: a partial past 2^15 overflows although later terms bring the sum back; the
	 * model's order is (ci, ky, kx) (engine/model/compute.c, above line_port) */
	{"conv: 2 x 20000 = 40000 overflows before 2 x -10000 x 2 brings the sum back to 0",
	 "fixtures/hwx/conv.hwx", "model/hwx_conv.orc", 3, {H_20000, H_N10000, H_N10000}, {0},
	 {H_INF, H_INF, H_INF}},
	{"conv: -10000, 20000, -10000: the partials (-20000, 20000, 0) stay under 2^15",
	 "fixtures/hwx/conv.hwx", "model/hwx_conv.orc", 3, {H_N10000, H_20000, H_N10000}, {0},
	 {H_ZERO, H_ZERO, H_ZERO}},
	{"conv: a NaN input is +inf", "fixtures/hwx/conv.hwx", "model/hwx_conv.orc", 3,
	 {H_NQNAN, H_ONE, H_ONE}, {0}, {H_INF, H_INF, H_INF}},
	/* the last: refused, not computed (model_edges.inf_minus_inf_in_the_accumulator_is_refused) */
	{"conv: inf - inf in the accumulator, then 2 x 2", "fixtures/hwx/conv.hwx", "model/hwx_conv.orc",
	 3, {H_INF, H_NINF, H_TWO}, {0}, {H_ZERO, H_ZERO, H_ZERO}},
};
#define EDGE_AMB 14u /* cases[EDGE_AMB] */

struct edge_run {
	const struct edge_case *c;
	const struct orc *o;
	unsigned filled, checked_tensors, checked, bad, quiet;
};

static uint64_t flat_off(const struct orc_tensor *t, unsigned k)
{
	unsigned hw = t->h * t->w;
	return (uint64_t)(k / hw) * t->plane + (uint64_t)(k / t->w % t->h) * t->row + 2u * (k % t->w);
}

static void edge_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct edge_run *r = ctx;
	if (is_weights)
		return;
	/* the program's inputs in the oracle's order: the first is a, the second b */
	unsigned idx = 0;
	const struct orc_tensor *t = NULL;
	for (unsigned i = 0; i < r->o->nt; i++) {
		if (r->o->t[i].role != 0)
			continue;
		if (r->o->t[i].bar == g->bar) {
			t = &r->o->t[i];
			break;
		}
		idx++;
	}
	if (!t)
		return;
	r->filled++;
	unsigned total = t->c * t->h * t->w;
	for (unsigned k = 0; k < total; k++) {
		uint64_t off = flat_off(t, k);
		uint16_t v = k < r->c->n ? (idx ? r->c->b[k] : r->c->a[k]) : H_ONE;
		if (off + 2 <= g->size)
			le_wr16(buf + off, v);
	}
}

/* Counts the elements whose bits differ from the expectation. */
static void edge_compare(struct edge_run *r, const struct orc_tensor *t, const uint8_t *buf,
			 uint64_t size)
{
	r->checked_tensors++;
	for (unsigned k = 0; k < r->c->n; k++) {
		uint64_t off = flat_off(t, k);
		uint16_t y = off + 2 <= size ? le_rd16(buf + off) : 0xffffu;
		r->checked++;
		if (y != r->c->want[k]) {
			if (!r->quiet)
				test_fail_at(__FILE__, __LINE__, "%s: element %u: model 0x%04x, expected 0x%04x",
					     r->c->name, k, y, r->c->want[k]);
			r->bad++;
		}
	}
}

static void edge_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct edge_run *r = ctx;
	const struct orc_tensor *t = is_weights ? NULL : orc_tensor_of(r->o, (uint32_t)g->bar, 1);
	if (t)
		edge_compare(r, t, buf, g->size);
}

static void run_case(const struct edge_case *c)
{
	struct orc o;
	if (orc_load(c->orc, &o)) {
		CHECKF(0, "%s: oracle %s missing or malformed (make builds build/testdata)", c->name,
		       c->orc);
		return;
	}
	uint8_t *prog;
	size_t len;
	if (test_read_file(test_shared_path(c->path), &prog, &len)) {
		CHECKF(0, "%s: unreadable", c->path);
		orc_free(&o);
		return;
	}
	struct edge_run r;
	memset(&r, 0, sizeof r);
	r.c = c;
	r.o = &o;
	struct session_hooks h = {.fill = edge_fill, .check = edge_check, .ctx = &r};
	struct session_result res;
	int rc = tsubmit(prog, len, 0, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
	if (c == &cases[EDGE_AMB]) { /* refused by name, nothing compared */
		CHECKF(rc != 0 && strstr(res.fault_text, "ambiguous-value") &&
			       strstr(res.fault_text, "infinities of both signs"),
		       "conv over (+inf, -inf, 2): rc %d: %s", rc, res.fault_text);
		free(prog);
		orc_free(&o);
		return;
	}
	CHECKF(rc == 0 && res.run == ENG_OK, "%s: run failed: %s", c->name, session_result_name(&res));
	CHECK(res.canaries_ok);
	CHECKF(r.filled >= 1 && r.checked_tensors == 1 && r.checked == c->n,
	       "%s: %u inputs filled, %u outputs checked, %u elements", c->name, r.filled,
	       r.checked_tensors, r.checked);
	CHECKF(r.bad == 0, "%s: %u of %u elements differ", c->name, r.bad, r.checked);
	free(prog);
	orc_free(&o);
}

#define EDGE_TEST(nm, lo, hi)                                                                  \
	TEST(model_edges, nm)                                                                      \
	{                                                                                          \
		if (!test_shared_dir())                                                                \
			SKIP("../shared absent: the fixture programs are not run");                    \
		for (unsigned i = lo; i < hi; i++)                                                     \
			run_case(&cases[i]);                                                           \
	}

EDGE_TEST(nan_is_inf_at_the_input_port, 0, 5)
EDGE_TEST(no_nan_out_and_elementwise_limits, 5, 7)
EDGE_TEST(mac_flushes_subnormals_and_saturates_at_2_15, 7, EDGE_AMB)

/*
 * conv.hwx over (+inf, -inf, 2): 2 x (inf - inf + 2). This case read "inf - inf in the accumulator
 * is +0" until a seventh review: guide 03 gives inf - inf = +0 but not where the MAC flushes it
 * inside an accumulation (at the partial, then 2 x 2 = 4 counts; at the port, +0), so the model
 * refuses it by name (ambiguous-value); it gave +0 with exit status 0 before.
 */
TEST(model_edges, inf_minus_inf_in_the_accumulator_is_refused)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixture programs are not run");
	run_case(&cases[EDGE_AMB]);
}

/* The checker fails when the model's bits and the expectation differ in one element. */
TEST(model_edges, checker_fails_on_a_wrong_expectation)
{
	struct orc_tensor t = {4, 1, 1, 1, 8, 64, 64, 8, NULL, NULL, NULL};
	struct edge_case c = cases[0];
	uint8_t out[64] = {0};
	for (unsigned k = 0; k < c.n; k++)
		le_wr16(out + 2 * k, c.want[k]);
	for (unsigned round = 0; round < 3; round++) {
		struct edge_case w = c;
		if (round == 1)
			w.want[0] = H_QNAN; /* the IEEE answer instead of the engine's */
		if (round == 2)
			w.want[5] = H_NZERO; /* -0 and +0 differ in bits */
		struct edge_run r;
		memset(&r, 0, sizeof r);
		r.c = &w;
		r.quiet = 1;
		edge_compare(&r, &t, out, sizeof out);
		CHECKF(r.bad == (round ? 1u : 0u), "round %u: %u bad", round, r.bad);
		CHECK_EQ(r.checked, c.n);
	}
}

/*
 * Eighth review: a kernel unit's per-channel scale of 0 over an infinite sum. The port computes
 * (sum x scale + bias) x NE.PostScale (docs/engine-model.md, "Kernels from the kernel unit");
 * guide 03 gives 0 x inf = +0 ("the zero times infinity case returns positive zero"), so the
 * product is +0 and the output the channel's bias. Before, the product's NaN made the whole
 * output +0 and the bias was lost. An int8 layer (mkprog: folded to fp16, its scale stream kept) of 16 outputs over [16, 1, 8] with
 * every scale 0 and output o's bias (o - 8) / 8, the input 1/2 but element (0, 0, 0) +inf: every
 * output (o, x) is (o - 8) / 8 (hand arithmetic: 0 x a finite sum is 0, 0 x inf is +0), the 8 x 16
 * checked; the finite sums are the control (they gave the bias before too). The output of a
 * channel whose weight on input channel 0 is 0 has a finite sum there (0 x inf adds nothing).
 */
static uint8_t ku0_prog[0x8000];
struct ku0 {
	unsigned n, bad;
	unsigned at;
	uint16_t got, want;
};

static uint16_t ku0_bias(unsigned o) /* (o - 8) / 8: exact in fp16 */
{
	static const uint16_t b[16] = {0xbc00, 0xbb00, 0xba00, 0xb900, 0xb800, 0xb600, 0xb400, 0xb000,
				       0x0000, 0x3000, 0x3400, 0x3600, 0x3800, 0x3900, 0x3a00, 0x3b00};
	return b[o];
}

static void ku0_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (is_weights || g->bar != PD_INPUT_BAR)
		return;
	for (uint64_t i = 0; i + 2 <= g->size; i += 2)
		le_wr16(buf + i, 0x3800u); /* 1/2 */
	le_wr16(buf, 0x7c00u);             /* channel 0, x 0: +inf */
}

static void ku0_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct ku0 *d = ctx;
	if (is_weights || g->bar != PD_FIRST_OUTPUT_BAR)
		return;
	for (unsigned o = 0; o < 16u; o++)
		for (unsigned x = 0; x < 8u; x++) {
			const uint64_t off = (uint64_t)o * 64u + 2u * x; /* rows of 64-byte lines */
			if (off + 2 > g->size)
				return;
			const uint16_t got = le_rd16(buf + off);
			d->n++;
			if (got != ku0_bias(o) && !d->bad++) {
				d->at = o * 8u + x;
				d->got = got;
				d->want = ku0_bias(o);
			}
		}
}

/* mkprog's int8 layer of 16 outputs over [16, 1, 8], every per-channel scale 0 and output o's bias
 * ku0_bias(o), but channel 3's scale scale3 and bias bias3 (fp16 bits); run with ku0_fill */
static int ku0_run(uint16_t scale3, uint16_t bias3, struct ku0 *k, struct session_result *res)
{
	static const char text[] = "input w=8 h=1 c=16\nlayer int8 cin=16 cout=16\n";
	struct pd_desc d;
	unsigned line;
	size_t len;
	if (pd_parse(text, sizeof text - 1, &d, &line) != PD_OK || pd_build(&d, ku0_prog, sizeof ku0_prog, &len) != PD_OK)
		return -2;
	/* the unit after the one TD (pd_build's layout), its scale and bias sections (fp16) */
	const size_t woff = (PD_TD_BYTES + 15u) & ~15u;
	struct ku_unit u;
	if (ku_parse(ku0_prog + woff, len - woff, NULL, &u) != KU_OK || u.sec[KU_SEC_SCALE].size < 32u ||
	    u.sec[KU_SEC_BIAS].size < 32u)
		return -2;
	for (unsigned o = 0; o < 16u; o++) {
		le_wr16(ku0_prog + woff + u.sec[KU_SEC_SCALE].offset + 2u * o, o == 3u ? scale3 : 0);
		le_wr16(ku0_prog + woff + u.sec[KU_SEC_BIAS].offset + 2u * o, o == 3u ? bias3 : ku0_bias(o));
	}
	memset(k, 0, sizeof *k);
	const struct session_hooks h = {ku0_fill, ku0_check, k, 0};
	return tsubmit(ku0_prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, res);
}

TEST(model_edges, a_kernel_units_scale_of_0_over_an_infinite_sum_leaves_the_bias)
{
	struct ku0 k;
	struct session_result res;
	int rc = ku0_run(0, ku0_bias(3), &k, &res);
	CHECKF(rc == 0 && res.run == ENG_OK, "rc %d: %s", rc, res.fault_text);
	CHECKF(k.n == 16u * 8u && k.bad == 0, "%u of %u outputs off, the first (o %u, x %u): 0x%04x, want 0x%04x",
	       k.bad, k.n, k.at / 8u, k.at % 8u, k.got, k.want);
}

/*
 * Eighth review: a per-channel scale or bias that is NaN. Guide 03 coerces a NaN to +inf where
 * the tiles enter the engine; how the kernel unit's streams read one is not measured, and no
 * program holds one (no fixture has a kernel unit; mkprog writes 1, 1/64 and multiples of 1/8).
 * The model made the channel's every output +0 (the port value NaN); now it refuses by name
 * (unreadable-weights, naming the stream's relocation register). The control: the same program
 * with the scale 0 and the bias (3 - 8) / 8 of channel 3 computes above.
 */
TEST(model_edges, a_kernel_units_nan_scale_or_bias_is_refused_by_name)
{
	static const struct {
		uint16_t scale, bias;
		const char *want;
	} c[] = {
		{0x7e00u, 0xb900u, "td 0, unit KStream, KStream.PostScale.Reloc = "},
		{0x0000u, 0xfe01u, "td 0, unit KStream, KStream.Bias.Reloc = "},
	};
	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct ku0 k;
		struct session_result res;
		int rc = ku0_run(c[i].scale, c[i].bias, &k, &res);
		CHECKF(rc != 0 && strstr(res.fault_text, c[i].want) != NULL &&
			       strstr(res.fault_text, "unreadable-weights: a kernel unit's per-channel scale or bias "
						      "that is NaN not modelled") != NULL,
		       "scale 0x%04x, bias 0x%04x: rc %d, %u of %u off: \"%s\"", c[i].scale, c[i].bias, rc, k.bad, k.n,
		       res.fault_text);
	}
}
