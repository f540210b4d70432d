/*
 * BCM2835/BCM2837 DMA controller behind the generic DMA API (drivers/dma/dma.h).
 *
 * Each configuration becomes a chain of 32-byte control blocks (TI, SOURCE_AD, DEST_AD, TXFR_LEN,
 * STRIDE, NEXTCONBK): one per block, 2D blocks in the controller's 2D mode, fills reading a
 * 32-bit pattern kept in the control block's own spare word with the source increment off.
 * Addresses are turned into bus addresses (physical + bus_offset) after a check that the whole
 * range lies in the RAM the controller may reach. Caches are cleaned before every transfer
 * (control blocks and sources; destinations cleaned and invalidated) and destinations invalidated
 * after. Every wait is bounded. Error bits (CS.ERROR and the DEBUG register) become named errors.
 * The board supplies every address: nothing here knows where the controller lives.
 */
#ifndef ANEFW_BCM2835_DMA_H
#define ANEFW_BCM2835_DMA_H

#include "drivers/dma/dma.h"

#include <stdint.h>

/* Per-channel registers (channel n at base + n * 0x100) */
#define BCM_DMA_CS 0x00
#define BCM_DMA_CONBLK_AD 0x04
#define BCM_DMA_TI 0x08
#define BCM_DMA_SOURCE_AD 0x0c
#define BCM_DMA_DEST_AD 0x10
#define BCM_DMA_TXFR_LEN 0x14
#define BCM_DMA_STRIDE 0x18
#define BCM_DMA_NEXTCONBK 0x1c
#define BCM_DMA_DEBUG 0x20
/* Global registers */
#define BCM_DMA_INT_STATUS 0xfe0
#define BCM_DMA_ENABLE 0xff0

#define BCM_CS_ACTIVE (1u << 0)
#define BCM_CS_END (1u << 1)
#define BCM_CS_INT (1u << 2)
#define BCM_CS_PAUSED (1u << 4)
#define BCM_CS_WAITING_WRITES (1u << 6)
#define BCM_CS_ERROR (1u << 8)
#define BCM_CS_PRIORITY(p) ((uint32_t)(p) << 16)
#define BCM_CS_PANIC_PRIORITY(p) ((uint32_t)(p) << 20)
#define BCM_CS_WAIT_FOR_WRITES (1u << 28)
#define BCM_CS_ABORT (1u << 30)
#define BCM_CS_RESET (1u << 31)

#define BCM_TI_INTEN (1u << 0)
#define BCM_TI_TDMODE (1u << 1)
#define BCM_TI_WAIT_RESP (1u << 3)
#define BCM_TI_DEST_INC (1u << 4)
#define BCM_TI_DEST_IGNORE (1u << 7) /* no destination writes */
#define BCM_TI_SRC_INC (1u << 8)

#define BCM_DEBUG_READ_LAST_NOT_SET (1u << 0)
#define BCM_DEBUG_FIFO_ERROR (1u << 1)
#define BCM_DEBUG_READ_ERROR (1u << 2)
#define BCM_DEBUG_ERRORS 7u

/* Limits of a full channel (0-6) */
#define BCM_DMA_MAX_LEN 0x3ffffffcu /* TXFR_LEN, 30 bits */
#define BCM_DMA_MAX_XLEN 0xfffcu    /* 2D: XLENGTH, 16 bits */
#define BCM_DMA_MAX_GAP 0x7fffu     /* 2D: STRIDE's D_STRIDE/S_STRIDE, signed 16 bits */
#define BCM_DMA_MAX_ROWS 0x3fffu    /* 2D: YLENGTH (14 bits) + 1, one spare for either convention */

#define BCM2835_DMA_CHANNELS DMA_MAX_CHANNELS
#define BCM2835_DMA_MAX_CBS 64
/* How long a reset, an abort or the probe transfer may take (hal_timeout_init_us: in time, so
 * the bound does not depend on the CPU's speed). */
#define BCM2835_DMA_TIMEOUT_US 10000u

struct bcm2835_cb {
	uint32_t ti;
	uint32_t source_ad;
	uint32_t dest_ad;
	uint32_t txfr_len;
	uint32_t stride;
	uint32_t nextconbk;
	uint32_t fill; /* spare word: a fill's source pattern */
	uint32_t reserved;
} __attribute__((aligned(32)));

struct bcm2835_dma_params {
	uintptr_t base;        /* the controller's registers (channel 0) */
	uint32_t channel_mask; /* hardware channels this firmware may use (full channels only) */
	uint32_t bus_offset;   /* bus address = physical address + bus_offset */
	uint64_t ram_base;     /* the RAM the controller may read and write */
	uint64_t ram_size;
};

struct bcm2835_dma_chan {
	/* A cache line per pair of control blocks; the chain is cleaned to memory before a start. */
	struct bcm2835_cb cbs[BCM2835_DMA_MAX_CBS] __attribute__((aligned(64)));
	struct dma_block blocks[BCM2835_DMA_MAX_CBS]; /* for cache maintenance */
	unsigned ncbs;
	unsigned hw; /* hardware channel number */
};

struct bcm2835_dma {
	struct bcm2835_dma_params p;
	unsigned nchannels;
	/* 0 when YLENGTH means rows - 1 (the datasheet; found by a probe at init), 1 when it means
	 * rows (older QEMU models). */
	unsigned ylength_rows;
	struct bcm2835_dma_chan ch[BCM2835_DMA_CHANNELS];
};

enum dma_err bcm2835_dma_init(struct bcm2835_dma *c, struct dma_dev *d, const struct bcm2835_dma_params *p);

/* The named error for a channel's CS and DEBUG values (DMA_OK when neither shows an error). */
enum dma_err bcm2835_dma_decode_error(uint32_t cs, uint32_t debug);

/* Diagnostics and tests: holds (on = 0) or releases a channel with the controller's global
 * enable bit, so a transfer started on it stays pending: a stalled engine, for the bounded wait. */
void bcm2835_dma_set_enable(struct bcm2835_dma *c, unsigned ch, int on);

/* The hardware channel behind API channel ch (or -1). */
int bcm2835_dma_hw_channel(const struct bcm2835_dma *c, unsigned ch);

#endif
