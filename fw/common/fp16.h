/*
 * IEEE 754 binary16 as bit patterns, in integer arithmetic only (fw/ never uses floating point).
 * The one rounding primitive is fp16_from_scaled: the exact value mant * 2^exp rounded once to
 * the nearest fp16, ties to even, overflowing to infinity.
 */
#ifndef ANEFW_FP16_H
#define ANEFW_FP16_H

#include <stdint.h>

#define FP16_SIGN 0x8000u
#define FP16_EXP_MASK 0x7c00u
#define FP16_FRAC_MASK 0x03ffu
#define FP16_POS_INF 0x7c00u
#define FP16_NEG_INF 0xfc00u
#define FP16_QNAN 0x7e00u
#define FP16_ONE 0x3c00u
#define FP16_MAX 0x7bffu /* 65504 */

static inline int fp16_is_nan(uint16_t h)
{
	return (h & FP16_EXP_MASK) == FP16_EXP_MASK && (h & FP16_FRAC_MASK);
}

static inline int fp16_is_inf(uint16_t h)
{
	return (h & 0x7fffu) == FP16_EXP_MASK;
}

static inline int fp16_is_finite(uint16_t h)
{
	return (h & FP16_EXP_MASK) != FP16_EXP_MASK;
}

/*
 * A finite fp16 as value = mant * 2^exp with mant a signed integer, |mant| < 2^11, and
 * exp in -24..5. Zero gives mant 0 (the sign of -0 is lost). Not for NaN or infinity.
 */
void fp16_decompose(uint16_t h, int32_t *mant, int32_t *exp);

/* mant * 2^exp rounded to the nearest fp16, ties to even; beyond 65504 rounds to +-infinity. */
uint16_t fp16_from_scaled(int64_t mant, int32_t exp);

#endif
