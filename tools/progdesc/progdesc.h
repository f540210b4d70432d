/*
 * Program descriptions: a small text format (docs/control-path.md, "Program descriptions") that
 * becomes a raw H13 task stream whose weights are one guide-25 kernel unit (fw/kunit). Used by
 * `anefw-tool mkprog` (and so by the build's default program for `make run`) and by the tests.
 * Pure logic: parse (text, len), then build into a caller's buffer.
 */
#ifndef ANEFW_PROGDESC_H
#define ANEFW_PROGDESC_H

#include <stddef.h>
#include <stdint.h>

#include "fw/common/err.h"

#define PD_MAX_LAYERS 8
#define PD_TD_BYTES 0x274u  /* every TD: the H13 size of a raw stream's first TD */
#define PD_TD_STRIDE 0x300u /* TDs sit at this stride, as in the kernel fixtures */
#define PD_INPUT_BAR 5u
#define PD_WEIGHTS_BAR 1u
#define PD_FIRST_OUTPUT_BAR 6u

enum pd_kind { PD_INT8, PD_SPARSE, PD_PALETTE, PD_ACT, PD_POOL };
/* pool modes: Planar.Cfg.PoolMode's values */
enum pd_pool { PD_POOL_AVG = 1, PD_POOL_MAX = 2, PD_POOL_MIN = 3 };
enum pd_act { PD_ACT_NONE, PD_ACT_RELU, PD_ACT_RELU6, PD_ACT_LEAKYRELU, PD_ACT_HARDTANH };

enum pd_err {
	PD_OK = 0,
	PD_E_ARG,             /* NULL pointer */
	PD_E_SYNTAX,          /* a line that is not "keyword key=value ..." */
	PD_E_KEYWORD,         /* unknown keyword, layer kind, key or activation */
	PD_E_VALUE,           /* a number missing, malformed or out of its range */
	PD_E_TOO_MANY_LAYERS, /* more than PD_MAX_LAYERS TDs */
	PD_E_NO_LAYERS,       /* nothing to run */
	PD_E_TWO_ACTIVATIONS, /* one activation record per program */
	PD_E_CIN,             /* a layer's cin differs from the input's channels */
	PD_E_PALETTE_BITS,    /* palette layers with different bit depths */
	PD_E_TOO_LARGE,       /* the program does not fit the buffer or the chip's caps */
	PD_E_KUNIT,           /* the kernel unit could not be written or does not validate */
	PD_E_CONTAINER,       /* the raw stream could not be put in a .hwx container */
	PD_E_NO_PREV,         /* from=prev on the first statement */
	PD_E_SPARSE_CIN,      /* sparse layers with different cin (the unit has one mask width) */
	PD_E_POOL_WINDOW,     /* a pool window (with its padding) larger than what it reads */
	PD_E__COUNT
};
const struct err_desc *pd_err(enum pd_err e); /* fw/common/err.h */
const char *pd_err_name(enum pd_err e);

struct pd_layer {
	uint8_t kind;    /* enum pd_kind */
	uint8_t bits;    /* palette bit depth */
	uint8_t density; /* sparse: percent of weights kept, 1..100 */
	uint32_t cin, cout;
	uint32_t seed;
	uint8_t from_prev; /* 1: reads the previous TD's output (an intermediate), not the input */
	uint8_t pool;      /* PD_POOL: enum pd_pool */
	uint8_t k, stride, pad; /* PD_POOL: a k x k window, stride and padding on every side */
	uint32_t win, hin, wout, hout; /* the tile it reads and the one it writes (pd_parse) */
	unsigned line;   /* its statement's line in the description (pd_parse) */
};

struct pd_desc {
	uint32_t w, h, c; /* the input tile: W x H x C fp16 */
	unsigned nlayers; /* TDs, the activation included */
	struct pd_layer layer[PD_MAX_LAYERS];
	uint8_t act;      /* enum pd_act */
	uint8_t vec32;    /* 1: the per-channel scale and bias sections hold fp32 (section type 4) */
	/* after a pd_parse error, for its message: the word at fault (into the text; NULL when the
	 * statement as a whole is), and for desc-cin-differs-from-input the cin given and the
	 * channels the statement reads */
	const char *err_word;
	size_t err_word_len;
	uint32_t err_have, err_want;
	/* and for desc-bad-value the values the word takes: err_expect (a phrase: "prev or input"),
	 * or when it is NULL and err_hi is not 0 the range err_lo..err_hi */
	const char *err_expect;
	uint32_t err_lo, err_hi;
};

/* Parses a whole description; on error *line is the 1-based line (0 when not a line's fault). */
enum pd_err pd_parse(const char *text, size_t len, struct pd_desc *d, unsigned *line);

/* Writes the program into out (cap bytes); *len its size. */
enum pd_err pd_build(const struct pd_desc *d, uint8_t *out, size_t cap, size_t *len);

/* The same program in a .hwx container (fw/loader/hwx_write.h), the form the compiler's files
 * have: __text holds the TDs, __TEXT,__const the kernel unit, and every tensor BAR becomes a
 * named I/O window ("input", "output_0", ...) as large as the raw stream's default grant for
 * that BAR (the extent its TDs declare). The raw stream is built in out first, then moved. */
#define PD_HWX_SUBTYPE 4u /* H13 */
enum pd_err pd_build_hwx(const struct pd_desc *d, uint8_t *out, size_t cap, size_t *len);

/* The deterministic generator behind every weight (docs/control-path.md, "The weight
 * generator"): s = s x 1103515245 + 12345 (mod 2^32), the draw is s >> 16. */
uint32_t pd_rnd(uint32_t *s);
/* Layer j's fp16 bias for its output channel o: ((o + j) mod 7 - 3) / 8 (j: 0-based statement). */
uint16_t pd_bias(unsigned j, uint32_t o);

/* The activation record of an activation (86 bytes), or 0 when none. */
int pd_act_record(unsigned act, uint8_t rec[86]);
const char *pd_act_name(unsigned act);

#endif
