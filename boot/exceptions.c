/*
 * Crash report: everything an engineer needs to find the fault, printed straight to the console
 * without the C library (the heap or stdio may be what broke), then a nonzero exit.
 */
#include "boot/boot.h"
#include "boot/sysregs.h"
#include "hal/hal.h"
#include "linker/image_syms.h"

#include <stddef.h>

static void put(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	hal_console_write(s, n);
}

static void put_hex(uint64_t v)
{
	char b[19];
	b[0] = '0';
	b[1] = 'x';
	for (int i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	b[18] = 0;
	put(b);
}

static void put_dec(unsigned v)
{
	char b[12];
	int i = 11;
	b[i] = 0;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put(b + i);
}

static const char *const kinds[16] = {
	"synchronous (EL1t)", "IRQ (EL1t)", "FIQ (EL1t)", "SError (EL1t)",
	"synchronous (EL1h)", "IRQ (EL1h)", "FIQ (EL1h)", "SError (EL1h)",
	"synchronous (lower EL, AArch64)", "IRQ (lower EL, AArch64)",
	"FIQ (lower EL, AArch64)", "SError (lower EL, AArch64)",
	"synchronous (lower EL, AArch32)", "IRQ (lower EL, AArch32)",
	"FIQ (lower EL, AArch32)", "SError (lower EL, AArch32)",
};

static const char *ec_name(unsigned ec)
{
	switch (ec) {
	case 0x00: return "unknown reason";
	case 0x01: return "WFI/WFE trapped";
	case 0x07: return "SIMD/FP access trapped";
	case 0x0e: return "illegal execution state";
	case 0x15: return "SVC";
	case 0x18: return "MSR/MRS trapped";
	case 0x20: return "instruction abort, lower EL";
	case 0x21: return "instruction abort";
	case 0x22: return "PC alignment fault";
	case 0x24: return "data abort, lower EL";
	case 0x25: return "data abort";
	case 0x26: return "SP alignment fault";
	case 0x2f: return "SError";
	case 0x30: case 0x31: return "breakpoint";
	case 0x32: case 0x33: return "software step";
	case 0x34: case 0x35: return "watchpoint";
	case 0x3c: return "BRK instruction";
	default: return "other";
	}
}

static const char *fault_status(unsigned dfsc)
{
	switch (dfsc & 0x3c) {
	case 0x04: return "translation fault";
	case 0x08: return "access flag fault";
	case 0x0c: return "permission fault";
	case 0x00: return "address size fault";
	case 0x20: return "alignment fault";
	default: return "other fault";
	}
}

/* Which guard page, if any, holds addr. */
static const char *guard_of(uint64_t addr, unsigned *core)
{
	uint64_t s = (uint64_t)(uintptr_t)__stacks_start;
	uint64_t e = (uint64_t)(uintptr_t)__exc_stacks_start;
	for (unsigned c = 0; c < BOOT_MAX_CORES; c++) {
		uint64_t g = s + (uint64_t)c * BOOT_STACK_STRIDE;
		if (addr >= g && addr < g + BOOT_GUARD_SIZE) {
			*core = c;
			return "stack overflow: main stack guard page";
		}
		g = e + (uint64_t)c * BOOT_EXC_STACK_STRIDE;
		if (addr >= g && addr < g + BOOT_GUARD_SIZE) {
			*core = c;
			return "stack overflow: exception stack guard page";
		}
	}
	return NULL;
}

void boot_exception(unsigned kind, const struct exception_frame *f)
{
	unsigned ec = (unsigned)(f->esr >> 26) & 0x3f;
	put("\n*** anefw crash report ***\nexception: ");
	put(kinds[kind & 15]);
	put(" on core ");
	put_dec(hal_cpu_id());
	put("\nEC ");
	put_hex(ec);
	put(" (");
	put(ec_name(ec));
	put(")\nESR ");
	put_hex(f->esr);
	put("\nELR ");
	put_hex(f->elr);
	put("\nFAR ");
	put_hex(f->far);
	put("\nSPSR ");
	put_hex(f->spsr);
	put("\nSP ");
	put_hex(f->sp_el0);
	put("\n");
	if (ec == 0x24 || ec == 0x25 || ec == 0x20 || ec == 0x21) {
		put("fault: ");
		put(fault_status((unsigned)f->esr & 0x3f));
		if (ec == 0x24 || ec == 0x25)
			put((f->esr & (1u << 6)) ? " on write" : " on read");
		put("\n");
		unsigned core;
		const char *g = guard_of(f->far, &core);
		if (g) {
			put(g);
			put(" of core ");
			put_dec(core);
			put("\n");
		}
	}
	for (int i = 0; i < 31; i++) {
		put("x");
		put_dec((unsigned)i);
		put(i < 10 ? "  " : " ");
		put_hex(f->x[i]);
		put((i % 3 == 2 || i == 30) ? "\n" : "  ");
	}
	put("*** end of crash report ***\n");
	hal_exit(BOOT_EXIT_CRASH);
}
