/*
 * The numpy oracles' files (tests/oracle: gen_model.py and gen_mkprog.py write them into
 * build/testdata) and the checks the model tests share: a file "ANEMORC1", a tensor count, then
 * per tensor eight words (bar, role 0 input / 1 output, c, h, w, row and plane strides in bytes,
 * sample count n) and its data: n fp16 inputs, or n float64 expected values then n float64
 * tolerances. Element (c, h, w) sits at c x plane + h x row + 2 w in its buffer and takes sample
 * ((c H + h) W + w) mod n.
 */
#ifndef ANEFW_TESTS_TORACLE_H
#define ANEFW_TESTS_TORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "fw/submit/queue.h"

#define ORC_MAX_TENSORS 12

struct orc_tensor {
	uint32_t bar, role, c, h, w, row, plane, n;
	const uint8_t *in;         /* role 0: n fp16 */
	const uint8_t *want, *tol; /* role 1: n float64 each */
};

struct orc {
	uint8_t *buf; /* the file (malloc'd; orc_free) */
	size_t len;
	unsigned nt;
	struct orc_tensor t[ORC_MAX_TENSORS];
};

/* Loads build/testdata/REL; 0, or -1 when it is missing or malformed. */
int orc_load(const char *rel, struct orc *o);
void orc_free(struct orc *o);
const struct orc_tensor *orc_tensor_of(const struct orc *o, uint32_t bar, uint32_t role);
double orc_f16(uint16_t h);   /* an fp16 as a double, exactly */
double orc_rd_f64(const uint8_t *p);

/* One run against an oracle: the session hooks fill the inputs and check the outputs. */
struct orc_run {
	const struct orc *o;
	unsigned filled, checked_tensors;
	uint64_t checked, bad;
	double worst;      /* largest |error| / tolerance seen */
	double rel_floor;  /* > 0: also track the relative error where |expected| >= rel_floor */
	double worst_rel;  /* largest |error| / |expected| seen there */
	int quiet;         /* 1: count failures without reporting them (the checker's self-tests) */
	const char *name;
};
void orc_fill(void *run, const struct subq_grant *g, uint8_t *buf, int is_weights);
void orc_check(void *run, const struct subq_grant *g, const uint8_t *buf, int is_weights);
/* Checks one output buffer of size bytes; counts the elements outside tolerance in r->bad. */
void orc_check_tensor(struct orc_run *r, const struct orc_tensor *t, const uint8_t *buf,
		      uint64_t size);

#endif
