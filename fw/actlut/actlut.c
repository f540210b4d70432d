/*
 * Activation LUT evaluation in integer arithmetic. Every intermediate is exact: inputs become
 * fixed point with 24 fraction bits (an fp16 has no bit below 2^-24), knots integers in units
 * of 2^-24, and an interpolated or tail value an __int128 in units of 2^-48. The one rounding
 * is fp16_from_scaled at the end (after a sticky right shift to 24 bits, which cannot change
 * a round-to-nearest-even result to 11 bits).
 */
#include "fw/actlut/actlut.h"

#include "fw/common/fp16.h"
#include "fw/common/le.h"

#define FRAC 24
#define ONE_FIX ((int64_t)1 << FRAC)

typedef __int128 i128;
typedef unsigned __int128 u128;

static const char *const err_names[ACTLUT_ERR_COUNT] = {
	[ACTLUT_OK] = "ok",
	[ACTLUT_ERR_NULL] = "null pointer",
	[ACTLUT_ERR_SHORT] = "record shorter than 86 bytes",
	[ACTLUT_ERR_NAN] = "NaN in a clamp, knot or tail slot",
	[ACTLUT_ERR_INF_COEF] = "infinite knot, slope or intercept",
	[ACTLUT_ERR_CLAMP_ORDER] = "clamp low above clamp high",
	[ACTLUT_ERR_SCALE] = "scale slot (41) not 0..20 or 64",
	[ACTLUT_ERR_MODE] = "unknown mode word (slot 42)",
	[ACTLUT_ERR_LINEAR_MODE] = "linear-only record with a mode word other than 1",
};

const char *actlut_strerror(enum actlut_err err)
{
	if ((unsigned)err >= ACTLUT_ERR_COUNT)
		return "unknown error";
	return err_names[err];
}

const char *actlut_kind_name(enum actlut_kind kind)
{
	switch (kind) {
	case ACTLUT_KIND_LINEAR: return "linear";
	case ACTLUT_KIND_PLAIN: return "plain";
	case ACTLUT_KIND_ODD: return "odd";
	case ACTLUT_KIND_EXP2: return "exp2";
	case ACTLUT_KIND_LOG2: return "log2";
	case ACTLUT_KIND_SQRT: return "sqrt";
	case ACTLUT_KIND_RECIP: return "recip";
	case ACTLUT_KIND_RSQRT: return "rsqrt";
	}
	return "?";
}

/* Total order key of a non-NaN fp16 (+0 and -0 equal). */
static int32_t fkey(uint16_t h)
{
	return (h & FP16_SIGN) ? -(int32_t)(h & 0x7fffu) : (int32_t)(h & 0x7fffu);
}

/* Finite fp16 as an integer in units of 2^-24 (exact: |value| < 2^16, so < 2^40). */
static int64_t fix24(uint16_t h)
{
	int32_t m, e;
	fp16_decompose(h, &m, &e);
	return (int64_t)m * ((int64_t)1 << (e + 24));
}

enum actlut_err actlut_parse(struct actlut *out, const uint8_t *buf, size_t len)
{
	if (!out || !buf)
		return ACTLUT_ERR_NULL;
	if (len < ACTLUT_BYTES)
		return ACTLUT_ERR_SHORT;
	uint16_t s[ACTLUT_SLOTS];
	for (int i = 0; i < ACTLUT_SLOTS; i++)
		s[i] = le_rd16(buf + 2 * i);
	for (int i = 0; i <= ACTLUT_R_ICPT; i++)
		if (fp16_is_nan(s[i]))
			return ACTLUT_ERR_NAN;
	for (int i = ACTLUT_KNOT0; i <= ACTLUT_R_ICPT; i++)
		if (fp16_is_inf(s[i]))
			return ACTLUT_ERR_INF_COEF;
	if (fkey(s[ACTLUT_IN_LO]) > fkey(s[ACTLUT_IN_HI]) ||
	    fkey(s[ACTLUT_OUT_LO]) > fkey(s[ACTLUT_OUT_HI]))
		return ACTLUT_ERR_CLAMP_ORDER;
	uint16_t sc = s[ACTLUT_SCALE], mode = s[ACTLUT_MODE];
	if (sc > ACTLUT_SCALE_MAX && sc != ACTLUT_SCALE_LINEAR)
		return ACTLUT_ERR_SCALE;
	enum actlut_kind kind;
	switch (mode) {
	case ACTLUT_MODE_PLAIN: kind = ACTLUT_KIND_PLAIN; break;
	case ACTLUT_MODE_ODD: kind = ACTLUT_KIND_ODD; break;
	case ACTLUT_MODE_EXP2: kind = ACTLUT_KIND_EXP2; break;
	case ACTLUT_MODE_LOG2: kind = ACTLUT_KIND_LOG2; break;
	case ACTLUT_MODE_SQRT: kind = ACTLUT_KIND_SQRT; break;
	case ACTLUT_MODE_RECIP: kind = ACTLUT_KIND_RECIP; break;
	case ACTLUT_MODE_RSQRT: kind = ACTLUT_KIND_RSQRT; break;
	default: return ACTLUT_ERR_MODE;
	}
	if (sc == ACTLUT_SCALE_LINEAR) {
		if (kind != ACTLUT_KIND_PLAIN)
			return ACTLUT_ERR_LINEAR_MODE;
		kind = ACTLUT_KIND_LINEAR;
	}
	/* valid: fill the output */
	for (int i = 0; i < ACTLUT_SLOTS; i++)
		out->slot[i] = s[i];
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		out->knot[i] = fix24(s[ACTLUT_KNOT0 + i]);
	out->kind = kind;
	out->scale = sc;
	out->table = NULL;
	return ACTLUT_OK;
}

/* An exact value: y * 2^-48, or an infinity (inf = +1 / -1). */
struct xval {
	i128 y;
	int inf;
};

/*
 * Rounds y * 2^e once to fp16 (nearest, ties to even). A sticky right shift first keeps 24
 * significant bits: the rounding point of an 11-bit result lies at least 13 bits below the top,
 * so folding the dropped bits into bit 0 cannot change the rounding (and keeps
 * fp16_from_scaled's work small).
 */
static uint16_t round_val(i128 y, int32_t e)
{
	int neg = y < 0;
	u128 m = neg ? (u128)0 - (u128)y : (u128)y;
	uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
	int bl = hi ? 128 - __builtin_clzll(hi) : (lo ? 64 - __builtin_clzll(lo) : 0);
	if (bl > 24) {
		int sh = bl - 24;
		u128 sticky = (m & (((u128)1 << sh) - 1)) != 0;
		m = (m >> sh) | sticky;
		e += sh;
	}
	int64_t mm = (int64_t)(uint64_t)m;
	return fp16_from_scaled(neg ? -mm : mm, e);
}

/* fp16 (finite) as units of 2^-48. */
static i128 fix48(uint16_t h)
{
	int32_t m, e;
	fp16_decompose(h, &m, &e);
	return (i128)m * ((i128)1 << (e + 48));
}

/* Tail line a*v + b (v = V * 2^-24, or an infinity vinf), clamped to [out_lo, out_hi]. */
static struct xval tail(const struct actlut *l, int right, int64_t V, int vinf)
{
	uint16_t a = l->slot[right ? ACTLUT_R_SLOPE : ACTLUT_L_SLOPE];
	uint16_t b = l->slot[right ? ACTLUT_R_ICPT : ACTLUT_L_ICPT];
	struct xval r = {0, 0};
	int32_t ma, ea, mb, eb;
	fp16_decompose(a, &ma, &ea);
	fp16_decompose(b, &mb, &eb);
	if (vinf && ma != 0) {
		r.inf = ((ma > 0) == (vinf > 0)) ? 1 : -1;
	} else {
		i128 prod = vinf ? 0 : (i128)((int64_t)ma * V) * ((i128)1 << (ea + 24));
		r.y = prod + (i128)mb * ((i128)1 << (eb + 48));
	}
	/* output clamp, exact */
	uint16_t lo = l->slot[ACTLUT_OUT_LO], hi = l->slot[ACTLUT_OUT_HI];
	if (fp16_is_inf(lo)) {
		if (!(lo & FP16_SIGN)) { /* lo = +inf: everything becomes +inf */
			r.inf = 1;
			return r;
		}
	} else if (r.inf < 0 || (r.inf == 0 && r.y < fix48(lo))) {
		r.inf = 0;
		r.y = fix48(lo);
	}
	if (fp16_is_inf(hi)) {
		if (hi & FP16_SIGN) {
			r.inf = -1;
			return r;
		}
	} else if (r.inf > 0 || (r.inf == 0 && r.y > fix48(hi))) {
		r.inf = 0;
		r.y = fix48(hi);
	}
	return r;
}

/*
 * The table proper for LUT input v = V * 2^-24: u = v*2^s + off; u in [0,32] interpolates
 * between knots floor(u) and floor(u)+1 (u = 32 takes knot 32), u < 0 the left tail, u > 32
 * the right tail.
 */
static struct xval lut_core(const struct actlut *l, int64_t V, int vinf, int32_t off)
{
	int32_t sh = FRAC - l->scale;
	int64_t lo_v = (int64_t)(-off) * ((int64_t)1 << sh);
	int64_t hi_v = (int64_t)(ACTLUT_SEGMENTS - off) * ((int64_t)1 << sh);
	if (vinf < 0 || (!vinf && V < lo_v))
		return tail(l, 0, V, vinf);
	if (vinf > 0 || V > hi_v)
		return tail(l, 1, V, vinf);
	int64_t U = V * ((int64_t)1 << l->scale) + (int64_t)off * ONE_FIX;
	int32_t i = (int32_t)(U >> FRAC);
	if (i >= ACTLUT_SEGMENTS)
		i = ACTLUT_SEGMENTS - 1;
	int64_t f = U - (int64_t)i * ONE_FIX;
	struct xval r;
	r.inf = 0;
	r.y = (i128)l->knot[i] * ONE_FIX + (i128)(l->knot[i + 1] - l->knot[i]) * f;
	return r;
}

static uint16_t finish(struct xval v, int32_t e)
{
	if (v.inf)
		return v.inf > 0 ? FP16_POS_INF : FP16_NEG_INF;
	return round_val(v.y, e);
}

/* Clamps a non-NaN x to [lo, hi] by value. */
static uint16_t clampf(uint16_t x, uint16_t lo, uint16_t hi)
{
	if (fkey(x) < fkey(lo))
		return lo;
	if (fkey(x) > fkey(hi))
		return hi;
	return x;
}

/* Normalised split of a finite nonzero |x|: |x| = (mant / 2^11) * 2^e, mant in [2^10, 2^11). */
static void split(uint16_t x, int32_t *mant, int32_t *e)
{
	int32_t m, ex;
	fp16_decompose(x & 0x7fffu, &m, &ex);
	while (m < 0x400) {
		m <<= 1;
		ex--;
	}
	*mant = m;
	*e = ex + 11;
}

uint16_t actlut_eval(const struct actlut *l, uint16_t x)
{
	if (fp16_is_nan(x))
		return FP16_QNAN;
	uint16_t lo = l->slot[ACTLUT_IN_LO], hi = l->slot[ACTLUT_IN_HI];
	switch (l->kind) {
	case ACTLUT_KIND_LINEAR: {
		x = clampf(x, lo, hi);
		int vinf = fp16_is_inf(x) ? ((x & FP16_SIGN) ? -1 : 1) : 0;
		int64_t V = vinf ? 0 : fix24(x);
		return finish(tail(l, !(vinf < 0 || V < 0), V, vinf), -48);
	}
	case ACTLUT_KIND_PLAIN: {
		x = clampf(x, lo, hi);
		int vinf = fp16_is_inf(x) ? ((x & FP16_SIGN) ? -1 : 1) : 0;
		return finish(lut_core(l, vinf ? 0 : fix24(x), vinf, ACTLUT_SEGMENTS / 2), -48);
	}
	case ACTLUT_KIND_ODD: {
		uint16_t sign = x & FP16_SIGN;
		uint16_t a = clampf(x & 0x7fffu, lo, hi);
		int vinf = fp16_is_inf(a) ? ((a & FP16_SIGN) ? -1 : 1) : 0;
		uint16_t r = finish(lut_core(l, vinf ? 0 : fix24(a), vinf, 0), -48);
		return fp16_is_nan(r) ? r : (uint16_t)(r ^ sign);
	}
	case ACTLUT_KIND_EXP2: {
		x = clampf(x, lo, hi);
		if (fp16_is_inf(x))
			return (x & FP16_SIGN) ? 0 : FP16_POS_INF;
		int64_t V = fix24(x);
		int64_t n = V >> FRAC; /* floor */
		int64_t f = V - n * ONE_FIX;
		return finish(lut_core(l, f, 0, 0), (int32_t)(-48 + n));
	}
	case ACTLUT_KIND_LOG2:
	case ACTLUT_KIND_RECIP: {
		x = clampf(x, lo, hi);
		int recip = l->kind == ACTLUT_KIND_RECIP;
		uint16_t sign = x & FP16_SIGN;
		if ((x & 0x7fffu) == 0)
			return recip ? (uint16_t)(sign | FP16_POS_INF) : FP16_NEG_INF;
		if (sign && !recip)
			return FP16_QNAN;
		if (fp16_is_inf(x))
			return recip ? sign : FP16_POS_INF;
		int32_t m, e;
		split(x, &m, &e);
		int64_t V = ((int64_t)m << (FRAC - 11)) - ONE_FIX / 2; /* m - 0.5 */
		struct xval r = lut_core(l, V, 0, 0);
		if (recip)
			return (uint16_t)(finish(r, -48 - e) ^ sign);
		if (!r.inf)
			r.y += (i128)e * ((i128)1 << 48);
		return finish(r, -48);
	}
	case ACTLUT_KIND_SQRT:
	case ACTLUT_KIND_RSQRT: {
		x = clampf(x, lo, hi);
		int rs = l->kind == ACTLUT_KIND_RSQRT;
		if ((x & 0x7fffu) == 0)
			return rs ? FP16_POS_INF : 0;
		if (x & FP16_SIGN)
			return FP16_QNAN;
		if (fp16_is_inf(x))
			return rs ? 0 : FP16_POS_INF;
		int32_t m, e;
		split(x, &m, &e);
		int64_t V = (int64_t)m << (FRAC - 11);
		if (e & 1) { /* make the exponent even: m in [1, 2) */
			V *= 2;
			e -= 1;
		}
		struct xval r = lut_core(l, V, 0, 0);
		return finish(r, rs ? -48 - e / 2 : -48 + e / 2);
	}
	}
	return FP16_QNAN;
}

void actlut_build_table(struct actlut *lut, uint16_t *table)
{
	lut->table = NULL;
	for (uint32_t i = 0; i < ACTLUT_TABLE_LEN; i++)
		table[i] = actlut_eval(lut, (uint16_t)i);
	lut->table = table;
}

void actlut_apply(const struct actlut *lut, const uint16_t *in, uint16_t *out, size_t n)
{
	const uint16_t *t = lut->table;
	if (t) {
		size_t i = 0;
		for (; i + 4 <= n; i += 4) {
			uint16_t a = t[in[i]], b = t[in[i + 1]], c = t[in[i + 2]], d = t[in[i + 3]];
			out[i] = a;
			out[i + 1] = b;
			out[i + 2] = c;
			out[i + 3] = d;
		}
		for (; i < n; i++)
			out[i] = t[in[i]];
		return;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = actlut_eval(lut, in[i]);
}
