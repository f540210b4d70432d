/*
 * H13 task descriptors: the one place that encodes and decodes a TD header, writes a TD's
 * register stream, and derives, from the register state a TD runs with, every memory range the
 * engine touches for it.
 *
 * td_ranges() is the single function behind both sides of "check what you program, program what
 * you checked": the control path (fw/ctrl) calls it on the final register image of each TD (the
 * exact words the engine will be given) and proves every range inside the submission's grants;
 * the engine model calls it on its own register window and moves and computes through exactly
 * those ranges.
 */
#ifndef ANEFW_TD_H
#define ANEFW_TD_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#include "fw/actlut/actlut.h"
#include "fw/common/outf.h"
#include "fw/regmap/h13.h"

struct td_hdr {
	uint32_t tid, nid, lnid, eon, exe_cycles, next_size, next_ptr;
	uint32_t log_events, exceptions, debug_log_events, debug_exceptions, flags;
	uint8_t bar_en;     /* bit i: enum h13_bar_slot i enabled */
	uint8_t bar_idx[H13_BAR_NSLOTS];
	uint8_t ene;
};

/*
 * The extended header. When header word 9's first BAR slot (KBase0: a 5-bit index and the enable
 * bit above it) is enabled on BAR 3 (0x23: kernels an earlier TD wrote into the intermediate), one
 * more word follows the ten, before the first register record, and the TD's size counts it
 * (joshuaswarren/mil-hwx-compiler research/oracle-envelope.md section 7, over 2,677 of Apple's H13
 * tasks: only 0x23 carries it, 0x21 and 0x26 do not; the macOS compiler's GPT-2 kernels, allbilly/ane
 * gpt2/training tasks.json: 0x23 in 632-byte TDs, and 0x27, KBase0 on BAR 7 (a constant section),
 * in the softmax's 628-byte TD 4 whose ten header words and 147 words of records fill the 157
 * words its NextSize gives, with none to spare). Until 2026-12-04 any word 9 with both low bits set
 * was read as extended, and that TD 4 was refused (`unknown_register`). The word held 0, 7 or 8.
 * In Apple's attention (chain_attn_s64_dh64) it is 0 in TD 2 and 7 in TD 8, the index of the TD
 * that wrote the kernels each reads (TD 0, TD 7); in the transpose_x batched matmul 0 in the 208
 * TDs whose kernels TD 0 wrote: read as a dependency on that TD, which changes nothing where TDs
 * run in order. The loader skips it, the TD writer writes 0 there (docs/formats.md, "The extended
 * header").
 */
#define TD_HDR_EXT_WORDS 1u
#define TD_HDR_EXT_BAR 3u /* KBase0's BAR when the extension word is there */
static inline int td_hdr_extended(const uint32_t w[H13_TD_HEADER_WORDS])
{
	/* KBase0 is word 9's first slot: index in bits 0-4, enable in bit 5 */
	return ((w[9] >> H13_TDH_BAREN_BIT) & 1u) && (w[9] & H13_FIELD_MASK(H13_TDH_BARIDX_W)) == TD_HDR_EXT_BAR;
}
void td_hdr_decode(const uint32_t w[H13_TD_HEADER_WORDS], struct td_hdr *h);
void td_hdr_encode(const struct td_hdr *h, uint32_t w[H13_TD_HEADER_WORDS]);

/* ---- the register-write stream's command word: count consecutive registers from addr ---- */
#define TD_CMD_MAX_COUNT (H13_FIELD_MASK(H13_TDW_COUNT_W) + 1u) /* 64 */
#define TD_CMD_MAX_ADDR H13_FIELD_MASK(H13_TDW_ADDR_W)
/* The command word for count (1..TD_CMD_MAX_COUNT) registers from addr (<= TD_CMD_MAX_ADDR). */
static inline uint32_t td_cmd_encode(uint32_t addr, unsigned count)
{
	return H13_PUT(H13_TDW_COUNT, count - 1u) | H13_PUT(H13_TDW_ADDR, addr);
}
/* A nonzero command word's start address and register count (a zero word is padding). */
static inline void td_cmd_decode(uint32_t word, uint32_t *addr, unsigned *count)
{
	*addr = H13_GET(word, H13_TDW_ADDR);
	*count = H13_GET(word, H13_TDW_COUNT) + 1u;
}

/* ---- writing a TD (the program builder and the tests) ---- */
struct td_writer {
	uint32_t *w;      /* the TD's words (header first) */
	unsigned n, cap;  /* words written, capacity */
	int overflow;     /* 1 once a write did not fit */
};
/* Starts a TD of cap words in w (zeroed) with its header. */
void tdw_begin(struct td_writer *tw, uint32_t *w, unsigned cap, const struct td_hdr *h);
/* One command word and count consecutive register values from addr. */
void tdw_block(struct td_writer *tw, uint32_t addr, const uint32_t *vals, unsigned count);
/* One register. */
void tdw_reg(struct td_writer *tw, uint32_t addr, uint32_t value);
/* A block of consecutive registers written by one command word, set register by register by
 * name (every word not set is written as 0). */
struct td_block {
	uint32_t base;    /* the first register's address */
	unsigned count;   /* registers (1..TD_CMD_MAX_COUNT) */
	int bad;          /* 1 once a register outside the block was set */
	uint32_t v[TD_CMD_MAX_COUNT];
};
void tdb_begin(struct td_block *b, uint32_t base, unsigned count);
/* Register addr (inside the block) = value. */
void tdb_set(struct td_block *b, uint32_t addr, uint32_t value);
/* The block's command word and values (an overflow when the block is bad). */
void tdw_put(struct td_writer *tw, const struct td_block *b);
/* The words written, or 0 when something overflowed. */
unsigned tdw_end(const struct td_writer *tw);

/* ---- the values every real program writes ----
 * Fields the engine model reads no meaning from and that every real program holds at one value
 * other than 0 (the fixtures' TDs and allbilly/ane's macOS task streams; docs/engine-model.md,
 * "The register census"). The model refuses any other value, 0 included; the program builders
 * (tools/progdesc, the tests' TD writers) write them from here. */
struct td_fixed { /* also the type of the model's tables of fields real programs hold at 0 */
	uint32_t reg;       /* register address */
	uint8_t lsb, width; /* the field */
	uint16_t value;     /* what every real program holds there */
	const char *why;    /* the model's refusal, one line */
};
extern const struct td_fixed td_fixed[];
extern const unsigned td_nfixed;
/* Register reg's fixed fields at their values, in place (0 when reg has none). */
uint32_t td_fixed_bits(uint32_t reg);
/* ORs td_fixed_bits into each of count words of a block starting at register base. */
void td_fixed_block(uint32_t base, uint32_t *v, unsigned count);
/* A field's mask, for widths 1..32, at bit 0. */
static inline uint32_t td_field_mask(unsigned width)
{
	return width >= 32u ? ~0u : (1u << width) - 1u;
}
/* L2.SourceCfg and ResultCfg of a TD whose source and result go through the tile DMA, as every
 * eiln fixture and Apple's binary programs write them: Source/ResultType 2 and the fixed fields.
 * The builders write these (a type of 0 reads the source from L2 memory, td_l2mem_of). */
#define TD_L2_SOURCECFG_DMA (td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2_SOURCETYPE, H13_L2_DMA))
/* ... and of a TD whose PE's second operand comes through the tile DMA too (Src2DMA, as add.bin) */
#define TD_L2_SOURCECFG_DMA2 (TD_L2_SOURCECFG_DMA | H13_PUT(H13_L2SRC_SRC2DMA, 1u))
#define TD_L2_RESULTCFG_DMA (td_fixed_bits(H13_L2_RESULTCFG) | H13_PUT(H13_L2_RESULTTYPE, H13_L2_DMA))
/* An enabled tile DMA's Fmt in every real program: FmtMode 1, Truncate 3, MemFmt 2 (fp16 in
 * memory; the source may also be (1, 0, 0), as softmax.bin's TD 4 is). A builder writes it with
 * td_fixed_bits(the Fmt register). */
#define TD_TILE_FMT_FP16                                                                          \
	(H13_PUT(H13_FMT_FMTMODE, 1u) | H13_PUT(H13_FMT_TRUNCATE, 3u) | H13_PUT(H13_FMT_MEMFMT, 2u))
/* One-byte tensors through the tile DMA, as the H16 map's format table names the Fmt values
 * (FLOAT16 0x2031 there is H13's TD_TILE_FMT_FP16): UINT8 0x0000 (FmtMode 0, Truncate 0, MemFmt 0)
 * and INT8 0x1000 (MemFmt 1). Apple's H13 cast of a bool tensor to fp16 reads its one-byte input
 * with TD_TILE_FMT_UINT8 (docs/engine-model.md, "One-byte tensors through the tile DMA"). */
#define TD_TILE_FMT_UINT8 0u
#define TD_TILE_FMT_INT8 H13_PUT(H13_FMT_MEMFMT, 1u)
#define TD_TILE_FMT_MASK                                                                          \
	(H13_PUT(H13_FMT_FMTMODE, ~0u) | H13_PUT(H13_FMT_TRUNCATE, ~0u) | H13_PUT(H13_FMT_MEMFMT, ~0u))
/* The one-byte reading of a tile DMA's Fmt word: H13_FMT_UINT8 or H13_FMT_INT8 (Common.ChCfg's
 * encoding of the two), or -1 when it is not TD_TILE_FMT_UINT8 or TD_TILE_FMT_INT8. */
static inline int td_tile_fmt_byte(uint32_t fmt)
{
	const uint32_t f = fmt & TD_TILE_FMT_MASK;
	return f == TD_TILE_FMT_UINT8 ? (int)H13_FMT_UINT8 : f == TD_TILE_FMT_INT8 ? (int)H13_FMT_INT8 : -1;
}
/* Whether a one-byte tensor of Common.ChCfg format chfmt, moved by a tile DMA of Fmt word fmt,
 * is read with a signedness the two disagree on (Apple's bool tensors: a UINT8 DMA, ChCfg int8).
 * Bytes 0..0x7f read the same either way; the model refuses the others (ambiguous-value). */
static inline int td_tile_sign_disagrees(uint32_t fmt, unsigned chfmt)
{
	const int b = td_tile_fmt_byte(fmt);
	return chfmt != H13_FMT_FP16 && b >= 0 && (unsigned)b != chfmt;
}
/*
 * Channel interleave (a tile DMA's Fmt.Interleave, I): the tensor's channels go in groups of I,
 * each group one "plane" whose rows hold W x I elements, the I channels of a group side by side
 * for each column: element (g, c, d, h, w) lies at
 *     g GroupStride + (c / I) PlaneStride + d DepthStride + h RowStride + (w I + c mod I) elem.
 * I = 1 is the plain layout of every other program. The evidence (docs/engine-model.md, "Channel
 * interleave"): Apple's H13 select over 1x8x375x375 writes two fp16 intermediates with
 * TileDMADst.Fmt.Interleave 8 and L2.ResultCfg.DMAInterleave 8, rows of 0x5e lines (6016 bytes:
 * 375 x 8 fp16, 64-byte aligned) and 375 rows a plane, the next tensor exactly one such plane on,
 * then reads both back with TileDMASrc.Fmt.Interleave 8 (the second source too, its Src2Fmt
 * naming none) and L2.SourceCfg.DMAInterleave 8; the macOS compiler's linear backward_dw writes
 * a kernel buffer with Interleave 8 that a later TD reads as 8 outputs side by side for each
 * input. Apple's H13 attention (chain_attn_s64_dh64) writes k and the softmax's probabilities
 * with Interleave 4 into a buffer its matmuls read as kernels with OCGSize 2 (4 outputs side by
 * side for each input): on random q, k and v it computes attention only by this rule. Apple's H13
 * matmul of two runtime operands [48,64] x [64,64]^T (rrmm_r2rr_m48_k64_n64_tx0_ty1) writes x
 * with Interleave 2 into a buffer its two matmul TDs read as kernels with OCGSize 1 (2 outputs
 * side by side): on random operands it computes x w^T only by this rule, with the pairs of
 * channels swapped 39 off (the eighth sweep). A field of 0 is read as 1 (no program holds it on
 * an enabled DMA; the model refuses every value but 1, 2, 4 and 8: td_interleave_modelled).
 */
static inline int td_interleave_modelled(unsigned ilv)
{
	return ilv == 1u || ilv == 2u || ilv == 4u || ilv == 8u;
}
static inline unsigned td_tile_interleave(uint32_t fmt)
{
	const unsigned i = H13_GET(fmt, H13_FMT_INTERLEAVE);
	return i ? i : 1u;
}
/* Byte offset of element (g, c, h, w) of a depth-1 tile, interleave ilv (1: plain). */
static inline uint64_t td_tile_off(uint64_t g, uint64_t c, uint64_t h, uint64_t w, unsigned ilv,
				   unsigned elem, uint64_t row, uint64_t plane, uint64_t group)
{
	return g * group + c / ilv * plane + h * row + (w * ilv + c % ilv) * elem;
}

/* The second tile source's Fmt (TileDMASrc.Src2Fmt) of a TD whose PE's second operand comes by the
 * tile DMA (L2.SourceCfg.Src2DMA 1), as every such real TD has it (Truncate 3, MemFmt 2, FmtMode
 * 0); 0 on every other real TD. The model refuses any other value (td_src2_fmt). */
#define TD_TILE_FMT_SRC2_FP16 (H13_PUT(H13_FMT_TRUNCATE, 3u) | H13_PUT(H13_FMT_MEMFMT, 2u))
static inline uint32_t td_src2_fmt(uint32_t l2_sourcecfg)
{
	return H13_GET(l2_sourcecfg, H13_L2SRC_SRC2DMA) ? TD_TILE_FMT_SRC2_FP16 : 0u;
}

/* Words of the blocks a TD writes that the H13 map does not name, with the bits real programs set
 * in them (the fixtures' 29 TDs and the 103 of Apple's 64 programs rebuilt from a public listing:
 * KernelDMASrc +0x00 0 or 0x40, +0xc8..+0xd4 0 or 0x80, +0xe8..+0xf4 0 or 0x40, TileDMASrc +0x40
 * 0 or 0x100; every other unnamed word 0 everywhere). What they do is not known; the model
 * refuses any other bit (and pins Common's three unnamed words whole, in td_fixed). */
uint32_t td_unnamed_bits(uint32_t reg);

/* ---- the memory a TD touches ---- */
#define TD_READ 1u
#define TD_WRITE 2u

enum td_rkind { TD_R_SRC0, TD_R_SRC1, TD_R_DST, TD_R_TBASE, TD_R_COEFF, TD_R_STREAM,
		TD_R__COUNT };
const char *td_rkind_name(unsigned kind); /* "src0", "src1", "dst", "tbase", "coeff", "stream" */

struct td_range {
	uint8_t kind;     /* enum td_rkind */
	uint8_t ch;       /* coefficient channel, stream (enum h13_kstream) or BAR slot (tbase) */
	uint8_t slot;     /* BAR slot (enum h13_bar_slot) whose grant must hold the range */
	uint8_t bar;      /* BAR index in that slot */
	uint8_t absolute; /* 1: addr is an engine address; 0: an offset from the BAR's base */
	uint8_t whole;    /* 1: the BAR is enabled but its extent is not decoded (addr, len 0):
			     the whole grant is taken; the engine does not move it */
	uint8_t access;   /* TD_READ or TD_WRITE */
	uint64_t addr, len;
	uint8_t bcast;    /* src0: the H13_BCAST_* axes the engine reads at index 0 only
			     (td_src0_bcast); the range covers index 0 along them, 0 elsewhere */
};

/* The register state a TD runs with. get(ctx, addr) gives a register's value (0 when unset). */
struct td_regs {
	uint32_t (*get)(const void *ctx, uint32_t addr);
	const void *ctx;
};

enum td_err {
	TD_OK = 0,
	TD_E_FORMAT,         /* a tensor format with no element size */
	TD_E_EMPTY,          /* a zero dimension or a zero-length buffer */
	TD_E_OVERFLOW,       /* extent arithmetic overflows */
	TD_E_COEFF_NO_BAR,   /* coefficient channels or streams enabled but KBase0 not enabled */
	TD_E_STREAM_UNSIZED, /* a stream enabled whose length is not known (no kernel unit) */
	TD_E_TOO_MANY,       /* more ranges than the caller's array */
	TD_E_DST_NO_BAR,     /* the destination DMA enabled but WBase not bound */
	TD_E__COUNT
};
/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *td_err(enum td_err e);
const char *td_err_name(enum td_err e);

#define TD_MAX_RANGES (4 + H13_COEFF_NCH + H13_KSTREAM_N + 4)

/*
 * Every range the engine touches running a TD with header h and registers r. stream_len[s] is
 * the byte length of kernel stream s (the kernel unit's section), 0 when the program has none.
 * On error, *bad_kind and *bad_ch (may be NULL) name the range being derived.
 */
enum td_err td_ranges(const struct td_hdr *h, const struct td_regs *r,
		      const uint32_t stream_len[H13_KSTREAM_N], struct td_range *out, unsigned max,
		      unsigned *n, int *bad_kind, int *bad_ch);

/*
 * What the TD computes, decoded from the register image r (after its writes) in the reading the
 * engine model executes (docs/engine-model.md): the source, the NE (convolution geometry and
 * kernel format, or elementwise), NonlinearMode, the PE (pooling, the operation with the second
 * source, |.|, scale, bias, ReLU, the scales) and the result, one line each, indented by two
 * spaces. What the model refuses is named "(not modelled)".
 */
void td_print_op(const struct td_regs *r, unsigned bar_en, outf_fn out, void *ctx);
/* td_print_op for a TD that reads the program's kernel unit (ku: 0, or TD_OP_KU with bit s for
 * each kernel stream the firmware enables, fw/loader ldr_td_kunit_streams): its convolution's
 * kernels are the unit's OCG, scaled by the post-scale stream and biased by the bias stream per
 * output channel (engine/model/compute.c's load_channel_vectors), SparseFmt its mask-and-values
 * sparse weights (load_kernels_ku). */
#define TD_OP_KU 0x100u
void td_print_op_ku(const struct td_regs *r, unsigned bar_en, unsigned ku, outf_fn out, void *ctx);
/* td_print_op_ku with the TD's header: its BAR indices tell a tile source and the destination in
 * one BAR, where inspect marks what the model refuses of their places (td_tile_place_refusal);
 * td_print_op and td_print_op_ku take each slot as its own BAR. */
void td_print_op_hdr(const struct td_regs *r, const struct td_hdr *h, unsigned ku, outf_fn out, void *ctx);
/* td_print_op_hdr in a walk over a program's TDs in order: res holds the L2-resident tensors the
 * TDs before left (fw/td resident.c; zeroed before TD 0), with which the TD's read of one is
 * checked and described as the engine model reads it, and, where res->l2.w16 is given, what they
 * wrote to L2 memory (fw/td l2written.c: a read of a value none wrote is marked); the TD's own are
 * added after. */
struct td_residents;
void td_print_op_walk(const struct td_regs *r, const struct td_hdr *h, unsigned ku, struct td_residents *res,
		      outf_fn out, void *ctx);

/*
 * Row reductions into L2 memory (docs/engine-model.md, "Reductions into L2 memory"): the one
 * reading of softmax.bin's reductions (and Apple's softmax's), shared by the engine model and
 * td_print_op. A PE TD with Common.Cfg.TaskType 5 reduces each plane (g, c) of its input, H x W
 * values, to one value (PoolMode 2: the maximum; 3: the minimum; PoolMode 0: the sum, NLMode 1 its reciprocal;
 * then FinalScale), left in L2 memory at element (g, c, 0, 0) of its result (td_l2mem_of), or
 * written by the tile DMA at element (g, c, 0, 0) of its destination (Apple's reduce_sum, mean and
 * max over H and W); later TDs read it from there like any operand in L2 memory (softmax.bin TD 1 as
 * its second operand broadcast along W, TD 4 as its first). Only what those programs pin down is
 * read; anything else on such a TD is refused, naming the field (no.why != NULL).
 */
/* Why a reading (td_kept_of, td_l2mem_of) refuses a TD, and what it names: the first refusal. */
#define TD_KEPT_NO_REG 0xffffffffu
/* The class of a refusal (the model's fault reason): a field's value (unmodelled-field), a
 * combination of units or fields (unmodelled-combination), or weights the model cannot read
 * (unreadable-weights) where the registers and the ranges td_ranges gives decide it (a kernel
 * not inside its coefficient channel, CoeffBfrSize against a kernel unit's OCG) */
#define TD_RF_FIELD 0
#define TD_RF_COMBINATION 1
#define TD_RF_DATA 2
#define TD_RF_CAPACITY 3 /* beyond what the model holds (fw/td resident.c: its L2-resident tensors) */
struct td_refusal {
	const char *why;     /* static text, one line; NULL: modelled */
	uint8_t cls;         /* TD_RF_FIELD, TD_RF_COMBINATION, TD_RF_DATA or TD_RF_CAPACITY */
	uint32_t reg;        /* register address, or TD_KEPT_NO_REG */
	uint8_t lsb, width;  /* the field (width 32: the whole word) */
};
/* Records a refusal unless one is recorded already (cls: TD_RF_*; 0 and 1 as before). */
void td_refuse(struct td_refusal *r, int cls, uint32_t reg, unsigned lsb, unsigned width,
	       const char *why);
#define TD_REFUSE(r, comb, reg, F, why) td_refuse((r), (comb), (reg), F##_LSB, F##_W, (why))

/*
 * What the engine model refuses on a TD's registers alone and inspect marks (fw/td/refusal.c;
 * docs/engine-model.md, "The text and the model's refusals agree"): the one statement of each
 * condition and its text. Each records its first refusal, in the model's order, into no (unless
 * no holds one already); the model faults with it, inspect prints "(not modelled: <why>)".
 *  - td_pe_task_refusal: decode_stages's TaskType 2 with a second PE operand, or 3 without;
 *  - td_pe_scale_refusal: decode_stages's FinalScale other than 1, and Scale or Bias on a product;
 *  - td_pe_pool_refusal: pooling's, after the NE or with a second source;
 *  - td_pe_refusal: inspect's general PE line, the three in the model's order;
 *  - td_elementwise_window_refusal: a window on a TD the caller reads as elementwise;
 *  - td_channel_groups_refusal: ne_channel_groups's, NE.MACCfg.OpMode 2 or 3 outside Apple's forms;
 *  - td_unit_sum_refusal: ne_channel_groups's, the unit kernel's sum over channels (td_unit_sum)
 *    outside Apple's softmax's form;
 *  - td_accbias_shift_refusal: ne_kernel_mode's, NE.AccBias's shift;
 *  - td_unit_kernel_refusal: unit_kernel_shape's, any other unit kernel but 1 -> 1 or C -> C
 *    channel by channel, 1x1;
 *  - td_depthwise_refusal: depthwise's, GroupConvCfg.UnicastEn outside Apple's depthwise forms
 *    (the groups, Cin, UnicastCin 2's window, the kernel format, a bias with KernelFmt 1).
 */
void td_pe_task_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_scale_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_pool_refusal(const struct td_regs *r, struct td_refusal *no);
#define TD_PE_POOL_SIGN_WHY                                                                            \
	"a PE maximum or minimum pool over a window above 1 x 1 with a negative Planar.PreScale or "   \
	"BiasScale.Scale not modelled: scaling before the pool (max(x p) = p min x) or after it (p max " \
	"x) is not pinned, no H13 program pooling in the planar engine"
#define TD_PE_AVG_ORDER_WHY                                                                            \
	"a PE average pool with ReluEn over a window above 1 x 1, or with a Bias where a window reaches "  \
	"outside the input, not modelled: the ReLU or the Bias before the pool (avg relu(x); the Bias "   \
	"on the positions inside alone) or after it (relu(avg x); avg(x) + Bias) is not pinned, no H13 " \
	"program pooling in the planar engine"
void td_pe_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_pool_shape_refusal(const struct td_regs *r, unsigned win, unsigned hin, unsigned cin, unsigned cout,
			      struct td_refusal *no);
void td_elementwise_window_refusal(const struct td_regs *r, struct td_refusal *no);
void td_channel_groups_refusal(const struct td_regs *r, struct td_refusal *no);
void td_unit_sum_refusal(const struct td_regs *r, struct td_refusal *no);
void td_accbias_shift_refusal(const struct td_regs *r, struct td_refusal *no);
void td_unit_kernel_refusal(const struct td_regs *r, unsigned cin, unsigned cout, struct td_refusal *no);
/* the largest GroupConvCfg.UnicastCin of a depthwise convolution modelled (Apple's less: 2) */
#define TD_DW_UNICASTCIN_MAX 2u
#define TD_DW_GROUPCONV_TEXT                                                                          \
	"a convolution with kernels in memory and GroupConvCfg.UnicastEn (Apple's depthwise "         \
	"convolutions) other than NumGroups 1, UnicastCin 1 or 2, no ElemMultMode, kernels in "      \
	"coefficient channels, not modelled"
void td_depthwise_refusal(const struct td_regs *r, unsigned cin, unsigned cout, unsigned ku,
			  struct td_refusal *no);
/* Common.ConvCfg.Ox (fw/td/refusal.c): td_ox_refusal refuses any Ox but 1 and 2, and 2 outside
 * the form Apple's depthwise 1x9 pins (a depthwise convolution of plain fp16 kernels, Sx 2, Sy 1,
 * Kh 1, Kw 2 or more, no Py, the result kept in L2 memory alone) or with Ox x Wout over
 * TD_ROW_MAX; td_conv_ox is 2 in that form, else 1: the columns each output position computes
 * (the result Ox x Wout wide). td_dw_kel: a depthwise
 * kernel record's elements, its bias first: UnicastCin x Kh x Kw taps and a bias, or with Ox 2
 * the Ox biases, then Kh x (Kw + 1) positions of Ox weights */
void td_ox_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no);
unsigned td_conv_ox(const struct td_regs *r, unsigned bar_en);
uint64_t td_dw_kel(const struct td_regs *r, uint32_t cin);
struct td_ocg_lay;
void td_ocg_refusal(const struct td_ocg_lay *l, struct td_refusal *no);
/* load_kernels' phase-sparse refusals (SparseFmt in coefficient channels): kernels other than fp16,
 * records in a layout no program pins (l td_ocg_layout's, nout NumGroups x Cout) */
void td_pkern_refusal(const struct td_regs *r, const struct td_ocg_lay *l, uint64_t nout, uint64_t cout,
		      struct td_refusal *no);
/* load_kernels: one-byte kernels (KernelFmt 0 or 1, not phase-sparse) in runs of 2^OCGSize
 * outputs a channel (OCGSize above 0): no program pins where one-byte elements lie in a run */
void td_kernel_bytes_refusal(const struct td_regs *r, const struct td_ocg_lay *l, struct td_refusal *no);
/* convolution's: a second PE operand after a convolution with kernels in memory (not in L2 memory) */
void td_conv_second_source_refusal(const struct td_regs *r, struct td_refusal *no);
/* load_kernels': PalettizedEn with kernels in coefficient channels */
void td_palette_refusal(const struct td_regs *r, struct td_refusal *no);
/* kernel_cfg_read's NE.KernelCfg checks (align_ok: Align read; binary_ok: SparseBinary read), and
 * load_kernels' before the layout for kernels in coefficient channels (with td_palette_refusal) */
void td_kernel_cfg_refusal(const struct td_regs *r, int align_ok, int binary_ok, struct td_refusal *no);
void td_dense_kernels_refusal(const struct td_regs *r, struct td_refusal *no);
/* convolution's zero window, stride or input (resident_unknown: an L2-resident source whose Cin and
 * Win another TD gave, not checked), conv_biases_modelled's BiasMode and AccBias, pk_params's
 * phase-sparse record parameters, load_kernels' CoeffBfrSize against the layout (kel: a kernel's
 * elements, its bias first), load_kernels_ku's register checks (nout outputs of per weights) */
void td_conv_window_refusal(const struct td_regs *r, unsigned cin, unsigned win, int resident_unknown,
			    struct td_refusal *no);
void td_conv_biases_refusal(const struct td_regs *r, int ku, struct td_refusal *no);
void td_pk_params_refusal(const struct td_regs *r, unsigned g, unsigned cin, unsigned kh, unsigned kw,
			  unsigned bias, struct td_refusal *no);
void td_coeff_sizes_refusal(const struct td_regs *r, const struct td_ocg_lay *l, uint64_t nout, uint64_t kel,
			    const uint64_t len[H13_COEFF_NCH], struct td_refusal *no);
void td_coeff_lens(const struct td_regs *r, int ku, uint64_t len[H13_COEFF_NCH]);
int td_coeff_sized(const struct td_regs *r);
/* depthwise's: every dense kernel inside its lane (as td_kernels_inside_refusal), then no lane longer
 * than lane 0's kernels rounded up to 64 bytes (as td_coeff_sizes_refusal) */
void td_dw_lanes_inside_refusal(const struct td_regs *r, unsigned C, uint64_t kel, const uint64_t len[H13_COEFF_NCH],
				struct td_refusal *no);
void td_ku_kernels_refusal(const struct td_regs *r, uint64_t nout, uint64_t per, uint64_t len0, int stage,
			   struct td_refusal *no);
/* load_kernels': every dense kernel inside its coefficient channel (len: the channels' bytes, as
 * td_coeff_sizes_refusal's), an unreadable-weights refusal (TD_RF_DATA) */
void td_kernels_inside_refusal(const struct td_regs *r, const struct td_ocg_lay *l, uint64_t nout, uint64_t kel,
			       const uint64_t len[H13_COEFF_NCH], struct td_refusal *no);
/* the depthwise pad form's (SparseBinary) register checks over c channels: stage 0 no bias and at
 * most 16 channels, stage 1 (after the palettes' bytes) SmallSourceMode with a record of one mask
 * byte, TD_PF_SSM_LANES slots a tap */
#define TD_PF_SSM_LANES 2u
void td_pad_form_refusal(const struct td_regs *r, unsigned c, int stage, struct td_refusal *no);
/* decode_ne's, ne_kernel_mode's, decode_stages's and compute's own checks of a field that inspect
 * named in its own words and now marks with the model's text (fw/td/refusal.c): NE.MACCfg.OpMode,
 * NonlinearMode 3, NE.AccBias outside a convolution, every Planar word 0 with the PE in the path,
 * Planar.Cfg.Condition, NLMode, OpMode and SecSrc, FirstSrc, a result that leaves nowhere */
struct td_l2mem;
void td_ne_opmode_refusal(const struct td_regs *r, struct td_refusal *no);
void td_ne_nonlinear_refusal(const struct td_regs *r, struct td_refusal *no);
void td_ne_accbias_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_words_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_condition_refusal(const struct td_regs *r, struct td_refusal *no);
#define TD_PE_ABS_ORDER_WHY                                                                            \
	"Planar.Cfg.Condition 1 (|.|) with a second operand, a negative PreScale or Scale, a Bias, "    \
	"ReluEn or a pool window above 1 x 1 not modelled: where the |.| sits among the operation, "   \
	"PreScale, Bias, Scale, the ReLU and the pool is pinned only "                                  \
	"where every order gives one value (abs.bin, Apple's unary_abs: one operand, PreScale 1, Bias " \
	"0, Scale 1)"
void td_pe_nlmode_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_op_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_firstsrc_refusal(const struct td_regs *r, struct td_refusal *no);
#define TD_RESULT_NOWHERE_WHY                                                                          \
	"a TD whose result leaves nowhere (no destination written through WBase, the header not "      \
	"binding it; L2.ResultCfg.ResultType neither 3, L2-resident, nor 0, L2 memory) not modelled: " \
	"no real program has one, and whether the engine drops the result or writes it elsewhere "      \
	"(where a later TD reads what an earlier one left) is not measured"
void td_result_nowhere_refusal(const struct td_regs *r, unsigned bar_en, const struct td_l2mem *lm,
			       struct td_refusal *no);

/*
 * The tile DMA's refusals (fw/td/tiles.c), on the registers and the TD header alone:
 *  - td_result_dmafmt_refusal, td_src_fmt_refusal, td_dst_fmt_refusal, td_source_dmafmt_refusal:
 *    data_unread_fields's, in its order: L2.ResultCfg.DMAFmt with a one-byte destination format,
 *    TileDMASrc.Fmt and TileDMADst.Fmt words no real program holds on that tensor's format
 *    (fmt_known), L2.SourceCfg.DMAFmt with a one-byte source format;
 *  - td_tiles_overlap_refuse: the text of a destination over a tile source, other than element for
 *    element in the same place (tiles_apart, and in place where the model does not take it:
 *    td_in_place_reordered, a reduction, td_in_place_reads_others);
 *  - td_dst_self_overlap_refusal: a destination whose own rows, planes, depths or groups overlap,
 *    as the tile DMA writes it (transposed, interleaved);
 *  - td_tile_place_refusal: inspect's, the three above where the TD decides them: a tile source
 *    and the destination in the same BAR index (the TD header's; tiles in two BARs never overlap,
 *    the control path refuses aliased BARs).
 */
void td_result_dmafmt_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no);
void td_src_fmt_refusal(const struct td_regs *r, struct td_refusal *no);
void td_dst_fmt_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no);
void td_source_dmafmt_refusal(const struct td_regs *r, struct td_refusal *no);
/* A tile as the tile DMA walks it (TD_R_SRC0, TD_R_SRC1 or TD_R_DST; the registers' shape, the
 * destination's before any transposition or interleave): engine/model/compute.c's tile_geom */
struct td_tile_geom {
	unsigned fmt, elem;
	unsigned w, h, c, g, d;
	uint64_t row, plane, depth, group;
};
void td_tile_geom_of(const struct td_regs *r, unsigned kind, struct td_tile_geom *t);
/* Whether a tile's elements overlap one another (its strides). */
int td_tile_self_overlaps(const struct td_tile_geom *t);
/* A tile source at [sa, sa + sl) against the destination at [da, da + dl) (addresses in one space):
 * apart, the same tile in the same place (every element at the same bytes), or overlapping otherwise. */
enum { TD_TILES_APART, TD_TILES_SAME_PLACE, TD_TILES_OVERLAP };
int td_tiles_place(uint64_t sa, uint64_t sl, const struct td_tile_geom *s, uint64_t da, uint64_t dl,
		   const struct td_tile_geom *d);
void td_tiles_overlap_refuse(struct td_refusal *no);
struct td_kept;
struct td_l2mem;
/* A destination in a tile source's place is not taken element for element: written transposed,
 * or under another channel interleave than the source is read with. */
int td_in_place_reordered(const struct td_regs *r, unsigned bar_en, const struct td_l2mem *lm);
/* ... or its outputs read other elements: L2 memory, pooling, a convolution, the channel groups
 * (the NE other than elementwise or the unit kernel). */
int td_in_place_reads_others(const struct td_regs *r, const struct td_l2mem *lm);
void td_dst_self_overlap_refusal(const struct td_regs *r, unsigned bar_en, const struct td_l2mem *lm,
				 struct td_refusal *no);
/*
 * compute's channel-interleave checks (td_interleave_modelled and docs/engine-model.md, "Channel
 * interleave"), on each side in its order (the first source, the second, the destination as the
 * tile DMA writes it): an interleave other than 1, 2, 4 or 8; an L2 side (DMAInterleave) other
 * than its tile DMA's; above 1 on a side the tile DMA does not move or a reduction's or
 * L2-resident or L2-memory result; on a tile not fp16, of depth above 1, with channels not a
 * multiple of it or rows over TD_ROW_MAX values.
 */
#define TD_ROW_MAX 32768u /* the values a row (Win and Wout are 15-bit fields) */
void td_interleave_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k,
			   const struct td_l2mem *lm, struct td_refusal *no);
struct td_hdr;
void td_tile_place_refusal(const struct td_regs *r, const struct td_hdr *h, const struct td_kept *k,
			   const struct td_l2mem *lm, struct td_refusal *no);

/*
 * The fields the model reads no meaning from (fw/td/fields.c), each refused at any value no real
 * program holds; inspect marks the first on a "registers:" line:
 *  - td_fixed_refusal: a table of fields and their one value (td_fixed, the model's own tables),
 *    less the words skip names (TD_SKIP_*);
 *  - td_outside_init, td_outside_refusal: the bits outside every field fw/regmap names, in the
 *    words a TD may write (built once: the table of words and bits);
 *  - td_data_unread_refusal: data_unread_fields's, on every TD (L2.SourceCfg's dependencies, the
 *    tile and L2 DMA formats' unread fields, td_fixed, the formats, the bits outside, TileHeight,
 *    Src2Fmt, PaddingMode with padding, PixelOffset), in the model's order;
 *  - td_elemmult_refusal, td_ne_unread_refusal: decode_ne's, on a TD whose result leaves and on
 *    a reduction (ElemMultMode outside OpMode 2; the NE's unread fields, with MACCfg not 0).
 */
#define TD_SKIP_DEPTH 1u          /* Common.InDepth, OutDepth (a depth the caller checks) */
#define TD_SKIP_RESULT_DMAFMT 2u  /* L2.ResultCfg.DMAFmt (a one-byte output's: td_result_dmafmt_refusal) */
#define TD_SKIP_INTERLEAVE 4u     /* the tile DMAs' and L2's interleave fields (the model's interleave_side) */
#define TD_SKIP_OX 8u             /* Common.ConvCfg.Ox (td_ox_refusal) */
void td_fixed_refusal(const struct td_regs *r, const struct td_fixed *z, unsigned n, unsigned skip,
		      struct td_refusal *no);
struct td_outside {
	uint32_t addr, mask; /* a register word and the bits of it that must be 0 */
	uint8_t unnamed;     /* a word the map does not name (its mask: the bits no real program sets) */
};
#define TD_OUTSIDE_MAX 256u
/* Fills t (at most max words below window_bytes) from the H13 map; returns the count. */
unsigned td_outside_init(struct td_outside *t, unsigned max, uint32_t window_bytes);
void td_outside_refusal(const struct td_regs *r, const struct td_outside *t, unsigned n, struct td_refusal *no);
/* KernelDMASrc +0x00's bit 5 and NE.KernelCfg.SparseFmt on a convolution with kernels in memory:
 * both or neither (td_data_unread_refusal, the model's pk_params) */
#define TD_PK_BIT5_TEXT                                                                                \
	"KernelDMASrc +0x00 bit 5 without NE.KernelCfg.SparseFmt, or SparseFmt without it on a "      \
	"convolution's coefficient channels, not modelled (every real program sets both or neither)"
void td_data_unread_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k, const struct td_l2mem *lm,
			    const struct td_outside *t, unsigned nt, struct td_refusal *no);
void td_elemmult_refusal(const struct td_regs *r, struct td_refusal *no);
void td_ne_unread_refusal(const struct td_regs *r, struct td_refusal *no);
/*
 * More refusals on the registers and header alone (fw/td/checks.c), the model's compute,
 * decode_stages and reduction_checks: td_tasktype_refusal, td_out_transpose_refusal,
 * td_sizes_refusal (the output's format and size, the sources' format), td_pe_ene_refusal (TaskType
 * against the header's ENE; reduction 1: any PE words), td_pe_cfg_bits_refusal,
 * td_pe_prescale_bits_refusal, td_pe_nan_refusal, td_src2relu_refusal (reduction 0: with no
 * second operand; 1: on a reduction), td_resident_refusal (the L2-resident tensors' formats and places); and
 * td_registers_refusal, inspect's "registers:" line: these and td_data_unread_refusal,
 * td_elemmult_refusal, td_ne_unread_refusal in the model's order, each where the model checks it
 * (the NE's and the PE's on a TD whose result leaves, or a reduction's).
 */
void td_tasktype_refusal(const struct td_regs *r, struct td_refusal *no);
void td_out_transpose_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k,
			      const struct td_l2mem *lm, struct td_refusal *no);
void td_sizes_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no);
void td_pe_ene_refusal(const struct td_regs *r, unsigned ene, int reduction, struct td_refusal *no);
void td_pe_cfg_bits_refusal(const struct td_regs *r, struct td_refusal *no);
void td_pe_prescale_bits_refusal(const struct td_regs *r, struct td_refusal *no);
/* decode_stages, the PE in the path: a NaN Planar.PreScale, BiasScale.Scale or BiasScale.Bias */
void td_pe_nan_refusal(const struct td_regs *r, struct td_refusal *no);
void td_src2relu_refusal(const struct td_regs *r, int reduction, struct td_refusal *no);
void td_resident_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no);
/* compute_td's window_covers (a convolution's or pooling's output window outside its input) and
 * decode_stages's neither unit in the path */
void td_window_covers_refusal(const struct td_regs *r, struct td_refusal *no);
void td_no_unit_refusal(const struct td_regs *r, struct td_refusal *no);
void td_registers_refusal(const struct td_regs *r, const struct td_hdr *h, const struct td_kept *k,
			  const struct td_l2mem *lm, const struct td_outside *t, unsigned nt,
			  struct td_refusal *no);
/* td_registers_refusal with the shape of the L2-resident tensor an L2-resident source reads
 * (td_resident_source; NULL: a tile source, or not known), which elementwise_sources checks */
struct td_dims;
void td_registers_refusal_res(const struct td_regs *r, const struct td_hdr *h, const struct td_kept *k,
			      const struct td_l2mem *lm, const struct td_dims *resident, const struct td_outside *t,
			      unsigned nt, struct td_refusal *no);
/*
 * The model's paths' refusals on the registers and header alone (fw/td/paths.c), which
 * td_registers_refusal carries in the model's order; their tiles: the tiles the TD has (bit i for
 * enum h13_bar_slot i: the ranges the model holds, or td_tiles_there of the header's bar_en):
 *  - td_elementwise_path: whether compute_td computes the TD by its elementwise path (no L2
 *    memory, no pooling, the NE absent, a pass-through, an elementwise pass or the unit kernel but
 *    its sum over channels), where elementwise_sources checks it;
 *  - td_elementwise_sources_refusal: elementwise_sources's after the window and the first source:
 *    a second operand with no second tile source, a broadcast, another output shape, a one-byte
 *    first operand beside a second (resident: an L2-resident source's shape, NULL when the first
 *    source is a tile or that shape is not known);
 *  - td_depth_refusal: at_depths's, a depth on a TD not elementwise by the tile DMA;
 *  - td_out_transposed: compute's otr, a result the tile DMA writes with C and W swapped.
 */
unsigned td_tiles_there(const struct td_regs *r, unsigned bar_en);
struct td_dims {
	unsigned w, h, c, g;
};
int td_elementwise_path(const struct td_regs *r, const struct td_l2mem *lm);
void td_elementwise_sources_refusal(const struct td_regs *r, unsigned tiles, const struct td_dims *resident,
				    struct td_refusal *no);
void td_depth_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm, struct td_refusal *no);
int td_out_transposed(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm);
/* The L2 paths (lm->any): td_l2_path, which of them compute_td takes (0: none, or the channel
 * groups'); td_conv_l2_refusal, conv_l2's (stage 0 first, with no first source; stage 1 after its
 * data checks);
 * td_l2mem_ew_refusal, l2mem_elementwise's (stage 0 first, stage 1 after the rows kept and read;
 * own_lines: inspect, whose NE and window lines carry the unit kernel's shape and the window) */
#define TD_L2_PATH_CONV 1
#define TD_L2_PATH_EW 2
int td_l2_path(const struct td_regs *r, const struct td_l2mem *lm);
/* the first source's presence, where compute_td and ne_channel_groups check it (with their texts) */
void td_first_source_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm,
			     struct td_refusal *no);
/* inspect's source line of a TD with no first source (none in L2 memory, none L2-resident, no tile
 * source there): the model's text for it on the path the TD takes (a reduction's, td_kept_of's;
 * the L2 paths' and the channel groups'; compute_td's), where the model checks it (a reduction, or
 * a result that leaves); nothing elsewhere */
extern const char td_kept_no_source_why[];
void td_no_first_source_refusal(const struct td_regs *r, unsigned bar_en, const struct td_kept *k,
				const struct td_l2mem *lm, struct td_refusal *no);
void td_conv_l2_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm, int stage,
			struct td_refusal *no);

/*
 * The L2-resident tensors (L2.ResultCfg.ResultType 3) a submission's TDs leave, by base, as the
 * engine model holds them (fw/td/resident.c); the model keeps their values beside, inspect's walks
 * carry the table from TD to TD (td_print_op_walk):
 *  - td_resident_find: the tensor left at base (the Addr field as written), NULL if none;
 *  - td_resident_slot: the slot a result at base takes (its own, else the first free), -1 when
 *    every slot holds another;
 *  - td_resident_result_refusal: l2_result's, more tensors than the model holds, one larger than
 *    TD_L2_TENSOR_MAX;
 *  - td_resident_source_refusal: compute's, an L2-resident source whose base no TD left, or a
 *    tensor smaller or larger than the TD's input (Cin, InDim, NumGroups);
 *  - td_resident_source: the tensor an L2-resident source reads where that refusal records
 *    nothing (s NULL, or no such source: NULL); its shape is then the TD's input;
 *  - td_resident_leave: the tensor a TD with an L2-resident result leaves (not a reduction's), its
 *    shape NumGroups x Cout x Hout x Wout: its slot, -1 when it leaves none.
 */
#define TD_RESIDENT_MAX 4u
/*
 * What a submission's TDs wrote to L2 memory (fw/td/l2written.c), the one rule of the model's
 * refusal of a read of a value no TD wrote: w16 a bit per fp16 value (TD_L2BITS_W16_BYTES), w8 a
 * bit per byte kept as a one-byte element (TD_L2BITS_W8_BYTES; NULL: none). An fp16 write clears
 * its two bytes' w8 bits, a byte's write its cell's w16 bit.
 *  - td_l2bits_row_unwritten: the byte address of the first value of row (g, c, h), w values of
 *    view v (its elem's map), no TD wrote; -1 if every one was written;
 *  - td_l2bits_row_write16, td_l2bits_row_write8 (w8 allocated): a row written;
 *  - td_l2written_walk: one TD as the model's paths read and write L2 memory (the rows kept as
 *    read, SourceType 1, then its reads, then its result), for inspect's walks: the model's
 *    refusal of the first read of a value no TD before wrote into no (at: its byte address), and
 *    the TD's writes into b. Nothing where b or b->w16 is NULL, or the TD's reading is refused.
 *    A walk of more than TD_L2_WALK_MAX values in a TD (a value a row along a broadcast W) stops
 *    there and sets b->lost: what the TDs after read is not followed (returns 1 on that TD).
 */
#define TD_L2BITS_W16_BYTES (H13_L2_BYTES / 16u)
#define TD_L2BITS_W8_BYTES (H13_L2_BYTES / 8u)
#define TD_L2_WALK_MAX (1u << 24)
struct td_l2bits {
	uint8_t *w16, *w8;
	uint8_t lost; /* a walk past TD_L2_WALK_MAX: not followed from there */
};
struct td_l2view;
long td_l2bits_row_unwritten(const struct td_l2bits *b, const struct td_l2view *v, uint32_t g, uint32_t c,
			     uint32_t h, uint32_t w);
void td_l2bits_row_write16(struct td_l2bits *b, const struct td_l2view *v, uint32_t g, uint32_t c, uint32_t h,
			   uint32_t w);
void td_l2bits_row_write8(struct td_l2bits *b, const struct td_l2view *v, uint32_t g, uint32_t c, uint32_t h,
			  uint32_t w);
int td_l2written_walk(const struct td_regs *r, unsigned bar_en, struct td_l2bits *b, struct td_refusal *no,
		      long *at);
struct td_residents {
	struct td_resident {
		uint8_t on;
		uint32_t base;
		struct td_dims d;
	} t[TD_RESIDENT_MAX];
	struct td_l2bits l2; /* inspect's walks: what the TDs before wrote to L2 memory (w16 NULL:
			      * not followed) */
};
/* A walk's table from its first TD (td_print_op_walk): nothing resident, nothing written to L2
 * memory, the bits allocated (without room, L2 memory is not followed: l2.w16 NULL); and its end
 * (the bits freed). */
void td_residents_begin(struct td_residents *res);
void td_residents_end(struct td_residents *res);
const struct td_dims *td_resident_find(const struct td_residents *s, uint32_t base);
int td_resident_slot(const struct td_residents *s, uint32_t base);
void td_resident_result_refusal(const struct td_regs *r, const struct td_residents *s, struct td_refusal *no);
void td_resident_source_refusal(const struct td_regs *r, const struct td_residents *s, struct td_refusal *no);
const struct td_dims *td_resident_source(const struct td_regs *r, const struct td_residents *s);
int td_resident_leave(const struct td_regs *r, unsigned bar_en, struct td_residents *s);
void td_l2mem_ew_refusal(const struct td_regs *r, unsigned tiles, const struct td_l2mem *lm, int stage,
			 int own_lines, struct td_refusal *no);

enum td_kept_role { TD_KEPT_NO, TD_KEPT_MAKES };
enum td_kept_kind { TD_KEPT_NONE, TD_KEPT_MAX, TD_KEPT_RSUM, TD_KEPT_SUM, TD_KEPT_RSQRT, TD_KEPT_MIN };
const char *td_kept_kind_name(unsigned kind); /* "max", "min", "1/sum", "sum", "1/sqrt(...)", "nothing" */
struct td_kept {
	uint8_t role;        /* enum td_kept_role: MAKES, a reduction */
	uint8_t kind;        /* what it leaves a plane (enum td_kept_kind; RSQRT: 1/sqrt(sum x
			      * FinalScale + eps), Planar.Cfg.NLMode 2) */
	uint8_t square;      /* Planar.Cfg.OpMode 4: each element squared before the sum */
	uint8_t abs;         /* Planar.Cfg.Condition 1 (|.|, as on elementwise TDs) on the maximum:
			      * each element's magnitude before it (Apple's H13 rms_norm chain, whose
			      * MIL is abs then reduce_max, fuses the two so) */
	uint8_t two;         /* Common.Cfg.TaskType 6: each element (b - a), a the first operand (from
			      * L2 memory, broadcast as Src1Broadcast says), b the second */
	uint8_t product;     /* with two: Planar.Cfg.OpMode 1, each element a x b instead (summed) */
	uint16_t eps;        /* fp16, Planar.PreScale's low half: RSQRT's, or added to a sum after its
			      * FinalScale (Apple's H13 rms_norm chain: mean of squares + eps) */
	uint32_t rows, h, w; /* planes reduced (NumGroups x Cin), each of h rows (Hin) of w (Win) values */
	uint32_t d;          /* ... at each of d depths (InDepth; td_depth): a plane is d x h rows */
	uint8_t out_transpose; /* Common.PECfg.OutputTranspose: plane (g, c)'s value at (g, 0, 0, c) */
	struct td_refusal no; /* why the reading refuses the TD (no.why NULL: modelled) */
};
/* bar_en: the TD header's bound BAR slots (bit i: enum h13_bar_slot i); a tile source or the
 * destination counts as there when its slot is bound and its DMA enabled (as td_ranges). */
void td_kept_of(const struct td_regs *r, unsigned bar_en, struct td_kept *k);

/*
 * L2 memory (docs/engine-model.md, "L2 memory and broadcasts"): the engine's L2 as Apple's macOS 26
 * H13 programs address it, 2 MiB of bytes (H13_L2_BYTES) in which a tensor's element (g, c, h, w)
 * lies at base + g GroupStride + c ChannelStride + h RowStride + 2 w (fp16; bases and strides in
 * 16-byte units). A TD reads its first operand there (L2.SourceCfg.SourceType 0), or takes it by
 * tile DMA and keeps it there too (SourceType 1); reads its second there when it comes by no tile
 * DMA (SecSrc 2 or 3 with SourceCfg.Src2DMA 0); and leaves its result there (ResultType 0 with no
 * tile destination). An operand read from L2 may be broadcast along W, H, C (Common.PECfg's
 * Src1Broadcast, Src2Broadcast: element 0 of that axis for every index), and a tensor may be
 * kept with C and W swapped (Common.Cfg.OutTranspose when written, any shape; PECfg's
 * Src1Transpose or Src2Transpose when read, [C,1,1] only: element c at base + 2c, one row). A row reduction (td_kept_of) reads its rows
 * from L2 memory or the tile DMA and leaves one value a row there. What the reading does not pin
 * down is refused, naming the field (no.why != NULL).
 */
struct td_l2view {
	uint8_t on;              /* the operand or result is in L2 memory */
	uint8_t bcast;           /* H13_BCAST_* axes read at index 0 */
	uint8_t transpose;       /* C and W swapped (td_l2view_addr): a [C,1,1] tensor as one row */
	uint8_t elem;            /* bytes an element: 2 (fp16), or 1 for a first operand whose
				  * Common.ChCfg.InFmt is one byte (Apple's H13 select keeps its bool so) */
	uint32_t base;           /* bytes */
	uint32_t cs, rs, ds, gs; /* channel, row, depth and group strides, bytes */
	uint32_t g, c, d, h, w;  /* what lies in L2 (1 along a broadcast axis; d: a reduction's depth,
				  * 1 elsewhere) */
};
enum td_pair { TD_PAIR_NONE, TD_PAIR_SUB, TD_PAIR_ADD };
struct td_l2mem {
	uint8_t any;             /* the TD reads or writes L2 memory */
	uint8_t keep1;           /* the first operand comes by tile DMA and is kept at src1 (SourceType 1) */
	uint8_t inplace;         /* bit 0 (1): the result is written over the first operand, element
				  * for element; bit 1 (2): over the second (Apple's macOS GPT-2 gelu,
				  * TD 2); any other overlap is refused */
	uint8_t pair;            /* Common.Cfg.TaskType 4, a normalize: (a - p0) x p1 (TD_PAIR_SUB) or
				  * (a + p0) x p1 (TD_PAIR_ADD), p0 src2's element (g, c, 0, 0), p1 the
				  * value src2.rs bytes after it (td_l2mem_of); 0: not a normalize */
	struct td_l2view src1, src2, res;
	struct td_refusal no;    /* why the reading refuses the TD (no.why NULL: modelled) */
};
/* bar_en as td_kept_of's; k: td_kept_of's. */
void td_l2mem_of(const struct td_regs *r, unsigned bar_en, const struct td_kept *k, struct td_l2mem *l);
/* The byte address of element (g, c, h, w) of the tensor a view reads or writes (the broadcast
 * axes at index 0); the view's extent lies inside H13_L2_BYTES (td_l2mem_of checks). */
uint32_t td_l2view_addr(const struct td_l2view *v, uint32_t g, uint32_t c, uint32_t h, uint32_t w);
/* The view of depth d's elements (d below v->d; the same view along a broadcast depth). */
struct td_l2view td_l2view_at_depth(const struct td_l2view *v, uint32_t d);
/* [lo, hi): the bytes the view's elements span. */
void td_l2view_span(const struct td_l2view *v, uint64_t *lo, uint64_t *hi);
/*
 * The axes (H13_BCAST_W, _H, _D, _C) along which the engine reads its first tile source (RBase0)
 * at index 0 only: a first operand taken by the tile DMA and kept in L2 memory as it is read
 * (SourceType 1, td_l2mem_of's keep1) whose view is broadcast along them (Common.PECfg's
 * Src1Broadcast: Apple's tile, [1,8,1,375] to [1,8,375,375], binds its input as 6144 bytes, one
 * row of 375 a plane). The engine model keeps only the view's elements (compute.c l2m_keep_rows:
 * g < view g, c < view c, h < view h, view w values a row, 1 along each broadcast axis), then reads
 * them back from L2, so td_ranges' src0 range covers index 0 along these axes alone. 0 (every
 * row read) on a TD whose reading refuses it (td_kept_of, td_l2mem_of), on a reduction (its rows
 * are each read by the tile DMA) and with channel interleave (compute.c interleaved_source reads
 * the whole tile). bar_en as td_kept_of's. The one home of the predicate: td_ranges, and through
 * its range's bcast the control path's coverage and fw/tensors' layout, take it from here.
 */
unsigned td_src0_bcast(const struct td_regs *r, unsigned bar_en);
/* The extent of a tile range read at index 0 along bcast's axes (td_range.bcast): 1 along each of
 * W, H, D and C there; the one place the ranges, the control path's coverage and fw/tensors' layout
 * take the broadcast from. */
static inline void td_bcast_dims(unsigned bcast, uint64_t *w, uint64_t *h, uint64_t *d, uint64_t *c)
{
	if (bcast & H13_BCAST_W)
		*w = 1;
	if (bcast & H13_BCAST_H)
		*h = 1;
	if (bcast & H13_BCAST_D)
		*d = 1;
	if (bcast & H13_BCAST_C)
		*c = 1;
}

/* The window of Common.ConvCfg: kernel (or pooling window) size, strides, leading padding. */
struct td_window {
	unsigned kw, kh, sx, sy, px, py;
};
static inline struct td_window td_window_of(uint32_t convcfg)
{
	struct td_window w = {H13_GET(convcfg, H13_CONVCFG_KW), H13_GET(convcfg, H13_CONVCFG_KH),
			      H13_GET(convcfg, H13_CONVCFG_SX), H13_GET(convcfg, H13_CONVCFG_SY),
			      H13_GET(convcfg, H13_CONVCFG_PX), H13_GET(convcfg, H13_CONVCFG_PY)};
	return w;
}
/* Common.ConvCfg of a 1x1 window, stride 1, no padding, with the fixed fields: every real TD's
 * (the builders write it where a TD is neither a convolution nor a pooling) */
#define TD_CONVCFG_UNIT                                                                           \
	(td_fixed_bits(H13_COMMON_CONVCFG) | H13_PUT(H13_CONVCFG_KW, 1u) | H13_PUT(H13_CONVCFG_KH, 1u) | \
	 H13_PUT(H13_CONVCFG_SX, 1u) | H13_PUT(H13_CONVCFG_SY, 1u))
/* The unit kernel's (MACCfg.KernelMode 1: no kernel in memory) channels: 1 -> 1 (inv.bin), or
 * C -> C channel by channel, each output channel from UnicastCin 1 input channel (GroupConvCfg
 * UnicastEn 1, UnicastCin 1: Apple's rsqrt over 64 channels; the elementwise NE of its
 * reductions over C has them too; UnicastCin 2 with ElemMultMode is the channel products of its
 * pow) */
static inline int td_unit_channels_ok(unsigned cin, unsigned cout, uint32_t groupconvcfg)
{
	return (cin == 1 && cout == 1) ||
	       (cin == cout && H13_GET(groupconvcfg, H13_GROUPCONV_UNICASTEN) &&
		H13_GET(groupconvcfg, H13_GROUPCONV_UNICASTCIN) == 1u);
}
/* The unit kernel over Cin -> 1 channel without UnicastEn: the sum of the Cin input channels, a
 * 1x1 convolution whose every weight is 1 (Apple's H13 softmax over C and over H, TD 3: 64 -> 1
 * and 8 -> 1; engine/model/compute.c ne_channel_groups). Cout above 1 so is not modelled. */
static inline int td_unit_sum(unsigned cin, unsigned cout, uint32_t groupconvcfg)
{
	return cin >= 2 && cout == 1 && !H13_GET(groupconvcfg, H13_GROUPCONV_UNICASTEN);
}
/* 1x1, stride 1, no padding: the window of every TD that is not a convolution or a pooling */
static inline int td_window_unit(const struct td_window *w)
{
	return w->kw == 1 && w->kh == 1 && w->sx == 1 && w->sy == 1 && !w->px && !w->py;
}

/*
 * The planar engine in a TD's path: Common.Cfg.TaskType other than 0 (docs/engine-model.md, "The
 * planar engine's presence"). In the 453 TDs of the fixtures and the GPT-2 streams transcribed
 * from allbilly/ane, TaskType 0 goes with every Planar word 0 and every other TaskType with some
 * set; on an M1 (allbilly/ane experimental/expt.md, expt1 and expt2) relu's TD, TaskType 0, gave
 * relu unchanged with PECfg, BiasScale, PreScale or FinalScale written: its Planar words are not
 * read. The one reading of it (the model, td_kept_of, td_l2mem_of and inspect alike).
 */
static inline int td_pe_in_path(uint32_t common_cfg)
{
	return H13_GET(common_cfg, H13_CFG_TASKTYPE) != 0u;
}

/*
 * The tile destination writes the TD's result through WBase exactly when the TD header binds
 * WBase (bar_en, the header's), TileDMADst.DMAConfig.En set or clear. On an M1 (allbilly/ane
 * experimental/expt.md, expt2) relu's TD with DMAConfig 0x040000c1 made 0x040000c0 or 0x040000c2
 * (En clear) left relu(x) in a fresh output buffer as with En set; Apple's compiler binds WBase
 * with En clear on TDs that keep their result in L2 memory (docs/engine-model.md, "The
 * destination DMA's En with WBase bound"), whose result is then kept there and written through
 * WBase both. With WBase unbound nothing leaves through the tile DMA, whatever En says (sigmoid.bin
 * TD 0, softmax.bin's L2 TDs). The one home of the reading: td_ranges (so the control path
 * counts, grants and covers the range as any write), td_kept_of, td_l2mem_of, inspect's result
 * line and the engine model's destination checks take it from here.
 */
static inline int td_dst_writes(unsigned bar_en)
{
	return (bar_en >> H13_BAR_WBASE) & 1u;
}

/* The same write with TileDMADst.DMAConfig.En clear (expt2's form; Apple's staging TDs). */
static inline int td_dst_writes_en_clear(uint32_t dst_dmaconfig, unsigned bar_en)
{
	return td_dst_writes(bar_en) && !H13_GET(dst_dmaconfig, H13_DMA_EN);
}

/* The destination DMA's format and sign words are read: its En set, or WBase bound with En clear
 * (td_dst_writes) */
static inline int td_dst_dma_on(uint32_t dst_dmaconfig, unsigned bar_en)
{
	return H13_GET(dst_dmaconfig, H13_DMA_EN) || td_dst_writes(bar_en);
}

/* A second PE operand: Planar.Cfg.SecSrc 2 (added or multiplied) or 3 (subtracted). */
static inline int td_pe_two_operands(uint32_t planar_cfg)
{
	const unsigned sec = H13_GET(planar_cfg, H13_PECFG_SECSRC);
	return sec == H13_PE_SECSRC_TILE1 || sec == H13_PE_SECSRC_SUB;
}

/* The TaskType Apple's compilers write for an elementwise PE TD with this Planar.Cfg: 3 with a
 * second operand, 2 with one (every real TD; the model refuses the other pairing). */
static inline unsigned td_pe_task(uint32_t planar_cfg)
{
	return td_pe_two_operands(planar_cfg) ? H13_TASK_PE_TWO : H13_TASK_PE_ONE;
}

/* Planar.Cfg.FirstSrc 1 on a product of two operands (OpMode 1, SecSrc 2): the first operand
 * negated, -(a x PreScale) x b (the macOS compiler's GPT-2 gelu backward, TD 4: its MIL's
 * t x t x (-1), with no -1 in any word; docs/engine-model.md). The one FirstSrc an elementwise TD
 * is read with (the model and inspect alike); a reduction's is td_kept_of's. */
static inline int td_pe_first_negated(uint32_t planar_cfg)
{
	return H13_GET(planar_cfg, H13_PECFG_FIRSTSRC) == 1u &&
	       H13_GET(planar_cfg, H13_PECFG_OPMODE) == H13_PE_OP_MUL &&
	       H13_GET(planar_cfg, H13_PECFG_SECSRC) == H13_PE_SECSRC_TILE1;
}

/*
 * The NE as a pass-through (docs/engine-model.md, "NE pass-through"): MACCfg set but with
 * OpMode 0 (convolution) and none of its modelled fields (KernelMode, BiasMode, BinaryPoint,
 * PostScaleMode, NonlinearMode), PostScale 0, and no coefficient channel enabled: with no kernel
 * there is nothing to convolve, and the TD's input goes on to the PE unchanged. The macOS 14 and
 * 26 compilers emit a*b so (MACCfg 0x100000, KernelCfg 0x80, PE multiply by the second source;
 * allbilly/ane experimental/mul14_from_hwx.py, mul26_from_hwx.py). coeff_enabled: the number of
 * KernelDMASrc.CoeffDMAConfig[n] with En set.
 */
/* How many of a TD's coefficient channels (KernelDMASrc.CoeffDMAConfig[n]) have En set. */
unsigned td_coeff_enabled(const struct td_regs *r);
static inline int td_ne_passthrough(uint32_t maccfg, uint32_t postscale, unsigned coeff_enabled)
{
	const uint32_t fields = H13_PUT(H13_MACCFG_OPMODE, ~0u) | H13_PUT(H13_MACCFG_KERNELMODE, ~0u) |
				H13_PUT(H13_MACCFG_BIASMODE, ~0u) | H13_PUT(H13_MACCFG_BINARYPOINT, ~0u) |
				H13_PUT(H13_MACCFG_POSTSCALEMODE, ~0u) |
				H13_PUT(H13_MACCFG_NONLINEARMODE, ~0u);
	return maccfg != 0 && (maccfg & fields) == 0 && postscale == 0 && coeff_enabled == 0;
}

/*
 * Where the activation LUT's record (128 bytes, docs/actlut.md) of a TD that selects it
 * (NE.MACCfg.NonlinearMode 2) lies among its coefficient channels, n of them enabled, len[i]
 * bytes each (a kernel-unit stream aside, resolved first):
 *   TD_LUT_CHANNEL  a channel of exactly one record, *ch its index: every elementwise LUT TD
 *                   (tanh.bin, sigmoid.hwx, Apple's unary programs and select's 8 channels);
 *   TD_LUT_HEADS    conv (a convolution reading its kernels from memory: MACCfg.OpMode 0,
 *                   KernelMode 0, not a pass-through) whose every channel is longer than a
 *                   record: the record at each channel's head, that channel's kernels right
 *                   after it. Apple's H13 matmul with a fused gelu (mil-hwx-compiler
 *                   chain_pair_mm_gelu_d256_s64: 16 channels of 0x2080 bytes, the gelu record
 *                   then 16 outputs x 256 fp16 weights; chain_resffn_d256_s64 the same) and its
 *                   less (less_bool_cast_1x375: one 0xc0-byte channel, a step record then 64
 *                   kernel bytes) lay them out so; the model requires the heads to be equal;
 *   TD_LUT_MIXED    not conv, a channel of exactly one record beside a channel of another
 *                   length, *ch the first such channel: refused (TD_LUT_MIXED_WHY). Every real
 *                   elementwise LUT TD has channels of one record each (copies where several);
 *                   a longer channel may begin with another record, and which one the engine
 *                   reads no program pins (docs/actlut.md, "Where the records are");
 *   TD_LUT_NONE     neither (refused where the record is needed).
 */
enum td_lut_place { TD_LUT_NONE, TD_LUT_CHANNEL, TD_LUT_HEADS, TD_LUT_MIXED };
#define TD_LUT_MIXED_WHY                                                                                   \
	"a coefficient channel of another length beside a channel of one activation record on a TD "      \
	"that reads no kernels (which record the engine reads is not pinned: every real elementwise LUT " \
	"TD has channels of one record each)"
static inline enum td_lut_place td_lut_place(const uint64_t *len, unsigned n, int conv, unsigned *ch)
{
	for (unsigned i = 0; i < n; i++)
		if (len[i] == ACTLUT_STRIDE) {
			*ch = i;
			for (unsigned k = 0; k < n && !conv; k++)
				if (len[k] != ACTLUT_STRIDE) {
					*ch = k;
					return TD_LUT_MIXED;
				}
			return TD_LUT_CHANNEL;
		}
	for (unsigned i = 0; i < n; i++)
		if (len[i] <= ACTLUT_STRIDE)
			return TD_LUT_NONE;
	return conv && n ? TD_LUT_HEADS : TD_LUT_NONE;
}
/* Whether a TD's NE convolves with kernels read from memory (for td_lut_place). */
static inline int td_conv_from_memory(uint32_t maccfg, uint32_t postscale, unsigned coeff_enabled)
{
	return H13_GET(maccfg, H13_MACCFG_OPMODE) == H13_MAC_OP_CONV &&
	       H13_GET(maccfg, H13_MACCFG_KERNELMODE) == 0 && !td_ne_passthrough(maccfg, postscale, coeff_enabled);
}
/* td_lut_place over a TD's registers, as resolve_act asks it (ku: the TD reads the program's kernel
 * unit), TD_LUT_NONE where NonlinearMode does not select the LUT (fw/td/refusal.c) */
enum td_lut_place td_lut_place_of(const struct td_regs *r, int ku);
/* TD_LUT_HEADS before phase-sparse kernels (NE.KernelCfg.SparseFmt): refused (fw/td/refusal.c) */
#define TD_LUT_HEADS_SPARSE_WHY                                                                          \
	"an activation record at each coefficient channel's head before phase-sparse kernels "          \
	"(NE.KernelCfg.SparseFmt) not modelled: every real convolution with its record at the "        \
	"channels' heads has dense kernels (Apple's matmuls with a fused gelu or silu, its less), and " \
	"where phase-sparse records start behind one no program shows"
/* TD_LUT_HEADS before a depthwise convolution's lanes of other than KernelFmt 1 bytes (the less's),
 * and before dense kernels in OCGSize-0 blocks: refused (fw/td/refusal.c) */
#define TD_LUT_HEADS_DW_WHY                                                                             \
	"an activation record at each coefficient channel's head before depthwise lanes of other "     \
	"than KernelFmt 1 bytes not modelled: Apple's less (KernelFmt 1, UnicastCin 2) is the one "    \
	"depthwise convolution with its record at the channels' heads"
#define TD_LUT_HEADS_OCG0_WHY                                                                           \
	"an activation record at each coefficient channel's head before dense kernels in OCGSize 0 "   \
	"blocks not modelled: every real convolution with its record at the channels' heads holds its " \
	"kernels in OCGSize runs (Apple's matmuls with a fused gelu or silu, OCGSize 4 and 5) or is "  \
	"Apple's less (depthwise)"
void td_lut_heads_refusal(const struct td_regs *r, enum td_lut_place place, struct td_refusal *no);
/* a convolution from memory whose record is a channel of exactly one (TD_LUT_CHANNEL): no kernel
 * there (fw/td/refusal.c; the model's kernel_not_the_record) */
#define TD_CONV_RECORD_WHY                                                                         \
	"a convolution reading its kernel (MACCfg.KernelMode 0) from the coefficient channel that " \
	"holds the activation LUT's record: no kernel is there"
void td_conv_record_channel_refusal(const struct td_regs *r, int ku, struct td_refusal *no);
/* Whether the NE reads a convolution's kernels from memory as the engine model runs the TD: the
 * NE in the path (MACCfg not 0: engine/model/compute.c's decode_ne) and td_conv_from_memory. A
 * unit kernel (KernelMode 1) and a pass-through read none. td_footprint counts kernel memory
 * only for these. */
static inline int td_ne_reads_kernels(uint32_t maccfg, uint32_t postscale, unsigned coeff_enabled)
{
	return maccfg != 0 && td_conv_from_memory(maccfg, postscale, coeff_enabled);
}
/* The input channels one output's kernel spans (its taps are this x Kh x Kw): Common.Cin, or with
 * GroupConvCfg.UnicastEn (Apple's depthwise convolutions, which the model runs each output from
 * its own UnicastCin input channels: compute.c's depthwise; 2 in Apple's less) GroupConvCfg.
 * UnicastCin, 0 read as 1. */
static inline uint32_t td_kernel_cin(uint32_t groupconvcfg, uint32_t cin)
{
	if (!H13_GET(groupconvcfg, H13_GROUPCONV_UNICASTEN))
		return cin;
	const uint32_t n = H13_GET(groupconvcfg, H13_GROUPCONV_UNICASTCIN);
	return n ? n : 1u;
}

/*
 * Where a convolution's kernels sit in the 16 coefficient channels (docs/engine-model.md, "Kernel
 * layout"). Each output's kernel is kel elements of KernelFmt: with NE.MACCfg.BiasMode its bias
 * first (element 0), then its Cin x Kh x Kw taps in (ci, ky, kx) order. Common.ConvCfg.OCGSize k:
 * the outputs go in passes of 16 x g (g = 2^k), and in each pass coefficient channel c holds the g
 * consecutive outputs [c g, c g + g) of the pass, input-major: element j of the pass's lane l at
 * element j x g + l of the pass's block, a channel's blocks back to back with no padding between
 * them (tinygrad's gemm.hwx: OCGSize 5, one pass of 512 outputs; the macOS compiler's linears:
 * OCGSize 3, 8 outputs a channel; Apple's Whisper projections: runs of 16, six passes of 256;
 * Apple's H13 convolutions with a bias, byte for byte: a 3x3 64 -> 512 with OCGSize 4, its second
 * pass at 577 x 32 elements, not a multiple of 64 bytes). After whole passes, the R outputs left
 * spread over all 16 channels, R / 16 a channel, laid out as a pass with R / 16 for g (Apple's H13
 * 768 -> 768 with a bias and OCGSize 5: a pass of 512, then 16 a channel; Whisper's 384-output
 * groups: 256, then 8 a channel). A Cout under 16 g (no whole pass) has two forms, told apart by
 * the coefficient channels enabled (KernelDMASrc.CoeffDMAConfig[c].En, the mask en): the first
 * Cout / g channels enabled, g a channel (the macOS linears: Cout 32 over channels 0-3, 8 each);
 * all 16 enabled and Cout a multiple of 16, Cout / 16 a channel like a last partial pass (Apple's
 * H13 K 4096 -> N 1024 linear: TDs of 96 outputs with OCGSize 3, 6 a channel in all 16, its
 * constant rebuilt so matching Apple's SHA-256); R / 16 and Cout / 16 need not be powers of two
 * (the 6). With k = 0 a channel holds one output a pass, output o being block o / 16 of channel
 * o mod 16, each block kel elements rounded up to 64 bytes (conv.hwx, the atan2 segment).
 * Several groups (nout = NumGroups x Cout) with k > 0 are read only where each group's Cout is one
 * whole pass, 16 x g: group gi is pass gi, laid out as one group's pass is (channel c holds the
 * group's outputs [c g, c g + g), input-major), the groups' blocks back to back in each channel,
 * each block padded to a 64-byte line (line 1: Apple's H13 grouped 3x3 convolutions, 4 groups,
 * their constants rebuilt to Apple's SHA-256: 16 -> 32 a group with a bias and OCGSize 1, 580-byte
 * blocks at 640-byte steps; 64 -> 64 with OCGSize 2, 0x1200 each; the stride-2 16 -> 64 as
 * phase-sparse records of 4 outputs, one a group, each on its own line).
 * TD_OCG_RUNS for one group and Cout a multiple of g, or for that; several groups of other than
 * one whole pass each, or a count not a multiple of g, are TD_OCG_UNPINNED. A layout that leaves an enabled channel unread, or with k > 0 reads a
 * channel not enabled, is TD_OCG_CHANNELS: ch the lowest channel enabled and not read (unread 1),
 * else the lowest read and not enabled (unread 0); the model refuses it, never computing with an
 * enabled channel it does not read (with k = 0 a channel read and not enabled is left to the
 * model's "not inside its coefficient channel"). nout is NumGroups x Cout.
 */
enum td_ocg { TD_OCG_MOD16, TD_OCG_RUNS, TD_OCG_UNPINNED, TD_OCG_CHANNELS };
struct td_ocg_lay {
	enum td_ocg kind;
	unsigned g;      /* outputs a channel holds side by side in a whole pass (1: TD_OCG_MOD16) */
	uint64_t full;   /* whole passes of 16 g (TD_OCG_RUNS) */
	unsigned tail;   /* outputs a channel holds in the last, partial pass; 0: none */
	unsigned read;   /* the coefficient channels the layout reads (a mask) */
	unsigned ch;     /* TD_OCG_CHANNELS: the channel enabled and not read, or read and not enabled */
	unsigned unread; /* TD_OCG_CHANNELS: 1 enabled and not read; 0 read and not enabled */
	unsigned line;   /* TD_OCG_RUNS over several groups: a pass a group, each pass's block
			  * padded to a 64-byte line (the one-group passes are back to back) */
};
/* The coefficient channels a TD enables (KernelDMASrc.CoeffDMAConfig[c].En), as a mask. */
unsigned td_coeff_mask(const struct td_regs *r);
static inline struct td_ocg_lay td_ocg_layout(uint32_t convcfg, uint64_t nout, uint64_t cout, unsigned en)
{
	unsigned k = H13_GET(convcfg, H13_CONVCFG_OCGSIZE);
	const unsigned all = (1u << H13_COEFF_NCH) - 1u;
	struct td_ocg_lay l = {TD_OCG_MOD16, 1u << k, 0, 0, nout >= H13_COEFF_NCH ? all : (1u << nout) - 1u, 0, 0, 0};
	uint64_t pass = (uint64_t)H13_COEFF_NCH << k;
	if (k && nout != cout) {
		/* several groups: one whole pass a group, each group's block on its own line */
		l.kind = TD_OCG_UNPINNED;
		if (cout != pass || nout % cout)
			return l;
		l.full = nout / pass;
		l.read = all;
		l.line = 1;
		l.kind = TD_OCG_RUNS;
	} else if (k) {
		l.kind = TD_OCG_UNPINNED;
		if (cout % l.g)
			return l;
		l.full = cout / pass;
		uint64_t rest = cout % pass;
		l.read = all;
		if (rest && !l.full && en == all && cout % H13_COEFF_NCH == 0) {
			l.tail = (unsigned)(cout / H13_COEFF_NCH); /* all 16 enabled: Cout / 16 a channel */
		} else if (rest && !l.full) {
			l.tail = l.g; /* one pass over the first Cout / g channels */
			l.read = (1u << (cout / l.g)) - 1u;
		} else if (rest) {
			if (rest % H13_COEFF_NCH)
				return l;
			l.tail = (unsigned)(rest / H13_COEFF_NCH);
		}
		l.kind = TD_OCG_RUNS;
	}
	unsigned odd = (en & ~l.read) ? en & ~l.read : k ? l.read & ~en : 0u;
	if (odd) {
		l.unread = (en & ~l.read) != 0;
		l.kind = TD_OCG_CHANNELS;
		while (!(odd & (1u << l.ch)))
			l.ch++;
	}
	return l;
}

/* Where output o's kernel element 0 lies under layout l (kel elements of elem bytes an output):
 * coefficient channel *ch, *off bytes into it, element j at *off + j x *step. */
static inline void td_ocg_locate(const struct td_ocg_lay *l, uint64_t o, uint64_t kel, unsigned elem,
				 unsigned *ch, uint64_t *off, uint64_t *step)
{
	if (l->kind != TD_OCG_RUNS) {
		*ch = (unsigned)(o % H13_COEFF_NCH);
		*off = o / H13_COEFF_NCH * ((kel * elem + 63u) & ~(uint64_t)63u);
		*step = elem;
		return;
	}
	uint64_t pass = (uint64_t)H13_COEFF_NCH * l->g, p = o / pass, w = l->g, r = o % pass;
	if (p >= l->full) { /* the last, partial pass */
		p = l->full;
		w = l->tail;
		r = o - l->full * pass;
	}
	uint64_t blk = kel * l->g * elem; /* one pass's block in a channel */
	if (l->line)
		blk = (blk + 63u) & ~(uint64_t)63u;
	*ch = (unsigned)(r / w);
	*off = p * blk + r % w * elem;
	*step = w * elem;
}

/* Bytes one element of ChCfg format fmt takes (0 for a format with no size). */
unsigned td_fmt_bytes(unsigned fmt);

/*
 * Extent of a strided tile: rows are whole 64-byte lines (line = roundup(w x elem, 64)), then
 * (h-1) row strides, (d-1) depth strides, (c-1) plane strides, (groups-1) group strides. With
 * channel interleave ilv (td_tile_interleave; 1 plain) a row holds w x ilv elements and the c
 * channels take ceil(c / ilv) planes.
 */
/* The destination tensor's extents as the tile DMA writes it: OutDim.Wout, Hout and Cout, with
 * Common.Cfg.OutTranspose C and W swapped (Apple's H13 matmul with transpose_y writes its N x M
 * result as M rows of N: docs/engine-model.md, "A result written transposed"), and so
 * Common.PECfg.OutputTranspose on a TD that is not a reduction (td_dst_cw_swapped). A reduction
 * (Common.Cfg.TaskType 5 or 6) writes one value a plane: Cout planes of one value, or with
 * Common.PECfg.OutputTranspose one row of Cout values (the macOS GPT-2 layer_norm backward's
 * dgamma, "Reductions into L2 memory"). */
void td_dst_dims(const struct td_regs *r, uint32_t *w, uint32_t *h, uint32_t *c);
/* The tile destination writes C and W swapped (the one reading td_dst_dims, td_out_transposed and
 * inspect's result line take): Common.Cfg.OutTranspose, or Common.PECfg.OutputTranspose on a TD
 * that is not a reduction (modelled only in Apple's softmax over C's form: td_l2mem_of). */
int td_dst_cw_swapped(const struct td_regs *r);
/* Whether the destination tile's rows as the engine writes them (OutDim.Wout values of the output
 * format's size each, or the whole 64-byte line with TileDMADst.Fmt ZeroPadLast) follow one
 * another with no gap from its base, over every row, channel and group: then *len is the length
 * of that one run of bytes. 0 (no run) when a stride leaves a gap or overlaps, when a dimension is
 * zero or the format has no size, or on overflow. */
int td_dst_run(const struct td_regs *r, uint64_t *len);
enum td_err td_tile_extent(uint64_t w, uint64_t h, uint64_t d, uint64_t c, uint64_t groups,
			   unsigned elem, unsigned ilv, uint64_t row, uint64_t plane, uint64_t depth,
			   uint64_t group, uint64_t *extent);
/* A TD's input (out 0: Common +0x04, InDepth) or output (Common +0x18, OutDepth) depth as the
 * tile DMA walks it: an operand is G x C x D x H x W, element (g, c, d, h, w) at d DepthStride
 * past (g, c, 0, h, w) (Apple's H13 layer_norm over C, H and W reads [64, 8, 8] with D 8). 1 in
 * every other real program; 0, which no program holds, is walked as 1 (the model refuses it). A
 * reduction's output is 1 whatever OutDepth says: its planes' D x H rows reduce to one value,
 * written at depth 0 (Apple's H13 reduce_mean over every axis of [1,128,16,16]: InDepth = OutDepth
 * 16, DepthStride 0x40, its output bound at 64 bytes; docs/engine-model.md, "A reduction's
 * depth"). */
uint32_t td_depth(const struct td_regs *r, int out);
#define TD_DEPTH_MAX 0x7fffu /* the largest depth modelled (as Hin, Win) */
/* The depth D a TD walks both its input and its output with (Common.InDepth and OutDepth as
 * written, equal, 1..TD_DEPTH_MAX), or 0 when they differ, one is 0 or either is above the bound:
 * the one reading of a depth that the model computes (a reduction's planes of D x H rows, an
 * elementwise TD's D planes of H rows each) and refuses otherwise. */
uint32_t td_depth_even(const struct td_regs *r);

/* The work a TD costs: bytes its moved ranges cover plus the output elements it computes. */
uint64_t td_work(const struct td_range *r, unsigned n, const struct td_regs *regs);

/*
 * The operations a TD costs the engine beyond its moves (docs/robustness.md, "Compute"): each
 * output element (Wout x Hout x Cout x NumGroups x OutDepth, as td_work counts them) times what
 * one costs. A convolution with kernels (NE.MACCfg.OpMode 0, KernelMode 0, not a pass-through):
 * Cin x Kh x Kw multiply-accumulates, or Kh x Kw depthwise (GroupConvCfg.UnicastEn); PE pooling
 * (the PE in the path, Planar.Cfg.PoolMode set): times the window, Kh x Kw; anything else 1. And
 * never fewer than its input values (NumGroups x Cin x InDepth x Hin x Win): a reduction leaves
 * one value a plane, and may read its planes from L2 memory with strides 0, which moves nothing
 * td_work counts. Saturated at UINT64_MAX / 2. Per output element a
 * convolution's cost is up to Cin x 961 (17-bit Cin, 5-bit Kh and Kw), so a TD within the work
 * budget can still cost 10^13 of them: silicon does 10^12 in well under a second, a software
 * model in minutes to hours; the engine model bounds a submission's sum (its compute limit).
 */
uint64_t td_ops(const struct td_regs *regs);

/*
 * What a TD asks the engine's on-chip memories to hold (docs/robustness.md, "Resource limits"),
 * derived from its registers (the products are of fields of 5 to 17 bits: at most 61 bits):
 *   l2_result  an L2-resident result (L2.ResultCfg.ResultType 3): NumGroups x Cout x Hout x Wout
 *              elements of ChCfg.OutFmt; 0 when the result leaves through the tile DMA
 *   kernels    a convolution's kernels in memory (td_ne_reads_kernels): NumGroups x Cout output
 *              channels of td_kernel_cin x Kh x Kw weights (Cin, or UnicastCin for a depthwise
 *              convolution) in NE.KernelCfg.KernelFmt (fp16 when the format has no size); 0 when
 *              the NE reads no kernel (no NE, not a convolution, the unit kernel of KernelMode 1,
 *              a pass-through); saturated (docs/control-path.md, "Kernel memory")
 * The limits they are checked against (the control path, before anything is allocated):
 *   TD_L2_TENSOR_MAX  the L2-resident tensor a TD may leave. Real kernels leave 8,192,000 bytes
 *                     (sigmoid.bin, softmax.bin: 1 x 2560 x 1600 fp16), more than the H13's 4 MiB
 *                     L2 holds at once (guide 21: its operand working set is 2 MB), so the engine
 *                     streams them a tile at a time; the bound is twice what they need, and the
 *                     engine model, which holds such a tensor whole, uses the same.
 *   TD_KMEM_MAX       the kernel-coefficient store in its larger mode (guide 21: 64 KB or 16 MB,
 *                     selected per chip); a TD's kernels cannot exceed it.
 */
#define TD_L2_TENSOR_MAX (16ull << 20)
#define TD_KMEM_MAX (16ull << 20)
struct td_footprint {
	uint64_t l2_result;
	uint64_t kernels;
};
void td_footprint(const struct td_regs *regs, struct td_footprint *f);

#endif
