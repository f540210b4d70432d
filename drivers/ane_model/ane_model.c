#include "drivers/ane_model/ane_model.h"
#include "fw/common/outf.h"
#include "fw/common/le.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *anem_err_name(int e)
{
	switch (e) {
	case ANEM_OK: return "ok";
	case ANEM_E_ARG: return "engine-bad-argument";
	case ANEM_E_RANGE: return "engine-address-outside-memory";
	case ANEM_E_DMA: return "engine-dma-error";
	case ANEM_E_TIMEOUT: return "engine-timeout";
	case ANEM_E_WINDOW: return "engine-register-outside-window";
	case ANEM_E_WATCHDOG: return "watchdog-expired";
	case ANEM_E_WRONG_TASK: return "engine-completion-wrong-task";
	case ANEM_E_READBACK: return "engine-register-readback-mismatch";
	default: return "engine-unknown-error";
	}
}

static struct anem_faults s_faults;
static uint32_t s_faults_left, s_faults_fired;

void anem_set_faults(const struct anem_faults *f)
{
	memset(&s_faults, 0, sizeof s_faults);
	s_faults_left = 0;
	s_faults_fired = 0;
	if (f && f->kind > ANEM_FAULT_NONE && f->kind < ANEM_FAULT__COUNT) {
		s_faults = *f;
		s_faults_left = f->count ? f->count : 1;
	} else if (f) {
		s_faults.watchdog_polls = f->watchdog_polls;
	}
}

uint32_t anem_faults_fired(void)
{
	return s_faults_fired;
}

static const char *const fault_names[ANEM_FAULT__COUNT] = {"none", "dma-hang", "dma-error",
							     "wrong-task", "readback"};

const char *anem_fault_name(unsigned kind)
{
	return kind < ANEM_FAULT__COUNT ? fault_names[kind] : "?";
}

int anem_fault_parse(const char *name)
{
	for (unsigned k = 0; name && k < ANEM_FAULT__COUNT; k++)
		if (!strcmp(name, fault_names[k]))
			return (int)k;
	return -1;
}

void anem_outf(anem_out_fn out, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	outf_v(out, ctx, fmt, ap);
	va_end(ap);
}

int anem_init(struct anem *m, uintptr_t regs_base, uint8_t *mem, uint64_t dev_base,
	      uint64_t mem_size, struct dma_dev *dma)
{
	if (!m || !regs_base || !mem || !dma)
		return ANEM_E_ARG;
	memset(m, 0, sizeof *m);
	m->regs = (uint32_t *)regs_base;
	memset(m->regs, 0, ANEM_WINDOW_BYTES);
	m->mem = mem;
	m->dev_base = dev_base;
	m->mem_size = mem_size;
	m->dma = dma;
	return ANEM_OK;
}

void anem_set_output(struct anem *m, unsigned trace, anem_out_fn out, void *ctx)
{
	m->trace = trace;
	m->out = out;
	m->ctx = ctx;
}

uint8_t *anem_cpu(const struct anem *m, uint64_t dev, uint64_t len)
{
	uint64_t end;
	if (dev < m->dev_base || __builtin_add_overflow(dev, len, &end) ||
	    end > m->dev_base + m->mem_size)
		return NULL;
	return m->mem + (dev - m->dev_base);
}

void anem_reg_name(const struct rm_gen *g, uint32_t addr, char *buf, size_t len)
{
	struct rm_loc loc;
	const char *s = ctrl_stream_reg_name(addr);
	if (s) {
		snprintf(buf, len, "%s", s);
	} else if (g && rm_lookup(g, addr, &loc) == 0) {
		if (!loc.reg)
			snprintf(buf, len, "%s.Rsvd_0x%03lx", loc.block->name, (unsigned long)loc.block_off);
		else if (loc.reg->count > 1)
			snprintf(buf, len, "%s.%s[%u]", loc.block->name, loc.reg->name, loc.index);
		else
			snprintf(buf, len, "%s.%s", loc.block->name, loc.reg->name);
	} else {
		snprintf(buf, len, "?");
	}
}

int anem_write(struct anem *m, const struct rm_gen *g, uint32_t addr, uint32_t value)
{
	if ((addr & 3u) || addr >= ANEM_WINDOW_BYTES)
		return ANEM_E_WINDOW;
	/* the real driver: mmio_write32(base + addr, value), then reads it back */
	uint32_t stored = value;
	if (m->fault == ANEM_FAULT_READBACK && m->fault_skip-- == 0) {
		stored = value ^ 0x80000001u; /* the register latches another value */
		m->fault = ANEM_FAULT_NONE;
		m->fault_hit = 1;
	}
	m->regs[addr / 4] = stored;
	if (m->regs[addr / 4] != value)
		return ANEM_E_READBACK;
	m->nwrites++;
	if (m->cur_td < LDR_MAX_TDS)
		m->td_writes[m->cur_td]++;
	if (m->trace) {
		char name[64];
		anem_reg_name(g, addr, name, sizeof name);
		anem_outf(m->out, m->ctx, "  write 0x%05lx %-40s = 0x%08lx\n", (unsigned long)addr, name,
		     (unsigned long)value);
	}
	return ANEM_OK;
}

static void tq_write(struct anem *m, const char *what, int idx, uint64_t v)
{
	if (!m->trace)
		return;
	if (idx >= 0)
		anem_outf(m->out, m->ctx, "  tq %s[%d] = 0x%lx\n", what, idx, (unsigned long)v);
	else
		anem_outf(m->out, m->ctx, "  tq %s = 0x%lx\n", what, (unsigned long)v);
}

/* Waits for the channel: every poll counts against the watchdog; a transfer gets at most
 * ANEM_WAIT_POLLS polls. */
static int wait_channel(struct anem *m)
{
	for (uint32_t i = 0;; i++) {
		if (m->polls >= m->wd_budget)
			return ANEM_E_WATCHDOG;
		if (i >= ANEM_WAIT_POLLS)
			return ANEM_E_TIMEOUT;
		m->polls++;
		int r = dma_poll(m->dma, ANEM_DMA_CHANNEL);
		if (r == DMA_OK)
			return ANEM_OK;
		if (r != DMA_ERR_BUSY)
			return ANEM_E_DMA;
	}
}

/* The one function every DMA move goes through. */
static int dma_move(struct anem *m, void *dst, const void *src, uint32_t len)
{
	uint32_t body = len & ~3u;
	if (body) {
		const struct dma_block b = {.src = (uintptr_t)src, .dst = (uintptr_t)dst, .len = body};
		const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
		int r = dma_configure(m->dma, ANEM_DMA_CHANNEL, &cfg);
		if (r == DMA_OK)
			r = dma_start(m->dma, ANEM_DMA_CHANNEL);
		if (r != DMA_OK)
			return ANEM_E_DMA;
		int e = wait_channel(m);
		if (e)
			return e;
	}
	/* a tail under the DMA granule (kernel-unit sections): the engine's byte path */
	memcpy((uint8_t *)dst + body, (const uint8_t *)src + body, len - body);
	return ANEM_OK;
}

static void count_move(struct anem *m, uint64_t len)
{
	m->nmoves++;
	m->bytes_moved += len;
	if (m->cur_td < LDR_MAX_TDS) {
		m->td_moves[m->cur_td]++;
		m->td_bytes[m->cur_td] += len;
	}
}

static void trace_move(struct anem *m, const struct ctrl_range *r, int to_mem, const char *sname)
{
	if (m->trace)
		anem_outf(m->out, m->ctx, "  move %-6s %s 0x%08lx %s %s len 0x%lx\n", ctrl_kind_name(r->kind),
		     to_mem ? "to" : "from", (unsigned long)r->runtime, to_mem ? "<-" : "->", sname,
		     (unsigned long)r->len);
}

/* Moves [dev, dev+len) into a scratch buffer, a scratch-sized chunk at a time (the last chunk
 * stays in the scratch). */
static int move_in(struct anem *m, const struct ctrl_range *r, uint8_t *scratch, const char *sname)
{
	uint8_t *p = anem_cpu(m, r->runtime, r->len);
	if (!p)
		return ANEM_E_RANGE;
	trace_move(m, r, 0, sname);
	for (uint64_t done = 0; done < r->len;) {
		uint64_t left = r->len - done;
		uint32_t n = left > ANEM_SCRATCH_BYTES ? ANEM_SCRATCH_BYTES : (uint32_t)left;
		int e = dma_move(m, scratch, p + done, n);
		if (e)
			return e;
		done += n;
	}
	count_move(m, r->len);
	return ANEM_OK;
}

/* Finds the TD's activation record: NE.MACCfg.NonlinearMode == 2 selects the LUT; the record is
 * the kernel unit's activation-LUT stream (its first record) or else the first enabled coefficient
 * channel of exactly one record stride (0x80 bytes). Parsed from the engine's copy in kmem. */
static struct anem_act *resolve_act(struct anem *m, const struct ctrl_td_plan *t, struct actlut *lut)
{
	static struct anem_act scratch_act;
	struct anem_act *a = m->cur_td < LDR_MAX_TDS ? &m->td_act[m->cur_td] : &scratch_act;
	memset(a, 0, sizeof *a);
	if (((m->regs[ANEM_REG_MACCFG / 4] >> 16) & 3u) != ANEM_NONLINEAR_LUT)
		return a;
	a->state = ANEM_ACT_NO_RECORD;
	const struct ctrl_range *rec = NULL;
	for (unsigned i = 0; i < t->nranges && !rec; i++)
		if (t->r[i].kind == CTRL_R_STREAM && t->r[i].ch == 3 && t->r[i].len >= ACTLUT_BYTES)
			rec = &t->r[i];
	for (unsigned i = 0; i < t->nranges && !rec; i++)
		if (t->r[i].kind == CTRL_R_COEFF && t->r[i].len == ACTLUT_STRIDE)
			rec = &t->r[i];
	if (!rec)
		return a;
	a->from_stream = rec->kind == CTRL_R_STREAM;
	a->dev = rec->runtime;
	/* the engine fetches the record (it went to kernel memory with the other coefficients,
	 * which a later channel may have overwritten there) */
	uint8_t kbuf[ACTLUT_BYTES];
	const uint8_t *src = anem_cpu(m, rec->runtime, ACTLUT_BYTES);
	if (!src || dma_move(m, kbuf, src, ACTLUT_BYTES)) {
		a->state = ANEM_ACT_NO_RECORD;
		return a;
	}
	enum actlut_err pe = actlut_parse(lut, kbuf, sizeof kbuf);
	if (pe != ACTLUT_OK) {
		a->state = ANEM_ACT_INVALID;
		a->err = (uint8_t)pe;
		return a;
	}
	a->kind = (uint8_t)lut->kind;
	a->scale = lut->scale;
	a->state = ((m->regs[ANEM_REG_CHCFG / 4] >> 4) & 3u) == ANEM_FMT_FP16 ? ANEM_ACT_APPLIED
										: ANEM_ACT_NOT_FP16;
	return a;
}

/* One table for large tiles, rebuilt only when the record changes (docs/actlut.md: the table
 * pays above about 65,000 elements). */
static uint16_t s_table[ACTLUT_TABLE_LEN];
static uint16_t s_table_slots[ACTLUT_SLOTS];
static int s_table_valid;

static void prepare_table(struct actlut *lut)
{
	if (!s_table_valid || memcmp(s_table_slots, lut->slot, sizeof s_table_slots)) {
		actlut_build_table(lut, s_table);
		memcpy(s_table_slots, lut->slot, sizeof s_table_slots);
		s_table_valid = 1;
	}
	lut->table = s_table;
}

/* Applies f to n bytes of fp16 (little-endian) in place. */
static void apply_bytes(const struct actlut *lut, uint8_t *p, uint32_t n)
{
	uint16_t v[256];
	for (uint32_t off = 0; off + 1 < n;) {
		uint32_t k = (n - off) / 2 > 256 ? 256 : (n - off) / 2;
		for (uint32_t j = 0; j < k; j++)
			v[j] = le_rd16(p + off + 2 * j);
		actlut_apply(lut, v, v, k);
		for (uint32_t j = 0; j < k; j++)
			le_wr16(p + off + 2 * j, v[j]);
		off += 2 * k;
	}
}

/* The engine running one TD: its writes are in the window; the moves it makes. Coefficients and
 * streams go to kernel memory first; then the tile streams through L2 one L2-sized chunk at a
 * time (every source's chunk k into L2, then L2 out to every destination's chunk k), so a
 * destination's chunk k holds what the sources held at chunk k; when the TD's activation applies,
 * the destination chunk's fp16 values are replaced by f(value) right after the move. */
static int run_td(struct anem *m, const struct ctrl_td_plan *t)
{
	int e;
	for (unsigned i = 0; i < t->nranges; i++) {
		const struct ctrl_range *r = &t->r[i];
		if (r->kind == CTRL_R_COEFF || r->kind == CTRL_R_STREAM) {
			e = move_in(m, r, m->kmem, "kmem");
			if (e)
				return e;
		}
	}
	static struct actlut lut;
	struct anem_act *act = resolve_act(m, t, &lut);
	uint8_t *cpu[CTRL_MAX_RANGES] = {0};
	uint64_t total = 0, dst_bytes = 0;
	for (unsigned pass = 1; pass < 3; pass++)
		for (unsigned i = 0; i < t->nranges; i++) {
			const struct ctrl_range *r = &t->r[i];
			int src = r->kind == CTRL_R_SRC0 || r->kind == CTRL_R_SRC1;
			if ((pass == 1 && !src) || (pass == 2 && r->kind != CTRL_R_DST))
				continue;
			cpu[i] = anem_cpu(m, r->runtime, r->len);
			if (!cpu[i])
				return ANEM_E_RANGE;
			trace_move(m, r, pass == 2, "l2");
			if (r->len > total)
				total = r->len;
			if (pass == 2)
				dst_bytes += r->len;
		}
	lut.table = NULL;
	if (act->state == ANEM_ACT_APPLIED && !dst_bytes)
		act->state = ANEM_ACT_NO_DST;
	if (act->state == ANEM_ACT_APPLIED && dst_bytes / 2 > ACTLUT_TABLE_LEN)
		prepare_table(&lut);
	for (uint64_t done = 0; done < total; done += ANEM_SCRATCH_BYTES) {
		for (unsigned pass = 1; pass < 3; pass++)
			for (unsigned i = 0; i < t->nranges; i++) {
				const struct ctrl_range *r = &t->r[i];
				int src = r->kind == CTRL_R_SRC0 || r->kind == CTRL_R_SRC1;
				if ((pass == 1 && !src) || (pass == 2 && r->kind != CTRL_R_DST) ||
				    done >= r->len)
					continue;
				uint64_t left = r->len - done;
				uint32_t n = left > ANEM_SCRATCH_BYTES ? ANEM_SCRATCH_BYTES : (uint32_t)left;
				e = pass == 1 ? dma_move(m, m->l2, cpu[i] + done, n)
					      : dma_move(m, cpu[i] + done, m->l2, n);
				if (e)
					return e;
				if (pass == 2 && act->state == ANEM_ACT_APPLIED) {
					apply_bytes(&lut, cpu[i] + done, n);
					act->nelem += n / 2;
				}
			}
	}
	for (unsigned i = 0; i < t->nranges; i++)
		if (t->r[i].kind == CTRL_R_SRC0 || t->r[i].kind == CTRL_R_SRC1 || t->r[i].kind == CTRL_R_DST)
			count_move(m, t->r[i].len);
	return ANEM_OK;
}

void anem_act_describe(const struct anem_act *a, char *buf, size_t len)
{
	const char *where = a->from_stream ? "kernel-unit stream" : "lut record";
	switch (a->state) {
	case ANEM_ACT_NONE:
		snprintf(buf, len, "none");
		break;
	case ANEM_ACT_NO_RECORD:
		snprintf(buf, len, "lut selected, no record resolved (not applied)");
		break;
	case ANEM_ACT_INVALID:
		snprintf(buf, len, "%s @0x%08lx invalid: %s (not applied)", where, (unsigned long)a->dev,
			 actlut_strerror((enum actlut_err)a->err));
		break;
	default:
		if (a->kind == ACTLUT_KIND_LINEAR)
			snprintf(buf, len, "%s @0x%08lx, mode linear, no knots%s", where,
				 (unsigned long)a->dev,
				 a->state == ANEM_ACT_NOT_FP16 ? ", output not fp16 (not applied)" :
				 a->state == ANEM_ACT_NO_DST ? ", no destination tile (not applied)" : "");
		else
			snprintf(buf, len, "%s @0x%08lx, mode %s, knots 2^-%ld%s", where,
				 (unsigned long)a->dev, actlut_kind_name((enum actlut_kind)a->kind),
				 (long)a->scale,
				 a->state == ANEM_ACT_NOT_FP16 ? ", output not fp16 (not applied)" :
				 a->state == ANEM_ACT_NO_DST ? ", no destination tile (not applied)" : "");
		break;
	}
}

uint64_t anem_watchdog_budget(const struct ctrl_plan *pl)
{
	uint64_t b = ANEM_WD_BASE, bytes = 0, moves = 0;
	if (!pl)
		return b;
	for (unsigned i = 0; i < pl->ntds && i < LDR_MAX_TDS; i++) {
		b += ANEM_WD_PER_TD;
		for (unsigned r = 0; r < pl->td[i].nranges && r < CTRL_MAX_RANGES; r++) {
			uint64_t len = pl->td[i].r[r].len;
			bytes += len; /* ranges are proven inside 32-bit grants: no overflow */
			moves += len / ANEM_SCRATCH_BYTES + 1;
		}
	}
	return b + moves * ANEM_WD_PER_MOVE + bytes / ANEM_WD_BYTES_PER_POLL;
}

static int submit_run(struct anem *m, const struct ctrl_plan *pl, uint64_t td_dev,
		      unsigned priority);

/* Puts the engine and its DMA channel back to their reset state after a failed submission. */
static void reset_after_failure(struct anem *m)
{
	dma_reset(m->dma, ANEM_DMA_CHANNEL);
	memset(&m->tq, 0, sizeof m->tq);
	memset(m->regs, 0, ANEM_WINDOW_BYTES);
	memset(m->l2, 0, sizeof m->l2);
	memset(m->kmem, 0, sizeof m->kmem);
}

int anem_submit(struct anem *m, const struct ctrl_plan *pl, uint64_t td_dev, unsigned priority)
{
	if (!m || !pl || pl->st.err != CTRL_OK || !pl->ntds || !m->dma)
		return ANEM_E_ARG;
	m->polls = 0;
	m->wd_budget = s_faults.watchdog_polls ? s_faults.watchdog_polls : anem_watchdog_budget(pl);
	m->fault = ANEM_FAULT_NONE;
	m->fault_hit = 0;
	if (s_faults_left) {
		m->fault = s_faults.kind;
		m->fault_skip = s_faults.skip;
		if (m->fault == ANEM_FAULT_DMA_HANG || m->fault == ANEM_FAULT_DMA_ERROR)
			dma_set_fault(m->dma, m->fault == ANEM_FAULT_DMA_HANG ? DMA_FAULT_HANG
									    : DMA_FAULT_ERROR,
				      s_faults.skip);
	}
	uint32_t fired0 = m->dma->fault.fired;
	int e = submit_run(m, pl, td_dev, priority);
	if (m->dma->fault.fired != fired0)
		m->fault_hit = 1;
	dma_set_fault(m->dma, DMA_FAULT_NONE, 0);
	m->fault = ANEM_FAULT_NONE;
	if (m->fault_hit && s_faults_left) {
		s_faults_left--;
		s_faults_fired++;
	}
	if (e != ANEM_OK)
		reset_after_failure(m);
	return e;
}

static int submit_run(struct anem *m, const struct ctrl_plan *pl, uint64_t td_dev,
		      unsigned priority)
{
	const struct ldr_program *p = pl->p;
	/* TD memory: the TD area with the plan's patched words */
	uint8_t *tdm = anem_cpu(m, td_dev, p->td_area_len);
	if (!tdm)
		return ANEM_E_RANGE;
	memcpy(tdm, p->buf + p->td_area_off, p->td_area_len);
	for (unsigned i = 0; i < pl->ntds; i++)
		for (unsigned k = 0; k < pl->td[i].npatch; k++)
			le_wr32(tdm + pl->td[i].patch[k].area_off, pl->td[i].patch[k].value);
	/* task queue */
	memset(&m->tq, 0, sizeof m->tq);
	m->cur_td = LDR_MAX_TDS;
	for (unsigned b = 0; b < LDR_NBARS; b++)
		if (pl->bars_used & (1u << b)) {
			m->tq.bar[b] = pl->bar_runtime[b];
			m->tq.bars_set |= 1u << b;
			tq_write(m, "BAR", (int)b, pl->bar_runtime[b]);
		}
	m->tq.td_addr = td_dev + p->tds[0].off;
	m->tq.td_size = p->tds[0].size;
	m->tq.td_count = pl->ntds;
	m->tq.nid = p->tds[0].nid;
	m->tq.priority = priority;
	tq_write(m, "TDAddr", -1, m->tq.td_addr);
	tq_write(m, "TDSize", -1, m->tq.td_size);
	tq_write(m, "TDCount", -1, m->tq.td_count);
	tq_write(m, "NID", -1, m->tq.nid);
	tq_write(m, "Priority", -1, m->tq.priority);
	m->tq.started = 1;
	tq_write(m, "Start", -1, 1);
	/* the engine walks the chain from TD memory */
	for (unsigned i = 0; i < pl->ntds; i++) {
		const struct ldr_td *td = &p->tds[i];
		m->cur_td = i;
		if (m->trace)
			anem_outf(m->out, m->ctx, "td %u at 0x%08lx size 0x%lx nid %lu\n", i,
			     (unsigned long)(td_dev + td->off), (unsigned long)td->size,
			     (unsigned long)td->nid);
		struct ldr_write_iter it;
		struct ldr_write w;
		ldr_writes_begin(p, i, &it);
		while (ldr_writes_next(&it, &w)) {
			int e = anem_write(m, p->gen, w.addr, le_rd32(tdm + w.area_off));
			if (e)
				return e;
		}
		for (unsigned k = 0; k < pl->td[i].nstream_regs; k++) {
			int e = anem_write(m, p->gen, pl->td[i].stream_regs[k].addr,
					   pl->td[i].stream_regs[k].value);
			if (e)
				return e;
		}
		int e = run_td(m, &pl->td[i]);
		if (e)
			return e;
	}
	/* completion: bounded wait on the DMA channel the moves used */
	if (m->nmoves && dma_get_state(m->dma, ANEM_DMA_CHANNEL) == DMA_STATE_RUNNING) {
		int r = wait_channel(m);
		if (r)
			return r;
	}
	/* the engine posts its completion: the task (NID of the last TD) and the TDs it ran */
	m->tq.done_nid = p->tds[pl->ntds - 1].nid;
	m->tq.done_count = pl->ntds;
	if (m->fault == ANEM_FAULT_WRONG_TASK) {
		m->tq.done_nid ^= 1u; /* a completion for another task */
		m->fault = ANEM_FAULT_NONE;
		m->fault_hit = 1;
	}
	if (m->tq.done_nid != p->tds[pl->ntds - 1].nid || m->tq.done_count != m->tq.td_count)
		return ANEM_E_WRONG_TASK;
	m->tq.status = 1;
	return ANEM_OK;
}
