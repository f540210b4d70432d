/*
 * The BCM2835 DMA driver: error decoding everywhere; on raspi3b, the control blocks it writes
 * (bus addresses, 2D and fill encodings, the chain), the memory it refuses, a stalled engine
 * under a bounded wait, and the secondary cores' release through the board's spin table.
 */
#include "tests/harness/harness.h"
#include "drivers/bcm2835_dma/bcm2835_dma.h"
#include "drivers/dma/dma.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

TEST(bcm2835_dma, error_bits_are_named)
{
	CHECK_EQ(bcm2835_dma_decode_error(0, 0), DMA_OK);
	CHECK_EQ(bcm2835_dma_decode_error(BCM_CS_ACTIVE | BCM_CS_END, 0), DMA_OK);
	CHECK_EQ(bcm2835_dma_decode_error(BCM_CS_ERROR, BCM_DEBUG_READ_ERROR), DMA_E_READ);
	CHECK_EQ(bcm2835_dma_decode_error(BCM_CS_ERROR, BCM_DEBUG_FIFO_ERROR), DMA_E_FIFO);
	CHECK_EQ(bcm2835_dma_decode_error(BCM_CS_ERROR, BCM_DEBUG_READ_LAST_NOT_SET),
		 DMA_E_READ_LAST);
	CHECK_EQ(bcm2835_dma_decode_error(BCM_CS_ERROR, 0), DMA_E_HW);
	/* DEBUG error bits count even before CS.ERROR shows; a read error outranks the rest */
	CHECK_EQ(bcm2835_dma_decode_error(0, BCM_DEBUG_ERRORS), DMA_E_READ);
	CHECK_EQ(bcm2835_dma_decode_error(0, 0xfffffff8u), DMA_OK); /* counters and IDs only */
	CHECK(strcmp(dma_err(DMA_E_FIFO)->name, dma_err(DMA_E_READ)->name) != 0);
}

TEST(bcm2835_dma, init_refuses_bad_parameters)
{
	static struct bcm2835_dma c;
	struct dma_dev d;
	struct bcm2835_dma_params p = {.base = 0, .channel_mask = 1u << 4,
				       .bus_offset = 0xc0000000u, .ram_size = 1u << 20};
	CHECK_EQ(bcm2835_dma_init(&c, &d, &p), DMA_E_PARAM); /* no base */
	CHECK_EQ(bcm2835_dma_init(&c, &d, NULL), DMA_E_PARAM);
	p.base = 0x1000;
	p.channel_mask = 0;
	CHECK_EQ(bcm2835_dma_init(&c, &d, &p), DMA_E_PARAM); /* no channel */
	p.channel_mask = 1u << 9;
	CHECK_EQ(bcm2835_dma_init(&c, &d, &p), DMA_E_PARAM); /* a lite channel (no 2D mode) */
}

#ifdef ANEFW_BOARD_RASPI3B
#include "boot/boot.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "plat/raspi3b/platform.h"

int boot_mmu_enabled(void);

static uint8_t src[2048] __attribute__((aligned(64)));
static uint8_t dst[2048] __attribute__((aligned(64)));

static struct bcm2835_dma *controller(struct dma_dev *d)
{
	return d && d->priv && strcmp(d->name, "bcm2835-dma") == 0 ? d->priv : NULL;
}

TEST(bcm2835_dma, control_blocks_and_bus_addresses)
{
	struct dma_dev *d = plat_dma();
	struct bcm2835_dma *c = controller(d);
	REQUIRE(c != NULL);
	CHECK_EQ(d->caps.nchannels, 2);
	CHECK_EQ(bcm2835_dma_hw_channel(c, 0), 4);
	CHECK_EQ(bcm2835_dma_hw_channel(c, 1), 5);
	const struct dma_block b[3] = {
		{.src = (uintptr_t)src, .dst = (uintptr_t)dst, .len = 256},
		{.src = (uintptr_t)(src + 256), .dst = (uintptr_t)(dst + 1024), .len = 16, .rows = 5,
		 .src_pitch = 64, .dst_pitch = -32},
		{.dst = (uintptr_t)(dst + 512), .len = 64, .flags = DMA_BLOCK_FILL, .fill = 0xcafe0001u},
	};
	const struct dma_channel_config cfg = {.blocks = b, .nblocks = 3};
	REQUIRE(dma_configure(d, 1, &cfg) == DMA_OK);
	const struct bcm2835_cb *cb = c->ch[1].cbs;
	CHECK_EQ((uintptr_t)cb % 32, 0);
	CHECK_EQ(cb[0].source_ad, (uintptr_t)src + PLAT_DMA_BUS_OFFSET);
	CHECK_EQ(cb[0].dest_ad, (uintptr_t)dst + PLAT_DMA_BUS_OFFSET);
	CHECK_EQ(cb[0].txfr_len, 256);
	CHECK_EQ(cb[0].ti, BCM_TI_WAIT_RESP | BCM_TI_SRC_INC | BCM_TI_DEST_INC);
	CHECK_EQ(cb[0].nextconbk, (uintptr_t)&cb[1] + PLAT_DMA_BUS_OFFSET);
	CHECK_EQ(cb[1].ti, BCM_TI_WAIT_RESP | BCM_TI_SRC_INC | BCM_TI_DEST_INC | BCM_TI_TDMODE);
	CHECK_EQ(cb[1].txfr_len, ((4u + c->ylength_rows) << 16) | 16u);
	/* STRIDE: the increment after each row: destination -48 (high half), source +48 */
	CHECK_EQ(cb[1].stride, (0xffd0u << 16) | 48u);
	CHECK_EQ(cb[1].nextconbk, (uintptr_t)&cb[2] + PLAT_DMA_BUS_OFFSET);
	CHECK_EQ(cb[2].ti, BCM_TI_WAIT_RESP | BCM_TI_DEST_INC); /* the source does not move */
	CHECK_EQ(cb[2].source_ad, (uintptr_t)&cb[2].fill + PLAT_DMA_BUS_OFFSET);
	CHECK_EQ(cb[2].fill, 0xcafe0001u);
	CHECK_EQ(cb[2].nextconbk, 0);
	printf("  2D YLENGTH convention: %s\n",
	       c->ylength_rows ? "rows (older QEMU)" : "rows - 1 (datasheet)");
	/* and it runs */
	for (unsigned i = 0; i < sizeof src; i++)
		src[i] = (uint8_t)(i * 13 + 1);
	memset(dst, 0, sizeof dst);
	CHECK_EQ(dma_start(d, 1), DMA_OK);
	CHECK_EQ(dma_wait_us(d, 1, DMA_WAIT_DEFAULT_US), DMA_OK);
	CHECK_MEM(dst, src, 256);
	for (unsigned r = 0; r < 5; r++)
		CHECK_MEM(dst + 1024 - 32 * r, src + 256 + 64 * r, 16);
	CHECK_EQ(dst[512 + 4], 0x01);
	CHECK_EQ(dst[512 + 63], 0xca);
	/* a discard block: the controller reads and does not write (TI.DEST_IGNORE) */
	const struct dma_block dis = {.src = (uintptr_t)src, .dst = (uintptr_t)(dst + 1536), .len = 128,
				      .flags = DMA_BLOCK_DISCARD};
	const struct dma_channel_config dcfg = {.blocks = &dis, .nblocks = 1};
	REQUIRE(dma_configure(d, 1, &dcfg) == DMA_OK);
	CHECK_EQ(cb[0].ti, BCM_TI_WAIT_RESP | BCM_TI_SRC_INC | BCM_TI_DEST_INC | BCM_TI_DEST_IGNORE);
	memset(dst + 1536, 0x5a, 128);
	CHECK_EQ(dma_start(d, 1), DMA_OK);
	CHECK_EQ(dma_wait_us(d, 1, DMA_WAIT_DEFAULT_US), DMA_OK);
	unsigned kept = 0;
	for (unsigned i = 0; i < 128; i++)
		kept += dst[1536 + i] == 0x5a;
	CHECK_EQ(kept, 128);
}

TEST(bcm2835_dma, refuses_memory_out_of_reach_and_long_strides)
{
	struct dma_dev *d = plat_dma();
	REQUIRE(controller(d) != NULL);
	struct dma_block b = {.src = (uintptr_t)src, .dst = PLAT_PERIPH_BASE, .len = 64};
	struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_RANGE); /* the peripherals */
	b.dst = PLAT_RAM_BASE + PLAT_RAM_SIZE - 32;
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_RANGE); /* runs into GPU memory */
	b.dst = (uintptr_t)dst;
	b.src = PLAT_RAM_SIZE + 0x100000u;
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_RANGE);
	/* a 2D pitch whose row gap does not fit the 16-bit STRIDE field */
	b.src = (uintptr_t)src;
	b.rows = 2;
	b.len = 64;
	b.src_pitch = 64 + 32768;
	b.dst_pitch = 64;
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_STRIDE);
	b.src_pitch = 64 + 32764; /* the largest that fits */
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_OK);
	/* the bound is in the caps, so a user (the engine model) moves row by row past it */
	CHECK_EQ(d->caps.max_gap, (uint32_t)BCM_DMA_MAX_GAP);
	CHECK(32764 <= d->caps.max_gap && 32768 > d->caps.max_gap);
}

TEST(bcm2835_dma, stalled_engine_times_out_and_stops)
{
	struct dma_dev *d = plat_dma();
	struct bcm2835_dma *c = controller(d);
	REQUIRE(c != NULL);
	for (unsigned i = 0; i < sizeof src; i++)
		src[i] = (uint8_t)(i ^ 0x3c);
	memset(dst, 0xee, sizeof dst);
	const struct dma_block b = {.src = (uintptr_t)src, .dst = (uintptr_t)dst, .len = 1024};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	REQUIRE(dma_configure(d, 0, &cfg) == DMA_OK);
	bcm2835_dma_set_enable(c, 0, 0); /* the engine holds the channel */
	CHECK_EQ(dma_start(d, 0), DMA_OK);
	CHECK_EQ(dma_wait(d, 0, 1000), DMA_E_TIMEOUT);
	CHECK_EQ(dma_get_state(d, 0), DMA_STATE_RUNNING);
	CHECK_EQ(dma_stop(d, 0), DMA_OK);
	CHECK_EQ(dma_get_state(d, 0), DMA_STATE_CONFIGURED);
	unsigned moved = 0;
	for (unsigned i = 0; i < sizeof dst; i++)
		moved += dst[i] != 0xee;
	CHECK_EQ(moved, 0);
	bcm2835_dma_set_enable(c, 0, 1);
	CHECK_EQ(dma_start(d, 0), DMA_OK);
	CHECK_EQ(dma_wait_us(d, 0, DMA_WAIT_DEFAULT_US), DMA_OK);
	CHECK_MEM(dst, src, 1024);
	CHECK_EQ(dst[1024], 0xee);
}

/* ---- secondary cores ---- */
static volatile uint32_t core_seen[4];

static void secondary_main(unsigned core)
{
	uint32_t v = 0x5ec00000u | (hal_cpu_id() << 8) | (hal_current_el() << 4) |
		     (boot_mmu_enabled() ? 1u : 0u);
	core_seen[core & 3] = v;
	__asm__ volatile("dsb sy\nsev" ::: "memory");
}

TEST(raspi3b, secondary_cores_are_released)
{
	static int released;
	if (released)
		SKIP("the secondary cores were released earlier in this run");
	released = 1;
	for (unsigned core = 1; core < 4; core++)
		CHECK_EQ(boot_release_secondary(core, secondary_main), HAL_CORE_OK);
	CHECK_EQ(boot_release_secondary(0, secondary_main), HAL_CORE_E_BAD_CORE);
	CHECK_EQ(boot_release_secondary(4, secondary_main), HAL_CORE_E_BAD_CORE);
	for (uint64_t end = hal_timeout_init_us(20000000u); !hal_timeout_elapsed(end);) {
		if (core_seen[1] && core_seen[2] && core_seen[3])
			break;
		hal_cpu_relax();
	}
	for (unsigned core = 1; core < 4; core++) /* its own core number, EL1, MMU on */
		CHECK_EQ(core_seen[core], 0x5ec00000u | (core << 8) | (1u << 4) | 1u);
}
#endif
