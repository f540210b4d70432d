/* A whole submission on the engine model: the same steps on the host tool and the firmware. */
#include "drivers/ane_model/ane_model.h"
#include "hal/hal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *acc_name(unsigned a)
{
	return a == POL_RW ? "rw" : a == POL_WRITE ? "w" : a == POL_READ ? "r" : "-";
}

static uint64_t round_page(uint64_t v)
{
	return (v + ANES_GUARD - 1) & ~(uint64_t)(ANES_GUARD - 1);
}

#define ANES_MAX_ARENA (256ull << 20)

static struct ldr_program s_prog;
static struct ctrl_plan s_plan;
static struct anem s_model;
static uint32_t s_window[ANEM_WINDOW_BYTES / 4];

const struct anem *anes_model(void)
{
	return &s_model;
}

static void print_status(const struct ctrl_status *st, anem_out_fn out, void *ctx)
{
	anem_outf(out, ctx, "submit: refused: %s", ctrl_status_name(st));
	if (st->td >= 0)
		anem_outf(out, ctx, " td %d", st->td);
	if (st->kind >= 0)
		anem_outf(out, ctx, " %s", ctrl_kind_name((unsigned)st->kind));
	if (st->ch >= 0)
		anem_outf(out, ctx, " ch %d", st->ch);
	if (st->bar >= 0)
		anem_outf(out, ctx, " bar %d", st->bar);
	anem_outf(out, ctx, "\n");
}

int anes_submit(const uint8_t *buf, size_t len, unsigned ldr_flags, const struct subq_grant *grants,
		unsigned n, int use_defaults, unsigned trace, anem_out_fn out, void *ctx,
		struct anes_result *res)
{
	return anes_submit_hooks(buf, len, ldr_flags, grants, n, use_defaults, trace, out, ctx, NULL,
				 res);
}

int anes_submit_hooks(const uint8_t *buf, size_t len, unsigned ldr_flags,
		      const struct subq_grant *grants, unsigned n, int use_defaults, unsigned trace,
		      anem_out_fn out, void *ctx, const struct anes_hooks *hooks,
		      struct anes_result *res)
{
	static uint8_t weights_flag[ANES_MAX_GRANTS];
	static struct subq_grant g[ANES_MAX_GRANTS];
	struct anes_result dummy;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof *res);
	res->st = (struct ctrl_status){CTRL_OK, POL_OK, KU_OK, -1, -1, -1, -1};
	res->canaries_ok = 1;
	res->lerr = ldr_load(buf, len, ldr_flags, &s_prog);
	if (res->lerr != LDR_OK) {
		anem_outf(out, ctx, "submit: program rejected: %s\n", ldr_err_name(res->lerr));
		return 1;
	}
	res->loaded = 1;
	const struct ldr_program *p = &s_prog;
	if (use_defaults) {
		int k = ctrl_default_grants(p, g, ANES_MAX_GRANTS, &res->st);
		if (k < 0) {
			print_status(&res->st, out, ctx);
			return 1;
		}
		n = (unsigned)k;
	} else {
		if (n > ANES_MAX_GRANTS || (n && !grants)) {
			res->st.err = CTRL_E_GRANTS;
			print_status(&res->st, out, ctx);
			return 1;
		}
		memcpy(g, grants, n * sizeof *g);
	}
	/* arena: guard | TD memory | guard | kunit scratch | guard | grant 0 | guard | ... */
	uint64_t size = ANES_GUARD, td_off, ku_off;
	td_off = size;
	size += round_page(p->td_area_len) + ANES_GUARD;
	ku_off = size;
	size += round_page(p->weights_len) + ANES_GUARD;
	for (unsigned i = 0; i < n; i++) {
		if (g[i].size > ANES_MAX_ARENA || size > ANES_MAX_ARENA) {
			res->st.err = CTRL_E_POLICY;
			res->st.pol = POL_ERR_OUT_OF_BUFFER;
			res->st.bar = (int)g[i].bar;
			print_status(&res->st, out, ctx);
			return 1;
		}
		g[i].mapped = ANES_DEV_BASE + size;
		size += round_page(g[i].size) + ANES_GUARD;
	}
	uint8_t *mem = malloc((size_t)size);
	if (!mem) {
		anem_outf(out, ctx, "submit: out of memory for 0x%lx bytes\n", (unsigned long)size);
		res->run = ANEM_E_ARG;
		return 1;
	}
	memset(mem, ANES_CANARY, (size_t)size);
	/* buffer contents: weights from the program, inputs a pattern, outputs zero */
	memset(mem + td_off, 0, p->td_area_len);
	memset(mem + ku_off, 0, p->weights_len);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *b = mem + (g[i].mapped - ANES_DEV_BASE);
		uint64_t wdva = (!p->raw && p->weights_sect >= 0) ? p->sects[p->weights_sect].addr : 0;
		int is_weights = p->weights_len && g[i].access == POL_READ &&
				 (p->raw ? 0 : g[i].dva == wdva);
		if (p->raw)
			for (unsigned t = 0; t < p->ntds; t++)
				for (unsigned k = 4; k < 8; k++)
					if ((p->tds[t].bar_en & (1u << k)) && p->tds[t].bar_idx[k] == g[i].bar)
						is_weights = 1;
		weights_flag[i] = (uint8_t)is_weights;
		if (is_weights) {
			uint64_t c = g[i].size < p->weights_len ? g[i].size : p->weights_len;
			memset(b, 0, (size_t)g[i].size);
			memcpy(b, p->buf + p->weights_off, (size_t)c);
		} else if (g[i].access & POL_WRITE) {
			memset(b, 0, (size_t)g[i].size);
		} else {
			for (uint64_t k = 0; k < g[i].size; k++)
				b[k] = (uint8_t)(k * 7u + g[i].bar);
		}
		if (hooks && hooks->fill)
			hooks->fill(hooks->ctx, &g[i], b, is_weights);
	}
	anem_outf(out, ctx, "submit: %s program, %u td%s, %u grant%s\n", p->raw ? "raw" : "hwx", p->ntds,
	     p->ntds == 1 ? "" : "s", n, n == 1 ? "" : "s");
	for (unsigned i = 0; i < n; i++)
		anem_outf(out, ctx, "  grant bar %lu dva 0x%lx size 0x%lx %s at 0x%08lx\n",
		     (unsigned long)g[i].bar, (unsigned long)g[i].dva, (unsigned long)g[i].size,
		     acc_name(g[i].access), (unsigned long)g[i].mapped);
	struct pol_range forbid[2] = {
		{ANES_DEV_BASE + td_off, round_page(p->td_area_len) ? round_page(p->td_area_len) : ANES_GUARD, 0, 0},
		{ANES_DEV_BASE + ku_off, round_page(p->weights_len) ? round_page(p->weights_len) : ANES_GUARD, 0, 0},
	};
	struct ctrl_scratch sc = {mem + ku_off, p->weights_len, ANES_DEV_BASE + ku_off};
	int rc = 0;
	enum ctrl_err ce = ctrl_plan(&s_plan, p, g, n, forbid, 2, &sc);
	res->st = s_plan.st;
	res->ntds = p->ntds;
	if (ce != CTRL_OK) {
		print_status(&s_plan.st, out, ctx);
		rc = 1;
	} else {
		anem_init(&s_model, (uintptr_t)s_window, mem, ANES_DEV_BASE, size, hal_board_dma());
		anem_set_output(&s_model, trace, out, ctx);
		if (!s_model.dma) {
			res->run = ANEM_E_DMA;
		} else {
			if (trace)
				for (unsigned i = 0; i < p->ntds; i++)
					for (unsigned r = 0; r < s_plan.td[i].nranges; r++) {
						const struct ctrl_range *x = &s_plan.td[i].r[r];
						anem_outf(out, ctx, "  td %u range %-6s ch %u bar %u off 0x%lx len 0x%lx -> 0x%08lx %s\n",
						     i, ctrl_kind_name(x->kind), x->ch, x->bar,
						     (unsigned long)x->off, (unsigned long)x->len,
						     (unsigned long)x->runtime, acc_name(x->access));
					}
			res->run = anem_submit(&s_model, &s_plan, ANES_DEV_BASE + td_off, 0);
		}
		res->nwrites = s_model.nwrites;
		res->nmoves = s_model.nmoves;
		res->bytes = s_model.bytes_moved;
		for (unsigned i = 0; i < p->ntds && i < LDR_MAX_TDS; i++) {
			unsigned nc = 0;
			for (unsigned r = 0; r < s_plan.td[i].nranges; r++)
				nc += s_plan.td[i].r[r].kind == CTRL_R_COEFF;
			anem_outf(out, ctx, "td %u: %u writes, %u coefficient channel%s, %u moves, 0x%lx bytes moved%s\n",
			     i, s_model.td_writes[i], nc, nc == 1 ? "" : "s", s_model.td_moves[i],
			     (unsigned long)s_model.td_bytes[i],
			     s_plan.td[i].nstream_regs ? ", kernel-unit streams programmed" : "");
			char act[120];
			anem_act_describe(&s_model.td_act[i], act, sizeof act);
			anem_outf(out, ctx, "td %u: activation: %s", i, act);
			if (s_model.td_act[i].state == ANEM_ACT_APPLIED)
				anem_outf(out, ctx, ", applied to %lu fp16 values",
				     (unsigned long)s_model.td_act[i].nelem);
			anem_outf(out, ctx, "\n");
			if (s_model.td_act[i].state == ANEM_ACT_APPLIED) {
				res->act_applied++;
				res->act_elems += s_model.td_act[i].nelem;
			}
		}
		if (res->run != ANEM_OK) {
			anem_outf(out, ctx, "submit: engine failed: %s\n", anem_err_name(res->run));
			rc = 1;
		} else {
			anem_outf(out, ctx, "submit: completed: %u writes, %u moves, 0x%lx bytes\n",
			     s_model.nwrites, s_model.nmoves, (unsigned long)s_model.bytes_moved);
		}
	}
	if (hooks && hooks->check)
		for (unsigned i = 0; i < n; i++)
			hooks->check(hooks->ctx, &g[i], mem + (g[i].mapped - ANES_DEV_BASE),
				     weights_flag[i]);
	/* canaries: every guard page around every buffer */
	uint64_t pos = 0;
	uint64_t ends[2 + ANES_MAX_GRANTS], starts[2 + ANES_MAX_GRANTS];
	unsigned nr = 0;
	starts[nr] = td_off; ends[nr++] = td_off + p->td_area_len;
	starts[nr] = ku_off; ends[nr++] = ku_off + p->weights_len;
	for (unsigned i = 0; i < n; i++) {
		starts[nr] = g[i].mapped - ANES_DEV_BASE;
		ends[nr] = starts[nr] + g[i].size;
		nr++;
	}
	for (unsigned r = 0; r <= nr; r++) {
		uint64_t lim = r < nr ? starts[r] : size;
		for (uint64_t k = pos; k < lim; k++)
			if (mem[k] != ANES_CANARY)
				res->canaries_ok = 0;
		if (r < nr)
			pos = ends[r];
	}
	anem_outf(out, ctx, "submit: canaries %s\n", res->canaries_ok ? "intact" : "DAMAGED");
	free(mem);
	if (!res->canaries_ok)
		rc = 1;
	return rc;
}

void anes_completion(const struct anes_result *res, struct subq_completion *c)
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
		c->domain = res->st.err == CTRL_E_KUNIT ? SUBQ_DOM_KUNIT : SUBQ_DOM_POLICY;
		c->code = res->st.err == CTRL_E_KUNIT    ? (uint32_t)res->st.ku
			  : res->st.err == CTRL_E_POLICY ? (uint32_t)res->st.pol
							 : (uint32_t)res->st.err;
	} else if (res->run != ANEM_OK || !res->canaries_ok) {
		c->status = SUBQ_FAILED;
		c->domain = SUBQ_DOM_ENGINE;
		c->code = (uint32_t)-res->run;
	}
}
