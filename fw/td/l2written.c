/*
 * What a submission's TDs wrote to L2 memory (docs/engine-model.md, "L2 memory and broadcasts"):
 * a bit per fp16 value and a bit per one-byte element (struct td_l2bits), and what each TD reads
 * and writes there, as engine/model/compute.c's paths do, so that a read of a value no TD of the
 * submission wrote is refused by the one rule in both the model and inspect's walks.
 *  - td_l2bits_row_unwritten, td_l2bits_row_write16, td_l2bits_row_write8: one row of a view,
 *    the model's l2m_read_row and l2m_write_row / l2m_write_bytes (which keep the values beside);
 *  - td_l2written_walk: one TD whole (the rows a TD keeps as it reads them, SourceType 1; then
 *    each read of its operands; then its result's writes), for inspect's walks (fw/td op.c
 *    td_print_op_walk), with the model's refusal text for the first read of a value no TD wrote.
 * Pure register logic; the caller owns the bits (TD_L2BITS_W16_BYTES and TD_L2BITS_W8_BYTES).
 */
#include "fw/td/td.h"

#include <stdlib.h>
#include <string.h>

#define GET(a) (r->get(r->ctx, (a)))

static int bit(const uint8_t *m, uint32_t i)
{
	return m[i / 8u] >> (i % 8u) & 1u;
}

/* row (g, c, h)'s first byte address, and the step from one value to the next (0: broadcast
 * along W; C with W swapped: the channel stride), as td_l2view_addr walks it */
static uint32_t row_at(const struct td_l2view *v, uint32_t g, uint32_t c, uint32_t h, uint32_t *step)
{
	*step = (v->bcast & H13_BCAST_W) ? 0u : v->transpose ? v->cs : v->elem;
	return td_l2view_addr(v, g, c, h, 0);
}

long td_l2bits_row_unwritten(const struct td_l2bits *b, const struct td_l2view *v, uint32_t g, uint32_t c,
			     uint32_t h, uint32_t w)
{
	uint32_t step;
	uint32_t a = row_at(v, g, c, h, &step);
	if (!step && w) /* (every value the same one) */
		w = 1;
	for (uint32_t i = 0; i < w; i++, a += step)
		if (v->elem == 1 ? !b->w8 || !bit(b->w8, a) : !bit(b->w16, a / 2u))
			return (long)a;
	return -1;
}

void td_l2bits_row_write16(struct td_l2bits *b, const struct td_l2view *v, uint32_t g, uint32_t c, uint32_t h,
			   uint32_t w)
{
	uint32_t step;
	const uint32_t a0 = row_at(v, g, c, h, &step);
	if (!step && w)
		w = 1;
	for (uint32_t i = 0; i < w; i++) {
		const uint32_t a = (a0 + i * step) / 2u;
		b->w16[a / 8u] |= (uint8_t)(1u << (a % 8u));
		if (b->w8) /* (its two bytes no longer one-byte elements) */
			b->w8[a / 4u] &= (uint8_t)~(3u << (2u * a % 8u));
	}
}

void td_l2bits_row_write8(struct td_l2bits *b, const struct td_l2view *v, uint32_t g, uint32_t c, uint32_t h,
			  uint32_t w)
{
	uint32_t step;
	uint32_t a = row_at(v, g, c, h, &step);
	if (!step && w)
		w = 1;
	for (uint32_t i = 0; i < w; i++, a += step) {
		b->w8[a / 8u] |= (uint8_t)(1u << (a % 8u));
		b->w16[a / 16u] &= (uint8_t)~(1u << (a / 2u % 8u)); /* (the fp16 cell no longer whole) */
	}
}

/* ---- one TD whole, as compute_td's paths read and write ---- */

struct walk {
	struct td_l2bits *b;
	struct td_refusal *no;
	long *at;
	uint64_t n; /* values read and written so far (TD_L2_WALK_MAX) */
};

/* w more values of view v (one along a broadcast W): 1 when past the walk's bound */
static int spend(struct walk *k, const struct td_l2view *v, uint32_t w)
{
	k->n += (v->bcast & H13_BCAST_W) ? 1u : w;
	return k->n > TD_L2_WALK_MAX;
}

/* row (g, c, h) of w values read through view v: the model's refusal at the first value no TD
 * wrote (1: refused) */
static int row(struct walk *k, const struct td_l2view *v, uint32_t base_reg, const char *what, uint32_t g,
	       uint32_t c, uint32_t h, uint32_t w)
{
	if (k->no->why || k->b->lost)
		return 1;
	if (spend(k, v, w)) {
		k->b->lost = 1;
		return 1;
	}
	const long a = td_l2bits_row_unwritten(k->b, v, g, c, h, w);
	if (a < 0)
		return 0;
	td_refuse(k->no, TD_RF_COMBINATION, base_reg, H13_L2_ADDR_LSB, H13_L2_ADDR_W, what);
	*k->at = a;
	return 1;
}

static void writes16(struct walk *k, const struct td_l2view *v, uint32_t g0, uint32_t c0, uint32_t h0,
		     uint32_t w)
{
	for (uint32_t g = 0; g < g0; g++)
		for (uint32_t c = 0; c < c0; c++)
			for (uint32_t h = 0; h < h0; h++) {
				if (k->b->lost || spend(k, v, w)) {
					k->b->lost = 1;
					return;
				}
				td_l2bits_row_write16(k->b, v, g, c, h, w);
			}
}

/* SourceType 1: the tile source's rows kept at the first operand's view (l2m_keep_rows) */
static void keep(struct walk *k, const struct td_l2view *v)
{
	struct td_l2bits *b = k->b;
	if (v->elem == 1 && !b->w8)
		return; /* (the caller gave no byte map: inspect's walks give both) */
	for (uint32_t g = 0; g < v->g; g++)
		for (uint32_t c = 0; c < v->c; c++)
			for (uint32_t h = 0; h < v->h; h++) {
				if (b->lost || spend(k, v, v->w)) {
					b->lost = 1;
					return;
				}
				if (v->elem == 1)
					td_l2bits_row_write8(b, v, g, c, h, v->w);
				else
					td_l2bits_row_write16(b, v, g, c, h, v->w);
			}
}

/* A reduction (reduce_planes): each plane's D x H rows of W from the first operand's view (or the
 * tile, kept at it), and the second's (a reduction of two operands), one value a plane after. */
static void reduction(struct walk *k, const struct td_kept *kp, const struct td_l2mem *l,
		      const struct td_tile_geom *in)
{
	if (l->keep1) /* (rows kept as read, as fp16: every plane's, before any read of the second) */
		for (uint32_t d = 0; d < kp->d; d++) {
			const struct td_l2view v = td_l2view_at_depth(&l->src1, d);
			writes16(k, &v, in->g, in->c, kp->h, kp->w);
		}
	const int two = kp->two && kp->kind != TD_KEPT_MAX && kp->kind != TD_KEPT_MIN;
	for (uint32_t g = 0; g < in->g; g++)
		for (uint32_t c = 0; c < in->c; c++)
			for (uint32_t d = 0; d < kp->d; d++) {
				const struct td_l2view v1 = td_l2view_at_depth(&l->src1, d),
							 v2 = td_l2view_at_depth(&l->src2, d);
				for (uint32_t h = 0; h < kp->h; h++) {
					if (l->src1.on && !l->keep1 &&
					    row(k, &v1, H13_L2_SOURCEBASE, "a reduction reads L2 memory no TD of "
						"this submission wrote", g, c, h, kp->w))
						return;
					if (two && l->src2.on &&
					    row(k, &v2, H13_L2_SOURCE2BASE, "a reduction's second operand reads L2 "
						"memory no TD of this submission wrote", g, c, h, kp->w))
						return;
				}
			}
	if (l->res.on)
		writes16(k, &l->res, in->g, in->c, 1, 1);
}

/* one TD, as compute_td's paths read and write L2 memory */
static void walk_td(const struct td_regs *r, unsigned bar_en, struct walk *k)
{
	struct td_kept kp;
	struct td_l2mem l;
	td_kept_of(r, bar_en, &kp);
	if (kp.no.why)
		return;
	td_l2mem_of(r, bar_en, &kp, &l);
	if (l.no.why || !l.any)
		return;
	struct td_tile_geom in, out;
	td_tile_geom_of(r, TD_R_SRC0, &in);
	td_tile_geom_of(r, TD_R_DST, &out);
	if (kp.role == TD_KEPT_MAKES) {
		reduction(k, &kp, &l, &in);
		return;
	}
	/* nothing leaves the engine: the model computes nothing, keeps nothing (compute's early
	 * return; td_result_nowhere_refusal refuses the rest) */
	if (!td_dst_writes(bar_en) && !l.res.on &&
	    H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) != H13_L2_RESIDENT)
		return;
	/* the path compute_td takes (decode_ne's NE: none as a pass-through) */
	const uint32_t mac = GET(H13_NE_MACCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	const int ne = mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r));
	const int unit = ne && op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE);
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	const uint32_t gc = GET(H13_COMMON_GROUPCONVCFG);
	const int sum = op == H13_MAC_OP_CONV && unit && td_window_unit(&win) && td_unit_sum(in.c, out.c, gc);
	const int resident_src = H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE) == H13_L2_RESIDENT;
	static const char first[] = "the first operand reads L2 memory no TD of this submission wrote";
	if (l.keep1)
		keep(k, &l.src1);
	const int groups = ne && (op == H13_MAC_OP_RCAS || op == H13_MAC_OP_CHMAX || sum);
	if (!groups && ne && op == H13_MAC_OP_CONV && !unit && !resident_src) { /* conv_l2 */
		for (uint32_t g = 0; l.src1.on && g < in.g; g++)
			for (uint32_t c = 0; c < in.c; c++)
				for (uint32_t h = 0; h < in.h; h++)
					if (row(k, &l.src1, H13_L2_SOURCEBASE, "a convolution reads L2 memory no TD "
						"of this submission wrote", g, c, h, in.w))
						goto done;
		goto done;
	}
	/* ne_channel_groups (output channel c from input channels cn .. cn + n - 1), or
	 * l2mem_elementwise: the first operand, then the pair or the PE's second, row by row */
	const uint32_t n = !groups ? 1u : sum ? in.c : H13_GET(gc, H13_GROUPCONV_UNICASTCIN);
	const int two = !groups && !l.pair && l.src2.on && td_pe_in_path(GET(H13_COMMON_CFG)) &&
			td_pe_two_operands(GET(H13_PLANAR_CFG));
	static const char pair[] = "a normalize's pair reads L2 memory no TD of this submission wrote";
	struct td_l2view p1 = l.src2;
	p1.base += l.src2.rs;
	for (uint32_t g = 0; g < out.g; g++)
		for (uint32_t c = 0; c < out.c; c++)
			for (uint32_t h = 0; h < out.h; h++) {
				for (uint32_t j = 0; l.src1.on && j < n; j++)
					if (row(k, &l.src1, H13_L2_SOURCEBASE, first, g, c * n + j, h, out.w))
						goto done;
				if (!groups && l.pair && (row(k, &l.src2, H13_L2_SOURCE2BASE, pair, g, c, h, out.w) ||
							  row(k, &p1, H13_L2_SOURCE2BASE, pair, g, c, h, out.w)))
					goto done;
				if (two && row(k, &l.src2, H13_L2_SOURCE2BASE, "the second operand reads L2 memory "
					       "no TD of this submission wrote", g, c, h, out.w))
					goto done;
			}
done:
	/* a TD refused for its read writes nothing: the model stops there (a seventh review: the
	 * TDs after it were printed as reading what it would have written) */
	if (l.res.on && !k->no->why)
		writes16(k, &l.res, out.g, out.c, out.h, out.w * td_conv_ox(r, bar_en)); /* (Ox x Wout: td_conv_ox) */
}

int td_l2written_walk(const struct td_regs *r, unsigned bar_en, struct td_l2bits *b, struct td_refusal *no,
		      long *at)
{
	*at = -1;
	if (!b || !b->w16 || b->lost)
		return 0;
	struct walk k = {b, no, at, 0};
	walk_td(r, bar_en, &k);
	return b->lost;
}

void td_residents_begin(struct td_residents *res)
{
	memset(res, 0, sizeof *res);
	res->l2.w16 = calloc(TD_L2BITS_W16_BYTES, 1);
	res->l2.w8 = res->l2.w16 ? calloc(TD_L2BITS_W8_BYTES, 1) : NULL;
	if (!res->l2.w8) {
		free(res->l2.w16);
		res->l2.w16 = NULL;
	}
}

void td_residents_end(struct td_residents *res)
{
	free(res->l2.w16);
	free(res->l2.w8);
	res->l2.w16 = res->l2.w8 = NULL;
}
