/*
 * Weight codecs: the compressed weight forms of guide-07/guide-25 (palette LUT, structured
 * sparsity, affine int8/uint8, blockwise affine), fp8 (E4M3FN, E5M2, guide-36) and TFLM LUT
 * bitstrings (tflm-compression.txt). Integer-only; fp16 values are bit patterns (uint16_t).
 *
 * Every decoder takes its inputs as (pointer, count) pairs, checks all sizes and parameters
 * before it writes anything, and returns a named error. Counts are in elements of the pointed-to
 * type unless the name ends in _len (bytes). On an error found while decoding (only a TFLM index
 * outside its value table), the output buffer may hold partial results; nothing outside it is
 * written. Semantics are described in docs/codecs.md.
 */
#ifndef ANEFW_CODEC_H
#define ANEFW_CODEC_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

enum codec_err {
	CODEC_OK = 0,
	CODEC_E_NULL,          /* a required pointer is NULL */
	CODEC_E_BITS,          /* unsupported index bit width */
	CODEC_E_VECTOR,        /* palette vector size not legal (mask 0x36: 1, 2, 4, 5) */
	CODEC_E_GROUPS,        /* group / channel / block count is 0 or does not divide */
	CODEC_E_INPUT_SIZE,    /* packed input is not exactly the size the parameters imply */
	CODEC_E_TABLE_SIZE,    /* codebook / value table / scale / offset size mismatch */
	CODEC_E_OUTPUT_SIZE,   /* output buffer too small */
	CODEC_E_VALUE_COUNT,         /* value count differs from the mask's popcount */
	CODEC_E_PADDING,       /* nonzero padding bits after the last element */
	CODEC_E_SCALE,         /* scale or offset is NaN or infinite */
	CODEC_E_TYPE,          /* unknown element type */
	CODEC_E_ASYMMETRIC,    /* nonzero zero point where only the symmetric form is legal */
	CODEC_E_INDEX,         /* TFLM index beyond its channel's value table */
	CODEC_E_TOO_LARGE,     /* sizes overflow */
	CODEC_E_SLOT,          /* a phase-sparse kernel keeps a value in a slot that holds no weight */
	CODEC_E__COUNT
};

/* The error's name and one-line description (fw/common/err.h); codec_strerror is the description. */
const struct err_desc *codec_err(enum codec_err e);
const char *codec_err_name(enum codec_err e);
const char *codec_strerror(enum codec_err e);

/* ---- palette LUT ----
 * Indices of `bits` (1, 2, 3, 4, 6 or 8) packed LSB-first: index k occupies bits
 * [k*bits, (k+1)*bits) of the little-endian bit stream (at 4 bits: the low nibble first).
 * `count` output values; each index selects `vector` consecutive values, so there are
 * count/vector indices. The indices split into `groups` contiguous equal runs, run g using
 * codebook g. The LUT holds groups * 2^bits * vector fp16 values: codebook g, entry i,
 * component v at lut[(g << bits) * vector + i * vector + v].
 * The packed input must be exactly ceil(count/vector * bits / 8) bytes. */
struct codec_palette {
	unsigned bits;
	unsigned vector; /* 1 = per-tensor (scalar) palette */
	unsigned groups; /* 1 = one codebook */
};
int codec_palette_bits_ok(unsigned bits);
enum codec_err codec_palette_decode(const struct codec_palette *p, const uint8_t *in, size_t in_len,
				    const uint16_t *lut, size_t lut_count, uint16_t *out, size_t count);

/* ---- structured sparsity ----
 * mask: ceil(count/8) bytes, element i kept when bit (i % 8) of byte i/8 is set; padding bits
 * must be zero. values: the kept fp16 values in scan order; value_count must equal the
 * popcount. Cleared positions decode to +0 (0x0000). */
enum codec_err codec_sparse_decode(const uint8_t *mask, size_t mask_len, const uint16_t *values,
				   size_t value_count, uint16_t *out, size_t count);

/* ---- affine int8 / uint8 ----
 * out[i] = fp16_rne(scale[c] * (q[i] - zp[c])) exactly, rounded once, with c the channel of i
 * (channels are contiguous runs of count/channels elements). scale_count and zp_count are each
 * 1 (shared) or `channels`; zp may be NULL (zero). Zero results carry the IEEE product sign. */
enum codec_qtype { CODEC_Q_INT8 = 0, CODEC_Q_UINT8 = 1 };
struct codec_affine {
	enum codec_qtype type;
	size_t channels;
};
enum codec_err codec_affine_decode(const struct codec_affine *a, const uint8_t *q, size_t q_len,
				   const uint16_t *scale, size_t scale_count, const uint8_t *zp,
				   size_t zp_count, uint16_t *out, size_t count);
/* The M1 (table-descriptor version 5) symmetric-only rule: every zero point must be 0. */
enum codec_err codec_affine_check_symmetric(const uint8_t *zp, size_t zp_count);

/* ---- blockwise affine ----
 * Blocks of `block` consecutive elements (block divides count). For block b:
 * out[i] = fp16_rne(scale[b] * (q[i] - offset[b])) exactly, rounded once; offset (fp16, may be
 * fractional) is optional (NULL = 0): it is subtracted from the quantized value, like a zero
 * point. scale_count (and offset_count) must be count/block. */
struct codec_blockwise {
	enum codec_qtype type;
	size_t block;
};
enum codec_err codec_blockwise_decode(const struct codec_blockwise *b, const uint8_t *q, size_t q_len,
				      const uint16_t *scale, size_t scale_count, const uint16_t *offset,
				      size_t offset_count, uint16_t *out, size_t count);
/* The same with the offsets' element type chosen: fp16 patterns (uint16_t, as above), or int8 /
 * uint8 bytes (Core ML's constexpr_blockwise_shift_scale stores the offset in the data's own
 * type). offset points at offset_count elements of that type (NULL = no offset); an integer
 * offset v decodes exactly as the fp16 offset of value v would. Unknown offset_type:
 * CODEC_E_TYPE. codec_blockwise_decode is this with CODEC_OFF_FP16. */
enum codec_offset_type { CODEC_OFF_FP16 = 0, CODEC_OFF_INT8 = 1, CODEC_OFF_UINT8 = 2 };
enum codec_err codec_blockwise_decode_typed(const struct codec_blockwise *b, const uint8_t *q, size_t q_len,
					    const uint16_t *scale, size_t scale_count, const void *offset,
					    enum codec_offset_type offset_type, size_t offset_count, uint16_t *out,
					    size_t count);

/* ---- fp8 ---- */
/* E4M3FN -> fp16, exact; NaN (0x7f / 0xff) gives the quiet NaN 0x7e00 with the sign kept. */
uint16_t codec_e4m3_to_fp16(uint8_t v);
/* E5M2 -> fp16: the byte is the high byte of the fp16 pattern. */
static inline uint16_t codec_e5m2_to_fp16(uint8_t v) { return (uint16_t)(v << 8); }
/* fp16 -> E4M3FN, round to nearest even. Past 448 (after rounding) and infinities: 0x7e | sign
 * when saturate, else 0x7f | sign (NaN). NaN gives 0x7f | sign. */
uint8_t codec_fp16_to_e4m3(uint16_t h, int saturate);
/* fp16 -> E5M2: the high byte rounded to nearest even. Overflow rounds to infinity (0x7c);
 * with saturate, finite inputs clamp to 0x7b (57344) instead. Infinity stays infinity; NaN
 * gives the quiet NaN 0x7e | sign. */
uint8_t codec_fp16_to_e5m2(uint16_t h, int saturate);

enum codec_err codec_e4m3_decode(const uint8_t *in, size_t in_len, uint16_t *out, size_t count);
enum codec_err codec_e5m2_decode(const uint8_t *in, size_t in_len, uint16_t *out, size_t count);
enum codec_err codec_e4m3_encode(const uint16_t *in, size_t in_count, uint8_t *out, size_t out_len,
				 int saturate);
enum codec_err codec_e5m2_encode(const uint16_t *in, size_t in_count, uint8_t *out, size_t out_len,
				 int saturate);

/* ---- TFLM LUT bitstrings ----
 * Indices of `bits` (1..7) packed MSB-first (big-endian bit order) across bytes; the input is
 * exactly ceil(count*bits/8) bytes (padding bits are ignored). The value table holds elements of
 * `type`; with channels > 1 it holds `channels` tables of stride = table elements / channels
 * (stride <= 128), and element i uses channel i / (count/channels), or i % channels with
 * alt_axis. An index at or beyond the stride is an error. Output: count elements of `type`,
 * little-endian bytes (float32 copied as its bit pattern, bool one byte). The output types are
 * TFLM's: int8, int16, int32, int64, float32, bool. */
enum codec_tflm_type {
	CODEC_TFLM_INT8 = 0,
	CODEC_TFLM_INT16,
	CODEC_TFLM_INT32,
	CODEC_TFLM_FLOAT32,
	CODEC_TFLM_INT64,
	CODEC_TFLM_BOOL,
};
struct codec_tflm {
	unsigned bits;
	enum codec_tflm_type type;
	size_t channels; /* 1 = not per-channel */
	int alt_axis;
};
size_t codec_tflm_elem_size(enum codec_tflm_type t);
#define CODEC_TFLM_MAX_STRIDE 128u
enum codec_err codec_tflm_decode(const struct codec_tflm *t, const uint8_t *in, size_t in_len,
				 const uint8_t *table, size_t table_len, uint8_t *out, size_t out_len,
				 size_t count);

/* A prepared TFLM decoder: the parameters, a copy of the value table and the lookup tables built
 * from it, for repeated dispatches of the same weights (count elements each). Prepare checks
 * everything codec_tflm_decode checks that does not depend on the input bytes; decode then
 * checks the input and output sizes and gives results identical to codec_tflm_decode. NULL from
 * malloc is CODEC_E_TOO_LARGE (nothing is kept); lookup tables that cannot be allocated are
 * skipped (slower, same results). Release with codec_tflm_release (NULL is fine). */
struct codec_tflm_prepared;
enum codec_err codec_tflm_prepare(struct codec_tflm_prepared **out, const struct codec_tflm *t,
				  const uint8_t *table, size_t table_len, size_t count);
enum codec_err codec_tflm_decode_prepared(const struct codec_tflm_prepared *p, const uint8_t *in,
					  size_t in_len, uint8_t *out, size_t out_len);
void codec_tflm_release(struct codec_tflm_prepared *p);

/* ---- H13 phase-sparse kernels (stride-2 convolutions) ----
 * The kernel format Apple's H13 compiler writes for a stride-2 convolution (NE.KernelCfg.SparseFmt;
 * docs/codecs.md, "Phase-sparse kernels"): a coefficient channel holds records, one a pass of g
 * outputs side by side. A record is [g fp16 biases, with BiasMode][24-bit little-endian body byte
 * count][body]. For each input channel ci the body covers a run of slots: the taps in phase order
 * (ky even and kx even, ky even and kx odd, ky odd and kx even, both odd), each phase a
 * ceil(Kh/2) x ceil(Kw/2) grid (ky, kx ascending, the places past the kernel's edge padding), each
 * tap `lanes` slots (lane l is output l of the record; lanes >= g padding). Every run of 8 slots
 * is a mask byte (bit b: slot b holds a value) followed by those slots' fp16 values in bit order;
 * an unmarked slot is +0 (with binary, no values follow the mask bytes and a marked slot is
 * `mark`). A value in a padding slot, a body that ends elsewhere than its count says, or a record
 * past the input is refused by name. */
struct codec_pkern {
	unsigned g;      /* outputs a record holds (2^OCGSize), 1..128 */
	unsigned lanes;  /* slots a tap, at least g, a power of two up to 128 */
	unsigned kh, kw; /* the window, 1..31 */
	unsigned cin;    /* input channels a record covers */
	unsigned bias;   /* 1: the record opens with g fp16 biases */
	/* 1: the binary form (NE.KernelCfg.SparseBinary, Apple's H13 pad): the body is the mask
	 * bytes alone, no value stored; every marked slot decodes to `mark` */
	unsigned binary;
	uint16_t mark;
};
/* Slots an input channel's run holds (a multiple of 8), or 0 for parameters out of range. */
size_t codec_pkern_slots(const struct codec_pkern *p);
/* One record at in[0, in_len): w gets its g x cin x kh x kw fp16 weights ((lane, ci, ky, kx)
 * order, w_count of them at least), bias its g biases (with p->bias; else untouched, may be NULL);
 * *used the bytes the record took. */
enum codec_err codec_pkern_record(const struct codec_pkern *p, const uint8_t *in, size_t in_len,
				  uint16_t *w, size_t w_count, uint16_t *bias, size_t *used);

/* Bytes of a packed stream of n fields of `bits` each, or SIZE_MAX on overflow. */
size_t codec_packed_bytes(size_t n, unsigned bits);

#endif
