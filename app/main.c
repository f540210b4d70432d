/* The firmware image's main(): read the command line over semihosting and run the main job. */
#include "app/job.h"
#include "hal/hal.h"

int main(int argc, char **argv)
{
	static char cmdline[1024];
	(void)argc;
	(void)argv;
	if (hal_cmdline(cmdline, sizeof cmdline) != 0)
		cmdline[0] = 0;
	return anefw_job(cmdline);
}
