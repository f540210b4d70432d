/*
 * Memory-copy DMA engine: the generic DMA API done by the CPU, for boards without a DMA controller
 * (qemu-virt) and host builds. It keeps the same rules as a real controller (a granule of 4,
 * bounded block lists) and moves data only while it is polled, at most bytes_per_poll bytes a
 * poll (0: everything in the first poll), so it behaves like an asynchronous engine: a transfer
 * can be stopped part-way and a short wait times out.
 */
#ifndef ANEFW_DMA_MEMCPY_H
#define ANEFW_DMA_MEMCPY_H

#include "drivers/dma/dma.h"

#define DMA_MEMCPY_CHANNELS 4
#define DMA_MEMCPY_MAX_BLOCKS 64

struct dma_memcpy_chan {
	struct dma_block blocks[DMA_MEMCPY_MAX_BLOCKS];
	unsigned nblocks;
	unsigned block, row; /* progress */
	uint32_t offset;     /* bytes done in the current row */
};

struct dma_memcpy {
	uint32_t bytes_per_poll;
	struct dma_memcpy_chan ch[DMA_MEMCPY_CHANNELS];
};

enum dma_err dma_memcpy_init(struct dma_memcpy *m, struct dma_dev *d, uint32_t bytes_per_poll);

#endif
