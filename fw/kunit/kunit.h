/*
 * Kernel units: the per-output-channel-group (OCG) weight records of guide-25, in the binary
 * encoding this project defines (docs/kunit.md). No public sample of the format exists.
 *
 * A kernel unit is a 0x80-byte descriptor followed by six sections: activation LUT, palette LUT,
 * OCG table, per-channel scale, per-channel bias, packed weights or indices. The OCG table holds
 * one record set per engine core (the M1 replicates per core); each set is a count word, a
 * reserved word, and 14-word records: byte offset into the weights, channel count, ten address
 * slots that start as -1 and are patched by the firmware on every dispatch, two reserved words.
 */
#ifndef ANEFW_KUNIT_H
#define ANEFW_KUNIT_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#define KU_MAGIC 0x31554b41u /* "AKU1" */
#define KU_HEADER_SIZE 0x80u
#define KU_RECORD_WORDS 14u
#define KU_RECORD_SIZE (KU_RECORD_WORDS * 4u)
#define KU_SET_HEADER 8u
#define KU_MAX_CORES 16u
#define KU_MAX_OCGS 4096u
#define KU_SLOT_UNSET 0xffffffffu
#define KU_ACTLUT_RECORD 0x80u /* activation LUT records sit at a 0x80 stride */

/* descriptor flags */
#define KU_FLAG_ASYMMETRIC (1u << 0) /* asymmetric quantization (zero point) */
#define KU_FLAG_STREAMED (1u << 1)   /* weights stream compressed (else dense/folded) */
#define KU_FLAG_SPARSE (1u << 2)     /* weights are mask + packed nonzeros */

enum ku_section { KU_SEC_ACTLUT, KU_SEC_PALETTE, KU_SEC_OCGS, KU_SEC_SCALE, KU_SEC_BIAS,
		  KU_SEC_WEIGHTS, KU_NSECTIONS };

/* The ten slots of a record. */
enum ku_slot {
	KU_SLOT_INPUT_TILE, KU_SLOT_OUTPUT_TILE,
	KU_SLOT_WEIGHTS, KU_SLOT_MASK, KU_SLOT_SCALE_VEC, KU_SLOT_BIAS_VEC, /* sub-buffer bases */
	KU_SLOT_BIAS_STREAM, KU_SLOT_POSTSCALE_STREAM, KU_SLOT_PALETTE_STREAM,
	KU_SLOT_ACTLUT_STREAM, KU_NSLOTS
};

/* The four kernel coefficient streams (guide-25 Table 25.4, in its order: bias, post-scale,
 * palette LUT, activation LUT): the section each streams, and the record slot holding its
 * address. */
#define KU_NSTREAMS 4u
extern const uint8_t ku_stream_section[KU_NSTREAMS];
extern const uint8_t ku_stream_slot[KU_NSTREAMS];

enum ku_err {
	KU_OK = 0,
	KU_E_TRUNCATED,        /* shorter than its descriptor or its declared size */
	KU_E_MAGIC,            /* not a kernel unit */
	KU_E_VERSION,          /* a descriptor version this firmware does not know */
	KU_E_FORMAT,           /* kernel format outside 1..31 */
	KU_E_SECTION_BOUNDS,   /* a section outside the unit, or misaligned */
	KU_E_SECTION_OVERLAP,  /* two sections overlap */
	KU_E_CORES,            /* core count 0 or over the limit */
	KU_E_OCG_TABLE_SIZE,   /* OCG table size does not match its record counts */
	KU_E_CORE_MISMATCH,    /* per-core record counts or channel totals disagree */
	KU_E_RECORD_BOUNDS,    /* a record's weights leave the weights section */
	KU_E_RECORD_OVERLAP,   /* two records of one core overlap */
	KU_E_RECORD_RESERVED,  /* reserved words not zero */
	KU_E_SLOT_PREFILLED,   /* a slot not -1 in the program: only the firmware patches */
	KU_E_SLOT_UNSET,       /* a slot still -1 where it is used after patching */
	KU_E_ASYMMETRIC_V5,    /* asymmetric quantization on a version-5 descriptor */
	KU_E_LUT_BUDGET,       /* palette + activation LUT bytes over the shared budget */
	KU_E_WEIGHT_CAP,       /* weights over the dense (0x200) or streamed (0x210) cap */
	KU_E_ADDRESS,          /* a patched address beyond 32 bits */
	KU_E_TOO_MANY,         /* counts over the limits */
	KU_E_NO_RECORDS,       /* an OCG table with no records */
	KU_E_SECTION_TYPE,     /* a present section whose type is not one documented for it */
	KU_E_SECTION_SHORT,    /* a per-channel section shorter than the records' channels need */
	KU_E__COUNT
};

/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *ku_err(enum ku_err e);
const char *ku_err_name(enum ku_err e);

/* Chip limits the caller supplies (from the per-chip tables). */
struct ku_limits {
	uint32_t dense_cap;  /* bytes, HAL field 0x200 (64 KiB on the M1) */
	uint32_t stream_cap; /* bytes, HAL field 0x210 */
	uint32_t lut_budget; /* bytes shared by palette and activation LUTs */
	uint32_t version;    /* table-descriptor version the chip uses (5 on the M1) */
};

struct ku_section_desc {
	uint32_t offset, size, type, param;
};

struct ku_unit {
	const uint8_t *base;
	size_t len;
	uint32_t version, format, flags, ncores, nocg, bytes_per_channel;
	struct ku_section_desc sec[KU_NSECTIONS];
};

/* Validates a whole unit (buf, len) against the limits; fills u only on success. */
enum ku_err ku_parse(const uint8_t *buf, size_t len, const struct ku_limits *lim,
		     struct ku_unit *u);

/* Section types (docs/kunit.md): the activation LUT and the palette's codebook are fp16, the
 * per-channel scale and bias fp16 or fp32; the OCG table and the weights carry 0. */
#define KU_TYPE_NONE 0u
#define KU_TYPE_FP32 4u
#define KU_TYPE_FP16 5u

/* What a refused section was, for KU_E_SECTION_TYPE (found: its type, want: the expected one,
 * want2: a second accepted one or UINT32_MAX) and KU_E_SECTION_SHORT (found: its bytes, want:
 * the bytes its records' channels need); section is -1 for the other errors. */
struct ku_why {
	int section;
	uint32_t found, want, want2;
};

/* ku_parse, and what it refused (why may be NULL). */
enum ku_err ku_parse_why(const uint8_t *buf, size_t len, const struct ku_limits *lim,
			 struct ku_unit *u, struct ku_why *why);

/* The section's name ("per-channel scale", ...), "?" out of range. */
const char *ku_section_name(unsigned s);

/* One line saying what was refused, e.g. "section 3 (per-channel scale): type 6, want 5 (fp16)
 * or 4 (fp32)"; "" when why names no section. Returns buf. */
char *ku_why_text(const struct ku_why *why, enum ku_err e, char *buf, size_t cap);

/* Reads record (core, i) of a parsed unit. */
void ku_record(const struct ku_unit *u, uint32_t core, uint32_t i, uint32_t rec[KU_RECORD_WORDS]);

/* Which slots the unit's sections and flags make necessary (bit per enum ku_slot). */
uint32_t ku_used_slots(const struct ku_unit *u);

/* Runtime addresses the firmware resolved for one dispatch (all checked by the policy). */
struct ku_dispatch {
	uint64_t unit_base;   /* where the unit itself sits for the engine */
	uint64_t input_tile;  /* per-dispatch tile bases */
	uint64_t output_tile;
};

/*
 * Patches the ten slots of every record into out (a copy of the unit, same length), from the
 * unit's own section offsets and the dispatch addresses; a used slot left -1 or an address past
 * 32 bits is an error, and out is then left unspecified (callers discard it).
 */
enum ku_err ku_patch(const struct ku_unit *u, const struct ku_dispatch *d, uint8_t *out,
		     size_t out_len);

/*
 * The length of kernel stream s (bias, post-scale, palette, activation LUT) that starts off bytes
 * into the unit: from there to the end of its section (a stream runs to its section's end); 0 when
 * off is not inside that section. The control path sizes the stream ranges it checks with it, and
 * the engine model the ranges it reads.
 */
uint32_t ku_stream_len(const struct ku_unit *u, unsigned s, uint64_t off);

/* ---- writer (host tools and tests) ---- */
struct ku_build {
	uint32_t version, format, flags, ncores, bytes_per_channel;
	const uint8_t *actlut; uint32_t actlut_len;
	const uint8_t *palette; uint32_t palette_len, palette_format, palette_bits, palette_luts;
	const uint8_t *scale; uint32_t scale_len;
	const uint8_t *bias; uint32_t bias_len;
	const uint8_t *weights; uint32_t weights_len;
	uint32_t mask_bytes_per_channel; /* sparse: the mask bytes that open each channel */
	const uint32_t *ocg_channels; uint32_t nocg; /* channel count of each OCG (same per core) */
	uint32_t weights_align; /* the weights section's alignment in the unit (0: 16; a power of 2) */
	uint32_t vec_type;      /* the scale and bias sections' type: 0 (= 5) fp16, or 4 fp32 */
	/* palette_format: the palette section's type, 0 (= 5, fp16 codebook entries) */
};

/* Writes a unit into out (cap bytes); returns its size, or 0 when it does not fit. */
size_t ku_write(const struct ku_build *b, uint8_t *out, size_t cap);

#endif
