#include "fw/common/fp16.h"
#include "fw/common/outf.h"

#include <string.h>
#include "tests/harness/harness.h"

TEST(fp16, every_finite_value_round_trips)
{
	unsigned bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++) {
		if (!fp16_is_finite((uint16_t)h) || h == 0x8000)
			continue;
		int32_t m, e;
		fp16_decompose((uint16_t)h, &m, &e);
		/* the same value, written with a wider mantissa, must give the same pattern */
		bad += fp16_from_scaled(m, e) != h;
		bad += fp16_from_scaled((int64_t)m * (1 << 20), e - 20) != h;
	}
	CHECK_EQ(bad, 0);
}

TEST(fp16, rounding_ties_to_even_and_limits)
{
	/* 1 + 2^-11 is halfway between 1.0 and the next fp16 (1 + 2^-10): ties to even = 1.0 */
	CHECK_EQ(fp16_from_scaled((1 << 11) + 1, -11), 0x3c00);
	/* 1 + 3*2^-11 is halfway between 1+2^-10 and 1+2^-9: ties to even = 1+2^-9 (0x3c02) */
	CHECK_EQ(fp16_from_scaled((1 << 11) + 3, -11), 0x3c02);
	/* just above halfway rounds up */
	CHECK_EQ(fp16_from_scaled((1 << 12) + 3, -12), 0x3c01);
	CHECK_EQ(fp16_from_scaled(65504, 0), 0x7bff);
	CHECK_EQ(fp16_from_scaled(65519, 0), 0x7bff);  /* below the halfway point to 65536 */
	CHECK_EQ(fp16_from_scaled(65520, 0), 0x7c00);  /* halfway: ties to even = infinity */
	CHECK_EQ(fp16_from_scaled(-70000, 0), 0xfc00);
	CHECK_EQ(fp16_from_scaled(1, -24), 0x0001);    /* smallest subnormal */
	CHECK_EQ(fp16_from_scaled(1, -25), 0x0000);    /* half of it: ties to even = 0 */
	CHECK_EQ(fp16_from_scaled(3, -26), 0x0001);    /* 0.75 of it rounds up */
	CHECK_EQ(fp16_from_scaled(-1, -26), 0x8000);   /* negative underflow keeps its sign */
	CHECK_EQ(fp16_from_scaled(1023, -24), 0x03ff); /* largest subnormal */
	CHECK_EQ(fp16_from_scaled(2047, -25), 0x0400); /* rounds up into the normals */
	CHECK_EQ(fp16_from_scaled(INT64_MIN, -80), 0x8080); /* -2^-17 = -128 * 2^-24 */
	CHECK_EQ(fp16_from_scaled(INT64_MAX, 0), 0x7c00);
	CHECK_EQ(fp16_from_scaled(1, 1000000), 0x7c00);
	CHECK_EQ(fp16_from_scaled(1, -1000000), 0x0000);
}

/* Reference rounding written the hardware way (independent of fp_round_grid's one-step form):
 * normalise, then shift right one bit at a time keeping a guard and a sticky bit, then round to
 * nearest even on them. */
static uint64_t ref_round_grid(uint64_t m, int64_t e, unsigned prec, int64_t qmin, int64_t *q)
{
	if (m == 0) {
		*q = qmin;
		return 0;
	}
	while (m < (1ull << (prec - 1)) && e > qmin) {
		m <<= 1;
		e--;
	}
	unsigned guard = 0, sticky = 0;
	while (m >= (1ull << prec) || e < qmin) {
		sticky |= guard;
		guard = m & 1;
		m >>= 1;
		e++;
	}
	if (guard && (sticky || (m & 1)))
		m++;
	if (m == (1ull << prec)) {
		m >>= 1;
		e++;
	}
	*q = e;
	return m;
}

TEST(fp16, round_grid_matches_bitwise_reference)
{
	/* every significand up to 2^13 at every exponent from far below the finest quantum to well
	 * above, for the fp16 grid (11 bits, 2^-24) and the E4M3 grid (4 bits, 2^-9) */
	static const unsigned precs[2] = {11, 4};
	static const int64_t qmins[2] = {-24, -9};
	unsigned bad = 0;
	for (unsigned g = 0; g < 2; g++)
		for (int64_t e = -40; e <= 8; e++)
			for (uint64_t m = 0; m <= 8192; m++) {
				int64_t q, rq;
				uint64_t s = fp_round_grid(m, e, precs[g], qmins[g], &q);
				uint64_t r = ref_round_grid(m, e, precs[g], qmins[g], &rq);
				bad += s != r || (s && q != rq);
			}
	CHECK_EQ(bad, 0);
	/* a 64-bit significand and ties exactly at the edge of a 64-bit shift */
	int64_t q;
	CHECK_EQ(fp_round_grid(UINT64_MAX, 0, 11, -24, &q), 1024);
	CHECK_EQ(q, 54);
	CHECK_EQ(fp_round_grid(1ull << 63, -64 - 24, 11, -24, &q), 0); /* half the quantum: even */
	CHECK_EQ(fp_round_grid((1ull << 63) + 1, -64 - 24, 11, -24, &q), 1);
}

TEST(fp16, from_scaled_matches_grid_reference)
{
	/* fp16_from_scaled = the fp16 grid plus the overflow rule, for signed significands */
	unsigned bad = 0;
	for (int64_t e = -30; e <= 6; e++)
		for (int64_t m = -5000; m <= 5000; m++) {
			int64_t rq;
			uint64_t r = ref_round_grid((uint64_t)(m < 0 ? -m : m), e, 11, -24, &rq);
			uint16_t want = m < 0 ? FP16_SIGN : 0;
			if (r && rq > 5)
				want |= FP16_POS_INF;
			else if (r >= 1024)
				want |= (uint16_t)(((rq + 25) << 10) | (int64_t)(r - 1024));
			else
				want |= (uint16_t)r;
			if (m == 0)
				want = 0;
			bad += fp16_from_scaled(m, (int32_t)e) != want;
		}
	CHECK_EQ(bad, 0);
}

TEST(fp16, from_scaled_fast_matches_general)
{
	/* every significand |m| <= 2^14 at every exponent of the fast entry's range, then random
	 * significands up to 2^45 (all bit lengths) over the same range */
	unsigned bad = 0;
	for (int32_t e = -64; e <= 64; e++)
		for (int64_t m = -16384; m <= 16384; m++)
			bad += fp16_from_scaled_fast(m, e) != fp16_from_scaled(m, e);
	for (unsigned k = 0; k < 200000; k++) {
		uint64_t r = ((uint64_t)test_rand() << 32) ^ test_rand();
		int64_t m = (int64_t)(r >> (19 + k % 45));
		int32_t e = (int32_t)(k % 129) - 64;
		if (k & 1)
			m = -m;
		bad += fp16_from_scaled_fast(m, e) != fp16_from_scaled(m, e);
	}
	CHECK_EQ(bad, 0);
}

/* outf (fw/common) cuts a line longer than its buffer, marks the cut and keeps the newline the
 * format ends with; a short line passes whole */
static char outf_got[OUTF_LINE + 8];
static size_t outf_n;
static void outf_keep(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	memcpy(outf_got, s, n);
	outf_n = n;
}

TEST(outf, long_lines_cut_marked_and_still_ended)
{
	char big[OUTF_LINE * 2];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	outf(outf_keep, NULL, "%s\n", big);
	CHECK_EQ(outf_n, (size_t)OUTF_LINE - 1);
	CHECK_EQ(outf_got[outf_n - 1], '\n');
	CHECK(!memcmp(outf_got + outf_n - 4, "...\n", 4));
	outf(outf_keep, NULL, "%s", big); /* a piece of a line: no newline added */
	CHECK_EQ(outf_n, (size_t)OUTF_LINE - 1);
	CHECK(!memcmp(outf_got + outf_n - 3, "...", 3));
	outf(outf_keep, NULL, "td %u\n", 7u);
	CHECK_EQ(outf_n, 5u);
	CHECK(!memcmp(outf_got, "td 7\n", 5));
}
