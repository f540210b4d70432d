#include "fw/common/fp16.h"

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
	char t[32];
	size_t n = 0;
	if (!buf || !cap)
		return;
	if (fp16_is_nan(h)) {
		memcpy(t, "nan", 4);
		n = 3;
	} else {
		if (h & FP16_SIGN)
			t[n++] = '-';
		if (fp16_is_inf(h)) {
			memcpy(t + n, "inf", 4);
			n += 3;
		} else {
			int32_t m, e;
			fp16_decompose((uint16_t)(h & 0x7fffu), &m, &e);
			/* the value x 10^6, rounded to nearest (half up): |m| < 2^11, e >= -24 */
			uint64_t v = e >= 0 ? ((uint64_t)m << e) * 1000000u
					    : (((uint64_t)m * 1000000u << 1 >> -e) + 1) >> 1;
			uint64_t ip = v / 1000000u, fr = v % 1000000u;
			char d[24];
			size_t k = 0;
			do {
				d[k++] = (char)('0' + ip % 10);
				ip /= 10;
			} while (ip);
			while (k)
				t[n++] = d[--k];
			if (fr) {
				t[n++] = '.';
				for (uint64_t p = 100000u; p && fr; p /= 10) {
					t[n++] = (char)('0' + fr / p);
					fr %= p;
				}
			}
			t[n] = 0;
		}
	}
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, t, n);
	buf[n] = 0;
}
