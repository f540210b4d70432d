/*
 * Mutations of a program's TDs that keep its structure, for the targets that run programs
 * (fuzz_agree on a program as the tool reads it, fuzz_submit on the program after its header):
 * where each TD's register value words lie in the file, the task's operations as the model counts
 * them, one extent made smaller through the whole chain (shrink), and moves of the TDs' reads of
 * L2 memory (l2).
 */
#ifndef ANEFW_TESTS_FUZZ_MUTATE_H
#define ANEFW_TESTS_FUZZ_MUTATE_H

#include <stddef.h>
#include <stdint.h>

void mut_seed(unsigned seed);
uint32_t mut_rnd(void);

struct mut_word {
	uint32_t addr, off; /* register address; offset of the value word from the program's start */
	uint32_t td;
};
#define MUT_WORDS (1u << 15)
extern struct mut_word mut_wl[MUT_WORDS];

/* Every register write of every TD of the program at data (ldr_load with flags) into mut_wl;
 * seen (may be NULL) is called with each write's address and value. Returns how many, 0 when the
 * program does not load or has no TD. */
unsigned mut_writes(const uint8_t *data, size_t size, unsigned flags, void (*seen)(uint32_t addr, uint32_t value));

/* The task's operations as the model counts them (fw/td td_ops over the TDs' register images);
 * 0 when the program does not load. */
uint64_t mut_task_ops(const uint8_t *data, size_t size, unsigned flags);

/* One extent smaller through the whole chain: a value v one of the dimension fields holds (Win,
 * Hin, Wout, Hout, Cin, Cout) becomes k (1 to 8, or v halved 1 to 4 times) in every such field of
 * every TD that holds v, so a tensor one TD writes and the next reads (transposed, as the sweeps'
 * matmuls' token count is a C in one TD and a W in the next) keeps one shape; then, one time in
 * two, the largest values too until the task's operations are within limit (8 at most). Needs
 * mut_writes' table for this program. Returns 0 when no field holds a value above 1. */
int mut_shrink(uint8_t *data, size_t size, unsigned n, unsigned flags, uint64_t limit);

/* A TD's reads of L2 memory moved where another TD may not have written: one of the L2 base words
 * (Source2Base, the second operand's and a normalize's pair; SourceBase, the first operand's, a
 * reduction's rows and a convolution's) a few 16-byte units on or back, or to where another TD's
 * L2 base points, or the second source's row stride (a pair's p1) changed; or one TD that writes L2
 * memory (L2.ResultCfg.ResultType 0) made smaller alone (its dimension fields holding a value v
 * set to k), so a later TD reads past what it wrote. Needs mut_writes' table. Returns 0 when no TD
 * writes an L2 base. */
int mut_l2(uint8_t *data, unsigned n);

#endif
