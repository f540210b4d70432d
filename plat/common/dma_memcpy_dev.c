/* The memory-copy DMA engine as a board's DMA device (qemu-virt, and the native build). */
#include "drivers/dma/dma_memcpy.h"
#include "plat/common/plat_common.h"

static enum dma_err init_err;

struct dma_dev *plat_dma_memcpy(void)
{
	static struct dma_memcpy m;
	static struct dma_dev d;
	static int ready;
	if (!ready) {
		init_err = dma_memcpy_init(&m, &d, 0);
		if (init_err != DMA_OK)
			return NULL;
		ready = 1;
	}
	return &d;
}

int plat_dma_memcpy_err(void)
{
	return (int)init_err;
}
