/* The serial transport (docs/service.md, "Transport 2"): the command service fed by framed
 * records (fw/cmd/frame.h) on the console's UART, answered by framed completions. */
#ifndef ANEFW_APP_SERVE_H
#define ANEFW_APP_SERVE_H

#include "fw/cmd/frame.h"

#include <stdint.h>

/* Serves until a SHUTDOWN is answered or idle_limit passes go by without a byte or a command
 * (0: SERVE_IDLE_DEFAULT). Returns 0 after a shutdown, 1 when idle too long or out of memory. */
#define SERVE_IDLE_DEFAULT 2000000000ull
/* The served service's limits are the board's (hal_platform: serve_window, serve_slot;
 * docs/service.md, "Limits"): a data window that holds the program and every buffer a call
 * rebinds, and per loaded program (up to SVC_MAX_PROGRAMS) a slot that holds its TD memory,
 * kernel unit, fold scratch and default grants. */
/* Received bytes taken per pass before the service polls; bytes of completions queued for the
 * transmitter (a few READ answers). */
#define SERVE_RX_BURST 4096u
#define SERVE_TX_BYTES (8u * FRAME_MAX_WIRE)
/* Frames posted per pass at most, before the service polls. */
#define SERVE_FRAMES_PER_PASS 32u
/* Passes that may drain the transmit queue after the service stopped. */
#define SERVE_DRAIN_PASSES 10000000u
int anefw_serve(uint64_t idle_limit);

#endif
