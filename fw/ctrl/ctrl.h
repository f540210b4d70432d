/*
 * The control path: a loaded program plus the buffers a submission granted become the exact
 * engine programming the program needs, or a named error before anything is programmed.
 *
 * ctrl_plan() copies the TD area into firmware memory (the engine's TD memory) and re-bases it
 * there: every coefficient base becomes the absolute engine address inside KBase0's grant (from
 * the container's relocation when it has one, else from KBase0's BAR). It then builds, TD by TD,
 * the final register image the engine will run with (those words plus the kernel-stream registers
 * the firmware programs) and derives every memory range from that image with fw/td's
 * td_ranges(), the same function the engine model moves through, and proves each one inside one
 * granted buffer with the right access and inside the engine's 32-bit reach (fw/policy). Weights
 * are read-only, outputs may not overlap inputs, and the submission's work is bounded. See
 * docs/control-path.md.
 */
#ifndef ANEFW_CTRL_H
#define ANEFW_CTRL_H

#include "fw/common/err.h"
#include "fw/common/outf.h"
#include <stddef.h>
#include <stdint.h>

#include "fw/kunit/kunit.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "fw/submit/queue.h"
#include "fw/td/td.h"

#define CTRL_MAX_RANGES (TD_MAX_RANGES + 1) /* per TD: td_ranges() and the kernel unit */
#define CTRL_MAX_PATCHES (2u * H13_COEFF_NCH + 1u) /* bases re-based or folded, sizes folded, KernelCfg */
#define CTRL_NSTREAMS H13_KSTREAM_N
#define CTRL_NSTREAM_REGS (3 * CTRL_NSTREAMS)
#define CTRL_MAX_WRITES 4096u /* register writes a plan records (all TDs) */

enum ctrl_err {
	CTRL_OK = 0,
	CTRL_E_ARG,          /* null pointer, no program */
	CTRL_E_UNSUPPORTED,  /* a generation without a register map */
	CTRL_E_POLICY,       /* an address refused by the policy: see ctrl_status.pol */
	CTRL_E_KUNIT,        /* the kernel unit refused: see ctrl_status.ku */
	CTRL_E_TD,           /* fw/td could not derive a TD's ranges: see ctrl_status.tde */
	CTRL_E_ALIGN,        /* a re-based coefficient base not on its 64-byte unit */
	CTRL_E_SCRATCH,      /* TD memory or the kernel-unit scratch is smaller than the program */
	CTRL_E_GRANTS,       /* more grants than a submission holds */
	CTRL_E_RELOC,        /* a relocation the firmware does not apply */
	CTRL_E_WORK,         /* the submission's work is over the limit */
	CTRL_E_FOLD_REGS,    /* a TD whose weights fold does not write the words the fold rewrites */
	CTRL_E_FOLD_SOURCE,  /* a TD whose weights fold, or that reads a kernel unit, reads them
			      * from a BAR other than the weights */
	CTRL_E_KERNEL_FMT,   /* NE.KernelCfg.KernelFmt names no format (3) */
	CTRL_E_FOLD_SHAPE,   /* a palette to fold that is not one OCG in channel 0 with one codebook */
	CTRL_E_ITM_CONFLICT, /* a TD reads intermediate bytes no earlier TD wrote */
	CTRL_E_ITM_OVERFLOW, /* an intermediate's extent is over a grant's limit or the reach */
	CTRL_E_OCG,          /* a convolving TD's coefficient channel 0 is not one OCG of the unit */
	CTRL_E_OCG_CHANNELS, /* its OCG's channel count is not the TD's output channels (G x Cout) */
	CTRL_E_L2_RESULT,    /* an L2-resident result larger than ctrl_limits.max_l2_tensor */
	CTRL_E_KERNELS,      /* a convolution's kernels larger than the kernel memory (max_kernels) */
	CTRL_E_TEXT_DATA,    /* a tile, coefficient or stream range on the BAR holding the TD area */
	CTRL_E_BAR_ALIAS,    /* two used BARs at overlapping addresses, or one inside a section or
			      * window other than at its start, or at a window another BAR holds */
	CTRL_E_DST_KERNELS,  /* a TD's destination overlaps the coefficients or streams it reads */
	CTRL_E_ITM_BOUND,    /* an intermediate's coverage not provable within the check's bounds */
	CTRL_E_KU_NO_STREAMS, /* a TD reading a unit's kernels, of a unit with no bias, post-scale
			       * or palette section (no stream names the unit to the engine) */
	CTRL_E_KU_SPARSE_MASK, /* a SparseFmt TD whose unit is not sparse with masks of
				* ceil(Cin x Kh x Kw / 8) bytes (the weights section's parameter) */
	CTRL_E_KU_PALETTE,   /* a palettized TD whose unit's palette section is not one codebook of
			      * PalettizedBits (its parameter: bits | count << 8) */
	CTRL_E__COUNT
};

/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *ctrl_err(enum ctrl_err e);
const char *ctrl_err_name(enum ctrl_err e);

/* What a range is: fw/td's kinds, and the kernel unit as a whole. */
enum ctrl_kind { CTRL_R_SRC0 = TD_R_SRC0, CTRL_R_SRC1 = TD_R_SRC1, CTRL_R_DST = TD_R_DST,
		 CTRL_R_TBASE = TD_R_TBASE, CTRL_R_COEFF = TD_R_COEFF,
		 CTRL_R_STREAM = TD_R_STREAM, CTRL_R_KUNIT = TD_R__COUNT, CTRL_R__COUNT };
const char *ctrl_kind_name(unsigned kind); /* "src0", "dst", "coeff", ... */

/* Status of a plan: the error, and where. */
struct ctrl_status {
	enum ctrl_err err;
	enum pol_err pol;  /* with CTRL_E_POLICY */
	enum ku_err ku;    /* with CTRL_E_KUNIT */
	enum td_err tde;   /* with CTRL_E_TD */
	int td;        /* TD being checked, -1 when not per TD */
	int kind;      /* enum ctrl_kind being checked, -1 when none */
	int ch;        /* coefficient channel or stream, -1 when none */
	int bar;       /* BAR index involved, -1 when none */
	const char *field; /* the register fields that sized what was refused, NULL when none */
	char detail[96];   /* with CTRL_E_KUNIT: the section and values refused (ku_why_text); with
			      a range refused, what the TD asked and what was granted; with a
			      grant refused (bad-grant, grant-too-large), which check and the
			      values; or "" */
};
/* A status with nothing refused and nothing to point at. */
#define CTRL_STATUS_OK                                                                          \
	((struct ctrl_status){.err = CTRL_OK, .pol = POL_OK, .ku = KU_OK, .tde = TD_OK, .td = -1,  \
			      .kind = -1, .ch = -1, .bar = -1})
/* The most specific error: the policy's, the kernel unit's or fw/td's when one of them refused. */
const struct err_desc *ctrl_status_err(const struct ctrl_status *s);
const char *ctrl_status_name(const struct ctrl_status *s); /* ctrl_status_err(s)->name */
/* A status as every front end says it, one line: "<lead>NAME[ td N][ KIND][ ch N][ bar N]
 * [ (fields)][ (detail)]: description" (run's and submit's "submit: refused: ", validate's,
 * run's and inspect's tensors that cannot be derived, the accel library's log). */
void ctrl_status_print(const struct ctrl_status *s, const char *lead, outf_fn out, void *ctx);
/* The same error as a completion carries it: the domain of the enum it belongs to (policy,
 * kunit, td, or the control path's own) and its value there. */
enum subq_domain ctrl_status_cause(const struct ctrl_status *s, uint32_t *code);

struct ctrl_range {
	uint8_t kind, ch, bar, access;
	uint8_t whole;     /* the whole grant (a BAR whose extent is not decoded; not moved) */
	uint8_t folded;    /* coefficients the firmware folded: off is inside the fold scratch */
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
	uint32_t wl_first, wl_n; /* the TD's register writes: wl[wl_first ..] of the plan */
	uint8_t wl_unique;       /* 1: no register is written twice in the TD's list */
	unsigned nranges;
	struct ctrl_range r[CTRL_MAX_RANGES];
	unsigned npatch;
	struct ctrl_patch patch[CTRL_MAX_PATCHES];
	unsigned nstream_regs; /* 0 (no kernel unit), or 12: the kernel-stream registers */
	struct ctrl_reg stream_regs[CTRL_NSTREAM_REGS];
	uint64_t work;         /* bytes moved plus elements computed */
	uint16_t folded;       /* bit c: the firmware folded coefficient channel c for this TD */
	uint64_t fold_values;  /* weights it decoded (int8/uint8 -> fp16; a reused source counts 0) */
	uint8_t fold_type;     /* what it folded: enum codec_qtype, or 0x10 | bits for a palette */
	int ocg;               /* the TD's OCG record (kernel unit), -1 when it has none */
	uint32_t ocg_first;    /* the OCG's first channel (over the unit's records) */
};

/* Where the firmware keeps what it builds for the engine (firmware memory the engine reads). */
struct ctrl_scratch {
	uint8_t *td_mem;   /* the engine's TD memory: the TD area, re-based (td_area_len bytes) */
	size_t td_cap;
	uint64_t td_dev;   /* its engine address */
	uint8_t *ku_out;   /* the patched kernel unit (may be NULL when the program has none) */
	size_t ku_cap;
	uint64_t ku_dev;   /* its engine address */
	uint8_t *fold_out; /* weights the firmware folds to dense fp16 (may be NULL: ctrl_fold_cap) */
	size_t fold_cap;
	uint64_t fold_dev; /* its engine address */
};

/* Per-board limits of one submission (the application passes its board's). */
struct ctrl_limits {
	uint64_t max_work;  /* bytes moved plus elements computed, over all TDs */
	uint64_t max_grant; /* bytes of one grant */
	uint64_t max_l2_tensor; /* bytes of one TD's L2-resident result; 0: TD_L2_TENSOR_MAX */
	uint64_t max_kernels;   /* bytes of one TD's convolution kernels; 0: TD_KMEM_MAX */
};
/* 1 GiB of work, 256 MiB grants: the host tool's limits (docs/control-path.md) */
extern const struct ctrl_limits ctrl_default_limits;

/* One folded source: weights bytes [base, base + size) decoded as type to fold scratch + off. */
#define CTRL_MAX_FOLDS 64u
struct ctrl_fold {
	uint32_t base, size;
	uint64_t off, len;
	uint8_t type; /* enum codec_qtype, or 0x10 | bits for a palette */
	/* a palette's decode depends on its shape and codebook too: channels, values a channel
	 * (the rest of each channel zero) and where its codebook lies; 0 for the other kinds */
	uint64_t nout, per, lut;
};

struct ctrl_plan {
	const struct ldr_program *p;
	uint32_t bars_used;          /* bit i: some TD uses BAR i */
	uint64_t bar_runtime[LDR_NBARS]; /* engine base address of each used BAR */
	unsigned ntds;
	const uint8_t *td_mem;       /* the final TD area the engine runs (scratch->td_mem) */
	uint64_t td_dev;
	int have_ku;                 /* the weights are a kernel unit */
	struct ku_unit ku;
	size_t ku_len;
	uint64_t ku_dev;
	uint32_t stream_len[CTRL_NSTREAMS]; /* each kernel stream's bytes (0: none) */
	uint64_t work;               /* the submission's work */
	uint8_t *fold_out;           /* the fold scratch (scratch->fold_out) and its engine address */
	uint64_t fold_dev, fold_used;
	uint16_t fold_live;          /* bit c: channel c's base, as the engine holds it, is folded */
	uint16_t fold_size_live;     /* bit c: channel c's CoeffBfrSize, as the engine holds it, is a
				      * fold's */
	uint8_t fold_kcfg_live;      /* NE.KernelCfg, as the engine holds it, is a fold's rewrite */
	unsigned nfolds;             /* the sources folded so far (a source is folded once) */
	struct ctrl_fold folds[CTRL_MAX_FOLDS];
	/* Every TD's register writes in stream order, (address, value) as they stand in the TD memory
	 * the plan re-based and checked: recorded while the checked image is built from them, so the
	 * engine driver programs exactly what the policy saw. wl_ok is 0 when a program has more
	 * than CTRL_MAX_WRITES writes (the driver then walks the TD memory). */
	int wl_ok;
	uint32_t nwl;
	struct ctrl_status st;
	/* the large members last: ctrl_plan zeroes the plan up to them, then td[0 .. the program's
	 * TDs), and pol_init the policy table but its accesses (about 1 MiB less to clear a
	 * submission); wl[] is written before it is read */
	struct ctrl_td_plan td[LDR_MAX_TDS];
	struct pol_table pol;
	struct ctrl_reg wl[CTRL_MAX_WRITES];
};

/* Chip limits for kernel units on H13 (M1). */
extern const struct ku_limits ctrl_h13_ku_limits;

/*
 * Builds the plan. grants: the submission's buffer table (fw/submit). forbid/nforbid: engine
 * address ranges the firmware keeps (no grant may map them). lim: NULL for the defaults.
 * Returns CTRL_OK or the error (also in plan->st); on error nothing in the plan may be
 * programmed.
 */
enum ctrl_err ctrl_plan(struct ctrl_plan *plan, const struct ldr_program *p,
			const struct subq_grant *grants, unsigned ngrants,
			const struct pol_range *forbid, unsigned nforbid,
			const struct ctrl_scratch *scratch, const struct ctrl_limits *lim);

/*
 * Weights the chip does not stream are folded by the firmware (docs/control-path.md, "Folding"):
 * on H13 a TD of a kernel-unit program whose NE.KernelCfg says int8 or uint8 (no palette, no
 * sparsity) has each enabled coefficient channel decoded to dense fp16 with fw/codec into the
 * fold scratch, and its KernelFmt, CoeffBaseAddr and CoeffBfrSize words rewritten to point at it.
 * The bytes of fold scratch a program may need (0 when it has no kernel unit).
 */
uint64_t ctrl_fold_cap(const struct ldr_program *p);

/*
 * The grants a submission would give by default: every I/O window its declared size at its BAR
 * (inputs read, outputs write, intermediates both, in place), the weights (read), the TD area
 * (BAR 0 of a container, read). Every other BAR a TD's tile ranges use (all of a raw stream's:
 * raw streams declare no windows) gets the extent its TDs declare: read only, an input; written
 * only, an output; both, an intermediate: read-write in place, zeroed by the caller, never an
 * input. An intermediate read where no earlier TD wrote is intermediate-extent-conflict; one
 * larger than a grant may be or than the engine's reach, intermediate-extent-overflow.
 * dva as in the BAR table (0 for raw streams); mapped is left 0 for the caller to place.
 * A BAR that would hold the weights and be written is refused (output-overlaps-weights).
 * CTRL_OK with the count (at most max) in *n; or the error, with *st (may be NULL) saying where,
 * when the program cannot be sized.
 */
enum ctrl_err ctrl_default_grants(const struct ldr_program *p, struct subq_grant *g, unsigned max,
				  unsigned *n, struct ctrl_status *st);

#endif
