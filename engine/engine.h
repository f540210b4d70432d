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

/* The engine's errors: a positive enum (a completion carries the value as its code), each with a
 * name and a one-line description in eng_err()'s table (fw/common/err.h); eng_err_name and
 * eng_err_text are its fields. */
enum eng_err {
	ENG_OK = 0,
	ENG_E_ARG,          /* engine-bad-argument */
	ENG_E_RANGE,        /* engine-address-outside-memory */
	ENG_E_DMA,          /* engine-dma-error */
	ENG_E_TIMEOUT,      /* engine-timeout: a status poll bound ran out */
	ENG_E_WINDOW,       /* engine-register-outside-window */
	ENG_E_WATCHDOG,     /* watchdog-expired */
	ENG_E_WRONG_TASK,   /* engine-completion-wrong-task */
	ENG_E_READBACK,     /* engine-register-readback-mismatch */
	ENG_E_NOMEM,        /* engine-out-of-memory */
	ENG_E_FAULT,        /* engine-fault: the engine stopped a TD with an error of its own */
	ENG_E__COUNT
};
const struct err_desc *eng_err(int e);
const char *eng_err_name(int e);
const char *eng_err_text(int e);

/*
 * Why the engine stopped a TD: a structured fault, the same for every backend. A backend that
 * cannot compute what silicon would refuses the TD (ENG_E_FAULT) with one of these reasons and
 * the register field, or the record, it could not interpret; the driver adds the TD index and
 * keeps the record in struct eng (eng.fault) for the front ends, which print it with
 * eng_fault_format whether or not they trace.
 */
enum eng_fault_reason {
	ENG_FR_NONE = 0,     /* no structured fault (the engine error alone says it) */
	ENG_FR_FIELD,        /* a register field or value with no modelled meaning */
	ENG_FR_COMBINATION,  /* a combination of units (or of fields) the model does not model */
	ENG_FR_ACT_RECORD,   /* an activation record it cannot read, or none where one is selected */
	ENG_FR_DATA,         /* weights or a kernel-unit stream it cannot read */
	ENG_FR_CAPACITY,     /* beyond what the model holds (L2-resident tensors, row lengths) */
	ENG_FR_VALUE,        /* a tensor value whose reading the registers leave open */
	ENG_FR__COUNT
};
/* "unmodelled-field", ...; eng_fault_reason_text: one line saying what it means. */
const char *eng_fault_reason_name(unsigned reason);
const char *eng_fault_reason_text(unsigned reason);

#define ENG_FAULT_NO_REG 0xffffffffu /* struct eng_fault.reg when no register is named */

struct eng_fault {
	uint32_t reason;      /* enum eng_fault_reason; ENG_FR_NONE: nothing structured */
	int err;              /* the engine error the TD stopped with (enum eng_err) */
	int td;               /* TD index in the task (the driver sets it); -1 unknown */
	const char *unit;     /* the engine unit ("NE", "PE", "L2", ...); NULL: the register's block */
	uint32_t reg;         /* register byte address, or ENG_FAULT_NO_REG */
	uint8_t lsb, width;   /* the field of reg (width 0: the whole register) */
	uint32_t value;       /* the field's (or register's) value */
	uint64_t mem;         /* engine address of a record the fault is about; 0: none */
	int slot;             /* its 16-bit slot the fault is about; -1: none */
	uint32_t slot_value;
	const char *why;      /* static text: what the backend cannot do */
};

/* One line describing a fault, the same for every front end: "td 0, unit NE,
 * NE.MACCfg.NonlinearMode = 0x3: unmodelled-field: why" (", record @0x... slot 42 = 0x1234"
 * after the register for a record). Register and field names come from g's register map. */
void eng_fault_format(const struct eng_fault *f, const struct rm_gen *g, char *buf, size_t len);
#define ENG_FAULT_TEXT_MAX 512

/* A fault as 6 words for a completion record (fw/cmd, CALL's data[2..7]): td + 1 (0: none) |
 * reason | register | lsb | width << 8 | (slot + 1) << 16 | value | slot value. The record's
 * address and the why text stay behind; unpacked, the reason's one-line text stands for why. */
#define ENG_FAULT_WORDS 6u
void eng_fault_pack(const struct eng_fault *f, uint32_t w[ENG_FAULT_WORDS]);
void eng_fault_unpack(const uint32_t w[ENG_FAULT_WORDS], int err, struct eng_fault *f);

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

/* What a backend did on one TD of the last submission (struct eng_ops.td_report). */
#define ENG_ACT_TEXT 120
struct eng_td_report {
	unsigned moves;           /* DMA moves */
	uint64_t bytes;           /* bytes they moved */
	int act_applied;          /* 1: the activation LUT was applied */
	uint64_t act_elems;       /* fp16 values it was applied to */
	char act[ENG_ACT_TEXT];   /* the activation in one line ("none", "lut record @0x..., ...") */
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
	/* optional (NULL: none): the structured fault of the TD that stopped with ENG_ST_ERROR */
	void (*fault)(const void *dev, struct eng_fault *f);
	/* Optional, for the session (NULL: nothing to do; use the eng_* wrappers below): */
	/* the device memory the engine reaches: engine address base + off is CPU address mem + off */
	void (*set_memory)(void *dev, uint8_t *mem, uint64_t base, uint64_t size);
	/* where a trace goes (1: every move) */
	void (*set_output)(void *dev, unsigned trace, outf_fn out, void *ctx);
	/* around one submission: counters cleared and injected faults armed; disarmed */
	void (*begin)(void *dev);
	void (*end)(void *dev);
	/* work units the submission used so far: the watchdog's unit (eng_task.budget) */
	uint64_t (*work)(const void *dev);
	/* what TD td of the last submission did */
	void (*td_report)(const void *dev, unsigned td, struct eng_td_report *r);
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
	struct eng_fault fault;     /* why the last run stopped (reason ENG_FR_NONE when it did not,
				     * or when the error has no structured record) */
};

#define ENG_POLL_MAX 1000000u /* status polls per TD before engine-timeout */

/*
 * The watchdog: engine work units (eng_ops.work; the model counts DMA polls) a submission may use, derived
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

/* The optional session operations of e's device (no-ops, 0 or an empty report when absent). */
void eng_set_memory(struct eng *e, uint8_t *mem, uint64_t base, uint64_t size);
void eng_set_output(struct eng *e, unsigned trace, outf_fn out, void *ctx);
void eng_begin(struct eng *e);
void eng_end(struct eng *e);
uint64_t eng_work(const struct eng *e);
void eng_td_report(const struct eng *e, unsigned td, struct eng_td_report *r);

/* Runs a checked plan (pl->st.err == CTRL_OK) on the engine. budget: 0 for the derived one. */
int eng_run(struct eng *e, const struct ctrl_plan *pl, unsigned priority, uint64_t budget);

/* Name of a register ("Block.Reg[i]", "Block.Rsvd_0x..."). */
void eng_reg_name(const struct rm_gen *g, uint32_t addr, char *buf, size_t len);

#endif
