/* Weight codecs: error strings, shared size helpers, palette LUT and structured sparsity. */
#include "fw/codec/codec.h"
#include "fw/codec/codec_fast.h"

#include <string.h>

static const struct err_desc errs[CODEC_E__COUNT] = {
	[CODEC_OK] = {"ok", "no error"},
	[CODEC_E_NULL] = {"codec-missing-buffer", "missing buffer"},
	[CODEC_E_BITS] = {"codec-bad-index-bits", "unsupported index bit width"},
	[CODEC_E_VECTOR] = {"codec-bad-vector-size",
	 "illegal palette vector size (legal: 1, 2, 4, 5)"},
	[CODEC_E_GROUPS] = {"codec-bad-groups",
	 "group, channel or block count is zero or does not divide the element count"},
	[CODEC_E_INPUT_SIZE] = {"codec-input-size",
	 "packed input size does not match the element count"},
	[CODEC_E_TABLE_SIZE] = {"codec-table-size",
	 "codebook, value table, scale or offset size mismatch"},
	[CODEC_E_OUTPUT_SIZE] = {"codec-output-too-small", "output buffer too small"},
	[CODEC_E_VALUE_COUNT] = {"codec-value-count", "value count differs from the mask popcount"},
	[CODEC_E_PADDING] = {"codec-nonzero-padding",
	 "nonzero padding bits after the last element"},
	[CODEC_E_SCALE] = {"codec-scale-not-finite", "scale or offset is not finite"},
	[CODEC_E_TYPE] = {"codec-unknown-type", "unknown element type"},
	[CODEC_E_ASYMMETRIC] = {"codec-asymmetric",
	 "nonzero zero point where only the symmetric form is legal"},
	[CODEC_E_INDEX] = {"codec-index-beyond-table", "index beyond its value table"},
	[CODEC_E_TOO_LARGE] = {"codec-size-overflow", "sizes overflow"},
	[CODEC_E_SLOT] = {"codec-value-in-padding-slot",
	 "a phase-sparse kernel keeps a value in a slot that holds no weight (a tap past the "
	 "kernel's edge, or a lane past the record's outputs)"},
};

const struct err_desc *codec_err(enum codec_err e)
{
	static const struct err_desc unknown = {"codec-unknown-error", "unknown codec error"};
	return err_lookup(errs, CODEC_E__COUNT, (unsigned)e, &unknown);
}

const char *codec_strerror(enum codec_err e)
{
	return codec_err(e)->desc;
}

const char *codec_err_name(enum codec_err e)
{
	return codec_err(e)->name;
}

size_t codec_packed_bytes(size_t n, unsigned bits)
{
	if (bits == 0 || bits > 64)
		return SIZE_MAX;
	/* ceil(n * bits / 8) without overflowing n * bits */
	size_t whole = n / 8, rest = n % 8;
	if (whole > (SIZE_MAX - 8) / bits)
		return SIZE_MAX;
	return whole * bits + (rest * bits + 7) / 8;
}

/* ---------------- palette ---------------- */

int codec_palette_bits_ok(unsigned bits)
{
	return bits == 1 || bits == 2 || bits == 3 || bits == 4 || bits == 6 || bits == 8;
}

static int palette_vector_ok(unsigned v)
{
	return v < 32 && ((0x36u >> v) & 1u);
}

/* 4-bit, vector 1: a 256-entry table of index pairs, two fp16 values per input byte. Input
 * bytes are read one at a time (the target builds with strict alignment). */
static void palette4_run(const uint8_t *in, size_t nbytes, const uint16_t *cb, uint16_t *out)
{
	uint32_t pair[256];
	for (unsigned b = 0; b < 256; b++)
		pair[b] = (uint32_t)cb[b & 15] | ((uint32_t)cb[b >> 4] << 16);
	uint32_t *o = (uint32_t *)out;
	const uint8_t *end4 = in + (nbytes & ~(size_t)3), *end = in + nbytes;
	while (in < end4) {
		uint32_t a = pair[in[0]], b = pair[in[1]], c = pair[in[2]], d = pair[in[3]];
		o[0] = a;
		o[1] = b;
		o[2] = c;
		o[3] = d;
		in += 4;
		o += 4;
	}
	while (in < end)
		*o++ = pair[*in++];
}

/* Groups of 8 indices, which occupy exactly `bits` bytes (LSB-first), with bits a constant
 * after inlining so that every field extraction is one instruction. */
static inline __attribute__((always_inline)) void palette_oct(const uint8_t *in, size_t noct, const unsigned bits,
							       const uint16_t *cb, uint16_t *out)
{
	const uint64_t m = (1u << bits) - 1;
	for (size_t g = 0; g < noct; g++) {
		uint64_t w = 0;
		for (unsigned k = 0; k < bits; k++)
			w |= (uint64_t)in[k] << (8 * k);
		in += bits;
		uint16_t v0 = cb[w & m], v1 = cb[(w >> bits) & m], v2 = cb[(w >> 2 * bits) & m],
			 v3 = cb[(w >> 3 * bits) & m], v4 = cb[(w >> 4 * bits) & m], v5 = cb[(w >> 5 * bits) & m],
			 v6 = cb[(w >> 6 * bits) & m], v7 = cb[(w >> 7 * bits) & m];
		out[0] = v0;
		out[1] = v1;
		out[2] = v2;
		out[3] = v3;
		out[4] = v4;
		out[5] = v5;
		out[6] = v6;
		out[7] = v7;
		out += 8;
	}
}

/* Blocks of 64 indices (exactly `bits` aligned 64-bit words, LSB-first), decoded K bits at a
 * time through a table of the K/bits fp16 results packed in a uint64 (E = K/bits = 2 or 4). The
 * constants make every field extraction a fixed shift after unrolling. */
static inline __attribute__((always_inline)) void palette_blk64(const uint8_t *in, size_t nblk, const unsigned bits,
								 const unsigned K, const uint64_t *tab, uint16_t *out)
{
	const unsigned NF = 64 * bits / K;
	const uint64_t m = ((uint64_t)1 << K) - 1;
	for (size_t b = 0; b < nblk; b++) {
		uint64_t W[8];
		for (unsigned k = 0; k < bits; k++)
			W[k] = codec_ld64(in + 8 * k);
		in += 8 * bits;
#pragma GCC unroll 32
		for (unsigned f = 0; f < NF; f += 2) {
			uint64_t v[2];
			for (unsigned h = 0; h < 2; h++) {
				const unsigned pos = (f + h) * K, wi = pos / 64, off = pos % 64;
				uint64_t x = W[wi] >> off;
				if (off + K > 64)
					x |= W[wi + 1] << (64 - off);
				v[h] = tab[x & m];
			}
			if (K / bits == 4) {
				codec_st64(out, v[0]);
				codec_st64(out + 4, v[1]);
				out += 8;
			} else {
				codec_st64(out, v[0] | v[1] << 32);
				out += 4;
			}
		}
	}
}

/* Runs the 64-index blocks for bits 1, 2, 3, 6 when the buffers are 8-byte aligned; returns the
 * number of blocks done (0 when not applicable or out of memory). */
static size_t palette_blocks(const uint8_t *in, size_t nidx, unsigned bits, const uint16_t *cb, uint16_t *out)
{
	unsigned K;
	switch (bits) {
	case 1: K = 4; break;
	case 2: K = 8; break;
	case 3: K = 12; break;
	case 6: K = 12; break;
	default: return 0;
	}
	const size_t nblk = nidx / 64;
	const size_t entries = (size_t)1 << K;
	if (nblk == 0 || nblk * 64 < entries || ((uintptr_t)in & 7) || ((uintptr_t)out & 7))
		return 0;
	uint64_t *tab = malloc(entries * 8);
	if (!tab)
		return 0;
	const unsigned E = K / bits;
	const uint32_t m = (1u << bits) - 1;
	for (size_t j = 0; j < entries; j++) {
		uint64_t e = 0;
		for (unsigned k = 0; k < E; k++)
			e |= (uint64_t)cb[(j >> (bits * k)) & m] << (16 * k);
		tab[j] = e;
	}
	switch (bits) {
	case 1: palette_blk64(in, nblk, 1, 4, tab, out); break;
	case 2: palette_blk64(in, nblk, 2, 8, tab, out); break;
	case 3: palette_blk64(in, nblk, 3, 12, tab, out); break;
	default: palette_blk64(in, nblk, 6, 12, tab, out); break;
	}
	free(tab);
	return nblk;
}

static void palette_oct_any(const uint8_t *in, size_t noct, unsigned bits, const uint16_t *cb, uint16_t *out)
{
	switch (bits) {
	case 1: palette_oct(in, noct, 1, cb, out); break;
	case 2: palette_oct(in, noct, 2, cb, out); break;
	case 3: palette_oct(in, noct, 3, cb, out); break;
	case 6: palette_oct(in, noct, 6, cb, out); break;
	default: break;
	}
}

enum codec_err codec_palette_decode(const struct codec_palette *p, const uint8_t *in, size_t in_len,
				    const uint16_t *lut, size_t lut_count, uint16_t *out, size_t count)
{
	if (!p || (!in && in_len) || !lut || (!out && count))
		return CODEC_E_NULL;
	if (!codec_palette_bits_ok(p->bits))
		return CODEC_E_BITS;
	if (!palette_vector_ok(p->vector))
		return CODEC_E_VECTOR;
	const unsigned bits = p->bits, V = p->vector;
	if (count % V)
		return CODEC_E_GROUPS;
	const size_t nidx = count / V;
	if (p->groups == 0 || nidx % p->groups)
		return CODEC_E_GROUPS;
	const size_t per_group = nidx / p->groups;
	const size_t cb_len = ((size_t)1 << bits) * V; /* fp16 values per codebook */
	if (p->groups > SIZE_MAX / cb_len)
		return CODEC_E_TOO_LARGE;
	if (lut_count != cb_len * p->groups)
		return CODEC_E_TABLE_SIZE;
	if (in_len != codec_packed_bytes(nidx, bits))
		return CODEC_E_INPUT_SIZE;
	if (count == 0)
		return CODEC_OK;

	/* fast paths, scalar palettes whose groups start on byte boundaries */
	if (V == 1 && (p->groups == 1 || per_group % 8 == 0)) {
		const size_t oct = per_group / 8, tail = per_group % 8;
		for (size_t g = 0; g < p->groups; g++) {
			const uint16_t *cb = lut + (g << bits);
			const uint8_t *src = in + g * oct * bits;
			uint16_t *dst = out + g * per_group;
			if (bits == 8) {
				codec_table_decode(cb, src, dst, oct * 8);
			} else if (bits == 4 && ((uintptr_t)dst & 3) == 0) {
				palette4_run(src, oct * 4, cb, dst);
			} else if (bits == 4) {
				palette_oct(src, oct, 4, cb, dst);
			} else {
				size_t nb = palette_blocks(src, per_group, bits, cb, dst);
				palette_oct_any(src + nb * 8 * bits, oct - nb * 8, bits, cb, dst + nb * 64);
			}
			/* the last per_group % 8 indices: a bit reader from the byte boundary */
			const uint8_t *t = src + oct * bits;
			uint32_t acc = 0;
			unsigned have = 0;
			const uint32_t mask = (1u << bits) - 1;
			for (size_t k = 0; k < tail; k++) {
				if (have < bits) {
					acc |= (uint32_t)*t++ << have;
					have += 8;
				}
				dst[oct * 8 + k] = cb[acc & mask];
				acc >>= bits;
				have -= bits;
			}
		}
		return CODEC_OK;
	}

	/* general path: LSB-first bit reader */
	const uint32_t mask = (1u << bits) - 1;
	uint64_t acc = 0;
	unsigned have = 0;
	size_t pos = 0;
	uint16_t *o = out;
	for (size_t g = 0; g < p->groups; g++) {
		const uint16_t *cb = lut + g * cb_len;
		for (size_t k = 0; k < per_group; k++) {
			if (have < bits) {
				/* refill one byte at a time: at most 8 bits needed, input size checked */
				acc |= (uint64_t)in[pos++] << have;
				have += 8;
			}
			uint32_t idx = (uint32_t)acc & mask;
			acc >>= bits;
			have -= bits;
			const uint16_t *e = cb + (size_t)idx * V;
			for (unsigned v = 0; v < V; v++)
				*o++ = e[v];
		}
	}
	return CODEC_OK;
}

/* ---------------- structured sparsity ---------------- */

/* Per mask byte, a word holding the positions of its set bits (lowest first) in 4-bit fields
 * (field k at bits 4k..4k+2) and its popcount at bits 56..59, so that one load gives both. */
#define SPARSE_POP_SHIFT 56
static uint64_t sparse_pos[256];
static int sparse_pos_ready;

static const uint64_t *sparse_pos_get(void)
{
	if (!sparse_pos_ready) {
		for (unsigned m = 0; m < 256; m++) {
			uint64_t P = 0;
			unsigned n = 0;
			for (unsigned k = 0; k < 8; k++)
				if ((m >> k) & 1u)
					P |= (uint64_t)k << (4 * n++);
			sparse_pos[m] = P | (uint64_t)n << SPARSE_POP_SHIFT;
		}
		sparse_pos_ready = 1;
	}
	return sparse_pos;
}

enum codec_err codec_sparse_decode(const uint8_t *mask, size_t mask_len, const uint16_t *values,
				   size_t value_count, uint16_t *out, size_t count)
{
	if ((!mask && mask_len) || (!values && value_count) || (!out && count))
		return CODEC_E_NULL;
	if (mask_len != codec_packed_bytes(count, 1))
		return CODEC_E_INPUT_SIZE;
	if (count % 8 && (mask[mask_len - 1] >> (count % 8)))
		return CODEC_E_PADDING;
	const uint64_t *ptab = sparse_pos_get();
	size_t pop = 0, j = 0;
	while (j < mask_len && ((uintptr_t)(mask + j) & 7))
		pop += ptab[mask[j++]] >> SPARSE_POP_SHIFT;
	for (; j + 8 <= mask_len; j += 8) { /* 64 mask bits at a time */
		uint64_t w = codec_ld64(mask + j);
		w = w - ((w >> 1) & 0x5555555555555555ull);
		w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
		w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
		pop += (size_t)((w * 0x0101010101010101ull) >> 56);
	}
	for (; j < mask_len; j++)
		pop += ptab[mask[j]] >> SPARSE_POP_SHIFT;
	if (pop != value_count)
		return CODEC_E_VALUE_COUNT;
	const uint16_t *v = values;
	size_t i = 0;
	if (((uintptr_t)out & 7) == 0) {
		/* whole mask bytes: zero 8 outputs with two 64-bit stores, then scatter exactly
		 * popcount kept values to their positions, entering a fall-through chain through a
		 * jump table indexed by the popcount (one load and one indirect branch per byte) */
		static const void *const scatter_from[9] = {&&s0, &&s1, &&s2, &&s3, &&s4,
							    &&s5, &&s6, &&s7, &&s8};
		const uint8_t *mp = mask, *mend = mask + count / 8;
		uint16_t *o = out;
		while (mp < mend) {
			uint64_t P = ptab[*mp++];
			codec_st64(o, 0);
			codec_st64(o + 4, 0);
			goto *scatter_from[P >> SPARSE_POP_SHIFT];
		s8: o[(P >> 28) & 7] = v[7];
		s7: o[(P >> 24) & 7] = v[6];
		s6: o[(P >> 20) & 7] = v[5];
		s5: o[(P >> 16) & 7] = v[4];
		s4: o[(P >> 12) & 7] = v[3];
		s3: o[(P >> 8) & 7] = v[2];
		s2: o[(P >> 4) & 7] = v[1];
		s1: o[P & 7] = v[0];
		s0:
			v += P >> SPARSE_POP_SHIFT;
			o += 8;
		}
		i = (size_t)(o - out);
	}
	for (size_t b = i / 8; b < mask_len; b++) {
		unsigned m = mask[b];
		size_t n = count - i < 8 ? count - i : 8;
		if (m == 0) {
			memset(out + i, 0, n * 2);
			i += n;
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			unsigned keep = (m >> k) & 1u;
			out[i + k] = keep ? *v : 0;
			v += keep;
		}
		i += n;
	}
	return CODEC_OK;
}
