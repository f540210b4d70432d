#include "fw/submit/queue.h"
#include "tests/harness/harness.h"

#include <stdlib.h>

static void handler(void *ctx, const struct subq_entry *e, struct subq_completion *c)
{
	uint32_t *order = ctx;
	order[order[0] + 1] = e->id;
	order[0]++;
	/* odd ids are "bad": refused with a made-up policy code */
	if (e->id & 1) {
		c->status = SUBQ_REFUSED;
		c->domain = SUBQ_DOM_POLICY;
		c->code = 7;
	}
}

TEST(subq, priority_order_fifo_within_priority)
{
	struct subq *q = malloc(sizeof *q);
	REQUIRE(q);
	subq_init(q);
	const uint8_t prio[8] = {1, 5, 5, 0, 9, 1, 5, 9};
	for (uint32_t i = 0; i < 8; i++) {
		struct subq_entry e = {.id = 100 + i, .priority = prio[i]};
		CHECK_EQ(subq_submit(q, &e), SUBQ_OK);
	}
	uint32_t order[16] = {0};
	CHECK_EQ(subq_run(q, handler, order), 8);
	const uint32_t want[8] = {104, 107, 101, 102, 106, 100, 105, 103};
	for (unsigned i = 0; i < 8; i++)
		CHECK_EQ(order[1 + i], want[i]);
	/* one completion per submission, bad ones refused, the rest done */
	struct subq_completion c;
	for (unsigned i = 0; i < 8; i++) {
		REQUIRE(subq_reap(q, &c) == SUBQ_OK);
		CHECK_EQ(c.id, want[i]);
		CHECK_EQ(c.status, (want[i] & 1) ? SUBQ_REFUSED : SUBQ_DONE);
	}
	CHECK_EQ(subq_reap(q, &c), SUBQ_E_EMPTY);
	free(q);
}

TEST(subq, limits_and_corrupt_indices)
{
	struct subq *q = malloc(sizeof *q);
	REQUIRE(q);
	subq_init(q);
	struct subq_entry e = {.id = 1, .priority = 16};
	CHECK_EQ(subq_submit(q, &e), SUBQ_E_PRIORITY);
	e.priority = 0;
	e.queue = 8;
	CHECK_EQ(subq_submit(q, &e), SUBQ_E_QUEUE);
	e.queue = 0;
	e.ngrants = 33;
	CHECK_EQ(subq_submit(q, &e), SUBQ_E_GRANTS);
	e.ngrants = 0;
	for (unsigned i = 0; i < SUBQ_SLOTS; i++)
		CHECK_EQ(subq_submit(q, &e), SUBQ_OK);
	CHECK_EQ(subq_submit(q, &e), SUBQ_E_FULL);
	/* the host scribbles over the ring indices: nothing is indexed with them */
	q->done_head = 1000;
	struct subq_completion c;
	CHECK_EQ(subq_reap(q, &c), SUBQ_E_BAD_INDEX);
	subq_complete(q, 5, SUBQ_DONE, 0, 0);
	CHECK_EQ(subq_reap(q, &c), SUBQ_OK);
	CHECK_EQ(c.id, 5);
	/* a full completion ring drops and counts, never overwrites unread entries */
	subq_init(q);
	for (unsigned i = 0; i < SUBQ_SLOTS + 3; i++)
		subq_complete(q, i, SUBQ_DONE, 0, 0);
	CHECK_EQ(q->dropped, 3);
	CHECK_EQ(subq_reap(q, &c), SUBQ_OK);
	CHECK_EQ(c.id, 0);
	free(q);
}

static void accept_all(void *ctx, const struct subq_entry *e, struct subq_completion *c)
{
	(void)ctx;
	(void)e;
	(void)c;
}

TEST(subq, full_queue_gets_every_completion)
{
	struct subq *q = malloc(sizeof *q);
	REQUIRE(q);
	subq_init(q);
	for (uint32_t i = 0; i < SUBQ_SLOTS; i++) {
		struct subq_entry e = {.id = i, .priority = (uint8_t)(i % 4)};
		REQUIRE(subq_submit(q, &e) == SUBQ_OK);
	}
	CHECK_EQ(subq_run(q, accept_all, NULL), SUBQ_SLOTS);
	CHECK_EQ(q->dropped, 0);
	struct subq_completion c;
	unsigned n = 0;
	while (subq_reap(q, &c) == SUBQ_OK)
		n++;
	CHECK_EQ(n, SUBQ_SLOTS);
	free(q);
}
