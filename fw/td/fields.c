/*
 * The fields of a TD the engine model reads no meaning from, refused at any value no real program
 * holds (docs/engine-model.md, "Faults" and "The register census"; "The text and the model's
 * refusals agree"): engine/model/compute.c's data_unread_fields (every TD), decode_ne's
 * ElemMultMode and ne_unread_fields (the NE's, on a TD whose result leaves or a reduction). Each
 * condition and its text is stated here once; the model faults with the first, inspect marks it on
 * a "registers:" line. Pure register logic (the register map's fields from fw/regmap).
 */
#include "fw/regmap/regmap.h"
#include "fw/td/td.h"

#include <string.h>

#define GET(a) (r->get(r->ctx, (a)))

void td_fixed_refusal(const struct td_regs *r, const struct td_fixed *z, unsigned n, unsigned skip,
		      struct td_refusal *no)
{
	for (unsigned i = 0; i < n && !no->why; i++) {
		if ((skip & TD_SKIP_DEPTH) && (z[i].reg == H13_COMMON_INDEPTH || z[i].reg == H13_COMMON_OUTDEPTH))
			continue;
		if ((skip & TD_SKIP_OX) && z[i].reg == H13_COMMON_CONVCFG && z[i].lsb == H13_CONVCFG_OX_LSB)
			continue;
		if ((skip & TD_SKIP_RESULT_DMAFMT) && z[i].reg == H13_L2_RESULTCFG && z[i].lsb == H13_L2_DMAFMT_LSB)
			continue;
		if ((skip & TD_SKIP_INTERLEAVE) && (z[i].lsb == H13_L2_DMAINTERLEAVE_LSB ||
						    z[i].lsb == H13_FMT_INTERLEAVE_LSB) &&
		    (z[i].reg == H13_L2_SOURCECFG || z[i].reg == H13_L2_RESULTCFG ||
		     z[i].reg == H13_SRC_FMT || z[i].reg == H13_DST_FMT))
			continue;
		uint32_t v = (GET(z[i].reg) >> z[i].lsb) & td_field_mask(z[i].width);
		if (v != z[i].value)
			td_refuse(no, 0, z[i].reg, z[i].lsb, z[i].width, z[i].why);
	}
}

/*
 * The register words whose bits outside every field the register map names are 0 in every real
 * program (anefw-tool census: the model reads no such bit; tools/anefw-tool/cmd_census.c), read
 * from the map (fw/regmap): every register with fields in a block a TD may write, less the four
 * whose unnamed bits real programs set (Common.Cfg, Common.ChCfg bit 3,
 * NE.KernelCfg bits 12 and 14, TileDMADst.DMAConfig bits 18 and 22; TileDMASrc.Src2DMAConfig has
 * no field in the map and is not checked) and the three whose own checks name such bits
 * (NE.MACCfg, Planar.Cfg, Planar.PreScale).
 */
static int outside_skipped(const struct rm_block *b, const struct rm_reg *r)
{
	static const char *const skip[][2] = {{"Common", "Cfg"}, {"Common", "ChCfg"},
					      {"NE", "KernelCfg"}, {"TileDMADst", "DMAConfig"},
					      {"NE", "MACCfg"}, {"Planar", "Cfg"}, {"Planar", "PreScale"}};
	for (unsigned i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (!strcmp(b->name, skip[i][0]) && !strcmp(r->name, skip[i][1]))
			return 1;
	return 0;
}

/* Whether td_fixed pins register word a whole (Common's unnamed words) */
static int fixed_whole(uint32_t a)
{
	for (unsigned i = 0; i < td_nfixed; i++)
		if (td_fixed[i].reg == a && td_fixed[i].width >= 32)
			return 1;
	return 0;
}

unsigned td_outside_init(struct td_outside *t, unsigned max, uint32_t window_bytes)
{
	const struct rm_gen *g = rm_gen_by_number(13);
	unsigned n = 0;
	for (unsigned bi = 0; g && bi < g->nblocks; bi++) {
		const struct rm_block *b = &g->blocks[bi];
		for (unsigned ri = 0; !b->fw_only && ri < b->nregs; ri++) {
			const struct rm_reg *rg = &b->regs[ri];
			uint32_t known = 0;
			for (unsigned f = 0; f < rg->nfields; f++)
				known |= rm_field_mask(&rg->fields[f]);
			if (!rg->nfields || !~known || outside_skipped(b, rg))
				continue;
			for (unsigned e = 0; e < rg->count && n < max; e++) {
				uint32_t a = b->base + rg->offset + 4u * e;
				if (a / 4 < window_bytes / 4)
					t[n++] = (struct td_outside){a, ~known, 0};
			}
		}
		/* the words the map does not name: only the bits real programs set (td_unnamed_bits) */
		for (unsigned w = 0; !b->fw_only && w < b->nwords; w++) {
			uint32_t a = b->base + 4u * w;
			struct rm_loc loc;
			if (rm_lookup(g, a, &loc) == 0 && loc.reg)
				continue;
			if (fixed_whole(a) || a / 4 >= window_bytes / 4 || n >= max)
				continue;
			t[n++] = (struct td_outside){a, ~td_unnamed_bits(a), 1};
		}
	}
	return n;
}

void td_outside_refusal(const struct td_regs *r, const struct td_outside *t, unsigned n, struct td_refusal *no)
{
	for (unsigned i = 0; i < n && !no->why; i++)
		if (GET(t[i].addr) & t[i].mask)
			td_refuse(no, 0, t[i].addr, 0, 32,
				  t[i].unnamed
				  ? "a word the register map does not name holds a bit no program modelled sets "
				    "there (the model reads no meaning from it)"
				  : "a bit outside every field the register map names is set (the model reads "
				    "no meaning from it; none of the real programs we have run sets one)");
}

/*
 * Fields of the data path the model reads no meaning from, each at one value in every real
 * program, are refused at any other (docs/engine-model.md, "Faults" and "The register census"):
 * each might change the values (a ReLU on the L2 input, a shift, a channel offset, compressed
 * vectors, pixel offsets, an elementwise-multiply group mode, an output step, an L2 or tile DMA
 * format) and the model would otherwise compute without it.
 */
void td_data_unread_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k, const struct td_l2mem *lm,
			    const struct td_outside *t, unsigned nt, struct td_refusal *no)
{
	/* L2.SourceCfg.Dependent (a dependency on an earlier TD, by its name in the maps): 0 in every
	 * real program but on TDs whose first operand is an earlier TD's result in L2 memory: 2 on
	 * the NE TD of Apple's softmax that reads the TD before's (in place at rows of 64, elsewhere
	 * at 128), 1 on the PE TD of Apple's select that multiplies the TD before's indicator. The
	 * model runs each TD to the end before the next, so a wait changes nothing; 3, or 1 or 2 on
	 * another source, is refused */
	unsigned dep = H13_GET(GET(H13_L2_SOURCECFG), H13_L2SRC_DEPENDENT);
	if (dep && !((dep == H13_L2SRC_DEPENDENT_L2 || dep == H13_L2SRC_DEPENDENT_PREV) && lm->src1.on &&
		     !lm->keep1))
		TD_REFUSE(no, 0, H13_L2_SOURCECFG, H13_L2SRC_DEPENDENT,
			  "L2.SourceCfg.Dependent not modelled (0 in every program modelled, 1 or 2 on a "
			  "first operand read from L2 memory)");
	/* L2.SourceCfg.Src2Dependent (fw/regmap/h13.h): the same wait for a second operand read from
	 * L2 memory (Apple's macOS GPT-2 gelu); on a second operand that comes otherwise, refused */
	if (H13_GET(GET(H13_L2_SOURCECFG), H13_L2SRC_SRC2DEP) && !lm->src2.on)
		TD_REFUSE(no, 0, H13_L2_SOURCECFG, H13_L2SRC_SRC2DEP,
			  "L2.SourceCfg.Src2Dependent not modelled but on a second operand read from L2 "
			  "memory");
	static const struct td_fixed fixed[] = {
		{H13_L2_CFG, H13_L2CFG_INPUTRELU_LSB, H13_L2CFG_INPUTRELU_W, 0, "L2.L2Cfg.InputReLU not modelled (0 in every program modelled)"},
		{H13_SRC_FMT, H13_FMT_SHIFT_LSB, H13_FMT_SHIFT_W, 0, "TileDMASrc.Fmt.Shift not modelled (0 in every program modelled)"},
		{H13_SRC_FMT, H13_FMT_OFFSETCH_LSB, H13_FMT_OFFSETCH_W, 0, "TileDMASrc.Fmt.OffsetCh not modelled (0 in every program modelled)"},
		{H13_SRC_FMT, H13_FMT_CMPVEC_LSB, H13_FMT_CMPVEC_W, 0, "TileDMASrc.Fmt.CmpVec not modelled (0 in every program modelled)"},
		{H13_DST_FMT, H13_FMT_SHIFT_LSB, H13_FMT_SHIFT_W, 0, "TileDMADst.Fmt.Shift not modelled (0 in every program modelled)"},
		{H13_DST_FMT, H13_FMT_OFFSETCH_LSB, H13_FMT_OFFSETCH_W, 0, "TileDMADst.Fmt.OffsetCh not modelled (0 in every program modelled)"},
		{H13_DST_FMT, H13_FMT_CMPVEC_LSB, H13_FMT_CMPVEC_W, 0, "TileDMADst.Fmt.CmpVec not modelled (0 in every program modelled)"},
		{H13_DST_FMT, H13_DSTFMT_CMPVECFILL_LSB, H13_DSTFMT_CMPVECFILL_W, 0, "TileDMADst.Fmt.CmpVecFill not modelled (0 in every program modelled)"},
		/* found by anefw-tool census: read by nothing, 0 in every real program */
		{H13_L2_SOURCECFG, H13_L2_DMACMPVEC_LSB, H13_L2_DMACMPVEC_W, 0, "L2.SourceCfg.DMACmpVec not modelled (0 in every program modelled)"},
		{H13_L2_SOURCECFG, H13_L2_DMAOFFSETCH_LSB, H13_L2_DMAOFFSETCH_W, 0, "L2.SourceCfg.DMAOffsetCh not modelled (0 in every program modelled)"},
		{H13_L2_RESULTCFG, H13_L2_DMACMPVEC_LSB, H13_L2_DMACMPVEC_W, 0, "L2.ResultCfg.DMACmpVec not modelled (0 in every program modelled)"},
		{H13_L2_RESULTCFG, H13_L2_DMAOFFSETCH_LSB, H13_L2_DMAOFFSETCH_W, 0, "L2.ResultCfg.DMAOffsetCh not modelled (0 in every program modelled)"},
	};
	td_fixed_refusal(r, fixed, sizeof fixed / sizeof fixed[0], 0, no);
	/* KernelDMASrc +0x00's bit 5 goes with phase-sparse kernels only (pk_params: and they with it) */
	if (!H13_GET(GET(H13_NE_KERNELCFG), H13_KERNELCFG_SPARSEFMT) && (GET(H13_KDMA_WORD0) & H13_KDMA_WORD0_SPARSE))
		td_refuse(no, 1, H13_KDMA_WORD0, 0, 32, TD_PK_BIT5_TEXT);
	/* and those real programs hold at a value other than 0 (fw/td: the builders write them) */
	/* a one-byte output leaves through an 8-bit DMA (L2.ResultCfg.DMAFmt: td_result_dmafmt_refusal) */
	const int byte_out = td_dst_dma_on(GET(H13_DST_DMACONFIG), bar_en) && td_tile_fmt_byte(GET(H13_DST_FMT)) >= 0;
	/* InDepth = OutDepth above 1: a reduction's (td_kept_of) or an elementwise TD's (the model's
	 * anem_compute checks the path) */
	/* Common.ConvCfg.Ox: 1, or 2 in the form Apple's depthwise 1x9 pins (refusal.c) */
	td_ox_refusal(r, bar_en, no);
	td_fixed_refusal(r, td_fixed, td_nfixed,
			 (k->role == TD_KEPT_MAKES || td_depth_even(r) ? TD_SKIP_DEPTH : 0u) | TD_SKIP_INTERLEAVE | TD_SKIP_OX |
				 (byte_out ? TD_SKIP_RESULT_DMAFMT : 0u),
			 no);
	/* L2.ResultCfg.DMAFmt with a one-byte destination, the tile formats, L2.SourceCfg.DMAFmt with
	 * a one-byte source (tiles.c) */
	td_result_dmafmt_refusal(r, bar_en, no);
	td_src_fmt_refusal(r, no);
	td_dst_fmt_refusal(r, bar_en, no);
	td_source_dmafmt_refusal(r, no);
	td_outside_refusal(r, t, nt, no);
	/* Common.TileCfg.TileHeight: read by nothing (tiling), 1 or more in every real TD; on an M1
	 * relu's TD with TileCfg written 0 hung (allbilly/ane experimental/expt.md, expt1) */
	if (!H13_GET(GET(H13_COMMON_TILECFG), H13_TILECFG_TILEHEIGHT))
		TD_REFUSE(no, 0, H13_COMMON_TILECFG, H13_TILECFG_TILEHEIGHT,
			  "Common.TileCfg.TileHeight 0 not modelled (1 or more in every real TD; on silicon "
			  "a TD with TileCfg 0 hung)");
	/* the second tile source's format: fp16 (0x2030) where the second operand comes by the tile
	 * DMA, 0 elsewhere, in every real program (td_src2_fmt); the model reads fp16 */
	uint32_t f2 = GET(H13_SRC2_FMT), want2 = td_src2_fmt(GET(H13_L2_SOURCECFG));
	if (f2 != want2)
		td_refuse(no, 0, H13_SRC2_FMT, 0, 32,
			  want2 ? "TileDMASrc.Src2Fmt other than 0x2030 (fp16, as in every real TD whose "
				  "second operand comes by the tile DMA) not modelled"
				: "TileDMASrc.Src2Fmt set on a TD whose second operand does not come by the "
				  "tile DMA (L2.SourceCfg.Src2DMA 0; 0 in every such real TD) not modelled");
	/* the model pads with zeros (a convolution) or leaves padded positions out (pooling); which
	 * padding L2Cfg.PaddingMode selects is unknown (softmax.bin sets 1 and pads nothing) */
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	if (H13_GET(GET(H13_L2_CFG), H13_L2CFG_PADDINGMODE) && (win.px || win.py))
		TD_REFUSE(no, 1, H13_L2_CFG, H13_L2CFG_PADDINGMODE,
			  "L2.L2Cfg.PaddingMode above 0 with padding not modelled (the model pads with zeros; no program modelled pads)");
	for (unsigned n = 0; n < H13_SRC_NPIXELOFFSET; n++)
		if (H13_GET(GET(H13_SRC_PIXELOFFSET(n)), H13_PIXELOFFSET))
			TD_REFUSE(no, 0, H13_SRC_PIXELOFFSET(n), H13_PIXELOFFSET,
				  "TileDMASrc.PixelOffset not modelled (0 in every program modelled)");
}

/* decode_ne: ElemMultMode belongs to OpMode 2 (with the NE configured: MACCfg not 0); the channel
 * products' own checks are td_channel_groups_refusal's */
void td_elemmult_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	if (H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_ELEMMULTMODE) &&
	    !(mac && H13_GET(mac, H13_MACCFG_OPMODE) == H13_MAC_OP_RCAS))
		TD_REFUSE(no, 0, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_ELEMMULTMODE,
			  "Common.GroupConvCfg.ElemMultMode not modelled but with NE.MACCfg.OpMode 2 (0 in every "
			  "other real program)");
}

/*
 * The NE fields the model reads no meaning from hold the values every real program holds, or the
 * TD is refused (docs/engine-model.md, "Registers the model interprets"): MatrixBiasEn,
 * PostScaleMode, MatrixVectorBias and PostScale.PostRightShift are 0 in every real program (each
 * would add a bias or change a scale the model does not apply); BiasMode only on a convolution
 * with kernels in memory (each kernel then starts with its bias, load_kernels); BinaryPoint is 0 or 28 (0x1c,
 * the fp16 kernels and conv.hwx); KernelMode is 1 on every elementwise NE (OpMode 4: the kernels,
 * relu/sigmoid/concat.hwx); no MACCfg bit outside the map's fields is set; Bit20 is set (every
 * real NE configuration sets it, and on an M1 a sigmoid with it clear, MACCfg 0x2000c, gave 0.9995
 * for sigmoid(3) = 0.9526: allbilly/ane REGISTER_PROGRMMING.md, 12.2); PostScale is finite and
 * AccBias not a NaN (no real program holds either). Checked only with the NE in the path (MACCfg
 * nonzero).
 */
void td_ne_unread_refusal(const struct td_regs *r, struct td_refusal *no)
{
	static const struct td_fixed zero[] = {
		{H13_NE_MACCFG, H13_MACCFG_MATRIXBIASEN_LSB, H13_MACCFG_MATRIXBIASEN_W, 0, "NE.MACCfg.MatrixBiasEn not modelled (0 in every program modelled)"},
		{H13_NE_MACCFG, H13_MACCFG_POSTSCALEMODE_LSB, H13_MACCFG_POSTSCALEMODE_W, 0, "NE.MACCfg.PostScaleMode not modelled (0 in every program modelled)"},
		{H13_NE_MATRIXVECTORBIAS, H13_MATRIXVECTORBIAS_LSB, H13_MATRIXVECTORBIAS_W, 0, "NE.MatrixVectorBias not modelled (0 in every program modelled)"},
		{H13_NE_POSTSCALE, H13_POSTSCALE_RSHIFT_LSB, H13_POSTSCALE_RSHIFT_W, 0, "NE.PostScale.PostRightShift not modelled (0 in every program modelled)"},
	};
	const uint32_t mac = GET(H13_NE_MACCFG);
	const uint32_t known = H13_PUT(H13_MACCFG_OPMODE, ~0u) | H13_PUT(H13_MACCFG_KERNELMODE, ~0u) |
			       H13_PUT(H13_MACCFG_BIASMODE, ~0u) | H13_PUT(H13_MACCFG_MATRIXBIASEN, ~0u) |
			       H13_PUT(H13_MACCFG_BINARYPOINT, ~0u) | H13_PUT(H13_MACCFG_POSTSCALEMODE, ~0u) |
			       H13_PUT(H13_MACCFG_NONLINEARMODE, ~0u) | H13_PUT(H13_MACCFG_BIT20, ~0u);
	const unsigned bp = H13_GET(mac, H13_MACCFG_BINARYPOINT);
	if (!mac)
		return; /* the NE is not in the path: its registers have no effect */
	if (mac & ~known)
		td_refuse(no, 0, H13_NE_MACCFG, 0, 32, "NE.MACCfg has bits outside the fields the model knows");
	if (!H13_GET(mac, H13_MACCFG_BIT20))
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_BIT20,
			  "NE.MACCfg.Bit20 clear not modelled (set in every real NE configuration; on silicon "
			  "a sigmoid with it clear computed something else)");
	/* an infinite or NaN NE.PostScale: no real program; on an M1 relu's TD with PostScale 0xffff
	 * gave inf for 5 (allbilly/ane experimental/expt.md, expt1), where x NaN gives NaN */
	if ((H13_GET(GET(H13_NE_POSTSCALE), H13_POSTSCALE) & 0x7c00u) == 0x7c00u)
		TD_REFUSE(no, 0, H13_NE_POSTSCALE, H13_POSTSCALE,
			  "NE.PostScale infinite or NaN not modelled (finite in every real program; on "
			  "silicon PostScale 0xffff gave inf, not NaN)");
	/* a NaN NE.AccBias (a bias on a convolution, the unit kernel's addend): guide 03 makes a
	 * NaN +inf where the tiles enter, not in a register; no program holds one (an infinite one
	 * is read: the guide's inf - inf for the unit kernel, acc_row_amb on a convolution) */
	{
		const unsigned ab = H13_GET(GET(H13_NE_ACCBIAS), H13_ACCBIAS);
		if ((ab & 0x7c00u) == 0x7c00u && (ab & 0x3ffu))
			TD_REFUSE(no, 0, H13_NE_ACCBIAS, H13_ACCBIAS,
				  "NE.AccBias a NaN not modelled (what the MAC does with a NaN bias is not "
				  "pinned; guide 03 makes a NaN +inf only where the tiles enter)");
	}
	td_fixed_refusal(r, zero, sizeof zero / sizeof zero[0], 0, no);
	if (bp && bp != H13_BINARYPOINT_FP16)
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_BINARYPOINT, "NE.MACCfg.BinaryPoint not modelled (0 or 28 in every real program)");
	/* a bias comes with a convolution's kernels from memory (Apple's H13 convolutions with a
	 * bias: each kernel's first element) */
	if (H13_GET(mac, H13_MACCFG_BIASMODE) &&
	    (H13_GET(mac, H13_MACCFG_OPMODE) != H13_MAC_OP_CONV || H13_GET(mac, H13_MACCFG_KERNELMODE)))
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_BIASMODE,
			  "NE.MACCfg.BiasMode other than on a convolution with kernels in memory (OpMode "
			  "0, KernelMode 0) not modelled");
	if (H13_GET(mac, H13_MACCFG_OPMODE) == H13_MAC_OP_ELEMWISE && !H13_GET(mac, H13_MACCFG_KERNELMODE))
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_KERNELMODE,
			  "NE.MACCfg.KernelMode 0 on an elementwise NE (a kernel from memory) not modelled (1 in every real elementwise NE)");
}
