/* raspi3b board: PL011 console on GPIO14/15, the memory map, secondary-core wake-up, DMA device,
 * hardware RNG. */
#include "drivers/bcm2835_dma/bcm2835_dma.h"
#include "drivers/bcm2835_rng/bcm2835_rng.h"
#include "drivers/dma/dma.h"
#include "hal/aarch64/aarch64.h"
#include "hal/hal.h"
#include "hal/mmio.h"
#include "plat/common/console_pl011.h"
#include "plat/common/plat_common.h"
#include "plat/plat.h"
#include "plat/raspi3b/platform.h"

#include <_newlib_version.h>

#define GPFSEL(n) (PLAT_GPIO_BASE + 4u * (n))
#define GPIO_ALT0 4u

/* Route a GPIO pin to its ALT0 function (the PL011 on pins 14 and 15). */
static void gpio_alt0(unsigned pin)
{
	uintptr_t reg = GPFSEL(pin / 10);
	unsigned shift = 3u * (pin % 10);
	uint32_t v = mmio_read_32(reg);
	v = (v & ~(7u << shift)) | (GPIO_ALT0 << shift);
	mmio_write_32(reg, v);
}

void hal_console_init(void)
{
	gpio_alt0(PLAT_UART_TX_PIN);
	gpio_alt0(PLAT_UART_RX_PIN);
	/* Under QEMU the console shares stdout with semihosting: plain LF there. */
	plat_console_pl011_init(PLAT_UART0_BASE, PLAT_UART_CLK, PLAT_UART_BAUD, !ANEFW_SEMIHOSTING);
}

/* ---- DMA: the BCM2835 controller behind the generic API ---- */
static struct bcm2835_dma dma_ctl;
static struct dma_dev dma_dev;
static int dma_ready;
static enum dma_err dma_init_err;

struct dma_dev *plat_dma(void)
{
	if (!dma_ready) {
		const struct bcm2835_dma_params p = {
			.base = PLAT_DMA_BASE,
			.channel_mask = PLAT_DMA_CHANNEL_MASK,
			.bus_offset = PLAT_DMA_BUS_OFFSET,
			.ram_base = PLAT_RAM_BASE,
			.ram_size = PLAT_RAM_SIZE,
		};
		dma_init_err = bcm2835_dma_init(&dma_ctl, &dma_dev, &p);
		if (dma_init_err != DMA_OK)
			return NULL;
		dma_ready = 1;
	}
	return &dma_dev;
}

int plat_dma_err(void)
{
	return (int)dma_init_err;
}

/* The BCM2835 RNG (RNDR first, for a CPU that has it: the Pi 3's Cortex-A53 does not). */
const char *plat_entropy(uint64_t *seed)
{
	if (aarch64_rndr(seed))
		return "RNDR";
	if (bcm2835_rng_read64(PLAT_RNG_BASE, seed) == BCM2835_RNG_OK)
		return "BCM2835 RNG";
	return plat_entropy_counter(seed);
}

/* ---- secondary cores ---- */
extern char _start[];

/* Sends a core waiting in the boot stub (the Pi firmware's or QEMU's) to entry. */
static void spin_table_send(unsigned core, uintptr_t entry)
{
	volatile uint64_t *slot = (volatile uint64_t *)(uintptr_t)(PLAT_SPIN_TABLE_BASE + 8u * core);
	*slot = entry;
	hal_dcache_clean((const void *)(uintptr_t)slot, sizeof *slot);
	__asm__ volatile("dsb sy\nsev" ::: "memory");
}

enum hal_core_err hal_start_core(unsigned core, uintptr_t entry, uint64_t context)
{
	(void)context; /* the spin table passes none: boot/ finds its work in its release table */
	if (core == 0 || core >= PLAT_NCORES)
		return HAL_CORE_E_BAD_CORE;
	spin_table_send(core, entry); /* in case it still waits in the stub */
	/* Raise its mailbox 3 interrupt: it ends the WFI wait in boot/ (entry.S or start.c). */
	mmio_setbits_32(PLAT_LOCAL_MBOX_IRQ_CTRL(core), PLAT_LOCAL_MBOX3_IRQ);
	mmio_write_32(PLAT_LOCAL_MBOX3_SET(core), 1);
	return HAL_CORE_OK;
}

/* A core whose work is done waits in boot's WFI loop for the next start (no power-off here). */
void hal_stop_core(unsigned core)
{
	(void)core;
}

void board_secondary_woken(unsigned core)
{
	mmio_clrbits_32(PLAT_LOCAL_MBOX_IRQ_CTRL(core), PLAT_LOCAL_MBOX3_IRQ);
	mmio_write_32(PLAT_LOCAL_MBOX3_CLR(core), 0xffffffffu);
	__asm__ volatile("dsb sy" ::: "memory");
}

const struct hal_link *hal_link(void)
{
	return &plat_console_link;
}

void board_init(void)
{
	hal_console_init();
	aarch64_counters_init();
	/* Cores 1-3 move from the boot stub (which polls with WFE, a busy loop under QEMU) to the
	 * WFI wait in boot/entry.S, where they stay until boot_release_secondary(). Cores started
	 * at the entry already (the ELF at EL3) wait there already; their slots are unused. */
	for (unsigned core = 1; core < PLAT_NCORES; core++)
		spin_table_send(core, (uintptr_t)_start);
}

static const struct hal_region regions[] = {
	{"ram", PLAT_RAM_BASE, PLAT_RAM_SIZE, HAL_REGION_R | HAL_REGION_W},
	{"peripherals", PLAT_PERIPH_BASE, PLAT_PERIPH_SIZE,
	 HAL_REGION_DEVICE | HAL_REGION_R | HAL_REGION_W},
	{"local periph", PLAT_LOCAL_BASE, PLAT_LOCAL_SIZE,
	 HAL_REGION_DEVICE | HAL_REGION_R | HAL_REGION_W},
};

static const struct hal_platform platform = {
	.board = PLAT_BOARD,
	.cpu = PLAT_CPU,
	.ncores = PLAT_NCORES,
	.regions = regions,
	.nregions = sizeof regions / sizeof regions[0],
	.libc = "newlib-nano " _NEWLIB_VERSION,
	.max_work = 256ull << 20, /* 256 MiB of engine work per submission (1 GiB of RAM) */
	.model_ops = 1ull << 30,  /* the model's compute limit a submission, as qemu-virt's */
	/* what fits beside the image in 948 MiB: 704 MiB for the service, the rest for program
	 * copies and the session */
	.serve_window = 192ull << 20,
	.serve_slot = 128ull << 20,
};

const struct hal_platform *hal_platform(void)
{
	return &platform;
}
