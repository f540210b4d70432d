/* Memory-copy DMA engine (see dma_memcpy.h). */
#include "drivers/dma/dma_memcpy.h"

#include <string.h>

static enum dma_err mc_load(struct dma_dev *d, unsigned ch, const struct dma_block *b, unsigned n)
{
	struct dma_memcpy *m = d->priv;
	struct dma_memcpy_chan *c = &m->ch[ch];
	memcpy(c->blocks, b, n * sizeof *b);
	c->nblocks = n;
	c->block = c->row = 0;
	c->offset = 0;
	return DMA_OK;
}

static enum dma_err mc_start(struct dma_dev *d, unsigned ch)
{
	struct dma_memcpy_chan *c = &((struct dma_memcpy *)d->priv)->ch[ch];
	c->block = c->row = 0;
	c->offset = 0;
	return DMA_OK;
}

static void fill_bytes(uint8_t *dst, uint32_t offset, uint32_t n, uint32_t pattern)
{
	for (uint32_t i = 0; i < n; i++)
		dst[i] = (uint8_t)(pattern >> (8u * ((offset + i) & 3u)));
}

static enum dma_err mc_poll(struct dma_dev *d, unsigned ch)
{
	struct dma_memcpy *m = d->priv;
	struct dma_memcpy_chan *c = &m->ch[ch];
	uint64_t budget = m->bytes_per_poll ? m->bytes_per_poll : UINT64_MAX;
	while (c->block < c->nblocks && budget) {
		const struct dma_block *b = &c->blocks[c->block];
		uint32_t rows = b->rows > 1 ? b->rows : 1;
		uint64_t all = (uint64_t)b->len * rows;
		/* rows that follow one another at both ends (pitches equal to the length), whole, in
		 * one copy (one call instead of one a row) where the two spans do not overlap (a
		 * row-by-row copy of overlapping spans differs from one memmove) */
		if (rows > 1 && !c->row && !c->offset && all <= budget &&
		    !(b->flags & (DMA_BLOCK_FILL | DMA_BLOCK_DISCARD)) &&
		    b->src_pitch == (int64_t)b->len && b->dst_pitch == (int64_t)b->len &&
		    (b->src + all <= b->dst || b->dst + all <= b->src)) {
			memcpy((void *)b->dst, (const void *)b->src, (size_t)all);
			budget -= all;
			c->block++;
			continue;
		}
		uint32_t n = b->len - c->offset;
		if (n > budget)
			n = (uint32_t)budget;
		/* Spans were checked at configure time: these additions cannot wrap. */
		uintptr_t dst = b->dst + (uintptr_t)((int64_t)c->row * b->dst_pitch) + c->offset;
		if (b->flags & DMA_BLOCK_FILL) {
			fill_bytes((uint8_t *)dst, c->offset, n, b->fill);
		} else if (!(b->flags & DMA_BLOCK_DISCARD)) { /* a discard's reads have no effect here */
			uintptr_t src = b->src + (uintptr_t)((int64_t)c->row * b->src_pitch) + c->offset;
			memmove((void *)dst, (const void *)src, n);
		}
		budget -= n;
		c->offset += n;
		if (c->offset == b->len) {
			c->offset = 0;
			if (++c->row == rows) {
				c->row = 0;
				c->block++;
			}
		}
	}
	return c->block == c->nblocks ? DMA_OK : DMA_E_BUSY;
}

static enum dma_err mc_stop(struct dma_dev *d, unsigned ch)
{
	struct dma_memcpy_chan *c = &((struct dma_memcpy *)d->priv)->ch[ch];
	c->block = c->row = 0;
	c->offset = 0;
	return DMA_OK;
}

static const struct dma_ops mc_ops = {
	.check_block = NULL,
	.load = mc_load,
	.start = mc_start,
	.poll = mc_poll,
	.stop = mc_stop,
};

enum dma_err dma_memcpy_init(struct dma_memcpy *m, struct dma_dev *d, uint32_t bytes_per_poll)
{
	if (!m || !d)
		return DMA_E_PARAM;
	memset(m, 0, sizeof *m);
	m->bytes_per_poll = bytes_per_poll;
	/* The same limits as the BCM2835's full channels, so programs move identically. */
	const struct dma_caps caps = {
		.nchannels = DMA_MEMCPY_CHANNELS,
		.max_blocks = DMA_MEMCPY_MAX_BLOCKS,
		.granule = 4,
		.max_len = 0x3ffffffcu,
		.max_row_len = 0xfffcu,
		.max_rows = 0x3fffu,
	};
	dma_dev_init(d, "memcpy", &mc_ops, m, &caps);
	return DMA_OK;
}
