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

/*
 * Runs the datapath of the current TD over its resolved ranges: tile DMA in (or the L2-resident
 * source), NE, activation, PE, tile DMA out (and/or the L2-resident result). act is the TD's
 * activation state (resolve_act in model.c); its nelem counts the values evaluated.
 * Returns ENG_OK or an engine error; on ENG_E_FAULT m->why names the reason.
 */
int anem_compute(struct anem *m, const struct mrange *r, unsigned nr, struct anem_act *act);

/* Frees the L2-resident tensors (engine reset). */
void anem_l2_clear(struct anem *m);

/* fp16 <-> fp32 as the model's ports convert (round to nearest even; NaN -> 0x7e00).
 * anem_f2h is the datapath's conversion (the processor's FCVT on aarch64), anem_f2h_soft the
 * portable integer one; they agree on every float (tests/unit/test_model_f2h.c). */
float anem_h2f(uint16_t h);
uint16_t anem_f2h(float f);
uint16_t anem_f2h_soft(float f);
/* 1 when anem_f2h is the processor's conversion (aarch64 with an IEEE FPCR), else 0. */
int anem_f2h_is_fcvt(void);

#endif
