/* qemu-virt board: PL011 console and the memory map. */
#include "drivers/pl011/pl011.h"
#include "hal/aarch64/aarch64.h"
#include "hal/hal.h"
#include "hal/qemu-virt/platform.h"

#include <_newlib_version.h>

static struct pl011 uart0;
static int uart_ready;

void hal_console_init(void)
{
	if (pl011_init(&uart0, PLAT_UART0_BASE, PLAT_UART_CLK, PLAT_UART_BAUD) == PL011_OK)
		uart_ready = 1;
}

void hal_console_putc(char c)
{
	if (uart_ready)
		(void)pl011_putc(&uart0, c);
}

void hal_console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hal_console_putc(s[i]);
}

void board_init(void)
{
	hal_console_init();
	aarch64_counters_init();
}

static const struct hal_region regions[] = {
	{"flash", PLAT_FLASH_BASE, PLAT_FLASH_SIZE, HAL_REGION_DEVICE | HAL_REGION_R},
	{"devices", PLAT_DEVICE_BASE, PLAT_DEVICE_SIZE,
	 HAL_REGION_DEVICE | HAL_REGION_R | HAL_REGION_W},
	{"ram", PLAT_RAM_BASE, PLAT_RAM_SIZE, HAL_REGION_R | HAL_REGION_W},
};

static const struct hal_platform platform = {
	.board = PLAT_BOARD,
	.cpu = PLAT_CPU,
	.ncores = PLAT_NCORES,
	.regions = regions,
	.nregions = sizeof regions / sizeof regions[0],
	.libc = "newlib-nano " _NEWLIB_VERSION,
};

const struct hal_platform *hal_platform(void)
{
	return &platform;
}
