/*
 * Soak and hostile corpus on the submission queue (fw/submit) and the engine model: thousands of
 * submissions, valid and hostile interleaved, with random priorities. Every completion is checked
 * against the outcome its case must have (valid: done, with the same outputs as a clean reference
 * run; hostile: refused or failed by name in the expected domain), every submission's guard pages
 * are intact (each one is checked, in every batch), the queue serves by priority then FIFO, and
 * the heap in use returns to its starting value. soak=N on the command line sets the count.
 *
 * Flipped bytes come in five forms, each with its own required outcome:
 *   padding    bits flipped only in bytes no TD covers (between TDs, before the weights): done,
 *              with the reference outputs;
 *   end-flag   the last TD's end-of-network bit cleared (its next pointer is 0): refused by the
 *              loader, chain_break;
 *   next-ptr   a bit of TD 0's next pointer flipped (misaligned or past the stream): refused by
 *              the loader, td_range;
 *   out-bar    bit 4 of one TD's WBase index flipped (to a BAR nobody granted): refused by the
 *              policy, bar-absent;
 *   random     1..8 bits anywhere. The outcome may legitimately be any verdict, so it must equal
 *              that of a direct session on the same bytes outside the queue (status, domain,
 *              code, and the outputs when done), be a named code of its domain, and be the
 *              loader's own verdict on the bytes whenever the loader refuses them.
 *
 * s_soak returns a tally instead of failing, so soak.checker_catches_sabotage can show that a
 * damaged guard byte in an early batch and wrong verdicts for flipped bytes are caught.
 */
#include "tests/harness/harness.h"

#include "tests/unit/tsession.h"
#include "fw/ctrl/ctrl.h"
#include "tools/progdesc/progdesc.h"
#include "fw/kunit/kunit.h"
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
	unsigned ntds;
	uint64_t ref; /* outputs of a clean run */
};
static struct s_prog s_progs[S_NPROG];
static struct ldr_program s_lp;

enum s_kind { S_VALID, S_TRUNCATED, S_NO_OUTPUT, S_SHRUNK, S_READ_ONLY, S_FLIPPED, S_FAULT,
	      S_KINDS };
static const char *const s_kind_name[S_KINDS] = {"valid", "truncated", "output-not-granted",
						 "output-shrunk", "output-read-only", "bytes-flipped",
						 "dma-error"};

enum s_flip { F_PADDING, F_END_FLAG, F_NEXT_PTR, F_OUT_BAR, F_RANDOM, F_KINDS };
static const char *const s_flip_name[F_KINDS] = {"padding", "end-flag", "next-ptr", "out-bar",
						 "random"};

/* Wrong answers the handler can be made to give (the checker's self-test). */
enum s_sabotage {
	SAB_NONE,
	SAB_CANARY,       /* one guard byte damaged, in the first batch's first session that runs */
	SAB_FLIP_DONE,    /* every flipped program reported done, with its clean outputs */
	SAB_FLIP_REFUSED, /* every flipped program reported refused by the loader (truncated) */
	SAB_FLIP_NEXT,    /* the loader's verdicts on random flips, reported with the next code */
};

/* The completion a case must get (for random flips: the direct session's). */
struct s_want {
	uint32_t status, domain, code;
};

struct s_case {
	uint8_t kind, prog, priority, flip;
	uint8_t *mut;         /* a mutated copy (freed after the batch) */
	struct s_want want;   /* truncated and flipped: the required completion */
	int ldr_verdict;      /* random flips: the loader's verdict on the bytes (LDR_OK or error) */
	unsigned runs;        /* times the handler ran it */
	int canaries_ok;      /* the session's guard bytes were intact */
};

struct s_run {
	struct s_case c[SUBQ_SLOTS];
	uint32_t base; /* id of c[0] */
	uint64_t hash;
	enum s_sabotage sabotage;
	int damaged;      /* SAB_CANARY: the guard byte was damaged */
};

static uint32_t s_fold(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

static void s_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct s_run *r = ctx;
	(void)is_weights;
	if (!(g->access & POL_WRITE))
		return;
	for (uint64_t i = 0; i < g->size; i++)
		r->hash = (r->hash ^ buf[i]) * 0x100000001b3ull;
	r->hash ^= g->bar;
	if (r->sabotage == SAB_CANARY && r->base == 1 && !r->damaged) {
		((uint8_t *)(uintptr_t)buf)[g->size] ^= 0x5a; /* the guard byte after the output */
		r->damaged = 1;
	}
}

/* One session on the model: its completion, with the outputs as the code when done. */
static void s_session(struct s_run *r, const uint8_t *prog, size_t len,
		      const struct subq_grant *g, unsigned ng, int *canaries_ok,
		      struct subq_completion *c)
{
	struct session_result res;
	struct session_hooks hk = {.fill = NULL, .check = s_check, .ctx = r};
	r->hash = 0xcbf29ce484222325ull;
	tsubmit(prog, len, LDR_F_RAW, g, ng, ng == 0, 0, NULL, NULL, &hk, &res);
	*canaries_ok = res.canaries_ok;
	session_completion(&res, c);
	if (c->status == SUBQ_DONE)
		c->code = s_fold(r->hash); /* the outputs, for the check */
}

static void s_handler(void *vctx, const struct subq_entry *e, struct subq_completion *c)
{
	struct s_run *r = vctx;
	struct s_case *k = &r->c[e->id - r->base];
	if (k->kind == S_FAULT) {
		struct anem_faults f = {ANEM_FAULT_DMA_ERROR, 3, 1, 0};
		anem_set_faults(tsession_model(), &f);
	}
	s_session(r, (const uint8_t *)(uintptr_t)e->program, (size_t)e->program_len, e->grants,
		  e->ngrants, &k->canaries_ok, c);
	anem_set_faults(tsession_model(), NULL);
	k->runs++;
	if (k->kind == S_FLIPPED) {
		const struct s_prog *p = &s_progs[k->prog];
		if (r->sabotage == SAB_FLIP_DONE)
			*c = (struct subq_completion){c->id, SUBQ_DONE, SUBQ_DOM_NONE, s_fold(p->ref)};
		if (r->sabotage == SAB_FLIP_REFUSED)
			*c = (struct subq_completion){c->id, SUBQ_REFUSED, SUBQ_DOM_LOADER,
						      LDR_E_TRUNCATED};
		if (r->sabotage == SAB_FLIP_NEXT && c->domain == SUBQ_DOM_LOADER)
			c->code++;
	}
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
		/* the layout the flips rely on: TDs of PD_TD_BYTES at a PD_TD_STRIDE stride, the
		 * last one with a null next pointer, weights at the 16-byte boundary after it */
		p->ntds = s_lp.ntds;
		if (p->ntds < 2 || p->ntds != d.nlayers ||
		    s_lp.weights_off != (p->ntds - 1) * PD_TD_STRIDE + ((PD_TD_BYTES + 15) & ~15u))
			return 0;
		for (unsigned t = 0; t < p->ntds; t++)
			if (s_lp.tds[t].off != t * PD_TD_STRIDE || s_lp.tds[t].size != PD_TD_BYTES ||
			    s_lp.tds[t].h.eon != (t + 1 == p->ntds) ||
			    s_lp.tds[t].h.next_ptr != (t + 1 == p->ntds ? 0 : (t + 1) * PD_TD_STRIDE))
				return 0;
		if (ctrl_default_grants(&s_lp, p->g, SUBQ_MAX_GRANTS, &p->ng, &st) != CTRL_OK ||
		    p->ng == 0)
			return 0;
		/* no grant at the BARs the out-bar flips write */
		for (unsigned g = 0; g < p->ng; g++)
			if (p->g[g].bar >= PD_FIRST_OUTPUT_BAR + 16)
				return 0;
		static struct s_run r;
		struct subq_completion c;
		int ok;
		s_session(&r, p->buf, p->len, p->g, p->ng, &ok, &c);
		if (c.status != SUBQ_DONE || !ok)
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

/* The offset of padding byte i (bytes no TD covers, in program order); P in all. */
static size_t s_pad_offset(const struct s_prog *p, size_t i)
{
	size_t gap = PD_TD_STRIDE - PD_TD_BYTES;
	if (i < (p->ntds - 1) * gap)
		return (i / gap) * PD_TD_STRIDE + PD_TD_BYTES + i % gap;
	return (p->ntds - 1) * PD_TD_STRIDE + PD_TD_BYTES + (i - (p->ntds - 1) * gap);
}

static size_t s_pad_bytes(const struct s_prog *p)
{
	return (p->ntds - 1) * (PD_TD_STRIDE - PD_TD_BYTES) +
	       (((PD_TD_BYTES + 15) & ~15u) - PD_TD_BYTES);
}

static void s_flip_bit(uint8_t *b, size_t off, unsigned bit)
{
	b[off] ^= (uint8_t)(1u << bit);
}

/* Mutates k->mut by k->flip and sets the completion it must get. */
static void s_flip(struct s_case *k, const struct s_prog *p, const struct subq_entry *e)
{
	uint8_t *m = k->mut;
	switch (k->flip) {
	case F_PADDING: {
		unsigned nflip = 1 + (unsigned)(test_rand() % 8);
		for (unsigned f = 0; f < nflip; f++) {
			/* one draw per statement: the same flips on every compiler */
			size_t at = s_pad_offset(p, test_rand() % s_pad_bytes(p));
			s_flip_bit(m, at, (unsigned)(test_rand() % 8));
		}
		k->want = (struct s_want){SUBQ_DONE, SUBQ_DOM_NONE, s_fold(p->ref)};
		break;
	}
	case F_END_FLAG: /* header word 0, bit 25 */
		s_flip_bit(m, (p->ntds - 1) * PD_TD_STRIDE + 3, 1);
		k->want = (struct s_want){SUBQ_REFUSED, SUBQ_DOM_LOADER, LDR_E_CHAIN_BREAK};
		break;
	case F_NEXT_PTR: { /* header word 7: bit 0 or 1 (misaligned), or 16..30 (past the stream) */
		unsigned b = (unsigned)(test_rand() % 17);
		b = b < 2 ? b : b + 14;
		s_flip_bit(m, 28 + b / 8, b % 8);
		k->want = (struct s_want){SUBQ_REFUSED, SUBQ_DOM_LOADER, LDR_E_TD_RANGE};
		break;
	}
	case F_OUT_BAR: /* header word 8, bits 12-16: WBase; bit 16 is its bit 4 */
		s_flip_bit(m, (size_t)(test_rand() % p->ntds) * PD_TD_STRIDE + 32 + 2, 0);
		k->want = (struct s_want){SUBQ_REFUSED, SUBQ_DOM_POLICY, POL_E_BAR_ABSENT};
		break;
	default: {
		unsigned nflip = 1 + (unsigned)(test_rand() % 8);
		for (unsigned f = 0; f < nflip; f++) {
			size_t at = test_rand() % p->len;
			s_flip_bit(m, at, (unsigned)(test_rand() % 8));
		}
		/* the required outcome: a direct session on the same bytes, outside the queue */
		static struct s_run ref;
		struct subq_completion c;
		int ok;
		s_session(&ref, m, p->len, e->grants, e->ngrants, &ok, &c);
		k->want = (struct s_want){c.status, c.domain, c.code};
		k->ldr_verdict = ldr_load(m, p->len, LDR_F_RAW, &s_lp);
		break;
	}
	}
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
		/* shorter than a TD header: truncated; else the first TD runs past the end */
		e->program_len = 1 + test_rand() % (PD_TD_BYTES - 1);
		k->want = (struct s_want){SUBQ_REFUSED, SUBQ_DOM_LOADER,
					  e->program_len < rm_gen_by_number(13)->td_header_bytes
						  ? LDR_E_TRUNCATED
						  : LDR_E_TD_RANGE};
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
	case S_FLIPPED:
		k->mut = malloc(p->len);
		if (!k->mut)
			return 0;
		memcpy(k->mut, p->buf, p->len);
		s_flip(k, p, e);
		e->program = (uint64_t)(uintptr_t)k->mut;
		break;
	default:
		break;
	}
	return 1;
}

/* A code that names an error of its domain (for random flips, whose verdict is not fixed). */
static int s_named(const struct subq_completion *c)
{
	switch (c->status) {
	case SUBQ_DONE:
		return c->domain == SUBQ_DOM_NONE;
	case SUBQ_REFUSED:
		if (c->domain == SUBQ_DOM_LOADER)
			return c->code > LDR_OK && c->code < LDR_E__COUNT;
		if (c->domain == SUBQ_DOM_KUNIT)
			return c->code > KU_OK && c->code < KU_E__COUNT;
		/* a pol_err in the policy domain, a td_err in fw/td's, a ctrl_err in the control
		 * path's own */
		if (c->domain == SUBQ_DOM_POLICY)
			return c->code > 0 && c->code < (unsigned)POL_E__COUNT;
		if (c->domain == SUBQ_DOM_TD)
			return c->code > TD_OK && c->code < TD_E__COUNT;
		return c->domain == SUBQ_DOM_CTRL && c->code > 0 && c->code < (unsigned)CTRL_E__COUNT &&
		       c->code != CTRL_E_POLICY && c->code != CTRL_E_KUNIT && c->code != CTRL_E_TD;
	case SUBQ_FAILED:
		return c->domain == SUBQ_DOM_ENGINE && c->code > 0 &&
		       strcmp(eng_err_name((int)c->code), eng_err_name(1000)) != 0;
	default:
		return 0;
	}
}

/* Checks one completion against its case; returns 1 when as expected. */
static int s_expected(const struct s_case *k, const struct subq_completion *c)
{
	const struct s_prog *p = &s_progs[k->prog];
	switch (k->kind) {
	case S_VALID:
		return c->status == SUBQ_DONE && c->code == s_fold(p->ref);
	case S_TRUNCATED:
		return c->status == k->want.status && c->domain == k->want.domain &&
		       c->code == k->want.code;
	case S_NO_OUTPUT:
		return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_POLICY &&
		       c->code == POL_E_BAR_ABSENT;
	case S_SHRUNK:
		return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_POLICY &&
		       c->code == POL_E_OUT_OF_BUFFER;
	case S_READ_ONLY:
		return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_POLICY &&
		       c->code == POL_E_ACCESS;
	case S_FAULT:
		return c->status == SUBQ_FAILED && c->domain == SUBQ_DOM_ENGINE &&
		       c->code == (uint32_t)ENG_E_DMA;
	case S_FLIPPED:
		if (c->status != k->want.status || c->domain != k->want.domain ||
		    c->code != k->want.code)
			return 0;
		if (k->flip != F_RANDOM)
			return 1;
		if (!s_named(c))
			return 0;
		/* the loader refuses exactly the bytes it refuses on its own, by the same name */
		if (k->ldr_verdict != LDR_OK)
			return c->status == SUBQ_REFUSED && c->domain == SUBQ_DOM_LOADER &&
			       c->code == (uint32_t)k->ldr_verdict;
		return c->domain != SUBQ_DOM_LOADER;
	default:
		return 0;
	}
}

struct s_tally {
	unsigned total;
	unsigned counts[S_KINDS], flips[F_KINDS], verdicts[3];
	unsigned bad[S_KINDS];    /* completions not as their case requires, by kind */
	unsigned bad_flip[F_KINDS];
	unsigned bad_canary;      /* submissions whose guard bytes were damaged */
	unsigned bad_runs;        /* submissions not handled exactly once */
	unsigned stray, lost;     /* completions for no case, cases without a completion */
	unsigned order_bad, dropped, batches;
	size_t heap0, heap1;
	int setup_ok;
};

/* Runs total submissions in batches of a full queue. flips_only: every case is bytes-flipped,
 * the forms taken in turn. quiet: no failure details printed (the self-test). */
static void s_soak(unsigned total, enum s_sabotage sabotage, int flips_only, int quiet,
		   struct s_tally *t)
{
	static struct subq q;
	static struct s_run r;
	static struct subq_entry e;
	memset(t, 0, sizeof *t);
	t->total = total;
	t->setup_ok = s_setup();
	if (!t->setup_ok)
		return;
	t->heap0 = heap_in_use();
	subq_init(&q);
	uint32_t id = 1;
	unsigned done = 0, shown = 0;
	while (done < total) {
		/* a batch fills the queue: every slot, each with its completion */
		unsigned n = total - done < SUBQ_SLOTS ? total - done : SUBQ_SLOTS;
		memset(&r, 0, sizeof r);
		r.base = id;
		r.sabotage = sabotage;
		for (unsigned i = 0; i < n; i++) {
			struct s_case *k = &r.c[i];
			uint64_t x = test_rand();
			unsigned sel = (unsigned)(x % 16);
			/* half valid; the rest spread over the hostile kinds */
			k->kind = sel < 8 ? S_VALID : (uint8_t)(1 + (sel - 8) % (S_KINDS - 1));
			k->prog = (uint8_t)((x >> 8) % S_NPROG);
			k->priority = (uint8_t)((x >> 16) % (SUBQ_MAX_PRIORITY + 1));
			if (flips_only)
				k->kind = S_FLIPPED;
			k->flip = (uint8_t)(flips_only ? (done + i) % F_KINDS : (x >> 24) % F_KINDS);
			if (!s_make(k, &e, id) || subq_submit(&q, &e) != SUBQ_OK) {
				t->setup_ok = 0;
				for (unsigned j = 0; j <= i; j++)
					free(r.c[j].mut);
				return;
			}
			t->counts[k->kind]++;
			if (k->kind == S_FLIPPED)
				t->flips[k->flip]++;
			id++;
		}
		t->lost += n - subq_run(&q, s_handler, &r);
		struct subq_completion c;
		unsigned got = 0, last_pri = SUBQ_MAX_PRIORITY + 1;
		uint32_t last_id = 0;
		while (subq_reap(&q, &c) == SUBQ_OK) {
			got++;
			if (c.id < r.base || c.id - r.base >= n) {
				t->stray++;
				continue;
			}
			const struct s_case *k = &r.c[c.id - r.base];
			if (c.status < 3)
				t->verdicts[c.status]++;
			if (!s_expected(k, &c)) {
				if (!quiet && shown++ < 5)
					printf("  id %lu (%s%s%s, program %u): status %lu domain %lu code %lu, "
					       "want status %lu domain %lu code %lu\n",
					       (unsigned long)c.id, s_kind_name[k->kind],
					       k->kind == S_FLIPPED ? " " : "",
					       k->kind == S_FLIPPED ? s_flip_name[k->flip] : "", k->prog,
					       (unsigned long)c.status, (unsigned long)c.domain,
					       (unsigned long)c.code, (unsigned long)k->want.status,
					       (unsigned long)k->want.domain, (unsigned long)k->want.code);
				t->bad[k->kind]++;
				if (k->kind == S_FLIPPED)
					t->bad_flip[k->flip]++;
			}
			/* highest priority first, FIFO within a priority */
			if (k->priority > last_pri || (k->priority == last_pri && c.id < last_id))
				t->order_bad++;
			last_pri = k->priority;
			last_id = c.id;
		}
		if (got < n)
			t->lost += n - got;
		/* every submission of the batch: run once, its guard bytes intact */
		for (unsigned i = 0; i < n; i++) {
			t->bad_runs += r.c[i].runs != 1;
			t->bad_canary += r.c[i].runs && !r.c[i].canaries_ok;
			free(r.c[i].mut);
		}
		done += n;
		t->batches++;
	}
	t->dropped = q.dropped;
	t->heap1 = heap_in_use();
}

static unsigned s_sum(const unsigned *v, unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return s;
}

TEST(soak, queue_valid_and_hostile_interleaved)
{
	const char *a = test_arg("soak");
	unsigned n = a ? (unsigned)strtoul(a, NULL, 10) : 4000u;
	static struct s_tally t;
	s_soak(n ? n : 1u, SAB_NONE, 0, 0, &t);
	REQUIRE(t.setup_ok);
	for (unsigned k = 0; k < S_KINDS; k++)
		CHECKF(t.bad[k] == 0, "%u %s submissions not as required", t.bad[k], s_kind_name[k]);
	for (unsigned f = 0; f < F_KINDS; f++)
		CHECKF(t.bad_flip[f] == 0, "%u bytes-flipped (%s) submissions not as required",
		       t.bad_flip[f], s_flip_name[f]);
	CHECK_EQ(t.bad_canary, 0u);
	CHECK_EQ(t.bad_runs, 0u);
	CHECK_EQ(t.stray, 0u);
	CHECK_EQ(t.lost, 0u);
	CHECK_EQ(t.order_bad, 0u);
	CHECK_EQ(t.dropped, 0u);
	CHECK_EQ(s_sum(t.verdicts, 3), t.total);
	CHECK(t.counts[S_VALID] > 0 && t.counts[S_FAULT] > 0 && t.counts[S_FLIPPED] > 0);
	if (t.total >= 1000)
		for (unsigned f = 0; f < F_KINDS; f++)
			CHECKF(t.flips[f] > 0, "no bytes-flipped (%s) case in %u submissions",
			       s_flip_name[f], t.total);
	CHECK_EQ((unsigned long)t.heap1, (unsigned long)t.heap0);
	printf("# soak: %u submissions (valid %u, truncated %u, output-not-granted %u, "
	       "output-shrunk %u, output-read-only %u, bytes-flipped %u [padding %u, end-flag %u, "
	       "next-ptr %u, out-bar %u, random %u], dma-error %u); done %u, refused %u, failed %u; "
	       "heap %lu -> %lu bytes\n",
	       t.total, t.counts[0], t.counts[1], t.counts[2], t.counts[3], t.counts[4], t.counts[5],
	       t.flips[0], t.flips[1], t.flips[2], t.flips[3], t.flips[4], t.counts[6],
	       t.verdicts[0], t.verdicts[1], t.verdicts[2], (unsigned long)t.heap0,
	       (unsigned long)t.heap1);
}

/* The soak's checker fails on wrong answers: each sabotage must be caught, where it belongs. */
TEST(soak, checker_catches_sabotage)
{
	static struct s_tally t;
	/* a damaged guard byte in the first batch of three (the old check saw only the last) */
	s_soak(3 * SUBQ_SLOTS, SAB_CANARY, 0, 1, &t);
	REQUIRE(t.setup_ok);
	CHECK_EQ(t.batches, 3u);
	CHECK_EQ(t.bad_canary, 1u);
	CHECK_EQ(t.bad_runs + t.lost + t.stray, 0u);
	/* every flipped program said to be done with its clean outputs: the end-flag, next-ptr and
	 * out-bar flips must be refused, so those are caught; padding ones are right */
	s_soak(4 * F_KINDS, SAB_FLIP_DONE, 1, 1, &t);
	REQUIRE(t.setup_ok);
	CHECK_EQ(t.bad_flip[F_PADDING], 0u);
	CHECK_EQ(t.bad_flip[F_END_FLAG], 4u);
	CHECK_EQ(t.bad_flip[F_NEXT_PTR], 4u);
	CHECK_EQ(t.bad_flip[F_OUT_BAR], 4u);
	CHECK_EQ(t.bad_canary, 0u);
	/* every flipped program said to be refused as truncated: every form is caught */
	s_soak(4 * F_KINDS, SAB_FLIP_REFUSED, 1, 1, &t);
	REQUIRE(t.setup_ok);
	for (unsigned f = 0; f < F_KINDS; f++)
		CHECKF(t.bad_flip[f] == 4u, "%s: %u of 4 caught", s_flip_name[f], t.bad_flip[f]);
	/* the loader's refusals reported under the wrong name: caught for every form the loader
	 * refuses (end-flag and next-ptr always; random ones whenever the loader refused them) */
	s_soak(8 * F_KINDS, SAB_FLIP_NEXT, 1, 1, &t);
	REQUIRE(t.setup_ok);
	CHECK_EQ(t.bad_flip[F_PADDING], 0u);
	CHECK_EQ(t.bad_flip[F_END_FLAG], 8u);
	CHECK_EQ(t.bad_flip[F_NEXT_PTR], 8u);
	CHECK_EQ(t.bad_flip[F_OUT_BAR], 0u);
	CHECK(t.bad_flip[F_RANDOM] > 0);
	/* and without sabotage the same runs are clean */
	s_soak(8 * F_KINDS, SAB_NONE, 1, 1, &t);
	REQUIRE(t.setup_ok);
	CHECK_EQ(s_sum(t.bad, S_KINDS) + t.bad_canary + t.bad_runs + t.lost + t.stray, 0u);
}
