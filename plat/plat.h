/*
 * The board layer (plat/): which devices a board has and at which addresses, above the drivers
 * that run them and the HAL's low-level accessors below those (the shape of TF-A's plat/).
 *
 *   plat/<board>/   a target board: its constants (platform.h), its make variables (platform.mk)
 *                   and its glue (board.c): console, memory map, secondary cores, DMA engine
 *   plat/common/    glue every target board shares (the PL011 console)
 *   plat/host/      the native build's board: the memory-copy DMA engine
 *
 * A board implements the porting interface hal/hal.h declares (console, core start, platform
 * description) and the functions here. boot/ calls board_init(); app/ asks for the DMA engine.
 */
#ifndef ANEFW_PLAT_H
#define ANEFW_PLAT_H

#include <stdint.h>

/* Console and anything else the board needs before main() (target boards; boot/start.c). */
void board_init(void);

/* Multi-core boards: on a released core (MMU on), clear whatever woke it (weak default in
 * boot/start.c: nothing). Starting a core is hal_start_core (hal/hal.h). */
void board_secondary_woken(unsigned core);

/* The board's DMA engine: the BCM2835 controller on raspi3b, the memory-copy engine on qemu-virt
 * and natively. NULL if it failed to come up; plat_dma_err() then says why: the enum dma_err
 * (drivers/dma/dma.h, named by dma_err()) that kept it down, DMA_OK (0) when it is up. */
struct dma_dev; /* drivers/dma/dma.h */
struct dma_dev *plat_dma(void);
int plat_dma_err(void);

/* A 64-bit seed and what it came from (a fixed, printable name): the CPU's RNDR where it
 * implements FEAT_RNG, the board's hardware RNG where it has one, else a counter value, which is
 * not a secret. Callable before board_init() with the MMU on. */
const char *plat_entropy(uint64_t *seed);

#endif
