/*
 * Aliasing between a TD's sources and its destination (docs/engine-model.md, "Aliasing between
 * sources and destination (2026-12-07)"), end to end (raw TDs built by tools/progdesc's bp_pen and
 * bp_chain, the loader, the control path, the engine driver, the model): a destination over its
 * source in place (computes 2x, each element read before it is written: depth 1 and 2, x + x,
 * two groups), shifted by part of a row, a row, a plane, a depth or a group (refused by name); a
 * broadcast source and a convolution in place (refused); a TD reading more of an intermediate
 * than earlier TDs wrote (refused by the control path); and a result left in L2 memory in the
 * view of the source the same TD keeps there (refused since 2026-12-07).
 */
#include "tests/unit/tsession.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <string.h>

#if !defined(ANEFW_TARGET)

static uint8_t prog[4 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];
static size_t al_len; /* the last program al_submit built in prog */

#define OVERLAP_TEXT "a destination whose bytes overlap a tile source's"
#define L2_OVERLAP_TEXT "a result in L2 memory over an operand the same TD reads from L2"

/* x(d, c, h, w): multiples of 1/64 in [-4, 4), exact in fp16 and so is 2x */
static uint16_t al_x(unsigned d, unsigned c, unsigned h, unsigned w)
{
	uint32_t k = (d * 7919u + c * 104729u + h * 1299709u + w * 15485863u) * 2654435761u;
	int q = (int)(k >> 23) - 256; /* -256 .. 255 */
	if (!q)
		return 0;
	unsigned a = (unsigned)(q < 0 ? -q : q), e = 0;
	while ((a >> e) > 1u)
		e++;
	return (uint16_t)((q < 0 ? 0x8000u : 0u) | ((e + 9u) << 10) | ((a << (10u - e)) & 0x3ffu));
}

/* 2x in fp16 (x finite, normal or zero: the exponent field up one) */
static uint16_t al_2x(uint16_t x)
{
	return (x & 0x7fffu) ? (uint16_t)(x + 0x400u) : x;
}

struct al_run {
	unsigned d, c, h, w;  /* the tensor (depth d, planes of c x h rows of bp_row(w)) */
	unsigned in_bar;      /* the BAR filled with x */
	unsigned out_bar;     /* the BAR checked */
	uint64_t out_off;     /* where the checked tensor starts in it */
	int twice;            /* 1: 2x expected, 0: x */
	unsigned fill3;       /* 1: BAR 3 filled with 0x3c00 (1.0) by the hook, whole */
	int row0;             /* 1: every row expects row 0's value (a broadcast along H) */
	uint64_t checked, bad;
};

static uint64_t al_off(const struct al_run *r, unsigned d, unsigned c, unsigned h, unsigned w)
{
	const uint64_t row = bp_row(r->w), plane = row * r->h;
	return ((uint64_t)d * r->c + c) * plane + h * row + 2u * w;
}

static void al_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	const struct al_run *r = ctx;
	if (is_weights)
		return;
	if (r->fill3 && g->bar == BP_MID_BAR)
		for (uint64_t k = 0; k + 2u <= g->size; k += 2u)
			le_wr16(buf + k, 0x3c00u);
	if (g->bar != r->in_bar)
		return;
	for (unsigned d = 0; d < r->d; d++)
		for (unsigned c = 0; c < r->c; c++)
			for (unsigned h = 0; h < r->h; h++)
				for (unsigned w = 0; w < r->w; w++)
					if (al_off(r, d, c, h, w) + 2u <= g->size)
						le_wr16(buf + al_off(r, d, c, h, w), al_x(d, c, h, w));
}

static void al_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct al_run *r = ctx;
	if (is_weights || g->bar != r->out_bar)
		return;
	for (unsigned d = 0; d < r->d; d++)
		for (unsigned c = 0; c < r->c; c++)
			for (unsigned h = 0; h < r->h; h++)
				for (unsigned w = 0; w < r->w; w++) {
					const uint64_t off = r->out_off + al_off(r, d, c, h, w);
					uint16_t want = al_x(d, c, r->row0 ? 0u : h, w);
					if (r->twice)
						want = al_2x(want);
					r->checked++;
					r->bad += off + 2u > g->size || le_rd16(buf + off) != want;
				}
}

static int al_submit(const struct bp_pe_spec *t, unsigned n, struct al_run *r, char *f, size_t fl)
{
	const struct bp_pe_spec *p[4];
	for (unsigned i = 0; i < n && i < 4; i++)
		p[i] = &t[i];
	size_t len = al_len = bp_pen(prog, sizeof prog, p, n);
	CHECK(len > 0);
	struct session_result res;
	const struct session_hooks hk = {al_fill, al_check, r, r->fill3 ? 1u << BP_MID_BAR : 0u};
	r->checked = r->bad = 0;
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, &res);
	snprintf(f, fl, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	CHECK(res.canaries_ok);
	return rc == 0 && res.run == ENG_OK ? 0 : -1;
}

/* TD 0 copies x into BAR 3; TD 1 doubles BAR 3 into BAR 3 at dst_off (0: in place) */
static void al_pair(struct bp_pe_spec t[2], unsigned d, unsigned c, unsigned h, unsigned w)
{
	t[0] = bp_pe_copy(c, h, w, BP_IN0_BAR, BP_MID_BAR);
	t[1] = bp_pe_copy(c, h, w, BP_MID_BAR, BP_MID_BAR);
	t[1].scale = 0x4000u; /* 2.0 */
	if (d > 1) {
		const uint32_t ds = bp_row(w) * h * c;
		t[0].depth = t[1].depth = d;
		t[0].src_depth = t[0].dst_depth = t[1].src_depth = t[1].dst_depth = ds;
	}
}

TEST(model_alias, in_place_elementwise_computes_and_shifted_is_refused)
{
	char f[512];
	struct bp_pe_spec t[2];
	struct al_run r;
	/* in place, depth 1 and depth 2: 2x everywhere */
	for (unsigned d = 1; d <= 2; d++) {
		al_pair(t, d, 4, 3, 40);
		r = (struct al_run){.d = d, .c = 4, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_MID_BAR, .twice = 1};
		CHECKF(al_submit(t, 2, &r, f, sizeof f) == 0, "in place, depth %u: %s", d, f);
		CHECKF(r.checked && r.bad == 0, "in place, depth %u: %lu of %lu off", d, (unsigned long)r.bad,
		       (unsigned long)r.checked);
	}
	/* shifted by part of a row (64 bytes of 128), a row, a plane, a depth */
	const uint32_t row = bp_row(40), plane = row * 3;
	const uint32_t shifts[4] = {64, row, plane, plane * 4};
	for (unsigned k = 0; k < 4; k++) {
		al_pair(t, 2, 4, 3, 40);
		t[1].dst_off = shifts[k];
		r = (struct al_run){.d = 2, .c = 4, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_MID_BAR};
		CHECKF(al_submit(t, 2, &r, f, sizeof f) != 0 && strstr(f, OVERLAP_TEXT), "shift %u: \"%s\"",
		       (unsigned)shifts[k], f);
	}
}

/* x + x with both tile sources and the destination in BAR 3, in place; two groups of two
 * channels in place (computes) and shifted by a group (refused) */
TEST(model_alias, in_place_with_two_sources_and_groups)
{
	char f[512];
	struct bp_pe_spec t[2];
	struct al_run r;
	al_pair(t, 1, 4, 3, 40);
	t[1].scale = BP_FP16_ONE;
	t[1].op = H13_PE_OP_ADD;
	t[1].secsrc = H13_PE_SECSRC_TILE1;
	t[1].bar_in1 = BP_MID_BAR;
	r = (struct al_run){.d = 1, .c = 4, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_MID_BAR, .twice = 1};
	CHECKF(al_submit(t, 2, &r, f, sizeof f) == 0, "x + x in place: %s", f);
	CHECKF(r.checked && r.bad == 0, "x + x in place: %lu off", (unsigned long)r.bad);
	al_pair(t, 1, 2, 3, 40);
	for (unsigned i = 0; i < 2; i++) {
		t[i].groups = 2;
		t[i].src_group = t[i].dst_group = bp_row(40) * 3 * 2;
	}
	r = (struct al_run){.d = 1, .c = 4, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_MID_BAR, .twice = 1};
	CHECKF(al_submit(t, 2, &r, f, sizeof f) == 0, "groups in place: %s", f);
	CHECKF(r.checked && r.bad == 0, "groups in place: %lu off", (unsigned long)r.bad);
	t[1].dst_off = bp_row(40) * 3 * 2;
	CHECKF(al_submit(t, 2, &r, f, sizeof f) != 0 && strstr(f, OVERLAP_TEXT), "shifted a group: \"%s\"", f);
}

/* A source kept in L2 and read broadcast along H (np.tile's form) with its destination in its own
 * place in BAR 3: refused (rows 1 and 2 of each plane written over nothing the TD reads, row 0
 * over what every row reads); the same TD into BAR 4 computes 2 x(c, 0, w) in every row */
TEST(model_alias, a_broadcast_source_in_place_is_refused)
{
	char f[512];
	struct bp_pe_spec u[2] = {bp_pe_copy(2, 3, 40, BP_IN0_BAR, BP_MID_BAR), bp_pe_copy(2, 3, 40, BP_MID_BAR, BP_MID_BAR)};
	const struct bp_l2 v = {1, 0, 80, 240, 0, 0};
	u[1].l2_src = BP_L2_KEEP;
	u[1].src_l2 = v;
	u[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_H);
	u[1].scale = 0x4000u;
	struct al_run r = {.d = 1, .c = 2, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_MID_BAR, .twice = 1, .row0 = 1};
	CHECKF(al_submit(u, 2, &r, f, sizeof f) != 0 && strstr(f, OVERLAP_TEXT), "in place: \"%s\"", f);
	u[1].bar_out = BP_OUT_BAR;
	r.out_bar = BP_OUT_BAR;
	CHECKF(al_submit(u, 2, &r, f, sizeof f) == 0, "elsewhere: %s", f);
	CHECKF(r.checked && r.bad == 0, "elsewhere: %lu off", (unsigned long)r.bad);
}

/* A later TD reading more of an intermediate than the earlier TDs wrote (TD 0 writes channel 0 of
 * BAR 3, TD 1 reads channels 0 and 1): refused by the control path before the model runs, the
 * unwritten channel named (intermediate-extent-conflict), whatever BAR 3 held; control: TD 1
 * reading channel 0 alone gives x */
TEST(model_alias, a_read_past_what_earlier_tds_wrote_is_refused)
{
	char f[512];
	struct bp_pe_spec t[2] = {bp_pe_copy(1, 3, 40, BP_IN0_BAR, BP_MID_BAR), bp_pe_copy(1, 3, 40, BP_MID_BAR, BP_OUT_BAR)};
	struct al_run r = {.d = 1, .c = 1, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_OUT_BAR, .fill3 = 1};
	CHECKF(al_submit(t, 2, &r, f, sizeof f) == 0, "control: %s", f);
	CHECKF(r.checked && r.bad == 0, "control: %lu off", (unsigned long)r.bad);
	t[1].c = 2;
	CHECKF(al_submit(t, 2, &r, f, sizeof f) != 0 && strstr(f, "intermediate-extent-conflict"), "two channels: \"%s\"", f);
}

/* A 1x1 convolution 4 -> 4 over its own input in BAR 3 (each output reads all four channels at
 * its position): refused; the same convolution into BAR 4 completes */
TEST(model_alias, a_convolution_over_its_own_input_is_refused)
{
	static uint8_t p[4 * BP_CHAIN_STRIDE + 4096];
	uint16_t w[16];
	for (unsigned i = 0; i < 16; i++)
		w[i] = i % 5 == 0 ? 0x3c00u : 0x3400u; /* 1 on the diagonal, 1/4 elsewhere */
	for (unsigned k = 0; k < 2; k++) {
		const struct bp_step steps[2] = {{.kind = BP_STEP_COPY, .cin = 4, .cout = 4, .in0 = 5, .out = 3},
						 {.kind = BP_STEP_CONV, .cin = 4, .cout = 4, .in0 = 3, .out = k ? 4 : 3}};
		size_t len = bp_chain(p, sizeof p, 16, 2, steps, 2, w);
		REQUIRE(len > 0);
		struct session_result res;
		int rc = tsubmit(p, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
		const char *f = res.fault_text[0] ? res.fault_text : session_result_name(&res);
		if (k)
			CHECKF(rc == 0 && res.run == ENG_OK, "into BAR 4: %s", f);
		else
			CHECKF(!(rc == 0 && res.run == ENG_OK) && strstr(f, OVERLAP_TEXT), "in place: \"%s\"", f);
	}
}

/*
 * A source kept in L2 memory as it is read (SourceType 1) with the same TD's result left in L2 in
 * the same view: each element written twice by the TD, the keep's x and the result's 2x, and
 * which lands last is not pinned (the model left 2x: a TD reading the kept x after read 2x).
 * Refused now by name; a row down it was already refused as an overlap. Control: the result
 * apart (at 0x400), TD 1 reads the kept x back as x and TD 2 the result as 2x.
 */
TEST(model_alias, a_result_over_the_source_it_keeps_in_l2_is_refused)
{
	char f[512];
	const struct bp_l2 v = {1, 0, 240, 80, 0, 0};
	struct bp_pe_spec u[3] = {bp_pe_copy(2, 3, 40, BP_IN0_BAR, 0), bp_pe_copy(2, 3, 40, 0, BP_OUT_BAR),
				  bp_pe_copy(2, 3, 40, 0, BP_MID_BAR)};
	u[0].l2_src = BP_L2_KEEP;
	u[0].src_l2 = v;
	u[0].res_l2 = v;
	u[0].res_l2.base = 0x400;
	u[0].scale = 0x4000u;
	u[1].l2_src = u[2].l2_src = BP_L2_READ;
	u[1].src_l2 = u[2].src_l2 = v;
	u[2].src_l2.base = 0x400;
	struct al_run r = {.d = 1, .c = 2, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_OUT_BAR};
	CHECKF(al_submit(u, 3, &r, f, sizeof f) == 0, "control, the kept x: %s", f);
	CHECKF(r.checked && r.bad == 0, "control, the kept x: %lu off", (unsigned long)r.bad);
	r = (struct al_run){.d = 1, .c = 2, .h = 3, .w = 40, .in_bar = BP_IN0_BAR, .out_bar = BP_MID_BAR, .twice = 1};
	CHECKF(al_submit(u, 3, &r, f, sizeof f) == 0, "control, the result: %s", f);
	CHECKF(r.checked && r.bad == 0, "control, the result: %lu off", (unsigned long)r.bad);
	/* the result in the kept source's view */
	u[0].res_l2.base = 0;
	CHECKF(al_submit(u, 2, &r, f, sizeof f) != 0 &&
		       strstr(f, "a result in L2 memory over the first operand the same TD keeps there"),
	       "in the kept view: \"%s\"", f);
	/* inspect marks the result line with the same text (fw/td td_l2mem_of, one home) */
	CHECKF(strstr(tinspect(prog, al_len), "(not modelled: a result in L2 memory over the first operand the same "
					      "TD keeps there") != NULL,
	       "inspect does not mark it");
	/* a row down: an overlap, as before */
	u[0].res_l2.base = 80;
	CHECKF(al_submit(u, 2, &r, f, sizeof f) != 0 && strstr(f, L2_OVERLAP_TEXT), "a row down: \"%s\"", f);
}

#endif
