/*
 * ASSERT (fw/common/assert.h) fires: on the host a child process that asserts a false condition
 * dies of SIGABRT after printing the panic line with the condition, file and line; a true one
 * passes through. The target's panic (exit status 100 with the same line) is checked by
 * tests/suites/16-assert.sh on anefw-tests.elf mode=assert.
 */
#include "tests/harness/harness.h"
#include "fw/common/assert.h"

#ifndef ANEFW_TARGET
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int zero; /* not a constant: the compiler cannot fold the conditions */

/* the ASSERT, and its line (both on one line) */
static void do_assert(int value) { ASSERT(zero == value); } static const int assert_line = __LINE__;

/* Runs ASSERT(zero == value) in a child with stderr into a pipe: its wait status, and the text. */
static int child_assert(int value, char *text, size_t cap)
{
	int fd[2];
	if (pipe(fd))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		do_assert(value);
		_exit(7);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t k;
	while (n + 1 < cap && (k = read(fd[0], text + n, cap - 1 - n)) > 0)
		n += (size_t)k;
	text[n] = 0;
	close(fd[0]);
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

TEST(assert, false_condition_aborts_with_file_and_line)
{
	static char text[4096];
	int st = child_assert(1, text, sizeof text);
	CHECKF(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "wait status 0x%x", st);
	char want[128];
	snprintf(want, sizeof want, "*** anefw panic: assertion failed: zero == value at tests/unit/test_assert.c:%d ***",
		 assert_line);
	CHECKF(strstr(text, want) != NULL, "stderr: %s (want %s)", text, want);
	/* the checker above fails on a child that does not abort: a true condition exits 7 */
	st = child_assert(0, text, sizeof text);
	CHECKF(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 7, "wait status 0x%x", st);
	CHECK(strstr(text, "anefw panic") == NULL);
}
#endif
