/* Native implementation of the HAL, for tools and host tests: stdio and libc stand in. */
#include "hal/hal.h"
#include "hal_host.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#if defined(__GLIBC__)
#include <malloc.h> /* mallopt */
#endif

static char host_cmdline[4096];
static int host_cmdline_cut; /* the arguments did not fit: the line is not given (as QEMU's) */

void hal_host_set_args(int argc, char **argv)
{
	size_t at = 0;
	host_cmdline[0] = 0;
	host_cmdline_cut = 0;
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (at + n + 2 > sizeof host_cmdline) {
			host_cmdline_cut = 1;
			break;
		}
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

/*
 * hal_parallel's pool: hal_set_workers(n) asks for n threads in all, the caller and n - 1
 * helpers, started at the first call that has more than one task. A call publishes its job
 * under the lock with a new generation number; every thread (the caller too) takes task
 * indices until none is left, the caller from the front and the helpers from the back
 * (pool_drain); the caller waits until every task has returned. Calls from several threads at once take turns (call_lock).
 *
 * Waking a thread asleep on a condition variable takes 15 to 70 us on a virtual machine, as
 * long as a quarter of a convolution's task; so a helper that has just drained a job first
 * watches the generation for up to POOL_SPIN_NS (a bounded spin, with the CPU's pause hint)
 * before it sleeps, and the caller watches the finished count for as long before it sleeps:
 * back-to-back calls (a convolution makes one per phase of a batch of rows) then hand over in
 * well under a microsecond. Everything the job is made of is still read and written under the
 * lock; the spins only read gen and finished atomically to know when to take it.
 *
 * The caller's wait has a bound in time, as on the target (hal/aarch64/pool.c): no task of the
 * call finished for stall_us (60 s unless hal_set_pool_stall_us sets it) while a helper still
 * runs one is a lost thread, and the firmware's panic (fw_panic_hook below: the panic line, then
 * abort) names the thread and its task. A helper's wait for the next job is its idle loop, not a
 * wait for something owed, and has no bound.
 */
#define HOST_MAX_WORKERS 64u
#define POOL_SPIN_NS 2000000u
#define POOL_STALL_US 60000000u

static struct {
	pthread_mutex_t lock, call_lock;
	pthread_cond_t go, done;
	unsigned want, started;
	uint64_t gen;
	void (*fn)(void *, unsigned);
	void *arg;
	unsigned n, next, back, finished; /* tasks [next, back) not yet taken */
	uint32_t stall_us;                  /* the caller's bound (0: POOL_STALL_US) */
	unsigned task[HOST_MAX_WORKERS];    /* thread idx runs task[idx] - 1 (0: none) */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
	  PTHREAD_COND_INITIALIZER, 1, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, {0}};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* pool.done measures its timed waits on the monotonic clock (the bound must not move with the
 * wall clock); set once, before the first call that has helpers waits on it. */
static void pool_init_done(void)
{
	pthread_condattr_t a;
	if (pthread_condattr_init(&a))
		return;
	if (!pthread_condattr_setclock(&a, CLOCK_MONOTONIC)) {
		pthread_cond_destroy(&pool.done);
		pthread_cond_init(&pool.done, &a);
	}
	pthread_condattr_destroy(&a);
}

static void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Spins (bounded: POOL_SPIN_NS) until *v differs from old (want_change) or reaches old; returns
 * whether it did. */
static int spin_until(const uint64_t *v, uint64_t old, int want_change)
{
	uint64_t end = 0;
	for (unsigned k = 0;; k++) {
		uint64_t x = __atomic_load_n(v, __ATOMIC_ACQUIRE);
		if (want_change ? x != old : x >= old)
			return 1;
		if ((k & 63u) == 0) {
			uint64_t t = monotonic_ns();
			if (!end)
				end = t + POOL_SPIN_NS;
			else if (t > end)
				return 0;
		}
		cpu_pause();
	}
}

static uint64_t pool_finished; /* pool.finished, also readable without the lock */
static __thread unsigned pool_idx; /* hal_worker(): 0 but in the helpers */

/* Runs tasks of the current job until none is left (pool.lock held on entry and exit). The
 * caller takes tasks from the front (pool.next up), the helpers from the back (pool.back
 * down): a job split in order, as the model's are (a copy by parts, channel lines in order),
 * then leaves each thread a run of neighbouring tasks, so with two threads the lines the
 * caller computes are the ones whose inputs its own parts of an earlier job wrote, and the
 * helper's likewise, where taking turns sent every other task's data across the cores. */
static void pool_drain(void)
{
	while (pool.next < pool.back) {
		unsigned i = pool_idx == 0 ? pool.next++ : --pool.back;
		void (*fn)(void *, unsigned) = pool.fn;
		void *arg = pool.arg;
		pool.task[pool_idx] = i + 1u;
		pthread_mutex_unlock(&pool.lock);
		fn(arg, i);
		pthread_mutex_lock(&pool.lock);
		pool.task[pool_idx] = 0;
		__atomic_store_n(&pool_finished, ++pool.finished, __ATOMIC_RELEASE);
		if (pool.finished == pool.n)
			pthread_cond_broadcast(&pool.done);
	}
}


unsigned hal_worker(void)
{
	return pool_idx;
}

/* Helper number idx (1..) takes part while the caller and idx helpers are at most the
 * number asked for. */
static void *pool_thread(void *p)
{
	unsigned idx = (unsigned)(uintptr_t)p;
	pool_idx = idx;
	uint64_t seen = 0;
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		if (pool.gen == seen) { /* watch for the next job a while before sleeping */
			pthread_mutex_unlock(&pool.lock);
			spin_until(&pool.gen, seen, 1);
			pthread_mutex_lock(&pool.lock);
		}
		while (pool.gen == seen)
			pthread_cond_wait(&pool.go, &pool.lock);
		seen = pool.gen;
		if (idx < pool.want)
			pool_drain();
	}
	return NULL;
}

unsigned hal_workers(void)
{
	pthread_mutex_lock(&pool.lock);
	unsigned n = pool.want;
	pthread_mutex_unlock(&pool.lock);
	return n;
}

/*
 * The model allocates its buffers in each submission and frees them at its end (weights as
 * floats, columns, accumulators, staged rows: 1 to 10 MiB for the benchmark's convolutions).
 * glibc gives what is freed at the heap's top back to the kernel past its trim threshold, and
 * unmaps blocks over its mmap threshold, so the next submission faulted the same pages in again:
 * 27,544 page faults in `bench-model --repeat 100 --threads 2 --conv3 64:64:56` against 1,036
 * with the settings below, and faults taken by two threads at once are the costliest on this
 * kind of virtual machine (issue 26). So a process that sets its threads keeps the memory it
 * frees for the next submission: blocks up to 32 MiB (the model's largest buffer) come from
 * the heap, and the heap is not trimmed.
 */
static void keep_freed_memory(void)
{
#if defined(__GLIBC__)
	static int done;
	if (!done) {
		done = 1;
		mallopt(M_MMAP_THRESHOLD, 32 << 20);
		mallopt(M_TRIM_THRESHOLD, INT_MAX);
	}
#endif
}

unsigned hal_set_workers(unsigned n)
{
	keep_freed_memory();
	if (!n) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 ? (unsigned)c : 1u;
	}
	if (n > HOST_MAX_WORKERS)
		n = HOST_MAX_WORKERS;
	pthread_mutex_lock(&pool.lock);
	pool.want = n;
	pthread_mutex_unlock(&pool.lock);
	return n;
}

void fw_panic_hook(const char *msg);

/* The caller's wait for the helpers' last tasks (pool.lock held): bounded, the bound starting
 * again whenever a task finishes; past it, the panic names a helper still in a task. */
static void pool_wait_done(void)
{
	uint32_t us = pool.stall_us ? pool.stall_us : POOL_STALL_US;
	unsigned done = pool.finished;
	uint64_t end = monotonic_ns() + (uint64_t)us * 1000u;
	while (pool.finished < pool.n) {
		struct timespec ts = {(time_t)(end / 1000000000u), (long)(end % 1000000000u)};
		int rc = pthread_cond_timedwait(&pool.done, &pool.lock, &ts);
		if (pool.finished != done) {
			done = pool.finished;
			end = monotonic_ns() + (uint64_t)us * 1000u;
		} else if (rc && monotonic_ns() >= end) {
			unsigned t = 1;
			while (t < HOST_MAX_WORKERS && !pool.task[t])
				t++;
			char line[160];
			if (t < HOST_MAX_WORKERS)
				snprintf(line, sizeof line,
					 "hal_parallel: no task finished for %u ms while thread %u still ran task %u of %u (a lost thread)",
					 (unsigned)(us / 1000u), t, pool.task[t] - 1u, pool.n);
			else
				snprintf(line, sizeof line,
					 "hal_parallel: no task finished for %u ms, %u of %u tasks outstanding and no thread in one",
					 (unsigned)(us / 1000u), pool.n - pool.finished, pool.n);
			fw_panic_hook(line);
		}
	}
}

void hal_parallel(unsigned n, void (*fn)(void *arg, unsigned i), void *arg)
{
	if (n <= 1 || hal_workers() <= 1) {
		for (unsigned i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	pthread_once(&pool_once, pool_init_done);
	pthread_mutex_lock(&pool.call_lock);
	pthread_mutex_lock(&pool.lock);
	while (pool.started + 1 < pool.want) { /* threads that fail to start are simply fewer */
		pthread_t t;
		if (pthread_create(&t, NULL, pool_thread, (void *)(uintptr_t)(pool.started + 1)))
			break;
		pthread_detach(t);
		pool.started++;
	}
	pool.fn = fn;
	pool.arg = arg;
	pool.n = n;
	pool.next = pool.finished = 0;
	pool.back = n;
	__atomic_store_n(&pool_finished, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&pool.gen, pool.gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&pool.go);
	pool_drain();
	if (pool.finished < pool.n) { /* the helpers' last tasks: watch a while, then sleep */
		pthread_mutex_unlock(&pool.lock);
		spin_until(&pool_finished, n, 0);
		pthread_mutex_lock(&pool.lock);
	}
	pool_wait_done();
	pool.n = 0;
	pthread_mutex_unlock(&pool.lock);
	pthread_mutex_unlock(&pool.call_lock);
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
	if (host_cmdline_cut || strlen(host_cmdline) >= len) {
		buf[0] = 0;
		return HAL_CMDLINE_UNREADABLE;
	}
	snprintf(buf, len, "%s", host_cmdline);
	return 0;
}

#define HOST_MAX_FILES 16
static FILE *files[HOST_MAX_FILES];

static int open_errno;

int hal_file_open(const char *path, int mode)
{
	for (int i = 0; i < HOST_MAX_FILES; i++) {
		if (files[i])
			continue;
		files[i] = fopen(path, mode ? "wb" : "rb");
		open_errno = files[i] ? 0 : errno;
		return files[i] ? i : -1;
	}
	open_errno = EMFILE;
	return -1;
}

int hal_file_open_errno(void)
{
	return open_errno;
}

int hal_file_resolve(const char *path, char *out, size_t cap)
{
	char cur[PATH_MAX], to[PATH_MAX];
	if (!path || strlen(path) >= sizeof cur) {
		open_errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(cur, path);
	for (unsigned hops = 0; hops < 40; hops++) { /* Linux's MAXSYMLINKS */
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
			/* not a link (or not there: its writer makes it, or says why it cannot) */
			if (strlen(cur) >= cap) {
				open_errno = ENAMETOOLONG;
				return -1;
			}
			strcpy(out, cur);
			return 0;
		}
		ssize_t n = readlink(cur, to, sizeof to - 1);
		if (n < 0) {
			open_errno = errno;
			return -1;
		}
		to[n] = 0;
		/* a relative target is relative to the link's directory */
		const char *slash = strrchr(cur, '/');
		size_t dl = to[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
		if (dl + (size_t)n >= sizeof cur) {
			open_errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(cur + dl, to, (size_t)n + 1);
	}
	open_errno = ELOOP;
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

int hal_file_is_special(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
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
	/* 2^40 multiply-accumulates: 20 s of the model's fast convolution on one thread here, 20
	 * minutes of its plain loop (docs/robustness.md, "Compute") */
	.model_ops = 1ull << 40,
	.serve_window = 512ull << 20,
	.serve_slot = 256ull << 20,
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

void hal_set_pool_stall_us(uint32_t us)
{
	pthread_mutex_lock(&pool.lock);
	pool.stall_us = us;
	pthread_mutex_unlock(&pool.lock);
}

void hal_set_core_ops(const struct hal_core_ops *ops)
{
	(void)ops; /* the pool is threads here */
}

uint64_t hal_worker_instret(unsigned s)
{
	(void)s;
	return 0;
}

int hal_console_getc(void)
{
	return -1;
}

void hal_console_write_raw(const uint8_t *b, size_t n)
{
	fwrite(b, 1, n, stdout);
}

size_t hal_console_write_some(const uint8_t *b, size_t n)
{
	return fwrite(b, 1, n, stdout);
}

static size_t host_link_read(uint8_t *b, size_t n)
{
	(void)b;
	(void)n;
	return 0;
}

const struct hal_link *hal_link(void)
{
	static const struct hal_link l = {"standard output", host_link_read, hal_console_write_some};
	return &l;
}

/* The firmware's ASSERT on the host (fw/common/assert.h, whose weak default this replaces): the
 * panic line on stderr, then abort(). Declared here (above the pool): hal/ does not include fw/. */
void fw_panic_hook(const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "\n*** anefw panic: %s ***\n", msg);
	abort();
}
