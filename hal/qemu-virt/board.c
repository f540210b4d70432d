/* qemu-virt board: PL011 console and the memory map. */
#include "hal/aarch64/aarch64.h"
#include "hal/hal.h"
#include "hal/qemu-virt/platform.h"

#include <_newlib_version.h>

void hal_console_init(void)
{
	aarch64_console_pl011_init(PLAT_UART0_BASE, PLAT_UART_CLK, PLAT_UART_BAUD, 0);
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
	.max_work = 512ull << 20, /* 512 MiB of engine work per submission: about 2 s of QEMU */
};

const struct hal_platform *hal_platform(void)
{
	return &platform;
}
