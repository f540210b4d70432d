/*
 * The command service on the engine (app/service.c over the session's engine model): a
 * scripted host session through the shared rings, on the host and on the target. Three
 * programs loaded once; over a hundred calls with BAR overrides and mixed priorities complete in
 * priority order, first in first out within a level, with the outputs of the program's own
 * run; chained calls, events, unknown commands, oversized and truncated records, calls to an
 * unloaded program, and a call hung by fault injection and aborted by its deadline. Afterwards
 * the service still serves, every command has exactly one completion and no guard byte of the
 * device arena changed.
 */
#include "tests/harness/harness.h"
#include "tests/unit/tcmd.h"
#include "tests/unit/tsession.h"
#include "app/service.h"
#include "app/session.h"
#include "tools/progdesc/benchprog.h"
#include "tools/progdesc/progdesc.h"

#include <stdlib.h>
#include <string.h>

static const char *const s_desc[3] = {
	"input w=32 h=2 c=16\nlayer int8 cout=16\n",
	"input w=32 h=2 c=16\nlayer palette4 cout=16\nactivation relu\n",
	"input w=32 h=2 c=16\nlayer palette4 cin=16 cout=32\nlayer sparse density=37 cout=16\n"
	"layer int8 cout=32\nactivation relu6\n",
};

#define S_PROG_AT 0x80000u  /* programs sit in the upper half of the window */
#define S_MAX_TAGS 1024u

static struct asvc *s_a;
static struct svc *s_s;
static struct cmd_shm *s_m;
static uint8_t *s_win;
static uint64_t s_wdev, s_wsize;
static uint8_t s_count[S_MAX_TAGS]; /* completions per tag */
static struct cmd_completion s_last[S_MAX_TAGS];
static struct cmd_completion s_order[S_MAX_TAGS];
static unsigned s_norder;
static uint32_t s_next_tag;
static unsigned s_posted;

static uint32_t tag(void)
{
	return s_next_tag++;
}

/* Polls until every posted command is answered (bounded); records each completion. */
static unsigned drain(void)
{
	unsigned got = 0;
	struct cmd_completion c;
	for (unsigned i = 0; i < 200000; i++) {
		svc_poll(s_s);
		while (cmd_host_reap(s_m, &c) == CMD_RING_OK) {
			if (c.tag < S_MAX_TAGS) {
				s_count[c.tag]++;
				s_last[c.tag] = c;
			}
			if (s_norder < S_MAX_TAGS)
				s_order[s_norder++] = c;
			got++;
		}
		if (s_s->st.completed == s_s->st.accepted && s_m->h2f.head == s_m->h2f.tail)
			break;
	}
	return got;
}

static int post(const struct cmd *c)
{
	int r = tc_post(s_m, c);
	if (!r)
		s_posted++;
	return r;
}

/* One command, answered: its completion. */
static struct cmd_completion one(struct cmd *c)
{
	c->h.tag = tag();
	if (post(c)) {
		struct cmd_completion z;
		memset(&z, 0xff, sizeof z);
		return z;
	}
	drain();
	return s_last[c->h.tag];
}

static size_t build(unsigned k, uint8_t *out, size_t cap)
{
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	if (pd_parse(s_desc[k], strlen(s_desc[k]), &d, &line) != PD_OK ||
	    pd_build(&d, out, cap, &len) != PD_OK)
		return 0;
	return len;
}

static uint64_t fnv(const uint8_t *b, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

struct sprog {
	int32_t id;
	unsigned slot;
	unsigned out_bar;  /* the last written BAR: the program's output */
	uint64_t in_need, out_need;
	uint64_t ref;      /* hash of the output of a plain call */
};
static struct sprog s_p[3];

/* The program's own buffer at a BAR. */
static uint8_t *own(const struct sprog *p, unsigned bar)
{
	const struct svc_bar *b = &s_s->prog[p->slot].info.bar[bar];
	return asvc_cpu(s_a, b->base, b->need);
}

/* Bump allocation in the lower half of the window (engine addresses). */
static uint64_t s_bump;
static uint64_t walloc(uint64_t n)
{
	uint64_t at = s_bump;
	s_bump += (n + 63) & ~63ull;
	return s_bump <= S_PROG_AT ? s_wdev + at : 0;
}

/* The input pattern the service fills a program's inputs with (app/session.c session_pattern,
 * whose bytes model_simd checks against their definition) at salt 0; another input at another
 * salt (the pattern of BAR bar + salt). */
static void pattern(uint8_t *b, uint64_t n, unsigned bar, unsigned salt)
{
	session_pattern(b, n, bar + salt);
}

/* A fresh service (options o) made ready, with the handshake done: 1 when it answered ok. */
static int s_open(const struct asvc_opts *o)
{
	memset(s_count, 0, sizeof s_count);
	s_norder = 0;
	s_next_tag = 1;
	s_posted = 0;
	s_a = asvc_create(tsession(), o);
	if (!s_a)
		return 0;
	s_s = asvc_svc(s_a);
	s_m = asvc_shm(s_a);
	s_win = asvc_window(s_a, &s_wdev, &s_wsize);
	svc_ready(s_s);
	struct cmd c;
	tc_cmd(&c, CMD_HELLO, -1, 0, 0);
	c.major = CMD_PROTO_MAJOR;
	c.minor = CMD_PROTO_MINOR;
	return one(&c).err == CMD_OK;
}

TEST(cmd_session, scripted_session_on_the_engine)
{
	memset(s_count, 0, sizeof s_count);
	s_norder = 0;
	s_next_tag = 1;
	s_posted = 0;
	s_bump = 0;
	const struct asvc_opts o = {0, 0, 0, 100000, 0, 0};
	s_a = asvc_create(tsession(), &o);
	REQUIRE(s_a != NULL);
	s_s = asvc_svc(s_a);
	s_m = asvc_shm(s_a);
	s_win = asvc_window(s_a, &s_wdev, &s_wsize);
	struct cmd c;
	struct cmd_completion r;

	/* commands before ready are refused; the handshake opens the channel */
	tc_cmd(&c, CMD_QUERY, -1, 0, 0);
	CHECK_EQ(one(&c).err, CMD_E_NOT_READY);
	CHECK_EQ(s_m->table.ready, 0);
	svc_ready(s_s);
	CHECK_EQ(s_m->table.ready, 1);
	tc_cmd(&c, CMD_HELLO, -1, 0, 0);
	c.major = CMD_PROTO_MAJOR;
	c.minor = CMD_PROTO_MINOR;
	CHECK_EQ(one(&c).err, CMD_OK);
	tc_cmd(&c, CMD_QUERY, -1, 0, 0);
	r = one(&c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[CMD_Q_TICK_HZ], ASVC_TICK_HZ);

	/* three programs, loaded once */
	uint64_t at = S_PROG_AT;
	for (unsigned k = 0; k < 3; k++) {
		size_t len = build(k, s_win + at, s_wsize - at);
		REQUIRE(len > 0);
		tc_load(&c, s_wdev + at, len, CMD_LOAD_F_RAW, 0);
		r = one(&c);
		CHECKF(r.err == CMD_OK, "load %u: %s (domain %u code %u)", k, cmd_err_name(r.err),
		       r.domain, r.code);
		REQUIRE(r.err == CMD_OK);
		struct sprog *p = &s_p[k];
		p->id = (int32_t)r.data[0];
		p->slot = (unsigned)svc_slot_of(s_s, p->id);
		const struct svc_prog *info = &s_s->prog[p->slot].info;
		REQUIRE(info->used >> PD_INPUT_BAR & 1u);
		for (unsigned b = 0; b < CMD_NBARS; b++)
			if ((info->used >> b & 1u) && (info->bar[b].access & CMD_ACC_WRITE))
				p->out_bar = b;
		p->in_need = info->bar[PD_INPUT_BAR].need;
		p->out_need = info->bar[p->out_bar].need;
		/* PROGRAM_INFO tells the host the same */
		tc_cmd(&c, CMD_PROGRAM_INFO, p->id, 0, 0);
		c.bar = p->out_bar;
		r = one(&c);
		CHECK_EQ(r.err, CMD_OK);
		CHECK_EQ(r.data[3], p->out_need);
		CHECK_EQ(r.data[2] & CMD_ACC_WRITE, CMD_ACC_WRITE);
		CHECK(r.data[1] >> PD_WEIGHTS_BAR & 1u); /* the weights cannot be rebound */
		/* the reference: a plain call on the program's own buffers */
		tc_cmd(&c, CMD_CALL, p->id, 4, 0);
		r = one(&c);
		CHECKF(r.err == CMD_OK, "call %u: %s", k, cmd_err_name(r.err));
		p->ref = fnv(own(p, p->out_bar), p->out_need);
		at += (len + 0xfff) & ~0xfffull;
	}
	CHECK(s_p[0].ref != s_p[1].ref);
	/* the host changing the program bytes after the load changes nothing */
	memset(s_win + S_PROG_AT, 0x5a, 0x100);

	/* over a hundred calls with overrides and mixed priorities, posted before any runs */
	enum { N = 120 };
	uint64_t in_at[3], out_at[N];
	unsigned prio[N];
	uint32_t first = s_next_tag;
	for (unsigned k = 0; k < 3; k++) {
		in_at[k] = walloc(s_p[k].in_need);
		REQUIRE(in_at[k]);
		pattern(s_win + (in_at[k] - s_wdev), s_p[k].in_need, PD_INPUT_BAR, 0);
	}
	for (unsigned i = 0; i < N; i++) {
		const struct sprog *p = &s_p[i % 3];
		out_at[i] = walloc(p->out_need);
		REQUIRE(out_at[i]);
		memset(s_win + (out_at[i] - s_wdev), 0xcc, p->out_need);
		prio[i] = (i * 3u + i / 11u) % 8u;
		tc_cmd(&c, CMD_CALL_BARS, p->id, prio[i], tag());
		c.nov = 2;
		c.ov[0] = (struct cmd_ov){PD_INPUT_BAR, CMD_ACC_READ, in_at[i % 3], p->in_need};
		c.ov[1] = (struct cmd_ov){p->out_bar, CMD_ACC_WRITE, out_at[i], p->out_need};
		REQUIRE(post(&c) == 0);
	}
	unsigned before = s_norder;
	drain();
	CHECK_EQ(s_norder - before, N);
	unsigned bad_order = 0, bad_out = 0, not_ok = 0;
	for (unsigned j = before; j < s_norder; j++) {
		unsigned i = s_order[j].tag - first;
		not_ok += s_order[j].err != CMD_OK;
		if (j > before) {
			unsigned h = s_order[j - 1].tag - first;
			if (prio[h] > prio[i] || (prio[h] == prio[i] && h > i))
				bad_order++;
		}
		if (i < N && fnv(s_win + (out_at[i] - s_wdev), s_p[i % 3].out_need) != s_p[i % 3].ref)
			bad_out++;
	}
	CHECK_EQ(not_ok, 0);
	CHECK_EQ(bad_order, 0);
	CHECK_EQ(bad_out, 0);
	/* the output check can fail: another input gives another output */
	{
		const struct sprog *p = &s_p[0];
		uint64_t in2 = walloc(p->in_need), out2 = walloc(p->out_need);
		REQUIRE(in2 && out2);
		pattern(s_win + (in2 - s_wdev), p->in_need, PD_INPUT_BAR, 1);
		tc_cmd(&c, CMD_CALL_BARS, p->id, 0, 0);
		c.nov = 2;
		c.ov[0] = (struct cmd_ov){PD_INPUT_BAR, CMD_ACC_READ, in2, p->in_need};
		c.ov[1] = (struct cmd_ov){p->out_bar, CMD_ACC_WRITE, out2, p->out_need};
		CHECK_EQ(one(&c).err, CMD_OK);
		CHECK(fnv(s_win + (out2 - s_wdev), p->out_need) != p->ref);
		/* a plain call afterwards is back on the program's own buffers */
		memset(own(p, p->out_bar), 0, p->out_need);
		tc_cmd(&c, CMD_CALL, p->id, 0, 0);
		CHECK_EQ(one(&c).err, CMD_OK);
		CHECK_EQ(fnv(own(p, p->out_bar), p->out_need), p->ref);
	}
	/* overrides the service refuses: outside the window, over another buffer */
	{
		const struct sprog *p = &s_p[0];
		tc_cmd(&c, CMD_CALL_BARS, p->id, 0, 0);
		c.nov = 1;
		c.ov[0] = (struct cmd_ov){p->out_bar, CMD_ACC_WRITE, s_wdev + s_wsize - 16, p->out_need};
		CHECK_EQ(one(&c).err, CMD_E_OV_OUTSIDE);
		c.ov[0] = (struct cmd_ov){p->out_bar, CMD_ACC_WRITE,
					  s_s->prog[s_p[1].slot].info.bar[PD_INPUT_BAR].base, p->out_need};
		CHECK_EQ(one(&c).err, CMD_E_OV_OUTSIDE); /* another program's memory */
		c.ov[0] = (struct cmd_ov){PD_WEIGHTS_BAR, CMD_ACC_READ, s_wdev, 0x1000};
		CHECK_EQ(one(&c).err, CMD_E_OV_FIXED);
	}

	/* a chain: program 0's output becomes program 1's input, no host round trip */
	{
		struct sprog *a = &s_p[0], *b = &s_p[1];
		REQUIRE(a->out_need >= b->in_need);
		/* program 0's own input changed, so the chained input is not program 1's pattern */
		pattern(own(a, PD_INPUT_BAR), a->in_need, PD_INPUT_BAR, 3);
		tc_cmd(&c, CMD_CALL, a->id, 0, 0);
		CHECK_EQ(one(&c).err, CMD_OK);
		uint64_t x = walloc(b->in_need), y = walloc(b->out_need);
		REQUIRE(x && y);
		memcpy(s_win + (x - s_wdev), own(a, a->out_bar), b->in_need);
		tc_cmd(&c, CMD_CALL_BARS, b->id, 0, 0);
		c.nov = 2;
		c.ov[0] = (struct cmd_ov){PD_INPUT_BAR, CMD_ACC_READ, x, b->in_need};
		c.ov[1] = (struct cmd_ov){b->out_bar, CMD_ACC_WRITE, y, b->out_need};
		CHECK_EQ(one(&c).err, CMD_OK);
		uint64_t want = fnv(s_win + (y - s_wdev), b->out_need);
		memset(own(b, b->out_bar), 0, b->out_need);
		memset(own(a, a->out_bar), 0, a->out_need);
		tc_cmd(&c, CMD_CHAIN, a->id, 1, 0);
		c.nsteps = 2;
		c.step[0].program = a->id;
		c.step[1].program = b->id;
		c.step[1].nlinks = 1;
		c.step[1].link[0] = (struct cmd_link){PD_INPUT_BAR, a->out_bar};
		r = one(&c);
		CHECKF(r.err == CMD_OK, "chain: %s at %d", cmd_err_name(r.err), (int)r.where);
		CHECK_EQ(r.data[0], 2);
		CHECK_EQ(fnv(own(b, b->out_bar), b->out_need), want);
		CHECK(want != b->ref); /* the chained input is not the pattern input */
		pattern(own(a, PD_INPUT_BAR), a->in_need, PD_INPUT_BAR, 0);
	}

	/* events: a priority-0 waiter posted first runs after the priority-7 signaller */
	{
		uint32_t t1 = tag(), t2 = tag();
		tc_cmd(&c, CMD_CALL_EVENTS, s_p[2].id, 0, t1);
		c.nwait = 1;
		c.nsignal = 1;
		c.ev[0] = (struct cmd_ev){0, 0, 5, 1};
		c.ev[1] = (struct cmd_ev){0, 0, 6, 1};
		REQUIRE(post(&c) == 0);
		tc_cmd(&c, CMD_CALL_EVENTS, s_p[0].id, 7, t2);
		c.nsignal = 1;
		c.ev[0] = (struct cmd_ev){0, 0, 5, 1};
		REQUIRE(post(&c) == 0);
		unsigned b0 = s_norder;
		drain();
		REQUIRE(s_norder == b0 + 2);
		CHECK_EQ(s_order[b0].tag, t2);
		CHECK_EQ(s_order[b0 + 1].tag, t1);
		CHECK_EQ(s_last[t1].err, CMD_OK);
		CHECK_EQ(s_s->events[6], 1);
	}

	/* unknown, oversized and truncated records */
	{
		uint8_t raw[1000];
		memset(raw, 0, sizeof raw);
		struct cmd_hdr h = {0x0999, 0, 0, -1, -1, 0, tag(), 0};
		cmd_encode_hdr(raw, sizeof raw, &h);
		REQUIRE(tc_post_raw(s_m, raw, 32) == 0);
		s_posted++;
		h = (struct cmd_hdr){CMD_CALL_BARS, 1000 - 32, 0, s_p[0].id, -1, 0, tag(), 0};
		cmd_encode_hdr(raw, sizeof raw, &h);
		REQUIRE(tc_post_raw(s_m, raw, sizeof raw) == 0);
		s_posted++;
		h = (struct cmd_hdr){CMD_CALL_BARS, CMD_MAX_BODY, 0, s_p[0].id, -1, 0, tag(), 0};
		cmd_encode_hdr(raw, sizeof raw, &h);
		REQUIRE(tc_post_raw(s_m, raw, 100) == 0);
		s_posted++;
		drain();
		CHECK_EQ(s_last[h.tag - 2].err, CMD_E_UNSUPPORTED);
		CHECK_EQ(s_last[h.tag - 1].err, CMD_E_TOO_LARGE);
		CHECK_EQ(s_last[h.tag].err, CMD_E_TRUNCATED);
		CHECK_EQ(s_s->st.unsupported, 1);
	}

	/* a fourth program, unloaded: calls to it are refused, queued or not */
	{
		size_t len = build(0, s_win + at, s_wsize - at);
		REQUIRE(len > 0);
		tc_load(&c, s_wdev + at, len, CMD_LOAD_F_RAW, 0);
		r = one(&c);
		REQUIRE(r.err == CMD_OK);
		int32_t id4 = (int32_t)r.data[0];
		/* a fifth load: past the table's capacity */
		tc_load(&c, s_wdev + at, len, CMD_LOAD_F_RAW, 0);
		CHECK_EQ(one(&c).err, CMD_E_CAPACITY);
		/* queued behind an unsatisfied wait, then the program is unloaded */
		uint32_t tq = tag();
		tc_cmd(&c, CMD_CALL_EVENTS, id4, 3, tq);
		c.nwait = 1;
		c.nsignal = 1;
		c.ev[0] = (struct cmd_ev){0, 0, 30, 1};
		c.ev[1] = (struct cmd_ev){0, 0, 31, 1};
		REQUIRE(post(&c) == 0);
		svc_poll(s_s);
		tc_cmd(&c, CMD_UNLOAD, id4, 0, 0);
		CHECK_EQ(one(&c).err, CMD_OK);
		tc_cmd(&c, CMD_SIGNAL, -1, 0, 0);
		c.ev_id = 30;
		c.ev_value = 1;
		CHECK_EQ(one(&c).err, CMD_OK);
		drain();
		CHECK_EQ(s_last[tq].err, CMD_E_NO_PROGRAM);
		CHECK_EQ(s_s->st.dropped_not_running, 1);
		tc_cmd(&c, CMD_CALL, id4, 0, 0);
		CHECK_EQ(one(&c).err, CMD_E_NO_PROGRAM);
	}

	/* a call that hangs: aborted by its deadline, the engine recovered, service goes on */
	{
		struct anem *m = tsession_model_of(tsession());
		const struct anem_faults f = {ANEM_FAULT_DMA_HANG, 0, 1, 0};
		anem_set_faults(m, &f);
		uint64_t rec0 = s_s->st.recoveries;
		tc_cmd(&c, CMD_CALL, s_p[2].id, 1, 0);
		c.h.deadline = 20000;
		uint64_t t0 = asvc_now(s_a);
		r = one(&c);
		anem_set_faults(m, NULL);
		CHECK_EQ(r.err, CMD_E_DEADLINE);
		CHECK_EQ(r.status, CMD_ST_ABORTED);
		CHECK(asvc_now(s_a) - t0 >= 20000);
		CHECK_EQ(s_s->st.recoveries, rec0 + 1);
		CHECK_EQ(s_s->state, SVC_OPEN);
		for (unsigned k = 0; k < 3; k++) {
			memset(own(&s_p[k], s_p[k].out_bar), 0, s_p[k].out_need);
			tc_cmd(&c, CMD_CALL, s_p[k].id, 2, 0);
			r = one(&c);
			CHECKF(r.err == CMD_OK, "after the hang, program %u: %s", k, cmd_err_name(r.err));
			CHECK_EQ(fnv(own(&s_p[k], s_p[k].out_bar), s_p[k].out_need), s_p[k].ref);
		}
	}

	/* every command exactly one completion; the arena's guard bytes intact */
	unsigned missing = 0, twice = 0;
	for (uint32_t t = 1; t < s_next_tag; t++) {
		missing += s_count[t] == 0;
		twice += s_count[t] > 1;
	}
	CHECK_EQ(missing, 0);
	CHECK_EQ(twice, 0);
	CHECK_EQ(s_s->st.accepted, s_posted);
	CHECK_EQ(s_s->st.completed, s_posted);
	CHECK(svc_accounting_ok(s_s));
	CHECK(s_posted >= 150);
	CHECK(asvc_audit(s_a));
	/* the audit fails on a damaged guard byte */
	uint8_t *g = asvc_cpu(s_a, s_s->prog[s_p[1].slot].info.bar[PD_INPUT_BAR].base - 1, 1);
	REQUIRE(g != NULL);
	uint8_t keep = *g;
	*g ^= 0xff;
	CHECK(!asvc_audit(s_a));
	*g = keep;
	CHECK(asvc_audit(s_a));
	asvc_destroy(s_a);
	s_a = NULL;
}

/* The served service's options (app/serve.c): the slots painted with the canary as loads reach
 * them, and a program larger than its slot refused with the bytes it needs and the slot's. */
TEST(cmd_session, lazy_paint_and_the_slot_limit)
{
	const uint64_t slot = 256u << 10;
	const struct asvc_opts o = {1u << 20, slot, 0, 100000, 0, 1};
	REQUIRE(s_open(&o));
	struct cmd c;
	struct cmd_completion r;
	CHECK(asvc_audit(s_a)); /* nothing painted in the slots yet: the guards only */
	/* 512 KiB in and out: more than the 256 KiB slot */
	static const char big[] = "input w=256 h=64 c=16\nactivation relu\n";
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	REQUIRE(pd_parse(big, strlen(big), &d, &line) == PD_OK);
	REQUIRE(pd_build(&d, s_win, s_wsize, &len) == PD_OK);
	tc_load(&c, s_wdev, len, CMD_LOAD_F_RAW, 0);
	r = one(&c);
	CHECK_EQ(r.err, CMD_E_PROGRAM);
	CHECK_EQ(r.domain, SUBQ_DOM_SESSION);
	CHECK_EQ(r.code, SESSION_E_ARENA);
	const uint32_t *dw = r.data + CMD_COMPL_FAULT;
	const uint64_t found = dw[SVC_DETAIL_FOUND] | (uint64_t)dw[SVC_DETAIL_FOUND + 1] << 32;
	const uint64_t limit = dw[SVC_DETAIL_LIMIT] | (uint64_t)dw[SVC_DETAIL_LIMIT + 1] << 32;
	CHECK_EQ(limit, slot);
	CHECK(found > 2u * 512u * 1024u && found < 2u * 512u * 1024u + 64u * 1024u);
	CHECK(asvc_audit(s_a));
	/* a program that fits: loaded, its part of the slot painted, the audit strict there */
	len = build(1, s_win, s_wsize);
	REQUIRE(len > 0);
	tc_load(&c, s_wdev, len, CMD_LOAD_F_RAW, 0);
	r = one(&c);
	CHECK_EQ(r.err, CMD_OK);
	REQUIRE(r.err == CMD_OK);
	int slot_i = svc_slot_of(s_s, (int32_t)r.data[0]);
	REQUIRE(slot_i >= 0);
	CHECK(asvc_audit(s_a));
	uint8_t *g = asvc_cpu(s_a, s_s->prog[slot_i].info.bar[PD_INPUT_BAR].base - 1, 1);
	REQUIRE(g != NULL);
	uint8_t keep = *g;
	*g ^= 0xff;
	CHECK(!asvc_audit(s_a));
	*g = keep;
	CHECK(asvc_audit(s_a));
	CHECK(svc_accounting_ok(s_s));
	asvc_destroy(s_a);
	s_a = NULL;
}

/* Which BARs of a real program a call may bind (docs/service.md, "Fixed BARs"): benchprog's
 * batched matmul reads x as kernels from BAR 6, a runtime BAR no call can rebind, so LOAD refuses
 * it by name (fixed-input, where the BAR) rather than run it on the fill pattern; the same matmul
 * whose first TD copies x to BAR 3 for the kernel DMA (an earlier TD wrote it) loads, BAR 6
 * rebindable; with w the program's constant read by the tile DMA through BAR 1 (Apple's rb form),
 * BAR 1 is fixed: a call cannot bind it and a client must not. */
TEST(cmd_session, fixed_bars_of_real_programs)
{
	const struct asvc_opts o = {1u << 20, 1u << 20, 0, 100000, 0, 1};
	REQUIRE(s_open(&o));
	struct cmd c;
	struct cmd_completion r;
	static uint16_t wc[16 * 32];
	for (unsigned i = 0; i < 16 * 32; i++)
		wc[i] = (uint16_t)(0x3c00u + (i % 7u)); /* fp16 near 1 */
	static const struct {
		const char *what;
		unsigned xcopy;
		int wconst;
		enum cmd_err want;
	} k[3] = {
		{"x read as kernels from BAR 6", 0, 0, CMD_E_FIXED_INPUT},
		{"x copied to BAR 3 by TD 0 first", 3, 0, CMD_OK},
		{"the same, w the program's constant on BAR 1", 3, 1, CMD_OK},
	};
	for (unsigned i = 0; i < 3; i++) {
		const struct bp_bmm_spec spec = {1, 4, 16, 32, 16, 6, 1, k[i].wconst ? wc : NULL,
						 k[i].xcopy};
		size_t len = bp_bmm(s_win, s_wsize, &spec);
		REQUIRE(len > 0);
		tc_load(&c, s_wdev, len, CMD_LOAD_F_RAW, 0);
		r = one(&c);
		CHECKF(r.err == k[i].want, "%s: %s (domain %u code %u), expected %s", k[i].what,
		       cmd_err_name(r.err), r.domain, r.code, cmd_err_name(k[i].want));
		if (k[i].want != CMD_OK) {
			CHECK_EQ(r.status, CMD_ST_REFUSED);
			CHECK_EQ(r.where, 6);
			continue;
		}
		if (r.err != CMD_OK)
			continue;
		int sl = svc_slot_of(s_s, (int32_t)r.data[0]);
		REQUIRE(sl >= 0);
		const struct svc_prog *p = &s_s->prog[sl].info;
		CHECK(p->used >> 6 & 1u);
		CHECK(!(p->fixed >> 6 & 1u)); /* x: rebindable */
		CHECK(p->fixed >> 3 & 1u);    /* the kernels TD 0 writes */
		CHECK(!p->unbound);
		if (k[i].wconst) {
			CHECKF(p->fixed >> 1 & 1u, "the weights BAR 1 the tile DMA reads: fixed mask %#x",
			       p->fixed);
			/* a call binding it is refused by name */
			tc_cmd(&c, CMD_CALL_BARS, (int32_t)r.data[0], 0, 0);
			c.nov = 1;
			c.ov[0] = (struct cmd_ov){1, CMD_ACC_READ, s_wdev + 0x10000, p->bar[1].need};
			CHECK_EQ(one(&c).err, CMD_E_OV_FIXED);
		}
		tc_cmd(&c, CMD_UNLOAD, (int32_t)r.data[0], 0, 0);
		CHECK_EQ(one(&c).err, CMD_OK);
	}
	/* the refused load left no slot taken: four programs still load */
	int32_t ids[SVC_MAX_PROGRAMS];
	for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++) {
		size_t len = build(0, s_win, s_wsize);
		REQUIRE(len > 0);
		tc_load(&c, s_wdev, len, CMD_LOAD_F_RAW, 0);
		r = one(&c);
		CHECK_EQ(r.err, CMD_OK);
		ids[i] = (int32_t)r.data[0];
	}
	for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++) {
		tc_cmd(&c, CMD_UNLOAD, ids[i], 0, 0);
		CHECK_EQ(one(&c).err, CMD_OK);
	}
	CHECK(asvc_audit(s_a));
	CHECK(svc_accounting_ok(s_s));
	asvc_destroy(s_a);
	s_a = NULL;
}

#if !defined(ANEFW_TARGET) /* a 129 MiB arena: on the host */
/* The fixed-input refusal refuses no real program: every hwx and kernel fixture in ../shared
 * loads through the service (its kernels read from the weights), and a client may bind every
 * BAR it does not report fixed. */
TEST(cmd_session, real_programs_are_not_fixed_input)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixture programs are not loaded");
	static const char *const fx[] = {
		"fixtures/hwx/relu.hwx", "fixtures/hwx/sigmoid.hwx", "fixtures/hwx/conv.hwx",
		"fixtures/hwx/concat.hwx", "fixtures/kernels/unary/tanh.bin",
		"fixtures/kernels/unary/exp.bin", "fixtures/kernels/unary/log2.bin",
		"fixtures/kernels/unary/sqrt.bin", "fixtures/kernels/unary/abs.bin",
		"fixtures/kernels/unary/ceil.bin", "fixtures/kernels/unary/inv.bin",
		"fixtures/kernels/unary/sigmoid.bin", "fixtures/kernels/activation/gelu.bin",
		"fixtures/kernels/activation/relu6.bin", "fixtures/kernels/activation/leakyrelu.bin",
		"fixtures/kernels/activation/hardtanh.bin", "fixtures/kernels/activation/selu.bin",
		"fixtures/kernels/activation/softmax.bin", "fixtures/kernels/binary/add.bin",
		"fixtures/kernels/binary/mul.bin",
	};
	const struct asvc_opts o = {1u << 20, 32u << 20, 0, 100000, 0, 1};
	REQUIRE(s_open(&o));
	struct cmd c;
	struct cmd_completion r;
	for (unsigned i = 0; i < sizeof fx / sizeof fx[0]; i++) {
		uint8_t *prog;
		size_t len;
		if (test_read_file(test_shared_path(fx[i]), &prog, &len)) {
			CHECKF(0, "%s: unreadable", fx[i]);
			continue;
		}
		REQUIRE(len <= s_wsize);
		memcpy(s_win, prog, len);
		free(prog);
		size_t n = strlen(fx[i]);
		tc_load(&c, s_wdev, len, strcmp(fx[i] + n - 4, ".bin") ? 0 : CMD_LOAD_F_RAW, 0);
		r = one(&c);
		CHECKF(r.err == CMD_OK, "%s: %s (domain %u code %u, where %d)", fx[i],
		       cmd_err_name(r.err), r.domain, r.code, (int)r.where);
		if (r.err != CMD_OK)
			continue;
		tc_cmd(&c, CMD_UNLOAD, (int32_t)r.data[0], 0, 0);
		CHECK_EQ(one(&c).err, CMD_OK);
	}
	CHECK(asvc_audit(s_a));
	asvc_destroy(s_a);
	s_a = NULL;
}
#endif
