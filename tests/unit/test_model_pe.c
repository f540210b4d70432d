/*
 * The planar engine's pooling and subtraction in the engine model (docs/engine-model.md,
 * "Planar engine"), end to end (raw H13 TDs built by tools/progdesc's bp_pe, the loader, the
 * control path, the engine driver, the model), host and target: average, maximum and minimum
 * pooling over windows with strides and padding, a global average (a reduction over H and W),
 * pooling followed by the PE's scale, bias and ReLU, and b - a as an add whose first operand
 * has PreScale -1, and the macOS compiler's eight-TD chain through an intermediate (copies into
 * channel planes, a convolution over them, PE operations with second sources; bp_chain). The
 * reference is computed here in double from the definition; every output element must be
 * within one fp16 ulp of it (maximum and minimum exactly). The PE
 * configurations the model does not know are refused with engine-fault. The checker's own test:
 * an output two ulp off fails it.
 */
#include "tests/unit/tsession.h"
#include "fw/actlut/actlut.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "fw/tensors/tensors.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"
#include "tools/progdesc/benchprog.h"

#include <stdlib.h>
#include <string.h>

#define H_ONE 0x3c00u
#define H_MONE 0xbc00u
#define H_HALF 0x3800u
#define H_MINUS_QUARTER 0xb400u
#define F32_ONE 0x3f800000u

/* double -> fp16, nearest, ties to even (finite inputs in the fp16 normal and subnormal range) */
static uint16_t d2h(double d)
{
	uint16_t sign = d < 0 ? 0x8000u : 0;
	double a = d < 0 ? -d : d;
	if (a >= 65520.0)
		return sign | 0x7c00u;
	int e = 15; /* a = m x 2^(e - 25) with m an integer of 11 bits */
	double scale = 1.0;
	while (a >= 2.0 * scale && e < 30) {
		scale *= 2.0;
		e++;
	}
	while (a < scale && e > 1) {
		scale *= 0.5;
		e--;
	}
	/* spacing at this binade: scale x 2^-10 */
	double q = a / (scale / 1024.0), fl = (double)(uint64_t)q, rem = q - fl;
	uint64_t m = (uint64_t)fl;
	if (rem > 0.5 || (rem == 0.5 && (m & 1u)))
		m++;
	if (a < scale) /* subnormal: e == 1 and m < 1024 */
		return sign | (uint16_t)m;
	uint32_t bits = ((uint32_t)e << 10) + (uint32_t)(m - 1024u); /* a carry bumps e */
	return sign | (uint16_t)bits;
}

static double h2d(uint16_t h)
{
	return orc_f16(h);
}

/* (the ninth review's pooling test: input (0, 0, 0) and (0, 0, 1) of BAR 5 these two values when
 * pe_pair_on, and output (0, 0, 0) kept in pe_out0) */
static int pe_pair_on;
static uint16_t pe_pair[2], pe_out0;
/* (the tenth review's PE test: input (0, 0, 0) of BAR 6, the second operand, this value when
 * pe_b0_on) */
static int pe_b0_on;
static uint16_t pe_b0;

/* The input values: multiples of 1/64 in [-8, 8), so sums are exact. */
static uint16_t input_at(unsigned bar, unsigned c, unsigned y, unsigned x)
{
	if (pe_pair_on && bar == BP_IN0_BAR && c == 0 && y == 0 && x < 2)
		return pe_pair[x];
	if (pe_b0_on && bar == BP_IN1_BAR && c == 0 && y == 0 && x == 0)
		return pe_b0;
	uint32_t k = (bar * 7919u + c * 104729u + y * 1299709u + x * 15485863u) * 2654435761u;
	int q = (int)(k >> 22) - 512; /* -512 .. 511 */
	return d2h((double)q / 64.0);
}

struct pe_run {
	const struct bp_pe_spec *p;
	const struct bp_pe_spec *ref; /* when set, the output is checked against this spec */
	const struct bp_pe_spec *first; /* a bp_pe2 chain: TD 0's spec (p is TD 1's) */
	int alias;                      /* BAR 6 holds BAR 5's values (one input, two BARs) */
	unsigned filled, checked_outputs, ulp_max;
	uint64_t checked, bad;
	int quiet;
};

static void pe_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct pe_run *r = ctx;
	const struct bp_pe_spec *p = r->first && g->bar == BP_IN0_BAR ? r->first : r->p;
	if (is_weights || (g->bar != BP_IN0_BAR && g->bar != BP_IN1_BAR))
		return;
	r->filled++;
	uint32_t row = bp_row(p->win), plane = row * p->hin;
	for (unsigned c = 0; c < p->c; c++)
		for (unsigned y = 0; y < p->hin; y++)
			for (unsigned x = 0; x < p->win; x++) {
				uint64_t off = (uint64_t)c * plane + (uint64_t)y * row + 2u * x;
				if (off + 2 <= g->size)
					le_wr16(buf + off, input_at(r->alias ? BP_IN0_BAR : (unsigned)g->bar,
								    c, y, x));
			}
}

/* The PE after its first operand a (and second b): PreScale, the operation, |.|, + Bias, x Scale
 * (the bias first, docs/engine-model.md "Planar.BiasScale"), ReLU, FinalScale. */
static double pe_tail(const struct bp_pe_spec *p, double a, double b)
{
	double r = a * h2d(p->prescale);
	int two = p->secsrc == H13_PE_SECSRC_TILE1;
	if (p->firstsrc == 1 && two && p->op == H13_PE_OP_MUL) /* the first operand negated */
		r = -r;
	if (p->op == H13_PE_OP_SQ) /* (a + b)^2, allbilly/ane's measurement; a^2 without b */
		r = (r + (two ? b : 0)) * (r + (two ? b : 0));
	else if (two && p->op == H13_PE_OP_MUL)
		r *= b;
	else if (two && p->op == H13_PE_OP_MAX)
		r = r >= b ? r : b;
	else if (two && p->op == H13_PE_OP_MIN)
		r = r <= b ? r : b;
	else if (two)
		r += b;
	if (p->cond == H13_PE_COND_ABS && r < 0)
		r = -r;
	r = (r + h2d(p->bias)) * h2d(p->scale);
	if (p->relu && r < 0)
		r = 0;
	float fin;
	memcpy(&fin, &p->finalscale, 4);
	return r * fin;
}

/* The expected output (c, y, x) in double. */
static double reference(const struct bp_pe_spec *p, unsigned c, unsigned y, unsigned x)
{
	double a;
	if (p->pool) {
		double sum = 0, ext = 0;
		int any = 0;
		for (unsigned ky = 0; ky < p->kh; ky++)
			for (unsigned kx = 0; kx < p->kw; kx++) {
				long iy = (long)y * p->sy - (long)p->py + ky, ix = (long)x * p->sx - (long)p->px + kx;
				if (iy < 0 || ix < 0 || iy >= (long)p->hin || ix >= (long)p->win)
					continue; /* outside: 0 in the sum; not a candidate */
				double v = h2d(input_at(BP_IN0_BAR, c, (unsigned)iy, (unsigned)ix));
				sum += v;
				if (!any || (p->pool == H13_PE_POOL_MAX ? v > ext : v < ext))
					ext = v;
				any = 1;
			}
		a = p->pool == H13_PE_POOL_AVG ? sum / (p->kw * p->kh) : ext;
		a = h2d(d2h(a)); /* the pooled value is an fp16 */
	} else {
		a = h2d(input_at(BP_IN0_BAR, c, y, x));
	}
	double b = p->secsrc == H13_PE_SECSRC_TILE1 ? h2d(input_at(BP_IN1_BAR, c, y, x)) : 0;
	return pe_tail(p, a, b);
}

static void pe_compare(struct pe_run *r, const uint8_t *buf, uint64_t size)
{
	const struct bp_pe_spec *p = r->ref ? r->ref : r->p;
	uint32_t row = bp_row(p->wout), plane = row * p->hout;
	r->checked_outputs++;
	for (unsigned c = 0; c < p->c; c++)
		for (unsigned y = 0; y < p->hout; y++)
			for (unsigned x = 0; x < p->wout; x++) {
				uint64_t off = (uint64_t)c * plane + (uint64_t)y * row + 2u * x;
				uint16_t got = off + 2 <= size ? le_rd16(buf + off) : 0x7e00u;
				uint16_t want;
				if (r->first) { /* TD 0's fp16 output, then TD 1 with BAR 6 */
					double a = h2d(d2h(reference(r->first, c, y, x)));
					unsigned bb = r->alias ? BP_IN0_BAR : BP_IN1_BAR;
					want = d2h(pe_tail(p, a, h2d(input_at(bb, c, y, x))));
				} else {
					want = d2h(reference(p, c, y, x));
				}
				/* ulp distance on the fp16 number line (both finite here) */
				int gi = got & 0x8000u ? -(int)(got & 0x7fffu) : (int)got;
				int wi = want & 0x8000u ? -(int)(want & 0x7fffu) : (int)want;
				unsigned d = (unsigned)(gi > wi ? gi - wi : wi - gi);
				unsigned tol = p->pool == H13_PE_POOL_MAX || p->pool == H13_PE_POOL_MIN ? 0u : 1u;
				r->checked++;
				if (d > r->ulp_max)
					r->ulp_max = d;
				if (d > tol || (got & 0x7c00u) == 0x7c00u) {
					if (!r->bad && !r->quiet)
						test_fail_at(__FILE__, __LINE__,
							     "element (%u,%u,%u): model 0x%04x (%g), reference 0x%04x (%g)",
							     c, y, x, got, h2d(got), want, h2d(want));
					r->bad++;
				}
			}
}

static void pe_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct pe_run *r = ctx;
	if (!is_weights && g->bar == BP_OUT_BAR && g->size >= 2)
		pe_out0 = le_rd16(buf);
	if (!is_weights && g->bar == BP_OUT_BAR)
		pe_compare(r, buf, g->size);
}

static uint8_t prog[4096];

/* Runs the TD; returns the run's engine status (ENG_OK, ENG_E_FAULT...), -1 when refused. */
static int run_spec_ref(const struct bp_pe_spec *p, const struct bp_pe_spec *ref, struct pe_run *r,
			int quiet)
{
	memset(r, 0, sizeof *r);
	r->p = p;
	r->ref = ref;
	r->quiet = quiet;
	size_t len = bp_pe(prog, sizeof prog, p);
	CHECK(len > 0);
	if (!len)
		return -2;
	struct session_hooks h = {.fill = pe_fill, .check = pe_check, .ctx = r};
	struct session_result res;
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
	CHECK(res.canaries_ok);
	if (res.run != ENG_OK)
		return (int)res.run;
	return rc == 0 ? ENG_OK : -1;
}

static int run_spec(const struct bp_pe_spec *p, struct pe_run *r, int quiet)
{
	return run_spec_ref(p, NULL, r, quiet);
}

static struct bp_pe_spec base(void)
{
	struct bp_pe_spec p;
	memset(&p, 0, sizeof p);
	p.c = 3;
	p.kw = p.kh = p.sx = p.sy = 1;
	p.prescale = H_ONE;
	p.scale = H_ONE;
	p.finalscale = F32_ONE;
	return p;
}

/* A 2-channel 9 x 5 input pooled by a 3 x 3 window, stride 1, padding 1 (the output the input's
 * size), and the same input through a 1 x 1 window (nothing to order: the pool tests' control). */
static struct bp_pe_spec pool_3x3_pad1(unsigned pool)
{
	struct bp_pe_spec p = base();
	p.c = 2, p.win = 9, p.hin = 5, p.wout = 9, p.hout = 5, p.kw = p.kh = 3, p.px = p.py = 1;
	p.pool = pool;
	return p;
}

static struct bp_pe_spec pool_1x1(unsigned pool)
{
	struct bp_pe_spec p = base();
	p.c = 2, p.win = 9, p.hin = 5, p.wout = 9, p.hout = 5;
	p.pool = pool;
	return p;
}

static void expect_ok(const struct bp_pe_spec *p, const char *what)
{
	struct pe_run r;
	int st = run_spec(p, &r, 0);
	CHECKF(st == ENG_OK, "%s: run status %d", what, st);
	CHECKF(r.filled >= 1 && r.checked_outputs == 1, "%s: %u inputs, %u outputs", what, r.filled,
	       r.checked_outputs);
	CHECKF(r.bad == 0, "%s: %lu of %lu elements off", what, (unsigned long)r.bad,
	       (unsigned long)r.checked);
	CHECK_EQ(r.checked, (uint64_t)p->c * p->hout * p->wout);
}

TEST(model_pe, average_max_min_pooling_with_strides_and_padding)
{
	struct bp_pe_spec p = base();
	/* 2x2 average, stride 2 */
	p.win = 10, p.hin = 6, p.wout = 5, p.hout = 3, p.kw = p.kh = 2, p.sx = p.sy = 2;
	p.pool = H13_PE_POOL_AVG;
	expect_ok(&p, "avg 2x2/2");
	/* 3x3 maximum, stride 1, padding 1: the output the input's size */
	p = pool_3x3_pad1(H13_PE_POOL_MAX);
	expect_ok(&p, "max 3x3/1 pad 1");
	p.pool = H13_PE_POOL_MIN;
	expect_ok(&p, "min 3x3/1 pad 1");
	/* 3 x 2 average, strides 2 and 1, padding 1 and 0: the padded positions count as zeros */
	p = base();
	p.win = 11, p.hin = 4, p.kw = 3, p.kh = 2, p.sx = 2, p.sy = 1, p.px = 1;
	p.wout = 6, p.hout = 3, p.pool = H13_PE_POOL_AVG;
	expect_ok(&p, "avg 3x2 pad");
}

/*
 * A maximum or minimum pool over a window above 1 x 1 with a negative PreScale or Scale: pooling
 * then scaling gives p max x, scaling then pooling max (x p) = p min x, and nothing pins which (no
 * H13 program pools in the PE): refused by name, the field named. Controls: a positive PreScale
 * and Scale, a negative one on an average (linear: one value either way up to the rounding of
 * the pooled value) and on a 1 x 1 window (nothing to order) compute.
 */
static void expect_fault(const struct bp_pe_spec *p, const char *want); /* (below) */
TEST(model_pe, a_negative_scale_on_a_max_or_min_pool_is_refused)
{
	struct bp_pe_spec p = pool_3x3_pad1(H13_PE_POOL_MAX);
	struct bp_pe_spec q = p;
	q.prescale = H_MONE;
	expect_fault(&q, "Planar.PreScale");
	expect_fault(&q, "scaling before the pool (max(x p) = p min x) or after it");
	q = p;
	q.pool = H13_PE_POOL_MIN, q.scale = 0xb800u; /* -0.5 */
	expect_fault(&q, "BiasScale.Scale");
	q = p;
	q.prescale = H_HALF, q.scale = H_HALF, q.bias = H_MINUS_QUARTER;
	expect_ok(&q, "max 3x3 then x 0.5, - 0.25, x 0.5");
	q = p;
	q.pool = H13_PE_POOL_AVG, q.prescale = H_MONE;
	expect_ok(&q, "avg 3x3 then x -1");
	q = pool_1x1(H13_PE_POOL_MAX);
	q.prescale = H_MONE;
	expect_ok(&q, "max 1x1 then x -1");
}

/*
 * The fifteenth review: an average pool over a window above 1 x 1 with ReluEn (relu(avg x) or
 * avg relu(x): a window {-1, 3} gives 1 or 1.5), and an average with a Bias whose windows reach
 * outside the input (avg(x) + b, or the Bias on the positions inside alone), orders nothing pins:
 * refused by name, the field named. Controls: the maximum and minimum with ReluEn (the ReLU
 * commutes with them), the average with ReluEn over 1 x 1, with a Bias and no window reaching
 * outside, and with padding and no Bias, compute.
 */
TEST(model_pe, a_relu_or_a_bias_whose_place_in_an_average_pool_matters_is_refused)
{
	struct bp_pe_spec p = pool_3x3_pad1(H13_PE_POOL_AVG);
	struct bp_pe_spec q = p;
	q.relu = 1;
	expect_fault(&q, "ReluEn");
	expect_fault(&q, "a PE average pool with ReluEn over a window above 1 x 1");
	q = p;
	q.bias = H_MINUS_QUARTER;
	expect_fault(&q, "BiasScale.Bias");
	expect_fault(&q, "or with a Bias where a window reaches outside the input");
	/* no padding, the last window past the input's end: 10 wide, 3 x 3 / 2, 5 out */
	q = base();
	q.c = 2, q.win = 10, q.hin = 3, q.wout = 5, q.hout = 1, q.kw = q.kh = 3, q.sx = q.sy = 2;
	q.pool = H13_PE_POOL_AVG, q.bias = H_MINUS_QUARTER;
	expect_fault(&q, "or with a Bias where a window reaches outside the input");
	q.win = 11;
	expect_ok(&q, "avg 3x3/2 over 11 x 3 then - 0.25");
	q = p;
	q.pool = H13_PE_POOL_MAX, q.relu = 1, q.bias = H_MINUS_QUARTER;
	expect_ok(&q, "max 3x3 pad 1 then - 0.25, relu");
	q.pool = H13_PE_POOL_MIN;
	expect_ok(&q, "min 3x3 pad 1 then - 0.25, relu");
	q = p;
	q.prescale = H_HALF, q.scale = H_MONE;
	expect_ok(&q, "avg 3x3 pad 1 then x 0.5, x -1");
	q = pool_1x1(H13_PE_POOL_AVG);
	q.relu = 1, q.bias = H_MINUS_QUARTER;
	expect_ok(&q, "avg 1x1 then - 0.25, relu");
}

/*
 * The ninth review: an average pool's window sum meeting infinities of both signs (+inf and -inf in
 * one 2x2 window) is refused by name, as a convolution's sum is: guide 03 gives inf - inf = +0
 * elementwise and does not say where the planar engine flushes it inside a sum (at the partial,
 * the later values counting; at the end, +0; or not at all). Before, the fp32 sum's NaN was +0.
 * Controls (hand arithmetic): +inf and 1 average to +inf, -inf and -inf to -inf, a NaN (+inf at
 * the tile DMA) and 1 to +inf; the max pool of +inf and -inf is +inf (no sum).
 */
TEST(model_pe, an_average_pools_window_meeting_both_infinities_is_refused)
{
	static const struct {
		const char *what;
		uint16_t a, b;
		unsigned pool;
		int refused;
		uint16_t want;
	} cases[] = {
		{"control: avg of +inf, 1", 0x7c00u, 0x3c00u, H13_PE_POOL_AVG, 0, 0x7c00u},
		{"control: avg of -inf, -inf", 0xfc00u, 0xfc00u, H13_PE_POOL_AVG, 0, 0xfc00u},
		{"control: max of +inf, -inf", 0x7c00u, 0xfc00u, H13_PE_POOL_MAX, 0, 0x7c00u},
		{"control: avg of a NaN (+inf at the tile DMA), 1", 0x7e00u, 0x3c00u, H13_PE_POOL_AVG, 0, 0x7c00u},
		{"avg of +inf, -inf", 0x7c00u, 0xfc00u, H13_PE_POOL_AVG, 1, 0},
		{"avg of -inf, +inf", 0xfc00u, 0x7c00u, H13_PE_POOL_AVG, 1, 0},
		{"avg of a NaN (+inf at the tile DMA), -inf", 0x7e00u, 0xfc00u, H13_PE_POOL_AVG, 1, 0},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct bp_pe_spec p = base();
		p.win = 4, p.hin = 2, p.wout = 2, p.hout = 1, p.kw = p.kh = 2, p.sx = p.sy = 2;
		p.pool = cases[i].pool;
		struct pe_run r;
		pe_pair[0] = cases[i].a;
		pe_pair[1] = cases[i].b;
		pe_pair_on = 1;
		pe_out0 = 0x1234u;
		int st = run_spec(&p, &r, 1);
		pe_pair_on = 0;
		if (cases[i].refused)
			CHECKF(st == ENG_E_FAULT, "%s: run status %d, output 0x%04x", cases[i].what, st, pe_out0);
		else
			CHECKF(st == ENG_OK && pe_out0 == cases[i].want, "%s: run status %d, output 0x%04x",
			       cases[i].what, st, pe_out0);
	}
}

/* A case of the two tests below: a one-channel row of 8 through the PE, the first value a (and the
 * second operand's first value b, two), PreScale, Bias and Scale as given; want is output 0 where
 * the run is not refused. */
struct pe_pair_case {
	const char *what;
	unsigned op, two;
	uint16_t pre, bias, scale, a, b;
	int refused;
	uint16_t want;
};

/* Runs c; returns the run's status (ENG_OK, an engine error, or -1 for a refusal before the
 * engine), the messages in cap and output 0 in pe_out0. */
static int pe_pair_run(const struct pe_pair_case *c, struct tcapture *cap)
{
	struct bp_pe_spec p = base();
	p.c = 1, p.win = 8, p.hin = 1, p.wout = 8, p.hout = 1;
	p.op = c->op;
	p.secsrc = c->two ? H13_PE_SECSRC_TILE1 : H13_PE_SECSRC_NONE;
	p.prescale = c->pre, p.bias = c->bias, p.scale = c->scale;
	struct pe_run r;
	memset(&r, 0, sizeof r);
	r.p = &p;
	r.quiet = 1;
	size_t len = bp_pe(prog, sizeof prog, &p);
	if (!len)
		return -1;
	pe_pair[0] = c->a;
	pe_pair[1] = input_at(BP_IN0_BAR, 0, 0, 1);
	pe_b0 = c->b;
	pe_pair_on = pe_b0_on = 1;
	pe_out0 = 0x1234u;
	cap->n = 0;
	cap->text[0] = 0;
	struct session_hooks h = {.fill = pe_fill, .check = pe_check, .ctx = &r};
	struct session_result res;
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tcapture_out, cap, &h, &res);
	pe_pair_on = pe_b0_on = 0;
	return res.run != ENG_OK ? (int)res.run : rc == 0 ? ENG_OK : -1;
}

/*
 * The tenth review: the planar engine's operation meeting an indeterminate form (inf - inf in its
 * add, or in the square's a + b; 0 x inf in its PreScale) followed by a step that gives another
 * value when the NaN is flushed to +0 there (guide 03's +0 for one operation) than when it is
 * flushed at the end of the row (the model's +0): a Bias added after the add, the second
 * operand after PreScale 0 over an infinity, a maximum with a negative second operand. Nothing
 * pins which the engine does, and no program holds these forms: refused by name, where each
 * completed with +0 (or the second operand) before. Controls (hand arithmetic, computed before
 * and after): +inf + -inf with Bias 0 is +0 (the guide's inf - inf, then x Scale 1); +inf + 1
 * with Bias 1 is +inf; PreScale 0 over 1, + 2, is 2; PreScale 0 over +inf times 2 (a product:
 * 0 x 2 either way) is +0; Bias 1 over +inf + -inf with Scale 0 is 0 either way.
 */
TEST(model_pe, an_indeterminate_form_before_a_later_step_is_refused)
{
	static const struct pe_pair_case cases[] = {
		{"(+inf + -inf + Bias 1) x 1", H13_PE_OP_ADD, 1, H_ONE, H_ONE, H_ONE, 0x7c00u, 0xfc00u, 1, 0},
		{"(-inf + +inf + Bias 1) x 1", H13_PE_OP_ADD, 1, H_ONE, H_ONE, H_ONE, 0xfc00u, 0x7c00u, 1, 0},
		{"(+inf + -inf)^2 + Bias 1", H13_PE_OP_SQ, 1, H_ONE, H_ONE, H_ONE, 0x7c00u, 0xfc00u, 1, 0},
		{"0 x +inf + 2", H13_PE_OP_ADD, 1, 0, 0, H_ONE, 0x7c00u, 0x4000u, 1, 0},
		{"max(0 x +inf, -1)", H13_PE_OP_MAX, 1, 0, 0, H_ONE, 0x7c00u, H_MONE, 1, 0},
		{"0 x +inf + Bias 1, one operand", H13_PE_OP_ADD, 0, 0, H_ONE, H_ONE, 0x7c00u, 0, 1, 0},
		{"control: (+inf + -inf + Bias 0) x 1", H13_PE_OP_ADD, 1, H_ONE, 0, H_ONE, 0x7c00u, 0xfc00u, 0, 0},
		{"control: (+inf + 1 + Bias 1) x 1", H13_PE_OP_ADD, 1, H_ONE, H_ONE, H_ONE, 0x7c00u, H_ONE, 0, 0x7c00u},
		{"control: 0 x 1 + 2", H13_PE_OP_ADD, 1, 0, 0, H_ONE, H_ONE, 0x4000u, 0, 0x4000u},
		{"control: 0 x +inf times 2", H13_PE_OP_MUL, 1, 0, 0, H_ONE, 0x7c00u, 0x4000u, 0, 0},
		{"control: (+inf + -inf + Bias 1) x 0", H13_PE_OP_ADD, 1, H_ONE, H_ONE, 0, 0x7c00u, 0xfc00u, 0, 0},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tcapture cap;
		int st = pe_pair_run(&cases[i], &cap);
		if (cases[i].refused)
			CHECKF(st == ENG_E_FAULT && strstr(cap.text, "td 0") != NULL &&
				       strstr(cap.text, "ambiguous-value") != NULL &&
				       strstr(cap.text, "the planar engine's operation") != NULL,
			       "%s: run status %d, output 0x%04x: \"%s\"", cases[i].what, st, pe_out0, cap.text);
		else
			CHECKF(st == ENG_OK && pe_out0 == cases[i].want, "%s: run status %d, output 0x%04x",
			       cases[i].what, st, pe_out0);
	}
}

/*
 * The eleventh review: a NaN in the PE's own fp16 registers, Planar.PreScale, BiasScale's Bias or
 * Scale. Before, x NaN, + NaN or x NaN made a NaN the row flushed at its end, so every output was
 * +0 and the run exited 0 (the stop's review of the tenth refused a NaN PreScale only where a Bias
 * or a second operand made the two flushes differ, and computed +0 for one operand). No program
 * holds one, guide 03 makes a NaN +inf only where the tiles enter, and on an M1 a NaN NE.PostScale
 * (0xffff) gave inf, not +0: refused by name on the register (fw/td td_pe_nan_refusal), before
 * any output. Controls, by hand arithmetic: an infinite Bias (1 + inf = +inf), an infinite
 * PreScale (1 x +inf + 0 = +inf), and a Bias of -1 (1 + -1 = 0).
 */
TEST(model_pe, a_nan_prescale_scale_or_bias_is_refused_on_the_register)
{
	static const struct pe_pair_case cases[] = {
		{"1 x NaN PreScale, one operand", H13_PE_OP_ADD, 0, 0x7e00u, 0, H_ONE, H_ONE, 0, 1, 0},
		{"1 x NaN PreScale + 2", H13_PE_OP_ADD, 1, 0x7e00u, 0, H_ONE, H_ONE, 0x4000u, 1, 0},
		{"1 x -NaN PreScale, a maximum", H13_PE_OP_MAX, 0, 0xfe01u, 0, H_ONE, H_ONE, 0, 1, 0},
		{"1 + NaN Bias", H13_PE_OP_ADD, 0, H_ONE, 0x7e00u, H_ONE, H_ONE, 0, 1, 0},
		{"(1 + 2 + NaN Bias)", H13_PE_OP_ADD, 1, H_ONE, 0x7c01u, H_ONE, H_ONE, 0x4000u, 1, 0},
		{"1 x NaN Scale", H13_PE_OP_ADD, 0, H_ONE, 0, 0xffffu, H_ONE, 0, 1, 0},
		{"control: 1 + inf Bias", H13_PE_OP_ADD, 0, H_ONE, 0x7c00u, H_ONE, H_ONE, 0, 0, 0x7c00u},
		{"control: 1 x inf PreScale", H13_PE_OP_ADD, 0, 0x7c00u, 0, H_ONE, H_ONE, 0, 0, 0x7c00u},
		{"control: 1 + Bias -1", H13_PE_OP_ADD, 0, H_ONE, H_MONE, H_ONE, H_ONE, 0, 0, 0},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tcapture cap;
		int st = pe_pair_run(&cases[i], &cap);
		if (cases[i].refused)
			CHECKF(st == ENG_E_FAULT && strstr(cap.text, "td 0") != NULL &&
				       strstr(cap.text, "a NaN Planar.PreScale, BiasScale.Scale or BiasScale.Bias "
						       "not modelled") != NULL,
			       "%s: run status %d, output 0x%04x: \"%s\"", cases[i].what, st, pe_out0, cap.text);
		else
			CHECKF(st == ENG_OK && pe_out0 == cases[i].want, "%s: run status %d, output 0x%04x",
			       cases[i].what, st, pe_out0);
	}
}

TEST(model_pe, global_average_is_a_reduction_over_h_and_w)
{
	struct bp_pe_spec p = base();
	p.c = 4, p.win = 24, p.hin = 7, p.wout = 1, p.hout = 1, p.kw = 24, p.kh = 7;
	p.pool = H13_PE_POOL_AVG;
	expect_ok(&p, "global avg");
	p.pool = H13_PE_POOL_MAX;
	expect_ok(&p, "global max");
}

TEST(model_pe, pooling_then_scale_bias_and_relu)
{
	struct bp_pe_spec p = base();
	p.win = 8, p.hin = 4, p.wout = 4, p.hout = 2, p.kw = p.kh = 2, p.sx = p.sy = 2;
	p.pool = H13_PE_POOL_AVG;
	p.scale = H_HALF, p.bias = H_MINUS_QUARTER;
	expect_ok(&p, "avg then - 0.25, x 0.5");
	/* the ReLU after the maximum, where its place does not change the value; after an average
	 * over a window above 1 x 1 it does, and is refused (the fifteenth review: before, this test
	 * ran the average with the ReLU, the model's own order, which nothing pins) */
	p.pool = H13_PE_POOL_MAX, p.relu = 1;
	expect_ok(&p, "max then - 0.25, x 0.5, relu");
	p.pool = H13_PE_POOL_AVG;
	expect_fault(&p, "a PE average pool with ReluEn over a window above 1 x 1");
}

TEST(model_pe, subtract_is_add_with_prescale_minus_one)
{
	struct bp_pe_spec p = base();
	p.win = 40, p.hin = 3, p.wout = 40, p.hout = 3;
	p.op = H13_PE_OP_ADD, p.secsrc = H13_PE_SECSRC_TILE1, p.prescale = H_MONE;
	expect_ok(&p, "b - a");
}

/* The other PE operations with the second tile source (allbilly/ane examples/elementwise.py,
 * run on an M1: OpMode 2 max, 3 min, 4 (a + b)^2), and OpMode 4 alone (a^2: square.bin's
 * shape). The checker fails the square of the sum held against a^2. */
TEST(model_pe, max_min_and_the_square_of_the_sum)
{
	struct bp_pe_spec p = base();
	p.win = 33, p.hin = 3, p.wout = 33, p.hout = 3, p.secsrc = H13_PE_SECSRC_TILE1;
	p.op = H13_PE_OP_MAX;
	expect_ok(&p, "max(a, b)");
	p.op = H13_PE_OP_MIN;
	expect_ok(&p, "min(a, b)");
	p.op = H13_PE_OP_SQ;
	expect_ok(&p, "(a + b)^2");
	p.prescale = H_MONE;
	expect_ok(&p, "(b - a)^2");
	struct bp_pe_spec sq = p;
	sq.prescale = H_ONE, sq.secsrc = H13_PE_SECSRC_NONE;
	expect_ok(&sq, "a^2");
	/* the negative: (a + b)^2 held against a^2 */
	p.prescale = H_ONE;
	struct pe_run r;
	CHECK_EQ(run_spec_ref(&p, &sq, &r, 1), ENG_OK);
	CHECKF(r.bad > r.checked / 2, "(a + b)^2 against a^2: %lu of %lu off", (unsigned long)r.bad,
	       (unsigned long)r.checked);
}

/* The bias before the scale, and FirstSrc 1 on a product, as the macOS compiler's GPT-2 gelu
 * backward has them (allbilly/ane gpt2/training/aneforge/kernels/gelu_32_3072_backward; its MIL,
 * orion's model.mil.raw, gives the constants): TD 7 computes (t + 1) x 0.797885 of TD 6's
 * t = 0.134145 x^2 with Bias 1 and Scale 0.7979 in one one-operand TD, TD 4 computes t x t x (-1)
 * with FirstSrc 1 and no -1 in any word. Here x x 0.134155 (PreScale) + 1, x 0.797852 and -(a x b);
 * each against pe_tail (the definition: + Bias, then x Scale; FirstSrc 1 negates the first operand
 * of a product). Negatives: the output held against r x Scale + Bias (the order the model used
 * until 2026-12-04) and against the product unnegated fails; FirstSrc 1 on an add is refused. */
TEST(model_pe, bias_before_scale_and_a_negated_first_operand)
{
	struct bp_pe_spec p = base();
	p.c = 2, p.win = 40, p.hin = 3, p.wout = 40, p.hout = 3;
	p.prescale = 0x304bu; /* fp16(0.134155) */
	p.bias = H_ONE;
	p.scale = 0x3a62u; /* fp16(0.797852) */
	expect_ok(&p, "(0.134 a + 1) x 0.798");
	struct bp_pe_spec old = p; /* r x Scale + Bias as (r + Bias / Scale) x Scale */
	old.bias = 0x3d03u;        /* fp16(1 / 0.797852) */
	struct pe_run r;
	CHECK_EQ(run_spec_ref(&p, &old, &r, 1), ENG_OK);
	CHECKF(r.bad > r.checked / 2, "the bias after the scale: %lu of %lu off", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	struct bp_pe_spec neg = base();
	neg.c = 2, neg.win = 40, neg.hin = 3, neg.wout = 40, neg.hout = 3;
	neg.op = H13_PE_OP_MUL, neg.secsrc = H13_PE_SECSRC_TILE1, neg.firstsrc = 1;
	expect_ok(&neg, "-(a x b)");
	struct bp_pe_spec pos = neg;
	pos.firstsrc = 0;
	CHECK_EQ(run_spec_ref(&neg, &pos, &r, 1), ENG_OK);
	CHECKF(r.bad > r.checked / 2, "-(a x b) against a x b: %lu of %lu off", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	neg.op = H13_PE_OP_ADD;
	CHECK(run_spec(&neg, &r, 1) != ENG_OK);
}

/* Runs p, which the model must refuse: engine-fault, the fault line naming the TD and want, the
 * output never checked (nothing written that the check hook would see as an output). */
static void expect_fault(const struct bp_pe_spec *p, const char *want)
{
	struct pe_run r;
	memset(&r, 0, sizeof r);
	r.p = p;
	r.quiet = 1;
	size_t len = bp_pe(prog, sizeof prog, p);
	CHECK(len > 0);
	struct tcapture cap;
	cap.n = 0;
	cap.text[0] = 0;
	struct session_hooks h = {.fill = pe_fill, .check = pe_check, .ctx = &r};
	struct session_result res;
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tcapture_out, &cap, &h, &res);
	CHECK(rc != 0);
	CHECK_EQ(res.run, (int)ENG_E_FAULT);
	CHECKF(strstr(cap.text, "td 0") != NULL && strstr(cap.text, want) != NULL,
	       "fault text \"%s\", want td 0 and \"%s\"", cap.text, want);
	CHECK(res.canaries_ok);
}

/* Where silicon contradicts the plain reading (allbilly/ane experimental/expt.md, expt3, on an
 * M1: an add and a product of 3 and 2 still gave 5 and 6 with Planar.FinalScale written 0, and
 * the product still gave 6 with Planar.BiasScale written 0): FinalScale other than 1.0 outside a
 * reduction, and Scale or Bias on a product of two operands, are refused by name (no real
 * program has either); FinalScale 1 and Scale 1, Bias 0 (every real product) compute, and so do
 * Scale and Bias on an add (Apple's gelu backward, TDs 2 and 11) and on one operand. */
TEST(model_pe, finalscale_and_a_products_scale_refused_where_silicon_disagrees)
{
	struct bp_pe_spec p = base();
	p.c = 2, p.win = 24, p.hin = 2, p.wout = 24, p.hout = 2;
	p.op = H13_PE_OP_MUL, p.secsrc = H13_PE_SECSRC_TILE1;
	expect_ok(&p, "a x b, Scale 1, Bias 0, FinalScale 1");
	struct bp_pe_spec q = p;
	q.scale = 0x3a62u;
	expect_fault(&q, "Planar.BiasScale");
	q = p;
	q.scale = 0;
	expect_fault(&q, "Planar.BiasScale");
	q = p;
	q.bias = H_ONE;
	expect_fault(&q, "Planar.BiasScale");
	q = p;
	q.finalscale = 0;
	expect_fault(&q, "Planar.FinalScale");
	/* an add with a scale computes ((a + b) x 0.5); with FinalScale 2, refused */
	q = p;
	q.op = H13_PE_OP_ADD, q.scale = H_HALF;
	expect_ok(&q, "(a + b) x 0.5");
	q.finalscale = 0x40000000u;
	expect_fault(&q, "Planar.FinalScale");
	/* one operand, and an average pool: FinalScale other than 1 refused */
	q = base();
	q.c = 2, q.win = 24, q.hin = 2, q.wout = 24, q.hout = 2;
	q.finalscale = 0x3e800000u; /* 0.25 */
	expect_fault(&q, "Planar.FinalScale");
	q = base();
	q.win = 10, q.hin = 6, q.wout = 5, q.hout = 3, q.kw = q.kh = 2, q.sx = q.sy = 2;
	q.pool = H13_PE_POOL_AVG;
	expect_ok(&q, "avg 2x2/2, FinalScale 1");
	q.finalscale = 0x3e800000u;
	expect_fault(&q, "Planar.FinalScale");
}

/* The maximum and minimum of two operands with Scale or Bias: every real one has Scale 1 and
 * Bias 0, and nothing pins where they apply (after the comparison, as the model read them, or
 * not at all, as silicon showed for a product's). Review S2 (2026-12-06): max(a, b) with Scale
 * 0.5, Bias 1 or Scale -1 completed as (max + Bias) x Scale; refused by name now, as a product's
 * are. Controls: max and min with Scale 1 and Bias 0 (and Bias -0), and a one-operand a with
 * Scale 0.5, compute the definition. */
TEST(model_pe, a_maximums_scale_and_bias_refused)
{
	struct bp_pe_spec p = base();
	p.c = 2, p.win = 24, p.hin = 2, p.wout = 24, p.hout = 2;
	p.op = H13_PE_OP_MAX, p.secsrc = H13_PE_SECSRC_TILE1;
	expect_ok(&p, "max(a, b), Scale 1, Bias 0");
	struct bp_pe_spec q = p;
	q.bias = 0x8000u; /* -0 */
	expect_ok(&q, "max(a, b), Bias -0");
	q = p;
	q.scale = H_HALF;
	expect_fault(&q, "on a maximum or minimum of two operands");
	q = p;
	q.bias = H_ONE;
	expect_fault(&q, "on a maximum or minimum of two operands");
	q = p;
	q.op = H13_PE_OP_MIN;
	expect_ok(&q, "min(a, b), Scale 1, Bias 0");
	q.scale = H_MONE;
	expect_fault(&q, "on a maximum or minimum of two operands");
	q = base();
	q.c = 2, q.win = 24, q.hin = 2, q.wout = 24, q.hout = 2;
	q.scale = H_HALF;
	expect_ok(&q, "a x 0.5 (one operand)");
}

/* a x b as the macOS 14 and 26 compilers emit it: the NE in the path with no kernel (a
 * pass-through, fw/td td_ne_passthrough), the PE multiplying by the second tile source. */
TEST(model_pe, multiply_after_an_ne_passthrough)
{
	struct bp_pe_spec p = base();
	p.c = 4, p.win = 37, p.hin = 3, p.wout = 37, p.hout = 3;
	p.op = H13_PE_OP_MUL, p.secsrc = H13_PE_SECSRC_TILE1, p.ne_pass = 1;
	expect_ok(&p, "a x b after an NE pass-through");
	p.op = H13_PE_OP_ADD;
	expect_ok(&p, "a + b after an NE pass-through");
	/* the add program's output checked against a x b: the checker fails it */
	struct pe_run r;
	struct bp_pe_spec mul = p;
	mul.op = H13_PE_OP_MUL;
	CHECK_EQ(run_spec_ref(&p, &mul, &r, 1), ENG_OK);
	CHECK(r.bad > 0);
	/* an NE with no kernel but a PostScale is no pass-through: a convolution with no
	 * coefficient channel, refused */
	p.ne_post = 0x3c00u;
	CHECK_EQ(run_spec(&p, &r, 1), ENG_E_FAULT);
}

/* Runs bp_pe2(first, second) with BAR 6 holding BAR 5's values; checks against ref (or second). */
static int run_chain(const struct bp_pe_spec *first, const struct bp_pe_spec *second,
		     const struct bp_pe_spec *ref, struct pe_run *r)
{
	memset(r, 0, sizeof *r);
	r->p = second;
	r->ref = ref;
	r->first = first;
	r->alias = 1;
	r->quiet = ref != NULL;
	static uint8_t prog2[BP2_WEIGHTS_OFF + 64];
	size_t len = bp_pe2(prog2, sizeof prog2, first, second);
	CHECK(len > 0);
	if (!len)
		return -2;
	struct session_hooks h = {.fill = pe_fill, .check = pe_check, .ctx = r};
	struct session_result res;
	int rc = tsubmit(prog2, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
	CHECK(res.canaries_ok);
	if (res.run != ENG_OK)
		return (int)res.run;
	return rc == 0 ? ENG_OK : -1;
}

/* The mechanisms of multi-TD programs such as frac (x - floor(x)) and division (a x 1/b): TD 0
 * writes an intermediate (BAR 3) that TD 1 reads as its first source, and TD 1's second source is
 * the program's input again through another BAR (6, holding BAR 5's values). */
TEST(model_pe, two_tds_through_an_intermediate_with_the_input_through_two_bars)
{
	struct bp_pe_spec f = base(), g;
	f.c = 3, f.win = g.win = 21, f.hin = 4, f.wout = 21, f.hout = 4;
	f.scale = H_HALF, f.bias = H_MINUS_QUARTER; /* t = (x - 1/4)/2 */
	g = f;
	g.scale = H_ONE, g.bias = 0;
	g.op = H13_PE_OP_ADD, g.secsrc = H13_PE_SECSRC_TILE1, g.prescale = H_MONE; /* x - t */
	struct pe_run r;
	CHECK_EQ(run_chain(&f, &g, NULL, &r), ENG_OK);
	CHECK_EQ(r.filled, 2u);
	CHECK_EQ(r.checked_outputs, 1u);
	CHECK(r.checked == (uint64_t)3 * 4 * 21 && r.bad == 0);
	g.op = H13_PE_OP_MUL, g.prescale = H_ONE; /* t x x */
	CHECK_EQ(run_chain(&f, &g, NULL, &r), ENG_OK);
	CHECK(r.checked > 0 && r.bad == 0);
	/* the checker fails when the output is held against the other operation */
	struct bp_pe_spec wrong = g;
	wrong.op = H13_PE_OP_ADD;
	CHECK_EQ(run_chain(&f, &g, &wrong, &r), ENG_OK);
	CHECK(r.bad > 0);
}

/* The macOS compiler's lowering of a three-input expression (allbilly/ane
 * experimental/atan2_from_hwx.py, its 8-TD atan2 segment; docs/engine-model.md, "Real programs
 * from allbilly/ane"), rebuilt with bp_chain: TDs 0-2 copy BARs 6, 5 and 4 into channel planes 2,
 * 1 and 0 of the intermediate BAR 3 (the NE as an elementwise pass), TD 3 convolves those three
 * channels to one with fp16 weights, TDs 4-7 run the PE through BAR 3 (x BAR 9, + BAR 7, x BAR 10,
 * + BAR 8) with Common.PERoute 9 and the NE as a pass-through, TD 7 writing BAR 11. */
#define CH_W 20u
#define CH_H 3u
#define CH_PLANE (64u * CH_H) /* bp_row(CH_W) x CH_H */

struct chain_run {
	const uint16_t *wref; /* the weights the reference applies to BARs 4, 5, 6 */
	unsigned filled, checked_outputs;
	uint64_t checked, bad;
	int quiet;
};

static void chain_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct chain_run *r = ctx;
	if (is_weights || g->bar < 4 || g->bar > 10)
		return;
	r->filled++;
	for (unsigned y = 0; y < CH_H; y++)
		for (unsigned x = 0; x < CH_W; x++)
			if (64u * y + 2u * x + 2u <= g->size)
				le_wr16(buf + 64u * y + 2u * x, input_at(g->bar, 0, y, x));
}

/* One fp16 rounding per TD: the convolution's sum (exact in its fp32 accumulator for these
 * values), then each PE operation. */
static uint16_t chain_reference(const uint16_t w[3], unsigned y, unsigned x)
{
	double s = 0;
	for (unsigned c = 0; c < 3; c++)
		s += h2d(w[c]) * h2d(input_at(4 + c, 0, y, x));
	double t = h2d(d2h(s));
	t = h2d(d2h(t * h2d(input_at(9, 0, y, x))));
	t = h2d(d2h(t + h2d(input_at(7, 0, y, x))));
	t = h2d(d2h(t * h2d(input_at(10, 0, y, x))));
	return d2h(t + h2d(input_at(8, 0, y, x)));
}

static void chain_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct chain_run *r = ctx;
	if (is_weights || g->bar != 11)
		return;
	r->checked_outputs++;
	for (unsigned y = 0; y < CH_H; y++)
		for (unsigned x = 0; x < CH_W; x++) {
			uint64_t off = 64u * y + 2u * x;
			uint16_t got = off + 2 <= g->size ? le_rd16(buf + off) : 0x7e00u;
			uint16_t want = chain_reference(r->wref, y, x);
			int gi = got & 0x8000u ? -(int)(got & 0x7fffu) : (int)got;
			int wi = want & 0x8000u ? -(int)(want & 0x7fffu) : (int)want;
			r->checked++;
			if ((gi > wi ? gi - wi : wi - gi) > 1 || (got & 0x7c00u) == 0x7c00u) {
				if (!r->bad && !r->quiet)
					test_fail_at(__FILE__, __LINE__,
						     "element (%u,%u): model 0x%04x (%g), reference 0x%04x (%g)",
						     y, x, got, h2d(got), want, h2d(want));
				r->bad++;
			}
		}
}

TEST(model_pe, the_macos_three_input_chain_through_an_intermediate)
{
	const uint16_t w[3] = {0x3a00u, 0xbe00u, 0x4000u}; /* 0.75, -1.5, 2 */
	const uint16_t reversed[3] = {w[2], w[1], w[0]};
	const struct bp_step steps[8] = {
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 6, .out = BP_MID_BAR, .out_off = 2 * CH_PLANE},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = BP_MID_BAR, .out_off = CH_PLANE},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 4, .out = BP_MID_BAR},
		{.kind = BP_STEP_CONV, .cin = 3, .cout = 1, .in0 = BP_MID_BAR, .in_plane = CH_PLANE,
		 .out = BP_MID_BAR, .out_off = 3 * CH_PLANE},
		{.kind = BP_STEP_PE, .cin = 1, .cout = 1, .in0 = BP_MID_BAR, .in0_off = 3 * CH_PLANE,
		 .in1 = 9, .out = BP_MID_BAR, .op = H13_PE_OP_MUL, .peroute = H13_PEROUTE_REDUCE},
		{.kind = BP_STEP_PE, .cin = 1, .cout = 1, .in0 = BP_MID_BAR, .in1 = 7, .out = BP_MID_BAR,
		 .out_off = CH_PLANE, .op = H13_PE_OP_ADD, .peroute = H13_PEROUTE_REDUCE},
		{.kind = BP_STEP_PE, .cin = 1, .cout = 1, .in0 = BP_MID_BAR, .in0_off = CH_PLANE, .in1 = 10,
		 .out = BP_MID_BAR, .op = H13_PE_OP_MUL, .peroute = H13_PEROUTE_REDUCE},
		{.kind = BP_STEP_PE, .cin = 1, .cout = 1, .in0 = BP_MID_BAR, .in1 = 8, .out = 11,
		 .op = H13_PE_OP_ADD, .peroute = H13_PEROUTE_REDUCE},
	};
	static uint8_t chain[8 * BP_CHAIN_STRIDE + 256];
	size_t len = bp_chain(chain, sizeof chain, CH_W, CH_H, steps, 8, w);
	REQUIRE(len == bp_chain_weights_off(8) + 64);
	for (unsigned round = 0; round < 2; round++) {
		struct chain_run r;
		memset(&r, 0, sizeof r);
		r.wref = round ? reversed : w;
		r.quiet = round; /* round 1: the checker holds the output against the wrong weights */
		struct session_hooks hk = {.fill = chain_fill, .check = chain_check, .ctx = &r};
		struct session_result res;
		struct tcapture cap = {.n = 0};
		int rc = tsubmit(chain, len, LDR_F_RAW, NULL, 0, 1, 0, tcapture_out, &cap, &hk, &res);
		CHECKF(rc == 0, "submit %d: %s", rc, cap.text);
		CHECK_EQ(res.run, ENG_OK);
		CHECK(res.canaries_ok);
		CHECK_EQ(r.filled, 7u);
		CHECK_EQ(r.checked_outputs, 1u);
		CHECK_EQ(r.checked, (uint64_t)CH_W * CH_H);
		if (round)
			CHECKF(r.bad > 0, "the reversed weights pass the check (%lu bad)", (unsigned long)r.bad);
		else
			CHECK_EQ(r.bad, 0u);
	}
	/* malformed steps are not written */
	struct bp_step bad[8];
	memcpy(bad, steps, sizeof bad);
	bad[4].in1 = 0;
	CHECK_EQ(bp_chain(chain, sizeof chain, CH_W, CH_H, bad, 8, w), 0u);
	CHECK_EQ(bp_chain(chain, sizeof chain, CH_W, CH_H, steps, 8, NULL), 0u);
	CHECK_EQ(bp_chain(chain, 64, CH_W, CH_H, steps, 8, w), 0u);
}

/* Sources that would read as zeros fault instead: a second source with RBase1 unbound, and a
 * source smaller than the output (a broadcast). */
TEST(model_pe, missing_or_smaller_sources_fault)
{
	struct bp_pe_spec p = base();
	p.win = 16, p.hin = 2, p.wout = 16, p.hout = 2;
	p.op = H13_PE_OP_MUL, p.secsrc = H13_PE_SECSRC_TILE1;
	size_t len = bp_pe(prog, sizeof prog, &p);
	REQUIRE(len > 0);
	uint32_t w[H13_TD_HEADER_WORDS];
	struct td_hdr h;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		w[i] = le_rd32(prog + 4 * i);
	td_hdr_decode(w, &h);
	h.bar_en = (uint8_t)(h.bar_en & ~(1u << H13_BAR_RBASE1));
	td_hdr_encode(&h, w);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		le_wr32(prog + 4 * i, w[i]);
	struct pe_run r;
	memset(&r, 0, sizeof r);
	r.p = &p;
	r.quiet = 1;
	struct session_hooks hk = {.fill = pe_fill, .check = pe_check, .ctx = &r};
	struct session_result res;
	tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, &res);
	CHECK_EQ(res.run, ENG_E_FAULT);
	/* the output wider and taller than the input, no pooling */
	p = base();
	p.win = 8, p.hin = 2, p.wout = 16, p.hout = 3;
	CHECK_EQ(run_spec(&p, &r, 1), ENG_E_FAULT);
	/* the same TD with matching sizes computes */
	p.wout = 8, p.hout = 2;
	CHECK_EQ(run_spec(&p, &r, 0), ENG_OK);
	CHECK(r.checked > 0 && r.bad == 0);
}

TEST(model_pe, unknown_planar_configurations_are_refused)
{
	struct bp_pe_spec p = base();
	p.win = 8, p.hin = 2, p.wout = 8, p.hout = 2;
	struct pe_run r;
	p.pool = H13_PE_POOL_MAX, p.secsrc = H13_PE_SECSRC_TILE1; /* pooling with a second source */
	CHECK_EQ(run_spec(&p, &r, 1), ENG_E_FAULT);
	p = base();
	p.win = 8, p.hin = 2, p.wout = 8, p.hout = 2;
	p.cond = 3; /* the H15 map's "Greater": a comparison */
	CHECK_EQ(run_spec(&p, &r, 1), ENG_E_FAULT);
	p.cond = 1; /* |x| is modelled */
	CHECK_EQ(run_spec(&p, &r, 0), ENG_OK);
	CHECK_EQ(r.bad, 0u);
}

/* The checker fails on an output two ulp off. */
TEST(model_pe, checker_fails_on_a_wrong_output)
{
	struct bp_pe_spec p = base();
	p.c = 1, p.win = 4, p.hin = 2, p.wout = 2, p.hout = 1, p.kw = p.kh = 2, p.sx = p.sy = 2;
	p.pool = H13_PE_POOL_AVG;
	uint8_t out[128];
	memset(out, 0, sizeof out);
	for (unsigned round = 0; round < 2; round++) {
		for (unsigned x = 0; x < 2; x++)
			le_wr16(out + 2 * x, d2h(reference(&p, 0, 0, x)));
		if (round)
			le_wr16(out + 2, (uint16_t)(le_rd16(out + 2) + 2));
		struct pe_run r;
		memset(&r, 0, sizeof r);
		r.p = &p;
		r.quiet = 1;
		pe_compare(&r, out, sizeof out);
		CHECKF(r.bad == round, "round %u: %lu bad", round, (unsigned long)r.bad);
	}
	/* and d2h rounds ties to even and carries into the exponent */
	CHECK_EQ(d2h(1.0 + 1.0 / 2048), 0x3c00u);
	CHECK_EQ(d2h(1.0 + 3.0 / 2048), 0x3c02u);
	CHECK_EQ(d2h(2.0 - 1.0 / 4096), 0x4000u);
	CHECK_EQ(d2h(-0.25), 0xb400u);
	CHECK_EQ(d2h(1.0 / 16777216.0), 0x0001u);
}

/*
 * One-byte tensors through the tile DMA (docs/engine-model.md, "One-byte tensors through the tile
 * DMA"), in the forms of Apple's H13 bool programs: a cast of a bool tensor to fp16 (a PE copy
 * whose source is Common.ChCfg.InFmt int8 moved as TileDMASrc.Fmt UINT8, L2.SourceCfg.DMAFmt 8-bit)
 * and logical_not (the NE's activation LUT with the [x = 0] indicator record, int8 in and out, both
 * DMAs UINT8, L2.ResultCfg.DMAFmt 8-bit). The references are the definitions: the byte's integer
 * value as fp16, and 1 where the byte is 0, else 0. Bytes 0x80..0xff, which UINT8 and the int8
 * ChCfg read differently, are refused by name; so are a one-byte DMA format on an fp16 tensor and
 * a 16-bit L2 DMA format with a one-byte tile DMA.
 */
#define OB_C 3u
#define OB_H 4u
#define OB_W 40u

struct ob_run {
	int out_int8;        /* the output is one byte a value (logical_not) */
	int want_not;        /* the reference: logical_not (else the cast) */
	uint8_t first;       /* the input's byte at element 0 (the rest a pattern of 0..127) */
	int signed_in;       /* the reference reads the bytes as int8 (else uint8) */
	unsigned checked, bad;
};

static uint8_t ob_in(unsigned i, uint8_t first)
{
	return i ? (uint8_t)((i * 37u + (i % 3u ? 0u : 5u)) % 128u) * (i % 4u != 1u) : first;
}

static void ob_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct ob_run *r = ctx;
	if (is_weights || g->bar != BP_IN0_BAR)
		return;
	memset(buf, 0, (size_t)g->size);
	const uint32_t row = bp_row(OB_W);
	for (unsigned c = 0, i = 0; c < OB_C; c++)
		for (unsigned h = 0; h < OB_H; h++)
			for (unsigned w = 0; w < OB_W; w++, i++)
				buf[(c * OB_H + h) * row + w] = ob_in(i, r->first);
}

static void ob_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct ob_run *r = ctx;
	if (is_weights || g->bar != BP_OUT_BAR)
		return;
	const uint32_t row = bp_row(OB_W);
	for (unsigned c = 0, i = 0; c < OB_C; c++)
		for (unsigned h = 0; h < OB_H; h++)
			for (unsigned w = 0; w < OB_W; w++, i++) {
				uint8_t x = ob_in(i, r->first);
				const uint8_t *at = buf + (c * OB_H + h) * row;
				uint32_t got = r->out_int8 ? at[w] : le_rd16(at + 2 * w);
				double v = r->signed_in ? (double)(int8_t)x : (double)x;
				uint32_t want = r->want_not ? (x == 0) : d2h(v);
				r->checked++;
				r->bad += got != want;
			}
}

static int ob_submit(const uint8_t *p, size_t len, struct ob_run *r, struct session_result *res)
{
	struct session_hooks hk = {.fill = ob_fill, .check = ob_check, .ctx = r};
	r->checked = r->bad = 0;
	return tsubmit(p, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, res);
}

/* p writes each byte's value as fp16, every element checked; the checker's negative: held
 * against logical_not's reference it fails */
static void ob_expect_values(const uint8_t *p, size_t len)
{
	struct session_result res;
	struct ob_run r = {0};
	CHECKF(ob_submit(p, len, &r, &res) == 0, "%s", res.fault_text);
	CHECK_EQ(r.checked, OB_C * OB_H * OB_W);
	CHECK_EQ(r.bad, 0u);
	r.want_not = 1;
	ob_submit(p, len, &r, &res);
	CHECK(r.bad > OB_C * OB_H * OB_W / 2);
}

/* The cast: bp_pe's copy with its source one byte a value. */
static size_t ob_cast(uint8_t *p, size_t cap)
{
	struct bp_pe_spec s = bp_pe_copy(OB_C, OB_H, OB_W, BP_IN0_BAR, BP_OUT_BAR);
	size_t len = bp_pe(p, cap, &s);
	if (!len || tpatch_field(p, len, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W,
				 H13_FMT_INT8) ||
	    tpatch_field(p, len, 0, H13_SRC_FMT, 0, 14, TD_TILE_FMT_UINT8) ||
	    tpatch_field(p, len, 0, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0))
		return 0;
	return len;
}

/* logical_not: bp_act's LUT TD with Apple's [x = 0] record (knots 1, lines 0), one byte in and out. */
static size_t ob_not(uint8_t *p, size_t cap)
{
	size_t len = bp_act(p, cap, OB_W, OB_H, OB_C);
	if (!len)
		return 0;
	uint8_t *rec = p + BP_WEIGHTS_OFF;
	memset(rec, 0, ACTLUT_STRIDE);
	le_wr16(rec + 2 * ACTLUT_IN_LO, 0x8001u);
	le_wr16(rec + 2 * ACTLUT_IN_HI, 0x0001u);
	for (unsigned i = 0; i + 1 < ACTLUT_KNOTS; i++)
		le_wr16(rec + 2 * (ACTLUT_KNOT0 + i), H_ONE);
	le_wr16(rec + 2 * ACTLUT_SCALE, ACTLUT_SCALE_LINEAR);
	le_wr16(rec + 2 * ACTLUT_MODE, ACTLUT_MODE_PLAIN);
	if (tpatch_field(p, len, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W, H13_FMT_INT8) ||
	    tpatch_field(p, len, 0, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT_LSB, H13_CHCFG_OUTFMT_W, H13_FMT_INT8) ||
	    tpatch_field(p, len, 0, H13_SRC_FMT, 0, 14, TD_TILE_FMT_UINT8) ||
	    tpatch_field(p, len, 0, H13_DST_FMT, 0, 14, TD_TILE_FMT_UINT8) ||
	    tpatch_field(p, len, 0, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0) ||
	    tpatch_field(p, len, 0, H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0))
		return 0;
	return len;
}

TEST(model_pe, one_byte_tensors_a_bool_cast_and_logical_not)
{
	static uint8_t p[4096];
	struct session_result res;
	struct ob_run r;
	/* the cast: every byte 0..127 becomes its value in fp16 */
	size_t len = ob_cast(p, sizeof p);
	REQUIRE(len > 0);
	ob_expect_values(p, len);
	/* a byte above 0x7f: UINT8 and ChCfg's int8 read it differently; refused, named */
	r = (struct ob_run){.first = 0xc8};
	CHECK(ob_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.run, ENG_E_FAULT);
	CHECK_EQ(res.fault.reason, (uint32_t)ENG_FR_VALUE);
	CHECK_EQ(res.fault.reg, H13_SRC_FMT);
	CHECK(strstr(res.fault_text, "td 0") && strstr(res.fault_text, "ambiguous-value"));
	/* with the DMA saying INT8 as ChCfg does, the same byte is -56 */
	REQUIRE(tpatch_field(p, len, 0, H13_SRC_FMT, 0, 14, TD_TILE_FMT_INT8) == 0);
	r = (struct ob_run){.first = 0xc8, .signed_in = 1};
	CHECKF(ob_submit(p, len, &r, &res) == 0, "%s", res.fault_text);
	CHECK_EQ(r.bad, 0u);
	r = (struct ob_run){.first = 0xc8}; /* and not 200 */
	ob_submit(p, len, &r, &res);
	CHECK_EQ(r.bad, 1u);
	/* a 16-bit L2 DMA format with the one-byte tile DMA: refused */
	REQUIRE(tpatch_field(p, len, 0, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 1) == 0);
	CHECK(ob_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.fault.reason, (uint32_t)ENG_FR_COMBINATION);
	CHECK_EQ(res.fault.reg, H13_L2_SOURCECFG);
	/* a one-byte DMA format on an fp16 source: refused */
	len = ob_cast(p, sizeof p);
	REQUIRE(tpatch_field(p, len, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W,
			     H13_FMT_FP16) == 0);
	CHECK(ob_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.fault.reason, (uint32_t)ENG_FR_FIELD);
	CHECK_EQ(res.fault.reg, H13_SRC_FMT);

	/* logical_not: 1 where the byte is 0, else 0, one byte a value */
	len = ob_not(p, sizeof p);
	REQUIRE(len > 0);
	r = (struct ob_run){.out_int8 = 1, .want_not = 1};
	CHECKF(ob_submit(p, len, &r, &res) == 0, "%s", res.fault_text);
	CHECK_EQ(r.checked, OB_C * OB_H * OB_W);
	CHECK_EQ(r.bad, 0u);
	/* the checker's negative: the identity's reference fails */
	r.want_not = 0, r.out_int8 = 1;
	ob_submit(p, len, &r, &res);
	CHECK(r.bad > 0);
	/* the output's DMA at 16 bits with a one-byte destination: refused */
	REQUIRE(tpatch_field(p, len, 0, H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 1) == 0);
	r = (struct ob_run){.out_int8 = 1, .want_not = 1};
	CHECK(ob_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.fault.reg, H13_L2_RESULTCFG);
}

/*
 * A one-byte tensor kept in L2 memory and read back (Apple's H13 select keeps its bool cond so:
 * docs/engine-model.md, "One-byte tensors through the tile DMA"): TD 0 moves a ChCfg int8 tensor
 * by a UINT8 tile DMA and keeps it in L2 a byte an element (SourceType 1, 8-bit L2 DMA format),
 * its copy into L2 as fp16 elsewhere; TD 1 reads the bytes back from L2 (SourceType 0, ChCfg
 * int8) and writes them out as fp16. The reference is each byte's value. Negatives: the checker
 * against logical_not's reference; TD 1 reading its bytes where TD 0 wrote fp16 (refused as
 * unwritten), or with a 16-bit L2 DMA format (refused).
 */
#define OB_L2_KEPT 0x1000u
#define OB_L2_COPY 0x8000u

static size_t ob_l2(uint8_t *p, size_t cap, uint32_t read_base)
{
	const uint32_t brow = (OB_W + 15u) & ~15u, frow = (2u * OB_W + 15u) & ~15u;
	struct bp_pe_spec s0 = bp_pe_copy(OB_C, OB_H, OB_W, BP_IN0_BAR, BP_OUT_BAR);
	s0.l2_src = BP_L2_KEEP;
	s0.src_l2 = (struct bp_l2){1, OB_L2_KEPT, brow * OB_H, brow, 0, 0};
	s0.res_l2 = (struct bp_l2){1, OB_L2_COPY, frow * OB_H, frow, 0, 0};
	struct bp_pe_spec s1 = bp_pe_copy(OB_C, OB_H, OB_W, BP_IN0_BAR, BP_OUT_BAR);
	s1.l2_src = BP_L2_READ;
	s1.src_l2 = (struct bp_l2){1, read_base, brow * OB_H, brow, 0, 0};
	const struct bp_pe_spec *const tds[2] = {&s0, &s1};
	size_t len = bp_pen(p, cap, tds, 2);
	for (unsigned td = 0; len && td < 2; td++)
		if (tpatch_field(p, len, td, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W,
				 H13_FMT_INT8) ||
		    tpatch_field(p, len, td, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0))
			len = 0;
	if (len && tpatch_field(p, len, 0, H13_SRC_FMT, 0, 14, TD_TILE_FMT_UINT8))
		len = 0;
	return len;
}

TEST(model_pe, a_one_byte_tensor_kept_in_l2_memory_and_read_back)
{
	static uint8_t p[8192];
	struct session_result res;
	struct ob_run r;
	size_t len = ob_l2(p, sizeof p, OB_L2_KEPT);
	REQUIRE(len > 0);
	ob_expect_values(p, len);
	/* the bytes read where TD 0 wrote fp16: refused as unwritten, naming TD 1 */
	len = ob_l2(p, sizeof p, OB_L2_COPY);
	REQUIRE(len > 0);
	r = (struct ob_run){0};
	CHECK(ob_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.fault.td, 1);
	CHECK_EQ(res.fault.reg, H13_L2_SOURCEBASE);
	CHECK(strstr(res.fault_text, "no TD of this submission wrote") != NULL);
	/* a 16-bit L2 DMA format on the one-byte read: refused */
	len = ob_l2(p, sizeof p, OB_L2_KEPT);
	REQUIRE(tpatch_field(p, len, 1, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 1) == 0);
	CHECK(ob_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.fault.td, 1);
	CHECK_EQ(res.fault.reg, H13_L2_SOURCECFG);
}

/*
 * Channel interleave (docs/engine-model.md, "Channel interleave"), in the form of Apple's H13
 * select over 1x8x375x375: TD 0 writes t = (x - 1/4)/2 (IL_C channels) to BAR 3 with
 * TileDMADst.Fmt.Interleave 8 and L2.ResultCfg.DMAInterleave 8, rows of W x 8 fp16 (64-byte
 * lines), a plane a group of 8 channels; TD 1 reads it back with TileDMASrc.Fmt.Interleave 8 and
 * L2.SourceCfg.DMAInterleave 8 and writes 2t plain to BAR 4. The references are the definitions:
 * BAR 3's element (c, h, w) at (c / 8) plane + h row + (8 w + c mod 8) x 2 holds fp16((x - 1/4)/2),
 * BAR 4 holds 2 fp16(t) (exact); the same by 4 (Apple's attention) and by 2 (Apple's matmul of
 * two runtime operands at M 48, the eighth sweep; refused before). Negatives: the checker reading
 * BAR 3 as the plain layout, or by another interleave, fails; interleave 3, an L2 DMAInterleave
 * that disagrees with its tile DMA's, and 12 channels (not whole groups of 8) are refused by name.
 */
#define IL_C 16u
#define IL_H 3u
#define IL_W 21u
/* the interleaved tensor's rows and planes, interleave i */
#define IL_ROW(i) ((IL_W * (i) * 2u + 63u) & ~63u)
#define IL_PLANE(i) (IL_ROW(i) * IL_H)

struct il_run {
	unsigned c;              /* channels */
	unsigned ilv;            /* the interleave (the checker's layout of BAR 3) */
	int mid_plain;           /* the checker reads BAR 3 as the plain layout (its negative) */
	unsigned checked_mid, checked_out;
	uint64_t bad;
};

static uint16_t il_mid(unsigned c, unsigned h, unsigned w)
{
	return d2h((h2d(input_at(BP_IN0_BAR, c, h, w)) - 0.25) / 2.0);
}

/* BAR 5's C x H x W input in rows of bp_row(W) bytes (the interleave tests' fill hooks). */
static void fill_in0(uint8_t *buf, unsigned nc, unsigned nh, unsigned nw)
{
	const uint32_t row = bp_row(nw);
	for (unsigned c = 0; c < nc; c++)
		for (unsigned h = 0; h < nh; h++)
			for (unsigned w = 0; w < nw; w++)
				le_wr16(buf + (c * nh + h) * row + 2u * w, input_at(BP_IN0_BAR, c, h, w));
}

static void il_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct il_run *r = ctx;
	if (!is_weights && g->bar == BP_IN0_BAR)
		fill_in0(buf, r->c, IL_H, IL_W);
}

static void il_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct il_run *r = ctx;
	if (is_weights || (g->bar != BP_MID_BAR && g->bar != BP_OUT_BAR))
		return;
	const uint32_t row = bp_row(IL_W);
	for (unsigned c = 0; c < r->c; c++)
		for (unsigned h = 0; h < IL_H; h++)
			for (unsigned w = 0; w < IL_W; w++) {
				uint64_t off;
				uint16_t want = il_mid(c, h, w);
				if (g->bar == BP_MID_BAR) {
					const unsigned i = r->ilv;
					off = r->mid_plain ? (uint64_t)(c * IL_H + h) * row + 2u * w
							   : (uint64_t)(c / i) * IL_PLANE(i) + (uint64_t)h * IL_ROW(i) +
								     (i * w + c % i) * 2u;
					r->checked_mid++;
				} else {
					off = (uint64_t)(c * IL_H + h) * row + 2u * w;
					want = d2h(2.0 * h2d(want));
					r->checked_out++;
				}
				r->bad += off + 2u > g->size || le_rd16(buf + off) != want;
			}
}

/* TD 0's destination and TD 1's source of a two-TD stream p (len bytes) made interleaved by ilv,
 * both tile DMAs and their L2 sides (TD 1's L2 side at l2_ilv when not 0), with rows and planes of
 * row and plane bytes: len, or 0 when a field could not be set. */
static size_t il_patch(uint8_t *p, size_t len, unsigned ilv, unsigned l2_ilv, uint32_t row, uint32_t plane)
{
	if (tpatch_field(p, len, 0, H13_DST_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, ilv) ||
	    tpatch_field(p, len, 0, H13_L2_RESULTCFG, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W, ilv) ||
	    tpatch_field(p, len, 0, H13_DST_ROWSTRIDE, 0, 32, row) ||
	    tpatch_field(p, len, 0, H13_DST_PLANESTRIDE, 0, 32, plane) ||
	    tpatch_field(p, len, 1, H13_SRC_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, ilv) ||
	    tpatch_field(p, len, 1, H13_L2_SOURCECFG, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W,
			 l2_ilv ? l2_ilv : ilv) ||
	    tpatch_field(p, len, 1, H13_SRC_ROWSTRIDE, 0, 32, row) ||
	    tpatch_field(p, len, 1, H13_SRC_PLANESTRIDE, 0, 32, plane))
		return 0;
	return len;
}

/* The two TDs, with dst_ilv / src_ilv on TD 0's destination and TD 1's source (the tile DMA's
 * Fmt and its L2 side alike), l2_ilv on TD 1's L2.SourceCfg when not 0. */
static size_t il_prog(uint8_t *p, size_t cap, unsigned c, unsigned ilv, unsigned l2_ilv)
{
	struct bp_pe_spec s0 = bp_pe_copy(c, IL_H, IL_W, BP_IN0_BAR, BP_MID_BAR);
	struct bp_pe_spec s1 = bp_pe_copy(c, IL_H, IL_W, BP_MID_BAR, BP_OUT_BAR);
	s0.scale = H_HALF, s0.bias = H_MINUS_QUARTER;
	s1.scale = 0x4000u; /* 2 */
	const struct bp_pe_spec *const tds[2] = {&s0, &s1};
	size_t len = bp_pen(p, cap, tds, 2);
	return len ? il_patch(p, len, ilv, l2_ilv, IL_ROW(ilv), IL_PLANE(ilv)) : 0;
}

static int il_submit(const uint8_t *p, size_t len, struct il_run *r, struct session_result *res)
{
	struct session_hooks hk = {.fill = il_fill, .check = il_check, .ctx = r};
	r->checked_mid = r->checked_out = 0;
	r->bad = 0;
	return tsubmit(p, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, res);
}

/* il_prog(c, ilv, l2_ilv) is refused for reason, naming TD td and register reg */
static void il_refused(uint8_t *p, size_t cap, unsigned c, unsigned ilv, unsigned l2_ilv, unsigned reason,
		       int td, uint32_t reg)
{
	struct session_result res;
	struct il_run r = {.c = c, .ilv = ilv};
	size_t len = il_prog(p, cap, c, ilv, l2_ilv);
	REQUIRE(len > 0);
	CHECK(il_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.fault.reason, (uint32_t)reason);
	CHECK_EQ(res.fault.td, td);
	CHECK_EQ(res.fault.reg, reg);
	CHECK(strstr(res.fault_text, "Interleave") != NULL);
}

TEST(model_pe, channel_interleave_written_and_read_back)
{
	static uint8_t p[8192];
	struct session_result res;
	struct il_run r;
	size_t len;
	/* by 8 (Apple's select), by 4 (Apple's attention) and by 2 (Apple's matmul of two runtime
	 * operands at M 48) */
	for (unsigned ilv = 2; ilv <= 8; ilv *= 2) {
		r = (struct il_run){.c = IL_C, .ilv = ilv};
		len = il_prog(p, sizeof p, IL_C, ilv, 0);
		REQUIRE(len > 0);
		CHECKF(il_submit(p, len, &r, &res) == 0, "by %u: %s", ilv, res.fault_text);
		CHECK_EQ(r.checked_mid, IL_C * IL_H * IL_W);
		CHECK_EQ(r.checked_out, IL_C * IL_H * IL_W);
		CHECKF(r.bad == 0, "by %u: %lu off", ilv, (unsigned long)r.bad);
		/* the tensors run and inspect --json describe: BAR 3 interleaved, each element where the
		 * checker (the definition) finds it */
		static struct ldr_program lp;
		struct tns_tensor t[TNS_MAX];
		unsigned nt = 0, found = 0;
		REQUIRE(ldr_load(p, len, LDR_F_RAW, &lp) == LDR_OK);
		REQUIRE(tns_describe(&lp, t, TNS_MAX, &nt, NULL) == TNS_OK);
		for (unsigned k = 0; k < nt; k++)
			if (t[k].bar == (int)BP_MID_BAR) {
				found++;
				CHECK_EQ(t[k].ilv, ilv);
				CHECK_EQ(tns_offset(&t[k], 0, 11, 0, 2, 5),
					 (uint64_t)(11u / ilv) * IL_PLANE(ilv) + 2u * IL_ROW(ilv) + (ilv * 5u + 11u % ilv) * 2u);
			}
		CHECK_EQ(found, 1u);
		/* the checker's negatives: BAR 3 read as the plain layout, or as the other interleave */
		r = (struct il_run){.c = IL_C, .ilv = ilv, .mid_plain = 1};
		CHECK(il_submit(p, len, &r, &res) == 0);
		CHECK(r.bad > IL_C * IL_H * IL_W / 2);
		r = (struct il_run){.c = IL_C, .ilv = ilv == 8u ? 4u : 2u * ilv};
		CHECK(il_submit(p, len, &r, &res) == 0);
		CHECK(r.bad > IL_C * IL_H * IL_W / 2);
	}
	/* interleave 3 (no program holds it): refused, naming TD 0's TileDMADst.Fmt */
	il_refused(p, sizeof p, IL_C, 3, 0, ENG_FR_FIELD, 0, H13_DST_FMT);
	/* TD 1's L2 side at 1 under its tile DMA's 8: refused, naming TD 1's L2.SourceCfg */
	il_refused(p, sizeof p, IL_C, 8, 1, ENG_FR_COMBINATION, 1, H13_L2_SOURCECFG);
	/* 12 channels: a group of 8 part-filled, refused */
	il_refused(p, sizeof p, 12, 8, 0, ENG_FR_COMBINATION, 0, H13_DST_FMT);
}

/*
 * A result written transposed and channel-interleaved (Common.Cfg.OutTranspose with
 * TileDMADst.Fmt.Interleave 4 or 8), as the macOS compiler's GPT-2 attention and linear backward
 * kernels write the kernels their next TDs read (allbilly/ane, gpt2/training, the kernels
 * attention_qk_backward_db, attention_av_backward_db and linear_32_768_768_backward_dw;
 * docs/engine-model.md, "Channel interleave"): TD 0 writes t = (x - 1/4)/2 of x (16 x 3 x 24) transposed,
 * 24 channels of 3 rows of 16, interleaved by I into BAR 3; TD 1 reads BAR 3 back with the same
 * interleave and writes 2t plain to BAR 4. The definitions: BAR 3's element for x's (c, h, w) is
 * the transposed tensor's (w, h, c), at (w / I) plane + h row + (I c + w mod I) x 2; BAR 4's
 * (w, h, c) is 2t. Negatives: the checker reading BAR 3 interleaved but not transposed, or
 * transposed but not interleaved, fails; 20 columns (not whole groups of 8 channels once
 * transposed) are refused by name.
 */
#define ILT_C 16u
#define ILT_H 3u
#define ILT_W 24u
#define ILT_ROW(i) ((ILT_C * (i) * 2u + 63u) & ~63u)
#define ILT_PLANE(i) (ILT_ROW(i) * ILT_H)

struct ilt_run {
	unsigned ilv;
	int mid_kind; /* the checker's layout of BAR 3: 0 the definition, 1 not transposed, 2 not interleaved */
	unsigned checked_mid, checked_out;
	uint64_t bad;
};

static void ilt_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (!is_weights && g->bar == BP_IN0_BAR)
		fill_in0(buf, ILT_C, ILT_H, ILT_W);
}

static void ilt_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct ilt_run *r = ctx;
	if (is_weights || (g->bar != BP_MID_BAR && g->bar != BP_OUT_BAR))
		return;
	const unsigned i = r->ilv;
	for (unsigned c = 0; c < ILT_C; c++)
		for (unsigned h = 0; h < ILT_H; h++)
			for (unsigned w = 0; w < ILT_W; w++) {
				uint64_t off;
				uint16_t want = il_mid(c, h, w);
				if (g->bar == BP_MID_BAR) {
					if (r->mid_kind == 1) /* interleaved, not transposed: x's own (c, h, w) */
						off = (uint64_t)(c / i) * (ILT_H * ((ILT_W * i * 2u + 63u) & ~63u)) +
						      (uint64_t)h * ((ILT_W * i * 2u + 63u) & ~63u) + (i * w + c % i) * 2u;
					else if (r->mid_kind == 2) /* transposed, plain rows of 16 */
						off = ((uint64_t)w * ILT_H + h) * bp_row(ILT_C) + 2u * c;
					else
						off = (uint64_t)(w / i) * ILT_PLANE(i) + (uint64_t)h * ILT_ROW(i) +
						      (i * c + w % i) * 2u;
					r->checked_mid++;
				} else {
					off = ((uint64_t)w * ILT_H + h) * bp_row(ILT_C) + 2u * c;
					want = d2h(2.0 * h2d(want));
					r->checked_out++;
				}
				r->bad += off + 2u > g->size || le_rd16(buf + off) != want;
			}
}

/* TD 0 (x, W columns, transposed and interleaved by ilv into BAR 3), TD 1 (BAR 3 back to BAR 4) */
static size_t ilt_prog(uint8_t *p, size_t cap, unsigned w, unsigned ilv)
{
	struct bp_pe_spec s0 = bp_pe_copy(ILT_C, ILT_H, w, BP_IN0_BAR, BP_MID_BAR);
	struct bp_pe_spec s1 = bp_pe_copy(w, ILT_H, ILT_C, BP_MID_BAR, BP_OUT_BAR);
	s0.scale = H_HALF, s0.bias = H_MINUS_QUARTER;
	s0.out_transpose = 1;
	s1.scale = 0x4000u; /* 2 */
	const struct bp_pe_spec *const tds[2] = {&s0, &s1};
	size_t len = bp_pen(p, cap, tds, 2);
	return len ? il_patch(p, len, ilv, 0, ILT_ROW(ilv), ILT_PLANE(ilv)) : 0;
}

static int ilt_submit(const uint8_t *p, size_t len, struct ilt_run *r, struct session_result *res)
{
	struct session_hooks hk = {.fill = ilt_fill, .check = ilt_check, .ctx = r};
	r->checked_mid = r->checked_out = 0;
	r->bad = 0;
	return tsubmit(p, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, res);
}

TEST(model_pe, a_result_written_transposed_and_channel_interleaved)
{
	static uint8_t p[8192];
	struct session_result res;
	struct ilt_run r;
	for (unsigned ilv = 4; ilv <= 8; ilv += 4) {
		size_t len = ilt_prog(p, sizeof p, ILT_W, ilv);
		REQUIRE(len > 0);
		r = (struct ilt_run){.ilv = ilv};
		CHECKF(ilt_submit(p, len, &r, &res) == 0, "by %u: %s", ilv, res.fault_text);
		CHECK_EQ(r.checked_mid, ILT_C * ILT_H * ILT_W);
		CHECK_EQ(r.checked_out, ILT_C * ILT_H * ILT_W);
		CHECKF(r.bad == 0, "by %u: %lu off", ilv, (unsigned long)r.bad);
		/* the checker's negatives */
		for (int kind = 1; kind <= 2; kind++) {
			r = (struct ilt_run){.ilv = ilv, .mid_kind = kind};
			CHECK(ilt_submit(p, len, &r, &res) == 0);
			CHECKF(r.bad > ILT_C * ILT_H * ILT_W / 2, "by %u, layout %d: %lu off", ilv, kind,
			       (unsigned long)r.bad);
		}
	}
	/* 20 columns: transposed, 20 channels, not whole groups of 8: refused at TD 0's TileDMADst.Fmt */
	size_t len = ilt_prog(p, sizeof p, 20, 8);
	REQUIRE(len > 0);
	r = (struct ilt_run){.ilv = 8};
	CHECK(ilt_submit(p, len, &r, &res) != 0);
	CHECK_EQ(res.fault.reason, (uint32_t)ENG_FR_COMBINATION);
	CHECK_EQ(res.fault.td, 0);
	CHECK_EQ(res.fault.reg, (uint32_t)H13_DST_FMT);
}

/*
 * A depth on an elementwise TD (Common.InDepth = OutDepth = D; docs/engine-model.md, "A depth on
 * an elementwise TD"): element (c, d, y, x) of each operand d DepthStrides past (c, 0, y, x), each
 * side with its own stride (the sources' and the destination's apart, with gaps between the
 * depths), and the TD's operation element by element. The reference is the definition, here in
 * double: a + b (multiples of 1/64 in [-8, 8): exact in fp16), 2a through the NE's unit kernel.
 */
#define DP_C 2u
#define DP_H 3u
#define DP_W 5u
#define DP_D 4u
struct dp_run {
	const struct bp_pe_spec *p;
	int wrong; /* the checker's negative: every depth expected from depth 0's inputs */
	unsigned filled, outputs;
	uint64_t checked, bad;
};

static uint64_t dp_off(uint32_t group, uint32_t depth, unsigned g, unsigned c, unsigned d, unsigned y,
		       unsigned x)
{
	return (uint64_t)g * group + (uint64_t)c * bp_row(DP_W) * DP_H + (uint64_t)d * depth +
	       (uint64_t)y * bp_row(DP_W) + 2u * x;
}

static uint16_t dp_in(unsigned bar, unsigned g, unsigned c, unsigned d, unsigned y, unsigned x)
{
	return input_at(bar, g * 31u + c * 7u + d, y, x);
}

static unsigned dp_groups(const struct bp_pe_spec *p)
{
	return p->groups ? p->groups : 1u;
}

static void dp_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct dp_run *r = ctx;
	if (is_weights || (g->bar != BP_IN0_BAR && g->bar != BP_IN1_BAR))
		return;
	uint32_t depth = g->bar == BP_IN0_BAR ? r->p->src_depth : r->p->src2_depth;
	uint32_t group = g->bar == BP_IN0_BAR ? r->p->src_group : r->p->src2_group;
	r->filled++;
	for (unsigned k = 0; k < dp_groups(r->p); k++)
		for (unsigned c = 0; c < DP_C; c++)
			for (unsigned d = 0; d < DP_D; d++)
				for (unsigned y = 0; y < DP_H; y++)
					for (unsigned x = 0; x < DP_W; x++) {
						uint64_t off = dp_off(group, depth, k, c, d, y, x);
						if (off + 2 <= g->size)
							le_wr16(buf + off, dp_in((unsigned)g->bar, k, c, d, y, x));
					}
}

static void dp_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct dp_run *r = ctx;
	if (is_weights || g->bar != BP_OUT_BAR)
		return;
	r->outputs++;
	const struct bp_pe_spec *p = r->p;
	for (unsigned k = 0; k < dp_groups(p); k++)
		for (unsigned c = 0; c < DP_C; c++)
			for (unsigned d = 0; d < DP_D; d++)
				for (unsigned y = 0; y < DP_H; y++)
					for (unsigned x = 0; x < DP_W; x++) {
						uint64_t off = dp_off(p->dst_group, p->dst_depth, k, c, d, y, x);
						uint16_t got = off + 2 <= g->size ? le_rd16(buf + off) : 0x7e00u;
						unsigned dd = r->wrong ? 0u : d;
						double a = h2d(dp_in(BP_IN0_BAR, k, c, dd, y, x));
						double want = p->secsrc == H13_PE_SECSRC_TILE1
								      ? a + h2d(dp_in(BP_IN1_BAR, k, c, dd, y, x))
								      : a * h2d(p->scale);
						r->checked++;
						if (got != d2h(want))
							r->bad++;
					}
}

static int dp_submit(const struct bp_pe_spec *p, struct dp_run *r, struct session_result *res)
{
	size_t len = bp_pe(prog, sizeof prog, p);
	if (!len)
		return -2;
	struct session_hooks h = {.fill = dp_fill, .check = dp_check, .ctx = r};
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, res);
	CHECK(res->canaries_ok);
	return rc;
}

TEST(model_pe, an_elementwise_td_walks_its_depth)
{
	struct bp_pe_spec p = base();
	p.c = DP_C, p.win = p.wout = DP_W, p.hin = p.hout = DP_H;
	p.depth = DP_D;
	/* the depths apart by more than the C planes (gaps), each side its own stride */
	p.src_depth = 448, p.src2_depth = 512, p.dst_depth = 640;
	p.secsrc = H13_PE_SECSRC_TILE1, p.op = H13_PE_OP_ADD;
	struct session_result res;
	struct dp_run r = {.p = &p};
	CHECKF(dp_submit(&p, &r, &res) == 0, "a + b at 4 depths: %s", res.fault_text);
	CHECK_EQ(r.filled, 2u);
	CHECK_EQ(r.outputs, 1u);
	CHECK_EQ(r.checked, (uint64_t)DP_C * DP_D * DP_H * DP_W);
	CHECKF(r.bad == 0, "a + b at 4 depths: %lu of %lu off", (unsigned long)r.bad, (unsigned long)r.checked);
	/* the checker's negative: depth 0's sums expected at every depth (a depth read as 1) */
	r = (struct dp_run){.p = &p, .wrong = 1};
	CHECK(dp_submit(&p, &r, &res) == 0);
	CHECKF(r.bad >= (uint64_t)DP_C * (DP_D - 1u) * DP_H * DP_W * 9u / 10u, "depth ignored: only %lu of %lu off",
	       (unsigned long)r.bad, (unsigned long)r.checked);
	/* the NE's unit kernel (Apple's rsqrt form), then the PE's x 2 */
	struct bp_pe_spec u = base();
	u.c = DP_C, u.win = u.wout = DP_W, u.hin = u.hout = DP_H;
	u.depth = DP_D, u.src_depth = 448, u.dst_depth = 576;
	u.ne_unit = 1, u.scale = 0x4000u;
	r = (struct dp_run){.p = &u};
	CHECKF(dp_submit(&u, &r, &res) == 0, "2a at 4 depths: %s", res.fault_text);
	CHECK_EQ(r.checked, (uint64_t)DP_C * DP_D * DP_H * DP_W);
	CHECKF(r.bad == 0, "2a at 4 depths: %lu of %lu off", (unsigned long)r.bad, (unsigned long)r.checked);
	/* two groups besides (a rank-5 tensor's batch as NumGroups), each side's group stride past
	 * its depths */
	u.groups = 2, u.src_group = 448 * DP_D, u.dst_group = 576 * DP_D + 64;
	r = (struct dp_run){.p = &u};
	CHECKF(dp_submit(&u, &r, &res) == 0, "2a at 2 groups of 4 depths: %s", res.fault_text);
	CHECK_EQ(r.checked, 2u * DP_C * DP_D * DP_H * DP_W);
	CHECKF(r.bad == 0, "2a at 2 groups of 4 depths: %lu of %lu off", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	p.groups = 2, p.src_group = 448 * DP_D, p.src2_group = 512 * DP_D, p.dst_group = 640 * DP_D;
	r = (struct dp_run){.p = &p};
	CHECKF(dp_submit(&p, &r, &res) == 0, "a + b at 2 groups of 4 depths: %s", res.fault_text);
	CHECK_EQ(r.checked, 2u * DP_C * DP_D * DP_H * DP_W);
	CHECKF(r.bad == 0, "a + b at 2 groups of 4 depths: %lu of %lu off", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	/* pooling with a depth: refused, naming Common.InDepth */
	struct bp_pe_spec q = base();
	q.c = DP_C, q.win = 6, q.hin = 4, q.wout = 3, q.hout = 2, q.kw = q.kh = q.sx = q.sy = 2;
	q.pool = H13_PE_POOL_MAX, q.depth = DP_D, q.src_depth = 512, q.dst_depth = 512;
	r = (struct dp_run){.p = &q};
	CHECK(dp_submit(&q, &r, &res) != 0);
	CHECK_EQ(res.run, (uint32_t)ENG_E_FAULT);
	CHECK_EQ(res.fault.reason, (uint32_t)ENG_FR_COMBINATION);
	CHECK_EQ(res.fault.reg, (uint32_t)H13_COMMON_INDEPTH);
	CHECKF(strstr(res.fault_text, "Common.InDepth above 1 on a TD that is neither a reduction nor elementwise") != NULL,
	       "%s", res.fault_text);
}
