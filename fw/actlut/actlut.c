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

#include <string.h>

#define FRAC 24
#define ONE_FIX ((int64_t)1 << FRAC)

typedef __int128 i128;
typedef unsigned __int128 u128;

static const struct err_desc errs[ACTLUT_E__COUNT] = {
	[ACTLUT_OK] = {"ok", "no error"},
	[ACTLUT_E_NULL] = {"actlut-null", "null pointer"},
	[ACTLUT_E_SHORT] = {"actlut-short", "record shorter than 86 bytes"},
	[ACTLUT_E_NAN] = {"actlut-nan", "NaN in a clamp, end value, knot or tail slot"},
	[ACTLUT_E_INF_COEF] = {"actlut-infinite-coefficient", "infinite knot, slope or intercept"},
	[ACTLUT_E_CLAMP_ORDER] = {"actlut-clamp-order", "input clamp low above input clamp high"},
	[ACTLUT_E_SCALE] = {"actlut-bad-scale", "scale slot (41) not 0..20 or 64"},
	[ACTLUT_E_MODE] = {"actlut-unknown-mode",
	 "mode word (slot 42) sets a bit or field value with no known meaning"},
	[ACTLUT_E_LINEAR_MODE] = {"actlut-linear-split-mode",
	 "linear-only record (s = 64: lines, and a knot only at 0) with a split mode word"},
	[ACTLUT_E_MODE_BITS] = {"actlut-mode-bits-contradict",
	 "mode word bits contradict each other"},
	[ACTLUT_E_MODE_SLOTS] = {"actlut-mode-contradicts-clamp",
	 "mode word contradicts the input clamp"},
	[ACTLUT_E_OP_TABLE] = {"actlut-op-with-table",
	 "frac or int mode word with a nonzero knot or tail (what they add is unknown)"},
	[ACTLUT_E_PREDICTION] = {"actlut-prediction-unmet",
	 "operation 6 (rsqrt) with knots that are not 1/sqrt of their inputs (v = i / 2^s on [0.5, 2], "
	 "within 1%): the model reads operation 6 as Apple's rsqrt record has it, and this record is another"},
	[ACTLUT_E_UNPINNED] = {"actlut-unpinned-word",
	 "table mode word no real record has (operation 0 on x, 1 or 2 on |x|, or a linear-only record "
	 "with a word other than 0x01): where its knots' index starts is not pinned"},
	[ACTLUT_E_SIGNED_SPLIT] = {"actlut-unpinned-signed-split",
	 "frac or int mode word on x itself (bit 6, |x|, clear) with an input clamp that admits x < 0: "
	 "every real frac and int record splits |x|, so whether n is floor(x) or trunc(x) below 0 is not pinned"},
	[ACTLUT_E_PADDING] = {"actlut-nonzero-padding",
	 "a nonzero byte after the record's 43 slots (bytes 86..127 of its 0x80 stride; slot N is bytes 2N, "
	 "2N + 1): every real record has them zero, and what the engine reads there is not known"},
	[ACTLUT_E_SIGN_NEGATIVE] = {"actlut-unpinned-sign-of-negative",
	 "sign bit (0x20) on a record whose value can be negative (a negative knot or end value, or log2): "
	 "real ones are >= 0, where -F for x < 0 and F with x's sign agree; which one is not pinned"},
};

const struct err_desc *actlut_err(enum actlut_err err)
{
	static const struct err_desc unknown = {"actlut-unknown-error", "unknown error"};
	return err_lookup(errs, ACTLUT_E__COUNT, (unsigned)err, &unknown);
}

const char *actlut_strerror(enum actlut_err err)
{
	return actlut_err(err)->desc;
}

const char *actlut_err_name(enum actlut_err err)
{
	return actlut_err(err)->name;
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
	case ACTLUT_KIND_EVEN: return "even";
	case ACTLUT_KIND_FRAC: return "frac";
	case ACTLUT_KIND_INT: return "int";
	case ACTLUT_KIND__COUNT: break;
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

static int op_is_fsplit(uint32_t op)
{
	return op == ACTLUT_OP_SQRT || op == ACTLUT_OP_RSQRT || op == ACTLUT_OP_RECIP || op == ACTLUT_OP_LOG2;
}

/* The mode word's own consistency: a named error, or ACTLUT_OK with *kind set. */
static enum actlut_err mode_check(uint32_t m, enum actlut_kind *kind)
{
	const uint32_t op = m & ACTLUT_MB_OP;
	const int abs_ = (m & ACTLUT_MB_ABS) != 0, sign = (m & ACTLUT_MB_SIGN) != 0;
	const int flush = (m & ACTLUT_MB_FLUSH) != 0;
	if (m & ~ACTLUT_MB_KNOWN)
		return ACTLUT_E_MODE; /* bit 4 or 8..15 */
	if (op == 8 || op > ACTLUT_OP_EXP2)
		return ACTLUT_E_MODE; /* an operation never seen */
	if (sign && !abs_)
		return ACTLUT_E_MODE_BITS; /* restores a sign that was never taken off */
	if (flush && sign)
		return ACTLUT_E_MODE_BITS; /* negatives flushed to +0 and given their sign back */
	if (op_is_fsplit(op)) {
		if (!abs_)
			return ACTLUT_E_MODE_BITS; /* the float split works on |x| */
		if (!flush && !sign)
			return ACTLUT_E_MODE_BITS; /* what a negative x gives is not said */
	} else if (flush) {
		return ACTLUT_E_MODE_BITS; /* the flush is seen only with the float split */
	}
	switch (op) {
	case ACTLUT_OP_SQRT: *kind = ACTLUT_KIND_SQRT; break;
	case ACTLUT_OP_RSQRT: *kind = ACTLUT_KIND_RSQRT; break;
	case ACTLUT_OP_RECIP: *kind = ACTLUT_KIND_RECIP; break;
	case ACTLUT_OP_LOG2: *kind = ACTLUT_KIND_LOG2; break;
	case ACTLUT_OP_EXP2: *kind = ACTLUT_KIND_EXP2; break;
	case ACTLUT_OP_FRAC: *kind = ACTLUT_KIND_FRAC; break;
	case ACTLUT_OP_INT: *kind = ACTLUT_KIND_INT; break;
	default: *kind = abs_ ? (sign ? ACTLUT_KIND_ODD : ACTLUT_KIND_EVEN) : ACTLUT_KIND_PLAIN; break;
	}
	return ACTLUT_OK;
}

enum actlut_err actlut_parse(struct actlut *out, const uint8_t *buf, size_t len)
{
	if (!out || !buf)
		return ACTLUT_E_NULL;
	if (len < ACTLUT_BYTES)
		return ACTLUT_E_SHORT;
	uint16_t s[ACTLUT_SLOTS];
	for (int i = 0; i < ACTLUT_SLOTS; i++)
		s[i] = le_rd16(buf + 2 * i);
	for (int i = 0; i <= ACTLUT_R_ICPT; i++)
		if (fp16_is_nan(s[i]))
			return ACTLUT_E_NAN;
	for (int i = ACTLUT_KNOT0; i <= ACTLUT_R_ICPT; i++)
		if (fp16_is_inf(s[i]))
			return ACTLUT_E_INF_COEF;
	/* slots 2/3 are end values: a decreasing function (1/x, 1/sqrt x) has y_left > y_right */
	if (fkey(s[ACTLUT_IN_LO]) > fkey(s[ACTLUT_IN_HI]))
		return ACTLUT_E_CLAMP_ORDER;
	uint16_t sc = s[ACTLUT_SCALE], mode = s[ACTLUT_MODE];
	if (sc > ACTLUT_SCALE_MAX && sc != ACTLUT_SCALE_LINEAR)
		return ACTLUT_E_SCALE;
	enum actlut_kind kind;
	enum actlut_err e = mode_check(mode, &kind);
	if (e != ACTLUT_OK)
		return e;
	const uint32_t op = mode & ACTLUT_MB_OP;
	if (sc == ACTLUT_SCALE_LINEAR) {
		if (op > ACTLUT_OP_TABLE32)
			return ACTLUT_E_LINEAR_MODE; /* only the table operations have a linear form */
		kind = ACTLUT_KIND_LINEAR;
	}
	/* the LUT input is |x| (clamped): a clamp entirely below 0 leaves no input it can take,
	 * and the float split needs a positive one */
	if ((mode & ACTLUT_MB_ABS) && fkey(s[ACTLUT_IN_HI]) < 0)
		return ACTLUT_E_MODE_SLOTS;
	if (op_is_fsplit(op) && fkey(s[ACTLUT_IN_HI]) <= 0)
		return ACTLUT_E_MODE_SLOTS;
	/* frac and int: the real records (unary/ceil.bin) carry an empty table; what knots or
	 * tails would add to them is unknown, so a record with any is refused */
	if (op == ACTLUT_OP_FRAC || op == ACTLUT_OP_INT)
		for (int i = ACTLUT_KNOT0; i <= ACTLUT_R_ICPT; i++)
			if (s[i] & 0x7fffu)
				return ACTLUT_E_OP_TABLE;
	/* valid: fill the output */
	for (int i = 0; i < ACTLUT_SLOTS; i++)
		out->slot[i] = s[i];
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		out->knot[i] = fix24(s[ACTLUT_KNOT0 + i]);
	out->kind = kind;
	out->mode = mode;
	out->scale = sc;
	out->off = op <= ACTLUT_OP_TABLE32 ? (int32_t)op * (ACTLUT_SEGMENTS / 2) : 0;
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
	/* clamp to the range between the end values (either order), exact */
	uint16_t lo = l->slot[ACTLUT_OUT_LO], hi = l->slot[ACTLUT_OUT_HI];
	if (fkey(lo) > fkey(hi)) {
		uint16_t t = lo;
		lo = hi;
		hi = t;
	}
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

/* The float split (operations 5, 6, 7, 9; |x| taken): x = m*2^e; the operation says how e
 * reaches the output. a is |x| clamped, nonzero and finite. */
static uint16_t eval_fsplit(const struct actlut *l, uint16_t a)
{
	const uint32_t op = l->mode & ACTLUT_MB_OP;
	int32_t m, e;
	split(a, &m, &e);
	if (op == ACTLUT_OP_LOG2 || op == ACTLUT_OP_RECIP) { /* m in [0.5, 1): v = m - 0.5 */
		int64_t V = ((int64_t)m << (FRAC - 11)) - ONE_FIX / 2;
		struct xval r = lut_core(l, V, 0, 0);
		if (op == ACTLUT_OP_RECIP)
			return finish(r, -48 - e); /* y * 2^-e */
		if (!r.inf)
			r.y += (i128)e * ((i128)1 << 48); /* y + e */
		return finish(r, -48);
	}
	/* sqrt, rsqrt: make e even, m in [0.5, 2) */
	int64_t V = (int64_t)m << (FRAC - 11);
	if (e & 1) {
		V *= 2;
		e -= 1;
	}
	return finish(lut_core(l, V, 0, 0), op == ACTLUT_OP_RSQRT ? -48 - e / 2 : -48 + e / 2);
}

enum actlut_err actlut_check_padding(const uint8_t *buf, size_t len, size_t *at)
{
	if (!buf || !at)
		return ACTLUT_E_NULL;
	const size_t end = len < ACTLUT_STRIDE ? len : ACTLUT_STRIDE;
	for (size_t i = ACTLUT_BYTES; i < end; i++)
		if (buf[i]) {
			*at = i;
			return ACTLUT_E_PADDING;
		}
	return ACTLUT_OK;
}

enum actlut_err actlut_read_checked(struct actlut *l, const uint8_t *buf, size_t len, size_t *pad_at)
{
	enum actlut_err e = actlut_parse(l, buf, len);
	if (e == ACTLUT_OK)
		e = actlut_check_prediction(l);
	if (e == ACTLUT_OK)
		e = actlut_check_padding(buf, len, pad_at);
	return e;
}

size_t actlut_stream_differs(const uint8_t *s, size_t len)
{
	for (size_t k = ACTLUT_STRIDE; s && k + ACTLUT_BYTES <= len; k += ACTLUT_STRIDE)
		if (memcmp(s + k, s, len - k < ACTLUT_STRIDE ? len - k : ACTLUT_STRIDE))
			return k;
	return 0;
}

enum actlut_err actlut_check_prediction(const struct actlut *l)
{
	if (!l)
		return ACTLUT_E_NULL;
	/* the table's index offset by operation: seen with |x| for 0 only (tanh, 0x60), on x for 1
	 * and 2 only (0x01, 0x02), and a linear-only record only as 0x01 (every step and line) */
	const uint32_t top = l->mode & ACTLUT_MB_OP;
	if (l->kind == ACTLUT_KIND_LINEAR ? l->mode != ACTLUT_OP_TABLE16
					  : top <= ACTLUT_OP_TABLE32 && (top == ACTLUT_OP_TABLE0) != ((l->mode & ACTLUT_MB_ABS) != 0))
		return ACTLUT_E_UNPINNED;
	/* frac and int: seen only on |x| (0x63, 0x64), where floor and trunc agree */
	if ((top == ACTLUT_OP_FRAC || top == ACTLUT_OP_INT) && !(l->mode & ACTLUT_MB_ABS) &&
	    fkey(l->slot[ACTLUT_IN_LO]) < 0)
		return ACTLUT_E_SIGNED_SPLIT;
	/* the sign bit: seen only where the value before it is >= 0 (tanh's and sigmoid's 0x60, the
	 * reciprocal's 0x67, ceil's 0x63 and 0x64, frac and int of |x| with an empty table whatever
	 * their end values: ACTLUT_E_OP_TABLE); a -0 knot counts as 0 */
	if ((l->mode & ACTLUT_MB_SIGN) && top != ACTLUT_OP_FRAC && top != ACTLUT_OP_INT) {
		int neg = top == ACTLUT_OP_LOG2 || fkey(l->slot[ACTLUT_OUT_LO]) < 0 || fkey(l->slot[ACTLUT_OUT_HI]) < 0;
		for (int i = 0; i < ACTLUT_KNOTS && !neg; i++)
			neg = l->knot[i] < 0;
		if (neg)
			return ACTLUT_E_SIGN_NEGATIVE;
	}
	if (top != ACTLUT_OP_RSQRT)
		return ACTLUT_OK;
	/* knot i sits at v = i / 2^s; v in [0.5, 2] is 2^(s-1) <= i <= 2^(s+1). s <= 5 leaves at
	 * least 17 such knots of the 33; a larger s at most one */
	const int32_t s = l->scale;
	if (s < 0 || s > 5)
		return ACTLUT_E_PREDICTION;
	/* K = k * 2^24 exactly; k^2 * v = 1 is K^2 * i = 2^(48 + s); 1% on k is 2% on k^2 */
	const int64_t target = (int64_t)1 << (48 + s);
	unsigned seen = 0;
	for (int32_t i = 0; i < ACTLUT_KNOTS; i++) {
		if (2 * i < ((int32_t)1 << s) || i > ((int32_t)1 << (s + 1)))
			continue;
		const int64_t K = l->knot[i];
		if (K <= 0 || K > ((int64_t)1 << 26)) /* k in (0, 4]: 1/sqrt(v) <= 1.42 here */
			return ACTLUT_E_PREDICTION;
		const int64_t p = K * K / ONE_FIX * i; /* < 2^28 * 32: no overflow */
		const int64_t d = p > (target >> FRAC) ? p - (target >> FRAC) : (target >> FRAC) - p;
		if (d * 50 > (target >> FRAC))
			return ACTLUT_E_PREDICTION;
		seen++;
	}
	return seen >= 4 ? ACTLUT_OK : ACTLUT_E_PREDICTION;
}

uint16_t actlut_eval(const struct actlut *l, uint16_t x)
{
	if (fp16_is_nan(x))
		return FP16_QNAN;
	const uint32_t md = l->mode, op = md & ACTLUT_MB_OP;
	uint16_t lo = l->slot[ACTLUT_IN_LO], hi = l->slot[ACTLUT_IN_HI];
	uint16_t sign = x & FP16_SIGN, r;
	if (op_is_fsplit(op)) {
		const int neg = op == ACTLUT_OP_RECIP || op == ACTLUT_OP_RSQRT;
		if ((x & 0x7fffu) == 0)
			sign = 0; /* a zero loses its sign before the split (guide 03) */
		if (sign && (md & ACTLUT_MB_FLUSH))
			return 0; /* bit 7: x < 0 gives +0, the engine's indeterminate result (guide 03) */
		uint16_t a = clampf(x & 0x7fffu, lo, hi);
		if ((a & 0x7fffu) == 0) /* 0: log -inf, 1/x and 1/sqrt +inf, sqrt 0 */
			r = op == ACTLUT_OP_LOG2 ? FP16_NEG_INF : (neg ? FP16_POS_INF : 0);
		else if (fp16_is_inf(a)) /* +inf: log and sqrt +inf, the negated ones 0 */
			r = neg ? 0 : FP16_POS_INF;
		else
			r = eval_fsplit(l, a);
		return (uint16_t)(r ^ sign); /* sign is 0 unless bit 5 (mode_check) */
	}
	uint16_t a;
	if (md & ACTLUT_MB_ABS) {
		a = clampf(x & 0x7fffu, lo, hi);
	} else {
		a = clampf(x, lo, hi);
		sign = 0;
	}
	int vinf = fp16_is_inf(a) ? ((a & FP16_SIGN) ? -1 : 1) : 0;
	if (l->kind == ACTLUT_KIND_LINEAR) {
		/* knot spacing 2^-64: every nonzero fp16 v lies past the knots (the left line below
		 * 0, the right one above), and v = +-0 reads the knot of index off (docs/actlut.md) */
		int64_t V = vinf ? 0 : fix24(a);
		if (!vinf && V == 0) {
			struct xval z = {(i128)l->knot[l->off] * ONE_FIX, 0};
			r = finish(z, -48);
		} else {
			r = finish(tail(l, vinf > 0 || V > 0, V, vinf), -48);
		}
	} else if (op == ACTLUT_OP_EXP2) { /* x = n + f, y = F(f) * 2^n */
		if (vinf)
			r = vinf < 0 ? 0 : FP16_POS_INF;
		else {
			int64_t V = fix24(a);
			int64_t n = V >> FRAC; /* floor */
			r = finish(lut_core(l, V - n * ONE_FIX, 0, 0), (int32_t)(-48 + n));
		}
	} else if (op == ACTLUT_OP_FRAC || op == ACTLUT_OP_INT) { /* a = n + f, y = f or n */
		if (vinf)
			r = op == ACTLUT_OP_FRAC ? 0 : a; /* guess: frac(inf) = 0, int(inf) = inf */
		else {
			int64_t V = fix24(a);
			int64_t n = V >> FRAC; /* floor */
			r = op == ACTLUT_OP_FRAC ? round_val((i128)(V - n * ONE_FIX), -FRAC)
						 : round_val((i128)n, 0);
		}
	} else { /* the table; the operation gives the knot index of v = 0 */
		r = finish(lut_core(l, vinf ? 0 : fix24(a), vinf, l->off), -48);
	}
	if ((md & ACTLUT_MB_SIGN) && !fp16_is_nan(r))
		r ^= sign;
	return r;
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
