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

/* Mode words (slot 42) seen in real records (docs/actlut.md), and one predicted word. */
#define ACTLUT_MODE_PLAIN 0x01u /* op 1: u = x*2^s + 16 (knots centred on 0) */
#define ACTLUT_MODE_ODD 0x60u   /* op 0 on |x|, sign restored: y = sign(x) * F(|x|), u = |x|*2^s */
#define ACTLUT_MODE_RIGHT 0x02u /* op 2: u = x*2^s + 32 (knots end at x = 0; selu) */
#define ACTLUT_MODE_EXP2 0x0au  /* op 10: x = n + f, y = F(f) * 2^n, u = f*2^s */
#define ACTLUT_MODE_LOG2 0xc9u  /* op 9: |x| = m*2^e, m in [0.5,1): y = e + F(m - 0.5); x < 0 gives +0 */
#define ACTLUT_MODE_SQRT 0xc5u  /* op 5: |x| = m*2^e, e even, m in [0.5,2): y = F(m) * 2^(e/2); x < 0: +0 */
#define ACTLUT_MODE_RECIP 0x67u /* op 7: as LOG2's split, y = sign(x) * F(m - 0.5) * 2^-e (unary/inv.bin) */
#define ACTLUT_MODE_RSQRT 0xc6u /* op 6 (Apple's rsqrt record, docs/actlut.md): as SQRT's split, y = F(m) * 2^(-e/2) */
#define ACTLUT_MODE_FRAC 0x63u  /* op 3 on |x|, sign restored: y = x - trunc(x) (unary/ceil.bin) */
#define ACTLUT_MODE_INT 0x64u   /* op 4 on |x|, sign restored: y = trunc(x) (unary/ceil.bin) */

/*
 * The mode word read as fields (docs/actlut.md says how each is known): bits 3:0 the operation
 * (ACTLUT_OP_*), bit 5 the output takes the sign of x, bit 6 the LUT input is |x|, bit 7 a
 * negative x gives +0 (the float-split operations' flush). Bit 4 and bits 8..15 have no known
 * meaning and are refused.
 */
#define ACTLUT_MB_OP 0x00fu
#define ACTLUT_MB_UNKNOWN4 0x010u
#define ACTLUT_MB_SIGN 0x020u
#define ACTLUT_MB_ABS 0x040u
#define ACTLUT_MB_FLUSH 0x080u
#define ACTLUT_MB_KNOWN 0x0efu

/* Operations (mode word bits 3:0). 8 and 11..15 are unknown. */
enum {
	ACTLUT_OP_TABLE0 = 0,  /* the table, index offset 0 */
	ACTLUT_OP_TABLE16 = 1, /* the table, index offset 16 */
	ACTLUT_OP_TABLE32 = 2, /* the table, index offset 32 */
	ACTLUT_OP_FRAC = 3,    /* a - floor(a); the table must be empty */
	ACTLUT_OP_INT = 4,     /* floor(a); the table must be empty */
	ACTLUT_OP_SQRT = 5,
	ACTLUT_OP_RSQRT = 6,
	ACTLUT_OP_RECIP = 7,
	ACTLUT_OP_LOG2 = 9,
	ACTLUT_OP_EXP2 = 10,
};

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
	ACTLUT_KIND_FRAC, /* y = a - floor(a) (with |x| and the sign: x - trunc(x)) */
	ACTLUT_KIND_INT,  /* y = floor(a) (with |x| and the sign: trunc(x)) */
	ACTLUT_KIND__COUNT
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
	ACTLUT_E_LINEAR_MODE, /* linear-only scale (s = 64) with a split mode word */
	ACTLUT_E_MODE_BITS,   /* mode word bits that contradict each other */
	ACTLUT_E_MODE_SLOTS,  /* mode word that contradicts the input clamp */
	ACTLUT_E_OP_TABLE,    /* frac/int operation with a nonzero knot or tail (its use unknown) */
	ACTLUT_E_PREDICTION,  /* operation 6 (rsqrt) whose knots are not that function */
	ACTLUT_E_UNPINNED,    /* a table word no real record has (op 0 on x, op 1 or 2 on |x|, or a
			       * linear-only record's word other than 0x01): its offset unpinned */
	ACTLUT_E_SIGNED_SPLIT, /* frac or int on x (no |x|) with a clamp that admits x < 0: floor or trunc
				* below 0 is not pinned (every real frac and int record takes |x|) */
	ACTLUT_E_PADDING,      /* a nonzero byte after the 43 slots (bytes 86..127 of the 0x80 stride) */
	ACTLUT_E_SIGN_NEGATIVE, /* the sign bit on a record whose value can be negative (a negative knot
				 * or end value, or log2): sign(x) * F and F with x's sign differ there */
	ACTLUT_E__COUNT
};

struct actlut {
	uint16_t slot[ACTLUT_SLOTS]; /* the raw record */
	enum actlut_kind kind;
	uint32_t mode;               /* slot 42, the ACTLUT_MB_* bits */
	int32_t scale;               /* s */
	int32_t off;                 /* index offset of the table operations (0, 16, 32) */
	int64_t knot[ACTLUT_KNOTS];  /* knots as integers in units of 2^-24 (exact) */
	const uint16_t *table;       /* optional: all 65,536 results, see actlut_build_table */
};

/* The error's name and one-line description (fw/common/err.h); actlut_strerror is the description. */
const struct err_desc *actlut_err(enum actlut_err e);
const char *actlut_err_name(enum actlut_err e);
const char *actlut_strerror(enum actlut_err err);

/* Validates a whole 86-byte record at buf (len >= 86) and fills *out (table = NULL). */
enum actlut_err actlut_parse(struct actlut *out, const uint8_t *buf, size_t len);

/*
 * Operation 6 (rsqrt): its word and knots are those of Apple's rsqrt record (docs/actlut.md); the
 * split's output scale 2^(-e/2) is read from the knots, not from a computed result. So a record
 * using it is only read as rsqrt when its knots are 1/sqrt of the inputs the sqrt-style split
 * gives them (knot i at v = i / 2^s, every knot with v in [0.5, 2], at least four of them),
 * within 1%; otherwise ACTLUT_E_PREDICTION: the reading does not describe the record. ACTLUT_OK for every other
 * operation. For a consumer that must be right or loud (the engine model); actlut_parse does
 * not apply it.
 * It also refuses (ACTLUT_E_UNPINNED) the table words whose index offset no real record pins:
 * real records take operation 0 on |x| only (0x60) and operations 1 and 2 on x only (0x01, 0x02),
 * and a linear-only record (s = 64) only with 0x01; operation 0 on x (0x00), 1 or 2 on |x| (0x40
 * aside: 0x41, 0x42, 0x61, 0x62) and any other linear word evaluate by a guess (docs/actlut.md).
 * And (ACTLUT_E_SIGNED_SPLIT) frac or int on x itself (0x03, 0x04: no |x|) where the input clamp
 * admits a negative x: the real records (0x63, 0x64) split |x|, where floor and trunc agree, so
 * whether n is floor(x) or trunc(x) below 0 is not pinned (actlut_parse reads n = floor(x)).
 * And (ACTLUT_E_SIGN_NEGATIVE) the sign bit (0x20) where the value before it can be negative: a
 * negative knot or end value (slots 2, 3; the tails are clamped between them), or log2 (operation
 * 9: e + F(m) is negative below |x| = 1); frac and int of |x| (empty tables) are never negative.
 * Every real record with the bit (0x60, 0x63, 0x64, 0x67) gives values >= 0 on |x|, where
 * sign(x) * F(|x|) (actlut_eval's reading, an XOR of the sign) and F(|x|) taking the sign of x
 * are one number; where F < 0 they differ, and nothing pins which.
 */
enum actlut_err actlut_check_prediction(const struct actlut *l);

/*
 * A record as a consumer that must be right or loud reads it (the engine model's resolve_act,
 * inspect's print_luts): actlut_parse of buf's len bytes, then actlut_check_prediction, then
 * actlut_check_padding over the same len; the first error, *pad_at set as actlut_check_padding
 * sets it.
 */
enum actlut_err actlut_read_checked(struct actlut *l, const uint8_t *buf, size_t len, size_t *pad_at);

/*
 * A kernel unit's activation-LUT stream (docs/kunit.md): s, len bytes, from the stream's start to
 * its section's end. Its first record is the one the engine model applies (actlut_read_checked
 * over its 0x80 bytes, or to len), and every further record there (each 0x80 stride starting
 * ACTLUT_BYTES or more before len, compared over its stride or to len, the bytes after the slots
 * included) must equal it: which one the engine reads is not pinned. Returns the offset of the
 * first that differs, 0 when none does. The engine model refuses the TD with
 * ACTLUT_STREAM_DIFFERS_WHY and inspect marks the stream with it: one home for the check.
 */
size_t actlut_stream_differs(const uint8_t *s, size_t len);
#define ACTLUT_STREAM_DIFFERS_WHY                                                                   \
	"activation records in the kernel unit's activation-LUT section that differ (which one the " \
	"engine reads is not pinned)"

/*
 * The record's bytes after its 43 slots, ACTLUT_BYTES .. min(len, ACTLUT_STRIDE) - 1 at buf (86..127
 * of its 0x80 stride; fewer where the record's range ends sooner): zero in every real record
 * (docs/actlut.md, "The record's last 42 bytes"), and what the engine would make of another value
 * is not known. ACTLUT_E_PADDING with *at the first nonzero byte's offset from the record's start
 * (86..127), else ACTLUT_OK (*at untouched; len <= 86 checks nothing); ACTLUT_E_NULL for a NULL
 * buf or at. For a consumer that must be right or loud (the engine model, inspect); actlut_parse
 * reads the 86 bytes of the slots only.
 */
enum actlut_err actlut_check_padding(const uint8_t *buf, size_t len, size_t *at);

/* One fp16 input (bit pattern) to one fp16 output. */
uint16_t actlut_eval(const struct actlut *lut, uint16_t x);

/* Fills table[0..65535] with actlut_eval of every bit pattern and points lut->table at it. */
void actlut_build_table(struct actlut *lut, uint16_t *table);

/*
 * Applies the activation to n fp16 values (in and out may be the same buffer). Uses lut->table
 * when present (one load per element), otherwise actlut_eval; results are identical.
 */
void actlut_apply(const struct actlut *lut, const uint16_t *in, uint16_t *out, size_t n);

/* Short name of a kind ("linear", "plain", "odd", "exp2", "log2", "sqrt", "recip", "rsqrt", "even",
 * "frac", "int"). */
const char *actlut_kind_name(enum actlut_kind kind);

#endif
