/*
 * mkprog programs compute the layers they describe (docs/engine-model.md, "Kernels from the
 * kernel unit"): every description the numpy oracle covers (tests/oracle/gen_mkprog.py, written
 * from the description format: app/default.desc and every .desc in tests/oracle/mkprog) is built here
 * with pd_build_hwx (and the raw stream for the default), run through the loader, the control
 * path and the engine model with the oracle's input, and every output and intermediate element
 * is compared with the oracle's value within its tolerance (one fp16 ulp), on the host and on the
 * target. The checker's own test: a corrupted output and a corrupted reference each fail it.
 */
#include "tests/unit/tsession.h"
#include "fw/common/le.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"
#include "tools/progdesc/progdesc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t progbuf[1u << 18];

/* Builds NAME's program (container, or raw stream) and runs it against its oracle. */
static void run_desc(const char *name, int raw)
{
	char rel[96];
	struct orc o;
	uint8_t *text;
	size_t tlen, len = 0;
	static struct pd_desc d;
	unsigned line;
	char orel[96];
	snprintf(rel, sizeof rel, "mkprog/%s.desc", name);
	snprintf(orel, sizeof orel, "mkprog/%s.orc", name);
	if (test_read_file(test_data_path(rel), &text, &tlen) || orc_load(orel, &o)) {
		CHECKF(0, "%s: build/testdata/mkprog missing or malformed (make generates it)", name);
		return;
	}
	enum pd_err pe = pd_parse((const char *)text, tlen, &d, &line);
	CHECKF(pe == PD_OK, "%s: %s at line %u", name, pd_err_name(pe), line);
	if (pe == PD_OK) {
		pe = raw ? pd_build(&d, progbuf, sizeof progbuf, &len)
			 : pd_build_hwx(&d, progbuf, sizeof progbuf, &len);
		CHECKF(pe == PD_OK, "%s: build: %s", name, pd_err_name(pe));
	}
	if (pe == PD_OK) {
		struct orc_run r;
		memset(&r, 0, sizeof r);
		r.o = &o;
		r.name = name;
		struct session_hooks h = {.fill = orc_fill, .check = orc_check, .ctx = &r};
		struct session_result res;
		int rc = tsubmit(progbuf, len, raw ? LDR_F_RAW : LDR_F_HWX, NULL, 0, 1, 0, tnull_out,
				 NULL, &h, &res);
		CHECKF(rc == 0 && res.run == ENG_OK, "%s: run failed: %s", name, session_result_name(&res));
		CHECK(res.canaries_ok);
		CHECKF(r.filled == 1, "%s: %u inputs filled", name, r.filled);
		CHECKF(r.checked_tensors == o.nt - 1, "%s: %u of %u outputs checked", name,
		       r.checked_tensors, o.nt - 1);
		CHECKF(r.bad == 0, "%s: %lu of %lu outside tolerance", name, (unsigned long)r.bad,
		       (unsigned long)r.checked);
		printf("# mkprog %s%s: %u tensors, %lu values against the oracle\n", name,
		       raw ? " (raw)" : "", r.checked_tensors, (unsigned long)r.checked);
	}
	free(text);
	free(o.buf);
}

TEST(mkprog_compute, every_description_against_the_oracle)
{
	uint8_t *list;
	size_t len;
	if (test_read_file(test_data_path("mkprog/list.txt"), &list, &len)) {
		CHECKF(0, "build/testdata/mkprog/list.txt missing (make generates it)");
		return;
	}
	unsigned n = 0;
	for (size_t s = 0; s < len;) {
		size_t e = s;
		while (e < len && list[e] != '\n')
			e++;
		if (e > s && e - s < 64) {
			char name[64];
			memcpy(name, list + s, e - s);
			name[e - s] = 0;
			run_desc(name, 0);
			n++;
		}
		s = e + 1;
	}
	CHECKF(n >= 9, "only %u descriptions listed", n);
	free(list);
}

TEST(mkprog_compute, default_raw_stream_against_the_oracle)
{
	run_desc("default", 1);
}

/* The fp16 bits of a finite value that is exactly an fp16 value. */
static uint16_t exact_f16(double v)
{
	uint16_t sign = v < 0 ? 0x8000u : 0;
	double a = v < 0 ? -v : v;
	if (a == 0)
		return sign;
	int e = 1; /* a = q x 2^(e - 25) with q in [1024, 2048) for normals */
	double q = a;
	for (int k = 0; k < 24; k++)
		q *= 2.0; /* q = a x 2^24: the subnormal scale */
	while (q >= 2048.0 && e < 31) {
		q *= 0.5;
		e++;
	}
	if (q < 1024.0)
		return sign | (uint16_t)q; /* subnormal */
	return sign | (uint16_t)(e << 10) | (uint16_t)((uint32_t)q - 1024u);
}

/* The checker fails on a corrupted output and on a corrupted reference. */
TEST(mkprog_compute, checker_fails_on_wrong_values)
{
	struct orc o;
	if (orc_load("mkprog/default.orc", &o)) {
		CHECKF(0, "build/testdata/mkprog/default.orc missing (make generates it)");
		return;
	}
	const struct orc_tensor *t = NULL;
	for (unsigned i = 0; i < o.nt && !t; i++)
		if (o.t[i].role == 1)
			t = &o.t[i];
	REQUIRE(t);
	uint64_t size = (uint64_t)t->c * t->plane;
	uint8_t *buf = calloc(1, (size_t)size);
	REQUIRE(buf);
	/* an output equal to the oracle's values (they are fp16 values) */
	for (uint32_t c = 0, k = 0; c < t->c; c++)
		for (uint32_t h = 0; h < t->h; h++)
			for (uint32_t w = 0; w < t->w; w++, k++) {
				double v = orc_rd_f64(t->want + 8ull * k);
				uint16_t hv = exact_f16(v);
				CHECK(orc_f16(hv) == v);
				le_wr16(buf + (uint64_t)c * t->plane + (uint64_t)h * t->row + 2ull * w, hv);
			}
	for (unsigned round = 0; round < 3; round++) {
		if (round == 1) /* the output 2 ulp off at one element */
			le_wr16(buf + t->plane + 2 * 3, (uint16_t)(le_rd16(buf + t->plane + 2 * 3) + 2));
		if (round == 2) { /* the output restored; the reference wrong instead */
			le_wr16(buf + t->plane + 2 * 3, (uint16_t)(le_rd16(buf + t->plane + 2 * 3) - 2));
			uint8_t *want = (uint8_t *)(uintptr_t)t->want;
			want[8ull * (t->w * t->h * 2 + 5) + 6] ^= 0x10;
		}
		struct orc_run r;
		memset(&r, 0, sizeof r);
		r.o = &o;
		r.quiet = 1;
		r.name = "self-test";
		orc_check_tensor(&r, t, buf, size);
		CHECKF(r.bad == (round ? 1u : 0u), "round %u: %lu bad", round, (unsigned long)r.bad);
		CHECK_EQ(r.checked, (uint64_t)t->n);
	}
	free(buf);
	free(o.buf);
}

/*
 * The engine model's compute limit (anem_set_ops_limit, fw/td td_ops; docs/robustness.md,
 * "Compute"). pool_avg_then_int8's TD 0 is a 3x3 average pool of 13 channels over 33 x 7, stride
 * 2, padding 1: a 17 x 4 output, 9 taps an element; TD 1 the int8 layer 13 -> 16 over it. From
 * those definitions the task costs 17 x 4 x 13 x 9 then 17 x 4 x 16 x 13. With the limit at
 * exactly their sum the program runs and computes its oracle; one less refuses TD 1 by name
 * (beyond-model-capacity) after TD 0 ran, before TD 1 moved anything; below TD 0's own count TD 0
 * is refused; restored, the program runs again.
 */
TEST(mkprog_compute, compute_limit_refuses_the_td_that_crosses_it)
{
	const uint64_t td0 = 17u * 4u * 13u * 9u, td1 = 17u * 4u * 16u * 13u;
	struct orc o;
	uint8_t *text;
	size_t tlen, len = 0;
	static struct pd_desc d;
	unsigned line;
	if (test_read_file(test_data_path("mkprog/pool_avg_then_int8.desc"), &text, &tlen) ||
	    orc_load("mkprog/pool_avg_then_int8.orc", &o)) {
		CHECKF(0, "build/testdata/mkprog missing (make generates it)");
		return;
	}
	int ok = pd_parse((const char *)text, tlen, &d, &line) == PD_OK &&
		 pd_build_hwx(&d, progbuf, sizeof progbuf, &len) == PD_OK;
	free(text);
	CHECK(ok);
	struct anem *m = tsession_model();
	const uint64_t saved = m->ops_limit;
	const uint64_t limits[4] = {td0 + td1, td0 + td1 - 1u, td0 - 1u, saved};
	for (unsigned k = 0; k < 4 && ok; k++) {
		struct orc_run r;
		memset(&r, 0, sizeof r);
		r.o = &o;
		r.name = "pool_avg_then_int8";
		r.quiet = k == 1 || k == 2;
		struct session_hooks h = {.fill = orc_fill, .check = orc_check, .ctx = &r};
		struct session_result res;
		anem_set_ops_limit(m, limits[k]);
		int rc = tsubmit(progbuf, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
		CHECK(res.canaries_ok);
		if (k == 0 || k == 3) {
			CHECKF(rc == 0 && res.run == ENG_OK, "limit %lu: %s: %s", (unsigned long)limits[k],
			       session_result_name(&res), res.fault_text);
			CHECKF(r.bad == 0 && r.checked_tensors == o.nt - 1, "limit %lu: %lu values off",
			       (unsigned long)limits[k], (unsigned long)r.bad);
			CHECK_EQ(m->ops_used, td0 + td1);
			continue;
		}
		const int td = k == 1 ? 1 : 0;
		CHECKF(rc == 1 && !strcmp(session_result_name(&res), "engine-fault"), "limit %lu: %s",
		       (unsigned long)limits[k], session_result_name(&res));
		CHECK_EQ(res.fault.reason, (uint32_t)ENG_FR_CAPACITY);
		CHECK_EQ(res.fault.td, td);
		CHECKF(res.fault.why && strstr(res.fault.why, "compute limit"), "why: %s",
		       res.fault.why ? res.fault.why : "(none)");
		CHECK_EQ(m->ops_used, td == 1 ? td0 : 0u);
		CHECK_EQ(m->td_moves[td], 0u);
		if (td == 1)
			CHECK(m->td_moves[0] > 0u);
	}
	anem_set_ops_limit(m, saved);
	free(o.buf);
}
