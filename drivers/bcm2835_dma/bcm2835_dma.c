/* BCM2835 DMA controller driver (see bcm2835_dma.h). */
#include "drivers/bcm2835_dma/bcm2835_dma.h"
#include "fw/common/assert.h"
#include "hal/hal.h"
#include "hal/mmio.h"

#include <string.h>

static uintptr_t reg(const struct bcm2835_dma *c, unsigned ch, uint32_t off)
{
	return c->p.base + 0x100u * c->ch[ch].hw + off;
}

int bcm2835_dma_hw_channel(const struct bcm2835_dma *c, unsigned ch)
{
	return c && ch < c->nchannels ? (int)c->ch[ch].hw : -1;
}

enum dma_err bcm2835_dma_decode_error(uint32_t cs, uint32_t debug)
{
	if (debug & BCM_DEBUG_READ_ERROR)
		return DMA_E_READ;
	if (debug & BCM_DEBUG_FIFO_ERROR)
		return DMA_E_FIFO;
	if (debug & BCM_DEBUG_READ_LAST_NOT_SET)
		return DMA_E_READ_LAST;
	if (cs & BCM_CS_ERROR)
		return DMA_E_HW;
	return DMA_OK;
}

/* The bus address of [addr, addr + len), which must lie in the RAM the controller reaches. */
static enum dma_err to_bus(const struct bcm2835_dma *c, uint64_t addr, uint64_t len, uint32_t *bus)
{
	uint64_t end = c->p.ram_base + c->p.ram_size;
	if (addr < c->p.ram_base || addr > end || len > end - addr)
		return DMA_E_RANGE;
	uint64_t b = addr + c->p.bus_offset;
	if (b > 0xffffffffull || (len && b + len - 1 > 0xffffffffull))
		return DMA_E_RANGE;
	*bus = (uint32_t)b;
	return DMA_OK;
}

/* STRIDE field: the byte increment applied at the end of each row (row pitch - row length). */
static enum dma_err row_gap(int32_t pitch, uint32_t len, uint32_t *field)
{
	int64_t gap = (int64_t)pitch - (int64_t)len;
	if (gap < -(int64_t)BCM_DMA_MAX_GAP - 1 || gap > BCM_DMA_MAX_GAP)
		return DMA_E_STRIDE;
	*field = (uint32_t)gap & 0xffffu;
	return DMA_OK;
}

static enum dma_err check_block(struct dma_dev *d, unsigned ch, const struct dma_block *b)
{
	struct bcm2835_dma *c = d->priv;
	(void)ch;
	uintptr_t lo, hi;
	uint32_t bus, f;
	int fill = (b->flags & DMA_BLOCK_FILL) != 0;
	enum dma_err rc = dma_block_span(b, 1, &lo, &hi);
	if (rc == DMA_OK)
		rc = to_bus(c, lo, hi - lo, &bus);
	if (rc == DMA_OK && !fill) {
		rc = dma_block_span(b, 0, &lo, &hi);
		if (rc == DMA_OK)
			rc = to_bus(c, lo, hi - lo, &bus);
	}
	if (rc == DMA_OK && b->rows > 1) {
		rc = row_gap(b->dst_pitch, b->len, &f);
		if (rc == DMA_OK && !fill)
			rc = row_gap(b->src_pitch, b->len, &f);
	}
	return rc;
}

static enum dma_err load(struct dma_dev *d, unsigned ch, const struct dma_block *blocks, unsigned n)
{
	struct bcm2835_dma *c = d->priv;
	struct bcm2835_dma_chan *k = &c->ch[ch];
	if (n > BCM2835_DMA_MAX_CBS)
		return DMA_E_TOO_MANY_BLOCKS;
	memset(k->cbs, 0, sizeof k->cbs);
	for (unsigned i = 0; i < n; i++) {
		const struct dma_block *b = &blocks[i];
		struct bcm2835_cb *cb = &k->cbs[i];
		uint32_t src_gap = 0, dst_gap = 0, next = 0;
		enum dma_err rc = to_bus(c, b->dst, b->len, &cb->dest_ad);
		cb->ti = BCM_TI_WAIT_RESP | BCM_TI_DEST_INC;
		if (b->flags & DMA_BLOCK_DISCARD)
			cb->ti |= BCM_TI_DEST_IGNORE;
		if (b->flags & DMA_BLOCK_FILL) {
			cb->fill = b->fill;
			if (rc == DMA_OK)
				rc = to_bus(c, (uintptr_t)&cb->fill, 4, &cb->source_ad);
		} else {
			cb->ti |= BCM_TI_SRC_INC;
			if (rc == DMA_OK)
				rc = to_bus(c, b->src, b->len, &cb->source_ad);
		}
		if (b->rows > 1) {
			cb->ti |= BCM_TI_TDMODE;
			cb->txfr_len = ((b->rows - 1u + c->ylength_rows) << 16) | b->len;
			if (rc == DMA_OK)
				rc = row_gap(b->dst_pitch, b->len, &dst_gap);
			if (rc == DMA_OK && !(b->flags & DMA_BLOCK_FILL))
				rc = row_gap(b->src_pitch, b->len, &src_gap);
			cb->stride = (dst_gap << 16) | src_gap;
		} else {
			cb->txfr_len = b->len;
		}
		if (rc == DMA_OK && i + 1 < n)
			rc = to_bus(c, (uintptr_t)&k->cbs[i + 1], sizeof *cb, &next);
		ASSERT(rc == DMA_OK); /* check_block() refused such blocks; the CBs are the driver's */
		cb->nextconbk = next;
		k->blocks[i] = *b;
	}
	k->ncbs = n;
	return DMA_OK;
}

/* Cache maintenance over every range a configuration touches. when: 0 before, 1 after. */
static void caches(struct bcm2835_dma_chan *k, int when)
{
	if (when == 0)
		hal_dcache_clean(k->cbs, k->ncbs * sizeof k->cbs[0]);
	for (unsigned i = 0; i < k->ncbs; i++) {
		const struct dma_block *b = &k->blocks[i];
		uintptr_t lo, hi;
		if (!(b->flags & DMA_BLOCK_DISCARD) && dma_block_span(b, 1, &lo, &hi) == DMA_OK) {
			if (when == 0)
				hal_dcache_clean_invalidate((void *)lo, hi - lo);
			else
				hal_dcache_invalidate((void *)lo, hi - lo);
		}
		if (when == 0 && !(b->flags & DMA_BLOCK_FILL) &&
		    dma_block_span(b, 0, &lo, &hi) == DMA_OK)
			hal_dcache_clean((const void *)lo, hi - lo);
	}
}

static enum dma_err reset_channel(struct bcm2835_dma *c, unsigned ch)
{
	mmio_write_32(reg(c, ch, BCM_DMA_CS), BCM_CS_RESET);
	uint64_t deadline = hal_timeout_init_us(BCM2835_DMA_TIMEOUT_US);
	for (int late = 0; !late;) {
		late = hal_timeout_elapsed(deadline); /* before the look: the last look is late */
		if (!(mmio_read_32(reg(c, ch, BCM_DMA_CS)) & (BCM_CS_ACTIVE | BCM_CS_RESET))) {
			/* Error bits are write-one-to-clear: write only those that are set (QEMU's
			 * model keeps whatever is written to DEBUG). */
			uint32_t dbg = mmio_read_32(reg(c, ch, BCM_DMA_DEBUG)) & BCM_DEBUG_ERRORS;
			if (dbg)
				mmio_write_32(reg(c, ch, BCM_DMA_DEBUG), dbg);
			return DMA_OK;
		}
	}
	return DMA_E_HW;
}

static enum dma_err start(struct dma_dev *d, unsigned ch)
{
	struct bcm2835_dma *c = d->priv;
	struct bcm2835_dma_chan *k = &c->ch[ch];
	uint32_t first;
	if (k->ncbs == 0)
		return DMA_E_STATE;
	enum dma_err rc = to_bus(c, (uintptr_t)&k->cbs[0], sizeof k->cbs[0], &first);
	if (rc != DMA_OK)
		return rc;
	rc = reset_channel(c, ch);
	if (rc != DMA_OK)
		return rc;
	caches(k, 0);
	mmio_write_32(reg(c, ch, BCM_DMA_CS), BCM_CS_END | BCM_CS_INT);
	mmio_write_32(reg(c, ch, BCM_DMA_CONBLK_AD), first);
	__asm__ volatile("" ::: "memory");
	mmio_write_32(reg(c, ch, BCM_DMA_CS), BCM_CS_ACTIVE | BCM_CS_WAIT_FOR_WRITES |
						      BCM_CS_PRIORITY(8) | BCM_CS_PANIC_PRIORITY(15));
	return DMA_OK;
}

static enum dma_err poll(struct dma_dev *d, unsigned ch)
{
	struct bcm2835_dma *c = d->priv;
	struct bcm2835_dma_chan *k = &c->ch[ch];
	uint32_t cs = mmio_read_32(reg(c, ch, BCM_DMA_CS));
	enum dma_err err = bcm2835_dma_decode_error(cs, mmio_read_32(reg(c, ch, BCM_DMA_DEBUG)));
	if (err != DMA_OK) {
		(void)reset_channel(c, ch);
		caches(k, 1);
		return err;
	}
	if (cs & BCM_CS_ACTIVE)
		return DMA_E_BUSY;
	/* Not active with a control block still loaded: paused, not finished. */
	if (mmio_read_32(reg(c, ch, BCM_DMA_CONBLK_AD)) != 0)
		return DMA_E_BUSY;
	caches(k, 1);
	return DMA_OK;
}

static enum dma_err stop(struct dma_dev *d, unsigned ch)
{
	struct bcm2835_dma *c = d->priv;
	/* Pause, let outstanding writes land, then reset the channel (which drops the chain). */
	mmio_write_32(reg(c, ch, BCM_DMA_CS), 0);
	uint64_t deadline = hal_timeout_init_us(BCM2835_DMA_TIMEOUT_US);
	for (int late = 0; !late;) {
		late = hal_timeout_elapsed(deadline); /* before the look: the last look is late */
		if (!(mmio_read_32(reg(c, ch, BCM_DMA_CS)) & BCM_CS_WAITING_WRITES))
			break;
	}
	enum dma_err rc = reset_channel(c, ch);
	caches(&c->ch[ch], 1);
	return rc;
}

static const struct dma_ops bcm_ops = {
	.check_block = check_block,
	.load = load,
	.start = start,
	.poll = poll,
	.stop = stop,
};

void bcm2835_dma_set_enable(struct bcm2835_dma *c, unsigned ch, int on)
{
	if (!c || ch >= c->nchannels)
		return;
	uint32_t bit = 1u << c->ch[ch].hw;
	uint32_t v = mmio_read_32(c->p.base + BCM_DMA_ENABLE);
	mmio_write_32(c->p.base + BCM_DMA_ENABLE, on ? (v | bit) : (v & ~bit));
}

/* Which YLENGTH convention the controller follows: a 2D transfer with YLENGTH = 1. */
static enum dma_err probe_ylength(struct bcm2835_dma *c, struct dma_dev *d)
{
	static uint32_t words[32] __attribute__((aligned(64)));
	memset(words, 0, sizeof words);
	words[0] = 0xa5a50001u;
	words[1] = 0xa5a50002u;
	const struct dma_block b = {.src = (uintptr_t)&words[0], .dst = (uintptr_t)&words[16],
				    .len = 4, .rows = 2, .src_pitch = 4, .dst_pitch = 4};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	c->ylength_rows = 0;
	enum dma_err rc = dma_configure(d, 0, &cfg);
	if (rc == DMA_OK)
		rc = dma_start(d, 0);
	if (rc == DMA_OK)
		rc = dma_wait_us(d, 0, BCM2835_DMA_TIMEOUT_US);
	if (rc == DMA_OK) {
		if (words[16] != words[0] || words[18] != 0)
			rc = DMA_E_HW;
		else if (words[17] != words[1])
			c->ylength_rows = 1;
	}
	(void)dma_stop(d, 0);
	memset(&d->chan[0], 0, sizeof d->chan[0]);
	return rc;
}

enum dma_err bcm2835_dma_init(struct bcm2835_dma *c, struct dma_dev *d, const struct bcm2835_dma_params *p)
{
	if (!c || !d || !p || !p->base)
		return DMA_E_PARAM;
	memset(c, 0, sizeof *c);
	c->p = *p;
	for (unsigned hw = 0; hw < 7 && c->nchannels < BCM2835_DMA_CHANNELS; hw++)
		if (p->channel_mask & (1u << hw))
			c->ch[c->nchannels++].hw = hw;
	if (c->nchannels == 0 || (p->channel_mask & ~0x7fu))
		return DMA_E_PARAM; /* full channels 0-6 only: the lite ones lack 2D mode */
	const struct dma_caps caps = {
		.nchannels = c->nchannels,
		.max_blocks = BCM2835_DMA_MAX_CBS,
		.granule = 4,
		.max_len = BCM_DMA_MAX_LEN,
		.max_row_len = BCM_DMA_MAX_XLEN,
		.max_rows = BCM_DMA_MAX_ROWS,
		.max_gap = BCM_DMA_MAX_GAP,
	};
	dma_dev_init(d, "bcm2835-dma", &bcm_ops, c, &caps);
	for (unsigned ch = 0; ch < c->nchannels; ch++) {
		bcm2835_dma_set_enable(c, ch, 1);
		if (reset_channel(c, ch) != DMA_OK)
			return DMA_E_HW;
	}
	return probe_ylength(c, d);
}
