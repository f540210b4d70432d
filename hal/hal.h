/*
 * The hardware abstraction layer: the small interface the firmware, drivers and tests use, at
 * the bottom of the layers (it includes nothing above it). hal/aarch64/ implements the low-level
 * accessors every AArch64 board shares (counters, timer, cache maintenance, cpu, semihosting);
 * hal/host/ implements all of it for native builds (tools and host tests). What depends on the
 * board (the console's UART, starting cores, the memory map) is the porting interface a board in
 * plat/<board>/ implements, as TF-A's platform.h is: declared here, defined above the drivers.
 */
#ifndef ANEFW_HAL_H
#define ANEFW_HAL_H

#include <stddef.h>
#include <stdint.h>

/* ---- console ---- */
void hal_console_init(void);
void hal_console_putc(char c);
void hal_console_write(const char *s, size_t n);
/* One byte received on the console's line (0..255), or -1 when none is waiting (never waits).
 * Natively always -1. */
int hal_console_getc(void);
/* Bytes as they are (no CR added before LF): a binary protocol on the console's line. */
void hal_console_write_raw(const uint8_t *b, size_t n);
/* As many of b's n bytes as the transmitter takes now (never waits); returns how many. */
size_t hal_console_write_some(const uint8_t *b, size_t n);

/* ---- the command link (docs/service.md, "Transport 2"): a byte stream for framed commands.
 * The board's own when it has one (qemu-virt: a virtio console, when QEMU gives the machine
 * one), else the console's line. Neither function waits. ---- */
struct hal_link {
	const char *name;
	size_t (*read)(uint8_t *b, size_t n);        /* bytes waiting, at most n */
	size_t (*write)(const uint8_t *b, size_t n); /* bytes taken now, at most n */
};
const struct hal_link *hal_link(void);

/* ---- counters ---- */
/* Instructions retired (exact under QEMU -icount shift=0); natively, a monotonic counter. */
uint64_t hal_instret(void);
/* Processor cycles (PMCCNTR on the target); natively, a monotonic counter. */
uint64_t hal_cycles(void);

/* ---- time: bounds for waits on hardware, in time rather than in polls (TF-A's timeout_init_us
 * and timeout_elapsed). The generic timer on the target, CLOCK_MONOTONIC natively. ---- */
/* A deadline us microseconds from now. */
uint64_t hal_timeout_init_us(uint32_t us);
/* 1 once the deadline has passed. */
int hal_timeout_elapsed(uint64_t deadline);

/* ---- cache maintenance (by virtual address range; no-ops natively) ---- */
void hal_dcache_clean(const void *p, size_t n);
void hal_dcache_invalidate(void *p, size_t n);
void hal_dcache_clean_invalidate(void *p, size_t n);

/* ---- cpu ---- */
unsigned hal_cpu_id(void);
/* Exception level now (1 on the target after boot; 0 natively) and at entry. */
unsigned hal_current_el(void);
unsigned hal_entry_el(void);
void hal_cpu_relax(void);
/* Work split over threads (the engine model's convolution): runs fn(arg, i) for every i < n,
 * up to hal_workers() of them at once, and returns when all have returned. Natively a pool of
 * threads; on the target the helper cores hal_set_workers started (hal/aarch64/pool.c), the
 * calling core taking tasks too. 1 (every task in order on the calling core) until set. A task
 * on a target helper must not use the C library's shared state (stdio, malloc). */
void hal_parallel(unsigned n, void (*fn)(void *arg, unsigned i), void *arg);
unsigned hal_workers(void);
/* Which of the threads runs the calling task: 0 for hal_parallel's caller (and outside any
 * call), 1 .. hal_workers() - 1 for the helpers; so a task can use a buffer per thread. */
unsigned hal_worker(void);
/* The number of threads hal_parallel may use from now on; 0: one per core. Returns the number
 * in force: natively n; on the target the cores it could start (boot's services, registered by
 * hal_set_core_ops: none registered, 1), skipping a core that runs something else. A smaller
 * n stops the helpers above it, so 1 leaves every other core free (boot_core_busy 0). */
unsigned hal_set_workers(unsigned n);
/* Instructions thread s (0: the caller) spent in hal_parallel's tasks since boot, by the
 * instructions-retired counter of its core around its share of each call (under QEMU -icount
 * that counter is the machine's and the cores take turns: a share run in one turn is exact);
 * natively 0 (not counted). */
uint64_t hal_worker_instret(unsigned s);
/* The bound on hal_parallel's wait for a helper: no task of the call finished for this long
 * while a helper has not finished its share is a lost core (natively a lost thread), and the
 * panic names it: on the target boot's registered panic, natively the firmware's panic line and
 * abort(). 60 s unless set (0 restores it); the tests set a short one to show the bound fire. */
void hal_set_pool_stall_us(uint32_t us);
/* Stop the machine with an exit status (semihosting exit on QEMU, a clean halt on a board). */
__attribute__((noreturn)) void hal_exit(int status);

/* ---- secondary cores: the board's power-on service ---- */
enum hal_core_err {
	HAL_CORE_OK = 0,
	HAL_CORE_E_BAD_CORE,     /* core 0, or not a core of this board */
	HAL_CORE_E_BUSY,         /* still running an earlier start */
	HAL_CORE_E_ALREADY_ON,   /* the power-on service says it is on (and it stayed so) */
	HAL_CORE_E_DENIED,       /* the power-on service refused (PSCI DENIED, INVALID_*, ...) */
	HAL_CORE_E_UNSUPPORTED,  /* no power-on service on this board (or natively) */
};
const char *hal_core_err_name(int e);
/* Starts secondary core `core` at physical address `entry` with the MMU off (boot/entry.S's
 * _start), context in x0 where the service passes one: PSCI CPU_ON on qemu-virt, the spin table
 * and a mailbox wake-up on raspi3b. Used by boot/ (boot_start_core), which owns what runs there. */
enum hal_core_err hal_start_core(unsigned core, uintptr_t entry, uint64_t context);
/* On a secondary core whose work is done: the board's way to stop it. Returns when the core is
 * to wait in boot's WFI loop (raspi3b); does not return when the board powers it off (PSCI
 * CPU_OFF on qemu-virt: the next start is a fresh CPU_ON). */
void hal_stop_core(unsigned core);
/* How hal_parallel's pool starts and watches helper cores on the target: boot/'s services
 * (boot_start_core, boot_core_busy, boot_panic), registered by boot before main(); this layer
 * starts no core of its own. Natively unused (the pool is threads). */
struct hal_core_ops {
	enum hal_core_err (*start)(unsigned core, void (*fn)(void *arg), void *arg);
	int (*busy)(unsigned core);
	void (*panic)(const char *msg) __attribute__((noreturn));
};
void hal_set_core_ops(const struct hal_core_ops *ops);

/* ---- semihosting / host files ---- */
/* 1 when host file access and exit status are available (QEMU, debugger, native). */
int hal_semihosting_available(void);
void hal_semihosting_write0(const char *s);
/* Copies the command line (NUL-terminated) into buf; returns 0, -1 when the board has no
 * command line (no semihosting), or HAL_CMDLINE_UNREADABLE when the host has one but did not
 * give it (QEMU refuses one that does not fit len bytes with its NUL). */
#define HAL_CMDLINE_UNREADABLE (-2)
int hal_cmdline(char *buf, size_t len);
/* Host files. mode: 0 read, 1 write (create/truncate). Returns a handle >= 0 or -1. */
int hal_file_open(const char *path, int mode);
/* Why the last hal_file_open that failed failed: the host's errno (semihosting's SYS_ERRNO,
 * Linux numbering under QEMU), or 0 when the host gave none. */
int hal_file_open_errno(void);
/* Returns bytes transferred (short at end of file), or -1 on error. */
long hal_file_read(int fd, void *buf, size_t n);
long hal_file_write(int fd, const void *buf, size_t n);
long hal_file_length(int fd);
int hal_file_close(int fd);
/* Removes a host file; renames one (replacing `to`). Return 0 or -1. */
int hal_file_remove(const char *path);
int hal_file_rename(const char *from, const char *to);
/* 1 when PATH names a file that is there and is neither a regular file nor a directory (a
 * device such as /dev/null, a FIFO, a socket; a link followed): a rename over it would replace
 * it, so its writer writes it in place. 0 otherwise, and where the host cannot tell
 * (semihosting has no stat: 0 under QEMU). */
int hal_file_is_special(const char *path);
/* The path a write through PATH lands on: PATH with its last component's symbolic links
 * followed (a link's target, which may not be there yet), so that a writer's PATH.part and
 * rename go beside the file the link names and leave the link as it was (a rename over PATH
 * replaced the link with a regular file). Into out (cap bytes): 0, or -1 (a loop of links, a
 * name too long; hal_file_open_errno says why). Semihosting cannot read a link: PATH itself. */
int hal_file_resolve(const char *path, char *out, size_t cap);

/* ---- platform description (for banners and the address policy) ---- */
struct hal_region {
	const char *name;
	uint64_t base;
	uint64_t size;
	unsigned attrs; /* HAL_REGION_* */
};
#define HAL_REGION_R 1u
#define HAL_REGION_W 2u
#define HAL_REGION_X 4u
#define HAL_REGION_DEVICE 8u
#define HAL_REGION_GUARD 16u /* deliberately unmapped */

struct hal_platform {
	const char *board;
	const char *cpu;
	unsigned ncores;
	const struct hal_region *regions; /* the firmware's memory map, ascending */
	unsigned nregions;
	const char *libc;                 /* C library name and version */
	uint64_t max_work;                /* engine work one submission may cost (bytes moved plus
					     elements computed): the board's limit */
	uint64_t model_ops;               /* the engine model's compute limit a submission (fw/td
					     td_ops summed over its TDs; anem_set_ops_limit) */
	uint64_t serve_window;            /* the command service's data window, bytes (app/serve.c) */
	uint64_t serve_slot;              /* and each loaded program's slot of device memory */
};
const struct hal_platform *hal_platform(void);
/* The firmware image's own layout (text, rodata, data, stacks, heap); n set to the count. */
const struct hal_region *hal_image_regions(unsigned *n);

#endif
