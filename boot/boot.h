/* Interfaces between the parts of boot/. */
#ifndef ANEFW_BOOT_H
#define ANEFW_BOOT_H

#include <stdint.h>

#include "hal/hal.h"

/* Registers saved by the exception entry (boot/vectors.S), in this order. */
struct exception_frame {
	uint64_t x[31];
	uint64_t sp_el0;
	uint64_t elr;
	uint64_t spsr;
	uint64_t esr;
	uint64_t far;
};

void boot_exception(unsigned kind, const struct exception_frame *f) __attribute__((noreturn));
/* A fatal error found by boot code itself (no exception): prints "*** anefw panic: msg ***" on
 * the console (bringing it up first when board_init() has not run yet) and exits with
 * BOOT_EXIT_CRASH. */
void boot_panic(const char *msg) __attribute__((noreturn));
void boot_mmu_init(void);
/* What the stack-protector guard was taken from (plat_entropy's name for it). */
const char *boot_stack_guard_source(void);
/* Makes the MMU settings visible to cores whose MMU is still off (cleans them to memory). */
void boot_mmu_publish(void);
/* Turns this core's MMU on with the tables and controls core 0 set up (every core). */
void boot_mmu_enable_core(void);

/* Starts secondary core `core` running fn(arg) on its own stacks (boot/sysregs.h) with the MMU,
 * caches and exception vectors on, through the board's power-on service (hal_start_core: PSCI
 * CPU_ON on qemu-virt, spin table and mailbox wake-up on raspi3b). Returns a named error:
 * bad-core, busy (its previous function has not returned), or the board's. When fn returns the
 * core is free again (boot_core_busy 0) and may be started again; fn must not use the C
 * library's shared state (stdio, malloc): it is not thread-safe here. */
enum hal_core_err boot_start_core(unsigned core, void (*fn)(void *arg), void *arg);
int boot_core_busy(unsigned core);
/* The same for fn(core), with boot_start_core's named result (no fn: bad-core, as there). */
enum hal_core_err boot_release_secondary(unsigned core, void (*fn)(unsigned core));

#endif
