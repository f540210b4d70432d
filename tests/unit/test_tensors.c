/*
 * Intermediate buffers and tensor descriptions (issue 14 item 1, issue 13 "Running programs on
 * data"): a mkprog program whose second TD reads the first TD's output gets that BAR as an
 * intermediate (read-write, in place, the extent its TDs declare) in the default grants, as a raw
 * stream and as a container whose BAR table addresses it with no window, and runs; a program
 * that reads intermediate bytes no earlier TD wrote, or whose intermediate is too large, is
 * refused by name. fw/tensors names, roles, shapes and layouts; barN addressing; app/tensorio's
 * placing and gathering through a padded layout; its argument errors; and a run whose inputs
 * and outputs go through the hooks.
 */
#include "app/tensorio.h"
#include "fw/common/fp16.h"
#include "fw/ctrl/ctrl.h"
#include "fw/tensors/tensors.h"
#include "tests/harness/harness.h"
#include "tests/unit/tsession.h"
#include "fw/common/le.h"
#include "fw/td/td.h"
#include "fw/loader/hwx_write.h"
#include "tools/progdesc/benchprog.h"
#include "tools/progdesc/progdesc.h"
#include "tests/unit/toracle.h"
#include "hal/hal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char chain_desc[] = "input w=8 h=2 c=16\n"
				 "layer int8 cout=32\n"
				 "activation relu from=prev\n";

static uint8_t buf[1 << 16];

static size_t build(const char *desc, int hwx)
{
	static struct pd_desc d;
	unsigned line;
	size_t len = 0;
	if (pd_parse(desc, strlen(desc), &d, &line) != PD_OK)
		return 0;
	if ((hwx ? pd_build_hwx(&d, buf, sizeof buf, &len) : pd_build(&d, buf, sizeof buf, &len)) !=
	    PD_OK)
		return 0;
	return len;
}

static const struct subq_grant *grant_of(const struct subq_grant *g, unsigned n, unsigned bar)
{
	for (unsigned i = 0; i < n; i++)
		if (g[i].bar == bar)
			return &g[i];
	return NULL;
}

TEST(tensors, intermediate_granted_read_write_in_place)
{
	static struct ldr_program p;
	for (int hwx = 0; hwx < 2; hwx++) {
		size_t len = build(chain_desc, hwx);
		REQUIRE(len > 0);
		REQUIRE(ldr_load(buf, len, hwx ? LDR_F_HWX : LDR_F_RAW, &p) == LDR_OK);
		struct subq_grant g[SUBQ_MAX_GRANTS];
		struct ctrl_status st;
		unsigned n = 0;
		REQUIRE(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &n, &st) == CTRL_OK && n > 0);
		const struct subq_grant *in = grant_of(g, n, PD_INPUT_BAR);
		const struct subq_grant *itm = grant_of(g, n, PD_FIRST_OUTPUT_BAR);
		const struct subq_grant *out = grant_of(g, n, PD_FIRST_OUTPUT_BAR + 1);
		REQUIRE(in && itm && out);
		CHECK_EQ(in->access, POL_READ);
		CHECK_EQ(out->access, POL_WRITE);
		CHECK_EQ(itm->access, POL_RW);
		CHECK_EQ(itm->flags, POL_FLAG_IN_PLACE);
		CHECK_EQ(in->flags, 0u);
		/* 32 planes of 2 rows of 64 bytes: the extent TD 0 writes and TD 1 reads */
		CHECK_EQ(itm->size, 32u * 2 * 64);
		CHECK_EQ(in->size, 16u * 2 * 64);
		/* the container declares no window for it, but its BAR table addresses it */
		if (hwx) {
			CHECK_EQ(p.nwindows, 2u);
			for (unsigned w = 0; w < p.nwindows; w++)
				CHECK(p.windows[w].bar != (int)PD_FIRST_OUTPUT_BAR);
			CHECK(p.bars[PD_FIRST_OUTPUT_BAR] != 0);
			CHECK_EQ(itm->dva, p.bars[PD_FIRST_OUTPUT_BAR]);
		}
		/* the submission runs with them: the intermediate is zeroed, then written and read */
		struct session_result res;
		int rc = tsubmit(buf, len, hwx ? LDR_F_HWX : LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL,
				 NULL, &res);
		CHECKF(rc == 0, "%s: %s", hwx ? "hwx" : "raw", session_result_name(&res));
		CHECK(res.canaries_ok);
		/* without the in-place flag the same grants are refused: output-overlaps-input */
		for (unsigned i = 0; i < n; i++)
			g[i].flags = 0;
		rc = tsubmit(buf, len, hwx ? LDR_F_HWX : LDR_F_RAW, g, n, 0, 0, tnull_out,
			     NULL, NULL, &res);
		CHECK_EQ(rc, 1);
		CHECK_STR(session_result_name(&res), "output-overlaps-input");
		/* named by the write that overlaps a read: TD 0's, into the intermediate */
		CHECK_EQ(res.st.td, 0);
		CHECK_EQ(res.st.bar, (int)PD_FIRST_OUTPUT_BAR);
	}
}

/* Sets register reg of TD td (its value word in the TD area) to v. */
static int patch_reg(const struct ldr_program *p, unsigned td, uint32_t reg, uint32_t v)
{
	uint32_t off;
	if (!twrite_offsets(p, td, reg, &off, 1))
		return -1;
	le_wr32(buf + p->td_area_off + off, v);
	return 0;
}

TEST(tensors, conflicting_and_overflowing_intermediates_refused)
{
	static struct ldr_program p;
	for (int hwx = 0; hwx < 2; hwx++) {
		unsigned fl = hwx ? LDR_F_HWX : LDR_F_RAW;
		struct subq_grant g[SUBQ_MAX_GRANTS];
		struct ctrl_status st;
		struct session_result res;
		unsigned ng = 0;
		/* TD 1 reads 33 planes of the intermediate, TD 0 wrote 32 */
		size_t len = build(chain_desc, hwx);
		REQUIRE(len > 0);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		REQUIRE(patch_reg(&p, 1, H13_COMMON_CIN, 33) == 0);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		CHECK_EQ(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &ng, &st), st.err);
		CHECK(st.err != CTRL_OK);
		CHECK_STR(ctrl_status_name(&st), "intermediate-extent-conflict");
		CHECK_EQ(st.td, 1);
		CHECK_EQ(st.bar, (int)PD_FIRST_OUTPUT_BAR);
		CHECK_EQ(st.kind, TD_R_SRC0);
		CHECK_EQ(tsubmit(buf, len, fl, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
		CHECK_STR(session_result_name(&res), "intermediate-extent-conflict");
		/* TD 1 reads at an offset: the bytes past TD 0's 32 planes */
		len = build(chain_desc, hwx);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		REQUIRE(patch_reg(&p, 1, H13_SRC_BASEADDR, 0x40) == 0);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		CHECK_EQ(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &ng, &st), st.err);
		CHECK(st.err != CTRL_OK);
		CHECK_STR(ctrl_status_name(&st), "intermediate-extent-conflict");
		/* TD 0 reads what it writes itself: nothing wrote it before */
		len = build("input w=8 h=2 c=16\nlayer int8 cout=16\n", hwx);
		REQUIRE(len > 0);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		/* RBase0 := WBase's BAR (header word 8, bits 0-4) */
		uint32_t w8 = le_rd32(buf + p.td_area_off + 32);
		w8 = (w8 & ~0x1fu) | PD_FIRST_OUTPUT_BAR;
		le_wr32(buf + p.td_area_off + 32, w8);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		if (hwx) {
			/* there BAR 6 is a declared output window: not an intermediate, and reading
			 * it is refused by the plan */
			CHECK(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &ng, &st) == CTRL_OK && ng > 0);
			CHECK_EQ(tsubmit(buf, len, fl, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
			CHECK_STR(session_result_name(&res), "access-not-granted");
		} else {
			CHECK_EQ(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &ng, &st), st.err);
		CHECK(st.err != CTRL_OK);
			CHECK_STR(ctrl_status_name(&st), "intermediate-extent-conflict");
			CHECK_EQ(st.td, 0);
		}
		/* TD 0 writes its 32 planes 64 MiB apart: a 2 GiB intermediate */
		len = build(chain_desc, hwx);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		REQUIRE(patch_reg(&p, 0, H13_DST_PLANESTRIDE, 0x3ffffc0) == 0);
		REQUIRE(ldr_load(buf, len, fl, &p) == LDR_OK);
		CHECK_EQ(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &ng, &st), st.err);
		CHECK(st.err != CTRL_OK);
		CHECK_STR(ctrl_status_name(&st), "intermediate-extent-overflow");
		CHECK_EQ(st.bar, (int)PD_FIRST_OUTPUT_BAR);
		CHECK_EQ(tsubmit(buf, len, fl, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
		CHECK_STR(session_result_name(&res), "intermediate-extent-overflow");
	}
	CHECK_STR(ctrl_err_name(CTRL_E_ITM_OVERFLOW), "intermediate-extent-overflow");
}

/* A raw stream whose kernel DMA reads BAR 6 (Apple's batched matmul, benchprog's bp_bmm): the
 * kernels are a runtime input, granted the extent the coefficient channels read, and a flat
 * tensor; BAR 1 is a raw stream's weights, so the same kernels read there lie outside them */
TEST(tensors, kernels_from_a_runtime_bar_are_an_input)
{
	static struct ldr_program p;
	static struct tns_tensor t[TNS_MAX];
	static uint16_t wc[2 * 40 * 48];
	struct bp_bmm_spec spec = {2, 24, 40, 48, 16, 6, 1, NULL, 0};
	size_t len = bp_bmm(buf, sizeof buf, &spec);
	REQUIRE(len > 0);
	REQUIRE(ldr_load(buf, len, LDR_F_RAW, &p) == LDR_OK);
	CHECK(!ldr_td_kernels_in_weights(&p, 0) && !ldr_weights_bar(&p, 6) && ldr_weights_bar(&p, 1));
	struct subq_grant g[SUBQ_MAX_GRANTS];
	struct ctrl_status st;
	unsigned n = 0;
	REQUIRE(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &n, &st) == CTRL_OK);
	const struct subq_grant *k = grant_of(g, n, 6);
	REQUIRE(k != NULL);
	CHECK_EQ(k->access, POL_READ);
	CHECK_EQ(k->size, 48u * 128u); /* 2 x 24 rows of x, 40 fp16 in 128 bytes */
	CHECK(grant_of(g, n, 1) == NULL);
	REQUIRE(tns_describe(&p, t, TNS_MAX, &n, &st) == TNS_OK);
	REQUIRE(n == 3);
	CHECK_STR(t[2].name, "bar6");
	CHECK_EQ(t[2].role, TNS_INPUT);
	CHECK_EQ(t[2].fmt, H13_FMT_FP16);
	CHECK(t[2].flat && t[2].nelem == 48u * 64u);
	CHECK(!t[1].flat && t[1].shape[0] == 80u && t[1].shape[2] == 48u); /* w, [B K, 1, N] */
	/* TD 0's KBase0 on BAR 1: a raw stream's weights, of which this one has none */
	uint32_t hw[H13_TD_HEADER_WORDS];
	struct td_hdr h;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		hw[i] = le_rd32(buf + 4 * i);
	td_hdr_decode(hw, &h);
	h.bar_idx[H13_BAR_KBASE0] = LDR_RAW_WEIGHTS_BAR;
	td_hdr_encode(&h, hw);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		le_wr32(buf + 4 * i, hw[i]);
	CHECK_STR(ldr_err_name(ldr_load(buf, len, LDR_F_RAW, &p)), "coeff_outside_weights");
	/* w the program's constant, read by the tile DMA through BAR 1: the weights, not a tensor */
	spec.wconst = wc;
	len = bp_bmm(buf, sizeof buf, &spec);
	REQUIRE(len > 0);
	REQUIRE(ldr_load(buf, len, LDR_F_RAW, &p) == LDR_OK);
	REQUIRE(ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &n, &st) == CTRL_OK);
	const struct subq_grant *w1 = grant_of(g, n, LDR_RAW_WEIGHTS_BAR);
	REQUIRE(w1 != NULL);
	CHECK(w1->access == POL_READ && w1->size == p.weights_len && p.weights_len == 80u * 128u);
	REQUIRE(tns_describe(&p, t, TNS_MAX, &n, &st) == TNS_OK);
	CHECK(n == 2 && t[0].bar == 4 && t[1].bar == 6);
}

TEST(tensors, described_with_roles_shapes_and_names)
{
	static struct ldr_program p;
	static struct tns_tensor t[TNS_MAX];
	unsigned n;
	struct ctrl_status st;
	for (int hwx = 0; hwx < 2; hwx++) {
		size_t len = build(chain_desc, hwx);
		REQUIRE(len > 0);
		REQUIRE(ldr_load(buf, len, hwx ? LDR_F_HWX : LDR_F_RAW, &p) == LDR_OK);
		REQUIRE(tns_describe(&p, t, TNS_MAX, &n, &st) == TNS_OK);
		REQUIRE(n == 3);
		/* BAR order: the input (5), the intermediate (6), the output (7) */
		CHECK_STR(t[0].name, hwx ? "input" : "bar5");
		CHECK_STR(t[1].name, "bar6");
		CHECK_STR(t[2].name, hwx ? "output_0" : "bar7");
		CHECK_EQ(t[0].role, TNS_INPUT);
		CHECK_EQ(t[1].role, TNS_INTERMEDIATE);
		CHECK_EQ(t[2].role, TNS_OUTPUT);
		CHECK_STR(tns_role_name(t[1].role), "intermediate");
		for (unsigned i = 0; i < 3; i++) {
			CHECK_EQ(t[i].fmt, H13_FMT_FP16);
			CHECK_STR(tns_dtype_name(t[i].fmt), "float16");
			CHECK_EQ(t[i].ndim, 3u);
			CHECK_EQ(t[i].shape[0], i ? 32u : 16u);
			CHECK_EQ(t[i].shape[1], 2u);
			CHECK_EQ(t[i].shape[2], 8u);
			CHECK_EQ(t[i].row, 64u);
			CHECK_EQ(t[i].plane, 128u);
			CHECK_EQ(t[i].bytes, t[i].shape[0] * 128u);
			CHECK(!t[i].flat);
		}
		/* barN always addresses a tensor; names only their own */
		CHECK_EQ(tns_find(t, n, "bar5", 4), 0);
		CHECK_EQ(tns_find(t, n, "bar7", 4), 2);
		CHECK_EQ(tns_find(t, n, hwx ? "output_0" : "bar7", hwx ? 8 : 4), 2);
		CHECK_EQ(tns_find(t, n, "bar05", 5), -1);
		CHECK_EQ(tns_find(t, n, "bar1", 4), -1); /* the weights are no tensor */
		CHECK_EQ(tns_find(t, n, "bar", 3), -1);
		CHECK_EQ(tns_find(t, n, "barx", 4), -1);
		CHECK_EQ(tns_find(t, n, "bar999", 6), -1);
		CHECK_EQ(tns_find(t, n, "inputs", 6), -1);
	}
	/* a window whose naming command is gone: unnamed, listed and addressed as barN */
	size_t len = build(chain_desc, 1);
	REQUIRE(len > 0);
	unsigned unnamed = 0;
	for (uint32_t k = 0, off = 32; k < le_rd32(buf + 16) && off + 8 <= len; k++) {
		uint32_t cmd = le_rd32(buf + off), size = le_rd32(buf + off + 4);
		if (cmd == 0x6 && size > 12 && off + le_rd32(buf + off + 8) + 8 <= len &&
		    !memcmp(buf + off + le_rd32(buf + off + 8), "output_0", 8)) {
			le_wr32(buf + off, 0x7fff); /* a command the loader skips */
			unnamed++;
		}
		off += size;
	}
	REQUIRE(unnamed == 1);
	REQUIRE(ldr_load(buf, len, LDR_F_HWX, &p) == LDR_OK);
	REQUIRE(tns_describe(&p, t, TNS_MAX, &n, &st) == TNS_OK);
	REQUIRE(n == 3);
	CHECK_STR(t[0].name, "input");
	CHECK_STR(t[2].name, "bar7");
	CHECK_EQ(t[2].role, TNS_OUTPUT);
	CHECK_EQ(tns_find(t, n, "bar7", 4), 2);
	CHECK_EQ(tns_find(t, n, "output_0", 8), -1);
	/* too small an array, and a program whose grants cannot be derived */
	CHECK_EQ(tns_describe(&p, t, 2, &n, &st), TNS_E_TOO_MANY);
	REQUIRE(patch_reg(&p, 0, H13_DST_PLANESTRIDE, 0x3ffffc0) == 0);
	REQUIRE(ldr_load(buf, build(chain_desc, 1), LDR_F_HWX, &p) == LDR_OK);
	REQUIRE(patch_reg(&p, 0, H13_DST_PLANESTRIDE, 0x3ffffc0) == 0);
	CHECK_EQ(tns_describe(&p, t, TNS_MAX, &n, &st), TNS_E_GRANTS);
	CHECK_STR(ctrl_status_name(&st), "intermediate-extent-overflow");
	CHECK_EQ(tns_describe(NULL, t, TNS_MAX, &n, &st), TNS_E_ARG);
}

/* A padded layout (rows of 77 fp16 in 192 bytes, as relu.hwx): placing a dense array and
 * gathering it back gives the same elements; the padding stays zero; the seeded fill is the same
 * every time and has no NaN or infinity. */
TEST(tensors, place_and_gather_through_padding)
{
	struct tns_tensor t;
	memset(&t, 0, sizeof t);
	strcpy(t.name, "x");
	t.bar = 5;
	t.role = TNS_INPUT;
	t.fmt = H13_FMT_FP16;
	t.elem = 2;
	t.ndim = 3;
	t.shape[0] = t.dim[TNS_C] = 3;
	t.shape[1] = t.dim[TNS_H] = 2;
	t.shape[2] = t.dim[TNS_W] = 77;
	t.dim[TNS_G] = t.dim[TNS_D] = 1;
	t.nelem = 3 * 2 * 77;
	t.row = 192;
	t.plane = 384;
	t.bytes = 3 * 384;
	static uint8_t dense[3 * 2 * 77 * 2], back[sizeof dense], mem[3 * 384], mem2[3 * 384];
	for (unsigned i = 0; i < t.nelem; i++)
		le_wr16(dense + 2 * i, fp16_from_scaled((int64_t)i, -4));
	struct npy_array a;
	memset(&a, 0, sizeof a);
	a.dtype = NPY_F16;
	a.ndim = 1;
	a.shape[0] = a.nelem = t.nelem;
	a.data = dense;
	a.data_len = sizeof dense;
	memset(mem, 0xee, sizeof mem);
	tio_place(&t, &a, NULL, 0, mem, sizeof mem);
	CHECK_EQ(le_rd16(mem + 192 + 2 * 5), le_rd16(dense + 2 * (77 + 5))); /* row 1, column 5 */
	CHECK_EQ(le_rd16(mem + 384), le_rd16(dense + 2 * 154));               /* plane 1 */
	for (unsigned b = 154; b < 192; b++)
		CHECK_EQ(mem[b], 0u); /* row padding */
	tio_gather(&t, mem, sizeof mem, back);
	CHECK_MEM(back, dense, sizeof dense);
	/* the checker sees a wrong element */
	mem[2 * 384 + 192 + 2 * 76] ^= 1; /* the last element */
	tio_gather(&t, mem, sizeof mem, back);
	CHECK(memcmp(back, dense, sizeof dense) != 0);
	CHECK_EQ(memcmp(back, dense, sizeof dense - 2), 0);
	/* the seeded fill: deterministic, finite, padding zero */
	tio_place(&t, NULL, NULL, 0, mem, sizeof mem);
	tio_place(&t, NULL, NULL, 0, mem2, sizeof mem2);
	CHECK_MEM(mem, mem2, sizeof mem);
	unsigned nonzero = 0;
	tio_gather(&t, mem, sizeof mem, back);
	for (unsigned i = 0; i < t.nelem; i++) {
		uint16_t h = le_rd16(back + 2 * i);
		CHECK((h & 0x7c00) != 0x7c00);
		nonzero += h != 0;
	}
	CHECK(nonzero > t.nelem / 2);
	CHECK_EQ(mem[160], 0u);
	/* another BAR, another seed */
	t.bar = 6;
	tio_place(&t, NULL, NULL, 0, mem2, sizeof mem2);
	CHECK(memcmp(mem, mem2, sizeof mem) != 0);
	/* a raw file is the buffer itself */
	tio_place(&t, NULL, dense, 100, mem, sizeof mem);
	CHECK_MEM(mem, dense, 100);
	CHECK_EQ(mem[100], 0u);
	/* an element past a smaller buffer is left out, not written */
	memset(mem, 0, sizeof mem);
	tio_place(&t, &a, NULL, 0, mem, 200);
	CHECK_EQ(mem[200], 0u);
}

TEST(tensors, io_arguments_named)
{
	struct tio_req r;
	CHECK_EQ(tio_parse_req("image=/tmp/x.npy", 16, 0, &r), TIO_OK);
	CHECK_STR(r.name, "image");
	CHECK_STR(r.path, "/tmp/x.npy");
	CHECK_EQ(r.out, 0);
	CHECK_EQ(tio_parse_req("bar4=a=b", 8, 1, &r), TIO_OK); /* the first '=' splits */
	CHECK_STR(r.path, "a=b");
	CHECK_EQ(r.out, 1);
	CHECK_EQ(tio_parse_req("image", 5, 0, &r), TIO_E_ARG);
	CHECK_EQ(tio_parse_req("=x.npy", 6, 0, &r), TIO_E_ARG);
	CHECK_EQ(tio_parse_req("image=", 6, 0, &r), TIO_E_ARG);
	CHECK_EQ(tio_parse_req("a\0b=x", 5, 0, &r), TIO_E_ARG);
	static char longp[TIO_MAX_PATH + 8];
	memset(longp, 'p', sizeof longp - 1);
	longp[0] = 'n';
	longp[1] = '=';
	CHECK_EQ(tio_parse_req(longp, strlen(longp), 0, &r), TIO_E_ARG);
	CHECK_EQ(tio_parse_req(NULL, 0, 0, &r), TIO_E_ARG);
	CHECK_STR(tio_err_name(TIO_E_ARG), "io-bad-argument");
	CHECK_STR(tio_err_name(TIO_E_NOT_INPUT), "tensor-not-an-input");
	CHECK_STR(tio_err_name((enum tio_err)99), "unknown-io-error");
}


/* Requests resolved against the tensors: every refusal named, nothing read for a bad one. */
/* --rtol/--atol (rtol=/atol=): decimals 0 .. 1e6 parse, anything else is tolerance-bad; the
 * comparison is numpy's allclose, |y - r| <= atol + rtol x |r|, NaN matching NaN and an infinity
 * the same infinity. The checker's own test: a value just outside fails it. */
TEST(tensors, reference_tolerances_parsed_and_applied)
{
	static const struct {
		const char *s;
		double v;
	} ok[] = {{"0", 0.0}, {"2e-2", 0.02}, {"0.012", 0.012}, {".5", 0.5}, {"1E+3", 1000.0},
		  {"1e6", 1e6}, {"3.", 3.0}, {"000001e-0", 1.0}};
	for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		double v = -1.0;
		enum tio_err e = tio_parse_tol(ok[i].s, strlen(ok[i].s), &v);
		double d = v - ok[i].v, m = ok[i].v > 1.0 ? ok[i].v : 1.0;
		CHECKF(e == TIO_OK && d * d <= 1e-24 * m * m, "'%s' gave %g", ok[i].s, v);
	}
	static const char *const bad[] = {"", "-1", "+1", "x", "1e", "1e+", "e5", ".", "1.0.0", "1e7",
					  "1000001", "nan", "inf", "0x10", "1 ", " 1", "1e-999999",
					  "123456789012345678901234"};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double v = 0.0;
		CHECKF(tio_parse_tol(bad[i], strlen(bad[i]), &v) == TIO_E_TOL, "'%s' accepted", bad[i]);
	}
	CHECK_STR(tio_err_name(TIO_E_TOL), "tolerance-bad");
	struct tio_tol t;
	CHECK_EQ(tio_tol_make(NULL, NULL, &t), TIO_OK);
	CHECK_EQ(t.set, 0);
	CHECK_EQ(tio_tol_make("2e-2", NULL, &t), TIO_OK);
	CHECK(t.set && t.atol == 0.0 && !strcmp(t.rtol_s, "2e-2") && !strcmp(t.atol_s, "0"));
	CHECK_EQ(tio_tol_make("2e-2", "x", &t), TIO_E_TOL);
	/* outputs against references (fp16 bits): 1.0 vs 1.0625 (|d| 0.0625), 2.0 vs 2.0, NaN vs
	 * NaN, +inf vs +inf, 0 vs 0.001 (0x1419) */
	static const uint16_t y[5] = {0x3c00, 0x4000, 0x7e00, 0x7c00, 0x0000};
	static const uint16_t r[5] = {0x3c40, 0x4000, 0x7e00, 0x7c00, 0x1419};
	uint8_t yb[10], rb[10];
	for (unsigned i = 0; i < 5; i++) {
		le_wr16(yb + 2 * i, y[i]);
		le_wr16(rb + 2 * i, r[i]);
	}
	double err;
	uint64_t outside;
	/* 0.0625 <= 0.0 + 0.0625 x 1.0625 (0.0664): in; 0.001 <= 0.002: in */
	tio_compare_tol(yb, rb, 5, 0.0625, 0.002, &err, &outside);
	CHECK_EQ(outside, 0u);
	CHECK(err == 0.0625);
	/* the negative: rtol 0.05 leaves 1.0 vs 1.0625 out (0.0625 > 0.002 + 0.053) */
	tio_compare_tol(yb, rb, 5, 0.05, 0.002, &err, &outside);
	CHECK_EQ(outside, 1u);
	/* atol 0 leaves 0 vs 0.001 out too */
	tio_compare_tol(yb, rb, 5, 0.0625, 0.0, &err, &outside);
	CHECK_EQ(outside, 1u);
	/* a NaN against a number, an infinity against a finite reference or the other infinity */
	static const uint16_t y2[3] = {0x7e00, 0x7c00, 0xfc00}, r2[3] = {0x3c00, 0x7bff, 0x7c00};
	for (unsigned i = 0; i < 3; i++) {
		le_wr16(yb + 2 * i, y2[i]);
		le_wr16(rb + 2 * i, r2[i]);
	}
	tio_compare_tol(yb, rb, 3, 1e6, 1e6, &err, &outside);
	CHECK_EQ(outside, 3u);
}

/* The default rule with an infinity in the reference: the tolerance is one ulp of the largest
 * FINITE |reference| (an infinite one made it infinite, so anything passed), and an infinite
 * reference is matched only by the same infinity. Values (fp16 bits, numpy: max(1, 1000)/1024 =
 * 0.9765625): references +inf, 1000, 2, -inf; the outputs below. */
TEST(tensors, default_tolerance_ignores_infinite_references)
{
	static const uint16_t r[4] = {0x7c00, 0x63d0, 0x4000, 0xfc00};
	/* the control: equal infinities, 1000 exact, 2 vs 2.5 (0.5 within 0.977) */
	static const uint16_t good[4] = {0x7c00, 0x63d0, 0x4100, 0xfc00};
	/* 2 vs 7 (5 > 0.977): a finite error over the finite scale */
	static const uint16_t far[4] = {0x7c00, 0x63d0, 0x4700, 0xfc00};
	/* +inf against -inf, and a finite value against +inf */
	static const uint16_t sign[4] = {0xfc00, 0x63d0, 0x4000, 0xfc00};
	static const uint16_t fin[4] = {0x7bff, 0x63d0, 0x4000, 0xfc00};
	const uint16_t *ys[4] = {good, far, sign, fin};
	uint8_t yb[8], rb[8];
	for (unsigned i = 0; i < 4; i++)
		le_wr16(rb + 2 * i, r[i]);
	for (unsigned k = 0; k < 4; k++) {
		double err = -1.0, tol = -1.0;
		for (unsigned i = 0; i < 4; i++)
			le_wr16(yb + 2 * i, ys[k][i]);
		tio_compare(yb, rb, 4, &err, &tol);
		CHECKF(tol == 1000.0 / 1024.0, "case %u: tolerance %g, not 1000/1024", k, tol);
		if (k == 0)
			CHECKF(err == 0.5 && err <= tol, "control: error %g", err);
		else if (k == 1)
			CHECKF(err == 5.0 && !(err <= tol), "far: error %g", err);
		else
			CHECKF(err == __builtin_inf() && !(err <= tol), "case %u: error %g", k, err);
	}
}

TEST(tensors, requests_resolved_or_named)
{
	static struct ldr_program p;
	static struct tio x;
	static struct tio_req req[TIO_MAX_IO + 1];
	static struct tcapture c;
	size_t len = build(chain_desc, 1);
	REQUIRE(ldr_load(buf, len, LDR_F_HWX, &p) == LDR_OK);
	struct {
		const char *arg;
		int out;
		enum tio_err want;
	} cases[] = {
		{"nope=/x.npy", 1, TIO_E_UNKNOWN},
		{"bar6=/x.npy", 0, TIO_E_NOT_INPUT},
		{"output_0=/x.npy", 0, TIO_E_NOT_INPUT},
		{"input=/x.npy", 1, TIO_E_NOT_OUTPUT},
		{"input=/nonexistent-dir/x.npy", 0, TIO_E_OPEN},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		REQUIRE(tio_parse_req(cases[i].arg, strlen(cases[i].arg), cases[i].out, &req[0]) ==
			TIO_OK);
		c.n = 0;
		CHECKF(tio_prepare(&x, &p, req, 1, tcapture_out, &c) == cases[i].want, "%s: %s",
		       cases[i].arg, c.text);
		CHECK(strstr(c.text, tio_err_name(cases[i].want)) != NULL);
		tio_free(&x);
	}
	REQUIRE(tio_parse_req("bar7=/a.npy", 11, 1, &req[0]) == TIO_OK);
	REQUIRE(tio_parse_req("output_0=/b.npy", 15, 1, &req[1]) == TIO_OK);
	CHECK_EQ(tio_prepare(&x, &p, req, 2, tcapture_out, &c), TIO_E_TWICE);
	tio_free(&x);
	CHECK_EQ(tio_prepare(&x, &p, req, TIO_MAX_IO + 1, tcapture_out, &c), TIO_E_TOO_MANY);
	tio_free(&x);
	/* no requests: the input is filled from its seed, and that is said */
	c.n = 0;
	CHECK_EQ(tio_prepare(&x, &p, req, 0, tcapture_out, &c), TIO_OK);
	CHECK(strstr(c.text, "run: input input: float16 [16, 2, 8] not given: filled from seed "
			     "0x5eed0005") != NULL);
	tio_free(&x);
}

/* The hooks on the engine: an input placed from an array, the output and the intermediate
 * captured. The program is relu alone and the input non-negative, so the output is the input
 * whether the model moves bytes or computes; the intermediate of the chained program holds what
 * its first TD wrote and is zero where no TD wrote. */
TEST(tensors, run_places_inputs_and_captures_outputs)
{
	static struct ldr_program p;
	static struct tio x;
	static struct tcapture c;
	static uint8_t dense[16 * 2 * 8 * 2];
	size_t len = build("input w=8 h=2 c=16\nactivation relu\n", 1);
	REQUIRE(len > 0);
	REQUIRE(ldr_load(buf, len, LDR_F_HWX, &p) == LDR_OK);
	struct tio_req req;
	REQUIRE(tio_parse_req("output_0=/unused.npy", 20, 1, &req) == TIO_OK);
	REQUIRE(tio_prepare(&x, &p, &req, 1, tcapture_out, &c) == TIO_OK);
	/* the input, as if read from a 1-D .npy */
	for (unsigned i = 0; i < 256; i++)
		le_wr16(dense + 2 * i, fp16_from_scaled((int64_t)(i * 3 % 101), -3));
	struct tio_io *in = &x.io[x.nio++];
	memset(in, 0, sizeof *in);
	in->ti = tns_find(x.t, x.nt, "input", 5);
	REQUIRE(in->ti >= 0);
	in->npy = 1;
	in->a.dtype = NPY_F16;
	in->a.ndim = 1;
	in->a.shape[0] = in->a.nelem = 256;
	in->a.data = dense;
	in->a.data_len = sizeof dense;
	struct session_result res;
	int rc = tsubmit(buf, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, tio_hooks(&x), &res);
	CHECKF(rc == 0, "%s", session_result_name(&res));
	REQUIRE(x.io[0].captured != NULL);
	static uint8_t got[sizeof dense];
	const struct tns_tensor *t = &x.t[x.io[0].ti];
	REQUIRE(t->nelem == 256);
	tio_gather(t, x.io[0].captured, t->bytes, got);
	CHECK_MEM(got, dense, sizeof dense);
	in->file = NULL; /* not ours to free */
	tio_free(&x);
}

/* from=prev in descriptions: what it may read, named when it cannot. */
TEST(tensors, from_prev_descriptions_named)
{
	static struct pd_desc d;
	unsigned line;
	static const struct {
		const char *text;
		enum pd_err want;
		unsigned line;
	} cases[] = {
		{"layer int8 from=prev\n", PD_E_NO_PREV, 1},
		{"activation relu from=prev\n", PD_E_NO_PREV, 1},
		{"layer int8\nlayer int8 from=later\n", PD_E_VALUE, 2},
		{"layer int8\nactivation relu from=prev cout=3\n", PD_E_KEYWORD, 2},
		{"input c=16\nlayer int8 cout=8\nlayer int8 cin=16 from=prev\n", PD_E_CIN, 3},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum pd_err e = pd_parse(cases[i].text, strlen(cases[i].text), &d, &line);
		CHECKF(e == cases[i].want && line == cases[i].line, "case %u: %s line %u", i,
		       pd_err_name(e), line);
	}
	CHECK_STR(pd_err_name(PD_E_NO_PREV), "desc-no-previous-layer");
	/* a layer reading the previous output takes its channels */
	REQUIRE(pd_parse("input c=16\nlayer int8 cout=8\nlayer palette4 from=prev cout=4\n"
			 "activation relu6 from=prev\n", 88, &d, &line) == PD_OK);
	CHECK_EQ(d.layer[1].cin, 8u);
	CHECK(d.layer[1].from_prev);
	CHECK_EQ(d.layer[2].cin, 4u);
	CHECK_EQ(d.layer[2].cout, 4u);
	CHECK(!d.layer[0].from_prev);
}

/*
 * A tensor the TDs walk at D depths (Common.InDepth = OutDepth = D, each side its own
 * DepthStride, gaps between the depths; docs/engine-model.md, "A depth on an elementwise TD"):
 * its shape lists D after C, with G first for two groups (a rank-5 tensor, G x C x D x H x W),
 * and run places and gathers each element where the tile DMA reads and writes it. The program is
 * a + b; the reference is the definition on the dense arrays (multiples of 1/64 in [-8, 8): the
 * sum exact in fp16). Before, such a tensor was flat: its buffer's bytes, gaps included.
 */
#define DT_C 2u
#define DT_D 4u
#define DT_H 3u
#define DT_W 5u
/* input k's element i, in 64ths */
static int64_t dt_q(unsigned k, unsigned i)
{
	return (int64_t)((i * (k ? 37u : 91u) + 13u * k) % 1024u) - 512;
}

/* elements of out that are not a + b (exact in fp16) */
static unsigned dt_bad(const uint16_t *out, unsigned n)
{
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad += out[i] != fp16_from_scaled(dt_q(0, i) + dt_q(1, i), -6);
	return bad;
}

/* buf's raw stream of len bytes run as `run` runs it: its tensors' listing into text, inputs
 * BAR 5 and BAR 6 (nin of them) given as 1-D fp16 arrays of dt_q(k, i) in 64ths (vals[k], their
 * element counts from the tensors, each checked against want[k] when nonzero), BAR 4 captured.
 * 0 when the run captured BAR 4 (x then holds it; tio_free when done), else -1. */
static int dt_run(size_t len, struct tio *x, unsigned nin, uint16_t *const *vals, const uint64_t *want,
		  char *text, size_t text_len)
{
	static struct ldr_program p;
	static struct tcapture c;
	struct tio_req req;
	if (ldr_load(buf, len, LDR_F_RAW, &p) != LDR_OK)
		return -1;
	memset(&c, 0, sizeof c);
	tns_print(&p, tcapture_out, &c);
	snprintf(text, text_len, "%s", c.text);
	if (tio_parse_req("bar4=/unused.npy", 16, 1, &req) != TIO_OK ||
	    tio_prepare(x, &p, &req, 1, tcapture_out, &c) != TIO_OK)
		return -1;
	for (unsigned k = 0; k < nin; k++) {
		char nm[8];
		snprintf(nm, sizeof nm, "bar%u", k ? BP_IN1_BAR : BP_IN0_BAR);
		struct tio_io *in = &x->io[x->nio++];
		memset(in, 0, sizeof *in);
		in->ti = tns_find(x->t, x->nt, nm, strlen(nm));
		if (in->ti < 0)
			return -1;
		const uint64_t n = x->t[in->ti].nelem;
		CHECKF(!want[k] || n == want[k], "%s: %lu elements, not %lu", nm, (unsigned long)n,
		       (unsigned long)want[k]);
		if (want[k] && n != want[k])
			return -1;
		in->npy = 1;
		in->a.dtype = NPY_F16;
		in->a.ndim = 1;
		in->a.shape[0] = in->a.nelem = n;
		for (unsigned i = 0; i < n; i++)
			vals[k][i] = fp16_from_scaled(dt_q(k, i), -6);
		in->a.data = (uint8_t *)vals[k];
		in->a.data_len = 2u * n;
	}
	struct session_result res;
	int rc = tsubmit(buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, tio_hooks(x), &res);
	CHECKF(rc == 0, "%s", session_result_name(&res));
	return rc == 0 && x->io[0].captured ? 0 : -1;
}

/* a + b at DT_D depths over `groups` groups through run's placing and gathering: *n elements of
 * the output gathered into out (0 when the case could not be set up), tns_print's text in text */
static void depth_case(unsigned groups, uint16_t *a, uint16_t *b, uint16_t *out, int zero_depth,
		       char *text, size_t text_len, unsigned *n_out)
{
	*n_out = 0;
	struct bp_pe_spec s;
	memset(&s, 0, sizeof s);
	s.c = DT_C, s.win = s.wout = DT_W, s.hin = s.hout = DT_H;
	s.kw = s.kh = s.sx = s.sy = 1;
	s.prescale = s.scale = 0x3c00u;
	s.finalscale = BP_F32_ONE;
	s.secsrc = H13_PE_SECSRC_TILE1, s.op = H13_PE_OP_ADD;
	s.depth = DT_D, s.src_depth = 448, s.src2_depth = 512, s.dst_depth = 640;
	if (groups > 1)
		s.groups = groups, s.src_group = 448 * DT_D, s.src2_group = 512 * DT_D,
		s.dst_group = 640 * DT_D + 64;
	size_t len = bp_pe(buf, sizeof buf, &s);
	REQUIRE(len > 0);
	static struct tio x;
	const unsigned n = groups * DT_C * DT_D * DT_H * DT_W;
	uint16_t *const vals[2] = {a, b};
	const uint64_t want[2] = {n, n};
	REQUIRE(dt_run(len, &x, 2, vals, want, text, text_len) == 0);
	for (unsigned k = 1; k < 3; k++) {
		const struct tns_tensor *in = &x.t[x.io[k].ti];
		CHECK(!in->flat);
		CHECK_EQ(in->depth, k > 1 ? 512u : 448u);
	}
	struct tns_tensor t = x.t[x.io[0].ti];
	const unsigned shape5[5] = {groups, DT_C, DT_D, DT_H, DT_W};
	static const char *const axes[5] = {"G", "C", "D", "H", "W"};
	unsigned k0 = groups > 1 ? 0u : 1u;
	CHECK_EQ(t.ndim, 5u - k0);
	for (unsigned k = 0; k < t.ndim && k0 + k < 5; k++) {
		CHECK_EQ(t.shape[k], shape5[k0 + k]);
		CHECK_STR(tns_axis_name(tns_axis(&t, k)), axes[k0 + k]);
	}
	CHECK_EQ(t.depth, 640u);
	CHECK_EQ(tns_offset(&t, groups - 1, 1, 3, 2, 4),
		 (uint64_t)(groups - 1) * (640 * DT_D + 64) + bp_row(DT_W) * DT_H + 3u * 640 +
			 2u * bp_row(DT_W) + 8u);
	if (zero_depth)
		t.depth = 0; /* the checker's negative: every depth gathered from depth 0 */
	tio_gather(&t, x.io[0].captured, t.bytes, (uint8_t *)out);
	tio_free(&x); /* the inputs' arrays are the caller's (file NULL) */
	*n_out = n;
}

TEST(tensors, a_depth_is_an_axis)
{
	static uint16_t a[2 * DT_C * DT_D * DT_H * DT_W], b[sizeof a / 2], out[sizeof a / 2];
	char text[1024];
	for (unsigned groups = 1; groups <= 2; groups++) {
		unsigned n;
		depth_case(groups, a, b, out, 0, text, sizeof text, &n);
		REQUIRE(n == groups * DT_C * DT_D * DT_H * DT_W);
		unsigned bad = dt_bad(out, n);
		CHECKF(bad == 0, "%u groups: %u of %u sums off", groups, bad, n);
		CHECKF(strstr(text, groups > 1 ? "float16 [2, 2, 4, 3, 5]" : "float16 [2, 4, 3, 5]") != NULL &&
			       strstr(text, "depth 0x280") != NULL,
		       "%s", text);
		/* the negative: the output gathered as if the depth did not step */
		depth_case(groups, a, b, out, 1, text, sizeof text, &n);
		REQUIRE(n == groups * DT_C * DT_D * DT_H * DT_W);
		bad = dt_bad(out, n);
		CHECKF(bad >= n / 2, "%u groups, depth ignored: only %u of %u off", groups, bad, n);
	}
}

/*
 * A rank-5 concatenation along C in the layout of ../shared/fixtures/hwx/netplist/plists-concat.plist
 * (tinygrad's netplist, whose compiled program is not public): input_0 [2, 4, 4, 2, 3] (batch,
 * channels, depth, height, width) with plane stride 128, depth stride 1024 and batch stride 512;
 * input_1 [2, 2, 4, 2, 3], depth 512, batch 256; the output [2, 6, 4, 2, 3], depth 1536, batch
 * 768, rows 64 bytes apart. Built here as one copy TD an input (the planar engine, NumGroups 2
 * for the batch, InDepth = OutDepth = 4), the second writing 4 planes on: whether Apple's compiler
 * uses groups for the batch is not known. run must describe each tensor with its five axes and
 * the output must be numpy's concatenate((input_0, input_1), axis=1), bit for bit; the checker's
 * negative, the inputs concatenated the other way round, fails.
 */
static void concat5_case(uint16_t *out, unsigned *n_out, char *text, size_t text_len)
{
	*n_out = 0;
	struct bp_pe_spec s0 = bp_pe_copy(4, 2, 3, BP_IN0_BAR, BP_OUT_BAR), s1;
	s0.groups = 2, s0.depth = 4;
	s0.src_depth = 1024, s0.src_group = 512, s0.dst_depth = 1536, s0.dst_group = 768;
	s1 = s0;
	s1.c = 2, s1.bar_in0 = BP_IN1_BAR;
	s1.src_depth = 512, s1.src_group = 256, s1.dst_off = 4 * 128;
	const struct bp_pe_spec *sp[2] = {&s0, &s1};
	size_t len = bp_pen(buf, sizeof buf, sp, 2);
	REQUIRE(len > 0);
	static struct tio x;
	static uint16_t in[2][2 * 4 * 4 * 2 * 3];
	uint16_t *const vals[2] = {in[0], in[1]};
	const uint64_t want[2] = {2 * 4 * 4 * 2 * 3, 2 * 2 * 4 * 2 * 3};
	REQUIRE(dt_run(len, &x, 2, vals, want, text, text_len) == 0);
	static const unsigned ch[2] = {4, 2};
	for (unsigned k = 0; k < 2; k++) {
		const struct tns_tensor *t = &x.t[x.io[k + 1].ti];
		CHECKF(t->ndim == 5 && t->shape[0] == 2 && t->shape[1] == ch[k] && t->shape[2] == 4 &&
			       t->shape[3] == 2 && t->shape[4] == 3,
		       "input %u: %u axes [%u, %u, %u, %u, %u]", k, t->ndim, t->shape[0], t->shape[1],
		       t->shape[2], t->shape[3], t->shape[4]);
	}
	const struct tns_tensor *t = &x.t[x.io[0].ti];
	CHECKF(t->ndim == 5 && t->shape[0] == 2 && t->shape[1] == 6 && t->shape[2] == 4 && t->shape[3] == 2 &&
		       t->shape[4] == 3 && t->depth == 1536 && t->group == 768 && t->plane == 128,
	       "output: %u axes [%u, %u, %u, %u, %u]", t->ndim, t->shape[0], t->shape[1], t->shape[2],
	       t->shape[3], t->shape[4]);
	REQUIRE(t->nelem == 2 * 6 * 4 * 2 * 3);
	tio_gather(t, x.io[0].captured, t->bytes, (uint8_t *)out);
	tio_free(&x);
	*n_out = 2 * 6 * 4 * 2 * 3;
}

/* concatenate((a, b), axis=1) of [2, ca, 4, 2, 3] and [2, cb, 4, 2, 3] (a, b: input k = 0, 1 as
 * dt_q gives them, or swapped), element i of the result's C order */
static uint16_t concat5_want(unsigned i, int swapped)
{
	const unsigned inner = 4 * 2 * 3, b = i / (6 * inner), c = i / inner % 6, r = i % inner;
	const unsigned ca = swapped ? 2 : 4, k0 = swapped ? 1 : 0;
	if (c < ca)
		return fp16_from_scaled(dt_q(k0, (b * ca + c) * inner + r), -6);
	return fp16_from_scaled(dt_q(1 - k0, (b * (6 - ca) + c - ca) * inner + r), -6);
}

TEST(tensors, a_rank5_concat_in_the_plists_concat_layout)
{
	static uint16_t out[2 * 6 * 4 * 2 * 3];
	char text[2048];
	unsigned n, bad = 0, bad_swapped = 0;
	concat5_case(out, &n, text, sizeof text);
	REQUIRE(n == 2 * 6 * 4 * 2 * 3);
	for (unsigned i = 0; i < n; i++) {
		bad += out[i] != concat5_want(i, 0);
		bad_swapped += out[i] != concat5_want(i, 1);
	}
	CHECKF(bad == 0, "%u of %u off", bad, n);
	CHECKF(bad_swapped > n / 2, "the negative (inputs swapped): only %u of %u off", bad_swapped, n);
	CHECKF(strstr(text, "float16 [2, 6, 4, 2, 3]") != NULL && strstr(text, "depth 0x600, grouped") != NULL,
	       "%s", text);
}

/* Depths that share bytes (a hostile program's 2^31 depths 0 bytes apart, every other stride
 * real): more elements than the buffer has room for, so the tensor is flat (bytes / 2 elements),
 * never 2^31 x 30 elements that run would walk one by one; the same TD with its depths 448 bytes
 * apart has its D axis (the checker's negative: the rule does not make every deep tensor flat). */
TEST(tensors, depths_sharing_bytes_are_flat)
{
	static struct ldr_program p;
	struct tns_tensor t[TNS_MAX];
	for (int shared = 0; shared < 2; shared++) {
		struct bp_pe_spec s = bp_pe_copy(DT_C, DT_H, DT_W, BP_IN0_BAR, BP_OUT_BAR);
		s.depth = shared ? 0x80000000u : DT_D;
		s.src_depth = shared ? 0 : 448, s.dst_depth = 448;
		size_t len = bp_pe(buf, sizeof buf, &s);
		REQUIRE(len > 0);
		REQUIRE(ldr_load(buf, len, LDR_F_RAW, &p) == LDR_OK);
		unsigned n = 0, found = 0;
		REQUIRE(tns_describe(&p, t, TNS_MAX, &n, NULL) == TNS_OK);
		for (unsigned k = 0; k < n; k++) {
			if (t[k].bar != (int)BP_IN0_BAR)
				continue;
			found++;
			CHECK_EQ(t[k].flat, (uint8_t)shared);
			CHECK(t[k].nelem * t[k].elem <= t[k].bytes);
			if (!shared)
				CHECK_EQ(t[k].nelem, (uint64_t)DT_C * DT_D * DT_H * DT_W);
		}
		CHECK_EQ(found, 1u);
	}
}

/* ---- outputs no TD writes whole (review fix2) ---- */

static const struct tns_tensor *tensor_on(const struct tns_tensor *t, unsigned n, int bar)
{
	for (unsigned i = 0; i < n; i++)
		if (t[i].bar == bar)
			return &t[i];
	return NULL;
}

/* --out (or ref) of name on p: the tio error, the text in c. */
static enum tio_err request_out(const struct ldr_program *p, const char *arg, int out,
				struct tcapture *c)
{
	static struct tio x;
	struct tio_req r;
	if (tio_parse_req(arg, strlen(arg), out, &r) != TIO_OK)
		return TIO_E_ARG;
	c->n = 0;
	c->text[0] = 0;
	enum tio_err e = tio_prepare(&x, p, &r, 1, tcapture_out, c);
	tio_free(&x);
	return e;
}

/* A two-TD concat with a gap: TD 0 writes channel 0 of BAR 4, TD 1 channel 2; the layout took
 * the highest channel as the count, [3, 2, 8], and channel 1, which no TD writes, came back as
 * computed zeros (exit 0). And a program with a declared output window (z, BAR 6) no TD writes, an
 * output of zeros. Both are now described as unwritten and --out / ref of them is refused
 * (output-not-written); the controls (channels 0 and 1; the window a TD writes) are offered. */
TEST(tensors, outputs_no_td_writes_whole_are_not_offered)
{
	static uint8_t raw[0x2000], hwx[0x20000];
	static struct ldr_program p;
	static struct tns_tensor t[TNS_MAX];
	static struct tcapture c;
	unsigned n = 0;
	const uint32_t plane = bp_row(8) * 2;
	for (int gap = 0; gap < 2; gap++) {
		const struct bp_step s[2] = {
			{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 4},
			{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 4,
			 .out_off = (gap ? 2 : 1) * plane},
		};
		size_t len = bp_chain(raw, sizeof raw, 8, 2, s, 2, NULL);
		REQUIRE(len);
		REQUIRE(ldr_load(raw, len, LDR_F_RAW, &p) == LDR_OK);
		REQUIRE(tns_describe(&p, t, TNS_MAX, &n, NULL) == TNS_OK);
		const struct tns_tensor *y = tensor_on(t, n, 4);
		REQUIRE(y);
		CHECK_EQ(y->role, TNS_OUTPUT);
		CHECK_EQ(y->flat, 0);
		CHECK_EQ(y->dim[TNS_C], gap ? 3u : 2u);
		CHECK_EQ(y->unwritten, gap ? TNS_UNWRITTEN_GAP : 0);
		/* no directory: nothing checked there, and prepare writes no file */
		enum tio_err e = request_out(&p, "bar4=tensors-test-never-written.npy", TIO_OUT, &c);
		CHECKF(e == (gap ? TIO_E_UNWRITTEN : TIO_OK), "gap %d: %s", gap, c.text);
		if (gap) {
			CHECK(strstr(c.text, "output-not-written") && strstr(c.text, "gap"));
			CHECK_EQ(request_out(&p, "bar4=/nonexistent-dir/y.npy", TIO_REF, &c),
				 TIO_E_UNWRITTEN);
		}
		c.n = 0;
		tns_print(&p, tcapture_out, &c);
		CHECK_EQ(strstr(c.text, "unwritten") != NULL, gap);
	}
	/* the unwritten window */
	const struct bp_step s1 = {.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 4};
	size_t rl = bp_chain(raw, sizeof raw, 8, 2, &s1, 1, NULL);
	REQUIRE(rl);
	const struct hwxw_window win[3] = {{"x", 5, LDR_WIN_INPUT, 0x80}, {"y", 4, LDR_WIN_OUTPUT, 0x80},
					   {"z", 6, LDR_WIN_OUTPUT, 0x80}};
	struct hwxw_spec spec = {.cpusubtype = 4, .text = raw, .text_len = bp_chain_weights_off(1),
				 .first_td_bytes = 0x274, .ntds = 1, .weights_bar = 1, .win = win,
				 .nwin = 3};
	size_t hl = 0;
	REQUIRE(hwxw_write(&spec, hwx, sizeof hwx, &hl) == HWXW_OK);
	REQUIRE(ldr_load(hwx, hl, 0, &p) == LDR_OK);
	REQUIRE(tns_describe(&p, t, TNS_MAX, &n, NULL) == TNS_OK);
	const struct tns_tensor *y = tensor_on(t, n, 4), *z = tensor_on(t, n, 6);
	REQUIRE(y && z);
	CHECK_EQ(y->unwritten, 0);
	CHECK_EQ(z->unwritten, TNS_UNWRITTEN_ALL);
	CHECK_EQ(request_out(&p, "z=/nonexistent-dir/z.npy", TIO_OUT, &c), TIO_E_UNWRITTEN);
	CHECK(strstr(c.text, "no task descriptor writes it") != NULL);
	CHECK_EQ(request_out(&p, "bar6=/nonexistent-dir/z.npy", TIO_OUT, &c), TIO_E_UNWRITTEN);
	/* an output in a directory that is not there is refused before the run (since 2026-12-06;
	 * prepare took it, and the run's outputs were lost when written); one in the current
	 * directory is taken, and prepare makes no file */
	CHECK_EQ(request_out(&p, "y=/nonexistent-dir/y.npy", TIO_OUT, &c), TIO_E_OPEN);
	CHECK(strstr(c.text, "its directory /nonexistent-dir: no such file or directory") != NULL);
	CHECK_EQ(request_out(&p, "y=tensors-test-never-written.npy", TIO_OUT, &c), TIO_OK);
	CHECK_STR(tio_err_name(TIO_E_UNWRITTEN), "output-not-written");
	/* every real container's outputs are written whole (concat's two TDs: channels 0..16383
	 * and 16384..16399) */
	static const char *const fx[] = {"fixtures/hwx/relu.hwx", "fixtures/hwx/sigmoid.hwx",
					 "fixtures/hwx/conv.hwx", "fixtures/hwx/concat.hwx"};
	for (unsigned i = 0; i < sizeof fx / sizeof fx[0] && test_shared_dir(); i++) {
		uint8_t *f;
		size_t fl;
		REQUIRE(test_read_file(test_shared_path(fx[i]), &f, &fl) == 0);
		REQUIRE(ldr_load(f, fl, 0, &p) == LDR_OK);
		REQUIRE(tns_describe(&p, t, TNS_MAX, &n, NULL) == TNS_OK);
		for (unsigned k = 0; k < n; k++)
			CHECKF(!t[k].unwritten, "%s: %s", fx[i], t[k].name);
		free(f);
	}
}

/* Apple's tile of [1,8,1,375] to [1,8,375,375] under relu as the builders write it (the model
 * tests' l2_tile8): the source [8,1,375] by tile DMA, kept in L2 (SourceType 1) and read back
 * broadcast along H (bcast 1), or read whole (bcast 0). */
static size_t tile8_prog(int bcast)
{
	struct bp_pe_spec t = bp_pe_copy(8, 375, 375, 5, 4);
	t.relu = 1;
	t.l2_src = BP_L2_KEEP;
	t.src_l2 = (struct bp_l2){1, 0, 768, 768 * 8, 0, 0};
	t.src_plane = 768;
	t.pecfg = bcast ? H13_PUT(H13_CPECFG_SRC1BCAST, H13_BCAST_H) : 0u;
	const struct bp_pe_spec *q[] = {&t};
	return bp_pen(buf, sizeof buf, q, 1);
}

#if !defined(ANEFW_TARGET) /* (writes files beside the test data) */
static int write_file(const char *path, const uint8_t *b, size_t n)
{
	int fd = hal_file_open(path, 1);
	if (fd < 0)
		return -1;
	long w = hal_file_write(fd, b, n);
	hal_file_close(fd);
	return w == (long)n ? 0 : -1;
}
#endif

/* A source the engine reads broadcast (fw/td td_src0_bcast) is offered as the rows it reads:
 * Apple's tile's input is [8,1,375], 6144 bytes (one 768-byte row a plane), as Apple binds it;
 * `run` (app/tensorio) takes a raw file of those 6144 bytes, refuses one of the whole 375 rows a
 * plane (raw-size-mismatch), and the run computes relu(tile(x)) (numpy's, the l2_tile8 oracle).
 * The control: read without the broadcast, the input is all 375 rows (whose planes, one row
 * apart, overlap: a flat tensor, as the tool offered Apple's program before). */
TEST(tensors, a_broadcast_source_is_offered_as_the_rows_read)
{
	static struct ldr_program p;
	static struct tns_tensor t[TNS_MAX];
	unsigned n;
	struct ctrl_status st;
	for (int bcast = 1; bcast >= 0; bcast--) {
		size_t len = tile8_prog(bcast);
		REQUIRE(len > 0);
		REQUIRE(ldr_load(buf, len, LDR_F_RAW, &p) == LDR_OK);
		REQUIRE(tns_describe(&p, t, TNS_MAX, &n, &st) == TNS_OK);
		REQUIRE(n == 2);
		int in = tns_find(t, n, "bar5", 4), out = tns_find(t, n, "bar4", 4);
		REQUIRE(in >= 0 && out >= 0);
		CHECK_EQ(t[in].role, TNS_INPUT);
		CHECK_EQ(t[in].bytes, bcast ? 6144u : 7u * 768u + 375u * 768u);
		CHECK_EQ(t[in].ndim, 3u);
		if (!bcast) { /* 375 rows a plane whose planes are a row apart: no tensor of its own */
			CHECK(t[in].flat);
			CHECK_EQ(t[in].shape[2], (7u * 768u + 375u * 768u) / 2u);
			continue;
		}
		CHECK(!t[in].flat);
		CHECK_EQ(t[in].shape[0], 8u);
		CHECK_EQ(t[in].shape[1], 1u);
		CHECK_EQ(t[in].shape[2], 375u);
		CHECK_EQ(t[in].row, 768u);
		CHECK_EQ(t[in].plane, 768u);
	}
	CHECK_EQ(t[tns_find(t, n, "bar4", 4)].shape[1], 375u); /* the output [8,375,375] */
#if !defined(ANEFW_TARGET)
	static struct orc o;
	static struct tio x;
	static struct tcapture c;
	static uint8_t raw[8 * 375 * 768];
	size_t len = tile8_prog(1);
	REQUIRE(ldr_load(buf, len, LDR_F_RAW, &p) == LDR_OK);
	REQUIRE(orc_load("model/l2_tile8.orc", &o) == 0);
	const struct orc_tensor *xi = orc_tensor_of(&o, 5, 0), *yo = orc_tensor_of(&o, 4, 1);
	REQUIRE(xi && yo && xi->n == 8 * 375);
	memset(raw, 0, sizeof raw);
	for (unsigned ch = 0; ch < 8; ch++) /* the oracle's x [8,1,375], a row of 768 bytes a plane */
		memcpy(raw + ch * 768, xi->in + 2 * 375 * ch, 2 * 375);
	char path[256], whole[256];
	snprintf(path, sizeof path, "%s", test_data_path("tensors_tile8_in.raw"));
	snprintf(whole, sizeof whole, "%s", test_data_path("tensors_tile8_whole.raw"));
	REQUIRE(write_file(path, raw, 6144) == 0);
	REQUIRE(write_file(whole, raw, 7 * 768 + 375 * 768) == 0);
	struct tio_req req[2];
	char arg[300];
	/* the whole 375 rows a plane: not the buffer */
	snprintf(arg, sizeof arg, "bar5=%s", whole);
	REQUIRE(tio_parse_req(arg, strlen(arg), TIO_IN, &req[0]) == TIO_OK);
	CHECK_EQ(tio_prepare(&x, &p, req, 1, tcapture_out, &c), TIO_E_RAW_SIZE);
	tio_free(&x);
	/* Apple's 6144 bytes: taken, and the run computes np.tile */
	snprintf(arg, sizeof arg, "bar5=%s", path);
	REQUIRE(tio_parse_req(arg, strlen(arg), TIO_IN, &req[0]) == TIO_OK);
	REQUIRE(tio_parse_req("bar4=/unused.raw", 16, TIO_OUT, &req[1]) == TIO_OK);
	c.n = 0;
	REQUIRE(tio_prepare(&x, &p, req, 2, tcapture_out, &c) == TIO_OK);
	struct session_result res;
	int rc = tsubmit(buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, tio_hooks(&x), &res);
	CHECKF(rc == 0, "%s", session_result_name(&res));
	const struct tio_io *cap = NULL;
	for (unsigned i = 0; i < x.nio; i++)
		if (x.io[i].out == TIO_OUT)
			cap = &x.io[i];
	REQUIRE(cap && cap->captured);
	struct orc_run r;
	memset(&r, 0, sizeof r);
	r.o = &o;
	r.name = "l2_tile8 through run";
	orc_check_tensor(&r, yo, cap->captured, x.t[cap->ti].bytes);
	CHECKF(r.checked == 8u * 375 * 375 && r.bad == 0, "%lu of %lu outside", (unsigned long)r.bad,
	       (unsigned long)r.checked);
	tio_free(&x);
	orc_free(&o);
	hal_file_remove(path);
	hal_file_remove(whole);
#endif
}

/* softmax.bin's input (BAR 5) is read by TD 0 as 2560 groups of 1 x 1 x 1600 (group stride 3200
 * bytes) and by TD 1 as 1 x 2560 x 1600 (row stride 3200): different registers, the same rows of
 * 1600 elements 3200 bytes apart. It is the rows the TDs read, [1, 2560, 1600] as its output
 * is; it was flat, [1, 1, 4096000], and run took any split of 4096000 ((1600, 2560) too) as its
 * shape. A TD 1 whose rows are 64 bytes further apart reads other bytes: flat (the control). */
TEST(tensors, a_tensor_two_tds_read_alike_is_the_rows_they_read)
{
	if (!test_shared_dir())
		SKIP("../shared absent: softmax.bin is not loaded");
	static struct ldr_program p;
	static struct tns_tensor t[TNS_MAX];
	unsigned n;
	struct ctrl_status st;
	uint8_t *f;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/activation/softmax.bin"), &f, &len) == 0);
	REQUIRE(len <= sizeof buf);
	memcpy(buf, f, len);
	free(f);
	for (int moved = 0; moved < 2; moved++) {
		if (moved) /* TD 1's Src.RowStride 3200 -> 3264 bytes (the field counts 64 bytes) */
			REQUIRE(tpatch_field(buf, len, 1, H13_SRC_ROWSTRIDE, 6, 26, 3264u >> 6) == 0);
		REQUIRE(ldr_load(buf, len, LDR_F_RAW, &p) == LDR_OK);
		REQUIRE(tns_describe(&p, t, TNS_MAX, &n, &st) == TNS_OK);
		int in = tns_find(t, n, "bar5", 4), out = tns_find(t, n, "bar4", 4);
		REQUIRE(in >= 0 && out >= 0);
		CHECK_EQ(t[in].role, TNS_INPUT);
		CHECK_EQ(t[in].ndim, 3u);
		if (moved) {
			CHECK(t[in].flat);
			CHECK_EQ(t[in].shape[2], (uint32_t)(t[in].bytes / 2));
			continue;
		}
		CHECKF(!t[in].flat, "bar5 flat: [%u, %u, %u]", t[in].shape[0], t[in].shape[1],
		       t[in].shape[2]);
		CHECK_EQ(t[in].shape[0], 1u);
		CHECK_EQ(t[in].shape[1], 2560u);
		CHECK_EQ(t[in].shape[2], 1600u);
		CHECK_EQ(t[in].row, 3200u);
		CHECK_EQ(t[in].base, 0u);
		CHECK_EQ(t[in].nelem, 4096000u);
		/* its output, written by TD 4 alone: the same shape and rows */
		CHECK(!t[out].flat);
		CHECK_EQ(t[out].shape[1], 2560u);
		CHECK_EQ(t[out].shape[2], 1600u);
		CHECK_EQ(t[out].row, 3200u);
	}
}
