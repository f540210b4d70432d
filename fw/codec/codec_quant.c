/* Weight codecs: affine and blockwise dequantization, fp8 conversions (TFLM: codec_tflm.c). */
#include "fw/codec/codec.h"
#include "fw/codec/codec_fast.h"
#include "fw/common/fp16.h"

#include <string.h>

/* From this many elements per scale, dequant_run builds the 256 results and looks them up. */
#define DQ_TABLE_MIN 320u

/* ---------------- affine ---------------- */

static inline int32_t q_value(enum codec_qtype t, uint8_t b)
{
	return t == CODEC_Q_INT8 ? (int32_t)(int8_t)b : (int32_t)b;
}

/* Exact scale * d * 2^dexp (scale finite, decomposed as sm * 2^se with sign flag sneg),
 * rounded once; a zero product takes the IEEE product sign. Callers keep |d| < 2^34 and
 * dexp in -24..0, so the product is below 2^45 and its exponent in -48..5: the range of
 * fp16_from_scaled_fast. */
static inline uint16_t scaled_product(int32_t sm, int32_t se, int sneg, int64_t d, int32_t dexp)
{
	int64_t prod = (int64_t)sm * d;
	if (prod == 0)
		return (uint16_t)(((sneg != 0) ^ (d < 0)) ? FP16_SIGN : 0);
	return fp16_from_scaled_fast(prod, se + dexp);
}

static int fp16_all_finite(const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!fp16_is_finite(v[i]))
			return 0;
	return 1;
}

/*
 * One run's constants for the direct form: the exact product scale * (q - offset) is
 * p = A * q + B in units of 2^X (|p| < 2^45), and k = 77 + X is the largest count of leading
 * zeros of |p| whose result is a normal fp16.
 */
struct dq_run {
	int64_t A, B;
	int32_t k;
	uint16_t zero; /* the result for p == 0: +0, or -0 under a negative scale */
	/* for dq_exact: the scale as sm * 2^se with sign flag sneg, and d = q * unit - off in
	 * units of 2^E */
	int32_t sm, se, sneg, E;
	int64_t unit, off;
};

/* One element by the direct form, for runs whose largest |p| is finite in fp16 (so no result
 * overflows) and whose scale is nonzero: |p| is moved up so that its top bit is bit 62, its 11
 * leading bits are rounded to nearest even with one add, and the exponent field is k - clz,
 * into which the implicit bit (and a carry out of the significand) adds. A zero or subnormal
 * result goes to dq_exact. */
static uint16_t dq_exact(const struct dq_run *r, int32_t q);

static inline uint16_t dq_direct(const struct dq_run *r, int32_t q)
{
	int64_t p = r->A * q + r->B;
	if (p == 0)
		return r->zero;
	uint64_t a = p < 0 ? 0 - (uint64_t)p : (uint64_t)p;
	int32_t lz = __builtin_clzll(a);
	if (__builtin_expect(lz > r->k, 0))
		return dq_exact(r, q);
	uint64_t n = a << (lz - 1);
	uint64_t sig = (n + 0x7ffffffffffffull + ((n >> 52) & 1)) >> 52;
	return (uint16_t)((((uint32_t)(r->k - lz) << 10) + (uint32_t)sig) | (uint32_t)((uint64_t)p >> 63 << 15));
}

/* A subnormal result (or any, for runs not in the direct form) by the general rounding. */
static __attribute__((noinline)) uint16_t dq_exact(const struct dq_run *r, int32_t q)
{
	int64_t d = (int64_t)q * r->unit - r->off;
	return scaled_product(r->sm, r->se, r->sneg, d, r->E);
}

/* A short run by the direct form, one loop per element type so the hot loop has no selects. */
#define DQ_DIRECT_LOOP(r, src, dst, n, cast)                                                         \
	for (size_t i_ = 0; i_ < (n); i_++)                                                         \
		(dst)[i_] = dq_direct((r), (int32_t)(cast)(src)[i_])

/* One run of n elements sharing a scale and an offset (om * 2^oe, exact; a zero point is
 * (zp, 0)): dst[i] = fp16_rne(scale * (q[i] - offset)), rounded once. The difference is
 * computed exactly as D * 2^E with E = min(0, oe) (|D| < 2^34). Long runs compute all 256
 * possible results once and look them up (codec_table_decode: pair tables when long enough);
 * short runs round each element by the direct form where it applies (nonzero scale, no
 * result past 65504, normal results) and by scaled_product otherwise. */
static void dequant_run(enum codec_qtype type, uint16_t scale, int32_t om, int32_t oe, const uint8_t *src,
			uint16_t *dst, size_t n)
{
	int32_t sm, se;
	fp16_decompose(scale, &sm, &se);
	int sneg = (scale & FP16_SIGN) != 0;
	int32_t E = oe < 0 ? oe : 0;
	int64_t off_scaled = (int64_t)om * ((int64_t)1 << (oe - E));
	const int64_t unit = (int64_t)1 << (0 - E);
	struct dq_run r = {(int64_t)sm * unit, -(int64_t)sm * off_scaled, 77 + se + E, sneg ? FP16_SIGN : 0,
			   sm, se, sneg, E, unit, off_scaled};
	int direct = 0;
	if (sm != 0) {
		/* |p| is largest at one end of the q range; monotone rounding bounds the rest */
		int32_t qlo = type == CODEC_Q_INT8 ? -128 : 0;
		int64_t p0 = r.A * qlo + r.B, p1 = r.A * (qlo + 255) + r.B;
		p0 = p0 < 0 ? -p0 : p0;
		p1 = p1 < 0 ? -p1 : p1;
		direct = fp16_is_finite(fp16_from_scaled_fast(p0 > p1 ? p0 : p1, se + E));
	}
	if (n >= DQ_TABLE_MIN) {
		uint16_t tab[256];
		for (unsigned v = 0; v < 256; v++) {
			int32_t qv = q_value(type, (uint8_t)v);
			tab[v] = direct ? dq_direct(&r, qv) : dq_exact(&r, qv);
		}
		codec_table_decode(tab, src, dst, n);
	} else if (!direct) {
		for (size_t i = 0; i < n; i++)
			dst[i] = dq_exact(&r, q_value(type, src[i]));
	} else if (type == CODEC_Q_INT8) {
		DQ_DIRECT_LOOP(&r, src, dst, n, int8_t);
	} else {
		DQ_DIRECT_LOOP(&r, src, dst, n, uint8_t);
	}
}

/* The checks affine and blockwise open with: buffers present, a known element type, and a
 * count that splits into whole runs of `run` elements (channels or blocks). */
static enum codec_err quant_head(enum codec_qtype type, size_t run, const uint8_t *q, size_t q_len,
				 const uint16_t *scale, const uint16_t *out, size_t count)
{
	if ((!q && q_len) || !scale || (!out && count))
		return CODEC_E_NULL;
	if (type != CODEC_Q_INT8 && type != CODEC_Q_UINT8)
		return CODEC_E_TYPE;
	if (run == 0 || count % run)
		return CODEC_E_GROUPS;
	return CODEC_OK;
}

enum codec_err codec_affine_check_symmetric(const uint8_t *zp, size_t zp_count)
{
	if (!zp)
		return CODEC_OK;
	for (size_t i = 0; i < zp_count; i++)
		if (zp[i])
			return CODEC_E_ASYMMETRIC;
	return CODEC_OK;
}

enum codec_err codec_affine_decode(const struct codec_affine *a, const uint8_t *q, size_t q_len,
				   const uint16_t *scale, size_t scale_count, const uint8_t *zp,
				   size_t zp_count, uint16_t *out, size_t count)
{
	if (!a)
		return CODEC_E_NULL;
	enum codec_err e = quant_head(a->type, a->channels, q, q_len, scale, out, count);
	if (e != CODEC_OK)
		return e;
	if (scale_count != 1 && scale_count != a->channels)
		return CODEC_E_TABLE_SIZE;
	if (zp && zp_count != 1 && zp_count != a->channels)
		return CODEC_E_TABLE_SIZE;
	if (q_len != count)
		return CODEC_E_INPUT_SIZE;
	if (!fp16_all_finite(scale, scale_count))
		return CODEC_E_SCALE;
	const size_t run = count / a->channels;
	for (size_t c = 0; c < a->channels; c++) {
		int32_t zpv = zp ? q_value(a->type, zp[zp_count == 1 ? 0 : c]) : 0;
		dequant_run(a->type, scale[scale_count == 1 ? 0 : c], zpv, 0, q + c * run, out + c * run, run);
	}
	return CODEC_OK;
}

/* ---------------- blockwise ---------------- */

enum codec_err codec_blockwise_decode_typed(const struct codec_blockwise *b, const uint8_t *q, size_t q_len,
					    const uint16_t *scale, size_t scale_count, const void *offset,
					    enum codec_offset_type offset_type, size_t offset_count, uint16_t *out,
					    size_t count)
{
	if (!b)
		return CODEC_E_NULL;
	enum codec_err e = quant_head(b->type, b->block, q, q_len, scale, out, count);
	if (e != CODEC_OK)
		return e;
	if (offset_type != CODEC_OFF_FP16 && offset_type != CODEC_OFF_INT8 && offset_type != CODEC_OFF_UINT8)
		return CODEC_E_TYPE;
	const size_t nblocks = count / b->block;
	if (scale_count != nblocks || (offset && offset_count != nblocks))
		return CODEC_E_TABLE_SIZE;
	if (q_len != count)
		return CODEC_E_INPUT_SIZE;
	const uint16_t *off16 = offset_type == CODEC_OFF_FP16 ? offset : NULL;
	const uint8_t *off8 = offset_type == CODEC_OFF_FP16 ? NULL : offset;
	if (!fp16_all_finite(scale, scale_count) || (off16 && !fp16_all_finite(off16, offset_count)))
		return CODEC_E_SCALE;
	const size_t B = b->block;
	for (size_t k = 0; k < nblocks; k++) {
		int32_t om = 0, oe = 0;
		if (off16)
			fp16_decompose(off16[k], &om, &oe);
		else if (off8) /* an integer offset: om * 2^0, exactly the fp16 of the same value */
			om = offset_type == CODEC_OFF_INT8 ? (int32_t)(int8_t)off8[k] : (int32_t)off8[k];
		dequant_run(b->type, scale[k], om, oe, q + k * B, out + k * B, B);
	}
	return CODEC_OK;
}

enum codec_err codec_blockwise_decode(const struct codec_blockwise *b, const uint8_t *q, size_t q_len,
				      const uint16_t *scale, size_t scale_count, const uint16_t *offset,
				      size_t offset_count, uint16_t *out, size_t count)
{
	return codec_blockwise_decode_typed(b, q, q_len, scale, scale_count, offset, CODEC_OFF_FP16, offset_count,
					    out, count);
}

/* ---------------- fp8 ---------------- */

uint16_t codec_e4m3_to_fp16(uint8_t v)
{
	uint16_t sign = (v & 0x80) ? FP16_SIGN : 0;
	unsigned e = (v >> 3) & 15, m = v & 7;
	if (e == 15 && m == 7)
		return sign | FP16_QNAN;
	if (e == 0) /* subnormal: m * 2^-9 */
		return sign | fp16_from_scaled(m, -9);
	return sign | fp16_from_scaled(8 + m, (int32_t)e - 10);
}

uint8_t codec_fp16_to_e4m3(uint16_t h, int saturate)
{
	uint8_t sign = (h & FP16_SIGN) ? 0x80 : 0;
	uint16_t a = h & 0x7fff;
	if (a > FP16_POS_INF)
		return sign | 0x7f;
	if (a == FP16_POS_INF)
		return sign | (saturate ? 0x7e : 0x7f);
	int32_t m, e;
	fp16_decompose(a, &m, &e);
	if (m == 0)
		return sign;
	/* the E4M3 grid: 4 significant bits, finest quantum 2^-9 (the subnormal spacing) */
	int64_t qexp;
	uint64_t s = fp_round_grid((uint32_t)m, e, 4, -9, &qexp);
	if (s == 0)
		return sign;
	if (s < 8)
		return sign | (uint8_t)s; /* subnormal */
	int64_t field = qexp + 10;
	uint64_t mant = s - 8;
	if (field > 15 || (field == 15 && mant == 7))
		return sign | (saturate ? 0x7e : 0x7f);
	return sign | (uint8_t)((uint32_t)field << 3 | mant);
}

uint8_t codec_fp16_to_e5m2(uint16_t h, int saturate)
{
	uint8_t sign = (h & FP16_SIGN) ? 0x80 : 0;
	uint16_t a = h & 0x7fff;
	if (a > FP16_POS_INF)
		return sign | 0x7e;
	if (a == FP16_POS_INF)
		return sign | 0x7c;
	unsigned hi = a >> 8, lo = a & 0xff;
	hi += lo > 0x80 || (lo == 0x80 && (hi & 1));
	if (hi >= 0x7c && saturate)
		hi = 0x7b;
	return sign | (uint8_t)hi;
}

static uint16_t e4m3_table[256];
static int e4m3_table_ready;

static const uint16_t *e4m3_tab(void)
{
	if (!e4m3_table_ready) {
		for (unsigned v = 0; v < 256; v++)
			e4m3_table[v] = codec_e4m3_to_fp16((uint8_t)v);
		e4m3_table_ready = 1;
	}
	return e4m3_table;
}

enum codec_err codec_e4m3_decode(const uint8_t *in, size_t in_len, uint16_t *out, size_t count)
{
	if ((!in && in_len) || (!out && count))
		return CODEC_E_NULL;
	if (in_len != count)
		return CODEC_E_INPUT_SIZE;
	codec_table_decode(e4m3_tab(), in, out, count);
	return CODEC_OK;
}

enum codec_err codec_e5m2_decode(const uint8_t *in, size_t in_len, uint16_t *out, size_t count)
{
	if ((!in && in_len) || (!out && count))
		return CODEC_E_NULL;
	if (in_len != count)
		return CODEC_E_INPUT_SIZE;
	if (count >= CODEC_PAIR_MIN) {
		/* long runs: the pair-table decoder, as for E4M3 (cheaper than shifting per lane) */
		uint16_t t[256];
		for (unsigned v = 0; v < 256; v++)
			t[v] = (uint16_t)(v << 8);
		uint32_t *pt = codec_pair_table(t);
		if (pt) {
			codec_pair_decode(pt, t, in, out, count);
			free(pt);
			return CODEC_OK;
		}
	}
	size_t i = 0;
	while (i < count && ((uintptr_t)(in + i) & 7))
		out[i] = (uint16_t)(in[i] << 8), i++;
	if (((uintptr_t)(out + i) & 7) == 0)
		for (; i + 8 <= count; i += 8) {
			/* eight bytes in, spread to the high byte of four 16-bit lanes twice */
			uint64_t w = codec_ld64(in + i);
			uint64_t a = w & 0xffffffffu, b = w >> 32;
			a = (a | a << 16) & 0x0000ffff0000ffffull;
			b = (b | b << 16) & 0x0000ffff0000ffffull;
			a = (a << 8 | a << 16) & 0xff00ff00ff00ff00ull;
			b = (b << 8 | b << 16) & 0xff00ff00ff00ff00ull;
			codec_st64(out + i, a);
			codec_st64(out + i + 4, b);
		}
	for (; i < count; i++)
		out[i] = (uint16_t)(in[i] << 8);
	return CODEC_OK;
}

enum codec_err codec_e4m3_encode(const uint16_t *in, size_t in_count, uint8_t *out, size_t out_len,
				 int saturate)
{
	if ((!in && in_count) || (!out && out_len))
		return CODEC_E_NULL;
	if (out_len < in_count)
		return CODEC_E_OUTPUT_SIZE;
	for (size_t i = 0; i < in_count; i++)
		out[i] = codec_fp16_to_e4m3(in[i], saturate);
	return CODEC_OK;
}

enum codec_err codec_e5m2_encode(const uint16_t *in, size_t in_count, uint8_t *out, size_t out_len,
				 int saturate)
{
	if ((!in && in_count) || (!out && out_len))
		return CODEC_E_NULL;
	if (out_len < in_count)
		return CODEC_E_OUTPUT_SIZE;
	for (size_t i = 0; i < in_count; i++)
		out[i] = codec_fp16_to_e5m2(in[i], saturate);
	return CODEC_OK;
}
