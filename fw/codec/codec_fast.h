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

/* dst[i] = tab[src[i]] for n elements, eight loads before eight stores (any alignment). */
static inline void codec_lookup_u16(const uint16_t *tab, const uint8_t *src, uint16_t *dst, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint16_t a = tab[src[i]], b = tab[src[i + 1]], c = tab[src[i + 2]], d = tab[src[i + 3]];
		uint16_t e = tab[src[i + 4]], f = tab[src[i + 5]], g = tab[src[i + 6]], h = tab[src[i + 7]];
		dst[i] = a;
		dst[i + 1] = b;
		dst[i + 2] = c;
		dst[i + 3] = d;
		dst[i + 4] = e;
		dst[i + 5] = f;
		dst[i + 6] = g;
		dst[i + 7] = h;
	}
	for (; i < n; i++)
		dst[i] = tab[src[i]];
}

/* Entry (hi << 8 | lo) = tab[lo] | tab[hi] << 16: the fp16 pair for input bytes lo, hi (in that
 * order). NULL when out of memory. */
static inline uint32_t *codec_pair_table(const uint16_t *tab)
{
	uint32_t *pt = malloc(65536u * 4);
	if (!pt)
		return NULL;
	/* lo2[j]: the low halves of entries 2j, 2j+1 of every row; hr[hi]: row hi's high halves */
	uint64_t lo2[128], hr[256];
	for (unsigned j = 0; j < 128; j++)
		lo2[j] = (uint64_t)tab[2 * j] | (uint64_t)tab[2 * j + 1] << 32;
	for (unsigned hi = 0; hi < 256; hi++)
		hr[hi] = ((uint64_t)tab[hi] << 16) * 0x100000001ull;
	/* a 16-entry column chunk of lo2 stays in registers while it is merged into every row,
	 * two rows per turn: per 32 entries one load pair, 16 merges and 8 store pairs. Written
	 * out on purpose: with the chunk in an array and inner loops, GCC copies the chunk and
	 * pairs fewer stores (affine per channel 2.47 instead of 2.43 per element). */
	for (unsigned jc = 0; jc < 128; jc += 8) {
		uint64_t a0 = lo2[jc], a1 = lo2[jc + 1], a2 = lo2[jc + 2], a3 = lo2[jc + 3];
		uint64_t a4 = lo2[jc + 4], a5 = lo2[jc + 5], a6 = lo2[jc + 6], a7 = lo2[jc + 7];
		uint32_t *d = pt + 2 * jc;
		for (unsigned hi = 0; hi < 256; hi += 2, d += 512) {
			uint64_t h0 = hr[hi], h1 = hr[hi + 1];
			uint32_t *e = d + 256;
			codec_st64(d, a0 | h0);
			codec_st64(d + 2, a1 | h0);
			codec_st64(d + 4, a2 | h0);
			codec_st64(d + 6, a3 | h0);
			codec_st64(d + 8, a4 | h0);
			codec_st64(d + 10, a5 | h0);
			codec_st64(d + 12, a6 | h0);
			codec_st64(d + 14, a7 | h0);
			codec_st64(e, a0 | h1);
			codec_st64(e + 2, a1 | h1);
			codec_st64(e + 4, a2 | h1);
			codec_st64(e + 6, a3 | h1);
			codec_st64(e + 8, a4 | h1);
			codec_st64(e + 10, a5 | h1);
			codec_st64(e + 12, a6 | h1);
			codec_st64(e + 14, a7 | h1);
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
		const uint8_t *s = in + i, *end = in + i + (n - i) / 64 * 64;
		uint16_t *o = out + i;
		i += (size_t)(end - s);
		for (; s < end; s += 64, o += 64) {
			/* each pair index is one aligned 16-bit load (no shifting or masking) and
			 * each pair result one 32-bit store; adjacent stores pair up (stp w, w) */
#pragma GCC unroll 8
			for (unsigned k = 0; k < 8; k++) {
				uint16_t a, b, c, d;
				__builtin_memcpy(&a, __builtin_assume_aligned(s + 8 * k, 8), 2);
				__builtin_memcpy(&b, __builtin_assume_aligned(s + 8 * k + 2, 2), 2);
				__builtin_memcpy(&c, __builtin_assume_aligned(s + 8 * k + 4, 4), 2);
				__builtin_memcpy(&d, __builtin_assume_aligned(s + 8 * k + 6, 2), 2);
				uint32_t r0 = pt[a], r1 = pt[b], r2 = pt[c], r3 = pt[d];
				__builtin_memcpy(__builtin_assume_aligned(o + 8 * k, 8), &r0, 4);
				__builtin_memcpy(__builtin_assume_aligned(o + 8 * k + 2, 4), &r1, 4);
				__builtin_memcpy(__builtin_assume_aligned(o + 8 * k + 4, 8), &r2, 4);
				__builtin_memcpy(__builtin_assume_aligned(o + 8 * k + 6, 4), &r3, 4);
			}
		}
	}
	for (; i < n; i++)
		out[i] = tab[in[i]];
}

/* Pair tables pay off from this many elements per table (64 Ki entries to build). */
#define CODEC_PAIR_MIN 131072u
/* ... and, against codec_lookup_u16 (about 3 instructions per element, where the pair decode
 * takes under 1.5 and the build about 0.75 per entry), from this many. */
#define CODEC_PAIR_MIN_LOOKUP 49152u

/* out[i] = tab[in[i]] for n elements: through a pair table built here when n is long enough
 * and memory allows, else codec_lookup_u16. */
static inline void codec_table_decode(const uint16_t *tab, const uint8_t *in, uint16_t *out, size_t n)
{
	uint32_t *pt;
	if (n >= CODEC_PAIR_MIN_LOOKUP && (pt = codec_pair_table(tab)) != NULL) {
		codec_pair_decode(pt, tab, in, out, n);
		free(pt);
		return;
	}
	codec_lookup_u16(tab, in, out, n);
}

#endif
