/*
 * Software model of the engine (for boards with no engine: qemu-virt, raspi3b, and the host).
 *
 * The driver side (anem_submit) does exactly what a driver for the real engine does: it writes
 * each TD's final image (from a ctrl_plan) into TD memory, programs the task queue (BAR table,
 * first TD address and size, TD count, NID, priority) and starts it, then waits for completion
 * with a bound. The model side records every register write into a register window (a RAM buffer
 * whose base address is a parameter, where a real driver would use mmio_* at the engine's base)
 * and performs each TD's DMA moves through the board's DMA driver: coefficient channels and
 * streams into a kernel-memory scratch, tile sources into an L2 scratch, the L2 scratch out to
 * the tile destination. Engine addresses are translated through one device-memory arena
 * (engine address dev_base + off is CPU address mem + off), so traces are the same on every host.
 *
 * Every trace line goes through an output callback; nothing printed contains a CPU pointer.
 */
#ifndef ANEFW_ANE_MODEL_H
#define ANEFW_ANE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/dma/dma.h"
#include "fw/actlut/actlut.h"
#include "fw/ctrl/ctrl.h"
#include "fw/submit/queue.h"

#define ANEM_WINDOW_BYTES 0x20000u /* H13 register addresses are below 0x20000 */
#define ANEM_SCRATCH_BYTES 0x10000u
#define ANEM_DMA_CHANNEL 0
#define ANEM_WAIT_POLLS 1000000u /* per transfer: past it, engine-timeout */

/*
 * The watchdog: every DMA poll of a submission counts against a budget derived from the
 * program's size, ANEM_WD_BASE + TDs x ANEM_WD_PER_TD + moves x ANEM_WD_PER_MOVE + bytes /
 * ANEM_WD_BYTES_PER_POLL (moves: 64 KiB chunks). Past it the submission stops with
 * `watchdog-expired`, the channel is stopped and reset.
 */
#define ANEM_WD_BASE 4096u
#define ANEM_WD_PER_TD 1024u
#define ANEM_WD_PER_MOVE 256u
#define ANEM_WD_BYTES_PER_POLL 16u

typedef void (*anem_out_fn)(void *ctx, const char *s, size_t n);

struct anem_tq {
	uint64_t bar[LDR_NBARS];
	uint32_t bars_set;
	uint64_t td_addr;
	uint32_t td_size, td_count, nid, priority, started, status;
	uint32_t done_nid, done_count; /* the completion the engine posted: last TD's NID, TDs run */
};

/*
 * Fault injection, selected at run time (tests; the firmware's fault= key). The next `count`
 * submissions (0 counts as 1) get the fault, after `skip` events of its kind pass normally
 * (DMA polls for the DMA faults, register writes for READBACK):
 *   DMA_HANG    a DMA transfer never completes       -> watchdog-expired (or engine-timeout)
 *   DMA_ERROR   a DMA transfer completes with error  -> engine-dma-error
 *   WRONG_TASK  the completion names another task    -> engine-completion-wrong-task
 *   READBACK    a register reads back another value  -> engine-register-readback-mismatch
 * watchdog_polls, when nonzero, replaces the derived watchdog budget (tests).
 * A failed submission leaves the engine (task queue, register window) and the DMA channel reset.
 */
enum anem_fault_kind { ANEM_FAULT_NONE = 0, ANEM_FAULT_DMA_HANG, ANEM_FAULT_DMA_ERROR,
		       ANEM_FAULT_WRONG_TASK, ANEM_FAULT_READBACK, ANEM_FAULT__COUNT };

struct anem_faults {
	uint32_t kind;  /* enum anem_fault_kind */
	uint32_t skip;
	uint32_t count;
	uint32_t watchdog_polls;
};

/* Sets (a copy) or clears (NULL) the faults; they apply to every engine model. */
void anem_set_faults(const struct anem_faults *f);
/* Submissions the fault has hit since it was set. */
uint32_t anem_faults_fired(void);
const char *anem_fault_name(unsigned kind); /* "dma-hang", "dma-error", "wrong-task", "readback" */
/* Kind from its name ("none" too); -1 when unknown. */
int anem_fault_parse(const char *name);

/* NE.MACCfg (NonlinearMode, bits 16-17: 2 = the activation LUT) and Common.ChCfg (OutFmt 4-5). */
#define ANEM_REG_MACCFG 0xc804u
#define ANEM_REG_CHCFG 0x008u
#define ANEM_NONLINEAR_LUT 2u
#define ANEM_FMT_FP16 2u

/* What the engine did about one TD's activation (docs/control-path.md). */
enum anem_act_state {
	ANEM_ACT_NONE,       /* NonlinearMode != 2 */
	ANEM_ACT_NO_RECORD,  /* the LUT is selected but no record resolves */
	ANEM_ACT_INVALID,    /* the record does not parse (err); output left as moved */
	ANEM_ACT_NOT_FP16,   /* a valid record, but the output is not fp16: not applied */
	ANEM_ACT_APPLIED,    /* f applied to every fp16 of the destination tile */
	ANEM_ACT_NO_DST,     /* a valid record, but the TD writes no destination tile (its result
				stays in L2 for the next TD): nothing to apply it to */
};

struct anem_act {
	uint8_t state;       /* enum anem_act_state */
	uint8_t from_stream; /* 1: the kernel unit's activation-LUT stream; 0: a 0x80 channel */
	uint8_t kind;        /* enum actlut_kind */
	uint8_t err;         /* enum actlut_err when INVALID */
	int32_t scale;       /* knot spacing exponent s */
	uint64_t dev;        /* engine address of the record */
	uint64_t nelem;      /* fp16 values the activation was applied to */
};

struct anem {
	uint32_t *regs;       /* register window (ANEM_WINDOW_BYTES) */
	uint8_t *mem;         /* device memory */
	uint64_t dev_base, mem_size;
	struct dma_dev *dma;
	uint8_t l2[ANEM_SCRATCH_BYTES];   /* on-chip buffers the moves go through */
	uint8_t kmem[ANEM_SCRATCH_BYTES];
	struct anem_tq tq;
	unsigned trace;       /* 1: every write and move */
	anem_out_fn out;
	void *ctx;
	unsigned cur_td;
	/* counters */
	unsigned nwrites, nmoves;
	uint64_t bytes_moved;
	uint64_t wd_budget, polls; /* the watchdog's budget, DMA polls used */
	uint32_t fault, fault_skip, fault_hit; /* the injected fault of the current submission */
	unsigned td_writes[LDR_MAX_TDS], td_moves[LDR_MAX_TDS];
	uint64_t td_bytes[LDR_MAX_TDS];
	struct anem_act td_act[LDR_MAX_TDS];
};

enum anem_err { ANEM_OK = 0, ANEM_E_ARG = -1, ANEM_E_RANGE = -2, ANEM_E_DMA = -3,
		ANEM_E_TIMEOUT = -4, ANEM_E_WINDOW = -5, ANEM_E_WATCHDOG = -6,
		ANEM_E_WRONG_TASK = -7, ANEM_E_READBACK = -8 };
const char *anem_err_name(int e);

int anem_init(struct anem *m, uintptr_t regs_base, uint8_t *mem, uint64_t dev_base,
	      uint64_t mem_size, struct dma_dev *dma);
void anem_set_output(struct anem *m, unsigned trace, anem_out_fn out, void *ctx);

/* One register write into the window (recorded and traced by name). */
int anem_write(struct anem *m, const struct rm_gen *g, uint32_t addr, uint32_t value);

/* The watchdog budget (DMA polls) of a plan, from its TD count and the bytes it moves. */
uint64_t anem_watchdog_budget(const struct ctrl_plan *pl);

/* Runs a checked plan: TD memory at td_dev (engine address, td_area_len bytes, in the arena). */
int anem_submit(struct anem *m, const struct ctrl_plan *pl, uint64_t td_dev, unsigned priority);

/* CPU pointer for an engine range, or NULL when it is not inside the arena. */
uint8_t *anem_cpu(const struct anem *m, uint64_t dev, uint64_t len);

/* One line describing a TD's activation ("lut record @0x..., mode odd, knots 2^-3", "none"). */
void anem_act_describe(const struct anem_act *a, char *buf, size_t len);

/* Name of a register ("Block.Reg[i]", "Block.Rsvd_0x..." or a guide-25 stream register). */
void anem_reg_name(const struct rm_gen *g, uint32_t addr, char *buf, size_t len);

/* ---- a whole submission on the model: placement, grants, plan, run, canaries ---- */
#define ANES_MAX_GRANTS SUBQ_MAX_GRANTS
#define ANES_DEV_BASE 0x40000000u
#define ANES_GUARD 0x1000u
#define ANES_CANARY 0xa5u

/* printf-style output through an anem_out_fn (nothing when out is NULL; a line is cut at 199). */
void anem_outf(anem_out_fn out, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct anes_result {
	int loaded;               /* 1 when the loader accepted the program */
	enum ldr_err lerr;
	struct ctrl_status st;    /* the control path's verdict */
	int run;                  /* ANEM_OK, or the model's error */
	int canaries_ok;          /* every guard byte intact afterwards */
	unsigned ntds, nwrites, nmoves;
	uint64_t bytes;
	unsigned act_applied;     /* TDs whose activation the model applied */
	uint64_t act_elems;       /* fp16 values it evaluated */
};

/*
 * Optional hooks of a session: fill is called for every granted buffer after the session filled it
 * (weights from the program, inputs a byte pattern, outputs zero) and may replace the contents;
 * check is called for every granted buffer after the run (before the canary check). is_weights:
 * the buffer holds the program's weights.
 */
struct anes_hooks {
	void (*fill)(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights);
	void (*check)(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights);
	void *ctx;
};

/*
 * grants: the submission's table (mapped is ignored: each grant is placed in the arena, 4 KiB
 * aligned, between guard pages). use_defaults: use ctrl_default_grants (grants/n ignored).
 * ldr_flags: LDR_F_*. Output goes to out (trace 1: every write and move). Returns 0 when the
 * submission ran, 1 when it was refused or failed.
 */
int anes_submit(const uint8_t *buf, size_t len, unsigned ldr_flags, const struct subq_grant *grants,
		unsigned n, int use_defaults, unsigned trace, anem_out_fn out, void *ctx,
		struct anes_result *res);
/* The completion a session's result earns: done, refused (loader, policy or kernel-unit domain,
 * with that enum's code) or failed (engine domain). */
void anes_completion(const struct anes_result *res, struct subq_completion *c);
/* The engine model the last session ran on (tests inspect its reset state). */
const struct anem *anes_model(void);
/* The same with hooks (NULL: none). */
int anes_submit_hooks(const uint8_t *buf, size_t len, unsigned ldr_flags,
		      const struct subq_grant *grants, unsigned n, int use_defaults, unsigned trace,
		      anem_out_fn out, void *ctx, const struct anes_hooks *hooks,
		      struct anes_result *res);

#endif
