/*
 * Layer normalisation in the engine model, in the two forms Apple's H13 compiler gives it
 * (docs/engine-model.md, "Apple's H13 layer_norm"), end to end (raw TDs built by tools/progdesc's
 * bp_pen, the loader, the control path, the engine driver, the model), host and target:
 *
 *  - "ln_sub" (its compile over the last axis of [1,64,8,8], five TDs): x copied into L2 memory;
 *    the mean of each row (a reduction, FinalScale 1/W); d = x - mean (the mean broadcast along
 *    W); 1/sqrt(mean(d^2) + eps) (a reduction with Planar OpMode 4 and NLMode 2, eps in PreScale's
 *    low half); d times it.
 *  - "ln_fused" (its [1,375,1024] compile over the last axis): the mean of each channel's row by
 *    tile DMA into L2; a reduction of two operands (Common.Cfg.TaskType 6), the mean from L2
 *    broadcast along W and x by the second tile source, of (x - mean)^2, to 1/sqrt(. x FinalScale
 *    + eps) kept one row stride after the means; a normalize (TaskType 4), (x - p0) x p1 with
 *    the pair of each channel read there.
 *  - "ln_hw" (its compile over axes (2, 3) of [1,64,8,8], three TDs): the mean of each plane by
 *    tile DMA, x kept in L2 as it is read, the means kept as one row of C (OutputTranspose); a
 *    reduction of two operands with the mean read from that row (Common.PECfg.Src1Transpose,
 *    broadcast along W and H), to 1/sqrt kept as a row after it; the normalize.
 *
 * The references are numpy's layer norm from its definition (tests/oracle/gen_model.py,
 * layer_norm). Each program's negatives (eps dropped, the square, the 1/sqrt or the normalize's
 * pair replaced) fail the checker or are refused by name.
 */
#include "tests/unit/tsession.h"
#include "fw/regmap/h13.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <string.h>

#define APPLE_EPS 0x00a8u /* fp16 1.0014e-5, Apple's layer_norm's */
#define EPS_QUARTER 0x3400u

static struct bp_l2 l2(uint32_t base, uint32_t cs, uint32_t rs, uint32_t gs)
{
	struct bp_l2 v = {1, base, cs, rs, gs, 0};
	return v;
}

/* fp32 bits of 1/n (n a power of two here: exact) */
static uint32_t f32_recip(unsigned n)
{
	float f = 1.0f / (float)n;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* x [6, 4, 40] over W, Apple's five-TD form: x at 0 (rows of 80 bytes, planes of 320), the means
 * at 0x4000 and 1/sqrt at 0x5000 (channel c of row h at 16 c + 96 h), d at 0x2000. */
#define S_C 6u
#define S_H 4u
#define S_W 40u
#define S_RS 80u
#define S_CS (S_RS * S_H)
static void ln_sub(struct bp_pe_spec t[5])
{
	t[0] = bp_pe_copy(S_C, S_H, S_W, 5, 0);
	t[0].res_l2 = l2(0, S_CS, S_RS, 0);
	for (unsigned i = 1; i <= 3; i += 2) { /* the two reductions: rows (group h, channel c) */
		t[i] = bp_pe_copy(S_C, 1, S_W, 0, 0);
		t[i].groups = S_H;
		t[i].l2_src = BP_L2_READ;
		t[i].src_l2 = l2(i == 1 ? 0 : 0x2000, S_CS, S_RS, S_RS);
		t[i].res_l2 = l2(i == 1 ? 0x4000 : 0x5000, 16, 16, 16 * S_C);
		t[i].ne_pass = 1;
		t[i].reduce = 1;
		t[i].dependent = H13_L2SRC_DEPENDENT_L2;
		t[i].finalscale = f32_recip(S_W); /* (exact: FinalScale's fp32 of 1/40 within 2^-24) */
	}
	t[3].op = H13_PE_OP_SQ;
	t[3].nlmode = H13_PE_NL_RSQRT;
	t[3].eps = APPLE_EPS;
	for (unsigned i = 2; i <= 4; i += 2) { /* d = x - mean, then d x (1/sqrt) */
		t[i] = bp_pe_copy(S_C, S_H, S_W, 0, i == 2 ? 0 : 4);
		t[i].l2_src = BP_L2_READ;
		t[i].src_l2 = l2(i == 2 ? 0 : 0x2000, S_CS, S_RS, 0);
		t[i].src2_l2 = l2(i == 2 ? 0x4000 : 0x5000, 16, 16 * S_C, 0);
		t[i].pecfg = H13_PUT(H13_CPECFG_SRC2BCAST, H13_BCAST_W);
		t[i].dependent = H13_L2SRC_DEPENDENT_L2;
	}
	t[2].secsrc = H13_PE_SECSRC_SUB;
	t[2].res_l2 = l2(0x2000, S_CS, S_RS, 0);
	t[4].secsrc = H13_PE_SECSRC_TILE1;
	t[4].op = H13_PE_OP_MUL;
}

/* x [24, 1, 64] over W, Apple's three-stage form: the means at 0x1000 + 16 c, 1/sqrt one row
 * stride (0x400) after them. */
#define F_C 24u
#define F_W 64u
#define F_PAIR 0x1000u
#define F_RS 0x400u
static void ln_fused(struct bp_pe_spec t[3])
{
	t[0] = bp_pe_copy(F_C, 1, F_W, 5, 0);
	t[0].reduce = 1;
	t[0].ne_pass = 1;
	t[0].res_l2 = l2(F_PAIR, 16, 16, 0);
	t[0].finalscale = f32_recip(F_W);
	t[1] = bp_pe_copy(F_C, 1, F_W, 0, 0);
	t[1].tasktype = H13_TASK_REDUCE2;
	t[1].ne_pass = 1;
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2(F_PAIR, 16, 16, 0);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W);
	t[1].secsrc = H13_PE_SECSRC_TILE1; /* x by the second tile source */
	t[1].bar_in1 = 5;
	t[1].firstsrc = 1;
	t[1].op = H13_PE_OP_SQ;
	t[1].nlmode = H13_PE_NL_RSQRT;
	t[1].eps = EPS_QUARTER;
	t[1].finalscale = f32_recip(F_W);
	t[1].res_l2 = l2(F_PAIR + F_RS, 16, 16, 0);
	t[2] = bp_pe_copy(F_C, 1, F_W, 5, 4);
	t[2].tasktype = H13_TASK_NORMALIZE;
	t[2].ne_pass = 1;
	t[2].secsrc = H13_PE_SECSRC_SUB;
	t[2].src2_l2 = l2(F_PAIR, 16, F_RS, 0);
}

/* x [16, 8, 8] over C, H and W, Apple's three-TD form: TD 0 reads x as 1 x 16 x 8 x 8 (C x D x H x
 * W: a depth of 16, DepthStride its plane), keeps it in L2 at 0 as it reduces it (SourceType 1;
 * rows of 16 bytes, depths of 128) to its mean at 0x4000; TD 1 reduces (x - mean)^2 over the
 * same 1024 values, the mean broadcast along W, H and D, to 1/sqrt at 0x5000; TD 2 normalizes
 * x [16, 8, 8] with that pair, broadcast along C. */
#define C_C 16u
#define C_HW 8u
#define C_MEAN 0x4000u
#define C_RS 0x1000u
static struct bp_l2 kept_x(void)
{
	struct bp_l2 v = {1, 0, 0x800, 16, 0, 128};
	return v;
}

static void ln_chw(struct bp_pe_spec t[3])
{
	for (unsigned i = 0; i < 2; i++) {
		t[i] = bp_pe_copy(1, C_HW, C_HW, i ? 0 : 5, 0);
		t[i].depth = C_C;
		t[i].ne_pass = 1;
		t[i].finalscale = f32_recip(C_C * C_HW * C_HW);
		t[i].res_l2 = l2(C_MEAN + i * C_RS, 16, 16, 0);
	}
	t[0].reduce = 1;
	t[0].src_depth = 512; /* (the input's plane: rows of 64 bytes, 8 a plane) */
	t[0].l2_src = BP_L2_KEEP;
	t[0].src_l2 = kept_x();
	t[1].tasktype = H13_TASK_REDUCE2;
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2(C_MEAN, 16, 16, 0);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W | H13_BCAST_H | H13_BCAST_D);
	t[1].secsrc = H13_PE_SECSRC_TILE1;
	t[1].src2_l2 = kept_x();
	t[1].firstsrc = 1;
	t[1].op = H13_PE_OP_SQ;
	t[1].nlmode = H13_PE_NL_RSQRT;
	t[1].eps = APPLE_EPS;
	t[2] = bp_pe_copy(C_C, C_HW, C_HW, 5, 4);
	t[2].tasktype = H13_TASK_NORMALIZE;
	t[2].ne_pass = 1;
	t[2].secsrc = H13_PE_SECSRC_SUB;
	t[2].src2_l2 = l2(C_MEAN, 16, C_RS, 0);
	t[2].pecfg = H13_PUT(H13_CPECFG_SRC2BCAST, H13_BCAST_C);
}

/* x [C, H, W] over H and W (W 8 or 16), Apple's three-TD form (its compile of layer_norm over axes
 * (2, 3) of [1,64,8,8]): TD 0 reduces each plane of x by tile DMA to its mean, keeping x in L2 at
 * 0x1000 as it reads it (channel c of row h at 0x1000 + c W2 + h C W2, W2 = 2W) and the means as
 * one row of C (PECfg.OutputTranspose: channel c at 0 + 2c); TD 1 reduces (x - mean)^2 per plane,
 * the mean read from that row (Src1Transpose: element c at base + 2c) and broadcast along W and H
 * (Common.PECfg 0x503, Apple's word), x from L2, to 1/sqrt kept as one row 0x80 after the means;
 * TD 2 normalizes x from L2 with the pair read the same way (Src2Transpose). */
#define HW_X 0x1000u
#define HW_ROW 0x80u
static void ln_hw(struct bp_pe_spec t[3], unsigned c, unsigned h, unsigned w, uint16_t eps)
{
	const struct bp_l2 x = l2(HW_X, 2 * w, 2 * w * c, 0);
	const uint32_t otr = H13_PUT(H13_CPECFG_OUTTRANSPOSE, 1u);
	for (unsigned i = 0; i < 2; i++) {
		t[i] = bp_pe_copy(c, h, w, i ? 0 : 5, 0);
		t[i].ne_pass = 1;
		t[i].finalscale = f32_recip(h * w);
		t[i].res_l2 = l2(i * HW_ROW, HW_ROW, HW_ROW, 0);
		t[i].pecfg = otr;
	}
	t[0].reduce = 1;
	t[0].l2_src = BP_L2_KEEP;
	t[0].src_l2 = x;
	t[1].tasktype = H13_TASK_REDUCE2;
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2(0, HW_ROW, HW_ROW, 0);
	t[1].pecfg |= H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W | H13_BCAST_H) |
		      H13_PUT(H13_CPECFG_SRC1TRANSPOSE, 1u);
	t[1].secsrc = H13_PE_SECSRC_TILE1;
	t[1].src2_l2 = x;
	t[1].firstsrc = 1;
	t[1].op = H13_PE_OP_SQ;
	t[1].nlmode = H13_PE_NL_RSQRT;
	t[1].eps = eps;
	t[2] = bp_pe_copy(c, h, w, 0, 4);
	t[2].tasktype = H13_TASK_NORMALIZE;
	t[2].ne_pass = 1;
	t[2].l2_src = BP_L2_READ;
	t[2].src_l2 = x;
	t[2].secsrc = H13_PE_SECSRC_SUB;
	t[2].src2_l2 = l2(0, HW_ROW, HW_ROW, 0);
	t[2].pecfg = H13_PUT(H13_CPECFG_SRC2TRANSPOSE, 1u);
}

static uint8_t prog[8 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];

static int run(const char *orc, const struct bp_pe_spec *t, unsigned n, int quiet, struct orc_run *r,
	       char *fault, size_t fault_len)
{
	const struct bp_pe_spec *p[8];
	for (unsigned i = 0; i < n; i++)
		p[i] = &t[i];
	size_t len = bp_pen(prog, sizeof prog, p, n);
	CHECK(len > 0);
	return trun_orc(orc, prog, len, quiet, r, fault, fault_len);
}

static void expect_within(const char *orc, const struct bp_pe_spec *t, unsigned n)
{
	struct orc_run r;
	char fault[256] = "";
	CHECKF(run(orc, t, n, 0, &r, fault, sizeof fault) == 0, "%s: %s", orc, fault);
	CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "%s: %lu of %lu outside", orc,
	       (unsigned long)r.bad, (unsigned long)r.checked);
	printf("# %s: %lu values, worst error %u%% of its tolerance\n", orc, (unsigned long)r.checked,
	       (unsigned)(r.worst * 100.0));
}

#if !defined(ANEFW_TARGET) /* the negatives on the host (the same code runs on the target) */
static void expect_refused(const char *orc, const struct bp_pe_spec *t, unsigned n, const char *want)
{
	struct orc_run r;
	char fault[256] = "";
	CHECK(run(orc, t, n, 1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, want) != NULL, "%s: fault \"%s\", want \"%s\"", orc, fault, want);
}

/* The run completes and more than 1/div of its outputs fail the checker. */
static void expect_checker_fails(const char *orc, const struct bp_pe_spec *t, unsigned n, unsigned div,
				 const char *what)
{
	struct orc_run r;
	CHECK(run(orc, t, n, 1, &r, NULL, 0) == 0);
	CHECKF(r.bad > r.checked / div, "%s: %lu of %lu outside", what, (unsigned long)r.bad,
	       (unsigned long)r.checked);
}
#endif

TEST(model_norm, layer_norm_by_mean_difference_and_rsqrt_reductions)
{
	struct bp_pe_spec t[5];
	ln_sub(t);
	expect_within("ln_sub", t, 5);
#if !defined(ANEFW_TARGET)
	/* (the sum of d, not of its squares, under the 1/sqrt: refused by name since 2026-12-06,
	 * rsqrt_of_a_plain_sum_is_refused below; it completed before and failed the checker) */
	/* the mean of squares kept as it is (NLMode 0: the eps must go too) */
	ln_sub(t);
	t[3].nlmode = 0;
	t[3].eps = 0;
	expect_checker_fails("ln_sub", t, 5, 2, "variance for 1/sqrt");
	/* (with the eps: the mean of squares + eps, as Apple's rms_norm chain keeps it) */
	ln_sub(t);
	t[3].nlmode = 0;
	expect_checker_fails("ln_sub", t, 5, 2, "variance + eps for 1/sqrt");
	/* NLMode 3, squares under NLMode 1, squares with the maximum: refused by name */
	ln_sub(t);
	t[3].nlmode = 3;
	expect_refused("ln_sub", t, 5, "td 3, unit Planar, Planar.Cfg.NLMode = 0x3: unmodelled-field: Planar.Cfg.NLMode on a reduction: only 1");
	ln_sub(t);
	t[3].nlmode = H13_PE_NL_RECIP;
	t[3].eps = 0;
	expect_refused("ln_sub", t, 5, "Planar.Cfg.OpMode 4 (squares) with NLMode 1");
	ln_sub(t);
	t[3].nlmode = 0;
	t[3].eps = 0;
	t[3].pool = H13_PE_POOL_MAX;
	expect_refused("ln_sub", t, 5, "Planar.Cfg.PoolMode with OpMode 4 (squares)");
	/* another PE operation on a reduction */
	ln_sub(t);
	t[3].op = H13_PE_OP_MUL;
	expect_refused("ln_sub", t, 5, "Planar.Cfg.OpMode on a reduction other than 0 and 4");
#endif
}

/* NLMode 2 (1/sqrt) on a reduction of a plain sum (OpMode 0): every real 1/sqrt reduction sums
 * squares (Apple's layer_norm, the GPT-2 listings), none a plain sum. Review (2026-12-06): ln_sub
 * with its variance's squares dropped completed with 1/sqrt(mean(d) + eps), a reading no program
 * pins (the checker failed it); refused by name now. The control, ln_sub itself, computes. */
TEST(model_norm, rsqrt_of_a_plain_sum_is_refused)
{
	struct bp_pe_spec t[5];
	ln_sub(t);
	expect_within("ln_sub", t, 5);
#if !defined(ANEFW_TARGET)
	ln_sub(t);
	t[3].op = H13_PE_OP_ADD;
	expect_refused("ln_sub", t, 5, "td 3, unit Planar, Planar.Cfg.NLMode = 0x2: unmodelled-combination: "
				       "Planar.Cfg.NLMode 2 (1/sqrt) on a reduction other than of squares");
#endif
}

TEST(model_norm, layer_norm_by_a_reduction_of_two_operands_and_a_normalize)
{
	struct bp_pe_spec t[3];
	ln_fused(t);
	expect_within("ln_fused", t, 3);
#if !defined(ANEFW_TARGET)
	/* eps (0.25 here) dropped */
	ln_fused(t);
	t[1].eps = 0;
	expect_checker_fails("ln_fused", t, 3, 4, "eps dropped");
	/* the normalize as a plain subtraction (TaskType 3): x - mean */
	ln_fused(t);
	t[2].tasktype = 3;
	t[2].pecfg = H13_PUT(H13_CPECFG_SRC2BCAST, H13_BCAST_W);
	expect_checker_fails("ln_fused", t, 3, 2, "x - mean");
	/* the pair one row further on: p1 read where nothing was written */
	ln_fused(t);
	t[2].src2_l2.rs = 2 * F_RS;
	expect_refused("ln_fused", t, 3, "a normalize's pair reads L2 memory no TD of this submission wrote");
	/* the variance's other forms: one operand (TaskType 5 with SecSrc), a sum, no FirstSrc */
	ln_fused(t);
	t[1].op = H13_PE_OP_ADD;
	expect_refused("ln_fused", t, 3, "Common.Cfg.TaskType 6 (a reduction of two operands) other than "
					 "OpMode 4, FirstSrc 1 and SecSrc 2");
	ln_fused(t);
	t[1].firstsrc = 0;
	expect_refused("ln_fused", t, 3, "Common.Cfg.TaskType 6 (a reduction of two operands) other than");
	ln_fused(t);
	t[1].tasktype = H13_TASK_REDUCE;
	expect_refused("ln_fused", t, 3, "a second source on a reduction of TaskType 5 not modelled");
	/* the second operand broadcast */
	ln_fused(t);
	t[1].pecfg |= H13_PUT(H13_CPECFG_SRC2BCAST, H13_BCAST_W);
	expect_refused("ln_fused", t, 3, "a reduction of two operands with Common.PECfg other than");
	/* a normalize with another PE operation, or a scale */
	ln_fused(t);
	t[2].op = H13_PE_OP_MUL;
	expect_refused("ln_fused", t, 3, "Common.Cfg.TaskType 4 (a normalize) with Planar.Cfg other than "
					 "SecSrc 3 or 2 alone");
	ln_fused(t);
	t[2].finalscale = 0x40000000u;
	expect_refused("ln_fused", t, 3, "Common.Cfg.TaskType 4 (a normalize) with Planar.PreScale, "
					 "BiasScale or FinalScale other than identity");
	/* a normalize whose pair comes by the tile DMA */
	ln_fused(t);
	t[2].src2_l2.on = 0;
	t[2].bar_in1 = 5;
	expect_refused("ln_fused", t, 3, "Common.Cfg.TaskType 4 (a normalize) whose pair comes by the tile "
					 "DMA");
#endif
}

/* A normalize after an NE that computes: every real normalize has the NE a pass-through, and
 * whether a computing NE's result is the a of (a - p0) x p1 is not pinned. Review (2026-12-06):
 * the unit kernel with PostScale 2 before ln_fused's normalize completed with (2x - mean) / sigma
 * (the checker failed it); now refused by name. Its control, ln_fused itself, computes above. */
TEST(model_norm, a_normalize_after_a_computing_ne_is_refused)
{
	struct bp_pe_spec t[3];
	ln_fused(t);
	expect_within("ln_fused", t, 3);
#if !defined(ANEFW_TARGET)
	ln_fused(t);
	t[2].ne_pass = 0;
	t[2].ne_unit = 1; /* x 1 + AccBias 0, x PostScale (below) */
	t[2].nx = 1;
	t[2].xreg[0] = H13_NE_POSTSCALE;
	t[2].xval[0] = H13_PUT(H13_POSTSCALE, 0x4000u); /* 2.0 */
	expect_refused("ln_fused", t, 3, "td 2, unit NE, NE.MACCfg = 0x100008: unmodelled-combination: "
					 "Common.Cfg.TaskType 4 (a normalize) after the NE not modelled");
	/* the unit kernel's identity (PostScale 1) too: no real normalize has it */
	t[2].nx = 0;
	expect_refused("ln_fused", t, 3, "Common.Cfg.TaskType 4 (a normalize) after the NE not modelled");
#endif
}

TEST(model_norm, layer_norm_over_every_axis_read_with_a_depth)
{
	struct bp_pe_spec t[3];
	ln_chw(t);
	expect_within("ln_chw", t, 3);
#if !defined(ANEFW_TARGET)
	/* the depth stride left 0: the first channel read 16 times (its mean, its spread) */
	ln_chw(t);
	t[0].src_depth = 0;
	expect_checker_fails("ln_chw", t, 3, 4, "DepthStride 0");
	/* a depth of 8: half of x in the statistics */
	ln_chw(t);
	t[0].depth = t[1].depth = 8;
	t[0].finalscale = t[1].finalscale = f32_recip(C_C * C_HW * C_HW / 2);
	expect_checker_fails("ln_chw", t, 3, 4, "half the depths");
	/* the mean not broadcast along D: read where nothing was written */
	ln_chw(t);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W | H13_BCAST_H);
	expect_refused("ln_chw", t, 3, "a reduction reads L2 memory no TD of this submission wrote");
	/* a depth on a TD that is no reduction and reads L2 memory (elementwise TDs by the tile DMA
	 * walk theirs: model_pe.an_elementwise_td_walks_its_depth), InDepth other than OutDepth, 0 */
	ln_chw(t);
	t[2].depth = 2;
	t[2].dst_depth = C_C * C_HW * 64u; /* (its depths apart in the destination) */
	expect_refused("ln_chw", t, 3, "td 2, unit Common, Common.InDepth = 0x2: unmodelled-combination: "
				       "Common.InDepth above 1 on a TD that is neither a reduction nor elementwise");
	ln_chw(t);
	t[0].depth = 0x8000;
	expect_refused("ln_chw", t, 3, "a reduction's depth (Common.InDepth) 0, above 32767");
	/* x kept over its own result, or kept with overlapping strides */
	ln_chw(t);
	t[0].res_l2.base = 0x100;
	expect_refused("ln_chw", t, 3, "a reduction's result in L2 memory over the rows it reads");
	ln_chw(t);
	t[0].src_l2.ds = 64;
	expect_refused("ln_chw", t, 3, "a source kept in L2 memory (SourceType 1) whose strides overlap");
	/* a reduction of 2^45 values from L2 memory, its strides 0 (its span: one row; no DMA
	 * move for the watchdog to count): refused, not run for hours, by the model's compute
	 * limit (fw/td td_ops counts the values read); of 2^30 (inside the host's limit), by the
	 * reduction's own bound */
	struct bp_pe_spec z = bp_pe_copy(1, 0x7fff, 0x7fff, 0, 0);
	z.depth = 0x7fff;
	z.reduce = 1;
	z.ne_pass = 1;
	z.l2_src = BP_L2_READ;
	z.src_l2 = l2(0, 0, 0, 0);
	z.res_l2 = l2(0x100000, 16, 16, 0);
	expect_refused("ln_chw", &z, 1, "beyond-model-capacity: the task's operations (fw/td td_ops) past the model's compute limit");
	z.depth = 1;
	expect_refused("ln_chw", &z, 1, "a reduction of more than 2^28 values");
#endif
}

TEST(model_norm, layer_norm_over_h_and_w_reads_its_mean_transposed)
{
	struct bp_pe_spec t[3];
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	expect_within("ln_hw", t, 3);
	ln_hw(t, 40, 3, 16, EPS_QUARTER);
	expect_within("ln_hw16", t, 3);
	/* H 1 (Apple's layer_norm over the last axis of [1,64,256], Common.PECfg 0x501): the mean
	 * broadcast along W alone, or along W and H, reads the same row */
	ln_hw(t, 32, 1, 64, APPLE_EPS);
	expect_within("ln_hw1", t, 3);
	t[1].pecfg &= ~H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_H);
	expect_within("ln_hw1", t, 3);
#if !defined(ANEFW_TARGET)
	/* Src1Transpose dropped: channel c's mean read at c x ChannelStride (0x80), over TD 1's own
	 * results: refused */
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	t[1].pecfg &= ~H13_PUT(H13_CPECFG_SRC1TRANSPOSE, 1u);
	expect_refused("ln_hw", t, 3, "a reduction's result in L2 memory over the rows it reads");
	/* ... and with ChannelStride 0 (which the transposed reading does not use): every channel's
	 * variance about channel 0's mean, which the checker catches */
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	t[1].src_l2.cs = 0;
	expect_within("ln_hw", t, 3); /* (transposed: the stride is not read) */
	t[1].pecfg &= ~H13_PUT(H13_CPECFG_SRC1TRANSPOSE, 1u);
	expect_checker_fails("ln_hw", t, 3, 2, "Src1Transpose dropped: channel 0's mean for every channel");
	/* the wrong axes: statistics over W alone (FinalScale 1/W on a row of W: the mean and the
	 * variance of each row) is not what this program can say; over H x W with FinalScale 1/W,
	 * the mean H times too large: the checker catches it */
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	t[0].finalscale = t[1].finalscale = f32_recip(8);
	expect_checker_fails("ln_hw", t, 3, 2, "FinalScale 1/W: the statistics of W alone");
	/* Src1Transpose where the operand is not [C,1,1] (broadcast along W alone), with another
	 * broadcast (C as well), or on the products: refused by name */
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	t[1].pecfg &= ~H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_H);
	expect_refused("ln_hw", t, 3, "Common.PECfg.Src1Transpose = 0x1: unmodelled-field: Common.PECfg.Src1Transpose "
				       "on a reduction of two operands other than");
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	t[1].pecfg |= H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_C);
	expect_refused("ln_hw", t, 3, "Common.PECfg.Src1Transpose on a reduction of two operands other than");
	/* H 1, broadcast along H alone (W, 64 wide, not broadcast): refused */
	ln_hw(t, 32, 1, 64, APPLE_EPS);
	t[1].pecfg &= ~H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W);
	expect_refused("ln_hw1", t, 3, "Common.PECfg.Src1Transpose on a reduction of two operands other than");
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	t[1].op = H13_PE_OP_MUL;
	t[1].firstsrc = 0;
	t[1].nlmode = 0;
	t[1].eps = 0;
	expect_refused("ln_hw", t, 3, "Common.PECfg.Src1Transpose on a reduction of two operands other than");
	/* Src2Transpose on the reduction (x is no [C,1,1]): refused as before */
	ln_hw(t, 24, 6, 8, APPLE_EPS);
	t[1].pecfg |= H13_PUT(H13_CPECFG_SRC2TRANSPOSE, 1u);
	expect_refused("ln_hw", t, 3, "a reduction of two operands with Common.PECfg other than");
#endif
}

/* x [C, H, W] + k[c], Apple's H13 add of a constant from a file ([1,512] + a BLOBFILE constant,
 * binary_add_c512_constant_blob; its sub is the same with the constant negated): TD 0 copies a
 * [1, 2, C] tensor, row 0 the constant and row 1 ones, into L2 memory at 0 (rows of AC_ROW bytes);
 * TD 1 is a normalize (TaskType 4) with SecSrc 2, x by tile DMA, its pair read as one row of C
 * (Src2Transpose) and p1 one row stride after p0: (x + k[c]) x 1. */
#define AC_ROW 0x80u
static void add_const(struct bp_pe_spec t[2], unsigned c, unsigned h, unsigned w)
{
	t[0] = bp_pe_copy(1, 2, c, 6, 0);
	t[0].res_l2 = l2(0, 2 * AC_ROW, AC_ROW, 0);
	t[1] = bp_pe_copy(c, h, w, 5, 4);
	t[1].tasktype = H13_TASK_NORMALIZE;
	t[1].ne_pass = 1;
	t[1].secsrc = H13_PE_SECSRC_TILE1;
	t[1].src2_l2 = l2(0, AC_ROW, AC_ROW, 0);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC2TRANSPOSE, 1u);
}

TEST(model_norm, a_normalize_that_adds_a_constant_from_l2)
{
	struct bp_pe_spec t[2];
	add_const(t, 48, 1, 1);
	expect_within("add_const", t, 2);
	add_const(t, 16, 3, 8);
	expect_within("add_const_hw", t, 2);
#if !defined(ANEFW_TARGET)
	/* SecSrc 3, the layer_norm's normalize: x - k, which the checker catches */
	add_const(t, 48, 1, 1);
	t[1].secsrc = H13_PE_SECSRC_SUB;
	expect_checker_fails("add_const", t, 2, 2, "SecSrc 3: x - k");
	/* the constant's row of ones not read (the pair one row further on): refused by name */
	add_const(t, 48, 1, 1);
	t[1].src2_l2.rs = 2 * AC_ROW;
	expect_refused("add_const", t, 2, "a normalize's pair reads L2 memory no TD of this submission wrote");
	/* SecSrc 2 with a product (OpMode 1): refused */
	add_const(t, 48, 1, 1);
	t[1].op = H13_PE_OP_MUL;
	expect_refused("add_const", t, 2, "Common.Cfg.TaskType 4 (a normalize) with Planar.Cfg other than "
					  "SecSrc 3 or 2 alone");
#endif
}
