/*
 * The control path: a loaded program plus the buffers a submission granted become the exact
 * engine programming the program needs, or a named error before anything is programmed.
 *
 * ctrl_plan() resolves every address a TD uses (its BAR indices, the container's relocations,
 * the enabled kernel-DMA coefficient channels, a kernel unit's per-OCG slots), computes every
 * range the engine would touch in memory (tile source and destination from every dimension and
 * stride, each coefficient channel, each guide-25 coefficient stream), proves each one inside one granted buffer with the right access and inside the engine's 32-bit reach (via
 * fw/policy), checks that outputs do not overlap inputs, and only then fills the plan: per TD the
 * re-based register values and the four coefficient-stream register triples. The plan is all a
 * driver needs; see docs/control-path.md.
 */
#ifndef ANEFW_CTRL_H
#define ANEFW_CTRL_H

#include <stddef.h>
#include <stdint.h>

#include "fw/kunit/kunit.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "fw/submit/queue.h"

#define CTRL_REACH_BITS 32
#define CTRL_MAX_RANGES 32 /* per TD */
#define CTRL_MAX_PATCHES 16
#define CTRL_NSTREAMS 4

enum ctrl_err {
	CTRL_OK = 0,
	CTRL_E_ARG,          /* null pointer, no program */
	CTRL_E_UNSUPPORTED,  /* a generation without a register map */
	CTRL_E_POLICY,       /* an address refused by the policy: see ctrl_status.pol */
	CTRL_E_KUNIT,        /* the kernel unit refused: see ctrl_status.ku */
	CTRL_E_FORMAT,       /* a tensor format the control path cannot size */
	CTRL_E_COEFF_NO_BAR, /* coefficient channels enabled but no kernel BAR enabled */
	CTRL_E_ALIGN,        /* a re-based coefficient base not on its 64-byte unit */
	CTRL_E_SCRATCH,      /* the patched kernel unit does not fit the scratch the caller gave */
	CTRL_E_GRANTS,       /* more grants than a submission holds */
	CTRL_E_COUNT_
};

const char *ctrl_err_name(enum ctrl_err e);

/* What a range is. */
enum ctrl_kind { CTRL_R_SRC0, CTRL_R_SRC1, CTRL_R_DST, CTRL_R_TBASE, CTRL_R_COEFF,
		 CTRL_R_STREAM, CTRL_R_KUNIT, CTRL_R__COUNT };
const char *ctrl_kind_name(unsigned kind); /* "src0", "dst", "coeff", ... */

/* Status of a plan: the error, and where. */
struct ctrl_status {
	enum ctrl_err err;
	enum pol_err pol;
	enum ku_err ku;
	int td;        /* TD being checked, -1 when not per TD */
	int kind;      /* enum ctrl_kind being checked, -1 when none */
	int ch;        /* coefficient channel or stream, -1 when none */
	int bar;       /* BAR index involved, -1 when none */
};
/* The most specific name: the policy's or the kernel unit's error when one of them refused. */
const char *ctrl_status_name(const struct ctrl_status *s);

struct ctrl_range {
	uint8_t kind, ch, bar, access;
	uint64_t off, len; /* offset inside the granted buffer, and length */
	uint64_t runtime;  /* engine address of the first byte */
};

struct ctrl_patch {
	uint32_t area_off; /* offset of the value word in the TD area */
	uint32_t addr;     /* register */
	uint32_t value;    /* final value */
};

struct ctrl_reg {
	uint32_t addr, value;
};

struct ctrl_td_plan {
	unsigned nranges;
	struct ctrl_range r[CTRL_MAX_RANGES];
	unsigned npatch;
	struct ctrl_patch patch[CTRL_MAX_PATCHES];
	unsigned nstream_regs; /* 0, or 12: the guide-25 stream registers for this TD */
	struct ctrl_reg stream_regs[3 * CTRL_NSTREAMS];
};

/* Where the firmware keeps what it builds for the engine (firmware memory the engine reads). */
struct ctrl_scratch {
	uint8_t *ku_out;   /* the patched kernel unit (may be NULL when the program has none) */
	size_t ku_cap;
	uint64_t ku_dev;   /* its engine address */
};

struct ctrl_plan {
	const struct ldr_program *p;
	struct pol_table pol;
	uint32_t bars_used;          /* bit i: some TD enables BAR i */
	uint64_t bar_runtime[LDR_NBARS]; /* engine base address of each used BAR */
	unsigned ntds;
	struct ctrl_td_plan td[LDR_MAX_TDS];
	int have_ku;                 /* the weights are a kernel unit */
	struct ku_unit ku;
	size_t ku_len;
	uint64_t ku_dev;
	struct ctrl_status st;
};

/* Chip limits for kernel units on H13 (M1). */
extern const struct ku_limits ctrl_h13_ku_limits;

/*
 * Builds the plan. grants: the submission's buffer table (fw/submit). forbid/nforbid: engine
 * address ranges the firmware keeps (no grant may map them). Returns CTRL_OK or the error
 * (also in plan->st); on error nothing in the plan may be programmed.
 */
enum ctrl_err ctrl_plan(struct ctrl_plan *plan, const struct ldr_program *p,
			const struct subq_grant *grants, unsigned ngrants,
			const struct pol_range *forbid, unsigned nforbid,
			const struct ctrl_scratch *scratch);

/*
 * The grants a submission would give by default: every I/O window its declared size at its BAR
 * (inputs read, outputs write, intermediates both), the weights (read), the TD area (BAR 0 of a
 * container, read). Raw streams declare no windows: their tensor BARs get the extent their TDs
 * declare. dva as in the BAR table (0 for raw streams); mapped is left 0 for the caller to place.
 * Returns the count (at most max), or -1 with *err set when the program cannot be sized.
 */
int ctrl_default_grants(const struct ldr_program *p, struct subq_grant *g, unsigned max,
			struct ctrl_status *err);

/* Final value of a TD's register word at area_off (the patched one when the plan patches it). */
uint32_t ctrl_td_word(const struct ctrl_plan *plan, unsigned td, uint32_t area_off, uint32_t orig);

/* guide-25 stream register names: "KStream.Bias.Enable", ...; NULL for other addresses. */
const char *ctrl_stream_reg_name(uint32_t addr);

#endif
