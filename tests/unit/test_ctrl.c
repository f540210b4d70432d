/*
 * Control path (fw/ctrl) with the engine model (engine/model): every fixture submits with
 * its default grants; a hostile corpus of programs and grant tables is refused with its named
 * error before anything is programmed, with every byte outside the granted buffers intact.
 */
#include "tests/unit/tsession.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "fw/common/le.h"
#include "fw/ctrl/ctrl.h"
#include "fw/loader/hwx_format.h"
#include "fw/loader/hwx_write.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/benchprog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a synthetic raw task stream: one H13 TD (0x274 bytes) and its weights at 0x280 ---- */
struct synth {
	uint32_t win, hin, cin, cout, wout, hout, groups, infmt, outfmt;
	uint32_t src_en, src[5]; /* base, row, plane, depth, group (bytes) */
	uint32_t dst_en, dst[5];
	uint32_t src2[5];        /* the second source's own base and strides (TileDMASrc +0x1c..) */
	struct td_hdr h;         /* end of network; the BARs by synth_bar */
	int no_kdma;             /* 1: the TD writes no KernelDMASrc block (it inherits one) */
	int no_kcfg;             /* 1: the TD writes no NE.KernelCfg (it inherits one) */
	uint32_t kcfg;           /* NE.KernelCfg: the weights' form */
	unsigned ncoeff;
	uint32_t coeff_base[16], coeff_size[16];
	const uint8_t *weights;
	size_t wlen;
};

#define TD_BYTES 0x274u
#define W_OFF 0x280u
static uint8_t prog[W_OFF + 0x12000];

/* The TD through fw/td's writer: KernelDMASrc (unless no_kdma), Common, NE.KernelCfg (unless
 * no_kcfg), TileDMASrc, TileDMADst, whole blocks but KernelCfg. */
static size_t synth_build(const struct synth *s)
{
	uint32_t w[TD_BYTES / 4];
	struct td_writer tw;
	struct td_block b;
	tdw_begin(&tw, w, TD_BYTES / 4, &s->h);
	if (!s->no_kdma) {
		tdb_begin(&b, H13_BLK_KDMA, H13_BLK_KDMA_WORDS);
		for (unsigned c = 0; c < s->ncoeff; c++) {
			tdb_set(&b, H13_COEFF_DMACONFIG(c),
				H13_PUT(H13_DMA_EN, 1) | H13_PUT(H13_DMA_CACHEHINT, 2));
			tdb_set(&b, H13_COEFF_BASEADDR(c), s->coeff_base[c]);
			tdb_set(&b, H13_COEFF_BFRSIZE(c), s->coeff_size[c]);
		}
		tdw_put(&tw, &b);
	}
	tdb_begin(&b, H13_BLK_COMMON, H13_BLK_COMMON_WORDS);
	td_fixed_block(b.base, b.v, b.count);
	tdb_set(&b, H13_COMMON_INDIM, H13_PUT(H13_INDIM_WIN, s->win) | H13_PUT(H13_INDIM_HIN, s->hin));
	tdb_set(&b, H13_COMMON_CHCFG,
		H13_PUT(H13_CHCFG_INFMT, s->infmt) | H13_PUT(H13_CHCFG_OUTFMT, s->outfmt));
	tdb_set(&b, H13_COMMON_CIN, H13_PUT(H13_CIN, s->cin));
	tdb_set(&b, H13_COMMON_COUT, H13_PUT(H13_COUT, s->cout));
	tdb_set(&b, H13_COMMON_OUTDIM,
		H13_PUT(H13_OUTDIM_WOUT, s->wout) | H13_PUT(H13_OUTDIM_HOUT, s->hout));
	tdb_set(&b, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, s->groups));
	tdb_set(&b, H13_COMMON_TILECFG, H13_PUT(H13_TILECFG_TILEHEIGHT, 1));
	tdb_set(&b, H13_COMMON_CONVCFG, TD_CONVCFG_UNIT);
	tdw_put(&tw, &b);
	tdb_begin(&b, H13_BLK_L2, H13_BLK_L2_WORDS);
	tdb_set(&b, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA);
	tdb_set(&b, H13_L2_RESULTCFG, TD_L2_RESULTCFG_DMA);
	tdw_put(&tw, &b);
	if (!s->no_kcfg)
		tdw_reg(&tw, H13_NE_KERNELCFG, s->kcfg);
	/* the NE as an elementwise pass, NonlinearMode 0 (Apple's copy TDs): a unit in the path,
	 * as every real TD has (the model refuses a TD with neither the NE nor the PE) */
	tdw_reg(&tw, H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) | H13_PUT(H13_MACCFG_KERNELMODE, 1) |
				    H13_PUT(H13_MACCFG_BIT20, 1));
	tdw_reg(&tw, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, 0x3c00u));
	static const uint32_t src_regs[5] = {H13_SRC_BASEADDR, H13_SRC_ROWSTRIDE,
					     H13_SRC_PLANESTRIDE, H13_SRC_DEPTHSTRIDE,
					     H13_SRC_GROUPSTRIDE};
	static const uint32_t src2_regs[5] = {H13_SRC2_BASEADDR, H13_SRC2_ROWSTRIDE,
					      H13_SRC2_PLANESTRIDE, H13_SRC2_DEPTHSTRIDE,
					      H13_SRC2_GROUPSTRIDE};
	static const uint32_t dst_regs[5] = {H13_DST_BASEADDR, H13_DST_ROWSTRIDE,
					     H13_DST_PLANESTRIDE, H13_DST_DEPTHSTRIDE,
					     H13_DST_GROUPSTRIDE};
	tdb_begin(&b, H13_BLK_TILESRC, H13_BLK_TILESRC_WORDS);
	tdb_set(&b, H13_SRC_DMACONFIG, H13_PUT(H13_DMA_EN, s->src_en));
	for (unsigned i = 0; i < 5; i++) {
		tdb_set(&b, src_regs[i], s->src[i]);
		tdb_set(&b, src2_regs[i], s->src2[i]);
	}
	tdb_set(&b, H13_SRC_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_SRC_FMT));
	tdw_put(&tw, &b);
	tdb_begin(&b, H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS);
	tdb_set(&b, H13_DST_DMACONFIG, H13_PUT(H13_DMA_EN, s->dst_en));
	for (unsigned i = 0; i < 5; i++)
		tdb_set(&b, dst_regs[i], s->dst[i]);
	tdb_set(&b, H13_DST_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_DST_FMT));
	tdw_put(&tw, &b);
	CHECK(tdw_end(&tw) != 0);
	memset(prog, 0, sizeof prog);
	for (unsigned i = 0; i < TD_BYTES / 4; i++)
		le_wr32(prog + 4 * i, w[i]);
	if (s->wlen)
		memcpy(prog + W_OFF, s->weights, s->wlen);
	return W_OFF + (s->wlen ? s->wlen : 64);
}

/* Header BAR slot `slot` enabled at BAR index idx, or (idx < 0) disabled. */
static void synth_bar(struct synth *s, unsigned slot, int idx)
{
	s->h.bar_en = (uint8_t)(idx < 0 ? s->h.bar_en & ~(1u << slot) : s->h.bar_en | 1u << slot);
	s->h.bar_idx[slot] = (uint8_t)(idx < 0 ? 0 : idx);
}

static uint8_t wts[0x200];

/* 32 x 2 x 2 fp16 in, same out; three 64-byte coefficient channels */
static void synth_default(struct synth *s)
{
	memset(s, 0, sizeof *s);
	s->win = s->wout = 32;
	s->hin = s->hout = 2;
	s->cin = s->cout = 2;
	s->groups = 1;
	s->infmt = s->outfmt = 2;
	s->kcfg = H13_KERNELFMT_FP16 << H13_KERNELCFG_KERNELFMT_LSB;
	s->src_en = s->dst_en = 1;
	s->src[1] = s->dst[1] = 64;
	s->src[2] = s->dst[2] = 128;
	s->src[3] = s->dst[3] = 256;
	s->h.eon = 1;
	synth_bar(s, H13_BAR_RBASE0, 5);
	synth_bar(s, H13_BAR_WBASE, 4);
	synth_bar(s, H13_BAR_KBASE0, 1);
	s->ncoeff = 3;
	for (unsigned c = 0; c < 3; c++) {
		s->coeff_base[c] = 64 * c;
		s->coeff_size[c] = 64;
	}
	for (unsigned i = 0; i < sizeof wts; i++)
		wts[i] = (uint8_t)(i * 13 + 1);
	s->weights = wts;
	s->wlen = 0xc0;
}

/* ---- a test arena: buffers between canaries ---- */
#define DEV 0x40000000u
#define ARENA 0x24000u
#define TDMEM 0x1c000u
#define KUMEM 0x1d000u
#define FOLDMEM 0x20000u /* 0x4000 bytes of fold scratch */
static uint8_t arena[ARENA], snap[ARENA];
static struct ldr_program lp;
static struct ctrl_plan plan;
static struct anem model;
static uint32_t window[ANEM_WINDOW_BYTES / 4];

static const struct ctrl_limits *submit_limits; /* NULL: the defaults */

static struct subq_grant G(unsigned bar, uint64_t size, unsigned access)
{
	return (struct subq_grant){bar, access, 0, 0, 0, size, 0};
}

static void default_grants(struct subq_grant *g, unsigned *n)
{
	g[0] = G(5, 256, POL_READ);
	g[1] = G(4, 256, POL_WRITE);
	g[2] = G(1, 0xc0, POL_READ);
	*n = 3;
}

/* Test hook: called after the run, before the arena is compared (the checker's self-test). */
static void (*after_run)(void);

/*
 * Places grants without a mapped address 4 KiB apart in the arena (contents: a pattern), plans,
 * and runs the model when the plan passes. Returns the status name ("loader" when the loader
 * refuses the program). On every path *ran says whether the engine ran the plan, and *intact
 * whether every byte the submission may not write is unchanged (the whole arena when nothing
 * was planned).
 */
static const char *submit(size_t len, struct subq_grant *g, unsigned n, int *intact, int *ran)
{
	*ran = 0;
	*intact = 0;
	memset(arena, SESSION_CANARY, sizeof arena);
	int loaded = ldr_load(prog, len, LDR_F_RAW, &lp) == LDR_OK;
	for (unsigned i = 0; loaded && i < n; i++) {
		if (g[i].mapped)
			continue;
		g[i].mapped = DEV + 0x1000u * (2 * i + 1);
		if (g[i].size <= 0x1000 && (g[i].mapped - DEV) + g[i].size <= TDMEM)
			for (uint64_t k = 0; k < g[i].size; k++)
				arena[g[i].mapped - DEV + k] = (uint8_t)(k + 3 * i);
		if (g[i].bar == 1 && g[i].size <= 0x1000)
			memcpy(arena + (g[i].mapped - DEV), prog + W_OFF,
			       g[i].size < lp.weights_len ? g[i].size : lp.weights_len);
	}
	memcpy(snap, arena, sizeof arena);
	int planned = 0;
	enum ctrl_err e = CTRL_E_ARG;
	if (loaded) {
		struct pol_range forbid[3] = {{DEV + TDMEM, 0x1000, 0, 0}, {DEV + KUMEM, 0x3000, 0, 0},
					      {DEV + FOLDMEM, 0x4000, 0, 0}};
		struct ctrl_scratch sc = {arena + TDMEM, 0x1000, DEV + TDMEM,
					  arena + KUMEM, 0x3000, DEV + KUMEM,
					  arena + FOLDMEM, 0x4000, DEV + FOLDMEM};
		e = ctrl_plan(&plan, &lp, g, n, forbid, 3, &sc, submit_limits);
		planned = e == CTRL_OK;
	}
	if (planned) {
		anem_init(&model, (uintptr_t)window, arena, DEV, sizeof arena, plat_dma());
		struct eng eng = {.ops = &anem_ops, .dev = &model, .gen = lp.gen};
		anem_begin(&model);
		*ran = eng_run(&eng, &plan, 1, 0) == ENG_OK;
		anem_end(&model);
	}
	if (after_run)
		after_run();
	/* everything but writable granted buffers of a planned submission, TD memory and the kunit
	 * scratch is unchanged */
	*intact = 1;
	for (size_t k = 0; k < sizeof arena; k++) {
		uint64_t a = DEV + k;
		/* TD memory and the kunit scratch are the firmware's own */
		if ((k >= TDMEM && k < TDMEM + 0x1000) || (k >= KUMEM && k < KUMEM + 0x3000) ||
		    (k >= FOLDMEM && k < FOLDMEM + 0x4000))
			continue;
		int writable = 0;
		for (unsigned i = 0; i < n && !writable; i++)
			if ((g[i].access & POL_WRITE) && a >= g[i].mapped && a - g[i].mapped < g[i].size)
				writable = 1;
		if ((!planned || !writable) && arena[k] != snap[k])
			*intact = 0;
	}
	return loaded ? ctrl_status_name(&plan.st) : "loader";
}

TEST(ctrl, synthetic_submits_and_moves)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	synth_default(&s);
	size_t len = synth_build(&s);
	default_grants(g, &n);
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran);
	CHECK(intact);
	CHECK_EQ(plan.td[0].nranges, 5u);
	/* the output holds what the model moved through L2: the input's fp16 values, a NaN as
	 * +inf (the input port's coercion, docs/engine-model.md) */
	unsigned moved_bad = 0, nans = 0;
	for (unsigned j = 0; j < 128; j++) {
		uint16_t x = le_rd16(snap + (g[0].mapped - DEV) + 2 * j);
		uint16_t y = le_rd16(arena + (g[1].mapped - DEV) + 2 * j);
		nans += (x & 0x7fffu) > 0x7c00u;
		moved_bad += y != ((x & 0x7fffu) > 0x7c00u ? 0x7c00u : x);
	}
	CHECK_EQ(moved_bad, 0u);
	CHECK(nans > 0); /* the pattern exercises the coercion */
	/* the TD's registers reached the window; an unrelocated coefficient base (an offset from
	 * KBase0's BAR) is programmed as the absolute engine address the engine reads */
	CHECK_EQ(window[H13_COEFF_BASEADDR(1) / 4], g[2].mapped + 64u);
	CHECK_EQ(window[0x13800 / 4], 1u);
	CHECK_EQ(model.tq.bar[5], g[0].mapped);
	CHECK_EQ(model.tq.bar[4], g[1].mapped);
	CHECK_EQ(model.tq.bar[1], g[2].mapped);
	CHECK_EQ(model.tq.td_count, 1u);
	CHECK_EQ(model.tq.priority, 1u);
	CHECK_EQ(model.nmoves, 5u);
	CHECK_EQ(model.bytes_moved, (uint64_t)(3 * 64 + 2 * 256));
}

/* Entries of the plan's write list that differ from TD i's register stream as it stands in the
 * plan's TD memory (address or value), plus any difference in count. */
static unsigned list_mismatches(const struct ctrl_plan *pl, unsigned i)
{
	struct ldr_write_iter it;
	struct ldr_write w;
	unsigned bad = 0, k = 0;
	ldr_writes_begin(pl->p, i, &it);
	for (; ldr_writes_next(&it, &w); k++) {
		if (k >= pl->td[i].wl_n) {
			bad++;
			continue;
		}
		const struct ctrl_reg *r = &pl->wl[pl->td[i].wl_first + k];
		bad += r->addr != w.addr || r->value != le_rd32(pl->td_mem + w.area_off);
	}
	return bad + (k != pl->td[i].wl_n);
}

/* Runs the plan again on the model, per register (batch NULL) or in batches. */
static int rerun(const struct eng_batch *batch)
{
	memset(window, 0, sizeof window);
	anem_init(&model, (uintptr_t)window, arena, DEV, sizeof arena, plat_dma());
	struct eng eng = {.ops = &anem_ops, .dev = &model, .batch = batch, .gen = lp.gen};
	anem_begin(&model);
	int r = eng_run(&eng, &plan, 1, 0);
	anem_end(&model);
	return r;
}

/* The plan records each TD's register writes as the checked image is built from them; the driver
 * programs that list, so a word changed in TD memory after the plan is not what reaches the
 * engine ("program what you checked"), on the per-register path and in batches. */
TEST(ctrl, write_list_is_the_checked_image)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	synth_default(&s);
	size_t len = synth_build(&s);
	default_grants(g, &n);
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran);
	CHECK(plan.wl_ok);
	CHECK(plan.td[0].wl_n > 0);
	CHECK(plan.td[0].wl_unique);
	CHECK_EQ(list_mismatches(&plan, 0), 0u);
	/* the checker fails on a wrong list */
	plan.wl[plan.td[0].wl_first + 1].value ^= 4u;
	CHECK(list_mismatches(&plan, 0) > 0);
	plan.wl[plan.td[0].wl_first + 1].value ^= 4u;
	/* change the TD memory word of the write to 0x13800 after the plan */
	uint32_t off;
	REQUIRE(twrite_offsets(&lp, 0, 0x13800u, &off, 1) == 1);
	uint8_t *word = arena + TDMEM + off;
	le_wr32(word, le_rd32(word) ^ 0x10u);
	CHECK(list_mismatches(&plan, 0) > 0);
	for (unsigned b = 0; b < 2; b++) {
		CHECK_EQ(rerun(b ? &anem_batch : NULL), ENG_OK);
		CHECK_EQ(window[0x13800 / 4], 1u);
		CHECK_EQ(window[H13_COEFF_BASEADDR(1) / 4], g[2].mapped + 64u);
		CHECK_EQ(model.nmoves, 5u);
	}
	le_wr32(word, le_rd32(word) ^ 0x10u);
	/* a register the engine does not hold as written is refused in batches too */
	struct anem_faults f = {ANEM_FAULT_READBACK, 3, 0, 0};
	anem_set_faults(&model, &f);
	memset(window, 0, sizeof window);
	struct eng eng = {.ops = &anem_ops, .dev = &model, .batch = &anem_batch, .gen = lp.gen};
	anem_begin(&model);
	CHECK_EQ(eng_run(&eng, &plan, 1, 0), ENG_E_READBACK);
	anem_end(&model);
	anem_set_faults(&model, NULL);
}

TEST(ctrl, extent_uses_every_stride_and_dimension)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	/* groups and the group stride count: 2 groups 512 apart need 768 bytes */
	synth_default(&s);
	s.groups = 2;
	s.src[4] = s.dst[4] = 512;
	size_t len = synth_build(&s);
	default_grants(g, &n);
	g[0].size = g[1].size = 767;
	CHECK_STR(submit(len, g, n, &intact, &ran), "range-outside-granted-buffer");
	CHECK(!ran && intact);
	default_grants(g, &n);
	g[0].size = g[1].size = 768;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran && intact);
	/* rows: the last row is whole 64-byte lines */
	synth_default(&s);
	s.win = s.wout = 33; /* 66 bytes: two lines */
	s.src[1] = s.dst[1] = 128;
	s.src[2] = s.dst[2] = 256;
	len = synth_build(&s);
	default_grants(g, &n);
	g[0].size = g[1].size = 256 + 128 + 127;
	CHECK_STR(submit(len, g, n, &intact, &ran), "range-outside-granted-buffer");
	CHECK(!ran && intact);
	default_grants(g, &n);
	g[0].size = g[1].size = 256 + 128 + 128;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran && intact);
}

/* submit() reports *ran and *intact on every path, and its memory check can fail. */
static struct subq_grant *stray_g;
static uint64_t stray_off;
static void stray_write(void)
{
	arena[stray_g->mapped - DEV + stray_off] ^= 0xff;
}

TEST(ctrl, submit_reports_intact_on_every_path)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	synth_default(&s);
	size_t len = synth_build(&s);
	/* a program the loader refuses: nothing planned, nothing ran, nothing changed */
	default_grants(g, &n);
	intact = ran = -1;
	CHECK_STR(submit(16, g, n, &intact, &ran), "loader");
	CHECK_EQ(ran, 0);
	CHECK_EQ(intact, 1);
	/* negative: a byte changed in a read-only buffer after a good run is caught */
	default_grants(g, &n);
	g[0].mapped = DEV + 0x1000; /* placed by hand, so the hook knows where */
	stray_g = &g[0];
	stray_off = 17;
	after_run = stray_write;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran);
	CHECK_EQ(intact, 0);
	/* ... and so is one changed one byte past the writable output */
	default_grants(g, &n);
	g[1].mapped = DEV + 0x3000;
	stray_g = &g[1];
	stray_off = g[1].size;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK_EQ(intact, 0);
	/* ... and on the loader's path too */
	default_grants(g, &n);
	g[0].mapped = DEV + 0x1000;
	stray_g = &g[0];
	stray_off = 0;
	CHECK_STR(submit(16, g, n, &intact, &ran), "loader");
	CHECK_EQ(intact, 0);
	/* a change inside the writable output is allowed */
	default_grants(g, &n);
	g[1].mapped = DEV + 0x3000;
	stray_g = &g[1];
	stray_off = g[1].size - 1;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK_EQ(intact, 1);
	after_run = NULL;
}

/* ---- kernel units in the weights ---- */
static uint8_t unit[0x12000];
static uint8_t k_actlut[0x80], k_palette[32], k_scale[24], k_bias[24], k_weights[12 * 16];
static const uint32_t k_channels[3] = {4, 4, 4};

static size_t ku_build_unit(uint32_t flags, uint32_t ncores, uint32_t actlut_len)
{
	static uint8_t big_lut[0x1100];
	struct ku_build b = {
		.version = 5, .format = 9, .flags = flags, .ncores = ncores, .bytes_per_channel = 16,
		.actlut = actlut_len > sizeof k_actlut ? big_lut : k_actlut, .actlut_len = actlut_len,
		.palette = k_palette, .palette_len = sizeof k_palette,
		.palette_bits = 4, .palette_luts = 1,
		.scale = k_scale, .scale_len = sizeof k_scale,
		.bias = k_bias, .bias_len = sizeof k_bias,
		.weights = k_weights, .weights_len = sizeof k_weights,
		.ocg_channels = k_channels, .nocg = 3,
	};
	return ku_write(&b, unit, sizeof unit);
}

/* A synthetic program whose weights are the kernel unit in unit[0..ulen). */
static size_t ku_program(struct synth *s, size_t ulen, struct subq_grant *g, unsigned *n)
{
	size_t wlen = (ulen + 63) & ~(size_t)63;
	synth_default(s);
	s->weights = unit;
	s->wlen = wlen;
	s->ncoeff = 1;
	s->coeff_base[0] = 0;
	s->coeff_size[0] = (uint32_t)wlen;
	size_t len = synth_build(s);
	default_grants(g, n);
	g[2].size = wlen;
	return len;
}

static uint32_t ocg_off(size_t ulen)
{
	struct ku_unit u;
	if (ku_parse(unit, ulen, &ctrl_h13_ku_limits, &u) != KU_OK)
		return 0;
	return u.sec[KU_SEC_OCGS].offset;
}

TEST(ctrl, kunit_streams_programmed)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	size_t ulen = ku_build_unit(0, 1, sizeof k_actlut);
	REQUIRE(ulen);
	size_t len = ku_program(&s, ulen, g, &n);
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran && intact);
	REQUIRE(plan.have_ku);
	CHECK_EQ(plan.td[0].nstream_regs, 12u);
	struct ku_unit u;
	REQUIRE(ku_parse(unit, ulen, &ctrl_h13_ku_limits, &u) == KU_OK);
	static const uint32_t en[4] = {0x5548, 0x5558, 0x5568, 0x5578};
	static const uint32_t bo[4] = {0x554c, 0x555c, 0x556c, 0x557c};
	static const uint32_t rl[4] = {0x1554, 0x1558, 0x155c, 0x1560};
	static const unsigned sec[4] = {KU_SEC_BIAS, KU_SEC_SCALE, KU_SEC_PALETTE, KU_SEC_ACTLUT};
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ(window[en[i] / 4], 1u);
		CHECK_EQ(window[bo[i] / 4], u.sec[sec[i]].offset);
		/* the relocation: the stream's section inside the granted weights */
		CHECK_EQ((uint64_t)window[rl[i] / 4], g[2].mapped + u.sec[sec[i]].offset);
	}
	/* the patched copy's record 0 carries the tile bases */
	uint32_t o = ocg_off(ulen);
	CHECK_EQ((uint64_t)le_rd32(arena + KUMEM + o + 8 + 8), g[0].mapped);
	CHECK_EQ((uint64_t)le_rd32(arena + KUMEM + o + 8 + 12), g[1].mapped);
}

/* ---- folding: int8 weights H13 does not stream, decoded to fp16 by the firmware ---- */

/* The fp16 of a small integer, written out here (not through fw/codec): the fold's oracle. */
static uint16_t int_fp16(int v)
{
	if (v == 0)
		return 0;
	uint16_t sign = v < 0 ? 0x8000u : 0;
	unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
	while ((a >> (e + 1)) != 0)
		e++;
	return (uint16_t)(sign | (e + 15u) << 10 | ((a << (10 - e)) & 0x3ffu));
}

TEST(ctrl, int8_weights_folded_to_fp16)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	size_t ulen = ku_build_unit(0, 1, sizeof k_actlut);
	REQUIRE(ulen);
	size_t len = ku_program(&s, ulen, g, &n);
	uint32_t wlen = s.coeff_size[0];
	/* fp16 weights: nothing folds */
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK_EQ(plan.td[0].folded, 0u);
	CHECK_EQ(plan.fold_used, 0u);
	/* int8: channel 0 becomes wlen fp16 values in the fold scratch, and the TD points at them */
	s.kcfg = H13_KERNELFMT_INT8 << H13_KERNELCFG_KERNELFMT_LSB;
	len = synth_build(&s);
	default_grants(g, &n);
	g[2].size = wlen;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran && intact);
	CHECK_EQ(plan.td[0].folded, 1u);
	CHECK_EQ(plan.td[0].fold_values, (uint64_t)wlen);
	CHECK_EQ(plan.fold_used, 2ull * wlen);
	unsigned bad = 0;
	for (uint32_t k = 0; k < wlen; k++)
		bad += le_rd16(arena + FOLDMEM + 2 * k) != int_fp16((int8_t)prog[W_OFF + k]);
	CHECK_EQ(bad, 0u);
	CHECK_EQ(window[H13_COEFF_BASEADDR(0) / 4], DEV + FOLDMEM);
	CHECK_EQ(window[H13_COEFF_BFRSIZE(0) / 4], 2u * wlen);
	CHECK_EQ(H13_GET(window[H13_NE_KERNELCFG / 4], H13_KERNELCFG_KERNELFMT), H13_KERNELFMT_FP16);
	int seen = 0;
	for (unsigned r = 0; r < plan.td[0].nranges; r++)
		if (plan.td[0].r[r].kind == CTRL_R_COEFF) {
			CHECK(plan.td[0].r[r].folded);
			CHECK_EQ(plan.td[0].r[r].runtime, DEV + FOLDMEM);
			CHECK_EQ(plan.td[0].r[r].len, 2ull * wlen);
			seen = 1;
		}
	CHECK(seen);
	/* the oracle itself fails on a wrong value */
	CHECK(int_fp16(-3) == 0xc200u && int_fp16(1) == 0x3c00u && int_fp16(127) == 0x57f0u);
	CHECK(le_rd16(arena + FOLDMEM) != (uint16_t)(int_fp16((int8_t)prog[W_OFF]) ^ 1u));
	/* KernelFmt 1 (the map's "uint8"): its bytes fold signed, as KernelFmt 0's and as the engine
	 * model reads them (docs/engine-model.md, "Registers": Apple's H13 less reads 0xff as -1);
	 * the channel holds bytes 0x80..0xff, which an unsigned fold gives other values */
	s.kcfg = H13_KERNELFMT_UINT8 << H13_KERNELCFG_KERNELFMT_LSB;
	len = synth_build(&s);
	default_grants(g, &n);
	g[2].size = wlen;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran && intact);
	CHECK_EQ(plan.td[0].folded, 1u);
	unsigned high = 0;
	bad = 0;
	for (uint32_t k = 0; k < wlen; k++) {
		high += prog[W_OFF + k] >= 0x80u;
		bad += le_rd16(arena + FOLDMEM + 2 * k) != int_fp16((int8_t)prog[W_OFF + k]);
	}
	CHECK(high > 0);
	CHECK_EQ(bad, 0u);
	/* (the unsigned reading differs on those bytes: the check above can fail) */
	CHECK(int_fp16(0xff) != int_fp16((int8_t)0xff));
	/* a palette streams on H13: not folded */
	s.kcfg = H13_KERNELFMT_FP16 << H13_KERNELCFG_KERNELFMT_LSB | 1u << H13_KERNELCFG_PALETTIZEDEN_LSB |
		 4u << H13_KERNELCFG_PALETTIZEDBITS_LSB;
	len = synth_build(&s);
	default_grants(g, &n);
	g[2].size = wlen;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK_EQ(plan.td[0].folded, 0u);
}

TEST(ctrl, fold_refusals_named)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	size_t ulen = ku_build_unit(0, 1, sizeof k_actlut);
	REQUIRE(ulen);
	size_t len = ku_program(&s, ulen, g, &n);
	/* int8 by the reset value, but no KernelCfg word to rewrite */
	s.no_kcfg = 1;
	len = synth_build(&s);
	default_grants(g, &n);
	g[2].size = s.coeff_size[0];
	CHECK_STR(submit(len, g, n, &intact, &ran), "fold-registers-not-written");
	CHECK(!ran && intact);
	/* a KernelFmt that names no format */
	s.no_kcfg = 0;
	s.kcfg = 3u << H13_KERNELCFG_KERNELFMT_LSB;
	len = synth_build(&s);
	default_grants(g, &n);
	g[2].size = s.coeff_size[0];
	CHECK_STR(submit(len, g, n, &intact, &ran), "kernel-format-unknown");
	CHECK(!ran && intact);
	/* a 2-bit palette (H13 folds it) whose unit's codebook is 4-bit: the fold cannot decode it */
	s.kcfg = H13_KERNELFMT_FP16 << H13_KERNELCFG_KERNELFMT_LSB | 1u << H13_KERNELCFG_PALETTIZEDEN_LSB |
		 2u << H13_KERNELCFG_PALETTIZEDBITS_LSB;
	len = synth_build(&s);
	default_grants(g, &n);
	g[2].size = s.coeff_size[0];
	CHECK_STR(submit(len, g, n, &intact, &ran), "fold-shape-unsupported");
	CHECK(!ran && intact);
	/* no fold scratch: refused, nothing programmed */
	s.kcfg = H13_KERNELFMT_INT8 << H13_KERNELCFG_KERNELFMT_LSB;
	len = synth_build(&s);
	REQUIRE(ldr_load(prog, len, LDR_F_RAW, &lp) == LDR_OK);
	default_grants(g, &n);
	g[2].size = s.coeff_size[0];
	for (unsigned i = 0; i < n; i++)
		g[i].mapped = DEV + 0x1000u * (2 * i + 1);
	struct ctrl_scratch sc = {arena + TDMEM, 0x1000, DEV + TDMEM, arena + KUMEM, 0x3000,
				  DEV + KUMEM, NULL, 0, 0};
	CHECK_EQ(ctrl_plan(&plan, &lp, g, n, NULL, 0, &sc, NULL), CTRL_E_SCRATCH);
	CHECK_STR(ctrl_status_name(&plan.st), "firmware-scratch-too-small");
	/* the fold's scratch need: twice the weights of a kernel-unit program, none otherwise */
	CHECK_EQ(ctrl_fold_cap(&lp), 2ull * lp.weights_len);
	synth_default(&s);
	len = synth_build(&s);
	REQUIRE(ldr_load(prog, len, LDR_F_RAW, &lp) == LDR_OK);
	CHECK_EQ(ctrl_fold_cap(&lp), 0u);
}

/* ---- the hostile corpus ---- */
struct hostile {
	const char *name, *expect;
};

static int hostile_case(unsigned i, const char **expect, const char **name, const char **got,
			int *intact, int *ran)
{
	struct synth s;
	struct subq_grant g[40];
	unsigned n;
	size_t len, ulen;
	synth_default(&s);
	len = synth_build(&s);
	default_grants(g, &n);
#define CASE(nm, ex) *name = nm; *expect = ex;
	switch (i) {
	case 0: CASE("bar index outside the table", "bar-index-out-of-range");
		g[2].bar = 32; break;
	case 1: CASE("tile source BAR not granted", "bar-not-granted");
		g[0].bar = 6; break;
	case 2: CASE("coefficient range past the granted weights", "range-outside-granted-buffer");
		g[2].size = 0x80; break;
	case 3: CASE("stride x dimension past the input", "range-outside-granted-buffer");
		s.hin = 0x7fff; len = synth_build(&s); break;
	case 4: CASE("maximal strides x dimensions (no wrap)", "range-outside-granted-buffer");
		s.win = s.hin = s.wout = s.hout = 0x7fff; s.cin = s.cout = 0x1ffff; s.groups = 0x1fff;
		for (unsigned k = 1; k < 5; k++)
			s.src[k] = s.dst[k] = 0xffffffc0u;
		len = synth_build(&s); break;
	case 5: CASE("destination base past the output", "range-outside-granted-buffer");
		s.dst[0] = 0x40; len = synth_build(&s); break;
	case 6: CASE("write into a read-only buffer", "access-not-granted");
		g[1].access = POL_READ; break;
	case 7: CASE("input granted write-only", "access-not-granted");
		g[0].access = POL_WRITE; break;
	case 8: CASE("64-bit mapped address", "address-beyond-engine-reach");
		g[1].mapped = 0x100000000ull; break;
	case 9: CASE("mapped range crossing 4 GiB", "address-beyond-engine-reach");
		g[1].mapped = 0xffffff80ull; break;
	case 10: CASE("output overlapping an input", "output-overlaps-input");
		g[0].mapped = DEV + 0x1000; g[1].mapped = DEV + 0x1080; break;
	case 11: CASE("grant over firmware memory", "address-in-firmware-memory");
		g[1].mapped = DEV + TDMEM; break;
	case 12: CASE("zero-size grant", "bad-grant");
		g[0].size = 0; break;
	case 13: CASE("grant range wrapping", "bad-grant");
		g[0].dva = UINT64_MAX - 8; break;
	case 14: CASE("same BAR granted twice", "bar-granted-twice");
		g[n] = G(5, 256, POL_READ); n++; break;
	case 15: CASE("zero dimension", "zero-dimension");
		s.win = 0; len = synth_build(&s); break;
	case 16: CASE("unsized tensor format", "unsized-tensor-format");
		s.infmt = 3; len = synth_build(&s); break;
	case 17: CASE("coefficients without a kernel BAR", "coefficients-without-kernel-bar");
		synth_bar(&s, H13_BAR_KBASE0, -1); len = synth_build(&s); break;
	case 18: CASE("kernel BAR not granted", "bar-not-granted");
		n = 2; break;
	case 19: CASE("more grants than a submission holds", "too-many-grants");
		for (unsigned k = 3; k < 33; k++)
			g[k] = G(k - 3 + 6 > 31 ? 2 : k - 3 + 6, 64, POL_READ);
		n = 33; break;
	case 20: CASE("kunit slot left -1 (no input tile)", "kunit-slot-unset");
		ulen = ku_build_unit(0, 1, sizeof k_actlut);
		len = ku_program(&s, ulen, g, &n);
		s.src_en = 0; len = synth_build(&s); break;
	case 21: CASE("kunit overlapping records", "kunit-records-overlap");
		ulen = ku_build_unit(0, 1, sizeof k_actlut);
		le_wr32(unit + ocg_off(ulen) + 8 + 56, le_rd32(unit + ocg_off(ulen) + 8));
		len = ku_program(&s, ulen, g, &n); break;
	case 22: CASE("kunit per-core mismatch", "kunit-per-core-mismatch");
		ulen = ku_build_unit(0, 2, sizeof k_actlut);
		{
			uint32_t o = ocg_off(ulen) + 8 + 3 * 56 + 8 + 4; /* core 1, record 0, channels */
			le_wr32(unit + o, le_rd32(unit + o) - 1);
		}
		len = ku_program(&s, ulen, g, &n); break;
	case 23: CASE("kunit LUTs over the shared budget", "kunit-lut-over-budget");
		ulen = ku_build_unit(0, 1, 0x1000);
		len = ku_program(&s, ulen, g, &n); break;
	case 24: CASE("kunit asymmetric on version 5", "kunit-asymmetric-on-v5");
		ulen = ku_build_unit(KU_FLAG_ASYMMETRIC, 1, sizeof k_actlut);
		len = ku_program(&s, ulen, g, &n); break;
	case 25: CASE("kunit slot prefilled by the program", "kunit-slot-prefilled");
		ulen = ku_build_unit(0, 1, sizeof k_actlut);
		le_wr32(unit + ocg_off(ulen) + 8 + 8, 0x1234);
		len = ku_program(&s, ulen, g, &n); break;
	case 26: CASE("kunit stream past the granted weights", "range-outside-granted-buffer");
		ulen = ku_build_unit(0, 1, sizeof k_actlut);
		len = ku_program(&s, ulen, g, &n);
		g[2].size = 64; s.coeff_size[0] = 64; len = synth_build(&s); break;
	case 27: CASE("grant with no access", "bad-grant");
		g[2].access = 0; break;
	case 28: CASE("one buffer read and written, not declared in place", "output-overlaps-input");
		synth_bar(&s, H13_BAR_WBASE, 5); len = synth_build(&s);
		g[0].access = POL_RW; g[1] = g[2]; n = 2; break;
	/* issue 16's reproductions */
	case 29: CASE("kunit with no OCG records", "kunit-no-records");
		ulen = ku_build_unit(0, 1, sizeof k_actlut);
		le_wr32(unit + 0x14, 0);
		len = ku_program(&s, ulen, g, &n); break;
	case 30: CASE("second source checked from its own registers", "range-outside-granted-buffer");
		synth_bar(&s, H13_BAR_RBASE1, 6);
		s.src2[0] = 0x7fffffc0u; s.src2[2] = 0xffffffc0u; len = synth_build(&s);
		g[n++] = G(6, 256, POL_READ); break;
	case 31: CASE("output BAR is the weights BAR", "output-overlaps-weights");
		synth_bar(&s, H13_BAR_WBASE, 1); len = synth_build(&s);
		g[2].access = POL_RW; g[2].size = 0x1000; g[1] = g[2]; n = 2; break;
	case 32: CASE("output over the weights, granted in place", "output-overlaps-weights");
		synth_bar(&s, H13_BAR_WBASE, 1); len = synth_build(&s);
		g[2].access = POL_RW; g[2].size = 0x1000; g[2].flags = POL_FLAG_IN_PLACE;
		g[1] = g[2]; n = 2; break;
	case 33: CASE("work over the submission's budget", "work-over-budget");
		{
			static const struct ctrl_limits tiny = {.max_work = 0x200, .max_grant = 1u << 20};
			submit_limits = &tiny;
		}
		break;
	case 34: CASE("grant larger than a submission may hold", "grant-too-large");
		g[0].size = 512u << 20; break;
	/* the destination DMA enabled with WBase not bound: it would write at its raw base, which no
	 * grant covers (the control path checked no range for it and the model wrote nothing) */
	case 35: CASE("destination DMA enabled, WBase not bound", "destination-without-bar");
		synth_bar(&s, H13_BAR_WBASE, -1); len = synth_build(&s); break;
	default:
		return 0;
	}
#undef CASE
	*got = submit(len, g, n, intact, ran);
	submit_limits = NULL;
	return 1;
}

TEST(ctrl, hostile_corpus_refused_with_named_errors)
{
	unsigned cases = 0;
	const char *expect, *name, *got;
	int intact, ran;
	for (unsigned i = 0; hostile_case(i, &expect, &name, &got, &intact, &ran); i++) {
		cases++;
		CHECKF(test_str_eq(got, expect), "case %u (%s): got %s, want %s", i, name, got, expect);
		CHECKF(intact, "case %u (%s): memory outside the grants changed", i, name);
		/* a hostile submission must never reach the engine */
		CHECKF(!ran, "case %u (%s): the engine ran it", i, name);
		if (i == 10) { /* the aliasing check names the write: the output (BAR 4) of TD 0 */
			CHECK_EQ(plan.st.bar, 4);
			CHECK_EQ(plan.st.td, 0);
		}
		/* bad-grant says which of its three checks refused (the three causes alone before) */
		if (i == 12)
			CHECK_STR(plan.st.detail, "a zero-size grant: SIZE 0, a grant is 1 byte or more");
		if (i == 13)
			CHECKF(!strncmp(plan.st.detail, "the range wraps: 0x", 19) &&
				       strstr(plan.st.detail, " bytes at device address 0xfffffffffffffff7"),
			       "case 13: '%s'", plan.st.detail);
		if (i == 27)
			CHECK_STR(plan.st.detail, "access 0x0: r, w or rw wanted");
	}
	CHECK_EQ(cases, 36u);
}

/* The second source is checked and moved at its own base and strides: given exactly its buffer
 * (which the first source's registers would not fit), a two-input TD runs, and the model reads
 * the second source where its registers say. */
TEST(ctrl, second_source_from_its_own_registers)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	synth_default(&s);
	synth_bar(&s, H13_BAR_RBASE1, 6);
	s.src2[0] = 0x40;             /* its own base and strides: 0x40 + 0x100 bytes */
	s.src2[1] = 64;
	s.src2[2] = 128;
	s.src2[3] = 256;
	size_t len = synth_build(&s);
	default_grants(g, &n);
	g[n++] = G(6, 0x140, POL_READ);
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran);
	CHECK(intact);
	int found = 0;
	for (unsigned r = 0; r < plan.td[0].nranges; r++)
		if (plan.td[0].r[r].kind == CTRL_R_SRC1) {
			CHECK_EQ(plan.td[0].r[r].bar, 6u);
			CHECK_EQ(plan.td[0].r[r].off, 0x40u);
			CHECK_EQ(plan.td[0].r[r].len, 0x100u);
			found = 1;
		}
	CHECK(found);
	/* negative: one byte less of grant is refused */
	default_grants(g, &n);
	g[n++] = G(6, 0x13f, POL_READ);
	CHECK_STR(submit(len, g, n, &intact, &ran), "range-outside-granted-buffer");
	CHECK(!ran);
}

/* A second TD that writes no coefficient registers runs with the first TD's, which the plan
 * rebased to engine addresses: they are checked (and read) as those addresses, inside the
 * weights grant, not taken again as offsets from the BAR. */
TEST(ctrl, inherited_coefficient_base_stays_absolute)
{
	static uint8_t td0[TD_BYTES];
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	synth_default(&s);
	synth_build(&s);
	memcpy(td0, prog, TD_BYTES);
	s.no_kdma = 1;
	synth_build(&s);
	/* prog: TD 0 at 0, TD 1 (prog's current TD) at 0x300, weights at 0x300 + W_OFF */
	memmove(prog + 0x300, prog, TD_BYTES);
	memset(prog + TD_BYTES, 0, 0x300 - TD_BYTES);
	memcpy(prog, td0, TD_BYTES);
	for (unsigned t = 0; t < 2; t++) {
		uint32_t w[H13_TD_HEADER_WORDS];
		struct td_hdr h;
		for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
			w[i] = le_rd32(prog + 0x300 * t + 4 * i);
		td_hdr_decode(w, &h);
		h.tid = t;
		h.eon = t == 1;
		h.next_ptr = t == 0 ? 0x300u : 0;
		h.next_size = t == 0 ? TD_BYTES / 4 - 1 : 0;
		td_hdr_encode(&h, w);
		for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
			le_wr32(prog + 0x300 * t + 4 * i, w[i]);
	}
	memcpy(prog + 0x300 + W_OFF, wts, 0xc0);
	size_t len = 0x300 + W_OFF + 0xc0;
	default_grants(g, &n);
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran && intact);
	REQUIRE(lp.ntds == 2);
	CHECK(lp.tds[1].nwrites + 62 <= lp.tds[0].nwrites); /* TD 1 wrote no coefficient words */
	unsigned seen = 0;
	for (unsigned r = 0; r < plan.td[1].nranges; r++) {
		const struct ctrl_range *x = &plan.td[1].r[r];
		if (x->kind != CTRL_R_COEFF)
			continue;
		CHECK_EQ(x->bar, 1u);
		CHECK_EQ(x->off, 64u * x->ch);
		CHECK_EQ(x->runtime, g[2].mapped + 64u * x->ch);
		seen++;
	}
	CHECK_EQ(seen, 3u);
}

/* A TD may not write the registers only the firmware programs (the kernel streams). */
TEST(ctrl, td_writing_a_firmware_register_is_refused)
{
	struct synth s;
	synth_default(&s);
	size_t len = synth_build(&s);
	/* turn the TileDMADst run's address into a KStream relocation register (one word) */
	for (uint32_t o = 40; o + 4 <= TD_BYTES; o += 4)
		if (le_rd32(prog + o) == td_cmd_encode(H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS)) {
			le_wr32(prog + o, td_cmd_encode(H13_KSTREAM_RELOC(0), 1));
			break;
		}
	CHECK_EQ(ldr_load(prog, len, LDR_F_RAW, &lp), LDR_E_FW_REGISTER);
	CHECK_STR(ldr_err_name(LDR_E_FW_REGISTER), "firmware_register");
}

TEST(ctrl, in_place_declared_overlap_accepted)
{
	struct synth s;
	struct subq_grant g[4];
	unsigned n;
	int intact, ran;
	synth_default(&s);
	size_t len = synth_build(&s);
	/* one buffer (BAR 5) read and written in place, declared */
	synth_bar(&s, H13_BAR_WBASE, 5);
	len = synth_build(&s);
	default_grants(g, &n);
	g[0].access = POL_RW;
	g[0].flags = POL_FLAG_IN_PLACE;
	g[1] = g[2];
	n = 2;
	CHECK_STR(submit(len, g, n, &intact, &ran), "ok");
	CHECK(ran && intact);
}

/* ---- the fixtures ---- */
static const char *const fixtures[] = {
	"fixtures/hwx/relu.hwx", "fixtures/hwx/sigmoid.hwx", "fixtures/hwx/conv.hwx",
	"fixtures/hwx/concat.hwx", "fixtures/kernels/unary/tanh.bin",
	"fixtures/kernels/unary/sigmoid.bin", "fixtures/kernels/unary/exp.bin",
	"fixtures/kernels/unary/log2.bin", "fixtures/kernels/unary/sqrt.bin",
	"fixtures/kernels/unary/abs.bin", "fixtures/kernels/activation/gelu.bin",
	"fixtures/kernels/activation/relu6.bin", "fixtures/kernels/activation/leakyrelu.bin",
	"fixtures/kernels/activation/hardtanh.bin", "fixtures/kernels/binary/add.bin",
	"fixtures/kernels/binary/mul.bin",
};

TEST(ctrl, fixtures_plan_with_default_grants)
{
	if (!test_shared_dir())
		SKIP("no shared fixtures directory");
	static struct subq_grant g[SESSION_MAX_GRANTS];
	for (unsigned f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
		uint8_t *buf;
		size_t len;
		if (test_read_file(test_shared_path(fixtures[f]), &buf, &len)) {
			CHECKF(0, "%s: unreadable", fixtures[f]);
			continue;
		}
		struct ctrl_status st;
		unsigned n = 0;
		if (ldr_load(buf, len, 0, &lp) == LDR_OK)
			CHECK_EQ(ctrl_default_grants(&lp, g, SESSION_MAX_GRANTS, &n, &st), CTRL_OK);
		CHECK(n > 0);
		if (n == 0) {
			free(buf);
			continue;
		}
		uint64_t at = 0x10000000;
		for (unsigned i = 0; i < n; i++) {
			g[i].mapped = at;
			at += (g[i].size + 0xfff) & ~0xfffull;
		}
		static uint8_t tdm[0x10000], kum[0x10000];
		static uint8_t fold[0x10000];
		const struct ctrl_scratch sc = {tdm, sizeof tdm, 0x0f000000, kum, sizeof kum, 0x0f800000,
						fold, sizeof fold, 0x0f400000};
		enum ctrl_err e = ctrl_plan(&plan, &lp, g, (unsigned)n, NULL, 0, &sc, NULL);
		CHECKF(e == CTRL_OK, "%s: %s", fixtures[f], ctrl_status_name(&plan.st));
		/* every enabled coefficient channel lies inside the weights grant */
		for (unsigned t = 0; e == CTRL_OK && t < plan.ntds; t++) {
			CHECK_EQ(plan.td[t].nranges > 0, 1);
			unsigned nc = 0;
			for (unsigned r = 0; r < plan.td[t].nranges; r++) {
				const struct ctrl_range *x = &plan.td[t].r[r];
				if (x->kind != CTRL_R_COEFF)
					continue;
				nc++;
				CHECK(x->off + x->len <= lp.weights_len);
				CHECK_EQ(x->bar, lp.tds[t].h.bar_idx[4]);
				CHECK_EQ(x->access, POL_READ);
			}
			CHECK_EQ(nc, lp.tds[t].ncoeff);
			/* relocated coefficient bases are patched with their runtime address */
			for (unsigned k = 0; k < plan.td[t].npatch; k++) {
				const struct ctrl_patch *pt = &plan.td[t].patch[k];
				unsigned ch = (pt->addr - lp.gen->coeff.base) / 4;
				uint64_t want = plan.bar_runtime[lp.tds[t].h.bar_idx[4]];
				for (unsigned c = 0; c < lp.tds[t].ncoeff; c++)
					if (lp.tds[t].coeff[c].ch == ch)
						want += lp.tds[t].coeff[c].base;
				CHECK_EQ((uint64_t)(pt->value & ~63u), want);
			}
		}
		free(buf);
	}
}

/* A raw stream's TD area is the whole file: the plan copies its TDs into the firmware's TD
 * memory, not the weights behind them (they reach the engine through their own grant). */
TEST(ctrl, raw_stream_td_memory_holds_its_tds_only)
{
	if (!test_shared_dir())
		SKIP("no shared fixtures directory");
	static struct subq_grant g[SESSION_MAX_GRANTS];
	uint8_t *buf;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/kernels/unary/tanh.bin"), &buf, &len) == 0);
	REQUIRE(ldr_load(buf, len, LDR_F_RAW, &lp) == LDR_OK);
	REQUIRE(lp.raw && lp.ntds == 1 && lp.td_area_len == len && lp.tds[0].size < len);
	struct ctrl_status st;
	unsigned n = 0;
	REQUIRE(ctrl_default_grants(&lp, g, SESSION_MAX_GRANTS, &n, &st) == CTRL_OK);
	uint64_t at = 0x10000000;
	for (unsigned i = 0; i < n; i++) {
		g[i].mapped = at;
		at += (g[i].size + 0xfff) & ~0xfffull;
	}
	static uint8_t tdm[0x10000], kum[0x10000], fold[0x10000];
	memset(tdm, 0xa5, sizeof tdm);
	const struct ctrl_scratch sc = {tdm, sizeof tdm, 0x0f000000, kum, sizeof kum, 0x0f800000,
					fold, sizeof fold, 0x0f400000};
	CHECK_EQ(ctrl_plan(&plan, &lp, g, n, NULL, 0, &sc, NULL), CTRL_OK);
	/* the TD's header as the file has it (its register words may be re-based) */
	CHECK(memcmp(tdm, buf, 16) == 0);
	size_t kept = 0, from_file = 0;
	for (size_t i = lp.tds[0].size; i < len; i++) {
		kept += tdm[i] == 0xa5;
		from_file += tdm[i] == buf[i] && buf[i] != 0xa5;
	}
	CHECKF(kept == len - lp.tds[0].size && from_file == 0,
	       "%zu of %zu bytes after the TD untouched, %zu copied from the file", kept,
	       len - lp.tds[0].size, from_file);
	free(buf);
}

TEST(ctrl, fixtures_run_on_model)
{
	if (!test_shared_dir())
		SKIP("no shared fixtures directory");
	/* the small ones on the whole path, canaries checked by the session */
	static const char *const small[] = {"fixtures/hwx/relu.hwx", "fixtures/hwx/sigmoid.hwx",
					    "fixtures/hwx/conv.hwx", "fixtures/hwx/concat.hwx"};
	for (unsigned f = 0; f < 4; f++) {
		uint8_t *buf;
		size_t len;
		if (test_read_file(test_shared_path(small[f]), &buf, &len)) {
			CHECKF(0, "%s: unreadable", small[f]);
			continue;
		}
		struct session_result res;
		int rc = tsubmit(buf, len, 0, NULL, 0, 1, 1, tnull_out, NULL, NULL, &res);
		CHECK_EQ(rc, 0);
		CHECK(res.canaries_ok);
		CHECK_EQ(res.run, ENG_OK);
		CHECK_EQ(res.nwrites, 140u * res.ntds);
		free(buf);
	}
}

/* ---- issue 16's reproductions as whole submissions, with the default grants ---- */
static uint8_t hwxbuf[0x10000];

/* The synthetic TD (built into prog, raw length rawlen) and its weights as a container: input
 * window "image" on BAR 5 and output window "out" on BAR 4, as the synthetic TD selects. */
static size_t synth_hwx(size_t rawlen, uint64_t in_size, uint64_t out_size)
{
	struct hwxw_window w[2] = {{"image", 5, LDR_WIN_INPUT, in_size},
				   {"out", 4, LDR_WIN_OUTPUT, out_size}};
	struct hwxw_spec s = {4, prog, TD_BYTES, TD_BYTES, 1, 0, prog + W_OFF, rawlen - W_OFF,
			      1, w, 2, NULL};
	size_t len = 0;
	return hwxw_write(&s, hwxbuf, sizeof hwxbuf, &len) == HWXW_OK ? len : 0;
}

/* Moves every address field holding old (segment, section, window name, BAR table) to new:
 * the container's header words, as a hand-edited file would. Returns how many it changed. */
static unsigned hwx_move(uint8_t *b, size_t len, uint32_t old, uint32_t new_addr)
{
	unsigned n = 0;
	for (size_t o = 0; o + 4 <= len && o + 4 <= 0x4000; o += 4)
		if (le_rd32(b + o) == old) {
			le_wr32(b + o, new_addr);
			n++;
		}
	return n;
}

/* The BAR table of the container's thread command (NULL when there is none). */
static uint8_t *hwx_thread_bars(uint8_t *b, size_t len)
{
	uint32_t ncmds = le_rd32(b + 16);
	size_t o = HWX_HEADER_BYTES;
	for (uint32_t i = 0; i < ncmds && o + 8 <= len; i++) {
		uint32_t cmd = le_rd32(b + o), size = le_rd32(b + o + 4);
		if (cmd == LC_THREAD && o + 16 + THREAD_MAIN_MIN <= len)
			return b + o + 16 + THREAD_BARS_OFF;
		if (size < 8)
			return NULL;
		o += size;
	}
	return NULL;
}

static const char *submit_default(const uint8_t *buf, size_t len, unsigned flags,
				  struct session_result *res)
{
	memset(res, 0, sizeof *res);
	tsubmit(buf, len, flags, NULL, 0, 1, 0, tnull_out, NULL, NULL, res);
	return session_result_name(res);
}

TEST(ctrl, container_reproductions_refused_by_name)
{
	struct synth s;
	struct session_result res;
	static struct ldr_program p;
	synth_default(&s);
	size_t raw = synth_build(&s);
	/* the control: the container as built runs */
	size_t len = synth_hwx(raw, 256, 256);
	REQUIRE(len);
	CHECK_STR(submit_default(hwxbuf, len, 0, &res), "ok");
	CHECK(res.canaries_ok && res.nmoves > 0);
	REQUIRE(ldr_load(hwxbuf, len, 0, &p) == LDR_OK);
	uint32_t weights = (uint32_t)p.bars[1], out = (uint32_t)p.bars[4];
	REQUIRE(weights && out);

	/* an output window placed over the weights (they would become writable): the loader
	 * refuses a window whose section overlaps another */
	CHECK(hwx_move(hwxbuf, len, out, weights) >= 3);
	CHECK_STR(submit_default(hwxbuf, len, 0, &res), "sections_overlap");
	CHECK(res.canaries_ok && res.nmoves == 0);

	/* KBase0 names a BAR only the thread command's table names, 0x40 past the weights: it
	 * points inside the weights section, not at its start (bar-address-aliased; before that
	 * check it was refused later, as no buffer is granted for it: bar-not-granted) */
	synth_bar(&s, H13_BAR_KBASE0, 7);
	raw = synth_build(&s);
	len = synth_hwx(raw, 256, 256);
	REQUIRE(len);
	uint8_t *bars = hwx_thread_bars(hwxbuf, len);
	REQUIRE(bars);
	le_wr64(bars + 8 * 7, weights + 0x40);
	CHECK_STR(submit_default(hwxbuf, len, 0, &res), "bar-address-aliased");
	CHECK(res.canaries_ok && res.nmoves == 0);

	/* KBase0 names the input window, too small for the 0xc0 bytes of coefficients the TD
	 * reads from it: checked where the engine reads them (the window), so refused */
	synth_bar(&s, H13_BAR_KBASE0, 5);
	raw = synth_build(&s);
	len = synth_hwx(raw, 0x80, 256);
	REQUIRE(len);
	CHECK_STR(submit_default(hwxbuf, len, 0, &res), "range-outside-granted-buffer");
	CHECK(res.canaries_ok && res.nmoves == 0);
	/* the same window, large enough, runs */
	len = synth_hwx(raw, 0x100, 256);
	REQUIRE(len);
	CHECK_STR(submit_default(hwxbuf, len, 0, &res), "ok");

	/* a window over what a grant may hold: refused by its own name, before any allocation */
	synth_default(&s);
	raw = synth_build(&s);
	len = synth_hwx(raw, 300u << 20, 256);
	REQUIRE(len);
	CHECK_STR(submit_default(hwxbuf, len, 0, &res), "grant-too-large");
	CHECK(res.canaries_ok && res.nmoves == 0);
	struct subq_completion c;
	session_completion(&res, &c);
	CHECK(c.status == SUBQ_REFUSED && c.domain == SUBQ_DOM_POLICY &&
	      c.code == POL_E_GRANT_TOO_LARGE);
}

/* The relocations the firmware does not apply are refused, not ignored (conv.hwx, edited). */
TEST(ctrl, unapplied_relocations_refused)
{
	if (!test_shared_dir())
		SKIP("../shared fixtures absent");
	uint8_t *buf;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/hwx/conv.hwx"), &buf, &len) == 0);
	static struct ldr_program p;
	REQUIRE(ldr_load(buf, len, 0, &p) == LDR_OK);
	REQUIRE(p.text_sect >= 0 && p.sects[p.text_sect].nreloc > 0);
	size_t ro = p.sects[p.text_sect].reloff;
	REQUIRE(ro + 8 <= len);
	struct session_result res;
	CHECK_STR(submit_default(buf, len, 0, &res), "ok");
	uint32_t addr = le_rd32(buf + ro), info = le_rd32(buf + ro + 4);
	/* 1: aimed at the TD header (word 2) */
	le_wr32(buf + ro, 8);
	CHECK_STR(submit_default(buf, len, 0, &res), "relocation-not-applied");
	CHECK(res.canaries_ok && res.nmoves == 0);
	le_wr32(buf + ro, addr);
	/* 2: a length other than 4 bytes (r_length 3: 8 bytes) */
	le_wr32(buf + ro + 4, (info & ~(3u << 25)) | 3u << 25);
	const char *got = submit_default(buf, len, 0, &res);
	CHECKF(test_str_eq(got, "relocation-not-applied") || !res.loaded, "8-byte reloc: %s", got);
	CHECK(res.canaries_ok && res.nmoves == 0);
	/* 3: aimed at a section other than the weights (ordinal 1: __text itself) */
	le_wr32(buf + ro + 4, (info & ~0xffffffu) | 1u);
	CHECK_STR(submit_default(buf, len, 0, &res), "relocation-not-applied");
	CHECK(res.canaries_ok && res.nmoves == 0);
	le_wr32(buf + ro + 4, info);
	CHECK_STR(submit_default(buf, len, 0, &res), "ok");
	free(buf);
}

/* 64 TDs that each move 64 MiB in and out: refused by the work budget before anything is
 * allocated or run; the same chain of small TDs runs. */
static uint8_t chain[64 * 0x300 + 0x100];

static size_t synth_chain(const struct synth *s, unsigned ntds)
{
	size_t one = synth_build(s);
	(void)one;
	memset(chain, 0, sizeof chain);
	for (unsigned t = 0; t < ntds; t++) {
		uint32_t w[H13_TD_HEADER_WORDS];
		struct td_hdr h;
		memcpy(chain + t * 0x300u, prog, TD_BYTES);
		for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
			w[i] = le_rd32(prog + 4 * i);
		td_hdr_decode(w, &h);
		h.tid = t;
		h.eon = t + 1 == ntds;
		h.next_ptr = h.eon ? 0 : (t + 1) * 0x300u;
		h.next_size = h.eon ? 0 : TD_BYTES / 4 - 1;
		td_hdr_encode(&h, w);
		for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
			le_wr32(chain + t * 0x300u + 4 * i, w[i]);
	}
	size_t wo = (ntds - 1) * 0x300u + W_OFF;
	memcpy(chain + wo, s->weights, s->wlen);
	return wo + s->wlen;
}

TEST(ctrl, sixty_four_large_tds_over_the_work_budget)
{
	struct synth s;
	struct session_result res;
	synth_default(&s);
	size_t len = synth_chain(&s, 64);
	CHECK_STR(submit_default(chain, len, LDR_F_RAW, &res), "ok");
	CHECK_EQ(res.ntds, 64u);
	/* 32 x 1024 rows x 1024 planes of fp16: 64 MiB in and out per TD, 8 GiB in all */
	s.hin = s.hout = 1024;
	s.cin = s.cout = 1024;
	s.src[2] = s.dst[2] = 64u * 1024;
	s.src[3] = s.dst[3] = 64u << 20;
	len = synth_chain(&s, 64);
	CHECK_STR(submit_default(chain, len, LDR_F_RAW, &res), "work-over-budget");
	CHECK(res.canaries_ok);
	/* the completion names the control path's own domain and code */
	struct subq_completion c;
	session_completion(&res, &c);
	CHECK_EQ(c.status, SUBQ_REFUSED);
	CHECK_EQ(c.domain, SUBQ_DOM_CTRL);
	CHECK_EQ(c.code, CTRL_E_WORK);
	CHECK_STR(subq_domain_name(SUBQ_DOM_CTRL), "control");
	CHECK_STR(subq_domain_name(SUBQ_DOM__COUNT), "unknown-domain");
	CHECKF(res.nmoves == 0, "%u moves", res.nmoves);
}

/* ---- coverage and aliasing (review revA / revH) ---- */
static uint8_t cov_buf[1 << 16], cov_hwx[1 << 17];

/* A raw program's default grants: the control path's verdict, by name; *st where. */
static const char *grants_verdict(const uint8_t *b, size_t len, unsigned flags,
				  struct ctrl_status *st)
{
	static struct ldr_program p;
	struct subq_grant g[SUBQ_MAX_GRANTS];
	unsigned n = 0;
	*st = CTRL_STATUS_OK;
	if (ldr_load(b, len, flags, &p) != LDR_OK)
		return "load-refused";
	ctrl_default_grants(&p, g, SUBQ_MAX_GRANTS, &n, st);
	return ctrl_status_name(st);
}

/* The chain's raw stream (ntds TDs in cov_buf, length rawlen) as a container with windows win,
 * __text on BAR text_bar, the weights on BAR 1, into cov_hwx. */
static size_t cov_container(size_t rawlen, unsigned ntds, const struct hwxw_window *win,
			    unsigned nwin, unsigned text_bar)
{
	size_t woff = bp_chain_weights_off(ntds), len = 0;
	struct hwxw_spec s = {4, cov_buf, woff, 0x274, ntds, text_bar,
			      rawlen > woff ? cov_buf + woff : NULL, rawlen > woff ? rawlen - woff : 0,
			      1, win, nwin, NULL};
	return hwxw_write(&s, cov_hwx, sizeof cov_hwx, &len) == HWXW_OK ? len : 0;
}

/* n copies of c x h x w fp16 in a chain through BAR 3 (BAR 5 in, BAR 4 out): copy i writes slot
 * i mod nslots (slot bytes apart) and copy i + 1 reads it, as a compiler reuses scratch (nslots 2:
 * a ping-pong; n: each into a new slot). The program into buf, its length (0 when it does not
 * build); t and tp hold n specs. */
static size_t copy_chain(uint8_t *buf, size_t cap, struct bp_pe_spec *t, const struct bp_pe_spec **tp,
			 unsigned n, unsigned c, unsigned h, unsigned w, uint32_t slot, unsigned nslots)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t in = i ? 3 : 5, out = i + 1 < n ? 3 : 4;
		t[i] = bp_pe_copy(c, h, w, in, out);
		uint32_t src = i ? (i - 1) % nslots * slot : 0;
		t[i].dst_off = out == 3 ? i % nslots * slot : 0;
		if (src) {
			t[i].xreg[t[i].nx] = H13_SRC_BASEADDR;
			t[i].xval[t[i].nx++] = src;
		}
		tp[i] = &t[i];
	}
	return bp_pen(buf, cap, tp, n);
}

/* A write's bytes are its rows, not its hull: TD 0 writes two planes 2 planes apart, TD 1 reads
 * three planes 1 apart (plane 1 no TD wrote); TD 0 writes rows of 8 values, TD 1 reads rows of
 * 32 (24 of each row unwritten); three TDs where the third writes the gap after the second read
 * it. Each beside the same program reading only what was written, which completes. */
TEST(ctrl, intermediate_coverage_is_by_rows_not_hull)
{
	struct ctrl_status st;
	struct session_result res;
	const unsigned w = 8, h = 2;
	const uint32_t plane = bp_row(w) * h;
	struct bp_step gap[2] = {
		{.kind = BP_STEP_COPY, .cin = 2, .cout = 2, .in0 = 5, .out = 3, .out_plane = 2 * plane},
		{.kind = BP_STEP_COPY, .cin = 3, .cout = 3, .in0 = 3, .out = 4, .in_plane = plane},
	};
	size_t len = bp_chain(cov_buf, sizeof cov_buf, w, h, gap, 2, NULL);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "intermediate-extent-conflict");
	CHECK_EQ(st.td, 1);
	CHECK_EQ(st.kind, TD_R_SRC0);
	CHECK_EQ(st.bar, 3);
	CHECK_EQ(tsubmit(cov_buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
	CHECK_STR(session_result_name(&res), "intermediate-extent-conflict");
	/* the control: TD 1 reads the two planes TD 0 wrote, with TD 0's stride */
	gap[1].cin = gap[1].cout = 2;
	gap[1].in_plane = 2 * plane;
	len = bp_chain(cov_buf, sizeof cov_buf, w, h, gap, 2, NULL);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "ok");
	tsubmit(cov_buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECK_STR(session_result_name(&res), "ok");
	CHECK(res.canaries_ok && res.nmoves > 0);

	/* rows of 8 written, rows of 32 read */
	struct bp_pe_spec a = bp_pe_copy(1, 2, 8, 5, 3), b = bp_pe_copy(1, 2, 32, 3, 4);
	const struct bp_pe_spec *pe[2] = {&a, &b};
	len = bp_pen(cov_buf, sizeof cov_buf, pe, 2);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "intermediate-extent-conflict");
	CHECK_EQ(st.td, 1);
	CHECK_EQ(st.bar, 3);
	b = bp_pe_copy(1, 2, 8, 3, 4); /* the control: rows of 8 read */
	len = bp_pen(cov_buf, sizeof cov_buf, pe, 2);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "ok");
	tsubmit(cov_buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECK_STR(session_result_name(&res), "ok");

	/* planes 0 and 2 written, planes 0..2 read, then plane 1 written: too late */
	struct bp_step g3[3] = {
		{.kind = BP_STEP_COPY, .cin = 2, .cout = 2, .in0 = 5, .out = 3, .out_plane = 2 * plane},
		{.kind = BP_STEP_COPY, .cin = 3, .cout = 3, .in0 = 3, .out = 4, .in_plane = plane},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 3, .out_off = plane},
	};
	len = bp_chain(cov_buf, sizeof cov_buf, w, h, g3, 3, NULL);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "intermediate-extent-conflict");
	CHECK_EQ(st.td, 1);
	/* the control: plane 1 written first, then the three planes read */
	struct bp_step g3c[3] = {g3[0], g3[2], g3[1]};
	len = bp_chain(cov_buf, sizeof cov_buf, w, h, g3c, 3, NULL);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "ok");
	tsubmit(cov_buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECK_STR(session_result_name(&res), "ok");

	/* 64 planes of 56 rows written (3,584 rows of 112 bytes, 128 apart), then read whole: the
	 * write is one geometry, whatever its row count (a list of its rows, 512 at most, refused
	 * this chain of two 56 x 56 layers) */
	a = bp_pe_copy(64, 56, 56, 5, 3);
	b = bp_pe_copy(64, 56, 56, 3, 4);
	len = bp_pen(cov_buf, sizeof cov_buf, pe, 2);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "ok");
	b = bp_pe_copy(64, 57, 56, 3, 4); /* a row more a plane read: the last past what was written */
	len = bp_pen(cov_buf, sizeof cov_buf, pe, 2);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "intermediate-extent-conflict");
	CHECK_EQ(st.td, 1);
	b = bp_pe_copy(64, 56, 64, 3, 4); /* rows of 64 read where 56 were written */
	len = bp_pen(cov_buf, sizeof cov_buf, pe, 2);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "intermediate-extent-conflict");

	/* 300 copies through two slots of BAR 3 (a ping-pong, as a compiler reuses scratch): the
	 * same two geometries each time, kept once each; then the same copies each into a new slot,
	 * 4 KiB past the last (nothing merges): one geometry a TD, which the table always holds (a
	 * stack table of 256 refused both past 256) */
	static uint8_t many_buf[320 * BP_CHAIN_STRIDE + BP_WEIGHTS_OFF + 64];
	static struct bp_pe_spec many[300];
	static const struct bp_pe_spec *many_p[300];
	for (unsigned mode = 0; mode < 2; mode++) {
		len = copy_chain(many_buf, sizeof many_buf, many, many_p, 300, 4, 2, 8,
				 8 * bp_row(8) + 4096u, mode ? 300 : 2);
		REQUIRE(len);
		CHECK_STR(grants_verdict(many_buf, len, LDR_F_RAW, &st), "ok");
	}
	/* 65,536 rows of 3 values (64 bytes apart) written by TD 0 as 256 planes of 256 rows, then
	 * read by 70 TDs as 128 planes of 512 rows (each plane two of the write's): no read lies in
	 * the write's box, so each is proved row by row, 65,536 steps a read, past the program's 2^22
	 * at TD 65: refused by the bound's own name; 60 such reads are proved */
	for (unsigned n = 61; n <= 71; n += 10) {
		many[0] = bp_pe_copy(256, 256, 3, 5, 3);
		many_p[0] = &many[0];
		for (unsigned i = 1; i < n; i++) {
			many[i] = bp_pe_copy(128, 512, 3, 3, 4);
			many_p[i] = &many[i];
		}
		len = bp_pen(many_buf, sizeof many_buf, many_p, n);
		REQUIRE(len);
		CHECK_STR(grants_verdict(many_buf, len, LDR_F_RAW, &st),
			  n == 61 ? "ok" : "intermediate-coverage-bound");
		if (n == 71)
			CHECK_EQ(st.td, 65); /* 64 reads of 2^16 rows are the 2^22 */
	}
	/* 70 copies of 256 planes of 256 rows of 3 values (6 bytes, 64 apart) through two slots:
	 * 65,536 rows a read, 4.5 million in all, over the 2^22 steps row by row; each read is the
	 * box of one earlier write, proved in one step */
	len = copy_chain(many_buf, sizeof many_buf, many, many_p, 70, 256, 256, 3,
			 256u * 256u * bp_row(3) + 4096u, 2);
	REQUIRE(len);
	CHECK_STR(grants_verdict(many_buf, len, LDR_F_RAW, &st), "ok");
}

/* A container's declared intermediate window is coverage-checked like an undeclared one: TD 0
 * copies window mid to the output before TD 1 writes it. The control writes it first. */
TEST(ctrl, declared_intermediate_window_read_before_written)
{
	struct ctrl_status st;
	struct session_result res;
	const struct hwxw_window win[3] = {{"x", 5, LDR_WIN_INPUT, 0x80},
					   {"mid", 3, LDR_WIN_INTERMEDIATE, 0x80},
					   {"y", 4, LDR_WIN_OUTPUT, 0x80}};
	struct bp_step s[2] = {
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 3, .out = 4},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 3},
	};
	size_t raw = bp_chain(cov_buf, sizeof cov_buf, 8, 2, s, 2, NULL);
	REQUIRE(raw);
	size_t len = cov_container(raw, 2, win, 3, 0);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "intermediate-extent-conflict");
	CHECK_EQ(st.td, 0);
	CHECK_EQ(st.bar, 3);
	CHECK_EQ(tsubmit(cov_hwx, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
	CHECK_STR(session_result_name(&res), "intermediate-extent-conflict");
	struct bp_step c[2] = {s[1], s[0]};
	raw = bp_chain(cov_buf, sizeof cov_buf, 8, 2, c, 2, NULL);
	REQUIRE(raw);
	len = cov_container(raw, 2, win, 3, 0);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "ok");
	tsubmit(cov_hwx, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECK_STR(session_result_name(&res), "ok");
	CHECK(res.canaries_ok && res.nmoves > 0);
}

/* A tile source on the BAR holding __text would read the TD bytes on silicon: refused by name.
 * The control reads an input window on that BAR (__text on BAR 0). */
TEST(ctrl, tile_read_of_the_td_area_refused)
{
	struct ctrl_status st;
	struct session_result res;
	const struct hwxw_window win[1] = {{"y", 4, LDR_WIN_OUTPUT, 0x80}};
	struct bp_step s[1] = {{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 2, .out = 4}};
	size_t raw = bp_chain(cov_buf, sizeof cov_buf, 8, 2, s, 1, NULL);
	REQUIRE(raw);
	size_t len = cov_container(raw, 1, win, 1, 2);
	REQUIRE(len);
	CHECK_EQ(tsubmit(cov_hwx, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
	CHECK_STR(session_result_name(&res), "td-area-read-as-data");
	CHECK_EQ(res.st.bar, 2);
	CHECK_EQ(res.st.kind, TD_R_SRC0);
	CHECK(res.canaries_ok && res.nmoves == 0);
	const struct hwxw_window win2[2] = {{"y", 4, LDR_WIN_OUTPUT, 0x80},
					    {"x", 2, LDR_WIN_INPUT, 0x80}};
	len = cov_container(raw, 1, win2, 2, 0);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "ok");
	tsubmit(cov_hwx, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECK_STR(session_result_name(&res), "ok");
	CHECK(res.canaries_ok && res.nmoves > 0);
}

/* BARs that name the same memory are refused, not given separate buffers: the input BAR moved to
 * the output window's address, into the input window past its start, and a second BAR at the
 * input window's address read instead of the window's own. The control is the program as built. */
TEST(ctrl, aliased_bars_refused)
{
	struct ctrl_status st;
	struct session_result res;
	static struct ldr_program p;
	const struct hwxw_window win[2] = {{"x", 5, LDR_WIN_INPUT, 0x80},
					   {"y", 4, LDR_WIN_OUTPUT, 0x80}};
	struct bp_step s[1] = {{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 4}};
	size_t raw = bp_chain(cov_buf, sizeof cov_buf, 8, 2, s, 1, NULL);
	REQUIRE(raw);
	size_t len = cov_container(raw, 1, win, 2, 0);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "ok");
	tsubmit(cov_hwx, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECK_STR(session_result_name(&res), "ok");
	REQUIRE(ldr_load(cov_hwx, len, LDR_F_HWX, &p) == LDR_OK);
	uint8_t *bars = hwx_thread_bars(cov_hwx, len);
	REQUIRE(bars);
	const uint64_t x = p.bars[5], y = p.bars[4];
	/* BAR 5 := the output's address */
	le_wr64(bars + 8 * 5, y);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "bar-address-aliased");
	CHECK(st.bar == 4 || st.bar == 5);
	CHECK_EQ(tsubmit(cov_hwx, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
	CHECK_STR(session_result_name(&res), "bar-address-aliased");
	/* BAR 5 := 0x40 into its window */
	le_wr64(bars + 8 * 5, x + 0x40);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "bar-address-aliased");
	CHECK_EQ(st.bar, 5);
	le_wr64(bars + 8 * 5, x);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "ok");
	/* the TD reads BAR 6, which the table puts at the input window's address (BAR 5's) */
	s[0].in0 = 6;
	raw = bp_chain(cov_buf, sizeof cov_buf, 8, 2, s, 1, NULL);
	REQUIRE(raw);
	len = cov_container(raw, 1, win, 2, 0);
	REQUIRE(len);
	bars = hwx_thread_bars(cov_hwx, len);
	REQUIRE(bars);
	le_wr64(bars + 8 * 6, x);
	CHECK_STR(grants_verdict(cov_hwx, len, LDR_F_HWX, &st), "bar-address-aliased");
	CHECK_EQ(st.bar, 6);
	CHECK_EQ(tsubmit(cov_hwx, len, LDR_F_HWX, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
	CHECK_STR(session_result_name(&res), "bar-address-aliased");
	CHECK(res.canaries_ok && res.nmoves == 0);
}

/* A TD whose destination overwrites the kernels it reads (a batched matmul whose x rows TD 0
 * copied to BAR 6, TD 1 writing its result to BAR 6 too) is refused; the control writes BAR 4. */
TEST(ctrl, destination_over_its_own_kernels_refused)
{
	struct ctrl_status st;
	struct session_result res;
	struct bp_bmm_spec b = {.b = 1, .m = 2, .k = 32, .n = 32, .group = 2, .kbar = 7, .align = 0,
				.wconst = NULL, .xcopy = 6};
	size_t len = bp_bmm(cov_buf, sizeof cov_buf, &b);
	REQUIRE(len);
	CHECK_STR(grants_verdict(cov_buf, len, LDR_F_RAW, &st), "ok");
	tsubmit(cov_buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	CHECK_STR(session_result_name(&res), "ok");
	CHECK(res.canaries_ok && res.nmoves > 0);
	uint32_t hw[H13_TD_HEADER_WORDS];
	struct td_hdr hd;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		hw[i] = le_rd32(cov_buf + BP_CHAIN_STRIDE + 4 * i);
	td_hdr_decode(hw, &hd);
	hd.bar_idx[H13_BAR_WBASE] = 6;
	td_hdr_encode(&hd, hw);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		le_wr32(cov_buf + BP_CHAIN_STRIDE + 4 * i, hw[i]);
	CHECK_EQ(tsubmit(cov_buf, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res), 1);
	CHECK_STR(session_result_name(&res), "output-overlaps-kernels");
	CHECK_EQ(res.st.td, 1);
	CHECK_EQ(res.st.bar, 6);
	CHECK(res.canaries_ok && res.nmoves == 0);
}

/* ---- words a fold rewrote, inherited by a later TD ---- */

#include "tools/progdesc/progdesc.h"
#include "fw/actlut/actlut.h"

static uint8_t fi_prog[1 << 16];

/* Builds description text as a raw program into fi_prog; 0 when it fails. */
static size_t fi_build(const char *text)
{
	static struct pd_desc d;
	unsigned line;
	size_t len = 0;
	if (pd_parse(text, strlen(text), &d, &line) != PD_OK ||
	    pd_build(&d, fi_prog, sizeof fi_prog, &len) != PD_OK)
		return 0;
	return len;
}

/* Rewrites TD td's register stream in place without its writes to drop[0..ndrop): the others in
 * their order, as runs of consecutive registers, padded to the TD's bytes by splitting a run and
 * repeating its last write (same value). 0 when done. */
static int fi_drop_writes(uint8_t *buf, size_t len, unsigned td, const uint32_t *drop,
			  unsigned ndrop)
{
	static struct ldr_program p;
	static uint32_t addr[1024], val[1024], out[2048];
	if (ldr_load(buf, len, LDR_F_RAW, &p) != LDR_OK || td >= p.ntds)
		return -1;
	uint8_t *s = buf + p.td_area_off + p.tds[td].off;
	uint32_t avail = p.tds[td].size / 4u - H13_TD_HEADER_WORDS, o = 0, nw = 0, used = 0;
	while (o < avail) {
		uint32_t w = le_rd32(s + 4u * (H13_TD_HEADER_WORDS + o));
		uint32_t n = (w >> 26) + 1u, a = w & 0x3ffffffu;
		for (uint32_t k = 0; k < n && o + 1u + k < avail; k++) {
			int keep = 1;
			for (unsigned j = 0; j < ndrop; j++)
				keep &= a + 4u * k != drop[j];
			if (keep && nw < 1024) {
				addr[nw] = a + 4u * k;
				val[nw++] = le_rd32(s + 4u * (H13_TD_HEADER_WORDS + o + 1u + k));
			}
		}
		o += 1u + n;
	}
	/* runs: count the words, then split the first run of two or more if the padding is odd */
	uint32_t runs = 0;
	for (uint32_t k = 0, n = 0; k < nw; k++, n++) {
		if (!k || addr[k] != addr[k - 1] + 4u || n == 64u) {
			runs++;
			n = 0;
		}
	}
	used = nw + runs;
	if (used > avail)
		return -1;
	uint32_t pad = avail - used, split = UINT32_MAX;
	if (pad & 1u) {
		for (uint32_t k = 1; k < nw && split == UINT32_MAX; k++)
			if (addr[k] == addr[k - 1] + 4u)
				split = k;
		if (split == UINT32_MAX)
			return -1;
		pad--;
	}
	uint32_t q = 0, hdr = 0;
	for (uint32_t k = 0, n = 0; k < nw; k++, n++) {
		if (!k || addr[k] != addr[k - 1] + 4u || n == 64u || k == split) {
			hdr = q++;
			out[hdr] = addr[k];
			n = 0;
		} else {
			out[hdr] += 1u << 26;
		}
		out[q++] = val[k];
	}
	for (; pad; pad -= 2) {
		out[q++] = addr[nw - 1];
		out[q++] = val[nw - 1];
	}
	for (uint32_t k = 0; k < q; k++)
		le_wr32(s + 4u * (H13_TD_HEADER_WORDS + k), out[k]);
	return q == avail ? 0 : -1;
}

static const char *fi_submit(size_t len)
{
	struct session_result res;
	tsubmit(fi_prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	return session_result_name(&res);
}

/* TD 0 folds its int8 weights, rewriting its NE.KernelCfg to fp16 in TD memory. A TD 1 that
 * does not write KernelCfg inherits the program's int8, not the fold's fp16: its own int8 bytes
 * read as fp16 would be other numbers. Refused by name; the same program with TD 1's own
 * KernelCfg (the control) runs. */
TEST(ctrl, fold_rewritten_kernelcfg_inherited_refused)
{
	static const char desc[] = "input w=16 h=2 c=16\nlayer int8 cout=8 seed=1\n"
				   "layer int8 cout=8 seed=2\n";
	size_t len = fi_build(desc);
	REQUIRE(len);
	CHECK_STR(fi_submit(len), "ok");
	/* the rewrite alone (nothing dropped) still runs: the helper changes no meaning */
	REQUIRE(fi_drop_writes(fi_prog, len, 1, NULL, 0) == 0);
	CHECK_STR(fi_submit(len), "ok");
	const uint32_t kc = H13_NE_KERNELCFG;
	REQUIRE(fi_build(desc) == len);
	REQUIRE(fi_drop_writes(fi_prog, len, 1, &kc, 1) == 0);
	CHECK_STR(fi_submit(len), "fold-registers-not-written");
}

/* TD td's coefficient bytes, read as fp16, made finite and below 2 (bit 14 of every halfword
 * cleared): int8 bytes read as fp16 hold NaNs and infinities, which the model refuses (a NaN
 * weight; infinities of both signs in one sum). 0 when done. */
static int fi_finite_coeff(size_t len, unsigned td)
{
	static struct ldr_program p;
	if (ldr_load(fi_prog, len, LDR_F_RAW, &p) != LDR_OK || td >= p.ntds)
		return -1;
	for (unsigned k = 0; k < p.tds[td].ncoeff; k++) {
		uint64_t b = (uint64_t)p.weights_off + p.tds[td].coeff[k].base, n = p.tds[td].coeff[k].size;
		if (b > len || n > len - b)
			return -1;
		for (uint64_t i = 1; i < n; i += 2)
			fi_prog[b + i] &= 0xbfu;
	}
	return 0;
}

/* TD 0 folds its int8 OCG, doubling CoeffBfrSize[0] in TD memory. A TD 1 reading fp16 (its own
 * KernelCfg) from its own CoeffBaseAddr[0] but inheriting CoeffBfrSize[0] would read the fold's
 * doubled size over its own bytes: refused by name; with its own size (the control) it runs (its
 * int8 bytes made finite fp16 first: the control computes, whatever the numbers). */
TEST(ctrl, fold_rewritten_size_inherited_refused)
{
	static const char desc[] = "input w=16 h=2 c=16\nlayer int8 cout=8 seed=1\n"
				   "layer int8 cout=8 seed=2\nlayer int8 cout=8 seed=3\n";
	size_t len = fi_build(desc);
	REQUIRE(len);
	REQUIRE(tpatch_field(fi_prog, len, 1, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB,
			     H13_KERNELCFG_KERNELFMT_W, H13_KERNELFMT_FP16) == 0);
	REQUIRE(fi_drop_writes(fi_prog, len, 1, NULL, 0) == 0);
	REQUIRE(fi_finite_coeff(len, 1) == 0);
	const char *ctl = fi_submit(len);
	CHECK(strcmp(ctl, "fold-registers-not-written") != 0);
	CHECKF(!strcmp(ctl, "ok"), "control: %s", ctl);
	const uint32_t sz = H13_COEFF_BFRSIZE(0);
	REQUIRE(fi_build(desc) == len);
	REQUIRE(tpatch_field(fi_prog, len, 1, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB,
			     H13_KERNELCFG_KERNELFMT_W, H13_KERNELFMT_FP16) == 0);
	REQUIRE(fi_drop_writes(fi_prog, len, 1, &sz, 1) == 0);
	CHECK_STR(fi_submit(len), "fold-registers-not-written");
}

/* ---- kernel-unit TDs the model would read other than the unit says ---- */

/* The byte offset of the kernel unit in fi_prog (its magic), or 0. */
static size_t fi_unit(size_t len)
{
	for (size_t o = 0; o + 4 <= len; o += 4)
		if (le_rd32(fi_prog + o) == KU_MAGIC)
			return o;
	return 0;
}

/* Section s's descriptor word w (0 offset, 1 size, 2 type, 3 parameter) in the unit at u. */
static uint8_t *fi_sec(size_t u, unsigned s, unsigned w)
{
	return fi_prog + u + 0x20u + 16u * s + 4u * w;
}

/* A unit with no bias, post-scale or palette section: no stream names the unit to the engine,
 * which then reads the TD's coefficient channels as a program without a unit does. Refused by
 * name for a TD reading the unit's kernels; the unit with its sections (the control) runs. */
TEST(ctrl, kunit_without_streams_refused)
{
	static const char desc[] = "input w=16 h=2 c=16\nlayer int8 cout=8 seed=1\n";
	size_t len = fi_build(desc), u = fi_unit(len);
	REQUIRE(len && u);
	CHECK_STR(fi_submit(len), "ok");
	for (unsigned s = KU_SEC_SCALE; s <= KU_SEC_BIAS; s++) {
		le_wr32(fi_sec(u, s, 0), 0);
		le_wr32(fi_sec(u, s, 1), 0);
	}
	CHECK_STR(fi_submit(len), "kunit-td-without-streams");
	/* only the bias gone: the post-scale stream still names the unit */
	REQUIRE(fi_build(desc) == len);
	le_wr32(fi_sec(u, KU_SEC_BIAS, 0), 0);
	le_wr32(fi_sec(u, KU_SEC_BIAS, 1), 0);
	CHECK(strcmp(fi_submit(len), "kunit-td-without-streams") != 0);
}

/* A SparseFmt TD reads masks of ceil(Cin x Kh x Kw / 8) bytes: the unit must be sparse with
 * that mask width as its weights section's parameter, else refused by name. */
TEST(ctrl, kunit_sparse_mask_width_checked)
{
	static const char desc[] = "input w=16 h=2 c=16\nlayer sparse density=50 cout=4 seed=3\n";
	size_t len = fi_build(desc), u = fi_unit(len);
	REQUIRE(len && u);
	CHECK_EQ(le_rd32(fi_sec(u, KU_SEC_WEIGHTS, 3)), 2u); /* 16 weights: 2 mask bytes */
	CHECK_STR(fi_submit(len), "ok");
	le_wr32(fi_sec(u, KU_SEC_WEIGHTS, 3), 4);
	CHECK_STR(fi_submit(len), "kunit-sparse-mask-width");
	REQUIRE(fi_build(desc) == len);
	le_wr32(fi_prog + u + 12, le_rd32(fi_prog + u + 12) & ~KU_FLAG_SPARSE);
	CHECK_STR(fi_submit(len), "kunit-sparse-mask-width");
}

/* A unit whose activation-LUT section holds two records (grown at the unit's end, the raw
 * program's end): the stream runs over both, and which one the engine reads is not pinned.
 * Differing records are refused by name; the same record twice (the control) runs. */
static const char *fi_two_actluts(const char *desc, int differ)
{
	size_t len = fi_build(desc), u = fi_unit(len);
	if (!len || !u)
		return "build-failed";
	uint32_t total = le_rd32(fi_prog + u + 0x18);
	if (u + total != len || len + 2u * ACTLUT_STRIDE > sizeof fi_prog)
		return "unit-not-at-the-end";
	uint32_t off = le_rd32(fi_sec(u, KU_SEC_ACTLUT, 0));
	uint8_t first[ACTLUT_STRIDE], second[ACTLUT_STRIDE];
	memcpy(first, fi_prog + u + off, ACTLUT_STRIDE);
	memcpy(second, first, ACTLUT_STRIDE);
	if (differ && !pd_act_record(PD_ACT_RELU6, second))
		return "no-record";
	memcpy(fi_prog + len, first, ACTLUT_STRIDE);
	memcpy(fi_prog + len + ACTLUT_STRIDE, second, ACTLUT_STRIDE);
	le_wr32(fi_sec(u, KU_SEC_ACTLUT, 0), total);
	le_wr32(fi_sec(u, KU_SEC_ACTLUT, 1), 2u * ACTLUT_STRIDE);
	le_wr32(fi_prog + u + 0x18, total + 2u * ACTLUT_STRIDE);
	struct session_result res;
	tsubmit(fi_prog, len + 2u * ACTLUT_STRIDE, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL,
		&res);
	static char why[160];
	snprintf(why, sizeof why, "%s%s", session_result_name(&res),
		 res.run == ENG_E_FAULT && strstr(res.fault_text, "activation-LUT section that differ")
			 ? " (records differ)"
			 : "");
	return why;
}

TEST(ctrl, kunit_activation_records_that_differ_refused)
{
	static const char desc[] = "input w=16 h=2 c=16\nactivation relu\n";
	CHECK_STR(fi_two_actluts(desc, 0), "ok");
	CHECK_STR(fi_two_actluts(desc, 1), "engine-fault (records differ)");
}

/* KernelFmt 1 weights fold signed, as KernelFmt 0's (docs/engine-model.md, "Registers"): a
 * kernel-unit layer whose bytes reach 0x80..0xff folds and runs under either format (refused by
 * name, fold-uint8-byte-ambiguous, until the engine model read them signed on Apple's less). */
TEST(ctrl, fold_kernelfmt_1_bytes_above_0x7f_read_signed)
{
	static const char desc[] = "input w=16 h=2 c=16\nlayer int8 cout=8 seed=1\n";
	size_t len = fi_build(desc), u = fi_unit(len);
	REQUIRE(len && u);
	uint32_t wo = le_rd32(fi_sec(u, KU_SEC_WEIGHTS, 0)), ws = le_rd32(fi_sec(u, KU_SEC_WEIGHTS, 1));
	unsigned high = 0;
	for (uint32_t k = 0; k < ws; k++)
		high += fi_prog[u + wo + k] >= 0x80u;
	CHECK(high > 0);
	CHECK_STR(fi_submit(len), "ok");
	REQUIRE(tpatch_field(fi_prog, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB,
			     H13_KERNELCFG_KERNELFMT_W, H13_KERNELFMT_UINT8) == 0);
	CHECK_STR(fi_submit(len), "ok");
}

/* A palettized TD's unit must say the same palette: its palette section's parameter one
 * codebook (count 1) of PalettizedBits; else refused by name. */
TEST(ctrl, kunit_palette_parameter_checked)
{
	static const char desc[] = "input w=16 h=2 c=16\nlayer palette4 cout=8 seed=4\n";
	size_t len = fi_build(desc), u = fi_unit(len);
	REQUIRE(len && u);
	CHECK_EQ(le_rd32(fi_sec(u, KU_SEC_PALETTE, 3)), 4u | 1u << 8);
	CHECK_STR(fi_submit(len), "ok");
	le_wr32(fi_sec(u, KU_SEC_PALETTE, 3), 8u | 1u << 8);
	CHECK_STR(fi_submit(len), "kunit-palette-bits-differ");
	le_wr32(fi_sec(u, KU_SEC_PALETTE, 3), 4u | 2u << 8);
	CHECK_STR(fi_submit(len), "kunit-palette-bits-differ");
}

/* fi_submit, and the refusal's detail (which section, what it holds, what was expected). */
static const char *fi_submit_detail(size_t len, char *detail, size_t cap)
{
	static struct session_result res;
	tsubmit(fi_prog, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, NULL, &res);
	snprintf(detail, cap, "%s", res.st.detail);
	return session_result_name(&res);
}

/* A present section's type is what its readers read it as: a scale or bias of type 6 or 0 was
 * read as fp16 (and its slots stepped at 2 bytes a channel) whatever its producer meant. Refused
 * by name, saying the section and the types; fp32 (4) and fp16 (5) run (the controls). */
TEST(ctrl, kunit_section_type_checked)
{
	static const char desc[] = "input w=16 h=2 c=16\nstreams fp32\nlayer int8 cout=8 seed=1\n";
	char detail[96];
	size_t len = fi_build(desc), u = fi_unit(len);
	REQUIRE(len && u);
	CHECK_EQ(le_rd32(fi_sec(u, KU_SEC_SCALE, 2)), 4u);
	CHECK_STR(fi_submit_detail(len, detail, sizeof detail), "ok");
	CHECK_STR(detail, "");
	le_wr32(fi_sec(u, KU_SEC_SCALE, 2), 6);
	CHECK_STR(fi_submit_detail(len, detail, sizeof detail), "kunit-section-type");
	CHECK_STR(detail, "section 3 (per-channel scale): type 6, want 5 (fp16) or 4 (fp32)");
	le_wr32(fi_sec(u, KU_SEC_SCALE, 2), 4);
	le_wr32(fi_sec(u, KU_SEC_BIAS, 2), 0);
	CHECK_STR(fi_submit_detail(len, detail, sizeof detail), "kunit-section-type");
	CHECK_STR(detail, "section 4 (per-channel bias): type 0, want 5 (fp16) or 4 (fp32)");
	/* the bias as fp16 (its 32 bytes long enough for 8 fp16 values): a documented type, so
	 * it runs */
	le_wr32(fi_sec(u, KU_SEC_BIAS, 2), 5);
	CHECK_STR(fi_submit_detail(len, detail, sizeof detail), "ok");
}

/* A per-channel section shorter than its records' channels: TD 1's OCG starts past the bias
 * section's end, which was refused only at plan time as stream-without-kernel-unit (a stream
 * of no length). Refused by the unit's check now, naming the section and the bytes; the unit
 * as written (the control) runs. */
TEST(ctrl, kunit_per_channel_section_short_refused)
{
	static const char desc[] = "input w=16 h=2 c=16\nlayer int8 cout=8 seed=1\n"
				   "layer int8 from=prev cout=8 seed=2\n";
	char detail[96];
	size_t len = fi_build(desc), u = fi_unit(len);
	REQUIRE(len && u);
	CHECK_EQ(le_rd32(fi_sec(u, KU_SEC_BIAS, 1)), 32u); /* 16 channels of fp16 */
	CHECK_STR(fi_submit_detail(len, detail, sizeof detail), "ok");
	le_wr32(fi_sec(u, KU_SEC_BIAS, 1), 16);
	CHECK_STR(fi_submit_detail(len, detail, sizeof detail), "kunit-section-short");
	CHECK_STR(detail, "section 4 (per-channel bias): 16 bytes, its records' channels need 32");
	le_wr32(fi_sec(u, KU_SEC_BIAS, 1), 32);
	le_wr32(fi_sec(u, KU_SEC_SCALE, 1), 30);
	CHECK_STR(fi_submit_detail(len, detail, sizeof detail), "kunit-section-short");
	CHECK_STR(detail, "section 3 (per-channel scale): 30 bytes, its records' channels need 32");
}
