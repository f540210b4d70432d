/*
 * td_print_op (fw/td/op.c): what a TD computes, in words, from a register image; and
 * fp16_format (fw/common/fp16.c), the decimal text it prints scales with. Register images are
 * built here field by field; the expected text is written out in full, so a wrong field, a wrong
 * scale or a missing stage fails the comparison (and the comparison's own test shows a one-word
 * difference fails it).
 */
#include "fw/common/fp16.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tests/unit/tregs.h"
#include "tests/unit/tsession.h"

#include <stdio.h>
#include <string.h>

/* bar_en: the header's bound BAR slots */
static const char *describe_bars(const struct treg_img *m, unsigned bar_en, struct tcapture *t)
{
	memset(t, 0, sizeof *t);
	const struct td_regs r = {treg_get, m};
	td_print_op(&r, bar_en, tcapture_out, t);
	return t->text;
}

/* RBase0, RBase1 and WBase bound */
#define BARS_ALL ((1u << H13_BAR_RBASE0) | (1u << H13_BAR_RBASE1) | (1u << H13_BAR_WBASE))
static const char *describe(const struct treg_img *m, struct tcapture *t)
{
	return describe_bars(m, BARS_ALL, t);
}

/* Common.Cfg.TaskType as Apple's compilers write it for the Planar.Cfg set so far (fw/td
 * td_pe_task); the PE is then in the path (td_pe_in_path) */
static void pe_task(struct treg_img *m)
{
	const uint32_t other = treg_get(m, H13_COMMON_CFG) & ~H13_PUT(H13_CFG_TASKTYPE, ~0u);
	treg_set(m, H13_COMMON_CFG, other | H13_PUT(H13_CFG_TASKTYPE, td_pe_task(treg_get(m, H13_PLANAR_CFG))));
}

/* The PE with Planar.Cfg cfg and identity scales (Scale, PreScale and FinalScale 1, Bias 0), in
 * the path by its TaskType (pe_task) */
static void pe_identity(struct treg_img *m, uint32_t cfg)
{
	treg_set(m, H13_PLANAR_CFG, cfg);
	treg_set(m, H13_PLANAR_BIASSCALE, H13_PUT(H13_BIASSCALE_SCALE, 0x3c00u));
	treg_set(m, H13_PLANAR_PRESCALE, H13_PUT(H13_PRESCALE, 0x3c00u));
	treg_set(m, H13_PLANAR_FINALSCALE, 0x3f800000u);
	pe_task(m);
}

static void common(struct treg_img *m, unsigned w, unsigned h, unsigned cin, unsigned cout)
{
	treg_set(m, H13_COMMON_INDIM, H13_PUT(H13_INDIM_WIN, w) | H13_PUT(H13_INDIM_HIN, h));
	treg_set(m, H13_COMMON_OUTDIM, H13_PUT(H13_OUTDIM_WOUT, w) | H13_PUT(H13_OUTDIM_HOUT, h));
	treg_set(m, H13_COMMON_CHCFG, H13_PUT(H13_CHCFG_INFMT, H13_FMT_FP16) | H13_PUT(H13_CHCFG_OUTFMT, H13_FMT_FP16));
	treg_set(m, H13_COMMON_CIN, cin);
	treg_set(m, H13_COMMON_COUT, cout);
	treg_set(m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1));
	treg_set(m, H13_COMMON_INDEPTH, td_fixed_bits(H13_COMMON_INDEPTH));
	treg_set(m, H13_COMMON_OUTDEPTH, td_fixed_bits(H13_COMMON_OUTDEPTH));
	treg_set(m, H13_COMMON_WORD20, td_fixed_bits(H13_COMMON_WORD20));
	treg_set(m, H13_COMMON_CONVCFG, TD_CONVCFG_UNIT);
	treg_set(m, H13_SRC_DMACONFIG, H13_PUT(H13_DMA_EN, 1));
	treg_set(m, H13_DST_DMACONFIG, H13_PUT(H13_DMA_EN, 1));
	treg_set(m, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA);
	treg_set(m, H13_L2_RESULTCFG, TD_L2_RESULTCFG_DMA);
	/* Common.TileCfg's TileHeight (a tile of h rows), the tile DMAs' Fmt words every real fp16
	 * program has, and strides that keep each tile's rows,
	 * planes and groups apart (room for a result up to 8 times as wide and twice as high, as a
	 * test's OutDim may be; a test sets its own where it reads them): what the model refuses
	 * otherwise, inspect marks (fw/td tiles.c) */
	treg_set(m, H13_COMMON_TILECFG, H13_PUT(H13_TILECFG_TILEHEIGHT, h));
	treg_set(m, H13_SRC_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_SRC_FMT));
	treg_set(m, H13_DST_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_DST_FMT));
	const uint32_t row = (w * 16u + 63u) & ~63u, plane = row * h * 2u;
	const uint32_t group = plane * (cin > cout ? cin : cout);
	treg_set(m, H13_SRC_ROWSTRIDE, row);
	treg_set(m, H13_SRC_PLANESTRIDE, plane);
	treg_set(m, H13_SRC_GROUPSTRIDE, group);
	treg_set(m, H13_DST_ROWSTRIDE, row);
	treg_set(m, H13_DST_PLANESTRIDE, plane);
	treg_set(m, H13_DST_GROUPSTRIDE, group);
}

TEST(td_op, convolution_with_a_palette_and_the_lut)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 32, 2, 16, 8);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 3) | H13_PUT(H13_CONVCFG_KH, 3) |
				     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 2) |
				     H13_PUT(H13_CONVCFG_PX, 1) | H13_PUT(H13_CONVCFG_PY, 1));
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16) |
				   H13_PUT(H13_KERNELCFG_PALETTIZEDEN, 1) | H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 4));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) |
				H13_PUT(H13_MACCFG_NONLINEARMODE, H13_NONLINEAR_LUT) | H13_PUT(H13_MACCFG_BIT20, 1));
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3dc5u));
	CHECK_STR(describe(&m, &t),
		  "  source: RBase0, 16 x 2 x 32 fp16 (C x H x W)\n"
		  "  NE: convolution 3x3, stride 1x2, padding 1x1, 1 group, 16 -> 8 channels, kernels fp16, "
		  "palettized 4-bit (not modelled: palettized coefficient channels not modelled), x PostScale "
		  "1.442383\n"
		  "  nonlinear: the activation LUT\n"
		  "  PE: not in the path (Common.Cfg.TaskType 0)\n"
		  "  result: WBase, 8 x 2 x 32 fp16\n");
}

/* Apple's batched matmul's row TD: a 1x1 convolution 375 -> 16 whose kernels carry
 * NE.KernelCfg.Align (0x10082); inspect names it, as the model reads it */
TEST(td_op, convolution_with_kernelcfg_align)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 128, 1, 375, 16);
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16) |
				   H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 8) | H13_PUT(H13_KERNELCFG_ALIGN, 1));
	/* OpMode 0 with conv.hwx's BinaryPoint: a nonzero MACCfg puts the NE in the path */
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) | H13_PUT(H13_MACCFG_BINARYPOINT, 0x1c));
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	for (unsigned c = 0; c < H13_COEFF_NCH; c++) { /* its 16 channels, a kernel of 375 fp16 each */
		treg_set(&m, H13_COEFF_DMACONFIG(c), H13_PUT(H13_DMA_EN, 1));
		treg_set(&m, H13_COEFF_BFRSIZE(c), 0x300u);
	}
	CHECK(strstr(describe(&m, &t), "  NE: convolution 1x1, stride 1x1, padding 0x0, 1 group, 375 -> 16 "
					 "channels, kernels fp16, KernelCfg.Align (read as no change: dense "
					 "1x1 fp16 kernels only), x PostScale 1\n") != NULL);
	/* without it, no such words */
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16));
	CHECK(strstr(describe(&m, &t), "Align") == NULL);
}

/* The kernel layout OCGSize selects, as the model reads it (fw/td td_ocg_layout): gemm.hwx's
 * 512 -> 512 with OCGSize 5, four passes of 16 x 8, a layout the model refuses (a last partial
 * pass of 8 outputs), the two forms of a Cout under one pass by the channels enabled, and
 * enabled channels neither form reads. */
TEST(td_op, convolution_kernels_in_runs_of_ocgsize)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 1, 1, 512, 512);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
				     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1) |
				     H13_PUT(H13_CONVCFG_OCGSIZE, 5));
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) |
				H13_PUT(H13_MACCFG_BIT20, 1)); /* gemm.hwx's 0x101c00 */
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	for (unsigned c = 0; c < H13_COEFF_NCH; c++) /* gemm.hwx's 16 channels */
		treg_set(&m, H13_COEFF_DMACONFIG(c), H13_PUT(H13_DMA_EN, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, "512 -> 512 channels, kernels fp16, 32 outputs a coefficient channel "
			      "(OCGSize 5), x PostScale 1\n") != NULL, "%s", t.text);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
				     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1) |
				     H13_PUT(H13_CONVCFG_OCGSIZE, 3));
	describe(&m, &t);
	CHECKF(strstr(t.text, ", 8 outputs a coefficient channel a pass (OCGSize 3), 4 passes, ") != NULL,
	       "%s", t.text);
	treg_set(&m, H13_COMMON_COUT, 520); /* a last partial pass of 8: not a multiple of 16 */
	describe(&m, &t);
	CHECKF(strstr(t.text, ", OCGSize 3 (not modelled: Common.ConvCfg.OCGSize above 0 with several groups not "
			      "each one pass of 16 x 2^OCGSize outputs, a count not a multiple of 2^OCGSize, or a "
			      "last partial pass not a multiple of 16 outputs: no real program pins that kernel "
			      "layout), ") != NULL, "%s", t.text);
	/* several groups, each one whole pass (Apple's grouped 3x3 16 -> 32 a group with OCGSize 1):
	 * read, each group's block on its own line; two passes a group: not */
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 4));
	treg_set(&m, H13_COMMON_COUT, 32);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
				     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1) |
				     H13_PUT(H13_CONVCFG_OCGSIZE, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, ", 2 outputs a coefficient channel a group (OCGSize 1; one pass a group, each "
			      "group's block on its own 64-byte line), x PostScale 1\n") != NULL, "%s", t.text);
	treg_set(&m, H13_COMMON_COUT, 64);
	describe(&m, &t);
	CHECKF(strstr(t.text, ", OCGSize 1 (not modelled: Common.ConvCfg.OCGSize above 0 with several groups not "
			      "each one pass of 16 x 2^OCGSize outputs") != NULL, "%s", t.text);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1));
	treg_set(&m, H13_COMMON_COUT, 520);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
				     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1) |
				     H13_PUT(H13_CONVCFG_OCGSIZE, 3));
	/* Apple's 768 -> 768 with a bias: a pass of 512, then 16 a channel */
	treg_set(&m, H13_COMMON_COUT, 768);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
				     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1) |
				     H13_PUT(H13_CONVCFG_OCGSIZE, 5));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) |
				H13_PUT(H13_MACCFG_BIT20, 1) | H13_PUT(H13_MACCFG_BIASMODE, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, "kernels fp16, + a bias an output (BiasMode: each kernel's first element), 32 "
			      "outputs a coefficient channel a pass (OCGSize 5), 1 pass and a last of 16 a "
			      "channel, x PostScale 1\n") != NULL, "%s", t.text);
	/* a last pass of 6 a channel (not a power of two, as Apple's 96-output TDs have): read */
	treg_set(&m, H13_COMMON_COUT, 608);
	describe(&m, &t);
	CHECKF(strstr(t.text, "(OCGSize 5), 1 pass and a last of 6 a channel, x PostScale 1\n") != NULL, "%s", t.text);
	/* a Cout under one pass: which channels are enabled says the form (Apple's K 4096 -> N 1024
	 * linear: 96 outputs with OCGSize 3 in all 16, 6 each; the macOS linears: Cout 32 over 4) */
	treg_set(&m, H13_COMMON_COUT, 96);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
				     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1) |
				     H13_PUT(H13_CONVCFG_OCGSIZE, 3));
	describe(&m, &t);
	CHECKF(strstr(t.text, ", 6 outputs a coefficient channel in all 16 (OCGSize 3; Cout / 16, all 16 "
			      "enabled), x PostScale 1\n") != NULL, "%s", t.text);
	treg_set(&m, H13_COMMON_COUT, 32);
	for (unsigned c = 4; c < H13_COEFF_NCH; c++)
		treg_set(&m, H13_COEFF_DMACONFIG(c), 0);
	describe(&m, &t);
	CHECKF(strstr(t.text, ", 8 outputs a coefficient channel in the first 4 (OCGSize 3; Cout / 2^OCGSize "
			      "enabled), x PostScale 1\n") != NULL, "%s", t.text);
	/* a fifth channel enabled: neither form, marked with what the model refuses */
	treg_set(&m, H13_COEFF_DMACONFIG(4), H13_PUT(H13_DMA_EN, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, ", OCGSize 3, coefficient channel 4 (not modelled: a coefficient channel enabled "
			      "that the kernel layout (Common.ConvCfg.OCGSize, Common.Cout) does not read), x "
			      "PostScale 1\n") != NULL, "%s", t.text);
	/* 96 with only channels 0-4: channel 5 read (12 of 8) and not enabled */
	treg_set(&m, H13_COMMON_COUT, 96);
	describe(&m, &t);
	CHECKF(strstr(t.text, ", OCGSize 3, coefficient channel 5 (not modelled: a coefficient channel the kernel "
			      "layout (Common.ConvCfg.OCGSize, Common.Cout) reads is not enabled), x PostScale "
			      "1\n") != NULL, "%s", t.text);
}

/* A depthwise convolution (UnicastEn) reads the first min(Cout, 16) coefficient channels, the
 * OCGSize 0 layout over Cout: inspect marks an enabled channel beyond them as the model refuses it
 * (allbilly/ane's conv->sigmoid: conv.hwx's TD with Cin = Cout = 1, UnicastEn, channels 1-2 still
 * enabled), and with only the channels read enabled marks nothing. */
TEST(td_op, depthwise_marks_an_enabled_coefficient_channel_it_does_not_read)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 1, 1, 1, 1);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x14001u); /* NumGroups 1, UnicastEn, UnicastCin 1 */
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) |
				H13_PUT(H13_MACCFG_BIT20, 1));
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	for (unsigned c = 0; c < 3; c++) /* conv.hwx's three channels */
		treg_set(&m, H13_COEFF_DMACONFIG(c), H13_PUT(H13_DMA_EN, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, "depthwise (GroupConvCfg.UnicastEn: each output channel from its own input "
			      "channel), OCGSize 0, coefficient channel 1 (not modelled: a coefficient channel "
			      "enabled that the kernel layout (Common.ConvCfg.OCGSize, Common.Cout) does not "
			      "read), x PostScale 1\n") != NULL, "%s", t.text);
	/* the control: channel 0 alone */
	treg_set(&m, H13_COEFF_DMACONFIG(1), 0);
	treg_set(&m, H13_COEFF_DMACONFIG(2), 0);
	describe(&m, &t);
	CHECKF(strstr(t.text, "own input channel), x PostScale 1\n") != NULL && !strstr(t.text, "not modelled"),
	       "%s", t.text);
	/* 8 channels over 8 lanes (Apple's pad form), a ninth lane enabled */
	common(&m, 1, 1, 8, 8);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x14001u);
	for (unsigned c = 0; c < 8; c++)
		treg_set(&m, H13_COEFF_DMACONFIG(c), H13_PUT(H13_DMA_EN, 1));
	describe(&m, &t);
	CHECKF(!strstr(t.text, "not modelled"), "%s", t.text);
	treg_set(&m, H13_COEFF_DMACONFIG(8), H13_PUT(H13_DMA_EN, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, "OCGSize 0, coefficient channel 8 (not modelled: a coefficient channel enabled") != NULL,
	       "%s", t.text);
}

/* A depthwise convolution's register refusals (fw/td td_depthwise_refusal, the model's depthwise
 * faults with the same text) mark inspect's convolution line: UnicastCin 3, UnicastCin 2 with a
 * 3x3 window or with Cin not twice Cout, OCGSize 1, int8 (KernelFmt 0) kernels, and a bias with
 * KernelFmt 1 kernels. Before, the line printed each as computed ("N = UnicastCin 3"). The control,
 * Apple's less (UnicastCin 2, 1x1, Cin 2 Cout, KernelFmt 1), and the same with fp16 kernels and a
 * bias on UnicastCin 1, stay unmarked. */
static void dw_regs(struct treg_img *m, unsigned n, unsigned c, unsigned kfmt)
{
	common(m, 5, 3, n * c, c);
	treg_set(m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
						    H13_PUT(H13_GROUPCONV_UNICASTCIN, n));
	treg_set(m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, kfmt));
	treg_set(m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) | H13_PUT(H13_MACCFG_BIT20, 1));
	treg_set(m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	for (unsigned l = 0; l < H13_COEFF_NCH; l++)
		treg_set(m, H13_COEFF_DMACONFIG(l), H13_PUT(H13_DMA_EN, l < c));
}

/* describe(m) carries "(not modelled: " followed by want */
static void marked(struct treg_img *m, const char *want)
{
	struct tcapture t;
	describe(m, &t);
	char line[512];
	snprintf(line, sizeof line, "(not modelled: %s", want);
	CHECKF(strstr(t.text, line) != NULL, "want \"%s\" in %s", want, t.text);
}

TEST(td_op, depthwise_marks_what_the_model_refuses)
{
	struct treg_img m = {0};
	struct tcapture t;
	/* the controls: Apple's less; fp16 kernels with a bias */
	dw_regs(&m, 2, 16, H13_KERNELFMT_UINT8);
	describe(&m, &t);
	CHECKF(strstr(t.text, "N = UnicastCin 2)") && !strstr(t.text, "not modelled"), "%s", t.text);
	dw_regs(&m, 1, 16, H13_KERNELFMT_FP16);
	treg_set(&m, H13_NE_MACCFG, treg_get(&m, H13_NE_MACCFG) | H13_PUT(H13_MACCFG_BIASMODE, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, "own input channel)") && !strstr(t.text, "not modelled"), "%s", t.text);
	/* a bias with KernelFmt 1 */
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_UINT8));
	marked(&m, "NE.MACCfg.BiasMode with kernels other than fp16 not modelled");
	/* KernelFmt 1 outside Apple's less's form (UnicastCin 1) */
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) | H13_PUT(H13_MACCFG_BIT20, 1));
	marked(&m, "a depthwise convolution with KernelFmt 1 kernels other than Apple's less's");
	/* UnicastCin 3 */
	dw_regs(&m, 3, 16, H13_KERNELFMT_FP16);
	marked(&m, "a convolution with kernels in memory and GroupConvCfg.UnicastEn (Apple's depthwise "
		      "convolutions) other than NumGroups 1, UnicastCin 1 or 2");
	/* UnicastCin 2 over Cin = Cout */
	dw_regs(&m, 2, 16, H13_KERNELFMT_UINT8);
	treg_set(&m, H13_COMMON_CIN, 16);
	marked(&m, "a depthwise convolution whose Cin is not GroupConvCfg.UnicastCin times its Cout");
	/* UnicastCin 2 with a 3x3 window */
	dw_regs(&m, 2, 16, H13_KERNELFMT_UINT8);
	treg_set(&m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
					     H13_PUT(H13_CONVCFG_KW, 3) | H13_PUT(H13_CONVCFG_KH, 3) |
					     H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1));
	marked(&m, "a depthwise convolution with GroupConvCfg.UnicastCin above 1 and a window other than 1x1");
	/* OCGSize 1; int8 kernels */
	dw_regs(&m, 1, 16, H13_KERNELFMT_FP16);
	treg_set(&m, H13_COMMON_CONVCFG, treg_get(&m, H13_COMMON_CONVCFG) | H13_PUT(H13_CONVCFG_OCGSIZE, 1));
	marked(&m, "a depthwise convolution with Common.ConvCfg.OCGSize above 0");
	dw_regs(&m, 1, 16, H13_KERNELFMT_INT8);
	marked(&m, "a depthwise convolution with Common.ConvCfg.OCGSize above 0 or kernels other than plain fp16");
}

/* A phase-sparse convolution (SparseFmt) in a kernel layout whose records no program pins (fw/td
 * td_pkern_refusal, load_kernels' refusal): Cout / 16 a channel in all 16 (96 outputs, OCGSize 3),
 * and a last partial pass after whole ones (Apple's 768 shape, OCGSize 5); int8 phase-sparse
 * kernels. Before, inspect printed each as computed ("6 outputs a coefficient channel in all 16").
 * The control, one whole pass (64 outputs, OCGSize 2: Apple's stride-2 1x1 64 -> 64), unmarked. */
static void pk_regs(struct treg_img *m, unsigned cout, unsigned ocg, unsigned kfmt)
{
	common(m, 4, 4, 64, cout);
	treg_set(m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
						H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
						H13_PUT(H13_CONVCFG_SX, 2) | H13_PUT(H13_CONVCFG_SY, 2) |
						H13_PUT(H13_CONVCFG_OCGSIZE, ocg));
	treg_set(m, H13_COMMON_OUTDIM, H13_PUT(H13_OUTDIM_WOUT, 2) | H13_PUT(H13_OUTDIM_HOUT, 2));
	treg_set(m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, kfmt) | H13_PUT(H13_KERNELCFG_SPARSEFMT, 1));
	treg_set(m, H13_KDMA_WORD0, treg_get(m, H13_KDMA_WORD0) | H13_KDMA_WORD0_SPARSE);
	treg_set(m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) | H13_PUT(H13_MACCFG_BIT20, 1));
	treg_set(m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	for (unsigned l = 0; l < H13_COEFF_NCH; l++)
		treg_set(m, H13_COEFF_DMACONFIG(l), H13_PUT(H13_DMA_EN, 1));
}

TEST(td_op, phase_sparse_marks_the_layouts_the_model_refuses)
{
	struct treg_img m = {0};
	struct tcapture t;
	pk_regs(&m, 64, 2, H13_KERNELFMT_FP16);
	describe(&m, &t);
	CHECKF(strstr(t.text, "phase-sparse") && !strstr(t.text, "not modelled"), "%s", t.text);
	static const char lay[] = "phase-sparse kernels over several groups with OCGSize above 0 and other than "
				  "one whole pass a group, with a last partial pass after whole ones, or Cout / 16 "
				  "a channel, not modelled";
	pk_regs(&m, 96, 3, H13_KERNELFMT_FP16);
	marked(&m, lay);
	pk_regs(&m, 768, 5, H13_KERNELFMT_FP16);
	marked(&m, lay);
	pk_regs(&m, 64, 2, H13_KERNELFMT_INT8);
	marked(&m, "phase-sparse kernels other than fp16 not modelled");
}

/* One-byte dense kernels in runs of 2^OCGSize (fw/td td_kernel_bytes_refusal, the model's
 * refusal): the line is marked with the model's text; fp16 in the same runs, and one-byte kernels
 * at OCGSize 0, are not */
TEST(td_op, one_byte_kernels_in_ocgsize_runs_marked)
{
	static const char mark[] = "(not modelled: one-byte kernels (NE.KernelCfg.KernelFmt 0 or 1) with "
				   "Common.ConvCfg.OCGSize above 0 not modelled";
	struct treg_img m = {0};
	struct tcapture t;
	const unsigned fmts[] = {H13_KERNELFMT_FP16, H13_KERNELFMT_INT8, H13_KERNELFMT_UINT8};
	for (unsigned ocg = 0; ocg <= 2; ocg += 2)
		for (unsigned i = 0; i < 3; i++) {
			pk_regs(&m, 64, ocg, fmts[i]);
			treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, fmts[i]));
			treg_set(&m, H13_KDMA_WORD0, treg_get(&m, H13_KDMA_WORD0) & ~(uint32_t)H13_KDMA_WORD0_SPARSE);
			describe(&m, &t);
			const int want = ocg && fmts[i] != H13_KERNELFMT_FP16;
			CHECKF((strstr(t.text, mark) != NULL) == want, "OCGSize %u, KernelFmt %u:\n%s", ocg, fmts[i], t.text);
		}
}

TEST(td_op, planar_engine_add_pool_and_l2)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 1600, 2560, 1, 1);
	treg_set(&m, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA2);
	treg_set(&m, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_MUL) |
				 H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1) | H13_PUT(H13_PECFG_RELUEN, 1));
	treg_set(&m, H13_PLANAR_BIASSCALE, H13_PUT(H13_BIASSCALE_SCALE, 0x3c00u) | H13_PUT(H13_BIASSCALE_BIAS, 0x3800u));
	treg_set(&m, H13_PLANAR_PRESCALE, H13_PUT(H13_PRESCALE, 0xbc00u));
	treg_set(&m, H13_PLANAR_FINALSCALE, 0x3f800000u);
	pe_task(&m);
	treg_set(&m, H13_L2_RESULTCFG, td_fixed_bits(H13_L2_RESULTCFG) | H13_PUT(H13_L2_RESULTTYPE, H13_L2_RESIDENT));
	CHECK_STR(describe(&m, &t),
		  "  source: RBase0, 1 x 2560 x 1600 fp16 (C x H x W)\n"
		  "  NE: not in the path\n"
		  "  PE: a x -1 x b (RBase1), + 0.5, x 1, relu, x FinalScale 1 (not modelled: Planar.BiasScale "
		  "other than Scale 1, Bias 0 on a product of two operands not modelled (every real product has "
		  "them so; on silicon Scale 0 and Bias 0 left a product unchanged))\n"
		  "  result: WBase, 1 x 2560 x 1600 fp16, and keeps it in L2\n"
		  "  registers: (not modelled: an L2-resident result (L2.ResultCfg.ResultType 3) with the tile "
		  "destination writing it too (WBase bound, TileDMADst.DMAConfig.En set or clear) not modelled "
		  "(sigmoid.bin's keeps it with the destination off; which one the engine writes is not known))\n");
	/* a pool from an L2-resident source, |.| (after a 2 x 2 pool: refused since the fourteenth
	 * review), an fp32 FinalScale that is no fp16 */
	struct treg_img p = {0};
	common(&p, 8, 4, 3, 3);
	treg_set(&p, H13_COMMON_OUTDIM, H13_PUT(H13_OUTDIM_WOUT, 4) | H13_PUT(H13_OUTDIM_HOUT, 2));
	treg_set(&p, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				     H13_PUT(H13_CONVCFG_KW, 2) | H13_PUT(H13_CONVCFG_KH, 2) |
				     H13_PUT(H13_CONVCFG_SX, 2) | H13_PUT(H13_CONVCFG_SY, 2));
	treg_set(&p, H13_L2_SOURCECFG, td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2_SOURCETYPE, H13_L2_RESIDENT));
	treg_set(&p, H13_PLANAR_CFG, H13_PUT(H13_PECFG_POOLMODE, H13_PE_POOL_MAX) |
				 H13_PUT(H13_PECFG_CONDITION, H13_PE_COND_ABS));
	treg_set(&p, H13_PLANAR_FINALSCALE, 0x3dcccccdu); /* 0.1f */
	pe_task(&p);
	CHECK_STR(describe(&p, &t),
		  "  source: the L2-resident tensor at byte 0x0, 3 x 4 x 8 fp16\n"
		  "  NE: not in the path\n"
		  "  PE: max pool 2x2 stride 2x2 padding 0x0, then a x 0, |.| (not modelled: " TD_PE_ABS_ORDER_WHY
		  "), + 0, x 0, x FinalScale 0x3dcccccd (not modelled: "
		  "Planar.FinalScale other than 1.0 outside a reduction not modelled (1.0 in every real elementwise "
		  "or pooling TD; on silicon FinalScale 0 left an add and a product unchanged, so it is not a plain "
		  "multiplier there))\n"
		  "  result: WBase, 3 x 2 x 4 fp16\n");
	/* what the model refuses is named */
	struct treg_img q = {0};
	common(&q, 8, 1, 1, 1);
	treg_set(&q, H13_PLANAR_CFG, H13_PUT(H13_PECFG_CONDITION, 3));
	treg_set(&q, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, 7));
	pe_task(&q);
	describe(&q, &t);
	CHECKF(strstr(t.text, "NE: OpMode 7 (not modelled: NE.MACCfg.OpMode not modelled)\n") != NULL, "%s", t.text);
	CHECKF(strstr(t.text, "Condition 3 (not modelled: Planar.Cfg.Condition (a comparison) not modelled)") != NULL,
	       "%s", t.text);
	/* the PE's presence is Common.Cfg.TaskType's: the same Planar words under TaskType 0 are not
	 * read (as on silicon), and TaskType 2 with every Planar word 0 is not modelled */
	treg_set(&m, H13_COMMON_CFG, 0);
	CHECKF(strstr(describe(&m, &t), "  PE: not in the path (Common.Cfg.TaskType 0)\n") != NULL, "%s", t.text);
	struct treg_img z = {0};
	common(&z, 8, 1, 1, 1);
	treg_set(&z, H13_COMMON_CFG, H13_PUT(H13_CFG_TASKTYPE, 2));
	CHECKF(strstr(describe(&z, &t), "  PE: every Planar word 0 with Common.Cfg.TaskType 2 (not modelled: "
				      "Common.Cfg.TaskType puts the planar engine in the path but "
				      "Planar.Cfg, BiasScale, PreScale and FinalScale are all 0 not modelled "
				      "(no real TD))\n") != NULL,
	       "%s", t.text);
}

/* An elementwise TD with a depth (InDepth = OutDepth 4): both sides say C x D x H x W, as the
 * model walks them (docs/engine-model.md, "A depth on an elementwise TD"). */
TEST(td_op, elementwise_with_a_depth)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 5, 3, 2, 2);
	treg_set(&m, H13_COMMON_INDEPTH, 4);
	treg_set(&m, H13_COMMON_OUTDEPTH, 4);
	/* depths past a tile's 2 planes (common's strides) */
	treg_set(&m, H13_SRC_DEPTHSTRIDE, 2u * treg_get(&m, H13_SRC_PLANESTRIDE));
	treg_set(&m, H13_DST_DEPTHSTRIDE, 2u * treg_get(&m, H13_DST_PLANESTRIDE));
	treg_set(&m, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA2);
	treg_set(&m, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	pe_identity(&m, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_ADD) | H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	CHECK_STR(describe(&m, &t),
		  "  source: RBase0, 2 x 4 x 3 x 5 fp16 (C x D x H x W)\n"
		  "  NE: not in the path\n"
		  "  PE: a x 1 + b (RBase1), + 0, x 1, x FinalScale 1\n"
		  "  result: WBase, 2 x 4 x 3 x 5 fp16 (C x D x H x W)\n");
}

/* The macOS 14/26 a*b: the NE with no kernel is a pass-through, read as the model reads it
 * (fw/td td_ne_passthrough); with a coefficient channel it is a convolution again. */
TEST(td_op, ne_passthrough_then_planar_multiply)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 1, 1, 64, 64);
	treg_set(&m, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA2);
	treg_set(&m, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 8));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BIT20, 1));
	pe_identity(&m, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_MUL) | H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	CHECK_STR(describe(&m, &t),
		  "  source: RBase0, 64 x 1 x 1 fp16 (C x H x W)\n"
		  "  NE: pass-through (a convolution with no coefficient channel)\n"
		  "  PE: a x 1 x b (RBase1), + 0, x 1, x FinalScale 1\n"
		  "  result: WBase, 64 x 1 x 1 fp16\n");
	/* Apple's H13 sub: the same with OpMode 0 and SecSrc 3 */
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_SUB));
	CHECK(strstr(describe(&m, &t), "  PE: a x 1 - b (RBase1), + 0, x 1, x FinalScale 1\n") != NULL);
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	CHECK(strstr(describe(&m, &t), "  PE: a x 1 + b (RBase1), + 0, x 1, x FinalScale 1\n") != NULL);
	/* FirstSrc 1: on the product the first operand negated (the macOS GPT-2 gelu backward); on
	 * the add, not modelled */
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_MUL) | H13_PUT(H13_PECFG_FIRSTSRC, 1) |
				 H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	CHECKF(strstr(describe(&m, &t), "  PE: -a x 1 x b (RBase1), + 0, x 1, x FinalScale 1\n") != NULL, "%s", t.text);
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_FIRSTSRC, 1) | H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	CHECKF(strstr(describe(&m, &t), "  PE: a x 1 + b (RBase1), + 0, x 1, FirstSrc 1 (not modelled: Planar.Cfg.FirstSrc 1 "
					"not modelled but on a product of two operands (the first negated)), "
					"x FinalScale 1\n") != NULL, "%s", t.text);
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	/* SourceType 0: the first operand from L2 memory, as Apple's floor TD 3 takes it */
	treg_set(&m, H13_L2_SOURCECFG, td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2SRC_SRC2DMA, 1));
	treg_set(&m, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	CHECKF(strstr(describe(&m, &t), "  source: L2 memory at byte 0x0, 64 x 1 x 1 fp16\n") != NULL, "%s", t.text);
	treg_set(&m, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA2);
	treg_set(&m, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	treg_set(&m, H13_COEFF_DMACONFIG(0), H13_PUT(H13_DMA_EN, 1));
	describe(&m, &t);
	CHECK(strstr(t.text, "NE: convolution ") != NULL);
}

/* The destination DMA enabled with WBase not bound: the control path refuses the TD
 * (destination-without-bar, fw/td td_ranges: it would write at its raw base, which no grant
 * covers), and inspect says so on the result line; bound, the same TD writes through WBase. */
TEST(td_op, destination_enabled_without_wbase_is_refused)
{
	struct treg_img a = {0};
	struct tcapture t;
	common(&a, 8, 1, 16, 16);
	pe_identity(&a, 0);
	const unsigned bound = (1u << H13_BAR_RBASE0) | (1u << H13_BAR_WBASE);
	CHECK_STR(describe_bars(&a, bound, &t),
		  "  source: RBase0, 16 x 1 x 8 fp16 (C x H x W)\n"
		  "  NE: not in the path\n"
		  "  PE: a x 1, + 0, x 1, x FinalScale 1\n"
		  "  result: WBase, 16 x 1 x 8 fp16\n");
	describe_bars(&a, 1u << H13_BAR_RBASE0, &t);
	CHECKF(strstr(t.text, "\n  result: none (destination DMA enabled, WBase not bound: refused, "
			      "destination-without-bar)\n") && !strstr(t.text, "result: WBase"),
	       "%s", t.text);
	/* td_ranges refuses it, naming the destination */
	const struct td_regs r = {treg_get, &a};
	struct td_hdr h = {0};
	h.bar_en = 1u << H13_BAR_RBASE0;
	struct td_range rg[TD_MAX_RANGES];
	unsigned n = 0;
	int kind = -1;
	CHECK_EQ(td_ranges(&h, &r, NULL, rg, TD_MAX_RANGES, &n, &kind, NULL), TD_E_DST_NO_BAR);
	CHECK_EQ(kind, TD_R_DST);
	CHECK_STR(td_err_name(TD_E_DST_NO_BAR), "destination-without-bar");
	h.bar_en = bound;
	CHECK_EQ(td_ranges(&h, &r, NULL, rg, TD_MAX_RANGES, &n, &kind, NULL), TD_OK);
}

/* Apple's x[1,64,8,8] + z[1,64,1,1] (docs/engine-model.md, "L2 memory and broadcasts"): TD 0
 * copies z into L2 memory, TD 1 adds it, broadcast along W and H; and what is refused is named. */
TEST(td_op, l2_memory_operands_and_broadcasts)
{
	struct treg_img a = {0}, b = {0};
	struct tcapture t;
	common(&a, 1, 1, 64, 64);
	treg_set(&a, H13_DST_DMACONFIG, 0);
	treg_set(&a, H13_L2_RESULTCFG, td_fixed_bits(H13_L2_RESULTCFG));
	treg_set(&a, H13_L2_RES_CSTRIDE, 0x10u);
	treg_set(&a, H13_L2_RES_CSTRIDE + 4u, 0x400u);
	/* (a copy by the PE: with neither unit in the path the model refuses the TD, and inspect
	 * marks it) */
	CHECK(strstr(describe_bars(&a, 1u << H13_BAR_RBASE0, &t), "(not modelled: neither the NE") != NULL);
	pe_identity(&a, 0);
	CHECK_STR(describe_bars(&a, 1u << H13_BAR_RBASE0, &t),
		  "  source: RBase0, 64 x 1 x 1 fp16 (C x H x W)\n"
		  "  NE: not in the path\n"
		  "  PE: a x 1, + 0, x 1, x FinalScale 1\n"
		  "  result: L2 memory at byte 0x0, 64 x 1 x 1 fp16\n");
	common(&b, 8, 8, 64, 64);
	treg_set(&b, H13_COMMON_PECFG, H13_PUT(H13_CPECFG_SRC2BCAST, H13_BCAST_W | H13_BCAST_H));
	pe_identity(&b, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	treg_set(&b, H13_L2_SRC2_CSTRIDE, 0x10u);
	treg_set(&b, H13_L2_SRC2_CSTRIDE + 4u, 0x400u);
	const unsigned bars = (1u << H13_BAR_RBASE0) | (1u << H13_BAR_WBASE);
	CHECK_STR(describe_bars(&b, bars, &t),
		  "  source: RBase0, 64 x 8 x 8 fp16 (C x H x W)\n"
		  "  NE: not in the path\n"
		  "  PE: a x 1 + b (L2 memory at byte 0x0, broadcast along W H), + 0, x 1, x FinalScale 1\n"
		  "  result: WBase, 64 x 8 x 8 fp16\n");
	/* a broadcast of a second operand that comes by tile DMA: refused, named */
	treg_set(&b, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA2);
	treg_set(&b, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	describe(&b, &t);
	CHECKF(strstr(t.text, "b (RBase1), + 0, x 1, x FinalScale 1 (not modelled: Common.PECfg.Src2Broadcast "
			      "or Src2Transpose on a second operand that comes by tile DMA") != NULL, "%s", t.text);
	/* a transposed operand that is not [C,1,1] */
	treg_set(&b, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA);
	treg_set(&b, H13_COMMON_PECFG, H13_PUT(H13_CPECFG_SRC2TRANSPOSE, 1));
	describe_bars(&b, bars, &t);
	CHECKF(strstr(t.text, "(not modelled: Common.PECfg.Src2Transpose on an operand other than [C,1,1]") != NULL,
	       "%s", t.text);
}

/* The macOS atan2 segment's TD 4 (docs/engine-model.md, "Real programs from allbilly/ane"): its
 * first source, its second and its result sit at offsets inside their BARs, which the lines
 * show; at offset 0 they show none. */
TEST(td_op, tile_offsets_inside_their_bars)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 2048, 1024, 1, 1);
	treg_set(&m, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA2);
	treg_set(&m, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 8));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BIT20, 1));
	pe_identity(&m, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_MUL) | H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	treg_set(&m, H13_SRC_BASEADDR, 0xc00000u);
	treg_set(&m, H13_SRC2_BASEADDR, 0x40u);
	treg_set(&m, H13_DST_BASEADDR, 0x400000u);
	CHECK_STR(describe(&m, &t),
		  "  source: RBase0 +0xc00000, 1 x 1024 x 2048 fp16 (C x H x W)\n"
		  "  NE: pass-through (a convolution with no coefficient channel)\n"
		  "  PE: a x 1 x b (RBase1 +0x40), + 0, x 1, x FinalScale 1\n"
		  "  result: WBase +0x400000, 1 x 1024 x 2048 fp16\n");
	/* below the 64-byte granule: the address is 0, and the bits are outside every field, which
	 * the model refuses (fw/td td_outside_refusal) */
	treg_set(&m, H13_SRC_BASEADDR, 0x3fu);
	treg_set(&m, H13_SRC2_BASEADDR, 0);
	treg_set(&m, H13_DST_BASEADDR, 0);
	CHECK_STR(describe(&m, &t),
		  "  source: RBase0, 1 x 1024 x 2048 fp16 (C x H x W)\n"
		  "  NE: pass-through (a convolution with no coefficient channel)\n"
		  "  PE: a x 1 x b (RBase1), + 0, x 1, x FinalScale 1\n"
		  "  result: WBase, 1 x 1024 x 2048 fp16\n"
		  "  registers: (not modelled: a bit outside every field the register map names is set (the "
		  "model reads no meaning from it; none of the real programs we have run sets one))\n");
}

TEST(td_op, comparison_fails_on_one_word)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 4, 1, 2, 2);
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
				    H13_PUT(H13_MACCFG_BIT20, 1));
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	const char *want = "  source: RBase0, 2 x 1 x 4 fp16 (C x H x W)\n"
			   "  NE: elementwise, x PostScale 1\n"
			   "  nonlinear: none\n"
			   "  PE: not in the path (Common.Cfg.TaskType 0)\n"
			   "  result: WBase, 2 x 1 x 4 fp16\n";
	CHECK_STR(describe(&m, &t), want);
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x4000u)); /* PostScale 2 */
	CHECK(strcmp(describe(&m, &t), want) != 0);
}

TEST(fp16, format_as_decimal)
{
	static const struct {
		uint16_t h;
		const char *s;
	} c[] = {
		{0x0000, "0"}, {0x8000, "-0"}, {0x3c00, "1"}, {0x3800, "0.5"}, {0xb400, "-0.25"},
		{0x3dc5, "1.442383"}, {0x7bff, "65504"}, {0x2e66, "0.099976"}, {0x0001, "0"},
		{0x0400, "0.000061"}, {0x7c00, "inf"}, {0xfc00, "-inf"}, {0x7e00, "nan"},
		{0x4248, "3.140625"}, {0xc900, "-10"},
	};
	char buf[16];
	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
		fp16_format(c[i].h, buf, sizeof buf);
		CHECKF(!strcmp(buf, c[i].s), "0x%04x: %s, want %s", c[i].h, buf, c[i].s);
	}
	fp16_format(0x7bff, buf, 3); /* cut, still terminated */
	CHECK_STR(buf, "65");
}

/* softmax.bin's five TDs, register by register as the fixture has them (the reading's words),
 * and refused variants: the reductions' reading (fw/td/kept.c) and L2 memory (l2mem.c) are what
 * inspect prints */
static void softmax_pe(struct treg_img *m, uint32_t cfg, uint16_t scale)
{
	treg_set(m, H13_PLANAR_CFG, cfg);
	treg_set(m, H13_PLANAR_BIASSCALE, H13_PUT(H13_BIASSCALE_SCALE, scale));
	treg_set(m, H13_PLANAR_PRESCALE, H13_PUT(H13_PRESCALE, FP16_ONE));
	treg_set(m, H13_PLANAR_FINALSCALE, H13_FINALSCALE_ONE);
}

static void softmax_reduction(struct treg_img *m, uint32_t cfg)
{
	common(m, 1600, 1, 1, 1);
	treg_set(m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 2560));
	treg_set(m, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_OX, 1) | H13_PUT(H13_CONVCFG_OY, 1) |
				    H13_PUT(H13_CONVCFG_KW, 1) | H13_PUT(H13_CONVCFG_KH, 1) |
				    H13_PUT(H13_CONVCFG_SX, 1) | H13_PUT(H13_CONVCFG_SY, 1));
	treg_set(m, H13_COMMON_PEROUTE, H13_PEROUTE_REDUCE);
	treg_set(m, H13_DST_DMACONFIG, 0);
	treg_set(m, H13_L2_RESULTCFG, td_fixed_bits(H13_L2_RESULTCFG)); /* ResultType 0, as softmax.bin's */
	treg_set(m, H13_COMMON_CFG, H13_PUT(H13_CFG_TASKTYPE, H13_TASK_REDUCE));
	softmax_pe(m, cfg, FP16_ONE);
}

TEST(td_op, reductions_into_l2_memory)
{
	struct tcapture t;
	const unsigned bars = 1u << H13_BAR_RBASE0;
	struct treg_img m = {0};
	softmax_reduction(&m, H13_PUT(H13_PECFG_POOLMODE, H13_PE_POOL_MAX));
	treg_set(&m, H13_L2_RES_CSTRIDE, 0x10u);       /* ConvResultChannelStride 1 */
	treg_set(&m, H13_L2_RES_CSTRIDE + 4u, 0xa020u); /* ConvResultRowStride 0xa02 */
	treg_set(&m, H13_L2_RES_CSTRIDE + 12u, 0x10u);  /* ResultGroupStride 1 */
	CHECK_STR(describe_bars(&m, bars, &t),
		  "  source: RBase0, 1 x 1 x 1600 fp16 (C x H x W) per group\n"
		  "  NE: not in the path\n"
		  "  PE: reduce max over each plane (2560 planes of 1 x 1600), x FinalScale 1\n"
		  "  result: L2 memory at byte 0x0, one max a plane\n");
	struct treg_img s = {0};
	softmax_reduction(&s, H13_PUT(H13_PECFG_NLMODE, H13_PE_NL_RECIP));
	describe_bars(&s, bars, &t);
	CHECK(strstr(t.text, "  PE: reduce sum over each plane, then 1/sum (2560 planes of 1 x 1600), x FinalScale 1\n") != NULL);
	/* a mean below fp16's normal range as the power of two it is (Apple's layer_norm over
	 * [128,16,16]: 2^-15), 1/sqrt with its eps, and a value with no short form in hex */
	struct treg_img v = {0};
	softmax_reduction(&v, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_SQ) | H13_PUT(H13_PECFG_NLMODE, H13_PE_NL_RSQRT));
	treg_set(&v, H13_PLANAR_PRESCALE, H13_PUT(H13_PRESCALE, FP16_ONE) | H13_PUT(H13_PRESCALE_EPS, 0x3400u));
	treg_set(&v, H13_PLANAR_FINALSCALE, 0x38000000u);
	describe_bars(&v, bars, &t);
	CHECKF(strstr(t.text, "  PE: reduce sum of squares over each plane (2560 planes of 1 x 1600), then "
			      "1/sqrt(sum x FinalScale 2^-15 + eps 0.25)\n") != NULL, "%s", t.text);
	treg_set(&v, H13_PLANAR_FINALSCALE, 0x00800000u);
	describe_bars(&v, bars, &t);
	CHECKF(strstr(t.text, "FinalScale 2^-126 + eps") != NULL, "%s", t.text);
	treg_set(&v, H13_PLANAR_FINALSCALE, 0x38000001u);
	describe_bars(&v, bars, &t);
	CHECKF(strstr(t.text, "FinalScale 0x38000001 + eps") != NULL, "%s", t.text);
	/* TD 1: x - the maximum of its row (L2 memory, broadcast along W), x log2 e */
	struct treg_img a = {0};
	common(&a, 1600, 2560, 1, 1);
	treg_set(&a, H13_DST_DMACONFIG, 0);
	treg_set(&a, H13_L2_RESULTCFG, td_fixed_bits(H13_L2_RESULTCFG) | H13_PUT(H13_L2_RESULTTYPE, H13_L2_RESIDENT));
	treg_set(&a, H13_COMMON_PEROUTE, H13_PEROUTE_ONE_SRC);
	treg_set(&a, H13_COMMON_PECFG, H13_PECFG_SRC2_BCAST_W);
	treg_set(&a, H13_L2_SRC2_CSTRIDE, 0xa020u);
	treg_set(&a, H13_L2_SRC2_CSTRIDE + 4u, 0x10u);
	softmax_pe(&a, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_SUB), 0x3dc5u);
	pe_task(&a);
	CHECK_STR(describe_bars(&a, bars, &t),
		  "  source: RBase0, 1 x 2560 x 1600 fp16 (C x H x W)\n"
		  "  NE: not in the path\n"
		  "  PE: a x 1 - b (L2 memory at byte 0x0, broadcast along W), + 0, x 1.442383, x FinalScale 1\n"
		  "  result: the L2-resident tensor at byte 0x0, 1 x 2560 x 1600\n");
	/* TD 4: its first operand the row's 1/sum (L2 memory, broadcast along W), x b */
	struct treg_img b = {0};
	common(&b, 1600, 2560, 1, 1);
	treg_set(&b, H13_COMMON_PEROUTE, H13_PEROUTE_TWO_SRC);
	treg_set(&b, H13_COMMON_PECFG, H13_PECFG_SRC1_BCAST_W);
	treg_set(&b, H13_L2_SOURCECFG, td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2SRC_SRC2DMA, 1));
	treg_set(&b, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	treg_set(&b, H13_L2_SRC_CSTRIDE, 0xa020u);
	treg_set(&b, H13_L2_SRC_CSTRIDE + 4u, 0x10u);
	softmax_pe(&b, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_MUL) |
			       H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1), FP16_ONE);
	pe_task(&b);
	CHECK_STR(describe_bars(&b, (1u << H13_BAR_RBASE1) | (1u << H13_BAR_WBASE), &t),
		  "  source: L2 memory at byte 0x0, broadcast along W, 1 x 2560 x 1600 fp16\n"
		  "  NE: not in the path\n"
		  "  PE: a x 1 x b (RBase1), + 0, x 1, x FinalScale 1\n"
		  "  result: WBase, 1 x 2560 x 1600 fp16\n");
	/* refused readings are named: NLMode 3 on a reduction, SecSrc 3 with mul, RBase0 bound with
	 * the first operand from L2 memory */
	softmax_reduction(&m, H13_PUT(H13_PECFG_NLMODE, 3));
	describe_bars(&m, bars, &t);
	CHECK(strstr(t.text, "(not modelled: Planar.Cfg.NLMode on a reduction: only 1") != NULL);
	CHECK(strstr(t.text, "  result: stays in the engine (not modelled: a TD whose result leaves nowhere") != NULL);
	treg_set(&a, H13_PLANAR_CFG, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_SUB) |
				 H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_MUL));
	describe_bars(&a, bars, &t);
	CHECKF(strstr(t.text, "PE: a x 1, OpMode 1 SecSrc 3 (not modelled: Planar.Cfg.SecSrc 3 (the second operand "
			      "subtracted) with an operation other than add not modelled), + 0, x 1.442383, "
			      "x FinalScale 1\n") != NULL, "%s", t.text);
	describe_bars(&b, BARS_ALL, &t);
	CHECKF(strstr(t.text, "(not modelled: L2.SourceCfg.SourceType 0 (the first operand from L2 memory) "
			      "with the tile source enabled and RBase0 bound") != NULL, "%s", t.text);
	/* the comparison fails on a one-word difference */
	describe_bars(&s, bars, &t);
	CHECK(strstr(t.text, "PE: reduce max over each plane") == NULL);
}

/* A depth (Common InDepth / OutDepth, fw/td td_depth) is part of the ranges the control path
 * checks: (D - 1) DepthStrides past the rows and planes, for the sources by InDepth and the
 * destination by OutDepth; at depth 1 (or 0, walked as 1) the depth stride adds nothing. */
TEST(td_op, ranges_cover_every_depth)
{
	struct treg_img m = {0};
	common(&m, 32, 2, 1, 1); /* rows of 64 bytes, 2 a plane */
	treg_set(&m, H13_SRC_ROWSTRIDE, 0x40);
	treg_set(&m, H13_SRC_PLANESTRIDE, 0x80);
	treg_set(&m, H13_SRC_DEPTHSTRIDE, 0x1000);
	treg_set(&m, H13_DST_ROWSTRIDE, 0x40);
	treg_set(&m, H13_DST_PLANESTRIDE, 0x80);
	treg_set(&m, H13_DST_DEPTHSTRIDE, 0x400);
	struct td_hdr h;
	memset(&h, 0, sizeof h);
	h.bar_en = (uint8_t)((1u << H13_BAR_RBASE0) | (1u << H13_BAR_WBASE));
	h.bar_idx[H13_BAR_RBASE0] = 5;
	h.bar_idx[H13_BAR_WBASE] = 4;
	const struct td_regs r = {treg_get, &m};
	static const uint32_t no_streams[H13_KSTREAM_N];
	static const struct {
		uint32_t din, dout;
		uint64_t src_len, dst_len;
	} k[] = {{1, 1, 0x80, 0x80}, {0, 0, 0x80, 0x80}, {8, 8, 7 * 0x1000 + 0x80, 7 * 0x400 + 0x80},
		 {8, 1, 7 * 0x1000 + 0x80, 0x80}};
	for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++) {
		treg_set(&m, H13_COMMON_INDEPTH, k[i].din);
		treg_set(&m, H13_COMMON_OUTDEPTH, k[i].dout);
		struct td_range out[8];
		unsigned n = 0;
		int bk = -1, bc = -1;
		CHECK(td_ranges(&h, &r, no_streams, out, 8, &n, &bk, &bc) == TD_OK);
		uint64_t src = 0, dst = 0;
		for (unsigned j = 0; j < n; j++) {
			if (out[j].kind == TD_R_SRC0)
				src = out[j].len;
			else if (out[j].kind == TD_R_DST)
				dst = out[j].len;
		}
		CHECKF(src == k[i].src_len && dst == k[i].dst_len, "depth %u/%u: source 0x%llx (want 0x%llx), "
		       "destination 0x%llx (want 0x%llx)", k[i].din, k[i].dout, (unsigned long long)src,
		       (unsigned long long)k[i].src_len, (unsigned long long)dst, (unsigned long long)k[i].dst_len);
		uint64_t run;
		CHECK(td_dst_run(&r, &run) == (k[i].dout <= 1));
	}
}

/* Channel interleave (fw/td td_tile_interleave, td_tile_off): the extents of Apple's H13 select's
 * interleaved intermediates (8 x 375 x 375 fp16 by 8: rows of 0x5e lines, one plane of 375 rows,
 * the next tensor exactly 2,256,000 bytes on), two planes for 16 channels, a part-filled last
 * plane for 12, 0 read as 1; the element offsets by the definition; the destination's one run. */
TEST(td_op, channel_interleave_extents_and_offsets)
{
	uint64_t ext = 0;
	CHECK(td_tile_extent(375, 375, 1, 8, 1, 2, 8, 0x5e * 64, 0x89b2 * 64, 0, 0, &ext) == TD_OK);
	CHECK_EQ(ext, 2256000u);
	CHECK(td_tile_extent(375, 375, 1, 16, 1, 2, 8, 0x5e * 64, 0x89b2 * 64, 0, 0, &ext) == TD_OK);
	CHECK_EQ(ext, 2u * 2256000u);
	CHECK(td_tile_extent(375, 375, 1, 12, 1, 2, 8, 0x5e * 64, 0x89b2 * 64, 0, 0, &ext) == TD_OK);
	CHECK_EQ(ext, 2u * 2256000u);
	CHECK(td_tile_extent(20, 2, 1, 3, 1, 2, 0, 64, 128, 0, 0, &ext) == TD_OK); /* plain */
	CHECK_EQ(ext, 2u * 128u + 64u + 64u);
	CHECK_EQ(td_tile_interleave(0), 1u);
	CHECK_EQ(td_tile_interleave(H13_PUT(H13_FMT_INTERLEAVE, 8u) | 0x2031u), 8u);
	/* (c, h, w) = (11, 2, 5) by 8: plane 1, row 2, column 5 lane 3 */
	CHECK_EQ(td_tile_off(0, 11, 2, 5, 8, 2, 6016, 2256000, 0), 2256000u + 2u * 6016u + (40u + 3u) * 2u);
	CHECK_EQ(td_tile_off(1, 2, 1, 4, 1, 2, 64, 128, 1000), 1000u + 256u + 64u + 8u);
	/* the destination's one run: W x 8 values a row, C / 8 planes */
	struct treg_img m = {0};
	common(&m, 375, 375, 8, 8);
	treg_set(&m, H13_DST_ROWSTRIDE, 6016);
	treg_set(&m, H13_DST_PLANESTRIDE, 375u * 6016u);
	treg_set(&m, H13_DST_FMT, H13_PUT(H13_FMT_INTERLEAVE, 8u) | H13_PUT(H13_DSTFMT_ZEROPADLAST, 1u));
	const struct td_regs r = {treg_get, &m};
	uint64_t run = 0;
	CHECK(td_dst_run(&r, &run) == 1);
	CHECK_EQ(run, 2256000u);
}

/* The work a TD is charged (td_work: the control path's max_work) counts every group and depth
 * of its output, whatever their strides: a depth of 5 over strides of 0 moves one plane's bytes
 * and computes five; saturated where the fields multiply past 2^63. */
TEST(td_op, work_counts_every_group_and_depth)
{
	struct treg_img m = {0};
	common(&m, 8, 4, 3, 3);
	const struct td_regs r = {treg_get, &m};
	const struct td_range dst = {.kind = TD_R_DST, .len = 100};
	CHECK_EQ(td_work(&dst, 1, &r), 100u + 8u * 4u * 3u);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 2));
	treg_set(&m, H13_COMMON_OUTDEPTH, 5);
	CHECK_EQ(td_work(&dst, 1, &r), 100u + 8u * 4u * 3u * 2u * 5u);
	/* no destination: the bytes alone */
	const struct td_range src = {.kind = TD_R_SRC0, .len = 64};
	CHECK_EQ(td_work(&src, 1, &r), 64u);
	/* every field at its largest: saturated, not wrapped */
	common(&m, 0x7fff, 0x7fff, 1, 0x1ffff);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, ~0u));
	treg_set(&m, H13_COMMON_OUTDEPTH, 0xffffffffu);
	CHECK_EQ(td_work(&dst, 1, &r), UINT64_MAX / 2);
}

/* The operations a TD costs (td_ops: the engine model's compute limit), each count written from
 * its definition: output elements x Cin x Kh x Kw for a convolution with kernels, x Kh x Kw for a
 * depthwise one and for PE pooling, one an element otherwise, and never fewer than the input
 * values; every group and depth counted; saturated. A count off by one of its factors (Cin for
 * depthwise, the window for a 1x1, the input's depth) fails. */
TEST(td_op, ops_count_each_outputs_multiply_accumulates)
{
	struct treg_img m = {0};
	common(&m, 8, 4, 24, 16); /* 8 x 4 x 16 outputs of 8 x 4 x 24 inputs */
	const struct td_regs r = {treg_get, &m};
	const uint64_t out = 8u * 4u * 16u, in = 8u * 4u * 24u;
	/* no NE, no PE: one an element, and the inputs outnumber the outputs */
	CHECK_EQ(td_ops(&r), in);
	/* a 3x3 convolution with kernels in a coefficient channel: Cin x 9 each */
	const uint32_t conv = H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) |
			      H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16) | H13_PUT(H13_MACCFG_BIT20, 1);
	treg_set(&m, H13_NE_MACCFG, conv);
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	treg_set(&m, H13_COEFF_DMACONFIG(0), H13_PUT(H13_DMA_EN, 1));
	treg_set(&m, H13_COMMON_CONVCFG, (TD_CONVCFG_UNIT & ~(H13_PUT(H13_CONVCFG_KW, ~0u) | H13_PUT(H13_CONVCFG_KH, ~0u))) |
					    H13_PUT(H13_CONVCFG_KW, 3u) | H13_PUT(H13_CONVCFG_KH, 3u));
	CHECK_EQ(td_ops(&r), out * 24u * 9u);
	/* two groups and a depth of 3: each computed */
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 2));
	treg_set(&m, H13_COMMON_OUTDEPTH, td_fixed_bits(H13_COMMON_OUTDEPTH) | 3u);
	CHECK_EQ(td_ops(&r), out * 2u * 3u * 24u * 9u);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1));
	treg_set(&m, H13_COMMON_OUTDEPTH, td_fixed_bits(H13_COMMON_OUTDEPTH));
	/* depthwise (UnicastEn): the window alone */
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1));
	CHECK_EQ(td_ops(&r), out * 9u);
	/* with Common.ConvCfg.Ox 2 (Apple's depthwise 1x9's form): two columns a position, each over
	 * Kh x (Kw + 1) positions (dw_ox2_row; the eighth review: Kh x Kw were counted) */
	const uint32_t cc = treg_get(&m, H13_COMMON_CONVCFG);
	treg_set(&m, H13_COMMON_CONVCFG, (cc & ~H13_PUT(H13_CONVCFG_OX, ~0u)) | H13_PUT(H13_CONVCFG_OX, 2u));
	CHECK_EQ(td_ops(&r), out * 3u * 4u * 2u);
	treg_set(&m, H13_COMMON_CONVCFG, cc);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1));
	/* the unit kernel (KernelMode 1) and a pass-through (no coefficient channel, no fields):
	 * nothing to multiply, the inputs' count */
	treg_set(&m, H13_NE_MACCFG, conv | H13_PUT(H13_MACCFG_KERNELMODE, 1));
	CHECK_EQ(td_ops(&r), in);
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_BIT20, 1));
	treg_set(&m, H13_NE_POSTSCALE, 0);
	treg_set(&m, H13_COEFF_DMACONFIG(0), 0);
	CHECK_EQ(td_ops(&r), in);
	/* PE pooling over the 3x3 window, the NE off: 9 each; the same Planar.Cfg with the PE out
	 * of the path (TaskType 0) costs the inputs' count */
	treg_set(&m, H13_NE_MACCFG, 0);
	pe_identity(&m, H13_PUT(H13_PECFG_POOLMODE, H13_PE_POOL_MAX));
	CHECK_EQ(td_ops(&r), out * 9u);
	treg_set(&m, H13_COMMON_CFG, treg_get(&m, H13_COMMON_CFG) & ~H13_PUT(H13_CFG_TASKTYPE, ~0u));
	CHECK_EQ(td_ops(&r), in);
	/* a reduction's shape: one value a plane out (1 x 1 x 24), its input at a depth of 5 */
	treg_set(&m, H13_COMMON_OUTDIM, H13_PUT(H13_OUTDIM_WOUT, 1) | H13_PUT(H13_OUTDIM_HOUT, 1));
	treg_set(&m, H13_COMMON_COUT, 24);
	treg_set(&m, H13_COMMON_INDEPTH, td_fixed_bits(H13_COMMON_INDEPTH) | 5u);
	CHECK_EQ(td_ops(&r), in * 5u);
	/* every field at its largest: saturated, not wrapped */
	common(&m, 0x7fff, 0x7fff, 0x1ffff, 0x1ffff);
	treg_set(&m, H13_NE_MACCFG, conv);
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	treg_set(&m, H13_COEFF_DMACONFIG(0), H13_PUT(H13_DMA_EN, 1));
	treg_set(&m, H13_COMMON_CONVCFG, TD_CONVCFG_UNIT | H13_PUT(H13_CONVCFG_KW, ~0u) | H13_PUT(H13_CONVCFG_KH, ~0u));
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, ~0u));
	CHECK_EQ(td_ops(&r), UINT64_MAX / 2);
}

/* A subnormal fp16 prints exactly (fp16_format_sub), not as the 0 six decimals give; the values
 * are numpy's: np.float16(3 * 2**-24).view(np.uint16) == 0x0003, 2**-21 is 0x0008, 1023 x 2^-24
 * is 0x03ff; normal values print as fp16_format does. */
TEST(fp16, format_subnormal_exactly)
{
	static const struct {
		uint16_t h;
		const char *s;
	} c[] = {
		{0x0001, "2^-24"}, {0x0003, "3 x 2^-24"}, {0x0008, "2^-21"}, {0x8005, "-5 x 2^-24"},
		{0x03ff, "1023 x 2^-24"}, {0x0000, "0"}, {0x8000, "-0"}, {0x0400, "0.000061"}, {0x3c00, "1"},
	};
	char buf[16];
	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
		fp16_format_sub(c[i].h, buf, sizeof buf);
		CHECKF(!strcmp(buf, c[i].s), "0x%04x: %s, want %s", c[i].h, buf, c[i].s);
	}
}

/* PreScale, Bias, Scale, PostScale and AccBias of 0x0001..0x0008 are not 0 (the model applies
 * them: a x 1 x 2^-21 is not 0): the line says what they are */
TEST(td_op, subnormal_scales_print_exactly)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 8, 1, 1, 1);
	pe_identity(&m, 0);
	treg_set(&m, H13_PLANAR_BIASSCALE, H13_PUT(H13_BIASSCALE_SCALE, 0x0008u) | H13_PUT(H13_BIASSCALE_BIAS, 0x0001u));
	treg_set(&m, H13_PLANAR_PRESCALE, H13_PUT(H13_PRESCALE, 0x0003u));
	describe(&m, &t);
	CHECKF(strstr(t.text, "  PE: a x 3 x 2^-24, + 2^-24, x 2^-21, x FinalScale 1\n") != NULL, "%s", t.text);
	/* the NE's PostScale and AccBias (a unit kernel's) */
	struct treg_img n = {0};
	common(&n, 8, 1, 1, 1);
	treg_set(&n, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) | H13_PUT(H13_MACCFG_KERNELMODE, 1));
	treg_set(&n, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x0002u));
	treg_set(&n, H13_NE_ACCBIAS, H13_PUT(H13_ACCBIAS, 0x8001u));
	describe(&n, &t);
	CHECKF(strstr(t.text, "x + AccBias -2^-24, x PostScale 2^-23\n") != NULL, "%s", t.text);
}

/* Planar OpMode 4 squares a x PreScale only with no second source (SecSrc 0): with SecSrc 1 or 3
 * the model refuses, and the line must not drop the operand and say "squared" */
TEST(td_op, squared_only_without_a_second_source)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 8, 1, 1, 1);
	pe_identity(&m, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_SQ));
	CHECK_STR(describe(&m, &t), /* the control: SecSrc 0 */
		  "  source: RBase0, 1 x 1 x 8 fp16 (C x H x W)\n"
		  "  NE: not in the path\n"
		  "  PE: a x 1, squared, + 0, x 1, x FinalScale 1\n"
		  "  result: WBase, 1 x 1 x 8 fp16\n");
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_SQ) | H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_SUB));
	pe_task(&m);
	describe(&m, &t);
	CHECKF(strstr(t.text, "squared") == NULL && strstr(t.text, "OpMode 4 SecSrc 3 (not modelled: Planar.Cfg.SecSrc 3") != NULL,
	       "%s", t.text);
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_SQ) | H13_PUT(H13_PECFG_SECSRC, 1));
	pe_task(&m);
	describe(&m, &t);
	CHECKF(strstr(t.text, "squared") == NULL && strstr(t.text, "OpMode 4 SecSrc 1 (not modelled: Planar.Cfg.SecSrc 1 not modelled") != NULL,
	       "%s", t.text);
}

/* What engine/model/compute.c's decode_stages and pooling refuse is marked "(not modelled)",
 * each beside its control that the model runs (an add, a product, with identity scales) */
TEST(td_op, pe_refusals_marked)
{
	struct treg_img m = {0};
	struct tcapture t;
	const char *add = "  PE: a x 1 + b (RBase1), + 0, x 1, x FinalScale 1\n";
	common(&m, 8, 1, 1, 1);
	treg_set(&m, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA2);
	treg_set(&m, H13_SRC2_FMT, TD_TILE_FMT_SRC2_FP16);
	pe_identity(&m, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	CHECKF(strstr(describe(&m, &t), add) != NULL, "%s", t.text);
	/* FinalScale 2 on the add */
	treg_set(&m, H13_PLANAR_FINALSCALE, 0x40000000u);
	CHECKF(strstr(describe(&m, &t), "x FinalScale 2 (not modelled: Planar.FinalScale other than 1.0 outside "
					"a reduction not modelled (") != NULL, "%s", t.text);
	treg_set(&m, H13_PLANAR_FINALSCALE, H13_FINALSCALE_ONE);
	/* TaskType 2 with the second operand */
	treg_set(&m, H13_COMMON_CFG, H13_PUT(H13_CFG_TASKTYPE, H13_TASK_PE_ONE));
	CHECKF(strstr(describe(&m, &t), "x FinalScale 1 (not modelled: Common.Cfg.TaskType 2 with a second "
					"PE operand (Planar.Cfg.SecSrc 2 or 3), or 3 without, not modelled (") != NULL, "%s", t.text);
	pe_task(&m);
	/* an average pool with the second source */
	treg_set(&m, H13_PLANAR_CFG, H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1) |
				 H13_PUT(H13_PECFG_POOLMODE, H13_PE_POOL_AVG));
	CHECKF(strstr(describe(&m, &t), "x FinalScale 1 (not modelled: PE pooling with a second source not "
					"modelled)\n") != NULL,
	       "%s", t.text);
	/* Scale or Bias on a product of two operands; the product itself (control) is modelled */
	treg_set(&m, H13_PLANAR_CFG,
		 H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_MUL) | H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1));
	CHECKF(strstr(describe(&m, &t), "  PE: a x 1 x b (RBase1), + 0, x 1, x FinalScale 1\n") != NULL, "%s", t.text);
	treg_set(&m, H13_PLANAR_BIASSCALE, H13_PUT(H13_BIASSCALE_SCALE, 0x3800u) | H13_PUT(H13_BIASSCALE_BIAS, 0x3c00u));
	CHECKF(strstr(describe(&m, &t), "+ 1, x 0.5, x FinalScale 1 (not modelled: Planar.BiasScale other "
					"than Scale 1, Bias 0 on a product of two operands not modelled (") != NULL, "%s", t.text);
}

/* Channel maxima with BinaryPoint 0 or UnicastCin 1 (refused by the model's ne_channel_groups: on
 * silicon no copy) are marked; Apple's reduce_max's form (UnicastCin 2 or more, 0x1c) is not */
TEST(td_op, channel_maxima_refusals_marked)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 8, 1, 4, 2);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
					  H13_PUT(H13_GROUPCONV_UNICASTCIN, 2));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CHMAX) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
				H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16));
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	describe(&m, &t);
	CHECKF(strstr(t.text, "N = UnicastCin 2, 4 -> 2 channels, x PostScale 1\n") != NULL, "%s", t.text);
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CHMAX) | H13_PUT(H13_MACCFG_KERNELMODE, 1));
	describe(&m, &t);
	CHECKF(strstr(t.text, "x PostScale 1 (not modelled: ") != NULL, "%s", t.text);
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CHMAX) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
				H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16));
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
					  H13_PUT(H13_GROUPCONV_UNICASTCIN, 1));
	treg_set(&m, H13_COMMON_CIN, 2);
	describe(&m, &t);
	CHECKF(strstr(t.text, "N = UnicastCin 1, 2 -> 2 channels, x PostScale 1 (not modelled: ") != NULL, "%s", t.text);
}

/* A TD that reads the program's kernel unit (fw/loader ldr_td_kunit_streams): its convolution is
 * the unit's OCG x the post-scale stream + the bias stream per output channel (engine/model's
 * load_channel_vectors, each 1 and 0 without its stream), and SparseFmt there is the unit's
 * mask-and-values sparse (load_kernels_ku); the same registers without a unit (the control) read
 * as before: no per-channel words, SparseFmt phase-sparse. */
TEST(td_op, kernel_unit_scale_bias_and_sparse)
{
	struct treg_img m = {0};
	struct tcapture t;
	common(&m, 8, 1, 4, 16);
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_INT8));
	treg_set(&m, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) | H13_PUT(H13_MACCFG_BINARYPOINT, 0x1c));
	treg_set(&m, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	treg_set(&m, H13_COEFF_DMACONFIG(0), H13_PUT(H13_DMA_EN, 1));
	const char *plain = "  NE: convolution 1x1, stride 1x1, padding 0x0, 1 group, 4 -> 16 channels, kernels int8, "
			    "x PostScale 1\n";
	CHECKF(strstr(describe(&m, &t), plain) != NULL, "%s", t.text);
	memset(&t, 0, sizeof t);
	const struct td_regs r = {treg_get, &m};
	td_print_op_ku(&r, BARS_ALL, TD_OP_KU | 1u << H13_KSTREAM_BIAS | 1u << H13_KSTREAM_POSTSCALE, tcapture_out, &t);
	CHECKF(strstr(t.text, "  NE: convolution 1x1, stride 1x1, padding 0x0, 1 group, 4 -> 16 channels, kernels int8 "
			      "from the kernel unit (its OCG in coefficient channel 0), x a post-scale an output "
			      "channel (the kernel unit's post-scale stream), + a bias an output channel (the kernel "
			      "unit's bias stream), x PostScale 1\n") != NULL, "%s", t.text);
	/* a unit with no post-scale section: the bias only; sparse weights */
	treg_set(&m, H13_NE_KERNELCFG,
		 H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16) | H13_PUT(H13_KERNELCFG_SPARSEFMT, 1));
	treg_set(&m, H13_KDMA_WORD0, H13_KDMA_WORD0_SPARSE); /* (as every real phase-sparse TD: pk_params) */
	memset(&t, 0, sizeof t);
	td_print_op_ku(&r, BARS_ALL, TD_OP_KU | 1u << H13_KSTREAM_BIAS, tcapture_out, &t);
	CHECKF(strstr(t.text, "kernels fp16 from the kernel unit (its OCG in coefficient channel 0), mask-and-values "
			      "sparse (SparseFmt in a kernel unit: each kernel's mask, then its nonzero values), + a bias "
			      "an output channel (the kernel unit's bias stream), x PostScale 1\n") != NULL, "%s", t.text);
	CHECKF(strstr(describe(&m, &t), "kernels fp16, phase-sparse (SparseFmt: the stride-2 kernel format), x PostScale 1\n") != NULL,
	       "%s", t.text);
}
