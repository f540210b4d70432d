/* Native implementation of the HAL, for tools and host tests: stdio and libc stand in. */
#include "hal/hal.h"
#include "hal_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char host_cmdline[4096];

void hal_host_set_args(int argc, char **argv)
{
	size_t at = 0;
	host_cmdline[0] = 0;
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (at + n + 2 > sizeof host_cmdline)
			break;
		if (at)
			host_cmdline[at++] = ' ';
		memcpy(host_cmdline + at, argv[i], n);
		at += n;
		host_cmdline[at] = 0;
	}
}

void hal_console_init(void)
{
}

void hal_console_putc(char c)
{
	fputc(c, stdout);
}

void hal_console_write(const char *s, size_t n)
{
	fwrite(s, 1, n, stdout);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t hal_timeout_init_us(uint32_t us)
{
	return monotonic_ns() + (uint64_t)us * 1000u;
}

int hal_timeout_elapsed(uint64_t deadline)
{
	return monotonic_ns() > deadline;
}

uint64_t hal_instret(void)
{
	return monotonic_ns();
}

uint64_t hal_cycles(void)
{
	return monotonic_ns();
}

void hal_dcache_clean(const void *p, size_t n)
{
	(void)p;
	(void)n;
}

void hal_dcache_invalidate(void *p, size_t n)
{
	(void)p;
	(void)n;
}

void hal_dcache_clean_invalidate(void *p, size_t n)
{
	(void)p;
	(void)n;
}

unsigned hal_cpu_id(void)
{
	return 0;
}

unsigned hal_current_el(void)
{
	return 0;
}

unsigned hal_entry_el(void)
{
	return 0;
}

void hal_cpu_relax(void)
{
}

void hal_exit(int status)
{
	fflush(stdout);
	exit(status);
}

int hal_semihosting_available(void)
{
	return 1;
}

void hal_semihosting_write0(const char *s)
{
	fputs(s, stderr);
}

int hal_cmdline(char *buf, size_t len)
{
	if (!len)
		return -1;
	snprintf(buf, len, "%s", host_cmdline);
	return 0;
}

#define HOST_MAX_FILES 16
static FILE *files[HOST_MAX_FILES];

int hal_file_open(const char *path, int mode)
{
	for (int i = 0; i < HOST_MAX_FILES; i++) {
		if (files[i])
			continue;
		files[i] = fopen(path, mode ? "wb" : "rb");
		return files[i] ? i : -1;
	}
	return -1;
}

static FILE *file_of(int fd)
{
	return (fd >= 0 && fd < HOST_MAX_FILES) ? files[fd] : NULL;
}

long hal_file_read(int fd, void *buf, size_t n)
{
	FILE *f = file_of(fd);
	if (!f)
		return -1;
	size_t got = fread(buf, 1, n, f);
	return ferror(f) ? -1 : (long)got;
}

long hal_file_write(int fd, const void *buf, size_t n)
{
	FILE *f = file_of(fd);
	if (!f)
		return -1;
	size_t put = fwrite(buf, 1, n, f);
	return put == n ? (long)put : -1;
}

long hal_file_length(int fd)
{
	FILE *f = file_of(fd);
	if (!f)
		return -1;
	long here = ftell(f);
	if (here < 0 || fseek(f, 0, SEEK_END) != 0)
		return -1;
	long end = ftell(f);
	if (fseek(f, here, SEEK_SET) != 0)
		return -1;
	return end;
}

int hal_file_close(int fd)
{
	FILE *f = file_of(fd);
	if (!f)
		return -1;
	files[fd] = NULL;
	return fclose(f) == 0 ? 0 : -1;
}

int hal_file_remove(const char *path)
{
	return path && remove(path) == 0 ? 0 : -1;
}

int hal_file_rename(const char *from, const char *to)
{
	return from && to && rename(from, to) == 0 ? 0 : -1;
}

static const struct hal_region host_regions[] = {
	{"host process", 0, 0, HAL_REGION_R | HAL_REGION_W},
};

static const struct hal_platform host_platform = {
	.board = "host",
	.cpu = "native",
	.ncores = 1,
	.regions = host_regions,
	.nregions = 1,
	.libc = "host libc",
	.max_work = 1ull << 30, /* 1 GiB of engine work per submission */
};

const struct hal_platform *hal_platform(void)
{
	return &host_platform;
}

const struct hal_region *hal_image_regions(unsigned *n)
{
	*n = 0;
	return NULL;
}

/* ---- secondary cores: none natively (the tests use threads there if at all) ---- */
enum hal_core_err hal_start_core(unsigned core, uintptr_t entry, uint64_t context)
{
	(void)entry;
	(void)context;
	return core == 0 ? HAL_CORE_E_BAD_CORE : HAL_CORE_E_UNSUPPORTED;
}

void hal_stop_core(unsigned core)
{
	(void)core;
}

int hal_console_getc(void)
{
	return -1;
}

void hal_console_write_raw(const uint8_t *b, size_t n)
{
	fwrite(b, 1, n, stdout);
}

/* The firmware's ASSERT on the host (fw/common/assert.h, whose weak default this replaces): the
 * panic line on stderr, then abort(). Declared here: hal/ does not include fw/. */
void fw_panic_hook(const char *msg);
void fw_panic_hook(const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "\n*** anefw panic: %s ***\n", msg);
	abort();
}
