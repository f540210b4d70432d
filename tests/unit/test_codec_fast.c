/*
 * The decoders' fast paths (word-at-a-time blocks, pair tables, per-mask-byte scatter) only
 * engage on long, aligned runs: decode 128 Ki+ elements, aligned and misaligned, and compare
 * every output with a plain bit-by-bit reference written here.
 */
#include "fw/codec/codec.h"
#include "fw/common/fp16.h"
#include "tests/harness/harness.h"

#include <stdlib.h>
#include <string.h>

#define N (128u * 1024u + 37u)

static unsigned lsb_field(const uint8_t *p, size_t i, unsigned bits)
{
	unsigned v = 0;
	for (unsigned b = 0; b < bits; b++) {
		size_t bit = i * bits + b;
		v |= (unsigned)((p[bit / 8] >> (bit % 8)) & 1) << b;
	}
	return v;
}

static unsigned msb_field(const uint8_t *p, size_t i, unsigned bits)
{
	unsigned v = 0;
	for (unsigned b = 0; b < bits; b++) {
		size_t bit = i * bits + b;
		v = (v << 1) | ((p[bit / 8] >> (7 - bit % 8)) & 1);
	}
	return v;
}

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand();
}

/* Buffers with room for a misaligning offset. */
static uint8_t *in_buf;
static uint16_t *out_buf;

static int setup(void)
{
	in_buf = malloc(N * 2 + 64);
	out_buf = malloc((N + 8) * sizeof(uint16_t));
	return in_buf && out_buf;
}

static void teardown(void)
{
	free(in_buf);
	free(out_buf);
}

TEST(codec_fast, palette_every_width_long_runs)
{
	REQUIRE(setup());
	static const unsigned widths[] = {1, 2, 3, 4, 6, 8};
	uint16_t lut[256];
	for (unsigned i = 0; i < 256; i++)
		lut[i] = (uint16_t)(0x3c00 + i * 3);
	for (unsigned w = 0; w < 6; w++) {
		for (unsigned off = 0; off < 2; off++) {
			unsigned bits = widths[w];
			size_t nbytes = codec_packed_bytes(N, bits);
			uint8_t *in = in_buf + off;
			uint16_t *out = out_buf + off;
			fill_random(in, nbytes);
			struct codec_palette p = {.bits = bits, .vector = 1, .groups = 1};
			enum codec_err e = codec_palette_decode(&p, in, nbytes, lut, 1u << bits, out, N);
			CHECK_EQ(e, CODEC_OK);
			size_t bad = 0;
			for (size_t i = 0; i < N; i++)
				bad += out[i] != lut[lsb_field(in, i, bits)];
			CHECKF(!bad, "palette %u-bit offset %u: %lu wrong", bits, off, (unsigned long)bad);
		}
	}
	teardown();
}

TEST(codec_fast, sparse_long_runs)
{
	REQUIRE(setup());
	for (unsigned off = 0; off < 2; off++) {
		uint8_t *mask = in_buf + off;
		size_t mbytes = (N + 7) / 8;
		size_t kept = 0;
		for (size_t i = 0; i < mbytes; i++) {
			uint8_t m = 0;
			for (unsigned b = 0; b < 8; b++)
				if (i * 8 + b < N && test_rand() % 100 < 37)
					m |= (uint8_t)(1u << b);
			mask[i] = m;
			kept += (size_t)__builtin_popcount(m);
		}
		uint16_t *values = malloc(kept * 2 + 2);
		REQUIRE(values);
		for (size_t i = 0; i < kept; i++)
			values[i] = (uint16_t)(test_rand() | 1);
		uint16_t *out = out_buf + off;
		CHECK_EQ(codec_sparse_decode(mask, mbytes, values, kept, out, N), CODEC_OK);
		size_t j = 0, bad = 0;
		for (size_t i = 0; i < N; i++) {
			uint16_t want = ((mask[i / 8] >> (i % 8)) & 1) ? values[j++] : 0;
			bad += out[i] != want;
		}
		CHECK_EQ(bad, 0);
		CHECK_EQ(j, kept);
		free(values);
	}
	teardown();
}

TEST(codec_fast, fp8_long_runs)
{
	REQUIRE(setup());
	for (unsigned off = 0; off < 2; off++) {
		uint8_t *in = in_buf + off;
		uint16_t *out = out_buf + off;
		fill_random(in, N);
		CHECK_EQ(codec_e4m3_decode(in, N, out, N), CODEC_OK);
		size_t bad = 0;
		for (size_t i = 0; i < N; i++)
			bad += out[i] != codec_e4m3_to_fp16(in[i]);
		CHECK_EQ(bad, 0);
		CHECK_EQ(codec_e5m2_decode(in, N, out, N), CODEC_OK);
		bad = 0;
		for (size_t i = 0; i < N; i++)
			bad += out[i] != (uint16_t)(in[i] << 8);
		CHECK_EQ(bad, 0);
	}
	teardown();
}

TEST(codec_fast, tflm_int8_every_width_and_axis)
{
	REQUIRE(setup());
	const size_t channels = 8;
	uint8_t table[8 * 128];
	for (unsigned bits = 1; bits <= 7; bits++) {
		size_t stride = 1u << bits;
		for (size_t i = 0; i < channels * stride; i++)
			table[i] = (uint8_t)(i * 7 + bits);
		for (unsigned mode = 0; mode < 3; mode++) {
			unsigned off = mode == 1;
			uint8_t *in = in_buf + off;
			uint8_t *out = (uint8_t *)out_buf + off;
			size_t count = N - (N % channels); /* whole channels */
			size_t nbytes = codec_packed_bytes(count, bits);
			fill_random(in, nbytes);
			struct codec_tflm t = {.bits = bits, .type = CODEC_TFLM_INT8,
					       .channels = mode ? channels : 1, .alt_axis = mode == 2};
			size_t tlen = (mode ? channels : 1) * stride;
			CHECK_EQ(codec_tflm_decode(&t, in, nbytes, table, tlen, out, count, count), CODEC_OK);
			size_t bad = 0, per = count / channels;
			for (size_t i = 0; i < count; i++) {
				size_t ch = mode == 0 ? 0 : mode == 1 ? i / per : i % channels;
				bad += out[i] != table[ch * stride + msb_field(in, i, bits)];
			}
			CHECKF(!bad, "tflm %u-bit mode %u: %lu wrong", bits, mode, (unsigned long)bad);
		}
	}
	teardown();
}

/* Every TFLM output type (element sizes 1, 2, 4, 8), every width, the three layouts (per tensor,
 * per channel, alternate axis with an even and an odd channel count), input and output at an
 * odd address, per-channel runs that start mid-byte: element by element against the bit reader,
 * and a prepared decoder (used twice) against the one-shot decoder. */
TEST(codec_fast, tflm_every_type_width_layout)
{
	REQUIRE(setup());
	static const enum codec_tflm_type types[] = {CODEC_TFLM_INT8,  CODEC_TFLM_INT16, CODEC_TFLM_INT32,
						     CODEC_TFLM_FLOAT32, CODEC_TFLM_INT64, CODEC_TFLM_BOOL};
	const size_t n_all = 40000 - 40000 % 840; /* divisible by every channel count below */
	uint8_t *table = malloc(8 * 128 * 8), *out = malloc(n_all * 8 + 64), *out2 = malloc(n_all * 8 + 64);
	REQUIRE(table && out && out2);
	for (size_t i = 0; i < 8 * 128 * 8; i++)
		table[i] = (uint8_t)(i * 13 + 5);
	size_t bad = 0, cases = 0;
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		const size_t esz = codec_tflm_elem_size(types[ti]);
		for (unsigned bits = 1; bits <= 7; bits++) {
			const size_t stride = (size_t)1 << bits;
			for (unsigned mode = 0; mode < 5; mode++) {
				/* 0 per tensor, 1 per channel (8), 2 per channel (7: runs start mid-byte),
				 * 3 alternate axis (8), 4 alternate axis (5) */
				static const size_t chans[5] = {1, 8, 7, 8, 5};
				const size_t C = chans[mode];
				const size_t count = mode == 0 ? n_all + 3 : n_all; /* a tail after the blocks */
				const unsigned off = (bits + mode) & 1;
				uint8_t *in = in_buf + off, *o = out + off;
				const size_t nbytes = codec_packed_bytes(count, bits);
				fill_random(in, nbytes);
				struct codec_tflm t = {bits, types[ti], C, mode >= 3};
				enum codec_err e = codec_tflm_decode(&t, in, nbytes, table, C * stride * esz, o, count * esz, count);
				if (e != CODEC_OK) {
					bad++;
					continue;
				}
				for (size_t i = 0; i < count; i++) {
					size_t ch = mode >= 3 ? i % C : i / (count / C);
					bad += memcmp(o + i * esz, table + (ch * stride + msb_field(in, i, bits)) * esz, esz) != 0;
				}
				struct codec_tflm_prepared *pp;
				REQUIRE(codec_tflm_prepare(&pp, &t, table, C * stride * esz, count) == CODEC_OK);
				for (int rep = 0; rep < 2; rep++) {
					memset(out2, 0xa5, count * esz + 8);
					bad += codec_tflm_decode_prepared(pp, in, nbytes, out2 + 1 - off, count * esz) != CODEC_OK;
					bad += memcmp(out2 + 1 - off, o, count * esz) != 0;
				}
				codec_tflm_release(pp);
				cases++;
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(cases, 6 * 7 * 5);
	/* the prepared decoder checks what it is given, and is not blind: a wrong value table
	 * gives other results */
	struct codec_tflm t = {3, CODEC_TFLM_INT16, 2, 0};
	struct codec_tflm_prepared *pp;
	CHECK_EQ(codec_tflm_prepare(&pp, &t, table, 2 * 8 * 2 + 2, 128), CODEC_E_TABLE_SIZE);
	CHECK(pp == NULL);
	CHECK_EQ(codec_tflm_prepare(&pp, &t, table, 2 * 8 * 2, 127), CODEC_E_GROUPS);
	t.type = (enum codec_tflm_type)9;
	CHECK_EQ(codec_tflm_prepare(&pp, &t, table, 2 * 8 * 2, 128), CODEC_E_TYPE);
	t.type = CODEC_TFLM_INT16;
	REQUIRE(codec_tflm_prepare(&pp, &t, table, 2 * 8 * 2, 128) == CODEC_OK);
	CHECK_EQ(codec_tflm_decode_prepared(pp, in_buf, 47, out, 256), CODEC_E_INPUT_SIZE);
	CHECK_EQ(codec_tflm_decode_prepared(pp, in_buf, 48, out, 255), CODEC_E_OUTPUT_SIZE);
	CHECK_EQ(codec_tflm_decode_prepared(pp, in_buf, 48, out, 256), CODEC_OK);
	codec_tflm_release(pp);
	uint8_t other[32];
	for (size_t i = 0; i < 32; i++)
		other[i] = (uint8_t)~table[i];
	REQUIRE(codec_tflm_prepare(&pp, &t, other, 32, 128) == CODEC_OK);
	CHECK_EQ(codec_tflm_decode_prepared(pp, in_buf, 48, out2, 256), CODEC_OK);
	CHECK(memcmp(out, out2, 256) != 0);
	codec_tflm_release(pp);
	codec_tflm_release(NULL);
	free(table);
	free(out);
	free(out2);
	teardown();
}

/* Mismatches of one int8 decode: every element against the bit reader, and the `guard` bytes
 * before and after the output still 0x5a. */
static size_t tflm_i8_check(const uint8_t *in, const uint8_t *o, size_t count, size_t C, int alt, unsigned bits,
			    const uint8_t *table, size_t guard)
{
	size_t bad = 0;
	for (size_t i = 0; i < count; i++) {
		const size_t ch = alt ? i % C : i / (count / C);
		bad += o[i] != table[ch * ((size_t)1 << bits) + msb_field(in, i, bits)];
	}
	for (size_t g = 1; g <= guard; g++)
		bad += (o[-(ptrdiff_t)g] != 0x5a) + (o[count - 1 + g] != 0x5a);
	return bad;
}

/* int8 with the input and the output at every address modulo 8 (the strict-alignment target's
 * aligned-word path: merged input words, split result words, bytes at both ends): the alternate
 * axis with an even channel count that does not divide 64 (pair tables, phases wrapping) and an
 * odd one (the channels' value tables), per tensor and per channel (quad and pair tables at every
 * width, runs at every input alignment); counts of whole blocks (the last block needs the input
 * word after it, which is beyond the buffer: the element path takes it), the input at the very end
 * of its allocation; nothing outside the output may change. One-shot and prepared. */
TEST(codec_fast, tflm_int8_any_address)
{
	const size_t G = 8, nmax = 64 * 520;
	uint8_t *table = malloc(6 * 128), *ob = malloc(nmax + 8 + 2 * G);
	REQUIRE(table && ob);
	for (size_t i = 0; i < 6 * 128; i++)
		table[i] = (uint8_t)test_rand();
	size_t bad = 0, cases = 0;
	for (unsigned bits = 1; bits <= 7; bits++) {
		const size_t stride = (size_t)1 << bits;
		/* alternate axis 6 and 3 channels, per tensor, per channel (2) */
		static const size_t chans[4] = {6, 3, 1, 2};
		for (unsigned li = 0; li < 4; li++) {
			const size_t C = chans[li], count = li < 2 ? 64 * 30 : nmax;
			const size_t nbytes = codec_packed_bytes(count, bits);
			const int alt = li < 2;
			struct codec_tflm t = {bits, CODEC_TFLM_INT8, C, alt};
			struct codec_tflm_prepared *pp;
			REQUIRE(codec_tflm_prepare(&pp, &t, table, C * stride, count) == CODEC_OK);
			for (unsigned io = 0; io < 8; io++) {
				uint8_t *ib = malloc(nbytes + io), *in = ib + io;
				REQUIRE(ib);
				fill_random(in, nbytes);
				for (unsigned oo = 0; oo < 8; oo++) {
					/* long runs: every input and every output offset, not every pair */
					if (!alt && oo != (io + 3) % 8 && oo != 7 - io)
						continue;
					for (int prep = 0; prep < 2; prep++) {
						uint8_t *o = ob + G + oo;
						memset(ob, 0x5a, count + 8 + 2 * G);
						enum codec_err e = prep ? codec_tflm_decode_prepared(pp, in, nbytes, o, count)
									: codec_tflm_decode(&t, in, nbytes, table, C * stride, o,
											    count, count);
						bad += e != CODEC_OK;
						bad += tflm_i8_check(in, o, count, C, alt, bits, table, G) != 0;
						cases++;
					}
				}
				free(ib);
			}
			codec_tflm_release(pp);
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(cases, 7 * (2 * 8 * 8 * 2 + 2 * 14 * 2));
	/* the checker is not blind: a wrong element, a byte written before or after the output */
	{
		const size_t C = 6, count = 64 * 30;
		const unsigned bits = 3;
		uint8_t *in = malloc(codec_packed_bytes(count, bits));
		REQUIRE(in);
		fill_random(in, codec_packed_bytes(count, bits));
		struct codec_tflm t = {bits, CODEC_TFLM_INT8, C, 1};
		uint8_t *o = ob + G + 3;
		memset(ob, 0x5a, count + 8 + 2 * G);
		REQUIRE(codec_tflm_decode(&t, in, codec_packed_bytes(count, bits), table, C * 8, o, count, count) ==
			CODEC_OK);
		CHECK_EQ(tflm_i8_check(in, o, count, C, 1, bits, table, G), 0);
		CHECK(tflm_i8_check(in, o, count, C, 0, bits, table, G) != 0); /* the wrong layout */
		o[count / 2] ^= 1;
		CHECK(tflm_i8_check(in, o, count, C, 1, bits, table, G) != 0);
		o[count / 2] ^= 1;
		o[-1] = 0;
		CHECK(tflm_i8_check(in, o, count, C, 1, bits, table, G) != 0);
		o[-1] = 0x5a;
		o[count] = 0;
		CHECK(tflm_i8_check(in, o, count, C, 1, bits, table, G) != 0);
		free(in);
	}
	free(table);
	free(ob);
}

/* Exact reference for scale * (q - off), off = om * 2^oe, rounded once (fw/common/fp16). */
static uint16_t ref_dequant(uint16_t scale, int q, int32_t om, int32_t oe)
{
	int32_t sm, se;
	fp16_decompose(scale, &sm, &se);
	int32_t e = oe < 0 ? oe : 0; /* common exponent of q and the offset */
	int64_t d = (int64_t)q * ((int64_t)1 << (unsigned)(-e)) - (int64_t)om * ((int64_t)1 << (unsigned)(oe - e));
	if (d == 0 || sm == 0)
		return (uint16_t)(((scale & 0x8000u) != 0) != (d < 0) ? 0x8000u : 0);
	return fp16_from_scaled((int64_t)sm * d, se + e);
}

static uint16_t random_scale(void)
{
	/* finite, nonzero, exponent field 5..20 so products neither all overflow nor vanish */
	return (uint16_t)((test_rand() & 0x8000u) | ((5u + test_rand() % 16u) << 10) |
			  (test_rand() & 0x3ffu));
}

TEST(codec_fast, affine_long_channels)
{
	const size_t ch = 2, per = 65536, count = ch * per;
	uint8_t *q = malloc(count);
	uint16_t *out = malloc(count * 2);
	REQUIRE(q && out);
	fill_random(q, count);
	for (unsigned type = 0; type < 2; type++) {
		uint16_t scale[2] = {random_scale(), random_scale()};
		uint8_t zp[2] = {type ? 128 : 0, type ? 3 : 0};
		struct codec_affine a = {.type = type ? CODEC_Q_UINT8 : CODEC_Q_INT8, .channels = ch};
		CHECK_EQ(codec_affine_decode(&a, q, count, scale, 2, zp, 2, out, count), CODEC_OK);
		size_t bad = 0;
		for (size_t i = 0; i < count; i++) {
			size_t c = i / per;
			int qv = type ? (int)q[i] : (int)(int8_t)q[i];
			int zv = type ? (int)zp[c] : (int)(int8_t)zp[c];
			bad += out[i] != ref_dequant(scale[c], qv - zv, 0, 0);
		}
		CHECKF(!bad, "affine type %u: %lu wrong", type, (unsigned long)bad);
	}
	free(q);
	free(out);
}

TEST(codec_fast, blockwise_long_blocks_fractional_offset)
{
	const size_t block = 65536, nblk = 2, count = block * nblk;
	uint8_t *q = malloc(count);
	uint16_t *out = malloc(count * 2);
	REQUIRE(q && out);
	fill_random(q, count);
	uint16_t scale[2] = {random_scale(), random_scale()};
	uint16_t offset[2] = {0x3e00 /* 1.5 */, 0xc8a1 /* -9.2578125 */};
	struct codec_blockwise b = {.type = CODEC_Q_INT8, .block = block};
	CHECK_EQ(codec_blockwise_decode(&b, q, count, scale, nblk, offset, nblk, out, count), CODEC_OK);
	size_t bad = 0;
	for (size_t i = 0; i < count; i++) {
		int32_t om, oe;
		fp16_decompose(offset[i / block], &om, &oe);
		bad += out[i] != ref_dequant(scale[i / block], (int)(int8_t)q[i], om, oe);
	}
	CHECK_EQ(bad, 0);
	free(q);
	free(out);
}

/* Any finite fp16: every binade, subnormals, zero and both signs. */
static uint16_t random_finite(void)
{
	uint16_t h = (uint16_t)test_rand();
	return (h & 0x7c00u) == 0x7c00u ? (uint16_t)(h & 0xbbffu) : h;
}

TEST(codec_fast, dequant_short_runs_every_q)
{
	/* Short runs (under the table threshold) round each element directly. Every block holds
	 * all 256 codes, under random scales of every binade (results subnormal, zero, overflowing)
	 * and offsets that are random, integral or absent. */
	const size_t block = 256, nblk = 1024, count = block * nblk;
	uint8_t *q = malloc(count);
	uint16_t *out = malloc(count * 2), *scale = malloc(nblk * 2), *offset = malloc(nblk * 2);
	REQUIRE(q && out && scale && offset);
	for (size_t k = 0; k < nblk; k++) {
		for (size_t v = 0; v < block; v++)
			q[k * block + v] = (uint8_t)(v * 167u + k); /* a permutation of 0..255 */
		scale[k] = random_finite();
		switch (k % 3) {
		case 0: offset[k] = random_finite(); break;
		case 1: offset[k] = fp16_from_scaled((int64_t)(test_rand() % 400u) - 140, 0); break;
		default: offset[k] = 0; break;
		}
	}
	for (unsigned type = 0; type < 2; type++) {
		struct codec_blockwise b = {.type = type ? CODEC_Q_UINT8 : CODEC_Q_INT8, .block = block};
		CHECK_EQ(codec_blockwise_decode(&b, q, count, scale, nblk, offset, nblk, out, count), CODEC_OK);
		size_t bad = 0;
		for (size_t i = 0; i < count; i++) {
			int32_t om, oe;
			fp16_decompose(offset[i / block], &om, &oe);
			int qv = type ? (int)q[i] : (int)(int8_t)q[i];
			uint16_t want = ref_dequant(scale[i / block], qv, om, oe);
			if (out[i] != want && bad++ < 4)
				test_fail_at(__FILE__, __LINE__, "type %u scale %04x offset %04x q %d: %04x, want %04x",
					     type, scale[i / block], offset[i / block], qv, out[i], want);
		}
		CHECK_EQ(bad, 0);
	}
	free(q);
	free(out);
	free(scale);
	free(offset);
}
