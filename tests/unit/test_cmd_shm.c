/*
 * The shared-memory transport with a host core (docs/service.md, "Transports"): on the target a
 * second core, started through the board's power-on service (boot_start_core: PSCI CPU_ON on
 * qemu-virt, the spin table on raspi3b), runs a scripted host client against the service on
 * core 0, through the rings in shared memory only. The service core polls (bounded); the client
 * core polls for completions (bounded). Afterwards core 0 checks that every command the client
 * posted has exactly one completion, the answers the script expects, and the outputs: a call
 * whose input holds the program's own input pattern writes the program's own output, and a call
 * with another input writes another output.
 */
#include "tests/harness/harness.h"
#include "tests/unit/tsession.h"
#include "app/service.h"
#include "fw/cmd/cmd.h"
#include "tools/progdesc/progdesc.h"

#include <string.h>

#ifdef ANEFW_TARGET
#include "boot/boot.h"
#include "hal/hal.h"

#define SH_NPROG 2u
#define SH_NCALLS 120u
#define SH_MAX_TAGS 256u
#define SH_PROG_AT 0x80000u /* programs in the upper half of the window */
#define SH_IN0_AT 0x00000u  /* the program's own input pattern */
#define SH_IN1_AT 0x10000u  /* another input */
#define SH_OUT_AT 0x20000u  /* outputs, one per call, up to SH_PROG_AT */
#define SH_IN_BYTES 0x10000u
#define SH_POLLS 50000000u  /* bound of every wait, on either core */

static const char *const sh_desc[SH_NPROG] = {
	"input w=32 h=2 c=16\nlayer int8 cout=16\n",
	"input w=32 h=2 c=16\nlayer palette4 cout=16\nactivation relu\n",
};

/* Shared between the cores: the client's view of the channel and its record of the session. */
struct sh_prog {
	int32_t id;
	unsigned out_bar;
	uint64_t in_need, out_need;
};
struct sh_call {
	unsigned prog, salt;
	uint64_t out; /* engine address of its output */
};
struct sh_client {
	struct cmd_shm *m;
	uint64_t wdev;
	uint64_t prog_at[SH_NPROG], prog_len[SH_NPROG];
	/* results */
	volatile int fail_step; /* 0: the script ran to its end; else the step that gave up */
	volatile uint32_t fail_err;
	uint32_t next_tag, posted, reaped;
	uint8_t count[SH_MAX_TAGS];
	struct cmd_completion last[SH_MAX_TAGS];
	struct sh_prog p[SH_NPROG];
	struct sh_call call[SH_NCALLS];
	uint32_t call_tag[SH_NCALLS];
	uint32_t unknown_tag, truncated_tag, unloaded_tag, shutdown_tag;
	uint8_t rec[CMD_MAX_RECORD];
};
static struct sh_client sh;

/* ---- the client, on the host core: rings only, no C library state ---- */
static void cl_reap(struct sh_client *c)
{
	struct cmd_completion r;
	while (cmd_host_reap(c->m, &r) == CMD_RING_OK) {
		c->reaped++;
		if (r.tag < SH_MAX_TAGS) {
			if (c->count[r.tag] < 255)
				c->count[r.tag]++;
			c->last[r.tag] = r;
		}
	}
}

static uint32_t cl_post_raw(struct sh_client *c, const uint8_t *rec, size_t len, uint32_t tag)
{
	for (uint32_t i = 0; i < SH_POLLS; i++) {
		if (cmd_host_post(c->m, rec, len) == CMD_RING_OK) {
			c->posted++;
			__asm__ volatile("sev" ::: "memory");
			return tag;
		}
		cl_reap(c); /* the ring is full: make room by reading answers */
	}
	return 0;
}

/* Posts a command with a fresh tag; returns the tag, 0 when it could not be posted. */
static uint32_t cl_post(struct sh_client *c, struct cmd *k)
{
	k->h.tag = c->next_tag++;
	size_t n = cmd_encode(c->rec, sizeof c->rec, k);
	if (!n || k->h.tag >= SH_MAX_TAGS)
		return 0;
	return cl_post_raw(c, c->rec, n, k->h.tag);
}

/* Waits (bounded) until tag has its completion. */
static const struct cmd_completion *cl_wait(struct sh_client *c, uint32_t tag)
{
	for (uint32_t i = 0; tag && i < SH_POLLS; i++) {
		cl_reap(c);
		if (c->count[tag])
			return &c->last[tag];
	}
	return NULL;
}

static void cl_cmd(struct cmd *k, uint32_t id, int32_t program, uint32_t priority)
{
	memset(k, 0, sizeof *k);
	k->h.id = id;
	k->h.program = program;
	k->h.priority = priority;
}

/* One command, answered with err `want`; 0, or the step number on failure. */
static int cl_one(struct sh_client *c, struct cmd *k, uint32_t want, int step,
		  const struct cmd_completion **out)
{
	const struct cmd_completion *r = cl_wait(c, cl_post(c, k));
	if (!r || r->err != want) {
		c->fail_err = r ? r->err : 0xffffffffu;
		return step;
	}
	if (out)
		*out = r;
	return 0;
}

static int client_script(struct sh_client *c)
{
	struct cmd k;
	const struct cmd_completion *r;
	int e;
	for (uint32_t i = 0; !__atomic_load_n(&c->m->table.ready, __ATOMIC_ACQUIRE); i++)
		if (i >= SH_POLLS)
			return 1;
	cl_cmd(&k, CMD_HELLO, -1, 0);
	k.major = CMD_PROTO_MAJOR;
	k.minor = CMD_PROTO_MINOR;
	if ((e = cl_one(c, &k, CMD_OK, 2, NULL)))
		return e;
	for (unsigned p = 0; p < SH_NPROG; p++) {
		struct sh_prog *sp = &c->p[p];
		cl_cmd(&k, CMD_LOAD, -1, 0);
		k.off = c->wdev + c->prog_at[p];
		k.len = c->prog_len[p];
		k.flags = CMD_LOAD_F_RAW;
		if ((e = cl_one(c, &k, CMD_OK, 10 + (int)p, &r)))
			return e;
		sp->id = (int32_t)r->data[0];
		/* which BARs it uses, and the last one it writes: its output */
		cl_cmd(&k, CMD_PROGRAM_INFO, sp->id, 0);
		k.bar = PD_INPUT_BAR;
		if ((e = cl_one(c, &k, CMD_OK, 20 + (int)p, &r)))
			return e;
		uint32_t used = r->data[0];
		sp->in_need = r->data[3] | (uint64_t)r->data[4] << 32;
		sp->out_bar = CMD_NBARS;
		for (unsigned b = 0; b < CMD_NBARS; b++) {
			if (!(used >> b & 1u))
				continue;
			cl_cmd(&k, CMD_PROGRAM_INFO, sp->id, 0);
			k.bar = b;
			if ((e = cl_one(c, &k, CMD_OK, 30 + (int)p, &r)))
				return e;
			if (r->data[2] & CMD_ACC_WRITE) {
				sp->out_bar = b;
				sp->out_need = r->data[3] | (uint64_t)r->data[4] << 32;
			}
		}
		if (sp->out_bar == CMD_NBARS || sp->in_need > SH_IN_BYTES)
			return 40 + (int)p;
		/* one plain call: the output in the program's own buffer */
		cl_cmd(&k, CMD_CALL, sp->id, 3);
		if ((e = cl_one(c, &k, CMD_OK, 50 + (int)p, NULL)))
			return e;
	}
	/* calls with overrides in mixed priorities, posted back to back, answered as they come */
	uint64_t out = SH_OUT_AT;
	for (unsigned i = 0; i < SH_NCALLS; i++) {
		struct sh_call *sc = &c->call[i];
		sc->prog = i % SH_NPROG;
		sc->salt = (i % 7 == 3);
		const struct sh_prog *sp = &c->p[sc->prog];
		if (out + sp->out_need > SH_PROG_AT)
			return 60;
		sc->out = c->wdev + out;
		out += (sp->out_need + 63) & ~63ull;
		cl_cmd(&k, CMD_CALL_BARS, sp->id, (i * 5u) % CMD_PRIORITIES);
		k.nov = 2;
		k.ov[0] = (struct cmd_ov){PD_INPUT_BAR, CMD_ACC_READ,
					  c->wdev + (sc->salt ? SH_IN1_AT : SH_IN0_AT), sp->in_need};
		k.ov[1] = (struct cmd_ov){sp->out_bar, CMD_ACC_WRITE, sc->out, sp->out_need};
		if (!(c->call_tag[i] = cl_post(c, &k)))
			return 61;
	}
	for (unsigned i = 0; i < SH_NCALLS; i++)
		if (!cl_wait(c, c->call_tag[i]))
			return 62;
	/* an unknown command, a truncated record, a call to a program that is not loaded */
	cl_cmd(&k, CMD_QUERY, -1, 0);
	k.h.tag = c->next_tag++;
	size_t n = cmd_encode(c->rec, sizeof c->rec, &k);
	c->rec[0] = 0x77; /* id 0x0077: no such command */
	c->unknown_tag = cl_post_raw(c, c->rec, n, k.h.tag);
	cl_cmd(&k, CMD_CALL_BARS, c->p[0].id, 0);
	k.nov = 1;
	k.ov[0] = (struct cmd_ov){PD_INPUT_BAR, CMD_ACC_READ, c->wdev, c->p[0].in_need};
	k.h.tag = c->next_tag++;
	n = cmd_encode(c->rec, sizeof c->rec, &k);
	c->truncated_tag = cl_post_raw(c, c->rec, n - 8, k.h.tag);
	cl_cmd(&k, CMD_CALL, 0x7ffffff0, 0);
	c->unloaded_tag = cl_post(c, &k);
	if (!cl_wait(c, c->unknown_tag) || !cl_wait(c, c->truncated_tag) ||
	    !cl_wait(c, c->unloaded_tag))
		return 70;
	/* the end of the session */
	cl_cmd(&k, CMD_SHUTDOWN, -1, 0);
	c->shutdown_tag = cl_post(c, &k);
	if (!cl_wait(c, c->shutdown_tag))
		return 80;
	return 0;
}

static void client_main(void *arg)
{
	struct sh_client *c = arg;
	c->fail_step = client_script(c);
}

static void mark(void *arg)
{
	__atomic_store_n((volatile unsigned *)arg, 0x600du | (hal_cpu_id() << 16), __ATOMIC_RELEASE);
}

static size_t sh_build(unsigned k, uint8_t *out, size_t cap)
{
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	if (pd_parse(sh_desc[k], strlen(sh_desc[k]), &d, &line) != PD_OK ||
	    pd_build(&d, out, cap, &len) != PD_OK)
		return 0;
	return len;
}

TEST(cmd_shm, session_with_a_host_core)
{
	const struct hal_platform *plat = hal_platform();
	if (plat->ncores < 2)
		SKIP("a single-core board");
	const struct asvc_opts o = {0, 0, 0, 100000, 0};
	struct asvc *a = asvc_create(tsession(), &o);
	REQUIRE(a != NULL);
	struct svc *s = asvc_svc(a);
	uint64_t wdev, wsize;
	uint8_t *win = asvc_window(a, &wdev, &wsize);
	REQUIRE(wsize >= 0x100000u);
	memset(&sh, 0, sizeof sh);
	sh.m = asvc_shm(a);
	sh.wdev = wdev;
	sh.next_tag = 1;
	sh.fail_step = -1;
	uint64_t at = SH_PROG_AT;
	for (unsigned k = 0; k < SH_NPROG; k++) {
		sh.prog_at[k] = at;
		sh.prog_len[k] = sh_build(k, win + at, wsize - at);
		REQUIRE(sh.prog_len[k] > 0);
		at += (sh.prog_len[k] + 4095) & ~4095ull;
		REQUIRE(at <= wsize);
	}
	/* the service fills a program's input with k * 7 + bar; another input adds one */
	for (unsigned k = 0; k < SH_IN_BYTES; k++) {
		win[SH_IN0_AT + k] = (uint8_t)(k * 7u + PD_INPUT_BAR);
		win[SH_IN1_AT + k] = (uint8_t)(k * 7u + PD_INPUT_BAR + 1u);
	}

	/* the board refuses what it must */
	CHECK_EQ(boot_start_core(0, client_main, &sh), HAL_CORE_E_BAD_CORE);
	CHECK_EQ(boot_start_core(plat->ncores, client_main, &sh), HAL_CORE_E_BAD_CORE);
	CHECK_EQ(boot_start_core(1, NULL, &sh), HAL_CORE_E_BAD_CORE);
	enum hal_core_err ce = boot_start_core(1, client_main, &sh);
	if (ce == HAL_CORE_E_UNSUPPORTED) {
		asvc_destroy(a);
		SKIP("no power-on service for the second core (qemu-virt booted at EL3: no PSCI)");
	}
	CHECKF(ce == HAL_CORE_OK, "start core 1: %s", hal_core_err_name(ce));
	REQUIRE(ce == HAL_CORE_OK);
	CHECK_EQ(boot_start_core(1, client_main, &sh), HAL_CORE_E_BUSY); /* still running */

	/* the firmware: a bounded poll of the command ring until the client shuts the channel */
	svc_ready(s);
	uint64_t passes = 0;
	while (s->state != SVC_STOPPED && passes < SH_POLLS) {
		if (!svc_poll(s))
			hal_cpu_relax();
		passes++;
	}
	CHECKF(s->state == SVC_STOPPED, "the service was not shut down after %llu passes",
	       (unsigned long long)passes);
	for (uint32_t i = 0; boot_core_busy(1) && i < SH_POLLS; i++)
		hal_cpu_relax();
	CHECK_EQ(boot_core_busy(1), 0);
	CHECKF(sh.fail_step == 0, "the client stopped at step %d (err %s)", sh.fail_step,
	       cmd_err_name((enum cmd_err)sh.fail_err));

	/* exactly one completion per command posted, and nothing else */
	unsigned tags = sh.next_tag - 1, once = 0;
	for (unsigned t = 1; t <= tags && t < SH_MAX_TAGS; t++)
		once += sh.count[t] == 1;
	CHECK_EQ(once, tags);
	CHECK_EQ(sh.posted, tags);
	CHECK_EQ(sh.reaped, tags);
	CHECK(svc_accounting_ok(s));
	CHECK_EQ(s->st.accepted, tags);
	CHECK_EQ(sh.last[sh.unknown_tag].err, CMD_E_UNSUPPORTED);
	CHECK_EQ(sh.last[sh.truncated_tag].err, CMD_E_TRUNCATED);
	CHECK_EQ(sh.last[sh.unloaded_tag].err, CMD_E_NO_PROGRAM);
	CHECK_EQ(sh.last[sh.shutdown_tag].err, CMD_OK);

	/* the outputs: the program's own output for its own input, another for another */
	unsigned same = 0, differ = 0, ok = 0;
	for (unsigned i = 0; i < SH_NCALLS; i++) {
		const struct sh_call *sc = &sh.call[i];
		const struct sh_prog *sp = &sh.p[sc->prog];
		ok += sh.last[sh.call_tag[i]].err == CMD_OK;
		const struct svc_bar *b = &s->prog[svc_slot_of(s, sp->id)].info.bar[sp->out_bar];
		const uint8_t *ref = asvc_cpu(a, b->base, b->need);
		const uint8_t *got = asvc_cpu(a, sc->out, sp->out_need);
		if (!ref || !got)
			continue;
		int eq = !memcmp(ref, got, sp->out_need);
		if (sc->salt)
			differ += !eq;
		else
			same += eq;
	}
	unsigned nsalt = 0;
	for (unsigned i = 0; i < SH_NCALLS; i++)
		nsalt += sh.call[i].salt;
	CHECK_EQ(ok, SH_NCALLS);
	CHECK_EQ(same, SH_NCALLS - nsalt);
	CHECK_EQ(differ, nsalt);
	CHECK(nsalt > 0);
	CHECK(asvc_audit(a));

	asvc_destroy(a);

	/* the core is free again and starts again (a fresh power-on on qemu-virt) */
	static volatile unsigned again;
	again = 0;
	ce = boot_start_core(1, mark, (void *)&again);
	CHECKF(ce == HAL_CORE_OK, "restart core 1: %s", hal_core_err_name(ce));
	for (uint32_t i = 0; (again == 0 || boot_core_busy(1)) && i < SH_POLLS; i++)
		hal_cpu_relax();
	CHECK_EQ(again, 0x600du | (1u << 16));
	CHECK_EQ(boot_core_busy(1), 0);
}
#endif
