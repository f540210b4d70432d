#include "drivers/pl011/pl011.h"
#include "hal/hal.h"
#include "hal/mmio.h"

int pl011_init(struct pl011 *u, uintptr_t base, uint32_t uartclk, uint32_t baud)
{
	u->base = base;
	u->timeouts = 0;
	if (uartclk == 0)
		return PL011_OK;
	if (baud == 0)
		return PL011_E_PARAM;
	/* divisor = uartclk / (16 * baud) as a 16.6 fixed-point number, rounded */
	uint64_t div64 = (((uint64_t)uartclk * 4u) + baud / 2) / baud;
	uint32_t ibrd = (uint32_t)(div64 >> 6), fbrd = (uint32_t)(div64 & 0x3f);
	if (ibrd == 0 || ibrd > 0xffff)
		return PL011_E_PARAM;
	mmio_write_32(base + PL011_CR, 0);
	(void)pl011_flush(u);
	mmio_write_32(base + PL011_IMSC, 0);
	mmio_write_32(base + PL011_ICR, 0x7ff);
	mmio_write_32(base + PL011_IBRD, ibrd);
	mmio_write_32(base + PL011_FBRD, fbrd);
	mmio_write_32(base + PL011_LCRH, PL011_LCRH_WLEN8 | PL011_LCRH_FEN);
	mmio_write_32(base + PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE);
	return PL011_OK;
}

static int tx_room(const struct pl011 *u)
{
	return !(mmio_read_32(u->base + PL011_FR) & PL011_FR_TXFF);
}

int pl011_putc(struct pl011 *u, char c)
{
	if (!tx_room(u)) { /* the deadline only once the FIFO is full: most characters find room */
		/* the deadline is read before the FIFO, so the last look comes after it has passed
		 * (a core stalled past it still looks once more) */
		uint64_t deadline = hal_timeout_init_us(PL011_TIMEOUT_US);
		for (int late = 0; !tx_room(u);) {
			if (late) {
				u->timeouts++;
				return PL011_E_TIMEOUT;
			}
			late = hal_timeout_elapsed(deadline);
		}
	}
	mmio_write_32(u->base + PL011_DR, (uint8_t)c);
	return PL011_OK;
}

int pl011_try_putc(struct pl011 *u, char c)
{
	if (!tx_room(u))
		return 0;
	mmio_write_32(u->base + PL011_DR, (uint8_t)c);
	return 1;
}

int pl011_getc(struct pl011 *u)
{
	if (mmio_read_32(u->base + PL011_FR) & PL011_FR_RXFE)
		return -1;
	/* the data byte; the error bits above it (framing, parity, break, overrun) are dropped:
	 * the framing above (fw/cmd/frame.c) checks every frame and resynchronises */
	return (int)(mmio_read_32(u->base + PL011_DR) & PL011_DR_DATA);
}

int pl011_flush(struct pl011 *u)
{
	uint64_t deadline = hal_timeout_init_us(PL011_TIMEOUT_US);
	for (;;) {
		int late = hal_timeout_elapsed(deadline); /* before the look: the last look is late */
		if (!(mmio_read_32(u->base + PL011_FR) & PL011_FR_BUSY))
			return PL011_OK;
		if (late)
			return PL011_E_TIMEOUT;
	}
}
