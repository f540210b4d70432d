/* The engine driver: a checked plan through the engine interface (see engine.h). */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

static const struct err_desc errs[ENG_E__COUNT] = {
	[ENG_OK] = {"ok", "the submission completed"},
	[ENG_E_ARG] = {"engine-bad-argument",
	 "the driver was given no engine, no plan or an unchecked plan"},
	[ENG_E_RANGE] = {"engine-address-outside-memory",
	 "a TD's range is outside the engine's device memory"},
	[ENG_E_DMA] = {"engine-dma-error", "a DMA transfer completed with an error"},
	[ENG_E_TIMEOUT] = {"engine-timeout", "a status poll or transfer wait ran past its bound"},
	[ENG_E_WINDOW] = {"engine-register-outside-window",
	 "a register address outside the engine's register window"},
	[ENG_E_WATCHDOG] = {"watchdog-expired",
	 "the submission used more work units than its budget"},
	[ENG_E_WRONG_TASK] = {"engine-completion-wrong-task",
	 "the completion names another task or TD count"},
	[ENG_E_READBACK] = {"engine-register-readback-mismatch",
	 "a register read back another value than was written"},
	[ENG_E_NOMEM] = {"engine-out-of-memory", "the engine could not allocate what a TD needs"},
	[ENG_E_FAULT] = {"engine-fault",
	 "the engine stopped a TD it cannot execute (its fault says why)"},
};

const struct err_desc *eng_err(int e)
{
	static const struct err_desc unknown = {"engine-unknown-error",
						  "an engine error this build does not know"};
	return e >= 0 ? err_lookup(errs, ENG_E__COUNT, (unsigned)e, &unknown) : &unknown;
}

const char *eng_err_name(int e)
{
	return eng_err(e)->name;
}

const char *eng_err_text(int e)
{
	return eng_err(e)->desc;
}

static const char *const fr_names[ENG_FR__COUNT] = {
	[ENG_FR_NONE] = "none",
	[ENG_FR_FIELD] = "unmodelled-field",
	[ENG_FR_COMBINATION] = "unmodelled-combination",
	[ENG_FR_ACT_RECORD] = "unreadable-activation-record",
	[ENG_FR_DATA] = "unreadable-weights",
	[ENG_FR_CAPACITY] = "beyond-model-capacity",
	[ENG_FR_VALUE] = "ambiguous-value",
};

static const char *const fr_texts[ENG_FR__COUNT] = {
	[ENG_FR_NONE] = "no structured fault",
	[ENG_FR_FIELD] = "a register field or value with no modelled meaning",
	[ENG_FR_COMBINATION] = "a combination of units or fields the model does not model",
	[ENG_FR_ACT_RECORD] = "the activation LUT is selected but its record cannot be read",
	[ENG_FR_DATA] = "weights or a kernel-unit stream the model cannot read",
	[ENG_FR_CAPACITY] = "more than the model holds",
	[ENG_FR_VALUE] = "a tensor value the registers give two readings of, which the model does not choose between",
};

const char *eng_fault_reason_name(unsigned reason)
{
	return reason < ENG_FR__COUNT ? fr_names[reason] : "unknown-fault-reason";
}

const char *eng_fault_reason_text(unsigned reason)
{
	return reason < ENG_FR__COUNT ? fr_texts[reason] : "a fault reason this build does not know";
}

/* "Block.Reg.Field" of a fault's register field, from the register map (or the address and the
 * bit range when the map does not name it). */
static void fault_field(const struct eng_fault *f, const struct rm_gen *g, char *buf, size_t len)
{
	struct rm_loc loc;
	char reg[RM_NAME_MAX];
	const char *field = NULL;
	if (g && rm_lookup(g, f->reg, &loc) == 0) {
		rm_loc_name(&loc, reg, sizeof reg);
		for (unsigned k = 0; loc.reg && f->width && k < loc.reg->nfields; k++)
			if (loc.reg->fields[k].lsb == f->lsb && loc.reg->fields[k].width == f->width)
				field = loc.reg->fields[k].name;
	} else {
		snprintf(reg, sizeof reg, "register 0x%05lx", (unsigned long)f->reg);
	}
	if (field)
		snprintf(buf, len, "%s.%s", reg, field);
	else if (f->width && f->width < 32)
		snprintf(buf, len, "%s[%u:%u]", reg, f->lsb + f->width - 1u, f->lsb);
	else
		snprintf(buf, len, "%s", reg);
}

static const char *fault_unit(const struct eng_fault *f, const struct rm_gen *g)
{
	struct rm_loc loc;
	if (f->unit)
		return f->unit;
	if (f->reason == ENG_FR_ACT_RECORD)
		return "NE"; /* the activation LUT; the register locates its record */
	if (f->reg != ENG_FAULT_NO_REG && g && rm_lookup(g, f->reg, &loc) == 0)
		return loc.block->name;
	return "engine";
}

void eng_fault_format(const struct eng_fault *f, const struct rm_gen *g, char *buf, size_t len)
{
	char td[16], field[RM_NAME_MAX + 64], rec[64] = "";
	if (!len)
		return;
	if (f->td >= 0)
		snprintf(td, sizeof td, "td %d", f->td);
	else
		snprintf(td, sizeof td, "td ?");
	if (f->reason == ENG_FR_NONE) { /* why: the cause's own name (a DMA error's), if any */
		snprintf(buf, len, "%s: %s%s%s", td, eng_err_name(f->err), f->why ? ": " : "",
			 f->why ? f->why : "");
		return;
	}
	if (f->reg != ENG_FAULT_NO_REG) {
		char name[RM_NAME_MAX + 16];
		fault_field(f, g, name, sizeof name);
		snprintf(field, sizeof field, ", %s = 0x%lx", name, (unsigned long)f->value);
	} else {
		field[0] = 0;
	}
	char at[24] = "";
	if (f->mem)
		snprintf(at, sizeof at, " @0x%08lx", (unsigned long)f->mem);
	if (f->slot >= 0)
		snprintf(rec, sizeof rec, ", record%s slot %d = 0x%04lx", at, f->slot,
			 (unsigned long)f->slot_value);
	else if (f->mem)
		snprintf(rec, sizeof rec, ", record%s", at);
	snprintf(buf, len, "%s, unit %s%s%s: %s: %s", td, fault_unit(f, g), field, rec,
		 eng_fault_reason_name(f->reason), f->why ? f->why : eng_fault_reason_text(f->reason));
}

void eng_fault_pack(const struct eng_fault *f, uint32_t w[ENG_FAULT_WORDS])
{
	w[0] = f->td >= 0 ? (uint32_t)f->td + 1u : 0u;
	w[1] = f->reason;
	w[2] = f->reg;
	w[3] = f->lsb | (uint32_t)f->width << 8 | (uint32_t)(f->slot >= 0 ? f->slot + 1 : 0) << 16;
	w[4] = f->value;
	w[5] = f->slot_value;
}

void eng_fault_unpack(const uint32_t w[ENG_FAULT_WORDS], int err, struct eng_fault *f)
{
	*f = (struct eng_fault){.reason = w[1] < ENG_FR__COUNT ? w[1] : ENG_FR_NONE, .err = err,
				.td = w[0] ? (int)(w[0] - 1u) : -1, .reg = w[2],
				.lsb = (uint8_t)(w[3] & 0x1fu), .width = (uint8_t)((w[3] >> 8) & 0x3fu),
				.value = w[4], .slot = (int)((w[3] >> 16) & 0xffu) - 1,
				.slot_value = w[5]};
	if (f->width > 32 - f->lsb)
		f->width = 0;
}

void eng_set_memory(struct eng *e, uint8_t *mem, uint64_t base, uint64_t size)
{
	if (e->ops->set_memory)
		e->ops->set_memory(e->dev, mem, base, size);
}

void eng_set_output(struct eng *e, unsigned trace, outf_fn out, void *ctx)
{
	if (e->ops->set_output)
		e->ops->set_output(e->dev, trace, out, ctx);
}

void eng_begin(struct eng *e)
{
	if (e->ops->begin)
		e->ops->begin(e->dev);
}

void eng_end(struct eng *e)
{
	if (e->ops->end)
		e->ops->end(e->dev);
}

uint64_t eng_work(const struct eng *e)
{
	return e->ops->work ? e->ops->work(e->dev) : 0;
}

void eng_td_report(const struct eng *e, unsigned td, struct eng_td_report *r)
{
	*r = (struct eng_td_report){0};
	snprintf(r->act, sizeof r->act, "none");
	if (e->ops->td_report)
		e->ops->td_report(e->dev, td, r);
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

/* Polls the engine until it leaves BUSY, a bounded number of times. A TD that stopped with an
 * error leaves its structured fault (if the backend has one) in e->fault. */
static int wait_idle(struct eng *e, struct eng_status *st)
{
	for (uint32_t i = 0; i < ENG_POLL_MAX; i++) {
		*st = (struct eng_status){0};
		e->ops->poll(e->dev, st);
		if (st->state == ENG_ST_ERROR) {
			int td = e->fault.td;
			if (e->ops->fault)
				e->ops->fault(e->dev, &e->fault);
			e->fault.td = td;
			return st->err > 0 && st->err < ENG_E__COUNT ? st->err : ENG_E_FAULT;
		}
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
		e->fault.td = (int)i;
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
	e->fault = (struct eng_fault){.reason = ENG_FR_NONE, .td = -1, .reg = ENG_FAULT_NO_REG,
				      .slot = -1};
	int r = run(e, pl, priority, budget);
	if (r != ENG_OK) {
		int td = e->fault.td;
		if (e->fault.reason == ENG_FR_NONE) /* no structured record: the error and the TD */
			e->fault = (struct eng_fault){.reason = ENG_FR_NONE, .td = td,
						      .reg = ENG_FAULT_NO_REG, .slot = -1};
		e->fault.err = r;
		e->fault.td = td;
		e->ops->reset(e->dev);
	} else {
		e->fault.td = -1;
	}
	return r;
}
