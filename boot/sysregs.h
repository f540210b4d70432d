/* System register bit values used by boot/ (shared by assembly and C). */
#ifndef ANEFW_BOOT_SYSREGS_H
#define ANEFW_BOOT_SYSREGS_H

#define SCR_NS (1 << 0)
#define SCR_RES1_4_5 (3 << 4)
#define SCR_SMD (1 << 7)
#define SCR_HCE (1 << 8)
#define SCR_RW (1 << 10)

#define HCR_RW (1 << 31)
#define CPTR_EL2_RES1 0x33ff
#define CPACR_FPEN (3 << 20)

/* EL1h, D, A, I, F masked */
#define SPSR_EL1H_MASKED 0x3c5

/* SCTLR_EL1 with the RES1 bits, MMU and caches off, EL0 cache ops trapped */
#define SCTLR_EL1_RESET 0x30d00800
#define SCTLR_M (1 << 0)
#define SCTLR_A (1 << 1)
#define SCTLR_C (1 << 2)
#define SCTLR_SA (1 << 3)
#define SCTLR_I (1 << 12)
#define SCTLR_WXN (1 << 19)

#define BOOT_MAX_CORES 4
#define BOOT_STACK_SIZE (64 * 1024)
#define BOOT_EXC_STACK_SIZE (16 * 1024)
#define BOOT_GUARD_SIZE 4096
/* Each core's stack area is a guard page followed by the stack. */
#define BOOT_STACK_STRIDE (BOOT_STACK_SIZE + BOOT_GUARD_SIZE)
#define BOOT_EXC_STACK_STRIDE (BOOT_EXC_STACK_SIZE + BOOT_GUARD_SIZE)

/* Exit status of a run that ended in an exception. */
#define BOOT_EXIT_CRASH 100

#endif
