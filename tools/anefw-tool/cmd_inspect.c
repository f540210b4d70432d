/* anefw-tool inspect / validate: the program loader's view of a .hwx container or raw stream. */
#include "tools/anefw-tool/tool.h"
#include "fw/loader/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void to_stdout(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, (FILE *)ctx);
}

/* Parses FILE [--json] [--raw] [--hwx]; returns 0 or a usage error status. */
static int args(const char *cmd, int argc, char **argv, int allow_json, const char **path,
		unsigned *flags, int *json)
{
	*path = NULL;
	*flags = 0;
	*json = 0;
	for (int i = 1; i < argc; i++) {
		if (allow_json && !strcmp(argv[i], "--json"))
			*json = 1;
		else if (!strcmp(argv[i], "--raw"))
			*flags |= LDR_F_RAW;
		else if (!strcmp(argv[i], "--hwx"))
			*flags |= LDR_F_HWX;
		else if (argv[i][0] == '-' && argv[i][1])
			return tool_usage_error(cmd, "unknown option '%s'", argv[i]);
		else if (*path)
			return tool_usage_error(cmd, "only one FILE");
		else
			*path = argv[i];
	}
	if (!*path)
		return tool_usage_error(cmd, "needs a FILE");
	if ((*flags & LDR_F_RAW) && (*flags & LDR_F_HWX))
		return tool_usage_error(cmd, "--raw and --hwx exclude each other");
	return 0;
}

static int load(const char *path, unsigned flags, uint8_t **buf, struct ldr_program **p,
		enum ldr_err *err)
{
	size_t len;
	if (tool_read_file(path, buf, &len) != 0)
		return -1;
	*p = malloc(sizeof **p);
	if (!*p) {
		free(*buf);
		fprintf(stderr, "anefw-tool: out of memory\n");
		return -1;
	}
	*err = ldr_load(*buf, len, flags, *p);
	return 0;
}

static int cmd_inspect(int argc, char **argv)
{
	const char *path;
	unsigned flags;
	int json, rc = args("inspect", argc, argv, 1, &path, &flags, &json);
	if (rc)
		return rc;
	uint8_t *buf;
	struct ldr_program *p;
	enum ldr_err e;
	if (load(path, flags, &buf, &p, &e) != 0)
		return 1;
	if (e != LDR_OK) {
		fprintf(stderr, "anefw-tool inspect: %s: %s (%s)", path, ldr_err_name(e),
			ldr_err_text(e));
		if (p->err_off)
			fprintf(stderr, " at file offset 0x%lx", (unsigned long)p->err_off);
		fprintf(stderr, "\n");
		rc = 1;
	} else {
		ldr_print(p, json ? LDR_P_JSON : 0, to_stdout, stdout);
	}
	free(p);
	free(buf);
	return rc;
}

static int cmd_validate(int argc, char **argv)
{
	const char *path;
	unsigned flags;
	int json, rc = args("validate", argc, argv, 0, &path, &flags, &json);
	if (rc)
		return rc;
	uint8_t *buf;
	struct ldr_program *p;
	enum ldr_err e;
	if (load(path, flags, &buf, &p, &e) != 0)
		return 1;
	if (e == LDR_OK) {
		printf("ok\n");
	} else {
		printf("%s: %s", ldr_err_name(e), ldr_err_text(e));
		if (p->err_off)
			printf(" at file offset 0x%lx", (unsigned long)p->err_off);
		printf("\n");
		rc = 1;
	}
	free(p);
	free(buf);
	return rc;
}

TOOL_COMMAND(inspect, "inspect", cmd_inspect,
	     "inspect FILE [--json] [--raw|--hwx]  show a program: container, TDs, register writes");
TOOL_COMMAND(validate, "validate", cmd_validate,
	     "validate FILE [--raw|--hwx]   check a program; prints ok or the named error");
