/* The native build's board (tools and host tests): the memory-copy DMA engine, the OS's entropy. */
#include "plat/common/plat_common.h"
#include "plat/plat.h"

#include <sys/random.h>

struct dma_dev *plat_dma(void)
{
	return plat_dma_memcpy();
}

int plat_dma_err(void)
{
	return plat_dma_memcpy_err();
}

const char *plat_entropy(uint64_t *seed)
{
	if (getentropy(seed, sizeof *seed) == 0)
		return "getentropy";
	*seed = 0;
	return "none (getentropy failed)";
}
