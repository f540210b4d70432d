/*
 * Row reductions into L2 memory: the one reading of softmax.bin's reductions (td.h, td_kept_of;
 * docs/engine-model.md, "Reductions into L2 memory"), which Apple's macOS 26 softmax shares.
 *
 * Evidence: ../shared/fixtures/kernels/activation/softmax.bin, five TDs. TDs 0 and 3 are PE TDs
 * with no tile destination and L2.ResultCfg.ResultType 0, 2560 groups of one row of 1600, a 1x1
 * window, OutDim the input's, identity scales; they differ in Planar.Cfg alone: TD 0 PoolMode 2
 * (the maximum), TD 3 NLMode 1 (the sum, kept as its reciprocal). Each leaves one value a row in
 * L2 at ResultBase, group g at g x GroupStride (16 bytes); TD 1 reads the maximum back as its
 * second operand (Source2Base 0, a row h at h x 16 bytes, broadcast along W: Common.PECfg 0x10)
 * and subtracts it (SecSrc 3), TD 4 reads the 1/sum as its first (SourceType 0, PECfg 1) and
 * multiplies. Apple's H13 softmax over rows of 64 does the same over 64 channels of one row each
 * (its channel stride 16 bytes), reading its rows from L2 memory, with the NE as a pass-through.
 * The users are ordinary TDs with operands in L2 memory (l2mem.c); what a reduction itself does
 * beyond these programs is refused by name rather than guessed.
 *
 * Apple's H13 layer_norm adds three readings (docs/engine-model.md, "Apple's H13 layer_norm"):
 * Planar OpMode 4 squares each element before the sum; NLMode 2 leaves 1/sqrt(sum x FinalScale +
 * eps), eps in PreScale's low half; and TaskType 6 reduces two operands, each element (b - a)^2,
 * a the first from L2 memory (the mean, broadcast along W), b the second (Planar.Cfg 0x92010 on
 * every one: OpMode 4, FirstSrc 1, SecSrc 2).
 *
 * The macOS compiler's GPT-2 training kernels (allbilly/ane gpt2/training, register listings) add
 * one more under TaskType 6: OpMode 1 (multiply), FirstSrc 0, SecSrc 2, each element a x b, the sum
 * of the products (softmax backward's reduce_sum(dy y), TD 0, both operands by tile DMA;
 * layer_norm backward's mean(dy' x^) over C with FinalScale 1/768, TD 6 of backward_dx, and its
 * sum over the rows of x^ dy, TD 6 of backward_dgamma, with PECfg.OutputTranspose; both operands
 * from L2 memory). Nothing else is read under TaskType 6.
 */
#include "fw/common/fp16.h"
#include "fw/td/td.h"

#include <string.h>

#define GET(a) (r->get(r->ctx, (a)))

const char *td_kept_kind_name(unsigned kind)
{
	return kind == TD_KEPT_MAX ? "max" : kind == TD_KEPT_MIN ? "min" : kind == TD_KEPT_RSUM ? "1/sum"
	       : kind == TD_KEPT_SUM ? "sum"
	       : kind == TD_KEPT_RSQRT ? "1/sqrt(sum x FinalScale + eps)" : "nothing";
}

#define refuse(k, ...) td_refuse(&(k)->no, __VA_ARGS__)
#define REFUSE(k, comb, reg, F, why) TD_REFUSE(&(k)->no, (comb), (reg), F, (why))
#define REFUSE_NOREG(k, comb, why) td_refuse(&(k)->no, (comb), TD_KEPT_NO_REG, 0, 0, (why))

const char td_kept_no_source_why[] = "a reduction with no bound tile source (RBase0) not modelled";

/* Planar.Cfg fields a reduction must leave 0 (beside the ones it is read by). */
static void cfg_zero(struct td_kept *k, uint32_t cfg, int pool, int nl, const char *what)
{
	const uint32_t known = H13_PUT(H13_PECFG_POOLMODE, ~0u) | H13_PUT(H13_PECFG_OPMODE, ~0u) |
			       H13_PUT(H13_PECFG_RELUEN, ~0u) | H13_PUT(H13_PECFG_CONDITION, ~0u) |
			       H13_PUT(H13_PECFG_NLMODE, ~0u) | H13_PUT(H13_PECFG_FIRSTSRC, ~0u) |
			       H13_PUT(H13_PECFG_SECSRC, ~0u);
	if (cfg & ~known)
		refuse(k, 0, H13_PLANAR_CFG, 0, 32, what);
	if (pool && H13_GET(cfg, H13_PECFG_POOLMODE))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_POOLMODE, what);
	if (nl && H13_GET(cfg, H13_PECFG_NLMODE))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_NLMODE, what);
}

/* A PE TD that reduces each plane (g, c) of its input to one value in L2 memory: softmax.bin's TDs
 * 0 and 3 (planes of one row), Apple's softmax's TDs 1 and 4; with two operands (TaskType 6:
 * two), Apple's layer_norm's variance. src1: a second tile source bound (RBase1). */
static void makes(const struct td_regs *r, int src0, int src1, int dst, int two, struct td_kept *k)
{
	uint32_t cfg = GET(H13_PLANAR_CFG), in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM);
	uint32_t ch = GET(H13_COMMON_CHCFG), bs = GET(H13_PLANAR_BIASSCALE);
	unsigned pool = H13_GET(cfg, H13_PECFG_POOLMODE), nl = H13_GET(cfg, H13_PECFG_NLMODE);
	k->role = TD_KEPT_MAKES;
	if (GET(H13_NE_MACCFG) &&
	    !td_ne_passthrough(GET(H13_NE_MACCFG), GET(H13_NE_POSTSCALE), td_coeff_enabled(r)))
		refuse(k, 1, H13_NE_MACCFG, 0, 32,
		       "a reduction after the NE not modelled (softmax.bin's have the NE off, Apple's a "
		       "pass-through)");
	cfg_zero(k, cfg, 0, 0, "Planar.Cfg on a reduction: only PoolMode, OpMode, NLMode, FirstSrc and "
			       "SecSrc are read (softmax.bin's reductions leave the rest 0)");
	/* OpMode 4 squares each element before the sum (Apple's layer_norm: the mean of squares);
	 * with two operands it is the only form seen: (b - a)^2, FirstSrc 1 and SecSrc 2 (the PE's
	 * (a + b)^2 with a negated: which of the two is negated does not show under the square) */
	unsigned op = H13_GET(cfg, H13_PECFG_OPMODE);
	k->square = op == H13_PE_OP_SQ;
	k->two = (uint8_t)two;
	/* with two operands, OpMode 1 multiplies them (the sum of products: the macOS GPT-2 backward
	 * kernels) */
	k->product = (uint8_t)(two && op == H13_PE_OP_MUL);
	if (op != H13_PE_OP_ADD && op != H13_PE_OP_SQ && !k->product)
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_OPMODE,
		       "Planar.Cfg.OpMode on a reduction other than 0 and 4 (each element squared: Apple's "
		       "layer_norm), or 1 with two operands (their products), not modelled");
	/* the two forms TaskType 6 is read in: the squared difference (FirstSrc 1) and the products
	 * (FirstSrc 0), each with SecSrc 2 */
	const unsigned first = H13_GET(cfg, H13_PECFG_FIRSTSRC);
	const int sec2 = H13_GET(cfg, H13_PECFG_SECSRC) == H13_PE_SECSRC_TILE1;
	if (two && !(sec2 && ((op == H13_PE_OP_SQ && first == 1u) || (k->product && first == 0u))))
		refuse(k, 0, H13_PLANAR_CFG, 0, 32,
		       "Common.Cfg.TaskType 6 (a reduction of two operands) other than OpMode 4, FirstSrc 1 "
		       "and SecSrc 2 (the squared difference of Apple's layer_norm) or OpMode 1, FirstSrc 0 "
		       "and SecSrc 2 (the products of the macOS GPT-2 backward kernels) not modelled");
	if (!two && H13_GET(cfg, H13_PECFG_SECSRC))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_SECSRC,
		       "a second source on a reduction of TaskType 5 not modelled (two operands: TaskType 6)");
	if (!two && H13_GET(cfg, H13_PECFG_FIRSTSRC))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_FIRSTSRC,
		       "Planar.Cfg.FirstSrc on a reduction of one operand not modelled");
	/* Condition 1 (|.| on elementwise TDs) on the maximum: checked with the kind, below */
	const unsigned cond = H13_GET(cfg, H13_PECFG_CONDITION);
	if (H13_GET(cfg, H13_PECFG_RELUEN))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_RELUEN,
		       "Planar.Cfg.ReluEn on a reduction not modelled");
	if ((nl != H13_PE_NL_NONE && nl != H13_PE_NL_RECIP && nl != H13_PE_NL_RSQRT) ||
	    (nl == H13_PE_NL_RSQRT && pool != H13_PE_POOL_NONE))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_NLMODE,
		       "Planar.Cfg.NLMode on a reduction: only 1 (keep the reciprocal of the sum, softmax.bin "
		       "TD 3), 2 with PoolMode 0 (1/sqrt, Apple's layer_norm) and 0 are pinned");
	else if (k->square && pool == H13_PE_POOL_NONE && nl == H13_PE_NL_RECIP)
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_OPMODE,
		       "Planar.Cfg.OpMode 4 (squares) with NLMode 1 on a reduction not modelled (squares "
		       "are seen summed and under NLMode 2)");
	else if (pool == H13_PE_POOL_NONE && nl == H13_PE_NL_RSQRT && !k->square && !k->product)
		REFUSE(k, 1, H13_PLANAR_CFG, H13_PECFG_NLMODE,
		       "Planar.Cfg.NLMode 2 (1/sqrt) on a reduction other than of squares (OpMode 4: Apple's "
		       "layer_norm, each element or each difference squared) not modelled (no program takes "
		       "1/sqrt of a plain sum)");
	else if (pool == H13_PE_POOL_NONE && nl == H13_PE_NL_RSQRT)
		k->kind = TD_KEPT_RSQRT; /* Apple's layer_norm: 1/sqrt(mean of squares + eps) */
	else if (k->square && pool != H13_PE_POOL_NONE)
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_POOLMODE,
		       "Planar.Cfg.PoolMode with OpMode 4 (squares) on a reduction not modelled");
	else if (pool == H13_PE_POOL_MAX && nl == H13_PE_NL_NONE)
		k->kind = TD_KEPT_MAX;
	else if (pool == H13_PE_POOL_MIN && nl == H13_PE_NL_NONE)
		k->kind = TD_KEPT_MIN; /* Apple's reduce_min (the same TD as its reduce_max, PoolMode 3) */
	else if (pool == H13_PE_POOL_NONE && nl == H13_PE_NL_RECIP)
		k->kind = TD_KEPT_RSUM;
	else if (pool == H13_PE_POOL_NONE && nl == H13_PE_NL_NONE)
		k->kind = TD_KEPT_SUM; /* Apple's reduce_sum and reduce_mean over H and W */
	else
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_POOLMODE,
		       "Planar.Cfg.PoolMode on a reduction: only 2 and 3 with NLMode 0 (the maximum and the "
		       "minimum), and 0 with NLMode 0 (the sum), 1 (the reciprocal of the sum) or 2 (1/sqrt) "
		       "are pinned");
	if (cond && !(cond == H13_PE_COND_ABS && k->kind == TD_KEPT_MAX && !k->square && !two))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_CONDITION,
		       "Planar.Cfg.Condition on a reduction other than 1 (|.|) on the maximum (Apple's "
		       "max of |x|) not modelled");
	k->abs = cond == H13_PE_COND_ABS;
	if (two && k->kind != TD_KEPT_SUM && (k->kind != TD_KEPT_RSQRT || k->product))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_NLMODE,
		       "a reduction of two operands (TaskType 6) to other than a sum or 1/sqrt, or of their "
		       "products to other than a sum, not modelled");
	/* OutputTranspose alone (Apple's reductions over C): the values of a group's planes in one row;
	 * with two operands the first may be broadcast along W, H or C (the mean of each plane, read
	 * back for every element: Apple's layer_norm, Src1Broadcast W). Src1Transpose only on the
	 * squared difference with the first operand broadcast along W and H (W alone where H is 1), a [C,1,1] mean
	 * kept as one row of C (element c at Source base + 2c, as the normalize's Src2Transpose):
	 * Apple's layer_norm over H and W (Common.PECfg 0x503; docs/engine-model.md, "Apple's H13
	 * layer_norm over H and W"), which computes layer norm with that reading alone */
	uint32_t pc = GET(H13_COMMON_PECFG);
	k->out_transpose = (uint8_t)H13_GET(pc, H13_CPECFG_OUTTRANSPOSE);
	uint32_t allowed = H13_PUT(H13_CPECFG_OUTTRANSPOSE, 1u);
	if (two && !k->product)
		allowed |= H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W | H13_BCAST_H | H13_BCAST_D | H13_BCAST_C);
	if (H13_GET(pc, H13_CPECFG_SRC1TRANSPOSE) && two) {
		/* broadcast along W and H, or along W alone where H is 1 (Apple's layer_norm over the
		 * last axis of [1,64,256]: Common.PECfg 0x501): along every axis of the plane above 1,
		 * and no other */
		const uint32_t b1 = H13_GET(pc, H13_CPECFG_SRC1BCAST), dim = GET(H13_COMMON_INDIM);
		const uint32_t need = (H13_GET(dim, H13_INDIM_WIN) > 1u ? H13_BCAST_W : 0u) |
				      (H13_GET(dim, H13_INDIM_HIN) > 1u ? H13_BCAST_H : 0u);
		if (k->product || !b1 || (b1 & ~(uint32_t)(H13_BCAST_W | H13_BCAST_H)) || (b1 & need) != need)
			REFUSE(k, 0, H13_COMMON_PECFG, H13_CPECFG_SRC1TRANSPOSE,
			       "Common.PECfg.Src1Transpose on a reduction of two operands other than the "
			       "squared difference with Src1Broadcast along W and H (along W alone where H is "
			       "1), no other axis (a [C,1,1] mean kept as one row: Apple's layer_norm over H "
			       "and W or over the last axis) not modelled");
		allowed |= H13_PUT(H13_CPECFG_SRC1TRANSPOSE, 1u);
	}
	if (pc & ~allowed)
		refuse(k, 0, H13_COMMON_PECFG, 0, 32,
		       two ? "a reduction of two operands with Common.PECfg other than Src1Broadcast, "
			     "OutputTranspose and Src1Transpose (the second operand broadcast or transposed) "
			     "not modelled"
			   : "a reduction with Common.PECfg set (a broadcast or transposed "
			     "operand) not modelled");
	/* the scales: where they would apply (before or after the reduction, or the reciprocal) is
	 * not pinned; softmax.bin's reductions leave every one at identity */
	if (H13_GET(GET(H13_PLANAR_PRESCALE), H13_PRESCALE) != FP16_ONE)
		REFUSE(k, 0, H13_PLANAR_PRESCALE, H13_PRESCALE,
		       "Planar.PreScale other than 1 on a reduction: whether it applies "
		       "before or after the reduction is not pinned");
	k->eps = (uint16_t)H13_GET(GET(H13_PLANAR_PRESCALE), H13_PRESCALE_EPS);
	if (k->eps && k->kind != TD_KEPT_RSQRT && !(k->kind == TD_KEPT_SUM && k->square && !two))
		REFUSE(k, 0, H13_PLANAR_PRESCALE, H13_PRESCALE_EPS,
		       "Planar.PreScale's low half (eps) set on a reduction other than NLMode 2 (1/sqrt) or "
		       "a sum of squares (Apple's mean of squares + eps) not modelled");
	/* a NaN eps made every plane's value a NaN, flushed to +0 (the eleventh review): no program
	 * holds one, and a NaN register is read nowhere (td_pe_nan_refusal) */
	if (fp16_is_nan((uint16_t)k->eps))
		REFUSE(k, 0, H13_PLANAR_PRESCALE, H13_PRESCALE_EPS,
		       "Planar.PreScale's low half (eps) a NaN on a reduction not modelled (no real program "
		       "holds one; a NaN register is read nowhere)");
	if (H13_GET(bs, H13_BIASSCALE_SCALE) != FP16_ONE)
		REFUSE(k, 0, H13_PLANAR_BIASSCALE, H13_BIASSCALE_SCALE,
		       "Planar.BiasScale.Scale other than 1 on a reduction: whether it "
		       "applies before or after the reduction is not pinned");
	if (H13_GET(bs, H13_BIASSCALE_BIAS))
		REFUSE(k, 0, H13_PLANAR_BIASSCALE, H13_BIASSCALE_BIAS,
		       "Planar.BiasScale.Bias on a reduction: whether it applies before "
		       "or after the reduction is not pinned");
	/* FinalScale, the PE's last multiplier, after the reduction: Apple's reduce_mean is
	 * reduce_sum with FinalScale 1/64 over 8 x 8, and every real reduction has 1 or a positive
	 * 1/N. On silicon FinalScale 0 was no plain multiplier on elementwise TDs (allbilly/ane
	 * expt3), so zero, negative, infinite and NaN words are refused (a review found them taken
	 * as multipliers); with the reciprocal, where it applies is not pinned */
	const uint32_t fin = GET(H13_PLANAR_FINALSCALE);
	if (!fin || (fin >> 31) || (fin & 0x7f800000u) == 0x7f800000u)
		refuse(k, 0, H13_PLANAR_FINALSCALE, 0, 32,
		       "Planar.FinalScale zero, negative, infinite or NaN on a reduction not modelled (1 or a "
		       "positive 1/N in every real one)");
	if (fin != H13_FINALSCALE_ONE && nl == H13_PE_NL_RECIP)
		refuse(k, 0, H13_PLANAR_FINALSCALE, 0, 32,
		       "Planar.FinalScale other than 1 on a reduction to a reciprocal (NLMode 1): whether "
		       "it applies before or after the reciprocal is not pinned");
	/* the source: rows of fp16 by tile DMA (softmax.bin: 2560 groups of one 1600 row) or from
	 * L2 memory (Apple's: 64 channels of one row of 64) */
	unsigned st = H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE);
	if (st == H13_L2_RESIDENT)
		REFUSE(k, 1, H13_L2_SOURCECFG, H13_L2_SOURCETYPE,
		       "a reduction over an L2-resident source (SourceType 3) not modelled");
	else if (two && st != H13_L2_MEM && !(k->product && st == H13_L2_DMA))
		REFUSE(k, 1, H13_L2_SOURCECFG, H13_L2_SOURCETYPE,
		       "a reduction of two operands (TaskType 6) whose first comes other than from L2 memory "
		       "(SourceType 0, as Apple's layer_norm's mean), or for products by the tile DMA "
		       "(SourceType 2, the GPT-2 softmax backward), not modelled");
	else if ((st == H13_L2_DMA || st == H13_L2_KEEP) && !src0)
		REFUSE_NOREG(k, 1, td_kept_no_source_why);
	else if (st == H13_L2_MEM && src0)
		REFUSE(k, 0, H13_L2_SOURCECFG, H13_L2_SOURCETYPE,
		       "L2.SourceCfg.SourceType 0 (the first operand from L2 memory) with the tile source "
		       "enabled and RBase0 bound: which one the engine reads is not known");
	/* the result: into L2 memory (ResultType 0, no tile destination: softmax.bin's) or by the
	 * tile DMA (ResultType 2 with the destination bound: Apple's reduce_sum, mean, max) */
	unsigned rt = H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE);
	int dst_en = H13_GET(GET(H13_DST_DMACONFIG), H13_DMA_EN) != 0;
	if (dst_en && !dst)
		REFUSE(k, 1, H13_DST_DMACONFIG, H13_DMA_EN,
		       "a reduction with its tile destination enabled but no WBase bound not modelled");
	/* ResultType 1 (Apple's reductions over C, their last TD): by the tile DMA and, as SourceType 1
	 * keeps a source, presumably kept in L2 at ResultBase too. Nothing in those programs reads
	 * that copy, so the model writes only the DMA's: a later read of it finds L2 memory no TD
	 * wrote and is refused. WBase bound with En clear writes through WBase too (td_dst_writes):
	 * with ResultType 0 into L2 memory and out by the tile DMA both, refused here */
	else if (!(rt == H13_L2_MEM && !dst) && !((rt == H13_L2_DMA || rt == H13_L2_KEEP) && dst))
		REFUSE(k, 0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
		       "a reduction whose result goes other than into L2 memory (ResultType 0, no tile "
		       "destination) or by the tile DMA (ResultType 2, or 1: the DMA's copy) not modelled");
	/* the second operand (TaskType 6): by the second tile source (L2.SourceCfg.Src2DMA, RBase1) or
	 * from L2 memory (td_l2mem_of) */
	if (two && H13_GET(GET(H13_L2_SOURCECFG), H13_L2SRC_SRC2DMA) && !src1)
		REFUSE(k, 1, H13_L2_SOURCECFG, H13_L2SRC_SRC2DMA,
		       "a reduction of two operands whose second comes by the tile DMA (Src2DMA 1) with no "
		       "second tile source (RBase1) bound");
	else if (two && !H13_GET(GET(H13_L2_SOURCECFG), H13_L2SRC_SRC2DMA) && src1)
		REFUSE(k, 1, H13_L2_SOURCECFG, H13_L2SRC_SRC2DMA,
		       "L2.SourceCfg.Src2DMA 0 (the second operand from L2) with a second tile source "
		       "(RBase1) bound: which one the PE reads is not known");
	if (H13_GET(ch, H13_CHCFG_INFMT) != H13_FMT_FP16)
		REFUSE(k, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
		       "a reduction over a non-fp16 input not modelled");
	if (H13_GET(ch, H13_CHCFG_OUTFMT) != H13_FMT_FP16)
		REFUSE(k, 0, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT,
		       "a reduction with a non-fp16 output format not modelled");
	/* channel interleave on the source (Apple's H13 softmax over 1x8x375x375, TD 3: the sum of
	 * each row of an intermediate the tile DMA wrote interleaved by 8): read as the elementwise
	 * path reads one (the engine model de-interleaves the tile first: compute.c's
	 * interleaved_source, which with interleave_side also wants DMAInterleave equal, fp16, depth
	 * 1 and C a multiple of the interleave). Only that form is evidenced: one operand by the tile
	 * DMA (SourceType 2). A second operand's or a kept copy's (SourceType 1: in which layout L2
	 * holds it?) is not pinned */
	if (H13_GET(GET(H13_SRC_FMT), H13_FMT_INTERLEAVE) > 1 && (two || st != H13_L2_DMA))
		REFUSE(k, 1, H13_SRC_FMT, H13_FMT_INTERLEAVE,
		       "channel interleave > 1 on a reduction's source modelled only for one operand by the "
		       "tile DMA (TaskType 5, SourceType 2: Apple's softmax over 1x8x375x375); on two "
		       "operands or a source kept in L2 (SourceType 1) the layout is not pinned");
	uint32_t cin = H13_GET(GET(H13_COMMON_CIN), H13_CIN);
	if (H13_GET(GET(H13_COMMON_COUT), H13_COUT) != cin)
		REFUSE(k, 0, H13_COMMON_COUT, H13_COUT,
		       "a reduction whose Cout is not its Cin not modelled (one value a row of each channel)");
	if (H13_GET(od, H13_OUTDIM_HOUT) != H13_GET(in, H13_INDIM_HIN))
		REFUSE(k, 0, H13_COMMON_OUTDIM, H13_OUTDIM_HOUT,
		       "a reduction whose OutDim.Hout is not its InDim.Hin not modelled");
	if (!H13_GET(in, H13_INDIM_WIN) || H13_GET(od, H13_OUTDIM_WOUT) != H13_GET(in, H13_INDIM_WIN))
		REFUSE(k, 0, H13_COMMON_OUTDIM, H13_OUTDIM_WOUT,
		       "a reduction whose OutDim.Wout is not its InDim.Win not modelled");
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	if (!td_window_unit(&win))
		refuse(k, 0, H13_COMMON_CONVCFG, 0, 32,
		       "a reduction with a window, stride or padding other than "
		       "1x1/1/0 not modelled");
	/* one value a plane (g, c) of Hin x Win: Apple's softmax over rows of 128 reduces planes of
	 * 4 x 32 (each a row of its input), and reads one value a plane back; a value a row of the
	 * plane gives wrong numbers there. 13 + 17 bits: in 64 bits, then bounded by the fp16 values
	 * L2 memory holds */
	/* a depth (Common +0x04 and +0x18, InDepth and OutDepth): each plane is D x H rows (Apple's
	 * layer_norm over C, H and W reduces [64, 8, 8] read as D 8 x H 64 x W 8), the two equal as
	 * there; bounded as the 15-bit H and W are */
	k->d = td_depth_even(r);
	if (!k->d) {
		k->d = 1u; /* (what reads the refused TD's views walks one depth) */
		refuse(k, 0, H13_COMMON_INDEPTH, 0, 32,
		       "a reduction's depth (Common.InDepth) 0, above 32767, or other than its "
		       "OutDepth not modelled");
	}
	uint64_t planes = (uint64_t)H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS) * cin;
	k->rows = planes > H13_L2_BYTES / 2u ? 0u : (uint32_t)planes;
	k->h = H13_GET(in, H13_INDIM_HIN);
	k->w = H13_GET(in, H13_INDIM_WIN);
	if (!planes || !k->h)
		refuse(k, 0, H13_COMMON_GROUPCONVCFG, 0, 32, "a reduction over nothing (0 groups, channels or rows)");
	else if (!k->rows)
		refuse(k, 0, H13_COMMON_GROUPCONVCFG, 0, 32,
		       "a reduction of more planes than L2 memory holds values (NumGroups x Cin)");
}

void td_kept_of(const struct td_regs *r, unsigned bar_en, struct td_kept *k)
{
	memset(k, 0, sizeof *k);
	k->no.reg = TD_KEPT_NO_REG;
	uint32_t cfg = GET(H13_PLANAR_CFG);
	int pe = td_pe_in_path(GET(H13_COMMON_CFG));
	int src_en = H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) != 0;
	int src0 = src_en && (bar_en >> H13_BAR_RBASE0 & 1u);
	int src1 = src_en && (bar_en >> H13_BAR_RBASE1 & 1u);
	int dst = td_dst_writes(bar_en); /* En set or clear */
	int l2res = H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) == H13_L2_RESIDENT;
	/* a reduction: Common.Cfg.TaskType 5 (every reduction of softmax.bin and of Apple's
	 * programs, and no other TD). A PE result leaving neither by DMA nor as an L2-resident tensor
	 * with PoolMode or NLMode set, or ResultType other than 0, under another TaskType: refused */
	unsigned task = H13_GET(GET(H13_COMMON_CFG), H13_CFG_TASKTYPE);
	int task5 = task == H13_TASK_REDUCE || task == H13_TASK_REDUCE2;
	int looks = H13_GET(cfg, H13_PECFG_POOLMODE) || H13_GET(cfg, H13_PECFG_NLMODE) ||
		    H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) != H13_L2_MEM;
	if (task5) { /* (the PE in the path: td_pe_in_path) */
		makes(r, src0, src1, dst, task == H13_TASK_REDUCE2, k);
	} else if (pe && !dst && !l2res && looks) {
		k->role = TD_KEPT_MAKES;
		REFUSE(k, 1, H13_COMMON_CFG, H13_CFG_TASKTYPE,
		       "a PE result left in the engine with PoolMode or NLMode set (a reduction?) but "
		       "Common.Cfg.TaskType other than 5 (every real reduction's) not modelled");
	}
}

void td_refuse(struct td_refusal *r, int cls, uint32_t reg, unsigned lsb, unsigned width,
	       const char *why)
{
	if (r->why)
		return;
	r->why = why;
	r->cls = (uint8_t)cls;
	r->reg = reg;
	r->lsb = (uint8_t)lsb;
	r->width = (uint8_t)width;
}
