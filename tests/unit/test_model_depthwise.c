/*
 * Depthwise convolutions in the engine model (engine/model/compute.c's depthwise;
 * docs/engine-model.md, "Depthwise convolutions"), end to end (a raw TD built by tools/progdesc's
 * bp_dwconv, the loader, the control path, the engine driver, the model), host and target, in the
 * form Apple's H13 compiler writes them: GroupConvCfg UnicastEn 1 and UnicastCin 1 with NumGroups
 * 1, each channel's kernel back to back in coefficient channel c mod 16. The references are numpy's
 * (tests/oracle/gen_model.py, depthwise). Each has negatives: a kernel read from the wrong place
 * or the channels mixed fails the checker; the forms no program pins are refused by name.
 */
#include "tests/unit/tsession.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t prog[BP_WEIGHTS_OFF + 16 * 1024];
static uint16_t wts[64 * 25];

/* gen_model.py's dw_weight as fp16 (a multiple of 1/4 in [-5/4, 5/4]: exact). */
static uint16_t dw_weight(unsigned o, unsigned i)
{
	static const uint16_t q[11] = {0xbd00, 0xbc00, 0xba00, 0xb800, 0xb400, 0x0000,
				       0x3400, 0x3800, 0x3a00, 0x3c00, 0x3d00}; /* -5/4 .. 5/4 */
	return q[(o * 7 + i * 3) % 11];
}

struct dw {
	unsigned c, h, w, k;
};

/* Builds the depthwise TD (kernels from dw_weight, or shifted by `shift` channels) and runs it
 * against the oracle: 0 when the run completed (r counts the checker's verdict), else the run's
 * fault text in fault. edit, when given, changes the program before it runs. */
static int run(const char *orcname, const struct dw *d, unsigned shift, void (*edit)(uint8_t *, size_t),
	       struct orc_run *r, char *fault, size_t fault_len)
{
	for (unsigned c = 0; c < d->c; c++)
		for (unsigned i = 0; i < d->k * d->k; i++)
			wts[c * d->k * d->k + i] = dw_weight((c + shift) % d->c, i);
	size_t len = bp_dwconv(prog, sizeof prog, d->c, d->w, d->h, d->k, wts, NULL);
	CHECK(len > 0);
	if (len && edit)
		edit(prog, len);
	return trun_orc(orcname, prog, len, fault != NULL, r, fault, fault_len);
}

/* dw5_w1: a 5x5 over a 1-wide input, where kernel columns 0, 1, 3 and 4 reach no input from the
 * one output column (an empty span: the model forms no pointer before its row, fuzz4's finding) */
static const struct dw dw3 = {32, 5, 12, 3}, dw5 = {8, 6, 9, 5}, dw5_w1 = {16, 2, 1, 5};

TEST(model_depthwise, each_channel_through_its_own_kernel)
{
	static const struct {
		const char *orc;
		const struct dw *d;
	} k[] = {{"dw3", &dw3}, {"dw5", &dw5}, {"dw5_w1", &dw5_w1}};
	for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
		struct orc_run r;
		CHECKF(run(k[i].orc, k[i].d, 0, NULL, &r, NULL, 0) == 0, "%s", k[i].orc);
		CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "%s: %lu of %lu outside",
		       k[i].orc, (unsigned long)r.bad, (unsigned long)r.checked);
		printf("# %s: %lu values, worst error %u%% of its tolerance\n", k[i].orc,
		       (unsigned long)r.checked, (unsigned)(r.worst * 100.0));
	}
}

#if !defined(ANEFW_TARGET) /* the negatives run on the host (the same code on the target) */
/* Common.GroupConvCfg set whole (Common +0x24 of the built TD's register stream). */
static uint32_t gc_value;
static void set_groupconv(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COMMON_GROUPCONVCFG, 0, 32, gc_value) == 0);
}

static void set_ocg(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE_LSB, H13_CONVCFG_OCGSIZE_W, 1) == 0);
}

static void expect_fails(const char *orcname, const struct dw *d, unsigned shift,
			 void (*edit)(uint8_t *, size_t), const char *what)
{
	struct orc_run r;
	char fault[256] = "";
	CHECKF(run(orcname, d, shift, edit, &r, fault, sizeof fault) == 0, "%s: %s", what, fault);
	CHECKF(r.bad > r.checked / 4, "%s: %lu of %lu outside", what, (unsigned long)r.bad,
	       (unsigned long)r.checked);
}

static void expect_refused(const char *orcname, const struct dw *d, void (*edit)(uint8_t *, size_t),
			   const char *want)
{
	struct orc_run r;
	char fault[256] = "";
	CHECK(run(orcname, d, 0, edit, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, want) != NULL, "fault \"%s\", want \"%s\"", fault, want);
}

TEST(model_depthwise, wrong_kernels_or_mixed_channels_fail_and_unpinned_forms_are_refused)
{
	/* each channel through its neighbour's kernel: the checker fails */
	expect_fails("dw3", &dw3, 1, NULL, "kernels one channel off");
	/* without UnicastEn the TD is a dense convolution over all 32 channels, whose kernels of
	 * 32 x 9 values do not fit the lanes: refused, not mixed */
	gc_value = H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTCIN, 1);
	expect_refused("dw3", &dw3, set_groupconv, "an output channel's kernel is not inside its coefficient channel");
	/* UnicastCin 3, NumGroups 2, ElemMultMode: refused by name */
	gc_value = H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
		   H13_PUT(H13_GROUPCONV_UNICASTCIN, 3);
	expect_refused("dw3", &dw3, set_groupconv, "Common.GroupConvCfg = 0x34001: unmodelled-field: a convolution with "
						    "kernels in memory and GroupConvCfg.UnicastEn");
	/* UnicastCin 2 where Cin is Cout: refused, not read past the input */
	gc_value = H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
		   H13_PUT(H13_GROUPCONV_UNICASTCIN, 2);
	expect_refused("dw3", &dw3, set_groupconv, "a depthwise convolution whose Cin is not GroupConvCfg.UnicastCin times its Cout");
	/* NumGroups 2: the builder writes no destination group stride, so the two groups' results
	 * would share their bytes, refused as such before the depthwise reading is looked at */
	gc_value = H13_PUT(H13_GROUPCONV_NUMGROUPS, 2) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
		   H13_PUT(H13_GROUPCONV_UNICASTCIN, 1);
	expect_refused("dw3", &dw3, set_groupconv, "a destination whose rows, planes, depths or groups overlap one another");
	/* OCGSize above 0: the lanes' layout would differ; refused */
	expect_refused("dw3", &dw3, set_ocg, "a depthwise convolution with Common.ConvCfg.OCGSize above 0");
}

static void set_kfmt1(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB, H13_KERNELCFG_KERNELFMT_W,
			   H13_KERNELFMT_UINT8) == 0);
}

/* KernelFmt 1 on a depthwise convolution over UnicastCin 1 (docs/engine-model.md, "What a third
 * review found"): Apple's less pins one-byte kernels of two bytes an output (UnicastCin 2, 1x1)
 * back to back; where a lane holds kernels of another length (9 bytes for a 3x3: on odd offsets,
 * or padded?) no program shows. Refused by name; before, the 3x3 over 32 channels
 * completed reading its fp16 kernel bytes as 9-byte kernels. The control, the same TD with fp16
 * kernels, computes numpy's values (each_channel_through_its_own_kernel), and Apple's less's form
 * computes (unicast_cin_2_each_output_from_its_two_input_channels). */
TEST(model_depthwise, kernelfmt_1_outside_apples_less_is_refused)
{
	struct orc_run r;
	CHECKF(run("dw3", &dw3, 0, NULL, &r, NULL, 0) == 0 && r.checked > 0 && r.bad == 0, "control");
	expect_refused("dw3", &dw3, set_kfmt1, "a depthwise convolution with KernelFmt 1 kernels other than "
					       "Apple's less's");
}
#endif

/*
 * Depthwise convolutions with GroupConvCfg.UnicastCin 2 (docs/engine-model.md, "Depthwise
 * convolutions over two input channels"), as Apple's H13 less (x, y) -> bool writes one: 40
 * outputs, output o from input channels 2o and 2o + 1 through its 1x1 kernel of 2 taps, the
 * kernels back to back in coefficient channel o mod 16 (slot o / 16; 40 is not a multiple of 16,
 * as Apple's less over 375 channels lays them out). Built by bp_dwconv_n with fp16 kernels
 * (gen_model.py dwu_weight), or rewritten as KernelFmt 1 bytes (dwu_byte, half of them 0x80..0xff,
 * read signed); the references are numpy's (gen_model.py, depthwise_unicast). Before the change
 * both were refused (GroupConvCfg other than UnicastCin 1).
 */
#define DWU_C 40u
static const struct dw dwu = {DWU_C, 3, 5, 1};

static uint16_t dwu_w16(unsigned o, unsigned j)
{
	static const uint16_t q[11] = {0xbd00, 0xbc00, 0xba00, 0xb800, 0xb400, 0x0000,
				       0x3400, 0x3800, 0x3a00, 0x3c00, 0x3d00}; /* -5/4 .. 5/4 */
	return q[(o * 5 + j * 3 + 1) % 11];
}

static int8_t dwu_byte(unsigned o, unsigned j)
{
	return (int8_t)((int)((o * 37 + j * 101 + 11) % 256) - 128);
}

/* The UnicastCin 2 TD of d (bytes: KernelFmt 1 kernels; shift: each output given its
 * neighbour's kernel; swap: each kernel's two taps swapped, the inputs read the other way round;
 * k: the window), edited by edit, against oracle orc. */
static int run_dwu(const char *orc, const struct dw *d, int bytes, unsigned shift, int swap,
		   void (*edit)(uint8_t *, size_t), struct orc_run *r, char *fault, size_t fault_len)
{
	for (unsigned o = 0; o < d->c; o++)
		for (unsigned j = 0; j < 2u * d->k * d->k; j++)
			wts[o * 2u * d->k * d->k + j] = dwu_w16((o + shift) % d->c, swap ? 1u - j % 2u : j % 2u);
	size_t len = bp_dwconv_n(prog, sizeof prog, d->c, 2, d->w, d->h, d->k, wts, NULL);
	CHECKF(len > 0, "%s: built", orc);
	if (len && bytes) { /* the same lanes, each kernel 2 bytes at 2 (o / 16) */
		const size_t lane = (bp_dwconv_n_bytes(d->c, 2, d->k, 0) - BP_WEIGHTS_OFF) / H13_COEFF_NCH;
		uint8_t *wa = prog + BP_WEIGHTS_OFF;
		memset(wa, 0, lane * H13_COEFF_NCH);
		for (unsigned o = 0; o < d->c; o++)
			for (unsigned j = 0; j < 2u; j++)
				wa[(o % H13_COEFF_NCH) * lane + (o / H13_COEFF_NCH) * 2u + j] =
					(uint8_t)dwu_byte((o + shift) % d->c, swap ? 1u - j : j);
		CHECK(tpatch_field(prog, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB,
				   H13_KERNELCFG_KERNELFMT_W, H13_KERNELFMT_UINT8) == 0);
	}
	if (len && edit)
		edit(prog, len);
	return trun_orc(orc, prog, len, fault != NULL, r, fault, fault_len);
}

TEST(model_depthwise, unicast_cin_2_each_output_from_its_two_input_channels)
{
	static const struct {
		const char *orc;
		int bytes;
	} k[] = {{"dwu2", 0}, {"dwu2i", 1}};
	for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		CHECKF(run_dwu(k[i].orc, &dwu, k[i].bytes, 0, 0, NULL, &r, fault, sizeof fault) == 0, "%s: %s",
		       k[i].orc, fault);
		CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "%s: %lu of %lu outside",
		       k[i].orc, (unsigned long)r.bad, (unsigned long)r.checked);
		printf("# %s: %lu values, worst error %u%% of its tolerance\n", k[i].orc,
		       (unsigned long)r.checked, (unsigned)(r.worst * 100.0));
	}
}

#if !defined(ANEFW_TARGET)
static void dwu_fails(const char *orc, int bytes, unsigned shift, int swap, const char *what)
{
	struct orc_run r;
	char fault[256] = "";
	CHECKF(run_dwu(orc, &dwu, bytes, shift, swap, NULL, &r, fault, sizeof fault) == 0, "%s: %s", what, fault);
	CHECKF(r.bad > r.checked / 4, "%s: %lu of %lu outside", what, (unsigned long)r.bad, (unsigned long)r.checked);
}

static void dwu_refused(const struct dw *d, void (*edit)(uint8_t *, size_t), const char *want)
{
	struct orc_run r;
	char fault[256] = "";
	CHECK(run_dwu("dwu2", d, 0, 0, 0, edit, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, want) != NULL, "fault \"%s\", want \"%s\"", fault, want);
}

static void set_bias_mode(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1) == 0);
}

static void set_int8(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB, H13_KERNELCFG_KERNELFMT_W,
			   H13_KERNELFMT_INT8) == 0);
}

TEST(model_depthwise, unicast_cin_2_wrong_kernels_fail_and_unpinned_forms_are_refused)
{
	/* each output through its neighbour's kernel, or its two taps swapped (x and y read the
	 * other way round): the checker fails */
	dwu_fails("dwu2", 0, 1, 0, "kernels one output off");
	dwu_fails("dwu2", 0, 0, 1, "taps swapped");
	dwu_fails("dwu2i", 1, 0, 1, "byte taps swapped");
	/* UnicastCin 1 over Cin 80 -> Cout 40 (the program as is, the field cleared to 1) */
	gc_value = H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
		   H13_PUT(H13_GROUPCONV_UNICASTCIN, 1);
	dwu_refused(&dwu, set_groupconv, "a depthwise convolution whose Cin is not GroupConvCfg.UnicastCin times its Cout");
	/* a 3x3 window or a bias with UnicastCin 2: the order of the taps is not pinned */
	static const struct dw dwu3 = {DWU_C, 3, 5, 3};
	dwu_refused(&dwu3, NULL, "a depthwise convolution with GroupConvCfg.UnicastCin above 1 and a window other than 1x1");
	dwu_refused(&dwu, set_bias_mode, "a depthwise convolution with GroupConvCfg.UnicastCin above 1 and a window other than 1x1");
	/* int8 (KernelFmt 0) depthwise kernels: no program pins them */
	dwu_refused(&dwu, set_int8, "kernels other than plain fp16, plain KernelFmt 1 bytes");
}
#endif

/*
 * Apple's H13 pad form (docs/engine-model.md, "Depthwise convolutions"; the depthwise 2x1 TD its
 * compiler pads with, NE.KernelCfg 0x8116): each lane a 64-byte line holding the 1-bit palette
 * (1.0, +0), then its channel's phase-sparse record of mask bytes alone (SparseBinary), decoded
 * with fw/codec's codec_pkern_record as the fp16 records are. Built here by bp_convb (sparse 2)
 * from gen_model.py's pf_weight, 1 or 0; the references are numpy's (gen_model.py, pad_form).
 */
static const struct dw pf16 = {16, 5, 12, 3}, pf8 = {8, 6, 9, 5};

static uint16_t pf_weight(unsigned o, unsigned i)
{
	return (o * 7u + i * 3u) % 11u < 5u ? 0x3c00u : 0u;
}

static int run_pf_shift(const char *orc, const struct dw *d, unsigned sparse, unsigned phase_swap,
			unsigned shift, int bias, void (*edit)(uint8_t *, size_t), struct orc_run *r,
			char *fault, size_t fault_len)
{
	static uint16_t ones[64];
	for (unsigned c = 0; c < d->c; c++) {
		ones[c] = 0x3c00u;
		for (unsigned i = 0; i < d->k * d->k; i++)
			wts[c * d->k * d->k + i] = pf_weight((c + shift) % d->c, i);
	}
	const struct bp_conv_spec spec = {d->c, d->c, d->w, d->h, d->k, 0, 0, 0, wts, bias ? ones : NULL,
					  1, sparse, 0, 1, phase_swap, 0, 0, 0, 0};
	size_t len = bp_convb(prog, sizeof prog, &spec);
	CHECKF(len > 0, "%s: built", orc);
	if (len && edit)
		edit(prog, len);
	return trun_orc(orc, prog, len, fault != NULL, r, fault, fault_len);
}

/* The pad-form TD of d (or with `sparse` 1, the same kernels as fp16 records; bias: a bias of 1
 * with each kernel; phase_swap: the two middle phases swapped, a wrong encoding; shift: each
 * channel given its neighbour's marks), edited by edit, against oracle orc, as run. */
static int run_pf(const char *orc, const struct dw *d, unsigned sparse, unsigned phase_swap, int bias,
		  void (*edit)(uint8_t *, size_t), struct orc_run *r, char *fault, size_t fault_len)
{
	return run_pf_shift(orc, d, sparse, phase_swap, 0, bias, edit, r, fault, fault_len);
}

TEST(model_depthwise, apples_pad_form_kernels_compute)
{
	static const struct {
		const char *orc;
		const struct dw *d;
	} k[] = {{"pf_dw16", &pf16}, {"pf_dw8", &pf8}};
	for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		int rc = run_pf(k[i].orc, k[i].d, 2, 0, 0, NULL, &r, fault, sizeof fault);
		CHECKF(rc == 0, "%s: %s", k[i].orc, fault);
		CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "%s: %lu of %lu outside",
		       k[i].orc, (unsigned long)r.bad, (unsigned long)r.checked);
		printf("# %s: %lu values, worst error %u%% of its tolerance\n", k[i].orc,
		       (unsigned long)r.checked, (unsigned)(r.worst * 100.0));
	}
}

/*
 * The pad form under Common.Cfg.SmallSourceMode (docs/engine-model.md, "Apple's pad form"): Apple's
 * H13 pad with the bit set keeps the record the clear bit gives (one mask byte, mark bit 0 on tap
 * (0, 0)). Built here as bp_convb's pad form (sparse 2) of a 1x1 window, whose record is that one
 * byte, with the bit set in the built TD; the reference is numpy's (gen_model.py, pad_form,
 * pf_dw16k1). Before the change it was refused: 4 slots a tap would need two mask bytes.
 */
static const struct dw pf16k1 = {16, 5, 12, 1};

static void set_ssm(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COMMON_CFG, H13_CFG_SMALLSOURCE_LSB, H13_CFG_SMALLSOURCE_W, 1) == 0);
}

TEST(model_depthwise, apples_pad_form_under_small_source_mode_computes)
{
	struct orc_run r;
	char fault[256] = "";
	/* the control: the bit clear */
	int rc = run_pf("pf_dw16k1", &pf16k1, 2, 0, 0, NULL, &r, fault, sizeof fault);
	CHECKF(rc == 0 && r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "clear: %s", fault);
	/* the bit set: the same record, the same numbers */
	rc = run_pf("pf_dw16k1", &pf16k1, 2, 0, 0, set_ssm, &r, fault, sizeof fault);
	CHECKF(rc == 0, "SmallSourceMode: %s", fault);
	CHECKF(r.checked_tensors == 1 && r.checked > 0 && r.bad == 0, "SmallSourceMode: %lu of %lu outside",
	       (unsigned long)r.bad, (unsigned long)r.checked);
	/* each channel's mark one channel off: the checker fails */
	CHECKF(run_pf_shift("pf_dw16k1", &pf16k1, 2, 0, 1, 0, set_ssm, &r, fault, sizeof fault) == 0, "%s", fault);
	CHECKF(r.bad > r.checked / 4, "marks one channel off: %lu of %lu outside", (unsigned long)r.bad,
	       (unsigned long)r.checked);
}

#if !defined(ANEFW_TARGET)
/* A pad-form TD (built as run_pf_shift, ssm: bp_convb's SmallSourceMode, 4 slots a tap) refused
 * with want in its fault. */
static void pf_ssm_refused(const struct dw *d, unsigned ssm, void (*edit)(uint8_t *, size_t), const char *want)
{
	static uint16_t w[16 * 9];
	for (unsigned c = 0; c < d->c; c++)
		for (unsigned i = 0; i < d->k * d->k; i++)
			w[c * d->k * d->k + i] = pf_weight(c, i);
	const struct bp_conv_spec spec = {d->c, d->c, d->w, d->h, d->k, 0, 0, 0, w, NULL, 1, 2, ssm, 1, 0, 0, 0, 0, 0};
	size_t len = bp_convb(prog, sizeof prog, &spec);
	CHECK(len > 0);
	if (len && edit)
		edit(prog, len);
	struct orc_run r;
	char fault[256] = "";
	CHECK(trun_orc(d->k == 1 ? "pf_dw16k1" : "pf_dw16", prog, len, 1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, want) != NULL, "fault \"%s\", want \"%s\"", fault, want);
}

TEST(model_depthwise, pad_form_under_small_source_mode_unpinned_forms_are_refused)
{
	/* records of 4 slots a tap (two mask bytes for a 1x1 window): not Apple's, refused */
	pf_ssm_refused(&pf16k1, 1, NULL, "packed input size does not match the element count");
	/* a 3x3 window (a record of four mask bytes) under the bit: no program pins it */
	pf_ssm_refused(&pf16, 0, set_ssm, "under Common.Cfg.SmallSourceMode with a window whose record is more than one mask byte");
}

static uint32_t kc_value;
static void set_kernelcfg(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_NE_KERNELCFG, 0, 32, kc_value) == 0);
}

/* lane 0's palette line: entry pal_at (0 or 1) set to pal_value */
static unsigned pal_at;
static uint16_t pal_value;
static void set_palette(uint8_t *b, size_t len)
{
	CHECK(len > BP_WEIGHTS_OFF + 64u);
	le_wr16(b + BP_WEIGHTS_OFF + 2u * pal_at, pal_value);
}

static void pf_refused(const struct dw *d, unsigned sparse, int bias, void (*edit)(uint8_t *, size_t),
		       const char *want)
{
	struct orc_run r;
	char fault[256] = "";
	CHECK(run_pf("pf_dw16", d, sparse, 0, bias, edit, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, want) != NULL, "fault \"%s\", want \"%s\"", fault, want);
}

static void pf_refused_swap(void)
{
	struct orc_run r;
	char fault[256] = "";
	CHECK(run_pf("pf_dw16", &pf16, 2, 1, 0, NULL, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "codec-value-in-padding-slot") != NULL || strstr(fault, "a slot that holds no weight") != NULL,
	       "%s", fault);
}

TEST(model_depthwise, pad_form_wrongly_encoded_fails_and_unpinned_forms_are_refused)
{
	/* the control: the pad form as built completes within the oracle (above) */
	struct orc_run r;
	char fault[256] = "";
	CHECK(run_pf("pf_dw16", &pf16, 2, 0, 0, NULL, &r, fault, sizeof fault) == 0 && r.bad == 0);
	/* each channel's marks one channel off: the checker fails */
	CHECKF(run_pf_shift("pf_dw16", &pf16, 2, 0, 1, 0, NULL, &r, fault, sizeof fault) == 0, "%s", fault);
	CHECKF(r.bad > r.checked / 4, "marks one channel off: %lu of %lu outside", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	/* the two middle phases swapped: marks land past the kernel's edge, refused by the codec */
	pf_refused_swap();
	/* the palette other than Apple's (1.0, +0): which entry a mark takes is not pinned */
	pal_at = 0, pal_value = 0x4000u; /* 2.0 */
	pf_refused(&pf16, 2, 0, set_palette, "a SparseBinary lane's palette line other than Apple's pad's");
	pal_at = 1, pal_value = 0x3c00u;
	pf_refused(&pf16, 2, 0, set_palette, "a SparseBinary lane's palette line other than Apple's pad's");
	/* fp16 records (no palette line) read as the pad form: each lane of 64 bytes holds no line
	 * and a record after it */
	kc_value = 0x8116u;
	pf_refused(&pf16, 1, 0, set_kernelcfg, "an output channel's kernel is not inside its coefficient channel");
	/* a 1-bit palette with stored indices (SparseBinary clear), or SparseBinary with another
	 * field: no program pins them */
	kc_value = 0x0116u;
	pf_refused(&pf16, 2, 0, set_kernelcfg, "kernels other than plain fp16, plain KernelFmt 1 bytes (Apple's less) or Apple's pad form whole");
	kc_value = 0x8126u; /* 2-bit */
	pf_refused(&pf16, 2, 0, set_kernelcfg, "kernels other than plain fp16, plain KernelFmt 1 bytes (Apple's less) or Apple's pad form whole");
	/* a bias with the pad form; more than 16 channels (several records a lane) */
	pf_refused(&pf16, 2, 1, NULL, "NE.MACCfg.BiasMode with SparseBinary kernels");
	static const struct dw pf32 = {32, 5, 12, 3};
	pf_refused(&pf32, 2, 0, NULL, "SparseBinary kernels (Apple's pad form) over more than 16 channels");
	/* the pad form on a dense convolution (16 -> 16, 1x1): its kernel reader knows no
	 * SparseBinary */
	for (unsigned i = 0; i < 16u * 16u; i++)
		wts[i] = pf_weight(i / 16u, i % 16u);
	const struct bp_conv_spec dense = {16, 16, 12, 5, 1, 0, 0, 0, wts, NULL, 1, 2, 0, 0, 0, 0, 0, 0, 0};
	size_t len = bp_convb(prog, sizeof prog, &dense);
	CHECK(len > 0);
	CHECK(trun_orc("pf_dw16", prog, len, 1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "NE.KernelCfg has bits outside the fields the model knows") != NULL, "%s", fault);
}

/*
 * A depthwise convolution reads the first min(C, 16) coefficient channels (the OCGSize 0 layout
 * over C outputs, fw/td td_ocg_layout); an enabled channel beyond them is refused as the dense
 * path refuses it (td_ocg_refusal), naming the channel. It used to complete, the enabled lane
 * never read: allbilly/ane's conv->sigmoid (conv.hwx's TD with Cin = Cout = 1, UnicastEn, its
 * channels 1-2 still enabled) hung on an M1 and computed w x x in the model. Each refusal
 * beside its control (the same build, only the channels read enabled: numpy's values): the
 * dense 5x5 over 8 channels and Apple's pad form over 8 (Apple's enables 8 of 16 lanes).
 */
static unsigned extra_lane;
static void enable_extra_lane(uint8_t *b, size_t len)
{
	/* lane 0's bytes again (base 0, one 64-byte line), so only the enable differs */
	CHECK(tpatch_field(b, len, 0, H13_COEFF_DMACONFIG(extra_lane), H13_DMA_EN_LSB, H13_DMA_EN_W, 1) == 0);
	CHECK(tpatch_field(b, len, 0, H13_COEFF_BFRSIZE(extra_lane), 0, 32, 64) == 0);
}

static void disable_lane_7(uint8_t *b, size_t len)
{
	CHECK(tpatch_field(b, len, 0, H13_COEFF_DMACONFIG(7), H13_DMA_EN_LSB, H13_DMA_EN_W, 0) == 0);
}

static void dw_lane_refused(const char *fault)
{
	char want[64];
	snprintf(want, sizeof want, "KernelDMASrc.CoeffDMAConfig[%u].En", extra_lane);
	CHECKF(strstr(fault, want) != NULL && strstr(fault, "unmodelled-combination") != NULL &&
		       strstr(fault, "a coefficient channel enabled that the kernel layout (Common.ConvCfg.OCGSize, "
				     "Common.Cout) does not read") != NULL,
	       "fault \"%s\", want %s", fault, want);
}

TEST(model_depthwise, an_enabled_coefficient_channel_not_read_is_refused)
{
	struct orc_run r;
	char fault[256] = "";
	/* the control: dense fp16 kernels, 8 channels over lanes 0-7 */
	CHECKF(run("dw5", &dw5, 0, NULL, &r, fault, sizeof fault) == 0 && r.checked > 0 && r.bad == 0, "%s", fault);
	for (extra_lane = 8; extra_lane < H13_COEFF_NCH; extra_lane += 7) {
		fault[0] = 0;
		CHECK(run("dw5", &dw5, 0, enable_extra_lane, &r, fault, sizeof fault) != 0);
		dw_lane_refused(fault);
	}
	/* a lane read and not enabled (lane 7 of the 8): refused, as a dense OCGSize 0's, by its kernel */
	fault[0] = 0;
	CHECK(run("dw5", &dw5, 0, disable_lane_7, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, "an output channel's kernel is not inside its coefficient channel") != NULL, "%s", fault);
	/* Apple's pad form over 8 channels (its lanes 0-7, as Apple's program enables them) */
	fault[0] = 0;
	CHECKF(run_pf("pf_dw8", &pf8, 2, 0, 0, NULL, &r, fault, sizeof fault) == 0 && r.checked > 0 && r.bad == 0,
	       "%s", fault);
	extra_lane = 8;
	fault[0] = 0;
	CHECK(run_pf("pf_dw8", &pf8, 2, 0, 0, enable_extra_lane, &r, fault, sizeof fault) != 0);
	dw_lane_refused(fault);
}
#endif

/*
 * A partial sum past 2^15 at the MAC's output port that a later tap brings back (guide 03,
 * "Saturation hazard"; engine/model/compute.c, above line_port), in a depthwise 3x3: channel 1's
 * output (1, 3) sums 20000 x w00 (input (0, 2)) then -20000 x w01 (input (0, 3)). With w00 = 2,
 * w01 = 1.5 the first partial is 40000 and the sum 10000: the output is +inf. With the taps the
 * other way round (1.5, 2: 30000, then -10000) it is -10000.
 */
#define DWI_C 4u
#define DWI_W 8u
#define DWI_H 3u

struct dwi {
	uint16_t at; /* channel 1's output (1, 3) after the run */
};

/* BAR 5's every input 0.5 but channel 1's (0, 2) and (0, 3): in02 and in03 */
static void dwi_fill_two(const struct subq_grant *g, uint8_t *buf, uint16_t in02, uint16_t in03)
{
	const uint32_t row = bp_row(DWI_W);
	for (unsigned c = 0; c < DWI_C; c++)
		for (unsigned y = 0; y < DWI_H; y++)
			for (unsigned x = 0; x < DWI_W; x++) {
				uint64_t off = ((uint64_t)c * DWI_H + y) * row + 2u * x;
				uint16_t v = 0x3800u; /* 0.5 */
				if (c == 1 && y == 0 && x == 2)
					v = in02;
				if (c == 1 && y == 0 && x == 3)
					v = in03;
				if (off + 2 <= g->size)
					le_wr16(buf + off, v);
			}
}

static void dwi_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (!is_weights && g->bar == BP_IN0_BAR)
		dwi_fill_two(g, buf, 0x74e2u /* 20000 */, 0xf4e2u /* -20000 */);
}

static void dwi_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct dwi *d = ctx;
	uint64_t off = ((uint64_t)1 * DWI_H + 1) * bp_row(DWI_W) + 2u * 3u;
	if (!is_weights && g->bar == BP_OUT_BAR && off + 2 <= g->size)
		d->at = le_rd16(buf + off);
}

/* The depthwise 3x3 over [DWI_C, DWI_H, DWI_W], every tap 1/4 but channel 1's: w00 and w01 at
 * (0, 0) and (0, 1), the rest 0; fill gives BAR 5's inputs; d->at channel 1's output (1, 3). */
static int dwt_run(uint16_t w00, uint16_t w01, const uint16_t *bias,
		   void (*fill)(void *, const struct subq_grant *, uint8_t *, int), struct dwi *d,
		   struct session_result *res)
{
	for (unsigned i = 0; i < DWI_C * 9u; i++)
		wts[i] = 0x3400u; /* 1/4 */
	for (unsigned i = 0; i < 9u; i++)
		wts[9u + i] = 0;
	wts[9u + 0] = w00; /* channel 1's taps (0, 0) and (0, 1) */
	wts[9u + 1] = w01;
	size_t len = bp_dwconv(prog, sizeof prog, DWI_C, DWI_W, DWI_H, 3, wts, bias);
	CHECK(len > 0);
	const struct session_hooks h = {fill, dwi_check, d, 0};
	d->at = 0;
	return tsubmit(prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, res);
}

static int dwi_run_b(uint16_t w00, uint16_t w01, const uint16_t *bias, struct dwi *d,
		     struct session_result *res)
{
	return dwt_run(w00, w01, bias, dwi_fill, d, res);
}

static int dwi_run(uint16_t w00, uint16_t w01, struct dwi *d, struct session_result *res)
{
	return dwi_run_b(w00, w01, NULL, d, res);
}

TEST(model_depthwise, partial_past_2_15_overflows_the_output)
{
	struct dwi d;
	struct session_result res;
	int rc = dwi_run(0x4000u, 0x3e00u, &d, &res); /* 2, 1.5: 40000, then 10000 */
	CHECKF(rc == 0 && res.run == ENG_OK && d.at == 0x7c00u, "rc %d, 0x%04x: %s", rc, d.at,
	       res.fault_text);
	rc = dwi_run(0x3e00u, 0x4000u, &d, &res); /* 1.5, 2: 30000, then -10000 */
	CHECKF(rc == 0 && res.run == ENG_OK && d.at == 0xf0e2u, "the other order: rc %d, 0x%04x: %s", rc,
	       d.at, res.fault_text);
}

/*
 * The bias is the reduction's first row (docs/engine-model.md, "Convolutions with a bias"): with
 * channel 1's bias B and its taps 0 but w01 = 1 on -20000, B = 40000 is 40000 then 20000 at the
 * port, +inf; B = 30000 (then 10000) stays 10000, the bias alone under 2^15.
 */
TEST(model_depthwise, a_bias_past_2_15_is_the_first_partial)
{
	struct dwi d;
	struct session_result res;
	uint16_t bias[DWI_C] = {0, 0x78e2u, 0, 0}; /* 40000 */
	int rc = dwi_run_b(0, 0x3c00u, bias, &d, &res);
	CHECKF(rc == 0 && res.run == ENG_OK && d.at == 0x7c00u, "bias 40000: rc %d, 0x%04x: %s", rc,
	       d.at, res.fault_text);
	bias[1] = 0x7753u; /* 30000 */
	rc = dwi_run_b(0, 0x3c00u, bias, &d, &res);
	CHECKF(rc == 0 && res.run == ENG_OK && d.at == 0x70e2u, "bias 30000: rc %d, 0x%04x: %s", rc,
	       d.at, res.fault_text);
}

/*
 * Sixth review: guide 03's 0 x inf = +0 in a depthwise convolution. Channel 1's output (1, 3)
 * sums w00 x input (0, 2) then w01 x input (0, 3), every other tap's weight 0: with w00 = +inf over
 * an input of 0 (or a subnormal, +0 at the MAC's port) and w01 = 1 over 5 it is 5 (hand
 * arithmetic: the 0 x inf term adds nothing, as a 0 weight over an infinite input always has).
 * Before, the product's NaN made the sum NaN and the output +0. Control: w00 = 0 over +inf, 5.
 */
static uint16_t dwz_in02;
static void dwz_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (!is_weights && g->bar == BP_IN0_BAR)
		dwi_fill_two(g, buf, dwz_in02, 0x4500u /* 5 */);
}

TEST(model_depthwise, an_infinite_weight_times_a_zero_input_adds_nothing)
{
	static const struct {
		uint16_t w00, in02;
	} cases[] = {
		{0x0000u, 0x7c00u}, /* the control: 0 x +inf */
		{0x7c00u, 0x0000u}, /* +inf x +0 */
		{0xfc00u, 0x8000u}, /* -inf x -0 */
		{0x7c00u, 0x0001u}, /* +inf x a subnormal (+0 at the port) */
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dwz_in02 = cases[i].in02;
		struct dwi d = {0};
		struct session_result res;
		int rc = dwt_run(cases[i].w00, 0x3c00u /* 1 */, NULL, dwz_fill, &d, &res);
		CHECKF(rc == 0 && res.run == ENG_OK && d.at == 0x4500u, "w00 0x%04x over 0x%04x: rc %d, 0x%04x: %s",
		       cases[i].w00, cases[i].in02, rc, d.at, res.fault_text);
	}
}

/*
 * A NaN weight or record bias in a depthwise kernel is refused by name (unreadable-weights), as in
 * a dense one (compute.c nan_weight_refusal): what the MAC does with one is not pinned (guide 03's
 * NaN-to-+inf coercion is measured where the tiles enter), and every output it reached was +0.
 * Channel 1's tap (0, 0) a NaN of either sign, or its bias, on dwi's inputs; the control, an
 * infinite tap over 20000 then 0 x -20000, is +inf (hand arithmetic).
 */
TEST(model_depthwise, a_nan_weight_or_bias_is_refused_by_name)
{
	static const struct {
		const char *what;
		uint16_t w00, bias1;
		int refused;
	} cases[] = {
		{"control: +inf x 20000, then 0 x -20000", 0x7c00u, 0, 0},
		{"a NaN tap", 0x7e00u, 0, 1},
		{"a negative NaN tap with a payload", 0xfd01u, 0, 1},
		{"a NaN bias", 0x3c00u, 0x7e00u, 1},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct dwi d;
		struct session_result res;
		uint16_t bias[DWI_C] = {0, cases[i].bias1, 0, 0};
		int rc = dwi_run_b(cases[i].w00, 0, cases[i].bias1 ? bias : NULL, &d, &res);
		if (cases[i].refused)
			CHECKF(rc != 0 && res.run == ENG_E_FAULT && res.fault.reason == ENG_FR_DATA &&
				       strstr(res.fault_text, "a NaN weight or kernel bias") &&
				       strstr(res.fault_text, "td 0"),
			       "%s: rc %d, 0x%04x: %s", cases[i].what, rc, d.at, res.fault_text);
		else
			CHECKF(rc == 0 && res.run == ENG_OK && d.at == 0x7c00u, "%s: rc %d, 0x%04x: %s",
			       cases[i].what, rc, d.at, res.fault_text);
	}
}

/*
 * Common.ConvCfg.Ox 2 (docs/engine-model.md, "Ox 2 computes"): Apple's depthwise 1x9 "same" with a
 * bias over 1024 channels (encoder_conv_idx_c1024_n1024_k1x9_s1_g1024_bias1_same_wmaj) writes it as
 * a 1x9 with Sx 2, Px 4 and Ox 2, Wout ceil(W / 2), its 2 x Wout columns kept in L2 memory, and a
 * second TD copies the first W out. Output position j computes columns 2j and 2j + 1 from inputs
 * 2j - 4 + p, p = 0..9; channel c's record (lane c mod 16, record c / 16) holds the bias twice,
 * then the 10 positions as pairs (column 2j's weight t(p), column 2j + 1's t(p - 1); 0 outside
 * 0..8) in the order 0, 2, 4, 6, 8, 1, 3, 5, 7, 9 (its constant's SHA-256 pins that order and
 * the pairs'). Here the same form built by bp_dwox2 over x [32, 1, 15] (Wout 8: 16 columns kept,
 * 15 copied), against numpy's depthwise 1x9 "same" with the bias (tests/oracle/gen_model.py,
 * dw_ox2). Negatives: the positions in natural order, or each pair swapped, fail the checker;
 * Ox 3, Oy 2, Ox 2 with Sx 1, Ox 2 on a dense convolution, Kh 3 and the result through the tile
 * DMA are refused naming the field. Before Ox 2 was read, every one was refused (Ox 2 as
 * unmodelled).
 */
#define OX_C 32u
#define OX_W 15u
#define OX_KW 9u
#define OX_KEL (2u + 2u * (OX_KW + 1u))
static uint8_t oxprog[2 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 4096];
static uint16_t oxrec[OX_C * OX_KEL];

/* gen_model.py's dw_bias as fp16 (a multiple of 1/4 in [-1, 1]: exact) */
static uint16_t dw_bias16(unsigned o)
{
	static const uint16_t q[9] = {0xbc00, 0xba00, 0xb800, 0xb400, 0x0000, 0x3400, 0x3800, 0x3a00, 0x3c00};
	return q[(o * 5 + 2) % 9];
}

/* tap i of channel o (dw_weight), 0 outside 0..8 */
static uint16_t ox_tap(unsigned o, int i)
{
	return i >= 0 && i < (int)OX_KW ? dw_weight(o, (unsigned)i) : 0;
}

/* natural: the positions in natural order (not Apple's); swap: each pair's two weights swapped */
static size_t build_ox2(int natural, int swap)
{
	static const unsigned parity[OX_KW + 1] = {0, 2, 4, 6, 8, 1, 3, 5, 7, 9};
	for (unsigned o = 0; o < OX_C; o++) {
		uint16_t *r = oxrec + o * OX_KEL;
		r[0] = r[1] = dw_bias16(o);
		for (unsigned q = 0; q <= OX_KW; q++) {
			const int p = (int)(natural ? q : parity[q]);
			r[2 + 2 * q + (swap ? 1 : 0)] = ox_tap(o, p);
			r[2 + 2 * q + (swap ? 0 : 1)] = ox_tap(o, p - 1);
		}
	}
	const size_t len = bp_dwox2(oxprog, sizeof oxprog, OX_C, OX_W, OX_KW, 4, oxrec, 1);
	CHECK(len > 0);
	return len;
}

TEST(model_depthwise, ox_2_two_columns_a_position_as_apples_1x9)
{
	struct orc_run r;
	char fault[256] = "";
	const size_t len = build_ox2(0, 0);
	CHECKF(trun_orc("dw_ox2", oxprog, len, 0, &r, fault, sizeof fault) == 0, "%s", fault);
	CHECKF(r.checked_tensors == 1 && r.checked == OX_C * OX_W && r.bad == 0, "%lu of %lu outside",
	       (unsigned long)r.bad, (unsigned long)r.checked);
	printf("# dw_ox2: %lu values, worst error %u%% of its tolerance\n", (unsigned long)r.checked,
	       (unsigned)(r.worst * 100.0));
}

#if !defined(ANEFW_TARGET)
static void ox_refused(unsigned td, uint32_t reg, unsigned lsb, unsigned width, uint32_t v, const char *want)
{
	struct orc_run r;
	char fault[256] = "";
	const size_t len = build_ox2(0, 0);
	CHECK(tpatch_field(oxprog, len, td, reg, lsb, width, v) == 0);
	CHECK(trun_orc("dw_ox2", oxprog, len, 1, &r, fault, sizeof fault) != 0);
	CHECKF(strstr(fault, want) != NULL, "fault \"%s\", want \"%s\"", fault, want);
}

TEST(model_depthwise, ox_2_wrong_records_fail_and_unpinned_forms_are_refused)
{
	static const struct {
		int natural, swap;
		const char *what;
	} bad[] = {{1, 0, "positions in natural order"}, {0, 1, "each pair's columns swapped"}};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct orc_run r;
		char fault[256] = "";
		const size_t len = build_ox2(bad[i].natural, bad[i].swap);
		CHECKF(trun_orc("dw_ox2", oxprog, len, 1, &r, fault, sizeof fault) == 0, "%s: %s", bad[i].what, fault);
		CHECKF(r.bad > r.checked / 4, "%s: %lu of %lu outside", bad[i].what, (unsigned long)r.bad,
		       (unsigned long)r.checked);
	}
	ox_refused(0, H13_COMMON_CONVCFG, H13_CONVCFG_OX_LSB, H13_CONVCFG_OX_W, 3,
		   "td 0, unit Common, Common.ConvCfg.Ox = 0x3: unmodelled-field: Common.ConvCfg.Ox other than 1 or 2");
	ox_refused(0, H13_COMMON_CONVCFG, H13_CONVCFG_OY_LSB, H13_CONVCFG_OY_W, 2,
		   "td 0, unit Common, Common.ConvCfg.Oy = 0x2: unmodelled-field");
	ox_refused(0, H13_COMMON_CONVCFG, H13_CONVCFG_SX_LSB, H13_CONVCFG_SX_W, 1,
		   "Common.ConvCfg.Ox = 0x2: unmodelled-field: Common.ConvCfg.Ox 2 without Sx 2");
	ox_refused(0, H13_COMMON_GROUPCONVCFG, 0, 32, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1),
		   "Common.ConvCfg.Ox = 0x2: unmodelled-field: Common.ConvCfg.Ox 2 other than on a depthwise convolution");
	ox_refused(0, H13_COMMON_CONVCFG, H13_CONVCFG_KH_LSB, H13_CONVCFG_KH_W, 3,
		   "Common.ConvCfg.Ox = 0x2: unmodelled-field: Common.ConvCfg.Ox 2 with Kh other than 1");
	ox_refused(0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB, H13_KERNELCFG_KERNELFMT_W, H13_KERNELFMT_UINT8,
		   "Common.ConvCfg.Ox = 0x2: unmodelled-field: Common.ConvCfg.Ox 2 with kernels other than plain fp16");
	ox_refused(0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W, H13_L2_RESIDENT,
		   "Common.ConvCfg.Ox = 0x2: unmodelled-field: Common.ConvCfg.Ox 2 with the result other than kept in L2 memory alone");
}

/*
 * Eighth review: Ox 2's row is 2 x Wout columns, and Wout is a 15-bit field, so a row can be
 * longer than the model's row buffers (ANEM_ROW_MAX, TD_ROW_MAX: 32768 values, enough for any
 * Win or Wout alone). Over x [16, 1, 32767] with Kw 9, Px 8 (the window check allows Px up to
 * Kw - 1), Wout is 16388 and the row 32776 values: dw_ox2_row wrote its two columns into m->hv
 * and m->hv2 past their ends (UBSan: index out of bounds at compute.c's m->hv2[J + j]; a plain
 * build writes over the struct's next arrays). Now refused by name (beyond-model-capacity, naming
 * Common.OutDim.Wout). The control, Px 4 (Wout 16384, a row of exactly 32768), computes: input 1
 * everywhere, each column's nine taps 1/4 and no bias, so output column x is 1/4 times the
 * inputs x - 4 .. x + 4 inside 0 .. 32766 (hand arithmetic: 2.25 inside, 1.25 at column 0, 1.0
 * at 32766), every one of 16 x 32767 checked.
 */
#define OXW_C 16u
#define OXW_W 32767u
#define OXW_KEL (2u + 2u * (OX_KW + 1u))
static uint8_t oxwprog[2 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 4096];
static uint16_t oxwrec[OXW_C * OXW_KEL];

struct oxw {
	uint64_t checked, bad;
	int first_bad;
	uint16_t got, want;
};

static uint16_t oxw_x = 0x3c00u; /* every input (1 but where a test sets it) */
static void oxw_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (!is_weights && g->bar == BP_IN0_BAR)
		for (uint64_t i = 0; i + 2 <= g->size; i += 2)
			le_wr16(buf + i, oxw_x);
}

static void oxw_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct oxw *d = ctx;
	if (is_weights || g->bar != BP_OUT_BAR)
		return;
	for (unsigned c = 0; c < OXW_C; c++)
		for (unsigned x = 0; x < OXW_W; x++) {
			const uint64_t off = (uint64_t)c * bp_row(OXW_W) + 2u * x;
			if (off + 2 > g->size)
				return;
			const unsigned lo = x < 4u ? 0u : x - 4u, hi = x + 4u > OXW_W - 1u ? OXW_W - 1u : x + 4u;
			static const uint16_t quarter[10] = {0, 0x3400, 0x3800, 0x3a00, 0x3c00,
							     0x3d00, 0x3e00, 0x3f00, 0x4000, 0x4080};
			const uint16_t want = quarter[hi - lo + 1u], got = le_rd16(buf + off);
			d->checked++;
			if (got != want && !d->bad++) {
				d->got = got;
				d->want = want;
				d->first_bad = (int)(c * OXW_W + x);
			}
		}
}

static int oxw_run(unsigned px, struct oxw *d, struct session_result *res)
{
	static const unsigned parity[OX_KW + 1] = {0, 2, 4, 6, 8, 1, 3, 5, 7, 9};
	for (unsigned o = 0; o < OXW_C; o++) {
		uint16_t *r = oxwrec + o * OXW_KEL;
		r[0] = r[1] = 0;
		for (unsigned q = 0; q <= OX_KW; q++) {
			const unsigned p = parity[q];
			r[2 + 2 * q] = p < OX_KW ? 0x3400u : 0;  /* column 2j: t(p) */
			r[2 + 2 * q + 1] = p >= 1 ? 0x3400u : 0; /* column 2j + 1: t(p - 1) */
		}
	}
	const size_t len = bp_dwox2(oxwprog, sizeof oxwprog, OXW_C, OXW_W, OX_KW, px, oxwrec, 1);
	if (!len)
		return -2;
	memset(d, 0, sizeof *d);
	const struct session_hooks h = {oxw_fill, oxw_check, d, 0};
	return tsubmit(oxwprog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, res);
}

TEST(model_depthwise, ox_2_rows_past_the_models_row_refused_by_name)
{
	struct oxw d;
	struct session_result res;
	int rc = oxw_run(4, &d, &res); /* the control: Wout 16384, 32768 columns a row */
	CHECKF(rc == 0 && res.run == ENG_OK, "Px 4: rc %d: %s", rc, res.fault_text);
	CHECKF(d.checked == (uint64_t)OXW_C * OXW_W && d.bad == 0,
	       "Px 4: %lu of %lu values off, the first at %d: 0x%04x, want 0x%04x", (unsigned long)d.bad,
	       (unsigned long)d.checked, d.first_bad, d.got, d.want);
	rc = oxw_run(8, &d, &res); /* Wout 16388: 32776 columns a row */
	CHECKF(rc != 0 && strstr(res.fault_text, "td 0, unit Common, Common.OutDim.Wout = 0x4004: "
						 "beyond-model-capacity: Common.ConvCfg.Ox 2") != NULL,
	       "Px 8: rc %d: \"%s\"", rc, res.fault_text);
}

/*
 * Eighth review: Ox 2 with Kw 1. Each column then has one tap of the kernel (column 2j t(0) at
 * position 0, column 2j + 1 t(0) at position 1: Apple's pairs t(p), t(p - 1)) among the record's
 * two positions, so whether the MAC's 2^15 port saturation applies (guide 03: a convolution of two
 * or more taps, +inf) or not (a one-channel 1x1 passes 60000) is not pinned; dw_ox2_row counted
 * Kw = 1 tap and gave 40000 x 1 as 40000. No program shows Kw other than 9: refused by name now.
 * Kw 2 (two taps either way) still computes: the control, 10000 + 10000 = 20000 in columns 0 to
 * 6 and 10000 in column 7, whose second input is past the row (hand arithmetic).
 */
static uint8_t ox1prog[2 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 4096];
struct ox1 {
	uint64_t n, bad;
	uint16_t got;
};

static void ox1_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct ox1 *d = ctx;
	if (is_weights || g->bar != BP_OUT_BAR)
		return;
	for (unsigned c = 0; c < 16u; c++)
		for (unsigned x = 0; x < 8u; x++) {
			const uint64_t off = (uint64_t)c * bp_row(8) + 2u * x;
			if (off + 2 > g->size)
				return;
			const uint16_t got = le_rd16(buf + off), want = x == 7u ? 0x70e2u : 0x74e2u; /* 10000, 20000 */
			d->n++;
			if (got != want && !d->bad++)
				d->got = got;
		}
}

static int ox1_run(unsigned kw, uint16_t x, struct ox1 *d, struct session_result *res)
{
	uint16_t rec[16 * 2 * 4];
	const unsigned kel = 2u * (kw + 1u);
	for (unsigned o = 0; o < 16u; o++)
		for (unsigned i = 0; i < kel; i++) /* Kw 1: t(0) = 1 at positions 0 and 1 (their columns);
						    * Kw 2: t(0) = t(1) = 1 at positions 0, 2, 1 (parity order) */
			rec[o * kel + i] = kw == 1u ? (i == 0u || i == 3u ? 0x3c00u : 0) : (i == 1u || i == 2u ? 0 : 0x3c00u);
	const size_t len = bp_dwox2(ox1prog, sizeof ox1prog, 16, 8, kw, 0, rec, 0);
	if (!len)
		return -2;
	memset(d, 0, sizeof *d);
	oxw_x = x;
	const struct session_hooks h = {oxw_fill, ox1_check, d, 0};
	const int rc = tsubmit(ox1prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, res);
	oxw_x = 0x3c00u;
	return rc;
}

TEST(model_depthwise, ox_2_with_kw_1_is_refused_by_name)
{
	struct ox1 d;
	struct session_result res;
	int rc = ox1_run(2, 0x70e2u /* 10000 */, &d, &res);
	CHECKF(rc == 0 && res.run == ENG_OK && d.n == 16u * 8u && d.bad == 0, "Kw 2: rc %d, %lu of %lu off (0x%04x): %s",
	       rc, (unsigned long)d.bad, (unsigned long)d.n, d.got, res.fault_text);
	rc = ox1_run(1, 0x78e2u /* 40000 */, &d, &res);
	CHECKF(rc != 0 && strstr(res.fault_text, "td 0, unit Common, Common.ConvCfg.Ox = 0x2: unmodelled-field: "
						 "Common.ConvCfg.Ox 2 with Kw 1 not modelled") != NULL,
	       "Kw 1: rc %d, the first output 0x%04x: \"%s\"", rc, d.got, res.fault_text);
}
#endif

/*
 * Seventh review: infinities of both signs in one depthwise output's sum (guide 03 gives
 * inf - inf = +0 and does not say where the MAC flushes it inside an accumulation) are refused
 * by name, where the output was +0. Channel 1's output (1, 3) sums w00 x input (0, 2) then
 * w01 x 5: +inf x 1 then -inf x 5 is refused; the control, +inf x 1 then +inf x 5, is +inf.
 */
TEST(model_depthwise, infinities_of_both_signs_in_one_sum_are_refused)
{
	static const struct {
		uint16_t w01;
		int refused;
	} cases[] = {{0xfc00u, 1}, {0x7c00u, 0}};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		dwz_in02 = 0x3c00u;
		struct dwi d = {0};
		struct session_result res;
		int rc = dwt_run(0x7c00u, cases[i].w01, NULL, dwz_fill, &d, &res);
		if (cases[i].refused)
			CHECKF(rc != 0 && strstr(res.fault_text, "ambiguous-value") &&
				       strstr(res.fault_text, "infinities of both signs"),
			       "+inf then -inf: rc %d, 0x%04x: %s", rc, d.at, res.fault_text);
		else
			CHECKF(rc == 0 && res.run == ENG_OK && d.at == 0x7c00u, "+inf then +inf: rc %d, 0x%04x: %s",
			       rc, d.at, res.fault_text);
	}
}

/*
 * The same refusal on Ox 2's row (dw_ox2_row): the form of Apple's depthwise 1x9 (build_ox2's
 * bp_dwox2 program, 32 channels of 15), every input 1, every weight and bias 0 but two of channel
 * 1's, at positions 4 and 6 of one column (record places 2 and 3 of the parity order): output
 * column 2j (or 2j + 1) sums them over inputs 2j and 2j + 2 (2j + 1 and 2j + 3 for column 1).
 * +inf and -inf in column 0, or -inf and +inf in column 1, are refused by name; before, each
 * completed with +0 there (the fp32 sum's NaN at the port). The control, +inf and +inf in column
 * 0: the output's column 0 is +inf and its column 1 is +0 (hand arithmetic).
 */
struct oxi {
	uint16_t col0, col1; /* channel 1's output columns 0 and 1 */
};

static void oxi_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	if (!is_weights && g->bar == BP_IN0_BAR)
		for (uint64_t k = 0; k + 2 <= g->size; k += 2)
			le_wr16(buf + k, 0x3c00u); /* 1 */
}

static void oxi_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct oxi *d = ctx;
	const uint64_t off = bp_row(OX_W); /* channel 1, [C, 1, W] */
	if (!is_weights && g->bar == BP_OUT_BAR && off + 4 <= g->size) {
		d->col0 = le_rd16(buf + off);
		d->col1 = le_rd16(buf + off + 2);
	}
}

TEST(model_depthwise, ox_2_infinities_of_both_signs_in_one_sum_are_refused)
{
	static const struct {
		unsigned col;
		uint16_t p4, p6;
		int refused;
	} cases[] = {{0, 0x7c00u, 0xfc00u, 1}, {1, 0xfc00u, 0x7c00u, 1}, {0, 0x7c00u, 0x7c00u, 0}};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(oxrec, 0, sizeof oxrec);
		uint16_t *r = oxrec + 1u * OX_KEL; /* channel 1: the two biases, then (col 0, col 1) pairs */
		r[2u + 2u * 2u + cases[i].col] = cases[i].p4; /* position 4: place 2 */
		r[2u + 2u * 3u + cases[i].col] = cases[i].p6; /* position 6: place 3 */
		const size_t len = bp_dwox2(oxprog, sizeof oxprog, OX_C, OX_W, OX_KW, 4, oxrec, 1);
		REQUIRE(len > 0);
		struct oxi d = {0x1234u, 0x1234u};
		struct session_result res;
		const struct session_hooks h = {oxi_fill, oxi_check, &d, 0};
		int rc = tsubmit(oxprog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
		if (cases[i].refused)
			CHECKF(rc != 0 && strstr(res.fault_text, "td 0,") &&
				       strstr(res.fault_text, "ambiguous-value") &&
				       strstr(res.fault_text, "infinities of both signs"),
			       "column %u: rc %d, 0x%04x 0x%04x: %s", cases[i].col, rc, d.col0, d.col1,
			       res.fault_text);
		else
			CHECKF(rc == 0 && res.run == ENG_OK && d.col0 == 0x7c00u && d.col1 == 0x0000u,
			       "+inf then +inf: rc %d, 0x%04x 0x%04x: %s", rc, d.col0, d.col1, res.fault_text);
	}
}
