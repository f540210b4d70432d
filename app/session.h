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
#include "fw/common/err.h"
#include "fw/ctrl/ctrl.h"
#include "fw/submit/queue.h"

#define SESSION_MAX_GRANTS SUBQ_MAX_GRANTS
#define SESSION_DEV_BASE 0x40000000u
#define SESSION_GUARD 0x1000u
#define SESSION_CANARY 0xa5u

/* Errors of the session itself (beyond the loader's, the control path's and the engine's). */
enum session_err {
	SESSION_OK = 0,
	SESSION_E_NOMEM,        /* session-out-of-memory: the arena could not be allocated */
	SESSION_E_ARENA,        /* arena-too-large: the grants do not fit one submission's arena */
	SESSION_E_CANARIES,     /* canaries-damaged: a guard byte changed */
	SESSION_E__COUNT
};
const struct err_desc *session_err(enum session_err e);
const char *session_err_name(enum session_err e);

struct session_result {
	int loaded;               /* 1 when the loader accepted the program */
	enum ldr_err lerr;
	struct ctrl_status st;    /* the control path's verdict */
	int run;                  /* ENG_OK, or the engine's error */
	enum session_err serr;       /* the session's own error */
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
struct session_hooks {
	void (*fill)(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights);
	void (*check)(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights);
	void *ctx;
	/* Bit b set: fill writes every byte of the buffer granted at BAR b (not weights), so the
	 * session leaves its pattern out of it (an input) or its zeroing (a written buffer; a failed
	 * run then leaves it as the hook and the engine left it). 0: the pattern and the zeroing
	 * everywhere (less what the TDs write whole, session_written_run). */
	uint32_t whole_bars;
};

struct session_opts {
	unsigned ldr_flags;               /* LDR_F_* */
	const struct subq_grant *grants;  /* NULL with ngrants 0 and use_defaults 1: the defaults */
	unsigned ngrants;
	int use_defaults;
	unsigned trace;                   /* 1: every write and move */
	outf_fn out;
	void *ctx;
	const struct session_hooks *hooks;
	const struct ctrl_limits *limits; /* NULL: ctrl_default_limits */
	uint64_t max_arena;               /* 0: SESSION_MAX_ARENA */
	const char *path;                 /* the program's file, named in a loader refusal (NULL:
					     not named) */
	int plan_only;                    /* 1: load, grants, placement and the control path's plan
					     (its checks, the kernel unit), nothing filled or run:
					     what a run refuses before the engine (validate) */
};

#define SESSION_MAX_ARENA (256ull << 20)

struct app_session;
/* A session on the engine app/backend.c picks, with the board's DMA device; NULL when out of
 * memory. */
struct app_session *session_create(struct dma_dev *dma);
void session_destroy(struct app_session *s);
/* Its engine, through the interface (engine/engine.h): the state after a run, fault injection
 * (app/backend.h), the command service's runs. */
struct eng *session_eng(struct app_session *s);

/* The bytes [*start, *end) of the grant of BAR bar that the last submission's TDs were to write
 * whole, so its fill left them out of the output's zeroing (app/session.c written_runs); 0 when
 * there are none. */
int session_written_run(const struct app_session *s, unsigned bar, uint64_t *start, uint64_t *end);

/* A granted buffer's first contents: the program's weights when it holds them (returns 1), zero
 * when it is written, else a byte pattern (an input no one filled). b holds g->size bytes. */
int session_fill_buffer(const struct ldr_program *p, const struct subq_grant *g, uint8_t *b);
/* The same, the pattern left out (b untouched) when skip_pattern is set: the caller writes the
 * whole input. */
int session_fill_buffer_x(const struct ldr_program *p, const struct subq_grant *g, uint8_t *b,
			  int skip_pattern);
/* The inputs' fill pattern: with v = k x 7 + bar (mod 256), byte k of b is v's bit 7 over its
 * bits 1-6 (v & 0x80 | v >> 1 & 0x3f): bit 6 of every byte clear, so every fp16 value it holds,
 * at any byte, is finite and below 2 in magnitude. */
void session_pattern(uint8_t *b, uint64_t size, unsigned bar);

/* Runs one submission. Returns 0 when it completed, 1 when it was refused or failed. */
int session_run(struct app_session *s, const uint8_t *buf, size_t len, const struct session_opts *o,
	     struct session_result *res);

/* The completion a result earns: done, refused (loader, policy or kernel-unit domain, with that
 * enum's code) or failed (engine domain). */
void session_completion(const struct session_result *res, struct subq_completion *c);
/* A refusal of the grants, the placement or the control path's plan (res->serr, else res->st)
 * as run and submit print it after "submit: refused: ", with lead before it instead. */
void session_print_refusal(const struct session_result *res, const char *lead, outf_fn out,
			   void *ctx);
/* The named error of a result ("ok" when it completed). */
const char *session_result_name(const struct session_result *res);

#endif
