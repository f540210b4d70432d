/*
 * anefw-tool lut-eval / lut-build: the 33-knot activation LUT record (fw/actlut, docs/actlut.md).
 * lut-eval runs the firmware's integer evaluator over all 65,536 fp16 bit patterns.
 * lut-build computes function values with libm (host only) and rounds them to fp16 with the
 * firmware's one rounding primitive, fp16_from_scaled.
 */
#include "fw/actlut/actlut.h"
#include "fw/common/fp16.h"
#include "fw/common/le.h"
#include "tools/anefw-tool/tool.h"

#include <errno.h>
#include <math.h> /* macros only (isnan, isinf, signbit, INFINITY, NAN): the link has no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_lut_eval(int argc, char **argv)
{
	const char *rec = NULL, *outp = NULL;
	uint64_t off = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--offset")) {
			if (i + 1 >= argc)
				return tool_usage_error("lut-eval", "--offset needs a value");
			if (tool_parse_u64(argv[++i], UINT32_MAX, &off))
				return tool_usage_error("lut-eval", "bad offset '%s'", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage_error("lut-eval", "unknown option '%s'", argv[i]);
		} else if (!rec) {
			rec = argv[i];
		} else if (!outp) {
			outp = argv[i];
		} else {
			return tool_usage_error("lut-eval", "too many arguments");
		}
	}
	if (!rec || !outp)
		return tool_usage_error("lut-eval", "needs RECORD and OUT");
	uint8_t *buf;
	size_t len;
	if (tool_read_file(rec, &buf, &len))
		return 1;
	if (off > len || len - off < ACTLUT_BYTES) {
		fprintf(stderr, "anefw-tool lut-eval: %s: no 86-byte record at offset %lu (file is %lu bytes)\n",
			rec, (unsigned long)off, (unsigned long)len);
		free(buf);
		return 1;
	}
	struct actlut lut;
	enum actlut_err err = actlut_parse(&lut, buf + off, len - off);
	if (err != ACTLUT_OK) {
		free(buf);
		fprintf(stderr, "anefw-tool lut-eval: %s at offset %lu: " ERR_FMT "\n", rec,
			(unsigned long)off, ERR_ARGS(actlut_err(err)));
		return 1;
	}
	/* the reading's evaluation is written whatever the checks say (the golden vectors and the
	 * mutation runs evaluate exactly such records), but a record the engine model refuses (its
	 * word where nothing pins the value, a nonzero byte after the slots: actlut_read_checked over
	 * the record's 0x80 bytes, or the file's end) is said so, by name */
	struct actlut chk;
	size_t pad_at = 0;
	const size_t rlen = len - off < ACTLUT_STRIDE ? len - off : ACTLUT_STRIDE;
	const enum actlut_err ce = actlut_read_checked(&chk, buf + off, rlen, &pad_at);
	free(buf);
	if (ce != ACTLUT_OK)
		fprintf(stderr, "anefw-tool lut-eval: %s at offset %lu: note: the engine model refuses this "
				"record (" ERR_FMT "); OUT is the reading's evaluation all the same\n",
			rec, (unsigned long)off, ERR_ARGS(actlut_err(ce)));
	static uint16_t table[ACTLUT_TABLE_LEN];
	static uint8_t bytes[2 * ACTLUT_TABLE_LEN];
	actlut_build_table(&lut, table);
	for (uint32_t i = 0; i < ACTLUT_TABLE_LEN; i++)
		le_wr16(bytes + 2 * i, table[i]);
	if (tool_write_raw("lut-eval", outp, bytes, sizeof bytes))
		return 1;
	return 0;
}

TOOL_COMMAND(lut_eval, "lut-eval", cmd_lut_eval,
	     "lut-eval RECORD OUT [--offset N]  evaluate the activation LUT record at byte N of RECORD\n"
	     "                             for all 65,536 fp16 inputs; OUT gets 65,536 LE fp16 (a record\n"
	     "                             the engine model refuses is evaluated, with a note saying why)");

/* ---- lut-build ---- */

/* double -> fp16, exactly rounded once (nearest, ties to even) by fp16_from_scaled. */
static uint16_t h16(double v)
{
	if (isnan(v))
		return FP16_QNAN;
	if (isinf(v))
		return v > 0 ? FP16_POS_INF : FP16_NEG_INF;
	if (v == 0)
		return signbit(v) ? FP16_SIGN : 0;
	int e;
	double m = frexp(v, &e); /* v = m * 2^e, 0.5 <= |m| < 1 */
	int64_t mi = (int64_t)ldexp(m, 53);
	return fp16_from_scaled(mi, e - 53);
}

static double d16(uint16_t h)
{
	if (fp16_is_nan(h))
		return NAN;
	if (fp16_is_inf(h))
		return (h & FP16_SIGN) ? -INFINITY : INFINITY;
	int32_t m, e;
	fp16_decompose(h, &m, &e);
	return ldexp((double)m, e);
}


/*
 * Double-precision helpers for the builder. The tool is linked without libm, so these are
 * written out here (frexp/ldexp come from libc); relative accuracy ~1e-15, far below fp16's 2^-11.
 */
static const double LN2 = 0.69314718055994530942;

static double m_fabs(double x) { return x < 0 ? -x : x; }

static double m_exp(double x)
{
	if (x > 709)
		return INFINITY;
	if (x < -745)
		return 0;
	double k = (double)(long)(x / LN2 + (x < 0 ? -0.5 : 0.5));
	double r = x - k * 0.693145751953125 - k * 1.42860682030941723212e-6; /* ln2 split */
	double term = 1, sum = 1;
	for (int n = 1; n < 30; n++) {
		term *= r / n;
		sum += term;
	}
	return ldexp(sum, (int)k);
}

static double m_exp2(double x)
{
	double k = (double)(long)x;
	if (k > x)
		k -= 1;
	return ldexp(m_exp((x - k) * LN2), (int)k);
}

static double m_log(double x)
{
	int e;
	double m = frexp(x, &e); /* [0.5, 1) */
	if (m < 0.70710678118654752) {
		m *= 2;
		e--;
	}
	double t = (m - 1) / (m + 1), t2 = t * t, term = t, sum = 0;
	for (int n = 1; n < 80; n += 2) {
		sum += term / n;
		term *= t2;
	}
	return 2 * sum + e * LN2;
}

static double m_sqrt(double x)
{
	if (x <= 0)
		return 0;
	int e;
	double m = frexp(x, &e);
	double g = ldexp(m > 0.5 ? 0.9 : 0.75, e / 2); /* rough start */
	if (e & 1)
		g = ldexp(g, e > 0 ? 1 : 0) * 0.7;
	for (int i = 0; i < 60; i++)
		g = 0.5 * (g + x / g);
	return g;
}

static double m_tanh(double x)
{
	double a = m_fabs(x);
	double r;
	if (a < 0.5) { /* series avoids cancellation near 0 */
		double e2 = m_exp(2 * a) - 1; /* ok for a >= 1e-3; below use the odd series */
		if (a < 1e-3)
			r = a - a * a * a / 3;
		else
			r = e2 / (e2 + 2);
	} else if (a > 20) {
		r = 1;
	} else {
		double e2 = m_exp(2 * a);
		r = (e2 - 1) / (e2 + 1);
	}
	return x < 0 ? -r : r;
}

static double m_erf(double z)
{
	double a = m_fabs(z), r;
	if (a < 3) {
		double term = a, sum = a, a2 = a * a;
		for (int n = 1; n < 120; n++) {
			term *= -a2 / n;
			sum += term / (2 * n + 1);
		}
		r = sum * 1.12837916709551257390; /* 2/sqrt(pi) */
	} else {
		double k = a;
		for (int n = 120; n >= 1; n--)
			k = a + (n / 2.0) / k;
		r = 1 - m_exp(-a * a) * 0.56418958354775628695 / k; /* 1/sqrt(pi) */
	}
	return z < 0 ? -r : r;
}

static double f_sigmoid(double x) { return 1.0 / (1.0 + m_exp(-x)); }
static double f_tanh(double x) { return m_tanh(x); }
static double f_gelu(double x) { return 0.5 * x * (1.0 + m_erf(x * 0.70710678118654752440)); }
static double f_silu(double x) { return x / (1.0 + m_exp(-x)); }
static double f_exp2(double x) { return m_exp2(x); }
static double f_log2(double x) { return m_log(x) / LN2; }
static double f_sqrt(double x) { return m_sqrt(x); }
static double f_rsqrt(double x) { return 1.0 / m_sqrt(x); }
static double f_recip(double x) { return 1.0 / x; }

enum bkind { B_LINEAR, B_PLAIN, B_ODD, B_MANT };

struct func {
	const char *name;
	enum bkind kind;
	double (*f)(double);
	uint16_t mode;
	int scale;          /* default s (knotted kinds) */
	double dom_lo, dom_hi; /* linear kinds: input clamp; mantissa kinds: input clamp */
	double out_lo, out_hi; /* output (tail) clamp */
	int asym_tails;     /* plain: tails are the asymptotes 0 (left) and x (right) */
	const char *note;
};

static const struct func funcs[] = {
	{"relu", B_LINEAR, NULL, ACTLUT_MODE_PLAIN, 0, 0, INFINITY, 0, INFINITY, 0, NULL},
	{"relu6", B_LINEAR, NULL, ACTLUT_MODE_PLAIN, 0, 0, 6, 0, 6, 0, NULL},
	{"leakyrelu", B_LINEAR, NULL, ACTLUT_MODE_PLAIN, 0, -INFINITY, INFINITY, -INFINITY, INFINITY, 0, NULL},
	{"hardtanh", B_LINEAR, NULL, ACTLUT_MODE_PLAIN, 0, -1, 1, -1, 1, 0, NULL},
	{"sigmoid", B_PLAIN, f_sigmoid, ACTLUT_MODE_PLAIN, 1, 0, 0, 0, 1, 0, NULL},
	{"tanh", B_ODD, f_tanh, ACTLUT_MODE_ODD, 3, 0, 0, 0, 1, 0, NULL},
	{"gelu", B_PLAIN, f_gelu, ACTLUT_MODE_PLAIN, 2, 0, 0, 0, INFINITY, 1, NULL},
	{"silu", B_PLAIN, f_silu, ACTLUT_MODE_PLAIN, 1, 0, 0, -INFINITY, INFINITY, 1, NULL},
	{"exp", B_MANT, f_exp2, ACTLUT_MODE_EXP2, 5, -25, 16, 0, INFINITY, 0,
	 "the record computes 2^t: the engine must scale its input by log2(e) = 0x3dc5 first"},
	{"exp2", B_MANT, f_exp2, ACTLUT_MODE_EXP2, 5, -25, 16, 0, INFINITY, 0, NULL},
	{"log2", B_MANT, f_log2, ACTLUT_MODE_LOG2, 6, 0, INFINITY, -INFINITY, 0, 0, NULL},
	{"sqrt", B_MANT, f_sqrt, ACTLUT_MODE_SQRT, 4, 0, INFINITY, 0, INFINITY, 0, NULL},
	/* the shape of the compiler's records (issue 14): clamp [0, +inf] on |x|, end values +inf
	 * (at 0) and 0 (at +inf), in that order: a decreasing function. reciprocal's word is the
	 * real one (unary/inv.bin, 0x67), and rsqrt's 0xc6 is Apple's (docs/actlut.md): lut-build rsqrt
	 * writes that record byte for byte */
	{"rsqrt", B_MANT, f_rsqrt, ACTLUT_MODE_RSQRT, 4, 0, INFINITY, INFINITY, 0, 0, NULL},
	{"reciprocal", B_MANT, f_recip, ACTLUT_MODE_RECIP, 6, 0, INFINITY, INFINITY, 0, 0, NULL},
};

static int parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || isnan(v))
		return -1;
	*out = v;
	return 0;
}

/* lut-build's command line. */
struct lut_args {
	const struct func *fn;
	const char *out;
	int has_dom;    /* --domain given */
	double lo, hi;  /* --domain LO:HI */
	double slope;   /* --slope (leakyrelu) */
};

/* FUNC, OUT, --domain and --slope into *a: 0, or the exit status of the refusal (printed). */
static int lut_build_args(int argc, char **argv, struct lut_args *a)
{
	const char *fname = NULL, *dom = NULL, *slope_s = NULL;
	a->out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--domain") || !strcmp(argv[i], "--slope")) {
			if (i + 1 >= argc)
				return tool_usage_error("lut-build", "%s needs a value", argv[i]);
			if (argv[i][2] == 'd')
				dom = argv[++i];
			else
				slope_s = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] && !(argv[i][1] >= '0' && argv[i][1] <= '9')) {
			return tool_usage_error("lut-build", "unknown option '%s'", argv[i]);
		} else if (!fname) {
			fname = argv[i];
		} else if (!a->out) {
			a->out = argv[i];
		} else {
			return tool_usage_error("lut-build", "too many arguments");
		}
	}
	if (!fname || !a->out)
		return tool_usage_error("lut-build", "needs FUNC and OUT");
	a->fn = NULL;
	for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
		if (!strcmp(funcs[i].name, fname))
			a->fn = &funcs[i];
	if (!a->fn) {
		fprintf(stderr, "anefw-tool lut-build: unknown function '%s'; known:", fname);
		for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
			fprintf(stderr, " %s", funcs[i].name);
		fprintf(stderr, "\n");
		return 2;
	}
	a->has_dom = dom != NULL;
	a->lo = a->hi = 0;
	a->slope = 0.01;
	if (dom) {
		char tmp[128];
		const char *colon = strchr(dom, ':');
		if (!colon || strlen(dom) >= sizeof tmp)
			return tool_usage_error("lut-build", "--domain wants LO:HI, got '%s'", dom);
		memcpy(tmp, dom, (size_t)(colon - dom));
		tmp[colon - dom] = 0;
		if (parse_double(tmp, &a->lo) || parse_double(colon + 1, &a->hi) || !(a->lo < a->hi))
			return tool_usage_error("lut-build", "--domain wants LO:HI with LO < HI, got '%s'", dom);
	}
	if (slope_s) {
		if (strcmp(a->fn->name, "leakyrelu"))
			return tool_usage_error("lut-build", "--slope is for leakyrelu only");
		if (parse_double(slope_s, &a->slope) || !isfinite(a->slope) || m_fabs(a->slope) > 65504)
			return tool_usage_error("lut-build", "bad slope '%s'", slope_s);
	}
	return 0;
}

/* Where the record's knots sit: the input clamp and mode slots of s, the scale (*scale) and the
 * position of knot 0 in the LUT input (*x0). 0, or the exit status of a refusal (printed). */
static int lut_place(const struct lut_args *a, uint16_t *s, int *scale, double *x0)
{
	const struct func *fn = a->fn;
	*scale = fn->scale;
	*x0 = 0;
	switch (fn->kind) {
	case B_LINEAR: {
		double clo = a->has_dom ? a->lo : fn->dom_lo, chi = a->has_dom ? a->hi : fn->dom_hi;
		s[ACTLUT_IN_LO] = h16(clo);
		s[ACTLUT_IN_HI] = h16(chi);
		if (a->has_dom) {
			s[ACTLUT_OUT_LO] = h16(clo);
			s[ACTLUT_OUT_HI] = h16(chi);
		}
		s[ACTLUT_SCALE] = ACTLUT_SCALE_LINEAR;
		double ls = !strcmp(fn->name, "leakyrelu") ? a->slope : 1.0;
		if (!strcmp(fn->name, "relu") && !a->has_dom)
			ls = 1.0;
		s[ACTLUT_L_SLOPE] = h16(ls);
		s[ACTLUT_R_SLOPE] = h16(1.0);
		break;
	}
	case B_PLAIN:
	case B_ODD: {
		if (a->has_dom) {
			double m = (m_fabs(a->lo) > m_fabs(a->hi) ? m_fabs(a->lo) : m_fabs(a->hi));
			double half = fn->kind == B_ODD ? 32.0 : 16.0; /* knot span in segments */
			*scale = ACTLUT_SCALE_MAX;
			while (*scale > 0 && ldexp(half, -*scale) < m)
				(*scale)--;
			if (ldexp(half, -*scale) < m)
				return tool_usage_error("lut-build", "domain too wide: at most %g", half);
		}
		*x0 = fn->kind == B_ODD ? 0 : -ldexp(16.0, -*scale);
		s[ACTLUT_IN_LO] = h16(fn->kind == B_ODD ? 0 : -INFINITY);
		s[ACTLUT_IN_HI] = FP16_POS_INF;
		break;
	}
	case B_MANT:
		s[ACTLUT_IN_LO] = h16(a->has_dom ? a->lo : fn->dom_lo);
		s[ACTLUT_IN_HI] = h16(a->has_dom ? a->hi : fn->dom_hi);
		if (fn->mode == ACTLUT_MODE_LOG2 || fn->mode == ACTLUT_MODE_RECIP)
			*x0 = 0.5;
		break;
	}
	return 0;
}

/* The 33 knots f(x0 + i / 2^scale) (a linear-only record has none). */
static void lut_knots(const struct func *fn, uint16_t *s, int scale, double x0)
{
	if (fn->kind == B_LINEAR)
		return;
	s[ACTLUT_SCALE] = (uint16_t)scale;
	double step = ldexp(1.0, -scale);
	for (int i = 0; i < ACTLUT_KNOTS; i++) {
		double x = x0 + i * step;
		double v;
		if (fn->kind == B_MANT && fn->mode != ACTLUT_MODE_EXP2 && x < 0.5)
			v = 0; /* below the mantissa range: never used (0, as Apple's sqrt and rsqrt) */
		else
			v = fn->f(x);
		s[ACTLUT_KNOT0 + i] = h16(v);
	}
}

/* The tails past the end knots of a plain or odd record. */
static void lut_tails(const struct func *fn, uint16_t *s, int scale, double x0)
{
	if (fn->kind != B_PLAIN && fn->kind != B_ODD)
		return;
	double xl = x0, xr = x0 + 32 * ldexp(1.0, -scale), h = 1e-6;
	if (fn->asym_tails) {
		s[ACTLUT_R_SLOPE] = h16(1.0); /* left tail 0, right tail x */
		return;
	}
	/* tangent lines at the end knots; the output clamp holds the range */
	double dl = (fn->f(xl + h) - fn->f(xl - h)) / (2 * h);
	double dr = (fn->f(xr + h) - fn->f(xr - h)) / (2 * h);
	if (fn->kind == B_PLAIN) {
		s[ACTLUT_L_SLOPE] = h16(dl);
		s[ACTLUT_L_ICPT] = h16(fn->f(xl) - dl * xl);
	}
	s[ACTLUT_R_SLOPE] = h16(dr);
	s[ACTLUT_R_ICPT] = h16(fn->f(xr) - dr * xr);
}

/* Packs the slots, checks the record parses (fw/actlut), writes it and says what it built. */
static int lut_write(const struct lut_args *a, const uint16_t *s, int scale, double x0)
{
	const struct func *fn = a->fn;
	uint8_t rec[ACTLUT_BYTES];
	for (int i = 0; i < ACTLUT_SLOTS; i++)
		le_wr16(rec + 2 * i, s[i]);
	struct actlut check;
	enum actlut_err err = actlut_parse(&check, rec, sizeof rec);
	if (err != ACTLUT_OK) {
		fprintf(stderr, "anefw-tool lut-build: built record does not parse: " ERR_FMT "\n",
			ERR_ARGS(actlut_err(err)));
		return 1;
	}
	if (tool_write_raw("lut-build", a->out, rec, sizeof rec))
		return 1;
	if (fn->kind == B_PLAIN || fn->kind == B_ODD)
		fprintf(stderr, "lut-build %s: mode 0x%x, s=%d, knots over [%g, %g]\n", fn->name, fn->mode, scale,
			x0, x0 + 32 * ldexp(1.0, -scale));
	else
		fprintf(stderr, "lut-build %s: mode 0x%x, s=%d, input clamp [%g, %g]\n", fn->name, fn->mode,
			fn->kind == B_LINEAR ? ACTLUT_SCALE_LINEAR : scale, d16(s[ACTLUT_IN_LO]), d16(s[ACTLUT_IN_HI]));
	if (fn->note)
		fprintf(stderr, "lut-build %s: note: %s\n", fn->name, fn->note);
	return 0;
}

static int cmd_lut_build(int argc, char **argv)
{
	struct lut_args a;
	int rc = lut_build_args(argc, argv, &a);
	if (rc)
		return rc;
	uint16_t s[ACTLUT_SLOTS];
	memset(s, 0, sizeof s);
	s[ACTLUT_OUT_LO] = h16(a.fn->out_lo);
	s[ACTLUT_OUT_HI] = h16(a.fn->out_hi);
	s[ACTLUT_MODE] = a.fn->mode;
	int scale;
	double x0;
	rc = lut_place(&a, s, &scale, &x0);
	if (rc)
		return rc;
	lut_knots(a.fn, s, scale, x0);
	lut_tails(a.fn, s, scale, x0);
	return lut_write(&a, s, scale, x0);
}

TOOL_COMMAND(lut_build, "lut-build", cmd_lut_build,
	     "lut-build FUNC [--domain LO:HI] [--slope A] OUT  build an activation LUT record for FUNC:\n"
	     "                             relu relu6 leakyrelu hardtanh sigmoid tanh gelu silu exp exp2\n"
	     "                             log2 sqrt rsqrt reciprocal");
