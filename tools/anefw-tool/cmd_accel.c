/*
 * anefw-tool accel [--backend local|tcp:HOST:PORT [--timeout S]] [--log [2]] -- COMMAND [ARGS...]
 * Runs COMMAND with libanefw-accel.so preloaded (tools/accel, docs/asahi.md): its
 * /dev/accel/accel0 is an anefw device, submissions run on the engine model in the process
 * (local) or on the firmware serving commands (tcp:, `make serve`). The library is the one beside
 * this tool (build/host/libanefw-accel.so), or ANEFW_ACCEL_LIB. --timeout S (ANEFW_ACCEL_TIMEOUT):
 * the tcp backend's wait for each answer, as remote's.
 */
#include "tools/anefw-tool/tool.h"
#include "tools/link/link.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int lib_path(char *out, size_t cap)
{
	const char *env = getenv("ANEFW_ACCEL_LIB");
	if (env && *env) {
		if (strlen(env) >= cap)
			return -1;
		strcpy(out, env);
		return 0;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = 0;
	/* build/host/anefw-tool is a copy of build/host/{opt,san}/anefw-tool: the library is in
	 * build/host */
	const char *tail = strrchr(exe, '/');
	const char *up = tail && (!strcmp(tail, "/opt") || !strcmp(tail, "/san")) ? "/.." : "";
	if ((size_t)snprintf(out, cap, "%s%s/libanefw-accel.so", exe, up) >= cap)
		return -1;
	return 0;
}

static int cmd_accel(int argc, char **argv)
{
	const char *backend = "local", *backend_given = NULL, *log = NULL;
	unsigned timeout_s = 0; /* 0: --timeout not given */
	char timeout[16];       /* its value, in decimal, for ANEFW_ACCEL_TIMEOUT */
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--backend")) {
			if (i + 1 >= argc)
				return tool_usage_error("accel", "--backend needs local or tcp:HOST:PORT");
			if (tool_take_once("accel", "--backend", &backend_given, argv[i + 1]))
				return 2;
			backend = argv[++i];
		} else if (!strcmp(argv[i], "--timeout")) {
			if (tool_take_timeout("accel", argc, argv, &i, &timeout_s))
				return 2;
		} else if (!strcmp(argv[i], "--log")) {
			log = "1";
			if (i + 1 < argc && !strcmp(argv[i + 1], "2"))
				log = argv[++i];
			else if (i + 1 < argc && argv[i + 1][0] &&
				 strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1]))
				/* a level but 2 (it was run as the command: "cannot run 3") */
				return tool_usage_error("accel", "--log takes nothing or 2, got '%s'",
							argv[i + 1]);
		} else if (argv[i][0] == '-') {
			return tool_usage_error("accel", "unknown option '%s' (the command goes after --)",
						argv[i]);
		} else {
			break;
		}
	}
	if (i >= argc)
		return tool_usage_error("accel", "needs -- COMMAND [ARGS...]");
	char host[256];
	const char *port;
	if (strcmp(backend, "local") &&
	    (strncmp(backend, "tcp:", 4) || link_split_hostport(backend + 4, host, sizeof host, &port)))
		return tool_usage_error("accel", "backend '%s': expected local or tcp:HOST:PORT, "
					"PORT a number 1 to 65535", backend);
	if (timeout_s && strncmp(backend, "tcp:", 4))
		return tool_usage_error("accel", "--timeout is the tcp backend's wait for an answer; "
					"the backend is '%s'", backend);
	char lib[PATH_MAX];
	if (lib_path(lib, sizeof lib) || access(lib, R_OK)) {
		fprintf(stderr, "anefw-tool accel: no library at %s (make tools builds it; or set "
				"ANEFW_ACCEL_LIB)\n", lib);
		return 1;
	}
	const char *old = getenv("LD_PRELOAD");
	char *pre = NULL;
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? " " : "", old && *old ? old : "") < 0)
		return 1;
	if (setenv("LD_PRELOAD", pre, 1) || setenv("ANEFW_ACCEL_BACKEND", backend, 1) ||
	    (log && setenv("ANEFW_ACCEL_LOG", log, 1)) ||
	    (timeout_s && (snprintf(timeout, sizeof timeout, "%u", timeout_s) < 0 ||
			   setenv("ANEFW_ACCEL_TIMEOUT", timeout, 1)))) {
		free(pre);
		return 1;
	}
	free(pre);
	execvp(argv[i], argv + i);
	fprintf(stderr, "anefw-tool accel: cannot run %s: %s\n", argv[i], strerror(errno));
	return 127;
}

TOOL_COMMAND(accel, "accel", cmd_accel,
	     "accel [--backend local|tcp:HOST:PORT [--timeout S]] [--log [2]] -- COMMAND [ARGS...]\n"
	     "    run COMMAND with /dev/accel/accel0 an anefw device (Asahi ANE userspace:\n"
	     "    libane, Python ioctl clients); --timeout S: the tcp backend waits up to S\n"
	     "    seconds for each answer (60 unless given); docs/asahi.md");
