/*
 * More of what the engine model refuses on a TD's registers (and header) alone, each condition
 * and its text stated once (docs/engine-model.md, "The text and the model's refusals agree"):
 * engine/model/compute.c's compute (TaskType, OutTranspose, channel interleave, the output's and
 * inputs' sizes, the L2-resident tensors' formats and places), decode_stages (the TD header's ENE, Planar.Cfg's and
 * PreScale's unread bits, Src2ReLU with one operand) and reduction_checks (ENE, Src2ReLU). The
 * model faults with the refusal recorded here; inspect's "registers:" line marks it
 * (td_registers_refusal, in the model's order). Pure register logic.
 */
#include "fw/common/fp16.h"
#include "fw/td/td.h"

#define GET(a) (r->get(r->ctx, (a)))

/* compute: Common.Cfg.TaskType 0, 2, 3 and 5 in every program that computes (fixtures, Apple's);
 * 4 (a normalize, td_l2mem_of) and 6 (a reduction of two operands, td_kept_of) in Apple's
 * layer_norm */
void td_tasktype_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const unsigned task = H13_GET(GET(H13_COMMON_CFG), H13_CFG_TASKTYPE);
	if (task != 0 && task != H13_TASK_PE_ONE && task != H13_TASK_PE_TWO && task != H13_TASK_NORMALIZE &&
	    task != H13_TASK_REDUCE && task != H13_TASK_REDUCE2)
		TD_REFUSE(no, 0, H13_COMMON_CFG, H13_CFG_TASKTYPE,
			  "Common.Cfg.TaskType other than 0, 2, 3, 4, 5 and 6 (what every modelled "
			  "program has) not modelled");
}

static int l2_resident(const struct td_regs *r, uint32_t cfg_reg, unsigned lsb, unsigned width)
{
	return ((GET(cfg_reg) >> lsb) & td_field_mask(width)) == H13_L2_RESIDENT;
}

/* compute: Common.Cfg.OutTranspose on a result the tile DMA writes (td_l2mem_of reads the L2 ones
 * but a reduction's, which reads only PECfg.OutputTranspose: refused wherever it goes) */
void td_out_transpose_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k,
			      const struct td_l2mem *lm, struct td_refusal *no)
{
	const int ot = H13_GET(GET(H13_COMMON_CFG), H13_CFG_OUTTRANSPOSE) != 0;
	const int otr = ot && td_dst_writes(bar_en) &&
			(!lm->res.on || td_dst_writes_en_clear(GET(H13_DST_DMACONFIG), bar_en));
	if ((otr && l2_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W)) ||
	    (ot && k->role == TD_KEPT_MAKES))
		TD_REFUSE(no, 1, H13_COMMON_CFG, H13_CFG_OUTTRANSPOSE,
			  "Common.Cfg.OutTranspose on a reduction's result, or on an L2-resident one "
			  "that the tile DMA writes, not modelled");
}

/* compute, on a TD whose result leaves (not a reduction): the output's format and size, and the
 * tile sources' formats (a source there: its slot bound and the source DMA enabled) */
void td_sizes_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no)
{
	const uint32_t ch = GET(H13_COMMON_CHCFG), od = GET(H13_COMMON_OUTDIM);
	if (!td_fmt_bytes(H13_GET(ch, H13_CHCFG_OUTFMT)))
		TD_REFUSE(no, 0, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT, "an unsized output format");
	if (!H13_GET(od, H13_OUTDIM_WOUT) || !H13_GET(od, H13_OUTDIM_HOUT) || !H13_GET(GET(H13_COMMON_COUT), H13_COUT) ||
	    !H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS))
		td_refuse(no, 0, TD_KEPT_NO_REG, 0, 0, "an empty output (OutDim, Cout or groups 0)");
	const int src = H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) &&
			(bar_en & ((1u << H13_BAR_RBASE0) | (1u << H13_BAR_RBASE1)));
	if (src && !td_fmt_bytes(H13_GET(ch, H13_CHCFG_INFMT)))
		TD_REFUSE(no, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT, "an unsized input format");
}

/* decode_stages and reduction_checks: Common.Cfg.TaskType and the TD header's ENE: 0 exactly where
 * TaskType is not 0 in every real TD; which of the two selects the PE is not known, so where they
 * disagree and the two readings would compute differently (the PE's words set, or TaskType not 0;
 * a reduction: always), refused */
void td_pe_ene_refusal(const struct td_regs *r, unsigned ene, int reduction, struct td_refusal *no)
{
	const int pe = td_pe_in_path(GET(H13_COMMON_CFG));
	const uint32_t words = reduction ? 1u
					 : GET(H13_PLANAR_CFG) | GET(H13_PLANAR_BIASSCALE) | GET(H13_PLANAR_PRESCALE) |
						   GET(H13_PLANAR_FINALSCALE);
	if (pe ? ene != 0 : ene == 0 && words)
		TD_REFUSE(no, 1, H13_COMMON_CFG, H13_CFG_TASKTYPE,
			  "Common.Cfg.TaskType and the TD header's ENE disagree on the planar engine "
			  "(ENE 0 exactly where TaskType is not 0 in every real TD; which of them puts the "
			  "PE in the path is not known)");
}

/* decode_stages, the PE in the path: Planar.Cfg bits outside the fields the model knows */
void td_pe_cfg_bits_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t known = H13_PUT(H13_PECFG_POOLMODE, ~0u) | H13_PUT(H13_PECFG_OPMODE, ~0u) |
			       H13_PUT(H13_PECFG_RELUEN, ~0u) | H13_PUT(H13_PECFG_CONDITION, ~0u) |
			       H13_PUT(H13_PECFG_NLMODE, ~0u) | H13_PUT(H13_PECFG_FIRSTSRC, ~0u) |
			       H13_PUT(H13_PECFG_SECSRC, ~0u);
	if (td_pe_in_path(GET(H13_COMMON_CFG)) && (GET(H13_PLANAR_CFG) & ~known))
		td_refuse(no, 0, H13_PLANAR_CFG, 0, 32, "Planar.Cfg has bits outside the fields the model knows");
}

/* decode_stages, the PE in the path (a reduction reads the low half as its eps, td_kept_of) */
void td_pe_prescale_bits_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (td_pe_in_path(GET(H13_COMMON_CFG)) && (GET(H13_PLANAR_PRESCALE) & ~H13_PUT(H13_PRESCALE, ~0u)))
		td_refuse(no, 0, H13_PLANAR_PRESCALE, 0, H13_PRESCALE_LSB,
			  "Planar.PreScale bits 0-15 not modelled (0 in every real PE program but Apple's "
			  "H13 layer norm, which puts its epsilon there)");
}

/* decode_stages, the PE in the path: a NaN in one of its fp16 factors and terms, Planar.PreScale
 * (bits 16-31), BiasScale's Scale or Bias. No real program holds one (a reduction holds 1, 1 and 0
 * there: td_kept_of); guide 03 makes a NaN +inf only where the tiles enter, and on an M1 the NE's
 * multiplier register PostScale written 0xffff (a NaN) gave inf for 5 (allbilly/ane
 * experimental/expt.md, expt1), not the NaN the multiply gives, which the model's row flushes to
 * +0: x NaN PreScale, + NaN Bias or x NaN Scale made every output +0 (the eleventh review) */
void td_pe_nan_refusal(const struct td_regs *r, struct td_refusal *no)
{
	static const char why[] = "a NaN Planar.PreScale, BiasScale.Scale or BiasScale.Bias not modelled "
				  "(no real program holds one; guide 03 makes a NaN +inf only where the "
				  "tiles enter, and on silicon a NaN NE.PostScale gave inf, not +0)";
	if (!td_pe_in_path(GET(H13_COMMON_CFG)))
		return;
	const uint32_t pre = GET(H13_PLANAR_PRESCALE), bs = GET(H13_PLANAR_BIASSCALE);
	const unsigned h[3] = {H13_GET(pre, H13_PRESCALE), H13_GET(bs, H13_BIASSCALE_SCALE),
			       H13_GET(bs, H13_BIASSCALE_BIAS)};
	if (fp16_is_nan((uint16_t)h[0]))
		TD_REFUSE(no, 0, H13_PLANAR_PRESCALE, H13_PRESCALE, why);
	if (fp16_is_nan((uint16_t)h[1]))
		TD_REFUSE(no, 0, H13_PLANAR_BIASSCALE, H13_BIASSCALE_SCALE, why);
	if (fp16_is_nan((uint16_t)h[2]))
		TD_REFUSE(no, 0, H13_PLANAR_BIASSCALE, H13_BIASSCALE_BIAS, why);
}

/* decode_stages (reduction 0) and reduction_checks (1): L2.L2Cfg.Src2ReLU with no second PE operand,
 * or on a reduction */
void td_src2relu_refusal(const struct td_regs *r, int reduction, struct td_refusal *no)
{
	if (!H13_GET(GET(H13_L2_CFG), H13_L2CFG_SRC2RELU))
		return;
	if (reduction)
		TD_REFUSE(no, 1, H13_L2_CFG, H13_L2CFG_SRC2RELU,
			  "L2.L2Cfg.Src2ReLU on a reduction not modelled (no real reduction sets it)");
	else if (!(td_pe_in_path(GET(H13_COMMON_CFG)) && td_pe_two_operands(GET(H13_PLANAR_CFG))))
		TD_REFUSE(no, 1, H13_L2_CFG, H13_L2CFG_SRC2RELU, "L2.L2Cfg.Src2ReLU with no second PE operand not modelled");
}

/* compute, after decode_stages: an L2-resident source read as bytes (a resident tensor holds fp16
 * values; L2 memory refuses the same), an L2-resident result over its own source, a resident
 * result with a one-byte output (kept as the fp16 values before the tile DMA's rounding), a
 * resident result whose tile destination writes it too (WBase bound, En set or clear: td_dst_writes) */
void td_resident_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no)
{
	const int l2src = l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W);
	const int l2res = l2_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W);
	const uint32_t ch = GET(H13_COMMON_CHCFG);
	if (l2src && H13_GET(ch, H13_CHCFG_INFMT) != H13_FMT_FP16)
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
			  "a one-byte read (Common.ChCfg.InFmt) of an L2-resident tensor not modelled");
	if (l2res && l2src &&
	    H13_GET(GET(H13_L2_SOURCEBASE), H13_L2_ADDR) == H13_GET(GET(H13_L2_RESULTBASE), H13_L2_ADDR))
		TD_REFUSE(no, 1, H13_L2_RESULTBASE, H13_L2_ADDR, "L2 result overwrites its own source");
	if (l2res && H13_GET(ch, H13_CHCFG_OUTFMT) != H13_FMT_FP16)
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT,
			  "an L2-resident result (L2.ResultCfg.ResultType 3) with a one-byte output format "
			  "(Common.ChCfg.OutFmt) not modelled");
	/* the one real resident result (sigmoid.bin's TD 0) has its destination off; no real TD keeps
	 * a resident result and binds WBase, and which of the two the engine then writes is not known
	 * (as for a result left in L2 memory with the destination's En set: td_l2mem_of) */
	if (l2res && td_dst_writes(bar_en))
		TD_REFUSE(no, 1, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
			  "an L2-resident result (L2.ResultCfg.ResultType 3) with the tile destination "
			  "writing it too (WBase bound, TileDMADst.DMAConfig.En set or clear) not modelled "
			  "(sigmoid.bin's keeps it with the destination off; which one the engine writes "
			  "is not known)");
}

/* compute_td, a convolution or pooling (not the L2 paths, not the channel groups): every output's
 * window must reach into the input on both axes (output x reads input columns x Sx - Px + kx, kx <
 * Kw; rows the same). Past that (an OutDim larger than the input and window give, or padding of a
 * whole window) the model would read nothing but the zeros outside, which no program pins (a
 * review found a 1x1 convolution with OutDim 32 over InDim 16 giving its bias alone there). */
void td_window_covers_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	const uint32_t in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM);
	const uint64_t ow = H13_GET(od, H13_OUTDIM_WOUT), oh = H13_GET(od, H13_OUTDIM_HOUT);
	if (!ow || !oh || !win.sx || !win.sy || !win.kw || !win.kh)
		return; /* (refused on their own) */
	if (win.px >= win.kw || win.py >= win.kh || (ow - 1) * win.sx >= (uint64_t)H13_GET(in, H13_INDIM_WIN) + win.px ||
	    (oh - 1) * win.sy >= (uint64_t)H13_GET(in, H13_INDIM_HIN) + win.py)
		td_refuse(no, 1, H13_COMMON_OUTDIM, 0, 32,
			  "a convolution or pooling output whose window lies wholly outside its input "
			  "(Common.OutDim beyond what InDim, the window, stride and padding give, or "
			  "padding of a whole window) not modelled");
}

/* decode_stages: neither the NE (MACCfg 0, or a pass-through with no kernel) nor the PE (TaskType
 * 0) in the path: a plain copy by the model's reading, but no real TD is so, and on an M1 relu's
 * TD with MACCfg written 0 hung (allbilly/ane experimental/expt.md, expt1) */
void td_no_unit_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	const int ne = mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r));
	if (!ne && !td_pe_in_path(GET(H13_COMMON_CFG)))
		td_refuse(no, 1, H13_NE_MACCFG, 0, 32,
			  "neither the NE (NE.MACCfg 0, or a pass-through with no kernel) nor the planar "
			  "engine (Common.Cfg.TaskType 0) in the path not modelled (no real TD has "
			  "neither; on silicon a TD with NE.MACCfg 0 hung)");
}

void td_registers_refusal(const struct td_regs *r, const struct td_hdr *h, const struct td_kept *k,
			  const struct td_l2mem *lm, const struct td_outside *t, unsigned nt,
			  struct td_refusal *no)
{
	td_registers_refusal_res(r, h, k, lm, NULL, t, nt, no);
}

void td_registers_refusal_res(const struct td_regs *r, const struct td_hdr *h, const struct td_kept *k,
			      const struct td_l2mem *lm, const struct td_dims *resident, const struct td_outside *t,
			      unsigned nt, struct td_refusal *no)
{
	const unsigned bar_en = h->bar_en, tiles = td_tiles_there(r, h->bar_en);
	const int reduction = k->role == TD_KEPT_MAKES && !k->no.why;
	const int leaves = td_dst_writes(bar_en) ||
			   l2_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W) || lm->res.on;
	td_tasktype_refusal(r, no);
	td_data_unread_refusal(r, bar_en, k, lm, t, nt, no);
	td_out_transpose_refusal(r, bar_en, k, lm, no);
	td_interleave_refusal(r, bar_en, k, lm, no); /* (fw/td tiles.c) */
	if (reduction) { /* reduction_checks */
		td_elemmult_refusal(r, no);
		td_ne_unread_refusal(r, no);
		td_pe_ene_refusal(r, h->ene, 1, no);
		td_src2relu_refusal(r, 1, no);
	} else if (leaves) {
		td_sizes_refusal(r, bar_en, no);
		td_elemmult_refusal(r, no); /* decode_stages: decode_ne, then the PE */
		td_ne_unread_refusal(r, no);
		td_pe_ene_refusal(r, h->ene, 0, no);
		td_pe_cfg_bits_refusal(r, no);
		td_pe_prescale_bits_refusal(r, no);
		td_pe_nan_refusal(r, no);
		td_src2relu_refusal(r, 0, no);
		td_no_unit_refusal(r, no);
		td_resident_refusal(r, bar_en, no);
		td_depth_refusal(r, tiles, lm, no); /* at_depths (fw/td paths.c) */
		/* compute_td's windowed TDs (pooling, a convolution with kernels in memory) outside the
		 * L2 paths and the channel groups */
		const uint32_t mac = GET(H13_NE_MACCFG);
		const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
		const int ne = mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r));
		const int pool = td_pe_in_path(GET(H13_COMMON_CFG)) &&
				 H13_GET(GET(H13_PLANAR_CFG), H13_PECFG_POOLMODE) != H13_PE_POOL_NONE;
		const int conv = ne && op == H13_MAC_OP_CONV && !H13_GET(mac, H13_MACCFG_KERNELMODE);
		const int groups = ne && (op == H13_MAC_OP_RCAS || op == H13_MAC_OP_CHMAX);
		td_first_source_refusal(r, tiles, lm, no); /* (fw/td paths.c: compute_td's, the groups') */
		if ((pool || conv) && !groups && !lm->any)
			td_window_covers_refusal(r, no);
		/* compute_td's elementwise path: elementwise_sources, after its window and first source
		 * (the window and source lines carry those, and the model stops there) */
		struct td_refusal first = {0};
		td_elementwise_window_refusal(r, &first);
		const int src = l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W) ||
				((bar_en >> H13_BAR_RBASE0 & 1u) && H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN));
		if (td_elementwise_path(r, lm) && !first.why && src)
			td_elementwise_sources_refusal(r, tiles, resident, no);
		/* the L2 paths' (conv_l2, l2mem_elementwise), where compute_td takes them */
		const int l2p = td_l2_path(r, lm);
		if (l2p == TD_L2_PATH_CONV) {
			td_conv_l2_refusal(r, tiles, lm, 0, no);
			td_conv_l2_refusal(r, tiles, lm, 1, no);
		} else if (l2p == TD_L2_PATH_EW) {
			td_l2mem_ew_refusal(r, tiles, lm, 0, 1, no);
			td_l2mem_ew_refusal(r, tiles, lm, 1, 1, no);
		}
	}
}
