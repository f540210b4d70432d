/* Generic DMA API: argument and range checks, the per-channel state machine, bounded waits. */
#include "drivers/dma/dma.h"
#include "hal/hal.h"

#include <string.h>

static const struct err_desc errs[DMA_E__COUNT] = {
	[DMA_OK] = {"ok", "no error"},
	[DMA_E_PARAM] = {"dma-bad-parameter",
	 "a NULL device, configuration or block list, or unknown flags"},
	[DMA_E_CHANNEL] = {"dma-no-such-channel", "no such channel on this device"},
	[DMA_E_NO_BLOCKS] = {"dma-no-blocks", "a configuration with zero blocks"},
	[DMA_E_TOO_MANY_BLOCKS] = {"dma-too-many-blocks", "more blocks than a channel holds"},
	[DMA_E_LENGTH] = {"dma-bad-length",
	 "a zero length, one over the backend's limit, or not a multiple of the granule"},
	[DMA_E_ALIGN] = {"dma-misaligned", "an address or pitch not a multiple of the granule"},
	[DMA_E_RANGE] = {"dma-out-of-reach",
	 "a range that wraps, or lies outside memory the engine reaches"},
	[DMA_E_STRIDE] = {"dma-bad-stride",
	 "a 2D shape the engine cannot express, or overlapping destination rows"},
	[DMA_E_OVERLAP] = {"dma-overlap", "a block's source and destination overlap"},
	[DMA_E_STATE] = {"dma-bad-state", "not valid in the channel's state"},
	[DMA_E_BUSY] = {"dma-busy", "the channel is running: stop it or wait first"},
	[DMA_E_TIMEOUT] = {"dma-timeout", "the bounded wait ran out; the channel is still running"},
	[DMA_E_READ] = {"dma-read-error", "the controller reported a bus read error"},
	[DMA_E_FIFO] = {"dma-fifo-error", "the controller reported a FIFO error"},
	[DMA_E_READ_LAST] = {"dma-read-last-not-set",
	 "the controller reported a read-last-not-set error"},
	[DMA_E_HW] = {"dma-controller-error", "the controller flagged an error without a known cause"},
	[DMA_E_UNSUPPORTED] = {"dma-unsupported", "the backend cannot do this"},
	[DMA_E_INJECTED] = {"dma-injected-fault", "an injected fault: the transfer ended with an error"},
};

const struct err_desc *dma_err(enum dma_err e)
{
	static const struct err_desc unknown = {"dma-unknown-error",
						  "a value this module does not define"};
	return err_lookup(errs, DMA_E__COUNT, (unsigned)e, &unknown);
}

const char *dma_state_name(enum dma_state s)
{
	switch (s) {
	case DMA_STATE_UNCONFIGURED: return "unconfigured";
	case DMA_STATE_CONFIGURED: return "configured";
	case DMA_STATE_RUNNING: return "running";
	case DMA_STATE_DONE: return "done";
	case DMA_STATE_ERROR: return "error";
	default: return "?";
	}
}

void dma_dev_init(struct dma_dev *d, const char *name, const struct dma_ops *ops, void *priv,
		  const struct dma_caps *caps)
{
	memset(d, 0, sizeof *d);
	d->name = name;
	d->ops = ops;
	d->priv = priv;
	d->caps = *caps;
	if (d->caps.nchannels > DMA_MAX_CHANNELS)
		d->caps.nchannels = DMA_MAX_CHANNELS;
}

static enum dma_err channel_ok(const struct dma_dev *d, unsigned ch)
{
	if (!d || !d->ops)
		return DMA_E_PARAM;
	return ch < d->caps.nchannels ? DMA_OK : DMA_E_CHANNEL;
}

enum dma_err dma_block_span(const struct dma_block *b, int which, uintptr_t *lo, uintptr_t *hi)
{
	uint64_t base = which ? (uint64_t)b->dst : (uint64_t)b->src;
	uint64_t rows = b->rows > 1 ? b->rows : 1;
	int64_t pitch = rows > 1 ? (which ? b->dst_pitch : b->src_pitch) : 0;
	if (which == 0 && (b->flags & DMA_BLOCK_FILL)) {
		*lo = *hi = (uintptr_t)base; /* a fill reads nothing */
		return DMA_OK;
	}
	/* |pitch| < 2^31 and rows < 2^32: the product fits in 63 bits. */
	uint64_t reach = (rows - 1) * (uint64_t)(pitch < 0 ? -pitch : pitch);
	uint64_t first, last_end;
	if (pitch < 0) {
		if (reach > base)
			return DMA_E_RANGE;
		first = base - reach;
		last_end = base + b->len;
	} else {
		first = base;
		if (reach > UINT64_MAX - base || b->len > UINT64_MAX - base - reach)
			return DMA_E_RANGE;
		last_end = base + reach + b->len;
	}
	if (last_end < base || last_end - 1 > (uint64_t)UINTPTR_MAX)
		return DMA_E_RANGE;
	*lo = (uintptr_t)first;
	*hi = (uintptr_t)last_end;
	return DMA_OK;
}

static enum dma_err check_block(const struct dma_dev *d, const struct dma_block *b)
{
	const struct dma_caps *c = &d->caps;
	uint32_t g = c->granule ? c->granule : 1;
	int two_d = b->rows > 1;
	if ((b->flags & ~(DMA_BLOCK_FILL | DMA_BLOCK_DISCARD)) ||
	    (b->flags & DMA_BLOCK_FILL && b->flags & DMA_BLOCK_DISCARD)) /* writes only / reads only */
		return DMA_E_PARAM;
	if (b->len == 0 || b->len % g)
		return DMA_E_LENGTH;
	if (two_d ? (b->len > c->max_row_len || b->rows > c->max_rows) : b->len > c->max_len)
		return DMA_E_LENGTH;
	if (b->dst % g || (!(b->flags & DMA_BLOCK_FILL) && b->src % g))
		return DMA_E_ALIGN;
	if (two_d) {
		if ((uint32_t)b->dst_pitch % g || (uint32_t)b->src_pitch % g)
			return DMA_E_ALIGN;
		/* destination rows may not overlap one another (source rows may: a broadcast) */
		int64_t dp = b->dst_pitch < 0 ? -(int64_t)b->dst_pitch : b->dst_pitch;
		if (dp < (int64_t)b->len)
			return DMA_E_STRIDE;
	}
	uintptr_t slo, shi, dlo, dhi;
	enum dma_err rc = dma_block_span(b, 0, &slo, &shi);
	if (rc == DMA_OK)
		rc = dma_block_span(b, 1, &dlo, &dhi);
	if (rc != DMA_OK)
		return rc;
	if (!(b->flags & (DMA_BLOCK_FILL | DMA_BLOCK_DISCARD)) && slo < dhi && dlo < shi)
		return DMA_E_OVERLAP;
	return DMA_OK;
}

enum dma_err dma_configure(struct dma_dev *d, unsigned ch, const struct dma_channel_config *cfg)
{
	enum dma_err rc = channel_ok(d, ch);
	if (rc != DMA_OK)
		return rc;
	if (!cfg || cfg->flags)
		return DMA_E_PARAM;
	struct dma_channel_state *s = &d->chan[ch];
	if (s->state == DMA_STATE_RUNNING)
		return DMA_E_BUSY;
	if (cfg->nblocks == 0)
		return DMA_E_NO_BLOCKS;
	if (!cfg->blocks)
		return DMA_E_PARAM;
	if (cfg->nblocks > d->caps.max_blocks)
		return DMA_E_TOO_MANY_BLOCKS;
	uint64_t bytes = 0;
	for (unsigned i = 0; i < cfg->nblocks; i++) {
		const struct dma_block *b = &cfg->blocks[i];
		rc = check_block(d, b);
		if (rc == DMA_OK && d->ops->check_block)
			rc = d->ops->check_block(d, ch, b);
		if (rc != DMA_OK)
			return rc;
		bytes += (uint64_t)b->len * (b->rows > 1 ? b->rows : 1);
	}
	rc = d->ops->load(d, ch, cfg->blocks, cfg->nblocks);
	if (rc != DMA_OK) {
		s->state = DMA_STATE_UNCONFIGURED;
		return rc;
	}
	s->state = DMA_STATE_CONFIGURED;
	s->error = DMA_OK;
	s->bytes = bytes;
	return DMA_OK;
}

enum dma_err dma_start(struct dma_dev *d, unsigned ch)
{
	enum dma_err rc = channel_ok(d, ch);
	if (rc != DMA_OK)
		return rc;
	struct dma_channel_state *s = &d->chan[ch];
	switch (s->state) {
	case DMA_STATE_RUNNING:
		return DMA_OK;
	case DMA_STATE_CONFIGURED:
	case DMA_STATE_DONE:
		break;
	default:
		return DMA_E_STATE;
	}
	rc = d->ops->start(d, ch);
	if (rc != DMA_OK) {
		s->state = DMA_STATE_ERROR;
		s->error = rc;
		return rc;
	}
	s->state = DMA_STATE_RUNNING;
	s->runs++;
	return DMA_OK;
}

enum dma_err dma_stop(struct dma_dev *d, unsigned ch)
{
	enum dma_err rc = channel_ok(d, ch);
	if (rc != DMA_OK)
		return rc;
	struct dma_channel_state *s = &d->chan[ch];
	if (s->state != DMA_STATE_RUNNING)
		return DMA_OK;
	if (d->fault.active == ch + 1)
		d->fault.active = 0;
	rc = d->ops->stop(d, ch);
	if (rc != DMA_OK) {
		s->state = DMA_STATE_ERROR;
		s->error = rc;
		return rc;
	}
	s->state = DMA_STATE_CONFIGURED;
	return DMA_OK;
}

enum dma_err dma_reset(struct dma_dev *d, unsigned ch)
{
	enum dma_err rc = channel_ok(d, ch);
	if (rc != DMA_OK)
		return rc;
	struct dma_channel_state *s = &d->chan[ch];
	if (d->fault.active == ch + 1)
		d->fault.active = 0;
	if (s->state == DMA_STATE_RUNNING || s->state == DMA_STATE_ERROR)
		rc = d->ops->stop(d, ch);
	s->state = DMA_STATE_UNCONFIGURED;
	s->error = DMA_OK;
	s->bytes = 0;
	return rc;
}

void dma_set_fault(struct dma_dev *d, enum dma_fault_kind kind, uint32_t skip)
{
	if (!d)
		return;
	d->fault.kind = kind;
	d->fault.skip = kind == DMA_FAULT_NONE ? 0 : skip;
}

enum dma_err dma_poll(struct dma_dev *d, unsigned ch)
{
	enum dma_err rc = channel_ok(d, ch);
	if (rc != DMA_OK)
		return rc;
	struct dma_channel_state *s = &d->chan[ch];
	switch (s->state) {
	case DMA_STATE_DONE:
		return DMA_OK;
	case DMA_STATE_ERROR:
		return s->error;
	case DMA_STATE_RUNNING:
		break;
	default:
		return DMA_E_STATE;
	}
	if (d->fault.active == ch + 1)
		return DMA_E_BUSY; /* an injected hang: never completes */
	if (d->fault.kind != DMA_FAULT_NONE) {
		if (d->fault.skip) {
			d->fault.skip--;
		} else if (d->fault.kind == DMA_FAULT_HANG) {
			d->fault.kind = DMA_FAULT_NONE;
			d->fault.fired++;
			d->fault.active = ch + 1;
			return DMA_E_BUSY;
		} else {
			d->fault.kind = DMA_FAULT_NONE;
			d->fault.fired++;
			d->ops->stop(d, ch);
			s->state = DMA_STATE_ERROR;
			s->error = DMA_E_INJECTED;
			return DMA_E_INJECTED;
		}
	}
	rc = d->ops->poll(d, ch);
	if (rc == DMA_E_BUSY)
		return DMA_E_BUSY;
	if (rc == DMA_OK) {
		s->state = DMA_STATE_DONE;
		s->completions++;
		return DMA_OK;
	}
	s->state = DMA_STATE_ERROR;
	s->error = rc;
	return rc;
}

enum dma_err dma_wait(struct dma_dev *d, unsigned ch, uint32_t max_polls)
{
	enum dma_err rc = dma_poll(d, ch);
	for (uint32_t i = 1; rc == DMA_E_BUSY && i < max_polls; i++)
		rc = dma_poll(d, ch);
	return rc == DMA_E_BUSY ? DMA_E_TIMEOUT : rc;
}

enum dma_err dma_wait_us(struct dma_dev *d, unsigned ch, uint32_t timeout_us)
{
	uint64_t deadline = hal_timeout_init_us(timeout_us);
	enum dma_err rc = dma_poll(d, ch);
	while (rc == DMA_E_BUSY && !hal_timeout_elapsed(deadline))
		rc = dma_poll(d, ch);
	if (rc == DMA_E_BUSY) /* one last look: the deadline may have passed while preempted */
		rc = dma_poll(d, ch);
	return rc == DMA_E_BUSY ? DMA_E_TIMEOUT : rc;
}

enum dma_state dma_get_state(const struct dma_dev *d, unsigned ch)
{
	if (channel_ok(d, ch) != DMA_OK)
		return DMA_STATE_UNCONFIGURED;
	return d->chan[ch].state;
}

enum dma_err dma_copy(struct dma_dev *d, unsigned ch, void *dst, const void *src, uint32_t len,
	     uint32_t max_polls)
{
	const struct dma_block b = {.src = (uintptr_t)src, .dst = (uintptr_t)dst, .len = len};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	enum dma_err rc = dma_configure(d, ch, &cfg);
	if (rc == DMA_OK)
		rc = dma_start(d, ch);
	if (rc == DMA_OK)
		rc = dma_wait(d, ch, max_polls);
	return rc;
}
