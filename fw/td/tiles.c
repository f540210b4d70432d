/*
 * The tile DMA's refusals that the engine model and inspect share (docs/engine-model.md, "The text
 * and the model's refusals agree"): the tile formats (TileDMASrc.Fmt, TileDMADst.Fmt and the L2
 * DMA formats that go with them), a destination over a tile source, and a destination whose own
 * rows, planes, depths or groups overlap. Each condition and its text is stated here once;
 * engine/model/compute.c faults with it where it checked the condition itself before, and
 * fw/td/op.c marks the source or result line "(not modelled: <text>)". Pure register logic.
 */
#include "fw/td/td.h"

#define GET(a) (r->get(r->ctx, (a)))

/* ---- the formats (data_unread_fields) ---- */

/*
 * FmtMode, Truncate and MemFmt of an enabled tile DMA: (1, 3, 2) in every real fp16 program
 * (TD_TILE_FMT_FP16), and (1, 0, 0) in softmax.bin TD 4's source, read as the tensor's
 * Common.ChCfg format says; or, for a one-byte tensor (ChCfg int8 or uint8) only, UINT8 or INT8
 * (TD_TILE_FMT_UINT8, TD_TILE_FMT_INT8: Apple's bool tensors). src: the source DMA; tfmt: the
 * tensor's ChCfg format; first_by_dma: the DMA moves the first operand (L2.SourceCfg.SourceType
 * 2 or 1), not only the second.
 */
static int fmt_known(uint32_t fmt, int src, unsigned tfmt, int first_by_dma)
{
	const uint32_t f = fmt & TD_TILE_FMT_MASK;
	/* fp16 with a one-byte ChCfg format, on a tensor the DMA moves under that format: two
	 * readings (a review found fp16 values read as bytes), refused; a source DMA that moves only
	 * the second operand (the first from L2, as Apple's select) is read by Src2Fmt */
	if (f == TD_TILE_FMT_FP16)
		return tfmt == H13_FMT_FP16 || (src && !first_by_dma);
	/* softmax.bin TD 4's (1, 0, 0), seen on an fp16 tensor only: on a one-byte one the DMA moves
	 * (ChCfg int8 or uint8) which reading applies is not pinned (a review found the bytes read as
	 * ChCfg says), refused as the fp16 word is */
	if (src && f == H13_PUT(H13_FMT_FMTMODE, 1u))
		return tfmt == H13_FMT_FP16 || !first_by_dma;
	return td_tile_fmt_byte(fmt) >= 0 && tfmt != H13_FMT_FP16;
}

/* a one-byte output leaves through an 8-bit DMA (L2.ResultCfg.DMAFmt 0, "8b" in the H16 map; 1,
 * "16b", in every fp16 program: td_fixed), as Apple's H13 logical_not writes its bool */
void td_result_dmafmt_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no)
{
	if (td_dst_dma_on(GET(H13_DST_DMACONFIG), bar_en) && td_tile_fmt_byte(GET(H13_DST_FMT)) >= 0 &&
	    H13_GET(GET(H13_L2_RESULTCFG), H13_L2_DMAFMT) != 0)
		TD_REFUSE(no, 1, H13_L2_RESULTCFG, H13_L2_DMAFMT,
			  "L2.ResultCfg.DMAFmt other than 0 (8-bit) with a one-byte tile DMA destination "
			  "format not modelled");
}

void td_src_fmt_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const unsigned st = H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE);
	if (H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) &&
	    !fmt_known(GET(H13_SRC_FMT), 1, H13_GET(GET(H13_COMMON_CHCFG), H13_CHCFG_INFMT),
		       st == H13_L2_DMA || st == H13_L2_KEEP))
		td_refuse(no, 0, H13_SRC_FMT, 0, 32,
			  "TileDMASrc.Fmt's FmtMode, Truncate and MemFmt of an enabled DMA other than (1, 3, 2) "
			  "with Common.ChCfg.InFmt fp16, as in every real fp16 program, softmax.bin's (1, 0, 0) "
			  "with InFmt fp16, "
			  "or UINT8/INT8 (0, 0, 0)/(0, 0, 1) with InFmt a one-byte format, not modelled");
}

void td_dst_fmt_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no)
{
	if (td_dst_dma_on(GET(H13_DST_DMACONFIG), bar_en) &&
	    !fmt_known(GET(H13_DST_FMT), 0, H13_GET(GET(H13_COMMON_CHCFG), H13_CHCFG_OUTFMT), 1))
		td_refuse(no, 0, H13_DST_FMT, 0, 32,
			  "TileDMADst.Fmt's FmtMode, Truncate and MemFmt of an enabled DMA other than "
			  "(1, 3, 2), as in every real fp16 program, or UINT8/INT8 with Common.ChCfg.OutFmt "
			  "a one-byte format, not modelled");
}

/* a one-byte source comes through an 8-bit DMA (L2.SourceCfg.DMAFmt 0: "8b" in the H16 map; 1,
 * "16b", in every fp16 program) */
void td_source_dmafmt_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) && td_tile_fmt_byte(GET(H13_SRC_FMT)) >= 0 &&
	    H13_GET(GET(H13_L2_SOURCECFG), H13_L2_DMAFMT) != 0)
		TD_REFUSE(no, 1, H13_L2_SOURCECFG, H13_L2_DMAFMT,
			  "L2.SourceCfg.DMAFmt other than 0 (8-bit) with a one-byte tile DMA source format "
			  "not modelled");
}

/* ---- where the tiles lie ---- */

void td_tile_geom_of(const struct td_regs *r, unsigned kind, struct td_tile_geom *t)
{
	static const uint32_t strides[3][4] = {
		{H13_SRC_ROWSTRIDE, H13_SRC_PLANESTRIDE, H13_SRC_DEPTHSTRIDE, H13_SRC_GROUPSTRIDE},
		{H13_SRC2_ROWSTRIDE, H13_SRC2_PLANESTRIDE, H13_SRC2_DEPTHSTRIDE, H13_SRC2_GROUPSTRIDE},
		{H13_DST_ROWSTRIDE, H13_DST_PLANESTRIDE, H13_DST_DEPTHSTRIDE, H13_DST_GROUPSTRIDE}};
	const int out = kind == TD_R_DST;
	const uint32_t *s = strides[kind == TD_R_SRC1 ? 1 : out ? 2 : 0];
	const uint32_t chcfg = GET(H13_COMMON_CHCFG), dim = GET(out ? H13_COMMON_OUTDIM : H13_COMMON_INDIM);
	t->fmt = out ? H13_GET(chcfg, H13_CHCFG_OUTFMT) : H13_GET(chcfg, H13_CHCFG_INFMT);
	t->elem = td_fmt_bytes(t->fmt);
	t->w = out ? H13_GET(dim, H13_OUTDIM_WOUT) : H13_GET(dim, H13_INDIM_WIN);
	t->h = out ? H13_GET(dim, H13_OUTDIM_HOUT) : H13_GET(dim, H13_INDIM_HIN);
	t->c = out ? H13_GET(GET(H13_COMMON_COUT), H13_COUT) : H13_GET(GET(H13_COMMON_CIN), H13_CIN);
	t->g = H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	t->row = H13_ADDR_BYTES(GET(s[0]));
	t->plane = H13_ADDR_BYTES(GET(s[1]));
	t->depth = H13_ADDR_BYTES(GET(s[2]));
	t->group = H13_ADDR_BYTES(GET(s[3]));
	t->d = td_depth(r, out);
}

/* its rows of W elements, then its H, C, D and G steps (those above 1) taken in order of stride,
 * each stride at least the span of the steps below it (a layout every real destination has; the
 * L2 results' check is l2mem.c's) */
int td_tile_self_overlaps(const struct td_tile_geom *t)
{
	uint64_t n[4] = {t->h, t->c, t->d ? t->d : 1u, t->g}, st[4] = {t->row, t->plane, t->depth, t->group};
	int used[4] = {0, 0, 0, 0};
	uint64_t span = (uint64_t)t->w * t->elem;
	for (unsigned step = 0; step < 4; step++) {
		int k = -1;
		for (unsigned i = 0; i < 4; i++)
			if (!used[i] && n[i] > 1u && (k < 0 || st[i] < st[k]))
				k = (int)i;
		if (k < 0)
			break;
		used[k] = 1;
		if (st[k] < span)
			return 1;
		if (st[k] > UINT64_MAX / (n[k] - 1u) || span > UINT64_MAX - st[k] * (n[k] - 1u))
			return 1; /* (no product overflows: the division's test comes first) */
		span += st[k] * (n[k] - 1u);
	}
	return 0;
}

int td_tiles_place(uint64_t sa, uint64_t sl, const struct td_tile_geom *s, uint64_t da, uint64_t dl,
		   const struct td_tile_geom *d)
{
	if (sa + sl <= da || da + dl <= sa)
		return TD_TILES_APART;
	return sa == da && s->elem == d->elem && s->fmt == d->fmt && s->row == d->row && s->plane == d->plane &&
			       s->depth == d->depth && s->group == d->group && s->w == d->w && s->h == d->h &&
			       s->c == d->c && s->g == d->g && s->d == d->d
		       ? TD_TILES_SAME_PLACE
		       : TD_TILES_OVERLAP;
}

void td_tiles_overlap_refuse(struct td_refusal *no)
{
	TD_REFUSE(no, 1, H13_DST_BASEADDR, H13_ADDR,
		  "a destination whose bytes overlap a tile source's, other than element for element "
		  "in the same place on an elementwise TD, not modelled (the engine's order of a TD's "
		  "reads and writes is not published)");
}


int td_in_place_reordered(const struct td_regs *r, unsigned bar_en, const struct td_l2mem *lm)
{
	return td_out_transposed(r, bar_en, lm) || td_tile_interleave(GET(H13_SRC_FMT)) != td_tile_interleave(GET(H13_DST_FMT));
}

int td_in_place_reads_others(const struct td_regs *r, const struct td_l2mem *lm)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	const int ne = mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r));
	const int unit = ne && op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE);
	return lm->any ||
	       (td_pe_in_path(GET(H13_COMMON_CFG)) && H13_GET(GET(H13_PLANAR_CFG), H13_PECFG_POOLMODE) != H13_PE_POOL_NONE) ||
	       (ne && op != H13_MAC_OP_ELEMWISE && !(op == H13_MAC_OP_CONV && unit));
}

/* the destination as the tile DMA writes it: C and W swapped when transposed; interleaved by I,
 * rows of W x I values and C / I planes */
void td_dst_self_overlap_refusal(const struct td_regs *r, unsigned bar_en, const struct td_l2mem *lm,
				 struct td_refusal *no)
{
	if (!td_dst_writes(bar_en))
		return;
	struct td_tile_geom t;
	td_tile_geom_of(r, TD_R_DST, &t);
	if (td_out_transposed(r, bar_en, lm)) {
		const unsigned w = t.w;
		t.w = t.c;
		t.c = w;
	}
	const unsigned ilv = td_tile_interleave(GET(H13_DST_FMT));
	if (ilv > 1u) {
		t.w *= ilv;
		t.c /= ilv;
	}
	if (td_tile_self_overlaps(&t))
		td_refuse(no, 1, H13_DST_ROWSTRIDE, 0, 32,
			  "a destination whose rows, planes, depths or groups overlap one another (its "
			  "strides) not modelled (which write wins is not published)");
}

/* ---- channel interleave (compute's checks, which inspect marks) ---- */

/* One side: its tile DMA's Fmt.Interleave (fmt_reg) and the L2 side's DMAInterleave that goes with
 * it (l2_reg); on: the tile DMA moves the side; other: a reduction's or an L2-resident or
 * L2-memory result (the destination), or an L2-resident source; t: the tile as the DMA moves it */
static void interleave_side(const struct td_regs *r, uint32_t fmt_reg, uint32_t l2_reg, int on,
			    const struct td_tile_geom *t, int other, struct td_refusal *no)
{
	const unsigned f = H13_GET(GET(fmt_reg), H13_FMT_INTERLEAVE);
	const unsigned l = H13_GET(GET(l2_reg), H13_L2_DMAINTERLEAVE);
	if (!td_interleave_modelled(f))
		TD_REFUSE(no, 0, fmt_reg, H13_FMT_INTERLEAVE,
			  "a tile DMA's Fmt.Interleave other than 1, 2, 4 or 8 not modelled (Apple's "
			  "programs set 1, and 2, 4 or 8 on channel-interleaved intermediates)");
	else if (l != f)
		TD_REFUSE(no, f != 1u, l2_reg, H13_L2_DMAINTERLEAVE,
			  "an L2 DMAInterleave other than its tile DMA's Fmt.Interleave not modelled (the "
			  "two agree, 1, 2, 4 or 8, in every real program)");
	else if (f == 1u)
		return;
	else if (!on || other)
		TD_REFUSE(no, 1, fmt_reg, H13_FMT_INTERLEAVE,
			  "channel interleave on a side the tile DMA does not move, or on a reduction's "
			  "or an L2-resident result, not modelled");
	else if (t->fmt != H13_FMT_FP16 || t->d != 1u || t->c % f || (uint64_t)t->w * f > TD_ROW_MAX)
		TD_REFUSE(no, 1, fmt_reg, H13_FMT_INTERLEAVE,
			  "channel interleave modelled on fp16 tiles of depth 1, channels a multiple of "
			  "the interleave and rows of at most 32768 values only");
}

void td_interleave_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k,
			   const struct td_l2mem *lm, struct td_refusal *no)
{
	const int src_en = H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) != 0;
	const int rs0 = src_en && (bar_en >> H13_BAR_RBASE0 & 1u), rs1 = src_en && (bar_en >> H13_BAR_RBASE1 & 1u);
	const int l2src = H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE) == H13_L2_RESIDENT;
	const int l2res = H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) == H13_L2_RESIDENT;
	struct td_tile_geom in0, in1, dst;
	td_tile_geom_of(r, TD_R_SRC0, &in0);
	td_tile_geom_of(r, TD_R_SRC1, &in1);
	td_tile_geom_of(r, TD_R_DST, &dst);
	if (td_out_transposed(r, bar_en, lm)) { /* C and W swapped, as the tile DMA writes it */
		const unsigned w = dst.w;
		dst.w = dst.c;
		dst.c = w;
	}
	/* the source side's interleave is the first tile source's, and the second's with it; where
	 * the first operand comes from L2 memory and the second by the tile DMA, the second's alone
	 * (Apple's softmax over 1x8x375x375, TD 4) */
	const int ilv_second = !rs0 && rs1 && lm->src1.on && !l2src;
	if (!ilv_second)
		interleave_side(r, H13_SRC_FMT, H13_L2_SOURCECFG, rs0, &in0, l2src, no);
	if (rs1)
		interleave_side(r, H13_SRC_FMT, H13_L2_SOURCECFG, 1, &in1, 0, no);
	interleave_side(r, H13_DST_FMT, H13_L2_RESULTCFG, td_dst_writes(bar_en), &dst,
			k->role == TD_KEPT_MAKES || l2res || lm->res.on, no);
}

void td_tile_place_refusal(const struct td_regs *r, const struct td_hdr *h, const struct td_kept *k,
			   const struct td_l2mem *lm, struct td_refusal *no)
{
	struct td_range rg[TD_MAX_RANGES];
	unsigned n = 0;
	if (!td_dst_writes(h->bar_en))
		return;
	/* the tile ranges come first (the kernel streams' lengths are not known here) */
	(void)td_ranges(h, r, NULL, rg, TD_MAX_RANGES, &n, NULL, NULL);
	const struct td_range *d = NULL;
	for (unsigned i = 0; i < n; i++)
		if (rg[i].kind == TD_R_DST)
			d = &rg[i];
	int alias = 0;
	struct td_tile_geom gd, gs;
	td_tile_geom_of(r, TD_R_DST, &gd);
	for (unsigned i = 0; d && i < n; i++) {
		/* tiles in two BARs never overlap: the control path refuses two used BARs at
		 * overlapping addresses (bar-address-aliased) */
		if ((rg[i].kind != TD_R_SRC0 && rg[i].kind != TD_R_SRC1) || rg[i].bar != d->bar)
			continue;
		td_tile_geom_of(r, rg[i].kind, &gs);
		const int p = td_tiles_place(rg[i].addr, rg[i].len, &gs, d->addr, d->len, &gd);
		if (p == TD_TILES_OVERLAP)
			td_tiles_overlap_refuse(no);
		alias |= p == TD_TILES_SAME_PLACE;
	}
	/* in the model's order: in place but reordered, or a reduction's; the destination's own
	 * overlap (not a reduction's); in place where the outputs read other elements */
	if (alias && (td_in_place_reordered(r, h->bar_en, lm) || k->role == TD_KEPT_MAKES))
		td_tiles_overlap_refuse(no);
	if (k->role != TD_KEPT_MAKES)
		td_dst_self_overlap_refusal(r, h->bar_en, lm, no);
	if (alias && td_in_place_reads_others(r, lm))
		td_tiles_overlap_refuse(no);
}
