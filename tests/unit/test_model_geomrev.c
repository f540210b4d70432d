/*
 * The tile DMA's geometry where a destination is written channel-interleaved or transposed
 * (docs/engine-model.md, "What a third review found": the tile DMA rows), end to end (raw TDs
 * built by tools/progdesc's bp_pen, the loader, the control path, the engine driver, the model).
 * Each case beside a control that completes, so the refusal comes from the field tested:
 *  - a destination written interleaved (TileDMADst.Fmt.Interleave 8) whose rows of W x 8 values
 *    overlap one another (RowStride under a row's bytes): the model's last write won, where a
 *    plain destination so is refused;
 *  - a destination in its source's place (the same base and strides) that is not the source
 *    element for element: read interleaved and written plain, or written transposed
 *    (Common.Cfg.OutTranspose). The model computed the whole result before writing any of it, an
 *    order no program or document pins; only an elementwise TD element for element in place is.
 * The controls' values are the definition: a copy (the PE with identity scales) of multiples of
 * 1/64, exact in fp16, each at its layout's offset. Further down, from the same review: a one-byte
 * source under softmax.bin's Fmt word, and an activation record with a table word no real record
 * has, each refused beside its control; from the twelfth review, frac or int on a signed x, and a
 * nonzero byte after a record's 43 slots.
 */
#include "tests/unit/tsession.h"
#include "fw/actlut/actlut.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <string.h>

#define GR_C 16u
#define GR_H 3u
#define GR_W 21u
/* the interleaved-by-8 rows (W x 8 fp16 in 64-byte lines) and planes */
#define GR_ROW8 ((GR_W * 8u * 2u + 63u) & ~63u)
#define GR_PLANE8 (GR_ROW8 * GR_H)

static uint8_t prog[4 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];

/* gr_in's value times 64: -512 .. 511 */
static int gr_q(unsigned c, unsigned h, unsigned w)
{
	uint32_t k = (c * 104729u + h * 1299709u + w * 15485863u) * 2654435761u;
	return (int)(k >> 22) - 512;
}

/* q / 64 for |q| < 1024, exact in fp16 (the value's own bits built here) */
static uint16_t gr_q64(int q)
{
	if (!q)
		return 0;
	unsigned a = (unsigned)(q < 0 ? -q : q), e = 0;
	while ((a >> e) > 1u)
		e++; /* a in [2^e, 2^(e+1)) */
	/* a / 64 = (a / 2^e) 2^(e - 6): exponent field e - 6 + 15, mantissa a's bits below e */
	uint16_t mant = (uint16_t)((a << (10u - e)) & 0x3ffu);
	return (uint16_t)((q < 0 ? 0x8000u : 0u) | ((e + 9u) << 10) | mant);
}

/* multiples of 1/64 in [-8, 8): exact in fp16 */
static uint16_t gr_in(unsigned c, unsigned h, unsigned w)
{
	return gr_q64(gr_q(c, h, w));
}

struct gr_run {
	unsigned c, w;     /* BAR 5's channels and columns (GR_H rows of bp_row(w) bytes) */
	int layout;        /* BAR 3's (or BAR 4's) layout the checker reads: 0 plain, 8 interleaved,
			    * 'T' transposed (plain, rows of C values) */
	unsigned out_bar;  /* the BAR the checker reads */
	uint64_t checked, bad;
};

static void gr_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	const struct gr_run *r = ctx;
	if (is_weights || g->bar != BP_IN0_BAR)
		return;
	const uint32_t row = bp_row(r->w);
	for (unsigned c = 0; c < r->c; c++)
		for (unsigned h = 0; h < GR_H; h++)
			for (unsigned w = 0; w < r->w; w++)
				le_wr16(buf + (c * GR_H + h) * row + 2u * w, gr_in(c, h, w));
}

static void gr_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct gr_run *r = ctx;
	if (is_weights || g->bar != r->out_bar)
		return;
	for (unsigned c = 0; c < r->c; c++)
		for (unsigned h = 0; h < GR_H; h++)
			for (unsigned w = 0; w < r->w; w++) {
				uint64_t off;
				if (r->layout == 8)
					off = (uint64_t)(c / 8u) * GR_PLANE8 + (uint64_t)h * GR_ROW8 + (8u * w + c % 8u) * 2u;
				else if (r->layout == 'T') /* (c, h, w) at (w, h, c): W planes of H rows of C */
					off = ((uint64_t)w * GR_H + h) * bp_row(r->c) + 2u * c;
				else
					off = ((uint64_t)c * GR_H + h) * bp_row(r->w) + 2u * w;
				r->checked++;
				r->bad += off + 2u > g->size || le_rd16(buf + off) != gr_in(c, h, w);
			}
}

static int gr_submit(size_t len, struct gr_run *r, char *fault, size_t fl)
{
	struct session_result res;
	const struct session_hooks hk = {gr_fill, gr_check, r, 0};
	r->checked = r->bad = 0;
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, &res);
	snprintf(fault, fl, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	CHECK(res.canaries_ok);
	return rc == 0 && res.run == ENG_OK ? 0 : -1;
}

/* TD td's destination (dst) or source written interleaved by ilv (its tile DMA's Fmt and its L2
 * side alike) with rows and planes of row and plane bytes: 0, or -1 when a field is not set. */
static int gr_ilv(size_t len, unsigned td, int dst, unsigned ilv, uint32_t row, uint32_t plane)
{
	const uint32_t fmt = dst ? H13_DST_FMT : H13_SRC_FMT, l2 = dst ? H13_L2_RESULTCFG : H13_L2_SOURCECFG;
	return tpatch_field(prog, len, td, fmt, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, ilv) ||
			       tpatch_field(prog, len, td, l2, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W, ilv) ||
			       tpatch_field(prog, len, td, dst ? H13_DST_ROWSTRIDE : H13_SRC_ROWSTRIDE, 0, 32, row) ||
			       tpatch_field(prog, len, td, dst ? H13_DST_PLANESTRIDE : H13_SRC_PLANESTRIDE, 0, 32, plane)
		       ? -1
		       : 0;
}

static size_t gr_build(const struct bp_pe_spec *t, unsigned n)
{
	const struct bp_pe_spec *p[4];
	for (unsigned i = 0; i < n && i < 4; i++)
		p[i] = &t[i];
	return bp_pen(prog, sizeof prog, p, n);
}

#define OVERLAP_TEXT "a destination whose bytes overlap a tile source's"
#define SELF_TEXT "a destination whose rows, planes, depths or groups overlap one another"

TEST(model_geomrev, an_interleaved_destination_whose_rows_overlap_is_refused)
{
	char f[512];
	const struct bp_pe_spec t = bp_pe_copy(GR_C, GR_H, GR_W, BP_IN0_BAR, BP_OUT_BAR);
	/* control: rows of 21 x 8 fp16 (336 bytes) 384 bytes apart, every value at the rule's offset */
	size_t len = gr_build(&t, 1);
	REQUIRE(len > 0);
	REQUIRE(gr_ilv(len, 0, 1, 8, GR_ROW8, GR_PLANE8) == 0);
	struct gr_run r = {.c = GR_C, .w = GR_W, .layout = 8, .out_bar = BP_OUT_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) == 0, "control: %s", f);
	CHECK_EQ(r.checked, (uint64_t)GR_C * GR_H * GR_W);
	CHECKF(r.bad == 0, "control: %lu off", (unsigned long)r.bad);
	/* RowStride 64: each row of 336 bytes runs over the next five */
	len = gr_build(&t, 1);
	REQUIRE(gr_ilv(len, 0, 1, 8, 64, GR_PLANE8) == 0);
	r = (struct gr_run){.c = GR_C, .w = GR_W, .layout = 8, .out_bar = BP_OUT_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) != 0 && strstr(f, SELF_TEXT), "rows 64 apart: \"%s\"", f);
	/* PlaneStride one row: the second group of 8 channels over the first's rows 1 and 2 */
	len = gr_build(&t, 1);
	REQUIRE(gr_ilv(len, 0, 1, 8, GR_ROW8, GR_ROW8) == 0);
	CHECKF(gr_submit(len, &r, f, sizeof f) != 0 && strstr(f, SELF_TEXT), "planes a row apart: \"%s\"", f);
}

TEST(model_geomrev, a_destination_in_place_read_interleaved_and_written_plain_is_refused)
{
	char f[512];
	/* TD 0: x into BAR 3 interleaved by 8; TD 1: BAR 3 onto itself, read interleaved by 8 */
	struct bp_pe_spec t[2] = {bp_pe_copy(GR_C, GR_H, GR_W, BP_IN0_BAR, BP_MID_BAR),
				  bp_pe_copy(GR_C, GR_H, GR_W, BP_MID_BAR, BP_MID_BAR)};
	/* control: written back interleaved by 8, element for element in place */
	size_t len = gr_build(t, 2);
	REQUIRE(len > 0);
	REQUIRE(gr_ilv(len, 0, 1, 8, GR_ROW8, GR_PLANE8) == 0 && gr_ilv(len, 1, 0, 8, GR_ROW8, GR_PLANE8) == 0 &&
		gr_ilv(len, 1, 1, 8, GR_ROW8, GR_PLANE8) == 0);
	struct gr_run r = {.c = GR_C, .w = GR_W, .layout = 8, .out_bar = BP_MID_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) == 0, "control: %s", f);
	CHECK_EQ(r.checked, (uint64_t)GR_C * GR_H * GR_W);
	CHECKF(r.bad == 0, "control: %lu off", (unsigned long)r.bad);
	/* written plain at the same base and strides: channel c's rows over other channels' values */
	len = gr_build(t, 2);
	REQUIRE(gr_ilv(len, 0, 1, 8, GR_ROW8, GR_PLANE8) == 0 && gr_ilv(len, 1, 0, 8, GR_ROW8, GR_PLANE8) == 0 &&
		gr_ilv(len, 1, 1, 1, GR_ROW8, GR_PLANE8) == 0);
	r = (struct gr_run){.c = GR_C, .w = GR_W, .layout = 0, .out_bar = BP_MID_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) != 0 && strstr(f, OVERLAP_TEXT), "interleaved in, plain out: \"%s\"", f);
	/* the same TD 1 into another BAR computes: plain, x */
	t[1].bar_out = BP_OUT_BAR;
	len = gr_build(t, 2);
	REQUIRE(gr_ilv(len, 0, 1, 8, GR_ROW8, GR_PLANE8) == 0 && gr_ilv(len, 1, 0, 8, GR_ROW8, GR_PLANE8) == 0);
	r = (struct gr_run){.c = GR_C, .w = GR_W, .layout = 0, .out_bar = BP_OUT_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) == 0, "another BAR: %s", f);
	CHECKF(r.bad == 0 && r.checked, "another BAR: %lu off", (unsigned long)r.bad);
}

TEST(model_geomrev, a_destination_in_place_written_transposed_is_refused)
{
	char f[512];
	/* C = W = 16, so the transposed destination has the source's shape and strides */
	struct bp_pe_spec t[2] = {bp_pe_copy(16, GR_H, 16, BP_IN0_BAR, BP_MID_BAR),
				  bp_pe_copy(16, GR_H, 16, BP_MID_BAR, BP_MID_BAR)};
	size_t len = gr_build(t, 2);
	REQUIRE(len > 0);
	struct gr_run r = {.c = 16, .w = 16, .layout = 0, .out_bar = BP_MID_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) == 0, "control (in place, not transposed): %s", f);
	CHECKF(r.bad == 0 && r.checked == 16u * GR_H * 16u, "control: %lu off", (unsigned long)r.bad);
	t[1].out_transpose = 1;
	len = gr_build(t, 2);
	REQUIRE(len > 0);
	r = (struct gr_run){.c = 16, .w = 16, .layout = 'T', .out_bar = BP_MID_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) != 0 && strstr(f, OVERLAP_TEXT), "transposed in place: \"%s\"", f);
	/* transposed into another BAR: x's (c, h, w) at (w, h, c) */
	t[1].bar_out = BP_OUT_BAR;
	len = gr_build(t, 2);
	REQUIRE(len > 0);
	r = (struct gr_run){.c = 16, .w = 16, .layout = 'T', .out_bar = BP_OUT_BAR};
	CHECKF(gr_submit(len, &r, f, sizeof f) == 0, "transposed elsewhere: %s", f);
	CHECKF(r.bad == 0 && r.checked == 16u * GR_H * 16u, "transposed elsewhere: %lu off", (unsigned long)r.bad);
}

/*
 * A one-byte source (Common.ChCfg.InFmt uint8) moved by a tile DMA whose Fmt is softmax.bin TD 4's
 * (FmtMode 1, Truncate 0, MemFmt 0), a word seen only on an fp16 tensor: the model read the bytes
 * as ChCfg says, where the fp16 word with a one-byte ChCfg is refused (two readings). The control:
 * the same TD with the UINT8 word (0, 0, 0) of Apple's bool programs, each byte b giving fp16(b).
 */
struct ob_run {
	uint64_t checked, bad;
};

static uint8_t ob_byte(unsigned h, unsigned w)
{
	return (uint8_t)((h * 16u + w) * 37u + 11u);
}

static void ob_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (is_weights || g->bar != BP_IN0_BAR)
		return;
	for (unsigned h = 0; h < 2; h++)
		for (unsigned w = 0; w < 16; w++)
			if (h * 64u + w < g->size)
				buf[h * 64u + w] = ob_byte(h, w);
}

static void ob_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct ob_run *r = ctx;
	if (is_weights || g->bar != BP_OUT_BAR)
		return;
	for (unsigned h = 0; h < 2; h++)
		for (unsigned w = 0; w < 16; w++) {
			/* b < 256 is exact in fp16: b = 1.m x 2^e, the bits built from b */
			unsigned b = ob_byte(h, w), e = 0;
			while (b && (b >> e) > 1u)
				e++;
			uint16_t want = b ? (uint16_t)(((e + 15u) << 10) | ((b << (10u - e)) & 0x3ffu)) : 0u;
			r->checked++;
			r->bad += h * 64u + 2u * w + 2u > g->size || le_rd16(buf + h * 64u + 2u * w) != want;
		}
}

static int ob_submit(uint32_t src_fmt, struct ob_run *r, char *f, size_t fl)
{
	const struct bp_pe_spec t = bp_pe_copy(1, 2, 16, BP_IN0_BAR, BP_OUT_BAR);
	size_t len = gr_build(&t, 1);
	if (!len || tpatch_field(prog, len, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W, H13_FMT_UINT8) ||
	    tpatch_field(prog, len, 0, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0) ||
	    tpatch_field(prog, len, 0, H13_SRC_FMT, 0, 14, src_fmt)) {
		snprintf(f, fl, "the program could not be built");
		return -2;
	}
	struct session_result res;
	const struct session_hooks hk = {ob_fill, ob_check, r, 0};
	*r = (struct ob_run){0, 0};
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, &res);
	snprintf(f, fl, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	CHECK(res.canaries_ok);
	return rc == 0 && res.run == ENG_OK ? 0 : -1;
}

TEST(model_geomrev, a_one_byte_source_under_softmax_bins_fmt_word_is_refused)
{
	char f[512];
	struct ob_run r;
	CHECKF(ob_submit(TD_TILE_FMT_UINT8, &r, f, sizeof f) == 0, "control (UINT8): %s", f);
	CHECK_EQ(r.checked, 32u);
	CHECKF(r.bad == 0, "control: %lu off", (unsigned long)r.bad);
	CHECKF(ob_submit(H13_PUT(H13_FMT_FMTMODE, 1u), &r, f, sizeof f) != 0 && strstr(f, "TileDMASrc.Fmt"),
	       "FmtMode 1 alone on a uint8 tensor: \"%s\"", f);
}

/*
 * The activation LUT's record with a table word no real record has (docs/actlut.md: operation 1
 * on |x|, 0x61): the model read its knots from index 16 of |x|, an offset no record pins, and
 * completed. Refused now at the record (actlut-unpinned-word); the control, tanh's own word 0x60
 * (bp_act_n's record), computes.
 */
TEST(model_geomrev, an_activation_record_with_an_unpinned_table_word_is_refused)
{
	static uint8_t p[BP_WEIGHTS_OFF + ACTLUT_STRIDE];
	char f[512];
	struct gr_run r = {.out_bar = 99}; /* no check: the record's values are test_actlut's */
	size_t len = bp_act_n(p, sizeof p, 16, 2, 4, 1);
	REQUIRE(len > 0 && len <= sizeof prog);
	memcpy(prog, p, len);
	CHECKF(gr_submit(len, &r, f, sizeof f) == 0, "control (0x60): %s", f);
	le_wr16(prog + BP_WEIGHTS_OFF + 2 * ACTLUT_MODE, 0x61);
	CHECKF(gr_submit(len, &r, f, sizeof f) != 0 && strstr(f, "no real record has"), "0x61: \"%s\"", f);
}

/*
 * The twelfth review: frac and int (operations 3 and 4) on x itself (no |x|, bit 6), with an input
 * clamp that admits a negative x. The real records (ceil.bin's and Apple's floor's 0x63 and 0x64)
 * split |x|, where floor and trunc agree; below 0 the model read n = floor(x) and completed, a
 * number nothing pins (x - floor(x) of -2.5 is 0.5, x - trunc(x) is -0.5). Refused now at the
 * record (actlut-unpinned-signed-split, slot 42). Controls, values from the definitions: ceil.bin
 * TD 0's record (0x63, clamp [-inf, inf]) gives x - trunc(x) and its int twin (0x64) trunc(x); 0x03
 * and 0x04 with the clamp [0, inf] give 0 below 0 and x - floor(x), floor(x) at and above it.
 */
struct fs_run {
	int want;     /* 0x63 x - trunc(x), 0x64 trunc(x), 0x03 / 0x04 of max(x, 0) */
	uint64_t checked, bad;
};

#define FS_C 4u

static void fs_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (is_weights || g->bar != BP_IN0_BAR)
		return;
	for (unsigned c = 0; c < FS_C; c++)
		for (unsigned h = 0; h < GR_H; h++)
			for (unsigned w = 0; w < GR_W; w++)
				le_wr16(buf + (c * GR_H + h) * bp_row(GR_W) + 2u * w, gr_in(c, h, w));
}

static void fs_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct fs_run *r = ctx;
	if (is_weights || g->bar != BP_OUT_BAR)
		return;
	for (unsigned c = 0; c < FS_C; c++)
		for (unsigned h = 0; h < GR_H; h++)
			for (unsigned w = 0; w < GR_W; w++) {
				const uint64_t off = ((uint64_t)c * GR_H + h) * bp_row(GR_W) + 2u * w;
				int q = gr_q(c, h, w), t = q / 64 * 64; /* C's division truncates: trunc(x) * 64 */
				if (r->want == 0x03 || r->want == 0x04)
					q = q < 0 ? 0 : q, t = q / 64 * 64; /* clamped to [0, inf]: floor = trunc */
				const int want = (r->want == 0x63 || r->want == 0x03) ? q - t : t;
				r->checked++;
				if (off + 2u > g->size) {
					r->bad++;
					continue;
				}
				/* a zero of either sign is the value 0 (the sign of frac's zero is not the point) */
				const uint16_t got = le_rd16(buf + off);
				r->bad += want ? got != gr_q64(want) : (got & 0x7fffu) != 0;
			}
}

/* fs_submit with byte pad_at (86..127: after the slots) of the record set to pad (0: none) */
static int fs_submit_pad(size_t len, uint16_t word, uint16_t in_lo, unsigned pad_at, uint8_t pad,
			 struct fs_run *r, char *f, size_t fl)
{
	uint8_t *rec = prog + BP_WEIGHTS_OFF;
	memset(rec, 0, ACTLUT_STRIDE); /* ceil.bin TD 0's slots: clamp [-inf, inf], the rest 0 */
	le_wr16(rec + 2 * ACTLUT_IN_LO, in_lo);
	le_wr16(rec + 2 * ACTLUT_IN_HI, 0x7c00u);
	le_wr16(rec + 2 * ACTLUT_MODE, word);
	if (pad)
		rec[pad_at] = pad;
	struct session_result res;
	const struct session_hooks hk = {fs_fill, fs_check, r, 0};
	r->want = word;
	r->checked = r->bad = 0;
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &hk, &res);
	snprintf(f, fl, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	CHECK(res.canaries_ok);
	return rc == 0 && res.run == ENG_OK ? 0 : -1;
}

static int fs_submit(size_t len, uint16_t word, uint16_t in_lo, struct fs_run *r, char *f, size_t fl)
{
	return fs_submit_pad(len, word, in_lo, 0, 0, r, f, fl);
}

TEST(model_geomrev, frac_or_int_on_a_signed_x_is_refused)
{
	static uint8_t p[BP_WEIGHTS_OFF + ACTLUT_STRIDE];
	char f[512];
	struct fs_run r;
	const size_t len = bp_act_n(p, sizeof p, GR_W, GR_H, FS_C, 1);
	REQUIRE(len > 0 && len <= sizeof prog);
	memcpy(prog, p, len);
	static const uint16_t ctl[][2] = {{0x63, 0xfc00u}, {0x64, 0xfc00u}, {0x03, 0x0000u}, {0x04, 0x0000u}};
	for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++) {
		CHECKF(fs_submit(len, ctl[i][0], ctl[i][1], &r, f, sizeof f) == 0, "control 0x%02x: %s", ctl[i][0], f);
		CHECK_EQ(r.checked, (uint64_t)FS_C * GR_H * GR_W);
		CHECKF(r.bad == 0, "control 0x%02x: %lu of %lu off", ctl[i][0], (unsigned long)r.bad,
		       (unsigned long)r.checked);
	}
	/* the clamp admits x < 0: -inf, -1, and the smallest subnormal */
	static const uint16_t bad[][2] = {{0x03, 0xfc00u}, {0x04, 0xfc00u}, {0x03, 0xbc00u}, {0x04, 0x8001u}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECKF(fs_submit(len, bad[i][0], bad[i][1], &r, f, sizeof f) != 0 && strstr(f, "floor(x) or trunc(x)"),
		       "0x%02x with in_lo 0x%04x: \"%s\"", bad[i][0], bad[i][1], f);
}

/*
 * The record's last 42 bytes (docs/actlut.md, "The record's last 42 bytes"): bytes 86..127 of the
 * 0x80 stride after the 43 slots were never read, so a nonzero byte there was accepted and the TD
 * completed. Every real record has them zero (the fixtures', the sweeps' streams', and Apple's
 * compiler's 128-byte tables by their published hashes); what the engine reads there is not
 * known. Refused now at the record (actlut-nonzero-padding), the fault naming the 16-bit slot past
 * 42 that holds the byte and its value. Control: ceil.bin TD 0's record (0x63) with the bytes zero
 * gives x - trunc(x), from the definition.
 */
TEST(model_geomrev, an_activation_record_with_a_nonzero_byte_after_its_slots_is_refused)
{
	static uint8_t p[BP_WEIGHTS_OFF + ACTLUT_STRIDE];
	char f[512], want[64];
	struct fs_run r;
	const size_t len = bp_act_n(p, sizeof p, GR_W, GR_H, FS_C, 1);
	REQUIRE(len > 0 && len <= sizeof prog);
	memcpy(prog, p, len);
	CHECKF(fs_submit_pad(len, 0x63, 0xfc00u, 0, 0, &r, f, sizeof f) == 0, "control: %s", f);
	CHECK_EQ(r.checked, (uint64_t)FS_C * GR_H * GR_W);
	CHECKF(r.bad == 0, "control: %lu of %lu off", (unsigned long)r.bad, (unsigned long)r.checked);
	/* the first byte after the slots, one in the middle, the last of the stride; low and high
	 * bits, each byte the low or the high half of its slot */
	static const struct {
		unsigned at;
		uint8_t v;
		unsigned slot, slot_value;
	} bad[] = {{86, 0x01, 43, 0x0001}, {101, 0x80, 50, 0x8000}, {127, 0x3c, 63, 0x3c00}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(want, sizeof want, "slot %u = 0x%04x", bad[i].slot, bad[i].slot_value);
		CHECKF(fs_submit_pad(len, 0x63, 0xfc00u, bad[i].at, bad[i].v, &r, f, sizeof f) != 0 &&
			       strstr(f, "a nonzero byte after the record's 43 slots") && strstr(f, want) &&
			       strstr(f, "CoeffBaseAddr[0]"),
		       "byte %u = 0x%02x: \"%s\" (want \"%s\")", bad[i].at, bad[i].v, f, want);
	}
}

/* A record of ceil.bin TD 0's form (clamp [in_lo, inf], the rest 0) with slot 42 = word, knot
 * `knot` set to kv (knot < 0: none), submitted with session's own fill: 0 when it completed. */
static int sign_submit(size_t len, uint16_t word, uint16_t in_lo, int knot, uint16_t kv, char *f, size_t fl)
{
	uint8_t *rec = prog + BP_WEIGHTS_OFF;
	memset(rec, 0, ACTLUT_STRIDE);
	le_wr16(rec + 2 * ACTLUT_IN_LO, in_lo);
	le_wr16(rec + 2 * ACTLUT_IN_HI, 0x7c00u);
	le_wr16(rec + 2 * ACTLUT_OUT_HI, 0x3c00u); /* end values 0 and 1 */
	le_wr16(rec + 2 * ACTLUT_SCALE, 3u);
	le_wr16(rec + 2 * ACTLUT_MODE, word);
	if (knot >= 0)
		le_wr16(rec + 2 * (ACTLUT_KNOT0 + knot), kv);
	struct session_result res;
	int rc = tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	snprintf(f, fl, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	CHECK(res.canaries_ok);
	return rc == 0 && res.run == ENG_OK ? 0 : -1;
}

/*
 * The thirteenth review: the sign bit (0x20) on a record whose value can be negative completed,
 * the model negating for x < 0 (sign(x) * F(|x|)) where docs/actlut.md's "the output takes the
 * sign of x" gives F's magnitude x's sign; the two agree only where F >= 0, as in every real
 * record with the bit. Refused now at the record, slot 42 named (actlut-unpinned-sign-of-negative):
 * a table on |x| with sign (0x60) and knot 5 at -0.25, and log2 with the sign (0x69, its e + F(m)
 * negative below |x| = 1). Controls: the same table with knot 5 at +0.25 or -0, and the knot at
 * -0.25 without the sign bit (0x40), complete.
 */
TEST(model_geomrev, the_sign_bit_on_a_negative_value_is_refused)
{
	static uint8_t p[BP_WEIGHTS_OFF + ACTLUT_STRIDE];
	char f[512];
	const size_t len = bp_act_n(p, sizeof p, GR_W, GR_H, FS_C, 1);
	REQUIRE(len > 0 && len <= sizeof prog);
	memcpy(prog, p, len);
	CHECKF(sign_submit(len, 0x60, 0x0000u, 5, 0x3400u, f, sizeof f) == 0, "0x60, knot +0.25: %s", f);
	CHECKF(sign_submit(len, 0x60, 0x0000u, 5, 0x8000u, f, sizeof f) == 0, "0x60, knot -0: %s", f);
	CHECKF(sign_submit(len, 0x40, 0x0000u, 5, 0xb400u, f, sizeof f) == 0, "0x40, knot -0.25: %s", f);
	static const struct {
		uint16_t word;
		int knot;
		uint16_t kv;
	} bad[] = {{0x60, 5, 0xb400u}, {0x69, -1, 0}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const int rc = sign_submit(len, bad[i].word, 0x0000u, bad[i].knot, bad[i].kv, f, sizeof f);
		CHECKF(rc != 0 && strstr(f, "sign bit (0x20) on a record whose value can be negative") &&
			       strstr(f, "slot 42"),
		       "0x%02x: \"%s\"", bad[i].word, f);
	}
}
