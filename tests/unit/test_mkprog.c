/*
 * Program descriptions (tools/progdesc, `anefw-tool mkprog`): a description becomes a raw H13
 * task stream that the loader accepts, whose weights are one kernel unit with a palette, a sparse
 * and an int8 layer and an activation record; the whole program runs on the engine model with
 * its default grants; each coefficient channel covers its layer's OCG record; every malformed
 * description is refused with its named error and line. The same program in a .hwx container
 * (pd_build_hwx) holds the same bytes, one window per tensor BAR, and runs the same; the
 * container writer refuses bad specs by name and writes nothing past its buffer.
 */
#include "tests/unit/tsession.h"
#include "fw/actlut/actlut.h"
#include "fw/common/le.h"
#include "fw/ctrl/ctrl.h"
#include "tools/progdesc/progdesc.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/hwx_write.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char default_like[] =
	"# a comment\n"
	"input w=32 h=2 c=16\n"
	"layer palette4 cin=16 cout=32\n"
	"layer sparse density=37 cout=16   # trailing comment\n"
	"\n"
	"layer int8 cout=32\n"
	"activation relu6\n";

static uint8_t progbuf[1 << 16];

TEST(mkprog, description_builds_a_loadable_program)
{
	static struct pd_desc d;
	static struct ldr_program p;
	unsigned line;
	REQUIRE(pd_parse(default_like, strlen(default_like), &d, &line) == PD_OK);
	CHECK_EQ(d.nlayers, 4u);
	CHECK_EQ(d.layer[0].kind, PD_PALETTE);
	CHECK_EQ(d.layer[0].bits, 4u);
	CHECK_EQ(d.layer[1].kind, PD_SPARSE);
	CHECK_EQ(d.layer[1].density, 37u);
	CHECK_EQ(d.layer[1].cin, 16u);
	CHECK_EQ(d.layer[2].kind, PD_INT8);
	CHECK_EQ(d.layer[3].kind, PD_ACT);
	CHECK_EQ(d.act, PD_ACT_RELU6);
	size_t len = 0;
	REQUIRE(pd_build(&d, progbuf, sizeof progbuf, &len) == PD_OK);
	REQUIRE(ldr_load(progbuf, len, LDR_F_RAW, &p) == LDR_OK);
	CHECK(p.raw);
	CHECK_EQ(p.ntds, 4u);
	/* the weights are one kernel unit: sparse flag, palette of one 16-entry codebook, an
	 * activation record, one OCG record per weight layer */
	struct ku_unit u;
	REQUIRE(ku_parse(p.buf + p.weights_off, p.weights_len, &ctrl_h13_ku_limits, &u) == KU_OK);
	CHECK(u.flags & KU_FLAG_SPARSE);
	CHECK_EQ(u.nocg, 3u);
	CHECK_EQ(u.sec[KU_SEC_PALETTE].size, 32u);
	CHECK_EQ(u.sec[KU_SEC_ACTLUT].size, (uint32_t)ACTLUT_STRIDE);
	struct actlut lut;
	CHECK_EQ(actlut_parse(&lut, u.base + u.sec[KU_SEC_ACTLUT].offset, ACTLUT_BYTES), ACTLUT_OK);
	/* each weight layer's coefficient channel 0 is exactly its OCG record's block (64-byte
	 * aligned, a 64-byte multiple), inside the weights */
	for (unsigned t = 0; t < 3; t++) {
		uint32_t rec[KU_RECORD_WORDS];
		ku_record(&u, 0, t, rec);
		CHECK_EQ(rec[1], d.layer[t].cout);
		REQUIRE(p.tds[t].ncoeff == 1);
		uint64_t s = u.sec[KU_SEC_WEIGHTS].offset + rec[0];
		uint64_t e = s + (uint64_t)rec[1] * u.bytes_per_channel;
		uint64_t b = p.tds[t].coeff[0].base, z = p.tds[t].coeff[0].size;
		CHECK(b == s && b + z == e && e <= p.weights_len);
		CHECK_EQ(b % 64, 0u);
		CHECK_EQ(u.bytes_per_channel % 64, 0u);
		/* sparse channels: the OCG's masks first (2 bytes each), about density% of cin bits */
		if (d.layer[t].kind == PD_SPARSE) {
			unsigned kept = 0;
			CHECK_EQ(u.sec[KU_SEC_WEIGHTS].param, 2u);
			for (uint32_t c = 0; c < rec[1]; c++) {
				const uint8_t *m = u.base + s + c * 2u;
				for (unsigned k = 0; k < 16; k++)
					kept += m[k / 8] >> (k % 8) & 1u;
			}
			CHECK(kept > 16 * 16 * 20 / 100 && kept < 16 * 16 * 55 / 100);
		}
	}
	CHECK_EQ(p.tds[3].ncoeff, 0u);
}

struct run_ctx {
	const uint8_t *in;
	uint64_t in_len;
	unsigned nout, bad;
	struct actlut lut;
};

static void fill(void *vc, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct run_ctx *c = vc;
	if (is_weights || g->bar != PD_INPUT_BAR)
		return;
	for (uint64_t j = 0; j + 1 < g->size; j += 2) {
		/* all kinds of finite fp16 values: an infinity or a NaN (exponent field 31) taken to
		 * exponent 15. The weight TDs' convolutions would meet infinities of both signs in one
		 * sum, which the model refuses by name (docs/engine-model.md, "What a seventh review
		 * found"); the LUT over infinities and NaNs is test_ctrl_act's (every fp16 pattern). */
		uint16_t v = (uint16_t)(j * 0x3b1u + 7u);
		if ((v & 0x7c00u) == 0x7c00u)
			v ^= 0x4000u;
		buf[j] = (uint8_t)v;
		buf[j + 1] = (uint8_t)(v >> 8);
	}
	c->in = buf;
	c->in_len = g->size;
}

static void check(void *vc, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct run_ctx *c = vc;
	if (is_weights || !(g->access & POL_WRITE) || !c->in)
		return;
	c->nout++;
	/* the activation TD (the last, BAR 6 + 3) writes f(input); the weight TDs compute their
	 * layers (tests/unit/test_mkprog_compute.c checks their values against the numpy oracle):
	 * here only that an output is not the input moved */
	int act = g->bar == PD_FIRST_OUTPUT_BAR + 3;
	uint64_t n = g->size < c->in_len ? g->size : c->in_len, same = 0, vals = 0;
	for (uint64_t j = 0; j + 1 < n; j += 2) {
		uint16_t x = (uint16_t)(c->in[j] | c->in[j + 1] << 8);
		uint16_t y = (uint16_t)(buf[j] | buf[j + 1] << 8);
		/* the input port makes a NaN +inf (docs/engine-model.md, "Numerics") */
		if (act && y != actlut_eval(&c->lut, (x & 0x7fffu) > 0x7c00u ? 0x7c00u : x))
			c->bad++;
		same += y == x;
		vals++;
	}
	if (!act && same == vals)
		c->bad++;
}

/* Runs a built program (raw or container) on the engine model with its default grants and
 * checks every output value through the hooks. */
static void run_on_model(const uint8_t *prog, size_t len, unsigned flags)
{
	static struct run_ctx c;
	memset(&c, 0, sizeof c);
	uint8_t rec[ACTLUT_BYTES];
	REQUIRE(pd_act_record(PD_ACT_RELU6, rec));
	REQUIRE(actlut_parse(&c.lut, rec, sizeof rec) == ACTLUT_OK);
	struct session_hooks h = {.fill = fill, .check = check, .ctx = &c};
	struct session_result res;
	int rc = tsubmit(prog, len, flags, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
	CHECK_EQ(rc, 0);
	CHECK_EQ(res.run, ENG_OK);
	CHECK(res.canaries_ok);
	CHECK_EQ(res.ntds, 4u);
	CHECK_EQ(res.act_applied, 1u);
	CHECK_EQ(res.act_elems, 32u * 2 * 16); /* 64-byte rows of 32 fp16, 2 rows, 16 planes */
	/* the int8 layer (TD 2) is folded by the firmware: H13 does not stream int8 */
	CHECK_EQ(res.folded_tds, 1u);
	CHECK(res.fold_values >= 32u * 16); /* its 32 channels of 16 weights, in 64-byte units */
	CHECK_EQ(c.nout, 4u);
	CHECK_EQ(c.bad, 0u);
}

TEST(mkprog, program_runs_on_the_model)
{
	static struct pd_desc d;
	unsigned line;
	size_t len = 0;
	REQUIRE(pd_parse(default_like, strlen(default_like), &d, &line) == PD_OK);
	REQUIRE(pd_build(&d, progbuf, sizeof progbuf, &len) == PD_OK);
	run_on_model(progbuf, len, LDR_F_RAW);
}

TEST(mkprog, container_holds_the_raw_program_and_runs)
{
	static struct pd_desc d;
	static struct ldr_program raw, hwx;
	static uint8_t rawbuf[1 << 16];
	unsigned line;
	size_t rlen = 0, len = 0;
	REQUIRE(pd_parse(default_like, strlen(default_like), &d, &line) == PD_OK);
	REQUIRE(pd_build(&d, rawbuf, sizeof rawbuf, &rlen) == PD_OK);
	REQUIRE(ldr_load(rawbuf, rlen, LDR_F_RAW, &raw) == LDR_OK);
	REQUIRE(pd_build_hwx(&d, progbuf, sizeof progbuf, &len) == PD_OK);
	REQUIRE(ldr_load(progbuf, len, LDR_F_HWX, &hwx) == LDR_OK);
	CHECK(!hwx.raw);
	CHECK_EQ(hwx.cpusubtype, PD_HWX_SUBTYPE);
	CHECK(hwx.note && hwx.note_len >= 12 && memcmp(hwx.note, "anefw mkprog", 12) == 0);
	/* the same TDs and the same kernel unit, byte for byte */
	CHECK_EQ(hwx.ntds, raw.ntds);
	CHECK_EQ(hwx.td_count, raw.ntds);
	CHECK_EQ(hwx.td_area_len, raw.weights_off);
	CHECK(memcmp(progbuf + hwx.td_area_off, rawbuf, raw.weights_off) == 0);
	CHECK_EQ(hwx.weights_len, raw.weights_len);
	CHECK(memcmp(progbuf + hwx.weights_off, rawbuf + raw.weights_off, raw.weights_len) == 0);
	/* one window per tensor BAR, as large as the raw stream's grant for that BAR */
	struct subq_grant g[LDR_NBARS];
	unsigned n = 0;
	REQUIRE(ctrl_default_grants(&raw, g, LDR_NBARS, &n, NULL) == CTRL_OK && n > 0);
	unsigned tensors = 0;
	for (unsigned i = 0; i < n; i++) {
		if (g[i].bar == PD_WEIGHTS_BAR)
			continue;
		tensors++;
		unsigned k;
		for (k = 0; k < hwx.nwindows; k++)
			if (hwx.windows[k].bar == (int)g[i].bar)
				break;
		REQUIRE(k < hwx.nwindows);
		CHECK_EQ(hwx.windows[k].size, g[i].size);
		CHECK_EQ(hwx.windows[k].initprot, g[i].bar == PD_INPUT_BAR ? LDR_WIN_INPUT : LDR_WIN_OUTPUT);
		CHECK_EQ(hwx.bars[g[i].bar], hwx.windows[k].vmaddr);
	}
	CHECK_EQ(hwx.nwindows, tensors);
	CHECK_EQ(tensors, 5u); /* the input and four outputs */
	CHECK(hwx.windows[0].name_len == 5 && memcmp(hwx.windows[0].name, "input", 5) == 0);
	run_on_model(progbuf, len, LDR_F_HWX);
	/* too small a buffer: the named error */
	CHECK_EQ(pd_build_hwx(&d, progbuf, len - 1, &rlen), PD_E_TOO_LARGE);
}

TEST(mkprog, container_writer_refuses_bad_specs)
{
	static const uint8_t text[0x274] = {0};
	static uint8_t out[0x8000 + 64];
	struct hwxw_window w[2] = {{"input", 5, LDR_WIN_INPUT, 64}, {"out", 6, LDR_WIN_OUTPUT, 64}};
	struct hwxw_spec ok = {4, text, sizeof text, 0x274, 1, 0, NULL, 0, 1, w, 2, NULL};
	struct hwxw_spec s;
	size_t len;
	size_t need = hwxw_size(&ok);
	CHECK(need > 0x4000 && need <= sizeof out - 64);
	s = ok, s.text = NULL;
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_ARG);
	s = ok, s.win = w, w[1].bar = 5; /* two buffers in one slot */
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_BAR);
	w[1].bar = 32;
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_BAR);
	w[1].bar = 6, w[1].name = "";
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_NAME);
	w[1].name = "out", w[1].size = 0;
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_SIZE);
	w[1].size = 64, w[1].dir = 9;
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_ARG);
	w[1].dir = LDR_WIN_OUTPUT;
	s = ok, s.ntds = 0;
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_LIMIT);
	s = ok, s.first_td_bytes = 0x276;
	CHECK_EQ(hwxw_write(&s, out, sizeof out, &len), HWXW_E_ARG);
	/* no room: nothing written at all */
	memset(out, 0xa5, sizeof out);
	CHECK_EQ(hwxw_write(&ok, out, need - 1, &len), HWXW_E_NO_ROOM);
	size_t untouched = 0;
	for (size_t i = 0; i < sizeof out; i++)
		untouched += out[i] == 0xa5;
	CHECK_EQ(untouched, sizeof out);
	/* exactly enough: written, and nothing past it */
	CHECK_EQ(hwxw_write(&ok, out, need, &len), HWXW_OK);
	CHECK_EQ(len, need);
	CHECK_EQ(out[need], 0xa5);
	CHECK_STR(hwxw_err_name(HWXW_E_NO_ROOM), "hwx-no-room");
}

TEST(mkprog, activation_records)
{
	/* fp16 inputs and the values each function must give */
	static const struct {
		unsigned act;
		uint16_t x, y;
	} v[] = {
		{PD_ACT_RELU, 0xc200, 0x0000},     /* relu(-3) = 0 */
		{PD_ACT_RELU, 0x4500, 0x4500},     /* relu(5) = 5 */
		{PD_ACT_RELU6, 0x4700, 0x4600},    /* relu6(7) = 6 */
		{PD_ACT_RELU6, 0x4200, 0x4200},    /* relu6(3) = 3 */
		{PD_ACT_RELU6, 0xbc00, 0x0000},    /* relu6(-1) = 0 */
		{PD_ACT_LEAKYRELU, 0xbc00, 0xa11f}, /* -1 * fp16(0.01) */
		{PD_ACT_LEAKYRELU, 0x4000, 0x4000},
		{PD_ACT_HARDTANH, 0x4000, 0x3c00}, /* 2 -> 1 */
		{PD_ACT_HARDTANH, 0xc000, 0xbc00}, /* -2 -> -1 */
		{PD_ACT_HARDTANH, 0x3800, 0x3800}, /* 0.5 */
	};
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
		uint8_t rec[ACTLUT_BYTES];
		struct actlut lut;
		REQUIRE(pd_act_record(v[i].act, rec));
		REQUIRE(actlut_parse(&lut, rec, sizeof rec) == ACTLUT_OK);
		CHECK_EQ(lut.kind, ACTLUT_KIND_LINEAR);
		CHECK_EQ(actlut_eval(&lut, v[i].x), v[i].y);
	}
	uint8_t rec[ACTLUT_BYTES];
	CHECK_EQ(pd_act_record(PD_ACT_NONE, rec), 0);
}

TEST(mkprog, bad_descriptions_named)
{
	static const struct {
		const char *text;
		enum pd_err err;
		unsigned line;
	} bad[] = {
		{"layer int9\n", PD_E_KEYWORD, 1},
		{"input w=32\nlayer int8 cout=0\n", PD_E_VALUE, 2},
		{"layer sparse density=101\n", PD_E_VALUE, 1},
		{"layer sparse density=\n", PD_E_VALUE, 1},
		{"layer int8 density=5\n", PD_E_KEYWORD, 1},
		{"layer palette5\n", PD_E_VALUE, 1},
		{"layer palette4x\n", PD_E_KEYWORD, 1},
		{"layer\n", PD_E_SYNTAX, 1},
		{"conv int8\n", PD_E_KEYWORD, 1},
		{"input w=99999\nlayer int8\n", PD_E_VALUE, 1},
		{"input w=0x20\nlayer int8\n", PD_E_VALUE, 1},
		{"layer int8 cout=16 \x01\n", PD_E_SYNTAX, 1},
		{"# nothing\n\n", PD_E_NO_LAYERS, 0},
		{"layer int8\nactivation relu\nactivation relu6\n", PD_E_TWO_ACTIVATIONS, 3},
		{"activation swish\n", PD_E_KEYWORD, 1},
		{"activation relu extra\n", PD_E_SYNTAX, 1},
		{"input c=8\nlayer int8 cin=16\n", PD_E_CIN, 2},
		{"layer palette4\nlayer palette2\n", PD_E_PALETTE_BITS, 2},
		{"layer int8\nlayer int8\nlayer int8\nlayer int8\nlayer int8\nlayer int8\n"
		 "layer int8\nlayer int8\nlayer int8\n", PD_E_TOO_MANY_LAYERS, 9},
		{"streams fp64\nlayer int8\n", PD_E_VALUE, 1},
		{"layer int8\nstreams\n", PD_E_SYNTAX, 2},
		{"streams fp32 fp16\nlayer int8\n", PD_E_SYNTAX, 1},
		{"pool median\n", PD_E_KEYWORD, 1},
		{"pool avg k=32\n", PD_E_VALUE, 1},
		{"pool avg k=3 stride=4\n", PD_E_VALUE, 1},
		{"pool max k=3 pad=3\n", PD_E_VALUE, 1},
		{"pool max k=2 cout=4\n", PD_E_KEYWORD, 1},
		{"pool max k=2 2\n", PD_E_SYNTAX, 1},
		{"input w=4 h=8\npool avg k=6 pad=0\n", PD_E_POOL_WINDOW, 2},
		{"input w=8 h=8\npool avg k=4 stride=2\npool max k=4 pad=1 from=prev\n"
		 "pool max k=4 from=prev\n", PD_E_POOL_WINDOW, 4},
	};
	static struct pd_desc d;
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		unsigned line = 99;
		enum pd_err e = pd_parse(bad[i].text, strlen(bad[i].text), &d, &line);
		CHECKF(e == bad[i].err && line == bad[i].line, "case %u: %s line %u, want %s line %u",
		       i, pd_err_name(e), line, pd_err_name(bad[i].err), bad[i].line);
	}
	/* too large for the chip or the buffer */
	unsigned line;
	static const char big[] = "input w=4096 h=4096 c=4096\nlayer int8\n";
	REQUIRE(pd_parse(big, strlen(big), &d, &line) == PD_OK);
	size_t len;
	CHECK_EQ(pd_build(&d, progbuf, sizeof progbuf, &len), PD_E_TOO_LARGE);
	static const char wide[] = "input c=2048\nlayer int8 cout=64\n";
	REQUIRE(pd_parse(wide, strlen(wide), &d, &line) == PD_OK);
	CHECK_EQ(pd_build(&d, progbuf, sizeof progbuf, &len), PD_E_TOO_LARGE);
	static const char ok[] = "layer int8\n";
	REQUIRE(pd_parse(ok, strlen(ok), &d, &line) == PD_OK);
	CHECK_EQ(pd_build(&d, progbuf, 0x200, &len), PD_E_TOO_LARGE);
	CHECK_EQ(pd_build(&d, progbuf, sizeof progbuf, &len), PD_OK);
	CHECK_STR(pd_err_name(PD_E_CIN), "desc-cin-differs-from-input");
	/* what the message names: the word at fault, and for cin the numbers */
	CHECK(pd_parse("input w=8\n\nlayer int8 fromm=prev\n", 33, &d, &line) == PD_E_KEYWORD &&
	      line == 3 && d.err_word && d.err_word_len == 10 && !memcmp(d.err_word, "fromm=prev", 10));
	CHECK(pd_parse("layer sparse density=0\n", 23, &d, &line) == PD_E_VALUE && d.err_word &&
	      d.err_word_len == 9 && !memcmp(d.err_word, "density=0", 9));
	CHECK(pd_parse("input c=8\nlayer int8 cin=16\n", 28, &d, &line) == PD_E_CIN && line == 2 &&
	      d.err_have == 16 && d.err_want == 8);
	/* a statement at fault as a whole names no word */
	CHECK(pd_parse("layer int8\nactivation relu\nactivation relu6\n", 44, &d, &line) ==
		      PD_E_TWO_ACTIVATIONS && !d.err_word);
}

/* Check what you program: a convolving TD of a kernel-unit program must read exactly one OCG
 * through coefficient channel 0, with the TD's output channels; else a named refusal before
 * anything runs. */
static const char *run_patched(uint32_t addr, uint32_t delta)
{
	static struct pd_desc d;
	static struct ldr_program p;
	unsigned line;
	size_t len = 0;
	if (pd_parse(default_like, strlen(default_like), &d, &line) != PD_OK ||
	    pd_build(&d, progbuf, sizeof progbuf, &len) != PD_OK ||
	    ldr_load(progbuf, len, LDR_F_RAW, &p) != LDR_OK)
		return "build-failed";
	uint32_t off[8];
	unsigned n = twrite_offsets(&p, 0, addr, off, 8);
	if (!n)
		return "register-not-written";
	if (n > 8)
		return "register-written-too-often";
	for (unsigned i = 0; i < n; i++) {
		uint8_t *q = progbuf + p.td_area_off + off[i];
		le_wr32(q, le_rd32(q) + delta);
	}
	struct session_result res;
	tsubmit(progbuf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	return session_result_name(&res);
}

TEST(mkprog, convolving_td_must_read_one_ocg)
{
	CHECK_STR(run_patched(H13_COEFF_BASEADDR(0), 0), "ok");
	/* channel 0 starts 64 bytes into its OCG: no record's block */
	CHECK_STR(run_patched(H13_COEFF_BASEADDR(0), 64), "kunit-td-weights-not-an-ocg");
	/* one 64-byte unit short of its OCG */
	CHECK_STR(run_patched(H13_COEFF_BFRSIZE(0), (uint32_t)-64), "kunit-td-weights-not-an-ocg");
	/* 31 output channels over a 32-channel OCG */
	CHECK_STR(run_patched(H13_COMMON_COUT, (uint32_t)-1), "kunit-ocg-channels-differ");
	/* runs across coefficient channels as well (OCGSize 2): the model refuses it */
	CHECK_STR(run_patched(H13_COMMON_CONVCFG, 2u << H13_CONVCFG_OCGSIZE_LSB), "engine-fault");
}

/* Palette widths H13 does not stream (1, 2, 3, 6 bits) are folded by the firmware to dense
 * fp16; 4 and 8 bits stream (the engine decodes them). The values are checked against the
 * numpy oracle by mkprog_compute. */
TEST(mkprog, palette_widths_h13_does_not_stream_are_folded)
{
	static const struct {
		const char *desc;
		unsigned folded;
	} cases[] = {
		{"input w=16 h=2 c=16\nlayer palette2 cout=16\nlayer palette2 cout=16 seed=3\n", 2},
		{"input w=16 h=2 c=16\nlayer palette1 cout=16\n", 1},
		{"input w=16 h=2 c=16\nlayer palette6 cout=16\n", 1},
		{"input w=16 h=2 c=16\nlayer palette4 cout=16\nlayer palette4 cout=16 seed=3\n", 0},
		{"input w=16 h=2 c=16\nlayer palette8 cout=16\n", 0},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		static struct pd_desc d;
		unsigned line;
		size_t len = 0;
		REQUIRE(pd_parse(cases[i].desc, strlen(cases[i].desc), &d, &line) == PD_OK);
		REQUIRE(pd_build_hwx(&d, progbuf, sizeof progbuf, &len) == PD_OK);
		struct session_result res;
		int rc = tsubmit(progbuf, len, 0, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
		CHECKF(rc == 0, "case %u: %s", i, session_result_name(&res));
		CHECKF(res.folded_tds == cases[i].folded, "case %u: %u TDs folded, want %u", i,
		       res.folded_tds, cases[i].folded);
		CHECK(res.canaries_ok);
	}
}
