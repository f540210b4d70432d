/*
 * The software model of the engine: one implementation of the engine interface (engine.h), for
 * boards with no engine (qemu-virt, raspi3b, the host). It stands in for silicon.
 *
 * Registers land in a register window (a RAM buffer whose base is a parameter, where a real
 * engine has MMIO); the task queue holds the BAR table. Starting a TD, the model decodes the TD
 * header from its TD memory, derives every memory range the TD touches from its register window
 * with fw/td's td_ranges() (the very function the control path checked the final image with),
 * resolves them (BAR-relative tile ranges through the task queue's BAR table, coefficient
 * channels and kernel streams as the absolute addresses their registers hold) and performs the
 * TD's DMA moves through the board's DMA driver: coefficient channels and streams into kernel
 * memory, tile sources into L2, L2 out to the destination, with the activation LUT applied when
 * NE.MACCfg selects it. Engine addresses are one device-memory arena (engine address
 * dev_base + off is CPU address mem + off); a range outside it is an engine fault.
 */
#ifndef ANEFW_ENGINE_MODEL_H
#define ANEFW_ENGINE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/dma/dma.h"
#include "engine/engine.h"
#include "fw/actlut/actlut.h"
#include "fw/kunit/kunit.h"
#include "fw/td/td.h"

#define ANEM_WINDOW_BYTES 0x20000u /* H13 register addresses are below 0x20000 */
#define ANEM_WINDOW_PIECE 0x400u   /* reset clears the window's written pieces of 1 KiB */
#define ANEM_WINDOW_PIECES (ANEM_WINDOW_BYTES / ANEM_WINDOW_PIECE)
#define ANEM_SCRATCH_BYTES 0x10000u
#define ANEM_OUTSIDE_MAX 256u /* register words checked for bits outside their fields */
#define ANEM_DMA_CHANNEL 0
#define ANEM_WAIT_POLLS 1000000u /* per transfer: past it, engine-timeout */

/*
 * Fault injection, per model instance (tests; the firmware's fault= key). The next `count`
 * submissions (0 counts as 1) get the fault, after `skip` events of its kind pass normally
 * (DMA polls for the DMA faults, register writes for READBACK):
 *   DMA_HANG    a DMA transfer never completes       -> watchdog-expired (or engine-timeout)
 *   DMA_ERROR   a DMA transfer completes with error  -> engine-dma-error
 *   WRONG_TASK  the completion names another task    -> engine-completion-wrong-task
 *   READBACK    a register latches another value     -> engine-register-readback-mismatch
 * watchdog_polls, when nonzero, replaces the driver's watchdog budget (tests).
 * The engine driver notices each fault (the model only misbehaves) and resets the engine.
 */
enum anem_fault_kind { ANEM_FAULT_NONE = 0, ANEM_FAULT_DMA_HANG, ANEM_FAULT_DMA_ERROR,
		       ANEM_FAULT_WRONG_TASK, ANEM_FAULT_READBACK, ANEM_FAULT__COUNT };

struct anem_faults {
	uint32_t kind;  /* enum anem_fault_kind */
	uint32_t skip;
	uint32_t count;
	uint32_t watchdog_polls;
};

const char *anem_fault_name(unsigned kind); /* "dma-hang", "dma-error", "wrong-task", "readback" */
/* Kind from its name ("none" too); -1 when unknown. */
int anem_fault_parse(const char *name);

/* What the engine did about one TD's activation (docs/control-path.md). A selected LUT whose
 * record does not resolve or parse, or that cannot apply to the TD's output, is no state here:
 * the TD faults (ENG_FR_ACT_RECORD, ENG_FR_COMBINATION) and the run fails. */
enum anem_act_state {
	ANEM_ACT_NONE,       /* NonlinearMode != 2 */
	ANEM_ACT_APPLIED,    /* f applied to every fp16 the TD wrote (nelem; 0 when it wrote none) */
};

struct anem_act {
	uint8_t state;       /* enum anem_act_state */
	uint8_t from_stream; /* 1: the kernel unit's activation-LUT stream; 0: a 0x80 channel */
	uint8_t kind;        /* enum actlut_kind */
	int32_t scale;       /* knot spacing exponent s */
	uint64_t dev;        /* engine address of the record */
	uint64_t nelem;      /* fp16 values the activation was applied to */
};

/* A tensor a TD left in L2 (L2.ResultCfg.ResultType = resident) for a later TD to read. */
#define ANEM_L2_TENSORS 4u
/*
 * What the model allocates for one submission is bounded before it allocates (docs/robustness.md,
 * "Resource limits"): an L2-resident tensor, held whole as fp16, by fw/td's TD_L2_TENSOR_MAX (the
 * control path refuses it first); every other buffer a program sizes (weights as floats,
 * accumulators, columns, per-channel vectors, the convolution's staged rows) by
 * ANEM_BUF_MAX_BYTES. Worst case per model: 4 x 16 MiB of L2 tensors + 6 x 32 MiB of buffers.
 */
#define ANEM_BUF_MAX_BYTES (32u << 20)
#define ANEM_ROW_MAX 32768u /* Win/Wout are 15-bit fields */
/* The most values one reduction reads (the largest real one, softmax.bin's, reads 2^22) */
#define ANEM_REDUCE_MAX (1ull << 28)
struct anem_l2t {
	uint32_t base;        /* L2.ResultBase as written (the key a later L2.SourceBase names) */
	uint32_t g, c, h, w;
	uint16_t *v;          /* fp16, [g][c][h][w] */
};


/* Called for every byte range the model reads or writes in device memory (tests, fuzzing). */
typedef void (*anem_touch_fn)(void *ctx, uint64_t dev, uint64_t len, int write);

struct anem {
	uint32_t *regs;       /* register window (ANEM_WINDOW_BYTES) */
	uint64_t regs_dirty[ANEM_WINDOW_PIECES / 64]; /* the pieces written since the last reset */
	uint8_t *mem;         /* device memory */
	uint64_t dev_base, mem_size;
	struct dma_dev *dma;
	/* kernel memory, where the coefficient moves go: the DMA reads the bytes and writes none
	 * (DMA_BLOCK_DISCARD); the model reads the kernels from where the moves read them */
	uint8_t kmem[ANEM_SCRATCH_BYTES];
	struct eng_task tq;
	/* the register words whose bits outside the map's fields must be 0, and those bits
	 * (anem_outside_init, from fw/regmap once; read every TD) */
	struct td_outside outside[ANEM_OUTSIDE_MAX];
	unsigned noutside;
	uint32_t queued, state, err, done_nid, done_count;
	unsigned trace;       /* 1: every move */
	outf_fn out;
	void *ctx;
	anem_touch_fn touch;
	void *touch_ctx;
	unsigned cur_td;
	unsigned cur_ene;     /* the running TD's header ENE (struct td_hdr) */
	unsigned cur_bar_en;  /* the running TD's header bar_en (struct td_hdr) */
	/* counters of the current submission */
	unsigned nmoves;
	uint64_t bytes_moved;
	uint64_t wd_budget, polls; /* the watchdog's budget, DMA polls used */
	uint64_t ops_limit, ops_used; /* the compute limit (anem_set_ops_limit), what the task used */
	unsigned td_moves[LDR_MAX_TDS];
	uint64_t td_bytes[LDR_MAX_TDS];
	struct anem_act td_act[LDR_MAX_TDS];
	/* fault injection of this instance */
	struct anem_faults faults;
	uint32_t faults_left, faults_fired;
	uint32_t fault, fault_skip, fault_hit; /* the current submission's */
	uint32_t dma_fired0;
	/* the activation table for large tiles, rebuilt only when the record changes; below
	 * anem_table_direct_max elements under one record the LUT is evaluated element by element
	 * instead (table_direct: those elements so far, in the padding before lut) */
	uint16_t table[ACTLUT_TABLE_LEN];
	uint16_t table_slots[ACTLUT_SLOTS];
	int table_valid;
	uint32_t table_direct;
	struct actlut lut;
	/* the datapath (compute.c): row buffers for the tile DMA, the rows in flight, L2 tensors */
	/* 16-byte aligned, as the arena's rows usually are, so the row moves and the NEON / SSE
	 * rows take their wide paths */
	uint8_t row[3][2 * ANEM_ROW_MAX] __attribute__((aligned(16)));
	float fa[ANEM_ROW_MAX] __attribute__((aligned(16))), fb[ANEM_ROW_MAX] __attribute__((aligned(16)));
	uint16_t hv[ANEM_ROW_MAX] __attribute__((aligned(16))); /* fp16 rows: the first source, */
	uint16_t hv2[ANEM_ROW_MAX] __attribute__((aligned(16))); /* the second */
	uint16_t hv3[ANEM_ROW_MAX] __attribute__((aligned(16))); /* a normalize's p1 */
	struct anem_l2t l2t[ANEM_L2_TENSORS];
	uint16_t *l2m;          /* L2 memory (H13_L2_BYTES; NULL until a TD uses it), */
	struct td_l2bits l2ok;  /* what the submission's TDs wrote there (fw/td l2written.c: a bit
				 * per fp16 value, and per byte kept as a one-byte element, w8 NULL
				 * until one is) */
	struct eng_fault flt; /* why the current TD stopped (anem_refuse), reason NONE if not */
	float *acc;           /* convolution accumulators (Cout x Wout) and weights */
	size_t acc_len;
	float *wts;
	size_t wts_len;
	float *chv;           /* per output channel: post-scale, then bias (kernel-unit streams) */
	size_t chv_len;
	uint16_t *kh;         /* one output channel's decoded kernel (fp16) */
	size_t kh_len;
	uint16_t *dk;         /* phase-sparse kernels decoded (fp16, stored little-endian): every
			       * output's kernel, its bias first with BiasMode; then one record's scratch */
	size_t dk_len;        /* values */
	uint16_t *l2in;       /* a convolution's first operand read from an L2 view ([g][c][h][w]) */
	size_t l2in_len;      /* values */
	uint16_t *otr;        /* a result the tile DMA writes transposed or channel-interleaved,
			       * before it leaves */
	size_t otr_len;       /* values */
	uint16_t *ilv[2];     /* the two tile sources read channel-interleaved, de-interleaved */
	size_t ilv_len[2];    /* values */
	int wts_inf;          /* a weight is infinite or NaN (wts is packed 4 channels a line) */
	int acc_amb;          /* a convolution's sum met infinities of both signs (threads set it:
			       * compute.c acc_row_amb; the TD is refused before its rows leave), 1;
			       * or the PE's operation an unpinned indeterminate form (pe_row_amb), 2 */
	float *cols;          /* the fast convolution (compute.c): one output row's inputs, a line per (ci, ky, kx) */
	size_t cols_len;
	uint16_t *stage;      /* a convolution's staged input rows, or output rows (one 2-D move out) */
	size_t stage_len;
	uint16_t *ostage;     /* output rows while the inputs are staged too (rows on threads) */
	size_t ostage_len;
	float *rfb;           /* per row of a batch: the row being spread into columns (threads) */
	size_t rfb_len;
	unsigned conv_lines;  /* convolutions done by channel lines (batch_lines), for the tests */
	float *lw, *lacc;     /* per thread: a channel line's packed kernels and accumulators (one-row convolutions) */
	size_t lw_len, lacc_len;
	float *ilo;           /* the plain loop's smallest and largest partials (interior check) */
	size_t ilo_len;
	/* the current TD's kernel unit (its streams name it), parsed when a stream is enabled */
	int ku_ok;
	struct ku_unit ku;
};

extern const struct eng_ops anem_ops;
extern const struct eng_batch anem_batch; /* its batch register operations (struct eng.batch) */

int anem_init(struct anem *m, uintptr_t regs_base, uint8_t *mem, uint64_t dev_base,
	      uint64_t mem_size, struct dma_dev *dma);
/* Points the model at a new device-memory arena (between submissions). */
void anem_set_memory(struct anem *m, uint8_t *mem, uint64_t dev_base, uint64_t mem_size);
void anem_set_output(struct anem *m, unsigned trace, outf_fn out, void *ctx);
/*
 * The model's compute limit: the operations (fw/td td_ops: a convolution's multiply-accumulates,
 * pooling's window taps, one an element otherwise) one task's TDs may cost together. A TD that
 * would take the task past it is refused before it moves or computes anything, as
 * beyond-model-capacity, naming itself: silicon runs such a task, the model would take minutes
 * to hours (docs/robustness.md, "Compute"). anem_init sets ANEM_OPS_LIMIT; the application sets
 * its board's (struct hal_platform.model_ops).
 */
#define ANEM_OPS_LIMIT (1ull << 30)
void anem_set_ops_limit(struct anem *m, uint64_t limit);
/*
 * The activation LUT's table (all 65,536 results, one evaluation of the record each) is built
 * only once a record has been applied to this many elements (fw/td td_ops of its TDs, counted
 * from the first TD with that record): a record on fewer is evaluated element by element
 * (actlut_apply without a table, the same results), so a small TD does not pay 65,536
 * evaluations (16 million instructions on the target, about 20 ms under QEMU). At most twice
 * the table's cost for any sequence of TDs. Tests set it to 0 (the table always) or above their
 * element counts (never).
 */
#define ANEM_TABLE_DIRECT_MAX 65536u
extern uint32_t anem_table_direct_max;
/* Sets (a copy) or clears (NULL) this instance's faults. */
void anem_set_faults(struct anem *m, const struct anem_faults *f);
/* Submissions the fault has hit since it was set. */
uint32_t anem_faults_fired(const struct anem *m);
/* Called by the session around each submission: arms and disarms the instance's fault. */
void anem_begin(struct anem *m);
void anem_end(struct anem *m);

/* CPU pointer for an engine range, or NULL when it is not inside the arena. */
uint8_t *anem_cpu(const struct anem *m, uint64_t dev, uint64_t len);

/* One line describing a TD's activation ("lut record @0x..., mode odd, knots 2^-3", "none"). */
void anem_act_describe(const struct anem_act *a, char *buf, size_t len);

#endif
