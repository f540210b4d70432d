/*
 * Internal fast-path helpers shared by the codec decoders: 64 Ki-entry byte-pair tables (two
 * fp16 results per 16-bit input field) and an aligned byte-to-fp16 pair decoder. Aligned word
 * accesses go through memcpy on pointers known to be 8-byte aligned (the target builds with
 * -mstrict-align); tables live on the heap and every caller has a slower path for when malloc
 * fails. Little-endian hosts and targets only.
 */
#ifndef ANEFW_CODEC_FAST_H
#define ANEFW_CODEC_FAST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "codec fast paths assume a little-endian machine"
#endif

#define CODEC_AL8(p) __builtin_assume_aligned((p), 8)

static inline uint64_t codec_ld64(const void *p)
{
	uint64_t w;
	__builtin_memcpy(&w, CODEC_AL8(p), 8);
	return w;
}

static inline void codec_st64(void *p, uint64_t w)
{
	__builtin_memcpy(CODEC_AL8(p), &w, 8);
}

/* Entry (hi << 8 | lo) = tab[lo] | tab[hi] << 16: the fp16 pair for input bytes lo, hi (in that
 * order). NULL when out of memory. */
static inline uint32_t *codec_pair_table(const uint16_t *tab)
{
	uint32_t *pt = malloc(65536u * 4);
	if (!pt)
		return NULL;
	uint64_t lo2[128];
	for (unsigned j = 0; j < 128; j++)
		lo2[j] = (uint64_t)tab[2 * j] | (uint64_t)tab[2 * j + 1] << 32;
	for (unsigned hi = 0; hi < 256; hi++) {
		uint64_t h = (uint64_t)tab[hi] << 16;
		h |= h << 32;
		uint32_t *d = pt + (hi << 8);
		for (unsigned j = 0; j < 128; j += 4) {
			codec_st64(d + 2 * j, lo2[j] | h);
			codec_st64(d + 2 * j + 2, lo2[j + 1] | h);
			codec_st64(d + 2 * j + 4, lo2[j + 2] | h);
			codec_st64(d + 2 * j + 6, lo2[j + 3] | h);
		}
	}
	return pt;
}

/* out[i] = tab[in[i]] for n elements, two at a time through the pair table pt (built from tab)
 * where the buffers' alignment allows. */
static inline void codec_pair_decode(const uint32_t *pt, const uint16_t *tab, const uint8_t *in, uint16_t *out,
				     size_t n)
{
	size_t i = 0;
	while (i < n && ((uintptr_t)(in + i) & 7))
		out[i] = tab[in[i]], i++;
	if (((uintptr_t)(out + i) & 7) == 0) {
		for (; i + 32 <= n; i += 32) {
#pragma GCC unroll 4
			for (unsigned k = 0; k < 4; k++) {
				uint64_t w = codec_ld64(in + i + 8 * k);
				uint64_t o0 = pt[w & 0xffff] | (uint64_t)pt[(w >> 16) & 0xffff] << 32;
				uint64_t o1 = pt[(w >> 32) & 0xffff] | (uint64_t)pt[w >> 48] << 32;
				codec_st64(out + i + 8 * k, o0);
				codec_st64(out + i + 8 * k + 4, o1);
			}
		}
	}
	for (; i < n; i++)
		out[i] = tab[in[i]];
}

/* Pair tables pay off from this many elements per table (64 Ki entries to build). */
#define CODEC_PAIR_MIN 131072u

#endif
