#include "fw/td/td.h"
#include "fw/policy/policy.h"

#include <string.h>

/* ---- header ---- */
void td_hdr_decode(const uint32_t w[H13_TD_HEADER_WORDS], struct td_hdr *h)
{
	memset(h, 0, sizeof *h);
	h->tid = H13_GET(w[0], H13_TDH_TID);
	h->nid = H13_GET(w[0], H13_TDH_NID);
	h->lnid = H13_GET(w[0], H13_TDH_LNID);
	h->eon = H13_GET(w[0], H13_TDH_EON);
	h->exe_cycles = H13_GET(w[1], H13_TDH_EXECYCLES);
	h->next_size = H13_GET(w[1], H13_TDH_NEXTSIZE);
	h->log_events = H13_GET(w[2], H13_TDH_MASK24);
	h->exceptions = H13_GET(w[3], H13_TDH_MASK24);
	h->debug_log_events = H13_GET(w[4], H13_TDH_MASK24);
	h->debug_exceptions = H13_GET(w[5], H13_TDH_MASK24);
	h->flags = w[6];
	h->next_ptr = w[7];
	for (unsigned i = 0; i < 4; i++) {
		unsigned lsb = H13_TDH_BAR_STRIDE * i;
		h->bar_idx[i] = (uint8_t)((w[8] >> lsb) & H13_FIELD_MASK(H13_TDH_BARIDX_W));
		h->bar_en |= (uint8_t)(((w[8] >> (lsb + H13_TDH_BAREN_BIT)) & 1u) << i);
		h->bar_idx[4 + i] = (uint8_t)((w[9] >> lsb) & H13_FIELD_MASK(H13_TDH_BARIDX_W));
		h->bar_en |= (uint8_t)(((w[9] >> (lsb + H13_TDH_BAREN_BIT)) & 1u) << (4 + i));
	}
	h->ene = (uint8_t)H13_GET(w[8], H13_TDH_ENE);
}

void td_hdr_encode(const struct td_hdr *h, uint32_t w[H13_TD_HEADER_WORDS])
{
	memset(w, 0, H13_TD_HEADER_WORDS * sizeof *w);
	w[0] = H13_PUT(H13_TDH_TID, h->tid) | H13_PUT(H13_TDH_NID, h->nid) |
	       H13_PUT(H13_TDH_LNID, h->lnid) | H13_PUT(H13_TDH_EON, h->eon);
	w[1] = H13_PUT(H13_TDH_EXECYCLES, h->exe_cycles) | H13_PUT(H13_TDH_NEXTSIZE, h->next_size);
	w[2] = H13_PUT(H13_TDH_MASK24, h->log_events);
	w[3] = H13_PUT(H13_TDH_MASK24, h->exceptions);
	w[4] = H13_PUT(H13_TDH_MASK24, h->debug_log_events);
	w[5] = H13_PUT(H13_TDH_MASK24, h->debug_exceptions);
	w[6] = h->flags;
	w[7] = h->next_ptr;
	for (unsigned i = 0; i < 4; i++) {
		unsigned lsb = H13_TDH_BAR_STRIDE * i;
		w[8] |= ((uint32_t)h->bar_idx[i] & H13_FIELD_MASK(H13_TDH_BARIDX_W)) << lsb;
		w[8] |= (uint32_t)((h->bar_en >> i) & 1u) << (lsb + H13_TDH_BAREN_BIT);
		w[9] |= ((uint32_t)h->bar_idx[4 + i] & H13_FIELD_MASK(H13_TDH_BARIDX_W)) << lsb;
		w[9] |= (uint32_t)((h->bar_en >> (4 + i)) & 1u) << (lsb + H13_TDH_BAREN_BIT);
	}
	w[8] |= H13_PUT(H13_TDH_ENE, h->ene);
}

/* ---- writer ---- */
void tdw_begin(struct td_writer *tw, uint32_t *w, unsigned cap, const struct td_hdr *h)
{
	tw->w = w;
	tw->cap = cap;
	tw->n = 0;
	tw->overflow = cap < H13_TD_HEADER_WORDS;
	if (tw->overflow)
		return;
	memset(w, 0, cap * sizeof *w);
	td_hdr_encode(h, w);
	tw->n = H13_TD_HEADER_WORDS;
	if (td_hdr_extended(w)) { /* the extension word: no dependency (0) */
		tw->overflow = cap < H13_TD_HEADER_WORDS + TD_HDR_EXT_WORDS;
		if (!tw->overflow)
			tw->n += TD_HDR_EXT_WORDS;
	}
}

void tdw_block(struct td_writer *tw, uint32_t addr, const uint32_t *vals, unsigned count)
{
	if (tw->overflow || !count || count > TD_CMD_MAX_COUNT || addr > TD_CMD_MAX_ADDR ||
	    tw->n + 1u + count > tw->cap) {
		tw->overflow = 1;
		return;
	}
	tw->w[tw->n++] = td_cmd_encode(addr, count);
	for (unsigned i = 0; i < count; i++)
		tw->w[tw->n++] = vals[i];
}

void tdw_reg(struct td_writer *tw, uint32_t addr, uint32_t value)
{
	tdw_block(tw, addr, &value, 1);
}

const struct td_fixed td_fixed[] = {
	{H13_COMMON_CONVCFG, H13_CONVCFG_OX_LSB, H13_CONVCFG_OX_W, 1, "Common.ConvCfg.Ox other than 1 not modelled (1 what the builders write; the refusal, 2 in Apple's depthwise 1x9's form, is td_ox_refusal's)"},
	{H13_COMMON_CONVCFG, H13_CONVCFG_OY_LSB, H13_CONVCFG_OY_W, 1, "Common.ConvCfg.Oy other than 1 not modelled (1 in every real program)"},
	/* the four interleave fields: 1 here (what the builders write); the model reads 2, 4 and 8 as
	 * well, with its own checks (compute.c's interleave_side) */
	{H13_L2_SOURCECFG, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W, 1, "L2.SourceCfg.DMAInterleave other than 1, 2, 4 or 8 not modelled"},
	{H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 1, "L2.ResultCfg.DMAFmt other than 1 not modelled (1, 16-bit, in every real fp16 program; 0 with a one-byte tile DMA destination)"},
	{H13_L2_RESULTCFG, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W, 1, "L2.ResultCfg.DMAInterleave other than 1, 2, 4 or 8 not modelled"},
	{H13_SRC_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, 1, "TileDMASrc.Fmt.Interleave other than 1, 2, 4 or 8 not modelled"},
	{H13_DST_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, 1, "TileDMADst.Fmt.Interleave other than 1, 2, 4 or 8 not modelled"},
	/* whole words the H13 map leaves unnamed (fw/regmap/h13.h) */
	{H13_COMMON_INDEPTH, 0, 32, 1, "Common.InDepth other than 1 not modelled but equal to OutDepth, at most 32767 (1 in every real program but the reductions of Apple's layer_norm over C, H and W)"},
	{H13_COMMON_OUTDEPTH, 0, 32, 1, "Common.OutDepth other than 1 not modelled but equal to InDepth, at most 32767 (1 in every real program but the reductions of Apple's layer_norm over C, H and W)"},
	{H13_COMMON_WORD20, 0, 32, H13_COMMON_WORD20_REAL, "Common +0x20 other than 0x2041 not modelled (0x2041 in every real program; its fields are not known)"},
};
const unsigned td_nfixed = sizeof td_fixed / sizeof td_fixed[0];

uint32_t td_fixed_bits(uint32_t reg)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < td_nfixed; i++)
		if (td_fixed[i].reg == reg)
			v |= (uint32_t)td_fixed[i].value << td_fixed[i].lsb;
	return v;
}

uint32_t td_unnamed_bits(uint32_t reg)
{
	static const struct {
		uint32_t reg, bits;
	} seen[] = {
		{H13_KDMA_WORD0, 0x40u | H13_KDMA_WORD0_SPARSE},
		{H13_BLK_KDMA + 0xc8u, 0x80u}, {H13_BLK_KDMA + 0xccu, 0x80u},
		{H13_BLK_KDMA + 0xd0u, 0x80u}, {H13_BLK_KDMA + 0xd4u, 0x80u},
		{H13_BLK_KDMA + 0xe8u, 0x40u}, {H13_BLK_KDMA + 0xecu, 0x40u},
		{H13_BLK_KDMA + 0xf0u, 0x40u}, {H13_BLK_KDMA + 0xf4u, 0x40u},
		{H13_BLK_TILESRC + 0x40u, 0x100u},
	};
	for (unsigned i = 0; i < sizeof seen / sizeof seen[0]; i++)
		if (seen[i].reg == reg)
			return seen[i].bits;
	return 0;
}

unsigned td_coeff_enabled(const struct td_regs *r)
{
	unsigned n = 0;
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		n += H13_GET(r->get(r->ctx, H13_COEFF_DMACONFIG(c)), H13_DMA_EN);
	return n;
}

unsigned td_coeff_mask(const struct td_regs *r)
{
	unsigned m = 0;
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		m |= (unsigned)H13_GET(r->get(r->ctx, H13_COEFF_DMACONFIG(c)), H13_DMA_EN) << c;
	return m;
}

void td_fixed_block(uint32_t base, uint32_t *v, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		v[i] |= td_fixed_bits(base + 4u * i);
}

void tdb_begin(struct td_block *b, uint32_t base, unsigned count)
{
	memset(b, 0, sizeof *b);
	b->base = base;
	b->count = count;
	b->bad = !count || count > TD_CMD_MAX_COUNT;
}

void tdb_set(struct td_block *b, uint32_t addr, uint32_t value)
{
	if (b->bad || addr < b->base || (addr - b->base) & 3u || (addr - b->base) / 4u >= b->count) {
		b->bad = 1;
		return;
	}
	b->v[(addr - b->base) / 4u] = value;
}

void tdw_put(struct td_writer *tw, const struct td_block *b)
{
	if (b->bad) {
		tw->overflow = 1;
		return;
	}
	tdw_block(tw, b->base, b->v, b->count);
}

unsigned tdw_end(const struct td_writer *tw)
{
	return tw->overflow ? 0 : tw->n;
}

/* ---- ranges ---- */
static const char *const rkind_names[TD_R__COUNT] = {"src0", "src1", "dst", "tbase", "coeff",
						      "stream"};

const char *td_rkind_name(unsigned kind)
{
	return kind < TD_R__COUNT ? rkind_names[kind] : "?";
}

static const struct err_desc errs[TD_E__COUNT] = {
	[TD_OK] = {"ok", "no error"},
	[TD_E_FORMAT] = {"unsized-tensor-format", "a tensor format with no element size"},
	[TD_E_EMPTY] = {"zero-dimension", "a zero dimension or a zero-length buffer"},
	[TD_E_OVERFLOW] = {"extent-arithmetic-overflow", "a TD's extent arithmetic overflows"},
	[TD_E_COEFF_NO_BAR] = {"coefficients-without-kernel-bar",
	 "coefficient channels or streams enabled but KBase0 not enabled"},
	[TD_E_STREAM_UNSIZED] = {"stream-without-kernel-unit",
	 "a stream enabled whose length is not known (no kernel unit)"},
	[TD_E_TOO_MANY] = {"too-many-ranges", "more ranges than the caller's array"},
	[TD_E_DST_NO_BAR] = {"destination-without-bar",
	 "the destination DMA enabled (TileDMADst.DMAConfig.En) but WBase not bound in the TD header: "
	 "where the engine would write is not known"},
};

const struct err_desc *td_err(enum td_err e)
{
	static const struct err_desc unknown = {"unknown-td-error",
						  "a value this module does not define"};
	return err_lookup(errs, TD_E__COUNT, (unsigned)e, &unknown);
}

const char *td_err_name(enum td_err e)
{
	return td_err(e)->name;
}

unsigned td_fmt_bytes(unsigned fmt)
{
	return fmt == H13_FMT_FP16 ? 2u : fmt <= H13_FMT_UINT8 ? 1u : 0u;
}

enum td_err td_tile_extent(uint64_t w, uint64_t h, uint64_t d, uint64_t c, uint64_t groups,
			   unsigned elem, unsigned ilv, uint64_t row, uint64_t plane, uint64_t depth,
			   uint64_t group, uint64_t *extent)
{
	uint64_t line;
	if (!elem)
		return TD_E_FORMAT;
	if (!w || !h || !d || !c || !groups)
		return TD_E_EMPTY;
	if (!ilv)
		ilv = 1;
	c = c / ilv + (c % ilv != 0); /* the planes the channels take */
	if (pol_mul_ovf(w, ilv, &w) || pol_mul_ovf(w, elem, &line) || pol_add_ovf(line, 63, &line))
		return TD_E_OVERFLOW;
	line &= ~(uint64_t)63;
	const uint64_t dims[4] = {h, c, d, groups};
	const uint64_t strides[4] = {row, plane, depth, group};
	enum pol_err e = pol_strided_extent(dims, strides, 4, line, extent);
	return e == POL_OK ? TD_OK : e == POL_E_EMPTY ? TD_E_EMPTY : TD_E_OVERFLOW;
}

#define REG(a) (r->get(r->ctx, (a)))

/* A reduction (Common.Cfg.TaskType 5 or 6): one value a plane leaves it (td_dst_dims) */
static int td_reduces(const struct td_regs *r)
{
	const unsigned task = H13_GET(REG(H13_COMMON_CFG), H13_CFG_TASKTYPE);
	return task == H13_TASK_REDUCE || task == H13_TASK_REDUCE2;
}

uint32_t td_depth(const struct td_regs *r, int out)
{
	if (out && td_reduces(r))
		return 1u; /* its planes' D x H rows reduced to one value, at depth 0 */
	uint32_t d = REG(out ? H13_COMMON_OUTDEPTH : H13_COMMON_INDEPTH);
	return d ? d : 1u;
}

uint32_t td_depth_even(const struct td_regs *r)
{
	uint32_t din = REG(H13_COMMON_INDEPTH), dout = REG(H13_COMMON_OUTDEPTH);
	return din && din == dout && din <= TD_DEPTH_MAX ? din : 0u;
}

/* Common.Cfg.OutTranspose, or Common.PECfg.OutputTranspose on a TD that is not a reduction (a
 * reduction's puts its planes' values side by side, above): the tile destination writes C and W
 * swapped. fw/td td_l2mem_of models the second only where Apple's softmax over C pins it (a
 * [C,1,1] result kept in L2 memory and written through WBase with En clear: one row of C at WBase,
 * docs/engine-model.md "Softmax over channels") and refuses it elsewhere. */
int td_dst_cw_swapped(const struct td_regs *r)
{
	return H13_GET(REG(H13_COMMON_CFG), H13_CFG_OUTTRANSPOSE) ||
	       (!td_reduces(r) && H13_GET(REG(H13_COMMON_PECFG), H13_CPECFG_OUTTRANSPOSE));
}

void td_dst_dims(const struct td_regs *r, uint32_t *w, uint32_t *h, uint32_t *c)
{
	uint32_t dim = REG(H13_COMMON_OUTDIM);
	*w = H13_GET(dim, H13_OUTDIM_WOUT);
	*h = H13_GET(dim, H13_OUTDIM_HOUT);
	*c = H13_GET(REG(H13_COMMON_COUT), H13_COUT);
	if (td_reduces(r)) { /* one value a plane */
		*w = *h = 1;
		if (H13_GET(REG(H13_COMMON_PECFG), H13_CPECFG_OUTTRANSPOSE)) {
			*w = *c;
			*c = 1;
		}
	}
	if (td_dst_cw_swapped(r)) { /* C and W swapped */
		uint32_t t = *w;
		*w = *c;
		*c = t;
	}
}

int td_dst_run(const struct td_regs *r, uint64_t *len)
{
	uint32_t w32, h32, c32;
	td_dst_dims(r, &w32, &h32, &c32);
	uint64_t w = w32, h = h32, c = c32;
	uint64_t g = H13_GET(REG(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	unsigned elem = td_fmt_bytes(H13_GET(REG(H13_COMMON_CHCFG), H13_CHCFG_OUTFMT));
	const unsigned ilv = td_tile_interleave(REG(H13_DST_FMT)); /* rows of w x ilv, c / ilv planes */
	if (ilv > 1u && c % ilv)
		return 0; /* a last plane part-filled */
	c /= ilv;
	uint64_t run = w * ilv * elem; /* w < 2^15, ilv < 16, elem <= 2 */
	if (H13_GET(REG(H13_DST_FMT), H13_DSTFMT_ZEROPADLAST))
		run = (run + 63u) & ~(uint64_t)63u;
	const uint64_t n[3] = {h, c, g};
	const uint64_t stride[3] = {H13_ADDR_BYTES(REG(H13_DST_ROWSTRIDE)),
				    H13_ADDR_BYTES(REG(H13_DST_PLANESTRIDE)),
				    H13_ADDR_BYTES(REG(H13_DST_GROUPSTRIDE))};
	*len = 0;
	if (!run || !h || !c || !g || td_depth(r, 1) != 1u)
		return 0; /* (a depth: its strides are not one run's) */
	for (unsigned k = 0; k < 3; k++) {
		if (n[k] > 1 && stride[k] != run)
			return 0; /* a gap (or an overlap) between consecutive rows, planes or groups */
		if (pol_mul_ovf(run, n[k], &run))
			return 0;
	}
	*len = run;
	return 1;
}

struct tile_regs {
	uint32_t cfg, base, row, plane, depth, group;
};
static const struct tile_regs src_regs[2] = {
	{H13_SRC_DMACONFIG, H13_SRC_BASEADDR, H13_SRC_ROWSTRIDE, H13_SRC_PLANESTRIDE,
	 H13_SRC_DEPTHSTRIDE, H13_SRC_GROUPSTRIDE},
	{H13_SRC2_DMACONFIG, H13_SRC2_BASEADDR, H13_SRC2_ROWSTRIDE, H13_SRC2_PLANESTRIDE,
	 H13_SRC2_DEPTHSTRIDE, H13_SRC2_GROUPSTRIDE},
};
static const struct tile_regs dst_regs = {H13_DST_DMACONFIG, H13_DST_BASEADDR, H13_DST_ROWSTRIDE,
					  H13_DST_PLANESTRIDE, H13_DST_DEPTHSTRIDE,
					  H13_DST_GROUPSTRIDE};

struct ranges_out {
	struct td_range *r;
	unsigned n, max;
};

static enum td_err put(struct ranges_out *o, struct td_range x)
{
	if (o->n >= o->max)
		return TD_E_TOO_MANY;
	o->r[o->n++] = x;
	return TD_OK;
}

/* bcast: the axes read at index 0 only (td_src0_bcast; 0 but on src0): 1 along each */
static enum td_err tile(const struct td_hdr *h, const struct td_regs *r, unsigned kind,
			unsigned slot, const struct tile_regs *tr, unsigned elem, int out, unsigned bcast,
			struct ranges_out *o)
{
	uint32_t dim = REG(H13_COMMON_INDIM), dw, dh, dc;
	td_dst_dims(r, &dw, &dh, &dc);
	uint64_t w = out ? dw : H13_GET(dim, H13_INDIM_WIN);
	uint64_t hh = out ? dh : H13_GET(dim, H13_INDIM_HIN);
	uint64_t c = out ? dc : H13_GET(REG(H13_COMMON_CIN), H13_CIN);
	uint64_t d = td_depth(r, out);
	uint64_t g = H13_GET(REG(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	uint64_t ext, end, base = H13_ADDR_BYTES(REG(tr->base));
	const unsigned ilv = td_tile_interleave(REG(out ? H13_DST_FMT : H13_SRC_FMT));
	td_bcast_dims(bcast, &w, &hh, &d, &c);
	enum td_err e = td_tile_extent(w, hh, d, c, g, elem, ilv, H13_ADDR_BYTES(REG(tr->row)),
				       H13_ADDR_BYTES(REG(tr->plane)), H13_ADDR_BYTES(REG(tr->depth)),
				       H13_ADDR_BYTES(REG(tr->group)), &ext);
	if (e == TD_OK && pol_add_ovf(base, ext, &end))
		e = TD_E_OVERFLOW;
	if (e != TD_OK)
		return e;
	return put(o, (struct td_range){(uint8_t)kind, 0, (uint8_t)slot, h->bar_idx[slot], 0, 0,
					(uint8_t)(out ? TD_WRITE : TD_READ), base, ext, (uint8_t)bcast});
}

/* A coefficient channel or kernel stream: read at an absolute address, inside KBase0's grant;
 * with KBase0 disabled, or of no length (no_len names that), there is no such range. */
static enum td_err kernel_range(const struct td_hdr *h, int kbe, unsigned kind, unsigned ch,
				uint64_t addr, uint64_t len, enum td_err no_len, struct ranges_out *o)
{
	if (!kbe)
		return TD_E_COEFF_NO_BAR;
	if (!len)
		return no_len;
	return put(o, (struct td_range){(uint8_t)kind, (uint8_t)ch, H13_BAR_KBASE0,
					h->bar_idx[H13_BAR_KBASE0], 1, 0, TD_READ, addr, len, 0});
}

enum td_err td_ranges(const struct td_hdr *h, const struct td_regs *r,
		      const uint32_t stream_len[H13_KSTREAM_N], struct td_range *out, unsigned max,
		      unsigned *n, int *bad_kind, int *bad_ch)
{
	struct ranges_out o = {out, 0, max};
	enum td_err e = TD_OK;
	int kind = -1, ch = -1;
	uint32_t chcfg = REG(H13_COMMON_CHCFG);
	/* tile sources: each with its own DMA configuration, base and strides */
	for (unsigned k = 0; k < 2 && e == TD_OK; k++) {
		unsigned slot = k ? H13_BAR_RBASE1 : H13_BAR_RBASE0;
		/* the tile source DMA (TileDMASrc.DMAConfig.En) serves both sources; the second
		 * source's own configuration word (+0x04) is not understood well enough to gate on
		 * (0x33880 in the real add and mul kernels): RBase1 enabled is enough to read it */
		if (!(h->bar_en & (1u << slot)) || !H13_GET(REG(H13_SRC_DMACONFIG), H13_DMA_EN))
			continue;
		kind = k ? TD_R_SRC1 : TD_R_SRC0;
		/* RBase0 kept in L2 and read back broadcast: index 0 along those axes alone (the
		 * second source is never read broadcast: td_l2mem_of refuses Src2Broadcast on it) */
		e = tile(h, r, (unsigned)kind, slot, &src_regs[k],
			 td_fmt_bytes(H13_GET(chcfg, H13_CHCFG_INFMT)), 0,
			 k ? 0u : td_src0_bcast(r, h->bar_en), &o);
	}
	/* the destination: wherever WBase is bound, En set or clear (td_dst_writes); its DMA enabled
	 * with WBase not bound would write at an address no grant covers (no real TD: every one
	 * with En set binds WBase), refused */
	if (e == TD_OK && H13_GET(REG(H13_DST_DMACONFIG), H13_DMA_EN) && !td_dst_writes(h->bar_en)) {
		kind = TD_R_DST;
		e = TD_E_DST_NO_BAR;
	}
	if (e == TD_OK && td_dst_writes(h->bar_en)) {
		kind = TD_R_DST;
		e = tile(h, r, TD_R_DST, H13_BAR_WBASE, &dst_regs,
			 td_fmt_bytes(H13_GET(chcfg, H13_CHCFG_OUTFMT)), 1, 0u, &o);
	}
	/* TBase and KBase1..3: enabled, extent not decoded: the whole grant */
	static const uint8_t whole_slots[] = {H13_BAR_TBASE, H13_BAR_KBASE1, H13_BAR_KBASE2,
					      H13_BAR_KBASE3};
	for (unsigned k = 0; k < sizeof whole_slots && e == TD_OK; k++) {
		unsigned s = whole_slots[k];
		if (!(h->bar_en & (1u << s)))
			continue;
		kind = TD_R_TBASE;
		ch = (int)s;
		e = put(&o, (struct td_range){TD_R_TBASE, (uint8_t)s, (uint8_t)s, h->bar_idx[s], 0, 1,
					      TD_READ, 0, 0, 0});
	}
	ch = -1;
	/* coefficient channels and kernel streams: absolute engine addresses (their base and
	 * relocation registers), inside KBase0's grant */
	int kbe = (h->bar_en >> H13_BAR_KBASE0) & 1;
	for (unsigned c = 0; c < H13_COEFF_NCH && e == TD_OK; c++) {
		if (!H13_GET(REG(H13_COEFF_DMACONFIG(c)), H13_DMA_EN))
			continue;
		kind = TD_R_COEFF;
		ch = (int)c;
		e = kernel_range(h, kbe, TD_R_COEFF, c, H13_ADDR_BYTES(REG(H13_COEFF_BASEADDR(c))),
				 H13_ADDR_BYTES(REG(H13_COEFF_BFRSIZE(c))), TD_E_EMPTY, &o);
	}
	for (unsigned s = 0; s < H13_KSTREAM_N && e == TD_OK; s++) {
		if (!(REG(H13_KSTREAM_ENABLE(s)) & 1u))
			continue;
		kind = TD_R_STREAM;
		ch = (int)s;
		e = kernel_range(h, kbe, TD_R_STREAM, s, REG(H13_KSTREAM_RELOC(s)),
				 stream_len ? stream_len[s] : 0, TD_E_STREAM_UNSIZED, &o);
	}
	*n = o.n;
	if (e != TD_OK) {
		if (bad_kind)
			*bad_kind = kind;
		if (bad_ch)
			*bad_ch = ch;
	}
	return e;
}

/* a x b, saturated at UINT64_MAX / 2 (0 when either is 0), for the counts of untrusted sizes */
static uint64_t mul_sat0(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / 2 / a ? UINT64_MAX / 2 : a * b;
}

/* the same, a 0 field b counting as 1 */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return mul_sat0(a, b ? b : 1u);
}

/* Wout x Hout x Cout (below 2^47) x NumGroups x OutDepth: every group and depth is computed,
 * whatever its strides (0 repeats the same bytes); saturated */
static uint64_t out_elements(const struct td_regs *regs)
{
	const struct td_regs *rr = regs;
	uint32_t od = rr->get(rr->ctx, H13_COMMON_OUTDIM);
	uint64_t e = (uint64_t)H13_GET(od, H13_OUTDIM_WOUT) * H13_GET(od, H13_OUTDIM_HOUT) *
		     H13_GET(rr->get(rr->ctx, H13_COMMON_COUT), H13_COUT);
	e = mul_sat(e, H13_GET(rr->get(rr->ctx, H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS));
	return mul_sat(e, td_depth(regs, 1));
}

uint64_t td_work(const struct td_range *r, unsigned n, const struct td_regs *regs)
{
	uint64_t w = 0;
	int dst = 0;
	for (unsigned i = 0; i < n; i++) {
		if (r[i].whole)
			continue;
		w += r[i].len; /* each len is below 2^32 once checked: no overflow over 64 ranges */
		dst |= r[i].kind == TD_R_DST;
	}
	if (dst) {
		uint64_t e = out_elements(regs);
		w = e > UINT64_MAX / 2 - w ? UINT64_MAX / 2 : w + e;
	}
	return w;
}

uint64_t td_ops(const struct td_regs *regs)
{
	const struct td_regs *rr = regs;
	const uint32_t mac = rr->get(rr->ctx, H13_NE_MACCFG);
	const uint32_t gc = rr->get(rr->ctx, H13_COMMON_GROUPCONVCFG);
	const struct td_window w = td_window_of(rr->get(rr->ctx, H13_COMMON_CONVCFG));
	/* what each output element costs: a convolution's taps, then the PE's pooling window */
	uint64_t per = 1;
	if (td_ne_reads_kernels(mac, rr->get(rr->ctx, H13_NE_POSTSCALE), td_coeff_enabled(regs))) {
		/* Common.ConvCfg.Ox 2 (Apple's depthwise 1x9, td_ox_refusal): two columns an output
		 * position, each over Kh x (Kw + 1) positions (td_dw_kel, compute.c dw_ox2_row) */
		if (H13_GET(rr->get(rr->ctx, H13_COMMON_CONVCFG), H13_CONVCFG_OX) == 2u)
			per = (uint64_t)w.kh * (w.kw + 1u) * 2u;
		else
			per = (uint64_t)w.kh * w.kw;
		if (!H13_GET(gc, H13_GROUPCONV_UNICASTEN))
			per *= H13_GET(rr->get(rr->ctx, H13_COMMON_CIN), H13_CIN);
	}
	if (td_pe_in_path(rr->get(rr->ctx, H13_COMMON_CFG)) &&
	    H13_GET(rr->get(rr->ctx, H13_PLANAR_CFG), H13_PECFG_POOLMODE) != H13_PE_POOL_NONE)
		per *= (uint64_t)w.kh * w.kw;
	const uint64_t e = mul_sat(out_elements(regs), per);
	/* and at least one an input value (NumGroups x Cin x InDepth x Hin x Win): a reduction reads
	 * a plane for each value it leaves, from L2 memory with strides 0 if it likes (no move) */
	const uint32_t id = rr->get(rr->ctx, H13_COMMON_INDIM);
	uint64_t in = (uint64_t)H13_GET(id, H13_INDIM_WIN) * H13_GET(id, H13_INDIM_HIN) *
		      H13_GET(rr->get(rr->ctx, H13_COMMON_CIN), H13_CIN);
	in = mul_sat(mul_sat(in, H13_GET(gc, H13_GROUPCONV_NUMGROUPS)), td_depth(regs, 0));
	return in > e ? in : e;
}

void td_footprint(const struct td_regs *regs, struct td_footprint *f)
{
	const struct td_regs *rr = regs;
	uint32_t od = rr->get(rr->ctx, H13_COMMON_OUTDIM), chcfg = rr->get(rr->ctx, H13_COMMON_CHCFG);
	uint64_t g = H13_GET(rr->get(rr->ctx, H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	uint64_t cout = H13_GET(rr->get(rr->ctx, H13_COMMON_COUT), H13_COUT);
	uint64_t cin = H13_GET(rr->get(rr->ctx, H13_COMMON_CIN), H13_CIN);
	f->l2_result = f->kernels = 0;
	if (H13_GET(rr->get(rr->ctx, H13_L2_RESULTCFG), H13_L2_RESULTTYPE) == H13_L2_RESIDENT) {
		unsigned elem = td_fmt_bytes(H13_GET(chcfg, H13_CHCFG_OUTFMT));
		f->l2_result = g * cout * H13_GET(od, H13_OUTDIM_HOUT) * H13_GET(od, H13_OUTDIM_WOUT) *
			       (elem ? elem : 2u);
	}
	/* only the kernels the NE reads from memory, each output's over the input channels it reads
	 * (a depthwise convolution's one): the unit kernel, a pass-through and a depthwise
	 * convolution were counted as dense ones until 2026-12-06 (Apple's depthwise 9x1 at 1024
	 * channels as 18.9 MB, its kernels 18 KB) */
	const uint32_t mac = rr->get(rr->ctx, H13_NE_MACCFG);
	if (td_ne_reads_kernels(mac, rr->get(rr->ctx, H13_NE_POSTSCALE), td_coeff_enabled(regs))) {
		const struct td_window w = td_window_of(rr->get(rr->ctx, H13_COMMON_CONVCFG));
		unsigned kfmt = H13_GET(rr->get(rr->ctx, H13_NE_KERNELCFG), H13_KERNELCFG_KERNELFMT);
		uint64_t elem = kfmt == H13_KERNELFMT_INT8 || kfmt == H13_KERNELFMT_UINT8 ? 1u : 2u;
		uint64_t per = mul_sat0(td_kernel_cin(rr->get(rr->ctx, H13_COMMON_GROUPCONVCFG), (uint32_t)cin),
					(uint64_t)w.kh * w.kw);
		/* Common.ConvCfg.Ox 2 (td_dw_kel): Kh x (Kw + 1) positions of two weights */
		if (H13_GET(rr->get(rr->ctx, H13_COMMON_CONVCFG), H13_CONVCFG_OX) == 2u)
			per = (uint64_t)w.kh * (w.kw + 1u) * 2u;
		f->kernels = mul_sat0(mul_sat0(mul_sat0(g, cout), per), elem);
	}
}
