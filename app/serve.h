/* The serial transport (docs/service.md, "Transport 2"): the command service fed by framed
 * records (fw/cmd/frame.h) on the console's UART, answered by framed completions. */
#ifndef ANEFW_APP_SERVE_H
#define ANEFW_APP_SERVE_H

#include <stdint.h>

/* Serves until a SHUTDOWN is answered or idle_limit passes go by without a byte or a command
 * (0: SERVE_IDLE_DEFAULT). Returns 0 after a shutdown, 1 when idle too long or out of memory. */
#define SERVE_IDLE_DEFAULT 2000000000ull
int anefw_serve(uint64_t idle_limit);

#endif
