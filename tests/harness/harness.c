/* anefw test harness: runner, checks, files. Shared by the native and the target builds. */
#include "harness.h"
#include "hal/hal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct test_case __start_anefw_tests[];
extern const struct test_case __stop_anefw_tests[];

static char cmdline_copy[TEST_CMDLINE_MAX];
static int current_failed;
static int current_skipped;
unsigned long test_checks_now;
static const struct test_case *current;
static uint64_t rng_state;

int test_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

size_t test_mem_diff(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return i;
	return (size_t)-1;
}

void test_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	/* Only the first few failures of a test are printed in full. */
	if (current_failed < 5) {
		printf("  %s:%d: ", file, line);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	current_failed++;
}

int test_failed_now(void)
{
	return current_failed;
}

void test_skip(const char *why)
{
	if (!current_skipped)
		printf("  skipped: %s\n", why);
	current_skipped = 1;
}

int test_on_target(void)
{
#ifdef ANEFW_TARGET
	return 1;
#else
	return 0;
#endif
}

uint64_t test_rand(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Command line: space-separated words; key=value pairs and bare test selectors. */
const char *test_arg(const char *key)
{
	static char value[512];
	size_t kl = strlen(key);
	const char *p = cmdline_copy;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - w) > kl && strncmp(w, key, kl) == 0 && w[kl] == '=') {
			size_t vl = (size_t)(p - w) - kl - 1;
			if (vl >= sizeof value)
				return NULL;
			memcpy(value, w + kl + 1, vl);
			value[vl] = 0;
			return value;
		}
	}
	return NULL;
}

static char shared_dir[512];
static char data_dir[512];

const char *test_shared_dir(void)
{
	return shared_dir[0] ? shared_dir : NULL;
}

static const char *join(const char *dir, const char *rel)
{
	static char buf[4][768];
	static unsigned slot;
	if (!dir || !dir[0])
		return NULL;
	char *b = buf[slot++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", dir, rel);
	return b;
}

const char *test_shared_path(const char *rel)
{
	return join(test_shared_dir(), rel);
}

const char *test_data_path(const char *rel)
{
	return join(data_dir[0] ? data_dir : NULL, rel);
}

int test_read_file(const char *path, uint8_t **buf, size_t *len)
{
	if (!path)
		return -1;
	int fd = hal_file_open(path, 0);
	if (fd < 0)
		return -1;
	long n = hal_file_length(fd);
	if (n < 0) {
		hal_file_close(fd);
		return -1;
	}
	uint8_t *b = malloc((size_t)n + 1);
	if (!b) {
		hal_file_close(fd);
		return -1;
	}
	long got = n ? hal_file_read(fd, b, (size_t)n) : 0;
	hal_file_close(fd);
	if (got != n) {
		free(b);
		return -1;
	}
	b[n] = 0;
	*buf = b;
	*len = (size_t)n;
	return 0;
}

int test_write_file(const char *path, const void *buf, size_t len)
{
	int fd = hal_file_open(path, 1);
	if (fd < 0)
		return -1;
	long w = hal_file_write(fd, buf, len);
	hal_file_close(fd);
	return w == (long)len ? 0 : -1;
}

/* The next selector of the command line from *pp on (a word without '='; key=value words are
 * arguments), its length in *n, *pp moved past it; NULL at the end. */
static const char *next_selector(const char **pp, size_t *n)
{
	const char *p = *pp;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p) {
			*pp = p;
			return NULL;
		}
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		*n = (size_t)(p - w);
		if (!memchr(w, '=', *n)) {
			*pp = p;
			return w;
		}
	}
}

/* A test is selected when no selector is given, or its "suite" or "suite.name" is named. */
static int selected(const struct test_case *t, int *any_selector)
{
	char full[160];
	snprintf(full, sizeof full, "%s.%s", t->suite, t->name);
	const char *p = cmdline_copy, *w;
	size_t n;
	int explicit_hit = 0, hit = 0;
	*any_selector = 0;
	while ((w = next_selector(&p, &n)) != NULL) {
		*any_selector = 1;
		if (n == strlen(full) && strncmp(w, full, n) == 0)
			explicit_hit = hit = 1;
		else if (n == strlen(t->suite) && strncmp(w, t->suite, n) == 0)
			hit = 1;
	}
	if (t->flags & TEST_FLAG_EXPLICIT)
		return explicit_hit;
	return *any_selector ? hit : 1;
}

int test_main(const char *cmdline)
{
	int passed = 0, failed = 0, skipped = 0, any;
	if ((size_t)snprintf(cmdline_copy, sizeof cmdline_copy, "%s", cmdline ? cmdline : "") >=
	    sizeof cmdline_copy) { /* cut, its selectors and keys would be lost without a word */
		printf("error: the command line is %u bytes or more, longer than the harness takes\n"
		       "0 passed, 1 failed, 0 skipped\n", (unsigned)TEST_CMDLINE_MAX);
		fflush(stdout);
		return 1;
	}
	const char *s = test_arg("shared");
	if (s)
		snprintf(shared_dir, sizeof shared_dir, "%s", s);
	/* The shared folder counts as present only if it really holds the fixtures. */
	if (shared_dir[0]) {
		int fd = hal_file_open(test_shared_path("fixtures/README.md"), 0);
		if (fd < 0)
			shared_dir[0] = 0;
		else
			hal_file_close(fd);
	}
	const char *d = test_arg("data");
	if (d)
		snprintf(data_dir, sizeof data_dir, "%s", d);

	printf("# anefw tests on %s%s\n", hal_platform()->board,
	       shared_dir[0] ? "" : " (no ../shared: fixture tests skip)");
	for (const struct test_case *t = __start_anefw_tests; t < __stop_anefw_tests; t++) {
		if (!selected(t, &any))
			continue;
		current = t;
		current_failed = 0;
		current_skipped = 0;
		test_checks_now = 0;
		rng_state = 0x9E3779B97F4A7C15ULL;
		for (const char *c = t->name; *c; c++)
			rng_state = (rng_state ^ (uint8_t)*c) * 0x100000001B3ULL;
		if (!rng_state)
			rng_state = 1;
		t->fn();
		if (current_failed) {
			printf("FAIL %s.%s\n", t->suite, t->name);
			failed++;
		} else if (current_skipped) {
			printf("skip %s.%s\n", t->suite, t->name);
			skipped++;
		} else if (!test_checks_now) {
			/* nothing was checked: a helper returned early, or the test is empty */
			printf("FAIL %s.%s: ran no checks\n", t->suite, t->name);
			failed++;
		} else {
			printf("ok   %s.%s\n", t->suite, t->name);
			passed++;
		}
	}
	current = NULL;
	/* a selector no test answers to (a typo: T=lodaer) is a failure; the run of nothing it
	 * made ended "0 passed, 0 failed, 0 skipped" with status 0 */
	size_t n;
	for (const char *p = cmdline_copy, *w; (w = next_selector(&p, &n)) != NULL;) {
		int named = 0;
		for (const struct test_case *t = __start_anefw_tests; t < __stop_anefw_tests && !named;
		     t++) {
			size_t ls = strlen(t->suite);
			named = (n == ls && !strncmp(w, t->suite, n)) ||
				(n == ls + 1 + strlen(t->name) && !strncmp(w, t->suite, ls) && w[ls] == '.' &&
				 !strncmp(w + ls + 1, t->name, n - ls - 1));
		}
		if (!named) {
			printf("FAIL %.*s: no test or suite has this name\n", (int)n, w);
			failed++;
		}
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	fflush(stdout);
	return failed;
}

/* The harness's own checks: explicit-only tests whose verdicts tests/suites/15-foundation.sh
 * checks (the first two must be reported as failures). */
TEST_EX(harness, deliberate_failure, TEST_FLAG_EXPLICIT)
{
	CHECK_EQ(1 + 1, 3);
}

/* A helper that gives up before checking anything, as a test helper with an early return does. */
static int harness_helper_gives_up(void)
{
	return -1;
}

/* Must be reported "FAIL harness.no_checks: ran no checks": nothing fails, nothing is checked. */
TEST_EX(harness, no_checks, TEST_FLAG_EXPLICIT)
{
	if (harness_helper_gives_up() < 0)
		return;
	CHECK(1);
}

/* Must be reported as a skip, not as a failure: skipping with no checks is allowed. */
TEST_EX(harness, skip_without_checks, TEST_FLAG_EXPLICIT)
{
	SKIP("skipping before any check is not a failure");
}

TEST(harness, checks_pass)
{
	unsigned long before = test_checks_now;
	CHECK_EQ(2 + 2, 4);
	/* each check counts one: the CHECK_EQ above and this CHECK itself (counted before it tests) */
	CHECK(test_checks_now == before + 2);
	CHECK_STR("anefw", "anefw");
	CHECK(test_mem_diff("abc", "abd", 3) == 2);
	CHECK(test_mem_diff("abc", "abc", 3) == (size_t)-1);
}
