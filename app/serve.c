/*
 * The serial transport: bytes from the command link (hal_link: a virtio console on qemu-virt
 * when QEMU gives one, else the console's UART) go through the frame receiver; each frame
 * is one command record, posted to the service's host-to-firmware ring as a host on a core would;
 * each completion goes back as one frame (64 bytes; a READ's completion is followed, in the same
 * frame, by the window bytes it names). Anything on the line that is not a valid frame (the
 * banner, a console message, line noise) is skipped by both ends' frame receivers.
 */
#include "app/serve.h"
#include "app/service.h"
#include "app/session.h"
#include "fw/cmd/cmd.h"
#include "fw/cmd/frame.h"
#include "fw/cmd/svc.h"
#include "hal/hal.h"
#include "plat/plat.h"

#include <stdio.h>
#include <string.h>

static struct frame_rx s_rx;
static uint8_t s_payload[CMD_COMPL_BYTES + CMD_MAX_XFER];
static uint8_t s_wire[FRAME_MAX_WIRE];
/* Frames waiting for the transmitter: the loop never waits on the line, so bytes that arrive
 * while completions go out are read in time (a real UART's receive FIFO is 16 bytes deep). */
static uint8_t s_tx[SERVE_TX_BYTES];
static size_t s_tx_head, s_tx_len;
/* Bytes read from the link, not yet through the frame receiver (which stops at each frame). */
static uint8_t s_rx_buf[SERVE_RX_BURST];
static size_t s_rx_pos, s_rx_len;

/* One completion into the transmit queue (the caller made room for FRAME_MAX_WIRE bytes); a
 * READ's carries the window bytes it names. */
static void queue_completion(struct asvc *a, const struct cmd_completion *c)
{
	size_t n = CMD_COMPL_BYTES;
	cmd_compl_encode(s_payload, c);
	if (c->id == CMD_READ && c->err == CMD_OK) {
		uint64_t wdev, wsize;
		const uint8_t *win = asvc_window(a, &wdev, &wsize);
		uint64_t off = c->data[0] | (uint64_t)c->data[1] << 32;
		uint32_t len = c->data[2];
		/* the service checked the range; checked again here, where the bytes are read */
		if (len <= CMD_MAX_XFER && off <= wsize && len <= wsize - off) {
			memcpy(s_payload + n, win + off, len);
			n += len;
		}
	}
	size_t w = frame_encode(s_payload, n, s_wire, sizeof s_wire);
	if (s_tx_head + s_tx_len + w > sizeof s_tx) { /* compact: the queue is linear */
		memmove(s_tx, s_tx + s_tx_head, s_tx_len);
		s_tx_head = 0;
	}
	memcpy(s_tx + s_tx_head + s_tx_len, s_wire, w);
	s_tx_len += w;
}

/* As many queued bytes as the link takes now; 1 when any went. */
static int transmit(const struct hal_link *link)
{
	if (!s_tx_len)
		return 0;
	size_t n = link->write(s_tx + s_tx_head, s_tx_len);
	s_tx_head += n;
	s_tx_len -= n;
	if (!s_tx_len)
		s_tx_head = 0;
	return n != 0;
}

int anefw_serve(uint64_t idle_limit)
{
	if (!idle_limit)
		idle_limit = SERVE_IDLE_DEFAULT;
	struct dma_dev *dma = plat_dma();
	if (!dma) {
		char why[160];
		err_format(why, sizeof why, dma_err((enum dma_err)plat_dma_err()));
		printf("serve: the board's DMA engine did not come up: %s\n", why);
		return 1;
	}
	struct app_session *session = session_create(dma);
	const struct hal_platform *pf = hal_platform();
	const struct asvc_opts o = {.window_size = pf->serve_window, .slot_size = pf->serve_slot,
				    .lazy_paint = 1};
	struct asvc *a = session ? asvc_create(session, &o) : NULL;
	if (!a) {
		printf("serve: out-of-memory (a %lu MiB window and %u slots of %lu MiB)\n",
		       (unsigned long)(pf->serve_window >> 20), SVC_MAX_PROGRAMS,
		       (unsigned long)(pf->serve_slot >> 20));
		if (session)
			session_destroy(session);
		return 1;
	}
	struct svc *s = asvc_svc(a);
	s->hello_unloads = 1; /* one client at a time: a HELLO frees what the last one left */
	struct cmd_shm *m = asvc_shm(a);
	frame_rx_init(&s_rx);
	s_tx_head = s_tx_len = s_rx_pos = s_rx_len = 0;
	const struct hal_link *link = hal_link();
	printf("serve: framed commands on %s (docs/service.md); limits: a %lu MiB data "
	       "window, %u program slots of %lu MiB\n", link->name,
	       (unsigned long)(pf->serve_window >> 20), SVC_MAX_PROGRAMS,
	       (unsigned long)(pf->serve_slot >> 20));
	fflush(stdout);
	svc_ready(s);
	uint64_t idle = 0;
	int rc = 1;
	const uint8_t *held = NULL; /* a frame the command ring had no room for yet */
	size_t held_len = 0;
	unsigned reads_pending = 0; /* READs posted whose completion is not collected yet */
	while (idle < idle_limit) {
		int busy = 0;
		/* receive: frames from the bytes waiting, each posted when the ring has room (a
		 * frame the ring has no room for stays valid in the receiver, which takes no byte
		 * meanwhile; the service frees slots as it reads them) */
		for (unsigned f = 0; f < SERVE_FRAMES_PER_PASS; f++) {
			while (!held) {
				if (s_rx_pos == s_rx_len) {
					s_rx_pos = 0;
					s_rx_len = link->read(s_rx_buf, sizeof s_rx_buf);
					if (!s_rx_len)
						break;
					busy = 1;
				}
				size_t used;
				int got = frame_rx_push(&s_rx, s_rx_buf + s_rx_pos, s_rx_len - s_rx_pos,
							&used, &held, &held_len);
				s_rx_pos += used;
				if (!got)
					held = NULL;
			}
			/* a READ is answered with the window's bytes when its completion is collected
			 * below: no command after it goes to the service until then, so a WRITE or
			 * CALL posted after a READ cannot change the bytes it answers */
			if (!held || reads_pending || cmd_host_post(m, held, held_len) == CMD_RING_FULL)
				break;
			if (held_len >= 4 && (held[0] | held[1] << 8 | (uint32_t)held[2] << 16 |
					      (uint32_t)held[3] << 24) == CMD_READ)
				reads_pending++;
			held = NULL;
			busy = 1;
		}
		busy |= svc_poll(s) != 0;
		struct cmd_completion c;
		while (sizeof s_tx - s_tx_len >= FRAME_MAX_WIRE && cmd_host_reap(m, &c) == CMD_RING_OK) {
			queue_completion(a, &c);
			if (c.id == CMD_READ && reads_pending)
				reads_pending--;
			busy = 1;
		}
		busy |= transmit(link);
		/* an empty transmit queue means the reaping above found the ring empty */
		if (s->state == SVC_STOPPED && svc_pending(s) == 0 && !s_tx_len) {
			rc = 0;
			break;
		}
		idle = busy ? 0 : idle + 1;
	}
	/* what is still queued goes out, for a bounded number of passes */
	for (uint32_t k = 0; s_tx_len && k < SERVE_DRAIN_PASSES; k++)
		transmit(link);
	s_tx_len = 0;
	asvc_destroy(a);
	session_destroy(session);
	printf("\nserve: %s\n", rc ? "idle too long" : "shut down");
	return rc;
}
