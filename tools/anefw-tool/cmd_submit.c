/*
 * anefw-tool submit FILE [--raw|--hwx] [--grant BAR:SIZE:ACCESS[:inplace] ...] [--trace]
 * Runs the firmware's control path (fw/ctrl) on the host against the software engine
 * (engine/model) and prints what was programmed and moved, or the named error (exit 1).
 * Without --grant every I/O window and the weights get exactly their declared sizes.
 */
#include "app/session.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "tools/anefw-tool/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void to_stdout(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	fwrite(s, 1, n, stdout);
}

static int cmd_submit(int argc, char **argv)
{
	static struct subq_grant grants[SESSION_MAX_GRANTS];
	static struct ldr_program prog;
	unsigned n = 0, trace = 0, flags = 0;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (tool_take_format(argv[i], &flags)) {
			continue;
		} else if (!strcmp(argv[i], "--trace")) {
			trace = 1;
		} else if (!strcmp(argv[i], "--ops-limit")) {
			if (tool_take_ops_limit("submit", argc, argv, &i))
				return 2;
		} else if (!strcmp(argv[i], "--grant")) {
			if (i + 1 >= argc)
				return tool_usage_error("submit", "--grant needs BAR:SIZE:ACCESS");
			if (n >= SESSION_MAX_GRANTS)
				return tool_usage_error("submit", "at most %u grants", SESSION_MAX_GRANTS);
			if (tool_parse_grant(argv[++i], &grants[n]))
				return tool_usage_error("submit", "bad grant '%s' (BAR:SIZE:r|w|rw[:inplace])",
							argv[i]);
			n++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return tool_usage_error("submit", "unknown option '%s'", argv[i]);
		} else if (!path) {
			path = argv[i];
		} else {
			return tool_usage_error("submit", "too many arguments: '%s' after FILE '%s' (one "
						       "FILE)", argv[i], path);
		}
	}
	if (!path)
		return tool_usage_error("submit", "needs FILE");
	if (tool_check_format("submit", flags))
		return 2;
	uint8_t *buf;
	size_t len;
	if (tool_read_file(path, &buf, &len))
		return 1;
	/* device addresses of explicit grants: the program's BAR table (0 for raw streams) */
	if (n && ldr_load(buf, len, flags, &prog) == LDR_OK && !prog.raw)
		for (unsigned i = 0; i < n; i++)
			if (grants[i].bar < LDR_NBARS)
				grants[i].dva = prog.bars[grants[i].bar];
	struct session_result res;
	struct app_session *session = session_create(plat_dma());
	if (!session) {
		fprintf(stderr, "submit: out of memory\n");
		free(buf);
		return 1;
	}
	const struct session_opts o = {.ldr_flags = flags, .grants = grants, .ngrants = n,
				    .use_defaults = n == 0, .trace = trace, .out = to_stdout,
				    .path = path};
	int rc = session_run(session, buf, len, &o, &res);
	session_destroy(session);
	free(buf);
	return rc ? 1 : 0;
}

TOOL_COMMAND(submit, "submit", cmd_submit,
	     "submit FILE [--raw|--hwx] [--grant BAR:SIZE:r|w|rw[:inplace] ...] [--trace] [--ops-limit N]\n"
	     "    run the control path against the software engine; print what was programmed\n"
	     "    and moved (every register write and DMA move with --trace) or the named error");
