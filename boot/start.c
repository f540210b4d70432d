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

/* Set once board_init() has run: until then the console is not up. */
static int board_ready;

__attribute__((noreturn)) void boot_panic(const char *msg)
{
	static const char head[] = "\n*** anefw panic: ", tail[] = " ***\n";
	size_t n = 0;
	while (msg[n])
		n++;
	if (!board_ready)
		hal_console_init(); /* a panic before board_init(): the console is needed to say why */
	hal_console_write(head, sizeof head - 1);
	hal_console_write(msg, n);
	hal_console_write(tail, sizeof tail - 1);
	hal_exit(BOOT_EXIT_CRASH);
}

/* Spin table for secondary cores: entry addresses, read by boot/entry.S with the MMU off. In .data
 * (not .bss) so that cores started together with core 0 never see it before it is zeroed. */
uint64_t boot_release_table[BOOT_MAX_CORES] __attribute__((section(".data.boot_release_table")));

extern char _start[];

/* Wakes a secondary core waiting in boot/entry.S (in WFI: the board sends it an interrupt), or
 * sends one waiting in a boot stub of the board's own (the Pi firmware's or QEMU's spin table)
 * to entry. The weak default does nothing (single-core boards). */
__attribute__((weak)) void board_wake_secondary(unsigned core, uintptr_t entry)
{
	(void)core;
	(void)entry;
}

/* Called on a released secondary core (MMU on): clear whatever woke it (weak default: nothing). */
__attribute__((weak)) void board_secondary_woken(unsigned core)
{
	(void)core;
}

int boot_release_secondary(unsigned core, void (*fn)(unsigned core))
{
	if (core == 0 || core >= BOOT_MAX_CORES || !fn)
		return -1;
	boot_mmu_publish();
	boot_release_table[core] = (uint64_t)(uintptr_t)fn;
	hal_dcache_clean(&boot_release_table[core], sizeof boot_release_table[core]);
	__asm__ volatile("dsb sy\nsev" ::: "memory");
	board_wake_secondary(core, (uintptr_t)_start);
	return 0;
}

/* A released secondary core, on its own stacks, MMU still off: turn it on, then run fn. */
__attribute__((noreturn, no_stack_protector)) void boot_secondary_c_entry(unsigned core,
									    void (*fn)(unsigned))
{
	boot_mmu_enable_core();
	board_secondary_woken(core);
	fn(core);
	for (;;)
		__asm__ volatile("wfi");
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
	board_ready = 1;
	int rc = main(0, NULL);
	fflush(stdout);
	hal_exit(rc);
}
