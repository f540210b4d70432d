/*
 * hal_parallel on the target: the engine model's tasks on several cores (issue 26's "later").
 *
 * Helper cores are started by hal_set_workers(n) through the core services boot/ registers
 * (hal_set_core_ops: boot_start_core, boot_core_busy, boot_panic), so this layer starts no core
 * itself and includes nothing above it. Until n > 1 is asked for, nothing is started and every
 * task runs on the calling core, as before.
 *
 * A helper runs hal_pool_serve: it waits (WFE) for a new job generation, runs its share of the
 * tasks (take_tasks), then acknowledges the generation. The caller of hal_parallel (the core
 * that set the workers) publishes the job under a new generation, runs its own share, and
 * returns only when every helper has acknowledged it: a helper never reads a job's fields after
 * that, so the next job may rewrite them. Which core runs which task changes nothing in the
 * outputs: the model's tasks are independent and use per-thread buffers by hal_worker(). The
 * caller's wait has a bound in time: no task finished for stall_us (60 s unless set) while a
 * helper has not acknowledged is a lost core, and the registered panic names it.
 */
#include "hal/hal.h"
#include "hal/aarch64/aarch64.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define POOL_MAX 8u /* cores a pool may hold (raspi3b and qemu-virt have 4 and 2) */
/* A started core reaches hal_pool_serve, or a stopped one leaves it, within this. */
#define POOL_START_US 10000000u
/* No task finished for this long while the caller waits: a helper is lost (a task of the model
 * is a few million instructions; QEMU without icount runs 10^8 a second and more). The default
 * of stall_us, which hal_set_pool_stall_us changes. */
#define POOL_STALL_US 60000000u

static const struct hal_core_ops *core_ops;
static uint32_t stall_us = POOL_STALL_US;

static struct {
	/* the job: written by the caller before the generation is published, read by helpers after */
	void (*fn)(void *arg, unsigned i);
	void *arg;
	unsigned n, nw;     /* tasks, and threads sharing them */
	uint32_t finished; /* tasks finished in this job (the caller's progress for its bound) */
	uint32_t gen;      /* job generation (release by the caller, acquire by helpers) */
	uint32_t want;     /* helpers in slots < want serve; the others leave */
	unsigned workers;  /* the caller and the helpers in slots 1 .. workers - 1 */
	unsigned core[POOL_MAX];       /* slot -> core */
	uint32_t ack[POOL_MAX];        /* the generation slot s finished */
	uint32_t online[POOL_MAX];     /* slot s is in hal_pool_serve */
	uint64_t inst[POOL_MAX];       /* instructions slot s spent in tasks */
	int in_call;                   /* a hal_parallel call is running (a nested one runs inline) */
} pool = {.workers = 1};

void hal_set_core_ops(const struct hal_core_ops *ops)
{
	core_ops = ops;
}

static void wake_all(void)
{
	__asm__ volatile("dsb ish\nsev" ::: "memory");
}

void hal_set_pool_stall_us(uint32_t us)
{
	stall_us = us ? us : POOL_STALL_US;
}

/* The registered panic, its message fmt with its arguments (the lost core's number). */
static __attribute__((noreturn, format(printf, 1, 2))) void lost(const char *fmt, ...)
{
	static char line[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	core_ops->panic(line);
}

/* Runs thread s's tasks of the current job, s, s + nw, s + 2 nw, ...; returns the instructions
 * spent. A fixed share a thread, not a shared counter: the cores are alike, the model's tasks
 * are of one size, and under QEMU's -icount the cores take turns of millions of instructions, so
 * with a counter core 0 took every task before core 1's turn came; a fixed share makes each
 * core's count (make bench) the part it would run on silicon. */
static uint64_t take_tasks(void (*fn)(void *, unsigned), void *arg, unsigned n, unsigned s,
			   unsigned nw)
{
	uint32_t t0 = aarch64_instret32();
	for (unsigned i = s; i < n; i += nw) {
		fn(arg, i);
		__atomic_fetch_add(&pool.finished, 1u, __ATOMIC_RELEASE);
	}
	return (uint32_t)(aarch64_instret32() - t0); /* a job's share on one core: under 2^32 */
}

static void hal_pool_serve(void *slot_arg)
{
	unsigned s = (unsigned)(uintptr_t)slot_arg;
	aarch64_counters_init(); /* this core's own counters (the bench's instruction counts) */
	uint32_t seen = __atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE);
	__atomic_store_n(&pool.online[s], 1u, __ATOMIC_RELEASE);
	wake_all();
	for (;;) {
		uint32_t g;
		/* idle: the wait ends with a job or with the request to leave (a server's loop, not a
		 * wait on hardware) */
		while ((g = __atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE)) == seen &&
		       s < __atomic_load_n(&pool.want, __ATOMIC_ACQUIRE))
			__asm__ volatile("wfe");
		if (g == seen)
			break; /* asked to leave */
		seen = g;
		pool.inst[s] += take_tasks(pool.fn, pool.arg, pool.n, s, pool.nw);
		__atomic_store_n(&pool.ack[s], g, __ATOMIC_RELEASE);
		wake_all();
	}
	__atomic_store_n(&pool.online[s], 0u, __ATOMIC_RELEASE);
	wake_all();
}

void hal_parallel(unsigned n, void (*fn)(void *arg, unsigned i), void *arg)
{
	unsigned nw = pool.workers;
	if (n <= 1 || nw <= 1 || pool.in_call || hal_cpu_id() != pool.core[0]) {
		for (unsigned i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	pool.in_call = 1;
	pool.fn = fn;
	pool.arg = arg;
	pool.n = n;
	pool.nw = nw;
	__atomic_store_n(&pool.finished, 0u, __ATOMIC_RELAXED);
	uint32_t g = pool.gen + 1u;
	__atomic_store_n(&pool.gen, g, __ATOMIC_RELEASE);
	wake_all();
	pool.inst[0] += take_tasks(fn, arg, n, 0, nw);
	for (unsigned s = 1; s < nw; s++) {
		uint32_t done = __atomic_load_n(&pool.finished, __ATOMIC_ACQUIRE);
		uint64_t deadline = hal_timeout_init_us(stall_us);
		while (__atomic_load_n(&pool.ack[s], __ATOMIC_ACQUIRE) != g) {
			uint32_t now = __atomic_load_n(&pool.finished, __ATOMIC_ACQUIRE);
			if (now != done) { /* a task finished: the bound starts again */
				done = now;
				deadline = hal_timeout_init_us(stall_us);
			} else if (hal_timeout_elapsed(deadline)) {
				lost("hal_parallel: no task finished for %u ms while core %u still had its share (a lost core)",
				     (unsigned)(stall_us / 1000u), pool.core[s]);
			}
			hal_cpu_relax();
		}
	}
	pool.in_call = 0;
}

unsigned hal_workers(void)
{
	return pool.workers;
}

unsigned hal_worker(void)
{
	unsigned nw = pool.workers, c = hal_cpu_id();
	for (unsigned s = 1; s < nw; s++)
		if (pool.core[s] == c)
			return s;
	return 0;
}

/* Waits until slot s's online flag is v, and (leaving) its core is free again; 0 on time. */
static int wait_online(unsigned s, uint32_t v)
{
	uint64_t deadline = hal_timeout_init_us(POOL_START_US);
	while (__atomic_load_n(&pool.online[s], __ATOMIC_ACQUIRE) != v ||
	       (!v && core_ops->busy(pool.core[s]))) {
		if (hal_timeout_elapsed(deadline))
			return -1;
		hal_cpu_relax();
	}
	return 0;
}

unsigned hal_set_workers(unsigned n)
{
	/* only the core that holds the pool changes it, never from inside a call */
	if (!core_ops || pool.in_call || (pool.workers > 1 && hal_cpu_id() != pool.core[0]))
		return pool.workers;
	unsigned max = hal_platform()->ncores;
	if (max > POOL_MAX)
		max = POOL_MAX;
	if (!n || n > max)
		n = max;
	if (n < pool.workers) { /* the helpers in slots n .. leave */
		__atomic_store_n(&pool.want, n, __ATOMIC_RELEASE);
		wake_all();
		for (unsigned s = n; s < pool.workers; s++)
			if (wait_online(s, 0))
				lost("hal_set_workers: core %u did not leave the pool within 10 s", pool.core[s]);
		pool.workers = n;
		return pool.workers;
	}
	if (pool.workers == 1)
		pool.core[0] = hal_cpu_id();
	unsigned s = pool.workers;
	__atomic_store_n(&pool.want, n, __ATOMIC_RELEASE);
	/* the other cores in order, skipping any that runs something else (busy) */
	for (unsigned c = 0; c < max && s < n; c++) {
		int taken = c == pool.core[0];
		for (unsigned k = 1; k < s; k++)
			taken |= pool.core[k] == c;
		if (taken || core_ops->busy(c))
			continue;
		pool.core[s] = c;
		pool.online[s] = 0;
		pool.ack[s] = pool.gen;
		if (core_ops->start(c, hal_pool_serve, (void *)(uintptr_t)s) != HAL_CORE_OK)
			continue;
		if (wait_online(s, 1))
			lost("hal_set_workers: core %u was started but did not reach the pool within 10 s", c);
		s++;
	}
	__atomic_store_n(&pool.want, s, __ATOMIC_RELEASE);
	pool.workers = s;
	return s;
}

uint64_t hal_worker_instret(unsigned s)
{
	return s < POOL_MAX ? pool.inst[s] : 0;
}
