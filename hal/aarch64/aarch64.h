/* What every AArch64 board shares (hal/aarch64/), and what each board provides to it. */
#ifndef ANEFW_HAL_AARCH64_H
#define ANEFW_HAL_AARCH64_H

#include <stdint.h>

void aarch64_set_entry_el(unsigned el);
void aarch64_counters_init(void);

/* The console on a PL011 (hal/aarch64/console_pl011.c); crlf: send CR before LF. */
void aarch64_console_pl011_init(uintptr_t base, uint32_t uartclk, uint32_t baud, int crlf);

/* Provided by hal/<board>/: console and anything else the board needs before main(). */
void board_init(void);

/* Multi-core boards (weak defaults in boot/start.c do nothing): wake secondary core `core`,
 * waiting in boot/entry.S or in the board's own boot stub, so that it (re)enters at `entry`; and,
 * on that core once released, clear whatever woke it. */
void board_wake_secondary(unsigned core, uintptr_t entry);
void board_secondary_woken(unsigned core);

#endif
