#include "fw/common/fp16.h"
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
