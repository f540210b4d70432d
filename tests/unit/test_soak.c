/*
 * Soak and hostile corpus on the submission queue (fw/submit) and the engine model: thousands of
 * submissions, valid and hostile interleaved, with random priorities. Every completion is checked
 * (valid: done, with the same outputs as a clean reference run; hostile: refused or failed in the
 * expected domain), every run's guard pages are intact, the queue serves by priority then FIFO,
 * and the heap in use returns to its starting value. soak=N on the command line sets the count.
 */
#include "tests/harness/harness.h"

#include "tests/unit/tsession.h"
#include "fw/ctrl/ctrl.h"
#include "tools/progdesc/progdesc.h"
#include "fw/submit/queue.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	return mallinfo2().uordblks;
#else
	return (size_t)mallinfo().uordblks;
#endif
}

#define S_NPROG 3
static const char *const s_desc[S_NPROG] = {
	"input w=32 h=2 c=16\nlayer int8 cout=16\nactivation relu\n",
	"input w=16 h=4 c=8\nlayer palette2 cout=8\nlayer sparse density=50 cout=8\n",
	"input w=32 h=2 c=16\nlayer palette4 cout=32\nlayer sparse density=37 cout=16\n"
	"layer int8 cout=32\nactivation relu6\n",
};

struct s_prog {
	uint8_t buf[0x4000];
	size_t len;
	struct subq_grant g[SUBQ_MAX_GRANTS];
	unsigned ng;
	uint64_t ref; /* outputs of a clean run */
};
static struct s_prog s_progs[S_NPROG];
static struct ldr_program s_lp;

enum s_kind { S_VALID, S_TRUNCATED, S_NO_OUTPUT, S_SHRUNK, S_READ_ONLY, S_FLIPPED, S_FAULT,
	      S_KINDS };
static const char *const s_kind_name[S_KINDS] = {"valid", "truncated", "output-not-granted",
						 "output-shrunk", "output-read-only", "bytes-flipped",
						 "dma-error"};

struct s_case {
	uint8_t kind, prog, priority;
	uint8_t *mut; /* a mutated copy (freed after the batch) */
};

struct s_run {
	struct s_case c[SUBQ_SLOTS];
	uint32_t base; /* id of c[0] */
	uint64_t hash;
	unsigned bad_canary, ran;
};

static void s_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct s_run *r = ctx;
	(void)is_weights;
	if (!(g->access & POL_WRITE))
		return;
	for (uint64_t i = 0; i < g->size; i++)
		r->hash = (r->hash ^ buf[i]) * 0x100000001b3ull;
	r->hash ^= g->bar;
}

static void s_handler(void *vctx, const struct subq_entry *e, struct subq_completion *c)
{
	struct s_run *r = vctx;
	const struct s_case *k = &r->c[e->id - r->base];
	struct anes_result res;
	struct anes_hooks hk = {NULL, s_check, r};
	r->hash = 0xcbf29ce484222325ull;
	if (k->kind == S_FAULT) {
		struct anem_faults f = {ANEM_FAULT_DMA_ERROR, 3, 1, 0};
		anem_set_faults(anes_model(), &f);
	}
	tsubmit((const uint8_t *)(uintptr_t)e->program, (size_t)e->program_len, LDR_F_RAW,
			  e->grants, e->ngrants, e->ngrants == 0, 0, NULL, NULL, &hk, &res);
	anem_set_faults(anes_model(), NULL);
	r->ran++;
	if (!res.canaries_ok)
		r->bad_canary++;
	anes_completion(&res, c);
	if (c->status == SUBQ_DONE)
		c->code = (uint32_t)(r->hash ^ (r->hash >> 32)); /* the outputs, for the check */
}

static int s_setup(void)
{
	for (unsigned i = 0; i < S_NPROG; i++) {
		struct s_prog *p = &s_progs[i];
		struct pd_desc d;
		unsigned line;
		struct ctrl_status st;
		if (pd_parse(s_desc[i], strlen(s_desc[i]), &d, &line) != PD_OK ||
		    pd_build(&d, p->buf, sizeof p->buf, &p->len) != PD_OK ||
		    ldr_load(p->buf, p->len, LDR_F_RAW, &s_lp) != LDR_OK)
			return 0;
		int n = ctrl_default_grants(&s_lp, p->g, SUBQ_MAX_GRANTS, &st);
		if (n <= 0)
			return 0;
		p->ng = (unsigned)n;
		static struct s_run r;
		struct anes_result res;
		struct anes_hooks hk = {NULL, s_check, &r};
		r.hash = 0xcbf29ce484222325ull;
		if (tsubmit(p->buf, p->len, LDR_F_RAW, p->g, p->ng, 0, 0, NULL, NULL, &hk,
				      &res) != 0)
			return 0;
		p->ref = r.hash;
	}
	return 1;
}

/* index of the first grant with write access */
static int s_output(const struct s_prog *p)
{
	for (unsigned i = 0; i < p->ng; i++)
		if (p->g[i].access & POL_WRITE)
			return (int)i;
	return -1;
}

/* Builds the entry of a case; 0 when it cannot (out of memory). */
static int s_make(struct s_case *k, struct subq_entry *e, uint32_t id)
{
	const struct s_prog *p = &s_progs[k->prog];
	memset(e, 0, sizeof *e);
	e->id = id;
	e->priority = k->priority;
	e->queue = (uint8_t)(id % SUBQ_MAX_QUEUES);
	e->program = (uint64_t)(uintptr_t)p->buf;
	e->program_len = p->len;
	memcpy(e->grants, p->g, p->ng * sizeof p->g[0]);
	e->ngrants = (uint16_t)p->ng;
	int o = s_output(p);
	switch (k->kind) {
	case S_TRUNCATED:
		e->program_len = 1 + test_rand() % (PD_TD_BYTES - 1);
		break;
	case S_NO_OUTPUT:
		e->grants[o] = e->grants[p->ng - 1];
		e->ngrants--;
		break;
	case S_SHRUNK:
		e->grants[o].size -= 4 + 4 * (test_rand() % (e->grants[o].size / 8));
		break;
	case S_READ_ONLY:
		e->grants[o].access = POL_READ;
		break;
	case S_FLIPPED: {
		k->mut = malloc(p->len);
		if (!k->mut)
			return 0;
		memcpy(k->mut, p->buf, p->len);
		unsigned nflip = 1 + (unsigned)(test_rand() % 8);
		for (unsigned f = 0; f < nflip; f++)
			k->mut[test_rand() % p->len] ^= (uint8_t)(1u << (test_rand() % 8));
		e->program = (uint64_t)(uintptr_t)k->mut;
		break;
	}
	default:
		break;
	}
	return 1;
}

/* Checks one completion against its case; returns 1 when as expected. */
static int s_expected(const struct s_case *k, const struct subq_completion *c)
{
	const struct s_prog *p = &s_progs[k->prog];
	switch (k->kind) {
	case S_VALID:
		return c->status == SUBQ_DONE && c->code == (uint32_t)(p->ref ^ (p->ref >> 32));
	case S_TRUNCATED:
		return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_LOADER;
	case S_NO_OUTPUT:
		return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_POLICY &&
		       c->code == POL_ERR_BAR_ABSENT;
	case S_SHRUNK:
		return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_POLICY &&
		       c->code == POL_ERR_OUT_OF_BUFFER;
	case S_READ_ONLY:
		return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_POLICY &&
		       c->code == POL_ERR_ACCESS;
	case S_FAULT:
		return c->status == SUBQ_FAILED && c->domain == SUBQ_DOM_ENGINE &&
		       c->code == (uint32_t)-ENG_E_DMA;
	default: /* flipped bytes: any verdict, as long as it is one (checked by the caller) */
		return c->status <= SUBQ_FAILED;
	}
}

static void s_soak(unsigned total)
{
	static struct subq q;
	static struct s_run r;
	static struct subq_entry e;
	unsigned counts[S_KINDS] = {0}, verdicts[3] = {0};
	REQUIRE(s_setup());
	size_t heap0 = heap_in_use();
	subq_init(&q);
	uint32_t id = 1;
	unsigned done = 0, bad = 0, order_bad = 0;
	while (done < total) {
		/* a batch fills the queue: every slot, each with its completion */
		unsigned n = total - done < SUBQ_SLOTS ? total - done : SUBQ_SLOTS;
		memset(&r, 0, sizeof r);
		r.base = id;
		for (unsigned i = 0; i < n; i++) {
			struct s_case *k = &r.c[i];
			uint64_t x = test_rand();
			unsigned sel = (unsigned)(x % 16);
			/* half valid; the rest spread over the hostile kinds */
			k->kind = sel < 8 ? S_VALID : (uint8_t)(1 + (sel - 8) % (S_KINDS - 1));
			k->prog = (uint8_t)((x >> 8) % S_NPROG);
			k->priority = (uint8_t)((x >> 16) % (SUBQ_MAX_PRIORITY + 1));
			REQUIRE(s_make(k, &e, id));
			REQUIRE(subq_submit(&q, &e) == SUBQ_OK);
			counts[k->kind]++;
			id++;
		}
		CHECK_EQ(subq_run(&q, s_handler, &r), n);
		struct subq_completion c;
		unsigned got = 0, last_pri = SUBQ_MAX_PRIORITY + 1;
		uint32_t last_id = 0;
		while (subq_reap(&q, &c) == SUBQ_OK) {
			got++;
			if (c.id < r.base || c.id - r.base >= n) {
				bad++;
				continue;
			}
			const struct s_case *k = &r.c[c.id - r.base];
			if (c.status < 3)
				verdicts[c.status]++;
			if (!s_expected(k, &c)) {
				if (bad < 5)
					test_fail_at(__FILE__, __LINE__,
						     "id %lu (%s, program %u): status %lu domain %lu code %lu",
						     (unsigned long)c.id, s_kind_name[k->kind], k->prog,
						     (unsigned long)c.status, (unsigned long)c.domain,
						     (unsigned long)c.code);
				bad++;
			}
			/* highest priority first, FIFO within a priority */
			if (k->priority > last_pri || (k->priority == last_pri && c.id < last_id))
				order_bad++;
			last_pri = k->priority;
			last_id = c.id;
		}
		CHECK_EQ(got, n);
		for (unsigned i = 0; i < n; i++)
			free(r.c[i].mut);
		done += n;
	}
	CHECK_EQ(bad, 0u);
	CHECK_EQ(order_bad, 0u);
	CHECK_EQ(r.bad_canary, 0u);
	CHECK_EQ(q.dropped, 0u);
	CHECK(counts[S_VALID] > 0 && counts[S_FAULT] > 0 && counts[S_FLIPPED] > 0);
	size_t heap1 = heap_in_use();
	CHECK_EQ((unsigned long)heap1, (unsigned long)heap0);
	printf("# soak: %u submissions (valid %u, truncated %u, output-not-granted %u, "
	       "output-shrunk %u, output-read-only %u, bytes-flipped %u, dma-error %u); "
	       "done %u, refused %u, failed %u; heap %lu -> %lu bytes\n",
	       total, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6],
	       verdicts[0], verdicts[1], verdicts[2], (unsigned long)heap0, (unsigned long)heap1);
}

TEST(soak, queue_valid_and_hostile_interleaved)
{
	const char *a = test_arg("soak");
	unsigned n = a ? (unsigned)strtoul(a, NULL, 10) : 4000u;
	s_soak(n ? n : 1u);
}
