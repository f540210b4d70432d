/*
 * Where inspect's words (fw/td/op.c td_print_op, fw/loader/print.c print_luts) and the engine
 * model disagreed (review E, 2026-12-06), the model now refuses by name what inspect cannot say
 * it computes, each beside its control that completes:
 *  - a kernel-unit TD with both the unit's activation-LUT stream and a record in a coefficient
 *    channel: which one silicon reads is not pinned, so they must be the same record (the model
 *    took the stream's, inspect showed the channel's);
 *  - a TD whose result leaves nowhere (no destination DMA, no L2 result) with Planar words set:
 *    inspect says "stays in the engine (not modelled)", the model completed writing nothing.
 */
#include "tests/unit/tsession.h"
#include "tests/unit/toracle.h"
#include "fw/actlut/actlut.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/loader.h"
#include "fw/common/le.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/benchprog.h"
#include "tools/progdesc/progdesc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Submits the raw program p: 0 when the run completed, else -1 with the fault's text in fault. */
static int submit(const uint8_t *p, size_t len, char *fault, size_t fl)
{
	struct session_result res;
	int rc = tsubmit(p, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	snprintf(fault, fl, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	return rc == 0 && res.run == ENG_OK ? 0 : -1;
}

/* inspect's text (ldr_print --brief) of a raw program (tsession's tinspect); itext is the last */
static const char *itext = "";
static const char *inspect(const uint8_t *buf, size_t len)
{
	return itext = tinspect(buf, len);
}

#if !defined(ANEFW_TARGET) /* on the host (the same code on the target) */

/* inspect --json's text (ldr_print LDR_P_JSON) of a raw program; "" when it does not load */
static char jtext[1 << 18];
static size_t jlen;
static void jsink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (jlen + n < sizeof jtext) {
		memcpy(jtext + jlen, s, n);
		jlen += n;
		jtext[jlen] = 0;
	}
}
static const char *inspect_json(const uint8_t *buf, size_t len)
{
	static struct ldr_program q;
	jlen = 0;
	jtext[0] = 0;
	if (ldr_load(buf, len, LDR_F_RAW, &q) == LDR_OK)
		ldr_print(&q, LDR_P_JSON, jsink, NULL);
	return jtext;
}

static uint8_t kprog[1 << 16], kcopy[1 << 16];

/* mkprog's int8 layer and relu6 (TD 1 applies the record from the unit's activation-LUT stream),
 * TD 1 given coefficient channel 0 over 0x80 bytes at weights offset base */
static size_t with_channel_record(size_t len, uint32_t base)
{
	memcpy(kcopy, kprog, len);
	if (tpatch_field(kcopy, len, 1, H13_COEFF_DMACONFIG(0), 0, 32, 0x81u) ||
	    tpatch_field(kcopy, len, 1, H13_COEFF_BASEADDR(0), 0, 32, base) ||
	    tpatch_field(kcopy, len, 1, H13_COEFF_BFRSIZE(0), 0, 32, 0x80u))
		return 0;
	return len;
}

/* mkprog's int8 layer (TD 0, its kernels the unit's) and relu6 (TD 1) into kprog: its length,
 * 0 when it does not build (which the callers require not to be) */
static size_t build_unit_program(void)
{
	static const char desc[] = "input w=8 h=1 c=16\nlayer int8 cout=8\nactivation relu6\n";
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	if (pd_parse(desc, strlen(desc), &d, &line) != PD_OK || pd_build(&d, kprog, sizeof kprog, &len) != PD_OK)
		return 0;
	return len;
}

TEST(model_agree, unit_stream_and_channel_record_must_agree)
{
	const size_t len = build_unit_program();
	REQUIRE(len > 0);
	char f[512];
	/* the control as built: the stream's record alone; inspect says so, and that TD 0's layer is
	 * the unit's (its per-channel post-scale and bias) */
	CHECKF(submit(kprog, len, f, sizeof f) == 0, "as built: %s", f);
	/* (since the fourteenth review inspect prints the stream's record, as the model reads it) */
	CHECKF(strstr(inspect(kprog, len), "td 1: the kernel unit's activation-LUT stream at weights+0x") != NULL &&
		       !strstr(itext, "td 1: selected, no record in a coefficient channel") &&
		       !strstr(itext, "does not read") && !strstr(itext, "not modelled"),
	       "%s", itext);
	CHECKF(strstr(itext, "16 -> 8 channels, kernels int8 from the kernel unit (its OCG in coefficient "
			     "channel 0), x a post-scale an output channel (the kernel unit's post-scale stream), "
			     "+ a bias an output channel (the kernel unit's bias stream), x PostScale 1\n") != NULL,
	       "%s", itext);
	/* where the unit's activation section lies in the weights (the stream's record is its first) */
	static struct ldr_program p;
	REQUIRE(ldr_load(kprog, len, LDR_F_RAW, &p) == LDR_OK);
	struct ku_unit u;
	REQUIRE(ku_parse(kprog + p.weights_off, p.weights_len, NULL, &u) == KU_OK);
	const uint32_t act = u.sec[KU_SEC_ACTLUT].offset;
	REQUIRE(act % 64u == 0 && u.sec[KU_SEC_ACTLUT].size >= 0x80u);
	/* a channel record that is the stream's: one record, it completes */
	REQUIRE(with_channel_record(len, act) == len);
	CHECKF(submit(kcopy, len, f, sizeof f) == 0, "the same record in the channel: %s", f);
	CHECKF(strstr(inspect(kcopy, len), "td 1: the kernel unit's activation-LUT stream feeds it too: the "
					   "model applies the stream's record, which the record above must "
					   "equal (refused where they differ") != NULL, "%s", itext);
	/* --json lists both, the channel's record and then the stream's (a comma between them) */
	CHECKF(strstr(inspect_json(kcopy, len), "\"luts\":[{\"td\":1,\"ch\":0,") &&
		       strstr(jtext, "\"reads_as\":\"linear\",\"mode\":1,\"scale\":64},{\"td\":1,\"stream\":"
				     "\"kernel-unit\",") && strstr(jtext, "]}\n"),
	       "%s", strstr(jtext, "\"luts\"") ? strstr(jtext, "\"luts\"") : jtext);
	/* a channel over other bytes (the unit's descriptor): two records, refused by name */
	REQUIRE(with_channel_record(len, 0) == len);
	CHECKF(submit(kcopy, len, f, sizeof f) != 0 &&
		       strstr(f, "an activation record in a coefficient channel that differs from the kernel "
				 "unit's activation-LUT stream"),
	       "a different record in the channel: %s", f);
}

/*
 * The fourteenth review: inspect did not read the kernel unit's activation-LUT stream (it said "a
 * kernel-unit stream may feed it"), while the model refuses a stream record that does not read
 * (actlut_read_checked) or a further record that differs from the first (actlut_stream_differs).
 * Now it prints the stream's first record as the model reads it and marks it with the model's text.
 * mkprog's int8 layer and relu6 (TD 1 applies the stream's record), the record edited in place: a
 * nonzero byte after the slots (100), slot 42 the unpinned 0x61, the sign bit on a negative knot:
 * the model refuses each by name, and inspect marks the stream with that name and text. A second
 * record differing from the first (the section grown by one record over the next section's
 * start is not possible here; the first record's own copy checked by actlut_stream_differs
 * directly). Control: as built, computed and unmarked.
 */
TEST(model_agree, inspect_marks_the_kernel_units_stream_record_the_model_refuses)
{
	const size_t len = build_unit_program();
	REQUIRE(len > 0);
	static struct ldr_program p;
	REQUIRE(ldr_load(kprog, len, LDR_F_RAW, &p) == LDR_OK);
	struct ku_unit u;
	REQUIRE(ku_parse(kprog + p.weights_off, p.weights_len, NULL, &u) == KU_OK);
	const uint32_t act = u.sec[KU_SEC_ACTLUT].offset;
	REQUIRE(u.sec[KU_SEC_ACTLUT].size >= 0x80u);
	char f[512];
	CHECKF(submit(kprog, len, f, sizeof f) == 0, "as built: %s", f);
	CHECKF(strstr(inspect(kprog, len), "td 1: the kernel unit's activation-LUT stream at weights+0x") &&
		       strstr(itext, "reads as: ") && !strstr(itext, "does not read"),
	       "%s", itext);
	static const struct {
		unsigned at;        /* byte of the record */
		uint16_t v;         /* its new value (a 16-bit slot when at is below 86) */
		enum actlut_err e;  /* the model's refusal */
	} bad[] = {
		{100, 0x01u, ACTLUT_E_PADDING},
		{2 * ACTLUT_MODE, 0x61u, ACTLUT_E_UNPINNED},
		{2 * ACTLUT_MODE, 0x10u, ACTLUT_E_MODE},
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memcpy(kcopy, kprog, len);
		uint8_t *rec = kcopy + p.weights_off + act;
		if (bad[i].at < ACTLUT_BYTES)
			le_wr16(rec + bad[i].at, bad[i].v);
		else
			rec[bad[i].at] = (uint8_t)bad[i].v;
		const char *name = actlut_err_name(bad[i].e);
		const int rc = submit(kcopy, len, f, sizeof f);
		CHECKF(rc != 0 && strstr(f, "td 1") && strstr(f, "unreadable-activation-record"), "%s: %s", name, f);
		char want[160];
		snprintf(want, sizeof want, "does not read: %s: ", name);
		CHECKF(strstr(inspect(kcopy, len), want) != NULL, "%s: %s", name, itext);
		/* the model's text, the one description both print (its first 60 characters: the
		 * fault line may be cut) */
		char d[61];
		snprintf(d, sizeof d, "%s", actlut_strerror(bad[i].e));
		CHECKF(strstr(f, d) && strstr(itext, actlut_strerror(bad[i].e)), "%s: model \"%s\"", name, f);
	}
	/* a stream of two records whose second differs only after the slots (the check both share) */
	uint8_t two[2 * ACTLUT_STRIDE];
	memcpy(two, kprog + p.weights_off + act, ACTLUT_STRIDE);
	memcpy(two + ACTLUT_STRIDE, two, ACTLUT_STRIDE);
	CHECK_EQ(actlut_stream_differs(two, sizeof two), 0u);
	CHECK_EQ(actlut_stream_differs(two, ACTLUT_STRIDE + ACTLUT_BYTES), 0u);
	two[ACTLUT_STRIDE + 120] = 1;
	CHECK_EQ(actlut_stream_differs(two, sizeof two), (size_t)ACTLUT_STRIDE);
	CHECK_EQ(actlut_stream_differs(two, ACTLUT_STRIDE + ACTLUT_BYTES - 1), 0u); /* (no second record) */
}

/* Thirteenth review: the unit's activation-LUT stream and a channel record were compared over the
 * 43 slots only (86 bytes), so a channel record whose slots are the stream's but with a nonzero
 * byte in 86..127 completed, the stream's record applied, while inspect marked that channel
 * record `actlut-nonzero-padding`; a record the engine may read with such a byte is refused
 * wherever it stands (docs/actlut.md, "The record's last 42 bytes"). The channel here holds a
 * copy of the stream's record laid over TD 0's weights (the unit's weights section), then one
 * byte set at 86, 101 or 127: refused by name. Control: the copy unedited completes. */
TEST(model_agree, a_channel_record_that_differs_from_the_stream_only_past_the_slots_is_refused)
{
	const size_t len = build_unit_program();
	REQUIRE(len > 0);
	static struct ldr_program p;
	REQUIRE(ldr_load(kprog, len, LDR_F_RAW, &p) == LDR_OK);
	struct ku_unit u;
	REQUIRE(ku_parse(kprog + p.weights_off, p.weights_len, NULL, &u) == KU_OK);
	const uint32_t act = u.sec[KU_SEC_ACTLUT].offset, wt = u.sec[KU_SEC_WEIGHTS].offset;
	REQUIRE(act % 64u == 0 && u.sec[KU_SEC_ACTLUT].size >= 0x80u);
	REQUIRE(wt % 64u == 0 && u.sec[KU_SEC_WEIGHTS].size >= 0x80u);
	char f[512];
	static const unsigned at[] = {0, 86, 101, 127}; /* 0: the control, the copy unedited */
	for (unsigned i = 0; i < sizeof at / sizeof at[0]; i++) {
		REQUIRE(with_channel_record(len, wt) == len);
		memcpy(kcopy + p.weights_off + wt, kprog + p.weights_off + act, 0x80u);
		if (at[i])
			kcopy[p.weights_off + wt + at[i]] = 0x01u;
		const int rc = submit(kcopy, len, f, sizeof f);
		if (!at[i])
			CHECKF(rc == 0, "the stream's record copied into the channel: %s", f);
		else
			CHECKF(rc != 0 && strstr(f, "an activation record in a coefficient channel that differs "
						    "from the kernel unit's activation-LUT stream"),
			       "byte %u of the channel's record set: %s", at[i], f);
		/* inspect reads the channel's record so as well: marked where the model refuses */
		CHECKF(!at[i] == !strstr(inspect(kcopy, len), "does not read: actlut-nonzero-padding"), "byte %u: %s",
		       at[i], itext);
	}
}

/* A kernel-unit TD reads NE.KernelCfg as a coefficient channel's TD does: a bit outside the
 * fields the model knows (SparseBinary, which only the depthwise pad form reads) is refused by
 * name, not computed as if it were clear (load_kernels_ku did not check them). */
TEST(model_agree, kernel_unit_kernelcfg_bits_outside_the_known_fields_refused)
{
	const size_t len = build_unit_program();
	REQUIRE(len > 0);
	char f[512];
	CHECKF(submit(kprog, len, f, sizeof f) == 0, "as built: %s", f);
	memcpy(kcopy, kprog, len);
	REQUIRE(tpatch_field(kcopy, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_SPARSEBINARY_LSB,
			     H13_KERNELCFG_SPARSEBINARY_W, 1u) == 0);
	CHECKF(submit(kcopy, len, f, sizeof f) != 0 && strstr(f, "td 0") &&
		       strstr(f, "NE.KernelCfg has bits outside the fields the model knows"),
	       "SparseBinary on the kernel unit's TD: %s", f);
}

/* Fifth review: a kernel-unit convolution that selects the LUT takes its record from the unit's
 * activation-LUT stream, and its OCG is coefficient channel 0 whole (engine/model/model.c's
 * resolve_act: a kernel-unit TD's channel 0 is never a record's). fw/td's td_coeff_lens took an
 * activation record off channel 0 all the same (the record at each channel's head of a
 * convolution from memory), so inspect marked the TD's kernels "not one OCG" (3 outputs of 64
 * bytes, 0xc0 less 0x80) while the model computed it. Control: channel 0 one line, which is
 * not one OCG of 3 outputs: the control path refuses it (kunit-td-weights-not-an-ocg, before the
 * model's own "not one OCG") and inspect marks it with the model's text. */
TEST(model_agree, a_kernel_unit_convolutions_channel_0_keeps_its_length_under_the_lut)
{
	static const char desc[] = "input w=8 h=1 c=16\nlayer int8 cout=3\nactivation relu6\n";
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	REQUIRE(pd_parse(desc, strlen(desc), &d, &line) == PD_OK && pd_build(&d, kprog, sizeof kprog, &len) == PD_OK);
	char f[512];
	memcpy(kcopy, kprog, len);
	/* TD 0, the unit's layer, applies the unit's relu6 record itself */
	REQUIRE(tpatch_field(kcopy, len, 0, H13_NE_MACCFG, H13_MACCFG_NONLINEARMODE_LSB, H13_MACCFG_NONLINEARMODE_W,
			     H13_NONLINEAR_LUT) == 0);
	CHECKF(submit(kcopy, len, f, sizeof f) == 0, "the unit's layer with the LUT: %s", f);
	CHECKF(strstr(inspect(kcopy, len), "16 -> 3 channels, kernels int8 from the kernel unit (its OCG in "
					   "coefficient channel 0), x a post-scale") != NULL &&
		       !strstr(itext, "not modelled"),
	       "%s", itext);
	/* control: channel 0 one line (0x40 bytes, not 3 equal OCG channels) */
	REQUIRE(strstr(itext, "ch 0 base 0x180 size 0xc0 ") != NULL);
	REQUIRE(tpatch_field(kcopy, len, 0, H13_COEFF_BFRSIZE(0), 0, 32, 0x40u) == 0);
	CHECKF(submit(kcopy, len, f, sizeof f) != 0 && strstr(f, "kunit-td-weights-not-an-ocg"), "channel 0 one line: %s",
	       f);
	CHECKF(strstr(inspect(kcopy, len), "(its OCG in coefficient channel 0) (not modelled: coefficient "
					   "channel 0 is not one OCG of the TD's output channels)") != NULL,
	       "%s", itext);
}

static uint8_t prog[4 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];

/* unbind: header BAR slots cleared in TD 0's header (bar_en), after bp_pen built it */
static int run_pe_unbound(const struct bp_pe_spec *t, unsigned unbind, char *f, size_t fl)
{
	const struct bp_pe_spec *one[1] = {t};
	size_t len = bp_pen(prog, sizeof prog, one, 1);
	CHECK(len > 0);
	if (unbind) {
		uint32_t hw[H13_TD_HEADER_WORDS];
		struct td_hdr h;
		for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
			hw[i] = le_rd32(prog + 4 * i);
		td_hdr_decode(hw, &h);
		h.bar_en = (uint8_t)(h.bar_en & ~unbind);
		td_hdr_encode(&h, hw);
		for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
			le_wr32(prog + 4 * i, hw[i]);
	}
	return submit(prog, len, f, fl);
}

static int run_pe(const struct bp_pe_spec *t, char *f, size_t fl)
{
	return run_pe_unbound(t, 0, f, fl);
}

TEST(model_agree, a_result_that_leaves_nowhere_is_refused)
{
	static const char want[] = "a TD whose result leaves nowhere";
	char f[512];
	struct bp_pe_spec t = bp_pe_copy(2, 1, 8, 5, 4), u;
	CHECKF(run_pe(&t, f, sizeof f) == 0, "the control (a PE copy to WBase): %s", f);
	/* no destination (its DMA written off last): the PE in the path (TaskType 2) */
	u = t;
	u.xreg[u.nx] = H13_DST_DMACONFIG;
	u.xval[u.nx++] = 0;
	CHECKF(run_pe_unbound(&u, 1u << H13_BAR_WBASE, f, sizeof f) != 0, "no destination: %s",
	       f); /* fw/td kept.c's, before this */
	/* the review's: Common.Cfg 0 as well (the PE out of the path, so kept.c's reading does not
	 * see it), which completed writing nothing. WBase unbound: bound, the destination writes
	 * through it with En clear (td_dst_writes, below) */
	if (u.nx < BP_PE_EXTRA) {
		u.xreg[u.nx] = H13_COMMON_CFG;
		u.xval[u.nx++] = 0;
	}
	CHECKF(run_pe_unbound(&u, 1u << H13_BAR_WBASE, f, sizeof f) != 0 && strstr(f, want),
	       "no destination, TaskType 0: %s", f);
}

#endif

/*
 * One home for what the model refuses on a TD's registers and inspect marks (fw/td/refusal.c:
 * td_pe_task_refusal, td_pe_scale_refusal, td_pe_pool_refusal, td_pe_pool_shape_refusal,
 * td_elementwise_window_refusal, td_channel_groups_refusal). For each condition a one-TD program (bp_pen) that the model refuses
 * by name and whose inspect text carries "(not modelled: <the fault's own text>)", each beside its
 * control that completes with no "not modelled" in its text: dropping the condition on either
 * side fails here (the model completes, or inspect shows the line as computed).
 */
static uint8_t aprog[BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];

/* the fault text's own words: after "unmodelled-field: ", "unmodelled-combination: " or
 * "unreadable-weights: " */
static const char *fault_why(const char *f)
{
	const char *p = strstr(f, ": unmodelled-");
	if (!p)
		p = strstr(f, ": unreadable-weights");
	if (!p)
		p = strstr(f, ": beyond-model-capacity");
	if (!p || !(p = strstr(p + 2, ": ")))
		return NULL;
	return p + 2;
}

/* want NULL: the program of the n TDs p (those before the last write the L2 memory it reads)
 * completes and inspect marks nothing; else the model refuses it with a fault whose text begins
 * want and inspect says "(not modelled: <that text>)" (the L2-memory and reduction refusals of the
 * review of 2026-12-06 in several TDs, the rest in one: agree) */
static uint8_t nprog[4 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];
static void agree_built(const char *what, size_t len, const char *want);
static void agree_n(const char *what, const struct bp_pe_spec *const *p, unsigned n, const char *want)
{
	const size_t len = bp_pen(nprog, sizeof nprog, p, n);
	REQUIRE(len > 0);
	agree_built(what, len, want);
}

/* agree_n's checks on the len bytes of nprog as they stand (built, then patched) */
static void agree_in(const char *what, const uint8_t *buf, size_t len, const char *want);
static void agree_built(const char *what, size_t len, const char *want)
{
	agree_in(what, nprog, len, want);
}

/* agree_built's on any raw program */
static char f_last_fault[768]; /* the last fault agree_in saw */
static void agree_in(const char *what, const uint8_t *buf, size_t len, const char *want)
{
	char f[768], needle[768];
	const int rc = submit(buf, len, f, sizeof f);
	snprintf(f_last_fault, sizeof f_last_fault, "%s", f);
	const char *text = inspect(buf, len);
	REQUIRE(text[0] != 0);
	if (!want) {
		CHECKF(rc == 0, "%s (the control): the model refused: %s", what, f);
		CHECKF(strstr(text, "not modelled") == NULL, "%s (the control): inspect marks it:\n%s", what, text);
		return;
	}
	const char *why = fault_why(f);
	CHECKF(rc != 0 && why && strncmp(why, want, strlen(want)) == 0, "%s: the model: %s", what,
	       rc ? f : "completed");
	if (rc == 0 || !why)
		return;
	snprintf(needle, sizeof needle, "(not modelled: %s)", why);
	CHECKF(strstr(text, needle) != NULL, "%s: inspect does not carry %s:\n%s", what, needle, text);
}

/* agree_n of the one TD t */
static void agree(const char *what, const struct bp_pe_spec *t, const char *want)
{
	const struct bp_pe_spec *one[1] = {t};
	agree_n(what, one, 1, want);
}

static void extra(struct bp_pe_spec *t, uint32_t reg, uint32_t val)
{
	REQUIRE(t->nx < BP_PE_EXTRA);
	t->xreg[t->nx] = reg;
	t->xval[t->nx++] = val;
}

TEST(model_agree, pe_refusals_have_one_home)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	struct bp_pe_spec add = copy, t;
	add.secsrc = H13_PE_SECSRC_TILE1, add.op = H13_PE_OP_ADD, add.bar_in1 = 6;
	agree("a copy", &copy, NULL);
	agree("an add", &add, NULL);
	/* decode_stages: TaskType 2 with the second operand (td_pe_task_refusal) */
	t = add;
	extra(&t, H13_COMMON_CFG, H13_PUT(H13_CFG_TASKTYPE, H13_TASK_PE_ONE));
	agree("an add with TaskType 2", &t, "Common.Cfg.TaskType 2 with a second PE operand");
	/* decode_stages: FinalScale 2, and Scale 0.5 on a product (td_pe_scale_refusal) */
	t = copy;
	t.finalscale = 0x40000000u;
	agree("a copy with FinalScale 2", &t, "Planar.FinalScale other than 1.0 outside a reduction");
	t = add;
	t.op = H13_PE_OP_MUL;
	agree("a product", &t, NULL);
	t.scale = 0x3800u;
	agree("a product with Scale 0.5", &t, "Planar.BiasScale other than Scale 1, Bias 0 on a product");
	/* decode_stages: a NaN PreScale, Scale or Bias (td_pe_nan_refusal, the eleventh review);
	 * the control an add with an infinite Bias */
	t = add;
	t.bias = 0x7c00u;
	agree("an add with Bias +inf", &t, NULL);
	t.bias = 0x7e00u;
	agree("an add with a NaN Bias", &t, "a NaN Planar.PreScale, BiasScale.Scale or BiasScale.Bias");
	t = copy;
	t.prescale = 0xfc01u;
	agree("a copy with a NaN PreScale", &t, "a NaN Planar.PreScale, BiasScale.Scale or BiasScale.Bias");
	t = copy;
	t.scale = 0x7fffu;
	agree("a copy with a NaN Scale", &t, "a NaN Planar.PreScale, BiasScale.Scale or BiasScale.Bias");
	/* pooling: with a second source, after the NE (td_pe_pool_refusal) */
	struct bp_pe_spec pool = copy;
	pool.pool = H13_PE_POOL_MAX, pool.kw = pool.kh = pool.sx = pool.sy = 2, pool.wout = 4, pool.hout = 1;
	agree("a max pool", &pool, NULL);
	t = pool;
	t.secsrc = H13_PE_SECSRC_TILE1, t.bar_in1 = 6;
	agree("a max pool with a second source", &t, "PE pooling with a second source");
	t = pool;
	extra(&t, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) |
				      H13_PUT(H13_MACCFG_KERNELMODE, 1) | H13_PUT(H13_MACCFG_BIT20, 1));
	extra(&t, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	agree("a max pool after an elementwise NE", &t, "PE pooling after the NE");
	t = pool;
	t.prescale = 0xbc00u;
	agree("a max pool with PreScale -1", &t, "a PE maximum or minimum pool over a window above 1 x 1 with a negative");
	t = pool;
	t.scale = 0xb800u;
	agree("a max pool with Scale -0.5", &t, "a PE maximum or minimum pool over a window above 1 x 1 with a negative");
	/* an average with ReluEn over 2 x 2, or with a Bias and padding (the fifteenth review);
	 * controls: the maximum with ReluEn, the average with a Bias and no window reaching out */
	t = pool;
	t.relu = 1;
	agree("a max pool with ReluEn", &t, NULL);
	t.pool = H13_PE_POOL_AVG;
	agree("an average pool with ReluEn", &t, "a PE average pool with ReluEn over a window above 1 x 1, or with a Bias");
	t = pool;
	t.pool = H13_PE_POOL_AVG, t.bias = 0x3c00u;
	agree("an average pool with a Bias", &t, NULL);
	t.px = 1;
	agree("an average pool with a Bias and padding", &t, "a PE average pool with ReluEn over a window above 1 x 1, or with a Bias");
	/* pooling's shape: a zero stride, Cout other than Cin (td_pe_pool_shape_refusal) */
	t = pool;
	extra(&t, H13_COMMON_CONVCFG, H13_PUT(H13_CONVCFG_KW, 2) | H13_PUT(H13_CONVCFG_KH, 2) |
					   H13_PUT(H13_CONVCFG_SX, 2) | H13_PUT(H13_CONVCFG_OX, 1) |
					   H13_PUT(H13_CONVCFG_OY, 1));
	agree("a max pool with Sy 0", &t, "PE pooling with a zero window, stride or input");
	t = pool;
	extra(&t, H13_COMMON_COUT, 1);
	agree("a max pool with Cout 1", &t, "PE pooling with Cin different from Cout");
	t = copy;
	extra(&t, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) |
				      H13_PUT(H13_MACCFG_KERNELMODE, 1) | H13_PUT(H13_MACCFG_BIT20, 1));
	extra(&t, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	agree("a copy after an elementwise NE", &t, NULL);
	/* elementwise_window: a copy with a stride of 2 (td_elementwise_window_refusal) */
	t = copy;
	t.sx = 2;
	agree("a copy with Sx 2", &t, "an elementwise TD (no convolution, no pooling) with a window");
}

TEST(model_agree, channel_group_refusals_have_one_home)
{
	/* Apple's reduce_max over C's form (N 2 here) and pow's products; each other form refused by
	 * ne_channel_groups, one condition of td_channel_groups_refusal at a time */
	struct bp_pe_spec mx = bp_pe_copy(4, 2, 8, 5, 4), pr = mx, t;
	mx.ne_chmax = 2;
	pr.ne_rcas = 1;
	agree("channel maxima", &mx, NULL);
	agree("channel products", &pr, NULL);
	t = mx;
	extra(&t, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CHMAX) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
				      H13_PUT(H13_MACCFG_BIT20, 1));
	agree("channel maxima with BinaryPoint 0", &t, "NE.MACCfg.OpMode 3 with Common.GroupConvCfg.UnicastCin 1 "
						       "or NE.MACCfg.BinaryPoint");
	t = mx;
	extra(&t, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x4000u));
	agree("channel maxima with PostScale 2", &t, "NE.MACCfg.OpMode 2 or 3 with a kernel from memory");
	t = mx;
	extra(&t, H13_COMMON_COUT, 1);
	agree("channel maxima with Cout 1", &t, "NE.MACCfg.OpMode 2 or 3 whose Cin is not UnicastCin times");
	t = pr;
	extra(&t, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1) |
						   H13_PUT(H13_GROUPCONV_ELEMMULTMODE, 1) |
						   H13_PUT(H13_GROUPCONV_UNICASTCIN, 4));
	agree("channel products with UnicastCin 4", &t, "NE.MACCfg.OpMode 2 with ElemMultMode: only UnicastEn 1");
	t = mx;
	t.sx = 2;
	agree("channel maxima with Sx 2", &t, "NE.MACCfg.OpMode 2 or 3 with a window");
	/* the unit kernel's sum over channels (Apple's softmax TD 3's form: Cin 4 -> 1, no
	 * UnicastEn, the PE out of the path), and its refusals (td_unit_sum_refusal) */
	struct bp_pe_spec sum = bp_pe_copy(4, 2, 8, 5, 4);
	sum.prescale = sum.scale = 0;
	sum.finalscale = 0;
	sum.ne_unit = 1;
	extra(&sum, H13_COMMON_COUT, 1);
	extra(&sum, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1u) |
						 H13_PUT(H13_GROUPCONV_UNICASTCIN, 1u));
	agree("the sum over channels", &sum, NULL);
	t = sum;
	extra(&t, H13_NE_ACCBIAS, H13_PUT(H13_ACCBIAS, 0x3c00u));
	agree("the sum with AccBias 1", &t, "the unit kernel's sum over channels (MACCfg.KernelMode 1");
	t = sum;
	extra(&t, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x4000u));
	agree("the sum with PostScale 2", &t, "the unit kernel's sum over channels with NE.PostScale");
	/* the other unit kernels (td_unit_kernel_refusal, td_accbias_shift_refusal): C -> C channel
	 * by channel runs; without UnicastEn, with a stride, or with an AccBiasShift, refused */
	struct bp_pe_spec unit = bp_pe_copy(4, 2, 8, 5, 4);
	unit.prescale = unit.scale = 0;
	unit.finalscale = 0;
	unit.ne_unit = 1;
	t = unit;
	extra(&t, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1u) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1u) |
						H13_PUT(H13_GROUPCONV_UNICASTCIN, 1u));
	agree("the unit kernel channel by channel", &t, NULL);
	extra(&t, H13_NE_ACCBIAS, H13_PUT(H13_ACCBIAS_SHIFT, 1u));
	agree("the unit kernel with an AccBiasShift", &t, "NE.AccBias.AccBiasShift not modelled");
	t = unit;
	extra(&t, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1u) | H13_PUT(H13_GROUPCONV_UNICASTCIN, 1u));
	agree("the unit kernel 4 -> 4 without UnicastEn", &t, "a convolution with no kernel in memory "
							      "(MACCfg.KernelMode 1) over more than 1 -> 1 channel");
	t = unit;
	extra(&t, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1u) | H13_PUT(H13_GROUPCONV_UNICASTEN, 1u) |
						H13_PUT(H13_GROUPCONV_UNICASTCIN, 1u));
	t.sx = 2;
	agree("the unit kernel at stride 2", &t, "a convolution with no kernel in memory (MACCfg.KernelMode 1) "
						 "and a window");
}

/* A TD with no first source (TileDMASrc.DMAConfig.En clear, nothing in L2 memory or
 * L2-resident) is refused by the model on every path (elementwise, the L2 paths, reductions);
 * inspect said "source: no tile source" and marked nothing, as if the TD computed. Its source
 * line says none and not modelled, beside the control that completes and marks nothing; since
 * 2026-12-06 with the model's own text for the TD's path (fw/td td_no_first_source_refusal: it
 * said "a TD with no first source" in its own words). */
TEST(model_agree, no_first_source_is_marked_not_modelled)
{
	static const char line[] = "  source: none: the tile source not enabled (TileDMASrc.DMAConfig.En clear), "
				   "none in L2 memory or L2-resident (not modelled: the first source is neither "
				   "L2-resident nor a bound tile source (RBase0): not modelled)\n";
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	const struct bp_pe_spec *one[1] = {&copy};
	char f[512];
	size_t len = bp_pen(aprog, sizeof aprog, one, 1);
	REQUIRE(len > 0);
	CHECKF(submit(aprog, len, f, sizeof f) == 0, "the control (a PE copy): %s", f);
	CHECKF(strstr(inspect(aprog, len), "source: RBase0") && !strstr(itext, "not modelled"), "%s", itext);
	struct bp_pe_spec t = copy;
	extra(&t, H13_SRC_DMACONFIG, 0);
	one[0] = &t;
	len = bp_pen(aprog, sizeof aprog, one, 1);
	REQUIRE(len > 0);
	CHECKF(submit(aprog, len, f, sizeof f) != 0 && strstr(f, "first source is neither"),
	       "the tile source's En clear: %s", f);
	CHECKF(strstr(inspect(aprog, len), line) != NULL, "%s", itext);
}

/* WBase bound in the TD header with TileDMADst.DMAConfig.En clear: on silicon the engine wrote
 * the result through WBase all the same (allbilly/ane expt2: the relu TD with DMAConfig
 * 0x040000c0 and 0x040000c2 left relu(x) in the output buffer). The model writes it (fw/td
 * td_dst_writes) and inspect's result line says so, from the same predicate; from 2026-12-06 (d9e229d)
 * both refused it by name, and before that the model wrote nothing and inspect said "nothing
 * leaves the engine". Apple's staging form (a result kept in L2 memory, WBase bound, En clear)
 * is described as both (with OutTranspose, both transposed). The same TD with WBase unbound
 * too is "a result that leaves nowhere" (above). */
TEST(model_agree, destination_dma_enable_clear_with_wbase_bound_written)
{
	static const char line[] = "  result: WBase (TileDMADst.DMAConfig.En clear: written all the same), 2 x 2 x 8 fp16";
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	struct bp_pe_spec t;
	agree("a copy to WBase", &copy, NULL);
	CHECKF(strstr(itext, "TileDMADst.DMAConfig.En clear") == NULL, "%s", itext);
	static const uint32_t v[] = {0u, 2u, 0xc0u}; /* expt2's neighbours (bit 1 set, En clear), Apple's */
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
		t = copy;
		extra(&t, H13_DST_DMACONFIG, v[i]);
		agree("a copy, its destination DMA's En clear, WBase bound", &t, NULL);
		CHECKF(strstr(itext, line) != NULL, "DMAConfig 0x%x:\n%s", (unsigned)v[i], itext);
	}
	t = copy;
	extra(&t, H13_DST_DMACONFIG, 3u);
	agree("a copy, DMAConfig 3 (En set)", &t, NULL);
	/* Apple's staging: kept in L2 memory and written through WBase */
	t = copy;
	t.res_l2 = (struct bp_l2){1, 0x400, 16, 32, 0, 0};
	t.res_wbase = 1;
	agree("a copy kept in L2 memory and written through WBase, En clear", &t, NULL);
	CHECKF(strstr(itext, "  result: WBase (TileDMADst.DMAConfig.En clear: written all the same), "
			     "2 x 2 x 8 fp16, and keeps it in L2 memory at byte 0x400\n") != NULL, "%s", itext);
	/* with OutTranspose, [16,1,1] kept as one row of 16 (Apple's M 16 matmul's TD 0 sets it) */
	t = bp_pe_copy(16, 1, 1, 5, 4);
	t.res_l2 = (struct bp_l2){1, 0x400, 32, 32, 0, 0};
	t.res_wbase = 1;
	t.out_transpose = 1;
	agree("the same with Common.Cfg.OutTranspose", &t, NULL);
	CHECKF(strstr(itext, "and keeps it in L2 memory at byte 0x400, kept as one row of C, written with C and "
			     "W swapped (Common.Cfg.OutTranspose)\n") != NULL, "%s", itext);
}

static struct bp_l2 l2v(uint32_t base, uint32_t cs, uint32_t rs)
{
	return (struct bp_l2){1, base, cs, rs, 0, 0};
}

/* x [4,1,16]'s mean of each plane into L2 memory at 0x1000 (one value a plane): a reduction with
 * the NE a pass-through, FinalScale 1/16 */
static struct bp_pe_spec mean_into_l2(void)
{
	struct bp_pe_spec t = bp_pe_copy(4, 1, 16, 5, 0);
	t.reduce = 1;
	t.ne_pass = 1;
	t.res_l2 = l2v(0x1000, 16, 16);
	t.finalscale = 0x3d800000u; /* 1/16 */
	return t;
}

/* x [4,1,16]'s mean into L2 at 0x1000 (TD 0), the plane sums into L2 at 0x1400 (TD 1), then a
 * normalize (x - p0) x p1 with the pair from L2 at 0x1000, p1 one row stride (0x400) on (TD 2),
 * out by DMA */
static void normalize_three(struct bp_pe_spec t[3])
{
	t[0] = mean_into_l2();
	t[1] = bp_pe_copy(4, 1, 16, 5, 0);
	t[1].reduce = 1;
	t[1].ne_pass = 1;
	t[1].res_l2 = l2v(0x1400, 16, 16);
	t[2] = bp_pe_copy(4, 1, 16, 5, 4);
	t[2].tasktype = H13_TASK_NORMALIZE;
	t[2].ne_pass = 1;
	t[2].secsrc = H13_PE_SECSRC_SUB;
	t[2].src2_l2 = l2v(0x1000, 16, 0x400);
}

/* z [1,4,24] copied into L2 at 0x100 (4 rows of 48 bytes, TD 0), then x [8,4,24] + z from L2
 * (broadcast C, TD 1) */
static void x_plus_z_from_l2(struct bp_pe_spec t[2])
{
	t[0] = bp_pe_copy(1, 4, 24, 6, 0);
	t[0].res_l2 = l2v(0x100, 48, 48);
	t[1] = bp_pe_copy(8, 4, 24, 5, 4);
	t[1].secsrc = H13_PE_SECSRC_TILE1;
	t[1].src2_l2 = l2v(0x100, 48, 48);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC2BCAST, H13_BCAST_C);
}

TEST(model_agree, l2_memory_and_reduction_refusals_marked)
{
	struct bp_pe_spec t[3];
	const struct bp_pe_spec *p[3] = {&t[0], &t[1], &t[2]};
	/* z [1,4,24] copied into L2, then x [8,4,24] kept in L2 as read plus z from L2 (broadcast C) */
	x_plus_z_from_l2(t);
	t[1].l2_src = BP_L2_KEEP;
	t[1].src_l2 = l2v(0x2000, 48, 384);
	agree_n("x kept apart from z", p, 2, NULL);
	t[1].src_l2.base = 0x100;
	agree_n("x kept over z", p, 2, "a second operand in L2 memory over the first operand the same TD keeps");
	/* x [16,2,8] copied into L2, then the NE's channel maxima of it (UnicastCin 16), the PE out of
	 * the path; broadcast along H */
	t[0] = bp_pe_copy(16, 2, 8, 5, 0);
	t[0].res_l2 = l2v(0, 16, 256);
	t[1] = bp_pe_copy(16, 2, 8, 0, 4);
	t[1].prescale = t[1].scale = 0;
	t[1].finalscale = 0;
	t[1].ne_chmax = 16;
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2v(0, 16, 256);
	agree_n("the channel maxima from L2", p, 2, NULL);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_H);
	agree_n("the channel maxima of a broadcast operand", p, 2,
		"Common.PECfg.Src1Broadcast under an NE whose outputs read other elements");
	/* x [4,1,16]: its mean into L2 (one value a plane), then a normalize (x - mean) x mean's row
	 * (the pair: p0 the mean, p1 the value one row stride on, the same mean here), out by DMA */
	normalize_three(t);
	agree_n("a normalize", p, 3, NULL);
	t[2].ne_pass = 0;
	t[2].ne_unit = 1;
	agree_n("a normalize after the unit kernel", p, 3,
		"Common.Cfg.TaskType 4 (a normalize) after the NE not modelled");
	/* the sum of TD 1 under NLMode 2 (1/sqrt of a plain sum) */
	t[2].ne_pass = 1;
	t[2].ne_unit = 0;
	t[1].nlmode = H13_PE_NL_RSQRT;
	agree_n("1/sqrt of a plain sum", p, 3, "Planar.Cfg.NLMode 2 (1/sqrt) on a reduction other than of squares");
	t[1].op = H13_PE_OP_SQ; /* of squares: computes */
	agree_n("1/sqrt of a sum of squares", p, 3, NULL);
}

/*
 * An elementwise LUT TD (no kernels read) with a coefficient channel of exactly one record beside
 * a channel of another length (docs/actlut.md, "Where the records are"): td_lut_place took the
 * one-record channel and the model applied its record, whatever the longer channel began with
 * (another record, the same one) and wherever it sat, and inspect listed that record as the one
 * applied. No real program pins which record the engine reads there (every real elementwise LUT
 * TD has channels of one record each, copies where several), so the model refuses it by name
 * (TD_LUT_MIXED) and inspect marks it with the same text. The control, bp_act_n's tanh record in
 * three channels of one record each, computes numpy's tanh within the record's bound
 * (gen_model.py's ew_tanh); its checker fails the record with knots 8..24 zeroed.
 */
static uint8_t lprog[BP_WEIGHTS_OFF + 3 * ACTLUT_STRIDE], lcopy[sizeof lprog];

/* lprog's channel `len` made 0x100 bytes (over the next channel's bytes, its head `head`'s first
 * knot changed when head is 1), channel `off` disabled */
static int longer_channel(size_t len, unsigned lng, unsigned off, uint32_t size, int head)
{
	memcpy(lcopy, lprog, len);
	if (head)
		lcopy[BP_WEIGHTS_OFF + lng * ACTLUT_STRIDE + 2u * (ACTLUT_KNOT0 + 1u)] ^= 1u;
	return tpatch_field(lcopy, len, 0, H13_COEFF_BFRSIZE(lng), 0, 32, size) ||
	       tpatch_field(lcopy, len, 0, H13_COEFF_DMACONFIG(off), 0, 32, 0u);
}

TEST(model_agree, an_elementwise_record_channel_beside_a_longer_channel_is_refused)
{
	const size_t len = bp_act_n(lprog, sizeof lprog, 16, 2, 4, 3); /* tanh in channels 0, 1, 2 */
	REQUIRE(len > 0);
	struct orc_run r;
	char f[512];
	/* the control: three copies, as Apple's select has eight */
	CHECKF(trun_orc("ew_tanh", lprog, len, 0, &r, f, sizeof f) == 0 && r.checked == 128u && r.bad == 0,
	       "three copies: %s, %lu of %lu off", f, (unsigned long)r.bad, (unsigned long)r.checked);
	CHECKF(strstr(inspect(lprog, len), "td 0 ch 0 at weights+0x0 (file ") && strstr(itext, "reads as: "),
	       "%s", itext);
	CHECK(!strstr(itext, "not modelled"));
	/* the checker's negative: knots 8..24 (|x| 1 to 3) zeroed in every copy */
	memcpy(lcopy, lprog, len);
	for (unsigned ch = 0; ch < 3; ch++)
		for (unsigned k = 8; k <= 24; k++)
			le_wr16(lcopy + BP_WEIGHTS_OFF + ch * ACTLUT_STRIDE + 2u * (ACTLUT_KNOT0 + k), 0);
	CHECK(trun_orc("ew_tanh", lcopy, len, 1, &r, NULL, 0) == 0);
	CHECKF(r.bad > r.checked / 4, "%lu of %lu off", (unsigned long)r.bad, (unsigned long)r.checked);
	/* channel 0 of one record, channel 1 over 0x100 beginning with another record (channel 2
	 * off); channel 0 over 0x100 beginning with another, channel 2 of one record (1 off); the
	 * same with channel 1 beginning with channel 0's record; channel 1 of 0x40 bytes */
	static const struct {
		unsigned lng, off;
		uint32_t size;
		int head;
		const char *mark;
	} no[] = {
		{1, 2, 0x100, 1, "td 0 ch 1 (0x100 bytes): not modelled: "},
		{0, 1, 0x100, 1, "td 0 ch 0 (0x100 bytes): not modelled: "},
		{1, 2, 0x100, 0, "td 0 ch 1 (0x100 bytes): not modelled: "},
		{1, 2, 0x40, 0, "td 0 ch 1 (0x40 bytes): not modelled: "},
	};
	for (unsigned i = 0; i < sizeof no / sizeof no[0]; i++) {
		REQUIRE(longer_channel(len, no[i].lng, no[i].off, no[i].size, no[i].head) == 0);
		char reg[64];
		snprintf(reg, sizeof reg, "KernelDMASrc.CoeffBfrSize[%u] = 0x%x", no[i].lng, (unsigned)no[i].size);
		CHECKF(trun_orc("ew_tanh", lcopy, len, 1, &r, f, sizeof f) != 0 && strstr(f, "td 0") &&
			       strstr(f, reg) && strstr(f, "unreadable-activation-record") && strstr(f, TD_LUT_MIXED_WHY),
		       "case %u: \"%s\"", i, f);
		CHECKF(strstr(inspect(lcopy, len), no[i].mark) && strstr(itext, TD_LUT_MIXED_WHY) &&
			       !strstr(itext, "reads as: "),
		       "case %u: %s", i, itext);
	}
}

/*
 * The tile DMA's refusals (fw/td tiles.c: the model faults with them, inspect marks them), each
 * beside its control. Before, inspect printed every one of these TDs as computed:
 *  - the format words (engine/model/compute.c data_unread_fields): a TileDMASrc.Fmt or
 *    TileDMADst.Fmt word no real program holds on its tensor's ChCfg format (fmt_known), and the
 *    L2 DMA format with a one-byte tile format; marked on the source or result line;
 *  - where the tiles lie (tiles_apart, compute, compute_td): a destination over a tile source in
 *    the same BAR other than element for element in place, in place but transposed or under a
 *    pooling, and a destination whose rows overlap one another; marked on the result line.
 */
static size_t built(const struct bp_pe_spec *const *p, unsigned n)
{
	return bp_pen(nprog, sizeof nprog, p, n);
}

/* the tile formats' FmtMode, Truncate and MemFmt (bits 0-13 of the Fmt word) */
#define FMT_BITS 0, 14

TEST(model_agree, tile_format_refusals_marked)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 16, 5, 4);
	const struct bp_pe_spec *one[1] = {&copy};
	size_t len;
	REQUIRE((len = built(one, 1)) > 0);
	agree_built("a copy", len, NULL);
	/* softmax.bin TD 4's source word (1, 0, 0) on an fp16 tensor: computes */
	REQUIRE((len = built(one, 1)) > 0 && !tpatch_field(nprog, len, 0, H13_SRC_FMT, FMT_BITS, H13_PUT(H13_FMT_FMTMODE, 1u)));
	agree_built("an fp16 source under (1, 0, 0)", len, NULL);
	/* the INT8 word on an fp16 source */
	REQUIRE((len = built(one, 1)) > 0 && !tpatch_field(nprog, len, 0, H13_SRC_FMT, FMT_BITS, TD_TILE_FMT_INT8));
	agree_built("an fp16 source under the INT8 word", len, "TileDMASrc.Fmt's FmtMode, Truncate and MemFmt");
	/* the UINT8 word on an fp16 destination: through the 16-bit L2 DMA format first, then alone */
	REQUIRE((len = built(one, 1)) > 0 && !tpatch_field(nprog, len, 0, H13_DST_FMT, FMT_BITS, TD_TILE_FMT_UINT8));
	agree_built("an fp16 destination under the UINT8 word", len,
		    "L2.ResultCfg.DMAFmt other than 0 (8-bit) with a one-byte tile DMA destination format");
	REQUIRE(!tpatch_field(nprog, len, 0, H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0));
	agree_built("an fp16 destination under the UINT8 word, DMAFmt 0", len, "TileDMADst.Fmt's FmtMode, Truncate and MemFmt");
	/* a uint8 source: under the UINT8 word with the 8-bit L2 DMA format (L2.SourceCfg.DMAFmt 0, as
	 * built) it computes (Apple's bool programs); with the 16-bit one, or under softmax.bin's word,
	 * refused */
	REQUIRE((len = built(one, 1)) > 0 &&
		!tpatch_field(nprog, len, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W, H13_FMT_UINT8) &&
		!tpatch_field(nprog, len, 0, H13_SRC_FMT, FMT_BITS, TD_TILE_FMT_UINT8));
	agree_built("a uint8 source under the UINT8 word, DMAFmt 0", len, NULL);
	REQUIRE(!tpatch_field(nprog, len, 0, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 1));
	agree_built("a uint8 source under the UINT8 word, DMAFmt 1", len,
		    "L2.SourceCfg.DMAFmt other than 0 (8-bit) with a one-byte tile DMA source format");
	REQUIRE(!tpatch_field(nprog, len, 0, H13_L2_SOURCECFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0));
	REQUIRE(!tpatch_field(nprog, len, 0, H13_SRC_FMT, FMT_BITS, H13_PUT(H13_FMT_FMTMODE, 1u)));
	agree_built("a uint8 source under (1, 0, 0)", len, "TileDMASrc.Fmt's FmtMode, Truncate and MemFmt");
}

TEST(model_agree, tile_place_refusals_marked)
{
	static const char over[] = "a destination whose bytes overlap a tile source's";
	/* TD 0 copies x into BAR 3; TD 1 reads BAR 3 and writes BAR 3 (4 planes of 2 rows of 64 bytes) */
	struct bp_pe_spec t[2] = {bp_pe_copy(16, 2, 16, 5, BP_MID_BAR), bp_pe_copy(16, 2, 16, BP_MID_BAR, BP_MID_BAR)};
	const struct bp_pe_spec *p[2] = {&t[0], &t[1]};
	agree_n("a copy in place", p, 2, NULL);
	/* one row on: each row over the source's next */
	t[1].dst_off = 64;
	agree_n("a copy one row on in the same BAR", p, 2, over);
	/* past the source's last byte in the same BAR: apart */
	t[1].dst_off = 16u * 2u * 64u;
	agree_n("a copy past the source in the same BAR", p, 2, NULL);
	t[1].dst_off = 0;
	/* in place, written transposed (C = W: the same shape) */
	t[1].out_transpose = 1;
	agree_n("a copy in place, transposed", p, 2, over);
	t[1].bar_out = 4;
	agree_n("a copy transposed into another BAR", p, 2, NULL);
	t[1].bar_out = BP_MID_BAR;
	t[1].out_transpose = 0;
	/* in place under a 1x1 max pooling (the same shape: its outputs read windows) */
	t[1].pool = H13_PE_POOL_MAX;
	agree_n("a 1x1 max pool in place", p, 2, over);
	t[1].bar_out = 4;
	agree_n("a 1x1 max pool into another BAR", p, 2, NULL);
	/* a destination whose rows of 128 bytes are 64 bytes apart */
	struct bp_pe_spec c = bp_pe_copy(2, 2, 64, 5, 4);
	const struct bp_pe_spec *one[1] = {&c};
	agree_n("a copy, rows 128 bytes apart", one, 1, NULL);
	extra(&c, H13_DST_ROWSTRIDE, 64u);
	agree_n("a copy, rows 64 bytes apart", one, 1,
		"a destination whose rows, planes, depths or groups overlap one another");
}

/*
 * The fields the model reads no meaning from (fw/td fields.c: data_unread_fields on every TD,
 * decode_ne's ElemMultMode and the NE's unread fields where it decodes the NE), at a value no
 * real program holds: the model refuses the TD by name and inspect's "registers:" line carries
 * the same text; before, inspect printed each such TD as computed. The controls: the copy and
 * an elementwise NE as built, and an NE with Bit20 clear on a TD whose result goes nowhere and
 * whose Planar words are 0, which the model completes without decoding the NE (nothing marked).
 */
static void patched(const char *what, const struct bp_pe_spec *t, uint32_t reg, unsigned lsb, unsigned width,
		    uint32_t v, const char *want)
{
	const struct bp_pe_spec *one[1] = {t};
	size_t len = built(one, 1);
	REQUIRE(len > 0);
	const int pe = tpatch_field(nprog, len, 0, reg, lsb, width, v);
	CHECKF(pe == 0, "%s: the register is not written in the program", what);
	if (!pe)
		agree_built(what, len, want);
}

/* nprog's TD td (at td x BP_CHAIN_STRIDE, as bp_pen lays them) with BAR slot slot unbound */
static void unbind_td(unsigned td, unsigned slot)
{
	uint32_t hw[H13_TD_HEADER_WORDS];
	struct td_hdr h;
	uint8_t *at = nprog + td * BP_CHAIN_STRIDE;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		hw[i] = le_rd32(at + 4 * i);
	td_hdr_decode(hw, &h);
	h.bar_en = (uint8_t)(h.bar_en & ~(1u << slot));
	td_hdr_encode(&h, hw);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		le_wr32(at + 4 * i, hw[i]);
}

TEST(model_agree, unread_field_refusals_marked)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 16, 5, 4);
	struct bp_pe_spec ne = copy, t;
	extra(&ne, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) |
				       H13_PUT(H13_MACCFG_KERNELMODE, 1) | H13_PUT(H13_MACCFG_BIT20, 1));
	extra(&ne, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	agree("a copy", &copy, NULL);
	agree("an elementwise NE", &ne, NULL);
	/* the data path's (td_data_unread_refusal), in the model's order */
	patched("L2.SourceCfg.Dependent 3", &copy, H13_L2_SOURCECFG, H13_L2SRC_DEPENDENT_LSB, H13_L2SRC_DEPENDENT_W, 3,
		"L2.SourceCfg.Dependent not modelled");
	patched("TileDMASrc.Fmt.Shift 1", &copy, H13_SRC_FMT, H13_FMT_SHIFT_LSB, H13_FMT_SHIFT_W, 1,
		"TileDMASrc.Fmt.Shift not modelled");
	patched("Common.ConvCfg.Ox 2", &copy, H13_COMMON_CONVCFG, H13_CONVCFG_OX_LSB, H13_CONVCFG_OX_W, 2,
		"Common.ConvCfg.Ox 2 other than on a depthwise convolution");
	patched("a row stride's low bits", &copy, H13_DST_ROWSTRIDE, 0, 6, 0x20,
		"a bit outside every field the register map names is set");
	patched("Common.TileCfg.TileHeight 0", &copy, H13_COMMON_TILECFG, H13_TILECFG_TILEHEIGHT_LSB,
		H13_TILECFG_TILEHEIGHT_W, 0, "Common.TileCfg.TileHeight 0 not modelled");
	patched("TileDMASrc.Src2Fmt on a TD with no second operand", &copy, H13_SRC2_FMT, 0, 32, 0x2030u,
		"TileDMASrc.Src2Fmt set on a TD whose second operand does not come by the tile DMA");
	t = copy; /* (a word the builder does not write) */
	extra(&t, H13_SRC_PIXELOFFSET(1), H13_PUT(H13_PIXELOFFSET, 4u));
	agree("TileDMASrc.PixelOffset[1] 4", &t, "TileDMASrc.PixelOffset not modelled");
	/* decode_ne's: ElemMultMode outside OpMode 2, and the NE's own fields */
	patched("ElemMultMode on an elementwise NE", &ne, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_ELEMMULTMODE_LSB,
		H13_GROUPCONV_ELEMMULTMODE_W, 1, "Common.GroupConvCfg.ElemMultMode not modelled but with NE.MACCfg.OpMode 2");
	patched("Bit20 clear", &ne, H13_NE_MACCFG, H13_MACCFG_BIT20_LSB, H13_MACCFG_BIT20_W, 0,
		"NE.MACCfg.Bit20 clear not modelled");
	patched("MatrixBiasEn", &ne, H13_NE_MACCFG, H13_MACCFG_MATRIXBIASEN_LSB, H13_MACCFG_MATRIXBIASEN_W, 1,
		"NE.MACCfg.MatrixBiasEn not modelled");
	patched("BinaryPoint 5", &ne, H13_NE_MACCFG, H13_MACCFG_BINARYPOINT_LSB, H13_MACCFG_BINARYPOINT_W, 5,
		"NE.MACCfg.BinaryPoint not modelled");
	patched("KernelMode 0 on an elementwise NE", &ne, H13_NE_MACCFG, H13_MACCFG_KERNELMODE_LSB,
		H13_MACCFG_KERNELMODE_W, 0, "NE.MACCfg.KernelMode 0 on an elementwise NE");
	patched("PostScale NaN", &ne, H13_NE_POSTSCALE, H13_POSTSCALE_LSB, H13_POSTSCALE_W, 0x7e00u,
		"NE.PostScale infinite or NaN not modelled");
	/* the NE with Bit20 clear where nothing leaves the engine (no destination, WBase unbound,
	 * every Planar word 0, TaskType 0): the model decodes no NE, and completed writing nothing
	 * until the fourteenth review; now such a TD is refused whatever its NE (td_result_nowhere_
	 * refusal), with the same text in inspect's result line */
	t = copy;
	t.prescale = t.scale = 0;
	t.finalscale = 0;
	extra(&t, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) | H13_PUT(H13_MACCFG_KERNELMODE, 1));
	extra(&t, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	extra(&t, H13_DST_DMACONFIG, 0);
	extra(&t, H13_COMMON_CFG, 0);
	const struct bp_pe_spec *one[1] = {&t};
	size_t len = built(one, 1);
	REQUIRE(len > 0);
	unbind_td(0, H13_BAR_WBASE);
	agree_built("Bit20 clear, nothing leaves the engine", len, TD_RESULT_NOWHERE_WHY);
	CHECKF(strstr(itext, "result: nothing leaves the engine (not modelled: " TD_RESULT_NOWHERE_WHY) != NULL,
	       "%s", itext);
}

/* nprog's TD 0 header's ENE set to ene, and BAR slot bind (below H13_BAR_NSLOTS) bound to BAR
 * index bar */
static void set_hdr(unsigned ene, unsigned bind, unsigned bar)
{
	uint32_t hw[H13_TD_HEADER_WORDS];
	struct td_hdr h;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		hw[i] = le_rd32(nprog + 4 * i);
	td_hdr_decode(hw, &h);
	h.ene = (uint8_t)ene;
	if (bind < H13_BAR_NSLOTS) {
		h.bar_en = (uint8_t)(h.bar_en | 1u << bind);
		h.bar_idx[bind] = (uint8_t)bar;
	}
	td_hdr_encode(&h, hw);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		le_wr32(nprog + 4 * i, hw[i]);
}

/*
 * The rest of what compute, decode_stages and reduction_checks refuse on the registers and the
 * TD header (fw/td checks.c), on inspect's "registers:" line with the model's text; before,
 * inspect printed each TD as computed. Beside the copy and the reduction as built, unmarked.
 */
TEST(model_agree, register_refusals_marked)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 16, 5, 4);
	const struct bp_pe_spec *one[1] = {&copy};
	struct bp_pe_spec t;
	size_t len;
	agree("a copy", &copy, NULL);
	patched("Common.Cfg.TaskType 1", &copy, H13_COMMON_CFG, H13_CFG_TASKTYPE_LSB, H13_CFG_TASKTYPE_W, 1,
		"Common.Cfg.TaskType other than 0, 2, 3, 4, 5 and 6");
	/* the TD header's ENE 1 on a PE TD (TaskType 2) */
	REQUIRE((len = built(one, 1)) > 0);
	set_hdr(1, H13_BAR_NSLOTS, 0);
	agree_built("ENE 1 with TaskType 2", len, "Common.Cfg.TaskType and the TD header's ENE disagree");
	patched("Planar.Cfg bit 10", &copy, H13_PLANAR_CFG, 10, 1, 1,
		"Planar.Cfg has bits outside the fields the model knows");
	t = copy;
	t.eps = 0x0100u;
	agree("Planar.PreScale's low half on a copy", &t, "Planar.PreScale bits 0-15 not modelled");
	t = copy; /* (L2.L2Cfg: a word the builder does not write) */
	extra(&t, H13_L2_CFG, H13_PUT(H13_L2CFG_SRC2RELU, 1u));
	agree("L2.L2Cfg.Src2ReLU on a copy", &t, "L2.L2Cfg.Src2ReLU with no second PE operand not modelled");
	/* a uint8 result by the tile DMA (the UINT8 word, the 8-bit L2 DMA format) runs; kept
	 * L2-resident as well (ResultType 3), refused */
	REQUIRE((len = built(one, 1)) > 0 &&
		!tpatch_field(nprog, len, 0, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT_LSB, H13_CHCFG_OUTFMT_W, H13_FMT_UINT8) &&
		!tpatch_field(nprog, len, 0, H13_DST_FMT, FMT_BITS, TD_TILE_FMT_UINT8) &&
		!tpatch_field(nprog, len, 0, H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0));
	agree_built("a uint8 result", len, NULL);
	REQUIRE(!tpatch_field(nprog, len, 0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W,
			      H13_L2_RESIDENT));
	agree_built("a uint8 result kept L2-resident", len,
		    "an L2-resident result (L2.ResultCfg.ResultType 3) with a one-byte output format");
	/* a reduction (the mean of each plane into L2 memory), and with OutTranspose */
	struct bp_pe_spec red = mean_into_l2();
	agree("a reduction", &red, NULL);
	/* 1/sqrt(mean of squares + eps): eps 0.25, computed; eps a NaN (the eleventh review: every
	 * plane's value was +0), refused */
	t = red;
	t.op = H13_PE_OP_SQ;
	t.nlmode = H13_PE_NL_RSQRT;
	t.eps = 0x3400u;
	agree("a reduction to 1/sqrt(mean of squares + 0.25)", &t, NULL);
	t.eps = 0x7e00u;
	agree("a reduction to 1/sqrt(mean of squares + NaN)", &t,
	      "Planar.PreScale's low half (eps) a NaN on a reduction");
	t.eps = 0xfd00u;
	agree("a reduction to 1/sqrt(mean of squares + -NaN)", &t,
	      "Planar.PreScale's low half (eps) a NaN on a reduction");
	t = red;
	t.out_transpose = 1;
	agree("a reduction with OutTranspose", &t, "Common.Cfg.OutTranspose on a reduction's result");
	t = red;
	extra(&t, H13_L2_CFG, H13_PUT(H13_L2CFG_SRC2RELU, 1u));
	agree("a reduction with Src2ReLU", &t, "L2.L2Cfg.Src2ReLU on a reduction not modelled");
}

/*
 * A convolution with kernels in coefficient channels: palettized (NE.KernelCfg.PalettizedEn, read
 * only from a kernel unit or in Apple's depthwise pad form) and with a second PE operand after it
 * are refused by the model (load_kernels, convolution: fw/td td_palette_refusal,
 * td_conv_second_source_refusal); inspect printed "palettized 4-bit" and the PE's "+ b" as
 * computed. Beside the 1x1 convolution as built (bp_chain), unmarked.
 */
TEST(model_agree, convolution_refusals_marked)
{
	static const uint16_t wts[4 * 4] = {0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u};
	const struct bp_step conv = {.kind = BP_STEP_CONV, .cin = 4, .cout = 4, .in0 = 5, .out = 4};
	size_t len = bp_chain(nprog, sizeof nprog, 8, 2, &conv, 1, wts);
	REQUIRE(len > 0);
	agree_built("a 1x1 convolution", len, NULL);
	REQUIRE(!tpatch_field(nprog, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_PALETTIZEDEN_LSB,
			      H13_KERNELCFG_PALETTIZEDEN_W, 1));
	agree_built("a 1x1 convolution, PalettizedEn", len, "palettized coefficient channels not modelled");
	CHECKF(strstr(itext, "palettized ") != NULL, "%s", itext);
	/* the PE after it adding a second operand by the tile DMA (RBase1 bound, Src2Fmt fp16) */
	len = bp_chain(nprog, sizeof nprog, 8, 2, &conv, 1, wts);
	REQUIRE(len > 0 && !tpatch_field(nprog, len, 0, H13_COMMON_CFG, H13_CFG_TASKTYPE_LSB, H13_CFG_TASKTYPE_W,
					 H13_TASK_PE_TWO));
	/* the PE in the path (TaskType 3, ENE 0 as every real PE TD), identity scales, SecSrc 2, the
	 * second operand by the tile DMA (L2.SourceCfg.Src2DMA, Src2Fmt fp16, RBase1 bound) */
	const int pe = tpatch_field(nprog, len, 0, H13_PLANAR_CFG, H13_PECFG_SECSRC_LSB, H13_PECFG_SECSRC_W,
				    H13_PE_SECSRC_TILE1) ||
		       tpatch_field(nprog, len, 0, H13_PLANAR_FINALSCALE, 0, 32, 0x3f800000u) ||
		       tpatch_field(nprog, len, 0, H13_PLANAR_PRESCALE, H13_PRESCALE_LSB, H13_PRESCALE_W, 0x3c00u) ||
		       tpatch_field(nprog, len, 0, H13_PLANAR_BIASSCALE, H13_BIASSCALE_SCALE_LSB, H13_BIASSCALE_SCALE_W,
				    0x3c00u) ||
		       tpatch_field(nprog, len, 0, H13_L2_SOURCECFG, H13_L2SRC_SRC2DMA_LSB, H13_L2SRC_SRC2DMA_W, 1) ||
		       tpatch_field(nprog, len, 0, H13_SRC2_FMT, 0, 32, TD_TILE_FMT_SRC2_FP16);
	set_hdr(0, H13_BAR_RBASE1, 6); /* the second operand by the tile DMA from BAR 6 */
	CHECKF(pe == 0, "the Planar words are not written in the convolution's TD");
	if (!pe)
		agree_built("a 1x1 convolution, then + a second operand", len,
			    "a second PE source after a convolution not modelled");
}

/* A pooling whose output reaches past its input's windows (compute_td's window_covers), and a TD
 * with neither unit in the path (decode_stages): fw/td checks.c, on inspect's registers: line;
 * before, inspect printed both as computed. Beside the pooling and the copy as built. */
TEST(model_agree, window_and_unit_refusals_marked)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	struct bp_pe_spec pool = copy, t;
	pool.pool = H13_PE_POOL_MAX, pool.kw = pool.kh = pool.sx = pool.sy = 2, pool.wout = 4, pool.hout = 1;
	agree("a 2x2 max pool, 8 -> 4", &pool, NULL);
	t = pool;
	t.wout = 8; /* output 7 reads columns 14 and 15 of 8 */
	agree("a 2x2 max pool, 8 -> 8", &t, "a convolution or pooling output whose window lies wholly outside");
	agree("a copy", &copy, NULL);
	t = copy; /* TaskType 0, every Planar word 0, no NE: a copy by no unit */
	t.prescale = t.scale = 0;
	t.finalscale = 0;
	extra(&t, H13_COMMON_CFG, 0);
	agree("neither unit in the path", &t, "neither the NE (NE.MACCfg 0, or a pass-through with no kernel) nor "
					      "the planar engine");
}

/* The convolution's NE.KernelCfg as the model reads kernels from coefficient channels
 * (kernel_cfg_read, load_kernels: fw/td td_kernel_cfg_refusal, td_dense_kernels_refusal): before,
 * inspect printed each of these as computed. Beside bp_chain's 1x1 convolution (above). */
static void conv_patched(const char *what, uint32_t reg, unsigned lsb, unsigned width, uint32_t v,
			 uint32_t reg2, unsigned lsb2, unsigned width2, uint32_t v2, const char *want)
{
	static const uint16_t wts[4 * 4] = {0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u};
	const struct bp_step conv = {.kind = BP_STEP_CONV, .cin = 4, .cout = 4, .in0 = 5, .out = 4};
	size_t len = bp_chain(nprog, sizeof nprog, 8, 2, &conv, 1, wts);
	REQUIRE(len > 0);
	REQUIRE(!tpatch_field(nprog, len, 0, reg, lsb, width, v));
	if (width2)
		REQUIRE(!tpatch_field(nprog, len, 0, reg2, lsb2, width2, v2));
	agree_built(what, len, want);
}

TEST(model_agree, kernel_config_refusals_marked)
{
	conv_patched("GroupKernelReuse", H13_NE_KERNELCFG, H13_KERNELCFG_GROUPKERNELREUSE_LSB,
		     H13_KERNELCFG_GROUPKERNELREUSE_W, 1, 0, 0, 0, 0, "NE.KernelCfg.GroupKernelReuse not modelled");
	/* Align: read on the dense 1x1 fp16 convolution; with int8 kernels, refused */
	conv_patched("Align on fp16 kernels", H13_NE_KERNELCFG, H13_KERNELCFG_ALIGN_LSB, H13_KERNELCFG_ALIGN_W, 1, 0, 0,
		     0, 0, NULL);
	conv_patched("Align on int8 kernels", H13_NE_KERNELCFG, H13_KERNELCFG_ALIGN_LSB, H13_KERNELCFG_ALIGN_W, 1,
		     H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB, H13_KERNELCFG_KERNELFMT_W, H13_KERNELFMT_INT8,
		     "NE.KernelCfg.Align on other than dense 1x1 fp16 kernels");
	/* (KernelFmt 3: the control path refuses it first, kernel-format-unknown) */
	conv_patched("BiasMode before int8 kernels", H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1,
		     H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB, H13_KERNELCFG_KERNELFMT_W, H13_KERNELFMT_INT8,
		     "NE.MACCfg.BiasMode with kernels other than fp16 not modelled");
}

/*
 * An elementwise TD's sources and shapes (engine/model/compute.c elementwise_sources: fw/td
 * td_elementwise_sources_refusal): a second operand with RBase1 not bound, a source smaller than
 * the output (a broadcast), an output smaller than the input (a crop), a one-byte first operand
 * beside a second by tile DMA. The model refused each by name; inspect printed them as computed
 * (2026-12-06). Beside the add and a uint8 copy as built, unmarked.
 */
TEST(model_agree, elementwise_shape_refusals_marked)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	struct bp_pe_spec add = copy, t;
	add.secsrc = H13_PE_SECSRC_TILE1, add.op = H13_PE_OP_ADD, add.bar_in1 = 6;
	const struct bp_pe_spec *one[1] = {&add};
	size_t len;
	agree("an add", &add, NULL);
	REQUIRE((len = built(one, 1)) > 0);
	unbind_td(0, H13_BAR_RBASE1);
	agree_built("an add with RBase1 not bound", len,
		    "Planar.Cfg.SecSrc 2 or 3 (a second operand) with no second tile source (RBase1) bound");
	t = copy;
	t.win = 4; /* 4 columns in, 8 out */
	agree("a copy of 4 columns into 8", &t, "a source smaller than the output (a broadcast)");
	t = add;
	t.hin = 1;
	agree("an add of 1 row into 2", &t, "a source smaller than the output (a broadcast)");
	t = copy;
	t.win = 16; /* 16 columns in, 8 out */
	agree("a copy of 16 columns into 8", &t, "an elementwise TD whose output is not its input's shape");
	/* a uint8 first operand (the UINT8 word, the 8-bit L2 DMA format): a copy computes; beside a
	 * second operand by tile DMA (read as fp16), refused */
	one[0] = &copy;
	REQUIRE((len = built(one, 1)) > 0 &&
		!tpatch_field(nprog, len, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W, H13_FMT_UINT8) &&
		!tpatch_field(nprog, len, 0, H13_SRC_FMT, FMT_BITS, TD_TILE_FMT_UINT8));
	agree_built("a uint8 copy", len, NULL);
	one[0] = &add;
	REQUIRE((len = built(one, 1)) > 0 &&
		!tpatch_field(nprog, len, 0, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W, H13_FMT_UINT8) &&
		!tpatch_field(nprog, len, 0, H13_SRC_FMT, FMT_BITS, TD_TILE_FMT_UINT8));
	agree_built("a uint8 first operand of an add", len,
		    "a one-byte first operand with a second PE operand by tile DMA not modelled");
}

/* TD 0's source (dst 0) or destination side interleaved: its tile DMA's Fmt.Interleave ilv, its L2
 * side's DMAInterleave l2 */
static void ilv_patched(const char *what, const struct bp_pe_spec *t, int dst, unsigned ilv, unsigned l2,
			const char *want)
{
	const struct bp_pe_spec *one[1] = {t};
	size_t len = built(one, 1);
	REQUIRE(len > 0);
	REQUIRE(!tpatch_field(nprog, len, 0, dst ? H13_DST_FMT : H13_SRC_FMT, H13_FMT_INTERLEAVE_LSB,
			      H13_FMT_INTERLEAVE_W, ilv));
	REQUIRE(!tpatch_field(nprog, len, 0, dst ? H13_L2_RESULTCFG : H13_L2_SOURCECFG, H13_L2_DMAINTERLEAVE_LSB,
			      H13_L2_DMAINTERLEAVE_W, l2));
	agree_built(what, len, want);
}

/*
 * Channel interleave (compute's interleave_side: fw/td td_interleave_refusal) and a depth outside
 * the TDs that take one (at_depths: td_depth_refusal). The model refused each by name; inspect
 * printed them as computed (2026-12-06). Beside a copy read and written interleaved by 2, a copy
 * over a depth of 2 and the reduction as built, unmarked.
 */
TEST(model_agree, interleave_and_depth_refusals_marked)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	struct bp_pe_spec t;
	ilv_patched("a copy read interleaved by 2", &copy, 0, 2, 2, NULL);
	ilv_patched("a copy written interleaved by 2", &copy, 1, 2, 2, NULL);
	ilv_patched("a copy read under Interleave 2, DMAInterleave 1", &copy, 0, 2, 1,
		    "an L2 DMAInterleave other than its tile DMA's Fmt.Interleave not modelled");
	t = copy;
	t.c = 3;
	ilv_patched("a copy of 3 channels read interleaved by 2", &t, 0, 2, 2,
		    "channel interleave modelled on fp16 tiles of depth 1, channels a multiple of the interleave");
	/* a reduction into L2 memory whose (unwritten) destination side is interleaved */
	struct bp_pe_spec red = mean_into_l2();
	agree("a reduction", &red, NULL);
	ilv_patched("a reduction, its destination side interleaved by 2", &red, 1, 2, 2,
		    "channel interleave on a side the tile DMA does not move, or on a reduction's");
	/* a depth of 2: a copy computes it; a max pool over it is refused */
	t = copy;
	t.depth = 2;
	t.src_depth = 2u * 64u; /* the input's plane: 2 rows of 64 bytes */
	t.dst_depth = 2u * 64u;
	t.src_plane = t.dst_plane = 4u * 64u; /* (each channel's two depths) */
	agree("a copy over a depth of 2", &t, NULL);
	t.pool = H13_PE_POOL_MAX;
	agree("a 1x1 max pool over a depth of 2", &t, "Common.InDepth above 1 on a TD that is neither a reduction");
}

/*
 * A convolution's register checks that the model made and inspect did not mark (2026-12-06): a zero
 * stride (convolution), a bias with NE.PostScale other than 1
 * (conv_biases_modelled: fw/td td_conv_biases_refusal), a coefficient channel larger than its
 * kernels (load_kernels: td_coeff_sizes_refusal), and a kernel-unit TD's (load_kernels_ku:
 * td_ku_kernels_refusal) OCGSize and BiasMode (its palette or SparseFmt beside int8 kernels: the
 * control path refuses them first, kunit-palette-bits-differ, kunit-sparse-mask-width). Beside bp_chain's 1x1
 * convolution, at OCGSize 0 and 1, and mkprog's int8 layer, unmarked.
 */
TEST(model_agree, kernel_read_refusals_marked)
{
	conv_patched("a 1x1 convolution", H13_NE_POSTSCALE, H13_POSTSCALE_LSB, H13_POSTSCALE_W, 0x3c00u, 0, 0, 0, 0,
		     NULL);
	conv_patched("Sx 0", H13_COMMON_CONVCFG, H13_CONVCFG_SX_LSB, H13_CONVCFG_SX_W, 0, 0, 0, 0, 0,
		     "a convolution with a zero kernel size, stride or input");
	conv_patched("BiasMode with NE.PostScale 2", H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1,
		     H13_NE_POSTSCALE, H13_POSTSCALE_LSB, H13_POSTSCALE_W, 0x4000u,
		     "NE.MACCfg.BiasMode with a kernel unit, or with NE.PostScale other than 1");
	/* OCGSize 1 over 4 outputs: runs of 2 in channels 0 and 1 (2 and 3 disabled), 16 bytes a
	 * channel, 64 rounded up; channel 0 of 128 bytes is refused */
	{
		static const uint16_t wts[4 * 4] = {0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u};
		const struct bp_step conv = {.kind = BP_STEP_CONV, .cin = 4, .cout = 4, .in0 = 5, .out = 4};
		for (unsigned big = 0; big < 2; big++) {
			size_t len = bp_chain(nprog, sizeof nprog, 8, 2, &conv, 1, wts);
			REQUIRE(len > 0);
			REQUIRE(!tpatch_field(nprog, len, 0, H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE_LSB,
					      H13_CONVCFG_OCGSIZE_W, 1));
			REQUIRE(!tpatch_field(nprog, len, 0, H13_COEFF_DMACONFIG(2), H13_DMA_EN_LSB, H13_DMA_EN_W, 0));
			REQUIRE(!tpatch_field(nprog, len, 0, H13_COEFF_DMACONFIG(3), H13_DMA_EN_LSB, H13_DMA_EN_W, 0));
			if (big)
				REQUIRE(!tpatch_field(nprog, len, 0, H13_COEFF_BFRSIZE(0), 0, 32, 128u));
			agree_built(big ? "OCGSize 1, channel 0 of 128 bytes" : "OCGSize 1 over channels 0 and 1", len,
				    big ? "a coefficient channel's CoeffBfrSize larger than the kernels the layout" : NULL);
		}
	}
	/* a depthwise 3x3 stride-2 convolution (phase-sparse records, bp_convb): its biases checked
	 * after its own forms (depthwise) */
	{
		static uint16_t dw[16 * 9];
		static uint8_t dprog[1 << 14];
		for (unsigned i = 0; i < 16 * 9; i++)
			dw[i] = i % 9 == 4 ? 0x3c00u : 0;
		const struct bp_conv_spec d = {.cin = 16, .cout = 16, .w = 8, .h = 8, .k = 3, .wts = dw, .stride = 2,
					       .sparse = 1, .dw = 1};
		size_t dl = bp_convb(dprog, sizeof dprog, &d);
		REQUIRE(dl > 0);
		agree_in("a depthwise 3x3 stride-2 convolution", dprog, dl, NULL);
		REQUIRE(!tpatch_field(dprog, dl, 0, H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1) &&
			!tpatch_field(dprog, dl, 0, H13_NE_POSTSCALE, H13_POSTSCALE_LSB, H13_POSTSCALE_W, 0x4000u));
		agree_in("a depthwise convolution with BiasMode and NE.PostScale 2", dprog, dl,
			 "NE.MACCfg.BiasMode with a kernel unit, or with NE.PostScale other than 1");
	}
	/* Apple's pad form (SparseBinary, bp_convb sparse 2) over 8 channels, 3x3: computes; with
	 * BiasMode, or under SmallSourceMode (a 3x3 record is more than one mask byte), refused
	 * (pad_form_palettes, pad_form_small_source: td_pad_form_refusal) */
	{
		static uint16_t pw[8 * 9];
		static uint8_t pprog[1 << 14];
		for (unsigned i = 0; i < 8 * 9; i++)
			pw[i] = i % 9 == 4 || i % 9 == 0 ? 0x3c00u : 0;
		const struct bp_conv_spec pd = {.cin = 8, .cout = 8, .w = 8, .h = 8, .k = 3, .wts = pw, .stride = 1,
						.sparse = 2, .dw = 1};
		size_t pl = bp_convb(pprog, sizeof pprog, &pd);
		REQUIRE(pl > 0);
		agree_in("the pad form, 3x3 over 8 channels", pprog, pl, NULL);
		REQUIRE(!tpatch_field(pprog, pl, 0, H13_COMMON_CFG, H13_CFG_SMALLSOURCE_LSB, H13_CFG_SMALLSOURCE_W, 1));
		agree_in("the pad form, 3x3, under SmallSourceMode", pprog, pl,
			 "SparseBinary kernels (Apple's pad form) under Common.Cfg.SmallSourceMode with a window");
		pl = bp_convb(pprog, sizeof pprog, &pd);
		REQUIRE(pl > 0 &&
			!tpatch_field(pprog, pl, 0, H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1));
		agree_in("the pad form with BiasMode", pprog, pl, "NE.MACCfg.BiasMode with SparseBinary kernels");
	}
#if !defined(ANEFW_TARGET) /* (the kernel-unit program: the host's, above) */
	/* the kernel unit's TD 0 (mkprog's int8 layer) */
	const size_t len = build_unit_program();
	REQUIRE(len > 0);
	agree_in("mkprog's int8 layer", kprog, len, NULL);
	static const struct {
		const char *what;
		uint32_t reg;
		unsigned lsb, width;
		uint32_t v;
		const char *want;
	} ku[] = {
		{"OCGSize 1 on a kernel-unit TD", H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE_LSB, H13_CONVCFG_OCGSIZE_W, 1,
		 "Common.ConvCfg.OCGSize above 0 on a kernel-unit TD not modelled"},
		{"BiasMode on a kernel-unit TD", H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1,
		 "NE.MACCfg.BiasMode with a kernel unit"},
	};
	for (unsigned i = 0; i < sizeof ku / sizeof ku[0]; i++) {
		memcpy(kcopy, kprog, len);
		REQUIRE(!tpatch_field(kcopy, len, 0, ku[i].reg, ku[i].lsb, ku[i].width, ku[i].v));
		agree_in(ku[i].what, kcopy, len, ku[i].want);
	}
#endif
}

/*
 * What the model names unreadable weights though the registers decide it (issue 21 section 4):
 * a dense kernel not inside its coefficient channel (load_kernels: OCGSize 0 reads output 3 from
 * channel 3, whose En is clear), and a kernel-unit TD's coefficient channel 0 against its OCG
 * (load_kernels_ku: less than a bit of the OCG a weight, palette indices larger than an OCG
 * channel; channel 0 not one OCG of the outputs is the control path's first). fw/td td_kernels_inside_refusal and td_ku_kernels_refusal hold them now
 * with their class (TD_RF_DATA, unreadable-weights, as the model named them); inspect printed the
 * refused TDs as computed. Beside bp_chain's 1x1 convolution and mkprog's palettized layer as
 * built, unmarked.
 */
TEST(model_agree, data_refusals_the_registers_decide_marked)
{
	conv_patched("a 1x1 convolution", H13_NE_POSTSCALE, H13_POSTSCALE_LSB, H13_POSTSCALE_W, 0x3c00u, 0, 0, 0, 0,
		     NULL);
	conv_patched("output 3's channel not enabled", H13_COEFF_DMACONFIG(3), H13_DMA_EN_LSB, H13_DMA_EN_W, 0, 0, 0,
		     0, 0, "an output channel's kernel is not inside its coefficient channel");
	CHECKF(strstr(f_last_fault, "unreadable-weights") != NULL, "the class: %s", f_last_fault);
	/* bp_chain's 1x1 convolution 4 -> 4 made depthwise (GroupConvCfg UnicastEn 1, UnicastCin 1:
	 * output c from input c, its kernel the first fp16 of lane c): computes; lane 3 not enabled,
	 * refused (depthwise's lanes: td_dw_lanes_inside_refusal) */
	for (unsigned off = 0; off < 2; off++) {
		static const uint16_t wts[4 * 4] = {0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u, 0, 0, 0, 0, 0x3c00u};
		const struct bp_step conv = {.kind = BP_STEP_CONV, .cin = 4, .cout = 4, .in0 = 5, .out = 4};
		size_t len = bp_chain(nprog, sizeof nprog, 8, 2, &conv, 1, wts);
		REQUIRE(len > 0);
		REQUIRE(!tpatch_field(nprog, len, 0, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_UNICASTEN_LSB,
				      H13_GROUPCONV_UNICASTEN_W, 1) &&
			!tpatch_field(nprog, len, 0, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_UNICASTCIN_LSB,
				      H13_GROUPCONV_UNICASTCIN_W, 1));
		if (off)
			REQUIRE(!tpatch_field(nprog, len, 0, H13_COEFF_DMACONFIG(3), H13_DMA_EN_LSB, H13_DMA_EN_W, 0));
		agree_built(off ? "a 1x1 depthwise convolution, lane 3 not enabled" : "a 1x1 depthwise convolution",
			    len, off ? "an output channel's kernel is not inside its coefficient channel" : NULL);
	}
#if !defined(ANEFW_TARGET) /* (mkprog's programs: the host's) */
	/* a palettized layer 128 -> 24: its OCG 24 x 64 bytes (128 4-bit indices an output) in
	 * coefficient channel 0, CoeffBfrSize 0x600, which the control path holds to the unit's OCG
	 * (kunit-td-weights-not-an-ocg); the TD's Common.Cin patched, each kernel outgrows its 64 bytes */
	static const char desc[] = "input w=8 h=1 c=128\nlayer palette4 cout=24\n";
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	REQUIRE(pd_parse(desc, strlen(desc), &d, &line) == PD_OK && pd_build(&d, kprog, sizeof kprog, &len) == PD_OK);
	agree_in("a palettized layer 128 -> 24", kprog, len, NULL);
	static const struct {
		uint32_t cin;
		const char *want;
	} ku[] = {
		{256u, "palette indices larger than an OCG channel"},                /* 128 bytes of indices */
		{1024u, "an OCG channel smaller than one bit per weight of its kernel"}, /* 1024 weights, 512 bits */
	};
	for (unsigned i = 0; i < sizeof ku / sizeof ku[0]; i++) {
		char what[64];
		snprintf(what, sizeof what, "the palettized layer, Common.Cin %u", (unsigned)ku[i].cin);
		memcpy(kcopy, kprog, len);
		REQUIRE(!tpatch_field(kcopy, len, 0, H13_COMMON_CIN, H13_CIN_LSB, H13_CIN_W, ku[i].cin));
		agree_in(what, kcopy, len, ku[i].want);
		CHECKF(strstr(f_last_fault, "unreadable-weights") != NULL && strstr(f_last_fault, "CoeffBfrSize") != NULL,
		       "%s: the class and field: %s", what, f_last_fault);
	}
#endif
}

/*
 * The phase-sparse record parameters fw/codec does not decode (codec_pkern_slots): a Cin above
 * 65536 (fw/td td_pk_params_refusal; load_kernels' pk_params, before any record is read). Marked
 * since the paths' refusals moved, untested: bp_convb's 3x3 stride-2 phase-sparse convolution
 * 16 -> 8 over a 2 x 1 input, its Common.Cin then 65537 (the source tile 65537 planes of one
 * 64-byte row; 8 outputs keep the kernels, 9.4 MB as fp16, under the kernel memory the control
 * path allows). Beside the convolution as built, unmarked.
 */
TEST(model_agree, phase_sparse_records_over_cin_above_65536_marked)
{
	static uint16_t w[16 * 16 * 9];
	static uint8_t sprog[1 << 15];
	for (unsigned i = 0; i < 16 * 16 * 9; i++)
		w[i] = i % 9 == 4 && i / 9 % 17 == 0 ? 0x3c00u : 0;
	const struct bp_conv_spec c = {.cin = 16, .cout = 8, .w = 2, .h = 1, .k = 3, .wts = w, .stride = 2, .sparse = 1};
	const size_t len = bp_convb(sprog, sizeof sprog, &c);
	REQUIRE(len > 0);
	agree_in("a 3x3 stride-2 phase-sparse convolution 16 -> 8", sprog, len, NULL);
	REQUIRE(!tpatch_field(sprog, len, 0, H13_COMMON_CIN, H13_CIN_LSB, H13_CIN_W, 65537u));
	agree_in("the same with Common.Cin 65537", sprog, len,
		 "phase-sparse kernels of this window, OCGSize or Cin not modelled");
	CHECKF(strstr(f_last_fault, "td 0, unit NE, NE.KernelCfg = ") != NULL, "the register: %s", f_last_fault);
}


/*
 * The L2 paths' combinations (l2mem_elementwise: fw/td td_l2mem_ew_refusal): pooling of an operand
 * from L2 memory, a one-byte output beside one, an output of another shape, a second operand by
 * tile DMA with RBase1 not bound, Src2ReLU on a normalize; and conv_l2's (td_conv_l2_refusal) a
 * one-byte operand in L2 memory. The model refused each by name; inspect printed them as computed
 * (2026-12-06). Beside a copy and an add from L2 memory, a normalize and a convolution of an
 * operand another TD kept in L2 memory, unmarked.
 */
TEST(model_agree, l2_path_refusals_marked)
{
	struct bp_pe_spec t[3];
	const struct bp_pe_spec *p[3] = {&t[0], &t[1], &t[2]};
	size_t len;
	/* x [2,2,8] copied into L2 memory, then read from there */
	t[0] = bp_pe_copy(2, 2, 8, 5, 0);
	t[0].res_l2 = l2v(0, 16, 256);
	t[1] = bp_pe_copy(2, 2, 8, 0, 4);
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2v(0, 16, 256);
	agree_n("a copy from L2 memory", p, 2, NULL);
	t[1].pool = H13_PE_POOL_MAX;
	agree_n("a 1x1 max pool from L2 memory", p, 2, "pooling with an operand or its result in L2 memory");
	t[1].pool = 0;
	/* plus a second operand by the tile DMA: computes; RBase1 unbound, refused */
	t[1].secsrc = H13_PE_SECSRC_TILE1, t[1].op = H13_PE_OP_ADD, t[1].bar_in1 = 6;
	agree_n("an add of x from L2 memory and y by tile DMA", p, 2, NULL);
	REQUIRE((len = bp_pen(nprog, sizeof nprog, p, 2)) > 0);
	unbind_td(1, H13_BAR_RBASE1);
	agree_built("an add of x from L2 memory, RBase1 not bound", len,
		    "Planar.Cfg.SecSrc 2 or 3 (a second operand) by tile DMA (L2.SourceCfg.Src2DMA 1) with no second");
	t[1].secsrc = 0, t[1].op = 0, t[1].bar_in1 = 0;
	/* a uint8 result (the UINT8 word, the 8-bit L2 DMA format) of a copy from L2 memory */
	REQUIRE((len = bp_pen(nprog, sizeof nprog, p, 2)) > 0 &&
		!tpatch_field(nprog, len, 1, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT_LSB, H13_CHCFG_OUTFMT_W, H13_FMT_UINT8) &&
		!tpatch_field(nprog, len, 1, H13_DST_FMT, FMT_BITS, TD_TILE_FMT_UINT8) &&
		!tpatch_field(nprog, len, 1, H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0));
	agree_built("a uint8 result of a copy from L2 memory", len, "L2 memory with a one-byte output format not modelled");
	/* 8 columns read from L2 memory into 4 */
	t[1].wout = 4;
	agree_n("a copy from L2 memory, 8 columns into 4", p, 2,
		"an elementwise TD with L2 memory whose output is not its input's shape");
	/* the normalize of l2_memory_and_reduction_refusals_marked, with Src2ReLU */
	normalize_three(t);
	agree_n("a normalize", p, 3, NULL);
	extra(&t[2], H13_L2_CFG, H13_PUT(H13_L2CFG_SRC2RELU, 1u));
	agree_n("a normalize with Src2ReLU", p, 3, "L2.L2Cfg.Src2ReLU on a normalize (TaskType 4) not modelled");
	/* conv_l2 (td_conv_l2_refusal): bp_convkeep's TD 1 convolves x from L2 memory (4 -> 32, each
	 * TD 16 outputs, as model_bias's conv_keep); read as uint8 */
	static uint16_t wts[32 * 4];
	static uint8_t cprog[1 << 14];
	for (unsigned o = 0; o < 32; o++)
		for (unsigned i = 0; i < 4; i++)
			wts[o * 4 + i] = o % 4 == i ? 0x3c00u : 0;
	const struct bp_conv_spec keep = {.cin = 4, .cout = 32, .w = 8, .h = 1, .k = 1, .wts = wts};
	REQUIRE((len = bp_convkeep(cprog, sizeof cprog, &keep)) > 0);
	agree_in("a convolution of x from L2 memory", cprog, len, NULL);
	REQUIRE(!tpatch_field(cprog, len, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT_LSB, H13_CHCFG_INFMT_W, H13_FMT_UINT8));
	agree_in("a convolution of x from L2 memory read as uint8", cprog, len,
		 "a convolution whose one-byte operand is in L2 memory not modelled");
	/* bp_matmul's three TDs: TD 1 convolves x^T from L2 memory into L2 memory; with SourceType 2
	 * and RBase0 not bound it has no first source (model_bias's
	 * a_convolution_into_l2_memory_with_no_first_source_is_refused: it completed before) */
	const struct bp_conv_spec mm = {.cin = 4, .cout = 32, .w = 8, .h = 1, .k = 1, .wts = wts, .l2split = 1};
	REQUIRE((len = bp_matmul(cprog, sizeof cprog, &mm)) > 0);
	agree_in("a matmul through L2 memory", cprog, len, NULL);
	REQUIRE(!tpatch_field(cprog, len, 1, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W, H13_L2_DMA));
	agree_in("its convolution with no first source", cprog, len,
		 "the first source is neither in L2 memory nor a bound tile source (RBase0): not modelled");
}

/*
 * What inspect named in its own words ("OpMode 5 (not modelled)", "Condition 3 (not modelled)",
 * "mode 3 (not modelled)", "every Planar word 0 ... (not modelled)", "stays in the engine (not
 * modelled)", "NE.AccBias ... outside a convolution: not modelled", and the PE's OpMode, SecSrc,
 * FirstSrc and NLMode) it now marks with the model's own text, from the predicate the model
 * refuses with (fw/td refusal.c: td_ne_opmode_refusal, td_ne_nonlinear_refusal,
 * td_ne_accbias_refusal, td_pe_words_refusal, td_pe_condition_refusal, td_pe_nlmode_refusal,
 * td_pe_op_refusal, td_pe_firstsrc_refusal, td_result_nowhere_refusal). NE.AccBias on a
 * pass-through NE was printed "a bias for every output" while the model refused it. Beside a copy,
 * an elementwise NE and a product with FirstSrc (the first operand negated), unmarked.
 */
TEST(model_agree, own_word_refusals_carry_the_models_text)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	struct bp_pe_spec ne = copy, t;
	const uint32_t ew = H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
			    H13_PUT(H13_MACCFG_BIT20, 1);
	extra(&ne, H13_NE_MACCFG, ew);
	extra(&ne, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	agree("a copy", &copy, NULL);
	agree("an elementwise NE", &ne, NULL);
	t = copy;
	extra(&t, H13_NE_MACCFG, (ew & ~H13_PUT(H13_MACCFG_OPMODE, ~0u)) | H13_PUT(H13_MACCFG_OPMODE, 5));
	extra(&t, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	agree("NE.MACCfg.OpMode 5", &t, "NE.MACCfg.OpMode not modelled");
	t = copy;
	extra(&t, H13_NE_MACCFG, ew | H13_PUT(H13_MACCFG_NONLINEARMODE, 3));
	extra(&t, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	agree("NonlinearMode 3", &t, "NE.MACCfg.NonlinearMode 3 not modelled");
	t = ne;
	extra(&t, H13_NE_ACCBIAS, H13_PUT(H13_ACCBIAS, 0x3c00u));
	agree("NE.AccBias on an elementwise NE", &t, "NE.AccBias outside a convolution (MACCfg OpMode 0) not modelled");
	t = copy;
	t.ne_pass = 1;
	agree("a pass-through NE", &t, NULL);
	extra(&t, H13_NE_ACCBIAS, H13_PUT(H13_ACCBIAS, 0x3c00u));
	agree("NE.AccBias on a pass-through NE", &t, "NE.AccBias outside a convolution (MACCfg OpMode 0) not modelled");
	/* (the builder writes TaskType 0 and ENE 1 where every Planar word is 0: TaskType 2 and ENE 0
	 * written after it) */
	const struct bp_pe_spec *one[1] = {&t};
	size_t len;
	t = copy;
	t.prescale = t.scale = 0;
	t.finalscale = 0;
	extra(&t, H13_COMMON_CFG, H13_PUT(H13_CFG_TASKTYPE, H13_TASK_PE_ONE));
	REQUIRE((len = built(one, 1)) > 0);
	set_hdr(0, H13_BAR_NSLOTS, 0);
	agree_built("every Planar word 0, TaskType 2", len, "Common.Cfg.TaskType puts the planar engine in the path but");
	t = copy;
	t.cond = 3;
	agree("Planar.Cfg.Condition 3", &t, "Planar.Cfg.Condition (a comparison) not modelled");
	t = copy;
	t.nlmode = 1;
	agree("Planar.Cfg.NLMode 1 on a copy", &t, "Planar.Cfg.NLMode not modelled");
	t = copy;
	t.op = 5;
	agree("Planar.Cfg.OpMode 5", &t, "Planar.Cfg.OpMode not modelled");
	t = copy;
	t.secsrc = 1, t.bar_in1 = 6;
	agree("Planar.Cfg.SecSrc 1", &t, "Planar.Cfg.SecSrc 1 not modelled");
	t = copy;
	t.secsrc = H13_PE_SECSRC_TILE1, t.bar_in1 = 6, t.op = H13_PE_OP_MUL, t.firstsrc = 1;
	agree("a product with FirstSrc 1", &t, NULL);
	t.op = H13_PE_OP_ADD;
	agree("an add with FirstSrc 1", &t, "Planar.Cfg.FirstSrc 1 not modelled but on a product");
	/* the destination DMA off and WBase unbound, the PE out of the path (TaskType 0: kept.c's
	 * reading of a PE result left in the engine does not take it): the result would stay in the
	 * engine */
	t = copy;
	extra(&t, H13_DST_DMACONFIG, 0);
	extra(&t, H13_COMMON_CFG, 0);
	REQUIRE((len = built(one, 1)) > 0);
	unbind_td(0, H13_BAR_WBASE);
	agree_built("a copy whose result leaves nowhere", len, "a TD whose result leaves nowhere");
}

/*
 * Planar.Cfg.Condition 1 (|.|) on an elementwise TD where its place among the PE's steps changes
 * the value (fw/td td_pe_condition_refusal, TD_PE_ABS_ORDER_WHY): with a second operand (|a + b|
 * or |a| + |b|), a negative PreScale or Scale, a Bias. The census's accepted flips (2026-12-07)
 * found add.bin with the bit computing |a + b|, which no program pins. Beside: |x| as abs.bin and
 * Apple's unary_abs hold it, |x| with a positive PreScale and Scale and a Bias of -0, and the same
 * negative scales, Bias and second operand without the |.|, unmarked.
 */
TEST(model_agree, abs_where_its_place_changes_the_value_is_refused)
{
	const struct bp_pe_spec copy = bp_pe_copy(2, 2, 8, 5, 4);
	struct bp_pe_spec t = copy;
	t.cond = H13_PE_COND_ABS;
	agree("|x|", &t, NULL);
	t.prescale = 0x4000u, t.scale = 0x3800u, t.bias = 0x8000u;
	agree("|2x| x 0.5 + -0", &t, NULL);
	const struct {
		const char *what;
		uint16_t prescale, scale, bias;
		unsigned sec;
	} bad[] = {
		{"|.| after an add of a second operand", 0x3c00u, 0x3c00u, 0, H13_PE_SECSRC_TILE1},
		{"|.| after a subtraction of a second operand", 0x3c00u, 0x3c00u, 0, H13_PE_SECSRC_SUB},
		{"|.| with PreScale -1", 0xbc00u, 0x3c00u, 0, H13_PE_SECSRC_NONE},
		{"|.| with PreScale -0", 0x8000u, 0x3c00u, 0, H13_PE_SECSRC_NONE},
		{"|.| with Scale -2", 0x3c00u, 0xc000u, 0, H13_PE_SECSRC_NONE},
		{"|.| with Bias 1", 0x3c00u, 0x3c00u, 0x3c00u, H13_PE_SECSRC_NONE},
		{"|.| with Bias -0.5", 0x3c00u, 0x3c00u, 0xb800u, H13_PE_SECSRC_NONE},
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t = copy;
		t.prescale = bad[i].prescale, t.scale = bad[i].scale, t.bias = bad[i].bias;
		t.secsrc = bad[i].sec;
		if (t.secsrc)
			t.op = H13_PE_OP_ADD, t.bar_in1 = 6;
		agree(bad[i].what, &t, NULL); /* without the |.|: computes */
		t.cond = H13_PE_COND_ABS;
		agree(bad[i].what, &t, TD_PE_ABS_ORDER_WHY);
	}
	/* the fourteenth review: ReluEn (relu(|x|) = |x| or |relu(x)| = relu(x)) and a 2 x 2 max or
	 * average pool (max |x| or |max x|) with the |.| completed, the model taking the |.| before
	 * the ReLU and after the pool. Without the |.| they compute, and so does |.| after a 1 x 1
	 * max pool (every order one value) */
	t = copy;
	t.relu = 1;
	agree("ReLU", &t, NULL);
	t.cond = H13_PE_COND_ABS;
	agree("|.| with ReluEn", &t, TD_PE_ABS_ORDER_WHY);
	struct bp_pe_spec pool = copy;
	pool.pool = H13_PE_POOL_MAX, pool.kw = pool.kh = pool.sx = pool.sy = 2, pool.wout = 4, pool.hout = 1;
	agree("a 2 x 2 max pool", &pool, NULL);
	pool.cond = H13_PE_COND_ABS;
	agree("|.| after a 2 x 2 max pool", &pool, TD_PE_ABS_ORDER_WHY);
	pool.pool = H13_PE_POOL_AVG;
	agree("|.| after a 2 x 2 average pool", &pool, TD_PE_ABS_ORDER_WHY);
	pool = copy;
	pool.pool = H13_PE_POOL_MAX, pool.cond = H13_PE_COND_ABS;
	agree("|.| after a 1 x 1 max pool", &pool, NULL);
}

/*
 * A TD with no first source: the model refuses it with its path's text (compute_td's for the paths
 * outside L2 memory, the L2 paths' for the channel groups: fw/td td_first_source_refusal); the
 * source line said "a TD with no first source" in its own words, and now the registers: line
 * carries the model's. Beside the copy and the channel maxima as built, unmarked.
 */
TEST(model_agree, first_source_refusals_carry_the_models_text)
{
	struct bp_pe_spec t = bp_pe_copy(2, 2, 8, 5, 4);
	agree("a copy", &t, NULL);
	extra(&t, H13_SRC_DMACONFIG, 0);
	agree("a copy, the tile source's En clear", &t,
	      "the first source is neither L2-resident nor a bound tile source (RBase0): not modelled");
	struct bp_pe_spec mx = bp_pe_copy(16, 2, 8, 5, 4);
	mx.prescale = mx.scale = 0;
	mx.finalscale = 0;
	mx.ne_chmax = 16;
	agree("the channel maxima", &mx, NULL);
	extra(&mx, H13_SRC_DMACONFIG, 0);
	agree("the channel maxima, the tile source's En clear", &mx,
	      "the first source is neither in L2 memory nor a bound tile source (RBase0): not modelled");
	/* the source line carries the text of the TD's path (it said "a TD with no first source") */
	CHECKF(strstr(itext, "none in L2 memory or L2-resident (not modelled: the first source is neither in L2 "
			     "memory nor a bound tile source (RBase0): not modelled)\n") != NULL,
	       "the channel maxima's source line:\n%s", itext);
}

/*
 * The fourth review (2026-12-06): beside a first source the tile DMA reads channel-interleaved,
 * a source kept in L2 memory as it is read (SourceType 1) and a second operand from L2 memory
 * completed with the model's own choice of layout (model_ilvred.l2_copies_beside_an_interleaved_
 * source_refused); fw/td td_l2mem_of refuses both now, and inspect's PE line carries the text.
 * The controls: the same TDs with interleave 1.
 */
/* t with its destination's (dst 1) or its source's interleave ilv and L2 side l2ilv, rows 512 bytes
 * apart: agree_built */
static void ilv_fields(const char *what, const struct bp_pe_spec *t, int dst, unsigned ilv, unsigned l2ilv,
		       const char *want)
{
	const struct bp_pe_spec *one[1] = {t};
	size_t len = built(one, 1);
	REQUIRE(len > 0);
	const int pe =
		tpatch_field(nprog, len, 0, dst ? H13_DST_FMT : H13_SRC_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W,
			     ilv) ||
		tpatch_field(nprog, len, 0, dst ? H13_L2_RESULTCFG : H13_L2_SOURCECFG, H13_L2_DMAINTERLEAVE_LSB,
			     H13_L2_DMAINTERLEAVE_W, l2ilv) ||
		tpatch_field(nprog, len, 0, dst ? H13_DST_ROWSTRIDE : H13_SRC_ROWSTRIDE, 0, 32, 8u * 64u);
	CHECKF(pe == 0, "%s: a register is not written in the program", what);
	if (!pe)
		agree_built(what, len, want);
}

TEST(model_agree, l2_copies_beside_an_interleaved_source_marked)
{
	struct bp_pe_spec keep = bp_pe_copy(16, 3, 24, 5, 4), sec = keep;
	keep.l2_src = BP_L2_KEEP;
	keep.src_l2 = l2v(0, 64, 1024);
	keep.src_plane = 3u * 512u;
	/* (the second operand's L2 memory written by a TD before: the control completes) */
	struct bp_pe_spec w = bp_pe_copy(16, 3, 24, 6, 0);
	w.res_l2 = l2v(0, 64, 1024);
	sec.src_plane = 3u * 512u;
	sec.secsrc = H13_PE_SECSRC_TILE1;
	sec.src2_l2 = l2v(0, 64, 1024);
	ilv_fields("kept, interleave 1", &keep, 0, 1, 1, NULL);
	static const char kept[] = "channel interleave 2 or 4 on a source kept in L2 memory as it is read";
	ilv_fields("kept, interleave 2", &keep, 0, 2, 2, kept);
	ilv_fields("kept, interleave 4", &keep, 0, 4, 4, kept);
	/* 8: Apple's batched matmul's form (model_ilvred.a_source_kept_as_read_interleaved_by_8_is_kept_plain) */
	ilv_fields("kept, interleave 8", &keep, 0, 8, 8, NULL);
	const struct bp_pe_spec *two[2] = {&w, &sec};
	agree_n("second from L2, interleave 1", two, 2, NULL);
	ilv_fields("second from L2, interleave 2", &sec, 0, 2, 2,
		   "a second operand from L2 memory (L2.SourceCfg.Src2DMA 0) beside a first read "
		   "channel-interleaved");
}

/*
 * The channel-interleave checks (the model's interleave_side, now fw/td td_interleave_refusal):
 * inspect printed "channels interleaved by N" as computed where the model refuses the TD (the
 * fourth review: a staging TD, its result kept in L2 memory and written through WBase with En
 * clear, interleaved; an interleave of 0 or 3; an L2 side that disagrees; a part-filled group).
 * Each is refused by the model and marked on the registers: line with its text; the controls (an
 * interleave of 2 on a destination written with En clear, or read on a source) run unmarked.
 */
TEST(model_agree, interleave_refusals_marked)
{
	struct bp_pe_spec copy = bp_pe_copy(16, 3, 24, 5, 4), enclear = copy, stage = copy, odd = bp_pe_copy(3, 3, 24, 5, 4);
	copy.src_plane = copy.dst_plane = 3u * 512u;
	extra(&enclear, H13_DST_DMACONFIG, 0xc0u);
	enclear.dst_plane = copy.dst_plane;
	stage.res_l2 = l2v(0, 64, 1024);
	stage.res_wbase = 1;
	stage.dst_plane = copy.dst_plane;
	odd.src_plane = odd.dst_plane = 3u * 512u;
	ilv_fields("a destination interleaved by 2", &copy, 1, 2, 2, NULL);
	ilv_fields("a source read interleaved by 2", &copy, 0, 2, 2, NULL);
	ilv_fields("by 2, written with En clear", &enclear, 1, 2, 2, NULL);
	ilv_fields("a staging TD's destination interleaved by 2", &stage, 1, 2, 2,
		   "channel interleave on a side the tile DMA does not move, or on a reduction's or an "
		   "L2-resident result, not modelled");
	ilv_fields("a destination interleaved by 3", &copy, 1, 3, 3,
		   "a tile DMA's Fmt.Interleave other than 1, 2, 4 or 8 not modelled");
	ilv_fields("a source interleaved by 0", &copy, 0, 0, 0,
		   "a tile DMA's Fmt.Interleave other than 1, 2, 4 or 8 not modelled");
	ilv_fields("an L2 side of 1 under 2", &copy, 1, 2, 1,
		   "an L2 DMAInterleave other than its tile DMA's Fmt.Interleave not modelled");
	ilv_fields("3 channels by 2", &odd, 1, 2, 2,
		   "channel interleave modelled on fp16 tiles of depth 1, channels a multiple of the "
		   "interleave");
}

/*
 * The L2-resident tensors (L2.ResultCfg.ResultType 3, read back with L2.SourceCfg.SourceType 3):
 * the model finds the tensor a TD reads by its base among those the TDs before it left, and
 * refuses a base no TD left, a tensor smaller than the TD's input and more tensors than it holds.
 * inspect printed each TD alone, so each of those TDs as computed (docs/engine-model.md, "Left
 * unmarked"); its walk now carries what each TD leaves (fw/td resident.c, td_print_op_walk) and
 * marks them with the model's text. A tensor larger than the TD's input was read in part (its first
 * columns, rows and channels: a copy of 10 columns of rows of 20 completed), or with its own
 * channel count (pooling, a convolution), where the registers say less; nothing pins which part
 * silicon reads, and the model reads no L2 stride of a resident tensor, so it is refused by name
 * now (sigmoid.bin reads the whole tensor its TD 0 left). The control: relu(x) [4,3,20] kept
 * resident at 0x1000 by TD 0 and copied out by TD 1, unmarked
 * (model_l2mem.an_l2_resident_result_written_through_wbase_too_is_refused checks its values
 * against numpy's relu and inspect's text).
 */
static void keep_resident(struct bp_pe_spec *t, uint32_t base)
{
	*t = bp_pe_copy(4, 3, 20, 5, 4);
	t->relu = 1;
	t->res_l2 = l2v(base, 48, 192);
	t->bar_out = 3;
	extra(t, H13_L2_RESULTCFG, td_fixed_bits(H13_L2_RESULTCFG) | H13_PUT(H13_L2_RESULTTYPE, H13_L2_RESIDENT));
}

static void read_resident(struct bp_pe_spec *t, unsigned c, uint32_t base)
{
	*t = bp_pe_copy(c, 3, 20, 0, 4);
	t->l2_src = BP_L2_READ;
	t->src_l2 = l2v(base, 48, 192);
	extra(t, H13_L2_SOURCECFG, td_fixed_bits(H13_L2_SOURCECFG) | H13_PUT(H13_L2_SOURCETYPE, H13_L2_RESIDENT));
}

static uint8_t rprog[6 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];

TEST(model_agree, l2_resident_reads_marked)
{
	struct bp_pe_spec t[5];
	const struct bp_pe_spec *p[5] = {&t[0], &t[1], &t[2], &t[3], &t[4]};
	keep_resident(&t[0], 0x1000);
	read_resident(&t[1], 4, 0x1000);
	agree_n("relu(x) kept resident, copied out", p, 2, NULL);
	CHECKF(strstr(itext, "result: the L2-resident tensor at byte 0x1000, 4 x 3 x 20\n") &&
		       strstr(itext, "source: the L2-resident tensor at byte 0x1000, 4 x 3 x 20 fp16\n"),
	       "%s", itext);
	read_resident(&t[1], 4, 0x2000);
	agree_n("a read of a base no TD left", p, 2, "L2 source names no resident tensor");
	read_resident(&t[1], 8, 0x1000);
	agree_n("a read of 8 channels of a tensor of 4", p, 2,
		"an L2-resident source smaller than the TD's input (Cin, InDim, NumGroups)");
	/* 10 columns of each row of 20, copied out: the model completed, reading each row's first 10 */
	read_resident(&t[1], 4, 0x1000);
	t[1].win = t[1].wout = 10;
	agree_n("10 columns of the tensor's 20", p, 2, "an L2-resident source larger than the TD's input");
	CHECKF(strstr(itext, "of the 1 x 4 x 3 x 20 tensor left there (G x C x H x W)"), "%s", itext);
	/* a 1x1 max pool of 2 channels of the tensor's 4: pooling read the tensor's Cin (refused
	 * with pooling's text, inspect unmarked) */
	read_resident(&t[1], 2, 0x1000);
	t[1].pool = H13_PE_POOL_MAX;
	agree_n("a 1x1 max pool of 2 of the tensor's 4 channels", p, 2,
		"an L2-resident source larger than the TD's input");
	/* four tensors at four bases, then a fifth: beyond the four the model holds; a fourth
	 * written again in its own place, and a read of the first, compute */
	for (unsigned i = 0; i < 5; i++)
		keep_resident(&t[i], 0x1000u + 0x1000u * i);
	size_t len = bp_pen(rprog, sizeof rprog, p, 5);
	REQUIRE(len > 0);
	agree_in("five tensors kept resident", rprog, len, "more L2-resident tensors than the model holds");
	keep_resident(&t[4], 0x4000);
	REQUIRE((len = bp_pen(rprog, sizeof rprog, p, 5)) > 0);
	agree_in("the fourth's base again", rprog, len, NULL);
	read_resident(&t[4], 4, 0x1000);
	REQUIRE((len = bp_pen(rprog, sizeof rprog, p, 5)) > 0);
	agree_in("four kept, the first read", rprog, len, NULL);
}

/* A TD whose tile source is enabled with RBase0 not bound has no first source: its source line
 * said "none (tile source enabled, RBase0 not bound: not modelled)" in inspect's own words; it now
 * carries the model's text for the TD's path (fw/td td_no_first_source_refusal), as a TD with the
 * source's En clear does (first_source_refusals_carry_the_models_text). Beside the TDs bound. */
TEST(model_agree, a_tile_source_without_rbase0_carries_the_models_text)
{
	struct bp_pe_spec t = bp_pe_copy(2, 2, 8, 5, 4);
	const struct bp_pe_spec *one[1] = {&t};
	size_t len;
	agree("a copy", &t, NULL);
	REQUIRE((len = built(one, 1)) > 0);
	unbind_td(0, H13_BAR_RBASE0);
	agree_built("a copy, RBase0 not bound", len,
		    "the first source is neither L2-resident nor a bound tile source (RBase0): not modelled");
	CHECKF(strstr(itext, "source: none: the tile source enabled (TileDMASrc.DMAConfig.En) with RBase0 not bound, "
			     "none in L2 memory or L2-resident (not modelled: the first source is neither "
			     "L2-resident nor a bound tile source (RBase0): not modelled)\n"),
	       "%s", itext);
	t = bp_pe_copy(16, 2, 8, 5, 4);
	t.prescale = t.scale = 0;
	t.finalscale = 0;
	t.ne_chmax = 16;
	agree("the channel maxima", &t, NULL);
	REQUIRE((len = built(one, 1)) > 0);
	unbind_td(0, H13_BAR_RBASE0);
	agree_built("the channel maxima, RBase0 not bound", len,
		    "the first source is neither in L2 memory nor a bound tile source (RBase0): not modelled");
}

/* relu of [2,4,24] read from L2 memory at byte `at` (SourceType 0) to BAR dst (0: no DMA
 * destination) */
static struct bp_pe_spec relu_from_l2(uint32_t at, uint8_t dst)
{
	struct bp_pe_spec r = bp_pe_copy(2, 4, 24, 0, dst);
	r.relu = 1;
	r.l2_src = BP_L2_READ;
	r.src_l2 = l2v(at, 192, 48);
	return r;
}

/* x [2,4,24] copied into L2 memory at byte `at` (t[0]), then relu of it from there (t[1]) */
static void relu_of_x_from_l2(struct bp_pe_spec *t, uint32_t at, uint8_t dst)
{
	t[0] = bp_pe_copy(2, 4, 24, 5, 0);
	t[0].res_l2 = l2v(at, 192, 48);
	t[1] = relu_from_l2(at, dst);
}

/*
 * Plain L2 memory (SourceType 0, a second operand or a normalize's pair from L2, a reduction's rows
 * there): the model keeps a bit for every value a TD of the submission wrote and refuses a read of
 * any other ("... reads L2 memory no TD of this submission wrote"); inspect printed each TD with no
 * knowledge of the TDs before, so it printed those reads as computed (docs/engine-model.md, "Left
 * unmarked"). Its walks now follow the same bits (fw/td l2written.c, td_print_op_walk) and mark the
 * TD with the model's text and the first byte no TD wrote. Each read is checked at a base where the
 * TD before wrote and at one 16 bytes (8 values) on, past the end of what it wrote, or elsewhere.
 */
TEST(model_agree, l2_memory_no_td_wrote_marked)
{
	struct bp_pe_spec t[3];
	const struct bp_pe_spec *p[3] = {&t[0], &t[1], &t[2]};
	/* z [1,4,24] copied into L2 at 0x100 (4 rows of 48 bytes), then x + z from L2 (broadcast C) */
	x_plus_z_from_l2(t);
	agree_n("x + z, z where TD 0 wrote it", p, 2, NULL);
	t[1].src2_l2.base = 0x110;
	agree_n("x + z, z 8 values past where TD 0 wrote", p, 2,
		"the second operand reads L2 memory no TD of this submission wrote");
	CHECKF(strstr(itext, "  L2 memory: reads byte 0x1c0, which no TD before it wrote (not modelled: "
			     "the second operand reads L2 memory no TD of this submission wrote)\n"),
	       "%s", itext);
	/* x [2,4,24] copied into L2 at 0x1000, then relu of it read from L2 (SourceType 0) */
	relu_of_x_from_l2(t, 0x1000, 4);
	agree_n("relu of x from L2", p, 2, NULL);
	t[1].src_l2.base = 0x1010;
	agree_n("relu of x from L2, 8 values on", p, 2,
		"the first operand reads L2 memory no TD of this submission wrote");
	t[1].src_l2.base = 0x3000;
	agree_n("relu of x from where no TD wrote", p, 2,
		"the first operand reads L2 memory no TD of this submission wrote");
	/* the NE's channel maxima (UnicastCin 16) of x [16,2,8] from L2 */
	t[0] = bp_pe_copy(16, 2, 8, 5, 0);
	t[0].res_l2 = l2v(0, 16, 256);
	t[1] = bp_pe_copy(16, 2, 8, 0, 4);
	t[1].prescale = t[1].scale = 0;
	t[1].finalscale = 0;
	t[1].ne_chmax = 16;
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2v(0, 16, 256);
	agree_n("the channel maxima from L2", p, 2, NULL);
	t[1].src_l2.base = 0x10;
	agree_n("the channel maxima from L2, 8 values on", p, 2,
		"the first operand reads L2 memory no TD of this submission wrote");
	/* x [4,1,16]'s mean into L2 at 0x1000 (TD 0), a mean of rows of L2 memory x kept at 0x2000 */
	t[0] = bp_pe_copy(4, 1, 16, 5, 0);
	t[0].res_l2 = l2v(0x2000, 32, 32);
	t[1] = mean_into_l2();
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2v(0x2000, 32, 32);
	agree_n("the mean of x from L2", p, 2, NULL);
	t[1].src_l2.base = 0x2010;
	agree_n("the mean of x from L2, 8 values on", p, 2,
		"a reduction reads L2 memory no TD of this submission wrote");
	/* a normalize's pair: p0 the mean TD 0 left at 0x1000, p1 a row stride (0x400) on, where TD 1's
	 * mean lies (l2_memory_and_reduction_refusals_marked's control); without TD 1, unwritten */
	normalize_three(t);
	agree_n("a normalize", p, 3, NULL);
	const struct bp_pe_spec *q[2] = {&t[0], &t[2]};
	agree_n("a normalize whose p1 no TD wrote", q, 2,
		"a normalize's pair reads L2 memory no TD of this submission wrote");
	CHECKF(strstr(itext, "  L2 memory: reads byte 0x1400, which no TD before it wrote"), "%s", itext);
}

/*
 * Seventh review: a TD whose read of L2 memory no TD wrote the model refuses (the model stops
 * there, writing nothing after) wrote its own result into inspect's bookkeeping all the same, so
 * a later TD reading that result was printed as reading what a TD wrote. Now the refused TD
 * writes nothing there: x copied into L2 at 0x3000 (TD 0), relu of it from L2 into L2 at 0x1000
 * (TD 1), relu of that out by DMA (TD 2). The control computes, unmarked; with TD 1 reading 8
 * values past what TD 0 wrote, the model refuses TD 1 and inspect marks TD 1 and TD 2 (before:
 * TD 1 only).
 */
TEST(model_agree, a_refused_l2_read_writes_nothing_for_the_tds_after)
{
	struct bp_pe_spec t[3];
	const struct bp_pe_spec *p[3] = {&t[0], &t[1], &t[2]};
	relu_of_x_from_l2(t, 0x3000, 0);
	t[1].res_l2 = l2v(0x1000, 192, 48);
	t[2] = relu_from_l2(0x1000, 4);
	agree_n("relu of relu through L2 memory", p, 3, NULL);
	t[1].src_l2.base = 0x3010;
	agree_n("TD 1 reading 8 values past what TD 0 wrote", p, 3,
		"the first operand reads L2 memory no TD of this submission wrote");
	const char *first = strstr(itext, "which no TD before it wrote");
	CHECKF(first && strstr(first + 1, "  L2 memory: reads byte 0x1000, which no TD before it wrote"),
	       "TD 2 reads what the refused TD 1 would have written, unmarked:\n%s", itext);
}

/*
 * inspect's walk over L2 memory is bounded (fw/td TD_L2_WALK_MAX, 2^24 values a TD, one a row
 * along a broadcast W): fuzz_agree's first run timed out on an attention mutant whose walk took
 * every element's address, 3 s at -O2 for eleven TDs of 458,752 values. Past the bound the walk
 * says so on that TD, unmarked, and follows nothing after. Here TD 1 reads one value TD 0 wrote,
 * broadcast along C, H and W, for 2^25 rows (2048 x 16384 x 1); the control, 2^10 rows, is
 * followed (no such line, unmarked).
 */
TEST(model_agree, l2_memory_walk_bounded)
{
	struct bp_pe_spec t[2];
	const struct bp_pe_spec *p[2] = {&t[0], &t[1]};
	t[0] = bp_pe_copy(1, 1, 1, 6, 0);
	t[0].res_l2 = l2v(0, 16, 16);
	t[1] = bp_pe_copy(64, 16, 1, 0, 4);
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2v(0, 16, 16);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W | H13_BCAST_H | H13_BCAST_C);
	agree_n("a broadcast value, 1024 rows", p, 2, NULL);
	CHECKF(!strstr(itext, "values read and written here"), "%s", itext);
	t[1] = bp_pe_copy(2048, 16384, 1, 0, 4);
	t[1].l2_src = BP_L2_READ;
	t[1].src_l2 = l2v(0, 16, 16);
	t[1].pecfg = H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_W | H13_BCAST_H | H13_BCAST_C);
	const size_t len = bp_pen(nprog, sizeof nprog, p, 2);
	REQUIRE(len > 0);
	const char *text = inspect(nprog, len);
	CHECKF(strstr(text, "  L2 memory: more than 16777216 values read and written here: what this TD and the TDs "
			    "after it read of L2 memory is not checked against what the TDs before wrote\n") &&
		       !strstr(text, "not modelled"),
	       "%s", text);
}

/*
 * Common.ConvCfg.Ox 2 in the form Apple's depthwise 1x9 pins (docs/engine-model.md, "Ox 2
 * computes"; fw/td td_ox_refusal, td_dw_kel, td_l2mem_of's Ox x Wout result): benchprog's
 * bp_dwox2 (a depthwise 1x9, Sx 2, Px 4, Ox 2, its 2 x Wout columns kept in L2 memory, then the
 * first W copied out) completes and inspect marks nothing, TD 1's read of L2 memory included;
 * Ox 3, Oy 2, Ox 2 with Sx 1, on a dense convolution, with Kh 3 or with the result L2-resident
 * are refused and inspect carries the same text. Before, the model refused Ox 2 at any form and
 * inspect marked TD 1's read of the columns past Wout as L2 memory no TD wrote. The eighth review:
 * Ox x Wout past the model's rows (32768 values) refused by name by both (the model wrote the row
 * past its buffers), a row of 32768 computing unmarked.
 */
static uint8_t ox_prog[2 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 4096];
static void ox_agree(const char *what, unsigned td, uint32_t reg, unsigned lsb, unsigned width, uint32_t v,
		     const char *want)
{
	static uint16_t rec[32 * 22];
	for (unsigned i = 0; i < 32 * 22; i++)
		rec[i] = (uint16_t)(i % 7 ? 0x3400u : 0xb800u);
	const size_t len = bp_dwox2(ox_prog, sizeof ox_prog, 32, 15, 9, 4, rec, 1);
	REQUIRE(len > 0);
	if (width)
		CHECK(tpatch_field(ox_prog, len, td, reg, lsb, width, v) == 0);
	agree_in(what, ox_prog, len, want);
}

TEST(model_agree, ox_2_in_apples_depthwise_form_computes_and_other_forms_are_marked)
{
	ox_agree("Ox 2 as Apple's 1x9", 0, 0, 0, 0, 0, NULL);
	ox_agree("Ox 3", 0, H13_COMMON_CONVCFG, H13_CONVCFG_OX_LSB, H13_CONVCFG_OX_W, 3,
		 "Common.ConvCfg.Ox other than 1 or 2 not modelled");
	ox_agree("Oy 2", 0, H13_COMMON_CONVCFG, H13_CONVCFG_OY_LSB, H13_CONVCFG_OY_W, 2,
		 "Common.ConvCfg.Oy other than 1 not modelled");
	ox_agree("Ox 2 with Sx 1", 0, H13_COMMON_CONVCFG, H13_CONVCFG_SX_LSB, H13_CONVCFG_SX_W, 1,
		 "Common.ConvCfg.Ox 2 without Sx 2 and Sy 1 not modelled");
	ox_agree("Ox 2 on a dense convolution", 0, H13_COMMON_GROUPCONVCFG, 0, 32, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1),
		 "Common.ConvCfg.Ox 2 other than on a depthwise convolution");
	ox_agree("Ox 2 with Kh 3", 0, H13_COMMON_CONVCFG, H13_CONVCFG_KH_LSB, H13_CONVCFG_KH_W, 3,
		 "Common.ConvCfg.Ox 2 with Kh other than 1 or Py above 0 not modelled");
	ox_agree("Ox 2 with an L2-resident result", 0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W,
		 H13_L2_RESIDENT, "Common.ConvCfg.Ox 2 with the result other than kept in L2 memory alone");
	ox_agree("Ox 2 with Kw 1", 0, H13_COMMON_CONVCFG, H13_CONVCFG_KW_LSB, H13_CONVCFG_KW_W, 1,
		 "Common.ConvCfg.Ox 2 with Kw 1 not modelled"); /* (the eighth review) */
	/* the eighth review: Ox x Wout past the model's rows of 32768 values (16 channels of 32767,
	 * Px 8: Wout 16388), and its control at 32768 (Px 4: Wout 16384) */
	static uint16_t rec[16 * 22];
	for (unsigned i = 0; i < 16 * 22; i++)
		rec[i] = (uint16_t)(i % 7 ? 0x3400u : 0xb800u);
	size_t len = bp_dwox2(ox_prog, sizeof ox_prog, 16, 32767, 9, 4, rec, 1);
	REQUIRE(len > 0);
	agree_in("Ox 2 with a row of 32768", ox_prog, len, NULL);
	len = bp_dwox2(ox_prog, sizeof ox_prog, 16, 32767, 9, 8, rec, 1);
	REQUIRE(len > 0);
	agree_in("Ox 2 with a row of 32776", ox_prog, len,
		 "Common.ConvCfg.Ox 2 with Ox x Common.OutDim.Wout over 32768 columns a row");
}
