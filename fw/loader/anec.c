/* anec containers (see anec.h). */
#include "fw/loader/anec.h"
#include "fw/common/le.h"

#include <string.h>

/* the fields' offsets in the header */
#define AO_SIZE 0x00u
#define AO_TD_SIZE 0x08u
#define AO_TD_COUNT 0x0cu
#define AO_TSK_SIZE 0x10u
#define AO_KRN_SIZE 0x18u
#define AO_SRC_COUNT 0x20u
#define AO_DST_COUNT 0x24u
#define AO_TILES 0x28u
#define AO_NCHW 0xa8u

static const struct err_desc errs[ANEC_E__COUNT] = {
	[ANEC_OK] = {"ok", "no error"},
	[ANEC_E_ARG] = {"anec-bad-argument", "a null buffer or result"},
	[ANEC_E_TRUNCATED] = {"anec-truncated", "shorter than an anec header's fields (0x6a8 bytes)"},
	[ANEC_E_LENGTH] = {"anec-length", "the file is neither a 0x800- nor a 0x1000-byte header "
					  "plus the size it states"},
	[ANEC_E_TDS] = {"anec-tds", "td_count or td_size is 0, td_size is over tsk_size or 0x800, "
				    "or tsk_size is over size"},
	[ANEC_E_LAYOUT] = {"anec-layout", "tsk_size rounded up to 16 bytes plus krn_size is not size"},
	[ANEC_E_COUNTS] = {"anec-counts", "4 + dst_count + src_count BARs do not fit the 32"},
	[ANEC_E_TILES] = {"anec-tiles",
			  "an input or output has no tiles, or BAR 0's tiles hold less than size"},
	[ANEC_E_LIMIT] = {"anec-over-limit", "size is over 256 MiB"},
};

const struct err_desc *anec_err(enum anec_err e)
{
	static const struct err_desc unknown = {"anec-unknown-error",
						  "a value this module does not define"};
	return err_lookup(errs, ANEC_E__COUNT, (unsigned)e, &unknown);
}

const char *anec_err_name(enum anec_err e)
{
	return anec_err(e)->name;
}

int anec_detect(const uint8_t *buf, size_t len)
{
	if (!buf || len < ANEC_HDR_LIBANE)
		return 0;
	uint64_t size = le_rd64(buf + AO_SIZE);
	if (!size || size > ANEC_MAX_SIZE)
		return 0;
	return len == size + ANEC_HDR_LIBANE || len == size + ANEC_HDR_ANECC;
}

enum anec_err anec_parse(const uint8_t *buf, size_t len, struct anec *a)
{
	if (!buf || !a)
		return ANEC_E_ARG;
	memset(a, 0, sizeof *a);
	if (len < ANEC_FIELDS_BYTES)
		return ANEC_E_TRUNCATED;
	a->size = le_rd64(buf + AO_SIZE);
	a->td_size = le_rd32(buf + AO_TD_SIZE);
	a->td_count = le_rd32(buf + AO_TD_COUNT);
	a->tsk_size = le_rd64(buf + AO_TSK_SIZE);
	a->krn_size = le_rd64(buf + AO_KRN_SIZE);
	a->src_count = le_rd32(buf + AO_SRC_COUNT);
	a->dst_count = le_rd32(buf + AO_DST_COUNT);
	for (unsigned i = 0; i < ANEC_TILES; i++) {
		a->tiles[i] = le_rd32(buf + AO_TILES + 4 * i);
		for (unsigned k = 0; k < 6; k++)
			a->nchw[i][k] = le_rd64(buf + AO_NCHW + 8 * (6 * i + k));
	}
	if (a->size > ANEC_MAX_SIZE)
		return ANEC_E_LIMIT;
	if (!a->size || (len != a->size + ANEC_HDR_LIBANE && len != a->size + ANEC_HDR_ANECC))
		return ANEC_E_LENGTH;
	a->hdr_bytes = len == a->size + ANEC_HDR_LIBANE ? ANEC_HDR_LIBANE : ANEC_HDR_ANECC;
	if (!a->td_count || !a->td_size || a->td_size > 0x800u || a->td_size > a->tsk_size ||
	    a->tsk_size > a->size)
		return ANEC_E_TDS;
	/* tsk_size <= size <= 256 MiB: no overflow below */
	uint64_t kofs = (a->tsk_size + ANEC_GRAN - 1) & ~(uint64_t)(ANEC_GRAN - 1);
	if (a->krn_size > a->size || kofs + a->krn_size != a->size)
		return ANEC_E_LAYOUT;
	if (a->dst_count > ANEC_TILES || a->src_count > ANEC_TILES ||
	    ANEC_DST_BAR + a->dst_count + a->src_count > ANEC_TILES)
		return ANEC_E_COUNTS;
	if ((uint64_t)a->tiles[ANEC_CMD_BAR] << ANEC_TILE_SHIFT < a->size)
		return ANEC_E_TILES;
	for (unsigned i = 0; i < a->dst_count + a->src_count; i++)
		if (!a->tiles[ANEC_DST_BAR + i])
			return ANEC_E_TILES;
	return ANEC_OK;
}

int anec_dst_bar(const struct anec *a, unsigned i)
{
	return i < a->dst_count ? (int)(ANEC_DST_BAR + i) : -1;
}

int anec_src_bar(const struct anec *a, unsigned i)
{
	return i < a->src_count ? (int)(ANEC_DST_BAR + a->dst_count + i) : -1;
}

static void put_name(char *out, size_t cap, const char *pre, unsigned n)
{
	char num[12];
	unsigned k = 0;
	do {
		num[k++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	size_t at = 0;
	for (; *pre && at + 1 < cap; pre++)
		out[at++] = *pre;
	while (k && at + 1 < cap)
		out[at++] = num[--k];
	if (cap)
		out[at < cap ? at : cap - 1] = 0;
}

void anec_bar_name(const struct anec *a, unsigned bar, char *out, size_t cap)
{
	if (!cap)
		return;
	out[0] = 0;
	if (bar >= ANEC_TILES)
		return;
	if (bar == ANEC_CMD_BAR) {
		const char *c = "cmd";
		size_t i = 0;
		for (; c[i] && i + 1 < cap; i++)
			out[i] = c[i];
		out[i] = 0;
	} else if (bar >= ANEC_DST_BAR && bar < ANEC_DST_BAR + a->dst_count)
		put_name(out, cap, "dst", bar - ANEC_DST_BAR);
	else if (bar >= ANEC_DST_BAR + a->dst_count &&
		 bar < ANEC_DST_BAR + a->dst_count + a->src_count)
		put_name(out, cap, "src", bar - ANEC_DST_BAR - a->dst_count);
	else if (a->tiles[bar])
		put_name(out, cap, "itm", bar);
}

size_t anec_write_header(const struct anec *a, uint8_t *out, size_t cap)
{
	if (!a || !out || cap < ANEC_HDR_LIBANE)
		return 0;
	memset(out, 0, ANEC_HDR_LIBANE);
	le_wr64(out + AO_SIZE, a->size);
	le_wr32(out + AO_TD_SIZE, a->td_size);
	le_wr32(out + AO_TD_COUNT, a->td_count);
	le_wr64(out + AO_TSK_SIZE, a->tsk_size);
	le_wr64(out + AO_KRN_SIZE, a->krn_size);
	le_wr32(out + AO_SRC_COUNT, a->src_count);
	le_wr32(out + AO_DST_COUNT, a->dst_count);
	for (unsigned i = 0; i < ANEC_TILES; i++) {
		le_wr32(out + AO_TILES + 4 * i, a->tiles[i]);
		for (unsigned k = 0; k < 6; k++)
			le_wr64(out + AO_NCHW + 8 * (6 * i + k), a->nchw[i][k]);
	}
	return ANEC_HDR_LIBANE;
}
