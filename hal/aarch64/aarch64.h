/* What every AArch64 board shares (hal/aarch64/): entry level, counters, RNDR, PSCI. */
#ifndef ANEFW_HAL_AARCH64_H
#define ANEFW_HAL_AARCH64_H

#include <stdint.h>

void aarch64_set_entry_el(unsigned el);
void aarch64_counters_init(void);
/* This core's instructions retired, low 32 bits (no shared state: for any core). */
uint32_t aarch64_instret32(void);

/* A 64-bit random number from RNDR: 1 when the CPU implements FEAT_RNG (ID_AA64ISAR0_EL1.RNDR)
 * and it delivered one, 0 otherwise (no such register, or RNDR reported failure). */
int aarch64_rndr(uint64_t *v);

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
