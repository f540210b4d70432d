/* Direct unit tests of the codecs: documented examples, error paths and buffer limits. */
#include "fw/codec/codec.h"
#include "fw/common/fp16.h"
#include "tests/harness/harness.h"

#include <string.h>

TEST(codec, strerror_names_every_error)
{
	for (int e = 0; e < CODEC_E__COUNT; e++) {
		const char *s = codec_strerror((enum codec_err)e);
		CHECK(s && s[0]);
		CHECK(!test_str_eq(s, "unknown codec error"));
	}
	CHECK_STR(codec_strerror(CODEC_E__COUNT), "unknown codec error");
	CHECK_STR(codec_strerror((enum codec_err)-1), "unknown codec error");
}

TEST(codec, palette_guide07_worked_example)
{
	/* guide-07: [1.0, 0.0, 0.0, 1.0], codebook[0]=0x0000, [1]=0x3c00, packed 0x01 0x10 */
	uint16_t lut[16] = {0x0000, 0x3c00};
	const uint8_t in[2] = {0x01, 0x10};
	uint16_t out[4];
	struct codec_palette p = {4, 1, 1};
	CHECK_EQ(codec_palette_decode(&p, in, 2, lut, 16, out, 4), CODEC_OK);
	CHECK_EQ(out[0], 0x3c00);
	CHECK_EQ(out[1], 0x0000);
	CHECK_EQ(out[2], 0x0000);
	CHECK_EQ(out[3], 0x3c00);
}

TEST(codec, palette_refuses_illegal_combinations)
{
	uint16_t lut[1024] = {0};
	uint8_t in[64] = {0};
	uint16_t out[64];
	struct codec_palette p = {4, 1, 1};
	static const unsigned bad_bits[] = {0, 5, 7, 9, 16};
	for (unsigned i = 0; i < sizeof(bad_bits) / sizeof(bad_bits[0]); i++) {
		p.bits = bad_bits[i];
		CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 16, out, 8), CODEC_E_BITS);
	}
	p.bits = 4;
	static const unsigned bad_vec[] = {0, 3, 6, 7, 8, 31, 32, 1000};
	for (unsigned i = 0; i < sizeof(bad_vec) / sizeof(bad_vec[0]); i++) {
		p.vector = bad_vec[i];
		CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 16 * bad_vec[i], out, 8), CODEC_E_VECTOR);
	}
	p.vector = 2;
	CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 32, out, 7), CODEC_E_GROUPS); /* 7 % 2 */
	p.vector = 1;
	p.groups = 0;
	CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 0, out, 8), CODEC_E_GROUPS);
	p.groups = 3;
	CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 48, out, 8), CODEC_E_GROUPS); /* 8 % 3 */
	p.groups = 2;
	CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 31, out, 8), CODEC_E_TABLE_SIZE);
	CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 33, out, 8), CODEC_E_TABLE_SIZE);
	CHECK_EQ(codec_palette_decode(&p, in, 3, lut, 32, out, 8), CODEC_E_INPUT_SIZE);
	CHECK_EQ(codec_palette_decode(&p, in, 5, lut, 32, out, 8), CODEC_E_INPUT_SIZE);
	CHECK_EQ(codec_palette_decode(&p, in, 4, lut, 32, out, 8), CODEC_OK);
	/* 3 bits x 5 indices = 15 bits = 2 bytes; 6 bits x 3 = 18 bits = 3 bytes */
	p.groups = 1;
	p.bits = 3;
	CHECK_EQ(codec_palette_decode(&p, in, 2, lut, 8, out, 5), CODEC_OK);
	CHECK_EQ(codec_palette_decode(&p, in, 3, lut, 8, out, 5), CODEC_E_INPUT_SIZE);
	p.bits = 6;
	CHECK_EQ(codec_palette_decode(&p, in, 3, lut, 64, out, 3), CODEC_OK);
	CHECK_EQ(codec_palette_decode(NULL, in, 3, lut, 64, out, 3), CODEC_E_NULL);
	CHECK_EQ(codec_palette_decode(&p, in, 3, NULL, 64, out, 3), CODEC_E_NULL);
	/* huge group counts do not overflow the LUT size computation */
	p.bits = 8;
	p.vector = 5;
	p.groups = (unsigned)-1;
	CHECK(codec_palette_decode(&p, in, 0, lut, 0, out, 0) != CODEC_OK);
}

TEST(codec, palette_3bit_lsb_first_across_bytes)
{
	/* indices 1..7,0 at 3 bits: bit stream LSB-first */
	uint16_t lut[8];
	for (unsigned i = 0; i < 8; i++)
		lut[i] = (uint16_t)(0x100 + i);
	uint64_t bits = 0;
	for (unsigned k = 0; k < 8; k++)
		bits |= (uint64_t)((k + 1) & 7) << (3 * k);
	uint8_t in[3] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16)};
	uint16_t out[8];
	struct codec_palette p = {3, 1, 1};
	CHECK_EQ(codec_palette_decode(&p, in, 3, lut, 8, out, 8), CODEC_OK);
	for (unsigned k = 0; k < 8; k++)
		CHECK_EQ(out[k], 0x100 + ((k + 1) & 7));
}

TEST(codec, sparse_errors)
{
	uint16_t vals[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	uint16_t out[16];
	uint8_t mask[2] = {0x81, 0x03};
	CHECK_EQ(codec_sparse_decode(mask, 2, vals, 4, out, 10), CODEC_OK);
	CHECK_EQ(out[0], 1);
	CHECK_EQ(out[1], 0);
	CHECK_EQ(out[7], 2);
	CHECK_EQ(out[8], 3);
	CHECK_EQ(out[9], 4);
	CHECK_EQ(codec_sparse_decode(mask, 2, vals, 3, out, 10), CODEC_E_VALUE_COUNT);
	CHECK_EQ(codec_sparse_decode(mask, 2, vals, 5, out, 10), CODEC_E_VALUE_COUNT);
	CHECK_EQ(codec_sparse_decode(mask, 2, vals, 4, out, 9), CODEC_E_PADDING); /* bit 9 is padding */
	CHECK_EQ(codec_sparse_decode(mask, 1, vals, 4, out, 10), CODEC_E_INPUT_SIZE);
	CHECK_EQ(codec_sparse_decode(mask, 2, vals, 4, out, 17), CODEC_E_INPUT_SIZE);
	CHECK_EQ(codec_sparse_decode(NULL, 2, vals, 4, out, 10), CODEC_E_NULL);
	CHECK_EQ(codec_sparse_decode(mask, 0, vals, 0, out, 0), CODEC_OK);
}

TEST(codec, affine_examples_and_errors)
{
	/* scale 0.5 (0x3800), int8 q = -128, -1, 0, 127, zero point 0 */
	const uint8_t q[4] = {0x80, 0xff, 0x00, 0x7f};
	uint16_t s = 0x3800, out[4];
	struct codec_affine a = {CODEC_Q_INT8, 1};
	CHECK_EQ(codec_affine_decode(&a, q, 4, &s, 1, NULL, 0, out, 4), CODEC_OK);
	CHECK_EQ(out[0], 0xd400); /* -64 */
	CHECK_EQ(out[1], 0xb800); /* -0.5 */
	CHECK_EQ(out[2], 0x0000);
	CHECK_EQ(out[3], 0x53f0); /* 63.5 */
	/* uint8 with zero point 128: 0x80 -> 0, 0xff -> 63.5 */
	uint8_t zp = 128;
	a.type = CODEC_Q_UINT8;
	CHECK_EQ(codec_affine_decode(&a, q, 4, &s, 1, &zp, 1, out, 4), CODEC_OK);
	CHECK_EQ(out[0], 0x0000);
	CHECK_EQ(out[1], 0x53f0);
	CHECK_EQ(out[2], 0xd400);
	/* a negative scale times zero is -0 */
	uint16_t neg = 0xb800;
	CHECK_EQ(codec_affine_decode(&a, q, 4, &neg, 1, &zp, 1, out, 4), CODEC_OK);
	CHECK_EQ(out[0], 0x8000);
	/* the exact product rounds once: 65504 * 2 overflows to infinity */
	uint16_t big = 0x7bff;
	const uint8_t two = 2;
	CHECK_EQ(codec_affine_decode(&a, &two, 1, &big, 1, NULL, 0, out, 1), CODEC_OK);
	CHECK_EQ(out[0], 0x7c00);
	/* errors */
	uint16_t inf = 0x7c00, nan = 0x7e01, scales[3] = {0x3c00, 0x3c00, 0x3c00};
	CHECK_EQ(codec_affine_decode(&a, q, 4, &inf, 1, NULL, 0, out, 4), CODEC_E_SCALE);
	CHECK_EQ(codec_affine_decode(&a, q, 4, &nan, 1, NULL, 0, out, 4), CODEC_E_SCALE);
	a.channels = 3;
	CHECK_EQ(codec_affine_decode(&a, q, 4, scales, 3, NULL, 0, out, 4), CODEC_E_GROUPS);
	a.channels = 2;
	CHECK_EQ(codec_affine_decode(&a, q, 4, scales, 3, NULL, 0, out, 4), CODEC_E_TABLE_SIZE);
	CHECK_EQ(codec_affine_decode(&a, q, 4, scales, 2, &zp, 3, out, 4), CODEC_E_TABLE_SIZE);
	CHECK_EQ(codec_affine_decode(&a, q, 3, scales, 2, NULL, 0, out, 4), CODEC_E_INPUT_SIZE);
	a.channels = 0;
	CHECK_EQ(codec_affine_decode(&a, q, 4, scales, 1, NULL, 0, out, 4), CODEC_E_GROUPS);
	a.channels = 1;
	a.type = (enum codec_qtype)7;
	CHECK_EQ(codec_affine_decode(&a, q, 4, scales, 1, NULL, 0, out, 4), CODEC_E_TYPE);
	/* the M1 symmetric-only rule */
	const uint8_t zps[3] = {0, 0, 1};
	CHECK_EQ(codec_affine_check_symmetric(zps, 2), CODEC_OK);
	CHECK_EQ(codec_affine_check_symmetric(zps, 3), CODEC_E_ASYMMETRIC);
	CHECK_EQ(codec_affine_check_symmetric(NULL, 3), CODEC_OK);
}

TEST(codec, blockwise_offset_semantics)
{
	/* block 2: scale 2.0, offset 0.5: 2 * (3 - 0.5) = 5; second block scale 1, offset -1 */
	const uint8_t q[4] = {3, 0xfe, 0, 1};
	uint16_t scale[2] = {0x4000, 0x3c00}, off[2] = {0x3800, 0xbc00}, out[4];
	struct codec_blockwise b = {CODEC_Q_INT8, 2};
	CHECK_EQ(codec_blockwise_decode(&b, q, 4, scale, 2, off, 2, out, 4), CODEC_OK);
	CHECK_EQ(out[0], 0x4500); /* 5 */
	CHECK_EQ(out[1], 0xc500); /* 2 * (-2 - 0.5) = -5 */
	CHECK_EQ(out[2], 0x3c00); /* 1 * (0 + 1) */
	CHECK_EQ(out[3], 0x4000); /* 2 */
	CHECK_EQ(codec_blockwise_decode(&b, q, 4, scale, 2, NULL, 0, out, 4), CODEC_OK);
	CHECK_EQ(out[0], 0x4600); /* 6 */
	CHECK_EQ(codec_blockwise_decode(&b, q, 4, scale, 1, NULL, 0, out, 4), CODEC_E_TABLE_SIZE);
	CHECK_EQ(codec_blockwise_decode(&b, q, 4, scale, 2, off, 1, out, 4), CODEC_E_TABLE_SIZE);
	CHECK_EQ(codec_blockwise_decode(&b, q, 3, scale, 2, NULL, 0, out, 4), CODEC_E_INPUT_SIZE);
	b.block = 3;
	CHECK_EQ(codec_blockwise_decode(&b, q, 4, scale, 1, NULL, 0, out, 4), CODEC_E_GROUPS);
	b.block = 0;
	CHECK_EQ(codec_blockwise_decode(&b, q, 4, scale, 1, NULL, 0, out, 4), CODEC_E_GROUPS);
	b.block = 2;
	off[1] = 0xfc00;
	CHECK_EQ(codec_blockwise_decode(&b, q, 4, scale, 2, off, 2, out, 4), CODEC_E_SCALE);
}

/* Offsets in the data's own type (Core ML's layout) decode exactly as the same values given as
 * fp16 offsets: every offset byte, every q byte, both data types, both offset types, short
 * blocks (direct rounding) and long ones (tables). */
TEST(codec, blockwise_quantized_offsets_match_fp16)
{
	static uint8_t q[512];
	static uint16_t a[512], b[512];
	uint16_t scale[2] = {0x2e66 /* 0.1 */, 0xb555 /* -0.333 */};
	for (unsigned i = 0; i < 512; i++)
		q[i] = (uint8_t)(i * 7 + 3);
	int bad = 0;
	for (unsigned dt = 0; dt < 2; dt++)
		for (unsigned ot = 1; ot <= 2; ot++)
			for (unsigned v = 0; v < 256; v++)
				for (unsigned blk = 8; blk <= 256; blk *= 32) { /* 8: direct; 256: table */
					struct codec_blockwise bw = {dt ? CODEC_Q_UINT8 : CODEC_Q_INT8, blk};
					uint8_t o8[2] = {(uint8_t)v, (uint8_t)(255 - v)};
					uint16_t o16[2];
					for (unsigned k = 0; k < 2; k++) {
						int32_t iv = ot == CODEC_OFF_INT8 ? (int8_t)o8[k] : o8[k];
						o16[k] = fp16_from_scaled(iv, 0); /* exact: |iv| <= 255 */
					}
					size_t n = 2 * blk;
					bad += codec_blockwise_decode_typed(&bw, q, n, scale, 2, o8, (enum codec_offset_type)ot, 2,
									    a, n) != CODEC_OK;
					bad += codec_blockwise_decode(&bw, q, n, scale, 2, o16, 2, b, n) != CODEC_OK;
					bad += memcmp(a, b, n * 2) != 0;
				}
	CHECK_EQ(bad, 0);
	/* and the typed decoder is not blind to its offsets: int8 0xff is -1, uint8 0xff is 255 */
	struct codec_blockwise bw = {CODEC_Q_UINT8, 1};
	const uint8_t q1[1] = {1}, off1[1] = {0xff};
	uint16_t one = 0x3c00, r;
	CHECK_EQ(codec_blockwise_decode_typed(&bw, q1, 1, &one, 1, off1, CODEC_OFF_INT8, 1, &r, 1), CODEC_OK);
	CHECK_EQ(r, 0x4000); /* 1 - (-1) = 2 */
	CHECK_EQ(codec_blockwise_decode_typed(&bw, q1, 1, &one, 1, off1, CODEC_OFF_UINT8, 1, &r, 1), CODEC_OK);
	CHECK_EQ(r, 0xdbf0); /* 1 - 255 = -254 */
	CHECK_EQ(codec_blockwise_decode_typed(&bw, q1, 1, &one, 1, off1, (enum codec_offset_type)3, 1, &r, 1),
		 CODEC_E_TYPE);
	CHECK_EQ(codec_blockwise_decode_typed(&bw, q1, 1, &one, 1, off1, CODEC_OFF_INT8, 2, &r, 1),
		 CODEC_E_TABLE_SIZE);
	CHECK_EQ(codec_blockwise_decode_typed(&bw, q1, 1, &one, 1, NULL, CODEC_OFF_INT8, 0, &r, 1), CODEC_OK);
	CHECK_EQ(r, 0x3c00);
}

TEST(codec, fp8_documented_points)
{
	/* E4M3FN: max 448 = 0x7e, NaN 0x7f, overflow by mode */
	CHECK_EQ(codec_e4m3_to_fp16(0x7e), 0x5f00); /* 448 */
	CHECK(fp16_is_nan(codec_e4m3_to_fp16(0x7f)));
	CHECK_EQ(codec_e4m3_to_fp16(0x01), 0x1800); /* 2^-9 */
	CHECK_EQ(codec_e4m3_to_fp16(0x38), 0x3c00); /* 1.0 */
	CHECK_EQ(codec_fp16_to_e4m3(0x5f00, 0), 0x7e);
	CHECK_EQ(codec_fp16_to_e4m3(0x5f40, 0), 0x7e); /* 464: tie, even mantissa 448 */
	CHECK_EQ(codec_fp16_to_e4m3(0x5f41, 0), 0x7f); /* just past: NaN */
	CHECK_EQ(codec_fp16_to_e4m3(0x5f41, 1), 0x7e); /* saturate */
	CHECK_EQ(codec_fp16_to_e4m3(0xfc00, 1), 0xfe);
	CHECK_EQ(codec_fp16_to_e4m3(0xfc00, 0), 0xff);
	CHECK_EQ(codec_fp16_to_e4m3(0x7e00, 1), 0x7f); /* NaN stays NaN */
	CHECK_EQ(codec_fp16_to_e4m3(0x8000, 0), 0x80);
	/* E5M2: the high byte; max 57344; rounding to nearest even, infinity clamp */
	CHECK_EQ(codec_e5m2_to_fp16(0x7b), 0x7b00);
	CHECK_EQ(codec_fp16_to_e5m2(0x3c80, 0), 0x3c); /* tie, even */
	CHECK_EQ(codec_fp16_to_e5m2(0x3d80, 0), 0x3e); /* tie, odd rounds up */
	CHECK_EQ(codec_fp16_to_e5m2(0x7bff, 0), 0x7c); /* 65504 -> infinity */
	CHECK_EQ(codec_fp16_to_e5m2(0x7bff, 1), 0x7b);
	CHECK_EQ(codec_fp16_to_e5m2(0x7c00, 1), 0x7c);
	CHECK_EQ(codec_fp16_to_e5m2(0x7c01, 0), 0x7e); /* NaN never becomes infinity */
	CHECK_EQ(codec_fp16_to_e5m2(0xffff, 0), 0xfe);
	uint8_t b[2];
	uint16_t h[2] = {0x3c00, 0x3c00};
	CHECK_EQ(codec_e4m3_encode(h, 2, b, 1, 0), CODEC_E_OUTPUT_SIZE);
	CHECK_EQ(codec_e5m2_encode(h, 2, b, 1, 0), CODEC_E_OUTPUT_SIZE);
	CHECK_EQ(codec_e4m3_decode(b, 1, h, 2), CODEC_E_INPUT_SIZE);
	CHECK_EQ(codec_e5m2_decode(b, 3, h, 2), CODEC_E_INPUT_SIZE);
}

TEST(codec, tflm_documented_examples)
{
	/* tflm-compression.txt: int16 table [99, 2, 10, 4, 1, 7], bit width 3 */
	const int16_t table[6] = {99, 2, 10, 4, 1, 7};
	const uint8_t bs[4] = {0x2d, 0xa9, 0x42, 0x2c}; /* 00101101 10101001 01000010 00101100 */
	int16_t out[10];
	const int16_t want[10] = {2, 4, 4, 10, 1, 7, 99, 10, 2, 4};
	struct codec_tflm t = {3, CODEC_TFLM_INT16, 1, 0};
	CHECK_EQ(codec_tflm_decode(&t, bs, 4, (const uint8_t *)table, 12, (uint8_t *)out, 20, 10), CODEC_OK);
	CHECK_MEM(out, want, 20);
	/* two channels: tables [1, 10, 2, 4, 0] and [99, 10, 2, 7, 4] */
	const int16_t pc[10] = {1, 10, 2, 4, 0, 99, 10, 2, 7, 4};
	const uint8_t bs2[4] = {0x4d, 0x90, 0xc1, 0x50}; /* 01001101 10010000 11000001 01010000 */
	t.channels = 2;
	CHECK_EQ(codec_tflm_decode(&t, bs2, 4, (const uint8_t *)pc, 20, (uint8_t *)out, 20, 10), CODEC_OK);
	CHECK_MEM(out, want, 20);
	/* the first example's bitstring 7, 0, 3, 2 at width 3 */
	const uint8_t ex[2] = {0xe1, 0xa0};
	const int8_t t8[8] = {10, 11, 12, 13, 14, 15, 16, 17};
	int8_t o8[4];
	struct codec_tflm t1 = {3, CODEC_TFLM_INT8, 1, 0};
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 8, (uint8_t *)o8, 4, 4), CODEC_OK);
	CHECK_EQ(o8[0], 17);
	CHECK_EQ(o8[1], 10);
	CHECK_EQ(o8[2], 13);
	CHECK_EQ(o8[3], 12);
	/* errors */
	t1.bits = 0;
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 8, (uint8_t *)o8, 4, 4), CODEC_E_BITS);
	t1.bits = 8;
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 8, (uint8_t *)o8, 4, 4), CODEC_E_BITS);
	t1.bits = 3;
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 7, (uint8_t *)o8, 4, 4), CODEC_E_INDEX);
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 8, (uint8_t *)o8, 3, 4), CODEC_E_OUTPUT_SIZE);
	CHECK_EQ(codec_tflm_decode(&t1, ex, 1, (const uint8_t *)t8, 8, (uint8_t *)o8, 4, 4), CODEC_E_INPUT_SIZE);
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 0, (uint8_t *)o8, 4, 4), CODEC_E_TABLE_SIZE);
	t1.channels = 3;
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 6, (uint8_t *)o8, 4, 4), CODEC_E_GROUPS);
	t1.channels = 2;
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 7, (uint8_t *)o8, 4, 4), CODEC_E_TABLE_SIZE);
	t1.type = (enum codec_tflm_type)9;
	CHECK_EQ(codec_tflm_decode(&t1, ex, 2, (const uint8_t *)t8, 8, (uint8_t *)o8, 4, 4), CODEC_E_TYPE);
	/* per-channel stride is at most 128 */
	static uint8_t big[2 * 129];
	uint8_t z[1] = {0}, o1[1];
	struct codec_tflm t7 = {7, CODEC_TFLM_INT8, 1, 0};
	CHECK_EQ(codec_tflm_decode(&t7, z, 1, big, 129, o1, 1, 1), CODEC_OK);
	t7.channels = 2;
	CHECK_EQ(codec_tflm_decode(&t7, z, 1, big, 258, o1, 1, 0), CODEC_E_TABLE_SIZE);
	/* a bad index in the 8-at-a-time path: 16 indices of 3 bits, table of 7, index 7 at 9 */
	uint8_t bs16[6] = {0};
	bs16[3] = 0x1c; /* bits 27..29 (MSB-first) hold element 9 */
	struct codec_tflm t3 = {3, CODEC_TFLM_INT8, 1, 0};
	uint8_t o16[16];
	CHECK_EQ(codec_tflm_decode(&t3, bs16, 6, big, 8, o16, 16, 16), CODEC_OK);
	CHECK_EQ(codec_tflm_decode(&t3, bs16, 6, big, 7, o16, 16, 16), CODEC_E_INDEX);
	bs16[3] = 0x18; /* index 6: fine */
	CHECK_EQ(codec_tflm_decode(&t3, bs16, 6, big, 7, o16, 16, 16), CODEC_OK);
}

/* A phase-sparse record (codec_pkern_record; docs/codecs.md, "Phase-sparse kernels") with the
 * structure of Apple's tiny stride-2 capture: one output, 4 slots a tap, a 3x3 kernel over one
 * input channel, a bias; the taps' values here are t(i) = 1 + i/8 for tap i = 3 ky + kx. */
static size_t tiny_record(uint8_t *b)
{
	static const int8_t body[] = {
		/* phase ky even, kx even: taps (0,0) (0,2) | (2,0) (2,2), a nibble each */
		0x11, 0, 2, 0x11, 6, 8,
		/* even, odd: (0,1) (0,pad) | (2,1) (2,pad) */
		0x01, 1, 0x01, 7,
		/* odd, even: (1,0) (1,2) | (pad,0) (pad,2) */
		0x11, 3, 5, 0x00,
		/* odd, odd: (1,1) (1,pad) | (pad,1) (pad,pad) */
		0x01, 4, 0x00};
	size_t n = 0;
	b[n++] = 0x25; /* the bias, fp16 0x0025 */
	b[n++] = 0x00;
	n += 3; /* the count, below */
	for (size_t i = 0; i < sizeof body; i++) {
		if (i == 0 || i == 3 || i == 6 || i == 8 || i == 10 || i == 13 || i == 14 || i == 16) {
			b[n++] = (uint8_t)body[i]; /* a mask byte */
		} else { /* a tap's value */
			uint16_t v = (uint16_t)(0x3c00u + 0x80u * (unsigned)body[i]);
			b[n++] = (uint8_t)v;
			b[n++] = (uint8_t)(v >> 8);
		}
	}
	b[2] = (uint8_t)(n - 5);
	b[3] = 0;
	b[4] = 0;
	return n;
}

TEST(codec, phase_sparse_record_decodes_and_refuses_by_name)
{
	uint8_t b[64];
	uint16_t w[9], bias[1];
	size_t used = 0, n = tiny_record(b);
	const struct codec_pkern p = {1, 4, 3, 3, 1, 1, 0, 0};
	CHECK_EQ(n, 31u); /* 2 + 3 + 0x1a, as in the capture */
	CHECK_EQ(codec_pkern_slots(&p), 64u);
	CHECK_EQ(codec_pkern_record(&p, b, n, w, 9, bias, &used), CODEC_OK);
	CHECK_EQ(used, n);
	CHECK_EQ(bias[0], 0x0025u);
	for (unsigned i = 0; i < 9; i++)
		CHECKF(w[i] == 0x3c00u + 0x80u * i, "tap %u: 0x%04x", i, w[i]);
	/* the count one more than the body, or the record cut: codec-input-size */
	b[2]++;
	CHECK_EQ(codec_pkern_record(&p, b, n + 1, w, 9, bias, &used), CODEC_E_INPUT_SIZE);
	b[2]--;
	CHECK_EQ(codec_pkern_record(&p, b, n - 1, w, 9, bias, &used), CODEC_E_INPUT_SIZE);
	/* a mask bit on a padding slot (lane 1 of tap (0,0): one output): codec-value-in-padding-slot */
	b[5] |= 0x02;
	CHECK_EQ(codec_pkern_record(&p, b, n, w, 9, bias, &used), CODEC_E_SLOT);
	CHECK_STR(codec_err_name(CODEC_E_SLOT), "codec-value-in-padding-slot");
	b[5] &= (uint8_t)~0x02u;
	/* read with 2 slots a tap instead of 4: not this record */
	const struct codec_pkern p2 = {1, 2, 3, 3, 1, 1, 0, 0};
	CHECK(codec_pkern_record(&p2, b, n, w, 9, bias, &used) != CODEC_OK);
	/* parameters out of range: fewer slots than outputs, or a window of 0 */
	const struct codec_pkern bad1 = {4, 2, 3, 3, 1, 0, 0, 0}, bad2 = {1, 4, 0, 3, 1, 0, 0, 0};
	CHECK_EQ(codec_pkern_record(&bad1, b, n, w, 9, bias, &used), CODEC_E_GROUPS);
	CHECK_EQ(codec_pkern_record(&bad2, b, n, w, 9, bias, &used), CODEC_E_GROUPS);
	CHECK_EQ(codec_pkern_record(&p, b, n, w, 8, bias, &used), CODEC_E_OUTPUT_SIZE);
	CHECK_EQ(codec_pkern_record(&p, b, n, w, 9, NULL, &used), CODEC_E_NULL);
}

/* The binary form (NE.KernelCfg.SparseBinary; docs/codecs.md, "Phase-sparse kernels"): a record of
 * mask bytes alone, each marked slot the mark. Apple's H13 pad's record (its constant section
 * rebuilt to Apple's SHA-256: a count of 1, one mask byte 0x01) for a 2-wide window, 2 slots a
 * tap: tap (0, 0) marked, tap (0, 1) not. Read as the fp16 form the same bytes want a value the
 * count leaves out. */
TEST(codec, phase_sparse_binary_record_is_its_masks)
{
	const uint8_t b[4] = {0x01, 0x00, 0x00, 0x01};
	uint16_t w[2] = {0xffffu, 0xffffu};
	size_t used = 0;
	const struct codec_pkern bin = {1, 2, 1, 2, 1, 0, 1, 0x3c00u}, f16 = {1, 2, 1, 2, 1, 0, 0, 0};
	CHECK_EQ(codec_pkern_slots(&bin), 8u);
	CHECK_EQ(codec_pkern_record(&bin, b, sizeof b, w, 2, NULL, &used), CODEC_OK);
	CHECK_EQ(used, 4u);
	CHECK_EQ(w[0], 0x3c00u);
	CHECK_EQ(w[1], 0x0000u);
	CHECK_EQ(codec_pkern_record(&f16, b, sizeof b, w, 2, NULL, &used), CODEC_E_INPUT_SIZE);
	/* a mark on a padding slot (lane 1) is refused in the binary form too */
	const uint8_t pad[4] = {0x01, 0x00, 0x00, 0x02};
	CHECK_EQ(codec_pkern_record(&bin, pad, sizeof pad, w, 2, NULL, &used), CODEC_E_SLOT);
	/* a count that is not the mask bytes' */
	const uint8_t two[5] = {0x02, 0x00, 0x00, 0x01, 0x00};
	CHECK_EQ(codec_pkern_record(&bin, two, sizeof two, w, 2, NULL, &used), CODEC_E_INPUT_SIZE);
}
