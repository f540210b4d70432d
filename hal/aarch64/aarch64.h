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

/* Multi-core boards: on a released core (MMU on), clear whatever woke it (weak default in
 * boot/start.c: nothing). Starting a core is hal_start_core (hal/hal.h). */
void board_secondary_woken(unsigned core);

/* PSCI (Arm DEN 0022) through the conduit the entry exception level implies (hal/aarch64/psci.c):
 * QEMU's virt machine answers HVC when it boots the image at EL1, SMC when at EL2
 * (virtualization=on, its PSCI at the missing EL3); booted at EL3 it offers none. */
#define PSCI_VERSION_ID 0x84000000u
#define PSCI_CPU_OFF_ID 0x84000002u
#define PSCI_CPU_ON64_ID 0xc4000003u
#define PSCI_SUCCESS 0
#define PSCI_NOT_SUPPORTED (-1)
#define PSCI_INVALID_PARAMETERS (-2)
#define PSCI_DENIED (-3)
#define PSCI_ALREADY_ON (-4)
#define PSCI_ON_PENDING (-5)
#define PSCI_INTERNAL_FAILURE (-6)
#define PSCI_INVALID_ADDRESS (-9)
int64_t aarch64_psci_call(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3);

#endif
