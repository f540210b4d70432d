#include "fw/kunit/kunit.h"
#include "fw/common/le.h"

#include <stdio.h>
#include <string.h>

static const struct err_desc errs[KU_E__COUNT] = {
	[KU_OK] = {"ok", "no error"},
	[KU_E_TRUNCATED] = {"kunit-truncated", "shorter than its descriptor or its declared size"},
	[KU_E_MAGIC] = {"kunit-bad-magic", "not a kernel unit"},
	[KU_E_VERSION] = {"kunit-unknown-version",
	 "a descriptor version this firmware does not know"},
	[KU_E_FORMAT] = {"kunit-bad-kernel-format", "kernel format outside 1..31"},
	[KU_E_SECTION_BOUNDS] = {"kunit-section-outside-unit",
	 "a section outside the unit, or misaligned"},
	[KU_E_SECTION_OVERLAP] = {"kunit-sections-overlap", "two sections overlap"},
	[KU_E_CORES] = {"kunit-bad-core-count", "core count 0 or over the limit"},
	[KU_E_OCG_TABLE_SIZE] = {"kunit-ocg-table-size",
	 "OCG table size does not match its record counts"},
	[KU_E_CORE_MISMATCH] = {"kunit-per-core-mismatch",
	 "per-core record counts or channel totals disagree"},
	[KU_E_RECORD_BOUNDS] = {"kunit-record-outside-weights",
	 "a record's weights leave the weights section"},
	[KU_E_RECORD_OVERLAP] = {"kunit-records-overlap", "two records of one core overlap"},
	[KU_E_RECORD_RESERVED] = {"kunit-record-reserved-nonzero", "reserved words not zero"},
	[KU_E_SLOT_PREFILLED] = {"kunit-slot-prefilled",
	 "a slot not -1 in the program: only the firmware patches"},
	[KU_E_SLOT_UNSET] = {"kunit-slot-unset", "a slot still -1 where it is used after patching"},
	[KU_E_ASYMMETRIC_V5] = {"kunit-asymmetric-on-v5",
	 "asymmetric quantization on a version-5 descriptor"},
	[KU_E_LUT_BUDGET] = {"kunit-lut-over-budget",
	 "palette + activation LUT bytes over the shared budget"},
	[KU_E_WEIGHT_CAP] = {"kunit-weight-over-cap",
	 "weights over the dense (0x200) or streamed (0x210) cap"},
	[KU_E_ADDRESS] = {"kunit-address-beyond-32-bits", "a patched address beyond 32 bits"},
	[KU_E_TOO_MANY] = {"kunit-counts-over-limit", "counts over the limits"},
	[KU_E_NO_RECORDS] = {"kunit-no-records", "an OCG table with no records"},
	[KU_E_SECTION_TYPE] = {"kunit-section-type",
	 "a present section whose type is not one documented for it"},
	[KU_E_SECTION_SHORT] = {"kunit-section-short",
	 "a per-channel scale or bias section shorter than its records' channels need"},
};

const struct err_desc *ku_err(enum ku_err e)
{
	static const struct err_desc unknown = {"kunit-unknown-error",
						  "a value this module does not define"};
	return err_lookup(errs, KU_E__COUNT, (unsigned)e, &unknown);
}

const char *ku_err_name(enum ku_err e)
{
	return ku_err(e)->name;
}

static size_t set_offset(const struct ku_unit *u, uint32_t core)
{
	return u->sec[KU_SEC_OCGS].offset +
	       (size_t)core * (KU_SET_HEADER + (size_t)u->nocg * KU_RECORD_SIZE);
}

void ku_record(const struct ku_unit *u, uint32_t core, uint32_t i, uint32_t rec[KU_RECORD_WORDS])
{
	const uint8_t *p = u->base + set_offset(u, core) + KU_SET_HEADER + (size_t)i * KU_RECORD_SIZE;
	for (unsigned w = 0; w < KU_RECORD_WORDS; w++)
		rec[w] = le_rd32(p + 4 * w);
}

static const char *const sec_names[KU_NSECTIONS] = {
	"activation LUT", "palette LUT", "OCG table", "per-channel scale", "per-channel bias",
	"weights"};

const char *ku_section_name(unsigned s)
{
	return s < KU_NSECTIONS ? sec_names[s] : "?";
}

/* The types a present section may carry (docs/kunit.md): want, and want2 (UINT32_MAX: none). The
 * palette's codebook entries are fp16 whatever the bit depth: every reader (the fold, the engine
 * model) reads them so, and the guides give no palette-format values (fw/formats). */
static void sec_types(unsigned s, uint32_t *want, uint32_t *want2)
{
	*want2 = UINT32_MAX;
	switch (s) {
	case KU_SEC_ACTLUT:
	case KU_SEC_PALETTE:
		*want = KU_TYPE_FP16;
		break;
	case KU_SEC_SCALE:
	case KU_SEC_BIAS:
		*want = KU_TYPE_FP16;
		*want2 = KU_TYPE_FP32;
		break;
	default:
		*want = KU_TYPE_NONE;
	}
}

static const char *type_name(uint32_t t)
{
	return t == KU_TYPE_FP16 ? " (fp16)" : t == KU_TYPE_FP32 ? " (fp32)" : "";
}

char *ku_why_text(const struct ku_why *why, enum ku_err e, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	buf[0] = 0;
	if (!why || why->section < 0 || why->section >= (int)KU_NSECTIONS)
		return buf;
	const char *sn = ku_section_name((unsigned)why->section);
	if (e == KU_E_SECTION_TYPE && why->want2 != UINT32_MAX)
		snprintf(buf, cap, "section %d (%s): type %lu, want %lu%s or %lu%s", why->section, sn,
			 (unsigned long)why->found, (unsigned long)why->want, type_name(why->want),
			 (unsigned long)why->want2, type_name(why->want2));
	else if (e == KU_E_SECTION_TYPE)
		snprintf(buf, cap, "section %d (%s): type %lu, want %lu%s", why->section, sn,
			 (unsigned long)why->found, (unsigned long)why->want, type_name(why->want));
	else if (e == KU_E_SECTION_SHORT)
		snprintf(buf, cap, "section %d (%s): %lu bytes, its records' channels need %lu",
			 why->section, sn, (unsigned long)why->found, (unsigned long)why->want);
	return buf;
}

enum ku_err ku_parse(const uint8_t *buf, size_t len, const struct ku_limits *lim,
		     struct ku_unit *out)
{
	return ku_parse_why(buf, len, lim, out, NULL);
}

enum ku_err ku_parse_why(const uint8_t *buf, size_t len, const struct ku_limits *lim,
			 struct ku_unit *out, struct ku_why *why)
{
	struct ku_unit u;
	struct ku_why w_unused;
	if (!why)
		why = &w_unused;
	why->section = -1;
	why->found = why->want = why->want2 = 0;
	if (!buf || len < KU_HEADER_SIZE)
		return KU_E_TRUNCATED;
	if (le_rd32(buf) != KU_MAGIC)
		return KU_E_MAGIC;
	memset(&u, 0, sizeof u);
	u.base = buf;
	u.version = le_rd32(buf + 0x04);
	u.format = le_rd32(buf + 0x08);
	u.flags = le_rd32(buf + 0x0c);
	u.ncores = le_rd32(buf + 0x10);
	u.nocg = le_rd32(buf + 0x14);
	uint32_t total = le_rd32(buf + 0x18);
	u.bytes_per_channel = le_rd32(buf + 0x1c);
	if (total < KU_HEADER_SIZE || total > len)
		return KU_E_TRUNCATED;
	u.len = total;
	if (u.version != 5 && u.version != 6)
		return KU_E_VERSION;
	if (lim && u.version != lim->version)
		return KU_E_VERSION;
	if (u.format < 1 || u.format > 31)
		return KU_E_FORMAT;
	if (u.ncores == 0 || u.ncores > KU_MAX_CORES)
		return KU_E_CORES;
	if (u.nocg > KU_MAX_OCGS)
		return KU_E_TOO_MANY;
	if (u.version == 5 && (u.flags & KU_FLAG_ASYMMETRIC))
		return KU_E_ASYMMETRIC_V5;

	/* sections: 16-byte aligned, after the descriptor, inside the unit, disjoint */
	for (unsigned s = 0; s < KU_NSECTIONS; s++) {
		const uint8_t *d = buf + 0x20 + 16 * s;
		struct ku_section_desc *sd = &u.sec[s];
		sd->offset = le_rd32(d);
		sd->size = le_rd32(d + 4);
		sd->type = le_rd32(d + 8);
		sd->param = le_rd32(d + 12);
		uint64_t end = (uint64_t)sd->offset + sd->size;
		if (sd->size && (sd->offset < KU_HEADER_SIZE || (sd->offset & 15) || end > total))
			return KU_E_SECTION_BOUNDS;
	}
	/* each present section's type: what its readers read it as (an absent one's is not read:
	 * writers leave their default there) */
	for (unsigned s = 0; s < KU_NSECTIONS; s++) {
		uint32_t want, want2;
		sec_types(s, &want, &want2);
		if (u.sec[s].size && u.sec[s].type != want && u.sec[s].type != want2) {
			*why = (struct ku_why){(int)s, u.sec[s].type, want, want2};
			return KU_E_SECTION_TYPE;
		}
	}
	for (unsigned a = 0; a < KU_NSECTIONS; a++)
		for (unsigned b = a + 1; b < KU_NSECTIONS; b++) {
			const struct ku_section_desc *x = &u.sec[a], *y = &u.sec[b];
			if (x->size && y->size && x->offset < (uint64_t)y->offset + y->size &&
			    y->offset < (uint64_t)x->offset + x->size)
				return KU_E_SECTION_OVERLAP;
		}
	if (u.sec[KU_SEC_ACTLUT].size % KU_ACTLUT_RECORD)
		return KU_E_SECTION_BOUNDS;

	/* chip limits */
	if (lim) {
		uint64_t luts = (uint64_t)u.sec[KU_SEC_ACTLUT].size + u.sec[KU_SEC_PALETTE].size;
		if (luts > lim->lut_budget)
			return KU_E_LUT_BUDGET;
		uint32_t cap = (u.flags & KU_FLAG_STREAMED) ? lim->stream_cap : lim->dense_cap;
		if (u.sec[KU_SEC_WEIGHTS].size > cap)
			return KU_E_WEIGHT_CAP;
	}

	/* OCG table: ncores sets of (count, reserved, nocg records); a unit with no records has
	 * nothing for the firmware to patch, so nothing it could program its streams from */
	if (u.nocg == 0)
		return KU_E_NO_RECORDS;
	uint64_t set_size = KU_SET_HEADER + (uint64_t)u.nocg * KU_RECORD_SIZE;
	if (u.sec[KU_SEC_OCGS].size != set_size * u.ncores)
		return KU_E_OCG_TABLE_SIZE;
	uint32_t wsize = u.sec[KU_SEC_WEIGHTS].size;
	uint32_t mask_per_ch = (u.flags & KU_FLAG_SPARSE) ? u.sec[KU_SEC_WEIGHTS].param : 0;
	if (mask_per_ch > u.bytes_per_channel)
		return KU_E_SECTION_BOUNDS;
	uint64_t channels_core0 = 0;
	for (uint32_t c = 0; c < u.ncores; c++) {
		const uint8_t *set = buf + set_offset(&u, c);
		if (le_rd32(set) != u.nocg)
			return KU_E_CORE_MISMATCH;
		if (le_rd32(set + 4) != 0)
			return KU_E_RECORD_RESERVED;
		uint64_t prev_end = 0, channels = 0;
		for (uint32_t i = 0; i < u.nocg; i++) {
			uint32_t rec[KU_RECORD_WORDS];
			ku_record(&u, c, i, rec);
			uint64_t bytes = (uint64_t)rec[1] * u.bytes_per_channel;
			if (rec[1] == 0 || (uint64_t)rec[0] + bytes > wsize)
				return KU_E_RECORD_BOUNDS;
			if (rec[0] < prev_end)
				return KU_E_RECORD_OVERLAP;
			prev_end = (uint64_t)rec[0] + bytes;
			for (unsigned s = 0; s < KU_NSLOTS; s++)
				if (rec[2 + s] != KU_SLOT_UNSET)
					return KU_E_SLOT_PREFILLED;
			if (rec[12] || rec[13])
				return KU_E_RECORD_RESERVED;
			if (c > 0) {
				uint32_t r0[KU_RECORD_WORDS];
				ku_record(&u, 0, i, r0);
				/* the whole record: slots and reserved words are fixed above, so its
				 * weights' offset and its channels (a review found core 1 naming other
				 * weights accepted) */
				if (r0[0] != rec[0] || r0[1] != rec[1])
					return KU_E_CORE_MISMATCH;
			}
			channels += rec[1];
		}
		if (c == 0)
			channels_core0 = channels;
		else if (channels != channels_core0)
			return KU_E_CORE_MISMATCH;
	}
	/* the per-channel sections hold one value per channel of the records (record i's first is
	 * the sum of the channels before it): shorter, the later records' slots would point past
	 * their section (the streams then have no length) */
	for (unsigned s = KU_SEC_SCALE; s <= KU_SEC_BIAS; s++) {
		uint64_t need = channels_core0 * (u.sec[s].type == KU_TYPE_FP32 ? 4u : 2u);
		if (u.sec[s].size && u.sec[s].size < need) {
			*why = (struct ku_why){(int)s, u.sec[s].size,
					       need > UINT32_MAX ? UINT32_MAX : (uint32_t)need,
					       UINT32_MAX};
			return KU_E_SECTION_SHORT;
		}
	}
	*out = u;
	return KU_OK;
}

const uint8_t ku_stream_section[KU_NSTREAMS] = {KU_SEC_BIAS, KU_SEC_SCALE, KU_SEC_PALETTE,
						 KU_SEC_ACTLUT};
const uint8_t ku_stream_slot[KU_NSTREAMS] = {KU_SLOT_BIAS_STREAM, KU_SLOT_POSTSCALE_STREAM,
					      KU_SLOT_PALETTE_STREAM, KU_SLOT_ACTLUT_STREAM};

uint32_t ku_used_slots(const struct ku_unit *u)
{
	uint32_t m = (1u << KU_SLOT_INPUT_TILE) | (1u << KU_SLOT_OUTPUT_TILE);
	if (u->sec[KU_SEC_WEIGHTS].size)
		m |= 1u << KU_SLOT_WEIGHTS;
	if (u->flags & KU_FLAG_SPARSE)
		m |= 1u << KU_SLOT_MASK;
	if (u->sec[KU_SEC_SCALE].size)
		m |= 1u << KU_SLOT_SCALE_VEC;
	if (u->sec[KU_SEC_BIAS].size)
		m |= 1u << KU_SLOT_BIAS_VEC;
	for (unsigned s = 0; s < KU_NSTREAMS; s++)
		if (u->sec[ku_stream_section[s]].size)
			m |= 1u << ku_stream_slot[s];
	return m;
}

/* Slot value: a 32-bit device address, or KU_SLOT_UNSET when it cannot be formed. */
static enum ku_err addr32(uint64_t a, uint32_t *v)
{
	if (a == UINT64_MAX) {
		*v = KU_SLOT_UNSET;
		return KU_OK;
	}
	if (a >= 0xffffffffull)
		return KU_E_ADDRESS;
	*v = (uint32_t)a;
	return KU_OK;
}

enum ku_err ku_patch(const struct ku_unit *u, const struct ku_dispatch *d, uint8_t *out,
		     size_t out_len)
{
	if (out_len < u->len)
		return KU_E_TRUNCATED;
	if (out != u->base)
		memcpy(out, u->base, u->len);
	uint32_t used = ku_used_slots(u);
	uint64_t sec_base[KU_NSECTIONS];
	for (unsigned s = 0; s < KU_NSECTIONS; s++)
		sec_base[s] = d->unit_base + u->sec[s].offset;
	uint32_t mask_per_ch = (u->flags & KU_FLAG_SPARSE) ? u->sec[KU_SEC_WEIGHTS].param : 0;
	for (uint32_t c = 0; c < u->ncores; c++) {
		uint64_t first_channel = 0;
		for (uint32_t i = 0; i < u->nocg; i++) {
			uint32_t rec[KU_RECORD_WORDS];
			ku_record(u, c, i, rec);
			uint64_t a[KU_NSLOTS];
			for (unsigned s = 0; s < KU_NSLOTS; s++)
				a[s] = UINT64_MAX;
			uint64_t w = sec_base[KU_SEC_WEIGHTS] + rec[0];
			a[KU_SLOT_INPUT_TILE] = d->input_tile;
			a[KU_SLOT_OUTPUT_TILE] = d->output_tile;
			if (used & (1u << KU_SLOT_WEIGHTS))
				a[KU_SLOT_WEIGHTS] = w + (uint64_t)mask_per_ch * rec[1];
			if (used & (1u << KU_SLOT_MASK))
				a[KU_SLOT_MASK] = w;
			/* per-channel vectors: fp16 (2 bytes) or fp32 (4) per channel, by section type */
			uint64_t sw = u->sec[KU_SEC_SCALE].type == 4 ? 4 : 2;
			uint64_t bw = u->sec[KU_SEC_BIAS].type == 4 ? 4 : 2;
			if (used & (1u << KU_SLOT_SCALE_VEC))
				a[KU_SLOT_SCALE_VEC] = sec_base[KU_SEC_SCALE] + first_channel * sw;
			if (used & (1u << KU_SLOT_BIAS_VEC))
				a[KU_SLOT_BIAS_VEC] = sec_base[KU_SEC_BIAS] + first_channel * bw;
			/* the streams: the bias and post-scale streams start at this OCG's part of
			 * their section (its first channel, as the sub-buffers), the palette and
			 * activation-LUT streams at their section's start */
			for (unsigned s = 0; s < KU_NSTREAMS; s++)
				if (used & (1u << ku_stream_slot[s]))
					a[ku_stream_slot[s]] = sec_base[ku_stream_section[s]];
			if (used & (1u << KU_SLOT_BIAS_STREAM))
				a[KU_SLOT_BIAS_STREAM] += first_channel * bw;
			if (used & (1u << KU_SLOT_POSTSCALE_STREAM))
				a[KU_SLOT_POSTSCALE_STREAM] += first_channel * sw;
			uint8_t *p = out + set_offset(u, c) + KU_SET_HEADER + (size_t)i * KU_RECORD_SIZE;
			for (unsigned s = 0; s < KU_NSLOTS; s++) {
				uint32_t v;
				enum ku_err e = addr32(a[s], &v);
				if (e)
					return e;
				if (v == KU_SLOT_UNSET && (used & (1u << s)))
					return KU_E_SLOT_UNSET;
				le_wr32(p + 4 * (2 + s), v);
			}
			first_channel += rec[1];
		}
	}
	return KU_OK;
}

static uint32_t align16(uint32_t v)
{
	return (v + 15u) & ~15u;
}

size_t ku_write(const struct ku_build *b, uint8_t *out, size_t cap)
{
	struct {
		const uint8_t *data;
		uint32_t len, type, param;
	} s[KU_NSECTIONS] = {
		[KU_SEC_ACTLUT] = {b->actlut, b->actlut_len, 5, 0},
		[KU_SEC_PALETTE] = {b->palette, b->palette_len,
				    b->palette_format ? b->palette_format : KU_TYPE_FP16,
				    b->palette_bits | (b->palette_luts << 8)},
		[KU_SEC_OCGS] = {NULL, 0, 0, 0},
		[KU_SEC_SCALE] = {b->scale, b->scale_len, b->vec_type ? b->vec_type : 5, 0},
		[KU_SEC_BIAS] = {b->bias, b->bias_len, b->vec_type ? b->vec_type : 5, 0},
		[KU_SEC_WEIGHTS] = {b->weights, b->weights_len, 0, 0},
	};
	if (b->ncores == 0 || b->ncores > KU_MAX_CORES || b->nocg > KU_MAX_OCGS)
		return 0;
	uint64_t set = KU_SET_HEADER + (uint64_t)b->nocg * KU_RECORD_SIZE;
	s[KU_SEC_OCGS].len = (uint32_t)(set * b->ncores);
	if (b->flags & KU_FLAG_SPARSE)
		s[KU_SEC_WEIGHTS].param = b->mask_bytes_per_channel;
	uint64_t at = KU_HEADER_SIZE;
	uint32_t off[KU_NSECTIONS];
	uint32_t walign = b->weights_align > 16 ? b->weights_align : 16;
	if (walign & (walign - 1))
		return 0;
	for (unsigned i = 0; i < KU_NSECTIONS; i++) {
		if (i == KU_SEC_WEIGHTS)
			at = (at + walign - 1) & ~(uint64_t)(walign - 1);
		off[i] = s[i].len ? (uint32_t)at : 0;
		at = align16((uint32_t)(at + s[i].len));
		if (at > 0xffffffffull)
			return 0;
	}
	if (at > cap)
		return 0;
	memset(out, 0, (size_t)at);
	le_wr32(out + 0x00, KU_MAGIC);
	le_wr32(out + 0x04, b->version);
	le_wr32(out + 0x08, b->format);
	le_wr32(out + 0x0c, b->flags);
	le_wr32(out + 0x10, b->ncores);
	le_wr32(out + 0x14, b->nocg);
	le_wr32(out + 0x18, (uint32_t)at);
	le_wr32(out + 0x1c, b->bytes_per_channel);
	for (unsigned i = 0; i < KU_NSECTIONS; i++) {
		uint8_t *d = out + 0x20 + 16 * i;
		le_wr32(d, off[i]);
		le_wr32(d + 4, s[i].len);
		le_wr32(d + 8, s[i].type);
		le_wr32(d + 12, s[i].param);
		if (s[i].data && s[i].len)
			memcpy(out + off[i], s[i].data, s[i].len);
	}
	for (uint32_t c = 0; c < b->ncores; c++) {
		uint8_t *p = out + off[KU_SEC_OCGS] + (size_t)c * set;
		le_wr32(p, b->nocg);
		uint32_t woff = 0;
		for (uint32_t i = 0; i < b->nocg; i++) {
			uint8_t *r = p + KU_SET_HEADER + (size_t)i * KU_RECORD_SIZE;
			le_wr32(r, woff);
			le_wr32(r + 4, b->ocg_channels[i]);
			for (unsigned k = 0; k < KU_NSLOTS; k++)
				le_wr32(r + 8 + 4 * k, KU_SLOT_UNSET);
			woff += b->ocg_channels[i] * b->bytes_per_channel;
		}
	}
	return (size_t)at;
}

uint32_t ku_stream_len(const struct ku_unit *u, unsigned s, uint64_t off)
{
	if (s >= KU_NSTREAMS)
		return 0;
	const struct ku_section_desc *sd = &u->sec[ku_stream_section[s]];
	if (!sd->size || off < sd->offset || off >= (uint64_t)sd->offset + sd->size)
		return 0;
	return (uint32_t)((uint64_t)sd->offset + sd->size - off);
}
