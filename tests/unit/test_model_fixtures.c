/*
 * The engine model computes every real program's function (docs/engine-model.md): each program
 * in ../shared/fixtures runs end to end (loader, control path, engine driver, model) on random
 * inputs from the numpy oracle (tests/oracle/gen_model.py, build/testdata/model/NAME.orc), and
 * every output element is within the oracle's tolerance of f(input) computed in float64.
 * The checker's own test: a corrupted output and a wrong oracle value each make it fail.
 */
#include "tests/unit/tsession.h"
#include "fw/common/le.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2^e (no libm on the target) */
static double p2(int e)
{
	double v = 1.0;
	for (; e > 0; e--)
		v *= 2.0;
	for (; e < 0; e++)
		v *= 0.5;
	return v;
}

static const struct {
	const char *name, *path;
} fx[] = {
	{"tanh", "fixtures/kernels/unary/tanh.bin"},
	{"sigmoid", "fixtures/kernels/unary/sigmoid.bin"},
	{"exp", "fixtures/kernels/unary/exp.bin"},
	{"log2", "fixtures/kernels/unary/log2.bin"},
	{"sqrt", "fixtures/kernels/unary/sqrt.bin"},
	{"abs", "fixtures/kernels/unary/abs.bin"},
	{"gelu", "fixtures/kernels/activation/gelu.bin"},
	{"relu6", "fixtures/kernels/activation/relu6.bin"},
	{"leakyrelu", "fixtures/kernels/activation/leakyrelu.bin"},
	{"hardtanh", "fixtures/kernels/activation/hardtanh.bin"},
	{"add", "fixtures/kernels/binary/add.bin"},
	{"mul", "fixtures/kernels/binary/mul.bin"},
	{"hwx_relu", "fixtures/hwx/relu.hwx"},
	{"hwx_sigmoid", "fixtures/hwx/sigmoid.hwx"},
	{"hwx_conv", "fixtures/hwx/conv.hwx"},
	{"hwx_concat", "fixtures/hwx/concat.hwx"},
	{"selu", "fixtures/kernels/activation/selu.bin"},
	{"ceil", "fixtures/kernels/unary/ceil.bin"},
	{"inv", "fixtures/kernels/unary/inv.bin"},
};

static void run_one(unsigned i)
{
	struct orc o;
	char rel[64];
	snprintf(rel, sizeof rel, "model/%s.orc", fx[i].name);
	if (orc_load(rel, &o)) {
		CHECKF(0, "%s: oracle model/%s.orc missing or malformed (make builds build/testdata)",
		       fx[i].name, fx[i].name);
		free(o.buf);
		return;
	}
	uint8_t *prog;
	size_t len;
	if (test_read_file(test_shared_path(fx[i].path), &prog, &len)) {
		CHECKF(0, "%s: unreadable", fx[i].path);
		free(o.buf);
		return;
	}
	struct orc_run r;
	memset(&r, 0, sizeof r);
	r.o = &o;
	r.name = fx[i].name;
	struct session_hooks h = {orc_fill, orc_check, &r};
	struct session_result res;
	int rc = tsubmit(prog, len, 0, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
	CHECKF(rc == 0 && res.run == ENG_OK, "%s: run failed: %s", fx[i].name,
	       session_result_name(&res));
	CHECK(res.canaries_ok);
	unsigned nin = 0;
	for (unsigned k = 0; k < o.nt; k++)
		nin += o.t[k].role == 0;
	CHECKF(r.filled == nin, "%s: %u of %u inputs filled", fx[i].name, r.filled, nin);
	CHECKF(r.checked_tensors == 1, "%s: %u outputs checked", fx[i].name, r.checked_tensors);
	CHECK(r.checked > 0);
	CHECKF(r.bad == 0, "%s: %lu of %lu outside tolerance", fx[i].name, (unsigned long)r.bad,
	       (unsigned long)r.checked);
	printf("# %s: %lu values, worst error %u%% of its tolerance\n", fx[i].name,
	       (unsigned long)r.checked, (unsigned)(r.worst * 100.0));
	free(prog);
	free(o.buf);
}

#define FIXTURE_TEST(idx, nm)                                                                  \
	TEST(model_fixtures, nm)                                                                   \
	{                                                                                          \
		if (!test_shared_dir())                                                                \
			SKIP("../shared absent: the fixture programs are not run");                    \
		run_one(idx);                                                                          \
	}

FIXTURE_TEST(0, tanh_kernel)
FIXTURE_TEST(1, sigmoid_kernel_two_tds)
FIXTURE_TEST(2, exp_kernel)
FIXTURE_TEST(3, log2_kernel)
FIXTURE_TEST(4, sqrt_kernel)
FIXTURE_TEST(5, abs_kernel)
FIXTURE_TEST(6, gelu_kernel)
FIXTURE_TEST(7, relu6_kernel)
FIXTURE_TEST(8, leakyrelu_kernel)
FIXTURE_TEST(9, hardtanh_kernel)
FIXTURE_TEST(10, add_kernel)
FIXTURE_TEST(11, mul_kernel)
FIXTURE_TEST(12, hwx_relu)
FIXTURE_TEST(13, hwx_sigmoid)
FIXTURE_TEST(14, hwx_conv)
FIXTURE_TEST(15, hwx_concat)
FIXTURE_TEST(16, selu_kernel)
FIXTURE_TEST(17, ceil_kernel_four_tds)
FIXTURE_TEST(18, inv_kernel_unit_kernel_and_accbias)

/* softmax.bin (5 TDs) keeps its maximum and its sum in the engine between TDs (Planar.Cfg.SecSrc
 * 3), which the model does not model: the run fails, naming why, at TD 0 (the maximum), never
 * completing with wrong numbers (docs/engine-model.md, "Reductions"). */
static char big[1 << 16];
static size_t nbig;
static void big_out(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n && nbig + 1 < sizeof big; i++)
		big[nbig++] = s[i];
	big[nbig] = 0;
}

TEST(model_fixtures, softmax_reduction_faults_loudly)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixture programs are not run");
	uint8_t *prog;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/activation/softmax.bin"), &prog, &len) == 0);
	nbig = 0;
	big[0] = 0;
	struct session_result res;
	tsubmit(prog, len, 0, NULL, 0, 1, 1, big_out, NULL, NULL, &res);
	CHECK_EQ(res.run, ENG_E_FAULT);
	const char *why = strstr(big, "a reduction kept in the engine");
	const char *td1 = strstr(big, "\ntd 1 at");
	CHECK(why != NULL);
	CHECK(why && (!td1 || why < td1)); /* TD 0 faults, before TD 1 runs */
	free(prog);
}

/* inv.bin changed one field at a time faults, naming why, where the model has no reading
 * (docs/engine-model.md, "KernelMode and AccBias"): its KernelMode cleared, a convolution would
 * read its kernel from the LUT record's bytes (the +inf-everywhere run of old); OpMode 4 with its
 * AccBias (or KernelMode cleared with it); an AccBiasShift. TD 0 at file offset 0: MACCfg at 0x244, AccBias at 0x24c. */
static void inv_mutant(unsigned off, uint32_t clear, uint32_t set, int zero_accbias, const char *why)
{
	uint8_t *prog;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/unary/inv.bin"), &prog, &len) == 0);
	REQUIRE(len >= off + 4);
	uint32_t w = (uint32_t)prog[off] | (uint32_t)prog[off + 1] << 8 | (uint32_t)prog[off + 2] << 16 |
		     (uint32_t)prog[off + 3] << 24;
	w = (w & ~clear) | set;
	for (unsigned k = 0; k < 4; k++)
		prog[off + k] = (uint8_t)(w >> (8 * k));
	if (zero_accbias)
		memset(prog + 0x24c, 0, 4);
	nbig = 0;
	big[0] = 0;
	struct session_result res;
	tsubmit(prog, len, 0, NULL, 0, 1, 1, big_out, NULL, NULL, &res);
	CHECKF(res.run == ENG_E_FAULT, "inv.bin with 0x%x: %s", off, session_result_name(&res));
	CHECKF(strstr(big, why) != NULL, "inv.bin with 0x%x: no \"%s\" in the report", off, why);
	free(prog);
}

TEST(model_fixtures, inv_mutants_fault_loudly)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixture programs are not run");
	inv_mutant(0x244, 0x8u, 0, 1, "no kernel is there");
	inv_mutant(0x244, 0x8u, 0, 0, "NE.AccBias outside a unit-kernel convolution");
	inv_mutant(0x244, 0, 0x4u, 0, "NE.AccBias outside a unit-kernel convolution");
	inv_mutant(0x24c, 0, 1u << 16, 0, "AccBiasShift not modelled");
}

/* The checker fails on a corrupted output and on a wrong oracle value (no fixtures needed). */
TEST(model_fixtures, checker_fails_on_wrong_values)
{
	enum { W = 40 };
	static uint8_t want[8 * W], tol[8 * W], out[128];
	struct orc_tensor t = {4, 1, 1, 1, W, 128, 128, W, NULL, want, tol};
	struct orc o;
	memset(&o, 0, sizeof o);
	o.nt = 1;
	o.t[0] = t;
	for (unsigned round = 0; round < 3; round++) {
		for (unsigned k = 0; k < W; k++) {
			uint16_t h = (uint16_t)(0x3c00u + 17u * k); /* 1.0 upward */
			double d = orc_f16(h), e = p2(-10) * 2;
			uint64_t dv, ev;
			memcpy(&dv, &d, 8);
			memcpy(&ev, &e, 8);
			for (unsigned b = 0; b < 8; b++) {
				want[8 * k + b] = (uint8_t)(dv >> (8 * b));
				tol[8 * k + b] = (uint8_t)(ev >> (8 * b));
			}
			le_wr16(out + 2 * k, h);
		}
		if (round == 1)
			le_wr16(out + 2 * 7, (uint16_t)(le_rd16(out + 2 * 7) + 8)); /* 8 ulp off */
		if (round == 2)
			want[8 * 30 + 6] ^= 0x01; /* the oracle's value, not the output, is wrong */
		struct orc_run r;
		memset(&r, 0, sizeof r);
		r.o = &o;
		r.quiet = 1;
		r.name = "self-test";
		orc_check_tensor(&r, &o.t[0], out, sizeof out);
		CHECKF(r.bad == (round ? 1u : 0u), "round %u: %lu bad", round, (unsigned long)r.bad);
		CHECK_EQ(r.checked, (uint64_t)W);
	}
}
