/* The command service on this firmware's engine (see service.h). */
#include "app/service.h"
#include "fw/cmd/schema.h"
#include "hal/hal.h"

_Static_assert(CMD_FAULT_WORDS == ENG_FAULT_WORDS, "a completion carries the engine's fault");

#include <malloc.h> /* memalign (newlib has no posix_memalign) */
#include <stdlib.h>
#include <string.h>

/* TD memory, kernel-unit and fold scratch, grants */
#define ASVC_MAX_REGIONS (3 + SESSION_MAX_GRANTS)

struct aslot {
	uint8_t *copy;              /* the service's own copy of the program */
	size_t copy_len;
	struct ldr_program prog;
	struct ctrl_plan plan;
	struct subq_grant g[SESSION_MAX_GRANTS];
	unsigned ng;
	uint64_t off;               /* slot start in the arena */
	uint64_t regions[ASVC_MAX_REGIONS][2]; /* arena offsets [start, end) of placed buffers */
	unsigned nregions;
	uint64_t ku_in, ku_out;     /* the tile bases the kernel unit holds now */
	uint64_t ku_cpu_off;        /* the unit's offset in the arena */
	uint64_t dirty;             /* bytes from the slot's start a load placed anything in */
	uint64_t painted;           /* bytes from the slot's start that hold the canary (or what a
				       load placed): the whole slot unless lazy_paint */
	int loaded;
};

struct asvc {
	struct app_session *session;
	struct eng eng;             /* the session's engine (its device and operations) */
	const struct eng_ops *inner; /* its operations, when counted wraps them */
	const struct eng_batch *inner_batch;
	struct eng_ops counted;     /* the engine's operations with instruction counting */
	uint64_t engine_instret;
	uint64_t setup_instret;     /* the engine's per-run set-up (eng_begin, eng_end) */
	uint64_t run_instret;       /* inside eng_run (the driver and the engine's operations) */
	struct asvc_opts o;
	uint8_t *arena;
	uint64_t arena_size, window_off;
	struct cmd_shm *shm;
	struct svc svc;
	uint64_t ticks;
	struct aslot slot[SVC_MAX_PROGRAMS];
};

static uint64_t round_page(uint64_t v)
{
	return (v + SESSION_GUARD - 1) & ~(uint64_t)(SESSION_GUARD - 1);
}

/* ---- instruction counting around the engine's operations (benchmark) ---- */

static struct asvc *counting; /* the one service whose engine operations are counted */
#define COUNTED(expr)                                                                           \
	do {                                                                                    \
		uint64_t t0_ = hal_instret();                                                   \
		expr;                                                                           \
		counting->engine_instret += hal_instret() - t0_;                                \
	} while (0)
#define INNER (counting->inner)
static void c_reset(void *dev) { COUNTED(INNER->reset(dev)); }
static int c_queue(void *dev, const struct eng_task *t) { int r; COUNTED(r = INNER->queue(dev, t)); return r; }
static int c_write(void *dev, uint32_t a, uint32_t v) { int r; COUNTED(r = INNER->write(dev, a, v)); return r; }
static uint32_t c_read(const void *dev, uint32_t a) { uint32_t r; COUNTED(r = INNER->read(dev, a)); return r; }
static int c_start(void *dev, unsigned td, uint64_t d) { int r; COUNTED(r = INNER->start(dev, td, d)); return r; }
static void c_poll(void *dev, struct eng_status *st) { COUNTED(INNER->poll(dev, st)); }
static void c_begin(void *dev) { if (INNER->begin) COUNTED(INNER->begin(dev)); }
static void c_end(void *dev) { if (INNER->end) COUNTED(INNER->end(dev)); }
static int c_write_regs(void *dev, const struct ctrl_reg *l, uint32_t n) { int r; COUNTED(r = counting->inner_batch->write_regs(dev, l, n)); return r; }
static void c_read_regs(const void *dev, const struct ctrl_reg *l, uint32_t n, uint32_t *o) { COUNTED(counting->inner_batch->read_regs(dev, l, n, o)); }
static const struct eng_batch c_batch = {c_write_regs, c_read_regs};

/* ---- the backend ---- */

static uint64_t be_now(void *ctx)
{
	return ((struct asvc *)ctx)->ticks;
}

static void be_idle(void *ctx)
{
	((struct asvc *)ctx)->ticks++;
}

static uint8_t *be_prog_mem(void *ctx, unsigned slot, size_t len)
{
	struct aslot *s = &((struct asvc *)ctx)->slot[slot];
	free(s->copy);
	s->copy = memalign(64, len ? len : 1); /* whole lines, as app/job.c's program (the weights' copy) */
	s->copy_len = s->copy ? len : 0;
	return s->copy;
}

/* The canary back over what the last load placed (the rest of the slot still holds it: the
 * audit checks every guard byte, so a stray write there stays visible), not the whole slot:
 * a served slot is up to 256 MiB (hal_platform()->serve_slot) and most programs use a few
 * pages of it. */
static void slot_clear(struct asvc *a, struct aslot *s)
{
	memset(a->arena + s->off, SESSION_CANARY, (size_t)s->dirty);
	s->dirty = 0;
	s->nregions = 0;
	s->loaded = 0;
}

static void add_region(struct aslot *s, uint64_t start, uint64_t len)
{
	s->regions[s->nregions][0] = start;
	s->regions[s->nregions][1] = start + len;
	s->nregions++;
}

static void refuse_ctrl(const struct ctrl_status *st, struct svc_result *r)
{
	r->err = CMD_E_PROGRAM;
	r->domain = ctrl_status_cause(st, &r->code);
}

/* Weights from the program, inputs a pattern, outputs zero (session_fill_buffer). */
static void fill(struct asvc *a, struct aslot *s)
{
	for (unsigned i = 0; i < s->ng; i++)
		session_fill_buffer(&s->prog, &s->g[i], a->arena + (s->g[i].mapped - SESSION_DEV_BASE));
}

static void be_load(void *ctx, unsigned slot, size_t len, uint32_t flags, struct svc_prog *info,
		    struct svc_result *r)
{
	struct asvc *a = ctx;
	struct aslot *s = &a->slot[slot];
	slot_clear(a, s);
	enum ldr_err le = ldr_load(s->copy, len, (flags & CMD_LOAD_F_RAW) ? LDR_F_RAW : 0, &s->prog);
	if (le != LDR_OK) {
		r->err = CMD_E_PROGRAM;
		r->domain = SUBQ_DOM_LOADER;
		r->code = (uint32_t)le;
		return;
	}
	const struct ldr_program *p = &s->prog;
	struct ctrl_status st = CTRL_STATUS_OK;
	if (ctrl_default_grants(p, s->g, SESSION_MAX_GRANTS, &s->ng, &st) != CTRL_OK) {
		refuse_ctrl(&st, r);
		return;
	}
	/* place: guard | TD memory | guard | kernel-unit scratch | guard | fold scratch | guard |
	 * grant | guard ... (the fold scratch: weights the firmware folds, fw/ctrl) */
	uint64_t at = SESSION_GUARD, td_off, ku_off, fold_off, fold_cap = ctrl_fold_cap(p);
	td_off = at;
	at += round_page(p->td_area_len) + SESSION_GUARD;
	ku_off = at;
	at += round_page(p->weights_len) + SESSION_GUARD;
	fold_off = at;
	if (fold_cap)
		at += round_page(fold_cap) + SESSION_GUARD;
	/* every size is checked before anything is placed: a grant over the largest one a
	 * submission may hold is the policy's refusal, as in the local run; a program whose
	 * buffers do not fit its slot is arena-too-large, with the bytes it needs and the
	 * slot's (each term below max_grant: the sum of SESSION_MAX_GRANTS of them cannot wrap) */
	for (unsigned i = 0; i < s->ng; i++) {
		if (s->g[i].size > ctrl_default_limits.max_grant) {
			r->err = CMD_E_PROGRAM;
			r->domain = SUBQ_DOM_POLICY;
			r->code = POL_E_GRANT_TOO_LARGE;
			return;
		}
	}
	uint64_t need = at;
	for (unsigned i = 0; i < s->ng; i++)
		need += round_page(s->g[i].size) + SESSION_GUARD;
	if (need > a->o.slot_size) {
		r->err = CMD_E_PROGRAM;
		r->domain = SUBQ_DOM_SESSION;
		r->code = SESSION_E_ARENA;
		r->fault[SVC_DETAIL_FOUND] = (uint32_t)need;
		r->fault[SVC_DETAIL_FOUND + 1] = (uint32_t)(need >> 32);
		r->fault[SVC_DETAIL_LIMIT] = (uint32_t)a->o.slot_size;
		r->fault[SVC_DETAIL_LIMIT + 1] = (uint32_t)(a->o.slot_size >> 32);
		return;
	}
	for (unsigned i = 0; i < s->ng; i++) {
		s->g[i].mapped = SESSION_DEV_BASE + s->off + at;
		at += round_page(s->g[i].size) + SESSION_GUARD;
	}
	if (at > s->painted) { /* lazy_paint: the canary first reaches this far */
		memset(a->arena + s->off + s->painted, SESSION_CANARY, (size_t)(at - s->painted));
		s->painted = at;
	}
	s->dirty = at;
	uint64_t td_dev = SESSION_DEV_BASE + s->off + td_off, ku_dev = SESSION_DEV_BASE + s->off + ku_off;
	uint64_t fold_dev = SESSION_DEV_BASE + s->off + fold_off;
	const struct pol_range forbid[4] = {
		{td_dev, round_page(p->td_area_len) ? round_page(p->td_area_len) : SESSION_GUARD, 0, 0},
		{ku_dev, round_page(p->weights_len) ? round_page(p->weights_len) : SESSION_GUARD, 0, 0},
		{SESSION_DEV_BASE + a->window_off, a->o.window_size, 0, 0},
		{fold_dev, fold_cap ? round_page(fold_cap) : SESSION_GUARD, 0, 0},
	};
	const struct ctrl_scratch sc = {a->arena + s->off + td_off, p->td_area_len, td_dev,
					a->arena + s->off + ku_off, p->weights_len, ku_dev,
					fold_cap ? a->arena + s->off + fold_off : NULL, (size_t)fold_cap,
					fold_dev};
	if (ctrl_plan(&s->plan, p, s->g, s->ng, forbid, fold_cap ? 4 : 3, &sc, NULL) != CTRL_OK) {
		refuse_ctrl(&s->plan.st, r);
		slot_clear(a, s);
		return;
	}
	add_region(s, s->off + td_off, p->td_area_len);
	add_region(s, s->off + ku_off, p->weights_len);
	if (s->plan.fold_used)
		add_region(s, s->off + fold_off, s->plan.fold_used);
	for (unsigned i = 0; i < s->ng; i++)
		add_region(s, s->g[i].mapped - SESSION_DEV_BASE, s->g[i].size);
	fill(a, s);
	svc_schema(&s->plan, info);
	uint64_t unit;
	svc_ku_tiles(&s->plan, s->plan.bar_runtime, &s->ku_in, &s->ku_out, &unit);
	s->ku_cpu_off = s->off + ku_off;
	s->loaded = 1;
	r->err = CMD_OK;
}

static void be_unload(void *ctx, unsigned slot)
{
	struct asvc *a = ctx;
	struct aslot *s = &a->slot[slot];
	slot_clear(a, s);
	free(s->copy);
	s->copy = NULL;
	s->copy_len = 0;
}

static void be_run(void *ctx, unsigned slot, const struct svc_bars *bars, unsigned priority,
		   uint64_t budget, struct svc_result *r)
{
	struct asvc *a = ctx;
	struct aslot *s = &a->slot[slot];
	struct ctrl_plan *pl = &s->plan;
	r->err = CMD_OK;
	r->domain = r->code = 0;
	for (uint32_t u = bars->overridden; u; u &= u - 1) {
		unsigned b = (unsigned)__builtin_ctz(u);
		pl->bar_runtime[b] = bars->base[b];
	}
	if (pl->have_ku) {
		/* the unit's tile slots follow the tile BARs: re-patched only when they moved */
		uint64_t in, out, unit;
		svc_ku_tiles(pl, pl->bar_runtime, &in, &out, &unit);
		if (in != s->ku_in || out != s->ku_out) {
			struct ku_dispatch d = {unit, in, out};
			enum ku_err ke = ku_patch(&pl->ku, &d, a->arena + s->ku_cpu_off, pl->ku_len);
			if (ke != KU_OK) {
				r->err = CMD_E_PROGRAM;
				r->domain = SUBQ_DOM_KUNIT;
				r->code = (uint32_t)ke;
				goto restore;
			}
			s->ku_in = in;
			s->ku_out = out;
		}
	}
	eng_set_memory(&a->eng, a->arena, SESSION_DEV_BASE, a->arena_size);
	a->eng.gen = s->prog.gen;
	uint64_t s0 = a->engine_instret;
	eng_begin(&a->eng); /* counted by c_begin with count_engine */
	a->setup_instret += a->engine_instret - s0;
	uint64_t r0 = a->o.count_engine ? hal_instret() : 0;
	int rc = eng_run(&a->eng, pl, priority, budget ? budget : 1);
	if (a->o.count_engine)
		a->run_instret += hal_instret() - r0;
	s0 = a->engine_instret;
	eng_end(&a->eng);
	a->setup_instret += a->engine_instret - s0;
	a->ticks += eng_work(&a->eng);
	if (rc == ENG_E_WATCHDOG) {
		r->err = CMD_E_DEADLINE;
	} else if (rc != ENG_OK) {
		r->err = CMD_E_ENGINE;
		r->domain = SUBQ_DOM_ENGINE;
		r->code = (uint32_t)rc;
		eng_fault_pack(&a->eng.fault, r->fault); /* CMD_FAULT_WORDS == ENG_FAULT_WORDS */
	}
restore:
	for (uint32_t u = bars->overridden; u; u &= u - 1) {
		unsigned b = (unsigned)__builtin_ctz(u);
		pl->bar_runtime[b] = pl->pol.buf[b].mapped; /* the program's own buffer */
	}
}

static void be_recover(void *ctx)
{
	struct asvc *a = ctx;
	a->eng.ops->reset(a->eng.dev);
}

/* ---- the public side ---- */

struct asvc *asvc_create(struct app_session *session, const struct asvc_opts *o)
{
	struct asvc *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->session = session;
	a->eng = *session_eng(session); /* the same device and operations, counters of its own */
	if (o)
		a->o = *o;
	if (!a->o.window_size)
		a->o.window_size = ASVC_WINDOW_BYTES;
	if (!a->o.slot_size)
		a->o.slot_size = ASVC_SLOT_BYTES;
	a->o.window_size = round_page(a->o.window_size);
	a->o.slot_size = round_page(a->o.slot_size);
	if (!a->o.default_deadline)
		a->o.default_deadline = ASVC_DEFAULT_DEADLINE;
	if (!a->o.recover_interval)
		a->o.recover_interval = a->o.default_deadline;
	a->window_off = SESSION_GUARD;
	a->arena_size = SESSION_GUARD + a->o.window_size + SESSION_GUARD +
			SVC_MAX_PROGRAMS * (a->o.slot_size + SESSION_GUARD);
	a->arena = memalign(64, (size_t)a->arena_size); /* the window and the slots on whole lines */
	a->shm = malloc(sizeof *a->shm);
	if (!a->arena || !a->shm) {
		asvc_destroy(a);
		return NULL;
	}
	for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++) {
		a->slot[i].off = a->window_off + a->o.window_size + SESSION_GUARD +
				 i * (a->o.slot_size + SESSION_GUARD);
		a->slot[i].painted = a->o.lazy_paint ? 0 : a->o.slot_size;
	}
	if (!a->o.lazy_paint) {
		memset(a->arena, SESSION_CANARY, (size_t)a->arena_size);
		memset(a->arena + a->window_off, 0, (size_t)a->o.window_size);
	} else { /* the guards around the window and between the slots; the slots as loads reach */
		memset(a->arena, SESSION_CANARY, (size_t)a->window_off);
		for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++)
			memset(a->arena + a->slot[i].off - SESSION_GUARD, SESSION_CANARY, SESSION_GUARD);
		memset(a->arena + a->slot[SVC_MAX_PROGRAMS - 1].off + a->o.slot_size, SESSION_CANARY,
		       (size_t)(a->arena_size - a->slot[SVC_MAX_PROGRAMS - 1].off - a->o.slot_size));
	}
	a->eng.trace = 0;
	a->eng.out = NULL;
	if (a->o.count_engine) {
		a->inner = a->eng.ops;
		a->inner_batch = a->eng.batch;
		a->counted = *a->inner; /* the optional operations as they are, the counted ones wrapped */
		a->counted.name = "counted";
		a->counted.reset = c_reset;
		a->counted.queue = c_queue;
		a->counted.write = c_write;
		a->counted.read = c_read;
		a->counted.start = c_start;
		a->counted.poll = c_poll;
		a->counted.begin = c_begin;
		a->counted.end = c_end;
		a->eng.ops = &a->counted;
		a->eng.batch = a->inner_batch ? &c_batch : NULL;
		counting = a;
	}
	const struct svc_config cfg = {a->shm, a->arena + a->window_off,
				       SESSION_DEV_BASE + a->window_off, a->o.window_size,
				       ASVC_TICK_HZ, a->o.default_deadline, a->o.recover_interval, 1};
	const struct svc_backend be = {a, be_now, be_idle, be_prog_mem, be_load, be_unload, be_run,
				       be_recover};
	svc_init(&a->svc, &cfg, &be);
	return a;
}

void asvc_destroy(struct asvc *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++)
		free(a->slot[i].copy);
	if (counting == a)
		counting = NULL;
	if (a->eng.ops)
		eng_set_memory(&a->eng, NULL, 0, 0);
	free(a->arena);
	free(a->shm);
	free(a);
}

struct svc *asvc_svc(struct asvc *a)
{
	return &a->svc;
}

struct cmd_shm *asvc_shm(struct asvc *a)
{
	return a->shm;
}

uint8_t *asvc_window(struct asvc *a, uint64_t *dev, uint64_t *size)
{
	if (dev)
		*dev = SESSION_DEV_BASE + a->window_off;
	if (size)
		*size = a->o.window_size;
	return a->arena + a->window_off;
}

uint8_t *asvc_cpu(struct asvc *a, uint64_t dev, uint64_t len)
{
	if (dev < SESSION_DEV_BASE || dev - SESSION_DEV_BASE > a->arena_size ||
	    len > a->arena_size - (dev - SESSION_DEV_BASE))
		return NULL;
	return a->arena + (dev - SESSION_DEV_BASE);
}

int asvc_audit(const struct asvc *a)
{
	/* every byte outside the window and the placed buffers holds the canary */
	uint64_t pos = 0;
	const uint64_t wend = a->window_off + a->o.window_size;
	for (uint64_t k = pos; k < a->window_off; k++)
		if (a->arena[k] != SESSION_CANARY)
			return 0;
	pos = wend;
	for (unsigned i = 0; i < SVC_MAX_PROGRAMS; i++) {
		const struct aslot *s = &a->slot[i];
		/* regions are placed in ascending order inside the slot; with lazy_paint only the
		 * part of the slot a load has reached holds the canary */
		for (unsigned r = 0; r <= s->nregions; r++) {
			uint64_t lim = r < s->nregions ? s->regions[r][0] : s->off + s->painted;
			for (uint64_t k = pos; k < lim; k++)
				if (a->arena[k] != SESSION_CANARY)
					return 0;
			if (r < s->nregions)
				pos = s->regions[r][1];
		}
		pos = s->off + a->o.slot_size;
	}
	for (uint64_t k = pos; k < a->arena_size; k++)
		if (a->arena[k] != SESSION_CANARY)
			return 0;
	return 1;
}

uint64_t asvc_now(const struct asvc *a)
{
	return a->ticks;
}

uint64_t asvc_engine_instret(const struct asvc *a)
{
	return a->engine_instret;
}

uint64_t asvc_run_instret(const struct asvc *a)
{
	return a->run_instret;
}

uint64_t asvc_setup_instret(const struct asvc *a)
{
	return a->setup_instret;
}
