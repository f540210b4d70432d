/* The software model of the engine (see model.h). */
#include "engine/model/model.h"
#include "engine/model/compute.h"
#include "fw/common/le.h"
#include "fw/kunit/kunit.h"
#include "fw/td/td.h"

#include <stdio.h>
#include <string.h>

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

void anem_set_faults(struct anem *m, const struct anem_faults *f)
{
	memset(&m->faults, 0, sizeof m->faults);
	m->faults_left = 0;
	m->faults_fired = 0;
	if (f && f->kind > ANEM_FAULT_NONE && f->kind < ANEM_FAULT__COUNT) {
		m->faults = *f;
		m->faults_left = f->count ? f->count : 1;
	} else if (f) {
		m->faults.watchdog_polls = f->watchdog_polls;
	}
}

uint32_t anem_faults_fired(const struct anem *m)
{
	return m->faults_fired;
}

int anem_init(struct anem *m, uintptr_t regs_base, uint8_t *mem, uint64_t dev_base,
	      uint64_t mem_size, struct dma_dev *dma)
{
	if (!m || !regs_base || !dma)
		return ENG_E_ARG;
	memset(m, 0, sizeof *m);
	m->regs = (uint32_t *)regs_base;
	memset(m->regs, 0, ANEM_WINDOW_BYTES);
	memset(m->regs_dirty, 0, sizeof m->regs_dirty);
	m->dma = dma;
	anem_set_memory(m, mem, dev_base, mem_size);
	anem_outside_init(m);
	m->ops_limit = ANEM_OPS_LIMIT;
	return ENG_OK;
}

void anem_set_ops_limit(struct anem *m, uint64_t limit)
{
	m->ops_limit = limit;
}

void anem_set_memory(struct anem *m, uint8_t *mem, uint64_t dev_base, uint64_t mem_size)
{
	m->mem = mem;
	m->dev_base = dev_base;
	m->mem_size = mem ? mem_size : 0;
}

void anem_set_output(struct anem *m, unsigned trace, outf_fn out, void *ctx)
{
	m->trace = trace;
	m->out = out;
	m->ctx = ctx;
}

uint8_t *anem_cpu(const struct anem *m, uint64_t dev, uint64_t len)
{
	uint64_t end;
	if (!m->mem || dev < m->dev_base || __builtin_add_overflow(dev, len, &end) ||
	    end > m->dev_base + m->mem_size)
		return NULL;
	return m->mem + (dev - m->dev_base);
}

/* The CPU pointer of a range the engine is about to touch (reported to the touch hook). */
static uint8_t *touch(struct anem *m, uint64_t dev, uint64_t len, int write)
{
	uint8_t *p = anem_cpu(m, dev, len);
	if (p && m->touch)
		m->touch(m->touch_ctx, dev, len, write);
	return p;
}

int anem_refuse(struct anem *m, enum eng_fault_reason reason, uint32_t reg, unsigned lsb,
		unsigned width, const char *why)
{
	struct eng_fault *f = &m->flt;
	*f = (struct eng_fault){.reason = (uint32_t)reason, .err = ENG_E_FAULT, .td = (int)m->cur_td,
				.reg = ENG_FAULT_NO_REG, .slot = -1, .why = why};
	if (reg != ENG_FAULT_NO_REG && !(reg & 3u) && reg < ANEM_WINDOW_BYTES && lsb < 32 &&
	    width <= 32 - lsb) {
		uint32_t v = m->regs[reg / 4] >> lsb;
		f->reg = reg;
		f->lsb = (uint8_t)lsb;
		f->width = (uint8_t)(width == 32 ? 0 : width);
		f->value = width && width < 32 ? v & ((1u << width) - 1u) : v;
	}
	return ENG_E_FAULT;
}

/* ---- the engine interface ---- */

static void reset(void *dev)
{
	struct anem *m = dev;
	dma_reset(m->dma, ANEM_DMA_CHANNEL);
	memset(&m->tq, 0, sizeof m->tq);
	m->queued = 0;
	m->state = ENG_ST_IDLE;
	m->err = 0;
	m->done_nid = m->done_count = 0;
	/* the window is all 0 but the pieces write_reg wrote since: a few of its 128 KiB */
	for (unsigned i = 0; i < ANEM_WINDOW_PIECES; i++)
		if (m->regs_dirty[i / 64] >> (i % 64) & 1u)
			memset(m->regs + i * (ANEM_WINDOW_PIECE / 4), 0, ANEM_WINDOW_PIECE);
	memset(m->regs_dirty, 0, sizeof m->regs_dirty);
	anem_l2_clear(m);
}

void anem_begin(struct anem *m)
{
	reset(m);
	m->nmoves = 0;
	m->bytes_moved = 0;
	m->polls = 0;
	memset(m->td_moves, 0, sizeof m->td_moves);
	memset(m->td_bytes, 0, sizeof m->td_bytes);
	memset(m->td_act, 0, sizeof m->td_act);
	m->fault = ANEM_FAULT_NONE;
	m->fault_hit = 0;
	if (m->faults_left) {
		m->fault = m->faults.kind;
		m->fault_skip = m->faults.skip;
		if (m->fault == ANEM_FAULT_DMA_HANG || m->fault == ANEM_FAULT_DMA_ERROR)
			dma_set_fault(m->dma, m->fault == ANEM_FAULT_DMA_HANG ? DMA_FAULT_HANG
									    : DMA_FAULT_ERROR,
				      m->faults.skip);
	}
	m->dma_fired0 = m->dma->fault.fired;
}

void anem_end(struct anem *m)
{
	anem_l2_clear(m); /* L2-resident tensors live for one submission */
	if (m->dma->fault.fired != m->dma_fired0)
		m->fault_hit = 1;
	dma_set_fault(m->dma, DMA_FAULT_NONE, 0);
	m->fault = ANEM_FAULT_NONE;
	if (m->fault_hit && m->faults_left) {
		m->faults_left--;
		m->faults_fired++;
	}
}

static int queue(void *dev, const struct eng_task *t)
{
	struct anem *m = dev;
	m->tq = *t;
	m->wd_budget = m->faults.watchdog_polls ? m->faults.watchdog_polls : t->budget;
	m->ops_used = 0;
	m->queued = 1;
	m->state = ENG_ST_IDLE;
	m->done_count = 0;
	return ENG_OK;
}

static int write_reg(void *dev, uint32_t addr, uint32_t value)
{
	struct anem *m = dev;
	if ((addr & 3u) || addr >= ANEM_WINDOW_BYTES)
		return ENG_E_WINDOW;
	if (m->fault == ANEM_FAULT_READBACK && m->fault_skip-- == 0) {
		value ^= 0x80000001u; /* the register latches another value */
		m->fault = ANEM_FAULT_NONE;
		m->fault_hit = 1;
	}
	m->regs[addr / 4] = value;
	m->regs_dirty[addr / ANEM_WINDOW_PIECE / 64] |= 1ull << (addr / ANEM_WINDOW_PIECE % 64);
	return ENG_OK;
}

static uint32_t read_reg(const void *dev, uint32_t addr)
{
	const struct anem *m = dev;
	return (addr & 3u) || addr >= ANEM_WINDOW_BYTES ? 0 : m->regs[addr / 4];
}

static int write_regs(void *dev, const struct ctrl_reg *list, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		int r = write_reg(dev, list[k].addr, list[k].value);
		if (r != ENG_OK)
			return r;
	}
	return ENG_OK;
}

static void read_regs(const void *dev, const struct ctrl_reg *list, uint32_t n, uint32_t *out)
{
	for (uint32_t k = 0; k < n; k++)
		out[k] = read_reg(dev, list[k].addr);
}

static void fault_of(const void *dev, struct eng_fault *f)
{
	const struct anem *m = dev;
	*f = m->flt;
}

static void poll(void *dev, struct eng_status *st)
{
	const struct anem *m = dev;
	st->state = m->state;
	st->err = (int)m->err;
	st->done_nid = m->done_nid;
	st->done_count = m->done_count;
}

/* ---- DMA ---- */

/* Waits for the channel: every poll counts against the watchdog; a transfer gets at most
 * ANEM_WAIT_POLLS polls. */
static int wait_channel(struct anem *m)
{
	for (uint32_t i = 0;; i++) {
		if (m->polls >= m->wd_budget)
			return ENG_E_WATCHDOG;
		if (i >= ANEM_WAIT_POLLS)
			return ENG_E_TIMEOUT;
		m->polls++;
		int r = dma_poll(m->dma, ANEM_DMA_CHANNEL);
		if (r == DMA_OK)
			return ENG_OK;
		if (r != DMA_E_BUSY)
			return ENG_E_DMA;
	}
}

/* One block on the model's channel: configured, started, waited for. */
static int move_block(struct anem *m, const struct dma_block *b)
{
	const struct dma_channel_config cfg = {.blocks = b, .nblocks = 1};
	int r = dma_configure(m->dma, ANEM_DMA_CHANNEL, &cfg);
	if (r == DMA_OK)
		r = dma_start(m->dma, ANEM_DMA_CHANNEL);
	if (r != DMA_OK)
		return ENG_E_DMA;
	return wait_channel(m);
}

/* The one function every one-dimensional DMA move goes through; flags DMA_BLOCK_DISCARD: the
 * bytes are read and not written (a move into on-chip memory the model does not keep). */
static int dma_move(struct anem *m, void *dst, const void *src, uint32_t len, uint32_t flags)
{
	const struct dma_caps *c = &m->dma->caps;
	uint32_t g = c->granule ? c->granule : 1;
	/* a source or destination off the DMA's granule (a kernel unit's per-channel stream from an
	 * OCG whose first channel is odd: docs/kunit.md puts the slot at that channel's value) goes
	 * whole by the engine's byte path, as a tail does */
	uint32_t body = ((uintptr_t)src % g || (uintptr_t)dst % g) ? 0 : len & ~(g - 1u);
	if (body) {
		const struct dma_block b = {.src = (uintptr_t)src, .dst = (uintptr_t)dst, .len = body,
					    .flags = flags};
		int e = move_block(m, &b);
		if (e)
			return e;
	}
	/* a tail under the DMA granule (kernel-unit sections): the engine's byte path */
	if (!(flags & DMA_BLOCK_DISCARD))
		memcpy((uint8_t *)dst + body, (const uint8_t *)src + body, len - body);
	return ENG_OK;
}

int anem_dma_move(struct anem *m, void *dst, const void *src, uint32_t len)
{
	return dma_move(m, dst, src, len, 0);
}

int anem_dma_rows_ok(const struct anem *m, const void *dst, int64_t dpitch, const void *src,
		     int64_t spitch, uint32_t len, uint32_t rows)
{
	const struct dma_caps *c = &m->dma->caps;
	uint32_t g = c->granule ? c->granule : 1;
	int64_t adp = dpitch < 0 ? -dpitch : dpitch, dg = dpitch - (int64_t)len, sg = spitch - (int64_t)len;
	/* the driver's bound on the gap between rows (bcm2835: a signed 16-bit stride field) */
	int64_t mg = c->max_gap ? (int64_t)c->max_gap : INT64_MAX / 4;
	if (dg > mg || dg < -mg || sg > mg || sg < -mg)
		return 0;
	return !(rows < 2 || !len || len % g || len > c->max_row_len || rows > c->max_rows ||
		 (uintptr_t)dst % g || (uintptr_t)src % g || dpitch % g || spitch % g ||
		 adp < (int64_t)len || dpitch > INT32_MAX || dpitch < INT32_MIN ||
		 spitch > INT32_MAX || spitch < INT32_MIN || m->fault != ANEM_FAULT_NONE);
}

int anem_dma_move_rows(struct anem *m, void *dst, int64_t dpitch, const void *src,
		       int64_t spitch, uint32_t len, uint32_t rows)
{
	if (!anem_dma_rows_ok(m, dst, dpitch, src, spitch, len, rows))
		return ANEM_ROWS_ONE_BY_ONE;
	const struct dma_block b = {.src = (uintptr_t)src, .dst = (uintptr_t)dst, .len = len,
				    .rows = rows, .src_pitch = (int32_t)spitch,
				    .dst_pitch = (int32_t)dpitch};
	return move_block(m, &b);
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

static void trace_move(struct anem *m, const struct mrange *r, const char *sname)
{
	if (m->trace)
		outf(m->out, m->ctx, "  move %-6s %s 0x%08lx %s %s len 0x%lx\n", td_rkind_name(r->kind),
		     r->write ? "to" : "from", (unsigned long)r->dev, r->write ? "<-" : "->", sname,
		     (unsigned long)r->len);
}

/* Moves a range into on-chip memory that the model does not keep, a scratch-sized chunk at a
 * time: the DMA reads every byte and writes none. */
static int move_in(struct anem *m, const struct mrange *r, uint8_t *scratch, const char *sname)
{
	trace_move(m, r, sname);
	for (uint64_t done = 0; done < r->len;) {
		uint64_t left = r->len - done;
		uint32_t n = left > ANEM_SCRATCH_BYTES ? ANEM_SCRATCH_BYTES : (uint32_t)left;
		int e = dma_move(m, scratch, r->cpu + done, n, DMA_BLOCK_DISCARD);
		if (e)
			return e;
		done += n;
	}
	count_move(m, r->len);
	return ENG_OK;
}

/* ---- the activation ---- */

/* Whether a channel's record (rec, its 0x80 bytes: a channel of one record, or a head in a longer
 * channel) differs from the kernel unit's stream's (srec: its first 0x80 bytes, zero past its
 * range's end, as resolve_act reads it), the bytes after the slots included. */
static int act_rec_differs(const struct mrange *srec, const struct mrange *rec)
{
	const size_t n = srec->len < ACTLUT_STRIDE ? (size_t)srec->len : ACTLUT_STRIDE;
	if (rec->len < ACTLUT_STRIDE || memcmp(srec->cpu, rec->cpu, n))
		return 1;
	for (size_t i = n; i < ACTLUT_STRIDE; i++)
		if (rec->cpu[i])
			return 1;
	return 0;
}

/* The record slot an actlut_parse error is about (-1: the error names no single slot). */
static int act_err_slot(enum actlut_err pe)
{
	switch (pe) {
	case ACTLUT_E_SCALE:
		return 41;
	case ACTLUT_E_MODE:
	case ACTLUT_E_LINEAR_MODE:
	case ACTLUT_E_MODE_BITS:
	case ACTLUT_E_MODE_SLOTS:
	case ACTLUT_E_PREDICTION:
	case ACTLUT_E_UNPINNED:
	case ACTLUT_E_SIGNED_SPLIT:
	case ACTLUT_E_SIGN_NEGATIVE:
		return 42;
	default:
		return -1;
	}
}

/* NE.MACCfg.NonlinearMode == 2 selects the LUT; the record is the activation-LUT stream's, or else
 * where fw/td's td_lut_place says among the coefficient channels: the first of exactly one record
 * stride (ACTLUT_STRIDE), or a convolution's every channel's head, each channel's range then
 * trimmed to the kernels after its record (the records must be equal). A selected LUT with no
 * record, or a record that does not parse, faults the TD: the model never leaves an activation
 * unapplied. */
static int resolve_act(struct anem *m, struct mrange *r, unsigned n, struct anem_act *a)
{
	memset(a, 0, sizeof *a);
	if (H13_GET(m->regs[H13_NE_MACCFG / 4], H13_MACCFG_NONLINEARMODE) != H13_NONLINEAR_LUT)
		return ENG_OK;
	const struct mrange *rec = NULL;
	for (unsigned i = 0; i < n && !rec; i++)
		if (r[i].kind == TD_R_STREAM && r[i].ch == H13_KSTREAM_ACTLUT && r[i].len >= ACTLUT_BYTES)
			rec = &r[i];
	uint64_t len[H13_COEFF_NCH];
	unsigned at[H13_COEFF_NCH], nc = 0, ch = 0;
	for (unsigned i = 0; i < n && nc < H13_COEFF_NCH; i++)
		if (r[i].kind == TD_R_COEFF) {
			at[nc] = i;
			len[nc++] = r[i].len;
		}
	const int conv = td_conv_from_memory(m->regs[H13_NE_MACCFG / 4], m->regs[H13_NE_POSTSCALE / 4], nc);
	/* a kernel-unit convolution's channel 0 is its OCG (load_kernels_ku), no record */
	const unsigned skip = m->ku_ok && conv && nc ? 1u : 0u;
	const unsigned *at1 = at + skip, n1 = nc - skip;
	const struct mrange *srec = rec; /* the kernel unit's activation-LUT stream's */
	/* the stream runs to its section's end: every further record there must be the first (which
	 * one the engine reads is not pinned; a review found a second, different record ignored) */
	/* (over the whole 0x80 stride, or to the section's end: the bytes after the slots are read
	 * too, actlut_check_padding, so a record differing there only is another record) */
	/* (fw/actlut actlut_stream_differs, which inspect marks) */
	const size_t sk = srec ? actlut_stream_differs(srec->cpu, (size_t)srec->len) : 0;
	if (sk) {
		anem_refuse(m, ENG_FR_ACT_RECORD, H13_KSTREAM_RELOC(H13_KSTREAM_ACTLUT), 0, 32,
			    ACTLUT_STREAM_DIFFERS_WHY);
		m->flt.mem = srec->dev + sk;
		return ENG_E_FAULT;
	}
	rec = NULL;
	const enum td_lut_place place = td_lut_place(len + skip, n1, conv && !m->ku_ok, &ch);
	if (place == TD_LUT_CHANNEL) {
		rec = &r[at1[ch]];
		/* other channels of one record each (Apple's select enables 8, each a copy): the same
		 * record, or which one the engine reads would decide the values (a review found a
		 * second, different record left unread) */
		for (unsigned k = ch + 1; k < n1; k++)
			if (len[skip + k] == ACTLUT_STRIDE && memcmp(r[at1[k]].cpu, rec->cpu, ACTLUT_STRIDE)) {
				anem_refuse(m, ENG_FR_ACT_RECORD, H13_COEFF_BASEADDR(r[at1[k]].ch), 0, 32,
					    "activation records in several coefficient channels that differ");
				m->flt.mem = r[at1[k]].dev;
				return ENG_E_FAULT;
			}
	}
	if (place == TD_LUT_MIXED) { /* fw/td's text, which inspect prints too */
		anem_refuse(m, ENG_FR_ACT_RECORD, H13_COEFF_BFRSIZE(r[at1[ch]].ch), 0, 32, TD_LUT_MIXED_WHY);
		m->flt.mem = r[at1[ch]].dev;
		return ENG_E_FAULT;
	}
	if (place == TD_LUT_HEADS) {
		/* pinned before dense fp16 kernels in OCGSize runs and the less's KernelFmt 1 depthwise
		 * lanes only (fw/td td_lut_heads_refusal, which inspect marks) */
		const struct td_regs regs = {read_reg, m};
		struct td_refusal no = {0};
		td_lut_heads_refusal(&regs, place, &no);
		if (no.why)
			return anem_refuse(m, ENG_FR_COMBINATION, no.reg, no.lsb, no.width, no.why);
		for (unsigned k = 1; k < n1; k++)
			if (memcmp(r[at1[k]].cpu, r[at1[0]].cpu, ACTLUT_STRIDE)) {
				anem_refuse(m, ENG_FR_ACT_RECORD, H13_COEFF_BASEADDR(r[at1[k]].ch), 0, 32,
					    "the activation records at the coefficient channels' heads differ");
				m->flt.mem = r[at1[k]].dev;
				return ENG_E_FAULT;
			}
		rec = &r[at1[0]];
	}
	/* a kernel unit's activation-LUT stream and a channel's record: which one the engine reads
	 * is not pinned, so the two must be one record (inspect says the stream's applies), else
	 * refused, as differing channel records are */
	/* (the channel's 0x80 bytes, a record's slots and the bytes after them, against the stream's,
	 * zero past its section's end as the model reads it below; a channel with a nonzero byte after
	 * the slots beside a stream without one completed, while inspect marked the channel's record) */
	if (srec && rec && act_rec_differs(srec, rec)) {
		anem_refuse(m, ENG_FR_ACT_RECORD, H13_COEFF_BASEADDR(rec->ch), 0, 32,
			    "an activation record in a coefficient channel that differs from the kernel "
			    "unit's activation-LUT stream (which one the engine reads is not pinned)");
		m->flt.mem = rec->dev;
		return ENG_E_FAULT;
	}
	if (srec)
		rec = srec;
	if (!rec)
		return ANEM_REFUSE(m, ENG_FR_ACT_RECORD, H13_NE_MACCFG, H13_MACCFG_NONLINEARMODE,
				   "NonlinearMode selects the LUT but no record resolves (no "
				   "activation-LUT stream, no coefficient channel of one record, no "
				   "convolution's channels with one at their heads)");
	a->from_stream = rec->kind == TD_R_STREAM;
	a->dev = rec->dev;
	/* the record's 0x80 bytes (its slots, then bytes that must be zero), or to its range's end */
	uint8_t kbuf[ACTLUT_STRIDE] = {0};
	const size_t klen = rec->len < ACTLUT_STRIDE ? (size_t)rec->len : ACTLUT_STRIDE;
	int e = anem_dma_move(m, kbuf, rec->cpu, (uint32_t)klen);
	if (e)
		return e; /* a failed fetch fails the TD: it is not "no record" */
	size_t pad_at = 0;
	/* (operation 6 only where its knots are rsqrt's, table words real records pin, bytes 86..127
	 * zero as in every real record) */
	enum actlut_err pe = actlut_read_checked(&m->lut, kbuf, klen, &pad_at);
	if (pe != ACTLUT_OK) {
		uint32_t reg = a->from_stream ? H13_KSTREAM_RELOC(rec->ch) : H13_COEFF_BASEADDR(rec->ch);
		anem_refuse(m, ENG_FR_ACT_RECORD, reg, 0, 32, actlut_strerror(pe));
		m->flt.mem = rec->dev;
		/* a padding byte: the 16-bit slot past 42 that holds it (bytes 2N, 2N + 1) */
		m->flt.slot = pe == ACTLUT_E_PADDING ? (int)(pad_at / 2) : act_err_slot(pe);
		if (m->flt.slot >= 0)
			m->flt.slot_value = le_rd16(kbuf + 2 * (unsigned)m->flt.slot);
		return ENG_E_FAULT;
	}
	/* a one-byte output takes the LUT's fp16 result through the output port's conversion, as
	 * every one-byte output does (round to nearest even, saturate): Apple's H13 logical_not
	 * writes its bool result so, the [x = 0] indicator record on int8 in and out */
	a->kind = (uint8_t)m->lut.kind;
	a->scale = m->lut.scale;
	a->state = ANEM_ACT_APPLIED;
	if (place == TD_LUT_HEADS) /* the kernels: each channel after its record */
		for (unsigned k = 0; k < nc; k++) {
			r[at[k]].cpu += ACTLUT_STRIDE;
			r[at[k]].dev += ACTLUT_STRIDE;
			r[at[k]].len -= ACTLUT_STRIDE;
		}
	return ENG_OK;
}

uint32_t anem_table_direct_max = ANEM_TABLE_DIRECT_MAX;

/* The activation for a TD of n elements (its td_ops): the table every fp16 pattern's result
 * when the record has been applied to anem_table_direct_max elements or more, else no table
 * (actlut_apply evaluates each element). The table folds the input port's NaN rule in: a NaN
 * pattern gives +inf's result. No NaN reaches the activation any other way (the NE's rows are
 * rounded by f2h, which makes NaN +0, and the port makes a NaN +inf), so the folded entries
 * change nothing for those rows; they let elementwise() hand the LUT rows the port has not
 * converted (its raw rows, docs/performance.md), which it does only with the table. */
static void prepare_table(struct anem *m, uint64_t n)
{
	if (memcmp(m->table_slots, m->lut.slot, sizeof m->table_slots)) {
		memcpy(m->table_slots, m->lut.slot, sizeof m->table_slots);
		m->table_valid = 0;
		m->table_direct = 0;
	}
	if (!m->table_valid) {
		if (m->table_direct < anem_table_direct_max && n < anem_table_direct_max - m->table_direct) {
			m->table_direct += (uint32_t)n; /* below anem_table_direct_max */
			return; /* m->lut.table stays NULL */
		}
		actlut_build_table(&m->lut, m->table);
		for (uint32_t x = 0x7c01u; x <= 0x7fffu; x++)
			m->table[x] = m->table[x | 0x8000u] = m->table[0x7c00u];
		m->table_valid = 1;
	}
	m->lut.table = m->table;
}

/* ---- running a TD ---- */

/* The kernel streams' lengths: each from its start to the end of its section of the kernel
 * unit (ku_stream_len, as the control path sized the ranges it checked). The unit's descriptor
 * sits BaseOffset bytes before each stream; its bytes (descriptor and OCG table, inside the unit
 * the plan checked) are read through the touch hook; each unit is parsed once. */
static int stream_lengths(struct anem *m, uint32_t len[H13_KSTREAM_N])
{
	uint64_t parsed = UINT64_MAX;
	memset(len, 0, H13_KSTREAM_N * sizeof *len);
	m->ku_ok = 0;
	for (unsigned s = 0; s < H13_KSTREAM_N; s++) {
		if (!(m->regs[H13_KSTREAM_ENABLE(s) / 4] & 1u))
			continue;
		uint32_t boff = m->regs[H13_KSTREAM_BASEOFFSET(s) / 4];
		uint64_t unit = (uint64_t)m->regs[H13_KSTREAM_RELOC(s) / 4] - boff;
		if (unit != parsed) {
			const uint8_t *p = touch(m, unit, KU_HEADER_SIZE, 0);
			if (!p)
				return ENG_E_RANGE;
			uint32_t total = le_rd32(p + 0x18);
			if (total < KU_HEADER_SIZE || !(p = touch(m, unit, total, 0)) ||
			    ku_parse(p, total, &ctrl_h13_ku_limits, &m->ku) != KU_OK)
				return anem_refuse(m, ENG_FR_DATA, H13_KSTREAM_RELOC(s), 0, 32,
						   "the kernel unit a stream names does not parse");
			parsed = unit;
			m->ku_ok = 1;
		}
		len[s] = ku_stream_len(&m->ku, s, boff);
	}
	return ENG_OK;
}

static int run_td(struct anem *m, uint64_t td_dev)
{
	const uint8_t *hp = anem_cpu(m, td_dev, H13_TD_HEADER_BYTES);
	if (!hp)
		return ENG_E_RANGE;
	uint32_t hw[H13_TD_HEADER_WORDS];
	struct td_hdr h;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		hw[i] = le_rd32(hp + 4 * i);
	td_hdr_decode(hw, &h);
	m->cur_ene = h.ene;
	m->cur_bar_en = h.bar_en;
	uint32_t slen[H13_KSTREAM_N];
	int e = stream_lengths(m, slen);
	if (e)
		return e;
	struct td_range tr[TD_MAX_RANGES];
	struct mrange r[TD_MAX_RANGES];
	unsigned n = 0, nr = 0;
	const struct td_regs regs = {read_reg, m};
	/* the compute limit, before anything moves */
	const uint64_t ops = td_ops(&regs);
	if (m->trace)
		outf(m->out, m->ctx, "  ops %lu (td_ops), the task's %lu\n", (unsigned long)ops,
		     (unsigned long)(m->ops_used + ops));
	if (ops > m->ops_limit || m->ops_used > m->ops_limit - ops)
		return ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY,
					 "the task's operations (fw/td td_ops) past the model's compute limit "
					 "(the board's hal_platform model_ops, or --ops-limit, ops_limit=): "
					 "silicon would run it, the model would take too long");
	m->ops_used += ops;
	if (td_ranges(&h, &regs, slen, tr, TD_MAX_RANGES, &n, NULL, NULL) != TD_OK)
		return ANEM_REFUSE_NOREG(m, ENG_FR_FIELD, "the TD's memory ranges do not decode");
	for (unsigned i = 0; i < n; i++) {
		if (tr[i].whole)
			continue; /* enabled, extent not decoded: the engine moves nothing from it */
		uint64_t dev = tr[i].addr;
		if (!tr[i].absolute) {
			if (!(m->tq.bars_set & (1u << tr[i].bar)) ||
			    __builtin_add_overflow(m->tq.bar[tr[i].bar], tr[i].addr, &dev))
				return ENG_E_RANGE;
		}
		struct mrange x = {tr[i].kind, tr[i].ch, tr[i].access == TD_WRITE, dev, tr[i].len,
				   NULL};
		x.cpu = touch(m, dev, x.len, x.write);
		if (!x.cpu)
			return ENG_E_RANGE;
		r[nr++] = x;
	}
	/* coefficients and streams into kernel memory */
	for (unsigned i = 0; i < nr; i++)
		if (r[i].kind == TD_R_COEFF || r[i].kind == TD_R_STREAM)
			if ((e = move_in(m, &r[i], m->kmem, "kmem")) != ENG_OK)
				return e;
	struct anem_act scratch, *act = m->cur_td < LDR_MAX_TDS ? &m->td_act[m->cur_td] : &scratch;
	if ((e = resolve_act(m, r, nr, act)) != ENG_OK)
		return e;
	/* the datapath: tile sources (or the L2-resident source) through the NE, the activation
	 * and the PE to the destination (and/or an L2-resident result) */
	m->lut.table = NULL;
	int l2res = H13_GET(m->regs[H13_L2_RESULTCFG / 4], H13_L2_RESULTTYPE) == H13_L2_RESIDENT;
	uint64_t dst_bytes = 0;
	for (unsigned i = 0; i < nr; i++)
		if (r[i].kind == TD_R_SRC0 || r[i].kind == TD_R_SRC1 || r[i].kind == TD_R_DST) {
			trace_move(m, &r[i], "l2");
			if (r[i].kind == TD_R_DST)
				dst_bytes += r[i].len;
		}
	if (act->state == ANEM_ACT_APPLIED && (dst_bytes || l2res))
		prepare_table(m, ops);
	if ((e = anem_compute(m, r, nr, act)) != ENG_OK)
		return e;
	for (unsigned i = 0; i < nr; i++)
		if (r[i].kind == TD_R_SRC0 || r[i].kind == TD_R_SRC1 || r[i].kind == TD_R_DST)
			count_move(m, r[i].len);
	/* the moves used one DMA channel: it must be idle before the TD completes */
	if (dma_get_state(m->dma, ANEM_DMA_CHANNEL) == DMA_STATE_RUNNING && (e = wait_channel(m)))
		return e;
	return ENG_OK;
}

static int start(void *dev, unsigned td, uint64_t td_dev)
{
	struct anem *m = dev;
	if (!m->queued)
		return ENG_E_ARG;
	m->cur_td = td;
	m->flt = (struct eng_fault){.reason = ENG_FR_NONE, .td = (int)td, .reg = ENG_FAULT_NO_REG,
				    .slot = -1};
	m->state = ENG_ST_BUSY;
	int e = run_td(m, td_dev);
	if (e != ENG_OK) {
		m->state = ENG_ST_ERROR;
		m->err = (uint32_t)e;
		return ENG_OK; /* the error is the engine's status, which the driver polls */
	}
	const uint8_t *hp = anem_cpu(m, td_dev, 4);
	m->done_nid = H13_GET(le_rd32(hp), H13_TDH_NID);
	m->done_count++;
	if (m->fault == ANEM_FAULT_WRONG_TASK && m->done_count == m->tq.td_count) {
		m->done_nid ^= 1u; /* a completion for another task */
		m->fault = ANEM_FAULT_NONE;
		m->fault_hit = 1;
	}
	m->state = ENG_ST_DONE;
	return ENG_OK;
}

static void op_set_memory(void *dev, uint8_t *mem, uint64_t base, uint64_t size)
{
	anem_set_memory(dev, mem, base, size);
}

static void op_set_output(void *dev, unsigned trace, outf_fn out, void *ctx)
{
	anem_set_output(dev, trace, out, ctx);
}

static void op_begin(void *dev)
{
	anem_begin(dev);
}

static void op_end(void *dev)
{
	anem_end(dev);
}

static uint64_t op_work(const void *dev)
{
	return ((const struct anem *)dev)->polls;
}

static void op_td_report(const void *dev, unsigned td, struct eng_td_report *r)
{
	const struct anem *m = dev;
	if (td >= LDR_MAX_TDS)
		return;
	r->moves = m->td_moves[td];
	r->bytes = m->td_bytes[td];
	r->act_applied = m->td_act[td].state == ANEM_ACT_APPLIED;
	r->act_elems = r->act_applied ? m->td_act[td].nelem : 0;
	anem_act_describe(&m->td_act[td], r->act, sizeof r->act);
}

const struct eng_ops anem_ops = {
	.name = "model",
	.reset = reset,
	.queue = queue,
	.write = write_reg,
	.read = read_reg,
	.start = start,
	.poll = poll,
	.fault = fault_of,
	.set_memory = op_set_memory,
	.set_output = op_set_output,
	.begin = op_begin,
	.end = op_end,
	.work = op_work,
	.td_report = op_td_report,
};

const struct eng_batch anem_batch = {write_regs, read_regs};

void anem_act_describe(const struct anem_act *a, char *buf, size_t len)
{
	const char *where = a->from_stream ? "kernel-unit stream" : "lut record";
	if (a->state != ANEM_ACT_APPLIED)
		snprintf(buf, len, "none");
	else if (a->kind == ACTLUT_KIND_LINEAR)
		snprintf(buf, len, "%s @0x%08lx, mode linear, no knots", where, (unsigned long)a->dev);
	else
		snprintf(buf, len, "%s @0x%08lx, mode %s, knots 2^-%ld", where, (unsigned long)a->dev,
			 actlut_kind_name((enum actlut_kind)a->kind), (long)a->scale);
}
