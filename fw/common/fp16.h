/*
 * IEEE 754 binary16 as bit patterns, in integer arithmetic only (fw/ never uses floating point).
 * Rounding has one home: fp_round_grid rounds an exact value m * 2^exp once, ties to even, to a
 * binary grid of a given precision and finest quantum (the shape of every IEEE-style format,
 * without its overflow rule); fp16_from_scaled is that grid for binary16 (11 bits, quantum 2^-24)
 * plus the overflow to infinity. Other formats (E4M3 in fw/codec) use fp_round_grid directly.
 */
#ifndef ANEFW_FP16_H
#define ANEFW_FP16_H

#include <stddef.h>
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

/*
 * m * 2^exp (m > 0) rounded once to the nearest value s * 2^q with s < 2^prec and q >= qmin,
 * ties to even, where q = max(qmin, floor(log2(m * 2^exp)) - prec + 1) (before a carry).
 * Returns s and sets *q. A carry into the next binade (s reaching 2^prec) is renormalised to
 * s = 2^(prec-1), q + 1. s < 2^(prec-1) only when q == qmin (a subnormal, or 0 when the value is
 * below half the finest quantum). No overflow rule: the caller compares *q with its largest
 * exponent. m == 0 gives 0 with *q = qmin. prec is 1..63. Loop-free (one count-leading-zeros).
 */
uint64_t fp_round_grid(uint64_t m, int64_t exp, unsigned prec, int64_t qmin, int64_t *q);

/* An fp16 as decimal text for people (docs, inspect): the value rounded to 6 decimals with
 * trailing zeros dropped ("1", "0.5", "1.442383", "-inf", "nan"; a value under 5e-7 prints 0).
 * Always NUL-terminated within cap. */
void fp16_format(uint16_t h, char *buf, size_t cap);

/* fp16_format, but a subnormal exactly, as "M x 2^-E" with M odd ("2^-E" when M is 1; "3 x 2^-24"
 * for 0x0003), where six decimals would print 0 or one digit. */
void fp16_format_sub(uint16_t h, char *buf, size_t cap);

/* mant * 2^exp rounded to the nearest fp16, ties to even; beyond 65504 rounds to +-infinity. */
uint16_t fp16_from_scaled(int64_t mant, int32_t exp);

/*
 * fp16_from_scaled for |mant| < 2^45 and -64 <= exp <= 64 (the range of scale * (q - offset)
 * in fw/codec), with the same result, for hot loops: inline, no loops and one branch. The
 * significand is moved up to bit 62 so that the rounding always drops 8..62 bits; then
 * round-to-nearest-even is one add and one shift, and the pattern is (q + 24) << 10 plus the
 * rounded significand, whose implicit bit (1024) lands in the exponent field, so a carry into the
 * next binade and the step from subnormal to normal need no special case; past 65504 the pattern
 * is clamped to infinity.
 */
static inline uint16_t fp16_from_scaled_fast(int64_t mant, int32_t exp)
{
	if (mant == 0)
		return 0;
	uint16_t sign = mant < 0 ? FP16_SIGN : 0;
	uint64_t a = (uint64_t)(mant < 0 ? -mant : mant) << 18;
	int32_t e = exp - 18;
	int32_t top = 63 - __builtin_clzll(a) + e;     /* value in [2^top, 2^(top+1)) */
	int32_t q = top - 10 < -24 ? -24 : top - 10; /* quantum 2^q */
	unsigned drop = (unsigned)(q - e);            /* 8..62 in the stated range */
	uint64_t s = (a + ((1ull << (drop - 1)) - 1) + ((a >> drop) & 1)) >> drop;
	int64_t h = ((int64_t)(q + 24) << 10) + (int64_t)s;
	return (uint16_t)(sign | (h > FP16_POS_INF ? FP16_POS_INF : (uint16_t)h));
}

#endif
