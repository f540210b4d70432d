/*
 * libFuzzer target: the command decoder, the service state machine and the serial framing.
 *
 * Input: byte 0 picks what is fuzzed, the rest is data.
 *   mode 0: the data is one record. Property: a record the decoder accepts re-encodes to the
 *           same bytes (every field and reserved zero is checked before it is accepted).
 *   mode 1: the data is a stream of records (u16 length, then bytes) posted to a service over a
 *           scripted backend, polled as it goes. Property: the accounting invariant holds
 *           after every pass and, after shutdown, every command has exactly one completion.
 *   mode 2: the data is garbage fed to the frame receiver in chunks, followed by enough zero
 *           bytes to end any frame begun inside it and one valid frame. Property: that frame
 *           is the last one delivered, intact.
 */
#include "fw/cmd/cmd.h"
#include "fw/cmd/frame.h"
#include "fw/cmd/svc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct cmd d;
static uint8_t again[CMD_MAX_RECORD + 64];

static void fuzz_decode(const uint8_t *data, size_t size)
{
	uint8_t *rec = malloc(size ? size : 1); /* exact size: ASan catches any over-read */
	if (!rec)
		return;
	memcpy(rec, data, size);
	if (cmd_decode(rec, size, &d) == CMD_OK) {
		size_t n = cmd_encode(again, sizeof again, &d);
		if (n != size || memcmp(again, rec, size))
			abort();
	}
	free(rec);
}

static uint64_t clock_now;
static uint8_t pmem[SVC_MAX_PROGRAMS][512];
static uint64_t b_now(void *c) { (void)c; return clock_now; }
static void b_idle(void *c) { (void)c; clock_now++; }
static uint8_t *b_mem(void *c, unsigned slot, size_t len)
{
	(void)c;
	return len <= sizeof pmem[0] ? pmem[slot] : NULL;
}
static void b_load(void *c, unsigned slot, size_t len, uint32_t flags, struct svc_prog *info,
		   struct svc_result *r)
{
	(void)c;
	(void)flags;
	/* the program's bytes pick its schema: which BARs are used, fixed, written, how large */
	const uint8_t *p = pmem[slot];
	if (len < 8 || p[0] == 0xee) {
		r->err = CMD_E_PROGRAM;
		r->domain = SUBQ_DOM_LOADER;
		r->code = 1;
		return;
	}
	info->used = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4];
	info->fixed = info->used & ((uint32_t)p[5] * 0x01010101u);
	info->ntds = 1;
	info->procedures = 1 + (p[6] & 1);
	for (unsigned b = 0; b < CMD_NBARS; b++)
		info->bar[b] = (struct svc_bar){0x50000000u + slot * 0x100000u + b * 0x1000u,
						(uint64_t)(p[7] + b) * 16u, (uint8_t)(1 + (b + p[7]) % 3u),
						(uint8_t)((info->used >> b & 1u) | (info->fixed >> b & 1u) << 1)};
	r->err = CMD_OK;
}
static void b_unload(void *c, unsigned slot) { (void)c; (void)slot; }
static void b_run(void *c, unsigned slot, const struct svc_bars *bars, unsigned prio,
		  uint64_t budget, struct svc_result *r)
{
	(void)c;
	(void)prio;
	(void)bars;
	clock_now += 3 + slot;
	r->err = CMD_OK;
	if ((clock_now & 15u) == 0) { /* now and then the engine hangs or fails */
		r->err = CMD_E_DEADLINE;
		clock_now += budget;
	} else if ((clock_now & 15u) == 7) {
		r->err = CMD_E_ENGINE;
	}
}
static void b_recover(void *c) { (void)c; }

static struct cmd_shm shm;
static uint8_t window[0x2000];
static struct svc svc;
static uint32_t seen[65536];

static void fuzz_service(const uint8_t *data, size_t size)
{
	clock_now = 0;
	const struct svc_config cfg = {&shm, window, 0x40000000u, sizeof window, 1000, 200, 50, 1};
	const struct svc_backend be = {NULL, b_now, b_idle, b_mem, b_load, b_unload, b_run, b_recover};
	svc_init(&svc, &cfg, &be);
	svc_ready(&svc);
	memset(seen, 0, sizeof seen);
	/* the window holds the first bytes of the input: programs to load */
	memset(window, 0, sizeof window);
	memcpy(window, data, size < sizeof window ? size : sizeof window);
	uint32_t posted = 0, untagged = 0;
	struct cmd_completion c;
	size_t at = 0;
	while (at + 2 <= size) {
		size_t n = (size_t)data[at] | (size_t)data[at + 1] << 8;
		at += 2;
		if (n > size - at)
			n = size - at;
		/* tag each record by its post order, so completions can be counted */
		uint8_t rec[CMD_SLOT_PAYLOAD];
		size_t k = n < sizeof rec ? n : sizeof rec;
		memcpy(rec, data + at, k);
		uint32_t t = k >= 28 ? posted + 1 : 0; /* shorter records carry no tag */
		if (k >= 28) {
			rec[24] = (uint8_t)t;
			rec[25] = (uint8_t)(t >> 8);
			rec[26] = rec[27] = 0;
		}
		at += n;
		if (posted + 1 >= 65536 || cmd_host_post(&shm, rec, k) != CMD_RING_OK)
			break;
		posted++;
		untagged += t == 0;
		if ((posted & 7u) == 0 || at >= size)
			svc_poll(&svc);
		if (!svc_accounting_ok(&svc))
			abort();
		while (cmd_host_reap(&shm, &c) == CMD_RING_OK)
			if (c.tag < 65536)
				seen[c.tag]++;
	}
	/* a shutdown answers every queued call; then every record has exactly one answer */
	struct cmd_hdr h = {CMD_SHUTDOWN, 0, 0, -1, -1, 0, 0xfffff, 0};
	uint8_t rec[CMD_HDR_BYTES];
	cmd_encode_hdr(rec, sizeof rec, &h);
	for (unsigned i = 0; i < 2000 && svc.state != SVC_STOPPED; i++) {
		if (i == 0 || shm.h2f.head == shm.h2f.tail)
			cmd_host_post(&shm, rec, sizeof rec);
		svc_poll(&svc);
		while (cmd_host_reap(&shm, &c) == CMD_RING_OK)
			if (c.tag < 65536)
				seen[c.tag]++;
	}
	if (svc.state == SVC_STOPPED) {
		if (!svc_accounting_ok(&svc) || svc_pending(&svc))
			abort();
		if (seen[0] != untagged)
			abort();
		for (uint32_t t = 1; t <= posted; t++)
			if (seen[t] > 1)
				abort();
		uint32_t answered = untagged;
		for (uint32_t t = 1; t <= posted; t++)
			answered += seen[t];
		if (answered != posted)
			abort();
	}
}

static struct frame_rx rx;
static uint8_t tail[FRAME_MAX_WIRE * 2];

static void fuzz_frames(const uint8_t *data, size_t size)
{
	frame_rx_init(&rx);
	static const uint8_t pay[] = "the frame after the garbage";
	size_t chunk = size ? (size_t)data[0] % 97u + 1u : 1u, used, pl;
	const uint8_t *p = NULL, *last = NULL;
	size_t last_len = 0;
	memset(tail, 0, FRAME_MAX_WIRE + 16);
	size_t n = FRAME_MAX_WIRE + 16;
	n += frame_encode(pay, sizeof pay, tail + n, sizeof tail - n);
	for (int part = 0; part < 2; part++) {
		const uint8_t *b = part ? tail : data;
		size_t len = part ? n : size;
		for (size_t at = 0; at < len;) {
			size_t c = len - at < chunk ? len - at : chunk;
			if (frame_rx_push(&rx, b + at, c, &used, &p, &pl)) {
				if (pl > FRAME_MAX_PAYLOAD)
					abort();
				last = p;
				last_len = pl;
				if (part == 1 && at + used == len)
					break;
			}
			at += used;
		}
	}
	if (!last || last_len != sizeof pay || memcmp(last, pay, sizeof pay))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3u) {
	case 0:
		fuzz_decode(data + 1, size - 1);
		break;
	case 1:
		fuzz_service(data + 1, size - 1);
		break;
	default:
		fuzz_frames(data + 1, size - 1);
		break;
	}
	return 0;
}
