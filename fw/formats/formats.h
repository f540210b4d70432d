/*
 * Weight formats and the per-chip stream-or-fold gates (guide-07, guide-25, guide-36), as data.
 * Where the documents leave a value open it is FMT_UNSPECIFIED here, never a guess; see
 * docs/codecs.md for each source and each gap.
 */
#ifndef ANEFW_FORMATS_H
#define ANEFW_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "fw/common/err.h"

#define FMT_UNSPECIFIED (-1)

/* ---- kernel-format enum 1..31 (guide-25) ---- */
#define KFMT_MIN 1
#define KFMT_MAX 31
int kfmt_valid(unsigned f);
int kfmt_is_palette(unsigned f); /* 7..27: f - 7 < 0x15 */
int kfmt_is_unity(unsigned f);   /* 28..30: f - 0x1c < 3 */
/* The five helper tables, one row per enum value. Fields the documents do not give per enum
 * value are FMT_UNSPECIFIED. */
struct kfmt_row {
	int bit_depth;       /* _ZinKernelFormatGetBitDepth */
	int palette_format;  /* _ZinKernelFormatGetPaletteFormat (defined only for 7..27) */
	int underlying_type; /* _ZinKernelFormatGetUnderlyingType (an element type number) */
	int lut_bytes;       /* per-codebook byte stride of _ZinKernelGetPaletteLUTSize */
	int typeno;          /* ZinKernelFormatGetTypeno */
};
/* Returns 0 and fills *row for f in 1..31, -1 otherwise. */
int kfmt_row(unsigned f, struct kfmt_row *row);
/* Palette LUT bytes: fp16 codebook of 2^bits entries (32 bytes at 4 bits, 512 at 8) times the
 * codebook count; 0 for a width outside 1..8 or on overflow. */
uint64_t kfmt_palette_lut_size(unsigned bits, uint64_t codebooks);

/* ---- element type numbers the descriptor writes (guide-25) ---- */
enum elem_type {
	ETYPE_INT8 = 2,
	ETYPE_UINT8 = 3,
	ETYPE_HALF = 5,
	ETYPE_LUT = 8,
	ETYPE_UINT4 = 9,
	ETYPE_FP8 = 16,
	ETYPE_INT4 = 23,
};
const char *etype_name(unsigned t);  /* NULL when not one of the above */
int etype_bits(unsigned t);          /* width in bits, FMT_UNSPECIFIED for the LUT tag */

/* ---- ZinTensorFormat codes (guide-36 Table 36.2) ---- */
enum tensor_fmt {
	TFMT_INT8 = 0x1,
	TFMT_UINT8 = 0x2,
	TFMT_FP16 = 0x3,
	TFMT_FP32 = 0xb,
	TFMT_E4M3 = 0xc,
	TFMT_E5M2 = 0xd,
	TFMT_LIVE2 = 0xe, /* two-byte live-input format */
	TFMT_INT4 = 0x10,
};
const char *tfmt_name(unsigned code); /* NULL for codes not in the table */
/* Bytes per element: 1, 2 or 4; 0 for int4 ("under 1") and unknown codes. */
unsigned tfmt_bytes(unsigned code);
/* IsFormatDMAConvertibleToFP16: (code < 0xe) & (0x2ff0 >> code). */
int tfmt_dma_convertible_to_fp16(unsigned code);

/* ---- chips and their feature bytes ---- */
enum chip { CHIP_H13, CHIP_H14, CHIP_H15, CHIP_H16, CHIP_H17, CHIP_H18, CHIP__COUNT };
const char *chip_name(enum chip c);
const char *chip_family(enum chip c); /* e.g. "M1/H13" */
/* Parses "H13".."H18" (case-insensitive); returns 0 or -1. */
int chip_from_name(const char *s, enum chip *out);
/* Table-descriptor version: 5 on H13; FMT_UNSPECIFIED (a "later" version) on the others. */
int chip_td_version(enum chip c);

#define HAL_STREAM_MASTER 0x48f
#define HAL_PALETTE_STRIDE 0x529
#define HAL_FP32_DMA 0x52c
#define HAL_E4M3 0x52d
#define HAL_E5M2_DMA 0x52e
#define HAL_LIVE2_DMA 0x685
#define HAL_DENSE_CAP 0x200
#define HAL_RELAXED_CAP 0x210
#define HAL_CLUSTER_FIRST 0x520
#define HAL_CLUSTER_LAST 0x539
/* The feature byte at `offset` on chip c: 0 or 1 (or the cap value for 0x200/0x210), or
 * FMT_UNSPECIFIED when the documents do not give it. `inferred` (may be NULL) is set to 1
 * when the value is read from "and later"/"onward" statements rather than a table cell. */
long chip_feature(enum chip c, unsigned offset, int *inferred);
/* The per-format streaming gates: the int8 affine group (on at A14: 0x528, 0x532, 0x537) and the
 * blockwise group (on at A15: 0x520, 0x523, 0x533, 0x539). */
extern const uint16_t hal_int8_gate_bytes[3];
extern const uint16_t hal_blockwise_gate_bytes[4];

/* CheckValidDMAFormat: 1 valid, 0 invalid, FMT_UNSPECIFIED when the capability byte's value
 * for this chip is not documented or the code is not covered. */
int tfmt_dma_valid(enum chip c, unsigned code);

/* Palette vector size legality (mask 0x36: sizes 1, 2, 4, 5). */
int palette_vector_legal(unsigned v);

/* ---- the stream-or-fold decision ---- */
enum wform { WFORM_INT8, WFORM_PALETTE, WFORM_SPARSE, WFORM_BLOCKWISE, WFORM_E4M3, WFORM__COUNT };
const char *wform_name(enum wform f);
struct wdesc {
	enum wform form;
	unsigned palette_bits; /* palette only */
	unsigned vector;       /* palette vector size */
	unsigned groups;       /* palette codebook count */
	int asymmetric;        /* affine with a nonzero zero point */
	int non_unit_stride, dilated, tile_overlap, mutable_weight;
};
/* The default description of a form as Table 7.1 measures it: int4 scalar palette with one
 * codebook, symmetric int8, unit stride, no dilation, no overlap, immutable. */
struct wdesc wdesc_default(enum wform f);
enum gate_verdict { GATE_STREAM, GATE_FOLD, GATE_REFUSE };
const char *gate_verdict_name(enum gate_verdict v);
struct gate_decision {
	enum gate_verdict verdict;
	const char *why;
};
struct gate_decision gate_decide(enum chip c, const struct wdesc *w);

/* ---- bytes moved across DMA ---- */
struct bytes_in {
	uint64_t elements;
	uint64_t nonzeros; /* sparse */
	uint64_t scales;   /* affine: 1 or channel count; blockwise: block count */
	int has_offset;    /* blockwise */
};
struct bytes_out {
	struct gate_decision gate;
	uint64_t dense_fp16; /* 2 bytes per element */
	uint64_t stored;     /* the compressed form's bytes */
	uint64_t moved;      /* stored when it streams, dense_fp16 when it folds, 0 when refused */
};
enum bytes_err {
	BYTES_OK = 0,
	BYTES_E_ARG,      /* bytes-bad-argument: a null pointer */
	BYTES_E_SIZES,    /* bytes-inconsistent-sizes: nonzeros above the count, a palette width or
			     vector out of range, an unknown form */
	BYTES_E_OVERFLOW, /* bytes-size-overflow: a byte count over 64 bits */
	BYTES_E__COUNT
};
/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *bytes_err(enum bytes_err e);
/* The bytes a weight form stores and moves for in; BYTES_OK, or the error (out unspecified). */
enum bytes_err bytes_moved(enum chip c, const struct wdesc *w, const struct bytes_in *in,
			   struct bytes_out *out);

#endif
