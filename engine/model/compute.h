/*
 * The model's datapath (inside engine/model only): what one TD computes, from the registers in
 * the model's window and the memory ranges td_ranges() derived for it (docs/engine-model.md).
 */
#ifndef ANEFW_ENGINE_MODEL_COMPUTE_H
#define ANEFW_ENGINE_MODEL_COMPUTE_H

#include "engine/model/model.h"

/* A range of the running TD, resolved to an engine address and a CPU pointer (model.c). */
struct mrange {
	uint8_t kind, ch, write;
	uint64_t dev, len;
	uint8_t *cpu;
};

/* The one function every DMA move goes through (model.c). */
int anem_dma_move(struct anem *m, void *dst, const void *src, uint32_t len);
/* rows rows of len bytes, dpitch and spitch bytes apart, in one 2-D transfer (model.c).
 * Returns ANEM_ROWS_ONE_BY_ONE, having moved nothing, when the DMA engine's caps do not take
 * it or a fault is armed (an injected fault counts the moves row by row): the caller then
 * moves the rows one by one with anem_dma_move. */
int anem_dma_move_rows(struct anem *m, void *dst, int64_t dpitch, const void *src,
		       int64_t spitch, uint32_t len, uint32_t rows);
/* Whether anem_dma_move_rows would move these rows in one transfer (1) or refuse (0). */
int anem_dma_rows_ok(const struct anem *m, const void *dst, int64_t dpitch, const void *src,
		     int64_t spitch, uint32_t len, uint32_t rows);
#define ANEM_ROWS_ONE_BY_ONE (-1) /* no ENG_ error is negative */

/*
 * Runs the datapath of the current TD over its resolved ranges: tile DMA in (or the L2-resident
 * source), NE, activation, PE, tile DMA out (and/or the L2-resident result). act is the TD's
 * activation state (resolve_act in model.c); its nelem counts the values evaluated.
 * Returns ENG_OK or an engine error; ENG_E_FAULT comes with m->flt (anem_refuse).
 */
int anem_compute(struct anem *m, const struct mrange *r, unsigned nr, struct anem_act *act);

/*
 * Refuses the running TD: records the structured fault (engine.h, struct eng_fault) the driver
 * reports, with the register field the model could not interpret and the value the register
 * window holds in it, and returns ENG_E_FAULT. reg ENG_FAULT_NO_REG: no register (width 0: the
 * whole register). why: static text, one line. ANEM_REFUSE names the field by its fw/regmap
 * macros: ANEM_REFUSE(m, ENG_FR_FIELD, H13_NE_MACCFG, H13_MACCFG_NONLINEARMODE, "...").
 */
int anem_refuse(struct anem *m, enum eng_fault_reason reason, uint32_t reg, unsigned lsb,
		unsigned width, const char *why);
#define ANEM_REFUSE(m, reason, reg, field, why)                                                 \
	anem_refuse((m), (reason), (reg), field##_LSB, field##_W, (why))
/* A refusal about no register (reason and why only). */
#define ANEM_REFUSE_NOREG(m, reason, why) anem_refuse((m), (reason), ENG_FAULT_NO_REG, 0, 0, (why))

/* Frees the L2-resident tensors (engine reset). */
void anem_l2_clear(struct anem *m);
/* The table of register words whose bits outside the register map's fields are refused
 * (engine/model/compute.c); anem_init builds it. */
void anem_outside_init(struct anem *m);

/* fp16 <-> fp32 as the model's ports convert (round to nearest even; NaN -> 0x7e00).
 * anem_f2h is the datapath's conversion (the processor's FCVT on aarch64), anem_f2h_soft the
 * portable integer one; they agree on every float (tests/unit/test_model_f2h.c). */
/* 2 (the default): the host's SIMD paths where the CPU has them (x86-64: AVX-512F or AVX2/FMA
 * convolution micro-kernels, F16C conversions, the PE and post-scale rows 8 at a time; aarch64:
 * NEON); 1: the same without AVX-512; 0: the portable code. Every level gives the same bits
 * (tests model_simd and model.conv_simd_levels_match_reference compare them). */
extern int anem_simd;
/* The convolution micro-kernels anem_simd and the CPU select now: "AVX-512F", "AVX2/FMA",
 * "NEON" or "portable". */
const char *anem_conv_kernels(void);
float anem_h2f(uint16_t h);
uint16_t anem_f2h(float f);
uint16_t anem_f2h_soft(float f);
/* 1 when anem_f2h is the processor's conversion (aarch64 with an IEEE FPCR), else 0. */
int anem_f2h_is_fcvt(void);

#endif
