/*
 * EL1 exception vectors. Every exception the firmware does not expect is fatal: the entry saves
 * the general registers on the exception stack (SP_EL1) and calls boot_exception(), which prints a
 * crash report and ends the run with a nonzero status.
 */
	.macro	ventry kind
	.balign	0x80
	sub	sp, sp, #(36 * 8)
	stp	x0, x1, [sp, #(0 * 8)]
	mov	x0, #\kind
	b	exception_common
	.endm

	.section .text.vectors, "ax"
	.balign	2048
	.global	vectors
vectors:
	ventry	0	// current EL, SP_EL0: synchronous
	ventry	1	// current EL, SP_EL0: IRQ
	ventry	2	// current EL, SP_EL0: FIQ
	ventry	3	// current EL, SP_EL0: SError
	ventry	4	// current EL, SP_ELx: synchronous
	ventry	5	// current EL, SP_ELx: IRQ
	ventry	6	// current EL, SP_ELx: FIQ
	ventry	7	// current EL, SP_ELx: SError
	ventry	8	// lower EL, AArch64
	ventry	9
	ventry	10
	ventry	11
	ventry	12	// lower EL, AArch32
	ventry	13
	ventry	14
	ventry	15

exception_common:
	/* x0 holds the kind; the interrupted x0/x1 are saved at [sp]. */
	stp	x2, x3, [sp, #(2 * 8)]
	stp	x4, x5, [sp, #(4 * 8)]
	stp	x6, x7, [sp, #(6 * 8)]
	stp	x8, x9, [sp, #(8 * 8)]
	stp	x10, x11, [sp, #(10 * 8)]
	stp	x12, x13, [sp, #(12 * 8)]
	stp	x14, x15, [sp, #(14 * 8)]
	stp	x16, x17, [sp, #(16 * 8)]
	stp	x18, x19, [sp, #(18 * 8)]
	stp	x20, x21, [sp, #(20 * 8)]
	stp	x22, x23, [sp, #(22 * 8)]
	stp	x24, x25, [sp, #(24 * 8)]
	stp	x26, x27, [sp, #(26 * 8)]
	stp	x28, x29, [sp, #(28 * 8)]
	mrs	x1, sp_el0
	stp	x30, x1, [sp, #(30 * 8)]
	mrs	x1, elr_el1
	mrs	x2, spsr_el1
	stp	x1, x2, [sp, #(32 * 8)]
	mrs	x1, esr_el1
	mrs	x2, far_el1
	stp	x1, x2, [sp, #(34 * 8)]
	mov	x1, sp
	bl	boot_exception		// does not return
1:	wfe
	b	1b
