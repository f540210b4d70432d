/*
 * A TD's register state for the tests of fw/td's readers (td_print_op, td_footprint, ...): up
 * to 48 (address, value) pairs, read through struct td_regs (treg_get; an address not set reads
 * 0, as a TD that does not write it) and written with treg_set.
 */
#ifndef ANEFW_TESTS_UNIT_TREGS_H
#define ANEFW_TESTS_UNIT_TREGS_H

#include "tests/harness/harness.h"

#include <stdint.h>

struct treg_img {
	uint32_t addr[64], val[64]; /* (32 of them coefficient channels: En and CoeffBfrSize) */
	unsigned n;
};

static inline uint32_t treg_get(const void *ctx, uint32_t addr)
{
	const struct treg_img *m = ctx;
	for (unsigned i = 0; i < m->n; i++)
		if (m->addr[i] == addr)
			return m->val[i];
	return 0;
}

static inline void treg_set(struct treg_img *m, uint32_t addr, uint32_t v)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->addr[i] == addr) {
			m->val[i] = v;
			return;
		}
	REQUIRE(m->n < sizeof m->addr / sizeof m->addr[0]);
	m->addr[m->n] = addr;
	m->val[m->n++] = v;
}

#endif
