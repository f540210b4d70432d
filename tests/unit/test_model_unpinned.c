/*
 * Register combinations no real program pins, which the model once computed while leaving a
 * field out (found by review, 2026-12-05; docs/engine-model.md), each now refused by name, end to
 * end (raw TDs built by tools/progdesc's bp_pen and bp_chain, the loader, the control path, the
 * engine driver, the model). Every case has its control: the same program without the field
 * completes, so a refusal comes from the field and not from the program around it.
 *  - L2.L2Cfg.Src2ReLU on a reduction of two operands and on a normalize (TaskType 4), where the
 *    second operand was read without it;
 *  - the NE's fields on a reduction (NE.AccBias, MACCfg.MatrixBiasEn, Bit20 clear,
 *    GroupConvCfg.ElemMultMode), which every other TD refuses and reductions skipped;
 *  - Common.Cfg.OutTranspose on a reduction whose result stays in L2 memory (left out), and a
 *    reduction's FinalScale 0, negative, infinite or NaN (taken as a multiplier);
 *  - an L2-resident source smaller than the TD's input (read as zeros past its extent), by the
 *    L2-memory path, the NE's channel maxima and an elementwise TD whose second tile operand is
 *    narrower than its output;
 *  - a one-byte first operand with an fp16 second operand by the tile DMA (the second read as
 *    bytes);
 *  - an elementwise destination overlapping its source one row down (the values depended on the
 *    model's 16 KiB chunks); the same TD in place, element for element, still computes;
 *  - a destination whose own rows overlap (the last write won), a pooling or convolution output
 *    whose window lies wholly outside its input (zeros), a first source that is not there
 *    (zeros), an elementwise output smaller than its input (a crop), and a one-byte
 *    Common.ChCfg format with an fp16 tile DMA format (fp16 values read as bytes);
 *  - an L2-resident result with a one-byte output (kept unrounded) and a one-byte read of an
 *    L2-resident tensor (fp16 read as fp16);
 *  - activation records in several coefficient channels that differ (the first alone was read).
 */
#include "tests/unit/tsession.h"
#include "fw/actlut/actlut.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(ANEFW_TARGET) /* on the host (the same code on the target) */

static uint8_t prog[8 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];

static void xw(struct bp_pe_spec *t, uint32_t reg, uint32_t val)
{
	if (t->nx < BP_PE_EXTRA) {
		t->xreg[t->nx] = reg;
		t->xval[t->nx++] = val;
	}
}

/* Submits the raw program p (inputs the session's pattern, or the hooks'): 0 when the run
 * completed, else -1 with the fault's text (or the result's name) in fault. */
static int submit(const uint8_t *p, size_t len, const struct session_hooks *hk, char *fault, size_t fl)
{
	struct session_result res;
	int rc = tsubmit(p, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, hk, &res);
	snprintf(fault, fl, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	return rc == 0 && res.run == ENG_OK ? 0 : -1;
}

/* The n TDs built by bp_pen, submitted. */
static int run(const struct bp_pe_spec *t, unsigned n, char *fault, size_t fl)
{
	const struct bp_pe_spec *p[8];
	for (unsigned i = 0; i < n && i < 8; i++)
		p[i] = &t[i];
	size_t len = bp_pen(prog, sizeof prog, p, n);
	CHECK(len > 0);
	return submit(prog, len, NULL, fault, fl);
}

/* The control completes; the case is refused with want in its fault. */
static void expect_pair(const char *what, const struct bp_pe_spec *ctl, const struct bp_pe_spec *bad,
			unsigned n, const char *want)
{
	char f[512];
	CHECKF(run(ctl, n, f, sizeof f) == 0, "%s: the control did not complete: %s", what, f);
	CHECKF(run(bad, n, f, sizeof f) != 0 && strstr(f, want), "%s: \"%s\", want \"%s\"", what, f, want);
}

TEST(model_unpinned, src2relu_on_a_reduction_or_a_normalize_is_refused)
{
	/* a product reduction, TaskType 6 */
	struct bp_pe_spec t = bp_pe_copy(2, 1, 8, 5, 4), u;
	t.bar_in1 = 6;
	t.tasktype = H13_TASK_REDUCE2;
	t.op = H13_PE_OP_MUL;
	t.secsrc = H13_PE_SECSRC_TILE1;
	t.ne_pass = 1;
	u = t;
	xw(&u, H13_L2_CFG, H13_PUT(H13_L2CFG_SRC2RELU, 1));
	expect_pair("product reduction", &t, &u, 1, "L2.L2Cfg.Src2ReLU on a reduction not modelled");
	/* a layer norm's three TDs: the mean, the 1/sqrt of the variance, the normalize */
	struct bp_pe_spec l[3], k[3];
	l[0] = bp_pe_copy(2, 1, 8, 5, 0);
	l[0].reduce = 1;
	l[0].ne_pass = 1;
	l[0].res_l2 = (struct bp_l2){1, 0x1000, 16, 16, 0, 0};
	l[0].finalscale = 0x3e000000u; /* 1/8 */
	l[1] = bp_pe_copy(2, 1, 8, 0, 0);
	l[1].tasktype = H13_TASK_REDUCE2;
	l[1].ne_pass = 1;
	l[1].l2_src = BP_L2_READ;
	l[1].src_l2 = (struct bp_l2){1, 0x1000, 16, 16, 0, 0};
	l[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W);
	l[1].secsrc = H13_PE_SECSRC_TILE1;
	l[1].bar_in1 = 5;
	l[1].firstsrc = 1;
	l[1].op = H13_PE_OP_SQ;
	l[1].nlmode = H13_PE_NL_RSQRT;
	l[1].eps = 0x3400u;
	l[1].finalscale = 0x3e000000u;
	l[1].res_l2 = (struct bp_l2){1, 0x1400, 16, 16, 0, 0};
	l[2] = bp_pe_copy(2, 1, 8, 5, 4);
	l[2].tasktype = H13_TASK_NORMALIZE;
	l[2].ne_pass = 1;
	l[2].secsrc = H13_PE_SECSRC_SUB;
	l[2].src2_l2 = (struct bp_l2){1, 0x1000, 16, 0x400, 0, 0};
	memcpy(k, l, sizeof k);
	xw(&k[2], H13_L2_CFG, H13_PUT(H13_L2CFG_SRC2RELU, 1));
	expect_pair("normalize", l, k, 3, "L2.L2Cfg.Src2ReLU on a normalize (TaskType 4) not modelled");
}

TEST(model_unpinned, the_nes_fields_on_a_reduction_are_checked)
{
	struct bp_pe_spec t = bp_pe_copy(2, 1, 8, 5, 4), u;
	t.reduce = 1;
	t.ne_pass = 1;
	static const struct {
		uint32_t reg, val;
		const char *want;
	} k[] = {
		{H13_NE_ACCBIAS, 0x3c00u, "NE.AccBias outside a convolution (MACCfg OpMode 0) not modelled"},
		{H13_NE_MACCFG, H13_PUT(H13_MACCFG_BIT20, 1) | H13_PUT(H13_MACCFG_MATRIXBIASEN, 1),
		 "NE.MACCfg.MatrixBiasEn not modelled"},
		{H13_NE_MACCFG, H13_PUT(H13_MACCFG_MATRIXBIASEN, 1), "NE.MACCfg.Bit20 clear not modelled"},
		{H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_ELEMMULTMODE, 1),
		 "Common.GroupConvCfg.ElemMultMode not modelled"},
	};
	for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
		u = t;
		xw(&u, k[i].reg, k[i].val);
		expect_pair(k[i].want, &t, &u, 1, k[i].want);
	}
}

TEST(model_unpinned, a_reductions_final_scale_that_is_no_positive_multiplier_is_refused)
{
	struct bp_pe_spec t = bp_pe_copy(2, 1, 8, 5, 4), u;
	t.reduce = 1;
	t.ne_pass = 1;
	t.finalscale = 0x3e000000u; /* 1/8: a mean, as Apple's reduce_mean */
	static const uint32_t bad[] = {0, 0x80000000u, 0xbe000000u, 0x7f800000u, 0x7fc00000u};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		u = t;
		u.finalscale = bad[i];
		expect_pair("FinalScale", &t, &u, 1, "Planar.FinalScale zero, negative, infinite or NaN on a reduction");
	}
}

TEST(model_unpinned, out_transpose_on_a_reduction_into_l2_is_refused)
{
	struct bp_pe_spec t[2], u[2];
	t[0] = bp_pe_copy(4, 1, 8, 5, 0);
	t[0].reduce = 1;
	t[0].res_l2 = (struct bp_l2){1, 0x1000, 16, 16, 0, 0};
	t[1] = bp_pe_copy(4, 1, 1, 0, 4);
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = (struct bp_l2){1, 0x1000, 16, 16, 0, 0};
	memcpy(u, t, sizeof u);
	u[0].out_transpose = 1;
	expect_pair("reduction into L2", t, u, 2, "Common.Cfg.OutTranspose on a reduction's result");
}

TEST(model_unpinned, an_l2_resident_source_smaller_than_the_input_is_refused)
{
	const uint32_t rcfg3 = td_fixed_bits(H13_L2_RESULTCFG) | H13_PUT(H13_L2_RESULTTYPE, H13_L2_RESIDENT);
	const uint32_t scfg3 = td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2_SOURCETYPE, H13_L2_RESIDENT);
	const char *want = "an L2-resident source smaller than the TD's input";
	/* TD 0 keeps x [1,1,W0] resident; TD 1 reads it as [1,1,16] plus 1 into L2 memory; TD 2
	 * copies that out (the L2-memory path): W0 16 runs, W0 8 is refused */
	struct bp_pe_spec t[3], u[3];
	for (unsigned narrow = 0; narrow < 2; narrow++) {
		struct bp_pe_spec *p = narrow ? u : t;
		p[0] = bp_pe_copy(1, 1, narrow ? 8 : 16, 5, 0);
		p[0].res_l2 = (struct bp_l2){1, 0x1000, 64, 64, 0, 0};
		xw(&p[0], H13_L2_RESULTCFG, rcfg3);
		p[1] = bp_pe_copy(1, 1, 16, 0, 0);
		p[1].l2_src = BP_L2_READ;
		p[1].src_l2 = (struct bp_l2){1, 0x1000, 64, 64, 0, 0};
		p[1].bias = 0x3c00u;
		p[1].res_l2 = (struct bp_l2){1, 0x2000, 64, 64, 0, 0};
		xw(&p[1], H13_L2_SOURCECFG, scfg3);
		p[2] = bp_pe_copy(1, 1, 16, 0, 4);
		p[2].l2_src = BP_L2_READ;
		p[2].src_l2 = (struct bp_l2){1, 0x2000, 64, 64, 0, 0};
	}
	expect_pair("the L2-memory path", t, u, 3, want);
	/* the NE's channel maxima of 2 channels over a resident tensor of 2 channels (runs) and of 1 */
	struct bp_pe_spec c[2], d[2];
	for (unsigned one = 0; one < 2; one++) {
		struct bp_pe_spec *p = one ? d : c;
		p[0] = bp_pe_copy(one ? 1 : 2, 2, 16, 5, 0);
		p[0].res_l2 = (struct bp_l2){1, 0, 64, 64, 0, 0}; /* (no tile destination) */
		xw(&p[0], H13_L2_RESULTCFG, rcfg3);
		p[1] = bp_pe_copy(2, 2, 16, 5, 4);
		p[1].ne_chmax = 2;
		xw(&p[1], H13_L2_SOURCECFG, scfg3);
	}
	expect_pair("channel maxima", c, d, 2, want);
}

TEST(model_unpinned, a_second_tile_operand_narrower_than_the_output_is_refused)
{
	/* a resident a [1,2,16] (TD 0), then a + b with b by the tile DMA: InDim 16 runs; InDim 8
	 * (b 8 wide, the resident a still 16) is refused: since 2026-12-06 first as a resident tensor
	 * larger than the TD's input (fw/td td_resident_source_refusal: which part of it a TD reads is
	 * not pinned), before elementwise_sources' broadcast */
	const uint32_t rcfg3 = td_fixed_bits(H13_L2_RESULTCFG) | H13_PUT(H13_L2_RESULTTYPE, H13_L2_RESIDENT);
	const uint32_t scfg3 = td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2_SOURCETYPE, H13_L2_RESIDENT);
	struct bp_pe_spec t[2], u[2];
	t[0] = bp_pe_copy(1, 2, 16, 5, 0);
	t[0].res_l2 = (struct bp_l2){1, 0, 64, 64, 0, 0}; /* (no tile destination) */
	xw(&t[0], H13_L2_RESULTCFG, rcfg3);
	t[1] = bp_pe_copy(1, 2, 16, 5, 4);
	t[1].op = H13_PE_OP_ADD;
	t[1].secsrc = H13_PE_SECSRC_TILE1;
	t[1].bar_in1 = 6;
	xw(&t[1], H13_L2_SOURCECFG, scfg3 | H13_PUT(H13_L2SRC_SRC2DMA, 1));
	memcpy(u, t, sizeof u);
	u[1].win = 8;
	expect_pair("narrow second operand", t, u, 2, "an L2-resident source larger than the TD's input");
}

TEST(model_unpinned, a_one_byte_first_operand_with_a_second_by_tile_dma_is_refused)
{
	struct bp_pe_spec t = bp_pe_copy(1, 2, 16, 5, 4), u;
	t.op = H13_PE_OP_ADD;
	t.secsrc = H13_PE_SECSRC_TILE1;
	t.bar_in1 = 6;
	u = t;
	xw(&u, H13_COMMON_CHCFG, H13_PUT(H13_CHCFG_INFMT, H13_FMT_INT8) | H13_PUT(H13_CHCFG_OUTFMT, H13_FMT_FP16));
	xw(&u, H13_SRC_FMT, TD_TILE_FMT_INT8 | td_fixed_bits(H13_SRC_FMT));
	expect_pair("int8 a + fp16 b", &t, &u, 1, "a one-byte first operand with a second PE operand by tile DMA");
}

/* An NE copy of BAR 3 onto itself: one row down (refused), or in place (computes, the values
 * unchanged); rows of W values, H rows, BAR 5 holding 0x4000 + y in row y. */
struct ovl {
	unsigned w, h, bad, got;
};

static void ovl_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	const struct ovl *o = ctx;
	if (is_weights || g->bar != 5)
		return;
	const uint32_t row = bp_row(o->w);
	for (unsigned y = 0; y < o->h; y++)
		for (unsigned x = 0; x < o->w; x++)
			if ((uint64_t)row * y + 2u * x + 2u <= g->size)
				le_wr16(buf + (uint64_t)row * y + 2u * x, (uint16_t)(0x4000u + y));
}

static void ovl_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct ovl *o = ctx;
	if (is_weights || g->bar != 4)
		return;
	const uint32_t row = bp_row(o->w);
	o->got = 1;
	for (unsigned y = 0; y < o->h; y++)
		if ((uint64_t)row * y + 2u > g->size || le_rd16(buf + (uint64_t)row * y) != 0x4000u + y)
			o->bad++;
}

static int ovl_run(unsigned w, unsigned h, uint32_t shift, struct ovl *o, char *fault, size_t fl)
{
	static uint8_t p[4 * BP_CHAIN_STRIDE + 512];
	const struct bp_step steps[3] = {
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 3},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 3, .out = 3, .out_off = shift},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 3, .in0_off = shift, .out = 4},
	};
	size_t len = bp_chain(p, sizeof p, w, h, steps, 3, NULL);
	CHECK(len > 0);
	*o = (struct ovl){w, h, 0, 0};
	const struct session_hooks hk = {ovl_fill, ovl_check, o, 0};
	return submit(p, len, &hk, fault, fl);
}

TEST(model_unpinned, an_elementwise_destination_over_its_source_is_refused_but_in_place)
{
	struct ovl o;
	char f[512];
	const char *want = "a destination whose bytes overlap a tile source's";
	/* one row down: 256-row chunks (W 32), and one row a chunk (W 8192) */
	CHECKF(ovl_run(32, 300, bp_row(32), &o, f, sizeof f) != 0 && strstr(f, want), "W 32: \"%s\"", f);
	CHECKF(ovl_run(8192, 4, bp_row(8192), &o, f, sizeof f) != 0 && strstr(f, want), "W 8192: \"%s\"", f);
	/* in place: every row as it was */
	CHECKF(ovl_run(32, 300, 0, &o, f, sizeof f) == 0 && o.got && o.bad == 0, "in place: %s, %u rows wrong", f,
	       o.bad);
}

TEST(model_unpinned, geometry_no_reading_pins_is_refused)
{
	/* a destination whose rows overlap: RowStride 64 under rows of 64 fp16 (128 bytes) */
	struct bp_pe_spec t = bp_pe_copy(1, 4, 64, 5, 4), u = t;
	xw(&u, H13_DST_ROWSTRIDE, 64);
	expect_pair("destination rows", &t, &u, 1, "a destination whose rows, planes, depths or groups overlap one another");
	/* two groups with no destination group stride */
	t = bp_pe_copy(2, 2, 16, 5, 4);
	t.groups = 2;
	t.src_group = t.dst_group = 2 * 2 * 64;
	u = t;
	u.dst_group = 0;
	xw(&u, H13_DST_GROUPSTRIDE, 0);
	expect_pair("destination groups", &t, &u, 1, "a destination whose rows, planes, depths or groups overlap one another");
	/* a 2x2 max pooling, stride 2, over 8 x 8: 4 x 4 outputs; 6 x 4 reach past the input */
	t = bp_pe_copy(2, 8, 8, 5, 4);
	t.pool = H13_PE_POOL_MAX;
	t.kw = t.kh = t.sx = t.sy = 2;
	t.wout = t.hout = 4;
	u = t;
	u.wout = 6;
	expect_pair("pooling OutDim", &t, &u, 1, "a convolution or pooling output whose window lies wholly outside its input");
	/* the same pooling with its source DMA off: no first source */
	u = t;
	xw(&u, H13_SRC_DMACONFIG, 0);
	expect_pair("pooling without a source", &t, &u, 1, "the first source is neither L2-resident nor a bound tile source");
	/* an elementwise output smaller than its input */
	t = bp_pe_copy(2, 4, 32, 5, 4);
	u = t;
	u.wout = 16;
	expect_pair("elementwise crop", &t, &u, 1, "an elementwise TD whose output is not its input's shape");
	/* Common.ChCfg.InFmt uint8 with the source's fp16 tile format, the operand by the tile DMA */
	t = bp_pe_copy(1, 2, 16, 5, 4);
	u = t;
	xw(&u, H13_COMMON_CHCFG, H13_PUT(H13_CHCFG_INFMT, H13_FMT_UINT8) | H13_PUT(H13_CHCFG_OUTFMT, H13_FMT_FP16));
	expect_pair("one-byte ChCfg, fp16 tile format", &t, &u, 1, "with Common.ChCfg.InFmt fp16");
}

/* A 1x1 convolution (bp_chain's, 4 -> 4 over 16 x 2) with OutDim patched past its input, or its
 * source DMA off. */
TEST(model_unpinned, a_convolution_past_its_input_or_without_a_source_is_refused)
{
	static uint8_t p[4 * BP_CHAIN_STRIDE + 4096];
	const struct bp_step steps[1] = {{.kind = BP_STEP_CONV, .cin = 4, .cout = 4, .in0 = 5, .out = 4}};
	static const char *const want[2] = {
		"a convolution or pooling output whose window lies wholly outside its input",
		"the first source is neither L2-resident nor a bound tile source"};
	uint16_t w[16];
	for (unsigned i = 0; i < 16; i++)
		w[i] = i % 5 == 0 ? 0x3c00u : 0x3400u; /* 1 on the diagonal, 1/4 elsewhere */
	for (unsigned k = 0; k < 3; k++) {
		size_t len = bp_chain(p, sizeof p, 16, 2, steps, 1, w);
		REQUIRE(len > 0);
		if (k == 1)
			REQUIRE(tpatch_field(p, len, 0, H13_COMMON_OUTDIM, H13_OUTDIM_WOUT_LSB, H13_OUTDIM_WOUT_W, 32) == 0);
		if (k == 2)
			REQUIRE(tpatch_field(p, len, 0, H13_SRC_DMACONFIG, H13_DMA_EN_LSB, 1, 0) == 0);
		char f[512];
		int rc = submit(p, len, NULL, f, sizeof f);
		if (!k)
			CHECKF(rc == 0, "the control: %s", f);
		else
			CHECKF(rc != 0 && strstr(f, want[k - 1]), "case %u: \"%s\"", k, f);
	}
}

/* Two TDs through an L2-resident tensor (ResultType 3, then SourceType 3): TD 0 copies BAR 5,
 * TD 1 copies the tensor to BAR 4; `byte` makes TD 0's output (then also out to BAR 7 by the tile
 * DMA, refused for that too, after the format) or TD 1's input a one-byte format. Returns the
 * run's result, its fault text in f. */
static int resident_run(int byte_out, int byte_in, char *f, size_t fl)
{
	const uint32_t rcfg3 = (td_fixed_bits(H13_L2_RESULTCFG) & ~(byte_out ? H13_PUT(H13_L2_DMAFMT, 3) : 0u)) |
			       H13_PUT(H13_L2_RESULTTYPE, H13_L2_RESIDENT);
	const uint32_t scfg3 = (td_fixed_bits(H13_L2_SOURCECFG) & ~(byte_in ? H13_PUT(H13_L2_DMAFMT, 3) : 0u)) |
			       H13_PUT(H13_L2_SOURCETYPE, H13_L2_RESIDENT);
	struct bp_pe_spec t[2];
	t[0] = bp_pe_copy(1, 1, 16, 5, 7);
	if (!byte_out) /* no tile destination (a resident result it writes too is refused) */
		t[0].res_l2 = (struct bp_l2){1, 0, 64, 64, 0, 0};
	t[1] = bp_pe_copy(1, 1, 16, 0, 4);
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = (struct bp_l2){1, 0, 64, 64, 0, 0};
	const struct bp_pe_spec *p[2] = {&t[0], &t[1]};
	size_t len = bp_pen(prog, sizeof prog, p, 2);
	CHECK(len > 0);
	CHECK(tpatch_field(prog, len, 0, H13_L2_RESULTCFG, 0, 32, rcfg3) == 0);
	CHECK(tpatch_field(prog, len, 1, H13_L2_SOURCECFG, 0, 32, scfg3) == 0);
	if (byte_out) {
		CHECK(tpatch_field(prog, len, 0, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT_LSB, H13_CHCFG_OUTFMT_W, H13_FMT_INT8) == 0);
		CHECK(tpatch_field(prog, len, 0, H13_DST_FMT, 0, 14, TD_TILE_FMT_INT8) == 0);
	}
	if (byte_in)
		CHECK(tpatch_field(prog, len, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W, H13_FMT_INT8) == 0);
	return submit(prog, len, NULL, f, fl);
}

TEST(model_unpinned, one_byte_formats_through_an_l2_resident_tensor_are_refused)
{
	char f[512];
	CHECKF(resident_run(0, 0, f, sizeof f) == 0, "the control: %s", f);
	CHECKF(resident_run(1, 0, f, sizeof f) != 0 &&
		       strstr(f, "an L2-resident result (L2.ResultCfg.ResultType 3) with a one-byte output format"),
	       "one-byte result: \"%s\"", f);
	CHECKF(resident_run(0, 1, f, sizeof f) != 0 &&
		       strstr(f, "a one-byte read (Common.ChCfg.InFmt) of an L2-resident tensor"),
	       "one-byte read: \"%s\"", f);
}

TEST(model_unpinned, activation_records_in_several_channels_that_differ_are_refused)
{
	static uint8_t p[BP_WEIGHTS_OFF + 3 * ACTLUT_STRIDE];
	size_t len = bp_act_n(p, sizeof p, 16, 2, 4, 3); /* tanh, its record in channels 0, 1, 2 */
	REQUIRE(len > 0);
	char f[512];
	CHECKF(submit(p, len, NULL, f, sizeof f) == 0, "three copies of one record: %s", f);
	/* channel 2's record made -tanh's (its right intercept negated) */
	uint8_t *ic = p + BP_WEIGHTS_OFF + 2 * ACTLUT_STRIDE + 2 * ACTLUT_R_ICPT;
	le_wr16(ic, (uint16_t)(le_rd16(ic) ^ 0x8000u));
	CHECKF(submit(p, len, NULL, f, sizeof f) != 0 &&
		       strstr(f, "activation records in several coefficient channels that differ"),
	       "\"%s\"", f);
}

#endif
