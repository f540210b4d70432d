/*
 * ASSERT(cond): a state the code has proven impossible (a validated object, a bound checked
 * earlier). When it happens anyway the firmware stops at once, loudly, rather than carry on with
 * a state nothing was written for. Not for input: bad input gets a named error. The condition is
 * always evaluated (there is no NDEBUG build).
 *
 * fw/ cannot stop the machine itself (no MMIO, no asm) and includes nothing from the layers that
 * can, so fw_assert_fail() formats "assertion failed: COND at FILE:LINE" and hands it to
 * fw_panic_hook(), which the platform defines (a strong definition replacing fw's weak one):
 *   target  boot/start.c: the boot panic, "*** anefw panic: MSG ***" on the console, exit
 *           status 100 (BOOT_EXIT_CRASH);
 *   host    hal/host/hal_host.c: the same line on stderr, then abort() (SIGABRT).
 * Should a hook return (or none be linked), fw_assert_fail traps (__builtin_trap: an exception
 * on the target, which boot reports as a crash; SIGILL on the host). It never returns.
 */
#ifndef ANEFW_FW_ASSERT_H
#define ANEFW_FW_ASSERT_H

__attribute__((noreturn)) void fw_assert_fail(const char *cond, const char *file, int line);
/* The platform's panic: prints msg and stops; must not return. */
void fw_panic_hook(const char *msg);

#define ASSERT(cond) ((cond) ? (void)0 : fw_assert_fail(#cond, __FILE__, __LINE__))

#endif
