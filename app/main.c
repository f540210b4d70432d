/* The firmware image's main(): read the command line over semihosting and run the main job. */
#include "app/job.h"
#include "hal/hal.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	static char cmdline[JOB_CMDLINE_MAX];
	(void)argc;
	(void)argv;
	int r = hal_cmdline(cmdline, sizeof cmdline);
	if (r == HAL_CMDLINE_UNREADABLE) /* a line the host has but did not give: not an empty one */
		return anefw_job_cmdline_unreadable();
	if (r != 0)
		cmdline[0] = 0;
#if defined(ANEFW_SERVE_DEFAULT) && ANEFW_SERVE_DEFAULT
	if (!cmdline[0]) /* a board with nothing but its UART attached: serve commands there */
		snprintf(cmdline, sizeof cmdline, "serve=1");
#endif
	return anefw_job(cmdline);
}
