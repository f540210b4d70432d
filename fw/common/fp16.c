#include "fw/common/fp16.h"

void fp16_decompose(uint16_t h, int32_t *mant, int32_t *exp)
{
	int32_t e = (int32_t)((h >> 10) & 0x1f);
	int32_t m = (int32_t)(h & FP16_FRAC_MASK);
	if (e == 0) {
		*exp = -24; /* subnormal (or zero): m * 2^-24 */
	} else {
		m |= 0x400;
		*exp = e - 25;
	}
	*mant = (h & FP16_SIGN) ? -m : m;
}

static int bit_length(uint64_t v)
{
	int n = 0;
	while (v) {
		n++;
		v >>= 1;
	}
	return n;
}

uint16_t fp16_from_scaled(int64_t mant, int32_t exp)
{
	uint16_t sign = mant < 0 ? FP16_SIGN : 0;
	uint64_t m = mant < 0 ? (uint64_t)0 - (uint64_t)mant : (uint64_t)mant;
	if (m == 0)
		return 0;
	int64_t e_top = (int64_t)bit_length(m) - 1 + exp; /* value in [2^e_top, 2^(e_top+1)) */
	if (e_top > 15)
		return sign | FP16_EXP_MASK;
	/* quantum: 2^q with q = e_top - 10 for normals, -24 for subnormals */
	int64_t q = e_top - 10 < -24 ? -24 : e_top - 10;
	int64_t drop = q - exp;
	uint64_t s;
	if (drop <= 0) {
		s = m << (unsigned)(-drop); /* exact: fewer than 11 significant bits */
	} else if (drop > 64) {
		s = 0;
	} else if (drop == 64) {
		s = m > (1ull << 63) ? 1 : 0;
	} else {
		uint64_t keep = m >> drop;
		uint64_t rem = m & ((1ull << drop) - 1);
		uint64_t half = 1ull << (drop - 1);
		s = keep + (rem > half || (rem == half && (keep & 1)));
	}
	if (s == 0)
		return sign;
	if (s >= 2048) { /* rounding carried into a new binade */
		s >>= 1;
		q++;
	}
	if (q > 5)
		return sign | FP16_EXP_MASK;
	if (s < 1024)
		return (uint16_t)(sign | s); /* subnormal: q is -24 */
	return (uint16_t)(sign | ((uint16_t)(q + 25) << 10) | (uint16_t)(s - 1024));
}
