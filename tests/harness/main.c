/* Entry of the test program, native and target alike: run the tests, exit with the failures. */
#include "harness.h"
#include "hal/hal.h"

#ifdef ANEFW_TARGET
#include "tests/target/target_tests.h"
#else
#include "hal/host/hal_host.h"
#endif

#include <stdio.h>

int main(int argc, char **argv)
{
#ifndef ANEFW_TARGET
	hal_host_set_args(argc, argv);
#else
	(void)argc;
	(void)argv;
#endif
	static char cmdline[TEST_CMDLINE_MAX];
	int r = hal_cmdline(cmdline, sizeof cmdline);
	if (r == HAL_CMDLINE_UNREADABLE) {
		/* a line the host has but did not give: running every test without its words would
		 * skip the fixtures' tests and pass */
		printf("error: the test image's command line could not be read: the host refused it "
		       "(%u bytes or more?)\n0 passed, 1 failed, 0 skipped\n", (unsigned)TEST_CMDLINE_MAX);
		fflush(stdout);
		hal_exit(1);
	}
	if (r != 0)
		cmdline[0] = 0;
#ifdef ANEFW_TARGET
	/* Foundation self-checks that end the run (crashes, counters) are chosen by "mode=". */
	target_tests_dispatch(cmdline);
#endif
	int failed = test_main(cmdline);
	fflush(stdout);
	hal_exit(failed > 255 ? 255 : failed);
}
