#include "tools/anefw-tool/tool.h"

#include <stdio.h>

/* `git describe` at build time (the Makefile), "unknown" when built without it */
#ifndef ANEFW_VERSION
#define ANEFW_VERSION "unknown"
#endif

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return tool_usage_error("version", "takes no arguments");
	printf("anefw-tool %s (anefw host tools)\n", ANEFW_VERSION);
	return 0;
}

TOOL_COMMAND(version, "version", cmd_version, "version                      print the tool's version");
