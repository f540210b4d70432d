/* The console on a PL011 UART, for every board that has one: the board picks the UART (plat/). */
#include "drivers/pl011/pl011.h"
#include "plat/common/console_pl011.h"
#include "hal/hal.h"

static struct pl011 console_uart;
static int console_ready;
static int console_crlf;

void plat_console_pl011_init(uintptr_t base, uint32_t uartclk, uint32_t baud, int crlf)
{
	console_crlf = crlf;
	console_ready = pl011_init(&console_uart, base, uartclk, baud) == PL011_OK;
}

void hal_console_putc(char c)
{
	if (!console_ready)
		return;
	if (c == '\n' && console_crlf)
		(void)pl011_putc(&console_uart, '\r'); /* a serial terminal wants CR LF */
	(void)pl011_putc(&console_uart, c);
}

void hal_console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hal_console_putc(s[i]);
}

int hal_console_getc(void)
{
	return console_ready ? pl011_getc(&console_uart) : -1;
}

void hal_console_write_raw(const uint8_t *b, size_t n)
{
	for (size_t i = 0; console_ready && i < n; i++)
		(void)pl011_putc(&console_uart, (char)b[i]);
}

size_t hal_console_write_some(const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (console_ready && i < n && pl011_try_putc(&console_uart, (char)b[i]))
		i++;
	return i;
}

static size_t console_read(uint8_t *b, size_t n)
{
	size_t i = 0;
	for (int ch; i < n && (ch = hal_console_getc()) >= 0; i++)
		b[i] = (uint8_t)ch;
	return i;
}

const struct hal_link plat_console_link = {"the console's UART", console_read,
					   hal_console_write_some};
