/* The console on a PL011 (plat/common/console_pl011.c), for the boards that have one. */
#ifndef ANEFW_PLAT_CONSOLE_PL011_H
#define ANEFW_PLAT_CONSOLE_PL011_H

#include "hal/hal.h"

#include <stdint.h>

/* crlf: send CR before LF. */
void plat_console_pl011_init(uintptr_t base, uint32_t uartclk, uint32_t baud, int crlf);

/* The console's line as the command link (hal_link). */
extern const struct hal_link plat_console_link;

#endif
