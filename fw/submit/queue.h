/*
 * Submission queue: the host places submissions (program, grant table, queue, priority) in a
 * ring in shared memory; the firmware takes them highest priority first (first come first served
 * within a priority), runs each through the control path, and posts one completion per
 * submission with its status and named error. A bad submission never stops the next.
 *
 * The rings are plain memory with head/tail indices, so the same code serves a real shared
 * window and tests. Every index read from shared memory is range-checked before use.
 */
#ifndef ANEFW_SUBMIT_QUEUE_H
#define ANEFW_SUBMIT_QUEUE_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#define SUBQ_SLOTS 64u         /* submissions in flight */
#define SUBQ_MAX_GRANTS 32u
#define SUBQ_MAX_PRIORITY 15u
#define SUBQ_MAX_QUEUES 8u

struct subq_grant {
	uint32_t bar;
	uint32_t access; /* POL_READ / POL_WRITE bits (fw/policy) */
	uint32_t flags;  /* POL_FLAG_* */
	uint32_t pad;
	uint64_t dva, size, mapped;
};

struct subq_entry {
	uint32_t id;
	uint8_t queue;
	uint8_t priority;
	uint16_t ngrants;
	uint64_t program;     /* address of the program bytes (as the firmware sees them) */
	uint64_t program_len;
	struct subq_grant grants[SUBQ_MAX_GRANTS];
};

enum subq_status { SUBQ_DONE = 0, SUBQ_REFUSED = 1, SUBQ_FAILED = 2 };

struct subq_completion {
	uint32_t id;
	uint32_t status;   /* enum subq_status */
	uint32_t domain;   /* which error enum: enum subq_domain */
	uint32_t code;     /* the error's value in that enum */
};

/* Which enum a completion's code belongs to: subq_err, ldr_err, pol_err, ku_err, eng_err,
 * dma_err, session_err, ctrl_err (the control path's own refusals, not the policy's, the kernel
 * unit's or fw/td's), td_err. The one list of domains: the command protocol (fw/cmd) carries the
 * same values. */
enum subq_domain { SUBQ_DOM_NONE, SUBQ_DOM_QUEUE, SUBQ_DOM_LOADER, SUBQ_DOM_POLICY,
		   SUBQ_DOM_KUNIT, SUBQ_DOM_ENGINE, SUBQ_DOM_DMA, SUBQ_DOM_SESSION, SUBQ_DOM_CTRL,
		   SUBQ_DOM_TD, SUBQ_DOM__COUNT };
const char *subq_domain_name(enum subq_domain d); /* "loader", "policy", ... */

enum subq_err {
	SUBQ_OK = 0,
	SUBQ_E_FULL,          /* no free slot */
	SUBQ_E_EMPTY,         /* nothing to take */
	SUBQ_E_BAD_INDEX,     /* a ring index from shared memory out of range */
	SUBQ_E_PRIORITY,      /* priority over SUBQ_MAX_PRIORITY */
	SUBQ_E_QUEUE,         /* queue number over SUBQ_MAX_QUEUES */
	SUBQ_E_GRANTS,        /* more grants than the table holds */
	SUBQ_E__COUNT
};

/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *subq_err(enum subq_err e);
const char *subq_err_name(enum subq_err e);

struct subq {
	/* submission slots, written by the host, taken by the firmware */
	struct subq_entry slot[SUBQ_SLOTS];
	uint64_t seq[SUBQ_SLOTS];   /* arrival order of each occupied slot, for FIFO ties */
	uint64_t occupied;          /* bit per slot */
	uint64_t next_seq;
	/* completion ring, written by the firmware, read by the host; one spare entry so a full
	 * queue of SUBQ_SLOTS submissions always has room for all its completions */
	struct subq_completion done[SUBQ_SLOTS + 1];
	uint32_t done_head, done_tail; /* head: next to read (host); tail: next to write */
	uint32_t dropped;              /* completions lost to a full ring */
};

void subq_init(struct subq *q);
/* Host side: queue a submission (copied). */
enum subq_err subq_submit(struct subq *q, const struct subq_entry *e);
/* Firmware side: take the highest-priority, oldest submission. */
enum subq_err subq_take(struct subq *q, struct subq_entry *out);
/* Firmware side: post a completion. */
void subq_complete(struct subq *q, uint32_t id, enum subq_status st, uint32_t domain,
		   uint32_t code);
/* Host side: read the next completion. */
enum subq_err subq_reap(struct subq *q, struct subq_completion *out);
unsigned subq_pending(const struct subq *q);

/* Firmware side: run every queued submission through handler, posting its completion. */
typedef void (*subq_handler)(void *ctx, const struct subq_entry *e, struct subq_completion *c);
unsigned subq_run(struct subq *q, subq_handler h, void *ctx);

#endif
