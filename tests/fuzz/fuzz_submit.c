/*
 * libFuzzer target: a submission (grant table + program) through the control path and, when the
 * plan passes, the engine model over an arena with guard bytes around every buffer.
 *
 * Input: byte 0 mode (bit 0 raw stream, bit 1 default grants), byte 1 grant count (mod 34),
 * then 16 bytes per grant (bar, access, flags, pad, size u32, offset u32, dva u32), then the
 * program. Given grants are placed inside the arena's first 256 KiB at their offset (64-byte
 * aligned); default grants (ctrl_default_grants) one after the other from its start, and filled
 * as the session fills them (session_fill_buffer: the weights, an input's pattern, zeros), so the
 * model reads the program's own weights. The arena is sized for each input: the grants' region
 * (224 KiB at least), then TD memory, the kernel-unit copy and the fold scratch, each as large as
 * the program needs (8, 12 and 12 KiB at least: the layout of a 256 KiB arena before 2026-12-07,
 * where every sweep stream and kernel fixture was refused before the engine), 64 MiB at most.
 *
 * Property: every byte range the model touches (its touch hook) lies inside a range the control
 * path checked for that submission, so the ranges the engine moves cannot differ from the ones
 * the policy proved.
 *
 * The model's compute limit is OPS_LIMIT operations a task (FUZZ_SUBMIT_OPS=N overrides it, to
 * measure): at 2^24 one input takes at most about 5 s under ASan (the sweeps' ebmm, 200 TDs; the
 * others 0.4 to 2), at 2^28 18 of the sweeps' 27 streams take 5 to 39 s, past libFuzzer's 10 s
 * timeout for 9 (docs/robustness.md, "The fifth campaign"), so it stays 2^24 and the mutator
 * shrinks instead. The custom mutator is libFuzzer's own on the whole input but one time in 8,
 * when the program after the header loads: then one extent is made smaller through the whole
 * chain (tests/fuzz/mutate.c mut_shrink, as fuzz_agree's), so a stream past the limit reaches its
 * later TDs. FUZZ_SUBMIT_STATS=1 prints at exit how many inputs reached each verdict by name
 * (tests/fuzz/reach.c, fuzz_agree's too).
 */
#include "tests/unit/tsession.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "fw/common/le.h"
#include "fw/ctrl/ctrl.h"
#include "tests/fuzz/mutate.h"
#include "tests/fuzz/reach.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEV 0x40000000u
#define SMALL 0x40000u        /* given grants: offsets and addresses inside the first 256 KiB */
#define GRANTS 0x38000u       /* the grants' region at least (then TD memory, 8 KiB at least) */
#define ARENA_MAX (64u << 20) /* past it an input is left (counted: the harness) */
#define CANARY 0x5a

static uint8_t *arena;
static size_t arena_cap;
static uint32_t window[ANEM_WINDOW_BYTES / 4];
static struct ldr_program lp;
static struct ctrl_plan plan;
static struct anem model;
static struct subq_grant g[40];

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define OPS_LIMIT (1ull << 24) /* the model's compute limit here: operations a task */
static uint64_t ops_limit = OPS_LIMIT;
static unsigned long n_inputs, n_loaded, n_planned, n_ok;

static void stats(void)
{
	fprintf(stderr, "fuzz_submit: %lu inputs, %lu loaded, %lu planned (the engine ran), %lu completed; compute limit %llu\n",
		n_inputs, n_loaded, n_planned, n_ok, (unsigned long long)ops_limit);
}

/* n bytes rounded up to pages, and at least least */
static uint64_t page_at_least(uint64_t n, uint64_t least)
{
	n = (n + 0xfff) & ~0xfffull;
	return n > least ? n : least;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *e = getenv("FUZZ_SUBMIT_OPS");
	if (e && strtoull(e, NULL, 0))
		ops_limit = strtoull(e, NULL, 0);
	reach_init("FUZZ_SUBMIT_STATS", "fuzz_submit", stats);
	return 0;
}

static void touched(void *ctx, uint64_t dev, uint64_t len, int write)
{
	const struct ctrl_plan *pl = ctx;
	for (unsigned t = 0; t < pl->ntds; t++)
		for (unsigned r = 0; r < pl->td[t].nranges; r++) {
			const struct ctrl_range *x = &pl->td[t].r[r];
			if (x->whole || (write && !(x->access & POL_WRITE)))
				continue;
			if (dev >= x->runtime && dev - x->runtime + len <= x->len)
				return;
		}
	abort(); /* the model touched memory no check covered */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned mode = data[0], n = data[1] % 34;
	size_t pos = 2;
	if (size < pos + 16u * n)
		return 0;
	n_inputs++;
	for (unsigned i = 0; i < n; i++, pos += 16) {
		const uint8_t *d = data + pos;
		g[i] = (struct subq_grant){d[0], d[1] & 3u, d[2] & 1u, 0, le_rd32(d + 12),
					   le_rd32(d + 4) % (SMALL / 2),
					   DEV + ((le_rd32(d + 8) % SMALL) & ~63u)};
	}
	uint8_t *prog = malloc(size - pos ? size - pos : 1);
	if (!prog)
		return 0;
	memcpy(prog, data + pos, size - pos);
	enum ldr_err le = ldr_load(prog, size - pos, (mode & 1) ? LDR_F_RAW : 0, &lp);
	if (le != LDR_OK) {
		reach_count("the loader", ldr_err_name(le));
		free(prog);
		return 0;
	}
	n_loaded++;
	if (mode & 2) {
		struct ctrl_status st;
		if (ctrl_default_grants(&lp, g, 32, &n, &st) != CTRL_OK) {
			reach_count("the default grants", ctrl_status_name(&st));
			free(prog);
			return 0;
		}
		uint64_t at = 0;
		for (unsigned i = 0; i < n; i++) {
			g[i].mapped = DEV + at;
			at += (g[i].size + 0xfff) & ~0xfffull;
		}
	}
	/* the arena: the grants, then TD memory, the kernel-unit copy and the fold scratch (firmware
	 * memory), then a guard page */
	uint64_t grants = GRANTS;
	for (unsigned i = 0; (mode & 2) && i < n; i++)
		if (g[i].mapped - DEV + g[i].size > grants)
			grants = (g[i].mapped - DEV + g[i].size + 0xfff) & ~0xfffull;
	const uint64_t tdmem = grants, kumem = tdmem + page_at_least(lp.td_area_len, 0x2000),
		       foldmem = kumem + page_at_least(lp.weights_len, 0x3000),
		       end = foldmem + page_at_least(ctrl_fold_cap(&lp), 0x3000);
	if (end > ARENA_MAX) {
		reach_count("the harness", "an arena over 64 MiB");
		free(prog);
		return 0;
	}
	if (arena_cap < end + 0x1000) {
		free(arena);
		arena_cap = end + 0x1000;
		if (!(arena = malloc(arena_cap)))
			abort();
	}
	const size_t asize = end + 0x1000;
	memset(arena, CANARY, asize);
	struct pol_range forbid[2] = {{DEV + tdmem, kumem - tdmem, 0, 0}, {DEV + kumem, end - kumem, 0, 0}};
	struct ctrl_scratch sc = {arena + tdmem, kumem - tdmem, DEV + tdmem,
				  arena + kumem, foldmem - kumem, DEV + kumem,
				  arena + foldmem, end - foldmem, DEV + foldmem};
	if (ctrl_plan(&plan, &lp, g, n, forbid, 2, &sc, NULL) == CTRL_OK) {
		/* default grants filled as the session fills them (the weights among them) */
		for (unsigned i = 0; (mode & 2) && i < n; i++)
			session_fill_buffer(&lp, &g[i], arena + (g[i].mapped - DEV));
		anem_init(&model, (uintptr_t)window, arena, DEV, end, plat_dma());
		/* a compute limit for a fuzzer's pace (and its refusal path exercised): 2^24 */
		anem_set_ops_limit(&model, ops_limit);
		model.touch = touched;
		model.touch_ctx = &plan;
		struct eng eng = {.ops = &anem_ops, .dev = &model, .gen = lp.gen};
		anem_begin(&model);
		const int run = eng_run(&eng, &plan, 0, 0);
		anem_end(&model);
		n_planned++;
		n_ok += run == ENG_OK;
		reach_engine(run, &eng.fault);
		/* the guard page past the arena is never touched */
		for (size_t k = end; k < asize; k++)
			if (arena[k] != CANARY)
				abort();
		/* bytes outside every writable grant (every grant, filled: the touch check holds the
		 * read-only ones), TD memory and scratch keep the canary */
		for (size_t k = 0; k < tdmem; k += 61) {
			int w = 0;
			for (unsigned i = 0; i < n && !w; i++)
				w = ((mode & 2) || (g[i].access & POL_WRITE)) && DEV + k >= g[i].mapped &&
				    DEV + k - g[i].mapped < g[i].size;
			if (!w && arena[k] != CANARY)
				abort();
		}
	} else {
		reach_count("the control path", ctrl_status_name(&plan.st));
		for (size_t k = 0; k < asize; k++)
			if (arena[k] != CANARY && (k < tdmem || k >= end)) /* TD memory: the plan's copy */
				abort();
	}
	free(prog);
	return 0;
}


/* libFuzzer's own mutation, or (one in 8) one extent of the program after the header made smaller
 * through the chain (mut_shrink), on an aligned copy of the program */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	mut_seed(seed);
	if (mut_rnd() % 8 || size < 2 || size - 2 < 16u * (data[1] % 34))
		return LLVMFuzzerMutate(data, size, max_size);
	const size_t pos = 2 + 16u * (data[1] % 34);
	const unsigned flags = (data[0] & 1) ? LDR_F_RAW : 0;
	uint8_t *p = malloc(size - pos ? size - pos : 1);
	if (!p)
		return LLVMFuzzerMutate(data, size, max_size);
	memcpy(p, data + pos, size - pos);
	const unsigned n = mut_writes(p, size - pos, flags, NULL);
	const int done = n && mut_shrink(p, size - pos, n, flags, ops_limit);
	if (done)
		memcpy(data + pos, p, size - pos);
	free(p);
	return done ? size : LLVMFuzzerMutate(data, size, max_size);
}
