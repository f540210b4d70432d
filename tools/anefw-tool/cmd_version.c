#include "tools/anefw-tool/tool.h"

#include <stdio.h>

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return tool_usage_error("version", "takes no arguments");
	printf("anefw-tool (anefw host tools)\n");
	return 0;
}

TOOL_COMMAND(version, "version", cmd_version, "version                      print the tool's version");
