/* Arm PrimeCell PL011 UART. The caller owns the base address; every wait is bounded. */
#ifndef ANEFW_PL011_H
#define ANEFW_PL011_H

#include <stdint.h>

#define PL011_DR 0x000
#define PL011_FR 0x018
#define PL011_IBRD 0x024
#define PL011_FBRD 0x028
#define PL011_LCRH 0x02c
#define PL011_CR 0x030
#define PL011_IMSC 0x038
#define PL011_ICR 0x044

#define PL011_DR_DATA 0xffu

#define PL011_FR_BUSY (1u << 3)
#define PL011_FR_RXFE (1u << 4)
#define PL011_FR_TXFF (1u << 5)

#define PL011_LCRH_FEN (1u << 4)
#define PL011_LCRH_WLEN8 (3u << 5)

#define PL011_CR_UARTEN (1u << 0)
#define PL011_CR_TXE (1u << 8)
#define PL011_CR_RXE (1u << 9)

/* How long a transmit may wait for FIFO space, or a flush for the line to go idle (in time, by
 * the HAL's timer: 16 characters drain in under 20 ms at 9600 baud; a line stuck for a second
 * is taken as dead). */
#define PL011_TIMEOUT_US 1000000u

enum pl011_status {
	PL011_OK = 0,
	PL011_E_TIMEOUT = -1, /* the FIFO stayed full, or the line busy, for PL011_TIMEOUT_US */
	PL011_E_PARAM = -2,   /* a zero clock or baud rate, or a divisor out of range */
};

struct pl011 {
	uintptr_t base;
	uint32_t timeouts; /* transmits given up */
};

/* uartclk and baud in Hz; uartclk 0 keeps the current divisor (firmware-configured UARTs). */
int pl011_init(struct pl011 *u, uintptr_t base, uint32_t uartclk, uint32_t baud);
int pl011_putc(struct pl011 *u, char c);
/* Queues c when the transmit FIFO has room: 1, or 0 when it is full (never waits). */
int pl011_try_putc(struct pl011 *u, char c);
/* One received byte (0..255), or -1 when the receive FIFO is empty (never waits). */
int pl011_getc(struct pl011 *u);
/* Waits (bounded) until everything queued has left the shift register. */
int pl011_flush(struct pl011 *u);

#endif
