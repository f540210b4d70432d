/* A fuzzing campaign's reach (reach.h): one histogram for every target that runs programs. */
#include "tests/fuzz/reach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REACH_MAX 512
static struct reach {
	const char *kind, *name;
	unsigned long n;
} hist[REACH_MAX];
static unsigned nhist;
static int on;
static const char *who = "fuzz";
static void (*line)(void);

int reach_on(void)
{
	return on;
}

void reach_count(const char *kind, const char *name)
{
	if (!on)
		return;
	if (!name)
		name = "(no text)";
	for (unsigned i = 0; i < nhist; i++)
		if (hist[i].kind == kind && (hist[i].name == name || !strcmp(hist[i].name, name))) {
			hist[i].n++;
			return;
		}
	if (nhist < REACH_MAX)
		hist[nhist++] = (struct reach){kind, name, 1};
}

void reach_engine(int run, const struct eng_fault *f)
{
	if (run == ENG_OK)
		reach_count("completed", "every TD");
	else if (run != ENG_E_FAULT || f->reason >= ENG_FR__COUNT)
		reach_count("the model", eng_err_name(run));
	else
		reach_count(eng_fault_reason_name(f->reason), f->why);
}

static int by_count(const void *a, const void *b)
{
	const struct reach *x = a, *y = b;
	int k = strcmp(x->kind, y->kind);
	return k ? k : (x->n < y->n) - (x->n > y->n);
}

static void print(void)
{
	if (line)
		line();
	qsort(hist, nhist, sizeof hist[0], by_count);
	for (unsigned i = 0; i < nhist; i++)
		fprintf(stderr, "%s: reach %8lu  %s: %s\n", who, hist[i].n, hist[i].kind, hist[i].name);
}

void reach_init(const char *env, const char *target, void (*summary)(void))
{
	if (on || !getenv(env))
		return;
	on = 1;
	who = target;
	line = summary;
	atexit(print);
}
