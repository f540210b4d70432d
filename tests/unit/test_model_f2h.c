/*
 * The engine model's fp32 -> fp16 conversion (engine/model/compute.c): anem_f2h, the datapath's
 * (the processor's FCVT on aarch64, with NaN made +0), must give the same fp16 as the portable
 * integer anem_f2h_soft for every class of float: zeros, fp32 subnormals, values under, at and
 * just above 2^-25, every fp16 value, the floats one ulp either side of it and of the halfway
 * point to the next, the overflow boundary (65520), infinities, quiet and signalling NaNs of
 * both signs, and a stride over all 2^32 bit patterns. Natively both are the integer one.
 */
#include "engine/model/compute.h"
#include "tests/harness/harness.h"

#include <stdio.h>

static float bits_f(uint32_t u)
{
	union { uint32_t u; float f; } x = {.u = u};
	return x.f;
}

static uint32_t f_bits(float f)
{
	union { float f; uint32_t u; } x = {.f = f};
	return x.u;
}

typedef uint16_t (*conv_fn)(float);

static uint64_t mismatches, first_bad = UINT64_MAX;

static void one(conv_fn a, conv_fn b, uint32_t u)
{
	float f = bits_f(u);
	if (a(f) != b(f)) {
		if (!mismatches)
			first_bad = u;
		mismatches++;
	}
}

/* Compares a and b over the classes above; returns the number of floats they disagree on. */
static uint64_t compare(conv_fn a, conv_fn b)
{
	static const uint32_t edge[] = {
		0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00800000u, /* zeros, fp32 subnormals */
		0x33000000u, 0x33000001u, 0x32ffffffu, 0xb3000000u, 0xb3000001u, /* 2^-25 and around */
		0x33800000u, 0x33c00000u, 0x33a00000u, 0x38800000u, 0x387fffffu, /* 2^-24, fp16 normals */
		0x3f801000u, 0x3f803000u, 0x3f801001u, 0x3f802fffu,             /* ties to even at 1 */
		0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, 0x47800000u, /* 65504 .. 65536 */
		0xc77ff000u, 0x7f7fffffu, 0xff7fffffu,                           /* overflow */
		0x7f800000u, 0xff800000u,                                        /* infinities */
		0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fbfffffu, /* NaNs */
		0x7fffffffu, 0x7fe00000u, 0x7f802000u,
	};
	mismatches = 0;
	first_bad = UINT64_MAX;
	for (unsigned i = 0; i < sizeof edge / sizeof edge[0]; i++)
		one(a, b, edge[i]);
	for (uint32_t h = 0; h < 0x10000u; h++) {
		if ((h & 0x7c00u) == 0x7c00u)
			continue; /* inf and NaN: above */
		uint32_t u = f_bits(anem_h2f((uint16_t)h));
		uint32_t next = f_bits(anem_h2f((uint16_t)((h & 0x7fffu) == 0x7bffu ? h : h + 1u)));
		/* the halfway point to the next fp16 (exact in fp32), and the floats around both */
		uint32_t mid = (h & 0x7fffu) == 0x7bffu ? (h & 0x8000u ? 0xc77ff000u : 0x477ff000u)
							   : f_bits((bits_f(u) + bits_f(next)) * 0.5f);
		for (int d = -2; d <= 2; d++) {
			one(a, b, u + (uint32_t)d);
			one(a, b, mid + (uint32_t)d);
		}
	}
	for (uint64_t u = 0; u < (1ull << 32); u += 4093u) /* a prime stride over every pattern */
		one(a, b, (uint32_t)u);
	return mismatches;
}

TEST(model, f2h_hardware_matches_software)
{
	uint64_t n = compare(anem_f2h, anem_f2h_soft);
	printf("model f2h: %s, %lu mismatches\n",
	       anem_f2h_is_fcvt() ? "the processor's FCVT against the integer conversion"
				  : "the integer conversion (no FCVT here)",
	       (unsigned long)n);
	CHECKF(n == 0, "first mismatch at 0x%08lx", (unsigned long)first_bad);
}

/* The comparison catches a wrong conversion: truncating instead of rounding. */
static uint16_t f2h_truncating(float f)
{
	uint32_t x = f_bits(f), ax = x & 0x7fffffffu;
	if (ax < 0x38800000u || ax >= 0x477ff000u)
		return anem_f2h_soft(f);
	return (uint16_t)(((x >> 16) & 0x8000u) | ((ax - 0x38000000u) >> 13));
}

static uint16_t f2h_nan_payload(float f)
{
	return f != f ? (uint16_t)(0x7c00u | (f_bits(f) >> 13 & 0x3ffu) | 1u) : anem_f2h_soft(f);
}

TEST(model, f2h_comparison_catches_wrong_conversions)
{
	CHECK(compare(anem_f2h, f2h_truncating) > 0);
	CHECK(compare(anem_f2h, f2h_nan_payload) > 0);
}
