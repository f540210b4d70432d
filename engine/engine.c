/* The engine driver: a checked plan through the engine interface (see engine.h). */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

const char *eng_err_name(int e)
{
	switch (e) {
	case ENG_OK: return "ok";
	case ENG_E_ARG: return "engine-bad-argument";
	case ENG_E_RANGE: return "engine-address-outside-memory";
	case ENG_E_DMA: return "engine-dma-error";
	case ENG_E_TIMEOUT: return "engine-timeout";
	case ENG_E_WINDOW: return "engine-register-outside-window";
	case ENG_E_WATCHDOG: return "watchdog-expired";
	case ENG_E_WRONG_TASK: return "engine-completion-wrong-task";
	case ENG_E_READBACK: return "engine-register-readback-mismatch";
	case ENG_E_NOMEM: return "engine-out-of-memory";
	case ENG_E_FAULT: return "engine-fault";
	default: return "engine-unknown-error";
	}
}

void eng_reg_name(const struct rm_gen *g, uint32_t addr, char *buf, size_t len)
{
	struct rm_loc loc;
	if (g && rm_lookup(g, addr, &loc) == 0)
		rm_loc_name(&loc, buf, len);
	else
		snprintf(buf, len, "?");
}


uint64_t eng_watchdog_budget(const struct ctrl_plan *pl)
{
	uint64_t b = ENG_WD_BASE, bytes = 0, moves = 0;
	if (!pl)
		return b;
	for (unsigned i = 0; i < pl->ntds && i < LDR_MAX_TDS; i++) {
		b += ENG_WD_PER_TD;
		for (unsigned r = 0; r < pl->td[i].nranges && r < CTRL_MAX_RANGES; r++) {
			uint64_t len = pl->td[i].r[r].whole ? 0 : pl->td[i].r[r].len;
			bytes += len; /* ranges are proven inside 32-bit grants: no overflow */
			moves += len / ENG_WD_MOVE_BYTES + 1;
		}
	}
	return b + moves * ENG_WD_PER_MOVE + bytes / ENG_WD_BYTES_PER_POLL;
}

static void tq_trace(struct eng *e, const char *what, int idx, uint64_t v)
{
	if (!e->trace)
		return;
	if (idx >= 0)
		outf(e->out, e->ctx, "  tq %s[%d] = 0x%lx\n", what, idx, (unsigned long)v);
	else
		outf(e->out, e->ctx, "  tq %s = 0x%lx\n", what, (unsigned long)v);
}

/* One register write, read back. */
static int reg_write(struct eng *e, unsigned td, uint32_t addr, uint32_t value)
{
	int r = e->ops->write(e->dev, addr, value);
	if (r != ENG_OK)
		return r;
	if (e->ops->read(e->dev, addr) != value)
		return ENG_E_READBACK;
	e->nwrites++;
	if (td < LDR_MAX_TDS)
		e->td_writes[td]++;
	if (e->trace) {
		char name[RM_NAME_MAX];
		eng_reg_name(e->gen, addr, name, sizeof name);
		outf(e->out, e->ctx, "  write 0x%05lx %-40s = 0x%08lx\n", (unsigned long)addr, name,
		     (unsigned long)value);
	}
	return ENG_OK;
}

/* Polls the engine until it leaves BUSY, a bounded number of times. */
static int wait_idle(struct eng *e, struct eng_status *st)
{
	for (uint32_t i = 0; i < ENG_POLL_MAX; i++) {
		*st = (struct eng_status){0};
		e->ops->poll(e->dev, st);
		if (st->state == ENG_ST_ERROR)
			return st->err < 0 && st->err >= ENG_E__MIN ? st->err : ENG_E_FAULT;
		if (st->state != ENG_ST_BUSY)
			return ENG_OK;
	}
	return ENG_E_TIMEOUT;
}

static int run(struct eng *e, const struct ctrl_plan *pl, unsigned priority, uint64_t budget)
{
	const struct ldr_program *p = pl->p;
	struct eng_task t;
	memset(t.bar, 0, sizeof t.bar);
	t.bars_set = 0;
	for (unsigned b = 0; b < LDR_NBARS; b++)
		if (pl->bars_used & (1u << b)) {
			t.bar[b] = pl->bar_runtime[b];
			t.bars_set |= 1u << b;
			tq_trace(e, "BAR", (int)b, pl->bar_runtime[b]);
		}
	t.td_addr = pl->td_dev + p->tds[0].off;
	t.td_size = p->tds[0].size;
	t.td_count = pl->ntds;
	t.nid = p->tds[0].h.nid;
	t.priority = priority;
	t.budget = budget ? budget : eng_watchdog_budget(pl);
	tq_trace(e, "TDAddr", -1, t.td_addr);
	tq_trace(e, "TDSize", -1, t.td_size);
	tq_trace(e, "TDCount", -1, t.td_count);
	tq_trace(e, "NID", -1, t.nid);
	tq_trace(e, "Priority", -1, t.priority);
	int r = e->ops->queue(e->dev, &t);
	if (r != ENG_OK)
		return r;
	tq_trace(e, "Start", -1, 1);
	struct eng_status st;
	for (unsigned i = 0; i < pl->ntds; i++) {
		const struct ldr_td *td = &p->tds[i];
		uint64_t td_dev = pl->td_dev + td->off;
		if (e->trace)
			outf(e->out, e->ctx, "td %u at 0x%08lx size 0x%lx nid %lu\n", i,
			     (unsigned long)td_dev, (unsigned long)td->size, (unsigned long)td->h.nid);
		/* the TD's final image: its words as the plan checked them (re-based), then the streams */
		if (pl->wl_ok && !e->trace && pl->td[i].wl_unique && e->batch) {
			/* the plan's list in batches: written, then read back and compared (no register
			 * repeats inside the TD, so each must still hold what was written) */
			const struct ctrl_reg *w = pl->wl + pl->td[i].wl_first;
			uint32_t n = pl->td[i].wl_n, rb[ENG_BATCH];
			for (uint32_t k = 0; k < n; k += ENG_BATCH) {
				uint32_t b = n - k < ENG_BATCH ? n - k : ENG_BATCH;
				if ((r = e->batch->write_regs(e->dev, w + k, b)) != ENG_OK)
					return r;
				e->batch->read_regs(e->dev, w + k, b, rb);
				uint32_t diff = 0;
				for (uint32_t j = 0; j < b; j++)
					diff |= rb[j] ^ w[k + j].value;
				if (diff)
					return ENG_E_READBACK;
			}
			e->nwrites += n;
			e->td_writes[i] += n;
		} else if (pl->wl_ok && !e->trace) {
			/* the plan's list: a write and its read-back per register, counted once per TD */
			const struct ctrl_reg *w = pl->wl + pl->td[i].wl_first;
			uint32_t n = pl->td[i].wl_n;
			void *dev = e->dev;
			int (*wr)(void *, uint32_t, uint32_t) = e->ops->write;
			uint32_t (*rd)(const void *, uint32_t) = e->ops->read;
			for (uint32_t k = 0; k < n; k++) {
				if ((r = wr(dev, w[k].addr, w[k].value)) != ENG_OK)
					return r;
				if (rd(dev, w[k].addr) != w[k].value)
					return ENG_E_READBACK;
			}
			e->nwrites += n;
			e->td_writes[i] += n;
		} else if (pl->wl_ok) {
			const struct ctrl_reg *w = pl->wl + pl->td[i].wl_first;
			for (uint32_t k = 0; k < pl->td[i].wl_n; k++)
				if ((r = reg_write(e, i, w[k].addr, w[k].value)) != ENG_OK)
					return r;
		} else {
			struct ldr_write_iter it;
			struct ldr_write w;
			ldr_writes_begin(p, i, &it);
			while (ldr_writes_next(&it, &w))
				if ((r = reg_write(e, i, w.addr, le_rd32(pl->td_mem + w.area_off))) != ENG_OK)
					return r;
		}
		for (unsigned k = 0; k < pl->td[i].nstream_regs; k++)
			if ((r = reg_write(e, i, pl->td[i].stream_regs[k].addr,
					   pl->td[i].stream_regs[k].value)) != ENG_OK)
				return r;
		if ((r = e->ops->start(e->dev, i, td_dev)) != ENG_OK)
			return r;
		if ((r = wait_idle(e, &st)) != ENG_OK)
			return r;
	}
	/* the completion must name this task: the last TD's NID, every TD run */
	if (st.state != ENG_ST_DONE || st.done_nid != p->tds[pl->ntds - 1].h.nid ||
	    st.done_count != pl->ntds)
		return ENG_E_WRONG_TASK;
	return ENG_OK;
}

int eng_run(struct eng *e, const struct ctrl_plan *pl, unsigned priority, uint64_t budget)
{
	if (!e || !e->ops || !pl || pl->st.err != CTRL_OK || !pl->ntds || !pl->td_mem)
		return ENG_E_ARG;
	e->nwrites = 0;
	memset(e->td_writes, 0, sizeof e->td_writes);
	int r = run(e, pl, priority, budget);
	if (r != ENG_OK)
		e->ops->reset(e->dev);
	return r;
}
