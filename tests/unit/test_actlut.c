/*
 * Activation LUT (fw/actlut): parser errors, known exact values, golden vectors from the
 * Python model (build/testdata/actlut, tests/oracle/gen_actlut.py), the table path against the
 * direct path, and the real records in the shared fixtures.
 */
#include "fw/actlut/actlut.h"
#include "fw/common/fp16.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A record from slots given as fp16 bit patterns. */
static void put(uint8_t *rec, int slot, uint16_t v)
{
	rec[2 * slot] = (uint8_t)(v & 0xff);
	rec[2 * slot + 1] = (uint8_t)(v >> 8);
}

/* relu6-like linear record: in/out clamp [0, 6], both tails y = x. */
static void make_relu6(uint8_t *rec)
{
	memset(rec, 0, ACTLUT_BYTES);
	put(rec, ACTLUT_IN_HI, 0x4600);
	put(rec, ACTLUT_OUT_HI, 0x4600);
	put(rec, ACTLUT_L_SLOPE, FP16_ONE);
	put(rec, ACTLUT_R_SLOPE, FP16_ONE);
	put(rec, ACTLUT_SCALE, ACTLUT_SCALE_LINEAR);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_PLAIN);
}

TEST(actlut, parse_errors)
{
	uint8_t rec[ACTLUT_BYTES + 2], bad[ACTLUT_BYTES + 2];
	struct actlut l;
	make_relu6(rec);
	CHECK_EQ(actlut_parse(&l, rec, ACTLUT_BYTES), ACTLUT_OK);
	CHECK_EQ(l.kind, ACTLUT_KIND_LINEAR);
	CHECK_EQ(actlut_parse(NULL, rec, ACTLUT_BYTES), ACTLUT_E_NULL);
	CHECK_EQ(actlut_parse(&l, NULL, ACTLUT_BYTES), ACTLUT_E_NULL);
	for (size_t n = 0; n < ACTLUT_BYTES; n++)
		CHECK_EQ(actlut_parse(&l, rec, n), ACTLUT_E_SHORT);
	/* NaN in every float slot */
	for (int s = 0; s <= ACTLUT_R_ICPT; s++) {
		memcpy(bad, rec, ACTLUT_BYTES);
		put(bad, s, 0x7e01);
		CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_NAN);
	}
	/* infinity in knots and tails, but not in clamps */
	for (int s = ACTLUT_KNOT0; s <= ACTLUT_R_ICPT; s++) {
		memcpy(bad, rec, ACTLUT_BYTES);
		put(bad, s, FP16_NEG_INF);
		CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_INF_COEF);
	}
	memcpy(bad, rec, ACTLUT_BYTES);
	put(bad, ACTLUT_IN_LO, FP16_NEG_INF);
	put(bad, ACTLUT_OUT_HI, FP16_POS_INF);
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_OK);
	memcpy(bad, rec, ACTLUT_BYTES);
	put(bad, ACTLUT_IN_LO, 0x4700); /* 7 > 6 */
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_CLAMP_ORDER);
	/* slots 2/3 are end values, in either order: 6 then -1 is a decreasing function's pair */
	memcpy(bad, rec, ACTLUT_BYTES);
	put(bad, ACTLUT_OUT_HI, 0xbc00);
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_OK);
	memcpy(bad, rec, ACTLUT_BYTES);
	put(bad, ACTLUT_IN_LO, 0x8000); /* -0 <= 0 is fine */
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_OK);
	static const uint16_t bad_scales[] = {21, 63, 65, 0x3c00, 0xffff};
	for (size_t i = 0; i < sizeof bad_scales / sizeof bad_scales[0]; i++) {
		memcpy(bad, rec, ACTLUT_BYTES);
		put(bad, ACTLUT_SCALE, bad_scales[i]);
		CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_SCALE);
	}
	/* mode words: bits with no known meaning, field values with none, bits that contradict each
	 * other (every one refused by its own name); the words in between evaluate */
	static const struct {
		uint16_t word;
		enum actlut_err err;
	} modes[] = {
		/* bit 4, bits 8..15, operations 8 and 11..15: no known meaning */
		{0x10, ACTLUT_E_MODE},   {0x11, ACTLUT_E_MODE},   {0x200, ACTLUT_E_MODE},
		{0x3c00, ACTLUT_E_MODE}, {0xffff, ACTLUT_E_MODE}, {0x101, ACTLUT_E_MODE},
		{0x1e9, ACTLUT_E_MODE},  {0x1c5, ACTLUT_E_MODE},  {0x08, ACTLUT_E_MODE},
		{0xc8, ACTLUT_E_MODE},   {0x0b, ACTLUT_E_MODE},   {0x4f, ACTLUT_E_MODE},
		{0xcd, ACTLUT_E_MODE},
		/* contradictions: sign without |x|, flush with the sign, a float split without |x| or
		 * without a rule for negatives, the flush on a non-float-split operation */
		{0x21, ACTLUT_E_MODE_BITS}, {0x22, ACTLUT_E_MODE_BITS}, {0xe5, ACTLUT_E_MODE_BITS},
		{0xe7, ACTLUT_E_MODE_BITS}, {0x85, ACTLUT_E_MODE_BITS}, {0x05, ACTLUT_E_MODE_BITS},
		{0x07, ACTLUT_E_MODE_BITS}, {0x45, ACTLUT_E_MODE_BITS}, {0x49, ACTLUT_E_MODE_BITS},
		{0x80, ACTLUT_E_MODE_BITS}, {0xc0, ACTLUT_E_MODE_BITS}, {0xca, ACTLUT_E_MODE_BITS},
		{0xc3, ACTLUT_E_MODE_BITS},
		/* frac and int with a table that is not empty */
		{0x03, ACTLUT_E_OP_TABLE}, {0x63, ACTLUT_E_OP_TABLE}, {0x64, ACTLUT_E_OP_TABLE},
		/* the words in between evaluate */
		{0x00, ACTLUT_OK}, {0x01, ACTLUT_OK}, {0x02, ACTLUT_OK}, {0x40, ACTLUT_OK}, {0x42, ACTLUT_OK},
		{0x61, ACTLUT_OK}, {0x60, ACTLUT_OK}, {0x62, ACTLUT_OK}, {0x0a, ACTLUT_OK}, {0x4a, ACTLUT_OK},
		{0x6a, ACTLUT_OK}, {0xc9, ACTLUT_OK}, {0xc5, ACTLUT_OK}, {0xc6, ACTLUT_OK}, {0xc7, ACTLUT_OK},
		{0x65, ACTLUT_OK}, {0x66, ACTLUT_OK}, {0x67, ACTLUT_OK}, {0x69, ACTLUT_OK},
	};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		memcpy(bad, rec, ACTLUT_BYTES);
		put(bad, ACTLUT_SCALE, 3);
		put(bad, ACTLUT_IN_HI, FP16_POS_INF);
		put(bad, ACTLUT_MODE, modes[i].word);
		CHECKF(actlut_parse(&l, bad, ACTLUT_BYTES) == modes[i].err, "mode 0x%x: got %d, want %d",
		       modes[i].word, actlut_parse(&l, bad, ACTLUT_BYTES), modes[i].err);
	}
	/* a mode word that contradicts the input clamp: |x| clamped below 0, a float split with no
	 * positive input */
	memcpy(bad, rec, ACTLUT_BYTES);
	put(bad, ACTLUT_SCALE, 3);
	put(bad, ACTLUT_IN_LO, 0xc400);
	put(bad, ACTLUT_IN_HI, 0xbc00); /* [-4, -1] */
	put(bad, ACTLUT_MODE, ACTLUT_MODE_ODD);
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_MODE_SLOTS);
	put(bad, ACTLUT_MODE, ACTLUT_MODE_PLAIN); /* the same clamp without |x| is fine */
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_OK);
	put(bad, ACTLUT_IN_HI, 0);
	put(bad, ACTLUT_MODE, ACTLUT_MODE_SQRT);
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_MODE_SLOTS);
	put(bad, ACTLUT_MODE, ACTLUT_MODE_ODD); /* |x| clamped to [-4, 0] can still be 0 */
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_OK);
	put(bad, ACTLUT_IN_HI, 0x0001);
	put(bad, ACTLUT_MODE, ACTLUT_MODE_SQRT);
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_OK);
	/* linear only (no knots): any word without a split evaluates; a split has nothing to index */
	memcpy(bad, rec, ACTLUT_BYTES);
	put(bad, ACTLUT_MODE, ACTLUT_MODE_ODD);
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_OK);
	CHECK_EQ(l.kind, ACTLUT_KIND_LINEAR);
	static const uint16_t split_words[] = {ACTLUT_MODE_EXP2, ACTLUT_MODE_LOG2, ACTLUT_MODE_SQRT,
					       ACTLUT_MODE_RECIP, ACTLUT_MODE_RSQRT, ACTLUT_MODE_FRAC,
					       ACTLUT_MODE_INT};
	for (size_t i = 0; i < sizeof split_words / sizeof split_words[0]; i++) {
		put(bad, ACTLUT_MODE, split_words[i]);
		CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_LINEAR_MODE);
	}
	/* a failed parse leaves the output untouched */
	memset(&l, 0x5a, sizeof l);
	CHECK_EQ(actlut_parse(&l, bad, ACTLUT_BYTES), ACTLUT_E_LINEAR_MODE);
	CHECK_EQ(((uint8_t *)&l)[0], 0x5a);
	/* every error has its own name */
	for (int a = 0; a < ACTLUT_E__COUNT; a++) {
		REQUIRE(actlut_strerror((enum actlut_err)a) != NULL);
		for (int b = 0; b < a; b++)
			CHECK(strcmp(actlut_strerror((enum actlut_err)a), actlut_strerror((enum actlut_err)b)));
	}
	CHECK_STR(actlut_strerror(ACTLUT_E__COUNT), "unknown error");
	CHECK_STR(actlut_strerror((enum actlut_err)-1), "unknown error");
}

TEST(actlut, known_values)
{
	uint8_t rec[ACTLUT_BYTES];
	struct actlut l;
	make_relu6(rec);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x4700), 0x4600);       /* relu6(7) = 6 */
	CHECK_EQ(actlut_eval(&l, FP16_POS_INF), 0x4600); /* clamp holds */
	CHECK_EQ(actlut_eval(&l, 0xbc00), 0x0000);       /* relu6(-1) = 0 */
	CHECK_EQ(actlut_eval(&l, 0x4100), 0x4100);       /* 2.5 */
	CHECK_EQ(actlut_eval(&l, 0x0001), 0x0001);       /* smallest subnormal */
	CHECK_EQ(actlut_eval(&l, 0x7e00), FP16_QNAN);
	CHECK_EQ(actlut_eval(&l, 0xfd01), FP16_QNAN);

	/* exp2: knots 2^(i/32) with exact knot 0 = 1 and knot 32 = 2 */
	memset(rec, 0, sizeof rec);
	put(rec, ACTLUT_IN_LO, 0xce40); /* -25 */
	put(rec, ACTLUT_IN_HI, 0x4c00); /* 16 */
	put(rec, ACTLUT_OUT_HI, FP16_POS_INF);
	for (int i = 0; i < ACTLUT_KNOTS; i++) /* linear knots 1 + i/32: exact in fp16 */
		put(rec, ACTLUT_KNOT0 + i, (uint16_t)(0x3c00 + (i << 5)));
	put(rec, ACTLUT_SCALE, 5);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_EXP2);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(l.kind, ACTLUT_KIND_EXP2);
	CHECK_EQ(actlut_eval(&l, 0x4200), 0x4800); /* 2^3 = 8 */
	CHECK_EQ(actlut_eval(&l, 0xc000), 0x3400); /* 2^-2 = 0.25 */
	CHECK_EQ(actlut_eval(&l, 0x3800), 0x3e00); /* f = 0.5: knot 16 = 1.5 */
	CHECK_EQ(actlut_eval(&l, 0x4c00), FP16_POS_INF); /* 2^16 overflows */
	CHECK_EQ(actlut_eval(&l, 0xce40), 0x0000);       /* 2^-25 rounds to 0 (tie to even) */
	CHECK_EQ(actlut_eval(&l, 0xce00), 0x0001);       /* 2^-24 */
	CHECK_EQ(actlut_eval(&l, FP16_NEG_INF), 0x0000); /* clamped to -25 */

	/* log2: knots k(i) = -1 + i/32 (exact), m = 0.5 + i/64 */
	put(rec, ACTLUT_IN_LO, 0);
	put(rec, ACTLUT_IN_HI, FP16_POS_INF);
	put(rec, ACTLUT_OUT_LO, FP16_NEG_INF);
	put(rec, ACTLUT_OUT_HI, 0);
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		put(rec, ACTLUT_KNOT0 + i, i == 32 ? 0 : (uint16_t)(0xbc00 - (i << 5)));
	put(rec, ACTLUT_SCALE, 6);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_LOG2);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x4800), 0x4200);       /* log2(8) = 3: m = 0.5, e = 4 */
	CHECK_EQ(actlut_eval(&l, 0x3c00), 0x0000);       /* log2(1) = 0 */
	CHECK_EQ(actlut_eval(&l, 0x0001), 0xce00);       /* log2(2^-24) = -24 */
	CHECK_EQ(actlut_eval(&l, 0x0000), FP16_NEG_INF);
	CHECK_EQ(actlut_eval(&l, 0xc000), 0x0000);       /* log(-2): +0 (guide 03: log(-1) = +0) */
	CHECK_EQ(actlut_eval(&l, 0x8000), FP16_NEG_INF); /* -0 loses its sign: log(0) */
	CHECK_EQ(actlut_eval(&l, FP16_POS_INF), FP16_POS_INF);

	/* sqrt: knots 0.5 + i/64 (not sqrt; exact values to check the 2^(e/2) and the split) */
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		put(rec, ACTLUT_KNOT0 + i, (uint16_t)(0x3800 + (i << 5)));
	put(rec, ACTLUT_OUT_LO, 0);
	put(rec, ACTLUT_OUT_HI, FP16_POS_INF);
	put(rec, ACTLUT_SCALE, 4);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_SQRT);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	/* 4 = 0.5 * 2^3: e odd -> m = 1 (u = 16, knot 16 = 0.75), e = 2 -> 0.75 * 2 = 1.5 */
	CHECK_EQ(actlut_eval(&l, 0x4400), 0x3e00);
	/* 0.5: m = 0.5, e = 0 -> u = 8: knot 8 = 0.625 */
	CHECK_EQ(actlut_eval(&l, 0x3800), 0x3900);
	/* 0.75 = 0.75 * 2^0: u = 12, knot 12 = 0.6875 */
	CHECK_EQ(actlut_eval(&l, 0x3a00), 0x3980);
	CHECK_EQ(actlut_eval(&l, 0x0000), 0x0000);
	CHECK_EQ(actlut_eval(&l, FP16_POS_INF), FP16_POS_INF);
}

TEST(actlut, odd_symmetry_and_apply)
{
	uint8_t rec[ACTLUT_BYTES];
	struct actlut l;
	memset(rec, 0, sizeof rec);
	put(rec, ACTLUT_IN_HI, 0x4400); /* 4 */
	put(rec, ACTLUT_OUT_HI, FP16_ONE);
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		put(rec, ACTLUT_KNOT0 + i, (uint16_t)(i * 0x1d0)); /* increasing, finite */
	put(rec, ACTLUT_R_ICPT, FP16_ONE);
	put(rec, ACTLUT_SCALE, 3);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_ODD);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	for (uint32_t x = 0; x < 0x8000; x++) {
		uint16_t p = actlut_eval(&l, (uint16_t)x), n = actlut_eval(&l, (uint16_t)(x | 0x8000));
		if (fp16_is_nan((uint16_t)x))
			CHECK(fp16_is_nan(p) && fp16_is_nan(n));
		else if (n != (p ^ 0x8000)) {
			CHECK_EQ(n, p ^ 0x8000);
			break;
		}
	}
	/* knot exactly at u = 8: x = 1.0 */
	CHECK_EQ(actlut_eval(&l, FP16_ONE), 8 * 0x1d0);
	/* the table path equals the direct path, in place too */
	static uint16_t table[ACTLUT_TABLE_LEN];
	uint16_t in[1000], a[1000], b[1000];
	for (int i = 0; i < 1000; i++)
		in[i] = (uint16_t)test_rand();
	actlut_apply(&l, in, a, 1000);
	actlut_build_table(&l, table);
	REQUIRE(l.table == table);
	actlut_apply(&l, in, b, 1000);
	CHECK_MEM(a, b, sizeof a);
	uint16_t last = in[999];
	actlut_apply(&l, in, in, 999);
	CHECK_MEM(in, a, 999 * sizeof in[0]);
	CHECK_EQ(in[999], last); /* n = 999: the last element is not written */
}

/* y in [0.5, 4) as the nearest fp16 (no libm on the target) */
static uint16_t h_of(double y)
{
	int e = 0;
	while (y >= 2.0) {
		y /= 2.0;
		e++;
	}
	while (y < 1.0) {
		y *= 2.0;
		e--;
	}
	unsigned mant = (unsigned)((y - 1.0) * 1024.0 + 0.5);
	if (mant == 1024u) {
		mant = 0;
		e++;
	}
	return (uint16_t)(((unsigned)(e + 15) << 10) | mant);
}

/* 1/sqrt(v) by Newton's iteration from 1 (v in [0.5, 2]) */
static double rsqrt_d(double v)
{
	double r = 1.0;
	for (int i = 0; i < 30; i++)
		r = r * (1.5 - 0.5 * v * r * r);
	return r;
}

/* Operation 6 (rsqrt): actlut_check_prediction reads a record as rsqrt only when its knots are
 * 1/sqrt(i / 2^s) where the sqrt-style split puts v in [0.5, 2], as in Apple's record. */
TEST(actlut, rsqrt_prediction_checked)
{
	uint8_t rec[ACTLUT_BYTES];
	struct actlut l;
	memset(rec, 0, sizeof rec);
	put(rec, ACTLUT_IN_HI, FP16_POS_INF);
	put(rec, ACTLUT_OUT_LO, FP16_POS_INF);
	put(rec, ACTLUT_SCALE, 4);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_RSQRT);
	for (int i = 0; i < ACTLUT_KNOTS; i++) /* below v = 0.5 the knots are never reached */
		put(rec, ACTLUT_KNOT0 + i, i < 8 ? 0x3e00 : h_of(rsqrt_d(i / 16.0)));
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_check_prediction(&l), ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x4400), 0x3800); /* rsqrt(4) = 0.5 */
	/* one knot 3% high: refused */
	put(rec, ACTLUT_KNOT0 + 20, h_of(rsqrt_d(20 / 16.0) * 1.03));
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_check_prediction(&l), ACTLUT_E_PREDICTION);
	put(rec, ACTLUT_KNOT0 + 20, h_of(rsqrt_d(20 / 16.0)));
	/* the knots of sqrt (sqrt.bin's shape) under the rsqrt word: refused */
	for (int i = 8; i < ACTLUT_KNOTS; i++)
		put(rec, ACTLUT_KNOT0 + i, h_of(1.0 / rsqrt_d(i / 16.0)));
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_check_prediction(&l), ACTLUT_E_PREDICTION);
	/* ... and accepted under sqrt's own word: only operation 6 is checked */
	put(rec, ACTLUT_MODE, ACTLUT_MODE_SQRT);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_check_prediction(&l), ACTLUT_OK);
	/* a scale that puts fewer than four knots on [0.5, 2]: nothing to check against, refused */
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		put(rec, ACTLUT_KNOT0 + i, h_of(rsqrt_d(i < 8 ? 0.5 : i / 16.0)));
	put(rec, ACTLUT_MODE, ACTLUT_MODE_RSQRT);
	put(rec, ACTLUT_SCALE, 6);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_check_prediction(&l), ACTLUT_E_PREDICTION);
	CHECK_EQ(actlut_check_prediction(NULL), ACTLUT_E_NULL);
}

/* The table words' index offsets (docs/actlut.md): real records pin operation 0 on |x| (tanh's
 * 0x60), operations 1 and 2 on x (0x01, 0x02) and a linear-only record as 0x01; the words whose
 * offset is read by extending those (0x00, 0x41, 0x42, 0x61, 0x62, a linear record with any
 * other word) parse, but actlut_check_prediction, the engine model's and inspect's check, refuses
 * them (ACTLUT_E_UNPINNED). 0x40 (0x60 without the sign) is accepted. */
TEST(actlut, table_words_no_record_pins_refused)
{
	static const struct {
		uint16_t word;
		int linear;
		enum actlut_err want;
	} cases[] = {
		{0x01, 0, ACTLUT_OK},         {0x02, 0, ACTLUT_OK},         {0x60, 0, ACTLUT_OK},
		{0x40, 0, ACTLUT_OK},         {0x01, 1, ACTLUT_OK},         {0x00, 0, ACTLUT_E_UNPINNED},
		{0x41, 0, ACTLUT_E_UNPINNED}, {0x42, 0, ACTLUT_E_UNPINNED}, {0x61, 0, ACTLUT_E_UNPINNED},
		{0x62, 0, ACTLUT_E_UNPINNED}, {0x00, 1, ACTLUT_E_UNPINNED}, {0x02, 1, ACTLUT_E_UNPINNED},
		{0x41, 1, ACTLUT_E_UNPINNED}, {0x60, 1, ACTLUT_E_UNPINNED}, {0x40, 1, ACTLUT_E_UNPINNED},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t rec[ACTLUT_BYTES];
		struct actlut l;
		make_relu6(rec); /* clamp [0, 6], lines y = x */
		if (!cases[i].linear) {
			put(rec, ACTLUT_SCALE, 2);
			for (int k = 0; k < ACTLUT_KNOTS; k++)
				put(rec, ACTLUT_KNOT0 + k, (uint16_t)(0x3000u + 0x40u * (unsigned)k));
		}
		put(rec, ACTLUT_MODE, cases[i].word);
		REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
		CHECK_EQ(l.kind == ACTLUT_KIND_LINEAR, cases[i].linear != 0);
		CHECKF(actlut_check_prediction(&l) == cases[i].want, "word 0x%02x%s: %s", cases[i].word,
		       cases[i].linear ? " (linear)" : "", actlut_err_name(actlut_check_prediction(&l)));
	}
	CHECK_STR(actlut_err_name(ACTLUT_E_UNPINNED), "actlut-unpinned-word");
}

/* Issue 14: the shapes the compiler emits that the first reading refused. Reciprocal and rsqrt
 * records open 0, +inf, +inf, 0 (clamp |x| to [0, inf]; end values +inf at 0 and 0 at +inf);
 * a step function is linear only with a mode word other than 1. They evaluate; malformed
 * variants are refused by name. */
TEST(actlut, issue14_record_shapes)
{
	uint8_t rec[ACTLUT_BYTES];
	struct actlut l;
	/* reciprocal: knots 1/(0.5 + i/64) rounded to fp16 are not exact; use knots 2 - i/32
	 * (exact, the chord of 1/m's shape is not the point here) */
	memset(rec, 0, sizeof rec);
	put(rec, ACTLUT_IN_HI, FP16_POS_INF);
	put(rec, ACTLUT_OUT_LO, FP16_POS_INF);
	put(rec, ACTLUT_OUT_HI, 0);
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		put(rec, ACTLUT_KNOT0 + i, (uint16_t)(0x4000 - (i << 5))); /* 2 - i/32 */
	put(rec, ACTLUT_SCALE, 6);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_RECIP);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(l.kind, ACTLUT_KIND_RECIP);
	CHECK_EQ(actlut_eval(&l, 0x4400), 0x3400);       /* 4 = 0.5 * 2^3: knot 0 = 2, * 2^-3 */
	CHECK_EQ(actlut_eval(&l, 0xc400), 0xb400);       /* odd: -4 -> -0.25 */
	CHECK_EQ(actlut_eval(&l, 0x0000), FP16_POS_INF);
	CHECK_EQ(actlut_eval(&l, 0x8000), FP16_POS_INF); /* guide 03: recip(-0) = +inf */
	CHECK_EQ(actlut_eval(&l, FP16_POS_INF), 0x0000);
	CHECK_EQ(actlut_eval(&l, FP16_NEG_INF), 0x8000);
	/* the same record with a NaN end value is malformed */
	put(rec, ACTLUT_OUT_LO, 0x7e00);
	CHECK_EQ(actlut_parse(&l, rec, sizeof rec), ACTLUT_E_NAN);
	put(rec, ACTLUT_OUT_LO, FP16_POS_INF);
	put(rec, ACTLUT_IN_HI, 0xfe00); /* NaN input clamp */
	CHECK_EQ(actlut_parse(&l, rec, sizeof rec), ACTLUT_E_NAN);
	put(rec, ACTLUT_IN_HI, FP16_POS_INF);

	/* rsqrt: knots 2 - i/32 again, sqrt-style split (m in [0.5, 2), u = 16 m) */
	put(rec, ACTLUT_SCALE, 4);
	put(rec, ACTLUT_MODE, ACTLUT_MODE_RSQRT);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(l.kind, ACTLUT_KIND_RSQRT);
	CHECK_EQ(actlut_eval(&l, 0x4400), 0x3a00);       /* 4: m = 1 (u 16, knot 1.5), e = 2: 1.5/2 */
	CHECK_EQ(actlut_eval(&l, 0xbc00), 0x0000);       /* guide 03: rsqrt(-1) = +0 */
	CHECK_EQ(actlut_eval(&l, 0x8000), FP16_POS_INF); /* guide 03: rsqrt(-0) = +inf */
	CHECK_EQ(actlut_eval(&l, FP16_POS_INF), 0x0000);
	/* knots 2 - i/32 are not 1/sqrt: the predicted operation 6 does not describe them */
	CHECK_EQ(actlut_check_prediction(&l), ACTLUT_E_PREDICTION);
	/* the same words with their input clamp entirely at or below 0 contradict the slots */
	put(rec, ACTLUT_IN_HI, 0x8000);
	CHECK_EQ(actlut_parse(&l, rec, sizeof rec), ACTLUT_E_MODE_SLOTS);
	put(rec, ACTLUT_IN_HI, FP16_POS_INF);
	put(rec, ACTLUT_MODE, 0xa6); /* rsqrt without |x|: the float split works on |x| */
	CHECK_EQ(actlut_parse(&l, rec, sizeof rec), ACTLUT_E_MODE_BITS);

	/* step: linear only, tails 0 (left) and 1 (right), end values 0 and 1 */
	memset(rec, 0, sizeof rec);
	put(rec, ACTLUT_IN_LO, FP16_NEG_INF);
	put(rec, ACTLUT_IN_HI, FP16_POS_INF);
	put(rec, ACTLUT_OUT_HI, FP16_ONE);
	put(rec, ACTLUT_R_ICPT, FP16_ONE);
	put(rec, ACTLUT_SCALE, ACTLUT_SCALE_LINEAR);
	static const struct {
		uint16_t word, neg, pos, negz;
	} steps[] = {
		{0x00, 0x0000, FP16_ONE, 0x0000}, /* step(x): 0 reads knot 0 (0 here) */
		{0x01, 0x0000, FP16_ONE, 0x0000},
		{0x40, FP16_ONE, FP16_ONE, 0x0000}, /* of |x|: 1 except at 0 */
		{0x60, 0xbc00, FP16_ONE, 0x8000},   /* sign(x), the sign bit kept */
	};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		put(rec, ACTLUT_MODE, steps[i].word);
		REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
		CHECK_EQ(l.kind, ACTLUT_KIND_LINEAR);
		CHECK_EQ(actlut_eval(&l, 0xc100), steps[i].neg); /* -2.5 */
		CHECK_EQ(actlut_eval(&l, 0x4100), steps[i].pos);
		CHECK_EQ(actlut_eval(&l, 0x8000), steps[i].negz);
	}
	put(rec, ACTLUT_MODE, ACTLUT_MODE_EXP2); /* a split with no knots to index */
	CHECK_EQ(actlut_parse(&l, rec, sizeof rec), ACTLUT_E_LINEAR_MODE);

	/* knot spacing 2^-64: v = +-0 reads knot `off`, every other v a line (docs/actlut.md).
	 * floor's step: 1 below 0, 0 at and above 0 (the old reading, the left line at 0, gave
	 * floor(2) = 1) */
	memset(rec, 0, sizeof rec);
	put(rec, ACTLUT_IN_LO, 0x8001); /* -2^-24 */
	put(rec, ACTLUT_IN_HI, 0x0001);
	put(rec, ACTLUT_OUT_LO, FP16_ONE);
	put(rec, ACTLUT_L_ICPT, FP16_ONE);
	put(rec, ACTLUT_SCALE, ACTLUT_SCALE_LINEAR);
	put(rec, ACTLUT_MODE, 0x01);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0xb800), FP16_ONE); /* -0.5 */
	CHECK_EQ(actlut_eval(&l, 0x8001), FP16_ONE);
	CHECK_EQ(actlut_eval(&l, 0x0000), 0x0000);
	CHECK_EQ(actlut_eval(&l, 0x8000), 0x0000);
	CHECK_EQ(actlut_eval(&l, 0x0001), 0x0000);
	/* the select program's x == 0 indicator: knots 1, lines 0 */
	memset(rec, 0, sizeof rec);
	put(rec, ACTLUT_IN_LO, 0x8001);
	put(rec, ACTLUT_IN_HI, 0x0001);
	for (int i = 0; i < ACTLUT_KNOTS - 1; i++)
		put(rec, ACTLUT_KNOT0 + i, FP16_ONE);
	put(rec, ACTLUT_SCALE, ACTLUT_SCALE_LINEAR);
	put(rec, ACTLUT_MODE, 0x01);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x0000), FP16_ONE);
	CHECK_EQ(actlut_eval(&l, 0x8000), FP16_ONE);
	CHECK_EQ(actlut_eval(&l, 0x0001), 0x0000);
	CHECK_EQ(actlut_eval(&l, 0xbc00), 0x0000);
	/* operations 0 and 2 read knots 0 and 32 at v = 0 */
	put(rec, ACTLUT_KNOT0, 0x4000);		     /* 2 */
	put(rec, ACTLUT_KNOT0 + ACTLUT_KNOTS - 1, 0x4200); /* 3 */
	put(rec, ACTLUT_MODE, 0x00);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x0000), 0x4000);
	put(rec, ACTLUT_MODE, 0x02);
	REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x8000), 0x4200);
}

/* Golden vectors: every case in build/testdata/actlut/list.txt, all 65,536 inputs. */
TEST(actlut, golden_vectors)
{
	uint8_t *list;
	size_t llen;
	const char *lpath = test_data_path("actlut/list.txt");
	if (!lpath || test_read_file(lpath, &list, &llen))
		FAIL("no build/testdata/actlut/list.txt (make test generates it with tests/oracle)");
	static uint16_t table[ACTLUT_TABLE_LEN];
	int cases = 0;
	size_t pos = 0;
	while (pos < llen) {
		char name[64], path[96];
		size_t n = 0;
		while (pos < llen && list[pos] != '\n' && n + 1 < sizeof name)
			name[n++] = (char)list[pos++];
		name[n] = 0;
		pos++;
		if (!n)
			continue;
		uint8_t *rec, *out;
		size_t rlen, olen;
		snprintf(path, sizeof path, "actlut/%s.rec", name);
		REQUIRE(test_read_file(test_data_path(path), &rec, &rlen) == 0);
		snprintf(path, sizeof path, "actlut/%s.out", name);
		REQUIRE(test_read_file(test_data_path(path), &out, &olen) == 0);
		struct actlut l;
		CHECK_EQ(actlut_parse(&l, rec, rlen), ACTLUT_OK);
		CHECK_EQ(olen, 2 * ACTLUT_TABLE_LEN);
		if (olen == 2 * ACTLUT_TABLE_LEN && l.kind < ACTLUT_KIND__COUNT) {
			actlut_build_table(&l, table);
			uint32_t bad = 0, first = 0;
			for (uint32_t i = 0; i < ACTLUT_TABLE_LEN; i++) {
				uint16_t want = (uint16_t)(out[2 * i] | (out[2 * i + 1] << 8));
				if (table[i] != want && !bad++)
					first = i;
			}
			CHECKF(!bad, "%s: %lu outputs differ, first x=0x%04lx", name, (unsigned long)bad,
			       (unsigned long)first);
		}
		free(rec);
		free(out);
		cases++;
	}
	free(list);
	CHECK(cases >= 30);
}

/* The real records: where each sits in its fixture, and the kind and scale docs/actlut.md lists. */
static const struct {
	const char *path;
	size_t off;
	enum actlut_kind kind;
	int scale;
} real_recs[] = {
	{"fixtures/kernels/unary/exp.bin", 0x280, ACTLUT_KIND_EXP2, 5},
	{"fixtures/kernels/unary/log2.bin", 0x280, ACTLUT_KIND_LOG2, 6},
	{"fixtures/kernels/unary/sqrt.bin", 0x280, ACTLUT_KIND_SQRT, 4},
	{"fixtures/kernels/unary/tanh.bin", 0x280, ACTLUT_KIND_ODD, 3},
	{"fixtures/kernels/unary/sigmoid.bin", 0x580, ACTLUT_KIND_ODD, 2},
	{"fixtures/kernels/activation/gelu.bin", 0x280, ACTLUT_KIND_PLAIN, 2},
	{"fixtures/kernels/activation/relu6.bin", 0x280, ACTLUT_KIND_LINEAR, 64},
	{"fixtures/kernels/activation/leakyrelu.bin", 0x280, ACTLUT_KIND_LINEAR, 64},
	{"fixtures/kernels/activation/hardtanh.bin", 0x280, ACTLUT_KIND_LINEAR, 64},
	{"fixtures/hwx/sigmoid.hwx", 0x4280, ACTLUT_KIND_PLAIN, 1},
	{"fixtures/kernels/activation/softmax.bin", 0xe80, ACTLUT_KIND_EXP2, 5},
	{"fixtures/kernels/unary/inv.bin", 0x280, ACTLUT_KIND_RECIP, 6},
	{"fixtures/kernels/activation/selu.bin", 0x280, ACTLUT_KIND_PLAIN, 2},
	{"fixtures/kernels/unary/ceil.bin", 0xb80, ACTLUT_KIND_FRAC, 0},
	{"fixtures/kernels/unary/ceil.bin", 0xc00, ACTLUT_KIND_INT, 5},
	{"fixtures/kernels/unary/ceil.bin", 0xc80, ACTLUT_KIND_LINEAR, 64},
};

/* real_recs[i]'s 0x80 bytes into rec: 0, or -1 where its fixture cannot be read or ends before them */
static int read_real_rec(size_t i, uint8_t rec[ACTLUT_STRIDE])
{
	uint8_t *buf;
	size_t len;
	if (test_read_file(test_shared_path(real_recs[i].path), &buf, &len))
		return -1;
	const int ok = len >= real_recs[i].off + ACTLUT_STRIDE;
	if (ok)
		memcpy(rec, buf + real_recs[i].off, ACTLUT_STRIDE);
	free(buf);
	return ok ? 0 : -1;
}

/* The real records parse, with the modes docs/actlut.md lists for them. */
TEST(actlut, real_records)
{
	if (!test_shared_dir())
		SKIP("../shared absent: real activation records not checked");
	for (size_t i = 0; i < sizeof real_recs / sizeof real_recs[0]; i++) {
		uint8_t rec[ACTLUT_STRIDE];
		REQUIRE(read_real_rec(i, rec) == 0);
		struct actlut l;
		CHECK_EQ(actlut_parse(&l, rec, sizeof rec), ACTLUT_OK);
		CHECK_EQ(l.kind, real_recs[i].kind);
		CHECK_EQ(l.scale, real_recs[i].scale);
	}
	/* spot values: tanh(-1) = -tanh(1), relu6(10) = 6, log2(2) = 1 */
	uint8_t *buf;
	size_t len;
	struct actlut l;
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/unary/log2.bin"), &buf, &len) == 0);
	REQUIRE(len >= 0x280 + ACTLUT_BYTES && actlut_parse(&l, buf + 0x280, ACTLUT_BYTES) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x4000), FP16_ONE);
	free(buf);
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/activation/relu6.bin"), &buf, &len) == 0);
	REQUIRE(len >= 0x280 + ACTLUT_BYTES && actlut_parse(&l, buf + 0x280, ACTLUT_BYTES) == ACTLUT_OK);
	CHECK_EQ(actlut_eval(&l, 0x4900), 0x4600);
	free(buf);
}

/* The twelfth review: frac and int on x itself (0x03, 0x04) where the input clamp admits x < 0 are
 * refused by the consumer's check (ACTLUT_E_SIGNED_SPLIT): the real records split |x| (0x63, 0x64),
 * where floor and trunc agree. A clamp from -0 or above, |x| (0x43, 0x63) and the real words pass;
 * actlut_parse still reads every one (tools and golden vectors evaluate them). */
TEST(actlut, frac_and_int_on_a_signed_x_refused)
{
	static const struct {
		uint16_t word, in_lo;
		enum actlut_err want;
	} cases[] = {
		{0x63, 0xfc00, ACTLUT_OK},          {0x64, 0xfc00, ACTLUT_OK},
		{0x43, 0xfc00, ACTLUT_OK},          {0x44, 0xfc00, ACTLUT_OK},
		{0x03, 0x0000, ACTLUT_OK},          {0x04, 0x8000, ACTLUT_OK}, /* -0 admits no x < 0 */
		{0x03, 0x3c00, ACTLUT_OK},          {0x03, 0xfc00, ACTLUT_E_SIGNED_SPLIT},
		{0x04, 0xfc00, ACTLUT_E_SIGNED_SPLIT}, {0x03, 0x8001, ACTLUT_E_SIGNED_SPLIT},
		{0x04, 0xfbff, ACTLUT_E_SIGNED_SPLIT},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t rec[ACTLUT_BYTES];
		struct actlut l;
		memset(rec, 0, sizeof rec);
		put(rec, ACTLUT_IN_LO, cases[i].in_lo);
		put(rec, ACTLUT_IN_HI, 0x7c00);
		put(rec, ACTLUT_MODE, cases[i].word);
		REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK);
		CHECKF(actlut_check_prediction(&l) == cases[i].want, "word 0x%02x, in_lo 0x%04x: %s", cases[i].word,
		       cases[i].in_lo, actlut_err_name(actlut_check_prediction(&l)));
	}
	CHECK_STR(actlut_err_name(ACTLUT_E_SIGNED_SPLIT), "actlut-unpinned-signed-split");
}

/* The record's last 42 bytes (docs/actlut.md): actlut_check_padding refuses a nonzero byte in
 * 86 .. min(len, 128) - 1, naming the first, and reads nothing else. The 16 fixture records have
 * them zero (checked over each 0x80 stride); tanh.bin's with one byte set is refused at that
 * byte, each of 86 (the first), 127 (the last) and, of a range ending at 100, 99; a byte at 128
 * (the next record's) and the slots themselves are not its business. */
TEST(actlut, a_nonzero_byte_after_the_slots_refused)
{
	if (!test_shared_dir())
		SKIP("../shared absent: real activation records not checked");
	/* the 16 fixture records (real_recs) */
	uint8_t *buf, one[ACTLUT_STRIDE];
	size_t len, at = 0;
	for (size_t f = 0; f < sizeof real_recs / sizeof real_recs[0]; f++) {
		REQUIRE(read_real_rec(f, one) == 0);
		CHECKF(actlut_check_padding(one, ACTLUT_STRIDE, &at) == ACTLUT_OK, "%s at 0x%lx: byte %lu",
		       real_recs[f].path, (unsigned long)real_recs[f].off, (unsigned long)at);
	}
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/unary/tanh.bin"), &buf, &len) == 0);
	uint8_t rec[ACTLUT_STRIDE + 2];
	memcpy(rec, buf + 0x280, ACTLUT_STRIDE);
	free(buf);
	rec[ACTLUT_STRIDE] = rec[ACTLUT_STRIDE + 1] = 0xff; /* beyond the stride: not read */
	CHECK_EQ(actlut_check_padding(rec, sizeof rec, &at), ACTLUT_OK);
	CHECK_EQ(actlut_check_padding(rec, ACTLUT_BYTES, &at), ACTLUT_OK); /* nothing after the slots */
	static const struct {
		size_t at, len;
	} cases[] = {{86, ACTLUT_STRIDE}, {127, ACTLUT_STRIDE}, {99, 100}, {101, ACTLUT_STRIDE}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rec[cases[i].at] = 0x10;
		at = 0;
		CHECKF(actlut_check_padding(rec, cases[i].len, &at) == ACTLUT_E_PADDING && at == cases[i].at,
		       "byte %lu of %lu: at %lu", (unsigned long)cases[i].at, (unsigned long)cases[i].len,
		       (unsigned long)at);
		CHECK_EQ(actlut_check_padding(rec, cases[i].at, &at), ACTLUT_OK); /* a range ending before it */
		rec[cases[i].at] = 0;
	}
	/* two set: the first is named */
	rec[90] = 1;
	rec[120] = 1;
	CHECK(actlut_check_padding(rec, ACTLUT_STRIDE, &at) == ACTLUT_E_PADDING && at == 90);
	CHECK_EQ(actlut_check_padding(NULL, ACTLUT_STRIDE, &at), ACTLUT_E_NULL);
	CHECK_EQ(actlut_check_padding(rec, ACTLUT_STRIDE, NULL), ACTLUT_E_NULL);
	CHECK_STR(actlut_err_name(ACTLUT_E_PADDING), "actlut-nonzero-padding");
}

/* The thirteenth review: the sign bit (0x20) was read as sign(x) * F(|x|), an XOR of the sign,
 * on any record; docs/actlut.md says the output takes the sign of x. The two agree where F >= 0,
 * as in every real record with the bit (tanh's and sigmoid's 0x60, inv's 0x67, ceil's 0x63 and
 * 0x64), and differ where F < 0: log2.bin's record as 0x69 gave +1 at x = -0.5 (-1 at 0.5), and
 * tanh.bin's with knot 5 at -0.25 gave +0.25 at x = -0.625. Such records are refused by the
 * consumers' check (ACTLUT_E_SIGN_NEGATIVE): a negative knot or end value, or log2. Controls: the
 * 16 real records pass actlut_read_checked; exp's as 0x6a, sqrt's as 0x65 (values >= 0) and
 * tanh's with knot 5 at -0 pass; the same knot negative without the sign bit (0x40) passes. */
TEST(actlut, the_sign_bit_on_a_negative_value_refused)
{
	if (!test_shared_dir())
		SKIP("../shared absent: real activation records not checked");
	uint8_t *buf;
	size_t len, at = 0;
	struct actlut l;
	for (size_t f = 0; f < sizeof real_recs / sizeof real_recs[0]; f++) {
		uint8_t one[ACTLUT_STRIDE];
		REQUIRE(read_real_rec(f, one) == 0);
		const enum actlut_err e = actlut_read_checked(&l, one, ACTLUT_STRIDE, &at);
		CHECKF(e == ACTLUT_OK, "%s: %s", real_recs[f].path, actlut_err_name(e));
	}
	static const struct {
		const char *path;
		int slot;      /* the slot set (-1: none) */
		uint16_t value;
		uint16_t word; /* slot 42 */
		enum actlut_err want;
	} cases[] = {
		{"fixtures/kernels/unary/log2.bin", -1, 0, 0x69, ACTLUT_E_SIGN_NEGATIVE},
		{"fixtures/kernels/unary/tanh.bin", ACTLUT_KNOT0 + 5, 0xb400, 0x60, ACTLUT_E_SIGN_NEGATIVE},
		{"fixtures/kernels/unary/tanh.bin", ACTLUT_OUT_LO, 0xbc00, 0x60, ACTLUT_E_SIGN_NEGATIVE},
		{"fixtures/kernels/unary/inv.bin", ACTLUT_KNOT0 + 31, 0xb800, 0x67, ACTLUT_E_SIGN_NEGATIVE},
		{"fixtures/kernels/unary/tanh.bin", ACTLUT_KNOT0 + 5, 0x8000, 0x60, ACTLUT_OK},
		{"fixtures/kernels/unary/tanh.bin", ACTLUT_KNOT0 + 5, 0xb400, 0x40, ACTLUT_OK},
		{"fixtures/kernels/unary/exp.bin", -1, 0, 0x6a, ACTLUT_OK},
		{"fixtures/kernels/unary/sqrt.bin", -1, 0, 0x65, ACTLUT_OK},
		{"fixtures/kernels/unary/log2.bin", -1, 0, 0xc9, ACTLUT_OK},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		REQUIRE(test_read_file(test_shared_path(cases[i].path), &buf, &len) == 0);
		REQUIRE(len >= 0x280 + ACTLUT_STRIDE);
		uint8_t rec[ACTLUT_STRIDE];
		memcpy(rec, buf + 0x280, sizeof rec);
		free(buf);
		if (cases[i].slot >= 0)
			put(rec, cases[i].slot, cases[i].value);
		put(rec, ACTLUT_MODE, cases[i].word);
		REQUIRE(actlut_parse(&l, rec, sizeof rec) == ACTLUT_OK); /* the parser reads every one */
		const enum actlut_err e = actlut_read_checked(&l, rec, sizeof rec, &at);
		CHECKF(e == cases[i].want, "%s, slot %d = 0x%04x, word 0x%02x: %s", cases[i].path, cases[i].slot,
		       cases[i].value, cases[i].word, actlut_err_name(e));
	}
	CHECK_STR(actlut_err_name(ACTLUT_E_SIGN_NEGATIVE), "actlut-unpinned-sign-of-negative");
}
