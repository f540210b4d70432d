/*
 * The command protocol (fw/cmd/cmd.c) and the service state machine (fw/cmd/svc.c) over a
 * scripted backend: decoding with every named error, rings, handshake, program table, override
 * checks, scheduling order, events, chains, deadlines, rate-limited recovery, shutdown, and one
 * completion per command throughout.
 */
#include "tests/harness/harness.h"
#include "tests/unit/tcmd.h"
#include "fw/cmd/svc.h"
#include "fw/common/le.h"

#include <stdlib.h>
#include <string.h>

/* ---- the decoder ---- */

static uint8_t rec[2048];

static enum cmd_err enc_dec(const struct cmd *in, struct cmd *out)
{
	size_t n = cmd_encode(rec, sizeof rec, in);
	if (!n)
		return CMD_E__COUNT;
	return cmd_decode(rec, n, out);
}

TEST(cmd, decode_round_trip_every_command)
{
	static struct cmd c, d;
	tc_cmd(&c, CMD_HELLO, -1, 0, 7);
	c.major = 1;
	c.minor = 3;
	CHECK_EQ(enc_dec(&c, &d), CMD_OK);
	CHECK_EQ(d.major, 1);
	CHECK_EQ(d.minor, 3);
	CHECK_EQ(d.h.tag, 7);
	tc_cmd(&c, CMD_LOAD, -1, 0, 8);
	c.off = 0x40001000;
	c.len = 0x1234;
	c.flags = CMD_LOAD_F_RAW;
	CHECK_EQ(enc_dec(&c, &d), CMD_OK);
	CHECK_EQ(d.off, 0x40001000);
	CHECK_EQ(d.len, 0x1234);
	CHECK_EQ(d.flags, CMD_LOAD_F_RAW);
	tc_cmd(&c, CMD_CALL_BARS, 5, 3, 9);
	c.nov = CMD_MAX_OVERRIDES;
	for (unsigned i = 0; i < c.nov; i++)
		c.ov[i] = (struct cmd_ov){i, CMD_ACC_READ, 0x1000 * i, 0x100 + i};
	CHECK_EQ(enc_dec(&c, &d), CMD_OK);
	CHECK_EQ(d.nov, 32);
	CHECK_EQ(d.ov[31].bar, 31);
	CHECK_EQ(d.ov[31].size, 0x100 + 31);
	CHECK_EQ(d.h.priority, 3);
	CHECK_EQ(d.h.program, 5);
	CHECK_EQ(cmd_encode(rec, sizeof rec, &c), CMD_MAX_RECORD); /* the largest record */
	tc_cmd(&c, CMD_CALL_EVENTS, 1, 0, 10);
	c.nwait = 16;
	c.nsignal = 16;
	for (unsigned i = 0; i < 32; i++)
		c.ev[i] = (struct cmd_ev){0, 1, i, 100 + i};
	CHECK_EQ(enc_dec(&c, &d), CMD_OK);
	CHECK_EQ(d.nwait, 16);
	CHECK_EQ(d.ev[31].value, 131);
	tc_cmd(&c, CMD_CHAIN, 1, 0, 11);
	c.nsteps = 4;
	for (unsigned i = 0; i < 4; i++) {
		c.step[i].program = (int32_t)(i + 1);
		c.step[i].nlinks = i ? 8 : 0;
		for (unsigned k = 0; i && k < 8; k++)
			c.step[i].link[k] = (struct cmd_link){k, 31 - k};
	}
	CHECK_EQ(enc_dec(&c, &d), CMD_OK);
	CHECK_EQ(d.nsteps, 4);
	CHECK_EQ(d.step[3].link[7].src_bar, 24);
	CHECK_EQ(d.step[2].program, 3);
	tc_cmd(&c, CMD_SIGNAL, -1, 0, 12);
	c.ev_id = 63;
	c.ev_value = 5;
	CHECK_EQ(enc_dec(&c, &d), CMD_OK);
	CHECK_EQ(d.ev_id, 63);
	CHECK_STR(cmd_id_name(CMD_CHAIN), "chain");
	CHECK_STR(cmd_err_name(CMD_E_DEADLINE), "deadline-expired");
	CHECK_STR(cmd_err_name(CMD_E__COUNT), "unknown-cmd-error");
	for (unsigned e = 0; e < CMD_E__COUNT; e++)
		CHECKF(strcmp(cmd_err_name((enum cmd_err)e), "unknown-cmd-error") != 0,
		       "error %u has no name", e);
}

/* Encodes c, lets edit change the bytes, decodes: the error. */
static enum cmd_err dec_edit(const struct cmd *c, void (*edit)(uint8_t *, size_t *), int *where)
{
	static struct cmd d;
	size_t n = cmd_encode(rec, sizeof rec, c);
	if (edit)
		edit(rec, &n);
	enum cmd_err e = cmd_decode(rec, n, &d);
	if (where)
		*where = d.where;
	return e;
}

static void cut_to_20(uint8_t *b, size_t *n) { (void)b; *n = 20; }
static void cut_body(uint8_t *b, size_t *n) { (void)b; *n -= 1; }
static void grow_1000(uint8_t *b, size_t *n) { (void)b; *n = 1000; }
static void size_huge(uint8_t *b, size_t *n) { le_wr32(b + 4, 0xfffffff0u); (void)n; }
static void size_900(uint8_t *b, size_t *n) { le_wr32(b + 4, 900); *n = 32 + 900; }
static void id_unknown(uint8_t *b, size_t *n) { le_wr32(b, 0x9999); (void)n; }
static void prio_8(uint8_t *b, size_t *n) { le_wr32(b + 8, 8); (void)n; }
static void trailing(uint8_t *b, size_t *n) { b[*n] = 0; *n += 1; }
static void count_33(uint8_t *b, size_t *n) { le_wr32(b + 32, 33); (void)n; }
static void count_31(uint8_t *b, size_t *n) { le_wr32(b + 32, 31); (void)n; }
static void signals_0(uint8_t *b, size_t *n) { le_wr32(b + 36, 0); (void)n; }
static void signals_17(uint8_t *b, size_t *n) { le_wr32(b + 36, 17); (void)n; }
static void waits_17(uint8_t *b, size_t *n) { le_wr32(b + 32, 17); (void)n; }
static void pad_1(uint8_t *b, size_t *n) { le_wr32(b + 36, 1); (void)n; }
static void size_field_5(uint8_t *b, size_t *n) { le_wr32(b + 4, 5); *n = 37; }

TEST(cmd, decode_named_errors)
{
	static struct cmd c;
	int where;
	tc_cmd(&c, CMD_CALL_BARS, 1, 2, 77);
	c.nov = 2;
	c.ov[0] = (struct cmd_ov){5, CMD_ACC_READ, 0x1000, 0x100};
	c.ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0x2000, 0x100};
	CHECK_EQ(dec_edit(&c, NULL, NULL), CMD_OK);
	CHECK_EQ(dec_edit(&c, cut_to_20, NULL), CMD_E_TRUNCATED);
	CHECK_EQ(dec_edit(&c, cut_body, NULL), CMD_E_TRUNCATED);
	CHECK_EQ(dec_edit(&c, grow_1000, NULL), CMD_E_TOO_LARGE);
	CHECK_EQ(dec_edit(&c, size_huge, NULL), CMD_E_TOO_LARGE);
	CHECK_EQ(dec_edit(&c, size_900, NULL), CMD_E_TOO_LARGE);
	CHECK_EQ(dec_edit(&c, id_unknown, NULL), CMD_E_UNSUPPORTED);
	CHECK_EQ(dec_edit(&c, prio_8, NULL), CMD_E_PRIORITY);
	CHECK_EQ(dec_edit(&c, trailing, NULL), CMD_E_BAD_SIZE);
	CHECK_EQ(dec_edit(&c, count_33, NULL), CMD_E_BAD_COUNT);
	CHECK_EQ(dec_edit(&c, count_31, NULL), CMD_E_BAD_SIZE);
	CHECK_EQ(dec_edit(&c, pad_1, NULL), CMD_E_RESERVED);
	c.ov[1].bar = 5; /* the same BAR twice */
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_BAR);
	CHECK_EQ(where, 1);
	c.ov[1].bar = 32;
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_BAR);
	c.ov[1] = (struct cmd_ov){6, 0, 0x2000, 0x100};
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_BAR);
	c.ov[1].access = 4;
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_BAR);
	/* events */
	tc_cmd(&c, CMD_CALL_EVENTS, 1, 0, 78);
	c.nwait = 1;
	c.nsignal = 1;
	c.ev[0] = (struct cmd_ev){0, 0, 3, 1};
	c.ev[1] = (struct cmd_ev){0, 0, 4, 1};
	CHECK_EQ(dec_edit(&c, NULL, NULL), CMD_OK);
	CHECK_EQ(dec_edit(&c, signals_0, NULL), CMD_E_BAD_COUNT);
	CHECK_EQ(dec_edit(&c, signals_17, NULL), CMD_E_BAD_COUNT);
	CHECK_EQ(dec_edit(&c, waits_17, NULL), CMD_E_BAD_COUNT);
	c.ev[1].id = CMD_MAX_EVENTS;
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_EVENT);
	CHECK_EQ(where, 1);
	c.ev[1].id = 4;
	c.ev[0].type = 2;
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_EVENT);
	CHECK_EQ(where, 0);
	/* chains */
	tc_cmd(&c, CMD_CHAIN, 1, 0, 79);
	c.nsteps = 2;
	c.step[0].program = 1;
	c.step[1].program = 2;
	c.step[1].nlinks = 1;
	c.step[1].link[0] = (struct cmd_link){5, 6};
	CHECK_EQ(dec_edit(&c, NULL, NULL), CMD_OK);
	c.step[0].nlinks = 1; /* the first call has no previous output */
	c.step[0].link[0] = (struct cmd_link){5, 6};
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_BAD_COUNT);
	CHECK_EQ(where, 0);
	c.step[0].nlinks = 0;
	c.step[0].link[0] = (struct cmd_link){0, 0};
	c.step[1].link[0].src_bar = 40;
	CHECK_EQ(dec_edit(&c, NULL, &where), CMD_E_BAR);
	c.step[1].link[0].src_bar = 6;
	c.nsteps = 5;
	CHECK_EQ(cmd_encode(rec, sizeof rec, &c), 0); /* the encoder refuses it too */
	c.nsteps = 2;
	/* fixed-size bodies */
	tc_cmd(&c, CMD_HELLO, -1, 0, 80);
	CHECK_EQ(dec_edit(&c, size_field_5, NULL), CMD_E_BAD_SIZE);
	tc_cmd(&c, CMD_SIGNAL, -1, 0, 81);
	c.ev_id = 64;
	CHECK_EQ(dec_edit(&c, NULL, NULL), CMD_E_EVENT);
	tc_cmd(&c, CMD_PROGRAM_INFO, 1, 0, 82);
	c.bar = 32;
	CHECK_EQ(dec_edit(&c, NULL, NULL), CMD_E_BAR);
	tc_cmd(&c, CMD_LOAD, -1, 0, 83);
	c.flags = 2;
	CHECK_EQ(dec_edit(&c, NULL, NULL), CMD_E_RESERVED);
	/* the header fields a short record holds are still named */
	static struct cmd d;
	CHECK_EQ(cmd_decode(rec, 3, &d), CMD_E_TRUNCATED);
	CHECK_EQ(d.h.id, CMD_ID_INVALID);
	CHECK_EQ(cmd_decode(rec, 28, &d), CMD_E_TRUNCATED);
	CHECK_EQ(d.h.tag, 83);
	CHECK_EQ(cmd_decode(NULL, 100, &d), CMD_E_TRUNCATED);
}

TEST(cmd, rings_bounded_and_checked)
{
	static struct cmd_shm m;
	memset(&m, 0, sizeof m);
	uint8_t r[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[16];
	size_t len;
	CHECK_EQ(cmd_fw_take(&m, out, sizeof out, &len), CMD_RING_EMPTY);
	for (unsigned i = 0; i < CMD_RING_SLOTS; i++)
		CHECK_EQ(cmd_host_post(&m, r, sizeof r), CMD_RING_OK);
	CHECK_EQ(cmd_host_post(&m, r, sizeof r), CMD_RING_FULL);
	CHECK_EQ(cmd_fw_take(&m, out, sizeof out, &len), CMD_RING_OK);
	CHECK_EQ(len, 8);
	CHECK_MEM(out, r, 8);
	/* a host that breaks its index is a corrupt ring, never a read past the slots */
	m.h2f.tail = m.h2f.head + CMD_RING_SLOTS + 5;
	CHECK_EQ(cmd_fw_take(&m, out, sizeof out, &len), CMD_RING_CORRUPT);
	m.f2h.head = 1000;
	CHECK_EQ(cmd_fw_unread(&m), CMD_COMPL_SLOTS + 1);
	struct cmd_completion c = {0};
	CHECK_EQ(cmd_fw_post(&m, &c), CMD_RING_CORRUPT);
	/* a stated length larger than the slot is reported as stated, copied only up to cap */
	memset(&m, 0, sizeof m);
	static uint8_t big[CMD_SLOT_BYTES * 2];
	CHECK_EQ(cmd_host_post(&m, big, sizeof big), CMD_RING_OK);
	static uint8_t got[CMD_SLOT_PAYLOAD];
	CHECK_EQ(cmd_fw_take(&m, got, sizeof got, &len), CMD_RING_OK);
	CHECK_EQ(len, sizeof big);
}

/* ---- the service over a scripted backend ---- */

struct mock {
	uint64_t now;
	uint8_t mem[SVC_MAX_PROGRAMS][256];
	uint8_t seen[SVC_MAX_PROGRAMS][256]; /* what load saw */
	size_t len[SVC_MAX_PROGRAMS];
	int runs, loads, unloads, recovers;
	enum cmd_err next_err;   /* the next run's result */
	unsigned fail_runs;      /* that many runs get next_err */
	struct svc_bars last;
	unsigned last_slot;
	uint64_t last_budget;
};

static struct mock mk;

static uint64_t m_now(void *ctx) { return ((struct mock *)ctx)->now; }
static void m_idle(void *ctx) { ((struct mock *)ctx)->now++; }
static uint8_t *m_mem(void *ctx, unsigned slot, size_t len)
{
	struct mock *m = ctx;
	if (len > sizeof m->mem[0])
		return NULL;
	m->len[slot] = len;
	return m->mem[slot];
}
/* A "program" is bytes; the schema: BAR 5 read 0x100 bytes, BAR 6 written 0x100, BAR 1 fixed
 * (weights). A program whose first byte is 0xee is refused by the "loader". */
static void m_load(void *ctx, unsigned slot, size_t len, uint32_t flags, struct svc_prog *info,
		   struct svc_result *r)
{
	struct mock *m = ctx;
	(void)flags;
	memcpy(m->seen[slot], m->mem[slot], len);
	m->loads++;
	if (m->mem[slot][0] == 0xee) {
		r->err = CMD_E_PROGRAM;
		r->domain = SUBQ_DOM_LOADER;
		r->code = 3;
		return;
	}
	info->used = 1u << 1 | 1u << 5 | 1u << 6;
	info->fixed = 1u << 1;
	info->ntds = 1;
	info->procedures = 1;
	uint64_t base = 0x50000000u + slot * 0x10000u;
	info->bar[1] = (struct svc_bar){base, 0x80, CMD_ACC_READ, SVC_BAR_USED | SVC_BAR_FIXED};
	info->bar[5] = (struct svc_bar){base + 0x1000, 0x100, CMD_ACC_READ, SVC_BAR_USED};
	info->bar[6] = (struct svc_bar){base + 0x2000, 0x100, CMD_ACC_WRITE, SVC_BAR_USED};
	if (m->mem[slot][0] == 0x77) { /* and BAR 7, read and written (an in-place buffer) */
		info->used |= 1u << 7;
		info->bar[7] = (struct svc_bar){base + 0x3000, 0x100, CMD_ACC_READ | CMD_ACC_WRITE,
						SVC_BAR_USED};
	}
	if (m->mem[slot][0] == 0x66) { /* BAR 6 read as the host's kernels: fixed, unbindable */
		info->fixed |= 1u << 6;
		info->unbound = 1u << 6;
		info->bar[6].flags |= SVC_BAR_FIXED;
	}
	r->err = CMD_OK;
}
static void m_unload(void *ctx, unsigned slot) { (void)slot; ((struct mock *)ctx)->unloads++; }
static void m_run(void *ctx, unsigned slot, const struct svc_bars *bars, unsigned prio,
		  uint64_t budget, struct svc_result *r)
{
	struct mock *m = ctx;
	(void)prio;
	m->runs++;
	m->last = *bars;
	m->last_slot = slot;
	m->last_budget = budget;
	m->now += 10;
	r->err = CMD_OK;
	if (m->fail_runs) {
		m->fail_runs--;
		r->err = m->next_err;
		if (r->err == CMD_E_DEADLINE)
			m->now += budget;
		if (r->err == CMD_E_ENGINE) {
			r->domain = SUBQ_DOM_ENGINE;
			r->code = 3;
		}
	}
}
static void m_recover(void *ctx) { ((struct mock *)ctx)->recovers++; }

static struct cmd_shm t_shm;
static uint8_t t_window[0x10000];
static struct svc t_svc;
static struct cmd_completion t_done[1024];
#define WIN_DEV 0x40000000u

static struct svc *m_service(uint64_t recover_interval)
{
	memset(&mk, 0, sizeof mk);
	const struct svc_config cfg = {&t_shm, t_window, WIN_DEV, sizeof t_window, 1000, 50000,
				       recover_interval, 1};
	const struct svc_backend be = {&mk, m_now, m_idle, m_mem, m_load, m_unload, m_run,
				       m_recover};
	svc_init(&t_svc, &cfg, &be);
	return &t_svc;
}

/* Posts one command and polls; returns its completion (the last one reaped). */
static struct cmd_completion m_do(struct svc *s, const struct cmd *c)
{
	struct cmd_completion r;
	memset(&r, 0xff, sizeof r);
	if (tc_post(&t_shm, c) != 0)
		return r;
	svc_poll(s);
	unsigned n = tc_reap(&t_shm, t_done, 1024);
	if (n)
		r = t_done[n - 1];
	return r;
}

static struct cmd_completion m_hello(struct svc *s)
{
	struct cmd c;
	tc_cmd(&c, CMD_HELLO, -1, 0, 1);
	c.major = CMD_PROTO_MAJOR;
	c.minor = CMD_PROTO_MINOR;
	return m_do(s, &c);
}

static int32_t m_load_prog(struct svc *s, uint8_t first, uint32_t *err)
{
	struct cmd c;
	memset(t_window + 0x100, first, 64);
	tc_load(&c, WIN_DEV + 0x100, 64, 0, 2);
	struct cmd_completion r = m_do(s, &c);
	if (err)
		*err = r.err;
	return r.status == CMD_ST_OK ? (int32_t)r.data[0] : -1;
}

TEST(cmd_svc, handshake_and_ready)
{
	struct svc *s = m_service(100);
	struct cmd c;
	CHECK_EQ(t_shm.table.magic, CMD_CHAN_MAGIC);
	CHECK_EQ(t_shm.table.ready, 0);
	CHECK_EQ(t_shm.table.ch[2].offset, WIN_DEV);
	CHECK_EQ(t_shm.table.ch[0].nslots, CMD_RING_SLOTS);
	tc_cmd(&c, CMD_QUERY, -1, 0, 5);
	struct cmd_completion r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_NOT_READY);
	CHECK_EQ(r.tag, 5);
	CHECK_EQ(m_hello(s).err, CMD_E_NOT_READY);
	svc_ready(s);
	CHECK_EQ(t_shm.table.ready, 1);
	CHECK_EQ(m_do(s, &c).err, CMD_E_NO_HANDSHAKE);
	tc_cmd(&c, CMD_HELLO, -1, 0, 6);
	c.major = CMD_PROTO_MAJOR + 1;
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_VERSION);
	CHECK_EQ(r.data[0], CMD_PROTO_MAJOR);
	tc_cmd(&c, CMD_QUERY, -1, 0, 5);
	CHECK_EQ(m_do(s, &c).err, CMD_E_NO_HANDSHAKE);
	tc_cmd(&c, CMD_HELLO, -1, 0, 6);
	c.major = CMD_PROTO_MAJOR;
	c.minor = CMD_PROTO_MINOR + 4; /* a minor mismatch warns and continues */
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[2], 1);
	tc_cmd(&c, CMD_QUERY, -1, 0, 5);
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[CMD_Q_ENGINES], 1);
	CHECK_EQ(r.data[CMD_Q_MAX_PROGRAMS], SVC_MAX_PROGRAMS);
	CHECK_EQ(r.data[CMD_Q_LIMITS] & 0xff, 8);
	CHECK_EQ(r.data[CMD_Q_LIMITS] >> 8 & 0xff, 32);
	CHECK_EQ(r.data[CMD_Q_TICK_HZ], 1000);
	CHECK_EQ(r.data[CMD_Q_DEFAULT_DEADLINE], 50000);
	/* an unknown command: not supported, counted, never acted on */
	tc_cmd(&c, 0x0777, -1, 0, 9);
	uint8_t raw[32];
	cmd_encode_hdr(raw, sizeof raw, &c.h);
	CHECK_EQ(tc_post_raw(&t_shm, raw, sizeof raw), 0);
	svc_poll(s);
	CHECK_EQ(tc_reap(&t_shm, t_done, 4), 1);
	CHECK_EQ(t_done[0].err, CMD_E_UNSUPPORTED);
	CHECK_EQ(t_done[0].id, 0x0777);
	CHECK_EQ(s->st.unsupported, 1);
	CHECK(svc_accounting_ok(s));
}

TEST(cmd_svc, load_copies_before_validating)
{
	struct svc *s = m_service(100);
	svc_ready(s);
	m_hello(s);
	uint32_t err;
	int32_t id = m_load_prog(s, 0x11, &err);
	REQUIRE(id >= 0);
	CHECK_EQ(mk.len[0], 64);
	CHECK_EQ(mk.seen[0][0], 0x11);
	/* the host changes the window after the load: the service's copy does not change */
	memset(t_window + 0x100, 0xee, 64);
	CHECK_EQ(mk.mem[0][5], 0x11);
	CHECK(mk.mem[0] != t_window + 0x100);
	/* a refused program: the loader's code, the slot stays free */
	int32_t bad = m_load_prog(s, 0xee, &err);
	CHECK_EQ(bad, -1);
	CHECK_EQ(err, CMD_E_PROGRAM);
	struct cmd c;
	tc_load(&c, WIN_DEV + sizeof t_window - 10, 64, 0, 3);
	CHECK_EQ(m_do(s, &c).err, CMD_E_LOAD_RANGE);
	c.off = WIN_DEV - 1;
	CHECK_EQ(m_do(s, &c).err, CMD_E_LOAD_RANGE);
	c.off = UINT64_MAX - 4;
	CHECK_EQ(m_do(s, &c).err, CMD_E_LOAD_RANGE);
	c.off = WIN_DEV;
	c.len = 0;
	CHECK_EQ(m_do(s, &c).err, CMD_E_LOAD_RANGE);
	c.len = 1000; /* the mock's memory holds 256 */
	CHECK_EQ(m_do(s, &c).err, CMD_E_NOMEM);
	/* capacity: SVC_MAX_PROGRAMS, then program-table-full */
	int32_t ids[SVC_MAX_PROGRAMS];
	ids[0] = id;
	for (unsigned i = 1; i < SVC_MAX_PROGRAMS; i++)
		CHECK((ids[i] = m_load_prog(s, (uint8_t)(0x20 + i), NULL)) >= 0);
	CHECK_EQ(m_load_prog(s, 0x30, &err), -1);
	CHECK_EQ(err, CMD_E_CAPACITY);
	/* unload, then the id is stale even once the slot is reused */
	tc_cmd(&c, CMD_UNLOAD, ids[1], 0, 4);
	CHECK_EQ(m_do(s, &c).err, CMD_OK);
	CHECK_EQ(mk.unloads, 1);
	CHECK_EQ(m_do(s, &c).err, CMD_E_NO_PROGRAM);
	int32_t again = m_load_prog(s, 0x31, NULL);
	CHECK(again >= 0);
	CHECK(again != ids[1]);
	CHECK_EQ(svc_slot_of(s, ids[1]), -1);
	tc_cmd(&c, CMD_CALL, ids[1], 0, 5);
	CHECK_EQ(m_do(s, &c).err, CMD_E_NO_PROGRAM);
	tc_cmd(&c, CMD_CALL, again, 0, 5);
	c.h.procedure = 1;
	CHECK_EQ(m_do(s, &c).err, CMD_E_PROCEDURE);
	tc_cmd(&c, CMD_PROGRAM_INFO, again, 0, 6);
	c.bar = 6;
	struct cmd_completion r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[0], 1u << 1 | 1u << 5 | 1u << 6);
	CHECK_EQ(r.data[1], 1u << 1);
	CHECK_EQ(r.data[2], CMD_ACC_WRITE);
	CHECK_EQ(r.data[3], 0x100);
	CHECK(svc_accounting_ok(s));
}

TEST(cmd_svc, override_checks)
{
	struct svc_prog p;
	memset(&p, 0, sizeof p);
	p.used = 1u << 1 | 1u << 5 | 1u << 6;
	p.fixed = 1u << 1;
	p.bar[1] = (struct svc_bar){0x50000000, 0x80, CMD_ACC_READ, 3};
	p.bar[5] = (struct svc_bar){0x50001000, 0x100, CMD_ACC_READ, 1};
	p.bar[6] = (struct svc_bar){0x50002000, 0x100, CMD_ACC_WRITE, 1};
	const struct svc_region rg[1] = {{0x40000000, 0x10000, CMD_ACC_READ | CMD_ACC_WRITE}};
	struct svc_bars out;
	int where;
	struct cmd_ov ov[3] = {{5, CMD_ACC_READ, 0x40000000, 0x100},
			       {6, CMD_ACC_READ | CMD_ACC_WRITE, 0x40001000, 0x200}};
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_OK);
	CHECK_EQ(out.base[5], 0x40000000);
	CHECK_EQ(out.base[6], 0x40001000);
	CHECK_EQ(out.base[1], 0x50000000);
	CHECK_EQ(out.overridden, 1u << 5 | 1u << 6);
	ov[1].bar = 7;
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_UNUSED);
	CHECK_EQ(where, 1);
	ov[1].bar = 1;
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_FIXED);
	ov[1] = (struct cmd_ov){6, CMD_ACC_READ, 0x40001000, 0x200};
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_ACCESS);
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0x40001000, 0xff};
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_SMALL);
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0x4000ff80, 0x100}; /* past the window */
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_OUTSIDE);
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, UINT64_MAX - 0x10, 0x100}; /* wraps */
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_OUTSIDE);
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0xfffff000, 0x100}; /* inside no region */
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_OUTSIDE);
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0x40000080, 0x100}; /* output over the input */
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg, 1, &out, &where), CMD_E_OV_ALIAS);
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0x50000040, 0x100}; /* output over the weights */
	const struct svc_region rg2[2] = {rg[0], {0x50000000, 0x1000, CMD_ACC_WRITE}};
	CHECK_EQ(svc_check_overrides(&p, ov, 2, rg2, 2, &out, &where), CMD_E_OV_ALIAS);
	/* a region granted read-only cannot take a written buffer */
	const struct svc_region ro[1] = {{0x40000000, 0x10000, CMD_ACC_READ}};
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0x40001000, 0x100};
	CHECK_EQ(svc_check_overrides(&p, ov, 2, ro, 1, &out, &where), CMD_E_OV_OUTSIDE);
	/* reads may share */
	ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, 0x40001000, 0x100};
	ov[2] = (struct cmd_ov){5, CMD_ACC_READ, 0x40000000, 0x100};
	CHECK_EQ(svc_check_overrides(&p, ov, 3, rg, 1, &out, &where), CMD_E_BAR); /* BAR 5 twice */
	CHECK_EQ(where, 2);
}

TEST(cmd_svc, priority_order_fifo_and_events)
{
	struct svc *s = m_service(100);
	svc_ready(s);
	m_hello(s);
	int32_t id = m_load_prog(s, 0x11, NULL);
	REQUIRE(id >= 0);
	struct cmd c;
	/* 120 calls, priorities scrambled, posted before the service runs any */
	unsigned n = 120;
	for (unsigned i = 0; i < n; i++) {
		tc_cmd(&c, CMD_CALL, id, (i * 5u + i / 7u) % 8u, 1000 + i);
		REQUIRE(tc_post(&t_shm, &c) == 0);
	}
	svc_poll(s);
	unsigned got = tc_reap(&t_shm, t_done, 1024);
	CHECK_EQ(got, n);
	CHECK_EQ(mk.runs, n);
	unsigned bad = 0;
	for (unsigned k = 1; k < got; k++) {
		unsigned a = t_done[k - 1].tag - 1000, b = t_done[k].tag - 1000;
		unsigned pa = (a * 5u + a / 7u) % 8u, pb = (b * 5u + b / 7u) % 8u;
		if (pa > pb || (pa == pb && a > b))
			bad++;
	}
	CHECK_EQ(bad, 0);
	/* the checker fails on a wrong order: swap two completions of different levels */
	struct cmd_completion t = t_done[0];
	t_done[0] = t_done[got - 1];
	t_done[got - 1] = t;
	unsigned a = t_done[0].tag - 1000, b = t_done[1].tag - 1000;
	CHECK((a * 5u + a / 7u) % 8u > (b * 5u + b / 7u) % 8u);
	/* events: a high-priority waiter posted first runs only after the signalling call */
	tc_cmd(&c, CMD_CALL_EVENTS, id, 0, 1);
	c.nwait = 1;
	c.nsignal = 1;
	c.ev[0] = (struct cmd_ev){0, 0, 7, 2};
	c.ev[1] = (struct cmd_ev){0, 0, 8, 1};
	REQUIRE(tc_post(&t_shm, &c) == 0);
	tc_cmd(&c, CMD_CALL_EVENTS, id, 7, 2);
	c.nsignal = 1;
	c.ev[0] = (struct cmd_ev){0, 0, 7, 2};
	REQUIRE(tc_post(&t_shm, &c) == 0);
	svc_poll(s);
	got = tc_reap(&t_shm, t_done, 1024);
	CHECK_EQ(got, 2);
	CHECK_EQ(t_done[0].tag, 2);
	CHECK_EQ(t_done[1].tag, 1);
	CHECK_EQ(s->events[8], 1);
	/* a wait nobody satisfies in time: deadline-expired while held */
	tc_cmd(&c, CMD_CALL_EVENTS, id, 0, 3);
	c.h.deadline = 20;
	c.nwait = 1;
	c.nsignal = 1;
	c.ev[0] = (struct cmd_ev){0, 0, 9, 1};
	c.ev[1] = (struct cmd_ev){0, 0, 10, 1};
	REQUIRE(tc_post(&t_shm, &c) == 0);
	for (unsigned i = 0; i < 30; i++)
		svc_poll(s);
	got = tc_reap(&t_shm, t_done, 1024);
	CHECK_EQ(got, 1);
	CHECK_EQ(t_done[0].err, CMD_E_DEADLINE);
	CHECK_EQ(t_done[0].status, CMD_ST_ABORTED);
	/* the host's SIGNAL releases a waiter */
	c.h.deadline = 0;
	c.h.tag = 4;
	REQUIRE(tc_post(&t_shm, &c) == 0);
	svc_poll(s);
	CHECK_EQ(tc_reap(&t_shm, t_done, 1024), 0);
	tc_cmd(&c, CMD_SIGNAL, -1, 0, 5);
	c.ev_id = 9;
	c.ev_value = 1;
	REQUIRE(tc_post(&t_shm, &c) == 0);
	svc_poll(s);
	got = tc_reap(&t_shm, t_done, 1024);
	CHECK_EQ(got, 2);
	CHECK_EQ(t_done[0].tag, 5);
	CHECK_EQ(t_done[1].tag, 4);
	CHECK_EQ(t_done[1].err, CMD_OK);
	CHECK(svc_accounting_ok(s));
}

/* A CHAIN of program a, then program b with one link (its BARs for the caller to set). */
static void chain_of_two(struct cmd *c, int32_t a, int32_t b)
{
	tc_cmd(c, CMD_CHAIN, a, 2, 1);
	c->nsteps = 2;
	c->step[0].program = a;
	c->step[1].program = b;
	c->step[1].nlinks = 1;
}

TEST(cmd_svc, chain_links_and_overrides)
{
	struct svc *s = m_service(100);
	svc_ready(s);
	m_hello(s);
	int32_t a = m_load_prog(s, 0x11, NULL), b = m_load_prog(s, 0x12, NULL);
	REQUIRE(a >= 0 && b >= 0);
	struct cmd c;
	chain_of_two(&c, a, b);
	c.step[1].link[0] = (struct cmd_link){5, 6}; /* b's input <- a's output */
	struct cmd_completion r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[0], 2);
	CHECK_EQ(mk.runs, 2);
	CHECK_EQ(mk.last_slot, 1);
	CHECK_EQ(mk.last.base[5], s->prog[0].info.bar[6].base);
	CHECK_EQ(mk.last.overridden, 1u << 5);
	/* a link from a fixed BAR or one the previous call does not use */
	c.step[1].link[0] = (struct cmd_link){5, 1};
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_LINK);
	CHECK_EQ(r.where, 1);
	c.step[1].link[0] = (struct cmd_link){5, 9};
	CHECK_EQ(m_do(s, &c).err, CMD_E_LINK);
	/* a link onto the previous output that the next call would write: alias with its input? no:
	 * its output BAR 6 linked to a's output is fine; BAR 6 and BAR 5 both onto a's output
	 * overlap a written buffer */
	c.step[1].nlinks = 2;
	c.step[1].link[0] = (struct cmd_link){5, 6};
	c.step[1].link[1] = (struct cmd_link){6, 6};
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_OV_ALIAS);
	CHECK_EQ(r.status, CMD_ST_FAILED); /* the first call ran */
	/* overrides through CALL_BARS reach the backend */
	tc_cmd(&c, CMD_CALL_BARS, a, 1, 2);
	c.nov = 2;
	c.ov[0] = (struct cmd_ov){5, CMD_ACC_READ, WIN_DEV + 0x1000, 0x100};
	c.ov[1] = (struct cmd_ov){6, CMD_ACC_WRITE, WIN_DEV + 0x2000, 0x100};
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(mk.last.base[5], WIN_DEV + 0x1000);
	CHECK_EQ(mk.last.base[6], WIN_DEV + 0x2000);
	c.ov[1].addr = WIN_DEV + 0x1080;
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_OV_ALIAS);
	CHECK_EQ(r.where, 0); /* the input it overlaps */
	CHECK_EQ(r.status, CMD_ST_REFUSED);
	CHECK(svc_accounting_ok(s));
}

/* A link's source is an output of the previous call: a BAR it only reads (its input or
 * constant, in its own memory) is bad-link, or the next call could write into it and change the
 * previous program for every later call; a buffer it reads and writes is read-only to the next
 * call. (Before: both linked read-write.) */
TEST(cmd_svc, chain_links_only_from_outputs)
{
	struct svc *s = m_service(100);
	svc_ready(s);
	m_hello(s);
	int32_t a = m_load_prog(s, 0x77, NULL), b = m_load_prog(s, 0x12, NULL);
	REQUIRE(a >= 0 && b >= 0);
	struct cmd c;
	chain_of_two(&c, a, b);
	/* the control: b's input <- a's output */
	c.step[1].link[0] = (struct cmd_link){5, 6};
	struct cmd_completion r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[0], 2);
	/* b's output <- a's input (read only by a): refused before step 1 runs */
	mk.runs = 0;
	c.step[1].link[0] = (struct cmd_link){6, 5};
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_LINK);
	CHECK_EQ(r.where, 1);
	CHECK_EQ(r.data[0], 1);
	CHECK_EQ(mk.runs, 1);
	/* b's input <- a's input: refused too (not an output) */
	c.step[1].link[0] = (struct cmd_link){5, 5};
	CHECK_EQ(m_do(s, &c).err, CMD_E_LINK);
	/* a's in-place BAR 7: b may read it ... */
	c.step[1].link[0] = (struct cmd_link){5, 7};
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(mk.last.base[5], s->prog[0].info.bar[7].base);
	/* ... but not write it */
	c.step[1].link[0] = (struct cmd_link){6, 7};
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_OV_ACCESS);
	CHECK_EQ(r.where, 1);
	/* b's output onto a's output (written only by a): read-write, runs */
	c.step[1].link[0] = (struct cmd_link){6, 6};
	CHECK_EQ(m_do(s, &c).err, CMD_OK);
	CHECK_EQ(mk.last.base[6], s->prog[0].info.bar[6].base);
	CHECK(svc_accounting_ok(s));
}

/* A program whose schema has a fixed BAR it reads as the host's data (app/service.c's schema:
 * kernels from a runtime BAR) is refused at LOAD by name, the BAR in where, and its slot freed;
 * the control loads. */
TEST(cmd_svc, load_refuses_a_fixed_input)
{
	struct svc *s = m_service(100);
	svc_ready(s);
	m_hello(s);
	uint32_t err = 0;
	struct cmd c;
	memset(t_window + 0x100, 0x66, 64);
	tc_load(&c, WIN_DEV + 0x100, 64, 0, 2);
	struct cmd_completion r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_FIXED_INPUT);
	CHECK_EQ(r.status, CMD_ST_REFUSED);
	CHECK_EQ(r.where, 6);
	CHECK_EQ(mk.unloads, 1);
	CHECK(!strcmp(cmd_err_name(CMD_E_FIXED_INPUT), "fixed-input"));
	for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++)
		CHECK(m_load_prog(s, 0x11, &err) >= 0);
	CHECK(svc_accounting_ok(s));
}

/* The byte link's service (hello_unloads): a client that went away without UNLOAD leaves its
 * programs to the next HELLO, which unloads them (data[3] says how many), so four slots are free
 * again; the stale ids are program-not-loaded. The control: without the option a HELLO keeps
 * them and the table stays full. */
TEST(cmd_svc, hello_unloads_what_the_last_client_left)
{
	for (int on = 0; on <= 1; on++) {
		struct svc *s = m_service(100);
		s->hello_unloads = on;
		svc_ready(s);
		m_hello(s);
		int32_t ids[SVC_MAX_PROGRAMS];
		uint32_t err = 0;
		for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++)
			ids[i] = m_load_prog(s, 0x11, NULL);
		CHECK(ids[SVC_MAX_PROGRAMS - 1] >= 0);
		CHECK(m_load_prog(s, 0x11, &err) < 0);
		CHECK_EQ(err, CMD_E_CAPACITY);
		/* the next client */
		struct cmd_completion r = m_hello(s);
		CHECK_EQ(r.err, CMD_OK);
		CHECK_EQ(r.data[3], on ? SVC_MAX_PROGRAMS : 0u);
		CHECK_EQ(mk.unloads, on ? (int)SVC_MAX_PROGRAMS : 0);
		struct cmd c;
		tc_cmd(&c, CMD_CALL, ids[0], 0, 9);
		CHECK_EQ(m_do(s, &c).err, on ? CMD_E_NO_PROGRAM : CMD_OK);
		int32_t id = m_load_prog(s, 0x11, &err);
		if (on)
			CHECK(id >= 0);
		else
			CHECK_EQ(err, CMD_E_CAPACITY);
		CHECK(svc_accounting_ok(s));
	}
}

TEST(cmd_svc, deadline_abort_and_rate_limited_recovery)
{
	struct svc *s = m_service(1000);
	svc_ready(s);
	m_hello(s);
	int32_t id = m_load_prog(s, 0x11, NULL);
	REQUIRE(id >= 0);
	struct cmd c;
	tc_cmd(&c, CMD_CALL, id, 2, 1);
	c.h.deadline = 50;
	mk.fail_runs = 1;
	mk.next_err = CMD_E_DEADLINE;
	struct cmd_completion r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_DEADLINE);
	CHECK_EQ(r.status, CMD_ST_ABORTED);
	CHECK_EQ(mk.last_budget, 50);
	CHECK_EQ(mk.recovers, 1);
	/* a second failure within the interval: not ready until it passes */
	mk.fail_runs = 1;
	mk.next_err = CMD_E_ENGINE;
	c.h.deadline = 0;
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_ENGINE);
	CHECK_EQ(r.status, CMD_ST_FAILED);
	CHECK_EQ(r.domain, SUBQ_DOM_ENGINE);
	CHECK_EQ(mk.recovers, 1);
	CHECK_EQ(t_shm.table.ready, 0);
	CHECK_EQ(s->state, SVC_RECOVERING);
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_E_RECOVERING);
	while (s->state == SVC_RECOVERING && mk.now < 10000)
		svc_poll(s);
	CHECK_EQ(mk.recovers, 2);
	CHECK_EQ(t_shm.table.ready, 1);
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK(svc_accounting_ok(s));
	/* a call that runs past its budget, then one that completes */
	mk.now += 5000;
	c.h.deadline = 5;
	REQUIRE(tc_post(&t_shm, &c) == 0);
	c.h.deadline = 0;
	c.h.tag = 2;
	REQUIRE(tc_post(&t_shm, &c) == 0);
	int runs = mk.runs;
	mk.fail_runs = 1;
	mk.next_err = CMD_E_DEADLINE; /* the first call runs past its budget */
	svc_poll(s);
	unsigned got = tc_reap(&t_shm, t_done, 16);
	CHECK_EQ(got, 2);
	CHECK_EQ(mk.runs, runs + 2);
	CHECK_EQ(t_done[0].err, CMD_E_DEADLINE);
	CHECK_EQ(t_done[1].err, CMD_OK);
}

TEST(cmd_svc, backpressure_queue_full_and_shutdown)
{
	struct svc *s = m_service(100);
	svc_ready(s);
	m_hello(s);
	int32_t id = m_load_prog(s, 0x11, NULL);
	REQUIRE(id >= 0);
	struct cmd c;
	/* waits nobody signals keep calls queued: the queue fills, then queue-full */
	tc_cmd(&c, CMD_CALL_EVENTS, id, 3, 0);
	c.nwait = 1;
	c.nsignal = 1;
	c.ev[0] = (struct cmd_ev){0, 0, 20, 1};
	c.ev[1] = (struct cmd_ev){0, 0, 21, 1};
	c.h.deadline = 1000000;
	for (unsigned i = 0; i < SVC_QUEUE_DEPTH + 2; i++) {
		c.h.tag = 100 + i;
		REQUIRE(tc_post(&t_shm, &c) == 0);
	}
	svc_poll(s);
	CHECK_EQ(svc_pending(s), SVC_QUEUE_DEPTH);
	unsigned got = tc_reap(&t_shm, t_done, 1024);
	CHECK_EQ(got, 2);
	CHECK_EQ(t_done[0].err, CMD_E_QUEUE_FULL);
	/* completions the host does not read: the service stops reading commands rather than
	 * lose one (room is kept for every queued call's completion) */
	tc_cmd(&c, CMD_QUERY, -1, 0, 0);
	for (unsigned i = 0; i < CMD_RING_SLOTS; i++) {
		c.h.tag = 1000 + i;
		if (tc_post(&t_shm, &c))
			break;
	}
	svc_poll(s);
	CHECK_EQ(cmd_fw_unread(&t_shm), CMD_COMPL_SLOTS - SVC_QUEUE_DEPTH);
	CHECK(t_shm.h2f.tail != t_shm.h2f.head); /* the rest waits in the ring */
	unsigned total = 0;
	for (unsigned i = 0; i < 10; i++) {
		total += tc_reap(&t_shm, t_done, 1024);
		svc_poll(s);
	}
	CHECK_EQ(total, CMD_RING_SLOTS);
	/* shutdown answers every queued call */
	tc_cmd(&c, CMD_SHUTDOWN, -1, 0, 7);
	REQUIRE(tc_post(&t_shm, &c) == 0);
	svc_poll(s);
	got = tc_reap(&t_shm, t_done, 1024);
	CHECK_EQ(got, SVC_QUEUE_DEPTH + 1);
	CHECK_EQ(t_done[0].err, CMD_E_SHUTDOWN);
	CHECK_EQ(t_done[got - 1].tag, 7);
	CHECK_EQ(s->state, SVC_STOPPED);
	CHECK_EQ(svc_pending(s), 0);
	CHECK(svc_accounting_ok(s));
	CHECK_EQ(svc_poll(s), 0);
}

/* ---- upload and download (WRITE, READ): small, bounds-checked, through the same decoder ---- */
TEST(cmd, write_read_decode_and_errors)
{
	static uint8_t data[CMD_MAX_XFER + 1], rec[CMD_MAX_RECORD + 64];
	for (unsigned i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 13u + 1u);
	struct cmd c, d;
	tc_cmd(&c, CMD_WRITE, -1, 0, 3);
	c.off = 0x1234;
	c.xlen = CMD_MAX_XFER;
	c.xdata = data;
	size_t n = cmd_encode(rec, sizeof rec, &c);
	CHECK_EQ(n, CMD_HDR_BYTES + CMD_XFER_HDR + CMD_MAX_XFER);
	CHECK(n <= CMD_MAX_RECORD);
	CHECK_EQ(cmd_decode(rec, n, &d), CMD_OK);
	CHECK_EQ(d.off, 0x1234);
	CHECK_EQ(d.xlen, CMD_MAX_XFER);
	CHECK(d.xdata == rec + CMD_HDR_BYTES + CMD_XFER_HDR);
	CHECK_MEM(d.xdata, data, CMD_MAX_XFER);
	static uint8_t again[CMD_MAX_RECORD];
	CHECK_EQ(cmd_encode(again, sizeof again, &d), n);
	CHECK_MEM(again, rec, n);
	/* one byte too many is not encoded; a record that says so is refused */
	c.xlen = CMD_MAX_XFER + 1;
	CHECK_EQ(cmd_encode(rec, sizeof rec, &c), 0);
	c.xlen = 8;
	n = cmd_encode(rec, sizeof rec, &c);
	le_wr32(rec + CMD_HDR_BYTES + 8, 0);
	CHECK_EQ(cmd_decode(rec, n, &d), CMD_E_BAD_COUNT);
	le_wr32(rec + CMD_HDR_BYTES + 8, 9); /* says 9, carries 8 */
	CHECK_EQ(cmd_decode(rec, n, &d), CMD_E_BAD_SIZE);
	le_wr32(rec + CMD_HDR_BYTES + 8, 8);
	le_wr32(rec + CMD_HDR_BYTES + 12, 1);
	CHECK_EQ(cmd_decode(rec, n, &d), CMD_E_RESERVED);
	le_wr32(rec + 4, 8); /* a body shorter than the transfer header */
	CHECK_EQ(cmd_decode(rec, CMD_HDR_BYTES + 8, &d), CMD_E_BAD_SIZE);
	/* READ: a fixed body */
	tc_cmd(&c, CMD_READ, -1, 0, 4);
	c.off = 16;
	c.xlen = 100;
	n = cmd_encode(rec, sizeof rec, &c);
	CHECK_EQ(n, CMD_HDR_BYTES + CMD_XFER_HDR);
	CHECK_EQ(cmd_decode(rec, n, &d), CMD_OK);
	CHECK_EQ(d.xlen, 100);
	CHECK(d.xdata == NULL);
	le_wr32(rec + CMD_HDR_BYTES + 8, CMD_MAX_XFER + 1);
	CHECK_EQ(cmd_decode(rec, n, &d), CMD_E_BAD_COUNT);
	CHECK_EQ(cmd_decode(rec, n + 1, &d), CMD_E_BAD_SIZE);
	CHECK(!strcmp(cmd_id_name(CMD_WRITE), "write"));
	CHECK(!strcmp(cmd_err_name(CMD_E_XFER_RANGE), "transfer-outside-window"));
}

TEST(cmd_svc, write_and_read_the_window)
{
	struct svc *s = m_service(100);
	svc_ready(s);
	CHECK_EQ(m_hello(s).err, CMD_OK);
	static uint8_t data[64];
	for (unsigned i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(0xc0 + i);
	struct cmd c;
	tc_cmd(&c, CMD_WRITE, -1, 0, 11);
	c.off = sizeof t_window - sizeof data; /* the last bytes of the window */
	c.xlen = sizeof data;
	c.xdata = data;
	memset(t_window + c.off, 0, sizeof data);
	struct cmd_completion r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_MEM(t_window + c.off, data, sizeof data);
	/* one byte past the end, an offset past it, an offset that wraps: refused, nothing written */
	uint8_t before = t_window[0];
	c.off = sizeof t_window - sizeof data + 1;
	CHECK_EQ(m_do(s, &c).err, CMD_E_XFER_RANGE);
	c.off = sizeof t_window + 1;
	CHECK_EQ(m_do(s, &c).err, CMD_E_XFER_RANGE);
	c.off = ~0ull - 8;
	CHECK_EQ(m_do(s, &c).err, CMD_E_XFER_RANGE);
	CHECK_EQ(t_window[0], before);
	tc_cmd(&c, CMD_READ, -1, 0, 12);
	c.off = 0x8000;
	c.xlen = 300;
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[0], 0x8000);
	CHECK_EQ(r.data[1], 0);
	CHECK_EQ(r.data[2], 300);
	c.off = sizeof t_window - 299;
	CHECK_EQ(m_do(s, &c).err, CMD_E_XFER_RANGE);
	tc_cmd(&c, CMD_WINDOW, -1, 0, 13);
	r = m_do(s, &c);
	CHECK_EQ(r.err, CMD_OK);
	CHECK_EQ(r.data[0], WIN_DEV);
	CHECK_EQ(r.data[2], sizeof t_window);
	CHECK(svc_accounting_ok(s));
}
