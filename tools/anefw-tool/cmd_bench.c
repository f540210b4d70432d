/*
 * anefw-tool bench-model [--conv CIN:COUT:W] [--add W:H:C] [--repeat N] [--write-programs DIR]
 * The engine model's speed on the host: runs tools/progdesc/benchprog.c's programs (the ones
 * `make bench` counts on the target) through a whole submission N times and prints the best
 * wall-clock time as MAC/s or elements/s. A measurement, never a test verdict; outputs are
 * checked so that a run that computed nothing fails. tests/bench/model_host.sh prints it beside
 * numpy's float32 matmul of the same shape.
 */
#include "app/session.h"
#include "fw/common/le.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "tools/anefw-tool/tool.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bctx {
	uint16_t in0, in1, want;
	uint32_t row, w;
	uint64_t bad, outputs;
};

static void fill(void *vc, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct bctx *c = vc;
	if (!is_weights && (g->bar == BP_IN0_BAR || g->bar == BP_IN1_BAR)) {
		uint16_t v = g->bar == BP_IN0_BAR ? c->in0 : c->in1;
		for (uint64_t k = 0; k + 1 < g->size; k += 2)
			le_wr16(buf + k, v);
	}
}

static void check(void *vc, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct bctx *c = vc;
	if (!is_weights && g->bar == BP_OUT_BAR)
		for (uint64_t r = 0; r + c->row <= g->size; r += c->row)
			for (uint32_t i = 0; i < c->w; i++, c->outputs++)
				c->bad += le_rd16(buf + r + 2 * i) != c->want;
}

static void no_out(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	(void)s;
	(void)n;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Best wall time of `repeat` submissions, or a negative value when one failed. */
static double best_time(struct anes *s, const uint8_t *prog, size_t len, struct bctx *c,
			uint64_t want_outputs, unsigned repeat)
{
	double best = 1e30;
	for (unsigned r = 0; r < repeat; r++) {
		struct anes_hooks hk = {fill, check, c};
		struct anes_opts o = {.ldr_flags = LDR_F_RAW, .use_defaults = 1, .out = no_out,
				      .hooks = &hk};
		struct anes_result res;
		c->bad = c->outputs = 0;
		double t0 = now();
		int rc = anes_run(s, prog, len, &o, &res);
		double t = now() - t0;
		if (rc || c->bad || c->outputs != want_outputs) {
			fprintf(stderr, "anefw-tool bench-model: run failed: %s, %lu of %lu outputs wrong\n",
				anes_result_name(&res), (unsigned long)c->bad, (unsigned long)c->outputs);
			return -1.0;
		}
		if (t < best)
			best = t;
	}
	return best;
}

static int parse3(const char *s, unsigned v[3])
{
	return sscanf(s, "%u:%u:%u", &v[0], &v[1], &v[2]) == 3 && v[0] && v[1] && v[2] &&
	       v[0] <= 4096 && v[1] <= 4096 && v[2] <= 4096 ? 0 : -1;
}

static int cmd_bench(int argc, char **argv)
{
	unsigned conv[3] = {512, 512, 64}, add[3] = {1024, 64, 64}, repeat = 3;
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		uint64_t v;
		if (!strcmp(argv[i], "--conv") && i + 1 < argc) {
			if (parse3(argv[++i], conv) || conv[1] % 16u)
				return tool_usage_error("bench-model", "--conv wants CIN:COUT:W (COUT a multiple of 16), got '%s'", argv[i]);
		} else if (!strcmp(argv[i], "--add") && i + 1 < argc) {
			if (parse3(argv[++i], add))
				return tool_usage_error("bench-model", "--add wants W:H:C, got '%s'", argv[i]);
		} else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			if (tool_parse_u64(argv[++i], 1000, &v) || !v)
				return tool_usage_error("bench-model", "--repeat wants 1..1000, got '%s'", argv[i]);
			repeat = (unsigned)v;
		} else if (!strcmp(argv[i], "--write-programs") && i + 1 < argc) {
			dir = argv[++i];
		} else {
			return tool_usage_error("bench-model", "unknown argument '%s'", argv[i]);
		}
	}
	size_t cap = bp_conv_bytes(conv[0], conv[1]);
	uint8_t *cprog = malloc(cap);
	static uint8_t aprog[BP_WEIGHTS_OFF + 64];
	struct anes *s = anes_create(plat_dma());
	if (!cprog || !s) {
		fprintf(stderr, "anefw-tool bench-model: out of memory\n");
		free(cprog);
		anes_destroy(s);
		return 1;
	}
	size_t clen = bp_conv(cprog, cap, conv[0], conv[1], conv[2], 0x1c00u);
	size_t alen = bp_add(aprog, sizeof aprog, add[0], add[1], add[2]);
	int rc = 0;
	if (dir) {
		char path[4096];
		snprintf(path, sizeof path, "%s/conv.bin", dir);
		rc |= tool_write_file(path, cprog, clen);
		snprintf(path, sizeof path, "%s/add.bin", dir);
		rc |= tool_write_file(path, aprog, alen);
	}
	/* conv: inputs 1.0, weights 2^-8, every output cin x 2^-8 (512: exactly 2.0; a TD that
	 * moved its input unchanged would leave 1.0) */
	struct bctx cc = {0x3c00u, 0, 0x4000u, bp_row(conv[2]), conv[2], 0, 0};
	double tc = conv[0] == 512 ? best_time(s, cprog, clen, &cc, (uint64_t)conv[1] * conv[2], repeat)
				   : -1.0;
	struct bctx ac = {0x3e00u, 0x3400u, 0x3f00u, bp_row(add[0]), add[0], 0, 0};
	double ta = best_time(s, aprog, alen, &ac, (uint64_t)add[0] * add[1] * add[2], repeat);
	if (conv[0] != 512)
		fprintf(stderr, "anefw-tool bench-model: the conv check needs CIN 512\n");
	if (tc > 0) {
		double macs = (double)conv[0] * conv[1] * conv[2];
		printf("model conv %ux%u 1x1 over %u positions: %.0f MACs, best %.6f s, %.3g MAC/s\n",
		       conv[0], conv[1], conv[2], macs, tc, macs / tc);
	}
	if (ta > 0) {
		double n = (double)add[0] * add[1] * add[2];
		printf("model add %ux%ux%u fp16: %.0f elements, best %.6f s, %.3g elements/s\n", add[0],
		       add[1], add[2], n, ta, n / ta);
	}
	free(cprog);
	anes_destroy(s);
	return rc || tc < 0 || ta < 0;
}

TOOL_COMMAND(bench_model, "bench-model", cmd_bench,
	     "bench-model [--conv CIN:COUT:W] [--add W:H:C] [--repeat N] [--write-programs DIR]\n"
	     "                             the engine model's speed on the host (a measurement)");
