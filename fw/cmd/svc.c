/* The command service (see svc.h and docs/service.md). */
#include "fw/cmd/svc.h"
#include "fw/regmap/h13.h"

#include <stddef.h>
#include <string.h>

/* ---- completions ---- */

static void post(struct svc *s, const struct cmd_hdr *h, uint32_t status, enum cmd_err e,
		 uint32_t domain, uint32_t code, int where, const uint32_t *data)
{
	struct cmd_completion c;
	c.id = h->id;
	c.tag = h->tag;
	c.status = status;
	c.err = (uint32_t)e;
	c.domain = domain;
	c.code = code;
	c.seq = ++s->seq;
	c.where = (uint32_t)where;
	if (data)
		memcpy(c.data, data, sizeof c.data);
	else
		memset(c.data, 0, sizeof c.data);
	if (status == CMD_ST_REFUSED)
		s->st.refused++;
	else if (status == CMD_ST_FAILED)
		s->st.failed++;
	else if (status == CMD_ST_ABORTED)
		s->st.aborted++;
	if (cmd_fw_post(s->cfg.shm, &c) == CMD_RING_OK)
		s->st.completed++;
	else
		s->st.ring_corrupt++; /* room was reserved: only a host that broke the indices */
}

static void refuse(struct svc *s, const struct cmd_hdr *h, enum cmd_err e, int where)
{
	post(s, h, CMD_ST_REFUSED, e, SUBQ_DOM_NONE, 0, where, NULL);
}

/* ---- set-up ---- */

void svc_init(struct svc *s, const struct svc_config *cfg, const struct svc_backend *be)
{
	memset(s, 0, sizeof *s);
	s->cfg = *cfg;
	s->be = *be;
	s->state = SVC_BOOT;
	for (unsigned l = 0; l < CMD_PRIORITIES; l++)
		s->qhead[l] = s->qtail[l] = -1;
	for (unsigned i = 0; i < SVC_QUEUE_DEPTH; i++)
		s->call[i].next = (int16_t)(i + 1 < SVC_QUEUE_DEPTH ? (int)i + 1 : -1);
	s->free_head = 0;
	struct cmd_shm *m = cfg->shm;
	memset(m, 0, offsetof(struct cmd_shm, h2f_slot));
	m->f2h.head = m->f2h.tail = 0;
	struct cmd_chan_table *t = &m->table;
	t->magic = CMD_CHAN_MAGIC;
	t->version = CMD_PROTO_MAJOR << 16 | CMD_PROTO_MINOR;
	t->nchan = CMD_NCHAN;
	t->ch[0] = (struct cmd_chan_desc){CMD_CHAN_H2F, CMD_SLOT_BYTES, CMD_RING_SLOTS, 0,
					  offsetof(struct cmd_shm, h2f), sizeof m->h2f_slot};
	t->ch[1] = (struct cmd_chan_desc){CMD_CHAN_F2H, CMD_COMPL_BYTES, CMD_COMPL_SLOTS, 0,
					  offsetof(struct cmd_shm, f2h), sizeof m->f2h_slot};
	t->ch[2] = (struct cmd_chan_desc){CMD_CHAN_DATA, 0, 0, 0, cfg->window_dev, cfg->window_size};
	__atomic_store_n(&t->ready, 0, __ATOMIC_RELEASE);
}

void svc_ready(struct svc *s)
{
	if (s->state == SVC_BOOT)
		s->state = SVC_READY;
	__atomic_store_n(&s->cfg.shm->table.ready, 1, __ATOMIC_RELEASE);
}

unsigned svc_pending(const struct svc *s)
{
	return s->queued;
}

int svc_accounting_ok(const struct svc *s)
{
	return s->st.accepted == s->st.completed + s->queued;
}

/* ---- programs ---- */

int32_t svc_program_id(const struct svc *s, unsigned slot)
{
	if (slot >= SVC_MAX_PROGRAMS || !s->prog[slot].loaded)
		return -1;
	return (int32_t)((s->prog[slot].gen & 0x7fffffu) << 8 | slot);
}

int svc_slot_of(const struct svc *s, int32_t id)
{
	if (id < 0)
		return -1;
	unsigned slot = (uint32_t)id & 0xffu;
	if (slot >= SVC_MAX_PROGRAMS || !s->prog[slot].loaded ||
	    ((uint32_t)id >> 8) != (s->prog[slot].gen & 0x7fffffu))
		return -1;
	return (int)slot;
}

static void do_load(struct svc *s, const struct cmd *c)
{
	unsigned slot = 0;
	while (slot < SVC_MAX_PROGRAMS && s->prog[slot].loaded)
		slot++;
	if (slot == SVC_MAX_PROGRAMS) {
		refuse(s, &c->h, CMD_E_CAPACITY, -1);
		return;
	}
	uint64_t end;
	if (c->len == 0 || c->off < s->cfg.window_dev ||
	    __builtin_add_overflow(c->off - s->cfg.window_dev, c->len, &end) ||
	    end > s->cfg.window_size || c->len > (size_t)-1) {
		refuse(s, &c->h, CMD_E_LOAD_RANGE, -1);
		return;
	}
	uint8_t *mem = s->be.prog_mem(s->be.ctx, slot, (size_t)c->len);
	if (!mem) {
		refuse(s, &c->h, CMD_E_NOMEM, -1);
		return;
	}
	/* copy first: everything after this line looks only at the service's own copy */
	memcpy(mem, s->cfg.window + (c->off - s->cfg.window_dev), (size_t)c->len);
	struct svc_slot *p = &s->prog[slot];
	struct svc_result r = {CMD_OK, 0, 0, {0}};
	memset(&p->info, 0, sizeof p->info);
	s->be.load(s->be.ctx, slot, (size_t)c->len, c->flags, &p->info, &r);
	if (r.err != CMD_OK) {
		uint32_t d[CMD_COMPL_DATA] = {0};
		memcpy(d + CMD_COMPL_FAULT, r.fault, sizeof r.fault); /* the refusal's detail */
		post(s, &c->h, CMD_ST_REFUSED, r.err, r.domain, r.code, -1, d);
		return;
	}
	if (p->info.unbound) {
		/* its data would come from the host, but no call can bind the BAR: the run would
		 * compute on the fill pattern (docs/service.md, "Fixed BARs") */
		s->be.unload(s->be.ctx, slot);
		refuse(s, &c->h, CMD_E_FIXED_INPUT, __builtin_ctz(p->info.unbound));
		return;
	}
	if (!p->info.procedures)
		p->info.procedures = 1;
	p->loaded = 1;
	p->gen++;
	uint32_t d[CMD_COMPL_DATA] = {(uint32_t)svc_program_id(s, slot), p->info.ntds};
	post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, d);
}

static void do_unload(struct svc *s, const struct cmd *c)
{
	int slot = svc_slot_of(s, c->h.program);
	if (slot < 0) {
		refuse(s, &c->h, CMD_E_NO_PROGRAM, -1);
		return;
	}
	s->be.unload(s->be.ctx, (unsigned)slot);
	s->prog[slot].loaded = 0;
	post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, NULL);
}

static void do_info(struct svc *s, const struct cmd *c)
{
	int slot = svc_slot_of(s, c->h.program);
	if (slot < 0) {
		refuse(s, &c->h, CMD_E_NO_PROGRAM, -1);
		return;
	}
	const struct svc_prog *p = &s->prog[slot].info;
	const struct svc_bar *b = &p->bar[c->bar];
	uint32_t d[CMD_COMPL_DATA] = {p->used, p->fixed, b->access, (uint32_t)b->need,
				      (uint32_t)(b->need >> 32), p->ntds, p->procedures};
	post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, d);
}

/* WRITE copies bytes into the data window; READ checks the range and answers it (data[0..1] the
 * offset, data[2] the length): the transport sends the window's bytes after the completion. The
 * range is checked without overflow: off <= size and len <= size - off. */
static void do_xfer(struct svc *s, const struct cmd *c)
{
	uint64_t size = s->cfg.window_size;
	if (!s->cfg.window || c->off > size || c->xlen > size - c->off) {
		refuse(s, &c->h, CMD_E_XFER_RANGE, -1);
		return;
	}
	if (c->h.id == CMD_WRITE)
		memcpy(s->cfg.window + c->off, c->xdata, c->xlen);
	uint32_t d[CMD_COMPL_DATA] = {(uint32_t)c->off, (uint32_t)(c->off >> 32), c->xlen};
	post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, d);
}

static void do_query(struct svc *s, const struct cmd *c)
{
	uint32_t d[CMD_COMPL_DATA];
	d[CMD_Q_VERSION] = CMD_PROTO_MAJOR << 16 | CMD_PROTO_MINOR;
	d[CMD_Q_ENGINES] = s->cfg.engines;
	d[CMD_Q_MAX_PROGRAMS] = SVC_MAX_PROGRAMS;
	d[CMD_Q_LIMITS] = CMD_PRIORITIES | CMD_MAX_OVERRIDES << 8 | CMD_MAX_SIGNALS << 16 |
			  CMD_MAX_STEPS << 24;
	d[CMD_Q_QUEUE_DEPTH] = SVC_QUEUE_DEPTH;
	d[CMD_Q_TICK_HZ] = s->cfg.tick_hz;
	d[CMD_Q_DEFAULT_DEADLINE] = s->cfg.default_deadline;
	d[CMD_Q_FW_VERSION] = 1;
	post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, d);
}

/* ---- overrides ---- */

static int overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

enum cmd_err svc_check_overrides(const struct svc_prog *p, const struct cmd_ov *ov, unsigned nov,
				 const struct svc_region *regions, unsigned nregions,
				 struct svc_bars *out, int *where)
{
	*where = -1;
	out->overridden = 0;
	for (uint32_t u = p->used; u; u &= u - 1) {
		unsigned b = (unsigned)__builtin_ctz(u);
		out->base[b] = p->bar[b].base;
	}
	if (nov > CMD_MAX_OVERRIDES)
		return CMD_E_BAD_COUNT;
	for (unsigned i = 0; i < nov; i++) {
		const struct cmd_ov *o = &ov[i];
		*where = (int)i;
		if (o->bar >= CMD_NBARS || (out->overridden >> o->bar & 1u))
			return CMD_E_BAR;
		if (!(p->used >> o->bar & 1u))
			return CMD_E_OV_UNUSED;
		const struct svc_bar *b = &p->bar[o->bar];
		if ((p->fixed >> o->bar & 1u) || (b->flags & SVC_BAR_FIXED))
			return CMD_E_OV_FIXED;
		if (b->access & ~o->access)
			return CMD_E_OV_ACCESS;
		if (o->size < b->need)
			return CMD_E_OV_SMALL;
		uint64_t end;
		if (__builtin_add_overflow(o->addr, o->size, &end) || end > (1ull << H13_ADDR_REACH_BITS))
			return CMD_E_OV_OUTSIDE;
		unsigned r = 0;
		for (; r < nregions; r++)
			if (o->addr >= regions[r].base && o->addr - regions[r].base <= regions[r].size &&
			    o->size <= regions[r].size - (o->addr - regions[r].base) &&
			    !(o->access & ~regions[r].access))
				break;
		if (r == nregions)
			return CMD_E_OV_OUTSIDE;
		out->base[o->bar] = o->addr;
		out->overridden |= 1u << o->bar;
	}
	/* a rebound buffer may not overlap another BAR's buffer where either side is written */
	for (unsigned i = 0; i < nov; i++) {
		unsigned ob = ov[i].bar;
		const struct svc_bar *a = &p->bar[ob];
		*where = (int)i;
		for (uint32_t u = p->used & ~(1u << ob); u; u &= u - 1) {
			unsigned b = (unsigned)__builtin_ctz(u);
			const struct svc_bar *x = &p->bar[b];
			if (((a->access | x->access) & CMD_ACC_WRITE) &&
			    overlap(out->base[ob], a->need, out->base[b], x->need))
				return CMD_E_OV_ALIAS;
		}
	}
	*where = -1;
	return CMD_OK;
}

/* ---- the queue ---- */

static void enqueue(struct svc *s, int idx)
{
	struct svc_call *k = &s->call[idx];
	unsigned l = k->c.h.priority;
	k->next = -1;
	k->used = 1;
	if (s->qtail[l] < 0)
		s->qhead[l] = (int16_t)idx;
	else
		s->call[s->qtail[l]].next = (int16_t)idx;
	s->qtail[l] = (int16_t)idx;
	s->queued++;
}

static void release(struct svc *s, int idx)
{
	s->call[idx].used = 0;
	s->call[idx].next = s->free_head;
	s->free_head = (int16_t)idx;
}

/* Unlinks call idx (prev: its predecessor in level l, or -1). */
static void unlink_call(struct svc *s, unsigned l, int prev, int idx)
{
	int next = s->call[idx].next;
	if (prev < 0)
		s->qhead[l] = (int16_t)next;
	else
		s->call[prev].next = (int16_t)next;
	if (s->qtail[l] == idx)
		s->qtail[l] = (int16_t)prev;
	s->queued--;
}

static int waits_met(const struct svc *s, const struct cmd *c)
{
	for (unsigned i = 0; i < c->nwait; i++)
		if (s->events[c->ev[i].id] < c->ev[i].value)
			return 0;
	return 1;
}

/* Answers every queued call past its deadline. */
static void expire(struct svc *s, uint64_t now)
{
	for (unsigned l = 0; l < CMD_PRIORITIES; l++) {
		int prev = -1;
		for (int i = s->qhead[l]; i >= 0;) {
			int next = s->call[i].next;
			if (now >= s->call[i].deadline_at) {
				unlink_call(s, l, prev, i);
				post(s, &s->call[i].c.h, CMD_ST_ABORTED, CMD_E_DEADLINE, 0, 0, -1, NULL);
				release(s, i);
			} else {
				prev = i;
			}
			i = next;
		}
	}
}

/* The highest-priority call whose waits are met, first in first out within its level. */
static int pick(struct svc *s)
{
	for (unsigned l = 0; l < CMD_PRIORITIES; l++) {
		int prev = -1;
		for (int i = s->qhead[l]; i >= 0; prev = i, i = s->call[i].next)
			if (!s->call[i].c.nwait || waits_met(s, &s->call[i].c)) {
				unlink_call(s, l, prev, i);
				return i;
			}
	}
	return -1;
}

/* ---- running calls ---- */

static void after_failure(struct svc *s)
{
	uint64_t now = s->be.now(s->be.ctx);
	if (!s->recovered_once || now - s->last_recover >= s->cfg.recover_interval) {
		s->be.recover(s->be.ctx);
		s->st.recoveries++;
		s->last_recover = now;
		s->recovered_once = 1;
		return;
	}
	/* failures faster than the recovery cycle: not ready until the interval has passed */
	s->state = SVC_RECOVERING;
	s->recover_until = s->last_recover + s->cfg.recover_interval;
	__atomic_store_n(&s->cfg.shm->table.ready, 0, __ATOMIC_RELEASE);
}

/* Runs one step: program, procedure, overrides, regions. Returns the result (r->err). */
static void run_step(struct svc *s, const struct svc_call *k, int32_t program, uint32_t procedure,
		     const struct cmd_ov *ov, unsigned nov, const struct svc_region *rg, unsigned nrg,
		     struct svc_bars *bars, int *slot_out, struct svc_result *r, int *where, int *ran)
{
	*where = -1;
	r->domain = r->code = 0;
	for (unsigned i = 0; i < CMD_FAULT_WORDS; i++)
		r->fault[i] = 0;
	int slot = svc_slot_of(s, program);
	*slot_out = slot;
	if (slot < 0) {
		s->st.dropped_not_running++;
		r->err = CMD_E_NO_PROGRAM;
		return;
	}
	const struct svc_prog *p = &s->prog[slot].info;
	if (procedure >= p->procedures) {
		r->err = CMD_E_PROCEDURE;
		return;
	}
	r->err = svc_check_overrides(p, ov, nov, rg, nrg, bars, where);
	if (r->err != CMD_OK)
		return;
	uint64_t now = s->be.now(s->be.ctx);
	if (now >= k->deadline_at) {
		r->err = CMD_E_DEADLINE;
		return;
	}
	s->be.run(s->be.ctx, (unsigned)slot, bars, k->c.h.priority, k->deadline_at - now, r);
	s->st.calls_run++;
	*ran = 1;
}

static void run_call(struct svc *s, int idx)
{
	struct svc_call *k = &s->call[idx];
	const struct cmd *c = &k->c;
	struct svc_result r = {CMD_OK, 0, 0, {0}};
	struct svc_region rg[1 + CMD_MAX_LINKS];
	rg[0] = (struct svc_region){s->cfg.window_dev, s->cfg.window_size,
				    CMD_ACC_READ | CMD_ACC_WRITE};
	struct svc_bars bars[2];
	int where = -1, slot = -1, ran = 0, failed_run = 0;
	unsigned steps = 0;
	uint64_t t0 = s->be.now(s->be.ctx);
	if (c->h.id == CMD_CHAIN) {
		for (unsigned i = 0; i < c->nsteps && r.err == CMD_OK; i++) {
			const struct cmd_step *st = &c->step[i];
			struct cmd_ov ov[CMD_MAX_LINKS];
			unsigned nrg = 1;
			const struct svc_bars *pb = &bars[(i + 1) & 1];
			const struct svc_prog *pp = i ? &s->prog[slot].info : NULL;
			for (unsigned j = 0; j < st->nlinks; j++) {
				unsigned sb = st->link[j].src_bar;
				/* the previous call's output at sb, granted for this link only: a BAR
				 * it did not write (its constants, its inputs, its weights) is no
				 * output, and a later step writing there would change the previous
				 * program's own memory for every later call */
				if (!(pp->used >> sb & 1u) || (pp->fixed >> sb & 1u) ||
				    (pp->bar[sb].flags & SVC_BAR_FIXED) ||
				    !(pp->bar[sb].access & CMD_ACC_WRITE)) {
					r.err = CMD_E_LINK;
					where = (int)i;
					break;
				}
				/* a buffer the previous call also reads: read-only to this step */
				uint32_t acc = (pp->bar[sb].access & CMD_ACC_READ)
						       ? CMD_ACC_READ
						       : CMD_ACC_READ | CMD_ACC_WRITE;
				ov[j] = (struct cmd_ov){st->link[j].dst_bar, acc, pb->base[sb],
							pp->bar[sb].need};
				rg[nrg++] = (struct svc_region){pb->base[sb], pp->bar[sb].need, acc};
			}
			if (r.err != CMD_OK)
				break;
			int w;
			int ran_now = 0;
			run_step(s, k, st->program, st->procedure, ov, st->nlinks, rg, nrg, &bars[i & 1],
				 &slot, &r, &w, &ran_now);
			ran |= ran_now;
			failed_run = ran_now && r.err != CMD_OK;
			if (r.err != CMD_OK)
				where = (int)i;
			else
				steps++;
		}
	} else {
		run_step(s, k, c->h.program, c->h.procedure, c->ov, c->nov, rg, 1, &bars[0], &slot, &r,
			 &where, &ran);
		failed_run = ran && r.err != CMD_OK;
		steps = r.err == CMD_OK;
	}
	if (r.err == CMD_OK)
		for (unsigned i = 0; i < c->nsignal; i++)
			s->events[c->ev[c->nwait + i].id] = c->ev[c->nwait + i].value;
	uint32_t d[CMD_COMPL_DATA] = {steps, (uint32_t)(s->be.now(s->be.ctx) - t0)};
	if (r.err == CMD_E_ENGINE)
		for (unsigned i = 0; i < CMD_FAULT_WORDS; i++)
			d[CMD_COMPL_FAULT + i] = r.fault[i];
	uint32_t status = r.err == CMD_OK          ? CMD_ST_OK
			  : r.err == CMD_E_DEADLINE ? CMD_ST_ABORTED
			  : ran                     ? CMD_ST_FAILED
						    : CMD_ST_REFUSED;
	post(s, &c->h, status, r.err, r.domain, r.code, where, d);
	release(s, idx);
	if (failed_run && (r.err == CMD_E_ENGINE || r.err == CMD_E_DEADLINE))
		after_failure(s); /* the engine ran and failed or hung: recover it */
}

/* ---- commands ---- */

static void accept_call(struct svc *s, struct cmd *c)
{
	/* c is the free call slot's own command: decoded in place */
	int idx = s->free_head;
	int slot = svc_slot_of(s, c->h.id == CMD_CHAIN ? c->step[0].program : c->h.program);
	if (slot < 0) {
		refuse(s, &c->h, CMD_E_NO_PROGRAM, c->h.id == CMD_CHAIN ? 0 : -1);
		return;
	}
	for (unsigned i = 0; c->h.id == CMD_CHAIN && i < c->nsteps; i++) {
		int si = svc_slot_of(s, c->step[i].program);
		if (si < 0) {
			refuse(s, &c->h, CMD_E_NO_PROGRAM, (int)i);
			return;
		}
		if (c->step[i].procedure >= s->prog[si].info.procedures) {
			refuse(s, &c->h, CMD_E_PROCEDURE, (int)i);
			return;
		}
	}
	if (c->h.id != CMD_CHAIN && c->h.procedure >= s->prog[slot].info.procedures) {
		refuse(s, &c->h, CMD_E_PROCEDURE, -1);
		return;
	}
	struct svc_call *k = &s->call[idx];
	s->free_head = k->next;
	k->accepted_at = s->be.now(s->be.ctx);
	uint64_t dl = c->h.deadline ? c->h.deadline : s->cfg.default_deadline;
	if (__builtin_add_overflow(k->accepted_at, dl, &k->deadline_at))
		k->deadline_at = UINT64_MAX;
	enqueue(s, idx);
}

static void handle(struct svc *s, size_t len)
{
	size_t n = len < sizeof s->rec ? len : sizeof s->rec;
	struct cmd *c = s->free_head >= 0 ? &s->call[s->free_head].c : &s->scratch;
	enum cmd_err e = cmd_decode(s->rec, n, c);
	if (len > n)
		e = CMD_E_TOO_LARGE;
	if (e == CMD_E_UNSUPPORTED)
		s->st.unsupported++;
	if (e != CMD_OK) {
		refuse(s, &c->h, e, c->where);
		return;
	}
	if (s->state == SVC_BOOT) {
		refuse(s, &c->h, CMD_E_NOT_READY, -1);
		return;
	}
	if (s->state == SVC_RECOVERING) {
		refuse(s, &c->h, CMD_E_RECOVERING, -1);
		return;
	}
	if (c->h.id == CMD_HELLO) {
		if (c->major != CMD_PROTO_MAJOR) {
			uint32_t d[CMD_COMPL_DATA] = {CMD_PROTO_MAJOR, CMD_PROTO_MINOR};
			post(s, &c->h, CMD_ST_REFUSED, CMD_E_VERSION, 0, 0, -1, d);
			return;
		}
		s->state = SVC_OPEN;
		uint32_t left = 0; /* programs the previous client left loaded */
		for (unsigned i = 0; s->hello_unloads && i < SVC_MAX_PROGRAMS; i++)
			if (s->prog[i].loaded) {
				s->be.unload(s->be.ctx, i);
				s->prog[i].loaded = 0;
				left++;
			}
		uint32_t d[CMD_COMPL_DATA] = {CMD_PROTO_MAJOR, CMD_PROTO_MINOR,
					      c->minor != CMD_PROTO_MINOR, left};
		post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, d);
		return;
	}
	if (s->state != SVC_OPEN) {
		refuse(s, &c->h, CMD_E_NO_HANDSHAKE, -1);
		return;
	}
	switch (c->h.id) {
	case CMD_QUERY:
		do_query(s, c);
		return;
	case CMD_PROGRAM_INFO:
		do_info(s, c);
		return;
	case CMD_SIGNAL:
		s->events[c->ev_id] = c->ev_value;
		post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, NULL);
		return;
	case CMD_LOAD:
		do_load(s, c);
		return;
	case CMD_WRITE:
	case CMD_READ:
		do_xfer(s, c);
		return;
	case CMD_WINDOW: {
		const uint64_t dev = s->cfg.window_dev, size = s->cfg.window_size;
		uint32_t d[CMD_COMPL_DATA] = {(uint32_t)dev, (uint32_t)(dev >> 32), (uint32_t)size,
					      (uint32_t)(size >> 32)};
		post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, d);
		return;
	}
	case CMD_UNLOAD:
		do_unload(s, c);
		return;
	case CMD_SHUTDOWN:
		/* every queued call still gets its one completion */
		for (unsigned l = 0; l < CMD_PRIORITIES; l++)
			while (s->qhead[l] >= 0) {
				int i = s->qhead[l];
				unlink_call(s, l, -1, i);
				refuse(s, &s->call[i].c.h, CMD_E_SHUTDOWN, -1);
				release(s, i);
			}
		post(s, &c->h, CMD_ST_OK, CMD_OK, 0, 0, -1, NULL);
		s->state = SVC_STOPPED;
		__atomic_store_n(&s->cfg.shm->table.ready, 0, __ATOMIC_RELEASE);
		return;
	default:
		break;
	}
	if (s->free_head < 0) {
		refuse(s, &c->h, CMD_E_QUEUE_FULL, -1);
		return;
	}
	accept_call(s, c);
}

unsigned svc_poll(struct svc *s)
{
	if (s->state == SVC_STOPPED)
		return 0;
	uint64_t before = s->st.completed, read = 0;
	uint64_t now = s->be.now(s->be.ctx);
	if (s->state == SVC_RECOVERING && now >= s->recover_until) {
		s->be.recover(s->be.ctx);
		s->st.recoveries++;
		s->last_recover = now;
		s->state = SVC_OPEN;
		__atomic_store_n(&s->cfg.shm->table.ready, 1, __ATOMIC_RELEASE);
	}
	if (s->queued)
		expire(s, now);
	for (;;) {
		uint32_t unread = cmd_fw_unread(s->cfg.shm);
		if (unread > CMD_COMPL_SLOTS) {
			s->st.ring_corrupt++;
			break;
		}
		/* room for this command's completion and every queued call's */
		if (unread + s->queued + 1 > CMD_COMPL_SLOTS)
			break;
		size_t len;
		enum cmd_ring_err re = cmd_fw_take(s->cfg.shm, s->rec, sizeof s->rec, &len);
		if (re == CMD_RING_CORRUPT)
			s->st.ring_corrupt++;
		if (re != CMD_RING_OK)
			break;
		s->st.accepted++;
		read++;
		handle(s, len);
		if (s->state == SVC_STOPPED)
			return (unsigned)(s->st.completed - before);
	}
	while (s->state == SVC_OPEN) {
		int i = pick(s);
		if (i < 0)
			break;
		run_call(s, i);
	}
	unsigned posted = (unsigned)(s->st.completed - before);
	if (!posted && !read && s->be.idle)
		s->be.idle(s->be.ctx);
	return posted;
}
