/*
 * Activation LUT speed: instructions retired per element over all 65,536 fp16 inputs, on the
 * target under exact icount (make bench T=bench). Two paths: actlut_apply with the prepared
 * 65,536-entry table (one load per element) and the direct integer evaluation.
 */
#include "fw/actlut/actlut.h"
#include "hal/hal.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <string.h>

static uint16_t bench_in[ACTLUT_TABLE_LEN], bench_out[ACTLUT_TABLE_LEN], bench_table[ACTLUT_TABLE_LEN];

/* A gelu-like plain record (s = 2): the most common real mode. Returns actlut_parse's verdict. */
static enum actlut_err make_record(struct actlut *l)
{
	uint8_t rec[ACTLUT_BYTES];
	memset(rec, 0, sizeof rec);
	uint16_t slots[ACTLUT_SLOTS] = {0xfc00, 0x7c00, 0x0000, 0x7c00};
	for (int i = 0; i < ACTLUT_KNOTS; i++)
		slots[ACTLUT_KNOT0 + i] = (uint16_t)(i < 16 ? 0x8000 | (0x2000 + i * 0x100) : 0x2000 + i * 0x100);
	slots[ACTLUT_R_SLOPE] = 0x3c00;
	slots[ACTLUT_SCALE] = 2;
	slots[ACTLUT_MODE] = ACTLUT_MODE_PLAIN;
	for (int i = 0; i < ACTLUT_SLOTS; i++) {
		rec[2 * i] = (uint8_t)(slots[i] & 0xff);
		rec[2 * i + 1] = (uint8_t)(slots[i] >> 8);
	}
	return actlut_parse(l, rec, sizeof rec);
}

/* A record that does not parse ends the benchmark as a failure, saying why: timing an
 * unparsed struct would print numbers that measure nothing. */
#define REQUIRE_RECORD(l)                                                                       \
	do {                                                                                    \
		enum actlut_err e_ = make_record(l);                                            \
		CHECKF(e_ == ACTLUT_OK, "bench actlut: the benchmark record does not parse: %s",  \
		       actlut_strerror(e_));                                                    \
		if (e_ != ACTLUT_OK)                                                            \
			return;                                                                 \
	} while (0)

static void report(const char *what, uint64_t n)
{
	unsigned long whole = (unsigned long)(n / ACTLUT_TABLE_LEN);
	unsigned long hund = (unsigned long)((n % ACTLUT_TABLE_LEN) * 100 / ACTLUT_TABLE_LEN);
	printf("bench actlut %s: %lu instructions for %lu elements = %lu.%02lu per element\n", what,
	       (unsigned long)n, (unsigned long)ACTLUT_TABLE_LEN, whole, hund);
}

TEST(bench, actlut_table)
{
	struct actlut l;
	REQUIRE_RECORD(&l);
	for (uint32_t i = 0; i < ACTLUT_TABLE_LEN; i++)
		bench_in[i] = (uint16_t)(i * 40503u); /* every pattern once, scrambled */
	uint64_t t0 = hal_instret();
	actlut_build_table(&l, bench_table);
	uint64_t t1 = hal_instret();
	actlut_apply(&l, bench_in, bench_out, ACTLUT_TABLE_LEN);
	uint64_t t2 = hal_instret();
	report("table build (direct eval of all inputs)", t1 - t0);
	report("apply with table", t2 - t1);
	for (uint32_t i = 0; i < ACTLUT_TABLE_LEN; i += 97)
		CHECK_EQ(bench_out[i], actlut_eval(&l, bench_in[i]));
	if (test_on_target())
		CHECK((t2 - t1) <= 12ull * ACTLUT_TABLE_LEN);
}

TEST(bench, actlut_direct)
{
	struct actlut l;
	REQUIRE_RECORD(&l);
	for (uint32_t i = 0; i < ACTLUT_TABLE_LEN; i++)
		bench_in[i] = (uint16_t)(i * 40503u);
	uint64_t t0 = hal_instret();
	actlut_apply(&l, bench_in, bench_out, ACTLUT_TABLE_LEN);
	uint64_t t1 = hal_instret();
	report("apply direct (no table)", t1 - t0);
	CHECK(t1 > t0);
}
