/*
 * TFLM LUT bitstrings (tflm-compression.txt): MSB-first indices into per-channel value tables of
 * any TFLM output type. One engine for every element size:
 * - blocks of 64 indices (exactly `bits` 64-bit words, byte-swapped once) decoded by lookups of
 *   K = E * bits index bits into tables whose entries hold the E results of that field (E = 4 or
 *   2 for int8, 2 for int16, 1 otherwise or when a table would not pay: then the value table
 *   itself is the lookup table); field positions are compile-time constants after unrolling;
 * - the alternate axis the same way through a pointer per position (the table of the channel,
 *   or with E = 2 of the channel pair, that position falls on);
 * - anything else (tails under 64, channel runs that start mid-byte, value tables shorter than
 *   2^bits, which need the index check) element by element, with the element size a constant.
 * Tables are built once per prepared decoder (codec_tflm_prepare), or per call by
 * codec_tflm_decode. On x86 the blocks take any alignment. On strict-alignment builds (AArch64 is
 * treated as strict: the target builds with -mstrict-align) a block run wants an 8-byte aligned
 * input and output; int8 runs at other addresses use the same kernel with aligned words only
 * (input words merged from two aligned loads, result words split over two aligned stores, bytes
 * at the ends) when there are lookup tables or on the alternate axis, bytes in and out otherwise;
 * other element sizes take the element path.
 */
#include "fw/codec/codec.h"
#include "fw/codec/codec_fast.h"

#include <stdlib.h>
#include <string.h>

/* x86 loads and stores at any alignment at no cost. Elsewhere assume strict alignment: the target
 * builds with -mstrict-align (where GCC still defines __ARM_FEATURE_UNALIGNED, so that macro
 * cannot tell), and an unaligned memcpy there becomes a call or byte accesses. Defining
 * CODEC_TFLM_STRICT_ALIGN builds the strict paths on x86 too (to run them under ASan on the
 * host, which the target cannot). */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(CODEC_TFLM_STRICT_ALIGN)
#define TF_ANY_ALIGN 1
#define TF_AL(p, n) (p)
#else
#define TF_ANY_ALIGN 0
#define TF_AL(p, n) __builtin_assume_aligned((p), (n))
#endif

size_t codec_tflm_elem_size(enum codec_tflm_type t)
{
	switch (t) {
	case CODEC_TFLM_INT8:
	case CODEC_TFLM_BOOL:
		return 1;
	case CODEC_TFLM_INT16:
		return 2;
	case CODEC_TFLM_INT32:
	case CODEC_TFLM_FLOAT32:
		return 4;
	case CODEC_TFLM_INT64:
		return 8;
	}
	return 0;
}

/* Everything a decode needs; codec_tflm_prepared is this on the heap with owned tables. */
struct codec_tflm_prepared {
	unsigned bits, E, ES; /* E results per lookup, ES = E * esz bytes per table entry */
	int alt, fast;        /* fast: the value tables have all 2^bits entries (no index check) */
	size_t esz, C, stride, run, count, nph; /* nph: alternate-axis lookup tables */
	const uint8_t *vt;    /* value tables, C * stride elements */
	uint8_t *lt;          /* E > 1: lookup tables, lt_bytes each (per channel, or per phase) */
	size_t lt_bytes;
	const uint8_t **P;    /* alternate axis: nph + 64 table pointers */
	uint8_t *own_vt;      /* prepared decoders keep a copy of the value table */
};

/* ---- the block kernels ---- */

static inline __attribute__((always_inline)) uint64_t tf_ld_entry(const uint8_t *tab, uint64_t idx, const unsigned ES)
{
	if (ES == 1)
		return tab[idx];
	if (ES == 2) {
		uint16_t v;
		__builtin_memcpy(&v, TF_AL(tab + 2 * idx, 2), 2);
		return v;
	}
	if (ES == 4) {
		uint32_t v;
		__builtin_memcpy(&v, TF_AL(tab + 4 * idx, 4), 4);
		return v;
	}
	uint64_t v;
	__builtin_memcpy(&v, TF_AL(tab + 8 * idx, 8), 8);
	return v;
}

static inline __attribute__((always_inline)) void tf_st(uint8_t *o, uint64_t v, const unsigned ES)
{
	if (ES == 1) {
		*o = (uint8_t)v;
	} else if (ES == 2) {
		uint16_t t = (uint16_t)v;
		__builtin_memcpy(TF_AL(o, 2), &t, 2);
	} else if (ES == 4) {
		uint32_t t = (uint32_t)v;
		__builtin_memcpy(TF_AL(o, 4), &t, 4);
	} else {
		__builtin_memcpy(TF_AL(o, 8), &v, 8);
	}
}

static inline __attribute__((always_inline)) uint64_t tf_ld_be64(const uint8_t *p)
{
	uint64_t w;
	__builtin_memcpy(&w, TF_AL(p, 8), 8);
	return __builtin_bswap64(w);
}

static inline __attribute__((always_inline)) uint64_t tf_ld_be64_bytes(const uint8_t *p)
{
	uint64_t w = 0;
#pragma GCC unroll 8
	for (unsigned k = 0; k < 8; k++)
		w = (w << 8) | p[k];
	return w;
}

/* nblk blocks of 64 indices through one table, or (alt) the alternate axis: lookup f of a block
 * starting at phase q uses table P[q + f] (q advances by 64 / E per block, modulo nph). Results
 * are merged into 64-bit stores (8 / ES per store). ua selects how buffers are accessed:
 * 0: 8-byte aligned words (any alignment on x86);
 * 1 (strict-alignment builds, ES = 1): the input read byte by byte and every result stored as a
 *   byte, at any address;
 * 2 (strict-alignment builds): any address through aligned words only. An input word is the
 *   byte-swapped aligned word before it shifted left by 8 * (in % 8), merged with the next one
 *   shifted right; a result word is split over two aligned stores the same way. The first
 *   8 - in % 8 input bytes and the first 8 - out % 8 and the last out % 8 output bytes are
 *   moved byte by byte (at the first and after the last block), so nothing outside the buffers is
 *   touched, except that the aligned input word after the last block is read: the caller must
 *   leave 8 - in % 8 readable bytes after the blocks (tf_ua_blocks). */
static inline __attribute__((always_inline)) void tf_blk(const uint8_t *in, size_t nblk, const unsigned bits,
							  const unsigned E, const unsigned ES, const uint8_t *tab,
							  const uint8_t *const *P, size_t nph, uint8_t *out, const int ua,
							  const int alt)
{
	/* merged stores pay on the strict target, not on x86 (measured: int16 alt axis 3.35 against
	 * 3.49 on the target, 4.22 against 4.08 on x86) */
	const unsigned K = E * bits, NL = 64 / E, G = (ua == 1 || (TF_ANY_ALIGN && ua == 0)) ? 1 : 8 / ES;
	size_t q = 0;
	/* ua == 2: si / so = 8 * (in / out % 8); cur: the input bits not yet merged, at the top;
	 * prev: the last result word, whose top so / 8 bytes are not yet stored */
	const unsigned si = ua == 2 ? 8 * (unsigned)((uintptr_t)in & 7) : 0;
	const unsigned so = ua == 2 ? 8 * (unsigned)((uintptr_t)out & 7) : 0;
	uint64_t cur = 0, prev = 0;
	if (ua == 2) {
		for (unsigned k = 0; k < 8 - si / 8; k++)
			cur = (cur << 8) | in[k];
		cur <<= si;
		in += 8 - si / 8; /* aligned from here */
	}
	for (size_t b = 0; b < nblk; b++) {
		uint64_t W[8];
#pragma GCC unroll 8
		for (unsigned k = 0; k < bits; k++) {
			if (ua == 2) {
				const uint64_t nx = tf_ld_be64(in + 8 * k);
				W[k] = cur | ((nx >> 1) >> (63 - si)); /* si = 0: W[k] = cur */
				cur = nx << si;
			} else {
				W[k] = ua ? tf_ld_be64_bytes(in + 8 * k) : tf_ld_be64(in + 8 * k);
			}
		}
		in += 8 * bits;
		const uint8_t *const *Pq = alt ? P + q : NULL;
#pragma GCC unroll 64
		for (unsigned f = 0; f < NL; f += G) {
			uint64_t o = 0;
#pragma GCC unroll 8
			for (unsigned h = 0; h < G; h++) {
				const unsigned pos = (f + h) * K, wi = pos / 64, off = pos % 64;
				uint64_t x = W[wi] << off;
				if (off + K > 64)
					x |= W[wi + 1] >> (64 - off);
				o |= tf_ld_entry(alt ? Pq[f + h] : tab, x >> (64 - K), ES) << (8 * ES * h);
			}
			if (ua != 2) {
				tf_st(out + f * ES, o, G * ES);
			} else if (f == 0 && b == 0) {
				for (unsigned k = 0; k < 8 - so / 8; k++)
					out[k] = (uint8_t)(o >> 8 * k);
				prev = o;
			} else {
				/* the aligned word holding the top so / 8 bytes of prev, then o's low bytes */
				tf_st(out + f * ES - so / 8, ((prev >> 1) >> (63 - so)) | (o << so), 8);
				prev = o;
			}
		}
		out += NL * ES;
		if (alt) {
			q += NL;
			if (q >= nph)
				q %= nph;
		}
	}
	if (ua == 2 && nblk) {
		for (unsigned k = 8 - so / 8; k < 8; k++)
			*(out - 8 + k) = (uint8_t)(prev >> 8 * k);
	}
}

#define TF_BITS(E, ES, FN)                                                                           \
	switch (bits) {                                                                              \
	case 1: FN(1, E, ES); break;                                                                 \
	case 2: FN(2, E, ES); break;                                                                 \
	case 3: FN(3, E, ES); break;                                                                 \
	case 4: FN(4, E, ES); break;                                                                 \
	case 5: FN(5, E, ES); break;                                                                 \
	case 6: FN(6, E, ES); break;                                                                 \
	default: FN(7, E, ES); break;                                                                \
	}
#define TF_CALL(b, E, ES) tf_blk(in, nblk, b, E, ES, tab, NULL, 0, out, 0, 0)
#define TF_CALL_ALT(b, E, ES) tf_blk(in, nblk, b, E, ES, NULL, P, nph, out, 0, 1)
#define TF_CALL_U(b, E, ES) tf_blk(in, nblk, b, E, ES, tab, NULL, 0, out, 1, 0)
#define TF_CALL_M(b, E, ES) tf_blk(in, nblk, b, E, ES, tab, NULL, 0, out, 2, 0)
#define TF_CALL_MALT(b, E, ES) tf_blk(in, nblk, b, E, ES, NULL, P, nph, out, 2, 1)

static void tf_run_blocks(const uint8_t *in, size_t nblk, unsigned bits, unsigned E, unsigned ES, const uint8_t *tab,
			  uint8_t *out)
{
	if (E == 4) { /* int8, bits 1..3 */
		switch (bits) {
		case 1: TF_CALL(1, 4, 4); break;
		case 2: TF_CALL(2, 4, 4); break;
		default: TF_CALL(3, 4, 4); break;
		}
	} else if (E == 2 && ES == 2) {
		TF_BITS(2, 2, TF_CALL)
	} else if (E == 2) {
		TF_BITS(2, 4, TF_CALL)
	} else if (ES == 1) {
		TF_BITS(1, 1, TF_CALL)
	} else if (ES == 2) {
		TF_BITS(1, 2, TF_CALL)
	} else if (ES == 4) {
		TF_BITS(1, 4, TF_CALL)
	} else {
		TF_BITS(1, 8, TF_CALL)
	}
}

static void tf_run_blocks_alt(const uint8_t *in, size_t nblk, unsigned bits, unsigned E, unsigned ES,
			      const uint8_t *const *P, size_t nph, uint8_t *out)
{
	if (E == 2 && ES == 2) {
		TF_BITS(2, 2, TF_CALL_ALT)
	} else if (E == 2) {
		TF_BITS(2, 4, TF_CALL_ALT)
	} else if (ES == 1) {
		TF_BITS(1, 1, TF_CALL_ALT)
	} else if (ES == 2) {
		TF_BITS(1, 2, TF_CALL_ALT)
	} else if (ES == 4) {
		TF_BITS(1, 4, TF_CALL_ALT)
	} else {
		TF_BITS(1, 8, TF_CALL_ALT)
	}
}

#if !TF_ANY_ALIGN
/* Strict alignment, one-byte elements, buffers at any address, E = 1: bytes in and out. */
static void tf_run_blocks_u8(const uint8_t *in, size_t nblk, unsigned bits, const uint8_t *tab, uint8_t *out)
{
	TF_BITS(1, 1, TF_CALL_U)
}

/* Strict alignment, one-byte elements, buffers at any address, aligned accesses (ua = 2), one
 * table of quads (E = 4) or pairs (E = 2). */
static void tf_run_blocks_m(const uint8_t *in, size_t nblk, unsigned bits, unsigned E, const uint8_t *tab,
			    uint8_t *out)
{
	if (E == 4) {
		switch (bits) {
		case 1: TF_CALL_M(1, 4, 4); break;
		case 2: TF_CALL_M(2, 4, 4); break;
		default: TF_CALL_M(3, 4, 4); break;
		}
	} else {
		TF_BITS(2, 2, TF_CALL_M)
	}
}

/* Strict alignment, one-byte elements, buffers at any address, aligned accesses (ua = 2), the
 * alternate axis: E = 2 (pair tables) or 1. */
static void tf_run_blocks_alt_m(const uint8_t *in, size_t nblk, unsigned bits, unsigned E,
				const uint8_t *const *P, size_t nph, uint8_t *out)
{
	if (E == 2) {
		TF_BITS(2, 2, TF_CALL_MALT)
	} else {
		TF_BITS(1, 1, TF_CALL_MALT)
	}
}

/* How many blocks of a ua = 2 run leave the 8 - in % 8 bytes after them that it reads: avail is
 * the input bytes readable from in. */
static size_t tf_ua_blocks(const uint8_t *in, size_t avail, size_t nblk, unsigned bits)
{
	const size_t over = 8 - ((uintptr_t)in & 7);
	if (avail < over)
		return 0;
	const size_t fit = (avail - over) / (8 * (size_t)bits);
	return nblk < fit ? nblk : fit;
}
#endif

/* ---- element by element ---- */

/* Elements [i0, i1), any start bit; check: the value tables are shorter than 2^bits. Returns 0,
 * or -1 on an index at or beyond the stride. */
static inline __attribute__((always_inline)) int tf_elems_t(const struct codec_tflm_prepared *p, const uint8_t *in,
							     uint8_t *out, size_t i0, size_t i1, const size_t esz,
							     const int check)
{
	const unsigned bits = p->bits;
	const uint32_t mask = (1u << bits) - 1;
	const uint64_t pos = (uint64_t)i0 * bits;
	size_t byte = (size_t)(pos / 8);
	uint32_t acc = 0;
	unsigned have = 0;
	if (pos % 8) {
		acc = in[byte++];
		have = 8 - (unsigned)(pos % 8);
	}
	size_t ch = p->alt ? i0 % p->C : i0 / p->run, in_run = p->alt ? 0 : i0 % p->run;
	const uint8_t *vt = p->vt;
	for (size_t i = i0; i < i1; i++) {
		if (have < bits) {
			acc = (acc << 8) | in[byte++];
			have += 8;
		}
		have -= bits;
		uint32_t idx = (acc >> have) & mask;
		if (check && idx >= p->stride)
			return -1;
		__builtin_memcpy(out + i * esz, vt + (ch * p->stride + idx) * esz, esz);
		if (p->alt) {
			if (++ch == p->C)
				ch = 0;
		} else if (++in_run == p->run) {
			in_run = 0;
			ch++;
		}
	}
	return 0;
}

static int tf_elems(const struct codec_tflm_prepared *p, const uint8_t *in, uint8_t *out, size_t i0, size_t i1)
{
	if (i0 >= i1)
		return 0;
	const int check = !p->fast;
	switch (p->esz) {
	case 1: return check ? tf_elems_t(p, in, out, i0, i1, 1, 1) : tf_elems_t(p, in, out, i0, i1, 1, 0);
	case 2: return check ? tf_elems_t(p, in, out, i0, i1, 2, 1) : tf_elems_t(p, in, out, i0, i1, 2, 0);
	case 4: return check ? tf_elems_t(p, in, out, i0, i1, 4, 1) : tf_elems_t(p, in, out, i0, i1, 4, 0);
	default: return check ? tf_elems_t(p, in, out, i0, i1, 8, 1) : tf_elems_t(p, in, out, i0, i1, 8, 0);
	}
}

/* ---- set-up ---- */

static uint64_t tf_val(const uint8_t *v, size_t esz)
{
	uint64_t x = 0;
	__builtin_memcpy(&x, v, esz); /* little-endian */
	return x;
}

/* Table of pairs: entry (a << bits | b) = v0[a] | v1[b] << (8 esz), results for two positions
 * (esz 1 or 2; the table is malloc'd and its rows are 2^bits entries, so 64-bit stores are
 * aligned from 4 (esz 1) or 2 (esz 2) entries a row on). A row is the row of v1 values, built
 * once as 64-bit words, merged with a broadcast of v0[a]: one OR and one store per word. */
static void tf_pairs(uint8_t *t, const uint8_t *v0, const uint8_t *v1, unsigned bits, size_t esz)
{
	const size_t V = (size_t)1 << bits;
	uint64_t hi[64];
	if (esz == 1 && V < 4) {
		uint16_t *e = (uint16_t *)(void *)t;
		for (size_t a = 0; a < V; a++)
			for (size_t b = 0; b < V; b++)
				*e++ = (uint16_t)(v0[a] | v1[b] << 8);
		return;
	}
	/* n words a row, each holding per = 8 / (2 esz) entries */
	const unsigned sh = esz == 1 ? 16 : 32, per = 64 / sh;
	const size_t n = V / per;
	const uint64_t bc = esz == 1 ? 0x0001000100010001ull : 0x0000000100000001ull;
	for (size_t j = 0; j < n; j++) {
		uint64_t w = 0;
		for (unsigned k = 0; k < per; k++)
			w |= (tf_val(v1 + (j * per + k) * esz, esz) << (8 * esz)) << (sh * k);
		hi[j] = w;
	}
	uint8_t *row = t;
	for (size_t a = 0; a < V; a++, row += n * 8) {
		const uint64_t lo = tf_val(v0 + a * esz, esz) * bc;
		for (size_t j = 0; j < n; j++) {
			const uint64_t w = hi[j] | lo;
			__builtin_memcpy(TF_AL(row + 8 * j, 8), &w, 8);
		}
	}
}

/* int8 quads (bits <= 3): entry (A << 2 bits | B) = pair[A] | pair[B] << 16, two entries a
 * 64-bit store (rows of 4^bits >= 4 entries, the table malloc'd). */
static void tf_quads(uint8_t *t, const uint8_t *v, unsigned bits)
{
	uint64_t hi[32];
	uint32_t pair[64];
	const size_t P = (size_t)1 << (2 * bits), m = ((size_t)1 << bits) - 1;
	for (size_t j = 0; j < P; j++)
		pair[j] = (uint32_t)v[j >> bits] | (uint32_t)v[j & m] << 8;
	for (size_t j = 0; j < P / 2; j++)
		hi[j] = (uint64_t)pair[2 * j] << 16 | (uint64_t)pair[2 * j + 1] << 48;
	uint8_t *row = t;
	for (size_t A = 0; A < P; A++, row += P * 4) {
		const uint64_t lo = pair[A] * 0x0000000100000001ull;
		for (size_t j = 0; j < P / 2; j++) {
			const uint64_t w = hi[j] | lo;
			__builtin_memcpy(TF_AL(row + 8 * j, 8), &w, 8);
		}
	}
}

/* Chooses E and builds the lookup tables (p->vt and the shape fields set). Out of memory: E = 1,
 * nothing allocated except, on the alternate axis, P (returns -1 when even that fails). */
static int tf_build(struct codec_tflm_prepared *p)
{
	const unsigned bits = p->bits;
	p->E = 1;
	p->lt = NULL;
	p->P = NULL;
	p->nph = 0;
	if (!p->fast || p->count < 64)
		goto done;
	if (!p->alt) {
		unsigned E = 1;
		if (p->esz == 1)
			E = bits <= 3 ? 4 : 2;
		else if (p->esz == 2)
			E = 2;
		const size_t entries = (size_t)1 << (E * bits);
		if (E > 1 && p->run >= 2 * entries) {
			p->lt_bytes = entries * E * p->esz;
			p->lt = malloc(p->C * p->lt_bytes);
			if (p->lt) {
				p->E = E;
				for (size_t c = 0; c < p->C; c++) {
					const uint8_t *v = p->vt + c * p->stride * p->esz;
					if (E == 4)
						tf_quads(p->lt + c * p->lt_bytes, v, bits);
					else
						tf_pairs(p->lt + c * p->lt_bytes, v, v, bits, p->esz);
				}
			}
		}
		goto done;
	}
	/* alternate axis: pair tables per channel pair when C is even and they pay, else the
	 * channels' value tables */
	const size_t entries = (size_t)1 << (2 * bits), half = p->C / 2;
	if (p->C % 2 == 0 && p->esz <= 2 && half <= p->count / 2 / entries) {
		p->lt_bytes = entries * 2 * p->esz;
		p->lt = malloc(half * p->lt_bytes);
		if (p->lt) {
			p->E = 2;
			for (size_t q = 0; q < half; q++) {
				const uint8_t *v0 = p->vt + 2 * q * p->stride * p->esz;
				tf_pairs(p->lt + q * p->lt_bytes, v0, v0 + p->stride * p->esz, bits, p->esz);
			}
		}
	}
	p->nph = p->E == 2 ? half : p->C;
	p->P = malloc((p->nph + 64) * sizeof *p->P);
	if (!p->P) {
		free(p->lt);
		p->lt = NULL;
		p->E = 1;
		p->nph = 0;
		return -1;
	}
	for (size_t t = 0; t < p->nph + 64; t++)
		p->P[t] = p->E == 2 ? p->lt + (t % p->nph) * p->lt_bytes : p->vt + (t % p->nph) * p->stride * p->esz;
done:
	p->ES = (unsigned)(p->E * p->esz);
	return 0;
}

/* The checks that depend on the parameters and the value table only. */
static enum codec_err tf_params(const struct codec_tflm *t, size_t table_len, size_t count, size_t *esz_out,
				size_t *stride_out)
{
	if (t->bits < 1 || t->bits > 7)
		return CODEC_E_BITS;
	const size_t esz = codec_tflm_elem_size(t->type);
	if (!esz)
		return CODEC_E_TYPE;
	const size_t C = t->channels;
	if (C == 0 || count % C)
		return CODEC_E_GROUPS;
	if (table_len == 0 || table_len % esz || (table_len / esz) % C)
		return CODEC_E_TABLE_SIZE;
	const size_t stride = table_len / esz / C;
	if (C > 1 && stride > CODEC_TFLM_MAX_STRIDE)
		return CODEC_E_TABLE_SIZE;
	*esz_out = esz;
	*stride_out = stride;
	return CODEC_OK;
}

static void tf_init(struct codec_tflm_prepared *p, const struct codec_tflm *t, size_t esz, size_t stride,
		    const uint8_t *vt, size_t count)
{
	memset(p, 0, sizeof *p);
	p->bits = t->bits;
	p->esz = esz;
	p->C = t->channels;
	p->alt = t->alt_axis && t->channels > 1;
	p->stride = stride;
	p->count = count;
	p->run = count / t->channels;
	p->fast = stride >= ((size_t)1 << t->bits);
	p->vt = vt;
}

/* Strict-alignment builds: block runs need 8-byte aligned input and output words and table
 * entries aligned to their size. */
static int tf_aligned(const void *a, const void *b, const void *tab, unsigned ES)
{
	return TF_ANY_ALIGN || (!(((uintptr_t)a | (uintptr_t)b) & 7) && !((uintptr_t)tab % ES));
}

/* The decode proper (sizes checked, count > 0). */
static enum codec_err tf_decode(const struct codec_tflm_prepared *p, const uint8_t *in, uint8_t *out)
{
	const unsigned bits = p->bits;
	if (!p->fast)
		return tf_elems(p, in, out, 0, p->count) ? CODEC_E_INDEX : CODEC_OK;
	if (p->alt) {
		int al = p->P != NULL;
		for (size_t t = 0; al && t < p->nph; t++)
			al = tf_aligned(in, out, p->P[t], p->ES);
		size_t nblk = al ? p->count / 64 : 0;
		if (nblk)
			tf_run_blocks_alt(in, nblk, bits, p->E, p->ES, p->P, p->nph, out);
#if !TF_ANY_ALIGN
		else if (p->esz == 1 && p->P) { /* tables are malloc'd or bytes: aligned */
			nblk = tf_ua_blocks(in, codec_packed_bytes(p->count, bits), p->count / 64, bits);
			if (nblk)
				tf_run_blocks_alt_m(in, nblk, bits, p->E, p->P, p->nph, out);
		}
#endif
		tf_elems(p, in, out, nblk * 64, p->count);
		return CODEC_OK;
	}
	const size_t run = p->run;
	for (size_t c = 0; c < p->C; c++) {
		const size_t s = c * run;
		size_t nblk = 0;
		if ((s * bits) % 8 == 0) {
			const uint8_t *src = in + s * bits / 8;
			uint8_t *dst = out + s * p->esz;
			const uint8_t *tab = p->E > 1 ? p->lt + c * p->lt_bytes : p->vt + c * p->stride * p->esz;
			if (tf_aligned(src, dst, tab, p->ES)) {
				nblk = run / 64;
				if (nblk)
					tf_run_blocks(src, nblk, bits, p->E, p->ES, tab, dst);
			}
#if !TF_ANY_ALIGN
			else if (p->esz == 1 && p->E > 1) { /* aligned words, the tables are malloc'd */
				nblk = tf_ua_blocks(src, codec_packed_bytes(p->count, bits) - s * bits / 8, run / 64,
						    bits);
				if (nblk)
					tf_run_blocks_m(src, nblk, bits, p->E, tab, dst);
			} else if (p->esz == 1) { /* the value table itself, bytes in and out */
				nblk = run / 64;
				if (nblk)
					tf_run_blocks_u8(src, nblk, bits, p->vt + c * p->stride, dst);
			}
#endif
		}
		tf_elems(p, in, out, s + nblk * 64, s + run);
	}
	return CODEC_OK;
}

enum codec_err codec_tflm_decode(const struct codec_tflm *t, const uint8_t *in, size_t in_len,
				 const uint8_t *table, size_t table_len, uint8_t *out, size_t out_len,
				 size_t count)
{
	if (!t || (!in && in_len) || !table || (!out && out_len))
		return CODEC_E_NULL;
	size_t esz, stride;
	enum codec_err e = tf_params(t, table_len, count, &esz, &stride);
	if (e != CODEC_OK)
		return e;
	if (in_len != codec_packed_bytes(count, t->bits))
		return CODEC_E_INPUT_SIZE;
	if (count > SIZE_MAX / esz)
		return CODEC_E_TOO_LARGE;
	if (out_len < count * esz)
		return CODEC_E_OUTPUT_SIZE;
	if (count == 0)
		return CODEC_OK;
	struct codec_tflm_prepared p;
	tf_init(&p, t, esz, stride, table, count);
	tf_build(&p); /* out of memory: the element path */
	e = tf_decode(&p, in, out);
	free(p.lt);
	free(p.P);
	return e;
}

enum codec_err codec_tflm_prepare(struct codec_tflm_prepared **out, const struct codec_tflm *t,
				  const uint8_t *table, size_t table_len, size_t count)
{
	if (!out || !t || !table)
		return CODEC_E_NULL;
	*out = NULL;
	size_t esz, stride;
	enum codec_err e = tf_params(t, table_len, count, &esz, &stride);
	if (e != CODEC_OK)
		return e;
	if (count > SIZE_MAX / esz || codec_packed_bytes(count, t->bits) == SIZE_MAX)
		return CODEC_E_TOO_LARGE;
	struct codec_tflm_prepared *p = malloc(sizeof *p);
	uint8_t *vt = malloc(table_len);
	if (!p || !vt) {
		free(p);
		free(vt);
		return CODEC_E_TOO_LARGE;
	}
	memcpy(vt, table, table_len);
	tf_init(p, t, esz, stride, vt, count);
	p->own_vt = vt;
	tf_build(p);
	*out = p;
	return CODEC_OK;
}

enum codec_err codec_tflm_decode_prepared(const struct codec_tflm_prepared *p, const uint8_t *in,
					  size_t in_len, uint8_t *out, size_t out_len)
{
	if (!p || (!in && in_len) || (!out && out_len))
		return CODEC_E_NULL;
	if (in_len != codec_packed_bytes(p->count, p->bits))
		return CODEC_E_INPUT_SIZE;
	if (out_len < p->count * p->esz)
		return CODEC_E_OUTPUT_SIZE;
	if (p->count == 0)
		return CODEC_OK;
	return tf_decode(p, in, out);
}

void codec_tflm_release(struct codec_tflm_prepared *p)
{
	if (!p)
		return;
	free(p->lt);
	free(p->P);
	free(p->own_vt);
	free(p);
}
