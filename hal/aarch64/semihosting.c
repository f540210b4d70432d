/*
 * Arm semihosting (AArch64: HLT #0xF000). Compiled in for QEMU and debugger builds only
 * (ANEFW_SEMIHOSTING=1): on a board with no debugger the HLT is an undefined instruction.
 */
#include "hal/hal.h"

#include <stdint.h>
#include <string.h>

#define SYS_OPEN 0x01
#define SYS_CLOSE 0x02
#define SYS_WRITE0 0x04
#define SYS_WRITE 0x05
#define SYS_READ 0x06
#define SYS_FLEN 0x0c
#define SYS_REMOVE 0x0e
#define SYS_ERRNO 0x13
#define SYS_RENAME 0x0f
#define SYS_GET_CMDLINE 0x15
#define SYS_EXIT 0x18

#define ADP_STOPPED_APPLICATION_EXIT 0x20026

#ifndef ANEFW_SEMIHOSTING
#define ANEFW_SEMIHOSTING 0
#endif

#if ANEFW_SEMIHOSTING
static uint64_t semi_call(uint64_t op, const void *param)
{
	register uint64_t x0 __asm__("x0") = op;
	register uint64_t x1 __asm__("x1") = (uint64_t)(uintptr_t)param;
	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	return x0;
}
#else
static uint64_t semi_call(uint64_t op, const void *param)
{
	(void)op;
	(void)param;
	return (uint64_t)-1;
}
#endif

int hal_semihosting_available(void)
{
	return ANEFW_SEMIHOSTING;
}

void hal_semihosting_write0(const char *s)
{
	if (ANEFW_SEMIHOSTING)
		semi_call(SYS_WRITE0, s);
}

int hal_cmdline(char *buf, size_t len)
{
	if (!ANEFW_SEMIHOSTING || len < 2)
		return -1;
	/* the host's length counts the NUL: it fails (-1) when the line and its NUL exceed len */
	uint64_t block[2] = {(uint64_t)(uintptr_t)buf, len};
	if (semi_call(SYS_GET_CMDLINE, block) != 0) {
		buf[0] = 0;
		return HAL_CMDLINE_UNREADABLE;
	}
	buf[block[1] < len ? block[1] : len - 1] = 0;
	/* The first word is the program name (qemu-run.sh passes "anefw"): drop it. */
	size_t i = 0;
	while (buf[i] && buf[i] != ' ')
		i++;
	while (buf[i] == ' ')
		i++;
	memmove(buf, buf + i, strlen(buf + i) + 1);
	return 0;
}

static int open_errno;

int hal_file_open(const char *path, int mode)
{
	if (!ANEFW_SEMIHOSTING || !path)
		return -1;
	/* semihosting modes: 1 = "rb", 5 = "wb" */
	uint64_t block[3] = {(uint64_t)(uintptr_t)path, mode ? 5u : 1u, strlen(path)};
	int64_t fd = (int64_t)semi_call(SYS_OPEN, block);
	if (fd < 0 || fd > 0x7fffffff) {
		/* the host's errno, asked at once (the next call may set it again) */
		int64_t e = (int64_t)semi_call(SYS_ERRNO, NULL);
		open_errno = e > 0 && e < 4096 ? (int)e : 0;
		return -1;
	}
	open_errno = 0;
	return (int)fd;
}

int hal_file_open_errno(void)
{
	return open_errno;
}

long hal_file_read(int fd, void *buf, size_t n)
{
	if (!ANEFW_SEMIHOSTING || fd < 0)
		return -1;
	uint64_t block[3] = {(uint64_t)fd, (uint64_t)(uintptr_t)buf, n};
	uint64_t left = semi_call(SYS_READ, block); /* bytes NOT read */
	return left > n ? -1 : (long)(n - left);
}

long hal_file_write(int fd, const void *buf, size_t n)
{
	if (!ANEFW_SEMIHOSTING || fd < 0)
		return -1;
	uint64_t block[3] = {(uint64_t)fd, (uint64_t)(uintptr_t)buf, n};
	uint64_t left = semi_call(SYS_WRITE, block); /* bytes NOT written */
	return left ? -1 : (long)n;
}

long hal_file_length(int fd)
{
	if (!ANEFW_SEMIHOSTING || fd < 0)
		return -1;
	uint64_t block[1] = {(uint64_t)fd};
	int64_t n = (int64_t)semi_call(SYS_FLEN, block);
	return n < 0 ? -1 : (long)n;
}

int hal_file_close(int fd)
{
	if (!ANEFW_SEMIHOSTING || fd < 0)
		return -1;
	uint64_t block[1] = {(uint64_t)fd};
	return semi_call(SYS_CLOSE, block) == 0 ? 0 : -1;
}

int hal_file_remove(const char *path)
{
	if (!ANEFW_SEMIHOSTING || !path)
		return -1;
	uint64_t block[2] = {(uint64_t)(uintptr_t)path, strlen(path)};
	return semi_call(SYS_REMOVE, block) == 0 ? 0 : -1;
}

int hal_file_rename(const char *from, const char *to)
{
	if (!ANEFW_SEMIHOSTING || !from || !to)
		return -1;
	uint64_t block[4] = {(uint64_t)(uintptr_t)from, strlen(from), (uint64_t)(uintptr_t)to,
			     strlen(to)};
	return semi_call(SYS_RENAME, block) == 0 ? 0 : -1;
}

/* Semihosting has no stat: a file's kind cannot be asked (scripts/qemu-run.sh refuses an out:
 * path that is a device or a FIFO before QEMU starts). */
int hal_file_is_special(const char *path)
{
	(void)path;
	return 0;
}

/* Nor a readlink: PATH itself (scripts/qemu-run.sh follows an out: path's links before QEMU
 * starts). */
int hal_file_resolve(const char *path, char *out, size_t cap)
{
	size_t n = path ? strlen(path) : cap;
	if (n >= cap)
		return -1;
	memcpy(out, path, n + 1);
	return 0;
}

void aarch64_semihosting_exit(int status)
{
	uint64_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint64_t)(unsigned)status};
	semi_call(SYS_EXIT, block);
}
