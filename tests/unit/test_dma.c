/*
 * The DMA API's behaviour, the same on every engine: the memory-copy engine (at once, and slowly:
 * 64 bytes a poll), and the board's engine (the BCM2835 controller on raspi3b, the memory-copy
 * engine elsewhere). Single and chained blocks, 2D strides (both signs), fills, every refusal,
 * the state machine, idempotent start and stop, bounded waits.
 */
#include "tests/harness/harness.h"
#include "drivers/dma/dma.h"
#include "drivers/dma/dma_memcpy.h"
#include "hal/hal.h"
#include "plat/plat.h"

#include <stdint.h>
#include <string.h>

#define BUF 4096
#define CANARY 0xee
#define POLLS 1000000u

static uint8_t src_buf[BUF] __attribute__((aligned(64)));
static uint8_t dst_buf[BUF] __attribute__((aligned(64)));

static void setup_buffers(void)
{
	for (unsigned i = 0; i < BUF; i++)
		src_buf[i] = (uint8_t)test_rand();
	memset(dst_buf, CANARY, BUF);
}

/* Count of destination bytes outside [lo, hi) that are not the canary. */
static unsigned canary_damage_outside(size_t lo, size_t hi)
{
	unsigned bad = 0;
	for (size_t i = 0; i < BUF; i++)
		if ((i < lo || i >= hi) && dst_buf[i] != CANARY)
			bad++;
	return bad;
}

static enum dma_err run(struct dma_dev *d, unsigned ch, const struct dma_block *b, unsigned n)
{
	const struct dma_channel_config cfg = {.blocks = b, .nblocks = n};
	enum dma_err rc = dma_configure(d, ch, &cfg);
	if (rc == DMA_OK)
		rc = dma_start(d, ch);
	if (rc == DMA_OK)
		rc = dma_wait(d, ch, POLLS);
	return rc;
}

static struct dma_dev *memcpy_fast(void)
{
	static struct dma_memcpy m;
	static struct dma_dev d;
	return dma_memcpy_init(&m, &d, 0) == DMA_OK ? &d : NULL;
}

static struct dma_dev *memcpy_slow(void)
{
	static struct dma_memcpy m;
	static struct dma_dev d;
	return dma_memcpy_init(&m, &d, 64) == DMA_OK ? &d : NULL;
}

static struct dma_dev *board(void)
{
	struct dma_dev *d = plat_dma();
	/* The board device is shared: leave every channel idle for the next test. */
	if (d)
		for (unsigned ch = 0; ch < d->caps.nchannels; ch++)
			(void)dma_stop(d, ch);
	return d;
}

/* ---- the checks, for any engine ---- */

static void t_single_block(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	setup_buffers();
	const struct dma_block b = {.src = (uintptr_t)(src_buf + 4), .dst = (uintptr_t)(dst_buf + 8),
				    .len = 1000};
	uint32_t runs = d->chan[0].runs;
	CHECK_EQ(run(d, 0, &b, 1), DMA_OK);
	CHECK_MEM(dst_buf + 8, src_buf + 4, 1000);
	CHECK_EQ(canary_damage_outside(8, 1008), 0);
	CHECK_EQ(dma_get_state(d, 0), DMA_STATE_DONE);
	CHECK_EQ(d->chan[0].runs, runs + 1);
	CHECK_EQ(d->chan[0].bytes, 1000);
	/* The last channel too, through the convenience call. */
	unsigned last = d->caps.nchannels - 1;
	memset(dst_buf, CANARY, BUF);
	CHECK_EQ(dma_copy(d, last, dst_buf + 64, src_buf + 128, 2048, POLLS), DMA_OK);
	CHECK_MEM(dst_buf + 64, src_buf + 128, 2048);
	CHECK_EQ(canary_damage_outside(64, 64 + 2048), 0);
}

static void t_chained_blocks(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	setup_buffers();
	/* Scatter-gather: pieces in a different order and places, a fill in the middle. */
	const struct dma_block b[5] = {
		{.src = (uintptr_t)(src_buf + 0), .dst = (uintptr_t)(dst_buf + 3000), .len = 100},
		{.src = (uintptr_t)(src_buf + 100), .dst = (uintptr_t)(dst_buf + 0), .len = 4},
		{.src = (uintptr_t)(src_buf + 2048), .dst = (uintptr_t)(dst_buf + 1024), .len = 1024},
		{.dst = (uintptr_t)(dst_buf + 2400), .len = 16, .flags = DMA_BLOCK_FILL,
		 .fill = 0x04030201u},
		{.src = (uintptr_t)(src_buf + 4092), .dst = (uintptr_t)(dst_buf + 2200), .len = 4},
	};
	CHECK_EQ(run(d, 0, b, 5), DMA_OK);
	CHECK_MEM(dst_buf + 3000, src_buf, 100);
	CHECK_MEM(dst_buf + 0, src_buf + 100, 4);
	CHECK_MEM(dst_buf + 1024, src_buf + 2048, 1024);
	CHECK_MEM(dst_buf + 2200, src_buf + 4092, 4);
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ(dst_buf[2400 + i], (i & 3) + 1);
	unsigned bad = 0;
	for (unsigned i = 0; i < BUF; i++) {
		int inside = (i >= 3000 && i < 3100) || i < 4 || (i >= 1024 && i < 2048) ||
			     (i >= 2200 && i < 2204) || (i >= 2400 && i < 2416);
		bad += !inside && dst_buf[i] != CANARY;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(d->chan[0].bytes, 100 + 4 + 1024 + 16 + 4);
	/* The most blocks a channel takes. */
	setup_buffers();
	static struct dma_block many[DMA_MEMCPY_MAX_BLOCKS];
	unsigned n = d->caps.max_blocks < DMA_MEMCPY_MAX_BLOCKS ? d->caps.max_blocks
								 : DMA_MEMCPY_MAX_BLOCKS;
	for (unsigned i = 0; i < n; i++)
		many[i] = (struct dma_block){.src = (uintptr_t)(src_buf + 8 * i),
					     .dst = (uintptr_t)(dst_buf + BUF - 8 * (i + 1)), .len = 8};
	CHECK_EQ(run(d, 1 % d->caps.nchannels, many, n), DMA_OK);
	for (unsigned i = 0; i < n; i++)
		CHECK_MEM(dst_buf + BUF - 8 * (i + 1), src_buf + 8 * i, 8);
}

static void t_stride_2d(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	setup_buffers();
	/* 7 rows of 12 bytes: source rows 20 apart, destination rows 16 apart. */
	const struct dma_block b = {.src = (uintptr_t)(src_buf + 40), .dst = (uintptr_t)(dst_buf + 200),
				    .len = 12, .rows = 7, .src_pitch = 20, .dst_pitch = 16};
	CHECK_EQ(run(d, 0, &b, 1), DMA_OK);
	unsigned bad = 0;
	for (unsigned r = 0; r < 7; r++) {
		CHECK_MEM(dst_buf + 200 + 16 * r, src_buf + 40 + 20 * r, 12);
		for (unsigned i = 12; i < 16 && r < 6; i++)
			bad += dst_buf[200 + 16 * r + i] != CANARY; /* the gaps stay untouched */
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(canary_damage_outside(200, 200 + 16 * 6 + 12), 0);
	CHECK_EQ(d->chan[0].bytes, 7 * 12);

	/* A transpose-like walk: destination rows upwards (negative pitch), source rows 256 apart. */
	setup_buffers();
	const struct dma_block u = {.src = (uintptr_t)(src_buf), .dst = (uintptr_t)(dst_buf + 3584),
				    .len = 64, .rows = 12, .src_pitch = 256, .dst_pitch = -128};
	CHECK_EQ(run(d, 0, &u, 1), DMA_OK);
	for (unsigned r = 0; r < 12; r++)
		CHECK_MEM(dst_buf + 3584 - 128 * r, src_buf + 256 * r, 64);
	bad = 0;
	for (unsigned i = 0; i < BUF; i++) {
		int inside = i >= 3584 - 128 * 11 && i < 3584 + 64 && (i - (3584 - 128 * 11)) % 128 < 64;
		bad += !inside && dst_buf[i] != CANARY;
	}
	CHECK_EQ(bad, 0);

	/* One source row broadcast to every destination row (source pitch 0). */
	setup_buffers();
	const struct dma_block bc = {.src = (uintptr_t)(src_buf + 8), .dst = (uintptr_t)(dst_buf),
				     .len = 32, .rows = 5, .src_pitch = 0, .dst_pitch = 32};
	CHECK_EQ(run(d, 0, &bc, 1), DMA_OK);
	for (unsigned r = 0; r < 5; r++)
		CHECK_MEM(dst_buf + 32 * r, src_buf + 8, 32);
	CHECK_EQ(canary_damage_outside(0, 160), 0);

	/* Rows that follow one another at both ends (pitch = length: the memcpy engine copies them
	 * in one call), after a block of one row, then a 2-D block after it in the same list. */
	setup_buffers();
	const struct dma_block cg[3] = {
		{.src = (uintptr_t)(src_buf + 4), .dst = (uintptr_t)(dst_buf + 1000), .len = 8},
		{.src = (uintptr_t)(src_buf + 64), .dst = (uintptr_t)(dst_buf + 12), .len = 36, .rows = 9,
		 .src_pitch = 36, .dst_pitch = 36},
		{.src = (uintptr_t)(src_buf + 900), .dst = (uintptr_t)(dst_buf + 2000), .len = 4, .rows = 3,
		 .src_pitch = 4, .dst_pitch = 8}};
	CHECK_EQ(run(d, 0, cg, 3), DMA_OK);
	CHECK_MEM(dst_buf + 1000, src_buf + 4, 8);
	CHECK_MEM(dst_buf + 12, src_buf + 64, 36 * 9);
	for (unsigned r = 0; r < 3; r++)
		CHECK_MEM(dst_buf + 2000 + 8 * r, src_buf + 900 + 4 * r, 4);
	CHECK_EQ(dst_buf[11], CANARY);
	CHECK_EQ(dst_buf[12 + 36 * 9], CANARY);
	CHECK_EQ(d->chan[0].bytes, 8 + 36 * 9 + 12);
}

static void t_fill(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	setup_buffers();
	const uint32_t pat = 0xdeadbeefu;
	const struct dma_block f[2] = {
		{.dst = (uintptr_t)(dst_buf + 512), .len = 256, .flags = DMA_BLOCK_FILL, .fill = pat},
		/* 2D fill: 4 rows of 8 bytes, 32 apart */
		{.dst = (uintptr_t)(dst_buf + 1024), .len = 8, .rows = 4, .dst_pitch = 32,
		 .flags = DMA_BLOCK_FILL, .fill = 0x11223344u},
	};
	CHECK_EQ(run(d, 0, f, 2), DMA_OK);
	unsigned bad = 0;
	for (unsigned i = 0; i < 256; i++)
		bad += dst_buf[512 + i] != (uint8_t)(pat >> (8 * (i & 3)));
	CHECK_EQ(bad, 0);
	bad = 0;
	for (unsigned i = 1024; i < 1024 + 32 * 4; i++) {
		uint8_t want = (i - 1024) % 32 < 8 ? (uint8_t)(0x11223344u >> (8 * (i & 3))) : CANARY;
		bad += dst_buf[i] != want;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(canary_damage_outside(512, 1024 + 32 * 4), 0);
	for (unsigned i = 768; i < 1024; i++)
		bad += dst_buf[i] != CANARY;
	CHECK_EQ(bad, 0);
}

/* A discard block reads its source and writes nothing (the engine model's moves into kernel
 * memory, whose bytes it does not keep): the destination keeps its canary, the bytes count as
 * moved, a block after it in the chain still copies, and a source inside the destination is no
 * overlap. The same blocks without the flag do write: the canary check sees a write. */
static void t_discard(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	struct dma_block b[4] = {
		{.src = (uintptr_t)src_buf, .dst = (uintptr_t)(dst_buf + 64), .len = 1024,
		 .flags = DMA_BLOCK_DISCARD},
		{.src = (uintptr_t)(src_buf + 2048), .dst = (uintptr_t)(dst_buf + 2048), .len = 16,
		 .rows = 4, .src_pitch = 64, .dst_pitch = 32, .flags = DMA_BLOCK_DISCARD},
		{.src = (uintptr_t)(dst_buf + 3072), .dst = (uintptr_t)(dst_buf + 3072), .len = 64,
		 .flags = DMA_BLOCK_DISCARD},
		{.src = (uintptr_t)(src_buf + 8), .dst = (uintptr_t)(dst_buf + 3500), .len = 32},
	};
	for (int flagged = 1; flagged >= 0; flagged--) {
		setup_buffers();
		for (unsigned i = 0; i < 3; i++)
			b[i].flags = flagged ? DMA_BLOCK_DISCARD : 0;
		CHECK_EQ(run(d, 0, b, flagged ? 4 : 2), DMA_OK); /* unflagged, block 2 would overlap */
		CHECK_EQ(d->chan[0].bytes, flagged ? 1024 + 64 + 64 + 32 : 1024 + 64);
		if (flagged) {
			CHECK_MEM(dst_buf + 3500, src_buf + 8, 32);
			CHECK_EQ(canary_damage_outside(3500, 3532), 0);
		} else {
			/* the negative: the check above would see these writes */
			CHECK(canary_damage_outside(3500, 3532) > 0);
			CHECK_MEM(dst_buf + 64, src_buf, 1024);
		}
	}
}

/* Every refusal is named, happens before anything moves, and leaves the channel as it was. */
static void t_errors(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	setup_buffers();
	const struct dma_block good = {.src = (uintptr_t)src_buf, .dst = (uintptr_t)(dst_buf + 64),
				       .len = 64};
	const struct dma_channel_config gcfg = {.blocks = &good, .nblocks = 1};
	REQUIRE(dma_configure(d, 0, &gcfg) == DMA_OK);
	struct dma_block b;
	struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
#define REFUSED(want, ...)                                                                      \
	do {                                                                                    \
		b = good;                                                                       \
		__VA_ARGS__;                                                                    \
		CHECK_EQ(dma_configure(d, 0, &cfg), (want));                                    \
	} while (0)
	REFUSED(DMA_E_LENGTH, b.len = 6);          /* not a multiple of 4: a sweep on the BCM */
	REFUSED(DMA_E_LENGTH, b.len = 0);
	REFUSED(DMA_E_LENGTH, b.len = 2);
	REFUSED(DMA_E_LENGTH, b.len = d->caps.max_len + 4);
	REFUSED(DMA_E_LENGTH, b.rows = 2, b.len = d->caps.max_row_len + 4, b.dst_pitch = 0x10000);
	REFUSED(DMA_E_LENGTH, b.rows = d->caps.max_rows + 1, b.len = 4, b.dst_pitch = 4);
	REFUSED(DMA_E_ALIGN, b.dst += 2);
	REFUSED(DMA_E_ALIGN, b.src += 1);
	REFUSED(DMA_E_ALIGN, b.rows = 2, b.src_pitch = 66, b.dst_pitch = 64);
	REFUSED(DMA_E_STRIDE, b.rows = 2, b.src_pitch = 64, b.dst_pitch = 60); /* rows overlap */
	REFUSED(DMA_E_STRIDE, b.rows = 2, b.src_pitch = 64, b.dst_pitch = -32);
	REFUSED(DMA_E_OVERLAP, b.src = (uintptr_t)(dst_buf + 100));
	REFUSED(DMA_E_OVERLAP, b.src = (uintptr_t)(dst_buf + 8), b.rows = 3, b.dst_pitch = 64,
		b.src_pitch = 1024);
	REFUSED(DMA_E_RANGE, b.dst = UINTPTR_MAX - 63, b.len = 64);
	REFUSED(DMA_E_RANGE, b.dst = UINTPTR_MAX - 1023, b.rows = 100, b.dst_pitch = 64);
	REFUSED(DMA_E_RANGE, b.dst = 64, b.rows = 4, b.dst_pitch = -64);
	REFUSED(DMA_E_PARAM, b.flags = 0x80);
	REFUSED(DMA_E_PARAM, b.flags = DMA_BLOCK_FILL | DMA_BLOCK_DISCARD); /* writes only, reads only */
	cfg.nblocks = 0;
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_NO_BLOCKS);
	cfg.nblocks = d->caps.max_blocks + 1;
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_TOO_MANY_BLOCKS);
	cfg.nblocks = 1;
	cfg.blocks = NULL;
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_PARAM);
	CHECK_EQ(dma_configure(d, 0, NULL), DMA_E_PARAM);
	CHECK_EQ(dma_configure(NULL, 0, &gcfg), DMA_E_PARAM);
	CHECK_EQ(dma_configure(d, d->caps.nchannels, &gcfg), DMA_E_CHANNEL);
	CHECK_EQ(dma_start(d, DMA_MAX_CHANNELS + 7), DMA_E_CHANNEL);
	/* A block that is bad in the middle of a list: nothing is loaded. */
	struct dma_block list[3] = {good, good, good};
	list[1].len = 5;
	cfg.blocks = list;
	cfg.nblocks = 3;
	CHECK_EQ(dma_configure(d, 0, &cfg), DMA_E_LENGTH);
	/* Nothing moved, and the good configuration is still there. */
	CHECK_EQ(canary_damage_outside(0, 0), 0);
	CHECK_EQ(dma_get_state(d, 0), DMA_STATE_CONFIGURED);
	CHECK_EQ(dma_start(d, 0), DMA_OK);
	CHECK_EQ(dma_wait(d, 0, POLLS), DMA_OK);
	CHECK_MEM(dst_buf + 64, src_buf, 64);
	CHECK_EQ(canary_damage_outside(64, 128), 0);
#undef REFUSED
}

static void t_state_machine(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	setup_buffers();
	unsigned ch = d->caps.nchannels - 1;
	/* A fresh device: nothing to start or wait for; stopping is harmless. */
	struct dma_memcpy fresh_m;
	struct dma_dev fresh;
	REQUIRE(dma_memcpy_init(&fresh_m, &fresh, 0) == DMA_OK);
	CHECK_EQ(dma_get_state(&fresh, 0), DMA_STATE_UNCONFIGURED);
	CHECK_EQ(dma_start(&fresh, 0), DMA_E_STATE);
	CHECK_EQ(dma_wait(&fresh, 0, 10), DMA_E_STATE);
	CHECK_EQ(dma_stop(&fresh, 0), DMA_OK);
	CHECK_EQ(dma_get_state(&fresh, 0), DMA_STATE_UNCONFIGURED);

	const struct dma_block b = {.src = (uintptr_t)src_buf, .dst = (uintptr_t)dst_buf, .len = 512};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	REQUIRE(dma_configure(d, ch, &cfg) == DMA_OK);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_CONFIGURED);
	CHECK_EQ(dma_wait(d, ch, 10), DMA_E_STATE);
	CHECK_EQ(dma_stop(d, ch), DMA_OK); /* not running: no-op */
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_CONFIGURED);
	uint32_t runs = d->chan[ch].runs, done = d->chan[ch].completions;
	/* start is idempotent: a second start while running starts nothing new */
	CHECK_EQ(dma_start(d, ch), DMA_OK);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_RUNNING);
	CHECK_EQ(dma_start(d, ch), DMA_OK);
	CHECK_EQ(d->chan[ch].runs, runs + 1);
	CHECK_EQ(dma_configure(d, ch, &cfg), DMA_E_BUSY);
	CHECK_EQ(dma_wait(d, ch, POLLS), DMA_OK);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_DONE);
	CHECK_EQ(d->chan[ch].completions, done + 1);
	CHECK_EQ(dma_wait(d, ch, 1), DMA_OK); /* DONE stays DONE */
	CHECK_EQ(dma_stop(d, ch), DMA_OK);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_DONE);
	CHECK_MEM(dst_buf, src_buf, 512);
	/* start on DONE runs the same blocks again, with the source's new contents */
	for (unsigned i = 0; i < 512; i++)
		src_buf[i] ^= 0x5a;
	CHECK_EQ(dma_start(d, ch), DMA_OK);
	CHECK_EQ(dma_wait(d, ch, POLLS), DMA_OK);
	CHECK_MEM(dst_buf, src_buf, 512);
	CHECK_EQ(d->chan[ch].runs, runs + 2);
	/* stop while running (before anyone polled): back to CONFIGURED, and stop again is a no-op */
	CHECK_EQ(dma_start(d, ch), DMA_OK);
	CHECK_EQ(dma_stop(d, ch), DMA_OK);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_CONFIGURED);
	CHECK_EQ(dma_stop(d, ch), DMA_OK);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_CONFIGURED);
	CHECK_EQ(dma_start(d, ch), DMA_OK);
	CHECK_EQ(dma_wait(d, ch, POLLS), DMA_OK);
	CHECK_MEM(dst_buf, src_buf, 512);
	CHECK_EQ(canary_damage_outside(0, 512), 0);
	/* configure again after DONE */
	const struct dma_block b2 = {.src = (uintptr_t)(src_buf + 512), .dst = (uintptr_t)(dst_buf + 1024),
				     .len = 128};
	const struct dma_channel_config cfg2 = {.blocks = &b2, .nblocks = 1};
	CHECK_EQ(dma_configure(d, ch, &cfg2), DMA_OK);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_CONFIGURED);
	CHECK_EQ(dma_start(d, ch), DMA_OK);
	CHECK_EQ(dma_wait(d, ch, POLLS), DMA_OK);
	CHECK_MEM(dst_buf + 1024, src_buf + 512, 128);
}

/* An injected controller error ends the transfer with DMA_E_INJECTED, by name, in ERROR; the
 * channel refuses to start until configured again, and then works. */
static void t_injected_error(struct dma_dev *d)
{
	REQUIRE(d != NULL);
	setup_buffers();
	unsigned ch = 1 % d->caps.nchannels;
	uint32_t fired = d->fault.fired;
	const struct dma_block b = {.src = (uintptr_t)src_buf, .dst = (uintptr_t)dst_buf, .len = 256};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	dma_set_fault(d, DMA_FAULT_ERROR, 0);
	enum dma_err rc = run(d, ch, &b, 1);
	dma_set_fault(d, DMA_FAULT_NONE, 0); /* the board device is shared: never leave it armed */
	CHECK_EQ(rc, DMA_E_INJECTED);
	CHECK_STR(dma_err(rc)->name, "dma-injected-fault");
	CHECK_EQ(d->fault.fired, fired + 1);
	CHECK_EQ(dma_get_state(d, ch), DMA_STATE_ERROR);
	CHECK_EQ(d->chan[ch].error, DMA_E_INJECTED);
	CHECK_EQ(dma_poll(d, ch), DMA_E_INJECTED); /* the error stays until reconfigured */
	CHECK_EQ(dma_start(d, ch), DMA_E_STATE);
	CHECK_EQ(dma_wait(d, ch, POLLS), DMA_E_INJECTED);
	/* configure again: the same blocks now go through */
	CHECK_EQ(dma_configure(d, ch, &cfg), DMA_OK);
	CHECK_EQ(dma_start(d, ch), DMA_OK);
	CHECK_EQ(dma_wait(d, ch, POLLS), DMA_OK);
	CHECK_MEM(dst_buf, src_buf, 256);
	CHECK_EQ(canary_damage_outside(0, 256), 0);
	CHECK_EQ(d->fault.fired, fired + 1);
}

#define DMA_TESTS(suite, getter)                                                                \
	TEST(suite, single_block) { t_single_block(getter()); }                                 \
	TEST(suite, chained_blocks) { t_chained_blocks(getter()); }                             \
	TEST(suite, stride_2d) { t_stride_2d(getter()); }                                       \
	TEST(suite, fill) { t_fill(getter()); }                                                 \
	TEST(suite, discard_reads_and_writes_nothing) { t_discard(getter()); }                  \
	TEST(suite, errors_are_named_and_change_nothing) { t_errors(getter()); }                \
	TEST(suite, state_machine_and_idempotence) { t_state_machine(getter()); }               \
	TEST(suite, injected_error_is_named) { t_injected_error(getter()); }

DMA_TESTS(dma_memcpy, memcpy_fast)
DMA_TESTS(dma_memcpy_slow, memcpy_slow)
DMA_TESTS(dma_board, board)

/* ---- the slow memory-copy engine: bounded waits and stopping part-way ---- */
TEST(dma_memcpy_slow, timeout_then_finish)
{
	struct dma_dev *d = memcpy_slow();
	REQUIRE(d != NULL);
	setup_buffers();
	const struct dma_block b = {.src = (uintptr_t)src_buf, .dst = (uintptr_t)dst_buf, .len = BUF};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	REQUIRE(dma_configure(d, 2, &cfg) == DMA_OK);
	REQUIRE(dma_start(d, 2) == DMA_OK);
	CHECK_EQ(dma_wait(d, 2, 3), DMA_E_TIMEOUT);
	CHECK_EQ(dma_get_state(d, 2), DMA_STATE_RUNNING);
	CHECK_MEM(dst_buf, src_buf, 3 * 64); /* three polls of 64 bytes */
	CHECK_EQ(canary_damage_outside(0, 3 * 64), 0);
	CHECK_EQ(dma_wait(d, 2, BUF / 64), DMA_OK);
	CHECK_MEM(dst_buf, src_buf, BUF);
}

TEST(dma_memcpy_slow, stop_part_way_then_restart)
{
	struct dma_dev *d = memcpy_slow();
	REQUIRE(d != NULL);
	setup_buffers();
	const struct dma_block b = {.src = (uintptr_t)src_buf, .dst = (uintptr_t)dst_buf, .len = 1024,
				    .rows = 2, .src_pitch = 2048, .dst_pitch = 2048};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	REQUIRE(dma_configure(d, 0, &cfg) == DMA_OK);
	REQUIRE(dma_start(d, 0) == DMA_OK);
	CHECK_EQ(dma_wait(d, 0, 20), DMA_E_TIMEOUT); /* 1280 bytes: into the second row */
	CHECK_EQ(dma_stop(d, 0), DMA_OK);
	CHECK_EQ(dma_get_state(d, 0), DMA_STATE_CONFIGURED);
	CHECK_EQ(dma_wait(d, 0, 100), DMA_E_STATE);
	CHECK_MEM(dst_buf + 2048, src_buf + 2048, 256);
	CHECK_EQ(dst_buf[2048 + 256], CANARY);
	CHECK_EQ(dma_start(d, 0), DMA_OK);
	CHECK_EQ(dma_wait(d, 0, 1000), DMA_OK);
	CHECK_MEM(dst_buf, src_buf, 1024);
	CHECK_MEM(dst_buf + 2048, src_buf + 2048, 1024);
}

/* The DMA errors follow the one convention (their table is checked with every module's in
 * test_err.c): named by value, the last one DMA_E_INJECTED, nothing past it. */
TEST(dma, every_error_has_a_name)
{
	CHECK_STR(dma_err(DMA_OK)->name, "ok");
	CHECK_STR(dma_err(DMA_E_INJECTED)->name, "dma-injected-fault");
	CHECK_STR(dma_err(DMA_E_TIMEOUT)->name, "dma-timeout");
	CHECK_EQ(DMA_E_INJECTED + 1, DMA_E__COUNT);
	CHECK_STR(dma_err(DMA_E__COUNT)->name, "dma-unknown-error");
	CHECK_STR(dma_err((enum dma_err)-1)->name, "dma-unknown-error");
	CHECK_STR(dma_state_name(DMA_STATE_RUNNING), "running");
}

TEST(dma, block_span_arithmetic)
{
	uintptr_t lo, hi;
	const struct dma_block b = {.src = 1000, .dst = 5000, .len = 16, .rows = 4, .src_pitch = -100,
				    .dst_pitch = 32};
	CHECK_EQ(dma_block_span(&b, 0, &lo, &hi), DMA_OK);
	CHECK_EQ(lo, 700);
	CHECK_EQ(hi, 1016);
	CHECK_EQ(dma_block_span(&b, 1, &lo, &hi), DMA_OK);
	CHECK_EQ(lo, 5000);
	CHECK_EQ(hi, 5000 + 96 + 16);
	const struct dma_block w = {.src = 0, .dst = UINTPTR_MAX - 15, .len = 16};
	CHECK_EQ(dma_block_span(&w, 1, &lo, &hi), DMA_E_RANGE); /* one past the end wraps */
	const struct dma_block big = {.dst = 4096, .len = 4, .rows = 0xffffffffu,
				      .dst_pitch = 0x7ffffffc};
	CHECK_EQ(dma_block_span(&big, 1, &lo, &hi), sizeof(uintptr_t) == 8 ? DMA_OK : DMA_E_RANGE);
}
