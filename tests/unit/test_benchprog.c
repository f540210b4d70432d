/*
 * The benchmarks' hooks (tools/progdesc/benchprog.c: bp_fill_input, bp_check_output), which the
 * target's `make bench` and the host's bench-model use to say a run computed what it should. A
 * benchmark whose check passed a wrong output would report the speed of a wrong answer, so the
 * check is held here to hand-written values: every output right counts none bad; one wrong value,
 * a 3x3's edge position given the centre's value, or a row cut short are each seen.
 */
#include "tests/harness/harness.h"
#include "tools/progdesc/benchprog.h"

#include <string.h>

/* fp16 v at output (x, y) of rows `row` bytes apart */
static void put(uint8_t *b, uint32_t row, uint32_t x, uint32_t y, uint16_t v)
{
	b[y * row + 2 * x] = (uint8_t)v;
	b[y * row + 2 * x + 1] = (uint8_t)(v >> 8);
}

TEST(benchprog, fill_writes_every_byte_of_the_inputs_only)
{
	struct bp_expect e = {0x3e00u, 0x3400u, 0, 64, 4, 0, 0, {{0}}};
	uint8_t b[9];
	memset(b, 0xa5, sizeof b);
	bp_fill_input(&e, BP_IN0_BAR, b, sizeof b);
	for (unsigned k = 0; k < 8; k += 2)
		CHECK(b[k] == 0x00 && b[k + 1] == 0x3e);
	CHECK_EQ(b[8], 0u); /* the odd last byte */
	memset(b, 0xa5, sizeof b);
	bp_fill_input(&e, BP_IN1_BAR, b, 8);
	CHECK(b[0] == 0x00 && b[1] == 0x34 && b[8] == 0xa5);
	memset(b, 0xa5, sizeof b);
	bp_fill_input(&e, BP_OUT_BAR, b, sizeof b); /* not an input: untouched */
	for (unsigned k = 0; k < sizeof b; k++)
		CHECK_EQ(b[k], 0xa5u);
}

TEST(benchprog, check_counts_every_wrong_output)
{
	enum { ROW = 64, W = 4, H = 3 };
	uint8_t b[ROW * H];
	struct bp_expect e = {0, 0, 0x4000u, ROW, W, 0, 0, {{0}}};
	memset(b, 0, sizeof b);
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			put(b, ROW, x, y, 0x4000u);
	uint64_t n = 0, bad = 0;
	bp_check_output(&e, BP_OUT_BAR, b, sizeof b, &n, &bad);
	CHECK_EQ(n, (uint64_t)W * H);
	CHECK_EQ(bad, 0u);
	/* negative: one value off by one ulp */
	put(b, ROW, 3, 1, 0x4001u);
	n = bad = 0;
	bp_check_output(&e, BP_OUT_BAR, b, sizeof b, &n, &bad);
	CHECK_EQ(bad, 1u);
	/* the padding past w in a row is not an output */
	put(b, ROW, 3, 1, 0x4000u);
	put(b, ROW, W, 1, 0x1234u);
	n = bad = 0;
	bp_check_output(&e, BP_OUT_BAR, b, sizeof b, &n, &bad);
	CHECK_EQ(bad, 0u);
	/* a grant cut short by a row: its outputs are not counted, so the caller's count differs */
	n = bad = 0;
	bp_check_output(&e, BP_OUT_BAR, b, sizeof b - 1, &n, &bad);
	CHECK_EQ(n, (uint64_t)W * (H - 1));
	/* another BAR is not read */
	n = bad = 0;
	bp_check_output(&e, BP_IN0_BAR, b, sizeof b, &n, &bad);
	CHECK(n == 0 && bad == 0);
}

/* A 3x3 convolution with padding 1 over 3 x 2: the taps inside the input are 2 x 2 at the
 * corners, 3 x 2 along the top and bottom edges' middle (here every row is an edge row). */
TEST(benchprog, check_takes_a_3x3s_value_from_the_taps_inside)
{
	enum { ROW = 64, W = 3, H = 2 };
	struct bp_expect e = {0, 0, 0, ROW, W, 3, H, {{0}}};
	for (unsigned ty = 0; ty < 4; ty++)
		for (unsigned tx = 0; tx < 4; tx++)
			e.wantk[ty][tx] = (uint16_t)(0x100u * ty + tx); /* distinct, so a wrong pick shows */
	uint8_t b[ROW * H * 2]; /* two planes: y runs on, the check takes y mod h */
	memset(b, 0, sizeof b);
	for (uint32_t y = 0; y < 2 * H; y++)
		for (uint32_t x = 0; x < W; x++)
			put(b, ROW, x, y, (uint16_t)(0x100u * 2 + (x == 1 ? 3u : 2u)));
	uint64_t n = 0, bad = 0;
	bp_check_output(&e, BP_OUT_BAR, b, sizeof b, &n, &bad);
	CHECK_EQ(n, (uint64_t)W * H * 2);
	CHECK_EQ(bad, 0u);
	/* negative: the middle column given a corner's value (2 x 2 taps) */
	put(b, ROW, 1, 3, 0x0202u);
	n = bad = 0;
	bp_check_output(&e, BP_OUT_BAR, b, sizeof b, &n, &bad);
	CHECK_EQ(bad, 1u);
}
