/*
 * The command service: the firmware as the engine's controller (docs/service.md). It reads
 * command records from the host-to-firmware ring, keeps a table of loaded programs, schedules
 * calls over eight priority levels (first in, first out within a level), runs them through a
 * backend, and posts exactly one completion per command on the firmware-to-host ring.
 *
 * Pure logic: the engine, device memory and the clock sit behind struct svc_backend (app/service.c
 * on the software model; tests use a scripted one).
 *
 * - Channel: svc_init publishes the channel table with ready = 0 (commands answered not-ready);
 *   svc_ready sets ready. Until a HELLO with this major version succeeds every other command is
 *   answered no-handshake. A minor-version mismatch is accepted (data[2] = 1 in HELLO's answer).
 * - Load copies the program out of the data window into service-owned memory (backend
 *   prog_mem) before the backend validates and plans it, so the host cannot change it after the
 *   check. The backend returns the program's BAR schema (struct svc_prog): what a call must bind.
 * - A call re-checks only its overrides against the schema and the granted regions (the data
 *   window; for a chain link, the previous call's buffer) and runs with the final BAR table.
 * - Deadline: each call's deadline (ticks of the backend clock; 0: the default) runs from its
 *   acceptance. A call still queued past it, or held by unsatisfied waits, is answered
 *   deadline-expired; a running call gets the remaining ticks as its budget and a backend that
 *   reports the budget spent is answered deadline-expired and the engine recovered.
 * - Recovery is rate-limited: a second recovery within recover_interval ticks of the last makes
 *   the channel not ready (commands answered recovering, nothing dispatched) until the interval
 *   has passed, then the backend recovers the engine and the channel is ready again.
 * - Completions: a command is read from the ring only when the completion ring has room for its
 *   completion and for those of every queued call, so no completion is ever dropped.
 */
#ifndef ANEFW_CMD_SVC_H
#define ANEFW_CMD_SVC_H

#include <stddef.h>
#include <stdint.h>

#include "fw/cmd/cmd.h"

#define SVC_MAX_PROGRAMS 4u
#define SVC_QUEUE_DEPTH 128u   /* calls queued at once */
#define SVC_NREGIONS 2u

/* One BAR of a loaded program, as a call must bind it. */
#define SVC_BAR_USED 1u
#define SVC_BAR_FIXED 2u   /* weights, TD memory or kernel unit: cannot be rebound */
struct svc_bar {
	uint64_t base;     /* engine address the program's own buffer is at */
	uint64_t need;     /* bytes from base the program touches (a rebound buffer's minimum) */
	uint8_t access;    /* CMD_ACC_* the program needs */
	uint8_t flags;     /* SVC_BAR_* */
};

/* What the backend tells the service about a loaded program (built once, at load). */
struct svc_prog {
	uint32_t used, fixed;            /* BAR masks */
	uint32_t unbound;                /* fixed BARs a TD reads as the host's data (no weights,
					    no kernel unit, nothing an earlier TD wrote): LOAD
					    refuses the program (fixed-input) */
	uint32_t ntds, procedures;
	struct svc_bar bar[CMD_NBARS];
};

/* The final BAR table of one call (bases for every used BAR, the overridden ones marked). */
struct svc_bars {
	uint64_t base[CMD_NBARS];
	uint32_t overridden;
};

struct svc_result {
	enum cmd_err err;
	uint32_t domain, code; /* the nested error (loader, policy, kunit, engine) */
	uint32_t fault[CMD_FAULT_WORDS]; /* with CMD_E_ENGINE: the backend's packed fault, or 0s;
					    a refused LOAD: what was found and the limit */
};
/* A refused LOAD's detail words in fault[] (completion data[2..7]): for arena-too-large the
 * bytes of device memory the program needs (found) and a slot holds (limit), each low, high. */
#define SVC_DETAIL_FOUND 0u
#define SVC_DETAIL_LIMIT 2u

struct svc_backend {
	void *ctx;
	uint64_t (*now)(void *ctx);   /* ticks, monotone */
	void (*idle)(void *ctx);      /* nothing could be done this pass: let time pass */
	/* service-owned memory for a program of len bytes in slot (NULL: out of memory) */
	uint8_t *(*prog_mem)(void *ctx, unsigned slot, size_t len);
	/* validate and plan the copy at prog_mem; fill *info */
	void (*load)(void *ctx, unsigned slot, size_t len, uint32_t flags, struct svc_prog *info,
		     struct svc_result *r);
	void (*unload)(void *ctx, unsigned slot);
	/* run a loaded program with the final BAR table; budget: ticks it may take. A budget spent
	 * is r->err = CMD_E_DEADLINE; an engine failure CMD_E_ENGINE with the engine's code. */
	void (*run)(void *ctx, unsigned slot, const struct svc_bars *bars, unsigned priority,
		    uint64_t budget, struct svc_result *r);
	void (*recover)(void *ctx);   /* reset the engine to a known state */
};

struct svc_config {
	struct cmd_shm *shm;
	uint8_t *window;          /* the data window: host-granted memory, CPU address */
	uint64_t window_dev;      /* its engine address */
	uint64_t window_size;
	uint32_t tick_hz;         /* published in QUERY */
	uint32_t default_deadline;/* ticks; the guide's firmware uses about 2 s */
	uint64_t recover_interval;/* ticks between two recoveries */
	uint32_t engines;         /* engine count published in QUERY */
};

enum svc_state { SVC_BOOT, SVC_READY, SVC_OPEN, SVC_RECOVERING, SVC_STOPPED };

struct svc_stats {
	uint64_t accepted;        /* commands read from the ring */
	uint64_t completed;       /* completions posted */
	uint64_t unsupported;     /* unknown ids */
	uint64_t refused, failed, aborted;
	uint64_t calls_run;       /* calls (chain steps count once per chain) the backend ran */
	uint64_t recoveries;
	uint64_t ring_corrupt;    /* passes that found a corrupt ring index */
	uint64_t dropped_not_running; /* calls whose program was unloaded while queued */
};

struct svc_call;
struct svc_slot {
	int loaded;
	uint32_t gen;             /* bumped at each load: stale ids are refused */
	struct svc_prog info;
};

struct svc_call {
	struct cmd c;
	uint64_t accepted_at, deadline_at;
	int16_t next;             /* next call of the same level, -1 at the end */
	uint8_t used;
};

struct svc {
	struct svc_config cfg;
	struct svc_backend be;
	enum svc_state state;
	uint64_t recover_until, last_recover;
	int recovered_once;
	struct svc_slot prog[SVC_MAX_PROGRAMS];
	uint64_t events[CMD_MAX_EVENTS];
	struct svc_call call[SVC_QUEUE_DEPTH];
	int16_t qhead[CMD_PRIORITIES], qtail[CMD_PRIORITIES];
	int16_t free_head;
	unsigned queued;
	uint32_t seq;
	struct svc_stats st;
	int hello_unloads;        /* 1: a HELLO unloads every program loaded before it (a byte
				     link serves one client at a time: one that went away without
				     UNLOAD leaves its programs to the next HELLO, not forever);
				     0 after svc_init */
	uint8_t rec[CMD_SLOT_PAYLOAD]; /* the record, copied out of its slot */
	struct cmd scratch;            /* decoded non-call commands */
};

/* Publishes the channel table (ready 0) and empties the rings. */
void svc_init(struct svc *s, const struct svc_config *cfg, const struct svc_backend *be);
/* Marks the channel ready. */
void svc_ready(struct svc *s);
/* One pass: reads every command there is room for, runs every runnable call (highest level
 * first, FIFO within it), expires what has passed its deadline. Returns completions posted. */
unsigned svc_poll(struct svc *s);
/* Calls queued. */
unsigned svc_pending(const struct svc *s);
/* 1 when every accepted command has been answered or is queued (the accounting invariant). */
int svc_accounting_ok(const struct svc *s);

/* The program id of a slot's current load (gen << 8 | slot), and the slot of an id (-1). */
int32_t svc_program_id(const struct svc *s, unsigned slot);
int svc_slot_of(const struct svc *s, int32_t id);

/*
 * Checks a call's overrides against a program and the granted regions, and gives the call's
 * final BAR table. regions: [base, base + size) engine ranges the host granted with an access;
 * ov[i].access must be within its region's. *where: the override at fault. Exposed for tests
 * and the fuzz target.
 */
struct svc_region {
	uint64_t base, size;
	uint32_t access;
};
enum cmd_err svc_check_overrides(const struct svc_prog *p, const struct cmd_ov *ov, unsigned nov,
				 const struct svc_region *regions, unsigned nregions,
				 struct svc_bars *out, int *where);

#endif
