/*
 * Weight codec speed: instructions retired per output element over 1 Mi elements, on the target
 * under exact icount (make BUILD=... bench T=bench). Each line reads
 * "bench <decoder>: X.XX instructions/element". Results are also spot-checked, so a fast wrong
 * decoder fails.
 */
#include "fw/codec/codec.h"
#include "hal/hal.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 20)

static void report(const char *what, uint64_t instr, uint64_t n)
{
	unsigned long whole = (unsigned long)(instr / n), hund = (unsigned long)((instr % n) * 100 / n);
	printf("bench %s: %lu.%02lu instructions/element\n", what, whole, hund);
}

static uint8_t *rand_bytes(size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	if (b)
		for (size_t i = 0; i < n; i += 8) {
			uint64_t r = test_rand();
			for (size_t k = 0; k < 8 && i + k < n; k++)
				b[i + k] = (uint8_t)(r >> (8 * k));
		}
	return b;
}

static uint16_t *rand_fp16(size_t n)
{
	uint16_t *h = malloc(n * 2 + 2);
	if (h)
		for (size_t i = 0; i < n; i++)
			h[i] = (uint16_t)(test_rand() & 0x3bff); /* finite, moderate */
	return h;
}

TEST(bench, codec_palette)
{
	static const unsigned widths[6] = {1, 2, 3, 4, 6, 8};
	uint16_t *out = malloc(N * 2);
	uint16_t *lut = rand_fp16(256);
	REQUIRE(out && lut);
	for (unsigned w = 0; w < 6; w++) {
		unsigned bits = widths[w];
		size_t in_len = codec_packed_bytes(N, bits);
		uint8_t *in = rand_bytes(in_len);
		REQUIRE(in);
		struct codec_palette p = {bits, 1, 1};
		uint64_t t0 = hal_instret();
		enum codec_err e = codec_palette_decode(&p, in, in_len, lut, (size_t)1 << bits, out, N);
		uint64_t t1 = hal_instret();
		CHECK_EQ(e, CODEC_OK);
		/* every element against a plain LSB-first bit reader */
		size_t bad = 0;
		for (size_t i = 0; i < N; i++) {
			size_t bit = i * bits;
			unsigned v = in[bit / 8] | (bit / 8 + 1 < in_len ? (unsigned)in[bit / 8 + 1] << 8 : 0u);
			bad += out[i] != lut[(v >> (bit % 8)) & ((1u << bits) - 1)];
		}
		CHECK_EQ(bad, 0);
		char name[48];
		snprintf(name, sizeof name, "palette %u-bit to fp16", bits);
		report(name, t1 - t0, N);
		free(in);
	}
	free(out);
	free(lut);
}

TEST(bench, codec_tflm_int8)
{
	uint8_t *out = malloc(N);
	REQUIRE(out);
	for (unsigned mode = 0; mode < 3; mode++) {
		for (unsigned bits = 1; bits <= 7; bits++) {
			size_t C = mode == 0 ? 1 : 16;
			size_t stride = (size_t)1 << bits;
			size_t in_len = codec_packed_bytes(N, bits);
			uint8_t *in = rand_bytes(in_len);
			uint8_t *table = rand_bytes(stride * C);
			REQUIRE(in && table);
			struct codec_tflm t = {bits, CODEC_TFLM_INT8, C, mode == 2};
			uint64_t t0 = hal_instret();
			enum codec_err e = codec_tflm_decode(&t, in, in_len, table, stride * C, out, N, N);
			uint64_t t1 = hal_instret();
			CHECK_EQ(e, CODEC_OK);
			/* every element against a plain MSB-first bit reader */
			size_t bad = 0;
			for (size_t i = 0; i < N; i++) {
				size_t bit = i * bits;
				unsigned v = (unsigned)in[bit / 8] << 8 | (bit / 8 + 1 < in_len ? in[bit / 8 + 1] : 0u);
				unsigned idx = (v >> (16 - bit % 8 - bits)) & ((1u << bits) - 1);
				size_t ch = C == 1 ? 0 : mode == 1 ? i / (N / C) : i % C;
				bad += out[i] != table[ch * stride + idx];
			}
			CHECK_EQ(bad, 0);
			char name[64];
			snprintf(name, sizeof name, "tflm %u-bit to int8%s", bits,
				 mode == 0 ? "" : mode == 1 ? " per channel" : " alt axis");
			report(name, t1 - t0, N);
			free(in);
			free(table);
		}
	}
	free(out);
}

/* Every TFLM output size (int16, int32/float32, int64; bool is int8's), widths 1, 4 and 7, the
 * three layouts, one-shot (tables built in the call) and prepared (built before), 256 Ki
 * elements (8-byte outputs: 2 MiB); int8 with the input and output one byte off. */
TEST(bench, codec_tflm_types)
{
	const size_t n = N / 4;
	uint8_t *outb = malloc(n * 8 + 16);
	REQUIRE(outb);
	static const enum codec_tflm_type types[] = {CODEC_TFLM_INT8, CODEC_TFLM_INT16, CODEC_TFLM_INT32,
						     CODEC_TFLM_INT64};
	static const char *const tname[] = {"int8 unaligned", "int16", "int32", "int64"};
	static const unsigned widths[3] = {1, 4, 7};
	for (unsigned ti = 0; ti < 4; ti++) {
		const size_t esz = codec_tflm_elem_size(types[ti]);
		const unsigned off = ti == 0; /* int8: both buffers one byte off */
		for (unsigned mode = 0; mode < 3; mode++) {
			for (unsigned wi = 0; wi < 3; wi++) {
				const unsigned bits = widths[wi];
				const size_t C = mode == 0 ? 1 : 16, stride = (size_t)1 << bits;
				const size_t in_len = codec_packed_bytes(n, bits);
				uint8_t *inb = rand_bytes(in_len + 1), *table = rand_bytes(stride * C * esz);
				REQUIRE(inb && table);
				uint8_t *in = inb + off, *out = outb + off;
				memmove(in, inb, in_len);
				struct codec_tflm t = {bits, types[ti], C, mode == 2};
				for (unsigned prep = 0; prep < 2; prep++) {
					struct codec_tflm_prepared *pp = NULL;
					if (prep)
						REQUIRE(codec_tflm_prepare(&pp, &t, table, stride * C * esz, n) == CODEC_OK);
					uint64_t t0 = hal_instret();
					enum codec_err e = prep ? codec_tflm_decode_prepared(pp, in, in_len, out, n * esz)
								: codec_tflm_decode(&t, in, in_len, table, stride * C * esz,
										    out, n * esz, n);
					uint64_t t1 = hal_instret();
					codec_tflm_release(pp);
					CHECK_EQ(e, CODEC_OK);
					size_t bad = 0;
					for (size_t i = 0; i < n; i++) {
						size_t bit = i * bits;
						unsigned v = (unsigned)in[bit / 8] << 8 | (bit / 8 + 1 < in_len ? in[bit / 8 + 1] : 0u);
						unsigned idx = (v >> (16 - bit % 8 - bits)) & ((1u << bits) - 1);
						size_t ch = C == 1 ? 0 : mode == 1 ? i / (n / C) : i % C;
						bad += memcmp(out + i * esz, table + (ch * stride + idx) * esz, esz) != 0;
					}
					CHECK_EQ(bad, 0);
					char name[80];
					snprintf(name, sizeof name, "tflm %u-bit to %s%s%s", bits, tname[ti],
						 mode == 0 ? "" : mode == 1 ? " per channel" : " alt axis",
						 prep ? " prepared" : "");
					report(name, t1 - t0, n);
				}
				free(inb);
				free(table);
			}
		}
	}
	free(outb);
}

TEST(bench, codec_sparse)
{
	size_t mask_len = N / 8;
	uint8_t *mask = malloc(mask_len);
	uint16_t *vals = rand_fp16(N);
	uint16_t *out = malloc(N * 2);
	REQUIRE(mask && vals && out);
	size_t pop = 0;
	memset(mask, 0, mask_len);
	for (size_t i = 0; i < N; i++)
		if (test_rand() % 100 < 37) {
			mask[i / 8] |= (uint8_t)(1u << (i % 8));
			pop++;
		}
	uint64_t t0 = hal_instret();
	enum codec_err e = codec_sparse_decode(mask, mask_len, vals, pop, out, N);
	uint64_t t1 = hal_instret();
	CHECK_EQ(e, CODEC_OK);
	size_t bad = 0, k = 0;
	for (size_t i = 0; i < N; i++)
		bad += out[i] != (((mask[i / 8] >> (i % 8)) & 1) ? vals[k++] : 0);
	CHECK_EQ(bad, 0);
	report("sparse 37% density to fp16", t1 - t0, N);
	free(mask);
	free(vals);
	free(out);
}

TEST(bench, codec_affine_blockwise)
{
	uint8_t *q = rand_bytes(N);
	uint16_t *out = malloc(N * 2);
	uint16_t *scale = rand_fp16(N / 32);
	uint8_t zp[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	REQUIRE(q && out && scale);
	struct codec_affine a = {CODEC_Q_INT8, 16};
	uint64_t t0 = hal_instret();
	enum codec_err e = codec_affine_decode(&a, q, N, scale, 16, zp, 16, out, N);
	uint64_t t1 = hal_instret();
	CHECK_EQ(e, CODEC_OK);
	report("affine int8 per channel (16) to fp16", t1 - t0, N);
	/* every element against a one-element decode (the direct rounding path, no tables) */
	unsigned bad = 0;
	struct codec_affine one = {CODEC_Q_INT8, 1};
	for (size_t i = 0; i < N; i++) {
		uint16_t r = 0xffff;
		size_t c = i / (N / 16);
		e = codec_affine_decode(&one, q + i, 1, scale + c, 1, zp + c, 1, &r, 1);
		bad += e != CODEC_OK || r != out[i];
	}
	CHECK_EQ(bad, 0);
	static const size_t blocks[3] = {32, 128, 1024};
	for (unsigned k = 0; k < 3; k++) {
		struct codec_blockwise b = {CODEC_Q_UINT8, blocks[k]};
		t0 = hal_instret();
		e = codec_blockwise_decode(&b, q, N, scale, N / blocks[k], scale, N / blocks[k], out, N);
		t1 = hal_instret();
		CHECK_EQ(e, CODEC_OK);
		char name[64];
		snprintf(name, sizeof name, "blockwise uint8 block %lu with offset to fp16", (unsigned long)blocks[k]);
		report(name, t1 - t0, N);
		struct codec_blockwise b1 = {CODEC_Q_UINT8, 1};
		bad = 0;
		for (size_t i = 0; i < N; i++) {
			uint16_t r = 0xffff;
			size_t blk = i / blocks[k];
			e = codec_blockwise_decode(&b1, q + i, 1, scale + blk, 1, scale + blk, 1, &r, 1);
			bad += e != CODEC_OK || r != out[i];
		}
		CHECK_EQ(bad, 0);
	}
	free(q);
	free(out);
	free(scale);
}

TEST(bench, codec_fp8)
{
	uint8_t *in = rand_bytes(N);
	uint16_t *out = malloc(N * 2);
	REQUIRE(in && out);
	(void)codec_e4m3_to_fp16(0);
	uint64_t t0 = hal_instret();
	CHECK_EQ(codec_e4m3_decode(in, N, out, N), CODEC_OK);
	uint64_t t1 = hal_instret();
	report("e4m3 to fp16", t1 - t0, N);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++)
		bad += out[i] != codec_e4m3_to_fp16(in[i]);
	CHECK_EQ(bad, 0);
	t0 = hal_instret();
	CHECK_EQ(codec_e5m2_decode(in, N, out, N), CODEC_OK);
	t1 = hal_instret();
	report("e5m2 to fp16", t1 - t0, N);
	bad = 0;
	for (size_t i = 0; i < N; i++)
		bad += out[i] != (uint16_t)(in[i] << 8);
	CHECK_EQ(bad, 0);
	uint8_t *enc = malloc(N);
	REQUIRE(enc);
	t0 = hal_instret();
	CHECK_EQ(codec_e4m3_encode(out, N, enc, N, 1), CODEC_OK);
	t1 = hal_instret();
	report("fp16 to e4m3 (saturate)", t1 - t0, N);
	free(enc);
	free(in);
	free(out);
}
