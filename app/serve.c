/*
 * The serial transport: bytes from the console's UART go through the frame receiver; each frame
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

/* One completion out; a READ's carries the window bytes it names. */
static void send_completion(struct asvc *a, const struct cmd_completion *c)
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
	if (w)
		hal_console_write_raw(s_wire, w);
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
	const struct asvc_opts o = {.window_size = SERVE_WINDOW_BYTES, .slot_size = SERVE_SLOT_BYTES};
	struct asvc *a = session ? asvc_create(session, &o) : NULL;
	if (!a) {
		printf("serve: out-of-memory (a %lu MiB window and %u slots of %lu MiB)\n",
		       (unsigned long)(SERVE_WINDOW_BYTES >> 20), SVC_MAX_PROGRAMS,
		       (unsigned long)(SERVE_SLOT_BYTES >> 20));
		if (session)
			session_destroy(session);
		return 1;
	}
	struct svc *s = asvc_svc(a);
	struct cmd_shm *m = asvc_shm(a);
	frame_rx_init(&s_rx);
	printf("serve: framed commands on this line (docs/service.md); limits: a %lu MiB data "
	       "window, %u program slots of %lu MiB\n", (unsigned long)(SERVE_WINDOW_BYTES >> 20),
	       SVC_MAX_PROGRAMS, (unsigned long)(SERVE_SLOT_BYTES >> 20));
	fflush(stdout);
	svc_ready(s);
	uint64_t idle = 0;
	int rc = 1;
	while (idle < idle_limit) {
		int busy = 0;
		int ch = hal_console_getc();
		if (ch >= 0) {
			uint8_t b = (uint8_t)ch;
			size_t used;
			const uint8_t *p;
			size_t plen;
			busy = 1;
			if (frame_rx_push(&s_rx, &b, 1, &used, &p, &plen)) {
				/* the ring has room: the service reads commands each pass and this
				 * transport posts one per frame; a full ring is polled until it has */
				for (unsigned i = 0; i < 1000000u &&
				     cmd_host_post(m, p, plen) == CMD_RING_FULL; i++)
					svc_poll(s);
			}
		}
		busy |= svc_poll(s) != 0;
		struct cmd_completion c;
		while (cmd_host_reap(m, &c) == CMD_RING_OK) {
			send_completion(a, &c);
			busy = 1;
		}
		if (s->state == SVC_STOPPED && svc_pending(s) == 0) {
			rc = 0;
			break;
		}
		idle = busy ? 0 : idle + 1;
	}
	asvc_destroy(a);
	session_destroy(session);
	printf("\nserve: %s\n", rc ? "idle too long" : "shut down");
	return rc;
}
