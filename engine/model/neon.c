/*
 * The model's NEON kernels (neon.h): the same operations in the same order on the same fp32
 * values as the portable code in compute.c, eight fp16 values a vector pair. fp16 -> fp32 is
 * FCVTL (exact); fp32 -> fp16 is FCVTN, which rounds as the scalar FCVT compute.c's f2h uses
 * (both follow FPCR, which the caller checked), with NaN lanes made +0 first (f2h's rule). No
 * multiply and add is fused here except in the micro-kernel, whose products are exact.
 */
#include "engine/model/neon.h"

#if defined(ANEM_NEON)
#include "fw/regmap/h13.h"

#include <arm_neon.h>
#include <stddef.h>

/* ---- loads and stores ----
 * LD1/ST1 need only their elements aligned; with -mstrict-align the compiler would take a
 * vld1q of a 2-byte aligned pointer apart into eight halfword loads. */
struct h8 { uint16_t h[8]; };
struct f4 { float f[4]; };

static inline uint16x8_t ld_h8(const uint16_t *p)
{
	uint16x8_t v;
	__asm__("ld1 {%0.8h}, %1" : "=w"(v) : "Q"(*(const struct h8 *)(const void *)p));
	return v;
}

/* the same, stepping the pointer past the eight values (one post-indexed LD1 / ST1) */
static inline uint16x8_t ld_h8_next(const uint16_t **p)
{
	uint16x8_t v;
	__asm__("ld1 {%0.8h}, [%1], #16" : "=w"(v), "+r"(*p) : "m"(*(const struct h8 *)(const void *)*p));
	return v;
}

static inline void st_h8_next(uint16_t **p, uint16x8_t v)
{
	__asm__("st1 {%2.8h}, [%1], #16" : "=m"(*(struct h8 *)(void *)*p), "+r"(*p) : "w"(v));
}

/* sixteen bytes at any address, as eight little-endian fp16 */
static inline uint16x8_t ld_b16(const uint8_t *p)
{
	uint8x16_t v;
	__asm__("ld1 {%0.16b}, %1" : "=w"(v) : "Q"(*(const struct h8 *)(const void *)p));
	return vreinterpretq_u16_u8(v);
}

static inline void st_h8(uint16_t *p, uint16x8_t v)
{
	__asm__("st1 {%1.8h}, %0" : "=Q"(*(struct h8 *)(void *)p) : "w"(v));
}

static inline float32x4_t ld_f4(const float *p)
{
	float32x4_t v;
	__asm__("ld1 {%0.4s}, %1" : "=w"(v) : "Q"(*(const struct f4 *)(const void *)p));
	return v;
}

static inline void st_f4(float *p, float32x4_t v)
{
	__asm__("st1 {%1.4s}, %0" : "=Q"(*(struct f4 *)(void *)p) : "w"(v));
}

/* ---- fp16 rows ---- */

/* The input port's NaN rule on eight fp16: every NaN becomes +inf. */
static inline uint16x8_t port_nan(uint16x8_t h)
{
	/* |h| > 0x7c00 is h << 1 > 0xf800 (a shift that leaves h for the select) */
	const uint16x8_t inf = vdupq_n_u16(0x7c00u), inf2 = vdupq_n_u16(0xf800u);
	return vbslq_u16(vcgtq_u16(vshlq_n_u16(h, 1), inf2), inf, h);
}

static inline float32x4_t lo_f32(uint16x8_t h)
{
	return vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h)));
}

static inline float32x4_t hi_f32(uint16x8_t h)
{
	return vcvt_high_f32_f16(vreinterpretq_f16_u16(h));
}

/* NaN -> +0 */
static inline float32x4_t no_nan(float32x4_t r)
{
	return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(r), vceqq_f32(r, r)));
}

static inline uint16x8_t to_f16(float32x4_t lo, float32x4_t hi)
{
	float16x4_t l = vcvt_f16_f32(no_nan(lo));
	return vreinterpretq_u16_f16(vcvt_high_f16_f32(l, no_nan(hi)));
}

/* One PE value vector (compute.c, pe_row_k): x = a x pre, the operation with y, |.|,
 * + bias, x scale, ReLU (FinalScale is 1 there). plain: pre and scale are 1 (their products are then the
 * values themselves, bit for bit: no NaN reaches them but one the operation made, and that
 * leaves as 0 either way); the bias is still added (r + 0 turns -0 into +0). */
static inline __attribute__((always_inline)) float32x4_t
pe4(float32x4_t x, float32x4_t y, unsigned op, int hasb, int cond, int relu, int plain,
    float32x4_t pre, float32x4_t scale, float32x4_t bias)
{
	float32x4_t r;
	if (!plain)
		x = vmulq_f32(x, pre);
	switch (op) {
	case H13_PE_OP_ADD: r = vaddq_f32(x, y); break;
	case H13_PE_OP_MUL: r = hasb ? vmulq_f32(x, y) : x; break;
	case H13_PE_OP_MAX: /* x when x >= y or y is NaN, else y */
		r = !hasb ? x : vbslq_f32(vorrq_u32(vcgeq_f32(x, y), vmvnq_u32(vceqq_f32(y, y))), x, y);
		break;
	case H13_PE_OP_MIN:
		r = !hasb ? x : vbslq_f32(vorrq_u32(vcleq_f32(x, y), vmvnq_u32(vceqq_f32(y, y))), x, y);
		break;
	default: r = vaddq_f32(x, y); r = vmulq_f32(r, r); break; /* (x + y)^2 */
	}
	if (cond) /* |r|, and |-0| = +0 */
		r = vabsq_f32(r);
	r = vaddq_f32(r, bias);
	if (!plain)
		r = vmulq_f32(r, scale);
	if (relu) /* r < 0 -> +0 (-0 and NaN stay) */
		r = vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(r), vcltzq_f32(r)));
	return r;
}

static inline __attribute__((always_inline)) unsigned
pe_row_k(const struct anem_pe_k *k, const uint16_t *va, const uint16_t *vb, uint16_t *out,
	 unsigned n, unsigned op, int hasb, int cond, int relu, int plain)
{
	const float32x4_t pre = vdupq_n_f32(k->pre), scale = vdupq_n_f32(k->scale);
	const float32x4_t bias = vdupq_n_f32(k->bias);
	const float32x4_t zero = vdupq_n_f32(0.0f);
	unsigned done = n & ~7u;
	for (const uint16_t *end = va + done; va < end;) {
		uint16x8_t a = port_nan(ld_h8_next(&va));
		float32x4_t ylo = zero, yhi = zero;
		if (hasb) {
			uint16x8_t b = port_nan(ld_h8_next(&vb));
			ylo = lo_f32(b);
			yhi = hi_f32(b);
		}
		float32x4_t rlo = pe4(lo_f32(a), ylo, op, hasb, cond, relu, plain, pre, scale, bias);
		float32x4_t rhi = pe4(hi_f32(a), yhi, op, hasb, cond, relu, plain, pre, scale, bias);
		st_h8_next(&out, to_f16(rlo, rhi));
	}
	return done;
}

#define PE_FLAGS(op, hasb)                                                              \
	(k->cond && k->relu ? pe_row_k(k, va, vb, out, n, op, hasb, 1, 1, 0)             \
	 : k->cond	    ? pe_row_k(k, va, vb, out, n, op, hasb, 1, 0, 0)             \
	 : k->relu	    ? pe_row_k(k, va, vb, out, n, op, hasb, 0, 1, 0)             \
	 : plain	    ? pe_row_k(k, va, vb, out, n, op, hasb, 0, 0, 1)             \
			    : pe_row_k(k, va, vb, out, n, op, hasb, 0, 0, 0))

#define PE_B(op) (vb ? PE_FLAGS(op, 1) : PE_FLAGS(op, 0))

unsigned anem_neon_pe_row(const struct anem_pe_k *k, const uint16_t *va, const uint16_t *vb,
			  uint16_t *out, unsigned n)
{
	int plain = k->pre == 1.0f && k->scale == 1.0f;
	if (!k->hasb)
		vb = NULL;
	switch (k->op) {
	case H13_PE_OP_ADD: return PE_B(H13_PE_OP_ADD);
	case H13_PE_OP_MUL: return PE_B(H13_PE_OP_MUL);
	case H13_PE_OP_MAX: return PE_B(H13_PE_OP_MAX);
	case H13_PE_OP_MIN: return PE_B(H13_PE_OP_MIN);
	default: return PE_B(H13_PE_OP_SQ);
	}
}

unsigned anem_neon_post_row(uint16_t *v, unsigned n, float post)
{
	const float32x4_t p = vdupq_n_f32(post);
	unsigned done = n & ~7u;
	for (uint16_t *end = v + done; v < end;) {
		uint16x8_t h = ld_h8(v);
		st_h8_next(&v, to_f16(vmulq_f32(lo_f32(h), p), vmulq_f32(hi_f32(h), p)));
	}
	return done;
}

/* ---- the convolution ---- */

/* The MAC's input port on eight fp16: a subnormal (exponent 0) becomes +0; *inf collects
 * whether one is infinite or NaN. */
static inline uint16x8_t mac_port(uint16x8_t h, uint16x8_t *inf)
{
	const uint16x8_t ex = vdupq_n_u16(0x7c00u);
	uint16x8_t e = vandq_u16(h, ex);
	*inf = vorrq_u16(*inf, vceqq_u16(e, ex));
	return vbicq_u16(h, vceqzq_u16(e));
}

uint16_t anem_neon_weights(float *w, unsigned stride, const uint8_t *p, uint64_t per)
{
	uint16x8_t inf = vdupq_n_u16(0);
	uint64_t k = 0;
	for (; k + 8 <= per; k += 8) {
		uint16x8_t h = mac_port(ld_b16(p + 2 * k), &inf);
		float32x4_t lo = lo_f32(h), hi = hi_f32(h);
		vst1q_lane_f32(w, lo, 0), w += stride;
		vst1q_lane_f32(w, lo, 1), w += stride;
		vst1q_lane_f32(w, lo, 2), w += stride;
		vst1q_lane_f32(w, lo, 3), w += stride;
		vst1q_lane_f32(w, hi, 0), w += stride;
		vst1q_lane_f32(w, hi, 1), w += stride;
		vst1q_lane_f32(w, hi, 2), w += stride;
		vst1q_lane_f32(w, hi, 3), w += stride;
	}
	uint16_t any = vmaxvq_u16(inf) != 0;
	for (; k < per; k++, w += stride) {
		uint16_t h = (uint16_t)(p[2 * k] | p[2 * k + 1] << 8), e = h & 0x7c00u;
		any |= e == 0x7c00u;
		union { uint16_t u; __fp16 f; } x = {.u = e ? h : 0};
		*w = (float)x.f;
	}
	return any;
}

/*
 * Four output channels' fp16 weights at once (p[j] channel j's, per each) into the packed line
 * w (channel j at w + j, k at w + k x stride), through the MAC's input port: eight k of each
 * channel converted, then two 4 x 4 transposes, so each k's four weights leave in one store.
 * Returns 1 when one is infinite or NaN.
 */
/* A 16-byte store to a 16-byte aligned address (STR Q with an immediate offset). */
static inline void st_q_aligned(float *p, float32x4_t v)
{
	__asm__("str %q1, %0" : "=m"(*(struct f4 *)(void *)p) : "w"(v));
}

static inline __attribute__((always_inline)) uint16_t
weights4_k(float *w, unsigned stride, const uint8_t *const p[4], uint64_t per)
{
	uint16x8_t inf = vdupq_n_u16(0);
	uint64_t k = 0;
	const uint8_t *p0 = p[0], *p1 = p[1], *p2 = p[2], *p3 = p[3];
	for (; k + 8 <= per; k += 8, w += 8 * stride, p0 += 16, p1 += 16, p2 += 16, p3 += 16) {
		uint16x8_t h0 = mac_port(ld_b16(p0), &inf), h1 = mac_port(ld_b16(p1), &inf);
		uint16x8_t h2 = mac_port(ld_b16(p2), &inf), h3 = mac_port(ld_b16(p3), &inf);
		/* a: c0k0 c1k0 c0k1 c1k1 ..., b: c2k0 c3k0 c2k1 c3k1 ...; then 32-bit pairs zipped:
		 * q0 = c0k0 c1k0 c2k0 c3k0 c0k1 c1k1 c2k1 c3k1, q1 = k2, k3, q2 = k4, k5, q3 = k6, k7 */
		uint16x8x2_t a = vzipq_u16(h0, h1), b = vzipq_u16(h2, h3);
		uint32x4x2_t lo = vzipq_u32(vreinterpretq_u32_u16(a.val[0]), vreinterpretq_u32_u16(b.val[0]));
		uint32x4x2_t hi = vzipq_u32(vreinterpretq_u32_u16(a.val[1]), vreinterpretq_u32_u16(b.val[1]));
		uint16x8_t q0 = vreinterpretq_u16_u32(lo.val[0]), q1 = vreinterpretq_u16_u32(lo.val[1]);
		uint16x8_t q2 = vreinterpretq_u16_u32(hi.val[0]), q3 = vreinterpretq_u16_u32(hi.val[1]);
		st_q_aligned(w, lo_f32(q0));
		st_q_aligned(w + stride, hi_f32(q0));
		st_q_aligned(w + 2 * stride, lo_f32(q1));
		st_q_aligned(w + 3 * stride, hi_f32(q1));
		st_q_aligned(w + 4 * stride, lo_f32(q2));
		st_q_aligned(w + 5 * stride, hi_f32(q2));
		st_q_aligned(w + 6 * stride, lo_f32(q3));
		st_q_aligned(w + 7 * stride, hi_f32(q3));
	}
	uint16_t any = vmaxvq_u16(inf) != 0;
	for (unsigned j = 0; j < 4; j++)
		any |= anem_neon_weights(w + j, stride, p[j] + 2 * k, per - k);
	return any;
}

/*
 * Four output channels' fp16 weights at once (p[j] channel j's, per each) into the packed line
 * w (channel j at w + j, k at w + k x stride), through the MAC's input port: eight k of each
 * channel converted, interleaved (two zips), so each k's four weights leave in one store.
 * Returns 1 when one is infinite or NaN.
 */
uint16_t anem_neon_weights4(float *w, unsigned stride, const uint8_t *const p[4], uint64_t per)
{
	if (stride == 12) /* the packed lines of compute.c on aarch64: offsets known */
		return weights4_k(w, 12, p, per);
	return weights4_k(w, stride, p, per);
}

unsigned anem_neon_mac_in_row(float *f, const uint16_t *v, unsigned n, int *fin)
{
	uint16x8_t inf = vdupq_n_u16(0);
	unsigned done = n & ~7u;
	for (const uint16_t *end = v + done; v < end; f += 8) {
		uint16x8_t h = mac_port(ld_h8_next(&v), &inf);
		st_f4(f, lo_f32(h));
		st_f4(f + 4, hi_f32(h));
	}
	if (vmaxvq_u16(inf))
		*fin = 0;
	return done;
}

unsigned anem_neon_conv_out_row(uint16_t *v, const float *a, unsigned n, int ku, float ps,
				float b, float post, int taps2)
{
	const float32x4_t vps = vdupq_n_f32(ps), vb = vdupq_n_f32(b), vp = vdupq_n_f32(post);
	const uint16x8_t mag = vdupq_n_u16(0x7fffu), lo = vdupq_n_u16(0x77ffu);
	const uint16x8_t inf = vdupq_n_u16(0x7c00u), sgn = vdupq_n_u16(0x8000u);
	unsigned done = n & ~7u;
	for (uint16_t *end = v + done; v < end; a += 8) {
		float32x4_t r0 = ld_f4(a), r1 = ld_f4(a + 4);
		if (ku) {
			r0 = vaddq_f32(vmulq_f32(r0, vps), vb);
			r1 = vaddq_f32(vmulq_f32(r1, vps), vb);
		}
		uint16x8_t h = to_f16(vmulq_f32(r0, vp), vmulq_f32(r1, vp));
		if (taps2) { /* 0x7800 <= |h| < 0x7c00 becomes infinity of its sign */
			uint16x8_t m = vandq_u16(h, mag);
			uint16x8_t sat = vandq_u16(vcgtq_u16(m, lo), vcltq_u16(m, inf));
			h = vbslq_u16(sat, vorrq_u16(vandq_u16(h, sgn), inf), h);
		}
		st_h8_next(&v, h);
	}
	return done;
}

/*
 * 12 channels x 8 positions: 24 accumulators (v8..v31), the k-th line of 12 weights in v0..v2
 * (one LD1), the k-th 8 inputs in v4, v5 (one LD1, the pointer stepped by the line stride), 24
 * by-element FMLA; four k per loop turn: 106 instructions per 384 multiply-adds. The sums run
 * over k in order, as compute.c's other micro-kernels; FMLA rounds once, as the multiply and
 * add would, because every product of two fp16 values is exact in fp32.
 */
void anem_neon_mk12x8(const float *w, const float *b, uint64_t K, uint64_t bs, float *c,
		      uint64_t cs)
{
	uint64_t bstep = bs * sizeof(float), cstep = cs * sizeof(float), quads = K / 4;
#define MK_STEP                                                                          \
	"ld1 {v0.4s, v1.4s, v2.4s}, [%[w]], #48\n"                                       \
	"ld1 {v4.4s, v5.4s}, [%[b]], %[bstep]\n"                                          \
	"fmla v8.4s, v4.4s, v0.s[0]\n fmla v9.4s, v5.4s, v0.s[0]\n"                       \
	"fmla v10.4s, v4.4s, v0.s[1]\n fmla v11.4s, v5.4s, v0.s[1]\n"                     \
	"fmla v12.4s, v4.4s, v0.s[2]\n fmla v13.4s, v5.4s, v0.s[2]\n"                     \
	"fmla v14.4s, v4.4s, v0.s[3]\n fmla v15.4s, v5.4s, v0.s[3]\n"                     \
	"fmla v16.4s, v4.4s, v1.s[0]\n fmla v17.4s, v5.4s, v1.s[0]\n"                     \
	"fmla v18.4s, v4.4s, v1.s[1]\n fmla v19.4s, v5.4s, v1.s[1]\n"                     \
	"fmla v20.4s, v4.4s, v1.s[2]\n fmla v21.4s, v5.4s, v1.s[2]\n"                     \
	"fmla v22.4s, v4.4s, v1.s[3]\n fmla v23.4s, v5.4s, v1.s[3]\n"                     \
	"fmla v24.4s, v4.4s, v2.s[0]\n fmla v25.4s, v5.4s, v2.s[0]\n"                     \
	"fmla v26.4s, v4.4s, v2.s[1]\n fmla v27.4s, v5.4s, v2.s[1]\n"                     \
	"fmla v28.4s, v4.4s, v2.s[2]\n fmla v29.4s, v5.4s, v2.s[2]\n"                     \
	"fmla v30.4s, v4.4s, v2.s[3]\n fmla v31.4s, v5.4s, v2.s[3]\n"
	__asm__ volatile(
		"movi v8.16b, #0\n movi v9.16b, #0\n movi v10.16b, #0\n movi v11.16b, #0\n"
		"movi v12.16b, #0\n movi v13.16b, #0\n movi v14.16b, #0\n movi v15.16b, #0\n"
		"movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n"
		"movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n"
		"movi v24.16b, #0\n movi v25.16b, #0\n movi v26.16b, #0\n movi v27.16b, #0\n"
		"movi v28.16b, #0\n movi v29.16b, #0\n movi v30.16b, #0\n movi v31.16b, #0\n"
		"tbz %[k], #0, 1f\n" /* K mod 4 first: an odd k alone, */
		MK_STEP
		"1:\n"
		"tbz %[k], #1, 2f\n" /* then a pair, */
		MK_STEP
		MK_STEP
		"2:\n"
		"cbz %[quads], 4f\n" /* then four k per loop turn */
		"3:\n"
		MK_STEP
		MK_STEP
		MK_STEP
		MK_STEP
		"subs %[quads], %[quads], #1\n"
		"b.ne 3b\n"
		"4:\n"
		"st1 {v8.4s, v9.4s}, [%[c]], %[cstep]\n"
		"st1 {v10.4s, v11.4s}, [%[c]], %[cstep]\n"
		"st1 {v12.4s, v13.4s}, [%[c]], %[cstep]\n"
		"st1 {v14.4s, v15.4s}, [%[c]], %[cstep]\n"
		"st1 {v16.4s, v17.4s}, [%[c]], %[cstep]\n"
		"st1 {v18.4s, v19.4s}, [%[c]], %[cstep]\n"
		"st1 {v20.4s, v21.4s}, [%[c]], %[cstep]\n"
		"st1 {v22.4s, v23.4s}, [%[c]], %[cstep]\n"
		"st1 {v24.4s, v25.4s}, [%[c]], %[cstep]\n"
		"st1 {v26.4s, v27.4s}, [%[c]], %[cstep]\n"
		"st1 {v28.4s, v29.4s}, [%[c]], %[cstep]\n"
		"st1 {v30.4s, v31.4s}, [%[c]], %[cstep]\n"
		: [w] "+r"(w), [b] "+r"(b), [c] "+r"(c), [quads] "+r"(quads)
		: [k] "r"(K), [bstep] "r"(bstep), [cstep] "r"(cstep)
		: "cc", "memory", "v0", "v1", "v2", "v4", "v5", "v8", "v9", "v10", "v11", "v12",
		  "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
		  "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
#undef MK_STEP
}
#endif
