/*
 * A whole submission on the engine: load the program, take its grants (given or the defaults),
 * check every size, place the buffers in a device-memory arena between guard pages, plan (fw/ctrl),
 * fill the buffers, run the plan through the engine interface (on the backend app/backend.c
 * picks), then scan the guard pages. The firmware's main job, the host tool and the tests all run submissions here.
 *
 * A session owns one engine (opened by app/backend.c) and is reused across submissions, as the
 * firmware reuses its one engine.
 */
#ifndef ANEFW_APP_SESSION_H
#define ANEFW_APP_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/dma/dma.h"
#include "engine/engine.h"
#include "fw/ctrl/ctrl.h"
#include "fw/submit/queue.h"

#define ANES_MAX_GRANTS SUBQ_MAX_GRANTS
#define ANES_DEV_BASE 0x40000000u
#define ANES_GUARD 0x1000u
#define ANES_CANARY 0xa5u

/* Errors of the session itself (beyond the loader's, the control path's and the engine's). */
enum anes_err {
	ANES_OK = 0,
	ANES_E_NOMEM,        /* out-of-memory: the arena could not be allocated */
	ANES_E_ARENA,        /* arena-too-large: the grants do not fit one submission's arena */
	ANES_E_CANARIES,     /* canaries-damaged: a guard byte changed */
	ANES_E__COUNT
};
const char *anes_err_name(enum anes_err e);

struct anes_result {
	int loaded;               /* 1 when the loader accepted the program */
	enum ldr_err lerr;
	struct ctrl_status st;    /* the control path's verdict */
	int run;                  /* ENG_OK, or the engine's error */
	enum anes_err serr;       /* the session's own error */
	int canaries_ok;          /* every guard byte intact afterwards */
	unsigned ntds, nwrites, nmoves;
	uint64_t bytes, work;
	unsigned act_applied;     /* TDs whose activation the model applied */
	uint64_t act_elems;       /* fp16 values it evaluated */
	unsigned folded_tds;      /* TDs whose weights the firmware folded to fp16 */
	uint64_t fold_values;     /* weights it decoded doing so */
	struct eng_fault fault;   /* with run != ENG_OK: the TD and why (engine.h) */
	char fault_text[ENG_FAULT_TEXT_MAX]; /* it, formatted (eng_fault_format); "" when none */
};

/*
 * Optional hooks: fill is called for every granted buffer after the session filled it (weights
 * from the program, inputs a byte pattern, outputs zero) and may replace the contents; check is
 * called for every granted buffer after the run (before the canary check). is_weights: the
 * buffer holds the program's weights.
 */
struct anes_hooks {
	void (*fill)(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights);
	void (*check)(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights);
	void *ctx;
};

struct anes_opts {
	unsigned ldr_flags;               /* LDR_F_* */
	const struct subq_grant *grants;  /* NULL with ngrants 0 and use_defaults 1: the defaults */
	unsigned ngrants;
	int use_defaults;
	unsigned trace;                   /* 1: every write and move */
	outf_fn out;
	void *ctx;
	const struct anes_hooks *hooks;
	const struct ctrl_limits *limits; /* NULL: ctrl_default_limits */
	uint64_t max_arena;               /* 0: ANES_MAX_ARENA */
};

#define ANES_MAX_ARENA (256ull << 20)

struct anes;
/* A session on the engine app/backend.c picks, with the board's DMA device; NULL when out of
 * memory. */
struct anes *anes_create(struct dma_dev *dma);
void anes_destroy(struct anes *s);
/* Its engine, through the interface (engine/engine.h): the state after a run, fault injection
 * (app/backend.h), the command service's runs. */
struct eng *anes_eng(struct anes *s);

/* A granted buffer's first contents: the program's weights when it holds them (returns 1), zero
 * when it is written, else a byte pattern (an input no one filled). b holds g->size bytes. */
int anes_fill_buffer(const struct ldr_program *p, const struct subq_grant *g, uint8_t *b);
/* The inputs' fill pattern: byte k of b is k x 7 + bar (mod 256). */
void anes_pattern(uint8_t *b, uint64_t size, unsigned bar);

/* Runs one submission. Returns 0 when it completed, 1 when it was refused or failed. */
int anes_run(struct anes *s, const uint8_t *buf, size_t len, const struct anes_opts *o,
	     struct anes_result *res);

/* The completion a result earns: done, refused (loader, policy or kernel-unit domain, with that
 * enum's code) or failed (engine domain). */
void anes_completion(const struct anes_result *res, struct subq_completion *c);
/* The named error of a result ("ok" when it completed). */
const char *anes_result_name(const struct anes_result *res);

#endif
