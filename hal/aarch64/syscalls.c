/* The system calls newlib-nano needs, on a machine with no OS: console out, a bounded heap. */
#include "hal/hal.h"
#include "linker/image_syms.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#undef errno
extern int errno;

void _init(void)
{
}

void _fini(void)
{
}

int _write(int fd, const char *buf, int n)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	hal_console_write(buf, (size_t)n);
	return n;
}

int _read(int fd, char *buf, int n)
{
	(void)fd;
	(void)buf;
	(void)n;
	return 0;
}

static char *heap_top = __heap_start;
static size_t heap_peak;

void *_sbrk(ptrdiff_t incr)
{
	char *prev = heap_top;
	if (incr < 0 ? (size_t)-incr > (size_t)(heap_top - __heap_start)
		     : (size_t)incr > (size_t)(__heap_end - heap_top)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	heap_top += incr;
	if ((size_t)(heap_top - __heap_start) > heap_peak)
		heap_peak = (size_t)(heap_top - __heap_start);
	return prev;
}

int _close(int fd)
{
	(void)fd;
	return -1;
}

int _fstat(int fd, struct stat *st)
{
	(void)fd;
	st->st_mode = S_IFCHR;
	return 0;
}

int _isatty(int fd)
{
	(void)fd;
	return 1;
}

int _lseek(int fd, int off, int whence)
{
	(void)fd;
	(void)off;
	(void)whence;
	return 0;
}

void _exit(int status)
{
	hal_exit(status);
}

int _kill(int pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = EINVAL;
	return -1;
}

int _getpid(void)
{
	return 1;
}
