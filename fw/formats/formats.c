/* Weight formats and per-chip gates as tables; every value below is from guide-07, guide-25 or
 * guide-36 (see docs/codecs.md), and FMT_UNSPECIFIED where they are silent. */
#include "fw/formats/formats.h"

#include <string.h>

/* ---- kernel formats ---- */

int kfmt_valid(unsigned f)
{
	return f >= KFMT_MIN && f <= KFMT_MAX;
}

int kfmt_is_palette(unsigned f)
{
	return f - 7u < 0x15u;
}

int kfmt_is_unity(unsigned f)
{
	return f - 0x1cu < 3u;
}

int kfmt_row(unsigned f, struct kfmt_row *row)
{
	if (!kfmt_valid(f) || !row)
		return -1;
	/* The guides name the five helpers and the ranges but give no per-value rows. */
	row->bit_depth = FMT_UNSPECIFIED;
	row->palette_format = FMT_UNSPECIFIED;
	row->underlying_type = FMT_UNSPECIFIED;
	row->lut_bytes = FMT_UNSPECIFIED;
	row->typeno = FMT_UNSPECIFIED;
	return 0;
}

uint64_t kfmt_palette_lut_size(unsigned bits, uint64_t codebooks)
{
	if (bits < 1 || bits > 8)
		return 0;
	uint64_t per = (uint64_t)2 << bits; /* 2^bits fp16 entries */
	if (codebooks > UINT64_MAX / per)
		return 0;
	return per * codebooks;
}

/* ---- element types ---- */

const char *etype_name(unsigned t)
{
	switch (t) {
	case ETYPE_INT8: return "int8";
	case ETYPE_UINT8: return "uint8";
	case ETYPE_HALF: return "half";
	case ETYPE_LUT: return "lut";
	case ETYPE_UINT4: return "uint4";
	case ETYPE_FP8: return "fp8";
	case ETYPE_INT4: return "int4";
	}
	return NULL;
}

int etype_bits(unsigned t)
{
	switch (t) {
	case ETYPE_INT8:
	case ETYPE_UINT8:
	case ETYPE_FP8: return 8;
	case ETYPE_HALF: return 16;
	case ETYPE_UINT4:
	case ETYPE_INT4: return 4;
	}
	return FMT_UNSPECIFIED;
}

/* ---- tensor formats ---- */

const char *tfmt_name(unsigned code)
{
	switch (code) {
	case TFMT_INT8: return "int8";
	case TFMT_UINT8: return "uint8";
	case TFMT_FP16: return "fp16";
	case TFMT_FP32: return "fp32";
	case TFMT_E4M3: return "e4m3";
	case TFMT_E5M2: return "e5m2";
	case TFMT_LIVE2: return "live2";
	case TFMT_INT4: return "int4";
	}
	return NULL;
}

unsigned tfmt_bytes(unsigned code)
{
	switch (code) {
	case TFMT_INT8:
	case TFMT_UINT8:
	case TFMT_E4M3:
	case TFMT_E5M2: return 1;
	case TFMT_FP16:
	case TFMT_LIVE2: return 2;
	case TFMT_FP32: return 4;
	}
	return 0;
}

int tfmt_dma_convertible_to_fp16(unsigned code)
{
	return code < 0xe && ((0x2ff0u >> code) & 1u);
}

/* ---- chips ---- */

static const char *const chip_names[CHIP__COUNT] = {"H13", "H14", "H15", "H16", "H17", "H18"};
static const char *const chip_families[CHIP__COUNT] = {"M1/H13", "A14/M2 (H14)", "A15/M3 (H15)",
						       "A16 (H16)", "A17/M5 (H17)", "A18 (H18)"};

const char *chip_name(enum chip c)
{
	return (unsigned)c < CHIP__COUNT ? chip_names[c] : "?";
}

const char *chip_family(enum chip c)
{
	return (unsigned)c < CHIP__COUNT ? chip_families[c] : "?";
}

int chip_from_name(const char *s, enum chip *out)
{
	if (!s || !out)
		return -1;
	for (unsigned c = 0; c < CHIP__COUNT; c++) {
		const char *n = chip_names[c];
		if ((s[0] == 'H' || s[0] == 'h') && s[1] == n[1] && s[2] == n[2] && s[3] == 0) {
			*out = (enum chip)c;
			return 0;
		}
	}
	return -1;
}

int chip_td_version(enum chip c)
{
	return c == CHIP_H13 ? 5 : FMT_UNSPECIFIED;
}

const uint16_t hal_int8_gate_bytes[3] = {0x528, 0x532, 0x537};
const uint16_t hal_blockwise_gate_bytes[4] = {0x520, 0x523, 0x533, 0x539};

#define U FMT_UNSPECIFIED
struct feature_row {
	uint16_t offset;
	long v[CHIP__COUNT];
	uint8_t inferred_mask; /* bit c: value for chip c inferred from "onward"/"and later" */
};
/* Columns: H13 H14 H15 H16 H17 H18. Table 7.2 gives H13..H17 ("A16, A17, M5"); H18 values of the
 * streaming bytes follow from "onward" (0x48f) and Table 7.1's "A15/M3 and later". */
static const struct feature_row feature_rows[] = {
	{0x48f, {1, 1, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x529, {1, 1, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x528, {0, 1, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x532, {0, 1, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x537, {0, 1, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x520, {0, 0, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x523, {0, 0, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x533, {0, 0, 1, 1, 1, 1}, 1u << CHIP_H18},
	{0x539, {0, 0, 1, 1, 1, 1}, 1u << CHIP_H18},
	/* guide-36: set on H18 alone of the 28 targets */
	{0x52d, {0, 0, 0, 0, 0, 1}, 0},
	/* guide-36 Table 36.7: collective-enable clear everywhere */
	{0x48b, {0, 0, 0, 0, 0, 0}, 0},
	/* guide-25: the dense cap is 64 KiB on the M1; no other value is given */
	{0x200, {65536, U, U, U, U, U}, 0},
	{0x210, {U, U, U, U, U, U}, 0},
	{0x52c, {U, U, U, U, U, U}, 0},
	{0x52e, {U, U, U, U, U, U}, 0},
	{0x685, {U, U, U, U, U, U}, 0},
};
#undef U

long chip_feature(enum chip c, unsigned offset, int *inferred)
{
	if (inferred)
		*inferred = 0;
	if ((unsigned)c >= CHIP__COUNT)
		return FMT_UNSPECIFIED;
	for (size_t i = 0; i < sizeof(feature_rows) / sizeof(feature_rows[0]); i++) {
		if (feature_rows[i].offset == offset) {
			if (inferred)
				*inferred = (feature_rows[i].inferred_mask >> c) & 1u;
			return feature_rows[i].v[c];
		}
	}
	return FMT_UNSPECIFIED;
}

int tfmt_dma_valid(enum chip c, unsigned code)
{
	if (code < 0xb)
		return 1;
	unsigned byte;
	switch (code) {
	case TFMT_FP32: byte = HAL_FP32_DMA; break;
	case TFMT_E4M3: byte = HAL_E4M3; break;
	case TFMT_E5M2: byte = HAL_E5M2_DMA; break;
	case TFMT_LIVE2: byte = HAL_LIVE2_DMA; break;
	default: return FMT_UNSPECIFIED;
	}
	long v = chip_feature(c, byte, NULL);
	return v == FMT_UNSPECIFIED ? FMT_UNSPECIFIED : v != 0;
}

int palette_vector_legal(unsigned v)
{
	return v < 32 && ((0x36u >> v) & 1u);
}

/* ---- the stream-or-fold decision ---- */

const char *wform_name(enum wform f)
{
	switch (f) {
	case WFORM_INT8: return "int8";
	case WFORM_PALETTE: return "palette";
	case WFORM_SPARSE: return "sparse";
	case WFORM_BLOCKWISE: return "blockwise";
	case WFORM_E4M3: return "e4m3";
	case WFORM__COUNT: break;
	}
	return "?";
}

const char *gate_verdict_name(enum gate_verdict v)
{
	switch (v) {
	case GATE_STREAM: return "stream";
	case GATE_FOLD: return "fold";
	case GATE_REFUSE: return "refuse";
	}
	return "?";
}

struct wdesc wdesc_default(enum wform f)
{
	struct wdesc w;
	memset(&w, 0, sizeof(w));
	w.form = f;
	w.palette_bits = 4;
	w.vector = 1;
	w.groups = 1;
	return w;
}

static int all_set(enum chip c, const uint16_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (chip_feature(c, bytes[i], NULL) != 1)
			return 0;
	return 1;
}

static struct gate_decision decide(enum gate_verdict v, const char *why)
{
	struct gate_decision d = {v, why};
	return d;
}

struct gate_decision gate_decide(enum chip c, const struct wdesc *w)
{
	if ((unsigned)c >= CHIP__COUNT || !w || (unsigned)w->form >= WFORM__COUNT)
		return decide(GATE_REFUSE, "unknown chip or form");
	const int v5 = chip_td_version(c) == 5;

	/* encodability first: what the descriptor cannot express is a compile error */
	if (w->form == WFORM_E4M3 && v5)
		return decide(GATE_REFUSE, "the M1 format field is two bits wide with no E4M3 code (compile-time assert)");
	if (w->form == WFORM_E4M3 && chip_feature(c, HAL_E4M3, NULL) != 1)
		return decide(GATE_REFUSE, "E4M3 capability byte 0x52d clear (\"E4M3 is not supported on this architecture\")");
	if (w->form == WFORM_INT8 && w->asymmetric && v5)
		return decide(GATE_REFUSE, "asymmetric quantization asserts on the version-5 descriptor (M1 is symmetric-only)");
	if (w->form == WFORM_PALETTE) {
		if (w->palette_bits < 1 || w->palette_bits > 8 || w->palette_bits == 5 || w->palette_bits == 7)
			return decide(GATE_REFUSE, "palette index width not in 1, 2, 3, 4, 6, 8");
		if (!palette_vector_legal(w->vector))
			return decide(GATE_REFUSE, "palette vector size illegal under mask 0x36 (legal: 1, 2, 4, 5)");
		if (w->groups == 0)
			return decide(GATE_REFUSE, "palette with no codebook");
		if (w->groups > 1 && v5)
			return decide(GATE_REFUSE, "multi-codebook palette asserts on the version-5 descriptor");
	}

	/* the master streaming gate and its per-weight conditions */
	if (chip_feature(c, HAL_STREAM_MASTER, NULL) != 1)
		return decide(GATE_FOLD, "kernel-streaming master 0x48f clear");
	if (w->mutable_weight)
		return decide(GATE_FOLD, "mutable weight cannot stream");
	if (w->non_unit_stride)
		return decide(GATE_FOLD, "stream needs unit stride on all axes");
	if (w->dilated)
		return decide(GATE_FOLD, "stream needs no dilation");
	if (w->tile_overlap)
		return decide(GATE_FOLD, "stream needs no tile overlap");

	switch (w->form) {
	case WFORM_SPARSE:
		return decide(GATE_STREAM, "mask-and-values operand under the master 0x48f (no per-format gate)");
	case WFORM_PALETTE:
		if (w->palette_bits <= 2)
			return decide(GATE_FOLD, "1- and 2-bit palette widths are rejected on the streaming path");
		if ((w->palette_bits == 3 || w->palette_bits == 6) && v5)
			return decide(GATE_FOLD, "3- and 6-bit palettes need a later table descriptor than version 5");
		if (chip_feature(c, HAL_PALETTE_STRIDE, NULL) != 1)
			return decide(GATE_FOLD, "palette and stride gate 0x529 clear");
		return decide(GATE_STREAM, "master 0x48f and palette/stride gate 0x529 set, legal vector palette");
	case WFORM_INT8:
		if (!all_set(c, hal_int8_gate_bytes, 3))
			return decide(GATE_FOLD, "int8 gates 0x528/0x532/0x537 clear: dequantize-to-dense path");
		return decide(GATE_STREAM, "master 0x48f and int8 gates 0x528/0x532/0x537 set");
	case WFORM_BLOCKWISE:
		if (!all_set(c, hal_blockwise_gate_bytes, 4))
			return decide(GATE_FOLD, "blockwise gates 0x520/0x523/0x533/0x539 clear: dequantize-to-dense path");
		return decide(GATE_STREAM, "master 0x48f and blockwise gates 0x520/0x523/0x533/0x539 set");
	case WFORM_E4M3:
		return decide(GATE_STREAM, "master 0x48f and E4M3 capability 0x52d set (native kernel format)");
	case WFORM__COUNT:
		break;
	}
	return decide(GATE_REFUSE, "unknown form");
}

/* ---- bytes moved ---- */

static const struct err_desc bytes_errs[BYTES_E__COUNT] = {
	[BYTES_OK] = {"ok", "no error"},
	[BYTES_E_ARG] = {"bytes-bad-argument", "a null pointer"},
	[BYTES_E_SIZES] = {"bytes-inconsistent-sizes",
	 "nonzeros above the count, a palette width or vector out of range, or an unknown form"},
	[BYTES_E_OVERFLOW] = {"bytes-size-overflow", "a byte count over 64 bits"},
};

const struct err_desc *bytes_err(enum bytes_err e)
{
	static const struct err_desc unknown = {"bytes-unknown-error",
						  "a value this module does not define"};
	return err_lookup(bytes_errs, BYTES_E__COUNT, (unsigned)e, &unknown);
}

/* 1 when *acc + v overflows (acc unchanged), else adds. */
static int add_overflows(uint64_t *acc, uint64_t v)
{
	if (*acc > UINT64_MAX - v)
		return 1;
	*acc += v;
	return 0;
}

enum bytes_err bytes_moved(enum chip c, const struct wdesc *w, const struct bytes_in *in,
			   struct bytes_out *out)
{
	if (!w || !in || !out)
		return BYTES_E_ARG;
	if (in->elements > UINT64_MAX / 2)
		return BYTES_E_OVERFLOW;
	memset(out, 0, sizeof(*out));
	out->gate = gate_decide(c, w);
	out->dense_fp16 = in->elements * 2;
	uint64_t s = 0;
	switch (w->form) {
	case WFORM_SPARSE:
		if (in->nonzeros > in->elements)
			return BYTES_E_SIZES;
		s = in->elements / 8 + (in->elements % 8 != 0); /* mask */
		if (add_overflows(&s, in->nonzeros * 2))
			return BYTES_E_OVERFLOW;
		break;
	case WFORM_PALETTE: {
		if (w->palette_bits < 1 || w->palette_bits > 8 || w->vector == 0)
			return BYTES_E_SIZES;
		uint64_t idx = in->elements / w->vector;
		if (idx > UINT64_MAX / 8)
			return BYTES_E_OVERFLOW;
		s = (idx * w->palette_bits + 7) / 8;
		uint64_t lut = kfmt_palette_lut_size(w->palette_bits, (uint64_t)w->groups);
		if (lut == 0 || lut > UINT64_MAX / w->vector || add_overflows(&s, lut * w->vector))
			return BYTES_E_OVERFLOW;
		break;
	}
	case WFORM_INT8:
	case WFORM_BLOCKWISE:
		s = in->elements;
		if (in->scales > UINT64_MAX / 4 || add_overflows(&s, in->scales * 2))
			return BYTES_E_OVERFLOW;
		if (w->form == WFORM_BLOCKWISE && in->has_offset && add_overflows(&s, in->scales * 2))
			return BYTES_E_OVERFLOW;
		if (w->form == WFORM_INT8 && w->asymmetric && add_overflows(&s, in->scales))
			return BYTES_E_OVERFLOW;
		break;
	case WFORM_E4M3:
		s = in->elements;
		break;
	default:
		return BYTES_E_SIZES;
	}
	out->stored = s;
	out->moved = out->gate.verdict == GATE_STREAM ? s : out->gate.verdict == GATE_FOLD ? out->dense_fp16 : 0;
	return BYTES_OK;
}
