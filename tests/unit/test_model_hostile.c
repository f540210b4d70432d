/*
 * Programs whose geometry would make the model read or write past a grant are refused before
 * anything runs (docs/engine-model.md): real containers with one geometry register widened, run
 * with their default grants (each window exactly its declared tensor size). The control path
 * checks td_ranges() of the final image, the ranges the model would use, so the refusal is
 * named (by the loader or the policy) and the engine is never started: no output byte changes.
 */
#include "tests/unit/tsession.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct watch {
	unsigned outputs;
	uint64_t changed; /* output bytes not zero after the run */
};

static void check(void *vc, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct watch *w = vc;
	if (is_weights || !(g->access & POL_WRITE))
		return;
	w->outputs++;
	for (uint64_t k = 0; k < g->size; k++)
		w->changed += buf[k] != 0;
}

/* Replaces the value of register addr in TD 0 of a container; 1 when it was written there. */
/* TD td's write of register addr set to value */
static int patch_td(uint8_t *buf, size_t len, unsigned td, uint32_t addr, uint32_t value)
{
	static struct ldr_program p;
	if (ldr_load(buf, len, 0, &p) != LDR_OK)
		return 0;
	uint32_t off;
	if (twrite_offsets(&p, td, addr, &off, 1) != 1)
		return 0;
	le_wr32(buf + p.td_area_off + off, value);
	return 1;
}

static int patch(uint8_t *buf, size_t len, uint32_t addr, uint32_t value)
{
	return patch_td(buf, len, 0, addr, value);
}

#define NO_PATCH 0xffffffffu

static void run(const char *fixture, uint32_t addr, uint32_t value, int want_refused)
{
	uint8_t *buf;
	size_t len;
	if (test_read_file(test_shared_path(fixture), &buf, &len)) {
		CHECKF(0, "%s: unreadable", fixture);
		return;
	}
	if (addr != NO_PATCH)
		REQUIRE(patch(buf, len, addr, value));
	struct watch w = {0, 0};
	struct session_hooks h = {.fill = NULL, .check = check, .ctx = &w};
	struct session_result res;
	int rc = tsubmit(buf, len, 0, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
	if (want_refused) {
		CHECKF(rc == 1 && strcmp(session_result_name(&res), "ok"), "%s: 0x%x = 0x%x was not refused (%s)",
		       fixture, addr, value, session_result_name(&res));
		CHECK_EQ(res.nwrites, 0u); /* refused before any register was written */
		CHECK_EQ(res.nmoves, 0u);
		CHECK_EQ(w.changed, 0u);
		printf("# %s with 0x%05x = 0x%x: %s\n", fixture, addr, value, session_result_name(&res));
	} else {
		CHECK_EQ(rc, 0);
		CHECK(w.changed > 0); /* the unpatched program does write its output */
	}
	CHECK(res.canaries_ok);
	free(buf);
}

TEST(model_hostile, geometry_past_a_grant_is_refused_before_running)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixture programs are not patched");
	/* the unpatched programs run and write (the checker can see a write) */
	run("fixtures/hwx/relu.hwx", NO_PATCH, 0, 0);
	run("fixtures/hwx/conv.hwx", NO_PATCH, 0, 0);
	/* a wider input row than the 192-byte image window: 200 fp16 */
	run("fixtures/hwx/relu.hwx", H13_COMMON_INDIM, 200u | 1u << 16, 1);
	/* a wider output row than the output window */
	run("fixtures/hwx/relu.hwx", H13_COMMON_OUTDIM, 200u | 1u << 16, 1);
	/* conv.hwx: 3 input planes 128 bytes apart (the window holds 3 x 64) */
	run("fixtures/hwx/conv.hwx", H13_SRC_PLANESTRIDE, 0x80u, 1);
	/* conv.hwx: more output channels than the output window holds */
	run("fixtures/hwx/conv.hwx", H13_COMMON_COUT, 4u, 1);
	/* a source base past the window */
	run("fixtures/hwx/relu.hwx", H13_SRC_BASEADDR, 0x40u, 1);
	/* a coefficient channel longer than the weights */
	run("fixtures/hwx/conv.hwx", H13_COEFF_BFRSIZE(2), 0x4000u, 1);
}

/* One raw task stream from ../shared through the session with its default grants and the given
 * limits (NULL: the defaults); the result's name, and the TD and fields it names. */
static void (*run_edit)(uint8_t *, size_t); /* applied to the stream before it runs, when set */

static int run_limits(const char *fixture, const struct ctrl_limits *lim,
		      struct session_result *res)
{
	uint8_t *buf;
	size_t len;
	if (test_read_file(test_shared_path(fixture), &buf, &len)) {
		CHECKF(0, "%s: unreadable", fixture);
		return -1;
	}
	if (run_edit)
		run_edit(buf, len);
	const struct session_opts o = {.use_defaults = 1, .out = tnull_out, .limits = lim};
	int rc = session_run(tsession(), buf, len, &o, res);
	free(buf);
	return rc;
}

/* TD 0's KBase0 on a raw stream's weights, KBase2 and KBase3 disabled */
static void kbase_on_weights(uint8_t *b, size_t len)
{
	uint32_t w[H13_TD_HEADER_WORDS];
	struct td_hdr h;
	REQUIRE(len >= 4u * H13_TD_HEADER_WORDS);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		w[i] = le_rd32(b + 4 * i);
	td_hdr_decode(w, &h);
	h.bar_en &= (uint8_t)~(1u << H13_BAR_KBASE2 | 1u << H13_BAR_KBASE3);
	h.bar_idx[H13_BAR_KBASE0] = LDR_RAW_WEIGHTS_BAR;
	td_hdr_encode(&h, w);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		le_wr32(b + 4 * i, w[i]);
}

static void want_refused(const char *fixture, const struct ctrl_limits *lim, const char *name)
{
	struct session_result res;
	int rc = run_limits(fixture, lim, &res);
	CHECKF(rc == 1 && !strcmp(session_result_name(&res), name), "%s: %s, want %s", fixture,
	       session_result_name(&res), name);
	CHECK_EQ(res.st.td, 0);
	CHECK(res.st.field != NULL);
	CHECK_EQ(res.nwrites, 0u); /* refused before the engine was programmed */
	CHECK_EQ(res.nmoves, 0u);
	CHECK(res.canaries_ok);
	printf("# %s: %s td %d (%s)\n", fixture, session_result_name(&res), res.st.td,
	       res.st.field ? res.st.field : "?");
}

/*
 * Issue 22: two raw streams a fuzz campaign found, whose TDs ask the engine model for 10 GB of
 * weights and 67 GB of L2-resident result, are refused by the control path with the limit they
 * break, naming TD 0 and the fields, before anything is allocated. The limits are exact: a real
 * kernel that keeps an 8,192,000-byte tensor in L2 (sigmoid.bin) runs with a limit of exactly
 * that and is refused one byte below; a 1x1 fp16 convolution 3 -> 3 (conv.hwx, 18 bytes of
 * kernels) runs with a kernel memory of 18 bytes and is refused with 17 (inv.bin, the example
 * until 2026-12-06, reads no kernel from memory: its unit kernel runs with a kernel memory of 1).
 */
TEST(model_hostile, oversize_memories_are_refused_before_anything_is_allocated)
{
	if (!test_shared_dir())
		SKIP("../shared absent: no hostile fixtures");
	/* its TD enables kernel BARs 26 and 10 (KBase0 and KBase2, KBase3), which a raw stream
	 * grants nothing (its weights are BAR 1): refused there, before anything is written; with
	 * KBase0 on the weights and the others off (every kernel BAR of a raw stream was the
	 * weights until 2026-11-28), the 10 GB of kernels are refused by the kernel memory's limit */
	struct session_result res;
	CHECK_EQ(run_limits("fixtures/hostile/oom-weights-10g.bin", NULL, &res), 1);
	CHECK_STR(session_result_name(&res), "bar-not-granted");
	CHECK(res.st.td == 0 && res.st.bar == 26 && res.nwrites == 0u && res.nmoves == 0u && res.canaries_ok);
	run_edit = kbase_on_weights;
	want_refused("fixtures/hostile/oom-weights-10g.bin", NULL, "kernels-over-kernel-memory");
	run_edit = NULL;
	want_refused("fixtures/hostile/oom-l2-67g.bin", NULL, "l2-result-over-limit");
	struct ctrl_limits lim = ctrl_default_limits;
	lim.max_l2_tensor = 8192000u;
	CHECK_EQ(run_limits("fixtures/kernels/unary/sigmoid.bin", &lim, &res), 0);
	lim.max_l2_tensor = 8192000u - 1u;
	want_refused("fixtures/kernels/unary/sigmoid.bin", &lim, "l2-result-over-limit");
	/* the refusal says what was found and the limit */
	CHECK_EQ(run_limits("fixtures/kernels/unary/sigmoid.bin", &lim, &res), 1);
	CHECK_STR(res.st.detail, "8192000 bytes, the limit 8191999");
	lim = ctrl_default_limits;
	lim.max_kernels = 18u;
	CHECK_EQ(run_limits("fixtures/hwx/conv.hwx", &lim, &res), 0);
	lim.max_kernels = 17u;
	want_refused("fixtures/hwx/conv.hwx", &lim, "kernels-over-kernel-memory");
	CHECK_EQ(run_limits("fixtures/hwx/conv.hwx", &lim, &res), 1);
	CHECK_STR(res.st.detail, "18 bytes, the limit 17");
	/* inv.bin's unit kernel (KernelMode 1) reads no kernel from memory: it needs none */
	lim.max_kernels = 1u;
	CHECK_EQ(run_limits("fixtures/kernels/unary/inv.bin", &lim, &res), 0);
}

/*
 * The model's own bound, behind the control path's: with the control path's L2 limit lifted,
 * sigmoid.bin's TD 0 patched to read and leave 5243 rows (an L2-resident result 1 x 5243 x 1600 fp16,
 * 384 bytes over TD_L2_TENSOR_MAX) is refused by the model by name before it allocates; 5242
 * rows (under the bound) runs.
 */
TEST(model_hostile, model_refuses_an_l2_result_over_its_bound)
{
	if (!test_shared_dir())
		SKIP("../shared absent: no sigmoid.bin");
	static const unsigned rows[2] = {5242u, 5243u};
	for (unsigned k = 0; k < 2; k++) {
		uint8_t *buf;
		size_t len;
		if (test_read_file(test_shared_path("fixtures/kernels/unary/sigmoid.bin"), &buf, &len)) {
			CHECK(0);
			return;
		}
		/* the input as tall as the result (an elementwise TD's source may not be smaller); the
		 * default grants follow the TD's ranges. TD 1, which reads the resident tensor back,
		 * reads it whole (a TD reading part of a larger one is refused since 2026-12-06: fw/td
		 * td_resident_source_refusal) */
		REQUIRE(patch(buf, len, H13_COMMON_INDIM, 1600u | rows[k] << 16));
		REQUIRE(patch(buf, len, H13_COMMON_OUTDIM, 1600u | rows[k] << 16));
		REQUIRE(patch_td(buf, len, 1, H13_COMMON_INDIM, 1600u | rows[k] << 16));
		REQUIRE(patch_td(buf, len, 1, H13_COMMON_OUTDIM, 1600u | rows[k] << 16));
		struct ctrl_limits lim = ctrl_default_limits;
		lim.max_l2_tensor = UINT64_MAX;
		const struct session_opts o = {.use_defaults = 1, .out = tnull_out, .limits = &lim};
		struct session_result res;
		int rc = session_run(tsession(), buf, len, &o, &res);
		free(buf);
		const char *why = res.fault.why;
		if (k == 0) {
			CHECKF(rc == 0, "%u rows: %s: %s", rows[k], session_result_name(&res), res.fault_text);
		} else {
			CHECKF(rc == 1 && !strcmp(session_result_name(&res), "engine-fault"), "%u rows: %s",
			       rows[k], session_result_name(&res));
			CHECKF(why && strstr(why, "L2-resident result"), "why: %s", why ? why : "(none)");
			CHECK_EQ(res.fault.reason, (uint32_t)ENG_FR_CAPACITY);
			CHECK_EQ(res.fault.td, 0);
			CHECK(res.canaries_ok);
		}
	}
}
