/*
 * The model's datapath (compute.h, docs/engine-model.md): per TD, in chain order,
 *   tile DMA in (RBase0, RBase1) or the L2-resident source
 *   -> NE (elementwise: post-scale; convolution: Kw x Kh over Cin per group) -> round to fp16
 *   -> NonlinearMode (pass, ReLU, the activation LUT through fw/actlut)
 *   -> PE (pre-scale, add/mul/max/min/square with the second source, |.|, bias then scale,
 *          ReLU, final scale) -> round to fp16 at the output port
 *   -> tile DMA out (WBase) and/or the L2-resident result.
 * Every byte read or written in memory lies inside a range td_ranges() derived (the same
 * registers give the addresses here); each row access is checked against its range again.
 */
#include "engine/model/compute.h"
#include "engine/model/neon.h"
#include "fw/codec/codec.h"
#include "fw/common/fp16.h"
#include "fw/common/le.h"
#include "fw/td/td.h"
#include "fw/regmap/regmap.h"
#include "hal/hal.h"

#include <malloc.h> /* memalign (newlib has no posix_memalign) */
#include <stdlib.h>
#include <string.h>

/* hal_parallel with every task in the model's floating-point mode (at the end of this file) */
static void model_parallel(unsigned n, void (*fn)(void *arg, unsigned i), void *arg);

/* ---- fp16 ---- */

/* Bit casts through a union: with -ffreestanding memcpy is a call, and with -mstrict-align
 * __builtin_memcpy may copy byte by byte. */
static inline uint32_t f2u(float f)
{
	union { float f; uint32_t u; } x = {.f = f};
	return x.u;
}

static inline float u2f(uint32_t u)
{
	union { uint32_t u; float f; } x = {.u = u};
	return x.f;
}

static float h2f_table[65536];
static int h2f_ready;

static float h2f_slow(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, mant = h & 0x3ffu, b;
	if (e == 0) {
		float v = (float)mant * (1.0f / 16777216.0f); /* exact: mant x 2^-24 */
		return sign ? -v : v;
	}
	if (e == 31)
		b = sign | 0x7f800000u | (mant << 13);
	else
		b = sign | ((e + 112u) << 23) | (mant << 13);
	return u2f(b);
}

static void h2f_init(void)
{
	if (h2f_ready)
		return;
	for (uint32_t i = 0; i < 65536u; i++)
		h2f_table[i] = h2f_slow((uint16_t)i);
	h2f_ready = 1;
}

float anem_h2f(uint16_t h)
{
	h2f_init();
	return h2f_table[h];
}

uint16_t anem_f2h_soft(float f)
{
	uint32_t x = f2u(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u)
		return 0; /* NaN: +0 (the engine never produces a NaN; guide 03) */
	if (ax >= 0x477ff000u)
		return sign | 0x7c00u; /* 65520 and above round to infinity */
	if (ax >= 0x38800000u) /* normal: round at bit 13, ties to even; a carry bumps the exponent */
		return sign | (uint16_t)((ax - 0x38000000u + 0xfffu + ((ax >> 13) & 1u)) >> 13);
	if (ax < 0x33000000u)
		return sign; /* below 2^-25 (2^-25 itself ties to even: 0) */
	uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, sh = 126u - e;
	uint32_t q = m >> sh, rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
	if (rem > half || (rem == half && (q & 1u)))
		q++;
	return sign | (uint16_t)q;
}

/*
 * The conversion the datapath uses at every fp16 rounding point: on aarch64 the processor's own
 * (FCVT), with every NaN made +0 (guide 03, "Edge behavior": the engine flushes the indeterminate
 * forms that give a NaN under IEEE, inf - inf and 0 x inf, to positive zero), when FPCR asks
 * for IEEE half precision, round to nearest and no flushing to zero (checked at every
 * anem_compute: fcvt_ok); otherwise anem_f2h_soft. The unit test model_f2h pins the two equal.
 */
static int fcvt_ok;

static void fcvt_check(void)
{
#if defined(__aarch64__)
	uint64_t fpcr;
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	/* AHP (26), FZ (24), RMode (23:22), FZ16 (19) */
	fcvt_ok = (fpcr & ((1u << 26) | (1u << 24) | (3u << 22) | (1u << 19))) == 0;
#endif
}

static inline uint16_t f2h(float f)
{
#if defined(__aarch64__)
	if (fcvt_ok) {
		if (f != f)
			return 0;
		union { __fp16 h; uint16_t u; } x = {.h = (__fp16)f};
		return x.u;
	}
#endif
	return anem_f2h_soft(f);
}

uint16_t anem_f2h(float f)
{
	fcvt_check();
	return f2h(f);
}

int anem_f2h_is_fcvt(void)
{
	fcvt_check();
	return fcvt_ok;
}

int anem_simd = 2;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <cpuid.h>
/* The CPU's features, read once with CPUID (clang's __builtin_cpu_supports lacks "f16c"):
 * bit 0 AVX and F16C, bit 1 AVX2 and FMA as well, bit 2 AVX-512F as well; each needs the OS
 * to save the registers (OSXSAVE, and XCR0's SSE and AVX state bits; for AVX-512 also its
 * opmask, ZMM_Hi256 and Hi16_ZMM bits). */
static unsigned cpu_features(void)
{
	static int v = -1;
	if (v < 0) {
		unsigned a, b, c, d, f = 0;
		if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27)) && (c & (1u << 28)) &&
		    (c & (1u << 29))) {
			unsigned lo, hi;
			__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
			if ((lo & 6u) == 6u) {
				f = 1;
				if ((c & (1u << 12)) && __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
				    (b & (1u << 5))) {
					f |= 2;
					if ((b & (1u << 16)) && (lo & 0xe0u) == 0xe0u)
						f |= 4;
				}
			}
		}
		v = (int)f;
	}
	return (unsigned)v;
}

/* F16C and AVX (the host's fp16 conversions, 8 at a time). */
static int cpu_f16c(void)
{
	return (cpu_features() & 1u) && anem_simd;
}
#endif

/* ---- geometry ---- */

#define REG(a) (m->regs[(a) / 4])
_Static_assert(ANEM_ROW_MAX == TD_ROW_MAX, "the model's row buffers hold fw/td's rows");
/* floats in a cache line (64 bytes on the Cortex-A53 and on x86-64): buffers several threads
 * write start on one, and each thread's part of them fills whole ones */
#define ANEM_LINE_FLOATS 16u

static uint32_t kept_get(const void *ctx, uint32_t a); /* the register window as fw/td's td_regs */
static int td_refusal_fault(struct anem *m, const struct td_refusal *r);

/* The destination's format and sign are checked where its DMA is enabled (En) or writes through
 * WBase with En clear (fw/td td_dst_writes: expt2) */
static int dst_dma_on(const struct anem *m)
{
	return td_dst_dma_on(REG(H13_DST_DMACONFIG), m->cur_bar_en);
}

#define SIGN_AMB_TEXT                                                                              \
	"a byte 0x80..0xff of a one-byte tensor whose tile DMA format (TileDMASrc/TileDMADst.Fmt: "   \
	"UINT8 or INT8) and Common.ChCfg format disagree on its sign; which the engine applies is "   \
	"not known (bytes 0..0x7f, a bool's 0 and 1, read the same either way)"

struct tile {
	const struct mrange *r; /* NULL: not present */
	unsigned fmt, elem;
	/* 1: a one-byte tensor whose tile DMA format (UINT8 or INT8) and Common.ChCfg format disagree
	 * on signedness (fw/td's td_tile_sign_disagrees); its bytes 0x80..0xff are refused
	 * (read_row_k, write_row) */
	unsigned amb;
	uint64_t row, plane, depth, group;
	unsigned w, h, c, g, d; /* d: the depth (fw/td td_depth; above 1 on a reduction only) */
	int alias;              /* the destination: a tile source in the same place (tiles_apart) */
};

/* kind: TD_R_SRC0, TD_R_SRC1 or TD_R_DST; the geometry is fw/td's (td_tile_geom_of), which inspect's
 * tile checks read too */
static void tile_geom(struct anem *m, struct tile *t, const struct mrange *r, unsigned kind)
{
	const struct td_regs regs = {kept_get, m};
	struct td_tile_geom g;
	td_tile_geom_of(&regs, kind, &g);
	t->r = r;
	t->fmt = g.fmt;
	t->elem = g.elem;
	t->amb = 0; /* the caller sets it from the side's DMA format (td_tile_sign_disagrees) */
	t->w = g.w;
	t->h = g.h;
	t->c = g.c;
	t->g = g.g;
	t->row = g.row;
	t->plane = g.plane;
	t->depth = g.depth;
	t->group = g.group;
	t->d = g.d;
}

/* A tile's geometry as fw/td states it (its range aside) */
static struct td_tile_geom geom_of(const struct tile *t)
{
	return (struct td_tile_geom){t->fmt, t->elem, t->w, t->h, t->c, t->g, t->d,
				     t->row, t->plane, t->depth, t->group};
}

/* The tiles a TD has, as fw/td's refusals take them (td_tiles_there): the ranges held */
static unsigned tiles_of(const struct tile *in0, const struct tile *in1, const struct tile *out)
{
	return (in0 && in0->r ? 1u << H13_BAR_RBASE0 : 0u) | (in1 && in1->r ? 1u << H13_BAR_RBASE1 : 0u) |
	       (out && out->r ? 1u << H13_BAR_WBASE : 0u);
}

/* Depth d of a tile (d below t->d) as a tile of its own: its range starts d DepthStrides on
 * (*tmp holds that range); a tile whose range that leaves behind has no rows (ENG_E_RANGE on a
 * read: td_ranges covers every depth, so it cannot happen). */
static struct tile tile_at_depth(const struct tile *t, unsigned d, struct mrange *tmp)
{
	struct tile x = *t;
	x.d = 1;
	if (!t->r || !d)
		return x;
	uint64_t off = (uint64_t)d * t->depth;
	*tmp = *t->r;
	if (off > tmp->len) {
		tmp->len = 0;
	} else {
		tmp->cpu += off;
		tmp->len -= off;
	}
	x.r = tmp;
	return x;
}

/* Byte offset of row (g, c, h) of a tile inside its range, or -1 when the row's bytes are not
 * inside the range (cannot happen for a range td_ranges derived from the same registers). */
static int64_t row_off(const struct tile *t, unsigned g, unsigned c, unsigned h, uint64_t bytes)
{
	uint64_t off = (uint64_t)g * t->group + (uint64_t)c * t->plane + (uint64_t)h * t->row;
	if (!t->r || off > t->r->len || bytes > t->r->len - off)
		return -1;
	return (int64_t)off;
}

/* The input port's NaN coercion (guide 03, "Edge behavior"): every NaN, whatever its sign and
 * payload, enters the datapath as +inf. One OR-reduction over the row finds whether any value
 * is infinite or NaN at all, so a finite row costs one pass. */
static void nan_to_inf(uint16_t *v, unsigned n)
{
	unsigned i = 0, any = 0;
#if defined(__x86_64__)
	const int vec = 1; /* x86 loads 16 bytes at any address */
	typedef uint16_t u16x8 __attribute__((vector_size(16), aligned(2)));
#else
	const int vec = ((uintptr_t)v & 15u) == 0;
	typedef uint16_t u16x8 __attribute__((vector_size(16)));
#endif
	if (vec) { /* eight at a time (NEON / SSE2) */
		typedef int16_t i16x8 __attribute__((vector_size(16)));
		const u16x8 ex = {0x7c00u, 0x7c00u, 0x7c00u, 0x7c00u, 0x7c00u, 0x7c00u, 0x7c00u, 0x7c00u};
		i16x8 acc = {0};
		for (; i + 8 <= n; i += 8)
			acc |= (*(const u16x8 *)(const void *)(v + i) & ex) == ex;
		union { i16x8 v; uint64_t w[2]; } r = {.v = acc};
		any = (r.w[0] | r.w[1]) != 0;
	}
	for (; i < n; i++)
		any |= (~v[i] & 0x7c00u) == 0;
	if (!any)
		return;
	for (unsigned i = 0; i < n; i++)
		if ((v[i] & 0x7fffu) > 0x7c00u)
			v[i] = 0x7c00u;
}

/* Reads row (g, c, h) of a tile source into fp16 values (w of them; the input port converts
 * int8/uint8 to fp16, exactly, and fp16 NaN to +inf); rows and columns outside the tile read
 * 0. raw (pe_row's callers only, with the NEON or AVX row): an fp16 row's NaNs are left in its
 * first n & ~7 values, for the PE row that applies the port's rule as it converts them. */
static int read_row_k(struct anem *m, const struct tile *t, unsigned g, unsigned c, unsigned h,
		      unsigned w, uint8_t *buf, uint16_t *out, int raw)
{
	unsigned n = w < t->w ? w : t->w;
	if (!t->r || g >= t->g || c >= t->c || h >= t->h) {
		memset(out, 0, w * sizeof *out);
		return ENG_OK;
	}
	int64_t off = row_off(t, g, c, h, (uint64_t)n * t->elem);
	if (off < 0)
		return ENG_E_RANGE;
	int e;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (t->fmt == H13_FMT_FP16) { /* little-endian fp16 in memory is the value: no copy */
		if ((e = anem_dma_move(m, out, t->r->cpu + off, n * 2u)))
			return e;
		if (raw)
			nan_to_inf(out + (n & ~7u), n & 7u);
		else
			nan_to_inf(out, n);
		for (unsigned i = n; i < w; i++)
			out[i] = 0;
		return ENG_OK;
	}
#endif
	if ((e = anem_dma_move(m, buf, t->r->cpu + off, n * t->elem)))
		return e;
	if (t->amb)
		for (unsigned i = 0; i < n; i++)
			if (buf[i] & 0x80u)
				return anem_refuse(m, ENG_FR_VALUE, H13_SRC_FMT, 0, 32, SIGN_AMB_TEXT);
	if (t->fmt == H13_FMT_FP16) {
		for (unsigned i = 0; i < n; i++)
			out[i] = le_rd16(buf + 2 * i);
		nan_to_inf(out, n);
	} else if (t->fmt == H13_FMT_INT8)
		for (unsigned i = 0; i < n; i++)
			out[i] = f2h((float)(int8_t)buf[i]);
	else
		for (unsigned i = 0; i < n; i++)
			out[i] = f2h((float)buf[i]);
	for (unsigned i = n; i < w; i++)
		out[i] = 0;
	return ENG_OK;
}

static int read_row(struct anem *m, const struct tile *t, unsigned g, unsigned c, unsigned h,
		    unsigned w, uint8_t *buf, uint16_t *out)
{
	return read_row_k(m, t, g, c, h, w, buf, out, 0);
}

/* An integer output: round to nearest even, saturate; NaN gives 0. */
static int32_t to_int(float v, int32_t lo, int32_t hi)
{
	if (v != v)
		return 0;
	if (v <= (float)lo)
		return lo;
	if (v >= (float)hi)
		return hi;
	float fl = (float)(int32_t)v; /* truncation toward zero, |v| < 2^8 */
	if (fl > v)
		fl -= 1.0f;
	float d = v - fl;
	int32_t q = (int32_t)fl;
	if (d > 0.5f || (d == 0.5f && (q & 1)))
		q++;
	return q;
}

/* Writes fp16 values (already rounded at the output port) to row (g, c, h) of the destination,
 * converted to its format; with ZeroPadLast the rest of the row's 64-byte line is zeroed. */
static int write_row(struct anem *m, const struct tile *t, unsigned g, unsigned c, unsigned h,
		     const uint16_t *v, uint8_t *buf)
{
	uint64_t bytes = (uint64_t)t->w * t->elem, line = (bytes + 63u) & ~(uint64_t)63u;
	int pad = H13_GET(REG(H13_DST_FMT), H13_DSTFMT_ZEROPADLAST) != 0;
	uint64_t n = pad ? line : bytes;
	int64_t off = row_off(t, g, c, h, n);
	if (off < 0)
		return ENG_E_RANGE;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (t->fmt == H13_FMT_FP16 && !pad) /* the values are the bytes: no copy */
		return anem_dma_move(m, t->r->cpu + off, v, (uint32_t)n);
#endif
	if (t->fmt == H13_FMT_FP16)
		for (unsigned i = 0; i < t->w; i++)
			le_wr16(buf + 2 * i, v[i]);
	else
		for (unsigned i = 0; i < t->w; i++) {
			buf[i] = (uint8_t)to_int(h2f_table[v[i]], t->fmt == H13_FMT_INT8 ? -128 : 0,
						 t->fmt == H13_FMT_INT8 ? 127 : 255);
			if (t->amb && (buf[i] & 0x80u))
				return anem_refuse(m, ENG_FR_VALUE, H13_DST_FMT, 0, 32, SIGN_AMB_TEXT);
		}
	if (pad)
		memset(buf + bytes, 0, (size_t)(line - bytes));
	return anem_dma_move(m, t->r->cpu + off, buf, (uint32_t)n);
}

/* ---- L2-resident tensors ---- */

void anem_l2_clear(struct anem *m)
{
	free(m->l2m); /* L2 memory does not outlive the submission */
	free(m->l2ok.w16);
	free(m->l2ok.w8);
	m->l2m = NULL;
	m->l2ok.w16 = NULL;
	m->l2ok.w8 = NULL;
	for (unsigned i = 0; i < ANEM_L2_TENSORS; i++) {
		free(m->l2t[i].v);
		memset(&m->l2t[i], 0, sizeof m->l2t[i]);
	}
	free(m->acc);
	free(m->wts);
	free(m->chv);
	free(m->kh);
	free(m->dk);
	free(m->l2in);
	free(m->otr);
	free(m->ilv[0]);
	free(m->ilv[1]);
	m->ilv[0] = m->ilv[1] = NULL;
	m->ilv_len[0] = m->ilv_len[1] = 0;
	free(m->cols);
	free(m->stage);
	free(m->ostage);
	free(m->rfb);
	free(m->lw);
	free(m->lacc);
	free(m->ilo);
	m->acc = m->wts = m->chv = m->cols = m->rfb = m->lw = m->lacc = m->ilo = NULL;
	m->kh = NULL;
	m->dk = NULL;
	m->dk_len = 0;
	m->l2in = m->otr = NULL;
	m->l2in_len = m->otr_len = 0;
	m->stage = m->ostage = NULL;
	m->acc_len = m->wts_len = m->chv_len = m->kh_len = m->cols_len = m->stage_len = 0;
	m->ostage_len = 0;
	m->rfb_len = m->lw_len = m->lacc_len = m->ilo_len = 0;
}

static struct anem_l2t *l2_find(struct anem *m, uint32_t base)
{
	for (unsigned i = 0; i < ANEM_L2_TENSORS; i++)
		if (m->l2t[i].v && m->l2t[i].base == base)
			return &m->l2t[i];
	return NULL;
}

/* The model's table as fw/td states it (resident.c: the slots, what a TD leaves, a read's checks) */
static void residents_of(const struct anem *m, struct td_residents *s)
{
	_Static_assert(ANEM_L2_TENSORS == TD_RESIDENT_MAX, "the model holds fw/td's resident tensors");
	for (unsigned i = 0; i < ANEM_L2_TENSORS; i++) {
		const struct anem_l2t *t = &m->l2t[i];
		s->t[i].on = t->v != NULL;
		s->t[i].base = t->base;
		s->t[i].d = (struct td_dims){t->w, t->h, t->c, t->g};
	}
}

/* The L2-resident result of the TD (its base, the result's shape: fw/td td_resident_leave), after
 * fw/td td_resident_result_refusal (more tensors than the model holds, one larger than
 * TD_L2_TENSOR_MAX), which inspect marks */
static int l2_result(struct anem *m, struct anem_l2t **out)
{
	const struct td_regs regs = {kept_get, m};
	struct td_residents s;
	struct td_refusal no = {0};
	residents_of(m, &s);
	td_resident_result_refusal(&regs, &s, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	const int i = td_resident_leave(&regs, m->cur_bar_en, &s);
	if (i < 0) /* (not reached: compute takes a reduction elsewhere, the slot was checked) */
		return ANEM_REFUSE(m, ENG_FR_CAPACITY, H13_L2_RESULTBASE, H13_L2_ADDR, "more L2-resident tensors than the model holds");
	struct anem_l2t *t = &m->l2t[i];
	const struct td_dims d = s.t[i].d;
	uint64_t n = (uint64_t)d.g * d.c * d.h * d.w;
	if (!t->v || (uint64_t)t->g * t->c * t->h * t->w != n) {
		free(t->v);
		t->v = NULL;
		if (!(t->v = malloc((size_t)n * 2)))
			return ENG_E_NOMEM;
	}
	t->base = s.t[i].base;
	t->g = d.g;
	t->c = d.c;
	t->h = d.h;
	t->w = d.w;
	*out = t;
	return ENG_OK;
}

static const uint16_t *l2_row(const struct anem_l2t *t, unsigned g, unsigned c, unsigned h)
{
	if (g >= t->g || c >= t->c || h >= t->h)
		return NULL;
	return t->v + (((uint64_t)g * t->c + c) * t->h + h) * t->w;
}

/* ---- the stages ---- */

struct stages {
	int ne;                 /* the NE is in the path (MACCfg configured) */
	unsigned ne_op, nl;
	float post;             /* NE.PostScale */
	int pe;                 /* the PE is in the path (any PE word set) */
	unsigned pe_op, pe_sec, pe_pool;
	int pe_two;             /* a second operand from the second tile source (SecSrc 2 or 3, and no
				 * kept value in its place); SecSrc 3 subtracts it */
	int pe_cond, pe_relu;
	int src2_relu;          /* L2.L2Cfg.Src2ReLU: the second operand through a ReLU (x + relu(x)) */
	float pre, scale, bias; /* (FinalScale: 1 outside a reduction, else refused) */
	int pe_amb;             /* the PE's value may depend on where a NaN is flushed (pe_row_amb) */
	int lut;                /* the activation LUT applies (act->state APPLIED) */
	int unit;               /* a convolution with MACCfg.KernelMode 1: the unit kernel */
	float accbias;          /* NE.AccBias (fp16), in the unit kernel's accumulator, or every
				 * output's of a convolution with kernels in memory (conv_accbias) */
	int conv_accbias;
};

static int ne_kernel_mode(struct anem *m, struct stages *s, uint32_t mac);

/* The register words whose bits outside the map's fields must be 0 (fw/td td_outside_init): the
 * table is the engine's, built once when it is set up (anem_init); each TD reads its words. */
void anem_outside_init(struct anem *m)
{
	m->noutside = td_outside_init(m->outside, ANEM_OUTSIDE_MAX, ANEM_WINDOW_BYTES);
}

/* The NE fields the model reads no meaning from (fw/td td_ne_unread_refusal, which inspect marks):
 * checked only with the NE in the path (MACCfg nonzero). */
static int ne_unread_fields(struct anem *m)
{
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_ne_unread_refusal(&regs, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/* The data path's fields the model reads no meaning from, on every TD (fw/td
 * td_data_unread_refusal, which inspect marks; docs/engine-model.md, "Faults" and "The register
 * census") */
static int data_unread_fields(struct anem *m, const struct td_kept *k, const struct td_l2mem *lm)
{
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_data_unread_refusal(&regs, m->cur_bar_en, k, lm, m->outside, m->noutside, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/* The NE's part of decode_stages: its operation, nonlinearity and scale, and the checks on its
 * fields, which every TD runs, a reduction's too (reduction_checks). */
static int decode_ne(struct anem *m, struct stages *s, const struct anem_act *act)
{
	memset(s, 0, sizeof *s);
	uint32_t mac = REG(H13_NE_MACCFG);
	s->ne = mac != 0;
	s->ne_op = H13_GET(mac, H13_MACCFG_OPMODE);
	s->nl = H13_GET(mac, H13_MACCFG_NONLINEARMODE);
	s->post = h2f_table[H13_GET(REG(H13_NE_POSTSCALE), H13_POSTSCALE)];
	/* OpMode other than 0, 2, 3 and 4, ElemMultMode outside OpMode 2 (ne_channel_groups checks
	 * the rest), NonlinearMode 3 (fw/td td_ne_opmode_refusal, td_elemmult_refusal,
	 * td_ne_nonlinear_refusal, which inspect marks) */
	{
		const struct td_regs regs = {kept_get, m};
		struct td_refusal no = {0};
		td_ne_opmode_refusal(&regs, &no);
		td_elemmult_refusal(&regs, &no);
		td_ne_nonlinear_refusal(&regs, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	int en = ne_unread_fields(m);
	if (en)
		return en;
	s->lut = s->ne && s->nl == H13_NONLINEAR_LUT && act->state == ANEM_ACT_APPLIED;
	const struct td_regs regs = {kept_get, m};
	if (td_ne_passthrough(mac, REG(H13_NE_POSTSCALE), td_coeff_enabled(&regs)))
		s->ne = 0; /* no kernel: the input reaches the PE unchanged */
	return ne_kernel_mode(m, s, mac);
}

/* Common.Cfg.TaskType and the TD header's ENE (fw/td td_pe_ene_refusal, which inspect marks):
 * reduction 1 from reduction_checks */
static int pe_ene_agree(struct anem *m, int reduction)
{
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_pe_ene_refusal(&regs, m->cur_ene, reduction, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

static int decode_stages(struct anem *m, struct stages *s, const struct anem_act *act)
{
	int en = decode_ne(m, s, act);
	if (en)
		return en;
	uint32_t cfg = REG(H13_PLANAR_CFG), bs = REG(H13_PLANAR_BIASSCALE);
	uint32_t pre = REG(H13_PLANAR_PRESCALE), fin = REG(H13_PLANAR_FINALSCALE);
	/* the PE in the path by Common.Cfg.TaskType (td_pe_in_path); out of it, its words are not
	 * read (on silicon they changed nothing there); in it, every real TD sets some of them, and
	 * TaskType 2 goes with one operand, 3 with two (SecSrc 2 or 3) */
	s->pe = td_pe_in_path(REG(H13_COMMON_CFG));
	if ((en = pe_ene_agree(m, 0)))
		return en;
	if (!s->pe)
		cfg = bs = pre = fin = 0;
	/* every Planar word 0 with the PE in the path, then TaskType 2 with one operand, 3 with two
	 * (fw/td td_pe_words_refusal, td_pe_task_refusal, which inspect marks) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_pe_words_refusal(&regs, &no);
	td_pe_task_refusal(&regs, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	s->pe_op = H13_GET(cfg, H13_PECFG_OPMODE);
	s->pe_sec = H13_GET(cfg, H13_PECFG_SECSRC);
	s->pe_pool = H13_GET(cfg, H13_PECFG_POOLMODE);
	unsigned cond = H13_GET(cfg, H13_PECFG_CONDITION);
	s->pe_cond = cond == H13_PE_COND_ABS;
	s->pe_relu = (int)H13_GET(cfg, H13_PECFG_RELUEN);
	td_pe_cfg_bits_refusal(&regs, &no); /* (fw/td, which inspect marks) */
	if (no.why)
		return td_refusal_fault(m, &no);
	td_pe_condition_refusal(&regs, &no); /* (fw/td, which inspect marks: each of these) */
	td_pe_nlmode_refusal(&regs, &no);
	td_pe_prescale_bits_refusal(&regs, &no);
	td_pe_nan_refusal(&regs, &no); /* (a NaN PreScale, Scale or Bias: every output was +0) */
	if (no.why)
		return td_refusal_fault(m, &no);
	s->pre = h2f_table[H13_GET(pre, H13_PRESCALE)];
	s->scale = h2f_table[H13_GET(bs, H13_BIASSCALE_SCALE)];
	s->bias = h2f_table[H13_GET(bs, H13_BIASSCALE_BIAS)];
	/* OpMode above 4, SecSrc 1, SecSrc 3 on other than an add (fw/td td_pe_op_refusal) */
	td_pe_op_refusal(&regs, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	s->pe_two = s->pe && td_pe_two_operands(cfg);
	s->src2_relu = (int)H13_GET(REG(H13_L2_CFG), H13_L2CFG_SRC2RELU);
	td_src2relu_refusal(&regs, 0, &no); /* with no second operand (fw/td, which inspect marks) */
	if (no.why)
		return td_refusal_fault(m, &no);
	/* FirstSrc 1 on a product of two operands: the first negated (fw/td td_pe_first_negated;
	 * Apple's layer_norm's (b - a)^2 reads it so too), applied as a negated PreScale, the same
	 * IEEE product; elsewhere refused */
	const int first_neg = s->pe && td_pe_first_negated(cfg);
	td_pe_firstsrc_refusal(&regs, &no); /* (fw/td, which inspect marks) */
	if (no.why)
		return td_refusal_fault(m, &no);
	if (first_neg)
		s->pre = -s->pre;
	/* Where silicon contradicts the plain reading (allbilly/ane experimental/expt.md, expt3, run
	 * on an M1 under Asahi Linux: an add and a product of 3 and 2 gave 5 and 6 with FinalScale
	 * written 0, and the product gave 6 with BiasScale written 0, where Scale 0 would give 0)
	 * and no real program gives another value (docs/engine-model.md, "Planar.FinalScale and
	 * BiasScale on silicon"): FinalScale other than 1 outside a reduction (reduce_planes reads
	 * it, the mean's 1/N), and Scale or Bias on a product of two operands, are refused
	 * (fw/td td_pe_scale_refusal, which inspect marks). */
	td_pe_scale_refusal(&regs, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	/* PreScale 0 or infinite (0 x inf possible in a x PreScale: +0 op by op, then the
	 * operation; a NaN one is refused above, td_pe_nan_refusal), or a Bias after an add of two
	 * operands or the square's a + b (inf - inf possible): pe_row_amb looks at the rows */
	s->pe_amb = s->pe && (s->pre == 0.0f || s->pre - s->pre != 0.0f ||
			      (s->bias != 0.0f && s->pe_two &&
			       (s->pe_op == H13_PE_OP_ADD || s->pe_op == H13_PE_OP_SQ)));
	/* Neither unit computing (the NE not configured, MACCfg 0, or a pass-through with no kernel,
	 * and the PE out of the path, TaskType 0): a plain copy by the model's reading, but no real
	 * TD is so, and on an M1 relu's TD with MACCfg written 0 hung (allbilly/ane
	 * experimental/expt.md, expt1): refused. */
	td_no_unit_refusal(&regs, &no); /* (fw/td, which inspect marks) */
	if (no.why)
		return td_refusal_fault(m, &no);
	return ENG_OK;
}

/* NonlinearMode on a row of fp16 values (in place); the LUT's elements counted in *count when
 * it is not NULL (without, it only reads the model: rows can be done on several threads). */
static inline __attribute__((always_inline)) void nl_apply(const struct anem *m,
							    const struct stages *s, uint16_t *v,
							    unsigned n, uint64_t *count)
{
	if (s->nl == H13_NONLINEAR_RELU && s->ne) {
		for (unsigned i = 0; i < n; i++)
			if ((v[i] & 0x8000u) && (v[i] & 0x7fffu) <= 0x7c00u)
				v[i] = 0; /* negative (and -0): 0 (no NaN gets here) */
	} else if (s->lut) {
		actlut_apply(&m->lut, v, v, n);
		if (count)
			*count += n;
	}
}

/* Whether nl_apply counts the rows' elements (the LUT applied: not the NE's ReLU); the rows a
 * batch finished on threads (nonlinear_row) are counted by their caller with it. */
static inline int nl_counted(const struct stages *s)
{
	return s->lut && !(s->nl == H13_NONLINEAR_RELU && s->ne);
}

static void nonlinear_row(const struct anem *m, const struct stages *s, uint16_t *v, unsigned n)
{
	nl_apply(m, s, v, n, NULL);
}

static void nonlinear(struct anem *m, const struct stages *s, uint16_t *v, unsigned n,
		      struct anem_act *act)
{
	nl_apply(m, s, v, n, &act->nelem);
}

/*
 * The PE on a row of fp16 values: va (the NE or source values) and vb (the second source, or
 * NULL), each value in fp32: x = a x PreScale, the operation with y = b (square: (x + y)^2, y = 0
 * with no second source; allbilly/ane measured OpMode 4 as (a + b)^2), |.| (Cond), + Bias, x
 * Scale (the bias first: the macOS compiler's GPT-2 gelu backward computes (x + 1) x 0.7979 with
 * Bias 1 and Scale 0.7979 in one TD), ReLU (FinalScale is 1: decode_stages refuses any other
 * outside a reduction), rounded to fp16 into out (which may be va). pe_row_k is
 * instantiated per operation, second source and tail so the row loop has no decisions left.
 */
static inline __attribute__((always_inline)) void
pe_row_k(const struct stages *s, const uint16_t *va, const uint16_t *vb, uint16_t *out,
	 unsigned n, unsigned op, int hasb, int cond, int relu)
{
	const float pre = s->pre, scale = s->scale, bias = s->bias;
	for (unsigned i = 0; i < n; i++) {
		float x = h2f_table[va[i]] * pre, y = hasb ? h2f_table[vb[i]] : 0.0f, r;
		switch (op) {
		case H13_PE_OP_ADD: r = x + y; break;
		case H13_PE_OP_MUL: r = hasb ? x * y : x; break;
		case H13_PE_OP_MAX: r = !hasb || x >= y || y != y ? x : y; break;
		case H13_PE_OP_MIN: r = !hasb || x <= y || y != y ? x : y; break;
		default: r = (x + y) * (x + y); break; /* (a + b)^2; a^2 with no second source */
		}
		if (cond && r < 0.0f)
			r = -r;
		if (cond && r == 0.0f)
			r = 0.0f; /* |-0| = +0 */
		r = (r + bias) * scale; /* Bias before Scale (docs/engine-model.md, "Planar.BiasScale") */
		if (relu && r < 0.0f)
			r = 0.0f;
		out[i] = f2h(r);
	}
}

#define PE_TAILS(op, hasb)                                                              \
	do {                                                                            \
		if (s->pe_cond && s->pe_relu)                                            \
			pe_row_k(s, va, vb, out, n, op, hasb, 1, 1);                     \
		else if (s->pe_cond)                                                     \
			pe_row_k(s, va, vb, out, n, op, hasb, 1, 0);                     \
		else if (s->pe_relu)                                                     \
			pe_row_k(s, va, vb, out, n, op, hasb, 0, 1);                     \
		else                                                                     \
			pe_row_k(s, va, vb, out, n, op, hasb, 0, 0);                     \
	} while (0)

#define PE_OP(op)                                                                       \
	do {                                                                            \
		if (vb)                                                                  \
			PE_TAILS(op, 1);                                                 \
		else                                                                     \
			PE_TAILS(op, 0);                                                 \
	} while (0)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/*
 * The PE row with F16C and AVX, 8 values at a time (the tail through pe_row_k): the same
 * operations in the same order on the same fp32 values, no fused multiply-add (the target
 * attribute has no FMA, so nothing is contracted). The conversions: fp16 -> fp32 is exact
 * (as h2f_table); fp32 -> fp16 is VCVTPS2PH with round to nearest even, which equals
 * anem_f2h_soft for every value but NaN, so NaN lanes are made +0 first (f2h's rule). Used
 * only while MXCSR asks for round to nearest without flush-to-zero or denormals-are-zero
 * (sse_ok). A NaN in the row can only come from the arithmetic (the ports make NaN +inf) and
 * leaves as 0 on both paths whatever its payload.
 */
#define PE_AVX __attribute__((target("avx,f16c")))

static int sse_ok(void)
{
	/* RC (14:13), FTZ (15), DAZ (6) */
	return (_mm_getcsr() & (3u << 13 | 1u << 15 | 1u << 6)) == 0;
}

static inline __attribute__((always_inline)) PE_AVX void
pe_row8_k(const struct stages *s, const uint16_t *va, const uint16_t *vb, uint16_t *out,
	  unsigned n, unsigned op, int hasb, int cond, int relu, int unit)
{
	const __m256 pre = _mm256_set1_ps(s->pre), scale = _mm256_set1_ps(s->scale);
	const __m256 bias = _mm256_set1_ps(s->bias);
	const __m256 zero = _mm256_setzero_ps(), sign = _mm256_set1_ps(-0.0f);
	const __m256 pinf = _mm256_set1_ps(__builtin_inff());
	unsigned i = 0;
	for (; i + 8 <= n; i += 8) {
		/* the input port's rule (a NaN enters as +inf; elementwise's raw rows leave it here,
		 * every other row holds no NaN, so applying it again changes nothing) */
		/* VMINPS gives its second operand when either is a NaN: min(x, +inf) is x for every
		 * other x (-0 and the infinities included) and +inf for a NaN of either sign */
		__m256 x = _mm256_min_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(va + i))), pinf);
		if (!unit)
			x = _mm256_mul_ps(x, pre);
		__m256 y = zero, r;
		if (hasb)
			y = _mm256_min_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(vb + i))), pinf);
		switch (op) {
		case H13_PE_OP_ADD: r = _mm256_add_ps(x, y); break;
		case H13_PE_OP_MUL: r = hasb ? _mm256_mul_ps(x, y) : x; break;
		case H13_PE_OP_MAX:
			r = !hasb ? x : _mm256_blendv_ps(y, x, _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_GE_OQ),
									    _mm256_cmp_ps(y, y, _CMP_UNORD_Q)));
			break;
		case H13_PE_OP_MIN:
			r = !hasb ? x : _mm256_blendv_ps(y, x, _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_LE_OQ),
									    _mm256_cmp_ps(y, y, _CMP_UNORD_Q)));
			break;
		default: r = _mm256_add_ps(x, y); r = _mm256_mul_ps(r, r); break;
		}
		if (cond) /* |r|, and |-0| = +0 (a NaN keeps no sign; it leaves as 0 anyway) */
			r = _mm256_andnot_ps(sign, r);
		r = _mm256_add_ps(r, bias);
		if (!unit)
			r = _mm256_mul_ps(r, scale);
		if (relu)
			r = _mm256_blendv_ps(r, zero, _mm256_cmp_ps(r, zero, _CMP_LT_OQ));
		r = _mm256_andnot_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q), r); /* NaN: +0 */
		_mm_storeu_si128((__m128i *)(void *)(out + i), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	if (i < n)
		pe_row_k(s, va + i, hasb ? vb + i : NULL, out + i, n - i, op, hasb, cond, relu);
}

#define PE8_TAILS(op, hasb)                                                             \
	do {                                                                            \
		if (s->pe_cond && s->pe_relu)                                            \
			pe_row8_k(s, va, vb, out, n, op, hasb, 1, 1, 0);                 \
		else if (s->pe_cond)                                                     \
			pe_row8_k(s, va, vb, out, n, op, hasb, 1, 0, 0);                 \
		else if (s->pe_relu)                                                     \
			pe_row8_k(s, va, vb, out, n, op, hasb, 0, 1, 0);                 \
		else if (unit)                                                           \
			pe_row8_k(s, va, vb, out, n, op, hasb, 0, 0, 1);                 \
		else                                                                     \
			pe_row8_k(s, va, vb, out, n, op, hasb, 0, 0, 0);                 \
	} while (0)

#define PE8_OP(op)                                                                      \
	do {                                                                            \
		if (vb)                                                                  \
			PE8_TAILS(op, 1);                                                \
		else                                                                     \
			PE8_TAILS(op, 0);                                                \
	} while (0)

static PE_AVX void pe_row_avx(const struct stages *s, const uint16_t *va, const uint16_t *vb,
			      uint16_t *out, unsigned n)
{
	/* PreScale and Scale both 1 (the add's): x 1 is exact for every value, and a NaN stays a
	 * NaN (made +0 at the end either way), so the two multiplies are left out */
	const int unit = s->pre == 1.0f && s->scale == 1.0f;
	switch (s->pe_op) {
	case H13_PE_OP_ADD: PE8_OP(H13_PE_OP_ADD); break;
	case H13_PE_OP_MUL: PE8_OP(H13_PE_OP_MUL); break;
	case H13_PE_OP_MAX: PE8_OP(H13_PE_OP_MAX); break;
	case H13_PE_OP_MIN: PE8_OP(H13_PE_OP_MIN); break;
	default: PE8_OP(H13_PE_OP_SQ); break;
	}
}
#endif

/* The AVX PE row can run (x86-64: F16C, anem_simd set, MXCSR as sse_ok asks); it applies the
 * input port's NaN rule to the first n & ~7 values of its rows as it loads them. */
static int pe_avx(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	return cpu_f16c() && sse_ok();
#else
	return 0;
#endif
}

/* The NEON PE row can run (aarch64: FCVT rounds as f2h, anem_simd set). */
static int pe_neon(void)
{
#if defined(ANEM_NEON)
	return fcvt_ok && anem_simd;
#else
	return 0;
#endif
}

/*
 * The PE's value of one element, pe_row_k's arithmetic in its order (a and y after the input
 * port), with each step's NaN made +0 where it arises (each: guide 03's +0 for inf - inf and
 * 0 x inf as one operation) or only at the end of the row (the model's f2h, pe_row).
 */
static float pe_val(const struct stages *s, float a, float y, int hasb, int each)
{
	float x = a * s->pre, r;
	if (each && x != x)
		x = 0.0f;
	switch (s->pe_op) {
	case H13_PE_OP_ADD: r = x + y; break;
	case H13_PE_OP_MUL: r = hasb ? x * y : x; break;
	case H13_PE_OP_MAX: r = !hasb || x >= y || y != y ? x : y; break;
	case H13_PE_OP_MIN: r = !hasb || x <= y || y != y ? x : y; break;
	default:
		r = x + y;
		if (each && r != r)
			r = 0.0f;
		r = r * r;
		break;
	}
	if (each && r != r)
		r = 0.0f;
	if (s->pe_cond && r < 0.0f)
		r = -r;
	r = r + s->bias;
	if (each && r != r)
		r = 0.0f;
	r = r * s->scale;
	if (s->pe_relu && r < 0.0f)
		r = 0.0f;
	return r;
}

/*
 * The tenth review: an indeterminate form inside the PE's operation (inf - inf in its add or the
 * square's a + b, 0 x inf in a x PreScale) followed by a step that gives another value when it is
 * flushed there (+0, then the Bias, the second operand, the maximum) than when the NaN reaches the
 * end of the row (+0, the model's f2h). Guide 03 measures +0 for one operation, not where the
 * planar engine flushes inside its fused operation, and no program holds such a form: refused by
 * name (as the reductions' sums are, RED_AMB_TEXT). 1 when one of the row's n values (va, and vb
 * when a second operand) differs between the two readings (+0 and -0 alike).
 */
#define PE_AMB_TEXT                                                                                \
	"an indeterminate form inside the planar engine's operation (inf - inf in its add, 0 x inf "  \
	"in its PreScale) then a Bias, a second operand or a maximum that gives another value when " \
	"it is flushed there (guide 03's +0 for one operation) than at the end of the row"
static int pe_row_amb(const struct stages *s, const uint16_t *va, const uint16_t *vb, unsigned n)
{
	/* with a finite PreScale only an infinite operand can make a NaN before the last step (fp16
	 * operands: x PreScale, the operation and its square stay inside fp32), so rows of finite
	 * operands are passed over without the two evaluations */
	const int fin_pre = s->pre - s->pre == 0.0f;
	for (unsigned i = 0; i < n; i++) {
		if (fin_pre && (va[i] & 0x7c00u) != 0x7c00u && (!vb || (vb[i] & 0x7c00u) != 0x7c00u))
			continue;
		float a = h2f_table[va[i]], y = vb ? h2f_table[vb[i]] : 0.0f;
		if (a != a) /* (a raw row: the input port's rule, a NaN is +inf) */
			a = __builtin_inff();
		if (y != y)
			y = __builtin_inff();
		if (h2f_table[f2h(pe_val(s, a, y, vb != NULL, 1))] != h2f_table[f2h(pe_val(s, a, y, vb != NULL, 0))])
			return 1;
	}
	return 0;
}

/* pe_row_amb's refusal, only where the PE's configuration makes one possible (s->pe_amb). */
static int pe_amb_refusal(struct anem *m, const struct stages *s, const uint16_t *va, const uint16_t *vb,
			  unsigned n)
{
	return s->pe_amb && pe_row_amb(s, va, vb, n) ? ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, PE_AMB_TEXT) : ENG_OK;
}

static void pe_row(const struct stages *s, const uint16_t *va, const uint16_t *vb, uint16_t *out,
		   unsigned n)
{
#if defined(ANEM_NEON)
	if (pe_neon()) {
		const struct anem_pe_k k = {s->pe_op, vb != NULL, s->pe_cond, s->pe_relu,
					    s->pre, s->scale, s->bias};
		unsigned i = anem_neon_pe_row(&k, va, vb, out, n);
		if (i == n)
			return;
		va += i;
		vb = vb ? vb + i : NULL;
		out += i;
		n -= i;
	}
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (n >= 8 && cpu_f16c() && sse_ok()) {
		pe_row_avx(s, va, vb, out, n);
		return;
	}
#endif
	switch (s->pe_op) {
	case H13_PE_OP_ADD: PE_OP(H13_PE_OP_ADD); break;
	case H13_PE_OP_MUL: PE_OP(H13_PE_OP_MUL); break;
	case H13_PE_OP_MAX: PE_OP(H13_PE_OP_MAX); break;
	case H13_PE_OP_MIN: PE_OP(H13_PE_OP_MIN); break;
	default: PE_OP(H13_PE_OP_SQ); break;
	}
}

/* Row (g, c, h) of a TD's source, w fp16 values: the L2-resident tensor's (zero past its
 * width or where it has no such row), or the tile DMA's (read_row, through m->row[0]). */
static int source_row(struct anem *m, const struct tile *t, const struct anem_l2t *lsrc, unsigned g,
		      unsigned c, unsigned h, unsigned w, uint16_t *v)
{
	if (!lsrc)
		return read_row(m, t, g, c, h, w, m->row[0], v);
	const uint16_t *q = l2_row(lsrc, g, c, h);
	for (unsigned i = 0; i < w; i++)
		v[i] = q && i < lsrc->w ? q[i] : 0;
	return ENG_OK;
}

/* The output positions [x0, x1) of a convolution row whose input column x Sx - Px + kx lies
 * inside the Win input columns. */
static void conv_span(unsigned W, unsigned Win, unsigned sx, unsigned kx, unsigned px, unsigned *x0,
		      unsigned *x1)
{
	unsigned a = 0, b = W;
	while (a < W && (int64_t)a * sx + kx < (int64_t)px)
		a++;
	while (b > a && (int64_t)(b - 1) * sx + kx - px >= (int64_t)Win)
		b--;
	*x0 = a;
	*x1 = b;
}

/* A result row (g, c, h) of out->w fp16 values leaves the engine: into the L2-resident result
 * (lres, when the TD keeps one) and through the tile DMA to the destination (when there is
 * one). */
static int emit_row(struct anem *m, const struct tile *out, struct anem_l2t *lres, unsigned g,
		    unsigned c, unsigned h, const uint16_t *v)
{
	if (lres)
		memcpy(lres->v + (((uint64_t)g * lres->c + c) * lres->h + h) * out->w, v,
		       out->w * sizeof *v);
	return out->r ? write_row(m, out, g, c, h, v, m->row[2]) : ENG_OK;
}

/* Elementwise TDs: output element (g, c, h, w) from input element (g, c, h, w). With neither
 * the NE nor the PE in the path the values move unchanged (bit for bit in fp16). */
/* A TD that is neither a convolution nor a pooling reads Common.ConvCfg's window nowhere: every
 * real one (all 132 TDs of the fixtures and Apple's 64 rebuilt programs) has 1x1, stride 1, no
 * padding, and what the engine does with another (a strided or windowed elementwise pass?) is not
 * known, so any other is refused */
static int elementwise_window(struct anem *m)
{
	/* fw/td td_elementwise_window_refusal, which inspect marks */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_elementwise_window_refusal(&regs, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/*
 * The sources of an elementwise TD exist and cover its output: a first source that is neither an
 * L2-resident tensor nor a bound tile DMA range (RBase0 unbound; softmax.bin's last TD, whose
 * first operand is read from L2 memory, goes to l2mem_elementwise instead), a second source (SecSrc 2) with no
 * tile range, or a source smaller than the output (a broadcast, which no map describes on H13)
 * would otherwise read as zeros and compute wrong numbers: each faults, saying which.
 */
static int elementwise_sources(struct anem *m, const struct stages *s, const struct tile *in0,
			       const struct tile *in1, const struct anem_l2t *lsrc,
			       const struct tile *out)
{
	int e = elementwise_window(m);
	if (e)
		return e;
	/* (the first source: compute_td checked it, td_first_source_refusal) */
	/* a second operand with no second tile source, a broadcast, another output shape, a one-byte
	 * first operand beside a second (fw/td td_elementwise_sources_refusal, which inspect marks;
	 * in1 is there exactly where the header binds RBase1 and the source DMA is enabled) */
	const struct td_regs regs = {kept_get, m};
	const struct td_dims res = lsrc ? (struct td_dims){lsrc->w, lsrc->h, lsrc->c, lsrc->g} : (struct td_dims){0, 0, 0, 0};
	struct td_refusal no = {0};
	(void)s, (void)in0, (void)in1, (void)out;
	td_elementwise_sources_refusal(&regs, tiles_of(in0, in1, NULL), lsrc ? &res : NULL, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

static void unit_kernel_row(const struct stages *s, uint16_t *v, unsigned n);

/* L2.L2Cfg.Src2ReLU on the second operand (after the port's NaN rule): negative values and -0
 * become +0, as the NE's ReLU. */
static void relu_row(uint16_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if ((b[i] & 0x8000u) && (b[i] & 0x7fffu) <= 0x7c00u)
			b[i] = 0;
}

/* SecSrc 3's second operand, negated (sign bits flipped: exact, after the port's NaN rule). */
static void negate_row(uint16_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] ^= 0x8000u;
}

/* The NE's post-scale on an elementwise row (in place): fp16 x PostScale, rounded to fp16. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static PE_AVX void ne_post_row_avx(uint16_t *v, unsigned n, float post)
{
	const __m256 p = _mm256_set1_ps(post);
	unsigned i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 r = _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(v + i))), p);
		r = _mm256_andnot_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q), r); /* NaN: +0 */
		_mm_storeu_si128((__m128i *)(void *)(v + i), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	for (; i < n; i++)
		v[i] = f2h(h2f_table[v[i]] * post);
}
#endif

static void ne_post_row(uint16_t *v, unsigned n, float post)
{
	unsigned i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_f16c() && sse_ok()) {
		ne_post_row_avx(v, n, post);
		return;
	}
#elif defined(ANEM_NEON)
	if (pe_neon())
		i = anem_neon_post_row(v, n, post);
#endif
	for (; i < n; i++)
		v[i] = f2h(h2f_table[v[i]] * post);
}

/* The NE on a row of an elementwise TD: the unit kernel, or x PostScale (left out when it is 1:
 * post1), then NonlinearMode; nothing when the NE is not in the path. */
static void ne_row(struct anem *m, const struct stages *s, uint16_t *v, unsigned W, int post1,
		   struct anem_act *act)
{
	if (!s->ne)
		return;
	if (s->unit)
		unit_kernel_row(s, v, W);
	else if (!post1)
		ne_post_row(v, W, s->post);
	nonlinear(m, s, v, W, act);
}

/* Rows of an elementwise chunk: as many as fit this many bytes of staged fp16 (m->hv, m->hv2). */
#define EW_CHUNK_BYTES 16384u

/* The byte offset of row h of plane (g, c) of a tile, whose rows h .. h + n - 1 (each `bytes`
 * long, t->row apart: row_off is linear in h) all lie inside its range; -1 when one does not. */
static int64_t chunk_off(const struct tile *t, unsigned g, unsigned c, unsigned h, unsigned n,
			 uint64_t bytes)
{
	int64_t first = row_off(t, g, c, h, bytes);
	return first < 0 || row_off(t, g, c, h + n - 1, bytes) < 0 ? -1 : first;
}

/*
 * Rows h .. h + n - 1 of plane (g, c) of an elementwise TD, each source moved in by one 2-D move
 * into m->hv (m->hv2) and the results out by one, where the sources and the destination are fp16
 * tiles whose every row lies inside its range and the DMA engine takes the moves (no fault
 * armed, its granule and limits); the same values as row by row (the same passes on each row).
 * Returns ANEM_ROWS_ONE_BY_ONE, having written nothing, when it cannot; the caller goes row by
 * row then (which also reports any range error at the row it concerns).
 */
static int ew_chunk(struct anem *m, const struct stages *s, const struct tile *in0,
		    const struct tile *in1, const struct tile *out, struct anem_l2t *lres,
		    struct anem_act *act, unsigned g, unsigned c, unsigned h, unsigned n, int raw0,
		    int raw, int post1)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned W = out->w;
	const uint64_t bytes = (uint64_t)W * 2u;
	const int two = s->pe_two, sub = two && s->pe_sec == H13_PE_SECSRC_SUB;
	int64_t o0 = -1, o1 = -1, oo = -1;
	if (n < 2 || (uint64_t)n * bytes > EW_CHUNK_BYTES || !in0->r || in0->fmt != H13_FMT_FP16 ||
	    g >= in0->g || c >= in0->c || h + n > in0->h || (o0 = chunk_off(in0, g, c, h, n, bytes)) < 0 ||
	    (two && (!in1->r || in1->fmt != H13_FMT_FP16 || g >= in1->g || c >= in1->c ||
		     h + n > in1->h || (o1 = chunk_off(in1, g, c, h, n, bytes)) < 0)) ||
	    (out->r && (out->fmt != H13_FMT_FP16 || H13_GET(REG(H13_DST_FMT), H13_DSTFMT_ZEROPADLAST) ||
			(oo = chunk_off(out, g, c, h, n, bytes)) < 0 ||
			!anem_dma_rows_ok(m, out->r->cpu + oo, (int64_t)out->row, m->hv, (int64_t)bytes,
					  (uint32_t)bytes, n))))
		return ANEM_ROWS_ONE_BY_ONE;
	int e = anem_dma_move_rows(m, m->hv, (int64_t)bytes, in0->r->cpu + o0, (int64_t)in0->row,
				   (uint32_t)bytes, n);
	if (e)
		return e; /* ANEM_ROWS_ONE_BY_ONE: what moved is only read */
	if (two && (e = anem_dma_move_rows(m, m->hv2, (int64_t)bytes, in1->r->cpu + o1,
					   (int64_t)in1->row, (uint32_t)bytes, n)))
		return e;
	for (unsigned i = 0; i < n; i++) {
		uint16_t *v = m->hv + (uint64_t)i * W, *b = two ? m->hv2 + (uint64_t)i * W : NULL;
		/* read_row_k's port on each row: the whole row, or only its tail for a raw row */
		if (raw0)
			nan_to_inf(v + (W & ~7u), W & 7u);
		else
			nan_to_inf(v, W);
		if (b && raw)
			nan_to_inf(b + (W & ~7u), W & 7u);
		else if (b)
			nan_to_inf(b, W);
		if (b && s->src2_relu) /* after the port (raw is 0 then) */
			relu_row(b, W);
		if (sub) /* after the port (raw is 0 then): a - b is a + (-b), exactly */
			negate_row(b, W);
		ne_row(m, s, v, W, post1, act);
		if (s->pe && (e = pe_amb_refusal(m, s, v, b, W)))
			return e;
		if (s->pe)
			pe_row(s, v, b, v, W);
		if (lres)
			memcpy(lres->v + (((uint64_t)g * lres->c + c) * lres->h + h + i) * out->w, v,
			       out->w * sizeof *v);
	}
	if (!out->r)
		return ENG_OK;
	e = anem_dma_move_rows(m, out->r->cpu + oo, (int64_t)out->row, m->hv, (int64_t)bytes,
			       (uint32_t)bytes, n);
	for (unsigned i = 0; e == ANEM_ROWS_ONE_BY_ONE && i < n; i++) /* (checked above: not taken) */
		e = write_row(m, out, g, c, h + i, m->hv + (uint64_t)i * W, m->row[2]);
	return e;
#else
	(void)m, (void)s, (void)in0, (void)in1, (void)out, (void)lres, (void)act, (void)g, (void)c;
	(void)h, (void)n, (void)raw0, (void)raw, (void)post1;
	return ANEM_ROWS_ONE_BY_ONE;
#endif
}

static int elementwise(struct anem *m, const struct stages *s, struct tile *in0, struct tile *in1,
		       const struct anem_l2t *lsrc, struct tile *out, struct anem_l2t *lres,
		       struct anem_act *act)
{
	int es = elementwise_sources(m, s, in0, in1, lsrc, out);
	if (es)
		return es;
	unsigned W = out->w;
	/* the PE straight after the input port: the NEON row applies the port's NaN rule itself
	 * (not when it subtracts: the second operand is negated after the port) */
	int raw = !s->ne && s->pe && s->pe_sec != H13_PE_SECSRC_SUB && !s->src2_relu && (pe_neon() || pe_avx());
	/* the NE's post-scale 1 on fp16 values is the identity (x 1 is exact and every port value
	 * is an fp16), so a row goes straight from the port to the activation LUT, whose table
	 * applies the port's NaN rule (prepare_table in model.c); anem_simd = 0 keeps the
	 * separate passes (the comparison in test_model_simd) */
	int post1 = anem_simd && s->ne && !s->unit && s->post == 1.0f;
	int raw0 = raw || (post1 && s->lut && m->lut.table == m->table);
	const unsigned chunk = W ? EW_CHUNK_BYTES / (2u * W) : 0;
	for (unsigned g = 0; g < out->g; g++)
		for (unsigned c = 0; c < out->c; c++)
			for (unsigned h = 0; h < out->h; h++) {
				int e;
				uint16_t *v = m->hv;
				unsigned n = out->h - h < chunk ? out->h - h : chunk;
				if (!lsrc && n >= 2) {
					e = ew_chunk(m, s, in0, in1, out, lres, act, g, c, h, n, raw0, raw, post1);
					if (e == ENG_OK) {
						h += n - 1;
						continue;
					}
					if (e != ANEM_ROWS_ONE_BY_ONE)
						return e;
				}
				if (lsrc)
					e = source_row(m, in0, lsrc, g, c, h, W, v);
				else
					e = read_row_k(m, in0, g, c, h, W, m->row[0], v, raw0);
				if (e != ENG_OK)
					return e;
				ne_row(m, s, v, W, post1, act);
				if (s->pe) {
					uint16_t *b = NULL;
					if (s->pe_two) {
						b = m->hv2;
						if ((e = read_row_k(m, in1, g, c, h, W, m->row[1], b, raw)))
							return e;
						if (s->src2_relu)
							relu_row(b, W);
						if (s->pe_sec == H13_PE_SECSRC_SUB)
							negate_row(b, W);
					}
					if ((e = pe_amb_refusal(m, s, v, b, W)))
						return e;
					pe_row(s, v, b, v, W);
				}
				if ((e = emit_row(m, out, lres, g, c, h, v)))
					return e;
			}
	return ENG_OK;
}

/* 1 when one of v[0..n) is a NaN (the weights' and biases' check, an average pool's sums). */
static int nan_in(const float *v, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (v[i] != v[i])
			return 1;
	return 0;
}

/*
 * The PE's pooling (Planar.Cfg.PoolMode 1 average, 2 max, 3 min; docs/engine-model.md): per group
 * and channel, output (y, x) is the average, maximum or minimum over the Kw x Kh window of input
 * rows y Sy - Py + ky and columns x Sx - Px + kx (Common.ConvCfg), the values in fp32 after the
 * input port. The average divides the window's sum (in ky, kx order) by Kw x Kh: positions outside
 * the input count as zeros; the maximum and minimum take only positions inside it (0 when none
 * is). The pooled value, rounded to fp16, is the PE's first operand; the rest of the PE (scales,
 * bias, |.|, ReLU) follows as for every TD. A window the size of the input is a reduction over
 * H and W (a global average or max pool). An average whose window meets infinities of both signs
 * is refused by name (POOL_AMB_TEXT), as a convolution's sum is.
 */
static int grow_aligned(struct anem *m, float **p, size_t *len, uint64_t n, const char *what);


#define POOL_AMB_TEXT                                                                              \
	"infinities of both signs meet in an average pool's window sum: guide 03 gives inf - inf = "  \
	"+0 elementwise and does not say where the planar engine flushes it inside a sum"
static int pooling(struct anem *m, const struct stages *s, struct tile *in, const struct anem_l2t *lsrc,
		   struct tile *out, struct anem_l2t *lres)
{
	uint32_t cc = REG(H13_COMMON_CONVCFG);
	const struct td_window win = td_window_of(cc);
	const unsigned kw = win.kw, kh = win.kh, sx = win.sx, sy = win.sy, px = win.px, py = win.py;
	unsigned W = out->w, Win = lsrc ? lsrc->w : in->w, Hin = lsrc ? lsrc->h : in->h;
	unsigned cin = lsrc ? lsrc->c : in->c;
	/* after the NE, or with a second source (fw/td td_pe_pool_refusal, which inspect marks) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_pe_pool_refusal(&regs, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	/* its shape (fw/td td_pe_pool_shape_refusal, which inspect marks too) */
	td_pe_pool_shape_refusal(&regs, Win, Hin, cin, out->c, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	int e = grow_aligned(m, &m->acc, &m->acc_len, 2 * (uint64_t)W, "pooling rows (Common.OutDim.Wout)");
	if (e)
		return e;
	float *acc = m->acc, *cnt = m->acc + W;
	unsigned mode = s->pe_pool;
	float area = (float)(kw * kh); /* exact: Kw and Kh are 5-bit fields */
	for (unsigned g = 0; g < out->g; g++)
		for (unsigned c = 0; c < out->c; c++)
			for (unsigned y = 0; y < out->h; y++) {
				for (unsigned x = 0; x < W; x++)
					acc[x] = cnt[x] = 0.0f;
				for (unsigned ky = 0; ky < kh; ky++) {
					int64_t iy = (int64_t)y * sy - py + ky;
					if (iy < 0 || iy >= (int64_t)Hin)
						continue;
					uint16_t *v = m->hv;
					if ((e = source_row(m, in, lsrc, g, c, (unsigned)iy, Win, v)))
						return e;
					for (unsigned i = 0; i < Win; i++)
						m->fb[i] = h2f_table[v[i]];
					for (unsigned kx = 0; kx < kw; kx++) {
						unsigned x0, x1;
						conv_span(W, Win, sx, kx, px, &x0, &x1);
						if (x0 >= x1)
							continue; /* (an empty span's first input is before fb) */
						const float *src = m->fb + ((int64_t)x0 * sx + kx - px);
						for (unsigned x = x0; x < x1; x++) {
							float t = src[(uint64_t)(x - x0) * sx];
							if (mode == H13_PE_POOL_AVG)
								acc[x] += t;
							else if (cnt[x] == 0.0f ||
								 (mode == H13_PE_POOL_MAX ? t > acc[x] : t < acc[x]))
								acc[x] = t;
							cnt[x] = 1.0f;
						}
					}
				}
				/* an average's window sum meeting infinities of both signs: refused, as a
				 * convolution's sum is (acc_row_amb; the fp32 sum's NaN was +0 here) */
				if (mode == H13_PE_POOL_AVG && nan_in(acc, W))
					return ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, POOL_AMB_TEXT);
				uint16_t *v = m->hv;
				for (unsigned x = 0; x < W; x++)
					v[x] = f2h(mode == H13_PE_POOL_AVG ? acc[x] / area : acc[x]);
				if ((e = pe_amb_refusal(m, s, v, NULL, W)))
					return e;
				pe_row(s, v, NULL, v, W);
				if ((e = emit_row(m, out, lres, g, c, y, v)))
					return e;
			}
	return ENG_OK;
}

/* ---- the convolution ---- */

/*
 * The multiply-accumulate's ports (guide 03, "Edge behavior" and "Saturation hazard", measured
 * on the M1, whose engine is H13):
 * - its operands: an fp16 subnormal enters the MAC as +0 ("a pair of denormals summed inside a
 *   matmul, with a representable denormal total, returns positive zero"; the elementwise path
 *   keeps them);
 * - its output: a convolution that accumulates two or more taps saturates at 2^15, half the fp16
 *   range: 32752 passes, 32768 and above (after the rounding to fp16) is infinity of its sign.
 */
static inline float mac_in(uint16_t h)
{
	return (h & 0x7c00u) ? h2f_table[h] : 0.0f;
}

static inline uint16_t mac_out(uint16_t h, int taps2)
{
	uint16_t a = h & 0x7fffu;
	return taps2 && a >= 0x7800u && a < 0x7c00u ? (uint16_t)((h & 0x8000u) | 0x7c00u) : h;
}

/* A buffer of n floats the model derives from a program (what: which, and the fields sizing it),
 * refused by name past ANEM_BUF_MAX_BYTES before anything is allocated. */
static int buf_over(struct anem *m, uint64_t n, const char *what)
{
	if (n <= ANEM_BUF_MAX_BYTES / sizeof(float))
		return ENG_OK;
	return what ? ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, what) : ENG_E_FAULT;
}

static int grow(struct anem *m, float **p, size_t *len, uint64_t n, const char *what)
{
	if (buf_over(m, n, what))
		return ENG_E_FAULT;
	if (*len >= n)
		return ENG_OK;
	float *q = realloc(*p, (size_t)n * sizeof(float));
	if (!q)
		return ENG_E_NOMEM;
	*p = q;
	*len = (size_t)n;
	return ENG_OK;
}

/*
 * The weights as floats, packed for the convolution's micro-kernel: [G][ceil(Cout / CB)][K][CB]
 * with K = Cin x Kh x Kw in the order ci, ky, kx, so output channel o of group g (o_all = g Cout
 * + o) holds its K weights at stride CB from wslot(o_all); the lines past Cout are 0. m->wts_inf
 * says whether any weight is infinite or NaN.
 */
/* Output channels per line of packed weights: the micro-kernels' channel block (compute.c's
 * 4 x N kernels; neon.c's 12 x 8 on aarch64). */
#if defined(__aarch64__)
#define CB 12u
#else
#define CB 4u
#endif

/* At most this many tasks split a one-row convolution's columns (batch_columns; the batch's
 * rows otherwise, at most 16) and its channel lines (batch_lines). */
#define COLS_SPLIT_MAX 16u
#define LINE_TASKS_MAX 64u

static uint64_t wslot(uint64_t o_all, unsigned cout, uint64_t per)
{
	uint64_t g = o_all / cout, o = o_all % cout, nob = ((uint64_t)cout + CB - 1) / CB;
	return ((g * nob + o / CB) * per) * CB + o % CB;
}

static int grow_aligned(struct anem *m, float **p, size_t *len, uint64_t n, const char *what);

/* Lanes [from, CB) of a packed line of per k (the channels past Cout) set to 0. */
static void zero_lanes(float *line, unsigned from, uint64_t per)
{
	for (unsigned l = from; l < CB; l++)
		for (uint64_t k = 0; k < per; k++)
			line[CB * k + l] = 0.0f;
}

static int grow_weights(struct anem *m, uint64_t nout, unsigned cout, uint64_t per)
{
	uint64_t G = nout / cout, nob = ((uint64_t)cout + CB - 1) / CB;
	if (per > UINT64_MAX / CB / (G * nob))
		return ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, "convolution weights (NumGroups, Cout, Cin, "
					 "Common.ConvCfg Kh x Kw) over the model's buffer limit");
	int e = grow_aligned(m, &m->wts, &m->wts_len, G * nob * CB * per,
			     "convolution weights (NumGroups, Cout, Cin, Common.ConvCfg Kh x Kw) over the "
			     "model's buffer limit (ANEM_BUF_MAX_BYTES)");
	if (e)
		return e;
	for (uint64_t g = 0; cout % CB && g < G; g++) /* each group's last line */
		zero_lanes(m->wts + (g * nob + nob - 1) * per * CB, cout % CB, per);
	m->wts_inf = 0;
	return ENG_OK;
}

/* One output channel's weights (per of them in KernelFmt kfmt, `step` bytes apart in memory)
 * as floats into w at stride CB, fp16 through the MAC's input port; returns whether an fp16 one
 * is infinite or NaN. */
static inline __attribute__((always_inline)) uint16_t
weights_strided(float *w, const uint8_t *p, uint64_t per, uint64_t step, unsigned kfmt)
{
	uint16_t inf = 0;
	for (uint64_t k = 0; k < per; k++, p += step) {
		if (kfmt == H13_KERNELFMT_FP16) {
			uint16_t h = le_rd16(p);
			inf |= (uint16_t)((h & 0x7c00u) == 0x7c00u);
			w[CB * k] = mac_in(h);
		} else {
			w[CB * k] = (float)(int8_t)*p; /* KernelFmt 0 and 1 alike ("Registers") */
		}
	}
	return inf;
}

/* One output channel's fp16 weights, contiguous (little-endian, per of them). */
static uint16_t fp16_weights_plain(float *w, const uint8_t *p, uint64_t per)
{
	return weights_strided(w, p, per, 2, H13_KERNELFMT_FP16);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

/* The MAC's input port on eight little-endian fp16 values at p, for the F16C paths: a subnormal
 * (exponent 0) made +0 before the conversion, as mac_in does; *special is nonzero when one is
 * infinite or NaN (the caller sends those eight through mac_in instead: the same bits). */
__attribute__((target("avx,f16c"))) static inline __m128i port8(const void *p, int *special)
{
	const __m128i ex = _mm_set1_epi16(0x7c00);
	__m128i h = _mm_loadu_si128((const __m128i *)p), e = _mm_and_si128(h, ex);
	*special = _mm_movemask_epi8(_mm_cmpeq_epi16(e, ex));
	return _mm_andnot_si128(_mm_cmpeq_epi16(e, _mm_setzero_si128()), h);
}

/* fp16_weights_plain with F16C, 8 at a time through port8. */
__attribute__((target("avx,f16c"))) static uint16_t fp16_weights_f16c(float *w, const uint8_t *p,
								      uint64_t per)
{
	uint16_t inf = 0;
	uint64_t k = 0;
	for (; k + 8 <= per; k += 8) {
		int special;
		__m128i h = port8(p + 2 * k, &special);
		if (special) {
			inf |= fp16_weights_plain(w + CB * k, p + 2 * k, 8);
			continue;
		}
		float f[8];
		_mm256_storeu_ps(f, _mm256_cvtph_ps(h));
		for (unsigned i = 0; i < 8; i++)
			w[CB * (k + i)] = f[i];
	}
	if (k < per)
		inf |= fp16_weights_plain(w + CB * k, p + 2 * k, per - k);
	return inf;
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* Four output channels' fp16 weights at once (p[j] channel j's, per each) into one packed line
 * (CB = 4: channel j at w + j, k at w + 4k), through port8: eight k of each channel converted,
 * then transposed, so each 8 k leave in four 32-byte stores instead of 32 scalar ones. Returns
 * whether a weight is infinite or NaN. */
__attribute__((target("avx,f16c"))) static uint16_t fp16_weights4_f16c(float *w, const uint8_t *const p[4],
								       uint64_t per)
{
	uint16_t inf = 0;
	uint64_t k = 0;
	for (; k + 8 <= per; k += 8) {
		__m128i h[4];
		int bad = 0;
		for (unsigned j = 0; j < 4; j++) {
			int special;
			h[j] = port8(p[j] + 2 * k, &special);
			bad |= special;
		}
		if (bad) {
			for (unsigned j = 0; j < 4; j++)
				inf |= fp16_weights_plain(w + CB * k + j, p[j] + 2 * k, 8);
			continue;
		}
		__m256 a0 = _mm256_cvtph_ps(h[0]), a1 = _mm256_cvtph_ps(h[1]);
		__m256 a2 = _mm256_cvtph_ps(h[2]), a3 = _mm256_cvtph_ps(h[3]);
		/* t0 = c0k0 c1k0 c0k1 c1k1 | k4 k5, t1 = k2 k3 | k6 k7 (c0, c1); t2, t3 the same of c2, c3;
		 * u0 = c0..c3 at k0 | k4, u1 = k1 | k5, u2 = k2 | k6, u3 = k3 | k7 */
		__m256 t0 = _mm256_unpacklo_ps(a0, a1), t1 = _mm256_unpackhi_ps(a0, a1);
		__m256 t2 = _mm256_unpacklo_ps(a2, a3), t3 = _mm256_unpackhi_ps(a2, a3);
		__m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
		__m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
		float *o = w + CB * k;
		_mm256_storeu_ps(o, _mm256_permute2f128_ps(u0, u1, 0x20));
		_mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(u2, u3, 0x20));
		_mm256_storeu_ps(o + 16, _mm256_permute2f128_ps(u0, u1, 0x31));
		_mm256_storeu_ps(o + 24, _mm256_permute2f128_ps(u2, u3, 0x31));
	}
	if (k < per)
		for (unsigned j = 0; j < 4; j++)
			inf |= fp16_weights_plain(w + CB * k + j, p[j] + 2 * k, per - k);
	return inf;
}
#endif

/* A row of fp16 inputs through the MAC's input port into f; returns 1 when every value is
 * finite. */
static int mac_in_row_plain(float *f, const uint16_t *v, unsigned n)
{
	int fin = 1;
	for (unsigned i = 0; i < n; i++) {
		fin &= (v[i] & 0x7c00u) != 0x7c00u;
		f[i] = mac_in(v[i]);
	}
	return fin;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* mac_in_row_plain with F16C, 8 at a time through port8. */
__attribute__((target("avx,f16c"))) static int mac_in_row_f16c(float *f, const uint16_t *v,
								 unsigned n)
{
	int fin = 1;
	unsigned i = 0;
	for (; i + 8 <= n; i += 8) {
		int special;
		__m128i h = port8(v + i, &special);
		if (special) {
			fin &= mac_in_row_plain(f + i, v + i, 8);
			continue;
		}
		_mm256_storeu_ps(f + i, _mm256_cvtph_ps(h));
	}
	if (i < n)
		fin &= mac_in_row_plain(f + i, v + i, n - i);
	return fin;
}
#endif

static int mac_in_row(float *f, const uint16_t *v, unsigned n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_f16c())
		return mac_in_row_f16c(f, v, n);
#elif defined(ANEM_NEON)
	if (anem_simd) { /* no rounding: FPCR does not matter */
		int fin = 1;
		unsigned i = anem_neon_mac_in_row(f, v, n, &fin);
		return fin & mac_in_row_plain(f + i, v + i, n - i);
	}
#endif
	return mac_in_row_plain(f, v, n);
}

static uint16_t fp16_weights(float *w, const uint8_t *p, uint64_t per)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_f16c())
		return fp16_weights_f16c(w, p, per);
#elif defined(ANEM_NEON)
	if (anem_simd)
		return anem_neon_weights(w, CB, p, per);
#endif
	return fp16_weights_plain(w, p, per);
}

/* The packing of a convolution's fp16 / int8 kernels (load_kernels sets it up): output channels
 * [t nout / tasks, (t + 1) nout / tasks) per task t, each task writing only its own channels'
 * weights and its own inf and bad flags; or one channel line at a time (line_task). */
struct kern_job {
	struct anem *m;
	const struct mrange *ch[H13_COEFF_NCH];
	uint64_t nout;
	unsigned cout;
	uint64_t per, kel; /* taps an output; elements its kernel takes (with a bias, per + 1) */
	unsigned elem, kfmt, tasks;
	unsigned bias;     /* NE.MACCfg.BiasMode: each kernel's element 0 is its output's bias */
	struct td_ocg_lay lay; /* where the kernels lie (td_ocg_layout) */
	const uint8_t *dense; /* phase-sparse kernels decoded (m->dk): output o's at o x kel x 2 */
	uint16_t inf[8];
	uint8_t bad[8];
};

/* Outputs [o, end) packed where wslot puts them, less `base` floats, from dst: the whole of
 * m->wts (base 0), or one channel line's buffer (base its line's wslot). Returns whether a
 * weight is infinite or NaN; *bad when a kernel lies outside its channel. */
static uint16_t pack_outputs(const struct kern_job *j, uint64_t o, uint64_t end, float *dst,
			     uint64_t base, int *bad)
{
	const uint64_t per = j->per;
	const unsigned cout = j->cout, kfmt = j->kfmt;
	uint16_t inf = 0;
	const uint8_t *src[4];
	while (o < end) {
		unsigned n = 1, ch;
		uint64_t off, step = j->elem;
#if defined(ANEM_NEON)
		/* with NEON, four fp16 kernels of one channel line at a time (neon.h) */
		if ((j->dense || j->lay.kind == TD_OCG_MOD16) && kfmt == H13_KERNELFMT_FP16 && anem_simd &&
		    o % cout % 4 == 0 && o % cout + 4 <= cout && o + 4 <= end)
			n = 4;
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
		/* with F16C, the four channels of one packed line (CB = 4) at a time */
		if ((j->dense || j->lay.kind == TD_OCG_MOD16) && kfmt == H13_KERNELFMT_FP16 && cpu_f16c() &&
		    o % cout % CB == 0 && o % cout + CB <= cout && o + CB <= end)
			n = CB;
#endif
		for (unsigned k = 0; k < n; k++) {
			if (j->dense) { /* checked whole when decoded */
				src[k] = j->dense + ((o + k) * j->kel + j->bias) * 2u;
				continue;
			}
			td_ocg_locate(&j->lay, o + k, j->kel, j->elem, &ch, &off, &step);
			const struct mrange *c = j->ch[ch];
			/* the taps, after the bias when there is one */
			off += j->bias * step;
			if (!c || off > c->len || (per - 1) * step + j->elem > c->len - off) {
				*bad = 1;
				return inf;
			}
			src[k] = c->cpu + off;
		}
		const uint8_t *p = src[0];
		float *w = dst + wslot(o, cout, per) - base;
#if defined(ANEM_NEON)
		if (n == 4)
			inf |= anem_neon_weights4(w, CB, src, per);
		else
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
		if (n == CB)
			inf |= fp16_weights4_f16c(w, src, per);
		else
#endif
		if (kfmt == H13_KERNELFMT_FP16 && step == 2u)
			inf |= fp16_weights(w, p, per);
		else
			inf |= weights_strided(w, p, per, step, kfmt);
		o += n;
	}
	return inf;
}

static void kern_task(void *arg, unsigned t)
{
	struct kern_job *j = arg;
	int bad = 0;
	j->inf[t] = pack_outputs(j, j->nout * t / j->tasks, j->nout * (t + 1) / j->tasks, j->m->wts, 0, &bad);
	j->bad[t] = (uint8_t)bad;
}

/* *p sized for n fp16 values (a buffer a program sizes, bounded first; what names it). */
static int grow16(struct anem *m, uint16_t **p, size_t *len, uint64_t n, const char *what)
{
	if (n > ANEM_BUF_MAX_BYTES / 2u)
		return ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, what);
	if (*len >= n)
		return ENG_OK;
	uint16_t *q = realloc(*p, (size_t)n * sizeof *q);
	if (!q)
		return ENG_E_NOMEM;
	*p = q;
	*len = (size_t)n;
	return ENG_OK;
}

#define KB_PAD_TEXT                                                                                    \
	"a nonzero byte between a grouped convolution's kernel block (one group's pass, OCGSize above 0) "  \
	"and the 64-byte line the next group's starts on (Apple's grouped blocks are padded with zeros): " \
	"not the layout pinned"
#define PK_DK_TEXT "phase-sparse kernels decoded (Cout x Cin x Kh x Kw) over the model's buffer limit"
#define PK_PAD_TEXT                                                                                    \
	"a nonzero byte between a grouped convolution's phase-sparse record and the 64-byte line the "   \
	"next starts on (Apple's grouped records are padded with zeros): not the layout pinned"

/*
 * Phase-sparse kernels (NE.KernelCfg.SparseFmt: Apple's H13 stride-2 convolutions; fw/codec's
 * codec_pkern_record, docs/codecs.md "Phase-sparse kernels"): coefficient channel ch holds records
 * back to back, record r for outputs o0 + r ostep .. + pk->g - 1 (those below nout); each decoded
 * into m->dk, output o's kernel at o x kel fp16 (its bias first with pk->bias), zeros where the
 * format skipped a weight. With line64 each record after the first starts on a 64-byte line of
 * the channel, the bytes before it zeros (Apple's grouped convolutions: a nonzero byte there is
 * refused, the layout would not be the one pinned). The caller has sized m->dk for nout x kel
 * values and one record's scratch after them. A malformed record is refused naming the codec's
 * error.
 */
static int pk_channel(struct anem *m, const struct mrange *ch, const struct codec_pkern *pk,
		      uint64_t o0, uint64_t ostep, uint64_t nout, uint64_t kel, int line64)
{
	const uint64_t per = (uint64_t)pk->cin * pk->kh * pk->kw;
	uint16_t *w = m->dk + nout * kel, *b = w + (uint64_t)pk->g * per;
	size_t off = 0;
	for (uint64_t ob = o0; ob < nout; ob += ostep) {
		size_t used = 0;
		if (line64 && ch && off % 64u) { /* to the next line: zeros up to it */
			const size_t next = off + (64u - off % 64u);
			for (; off < next && off < ch->len; off++)
				if (ch->cpu[off])
					return anem_refuse(m, ENG_FR_DATA, ch->kind == TD_R_COEFF ? H13_COEFF_BFRSIZE(ch->ch) : 0,
							   0, 32, PK_PAD_TEXT);
		}
		enum codec_err e = ch ? codec_pkern_record(pk, ch->cpu + off, ch->len - off, w,
							   (size_t)pk->g * per, b, &used)
				      : CODEC_E_NULL;
		if (e == CODEC_E_NULL)
			return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, "an output channel's kernel is not inside its "
						 "coefficient channel");
		if (e)
			return anem_refuse(m, ENG_FR_DATA, ch->kind == TD_R_COEFF ? H13_COEFF_BFRSIZE(ch->ch) : 0, 0, 32,
					   codec_err(e)->desc);
		off += used;
		for (unsigned l = 0; l < pk->g && ob + l < nout; l++) {
			uint8_t *d = (uint8_t *)(void *)(m->dk + (ob + l) * kel);
			if (pk->bias)
				le_wr16(d, b[l]);
			for (uint64_t i = 0; i < per; i++)
				le_wr16(d + (pk->bias + i) * 2u, w[l * per + i]);
		}
	}
	return ENG_OK;
}

/* A phase-sparse record's parameters: a tap's slots are the record's outputs, at least 4 with
 * Common.Cfg.SmallSourceMode, else 2 (docs/codecs.md). */
static int pk_params(struct anem *m, unsigned g, unsigned cin, unsigned kh, unsigned kw, unsigned bias,
		     struct codec_pkern *pk)
{
	/* with SparseFmt: KernelDMASrc +0x00 bit 5, and parameters fw/codec decodes (fw/td
	 * td_pk_params_refusal, which inspect marks) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_pk_params_refusal(&regs, g, cin, kh, kw, bias, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	unsigned lmin = H13_GET(REG(H13_COMMON_CFG), H13_CFG_SMALLSOURCE) ? 4u : 2u;
	*pk = (struct codec_pkern){g, g > lmin ? g : lmin, kh, kw, cin, bias, 0, 0};
	return ENG_OK;
}

/*
 * NE.KernelCfg's fields that would change which kernel is read: GroupKernelReuse (0 in every real
 * convolution) and Align (bit 16) but where align_ok: Apple's compiler sets Align on dense 1x1
 * fp16 kernels without a bias read from a runtime tensor (its batched matmul, OCGSize 0; its
 * attention, OCGSize 2; the macOS linears, OCGSize 3), and those compute with it read as no
 * change to the kernels (docs/engine-model.md, "Kernels from a runtime tensor").
 */
static int kernel_cfg_read(struct anem *m, int align_ok, int binary_ok)
{
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_kernel_cfg_refusal(&regs, align_ok, binary_ok, &no); /* (fw/td, which inspect marks) */
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/*
 * The kernels of every output channel as floats (packed, above), where td_ocg_layout and
 * td_ocg_locate (fw/td) put them: with OCGSize 0, output channel o (counted over all groups) is
 * block o / 16 of coefficient channel o mod 16, a block its kernel rounded up to 64 bytes; with
 * OCGSize k, runs of 2^k outputs a channel a pass of 16 x 2^k, input-major (docs/engine-model.md,
 * "Kernel layout"); any other case is refused. With NE.MACCfg.BiasMode each kernel starts with its
 * output's bias (fp16), read here into m->chv (scale 1, then the biases) for the rows' finish.
 * Checks the layout and that every kernel lies inside its channel, sizes m->wts and sets up the
 * packing (j), which kern_pack, or a one-row convolution's line tasks (batch_lines), then does.
 */
static int load_kernels(struct anem *m, const struct mrange *r, unsigned nr, uint64_t nout,
			unsigned cout, unsigned cin, unsigned kh, unsigned kw, unsigned bias,
			struct kern_job *j)
{
	unsigned kfmt = H13_GET(REG(H13_NE_KERNELCFG), H13_KERNELCFG_KERNELFMT);
	const unsigned sparse = H13_GET(REG(H13_NE_KERNELCFG), H13_KERNELCFG_SPARSEFMT);
	/* NE.KernelCfg (kernel_cfg_read's, Align with dense 1x1 fp16 kernels and no bias), PalettizedEn,
	 * KernelFmt 3, a bias before one-byte kernels (fw/td td_dense_kernels_refusal, which inspect
	 * marks; kh, kw and bias are the registers' window and BiasMode) */
	{
		const struct td_regs regs = {kept_get, m};
		struct td_refusal no = {0};
		td_dense_kernels_refusal(&regs, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	unsigned elem = kfmt == H13_KERNELFMT_FP16 ? 2u : 1u;
	uint64_t per = (uint64_t)cin * kh * kw;
	const struct td_regs regs = {kept_get, m};
	*j = (struct kern_job){m, {0}, nout, cout, per, per + bias, elem, kfmt, 0, bias,
			       td_ocg_layout(REG(H13_COMMON_CONVCFG), nout, cout, td_coeff_mask(&regs)), NULL,
			       {0}, {0}};
	for (unsigned i = 0; i < nr; i++)
		if (r[i].kind == TD_R_COEFF && r[i].ch < H13_COEFF_NCH)
			j->ch[r[i].ch] = &r[i];
	/* KernelFmt 1: the register map names it uint8, but Apple's H13 less programs (its kernel
	 * bytes 0x01, 0xff, then a [v < 0] step: less_bool_cast_1x375, less_bool_rr_1x64x1x1 and
	 * _375x1x1) compute less only if 0xff is -1; its bytes are read signed, as KernelFmt 0's
	 * (docs/engine-model.md, "Registers"; weights_strided) */
	/* a layout not pinned, or not reading exactly the channels enabled (fw/td td_ocg_refusal,
	 * which inspect marks too) */
	struct td_refusal no = {0};
	td_ocg_refusal(&j->lay, &no);
	td_kernel_bytes_refusal(&regs, &j->lay, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	struct codec_pkern pk;
	int e = pk_params(m, j->lay.g, cin, kh, kw, bias, &pk);
	/* several groups: OCGSize 0's one output a record (Apple's grouped 3x3 stride 2, 4 x 16 -> 16:
	 * output o, over NumGroups x Cout, is record o / 16 of channel o mod 16), or with OCGSize k a
	 * record of 2^k outputs a group in each channel, each group one whole pass (td_ocg_layout's
	 * line: Apple's 4 x 16 -> 64 with OCGSize 2); each record on its own 64-byte line, its body
	 * over the group's Cin */
	/* fp16 only, in the layouts that pin the records (fw/td td_pkern_refusal, which inspect
	 * marks too) */
	if (!e && sparse) {
		td_pkern_refusal(&regs, &j->lay, nout, cout, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	/* decoded whole (records back to back: channel c's for outputs c g + pass x 16 g; over
	 * several groups each on a 64-byte line) */
	if (!e && sparse &&
	    !(e = grow16(m, &m->dk, &m->dk_len, nout * j->kel + (uint64_t)pk.g * (per + 1u), PK_DK_TEXT))) {
		for (unsigned c = 0; !e && c < H13_COEFF_NCH; c++)
			e = pk_channel(m, j->ch[c], &pk, (uint64_t)c * pk.g, (uint64_t)H13_COEFF_NCH * pk.g,
				       nout, j->kel, nout != cout);
		j->dense = (const uint8_t *)(const void *)m->dk;
	}
	/* every kernel inside its coefficient channel before the weights are sized; the biases */
	if (!e && bias)
		e = grow(m, &m->chv, &m->chv_len, 2 * nout, "per-channel biases (NumGroups x Cout) over the "
							    "model's buffer limit");
	if (e)
		return e;
	if (!j->dense) { /* (fw/td td_kernels_inside_refusal, which inspect marks: the channels' lengths
			  * are CoeffBfrSize, td_ranges's) */
		uint64_t len[H13_COEFF_NCH];
		for (unsigned c = 0; c < H13_COEFF_NCH; c++)
			len[c] = j->ch[c] ? j->ch[c]->len : 0u;
		td_kernels_inside_refusal(&regs, &j->lay, nout, j->kel, len, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	for (uint64_t o = 0; o < nout; o++) {
		unsigned ch;
		uint64_t off, step;
		const uint8_t *k0 = j->dense ? j->dense + o * j->kel * 2u : NULL;
		if (!k0) {
			td_ocg_locate(&j->lay, o, j->kel, elem, &ch, &off, &step);
			const struct mrange *c = j->ch[ch];
			if (!c || off > c->len || (j->kel - 1) * step + elem > c->len - off)
				return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, "an output channel's kernel is not inside its coefficient channel");
			k0 = c->cpu + off;
		}
		if (bias) { /* through the MAC's input port, as a weight */
			m->chv[o] = 1.0f;
			m->chv[nout + o] = mac_in(le_rd16(k0));
		}
	}
	/* in runs every channel holds full x g + tail kernels, with OCGSize 0 its blocks: a channel
	 * longer than those (rounded up to 64 bytes, as every real one is: Apple's 0xc040 for 6 x 4097
	 * fp16; each 64-byte block with OCGSize 0, its grouped 3x3's 4 x 320 bytes) holds bytes the
	 * layout leaves unread, so the sizes disagree with it (phase-sparse records have their own
	 * sizes) */
	if ((j->lay.kind == TD_OCG_RUNS || j->lay.kind == TD_OCG_MOD16) && !j->dense) {
		/* (over several groups each group's block padded to 64 bytes: td_ocg_layout's line) */
		uint64_t blk = j->lay.g * j->kel * elem;
		if (j->lay.line)
			blk = (blk + 63u) & ~(uint64_t)63u;
		/* (fw/td td_coeff_sizes_refusal, which inspect marks on the channels' CoeffBfrSize, the
		 * lengths td_ranges gives their ranges) */
		uint64_t len[H13_COEFF_NCH];
		for (unsigned c = 0; c < H13_COEFF_NCH; c++)
			len[c] = j->ch[c] ? j->ch[c]->len : 0u;
		td_coeff_sizes_refusal(&regs, &j->lay, nout, j->kel, len, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
		/* between one group's block and the next group's line: zeros (Apple's are); a nonzero
		 * byte there is a layout other than the one pinned (the blocks back to back, say) */
		const uint64_t used = j->lay.g * j->kel * elem;
		for (unsigned c = 0; j->lay.line && c < H13_COEFF_NCH; c++)
			for (uint64_t p = 0; j->ch[c] && p < j->lay.full; p++)
				for (uint64_t b = p * blk + used; b < (p + 1u) * blk && b < j->ch[c]->len; b++)
					if (j->ch[c]->cpu[b])
						return anem_refuse(m, ENG_FR_DATA, H13_COEFF_BFRSIZE(c), 0, 32,
								   KB_PAD_TEXT);
	}
	return grow_weights(m, nout, cout, per);
}

/* Every kernel packed into m->wts (load_kernels' job j); m->wts_inf set. */
static int kern_pack(struct anem *m, struct kern_job *j)
{
	const uint64_t nout = j->nout, per = j->per;
	/* with threads, from 2^16 weights, one task of consecutive whole output channels a thread
	 * (at most 8), as conv_kernels splits the channel lines: each thread then mostly reads the
	 * weights it packed. Each task packs its own channels: the same floats whatever the split. */
	unsigned nw = hal_workers(), tasks = 1;
	if (nw > 1 && nout > 1 && nout * per >= (1u << 16))
		tasks = nout < nw ? (unsigned)nout : nw < 8 ? nw : 8u;
	j->tasks = tasks;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	(void)cpu_features(); /* read once before any thread asks */
#endif
	if (tasks == 1)
		kern_task(j, 0);
	else
		model_parallel(tasks, kern_task, j);
	for (unsigned t = 0; t < tasks; t++) {
		if (j->bad[t])
			return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, "an output channel's kernel is not inside its coefficient channel");
		m->wts_inf |= j->inf[t];
	}
	return ENG_OK;
}

static const struct mrange *find_range(const struct mrange *r, unsigned nr, unsigned kind,
				       unsigned ch)
{
	for (unsigned i = 0; i < nr; i++)
		if (r[i].kind == kind && r[i].ch == ch)
			return &r[i];
	return NULL;
}

/*
 * The kernels of a TD whose weights are a kernel unit's OCG (docs/engine-model.md, "Kernels from
 * the kernel unit"): coefficient channel 0 is the OCG, N = G x Cout output channels of S = its
 * length / N bytes each. NE.KernelCfg says how each channel's kernel (Cin x Kh x Kw values, ci, ky,
 * kx order) is stored: palettized (PalettizedBits-bit indices at o x S, decoded with fw/codec's
 * codec_palette_decode and the palette stream's codebook), sparse (the OCG's masks first,
 * ceil(per / 8) bytes each at o x M; then its values, popcount fp16 each at N x M + o x (S - M),
 * decoded with codec_sparse_decode), or dense in KernelFmt at o x S (fp16, which is also what
 * the firmware folded int8 weights to).
 */
static int load_kernels_ku(struct anem *m, const struct mrange *r, unsigned nr, uint64_t nout,
			   unsigned cout, unsigned cin, unsigned kh, unsigned kw)
{
	uint32_t kc = REG(H13_NE_KERNELCFG);
	unsigned kfmt = H13_GET(kc, H13_KERNELCFG_KERNELFMT);
	/* kernel_cfg_read's (Align: the unit's kernels are the program's own), OCGSize 0 (the
	 * firmware's kernel-unit TDs hold their OCG whole in channel 0), palettized or sparse only fp16
	 * and not both (fw/td td_ku_kernels_refusal, which inspect marks) */
	/* (and channel 0 one OCG of the outputs, at least a bit of it a weight: unreadable weights
	 * the registers decide, which inspect marks too; c0's length is CoeffBfrSize, td_ranges's) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	const struct mrange *c0 = find_range(r, nr, TD_R_COEFF, 0);
	uint64_t per = (uint64_t)cin * kh * kw;
	td_ku_kernels_refusal(&regs, nout, per, c0 ? c0->len : 0u, 0, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	unsigned pal = H13_GET(kc, H13_KERNELCFG_PALETTIZEDEN), bits = H13_GET(kc, H13_KERNELCFG_PALETTIZEDBITS);
	unsigned sparse = H13_GET(kc, H13_KERNELCFG_SPARSEFMT);
	uint64_t S = c0->len / nout;
	int e = grow_weights(m, nout, cout, per);
	if (e)
		return e;
	if (m->kh_len < per) {
		uint16_t *q = realloc(m->kh, (size_t)per * sizeof *q);
		if (!q)
			return ENG_E_NOMEM;
		m->kh = q;
		m->kh_len = (size_t)per;
	}
	uint16_t lut[256];
	const struct codec_palette cp = {bits, 1, 1};
	if (pal) {
		const struct mrange *ps = find_range(r, nr, TD_R_STREAM, H13_KSTREAM_PALETTE);
		td_ku_kernels_refusal(&regs, nout, per, c0->len, 1, &no); /* (its width: fw/td) */
		if (no.why)
			return td_refusal_fault(m, &no);
		if (!ps || ps->len != 2ull << bits)
			return anem_refuse(m, ENG_FR_DATA, H13_KSTREAM_RELOC(H13_KSTREAM_PALETTE), 0, 32, "the palette stream is not one codebook of 2^PalettizedBits fp16");
		int de = anem_dma_move(m, m->row[0], ps->cpu, (uint32_t)ps->len);
		if (de)
			return de;
		for (unsigned j = 0; j < (1u << bits); j++)
			lut[j] = le_rd16(m->row[0] + 2 * j);
	}
	/* the sparse masks inside the OCG, a kernel's palette indices or weights inside its OCG
	 * channel, KernelFmt 3 (fw/td td_ku_kernels_refusal's last stage, which inspect marks: every
	 * output's the same sizes) */
	td_ku_kernels_refusal(&regs, nout, per, c0->len, 2, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	uint64_t M = (per + 7) / 8;
	for (uint64_t o = 0; o < nout; o++) {
		const uint8_t *p = c0->cpu + o * S;
		uint16_t *k = m->kh;
		enum codec_err ce = CODEC_OK;
		if (pal) {
			uint64_t ib = (per * bits + 7) / 8;
			ce = codec_palette_decode(&cp, p, (size_t)ib, lut, 1u << bits, k, (size_t)per);
		} else if (sparse) {
			const uint8_t *mask = c0->cpu + o * M;
			const uint8_t *vals = c0->cpu + nout * M + o * (S - M);
			uint64_t nv = 0;
			for (uint64_t b = 0; b < M; b++)
				nv += (unsigned)__builtin_popcount(mask[b]);
			if (2 * nv > S - M)
				return anem_refuse(m, ENG_FR_DATA, H13_COEFF_BFRSIZE(0), 0, 32, "sparse values larger than an OCG channel");
			/* the packed values, read little-endian into the decoder's input */
			if (nv > ANEM_ROW_MAX)
				return ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, "more sparse values than the model's row");
			for (uint64_t j = 0; j < nv; j++)
				m->hv[j] = le_rd16(vals + 2 * j);
			ce = codec_sparse_decode(mask, (size_t)M, m->hv, (size_t)nv, k, (size_t)per);
		} else {
			for (uint64_t j = 0; j < per; j++)
				k[j] = kfmt == H13_KERNELFMT_FP16 ? le_rd16(p + 2 * j)
				       : f2h((float)(int8_t)p[j]); /* KernelFmt 0 and 1 alike */
		}
		if (ce != CODEC_OK)
			return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, codec_strerror(ce));
		float *w = m->wts + wslot(o, cout, per);
		for (uint64_t j = 0; j < per; j++) {
			m->wts_inf |= (k[j] & 0x7c00u) == 0x7c00u;
			w[CB * j] = mac_in(k[j]);
		}
	}
	return ENG_OK;
}

/* The per-channel post-scale and bias of a kernel-unit TD: N values from the start of each
 * stream (fp16, or fp32 when the unit's section type is 4); 1 and 0 without the stream. */
static int load_channel_vectors(struct anem *m, const struct mrange *r, unsigned nr, uint64_t nout)
{
	int e = grow(m, &m->chv, &m->chv_len, 2 * nout, "per-channel scale and bias (NumGroups x Cout) over the model's buffer limit");
	if (e)
		return e;
	static const unsigned stream[2] = {H13_KSTREAM_POSTSCALE, H13_KSTREAM_BIAS};
	for (unsigned v = 0; v < 2; v++) {
		float *dst = m->chv + v * nout;
		const struct mrange *x = find_range(r, nr, TD_R_STREAM, stream[v]);
		if (!x) {
			for (uint64_t o = 0; o < nout; o++)
				dst[o] = v ? 0.0f : 1.0f;
			continue;
		}
		unsigned wide = m->ku.sec[ku_stream_section[stream[v]]].type == 4;
		uint64_t need = nout * (wide ? 4u : 2u);
		if (x->len < need)
			return anem_refuse(m, ENG_FR_DATA, H13_KSTREAM_RELOC(stream[v]), 0, 32, "a per-channel stream shorter than the TD's output channels");
		for (uint64_t o = 0; o < nout; o++) {
			if (wide) {
				dst[o] = u2f(le_rd32(x->cpu + 4 * o));
			} else {
				dst[o] = h2f_table[le_rd16(x->cpu + 2 * o)];
			}
			/* (the eighth review: the port value was NaN, every output of the channel +0) */
			if (dst[o] != dst[o])
				return anem_refuse(m, ENG_FR_DATA, H13_KSTREAM_RELOC(stream[v]), 0, 32,
						   "a kernel unit's per-channel scale or bias that is NaN not modelled "
						   "(guide 03 makes a NaN +inf where the tiles enter; how the "
						   "kernel unit's streams read one is not measured, and no "
						   "program holds one)");
		}
	}
	return ENG_OK;
}

/*
 * The fast convolution: a register-blocked matrix multiply. Per group and output row, the inputs
 * are laid out as K = Cin x Kh x Kw lines of XB-padded positions ("columns": line (ci, ky, kx)
 * holds in[ci][y Sy - Py + ky][x Sx - Px + kx] for every x, 0 outside the input), the weights as
 * CB-channel lines (m->wts: [G x ceil(Cout / CB)][K][CB], 0 past Cout), and a micro-kernel keeps
 * a block of channels x positions of fp32 accumulators in registers while it runs over k in
 * order. Each output's sum is therefore the same sequence of additions, in the same order
 * (ci, ky, kx), as the plain loop below: the extra terms (0 weights past Cout, 0 inputs
 * outside the input, and the 0 weights the plain loop skips) add a signed zero, which leaves an
 * fp32 sum unchanged (the sum starts at +0 and never becomes -0), as long as every weight and
 * every input is finite (0 x inf is NaN); so it is used only then, the plain loop otherwise.
 * Products of fp16 values are exact in fp32, so a fused multiply-add rounds the same as a
 * multiply and an add.
 */
typedef float v4f __attribute__((vector_size(16)));

/* positions per block: 8 (x86-64: SSE's 4 x 8, AVX2's 4 x 24, 4 x 16 and 4 x 8; aarch64:
 * NEON's 12 x 8) */
#define XB 8u

/* The portable micro-kernel: 4 channels (their weights at w, w + ws, ...: lines of ws floats) x
 * 8 positions. */
static void micro_kernel(const float *restrict w, uint64_t ws, const float *restrict b, uint64_t K,
			 uint64_t bs, float *restrict c, uint64_t cs)
{
	w = __builtin_assume_aligned(w, 16);
	b = __builtin_assume_aligned(b, 16);
	c = __builtin_assume_aligned(c, 16);
	v4f a00 = {0}, a01 = {0}, a10 = {0}, a11 = {0}, a20 = {0}, a21 = {0}, a30 = {0}, a31 = {0};
#if XB == 16
	v4f a02 = {0}, a03 = {0}, a12 = {0}, a13 = {0}, a22 = {0}, a23 = {0}, a32 = {0}, a33 = {0};
#endif
	/* k in order; the loop ends on the weight pointer (no separate counter: 22 instructions
	 * per 64 MACs on the target) */
	for (const float *we = w + ws * K; w < we; w += ws, b += bs) {
		v4f wv = *(const v4f *)w;
		v4f b0 = *(const v4f *)b, b1 = *(const v4f *)(b + 4);
		a00 += wv[0] * b0;
		a01 += wv[0] * b1;
		a10 += wv[1] * b0;
		a11 += wv[1] * b1;
		a20 += wv[2] * b0;
		a21 += wv[2] * b1;
		a30 += wv[3] * b0;
		a31 += wv[3] * b1;
#if XB == 16
		v4f b2 = *(const v4f *)(b + 8), b3 = *(const v4f *)(b + 12);
		a02 += wv[0] * b2;
		a03 += wv[0] * b3;
		a12 += wv[1] * b2;
		a13 += wv[1] * b3;
		a22 += wv[2] * b2;
		a23 += wv[2] * b3;
		a32 += wv[3] * b2;
		a33 += wv[3] * b3;
#endif
	}
	v4f *c0 = (v4f *)c, *c1 = (v4f *)(c + cs), *c2 = (v4f *)(c + 2 * cs), *c3 = (v4f *)(c + 3 * cs);
	c0[0] = a00; c0[1] = a01; c1[0] = a10; c1[1] = a11;
	c2[0] = a20; c2[1] = a21; c3[0] = a30; c3[1] = a31;
#if XB == 16
	c0[2] = a02; c0[3] = a03; c1[2] = a12; c1[3] = a13;
	c2[2] = a22; c2[3] = a23; c3[2] = a32; c3[3] = a33;
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * AVX2 with FMA, chosen at run time (cpu_avx2): 4 channels x 24 positions in 12 of the 16 ymm
 * registers (and 4 x 8 for the last block of a row). The same sums in the same order over k
 * as micro_kernel: the fused multiply-add rounds as the multiply and add do because every
 * product of two fp16 values is exact in fp32.
 */
#define CONV_AVX2 __attribute__((target("avx2,fma")))
typedef float v8f __attribute__((vector_size(32)));
typedef float v8fu __attribute__((vector_size(32), aligned(4))); /* any 4-byte alignment */

static CONV_AVX2 void micro_kernel_avx24(const float *restrict w, const float *restrict b,
					 uint64_t K, uint64_t bs, float *restrict c, uint64_t cs)
{
	v8f a00 = {0}, a01 = {0}, a02 = {0}, a10 = {0}, a11 = {0}, a12 = {0};
	v8f a20 = {0}, a21 = {0}, a22 = {0}, a30 = {0}, a31 = {0}, a32 = {0};
	for (uint64_t k = 0; k < K; k++, w += 4, b += bs) {
		v8f b0 = *(const v8fu *)b, b1 = *(const v8fu *)(b + 8), b2 = *(const v8fu *)(b + 16);
		float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
		a00 += w0 * b0;
		a01 += w0 * b1;
		a02 += w0 * b2;
		a10 += w1 * b0;
		a11 += w1 * b1;
		a12 += w1 * b2;
		a20 += w2 * b0;
		a21 += w2 * b1;
		a22 += w2 * b2;
		a30 += w3 * b0;
		a31 += w3 * b1;
		a32 += w3 * b2;
	}
	v8fu *c0 = (v8fu *)c, *c1 = (v8fu *)(c + cs), *c2 = (v8fu *)(c + 2 * cs), *c3 = (v8fu *)(c + 3 * cs);
	c0[0] = a00; c0[1] = a01; c0[2] = a02;
	c1[0] = a10; c1[1] = a11; c1[2] = a12;
	c2[0] = a20; c2[1] = a21; c2[2] = a22;
	c3[0] = a30; c3[1] = a31; c3[2] = a32;
}

static CONV_AVX2 void micro_kernel_avx16(const float *restrict w, const float *restrict b,
					 uint64_t K, uint64_t bs, float *restrict c, uint64_t cs)
{
	v8f a00 = {0}, a01 = {0}, a10 = {0}, a11 = {0}, a20 = {0}, a21 = {0}, a30 = {0}, a31 = {0};
	for (uint64_t k = 0; k < K; k++, w += 4, b += bs) {
		v8f b0 = *(const v8fu *)b, b1 = *(const v8fu *)(b + 8);
		float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
		a00 += w0 * b0;
		a01 += w0 * b1;
		a10 += w1 * b0;
		a11 += w1 * b1;
		a20 += w2 * b0;
		a21 += w2 * b1;
		a30 += w3 * b0;
		a31 += w3 * b1;
	}
	v8fu *c0 = (v8fu *)c, *c1 = (v8fu *)(c + cs), *c2 = (v8fu *)(c + 2 * cs), *c3 = (v8fu *)(c + 3 * cs);
	c0[0] = a00; c0[1] = a01;
	c1[0] = a10; c1[1] = a11;
	c2[0] = a20; c2[1] = a21;
	c3[0] = a30; c3[1] = a31;
}

static CONV_AVX2 void micro_kernel_avx8(const float *restrict w, const float *restrict b,
					uint64_t K, uint64_t bs, float *restrict c, uint64_t cs)
{
	v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
	for (uint64_t k = 0; k < K; k++, w += 4, b += bs) {
		v8f b0 = *(const v8fu *)b;
		a0 += w[0] * b0;
		a1 += w[1] * b0;
		a2 += w[2] * b0;
		a3 += w[3] * b0;
	}
	*(v8fu *)c = a0;
	*(v8fu *)(c + cs) = a1;
	*(v8fu *)(c + 2 * cs) = a2;
	*(v8fu *)(c + 3 * cs) = a3;
}

static int cpu_avx2(void)
{
	return (cpu_features() & 2u) && anem_simd;
}

/*
 * AVX-512F, chosen at run time (cpu_avx512, anem_simd 2): 4 channels x 16 nv positions in 4 nv
 * of the 32 zmm registers, nv 1..4; the last vector's loads and stores masked to its first 8
 * lanes when the block ends 8 past a multiple of 16 (a masked-off lane is neither read nor
 * written). Each lane sums over k in the same order as micro_kernel, with the same fused
 * multiply-add, so every width gives the same bits as the AVX2 and portable kernels. One
 * always-inline body, instantiated for each nv, so that every accumulator stays in a register.
 */
#define CONV_AVX512 __attribute__((target("avx512f")))

static CONV_AVX512 inline __attribute__((always_inline)) __m512 mk512_load(const float *p, unsigned v,
									   unsigned nv, __mmask16 last)
{
	return v + 1 < nv ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(last, p);
}

static CONV_AVX512 inline __attribute__((always_inline)) void mk512_store(float *p, __m512 a, unsigned v,
									  unsigned nv, __mmask16 last)
{
	if (v + 1 < nv)
		_mm512_storeu_ps(p, a);
	else
		_mm512_mask_storeu_ps(p, last, a);
}

/* One vector of positions b times the 4 channels' weights into their accumulators (inlined: the
 * accumulators stay in registers). */
static CONV_AVX512 inline __attribute__((always_inline)) void
mk512_fma4(__m512 b, __m512 w0, __m512 w1, __m512 w2, __m512 w3, __m512 *a0, __m512 *a1, __m512 *a2,
	   __m512 *a3)
{
	*a0 = _mm512_fmadd_ps(w0, b, *a0);
	*a1 = _mm512_fmadd_ps(w1, b, *a1);
	*a2 = _mm512_fmadd_ps(w2, b, *a2);
	*a3 = _mm512_fmadd_ps(w3, b, *a3);
}

static CONV_AVX512 inline __attribute__((always_inline)) void
micro_kernel_avx512(const float *restrict w, const float *restrict b, uint64_t K, uint64_t bs,
		    float *restrict c, uint64_t cs, const unsigned nv, __mmask16 last)
{
	const __m512 z = _mm512_setzero_ps();
	__m512 a00 = z, a01 = z, a02 = z, a03 = z, a10 = z, a11 = z, a12 = z, a13 = z;
	__m512 a20 = z, a21 = z, a22 = z, a23 = z, a30 = z, a31 = z, a32 = z, a33 = z;
	for (uint64_t k = 0; k < K; k++, w += 4, b += bs) {
		__m512 b0 = mk512_load(b, 0, nv, last), b1 = z, b2 = z, b3 = z;
		if (nv > 1)
			b1 = mk512_load(b + 16, 1, nv, last);
		if (nv > 2)
			b2 = mk512_load(b + 32, 2, nv, last);
		if (nv > 3)
			b3 = mk512_load(b + 48, 3, nv, last);
		__m512 w0 = _mm512_set1_ps(w[0]), w1 = _mm512_set1_ps(w[1]);
		__m512 w2 = _mm512_set1_ps(w[2]), w3 = _mm512_set1_ps(w[3]);
		mk512_fma4(b0, w0, w1, w2, w3, &a00, &a10, &a20, &a30);
		if (nv > 1)
			mk512_fma4(b1, w0, w1, w2, w3, &a01, &a11, &a21, &a31);
		if (nv > 2)
			mk512_fma4(b2, w0, w1, w2, w3, &a02, &a12, &a22, &a32);
		if (nv > 3)
			mk512_fma4(b3, w0, w1, w2, w3, &a03, &a13, &a23, &a33);
	}
	const __m512 r[4][4] = {{a00, a01, a02, a03}, {a10, a11, a12, a13},
				{a20, a21, a22, a23}, {a30, a31, a32, a33}};
	for (unsigned i = 0; i < 4; i++)
		for (unsigned v = 0; v < nv; v++)
			mk512_store(c + i * cs + 16u * v, r[i][v], v, nv, last);
}

#define MK512(nv)                                                                                  \
	static CONV_AVX512 void micro_kernel_avx512_##nv(const float *restrict w, const float *restrict b, \
							 uint64_t K, uint64_t bs, float *restrict c, \
							 uint64_t cs, __mmask16 last)                 \
	{                                                                                          \
		micro_kernel_avx512(w, b, K, bs, c, cs, nv, last);                                \
	}
MK512(1)
MK512(2)
MK512(3)
MK512(4)

static int cpu_avx512(void)
{
	return (cpu_features() & 4u) && anem_simd >= 2;
}
#endif

const char *anem_conv_kernels(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_avx512())
		return "AVX-512F";
	if (cpu_avx2())
		return "AVX2/FMA";
#endif
#if defined(ANEM_NEON)
	if (anem_simd)
		return "NEON";
#endif
	return "portable";
}

/* One CB-channel line of weights (wp: K x CB) over a row's columns (as positions, a multiple
 * of XB) into CB accumulator lines at stride as. */
static void micro_row(const float *wp, const float *cols, uint64_t K, uint64_t as, float *acc)
{
	uint64_t x = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_avx512()) {
		/* blocks of 48, the last 64 or fewer in one (as is a multiple of 8) */
		while (x < as) {
			uint64_t left = as - x, n = left > 64 ? 48 : left;
			__mmask16 last = n % 16u ? (__mmask16)0x00ffu : (__mmask16)0xffffu;
			const float *b = cols + x;
			float *c = acc + x;
			switch ((n + 15u) / 16u) {
			case 1: micro_kernel_avx512_1(wp, b, K, as, c, as, last); break;
			case 2: micro_kernel_avx512_2(wp, b, K, as, c, as, last); break;
			case 3: micro_kernel_avx512_3(wp, b, K, as, c, as, last); break;
			default: micro_kernel_avx512_4(wp, b, K, as, c, as, last); break;
			}
			x += n;
		}
		return;
	}
	if (cpu_avx2()) {
		/* blocks of 24, the last 32 as two of 16 (4 x 8 keeps too few sums in flight) */
		while (x < as) {
			uint64_t left = as - x, n = left == 8 ? 8 : left == 16 || left == 32 ? 16 : 24;
			if (n == 24)
				micro_kernel_avx24(wp, cols + x, K, as, acc + x, as);
			else if (n == 16)
				micro_kernel_avx16(wp, cols + x, K, as, acc + x, as);
			else
				micro_kernel_avx8(wp, cols + x, K, as, acc + x, as);
			x += n;
		}
		return;
	}
#endif
#if defined(ANEM_NEON)
	if (anem_simd) {
		for (; x < as; x += XB)
			anem_neon_mk12x8(wp, cols + x, K, as, acc + x, as);
		return;
	}
#endif
	for (; x < as; x += XB)
		for (unsigned j = 0; j < CB; j += 4)
			micro_kernel(wp + j, CB, cols + x, K, as, acc + j * as + x, as);
}

/* The micro-kernels of a batch of output rows, as items (row, channel line) in order, split
 * into tasks of consecutive items for hal_parallel: each task writes only its own accumulator
 * lines, so the result is the same whatever the number of threads. */
struct conv_job {
	const float *wp, *cols; /* the group's weights; row r's columns at r x per x as */
	float *acc;             /* row r's accumulators at r x nob x CB x as */
	uint64_t per, as, nob, tasks;
	unsigned rows[16], nrows; /* the rows to compute */
};

/* Task i of n: items [total i / n, total (i + 1) / n), sizes differing by one at most (a fixed
 * share a thread, as on the target's cores, comes out even); item k is channel line k mod nob
 * of row rows[k / nob]. */
static void conv_task(void *arg, unsigned i)
{
	const struct conv_job *j = arg;
	uint64_t total = (uint64_t)j->nrows * j->nob;
	uint64_t k = total * i / j->tasks, end = total * (i + 1) / j->tasks;
	for (; k < end; k++) {
		uint64_t r = j->rows[k / j->nob], ob = k % j->nob;
		micro_row(j->wp + ob * j->per * CB, j->cols + r * j->per * j->as, j->per, j->as,
			  j->acc + (r * j->nob + ob) * CB * j->as);
	}
}

static int aligned16(const void *p)
{
	return ((uintptr_t)p & 15u) == 0;
}

/* grow() for the fast path's buffers: on whole cache lines, the contents not kept. */
static int grow_aligned(struct anem *m, float **p, size_t *len, uint64_t n, const char *what)
{
	if (buf_over(m, n, what))
		return ENG_E_FAULT;
	n = (n + ANEM_LINE_FLOATS - 1) & ~(uint64_t)(ANEM_LINE_FLOATS - 1); /* whole lines */
	if (*len >= n)
		return ENG_OK;
	free(*p);
	*p = NULL;
	*len = 0;
	void *q = memalign(ANEM_LINE_FLOATS * sizeof(float), (size_t)n * sizeof(float));
	if (!q)
		return ENG_E_NOMEM;
	*p = q;
	*len = (size_t)n;
	return ENG_OK;
}

/* A row of accumulators to fp16 at the MAC's output port: (a x ps + b) x post with the
 * kernel unit's channel vectors (ku), a x post without, rounded, then the 2^15 saturation. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static PE_AVX void conv_out_row_avx(uint16_t *v, const float *a, unsigned n, int ku, float ps,
				    float b, float post, int taps2)
{
	const __m256 vps = _mm256_set1_ps(ps), vb = _mm256_set1_ps(b), vp = _mm256_set1_ps(post);
	const __m128i mag = _mm_set1_epi16(0x7fff), lo = _mm_set1_epi16(0x77ff);
	const __m128i inf = _mm_set1_epi16(0x7c00), sgn = _mm_set1_epi16((short)0x8000);
	unsigned i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 r = _mm256_loadu_ps(a + i);
		if (ku)
			r = _mm256_add_ps(_mm256_mul_ps(r, vps), vb);
		r = _mm256_mul_ps(r, vp);
		r = _mm256_andnot_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q), r); /* NaN: +0 */
		__m128i h = _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
		if (taps2) { /* mac_out: 0x7800 <= |h| < 0x7c00 becomes infinity of its sign */
			__m128i m = _mm_and_si128(h, mag);
			__m128i sat = _mm_and_si128(_mm_cmpgt_epi16(m, lo), _mm_cmpgt_epi16(inf, m));
			h = _mm_or_si128(_mm_andnot_si128(sat, h),
					 _mm_and_si128(sat, _mm_or_si128(_mm_and_si128(h, sgn), inf)));
		}
		_mm_storeu_si128((__m128i *)(void *)(v + i), h);
	}
	for (; i < n; i++)
		v[i] = mac_out(f2h(ku ? (a[i] * ps + b) * post : a[i] * post), taps2);
}
#endif

/*
 * A kernel unit's per-channel scale times a sum at the port, the product alone: 0 x inf is +0
 * (guide 03, "the zero times infinity case returns positive zero"), then the bias is added to
 * it, so a scale of 0 over an infinite sum (or an infinite scale over a sum of 0) leaves the
 * channel's bias (the eighth review: the whole port value was NaN, +0, and the bias lost). A NaN
 * sum (inf - inf between partials) stays NaN, as before.
 */
static inline float ku_product(float a, float ps)
{
	const float p = a * ps;
	return p != p && a == a && ps == ps ? 0.0f : p;
}

static void conv_out_row(uint16_t *v, const float *a, unsigned n, int ku, float ps, float b,
			 float post, int taps2)
{
	unsigned x = 0;
	if (ku && (ps == 0.0f || __builtin_isinf(ps))) { /* (0 x inf possible: ku_product) */
		for (; x < n; x++)
			v[x] = mac_out(f2h((ku_product(a[x], ps) + b) * post), taps2);
		return;
	}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_f16c() && sse_ok()) {
		conv_out_row_avx(v, a, n, ku, ps, b, post, taps2);
		return;
	}
#elif defined(ANEM_NEON)
	if (pe_neon())
		x = anem_neon_conv_out_row(v, a, n, ku, ps, b, post, taps2);
#endif
	if (ku)
		for (; x < n; x++)
			v[x] = mac_out(f2h((a[x] * ps + b) * post), taps2);
	else
		for (; x < n; x++)
			v[x] = mac_out(f2h(a[x] * post), taps2);
}

/* A convolution's shape, its weights' layout and how its rows are batched (convolution()). */
struct conv {
	unsigned kw, kh, sx, sy, px, py;
	unsigned G, cin, cout, W, Win, Hin;
	uint64_t per, as, nob;  /* K = Cin Kh Kw; positions rounded up to XB; channel lines */
	unsigned R;             /* output rows per batch (more than 1 only with threads) */
	unsigned nt;            /* rows on threads: buffers for nt threads (conv_plan) */
	int rows;               /* rows on threads (batch_rows) */
	int fast, ku, taps2;
	int fin[16];            /* per row of the batch: every input finite */
	uint64_t fbs;           /* a thread's (a row's) scratch row: Win floats in whole cache lines */
	int cv;                 /* each output's scale and bias from m->chv (the kernel unit's
				 * vectors, or NE.MACCfg.BiasMode's biases) */
	/* the partial-sum port's layer-wide bound (row_port): the largest Σ|w| of an output, the
	 * smallest |acc| that can reach 2^15 at an output's port */
	float wabs, pfloor;
	float pfloor1;          /* port_floor without per-channel vectors (every output's then) */
	float post;             /* NE.PostScale (the port's last factor) */
	int brow;               /* the bias is the reduction's first row (BiasMode's, NE.AccBias):
				 * the first partial, the bias alone, meets the port too (bias_row) */
};

/* A NaN among a TD's weights or kernel biases, the MAC's operands (NE.MACCfg.BiasMode's
 * biases, NE.AccBias): refused by name. Guide 03 makes a NaN +inf where the tiles enter the
 * engine and says the engine never produces one; what the kernel DMA does with a NaN weight is
 * not measured, and every output it reached was +0 here before (the port's NaN; the sweeps'
 * index payloads hold such weights, no trained weights do). Dense weights are scanned only when
 * packing saw a weight with exponent 31 (m->wts_inf), so a finite layer costs nothing. */
static const char NAN_WEIGHT_TEXT[] =
	"a NaN weight or kernel bias: what the MAC does with one is not pinned (guide 03 makes a NaN "
	"+inf where the tiles enter; the kernel DMA's reading of one is not measured)";

static int nan_weight_refusal(struct anem *m, const struct conv *c)
{
	if (m->wts_inf && nan_in(m->wts, (uint64_t)c->G * c->nob * CB * c->per))
		return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, NAN_WEIGHT_TEXT);
	return ENG_OK;
}

/* A NaN among BiasMode's biases (a NaN NE.AccBias is refused first, on the register: fw/td's
 * td_ne_unread_refusal): checked before any row is computed, since the channel lines
 * (batch_lines) compute a one-row output before the kernels are packed and checked */
static int nan_bias_refusal(struct anem *m, const struct conv *c, uint64_t nout)
{
	if (c->cv && !c->ku && nan_in(m->chv + nout, nout))
		return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, NAN_WEIGHT_TEXT);
	return ENG_OK;
}

/*
 * Partial sums at the MAC's output port (guide 03, "Saturation hazard"): on the M1 a partial sum
 * whose value at the port reaches 2^15 overflows to infinity "even when a later cancellation
 * would have brought the final result back into range", and an infinity stays one whatever
 * finite terms follow. The model sums every output in fp32 in its documented order (ci, ky, kx),
 * the order its roundings already assume, and applies the port to each partial in that order:
 * the first partial whose port value (x ps + b, x post, rounded to fp16) reaches 2^15 makes the
 * output infinite of that value's sign. Only for two or more taps (c->taps2: one tap never
 * saturates), and only where the whole sum is finite (an infinite or NaN input or weight keeps
 * the port's rules for those). The whole sum's own saturation (conv_out_row) is the case where
 * the last partial is the first to reach 2^15.
 *
 * Products of fp16 (and int8) values are exact in fp32, so the partials below, a multiply and an
 * add a term, are the fast path's (its fused multiply-add) and the plain loop's; 0 weights are
 * skipped as the plain loop skips them (a 0 x inf term), which leaves every finite partial as it
 * is. A cheap bound comes first: Σ|w| x max|x| under 2^15 at the port means no partial can get
 * there, and the walk term by term runs only where the values come near.
 */
static int port_sign_sat(float a, int cv, float ps, float b, float post)
{
	unsigned h = f2h(cv ? (ku_product(a, ps) + b) * post : a * post);
	unsigned m = h & 0x7fffu;
	return m >= 0x7800u && m <= 0x7c00u ? (h & 0x8000u ? -1 : 1) : 0;
}

/* The smallest |a| whose port value can reach 2^15 (a lower bound, rounding margins included);
 * +inf when none can. */
static float port_floor(int cv, float ps, float b, float post)
{
	double p = __builtin_fabs((double)post), s = cv ? __builtin_fabs((double)ps) : 1.0;
	double bb = cv ? __builtin_fabs((double)b) : 0.0;
	if (p == 0.0 || s == 0.0)
		return __builtin_inff();
	double t = (32752.0 / p - bb) / s * (1.0 - 0x1p-8);
	return t > 0.0 ? (float)t : 0.0f;
}

/* The first partial of a reduction whose first row is its bias (BiasMode's bias, NE.AccBias;
 * docs/engine-model.md, "Convolutions with a bias"): the bias alone at the port, before any tap,
 * as port_sign_sat would see an accumulator of 0. The sign of the infinity it gives, 0 when it
 * stays under 2^15. A kernel unit's per-channel bias is not a row of the reduction (brow 0). */
static int bias_row(int brow, float ps, float b, float post)
{
	return brow ? port_sign_sat(0.0f, 1, ps, b, post) : 0;
}

/* The accumulator that gives an infinity of sign `sign` at the port (acc x ps + b, x post). */
static float port_inf(int sign, int cv, float ps, float post)
{
	float v = sign < 0 ? -__builtin_inff() : __builtin_inff();
	if ((cv && ps < 0.0f) != (post < 0.0f))
		v = -v;
	return v;
}

/* A row of n sums acc whose first saturated partials' signs are in first (0: none reached 2^15):
 * each such finite sum becomes port_inf of that sign. */
static void port_first_row(float *acc, const float *first, unsigned n, int cv, float ps, float post)
{
	for (unsigned x = 0; x < n; x++) {
		if (first[x] == 0.0f)
			continue;
		const float inf = port_inf(first[x] < 0.0f ? -1 : 1, cv, ps, post);
		if (acc[x] - acc[x] == 0.0f)
			acc[x] = inf;
		else if (__builtin_isinf(acc[x]) && acc[x] != inf)
			acc[x] = __builtin_nanf(""); /* both signs met: acc_row_amb refuses it */
	}
}

/*
 * Infinities of both signs in one output's sum (a seventh review): an infinite product meeting
 * another of the other sign (the fp32 sum NaN), a partial that reached 2^15 at the port (an
 * infinity there, guide 03) then an infinite product of the other sign (port_first_row and
 * line_port make that sum NaN), or an infinite sum meeting an infinite bias of the other sign at
 * the port (cv: x ps + b). Guide 03 gives inf - inf = +0 and says nothing of where the MAC
 * flushes it inside an accumulation: at the partial (the later taps counting), at the port (the
 * whole output +0), or not at all (the first infinity staying, as a saturated partial does). No
 * program or measurement tells, so such a TD is refused by name (ACC_AMB_TEXT), never +0. The
 * first of a's n values that is so, or n when none.
 */
#define ACC_AMB_TEXT                                                                               \
	"infinities of both signs meet in one output's sum (inf - inf between a convolution's "     \
	"partials, a partial past 2^15 and an infinity of the other sign, or an infinite bias): "    \
	"guide 03 gives inf - inf = +0 elementwise and does not say where the MAC flushes it"
static unsigned acc_row_amb(const float *a, unsigned n, int cv, float ps, float b)
{
	const int binf = cv && __builtin_isinf(b);
	for (unsigned x = 0; x < n; x++) {
		if (a[x] != a[x])
			return x;
		if (binf && __builtin_isinf(a[x])) {
			const float t = a[x] * ps;
			if (__builtin_isinf(t) && (t < 0.0f) != (b < 0.0f))
				return x;
		}
	}
	return n;
}

/*
 * Whether acc_row_amb can find anything in a row of a dense convolution's sums, from what the
 * model already knows: fin, every input and every weight of those sums finite (a row's columns'
 * flag, c->fin or cols_from_staged's, and m->wts_inf clear or a channel line packed without an
 * infinity), and the channel's port bias b when cv. With finite operands no sum is NaN or
 * infinite: an operand is an fp16 value through the MAC's input port (|v| <= 65504 < 2^16, an
 * int8 weight 128 at most), so a product is under 2^32, and K = Cin Kh Kw is at most
 * (2^17 - 1) x 31 x 31 = 125,959,231 < 2^27 (Common.Cin's 17 bits, ConvCfg's Kh and Kw 5 bits
 * each, the largest K a TD can give the model), so every fp32 partial, in any order, is under
 * (1 + 2^-24)^(2^27) x 2^27 x 2^32 < e^8 x 2^59 < 2^71, far below fp32's 2^128. The port's
 * rules then make a sum infinite only where a partial reached 2^15 (line_port, port_first_row:
 * port_inf, never NaN over a finite sum), and such an infinity meets one of the other sign only
 * at an infinite bias (acc_row_amb's binf). So the scan is skipped when fin holds and the bias
 * is finite (or there is none): the same refusals, none missed (issue 26's thirty-seventh pass:
 * the scan was 194,836 of the target's 512's instructions).
 */
static inline int acc_may_amb(int fin, int cv, float b)
{
	return !fin || (cv && __builtin_isinf(b));
}

/* Sets *flag (threads may: a relaxed atomic store of 1) when a row of a channel's sums (a, n of
 * them, the port's scale and bias ps, b when cv) meets infinities of both signs; 1 if it did.
 * fin: every input and weight of the sums finite (acc_may_amb). */
static int acc_note_amb(int *flag, int fin, const float *a, unsigned n, int cv, float ps, float b)
{
	if (!acc_may_amb(fin, cv, b) || acc_row_amb(a, n, cv, ps, b) == n)
		return 0;
	__atomic_store_n(flag, 1, __ATOMIC_RELAXED);
	return 1;
}

/* The largest |v| of n floats (a row's columns: finite or infinite, never NaN after the input
 * port): with AVX eight lanes at a time, else on their bits (|v| orders as its bits do, and
 * integer maxima vectorize on aarch64). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static PE_AVX float max_abs_avx(const float *v, uint64_t n)
{
	const __m256 mag = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	__m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
	uint64_t i = 0;
	for (; i + 16 <= n; i += 16) {
		a = _mm256_max_ps(a, _mm256_and_ps(_mm256_loadu_ps(v + i), mag));
		b = _mm256_max_ps(b, _mm256_and_ps(_mm256_loadu_ps(v + i + 8), mag));
	}
	float t[8], x = 0.0f;
	_mm256_storeu_ps(t, _mm256_max_ps(a, b));
	for (unsigned j = 0; j < 8; j++)
		x = t[j] > x ? t[j] : x;
	for (; i < n; i++) {
		float f = __builtin_fabsf(v[i]);
		x = f > x ? f : x;
	}
	return x;
}
#endif

typedef uint32_t v4u_t __attribute__((vector_size(16)));
#define V4_MAG ((v4u_t){0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu})

static float max_abs(const float *v, uint64_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (cpu_f16c() && sse_ok())
		return max_abs_avx(v, n);
#endif
	uint32_t m = 0;
	uint64_t i = 0;
	if (!((uintptr_t)v & 15u)) { /* four lanes a vector, two vectors at a time */
		v4u_t a = {0, 0, 0, 0}, b = a;
		for (; i + 8 <= n; i += 8) {
			v4u_t x = *(const v4u_t *)(const void *)(v + i) & V4_MAG;
			v4u_t y = *(const v4u_t *)(const void *)(v + i + 4) & V4_MAG;
			v4u_t gx = (v4u_t)(x > a), gy = (v4u_t)(y > b);
			a = (x & gx) | (a & ~gx);
			b = (y & gy) | (b & ~gy);
		}
		for (unsigned j = 0; j < 4; j++) {
			m = a[j] > m ? a[j] : m;
			m = b[j] > m ? b[j] : m;
		}
	}
	for (; i < n; i++) {
		uint32_t u;
		__builtin_memcpy(&u, v + i, 4);
		u &= 0x7fffffffu;
		m = u > m ? u : m;
	}
	float x;
	__builtin_memcpy(&x, &m, 4);
	return x;
}

/* Σ_k |w[k CB + l]| for each lane l of a packed line (K x CB, 16-byte aligned as every packed
 * line is), in sum: vectors of four lanes, LA_K values of k at a time, each in partial sums of
 * its own (enough independent additions to keep the adders busy; the order does not matter for
 * a bound, and the margin covers the rounding). */
#define LA_K (CB == 4u ? 8u : 4u)
static void line_abs(const float *w, uint64_t K, float sum[CB])
{
	v4f a[LA_K][CB / 4];
#pragma GCC unroll 8
	for (unsigned q = 0; q < LA_K; q++)
#pragma GCC unroll 4
		for (unsigned v = 0; v < CB / 4; v++)
			a[q][v] = (v4f){0.0f, 0.0f, 0.0f, 0.0f};
	if ((uintptr_t)w & 15u) { /* (not reached: the lines are aligned) */
		for (unsigned l = 0; l < CB; l++)
			sum[l] = 0.0f;
		for (uint64_t k = 0; k < K; k++)
			for (unsigned l = 0; l < CB; l++)
				sum[l] += __builtin_fabsf(w[k * CB + l]);
		return;
	}
	const v4u_t *p = (const v4u_t *)(const void *)w;
	uint64_t k = 0;
	for (; k + LA_K <= K; k += LA_K, p += LA_K * (CB / 4))
#pragma GCC unroll 8
		for (unsigned q = 0; q < LA_K; q++)
#pragma GCC unroll 4
			for (unsigned v = 0; v < CB / 4; v++)
				a[q][v] += (v4f)(p[q * (CB / 4) + v] & V4_MAG);
	for (; k < K; k++, p += CB / 4)
#pragma GCC unroll 4
		for (unsigned v = 0; v < CB / 4; v++)
			a[0][v] += (v4f)(p[v] & V4_MAG);
	for (unsigned v = 0; v < CB / 4; v++) {
		v4f t = a[0][v];
		for (unsigned q = 1; q < LA_K; q++)
			t += a[q][v];
		for (unsigned j = 0; j < 4; j++)
			sum[4 * v + j] = t[j];
	}
}

/* 1 when terms of Σ|w| <= s over inputs |x| <= X could bring a partial to floor (port_floor):
 * s and every partial carry fp32 rounding, covered by the margin (1 + K 2^-22). */
static int may_reach(const struct conv *c, double s, float X, float floor)
{
	return !(s * X * (1.0 + (double)c->per * 0x1p-22 + 0x1p-20) < (double)floor);
}

/* The port's scale and bias of output o of group g (1 and 0 without per-channel vectors). */
static void port_of(const struct anem *m, const struct conv *c, unsigned g, unsigned o, float *ps,
		    float *b)
{
	*ps = 1.0f;
	*b = 0.0f;
	if (c->cv) {
		uint64_t go = (uint64_t)g * c->cout + o, nall = (uint64_t)c->G * c->cout;
		*ps = m->chv[go];
		*b = m->chv[nall + go];
	}
}

/*
 * Channels [o0, o1) of group g, their kernels packed as one line at w (lane l's weight k at
 * w[k CB + l]), over one row's columns (K lines of as; X their largest |value|), their sums in
 * acc (lane l's at acc + l as): each output whose partials reach 2^15 at the port (the sum
 * finite) becomes the infinity of the first such partial's sign.
 */
static void line_port(const struct anem *m, const struct conv *c, const float *w,
			  const float *cols, float X, unsigned g, unsigned o0, unsigned o1, float *acc)
{
	const uint64_t K = c->per, as = c->as;
	float sum[CB];
	if (!c->taps2)
		return;
	line_abs(w, K, sum);
	for (unsigned o = o0; o < o1; o++) {
		unsigned l = o - o0;
		float ps, b;
		port_of(m, c, g, o, &ps, &b);
		const float fl = c->cv ? port_floor(1, ps, b, c->post) : c->pfloor1;
		if (!may_reach(c, sum[l], X, fl))
			continue;
		const int b0 = bias_row(c->brow, ps, b, c->post);
		for (unsigned x = 0; x < c->W; x++) {
			float a = 0.0f;
			int first = b0;
			for (uint64_t k = 0; k < K; k++) {
				float wv = w[k * CB + l], xv = cols[k * as + x];
				if (wv == 0.0f || (xv == 0.0f && __builtin_isinf(wv)))
					continue; /* (0 x inf adds nothing, as the plain loop) */
				a += wv * xv;
				if (!first && !(__builtin_fabsf(a) < fl))
					first = port_sign_sat(a, c->cv, ps, b, c->post);
			}
			if (first && a - a == 0.0f)
				acc[(uint64_t)l * as + x] = port_inf(first, c->cv, ps, c->post);
			else if (first && __builtin_isinf(a) && a != port_inf(first, c->cv, ps, c->post))
				acc[(uint64_t)l * as + x] = __builtin_nanf(""); /* (acc_row_amb) */
		}
	}
}

/* The largest Σ|w| of an output over a group's packed lines (nob lines of K x CB at wp): the
 * bound's weight side for a batch of rows, computed once a convolution. */
static float lines_abs_max(const struct conv *c, const float *wp)
{
	float best = 0.0f;
	for (uint64_t ob = 0; ob < c->nob; ob++) {
		float sum[CB];
		line_abs(wp + ob * c->per * CB, c->per, sum);
		for (unsigned l = 0; l < CB; l++)
			if (!(sum[l] <= best))
				best = sum[l];
	}
	return best;
}

/* The smallest port_floor over the convolution's outputs (the layer-wide bound's port side). */
static float port_floor_min(const struct anem *m, const struct conv *c)
{
	if (!c->cv)
		return c->pfloor1;
	float best = __builtin_inff();
	uint64_t nall = (uint64_t)c->G * c->cout;
	for (uint64_t go = 0; go < nall; go++) {
		float f = port_floor(1, m->chv[go], m->chv[nall + go], c->post);
		best = f < best ? f : best;
	}
	return best;
}

/* A row of group g (its columns at cols, its sums at acc: output o's at o as) over every line of
 * the group's packed weights wp, as line_port; the layer-wide bound (c->wabs, c->pfloor) first. */
static void row_port(const struct anem *m, const struct conv *c, const float *wp, const float *cols,
		     unsigned g, float *acc)
{
	if (!c->taps2)
		return;
	float X = max_abs(cols, c->per * c->as);
	if (!may_reach(c, c->wabs, X, c->pfloor))
		return;
	for (uint64_t ob = 0; ob < c->nob; ob++) {
		unsigned o0 = (unsigned)(ob * CB), o1 = o0 + CB < c->cout ? o0 + CB : c->cout;
		line_port(m, c, wp + ob * c->per * CB, cols, X, g, o0, o1, acc + ob * CB * c->as);
	}
}

/* A staging buffer for n fp16 values (bounded as every buffer a program sizes); NULL when it
 * is too large or memory is short (the caller then works row by row). */
static uint16_t *stage_buf(uint16_t **p, size_t *len, uint64_t n)
{
	if (n > ANEM_BUF_MAX_BYTES / 2)
		return NULL;
	if (*len < n) {
		free(*p);
		*len = 0;
		if (!(*p = memalign(ANEM_LINE_FLOATS * sizeof(float), (size_t)n * 2)))
			return NULL;
		*len = (size_t)n;
	}
	return *p;
}

/* inputs, and outputs when no input is staged at the same time */
static uint16_t *stage(struct anem *m, uint64_t n)
{
	return stage_buf(&m->stage, &m->stage_len, n);
}

/* Input row f (Win floats) as the Kw lines (kx) of its (ci, ky): position x reads
 * f[x Sx - Px + kx], 0 outside the input. */
static void spread_row(const struct conv *c, const float *f, float *line)
{
	for (unsigned kx = 0; kx < c->kw; kx++, line += c->as) {
		unsigned x0, x1;
		conv_span(c->W, c->Win, c->sx, kx, c->px, &x0, &x1);
		/* an empty span's first input may lie before f: no pointer to it */
		const float *src = x0 < x1 ? f + ((int64_t)x0 * c->sx + kx - c->px) : f;
		for (unsigned x = 0; x < x0; x++)
			line[x] = 0.0f;
		if (c->sx == 1)
			memcpy(line + x0, src, (size_t)(x1 - x0) * sizeof *line);
		else
			for (unsigned x = x0; x < x1; x++)
				line[x] = src[(x - x0) * c->sx];
		for (uint64_t x = x1; x < c->as; x++)
			line[x] = 0.0f;
	}
}

/* Input rows (g, ci, iy), ci = 0 .. Cin - 1, for every ky with iy inside the input, staged by one
 * 2-D move each (raw: the port's NaN rule is applied by conv_columns) into st (Kh x Cin x Win
 * values) when the source is a tile of fp16 rows that the DMA engine takes that way; else NULL
 * (conv_columns reads row by row). Row (ky, ci) is at ky x Cin x Win + ci x Win. */
static int in_rows_ok(struct anem *m, const struct conv *c, const struct tile *in,
		      const struct anem_l2t *lsrc, unsigned g)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return !lsrc && in->r && in->fmt == H13_FMT_FP16 && c->cin >= 2 && c->Win == in->w &&
	       c->cin <= in->c && g < in->g && m->fault == ANEM_FAULT_NONE;
#else
	(void)m, (void)c, (void)in, (void)lsrc, (void)g;
	return 0;
#endif
}

static const uint16_t *in_rows(struct anem *m, const struct conv *c, const struct tile *in,
			       unsigned g, unsigned y, uint16_t *st, int *err)
{
	uint64_t bytes = (uint64_t)c->Win * 2;
	for (unsigned ky = 0; ky < c->kh; ky++) {
		int64_t iy = (int64_t)y * c->sy - c->py + ky;
		if (iy < 0 || iy >= (int64_t)c->Hin)
			continue;
		int64_t first = row_off(in, g, 0, (unsigned)iy, bytes);
		int64_t last = row_off(in, g, c->cin - 1, (unsigned)iy, bytes);
		if (first < 0 || last < 0)
			return NULL; /* before anything moved: row by row reports it */
		int e = anem_dma_move_rows(m, st + (uint64_t)ky * c->cin * c->Win, (int64_t)bytes,
					   in->r->cpu + first, (int64_t)in->plane, (uint32_t)bytes, c->cin);
		if (e == ANEM_ROWS_ONE_BY_ONE)
			return NULL; /* what moved is only read: conv_columns reads row by row */
		if (e) {
			*err = e;
			return NULL;
		}
	}
	return st;
}

/* A 1x1 window over the whole row: a column line is the input row itself (converted straight
 * into it, no spreading). */
static inline int cols_whole(const struct conv *c)
{
	return c->kw == 1 && c->sx == 1 && c->px == 0 && c->Win == c->W && c->as == c->W;
}

/* The first of the kw lines of (ci, ky) in a row's columns, or NULL after zeroing them when input
 * row iy lies in the padding. */
static inline float *col_line(const struct conv *c, float *cols, unsigned ci, unsigned ky, int64_t iy)
{
	float *line = cols + (((uint64_t)ci * c->kh + ky) * c->kw) * c->as;
	if (iy < 0 || iy >= (int64_t)c->Hin) {
		memset(line, 0, (size_t)(c->kw * c->as) * sizeof *line);
		return NULL;
	}
	return line;
}

/* A raw row with an infinity or NaN through the port's NaN rule, converted again, a copy of 256
 * values at a time (the staged row is left as it is: rows on threads share it). */
static void mac_in_row_nan(float *f, const uint16_t *v, unsigned n)
{
	uint16_t t[256];
	for (unsigned i = 0; i < n; i += 256) {
		unsigned k = n - i < 256u ? n - i : 256u;
		memcpy(t, v + i, k * sizeof *t);
		nan_to_inf(t, k);
		mac_in_row(f + i, t, k);
	}
}

/* Lines (ci, ky, kx) of row y's columns from staged input rows: input row iy's channel ci at
 * ((iy - ibase) Cin + ci) Win (in_rows: ibase y Sy - Py; stage_rows: the batch's first row);
 * fb a scratch row of Win floats; returns whether every input was finite. Reads the staged rows
 * and writes only cols and fb, so rows can be spread on several threads at once. */
static int cols_from_staged(const struct conv *c, const uint16_t *staged, int64_t ibase,
			    unsigned y, float *cols, float *fb, unsigned ci0, unsigned ci1)
{
	int whole = cols_whole(c);
	int fin = 1;
	for (unsigned ci = ci0; ci < ci1; ci++)
		for (unsigned ky = 0; ky < c->kh; ky++) {
			int64_t iy = (int64_t)y * c->sy - c->py + ky;
			float *line = col_line(c, cols, ci, ky, iy);
			if (!line)
				continue;
			float *f = whole ? line : fb;
			const uint16_t *v = staged + ((uint64_t)(iy - ibase) * c->cin + ci) * c->Win;
			if (!mac_in_row(f, v, c->Win)) {
				mac_in_row_nan(f, v, c->Win);
				fin = 0;
			}
			if (!whole)
				spread_row(c, fb, line);
		}
	return fin;
}

/* Row y's columns (the fast path's inputs: a line of as positions per (ci, ky, kx), 0 outside
 * the input) into cols; fin: whether every input of the row is finite. */
static int conv_columns(struct anem *m, const struct conv *c, const struct tile *in,
			const struct anem_l2t *lsrc, unsigned g, unsigned y, float *cols, int *fin)
{
	int e = ENG_OK;
	uint16_t *st = in_rows_ok(m, c, in, lsrc, g) ? stage(m, (uint64_t)c->kh * c->cin * c->Win) : NULL;
	const uint16_t *staged = st ? in_rows(m, c, in, g, y, st, &e) : NULL;
	if (e)
		return e;
	if (staged) {
		*fin = cols_from_staged(c, st, (int64_t)y * c->sy - c->py, y, cols, m->fb, 0, c->cin);
		return ENG_OK;
	}
	int whole = cols_whole(c);
	*fin = 1;
	for (unsigned ci = 0; ci < c->cin; ci++)
		for (unsigned ky = 0; ky < c->kh; ky++) {
			int64_t iy = (int64_t)y * c->sy - c->py + ky;
			float *line = col_line(c, cols, ci, ky, iy);
			if (!line)
				continue;
			uint16_t *v = m->hv;
			float *f = whole ? line : m->fb;
			if ((e = source_row(m, in, lsrc, g, ci, (unsigned)iy, c->Win, v)))
				return e;
			*fin &= mac_in_row(f, v, c->Win);
			if (!whole)
				spread_row(c, m->fb, line);
		}
	return ENG_OK;
}

/* A batch's columns on threads: every row's inputs staged in order first (the DMA engine's
 * moves keep their order), then each row spread into its columns by `split` tasks of
 * consecutive input channels (several only for a batch of one row), each with its own flag and,
 * per thread, its own scratch row. */
struct cols_job {
	const struct conv *c;
	uint16_t *st;   /* row r's staged inputs at r x Kh x Cin x Win */
	float *cols, *fb;
	unsigned y0, split;
	int fin[COLS_SPLIT_MAX];
	int want_x;               /* each task's largest |value| too (batch_columns' X) */
	float x[COLS_SPLIT_MAX];
};

static void cols_task(void *arg, unsigned i)
{
	struct cols_job *j = arg;
	const struct conv *c = j->c;
	unsigned r = i / j->split, t = i % j->split;
	unsigned ci0 = (unsigned)((uint64_t)c->cin * t / j->split);
	unsigned ci1 = (unsigned)((uint64_t)c->cin * (t + 1) / j->split);
	float *fb = j->fb + (uint64_t)(j->split > 1 ? hal_worker() : r) * c->fbs;
	float *cols = j->cols + r * c->per * c->as;
	j->fin[i] = cols_from_staged(c, j->st + (uint64_t)r * c->kh * c->cin * c->Win,
				     (int64_t)(j->y0 + r) * c->sy - c->py, j->y0 + r, cols, fb, ci0, ci1);
	/* the lines of input channels [ci0, ci1), all written above (col_line zeroes those in the
	 * padding), while they are in this thread's cache */
	if (j->want_x) {
		const uint64_t lines = (uint64_t)c->kh * c->kw * c->as;
		j->x[i] = max_abs(cols + ci0 * lines, (ci1 - ci0) * lines);
	}
}

/* The batch's columns (rows y0 .. y0 + nrow - 1): on threads when every row's inputs can be
 * staged, else row by row. X non-NULL (a batch of one row): the row's largest |value| over its
 * columns (max_abs over per x as), each task's part taken by the task on threads. */
static int batch_columns(struct anem *m, struct conv *c, const struct tile *in,
			 const struct anem_l2t *lsrc, unsigned g, unsigned y0, unsigned nrow, float *X)
{
	uint64_t per_row = (uint64_t)c->kh * c->cin * c->Win;
	uint16_t *st = NULL;
	unsigned nw = hal_workers();
	/* one row: tasks of input channels when it is large (a 512-channel 1x1 over 64: 32 Ki
	 * inputs), a scratch row a thread */
	unsigned split = nrow == 1 && per_row >= (1u << 14) ? (nw < COLS_SPLIT_MAX ? nw : COLS_SPLIT_MAX) : 1u;
	if (split > c->cin)
		split = c->cin;
	if ((nrow > 1 || split > 1) && nw > 1 && in_rows_ok(m, c, in, lsrc, g) &&
	    per_row <= ANEM_BUF_MAX_BYTES / 2 / nrow &&
	    !grow_aligned(m, &m->rfb, &m->rfb_len, (uint64_t)(nrow > nw ? nrow : nw) * c->fbs, NULL))
		st = stage(m, per_row * nrow);
	for (unsigned r = 0; st && r < nrow; r++) {
		int e = ENG_OK;
		if (!in_rows(m, c, in, g, y0 + r, st + r * per_row, &e)) {
			if (e)
				return e;
			st = NULL; /* row by row below (what moved is only read) */
		}
	}
	if (st) {
		struct cols_job j = {c, st, m->cols, m->rfb, y0, split, {0}, X != NULL && nrow == 1, {0}};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
		(void)cpu_features(); /* read once before any thread asks */
#endif
		model_parallel(nrow * split, cols_task, &j);
		for (unsigned r = 0; r < nrow; r++) {
			c->fin[r] = 1;
			for (unsigned t = 0; t < split; t++)
				c->fin[r] &= j.fin[r * split + t];
		}
		if (j.want_x) { /* the tasks' parts: the same maximum, taken in any order */
			*X = 0.0f;
			for (unsigned t = 0; t < split; t++)
				*X = j.x[t] > *X ? j.x[t] : *X;
		}
		return ENG_OK;
	}
	for (unsigned r = 0; r < nrow; r++) {
		int e = conv_columns(m, c, in, lsrc, g, y0 + r, m->cols + r * c->per * c->as, &c->fin[r]);
		if (e)
			return e;
	}
	if (X && nrow == 1)
		*X = max_abs(m->cols, c->per * c->as);
	return ENG_OK;
}

/* The micro-kernels of the batch's rows with finite inputs (nrow rows from m->cols into m->acc);
 * with threads, from 2^18 MACs a call, four tasks of consecutive items a thread, taken by
 * whichever thread is free: a vCPU of a shared host can run 20% slower for a while, and the
 * other then takes more of the tasks (docs/performance.md, issue 26's fifth pass: a gain
 * within the measurement's spread). Each output is still summed by one thread in order. */
static void conv_kernels(struct anem *m, const struct conv *c, unsigned g, unsigned nrow)
{
	struct conv_job j = {m->wts + (uint64_t)g * c->nob * c->per * CB, m->cols, m->acc,
			     c->per, c->as, c->nob, 1, {0}, 0};
	unsigned nw = hal_workers();
	for (unsigned r = 0; r < nrow; r++)
		if (c->fin[r])
			j.rows[j.nrows++] = r;
	uint64_t total = (uint64_t)j.nrows * c->nob, tasks = total ? 1 : 0;
	if (nw > 1 && total > 1 && c->per * c->as * total * CB >= (1u << 18))
		tasks = total < 4u * nw ? total : 4u * nw;
	j.tasks = tasks ? tasks : 1;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	(void)cpu_features(); /* read once before any thread asks */
#endif
	if (tasks == 1)
		conv_task(&j, 0); /* one core: no call through a pointer */
	else if (tasks)
		model_parallel((unsigned)tasks, conv_task, &j);
}

/*
 * The plain loop for output row y (a non-finite weight or input, or no memory for the fast
 * path): acc[o][x] summed over ci, ky, kx in order, skipping 0 weights. Over the row's columns
 * when the fast path built them (cols non-NULL), so no row is read twice; else from the rows.
 */
static int conv_plain_row(struct anem *m, const struct conv *c, const struct tile *in,
			  const struct anem_l2t *lsrc, unsigned g, unsigned y, const float *cols,
			  float *acc)
{
	/* without columns (the whole convolution on this loop: a non-finite weight, or no memory
	 * for the fast path), the port on each partial as it goes (above line_port): m->ilo holds
	 * each output's first saturated sign (Cout lines of as), then each channel's port_floor;
	 * with columns, row_port walks them after */
	float *first = NULL, *fl = NULL;
	uint64_t nacc = (uint64_t)c->cout * c->as;
	if (!cols && c->taps2) {
		int e = nacc > UINT64_MAX / 2 ? ENG_E_NOMEM
			: grow_aligned(m, &m->ilo, &m->ilo_len, nacc + c->cout,
				       "the port's partial-sum state of a row (Cout x Wout)");
		if (e)
			return e;
		first = m->ilo;
		fl = m->ilo + nacc;
		memset(first, 0, (size_t)nacc * sizeof *first);
		for (unsigned o = 0; o < c->cout; o++) {
			float ps, b;
			port_of(m, c, g, o, &ps, &b);
			fl[o] = port_floor(c->cv, ps, b, c->post);
			const int b0 = bias_row(c->brow, ps, b, c->post);
			for (unsigned x = 0; b0 && x < c->W; x++)
				first[(uint64_t)o * c->as + x] = (float)b0;
		}
	}
	memset(acc, 0, (size_t)(c->cout * c->as) * sizeof(float));
	for (unsigned ci = 0; ci < c->cin; ci++)
		for (unsigned ky = 0; ky < c->kh; ky++) {
			int64_t iy = (int64_t)y * c->sy - c->py + ky;
			if (iy < 0 || iy >= (int64_t)c->Hin)
				continue;
			if (!cols) {
				uint16_t *v = m->hv;
				int e = source_row(m, in, lsrc, g, ci, (unsigned)iy, c->Win, v);
				if (e)
					return e;
				for (unsigned i = 0; i < c->Win; i++)
					m->fb[i] = mac_in(v[i]);
			}
			for (unsigned kx = 0; kx < c->kw; kx++) {
				uint64_t k = ((uint64_t)ci * c->kh + ky) * c->kw + kx;
				unsigned x0, x1, step = c->sx;
				conv_span(c->W, c->Win, c->sx, kx, c->px, &x0, &x1);
				if (x0 >= x1)
					continue; /* (an empty span's first input is before fb) */
				const float *src = m->fb + ((int64_t)x0 * c->sx + kx - c->px);
				if (cols) { /* line (ci, ky, kx) holds position x at x */
					src = cols + k * c->as + x0;
					step = 1;
				}
				for (unsigned o = 0; o < c->cout; o++) {
					float wv = m->wts[wslot((uint64_t)g * c->cout + o, c->cout, c->per) + CB * k];
					float *a = acc + (uint64_t)o * c->as;
					if (wv == 0.0f)
						continue;
					/* an infinite weight times a zero input (an input of 0, padding, a
					 * subnormal at the MAC's port) adds nothing, as a 0 weight times an
					 * infinite input: guide 03's 0 x inf = +0 (a sixth review found the
					 * product's NaN making the whole output +0) */
					if (__builtin_isinf(wv)) {
						for (unsigned x = x0; x < x1; x++) {
							const float xv = src[(x - x0) * step];
							if (xv == 0.0f)
								continue;
							float t = a[x] + wv * xv;
							a[x] = t;
							if (first && !(__builtin_fabsf(t) < fl[o]) && first[(uint64_t)o * c->as + x] == 0.0f) {
								float ps, b;
								port_of(m, c, g, o, &ps, &b);
								first[(uint64_t)o * c->as + x] = (float)port_sign_sat(t, c->cv, ps, b, c->post);
							}
						}
						continue;
					}
					if (first) {
						float *f = first + (uint64_t)o * c->as, lim = fl[o];
						for (unsigned x = x0; x < x1; x++) {
							float t = a[x] + wv * src[(x - x0) * step];
							a[x] = t;
							if (!(__builtin_fabsf(t) < lim) && f[x] == 0.0f) {
								float ps, b;
								port_of(m, c, g, o, &ps, &b);
								f[x] = (float)port_sign_sat(t, c->cv, ps, b, c->post);
							}
						}
						continue;
					}
					for (unsigned x = x0; x < x1; x++)
						a[x] += wv * src[(x - x0) * step];
				}
			}
		}
	for (unsigned o = 0; first && o < c->cout; o++) {
		float ps, b;
		port_of(m, c, g, o, &ps, &b);
		port_first_row(acc + (uint64_t)o * c->as, first + (uint64_t)o * c->as, c->W, c->cv, ps,
			       c->post);
	}
	return ENG_OK;
}

/* Where output rows (g, o, y), o = 0 .. Cout - 1, start when they can leave in one 2-D move:
 * fp16 (little-endian: the values are the bytes), no ZeroPadLast, the first and the last row
 * inside the range (the rows between lie between them); else NULL. */
static uint8_t *out_rows(struct anem *m, const struct tile *out, unsigned g, unsigned y,
			 unsigned cout)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t bytes = (uint64_t)out->w * 2;
	if (!out->r || out->fmt != H13_FMT_FP16 || cout < 2 ||
	    H13_GET(REG(H13_DST_FMT), H13_DSTFMT_ZEROPADLAST) || m->fault != ANEM_FAULT_NONE)
		return NULL;
	int64_t first = row_off(out, g, 0, y, bytes), last = row_off(out, g, cout - 1, y, bytes);
	return first < 0 || last < 0 ? NULL : out->r->cpu + first;
#else
	(void)m, (void)out, (void)g, (void)y, (void)cout;
	return NULL;
#endif
}

/* Output row y's accumulators (acc: Cout lines of as) to fp16 at the MAC's output port, then
 * the activation and the PE, out to the destination: every channel's row in one 2-D move when
 * out_rows and the DMA engine allow it (the same bytes as row by row), else a move a row. fin:
 * every input and weight of the row's sums finite (acc_may_amb). */
static int conv_finish_row(struct anem *m, const struct conv *c, const struct stages *s,
			   const struct tile *out, struct anem_l2t *lres, struct anem_act *act,
			   unsigned g, unsigned y, const float *acc, int fin)
{
	uint8_t *dst = out_rows(m, out, g, y, c->cout);
	uint16_t *st = dst ? stage(m, (uint64_t)c->cout * c->W) : NULL;
	if (st && !anem_dma_rows_ok(m, dst, (int64_t)out->plane, st, (int64_t)c->W * 2, c->W * 2u,
				    c->cout))
		st = NULL; /* the DMA engine's caps: a move a row, from the aligned m->hv */
	int e;
	for (unsigned o = 0; o < c->cout; o++) { /* before any of the row leaves (acc_row_amb) */
		float ps, b;
		port_of(m, c, g, o, &ps, &b);
		if (acc_may_amb(fin, c->cv, b) && acc_row_amb(acc + (uint64_t)o * c->as, c->W, c->cv, ps, b) != c->W)
			return ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, ACC_AMB_TEXT);
	}
	for (unsigned o = 0; o < c->cout; o++) {
		uint16_t *v = st ? st + (uint64_t)o * c->W : m->hv;
		const float *a = acc + (uint64_t)o * c->as;
		if (c->cv) {
			/* the kernel unit's per-channel post-scale and bias, or BiasMode's bias, then
			 * NE.PostScale */
			uint64_t go = (uint64_t)g * c->cout + o, nall = (uint64_t)c->G * c->cout;
			conv_out_row(v, a, c->W, 1, m->chv[go], m->chv[nall + go], s->post, c->taps2);
		} else {
			conv_out_row(v, a, c->W, 0, 1.0f, 0.0f, s->post, c->taps2);
		}
		nonlinear(m, s, v, c->W, act);
		if (s->pe && (e = pe_amb_refusal(m, s, v, NULL, c->W)))
			return e;
		if (s->pe)
			pe_row(s, v, NULL, v, c->W);
		if (!st && (e = emit_row(m, out, lres, g, o, y, v)))
			return e;
		if (st && lres) /* emit_row's L2 copy; the tile DMA follows, for every channel */
			memcpy(lres->v + (((uint64_t)g * lres->c + o) * lres->h + y) * out->w, v,
			       out->w * sizeof *v);
	}
	if (!st)
		return ENG_OK;
	return anem_dma_move_rows(m, dst, (int64_t)out->plane, st, (int64_t)c->W * 2, c->W * 2u,
				  c->cout);
}

/* A batch's rows finished on threads (conv_finish_row's values): tasks of (row, channels),
 * several per row when the batch is one row, each writing its own channels' rows into the
 * staging buffer (and the L2-resident result); then every row leaves in one 2-D move, in
 * order. */
struct fin_job {
	const struct anem *m;
	const struct conv *c;
	const struct stages *s;
	const struct tile *out;
	struct anem_l2t *lres;
	unsigned g, y0, split;
	uint16_t *st; /* row r's values at r x Cout x W */
	int *amb;     /* m->acc_amb */
};

/* Output row y's channels o0 .. o1 - 1 (accumulators from acc, channel o0's, a line of as per
 * channel) as conv_finish_row computes them, into st (a row of W per channel from channel 0) and
 * the L2-resident result; the activation's element count is the caller's; fin: every input and
 * weight of these sums finite (acc_may_amb). Writes nothing else: safe on threads. */
static void finish_channels(const struct anem *m, const struct conv *c, const struct stages *s,
			    const struct tile *out, struct anem_l2t *lres, unsigned g, unsigned y,
			    const float *acc, uint16_t *st, unsigned o0, unsigned o1, int *amb, int fin)
{
	for (unsigned o = o0; o < o1; o++) {
		uint16_t *v = st + (uint64_t)o * c->W;
		const float *a = acc + (uint64_t)(o - o0) * c->as;
		if (c->cv) {
			uint64_t go = (uint64_t)g * c->cout + o, nall = (uint64_t)c->G * c->cout;
			if (acc_note_amb(amb, fin, a, c->W, 1, m->chv[go], m->chv[nall + go]))
				return; /* refused before the rows leave */
			conv_out_row(v, a, c->W, 1, m->chv[go], m->chv[nall + go], s->post, c->taps2);
		} else {
			if (acc_note_amb(amb, fin, a, c->W, 0, 1.0f, 0.0f))
				return;
			conv_out_row(v, a, c->W, 0, 1.0f, 0.0f, s->post, c->taps2);
		}
		nonlinear_row(m, s, v, c->W);
		if (s->pe && s->pe_amb && pe_row_amb(s, v, NULL, c->W)) {
			__atomic_store_n(amb, 2, __ATOMIC_RELAXED); /* (PE_AMB_TEXT) */
			return;
		}
		if (s->pe)
			pe_row(s, v, NULL, v, c->W);
		if (lres)
			memcpy(lres->v + (((uint64_t)g * lres->c + o) * lres->h + y) * out->w, v,
			       out->w * sizeof *v);
	}
}

static void fin_task(void *arg, unsigned i)
{
	const struct fin_job *j = arg;
	const struct conv *c = j->c;
	unsigned r = i / j->split, t = i % j->split;
	unsigned o0 = (unsigned)((uint64_t)c->cout * t / j->split);
	unsigned o1 = (unsigned)((uint64_t)c->cout * (t + 1) / j->split);
	finish_channels(j->m, c, j->s, j->out, j->lres, j->g, j->y0 + r,
			j->m->acc + (r * c->nob * CB + o0) * c->as, j->st + (uint64_t)r * c->cout * c->W,
			o0, o1, j->amb, c->fin[r] && !j->m->wts_inf);
}

/* Returns 1 when the batch was finished here (e: the first move's error), 0 when it is left to
 * conv_finish_row (one thread, a small batch, or rows that cannot leave in one move each). */
static int batch_finish(struct anem *m, const struct conv *c, const struct stages *s,
			const struct tile *out, struct anem_l2t *lres, struct anem_act *act,
			unsigned g, unsigned y0, unsigned nrow, int *e)
{
	uint64_t vals = (uint64_t)nrow * c->cout * c->W;
	*e = ENG_OK;
	if (hal_workers() < 2 || vals < (1u << 14) || vals > ANEM_BUF_MAX_BYTES / 2)
		return 0;
	uint8_t *dst[16];
	for (unsigned r = 0; r < nrow; r++)
		if (!(dst[r] = out_rows(m, out, g, y0 + r, c->cout)))
			return 0;
	uint16_t *st = stage(m, vals);
	if (!st)
		return 0;
	for (unsigned r = 0; r < nrow; r++)
		if (!anem_dma_rows_ok(m, dst[r], (int64_t)out->plane, st + (uint64_t)r * c->cout * c->W,
				      (int64_t)c->W * 2, c->W * 2u, c->cout))
			return 0;
	unsigned split = nrow == 1 ? 8u : 1u;
	if (split > c->cout)
		split = c->cout;
	struct fin_job j = {m, c, s, out, lres, g, y0, split, st, &m->acc_amb};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	(void)cpu_features(); /* read once before any thread asks */
#endif
	m->acc_amb = 0;
	model_parallel(nrow * split, fin_task, &j);
	if (m->acc_amb) { /* (2: the PE's, finish_channels) */
		*e = ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, m->acc_amb == 2 ? PE_AMB_TEXT : ACC_AMB_TEXT);
		return 1;
	}
	if (nl_counted(s))
		act->nelem += vals;
	for (unsigned r = 0; r < nrow; r++)
		if ((*e = anem_dma_move_rows(m, dst[r], (int64_t)out->plane,
					     st + (uint64_t)r * c->cout * c->W, (int64_t)c->W * 2,
					     c->W * 2u, c->cout)))
			return 1;
	return 1;
}

/*
 * Rows on threads (conv_plan's c->rows): the batch's input rows are staged once each, in order;
 * then one task a row, on whichever thread is free, builds the row's columns into that thread's
 * own buffer (hal_worker), runs every channel line over them and finishes the row into the
 * output staging buffer; then every row leaves in one 2-D move, in order. A row's columns are
 * built and read by one thread while they sit in its cache, one hal_parallel call serves the
 * whole batch, and a thread the host slows down simply takes fewer rows. Each output is still
 * summed by one thread in the same order: the same bits whatever the number of threads.
 */
struct rows_job {
	struct anem *m;
	const struct conv *c;
	const struct stages *s;
	const struct tile *out;
	struct anem_l2t *lres;
	const uint16_t *st; /* input row iy's channels at (iy - ibase) x Cin x Win */
	int64_t ibase;
	uint16_t *ost;      /* output row r's channels at r x Cout x W */
	unsigned g, y0;
};

static void rows_task(void *arg, unsigned r)
{
	const struct rows_job *j = arg;
	const struct conv *c = j->c;
	struct anem *m = j->m;
	unsigned t = hal_worker(), y = j->y0 + r;
	float *cols = m->cols + t * c->per * c->as, *acc = m->acc + t * c->nob * CB * c->as;
	const float *wp = m->wts + (uint64_t)j->g * c->nob * c->per * CB;
	const int fin = cols_from_staged(c, j->st, j->ibase, y, cols, m->rfb + (uint64_t)t * c->fbs, 0, c->cin);
	if (fin)
		for (uint64_t ob = 0; ob < c->nob; ob++)
			micro_row(wp + ob * c->per * CB, cols, c->per, c->as, acc + ob * CB * c->as);
	else /* over the columns: reads nothing else, cannot fail */
		(void)conv_plain_row(m, c, NULL, NULL, j->g, y, cols, acc);
	row_port(m, c, wp, cols, j->g, acc);
	finish_channels(m, c, j->s, j->out, j->lres, j->g, y, acc,
			j->ost + (uint64_t)r * c->cout * c->W, 0, c->cout, &m->acc_amb, fin && !m->wts_inf);
}

/* Returns 1 when the batch was done here (e: a move's error), 0 when it is left to the row by
 * row path: the source or the destination cannot move as whole rows, or memory is short (then
 * nothing has moved but reads). */
static int batch_rows(struct anem *m, const struct conv *c, const struct stages *s,
		      const struct tile *in, const struct anem_l2t *lsrc, const struct tile *out,
		      struct anem_l2t *lres, struct anem_act *act, unsigned g, unsigned y0,
		      unsigned nrow, int *e)
{
	*e = ENG_OK;
	if (!c->rows || hal_workers() > c->nt || !in_rows_ok(m, c, in, lsrc, g))
		return 0;
	int64_t lo = (int64_t)y0 * c->sy - c->py, hi = (int64_t)(y0 + nrow - 1) * c->sy - c->py + c->kh - 1;
	if (lo < 0)
		lo = 0;
	if (hi >= (int64_t)c->Hin)
		hi = (int64_t)c->Hin - 1;
	if (hi < lo)
		return 0; /* every row in the padding */
	uint64_t per_in = (uint64_t)c->cin * c->Win, bytes = (uint64_t)c->Win * 2;
	uint64_t vals = (uint64_t)nrow * c->cout * c->W;
	uint16_t *st = stage(m, (uint64_t)(hi - lo + 1) * per_in);
	uint16_t *ost = stage_buf(&m->ostage, &m->ostage_len, vals);
	if (!st || !ost)
		return 0;
	for (unsigned r = 0; r < nrow; r++) {
		uint8_t *dst = out_rows(m, out, g, y0 + r, c->cout);
		if (!dst || !anem_dma_rows_ok(m, dst, (int64_t)out->plane, ost + (uint64_t)r * c->cout * c->W,
					      (int64_t)c->W * 2, c->W * 2u, c->cout))
			return 0;
	}
	for (int64_t iy = lo; iy <= hi; iy++)
		if (row_off(in, g, 0, (unsigned)iy, bytes) < 0 || row_off(in, g, c->cin - 1, (unsigned)iy, bytes) < 0)
			return 0;
	for (int64_t iy = lo; iy <= hi; iy++) {
		int em = anem_dma_move_rows(m, st + (uint64_t)(iy - lo) * per_in, (int64_t)bytes,
					    in->r->cpu + row_off(in, g, 0, (unsigned)iy, bytes),
					    (int64_t)in->plane, (uint32_t)bytes, c->cin);
		if (em == ANEM_ROWS_ONE_BY_ONE)
			return 0; /* what moved is only read */
		if (em) {
			*e = em;
			return 1;
		}
	}
	struct rows_job j = {m, c, s, out, lres, st, lo, ost, g, y0};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	(void)cpu_features(); /* read once before any thread asks */
#endif
	m->acc_amb = 0;
	model_parallel(nrow, rows_task, &j);
	if (m->acc_amb) { /* (2: the PE's, finish_channels) */
		*e = ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, m->acc_amb == 2 ? PE_AMB_TEXT : ACC_AMB_TEXT);
		return 1;
	}
	if (nl_counted(s))
		act->nelem += vals;
	for (unsigned r = 0; r < nrow; r++)
		if ((*e = anem_dma_move_rows(m, out_rows(m, out, g, y0 + r, c->cout), (int64_t)out->plane,
					     ost + (uint64_t)r * c->cout * c->W, (int64_t)c->W * 2,
					     c->W * 2u, c->cout)))
			return 1;
	return 1;
}

/*
 * A one-row convolution (a 1x1 over positions: a linear layer, a projection) by channel lines:
 * after the row's columns, each task takes consecutive channel lines and, for each, packs the
 * line's kernels into its thread's own buffer (pack_outputs), runs the micro-kernels over the
 * columns into its own CB accumulator lines, and finishes those channels into the output
 * staging buffer; then the row leaves in one 2-D move. One hal_parallel call instead of three
 * (packing, micro-kernels, finishing), and no weights or accumulators of the whole layer
 * written to memory and read back: a line's packed kernels (K x CB floats) and accumulators
 * stay in the thread's cache between their write and their read. The same sums in the same
 * order as the three phases, and the same floats (model.conv_threads_bit_identical and
 * model.conv_matches_reference hold both paths to one reference, bit for bit).
 * A kernel with an infinite or NaN weight, an input that is not finite, or a destination that
 * cannot take the row in one move is left to those phases (returns 0, nothing moved but reads;
 * they build the columns again: rare inputs, not worth a second entry into the phases).
 */
struct line_job {
	struct anem *m;
	const struct conv *c;
	const struct stages *s;
	const struct tile *out;
	struct anem_l2t *lres;
	const struct kern_job *k;
	uint16_t *st;  /* channel o's row at o x W */
	uint64_t tasks; /* task i: lines [nob i / tasks, nob (i + 1) / tasks) */
	float X;        /* the row's largest |input| (line_port) */
	uint16_t inf[LINE_TASKS_MAX];
	uint8_t bad[LINE_TASKS_MAX];
};

static void line_task(void *arg, unsigned i)
{
	struct line_job *j = arg;
	const struct conv *c = j->c;
	struct anem *m = j->m;
	const uint64_t per = c->per, as = c->as;
	unsigned t = hal_worker();
	float *w = m->lw + t * per * CB, *acc = m->lacc + t * CB * as;
	uint64_t ob = c->nob * i / j->tasks, end = c->nob * (i + 1) / j->tasks;
	for (; ob < end; ob++) {
		uint64_t o0 = ob * CB, o1 = o0 + CB < c->cout ? o0 + CB : c->cout;
		int bad = 0;
		if (o1 - o0 < CB) /* the last line: the lanes past Cout are 0 */
			zero_lanes(w, (unsigned)(o1 - o0), per);
		uint16_t inf = pack_outputs(j->k, o0, o1, w, ob * per * CB, &bad);
		if (inf || bad) {
			j->inf[i] = inf;
			j->bad[i] = (uint8_t)bad;
			return;
		}
		micro_row(w, m->cols, per, as, acc);
		line_port(m, c, w, m->cols, j->X, 0, (unsigned)o0, (unsigned)o1, acc);
		/* (the row's inputs finite, c->fin[0], and this line's weights: pack_outputs) */
		finish_channels(m, c, j->s, j->out, j->lres, 0, 0, acc, j->st, (unsigned)o0, (unsigned)o1,
				&m->acc_amb, 1);
	}
}

/* Returns 1 when the row was done here (e: a refusal or the move's error), 0 when it is left to
 * the phases (the kernels not yet packed: the caller packs them). */
static int batch_lines(struct anem *m, struct conv *c, const struct stages *s, const struct tile *in,
		       const struct anem_l2t *lsrc, const struct tile *out, struct anem_l2t *lres,
		       struct anem_act *act, const struct kern_job *k, int *e)
{
	*e = ENG_OK;
	if (c->ku || c->G != 1 || out->h != 1 || !c->fast)
		return 0;
	unsigned nw = hal_workers();
	uint64_t vals = (uint64_t)c->cout * c->W;
	uint8_t *dst = out_rows(m, out, 0, 0, c->cout);
	uint16_t *st = dst ? stage_buf(&m->ostage, &m->ostage_len, vals) : NULL;
	if (!st || !anem_dma_rows_ok(m, dst, (int64_t)out->plane, st, (int64_t)c->W * 2, c->W * 2u, c->cout) ||
	    c->per > UINT64_MAX / CB / nw || c->as > UINT64_MAX / CB / nw ||
	    grow_aligned(m, &m->lw, &m->lw_len, nw * c->per * CB, NULL) ||
	    grow_aligned(m, &m->lacc, &m->lacc_len, nw * CB * c->as, NULL))
		return 0;
	/* the row's largest |input| for line_port, taken by the column tasks (no serial pass over
	 * the columns on threads) */
	float X = 0.0f;
	if ((*e = batch_columns(m, c, in, lsrc, 0, 0, 1, c->taps2 ? &X : NULL)))
		return 1;
	if (!c->fin[0])
		return 0; /* the plain loop over these columns, after the phases' packing */
	struct line_job j = {m, c, s, out, lres, k, st, 1, X, {0}, {0}};
	/* with threads, from 2^18 MACs, four tasks a thread as conv_kernels */
	uint64_t tasks = 1;
	if (nw > 1 && c->nob > 1 && c->per * c->as * c->nob * CB >= (1u << 18)) {
		tasks = c->nob < 4u * nw ? c->nob : 4u * nw;
		if (tasks > LINE_TASKS_MAX)
			tasks = LINE_TASKS_MAX;
		j.tasks = tasks;
	}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	(void)cpu_features(); /* read once before any thread asks */
#endif
	m->acc_amb = 0; /* (every input and weight finite here: no sum meets both signs; the PE may, 2) */
	if (tasks == 1)
		line_task(&j, 0);
	else
		model_parallel((unsigned)tasks, line_task, &j);
	for (unsigned t = 0; t < tasks; t++) {
		if (j.bad[t]) {
			*e = ANEM_REFUSE_NOREG(m, ENG_FR_DATA, "an output channel's kernel is not inside its coefficient channel");
			return 1;
		}
		if (j.inf[t])
			return 0; /* the plain loop, after the phases' packing finds the weight */
	}
	if (m->acc_amb) { /* (2: the PE's, finish_channels) */
		*e = ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, m->acc_amb == 2 ? PE_AMB_TEXT : ACC_AMB_TEXT);
		return 1;
	}
	if (nl_counted(s))
		act->nelem += vals;
	m->conv_lines++;
	*e = anem_dma_move_rows(m, dst, (int64_t)out->plane, st, (int64_t)c->W * 2, c->W * 2u, c->cout);
	return 1;
}

/* Rows on threads take batches of up to this many bytes of staged inputs and outputs. */
#define ROWS_STAGE_BYTES (1u << 20)

/*
 * How the rows are batched and whether the fast path runs. With threads (hal_workers > 1: host
 * threads or the target's cores), when the output has more than one row and the window's rows
 * overlap or meet (Sy <= Kh: every input row staged is read), rows on threads (batch_rows) take
 * as many rows a batch as ROWS_STAGE_BYTES hold; else up to 8 output rows at a time (at most
 * 2 MiB of columns) share one hal_parallel call a phase: their columns are built, every row's
 * micro-kernels run in parallel, then the rows are finished. Reading a later row's inputs
 * before an earlier row's outputs are written changes nothing when the output does not overlap
 * the input and no fault is armed (a fault counts the engine's moves in order): only then. The
 * fast path wants every weight finite, memory for the columns and aligned buffers.
 */
static int conv_plan(struct anem *m, struct conv *c, const struct tile *in, const struct tile *out)
{
	c->R = 1;
	c->nt = 1;
	c->rows = 0;
	/* each thread's scratch row on cache lines of its own: threads writing the two ends of one
	 * line pass it back and forth on every input line (the 3x3 ran 20% slower on two threads
	 * whenever the buffer's place put the border inside a line) */
	c->fbs = ((uint64_t)c->Win + ANEM_LINE_FLOATS - 1) / ANEM_LINE_FLOATS * ANEM_LINE_FLOATS;
	int apart = !in->r || !out->r || in->r->cpu + in->r->len <= out->r->cpu ||
		    out->r->cpu + out->r->len <= in->r->cpu;
	unsigned nw = hal_workers();
	if (nw > 1 && apart && m->fault == ANEM_FAULT_NONE && c->per <= UINT64_MAX / c->as / 4) {
		/* bytes a batch stages: the window's first rows, then Sy input rows and an output
		 * row a row (each factor under 2^17: no overflow) */
		uint64_t first = (uint64_t)c->kh * c->cin * c->Win * 2;
		uint64_t each = ((uint64_t)c->sy * c->cin * c->Win + (uint64_t)c->cout * c->W) * 2;
		uint64_t fit = first < ROWS_STAGE_BYTES ? (ROWS_STAGE_BYTES - first) / each : 0;
		if (out->h > 1 && c->sy <= c->kh && fit >= 2 && nw <= 64) {
			c->rows = 1;
			c->nt = nw;
			c->R = fit < out->h ? (unsigned)fit : out->h;
		} else {
			fit = (1ull << 19) / (c->per * c->as); /* per, as >= 1 */
			c->R = fit >= 8 ? 8u : fit ? (unsigned)fit : 1u;
			if (c->R > out->h)
				c->R = out->h;
		}
	}
	uint64_t nbuf = c->rows ? c->nt : c->R; /* accumulator and column buffers */
	int e = grow_aligned(m, &m->acc, &m->acc_len, nbuf * c->nob * CB * c->as,
			     "convolution accumulators (Cout x Common.OutDim.Wout) over the model's buffer limit");
	if (e)
		return e;
	c->fast = aligned16(m->acc) && c->per <= UINT64_MAX / c->as / nbuf &&
		  !grow_aligned(m, &m->cols, &m->cols_len, nbuf * c->per * c->as, NULL) &&
		  aligned16(m->cols) && aligned16(m->wts) && !m->wts_inf;
	if (c->rows && (!c->fast || grow_aligned(m, &m->rfb, &m->rfb_len, (uint64_t)c->nt * c->fbs, NULL))) {
		c->rows = 0; /* row by row */
		c->R = 1;
	}
	return ENG_OK;
}

/* Output rows y0 .. y0 + nrow - 1 (nrow <= c->R, buffers for nrow rows) by phases: the columns,
 * the micro-kernels, then the rows finished (each phase on threads when there are). */
static int conv_batch(struct anem *m, struct conv *c, const struct stages *s, const struct tile *in,
		      const struct anem_l2t *lsrc, struct tile *out, struct anem_l2t *lres,
		      struct anem_act *act, unsigned g, unsigned y0, unsigned nrow)
{
	int e;
	if (c->fast && (e = batch_columns(m, c, in, lsrc, g, y0, nrow, NULL)))
		return e;
	if (c->fast)
		conv_kernels(m, c, g, nrow);
	if (c->fast) { /* the plain rows read only the columns: no move */
		for (unsigned r = 0; r < nrow; r++)
			if (!c->fin[r] &&
			    (e = conv_plain_row(m, c, in, lsrc, g, y0 + r, m->cols + r * c->per * c->as,
						m->acc + r * c->nob * CB * c->as)))
				return e;
		for (unsigned r = 0; r < nrow; r++)
			row_port(m, c, m->wts + (uint64_t)g * c->nob * c->per * CB,
				 m->cols + r * c->per * c->as, g, m->acc + r * c->nob * CB * c->as);
		int done = batch_finish(m, c, s, out, lres, act, g, y0, nrow, &e);
		if (e || done)
			return e;
	}
	for (unsigned r = 0; r < nrow; r++) {
		float *acc = m->acc + r * c->nob * CB * c->as;
		if (!c->fast && (e = conv_plain_row(m, c, in, lsrc, g, y0 + r, NULL, acc)))
			return e;
		if ((e = conv_finish_row(m, c, s, out, lres, act, g, y0 + r, acc,
					 c->fast && c->fin[r] && !m->wts_inf)))
			return e;
	}
	return ENG_OK;
}

/* A convolution's biases (NE.MACCfg.BiasMode's, in the kernels; NE.AccBias, one for every
 * output) only where they are pinned: with PostScale 1 (no program shows whether a bias is
 * scaled), not with a kernel unit (ku), and not both at once. */
static int conv_biases_modelled(struct anem *m, const struct stages *s, int ku)
{
	/* (fw/td td_conv_biases_refusal, which inspect marks: on a convolution with kernels in
	 * memory s->conv_accbias is NE.AccBias nonzero) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	(void)s;
	td_conv_biases_refusal(&regs, ku, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/* The line a SparseBinary lane opens with: its palette, padded to 64 bytes */
#define PK_PAL_LINE 64u

/*
 * Apple's pad form of a depthwise convolution's kernels (NE.KernelCfg 0x8116; docs/engine-model.md,
 * "Depthwise convolutions"): lane c holds a 64-byte line, the 1-bit palette (two fp16 entries) and
 * zeros, then channel c's phase-sparse record whose body is its mask bytes alone (fw/codec's
 * codec_pkern_record, binary). Apple's pad pins one record a lane, no bias, and the palette
 * (1.0, +0), whose marked taps are 1.0 whichever of "the entry 0" or "one" the engine reads: any
 * other palette, a bias, or more than 16 channels (several records a lane, whose palettes' places
 * nothing pins) is refused by name. Sets pk to decode the marks as 1.0.
 */
static int pad_form_palettes(struct anem *m, const struct mrange *r, unsigned nr, unsigned C,
			     unsigned bias, struct codec_pkern *pk)
{
	{ /* no bias, at most 16 channels (fw/td td_pad_form_refusal, which inspect marks; bias is
	   * BiasMode, C the TD's Cout) */
		const struct td_regs regs = {kept_get, m};
		struct td_refusal no = {0};
		(void)bias;
		td_pad_form_refusal(&regs, C, 0, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	for (unsigned c = 0; c < C; c++) {
		const struct mrange *ch = find_range(r, nr, TD_R_COEFF, c);
		if (!ch || ch->len < PK_PAL_LINE + 3u)
			return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, "an output channel's kernel is not inside its "
						 "coefficient channel");
		int other = le_rd16(ch->cpu) != FP16_ONE;
		for (unsigned b = 2; b < PK_PAL_LINE; b++)
			other |= ch->cpu[b] != 0;
		if (other)
			return anem_refuse(m, ENG_FR_DATA, H13_COEFF_BASEADDR(c), 0, 32,
					   "a SparseBinary lane's palette line other than Apple's pad's (1.0, then "
					   "zeros to 64 bytes) not modelled: which entry a marked tap takes is not "
					   "pinned");
	}
	pk->binary = 1;
	pk->mark = FP16_ONE;
	return ENG_OK;
}

/*
 * The pad form under Common.Cfg.SmallSourceMode (docs/engine-model.md, "Apple's pad form"). Apple's
 * H13 pad with the bit set (encoder_conv_pad_..._tiny, its 2x1 window: Kw 2) keeps the record the
 * clear bit gives, byte for byte: one mask byte (01 00 00 01), where 4 slots a tap (the fp16
 * records' reading of the bit) would need two. Read as that program pins it: 2 slots a tap, one
 * mask byte a record (windows up to 2 x 2), and a mark on tap (0, 0) alone, bit 0, the one slot the
 * two readings agree on; a larger window or a mark on another tap (bit 2 or 4, which 2 or 4 slots a
 * tap put on different taps) is refused by name.
 */
#define PF_SSM_LANES TD_PF_SSM_LANES
static int pad_form_small_source(struct anem *m, struct codec_pkern *pk)
{
	pk->lanes = PF_SSM_LANES;
	/* (fw/td td_pad_form_refusal, which inspect marks: pk's window is the TD's, one output and
	 * one input channel a record) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_pad_form_refusal(&regs, 0, 1, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/* After decoding under pad_form_small_source: every channel's marks on tap (0, 0) alone. */
static int pad_form_small_source_marks(struct anem *m, unsigned C, uint64_t kel)
{
	for (unsigned c = 0; c < C; c++)
		for (uint64_t i = 1; i < kel; i++)
			if (m->dk[(uint64_t)c * kel + i] & 0x7fffu)
				return ANEM_REFUSE(m, ENG_FR_COMBINATION, H13_COMMON_CFG, H13_CFG_SMALLSOURCE,
						   "a SparseBinary mark on other than tap (0, 0) under "
						   "Common.Cfg.SmallSourceMode not modelled: 2 or 4 slots a tap "
						   "put it on different taps, and no program pins which");
	return ENG_OK;
}

/*
 * One kernel column kx of a depthwise row (and of each column of Ox 2's): weight wv times the
 * inputs x Sx - Px + kx of fb for the output positions x that reach inside its Win values, added
 * to acc in order (a 0 weight adds nothing; 0 x inf adds nothing, guide 03), the port's saturation
 * sign kept in first at the first partial past its floor lim.
 */
static inline void dw_column(float *acc, float *first, const float *fb, unsigned W, unsigned Win, unsigned sx,
			     unsigned kx, unsigned px, float wv, float lim, int dcv, float db, float post)
{
	unsigned x0, x1;
	if (wv == 0.0f)
		return;
	conv_span(W, Win, sx, kx, px, &x0, &x1);
	if (x0 >= x1)
		return; /* (an empty span's first input is before fb) */
	const float *src = fb + ((int64_t)x0 * sx + kx - px);
	const int winf = __builtin_isinf(wv);
	for (unsigned x = x0; x < x1; x++) {
		if (winf && src[(uint64_t)(x - x0) * sx] == 0.0f)
			continue;
		float t = acc[x] + wv * src[(uint64_t)(x - x0) * sx];
		acc[x] = t;
		if (!(__builtin_fabsf(t) < lim) && first[x] == 0.0f)
			first[x] = (float)port_sign_sat(t, dcv, 1.0f, db, post);
	}
}

/*
 * Row y of channel c of a depthwise convolution with Common.ConvCfg.Ox 2 (fw/td td_ox_refusal: Sx 2,
 * Kh 1, plain fp16 kernels, the result in L2 memory; docs/engine-model.md, "Ox 2 computes"), W =
 * 2 x Wout values into v: output position j computes columns 2j + k, k = 0 and 1, from inputs
 * 2j - Px + p, p = 0 .. Kw, each column through its own taps. The record w (td_dw_kel's, read
 * through the MAC's input port) holds the two biases (column 0's, column 1's) with BiasMode,
 * then Kw + 1 positions of two weights (column 0's, column 1's), the positions in parity order
 * (0, 2, 4, ..., then 1, 3, ...), as Apple's depthwise 1x9's constant has them (its SHA-256
 * pins that order and the pair's). Each column is summed as a stride-2 row of the plain
 * depthwise loop (fp32 in position order, 0 weights skipped, the port on each partial, rounded
 * once), then the two are interleaved.
 */
static int dw_ox2_row(struct anem *m, const struct stages *s, const struct td_window *win, struct tile *in,
		      const struct anem_l2t *lsrc, unsigned c, unsigned y, unsigned Win, unsigned Hin,
		      const float *w, unsigned bias, unsigned W, uint16_t *v)
{
	const unsigned J = W / 2u, P = win->kw + 1u, odd0 = (P + 1u) / 2u;
	float *acc = m->acc, *first = m->acc + W;
	const int dcv = bias || s->conv_accbias, dtaps2 = win->kw + bias + (unsigned)s->conv_accbias >= 2u;
	const int64_t iy = (int64_t)y - win->py; /* (Kh 1, Sy 1) */
	if (iy < 0 || iy >= (int64_t)Hin) {
		for (unsigned x = 0; x < W; x++)
			m->fb[x] = 0.0f;
	} else {
		int e = source_row(m, in, lsrc, 0, c, (unsigned)iy, Win, m->hv);
		if (e)
			return e;
		for (unsigned i = 0; i < Win; i++)
			m->fb[i] = mac_in(m->hv[i]);
	}
	for (unsigned k = 0; k < 2u; k++) {
		memset(acc, 0, J * sizeof *acc);
		const float db = bias ? w[k] : s->conv_accbias ? s->accbias : 0.0f;
		const float lim = dtaps2 ? port_floor(dcv, 1.0f, db, s->post) : __builtin_inff();
		const int b0 = bias_row(dcv && dtaps2, 1.0f, db, s->post);
		for (unsigned x = 0; x < J; x++)
			first[x] = (float)b0;
		for (unsigned p = 0; p < P && iy >= 0 && iy < (int64_t)Hin; p++) {
			const unsigned q = p % 2u ? odd0 + p / 2u : p / 2u; /* its place in the record */
			dw_column(acc, first, m->fb, J, Win, 2u, p, win->px, w[2u * bias + 2u * q + k], lim, dcv, db,
				  s->post);
		}
		port_first_row(acc, first, J, dcv, 1.0f, s->post);
		/* as depthwise(): refused before the row leaves (acc_row_amb; a NaN weight never gets
		 * here: nan_in over the records first) */
		if (acc_row_amb(acc, J, dcv, 1.0f, db) != J)
			return ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, ACC_AMB_TEXT);
		conv_out_row(m->hv2 + k * J, acc, J, dcv, 1.0f, db, s->post, dtaps2);
	}
	for (unsigned j = 0; j < J; j++) {
		v[2u * j] = m->hv2[j];
		v[2u * j + 1u] = m->hv2[J + j];
	}
	return ENG_OK;
}

/*
 * A depthwise convolution as Apple's H13 compiler writes one (docs/engine-model.md, "Depthwise
 * convolutions"): a convolution with kernels in memory (MACCfg.OpMode 0, KernelMode 0), NumGroups 1,
 * GroupConvCfg UnicastEn 1 and UnicastCin N, Cin = N x Cout: output channel c from the N input
 * channels cN .. cN + N - 1 alone, through its own N x Kh x Kw kernel ((ci, ky, kx) order, as the
 * dense kernels). N 1: Apple's depthwise convolutions, fp16 kernels. N 2: Apple's H13 less (x, y)
 * -> bool (less_bool_rr_1x64x1x1 and _375x1x1, their constants rebuilt byte for byte): a 1x1
 * kernel of KernelFmt 1 bytes (+1, -1) over x and y interleaved, then a [v < 0] step; N above 1
 * is modelled as that program pins it only: a 1x1 window, no bias. The kernels are back to back,
 * channel c's at (c / 16) x kel elements in coefficient channel c mod 16 (the lanes C of them when
 * C < 16, else 16; C a multiple of 16 for N 1, any C for N 2, as the 375-channel less lays it out).
 * Each output is accumulated in fp32 ((ci, ky, kx) order, terms outside the input and 0 weights
 * skipped, inputs and fp16 weights through the MAC's input port; a KernelFmt 1 byte as the signed
 * integer it holds: "Registers"), times PostScale, rounded once, as the dense convolution's plain
 * loop; then the nonlinear stage and a one-operand PE. Other forms are refused by name.
 */
static int depthwise(struct anem *m, const struct mrange *r, unsigned nr, const struct stages *s,
		     const struct td_window *win, struct tile *in, const struct anem_l2t *lsrc,
		     struct tile *out, struct anem_l2t *lres, struct anem_act *act)
{
	const uint32_t gc = REG(H13_COMMON_GROUPCONVCFG);
	const unsigned C = out->c, cin = lsrc ? lsrc->c : in->c, Win = lsrc ? lsrc->w : in->w;
	const unsigned Hin = lsrc ? lsrc->h : in->h, W = out->w, N = H13_GET(gc, H13_GROUPCONV_UNICASTCIN);
	/* the forms Apple's programs pin, on the registers and the tiles' shapes (fw/td
	 * td_depthwise_refusal, which inspect marks too); then NumGroups as the tiles have it */
	{
		const struct td_regs regs = {kept_get, m};
		struct td_refusal no = {0};
		td_depthwise_refusal(&regs, cin, C, m->ku_ok, &no);
		if (!no.why && out->g != 1u)
			td_refuse(&no, 0, H13_COMMON_GROUPCONVCFG, 0, 32, TD_DW_GROUPCONV_TEXT);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	const uint32_t kc = REG(H13_NE_KERNELCFG);
	const unsigned binary = H13_GET(kc, H13_KERNELCFG_SPARSEBINARY), kfmt = H13_GET(kc, H13_KERNELCFG_KERNELFMT);
	const unsigned elem = kfmt == H13_KERNELFMT_FP16 ? 2u : 1u;
	/* the lanes read are the first min(C, 16), OCGSize 0's layout (td_ocg_layout over C
	 * outputs); a lane enabled beyond them is refused as the dense path refuses it
	 * (td_ocg_refusal, which inspect marks too), never computed without it: conv.hwx's TD with
	 * Cin = Cout = 1, UnicastEn and channels 1-2 still enabled (allbilly/ane's conv->sigmoid,
	 * which hung on an M1) read channel 0 alone. Apple's depthwise programs enable exactly the
	 * lanes read (its pad form: 8 of 8 channels; 64 and 1024 channels, the less: all 16). A
	 * lane read and not enabled is "not inside its coefficient channel" below, as with a dense
	 * OCGSize 0. */
	{
		const struct td_regs regs = {kept_get, m};
		const struct td_ocg_lay lay = td_ocg_layout(REG(H13_COMMON_CONVCFG), C, C, td_coeff_mask(&regs));
		struct td_refusal no = {0};
		td_ocg_refusal(&lay, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	if (s->pe && s->pe_pool != H13_PE_POOL_NONE)
		return ANEM_REFUSE(m, ENG_FR_COMBINATION, H13_PLANAR_CFG, H13_PECFG_POOLMODE,
				   "a depthwise convolution with pooling in the PE not modelled");
	/* with BiasMode each channel's bias, then its taps (Apple's depthwise convolutions with a
	 * bias, byte for byte) */
	const unsigned bias = H13_GET(REG(H13_NE_MACCFG), H13_MACCFG_BIASMODE);
	/* Common.ConvCfg.Ox 2 (fw/td td_conv_ox: Apple's depthwise 1x9's form, W then 2 x Wout, as
	 * conv_l2 sized the result): the record Ox biases, then Kw + 1 positions of Ox weights
	 * (td_dw_kel, which inspect reads too) */
	const struct td_regs kregs = {kept_get, m};
	const unsigned ox = td_conv_ox(&kregs, m->cur_bar_en);
	const uint64_t per = (uint64_t)N * win->kw * win->kh, kel = td_dw_kel(&kregs, cin);
	if (ox == 2u && (out->r || !lres)) /* (a backstop: td_ox_refusal keeps the result in L2 memory) */
		return ANEM_REFUSE(m, ENG_FR_COMBINATION, H13_COMMON_CONVCFG, H13_CONVCFG_OX,
				   "Common.ConvCfg.Ox 2 with the result other than kept in L2 memory not modelled");
	if (ox == 2u && W > ANEM_ROW_MAX) /* (a backstop: td_ox_refusal bounds Ox x Wout by the rows) */
		return ANEM_REFUSE(m, ENG_FR_CAPACITY, H13_COMMON_OUTDIM, H13_OUTDIM_WOUT,
				   "Common.ConvCfg.Ox 2 with Ox x Wout over the model's rows");
	int e = conv_biases_modelled(m, s, 0);
	if (!e)
		e = grow_aligned(m, &m->acc, &m->acc_len, 2 * (uint64_t)W + kel * C,
				 "depthwise kernels and a row (Cout, Kh x Kw, Common.OutDim.Wout)");
	if (e)
		return e;
	/* a row's sums, the sign of each one's first partial saturated at the port (above
	 * line_port), then channel c's bias (if any) and taps at c x kel */
	float *acc = m->acc, *first = m->acc + W, *wt = m->acc + 2 * (uint64_t)W;
	const int dcv = bias || s->conv_accbias, dtaps2 = kel + (unsigned)s->conv_accbias >= 2;
	/* phase-sparse kernels (Apple's stride-2 depthwise convolutions): lane c's records, one
	 * channel each, for channels c, c + 16, ..., decoded whole into m->dk first */
	struct codec_pkern pk;
	const unsigned sparse = H13_GET(REG(H13_NE_KERNELCFG), H13_KERNELCFG_SPARSEFMT);
	if ((e = kernel_cfg_read(m, 0, 1)) || (e = pk_params(m, 1, 1, win->kh, win->kw, bias, &pk)))
		return e;
	const unsigned ssm = H13_GET(REG(H13_COMMON_CFG), H13_CFG_SMALLSOURCE);
	if (binary && ((e = pad_form_palettes(m, r, nr, C, bias, &pk)) || (ssm && (e = pad_form_small_source(m, &pk)))))
		return e;
	if (sparse && !(e = grow16(m, &m->dk, &m->dk_len, C * kel + per + 1u, PK_DK_TEXT)))
		for (unsigned c = 0; !e && c < H13_COEFF_NCH; c++) {
			const struct mrange *ch = find_range(r, nr, TD_R_COEFF, c);
			struct mrange rec; /* with SparseBinary, the record after the palette's line */
			if (ch && binary && c < C) {
				rec = *ch;
				rec.cpu += PK_PAL_LINE;
				rec.len -= PK_PAL_LINE;
				ch = &rec;
			}
			e = pk_channel(m, ch, &pk, c, H13_COEFF_NCH, C, kel, 0);
		}
	if (!e && binary && ssm)
		e = pad_form_small_source_marks(m, C, kel);
	if (e)
		return e;
	/* every kernel inside its lane, before any output (dense: fw/td td_dw_lanes_inside_refusal,
	 * which inspect marks; the lanes' lengths are CoeffBfrSize, td_ranges's) */
	if (!sparse) {
		const struct td_regs regs = {kept_get, m};
		struct td_refusal no = {0};
		uint64_t len[H13_COEFF_NCH];
		for (unsigned c = 0; c < H13_COEFF_NCH; c++) {
			const struct mrange *ch = find_range(r, nr, TD_R_COEFF, c);
			len[c] = ch ? ch->len : 0u;
		}
		td_dw_lanes_inside_refusal(&regs, C, kel, len, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	for (unsigned c = 0; c < C; c++) {
		const struct mrange *ch = find_range(r, nr, TD_R_COEFF, c % H13_COEFF_NCH);
		const uint64_t off = (uint64_t)(c / H13_COEFF_NCH) * kel * elem;
		if (!sparse && (!ch || off > ch->len || kel * elem > ch->len - off))
			return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, "an output channel's kernel is not inside its "
						 "coefficient channel");
		const uint8_t *k = sparse ? (const uint8_t *)(const void *)(m->dk + (uint64_t)c * kel) : ch->cpu + off;
		for (uint64_t i = 0; i < kel; i++) /* as the dense kernels are read (weights_strided) */
			wt[c * kel + i] = elem == 2u ? mac_in(le_rd16(k + 2u * i)) : (float)(int8_t)k[i];
	}
	if (elem == 2u && nan_in(wt, (uint64_t)C * kel)) /* the biases in the records too */
		return ANEM_REFUSE_NOREG(m, ENG_FR_DATA, NAN_WEIGHT_TEXT);
	for (unsigned c = 0; c < C; c++)
		for (unsigned y = 0; y < out->h; y++) {
			if (ox == 2u) { /* two columns a position (dw_ox2_row) */
				uint16_t *v = m->hv;
				if ((e = dw_ox2_row(m, s, win, in, lsrc, c, y, Win, Hin, wt + c * kel, bias, W, v)))
					return e;
				nonlinear(m, s, v, W, act);
				if (s->pe && (e = pe_amb_refusal(m, s, v, NULL, W)))
					return e;
				if (s->pe)
					pe_row(s, v, NULL, v, W);
				if ((e = emit_row(m, out, lres, 0, c, y, v)))
					return e;
				continue;
			}
			memset(acc, 0, W * sizeof *acc);
			const float db = bias ? wt[c * kel] : s->conv_accbias ? s->accbias : 0.0f;
			const float lim = dtaps2 ? port_floor(dcv, 1.0f, db, s->post) : __builtin_inff();
			const int b0 = bias_row(dcv && dtaps2, 1.0f, db, s->post);
			for (unsigned x = 0; x < W; x++)
				first[x] = (float)b0;
			for (unsigned t = 0; t < N * win->kh; t++) { /* input channel cN + j, row ky */
				const unsigned j = t / win->kh, ky = t % win->kh;
				int64_t iy = (int64_t)y * win->sy - win->py + ky;
				if (iy < 0 || iy >= (int64_t)Hin)
					continue;
				uint16_t *v = m->hv;
				if ((e = source_row(m, in, lsrc, 0, c * N + j, (unsigned)iy, Win, v)))
					return e;
				for (unsigned i = 0; i < Win; i++)
					m->fb[i] = mac_in(v[i]);
				for (unsigned kx = 0; kx < win->kw; kx++)
					dw_column(acc, first, m->fb, W, Win, win->sx, kx, win->px,
						  wt[c * kel + bias + ((uint64_t)j * win->kh + ky) * win->kw + kx], lim, dcv,
						  db, s->post);
			}
			port_first_row(acc, first, W, dcv, 1.0f, s->post);
			if (acc_row_amb(acc, W, dcv, 1.0f, db) != W)
				return ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, ACC_AMB_TEXT);
			uint16_t *v = m->hv;
			conv_out_row(v, acc, W, dcv, 1.0f, db, s->post, dtaps2);
			nonlinear(m, s, v, W, act);
			if (s->pe && (e = pe_amb_refusal(m, s, v, NULL, W)))
				return e;
			if (s->pe)
				pe_row(s, v, NULL, v, W);
			if ((e = emit_row(m, out, lres, 0, c, y, v)))
				return e;
		}
	return ENG_OK;
}

/* Convolution / matrix multiply: per group g, out[g][o][y][x] = post x sum over ci, ky, kx of
 * W[g Cout + o][ci][ky][kx] x in[g][ci][y Sy - Py + ky][x Sx - Px + kx] (0 outside the input),
 * accumulated in fp32, then the activation and the PE as for elementwise TDs. */
static int convolution(struct anem *m, const struct mrange *r, unsigned nr, const struct stages *s,
		       struct tile *in, const struct anem_l2t *lsrc, struct tile *out,
		       struct anem_l2t *lres, struct anem_act *act)
{
	const struct td_window win = td_window_of(REG(H13_COMMON_CONVCFG));
	struct conv c = {win.kw, win.kh, win.sx, win.sy, win.px, win.py, out->g,
			 lsrc ? lsrc->c : in->c, out->c, out->w, lsrc ? lsrc->w : in->w,
			 lsrc ? lsrc->h : in->h, 0, 0, 0, 1, 1, 0, 0, m->ku_ok, 0, {0}, 0, 0,
			 0.0f, 0.0f, 0.0f, s->post, 0};
	{ /* a zero window or input (fw/td td_conv_window_refusal), then a second PE operand (fw/td
	   * td_conv_second_source_refusal), which inspect marks */
		const struct td_regs regs = {kept_get, m};
		struct td_refusal no = {0};
		td_conv_window_refusal(&regs, c.cin, c.Win, 0, &no);
		td_conv_second_source_refusal(&regs, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	/* Apple's depthwise convolutions keep NumGroups 1 and set UnicastEn: read as a dense one,
	 * it would mix the channels */
	if (H13_GET(REG(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_UNICASTEN))
		return depthwise(m, r, nr, s, &win, in, lsrc, out, lres, act);
	/* a kernel-unit program (its streams name the unit): the kernel is the TD's OCG */
	uint64_t nout = (uint64_t)c.G * c.cout;
	struct kern_job kj;
	unsigned bias = H13_GET(REG(H13_NE_MACCFG), H13_MACCFG_BIASMODE);
	int e = conv_biases_modelled(m, s, c.ku);
	if (!e)
		e = c.ku ? load_kernels_ku(m, r, nr, nout, c.cout, c.cin, c.kh, c.kw)
		     : load_kernels(m, r, nr, nout, c.cout, c.cin, c.kh, c.kw, bias, &kj);
	if (!e && c.ku)
		e = load_channel_vectors(m, r, nr, nout);
	if (!e && s->conv_accbias && !(e = grow(m, &m->chv, &m->chv_len, 2 * nout, "per-channel biases "
						"(NumGroups x Cout) over the model's buffer limit")))
		for (uint64_t o = 0; o < nout; o++) { /* every output's bias NE.AccBias */
			m->chv[o] = 1.0f;
			m->chv[nout + o] = s->accbias;
		}
	if (e)
		return e;
	/* accumulators: Cout rounded up to CB lines of W rounded up to XB (the fast path's blocks) */
	c.as = ((uint64_t)c.W + XB - 1) / XB * XB;
	c.nob = ((uint64_t)c.cout + CB - 1) / CB;
	c.per = (uint64_t)c.cin * c.kh * c.kw;
	c.cv = c.ku || bias || s->conv_accbias;
	/* the bias is the reduction's first row (its kernels' element 0): one more term, as AccBias
	 * is in the accumulator */
	c.taps2 = c.per + (bias || s->conv_accbias) >= 2;
	c.brow = c.taps2 && !c.ku && (bias || s->conv_accbias);
	c.pfloor1 = port_floor(0, 1.0f, 0.0f, c.post);
	/* the plan as if every weight were finite (the kernels are packed below, or by the lines) */
	if ((e = conv_plan(m, &c, in, out)) || (e = nan_bias_refusal(m, &c, nout)))
		return e;
	if (!c.ku) {
		if (batch_lines(m, &c, s, in, lsrc, out, lres, act, &kj, &e))
			return e;
		if ((e = kern_pack(m, &kj)))
			return e;
		if (m->wts_inf && (e = conv_plan(m, &c, in, out))) /* the plain loop */
			return e;
	}
	if ((e = nan_weight_refusal(m, &c)))
		return e;
	if (c.taps2 && c.fast) { /* the port's layer-wide bound (row_port) */
		for (unsigned g = 0; g < c.G; g++) {
			float a = lines_abs_max(&c, m->wts + (uint64_t)g * c.nob * c.per * CB);
			c.wabs = !(a <= c.wabs) ? a : c.wabs;
		}
		c.pfloor = port_floor_min(m, &c);
	}
	for (unsigned g = 0; g < c.G; g++)
		for (unsigned y0 = 0; y0 < out->h; y0 += c.R) {
			unsigned nrow = out->h - y0 < c.R ? out->h - y0 : c.R;
			int done = batch_rows(m, &c, s, in, lsrc, out, lres, act, g, y0, nrow, &e);
			if (e)
				return e;
			/* else rows on threads' batch a row at a time, or the batch of up to 8 */
			for (unsigned y = y0, n = c.rows ? 1 : nrow; !done && y < y0 + nrow; y += n)
				if ((e = conv_batch(m, &c, s, in, lsrc, out, lres, act, g, y, n)))
					return e;
		}
	return ENG_OK;
}

/*
 * NE.MACCfg.KernelMode (bit 3) says the MAC reads no kernel from memory: it is set in every NE
 * configuration of the fixtures that has none (all 17 elementwise NE TDs, OpMode 4; allbilly/ane's
 * identity, relu and sigmoid register programs, MACCfg 0x1x000c with KernelCfg 0x80) and clear in
 * every one that does (conv.hwx; allbilly/ane's conv and gemm, 0x101c00). unary/inv.bin is the one
 * convolution (OpMode 0) with it set: 1 -> 1 channel, 1x1, NE.AccBias 0x068e (1.0e-4) and the
 * reciprocal record, i.e. CoreML's inverse, 1/(x + epsilon) with its default epsilon 1e-4. The
 * model reads it as the accumulator of a unit kernel: acc = x (the MAC's input port) + AccBias in
 * fp32, times NE.PostScale, rounded to fp16, then the nonlinear stage (docs/engine-model.md,
 * "KernelMode and AccBias"). Anything wider (more channels, a window, a stride, padding, an
 * AccBiasShift) would need the unit kernel's shape, which no evidence gives: refused. NE.AccBias
 * anywhere else has no modelled meaning: refused, never ignored.
 */
static int ne_kernel_mode(struct anem *m, struct stages *s, uint32_t mac)
{
	uint32_t ab = REG(H13_NE_ACCBIAS);
	s->unit = s->ne && s->ne_op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE);
	/* a convolution with kernels in memory: AccBias is one bias for every output (Apple's H13
	 * compiler folds a bias whose values are all equal into it, BiasMode clear) */
	s->conv_accbias = s->ne && s->ne_op == H13_MAC_OP_CONV && !s->unit && ab;
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	if (!s->unit && !s->conv_accbias) { /* AccBias elsewhere (fw/td td_ne_accbias_refusal, which
					      * inspect marks) */
		td_ne_accbias_refusal(&regs, &no);
		return no.why ? td_refusal_fault(m, &no) : ENG_OK;
	}
	td_accbias_shift_refusal(&regs, &no); /* (inspect marks it too) */
	if (no.why)
		return td_refusal_fault(m, &no);
	s->accbias = h2f_table[H13_GET(ab, H13_ACCBIAS)];
	return ENG_OK;
}

/* The unit kernel's accumulator on a row (in place): fp16 of (x + AccBias) x PostScale, x through
 * the MAC's input port (a subnormal enters as +0, and -0 as +0: guide 03's reciprocal of -0). */
static void unit_kernel_row(const struct stages *s, uint16_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		v[i] = f2h((mac_in(v[i]) + s->accbias) * s->post);
}

/* A convolution with KernelMode 1 (see ne_kernel_mode): 1x1, stride 1, no padding, 1 -> 1 channel
 * (inv.bin) or C -> C channel by channel (fw/td's td_unit_channels_ok: Apple's rsqrt). */
static int unit_kernel_shape(struct anem *m, unsigned cin, unsigned cout)
{
	/* fw/td td_unit_kernel_refusal, which inspect marks */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_unit_kernel_refusal(&regs, cin, cout, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

static int unit_kernel_conv(struct anem *m, const struct stages *s, struct tile *in0, struct tile *in1,
			    const struct anem_l2t *lsrc, struct tile *out, struct anem_l2t *lres,
			    struct anem_act *act)
{
	int e = unit_kernel_shape(m, lsrc ? lsrc->c : in0->c, out->c);
	return e ? e : elementwise(m, s, in0, in1, lsrc, out, lres, act);
}

/* A convolution that reads its kernels from memory (KernelMode 0) while its only coefficient bytes
 * are the activation LUT's record has no kernel: it would convolve with the record's bytes (as the
 * model once did with unary/inv.bin, writing +inf everywhere). Refused. */
static int kernel_not_the_record(struct anem *m, const struct mrange *r, unsigned nr,
				 const struct anem_act *act)
{
	if (m->ku_ok || act->state != ANEM_ACT_APPLIED || act->from_stream)
		return ENG_OK;
	for (unsigned i = 0; i < nr; i++)
		if (r[i].kind == TD_R_COEFF && r[i].dev == act->dev)
			return ANEM_REFUSE(m, ENG_FR_COMBINATION, H13_NE_MACCFG, H13_MACCFG_KERNELMODE,
					   TD_CONV_RECORD_WHY); /* (fw/td td_conv_record_channel_refusal, which
								 * inspect marks) */
	return ENG_OK;
}

/* ---- row reductions into L2 memory (docs/engine-model.md, "Reductions into L2 memory"): fw/td's
 * td_kept_of reads the registers; these compute what it reads ---- */

static uint32_t kept_get(const void *ctx, uint32_t a)
{
	const struct anem *m = ctx;
	return a < ANEM_WINDOW_BYTES ? m->regs[a / 4] : 0;
}

/* A reading's refusal (td_kept_of, td_l2mem_of) as the TD's fault. */
static int td_refusal_fault(struct anem *m, const struct td_refusal *r)
{
	return anem_refuse(m, r->cls == TD_RF_CAPACITY ? ENG_FR_CAPACITY
			      : r->cls == TD_RF_DATA ? ENG_FR_DATA : r->cls ? ENG_FR_COMBINATION : ENG_FR_FIELD,
			   r->reg == TD_KEPT_NO_REG ? ENG_FAULT_NO_REG : r->reg, r->lsb, r->width, r->why);
}

/*
 * A reduction (Common.Cfg.TaskType 5: softmax.bin TDs 0 and 3, Apple's softmax TDs 1 and 4, Apple's
 * reduce_sum, reduce_mean and reduce_max over H and W): each plane (g, c) of the source, its H rows
 * by tile DMA through the input port (NaN enters as +inf) or from L2 memory, reduced to one value:
 * the maximum (one of the plane's fp16 values, exactly), or the sum, accumulated in fp32 in element
 * order (row by row), then its reciprocal in fp32 (NLMode 1), then FinalScale (fp32, the PE's last
 * multiplier: 1/64 in reduce_mean over 8 x 8), rounded once to fp16. PreScale, Scale and Bias are
 * identity (td_kept_of refuses others). The value goes to L2 memory at element (g, c, 0, 0) of the
 * result (td_l2mem_of's view), or by the tile DMA to element (g, c, 0, 0) of the destination, as a
 * row of one value (Apple's reduce_sum writes a channel's sum every 64 bytes, the rest of each
 * 64-byte line zeroed: TileDMADst.Fmt.ZeroPadLast).
 */
static int l2m_ready(struct anem *m);
static int l2m_read_row(struct anem *m, const struct td_l2view *v, uint32_t base_reg, const char *what,
			unsigned g, unsigned c, unsigned h, unsigned w, uint16_t *out);
static void l2m_write_row(struct anem *m, const struct td_l2view *v, unsigned g, unsigned c, unsigned h,
			  unsigned w, const uint16_t *in);

/* A plane's sum meeting an indeterminate form (inf - inf between its values or in a difference,
 * 0 x inf in a product): guide 03 gives +0 for each elementwise, not where the planar engine
 * flushes one inside a sum (the fp32 sum's NaN made the value +0): refused by name. */
#define RED_AMB_TEXT                                                                               \
	"a reduction's sum meets an indeterminate form (inf - inf, or 0 x inf in a product): guide "  \
	"03 gives +0 elementwise and does not say where the planar engine flushes it inside a sum"
static int reduce_planes(struct anem *m, const struct td_kept *k, const struct td_l2mem *l,
			 const struct tile *in, const struct tile *in2, const struct tile *out)
{
	if (k->w > ANEM_ROW_MAX || (!l->src1.on && !in->r) || (k->two && !l->src2.on && !in2->r))
		return ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, "a reduction of rows wider than the model holds");
	/* the values it reads, bounded: rows from L2 memory cost no DMA move, so the watchdog, which
	 * counts those, does not bound a reduction whose strides are 0 (planes x D x H < 2^50) */
	if (k->w && (uint64_t)k->rows * k->d * k->h > ANEM_REDUCE_MAX / k->w)
		return anem_refuse(m, ENG_FR_CAPACITY, H13_COMMON_INDIM, 0, 32,
				   "a reduction of more than 2^28 values (NumGroups x Cin x InDepth x Hin x Win) "
				   "not modelled");
	if (!l->res.on && !out->r)
		return ANEM_REFUSE_NOREG(m, ENG_FR_COMBINATION, "a reduction whose result goes nowhere");
	if (!l->res.on && out->fmt != H13_FMT_FP16)
		return ANEM_REFUSE(m, ENG_FR_COMBINATION, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT,
				   "a reduction with a non-fp16 output not modelled");
	int e = l->any ? l2m_ready(m) : ENG_OK; /* (any: the rows or the result in L2 memory) */
	if (e)
		return e;
	uint32_t fin_bits = REG(H13_PLANAR_FINALSCALE);
	float fin;
	memcpy(&fin, &fin_bits, sizeof fin);
	const float eps = h2f_table[k->eps];
	struct tile one = *out; /* the destination, one value a plane */
	one.w = one.h = 1;
	/* PECfg.OutputTranspose: a group's values side by side in row (g, 0, 0) */
	struct tile row = *out;
	row.w = in->c;
	row.h = row.c = 1;
	if (k->out_transpose && !l->res.on && in->c > ANEM_ROW_MAX)
		return ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, "a transposed reduction of more planes a group than the model holds");
	uint16_t *vals = (uint16_t *)(void *)m->row[1]; /* (row[0] and row[2]: read_row, write_row) */
	for (unsigned g = 0; g < in->g; g++) {
		for (unsigned c = 0; c < in->c; c++) {
			uint16_t best = 0, y;
			float sum = 0.0f;
			/* D x H rows a plane: each depth's tiles and views start DepthStride further on */
			for (unsigned d = 0; d < k->d; d++) {
				struct mrange r0, r1;
				const struct tile t0 = tile_at_depth(in, d, &r0), t1 = tile_at_depth(in2, d, &r1);
				const struct td_l2view v1 = td_l2view_at_depth(&l->src1, d),
							 v2 = td_l2view_at_depth(&l->src2, d);
				for (unsigned h = 0; h < k->h; h++) {
					uint16_t *v = m->hv;
					if (l->src1.on && !l->keep1)
						e = l2m_read_row(m, &v1, H13_L2_SOURCEBASE, "a reduction reads L2 "
								 "memory no TD of this submission wrote", g, c, h, k->w, v);
					else
						e = read_row(m, &t0, g, c, h, k->w, m->row[0], v);
					if (e)
						return e;
					if (l->keep1) /* SourceType 1: the row kept in L2 as it is read */
						l2m_write_row(m, &v1, g, c, h, k->w, v);
					if (k->kind == TD_KEPT_MAX) {
						if (k->abs) /* |.| first (NaN came in as +inf) */
							for (unsigned i = 0; i < k->w; i++)
								v[i] &= 0x7fffu;
						for (unsigned i = 0; i < k->w; i++)
							if ((!d && !h && !i) || h2f_table[v[i]] > h2f_table[best])
								best = v[i];
						continue;
					}
					if (k->kind == TD_KEPT_MIN) { /* (the first of equal values, as the maximum) */
						for (unsigned i = 0; i < k->w; i++)
							if ((!d && !h && !i) || h2f_table[v[i]] < h2f_table[best])
								best = v[i];
						continue;
					}
					if (k->two) { /* (b - a) squared (OpMode 4), or a x b (OpMode 1) */
						uint16_t *b = m->hv2;
						if (l->src2.on)
							e = l2m_read_row(m, &v2, H13_L2_SOURCE2BASE, "a reduction's second "
									 "operand reads L2 memory no TD of this submission "
									 "wrote", g, c, h, k->w, b);
						else
							e = read_row(m, &t1, g, c, h, k->w, m->row[1], b);
						if (e)
							return e;
						if (k->product) /* a x b, exact in fp32 */
							for (unsigned i = 0; i < k->w; i++)
								sum += h2f_table[v[i]] * h2f_table[b[i]];
						else
							for (unsigned i = 0; i < k->w; i++) {
								float t = h2f_table[b[i]] - h2f_table[v[i]];
								sum += t * t;
							}
					} else if (k->square) {
						for (unsigned i = 0; i < k->w; i++)
							sum += h2f_table[v[i]] * h2f_table[v[i]];
					} else {
						for (unsigned i = 0; i < k->w; i++)
							sum += h2f_table[v[i]];
					}
				}
			}
			const int extreme = k->kind == TD_KEPT_MAX || k->kind == TD_KEPT_MIN;
			if (!extreme && sum != sum) /* inf - inf, or 0 x inf among the products */
				return ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, RED_AMB_TEXT);
			float r = extreme ? h2f_table[best]
				  : k->kind == TD_KEPT_RSUM ? 1.0f / sum
				  : k->kind == TD_KEPT_RSQRT ? 1.0f / __builtin_sqrtf(sum * fin + eps) : sum;
			y = extreme && fin_bits == H13_FINALSCALE_ONE ? best
			    : f2h(k->kind == TD_KEPT_RSQRT ? r : k->eps ? r * fin + eps : r * fin); /* (eps: a sum of squares) */
			if (l->res.on)
				l2m_write_row(m, &l->res, g, c, 0, 1, &y);
			else if (k->out_transpose)
				vals[c] = y;
			else if ((e = write_row(m, &one, g, c, 0, &y, m->row[2])))
				return e;
		}
		if (k->out_transpose && !l->res.on && (e = write_row(m, &row, g, 0, 0, vals, m->row[2])))
			return e;
	}
	return ENG_OK;
}

/* ---- L2 memory (fw/td's td_l2mem_of reads where; docs/engine-model.md, "L2 memory and
 * broadcasts") ---- */

/* The submission's L2 memory, H13_L2_BYTES of fp16 values with a bit for each that a TD of this
 * submission wrote (read only where one did), allocated on first use; anem_l2_clear frees it. */
static int l2m_ready(struct anem *m)
{
	if (m->l2m)
		return ENG_OK;
	m->l2m = malloc(H13_L2_BYTES);
	m->l2ok.w16 = calloc(TD_L2BITS_W16_BYTES, 1);
	if (!m->l2m || !m->l2ok.w16) {
		free(m->l2m);
		free(m->l2ok.w16);
		m->l2m = NULL;
		m->l2ok.w16 = NULL;
		return ENG_E_NOMEM;
	}
	return ENG_OK;
}

/* Row (g, c, h) of an operand in L2 memory, w values (broadcast along the view's axes). A
 * one-byte view (elem 1: a first operand whose Common.ChCfg.InFmt is one byte) reads bytes a TD
 * kept as one-byte elements, through the input port as ChCfg says (int8 or uint8, exactly); an
 * fp16 view reads values a TD wrote as fp16. Anything else is refused as unwritten (fw/td
 * l2written.c, the rule inspect's walks follow too). */
static int l2m_read_row(struct anem *m, const struct td_l2view *v, uint32_t base_reg, const char *what,
			unsigned g, unsigned c, unsigned h, unsigned w, uint16_t *out)
{
	if (td_l2bits_row_unwritten(&m->l2ok, v, g, c, h, w) >= 0)
		return ANEM_REFUSE(m, ENG_FR_COMBINATION, base_reg, H13_L2_ADDR, what);
	if (v->elem == 1) {
		const int s8 = H13_GET(REG(H13_COMMON_CHCFG), H13_CHCFG_INFMT) == H13_FMT_INT8;
		const uint8_t *bytes = (const uint8_t *)m->l2m;
		for (unsigned i = 0; i < w; i++) {
			const uint8_t x = bytes[td_l2view_addr(v, g, c, h, i)];
			out[i] = f2h(s8 ? (float)(int8_t)x : (float)x);
		}
		return ENG_OK;
	}
	for (unsigned i = 0; i < w; i++)
		out[i] = m->l2m[td_l2view_addr(v, g, c, h, i) / 2u];
	return ENG_OK;
}

/* fp16 values into an fp16 view (no longer readable as one-byte elements there) */
static void l2m_write_row(struct anem *m, const struct td_l2view *v, unsigned g, unsigned c, unsigned h,
			  unsigned w, const uint16_t *in)
{
	for (unsigned i = 0; i < w; i++)
		m->l2m[td_l2view_addr(v, g, c, h, i) / 2u] = in[i];
	td_l2bits_row_write16(&m->l2ok, v, g, c, h, w);
}

/* One-byte elements (values -128..255 the input port gave, exactly) into a one-byte view: the
 * bytes, readable as one-byte elements only (the fp16 cells they lie in are no longer whole). */
static int l2m_write_bytes(struct anem *m, const struct td_l2view *v, unsigned g, unsigned c, unsigned h,
			   unsigned w, const uint16_t *in)
{
	if (!m->l2ok.w8 && !(m->l2ok.w8 = calloc(TD_L2BITS_W8_BYTES, 1)))
		return ENG_E_NOMEM;
	uint8_t *bytes = (uint8_t *)m->l2m;
	for (unsigned i = 0; i < w; i++)
		bytes[td_l2view_addr(v, g, c, h, i)] = (uint8_t)(int32_t)h2f_table[in[i]];
	td_l2bits_row_write8(&m->l2ok, v, g, c, h, w);
	return ENG_OK;
}

/* A normalize's pair (TaskType 4, td_l2mem_of): p0 at the view's element (g, c, 0, 0) (it broadcasts
 * W and H), p1 one row stride after it, each repeated along the row of w. */
static int l2m_pair_row(struct anem *m, const struct td_l2view *v, unsigned g, unsigned c, unsigned h,
			unsigned w, uint16_t *p0, uint16_t *p1)
{
	struct td_l2view v1 = *v;
	v1.base += v->rs;
	static const char what[] = "a normalize's pair reads L2 memory no TD of this submission wrote";
	int e = l2m_read_row(m, v, H13_L2_SOURCE2BASE, what, g, c, h, w, p0);
	return e ? e : l2m_read_row(m, &v1, H13_L2_SOURCE2BASE, what, g, c, h, w, p1);
}

/* SourceType 1: the tile source's rows into L2 memory at the first operand's view (through the
 * input port: a NaN is kept as +inf; a one-byte tensor kept as its bytes), for the TDs after to
 * read there. */
static int l2m_keep_rows(struct anem *m, const struct td_l2mem *l, const struct tile *in0)
{
	for (unsigned g = 0; g < l->src1.g; g++)
		for (unsigned c = 0; c < l->src1.c; c++)
			for (unsigned h = 0; h < l->src1.h; h++) {
				int e = read_row(m, in0, g, c, h, l->src1.w, m->row[0], m->hv);
				if (!e && l->src1.elem == 1)
					e = l2m_write_bytes(m, &l->src1, g, c, h, l->src1.w, m->hv);
				else if (!e)
					l2m_write_row(m, &l->src1, g, c, h, l->src1.w, m->hv);
				if (e)
					return e;
			}
	return ENG_OK;
}

/* The first operand is there: in L2 memory, an L2-resident (type 3) tensor or a bound tile source. */
static int l2m_first_source(struct anem *m, const struct td_l2mem *l, const struct anem_l2t *lsrc,
			    const struct tile *in0)
{
	/* (fw/td td_first_source_refusal, which inspect marks: lsrc and in0->r are there exactly with an
	 * L2-resident source and RBase0 bound, the source DMA enabled) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	(void)lsrc;
	td_first_source_refusal(&regs, tiles_of(in0, NULL, NULL), l, &no);
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/*
 * An elementwise TD with an operand or its result in L2 memory: the first operand from L2 (with its
 * broadcast axes), or by tile DMA (and, with SourceType 1, kept in L2 first, then read back as
 * from L2); the NE; the PE with its second operand from L2 or by tile DMA; the result into L2
 * and/or out by tile DMA. Convolutions, pooling, non-fp16 operands and outputs not of the input's
 * shape are refused by name: no program shows them with L2 memory.
 */
static int l2mem_elementwise(struct anem *m, const struct stages *s, const struct td_l2mem *l,
			     struct tile *in0, struct tile *in1, const struct anem_l2t *lsrc,
			     struct tile *out, struct anem_l2t *lres, struct anem_act *act)
{
	int e;
	/* the NE, the unit kernel's shape, pooling, the window, the formats, the shape, the sources
	 * (fw/td td_l2mem_ew_refusal, which inspect marks: lsrc and in0->r, in1->r are there exactly
	 * with an L2-resident source and RBase0, RBase1 bound with the source DMA enabled) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	(void)in1;
	td_l2mem_ew_refusal(&regs, tiles_of(in0, in1, NULL), l, 0, 0, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	if ((e = l2m_ready(m)))
		return e;
	const unsigned W = out->w;
	uint16_t *v = m->hv, *b = m->hv2;
	if (l->keep1 && (e = l2m_keep_rows(m, l, in0)))
		return e;
	for (unsigned g = 0; g < out->g; g++)
		for (unsigned c = 0; c < out->c; c++)
			for (unsigned h = 0; h < out->h; h++) {
				if (l->src1.on)
					e = l2m_read_row(m, &l->src1, H13_L2_SOURCEBASE, "the first operand reads "
							 "L2 memory no TD of this submission wrote", g, c, h, W, v);
				else
					e = source_row(m, in0, lsrc, g, c, h, W, v);
				if (e)
					return e;
				ne_row(m, s, v, W, 0, act);
				if (l->pair && s->src2_relu) { /* (fw/td, which inspect marks) */
					td_l2mem_ew_refusal(&regs, tiles_of(in0, in1, NULL), l, 1, 0, &no);
					return td_refusal_fault(m, &no);
				}
				if (l->pair) { /* TaskType 4: (a - p0) x p1 or (a + p0) x p1, once rounded */
					if ((e = l2m_pair_row(m, &l->src2, g, c, h, W, b, m->hv3)))
						return e;
					if (l->pair == TD_PAIR_SUB)
						for (unsigned i = 0; i < W; i++)
							v[i] = f2h((h2f_table[v[i]] - h2f_table[b[i]]) * h2f_table[m->hv3[i]]);
					else
						for (unsigned i = 0; i < W; i++)
							v[i] = f2h((h2f_table[v[i]] + h2f_table[b[i]]) * h2f_table[m->hv3[i]]);
				} else if (s->pe) {
					if (s->pe_two) {
						if (l->src2.on)
							e = l2m_read_row(m, &l->src2, H13_L2_SOURCE2BASE, "the second "
									 "operand reads L2 memory no TD of this submission "
									 "wrote", g, c, h, W, b);
						else
							e = read_row(m, in1, g, c, h, W, m->row[1], b);
						if (e)
							return e;
						if (s->src2_relu)
							relu_row(b, W);
						if (s->pe_sec == H13_PE_SECSRC_SUB)
							negate_row(b, W);
					}
					if ((e = pe_amb_refusal(m, s, v, s->pe_two ? b : NULL, W)))
						return e;
					pe_row(s, v, s->pe_two ? b : NULL, v, W);
				}
				if (l->res.on)
					l2m_write_row(m, &l->res, g, c, h, W, v);
				if ((e = emit_row(m, out, lres, g, c, h, v)))
					return e;
			}
	return ENG_OK;
}

/*
 * The NE's channel groups: a unit kernel (MACCfg.KernelMode 1) with Common.GroupConvCfg.UnicastEn,
 * output channel c from the N = UnicastCin input channels cN .. cN + N - 1, element by element,
 * taken from L2 memory or the tile source:
 *  - MACCfg.OpMode 2 with GroupConvCfg.ElemMultMode and N 2 (Apple's H13 pow, TD 2): the product,
 *    exact in fp32 and rounded once to fp16;
 *  - MACCfg.OpMode 3 without ElemMultMode (Apple's H13 reduce_max over C: N 64, one output
 *    channel): the largest, exactly (a NaN from the tile DMA entered as +inf; L2 memory holds none);
 *  - the unit kernel (OpMode 0, KernelMode 1) over Cin -> 1 without UnicastEn (fw/td td_unit_sum:
 *    Apple's H13 softmax over C and over H, TD 3): N = Cin, the sum, each value through the MAC's
 *    input port, in fp32, rounded once as a convolution's output (mac_out), AccBias 0.
 * PostScale 1, then NonlinearMode and the PE (one operand) as on every TD, and the result into L2
 * memory and/or out by the tile DMA. Everything but those programs' form is refused by name.
 */
static int ne_channel_groups(struct anem *m, const struct stages *s, const struct td_l2mem *l, struct tile *in0,
			     const struct anem_l2t *lsrc, struct tile *out, struct anem_l2t *lres,
			     struct anem_act *act)
{
	uint32_t gc = REG(H13_COMMON_GROUPCONVCFG);
	const int prod = s->ne_op == H13_MAC_OP_RCAS, sum = s->ne_op == H13_MAC_OP_CONV;
	const unsigned n = sum ? in0->c : H13_GET(gc, H13_GROUPCONV_UNICASTCIN);
	/* only those programs' form: fw/td td_channel_groups_refusal and, for the unit kernel's sum
	 * (compute_td sends it here 1x1, stride 1, no padding, Cin -> 1 and without UnicastEn only;
	 * its other forms stay unit_kernel_shape's), td_unit_sum_refusal, which inspect marks too;
	 * both read the registers the tiles' shapes come from (tile_geom) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	if (sum)
		td_unit_sum_refusal(&regs, &no);
	else
		td_channel_groups_refusal(&regs, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	int e = l2m_first_source(m, l, lsrc, in0);
	if (!e && l->any)
		e = l2m_ready(m);
	/* SourceType 1 (Apple's H13 softmax over C and over H, TD 0): the tile source's rows kept in
	 * L2 first, as every path keeps them, then read back from L2 like any first operand there */
	if (!e && l->keep1)
		e = l2m_keep_rows(m, l, in0);
	if (e)
		return e;
	const unsigned W = out->w;
	uint16_t *v = m->hv, *b = m->hv2;
	for (unsigned g = 0; g < out->g; g++)
		for (unsigned c = 0; c < out->c; c++)
			for (unsigned h = 0; h < out->h; h++) {
				for (unsigned k = 0; k < n; k++) {
					uint16_t *q = k ? b : v;
					const unsigned ci = c * n + k;
					if (l->src1.on)
						e = l2m_read_row(m, &l->src1, H13_L2_SOURCEBASE, "the first operand reads "
								 "L2 memory no TD of this submission wrote", g, ci, h,
								 W, q);
					else
						e = source_row(m, in0, lsrc, g, ci, h, W, q);
					if (e)
						return e;
					if (sum)
						for (unsigned i = 0; i < W; i++)
							m->fa[i] = k ? m->fa[i] + mac_in(b[i]) : mac_in(v[i]);
					else if (k && prod)
						for (unsigned i = 0; i < W; i++)
							v[i] = f2h(h2f_table[v[i]] * h2f_table[b[i]]);
					else if (k)
						for (unsigned i = 0; i < W; i++)
							v[i] = h2f_table[b[i]] > h2f_table[v[i]] ? b[i] : v[i];
				}
				/* infinities of both signs in the sum: a convolution's sum of partials
				 * (acc_row_amb), refused as there (the fp32 sum's NaN was +0 here) */
				if (sum && acc_row_amb(m->fa, W, 0, 1.0f, 0.0f) != W)
					return ANEM_REFUSE_NOREG(m, ENG_FR_VALUE, ACC_AMB_TEXT);
				if (sum) /* (PostScale 1) */
					for (unsigned i = 0; i < W; i++)
						v[i] = mac_out(f2h(m->fa[i]), 1);
				nonlinear(m, s, v, W, act);
				if (s->pe && (e = pe_amb_refusal(m, s, v, NULL, W)))
					return e;
				if (s->pe)
					pe_row(s, v, NULL, v, W);
				if (l->res.on)
					l2m_write_row(m, &l->res, g, c, h, W, v);
				if ((e = emit_row(m, out, lres, g, c, h, v)))
					return e;
			}
	return ENG_OK;
}

/*
 * A convolution with its first operand or its result in L2 memory (Apple's H13 matmul with a
 * constant operand: its convolution reads x transposed where the TD before left it, and, split in
 * several TDs, leaves its result transposed in L2 for the next): the operand, Cin x Hin x Win a
 * group as the TD's registers give it, read whole from its L2 view (every value one a TD of the
 * submission wrote, or refused); the convolution as from any source; the result, computed whole,
 * then written into its L2 view (the view's own transpose) row by row. A second operand in L2
 * memory is refused. An operand that comes by the tile DMA and is kept in L2 as it is read
 * (SourceType 1: Apple's H13 batched matmul keeps its tile operand so for the TDs after, which read
 * it from L2) is kept first, then read back from L2 like the others.
 */
static int conv_l2(struct anem *m, const struct mrange *r, unsigned nr, const struct stages *s,
		   const struct td_l2mem *l, struct tile *in, struct tile *out, struct anem_l2t *lres,
		   struct anem_act *act)
{
	/* a second operand in L2 memory, or the result both there and L2-resident (lres: there
	 * exactly with an L2-resident result), then no first source (fw/td td_conv_l2_refusal, which
	 * inspect marks) */
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_conv_l2_refusal(&regs, tiles_of(in, NULL, NULL), l, 0, &no);
	if (no.why)
		return td_refusal_fault(m, &no);
	/* kept in L2 memory and written through WBase both (td_dst_writes, the destination's En
	 * clear): td_l2mem_of refuses it on a convolution; a backstop, as this path writes L2 alone */
	if (l->res.on && out->r)
		return ANEM_REFUSE(m, ENG_FR_COMBINATION, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
				   "a convolution whose result is kept in L2 memory and written through WBase "
				   "both not modelled");
	int e = kernel_not_the_record(m, r, nr, act);
	if (!e)
		e = l2m_ready(m);
	if (!e && l->keep1)
		e = l2m_keep_rows(m, l, in);
	const struct anem_l2t *src = NULL;
	struct anem_l2t from;
	if (!e) { /* a one-byte operand in L2 memory (fw/td, which inspect marks) */
		td_conv_l2_refusal(&regs, tiles_of(in, NULL, NULL), l, 1, &no);
		if (no.why)
			e = td_refusal_fault(m, &no);
	}
	if (!e && l->src1.on) {
		const uint64_t n = (uint64_t)in->g * in->c * in->h * in->w;
		if (in->w > ANEM_ROW_MAX || !n)
			e = ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, "a convolution's operand in L2 memory wider "
						 "than the model holds");
		if (!e)
			e = grow16(m, &m->l2in, &m->l2in_len, n, "a convolution's operand in L2 memory (Cin x "
								 "InDim) over the model's buffer limit");
		for (unsigned g = 0; !e && g < in->g; g++)
			for (unsigned c = 0; !e && c < in->c; c++)
				for (unsigned h = 0; !e && h < in->h; h++)
					e = l2m_read_row(m, &l->src1, H13_L2_SOURCEBASE, "a convolution reads L2 "
							 "memory no TD of this submission wrote", g, c, h, in->w,
							 m->l2in + (((uint64_t)g * in->c + c) * in->h + h) * in->w);
		from = (struct anem_l2t){0, in->g, in->c, in->h, in->w, m->l2in};
		src = &from;
	}
	if (e)
		return e;
	if (!l->res.on)
		return convolution(m, r, nr, s, in, src, out, lres, act);
	struct tile held = *out; /* (no tile destination: refused above) */
	held.r = NULL;
	/* Common.ConvCfg.Ox 2 (Apple's depthwise 1x9: fw/td td_conv_ox): Ox x Wout columns a row, as
	 * td_l2mem_of's view of the result has them */
	held.w *= td_conv_ox(&regs, m->cur_bar_en);
	if ((e = grow16(m, &m->otr, &m->otr_len, (uint64_t)held.g * held.c * held.h * held.w,
			"a convolution's result in L2 memory (NumGroups x Cout x OutDim) over the model's "
			"buffer limit")))
		return e;
	struct anem_l2t t = {0, held.g, held.c, held.h, held.w, m->otr};
	if ((e = convolution(m, r, nr, s, in, src, &held, &t, act)))
		return e;
	for (unsigned g = 0; g < held.g; g++)
		for (unsigned c = 0; c < held.c; c++)
			for (unsigned h = 0; h < held.h; h++)
				l2m_write_row(m, &l->res, g, c, h, held.w,
					      t.v + (((uint64_t)g * held.c + c) * held.h + h) * held.w);
	return ENG_OK;
}

/* A result the TD computed into t (out's own geometry: Cout x Hout x Wout a group) leaves by the
 * tile DMA with Common.Cfg.OutTranspose: element (g, c, h, w) at the destination's (g, w, h, c),
 * Wout planes of Hout rows of Cout values, the destination's strides (fw/td td_dst_dims); with
 * channel interleave ilv on the destination, the transposed tensor is interleaved as any other
 * (write_interleaved): row (g, w / ilv, h) holds Cout x ilv values, (c, w)'s at c ilv + w mod ilv
 * (Apple's attention and linear backward kernels, docs/engine-model.md "Channel interleave"). */
static int write_transposed(struct anem *m, const struct tile *out, unsigned ilv, const struct anem_l2t *t)
{
	struct tile tt = *out;
	tt.w = out->c * ilv;
	tt.c = out->w / ilv;
	if (tt.w > ANEM_ROW_MAX)
		return ANEM_REFUSE_NOREG(m, ENG_FR_CAPACITY, "a transposed result's rows (Cout) wider than the "
					 "model holds");
	uint16_t *v = m->hv;
	for (unsigned g = 0; g < out->g; g++)
		for (unsigned wg = 0; wg < tt.c; wg++)
			for (unsigned h = 0; h < out->h; h++) {
				for (unsigned i = 0; i < ilv; i++) {
					const uint64_t w = (uint64_t)wg * ilv + i;
					for (unsigned c = 0; c < out->c; c++)
						v[(uint64_t)c * ilv + i] =
							t->v[(((uint64_t)g * out->c + c) * out->h + h) * out->w + w];
				}
				int e = write_row(m, &tt, g, wg, h, v, m->row[2]);
				if (e)
					return e;
			}
	return ENG_OK;
}

/* A tile source read with channel interleave ilv, de-interleaved into *buf (plain, [g][c][h][w],
 * rows of W values padded to 64 bytes, as the DMA's granule wants them): *t becomes a tile of
 * that buffer (range *tmp). Each interleaved row (W x ilv values) is one move. */
static int interleaved_source(struct anem *m, struct tile *t, unsigned ilv, uint16_t **buf, size_t *len,
			      struct mrange *tmp)
{
	const uint64_t rv = ((uint64_t)t->w + 31u) & ~(uint64_t)31u; /* values a padded row */
	const uint64_t n = (uint64_t)t->g * t->c * t->h * rv, rw = (uint64_t)t->w * ilv;
	int e = grow16(m, buf, len, n, "a channel-interleaved source (NumGroups x Cin x InDim) over the model's buffer limit");
	if (e)
		return e;
	uint16_t *v = m->hv, *b = *buf;
	for (unsigned g = 0; g < t->g; g++)
		for (unsigned cg = 0; cg < t->c / ilv; cg++)
			for (unsigned h = 0; h < t->h; h++) {
				uint64_t off = td_tile_off(g, (uint64_t)cg * ilv, h, 0, ilv, 2u, t->row, t->plane, t->group);
				if (off > t->r->len || rw * 2u > t->r->len - off)
					return ENG_E_RANGE;
				if ((e = anem_dma_move(m, v, t->r->cpu + off, (uint32_t)(rw * 2u))))
					return e;
				for (unsigned i = 0; i < ilv; i++) {
					uint16_t *p = b + (((uint64_t)g * t->c + cg * ilv + i) * t->h + h) * rv;
					for (unsigned w = 0; w < t->w; w++)
						p[w] = v[(uint64_t)w * ilv + i];
				}
			}
	*tmp = *t->r;
	tmp->cpu = (uint8_t *)b;
	tmp->len = n * 2u;
	t->r = tmp;
	t->row = rv * 2u;
	t->plane = t->row * t->h;
	t->group = t->plane * t->c;
	t->depth = 0;
	return ENG_OK;
}

/* A result the TD computed into t (out's geometry) leaves by the tile DMA channel-interleaved:
 * row (g, c / ilv, h) of the destination holds W x ilv values, channel c's at w ilv + c mod ilv
 * (one write_row a row, with the destination's ZeroPadLast). */
static int write_interleaved(struct anem *m, const struct tile *out, unsigned ilv, const struct anem_l2t *t)
{
	struct tile ti = *out;
	ti.w = out->w * ilv;
	ti.c = out->c / ilv;
	uint16_t *v = m->hv;
	for (unsigned g = 0; g < out->g; g++)
		for (unsigned cg = 0; cg < ti.c; cg++)
			for (unsigned h = 0; h < out->h; h++) {
				for (unsigned i = 0; i < ilv; i++) {
					const uint16_t *p = t->v + (((uint64_t)g * out->c + cg * ilv + i) * out->h + h) * out->w;
					for (unsigned w = 0; w < out->w; w++)
						v[(uint64_t)w * ilv + i] = p[w];
				}
				int e = write_row(m, &ti, g, cg, h, v, m->row[2]);
				if (e)
					return e;
			}
	return ENG_OK;
}

/* The TD after its checks: the unit (or units) that compute it, into out and lres. */
/*
 * A convolution's or pooling's output positions against its input (Common.ConvCfg: output x reads
 * input columns x Sx - Px + kx, kx < Kw; rows the same): every output's window must reach into
 * the input on both axes. Past that (an OutDim larger than the input and window give, or padding
 * of a whole window) the model would read nothing but the zeros outside, which no program pins
 * (a review found a 1x1 convolution with OutDim 32 over InDim 16 giving its bias alone there).
 */
static int window_covers(struct anem *m)
{
	const struct td_regs regs = {kept_get, m}; /* (the tiles' W and H are InDim's and OutDim's) */
	struct td_refusal no = {0};
	td_window_covers_refusal(&regs, &no); /* (fw/td, which inspect marks) */
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

/* a destination over a tile source other than element for element in the same place (fw/td
 * td_tiles_overlap_refuse, which inspect marks) */
static int tiles_overlap_refused(struct anem *m)
{
	struct td_refusal no = {0};
	td_tiles_overlap_refuse(&no);
	return td_refusal_fault(m, &no);
}

/*
 * The destination against each tile source: their byte ranges apart, or (out->alias) the same
 * tile in the same place, which only an elementwise TD may take (compute_td); any other overlap
 * is refused, as docs/engine-model.md says ("how the engine orders reads and writes that overlap
 * within a TD" is not pinned): the model's own order would decide the values (a copy one row
 * down gave x[255] at row 256 in 16 KiB chunks, x[0] everywhere row by row).
 */
static int tiles_apart(struct anem *m, const struct tile *in0, const struct tile *in1, struct tile *out)
{
	const struct tile *src[2] = {in0, in1};
	out->alias = 0;
	for (unsigned i = 0; i < 2 && out->r; i++) {
		const struct tile *t = src[i];
		if (!t->r)
			continue;
		/* their host addresses: the grants' mapping is one linear map (fw/td td_tiles_place) */
		const struct td_tile_geom gs = geom_of(t), gd = geom_of(out);
		const int p = td_tiles_place((uint64_t)(uintptr_t)t->r->cpu, t->r->len, &gs,
					     (uint64_t)(uintptr_t)out->r->cpu, out->r->len, &gd);
		if (p == TD_TILES_APART)
			continue;
		if (p != TD_TILES_SAME_PLACE)
			return tiles_overlap_refused(m);
		out->alias = 1;
	}
	return ENG_OK;
}

/* The unit kernel's sum over channels (fw/td td_unit_sum), 1x1, stride 1, no padding: computed
 * by ne_channel_groups; any other unit kernel goes to unit_kernel_shape's checks */
static int unit_sum(struct anem *m, const struct tile *in0, const struct tile *out)
{
	const struct td_window win = td_window_of(REG(H13_COMMON_CONVCFG));
	return td_window_unit(&win) && td_unit_sum(in0->c, out->c, REG(H13_COMMON_GROUPCONVCFG));
}

static int compute_td(struct anem *m, const struct mrange *r, unsigned nr, struct stages *s,
		      const struct td_l2mem *lm, struct tile *in0, struct tile *in1,
		      const struct anem_l2t *lsrc, struct tile *out, struct anem_l2t *lres,
		      struct anem_act *act)
{
	int e;
	/* a destination in a tile source's place: element by element only (each value written where
	 * it was read), not a convolution, pooling or channel groups, whose outputs read other
	 * positions (tiles_apart) */
	const struct td_regs regs = {kept_get, m};
	if (out->alias && td_in_place_reads_others(&regs, lm)) /* (fw/td, as inspect) */
		return tiles_overlap_refused(m);
	if (s->ne && (s->ne_op == H13_MAC_OP_RCAS || s->ne_op == H13_MAC_OP_CHMAX ||
		      (s->ne_op == H13_MAC_OP_CONV && s->unit && unit_sum(m, in0, out))))
		return ne_channel_groups(m, s, lm, in0, lsrc, out, lres, act);
	if (lm->any && s->ne && s->ne_op == H13_MAC_OP_CONV && !s->unit && !lsrc)
		return conv_l2(m, r, nr, s, lm, in0, out, lres, act);
	if (lm->any)
		return l2mem_elementwise(m, s, lm, in0, in1, lsrc, out, lres, act);
	{ /* the first source (fw/td td_first_source_refusal, which inspect marks: lsrc and in0->r
	   * are there exactly with an L2-resident source and RBase0 bound, the source DMA enabled) */
		struct td_refusal no = {0};
		td_first_source_refusal(&regs, tiles_of(in0, NULL, NULL), lm, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	const int windowed = (s->pe && s->pe_pool != H13_PE_POOL_NONE) || (s->ne && s->ne_op == H13_MAC_OP_CONV && !s->unit);
	if (windowed && (e = window_covers(m)))
		return e;
	if (s->pe && s->pe_pool != H13_PE_POOL_NONE)
		return pooling(m, s, in0, lsrc, out, lres);
	if (s->ne && s->ne_op == H13_MAC_OP_CONV && s->unit)
		return unit_kernel_conv(m, s, in0, in1, lsrc, out, lres, act);
	if (s->ne && s->ne_op == H13_MAC_OP_CONV && (e = kernel_not_the_record(m, r, nr, act)))
		return e;
	if (s->ne && s->ne_op == H13_MAC_OP_CONV)
		return convolution(m, r, nr, s, in0, lsrc, out, lres, act);
	return elementwise(m, s, in0, in1, lsrc, out, lres, act);
}

/*
 * A TD with a depth that is not a reduction (Common.InDepth = OutDepth = D above 1, D at most
 * TD_DEPTH_MAX: td_depth_even; data_unread_fields refused any other): each operand is
 * G x C x D x H x W, element (g, c, d, h, w) d DepthStrides past (g, c, 0, h, w), as the tile DMA
 * walks a reduction's (Apple's layer_norm over C, H and W);
 * an elementwise TD maps element (g, c, d, h, w) of its sources to the same element of its
 * result, so depth d is the TD's work on the tiles that start d DepthStrides on (the first and
 * second sources' and the destination's own strides). Modelled where the TD is elementwise by
 * the tile DMA: the NE as an elementwise pass, a pass-through or the unit kernel, the PE without
 * pooling, no operand or result in L2 memory, no interleave, no transposition. Anything else
 * with a depth (a convolution, pooling, the NE's channel products or maxima) is refused.
 */

/*
 * A reduction (td_kept_of's TD_KEPT_MAKES) reads no stage decode_stages decodes, but the checks
 * every TD's NE and PE pass apply to it too: its NE is a pass-through (kept.c), whose fields the
 * model reads no meaning from are refused at any value no real program holds (decode_ne:
 * ne_unread_fields, NE.AccBias, GroupConvCfg.ElemMultMode), and TaskType must agree with the TD
 * header's ENE. What reduce_planes would leave out is refused: Src2ReLU on its second operand.
 */
static int reduction_checks(struct anem *m, const struct anem_act *act)
{
	struct stages s;
	int e = decode_ne(m, &s, act);
	if (e)
		return e;
	if ((e = pe_ene_agree(m, 1)))
		return e;
	const struct td_regs regs = {kept_get, m};
	struct td_refusal no = {0};
	td_src2relu_refusal(&regs, 1, &no); /* (fw/td, which inspect marks) */
	return no.why ? td_refusal_fault(m, &no) : ENG_OK;
}

static int at_depths(struct anem *m, const struct mrange *r, unsigned nr, struct stages *s,
		     const struct td_l2mem *lm, const struct tile *in0, const struct tile *in1,
		     const struct anem_l2t *lsrc, const struct tile *out, struct anem_l2t *lres,
		     struct anem_act *act, int moved)
{
	{ /* (fw/td td_depth_refusal, which inspect marks: lsrc and lres are there exactly with an
	   * L2-resident source and result, moved is a transposed or interleaved side) */
		const struct td_regs regs = {kept_get, m};
		struct td_refusal no = {0};
		(void)s, (void)lsrc, (void)lres, (void)moved;
		td_depth_refusal(&regs, tiles_of(in0, in1, out), lm, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	for (unsigned d = 0; d < out->d; d++) {
		struct mrange r0, r1, rd;
		struct tile a = tile_at_depth(in0, d, &r0), b = tile_at_depth(in1, d, &r1),
			    o = tile_at_depth(out, d, &rd);
		int e = compute_td(m, r, nr, s, lm, &a, &b, NULL, &o, NULL, act);
		if (e)
			return e;
	}
	return ENG_OK;
}

static int compute(struct anem *m, const struct mrange *r, unsigned nr, struct anem_act *act)
{
	h2f_init();
	fcvt_check();
	struct tile in0, in1, out;
	const struct mrange *rs0 = NULL, *rs1 = NULL, *rd = NULL;
	for (unsigned i = 0; i < nr; i++) {
		if (r[i].kind == TD_R_SRC0)
			rs0 = &r[i];
		else if (r[i].kind == TD_R_SRC1)
			rs1 = &r[i];
		else if (r[i].kind == TD_R_DST)
			rd = &r[i];
	}
	/* Common.Cfg.TaskType: 0, 2, 3 and 5 in every program that computes (fixtures, Apple's);
	 * 4 (a normalize, td_l2mem_of) and 6 (a reduction of two operands, td_kept_of) in Apple's
	 * layer_norm */
	{ /* (fw/td td_tasktype_refusal, which inspect marks) */
		struct td_refusal no = {0};
		const struct td_regs regs = {kept_get, m};
		td_tasktype_refusal(&regs, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	tile_geom(m, &in0, rs0, TD_R_SRC0);
	tile_geom(m, &in1, rs1, TD_R_SRC1);
	tile_geom(m, &out, rd, TD_R_DST);
	/* a one-byte tile whose DMA and ChCfg disagree on the sign (fw/td) */
	in0.amb = H13_GET(REG(H13_SRC_DMACONFIG), H13_DMA_EN) && td_tile_sign_disagrees(REG(H13_SRC_FMT), in0.fmt);
	out.amb = dst_dma_on(m) && td_tile_sign_disagrees(REG(H13_DST_FMT), out.fmt);
	int e = tiles_apart(m, &in0, &in1, &out);
	if (e)
		return e;
	int l2src = H13_GET(REG(H13_L2_SOURCECFG), H13_L2_SOURCETYPE) == H13_L2_RESIDENT;
	int l2res = H13_GET(REG(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) == H13_L2_RESIDENT;
	/* a reduction into L2 memory (a PE TD with PoolMode or NLMode whose result leaves neither by
	 * DMA nor as an L2-resident tensor), as td_kept_of reads it, or refused */
	struct td_kept k;
	const struct td_regs kregs = {kept_get, m};
	const unsigned bars = (rs0 ? 1u << H13_BAR_RBASE0 : 0u) | (rs1 ? 1u << H13_BAR_RBASE1 : 0u) |
			      (rd ? 1u << H13_BAR_WBASE : 0u);
	td_kept_of(&kregs, bars, &k);
	if (k.no.why)
		return td_refusal_fault(m, &k.no);
	/* operands and results in L2 memory (SourceType 0 and 1, a second operand by no tile DMA,
	 * ResultType 0), as td_l2mem_of reads them, or refused */
	struct td_l2mem lm;
	td_l2mem_of(&kregs, bars, &k, &lm);
	if (lm.no.why)
		return td_refusal_fault(m, &lm.no);
	/* the fields no modelled meaning is read from, on every TD (a reduction's too) */
	e = data_unread_fields(m, &k, &lm);
	if (e)
		return e;
	/* Common.Cfg.OutTranspose on a result the tile DMA writes (td_l2mem_of reads the L2 ones but
	 * a reduction's, which reads only PECfg.OutputTranspose: refused wherever it goes) */
	/* (a result kept in L2 memory and written through WBase with En clear, td_dst_writes: both
	 * copies transposed, td_l2mem_of's view and the tile DMA's) */
	/* (Common.PECfg.OutputTranspose on a TD that is not a reduction too, where td_l2mem_of
	 * models it: fw/td td_dst_cw_swapped, as td_out_transposed and inspect read it) */
	const int otr = td_dst_cw_swapped(&kregs) && rd &&
			(!lm.res.on || td_dst_writes_en_clear(REG(H13_DST_DMACONFIG), m->cur_bar_en));
	{ /* (fw/td td_out_transpose_refusal, which inspect marks) */
		struct td_refusal no = {0};
		td_out_transpose_refusal(&kregs, bars, &k, &lm, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	/* channel interleave: checked on both sides, then the sources de-interleaved here and the
	 * result interleaved on its way out (below) */
	const unsigned ilv_in = td_tile_interleave(REG(H13_SRC_FMT)), ilv_out = td_tile_interleave(REG(H13_DST_FMT));
	/* each tile DMA's Fmt.Interleave and its L2 side's DMAInterleave are 1, or 2, 4 or 8 on both
	 * (td_interleave_modelled), as in Apple's H13 select over 1x8x375x375, attention and a matmul
	 * of two runtime operands; above 1 only on an fp16 tile the tile DMA moves, of depth 1 and
	 * whole groups of I channels, W x I values a row (fw/td td_interleave_refusal, which inspect
	 * marks; the source side's is the first tile source's, and the second's with it, or the
	 * second's alone beside a first operand from L2 memory: Apple's softmax's TD 4, 1/sum from L2
	 * times the exponentials TD 2 wrote interleaved by 8) */
	{
		struct td_refusal no = {0};
		td_interleave_refusal(&kregs, bars, &k, &lm, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	/* a destination in a tile source's place is element for element only if it is written as
	 * the source is read: transposed (C and W swapped), or under another channel interleave, each
	 * element goes elsewhere, and the model would compute the whole result before writing any of
	 * it, an order no program or document pins (tiles_apart; a review found both completing) */
	if (out.alias && td_in_place_reordered(&kregs, bars, &lm)) /* (fw/td, as inspect) */
		return tiles_overlap_refused(m);
	struct mrange ilv_r[2];
	if (ilv_in > 1u && ((in0.r && (e = interleaved_source(m, &in0, ilv_in, &m->ilv[0], &m->ilv_len[0], &ilv_r[0]))) ||
			    (in1.r && (e = interleaved_source(m, &in1, ilv_in, &m->ilv[1], &m->ilv_len[1], &ilv_r[1])))))
		return e;
	if (k.role == TD_KEPT_MAKES && out.alias)
		return tiles_overlap_refused(m);
	if (k.role == TD_KEPT_MAKES)
		return (e = reduction_checks(m, act)) ? e : reduce_planes(m, &k, &lm, &in0, &in1, &out);
	/* no result leaves: with every Planar word 0 nothing was asked of the engine (td_print_op's
	 * "nothing leaves the engine"); with some set, a result that would stay in the engine, which
	 * no real TD has (td_print_op's "stays in the engine (not modelled)"): refused, as neither
	 * unit in the path would be (review E: Common.Cfg 0 and the destination DMA off completed
	 * writing nothing) */
	{ /* (fw/td td_result_nowhere_refusal, which inspect marks: rd is there exactly where WBase
	   * is bound, td_dst_writes) */
		struct td_refusal no = {0};
		td_result_nowhere_refusal(&kregs, bars, &lm, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	if (!rd && !l2res && !lm.res.on)
		return ENG_OK; /* nothing leaves the engine */
	{ /* the output's format and size, the sources' format (fw/td td_sizes_refusal, which inspect
	   * marks) */
		struct td_refusal no = {0};
		td_sizes_refusal(&kregs, bars, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	struct stages s;
	e = decode_stages(m, &s, act);
	if (e)
		return e;
	const struct anem_l2t *lsrc = NULL;
	if (l2src) {
		/* a base no TD left, a tensor smaller than the input, which every reader (source_row)
		 * would read as zeros past its extent (fw/td td_resident_source_refusal, which inspect
		 * marks from the tensors its walk carries) */
		struct td_residents rs;
		struct td_refusal no = {0};
		residents_of(m, &rs);
		td_resident_source_refusal(&kregs, &rs, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
		lsrc = l2_find(m, H13_GET(REG(H13_L2_SOURCEBASE), H13_L2_ADDR));
	}
	/* a resident tensor holds fp16 values (l2_result takes no other): one read as bytes (as L2
	 * memory refuses, l2m_read_row), a result over its own source, or a resident result with a
	 * one-byte output (kept as the fp16 values before the tile DMA's rounding), or a resident
	 * result the tile destination writes too (WBase bound: which one the engine writes is not
	 * known) are refused (fw/td td_resident_refusal, which inspect marks) */
	{
		struct td_refusal no = {0};
		td_resident_refusal(&kregs, bars, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	struct anem_l2t *lres = NULL;
	if (l2res && (e = l2_result(m, &lres)))
		return e;
	/* the destination as the tile DMA writes it (dst, above): its own elements apart; interleaved,
	 * its rows of W x I values and C / I planes (write_interleaved; interleave_side made C a
	 * multiple of I), which were left unchecked (a review found rows 64 bytes apart completing,
	 * the last write winning) */
	{ /* (fw/td td_dst_self_overlap_refusal, which inspect marks: bars holds WBase exactly with rd) */
		struct td_refusal no = {0};
		td_dst_self_overlap_refusal(&kregs, bars, &lm, &no);
		if (no.why)
			return td_refusal_fault(m, &no);
	}
	/* a depth: InDepth = OutDepth here (td_depth_even; data_unread_fields refused any other) */
	if (td_depth_even(&kregs) > 1u)
		return at_depths(m, r, nr, &s, &lm, &in0, &in1, lsrc, &out, lres, act, otr || ilv_in > 1u || ilv_out > 1u);
	if (!otr && ilv_out == 1u)
		return compute_td(m, r, nr, &s, &lm, &in0, &in1, lsrc, &out, lres, act);
	/* transposed or channel-interleaved on its way out: computed whole into m->otr, then written */
	struct tile held = out;
	held.r = NULL;
	if ((e = grow16(m, &m->otr, &m->otr_len, (uint64_t)out.g * out.c * out.h * out.w,
			"a transposed result (NumGroups x Cout x OutDim) over the model's buffer limit")))
		return e;
	struct anem_l2t t = {0, out.g, out.c, out.h, out.w, m->otr};
	if ((e = compute_td(m, r, nr, &s, &lm, &in0, &in1, lsrc, &held, &t, act)))
		return e;
	return otr ? write_transposed(m, &out, ilv_out, &t) : write_interleaved(m, &out, ilv_out, &t);
}

/*
 * A TD computes in the model's own floating-point mode, whatever the caller's: round to
 * nearest even, no flush to zero, no denormals taken as zero, IEEE half precision (the
 * definition in docs/engine-model.md, "Numerics"). The caller's mode is put back after. Every
 * task a pool thread runs for the model enters the same mode (model_parallel): a helper keeps
 * the mode its thread or core started with (a client of libanefw-accel that rounds upward when
 * the pool starts; a core whose FPCR came up nonzero), and its lines would otherwise round
 * differently from the caller's. Found by review (2026-12-06): with MXCSR rounding upward the
 * 1x1 convolution of 1 + 2^-11 + 2^-28 gave 0x3c01 where the definition gives 0x3c00.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static inline uint64_t fp_mode_enter(void)
{
	unsigned old = _mm_getcsr();
	_mm_setcsr(_MM_MASK_MASK); /* exceptions masked; RC nearest, FTZ and DAZ clear */
	return old;
}

static inline void fp_mode_leave(uint64_t old)
{
	_mm_setcsr((unsigned)old);
}
#elif defined(__aarch64__)
static inline uint64_t fp_mode_enter(void)
{
	uint64_t old;
	__asm__ volatile("mrs %0, fpcr" : "=r"(old));
	__asm__ volatile("msr fpcr, xzr"); /* RMode nearest; FZ, FZ16, AHP and traps clear */
	return old;
}

static inline void fp_mode_leave(uint64_t old)
{
	__asm__ volatile("msr fpcr, %0" : : "r"(old));
}
#else
static inline uint64_t fp_mode_enter(void)
{
	return 0;
}

static inline void fp_mode_leave(uint64_t old)
{
	(void)old;
}
#endif

struct fp_job {
	void (*fn)(void *arg, unsigned i);
	void *arg;
};

static void fp_task(void *arg, unsigned i)
{
	const struct fp_job *j = arg;
	uint64_t old = fp_mode_enter();
	j->fn(j->arg, i);
	fp_mode_leave(old);
}

static void model_parallel(unsigned n, void (*fn)(void *arg, unsigned i), void *arg)
{
	struct fp_job j = {fn, arg};
	hal_parallel(n, fp_task, &j);
}

int anem_compute(struct anem *m, const struct mrange *r, unsigned nr, struct anem_act *act)
{
	uint64_t old = fp_mode_enter();
	int e = compute(m, r, nr, act);
	fp_mode_leave(old);
	return e;
}
