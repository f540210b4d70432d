#include "fw/common/fp16.h"

#include <stdio.h>
#include <string.h>

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

uint64_t fp_round_grid(uint64_t m, int64_t exp, unsigned prec, int64_t qmin, int64_t *q)
{
	if (m == 0) {
		*q = qmin;
		return 0;
	}
	/* the value lies in [2^top, 2^(top+1)); its quantum is 2^qq */
	int64_t top = (int64_t)(63 - __builtin_clzll(m)) + exp;
	int64_t qq = top - (int64_t)(prec - 1);
	if (qq < qmin)
		qq = qmin;
	int64_t drop = qq - exp;
	uint64_t s;
	if (drop <= 0) {
		s = m << (unsigned)(-drop); /* exact: at most prec significant bits */
	} else if (drop >= 64) {
		s = drop == 64 && m > (1ull << 63); /* below half a quantum is 0; exactly half ties to 0 */
	} else {
		uint64_t keep = m >> drop;
		uint64_t rem = m & ((1ull << drop) - 1);
		uint64_t half = 1ull << (drop - 1);
		s = keep + (rem > half || (rem == half && (keep & 1)));
	}
	if (s >> prec) { /* rounding carried into a new binade: s == 2^prec */
		s >>= 1;
		qq++;
	}
	*q = qq;
	return s;
}

uint16_t fp16_from_scaled(int64_t mant, int32_t exp)
{
	uint16_t sign = mant < 0 ? FP16_SIGN : 0;
	uint64_t m = mant < 0 ? (uint64_t)0 - (uint64_t)mant : (uint64_t)mant;
	int64_t q;
	uint64_t s = fp_round_grid(m, exp, 11, -24, &q);
	if (s == 0)
		return sign;
	if (q > 5)
		return sign | FP16_EXP_MASK;
	if (s < 1024)
		return (uint16_t)(sign | s); /* subnormal: q is -24 */
	return (uint16_t)(sign | ((uint16_t)(q + 25) << 10) | (uint16_t)(s - 1024));
}

void fp16_format(uint16_t h, char *buf, size_t cap)
{
	if (!buf || !cap)
		return;
	const char *sign = (h & FP16_SIGN) ? "-" : "";
	if (fp16_is_nan(h)) {
		snprintf(buf, cap, "nan");
		return;
	}
	if (fp16_is_inf(h)) {
		snprintf(buf, cap, "%sinf", sign);
		return;
	}
	int32_t m, e;
	fp16_decompose((uint16_t)(h & 0x7fffu), &m, &e);
	/* the value x 10^6, rounded to nearest (half up): |m| < 2^11, e >= -24 */
	uint64_t v = e >= 0 ? ((uint64_t)m << e) * 1000000u
			    : (((uint64_t)m * 1000000u << 1 >> -e) + 1) >> 1;
	char frac[8];
	snprintf(frac, sizeof frac, "%06lu", (unsigned long)(v % 1000000u));
	size_t k = strlen(frac);
	while (k && frac[k - 1] == '0')
		frac[--k] = 0;
	snprintf(buf, cap, "%s%lu%s%s", sign, (unsigned long)(v / 1000000u), k ? "." : "", frac);
}

void fp16_format_sub(uint16_t h, char *buf, size_t cap)
{
	unsigned m = h & FP16_FRAC_MASK, e = 24;
	if (!buf || !cap || (h & FP16_EXP_MASK) || !m) {
		fp16_format(h, buf, cap);
		return;
	}
	while (!(m & 1u)) { /* m x 2^-24 with m odd */
		m >>= 1;
		e--;
	}
	const char *sign = (h & FP16_SIGN) ? "-" : "";
	if (m == 1u)
		snprintf(buf, cap, "%s2^-%u", sign, e);
	else
		snprintf(buf, cap, "%s%u x 2^-%u", sign, m, e);
}
