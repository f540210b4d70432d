/* Program descriptions -> raw H13 task stream + one kernel unit (docs/control-path.md). */
#include "tools/progdesc/progdesc.h"
#include "fw/actlut/actlut.h"
#include "fw/common/fp16.h"
#include "fw/common/le.h"
#include "fw/ctrl/ctrl.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/hwx_write.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"

#include <string.h>

static const struct err_desc errs[PD_E__COUNT] = {
	[PD_OK] = {"ok", "no error"},
	[PD_E_ARG] = {"desc-bad-argument", "a null pointer"},
	[PD_E_SYNTAX] = {"desc-syntax", "a line that is not \"keyword key=value ...\""},
	[PD_E_KEYWORD] = {"desc-unknown-keyword", "an unknown keyword, layer kind, key or activation"},
	[PD_E_VALUE] = {"desc-bad-value", "a number missing, malformed or out of its range"},
	[PD_E_TOO_MANY_LAYERS] = {"desc-too-many-layers", "more statements than a program holds"},
	[PD_E_NO_LAYERS] = {"desc-no-layers", "the description has nothing to run"},
	[PD_E_TWO_ACTIVATIONS] = {"desc-two-activations", "more than one activation in a program"},
	[PD_E_CIN] = {"desc-cin-differs-from-input",
		      "a layer's cin differs from the channels it reads"},
	[PD_E_PALETTE_BITS] = {"desc-palette-bits-differ",
			       "palette layers with different bit depths"},
	[PD_E_TOO_LARGE] = {"desc-program-too-large",
			    "the program does not fit the buffer or the chip's limits"},
	[PD_E_KUNIT] = {"desc-kernel-unit-invalid",
			"the kernel unit could not be written or does not validate"},
	[PD_E_CONTAINER] = {"desc-container-failed",
			    "the task stream could not be put in a .hwx container"},
	[PD_E_NO_PREV] = {"desc-no-previous-layer", "from=prev on the first statement"},
	[PD_E_SPARSE_CIN] = {"desc-sparse-cin-differs",
			     "sparse layers with different cin (the unit has one mask width)"},
	[PD_E_POOL_WINDOW] = {"desc-pool-window-larger-than-input",
			      "a pool window (with its padding) larger than the tile it reads"},
};

const struct err_desc *pd_err(enum pd_err e)
{
	static const struct err_desc unknown = {"desc-unknown-error",
						  "a value this module does not define"};
	return err_lookup(errs, PD_E__COUNT, (unsigned)e, &unknown);
}

const char *pd_err_name(enum pd_err e)
{
	return pd_err(e)->name;
}

static const char *const act_names[] = {"none", "relu", "relu6", "leakyrelu", "hardtanh"};

const char *pd_act_name(unsigned act)
{
	return act < sizeof act_names / sizeof act_names[0] ? act_names[act] : "?";
}

/* ---- parsing ---- */

struct tok {
	const char *s;
	size_t n;
};

static int tok_is(const struct tok *t, const char *w)
{
	return strlen(w) == t->n && !memcmp(t->s, w, t->n);
}

/* Decimal, 1..9 digits, within [lo, hi]. */
static int num(const char *s, size_t n, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint32_t v = 0;
	if (n == 0 || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* key=value: returns 0 with the value's range checked; -2 unknown key; -1 bad value (its range
 * kept in d for the message). */
static int kv(struct pd_desc *d, const struct tok *t, const char *key, uint32_t lo, uint32_t hi,
	      uint32_t *out)
{
	size_t kl = strlen(key);
	if (t->n <= kl || memcmp(t->s, key, kl) || t->s[kl] != '=')
		return -2;
	int r = num(t->s + kl + 1, t->n - kl - 1, lo, hi, out);
	if (r) {
		d->err_expect = NULL;
		d->err_lo = lo;
		d->err_hi = hi;
	}
	return r;
}

#define PD_MAX_DIM 4096u
#define PD_MAX_CH 4096u

/* from=input|prev: 0 with L set; -2 another key; -1 another value. */
static int from(struct pd_desc *d, const struct tok *t, struct pd_layer *L)
{
	if (t->n < 5 || memcmp(t->s, "from=", 5))
		return -2;
	struct tok v = {t->s + 5, t->n - 5};
	if (tok_is(&v, "prev"))
		L->from_prev = 1;
	else if (tok_is(&v, "input"))
		L->from_prev = 0;
	else
		return d->err_expect = "prev or input", -1;
	return 0;
}

/* One statement; on an error *bad is the index of the word at fault (-1: the statement). */
static enum pd_err parse_line(struct tok *t, unsigned nt, struct pd_desc *d, int *bad)
{
	*bad = -1;
	if (tok_is(&t[0], "input")) {
		for (unsigned i = 1; i < nt; i++) {
			int r = kv(d, &t[i], "w", 1, PD_MAX_DIM, &d->w);
			if (r == -2)
				r = kv(d, &t[i], "h", 1, PD_MAX_DIM, &d->h);
			if (r == -2)
				r = kv(d, &t[i], "c", 1, PD_MAX_CH, &d->c);
			if (r) {
				*bad = (int)i;
				return r == -2 ? PD_E_KEYWORD : PD_E_VALUE;
			}
		}
		return PD_OK;
	}
	if (tok_is(&t[0], "streams")) {
		if (nt != 2) {
			*bad = nt > 2 ? 2 : 0;
			return PD_E_SYNTAX;
		}
		if (tok_is(&t[1], "fp32"))
			d->vec32 = 1;
		else if (tok_is(&t[1], "fp16"))
			d->vec32 = 0;
		else
			return *bad = 1, d->err_expect = "fp16 or fp32", PD_E_VALUE;
		return PD_OK;
	}
	int is_act = tok_is(&t[0], "activation"), is_pool = tok_is(&t[0], "pool");
	*bad = 0;
	if (!is_act && !is_pool && !tok_is(&t[0], "layer"))
		return PD_E_KEYWORD;
	if (nt < 2)
		return PD_E_SYNTAX;
	*bad = 1;
	if (d->nlayers >= PD_MAX_LAYERS)
		return PD_E_TOO_MANY_LAYERS;
	struct pd_layer L;
	memset(&L, 0, sizeof L);
	L.density = 50;
	L.cout = 16;
	L.seed = d->nlayers + 1;
	L.cin = 0; /* 0: the input's channels */
	if (is_pool) {
		static const char *const modes[] = {NULL, "avg", "max", "min"};
		unsigned md;
		for (md = 1; md < 4; md++)
			if (tok_is(&t[1], modes[md]))
				break;
		if (md == 4)
			return PD_E_KEYWORD;
		*bad = -1;
		L.kind = PD_POOL;
		L.pool = (uint8_t)md;
		uint32_t k = 2, stride = 0, pad = 0;
		for (unsigned i = 2; i < nt; i++) {
			int r;
			if ((r = kv(d, &t[i], "k", 1, H13_FIELD_MASK(H13_CONVCFG_KW_W), &k)) != -2 ||
			    (r = kv(d, &t[i], "stride", 1, H13_FIELD_MASK(H13_CONVCFG_SX_W), &stride)) != -2 ||
			    (r = kv(d, &t[i], "pad", 0, H13_FIELD_MASK(H13_CONVCFG_PX_W), &pad)) != -2 ||
			    (r = from(d, &t[i], &L)) != -2) {
				if (r)
					return *bad = (int)i, PD_E_VALUE;
				continue;
			}
			*bad = (int)i;
			return memchr(t[i].s, '=', t[i].n) ? PD_E_KEYWORD : PD_E_SYNTAX;
		}
		if (!stride) /* default: the window's size, if the field holds it */
			stride = k <= H13_FIELD_MASK(H13_CONVCFG_SX_W) ? k : 1;
		if (pad >= k) { /* every window must hold an input element */
			for (unsigned i = 2; i < nt; i++)
				if (t[i].n > 4 && !memcmp(t[i].s, "pad=", 4))
					*bad = (int)i;
			d->err_expect = NULL;
			d->err_lo = 0;
			d->err_hi = k - 1; /* below k, the window's size */
			return PD_E_VALUE;
		}
		L.k = (uint8_t)k;
		L.stride = (uint8_t)stride;
		L.pad = (uint8_t)pad;
		d->layer[d->nlayers++] = L;
		return PD_OK;
	}
	if (is_act) {
		if (d->act != PD_ACT_NONE)
			return PD_E_TWO_ACTIVATIONS;
		unsigned a;
		for (a = 1; a < sizeof act_names / sizeof act_names[0]; a++)
			if (tok_is(&t[1], act_names[a]))
				break;
		if (a == sizeof act_names / sizeof act_names[0])
			return PD_E_KEYWORD;
		*bad = -1;
		/* only from=; a word that is no key=value at all is a syntax error */
		for (unsigned i = 2; i < nt; i++) {
			int r = from(d, &t[i], &L);
			*bad = (int)i;
			if (r == -2)
				return memchr(t[i].s, '=', t[i].n) ? PD_E_KEYWORD : PD_E_SYNTAX;
			if (r)
				return PD_E_VALUE;
		}
		*bad = -1;
		d->act = (uint8_t)a;
		L.kind = PD_ACT;
		d->layer[d->nlayers++] = L;
		return PD_OK;
	}
	if (tok_is(&t[1], "int8")) {
		L.kind = PD_INT8;
	} else if (tok_is(&t[1], "sparse")) {
		L.kind = PD_SPARSE;
	} else if (t[1].n == 8 && !memcmp(t[1].s, "palette", 7)) {
		uint32_t b;
		if (num(t[1].s + 7, 1, 1, 8, &b) || b == 5 || b == 7)
			return d->err_expect = "palette1, palette2, palette3, palette4, palette6 or "
					       "palette8 (1 to 8 bits a weight, but 5 and 7)",
			       PD_E_VALUE;
		L.kind = PD_PALETTE;
		L.bits = (uint8_t)b;
	} else {
		return PD_E_KEYWORD;
	}
	for (unsigned i = 2; i < nt; i++) {
		uint32_t v;
		int r;
		*bad = (int)i;
		if ((r = kv(d, &t[i], "cin", 1, PD_MAX_CH, &v)) != -2) {
			L.cin = v;
		} else if ((r = kv(d, &t[i], "cout", 1, PD_MAX_CH, &v)) != -2) {
			L.cout = v;
		} else if ((r = kv(d, &t[i], "seed", 0, 999999999u, &v)) != -2) {
			L.seed = v;
		} else if (L.kind == PD_SPARSE && (r = kv(d, &t[i], "density", 1, 100, &v)) != -2) {
			L.density = (uint8_t)v;
		} else if ((r = from(d, &t[i], &L)) != -2) {
			/* from=input|prev */
		} else {
			return PD_E_KEYWORD;
		}
		if (r)
			return PD_E_VALUE;
	}
	*bad = -1;
	d->layer[d->nlayers++] = L;
	return PD_OK;
}

enum pd_err pd_parse(const char *text, size_t len, struct pd_desc *d, unsigned *line)
{
	unsigned ln = 0;
	if (line)
		*line = 0;
	if (!text || !d)
		return PD_E_ARG;
	memset(d, 0, sizeof *d);
	d->w = 32;
	d->h = 2;
	d->c = 16;
	for (size_t pos = 0; pos < len;) {
		size_t e = pos;
		while (e < len && text[e] != '\n')
			e++;
		ln++;
		struct tok t[16];
		unsigned nt = 0;
		for (size_t i = pos; i < e;) {
			char ch = text[i];
			if (ch == '#')
				break;
			if (ch == ' ' || ch == '\t' || ch == '\r') {
				i++;
				continue;
			}
			if ((unsigned char)ch < 0x20 || (unsigned char)ch > 0x7e) {
				if (line)
					*line = ln;
				return PD_E_SYNTAX;
			}
			size_t s = i;
			while (i < e && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' &&
			       text[i] != '#') {
				/* a byte that is no text inside a word too (a binary file) */
				if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7e) {
					if (line)
						*line = ln;
					return PD_E_SYNTAX;
				}
				i++;
			}
			if (nt == 16) {
				if (line)
					*line = ln;
				return PD_E_SYNTAX;
			}
			t[nt].s = text + s;
			t[nt++].n = i - s;
		}
		if (nt) {
			int bad;
			unsigned before = d->nlayers;
			enum pd_err r = parse_line(t, nt, d, &bad);
			if (r) {
				if (line)
					*line = ln;
				if (bad >= 0 && (unsigned)bad < nt &&
				    (r == PD_E_KEYWORD || r == PD_E_VALUE || r == PD_E_SYNTAX)) {
					d->err_word = t[bad].s;
					d->err_word_len = t[bad].n;
				}
				return r;
			}
			if (d->nlayers > before)
				d->layer[before].line = ln;
		}
		pos = e + 1;
	}
	if (!d->nlayers)
		return PD_E_NO_LAYERS;
	unsigned pbits = 0;
	uint32_t scin = 0;
	for (unsigned i = 0; i < d->nlayers; i++) {
		struct pd_layer *L = &d->layer[i];
		if (line)
			*line = L->line; /* the statement at fault, if one is */
		if (L->from_prev && !i)
			return PD_E_NO_PREV;
		/* the tile it reads: the input's, or the previous TD's output */
		uint32_t c = L->from_prev ? d->layer[i - 1].cout : d->c;
		L->win = L->from_prev ? d->layer[i - 1].wout : d->w;
		L->hin = L->from_prev ? d->layer[i - 1].hout : d->h;
		L->wout = L->win;
		L->hout = L->hin;
		if (L->kind == PD_POOL) {
			if (L->win + 2u * L->pad < L->k || L->hin + 2u * L->pad < L->k)
				return PD_E_POOL_WINDOW;
			L->wout = (L->win + 2u * L->pad - L->k) / L->stride + 1;
			L->hout = (L->hin + 2u * L->pad - L->k) / L->stride + 1;
		}
		if (L->kind == PD_ACT || L->kind == PD_POOL) {
			L->cin = L->cout = c;
			continue;
		}
		if (!L->cin)
			L->cin = c;
		if (L->cin != c) {
			d->err_have = L->cin;
			d->err_want = c;
			return PD_E_CIN;
		}
		if (L->kind == PD_PALETTE) {
			if (pbits && pbits != L->bits)
				return PD_E_PALETTE_BITS;
			pbits = L->bits;
		}
		if (L->kind == PD_SPARSE) {
			if (scin && scin != L->cin)
				return PD_E_SPARSE_CIN;
			scin = L->cin;
		}
	}
	if (line)
		*line = 0;
	return PD_OK;
}

/* ---- building ---- */

uint32_t pd_rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}
#define rnd pd_rnd

uint16_t pd_bias(unsigned j, uint32_t o)
{
	return fp16_from_scaled((int64_t)((o + j) % 7u) - 3, -3);
}

int pd_act_record(unsigned act, uint8_t rec[86])
{
	/* linear records (slot 41 = 64, mode word 1): slot, fp16 value */
	uint16_t in_lo = 0xfc00, in_hi = 0x7c00, out_lo, out_hi, ls, rs = 0x3c00;
	switch (act) {
	case PD_ACT_RELU: out_lo = 0; out_hi = 0x7c00; ls = 0; break;
	case PD_ACT_RELU6: out_lo = 0; out_hi = 0x4600; ls = 0; break;          /* [0, 6] */
	case PD_ACT_LEAKYRELU: out_lo = 0xfc00; out_hi = 0x7c00; ls = 0x211f; break; /* 0.01 */
	case PD_ACT_HARDTANH: out_lo = 0xbc00; out_hi = 0x3c00; ls = 0x3c00; break; /* [-1, 1] */
	default: return 0;
	}
	memset(rec, 0, 86);
	le_wr16(rec + 2 * ACTLUT_IN_LO, in_lo);
	le_wr16(rec + 2 * ACTLUT_IN_HI, in_hi);
	le_wr16(rec + 2 * ACTLUT_OUT_LO, out_lo);
	le_wr16(rec + 2 * ACTLUT_OUT_HI, out_hi);
	le_wr16(rec + 2 * ACTLUT_L_SLOPE, ls);
	le_wr16(rec + 2 * ACTLUT_R_SLOPE, rs);
	le_wr16(rec + 2 * ACTLUT_SCALE, ACTLUT_SCALE_LINEAR);
	le_wr16(rec + 2 * ACTLUT_MODE, ACTLUT_MODE_PLAIN);
	return 1;
}

/* Bytes one output channel of a layer needs in the weights section. */
static uint32_t channel_bytes(const struct pd_layer *L)
{
	switch (L->kind) {
	case PD_INT8: return L->cin;
	case PD_SPARSE: return (L->cin + 7) / 8 + 2 * L->cin;
	case PD_PALETTE: return (L->cin * L->bits + 7) / 8;
	default: return 0;
	}
}

/* One output channel's weights, zero padded: p its bytes (int8 values, palette indices); for a
 * sparse layer p its mask and v its packed values (the OCG's mask and weights sub-buffers). */
static void channel_weights(const struct pd_layer *L, uint32_t *seed, uint8_t *p, uint8_t *v)
{
	if (L->kind == PD_INT8) {
		for (uint32_t i = 0; i < L->cin; i++)
			p[i] = (uint8_t)rnd(seed);
	} else if (L->kind == PD_PALETTE) {
		/* indices packed LSB-first (fw/codec palette layout) */
		for (uint32_t i = 0; i < L->cin; i++) {
			uint32_t idx = rnd(seed) & ((1u << L->bits) - 1u);
			for (unsigned b = 0; b < L->bits; b++)
				if (idx >> b & 1u) {
					uint32_t bit = i * L->bits + b;
					p[bit / 8] |= (uint8_t)(1u << (bit % 8));
				}
		}
	} else if (L->kind == PD_SPARSE) {
		/* mask (bit i of byte i/8: weight i kept), and the kept weights as fp16 */
		uint32_t nv = 0;
		for (uint32_t i = 0; i < L->cin; i++)
			if (rnd(seed) % 100u < L->density) {
				p[i / 8] |= (uint8_t)(1u << (i % 8));
				int32_t x = (int32_t)(rnd(seed) % 14u) + 1;
				if (rnd(seed) & 1u)
					x = -x;
				le_wr16(v + 2 * nv++, fp16_from_scaled(x, -4));
			}
	}
}

static uint32_t roundup(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* NE.KernelCfg for a layer's weights: int8 (which H13 folds), a palette of fp16 entries, sparse
 * fp16, or fp16 (an activation layer has no weights). */
static uint32_t kernel_cfg(const struct pd_layer *L)
{
	switch (L->kind) {
	case PD_INT8:
		return H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_INT8);
	case PD_PALETTE:
		return H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16) |
		       H13_PUT(H13_KERNELCFG_PALETTIZEDEN, 1) |
		       H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, L->bits);
	case PD_SPARSE:
		return H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16) |
		       H13_PUT(H13_KERNELCFG_SPARSEFMT, 1);
	default:
		return H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16);
	}
}

/* Layer i's TD header: its number, end-of-network on the last, the next TD's place otherwise;
 * the input (the program's or the previous layer's output), output and weight BARs. */
static struct td_hdr td_header(const struct pd_desc *d, unsigned i)
{
	const struct pd_layer *L = &d->layer[i];
	unsigned last = i + 1 == d->nlayers;
	struct td_hdr h;
	memset(&h, 0, sizeof h);
	h.tid = i;
	h.eon = last;
	if (!last) {
		h.next_size = PD_TD_BYTES / 4 - 1;
		h.next_ptr = (i + 1) * PD_TD_STRIDE;
	}
	h.bar_en = 1u << H13_BAR_RBASE0 | 1u << H13_BAR_WBASE | 1u << H13_BAR_KBASE0;
	h.bar_idx[H13_BAR_RBASE0] =
		(uint8_t)(L->from_prev ? PD_FIRST_OUTPUT_BAR + i - 1 : PD_INPUT_BAR);
	h.bar_idx[H13_BAR_WBASE] = (uint8_t)(PD_FIRST_OUTPUT_BAR + i);
	h.bar_idx[H13_BAR_KBASE0] = PD_WEIGHTS_BAR;
	return h;
}

/* The register blocks every TD writes whole, in this order (the loader skips the zero padding
 * words after them). */
static void put_kernel_dma(struct td_writer *tw, uint32_t coeff_base, uint32_t coeff_size)
{
	/* coefficient channel 0 = the layer's weights (byte values in 64-byte units) */
	struct td_block b;
	tdb_begin(&b, H13_BLK_KDMA, H13_BLK_KDMA_WORDS);
	if (coeff_size) {
		tdb_set(&b, H13_COEFF_DMACONFIG(0),
			H13_PUT(H13_DMA_EN, 1) | H13_PUT(H13_DMA_CACHEHINT, 2));
		tdb_set(&b, H13_COEFF_BASEADDR(0), coeff_base);
		tdb_set(&b, H13_COEFF_BFRSIZE(0), coeff_size);
	}
	tdw_put(tw, &b);
}

static void put_common(struct td_writer *tw, const struct pd_layer *L)
{
	unsigned k = L->kind == PD_POOL ? L->k : 1, st = L->kind == PD_POOL ? L->stride : 1;
	unsigned pad = L->kind == PD_POOL ? L->pad : 0;
	struct td_block b;
	tdb_begin(&b, H13_BLK_COMMON, H13_BLK_COMMON_WORDS);
	td_fixed_block(b.base, b.v, b.count); /* the depths and +0x20, as every real TD */
	tdb_set(&b, H13_COMMON_INDIM, H13_PUT(H13_INDIM_WIN, L->win) | H13_PUT(H13_INDIM_HIN, L->hin));
	tdb_set(&b, H13_COMMON_CHCFG,
		H13_PUT(H13_CHCFG_INFMT, H13_FMT_FP16) | H13_PUT(H13_CHCFG_OUTFMT, H13_FMT_FP16));
	tdb_set(&b, H13_COMMON_CIN, H13_PUT(H13_CIN, L->cin));
	tdb_set(&b, H13_COMMON_COUT, H13_PUT(H13_COUT, L->cout));
	tdb_set(&b, H13_COMMON_OUTDIM,
		H13_PUT(H13_OUTDIM_WOUT, L->wout) | H13_PUT(H13_OUTDIM_HOUT, L->hout));
	/* the window: 1x1 but a pool */
	tdb_set(&b, H13_COMMON_CONVCFG,
		td_fixed_bits(H13_COMMON_CONVCFG) | H13_PUT(H13_CONVCFG_KW, k) | H13_PUT(H13_CONVCFG_KH, k) |
			H13_PUT(H13_CONVCFG_SX, st) | H13_PUT(H13_CONVCFG_SY, st) | H13_PUT(H13_CONVCFG_PX, pad) |
			H13_PUT(H13_CONVCFG_PY, pad));
	tdb_set(&b, H13_COMMON_GROUPCONVCFG, H13_PUT(H13_GROUPCONV_NUMGROUPS, 1));
	tdb_set(&b, H13_COMMON_TILECFG, H13_PUT(H13_TILECFG_TILEHEIGHT, L->hout));
	/* a pool puts the PE in the path with one operand (TaskType 2, as Apple's one-operand PE
	 * TDs); every other TD leaves it out (0) */
	tdb_set(&b, H13_COMMON_CFG, L->kind == PD_POOL ? H13_PUT(H13_CFG_TASKTYPE, H13_TASK_PE_ONE) : 0u);
	tdw_put(tw, &b);
}

/* L2: neither tensor stays in L2 (Source/ResultType 0), with the DMA fields every real program
 * writes (fw/td's td_fixed) */
static void put_l2(struct td_writer *tw)
{
	struct td_block b;
	tdb_begin(&b, H13_BLK_L2, H13_BLK_L2_WORDS);
	tdb_set(&b, H13_L2_SOURCECFG, TD_L2_SOURCECFG_DMA);
	tdb_set(&b, H13_L2_RESULTCFG, TD_L2_RESULTCFG_DMA);
	tdw_put(tw, &b);
}

#define PD_FP32_ONE 0x3f800000u /* FinalScale 1.0f, as every real PE program writes */

/* Planar, in every TD (registers keep their values from one TD to the next, so a TD after a pool
 * must clear them, as the fixtures' NE TDs write zeros there). A pool writes them as the
 * fixtures' PE programs do (PreScale and BiasScale's scale 1.0, FinalScale 1.0f), with
 * PoolMode; its NE is not in the path (MACCfg 0). */
static void put_planar(struct td_writer *tw, const struct pd_layer *L)
{
	struct td_block b;
	tdb_begin(&b, H13_BLK_PLANAR, H13_BLK_PLANAR_WORDS);
	if (L->kind == PD_POOL) {
		tdb_set(&b, H13_PLANAR_CFG, H13_PUT(H13_PECFG_POOLMODE, L->pool));
		tdb_set(&b, H13_PLANAR_BIASSCALE, H13_PUT(H13_BIASSCALE_SCALE, FP16_ONE));
		tdb_set(&b, H13_PLANAR_PRESCALE, H13_PUT(H13_PRESCALE, FP16_ONE));
		tdb_set(&b, H13_PLANAR_FINALSCALE, PD_FP32_ONE);
	}
	tdw_put(tw, &b);
}

/* NE: KernelCfg names the layer's weight form. The activation TD is an elementwise NE pass
 * (OpMode 4, KernelMode 1, as every real NE kernel) with post-scale 1.0 and NonlinearMode 2 (the
 * activation LUT); a weight TD is a 1x1 convolution over its OCG (docs/engine-model.md, "Kernels
 * from the kernel unit"), as conv.hwx programs it (OpMode 0, BinaryPoint 0x1c). */
static void put_ne(struct td_writer *tw, const struct pd_layer *L)
{
	struct td_block b;
	tdb_begin(&b, H13_BLK_NE, H13_BLK_NE_WORDS);
	if (L->kind != PD_POOL) {
		tdb_set(&b, H13_NE_KERNELCFG, kernel_cfg(L));
		if (L->kind == PD_ACT)
			tdb_set(&b, H13_NE_MACCFG,
				H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_ELEMWISE) |
					H13_PUT(H13_MACCFG_KERNELMODE, 1) |
					H13_PUT(H13_MACCFG_NONLINEARMODE, H13_NONLINEAR_LUT) |
					H13_PUT(H13_MACCFG_BIT20, 1));
		else
			tdb_set(&b, H13_NE_MACCFG,
				H13_PUT(H13_MACCFG_OPMODE, H13_MAC_OP_CONV) |
					H13_PUT(H13_MACCFG_BINARYPOINT, 0x1cu) | H13_PUT(H13_MACCFG_BIT20, 1));
		tdb_set(&b, H13_NE_POSTSCALE, H13_PUT(H13_POSTSCALE, FP16_ONE));
	}
	tdw_put(tw, &b);
}

/* The tile source and destination: enabled, at offset 0 of their BARs, 64-byte rows (byte
 * values in 64-byte units). */
static void put_tiles(struct td_writer *tw, const struct pd_layer *L)
{
	uint32_t in_line = roundup(L->win * 2, 64), out_line = roundup(L->wout * 2, 64);
	struct td_block b;
	tdb_begin(&b, H13_BLK_TILESRC, H13_BLK_TILESRC_WORDS);
	tdb_set(&b, H13_SRC_DMACONFIG, H13_PUT(H13_DMA_EN, 1));
	tdb_set(&b, H13_SRC_ROWSTRIDE, in_line);
	tdb_set(&b, H13_SRC_PLANESTRIDE, in_line * L->hin);
	tdb_set(&b, H13_SRC_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_SRC_FMT));
	tdw_put(tw, &b);
	tdb_begin(&b, H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS);
	tdb_set(&b, H13_DST_DMACONFIG, H13_PUT(H13_DMA_EN, 1));
	tdb_set(&b, H13_DST_ROWSTRIDE, out_line);
	tdb_set(&b, H13_DST_PLANESTRIDE, out_line * L->hout);
	tdb_set(&b, H13_DST_FMT, TD_TILE_FMT_FP16 | td_fixed_bits(H13_DST_FMT));
	tdw_put(tw, &b);
}

/* The TD of layer i (PD_TD_BYTES at td) through fw/td's writer; PD_E_TOO_LARGE if it does not
 * fit PD_TD_BYTES. */
static enum pd_err write_td(const struct pd_desc *d, unsigned i, uint32_t coeff_base,
			    uint32_t coeff_size, uint8_t *td)
{
	const struct pd_layer *L = &d->layer[i];
	uint32_t w[PD_TD_BYTES / 4];
	struct td_writer tw;
	struct td_hdr h = td_header(d, i);
	tdw_begin(&tw, w, PD_TD_BYTES / 4, &h);
	put_kernel_dma(&tw, coeff_base, coeff_size);
	put_common(&tw, L);
	put_l2(&tw);
	put_planar(&tw, L);
	put_ne(&tw, L);
	put_tiles(&tw, L);
	if (!tdw_end(&tw))
		return PD_E_TOO_LARGE;
	for (unsigned k = 0; k < PD_TD_BYTES / 4; k++)
		le_wr32(td + 4 * k, w[k]);
	return PD_OK;
}

#define PD_MAX_SECTION 0x10000u

/* Value i of a per-channel section: the fp16 h, or with fp32 the same value widened (exact). */
static void vec_put(uint8_t *sec, uint32_t i, uint16_t h, int fp32)
{
	if (!fp32) {
		le_wr16(sec + 2 * i, h);
		return;
	}
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, w;
	if (e == 0 && m == 0) {
		w = sign;
	} else if (e == 0) { /* subnormal: normalise */
		int32_t ee = -14;
		while (!(m & 0x400u)) {
			m <<= 1;
			ee--;
		}
		w = sign | (uint32_t)(ee + 127) << 23 | (m & 0x3ffu) << 13;
	} else if (e == 31) {
		w = sign | 0x7f800000u | m << 13;
	} else {
		w = sign | (e + 112u) << 23 | m << 13;
	}
	le_wr32(sec + 4 * i, w);
}

/* The weights' layout: one OCG per weighted layer, each channel bpc bytes. */
struct pd_plan {
	uint32_t bpc, nocg, total_ch, int8_ch, pbits, nluts, mask;
	uint64_t wbytes;
	uint32_t ocg[PD_MAX_LAYERS], blk_off[PD_MAX_LAYERS], blk_layer[PD_MAX_LAYERS];
};

/* The description's sizes: every tile product checked against 32 bits. */
static enum pd_err check_sizes(const struct pd_desc *d)
{
	if (!d->nlayers)
		return PD_E_NO_LAYERS;
	if (d->nlayers > PD_MAX_LAYERS)
		return PD_E_TOO_MANY_LAYERS;
	uint64_t tile = (uint64_t)roundup(d->w * 2, 64) * d->h * d->c;
	for (unsigned i = 0; i < d->nlayers; i++) {
		const struct pd_layer *L = &d->layer[i];
		if ((uint64_t)roundup(L->wout * 2, 64) * L->hout * L->cout > 0x10000000u ||
		    tile > 0x10000000u || !L->wout || !L->hout)
			return PD_E_TOO_LARGE;
	}
	return PD_OK;
}

/* One weight slot per output channel, as wide as the widest layer needs, in 64-byte multiples:
 * every OCG starts on a 64-byte unit of the (64-byte aligned) weights section, so a TD's
 * coefficient channel 0 is exactly its OCG. */
static enum pd_err plan_weights(const struct pd_desc *d, struct pd_plan *pl)
{
	memset(pl, 0, sizeof *pl);
	for (unsigned i = 0; i < d->nlayers; i++) {
		uint32_t cb = channel_bytes(&d->layer[i]);
		if (cb > pl->bpc)
			pl->bpc = cb;
	}
	pl->bpc = roundup(pl->bpc ? pl->bpc : 1, 64);
	for (unsigned i = 0; i < d->nlayers; i++) {
		const struct pd_layer *L = &d->layer[i];
		if (L->kind == PD_ACT || L->kind == PD_POOL)
			continue;
		pl->blk_off[pl->nocg] = (uint32_t)pl->wbytes;
		pl->blk_layer[pl->nocg] = i;
		pl->ocg[pl->nocg++] = L->cout;
		pl->wbytes += (uint64_t)L->cout * pl->bpc;
		pl->total_ch += L->cout;
		if (pl->wbytes > PD_MAX_SECTION || pl->total_ch > PD_MAX_SECTION / 2)
			return PD_E_TOO_LARGE;
		if (L->kind == PD_INT8)
			pl->int8_ch += L->cout;
		if (L->kind == PD_PALETTE) {
			pl->pbits = L->bits;
			pl->nluts = 1; /* one codebook, shared (H13's version-5 descriptor has no more) */
		}
		if (L->kind == PD_SPARSE)
			pl->mask = (L->cin + 7) / 8;
	}
	if (pl->nluts << pl->pbits > PD_MAX_SECTION / 2)
		return PD_E_TOO_LARGE;
	return PD_OK;
}

/* The kernel unit's sections. */
struct pd_sections {
	uint8_t weights[PD_MAX_SECTION], palette[PD_MAX_SECTION], scale[2 * PD_MAX_SECTION],
		bias[2 * PD_MAX_SECTION];
	uint8_t act[ACTLUT_STRIDE];
};

static void fill_sections(const struct pd_desc *d, const struct pd_plan *pl, struct pd_sections *x)
{
	memset(x->weights, 0, (size_t)pl->wbytes);
	for (unsigned k = 0, c0 = 0; k < pl->nocg; k++) {
		const struct pd_layer *L = &d->layer[pl->blk_layer[k]];
		uint32_t seed = L->seed * 2654435761u + 1u;
		uint8_t *blk = x->weights + pl->blk_off[k];
		uint32_t bpc = pl->bpc, mask = pl->mask;
		/* a sparse OCG: every channel's mask (mask bytes each), then every channel's values
		 * (bpc - mask bytes each), as the records' mask and weights slots address them */
		for (uint32_t c = 0; c < L->cout; c++) {
			if (L->kind == PD_SPARSE)
				channel_weights(L, &seed, blk + (size_t)c * mask,
						blk + (size_t)L->cout * mask + (size_t)c * (bpc - mask));
			else
				channel_weights(L, &seed, blk + (size_t)c * bpc, NULL);
			vec_put(x->bias, c0 + c, pd_bias(pl->blk_layer[k], c), d->vec32);
		}
		c0 += L->cout;
	}
	/* the palette codebook: entry j = (j - 2^(bits-1)) / 8 */
	for (uint32_t l = 0; l < pl->nluts; l++)
		for (uint32_t j = 0; j < (1u << pl->pbits); j++)
			le_wr16(x->palette + 2 * ((l << pl->pbits) + j),
				fp16_from_scaled((int64_t)j - (int64_t)(1u << (pl->pbits - 1)), -3));
	/* per-channel post-scale, one per channel of every weighted layer in record order (as the
	 * records' scale slots index it): 1/64 for an int8 layer's channels, 1 for the others */
	for (uint32_t k = 0, c = 0; k < pl->nocg; k++)
		for (uint32_t j = 0; j < pl->ocg[k]; j++, c++)
			vec_put(x->scale, c,
				d->layer[pl->blk_layer[k]].kind == PD_INT8 ? fp16_from_scaled(1, -6)
									   : fp16_from_scaled(1, 0),
				d->vec32);
	memset(x->act, 0, sizeof x->act);
	if (d->act != PD_ACT_NONE)
		pd_act_record(d->act, x->act);
}

/* The kernel unit's description from the plan and the sections. */
static void describe_unit(const struct pd_desc *d, const struct pd_plan *pl,
			  const struct pd_sections *x, struct ku_build *b)
{
	int have_act = d->act != PD_ACT_NONE;
	unsigned vbytes = d->vec32 ? 4u : 2u;
	memset(b, 0, sizeof *b);
	b->version = ctrl_h13_ku_limits.version;
	b->format = 1;
	b->flags = pl->mask ? KU_FLAG_SPARSE : 0;
	b->ncores = 1;
	b->bytes_per_channel = pl->bpc;
	b->actlut = have_act ? x->act : NULL;
	b->actlut_len = have_act ? ACTLUT_STRIDE : 0;
	b->palette = pl->nluts ? x->palette : NULL;
	b->palette_len = pl->nluts ? (pl->nluts << pl->pbits) * 2 : 0;
	b->palette_format = 5;
	b->palette_bits = pl->pbits;
	b->palette_luts = pl->nluts;
	b->scale = pl->int8_ch ? x->scale : NULL;
	b->scale_len = pl->int8_ch ? pl->total_ch * vbytes : 0;
	b->bias = pl->total_ch ? x->bias : NULL;
	b->bias_len = pl->total_ch * vbytes;
	b->vec_type = d->vec32 ? 4u : 5u;
	b->weights = pl->wbytes ? x->weights : NULL;
	b->weights_len = (uint32_t)pl->wbytes;
	b->mask_bytes_per_channel = pl->mask;
	b->weights_align = 64;
	b->ocg_channels = pl->ocg;
	b->nocg = pl->nocg;
	if (!pl->nocg) {
		/* an activation alone: one empty-weight record is not allowed; a 1-channel block */
		static const uint32_t one = 1;
		static const uint8_t zero[64];
		b->ocg_channels = &one;
		b->nocg = 1;
		b->weights = zero;
		b->weights_len = pl->bpc;
	}
}

/* Every layer's TD; a weighted layer's coefficient channel 0 is exactly its OCG (64-byte
 * aligned, a 64-byte multiple) in the weights section at wsec. */
static enum pd_err write_tds(const struct pd_desc *d, const struct pd_plan *pl, uint32_t wsec,
			     uint8_t *out)
{
	for (unsigned i = 0, k = 0; i < d->nlayers; i++) {
		uint32_t base = 0, size = 0;
		if (d->layer[i].kind != PD_ACT && d->layer[i].kind != PD_POOL) {
			base = wsec + pl->blk_off[k];
			size = d->layer[i].cout * pl->bpc;
			k++;
		}
		enum pd_err e = write_td(d, i, base, size, out + (size_t)i * PD_TD_STRIDE);
		if (e != PD_OK)
			return e;
	}
	return PD_OK;
}

enum pd_err pd_build(const struct pd_desc *d, uint8_t *out, size_t cap, size_t *len)
{
	static struct pd_sections x;
	struct pd_plan pl;
	struct ku_build b;
	struct ku_unit u;
	if (!d || !out || !len)
		return PD_E_ARG;
	enum pd_err e = check_sizes(d);
	if (e == PD_OK)
		e = plan_weights(d, &pl);
	if (e != PD_OK)
		return e;
	fill_sections(d, &pl, &x);
	/* layout: TDs at a 0x300 stride, weights at the 16-byte boundary after the last TD */
	uint64_t woff = (uint64_t)(d->nlayers - 1) * PD_TD_STRIDE + roundup(PD_TD_BYTES, 16);
	if (woff > cap)
		return PD_E_TOO_LARGE;
	describe_unit(d, &pl, &x, &b);
	size_t ulen = ku_write(&b, out + woff, cap - (size_t)woff);
	if (!ulen)
		return PD_E_TOO_LARGE; /* ku_write refuses only what does not fit */
	if (ku_parse(out + woff, ulen, &ctrl_h13_ku_limits, &u) != KU_OK)
		return PD_E_KUNIT;
	memset(out, 0, (size_t)woff);
	e = write_tds(d, &pl, u.sec[KU_SEC_WEIGHTS].offset, out);
	if (e != PD_OK)
		return e;
	/* the weights end on a 64-byte unit, so every channel's rounded range stays inside */
	size_t wlen = roundup((uint32_t)ulen, 64);
	if (wlen > cap - (size_t)woff)
		return PD_E_TOO_LARGE;
	memset(out + woff + ulen, 0, wlen - ulen);
	*len = (size_t)woff + wlen;
	return PD_OK;
}

enum pd_err pd_build_hwx(const struct pd_desc *d, uint8_t *out, size_t cap, size_t *len)
{
	static struct ldr_program p;
	struct subq_grant g[LDR_NBARS];
	static char wname[HWXW_MAX_WINDOWS][16];
	struct hwxw_window win[HWXW_MAX_WINDOWS];
	size_t rlen;
	if (!len)
		return PD_E_ARG;
	enum pd_err e = pd_build(d, out, cap, &rlen);
	if (e != PD_OK)
		return e;
	if (ldr_load(out, rlen, LDR_F_RAW, &p) != LDR_OK)
		return PD_E_CONTAINER;
	unsigned n = 0;
	if (ctrl_default_grants(&p, g, LDR_NBARS, &n, NULL) != CTRL_OK)
		return PD_E_CONTAINER;
	unsigned nwin = 0, nout = 0;
	for (unsigned i = 0; i < n; i++) {
		/* the weights are __const; an intermediate (a TD's output the next reads) has a BAR
		 * table address but no window: the firmware allocates it, as for the newer
		 * compiler's files */
		if (g[i].bar == PD_WEIGHTS_BAR)
			continue;
		if (nwin >= HWXW_MAX_WINDOWS || (g[i].bar != PD_INPUT_BAR && g[i].bar < PD_FIRST_OUTPUT_BAR))
			return PD_E_CONTAINER;
		if (g[i].access == POL_RW) {
			win[nwin++] = (struct hwxw_window){NULL, g[i].bar, HWXW_BAR_ONLY, g[i].size};
			continue;
		}
		int in = g[i].bar == PD_INPUT_BAR;
		if (in)
			memcpy(wname[nwin], "input", 6);
		else {
			memcpy(wname[nwin], "output_", 7);
			wname[nwin][7] = (char)('0' + nout % 10);
			wname[nwin][8] = 0;
			nout++;
		}
		win[nwin] = (struct hwxw_window){wname[nwin], g[i].bar, in ? LDR_WIN_INPUT : LDR_WIN_OUTPUT,
						 g[i].size};
		nwin++;
	}
	struct hwxw_spec s = {
		.cpusubtype = PD_HWX_SUBTYPE,
		.text = out,
		.text_len = p.weights_off,
		.first_td_bytes = PD_TD_BYTES,
		.ntds = p.ntds,
		.text_bar = 0,
		.weights = out + p.weights_off,
		.weights_len = p.weights_len,
		.weights_bar = PD_WEIGHTS_BAR,
		.win = win,
		.nwin = nwin,
		.note = "anefw mkprog\n\t-t h13\n",
	};
	enum hwxw_err we = hwxw_write(&s, out, cap, len);
	return we == HWXW_OK ? PD_OK : we == HWXW_E_NO_ROOM ? PD_E_TOO_LARGE : PD_E_CONTAINER;
}
