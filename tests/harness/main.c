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
	static char cmdline[1024];
	if (hal_cmdline(cmdline, sizeof cmdline) != 0)
		cmdline[0] = 0;
#ifdef ANEFW_TARGET
	/* Foundation self-checks that end the run (crashes, counters) are chosen by "mode=". */
	target_tests_dispatch(cmdline);
#endif
	int failed = test_main(cmdline);
	fflush(stdout);
	hal_exit(failed > 255 ? 255 : failed);
}
