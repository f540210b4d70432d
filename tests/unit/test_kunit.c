#include "fw/kunit/kunit.h"
#include "fw/common/le.h"
#include "tests/harness/harness.h"

#include <string.h>

static const struct ku_limits m1 = {
	.dense_cap = 0x10000, .stream_cap = 0x40000, .lut_budget = 0x1000, .version = 5};

static uint8_t unit[4096];
static uint8_t actlut[0x80], palette[32], scale[24], bias[24], weights[12 * 16];
static const uint32_t channels[3] = {4, 4, 4};

static size_t build(uint32_t flags, uint32_t ncores)
{
	struct ku_build b = {
		.version = 5, .format = 9, .flags = flags, .ncores = ncores,
		.bytes_per_channel = 16,
		.actlut = actlut, .actlut_len = sizeof actlut,
		.palette = palette, .palette_len = sizeof palette,
		.palette_bits = 4, .palette_luts = 1,
		.scale = scale, .scale_len = sizeof scale,
		.bias = bias, .bias_len = sizeof bias,
		.weights = weights, .weights_len = sizeof weights,
		.ocg_channels = channels, .nocg = 3,
	};
	return ku_write(&b, unit, sizeof unit);
}

static void put32(size_t at, uint32_t v)
{
	le_wr32(unit + at, v);
}

/* byte offset of word w of record i of core c in the unit just built */
static size_t rec_at(const struct ku_unit *u, uint32_t c, uint32_t i, unsigned w)
{
	return u->sec[KU_SEC_OCGS].offset + c * (KU_SET_HEADER + 3 * KU_RECORD_SIZE) + KU_SET_HEADER +
	       i * KU_RECORD_SIZE + 4 * w;
}

TEST(kunit, write_parse_patch)
{
	size_t n = build(KU_FLAG_STREAMED, 4);
	REQUIRE(n > 0);
	struct ku_unit u;
	REQUIRE(ku_parse(unit, n, &m1, &u) == KU_OK);
	CHECK_EQ(u.ncores, 4);
	CHECK_EQ(u.nocg, 3);
	uint32_t rec[KU_RECORD_WORDS];
	ku_record(&u, 3, 2, rec);
	CHECK_EQ(rec[0], 8 * 16);
	CHECK_EQ(rec[1], 4);
	CHECK_EQ(rec[2], KU_SLOT_UNSET);

	static uint8_t out[4096];
	struct ku_dispatch d = {.unit_base = 0x80000000, .input_tile = 0x81000000,
				.output_tile = 0x82000000};
	REQUIRE(ku_patch(&u, &d, out, sizeof out) == KU_OK);
	const uint8_t *r = out + rec_at(&u, 1, 2, 0);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_INPUT_TILE)), 0x81000000);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_OUTPUT_TILE)), 0x82000000);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_WEIGHTS)), 0x80000000 + u.sec[KU_SEC_WEIGHTS].offset + 128);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_MASK)), KU_SLOT_UNSET); /* not sparse: unused */
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_SCALE_VEC)), 0x80000000 + u.sec[KU_SEC_SCALE].offset + 16);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_BIAS_VEC)), 0x80000000 + u.sec[KU_SEC_BIAS].offset + 16);
	/* the bias and post-scale streams of record 2 start at its first channel (4 + 4 before) */
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_BIAS_STREAM)), 0x80000000 + u.sec[KU_SEC_BIAS].offset + 16);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_POSTSCALE_STREAM)),
		 0x80000000 + u.sec[KU_SEC_SCALE].offset + 16);
	const uint8_t *r0 = out + rec_at(&u, 1, 0, 0);
	CHECK_EQ(le_rd32(r0 + 4 * (2 + KU_SLOT_BIAS_STREAM)), 0x80000000 + u.sec[KU_SEC_BIAS].offset);
	/* a stream runs from its start to its section's end */
	CHECK_EQ(ku_stream_len(&u, 0, u.sec[KU_SEC_BIAS].offset + 16), u.sec[KU_SEC_BIAS].size - 16);
	CHECK_EQ(ku_stream_len(&u, 1, u.sec[KU_SEC_SCALE].offset), u.sec[KU_SEC_SCALE].size);
	CHECK_EQ(ku_stream_len(&u, 0, u.sec[KU_SEC_BIAS].offset + u.sec[KU_SEC_BIAS].size), 0u);
	CHECK_EQ(ku_stream_len(&u, 0, u.sec[KU_SEC_BIAS].offset - 2), 0u);
	CHECK_EQ(ku_stream_len(&u, 4, u.sec[KU_SEC_BIAS].offset), 0u);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_PALETTE_STREAM)), 0x80000000 + u.sec[KU_SEC_PALETTE].offset);
	CHECK_EQ(le_rd32(r + 4 * (2 + KU_SLOT_ACTLUT_STREAM)), 0x80000000 + u.sec[KU_SEC_ACTLUT].offset);
	/* the program itself is untouched */
	CHECK_EQ(le_rd32(unit + rec_at(&u, 1, 2, 2)), KU_SLOT_UNSET);
}

struct hostile {
	const char *what;
	enum ku_err want;
};

TEST(kunit, hostile_units_are_refused)
{
	struct ku_unit u;
	size_t n = build(0, 2);
	REQUIRE(n > 0 && ku_parse(unit, n, &m1, &u) == KU_OK);
	const struct ku_unit good = u;
	unsigned cases = 0;
#define EXPECT(mutation, want)                                                                  \
	do {                                                                                    \
		n = build(0, 2);                                                                \
		mutation;                                                                       \
		enum ku_err got = ku_parse(unit, n, &m1, &u);                                   \
		CHECKF(got == (want), "%s: got %s, want %s", #mutation, ku_err_name(got),       \
		       ku_err_name(want));                                                      \
		cases++;                                                                        \
	} while (0)
	EXPECT(put32(0, 0x12345678), KU_E_MAGIC);
	EXPECT(put32(4, 7), KU_E_VERSION);
	EXPECT(put32(4, 6), KU_E_VERSION); /* a later descriptor on the M1 */
	EXPECT(put32(8, 0), KU_E_FORMAT);
	EXPECT(put32(8, 32), KU_E_FORMAT);
	EXPECT(put32(0x10, 0), KU_E_CORES);
	EXPECT(put32(0x10, 99), KU_E_CORES);
	EXPECT(put32(0x14, 100000), KU_E_TOO_MANY);
	EXPECT(put32(0x18, (uint32_t)n + 16), KU_E_TRUNCATED);
	EXPECT(n = 64, KU_E_TRUNCATED);
	EXPECT(put32(0x20 + 16 * KU_SEC_WEIGHTS + 4, 0x100000), KU_E_SECTION_BOUNDS);
	EXPECT(put32(0x20 + 16 * KU_SEC_BIAS, 0x40), KU_E_SECTION_BOUNDS); /* inside header */
	EXPECT(put32(0x20 + 16 * KU_SEC_BIAS, good.sec[KU_SEC_BIAS].offset + 2),
	       KU_E_SECTION_BOUNDS); /* misaligned */
	EXPECT(put32(0x20 + 16 * KU_SEC_BIAS, good.sec[KU_SEC_SCALE].offset), KU_E_SECTION_OVERLAP);
	EXPECT(put32(0x20 + 16 * KU_SEC_ACTLUT + 4, 0x40), KU_E_SECTION_BOUNDS);
	EXPECT(put32(0x20 + 16 * KU_SEC_OCGS + 4, good.sec[KU_SEC_OCGS].size - KU_RECORD_SIZE),
	       KU_E_OCG_TABLE_SIZE);
	EXPECT(put32(good.sec[KU_SEC_OCGS].offset + KU_SET_HEADER + 3 * KU_RECORD_SIZE, 2),
	       KU_E_CORE_MISMATCH); /* core 1 says 2 records */
	EXPECT(put32(rec_at(&good, 1, 1, 1), 3), KU_E_CORE_MISMATCH); /* channels differ */
	/* the weights grown by 64 bytes at the unit's end: still a good unit (the control); core 1's
	 * last record moved into them names other weights than core 0's */
	REQUIRE(good.sec[KU_SEC_WEIGHTS].offset + good.sec[KU_SEC_WEIGHTS].size == good.len);
#define GROW (put32(0x20 + 16 * KU_SEC_WEIGHTS + 4, good.sec[KU_SEC_WEIGHTS].size + 64), \
	      put32(0x18, (uint32_t)good.len + 64), memset(unit + n, 0, 64), n += 64)
	EXPECT(GROW, KU_OK);
	EXPECT((GROW, put32(rec_at(&good, 1, 2, 0), le_rd32(unit + rec_at(&good, 0, 2, 0)) + 64)),
	       KU_E_CORE_MISMATCH);
#undef GROW
	EXPECT(put32(rec_at(&good, 0, 2, 0), 0x1000), KU_E_RECORD_BOUNDS);
	EXPECT(put32(rec_at(&good, 0, 2, 1), 0x10000000), KU_E_RECORD_BOUNDS);
	EXPECT(put32(rec_at(&good, 0, 2, 1), 0), KU_E_RECORD_BOUNDS);
	EXPECT(put32(rec_at(&good, 0, 1, 0), 16), KU_E_RECORD_OVERLAP);
	EXPECT(put32(rec_at(&good, 1, 0, 2 + KU_SLOT_ACTLUT_STREAM), 0x1000), KU_E_SLOT_PREFILLED);
	EXPECT(put32(rec_at(&good, 0, 0, 12), 1), KU_E_RECORD_RESERVED);
	EXPECT(put32(0x0c, KU_FLAG_ASYMMETRIC), KU_E_ASYMMETRIC_V5);
#undef EXPECT
	CHECK_EQ(cases, 27);
	/* palette (32) + activation LUT (0x80) bytes over a tighter shared budget */
	struct ku_limits tight = m1;
	tight.lut_budget = 0x80 + 31;
	n = build(0, 2);
	CHECK_EQ(ku_parse(unit, n, &tight, &u), KU_E_LUT_BUDGET);
	tight.lut_budget = 0x80 + 32;
	CHECK_EQ(ku_parse(unit, n, &tight, &u), KU_OK);
}

TEST(kunit, caps_depend_on_streaming)
{
	static uint8_t big[0x12000];
	static uint8_t buf[0x13000];
	uint32_t ch[1] = {0x1200};
	struct ku_build b = {.version = 5, .format = 9, .ncores = 1, .bytes_per_channel = 16,
			     .weights = big, .weights_len = sizeof big, .ocg_channels = ch, .nocg = 1};
	struct ku_unit u;
	size_t n = ku_write(&b, buf, sizeof buf);
	REQUIRE(n);
	CHECK_EQ(ku_parse(buf, n, &m1, &u), KU_E_WEIGHT_CAP); /* dense: 72 KiB > 64 KiB */
	b.flags = KU_FLAG_STREAMED;
	n = ku_write(&b, buf, sizeof buf);
	CHECK_EQ(ku_parse(buf, n, &m1, &u), KU_OK); /* streamed: relaxed cap */
}

TEST(kunit, patch_refuses_unresolved_and_wide_addresses)
{
	size_t n = build(KU_FLAG_SPARSE, 1);
	struct ku_unit u;
	REQUIRE(ku_parse(unit, n, &m1, &u) == KU_OK);
	static uint8_t out[4096];
	struct ku_dispatch d = {.unit_base = 0x1000, .input_tile = UINT64_MAX, .output_tile = 0x2000};
	CHECK_EQ(ku_patch(&u, &d, out, sizeof out), KU_E_SLOT_UNSET);
	d.input_tile = 0x3000;
	d.unit_base = 0xffffff00;
	CHECK_EQ(ku_patch(&u, &d, out, sizeof out), KU_E_ADDRESS);
	d.unit_base = 0x1000;
	CHECK_EQ(ku_patch(&u, &d, out, 16), KU_E_TRUNCATED);
	CHECK_EQ(ku_patch(&u, &d, out, sizeof out), KU_OK);
}

/* What ku_parse_why says about unit, and the error. */
static enum ku_err why_of(size_t n, struct ku_why *w)
{
	struct ku_unit u;
	return ku_parse_why(unit, n, &m1, &u, w);
}

static size_t sec_at(unsigned s, unsigned w)
{
	return 0x20u + 16u * s + 4u * w;
}

/* A unit of the three OCGs with fp32 per-channel scale and bias (48 bytes each) on ncores cores,
 * into unit: its size. */
static size_t build_fp32(unsigned ncores)
{
	static uint8_t s32[48], b32[48];
	struct ku_build b = {
		.version = 5, .format = 9, .ncores = ncores, .bytes_per_channel = 16,
		.scale = s32, .scale_len = sizeof s32, .bias = b32, .bias_len = sizeof b32,
		.weights = weights, .weights_len = sizeof weights, .ocg_channels = channels,
		.nocg = 3, .vec_type = 4,
	};
	return ku_write(&b, unit, sizeof unit);
}

/* Each present section's type is the documented one (docs/kunit.md): fp16 (5) for the
 * activation LUT and the palette's codebook, fp16 or fp32 (4) for the per-channel scale and
 * bias, 0 for the OCG table and the weights. Another type is refused, naming the section, the
 * type found and the ones expected; an absent section's type is not read (the controls). */
TEST(kunit, section_types_checked)
{
	struct ku_why w;
	char text[96];
	size_t n = build(0, 2);
	REQUIRE(why_of(n, &w) == KU_OK);
	CHECK_EQ(w.section, -1);
	static const struct {
		unsigned sec;
		uint32_t type, want, want2;
	} bad[] = {
		{KU_SEC_ACTLUT, 6, 5, UINT32_MAX}, {KU_SEC_ACTLUT, 4, 5, UINT32_MAX},
		{KU_SEC_PALETTE, 1, 5, UINT32_MAX}, {KU_SEC_PALETTE, 0, 5, UINT32_MAX},
		{KU_SEC_OCGS, 5, 0, UINT32_MAX},    {KU_SEC_SCALE, 6, 5, 4},
		{KU_SEC_SCALE, 0, 5, 4},           {KU_SEC_BIAS, 6, 5, 4},
		{KU_SEC_BIAS, 3, 5, 4},            {KU_SEC_WEIGHTS, 5, 0, UINT32_MAX},
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = build(0, 2);
		put32(sec_at(bad[i].sec, 2), bad[i].type);
		enum ku_err e = why_of(n, &w);
		CHECKF(e == KU_E_SECTION_TYPE, "section %u type %u: got %s", bad[i].sec,
		       bad[i].type, ku_err_name(e));
		CHECK_EQ(w.section, (int)bad[i].sec);
		CHECK_EQ(w.found, bad[i].type);
		CHECK_EQ(w.want, bad[i].want);
		CHECK_EQ(w.want2, bad[i].want2);
	}
	CHECK_STR(ku_err_name(KU_E_SECTION_TYPE), "kunit-section-type");
	n = build(0, 2);
	put32(sec_at(KU_SEC_SCALE, 2), 6);
	CHECK_EQ(why_of(n, &w), KU_E_SECTION_TYPE);
	CHECK_STR(ku_why_text(&w, KU_E_SECTION_TYPE, text, sizeof text),
		  "section 3 (per-channel scale): type 6, want 5 (fp16) or 4 (fp32)");
	put32(sec_at(KU_SEC_SCALE, 2), 5);
	put32(sec_at(KU_SEC_ACTLUT, 2), 0);
	CHECK_EQ(why_of(n, &w), KU_E_SECTION_TYPE);
	CHECK_STR(ku_why_text(&w, KU_E_SECTION_TYPE, text, sizeof text),
		  "section 0 (activation LUT): type 0, want 5 (fp16)");
	/* controls: the same sections absent (size 0) with those types; fp32 scale and bias */
	n = build(0, 2);
	put32(sec_at(KU_SEC_SCALE, 1), 0);
	put32(sec_at(KU_SEC_SCALE, 2), 6);
	put32(sec_at(KU_SEC_PALETTE, 1), 0);
	put32(sec_at(KU_SEC_PALETTE, 2), 1);
	CHECK_EQ(why_of(n, &w), KU_OK);
	n = build_fp32(2);
	REQUIRE(n);
	CHECK_EQ(le_rd32(unit + sec_at(KU_SEC_SCALE, 2)), 4u);
	CHECK_EQ(le_rd32(unit + sec_at(KU_SEC_BIAS, 2)), 4u);
	CHECK_EQ(why_of(n, &w), KU_OK);
}

/* The per-channel scale and bias hold a value per channel of the records (12 here: 24 bytes of
 * fp16, 48 of fp32); shorter is refused naming the section, its bytes and the bytes needed. */
TEST(kunit, per_channel_section_short_refused)
{
	struct ku_why w;
	char text[96];
	size_t n = build(0, 2);
	REQUIRE(why_of(n, &w) == KU_OK);
	CHECK_EQ(le_rd32(unit + sec_at(KU_SEC_SCALE, 1)), 24u);
	put32(sec_at(KU_SEC_SCALE, 1), 22);
	CHECK_EQ(why_of(n, &w), KU_E_SECTION_SHORT);
	CHECK_EQ(w.section, KU_SEC_SCALE);
	CHECK_EQ(w.found, 22u);
	CHECK_EQ(w.want, 24u);
	CHECK_STR(ku_err_name(KU_E_SECTION_SHORT), "kunit-section-short");
	CHECK_STR(ku_why_text(&w, KU_E_SECTION_SHORT, text, sizeof text),
		  "section 3 (per-channel scale): 22 bytes, its records' channels need 24");
	n = build(0, 2);
	put32(sec_at(KU_SEC_BIAS, 1), 16);
	CHECK_EQ(why_of(n, &w), KU_E_SECTION_SHORT);
	CHECK_EQ(w.section, KU_SEC_BIAS);
	CHECK_EQ(w.want, 24u);
	/* fp32: 48 bytes needed; 44 refused, the same 44 bytes as fp16 (24 needed) accepted */
	n = build_fp32(1);
	REQUIRE(n);
	CHECK_EQ(why_of(n, &w), KU_OK);
	put32(sec_at(KU_SEC_BIAS, 1), 44);
	CHECK_EQ(why_of(n, &w), KU_E_SECTION_SHORT);
	CHECK_EQ(w.found, 44u);
	CHECK_EQ(w.want, 48u);
	put32(sec_at(KU_SEC_BIAS, 2), 5);
	CHECK_EQ(why_of(n, &w), KU_OK);
	/* absent: no values, nothing to be short of */
	put32(sec_at(KU_SEC_BIAS, 1), 0);
	CHECK_EQ(why_of(n, &w), KU_OK);
}
