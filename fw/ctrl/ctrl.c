#include "fw/ctrl/ctrl.h"
#include "fw/common/assert.h"
#include "fw/codec/codec.h"
#include "fw/common/le.h"
#include "fw/formats/formats.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct err_desc errs[CTRL_E__COUNT] = {
	[CTRL_OK] = {"ok", "no error"},
	[CTRL_E_ARG] = {"bad-argument", "a null pointer, or no program"},
	[CTRL_E_UNSUPPORTED] = {"generation-without-register-map",
	 "a generation without a register map"},
	[CTRL_E_POLICY] = {"policy", "the address policy refused (its error says why)"},
	[CTRL_E_KUNIT] = {"kunit", "the kernel unit refused (its error says why)"},
	[CTRL_E_TD] = {"td", "fw/td could not derive a TD's ranges (its error says why)"},
	[CTRL_E_ALIGN] = {"coefficient-base-misaligned",
	 "a re-based coefficient base not on its 64-byte unit"},
	[CTRL_E_SCRATCH] = {"firmware-scratch-too-small",
	 "TD memory or the kernel-unit scratch is smaller than the program"},
	[CTRL_E_GRANTS] = {"too-many-grants", "more grants than a submission holds"},
	[CTRL_E_RELOC] = {"relocation-not-applied", "a relocation the firmware does not apply"},
	[CTRL_E_WORK] = {"work-over-budget", "the submission's work is over the limit"},
	[CTRL_E_FOLD_REGS] = {"fold-registers-not-written",
	 "a TD whose weights fold does not write the words the fold rewrites, or a TD reading "
	 "kernels that inherits a word an earlier fold rewrote over its own kernels"},
	[CTRL_E_FOLD_SOURCE] = {"fold-source-not-weights",
	 "a TD whose weights fold, or that reads a kernel unit, reads them from a BAR other than "
	 "the weights"},
	[CTRL_E_KERNEL_FMT] = {"kernel-format-unknown",
	 "NE.KernelCfg.KernelFmt names no format (3)"},
	[CTRL_E_FOLD_SHAPE] = {"fold-shape-unsupported",
	 "a palette to fold that is not one OCG in channel 0 with one codebook"},
	[CTRL_E_ITM_CONFLICT] = {"intermediate-extent-conflict",
	 "a TD reads intermediate bytes no earlier TD wrote"},
	[CTRL_E_ITM_OVERFLOW] = {"intermediate-extent-overflow",
	 "an intermediate's extent is over a grant's limit or the reach"},
	[CTRL_E_OCG] = {"kunit-td-weights-not-an-ocg",
	 "a convolving TD's coefficient channel 0 is not one OCG of the unit"},
	[CTRL_E_OCG_CHANNELS] = {"kunit-ocg-channels-differ",
	 "a convolving TD's OCG channel count is not its output channels (G x Cout)"},
	[CTRL_E_L2_RESULT] = {"l2-result-over-limit",
	 "an L2-resident result larger than the limit (ctrl_limits.max_l2_tensor)"},
	[CTRL_E_KERNELS] = {"kernels-over-kernel-memory",
	 "a convolution's kernels larger than the kernel memory (ctrl_limits.max_kernels)"},
	[CTRL_E_TEXT_DATA] = {"td-area-read-as-data",
	 "a tile, coefficient or stream range on the BAR holding the TD area (__text)"},
	[CTRL_E_BAR_ALIAS] = {"bar-address-aliased",
	 "two BARs the TDs use at overlapping addresses, or one inside a section or window other "
	 "than at its start, or at the start of a window another BAR holds"},
	[CTRL_E_DST_KERNELS] = {"output-overlaps-kernels",
	 "a TD's destination overlapping the coefficients or kernel streams the same TD reads"},
	[CTRL_E_ITM_BOUND] = {"intermediate-coverage-bound",
	 "an intermediate read the coverage check could not prove within its bounds (2^22 steps a "
	 "program, or no memory for its table of writes)"},
	[CTRL_E_KU_NO_STREAMS] = {"kunit-td-without-streams",
	 "a TD reading a kernel unit's kernels, of a unit with no bias, post-scale or palette "
	 "section: no stream names the unit, and the engine would read the kernels as a program "
	 "without one"},
	[CTRL_E_KU_SPARSE_MASK] = {"kunit-sparse-mask-width",
	 "a SparseFmt TD whose kernel unit is not sparse, or whose mask bytes (the weights "
	 "section's parameter) are not ceil(Cin x Kh x Kw / 8)"},
	[CTRL_E_KU_PALETTE] = {"kunit-palette-bits-differ",
	 "a palettized TD whose kernel unit's palette section parameter is not one codebook of "
	 "NE.KernelCfg.PalettizedBits"},
};

const struct err_desc *ctrl_err(enum ctrl_err e)
{
	static const struct err_desc unknown = {"unknown-ctrl-error",
						  "a value this module does not define"};
	return err_lookup(errs, CTRL_E__COUNT, (unsigned)e, &unknown);
}

const char *ctrl_err_name(enum ctrl_err e)
{
	return ctrl_err(e)->name;
}

const char *ctrl_kind_name(unsigned kind)
{
	return kind == CTRL_R_KUNIT ? "kunit" : td_rkind_name(kind);
}

void ctrl_status_print(const struct ctrl_status *st, const char *lead, outf_fn out, void *ctx)
{
	outf(out, ctx, "%s%s", lead, ctrl_status_name(st));
	if (st->td >= 0)
		outf(out, ctx, " td %d", st->td);
	if (st->kind >= 0)
		outf(out, ctx, " %s", ctrl_kind_name((unsigned)st->kind));
	if (st->ch >= 0)
		outf(out, ctx, " ch %d", st->ch);
	if (st->bar >= 0)
		outf(out, ctx, " bar %d", st->bar);
	if (st->field)
		outf(out, ctx, " (%s)", st->field);
	if (st->detail[0])
		outf(out, ctx, " (%s)", st->detail);
	outf(out, ctx, ": %s\n", ctrl_status_err(st)->desc);
}

const struct err_desc *ctrl_status_err(const struct ctrl_status *s)
{
	if (s->err == CTRL_E_POLICY)
		return pol_err(s->pol);
	if (s->err == CTRL_E_KUNIT)
		return ku_err(s->ku);
	if (s->err == CTRL_E_TD)
		return td_err(s->tde);
	return ctrl_err(s->err);
}

enum subq_domain ctrl_status_cause(const struct ctrl_status *s, uint32_t *code)
{
	switch (s->err) {
	case CTRL_E_POLICY: *code = (uint32_t)s->pol; return SUBQ_DOM_POLICY;
	case CTRL_E_KUNIT: *code = (uint32_t)s->ku; return SUBQ_DOM_KUNIT;
	case CTRL_E_TD: *code = (uint32_t)s->tde; return SUBQ_DOM_TD;
	default: *code = (uint32_t)s->err; return SUBQ_DOM_CTRL;
	}
}

const char *ctrl_status_name(const struct ctrl_status *s)
{
	return ctrl_status_err(s)->name;
}

/* M1 values: the dense cap is guide-25's; the relaxed cap and LUT budget are stand-ins
 * (docs/kunit.md), the descriptor version is the M1's. */
const struct ku_limits ctrl_h13_ku_limits = {
	.dense_cap = 0x10000, .stream_cap = 0x40000, .lut_budget = 0x1000, .version = 5};

const struct ctrl_limits ctrl_default_limits = {.max_work = 1ull << 30, .max_grant = 256ull << 20,
						.max_l2_tensor = TD_L2_TENSOR_MAX,
						.max_kernels = TD_KMEM_MAX};


/* The engine's kernel streams are the kernel unit's, in the same order. */
_Static_assert(CTRL_NSTREAMS == KU_NSTREAMS, "one kernel stream per kernel-unit stream");

static uint64_t weights_dva(const struct ldr_program *p)
{
	return (!p->raw && p->weights_sect >= 0) ? p->sects[p->weights_sect].addr : 0;
}

static enum ctrl_err fail_pol(struct ctrl_plan *pl, enum pol_err e, int kind, int ch, int bar)
{
	pl->st.err = CTRL_E_POLICY;
	pl->st.pol = e;
	pl->st.kind = kind;
	pl->st.ch = ch;
	pl->st.bar = bar;
	return CTRL_E_POLICY;
}

static enum ctrl_err fail(struct ctrl_plan *pl, enum ctrl_err e, int kind, int ch)
{
	pl->st.err = e;
	pl->st.kind = kind;
	pl->st.ch = ch;
	return e;
}

/* What TD i's final register image asks the engine's memories to hold, against the limits
 * (td_footprint), before the engine or the model allocates anything for it. */
static enum ctrl_err check_footprint(struct ctrl_plan *pl, const struct ldr_image *im,
				     const struct ctrl_limits *lim)
{
	const struct td_regs regs = {ldr_image_reg, im};
	struct td_footprint f;
	td_footprint(&regs, &f);
	uint64_t l2max = lim->max_l2_tensor ? lim->max_l2_tensor : TD_L2_TENSOR_MAX;
	uint64_t kmax = lim->max_kernels ? lim->max_kernels : TD_KMEM_MAX;
	if (f.l2_result > l2max) {
		pl->st.field = "L2.ResultCfg: NumGroups x Cout x OutDim.Hout x OutDim.Wout";
		snprintf(pl->st.detail, sizeof pl->st.detail, "%lu bytes, the limit %lu",
			 (unsigned long)f.l2_result, (unsigned long)l2max);
		return fail(pl, CTRL_E_L2_RESULT, -1, -1);
	}
	if (f.kernels > kmax) {
		pl->st.field = "NE.KernelCfg: NumGroups x Cout x Cin (GroupConvCfg.UnicastCin with UnicastEn) "
			       "x ConvCfg.Kh x ConvCfg.Kw";
		snprintf(pl->st.detail, sizeof pl->st.detail, "%lu bytes, the limit %lu",
			 (unsigned long)f.kernels, (unsigned long)kmax);
		return fail(pl, CTRL_E_KERNELS, -1, -1);
	}
	return CTRL_OK;
}

/* A range td_ranges() could not derive: fw/td's error, by its own name. */
static enum ctrl_err fail_td(struct ctrl_status *st, enum td_err e, int kind, int ch)
{
	st->err = CTRL_E_TD;
	st->tde = e;
	st->kind = kind;
	st->ch = ch;
	return CTRL_E_TD;
}

/* ---- relocations: the firmware applies exactly one kind, and refuses every other ---- */

static int coeff_base_channel(uint32_t reg)
{
	if (reg < H13_COEFF_BASEADDR(0) || reg > H13_COEFF_BASEADDR(H13_COEFF_NCH - 1) || (reg & 3u))
		return -1;
	return (int)((reg - H13_COEFF_BASEADDR(0)) / 4u);
}

/* A 4-byte, section-relative relocation of a CoeffBaseAddr word of a TD that enables KBase0,
 * aimed at the weights section. */
static enum ctrl_err check_relocs(struct ctrl_plan *pl)
{
	const struct ldr_program *p = pl->p;
	for (unsigned i = 0; i < p->nrelocs; i++) {
		const struct ldr_reloc *r = &p->relocs[i];
		pl->st.td = r->td;
		if (r->td < 0 || !r->has_reg || coeff_base_channel(r->reg_addr) < 0 || r->length != 2 ||
		    r->external || p->weights_sect < 0 || r->target_sect != p->weights_sect ||
		    !(p->tds[r->td].h.bar_en & (1u << H13_BAR_KBASE0)))
			return fail(pl, CTRL_E_RELOC, CTRL_R_COEFF,
				    r->has_reg ? coeff_base_channel(r->reg_addr) : -1);
	}
	pl->st.td = -1;
	return CTRL_OK;
}

static int relocated(const struct ldr_program *p, unsigned td, uint32_t area_off)
{
	for (unsigned i = 0; i < p->nrelocs; i++)
		if (p->relocs[i].td == (int)td && p->relocs[i].address == area_off)
			return 1;
	return 0;
}

/*
 * Re-bases TD i's coefficient bases in TD memory: each becomes the absolute engine address the
 * engine reads, inside KBase0's grant. A relocated word holds an offset from the weights section
 * (a device-virtual address once relocated); any other an offset from KBase0's BAR.
 */
static enum ctrl_err rebase_coeffs(struct ctrl_plan *pl, unsigned i, uint8_t *tdm)
{
	const struct ldr_program *p = pl->p;
	const struct ldr_td *td = &p->tds[i];
	struct ctrl_td_plan *t = &pl->td[i];
	if (!(td->h.bar_en & (1u << H13_BAR_KBASE0)))
		return CTRL_OK;
	unsigned kbar = td->h.bar_idx[H13_BAR_KBASE0];
	struct ldr_write_iter it;
	struct ldr_write w;
	ldr_writes_begin(p, i, &it);
	while (ldr_writes_next(&it, &w)) {
		int ch = coeff_base_channel(w.addr);
		if (ch < 0 || (t->folded >> ch & 1u))
			continue; /* not a base, or a base the fold already set to its engine address */
		if (!(pl->pol.present & (1u << kbar)))
			return fail_pol(pl, POL_E_BAR_ABSENT, CTRL_R_COEFF, ch, (int)kbar);
		const struct pol_buffer *b = &pl->pol.buf[kbar];
		uint64_t field = H13_ADDR_BYTES(w.value), off, abs;
		if (relocated(p, i, w.area_off)) {
			uint64_t iova;
			if (pol_add_ovf(weights_dva(p), field, &iova))
				return fail_pol(pl, POL_E_OVERFLOW, CTRL_R_COEFF, ch, (int)kbar);
			if (iova < b->dva)
				return fail_pol(pl, POL_E_OUT_OF_BUFFER, CTRL_R_COEFF, ch, (int)kbar);
			off = iova - b->dva;
		} else {
			off = field;
		}
		if (pol_add_ovf(b->mapped, off, &abs))
			return fail_pol(pl, POL_E_OVERFLOW, CTRL_R_COEFF, ch, (int)kbar);
		if (abs >= pl->pol.reach)
			return fail_pol(pl, POL_E_REACH, CTRL_R_COEFF, ch, (int)kbar);
		if (abs & 63u)
			return fail(pl, CTRL_E_ALIGN, CTRL_R_COEFF, ch);
		if (t->npatch >= CTRL_MAX_PATCHES)
			return fail_pol(pl, POL_E_TOO_MANY, CTRL_R_COEFF, ch, (int)kbar);
		uint32_t v = (uint32_t)abs | (w.value & 63u);
		le_wr32(tdm + w.area_off, v);
		t->patch[t->npatch++] = (struct ctrl_patch){w.area_off, w.addr, v};
	}
	return CTRL_OK;
}

/* ---- the register image the engine runs a TD with ---- */

/* The image is the loader's struct ldr_image, read with its td_regs getter ldr_image_reg. */

static void image_set(struct ldr_image *im, uint32_t addr, uint32_t value)
{
	int slot = rm_slot(im->p->gen, addr, NULL);
	if (slot >= 0 && slot < RM_MAX_SLOTS) {
		im->img.val[slot] = value;
		im->img.written[slot] = 1;
	}
}

/* TD i's writes, as they stand in TD memory (re-based), on top of the earlier TDs' state; with a
 * plan, each recorded in its write list as it goes into the image. */
static void image_apply_td(struct ldr_image *im, unsigned i, const uint8_t *tdm, struct ctrl_plan *pl)
{
	struct ldr_write_iter it;
	struct ldr_write w;
	uint32_t seen[RM_MAX_SLOTS / 32] = {0}; /* register slots this TD wrote */
	if (pl) {
		pl->td[i].wl_first = pl->nwl;
		pl->td[i].wl_n = 0;
		pl->td[i].wl_unique = 1;
	}
	ldr_writes_begin(im->p, i, &it);
	while (ldr_writes_next(&it, &w)) {
		uint32_t v = le_rd32(tdm + w.area_off);
		image_set(im, w.addr, v);
		if (!pl)
			continue;
		if (w.loc.slot >= RM_MAX_SLOTS || (seen[w.loc.slot / 32] >> (w.loc.slot % 32) & 1u))
			pl->td[i].wl_unique = 0;
		else
			seen[w.loc.slot / 32] |= 1u << (w.loc.slot % 32);
		if (pl->nwl < CTRL_MAX_WRITES) {
			pl->wl[pl->nwl++] = (struct ctrl_reg){w.addr, v};
			pl->td[i].wl_n++;
		} else {
			pl->wl_ok = 0;
		}
	}
}

/* ---- folding: weights the chip does not stream, decoded to dense fp16 ---- */

#define FOLD_CHUNK 256u

/* Where TD i writes KernelCfg and each channel's base and size (-1: it does not). */
struct fold_words {
	int kcfg, base[H13_COEFF_NCH], size[H13_COEFF_NCH];
	uint32_t kcfg_value;
};

static void fold_find_words(const struct ldr_program *p, unsigned i, const struct ldr_image *before,
			    struct fold_words *fw)
{
	struct ldr_write_iter it;
	struct ldr_write w;
	fw->kcfg = -1;
	fw->kcfg_value = ldr_image_reg(before, H13_NE_KERNELCFG);
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		fw->base[c] = fw->size[c] = -1;
	ldr_writes_begin(p, i, &it);
	while (ldr_writes_next(&it, &w)) {
		if (w.addr == H13_NE_KERNELCFG) {
			fw->kcfg = (int)w.area_off;
			fw->kcfg_value = w.value;
		}
		int ch = coeff_base_channel(w.addr);
		if (ch >= 0)
			fw->base[ch] = (int)w.area_off;
		if (w.addr >= H13_COEFF_BFRSIZE(0) && w.addr <= H13_COEFF_BFRSIZE(H13_COEFF_NCH - 1) &&
		    !(w.addr & 3u))
			fw->size[(w.addr - H13_COEFF_BFRSIZE(0)) / 4u] = (int)w.area_off;
	}
}

/* How a TD's weights fold: not at all, int8/uint8 to their integer values, or a palette (a
 * width H13 does not stream) to its codebook entries. */
enum fold_kind { FOLD_NONE, FOLD_AFFINE, FOLD_PALETTE };

/* Output bytes per source byte: an int8/uint8 byte becomes one fp16; a palette channel of S
 * bytes (at least Cin x Kh x Kw indices of B >= 1 bits, so at most 8 S of them) becomes a
 * 16 S-byte channel of fp16 values. */
static unsigned fold_ratio(enum fold_kind k)
{
	return k == FOLD_PALETTE ? 16u : 2u;
}

static int is_unit(const struct ldr_program *p)
{
	return p->weights_len >= KU_HEADER_SIZE && le_rd32(p->buf + p->weights_off) == KU_MAGIC;
}

static int palette_folds(unsigned bits)
{
	struct wdesc wd = wdesc_default(WFORM_PALETTE);
	wd.palette_bits = bits;
	return gate_decide(CHIP_H13, &wd).verdict == GATE_FOLD;
}

/* Whether and how a TD of this program with KernelCfg kcfg has weights the chip folds. */
static enum fold_kind folds(const struct ldr_program *p, const struct ldr_td *td, uint32_t kcfg)
{
	unsigned fmt = H13_GET(kcfg, H13_KERNELCFG_KERNELFMT);
	if (!td->ncoeff || !(td->h.bar_en & (1u << H13_BAR_KBASE0)) || !is_unit(p) ||
	    H13_GET(kcfg, H13_KERNELCFG_SPARSEFMT))
		return FOLD_NONE; /* no kernel-unit weights, or sparsity (H13 streams it) */
	if (H13_GET(kcfg, H13_KERNELCFG_PALETTIZEDEN))
		return fmt == H13_KERNELFMT_FP16 &&
			       palette_folds(H13_GET(kcfg, H13_KERNELCFG_PALETTIZEDBITS))
			       ? FOLD_PALETTE
			       : FOLD_NONE; /* a width H13 streams: the engine decodes it */
	if (fmt > H13_KERNELFMT_UINT8)
		return FOLD_NONE;
	struct wdesc wd = wdesc_default(WFORM_INT8);
	return gate_decide(CHIP_H13, &wd).verdict == GATE_FOLD ? FOLD_AFFINE : FOLD_NONE;
}

static enum ctrl_err fold_patch(struct ctrl_plan *pl, unsigned i, uint8_t *tdm, int area_off,
				uint32_t addr, uint32_t value, int ch)
{
	struct ctrl_td_plan *t = &pl->td[i];
	if (t->npatch >= CTRL_MAX_PATCHES)
		return fail_pol(pl, POL_E_TOO_MANY, CTRL_R_COEFF, ch, -1);
	le_wr32(tdm + area_off, value);
	t->patch[t->npatch++] = (struct ctrl_patch){(uint32_t)area_off, addr, value};
	return CTRL_OK;
}

/* Decodes n int8/uint8 weights to fp16 (exact integers: the per-channel scale stays in the
 * kernel unit's post-scale stream) at out, through fw/codec. */
static enum ctrl_err fold_decode(enum codec_qtype type, const uint8_t *q, uint32_t n, uint8_t *out)
{
	static const uint16_t one = 0x3c00u;
	uint16_t tmp[FOLD_CHUNK];
	const struct codec_affine a = {type, 1};
	for (uint32_t k = 0; k < n; k += FOLD_CHUNK) {
		uint32_t m = n - k < FOLD_CHUNK ? n - k : FOLD_CHUNK;
		if (codec_affine_decode(&a, q + k, m, &one, 1, NULL, 0, tmp, m) != CODEC_OK)
			return CTRL_E_ARG;
		for (uint32_t j = 0; j < m; j++)
			le_wr16(out + 2u * (k + j), tmp[j]);
	}
	return CTRL_OK;
}

/* A palette fold's shape: nout output channels of `per` indices each, one codebook. */
struct fold_palette {
	unsigned bits;
	uint64_t nout, per;
	const uint8_t *lut; /* 2^bits fp16, little-endian */
};

/* Decodes a palette channel of size bytes (nout channels of size / nout bytes, the indices
 * packed LSB first from each channel's start) through codec_palette_decode: channel o's per fp16
 * values at o x 16 x (size / nout), the rest of each channel zero. */
static enum ctrl_err fold_palette_decode(const struct fold_palette *fp, const uint8_t *src,
					 uint32_t size, uint8_t *out)
{
	uint64_t S = size / fp->nout, ib = (fp->per * fp->bits + 7u) / 8u;
	if (size % fp->nout || ib > S)
		return CTRL_E_FOLD_SHAPE;
	uint16_t lut[256], tmp[FOLD_CHUNK];
	for (unsigned j = 0; j < (1u << fp->bits); j++)
		lut[j] = le_rd16(fp->lut + 2u * j);
	const struct codec_palette cp = {fp->bits, 1, 1};
	memset(out, 0, (size_t)size * fold_ratio(FOLD_PALETTE));
	for (uint64_t o = 0; o < fp->nout; o++)
		for (uint64_t k = 0; k < fp->per; k += FOLD_CHUNK) {
			/* chunks of FOLD_CHUNK indices start on a byte */
			uint64_t m = fp->per - k < FOLD_CHUNK ? fp->per - k : FOLD_CHUNK;
			const uint8_t *in = src + o * S + k * fp->bits / 8u;
			if (codec_palette_decode(&cp, in, (size_t)((m * fp->bits + 7u) / 8u), lut,
						 1u << fp->bits, tmp, (size_t)m) != CODEC_OK)
				return CTRL_E_FOLD_SHAPE;
			uint8_t *d = out + o * 16u * S + 2u * k;
			for (uint64_t j = 0; j < m; j++)
				le_wr16(d + 2u * j, tmp[j]);
		}
	return CTRL_OK;
}

/* The shape of TD i's palette fold from its own registers over the state before it: N = G x
 * Cout output channels of Cin x Kh x Kw indices, the kernel unit's one codebook. */
static enum ctrl_err palette_shape(const struct ctrl_plan *pl, unsigned i,
				   const struct ldr_image *before, unsigned bits, struct fold_palette *fp)
{
	struct ldr_image after_img = *before; /* about 1.3 KiB */
	struct ldr_image *after = &after_img;
	struct ldr_write_iter it;
	struct ldr_write w;
	ldr_writes_begin(pl->p, i, &it);
	while (ldr_writes_next(&it, &w))
		image_set(after, w.addr, w.value);
	uint32_t cc = ldr_image_reg(after, H13_COMMON_CONVCFG);
	uint64_t g = H13_GET(ldr_image_reg(after, H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	uint64_t cout = H13_GET(ldr_image_reg(after, H13_COMMON_COUT), H13_COUT);
	uint64_t cin = H13_GET(ldr_image_reg(after, H13_COMMON_CIN), H13_CIN);
	const struct ku_section_desc *ps = &pl->ku.sec[KU_SEC_PALETTE];
	fp->bits = bits;
	fp->nout = g * cout;
	fp->per = cin * H13_GET(cc, H13_CONVCFG_KW) * H13_GET(cc, H13_CONVCFG_KH);
	fp->lut = pl->p->buf + pl->p->weights_off + ps->offset;
	if (!fp->nout || !fp->per || !codec_palette_bits_ok(bits) || (ps->param & 0xffu) != bits ||
	    (ps->param >> 8) != 1u || ps->size < (2u << bits))
		return CTRL_E_FOLD_SHAPE;
	return CTRL_OK;
}

/*
 * Folds TD i's weights when its form does not stream (see ctrl_fold_cap), before its bases are
 * re-based: each enabled channel's bytes (inside the weights: the loader checked) are decoded
 * into the fold scratch, and the TD's KernelFmt, CoeffBaseAddr and CoeffBfrSize words are
 * rewritten. A channel folded earlier with the same source is reused. before: the state before
 * TD i.
 */
static enum ctrl_err fold_coeffs(struct ctrl_plan *pl, unsigned i, const struct ctrl_scratch *sc,
				 const struct ldr_image *before, uint8_t *tdm)
{
	const struct ldr_program *p = pl->p;
	const struct ldr_td *td = &p->tds[i];
	struct ctrl_td_plan *t = &pl->td[i];
	struct fold_words fw;
	fold_find_words(p, i, before, &fw);
	for (unsigned c = 0; c < H13_COEFF_NCH; c++) {
		if (fw.base[c] >= 0)
			pl->fold_live &= (uint16_t)~(1u << c); /* a new base: not folded unless below */
		if (fw.size[c] >= 0)
			pl->fold_size_live &= (uint16_t)~(1u << c);
	}
	if (fw.kcfg >= 0)
		pl->fold_kcfg_live = 0;
	unsigned fmt = H13_GET(fw.kcfg_value, H13_KERNELCFG_KERNELFMT);
	if (td->ncoeff && (td->h.bar_en & (1u << H13_BAR_KBASE0)) && fmt > H13_KERNELFMT_FP16)
		return fail(pl, CTRL_E_KERNEL_FMT, CTRL_R_COEFF, -1);
	enum fold_kind kind = folds(p, td, fw.kcfg_value);
	if (kind == FOLD_NONE)
		return CTRL_OK;
	unsigned kbar = td->h.bar_idx[H13_BAR_KBASE0];
	if (!ldr_td_kernels_in_weights(p, i))
		return fail(pl, CTRL_E_FOLD_SOURCE, CTRL_R_COEFF, -1);
	if (fw.kcfg < 0)
		return fail(pl, CTRL_E_FOLD_REGS, CTRL_R_COEFF, -1);
	/* KernelFmt 0 and 1 are both signed bytes: the register map names 1 uint8, but Apple's H13
	 * less programs compute less only with 1's 0xff read as -1, as the engine model reads it
	 * (docs/engine-model.md, "Registers"); folded the same way, the values are the model's */
	enum codec_qtype qt = CODEC_Q_INT8;
	struct fold_palette fp = {0, 0, 0, NULL};
	uint8_t type = (uint8_t)qt;
	if (kind == FOLD_PALETTE) {
		unsigned bits = H13_GET(fw.kcfg_value, H13_KERNELCFG_PALETTIZEDBITS);
		/* one channel, 0: the OCG (docs/kunit.md) */
		if (td->ncoeff != 1 || td->coeff[0].ch != 0 || palette_shape(pl, i, before, bits, &fp))
			return fail(pl, CTRL_E_FOLD_SHAPE, CTRL_R_COEFF, 0);
		type = (uint8_t)(0x10u | bits);
	}
	const unsigned ratio = fold_ratio(kind);
	for (unsigned k = 0; k < td->ncoeff; k++) {
		const struct ldr_coeff *co = &td->coeff[k];
		unsigned ch = co->ch;
		if (fw.base[ch] < 0 || fw.size[ch] < 0)
			return fail(pl, CTRL_E_FOLD_REGS, CTRL_R_COEFF, (int)ch);
		uint64_t need = (uint64_t)ratio * co->size;
		/* the same source folded the same way by an earlier TD: its output serves again (a
		 * palette's only with the same shape and codebook: a review found a later TD with more
		 * values a channel given the earlier one's zeros past them) */
		const uint64_t lut = fp.lut ? (uint64_t)(fp.lut - p->buf) + 1u : 0u;
		uint64_t at = UINT64_MAX;
		for (unsigned f = 0; f < pl->nfolds && at == UINT64_MAX; f++)
			if (pl->folds[f].base == co->base && pl->folds[f].size == co->size &&
			    pl->folds[f].type == type && pl->folds[f].len == need &&
			    pl->folds[f].nout == fp.nout && pl->folds[f].per == fp.per && pl->folds[f].lut == lut)
				at = pl->folds[f].off;
		if (at == UINT64_MAX) {
			if (!sc || !sc->fold_out || need > sc->fold_cap - pl->fold_used)
				return fail(pl, CTRL_E_SCRATCH, CTRL_R_COEFF, (int)ch);
			at = pl->fold_used;
			const uint8_t *src = p->buf + p->weights_off + co->base;
			enum ctrl_err de = kind == FOLD_PALETTE
						   ? fold_palette_decode(&fp, src, co->size, sc->fold_out + at)
						   : fold_decode(qt, src, co->size, sc->fold_out + at);
			if (de != CTRL_OK)
				return fail(pl, de == CTRL_E_FOLD_SHAPE ? de : CTRL_E_ARG, CTRL_R_COEFF,
					    (int)ch);
			pl->fold_used += need;
			t->fold_values += kind == FOLD_PALETTE ? fp.nout * fp.per : co->size;
			if (pl->nfolds < CTRL_MAX_FOLDS)
				pl->folds[pl->nfolds++] = (struct ctrl_fold){co->base, co->size, at, need,
									  type, fp.nout, fp.per, lut};
		}
		uint64_t abs = pl->fold_dev + at;
		if (abs + need > pl->pol.reach || need > 0xffffffc0u)
			return fail_pol(pl, POL_E_REACH, CTRL_R_COEFF, (int)ch, (int)kbar);
		uint32_t bw = le_rd32(tdm + fw.base[ch]), sw = le_rd32(tdm + fw.size[ch]);
		enum ctrl_err e = fold_patch(pl, i, tdm, fw.base[ch], H13_COEFF_BASEADDR(ch),
					     (uint32_t)abs | (bw & 63u), (int)ch);
		if (!e)
			e = fold_patch(pl, i, tdm, fw.size[ch], H13_COEFF_BFRSIZE(ch),
				       (uint32_t)need | (sw & 63u), (int)ch);
		if (e)
			return e;
		t->folded |= (uint16_t)(1u << ch);
		t->fold_type = type;
		pl->fold_live |= (uint16_t)(1u << ch);
		pl->fold_size_live |= (uint16_t)(1u << ch);
	}
	pl->fold_kcfg_live = 1;
	/* the TD now reads dense fp16: KernelFmt 2, no palette */
	uint32_t clear = H13_FIELD_MASK(H13_KERNELCFG_KERNELFMT_W) << H13_KERNELCFG_KERNELFMT_LSB |
			 H13_FIELD_MASK(H13_KERNELCFG_PALETTIZEDEN_W) << H13_KERNELCFG_PALETTIZEDEN_LSB;
	return fold_patch(pl, i, tdm, fw.kcfg, H13_NE_KERNELCFG,
			  (fw.kcfg_value & ~clear) | (H13_KERNELFMT_FP16 << H13_KERNELCFG_KERNELFMT_LSB),
			  -1);
}

/*
 * A TD reading kernels must read them with the words as the program wrote them or all as a fold
 * rewrote them: a fold's KernelFmt 2 read over the program's own int8 bytes, or a fold's doubled
 * CoeffBfrSize over the program's own base (or the program's size over a folded base), would
 * compute numbers the program does not define. Inheriting a fold-rewritten word is allowed only
 * when the channel's base and size are the fold's too (the folded fp16 read again).
 */
static enum ctrl_err fold_check_inherited(struct ctrl_plan *pl, unsigned i)
{
	const struct ldr_td *td = &pl->p->tds[i];
	if (!td->ncoeff || !(td->h.bar_en & (1u << H13_BAR_KBASE0)))
		return CTRL_OK;
	for (unsigned k = 0; k < td->ncoeff; k++) {
		unsigned ch = td->coeff[k].ch;
		unsigned b = pl->fold_live >> ch & 1u, s = pl->fold_size_live >> ch & 1u;
		if (b != s || (pl->fold_kcfg_live && !b))
			return fail(pl, CTRL_E_FOLD_REGS, CTRL_R_COEFF, (int)ch);
	}
	return CTRL_OK;
}

uint64_t ctrl_fold_cap(const struct ldr_program *p)
{
	struct ku_unit u;
	if (!p || !is_unit(p) ||
	    ku_parse(p->buf + p->weights_off, p->weights_len, &ctrl_h13_ku_limits, &u) != KU_OK)
		return 0;
	/* every weight byte folded once (a source folded again is reused): x2 for int8/uint8, x16
	 * when the unit's palette has a width H13 folds */
	const struct ku_section_desc *ps = &u.sec[KU_SEC_PALETTE];
	int pal = ps->size && palette_folds(ps->param & 0xffu);
	return (uint64_t)fold_ratio(pal ? FOLD_PALETTE : FOLD_AFFINE) * p->weights_len;
}

/* ---- checking ranges ---- */

/* Whether bar holds the TD area: a container's BAR at an address inside __text, a raw stream's
 * BAR some TD names in its TBase slot. The engine would read the TD bytes there; no buffer the
 * firmware grants holds them (docs/control-path.md, td-area-read-as-data). */
static int on_text_bar(const struct ldr_program *p, unsigned bar)
{
	if (bar >= LDR_NBARS)
		return 0;
	if (!p->raw) {
		if (p->text_sect < 0)
			return 0;
		const struct ldr_section *t = &p->sects[p->text_sect];
		return p->bars[bar] >= t->addr && p->bars[bar] - t->addr < t->size;
	}
	for (unsigned i = 0; i < p->ntds; i++)
		if ((p->tds[i].h.bar_en & (1u << H13_BAR_TBASE)) &&
		    p->tds[i].h.bar_idx[H13_BAR_TBASE] == bar)
			return 1;
	return 0;
}

/* A refused range's text (ctrl_status.detail): what the TD asked of its BAR and what the BAR
 * was granted, so "range-outside-granted-buffer" and "access-not-granted" say both. */
static void range_detail(struct ctrl_plan *pl, const struct td_range *x, unsigned access,
			 enum pol_err e)
{
	if ((e != POL_E_OUT_OF_BUFFER && e != POL_E_ACCESS) || x->bar >= POL_MAX_BUFFERS ||
	    !(pl->pol.present >> x->bar & 1u))
		return;
	const struct pol_buffer *b = &pl->pol.buf[x->bar];
	const char *verb = access & POL_WRITE ? "writes" : "reads";
	unsigned g = b->access & POL_RW;
	const char *gn = g == POL_RW ? "rw" : g == POL_WRITE ? "w" : g == POL_READ ? "r" : "-";
	char *d = pl->st.detail;
	size_t cap = sizeof pl->st.detail;
	if (e == POL_E_ACCESS)
		snprintf(d, cap, "the TD %s it, the grant is %s", verb, gn);
	else if (x->absolute)
		snprintf(d, cap, "%s 0x%lx bytes at 0x%lx, the grant 0x%lx bytes at 0x%lx", verb,
			 (unsigned long)x->len, (unsigned long)x->addr,
			 (unsigned long)b->size, (unsigned long)b->mapped);
	else
		snprintf(d, cap, "%s 0x%lx bytes at offset 0x%lx, the grant 0x%lx bytes", verb,
			 (unsigned long)x->len, (unsigned long)x->addr,
			 (unsigned long)b->size);
}

static enum ctrl_err check_range(struct ctrl_plan *pl, unsigned i, const struct td_range *x)
{
	struct ctrl_td_plan *t = &pl->td[i];
	if (x->kind != TD_R_TBASE && !(x->kind == TD_R_COEFF && (pl->fold_live >> x->ch & 1u)) &&
	    on_text_bar(pl->p, x->bar)) {
		pl->st.bar = x->bar;
		return fail(pl, CTRL_E_TEXT_DATA, x->kind, x->kind >= TD_R_COEFF ? x->ch : -1);
	}
	unsigned access = x->access == TD_WRITE ? POL_WRITE : POL_READ;
	/* kernels read from the weights are weights (read-only); from a runtime tensor, a read
	 * like a tile source's (an intermediate an earlier TD wrote, in place) */
	int weights = ((x->kind == TD_R_COEFF || x->kind == TD_R_STREAM) && ldr_weights_bar(pl->p, x->bar)) ||
		      (x->kind == TD_R_TBASE && x->slot >= H13_BAR_KBASE0);
	if (weights)
		access |= POL_WEIGHTS;
	uint64_t rt, off = x->addr, len = x->len;
	enum pol_err e;
	if (x->kind == TD_R_COEFF && (pl->fold_live >> x->ch & 1u)) {
		/* the base the fold wrote (this TD's or an earlier one's): inside what it wrote */
		uint64_t end;
		if (!x->absolute || x->addr < pl->fold_dev || pol_add_ovf(x->addr, x->len, &end) ||
		    end > pl->fold_dev + pl->fold_used)
			return fail_pol(pl, POL_E_OUT_OF_BUFFER, x->kind, x->ch, x->bar);
		if (t->nranges >= CTRL_MAX_RANGES)
			return fail_pol(pl, POL_E_TOO_MANY, x->kind, x->ch, x->bar);
		t->r[t->nranges] = (struct ctrl_range){x->kind, x->ch, x->bar, POL_READ, 0, 1,
						       x->addr - pl->fold_dev, x->len, x->addr};
		t->nranges++;
		return CTRL_OK;
	}
	if (x->whole) {
		if (x->bar < POL_MAX_BUFFERS && (pl->pol.present & (1u << x->bar)))
			len = pl->pol.buf[x->bar].size;
		off = 0;
		e = pol_check_offset(&pl->pol, x->bar, 0, len ? len : 1, access, &rt);
	} else if (x->absolute) {
		e = pol_check_runtime(&pl->pol, x->bar, x->addr, x->len, access, &rt);
		if (e == POL_OK)
			off = rt - pl->pol.buf[x->bar].mapped;
	} else {
		e = pol_check_offset(&pl->pol, x->bar, x->addr, x->len, access, &rt);
	}
	if (e != POL_OK) {
		range_detail(pl, x, access, e);
		return fail_pol(pl, e, x->kind, x->kind == TD_R_TBASE || x->kind >= TD_R_COEFF ? x->ch : -1,
				x->bar);
	}
	if (t->nranges >= CTRL_MAX_RANGES)
		return fail_pol(pl, POL_E_TOO_MANY, x->kind, x->ch, x->bar);
	t->r[t->nranges++] = (struct ctrl_range){x->kind, x->ch, x->bar, (uint8_t)(access & POL_RW),
						 x->whole, 0, off, len, rt};
	pl->bars_used |= 1u << x->bar;
	return CTRL_OK;
}

/* Derives TD i's ranges from its image and checks those whose kind is in `kinds` (bit per
 * enum td_rkind); the TD's work counts every range derived. */
static enum ctrl_err derive_and_check(struct ctrl_plan *pl, unsigned i, const struct ldr_image *im,
				      unsigned kinds)
{
	const struct ldr_td *td = &pl->p->tds[i];
	struct td_range r[TD_MAX_RANGES];
	unsigned n = 0;
	int bk = -1, bc = -1;
	const struct td_regs regs = {ldr_image_reg, im};
	enum td_err te = td_ranges(&td->h, &regs, pl->stream_len, r, TD_MAX_RANGES, &n, &bk, &bc);
	if (te != TD_OK)
		return fail_td(&pl->st, te, bk, bc);
	for (unsigned k = 0; k < n; k++) {
		enum ctrl_err e = (kinds >> r[k].kind) & 1u ? check_range(pl, i, &r[k]) : CTRL_OK;
		if (e)
			return e;
	}
	pl->td[i].work = td_work(r, n, &regs);
	return CTRL_OK;
}

/* ---- the kernel unit ---- */

/*
 * The OCG record whose weights TD i's coefficient channel 0 reads: the record whose region in
 * the weights section (offset + record word 0, channels x bytes per channel) is exactly that
 * channel's source (its offset and size in the weights, before any fold). -1: none. *first: the
 * record's first channel over the records before it.
 */
static int td_ocg(const struct ctrl_plan *pl, const struct ldr_td *td, uint32_t *first)
{
	const struct ldr_coeff *c0 = NULL;
	*first = 0;
	for (unsigned k = 0; k < td->ncoeff; k++)
		if (td->coeff[k].ch == 0)
			c0 = &td->coeff[k];
	if (!c0)
		return -1;
	uint64_t ch = 0;
	for (uint32_t r = 0; r < pl->ku.nocg; r++) {
		uint32_t rec[KU_RECORD_WORDS];
		ku_record(&pl->ku, 0, r, rec);
		uint64_t at = (uint64_t)pl->ku.sec[KU_SEC_WEIGHTS].offset + rec[0];
		if (at == c0->base && (uint64_t)rec[1] * pl->ku.bytes_per_channel == c0->size) {
			*first = (uint32_t)ch;
			return (int)r;
		}
		ch += rec[1];
	}
	return -1;
}

/* Patches the unit for TD i's dispatch and sets the TD's kernel-stream registers from the TD's
 * OCG record of the patched copy (record 0 for a TD without one), and the streams' lengths
 * (each from its start to its section's end, ku_stream_len). A convolving TD must read exactly
 * one OCG with its output channels. */
static enum ctrl_err plan_kunit(struct ctrl_plan *pl, unsigned i, const struct ctrl_scratch *sc,
				struct ldr_image *im)
{
	const struct ldr_program *p = pl->p;
	const struct ldr_td *td = &p->tds[i];
	struct ctrl_td_plan *t = &pl->td[i];
	uint32_t rec[KU_RECORD_WORDS];
	uint64_t unit_rt = 0;
	int on = (td->h.bar_en >> H13_BAR_KBASE0) & 1;
	t->ocg = -1;
	if (on) {
		unsigned kbar = td->h.bar_idx[H13_BAR_KBASE0];
		const struct pol_buffer *b = &pl->pol.buf[kbar];
		uint64_t wd = weights_dva(p);
		if (!ldr_td_kernels_in_weights(p, i)) /* the unit is the program's, its kernels too */
			return fail(pl, CTRL_E_FOLD_SOURCE, CTRL_R_KUNIT, -1);
		if (!(pl->pol.present & (1u << kbar)))
			return fail_pol(pl, POL_E_BAR_ABSENT, CTRL_R_KUNIT, -1, (int)kbar);
		if (wd < b->dva)
			return fail_pol(pl, POL_E_OUT_OF_BUFFER, CTRL_R_KUNIT, -1, (int)kbar);
		enum pol_err pe = pol_check_offset(&pl->pol, kbar, wd - b->dva, pl->ku_len,
						   POL_READ | POL_WEIGHTS, &unit_rt);
		if (pe != POL_OK)
			return fail_pol(pl, pe, CTRL_R_KUNIT, -1, (int)kbar);
		if (t->nranges >= CTRL_MAX_RANGES)
			return fail_pol(pl, POL_E_TOO_MANY, CTRL_R_KUNIT, -1, (int)kbar);
		t->r[t->nranges++] = (struct ctrl_range){CTRL_R_KUNIT, 0, (uint8_t)kbar, POL_READ, 0, 0,
							 wd - b->dva, pl->ku_len, unit_rt};
		struct ku_dispatch d = {unit_rt, UINT64_MAX, UINT64_MAX};
		for (unsigned r = 0; r < t->nranges; r++) {
			if (t->r[r].kind == CTRL_R_SRC0)
				d.input_tile = t->r[r].runtime;
			if (t->r[r].kind == CTRL_R_DST)
				d.output_tile = t->r[r].runtime;
		}
		if (!sc || !sc->ku_out || sc->ku_cap < pl->ku_len)
			return fail(pl, CTRL_E_SCRATCH, CTRL_R_KUNIT, -1);
		enum ku_err ke = ku_patch(&pl->ku, &d, sc->ku_out, pl->ku_len);
		if (ke != KU_OK) {
			pl->st.ku = ke;
			return fail(pl, CTRL_E_KUNIT, CTRL_R_KUNIT, -1);
		}
		struct ku_unit cu = pl->ku;
		cu.base = sc->ku_out;
		t->ocg = td_ocg(pl, td, &t->ocg_first);
		uint32_t mac = ldr_image_reg(im, H13_NE_MACCFG);
		int conv = mac && H13_GET(mac, H13_MACCFG_OPMODE) == H13_MAC_OP_CONV;
		if (conv && td->ncoeff && t->ocg < 0)
			return fail(pl, CTRL_E_OCG, CTRL_R_COEFF, 0);
		if (t->ocg >= 0)
			ku_record(&cu, 0, (uint32_t)t->ocg, rec);
		else
			ku_record(&cu, 0, 0, rec); /* ku_parse refuses a unit with no records */
		uint64_t nout = (uint64_t)H13_GET(ldr_image_reg(im, H13_COMMON_COUT), H13_COUT) *
				H13_GET(ldr_image_reg(im, H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
		if (conv && rec[1] != nout)
			return fail(pl, CTRL_E_OCG_CHANNELS, CTRL_R_COEFF, 0);
		/* the engine knows a TD's kernels are the unit's from the streams naming the unit
		 * (docs/engine-model.md): a unit without a per-channel stream cannot say so */
		if (td->ncoeff && !pl->ku.sec[KU_SEC_SCALE].size && !pl->ku.sec[KU_SEC_BIAS].size &&
		    !pl->ku.sec[KU_SEC_PALETTE].size)
			return fail(pl, CTRL_E_KU_NO_STREAMS, CTRL_R_KUNIT, -1);
		uint32_t kc = ldr_image_reg(im, H13_NE_KERNELCFG);
		if (td->ncoeff && H13_GET(kc, H13_KERNELCFG_SPARSEFMT)) {
			uint32_t cc = ldr_image_reg(im, H13_COMMON_CONVCFG);
			uint64_t per = (uint64_t)H13_GET(ldr_image_reg(im, H13_COMMON_CIN), H13_CIN) *
				       H13_GET(cc, H13_CONVCFG_KH) * H13_GET(cc, H13_CONVCFG_KW);
			if (!(pl->ku.flags & KU_FLAG_SPARSE) ||
			    pl->ku.sec[KU_SEC_WEIGHTS].param != (per + 7u) / 8u)
				return fail(pl, CTRL_E_KU_SPARSE_MASK, CTRL_R_COEFF, 0);
		}
		/* the unit's palette parameter (bits | codebooks << 8) says what the TD's KernelCfg
		 * must: one codebook of its width (a folded palette's TD reads fp16 by now) */
		const struct ku_section_desc *ps = &pl->ku.sec[KU_SEC_PALETTE];
		if (td->ncoeff && H13_GET(kc, H13_KERNELCFG_PALETTIZEDEN) &&
		    (!ps->size || (ps->param & 0xffu) != H13_GET(kc, H13_KERNELCFG_PALETTIZEDBITS) ||
		     (ps->param >> 8) != 1u))
			return fail(pl, CTRL_E_KU_PALETTE, CTRL_R_COEFF, 0);
	}
	t->nstream_regs = 0;
	for (unsigned s = 0; s < CTRL_NSTREAMS; s++) {
		const struct ku_section_desc *sd = &pl->ku.sec[ku_stream_section[s]];
		uint32_t en = on && sd->size ? 1u : 0u;
		uint32_t reloc = en ? rec[2 + ku_stream_slot[s]] : 0;
		if (en && reloc == KU_SLOT_UNSET) {
			pl->st.ku = KU_E_SLOT_UNSET;
			return fail(pl, CTRL_E_KUNIT, CTRL_R_STREAM, (int)s);
		}
		/* the stream's offset in the unit: the slot is inside the unit (ku_patch) */
		uint32_t boff = en ? (uint32_t)(reloc - unit_rt) : 0;
		pl->stream_len[s] = en ? ku_stream_len(&pl->ku, s, boff) : 0;
		const struct ctrl_reg regs[3] = {{H13_KSTREAM_ENABLE(s), en},
						 {H13_KSTREAM_BASEOFFSET(s), boff},
						 {H13_KSTREAM_RELOC(s), reloc}};
		for (unsigned k = 0; k < 3; k++) {
			t->stream_regs[t->nstream_regs++] = regs[k];
			image_set(im, regs[k].addr, regs[k].value);
		}
	}
	return CTRL_OK;
}

/* ---- the plan ---- */

/* TD i's destination may not overlap (engine addresses, whole extents) the coefficients or kernel
 * streams it reads: the engine reads kernels while it writes results, in an order not published,
 * so which bytes it reads would depend on it. A tile source overlapping the destination is the
 * engine model's refusal; this is the kernel DMA's. */
static enum ctrl_err check_dst_kernels(struct ctrl_plan *pl, unsigned i)
{
	const struct ctrl_td_plan *t = &pl->td[i];
	for (unsigned a = 0; a < t->nranges; a++) {
		const struct ctrl_range *d = &t->r[a];
		if (d->kind != CTRL_R_DST || d->whole)
			continue;
		for (unsigned b = 0; b < t->nranges; b++) {
			const struct ctrl_range *k = &t->r[b];
			if ((k->kind != CTRL_R_COEFF && k->kind != CTRL_R_STREAM) || k->whole)
				continue;
			/* both inside their grants, which do not wrap */
			if (d->runtime < k->runtime + k->len && k->runtime < d->runtime + d->len) {
				pl->st.bar = d->bar;
				return fail(pl, CTRL_E_DST_KERNELS, k->kind, k->ch);
			}
		}
	}
	return CTRL_OK;
}

/* A refused grant's text (ctrl_status.detail): which of pol_grant's checks refused it, with the
 * values, so "bad-grant" says which of its three causes (it said the three alone before). */
static void grant_detail(struct ctrl_plan *pl, const struct subq_grant *g, enum pol_err e)
{
	char *d = pl->st.detail;
	size_t cap = sizeof pl->st.detail;
	uint64_t end;
	if (e == POL_E_GRANT_TOO_LARGE)
		snprintf(d, cap, "0x%lx bytes, a submission holds at most 0x%lx a grant",
			 (unsigned long)g->size, (unsigned long)pl->pol.max_grant);
	else if (e != POL_E_GRANT)
		return;
	else if (!g->size)
		snprintf(d, cap, "a zero-size grant: SIZE 0, a grant is 1 byte or more");
	else if (!g->access || (g->access & ~(unsigned)POL_RW))
		snprintf(d, cap, "access 0x%x: r, w or rw wanted", (unsigned)g->access);
	else if (pol_add_ovf(g->dva, g->size, &end))
		snprintf(d, cap, "the range wraps: 0x%lx bytes at device address 0x%lx",
			 (unsigned long)g->size, (unsigned long)g->dva);
	else
		snprintf(d, cap, "the range wraps: 0x%lx bytes at 0x%lx", (unsigned long)g->size,
			 (unsigned long)g->mapped);
}

static enum ctrl_err plan_grants(struct ctrl_plan *pl, const struct subq_grant *grants,
				 unsigned ngrants, const struct pol_range *forbid, unsigned nforbid)
{
	for (unsigned i = 0; i < nforbid; i++) {
		enum pol_err e = pol_forbid(&pl->pol, forbid[i].base, forbid[i].size);
		if (e != POL_OK)
			return fail_pol(pl, e, -1, -1, -1);
	}
	for (unsigned i = 0; i < ngrants; i++) {
		const struct subq_grant *g = &grants[i];
		enum pol_err e = pol_grant(&pl->pol, g->bar, g->dva, g->size, g->mapped, g->access,
					   g->flags);
		if (e != POL_OK) {
			grant_detail(pl, g, e);
			return fail_pol(pl, e, -1, -1, g->bar < 256 ? (int)g->bar : -1);
		}
	}
	return CTRL_OK;
}

static enum ctrl_err plan_unit(struct ctrl_plan *pl)
{
	const struct ldr_program *p = pl->p;
	if (p->weights_len < KU_HEADER_SIZE || le_rd32(p->buf + p->weights_off) != KU_MAGIC)
		return CTRL_OK;
	struct ku_why why;
	enum ku_err ke = ku_parse_why(p->buf + p->weights_off, p->weights_len, &ctrl_h13_ku_limits,
				      &pl->ku, &why);
	if (ke != KU_OK) {
		/* a section's type or size: which section (as ch), and what it holds against what
		 * was expected */
		pl->st.ku = ke;
		ku_why_text(&why, ke, pl->st.detail, sizeof pl->st.detail);
		return fail(pl, CTRL_E_KUNIT, CTRL_R_KUNIT, why.section);
	}
	pl->have_ku = 1;
	pl->ku_len = pl->ku.len;
	for (unsigned s = 0; s < CTRL_NSTREAMS; s++)
		pl->stream_len[s] = pl->ku.sec[ku_stream_section[s]].size;
	return CTRL_OK;
}

enum ctrl_err ctrl_plan(struct ctrl_plan *pl, const struct ldr_program *p,
			const struct subq_grant *grants, unsigned ngrants,
			const struct pol_range *forbid, unsigned nforbid,
			const struct ctrl_scratch *sc, const struct ctrl_limits *lim)
{
	if (!pl)
		return CTRL_E_ARG;
	memset(pl, 0, offsetof(struct ctrl_plan, td)); /* td[] below, as far as the TDs go */
	pl->st = CTRL_STATUS_OK;
	if (!lim)
		lim = &ctrl_default_limits;
	if (!p || (ngrants && !grants) || (nforbid && !forbid))
		return fail(pl, CTRL_E_ARG, -1, -1);
	if (p->ntds > LDR_MAX_TDS)
		return fail(pl, CTRL_E_ARG, -1, -1);
	memset(pl->td, 0, p->ntds * sizeof pl->td[0]);
	pl->p = p;
	if (!p->gen || !p->gen->blocks || p->gen->gen != 13)
		return fail(pl, CTRL_E_UNSUPPORTED, -1, -1);
	if (ngrants > SUBQ_MAX_GRANTS)
		return fail(pl, CTRL_E_GRANTS, -1, -1);
	pol_init(&pl->pol, H13_ADDR_REACH_BITS);
	pl->pol.max_grant = lim->max_grant;
	enum ctrl_err e = plan_grants(pl, grants, ngrants, forbid, nforbid);
	if (!e)
		e = check_relocs(pl);
	if (!e)
		e = plan_unit(pl);
	if (!e && (!sc || !sc->td_mem || sc->td_cap < p->td_area_len))
		e = fail(pl, CTRL_E_SCRATCH, -1, -1);
	if (e)
		return e;
	/* copy first, then re-base and check only the copy the engine will run. A raw stream's TD
	 * area is the whole file, weights included: only its TDs are copied (the engine reads its
	 * TDs from this memory and nothing else; the weights reach it through their own grants, and
	 * no grant reaches this memory), so the weights are not copied a second time */
	if (p->raw)
		for (unsigned i = 0; i < p->ntds; i++)
			memcpy(sc->td_mem + p->tds[i].off, p->buf + p->td_area_off + p->tds[i].off,
			       p->tds[i].size);
	else
		memcpy(sc->td_mem, p->buf + p->td_area_off, p->td_area_len);
	pl->td_mem = sc->td_mem;
	pl->td_dev = sc->td_dev;
	pl->ntds = p->ntds;
	pl->fold_out = sc->fold_out;
	pl->fold_dev = sc->fold_dev;
	struct ldr_image im = {.p = p};
	pl->wl_ok = 1;
	const unsigned streams = 1u << TD_R_STREAM;
	for (unsigned i = 0; i < p->ntds; i++) {
		pl->st.td = (int)i;
		pl->pol.td = (int)i; /* the accesses checked from here on are TD i's */
		e = fold_coeffs(pl, i, sc, &im, sc->td_mem);
		if (!e)
			e = fold_check_inherited(pl, i);
		if (!e)
			e = rebase_coeffs(pl, i, sc->td_mem);
		if (e)
			return e;
		image_apply_td(&im, i, sc->td_mem, pl);
		/* every range but the streams (which no other range depends on), then, with a kernel
		 * unit, the streams the firmware programs from the unit patched for those tiles */
		for (unsigned s = 0; s < CTRL_NSTREAMS; s++)
			image_set(&im, H13_KSTREAM_ENABLE(s), 0);
		e = derive_and_check(pl, i, &im, ~streams);
		if (!e && pl->have_ku)
			e = plan_kunit(pl, i, sc, &im);
		if (!e && pl->have_ku)
			e = derive_and_check(pl, i, &im, streams);
		if (!e)
			e = check_footprint(pl, &im, lim);
		if (e)
			return e;
		pl->td[i].work += pl->td[i].fold_values;
		if (pol_add_ovf(pl->work, pl->td[i].work, &pl->work) || pl->work > lim->max_work)
			return fail(pl, CTRL_E_WORK, -1, -1);
	}
	pl->st.td = -1;
	pl->pol.td = -1;
	struct pol_alias why = {0, -1};
	enum pol_err ae = pol_check_aliasing(&pl->pol, &why);
	if (ae != POL_OK) { /* the accesses of the whole program: the write's TD and BAR */
		pl->st.td = why.td;
		return fail_pol(pl, ae, -1, -1, (int)why.bar);
	}
	for (unsigned i = 0; i < p->ntds; i++) { /* after the weights' refusal, which names more */
		pl->st.td = (int)i;
		e = check_dst_kernels(pl, i);
		if (e)
			return e;
	}
	pl->st.td = -1;
	for (unsigned b = 0; b < LDR_NBARS; b++)
		if (pl->bars_used & (1u << b))
			pl->bar_runtime[b] = pl->pol.buf[b].mapped;
	pl->ku_dev = pl->have_ku ? sc->ku_dev : 0;
	return CTRL_OK;
}

/* ---- default grants ---- */
static enum pol_err add_grant(struct subq_grant *g, unsigned *n, unsigned max, unsigned bar,
			      uint64_t dva, uint64_t size, unsigned access, int weights,
			      uint32_t *weights_bars)
{
	if (((*weights_bars >> bar) & 1u) && (access & POL_WRITE))
		return POL_E_WEIGHTS_WRITTEN;
	for (unsigned i = 0; i < *n; i++)
		if (g[i].bar == bar) {
			if (weights && (g[i].access & POL_WRITE))
				return POL_E_WEIGHTS_WRITTEN;
			if (size > g[i].size)
				g[i].size = size;
			g[i].access |= access;
			if (weights)
				*weights_bars |= 1u << bar;
			return POL_OK;
		}
	if (*n >= max)
		return POL_E_TOO_MANY;
	if (weights)
		*weights_bars |= 1u << bar;
	g[(*n)++] = (struct subq_grant){.bar = bar, .access = access, .dva = dva, .size = size};
	return POL_OK;
}

/* The tile ranges (src0, src1, dst) of every TD in chain order, on the cumulative register image
 * of the TD area as the file holds it: fn(ctx, td, range, regs) for each, regs the TD's image; an
 * error stops (fn has set *st, or fw/td's error is set here). */
typedef enum ctrl_err (*tile_fn)(void *ctx, unsigned td, const struct td_range *x,
				 const struct td_regs *regs);

static enum ctrl_err each_range(const struct ldr_program *p, tile_fn fn, void *ctx,
				struct ctrl_status *st)
{
	struct ldr_image im = {.p = p};
	for (unsigned i = 0; i < p->ntds; i++) {
		struct td_range r[TD_MAX_RANGES];
		unsigned nr = 0;
		int bk = -1, bc = -1;
		st->td = (int)i;
		image_apply_td(&im, i, p->buf + p->td_area_off, NULL);
		const struct td_regs regs = {ldr_image_reg, &im};
		enum td_err te = td_ranges(&p->tds[i].h, &regs, NULL, r, TD_MAX_RANGES, &nr, &bk, &bc);
		if (te != TD_OK)
			return fail_td(st, te, bk, bc);
		for (unsigned k = 0; k < nr; k++) {
			enum ctrl_err e = fn(ctx, i, &r[k], &regs);
			if (e != CTRL_OK)
				return e;
		}
	}
	st->td = -1;
	return CTRL_OK;
}

/*
 * The intermediate-coverage pass proves every byte a TD reads from an intermediate was written by
 * an earlier TD, row by row: a tile's bytes are its rows (G x planes x D x H of them, each W x
 * interleave elements; a destination's rows the whole 64-byte line with ZeroPadLast), not the
 * hull of its extent, so a plane stride past the plane or a row narrower than its line leaves
 * gaps that stay unwritten. Each earlier TD's destination is kept as its geometry (base, row
 * bytes, four counts and strides), not as a list of its rows, so a tensor of any size is one
 * entry; a read's row is covered when each of its bytes lies in a row of some earlier write
 * (found by dividing its offset by the write's strides, largest first: no row of a destination
 * overlaps another, which the engine model checks, so the row found is the only candidate),
 * across several writes where it spans them. A raw stream's kernel read (a channel, read whole
 * with its padding: which of its bytes are kernels is the kernel layout's, not decoded here) is
 * proved against the writes' whole 64-byte lines: the pad after a row is not demanded, every line
 * is. The table of writes holds one geometry a TD (CTRL_COVER_WRITES, never full; on the heap), a
 * write the same as one kept counted once and one continuing the last on its BAR in its
 * outermost step merged into it; a read inside one write's box is proved in one step, any other
 * row by row. At most CTRL_COVER_WORK steps over the whole program (a step is one write's row
 * tried for one point): past it, coverage is not provable and the read is refused by its own
 * name (intermediate-coverage-bound).
 */
#define CTRL_COVER_WRITES LDR_MAX_TDS /* one a TD: never full (24 KiB, on the heap) */
#define CTRL_COVER_WORK (1u << 22)

/* A tile's bytes: n[3] x n[2] x n[1] x n[0] rows of `run` bytes, row (k3, k2, k1, k0) at base +
 * sum k_j x stride[j] (engine addresses: under 2^32, H13_ADDR_REACH_BITS; a step of count 1 has
 * stride 0). */
struct cover_geom {
	uint8_t bar;
	uint8_t order[4]; /* the steps by stride, largest first */
	uint32_t base, run, n[4], stride[4];
};

/* What the TDs do with each BAR no window declares: access, extent, first-use order. */
struct bar_use {
	uint32_t read, written, declared, tbase;
	uint32_t itm_declared; /* BARs of declared intermediate windows (coverage-checked too) */
	uint64_t extent[LDR_NBARS];
	uint8_t order[LDR_NBARS];
	unsigned norder;
	const struct ldr_program *p;
	/* the intermediate-coverage pass: the destinations of earlier TDs on covered BARs */
	unsigned nwr, hit;
	uint32_t work;
	struct cover_geom *wr; /* CTRL_COVER_WRITES entries (check_intermediates allocates them) */
	/* the current TD's destination, added once the TD's reads are checked */
	int pend_td;
	struct cover_geom pend;
	struct ctrl_status *st;
};

static int is_tile(const struct td_range *x)
{
	return x->kind == TD_R_SRC0 || x->kind == TD_R_SRC1 || x->kind == TD_R_DST;
}

static enum ctrl_err collect_use(void *ctx, unsigned td, const struct td_range *x,
				 const struct td_regs *regs)
{
	struct bar_use *u = ctx;
	(void)td;
	(void)regs;
	const struct ldr_program *p = u->p;
	int tbase = p->raw && x->kind == TD_R_TBASE && x->slot == H13_BAR_TBASE;
	if ((!is_tile(x) && !tbase && !ldr_runtime_kernel_read(p, x)) || x->bar >= LDR_NBARS ||
	    ((u->declared >> x->bar) & 1u) || (p->raw && !tbase && ldr_weights_bar(p, x->bar)))
		return CTRL_OK;
	uint32_t bit = 1u << x->bar;
	if (!((u->read | u->written | u->tbase) & bit))
		u->order[u->norder++] = x->bar;
	if (tbase) {
		u->tbase |= bit;
		return CTRL_OK;
	}
	if (x->access == TD_WRITE)
		u->written |= bit;
	else
		u->read |= bit;
	uint64_t end = x->addr + x->len; /* td_ranges proved the sum does not overflow */
	if (end > u->extent[x->bar])
		u->extent[x->bar] = end;
	return CTRL_OK;
}

/* The BARs the coverage pass checks: undeclared BARs the TDs both read and write, and declared
 * intermediate windows. */
static uint32_t cover_bars(const struct bar_use *u)
{
	return (u->read & u->written) | u->itm_declared;
}

/* The rows tile range x (src0, src1 or dst) moves, from the TD's registers as fw/td's tile()
 * reads them: rows of W x ilv elements (a destination's with ZeroPadLast the whole 64-byte line),
 * ceil(C / ilv) planes (a part-filled interleaved destination the engine model refuses), D
 * depths, G groups. 0 when the registers size nothing. */
#define REG(a) (r->get(r->ctx, (a)))
static int tile_geom(const struct td_range *x, const struct td_regs *r, struct cover_geom *t)
{
	const int out = x->kind == TD_R_DST;
	uint32_t dw, dh, dc;
	td_dst_dims(r, &dw, &dh, &dc);
	const uint32_t dim = REG(H13_COMMON_INDIM), chcfg = REG(H13_COMMON_CHCFG);
	uint64_t w = out ? dw : H13_GET(dim, H13_INDIM_WIN);
	uint64_t h = out ? dh : H13_GET(dim, H13_INDIM_HIN);
	uint64_t c = out ? dc : H13_GET(REG(H13_COMMON_CIN), H13_CIN);
	uint64_t g = H13_GET(REG(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	uint64_t d = td_depth(r, out);
	/* a source read at index 0 along its broadcast axes (fw/td td_src0_bcast): those rows alone */
	td_bcast_dims(x->bcast, &w, &h, &d, &c);
	const unsigned elem = td_fmt_bytes(out ? H13_GET(chcfg, H13_CHCFG_OUTFMT)
					       : H13_GET(chcfg, H13_CHCFG_INFMT));
	const uint32_t fmt = REG(out ? H13_DST_FMT : H13_SRC_FMT);
	const unsigned ilv = td_tile_interleave(fmt);
	const uint32_t *rg = x->kind == TD_R_SRC0 ? (const uint32_t[]){H13_SRC_ROWSTRIDE,
		H13_SRC_PLANESTRIDE, H13_SRC_DEPTHSTRIDE, H13_SRC_GROUPSTRIDE}
			     : x->kind == TD_R_SRC1 ? (const uint32_t[]){H13_SRC2_ROWSTRIDE,
		H13_SRC2_PLANESTRIDE, H13_SRC2_DEPTHSTRIDE, H13_SRC2_GROUPSTRIDE}
			     : (const uint32_t[]){H13_DST_ROWSTRIDE, H13_DST_PLANESTRIDE,
		H13_DST_DEPTHSTRIDE, H13_DST_GROUPSTRIDE};
	/* w < 2^15, ilv < 16, elem <= 2: no overflow */
	uint64_t run = w * ilv * elem, planes = c / ilv + (c % ilv != 0);
	if (out && H13_GET(fmt, H13_DSTFMT_ZEROPADLAST))
		run = (run + 63u) & ~(uint64_t)63u;
	const uint64_t n[4] = {h, planes, d, g};
	/* td_ranges proved the extent inside the reach: the base, a row and every step that is
	 * taken fit 32 bits */
	if (!run || !n[0] || !n[1] || !n[2] || !n[3] || x->addr + x->len > (1ull << H13_ADDR_REACH_BITS))
		return 0;
	t->bar = (uint8_t)x->bar;
	t->base = (uint32_t)x->addr;
	t->run = (uint32_t)run;
	for (unsigned k = 0; k < 4; k++) {
		t->n[k] = (uint32_t)n[k];
		t->stride[k] = n[k] > 1u ? (uint32_t)H13_ADDR_BYTES(REG(rg[k])) : 0u;
	}
	return 1;
}
#undef REG

/* The steps of t by stride, largest first (the order the row of an offset is found in). */
static void cover_order(struct cover_geom *t)
{
	for (unsigned k = 0; k < 4; k++)
		t->order[k] = (uint8_t)k;
	for (unsigned i = 1; i < 4; i++)
		for (unsigned j = i; j > 0 && t->stride[t->order[j]] > t->stride[t->order[j - 1]]; j--) {
			uint8_t o = t->order[j];
			t->order[j] = t->order[j - 1];
			t->order[j - 1] = o;
		}
}

/* The end of w's row (lines: its whole 64-byte lines; rows start on 64-byte steps) that holds
 * byte a, or 0 when none does. */
static uint64_t cover_row_end(const struct cover_geom *w, int lines, uint64_t a)
{
	if (a < w->base)
		return 0;
	uint64_t off = a - w->base, run = lines ? (w->run + 63u) & ~(uint64_t)63u : w->run;
	for (unsigned i = 0; i < 4; i++) {
		unsigned k = w->order[i];
		if (w->n[k] < 2u || !w->stride[k])
			continue;
		uint64_t q = off / w->stride[k];
		if (q >= w->n[k])
			q = w->n[k] - 1u;
		off -= q * w->stride[k];
	}
	return off < run ? a + (run - off) : 0;
}

/* [lo, hi) of bar inside the rows of earlier writes (several, one after another, where it spans
 * them): 1, 0 when a byte is in none, -1 when the work bound is reached first. */
static int cover_has(struct bar_use *u, unsigned bar, int lines, uint64_t lo, uint64_t hi)
{
	while (lo < hi) { /* each row found ends past lo */
		uint64_t end = 0;
		if (++u->work > CTRL_COVER_WORK)
			return -1;
		if (u->hit < u->nwr && u->wr[u->hit].bar == bar) /* the row before is likeliest */
			end = cover_row_end(&u->wr[u->hit], lines, lo);
		for (unsigned i = 0; i < u->nwr && !end; i++) {
			if (u->wr[i].bar != bar || i == u->hit)
				continue;
			if (++u->work > CTRL_COVER_WORK)
				return -1;
			if ((end = cover_row_end(&u->wr[i], lines, lo)) != 0)
				u->hit = i;
		}
		if (!end)
			return 0;
		lo = end;
	}
	return 1;
}

/* Every row of t inside w's rows, proved in one step: each of t's steps that is taken is w's
 * step of the same kind with the same stride, and t's first row, found in w (w's row q, offset
 * o), keeps t's whole box inside w's (q + t's counts within w's, o + t's row within w's row).
 * Then t's row k is w's row q + k at offset o. 0 when that does not hold (the rows are tried one
 * by one instead). */
static int cover_box(const struct cover_geom *w, const struct cover_geom *t)
{
	if (w->bar != t->bar || t->base < w->base)
		return 0;
	for (unsigned k = 0; k < 4; k++)
		if (t->n[k] > 1u && (w->n[k] < 2u || w->stride[k] != t->stride[k]))
			return 0;
	uint64_t off = t->base - w->base, q[4] = {0, 0, 0, 0};
	for (unsigned i = 0; i < 4; i++) {
		unsigned k = w->order[i];
		if (w->n[k] < 2u || !w->stride[k])
			continue;
		q[k] = off / w->stride[k];
		if (q[k] >= w->n[k])
			q[k] = w->n[k] - 1u;
		off -= q[k] * w->stride[k];
	}
	if (off >= w->run || off + t->run > w->run)
		return 0;
	for (unsigned k = 0; k < 4; k++)
		if (q[k] + t->n[k] > w->n[k])
			return 0;
	return 1;
}

/* Every row of t covered (its rows that follow one another with no gap taken as one): 1, 0 when
 * one is not, -1 when the work bound is reached first. */
static int cover_rows(struct bar_use *u, const struct cover_geom *t, int lines)
{
	for (unsigned i = 0; !lines && i < u->nwr; i++) /* inside one write's box: one step */
		if (cover_box(&u->wr[i], t)) {
			u->hit = i;
			return 1;
		}
	uint64_t run = t->run, n[4], st[4];
	for (unsigned k = 0; k < 4; k++) {
		n[k] = t->n[k];
		st[k] = t->stride[k];
	}
	for (unsigned k = 0; k < 4; k++) { /* leading steps with no gap: one row */
		if (n[k] > 1u && st[k] != run)
			break;
		run *= n[k];
		n[k] = 1;
	}
	for (uint64_t k3 = 0; k3 < n[3]; k3++)
		for (uint64_t k2 = 0; k2 < n[2]; k2++)
			for (uint64_t k1 = 0; k1 < n[1]; k1++)
				for (uint64_t k0 = 0; k0 < n[0]; k0++) {
					uint64_t lo = t->base + k3 * st[3] + k2 * st[2] + k1 * st[1] + k0 * st[0];
					int c = cover_has(u, t->bar, lines, lo, lo + run);
					if (c != 1)
						return c;
				}
	return 1;
}

/* Keeps a destination's geometry: dropped when one kept on its BAR is the same (a ping-pong
 * between two buffers keeps two), merged into the last one kept on its BAR when it continues that
 * one in its outermost step (the same rows, the next planes of a concatenation); 0 when the table
 * is full. */
static int cover_same(const struct cover_geom *w, const struct cover_geom *t)
{
	int same = w->bar == t->bar && w->base == t->base && w->run == t->run;
	for (unsigned k = 0; k < 4 && same; k++)
		same = w->n[k] == t->n[k] && w->stride[k] == t->stride[k];
	return same;
}

static int cover_add(struct bar_use *u, const struct cover_geom *t)
{
	for (unsigned i = 0; i < u->nwr; i++)
		if (cover_same(&u->wr[i], t))
			return 1;
	for (unsigned i = u->nwr; i-- > 0;) {
		struct cover_geom *w = &u->wr[i];
		if (w->bar != t->bar)
			continue;
		/* the outermost step with a count over 1 in either */
		unsigned k = 4;
		while (k > 0 && w->n[k - 1] < 2u && t->n[k - 1] < 2u)
			k--;
		if (k == 0 || w->run != t->run)
			break;
		k--;
		int inner = 1;
		for (unsigned j = 0; j < k && inner; j++)
			inner = w->n[j] == t->n[j] && w->stride[j] == t->stride[j];
		uint32_t step = w->n[k] > 1u ? w->stride[k] : t->n[k] > 1u ? t->stride[k] : 0u;
		if (inner && step && (t->n[k] < 2u || t->stride[k] == step) &&
		    (uint64_t)w->base + (uint64_t)w->n[k] * step == t->base &&
		    (uint64_t)w->n[k] + t->n[k] < (1ull << 32)) {
			w->stride[k] = step;
			w->n[k] += t->n[k];
			cover_order(w);
			return 1;
		}
		break;
	}
	if (u->nwr >= CTRL_COVER_WRITES)
		return 0;
	u->wr[u->nwr] = *t;
	cover_order(&u->wr[u->nwr]);
	u->nwr++;
	return 1;
}

/* A read not proved covered: c 0, bytes no earlier TD wrote; -1, the check's bounds reached. */
static enum ctrl_err cover_refuse(struct bar_use *u, int kind, unsigned bar, int c)
{
	const enum ctrl_err e = c < 0 ? CTRL_E_ITM_BOUND : CTRL_E_ITM_CONFLICT;
	u->st->err = e;
	u->st->kind = kind;
	u->st->bar = (int)bar;
	return e;
}

/* Every read of an intermediate (by a tile source, or a raw stream's kernel DMA) lies in bytes
 * an earlier TD wrote (the firmware zeroes intermediates; a read of bytes no earlier TD wrote
 * means the program's extents conflict); a TD's own destination does not count: it is added
 * once the next TD's ranges begin. */
static enum ctrl_err check_cover(void *ctx, unsigned td, const struct td_range *x,
				 const struct td_regs *regs)
{
	struct bar_use *u = ctx;
	if (u->pend_td >= 0 && (unsigned)u->pend_td != td) {
		/* the previous TD's destination: past the table's bound, not provable */
		u->st->td = u->pend_td;
		u->pend_td = -1;
		if (!cover_add(u, &u->pend))
			return cover_refuse(u, TD_R_DST, u->pend.bar, -1);
		u->st->td = (int)td;
	}
	if ((!is_tile(x) && !ldr_runtime_kernel_read(u->p, x)) || x->bar >= LDR_NBARS ||
	    !((cover_bars(u) >> x->bar) & 1u))
		return CTRL_OK;
	int c;
	if (!is_tile(x)) { /* a kernel read: one run, against the writes' whole lines */
		c = cover_has(u, x->bar, 1, x->addr, x->addr + x->len);
		return c == 1 ? CTRL_OK : cover_refuse(u, x->kind, x->bar, c);
	}
	struct cover_geom t;
	if (!tile_geom(x, regs, &t))
		return x->access == TD_WRITE ? CTRL_OK : cover_refuse(u, x->kind, x->bar, 0);
	if (x->access == TD_WRITE) { /* one destination per TD */
		u->pend_td = (int)td;
		u->pend = t;
		return CTRL_OK;
	}
	c = cover_rows(u, &t, 0);
	return c == 1 ? CTRL_OK : cover_refuse(u, x->kind, x->bar, c);
}

/* The grant table being built. */
struct grants {
	struct subq_grant *g;
	unsigned n, max;
	uint32_t wbars; /* BARs holding weights */
};

static enum pol_err grant(struct grants *gs, unsigned bar, uint64_t dva, uint64_t size,
			  unsigned access, int weights)
{
	return add_grant(gs->g, &gs->n, gs->max, bar, dva, size, access, weights, &gs->wbars);
}

/* Every grant on bar becomes read-write in place (an intermediate). */
static void in_place(struct grants *gs, unsigned bar)
{
	for (unsigned k = 0; k < gs->n; k++)
		if (gs->g[k].bar == bar)
			gs->g[k].flags |= POL_FLAG_IN_PLACE;
}

/* A container's declared buffers: __text and the weights first, so that a window over them
 * cannot make them writable, then every window by its direction; an output window over the
 * weights section's bytes is refused. */
static enum pol_err declared_grants(const struct ldr_program *p, struct grants *gs,
				    struct bar_use *u, struct ctrl_status *st)
{
	enum pol_err pe = POL_OK;
	for (unsigned b = 0; b < LDR_NBARS && pe == POL_OK; b++) {
		if (!p->bars[b])
			continue;
		st->bar = (int)b;
		if (p->text_sect >= 0 && p->bars[b] == p->sects[p->text_sect].addr) {
			u->declared |= 1u << b;
			pe = grant(gs, b, p->bars[b], p->td_area_len, POL_READ, 0);
		} else if (p->weights_sect >= 0 && p->weights_len &&
			   p->bars[b] == p->sects[p->weights_sect].addr) {
			u->declared |= 1u << b;
			pe = grant(gs, b, p->bars[b], p->weights_len, POL_READ, 1);
		}
	}
	for (unsigned i = 0; i < p->nwindows && pe == POL_OK; i++) {
		const struct ldr_window *w = &p->windows[i];
		if (w->bar < 0)
			continue;
		st->bar = w->bar;
		u->declared |= 1u << w->bar;
		unsigned acc = w->initprot == LDR_WIN_INPUT ? POL_READ
			       : w->initprot == LDR_WIN_OUTPUT ? POL_WRITE : POL_RW;
		pe = grant(gs, (unsigned)w->bar, p->bars[w->bar], w->size, acc, 0);
		if (pe == POL_OK && acc == POL_RW) { /* an intermediate window: in place, and read
						      * only where an earlier TD wrote */
			in_place(gs, (unsigned)w->bar);
			u->itm_declared |= 1u << w->bar;
		}
	}
	for (unsigned i = 0; i < p->nwindows && pe == POL_OK && p->weights_sect >= 0; i++) {
		const struct ldr_window *w = &p->windows[i];
		uint64_t wa = p->sects[p->weights_sect].addr, wl = p->weights_len;
		if (w->initprot != LDR_WIN_INPUT && w->vmaddr < wa + wl && wa < w->vmaddr + w->size) {
			st->bar = w->bar;
			pe = POL_E_WEIGHTS_WRITTEN;
		}
	}
	if (pe == POL_OK)
		st->bar = -1;
	return pe;
}

/* A raw stream: its weights BAR (LDR_RAW_WEIGHTS_BAR), when a TD enables it in a slot but TBase,
 * gets the weights (TBase the TD area, later); a TD writing there is refused where its range is
 * checked, and a stream without weights grants nothing there. */
static enum pol_err raw_weight_grants(const struct ldr_program *p, struct grants *gs,
				      struct ctrl_status *st)
{
	for (unsigned i = 0; i < p->ntds && p->weights_len; i++)
		for (unsigned b = 0; b < H13_BAR_NSLOTS; b++)
			if (b != H13_BAR_TBASE && (p->tds[i].h.bar_en & (1u << b)) &&
			    ldr_weights_bar(p, p->tds[i].h.bar_idx[b])) {
				st->td = (int)i;
				enum pol_err pe = grant(gs, LDR_RAW_WEIGHTS_BAR, 0, p->weights_len, POL_READ, 1);
				if (pe == POL_OK)
					st->td = -1;
				return pe;
			}
	return POL_OK;
}

/* The intermediates (tile BARs the TDs both read and write): each within the grant limit and
 * the reach, and read only where an earlier TD wrote. CTRL_OK, or the refusal (*st says where). */
static enum ctrl_err check_intermediates(const struct ldr_program *p, struct bar_use *u,
					 struct ctrl_status *st)
{
	uint32_t itm = u->read & u->written;
	for (unsigned k = 0; k < u->norder; k++) {
		unsigned b = u->order[k];
		if (((itm >> b) & 1u) &&
		    (u->extent[b] > ctrl_default_limits.max_grant ||
		     u->extent[b] > (1ull << H13_ADDR_REACH_BITS))) {
			st->err = CTRL_E_ITM_OVERFLOW;
			st->bar = (int)b;
			return CTRL_E_ITM_OVERFLOW;
		}
	}
	if (!cover_bars(u))
		return CTRL_OK;
	/* one geometry a TD at most (the table, 24 KiB, is off the target's 64 KiB stacks) */
	u->wr = malloc(CTRL_COVER_WRITES * sizeof *u->wr);
	if (!u->wr) { /* not provable without it: refused, as past the bound */
		st->err = CTRL_E_ITM_BOUND;
		return CTRL_E_ITM_BOUND;
	}
	enum ctrl_err e = each_range(p, check_cover, u, st);
	free(u->wr);
	u->wr = NULL;
	return e;
}

/* Every tile BAR no window declares (all of a raw stream's): the extent its TDs declare (the
 * same ranges the plan checks); read only: an input, written only: an output, both: an
 * intermediate, firmware-allocated, read-write in place. A raw stream's TBase: the TD area. */
static enum pol_err undeclared_grants(const struct ldr_program *p, struct grants *gs,
				      const struct bar_use *u, struct ctrl_status *st)
{
	enum pol_err pe = POL_OK;
	for (unsigned k = 0; k < u->norder && pe == POL_OK; k++) {
		unsigned b = u->order[k];
		unsigned acc = (((u->read >> b) & 1u) ? POL_READ : 0u) |
			       (((u->written >> b) & 1u) ? POL_WRITE : 0u);
		st->bar = (int)b;
		if (((u->tbase >> b) & 1u) && p->td_area_len)
			pe = grant(gs, b, 0, p->td_area_len, POL_READ, 0);
		if (pe == POL_OK && acc)
			pe = grant(gs, b, p->raw ? 0 : p->bars[b], u->extent[b], acc, 0);
		if (pe == POL_OK && acc == POL_RW)
			in_place(gs, b);
	}
	return pe;
}

/* A container's BARs as the TDs use them name distinct memory: silicon reads the bytes at a BAR's
 * address, and the firmware gives each BAR its own buffer (a window's, a section's, or one sized
 * from the TDs' extents). So two used BARs whose ranges overlap (their addresses, with the sizes
 * granted), a used BAR at an address inside a section or window other than its start, or at the
 * start of a window another BAR holds, would compute on bytes silicon does not: refused
 * (bar-address-aliased). No real fixture has any of them (docs/control-path.md). */
static enum ctrl_err check_bar_aliases(const struct ldr_program *p, const struct grants *gs,
				       struct ctrl_status *st)
{
	uint32_t used = 0;
	for (unsigned i = 0; i < p->ntds; i++)
		for (unsigned sl = 0; sl < H13_BAR_NSLOTS; sl++)
			if (p->tds[i].h.bar_en & (1u << sl))
				used |= 1u << (p->tds[i].h.bar_idx[sl] % LDR_NBARS);
	uint64_t size[LDR_NBARS];
	for (unsigned b = 0; b < LDR_NBARS; b++) {
		size[b] = 1; /* a BAR granted nothing: its address alone */
		for (unsigned k = 0; k < gs->n; k++)
			if (gs->g[k].bar == b && gs->g[k].size > size[b])
				size[b] = gs->g[k].size;
	}
	for (unsigned b = 0; b < LDR_NBARS; b++) {
		if (!((used >> b) & 1u))
			continue;
		const uint64_t a = p->bars[b];
		int bad = 0;
		for (unsigned c = b + 1; c < LDR_NBARS && !bad; c++) {
			/* sizes are bounded grants and addresses 64-bit fields: compare without sums
			 * that could wrap */
			const uint64_t o = p->bars[c];
			bad = ((used >> c) & 1u) && (a <= o ? o - a < size[b] : a - o < size[c]);
		}
		for (unsigned k = 0; k < p->nsects && !bad; k++)
			bad = a > p->sects[k].addr && a - p->sects[k].addr < p->sects[k].size;
		for (unsigned k = 0; k < p->nwindows && !bad; k++) {
			const struct ldr_window *w = &p->windows[k];
			uint64_t wsz = w->size > w->vmsize ? w->size : w->vmsize;
			bad = (a == w->vmaddr && w->bar != (int)b) ||
			      (a > w->vmaddr && a - w->vmaddr < wsz);
		}
		if (bad) {
			st->err = CTRL_E_BAR_ALIAS;
			st->bar = (int)b;
			return CTRL_E_BAR_ALIAS;
		}
	}
	return CTRL_OK;
}

/* A policy refusal as the control path names it: a full table is the control path's own. */
static enum ctrl_err policy_status(enum pol_err pe, struct ctrl_status *st)
{
	if (pe == POL_E_TOO_MANY) {
		st->err = CTRL_E_GRANTS;
	} else {
		st->err = CTRL_E_POLICY;
		st->pol = pe;
	}
	return st->err;
}

/* The grants themselves (ctrl_default_grants, which checked its arguments). */
static enum ctrl_err derive_grants(const struct ldr_program *p, struct grants *gs,
				   struct ctrl_status *st)
{
	static const struct bar_use no_use;
	struct bar_use u = no_use;
	u.p = p;
	u.st = st;
	u.pend_td = -1;
	enum pol_err pe = p->raw ? raw_weight_grants(p, gs, st) : declared_grants(p, gs, &u, st);
	if (pe != POL_OK)
		return policy_status(pe, st);
	enum ctrl_err e = each_range(p, collect_use, &u, st);
	if (e == CTRL_OK)
		e = check_intermediates(p, &u, st);
	if (e != CTRL_OK)
		return e;
	pe = undeclared_grants(p, gs, &u, st);
	if (pe != POL_OK)
		return policy_status(pe, st);
	return p->raw ? CTRL_OK : check_bar_aliases(p, gs, st);
}

enum ctrl_err ctrl_default_grants(const struct ldr_program *p, struct subq_grant *g, unsigned max,
				  unsigned *n, struct ctrl_status *st)
{
	struct ctrl_status s = CTRL_STATUS_OK;
	struct grants gs = {.g = g, .n = 0, .max = max, .wbars = 0};
	if (!p || !g || !n)
		s.err = CTRL_E_ARG;
	else if (!p->gen || !p->gen->blocks)
		s.err = CTRL_E_UNSUPPORTED;
	else if (derive_grants(p, &gs, &s) == CTRL_OK)
		s = CTRL_STATUS_OK;
	if (n)
		*n = s.err == CTRL_OK ? gs.n : 0;
	if (st)
		*st = s;
	return s.err;
}
