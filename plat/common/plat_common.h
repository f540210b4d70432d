/* Glue several boards share (plat/common/). */
#ifndef ANEFW_PLAT_COMMON_H
#define ANEFW_PLAT_COMMON_H

#include <stdint.h>

/* The memory-copy DMA engine (drivers/dma/dma_memcpy.h), brought up on first use; NULL if not. */
struct dma_dev;
struct dma_dev *plat_dma_memcpy(void);
int plat_dma_memcpy_err(void); /* as plat_dma_err() */

/* The boot-time seed of a board with no entropy source: the generic timer's count, mixed. It is
 * not a secret (an observer of the boot can predict it); the name returned says so. */
const char *plat_entropy_counter(uint64_t *seed);

#endif
