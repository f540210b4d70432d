/* qemu-virt board: PL011 console, the memory map, PSCI cores, the memory-copy DMA engine. */
#include "drivers/virtio/virtio_console.h"
#include "hal/aarch64/aarch64.h"
#include "hal/hal.h"
#include "plat/common/console_pl011.h"
#include "plat/common/plat_common.h"
#include "plat/plat.h"
#include "plat/qemu-virt/platform.h"

#include <_newlib_version.h>

void hal_console_init(void)
{
	plat_console_pl011_init(PLAT_UART0_BASE, PLAT_UART_CLK, PLAT_UART_BAUD, 0);
}

/* ---- the command link: a virtio console when QEMU gives one (qemu-run.sh --link-tcp), else
 * the console's UART ---- */
static struct vcon vcon __attribute__((aligned(4096)));
static size_t vcon_link_read(uint8_t *b, size_t n)
{
	return vcon_read(&vcon, b, n);
}
static size_t vcon_link_write(const uint8_t *b, size_t n)
{
	return vcon_write(&vcon, b, n);
}
static const struct hal_link vcon_link = {"a virtio console", vcon_link_read, vcon_link_write};

const struct hal_link *hal_link(void)
{
	static const struct hal_link *link;
	if (!link)
		link = vcon_probe(&vcon, PLAT_VIRTIO_BASE, PLAT_VIRTIO_STRIDE, PLAT_VIRTIO_COUNT) ==
			       VCON_OK
			   ? &vcon_link
			   : &plat_console_link;
	return link;
}

/* ---- secondary cores: PSCI, QEMU's own (the machine has no firmware) ---- */
/* ALREADY_ON / ON_PENDING while the core finishes CPU_OFF: it clears its release slot (not busy)
 * just before PSCI CPU_OFF, so a start right after may find it still on. Bounded in time, not in
 * calls: with the host loaded, QEMU may not run the leaving vCPU for a while (100,000 calls were
 * once not enough: a two-worker test got one under a loaded make test). */
#define CORE_ON_TIMEOUT_US 5000000u

enum hal_core_err hal_start_core(unsigned core, uintptr_t entry, uint64_t context)
{
	if (core == 0 || core >= PLAT_NCORES)
		return HAL_CORE_E_BAD_CORE;
	/* Booted at EL3 (secure=on, no firmware) the image is the highest level: QEMU provides no
	 * PSCI then, and an HVC with no EL2 is undefined. */
	if (hal_entry_el() == 3)
		return HAL_CORE_E_UNSUPPORTED;
	const uint64_t deadline = hal_timeout_init_us(CORE_ON_TIMEOUT_US);
	int64_t r;
	for (;;) {
		r = aarch64_psci_call(PSCI_CPU_ON64_ID, core /* MPIDR: Aff0 */, entry, context);
		if ((r != PSCI_ALREADY_ON && r != PSCI_ON_PENDING) || hal_timeout_elapsed(deadline))
			break;
		hal_cpu_relax();
	}
	switch (r) {
	case PSCI_SUCCESS: return HAL_CORE_OK;
	case PSCI_ALREADY_ON:
	case PSCI_ON_PENDING: return HAL_CORE_E_ALREADY_ON;
	case PSCI_NOT_SUPPORTED: return HAL_CORE_E_UNSUPPORTED;
	default: return HAL_CORE_E_DENIED;
	}
}

/* PSCI CPU_OFF: does not return on success; the next start is a fresh CPU_ON at _start. */
void hal_stop_core(unsigned core)
{
	(void)core;
	(void)aarch64_psci_call(PSCI_CPU_OFF_ID, 0, 0, 0);
}

/* The machine has no DMA controller anefw drives: the memory-copy engine stands in. */
struct dma_dev *plat_dma(void)
{
	return plat_dma_memcpy();
}

int plat_dma_err(void)
{
	return plat_dma_memcpy_err();
}

/* RNDR where the CPU has it (QEMU's cortex-a53 does not; -cpu max does); else the timer. */
const char *plat_entropy(uint64_t *seed)
{
	if (aarch64_rndr(seed))
		return "RNDR";
	return plat_entropy_counter(seed);
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
	/* 2^30 multiply-accumulates: 20 to 30 s of the model under QEMU, within the link's 60 s
	 * wait for an answer (docs/robustness.md, "Compute") */
	.model_ops = 1ull << 30,
	/* the service holds what the local run does: a slot is SESSION_MAX_ARENA (256 MiB), the
	 * window a program of that size and every buffer a call rebinds (1.5 GiB of the 2 GiB) */
	.serve_window = 512ull << 20,
	.serve_slot = 256ull << 20,
};

const struct hal_platform *hal_platform(void)
{
	return &platform;
}
