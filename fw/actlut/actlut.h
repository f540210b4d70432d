/*
 * The 33-knot activation LUT record (43 fp16 slots, 86 bytes; records sit at a 0x80 stride in a
 * task's weights), evaluated in integer arithmetic only. Semantics: docs/actlut.md.
 *
 * Slots: 0 in_lo, 1 in_hi (input clamp), 2 y_left, 3 y_right (the table function's end values;
 * the tail lines are clamped to the range between them, in either order),
 * 4..36 knots k[0..32], 37 left slope, 38 left intercept, 39 right slope, 40 right intercept,
 * 41 scale exponent s (integer; 64 = linear only), 42 mode word (integer).
 *
 * Every result is the exact value of the documented formula rounded once to fp16 (nearest, ties
 * to even) by fp16_from_scaled.
 */
#ifndef ANEFW_ACTLUT_H
#define ANEFW_ACTLUT_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#define ACTLUT_SLOTS 43
#define ACTLUT_BYTES 86    /* 43 little-endian fp16 */
#define ACTLUT_STRIDE 0x80 /* distance between records in the weights */
#define ACTLUT_KNOTS 33
#define ACTLUT_SEGMENTS 32
#define ACTLUT_TABLE_LEN 65536 /* one output per fp16 bit pattern */

/* Slot indices. */
enum {
	ACTLUT_IN_LO = 0,
	ACTLUT_IN_HI = 1,
	ACTLUT_OUT_LO = 2,
	ACTLUT_OUT_HI = 3,
	ACTLUT_KNOT0 = 4,
	ACTLUT_L_SLOPE = 37,
	ACTLUT_L_ICPT = 38,
	ACTLUT_R_SLOPE = 39,
	ACTLUT_R_ICPT = 40,
	ACTLUT_SCALE = 41,
	ACTLUT_MODE = 42,
};

#define ACTLUT_SCALE_LINEAR 64 /* slot 41 value: no knots, the two tail lines only */
#define ACTLUT_SCALE_MAX 20    /* largest accepted scale exponent for a knotted record */

/* Mode words (slot 42) seen in real records, and anefw's extension words. */
#define ACTLUT_MODE_PLAIN 0x01u /* u = x*2^s + 16 (knots centred on 0) */
#define ACTLUT_MODE_ODD 0x60u   /* y = sign(x) * F(|x|), u = |x|*2^s */
#define ACTLUT_MODE_EXP2 0x0au  /* x = n + f, y = F(f) * 2^n, u = f*2^s */
#define ACTLUT_MODE_LOG2 0xc9u  /* x = m*2^e, m in [0.5,1): y = e + F(m - 0.5), u = (m-0.5)*2^s */
#define ACTLUT_MODE_SQRT 0xc5u  /* x = m*2^e, e even, m in [0.5,2): y = F(m) * 2^(e/2) */
#define ACTLUT_MODE_RECIP 0x1e9u /* anefw: as LOG2 input, y = sign(x) F(m-0.5) 2^-e */
#define ACTLUT_MODE_RSQRT 0x1c5u /* anefw: as SQRT input, y = F(m) * 2^(-e/2) */

/*
 * The mode word read as bit fields (docs/actlut.md says which are known, and how):
 * bit 7 float split x = m*2^e, bit 6 LUT input |x|, bit 5 output takes the sign of x,
 * bit 1 integer split x = n + f, bits 3:2 how the split's integer part reaches the output
 * (2: whole, 1: half), bit 8 (anefw only) that transfer negated. Bit 0 is set in some real
 * words with no effect anefw could find. Bits 4 and 9..15 have no known meaning.
 */
#define ACTLUT_MB_CENTRE 0x001u /* observed, not understood; ignored */
#define ACTLUT_MB_ISPLIT 0x002u
#define ACTLUT_MB_XFER_SHIFT 2
#define ACTLUT_MB_XFER 0x00cu
#define ACTLUT_MB_XFER_HALF 1u
#define ACTLUT_MB_XFER_WHOLE 2u
#define ACTLUT_MB_UNKNOWN4 0x010u
#define ACTLUT_MB_SIGN 0x020u
#define ACTLUT_MB_ABS 0x040u
#define ACTLUT_MB_FSPLIT 0x080u
#define ACTLUT_MB_NEG 0x100u /* anefw extension */
#define ACTLUT_MB_KNOWN 0x1efu

enum actlut_kind {
	ACTLUT_KIND_LINEAR,
	ACTLUT_KIND_PLAIN,
	ACTLUT_KIND_ODD,
	ACTLUT_KIND_EXP2,
	ACTLUT_KIND_LOG2,
	ACTLUT_KIND_SQRT,
	ACTLUT_KIND_RECIP,
	ACTLUT_KIND_RSQRT,
	ACTLUT_KIND_EVEN, /* y = F(|x|) */
};

enum actlut_err {
	ACTLUT_OK = 0,
	ACTLUT_E_NULL,        /* a NULL pointer was passed */
	ACTLUT_E_SHORT,       /* fewer than 86 bytes */
	ACTLUT_E_NAN,         /* a NaN in slots 0..40 (clamps, end values, knots, tails) */
	ACTLUT_E_INF_COEF,    /* an infinity in a knot, slope or intercept */
	ACTLUT_E_CLAMP_ORDER, /* input clamp in_lo > in_hi */
	ACTLUT_E_SCALE,       /* slot 41 is not 0..ACTLUT_SCALE_MAX or 64 */
	ACTLUT_E_MODE,        /* slot 42 sets a bit or a field value with no known meaning */
	ACTLUT_E_LINEAR_MODE, /* linear-only scale (no knots) with a split mode word */
	ACTLUT_E_MODE_BITS,   /* mode word bits that contradict each other */
	ACTLUT_E_MODE_SLOTS,  /* mode word that contradicts the input clamp */
	ACTLUT_E__COUNT
};

struct actlut {
	uint16_t slot[ACTLUT_SLOTS]; /* the raw record */
	enum actlut_kind kind;
	uint32_t mode;               /* slot 42, the ACTLUT_MB_* bits */
	int32_t scale;               /* s */
	int64_t knot[ACTLUT_KNOTS];  /* knots as integers in units of 2^-24 (exact) */
	const uint16_t *table;       /* optional: all 65,536 results, see actlut_build_table */
};

/* The error's name and one-line description (fw/common/err.h); actlut_strerror is the description. */
const struct err_desc *actlut_err(enum actlut_err e);
const char *actlut_err_name(enum actlut_err e);
const char *actlut_strerror(enum actlut_err err);

/* Validates a whole 86-byte record at buf (len >= 86) and fills *out (table = NULL). */
enum actlut_err actlut_parse(struct actlut *out, const uint8_t *buf, size_t len);

/* One fp16 input (bit pattern) to one fp16 output. */
uint16_t actlut_eval(const struct actlut *lut, uint16_t x);

/* Fills table[0..65535] with actlut_eval of every bit pattern and points lut->table at it. */
void actlut_build_table(struct actlut *lut, uint16_t *table);

/*
 * Applies the activation to n fp16 values (in and out may be the same buffer). Uses lut->table
 * when present (one load per element), otherwise actlut_eval; results are identical.
 */
void actlut_apply(const struct actlut *lut, const uint16_t *in, uint16_t *out, size_t n);

/* Short name of a kind ("linear", "plain", "odd", "exp2", "log2", "sqrt", "recip", "rsqrt", "even"). */
const char *actlut_kind_name(enum actlut_kind kind);

#endif
