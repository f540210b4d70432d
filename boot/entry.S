/*
 * anefw entry. Works when started at EL3, EL2 or EL1 and continues at EL1 with the MMU off.
 * The firmware runs on SP_EL0 (EL1t); exceptions use a separate per-core SP_EL1 stack, so a
 * stack overflow into the guard page can still be reported.
 */
#include "boot/sysregs.h"

	.section .text.boot, "ax"
	.global _start
_start:
	mrs	x19, CurrentEL
	ubfx	x19, x19, #2, #2		// x19 = entry exception level
	mrs	x20, mpidr_el1
	and	x20, x20, #0xff			// x20 = core number (Aff0)

	cmp	x19, #3
	b.ne	from_el2_or_el1
	/* ---- EL3: make the lower levels AArch64 and non-secure, no traps, drop to EL1 ---- */
	msr	cptr_el3, xzr
	msr	mdcr_el3, xzr			// no debug or PMU traps to EL3
	mrs	x0, id_aa64pfr0_el1
	ubfx	x0, x0, #8, #4			// EL2 implemented?
	mov	x1, #(SCR_NS | SCR_RES1_4_5 | SCR_RW | SCR_SMD)
	cbz	x0, 1f
	orr	x1, x1, #SCR_HCE
	msr	scr_el3, x1
	bl	setup_el2_for_el1
	b	2f
1:	msr	scr_el3, x1
2:	ldr	x0, =SCTLR_EL1_RESET
	msr	sctlr_el1, x0
	mov	x0, #SPSR_EL1H_MASKED
	msr	spsr_el3, x0
	adr	x0, el1_entry
	msr	elr_el3, x0
	isb
	eret

from_el2_or_el1:
	cmp	x19, #2
	b.ne	el1_entry
	/* ---- EL2: no virtualization, no traps, drop to EL1 ---- */
	bl	setup_el2_for_el1
	ldr	x0, =SCTLR_EL1_RESET
	msr	sctlr_el1, x0
	mov	x0, #SPSR_EL1H_MASKED
	msr	spsr_el2, x0
	adr	x0, el1_entry
	msr	elr_el2, x0
	isb
	eret

setup_el2_for_el1:
	mov	x0, #HCR_RW
	msr	hcr_el2, x0
	mrs	x0, cnthctl_el2
	orr	x0, x0, #3			// EL1 may use the physical counter and timer
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr
	mov	x0, #CPTR_EL2_RES1
	msr	cptr_el2, x0
	msr	hstr_el2, xzr
	mrs	x0, pmcr_el0
	ubfx	x0, x0, #11, #5			// MDCR_EL2.HPMN = PMCR_EL0.N: every counter to EL1,
	msr	mdcr_el2, x0			// no PMU or debug traps (its reset value is unknown)
	mrs	x0, midr_el1
	msr	vpidr_el2, x0
	mrs	x0, mpidr_el1
	msr	vmpidr_el2, x0
	ret

el1_entry:
	ldr	x0, =SCTLR_EL1_RESET
	msr	sctlr_el1, x0
	mov	x0, #CPACR_FPEN
	msr	cpacr_el1, x0			// FP/SIMD for libc and tests; fw/ never uses it
	ldr	x0, =vectors
	msr	vbar_el1, x0
	isb
	msr	fpcr, xzr			// FPCR's reset value is unknown: round to nearest, no
						// flush to zero, IEEE half, no traps, on every core
	cmp	x20, #BOOT_MAX_CORES
	b.hs	park_forever
	cbnz	x20, secondary_wait

	/* ---- core 0: zero .bss (before any C; memset may use DC ZVA, illegal with MMU off) ---- */
	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
3:	cmp	x0, x1
	b.hs	4f
	str	xzr, [x0], #8
	b	3b
4:	mov	x0, x20
	bl	set_stacks
	mov	x0, x19
	bl	boot_c_entry			// never returns
	b	park_forever

/* set_stacks(core): SP_EL1 = exception stack top, SP_EL0 = main stack top, continue on SP_EL0 */
set_stacks:
	ldr	x1, =__exc_stacks_start
	ldr	x2, =BOOT_EXC_STACK_STRIDE
	add	x3, x0, #1
	madd	x1, x2, x3, x1			// top of this core's exception stack
	msr	spsel, #1
	mov	sp, x1
	ldr	x1, =__stacks_start
	ldr	x2, =BOOT_STACK_STRIDE
	madd	x1, x2, x3, x1			// top of this core's main stack
	msr	sp_el0, x1
	msr	spsel, #0
	ret

	/*
	 * ---- secondary cores: wait for a release address in boot_release_table (in .data, so it
	 * reads zero even before core 0 has cleared .bss), then run it on this core's stacks with
	 * the MMU on (boot_secondary_c_entry). Cores started here directly (the ELF at EL3) and cores
	 * sent to _start by a board's spin table both end up waiting here, in WFI with interrupts
	 * masked: a pending interrupt wakes them without being taken. (WFE would do, but QEMU
	 * implements it as a busy yield: three spinning cores slow core 0 several times over.)
	 */
secondary_wait:
	ldr	x1, =boot_release_table
5:	ldr	x2, [x1, x20, lsl #3]
	cbnz	x2, 6f
	wfi					// asleep (even under QEMU) until an interrupt is pending:
	b	5b				// the board's wake-up (hal_start_core) sends one
6:	mov	x21, x2
	mov	x0, x20
	bl	set_stacks
	mov	x0, x20
	mov	x1, x21
	bl	boot_secondary_c_entry		// never returns
park_forever:
	wfe
	b	park_forever
