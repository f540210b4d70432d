#include "fw/submit/queue.h"

#include <string.h>

#define DONE_RING (SUBQ_SLOTS + 1u)

static const struct err_desc errs[SUBQ_E__COUNT] = {
	[SUBQ_OK] = {"ok", "no error"},
	[SUBQ_E_FULL] = {"queue-no-free-slot", "no free slot in the submission queue"},
	[SUBQ_E_EMPTY] = {"queue-empty", "nothing to take"},
	[SUBQ_E_BAD_INDEX] = {"queue-index-out-of-range",
	 "a ring index from shared memory out of range"},
	[SUBQ_E_PRIORITY] = {"priority-out-of-range", "priority over SUBQ_MAX_PRIORITY"},
	[SUBQ_E_QUEUE] = {"queue-number-out-of-range", "queue number over SUBQ_MAX_QUEUES"},
	[SUBQ_E_GRANTS] = {"entry-too-many-grants", "a queue entry with more grants than its table holds"},
};

const struct err_desc *subq_err(enum subq_err e)
{
	static const struct err_desc unknown = {"unknown-queue-error",
						  "a value this module does not define"};
	return err_lookup(errs, SUBQ_E__COUNT, (unsigned)e, &unknown);
}

const char *subq_err_name(enum subq_err e)
{
	return subq_err(e)->name;
}

void subq_init(struct subq *q)
{
	memset(q, 0, sizeof *q);
}

enum subq_err subq_submit(struct subq *q, const struct subq_entry *e)
{
	if (e->priority > SUBQ_MAX_PRIORITY)
		return SUBQ_E_PRIORITY;
	if (e->queue >= SUBQ_MAX_QUEUES)
		return SUBQ_E_QUEUE;
	if (e->ngrants > SUBQ_MAX_GRANTS)
		return SUBQ_E_GRANTS;
	for (unsigned i = 0; i < SUBQ_SLOTS; i++) {
		if (q->occupied & (1ull << i))
			continue;
		q->slot[i] = *e;
		q->seq[i] = q->next_seq++;
		q->occupied |= 1ull << i;
		return SUBQ_OK;
	}
	return SUBQ_E_FULL;
}

enum subq_err subq_take(struct subq *q, struct subq_entry *out)
{
	int best = -1;
	for (unsigned i = 0; i < SUBQ_SLOTS; i++) {
		if (!(q->occupied & (1ull << i)))
			continue;
		if (best < 0 || q->slot[i].priority > q->slot[best].priority ||
		    (q->slot[i].priority == q->slot[best].priority && q->seq[i] < q->seq[best]))
			best = (int)i;
	}
	if (best < 0)
		return SUBQ_E_EMPTY;
	*out = q->slot[best];
	q->occupied &= ~(1ull << best);
	/* The host may have written anything: clamp what the firmware will index with. */
	if (out->ngrants > SUBQ_MAX_GRANTS)
		out->ngrants = SUBQ_MAX_GRANTS;
	return SUBQ_OK;
}

void subq_complete(struct subq *q, uint32_t id, enum subq_status st, uint32_t domain,
		   uint32_t code)
{
	uint32_t head = q->done_head, tail = q->done_tail;
	if (head >= DONE_RING || tail >= DONE_RING) {
		/* a corrupted ring: reset it rather than index with it */
		q->done_head = q->done_tail = 0;
		head = tail = 0;
	}
	uint32_t next = (tail + 1) % DONE_RING;
	if (next == head) {
		q->dropped++;
		return;
	}
	q->done[tail] = (struct subq_completion){id, (uint32_t)st, domain, code};
	q->done_tail = next;
}

enum subq_err subq_reap(struct subq *q, struct subq_completion *out)
{
	if (q->done_head >= DONE_RING || q->done_tail >= DONE_RING)
		return SUBQ_E_BAD_INDEX;
	if (q->done_head == q->done_tail)
		return SUBQ_E_EMPTY;
	*out = q->done[q->done_head];
	q->done_head = (q->done_head + 1) % DONE_RING;
	return SUBQ_OK;
}

unsigned subq_pending(const struct subq *q)
{
	return (unsigned)__builtin_popcountll(q->occupied);
}

unsigned subq_run(struct subq *q, subq_handler h, void *ctx)
{
	unsigned n = 0;
	struct subq_entry e;
	/* Bounded: at most one pass over the slots that were occupied when it started. */
	for (unsigned budget = subq_pending(q); budget && subq_take(q, &e) == SUBQ_OK; budget--) {
		struct subq_completion c = {e.id, SUBQ_DONE, SUBQ_DOM_NONE, 0};
		h(ctx, &e, &c);
		subq_complete(q, e.id, (enum subq_status)c.status, c.domain, c.code);
		n++;
	}
	return n;
}

static const char *const domain_names[SUBQ_DOM__COUNT] = {
	"none", "queue", "loader", "policy", "kunit", "engine", "dma", "session", "control", "td",
};

const char *subq_domain_name(enum subq_domain d)
{
	return (unsigned)d < SUBQ_DOM__COUNT ? domain_names[d] : "unknown-domain";
}
