/*
 * The engine interface: the operations the firmware drives an ANE-class engine with, and the
 * driver that runs a checked plan (fw/ctrl) through them.
 *
 * An implementation supplies struct eng_ops over its own device state: the software model
 * (engine/model/) for boards with no engine, and, for real silicon, a second backend over
 * mmio_* at the engine's base address. The control path never sees which one it drives.
 *
 * The driver (eng_run) programs the task queue (BAR table, first TD, count, NID, priority),
 * then per TD writes the TD's final register image (TD memory as the plan re-based it, then the
 * kernel-stream registers) and reads every register back, starts the TD and polls its status a
 * bounded number of times; after the last TD it checks the engine's completion names the task
 * and the TD count it was given. Any failure resets the engine.
 */
#ifndef ANEFW_ENGINE_H
#define ANEFW_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "fw/common/outf.h"
#include "fw/ctrl/ctrl.h"

enum eng_err {
	ENG_OK = 0,
	ENG_E_ARG = -1,         /* engine-bad-argument */
	ENG_E_RANGE = -2,       /* engine-address-outside-memory */
	ENG_E_DMA = -3,         /* engine-dma-error */
	ENG_E_TIMEOUT = -4,     /* engine-timeout: a status poll bound ran out */
	ENG_E_WINDOW = -5,      /* engine-register-outside-window */
	ENG_E_WATCHDOG = -6,    /* watchdog-expired */
	ENG_E_WRONG_TASK = -7,  /* engine-completion-wrong-task */
	ENG_E_READBACK = -8,    /* engine-register-readback-mismatch */
	ENG_E_NOMEM = -9,       /* engine-out-of-memory */
	ENG_E_FAULT = -10,      /* engine-fault: the engine stopped a TD with an error of its own */
	ENG_E__MIN = -10
};
const char *eng_err_name(int e);

/* The task queue entry of one submission. */
struct eng_task {
	uint64_t bar[LDR_NBARS];
	uint32_t bars_set;
	uint64_t td_addr;       /* engine address of the first TD */
	uint32_t td_size, td_count, nid, priority;
	uint64_t budget;        /* the watchdog: engine work units before it gives up */
};

enum eng_state { ENG_ST_IDLE, ENG_ST_BUSY, ENG_ST_DONE, ENG_ST_ERROR };

struct eng_status {
	uint32_t state;         /* enum eng_state */
	int err;                /* enum eng_err when ENG_ST_ERROR */
	uint32_t done_nid;      /* the NID of the last TD the engine completed */
	uint32_t done_count;    /* TDs completed since the task was queued */
};

struct eng_ops {
	const char *name;
	/* back to the reset state (task queue, registers, on-chip buffers, DMA) */
	void (*reset)(void *dev);
	int (*queue)(void *dev, const struct eng_task *t);
	int (*write)(void *dev, uint32_t addr, uint32_t value);
	uint32_t (*read)(const void *dev, uint32_t addr);
	/* runs TD td (0-based in the task) whose header is at engine address td_dev, with the
	 * registers as written */
	int (*start)(void *dev, unsigned td, uint64_t td_dev);
	void (*poll)(void *dev, struct eng_status *st);
};

/*
 * Optional batch operations of a device (struct eng.batch; NULL: the driver calls write and read
 * per register). write_regs writes n registers in order and returns the first error (ENG_OK
 * when all were written); read_regs reads the registers of list[0..n) into out.
 */
struct eng_batch {
	int (*write_regs)(void *dev, const struct ctrl_reg *list, uint32_t n);
	void (*read_regs)(const void *dev, const struct ctrl_reg *list, uint32_t n, uint32_t *out);
};

/* Registers the driver writes, then reads back, per batch. */
#define ENG_BATCH 64u

struct eng {
	const struct eng_ops *ops;
	void *dev;
	const struct eng_batch *batch; /* NULL: per-register writes and reads */
	const struct rm_gen *gen;   /* register names for the trace */
	unsigned trace;             /* 1: every write and task-queue field */
	outf_fn out;
	void *ctx;
	/* counters of the last run */
	unsigned nwrites;
	unsigned td_writes[LDR_MAX_TDS];
};

#define ENG_POLL_MAX 1000000u /* status polls per TD before engine-timeout */

/*
 * The watchdog: engine work units (the model counts DMA polls) a submission may use, derived
 * from the plan: ENG_WD_BASE + TDs x ENG_WD_PER_TD + moves x ENG_WD_PER_MOVE + bytes /
 * ENG_WD_BYTES_PER_POLL (moves: ENG_WD_MOVE_BYTES chunks). Past it: watchdog-expired. The
 * plan's work is bounded (ctrl_limits), so the watchdog is too.
 */
#define ENG_WD_BASE 4096u
#define ENG_WD_PER_TD 1024u
#define ENG_WD_PER_MOVE 256u
#define ENG_WD_MOVE_BYTES 0x10000u
#define ENG_WD_BYTES_PER_POLL 16u
uint64_t eng_watchdog_budget(const struct ctrl_plan *pl);

/* Runs a checked plan (pl->st.err == CTRL_OK) on the engine. budget: 0 for the derived one. */
int eng_run(struct eng *e, const struct ctrl_plan *pl, unsigned priority, uint64_t budget);

/* Name of a register ("Block.Reg[i]", "Block.Rsvd_0x..."). */
void eng_reg_name(const struct rm_gen *g, uint32_t addr, char *buf, size_t len);

#endif
