/*
 * The cost of one dispatch through the command service (make bench T=bench.cmd): a loaded
 * 1-TD program called through the shared rings, instructions retired under exact icount from
 * the service's pass that reads the command to the completion posted (svc_poll), with the
 * instructions spent inside the engine model's operations (reset, queue, register writes and
 * reads, start, poll, and the model's per-run set-up) counted apart and excluded. The host's
 * post and reap are outside the measured pass.
 */
#include "app/service.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/progdesc.h"

#include <stdio.h>
#include <string.h>

/* The bench image has no tests/unit helpers: its own small host side. */
static void tc_cmd(struct cmd *c, uint32_t id, int32_t program, uint32_t priority, uint32_t tag)
{
	memset(c, 0, sizeof *c);
	c->h = (struct cmd_hdr){id, 0, priority, program, -1, 0, tag, 0};
}

static int tc_post(struct cmd_shm *m, const struct cmd *c)
{
	static uint8_t rec[CMD_MAX_RECORD];
	size_t n = cmd_encode(rec, sizeof rec, c);
	return n && cmd_host_post(m, rec, n) == CMD_RING_OK ? 0 : -1;
}

static unsigned tc_reap(struct cmd_shm *m, struct cmd_completion *out, unsigned max)
{
	unsigned n = 0;
	while (n < max && cmd_host_reap(m, &out[n]) == CMD_RING_OK)
		n++;
	return n;
}

static struct app_session *b_session;

static const char b_desc[] = "input w=32 h=2 c=16\nlayer int8 cout=16\n";

static void bench_dispatch(int overrides)
{
	const struct asvc_opts o = {0, 0, 0, 0, 1, 0};
	if (!b_session)
		b_session = session_create(plat_dma());
	REQUIRE(b_session != NULL);
	struct asvc *a = asvc_create(b_session, &o);
	REQUIRE(a != NULL);
	struct svc *s = asvc_svc(a);
	struct cmd_shm *m = asvc_shm(a);
	uint64_t wdev, wsize;
	uint8_t *win = asvc_window(a, &wdev, &wsize);
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	REQUIRE(pd_parse(b_desc, sizeof b_desc - 1, &d, &line) == PD_OK);
	REQUIRE(pd_build(&d, win + 0x80000, wsize - 0x80000, &len) == PD_OK);
	svc_ready(s);
	struct cmd c;
	struct cmd_completion r;
	tc_cmd(&c, CMD_HELLO, -1, 0, 1);
	c.major = CMD_PROTO_MAJOR;
	REQUIRE(tc_post(m, &c) == 0);
	tc_cmd(&c, CMD_LOAD, -1, 0, 2);
	c.off = wdev + 0x80000;
	c.len = len;
	c.flags = CMD_LOAD_F_RAW;
	REQUIRE(tc_post(m, &c) == 0);
	svc_poll(s);
	REQUIRE(tc_reap(m, &r, 1) == 1 && r.err == CMD_OK);
	REQUIRE(tc_reap(m, &r, 1) == 1 && r.err == CMD_OK);
	int32_t id = (int32_t)r.data[0];
	int slot = svc_slot_of(s, id);
	REQUIRE(slot >= 0);
	CHECKF(s->prog[slot].info.ntds == 1, "bench cmd: the program has %u TDs, not 1",
	       (unsigned)s->prog[slot].info.ntds);
	const struct svc_prog *info = &s->prog[slot].info;
	unsigned out_bar = 0;
	for (unsigned b = 0; b < CMD_NBARS; b++)
		if ((info->used >> b & 1u) && (info->bar[b].access & CMD_ACC_WRITE))
			out_bar = b;
	if (overrides) {
		tc_cmd(&c, CMD_CALL_BARS, id, 2, 0);
		c.nov = 2;
		c.ov[0] = (struct cmd_ov){PD_INPUT_BAR, CMD_ACC_READ, wdev,
					  info->bar[PD_INPUT_BAR].need};
		c.ov[1] = (struct cmd_ov){out_bar, CMD_ACC_WRITE, wdev + 0x40000, info->bar[out_bar].need};
	} else {
		tc_cmd(&c, CMD_CALL, id, 2, 0);
	}
	enum { N = 32 };
	uint64_t total = 0, engine = 0, run = 0, setup = 0;
	unsigned ok = 0;
	for (unsigned i = 0; i <= N; i++) { /* the first is a warm-up */
		c.h.tag = 100 + i;
		REQUIRE(tc_post(m, &c) == 0);
		uint64_t e0 = asvc_engine_instret(a), r0 = asvc_run_instret(a);
		uint64_t s0 = asvc_setup_instret(a), t0 = hal_instret();
		svc_poll(s);
		uint64_t t1 = hal_instret(), e1 = asvc_engine_instret(a), r1 = asvc_run_instret(a);
		if (i) {
			setup += asvc_setup_instret(a) - s0;
			total += t1 - t0;
			engine += e1 - e0;
			run += r1 - r0;
		}
		ok += tc_reap(m, &r, 1) == 1 && r.err == CMD_OK && r.tag == 100 + i;
	}
	CHECKF(ok == N + 1, "bench cmd: %u of %u dispatches completed", ok, N + 1);
	CHECK(engine < total);
	CHECK(asvc_audit(a));
	/* engine = the model's operations (inside eng_run) + its per-run set-up (outside) */
	uint64_t ops = engine - setup;
	printf("bench cmd %s: %lu instructions per dispatch (firmware: service %lu + engine driver "
	       "%lu), %lu more inside the engine model, over %u dispatches\n",
	       overrides ? "call with 2 BAR overrides" : "call",
	       (unsigned long)((total - engine) / N), (unsigned long)((total - run - setup) / N),
	       (unsigned long)((run - ops) / N), (unsigned long)(engine / N),
	       (unsigned)N);
	asvc_destroy(a);
}

TEST(bench, cmd_dispatch)
{
	bench_dispatch(0);
}

TEST(bench, cmd_dispatch_overrides)
{
	bench_dispatch(1);
}
