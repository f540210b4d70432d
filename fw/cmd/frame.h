/*
 * Serial framing for the command protocol (docs/service.md): the same records and completions,
 * one per frame, over a byte stream (a UART) that may drop, corrupt or insert bytes.
 *
 *   0xa5 0x5a | len u16 | ~len u16 | payload (len bytes) | crc32 u32 (IEEE, over len, ~len and
 *   the payload)
 *
 * The receiver takes bytes in any chunks. A length whose complement does not match, a length
 * over FRAME_MAX_PAYLOAD or a checksum that does not match drops the frame's first byte and
 * rescans the bytes after it, so a valid frame after any garbage is found (a frame that begins
 * inside garbage ends at most FRAME_MAX_WIRE bytes later). Pure logic.
 */
#ifndef ANEFW_CMD_FRAME_H
#define ANEFW_CMD_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_SYNC0 0xa5u
#define FRAME_SYNC1 0x5au
#define FRAME_HDR 6u
#define FRAME_MAX_PAYLOAD 4096u
#define FRAME_MAX_WIRE (FRAME_HDR + FRAME_MAX_PAYLOAD + 4u)

uint32_t frame_crc32(const uint8_t *b, size_t n, uint32_t crc);

/* Writes a frame; returns its length, or 0 when len > FRAME_MAX_PAYLOAD or cap is too small. */
size_t frame_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t cap);

struct frame_rx {
	uint8_t buf[FRAME_MAX_WIRE];
	size_t n;                        /* bytes of the frame being assembled */
	uint8_t pend[FRAME_MAX_WIRE];    /* bytes to rescan after a bad frame */
	size_t pend_n, pend_pos;
	uint64_t frames, bad_len, bad_crc, skipped;
};

void frame_rx_init(struct frame_rx *r);
/*
 * Feeds bytes. Returns 1 when a frame is complete: *payload and *plen point at it inside r (valid
 * until the next call) and *used says how many of data's bytes were taken; call again with the
 * rest. Returns 0 when every byte was taken without completing a frame (*used = len).
 */
int frame_rx_push(struct frame_rx *r, const uint8_t *data, size_t len, size_t *used,
		  const uint8_t **payload, size_t *plen);

#endif
