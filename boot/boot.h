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
void boot_mmu_init(void);

/* Releases a parked secondary core to run fn(core) on its own stacks. Returns 0 or -1. */
int boot_release_secondary(unsigned core, void (*fn)(unsigned core));

/* Linker-script symbols. */
extern char __image_start[], __image_end[];
extern char __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[];
extern char __data_start[], __data_end[];
extern char __bss_start[], __bss_end[];
extern char __stacks_start[], __stacks_end[];
extern char __exc_stacks_start[], __exc_stacks_end[];
extern char __heap_start[], __heap_end[];

#endif
