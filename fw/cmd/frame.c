/* Serial framing (see frame.h). */
#include "fw/cmd/frame.h"
#include "fw/common/le.h"

#include <string.h>

uint32_t frame_crc32(const uint8_t *b, size_t n, uint32_t crc)
{
	/* reflected IEEE polynomial, a nibble at a time (16-entry table) */
	static const uint32_t t[16] = {
		0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
		0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
		0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= b[i];
		crc = (crc >> 4) ^ t[crc & 15u];
		crc = (crc >> 4) ^ t[crc & 15u];
	}
	return ~crc;
}

size_t frame_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t cap)
{
	if (len > FRAME_MAX_PAYLOAD || !out || cap < FRAME_HDR + len + 4 || (len && !payload))
		return 0;
	out[0] = FRAME_SYNC0;
	out[1] = FRAME_SYNC1;
	le_wr16(out + 2, (uint16_t)len);
	le_wr16(out + 4, (uint16_t)~len);
	if (len)
		memcpy(out + FRAME_HDR, payload, len);
	le_wr32(out + FRAME_HDR + len, frame_crc32(out + 2, 4 + len, 0));
	return FRAME_HDR + len + 4;
}

void frame_rx_init(struct frame_rx *r)
{
	r->n = r->pend_n = r->pend_pos = 0;
	r->frames = r->bad_len = r->bad_crc = r->skipped = 0;
}

/* Drops the first byte of the frame being assembled; the rest is scanned again. */
static void resync(struct frame_rx *r)
{
	size_t keep = r->n - 1;
	size_t left = r->pend_n - r->pend_pos;
	/* what is still pending comes after the bytes being rescanned */
	memmove(r->pend + keep, r->pend + r->pend_pos, left);
	memcpy(r->pend, r->buf + 1, keep);
	r->pend_n = keep + left; /* <= FRAME_MAX_WIRE: pending bytes were once in buf */
	r->pend_pos = 0;
	r->n = 0;
	r->skipped++;
}

/* One byte; returns 1 when it completes a frame. */
static int step(struct frame_rx *r, uint8_t b)
{
	if (r->n == 0 && b != FRAME_SYNC0) {
		r->skipped++;
		return 0;
	}
	if (r->n == 1 && b != FRAME_SYNC1) {
		r->skipped++;
		r->n = b == FRAME_SYNC0; /* this byte may start the next frame */
		return 0;
	}
	r->buf[r->n++] = b;
	if (r->n < FRAME_HDR)
		return 0;
	uint32_t len = le_rd16(r->buf + 2);
	if (r->n == FRAME_HDR && ((len ^ le_rd16(r->buf + 4)) != 0xffffu || len > FRAME_MAX_PAYLOAD)) {
		r->bad_len++;
		resync(r);
		return 0;
	}
	if (r->n < FRAME_HDR + len + 4)
		return 0;
	if (frame_crc32(r->buf + 2, 4 + len, 0) != le_rd32(r->buf + FRAME_HDR + len)) {
		r->bad_crc++;
		resync(r);
		return 0;
	}
	r->frames++;
	return 1;
}

int frame_rx_push(struct frame_rx *r, const uint8_t *data, size_t len, size_t *used,
		  const uint8_t **payload, size_t *plen)
{
	size_t i = 0;
	if (r->n >= FRAME_HDR && r->n == FRAME_HDR + (size_t)le_rd16(r->buf + 2) + 4)
		r->n = 0; /* the frame returned last time */
	for (;;) {
		uint8_t b;
		if (r->pend_pos < r->pend_n)
			b = r->pend[r->pend_pos++];
		else if (i < len)
			b = data[i++];
		else
			break;
		if (r->pend_pos == r->pend_n)
			r->pend_pos = r->pend_n = 0;
		if (step(r, b)) {
			*payload = r->buf + FRAME_HDR;
			*plen = le_rd16(r->buf + 2);
			*used = i;
			return 1;
		}
	}
	*used = i;
	return 0;
}
