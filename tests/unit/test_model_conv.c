/*
 * The engine model's convolution (engine/model/compute.c) against numpy's references
 * (tests/oracle/gen_conv.py: the MAC's definition in docs/engine-model.md, "Numerics", computed
 * by numpy into build/testdata/conv, which make test builds): random shapes (kernels 1..5 wide and
 * high, strides 1..3, padding 0..2, 1..2 groups, output channels not a multiple of 4, widths not a
 * multiple of the micro-kernel's block), fp16 inputs and weights (some weights 0), registers
 * written as a TD would, run through anem_compute; partial sums and biases past 2^15, kernels in
 * runs of 2^OCGSize, threads, SIMD levels. The model must give numpy's fp16 bits, on the fast path
 * (the register-blocked one) and on the plain one it falls back to when an input or a weight is
 * infinite. The comparison's own test: a corrupted output fails it.
 */
#include "engine/model/compute.h"
#include "fw/common/le.h"
#include "fw/td/td.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* where the comparisons' own tests change an output */
static uint32_t rng = 0x12345678u;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng % n;
}

struct cv {
	unsigned kw, kh, sx, sy, px, py, G, cin, cout, win, hin, w, h;
	unsigned ocg;   /* Common.ConvCfg.OCGSize: the kernels in runs of 2^ocg outputs a channel */
	int mod16;      /* lay the kernels out as OCGSize 0 has them whatever ocg says (a wrong layout) */
};

/* run_model's kernel layout under one pass, for the one test that sets them (ocg_case), 0
 * otherwise: run_spread lays a Cout under 16 x 2^ocg out Cout / 16 a channel in all 16 (else Cout
 * / 2^ocg channels of 2^ocg); run_en the coefficient channels enabled, a mask (0: those the layout
 * fills); run_extra bytes each channel's CoeffBfrSize has beyond its kernels. */
static int run_spread;
static unsigned run_en, run_extra;
/* run_model's NE.KernelCfg.KernelFmt plus 1, for the one test that sets it (0: fp16) */
static unsigned run_kfmt1;

/* run_model's biases, for the one test that sets them (bias_run), 0 otherwise: with
 * NE.MACCfg.BiasMode, output o's bias run_bias[o] as its kernel's element 0 (OCGSize 0 only);
 * NE.AccBias run_accbias, every output's bias. */
static const uint16_t *run_bias;
static uint16_t run_accbias;
/* run_model's PE after the convolution, for the one test that sets it (run_pe 1): one operand,
 * an add with PreScale run_pe_pre and Bias run_pe_bias, Scale 1 */
static int run_pe;
static uint16_t run_pe_pre, run_pe_bias;

#define SET(a, v) (regs[(a) / 4] = (v))

static unsigned conv_by_lines; /* convolutions the model did by channel lines (batch_lines) */
static struct anem *run_m;     /* run_model's model: its fault after a refusal */

static uint64_t line64(uint64_t n)
{
	return (n + 63u) & ~(uint64_t)63u;
}

/* Runs c with inputs in and weights wt (G Cout x Cin x Kh x Kw fp16); out gets the model's
 * fp16 outputs [G][Cout][H][W]. Returns the engine's result. */
static int run_model(const struct cv *c, const uint16_t *in, const uint16_t *wt, uint16_t *out)
{
	static uint32_t *regs;
	static struct anem *m;
	if (!regs)
		regs = calloc(ANEM_WINDOW_BYTES / 4, sizeof *regs);
	if (!m)
		m = calloc(1, sizeof *m);
	if (!regs || !m || anem_init(m, (uintptr_t)regs, NULL, 0, 0, plat_dma()) != ENG_OK)
		return -1;
	run_m = m;
	m->wd_budget = UINT64_MAX;
	uint64_t srow = line64(2ull * c->win), splane = srow * c->hin, sgroup = splane * c->cin;
	uint64_t drow = line64(2ull * c->w), dplane = drow * c->h, dgroup = dplane * c->cout;
	uint64_t kb = run_bias != NULL, per = (uint64_t)c->cin * c->kh * c->kw, block = line64((kb + per) * 2);
	uint64_t nout = (uint64_t)c->G * c->cout, nblk = (nout + H13_COEFF_NCH - 1) / H13_COEFF_NCH;
	/* a channel's bytes: OCGSize 0's blocks, or a pass's run of g kernels element by element,
	 * the passes one after another */
	uint64_t g = 1ull << c->ocg, pass = H13_COEFF_NCH * g, chlen = nblk * block;
	/* after whole passes, the outputs left spread over the 16 channels, R / 16 a channel; a
	 * Cout under one pass over Cout / g channels, or with spread Cout / 16 a channel in all 16 */
	uint64_t full = nout / pass, tail = full ? nout % pass / H13_COEFF_NCH : run_spread ? nout / H13_COEFF_NCH : g;
	unsigned en = !c->ocg ? (nout >= H13_COEFF_NCH ? 0xffffu : (1u << nout) - 1u)
		      : full || run_spread ? 0xffffu : (1u << (nout + g - 1) / g) - 1u;
	if (run_en)
		en = run_en;
	uint64_t runs = line64(per * 2 * (full * g + tail));
	if (c->ocg)
		chlen = runs; /* as Apple sizes them (mod16 writes what fits) */
	chlen += run_extra;
	uint8_t *src = calloc(1, sgroup * c->G), *dst = calloc(1, dgroup * c->G);
	uint8_t *coef = calloc(H13_COEFF_NCH, chlen);
	if (!src || !dst || !coef)
		return -1;
	for (unsigned g = 0; g < c->G; g++)
		for (unsigned ci = 0; ci < c->cin; ci++)
			for (unsigned y = 0; y < c->hin; y++)
				for (unsigned x = 0; x < c->win; x++)
					le_wr16(src + g * sgroup + ci * splane + y * srow + 2 * x,
						in[((g * c->cin + ci) * c->hin + y) * c->win + x]);
	if (kb && c->ocg)
		return -1; /* (not written here) */
	for (uint64_t o = 0; kb && o < nout; o++)
		le_wr16(coef + (o % H13_COEFF_NCH) * chlen + (o / H13_COEFF_NCH) * block, run_bias[o]);
	for (uint64_t o = 0; o < nout; o++)
		for (uint64_t k = 0; k < per; k++) {
			uint64_t p = o / pass, w = g, rr = o % pass;
			if (p >= full && tail) {
				p = full;
				w = tail;
				rr = o - full * pass;
			}
			uint64_t at = (o / H13_COEFF_NCH) * block + 2 * (kb + k);
			if (c->ocg && !c->mod16)
				le_wr16(coef + (rr / w) * chlen + p * per * 2 * g + 2 * (k * w + rr % w), wt[o * per + k]);
			else if (at + 2 <= chlen)
				le_wr16(coef + (o % H13_COEFF_NCH) * chlen + at, wt[o * per + k]);
		}
	struct mrange r[2 + H13_COEFF_NCH];
	memset(r, 0, sizeof r);
	r[0] = (struct mrange){TD_R_SRC0, 0, 0, 0x1000, sgroup * c->G, src};
	r[1] = (struct mrange){TD_R_DST, 0, 1, 0x2000, dgroup * c->G, dst};
	unsigned nr = 2;
	for (unsigned ch = 0; ch < H13_COEFF_NCH; ch++) { /* a range for each channel enabled */
		SET(H13_COEFF_DMACONFIG(ch), H13_PUT(H13_DMA_EN, en >> ch & 1u));
		if (en >> ch & 1u)
			r[nr++] = (struct mrange){TD_R_COEFF, (uint8_t)ch, 0, 0x10000 + ch * chlen, chlen,
						  coef + ch * chlen};
	}
	SET(H13_COMMON_CHCFG, H13_FMT_FP16 << H13_CHCFG_INFMT_LSB | H13_FMT_FP16 << H13_CHCFG_OUTFMT_LSB);
	SET(H13_COMMON_INDIM, c->win << H13_INDIM_WIN_LSB | c->hin << H13_INDIM_HIN_LSB);
	SET(H13_COMMON_OUTDIM, c->w << H13_OUTDIM_WOUT_LSB | c->h << H13_OUTDIM_HOUT_LSB);
	SET(H13_COMMON_CIN, c->cin << H13_CIN_LSB);
	SET(H13_COMMON_COUT, c->cout << H13_COUT_LSB);
	SET(H13_COMMON_GROUPCONVCFG, c->G << H13_GROUPCONV_NUMGROUPS_LSB);
	SET(H13_COMMON_TILECFG, H13_PUT(H13_TILECFG_TILEHEIGHT, c->h)); /* as real TDs: 1 or more */
	SET(H13_COMMON_INDEPTH, td_fixed_bits(H13_COMMON_INDEPTH));
	SET(H13_COMMON_OUTDEPTH, td_fixed_bits(H13_COMMON_OUTDEPTH));
	SET(H13_COMMON_WORD20, td_fixed_bits(H13_COMMON_WORD20));
	SET(H13_COMMON_CONVCFG, c->kw << H13_CONVCFG_KW_LSB | c->kh << H13_CONVCFG_KH_LSB |
					c->sx << H13_CONVCFG_SX_LSB | c->sy << H13_CONVCFG_SY_LSB |
					c->px << H13_CONVCFG_PX_LSB | c->py << H13_CONVCFG_PY_LSB |
					c->ocg << H13_CONVCFG_OCGSIZE_LSB | td_fixed_bits(H13_COMMON_CONVCFG));
	SET(H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA);
	SET(H13_L2_RESULTCFG, TD_L2_RESULTCFG_DMA);
	SET(H13_SRC_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_SRC_FMT));
	SET(H13_DST_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_DST_FMT));
	SET(H13_SRC_ROWSTRIDE, (uint32_t)srow);
	SET(H13_SRC_PLANESTRIDE, (uint32_t)splane);
	SET(H13_SRC_GROUPSTRIDE, (uint32_t)sgroup);
	SET(H13_DST_ROWSTRIDE, (uint32_t)drow);
	SET(H13_DST_PLANESTRIDE, (uint32_t)dplane);
	SET(H13_DST_GROUPSTRIDE, (uint32_t)dgroup);
	/* OpMode convolution (0), kernels from memory (KernelMode 0), BinaryPoint 0x1c as conv.hwx */
	SET(H13_NE_MACCFG, H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) | H13_PUT(H13_MACCFG_BINARYPOINT, 0x1c) |
				   H13_PUT(H13_MACCFG_BIT20, 1) | H13_PUT(H13_MACCFG_BIASMODE, kb));
	SET(H13_NE_ACCBIAS, H13_PUT(H13_ACCBIAS, run_accbias));
	SET(H13_NE_POSTSCALE, 0x3c00u << H13_POSTSCALE_LSB);
	SET(H13_NE_KERNELCFG, (run_kfmt1 ? run_kfmt1 - 1u : H13_KERNELFMT_FP16) << H13_KERNELCFG_KERNELFMT_LSB);
	SET(H13_COMMON_CFG, run_pe ? H13_PUT(H13_CFG_TASKTYPE, H13_TASK_PE_ONE) : 0u);
	SET(H13_PLANAR_CFG, run_pe ? H13_PUT(H13_PECFG_OPMODE, H13_PE_OP_ADD) : 0u);
	SET(H13_PLANAR_BIASSCALE, run_pe ? H13_PUT(H13_BIASSCALE_SCALE, 0x3c00u) |
						   H13_PUT(H13_BIASSCALE_BIAS, run_pe_bias) : 0u);
	SET(H13_PLANAR_PRESCALE, run_pe ? H13_PUT(H13_PRESCALE, run_pe_pre) : 0u);
	SET(H13_PLANAR_FINALSCALE, run_pe ? 0x3f800000u : 0u);
	struct anem_act act;
	memset(&act, 0, sizeof act);
	unsigned lines0 = m->conv_lines;
	int e = anem_compute(m, r, nr, &act);
	conv_by_lines += m->conv_lines - lines0;
	for (unsigned g = 0; g < c->G; g++)
		for (unsigned o = 0; o < c->cout; o++)
			for (unsigned y = 0; y < c->h; y++)
				for (unsigned x = 0; x < c->w; x++)
					out[((g * c->cout + o) * c->h + y) * c->w + x] =
						le_rd16(dst + g * dgroup + o * dplane + y * drow + 2 * x);
	free(src);
	free(dst);
	free(coef);
	anem_l2_clear(m);
	return e;
}

/*
 * numpy's references (tests/oracle/gen_conv.py, which make test runs into build/testdata/conv):
 * each case's shape, fp16 inputs, weights and biases, and the fp16 outputs numpy computes from the
 * MAC's definition in docs/engine-model.md ("Numerics", "Convolutions with a bias": fp32 sums in
 * the order ci, ky, kx, a bias added in fp32, one rounding to fp16, the 2^15 saturation of every
 * partial with the bias alone first, NaN inputs +inf and subnormal operands +0 at the ports). The
 * model must give the same bits. File: "ANECONV1", a case count, then per case sixteen words
 * (Kw Kh Sx Sy Px Py NumGroups Cin Cout Win Hin Wout Hout OCGSize, 1 when BiasMode's biases
 * follow, NE.AccBias) and the fp16 arrays.
 */
struct cnv_case {
	struct cv c;
	uint16_t *in, *wt, *bias, *want; /* bias NULL: no BiasMode */
	uint16_t accbias;                /* NE.AccBias (0: none) */
	size_t nin, nw, nout;
};

struct cnv {
	uint8_t *buf;
	size_t len, at; /* at: the next case's offset */
	unsigned n, next;
};

/* Opens build/testdata/conv/NAME.cnv: 0, or -1 (a failed check: make test builds every file, from
 * numpy alone, so none is ever skipped) */
static int cnv_open(const char *name, struct cnv *f)
{
	char rel[64];
	snprintf(rel, sizeof rel, "conv/%s.cnv", name);
	memset(f, 0, sizeof *f);
	if (test_read_file(test_data_path(rel), &f->buf, &f->len)) {
		CHECKF(0, "%s: no numpy reference (tests/oracle/gen_conv.py writes it; make test builds it)", rel);
		return -1;
	}
	if (f->len < 12 || memcmp(f->buf, "ANECONV1", 8)) {
		CHECKF(0, "%s: not a reference file", rel);
		free(f->buf);
		f->buf = NULL;
		return -1;
	}
	f->n = le_rd32(f->buf + 8);
	f->at = 12;
	return 0;
}

static void cnv_close(struct cnv *f)
{
	free(f->buf);
	f->buf = NULL;
}

static void cnv_case_free(struct cnv_case *k)
{
	free(k->in);
	free(k->wt);
	free(k->bias);
	free(k->want);
	memset(k, 0, sizeof *k);
}

static uint16_t *cnv_array(const uint8_t *p, size_t n)
{
	uint16_t *a = malloc(n ? n * 2 : 2);
	for (size_t i = 0; a && i < n; i++)
		a[i] = le_rd16(p + 2 * i);
	return a;
}

/* f's next case into k (its arrays malloc'd: cnv_case_free): 0, or -1 (a failed check) when the
 * file has no more or is malformed. */
static int cnv_next(struct cnv *f, struct cnv_case *k)
{
	memset(k, 0, sizeof *k);
	uint32_t h[16];
	if (!f->buf || f->next >= f->n || f->len - f->at < sizeof h) {
		CHECKF(0, "a reference file ends before case %u of %u", f->next, f->n);
		return -1;
	}
	for (unsigned i = 0; i < 16; i++) {
		h[i] = le_rd32(f->buf + f->at + 4 * i);
		if (i < 14 && h[i] > 1u << 16) {
			CHECKF(0, "case %u: field %u is %u", f->next, i, (unsigned)h[i]);
			return -1;
		}
	}
	k->c = (struct cv){h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], h[13], 0};
	const struct cv *c = &k->c;
	k->nin = (size_t)c->G * c->cin * c->hin * c->win;
	k->nw = (size_t)c->G * c->cout * c->cin * c->kh * c->kw;
	k->nout = (size_t)c->G * c->cout * c->h * c->w;
	const size_t nb = h[14] ? (size_t)c->G * c->cout : 0;
	k->accbias = (uint16_t)h[15];
	const size_t need = 2 * (k->nin + k->nw + nb + k->nout);
	const uint8_t *p = f->buf + f->at + sizeof h;
	if (f->len - f->at - sizeof h < need) {
		CHECKF(0, "case %u: the file ends inside it", f->next);
		return -1;
	}
	k->in = cnv_array(p, k->nin);
	k->wt = cnv_array(p + 2 * k->nin, k->nw);
	k->bias = nb ? cnv_array(p + 2 * (k->nin + k->nw), nb) : NULL;
	k->want = cnv_array(p + 2 * (k->nin + k->nw + nb), k->nout);
	if (!k->in || !k->wt || (nb && !k->bias) || !k->want) {
		cnv_case_free(k);
		CHECKF(0, "case %u: out of memory", f->next);
		return -1;
	}
	f->at += sizeof h + need;
	f->next++;
	return 0;
}

/* The outputs of got ([G][Cout][Hout][Wout], the model's) whose bits differ from numpy's. */
static unsigned cnv_differ(const struct cnv_case *k, const uint16_t *got)
{
	unsigned bad = 0;
	for (size_t i = 0; i < k->nout; i++)
		bad += got[i] != k->want[i];
	return bad;
}

/* Runs case k (its biases: BiasMode's, NE.AccBias) with its shape c (k's, or one the caller
 * changed: OCGSize, the layout) into out: the engine's result. */
static int run_case(const struct cnv_case *k, const struct cv *c, uint16_t *out)
{
	run_bias = k->bias;
	run_accbias = k->accbias;
	int e = run_model(c, k->in, k->wt, out);
	run_bias = NULL;
	run_accbias = 0;
	return e;
}

static int same_shape(const struct cv *a, const struct cv *b)
{
	return a->kw == b->kw && a->kh == b->kh && a->sx == b->sx && a->sy == b->sy && a->px == b->px &&
	       a->py == b->py && a->G == b->G && a->cin == b->cin && a->cout == b->cout && a->win == b->win &&
	       a->hin == b->hin && a->w == b->w && a->h == b->h && a->ocg == b->ocg;
}

/* Runs every case of the oracle file `name` (its count `want`), adding each case's refusal or
 * outputs that differ to bad[i / per]; returns the outputs compared (0 when the file is absent:
 * cnv_open has said so). */
static unsigned run_cnv_file(const char *name, unsigned want, unsigned per, unsigned *bad)
{
	unsigned outputs = 0;
	struct cnv f;
	if (cnv_open(name, &f))
		return 0;
	CHECK_EQ(f.n, want);
	for (unsigned i = 0; i < f.n && i < want; i++) { /* bad has want / per counts */
		struct cnv_case k;
		if (cnv_next(&f, &k))
			break;
		uint16_t *out = malloc(k.nout * 2);
		CHECK(out != NULL);
		if (!out) {
			cnv_case_free(&k);
			break;
		}
		bad[i / per] += run_case(&k, &k.c, out) != ENG_OK;
		bad[i / per] += cnv_differ(&k, out);
		outputs += (unsigned)k.nout;
		free(out);
		cnv_case_free(&k);
	}
	cnv_close(&f);
	return outputs;
}

/* random.cnv: 60 random shapes (kernels 1..5 x 1..3, strides 1..3 x 1..2, padding under the window,
 * 1..2 groups, 1..7 inputs, 1..9 outputs, widths 1..40) with finite values, 60 with one input +-inf
 * (the plain loop), 60 with one weight +inf; inputs and weights of either sign in [1/8, 4), one
 * weight in six +-0. */
TEST(model, conv_matches_reference)
{
	unsigned bad[3] = {0};
	unsigned outputs = run_cnv_file("random", 180u, 60u, bad);
	if (!outputs)
		return;
	printf("model conv: %u outputs; mismatches finite %u, infinite input %u, infinite weight %u\n",
	       outputs, bad[0], bad[1], bad[2]);
	CHECK_EQ(bad[0], 0u);
	CHECK_EQ(bad[1], 0u);
	CHECK_EQ(bad[2], 0u);
}

/* zero_inf.cnv (sixth review): 40 random shapes, one input in three 0 (+0, -0, or a subnormal the
 * MAC's port makes +0), one weight +-inf. Guide 03's 0 x inf = +0: an infinite weight times a 0
 * input adds nothing, as a 0 weight times an infinite input always has (gen_conv.py's reference
 * from that rule). Before, the product's NaN made the whole sum NaN and the output +0. */
TEST(model, conv_infinite_weight_times_a_zero_input_adds_nothing)
{
	unsigned bad = 0;
	unsigned outputs = run_cnv_file("zero_inf", 40u, 40u, &bad);
	if (!outputs)
		return;
	printf("model conv: %u outputs with an infinite weight over zero inputs; mismatches %u\n", outputs, bad);
	CHECK_EQ(bad, 0u);
}

/* The comparison's own test: one bit of one output changed fails it, in the first 10 random cases
 * and in every case of the partial sums' and the biases' files (at their outputs of interest,
 * which each test also checks by hand). */
TEST(model, conv_checker_fails_on_a_wrong_output)
{
	static const char *const files[] = {"random", "interior", "bias"};
	unsigned cases = 0, caught = 0;
	for (unsigned fi = 0; fi < 3; fi++) {
		struct cnv f;
		if (cnv_open(files[fi], &f))
			return;
		for (unsigned i = 0; i < (fi ? f.n : 10u); i++) {
			struct cnv_case k;
			if (cnv_next(&f, &k))
				break;
			uint16_t *out = malloc(k.nout * 2);
			REQUIRE(out);
			int e = run_case(&k, &k.c, out);
			unsigned before = cnv_differ(&k, out);
			out[rnd((uint32_t)k.nout)] ^= 1u;
			caught += e == ENG_OK && before == 0 && cnv_differ(&k, out) == 1;
			cases++;
			free(out);
			cnv_case_free(&k);
		}
		cnv_close(&f);
	}
	CHECK_EQ(cases, 10u + 24u + 30u);
	CHECK_EQ(caught, cases);
}

/*
 * A partial sum past 2^15 at the MAC's output port that later terms bring back (guide 03,
 * "Saturation hazard"; engine/model/compute.c, above line_port): output channel oc at (y, x)
 * sums 20000 x w0 (input channel 0, the centre tap) then -20000 x w1 (channel 1), every other
 * term of it 0. With w0 = 2, w1 = 1.5 the first partial is 40000 and the sum 10000: the output
 * is +inf (the partial's overflow stays), on every path the model takes: by channel lines (one
 * row, 1 and 2 threads), the phases (rows, one thread), rows on threads (a 3x3 window, 2
 * threads), the plain loop without columns (an infinite weight elsewhere) and over columns (an
 * infinite input in the same row). With w0 = -2 it is -inf; with w1 = 4 (40000, then -40000)
 * +inf, the first partial's sign, where the whole sum alone would give -inf. The same values in
 * the other order (w0 = 1.5, w1 = 2: 30000, then -10000) give -10000. The value at (oc, y, x) is
 * checked against this hand arithmetic, and every output against numpy's (interior.cnv: every
 * input 0.5, every other weight 1/4; none of the other outputs comes near 2^15).
 */
struct interior_case {
	const char *what;
	struct cv c;
	unsigned threads, y, x, oc;
};

/* Case `at` of file f (which must have k's shape) on k->threads: the model's value at (oc, y, x)
 * in *at, the outputs that differ from numpy's in *bad. */
static int file_run(struct cnv *f, const struct interior_case *k, unsigned *bad, uint16_t *at)
{
	struct cnv_case kc;
	*bad = ~0u;
	if (cnv_next(f, &kc))
		return -1;
	const struct cv c = k->c;
	uint16_t *out = malloc(kc.nout * 2);
	if (!same_shape(&kc.c, &c) || !out) {
		CHECKF(0, "%s: the reference's case is another shape", k->what);
		free(out);
		cnv_case_free(&kc);
		return -1;
	}
	hal_set_workers(k->threads);
	int e = run_case(&kc, &c, out);
	hal_set_workers(1);
	*at = out[((size_t)k->oc * c.h + k->y) * c.w + k->x];
	*bad = cnv_differ(&kc, out);
	free(out);
	cnv_case_free(&kc);
	return e;
}

/* A value case: the output file_run reads at (oc, y, x), and what gives it */
struct interior_val {
	uint16_t want;
	const char *what;
};

/* Every case of cases[] at every value of vals[], in the file's order (file `name`, nc x nv
 * cases): the value at (oc, y, x) as vals[] says and every output as numpy's */
static void file_cases(const char *name, const struct interior_case *cases, unsigned nc,
		       const struct interior_val *vals, unsigned nv)
{
	struct cnv f;
	if (cnv_open(name, &f))
		return;
	CHECK_EQ(f.n, nc * nv);
	for (unsigned i = 0; i < nc; i++)
		for (unsigned v = 0; v < nv; v++) {
			unsigned bad = 0;
			uint16_t at = 0;
			int e = file_run(&f, &cases[i], &bad, &at);
			CHECKF(e == ENG_OK && at == vals[v].want && bad == 0, "%s, %s: run %d, 0x%04x, %u "
			       "outputs unlike numpy's", cases[i].what, vals[v].what, e, at, bad);
		}
	cnv_close(&f);
}

TEST(model, conv_partial_past_2_15_overflows_the_output)
{
	static const struct interior_case cases[] = {
		{"one row by channel lines", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 1, 8, 1, 0, 0}, 1, 0, 3, 2},
		{"one row by channel lines, 2 threads", {1, 1, 1, 1, 0, 0, 1, 3, 9, 24, 1, 24, 1, 0, 0}, 2, 0, 17, 6},
		{"rows through the phases", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4, 0, 0}, 1, 2, 5, 1},
		{"rows on threads (3x3)", {3, 3, 1, 1, 1, 1, 1, 2, 6, 64, 5, 64, 5, 0, 0}, 2, 3, 4, 4},
		{"the plain loop (an infinite weight elsewhere)", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4, 0, 0}, 1, 1, 6, 0},
		{"the plain loop over columns (an infinite input in the row)", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4, 0, 0}, 1, 3, 1, 3},
	};
	static const struct interior_val vals[] = { /* w0, w1 as the file has them */
		{0x7c00u, "2, 1.5: 40000 then 10000 is +inf"},
		{0xfc00u, "-2, -1.5: -40000 then -10000 is -inf"},
		{0x7c00u, "2, 4: 40000 then -40000 is +inf (the first to overflow)"},
		{0xf0e2u, "1.5, 2: 30000 then -10000 is -10000"},
	};
	CHECK_EQ(sizeof cases / sizeof cases[0] * (sizeof vals / sizeof vals[0]), 24u); /* interior.cnv's */
	file_cases("interior", cases, sizeof cases / sizeof cases[0], vals, sizeof vals / sizeof vals[0]);
}

/*
 * A bias is the reduction's first row (docs/engine-model.md, "Convolutions with a bias"), so the
 * bias alone is the first partial at the port: a bias of 2^15 or more that the taps bring back
 * still makes the output infinite. Output oc at (y, x) of the shapes above, with BiasMode and a
 * bias B for oc only (0 for the others), its taps 0 but w0 on 20000 and w1 on -20000: B = 40000
 * with w1 = 1 (40000, then 20000) is +inf; B = -40000 with w0 = 1 (-40000, then -20000) is -inf;
 * B = 30000 (30000, then 10000) stays 10000 and B = 32752 (then 12752) 12752, the bias alone
 * under 2^15. With NE.AccBias 40000 (every output's bias) every output is +inf, oc's by its first
 * partial, the others' by their sums (40000 and small terms). Every path as above; the value at
 * (oc, y, x) against the hand arithmetic, every output against numpy's (bias.cnv).
 */
TEST(model, conv_bias_past_2_15_is_the_first_partial)
{
	static const struct interior_case cases[] = {
		{"one row by channel lines", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 1, 8, 1, 0, 0}, 1, 0, 3, 2},
		{"one row by channel lines, 2 threads", {1, 1, 1, 1, 0, 0, 1, 64, 64, 64, 1, 64, 1, 0, 0}, 2, 0, 17, 6},
		{"rows through the phases", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4, 0, 0}, 1, 2, 5, 1},
		{"rows on threads (3x3)", {3, 3, 1, 1, 1, 1, 1, 2, 6, 64, 5, 64, 5, 0, 0}, 2, 3, 4, 4},
		{"the plain loop (an infinite weight elsewhere)", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4, 0, 0}, 1, 1, 6, 0},
		{"the plain loop over columns (an infinite input in the row)", {1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4, 0, 0}, 1, 3, 1, 3},
	};
	static const struct interior_val vals[] = { /* B, w0, w1 as the file has them */
		{0x7c00u, "bias 40000, then 20000: +inf"},
		{0xfc00u, "bias -40000, then -20000: -inf"},
		{0x70e2u, "bias 30000, then 10000: 10000"},
		{0x723au, "bias 32752, then 12752: 12752"},
		{0x7c00u, "AccBias 40000, then 20000: +inf"},
	};
	CHECK_EQ(sizeof cases / sizeof cases[0] * (sizeof vals / sizeof vals[0]), 30u); /* bias.cnv's */
	file_cases("bias", cases, sizeof cases / sizeof cases[0], vals, sizeof vals / sizeof vals[0]);
}

/*
 * Seventh review: infinities of both signs in one output's sum. Guide 03 gives inf - inf = +0 and
 * says nothing of where the MAC flushes it inside an accumulation (at the partial, the later taps
 * counting; at the port, the whole output +0; or the first infinity staying, as a partial past
 * 2^15 does), so the model refuses such an output by name (ambiguous-value) where it gave +0 (or
 * the last infinity's sign). Output 0 at (1, 3) sums w0 a + w1 b + w2 d (every other tap's
 * weight 0; every other input 1, output 1's weights 1/4): each form refused on every path (the
 * phases' plain loop over columns, rows on threads, the plain loop without columns behind an
 * infinite weight of output 1), beside controls whose values are hand arithmetic: +inf - 1 + 1,
 * +inf + inf + 1 and 20000 + 20000 + inf are +inf; with BiasMode, a bias of +inf over +inf too.
 * A NaN weight or BiasMode bias (of either sign, any payload) is refused too, by its own name
 * (unreadable-weights), whatever the inputs: each output it reached was +0 before, a reading
 * nothing pins (guide 03's NaN-to-+inf coercion is measured where the tiles enter).
 */
struct amb_case {
	const char *what;
	uint16_t a, b, d, w0, w1, w2, bias; /* bias: output 0's (BiasMode), 0 without */
	int refused;   /* 1: infinities of both signs (ambiguous-value); 2: a NaN weight or bias */
	uint16_t want; /* a control's output */
};

/* The convolution paths amb_run's tests take (infw: output 1's weight infinite, so the kernels
 * go to the plain loop without columns). */
static const struct {
	const char *path;
	struct cv c;
	unsigned workers;
	int infw;
} amb_paths[] = {
	{"the phases (1x1, 4 rows)", {1, 1, 1, 1, 0, 0, 1, 3, 2, 8, 4, 8, 4, 0, 0}, 1, 0},
	{"the plain loop without columns", {1, 1, 1, 1, 0, 0, 1, 3, 2, 8, 4, 8, 4, 0, 0}, 1, 1},
	{"rows on threads (3x3)", {3, 3, 1, 1, 1, 1, 1, 3, 2, 64, 5, 64, 5, 0, 0}, 2, 0},
	{"the phases on threads (1x1, 4 rows)", {1, 1, 1, 1, 0, 0, 1, 3, 2, 8, 4, 8, 4, 0, 0}, 2, 0},
};

static int amb_run(const struct amb_case *k, const struct cv *c, unsigned workers, int infw, uint16_t *at)
{
	const unsigned kk = c->kw * c->kh, mid = (c->kh / 2) * c->kw + c->kw / 2;
	const size_t nin = (size_t)c->cin * c->hin * c->win, nw = (size_t)c->cout * c->cin * kk;
	uint16_t *in = malloc(nin * 2), *wt = calloc(nw, 2), *out = malloc((size_t)c->cout * c->w * c->h * 2);
	uint16_t bias[2] = {k->bias, 0};
	if (!in || !wt || !out)
		return -1;
	for (size_t i = 0; i < nin; i++)
		in[i] = 0x3c00u;
	const uint16_t v[3] = {k->a, k->b, k->d}, w[3] = {k->w0, k->w1, k->w2};
	for (unsigned ci = 0; ci < 3; ci++) {
		in[((size_t)ci * c->hin + 1) * c->win + 3] = v[ci];
		wt[(size_t)ci * kk + mid] = w[ci];
		wt[((size_t)c->cin + ci) * kk + mid] = 0x3400u; /* output 1: 1/4 */
	}
	if (infw) /* output 1's first tap +inf over 1s: the plain loop without columns */
		wt[(size_t)c->cin * kk] = 0x7c00u;
	hal_set_workers(workers);
	run_bias = k->bias ? bias : NULL;
	int e = run_model(c, in, wt, out);
	run_bias = NULL;
	hal_set_workers(1);
	*at = out[(size_t)1 * c->w + 3];
	free(in);
	free(wt);
	free(out);
	return e;
}

TEST(model, conv_infinities_of_both_signs_in_one_sum_are_refused)
{
	static const struct amb_case cases[] = {
		{"+inf x 1 then +inf x -1", 0x7c00u, 0x7c00u, 0x3c00u, 0x3c00u, 0xbc00u, 0x3c00u, 0, 1, 0},
		{"a NaN input (+inf at the port) x 1 then +inf x -1", 0x7e00u, 0x7c00u, 0x3c00u, 0x3c00u, 0xbc00u, 0x3c00u, 0, 1, 0},
		{"20000 + 20000 (past 2^15) then +inf x -1", 0x74e2u, 0x74e2u, 0x7c00u, 0x3c00u, 0x3c00u, 0xbc00u, 0, 1, 0},
		{"a bias of -inf, then +inf x 1", 0x7c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0, 0, 0xfc00u, 1, 0},
		{"control: +inf - 1 + 1", 0x7c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0xbc00u, 0x3c00u, 0, 0, 0x7c00u},
		{"control: +inf + inf + 1", 0x7c00u, 0x7c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0, 0, 0x7c00u},
		{"control: 20000 + 20000 + inf", 0x74e2u, 0x74e2u, 0x7c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0, 0, 0x7c00u},
		{"control: a bias of +inf, then +inf x 1", 0x7c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0, 0, 0x7c00u, 0, 0x7c00u},
		/* (the ninth review: no false refusal) an infinite input under a 0 weight, an infinite
		 * weight over an input of 0 (guide 03's 0 x inf = +0, then 1 + 1; the other outputs
		 * meet one sign), a partial past 2^15 then a finite product of the other sign (+inf,
		 * the saturated partial staying) */
		{"control: +inf x 0 then 1 + 1", 0x7c00u, 0x3c00u, 0x3c00u, 0, 0x3c00u, 0x3c00u, 0, 0, 0x4000u},
		{"control: -inf x 0 then 1 + 1", 0xfc00u, 0x3c00u, 0x3c00u, 0, 0x3c00u, 0x3c00u, 0, 0, 0x4000u},
		{"control: 0 x -inf then 1 + 1", 0, 0x3c00u, 0x3c00u, 0xfc00u, 0x3c00u, 0x3c00u, 0, 0, 0x4000u},
		{"control: 20000 + 20000 (past 2^15) then -1", 0x74e2u, 0x74e2u, 0x3c00u, 0x3c00u, 0x3c00u, 0xbc00u, 0, 0, 0x7c00u},
		/* a NaN weight or bias is refused before any sum (nan_weight_refusal: what the MAC does
		 * with one is not pinned; each output it reached was +0 before) */
		{"a NaN weight over +inf and -inf products", 0x7c00u, 0x7c00u, 0x3c00u, 0x3c00u, 0xbc00u, 0x7e00u, 0, 2, 0},
		{"a negative NaN weight with a payload over finite inputs", 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0xfe01u, 0, 2, 0},
		{"a NaN bias (BiasMode) over finite inputs", 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0x7d01u, 2, 0},
	};
	for (unsigned p = 0; p < sizeof amb_paths / sizeof amb_paths[0]; p++)
		for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			const struct amb_case *k = &cases[i];
			if (k->bias && amb_paths[p].infw)
				continue; /* (BiasMode: the one infinity is the bias's) */
			uint16_t at = 0;
			int e = amb_run(k, &amb_paths[p].c, amb_paths[p].workers, amb_paths[p].infw, &at);
			if (k->refused)
				CHECKF(e == ENG_E_FAULT &&
					       run_m->flt.reason == (k->refused == 2 ? ENG_FR_DATA : ENG_FR_VALUE) &&
					       run_m->flt.why &&
					       strstr(run_m->flt.why, k->refused == 2 ? "a NaN weight or kernel bias"
										   : "infinities of both signs"),
				       "%s, %s: not refused (%d, 0x%04x)", amb_paths[p].path, k->what, e, at);
			else
				CHECKF(e == ENG_OK && at == k->want, "%s, %s: %d, 0x%04x (%s)", amb_paths[p].path,
				       k->what, e, at, e ? run_m->flt.why : "ran");
		}
}

/*
 * The inf - inf scan is skipped for a row whose inputs and weights are all finite (compute.c
 * acc_may_amb: the row's own fin flag, m->wts_inf), so it must still run for the one row of a
 * batch that holds an infinity. Every input 1 but, in input row yi at x = 5, channels 0 and 1
 * +inf; output 0's weights (1, s, 1) over channels 0 to 2, every other output's 1/4. With s = -1
 * output 0 at that position meets +inf - inf and the TD is refused by name (ambiguous-value);
 * with s = 1 (the control) it runs: output 0 there +inf, elsewhere 1 + 1 + 1 = 3, every other
 * output 3/4 (+inf there). The row sits inside a batch of finite rows, neither the first nor the
 * last, on each path that finishes rows with the skip: the phases on one thread (a row a batch,
 * conv_finish_row), rows on threads (one batch of 5 rows, each row's flag from its columns) and
 * the phases on threads (a stride of 2: one batch of 8 rows, finished on threads, c->fin).
 */
static int batch_amb_run(const struct cv *c, unsigned workers, unsigned yi, uint16_t s, uint16_t *out)
{
	const size_t nin = (size_t)c->cin * c->hin * c->win, nw = (size_t)c->cout * c->cin;
	uint16_t *in = malloc(nin * 2), *wt = malloc(nw * 2);
	if (!in || !wt)
		return -1;
	for (size_t i = 0; i < nin; i++)
		in[i] = 0x3c00u;
	for (size_t i = 0; i < nw; i++)
		wt[i] = 0x3400u; /* 1/4 */
	wt[0] = 0x3c00u;
	wt[1] = s;
	wt[2] = 0x3c00u;
	in[(size_t)yi * c->win + 5] = 0x7c00u;             /* channel 0 */
	in[((size_t)c->hin + yi) * c->win + 5] = 0x7c00u; /* channel 1 */
	hal_set_workers(workers);
	int e = run_model(c, in, wt, out);
	hal_set_workers(1);
	free(in);
	free(wt);
	return e;
}

TEST(model, conv_one_row_of_a_batch_with_inf_minus_inf_is_refused)
{
	static const struct {
		const char *path;
		struct cv c;
		unsigned workers, yo; /* yo: the output row that holds the infinities */
	} paths[] = {
		{"the phases on one thread (1x1, 5 rows)", {1, 1, 1, 1, 0, 0, 1, 3, 8, 16, 5, 16, 5, 0, 0}, 1, 2},
		{"rows on threads (1x1, 5 rows)", {1, 1, 1, 1, 0, 0, 1, 3, 8, 16, 5, 16, 5, 0, 0}, 2, 2},
		{"the phases on threads (1x1, stride 2, 8 rows)", {1, 1, 1, 2, 0, 0, 1, 3, 64, 64, 15, 64, 8, 0, 0}, 2, 3},
	};
	for (unsigned p = 0; p < sizeof paths / sizeof paths[0]; p++) {
		const struct cv *c = &paths[p].c;
		const unsigned yi = paths[p].yo * c->sy;
		const size_t nout = (size_t)c->cout * c->h * c->w;
		uint16_t *out = malloc(nout * 2);
		REQUIRE(out);
		int e = batch_amb_run(c, paths[p].workers, yi, 0xbc00u, out);
		CHECKF(e == ENG_E_FAULT && run_m->flt.reason == ENG_FR_VALUE && run_m->flt.why &&
			       strstr(run_m->flt.why, "infinities of both signs"),
		       "%s: +inf - inf in output row %u not refused (%d)", paths[p].path, paths[p].yo, e);
		memset(out, 0, nout * 2);
		e = batch_amb_run(c, paths[p].workers, yi, 0x3c00u, out);
		unsigned bad = 0;
		for (unsigned o = 0; o < c->cout; o++)
			for (unsigned y = 0; y < c->h; y++)
				for (unsigned x = 0; x < c->w; x++) {
					const int at = y == paths[p].yo && x == 5;
					const uint16_t want = at ? 0x7c00u : o ? 0x3a00u /* 3/4 */ : 0x4200u /* 3 */;
					bad += out[((size_t)o * c->h + y) * c->w + x] != want;
				}
		CHECKF(e == ENG_OK && bad == 0, "%s, control: %d, %u outputs wrong (%s)", paths[p].path, e, bad,
		       e ? run_m->flt.why : "ran");
		free(out);
	}
}

/*
 * The tenth review: the PE after a convolution with PreScale 0 and a Bias of 1 over an infinite
 * output (output 0 at (1, 3): +inf x 1 + 1 + 1, every other output finite): op by op 0 x inf is
 * +0 and the Bias gives 1, at the end of the row the NaN gives +0; nothing pins which, so it is
 * refused by name on each of amb_run's paths (the phases, the plain loop, rows on threads, the
 * phases on threads), where it gave +0 before. Controls: the same over finite inputs (1 + 1 + 1:
 * 0 x 3 + 1 = 1 at (1, 3); not on the plain loop's path, whose output 1 is +inf), and PreScale 0
 * with Bias 0 over the infinity (+0 either way).
 */
TEST(model, the_pe_after_a_convolution_meeting_0_x_inf_before_a_bias_is_refused)
{
	static const struct amb_case inf = {"+inf x 1 + 1 + 1", 0x7c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u,
					    0x3c00u, 0, 0, 0};
	static const struct amb_case fin = {"1 + 1 + 1", 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u, 0x3c00u,
					    0x3c00u, 0, 0, 0};
	for (unsigned p = 0; p < sizeof amb_paths / sizeof amb_paths[0]; p++) {
		uint16_t at = 0;
		run_pe = 1;
		run_pe_pre = 0;
		run_pe_bias = 0x3c00u;
		int e = amb_run(&inf, &amb_paths[p].c, amb_paths[p].workers, amb_paths[p].infw, &at);
		CHECKF(e == ENG_E_FAULT && run_m->flt.reason == ENG_FR_VALUE && run_m->flt.why &&
			       strstr(run_m->flt.why, "the planar engine's operation"),
		       "%s: not refused (%d, 0x%04x: %s)", amb_paths[p].path, e, at, e ? run_m->flt.why : "ran");
		if (!amb_paths[p].infw) { /* (there output 1 is +inf: refused as above) */
			e = amb_run(&fin, &amb_paths[p].c, amb_paths[p].workers, amb_paths[p].infw, &at);
			CHECKF(e == ENG_OK && at == 0x3c00u, "%s, control 0 x 3 + 1: %d, 0x%04x (%s)", amb_paths[p].path,
			       e, at, e ? run_m->flt.why : "ran");
		}
		run_pe_bias = 0;
		e = amb_run(&inf, &amb_paths[p].c, amb_paths[p].workers, amb_paths[p].infw, &at);
		CHECKF(e == ENG_OK && at == 0, "%s, control 0 x inf + 0: %d, 0x%04x (%s)", amb_paths[p].path, e, at,
		       e ? run_m->flt.why : "ran");
		run_pe = 0;
	}
}

/*
 * A one-row convolution by channel lines on threads takes its row's largest |input| (line_port's
 * bound, which decides whether the partials are walked for the 2^15 saturation) from its column
 * tasks, each over the input channels it converted (compute.c batch_columns). 256 input channels
 * over 64 positions, two threads: two tasks, channels 0-127 and 128-255. Every input 0 but, at
 * x = 7, 20000 on channels 200, 201 and 202; output 0's weights 1, 1, -1 there (0 elsewhere), every
 * other output's 0. Output 0 at x = 7 sums 20000, then 40000 (past 2^15: +inf at the port, guide
 * 03's saturation hazard), then 20000: +inf; every other output 0. A bound from the first task's
 * channels alone (all 0) would skip the walk and give 20000.
 */
TEST(model, conv_lines_bound_from_every_column_task)
{
	static const struct cv c = {1, 1, 1, 1, 0, 0, 1, 256, 16, 64, 1, 64, 1, 0, 0};
	const size_t nin = (size_t)c.cin * c.win, nw = (size_t)c.cout * c.cin, nout = (size_t)c.cout * c.w;
	uint16_t *in = calloc(nin, 2), *wt = calloc(nw, 2), *out = malloc(nout * 2);
	REQUIRE(in && wt && out);
	for (unsigned ci = 200; ci <= 202; ci++) {
		in[(size_t)ci * c.win + 7] = 0x74e2u; /* 20000 */
		wt[ci] = ci < 202 ? 0x3c00u : 0xbc00u;
	}
	unsigned lines0 = conv_by_lines;
	hal_set_workers(2);
	int e = run_model(&c, in, wt, out);
	hal_set_workers(1);
	unsigned bad = 0;
	for (size_t i = 0; i < nout; i++)
		bad += out[i] != (i == 7 ? 0x7c00u : 0u);
	CHECKF(e == ENG_OK && conv_by_lines == lines0 + 1, "not run by channel lines: %d, %u", e,
	       conv_by_lines - lines0);
	CHECKF(bad == 0, "%u outputs wrong; output 0 at x = 7 0x%04x (want +inf, 0x7c00)", bad, out[7]);
	free(in);
	free(wt);
	free(out);
}

/*
 * Kernels in runs (Common.ConvCfg.OCGSize k > 0; docs/engine-model.md, "Kernel layout"): channel
 * c holds outputs [c 2^k, (c + 1) 2^k) of each pass of 16 x 2^k, input-major, the passes one
 * after another, and the model reads them so (the gemm.hwx shape: 512 outputs in one pass,
 * OCGSize 5; Whisper's runs of 16 in two passes). The same weights laid out as OCGSize 0 has
 * them fail the checker; the layouts no real program pins are refused.
 */
TEST(model, conv_kernels_in_runs_of_two_to_the_ocgsize)
{
	static const struct cv shapes[] = {
		{1, 1, 1, 1, 0, 0, 1, 40, 64, 9, 2, 9, 2, 2, 0},    /* 16 channels of 4 */
		{3, 3, 1, 1, 1, 1, 1, 5, 24, 11, 4, 11, 4, 3, 0},   /* 3 channels of 8, 3x3 */
		{1, 1, 1, 1, 0, 0, 1, 16, 32, 7, 1, 7, 1, 5, 0},    /* 1 channel of 32 */
		{1, 1, 1, 1, 0, 0, 1, 128, 512, 3, 1, 3, 1, 5, 0},  /* gemm.hwx: 16 x 32, packed on threads */
		{1, 1, 1, 1, 0, 0, 1, 32, 192, 5, 2, 5, 2, 2, 0},   /* three passes of 16 x 4 */
		{1, 1, 1, 1, 0, 0, 1, 24, 512, 4, 1, 4, 1, 4, 0},   /* Whisper's runs of 16: two passes */
		{1, 1, 1, 1, 0, 0, 1, 3, 64, 4, 1, 4, 1, 1, 0},     /* passes of 6 bytes, back to back */
		{1, 1, 1, 1, 0, 0, 1, 8, 384, 3, 2, 3, 2, 4, 0},    /* Whisper's 384: 256, then 8 a channel */
		{1, 1, 1, 1, 0, 0, 1, 8, 176, 3, 2, 3, 2, 3, 0},    /* 128, then 3 a channel (not a power of two) */
	};
	unsigned n = sizeof shapes / sizeof shapes[0], bad = 0, wrong = 0, outputs = 0;
	struct cnv f;
	if (cnv_open("ocg_runs", &f))
		return;
	CHECK_EQ(f.n, n);
	for (unsigned sh = 0; sh < n; sh++) {
		struct cnv_case k;
		if (cnv_next(&f, &k))
			break;
		CHECKF(same_shape(&k.c, &shapes[sh]), "shape %u: the reference's case is another shape", sh);
		struct cv c = shapes[sh];
		uint16_t *out = malloc(k.nout * 2);
		REQUIRE(out);
		bad += run_case(&k, &c, out) != ENG_OK;
		bad += cnv_differ(&k, out);
		c.mod16 = 1; /* the negative: OCGSize 0's layout under OCGSize k */
		memset(out, 0, k.nout * 2);
		if (run_case(&k, &c, out) == ENG_OK && cnv_differ(&k, out) > k.nout / 2)
			wrong++;
		outputs += (unsigned)k.nout;
		free(out);
		cnv_case_free(&k);
	}
	cnv_close(&f);
	printf("model conv OCGSize: %u outputs; wrong %u; OCGSize 0's layout caught %u of %u\n",
	       outputs, bad, wrong, n);
	CHECK_EQ(bad, 0u);
	CHECK_EQ(wrong, n);
	/* refused: a count not a multiple of 2^k, a last partial pass not a multiple of 16, several
	 * groups */
	static const struct cv refused[] = {
		{1, 1, 1, 1, 0, 0, 1, 8, 20, 4, 1, 4, 1, 3, 1}, /* (the bytes laid out as OCGSize 0's) */
		{1, 1, 1, 1, 0, 0, 1, 8, 200, 4, 1, 4, 1, 3, 1},
		{1, 1, 1, 1, 0, 0, 2, 8, 16, 4, 1, 4, 1, 2, 1},
	};
	for (unsigned i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		const struct cv *c = &refused[i];
		size_t nw = (size_t)c->G * c->cout * c->cin, nin = (size_t)c->G * c->cin * c->win;
		uint16_t *in = calloc(nin, 2), *wt = calloc(nw, 2), *out = calloc((size_t)c->G * c->cout * c->w, 2);
		REQUIRE(in && wt && out);
		CHECKF(run_model(c, in, wt, out) == ENG_E_FAULT, "case %u ran", i);
		free(in);
		free(wt);
		free(out);
	}
}

/* Runs case k with shape c (k's, its OCGSize or layout changed by the caller) in the layout
 * spread / en / extra (run_model's): the outputs unlike numpy's (nout + 1 when the run did not
 * complete, the fault in run_m->flt). */
static unsigned ocg_case(const struct cnv_case *k, const struct cv *c, int spread, unsigned en, unsigned extra)
{
	run_spread = spread;
	run_en = en;
	run_extra = extra;
	uint16_t *out = calloc(k->nout, 2);
	if (!out)
		return ~0u;
	unsigned bad = run_case(k, c, out) != ENG_OK ? (unsigned)k->nout + 1u : cnv_differ(k, out);
	run_spread = 0;
	run_en = run_extra = 0;
	free(out);
	return bad;
}

/* ocg_pass.cnv's cases: the six forms below, then the two wrong ones (their shapes checked) */
static struct cnv_case pass_cases[8];
static int pass_loaded;

static int load_pass_cases(void)
{
	if (pass_loaded)
		return 0;
	struct cnv f;
	if (cnv_open("ocg_pass", &f))
		return -1;
	CHECK_EQ(f.n, 8u);
	for (unsigned i = 0; i < 8; i++)
		if (cnv_next(&f, &pass_cases[i])) {
			cnv_close(&f);
			return -1;
		}
	cnv_close(&f);
	pass_loaded = 1;
	return 0;
}

/*
 * A Cout under one pass of 16 x 2^OCGSize has two forms, told apart by the coefficient channels
 * enabled (docs/engine-model.md, "Kernel layout"): the first Cout / 2^k channels, 2^k a channel
 * (the macOS linears), or all 16, Cout / 16 a channel (Apple's H13 K 4096 -> N 1024 linear: 96
 * outputs with OCGSize 3 as 6 a channel, its constant so rebuilt matching Apple's SHA-256). Each
 * computes numpy's values; Apple's 16 x 6 read the old way (8 a channel over the first 12,
 * all 16 enabled) fails them, as does the 16 x 3 form of 48 with 12 channels enabled; an enabled
 * channel the layout leaves unread, a channel it reads not enabled, and a channel longer than
 * its kernels are refused naming the register, each beside a control that completes.
 */
TEST(model, conv_kernels_under_one_pass_by_the_channels_enabled)
{
	static const struct {
		struct cv c;
		int spread;
		unsigned en, extra;
		const char *what;
	} ok[] = {
		{{1, 1, 1, 1, 0, 0, 1, 40, 96, 5, 2, 5, 2, 3, 0}, 1, 0, 0, "Apple's 96 with OCGSize 3: 16 x 6"},
		{{3, 3, 1, 1, 1, 1, 1, 5, 96, 6, 3, 6, 3, 3, 0}, 1, 0, 0, "16 x 6, 3x3"},
		{{1, 1, 1, 1, 0, 0, 1, 8, 48, 6, 2, 6, 2, 2, 0}, 1, 0, 0, "48 with OCGSize 2: 16 x 3 (the probe)"},
		{{1, 1, 1, 1, 0, 0, 1, 8, 48, 6, 2, 6, 2, 2, 0}, 0, 0, 0, "48 with OCGSize 2: 12 x 4 (12 enabled)"},
		{{1, 1, 1, 1, 0, 0, 1, 700, 96, 2, 1, 2, 1, 3, 0}, 1, 0, 0, "16 x 6, 700 inputs, packed on 2 threads"},
		{{1, 1, 1, 1, 0, 0, 1, 8, 64, 6, 2, 6, 2, 2, 0}, 0, 0, 0, "64 with OCGSize 2: one whole pass"},
	};
	if (load_pass_cases())
		return;
	for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECKF(same_shape(&pass_cases[i].c, &ok[i].c), "%s: the reference's case is another shape", ok[i].what);
		hal_set_workers(ok[i].c.cin >= 700 ? 2 : 1);
		unsigned bad = ocg_case(&pass_cases[i], &ok[i].c, ok[i].spread, ok[i].en, ok[i].extra);
		hal_set_workers(1);
		CHECKF(bad == 0, "%s: %u outputs wrong (%s)", ok[i].what, bad,
		       bad > ok[i].c.cout * ok[i].c.w * ok[i].c.h ? run_m->flt.why : "ran");
	}
	/* the other form's bytes: wrong numbers, not a refusal (the sizes agree) */
	static const struct {
		struct cv c;
		int spread;
		unsigned en, extra;
		const char *what;
	} wrong[] = {
		{{1, 1, 1, 1, 0, 0, 1, 2, 96, 6, 2, 6, 2, 3, 0}, 0, 0xffffu, 0, "8 a channel over 12, all 16 enabled"},
		{{1, 1, 1, 1, 0, 0, 1, 8, 48, 6, 2, 6, 2, 2, 0}, 1, 0x0fffu, 0, "16 x 3 with 12 enabled"},
	};
	for (unsigned i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		const struct cnv_case *k = &pass_cases[6 + i];
		CHECKF(same_shape(&k->c, &wrong[i].c), "%s: the reference's case is another shape", wrong[i].what);
		unsigned n = wrong[i].c.cout * wrong[i].c.w * wrong[i].c.h;
		unsigned bad = ocg_case(k, &wrong[i].c, wrong[i].spread, wrong[i].en, wrong[i].extra);
		CHECKF(bad > n / 2 && bad <= n, "%s: %u of %u outputs wrong", wrong[i].what, bad, n);
	}
	/* refused, by the field; each beside its control above (ok[k]: 48 and 64 with OCGSize 2;
	 * Apple's 96) */
	static const struct {
		unsigned k;
		int spread;
		unsigned en, extra;
		uint32_t reg;
		const char *why;
	} no[] = {
		{3, 0, 0x1fffu, 0, H13_COEFF_DMACONFIG(12), "enabled that"},
		{3, 0, 0x07ffu, 0, H13_COEFF_DMACONFIG(11), "reads is not enabled"},
		{5, 0, 0x7fffu, 0, H13_COEFF_DMACONFIG(15), "reads is not enabled"},
		{0, 1, 0, 64, H13_COEFF_BFRSIZE(0), "the sizes disagree"},
	};
	for (unsigned i = 0; i < sizeof no / sizeof no[0]; i++) {
		const struct cnv_case *k = &pass_cases[no[i].k];
		unsigned n = (unsigned)k->nout, bad = ocg_case(k, &k->c, no[i].spread, no[i].en, no[i].extra);
		CHECKF(bad == n + 1 && run_m->flt.reason == ENG_FR_COMBINATION && run_m->flt.reg == no[i].reg &&
		       run_m->flt.why && strstr(run_m->flt.why, no[i].why),
		       "case %u: %u wrong, reason %u, reg 0x%x, %s", i, bad, (unsigned)run_m->flt.reason,
		       (unsigned)run_m->flt.reg, run_m->flt.why ? run_m->flt.why : "-");
	}
}

/*
 * One-byte kernels (KernelFmt 0 or 1) in runs of 2^OCGSize outputs a channel: no real program
 * pins where a run's one-byte elements lie (every kernel-reading TD with OCGSize above 0 we hold
 * has fp16 kernels), so the model refuses them by name (fw/td td_kernel_bytes_refusal; docs/
 * engine-model.md, "What a third review found"). Before, 64 outputs with OCGSize 2 completed,
 * reading the fp16 kernels' bytes as one-byte elements at the fp16 layout's element positions.
 * The controls: the same TD with fp16 kernels computes numpy's values; one-byte kernels at
 * OCGSize 0 still run (their layout is OCGSize 0's, kernel by kernel). The case: ocg_pass.cnv's
 * 64 with OCGSize 2.
 */
TEST(model, one_byte_kernels_in_ocgsize_runs_are_refused)
{
	const struct cv runs = {1, 1, 1, 1, 0, 0, 1, 8, 64, 6, 2, 6, 2, 2, 0};
	const struct cv mod16 = {1, 1, 1, 1, 0, 0, 1, 8, 64, 6, 2, 6, 2, 0, 0};
	if (load_pass_cases())
		return;
	const struct cnv_case *k = &pass_cases[5];
	REQUIRE(same_shape(&k->c, &runs));
	const unsigned n = runs.cout * runs.w * runs.h;
	CHECKF(ocg_case(k, &runs, 0, 0, 0) == 0, "the control, fp16 kernels: %s", run_m->flt.why ? run_m->flt.why : "ran");
	for (unsigned kf = H13_KERNELFMT_INT8; kf <= H13_KERNELFMT_UINT8; kf++) {
		run_kfmt1 = kf + 1u;
		unsigned bad = ocg_case(k, &runs, 0, 0, 0);
		CHECKF(bad == n + 1 && run_m->flt.reason == ENG_FR_COMBINATION && run_m->flt.reg == H13_NE_KERNELCFG &&
			       run_m->flt.why && strstr(run_m->flt.why, "one-byte kernels (NE.KernelCfg.KernelFmt 0 or 1) "
									 "with Common.ConvCfg.OCGSize above 0"),
		       "KernelFmt %u, OCGSize 2: %u of %u wrong, %s", kf, bad, n, bad > n && run_m->flt.why ? run_m->flt.why : "ran");
		bad = ocg_case(k, &mod16, 0, 0, 0);
		CHECKF(bad <= n, "KernelFmt %u, OCGSize 0: refused: %s", kf, run_m->flt.why ? run_m->flt.why : "-");
		run_kfmt1 = 0;
	}
}

/*
 * Threads (hal_parallel, issue 26): convolutions large enough to be split over threads (one
 * row's channel lines, or rows on threads, in one batch or several) give the same bits with 1,
 * 2 and 3 threads, and numpy's (threads.cnv); a row with an infinite input (the plain loop inside
 * a batch) too, and rows with NaNs (the input port's +inf, numpy's too). The comparison's own
 * test: a one-bit change is found. (On the target, threads are the board's cores: 2 on
 * qemu-virt, 4 on raspi3b.)
 */
static size_t differ(const uint16_t *a, const uint16_t *b, size_t n)
{
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		d += a[i] != b[i];
	return d;
}

TEST(model, conv_threads_bit_identical)
{
	static const struct cv shapes[6] = {
		{3, 3, 1, 1, 1, 1, 1, 32, 36, 40, 12, 40, 12, 0, 0},  /* 3x3, padding 1 */
		{1, 1, 1, 1, 0, 0, 1, 256, 64, 64, 1, 64, 1, 0, 0},   /* 1x1, one row: by channel lines */
		{3, 2, 2, 1, 0, 1, 2, 24, 20, 45, 9, 22, 10, 0, 0},   /* strides, 2 groups */
		{1, 1, 1, 1, 0, 0, 1, 512, 130, 16, 3, 16, 3, 0, 0},  /* 2^16 weights and more: packed on threads */
		{3, 2, 1, 2, 1, 0, 1, 16, 2, 4096, 14, 4096, 7, 0, 0}, /* rows on threads: 4 batches, stride 2 */
		{1, 1, 1, 1, 0, 0, 1, 300, 70, 50, 1, 50, 1, 0, 0},  /* lines, Cout not a multiple of 4 or 12 */
	};
	/* the file's modes, each shape: 0 finite; 1 one input +inf; 2 three NaN inputs; 3 one weight
	 * -inf in the last output channel (found late) */
	unsigned bad = 0, diffs = 0, caught = 0, outputs = 0, by_lines = 0;
	struct cnv f;
	if (cnv_open("threads", &f))
		return;
	CHECK_EQ(f.n, 24u);
	for (unsigned sh = 0; sh < 6; sh++)
		for (unsigned mode = 0; mode < 4; mode++) {
			const struct cv *c = &shapes[sh];
			struct cnv_case k;
			if (cnv_next(&f, &k)) {
				cnv_close(&f);
				return;
			}
			CHECKF(same_shape(&k.c, c), "shape %u: the reference's case is another shape", sh);
			size_t nout = k.nout;
			uint16_t *o1 = malloc(nout * 2), *on = malloc(nout * 2);
			REQUIRE(o1 && on);
			CHECK_EQ(hal_set_workers(1), 1u);
			unsigned lines0 = conv_by_lines;
			bad += run_case(&k, c, o1) != ENG_OK;
			by_lines += conv_by_lines != lines0;
			bad += cnv_differ(&k, o1);
			for (unsigned t = 2; t <= 3; t++) {
#if defined(ANEFW_TARGET)
				/* the board's helper cores (hal/aarch64/pool.c) */
				unsigned nc = hal_platform()->ncores;
				CHECK_EQ(hal_set_workers(t), t < nc ? t : nc);
#else
				CHECK_EQ(hal_set_workers(t), t);
#endif
				memset(on, 0xff, nout * 2);
				bad += run_case(&k, c, on) != ENG_OK;
				diffs += differ(o1, on, nout) != 0;
			}
			on[rnd((uint32_t)nout)] ^= 0x0100u;
			caught += differ(o1, on, nout) == 1;
			outputs += (unsigned)nout;
			free(o1);
			free(on);
			cnv_case_free(&k);
		}
	cnv_close(&f);
	hal_set_workers(1);
	printf("model conv threads: %u outputs per thread count; runs or outputs unlike numpy's %u, "
	       "differing from 1 thread %u, one-bit changes found %u of 24; on one thread %u of 24 "
	       "runs done by channel lines\n", outputs, bad, diffs, caught, by_lines);
	CHECK_EQ(bad, 0u);
	CHECK_EQ(diffs, 0u);
	CHECK_EQ(caught, 24u);
	/* the two one-row shapes by channel lines when every input and weight is finite (mode 0);
	 * an infinite input, a NaN (+inf at the port) or an infinite weight: by the phases' plain
	 * loop */
	CHECK_EQ(by_lines, 2u);
}

#if !defined(ANEFW_TARGET)
/*
 * The model computes in its own floating-point mode, whatever the caller's or a pool thread's
 * (found by review, 2026-12-06). Every output of this 1x1 convolution (300 to 64 over 72, on
 * channel lines; rounding.cnv) sums 1 x 1, 1 x 2^-11 and 2^-14 x 2^-14 (every other weight 0):
 * in fp32 rounded to nearest the sum is 1 + 2^-11 (2^-28 is under half its last place), a tie in
 * fp16 that goes to the even 1.0 (0x3c00), as numpy gives. Rounding upward it would be
 * 1 + 2^-11 + 2^-23 and 0x3c01. The runs: the caller rounding upward on one thread, and a
 * helper thread rounding upward on two (each thread set by a task of its own: fe_set).
 */
#include <fenv.h>
#include <time.h>

static int fe_want_mode;
static unsigned fe_started;

/* A task that sets its thread's rounding mode, then waits (a second at most) until every task
 * has started, so that each of the pool's threads takes one. */
static void fe_task(void *arg, unsigned i)
{
	unsigned n = *(const unsigned *)arg;
	(void)i;
	fesetround(fe_want_mode);
	__atomic_add_fetch(&fe_started, 1u, __ATOMIC_ACQ_REL);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while (__atomic_load_n(&fe_started, __ATOMIC_ACQUIRE) < n &&
	       (t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000000L);
}

/* Sets mode on every thread of a pool of n; 1 when each thread took a task of its own. */
static int fe_set(unsigned n, int mode)
{
	fe_want_mode = mode;
	__atomic_store_n(&fe_started, 0u, __ATOMIC_RELEASE);
	hal_parallel(n, fe_task, &n);
	return __atomic_load_n(&fe_started, __ATOMIC_ACQUIRE) == n;
}

TEST(model, conv_rounds_to_nearest_whatever_the_threads_mode)
{
	static const struct cv c = {1, 1, 1, 1, 0, 0, 1, 300, 64, 72, 1, 72, 1, 0, 0};
	struct cnv f;
	struct cnv_case k;
	if (cnv_open("rounding", &f))
		return;
	int got = cnv_next(&f, &k);
	cnv_close(&f);
	if (got)
		return;
	REQUIRE(same_shape(&k.c, &c));
	size_t nout = k.nout;
	uint16_t *o1 = malloc(nout * 2), *ou = malloc(nout * 2), *o2 = malloc(nout * 2);
	REQUIRE(o1 && ou && o2);
	CHECK_EQ(hal_set_workers(1), 1u);
	CHECK_EQ(run_case(&k, &c, o1), ENG_OK);
	CHECK_EQ(cnv_differ(&k, o1), 0u);
	size_t even = 0;
	for (size_t i = 0; i < nout; i++)
		even += o1[i] == 0x3c00u;
	CHECK_EQ(even, nout);
	/* the caller rounding upward */
	REQUIRE(fesetround(FE_UPWARD) == 0);
	int e = run_case(&k, &c, ou);
	int mode = fegetround();
	fesetround(FE_TONEAREST);
	CHECK_EQ(e, ENG_OK);
	CHECK_EQ(mode, FE_UPWARD); /* put back after the run */
	CHECK_EQ(differ(o1, ou, nout), (size_t)0);
	/* a helper thread rounding upward, the caller to nearest */
	CHECK_EQ(hal_set_workers(2), 2u);
	CHECK(fe_set(2, FE_UPWARD));
	fesetround(FE_TONEAREST);
	e = run_case(&k, &c, o2);
	CHECK(fe_set(2, FE_TONEAREST));
	hal_set_workers(1);
	CHECK_EQ(e, ENG_OK);
	CHECK_EQ(differ(o1, o2, nout), (size_t)0);
	/* the comparison's own test */
	o2[nout / 2] ^= 1u;
	CHECK_EQ(differ(o1, o2, nout), (size_t)1);
	CHECK_EQ(cnv_differ(&k, o2), 1u);
	free(o1);
	free(ou);
	free(o2);
	cnv_case_free(&k);
}
#endif

/*
 * The micro-kernels at each SIMD level (anem_simd 2: AVX-512F where the CPU has it, 1: AVX2/FMA,
 * 0: the portable kernel; on aarch64 NEON, then portable) over rows whose padded widths take
 * every block the kernels are chosen by (8 to 64 positions in one block, the last vector of 16
 * masked to 8 or not; 48 at a time before the last 64 or fewer; AVX2's 24, 16 and 8): each
 * level matches numpy (simd.cnv) and gives the same bits as level 2. One shape a width is one
 * row (channel lines), the other three rows of a 3-wide window. The comparison's own test: a
 * one-bit change is found.
 */
TEST(model, conv_simd_levels_match_reference)
{
	static const unsigned widths[] = {3, 16, 23, 40, 56, 64, 72, 88, 112, 136, 200};
	const char *kern[3];
	unsigned bad = 0, diffs = 0, caught = 0, outputs = 0, cases = 0;
	int was = anem_simd;
	struct cnv f;
	if (cnv_open("simd", &f))
		return;
	CHECK_EQ(f.n, 2u * (unsigned)(sizeof widths / sizeof widths[0]));
	CHECK_EQ(hal_set_workers(1), 1u);
	for (unsigned i = 0; i < sizeof widths / sizeof widths[0]; i++)
		for (unsigned sh = 0; sh < 2; sh++) {
			unsigned wd = widths[i];
			struct cv c = sh ? (struct cv){3, 1, 1, 1, 1, 0, 1, 5, 6, wd, 3, wd, 3, 0, 0}
					 : (struct cv){1, 1, 1, 1, 0, 0, 1, 40, 9, wd, 1, wd, 1, 0, 0};
			struct cnv_case k;
			if (cnv_next(&f, &k)) {
				cnv_close(&f);
				return;
			}
			CHECKF(same_shape(&k.c, &c), "width %u, shape %u: the reference's case is another shape", wd, sh);
			size_t nout = k.nout;
			uint16_t *top = malloc(nout * 2), *o = malloc(nout * 2);
			REQUIRE(top && o);
			for (int lv = 2; lv >= 0; lv--) {
				anem_simd = lv;
				kern[lv] = anem_conv_kernels();
				uint16_t *dst = lv == 2 ? top : o;
				memset(dst, 0xff, nout * 2);
				bad += run_case(&k, &c, dst) != ENG_OK;
				bad += cnv_differ(&k, dst);
				if (lv < 2)
					diffs += differ(top, o, nout) != 0;
			}
			anem_simd = was;
			o[rnd((uint32_t)nout)] ^= 0x0100u;
			caught += differ(top, o, nout) == 1;
			outputs += (unsigned)nout;
			cases++;
			free(top);
			free(o);
			cnv_case_free(&k);
		}
	cnv_close(&f);
	printf("model conv SIMD levels: kernels %s / %s / %s at levels 2 / 1 / 0; %u cases, %u outputs "
	       "a level; runs or outputs unlike numpy's %u, differing from level 2 %u, one-bit changes "
	       "found %u of %u\n", kern[2], kern[1], kern[0], cases, outputs, bad, diffs, caught, cases);
	CHECK_EQ(bad, 0u);
	CHECK_EQ(diffs, 0u);
	CHECK_EQ(caught, cases);
	CHECK(!strcmp(kern[0], "portable"));
}

/* The table of register words whose bits outside the map's fields are refused (anem_outside_init,
 * from fw/regmap): every word fits (none dropped at ANEM_OUTSIDE_MAX), the shapes' and the
 * DMAs' words are in it with the bits the map leaves unnamed, and the registers whose unnamed
 * bits real programs set are not. */
TEST(model, outside_bits_table_from_the_register_map)
{
	uint32_t *regs = calloc(ANEM_WINDOW_BYTES / 4, sizeof *regs);
	struct anem *m = calloc(1, sizeof *m);
	REQUIRE(regs && m);
	REQUIRE(anem_init(m, (uintptr_t)regs, NULL, 0, 0, plat_dma()) == ENG_OK);
	CHECK(m->noutside > 64u);
	CHECK(m->noutside < ANEM_OUTSIDE_MAX);
	static const struct {
		uint32_t addr, mask; /* mask 0: not in the table */
	} want[] = {
		{H13_COMMON_INDIM, 0x80008000u}, {H13_COMMON_CIN, 0xfffe0000u}, {H13_SRC_BASEADDR, 0x3fu},
		{H13_DST_ROWSTRIDE, 0x3fu}, {H13_NE_POSTSCALE, 0xffe00000u}, {H13_COEFF_BASEADDR(15), 0x3fu},
		{H13_COMMON_CHCFG, 0}, {H13_NE_KERNELCFG, 0}, {H13_DST_DMACONFIG, 0}, {H13_L2_SOURCECFG, 0xfaa80000u},
		{H13_NE_MACCFG, 0}, {H13_PLANAR_CFG, 0}, {H13_PLANAR_PRESCALE, 0},
	};
	for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
		uint32_t got = 0;
		for (unsigned k = 0; k < m->noutside; k++)
			if (m->outside[k].addr == want[i].addr)
				got = m->outside[k].mask;
		CHECKF(got == want[i].mask, "0x%05x: mask 0x%08x, want 0x%08x", (unsigned)want[i].addr,
		       (unsigned)got, (unsigned)want[i].mask);
	}
	free(m);
	free(regs);
}

/*
 * Ninth review: a NaN bias (NE.MACCfg.BiasMode's, or NE.AccBias on a convolution) on a one-row
 * output, where the channel lines (batch_lines) compute the row before nan_weight_refusal ran:
 * 1x1 over 3 inputs of 1, weights 1, output 0's bias (or every output's AccBias) a NaN. Refused
 * by name on the lines and on the phases (4 rows) alike; the control, a bias of 1, is 3 + 1 = 4
 * for the biased outputs and 3 for the others (hand arithmetic).
 */
TEST(model, a_nan_bias_on_the_channel_lines_is_refused_by_name)
{
	static const struct {
		const char *path;
		struct cv c;
		unsigned lines; /* the row through the channel lines */
	} paths[] = {
		{"the channel lines (one row)", {1, 1, 1, 1, 0, 0, 1, 3, 2, 8, 1, 8, 1, 0, 0}, 1},
		{"the phases (4 rows)", {1, 1, 1, 1, 0, 0, 1, 3, 2, 8, 4, 8, 4, 0, 0}, 0},
	};
	static const struct {
		const char *what;
		uint16_t bias0, accbias;
		const char *refused; /* the refusal's text, NULL for a control */
	} cases[] = {
		{"control: BiasMode bias 1", 0x3c00u, 0, NULL},
		{"control: NE.AccBias 1", 0, 0x3c00u, NULL},
		{"a NaN BiasMode bias", 0x7e00u, 0, "a NaN weight or kernel bias"},
		{"a negative NaN BiasMode bias with a payload", 0xfd01u, 0, "a NaN weight or kernel bias"},
		{"a NaN NE.AccBias (the register: fw/td)", 0, 0x7e00u, "NE.AccBias a NaN"},
		{"a negative NaN NE.AccBias", 0, 0xfc01u, "NE.AccBias a NaN"},
	};
	for (unsigned p = 0; p < sizeof paths / sizeof paths[0]; p++)
		for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			const struct cv *c = &paths[p].c;
			const size_t nin = (size_t)c->cin * c->hin * c->win, nw = (size_t)c->cout * c->cin;
			const size_t nout = (size_t)c->cout * c->h * c->w;
			uint16_t in[3 * 4 * 8], wt[2 * 3], out[2 * 4 * 8], bias[2] = {cases[i].bias0, 0};
			for (size_t k = 0; k < nin; k++)
				in[k] = 0x3c00u;
			for (size_t k = 0; k < nw; k++)
				wt[k] = 0x3c00u;
			memset(out, 0, sizeof out);
			run_bias = cases[i].accbias ? NULL : bias;
			run_accbias = cases[i].accbias;
			unsigned lines0 = conv_by_lines;
			int e = run_model(c, in, wt, out);
			run_bias = NULL;
			run_accbias = 0;
			CHECKF((conv_by_lines != lines0) == (paths[p].lines && !cases[i].refused),
			       "%s, %s: the channel lines %u", paths[p].path, cases[i].what, conv_by_lines - lines0);
			if (cases[i].refused) {
				CHECKF(e == ENG_E_FAULT && run_m->flt.why && strstr(run_m->flt.why, cases[i].refused),
				       "%s, %s: not refused (%d, output 0 0x%04x)", paths[p].path, cases[i].what, e,
				       out[0]);
				continue;
			}
			unsigned bad = 0;
			for (size_t k = 0; k < nout; k++) {
				const int biased = cases[i].accbias || k < nout / 2;
				bad += out[k] != (biased ? 0x4400u : 0x4200u);
			}
			CHECKF(e == ENG_OK && bad == 0, "%s, %s: %d, %u of %zu off (%s)", paths[p].path,
			       cases[i].what, e, bad, nout, e ? run_m->flt.why : "ran");
		}
}
