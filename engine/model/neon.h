/*
 * The model's NEON kernels for aarch64 (engine/model/neon.c; the target, and an aarch64 host),
 * beside the AVX2/F16C ones in compute.c. Each computes the same bits as the portable code it
 * stands in for (docs/engine-model.md, "Numerics"); they are used only while FPCR selects IEEE
 * half precision, round to nearest and no flushing (compute.c's fcvt_ok), and only with
 * anem_simd set.
 */
#ifndef ANEFW_ENGINE_MODEL_NEON_H
#define ANEFW_ENGINE_MODEL_NEON_H

#include <stdint.h>

#if defined(__aarch64__)
#define ANEM_NEON 1

/* The PE's constants and the variant of its row (compute.c, pe_row_k). */
struct anem_pe_k {
	unsigned op;   /* H13_PE_OP_* */
	int hasb;      /* a second source */
	int cond;      /* |.| */
	int relu;
	float pre, scale, bias; /* (FinalScale is 1 outside a reduction: compute.c refuses others) */
};

/* The PE row over the first n & ~7 values; returns how many it did (the caller does the rest).
 * The inputs may still hold NaNs: the input port's rule (NaN -> +inf) is applied to every lane
 * first, which changes nothing on values already through the port. */
unsigned anem_neon_pe_row(const struct anem_pe_k *k, const uint16_t *va, const uint16_t *vb,
			  uint16_t *out, unsigned n);

/* The NE's post-scale row, fp16 x post rounded to fp16 (NaN +0), over n & ~7; returns the count. */
unsigned anem_neon_post_row(uint16_t *v, unsigned n, float post);

/* One output channel's fp16 weights (little-endian, per of them) through the MAC's input port
 * (subnormal -> +0) into w at stride `stride` floats; returns 1 when one is infinite or NaN. */
uint16_t anem_neon_weights(float *w, unsigned stride, const uint8_t *p, uint64_t per);

/* The same for four output channels at once (their weights at p[0..3]) into w + 0..3: their
 * weights of each k leave in one 16-byte store (w 16-byte aligned, stride a multiple of 4). */
uint16_t anem_neon_weights4(float *w, unsigned stride, const uint8_t *const p[4], uint64_t per);

/* A row of fp16 inputs through the MAC's input port into f (n & ~7 of them); returns that count
 * and clears *fin when one of them is infinite or NaN. */
unsigned anem_neon_mac_in_row(float *f, const uint16_t *v, unsigned n, int *fin);

/* A row of accumulators to fp16 at the MAC's output port (compute.c, conv_out_row), n & ~7
 * of them; returns that count. */
unsigned anem_neon_conv_out_row(uint16_t *v, const float *a, unsigned n, int ku, float ps,
				float b, float post, int taps2);

/* The convolution's micro-kernel: 12 output channels (w: K lines of 12 floats) x 8 positions
 * (b: K lines of 8 floats at a stride of bs floats) of fp32 sums over k in order, written to
 * 12 lines of 8 at c, c + cs, ... */
void anem_neon_mk12x8(const float *w, const float *b, uint64_t K, uint64_t bs, float *c,
		      uint64_t cs);
#endif

#endif
