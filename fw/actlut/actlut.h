/*
 * The 33-knot activation LUT record (43 fp16 slots, 86 bytes; records sit at a 0x80 stride in a
 * task's weights), evaluated in integer arithmetic only. Semantics: docs/actlut.md.
 *
 * Slots: 0 in_lo, 1 in_hi (input clamp), 2 out_lo, 3 out_hi (clamp of the tail lines),
 * 4..36 knots k[0..32], 37 left slope, 38 left intercept, 39 right slope, 40 right intercept,
 * 41 scale exponent s (integer; 64 = linear only), 42 mode word (integer).
 *
 * Every result is the exact value of the documented formula rounded once to fp16 (nearest, ties
 * to even) by fp16_from_scaled.
 */
#ifndef ANEFW_ACTLUT_H
#define ANEFW_ACTLUT_H

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

/* Mode words (slot 42) seen in real records, and two anefw extensions. */
#define ACTLUT_MODE_PLAIN 0x01u /* u = x*2^s + 16 (knots centred on 0) */
#define ACTLUT_MODE_ODD 0x60u   /* y = sign(x) * F(|x|), u = |x|*2^s */
#define ACTLUT_MODE_EXP2 0x0au  /* x = n + f, y = F(f) * 2^n, u = f*2^s */
#define ACTLUT_MODE_LOG2 0xc9u  /* x = m*2^e, m in [0.5,1): y = e + F(m - 0.5), u = (m-0.5)*2^s */
#define ACTLUT_MODE_SQRT 0xc5u  /* x = m*2^e, e even, m in [0.5,2): y = F(m) * 2^(e/2) */
#define ACTLUT_MODE_RECIP 0x1c9u /* anefw extension: as LOG2 input, y = sign(x) F(m-0.5) 2^-e */
#define ACTLUT_MODE_RSQRT 0x1c5u /* anefw extension: as SQRT input, y = F(m) * 2^(-e/2) */

enum actlut_kind {
	ACTLUT_KIND_LINEAR,
	ACTLUT_KIND_PLAIN,
	ACTLUT_KIND_ODD,
	ACTLUT_KIND_EXP2,
	ACTLUT_KIND_LOG2,
	ACTLUT_KIND_SQRT,
	ACTLUT_KIND_RECIP,
	ACTLUT_KIND_RSQRT,
};

enum actlut_err {
	ACTLUT_OK = 0,
	ACTLUT_ERR_NULL,        /* a NULL pointer was passed */
	ACTLUT_ERR_SHORT,       /* fewer than 86 bytes */
	ACTLUT_ERR_NAN,         /* a NaN in slots 0..40 */
	ACTLUT_ERR_INF_COEF,    /* an infinity in a knot, slope or intercept */
	ACTLUT_ERR_CLAMP_ORDER, /* in_lo > in_hi or out_lo > out_hi */
	ACTLUT_ERR_SCALE,       /* slot 41 is not 0..ACTLUT_SCALE_MAX or 64 */
	ACTLUT_ERR_MODE,        /* slot 42 is not a known mode word */
	ACTLUT_ERR_LINEAR_MODE, /* linear-only scale with a mode word other than PLAIN */
	ACTLUT_ERR_COUNT
};

struct actlut {
	uint16_t slot[ACTLUT_SLOTS]; /* the raw record */
	enum actlut_kind kind;
	int32_t scale;               /* s */
	int64_t knot[ACTLUT_KNOTS];  /* knots as integers in units of 2^-24 (exact) */
	const uint16_t *table;       /* optional: all 65,536 results, see actlut_build_table */
};

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

/* Short name of a kind ("linear", "plain", "odd", "exp2", "log2", "sqrt", "recip", "rsqrt"). */
const char *actlut_kind_name(enum actlut_kind kind);

#endif
