/*
 * libFuzzer target: inspect and the engine model agree (issue 21 section 4), on mutants of real
 * programs' TDs.
 *
 * Input: a program as the tool reads it (a .hwx, a raw task stream or an anec container; seeds:
 * the fixtures and mkprog's programs, tests/fuzz/seeds/fuzz_agree.sh). The custom mutator keeps
 * the program's structure and changes 1 to 3 register value words of its TDs (a bit flipped, a
 * field-sized run of bits set or cleared, a small step, 0, or the value another TD or program
 * wrote to the same register), or gives every TD whose Hin equals its Hout 1 to 8 rows, or
 * (one in 8) makes one extent smaller through the whole chain (every Win, Hin, Wout, Hout, Cin and
 * Cout holding a value v, then one time in two the largest ones too until the task is within the
 * compute limit: mut_shrink, tests/fuzz/mutate.c), or (one in 8 of the rest) moves a TD's read of
 * L2 memory (Source2Base, SourceBase, the second source's row stride) or makes one TD that writes L2
 * memory smaller alone (mut_l2: a second operand, a normalize's pair or a reduction reading L2
 * memory no TD wrote); one mutation in 16 is libFuzzer's own, on the whole file.
 *
 * Each input goes through the library calls the tool makes: `inspect --brief` (ldr_load with no
 * flags, then ldr_print LDR_P_BRIEF) and `submit` (session_run with the default grants, as
 * anefw-tool submit with no --grant). Properties, each an abort:
 *  1. a run that completes leaves no TD marked by inspect ("not modelled", or a destination
 *     "refused"), and a run the model stops at TD t leaves TDs 0 to t-1 unmarked: inspect said
 *     the model would not compute what it computed;
 *  2. a run the model refuses on a register field or combination (ENG_FR_FIELD,
 *     ENG_FR_COMBINATION) at TD t leaves TD t marked by inspect: inspect printed as computed a
 *     TD the model refuses. Not compared: the other reasons (data, activation records,
 *     capacity, values), which docs/engine-model.md ("Left unmarked") leaves unmarked (a read of
 *     L2 memory no TD wrote is compared since inspect's walks follow L2 memory, fw/td
 *     l2written.c);
 *  3. every byte range the model touches lies inside a grant the session placed (a write inside a
 *     writable one), or is a read of the kernel-unit copy the control path made (the session's
 *     layout, app/session.c place); and the session's guard bytes are intact.
 * The model's compute limit is 2^20 operations a task, for a fuzzer's pace: the kernel fixtures'
 * 4,096,000 elements and every sweep stream (2 x 10^6 to 1.6 x 10^9) are refused at TD 0 to 4
 * (ENG_FR_CAPACITY, not compared) until a mutant makes them smaller. FUZZ_AGREE_STATS=1 prints each verdict's count at exit, and how many inputs reached
 * each refusal by name (the control path's and the session's before the engine, the model's by its
 * reason and why; tests/fuzz/reach.c, fuzz_submit's too): a campaign's reach.
 */
#include "app/backend.h"
#include "app/session.h"
#include "engine/model/model.h"
#include "fw/common/le.h"
#include "fw/common/outf.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "plat/plat.h"
#include "tests/fuzz/mutate.h"
#include "tests/fuzz/reach.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define OPS_LIMIT (1ull << 20) /* the model's compute limit here: operations a task */

static struct app_session *sess;
static struct ldr_program lp;

/* ---- the grants the session placed (its fill hook), and the touch check ---- */
static struct subq_grant granted[SESSION_MAX_GRANTS];
static unsigned ngranted;
static uint64_t ku_lo, ku_hi;     /* the kernel-unit copy: [ku_lo, ku_hi) */
static uint64_t fold_lo, fold_hi; /* the weights the firmware folded: [fold_lo, fold_hi) */

static void fill_hook(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx, (void)buf, (void)is_weights;
	if (ngranted < SESSION_MAX_GRANTS)
		granted[ngranted++] = *g;
	if (g->mapped >= fold_lo + SESSION_GUARD && (fold_hi == fold_lo || g->mapped - SESSION_GUARD < fold_hi))
		fold_hi = g->mapped - SESSION_GUARD; /* the fold scratch ends a guard page before the first grant */
}

static void touched(void *ctx, uint64_t dev, uint64_t len, int write)
{
	(void)ctx;
	for (unsigned i = 0; i < ngranted; i++) {
		const struct subq_grant *g = &granted[i];
		if (dev >= g->mapped && dev - g->mapped <= g->size && len <= g->size - (dev - g->mapped) &&
		    (write ? (g->access & POL_WRITE) : (g->access & POL_READ)))
			return;
	}
	if (!write && dev >= ku_lo && dev <= ku_hi && len <= ku_hi - dev)
		return;
	if (!write && dev >= fold_lo && dev <= fold_hi && len <= fold_hi - dev)
		return;
	fprintf(stderr, "fuzz_agree: the model %s [0x%llx, +0x%llx), in no grant that allows it\n",
		write ? "wrote" : "read", (unsigned long long)dev, (unsigned long long)len);
	abort();
}

/* ---- inspect's text ---- */
static char *itext;
static size_t ilen, icap;

static void isink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (ilen + n + 1 > icap) {
		size_t c = icap ? icap : 1u << 16;
		while (ilen + n + 1 > c)
			c *= 2;
		char *t = realloc(itext, c);
		if (!t)
			abort();
		itext = t;
		icap = c;
	}
	memcpy(itext + ilen, s, n);
	ilen += n;
	itext[ilen] = 0;
}

/* Whether inspect's text marks TD t: a mark on a line of its block ("td t at ..." up to the next
 * line not indented or the next TD's), or on a line "  td t ch ..." of the activation records. */
static const char *marks[] = {"not modelled", ": refused, "};

static int line_marked(const char *a, const char *b)
{
	for (unsigned k = 0; k < sizeof marks / sizeof marks[0]; k++) {
		size_t m = strlen(marks[k]);
		for (const char *p = a; p + m <= b; p++)
			if (!memcmp(p, marks[k], m))
				return 1;
	}
	return 0;
}

static int td_marked(unsigned t, const char **where)
{
	char head[32], chead[32];
	snprintf(head, sizeof head, "td %u at ", t);
	snprintf(chead, sizeof chead, "  td %u ch ", t);
	int in = 0;
	for (const char *a = itext; a && *a;) {
		const char *b = strchr(a, '\n');
		if (!b)
			b = a + strlen(a);
		if (!strncmp(a, "td ", 3))
			in = !strncmp(a, head, strlen(head));
		else if (a[0] != ' ')
			in = 0;
		if ((in || !strncmp(a, chead, strlen(chead))) && line_marked(a, b)) {
			*where = a;
			return 1;
		}
		a = *b ? b + 1 : b;
	}
	return 0;
}

/* FUZZ_AGREE_STATS=1: at exit, how many inputs each verdict had (stderr) */
static unsigned long n_loaded, n_before, n_ok, n_fault[ENG_FR__COUNT], n_other, n_marked, n_l2unwritten;

static void stats(void)
{
	fprintf(stderr, "fuzz_agree: %lu loaded, %lu refused before the engine, %lu completed, %lu other engine errors;"
		" faults by reason:", n_loaded, n_before, n_ok, n_other);
	for (unsigned r = 0; r < ENG_FR__COUNT; r++)
		fprintf(stderr, " %lu", n_fault[r]);
	fprintf(stderr, "; field/combination refusals marked %lu (a read of L2 memory no TD wrote %lu)\n", n_marked,
		n_l2unwritten);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	reach_init("FUZZ_AGREE_STATS", "fuzz_agree", stats);
	app_backend_set_ops_limit(OPS_LIMIT);
	sess = session_create(plat_dma());
	if (!sess)
		abort();
	struct anem *m = session_eng(sess)->dev;
	m->touch = touched;
	m->touch_ctx = NULL;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* inspect --brief */
	ilen = 0;
	if (itext)
		itext[0] = 0;
	if (ldr_load(data, size, 0, &lp) != LDR_OK)
		return 0;
	ldr_print(&lp, LDR_P_BRIEF, isink, NULL);
	n_loaded++;
	/* where the session puts the kernel-unit copy and the folded weights (app/session.c place:
	 * a guard page, the TD area, a guard page, the weights' copy, a guard page, the fold
	 * scratch, a guard page, then the grants; fold_hi is set from the grants) */
	const uint64_t pg = 0xfff;
	ku_lo = SESSION_DEV_BASE + SESSION_GUARD + ((lp.td_area_len + pg) & ~pg) + SESSION_GUARD;
	ku_hi = ku_lo + lp.weights_len;
	fold_lo = fold_hi = ku_lo + ((lp.weights_len + pg) & ~pg) + SESSION_GUARD;
	/* submit */
	ngranted = 0;
	const struct session_hooks h = {.fill = fill_hook};
	/* an arena of 40 MiB at most (the session's default is 256): the kernel fixtures' 16 MB run,
	 * a mutant granted 131 MB took over libFuzzer's 10 s filling and zeroing it under ASan */
	const struct session_opts o = {.ldr_flags = 0, .use_defaults = 1, .hooks = &h, .max_arena = 40ull << 20};
	struct session_result res;
	session_run(sess, data, size, &o, &res);
	if (!res.loaded || res.st.err != CTRL_OK || (res.serr != SESSION_OK && res.serr != SESSION_E_CANARIES)) {
		n_before++;
		reach_count("before the engine", !res.loaded ? ldr_err_name(res.lerr)
				   : res.st.err != CTRL_OK ? ctrl_status_name(&res.st)
							   : session_err_name(res.serr));
		return 0; /* refused before the engine: nothing of the model's to compare */
	}
	if (!res.canaries_ok) {
		fprintf(stderr, "fuzz_agree: a guard byte changed\n");
		abort();
	}
	const char *where = NULL;
	if (res.run == ENG_OK) {
		n_ok++;
		reach_engine(res.run, &res.fault);
		for (unsigned t = 0; t < lp.ntds; t++)
			if (td_marked(t, &where)) {
				fprintf(stderr, "fuzz_agree: the model computed every TD, inspect marks td %u:\n%.300s\n",
					t, where);
				abort();
			}
		return 0;
	}
	if (res.run != ENG_E_FAULT || res.fault.reason >= ENG_FR__COUNT) {
		if (reach_on() && n_other++ < 20)
			fprintf(stderr, "fuzz_agree: engine error %s: %s\n", eng_err_name(res.run), res.fault_text);
	} else
		n_fault[res.fault.reason]++;
	reach_engine(res.run, &res.fault);
	/* the TDs before the one the model stopped at, it computed: none of them marked (property 1) */
	for (int t = 0; res.run == ENG_E_FAULT && t < res.fault.td; t++)
		if (td_marked((unsigned)t, &where)) {
			fprintf(stderr, "fuzz_agree: the model computed td %d and stopped at td %d, inspect marks td %d:\n%.300s\n",
				t, res.fault.td, t, where);
			abort();
		}
	if (res.run != ENG_E_FAULT || res.fault.td < 0 ||
	    (res.fault.reason != ENG_FR_FIELD && res.fault.reason != ENG_FR_COMBINATION))
		return 0;
	if (td_marked((unsigned)res.fault.td, &where)) {
		n_marked++;
		if (res.fault.why && strstr(res.fault.why, "L2 memory no TD of this submission wrote"))
			n_l2unwritten++;
	}
	else {
		fprintf(stderr, "fuzz_agree: the model refuses td %d, inspect prints it as computed:\n%s\n",
			res.fault.td, res.fault_text);
		abort();
	}
	return 0;
}

/* ---- the mutator: register value words of the program's TDs (tests/fuzz/mutate.c) ---- */
#define DICT_WORDS (ANEM_WINDOW_BYTES / 4)
#define DICT_VALS 4
static uint32_t dict[DICT_WORDS][DICT_VALS]; /* values seen written to each register */
static uint8_t dict_n[DICT_WORDS];

static void seen(uint32_t addr, uint32_t value)
{
	unsigned k = addr / 4;
	if (k >= DICT_WORDS)
		return;
	unsigned j = 0;
	while (j < dict_n[k] && dict[k][j] != value)
		j++;
	if (j == dict_n[k]) {
		if (dict_n[k] < DICT_VALS)
			dict[k][dict_n[k]++] = value;
		else
			dict[k][mut_rnd() % DICT_VALS] = value;
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	mut_seed(seed);
	if (mut_rnd() % 16 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	/* every write of every TD, and the values into the dictionary */
	const unsigned n = mut_writes(data, size, 0, seen);
	if (!n)
		return LLVMFuzzerMutate(data, size, max_size);
	const struct mut_word *wl = mut_wl;
	/* one extent smaller through the whole chain, so a chain past the compute limit (the sweeps'
	 * streams: 2 x 10^6 to 1.6 x 10^9 operations) reaches its later TDs */
	if (mut_rnd() % 8 == 0 && mut_shrink(data, size, n, 0, OPS_LIMIT))
		return size;
	/* a read of L2 memory moved (a second operand's, a pair's, a reduction's) or a TD writing
	 * L2 memory made smaller alone: reads of L2 memory no TD wrote */
	if (mut_rnd() % 8 == 0 && mut_l2(data, n))
		return size;
	if (mut_rnd() % 8 == 0) {
		/* fewer rows: every TD whose Hin equals its Hout (elementwise reads and writes, the
		 * kernel fixtures' 2560 rows) gets the same 1 to 8, so a program whose operations are
		 * past the compute limit reaches the model's paths */
		const uint32_t h = 1 + mut_rnd() % 8, hm = td_field_mask(H13_INDIM_HIN_W) << H13_INDIM_HIN_LSB;
		for (unsigned i = 0; i < n; i++) {
			if (wl[i].addr != H13_COMMON_INDIM || i + 1 >= n)
				continue;
			for (unsigned j = i + 1; j < n; j++) {
				if (wl[j].addr == H13_COMMON_INDIM)
					break; /* the next TD's */
				if (wl[j].addr != H13_COMMON_OUTDIM)
					continue;
				uint32_t vi = le_rd32(data + wl[i].off), vo = le_rd32(data + wl[j].off);
				if ((vi & hm) == (vo & hm)) {
					le_wr32(data + wl[i].off, (vi & ~hm) | h << H13_INDIM_HIN_LSB);
					le_wr32(data + wl[j].off, (vo & ~hm) | h << H13_OUTDIM_HOUT_LSB);
				}
				break;
			}
		}
		return size;
	}
	unsigned times = 1 + mut_rnd() % 3;
	for (unsigned i = 0; i < times; i++) {
		const struct mut_word *x = &wl[mut_rnd() % n];
		uint32_t v = le_rd32(data + x->off);
		unsigned k = x->addr / 4, lsb = mut_rnd() % 32, w = 1 + mut_rnd() % 8;
		uint32_t mask = (w >= 32 ? ~0u : ((1u << w) - 1u)) << lsb;
		switch (mut_rnd() % 7) {
		case 0:
			v ^= 1u << lsb;
			break;
		case 1:
			v = (v & ~mask) | (mut_rnd() & mask);
			break;
		case 2:
			v &= ~mask;
			break;
		case 3:
			v += (mut_rnd() % 2 ? 1u : -1u) << lsb;
			break;
		case 4:
			v = 0;
			break;
		default:
			if (k < DICT_WORDS && dict_n[k])
				v = dict[k][mut_rnd() % dict_n[k]];
			else
				v ^= 1u << lsb;
			break;
		}
		le_wr32(data + x->off, v);
	}
	return size;
}
