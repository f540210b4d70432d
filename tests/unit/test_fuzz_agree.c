/*
 * What fuzz_agree (tests/fuzz/fuzz_agree.c: inspect's verdict against the model's on mutants of
 * real programs) found, each as a test that builds its input from a fixture.
 */
#include "tests/unit/tsession.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char crop[] = "an elementwise TD whose output is not its input's shape (Common.InDim, Cin against "
			   "OutDim, Cout) not modelled";
static const char larger[] = "an L2-resident source larger than the TD's input (Cin, InDim, NumGroups) not modelled";

/* inspect's lines of TD td in text (up to the next TD's header or the end of the TD list) */
static const char *td_block(const char *text, unsigned td, char *out, size_t cap)
{
	char head[32], next[32];
	snprintf(head, sizeof head, "td %u at ", td);
	snprintf(next, sizeof next, "\ntd %u at ", td + 1);
	const char *a = strstr(text, head);
	out[0] = 0;
	if (!a)
		return out;
	const char *b = strstr(a, next), *r = strstr(a, "\nrelocations:");
	if (!b || (r && r < b))
		b = r ? r : a + strlen(a);
	snprintf(out, cap, "%.*s", (int)(b - a), a);
	return out;
}

/*
 * sigmoid.bin with one row: TD 0 leaves its result L2-resident (1 x 1 x 1600), TD 1 reads it
 * (L2.SourceCfg.SourceType 3). fuzz_agree's mutant made TD 1's InDim.Win 1536, its output still
 * 1600 wide: the model refused it (the output is not the input's shape, whatever the resident
 * tensor's), and inspect printed it as computed, since the check sat after the broadcast's, which
 * needs the resident tensor's shape inspect did not know. Since inspect's walk carries the
 * resident tensors (fw/td/resident.c), that mutant is refused first as reading part of a larger
 * tensor, marked with that text; the crop alone is TD 1's output made 1536 wide over the whole
 * tensor. The control, the program as it is with one row, completes and is marked nowhere.
 */
TEST(fuzz_agree, a_crop_of_an_l2_resident_source_is_marked)
{
	if (!test_shared_dir())
		SKIP("../shared absent: no sigmoid.bin");
	uint8_t *buf;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/unary/sigmoid.bin"), &buf, &len) == 0);
	for (unsigned td = 0; td < 2; td++) {
		REQUIRE(tpatch_field(buf, len, td, H13_COMMON_INDIM, H13_INDIM_HIN_LSB, H13_INDIM_HIN_W, 1u) == 0);
		REQUIRE(tpatch_field(buf, len, td, H13_COMMON_OUTDIM, H13_OUTDIM_HOUT_LSB, H13_OUTDIM_HOUT_W, 1u) == 0);
	}
	static char blk[8192];
	struct session_result res;
	int rc = tsubmit(buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECKF(rc == 0 && res.run == ENG_OK, "the control: %s", res.fault_text);
	td_block(tinspect(buf, len), 1, blk, sizeof blk);
	CHECKF(strstr(blk, "source: the L2-resident tensor at byte 0x0, 1 x 1 x 1600 fp16") && !strstr(blk, "not modelled"),
	       "the control's td 1:\n%s", blk);
	/* the crop: TD 1 reads the whole tensor and writes 1536 of its 1600 columns */
	REQUIRE(tpatch_field(buf, len, 1, H13_COMMON_OUTDIM, H13_OUTDIM_WOUT_LSB, H13_OUTDIM_WOUT_W, 1536u) == 0);
	rc = tsubmit(buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECKF(rc != 0 && res.run == ENG_E_FAULT && res.fault.td == 1 && strstr(res.fault_text, crop),
	       "the crop: %s", res.fault_text);
	td_block(tinspect(buf, len), 1, blk, sizeof blk);
	CHECKF(strstr(blk, "not modelled: ") && strstr(blk, crop), "inspect's td 1:\n%s", blk);
	/* fuzz_agree's mutant: TD 1 reads 1536 columns of the 1600-wide tensor */
	REQUIRE(tpatch_field(buf, len, 1, H13_COMMON_OUTDIM, H13_OUTDIM_WOUT_LSB, H13_OUTDIM_WOUT_W, 1600u) == 0);
	REQUIRE(tpatch_field(buf, len, 1, H13_COMMON_INDIM, H13_INDIM_WIN_LSB, H13_INDIM_WIN_W, 1536u) == 0);
	rc = tsubmit(buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECKF(rc != 0 && res.run == ENG_E_FAULT && res.fault.td == 1 && strstr(res.fault_text, larger),
	       "the part of a larger tensor: %s", res.fault_text);
	td_block(tinspect(buf, len), 1, blk, sizeof blk);
	CHECKF(strstr(blk, "not modelled: ") && strstr(blk, larger), "inspect's td 1:\n%s", blk);
	free(buf);
}

/*
 * conv.hwx (a convolution with kernels in memory) with NE.AccBias's shift 6 and its value 0: the
 * register is nonzero, so the model reads it as the convolution's one bias (ne_kernel_mode) and
 * refuses the shift (td_accbias_shift_refusal), and inspect printed "NE.AccBias 0: a bias for
 * every output" unmarked (fuzz_agree, a mutant of sigmoid.bin whose TD 0 was made such a
 * convolution). The control, conv.hwx as it is, completes and is marked nowhere.
 */
TEST(fuzz_agree, a_convolutions_accbias_shift_is_marked)
{
	if (!test_shared_dir())
		SKIP("../shared absent: no conv.hwx");
	uint8_t *buf;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/hwx/conv.hwx"), &buf, &len) == 0);
	struct session_result res;
	int rc = tsubmit(buf, len, 0, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECKF(rc == 0 && res.run == ENG_OK, "the control: %s", res.fault_text);
	const char *itext = tinspect_as(buf, len, 0);
	CHECKF(strstr(itext, "td 0 at") && !strstr(itext, "not modelled"), "the control:\n%s", itext);
	REQUIRE(tpatch_field(buf, len, 0, H13_NE_ACCBIAS, H13_ACCBIAS_SHIFT_LSB, H13_ACCBIAS_SHIFT_W, 6u) == 0);
	REQUIRE(tpatch_field(buf, len, 0, H13_NE_ACCBIAS, H13_ACCBIAS_LSB, H13_ACCBIAS_W, 0u) == 0);
	rc = tsubmit(buf, len, 0, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECKF(rc != 0 && res.run == ENG_E_FAULT && strstr(res.fault_text, "NE.AccBias.AccBiasShift not modelled"),
	       "the shift: %s", res.fault_text);
	itext = tinspect_as(buf, len, 0);
	CHECKF(strstr(itext, "NE.AccBias 0: a bias for every output (not modelled: NE.AccBias.AccBiasShift not modelled)"),
	       "inspect:\n%s", itext);
	free(buf);
}
