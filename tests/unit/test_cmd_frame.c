/* Serial framing (fw/cmd/frame.c): frames round-trip in any chunking, a corrupted frame is
 * dropped and counted, and the receiver finds the next valid frame after any garbage. */
#include "tests/harness/harness.h"
#include "fw/cmd/frame.h"

#include <string.h>

static struct frame_rx f_rx;
static uint8_t f_wire[4 * FRAME_MAX_WIRE];
static uint8_t f_got[8][FRAME_MAX_PAYLOAD];
static size_t f_glen[8];

/* Feeds n bytes in chunks of `chunk`; collects up to 8 frames. Returns the count. */
static unsigned feed(const uint8_t *b, size_t n, size_t chunk)
{
	unsigned k = 0;
	for (size_t at = 0; at < n;) {
		size_t c = n - at < chunk ? n - at : chunk, used;
		const uint8_t *p;
		size_t pl;
		while (c) {
			int done = frame_rx_push(&f_rx, b + at, c, &used, &p, &pl);
			at += used;
			c -= used;
			if (done && k < 8) {
				memcpy(f_got[k], p, pl);
				f_glen[k++] = pl;
			}
			if (!done)
				break;
		}
	}
	return k;
}

TEST(cmd_frame, round_trip_any_chunking)
{
	uint8_t pay[300];
	for (unsigned i = 0; i < sizeof pay; i++)
		pay[i] = (uint8_t)(i * 13u);
	size_t n = frame_encode(pay, sizeof pay, f_wire, sizeof f_wire);
	CHECK_EQ(n, sizeof pay + 10);
	size_t n2 = frame_encode(pay, 0, f_wire + n, sizeof f_wire - n);
	CHECK_EQ(n2, 10);
	const size_t chunks[] = {1, 2, 7, 64, 1000};
	for (unsigned c = 0; c < 5; c++) {
		frame_rx_init(&f_rx);
		CHECK_EQ(feed(f_wire, n + n2, chunks[c]), 2);
		CHECK_EQ(f_glen[0], sizeof pay);
		CHECK_MEM(f_got[0], pay, sizeof pay);
		CHECK_EQ(f_glen[1], 0);
	}
	CHECK_EQ(frame_encode(pay, FRAME_MAX_PAYLOAD + 1, f_wire, sizeof f_wire), 0);
	CHECK_EQ(frame_encode(pay, 10, f_wire, 19), 0);
	CHECK_EQ(frame_crc32((const uint8_t *)"123456789", 9, 0), 0xcbf43926u); /* the check value */
}

TEST(cmd_frame, corrupt_frames_dropped_then_resynchronised)
{
	uint8_t pay[40];
	for (unsigned i = 0; i < sizeof pay; i++)
		pay[i] = (uint8_t)(0xa5 ^ i);
	size_t at = 0;
	/* garbage that looks like frame starts: sync bytes, a sync with a bad length check */
	const uint8_t junk[] = {0x00, 0xa5, 0xa5, 0x5a, 0x10, 0x00, 0x00, 0x00, 0xa5, 0x11, 0xa5,
				0x5a, 0xff, 0xff, 0x00, 0x00};
	memcpy(f_wire, junk, sizeof junk);
	at += sizeof junk;
	/* a frame with one payload byte flipped, then a good one */
	size_t n = frame_encode(pay, sizeof pay, f_wire + at, sizeof f_wire - at);
	f_wire[at + 20] ^= 0x01;
	at += n;
	/* a frame start whose length swallows the next frame: found again by rescanning */
	const uint8_t swallow[] = {0xa5, 0x5a, 0x00, 0x01, 0xff, 0xfe};
	memcpy(f_wire + at, swallow, sizeof swallow);
	at += sizeof swallow;
	at += frame_encode(pay, sizeof pay, f_wire + at, sizeof f_wire - at);
	memset(f_wire + at, 0, 300); /* enough bytes for the swallowing frame to end and fail */
	at += 300;
	frame_rx_init(&f_rx);
	unsigned k = feed(f_wire, at, 5);
	CHECK_EQ(k, 1);
	CHECK_EQ(f_glen[0], sizeof pay);
	CHECK_MEM(f_got[0], pay, sizeof pay);
	CHECK(f_rx.bad_crc >= 2);
	CHECK(f_rx.bad_len >= 1);
	CHECK_EQ(f_rx.frames, 1);
	/* the checker fails on a frame it should not deliver: flip the good frame's CRC */
	frame_rx_init(&f_rx);
	n = frame_encode(pay, sizeof pay, f_wire, sizeof f_wire);
	f_wire[n - 1] ^= 0x80;
	CHECK_EQ(feed(f_wire, n, 3), 0);
	CHECK_EQ(f_rx.bad_crc, 1);
}
