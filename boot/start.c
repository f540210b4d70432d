/* C side of boot: MMU, board, stack-protector guard, then the program's main(). */
#include "boot/boot.h"
#include "boot/sysregs.h"
#include "hal/hal.h"
#include "hal/aarch64/aarch64.h"
#include "plat/plat.h"

#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv);

uintptr_t __stack_chk_guard;
static const char *canary_source = "not set";

const char *boot_stack_guard_source(void)
{
	return canary_source;
}

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

/* The firmware's ASSERT (fw/common/assert.h, whose weak default this replaces): a boot panic.
 * Declared here: boot/ does not include fw/. */
void fw_panic_hook(const char *msg);
void fw_panic_hook(const char *msg)
{
	boot_panic(msg);
}

/* Release table for secondary cores: the function a core is to run, read by boot/entry.S with the
 * MMU off (nonzero: go). In .data (not .bss) so that cores started together with core 0 never see
 * it before it is zeroed. A slot stays set while its core runs and is cleared, with release
 * order, when the function has returned: nonzero means busy. */
uint64_t boot_release_table[BOOT_MAX_CORES] __attribute__((section(".data.boot_release_table")));
/* The argument for each released function (read by the core with its MMU on). */
static void *release_arg[BOOT_MAX_CORES];

extern char _start[];

/* plat/plat.h: on a released secondary core (MMU on), clear whatever woke it (weak default:
 * nothing). */
__attribute__((weak)) void board_secondary_woken(unsigned core)
{
	(void)core;
}

enum hal_core_err boot_start_core(unsigned core, void (*fn)(void *arg), void *arg)
{
	if (core == 0 || core >= BOOT_MAX_CORES || core >= hal_platform()->ncores || !fn)
		return HAL_CORE_E_BAD_CORE;
	if (__atomic_load_n(&boot_release_table[core], __ATOMIC_ACQUIRE))
		return HAL_CORE_E_BUSY;
	boot_mmu_publish();
	release_arg[core] = arg;
	__atomic_store_n(&boot_release_table[core], (uint64_t)(uintptr_t)fn, __ATOMIC_RELEASE);
	/* the core may read it with its MMU off: to the point of coherency */
	hal_dcache_clean(&boot_release_table[core], sizeof boot_release_table[core]);
	__asm__ volatile("dsb sy\nsev" ::: "memory");
	enum hal_core_err e = hal_start_core(core, (uintptr_t)_start, core);
	if (e != HAL_CORE_OK)
		__atomic_store_n(&boot_release_table[core], 0, __ATOMIC_RELEASE);
	return e;
}

int boot_core_busy(unsigned core)
{
	return core < BOOT_MAX_CORES && __atomic_load_n(&boot_release_table[core], __ATOMIC_ACQUIRE);
}

/* boot_release_secondary's functions take their core number: adapted to boot_start_core's. */
static void call_with_core(void *fn)
{
	((void (*)(unsigned))fn)(hal_cpu_id());
}

enum hal_core_err boot_release_secondary(unsigned core, void (*fn)(unsigned core))
{
	return fn ? boot_start_core(core, call_with_core, (void *)fn) : HAL_CORE_E_BAD_CORE;
}

/* A released secondary core, on its own stacks, MMU still off: turn it on, run its function; when
 * it returns mark the core free and stop it (PSCI CPU_OFF: a later start is a fresh power-on) or,
 * on a board that keeps it (spin table), wait in WFI for the next release. */
__attribute__((noreturn, no_stack_protector)) void boot_secondary_c_entry(unsigned core,
									    void (*fn)(void *))
{
	boot_mmu_enable_core();
	for (;;) {
		board_secondary_woken(core);
		fn(release_arg[core]);
		__atomic_store_n(&boot_release_table[core], 0, __ATOMIC_RELEASE);
		__asm__ volatile("dsb sy\nsev" ::: "memory");
		hal_stop_core(core);
		uint64_t next;
		while (!(next = __atomic_load_n(&boot_release_table[core], __ATOMIC_ACQUIRE)))
			__asm__ volatile("wfi"); /* a board wake-up (mailbox interrupt) ends it */
		fn = (void (*)(void *))(uintptr_t)next;
	}
}

/* hal_parallel's helper cores are started and watched through these (hal_set_workers). */
static const struct hal_core_ops core_ops = {boot_start_core, boot_core_busy, boot_panic};

__attribute__((noreturn, no_stack_protector)) void boot_c_entry(unsigned entry_el)
{
	aarch64_set_entry_el(entry_el);
	boot_mmu_init();
	/* The stack-protector guard from the board's entropy: RNDR or a hardware RNG where there is
	 * one (then unpredictable), else the timer count at this point, which an observer of the
	 * boot can predict: it still catches accidental overwrites, not a deliberate one. Its low
	 * byte is zero, so a string copy stops at it. */
	uint64_t seed;
	canary_source = plat_entropy(&seed);
	__stack_chk_guard = (uintptr_t)seed & ~0xffull;
	board_init();
	board_ready = 1;
	hal_set_core_ops(&core_ops);
	int rc = main(0, NULL);
	fflush(stdout);
	hal_exit(rc);
}
