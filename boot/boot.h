/* Interfaces between the parts of boot/. */
#ifndef ANEFW_BOOT_H
#define ANEFW_BOOT_H

#include <stdint.h>

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
/* Makes the MMU settings visible to cores whose MMU is still off (cleans them to memory). */
void boot_mmu_publish(void);
/* Turns this core's MMU on with the tables and controls core 0 set up (every core). */
void boot_mmu_enable_core(void);

/* Releases a parked secondary core to run fn(core) on its own stacks with the MMU and caches on
 * (the board hook board_wake_secondary() wakes it from its WFI wait in boot/entry.S, or sends it
 * from the board's boot stub to _start). Returns 0 or -1. When fn returns, the core sleeps in WFI
 * for good: a core is released once per boot. */
int boot_release_secondary(unsigned core, void (*fn)(unsigned core));

#endif
