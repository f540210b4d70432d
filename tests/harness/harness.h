/*
 * anefw test harness: one harness for every test source, built natively (with ASan and UBSan)
 * and for the target (run under QEMU, reporting over semihosting).
 *
 * A test is declared with TEST(suite, name) { ... }. Checks do not stop a test; REQUIRE* returns
 * from it. SKIP("why") ends a test as skipped (e.g. when ../shared fixtures are absent).
 * Each test prints one line: "ok", "FAIL" or "skip"; a run ends with "N passed, N failed".
 * Every CHECK* and REQUIRE* executed counts as one check (CHECKF is a check with its own
 * message; test_checked() counts one by hand); a test that ran no check and did not skip is a
 * failure ("FAIL suite.name: ran no checks"), so a helper that returns early cannot pass.
 */
#ifndef ANEFW_TEST_HARNESS_H
#define ANEFW_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

struct test_case {
	const char *suite;
	const char *name;
	void (*fn)(void);
	uintptr_t flags;
};

/* Test only runs when selected explicitly by its full name (used for harness self-tests). */
#define TEST_FLAG_EXPLICIT 1u
/* The longest command line the test program takes (its NUL included), native and target. */
#define TEST_CMDLINE_MAX 4096u

#define TEST_SECTION __attribute__((used, section("anefw_tests"), aligned(8)))

#define TEST_EX(suite, name, flags_)                                                            \
	static void test_##suite##__##name(void);                                               \
	static const struct test_case test_case_##suite##__##name TEST_SECTION = {              \
		#suite, #name, test_##suite##__##name, (flags_)};                               \
	static void test_##suite##__##name(void)

#define TEST(suite, name) TEST_EX(suite, name, 0)

void test_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void test_skip(const char *why);
int test_failed_now(void);
/* Checks executed so far by the running test; test_checked() counts one more. */
extern unsigned long test_checks_now;
#define test_checked() ((void)test_checks_now++)

#define CHECK(cond)                                                                             \
	do {                                                                                    \
		test_checked();                                                                 \
		if (!(cond))                                                                    \
			test_fail_at(__FILE__, __LINE__, "check failed: %s", #cond);            \
	} while (0)

#define CHECK_EQ(a, b)                                                                          \
	do {                                                                                    \
		test_checked();                                                                 \
		unsigned long long va_ = (unsigned long long)(a);                               \
		unsigned long long vb_ = (unsigned long long)(b);                               \
		if (va_ != vb_)                                                                 \
			test_fail_at(__FILE__, __LINE__, "%s == %s: 0x%lx != 0x%lx", #a, #b,    \
				     (unsigned long)va_, (unsigned long)vb_);                   \
	} while (0)

#define CHECK_STR(a, b)                                                                         \
	do {                                                                                    \
		test_checked();                                                                 \
		const char *sa_ = (a), *sb_ = (b);                                              \
		if (!test_str_eq(sa_, sb_))                                                     \
			test_fail_at(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,  \
				     sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");               \
	} while (0)

#define CHECK_MEM(a, b, n)                                                                      \
	do {                                                                                    \
		test_checked();                                                                 \
		size_t at_ = test_mem_diff((a), (b), (n));                                      \
		if (at_ != (size_t)-1)                                                          \
			test_fail_at(__FILE__, __LINE__, "%s vs %s differ at byte %lu", #a, #b, \
				     (unsigned long)at_);                                       \
	} while (0)

/* A check with its own failure message (printf format and arguments). */
#define CHECKF(cond, ...)                                                                       \
	do {                                                                                    \
		test_checked();                                                                 \
		if (!(cond))                                                                    \
			test_fail_at(__FILE__, __LINE__, __VA_ARGS__);                          \
	} while (0)

#define REQUIRE(cond)                                                                           \
	do {                                                                                    \
		test_checked();                                                                 \
		if (!(cond)) {                                                                  \
			test_fail_at(__FILE__, __LINE__, "required: %s", #cond);                \
			return;                                                                 \
		}                                                                               \
	} while (0)

/* A failure that ends the test (printf format and arguments): what the test needed is missing. */
#define FAIL(...)                                                                               \
	do {                                                                                    \
		test_checked();                                                                 \
		test_fail_at(__FILE__, __LINE__, __VA_ARGS__);                                  \
		return;                                                                         \
	} while (0)

/* A skip: only for what the run was not given (../shared absent), never for what make built. */
#define SKIP(why)                                                                               \
	do {                                                                                    \
		test_skip(why);                                                                 \
		return;                                                                         \
	} while (0)

int test_str_eq(const char *a, const char *b);
size_t test_mem_diff(const void *a, const void *b, size_t n);

/*
 * Files for tests, read from the host (stdio natively, semihosting on the target).
 * test_read_file returns 0 and a malloc'd buffer (free it), or -1 when the file cannot be read.
 */
int test_read_file(const char *path, uint8_t **buf, size_t *len);
int test_write_file(const char *path, const void *buf, size_t len);

/*
 * Where the shared fixtures are ("shared=" on the command line, set by the Makefile); NULL when
 * absent. test_shared_path builds "<shared>/<rel>" into a static buffer, or NULL when absent.
 */
const char *test_shared_dir(void);
const char *test_shared_path(const char *rel);
/* Where generated test data lives ("data=" on the command line: build/testdata). */
const char *test_data_path(const char *rel);
/* Value of "key=value" on the test command line, or NULL. */
const char *test_arg(const char *key);

/* Deterministic pseudo-random numbers for tests (xorshift64*), seeded per test. */
uint64_t test_rand(void);

/* 1 when running on the target, 0 natively. */
int test_on_target(void);

/* Entry: runs the tests selected by the command line, returns the number of failures. */
int test_main(const char *cmdline);

#endif
