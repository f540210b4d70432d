/* A whole submission on the engine (see session.h). */
#include "app/session.h"
#include "app/backend.h"
#include "fw/codec/codec.h"
#include "fw/common/err.h"
#include "fw/common/outf.h"
#include "fw/loader/loader.h"
#include "fw/td/td.h"
#include "hal/hal.h"

#include <malloc.h> /* memalign (newlib has no posix_memalign) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct app_session {
	struct ldr_program prog;
	struct ctrl_plan plan;
	struct eng eng;
	struct subq_grant g[SESSION_MAX_GRANTS];
	uint8_t is_weights[SESSION_MAX_GRANTS];
	/* per grant: [ws, we) is written whole by the TDs when they complete (written_runs), so the
	 * fill leaves it out of the output's zeroing; ws == we: zeroed whole */
	uint64_t ws[SESSION_MAX_GRANTS], we[SESSION_MAX_GRANTS];
	unsigned nw; /* the grants ws and we are about (the last submission's) */
	uint32_t hook_whole; /* bit i: grant i is written whole by the fill hook (whole_bars) */
	uint8_t *arena;      /* kept between submissions (arena_cap bytes), freed by session_destroy */
	uint64_t arena_cap;
};

static const struct err_desc serrs[SESSION_E__COUNT] = {
	[SESSION_OK] = {"ok", "no error"},
	[SESSION_E_NOMEM] = {"session-out-of-memory", "the submission's arena could not be allocated"},
	[SESSION_E_ARENA] = {"arena-too-large", "the grants do not fit one submission's arena"},
	[SESSION_E_CANARIES] = {"canaries-damaged", "a guard byte around a grant changed during the run"},
};

const struct err_desc *session_err(enum session_err e)
{
	static const struct err_desc unknown = {"unknown-session-error",
						  "a value this module does not define"};
	return err_lookup(serrs, SESSION_E__COUNT, (unsigned)e, &unknown);
}

const char *session_err_name(enum session_err e)
{
	return session_err(e)->name;
}

struct app_session *session_create(struct dma_dev *dma)
{
	struct app_session *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	if (app_backend_open(&s->eng, dma)) {
		free(s);
		return NULL;
	}
	return s;
}

void session_destroy(struct app_session *s)
{
	if (s) {
		app_backend_close(&s->eng);
		free(s->arena);
	}
	free(s);
}

struct eng *session_eng(struct app_session *s)
{
	return &s->eng;
}

static const char *acc_name(unsigned a)
{
	return a == POL_RW ? "rw" : a == POL_WRITE ? "w" : a == POL_READ ? "r" : "-";
}

static uint64_t round_page(uint64_t v)
{
	return (v + SESSION_GUARD - 1) & ~(uint64_t)(SESSION_GUARD - 1);
}


static void print_status(const struct ctrl_status *st, outf_fn out, void *ctx)
{
	ctrl_status_print(st, "submit: refused: ", out, ctx);
}

void session_print_refusal(const struct session_result *res, const char *lead, outf_fn out,
			   void *ctx)
{
	if (res->serr)
		outf(out, ctx, "%s" ERR_FMT "\n", lead, ERR_ARGS(session_err(res->serr)));
	else
		ctrl_status_print(&res->st, lead, out, ctx);
}

/* The arena: guard | TD memory | guard | kunit scratch | guard | fold scratch | guard |
 * grant 0 | guard | ... (the fold scratch only when the program may fold weights) */
struct layout {
	uint64_t size, td_off, ku_off, fold_off, fold_cap;
};

/* Places every grant (arithmetic only: nothing is allocated before every size is checked). */
static int place(struct app_session *s, unsigned n, uint64_t max_arena, uint64_t max_grant,
		 struct layout *lo, struct session_result *res)
{
	const struct ldr_program *p = &s->prog;
	lo->size = SESSION_GUARD;
	lo->td_off = lo->size;
	lo->size += round_page(p->td_area_len) + SESSION_GUARD;
	lo->ku_off = lo->size;
	lo->size += round_page(p->weights_len) + SESSION_GUARD;
	lo->fold_cap = ctrl_fold_cap(p);
	lo->fold_off = lo->size;
	if (lo->fold_cap)
		lo->size += round_page(lo->fold_cap) + SESSION_GUARD;
	for (unsigned i = 0; i < n; i++) {
		struct subq_grant *g = &s->g[i];
		if (g->size > max_grant) {
			res->st.err = CTRL_E_POLICY;
			res->st.pol = POL_E_GRANT_TOO_LARGE;
			res->st.bar = (int)g->bar;
			/* in fw/ctrl's words for the same check (plan_grants) */
			snprintf(res->st.detail, sizeof res->st.detail,
				 "0x%lx bytes, a submission holds at most 0x%lx a grant",
				 (unsigned long)g->size, (unsigned long)max_grant);
			return -1;
		}
		g->mapped = SESSION_DEV_BASE + lo->size;
		lo->size += round_page(g->size) + SESSION_GUARD;
		if (lo->size > max_arena) {
			res->serr = SESSION_E_ARENA;
			return -1;
		}
	}
	return 0;
}

/* Whether grant g holds the program's weights. */
static int weights_buffer(const struct ldr_program *p, const struct subq_grant *g)
{
	if (p->raw)
		return ldr_weights_bar(p, g->bar);
	uint64_t wdva = p->weights_sect >= 0 ? p->sects[p->weights_sect].addr : 0;
	return p->weights_len && g->access == POL_READ && g->dva == wdva;
}

int session_fill_buffer(const struct ldr_program *p, const struct subq_grant *g, uint8_t *b)
{
	return session_fill_buffer_x(p, g, b, 0);
}

/* A copy of n bytes, split over hal_parallel's threads from 256 KiB (a program's weights into
 * their grant: 4.5 MiB for a 768 x 3072 projection; two cores copy it in about 0.6 of the time
 * one takes here); on one thread, one memcpy. The parts go in order, and the host's pool gives
 * its caller the first and a helper the last (hal_host.c's pool_drain), as it later gives them
 * a convolution's channel lines in order: each thread then finds the weights of its own lines
 * in its own cache (the 512 x 512 convolution's 512 KiB: about 5% off its two-thread time,
 * where split across threads that took turns, its lines ran up to 9% slower; docs/performance.md,
 * issue 26's tenth and thirty-ninth passes). A smaller copy stays on the caller. */
struct par_copy {
	uint8_t *dst;
	const uint8_t *src;
	size_t n;
	unsigned parts;
};

static void par_copy_task(void *arg, unsigned i)
{
	const struct par_copy *c = arg;
	size_t a = c->n / c->parts * i & ~(size_t)63, b = i + 1 == c->parts ? c->n : c->n / c->parts * (i + 1) & ~(size_t)63;
	memcpy(c->dst + a, c->src + a, b - a);
}

static void par_memcpy(uint8_t *dst, const uint8_t *src, size_t n)
{
	unsigned w = hal_workers();
	if (w < 2 || n < (256u << 10)) {
		memcpy(dst, src, n);
		return;
	}
	struct par_copy c = {dst, src, n, w < 8 ? w : 8};
	hal_parallel(c.parts, par_copy_task, &c);
}

/* session_fill_buffer_x, an output's [ws, we) left as it is (the TDs write it whole). */
static int fill_buffer(const struct ldr_program *p, const struct subq_grant *g, uint8_t *b,
		       int skip_pattern, uint64_t ws, uint64_t we)
{
	int w = weights_buffer(p, g);
	if (w) {
		uint64_t c = g->size < p->weights_len ? g->size : p->weights_len;
		par_memcpy(b, p->buf + p->weights_off, (size_t)c);
		memset(b + c, 0, (size_t)(g->size - c)); /* zero only past the weights */
	} else if (g->access & POL_WRITE) {
		if (ws >= we || we > g->size) {
			memset(b, 0, (size_t)g->size);
		} else {
			memset(b, 0, (size_t)ws);
			memset(b + we, 0, (size_t)(g->size - we));
		}
	} else if (!skip_pattern) {
		session_pattern(b, g->size, g->bar);
	}
	return w;
}

int session_fill_buffer_x(const struct ldr_program *p, const struct subq_grant *g, uint8_t *b,
			  int skip_pattern)
{
	return fill_buffer(p, g, b, skip_pattern, 0, 0);
}

/*
 * Per written grant, the bytes its TDs write whole when they complete: the destination tiles
 * whose rows follow one another with no gap (td_dst_run), merged where they meet or overlap; the
 * longest such run is [ws, we), which the fill does not zero (an output the engine writes
 * whole is 8 MiB of stores saved per 4 Mi fp16 values). A grant any TD reads (a source, or a
 * whole-grant range) keeps its zeroing whole: a read before the write must see zeros, not an
 * earlier submission's bytes. A run that fails zeroes [ws, we) after it (session_run), so
 * nothing of an earlier submission is left in any case.
 */
static void written_runs(struct app_session *s, unsigned n)
{
	const struct ldr_program *p = &s->prog;
	struct {
		struct ldr_image im;
		uint64_t rs[LDR_MAX_TDS], re[LDR_MAX_TDS]; /* 8 KiB: off the target's stack */
	} *w = calloc(1, sizeof *w);
	uint32_t read = 0;
	struct ldr_image *im = w ? &w->im : NULL;
	for (unsigned i = 0; i < n; i++)
		s->ws[i] = s->we[i] = 0;
	s->nw = n;
	s->hook_whole = 0;
	if (!im)
		return;
	im->p = p;
	for (unsigned t = 0; t < p->ntds && t < LDR_MAX_TDS && t < s->plan.ntds; t++)
		for (unsigned r = 0; r < s->plan.td[t].nranges; r++) {
			const struct ctrl_range *x = &s->plan.td[t].r[r];
			if ((x->access & POL_READ) || x->whole)
				read |= x->bar < 32u ? 1u << x->bar : 0u;
		}
	for (unsigned i = 0; i < n; i++) {
		const struct subq_grant *g = &s->g[i];
		if (!(g->access & POL_WRITE) || g->bar >= 32u || (read >> g->bar & 1u))
			continue;
		unsigned k = 0;
		memset(&im->img, 0, sizeof im->img);
		for (unsigned t = 0; t < p->ntds && t < LDR_MAX_TDS && t < s->plan.ntds; t++) {
			ldr_image_apply_td(im, t);
			const struct td_regs regs = {ldr_image_reg, im};
			uint64_t len;
			for (unsigned r = 0; r < s->plan.td[t].nranges; r++) {
				const struct ctrl_range *x = &s->plan.td[t].r[r];
				if (k >= LDR_MAX_TDS || x->kind != CTRL_R_DST || x->bar != g->bar ||
				    x->folded || x->whole ||
				    !td_dst_run(&regs, &len) || x->off > g->size || len > g->size - x->off)
					continue;
				w->rs[k] = x->off;
				w->re[k++] = x->off + len;
			}
		}
		/* the longest run of the union: the runs by their start (insertion sort: up to
		 * LDR_MAX_TDS, mostly in order already), merged while the next meets the current */
		for (unsigned j = 1; j < k; j++)
			for (unsigned q = j; q > 0 && w->rs[q - 1] > w->rs[q]; q--) {
				uint64_t ts = w->rs[q], te = w->re[q];
				w->rs[q] = w->rs[q - 1];
				w->re[q] = w->re[q - 1];
				w->rs[q - 1] = ts;
				w->re[q - 1] = te;
			}
		for (unsigned j = 0; j < k;) {
			uint64_t a = w->rs[j], b = w->re[j];
			for (j++; j < k && w->rs[j] <= b; j++)
				b = w->re[j] > b ? w->re[j] : b;
			if (b - a > s->we[i] - s->ws[i]) {
				s->ws[i] = a;
				s->we[i] = b;
			}
		}
	}
	free(w);
}

int session_written_run(const struct app_session *s, unsigned bar, uint64_t *start, uint64_t *end)
{
	*start = *end = 0;
	for (unsigned i = 0; s && i < s->nw; i++)
		if (s->g[i].bar == bar && s->ws[i] < s->we[i]) {
			*start = s->ws[i];
			*end = s->we[i];
			return 1;
		}
	return 0;
}

/*
 * The inputs' default fill. v = k x 7 + bar (mod 256), and byte k is v's sign bit (bit 7) over
 * its bits 1-6 moved down to bits 0-5: every byte has bit 6 clear. A halfword's exponent field is
 * bits 2-6 of its high byte, so every fp16 value read from the fill, at an even or an odd byte,
 * has an exponent field of at most 15: finite, |x| < 2 (no infinity or NaN, which a convolution
 * would meet as inf - inf: docs/engine-model.md, "What a seventh review found"). Within a
 * period the 128 halfwords at even bytes are distinct (the 128 values of v there share v's
 * parity, which the byte drops) and so are the 128 at odd bytes. Until 2026-12-07 byte k was v
 * itself, 3% of its fp16 values infinite or NaN. The pattern repeats every 256 bytes (7 x 256 is
 * a multiple of 256), so the first 256 bytes are written byte by byte and the rest copied from
 * the bytes already written, the copied span doubling each time (memcpy's word loops instead of
 * a byte loop over the whole buffer).
 */
static uint8_t pattern_byte(uint64_t k, unsigned bar)
{
	const unsigned v = (unsigned)(k * 7u + bar) & 0xffu;
	return (uint8_t)((v & 0x80u) | (v >> 1 & 0x3fu));
}

void session_pattern(uint8_t *b, uint64_t size, unsigned bar)
{
	uint64_t k = 0, period = size < 256 ? size : 256;
	for (; k < period; k++)
		b[k] = pattern_byte(k, bar);
	while (k < size) { /* b[0, k) holds the pattern and k is a multiple of 256 */
		uint64_t n = size - k < k ? size - k : k;
		memcpy(b + k, b, (size_t)n);
		k += n;
	}
}

/* Every buffer's contents (session_fill_buffer), then the hook. */
static void fill(struct app_session *s, unsigned n, uint8_t *mem, const struct session_hooks *hooks)
{
	for (unsigned i = 0; i < n; i++) {
		const struct subq_grant *g = &s->g[i];
		uint8_t *b = mem + (g->mapped - SESSION_DEV_BASE);
		int whole = hooks && hooks->fill && g->bar < 32u && (hooks->whole_bars >> g->bar & 1u);
		if (whole && (g->access & POL_WRITE)) { /* the hook writes it all: no zeroing */
			s->ws[i] = 0;
			s->we[i] = g->size;
			s->hook_whole |= 1u << i;
		}
		int w = fill_buffer(&s->prog, g, b, whole, s->ws[i], s->we[i]);
		s->is_weights[i] = (uint8_t)w;
		if (hooks && hooks->fill)
			hooks->fill(hooks->ctx, g, b, w);
	}
}

/* The arena's data regions in order (TD memory, kernel-unit scratch, fold scratch, the grants):
 * [starts[r], ends[r]); every other byte is a guard that holds the canary. Returns their count. */
static unsigned data_regions(const struct app_session *s, unsigned n, const struct layout *lo,
			     uint64_t *starts, uint64_t *ends)
{
	const struct ldr_program *p = &s->prog;
	unsigned nr = 0;
	starts[nr] = lo->td_off;
	ends[nr++] = lo->td_off + p->td_area_len;
	starts[nr] = lo->ku_off;
	ends[nr++] = lo->ku_off + p->weights_len;
	starts[nr] = lo->fold_off;
	ends[nr++] = lo->fold_off + s->plan.fold_used;
	for (unsigned i = 0; i < n; i++) {
		starts[nr] = s->g[i].mapped - SESSION_DEV_BASE;
		ends[nr] = starts[nr] + s->g[i].size;
		nr++;
	}
	return nr;
}

/* Writes the canary into every guard byte (the data regions are written by build_arena: by the
 * plan or filled, so they are not set first; of the kernel-unit scratch only what the plan
 * wrote: the patched unit, or nothing for a program that is not a kernel unit). */
static void set_canaries(const struct app_session *s, unsigned n, uint8_t *mem, const struct layout *lo)
{
	uint64_t starts[3 + SESSION_MAX_GRANTS], ends[3 + SESSION_MAX_GRANTS], pos = 0;
	unsigned nr = data_regions(s, n, lo, starts, ends);
	for (unsigned r = 0; r <= nr; r++) {
		uint64_t lim = r < nr ? starts[r] : lo->size;
		if (lim > pos)
			memset(mem + pos, SESSION_CANARY, (size_t)(lim - pos));
		if (r < nr)
			pos = ends[r];
	}
}

/* Whether n bytes at p all hold the canary (eight at a time where p is aligned). */
static int all_canary(const uint8_t *p, uint64_t n)
{
	uint64_t k = 0, diff = 0;
	for (; k < n && ((uintptr_t)(p + k) & 7u); k++)
		diff |= p[k] ^ SESSION_CANARY;
	const uint64_t c8 = 0x0101010101010101ull * SESSION_CANARY;
	for (; k + 8 <= n; k += 8) {
		uint64_t w;
		__builtin_memcpy(&w, __builtin_assume_aligned(p + k, 8), 8); /* one load */
		diff |= w ^ c8;
	}
	for (; k < n; k++)
		diff |= p[k] ^ SESSION_CANARY;
	return diff == 0;
}

/* Every guard byte around every buffer still holds the canary. */
static int canaries_intact(const struct app_session *s, unsigned n, const uint8_t *mem,
			   const struct layout *lo)
{
	uint64_t starts[3 + SESSION_MAX_GRANTS], ends[3 + SESSION_MAX_GRANTS], pos = 0;
	unsigned nr = data_regions(s, n, lo, starts, ends);
	for (unsigned r = 0; r <= nr; r++) {
		uint64_t lim = r < nr ? starts[r] : lo->size;
		if (lim > pos && !all_canary(mem + pos, lim - pos))
			return 0;
		if (r < nr)
			pos = ends[r];
	}
	return 1;
}

static int streams_on(const struct ctrl_td_plan *t)
{
	for (unsigned k = 0; k < t->nstream_regs; k++)
		if (t->stream_regs[k].value)
			return 1;
	return 0;
}

static void report(struct app_session *s, const struct session_opts *o, struct session_result *res)
{
	const struct ldr_program *p = &s->prog;
	res->nwrites = s->eng.nwrites;
	for (unsigned i = 0; i < p->ntds && i < LDR_MAX_TDS; i++) {
		struct eng_td_report tr;
		eng_td_report(&s->eng, i, &tr);
		res->nmoves += tr.moves;
		res->bytes += tr.bytes;
		unsigned nc = 0;
		for (unsigned r = 0; r < s->plan.td[i].nranges; r++)
			nc += s->plan.td[i].r[r].kind == CTRL_R_COEFF;
		outf(o->out, o->ctx,
		     "td %u: %u writes, %u coefficient channel%s, %u moves, 0x%lx bytes moved%s\n", i,
		     s->eng.td_writes[i], nc, nc == 1 ? "" : "s", tr.moves, (unsigned long)tr.bytes,
		     streams_on(&s->plan.td[i]) ? ", kernel-unit streams programmed" : "");
		if (s->plan.td[i].folded) {
			unsigned ft = s->plan.td[i].fold_type;
			char form[16];
			if (ft & 0x10u)
				snprintf(form, sizeof form, "palette%u", ft & 0xfu);
			else
				snprintf(form, sizeof form, "%s", ft == CODEC_Q_INT8 ? "int8" : "uint8");
			outf(o->out, o->ctx,
			     "td %u: weights folded by the firmware: %lu %s values to dense fp16 through "
			     "fw/codec (H13 does not stream them), coefficient channels 0x%x\n",
			     i, (unsigned long)s->plan.td[i].fold_values, form,
			     (unsigned)s->plan.td[i].folded);
		}
		if (s->plan.td[i].folded) {
			res->folded_tds++;
			res->fold_values += s->plan.td[i].fold_values;
		}
		if (res->run != ENG_OK && s->eng.fault.td >= 0 && i >= (unsigned)s->eng.fault.td) {
			outf(o->out, o->ctx, "td %u: not completed (the engine stopped at td %d)\n", i,
			     s->eng.fault.td);
			continue;
		}
		outf(o->out, o->ctx, "td %u: activation: %s", i, tr.act);
		if (tr.act_applied) {
			outf(o->out, o->ctx, ", applied to %lu fp16 values", (unsigned long)tr.act_elems);
			res->act_applied++;
			res->act_elems += tr.act_elems;
		}
		outf(o->out, o->ctx, "\n");
	}
}

static void trace_ranges(const struct ctrl_plan *pl, const struct session_opts *o)
{
	for (unsigned i = 0; i < pl->ntds; i++)
		for (unsigned r = 0; r < pl->td[i].nranges; r++) {
			const struct ctrl_range *x = &pl->td[i].r[r];
			outf(o->out, o->ctx,
			     "  td %u range %-6s ch %u bar %u off 0x%lx len 0x%lx -> 0x%08lx %s%s\n", i,
			     ctrl_kind_name(x->kind), x->ch, x->bar, (unsigned long)x->off,
			     (unsigned long)x->len, (unsigned long)x->runtime, acc_name(x->access),
			     x->whole ? " (whole grant)"
			     : x->folded ? " (weights the firmware folded, in its own memory)" : "");
		}
}

/* The grants of the submission: given, or the program's defaults. */
static enum ctrl_err take_grants(struct app_session *s, const struct session_opts *o, unsigned *n,
				 struct session_result *res)
{
	if (o->use_defaults)
		return ctrl_default_grants(&s->prog, s->g, SESSION_MAX_GRANTS, n, &res->st);
	if (o->ngrants > SESSION_MAX_GRANTS || (o->ngrants && !o->grants)) {
		res->st.err = CTRL_E_GRANTS;
		return CTRL_E_GRANTS;
	}
	memcpy(s->g, o->grants, o->ngrants * sizeof *s->g);
	*n = o->ngrants;
	return CTRL_OK;
}

/* A refusal of the session itself (out of memory, arena too large): printed, returns 1. */
static int refuse_session(enum session_err e, const struct session_opts *o,
			  struct session_result *res)
{
	res->serr = e;
	outf(o->out, o->ctx, "submit: refused: " ERR_FMT "\n", ERR_ARGS(session_err(e)));
	return 1;
}

/* The arena of size bytes: the session's, kept from an earlier submission when it is large
 * enough (every byte below size is written again: guards, the plan's memory, buffers; but the
 * kernel-unit scratch past what the plan wrote, firmware memory that nothing reads), else a new one,
 * 64-byte aligned so the rows keep their alignment for the copies. */
static uint8_t *arena(struct app_session *s, uint64_t size)
{
	if (s->arena && s->arena_cap >= size)
		return s->arena;
	free(s->arena);
	s->arena_cap = 0;
	if (!(s->arena = memalign(64, (size_t)size)))
		return NULL;
	s->arena_cap = size;
	return s->arena;
}

/* The control path's plan of the program with its grants, written into td, ku and fold (the
 * arena's places, or firmware memory of their sizes). */
static enum ctrl_err plan_into(struct app_session *s, unsigned n, const struct layout *lo,
			       const struct ctrl_limits *lim, uint8_t *td, uint8_t *ku, uint8_t *fold)
{
	const struct ldr_program *p = &s->prog;
	const uint64_t td_len = round_page(p->td_area_len), ku_len = round_page(p->weights_len);
	const struct pol_range forbid[3] = {
		{SESSION_DEV_BASE + lo->td_off, td_len ? td_len : SESSION_GUARD, 0, 0},
		{SESSION_DEV_BASE + lo->ku_off, ku_len ? ku_len : SESSION_GUARD, 0, 0},
		{SESSION_DEV_BASE + lo->fold_off, lo->fold_cap ? round_page(lo->fold_cap) : SESSION_GUARD,
		 0, 0},
	};
	const struct ctrl_scratch sc = {
		.td_mem = td, .td_cap = p->td_area_len, .td_dev = SESSION_DEV_BASE + lo->td_off,
		.ku_out = ku, .ku_cap = p->weights_len, .ku_dev = SESSION_DEV_BASE + lo->ku_off,
		.fold_out = lo->fold_cap ? fold : NULL, .fold_cap = (size_t)lo->fold_cap,
		.fold_dev = SESSION_DEV_BASE + lo->fold_off};
	return ctrl_plan(&s->plan, p, s->g, n, forbid, lo->fold_cap ? 3 : 2, &sc, lim);
}

/*
 * Plans the program with its grants and builds the arena the engine runs in: the plan writes
 * the firmware's TD memory, kernel-unit and fold scratch straight into their places in the
 * arena (so a raw task stream, whose TD area is the whole file, is not copied a second time),
 * then the canaries go around them and every buffer is filled. When no arena can be had, the
 * plan still runs, into a malloc buffer, so a refused program is reported as before. Returns
 * the arena (the session's: not freed) or NULL, the refusal printed and recorded in res.
 */
static uint8_t *build_arena(struct app_session *s, unsigned n, const struct layout *lo,
			    const struct ctrl_limits *lim, const struct session_opts *o,
			    struct session_result *res)
{
	const struct ldr_program *p = &s->prog;
	uint8_t *mem = arena(s, lo->size), *fwmem = NULL, *td, *ku, *fold;
	if (mem) {
		td = mem + lo->td_off;
		ku = mem + lo->ku_off;
		fold = mem + lo->fold_off;
	} else {
		size_t fwlen = (size_t)p->td_area_len + p->weights_len + (size_t)lo->fold_cap;
		if (!(fwmem = malloc(fwlen + 1))) {
			refuse_session(SESSION_E_NOMEM, o, res);
			return NULL;
		}
		td = fwmem;
		ku = fwmem + p->td_area_len;
		fold = ku + p->weights_len;
	}
	enum ctrl_err ce = plan_into(s, n, lo, lim, td, ku, fold);
	res->st = s->plan.st;
	res->work = s->plan.work;
	if (ce != CTRL_OK) {
		print_status(&s->plan.st, o->out, o->ctx);
		mem = NULL;
	} else if (!mem) {
		refuse_session(SESSION_E_NOMEM, o, res);
	}
	if (mem) {
		set_canaries(s, n, mem, lo);
		s->plan.td_mem = mem + lo->td_off; /* the engine's copy, where the driver reads it */
		written_runs(s, n);
		fill(s, n, mem, o->hooks);
	}
	free(fwmem);
	return mem;
}

/* The plan alone, into firmware memory, for a check that runs nothing (o->plan_only): 0, or 1
 * with the refusal printed and recorded in res, as build_arena prints it. */
static int plan_only(struct app_session *s, unsigned n, const struct layout *lo,
		     const struct ctrl_limits *lim, const struct session_opts *o,
		     struct session_result *res)
{
	const struct ldr_program *p = &s->prog;
	uint8_t *fwmem = malloc((size_t)p->td_area_len + p->weights_len + (size_t)lo->fold_cap + 1);
	if (!fwmem)
		return refuse_session(SESSION_E_NOMEM, o, res);
	enum ctrl_err ce = plan_into(s, n, lo, lim, fwmem, fwmem + p->td_area_len,
				     fwmem + p->td_area_len + p->weights_len);
	res->st = s->plan.st;
	res->work = s->plan.work;
	if (ce != CTRL_OK)
		print_status(&s->plan.st, o->out, o->ctx);
	free(fwmem);
	return ce != CTRL_OK;
}

/* td_print_op's lines joined into one: "source: ...; NE: ...; nonlinear: relu; ..." */
struct op_line {
	char buf[1024];
	size_t n;
};

static void op_line_out(void *ctx, const char *s, size_t n)
{
	struct op_line *l = ctx;
	for (size_t i = 0; i < n && l->n + 3 < sizeof l->buf; i++) {
		char c = s[i];
		if (c == '\n') {
			l->buf[l->n++] = ';';
			l->buf[l->n++] = ' ';
		} else if (c != ' ' || (l->n && l->buf[l->n - 1] != ' ')) {
			l->buf[l->n++] = c;
		}
	}
	l->buf[l->n] = 0;
}

/* "td N: computes: ..." for every TD: what its registers make the engine compute (td_print_op,
 * the words `inspect` prints), so a ReLU in the NE's NonlinearMode shows beside the activation
 * LUT's line. */
static void print_computes(const struct ldr_program *p, const struct session_opts *o)
{
	if (!o->out)
		return; /* no sink: nothing to format */
	struct ldr_image *im = calloc(1, sizeof *im);
	if (!im)
		return;
	im->p = p;
	/* the L2-resident tensors the TDs leave, in order, and what they write to L2 memory
	 * (td_print_op_walk; L2 memory not followed if there is no room) */
	struct td_residents res;
	td_residents_begin(&res);
	for (unsigned i = 0; i < p->ntds && i < LDR_MAX_TDS; i++) {
		struct op_line l = {{0}, 0};
		ldr_image_apply_td(im, i);
		const struct td_regs regs = {ldr_image_reg, im};
		td_print_op_walk(&regs, &p->tds[i].h, ldr_td_kunit_streams(p, i), &res, op_line_out, &l);
		while (l.n && (l.buf[l.n - 1] == ' ' || l.buf[l.n - 1] == ';'))
			l.buf[--l.n] = 0;
		outf(o->out, o->ctx, "td %u: computes: ", i); /* the line whole: longer than outf's */
		o->out(o->ctx, l.buf, l.n);
		o->out(o->ctx, "\n", 1);
	}
	td_residents_end(&res);
	free(im);
}

/* Runs the plan on the engine over the arena and reports it (per TD, then the verdict: the
 * fault, with its TD and field, when the engine stopped). Returns 0 when it completed. */
static int run_engine(struct app_session *s, unsigned n, uint8_t *mem, const struct layout *lo,
		      const struct session_opts *o, struct session_result *res)
{
	const struct ldr_program *p = &s->prog;
	outf(o->out, o->ctx, "submit: %s program, %u td%s, %u grant%s\n", p->raw ? "raw" : "hwx",
	     p->ntds, p->ntds == 1 ? "" : "s", n, n == 1 ? "" : "s");
	print_computes(p, o);
	for (unsigned i = 0; i < n; i++)
		outf(o->out, o->ctx, "  grant bar %lu dva 0x%lx size 0x%lx %s at 0x%08lx\n",
		     (unsigned long)s->g[i].bar, (unsigned long)s->g[i].dva,
		     (unsigned long)s->g[i].size, acc_name(s->g[i].access),
		     (unsigned long)s->g[i].mapped);
	if (o->trace)
		trace_ranges(&s->plan, o);
	eng_set_memory(&s->eng, mem, SESSION_DEV_BASE, lo->size);
	eng_set_output(&s->eng, o->trace, o->out, o->ctx);
	s->eng.gen = p->gen;
	s->eng.trace = o->trace;
	s->eng.out = o->out;
	s->eng.ctx = o->ctx;
	eng_begin(&s->eng);
	res->run = eng_run(&s->eng, &s->plan, 0, 0);
	eng_end(&s->eng);
	eng_set_memory(&s->eng, NULL, 0, 0);
	report(s, o, res);
	if (res->run == ENG_OK) {
		outf(o->out, o->ctx, "submit: completed: %u writes, %u moves, 0x%lx bytes\n",
		     s->eng.nwrites, res->nmoves, (unsigned long)res->bytes);
		return 0;
	}
	res->fault = s->eng.fault;
	eng_fault_format(&res->fault, p->gen, res->fault_text, sizeof res->fault_text);
	outf(o->out, o->ctx, "submit: engine failed: %s: ", eng_err_name(res->run));
	if (o->out) /* whole: the text can be longer than one outf line */
		o->out(o->ctx, res->fault_text, strlen(res->fault_text));
	outf(o->out, o->ctx, "\n");
	return 1;
}

int session_run(struct app_session *s, const uint8_t *buf, size_t len, const struct session_opts *o,
	     struct session_result *res)
{
	struct session_result dummy;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof *res);
	res->st = CTRL_STATUS_OK;
	res->canaries_ok = 1;
	if (!s || !o) {
		res->run = ENG_E_ARG;
		return 1;
	}
	const struct ctrl_limits *lim = o->limits ? o->limits : &ctrl_default_limits;
	res->lerr = ldr_load(buf, len, o->ldr_flags, &s->prog);
	if (res->lerr != LDR_OK) {
		/* as validate and run say it: the name, its words, where, and what the file holds */
		ldr_print_refusal(&s->prog, res->lerr, buf, len, o->ldr_flags, "submit: program rejected: ",
				  "submit: ", o->path, o->out, o->ctx);
		return 1;
	}
	res->loaded = 1;
	res->ntds = s->prog.ntds;
	unsigned n = 0;
	struct layout lo;
	if (take_grants(s, o, &n, res) ||
	    place(s, n, o->max_arena ? o->max_arena : SESSION_MAX_ARENA, lim->max_grant, &lo, res)) {
		if (res->serr)
			outf(o->out, o->ctx, "submit: refused: " ERR_FMT "\n",
			     ERR_ARGS(session_err(res->serr)));
		else
			print_status(&res->st, o->out, o->ctx);
		return 1;
	}
	if (o->plan_only)
		return plan_only(s, n, &lo, lim, o, res);
	uint8_t *mem = build_arena(s, n, &lo, lim, o, res);
	if (!mem)
		return 1;
	int rc = run_engine(s, n, mem, &lo, o, res);
	if (rc) /* what the TDs were to write whole may hold an earlier submission's bytes */
		for (unsigned i = 0; i < n; i++)
			if (s->ws[i] < s->we[i] && !(s->hook_whole >> i & 1u))
				memset(mem + (s->g[i].mapped - SESSION_DEV_BASE) + s->ws[i], 0,
				       (size_t)(s->we[i] - s->ws[i]));
	if (o->hooks && o->hooks->check)
		for (unsigned i = 0; i < n; i++)
			o->hooks->check(o->hooks->ctx, &s->g[i], mem + (s->g[i].mapped - SESSION_DEV_BASE),
					s->is_weights[i]);
	res->canaries_ok = canaries_intact(s, n, mem, &lo);
	outf(o->out, o->ctx, "submit: canaries %s\n", res->canaries_ok ? "intact" : "DAMAGED");
	s->plan.td_mem = NULL; /* the arena stays for the next submission (session_destroy frees it) */
	if (!res->canaries_ok) {
		res->serr = SESSION_E_CANARIES;
		rc = 1;
	}
	return rc;
}

const char *session_result_name(const struct session_result *res)
{
	if (!res->loaded)
		return ldr_err_name(res->lerr);
	if (res->st.err != CTRL_OK)
		return ctrl_status_name(&res->st);
	if (res->run != ENG_OK)
		return eng_err_name(res->run);
	if (res->serr != SESSION_OK)
		return session_err_name(res->serr);
	return "ok";
}

void session_completion(const struct session_result *res, struct subq_completion *c)
{
	c->status = SUBQ_DONE;
	c->domain = SUBQ_DOM_NONE;
	c->code = 0;
	if (!res->loaded) {
		c->status = SUBQ_REFUSED;
		c->domain = SUBQ_DOM_LOADER;
		c->code = (uint32_t)res->lerr;
	} else if (res->st.err != CTRL_OK) {
		c->status = SUBQ_REFUSED;
		c->domain = ctrl_status_cause(&res->st, &c->code);
	} else if (res->serr == SESSION_E_NOMEM || res->serr == SESSION_E_ARENA) {
		c->status = SUBQ_REFUSED;
		c->domain = SUBQ_DOM_SESSION;
		c->code = (uint32_t)res->serr;
	} else if (res->run != ENG_OK) {
		c->status = SUBQ_FAILED;
		c->domain = SUBQ_DOM_ENGINE;
		c->code = (uint32_t)res->run;
	} else if (!res->canaries_ok) {
		c->status = SUBQ_FAILED;
		c->domain = SUBQ_DOM_SESSION;
		c->code = (uint32_t)SESSION_E_CANARIES;
	}
}
