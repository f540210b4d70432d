/* The benchmark programs (see benchprog.h). */
#include "tools/progdesc/benchprog.h"
#include "fw/actlut/actlut.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/td/td.h"

#include <string.h>

#define TD_WORDS (H13_TD_DEFAULT_BYTES / 4)

uint32_t bp_row(unsigned w)
{
	return ((uint32_t)w * 2u + 63u) & ~63u;
}

void bp_fill_input(const struct bp_expect *e, unsigned bar, uint8_t *buf, uint64_t size)
{
	if (bar != BP_IN0_BAR && bar != BP_IN1_BAR)
		return;
	uint16_t v = bar == BP_IN0_BAR ? e->in0 : e->in1;
	for (uint64_t k = 0; k + 1 < size; k += 2)
		le_wr16(buf + k, v);
	if (size & 1u)
		buf[size - 1] = 0;
}

/* A k x k convolution's output at (x, y) of a w x h plane (padding k / 2): wantk of the taps
 * that fall inside the input. */
static uint16_t convk_want(const struct bp_expect *e, uint32_t x, uint32_t y)
{
	unsigned tx = 0, ty = 0, r = e->k / 2;
	for (unsigned d = 0; d < e->k; d++) {
		tx += x + d >= r && x + d - r < e->w;
		ty += y + d >= r && y + d - r < e->h;
	}
	return e->wantk[ty][tx];
}

void bp_check_output(const struct bp_expect *e, unsigned bar, const uint8_t *buf, uint64_t size,
		     uint64_t *outputs, uint64_t *bad)
{
	if (bar != BP_OUT_BAR || !e->row)
		return;
	for (uint64_t r = 0, y = 0; r + e->row <= size; r += e->row, y++)
		for (uint32_t i = 0; i < e->w; i++, (*outputs)++)
			*bad += le_rd16(buf + r + 2 * i) !=
				(e->k > 1 ? convk_want(e, i, (uint32_t)(y % e->h)) : e->want);
}

/* A TD's header: TD tid of a chain, the last (eon) or followed by the next at 0x300 after it. */
static void begin_tid(struct td_writer *tw, uint32_t *w, const uint8_t bar[H13_BAR_NSLOTS],
		      unsigned slots, unsigned tid, int last)
{
	struct td_hdr h;
	memset(&h, 0, sizeof h);
	h.tid = tid;
	h.eon = last != 0;
	h.next_ptr = last ? 0 : (tid + 1u) * 0x300u;
	h.next_size = last ? 0 : TD_WORDS - 1u;
	h.bar_en = (uint8_t)slots;
	for (unsigned s = 0; s < H13_BAR_NSLOTS; s++)
		h.bar_idx[s] = bar[s];
	tdw_begin(tw, w, TD_WORDS, &h);
}

static void begin(struct td_writer *tw, uint32_t *w, const uint8_t bar[H13_BAR_NSLOTS],
		  unsigned slots)
{
	begin_tid(tw, w, bar, slots, 0, 1);
}

static void l2_words(struct td_writer *tw, const struct bp_pe_spec *p);

static void common_kg(struct td_writer *tw, unsigned w, unsigned h, unsigned cin, unsigned cout,
		      unsigned k, unsigned st, uint32_t groupconv, unsigned ocg, uint32_t convcfg, unsigned wout);

static void common(struct td_writer *tw, unsigned w, unsigned h, unsigned cin, unsigned cout)
{
	common_kg(tw, w, h, cin, cout, 1, 1, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1), 0, 0, 0);
}

/* The output's size along an axis of n inputs: a window of k, stride st, padding k / 2 (k odd). */
static unsigned out_dim(unsigned n, unsigned st)
{
	return (n - 1u) / st + 1u;
}

/* A k x k window, stride st, padding k / 2 (with stride 1 the output has the input's size);
 * GroupConvCfg and ConvCfg.OCGSize as given. convcfg and wout, when not 0, are Common.ConvCfg
 * (with the fixed fields) and OutDim's Wout instead (bp_dwox2's window). */
static void common_kg(struct td_writer *tw, unsigned w, unsigned h, unsigned cin, unsigned cout,
		      unsigned k, unsigned st, uint32_t groupconv, unsigned ocg, uint32_t convcfg, unsigned wout)
{
	uint32_t v[11];
	memset(v, 0, sizeof v);
	v[0] = H13_PUT(H13_INDIM_WIN, w) | H13_PUT(H13_INDIM_HIN, h);
	v[(H13_COMMON_CHCFG - H13_COMMON_INDIM) / 4] =
		H13_PUT(H13_CHCFG_INFMT, H13_FMT_FP16) | H13_PUT(H13_CHCFG_OUTFMT, H13_FMT_FP16);
	v[(H13_COMMON_CIN - H13_COMMON_INDIM) / 4] = cin;
	v[(H13_COMMON_COUT - H13_COMMON_INDIM) / 4] = cout;
	v[(H13_COMMON_OUTDIM - H13_COMMON_INDIM) / 4] =
		H13_PUT(H13_OUTDIM_WOUT, out_dim(w, st)) | H13_PUT(H13_OUTDIM_HOUT, out_dim(h, st));
	v[(H13_COMMON_CONVCFG - H13_COMMON_INDIM) / 4] =
		td_fixed_bits(H13_COMMON_CONVCFG) | H13_PUT(H13_CONVCFG_KW, k) | H13_PUT(H13_CONVCFG_KH, k) |
		H13_PUT(H13_CONVCFG_SX, st) | H13_PUT(H13_CONVCFG_SY, st) | H13_PUT(H13_CONVCFG_PX, k / 2) | H13_PUT(H13_CONVCFG_PY, k / 2) |
		H13_PUT(H13_CONVCFG_OCGSIZE, ocg);
	if (convcfg)
		v[(H13_COMMON_CONVCFG - H13_COMMON_INDIM) / 4] = convcfg;
	if (wout)
		v[(H13_COMMON_OUTDIM - H13_COMMON_INDIM) / 4] =
			H13_PUT(H13_OUTDIM_WOUT, wout) | H13_PUT(H13_OUTDIM_HOUT, out_dim(h, st));
	v[(H13_COMMON_GROUPCONVCFG - H13_COMMON_INDIM) / 4] = groupconv;
	v[(H13_COMMON_TILECFG - H13_COMMON_INDIM) / 4] = H13_PUT(H13_TILECFG_TILEHEIGHT, h);
	td_fixed_block(H13_COMMON_INDIM, v, 11); /* the depths and +0x20, as every real TD */
	if (convcfg && H13_GET(convcfg, H13_CONVCFG_OX)) /* (its Ox over the fixed field's) */
		v[(H13_COMMON_CONVCFG - H13_COMMON_INDIM) / 4] =
			(v[(H13_COMMON_CONVCFG - H13_COMMON_INDIM) / 4] & ~H13_PUT(H13_CONVCFG_OX, ~0u)) | convcfg;
	tdw_block(tw, H13_COMMON_INDIM, v, 11);
}

/* The words every real program writes and the model checks (fw/td's td_fixed): the L2 DMA fields
 * (neither tensor stays in L2; with two sources, the second comes by tile DMA too) and the tile
 * DMAs' Fmt (fp16). The Common block's ConvCfg takes its own fixed fields where it is written. */
static void fixed_cfg(struct td_writer *tw, uint32_t scfg, uint32_t rcfg)
{
	tdw_reg(tw, H13_L2_SOURCECFG, scfg);
	tdw_reg(tw, H13_L2_RESULTCFG, rcfg);
	tdw_reg(tw, H13_SRC_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_SRC_FMT));
	tdw_reg(tw, H13_SRC2_FMT, td_src2_fmt(scfg));
	tdw_reg(tw, H13_DST_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_DST_FMT));
}

/* Common.Cfg.TaskType as Apple's compilers write it for a TD with these Planar words: 0 with
 * every word 0 (the PE out of the path), else fw/td's td_pe_task (fw/td's td_pe_in_path reads the
 * PE's presence from it). */
static uint32_t pe_task(uint32_t pcfg, uint32_t bs, uint32_t pre, uint32_t fin)
{
	return pcfg | bs | pre | fin ? td_pe_task(pcfg) : 0u;
}

static void fixed(struct td_writer *tw, int two)
{
	fixed_cfg(tw, two ? TD_L2_SOURCECFG_DMA2 : TD_L2_SOURCECFG_DMA, TD_L2_RESULTCFG_DMA);
}

/* A tile channel at offset 0 of its BAR: enable, then base, row and plane strides. */
/* A tile channel at byte offset `off` of its BAR: enable, then base, row and plane strides. */
static void tile_at(struct td_writer *tw, uint32_t cfg_reg, uint32_t base_reg, uint32_t off,
		    uint32_t row, uint32_t plane)
{
	uint32_t v[3] = {off, row, plane};
	if (cfg_reg)
		tdw_reg(tw, cfg_reg, H13_PUT(H13_DMA_EN, 1));
	tdw_block(tw, base_reg, v, 3);
}

/* The same at the BAR's start. */
static void tile(struct td_writer *tw, uint32_t cfg_reg, uint32_t base_reg, uint32_t row,
		 uint32_t plane)
{
	tile_at(tw, cfg_reg, base_reg, 0, row, plane);
}

static size_t finish(const struct td_writer *tw, uint8_t *buf, size_t cap, size_t len)
{
	if (!tdw_end(tw) || cap < len || len < BP_WEIGHTS_OFF)
		return 0;
	memset(buf, 0, BP_WEIGHTS_OFF);
	for (unsigned i = 0; i < TD_WORDS; i++)
		le_wr32(buf + 4 * i, tw->w[i]);
	return len;
}

size_t bp_conv_bytes(unsigned cin, unsigned cout)
{
	return bp_convk_bytes(cin, cout, 1);
}

size_t bp_convk_bytes(unsigned cin, unsigned cout, unsigned k)
{
	return BP_WEIGHTS_OFF + (size_t)bp_row(cin * k * k) * cout;
}

size_t bp_conv(uint8_t *buf, size_t cap, unsigned cin, unsigned cout, unsigned w, uint16_t weight)
{
	return bp_convk(buf, cap, cin, cout, w, 1, 1, weight);
}

static void tile_at(struct td_writer *tw, uint32_t cfg_reg, uint32_t base_reg, uint32_t off,
		    uint32_t row, uint32_t plane);

/* A convolution TD's shape: a k x k window, stride st, over w x h (common_kg with groupconv and
 * OCGSize ocg); NE.MACCfg's convolution with the fields in mac besides; sparse: phase-sparse
 * kernels (NE.KernelCfg.SparseFmt, KernelDMASrc +0x00's bit 5; 2: Apple's pad form, with
 * PalettizedEn, a 1-bit palette and SparseBinary), ssm: Common.Cfg.SmallSourceMode. */
struct ctd {
	unsigned w, h, cin, cout, k, st, ocg, sparse, ssm;
	uint32_t groupconv, mac;
	uint16_t accbias; /* NE.AccBias (fp16; 0: not written) */
	uint32_t l2cs;    /* nonzero: the input from L2 memory at 0 (SourceType 0), channels and rows
			   * this many bytes apart, no tile source */
	unsigned otr, tid; /* Common.Cfg.OutTranspose (the result's C and W swapped); TD tid */
	int last;          /* the chain's last TD */
	uint32_t res_base, res_cs; /* res_cs nonzero: the result left in L2 memory there (ResultType
				    * 0), channels and rows res_cs bytes apart, no tile destination */
	uint32_t keep_cs;  /* nonzero: the input by the tile DMA, kept in L2 memory at 0 as it is read
			    * (SourceType 1), channels and rows this many bytes apart */
	uint32_t dst_off, coeff_off; /* the destination's offset in its BAR; the kernels' in the weights */
	unsigned kbar, align; /* KBase0's BAR (0: the weights, BAR 1); NE.KernelCfg.Align */
	uint32_t src_off;     /* the tile source's offset in its BAR */
	unsigned sbar;        /* the tile source's BAR (0: BP_IN0_BAR) */
	uint32_t convcfg;     /* nonzero: Common.ConvCfg instead of k's (with the fixed fields) */
	unsigned wout;        /* nonzero: OutDim's Wout instead of w's */
};

/* A convolution TD's registers into tw (over tdw): shape t, fp16 kernels in coefficient channels
 * 0 .. lanes - 1 of `lane` bytes each, one after another from KBase0's start; tiles from BAR
 * BP_IN0_BAR to BP_OUT_BAR. */
static void conv_regs(struct td_writer *tw, uint32_t *tdw, const struct ctd *t, unsigned lanes,
		      uint32_t lane)
{
	const unsigned w = t->w, h = t->h, wo = out_dim(w, t->st), ho = out_dim(h, t->st);
	/* the destination as the tile DMA writes it: Wout planes of Cout with OutTranspose */
	const uint32_t drow = bp_row(t->otr ? t->cout : wo), dplane = drow * ho;
	uint32_t cfg[H13_COEFF_NCH], base[H13_COEFF_NCH], size[H13_COEFF_NCH];
	const uint8_t bar[H13_BAR_NSLOTS] = {[H13_BAR_RBASE0] = (uint8_t)(t->l2cs ? 0u : t->sbar ? t->sbar : BP_IN0_BAR),
					     [H13_BAR_WBASE] = t->res_cs ? 0 : BP_OUT_BAR,
					     [H13_BAR_KBASE0] = (uint8_t)(t->kbar ? t->kbar : 1u)};
	begin_tid(tw, tdw, bar,
		  (t->l2cs ? 0u : 1u << H13_BAR_RBASE0) | (t->res_cs ? 0u : 1u << H13_BAR_WBASE) |
			  1u << H13_BAR_KBASE0,
		  t->tid, t->last);
	for (unsigned l = 0; l < H13_COEFF_NCH; l++) {
		cfg[l] = l < lanes ? H13_PUT(H13_DMA_EN, 1) : 0;
		base[l] = l < lanes ? t->coeff_off + l * lane : 0;
		size[l] = l < lanes ? lane : 0;
	}
	tdw_block(tw, H13_COEFF_DMACONFIG(0), cfg, H13_COEFF_NCH);
	tdw_block(tw, H13_COEFF_BASEADDR(0), base, H13_COEFF_NCH);
	tdw_block(tw, H13_COEFF_BFRSIZE(0), size, H13_COEFF_NCH);
	if (t->sparse) /* the word every real program holds, with the sparse form's bit */
		tdw_reg(tw, H13_KDMA_WORD0, 0x40u | H13_KDMA_WORD0_SPARSE);
	common_kg(tw, w, h, t->cin, t->cout, t->k, t->st, t->groupconv, t->ocg, t->convcfg, t->wout);
	/* TaskType 0 and the Planar words 0, as Apple's convolutions write them (registers keep their
	 * values from one TD to the next: a PE TD before may have set them) */
	tdw_reg(tw, H13_COMMON_CFG, H13_PUT(H13_CFG_SMALLSOURCE, t->ssm) | H13_PUT(H13_CFG_OUTTRANSPOSE, t->otr));
	static const uint32_t no_pe[4] = {0, 0, 0, 0};
	tdw_block(tw, H13_PLANAR_CFG, no_pe, 4);
	tdw_reg(tw, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16) |
				      H13_PUT(H13_KERNELCFG_SPARSEFMT, t->sparse != 0) |
				      (t->sparse == 2 ? H13_PUT(H13_KERNELCFG_PALETTIZEDEN, 1) |
							H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 1) |
							H13_PUT(H13_KERNELCFG_SPARSEBINARY, 1)
						      : 0) |
				      H13_PUT(H13_KERNELCFG_ALIGN, t->align));
	/* OpMode 0 (convolution) with conv.hwx's BinaryPoint: a nonzero MACCfg puts the NE in
	 * the path (docs/engine-model.md) */
	tdw_reg(tw, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) |
				   H13_PUT(H13_MACCFG_BINARYPOINT, 0x1c) | H13_PUT(H13_MACCFG_BIT20, 1) | t->mac);
	tdw_reg(tw, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, BP_FP16_ONE));
	if (t->accbias)
		tdw_reg(tw, H13_NE_ACCBIAS, H13_PUT(H13_ACCBIAS, t->accbias));
	if (t->l2cs || t->res_cs || t->keep_cs) { /* the input where a TD before left it in L2 memory (or
						     * kept there as read); the result kept */
		struct bp_pe_spec l = {0};
		const uint32_t cs = t->l2cs ? t->l2cs : t->keep_cs;
		l.l2_src = t->l2cs ? BP_L2_READ : t->keep_cs ? BP_L2_KEEP : 0;
		l.src_l2 = (struct bp_l2){cs != 0, 0, cs, cs, 0, 0};
		l.res_l2 = (struct bp_l2){t->res_cs != 0, t->res_base, t->res_cs, t->res_cs, 0, 0};
		l2_words(tw, &l);
	} else {
		fixed(tw, 0);
	}
	if (!t->l2cs)
		tile_at(tw, H13_SRC_DMACONFIG, H13_SRC_BASEADDR, t->src_off, bp_row(w), bp_row(w) * h);
	if (!t->res_cs)
		tile_at(tw, H13_DST_DMACONFIG, H13_DST_BASEADDR, t->dst_off, drow, dplane);
	const unsigned groups = H13_GET(t->groupconv, H13_GROUPCONV_NUMGROUPS);
	if (groups > 1u) { /* depth (one) then group strides, as Apple's grouped convolution */
		const uint32_t sg = bp_row(w) * h * t->cin, dg = dplane * t->cout;
		const uint32_t sv[2] = {sg * groups, sg}, dv[2] = {dg * groups, dg};
		tdw_block(tw, H13_SRC_DEPTHSTRIDE, sv, 2);
		tdw_block(tw, H13_DST_DEPTHSTRIDE, dv, 2);
	}
}

size_t bp_convk(uint8_t *buf, size_t cap, unsigned cin, unsigned cout, unsigned w, unsigned h,
		unsigned k, uint16_t weight)
{
	if (!buf || !cin || !w || !h || !cout || cout % 16u || !k || k > 15u || k % 2u != 1u ||
	    cap < bp_convk_bytes(cin, cout, k))
		return 0;
	const uint32_t block = bp_row(cin * k * k), chsize = block * (cout / 16u);
	uint32_t tdw[TD_WORDS];
	struct td_writer tw;
	const struct ctd t = {w, h, cin, cout, k, 1, 0, 0, 0, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1), 0, 0, 0, 0, 0, 1, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0, 0};
	conv_regs(&tw, tdw, &t, H13_COEFF_NCH, chsize);
	size_t len = finish(&tw, buf, cap, bp_convk_bytes(cin, cout, k));
	uint8_t *wts = buf + BP_WEIGHTS_OFF;
	for (size_t i = 0; len && i + 1 < (size_t)chsize * 16u; i += 2)
		le_wr16(wts + i, weight);
	return len;
}

/* Where output o's kernel element j (its bias first with one) lies as Apple's H13 compiler lays a
 * convolution's kernels out for OCGSize ocg (docs/engine-model.md, "Kernel layout"): channel *ch,
 * byte offset returned. Written here from the layout's description, not with fw/td's reader. */
static uint64_t cb_place(const struct bp_conv_spec *s, unsigned o, uint64_t j, unsigned *ch)
{
	const uint64_t kel = (uint64_t)s->cin * s->k * s->k + (s->bias != NULL);
	if (s->ocg && s->groups > 1u) { /* a group's Cout 16 x 2^ocg: its one pass, a block a group */
		const unsigned g = 1u << s->ocg, gi = o / s->cout, r = o % s->cout;
		uint64_t blk = kel * g * 2u;
		if (s->grp_wrong != 2u) /* (2: the blocks back to back, a wrong layout) */
			blk = (blk + 63u) & ~(uint64_t)63u;
		if (s->grp_wrong == 1u) { /* a wrong layout: channel c outputs c, c + 16, ... */
			*ch = r % H13_COEFF_NCH;
			return gi * blk + (j * g + r / H13_COEFF_NCH) * 2u;
		}
		*ch = r / g;
		return gi * blk + (j * g + r % g) * 2u;
	}
	if (!s->ocg) { /* block o / 16 of channel o mod 16, blocks in whole 64-byte lines */
		*ch = o % H13_COEFF_NCH;
		return (uint64_t)(o / H13_COEFF_NCH) * ((kel * 2u + 63u) & ~(uint64_t)63u) + 2u * j;
	}
	const unsigned g = 1u << s->ocg, pass = H13_COEFF_NCH * g, full = s->cout / pass;
	unsigned p = o / pass, w = g, r = o % pass;
	if (p >= full) { /* the last, partial pass: 16 channels of R / 16, or with no whole pass and
			  * Cout not a multiple of 16 Cout / g channels of g (cb_lanes enables those) */
		p = full;
		r = o - full * pass;
		w = full || s->cout % H13_COEFF_NCH == 0 ? (s->cout - full * pass) / H13_COEFF_NCH : g;
	}
	*ch = r / w;
	return ((uint64_t)p * kel * g + j * w + r % w) * 2u;
}

/* The outputs over all groups (NumGroups x Cout). */
static unsigned cb_nout(const struct bp_conv_spec *s)
{
	return (s->groups > 1u ? s->groups : 1u) * s->cout;
}

/* Weight (ci, ky, kx) of output o, as the spec gives them (a depthwise one: ci 0, its own). */
static uint16_t cb_weight(const struct bp_conv_spec *s, unsigned o, unsigned ci, unsigned ky, unsigned kx)
{
	const unsigned cin = s->dw ? 1u : s->cin;
	return s->wts[(((size_t)o * cin + ci) * s->k + ky) * s->k + kx];
}

/* One phase-sparse record (docs/codecs.md, "Phase-sparse kernels") for outputs o0 .. o0 + g - 1
 * (those below Cout) into dst (NULL: only counted), written here from the format's description:
 * [g biases][24-bit body count][body: per input channel, the taps by phase (ky, kx even/even,
 * even/odd, odd/even, odd/odd; with phase_swap the middle two swapped, a wrong encoding), L slots a
 * tap, a mask byte per 8 slots and the marked values]. Returns its bytes. */
static size_t pk_record(const struct bp_conv_spec *s, uint8_t *dst, unsigned o0, unsigned g, unsigned L)
{
	static const unsigned order[2][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}};
	const unsigned k = s->k, half = (k + 1u) / 2u, cin = s->dw ? 1u : s->cin;
	size_t n = 0;
	if (s->bias)
		for (unsigned l = 0; l < g; l++, n += 2)
			if (dst)
				le_wr16(dst + n, o0 + l < cb_nout(s) ? s->bias[o0 + l] : 0);
	const size_t count_at = n;
	n += 3;
	uint8_t *mask = NULL;
	unsigned slot = 0;
	for (unsigned ci = 0; ci < cin; ci++)
		for (unsigned ph = 0; ph < 4; ph++)
			for (unsigned ty = 0; ty < half; ty++)
				for (unsigned tx = 0; tx < half; tx++)
					for (unsigned l = 0; l < L; l++, slot++) {
						const unsigned p = order[s->phase_swap != 0][ph];
						const unsigned ky = 2u * ty + (p >> 1), kx = 2u * tx + (p & 1u);
						if (slot % 8u == 0) { /* a new mask byte */
							mask = dst ? dst + n : NULL;
							if (mask)
								*mask = 0;
							n++;
						}
						if (ky >= k || kx >= k || l >= g || o0 + l >= cb_nout(s))
							continue;
						uint16_t v = cb_weight(s, o0 + l, ci, ky, kx);
						if (!(v & 0x7fffu))
							continue; /* +-0 is skipped */
						if (mask)
							*mask |= (uint8_t)(1u << (slot % 8u));
						if (s->sparse == 2)
							continue; /* the binary form: the mark alone */
						if (mask)
							le_wr16(dst + n, v);
						n += 2;
					}
	if (dst) {
		const size_t body = n - count_at - 3u;
		dst[count_at] = (uint8_t)body;
		dst[count_at + 1] = (uint8_t)(body >> 8);
		dst[count_at + 2] = (uint8_t)(body >> 16);
	}
	return n;
}

/* Channel c's records back to back (dst NULL: counted): a dense convolution's passes (outputs
 * c g + 16 g p), or a depthwise one's channels c + 16 p; with sparse 2 (Apple's pad form, written
 * here from its rebuilt constant: docs/engine-model.md, "Depthwise convolutions") after a 64-byte
 * line holding the 1-bit palette (1.0, +0). Returns its bytes. */
static size_t pk_channel_bytes(const struct bp_conv_spec *s, uint8_t *dst, unsigned c)
{
	const unsigned g = s->dw ? 1u : 1u << s->ocg, lmin = s->ssm ? 4u : 2u, L = g > lmin ? g : lmin;
	size_t n = 0;
	if (s->sparse == 2 && c * g < s->cout) {
		if (dst)
			le_wr16(dst, BP_FP16_ONE); /* entry 1 (+0) and the line's rest: zeros */
		n = 64;
	}
	if (s->groups > 1u) { /* g outputs a record (OCGSize 0: one; else a group's c g .. c g + g - 1,
			       * a record a group), each record on its own 64-byte line */
		const unsigned nout = cb_nout(s), per_ch = (nout + H13_COEFF_NCH * g - 1u) / (H13_COEFF_NCH * g);
		for (unsigned r = 0; r < per_ch; r++) {
			const unsigned o = s->grp_wrong == 1u ? c * per_ch + r : c * g + H13_COEFF_NCH * g * r;
			if (o >= nout)
				continue;
			if (s->grp_wrong != 2u)
				n = (n + 63u) & ~(size_t)63u;
			n += pk_record(s, dst ? dst + n : NULL, o, g, L);
		}
		return n;
	}
	for (unsigned o0 = c * g; o0 < s->cout; o0 += H13_COEFF_NCH * g)
		n += pk_record(s, dst ? dst + n : NULL, o0, g, L);
	return n;
}

/* The lane size (every channel's) bp_convb lays out: the furthest byte any channel holds, in
 * whole 64-byte lines. */
static uint64_t cb_lane(const struct bp_conv_spec *s)
{
	const uint64_t kel = (uint64_t)s->cin * s->k * s->k + (s->bias != NULL);
	uint64_t end = 0;
	for (unsigned o = 0; !s->sparse && o < cb_nout(s); o++) {
		unsigned ch;
		uint64_t e = cb_place(s, o, kel - 1, &ch) + 2u;
		end = e > end ? e : end;
	}
	for (unsigned c = 0; s->sparse && c < H13_COEFF_NCH; c++) {
		uint64_t e = pk_channel_bytes(s, NULL, c);
		end = e > end ? e : end;
	}
	return (end + 63u) & ~(uint64_t)63u;
}

/* The coefficient channels bp_convb enables (the first n): those its layout fills (cb_place) */
static unsigned cb_lanes(const struct bp_conv_spec *s)
{
	const unsigned g = 1u << s->ocg;
	/* OCGSize 0 (depthwise too): the first min(NumGroups x Cout, 16), those read (Apple's pad
	 * form: 8 of 8 channels); phase-sparse with OCGSize above 0: all 16 */
	if (!s->ocg)
		return cb_nout(s) < H13_COEFF_NCH ? cb_nout(s) : H13_COEFF_NCH;
	if (s->sparse)
		return H13_COEFF_NCH;
	if (s->groups > 1u)
		return H13_COEFF_NCH;
	return s->cout < H13_COEFF_NCH * g && s->cout % H13_COEFF_NCH ? (s->cout + g - 1u) / g : H13_COEFF_NCH;
}

static void cb_dense(const struct bp_conv_spec *s, uint8_t *wa, uint64_t lane);
static int pe_td(uint32_t *tdw, const struct bp_pe_spec *p, uint8_t in0, uint8_t in1, uint8_t out,
		 unsigned tid, uint32_t next_ptr);

size_t bp_convb_bytes(const struct bp_conv_spec *s)
{
	return BP_WEIGHTS_OFF + (size_t)cb_lane(s) * H13_COEFF_NCH;
}

size_t bp_convb(uint8_t *buf, size_t cap, const struct bp_conv_spec *s)
{
	if (!buf || !s || !s->cin || !s->cout || !s->w || !s->h || !s->k || s->k > 15u || s->k % 2u != 1u ||
	    s->ocg > 7u || !s->wts || s->cin > 4096u || s->cout > 4096u || s->stride > 2u ||
	    (s->ocg && s->cout % (1u << s->ocg)) || (s->dw && (!s->sparse || s->ocg || s->cin != s->cout)) ||
	    (s->groups > 1u && (s->sparse == 2u || s->dw || s->groups > 64u ||
				(s->ocg && s->cout != H13_COEFF_NCH << s->ocg) ||
				(s->sparse && s->ocg && s->grp_wrong == 1u))) ||
	    cap < bp_convb_bytes(s))
		return 0;
	const uint64_t lane = cb_lane(s);
	if (lane > UINT32_MAX / H13_COEFF_NCH)
		return 0;
	uint32_t tdw[TD_WORDS];
	struct td_writer tw;
	const struct ctd t = {s->w, s->h, s->cin, s->cout, s->k, s->stride ? s->stride : 1u, s->ocg, s->sparse, s->ssm,
			      H13_PUT(H13_GROUPCONV_NUMGROUPS, s->groups > 1u ? s->groups : 1u) |
				      (s->dw ? H13_PUT(H13_GROUPCONV_UNICASTEN, 1) | H13_PUT(H13_GROUPCONV_UNICASTCIN, 1) : 0),
			      H13_PUT(H13_MACCFG_BIASMODE, s->bias != NULL) |
				      H13_PUT(H13_MACCFG_NONLINEARMODE, s->relu ? H13_NONLINEAR_RELU : H13_NONLINEAR_NONE),
			      s->accbias, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	conv_regs(&tw, tdw, &t, cb_lanes(s), (uint32_t)lane);
	size_t len = finish(&tw, buf, cap, bp_convb_bytes(s));
	uint8_t *wa = buf + BP_WEIGHTS_OFF;
	if (len)
		memset(wa, 0, (size_t)lane * H13_COEFF_NCH);
	for (unsigned c = 0; len && s->sparse && c < H13_COEFF_NCH; c++)
		(void)pk_channel_bytes(s, wa + c * lane, c);
	if (len && !s->sparse)
		cb_dense(s, wa, lane);
	return len;
}

/* The dense kernels of s where cb_place puts them, channel c at c x lane from wa: the bias first
 * (or, with bias_last, a wrong layout for the tests' negatives, after the taps). */
static void cb_dense(const struct bp_conv_spec *s, uint8_t *wa, uint64_t lane)
{
	const uint64_t per = (uint64_t)s->cin * s->k * s->k, t0 = s->bias && !s->bias_last;
	for (unsigned o = 0; o < cb_nout(s); o++) {
		unsigned ch;
		for (uint64_t i = 0; i < per; i++) {
			uint64_t off = cb_place(s, o, t0 + i, &ch);
			le_wr16(wa + ch * lane + off, s->wts[o * per + i]);
		}
		if (s->bias) {
			uint64_t off = cb_place(s, o, s->bias_last ? per : 0, &ch);
			le_wr16(wa + ch * lane + off, s->bias[o]);
		}
	}
}

struct bp_pe_spec bp_pe_copy(unsigned c, unsigned h, unsigned w, uint8_t in0, uint8_t out)
{
	struct bp_pe_spec p;
	memset(&p, 0, sizeof p);
	p.c = c;
	p.win = p.wout = w;
	p.hin = p.hout = h;
	p.kw = p.kh = p.sx = p.sy = 1;
	p.prescale = p.scale = BP_FP16_ONE;
	p.finalscale = BP_F32_ONE;
	p.bar_in0 = in0;
	p.bar_out = out;
	return p;
}

size_t bp_matmul_bytes(const struct bp_conv_spec *s)
{
	return bp_chain_weights_off(s->l2split ? 3 : 2) + (size_t)cb_lane(s) * H13_COEFF_NCH;
}

size_t bp_matmul(uint8_t *buf, size_t cap, const struct bp_conv_spec *s)
{
	if (!buf || !s || !s->cin || !s->cout || !s->w || s->h != 1u || s->k != 1u || s->ocg > 7u ||
	    !s->wts || s->cin > 4096u || s->cout > 4096u || s->w > 4096u || s->sparse || s->dw ||
	    (s->ocg && s->cout % (1u << s->ocg)) || cap < bp_matmul_bytes(s))
		return 0;
	const uint64_t lane = cb_lane(s);
	const uint32_t cs = ((uint32_t)s->w * 2u + 15u) & ~15u; /* x's row m at 2m of L2 line k */
	const uint32_t cs1 = ((uint32_t)s->cout * 2u + 15u) & ~15u, base1 = cs * s->cin;
	if (lane > UINT32_MAX / H13_COEFF_NCH || (uint64_t)cs * s->cin + (uint64_t)cs1 * s->w > H13_L2_BYTES)
		return 0;
	/* TD 0: x [M, 1, K] copied by the PE into L2, C and W swapped: K channels of M */
	struct bp_pe_spec t0 = bp_pe_copy(s->w, 1, s->cin, 0, 0);
	t0.res_l2 = (struct bp_l2){1, 0, cs, cs, 0, 0};
	t0.out_transpose = 1;
	uint32_t w0[TD_WORDS], w1[TD_WORDS];
	if (!pe_td(w0, &t0, BP_IN0_BAR, 0, 0, 0, BP_CHAIN_STRIDE))
		return 0;
	/* TD 1: the K -> N 1x1 convolution over those M positions, out by the tile DMA transposed */
	struct td_writer tw;
	/* (with l2split: its result kept in L2 transposed, M channels of N, for TD 2 to copy out) */
	const struct ctd t = {s->w, 1, s->cin, s->cout, 1, 1, s->ocg, 0, 0, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1),
			      H13_PUT(H13_MACCFG_BIASMODE, s->bias != NULL) |
				      H13_PUT(H13_MACCFG_NONLINEARMODE, s->relu ? H13_NONLINEAR_RELU : H13_NONLINEAR_NONE),
			      0, cs, 1, 1, !s->l2split, s->l2split ? base1 : 0, s->l2split ? cs1 : 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	conv_regs(&tw, w1, &t, H13_COEFF_NCH, (uint32_t)lane);
	const size_t len = bp_matmul_bytes(s);
	if (!tdw_end(&tw))
		return 0;
	uint32_t w2[TD_WORDS];
	struct bp_pe_spec t2 = bp_pe_copy(s->w, 1, s->cout, 0, 0); /* TD 2: M rows of N from L2 out by the tile DMA */
	t2.l2_src = BP_L2_READ;
	t2.src_l2 = (struct bp_l2){1, base1, cs1, cs1, 0, 0};
	t2.coeff_off = 1;
	if (s->l2split && !pe_td(w2, &t2, 0, 0, BP_OUT_BAR, 2, 0))
		return 0;
	memset(buf, 0, len);
	for (unsigned i = 0; i < TD_WORDS; i++) {
		le_wr32(buf + 4 * i, w0[i]);
		le_wr32(buf + BP_CHAIN_STRIDE + 4 * i, tw.w[i]);
		if (s->l2split)
			le_wr32(buf + 2u * BP_CHAIN_STRIDE + 4 * i, w2[i]);
	}
	cb_dense(s, buf + bp_chain_weights_off(s->l2split ? 3 : 2), lane);
	return len;
}

size_t bp_convkeep_bytes(const struct bp_conv_spec *s)
{
	struct bp_conv_spec h = *s;
	h.cout = s->cout / 2u;
	return bp_chain_weights_off(2) + 2u * (size_t)cb_lane(&h) * H13_COEFF_NCH;
}

size_t bp_convkeep(uint8_t *buf, size_t cap, const struct bp_conv_spec *s)
{
	if (!buf || !s || !s->cin || !s->w || s->h != 1u || s->k != 1u || s->ocg || !s->wts || s->bias ||
	    s->cin > 4096u || s->w > 4096u || !s->cout || s->cout % 2u || s->cout > 4096u || s->sparse || s->dw ||
	    cap < bp_convkeep_bytes(s))
		return 0;
	struct bp_conv_spec half = *s;
	half.cout = s->cout / 2u;
	const uint64_t lane = cb_lane(&half);
	const uint32_t cs = ((uint32_t)s->w * 2u + 15u) & ~15u; /* x's channel c at c x cs in L2 */
	if (lane > UINT32_MAX / (2u * H13_COEFF_NCH) || (uint64_t)cs * s->cin > H13_L2_BYTES)
		return 0;
	const size_t len = bp_convkeep_bytes(s), woff = bp_chain_weights_off(2);
	memset(buf, 0, len);
	for (unsigned i = 0; i < 2; i++) {
		uint32_t tdw[TD_WORDS];
		struct td_writer tw;
		/* TD 0: outputs [0, N/2), x by the tile DMA and kept; TD 1: [N/2, N), x from L2 */
		const struct ctd t = {s->w, 1, s->cin, half.cout, 1, 1, 0, 0, 0, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1),
				      0, 0, i ? cs : 0, 0, i, i == 1, 0, 0, i ? 0 : cs,
				      i * half.cout * bp_row(s->w), (uint32_t)(i * lane * H13_COEFF_NCH), 0, 0, 0, 0, 0, 0};
		conv_regs(&tw, tdw, &t, H13_COEFF_NCH, (uint32_t)lane);
		if (!tdw_end(&tw))
			return 0;
		for (unsigned k = 0; k < TD_WORDS; k++)
			le_wr32(buf + i * BP_CHAIN_STRIDE + 4 * k, tw.w[k]);
		half.wts = s->wts + (size_t)i * half.cout * s->cin;
		cb_dense(&half, buf + woff + i * lane * H13_COEFF_NCH, lane);
	}
	return len;
}

size_t bp_bmm_bytes(const struct bp_bmm_spec *s)
{
	const unsigned g = s->group ? s->group : H13_COEFF_NCH;
	return bp_chain_weights_off(s->b * ((s->m + g - 1u) / g) + (s->xcopy != 0)) +
	       (s->wconst ? (size_t)s->b * s->k * bp_row(s->n) : 0u);
}

size_t bp_bmm(uint8_t *buf, size_t cap, const struct bp_bmm_spec *s)
{
	const unsigned g = s && s->group ? s->group : H13_COEFF_NCH;
	if (!buf || !s || !s->b || !s->m || !s->k || !s->n || g > H13_COEFF_NCH || s->k > 4096u ||
	    s->n > 4096u || s->m > 4096u || s->kbar == 1u || s->kbar >= LDR_NBARS || s->xcopy == 1u ||
	    s->xcopy >= LDR_NBARS || (s->xcopy && s->xcopy == s->kbar) ||
	    (uint64_t)s->b * ((s->m + g - 1u) / g) + (s->xcopy != 0) > LDR_MAX_TDS || cap < bp_bmm_bytes(s))
		return 0;
	const uint32_t cs = ((uint32_t)s->n * 2u + 15u) & ~15u; /* w[b]'s channel k at k x cs in L2 */
	const uint32_t xrow = bp_row(s->k), orow = bp_row(s->n);
	if ((uint64_t)cs * s->k > H13_L2_BYTES ||
	    (uint64_t)s->b * s->m * (xrow > orow ? xrow : orow) > UINT32_MAX)
		return 0;
	const unsigned per = (s->m + g - 1u) / g, x0 = s->xcopy != 0, n = s->b * per + x0;
	const size_t len = bp_bmm_bytes(s);
	memset(buf, 0, len);
	if (x0) { /* TD 0: x copied by the planar engine from BAR kbar to BAR xcopy, the same rows */
		uint32_t w0[TD_WORDS];
		const struct bp_pe_spec cp = bp_pe_copy(s->b * s->m, 1, s->k, (uint8_t)s->kbar, (uint8_t)s->xcopy);
		if (!pe_td(w0, &cp, (uint8_t)s->kbar, 0, (uint8_t)s->xcopy, 0, BP_CHAIN_STRIDE))
			return 0;
		for (unsigned k = 0; k < TD_WORDS; k++)
			le_wr32(buf + 4 * k, w0[k]);
	}
	for (unsigned i = x0; i < n; i++) {
		const unsigned b = (i - x0) / per, r0 = ((i - x0) % per) * g, rows = s->m - r0 < g ? s->m - r0 : g;
		const uint32_t row0 = b * s->m + r0;
		uint32_t tdw[TD_WORDS];
		struct td_writer tw;
		/* the batch's first TD reads w[b] by the tile DMA and keeps it; the rest read it there */
		const int first = (i - x0) % per == 0;
		struct ctd t = {0};
		t.w = s->n;
		t.h = t.k = t.st = 1;
		t.cin = s->k;
		t.cout = rows;
		t.groupconv = H13_PUT(H13_GROUPCONV_NUMGROUPS, 1);
		t.l2cs = first ? 0 : cs;
		t.keep_cs = first ? cs : 0;
		t.tid = i;
		t.last = i + 1u == n;
		t.dst_off = row0 * orow;
		t.coeff_off = row0 * xrow;
		t.kbar = s->xcopy ? s->xcopy : s->kbar;
		t.align = s->align;
		t.src_off = first ? b * s->k * orow : 0;
		t.sbar = s->wconst ? LDR_RAW_WEIGHTS_BAR : 0u;
		conv_regs(&tw, tdw, &t, rows, xrow);
		if (!tdw_end(&tw))
			return 0;
		for (unsigned k = 0; k < TD_WORDS; k++)
			le_wr32(buf + i * BP_CHAIN_STRIDE + 4 * k, tw.w[k]);
	}
	uint8_t *wb = buf + bp_chain_weights_off(n); /* w as the weights: B K rows of N */
	for (unsigned c = 0; s->wconst && c < s->b * s->k; c++)
		for (unsigned j = 0; j < s->n; j++)
			le_wr16(wb + (size_t)c * orow + 2u * j, s->wconst[(size_t)c * s->n + j]);
	return len;
}

/* A depthwise lane: each of its channels' kernels (n x k x k taps, after its bias with one)
 * back to back, in whole 64-byte lines. */
static uint32_t dw_lane(unsigned c, unsigned n, unsigned k, int bias)
{
	const unsigned slots = c > H13_COEFF_NCH ? (c + H13_COEFF_NCH - 1u) / H13_COEFF_NCH : 1u;
	return ((uint32_t)slots * (n * k * k + (bias != 0)) * 2u + 63u) & ~63u;
}

size_t bp_dwconv_bytes(unsigned c, unsigned k, int bias)
{
	return bp_dwconv_n_bytes(c, 1, k, bias);
}

size_t bp_dwconv_n_bytes(unsigned c, unsigned n, unsigned k, int bias)
{
	return BP_WEIGHTS_OFF + (size_t)dw_lane(c, n, k, bias) * H13_COEFF_NCH;
}

size_t bp_dwconv(uint8_t *buf, size_t cap, unsigned c, unsigned w, unsigned h, unsigned k,
		 const uint16_t *wts, const uint16_t *bias)
{
	if (c > H13_COEFF_NCH && c % H13_COEFF_NCH)
		return 0;
	return bp_dwconv_n(buf, cap, c, 1, w, h, k, wts, bias);
}

size_t bp_dwconv_n(uint8_t *buf, size_t cap, unsigned c, unsigned n, unsigned w, unsigned h, unsigned k,
		   const uint16_t *wts, const uint16_t *bias)
{
	if (!buf || !wts || !c || !n || n > 0xffffu || c > 0xffffu / n || !w || !h || !k || k > 15u ||
	    k % 2u != 1u || cap < bp_dwconv_n_bytes(c, n, k, bias != NULL))
		return 0;
	const uint32_t lane = dw_lane(c, n, k, bias != NULL), kel = n * k * k + (bias != NULL);
	const unsigned lanes = c < H13_COEFF_NCH ? c : H13_COEFF_NCH;
	uint32_t tdw[TD_WORDS];
	struct td_writer tw;
	const struct ctd t = {w, h, n * c, c, k, 1, 0, 0, 0,
			      H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
				      H13_PUT(H13_GROUPCONV_UNICASTCIN, n),
			      H13_PUT(H13_MACCFG_BIASMODE, bias != NULL), 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	conv_regs(&tw, tdw, &t, lanes, lane);
	size_t len = finish(&tw, buf, cap, bp_dwconv_n_bytes(c, n, k, bias != NULL));
	uint8_t *wa = buf + BP_WEIGHTS_OFF;
	if (len)
		memset(wa, 0, (size_t)lane * H13_COEFF_NCH);
	for (unsigned o = 0; len && o < c; o++) {
		uint8_t *p = wa + (o % H13_COEFF_NCH) * lane + (o / H13_COEFF_NCH) * kel * 2u;
		if (bias)
			le_wr16(p, bias[o]);
		for (unsigned i = 0; i < n * k * k; i++)
			le_wr16(p + ((bias != NULL) + i) * 2u, wts[o * n * k * k + i]);
	}
	return len;
}

/* bp_dwox2's lane: ceil(c / 16) records of kel fp16 values, in whole 64-byte lines */
static uint32_t dwox2_lane(unsigned c, unsigned kel)
{
	return ((uint32_t)((c + H13_COEFF_NCH - 1u) / H13_COEFF_NCH) * kel * 2u + 63u) & ~63u;
}

size_t bp_dwox2_bytes(unsigned c, unsigned kw, int bias)
{
	return bp_chain_weights_off(2) + (size_t)dwox2_lane(c, 2u * (bias != 0) + 2u * (kw + 1u)) * H13_COEFF_NCH;
}

size_t bp_dwox2(uint8_t *buf, size_t cap, unsigned c, unsigned w, unsigned kw, unsigned px, const uint16_t *rec,
		int bias)
{
	const unsigned kel = 2u * (bias != 0) + 2u * (kw + 1u), wout = (w + 2u * px - kw) / 2u + 1u;
	if (!buf || !rec || !c || c > 1024u || (c > H13_COEFF_NCH && c % H13_COEFF_NCH) || !w ||
	    w >= 1u << H13_INDIM_WIN_W || !kw || kw > 31u || px > 31u || w + 2u * px < kw || 2u * wout < w ||
	    cap < bp_dwox2_bytes(c, kw, bias))
		return 0;
	const uint32_t lane = dwox2_lane(c, kel), cs = (4u * wout + 15u) & ~15u; /* 2 x Wout a row */
	const unsigned lanes = c < H13_COEFF_NCH ? c : H13_COEFF_NCH;
	const size_t len = bp_dwox2_bytes(c, kw, bias), woff = bp_chain_weights_off(2);
	if ((uint64_t)cs * c > H13_L2_BYTES)
		return 0;
	memset(buf, 0, len);
	uint32_t tdw[TD_WORDS];
	struct td_writer tw;
	struct ctd t = {0};
	t.w = w;
	t.h = t.k = t.st = 1;
	t.cin = t.cout = c;
	t.groupconv = H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
		      H13_PUT(H13_GROUPCONV_UNICASTCIN, 1);
	t.mac = H13_PUT(H13_MACCFG_BIASMODE, bias != 0);
	t.res_cs = cs;
	t.convcfg = H13_PUT(H13_CONVCFG_KW, kw) | H13_PUT(H13_CONVCFG_KH, 1u) | H13_PUT(H13_CONVCFG_SX, 2u) |
		    H13_PUT(H13_CONVCFG_SY, 1u) | H13_PUT(H13_CONVCFG_PX, px) | H13_PUT(H13_CONVCFG_OX, 2u);
	t.wout = wout;
	conv_regs(&tw, tdw, &t, lanes, lane);
	if (!tdw_end(&tw))
		return 0;
	for (unsigned k = 0; k < TD_WORDS; k++)
		le_wr32(buf + 4 * k, tw.w[k]);
	/* TD 1: the first w columns of each channel's row, from L2 memory to BP_OUT_BAR */
	struct bp_pe_spec cp = bp_pe_copy(c, 1, w, 0, BP_OUT_BAR);
	cp.l2_src = BP_L2_READ;
	cp.src_l2 = (struct bp_l2){1, 0, cs, cs, 0, 0};
	cp.coeff_off = 1;
	uint32_t w1[TD_WORDS];
	if (!pe_td(w1, &cp, 0, 0, BP_OUT_BAR, 1, 0))
		return 0;
	for (unsigned k = 0; k < TD_WORDS; k++)
		le_wr32(buf + BP_CHAIN_STRIDE + 4 * k, w1[k]);
	for (unsigned o = 0; o < c; o++)
		for (unsigned i = 0; i < kel; i++)
			le_wr16(buf + woff + (o % H13_COEFF_NCH) * lane + ((o / H13_COEFF_NCH) * kel + i) * 2u,
				rec[(size_t)o * kel + i]);
	return len;
}

size_t bp_add(uint8_t *buf, size_t cap, unsigned w, unsigned h, unsigned c)
{
	if (!buf || !w || !h || !c)
		return 0;
	uint32_t tdw[TD_WORDS];
	struct td_writer tw;
	const uint8_t bar[H13_BAR_NSLOTS] = {[H13_BAR_RBASE0] = BP_IN0_BAR,
					     [H13_BAR_RBASE1] = BP_IN1_BAR, [H13_BAR_WBASE] = BP_OUT_BAR};
	begin(&tw, tdw, bar, 1u << H13_BAR_RBASE0 | 1u << H13_BAR_RBASE1 | 1u << H13_BAR_WBASE);
	common(&tw, w, h, c, c);
	tdw_reg(&tw, H13_PLANAR_CFG, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_ADD) |
				     H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	tdw_reg(&tw, H13_PLANAR_BIASSCALE, H13_PUT(H13_BIASSCALE_SCALE, BP_FP16_ONE));
	tdw_reg(&tw, H13_PLANAR_PRESCALE, H13_PUT(H13_PRESCALE, BP_FP16_ONE));
	tdw_reg(&tw, H13_PLANAR_FINALSCALE, 0x3f800000u); /* fp32 1.0 */
	tdw_reg(&tw, H13_COMMON_CFG, H13_PUT(H13_CFG_TASKTYPE, H13_TASK_PE_TWO));
	fixed(&tw, 1);
	tile(&tw, H13_SRC_DMACONFIG, H13_SRC_BASEADDR, bp_row(w), bp_row(w) * h);
	tile(&tw, 0, H13_SRC2_BASEADDR, bp_row(w), bp_row(w) * h);
	tile(&tw, H13_DST_DMACONFIG, H13_DST_BASEADDR, bp_row(w), bp_row(w) * h);
	return finish(&tw, buf, cap, BP_WEIGHTS_OFF + 64);
}

/* tanh(i / 8) rounded to fp16, i = 0..32 */
static const uint16_t tanh_knots[ACTLUT_KNOTS] = {
	0x0000, 0x2ff5, 0x33d6, 0x35bc, 0x3765, 0x3870, 0x3915, 0x39a2, 0x3a18, 0x3a79, 0x3ac9,
	0x3b0a, 0x3b3e, 0x3b67, 0x3b88, 0x3ba2, 0x3bb6, 0x3bc6, 0x3bd3, 0x3bdd, 0x3be5, 0x3beb,
	0x3bef, 0x3bf3, 0x3bf6, 0x3bf8, 0x3bfa, 0x3bfb, 0x3bfc, 0x3bfd, 0x3bfe, 0x3bfe, 0x3bff};

size_t bp_act(uint8_t *buf, size_t cap, unsigned w, unsigned h, unsigned c)
{
	return bp_act_n(buf, cap, w, h, c, 1);
}

size_t bp_act_n(uint8_t *buf, size_t cap, unsigned w, unsigned h, unsigned c, unsigned nch)
{
	const size_t bytes = BP_WEIGHTS_OFF + (size_t)nch * ACTLUT_STRIDE;
	if (!buf || !w || !h || !c || !nch || nch > H13_COEFF_NCH || cap < bytes)
		return 0;
	uint32_t tdw[TD_WORDS];
	struct td_writer tw;
	const uint8_t bar[H13_BAR_NSLOTS] = {[H13_BAR_RBASE0] = BP_IN0_BAR,
					     [H13_BAR_WBASE] = BP_OUT_BAR, [H13_BAR_KBASE0] = 1};
	begin(&tw, tdw, bar, 1u << H13_BAR_RBASE0 | 1u << H13_BAR_WBASE | 1u << H13_BAR_KBASE0);
	for (unsigned k = 0; k < nch; k++) {
		tdw_reg(&tw, H13_COEFF_DMACONFIG(k), H13_PUT(H13_DMA_EN, 1));
		tdw_reg(&tw, H13_COEFF_BASEADDR(k), k * ACTLUT_STRIDE);
		tdw_reg(&tw, H13_COEFF_BFRSIZE(k), ACTLUT_STRIDE);
	}
	common(&tw, w, h, c, c);
	tdw_reg(&tw, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) |
				    H13_PUT(H13_MACCFG_KERNELMODE, 1) |
				    H13_PUT(H13_MACCFG_NONLINEARMODE, H13_NONLINEAR_LUT) | H13_PUT(H13_MACCFG_BIT20, 1));
	tdw_reg(&tw, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, BP_FP16_ONE));
	fixed(&tw, 0);
	tile(&tw, H13_SRC_DMACONFIG, H13_SRC_BASEADDR, bp_row(w), bp_row(w) * h);
	tile(&tw, H13_DST_DMACONFIG, H13_DST_BASEADDR, bp_row(w), bp_row(w) * h);
	size_t len = finish(&tw, buf, cap, bytes);
	if (!len)
		return 0;
	uint8_t *rec = buf + BP_WEIGHTS_OFF;
	memset(rec, 0, ACTLUT_STRIDE);
	le_wr16(rec + 2 * ACTLUT_IN_HI, 0x4400u);  /* |x| clamped to [0, 4] */
	le_wr16(rec + 2 * ACTLUT_OUT_HI, BP_FP16_ONE); /* tanh is 0 at 0 and 1 at +inf */
	for (unsigned i = 0; i < ACTLUT_KNOTS; i++)
		le_wr16(rec + 2 * (ACTLUT_KNOT0 + i), tanh_knots[i]);
	le_wr16(rec + 2 * ACTLUT_R_ICPT, BP_FP16_ONE);
	le_wr16(rec + 2 * ACTLUT_SCALE, 3);
	le_wr16(rec + 2 * ACTLUT_MODE, ACTLUT_MODE_ODD);
	for (unsigned k = 1; k < nch; k++)
		memcpy(rec + k * ACTLUT_STRIDE, rec, ACTLUT_STRIDE);
	return len;
}

/* fixed()'s words with L2.SourceCfg and ResultCfg, the bases and the strides of a TD with an
 * operand or its result in L2 memory (bp_pe_spec). */
static void l2_words(struct td_writer *tw, const struct bp_pe_spec *p)
{
	int two = td_pe_two_operands(H13_PUT(H13_PECFG_SECSRC, p->secsrc));
	uint32_t st = p->l2_src == BP_L2_READ ? H13_L2_MEM : p->l2_src == BP_L2_KEEP ? H13_L2_KEEP : H13_L2_DMA;
	uint32_t scfg = td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2_SOURCETYPE, st) |
			H13_PUT(H13_L2SRC_SRC2DMA, two && !p->src2_l2.on) |
			H13_PUT(H13_L2SRC_DEPENDENT, p->dependent) | H13_PUT(H13_L2SRC_SRC2DEP, p->src2_dependent);
	uint32_t rcfg = td_fixed_bits(H13_L2_RESULTCFG) |
			H13_PUT(H13_L2_RESULTTYPE, p->res_l2.on ? H13_L2_MEM : p->res_keep ? H13_L2_KEEP : H13_L2_DMA);
	const struct bp_l2 *v[3] = {&p->src_l2, &p->src2_l2, &p->res_l2};
	const uint32_t base[3] = {H13_L2_SOURCEBASE, H13_L2_SOURCE2BASE, H13_L2_RESULTBASE};
	const uint32_t cs[3] = {H13_L2_SRC_CSTRIDE, H13_L2_SRC2_CSTRIDE, H13_L2_RES_CSTRIDE};
	fixed_cfg(tw, scfg, rcfg);
	for (unsigned i = 0; i < 3; i++) {
		if (!v[i]->on && !(i == 0 && p->l2_src))
			continue;
		tdw_reg(tw, base[i], H13_PUT(H13_L2_ADDR, v[i]->base / H13_L2_UNIT));
		tdw_reg(tw, cs[i], H13_PUT(H13_L2_STRIDE, v[i]->cs / H13_L2_UNIT));
		tdw_reg(tw, cs[i] + 4u, H13_PUT(H13_L2_STRIDE, v[i]->rs / H13_L2_UNIT));
		if (v[i]->ds)
			tdw_reg(tw, cs[i] + 8u, H13_PUT(H13_L2_STRIDE, v[i]->ds / H13_L2_UNIT));
		if (v[i]->gs)
			tdw_reg(tw, cs[i] + 12u, H13_PUT(H13_L2_STRIDE, v[i]->gs / H13_L2_UNIT));
	}
}

/* One planar-engine TD into tdw (TD_WORDS words): sources from BARs in0 (and in1 with the second
 * tile source), the result to BAR out; header tid, and the next TD at next_ptr (0: the last).
 * Returns 0 when a size is zero or it does not fit. */
static int pe_td(uint32_t *tdw, const struct bp_pe_spec *p, uint8_t in0, uint8_t in1, uint8_t out,
		 unsigned tid, uint32_t next_ptr)
{
	if (!p->win || !p->hin || !p->c || !p->wout || !p->hout || !p->kw || !p->kh || !p->sx || !p->sy ||
	    (p->dst_off & 63u))
		return 0;
	struct td_writer tw;
	/* the operands and result that go by tile DMA (the others in L2 memory) */
	int two = td_pe_two_operands(H13_PUT(H13_PECFG_SECSRC, p->secsrc));
	int t0 = p->l2_src != BP_L2_READ, t1 = two && !p->src2_l2.on, to = !p->res_l2.on;
	/* bound with their DMA's En clear (Apple's staging form) */
	int b0 = t0 || (p->src_rbase && p->l2_src == BP_L2_READ), bo = to || (p->res_wbase && p->res_l2.on);
	const uint8_t bar[H13_BAR_NSLOTS] = {[H13_BAR_RBASE0] = b0 ? in0 : 0, [H13_BAR_RBASE1] = t1 ? in1 : 0,
					     [H13_BAR_WBASE] = bo ? out : 0};
	struct td_hdr h;
	memset(&h, 0, sizeof h);
	h.tid = tid;
	h.eon = next_ptr == 0;
	h.next_ptr = next_ptr;
	h.next_size = next_ptr ? TD_WORDS - 1u : 0u;
	h.bar_en = (uint8_t)((b0 ? 1u << H13_BAR_RBASE0 : 0u) | (t1 ? 1u << H13_BAR_RBASE1 : 0u) |
			     (bo ? 1u << H13_BAR_WBASE : 0u));
	for (unsigned s = 0; s < H13_BAR_NSLOTS; s++)
		h.bar_idx[s] = bar[s];
	tdw_begin(&tw, tdw, TD_WORDS, &h);
	uint32_t v[11];
	memset(v, 0, sizeof v);
	v[0] = H13_PUT(H13_INDIM_WIN, p->win) | H13_PUT(H13_INDIM_HIN, p->hin);
	v[(H13_COMMON_CHCFG - H13_COMMON_INDIM) / 4] =
		H13_PUT(H13_CHCFG_INFMT, H13_FMT_FP16) | H13_PUT(H13_CHCFG_OUTFMT, H13_FMT_FP16);
	v[(H13_COMMON_CIN - H13_COMMON_INDIM) / 4] = p->c;
	v[(H13_COMMON_COUT - H13_COMMON_INDIM) / 4] = p->ne_rcas ? p->c / 2u : p->ne_chmax ? p->c / p->ne_chmax : p->c;
	v[(H13_COMMON_OUTDIM - H13_COMMON_INDIM) / 4] =
		H13_PUT(H13_OUTDIM_WOUT, p->wout) | H13_PUT(H13_OUTDIM_HOUT, p->hout);
	v[(H13_COMMON_CONVCFG - H13_COMMON_INDIM) / 4] =
		td_fixed_bits(H13_COMMON_CONVCFG) | H13_PUT(H13_CONVCFG_KW, p->kw) |
		H13_PUT(H13_CONVCFG_KH, p->kh) | H13_PUT(H13_CONVCFG_SX, p->sx) | H13_PUT(H13_CONVCFG_SY, p->sy) |
		H13_PUT(H13_CONVCFG_PX, p->px) | H13_PUT(H13_CONVCFG_PY, p->py);
	v[(H13_COMMON_GROUPCONVCFG - H13_COMMON_INDIM) / 4] =
		H13_PUT(H13_GROUPCONV_NUMGROUPS, p->groups ? p->groups : 1u) |
		(p->ne_rcas ? H13_PUT(H13_GROUPCONV_UNICASTEN, 1) | H13_PUT(H13_GROUPCONV_ELEMMULTMODE, 1) |
				      H13_PUT(H13_GROUPCONV_UNICASTCIN, H13_RCAS_UNICASTCIN)
		 : p->ne_unit ? H13_PUT(H13_GROUPCONV_UNICASTEN, 1) | H13_PUT(H13_GROUPCONV_UNICASTCIN, 1)
		 : p->ne_chmax ? H13_PUT(H13_GROUPCONV_UNICASTEN, 1) | H13_PUT(H13_GROUPCONV_UNICASTCIN, p->ne_chmax)
			      : 0u);
	v[(H13_COMMON_TILECFG - H13_COMMON_INDIM) / 4] = H13_PUT(H13_TILECFG_TILEHEIGHT, p->hout);
	td_fixed_block(H13_COMMON_INDIM, v, 11);
	if (p->depth) {
		v[(H13_COMMON_INDEPTH - H13_COMMON_INDIM) / 4] = p->depth;
		v[(H13_COMMON_OUTDEPTH - H13_COMMON_INDIM) / 4] = p->depth;
	}
	tdw_block(&tw, H13_COMMON_INDIM, v, 11);
	if (p->ne_rcas || p->ne_unit || p->ne_chmax) {
		tdw_reg(&tw, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, p->ne_rcas    ? H13_MAC_OP_RCAS
								      : p->ne_chmax ? H13_MAC_OP_CHMAX
										    : H13_MAC_OP_CONV) |
					    H13_PUT(H13_MACCFG_KERNELMODE, 1) | H13_PUT(H13_MACCFG_BIT20, 1) |
					    (p->ne_chmax ? H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) : 0u));
		tdw_reg(&tw, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	} else if (!p->ne_pass) { /* the NE out of the path (a TD before may have set it) */
		tdw_reg(&tw, H13_NE_MACCFG, 0);
		tdw_reg(&tw, H13_NE_POSTSCALE, 0);
	}
	const uint32_t pcfg = H13_PUT(H13_PECFG_POOLMODE, p->pool) | H13_PUT(H13_PECFG_OPMODE, p->op) |
			      H13_PUT(H13_PECFG_CONDITION, p->cond) | H13_PUT(H13_PECFG_RELUEN, p->relu) |
			      H13_PUT(H13_PECFG_NLMODE, p->nlmode) | H13_PUT(H13_PECFG_FIRSTSRC, p->firstsrc) |
			      H13_PUT(H13_PECFG_SECSRC, p->secsrc);
	const uint32_t pbs = H13_PUT(H13_BIASSCALE_SCALE, p->scale) | H13_PUT(H13_BIASSCALE_BIAS, p->bias);
	const uint32_t ppre = H13_PUT(H13_PRESCALE, p->prescale) | H13_PUT(H13_PRESCALE_EPS, p->eps);
	tdw_reg(&tw, H13_PLANAR_CFG, pcfg);
	tdw_reg(&tw, H13_PLANAR_BIASSCALE, pbs);
	tdw_reg(&tw, H13_PLANAR_PRESCALE, ppre);
	tdw_reg(&tw, H13_PLANAR_FINALSCALE, p->finalscale);
	if (p->ne_pass) {
		tdw_reg(&tw, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 8));
		tdw_reg(&tw, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BIT20, 1));
		tdw_reg(&tw, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, p->ne_post));
	}
	if (p->l2_src || p->src2_l2.on || p->res_l2.on || p->res_keep)
		l2_words(&tw, p);
	else
		fixed(&tw, t1);
	if (p->coeff_off) {
		uint32_t off[H13_COEFF_NCH] = {0};
		tdw_block(&tw, H13_COEFF_DMACONFIG(0), off, H13_COEFF_NCH);
	}
	/* (registers keep their values from one TD to the next: every TD writes these) */
	tdw_reg(&tw, H13_COMMON_PECFG, p->pecfg);
	tdw_reg(&tw, H13_COMMON_CFG, H13_PUT(H13_CFG_OUTTRANSPOSE, p->out_transpose) |
				     H13_PUT(H13_CFG_TASKTYPE, p->tasktype ? p->tasktype
							       : p->reduce ? H13_TASK_REDUCE
									   : pe_task(pcfg, pbs, ppre, p->finalscale)));
	if (t0)
		tile(&tw, H13_SRC_DMACONFIG, H13_SRC_BASEADDR, bp_row(p->win),
		     p->src_plane ? p->src_plane : bp_row(p->win) * p->hin);
	if (t0 && p->src_depth)
		tdw_reg(&tw, H13_SRC_DEPTHSTRIDE, p->src_depth);
	if (t0 && p->src_group)
		tdw_reg(&tw, H13_SRC_GROUPSTRIDE, p->src_group);
	if (t1) /* (the tile source DMA serves both: enabled for the second alone too) */
		tile(&tw, t0 ? 0 : H13_SRC_DMACONFIG, H13_SRC2_BASEADDR, bp_row(p->win), bp_row(p->win) * p->hin);
	if (t1 && p->src2_depth)
		tdw_reg(&tw, H13_SRC2_DEPTHSTRIDE, p->src2_depth);
	if (t1 && p->src2_group)
		tdw_reg(&tw, H13_SRC2_GROUPSTRIDE, p->src2_group);
	if (to)
		tile_at(&tw, H13_DST_DMACONFIG, H13_DST_BASEADDR, p->dst_off, bp_row(p->wout),
			p->dst_plane ? p->dst_plane : bp_row(p->wout) * p->hout);
	if (bo && !to) { /* Apple's: the destination's words written, its DMAConfig 0xc0 (En clear) */
		tile_at(&tw, 0, H13_DST_BASEADDR, p->dst_off, bp_row(p->wout),
			p->dst_plane ? p->dst_plane : bp_row(p->wout) * p->hout);
		tdw_reg(&tw, H13_DST_DMACONFIG, H13_PUT(H13_DMA_CACHEHINT, 3));
	}
	if (b0 && !t0) /* Apple's: the tile source's En clear (registers keep a TD before's) */
		tdw_reg(&tw, H13_SRC_DMACONFIG, H13_PUT(H13_DMA_CACHEHINT, 2));
	if (to && p->dst_depth)
		tdw_reg(&tw, H13_DST_DEPTHSTRIDE, p->dst_depth);
	if (to && p->dst_group)
		tdw_reg(&tw, H13_DST_GROUPSTRIDE, p->dst_group);
	for (unsigned i = 0; i < p->nx && i < BP_PE_EXTRA; i++)
		tdw_reg(&tw, p->xreg[i], p->xval[i]);
	return tdw_end(&tw) != 0;
}

size_t bp_pe(uint8_t *buf, size_t cap, const struct bp_pe_spec *p)
{
	uint32_t tdw[TD_WORDS];
	if (!buf || !p || !pe_td(tdw, p, BP_IN0_BAR, BP_IN1_BAR, BP_OUT_BAR, 0, 0) ||
	    cap < BP_WEIGHTS_OFF + 64)
		return 0;
	memset(buf, 0, BP_WEIGHTS_OFF + 64);
	for (unsigned i = 0; i < TD_WORDS; i++)
		le_wr32(buf + 4 * i, tdw[i]);
	return BP_WEIGHTS_OFF + 64;
}

size_t bp_pe2(uint8_t *buf, size_t cap, const struct bp_pe_spec *first, const struct bp_pe_spec *second)
{
	uint32_t t0[TD_WORDS], t1[TD_WORDS];
	const size_t len = BP2_WEIGHTS_OFF + 64;
	if (!buf || !first || !second || first->secsrc == H13_PE_SECSRC_TILE1 || cap < len ||
	    !pe_td(t0, first, BP_IN0_BAR, 0, BP_MID_BAR, 0, BP2_TD1_OFF) ||
	    !pe_td(t1, second, BP_MID_BAR, BP_IN1_BAR, BP_OUT_BAR, 1, 0))
		return 0;
	memset(buf, 0, len);
	for (unsigned i = 0; i < TD_WORDS; i++) {
		le_wr32(buf + 4 * i, t0[i]);
		le_wr32(buf + BP2_TD1_OFF + 4 * i, t1[i]);
	}
	return len;
}

size_t bp_pen(uint8_t *buf, size_t cap, const struct bp_pe_spec *const *p, unsigned n)
{
	uint32_t t[TD_WORDS];
	if (!buf || !p || !n || n > LDR_MAX_TDS)
		return 0;
	const size_t len = bp_chain_weights_off(n) + 64;
	if (cap < len)
		return 0;
	memset(buf, 0, len);
	for (unsigned i = 0; i < n; i++) {
		if (!p[i] || !pe_td(t, p[i], p[i]->bar_in0, p[i]->bar_in1, p[i]->bar_out, i,
				    i + 1 < n ? (i + 1u) * BP_CHAIN_STRIDE : 0))
			return 0;
		for (unsigned k = 0; k < TD_WORDS; k++)
			le_wr32(buf + (size_t)i * BP_CHAIN_STRIDE + 4 * k, t[k]);
	}
	return len;
}

size_t bp_chain_weights_off(unsigned n)
{
	return n ? (size_t)(n - 1u) * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF : 0;
}

/* Step i of n into tdw (TD_WORDS words). Returns 0 when the step is malformed. */
static int chain_td(uint32_t *tdw, const struct bp_step *s, unsigned i, unsigned n, unsigned w,
		    unsigned h)
{
	const uint32_t row = bp_row(w), plane = row * h;
	const int conv = s->kind == BP_STEP_CONV, pe = s->kind == BP_STEP_PE;
	if (s->kind > BP_STEP_PE || !s->cin || !s->cout || (!conv && s->cin != s->cout) ||
	    (conv && (s->cout > H13_COEFF_NCH || s->cin > 32u)) || !s->in0 || !s->out ||
	    (pe && (!s->in1 || (s->op != H13_PE_OP_ADD && s->op != H13_PE_OP_MUL))) ||
	    ((s->in0_off | s->in1_off | s->out_off | s->in_plane | s->out_plane) & 63u))
		return 0;
	struct td_writer tw;
	struct td_hdr hd;
	memset(&hd, 0, sizeof hd);
	hd.tid = i;
	hd.eon = i + 1u == n;
	hd.next_ptr = hd.eon ? 0 : (i + 1u) * BP_CHAIN_STRIDE;
	hd.next_size = hd.eon ? 0 : TD_WORDS - 1u;
	hd.bar_en = (uint8_t)(1u << H13_BAR_RBASE0 | 1u << H13_BAR_WBASE |
			      (pe ? 1u << H13_BAR_RBASE1 : 0u) | (conv ? 1u << H13_BAR_KBASE0 : 0u));
	hd.bar_idx[H13_BAR_RBASE0] = s->in0;
	hd.bar_idx[H13_BAR_RBASE1] = pe ? s->in1 : 0;
	hd.bar_idx[H13_BAR_WBASE] = s->out;
	hd.bar_idx[H13_BAR_KBASE0] = conv ? 1 : 0;
	tdw_begin(&tw, tdw, TD_WORDS, &hd);
	/* the register window keeps what a TD does not write: every TD writes every group */
	uint32_t cfg[H13_COEFF_NCH], base[H13_COEFF_NCH], size[H13_COEFF_NCH];
	for (unsigned c = 0; c < H13_COEFF_NCH; c++) {
		cfg[c] = conv && c < s->cout ? H13_PUT(H13_DMA_EN, 1) : 0;
		base[c] = conv && c < s->cout ? c * 64u : 0;
		size[c] = conv && c < s->cout ? 64u : 0;
	}
	tdw_block(&tw, H13_COEFF_DMACONFIG(0), cfg, H13_COEFF_NCH);
	tdw_block(&tw, H13_COEFF_BASEADDR(0), base, H13_COEFF_NCH);
	tdw_block(&tw, H13_COEFF_BFRSIZE(0), size, H13_COEFF_NCH);
	common(&tw, w, h, s->cin, s->cout);
	tdw_reg(&tw, H13_COMMON_PEROUTE, s->peroute);
	uint32_t kcfg, mac, post, pcfg = 0, bs = 0, pre = 0, fin = 0;
	if (conv) {
		kcfg = H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16);
		mac = H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) | H13_PUT(H13_MACCFG_BINARYPOINT, 0x1c) |
		      H13_PUT(H13_MACCFG_BIT20, 1);
		post = H13_PUT(H13_POSTSCALE, BP_FP16_ONE);
	} else if (!pe) {
		kcfg = H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16);
		mac = H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
		      H13_PUT(H13_MACCFG_BINARYPOINT, 0x1c) | H13_PUT(H13_MACCFG_BIT20, 1);
		post = H13_PUT(H13_POSTSCALE, BP_FP16_ONE);
	} else {
		kcfg = H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 8);
		mac = H13_PUT(H13_MACCFG_BIT20, 1);
		post = 0;
		pcfg = H13_PUT(H13_PECFG_OPMODE, s->op) | H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1);
		bs = H13_PUT(H13_BIASSCALE_SCALE, BP_FP16_ONE);
		pre = H13_PUT(H13_PRESCALE, BP_FP16_ONE);
		fin = 0x3f800000u; /* fp32 1.0 */
	}
	tdw_reg(&tw, H13_NE_KERNELCFG, kcfg);
	tdw_reg(&tw, H13_NE_MACCFG, mac);
	tdw_reg(&tw, H13_NE_POSTSCALE, post);
	tdw_reg(&tw, H13_PLANAR_CFG, pcfg);
	tdw_reg(&tw, H13_PLANAR_BIASSCALE, bs);
	tdw_reg(&tw, H13_PLANAR_PRESCALE, pre);
	tdw_reg(&tw, H13_PLANAR_FINALSCALE, fin);
	tdw_reg(&tw, H13_COMMON_CFG, H13_PUT(H13_CFG_TASKTYPE, pe_task(pcfg, bs, pre, fin)));
	fixed(&tw, pe);
	tile_at(&tw, H13_SRC_DMACONFIG, H13_SRC_BASEADDR, s->in0_off, row,
		s->in_plane ? s->in_plane : plane);
	tile_at(&tw, 0, H13_SRC2_BASEADDR, pe ? s->in1_off : 0, pe ? row : 0, pe ? plane : 0);
	tile_at(&tw, H13_DST_DMACONFIG, H13_DST_BASEADDR, s->out_off, row,
		s->out_plane ? s->out_plane : plane);
	return tdw_end(&tw) != 0;
}

size_t bp_chain(uint8_t *buf, size_t cap, unsigned w, unsigned h, const struct bp_step *s,
		unsigned n, const uint16_t *weights)
{
	if (!buf || !s || !w || !h || !n || n > BP_CHAIN_MAX)
		return 0;
	unsigned cin = 0, cout = 0;
	for (unsigned i = 0; i < n; i++)
		if (s[i].kind == BP_STEP_CONV) {
			if ((cout && (s[i].cin != cin || s[i].cout != cout)) || !weights)
				return 0; /* the convolution steps share one set of weights */
			cin = s[i].cin, cout = s[i].cout;
		}
	const size_t woff = bp_chain_weights_off(n), len = woff + (cout ? (size_t)cout * 64u : 64u);
	if (cap < len)
		return 0;
	memset(buf, 0, len);
	for (unsigned i = 0; i < n; i++) {
		uint32_t tdw[TD_WORDS];
		if (!chain_td(tdw, &s[i], i, n, w, h))
			return 0;
		for (unsigned k = 0; k < TD_WORDS; k++)
			le_wr32(buf + (size_t)i * BP_CHAIN_STRIDE + 4u * k, tdw[k]);
	}
	for (unsigned o = 0; o < cout; o++)
		for (unsigned c = 0; c < cin; c++)
			le_wr16(buf + woff + (size_t)o * 64u + 2u * c, weights[o * cin + c]);
	return len;
}
