#include "fw/ctrl/ctrl.h"

#include <stdio.h>
#include <string.h>

static const char *const err_names[CTRL_E_COUNT_] = {
	[CTRL_OK] = "ok",
	[CTRL_E_ARG] = "bad-argument",
	[CTRL_E_UNSUPPORTED] = "generation-without-register-map",
	[CTRL_E_POLICY] = "policy",
	[CTRL_E_KUNIT] = "kunit",
	[CTRL_E_FORMAT] = "unsized-tensor-format",
	[CTRL_E_COEFF_NO_BAR] = "coefficients-without-kernel-bar",
	[CTRL_E_ALIGN] = "coefficient-base-misaligned",
	[CTRL_E_SCRATCH] = "kunit-scratch-too-small",
	[CTRL_E_GRANTS] = "too-many-grants",
};

const char *ctrl_err_name(enum ctrl_err e)
{
	return (unsigned)e < CTRL_E_COUNT_ && err_names[e] ? err_names[e] : "unknown-ctrl-error";
}

static const char *const kind_names[CTRL_R__COUNT] = {
	"src0", "src1", "dst", "tbase", "coeff", "stream", "kunit",
};

const char *ctrl_kind_name(unsigned kind)
{
	return kind < CTRL_R__COUNT ? kind_names[kind] : "?";
}

const char *ctrl_status_name(const struct ctrl_status *s)
{
	if (s->err == CTRL_E_POLICY)
		return pol_err_name(s->pol);
	if (s->err == CTRL_E_KUNIT)
		return ku_err_name(s->ku);
	return ctrl_err_name(s->err);
}

/* M1 values: the dense cap is guide-25's; the relaxed cap and LUT budget are stand-ins
 * (docs/kunit.md), the descriptor version is the M1's. */
const struct ku_limits ctrl_h13_ku_limits = {
	.dense_cap = 0x10000, .stream_cap = 0x40000, .lut_budget = 0x1000, .version = 5};

/* ---- H13 registers the control path reads (byte addresses, docs/formats.md) ---- */
#define R_INDIM 0x00000u
#define R_CHCFG 0x00008u
#define R_CIN 0x0000cu
#define R_COUT 0x00010u
#define R_OUTDIM 0x00014u
#define R_GROUPCONV 0x00024u
#define R_SRC 0x13800u /* TileDMASrc: DMAConfig +0, BaseAddr +8, Row +0xc, Plane +0x10, Depth +0x14, Group +0x18 */
#define R_DST 0x17800u /* TileDMADst: DMAConfig +0, BaseAddr +4, Row +8, Plane +0xc, Depth +0x10, Group +0x14 */
#define ADDR_FIELD(v) ((uint64_t)((v) & 0xffffffc0u)) /* 26-bit fields at bit 6: bytes */

#define BIT_RBE0 0x01u
#define BIT_RBE1 0x02u
#define BIT_WBE 0x04u
#define BIT_TBE 0x08u
#define BIT_KBE0 0x10u

static const uint32_t stream_regs[CTRL_NSTREAMS][3] = {
	{0x5548, 0x554c, 0x1554}, /* bias */
	{0x5558, 0x555c, 0x1558}, /* post-scale */
	{0x5568, 0x556c, 0x155c}, /* palette LUT */
	{0x5578, 0x557c, 0x1560}, /* activation LUT */
};
static const char *const stream_names[CTRL_NSTREAMS] = {"Bias", "PostScale", "Palette", "ActLUT"};
static const unsigned stream_section[CTRL_NSTREAMS] = {KU_SEC_BIAS, KU_SEC_SCALE, KU_SEC_PALETTE,
							KU_SEC_ACTLUT};
static const unsigned stream_slot[CTRL_NSTREAMS] = {KU_SLOT_BIAS_STREAM, KU_SLOT_POSTSCALE_STREAM,
						     KU_SLOT_PALETTE_STREAM, KU_SLOT_ACTLUT_STREAM};

const char *ctrl_stream_reg_name(uint32_t addr)
{
	static const char *const what[3] = {"Enable", "BaseOffset", "Reloc"};
	static char buf[40];
	for (unsigned s = 0; s < CTRL_NSTREAMS; s++)
		for (unsigned k = 0; k < 3; k++)
			if (stream_regs[s][k] == addr) {
				snprintf(buf, sizeof buf, "KStream.%s.%s", stream_names[s], what[k]);
				return buf;
			}
	return NULL;
}

static unsigned fmt_bytes(unsigned fmt)
{
	/* ChCfg InFmt/OutFmt: 0 and 1 are 8-bit formats, 2 is fp16; 3 is not sized. */
	return fmt == 2 ? 2 : fmt < 2 ? 1 : 0;
}

struct tensor {
	uint64_t w, h, c, groups;
	unsigned elem;
};

/*
 * Extent of a tile in memory: every row is whole 64-byte lines (the engine moves lines); rows
 * step by the row stride, channels (planes) by the plane stride, the depth (one on H13: no
 * depth dimension in Common) by the depth stride, groups by the group stride.
 */
static enum pol_err tile_extent(const struct tensor *t, uint64_t row, uint64_t plane,
				uint64_t depth, uint64_t group, uint64_t *extent)
{
	uint64_t line;
	if (!t->w || !t->h || !t->c || !t->groups)
		return POL_ERR_EMPTY;
	if (pol_mul_ovf(t->w, t->elem, &line) || pol_add_ovf(line, 63, &line))
		return POL_ERR_OVERFLOW;
	line &= ~(uint64_t)63;
	const uint64_t dims[4] = {t->h, t->c, 1, t->groups};
	const uint64_t strides[4] = {row, plane, depth, group};
	return pol_strided_extent(dims, strides, 4, line, extent);
}

static int get_tensors(const struct ldr_program *p, const struct ldr_regimage *img,
		       struct tensor *in, struct tensor *out)
{
	uint32_t indim = ldr_image_get(p, img, R_INDIM), outdim = ldr_image_get(p, img, R_OUTDIM);
	uint32_t chcfg = ldr_image_get(p, img, R_CHCFG);
	uint64_t groups = ldr_image_get(p, img, R_GROUPCONV) & 0x1fffu;
	in->w = indim & 0x7fffu;
	in->h = (indim >> 16) & 0x7fffu;
	in->c = ldr_image_get(p, img, R_CIN) & 0x1ffffu;
	in->groups = groups;
	in->elem = fmt_bytes(chcfg & 3u);
	out->w = outdim & 0x7fffu;
	out->h = (outdim >> 16) & 0x7fffu;
	out->c = ldr_image_get(p, img, R_COUT) & 0x1ffffu;
	out->groups = groups;
	out->elem = fmt_bytes((chcfg >> 4) & 3u);
	return 0;
}

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

static enum ctrl_err add_range(struct ctrl_plan *pl, unsigned td, unsigned kind, unsigned ch,
			       unsigned bar, uint64_t off, uint64_t len, unsigned access)
{
	struct ctrl_td_plan *t = &pl->td[td];
	uint64_t rt;
	enum pol_err e = pol_check_offset(&pl->pol, bar, off, len, access, &rt);
	if (e != POL_OK)
		return fail_pol(pl, e, (int)kind, (int)ch, (int)bar);
	if (t->nranges >= CTRL_MAX_RANGES)
		return fail_pol(pl, POL_ERR_TOO_MANY, (int)kind, (int)ch, (int)bar);
	t->r[t->nranges++] = (struct ctrl_range){(uint8_t)kind, (uint8_t)ch, (uint8_t)bar,
						 (uint8_t)access, off, len, rt};
	return CTRL_OK;
}

/* Offset (in the granted buffer at bar) of the weights byte at weights offset woff. */
static enum ctrl_err weights_off(struct ctrl_plan *pl, unsigned bar, uint64_t woff, uint64_t *off,
				 int kind, int ch)
{
	const struct pol_buffer *b = &pl->pol.buf[bar];
	uint64_t iova;
	if (!(pl->pol.present & (1u << bar)))
		return fail_pol(pl, POL_ERR_BAR_ABSENT, kind, ch, (int)bar);
	if (pol_add_ovf(weights_dva(pl->p), woff, &iova))
		return fail_pol(pl, POL_ERR_OVERFLOW, kind, ch, (int)bar);
	if (iova < b->dva)
		return fail_pol(pl, POL_ERR_OUT_OF_BUFFER, kind, ch, (int)bar);
	*off = iova - b->dva;
	return CTRL_OK;
}

static int reloc_for(const struct ldr_program *p, unsigned td, uint32_t reg)
{
	for (unsigned i = 0; i < p->nrelocs; i++)
		if (p->relocs[i].td == (int)td && p->relocs[i].has_reg && p->relocs[i].reg_addr == reg)
			return 1;
	return 0;
}

static enum ctrl_err plan_coeff(struct ctrl_plan *pl, unsigned i, const struct ldr_td *td)
{
	const struct ldr_program *p = pl->p;
	if (!td->ncoeff)
		return CTRL_OK;
	if (!(td->bar_en & BIT_KBE0))
		return fail(pl, CTRL_E_COEFF_NO_BAR, CTRL_R_COEFF, td->coeff[0].ch);
	unsigned kbar = td->bar_idx[4];
	for (unsigned c = 0; c < td->ncoeff; c++) {
		const struct ldr_coeff *co = &td->coeff[c];
		uint64_t off;
		enum ctrl_err e = weights_off(pl, kbar, co->base, &off, CTRL_R_COEFF, co->ch);
		if (e)
			return e;
		e = add_range(pl, i, CTRL_R_COEFF, co->ch, kbar, off, co->size, POL_READ);
		if (e)
			return e;
		uint32_t reg = p->gen->coeff.base + 4u * co->ch;
		if (!reloc_for(p, i, reg))
			continue; /* an offset from the kernel BAR: the engine adds the BAR */
		uint64_t rt = pl->td[i].r[pl->td[i].nranges - 1].runtime;
		if (rt & 63u)
			return fail(pl, CTRL_E_ALIGN, CTRL_R_COEFF, co->ch);
		/* re-based absolute address (fits: the policy proved it below the 32-bit reach) */
		struct ldr_write_iter it;
		struct ldr_write w;
		ldr_writes_begin(p, i, &it);
		while (ldr_writes_next(&it, &w)) {
			if (w.addr != reg)
				continue;
			struct ctrl_td_plan *t = &pl->td[i];
			if (t->npatch >= CTRL_MAX_PATCHES)
				return fail_pol(pl, POL_ERR_TOO_MANY, CTRL_R_COEFF, co->ch, (int)kbar);
			t->patch[t->npatch++] = (struct ctrl_patch){
				w.area_off, reg, (uint32_t)rt | (w.value & 63u)};
		}
	}
	return CTRL_OK;
}

static enum ctrl_err plan_kunit(struct ctrl_plan *pl, unsigned i, const struct ldr_td *td,
				const struct ctrl_scratch *sc, int *patched)
{
	const struct ldr_program *p = pl->p;
	if (!(td->bar_en & BIT_KBE0))
		return CTRL_OK;
	unsigned kbar = td->bar_idx[4];
	uint64_t off;
	enum ctrl_err e = weights_off(pl, kbar, 0, &off, CTRL_R_KUNIT, -1);
	if (e)
		return e;
	e = add_range(pl, i, CTRL_R_KUNIT, 0, kbar, off, pl->ku_len, POL_READ);
	if (e)
		return e;
	uint64_t unit_rt = pl->td[i].r[pl->td[i].nranges - 1].runtime;
	struct ku_dispatch d = {unit_rt, UINT64_MAX, UINT64_MAX};
	for (unsigned r = 0; r < pl->td[i].nranges; r++) {
		if (pl->td[i].r[r].kind == CTRL_R_SRC0)
			d.input_tile = pl->td[i].r[r].runtime;
		if (pl->td[i].r[r].kind == CTRL_R_DST)
			d.output_tile = pl->td[i].r[r].runtime;
	}
	for (unsigned s = 0; s < CTRL_NSTREAMS; s++) {
		const struct ku_section_desc *sd = &pl->ku.sec[stream_section[s]];
		if (!sd->size)
			continue;
		e = add_range(pl, i, CTRL_R_STREAM, s, kbar, off + sd->offset, sd->size, POL_READ);
		if (e)
			return e;
	}
	if (!sc || !sc->ku_out || sc->ku_cap < pl->ku_len)
		return fail(pl, CTRL_E_SCRATCH, CTRL_R_KUNIT, -1);
	enum ku_err ke = ku_patch(&pl->ku, &d, sc->ku_out, pl->ku_len);
	if (ke != KU_OK) {
		pl->st.ku = ke;
		return fail(pl, CTRL_E_KUNIT, CTRL_R_KUNIT, -1);
	}
	*patched = 1;
	struct ku_unit cu = pl->ku;
	cu.base = sc->ku_out;
	uint32_t rec[KU_RECORD_WORDS];
	ku_record(&cu, 0, 0, rec);
	struct ctrl_td_plan *t = &pl->td[i];
	t->nstream_regs = 0;
	for (unsigned s = 0; s < CTRL_NSTREAMS; s++) {
		const struct ku_section_desc *sd = &pl->ku.sec[stream_section[s]];
		uint32_t on = sd->size ? 1u : 0u;
		t->stream_regs[t->nstream_regs++] = (struct ctrl_reg){stream_regs[s][0], on};
		t->stream_regs[t->nstream_regs++] = (struct ctrl_reg){stream_regs[s][1], on ? sd->offset : 0};
		t->stream_regs[t->nstream_regs++] =
		    (struct ctrl_reg){stream_regs[s][2], on ? rec[2 + stream_slot[s]] : 0};
	}
	(void)p;
	return CTRL_OK;
}

static enum ctrl_err plan_td(struct ctrl_plan *pl, unsigned i, struct ldr_regimage *img)
{
	const struct ldr_program *p = pl->p;
	const struct ldr_td *td = &p->tds[i];
	struct tensor in, out;
	enum ctrl_err e;
	if (ldr_td_image(p, i, img) != LDR_OK)
		return fail(pl, CTRL_E_ARG, -1, -1);
	get_tensors(p, img, &in, &out);
	uint32_t srccfg = ldr_image_get(p, img, R_SRC), dstcfg = ldr_image_get(p, img, R_DST);
	/* tile sources: RBase0 (and RBase1 with the same geometry: the second source of a
	 * two-input TD), when the source DMA is enabled */
	for (unsigned k = 0; k < 2; k++) {
		if (!(td->bar_en & (k ? BIT_RBE1 : BIT_RBE0)) || !(srccfg & 1u))
			continue;
		if (!in.elem)
			return fail(pl, CTRL_E_FORMAT, CTRL_R_SRC0 + (int)k, -1);
		uint64_t ext, end, base = ADDR_FIELD(ldr_image_get(p, img, R_SRC + 8));
		enum pol_err pe = tile_extent(&in, ADDR_FIELD(ldr_image_get(p, img, R_SRC + 0xc)),
					      ADDR_FIELD(ldr_image_get(p, img, R_SRC + 0x10)),
					      ADDR_FIELD(ldr_image_get(p, img, R_SRC + 0x14)),
					      ADDR_FIELD(ldr_image_get(p, img, R_SRC + 0x18)), &ext);
		if (pe == POL_OK && pol_add_ovf(base, ext, &end))
			pe = POL_ERR_OVERFLOW;
		if (pe != POL_OK)
			return fail_pol(pl, pe, CTRL_R_SRC0 + (int)k, -1, td->bar_idx[k]);
		e = add_range(pl, i, CTRL_R_SRC0 + k, 0, td->bar_idx[k], base, ext, POL_READ);
		if (e)
			return e;
	}
	if ((td->bar_en & BIT_WBE) && (dstcfg & 1u)) {
		if (!out.elem)
			return fail(pl, CTRL_E_FORMAT, CTRL_R_DST, -1);
		uint64_t ext, end, base = ADDR_FIELD(ldr_image_get(p, img, R_DST + 4));
		enum pol_err pe = tile_extent(&out, ADDR_FIELD(ldr_image_get(p, img, R_DST + 8)),
					      ADDR_FIELD(ldr_image_get(p, img, R_DST + 0xc)),
					      ADDR_FIELD(ldr_image_get(p, img, R_DST + 0x10)),
					      ADDR_FIELD(ldr_image_get(p, img, R_DST + 0x14)), &ext);
		if (pe == POL_OK && pol_add_ovf(base, ext, &end))
			pe = POL_ERR_OVERFLOW;
		if (pe != POL_OK)
			return fail_pol(pl, pe, CTRL_R_DST, -1, td->bar_idx[2]);
		e = add_range(pl, i, CTRL_R_DST, 0, td->bar_idx[2], base, ext, POL_WRITE);
		if (e)
			return e;
	}
	/* any other enabled BAR must be granted for reading (its extent is not decoded: the
	 * whole buffer is taken as read) */
	static const uint8_t other[] = {3, 5, 6, 7};
	for (unsigned k = 0; k < sizeof other; k++) {
		unsigned b = other[k];
		if (!(td->bar_en & (1u << b)))
			continue;
		unsigned bar = td->bar_idx[b];
		if (!(pl->pol.present & (1u << bar)))
			return fail_pol(pl, POL_ERR_BAR_ABSENT, CTRL_R_TBASE, (int)b, (int)bar);
		e = add_range(pl, i, CTRL_R_TBASE, b, bar, 0, pl->pol.buf[bar].size, POL_READ);
		if (e)
			return e;
	}
	if (td->bar_en & BIT_KBE0) {
		unsigned bar = td->bar_idx[4];
		if (!(pl->pol.present & (1u << bar)))
			return fail_pol(pl, POL_ERR_BAR_ABSENT, CTRL_R_COEFF, -1, (int)bar);
	}
	return plan_coeff(pl, i, td);
}

enum ctrl_err ctrl_plan(struct ctrl_plan *pl, const struct ldr_program *p,
			const struct subq_grant *grants, unsigned ngrants,
			const struct pol_range *forbid, unsigned nforbid,
			const struct ctrl_scratch *sc)
{
	static struct ldr_regimage img;
	if (!pl)
		return CTRL_E_ARG;
	memset(pl, 0, sizeof *pl);
	pl->st = (struct ctrl_status){CTRL_OK, POL_OK, KU_OK, -1, -1, -1, -1};
	if (!p || (ngrants && !grants) || (nforbid && !forbid))
		return fail(pl, CTRL_E_ARG, -1, -1);
	pl->p = p;
	if (!p->gen || !p->gen->blocks || p->gen->gen != 13)
		return fail(pl, CTRL_E_UNSUPPORTED, -1, -1);
	if (ngrants > SUBQ_MAX_GRANTS)
		return fail(pl, CTRL_E_GRANTS, -1, -1);
	pol_init(&pl->pol, CTRL_REACH_BITS);
	for (unsigned i = 0; i < nforbid; i++) {
		enum pol_err e = pol_forbid(&pl->pol, forbid[i].base, forbid[i].size);
		if (e != POL_OK)
			return fail_pol(pl, e, -1, -1, -1);
	}
	for (unsigned i = 0; i < ngrants; i++) {
		const struct subq_grant *g = &grants[i];
		enum pol_err e = pol_grant(&pl->pol, g->bar, g->dva, g->size, g->mapped, g->access,
					   g->flags);
		if (e != POL_OK)
			return fail_pol(pl, e, -1, -1, g->bar < 256 ? (int)g->bar : -1);
	}
	/* a kernel unit in the weights */
	if (p->weights_len >= KU_HEADER_SIZE && le_rd32(p->buf + p->weights_off) == KU_MAGIC) {
		enum ku_err ke = ku_parse(p->buf + p->weights_off, p->weights_len,
					  &ctrl_h13_ku_limits, &pl->ku);
		if (ke != KU_OK) {
			pl->st.ku = ke;
			return fail(pl, CTRL_E_KUNIT, CTRL_R_KUNIT, -1);
		}
		pl->have_ku = 1;
		pl->ku_len = pl->ku.len;
	}
	pl->ntds = p->ntds;
	int patched = 0;
	for (unsigned i = 0; i < p->ntds; i++) {
		pl->st.td = (int)i;
		enum ctrl_err e = plan_td(pl, i, &img);
		if (e)
			return e;
		if (pl->have_ku) {
			e = plan_kunit(pl, i, &p->tds[i], sc, &patched);
			if (e)
				return e;
		}
		for (unsigned r = 0; r < pl->td[i].nranges; r++)
			pl->bars_used |= 1u << pl->td[i].r[r].bar;
	}
	pl->st.td = -1;
	if (pl->have_ku && !patched)
		return fail(pl, CTRL_E_COEFF_NO_BAR, CTRL_R_KUNIT, -1);
	enum pol_err ae = pol_check_aliasing(&pl->pol);
	if (ae != POL_OK)
		return fail_pol(pl, ae, -1, -1, -1);
	for (unsigned b = 0; b < LDR_NBARS; b++)
		if (pl->bars_used & (1u << b))
			pl->bar_runtime[b] = pl->pol.buf[b].mapped;
	pl->ku_dev = pl->have_ku ? sc->ku_dev : 0;
	return CTRL_OK;
}

uint32_t ctrl_td_word(const struct ctrl_plan *pl, unsigned td, uint32_t area_off, uint32_t orig)
{
	if (td >= pl->ntds)
		return orig;
	const struct ctrl_td_plan *t = &pl->td[td];
	for (unsigned i = 0; i < t->npatch; i++)
		if (t->patch[i].area_off == area_off)
			return t->patch[i].value;
	return orig;
}

/* ---- default grants ---- */
static int add_grant(struct subq_grant *g, unsigned *n, unsigned max, unsigned bar, uint64_t dva,
		     uint64_t size, unsigned access)
{
	for (unsigned i = 0; i < *n; i++)
		if (g[i].bar == bar) {
			if (size > g[i].size)
				g[i].size = size;
			g[i].access |= access;
			return 0;
		}
	if (*n >= max)
		return -1;
	g[(*n)++] = (struct subq_grant){bar, access, 0, 0, dva, size, 0};
	return 0;
}

int ctrl_default_grants(const struct ldr_program *p, struct subq_grant *g, unsigned max,
			struct ctrl_status *err)
{
	static struct ldr_regimage img;
	unsigned n = 0;
	struct ctrl_status st = {CTRL_OK, POL_OK, KU_OK, -1, -1, -1, -1};
	if (!p || !g || !p->gen || !p->gen->blocks) {
		st.err = !p || !g ? CTRL_E_ARG : CTRL_E_UNSUPPORTED;
		goto bad;
	}
	if (!p->raw) {
		for (unsigned i = 0; i < p->nwindows; i++) {
			const struct ldr_window *w = &p->windows[i];
			if (w->bar < 0)
				continue;
			unsigned acc = w->initprot == LDR_WIN_INPUT ? POL_READ
				       : w->initprot == LDR_WIN_OUTPUT ? POL_WRITE : POL_RW;
			if (add_grant(g, &n, max, (unsigned)w->bar, p->bars[w->bar], w->size, acc))
				goto many;
		}
		for (unsigned b = 0; b < LDR_NBARS; b++) {
			if (!p->bars[b])
				continue;
			if (p->text_sect >= 0 && p->bars[b] == p->sects[p->text_sect].addr) {
				if (add_grant(g, &n, max, b, p->bars[b], p->td_area_len, POL_READ))
					goto many;
			} else if (p->weights_sect >= 0 && p->weights_len &&
				   p->bars[b] == p->sects[p->weights_sect].addr) {
				if (add_grant(g, &n, max, b, p->bars[b], p->weights_len, POL_READ))
					goto many;
			}
		}
		if (err)
			*err = st;
		return (int)n;
	}
	/* raw stream: the kernel BARs get the weights, other read BARs the TD area, the tensor
	 * BARs the extents the TDs declare */
	for (unsigned i = 0; i < p->ntds; i++) {
		const struct ldr_td *td = &p->tds[i];
		struct tensor in, out;
		st.td = (int)i;
		if (ldr_td_image(p, i, &img) != LDR_OK) {
			st.err = CTRL_E_ARG;
			goto bad;
		}
		get_tensors(p, &img, &in, &out);
		uint32_t srccfg = ldr_image_get(p, &img, R_SRC), dstcfg = ldr_image_get(p, &img, R_DST);
		for (unsigned k = 0; k < 3; k++) {
			static const uint8_t bit[3] = {BIT_RBE0, BIT_RBE1, BIT_WBE};
			if (!(td->bar_en & bit[k]) || !((k < 2 ? srccfg : dstcfg) & 1u))
				continue;
			const struct tensor *t = k < 2 ? &in : &out;
			uint32_t r = k < 2 ? R_SRC : R_DST, o = k < 2 ? 8 : 4;
			uint64_t ext, end;
			if (!t->elem) {
				st.err = CTRL_E_FORMAT;
				goto bad;
			}
			enum pol_err pe = tile_extent(t, ADDR_FIELD(ldr_image_get(p, &img, r + o + 4)),
						      ADDR_FIELD(ldr_image_get(p, &img, r + o + 8)),
						      ADDR_FIELD(ldr_image_get(p, &img, r + o + 12)),
						      ADDR_FIELD(ldr_image_get(p, &img, r + o + 16)), &ext);
			if (pe == POL_OK && pol_add_ovf(ADDR_FIELD(ldr_image_get(p, &img, r + o)), ext, &end))
				pe = POL_ERR_OVERFLOW;
			if (pe != POL_OK) {
				st.err = CTRL_E_POLICY;
				st.pol = pe;
				goto bad;
			}
			if (add_grant(g, &n, max, td->bar_idx[k], 0, end, k < 2 ? POL_READ : POL_WRITE))
				goto many;
		}
		for (unsigned b = 3; b < 8; b++) {
			if (!(td->bar_en & (1u << b)))
				continue;
			uint64_t size = b >= 4 ? p->weights_len : p->td_area_len;
			if (size && add_grant(g, &n, max, td->bar_idx[b], 0, size, POL_READ))
				goto many;
		}
	}
	if (err)
		*err = (struct ctrl_status){CTRL_OK, POL_OK, KU_OK, -1, -1, -1, -1};
	return (int)n;
many:
	st.err = CTRL_E_GRANTS;
bad:
	if (err)
		*err = st;
	return -1;
}
