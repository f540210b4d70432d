/*
 * What fuzz_agree (tests/fuzz/fuzz_agree.c: inspect's verdict against the model's on mutants of
 * real programs) found, each as a test that builds its input from a fixture.
 */
#include "tests/unit/tsession.h"
#include "fw/regmap/h13.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char crop[] = "an elementwise TD whose output is not its input's shape (Common.InDim, Cin against "
			   "OutDim, Cout) not modelled";

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
 * (L2.SourceCfg.SourceType 3). TD 1's InDim.Win made 1536, its output still 1600 wide: the model
 * refuses it (the output is not the input's shape, whatever the resident tensor's), and inspect
 * printed it as computed, since the check sat after the broadcast's, which needs the resident
 * tensor's shape inspect does not know (fuzz_agree, a mutant of sigmoid.bin). The control, the
 * program as it is with one row, completes and is marked nowhere.
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
	CHECKF(strstr(blk, "source: the L2-resident tensor at 0x0, 1 x 1 x 1600 fp16") && !strstr(blk, "not modelled"),
	       "the control's td 1:\n%s", blk);
	REQUIRE(tpatch_field(buf, len, 1, H13_COMMON_INDIM, H13_INDIM_WIN_LSB, H13_INDIM_WIN_W, 1536u) == 0);
	rc = tsubmit(buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECKF(rc != 0 && res.run == ENG_E_FAULT && res.fault.td == 1 && strstr(res.fault_text, crop),
	       "the crop: %s", res.fault_text);
	td_block(tinspect(buf, len), 1, blk, sizeof blk);
	CHECKF(strstr(blk, "not modelled: ") && strstr(blk, crop), "inspect's td 1:\n%s", blk);
	free(buf);
}
