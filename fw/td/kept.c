/*
 * Values kept in the engine between TDs: the one reading of softmax.bin's reductions and their
 * consumers (td.h, td_kept_of; docs/engine-model.md, "Reductions kept in the engine").
 *
 * Evidence: ../shared/fixtures/kernels/activation/softmax.bin, five TDs. TDs 0 and 3 are PE TDs
 * with no tile destination and L2.ResultCfg.ResultType 0, Common.PERoute 9, 2560 groups of one
 * row of 1600, identity scales; they differ in Planar.Cfg alone: TD 0 PoolMode 2 (max), TD 3
 * NLMode 1 (the sum, kept as its reciprocal: TD 4 multiplies by it). TD 1 takes the kept value
 * as its second operand (Common.PECfg.Src2Broadcast W) and subtracts it (SecSrc 3, as Apple's H13 sub:
 * x - max); TD 4 multiplies with its first tile source unbound and
 * Common.PECfg 1, Src1Broadcast W (e x 1/sum). Every other value on such a TD is outside what that one program
 * shows, so it is refused by name rather than guessed.
 */
#include "fw/common/fp16.h"
#include "fw/td/td.h"

#include <string.h>

#define GET(a) (r->get(r->ctx, (a)))

const char *td_kept_kind_name(unsigned kind)
{
	return kind == TD_KEPT_MAX ? "max" : kind == TD_KEPT_RSUM ? "1/sum" : "nothing";
}

/* Records the first refusal only. */
static void refuse(struct td_kept *k, int combination, uint32_t reg, unsigned lsb, unsigned width,
		   const char *why)
{
	if (k->why)
		return;
	k->why = why;
	k->combination = (uint8_t)combination;
	k->reg = reg;
	k->lsb = (uint8_t)lsb;
	k->width = (uint8_t)width;
}
#define REFUSE(k, comb, reg, F, why) refuse((k), (comb), (reg), F##_LSB, F##_W, (why))
#define REFUSE_NOREG(k, comb, why) refuse((k), (comb), TD_KEPT_NO_REG, 0, 0, (why))

/* Planar.Cfg fields a kept-value TD must leave 0 (beside the ones it is read by). */
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
	if (H13_GET(cfg, H13_PECFG_FIRSTSRC))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_FIRSTSRC, what);
}

/* A TD whose PE result stays in the engine: softmax.bin's reductions (TDs 0 and 3) only. */
static void makes(const struct td_regs *r, int src0, struct td_kept *k)
{
	uint32_t cfg = GET(H13_PLANAR_CFG), in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM);
	uint32_t ch = GET(H13_COMMON_CHCFG), bs = GET(H13_PLANAR_BIASSCALE);
	unsigned pool = H13_GET(cfg, H13_PECFG_POOLMODE), nl = H13_GET(cfg, H13_PECFG_NLMODE);
	k->role = TD_KEPT_MAKES;
	if (GET(H13_NE_MACCFG))
		refuse(k, 1, H13_NE_MACCFG, 0, 32,
		       "a reduction kept in the engine after the NE not modelled (softmax.bin's have the NE off)");
	cfg_zero(k, cfg, 0, 0, "Planar.Cfg on a reduction kept in the engine: only PoolMode and NLMode are read "
			       "(softmax.bin's reductions leave the rest 0)");
	if (H13_GET(cfg, H13_PECFG_OPMODE))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_OPMODE,
		       "Planar.Cfg.OpMode on a reduction kept in the engine not modelled (softmax.bin's are 0)");
	if (H13_GET(cfg, H13_PECFG_SECSRC))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_SECSRC,
		       "a second source on a reduction kept in the engine not modelled");
	if (H13_GET(cfg, H13_PECFG_CONDITION))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_CONDITION,
		       "Planar.Cfg.Condition on a reduction kept in the engine not modelled");
	if (H13_GET(cfg, H13_PECFG_RELUEN))
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_RELUEN,
		       "Planar.Cfg.ReluEn on a reduction kept in the engine not modelled");
	if (nl != H13_PE_NL_NONE && nl != H13_PE_NL_RECIP)
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_NLMODE,
		       "Planar.Cfg.NLMode on a reduction kept in the engine: only 1 (keep the reciprocal of "
		       "the sum, softmax.bin TD 3) and 0 are pinned");
	else if (pool == H13_PE_POOL_MAX && nl == H13_PE_NL_NONE)
		k->kind = TD_KEPT_MAX;
	else if (pool == H13_PE_POOL_NONE && nl == H13_PE_NL_RECIP)
		k->kind = TD_KEPT_RSUM;
	else
		REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_POOLMODE,
		       "Planar.Cfg.PoolMode on a reduction kept in the engine: only 2 with NLMode 0 (the "
		       "maximum) and 0 with NLMode 1 (the reciprocal of the sum) are pinned");
	if (GET(H13_COMMON_PEROUTE) != H13_PEROUTE_REDUCE)
		REFUSE(k, 0, H13_COMMON_PEROUTE, H13_PEROUTE,
		       "a PE TD whose result stays in the engine with Common.PERoute other than 9 "
		       "(softmax.bin's reductions) not modelled");
	if (GET(H13_COMMON_PECFG))
		refuse(k, 0, H13_COMMON_PECFG, 0, 32,
		       "a reduction kept in the engine with Common.PECfg set (a broadcast or transposed "
		       "operand) not modelled");
	/* the scales: where they would apply (before or after the reduction, or the reciprocal) is
	 * not pinned; softmax.bin's reductions leave every one at identity */
	if (H13_GET(GET(H13_PLANAR_PRESCALE), H13_PRESCALE) != FP16_ONE)
		REFUSE(k, 0, H13_PLANAR_PRESCALE, H13_PRESCALE,
		       "Planar.PreScale other than 1 on a reduction kept in the engine: whether it applies "
		       "before or after the reduction is not pinned");
	if (GET(H13_PLANAR_PRESCALE) != H13_PUT(H13_PRESCALE, FP16_ONE))
		refuse(k, 0, H13_PLANAR_PRESCALE, 0, 32,
		       "Planar.PreScale's low half set on a reduction kept in the engine not modelled");
	if (H13_GET(bs, H13_BIASSCALE_SCALE) != FP16_ONE)
		REFUSE(k, 0, H13_PLANAR_BIASSCALE, H13_BIASSCALE_SCALE,
		       "Planar.BiasScale.Scale other than 1 on a reduction kept in the engine: whether it "
		       "applies before or after the reduction is not pinned");
	if (H13_GET(bs, H13_BIASSCALE_BIAS))
		REFUSE(k, 0, H13_PLANAR_BIASSCALE, H13_BIASSCALE_BIAS,
		       "Planar.BiasScale.Bias on a reduction kept in the engine: whether it applies before "
		       "or after the reduction is not pinned");
	if (GET(H13_PLANAR_FINALSCALE) != H13_FINALSCALE_ONE)
		refuse(k, 0, H13_PLANAR_FINALSCALE, 0, 32,
		       "Planar.FinalScale other than 1 on a reduction kept in the engine: whether it "
		       "applies before or after the reduction is not pinned");
	/* the source: one tile source, rows of fp16 (softmax.bin: 2560 groups of one 1600 row) */
	if (H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE) == H13_L2_RESIDENT)
		REFUSE(k, 1, H13_L2_SOURCECFG, H13_L2_SOURCETYPE,
		       "a reduction kept in the engine over an L2-resident source not modelled");
	else if (!src0)
		REFUSE_NOREG(k, 1, "a reduction kept in the engine with no bound tile source (RBase0) "
				   "not modelled");
	if (H13_GET(GET(H13_DST_DMACONFIG), H13_DMA_EN))
		REFUSE(k, 1, H13_DST_DMACONFIG, H13_DMA_EN,
		       "a PE TD with its tile destination enabled but no WBase bound (a reduction kept in the "
		       "engine has it off) not modelled");
	if (H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) != 0)
		REFUSE(k, 0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
		       "a reduction kept in the engine with L2.ResultCfg.ResultType other than 0 "
		       "(softmax.bin's reductions) not modelled");
	if (H13_GET(ch, H13_CHCFG_INFMT) != H13_FMT_FP16)
		REFUSE(k, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
		       "a reduction kept in the engine over a non-fp16 input not modelled");
	if (H13_GET(ch, H13_CHCFG_OUTFMT) != H13_FMT_FP16)
		REFUSE(k, 0, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT,
		       "a reduction kept in the engine with a non-fp16 output format not modelled");
	if (H13_GET(GET(H13_SRC_FMT), H13_FMT_INTERLEAVE) > 1)
		REFUSE(k, 0, H13_SRC_FMT, H13_FMT_INTERLEAVE, "channel interleave > 1 not modelled");
	if (H13_GET(GET(H13_COMMON_CIN), H13_CIN) != 1)
		REFUSE(k, 0, H13_COMMON_CIN, H13_CIN,
		       "a reduction kept in the engine over more than one channel per group not modelled "
		       "(softmax.bin: one row per group)");
	if (H13_GET(GET(H13_COMMON_COUT), H13_COUT) != 1)
		REFUSE(k, 0, H13_COMMON_COUT, H13_COUT,
		       "a reduction kept in the engine with more than one channel per group not modelled "
		       "(softmax.bin: one row per group)");
	if (H13_GET(in, H13_INDIM_HIN) != 1)
		REFUSE(k, 0, H13_COMMON_INDIM, H13_INDIM_HIN,
		       "a reduction kept in the engine over more than one row per group not modelled "
		       "(softmax.bin: one row per group)");
	if (H13_GET(od, H13_OUTDIM_HOUT) != 1)
		REFUSE(k, 0, H13_COMMON_OUTDIM, H13_OUTDIM_HOUT,
		       "a reduction kept in the engine with more than one row per group not modelled "
		       "(softmax.bin: one row per group)");
	if (!H13_GET(in, H13_INDIM_WIN) || H13_GET(od, H13_OUTDIM_WOUT) != H13_GET(in, H13_INDIM_WIN))
		REFUSE(k, 0, H13_COMMON_OUTDIM, H13_OUTDIM_WOUT,
		       "a reduction kept in the engine whose OutDim.Wout is not its InDim.Win not modelled");
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	if (win.kw != 1 || win.kh != 1 || win.sx != 1 || win.sy != 1 || win.px || win.py)
		refuse(k, 0, H13_COMMON_CONVCFG, 0, 32,
		       "a reduction kept in the engine with a window, stride or padding other than "
		       "1x1/1/0 not modelled");
	k->rows = H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	k->w = H13_GET(in, H13_INDIM_WIN);
	if (!k->rows)
		REFUSE(k, 0, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_NUMGROUPS,
		       "a reduction kept in the engine over 0 groups");
}

/* A TD that uses the kept value: softmax.bin TD 1 (first == 0) or TD 4 (first == 1). */
static void uses(const struct td_regs *r, int first, int src0, int src1, struct td_kept *k)
{
	uint32_t cfg = GET(H13_PLANAR_CFG), in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM);
	k->role = TD_KEPT_USES;
	k->first = (uint8_t)first;
	k->kind = first ? TD_KEPT_RSUM : TD_KEPT_MAX;
	if (GET(H13_NE_MACCFG))
		refuse(k, 1, H13_NE_MACCFG, 0, 32,
		       "a kept value used after the NE not modelled (softmax.bin's users have the NE off)");
	if (!first) {
		if (H13_GET(cfg, H13_PECFG_SECSRC) != H13_PE_SECSRC_SUB)
			REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			       "the kept value as the second operand (Common.PECfg.Src2Broadcast W) other than "
			       "subtracted (SecSrc 3, softmax.bin TD 1) not modelled");
		if (H13_GET(cfg, H13_PECFG_OPMODE) != H13_PE_OP_ADD)
			REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_OPMODE,
			       "the kept value as the second operand (Common.PECfg.Src2Broadcast W) with an operation "
			       "other than add (x - kept max) not modelled");
		if (GET(H13_COMMON_PEROUTE) != H13_PEROUTE_ONE_SRC)
			REFUSE(k, 0, H13_COMMON_PEROUTE, H13_PEROUTE,
			       "the kept value as the second operand (Common.PECfg.Src2Broadcast W) with "
			       "Common.PERoute other than 0x44 (softmax.bin TD 1) not modelled");
	} else {
		if (src0 || H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE) == H13_L2_RESIDENT)
			REFUSE(k, 1, H13_COMMON_PECFG, H13_CPECFG_SRC1BCAST,
			       "the kept value as the first operand (Common.PECfg.Src1Broadcast W) with a first "
			       "source bound (RBase0 or L2) not modelled");
		if (H13_GET(cfg, H13_PECFG_OPMODE) != H13_PE_OP_MUL)
			REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_OPMODE,
			       "the kept value as the first operand (Common.PECfg.Src1Broadcast W) with an operation "
			       "other than multiply (x * kept 1/sum) not modelled");
		if (H13_GET(cfg, H13_PECFG_SECSRC) != H13_PE_SECSRC_TILE1)
			REFUSE(k, 0, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			       "the kept value as the first operand (Common.PECfg.Src1Broadcast W) with a second source "
			       "other than the tile source (SecSrc 2) not modelled");
		else if (!src1)
			REFUSE(k, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			       "Planar.Cfg.SecSrc 2 with no second tile source (RBase1) bound: not modelled");
		if (GET(H13_COMMON_PEROUTE) != H13_PEROUTE_TWO_SRC)
			REFUSE(k, 0, H13_COMMON_PEROUTE, H13_PEROUTE,
			       "the kept value as the first operand (Common.PECfg.Src1Broadcast W) with Common.PERoute "
			       "other than 0x59 (softmax.bin TD 4) not modelled");
	}
	cfg_zero(k, cfg, 1, 1, "a TD using a kept value with Planar.Cfg PoolMode, NLMode or FirstSrc set "
			       "not modelled");
	/* one value per row, broadcast along it: rows of one channel of one group (softmax.bin) */
	if (H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS) != 1)
		REFUSE(k, 1, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_NUMGROUPS,
		       "a kept value used over more than one group not modelled (softmax.bin: one group "
		       "of rows)");
	if (H13_GET(GET(H13_COMMON_CIN), H13_CIN) != 1 || H13_GET(GET(H13_COMMON_COUT), H13_COUT) != 1)
		REFUSE(k, 1, H13_COMMON_COUT, H13_COUT,
		       "a kept value used over more than one channel not modelled (softmax.bin: one "
		       "channel of rows)");
	if (H13_GET(in, H13_INDIM_WIN) != H13_GET(od, H13_OUTDIM_WOUT) ||
	    H13_GET(in, H13_INDIM_HIN) != H13_GET(od, H13_OUTDIM_HOUT))
		refuse(k, 1, H13_COMMON_OUTDIM, 0, 32,
		       "a TD using a kept value whose output is not its input's shape not modelled");
	k->rows = H13_GET(od, H13_OUTDIM_HOUT);
	k->w = H13_GET(od, H13_OUTDIM_WOUT);
}

void td_kept_of(const struct td_regs *r, unsigned bar_en, struct td_kept *k)
{
	memset(k, 0, sizeof *k);
	k->reg = TD_KEPT_NO_REG;
	uint32_t cfg = GET(H13_PLANAR_CFG);
	int pe = (cfg | GET(H13_PLANAR_BIASSCALE) | GET(H13_PLANAR_PRESCALE) | GET(H13_PLANAR_FINALSCALE)) != 0;
	int src_en = H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) != 0;
	int src0 = src_en && (bar_en >> H13_BAR_RBASE0 & 1u);
	int src1 = src_en && (bar_en >> H13_BAR_RBASE1 & 1u);
	int dst = H13_GET(GET(H13_DST_DMACONFIG), H13_DMA_EN) && (bar_en >> H13_BAR_WBASE & 1u);
	int l2res = H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) == H13_L2_RESIDENT;
	uint32_t ks = GET(H13_COMMON_PECFG);
	/* a PE result leaving neither by DMA nor to L2: a reduction (pooling or NLMode) kept in the
	 * engine, or a result of another type; with ResultType 0 and neither, the result stays in L2
	 * memory (td_l2mem_of) */
	int reduce = H13_GET(cfg, H13_PECFG_POOLMODE) || H13_GET(cfg, H13_PECFG_NLMODE) ||
		     H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) != H13_L2_MEM;
	/* softmax.bin's users: the kept value broadcast along W, the TD's second operand (SecSrc 3,
	 * from L2: Src2DMA 0) or its first (RBase0 unbound) */
	if (pe && !dst && !l2res && reduce)
		makes(r, src0, k);
	else if (ks == H13_PECFG_KEPT_SECOND && pe)
		uses(r, 0, src0, src1, k);
	else if (ks == H13_PECFG_KEPT_FIRST && pe)
		uses(r, 1, src0, src1, k);
}
