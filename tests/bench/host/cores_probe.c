/*
 * make bench's probe of the host's two first cores, printed beside the model's two-thread figures
 * (issue 26: the 512 x 512 over 64 convolution's two-thread speed-up moves between about 1.3x and
 * 1.7x from run to run on this kind of virtual machine, and OpenBLAS's own with it).
 *
 *   round trip: one cache line handed from core 0 to core 1 and back, best and median of 64
 *     batches of 4096 hand-overs (what each hand-over of a task or a finished count costs);
 *   together: a register-only loop timed on core 0 alone, then on cores 0 and 1 at once, the
 *     slower core's time over the lone one's (1.00: the second core costs the first nothing;
 *     near 2: the two share one core's execution units, or the host runs them in turns).
 *
 * Host-only, portable C and POSIX threads; cores outside the affinity mask are reported, not used.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCH 4096
#define BATCHES 64
#define SPINS 20000000u

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int pin(int core)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(core, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static _Alignas(64) volatile uint64_t line;
static volatile int go, ready; /* ready: 1 the echo thread runs on core 1, -1 it cannot */
static uint64_t lone_ns, pair_ns[2];

static void *echo(void *p)
{
	(void)p;
	if (pin(1)) {
		ready = -1;
		return NULL;
	}
	ready = 1;
	for (uint64_t i = 1; i <= (uint64_t)BATCH * BATCHES; i++) {
		while (line != 2 * i - 1)
			;
		line = 2 * i;
	}
	return NULL;
}

/* a dependent chain of integer multiply-adds: registers only, no memory traffic */
static uint64_t spin_work(void)
{
	uint64_t a = 1, b = 3, c = 5, d = 7;
	uint64_t t = now_ns();
	for (unsigned i = 0; i < SPINS; i++) {
		a = a * 6364136223846793005u + 1;
		b = b * 6364136223846793005u + 3;
		c = c * 6364136223846793005u + 5;
		d = d * 6364136223846793005u + 7;
	}
	t = now_ns() - t;
	if ((a ^ b ^ c ^ d) == 42)
		printf(" ");
	return t;
}

static void *spin_core1(void *p)
{
	(void)p;
	if (pin(1))
		return NULL;
	while (!go)
		;
	pair_ns[1] = spin_work();
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	pthread_t t;
	uint64_t batch[BATCHES];
	if (pin(0) || pthread_create(&t, NULL, echo, NULL)) {
		printf("bench: cores probe: cores 0 and 1 not both usable here, not measured\n");
		return 0;
	}
	while (!ready) /* set by the thread's first steps */
		;
	if (ready < 0) {
		pthread_join(t, NULL);
		printf("bench: cores probe: core 1 not usable here, not measured\n");
		return 0;
	}
	uint64_t i = 1;
	for (unsigned b = 0; b < BATCHES; b++) {
		uint64_t s = now_ns();
		for (unsigned k = 0; k < BATCH; k++, i++) {
			line = 2 * i - 1;
			while (line != 2 * i)
				;
		}
		batch[b] = now_ns() - s;
	}
	pthread_join(t, NULL);
	qsort(batch, BATCHES, sizeof batch[0], cmp_u64);
	lone_ns = spin_work();
	if (pthread_create(&t, NULL, spin_core1, NULL))
		return 0;
	go = 1;
	pair_ns[0] = spin_work();
	pthread_join(t, NULL);
	uint64_t slow = pair_ns[0] > pair_ns[1] ? pair_ns[0] : pair_ns[1];
	printf("bench: cores probe: a cache line's round trip between cores 0 and 1 %.0f ns (median %.0f);"
	       " both cores at once %.2f of one alone\n",
	       (double)batch[0] / BATCH, (double)batch[BATCHES / 2] / BATCH,
	       lone_ns ? (double)slow / (double)lone_ns : 0.0);
	return 0;
}
