/*
 * The kernel memory a TD takes (fw/td td_footprint; docs/control-path.md, "Kernel memory"): only
 * the kernels the NE reads from memory, each output's over the input channels it reads. Until
 * 2026-12-06 every TD with NE.MACCfg.OpMode conv was counted NumGroups x Cout x Cin x Kh x Kw,
 * and the control path refused Apple's H13 programs as kernels-over-kernel-memory: a depthwise
 * 9x1 at 1024 channels (counted 18.9 MB, its kernels 18 KB), a depthwise 9x9 at 1024 (170 MB),
 * and layer_norm over C of [375,1024,1,1] whose TD 0 is an NE pass-through with NumGroups 375
 * (393 MB, no kernel at all). Each count below is written from the definition (the kernels'
 * bytes as Apple's section holds them), never from the code; end to end, each form that was
 * refused computes (numpy's references, tests/oracle/gen_footprint.py) and a TD whose kernels
 * really exceed the kernel memory is still refused.
 */
#include "fw/ctrl/ctrl.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tests/unit/tregs.h"
#include "tests/unit/toracle.h"
#include "tests/unit/tsession.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <string.h>

static uint64_t kernels(const struct treg_img *m)
{
	const struct td_regs r = {treg_get, m};
	struct td_footprint f;
	td_footprint(&r, &f);
	return f.kernels;
}

/* The words of Apple's H13 depthwise 9x1 'same' over [1,1024,1,375] (mil-hwx-compiler
 * encoder_conv_c1024_n1024_k9x1_s1_g1024_bias0_same, its one TD): Cin = Cout 0x400, ConvCfg
 * 0x5100a121 (Kh 9, Kw 1), GroupConvCfg 0x14001 (NumGroups 1, UnicastEn, UnicastCin 1), MACCfg
 * 0x101c00, KernelCfg 0x82 (fp16), PostScale 0x3c00, 16 coefficient channels of 0x480 bytes. */
static void apple_dw9x1(struct treg_img *m)
{
	memset(m, 0, sizeof *m);
	treg_set(m, H13_COMMON_CIN, 0x400);
	treg_set(m, H13_COMMON_COUT, 0x400);
	treg_set(m, H13_COMMON_CONVCFG, 0x5100a121u);
	treg_set(m, H13_COMMON_GROUPCONVCFG, 0x14001u);
	treg_set(m, H13_NE_MACCFG, 0x101c00u);
	treg_set(m, H13_NE_KERNELCFG, 0x82u);
	treg_set(m, H13_NE_POSTSCALE, 0x3c00u);
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		treg_set(m, H13_COEFF_DMACONFIG(c), 0x81u);
}

TEST(td_footprint, depthwise_counts_one_input_channel_an_output)
{
	struct treg_img m;
	apple_dw9x1(&m);
	/* Apple's section: 16 channels x 0x480 = 1024 outputs x 9 taps x 2 bytes */
	CHECK_EQ(kernels(&m), 16u * 0x480u);
	CHECK(kernels(&m) <= TD_KMEM_MAX);
	/* the 9x9 at 1024 (encoder_conv_c1024_n1024_k9x9): 1024 x 81 x 2 dense taps */
	treg_set(&m, H13_COMMON_CONVCFG, (0x5100a121u & ~0x3ffu) | 9u << 5 | 9u);
	CHECK_EQ(kernels(&m), 1024u * 81u * 2u);
	treg_set(&m, H13_COMMON_CONVCFG, 0x5100a121u);
	/* UnicastCin N: N input channels an output; 0 is read as 1 */
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x14001u + (3u << 16) - (1u << 16));
	CHECK_EQ(kernels(&m), 1024u * 3u * 9u * 2u);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x04001u);
	CHECK_EQ(kernels(&m), 1024u * 9u * 2u);
	/* int8 kernels: a byte a tap */
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x14001u);
	treg_set(&m, H13_NE_KERNELCFG, H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_INT8));
	CHECK_EQ(kernels(&m), 1024u * 9u);
}

/* The control: the same TD without UnicastEn is a dense 1024 -> 1024 9x1 convolution, whose
 * kernels (1024 x 1024 x 9 x 2 bytes) do not fit the kernel memory; two groups of it twice. */
TEST(td_footprint, dense_convolution_counts_every_input_channel)
{
	struct treg_img m;
	apple_dw9x1(&m);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x10001u);
	CHECK_EQ(kernels(&m), 1024u * 1024u * 9u * 2u);
	CHECK(kernels(&m) > TD_KMEM_MAX);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x10002u);
	CHECK_EQ(kernels(&m), 2u * 1024u * 1024u * 9u * 2u);
	/* every field at its largest: the exact product (13 + 17 + 17 + 5 + 5 bits, x 2: 58 bits) */
	treg_set(&m, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, ~0u));
	treg_set(&m, H13_COMMON_CIN, H13_PUT(H13_CIN, ~0u));
	treg_set(&m, H13_COMMON_COUT, H13_PUT(H13_COUT, ~0u));
	treg_set(&m, H13_COMMON_CONVCFG, 0x5100a000u | 0x3ffu);
	const uint64_t want = 8191ull * 131071ull * 131071ull * 31ull * 31ull * 2ull;
	CHECK_EQ(kernels(&m), want);
	CHECK(kernels(&m) > TD_KMEM_MAX);
}

/* No kernel in memory, 0 whatever NumGroups x Cout x Cin: Apple's layer_norm over C of
 * [375,1024,1,1] (h13-captures batch_exact), TD 0: NumGroups 375, Cin = Cout 0x400, MACCfg
 * 0x100000, KernelCfg 0x1080, PostScale 0, no coefficient channel enabled (a pass-through); the
 * unit kernel (KernelMode 1, Apple's rsqrt); and a TD with no NE (MACCfg 0). */
TEST(td_footprint, no_kernel_in_memory_counts_nothing)
{
	struct treg_img m = {0};
	treg_set(&m, H13_COMMON_CIN, 0x400);
	treg_set(&m, H13_COMMON_COUT, 0x400);
	treg_set(&m, H13_COMMON_CONVCFG, 0x5000a021u);
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x10177u);
	treg_set(&m, H13_NE_MACCFG, 0x100000u);
	treg_set(&m, H13_NE_KERNELCFG, 0x1080u);
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		treg_set(&m, H13_COEFF_DMACONFIG(c), 0x80u); /* En clear */
	CHECK_EQ(kernels(&m), 0u);
	/* with a coefficient channel enabled it is no pass-through: a convolution, every input
	 * channel counted (375 x 1024 x 1024, a byte each: KernelCfg 0x1080's KernelFmt is int8) */
	treg_set(&m, H13_COEFF_DMACONFIG(0), 0x81u);
	CHECK_EQ(kernels(&m), 375u * 1024u * 1024u);
	treg_set(&m, H13_COEFF_DMACONFIG(0), 0x80u);
	/* a PostScale makes it no pass-through either */
	treg_set(&m, H13_NE_POSTSCALE, 0x3c00u);
	CHECK_EQ(kernels(&m), 375u * 1024u * 1024u);
	/* the unit kernel: no kernel in memory, channel by channel (UnicastEn, UnicastCin 1) */
	treg_set(&m, H13_NE_MACCFG, 0x100000u | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
				   H13_PUT(H13_MACCFG_BINARYPOINT, H13_BINARYPOINT_FP16));
	treg_set(&m, H13_COMMON_GROUPCONVCFG, 0x14001u);
	CHECK_EQ(kernels(&m), 0u);
	/* no NE */
	treg_set(&m, H13_NE_MACCFG, 0);
	CHECK_EQ(kernels(&m), 0u);
}

/* ---- end to end: the control path admits them and the model computes them ---- */

static uint8_t prog[BP_WEIGHTS_OFF + 1024 * 9 * 2 + 64];
static uint16_t wts[1024 * 9];

/* test_model_depthwise.c's (and gen_model.py's) dw_weight as fp16: a multiple of 1/4 */
static uint16_t dw_weight(unsigned o, unsigned i)
{
	static const uint16_t q[11] = {0xbd00, 0xbc00, 0xba00, 0xb800, 0xb400, 0x0000,
				       0x3400, 0x3800, 0x3a00, 0x3c00, 0x3d00}; /* -5/4 .. 5/4 */
	return q[(o * 7 + i * 3) % 11];
}

static void expect_computes(const char *orc, const uint8_t *p, size_t len, uint64_t n)
{
	struct orc_run r;
	char fault[256] = "";
	CHECKF(trun_orc(orc, p, len, 1, &r, fault, sizeof fault) == 0, "%s: %s", orc, fault);
	CHECKF(r.checked_tensors == 1 && r.checked == n && r.bad == 0, "%s: %lu of %lu outside", orc,
	       (unsigned long)r.bad, (unsigned long)r.checked);
	printf("# %s: %lu values, worst error %u%% of its tolerance\n", orc, (unsigned long)r.checked,
	       (unsigned)(r.worst * 100.0));
}

static size_t dw_prog(unsigned shift)
{
	for (unsigned c = 0; c < 1024; c++)
		for (unsigned i = 0; i < 9; i++)
			wts[c * 9 + i] = dw_weight((c + shift) % 1024, i);
	size_t len = bp_dwconv(prog, sizeof prog, 1024, 8, 2, 3, wts, NULL);
	CHECK(len > 0);
	return len;
}

/* A depthwise 3x3 over 1024 channels (bp_dwconv: Apple's form), counted 18,874,368 bytes of
 * kernels before (as Apple's 9x1 at 1024): computes; its kernels one channel off fail the
 * checker; the same TD without UnicastEn (a dense convolution, those 18.9 MB of kernels) is
 * refused by the kernel memory's limit. */
TEST(td_footprint, depthwise_at_1024_channels_computes_and_dense_is_refused)
{
	size_t len = dw_prog(0);
	expect_computes("fp_dw3_c1024", prog, len, 1024u * 2u * 8u);
	struct orc_run r;
	char fault[256] = "";
	len = dw_prog(1);
	CHECKF(trun_orc("fp_dw3_c1024", prog, len, 1, &r, fault, sizeof fault) == 0, "shifted: %s", fault);
	CHECKF(r.bad > r.checked / 4, "kernels one channel off: %lu of %lu outside", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	len = dw_prog(0);
	REQUIRE(tpatch_field(prog, len, 0, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_UNICASTEN_LSB,
			     H13_GROUPCONV_UNICASTEN_W, 0) == 0);
	CHECK(trun_orc("fp_dw3_c1024", prog, len, 1, &r, fault, sizeof fault) != 0);
	CHECKF(!strcmp(fault, "kernels-over-kernel-memory"), "dense: %s", fault);
}

/* 4608 channels through an NE with no kernel in memory (4608 x 4608 bytes counted before, its
 * KernelCfg's format int8: over 16 MiB, as 4096 channels are not): a pass-through then the PE's
 * x 0.5, and the unit kernel channel by channel then x 2. */
TEST(td_footprint, no_kernel_tds_at_4608_channels_compute)
{
	static uint8_t pp[BP_WEIGHTS_OFF + 64];
	struct bp_pe_spec p = bp_pe_copy(4608, 2, 8, BP_IN0_BAR, BP_OUT_BAR);
	p.ne_pass = 1, p.scale = 0x3800u;
	size_t len = bp_pe(pp, sizeof pp, &p);
	CHECK(len > 0);
	expect_computes("fp_pass_c4608", pp, len, 4608u * 2u * 8u);
	p = bp_pe_copy(4608, 2, 8, BP_IN0_BAR, BP_OUT_BAR);
	p.ne_unit = 1, p.scale = 0x4000u;
	len = bp_pe(pp, sizeof pp, &p);
	CHECK(len > 0);
	expect_computes("fp_unit_c4608", pp, len, 4608u * 2u * 8u);
}
