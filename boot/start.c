/* C side of boot: MMU, board, stack-protector guard, then the program's main(). */
#include "boot/boot.h"
#include "boot/sysregs.h"
#include "hal/hal.h"
#include "hal/aarch64/aarch64.h"

#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv);

uintptr_t __stack_chk_guard;

__attribute__((noreturn)) void __stack_chk_fail(void)
{
	static const char msg[] = "\n*** anefw: stack smashing detected ***\n";
	hal_console_write(msg, sizeof msg - 1);
	hal_exit(BOOT_EXIT_CRASH);
}

/* Spin table for secondary cores: entry addresses, read by boot/entry.S. */
uint64_t boot_release_table[BOOT_MAX_CORES];

int boot_release_secondary(unsigned core, void (*fn)(unsigned core))
{
	if (core == 0 || core >= BOOT_MAX_CORES || !fn)
		return -1;
	boot_release_table[core] = (uint64_t)(uintptr_t)fn;
	hal_dcache_clean(&boot_release_table[core], sizeof boot_release_table[core]);
	__asm__ volatile("dsb sy\nsev" ::: "memory");
	return 0;
}

__attribute__((noreturn, no_stack_protector)) void boot_c_entry(unsigned entry_el)
{
	aarch64_set_entry_el(entry_el);
	boot_mmu_init();
	/* A guard the attacker cannot predict across boots: timer count mixed with a constant. */
	uint64_t t;
	__asm__ volatile("mrs %0, cntpct_el0" : "=r"(t));
	__stack_chk_guard = (uintptr_t)((t * 0x9E3779B97F4A7C15ULL) ^ 0x00d1ceba11fadeULL) & ~0xffull;
	board_init();
	int rc = main(0, NULL);
	fflush(stdout);
	hal_exit(rc);
}
