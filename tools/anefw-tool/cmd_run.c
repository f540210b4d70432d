/*
 * anefw-tool run PROGRAM [--raw|--hwx] [--in NAME=FILE]... [--out NAME=FILE]...
 *                [--ref NAME=FILE]... [--rtol R] [--atol A] [--grant ...] [--trace]
 * Runs a program on data through the firmware's control path and the software engine, as the
 * firmware's `in:NAME=PATH out:NAME=PATH` does, with the same code (app/tensorio.c): inputs from
 * .npy or raw files (or a fixed seed, said so), outputs to .npy in their logical shape or raw;
 * --ref compares an output with a reference file (one line each; a mismatch exits 1), by default
 * within one fp16 ulp at max(1, max |ref|), with --rtol/--atol as numpy's allclose.
 */
#include "app/session.h"
#include "app/tensorio.h"
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

static int cmd_run(int argc, char **argv)
{
	static struct subq_grant grants[SESSION_MAX_GRANTS];
	static struct tio_req req[TIO_MAX_IO];
	static struct ldr_program prog;
	static struct tio x;
	unsigned n = 0, nreq = 0, trace = 0, flags = 0, threads = 0;
	const char *path = NULL, *rtol = NULL, *atol = NULL, *threads_given = NULL;
	struct tio_tol tol;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (tool_take_format(a, &flags)) {
			continue;
		} else if (!strcmp(a, "--trace")) {
			trace = 1;
		} else if (!strcmp(a, "--threads")) {
			uint64_t v;
			if (i + 1 >= argc)
				return tool_usage_error("run", "--threads wants 1..64, got nothing");
			if (tool_parse_u64(argv[++i], 64, &v) || !v)
				return tool_usage_error("run", "--threads wants 1..64, got '%s'", argv[i]);
			if (tool_take_once("run", "--threads", &threads_given, argv[i]))
				return 2;
			threads = (unsigned)v;
		} else if (!strcmp(a, "--ops-limit")) {
			if (tool_take_ops_limit("run", argc, argv, &i))
				return 2;
		} else if (!strcmp(a, "--rtol") || !strcmp(a, "--atol")) {
			if (tool_take_tolerance("run", argc, argv, &i, &rtol, &atol))
				return 2;
		} else if (!strcmp(a, "--in") || !strcmp(a, "--out") || !strcmp(a, "--ref")) {
			int out = a[2] == 'o' ? TIO_OUT : a[2] == 'r' ? TIO_REF : TIO_IN;
			if (i + 1 >= argc)
				return tool_usage_error("run", "%s needs NAME=FILE", a);
			if (nreq >= TIO_MAX_IO)
				return tool_usage_error("run", "io-too-many: at most %u --in/--out/--ref",
							TIO_MAX_IO);
			i++;
			if (tio_parse_req(argv[i], strlen(argv[i]), out, &req[nreq]) != TIO_OK) {
				char why[96];
				tio_req_why(argv[i], strlen(argv[i]), why, sizeof why);
				return tool_usage_error("run", "io-bad-argument: '%s': %s (%s NAME=FILE)",
							argv[i], why, a);
			}
			nreq++;
		} else if (!strcmp(a, "--grant")) {
			if (i + 1 >= argc)
				return tool_usage_error("run", "--grant needs BAR:SIZE:ACCESS");
			if (n >= SESSION_MAX_GRANTS)
				return tool_usage_error("run", "at most %u grants", SESSION_MAX_GRANTS);
			if (tool_parse_grant(argv[++i], &grants[n]))
				return tool_usage_error("run", "bad grant '%s' (BAR:SIZE:r|w|rw[:inplace])",
							argv[i]);
			n++;
		} else if (a[0] == '-' && a[1]) {
			return tool_usage_error("run", "unknown option '%s'", a);
		} else if (!path) {
			path = a;
		} else {
			return tool_usage_error("run", "too many arguments: '%s' after PROGRAM '%s' (one "
						       "PROGRAM; tensors are --in/--out/--ref NAME=FILE)",
						a, path);
		}
	}
	if (!path)
		return tool_usage_error("run", "needs PROGRAM");
	if (tool_make_tolerance("run", rtol, atol, &tol))
		return 2;
	hal_set_workers(threads); /* the model's convolutions; 0: one thread per core */
	if (tool_check_format("run", flags))
		return 2;
	uint8_t *buf;
	size_t len;
	if (tool_read_file(path, &buf, &len))
		return 1;
	enum ldr_err le = ldr_load(buf, len, flags, &prog);
	if (le != LDR_OK) {
		ldr_print_refusal(&prog, le, buf, len, flags, "run: program: ", "run: ", path,
				  tool_out_file, stdout);
		free(buf);
		return 1;
	}
	int rc = 1;
	if (tio_prepare(&x, &prog, req, nreq, to_stdout, NULL) == TIO_OK) {
		tio_set_tol(&x, &tol);
		/* device addresses of explicit grants: the program's BAR table (0 for raw streams) */
		for (unsigned i = 0; i < n && !prog.raw; i++)
			if (grants[i].bar < LDR_NBARS)
				grants[i].dva = prog.bars[grants[i].bar];
		struct app_session *session = session_create(plat_dma());
		if (!session) {
			printf("run: out-of-memory\n");
		} else {
			struct session_result res;
			const struct session_opts o = {.ldr_flags = flags, .grants = grants, .ngrants = n,
						    .use_defaults = n == 0, .trace = trace,
						    .out = to_stdout, .hooks = tio_hooks(&x)};
			int r = session_run(session, buf, len, &o, &res);
			session_destroy(session);
			if (r)
				printf("run: %s\n", session_result_name(&res));
			rc = tio_finish(&x, r == 0) != TIO_OK || r;
		}
	}
	tio_free(&x);
	free(buf);
	return rc;
}

TOOL_COMMAND(run, "run", cmd_run,
	     "run PROGRAM [--raw|--hwx] [--in NAME=FILE]... [--out NAME=FILE]...\n"
	     "    [--ref NAME=FILE]... [--rtol R] [--atol A] [--grant BAR:SIZE:r|w|rw[:inplace] ...]\n"
	     "    [--trace] [--threads N] [--ops-limit N]\n"
	     "    run a program on data: NAME a tensor inspect lists (or barN); FILE .npy\n"
	     "    (float16/int8/uint8; the logical shape, it with axes split, or 1-D) or raw\n"
	     "    buffer bytes; inputs not given are filled from a fixed seed; outputs written\n"
	     "    in their logical shape; --ref compares an output with a reference: within\n"
	     "    2^-10 x max(1, max |ref|), or with --rtol/--atol each value within\n"
	     "    atol + rtol x |ref| (numpy's allclose; e.g. --rtol 2e-2 --atol 1.2e-2);\n"
	     "    --ops-limit N: the engine model's compute limit, operations a task (inspect's\n"
	     "    'operations' summed over the TDs; default 2^40)");
