/*
 * Generic DMA API (in the spirit of Zephyr's): a channel is configured with a list of blocks,
 * started, waited for with a bound, and stopped. Backends (a memory-copy engine for boards without
 * a DMA controller and for host builds; the BCM2835 controller on raspi3b) plug in through an ops
 * table and share one set of rules, checked here before any backend sees a block:
 *
 *   - a configuration has 1..caps.max_blocks blocks;
 *   - every length, address and 2D pitch is a multiple of caps.granule (4 for every backend, so a
 *     program behaves the same on every board; the BCM2835 sweeps memory on any other length);
 *   - every range a block touches is computed (rows x pitch, both directions) without overflow, and
 *     a block's source and destination do not overlap; destination rows never overlap each other.
 *
 * Per-channel state machine:
 *
 *   UNCONFIGURED --configure--> CONFIGURED --start--> RUNNING --(poll/wait sees the end)--> DONE
 *                                    ^                  |  \--(controller error)--> ERROR
 *                                    +------stop--------+
 *   configure: allowed in every state but RUNNING (DMA_E_BUSY); a refused configuration leaves
 *              the channel as it was.
 *   start:     CONFIGURED/DONE -> RUNNING (DONE re-runs the same blocks); RUNNING: no-op (idempotent);
 *              UNCONFIGURED/ERROR: DMA_E_STATE (an ERROR channel must be configured again).
 *   stop:      RUNNING -> CONFIGURED (the transfer is abandoned part-way); any other state: no-op.
 *   wait:      bounded by a number of polls (dma_wait) or by time (dma_wait_us); DMA_E_TIMEOUT
 *              leaves the channel RUNNING.
 * A channel only becomes DONE when a poll or wait observes the end, so start is idempotent on every
 * backend, however fast it is.
 */
#ifndef ANEFW_DMA_H
#define ANEFW_DMA_H

#include <stddef.h>
#include <stdint.h>

#include "fw/common/err.h"

#define DMA_MAX_CHANNELS 4

/* The DMA API's errors (fw/common/err.h): a positive enum, each value named and described in
 * dma_err()'s table. */
enum dma_err {
	DMA_OK = 0,
	DMA_E_PARAM,           /* a NULL device, configuration or block list, or unknown flags */
	DMA_E_CHANNEL,         /* no such channel on this device */
	DMA_E_NO_BLOCKS,       /* a configuration with zero blocks */
	DMA_E_TOO_MANY_BLOCKS, /* more blocks than a channel holds */
	DMA_E_LENGTH,          /* a zero length, one over the backend's limit, or not a multiple of
				  the granule */
	DMA_E_ALIGN,           /* an address or pitch not a multiple of the granule */
	DMA_E_RANGE,           /* a range that wraps, or lies outside memory the engine reaches */
	DMA_E_STRIDE,          /* a 2D shape the engine cannot express, or overlapping destination
				  rows */
	DMA_E_OVERLAP,         /* a block's source and destination overlap */
	DMA_E_STATE,           /* not valid in the channel's state */
	DMA_E_BUSY,            /* the channel is running: stop it or wait first */
	DMA_E_TIMEOUT,         /* the bounded wait ran out; the channel is still running */
	DMA_E_READ,            /* the controller reported a bus read error */
	DMA_E_FIFO,            /* the controller reported a FIFO error */
	DMA_E_READ_LAST,       /* the controller reported a read-last-not-set error */
	DMA_E_HW,              /* the controller flagged an error without a known cause */
	DMA_E_UNSUPPORTED,     /* the backend cannot do this */
	DMA_E_INJECTED,        /* an injected fault: the transfer ended with an error */
	DMA_E__COUNT
};
/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *dma_err(enum dma_err e);

enum dma_state {
	DMA_STATE_UNCONFIGURED = 0,
	DMA_STATE_CONFIGURED,
	DMA_STATE_RUNNING,
	DMA_STATE_DONE,
	DMA_STATE_ERROR,
};

const char *dma_state_name(enum dma_state s);

/* Block flags */
#define DMA_BLOCK_FILL 1u /* write the 32-bit pattern `fill` (little-endian) instead of reading src */
/* read src and write nothing: dst only names where the bytes would go (a move whose bytes nobody
 * keeps; the BCM2835's TI.DEST_IGNORE). Not with FILL. */
#define DMA_BLOCK_DISCARD 2u

/*
 * One block: `rows` rows (0 or 1: a plain 1D block) of `len` bytes. Row r reads
 * src + r * src_pitch and writes dst + r * dst_pitch; pitches may be negative. Addresses are the
 * CPU's (the backend translates them for its bus).
 */
struct dma_block {
	uintptr_t src;
	uintptr_t dst;
	uint32_t len;
	uint32_t rows;
	int32_t src_pitch;
	int32_t dst_pitch;
	uint32_t flags;
	uint32_t fill;
};

struct dma_channel_config {
	const struct dma_block *blocks;
	unsigned nblocks;
	uint32_t flags; /* reserved, 0 */
};

struct dma_caps {
	unsigned nchannels;   /* channels 0..nchannels-1 */
	unsigned max_blocks;  /* per configuration */
	uint32_t granule;     /* lengths, addresses and pitches are multiples of this (power of 2) */
	uint32_t max_len;     /* bytes per 1D block */
	uint32_t max_row_len; /* bytes per row of a 2D block */
	uint32_t max_rows;    /* rows per 2D block */
	uint32_t max_gap;     /* |row pitch - row length| of a 2D block at most this; 0: no bound */
};

struct dma_dev;

struct dma_ops {
	/* Backend-specific checks of one (already generically valid) block; must not change state. */
	enum dma_err (*check_block)(struct dma_dev *d, unsigned ch, const struct dma_block *b);
	/* Takes a checked configuration (the backend copies what it needs). */
	enum dma_err (*load)(struct dma_dev *d, unsigned ch, const struct dma_block *b, unsigned n);
	enum dma_err (*start)(struct dma_dev *d, unsigned ch);
	/* DMA_OK: finished, DMA_E_BUSY: still running, any other: the error (the transfer has
	 * stopped). */
	enum dma_err (*poll)(struct dma_dev *d, unsigned ch);
	enum dma_err (*stop)(struct dma_dev *d, unsigned ch);
};

struct dma_channel_state {
	enum dma_state state;
	enum dma_err error;   /* the error that put the channel in ERROR */
	uint32_t runs;        /* transfers started */
	uint32_t completions; /* transfers seen finished */
	uint64_t bytes;       /* bytes in the current configuration (all rows of all blocks) */
};

/*
 * Fault injection (tests and the firmware's fault= key), selected at run time per device: the
 * generic layer applies it in dma_poll, so it works the same on every backend. `skip` polls of
 * running transfers go through normally first; at the next one the transfer
 *   DMA_FAULT_HANG:  never completes (every poll: still running), until stopped or reset;
 *   DMA_FAULT_ERROR: is stopped in the backend and ends in ERROR with DMA_E_INJECTED.
 * A fault fires once (`fired` counts), then the device is back to normal.
 */
enum dma_fault_kind { DMA_FAULT_NONE = 0, DMA_FAULT_HANG, DMA_FAULT_ERROR };

struct dma_fault {
	uint32_t kind;   /* enum dma_fault_kind */
	uint32_t skip;   /* transfers to let through before the fault */
	uint32_t fired;  /* times the fault fired */
	uint32_t active; /* the channel (plus 1) a HANG holds, 0 when none */
};

struct dma_dev {
	struct dma_fault fault;
	const char *name;
	const struct dma_ops *ops;
	void *priv;
	struct dma_caps caps;
	struct dma_channel_state chan[DMA_MAX_CHANNELS];
};

/* Backends call this to set up the generic part of a device. */
void dma_dev_init(struct dma_dev *d, const char *name, const struct dma_ops *ops, void *priv,
		  const struct dma_caps *caps);

/* Validates the whole configuration (generic rules, then the backend's), then loads it. */
enum dma_err dma_configure(struct dma_dev *d, unsigned ch, const struct dma_channel_config *cfg);
enum dma_err dma_start(struct dma_dev *d, unsigned ch);
enum dma_err dma_stop(struct dma_dev *d, unsigned ch);
/* One look at a running channel: DMA_OK once DONE, DMA_E_BUSY while running, or the error. */
enum dma_err dma_poll(struct dma_dev *d, unsigned ch);
/* Polls up to max_polls times: DMA_OK, DMA_E_TIMEOUT (still RUNNING), or the error. A bound in
 * polls suits a device whose progress is counted in polls (the memory-copy engine, the model). */
enum dma_err dma_wait(struct dma_dev *d, unsigned ch, uint32_t max_polls);
/* Polls until done or timeout_us microseconds have passed (the HAL's timer): DMA_OK,
 * DMA_E_TIMEOUT (still RUNNING), or the error. The bound for hardware, whatever the CPU's speed. */
enum dma_err dma_wait_us(struct dma_dev *d, unsigned ch, uint32_t timeout_us);
enum dma_state dma_get_state(const struct dma_dev *d, unsigned ch);

/* Brings a channel back to UNCONFIGURED whatever its state (a running transfer is stopped in the
 * backend first); clears its error. Used after a failed submission. */
enum dma_err dma_reset(struct dma_dev *d, unsigned ch);

/* Arms (kind != NONE) or disarms a fault on a device; see struct dma_fault. */
void dma_set_fault(struct dma_dev *d, enum dma_fault_kind kind, uint32_t skip);

/* Convenience: configure one 1D block, start, wait. */
enum dma_err dma_copy(struct dma_dev *d, unsigned ch, void *dst, const void *src, uint32_t len,
	     uint32_t max_polls);

/* The bounds every DMA-API check computes: the lowest and one-past-highest byte a block's
 * source (which = 0) or destination (which = 1) touches. DMA_OK or DMA_E_RANGE on overflow. */
enum dma_err dma_block_span(const struct dma_block *b, int which, uintptr_t *lo, uintptr_t *hi);

/* A generous bound for dma_wait_us() in callers that just want the transfer done: 1 s. */
#define DMA_WAIT_DEFAULT_US 1000000u

#endif
