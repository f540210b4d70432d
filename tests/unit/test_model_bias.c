/*
 * Convolutions with a bias in the engine model (NE.MACCfg.BiasMode; engine/model/compute.c's
 * load_kernels and depthwise; docs/engine-model.md, "Convolutions with a bias"), end to end (a raw
 * TD built by tools/progdesc's bp_convb and bp_dwconv, the loader, the control path, the engine
 * driver, the model), host and target, in the form Apple's H13 compiler writes them: each output's
 * kernel starts with its fp16 bias, the kernels laid out for Common.ConvCfg.OCGSize (one block an
 * output, runs of 2^k a channel, passes back to back, a last pass of 16 a channel). The
 * references are numpy's (tests/oracle/gen_model.py, conv_bias). Each has negatives: the bias
 * read from after the taps, or not read, fails the checker; the forms no program pins are refused
 * by name.
 */
#include "tests/unit/tsession.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gen_model.py's CONV_BIAS */
static const struct shape {
	const char *orc;
	unsigned cin, cout, w, h, k, ocg, relu;
} shapes[] = {
	{"cb_mod16", 5, 20, 9, 4, 3, 0, 0},     /* OCGSize 0: two blocks in channels 0..3 */
	{"cb_ocg2", 64, 64, 16, 2, 1, 2, 0},    /* Apple's 1x1 64 -> 64: 4 outputs a channel */
	{"cb_tail", 24, 48, 8, 3, 1, 1, 0},     /* a pass of 32, then 1 a channel */
	{"cb_passes3x3", 3, 64, 7, 5, 3, 1, 0}, /* two passes of 28 x 2 elements, back to back */
	{"cb_relu", 16, 32, 10, 2, 1, 0, 1},    /* the bias before the NE's ReLU */
	{"cb_tail768", 8, 768, 4, 1, 1, 5, 0},  /* Apple's 768 -> 768: 512, then 16 a channel */
	{"cb_all16x6", 8, 96, 4, 2, 1, 3, 0},   /* Apple's 96 with OCGSize 3: 6 a channel in all 16 */
	{"cb_all16x3", 5, 48, 6, 2, 1, 2, 0},   /* 48 with OCGSize 2: 3 a channel in all 16 */
	{"cb_first5x8", 8, 40, 4, 2, 1, 3, 0},  /* 40 with OCGSize 3: 8 a channel in the first 5 */
	{"cb_tail3", 4, 176, 3, 2, 1, 3, 0},    /* 128, then 3 a channel (not a power of two) */
};

static uint8_t prog[BP_WEIGHTS_OFF + 64 * 1024];
static uint16_t wts[768 * 8 + 64 * 64], bias[768];

/* gen_model.py's STRIDE2: stride-2 convolutions with phase-sparse kernels */
/* bias: 0 none, 1 BiasMode (cb_bias), 2 NE.AccBias 0.25 for every output */
static const struct s2shape {
	const char *orc;
	unsigned cin, cout, w, h, k, ocg, bias, ssm, dw, stride;
} s2shapes[] = {
	{"s2_k3_mod16", 5, 20, 9, 7, 3, 0, 1, 1, 0, 2}, /* one output a record, 4 slots a tap */
	{"s2_k1_ocg2", 64, 64, 16, 4, 1, 2, 1, 1, 0, 2}, /* Apple's 1x1 64 -> 64 with a bias */
	{"s2_k3_ocg3", 8, 128, 11, 6, 3, 3, 0, 1, 0, 2}, /* 8 outputs a record, no bias */
	{"s2_k3_ssm0", 6, 32, 10, 5, 3, 1, 1, 0, 0, 2},  /* 2 outputs, 2 slots a tap */
	{"s2_dw", 32, 32, 12, 5, 3, 0, 1, 0, 1, 2},      /* Apple's depthwise form */
	{"s2_k5", 3, 16, 13, 9, 5, 0, 1, 1, 0, 2},       /* a 5x5: phases of 3 x 3 taps with padding */
	{"s2_dw_accb", 32, 32, 12, 5, 3, 0, 2, 0, 1, 2}, /* Apple's uniform bias in NE.AccBias */
	{"cb_accb", 16, 32, 10, 3, 3, 0, 2, 0, 0, 1},    /* the same on a dense stride-1 one */
};

/* The fp16 of quarters / 4 (exact: |quarters| below 2^11), as gen_model.py's cb_weight and cb_bias
 * give them. */
static uint16_t h16q(int quarters)
{
	if (!quarters)
		return 0;
	const uint16_t s = quarters < 0 ? 0x8000u : 0u;
	const unsigned q = (unsigned)(quarters < 0 ? -quarters : quarters);
	unsigned msb = 0;
	for (unsigned t = q; t > 1u; t >>= 1)
		msb++;
	/* q x 2^-2 = 1.f x 2^(msb - 2) */
	return (uint16_t)(s | (msb + 13u) << 10 | ((q << (10u - msb)) & 0x3ffu));
}

static uint16_t cb_weight(unsigned o, unsigned i)
{
	return h16q((int)((o * 7u + i * 3u) % 11u) - 5);
}

static uint16_t cb_bias(unsigned o)
{
	return h16q(((int)((o * 5u) % 17u) - 8) * 2);
}

/* wts and bias for nout outputs of per kernel elements each: gen_model.py's cb_weight and cb_bias
 * (output o's elements at o x per) */
static void cb_fill(unsigned nout, unsigned per)
{
	for (unsigned o = 0; o < nout; o++) {
		bias[o] = cb_bias(o);
		for (unsigned i = 0; i < per; i++)
			wts[o * per + i] = cb_weight(o, i);
	}
}

/* The runners' common tail: the program in p (len bytes as built, 0 when it did not build),
 * edited when edit is given, run against oracle orc: 0 when the run completed (r counts the
 * checker's verdict), else the run's fault text in fault. */
static int run_built(const char *orc, uint8_t *p, size_t len, void (*edit)(uint8_t *, size_t),
		     struct orc_run *r, char *fault, size_t fault_len)
{
	CHECKF(len > 0, "%s: built", orc);
	if (len && edit)
		edit(p, len);
	return trun_orc(orc, p, len, fault != NULL, r, fault, fault_len);
}

/* Fills wts (cout kernels of per) and bias from cb_weight and cb_bias, builds spec over them and
 * runs it against oracle orc: 0 when the run completed (r counts the checker's verdict), else the
 * run's fault text in fault. edit, when given, changes the program before it runs. */
static int run_spec(const char *orc, struct bp_conv_spec *spec, unsigned per, void (*edit)(uint8_t *, size_t),
		    struct orc_run *r, char *fault, size_t fault_len)
{
	CHECK((size_t)spec->cout * per <= sizeof wts / sizeof wts[0]);
	if ((size_t)spec->cout * per > sizeof wts / sizeof wts[0])
		return -1;
	cb_fill(spec->cout, per);
	spec->wts = wts;
	return run_built(orc, prog, bp_convb(prog, sizeof prog, spec), edit, r, fault, fault_len);
}

/* Shape s (bias_last: the wrong layout) against its oracle, as run_spec. */
static int run(const struct shape *s, unsigned bias_last, void (*edit)(uint8_t *, size_t),
	       struct orc_run *r, char *fault, size_t fault_len)
{
	struct bp_conv_spec spec = {s->cin, s->cout, s->w, s->h, s->k, s->ocg, s->relu, bias_last,
				    NULL, bias, 1, 0, 0, 0, 0, 0, 0, 0, 0};
	return run_spec(s->orc, &spec, s->cin * s->k * s->k, edit, r, fault, fault_len);
}

static int run_dw(unsigned with_bias, void (*edit)(uint8_t *, size_t), struct orc_run *r, char *fault,
		  size_t fault_len)
{
	for (unsigned c = 0; c < 32; c++) {
		bias[c] = cb_bias(c);
		for (unsigned i = 0; i < 9; i++)
			wts[c * 9 + i] = cb_weight(c, i);
	}
	const size_t len = bp_dwconv(prog, sizeof prog, 32, 12, 5, 3, wts, with_bias ? bias : NULL);
	return run_built("cb_dw3", prog, len, edit, r, fault, fault_len);
}

TEST(model_bias, fp16_weights_helper_is_exact)
{
	/* the checker's inputs: h16q against the fp16 bit patterns of a few quarters */
	CHECK_EQ(h16q(4), 0x3c00u);   /* 1 */
	CHECK_EQ(h16q(-5), 0xbd00u);  /* -1.25 */
	CHECK_EQ(h16q(1), 0x3400u);   /* 0.25 */
	CHECK_EQ(h16q(-16), 0xc400u); /* -4 */
	CHECK_EQ(h16q(6), 0x3e00u);   /* 1.5 */
	CHECK_EQ(h16q(0), 0x0000u);
}

/* A run (rc: its result, fault: its text) that completed with every value of its one output
 * within the oracle's tolerance; the worst error printed. */
static void expect_within(const char *name, int rc, const struct orc_run *r, const char *fault)
{
	CHECKF(rc == 0, "%s: %s", name, fault);
	CHECKF(r->checked_tensors == 1 && r->checked > 0 && r->bad == 0, "%s: %lu of %lu outside", name,
	       (unsigned long)r->bad, (unsigned long)r->checked);
	printf("# %s: %lu values, worst error %u%% of its tolerance\n", name, (unsigned long)r->checked,
	       (unsigned)(r->worst * 100.0));
}

TEST(model_bias, each_output_plus_its_bias_in_every_kernel_layout)
{
	for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		int rc = run(&shapes[i], 0, NULL, &r, fault, sizeof fault);
		expect_within(shapes[i].orc, rc, &r, fault);
	}
	struct orc_run r;
	CHECK(run_dw(1, NULL, &r, NULL, 0) == 0);
	CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "cb_dw3: %lu of %lu outside",
	       (unsigned long)r.bad, (unsigned long)r.checked);
}

/* Stride-2 (or AccBias) shape s (phase_swap: the wrong encoding) against its oracle, as run_spec. */
static int run_s2(const struct s2shape *s, unsigned phase_swap, void (*edit)(uint8_t *, size_t),
		  struct orc_run *r, char *fault, size_t fault_len)
{
	struct bp_conv_spec spec = {s->cin, s->cout, s->w, s->h, s->k, s->ocg, 0, 0, NULL,
				    s->bias == 1 ? bias : NULL, s->stride, s->stride == 2, s->ssm, s->dw, phase_swap,
				    s->bias == 2 ? 0x3400u : 0, 0, 0, 0};
	return run_spec(s->orc, &spec, (s->dw ? 1u : s->cin) * s->k * s->k, edit, r, fault, fault_len);
}

TEST(model_bias, stride_two_convolutions_from_phase_sparse_kernels)
{
	for (unsigned i = 0; i < sizeof s2shapes / sizeof s2shapes[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		int rc = run_s2(&s2shapes[i], 0, NULL, &r, fault, sizeof fault);
		expect_within(s2shapes[i].orc, rc, &r, fault);
	}
}

/* gen_model.py's MATMUL_T: Apple's H13 matmul with a constant operand (bp_matmul) */
static const struct mmshape {
	const char *orc;
	unsigned m, k, n, ocg, bias, relu, split;
} mmshapes[] = {
	{"mm_t", 24, 40, 48, 1, 1, 0, 0},     /* a pass of 32 outputs, then 1 a channel */
	{"mm_t_relu", 8, 64, 64, 2, 1, 1, 0}, /* 4 outputs a channel, a bias, the NE's ReLU */
	{"mm_t", 24, 40, 48, 1, 1, 0, 1},     /* three TDs: the result kept in L2, then copied out */
};

/* Matmul shape s against its oracle, as run_spec (edit: on the two-TD stream). */
static int run_mm(const struct mmshape *s, void (*edit)(uint8_t *, size_t), struct orc_run *r,
		  char *fault, size_t fault_len)
{
	cb_fill(s->n, s->k);
	const struct bp_conv_spec spec = {s->k, s->n, s->m, 1, 1, s->ocg, s->relu, 0, wts,
					  s->bias ? bias : NULL, 1, 0, 0, 0, 0, 0, s->split, 0, 0};
	return run_built(s->orc, prog, bp_matmul(prog, sizeof prog, &spec), edit, r, fault, fault_len);
}

TEST(model_bias, matmul_through_l2_memory_written_transposed)
{
	for (unsigned i = 0; i < sizeof mmshapes / sizeof mmshapes[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		int rc = run_mm(&mmshapes[i], NULL, &r, fault, sizeof fault);
		expect_within(mmshapes[i].split ? "mm_t (3 TDs)" : mmshapes[i].orc, rc, &r, fault);
	}
}

/* gen_model.py's CONV_KEEP: a convolution in two TDs sharing x, kept in L2 memory by the first as
 * it reads it (bp_convkeep, as Apple's batched matmul shares its tile operand) */
static int run_keep(void (*edit)(uint8_t *, size_t), struct orc_run *r, char *fault, size_t fault_len)
{
	enum { CIN = 48, COUT = 32, W = 40 };
	for (unsigned o = 0; o < COUT; o++)
		for (unsigned i = 0; i < CIN; i++)
			wts[o * CIN + i] = cb_weight(o, i);
	const struct bp_conv_spec spec = {.cin = CIN, .cout = COUT, .w = W, .h = 1, .k = 1, .wts = wts};
	return run_built("conv_keep", prog, bp_convkeep(prog, sizeof prog, &spec), edit, r, fault, fault_len);
}

TEST(model_bias, a_convolution_keeps_its_operand_in_l2_for_the_next)
{
	struct orc_run r;
	char fault[256] = "";
	int rc = run_keep(NULL, &r, fault, sizeof fault);
	expect_within("conv_keep", rc, &r, fault);
}

/* gen_model.py's BMM: Apple's batched matmul with both operands at run time (bp_bmm): each
 * output row a convolution whose kernel is a row of x, read by the kernel DMA from BAR 6; with
 * wconst (its bmm_const), x by a constant w the tile DMA reads from the program's weights (BAR 1),
 * Apple's rb form */
static int run_bmm_x(unsigned group, unsigned align, int wconst, unsigned xcopy,
		     void (*edit)(uint8_t *, size_t), struct orc_run *r, char *fault, size_t fault_len)
{
	for (unsigned c = 0; wconst && c < 2 * 40; c++)
		for (unsigned j = 0; j < 48; j++)
			wts[c * 48 + j] = cb_weight(c, j);
	const struct bp_bmm_spec spec = {2, 24, 40, 48, group, 6, align, wconst ? wts : NULL, xcopy};
	const size_t len = bp_bmm(prog, sizeof prog, &spec);
	return run_built(wconst ? "bmm_const" : "bmm", prog, len, edit, r, fault, fault_len);
}

static int run_bmm(unsigned group, unsigned align, int wconst, void (*edit)(uint8_t *, size_t),
		   struct orc_run *r, char *fault, size_t fault_len)
{
	return run_bmm_x(group, align, wconst, 0, edit, r, fault, fault_len);
}

/* The kernels an earlier TD wrote: TD 0 copies x from BAR 6 to BAR 3, the kernel DMA reads
 * them there (Apple's transpose_x form writes x transposed there first) */
/* The extended header (fw/td td_hdr_extended): every TD reading its kernels from BAR 3 has header
 * word 9 0x23 and one more word after the ten, which the TD writer writes 0; ext_word sets it, in
 * each such TD, to ext_value (Apple's attention has 7 there), or with ext_at_record puts that value
 * over the TD's first record command instead */
static uint32_t ext_value;
static int ext_at_record;
static unsigned ext_tds;

static void ext_word(uint8_t *p, size_t len)
{
	static struct ldr_program lp;
	ext_tds = 0;
	if (ldr_load(p, len, LDR_F_RAW, &lp) != LDR_OK)
		return;
	for (unsigned i = 0; i < lp.ntds; i++)
		if (ldr_td_ext_bytes(&lp, i)) {
			CHECK_EQ(le_rd32(p + lp.tds[i].off + 4u * H13_TD_HEADER_WORDS), 0u);
			le_wr32(p + lp.tds[i].off + 4u * (H13_TD_HEADER_WORDS + (ext_at_record ? 1u : 0u)), ext_value);
			ext_tds++;
		}
}

TEST(model_bias, a_batched_matmul_reads_kernels_an_earlier_td_wrote)
{
	struct orc_run r;
	char fault[256] = "";
	int rc = run_bmm_x(16, 1, 0, 3, NULL, &r, fault, sizeof fault);
	expect_within("bmm (x copied to BAR 3 first)", rc, &r, fault);
	/* the extended header's word holding 7, as in Apple's attention: skipped, the same numbers */
	ext_value = 7, ext_at_record = 0;
	rc = run_bmm_x(16, 1, 0, 3, ext_word, &r, fault, sizeof fault);
	CHECK(ext_tds > 0);
	expect_within("bmm (extended header word 7)", rc, &r, fault);
#if !defined(ANEFW_TARGET)
	/* the same 7 one word on, over the first record's command: refused */
	ext_at_record = 1;
	CHECK(run_bmm_x(16, 1, 0, 3, ext_word, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "unknown_register") != NULL || strstr(fault, "register") != NULL, "%s", fault);
#endif
}

TEST(model_bias, a_batched_matmul_reads_its_kernels_from_a_runtime_tensor)
{
	/* Apple's form (16 rows a TD, NE.KernelCfg.Align), 5 rows a TD (10 TDs), and without Align */
	static const unsigned forms[][2] = {{16, 1}, {5, 1}, {16, 0}};
	for (unsigned i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		int rc = run_bmm(forms[i][0], forms[i][1], 0, NULL, &r, fault, sizeof fault);
		char name[48];
		snprintf(name, sizeof name, "bmm (%u rows a TD, Align %u)", forms[i][0], forms[i][1]);
		expect_within(name, rc, &r, fault);
	}
	struct orc_run r;
	char fault[256] = "";
	int rc = run_bmm(16, 1, 1, NULL, &r, fault, sizeof fault);
	expect_within("bmm_const (w the program's constant, through BAR 1)", rc, &r, fault);
	/* one row a TD: 160 TDs, over the 64 a program was held to until 2026-11-28 (Apple's over 8
	 * batches are 208 and 209) */
	static uint8_t many[160 * 0x300];
	const struct bp_bmm_spec spec = {4, 40, 16, 24, 1, 6, 1, NULL, 0};
	size_t len = bp_bmm(many, sizeof many, &spec);
	CHECK(len > 0);
	rc = trun_orc("bmm_many", many, len, 0, &r, fault, sizeof fault);
	expect_within("bmm_many (160 TDs)", rc, &r, fault);
}

#if !defined(ANEFW_TARGET) /* the negatives run on the host (the same code on the target) */
/* TD 0's first kernel read one row of x on (bp_row(40) = 128 bytes) */
static void kernel_row_on(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COEFF_BASEADDR(0), 0, 32, 128) == 0);
}
static void src_row_on(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_SRC_BASEADDR, 0, 32, 128) == 0);
}
/* the copy TD reading x one row on (x's rows 1.. as the kernels of rows 0..) */
static void copy_row_on(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_SRC_BASEADDR, 0, 32, 128) == 0);
}
/* TD 1's first kernel read past the 48 rows TD 0 wrote */
static void kernel_past_copy(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 1, H13_COEFF_BASEADDR(0), 0, 32, 48u * 128u) == 0);
}
static void bias_on(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1) == 0);
}

TEST(model_bias, a_runtime_kernel_read_a_row_off_fails_and_align_with_a_bias_is_refused)
{
	struct orc_run r;
	char fault[256] = "";
	/* row 0 computed with row 1's kernel: its 48 outputs, and only those, fail the checker */
	CHECKF(run_bmm(16, 1, 0, kernel_row_on, &r, fault, sizeof fault) == 0, "%s", fault);
	CHECKF(r.bad > 0 && r.bad <= 48, "%lu of %lu outside", (unsigned long)r.bad, (unsigned long)r.checked);
	/* the constant w read one row of the weights on (TD 0's source base 128 bytes on) */
	CHECKF(run_bmm(16, 1, 1, src_row_on, &r, fault, sizeof fault) == 0, "%s", fault);
	CHECKF(r.bad > r.checked / 4, "const: %lu of %lu outside", (unsigned long)r.bad, (unsigned long)r.checked);
	CHECK(run_bmm(16, 1, 0, bias_on, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "td 0, unit NE, NE.KernelCfg.Align = 0x1: unmodelled-combination: NE.KernelCfg.Align "
			     "on other than dense 1x1 fp16 kernels without a bias") != NULL,
	       "fault \"%s\"", fault);
	/* kernels an earlier TD wrote: that TD copying the wrong rows fails the checker; a kernel
	 * read of bytes no earlier TD wrote is refused by name before anything runs */
	CHECKF(run_bmm_x(16, 1, 0, 3, copy_row_on, &r, fault, sizeof fault) == 0, "%s", fault);
	CHECKF(r.bad > r.checked / 4, "copy one row on: %lu of %lu outside", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	CHECK(run_bmm_x(16, 1, 0, 3, kernel_past_copy, &r, fault, sizeof fault) != 0);
	CHECKF(!strcmp(fault, "intermediate-extent-conflict"), "fault \"%s\"", fault);
}

static uint32_t field_value;
static unsigned field_reg, field_lsb, field_w;
static void set_field(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, field_reg, field_lsb, field_w, field_value) == 0);
}

/* TD 0 reads x by the tile DMA without keeping it (SourceType 2); TD 1 reads x one channel on */
static void keep_off(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W, H13_L2_DMA) == 0);
}
static void keep_shifted(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 1, H13_L2_SOURCEBASE, H13_L2_ADDR_LSB, H13_L2_ADDR_W, 5) == 0); /* 80 bytes on */
}

TEST(model_bias, an_operand_not_kept_or_read_elsewhere_fails_or_is_refused)
{
	struct orc_run r;
	char fault[256] = "";
	CHECK(run_keep(keep_off, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "td 1, unit L2, L2.SourceBase.Addr = 0x0: unmodelled-combination: a convolution reads "
			     "L2 memory no TD of this submission wrote") != NULL, "fault \"%s\"", fault);
	/* read one channel on, the last channel past what TD 0 kept */
	CHECK(run_keep(keep_shifted, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "td 1, unit L2, L2.SourceBase.Addr = 0x5: unmodelled-combination: a convolution reads "
			     "L2 memory no TD of this submission wrote") != NULL, "fault \"%s\"", fault);
}

static void expect_fails(const struct shape *s, unsigned bias_last, void (*edit)(uint8_t *, size_t),
			 const char *what)
{
	struct orc_run r;
	char fault[256] = "";
	CHECKF(run(s, bias_last, edit, &r, fault, sizeof fault) == 0, "%s: %s: %s", s->orc, what, fault);
	CHECKF(r.bad > r.checked / 4, "%s: %s: %lu of %lu outside", s->orc, what, (unsigned long)r.bad,
	       (unsigned long)r.checked);
}

static void expect_refused(const struct shape *s, void (*edit)(uint8_t *, size_t), const char *want)
{
	struct orc_run r;
	char fault[256] = "";
	CHECK(run(s, 0, edit, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, want) != NULL, "%s: fault \"%s\", want \"%s\"", s->orc, fault, want);
}

TEST(model_bias, bias_after_the_taps_or_unread_fails_and_unpinned_forms_are_refused)
{
	/* the bias laid out after the taps (every element of the kernel one place off): fails */
	for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		expect_fails(&shapes[i], 1, NULL, "bias after the taps");
	/* BiasMode cleared: the first element read as a tap, the bias not added: fails */
	field_reg = H13_NE_MACCFG;
	field_lsb = H13_MACCFG_BIASMODE_LSB;
	field_w = H13_MACCFG_BIASMODE_W;
	field_value = 0;
	expect_fails(&shapes[0], 0, set_field, "BiasMode cleared");
	/* in runs, each channel then longer than its 16 x 64 taps (Apple's 0x240 holds 16 x 65): the
	 * sizes disagree with the layout, refused (docs/engine-model.md, "Kernel layout") */
	expect_refused(&shapes[1], set_field, "KernelDMASrc.CoeffBfrSize[0] = 0x240: unmodelled-combination: a "
					      "coefficient channel's CoeffBfrSize larger than the kernels");
	/* and on the depthwise form */
	struct orc_run r;
	char fault[256] = "";
	CHECK(run_dw(1, set_field, &r, fault, sizeof fault) == 0);
	CHECKF(r.bad > r.checked / 4, "depthwise, BiasMode cleared: %lu of %lu outside", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	CHECK(run_dw(0, NULL, &r, fault, sizeof fault) == 0); /* no bias at all */
	CHECKF(r.bad > r.checked / 4, "depthwise without its bias: %lu of %lu outside", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	/* NE.PostScale 2 with a bias: whether the bias is scaled is not pinned: refused by name */
	field_reg = H13_NE_POSTSCALE;
	field_lsb = H13_POSTSCALE_LSB;
	field_w = H13_POSTSCALE_W;
	field_value = 0x4000u;
	expect_refused(&shapes[0], set_field, "NE.MACCfg.BiasMode with a kernel unit, or with NE.PostScale other than 1");
	CHECK(run_dw(1, set_field, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "NE.MACCfg.BiasMode with a kernel unit, or with NE.PostScale other than 1") != NULL, "%s", fault);
	/* int8 kernels with a bias: refused */
	field_reg = H13_NE_KERNELCFG;
	field_lsb = H13_KERNELCFG_KERNELFMT_LSB;
	field_w = H13_KERNELCFG_KERNELFMT_W;
	field_value = H13_KERNELFMT_INT8;
	expect_refused(&shapes[0], set_field, "NE.MACCfg.BiasMode with kernels other than fp16");
	/* a bias on the NE as an elementwise stage: refused */
	field_reg = H13_NE_MACCFG;
	field_lsb = 0;
	field_w = 32;
	field_value = H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
		      H13_PUT(H13_MACCFG_BIASMODE, 1) | H13_PUT(H13_MACCFG_BIT20, 1);
	expect_refused(&shapes[4], set_field, "NE.MACCfg.BiasMode other than on a convolution with kernels in memory");
	/* a last pass of 8 outputs (not 16 a channel): OCGSize's layout not pinned, refused */
	field_reg = H13_COMMON_COUT;
	field_lsb = 0;
	field_w = 32;
	field_value = 40;
	expect_refused(&shapes[2], set_field, "Common.ConvCfg.OCGSize above 0 with several groups");
}
static void flip_ssm(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COMMON_CFG, H13_CFG_SMALLSOURCE_LSB, H13_CFG_SMALLSOURCE_W,
			   field_value) == 0);
}

static void clear_sparse_bit(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_KDMA_WORD0, 0, 32, 0x40u) == 0);
}

static void clear_sparsefmt(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_SPARSEFMT_LSB, H13_KERNELCFG_SPARSEFMT_W,
			   0) == 0);
}

static void corrupt_a_record(uint8_t *b, size_t len)
{
	/* the first record's body count one more than its body */
	const size_t at = BP_WEIGHTS_OFF + 2u; /* after s2_k3_mod16's one bias */
	CHECK(len > at + 3);
	b[at] = (uint8_t)(b[at] + 1u);
}

TEST(model_bias, phase_sparse_kernels_wrongly_encoded_or_read_fail_or_are_refused)
{
	struct orc_run r;
	char fault[256];
	/* the middle phases swapped (the 1x1's phases are one tap each: only the 3x3s and 5x5): the
	 * weights land on other taps (the checker fails) or on a padding tap (refused) */
	for (unsigned i = 0; i < sizeof s2shapes / sizeof s2shapes[0]; i++) {
		if (s2shapes[i].k == 1 || s2shapes[i].stride != 2)
			continue;
		fault[0] = 0;
		memset(&r, 0, sizeof r);
		if (run_s2(&s2shapes[i], 1, NULL, &r, fault, sizeof fault) != 0) /* a value on a pad tap */
			CHECKF(strstr(fault, "a phase-sparse kernel keeps a value in a slot that holds no weight"),
			       "%s: %s", s2shapes[i].orc, fault);
		else
			CHECKF(r.bad > r.checked / 4, "%s, phases swapped: %lu of %lu outside", s2shapes[i].orc,
			       (unsigned long)r.bad, (unsigned long)r.checked);
	}
	/* SmallSourceMode flipped in the registers: a tap read as 2 slots where 4 were written, or 4
	 * where 2: the decoder refuses it (a value in a padding slot, a body of another length) or
	 * the weights land elsewhere and the checker fails */
	static const struct {
		unsigned shape, ssm;
	} flips[] = {{0, 0}, {3, 1}, {4, 1}};
	for (unsigned i = 0; i < sizeof flips / sizeof flips[0]; i++) {
		const struct s2shape *sh = &s2shapes[flips[i].shape];
		field_value = flips[i].ssm;
		fault[0] = 0;
		memset(&r, 0, sizeof r);
		if (run_s2(sh, 0, flip_ssm, &r, fault, sizeof fault) != 0)
			CHECKF(strstr(fault, "phase-sparse kernel") != NULL || strstr(fault, "packed input size") != NULL,
			       "%s: %s", sh->orc, fault);
		else
			CHECKF(r.bad > r.checked / 4, "%s, SmallSourceMode flipped: %lu of %lu outside", sh->orc,
			       (unsigned long)r.bad, (unsigned long)r.checked);
	}
	/* KernelDMASrc +0x00's bit 5 without SparseFmt, or SparseFmt without it: refused */
	fault[0] = 0;
	CHECK(run_s2(&s2shapes[0], 0, clear_sparse_bit, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "KernelDMASrc +0x00 bit 5 without NE.KernelCfg.SparseFmt") != NULL, "%s", fault);
	fault[0] = 0;
	CHECK(run_s2(&s2shapes[0], 0, clear_sparsefmt, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "KernelDMASrc +0x00 bit 5 without NE.KernelCfg.SparseFmt") != NULL, "%s", fault);
	/* NE.AccBias cleared: the bias not added, the checker fails; with PostScale 2: refused */
	for (unsigned i = 6; i < 8; i++) {
		field_reg = H13_NE_ACCBIAS;
		field_lsb = H13_ACCBIAS_LSB;
		field_w = H13_ACCBIAS_W;
		field_value = 0;
		memset(&r, 0, sizeof r);
		CHECK(run_s2(&s2shapes[i], 0, set_field, &r, fault, sizeof fault) == 0);
		CHECKF(r.bad > r.checked / 4, "%s without its AccBias: %lu of %lu outside", s2shapes[i].orc,
		       (unsigned long)r.bad, (unsigned long)r.checked);
		field_reg = H13_NE_POSTSCALE;
		field_lsb = H13_POSTSCALE_LSB;
		field_w = H13_POSTSCALE_W;
		field_value = 0x4000u;
		fault[0] = 0;
		CHECK(run_s2(&s2shapes[i], 0, set_field, &r, fault, sizeof fault) != 0);
		CHECKF(strstr(fault, "NE.AccBias on a convolution with BiasMode, a kernel unit or NE.PostScale") != NULL,
		       "%s: %s", s2shapes[i].orc, fault);
	}
	/* a record whose count disagrees with its body: refused naming the codec's error */
	fault[0] = 0;
	CHECK(run_s2(&s2shapes[0], 0, corrupt_a_record, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "packed input size does not match") != NULL, "%s", fault);
}
static unsigned otr_td;
static void clear_otr(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, otr_td, H13_COMMON_CFG, H13_CFG_OUTTRANSPOSE_LSB, H13_CFG_OUTTRANSPOSE_W,
			   0) == 0);
}

TEST(model_bias, matmul_without_either_transpose_fails_or_is_refused)
{
	/* TD 1 writing untransposed (N planes of M: past the grant its transposed extent sized; in the
	 * three-TD form, into L2 where TD 2 reads other rows), or TD 0 leaving x untransposed in L2
	 * (its rows over one another): refused by name, or the checker fails */
	for (unsigned i = 0; i < 4; i++) {
		const struct mmshape *sh = &mmshapes[i < 2 ? 0 : 2];
		otr_td = i % 2;
		struct orc_run r;
		char fault[256] = "";
		memset(&r, 0, sizeof r);
		if (run_mm(sh, clear_otr, &r, fault, sizeof fault) != 0)
			CHECKF(fault[0] != 0, "td %u's OutTranspose cleared: refused without a reason", otr_td);
		else
			CHECKF(r.bad > r.checked / 4, "td %u's OutTranspose cleared: %lu of %lu outside", otr_td,
			       (unsigned long)r.bad, (unsigned long)r.checked);
	}
}

/* The three-TD matmul (mm_t_relu's 8 x 64 by 64, K = N) with TD 1's convolution writing its
 * result over its own operand in L2, the same view element for element (ResultBase 0, strides x's,
 * untransposed): each output reads every input channel at its position, so which outputs are
 * written before which inputs are read decides the numbers, and no program pins the engine's
 * order. Before the review of 2026-12-06 TD 1 completed as if it read all of x first (the run went
 * on to TD 2, which found its rows unwritten); now TD 1 is refused by name. Its control, the
 * unedited three-TD form, computes numpy's values (matmul_through_l2_memory_written_transposed). */
static void conv_in_place(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 1, H13_L2_RESULTBASE, H13_L2_ADDR_LSB, H13_L2_ADDR_W, 0) == 0);
	CHECK(tpatch_field(b, len, 1, H13_L2_RES_CSTRIDE, H13_L2_STRIDE_LSB, H13_L2_STRIDE_W, 1) == 0);
	CHECK(tpatch_field(b, len, 1, H13_L2_RES_CSTRIDE + 4u, H13_L2_STRIDE_LSB, H13_L2_STRIDE_W, 1) == 0);
	CHECK(tpatch_field(b, len, 1, H13_COMMON_CFG, H13_CFG_OUTTRANSPOSE_LSB, H13_CFG_OUTTRANSPOSE_W, 0) == 0);
}

TEST(model_bias, a_convolution_over_its_own_operand_in_l2_is_refused)
{
	static const struct mmshape sq = {"mm_t_relu", 8, 64, 64, 2, 1, 1, 1};
	struct orc_run r;
	char fault[256] = "";
	CHECKF(run_mm(&sq, NULL, &r, fault, sizeof fault) == 0, "control: %s", fault);
	CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "control: %lu of %lu outside",
	       (unsigned long)r.bad, (unsigned long)r.checked);
	fault[0] = 0;
	CHECK(run_mm(&sq, conv_in_place, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "td 1, unit L2, L2.ResultBase.Addr = 0x0: unmodelled-combination: a result in L2 "
			     "memory over an operand the same TD reads from L2") != NULL,
	       "fault \"%s\"", fault);
}

/* The three-TD matmul's convolution (TD 1, its result kept in L2 memory) with no first source:
 * L2.SourceCfg.SourceType 2 (by the tile DMA) where it read x from L2 memory, and no tile source
 * there (RBase0 not bound). The model's L2 path convolved nothing, each input row outside its range
 * read as padding, and the run completed ("ok", the bias alone through the ReLU) until 2026-12-06;
 * it is refused by name, the L2 paths' text (fw/td td_conv_l2_refusal). Its control, the program
 * as built, computes numpy's values (mm_t_relu). */
static void conv_no_first_source(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 1, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W, H13_L2_DMA) == 0);
}

TEST(model_bias, a_convolution_into_l2_memory_with_no_first_source_is_refused)
{
	static const struct mmshape sq = {"mm_t_relu", 8, 64, 64, 2, 1, 1, 1};
	struct orc_run r;
	char fault[256] = "";
	CHECKF(run_mm(&sq, NULL, &r, fault, sizeof fault) == 0, "control: %s", fault);
	CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "control: %lu of %lu outside",
	       (unsigned long)r.bad, (unsigned long)r.checked);
	fault[0] = 0;
	CHECKF(run_mm(&sq, conv_no_first_source, &r, fault, sizeof fault) != 0, "completed: %lu of %lu outside",
	       (unsigned long)r.bad, (unsigned long)r.checked);
	CHECKF(strstr(fault, "td 1, unit engine: unmodelled-combination: the first source is neither in L2 "
			     "memory nor a bound tile source (RBase0): not modelled") != NULL,
	       "fault \"%s\"", fault);
}

/* A depthwise convolution (UnicastCin 1) with BiasMode and KernelFmt 1 kernels: refused by name,
 * as the dense path refuses a bias with kernels other than fp16 (docs/engine-model.md, "What a
 * third review found"). Before, the depthwise path read the bias as the kernel's first byte, a
 * signed integer, and its taps as the bytes after it: a reading no program pins, which completed.
 * Its control, the same TD with fp16 kernels, computes numpy's values (cb_dw3). */
TEST(model_bias, a_depthwise_bias_with_kernelfmt_1_is_refused)
{
	struct orc_run r;
	char fault[256] = "";
	CHECKF(run_dw(1, NULL, &r, fault, sizeof fault) == 0, "control: %s", fault);
	CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "control: %lu of %lu outside",
	       (unsigned long)r.bad, (unsigned long)r.checked);
	field_reg = H13_NE_KERNELCFG;
	field_lsb = H13_KERNELCFG_KERNELFMT_LSB;
	field_w = H13_KERNELCFG_KERNELFMT_W;
	field_value = H13_KERNELFMT_UINT8;
	fault[0] = 0;
	CHECK(run_dw(1, set_field, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "NE.MACCfg.BiasMode with kernels other than fp16") != NULL, "fault \"%s\"", fault);
}
#endif

/*
 * The activation LUT's record at the head of each coefficient channel, the channel's kernels
 * after it (fw/td td_lut_place, TD_LUT_HEADS), as Apple's H13 matmul with a fused gelu lays out
 * its 16 channels (docs/engine-model.md, "The activation record at the head of each kernel
 * channel"): cb_relu's convolution (16 -> 32, a bias) with NonlinearMode 2 and benchprog's tanh
 * record in front of every channel's kernels, against tanh of the sum (gen_model.py's cb_lut,
 * within the 33-knot bound), its outputs in runs as Apple's are (OCGSize 1; OCGSize-0 blocks behind
 * a record are refused since the sixth review). Negatives: the plain convolution fails the checker; records that
 * differ between channels are refused, naming the channel.
 */
static uint8_t lutprog[BP_WEIGHTS_OFF + 64 * 1024];

/* The value TD 0 of p writes to register a (0 when it writes none). */
static uint32_t td0_reg(const uint8_t *p, uint32_t a)
{
	uint32_t v = 0;
	for (unsigned i = H13_TD_HEADER_WORDS * 4u; i + 4u <= BP_WEIGHTS_OFF;) {
		const uint32_t w = le_rd32(p + i), n = (w >> 26) + 1u, addr = w & 0x3ffffffu;
		if (!w) {
			i += 4u;
			continue;
		}
		if (a >= addr && a < addr + 4u * n)
			v = le_rd32(p + i + 4u + (a - addr));
		i += 4u + 4u * n;
	}
	return v;
}

static size_t lut_heads(const uint8_t *conv, uint8_t *out, size_t cap)
{
	uint8_t act[BP_ACT_BYTES];
	if (!bp_act(act, sizeof act, 8, 1, 1))
		return 0;
	memcpy(out, conv, BP_WEIGHTS_OFF);
	size_t end = BP_WEIGHTS_OFF;
	uint32_t at[H13_COEFF_NCH] = {0}, size[H13_COEFF_NCH] = {0};
	for (unsigned l = 0; l < H13_COEFF_NCH; l++) {
		if (!H13_GET(td0_reg(conv, H13_COEFF_DMACONFIG(l)), H13_DMA_EN))
			continue;
		const uint32_t base = (uint32_t)H13_ADDR_BYTES(td0_reg(conv, H13_COEFF_BASEADDR(l)));
		size[l] = (uint32_t)H13_ADDR_BYTES(td0_reg(conv, H13_COEFF_BFRSIZE(l)));
		at[l] = (uint32_t)(end - BP_WEIGHTS_OFF);
		if (end + ACTLUT_STRIDE + size[l] > cap)
			return 0;
		memcpy(out + end, act + BP_WEIGHTS_OFF, ACTLUT_STRIDE);
		memcpy(out + end + ACTLUT_STRIDE, conv + BP_WEIGHTS_OFF + base, size[l]);
		end += ACTLUT_STRIDE + size[l];
	}
	for (unsigned l = 0; l < H13_COEFF_NCH; l++)
		if (size[l] && (tpatch_field(out, end, 0, H13_COEFF_BASEADDR(l), 0, 32, at[l]) ||
				tpatch_field(out, end, 0, H13_COEFF_BFRSIZE(l), 0, 32, size[l] + ACTLUT_STRIDE)))
			return 0;
	if (tpatch_field(out, end, 0, H13_NE_MACCFG, H13_MACCFG_NONLINEARMODE_LSB, H13_MACCFG_NONLINEARMODE_W,
			 H13_NONLINEAR_LUT))
		return 0;
	return end;
}

/* cb_relu's convolution (16 -> 32, a bias, OCGSize ocg) built into prog (its length in *len) and,
 * with the tanh record at each channel's head, into lutprog: that program's length (0: not built) */
static size_t lut_conv(unsigned ocg, size_t *len)
{
	struct bp_conv_spec spec = {16, 32, 10, 2, 1, ocg, 0, 0, NULL, bias, 1, 0, 0, 0, 0, 0, 0, 0, 0};
	cb_fill(spec.cout, spec.cin);
	spec.wts = wts;
	*len = bp_convb(prog, sizeof prog, &spec);
	CHECK(*len > 0);
	return *len ? lut_heads(prog, lutprog, sizeof lutprog) : 0;
}

TEST(model_bias, the_lut_record_at_the_head_of_each_kernel_channel)
{
	size_t len, l2 = lut_conv(1, &len);
	REQUIRE(l2 > 0);
	struct orc_run r;
	char fault[256] = "";
	int rc = trun_orc("cb_lut", lutprog, l2, 0, &r, fault, sizeof fault);
	expect_within("cb_lut", rc, &r, fault);
	/* the checker's negative: the convolution without its tanh */
	CHECK(trun_orc("cb_lut", prog, len, 1, &r, NULL, 0) == 0);
	CHECK(r.bad > r.checked / 4);
	/* channel 5's record unlike channel 0's: refused, naming the channel */
	const uint32_t at5 = (uint32_t)H13_ADDR_BYTES(td0_reg(lutprog, H13_COEFF_BASEADDR(5)));
	lutprog[BP_WEIGHTS_OFF + at5 + 2u * ACTLUT_KNOT0 + 4u] ^= 1u;
	CHECK(trun_orc("cb_lut", lutprog, l2, 1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "KernelDMASrc.CoeffBaseAddr[5]") && strstr(fault, "heads differ"), "%s", fault);
}

/*
 * The same convolution with its outputs in runs (OCGSize 1: 2 outputs a channel, one pass of 32),
 * the record at each channel's head: the model reads each channel's kernels after its record
 * (engine/model/model.c resolve_act) and computes tanh of the sum; inspect compared the layout's
 * kernels with the whole CoeffBfrSize, record included, and marked the TD "not modelled: a
 * coefficient channel's CoeffBfrSize larger than the kernels the layout ... puts in it" (found by
 * the regression check of 2026-12-06: Apple's matmuls with a fused silu or gelu, OCGSize 4 and 5,
 * in the ninth and tenth sweeps' streams). Control: the same layout with a 64-byte line more in
 * channel 3 is refused by the model, and inspect marks it.
 */
TEST(model_bias, inspect_reads_the_kernels_after_the_record_at_each_channels_head)
{
	size_t len, l2 = lut_conv(1, &len);
	REQUIRE(l2 > 0);
	struct orc_run r;
	char fault[256] = "";
	int rc = trun_orc("cb_lut", lutprog, l2, 0, &r, fault, sizeof fault);
	expect_within("cb_lut (OCGSize 1)", rc, &r, fault);
	const char *itext = tinspect(lutprog, l2);
	CHECKF(strstr(itext, "2 outputs a coefficient channel (OCGSize 1), x PostScale 1") != NULL &&
		       !strstr(itext, "not modelled"),
	       "%s", itext);
	/* control: channel 3 one line longer than its record and kernels */
	const uint32_t sz3 = td0_reg(lutprog, H13_COEFF_BFRSIZE(3));
	REQUIRE(tpatch_field(lutprog, l2, 0, H13_COEFF_BFRSIZE(3), 0, 32, sz3 + 64u) == 0);
	fault[0] = 0;
	CHECK(trun_orc("cb_lut", lutprog, l2, 1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "KernelDMASrc.CoeffBfrSize[3]") && strstr(fault, "larger than the kernels the layout"),
	       "%s", fault);
	itext = tinspect(lutprog, l2);
	CHECKF(strstr(itext, "(OCGSize 1) (not modelled: a coefficient channel's CoeffBfrSize larger") != NULL,
	       "%s", itext);
}

/* gen_model.py's STRIDE2_GROUPED: grouped stride-2 convolutions with phase-sparse kernels, laid out
 * as Apple's H13 grouped 3x3 stride 2 (4 groups of 16 -> 16, its constant rebuilt to Apple's
 * SHA-256): OCGSize 0, one output a record, output o (over all groups) record o / 16 of channel o
 * mod 16, each record on its own 64-byte line, its body over the group's Cin */
static const struct gshape {
	const char *orc;
	unsigned groups, cin, cout, w, h, k, ocg, stride;
} gshapes[] = {
	{"s2_g4", 4, 16, 16, 10, 7, 3, 0, 2}, /* Apple's: every channel a record from each group */
	{"s2_g3", 3, 5, 8, 9, 6, 3, 0, 2},    /* 24 outputs: channels 0-7 two records, 8-15 one */
};
static uint8_t gprog[BP_WEIGHTS_OFF + 64 * 1024];

/* Shape s (grp_wrong: bp_convb's wrong layouts; edit, when given, changes the program first)
 * built into gprog against its oracle, as run_spec: Common.ConvCfg.OCGSize s->ocg, stride 2 as
 * phase-sparse records (SmallSourceMode), else dense. */
static int run_g(const struct gshape *s, unsigned grp_wrong, void (*edit)(uint8_t *, size_t),
		 struct orc_run *r, char *fault, size_t fault_len)
{
	const unsigned nout = s->groups * s->cout, per = s->cin * s->k * s->k;
	CHECK((size_t)nout * per <= sizeof wts / sizeof wts[0] && nout <= sizeof bias / sizeof bias[0]);
	cb_fill(nout, per);
	struct bp_conv_spec spec = {.cin = s->cin, .cout = s->cout, .w = s->w, .h = s->h, .k = s->k,
				    .ocg = s->ocg, .wts = wts, .bias = bias, .stride = s->stride,
				    .sparse = s->stride == 2, .ssm = s->stride == 2, .groups = s->groups,
				    .grp_wrong = grp_wrong};
	return run_built(s->orc, gprog, bp_convb(gprog, sizeof gprog, &spec), edit, r, fault, fault_len);
}

TEST(model_bias, grouped_stride_two_convolutions_from_phase_sparse_records)
{
	for (unsigned i = 0; i < sizeof gshapes / sizeof gshapes[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		int rc = run_g(&gshapes[i], 0, NULL, &r, fault, sizeof fault);
		expect_within(gshapes[i].orc, rc, &r, fault);
	}
}

/* channel 0's first record followed by a nonzero byte where the padding to the next line is */
static void pad_byte(uint8_t *b, size_t len)
{
	const size_t at = BP_WEIGHTS_OFF + 2u; /* after output 0's bias: its body count */
	CHECK(len > at + 3);
	const size_t end = 2u + 3u + ((size_t)b[at] | (size_t)b[at + 1] << 8 | (size_t)b[at + 2] << 16);
	CHECK(end % 64u != 0 && BP_WEIGHTS_OFF + end < len);
	b[BP_WEIGHTS_OFF + end] = 1;
}

static void set_ocg1(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE_LSB, H13_CONVCFG_OCGSIZE_W, 1) == 0);
}

TEST(model_bias, grouped_phase_sparse_records_in_another_layout_fail_or_are_refused)
{
	struct orc_run r;
	char fault[256];
	for (unsigned i = 0; i < sizeof gshapes / sizeof gshapes[0]; i++) {
		/* the block order (channel c outputs c n .. c n + n - 1; what Apple's dense stride-2
		 * 64 -> 128 has): other weights, the checker fails (s2_g4), or a channel the layout reads
		 * is empty, the codec's size error (s2_g3: channels 12-15 hold no record) */
		fault[0] = 0;
		memset(&r, 0, sizeof r);
		if (run_g(&gshapes[i], 1, NULL, &r, fault, sizeof fault) != 0)
			CHECKF(strstr(fault, "packed input size does not match") != NULL, "%s, block order: %s",
			       gshapes[i].orc, fault);
		else
			CHECKF(r.bad > r.checked / 4, "%s, block order: %lu of %lu outside", gshapes[i].orc,
			       (unsigned long)r.bad, (unsigned long)r.checked);
		/* the records back to back, not on 64-byte lines: the next record's bytes where the
		 * padding is, refused (s2_g4), or (s2_g3, its first record 127 bytes, the next one's
		 * first byte 0) a record read from inside another, the codec's size error */
		fault[0] = 0;
		CHECK(run_g(&gshapes[i], 2, NULL, &r, fault, sizeof fault) != 0);
		CHECKF(strstr(fault, i ? "packed input size does not match"
				       : "a nonzero byte between a grouped convolution's phase-sparse record") != NULL,
		       "%s, back to back: %s", gshapes[i].orc, fault);
	}
	/* a nonzero byte in the padding (s2_g4, which computes above): refused */
	fault[0] = 0;
	CHECK(run_g(&gshapes[0], 0, pad_byte, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "a nonzero byte between a grouped convolution's phase-sparse record") != NULL, "%s",
	       fault);
	/* OCGSize 1 with several groups: no program pins it, refused */
	fault[0] = 0;
	CHECK(run_g(&gshapes[0], 0, set_ocg1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "Common.ConvCfg.OCGSize above 0 with several groups") != NULL, "%s", fault);
	/* one group, a whole pass of 32 outputs then 1 a channel (OCGSize 1, Cout 48): still refused */
	struct bp_conv_spec spec = {.cin = 4, .cout = 48, .w = 6, .h = 5, .k = 3, .ocg = 1, .wts = wts,
				    .stride = 2, .sparse = 1, .ssm = 1};
	for (unsigned o = 0; o < 48; o++)
		for (unsigned i = 0; i < 36; i++)
			wts[o * 36 + i] = cb_weight(o, i);
	size_t len = bp_convb(gprog, sizeof gprog, &spec);
	CHECK(len > 0);
	fault[0] = 0;
	CHECK(trun_orc("s2_g3", gprog, len, 1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "phase-sparse kernels over several groups with OCGSize above 0 and other than one "
			     "whole pass a group, with a last partial pass after whole ones") != NULL,
	       "%s", fault);
}

/* gen_model.py's GROUPED_OCG: grouped convolutions with OCGSize k, each group's Cout one whole pass
 * (16 x 2^k), laid out as Apple's H13 grouped 3x3 convolutions (4 groups, constants rebuilt to
 * Apple's SHA-256: 16 -> 32 with a bias and OCGSize 1, 64 -> 64 with OCGSize 2, 16 -> 64 stride 2
 * phase-sparse with OCGSize 2): channel c holds, group after group, the group's outputs c 2^k ..
 * c 2^k + 2^k - 1 input-major (or their one record), each block on its own 64-byte line */
static const struct gshape oshapes[] = {
	{"g_ocg1", 3, 8, 32, 9, 5, 3, 1, 1},    /* 292-byte blocks at 320-byte steps */
	{"g_ocg2", 2, 8, 64, 7, 4, 3, 2, 1},    /* 584-byte blocks at 640-byte steps */
	{"g_ocg2s2", 2, 8, 64, 10, 7, 3, 2, 2}, /* phase-sparse, 4 outputs a record */
	{"g_ocg1s2", 3, 5, 32, 9, 6, 3, 1, 2},  /* phase-sparse, 2 outputs a record */
};

TEST(model_bias, grouped_convolutions_a_whole_pass_a_group_in_ocgsize_runs)
{
	for (unsigned i = 0; i < sizeof oshapes / sizeof oshapes[0]; i++) {
		struct orc_run r;
		char fault[512] = "";
		int rc = run_g(&oshapes[i], 0, NULL, &r, fault, sizeof fault);
		expect_within(oshapes[i].orc, rc, &r, fault);
	}
}

/* a nonzero byte in channel 0 between group 0's block (g_ocg1: 73 x 2 x 2 = 292 bytes) and the
 * line group 1's starts on (320) */
static void block_pad_byte(uint8_t *b, size_t len)
{
	CHECK(len > BP_WEIGHTS_OFF + 300u);
	CHECK(b[BP_WEIGHTS_OFF + 300u] == 0);
	b[BP_WEIGHTS_OFF + 300u] = 1;
}

static unsigned ocg_to;
static void set_ocg(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE_LSB, H13_CONVCFG_OCGSIZE_W, ocg_to) == 0);
}

TEST(model_bias, grouped_ocgsize_runs_in_another_layout_fail_or_are_refused)
{
	struct orc_run r;
	char fault[512];
	for (unsigned i = 0; i < sizeof oshapes / sizeof oshapes[0]; i++) {
		const struct gshape *s = &oshapes[i];
		/* the c / c + 16 pairing (dense: channel c the group's outputs c, c + 16, ...): other
		 * weights, the checker fails */
		if (s->stride == 1) {
			fault[0] = 0;
			memset(&r, 0, sizeof r);
			CHECKF(run_g(s, 1, NULL, &r, fault, sizeof fault) == 0, "%s, pairing: %s", s->orc, fault);
			CHECKF(r.bad > r.checked / 4, "%s, pairing: %lu of %lu outside", s->orc,
			       (unsigned long)r.bad, (unsigned long)r.checked);
		}
		/* the blocks or records back to back, not on 64-byte lines: a kernel past its channel's
		 * end (dense), or the next record's bytes where the padding is / a record read from inside
		 * another (phase-sparse): refused */
		fault[0] = 0;
		CHECK(run_g(s, 2, NULL, &r, fault, sizeof fault) != 0);
		CHECKF(strstr(fault, "an output channel's kernel is not inside its coefficient channel") ||
			       strstr(fault, "a nonzero byte between a grouped convolution's phase-sparse record") ||
			       strstr(fault, "packed input size does not match"),
		       "%s, back to back: %s", s->orc, fault);
		/* a group's Cout two passes (OCGSize one less, above 0) or half a pass (one more): still
		 * refused, by name */
		for (ocg_to = s->ocg > 1u ? s->ocg - 1u : s->ocg + 1u; ocg_to <= s->ocg + 1u; ocg_to += 2u) {
			fault[0] = 0;
			CHECK(run_g(s, 0, set_ocg, &r, fault, sizeof fault) != 0);
			CHECKF(strstr(fault, "Common.ConvCfg.OCGSize above 0 with several groups not each one pass "
					     "of 16 x 2^OCGSize outputs") != NULL,
			       "%s, OCGSize %u: %s", s->orc, ocg_to, fault);
		}
	}
	/* a nonzero byte in the padding between two groups' blocks (g_ocg1, which computes above):
	 * refused */
	fault[0] = 0;
	CHECK(run_g(&oshapes[0], 0, block_pad_byte, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "a nonzero byte between a grouped convolution's kernel block") != NULL, "%s", fault);
}

/* Fifth review: the activation record at each coefficient channel's head before phase-sparse
 * kernels (NE.KernelCfg.SparseFmt). The head reading is pinned on dense kernels (Apple's matmuls
 * with a fused gelu or silu, its less); every one of the s2shapes, a dense 3x3 and the depthwise
 * form, completed with lut_heads' tanh record in front of its records, the records read from +0x80,
 * which no program shows. Now refused by name (fw/td td_lut_heads_refusal), and inspect marks
 * it. Controls: the record before dense kernels computes numpy's tanh of the sums (cb_lut), and
 * the phase-sparse convolutions without the LUT compute numpy's convolution. */
TEST(model_bias, the_lut_record_at_the_heads_before_phase_sparse_kernels_is_refused)
{
	struct orc_run r;
	char fault[1024] = "";
	size_t len, l2 = lut_conv(1, &len);
	REQUIRE(l2 > 0);
	int rc = trun_orc("cb_lut", lutprog, l2, 0, &r, fault, sizeof fault);
	expect_within("cb_lut (dense kernels after the record)", rc, &r, fault);
	CHECKF(!strstr(tinspect(lutprog, l2), "not modelled"), "%s", tinspect(lutprog, l2));
	static const unsigned pick[] = {0, 4}; /* s2_k3_mod16 (a dense 3x3), s2_dw (depthwise) */
	for (unsigned i = 0; i < sizeof pick / sizeof pick[0]; i++) {
		const struct s2shape *s = &s2shapes[pick[i]];
		fault[0] = 0;
		rc = run_s2(s, 0, NULL, &r, fault, sizeof fault);
		expect_within(s->orc, rc, &r, fault); /* the control: no LUT */
		l2 = lut_heads(prog, lutprog, sizeof lutprog);
		REQUIRE(l2 > 0);
		fault[0] = 0;
		rc = trun_orc(s->orc, lutprog, l2, 1, &r, fault, sizeof fault);
		CHECKF(rc != 0 && strstr(fault, "NE.KernelCfg.SparseFmt") && strstr(fault, TD_LUT_HEADS_SPARSE_WHY),
		       "%s behind records: rc %d, %s", s->orc, rc, fault);
		const char *itext = tinspect(lutprog, l2);
		CHECKF(strstr(itext, "phase-sparse (SparseFmt: the stride-2 kernel format) (not modelled: " TD_LUT_HEADS_SPARSE_WHY ")") != NULL,
		       "%s: %s", s->orc, itext);
	}
}

/* Fifth review: a convolution that selects the LUT with a coefficient channel of exactly one
 * activation record (td_lut_place's TD_LUT_CHANNEL) would read its kernels from the record's bytes;
 * the model refused it (kernel_not_the_record) and inspect printed it as computed, the record
 * listed. Now one home, fw/td td_conv_record_channel_refusal, which inspect marks. Control: the
 * record at every channel's head computes numpy's tanh of the sums, unmarked. */
TEST(model_bias, a_convolution_over_a_channel_of_one_record_is_refused_and_marked)
{
	size_t len, l2 = lut_conv(1, &len);
	REQUIRE(l2 > 0);
	struct orc_run r;
	char fault[1024] = "";
	int rc = trun_orc("cb_lut", lutprog, l2, 0, &r, fault, sizeof fault);
	expect_within("cb_lut", rc, &r, fault);
	CHECKF(!strstr(tinspect(lutprog, l2), "not modelled"), "%s", tinspect(lutprog, l2));
	/* channel 0 cut to its record alone, then every channel so */
	for (unsigned all = 0; all < 2; all++) {
		l2 = lut_heads(prog, lutprog, sizeof lutprog);
		for (unsigned c = 0; c < (all ? H13_COEFF_NCH : 1u); c++)
			REQUIRE(tpatch_field(lutprog, l2, 0, H13_COEFF_BFRSIZE(c), 0, 32, ACTLUT_STRIDE) == 0);
		fault[0] = 0;
		rc = trun_orc("cb_lut", lutprog, l2, 1, &r, fault, sizeof fault);
		CHECKF(rc != 0 && strstr(fault, "NE.MACCfg.KernelMode") && strstr(fault, TD_CONV_RECORD_WHY),
		       "%s: rc %d, %s", all ? "every channel" : "channel 0", rc, fault);
		const char *itext = tinspect(lutprog, l2);
		CHECKF(strstr(itext, "16 -> 32 channels, kernels fp16 (not modelled: " TD_CONV_RECORD_WHY ")") != NULL,
		       "%s", itext);
	}
}

/* Sixth review: with OCGSize 0 (output o block o / 16 of channel o mod 16, each block rounded up to
 * 64 bytes) a coefficient channel whose CoeffBfrSize is larger than its blocks computed, the bytes
 * past them never read; in runs the same was refused. Every real program sizes its OCGSize-0
 * channels exactly (conv.hwx, Apple's H13 grouped 3x3 over 4 groups: 4 blocks of 320 bytes in
 * 0x500), so a channel longer than channel 0's ceil(NumGroups x Cout / 16) blocks is a layout the
 * model does not read: refused by name (fw/td td_coeff_sizes_refusal), and inspect marks it.
 * Control: cb_mod16 (5 -> 20, a bias: channels 0..3 two blocks, 4..15 one, each sized as channel
 * 0 by bp_convb, which is left computing) as built computes numpy's values, unmarked. */
static size_t build_mod16(void)
{
	const struct shape *s = &shapes[0];
	struct bp_conv_spec spec = {s->cin, s->cout, s->w, s->h, s->k, s->ocg, s->relu, 0,
				    NULL, bias, 1, 0, 0, 0, 0, 0, 0, 0, 0};
	cb_fill(s->cout, s->cin * s->k * s->k);
	spec.wts = wts;
	return bp_convb(prog, sizeof prog, &spec);
}

TEST(model_bias, an_ocgsize_0_channel_longer_than_its_blocks_is_refused)
{
	struct orc_run r;
	char fault[1024] = "";
	size_t len = build_mod16();
	REQUIRE(len > 0);
	int rc = trun_orc(shapes[0].orc, prog, len, 1, &r, fault, sizeof fault);
	expect_within(shapes[0].orc, rc, &r, fault);
	CHECKF(!strstr(tinspect(prog, len), "not modelled"), "%s", tinspect(prog, len));
	static const unsigned chs[] = {0, 5}; /* two blocks, one block */
	for (unsigned i = 0; i < sizeof chs / sizeof chs[0]; i++) {
		REQUIRE(build_mod16() == len);
		REQUIRE(tpatch_field(prog, len, 0, H13_COEFF_BFRSIZE(chs[i]), 0, 32,
				     td0_reg(prog, H13_COEFF_BFRSIZE(chs[i])) + 64u) == 0);
		fault[0] = 0;
		rc = trun_orc(shapes[0].orc, prog, len, 1, &r, fault, sizeof fault);
		char want[64];
		snprintf(want, sizeof want, "KernelDMASrc.CoeffBfrSize[%u]", chs[i]);
		CHECKF(rc != 0 && strstr(fault, want) && strstr(fault, "larger than the kernels the layout"),
		       "channel %u a line longer: rc %d, %s", chs[i], rc, fault);
		const char *itext = tinspect(prog, len);
		CHECKF(strstr(itext, "(not modelled: a coefficient channel's CoeffBfrSize larger") != NULL, "%s", itext);
	}
}

/* Sixth review: the activation record at each coefficient channel's head is pinned before dense
 * fp16 kernels in OCGSize runs (Apple's matmuls with a fused gelu or silu, OCGSize 4 and 5) and
 * before the less's KernelFmt 1 depthwise lanes; no real program holds it before dense kernels in
 * OCGSize-0 blocks or before fp16 depthwise lanes, and both computed on the pinned forms' reading
 * (cb_lut with OCGSize 0; cb_dw3 behind lut_heads' tanh record). Now refused by name (fw/td
 * td_lut_heads_refusal), and inspect marks the convolution. Controls: cb_lut in runs (OCGSize 1)
 * computes numpy's tanh of the sums, cb_dw3 without the record numpy's depthwise convolution. */
TEST(model_bias, the_lut_record_at_the_heads_before_ocgsize_0_blocks_or_fp16_lanes_is_refused)
{
	struct orc_run r;
	char fault[1024] = "";
	size_t len, l2 = lut_conv(1, &len);
	REQUIRE(l2 > 0);
	int rc = trun_orc("cb_lut", lutprog, l2, 0, &r, fault, sizeof fault);
	expect_within("cb_lut (OCGSize 1)", rc, &r, fault);
	l2 = lut_conv(0, &len);
	REQUIRE(l2 > 0);
	fault[0] = 0;
	rc = trun_orc("cb_lut", lutprog, l2, 1, &r, fault, sizeof fault);
	CHECKF(rc != 0 && strstr(fault, "Common.ConvCfg.OCGSize") && strstr(fault, TD_LUT_HEADS_OCG0_WHY),
	       "OCGSize 0 behind records: rc %d, %s", rc, fault);
	const char *itext = tinspect(lutprog, l2);
	CHECKF(strstr(itext, "16 -> 32 channels, kernels fp16 (not modelled: " TD_LUT_HEADS_OCG0_WHY ")") != NULL,
	       "%s", itext);
	/* fp16 depthwise lanes: cb_dw3 (3x3 over 32 channels, a bias) */
	rc = run_dw(1, NULL, &r, fault, sizeof fault);
	expect_within("cb_dw3", rc, &r, fault);
	const size_t dl = bp_dwconv(prog, sizeof prog, 32, 12, 5, 3, wts, bias);
	REQUIRE(dl > 0);
	l2 = lut_heads(prog, lutprog, sizeof lutprog);
	REQUIRE(l2 > 0);
	fault[0] = 0;
	rc = trun_orc("cb_dw3", lutprog, l2, 1, &r, fault, sizeof fault);
	CHECKF(rc != 0 && strstr(fault, "NE.KernelCfg.KernelFmt") && strstr(fault, TD_LUT_HEADS_DW_WHY),
	       "fp16 lanes behind records: rc %d, %s", rc, fault);
	itext = tinspect(lutprog, l2);
	CHECKF(strstr(itext, "32 -> 32 channels, kernels fp16 (not modelled: " TD_LUT_HEADS_DW_WHY ")") != NULL,
	       "%s", itext);
}

/* Sixth review: a depthwise convolution's lane (coefficient channel) longer than lane 0's kernels,
 * rounded up to 64 bytes, computed, the bytes past its kernels unread. Every real depthwise
 * convolution sizes its lanes exactly (Apple's H13 3x3 over 64 channels, 0x80 for 4 x 18 bytes,
 * and over 1024, 0x480 for 64 x 18; the less, 0x40 after its record): refused by name now (fw/td
 * td_dw_lanes_inside_refusal), and inspect marks it. Control: cb_dw3 (3x3 over 32 channels, a
 * bias: 2 x 20 bytes a lane in 0x40) as built computes numpy's values, unmarked. */
TEST(model_bias, a_depthwise_lane_longer_than_its_kernels_is_refused)
{
	struct orc_run r;
	char fault[1024] = "";
	int rc = run_dw(1, NULL, &r, fault, sizeof fault);
	expect_within("cb_dw3", rc, &r, fault);
	const size_t len = bp_dwconv(prog, sizeof prog, 32, 12, 5, 3, wts, bias);
	REQUIRE(len > 0);
	CHECKF(!strstr(tinspect(prog, len), "not modelled"), "%s", tinspect(prog, len));
	REQUIRE(tpatch_field(prog, len, 0, H13_COEFF_BFRSIZE(3), 0, 32, td0_reg(prog, H13_COEFF_BFRSIZE(3)) + 64u) == 0);
	fault[0] = 0;
	rc = trun_orc("cb_dw3", prog, len, 1, &r, fault, sizeof fault);
	CHECKF(rc != 0 && strstr(fault, "KernelDMASrc.CoeffBfrSize[3]") && strstr(fault, "larger than the kernels the layout"),
	       "lane 3 a line longer: rc %d, %s", rc, fault);
	const char *itext = tinspect(prog, len);
	CHECKF(strstr(itext, "(not modelled: a coefficient channel's CoeffBfrSize larger") != NULL, "%s", itext);
}
