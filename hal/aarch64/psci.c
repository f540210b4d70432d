/* PSCI calls shared by every AArch64 board. */
#include "hal/hal.h"
#include "hal/aarch64/aarch64.h"

#include <stdint.h>

/* The conduit: SMC when the image was entered at EL2 (QEMU's PSCI then sits at the EL3 the
 * machine lacks), HVC when entered at EL1 (QEMU's PSCI at the EL2 it lacks). Entered at EL3 there
 * is no PSCI below us: callers check first (plat/qemu-virt/board.c). */
int64_t aarch64_psci_call(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	const int smc = hal_entry_el() == 2; /* before the register variables: a call clobbers them */
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;
	if (smc)
		__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)::"memory");
	else
		__asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)::"memory");
	return (int64_t)x0;
}
