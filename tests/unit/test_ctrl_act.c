/*
 * The engine model applies each TD's activation (docs/control-path.md): on the fixtures whose TD
 * selects the LUT (NE.MACCfg.NonlinearMode = 2) with a 0x80-byte coefficient record, an input
 * tile of known fp16 values comes out as actlut_eval of that record, value by value. The record
 * the test evaluates is read from the fixture file at the offset docs/actlut.md gives, not from
 * the model. The expected outputs come from the numpy oracle's 65,536-entry table of that record
 * (tests/oracle/gen_actlut.py, from the documented semantics in actlut_model.py: not the C code
 * the model uses), and every value looked up is also checked against actlut_eval.
 */
#include "tests/unit/tsession.h"
#include "fw/actlut/actlut.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IN 4

struct act_ctx {
	const uint8_t *in[MAX_IN];
	uint64_t in_len[MAX_IN];
	unsigned nin;
	unsigned nout;
	uint64_t checked, bad;
	uint64_t table_vs_eval; /* table entries looked up that differ from actlut_eval */
	const struct actlut *lut; /* NULL: output = input */
	const uint16_t *table;    /* with lut: the expected output of every input */
	int quiet;                /* the checker's self-test: count, do not report */
	char where[80];
};

static uint16_t input_value(uint64_t j)
{
	/* every fp16 bit pattern (NaN, inf, subnormals, both zeros) many times over */
	return (uint16_t)(j * 0x9e37u + 0x1234u);
}

static void fill(void *vctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct act_ctx *c = vctx;
	if (is_weights || g->access != POL_READ || c->nin >= MAX_IN)
		return;
	for (uint64_t j = 0; j + 1 < g->size; j += 2) {
		uint16_t v = input_value(j / 2);
		buf[j] = (uint8_t)v;
		buf[j + 1] = (uint8_t)(v >> 8);
	}
	c->in[c->nin] = buf;
	c->in_len[c->nin++] = g->size;
}

static void check(void *vctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct act_ctx *c = vctx;
	if (is_weights || !(g->access & POL_WRITE))
		return;
	c->nout++;
	const uint8_t *in = NULL;
	for (unsigned i = 0; i < c->nin; i++)
		if (c->in_len[i] == g->size)
			in = c->in[i];
	if (!in) {
		if (!c->quiet)
			test_fail_at(__FILE__, __LINE__, "%s: no input the size of output bar %lu",
				     c->where, (unsigned long)g->bar);
		c->bad++;
		return;
	}
	for (uint64_t j = 0; j + 1 < g->size; j += 2) {
		uint16_t x = (uint16_t)(in[j] | in[j + 1] << 8);
		uint16_t y = (uint16_t)(buf[j] | buf[j + 1] << 8);
		/* the input port makes a NaN +inf (docs/engine-model.md, "Numerics"); without the
		 * LUT the NE passes x x 1.0: x itself */
		uint16_t xi = (x & 0x7fffu) > 0x7c00u ? 0x7c00u : x, want = xi;
		if (c->lut) {
			want = c->table[xi];
			c->table_vs_eval += want != actlut_eval(c->lut, xi);
		}
		c->checked++;
		if (y != want) {
			if (!c->bad && !c->quiet)
				test_fail_at(__FILE__, __LINE__, "%s: element %lu: f(0x%04x) = 0x%04x, model 0x%04x",
					     c->where, (unsigned long)(j / 2), x, want, y);
			c->bad++;
		}
	}
}

static uint16_t table[ACTLUT_TABLE_LEN];

TEST(ctrl_act, model_output_is_lut_of_input)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the activation fixtures are not run");
	static const struct {
		const char *path;
		size_t rec;
	} fx[] = {
		/* hwx/sigmoid.hwx (rows padded to 64 bytes) and unary/exp.bin (post-scale log2 e
		 * before the LUT) are checked against their functions in test_model_fixtures.c */
		{"fixtures/kernels/unary/tanh.bin", 0x280},
		{"fixtures/kernels/unary/log2.bin", 0x280},
		{"fixtures/kernels/unary/sqrt.bin", 0x280},
		{"fixtures/kernels/activation/gelu.bin", 0x280},
		{"fixtures/kernels/activation/relu6.bin", 0x280},
		{"fixtures/kernels/activation/leakyrelu.bin", 0x280},
		{"fixtures/kernels/activation/hardtanh.bin", 0x280},
		{"fixtures/kernels/activation/selu.bin", 0x280}, /* issue 21: mode word 0x02 */
	};
	for (unsigned f = 0; f < sizeof fx / sizeof fx[0]; f++) {
		uint8_t *buf;
		size_t len;
		if (test_read_file(test_shared_path(fx[f].path), &buf, &len)) {
			CHECKF(0, "%s: unreadable", fx[f].path);
			continue;
		}
		struct actlut lut;
		REQUIRE(len >= fx[f].rec + ACTLUT_BYTES);
		CHECK_EQ(actlut_parse(&lut, buf + fx[f].rec, ACTLUT_BYTES), ACTLUT_OK);
		/* the oracle's table of the record: the expected outputs (checked against eval too) */
		char rel[128];
		snprintf(rel, sizeof rel, "actlut_fixtures/%s@%lx.out", fx[f].path + strlen("fixtures/"),
			 (unsigned long)fx[f].rec); /* newlib-nano's printf has no %zx */
		for (char *s = rel + strlen("actlut_fixtures/"); *s; s++)
			if (*s == '/')
				*s = '_';
		uint8_t *tb;
		size_t tlen;
		const char *tpath = test_data_path(rel);
		if (!tpath || test_read_file(tpath, &tb, &tlen) || tlen != sizeof table) {
			CHECKF(0, "%s: no oracle table build/testdata/%s (make test generates it)",
			       fx[f].path, rel);
			free(buf);
			continue;
		}
		for (size_t i = 0; i < ACTLUT_TABLE_LEN; i++)
			table[i] = (uint16_t)(tb[2 * i] | tb[2 * i + 1] << 8);
		free(tb);
		struct act_ctx c;
		memset(&c, 0, sizeof c);
		c.lut = &lut;
		c.table = table;
		snprintf(c.where, sizeof c.where, "%s", fx[f].path);
		struct session_hooks h = {.fill = fill, .check = check, .ctx = &c};
		struct session_result res;
		int rc = tsubmit(buf, len, 0, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
		CHECK_EQ(rc, 0);
		CHECK(res.canaries_ok);
		CHECK_EQ(res.act_applied, 1u);
		CHECK_EQ(c.nout, 1u);
		CHECK(c.checked > 0);
		CHECK_EQ(res.act_elems, c.checked);
		CHECK_EQ(c.bad, 0u);
		CHECK_EQ(c.table_vs_eval, 0u);
		free(buf);
	}
}

/* The same program with the LUT deselected (NonlinearMode 0 in every TD) moves bytes unchanged. */
TEST(ctrl_act, lut_not_selected_moves_bytes)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the activation fixtures are not run");
	uint8_t *buf;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/unary/tanh.bin"), &buf, &len) == 0);
	/* NonlinearMode cleared in the TD's MACCfg write */
	static struct ldr_program p;
	REQUIRE(ldr_load(buf, len, LDR_F_RAW, &p) == LDR_OK);
	uint32_t off;
	REQUIRE(twrite_offsets(&p, 0, H13_NE_MACCFG, &off, 1) == 1);
	buf[p.td_area_off + off + 2] &= (uint8_t)~3u; /* bits 16-17 */
	struct act_ctx c;
	memset(&c, 0, sizeof c);
	c.lut = NULL; /* identity: the bytes as moved */
	snprintf(c.where, sizeof c.where, "tanh.bin without LUT");
	struct session_hooks h = {.fill = fill, .check = check, .ctx = &c};
	struct session_result res;
	CHECK_EQ(tsubmit(buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, &res), 0);
	CHECK_EQ(res.act_applied, 0u);
	CHECK(c.checked > 0);
	CHECK_EQ(c.bad, 0u);
	free(buf);
}

/* The checker itself, without fixtures: an output that is the table of its input passes, and one
 * wrong element, a wrong table entry or a missing input is counted as bad. */
TEST(ctrl_act, checker_counts_a_wrong_output)
{
	enum { N = 4096 };
	static uint8_t in[2 * N], out[2 * N];
	uint8_t rec[ACTLUT_BYTES];
	struct actlut lut;
	/* relu6 as a linear record (the description's activation) */
	memset(rec, 0, sizeof rec);
	static const uint16_t slot[][2] = {{ACTLUT_IN_LO, 0xfc00}, {ACTLUT_IN_HI, 0x7c00},
					   {ACTLUT_OUT_LO, 0}, {ACTLUT_OUT_HI, 0x4600},
					   {ACTLUT_R_SLOPE, 0x3c00}, {ACTLUT_SCALE, ACTLUT_SCALE_LINEAR},
					   {ACTLUT_MODE, ACTLUT_MODE_PLAIN}};
	for (unsigned i = 0; i < sizeof slot / sizeof slot[0]; i++) {
		rec[2 * slot[i][0]] = (uint8_t)slot[i][1];
		rec[2 * slot[i][0] + 1] = (uint8_t)(slot[i][1] >> 8);
	}
	REQUIRE(actlut_parse(&lut, rec, sizeof rec) == ACTLUT_OK);
	actlut_build_table(&lut, table);
	const struct subq_grant gin = {5, POL_READ, 0, 0, 0, sizeof in, 0};
	const struct subq_grant gout = {6, POL_WRITE, 0, 0, 0, sizeof out, 0};
	struct act_ctx c;
	unsigned want_bad[4] = {0, 1, 1, 1};
	for (unsigned round = 0; round < 4; round++) {
		memset(&c, 0, sizeof c);
		c.lut = &lut;
		c.table = table;
		c.quiet = 1;
		if (round < 3)
			fill(&c, &gin, in, 0);
		for (unsigned j = 0; j < N; j++) {
			uint16_t x = (uint16_t)(in[2 * j] | in[2 * j + 1] << 8);
			uint16_t y = table[(x & 0x7fffu) > 0x7c00u ? 0x7c00u : x]; /* NaN enters as +inf */
			out[2 * j] = (uint8_t)y;
			out[2 * j + 1] = (uint8_t)(y >> 8);
		}
		uint16_t x7 = (uint16_t)(in[14] | in[15] << 8), saved = table[x7];
		if (round == 1)
			out[14] ^= 1; /* element 7 wrong */
		if (round == 2)
			table[x7] ^= 1; /* the expectation differs from the output (and from eval) */
		check(&c, &gout, out, 0);
		table[x7] = saved;
		CHECKF(c.bad == want_bad[round], "round %u: %lu bad, want %u", round,
		       (unsigned long)c.bad, want_bad[round]);
		CHECK_EQ(c.checked, (round < 3 ? (uint64_t)N : 0u));
		CHECK_EQ(c.table_vs_eval, (round == 2 ? 1u : 0u));
	}
}
