/*
 * What the engine model's paths refuse on a TD's registers and header alone, where inspect marks it
 * too (docs/engine-model.md, "The text and the model's refusals agree"): an elementwise TD's
 * sources and shapes (engine/model/compute.c elementwise_sources), a depth outside the TDs that
 * take one (at_depths; each side's channel interleave is fw/td/tiles.c's), and the L2 paths'
 * combinations (conv_l2, l2mem_elementwise). Each condition and its
 * text is stated here once; the model faults with the refusal recorded here (td_refusal_fault),
 * inspect's "registers:" line carries it (td_registers_refusal). Pure register logic.
 */
#include "fw/td/td.h"

#define GET(a) (r->get(r->ctx, (a)))

static int l2_resident(const struct td_regs *r, uint32_t cfg_reg, unsigned lsb, unsigned width)
{
	return ((GET(cfg_reg) >> lsb) & td_field_mask(width)) == H13_L2_RESIDENT;
}

/* The tiles a TD has (td_ranges gives them a range): a tile source where its slot is bound and the
 * source DMA enabled, the destination where WBase is bound (td_dst_writes); bit i for enum
 * h13_bar_slot i. The model passes the ranges it holds, inspect this. */
unsigned td_tiles_there(const struct td_regs *r, unsigned bar_en)
{
	const unsigned en = H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) ? 1u : 0u;
	return (bar_en & (en << H13_BAR_RBASE0 | en << H13_BAR_RBASE1)) | (bar_en & 1u << H13_BAR_WBASE);
}

static int src_there(const struct td_regs *r, unsigned tiles, unsigned slot)
{
	(void)r;
	return tiles >> slot & 1u;
}

/* the NE computing: in the path (MACCfg nonzero) and not a pass-through (decode_ne) */
static int ne_computes(const struct td_regs *r)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	return mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r));
}

static int pe_pools(const struct td_regs *r)
{
	return td_pe_in_path(GET(H13_COMMON_CFG)) && H13_GET(GET(H13_PLANAR_CFG), H13_PECFG_POOLMODE) != H13_PE_POOL_NONE;
}

/* compute's otr: Common.Cfg.OutTranspose (or PECfg.OutputTranspose on a TD that is not a
 * reduction: td_dst_cw_swapped) on a result the tile DMA writes (through WBase), and not only kept
 * in L2 memory (a result kept there and written through WBase with En clear is transposed in both
 * copies, td_dst_writes_en_clear); tiles.c's in-place and interleave checks read it too */
int td_out_transposed(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm)
{
	return td_dst_cw_swapped(r) && td_dst_writes(tiles) &&
	       (!lm->res.on || td_dst_writes_en_clear(GET(H13_DST_DMACONFIG), tiles));
}

int td_elementwise_path(const struct td_regs *r, const struct td_l2mem *lm)
{
	const uint32_t mac = GET(H13_NE_MACCFG), gc = GET(H13_COMMON_GROUPCONVCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	if (lm->any || pe_pools(r))
		return 0;
	if (!ne_computes(r) || op == H13_MAC_OP_ELEMWISE)
		return 1;
	/* the unit kernel (KernelMode 1) but its sum over channels (ne_channel_groups) */
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	return op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE) &&
	       !(td_window_unit(&win) &&
		 td_unit_sum(H13_GET(GET(H13_COMMON_CIN), H13_CIN), H13_GET(GET(H13_COMMON_COUT), H13_COUT), gc));
}

/*
 * elementwise_sources, after the window and the first source's presence (which the model checks
 * first, and inspect marks on the window and source lines): a second operand (Planar.Cfg.SecSrc 2
 * or 3, the PE in the path) with no second tile source there, a source smaller than the output (a
 * broadcast, which no map describes on H13), an output of another shape than the tile input (a
 * crop), and a one-byte first operand beside a second by tile DMA (read as fp16, Src2Fmt). The
 * second tile source's shape is the first's (Cin x InDim, NumGroups). resident: the shape of the
 * L2-resident tensor an L2-resident source (L2.SourceCfg.SourceType 3) reads, which the TD that
 * wrote it gave (the model's); NULL where the first source is a tile, or where that shape is not
 * known (inspect): then whether the source is a broadcast is left unrecorded, and the checks after
 * it, each refused whatever that shape, are recorded (the text may then be the crop's where the
 * model, knowing the shape, names the broadcast).
 */
void td_elementwise_sources_refusal(const struct td_regs *r, unsigned tiles, const struct td_dims *resident,
				    struct td_refusal *no)
{
	const int pe_two = td_pe_in_path(GET(H13_COMMON_CFG)) && td_pe_two_operands(GET(H13_PLANAR_CFG));
	if (pe_two && !src_there(r, tiles, H13_BAR_RBASE1))
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			  "Planar.Cfg.SecSrc 2 or 3 (a second operand) with no second tile source "
			  "(RBase1) bound: not modelled");
	struct td_tile_geom in, out;
	td_tile_geom_of(r, TD_R_SRC0, &in);
	td_tile_geom_of(r, TD_R_DST, &out);
	const int l2src = l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W);
	const struct td_dims tile = {in.w, in.h, in.c, in.g};
	const struct td_dims *first = l2src ? resident : &tile;
	const int small2 = pe_two && (in.w < out.w || in.h < out.h || in.c < out.c || in.g < out.g);
	const int small1 = first && (first->w < out.w || first->h < out.h || first->c < out.c || first->g < out.g);
	if (small1 || small2)
		td_refuse(no, 1, TD_KEPT_NO_REG, 0, 0, "a source smaller than the output (a broadcast) not modelled");
	/* larger: the output a crop of it, which the L2 path, the channel groups and reductions
	 * refuse too. An output of another shape than the TD's input (InDim, Cin) is refused
	 * whatever the resident tensor's shape (one smaller than the output as a broadcast, one
	 * smaller than the input by the model's L2-resident checks before, a larger one here) */
	if (in.w != out.w || in.h != out.h || in.c != out.c || in.g != out.g)
		td_refuse(no, 1, H13_COMMON_OUTDIM, 0, 32,
			  "an elementwise TD whose output is not its input's shape (Common.InDim, Cin "
			  "against OutDim, Cout) not modelled");
	/* the second tile operand is fp16 (TileDMASrc.Src2Fmt, td_src2_fmt), read with the first
	 * operand's format (Common.ChCfg.InFmt) there: a one-byte first operand would misread it */
	if (pe_two && in.fmt != H13_FMT_FP16)
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
			  "a one-byte first operand with a second PE operand by tile DMA not modelled");
}

/*
 * at_depths: a depth (Common.InDepth = OutDepth above 1, td_depth_even) on a TD that is not a
 * reduction is modelled where it is elementwise by the tile DMA: the NE absent, a pass-through, an
 * elementwise pass or the unit kernel; no pooling; no operand or result in L2 memory or
 * L2-resident; no interleave and no transposed result.
 */
void td_depth_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm, struct td_refusal *no)
{
	if (td_depth_even(r) <= 1u)
		return;
	const uint32_t mac = GET(H13_NE_MACCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	const int ne = ne_computes(r);
	const int moved = td_out_transposed(r, tiles, lm) || td_tile_interleave(GET(H13_SRC_FMT)) > 1u ||
			  td_tile_interleave(GET(H13_DST_FMT)) > 1u;
	if (lm->any || l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W) ||
	    l2_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W) || moved || pe_pools(r) ||
	    (ne && op != H13_MAC_OP_CONV && op != H13_MAC_OP_ELEMWISE) ||
	    (ne && op == H13_MAC_OP_CONV && !H13_GET(mac, H13_MACCFG_KERNELMODE)))
		TD_REFUSE(no, 1, H13_COMMON_INDEPTH, H13_INDEPTH,
			  "Common.InDepth above 1 on a TD that is neither a reduction nor elementwise by "
			  "the tile DMA (a convolution, pooling, the NE's channel products or maxima, an "
			  "operand or result in L2 memory, interleave or a transposed result) not modelled");
}

/*
 * The L2 paths (compute_td's dispatch of a TD with an operand or result in L2 memory: lm->any):
 * td_l2_path says which, TD_L2_PATH_CONV (conv_l2: a convolution with kernels in memory whose
 * first source is not L2-resident), TD_L2_PATH_EW (l2mem_elementwise), or 0 (not an L2 path, or
 * the NE's channel groups and the unit kernel's sum over channels, which ne_channel_groups takes).
 */
int td_l2_path(const struct td_regs *r, const struct td_l2mem *lm)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	const int ne = ne_computes(r), unit = ne && op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE);
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	if (!lm->any)
		return 0;
	if (ne && (op == H13_MAC_OP_RCAS || op == H13_MAC_OP_CHMAX ||
		   (unit && td_window_unit(&win) &&
		    td_unit_sum(H13_GET(GET(H13_COMMON_CIN), H13_CIN), H13_GET(GET(H13_COMMON_COUT), H13_COUT),
				GET(H13_COMMON_GROUPCONVCFG)))))
		return 0;
	if (ne && op == H13_MAC_OP_CONV && !unit &&
	    !l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W))
		return TD_L2_PATH_CONV;
	return TD_L2_PATH_EW;
}

#define L2_NO_FIRST_TEXT                                                                           \
	"the first source is neither in L2 memory nor a bound tile source (RBase0): not modelled"

/*
 * conv_l2's: stage 0, first: a second operand in L2 memory, or the result both there and
 * L2-resident; then no first source (neither in L2 memory nor a tile source there: the path
 * convolved nothing, every input row outside its range read as padding, and the run completed,
 * until 2026-12-06); stage 1, after the activation record's check and the operand kept (data): a
 * one-byte operand in L2 memory.
 */
void td_conv_l2_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm, int stage,
			struct td_refusal *no)
{
	if (!stage && (lm->src2.on ||
		       (lm->res.on && l2_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W))))
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_OPMODE,
			  "a convolution with a second operand in L2 memory, or its result both there "
			  "and L2-resident, not modelled");
	if (!stage && !lm->src1.on && !src_there(r, tiles, H13_BAR_RBASE0))
		td_refuse(no, 1, TD_KEPT_NO_REG, 0, 0, L2_NO_FIRST_TEXT);
	if (stage && lm->src1.on && lm->src1.elem != 2u)
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
			  "a convolution whose one-byte operand is in L2 memory not modelled");
}

/*
 * l2mem_elementwise's, in its order. Stage 0, first: the NE a convolution with kernels in memory,
 * the unit kernel's shape (td_unit_kernel_refusal), pooling, a window (td_elementwise_window_refusal),
 * a one-byte output, a one-byte first operand beside a second, a one-byte first operand in L2
 * memory with the 16-bit L2 DMA format, an output of another shape than the tile input, no first
 * source, a second operand by tile DMA with no second tile source there. Stage 1, after the rows
 * kept and read (data): L2.L2Cfg.Src2ReLU on a normalize's pair. own_lines (inspect): the unit
 * kernel's shape and the window, which the NE and window lines carry, stop the walk unrecorded.
 */
void td_l2mem_ew_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm, int stage,
			 int own_lines, struct td_refusal *no)
{
	if (stage) {
		if (lm->pair && H13_GET(GET(H13_L2_CFG), H13_L2CFG_SRC2RELU))
			TD_REFUSE(no, 1, H13_L2_CFG, H13_L2CFG_SRC2RELU,
				  "L2.L2Cfg.Src2ReLU on a normalize (TaskType 4) not modelled (no real one sets it)");
		return;
	}
	const uint32_t mac = GET(H13_NE_MACCFG), ch = GET(H13_COMMON_CHCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	const int ne = ne_computes(r), unit = ne && op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE);
	const int pe_two = td_pe_in_path(GET(H13_COMMON_CFG)) && td_pe_two_operands(GET(H13_PLANAR_CFG));
	struct td_tile_geom in, out;
	td_tile_geom_of(r, TD_R_SRC0, &in);
	td_tile_geom_of(r, TD_R_DST, &out);
	if (ne && op != H13_MAC_OP_ELEMWISE && !unit)
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_OPMODE,
			  "a convolution with an operand or its result in L2 memory not modelled");
	struct td_refusal line = {0};
	if (unit)
		td_unit_kernel_refusal(r, in.c, out.c, own_lines ? &line : no);
	if (line.why)
		return;
	if (pe_pools(r))
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_POOLMODE,
			  "pooling with an operand or its result in L2 memory not modelled");
	td_elementwise_window_refusal(r, own_lines ? &line : no);
	if (line.why || no->why)
		return;
	/* a one-byte first operand (by tile DMA, or in L2 a byte an element: Apple's H13 select keeps
	 * its bool so) through the input port; one-byte outputs and second operands with L2 memory
	 * are not modelled */
	if (H13_GET(ch, H13_CHCFG_OUTFMT) != H13_FMT_FP16)
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT, "L2 memory with a one-byte output format not modelled");
	if (H13_GET(ch, H13_CHCFG_INFMT) != H13_FMT_FP16 && pe_two)
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
			  "L2 memory with a one-byte first operand and a second PE operand not modelled");
	if (lm->src1.on && lm->src1.elem == 1u && H13_GET(GET(H13_L2_SOURCECFG), H13_L2_DMAFMT) != 0)
		TD_REFUSE(no, 1, H13_L2_SOURCECFG, H13_L2_DMAFMT,
			  "L2.SourceCfg.DMAFmt other than 0 (8-bit) with a one-byte first operand in L2 "
			  "memory not modelled");
	if (in.w != out.w || in.h != out.h || in.c != out.c || in.g != out.g)
		td_refuse(no, 1, H13_COMMON_OUTDIM, 0, 32,
			  "an elementwise TD with L2 memory whose output is not its input's shape not "
			  "modelled");
	if (!lm->src1.on && !l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W) &&
	    !src_there(r, tiles, H13_BAR_RBASE0))
		td_refuse(no, 1, TD_KEPT_NO_REG, 0, 0, L2_NO_FIRST_TEXT);
	if (pe_two && !lm->src2.on && !src_there(r, tiles, H13_BAR_RBASE1))
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			  "Planar.Cfg.SecSrc 2 or 3 (a second operand) by tile DMA (L2.SourceCfg.Src2DMA "
			  "1) with no second tile source (RBase1) bound: not modelled");
}

/*
 * The first source's presence where the model checks it on a TD whose result leaves: the channel
 * groups (ne_channel_groups, after their own checks: the L2 paths' text), and every path outside L2
 * memory (compute_td, before a window: "neither L2-resident nor a bound tile source"); the L2
 * paths' own predicates check it where they do. A first source: in L2 memory, L2-resident, or a
 * tile source there.
 */
void td_first_source_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm,
			     struct td_refusal *no)
{
	if (lm->src1.on || l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W) ||
	    src_there(r, tiles, H13_BAR_RBASE0))
		return;
	const uint32_t mac = GET(H13_NE_MACCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	const int ne = ne_computes(r), unit = ne && op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE);
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	if (ne && (op == H13_MAC_OP_RCAS || op == H13_MAC_OP_CHMAX ||
		   (unit && td_window_unit(&win) &&
		    td_unit_sum(H13_GET(GET(H13_COMMON_CIN), H13_CIN), H13_GET(GET(H13_COMMON_COUT), H13_COUT),
				GET(H13_COMMON_GROUPCONVCFG)))))
		td_refuse(no, 1, TD_KEPT_NO_REG, 0, 0, L2_NO_FIRST_TEXT);
	else if (!lm->any)
		td_refuse(no, 1, TD_KEPT_NO_REG, 0, 0,
			  "the first source is neither L2-resident nor a bound tile source (RBase0): not modelled");
}

void td_no_first_source_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k,
				const struct td_l2mem *lm, struct td_refusal *no)
{
	const unsigned tiles = td_tiles_there(r, bar_en);
	if (lm->src1.on || l2_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W) ||
	    src_there(r, tiles, H13_BAR_RBASE0))
		return;
	if (k->role == TD_KEPT_MAKES) { /* (td_kept_of's reading, wherever its result goes) */
		if (k->no.why == td_kept_no_source_why)
			td_refuse(no, k->no.cls, k->no.reg, k->no.lsb, k->no.width, k->no.why);
		return;
	}
	if (!td_dst_writes(bar_en) && !l2_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W) &&
	    !lm->res.on)
		return; /* (the model reads no source where no result leaves) */
	td_first_source_refusal(r, tiles, lm, no);
	if (td_l2_path(r, lm))
		td_refuse(no, 1, TD_KEPT_NO_REG, 0, 0, L2_NO_FIRST_TEXT);
}
