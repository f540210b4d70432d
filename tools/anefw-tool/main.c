/* anefw-tool: dispatch to the subcommands registered with TOOL_COMMAND. */
#include "tool.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "fw/submit/queue.h"
#include "app/backend.h"
#include "app/tensorio.h"
#include "hal/hal.h"
#include "tools/link/link.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const struct tool_cmd __start_anefw_cmds[];
extern const struct tool_cmd __stop_anefw_cmds[];

void tool_out_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, (FILE *)ctx);
}

/* The most any file the tool reads may hold: over the largest a command takes (a program is
 * bounded by the session's 256 MiB arena, a codec file by 2^28 values: 512 MiB of fp16). A
 * device or FIFO that never ends (/dev/zero as the PROGRAM) was read until the kernel killed
 * the tool. */
#define TOOL_MAX_FILE (1ull << 30)

int tool_read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "anefw-tool: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > TOOL_MAX_FILE) {
		fclose(f);
		fprintf(stderr, "anefw-tool: cannot read %s: file-too-large: the file holds %llu bytes, "
			"over 1 GiB, the most the tool reads\n", path, (unsigned long long)st.st_size);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = malloc(cap);
	int why = b ? 0 : ENOMEM;
	while (b) {
		size_t got = fread(b + n, 1, cap - n, f);
		if (ferror(f))
			why = errno; /* a directory opens, and reads fail: EISDIR */
		n += got;
		if (n < cap)
			break;
		if (n > TOOL_MAX_FILE) {
			free(b);
			fclose(f);
			fprintf(stderr, "anefw-tool: cannot read %s: file-too-large: over 1 GiB read and "
				"no end (a device or a FIFO that does not end?), the most the tool reads "
				"is 1 GiB\n", path);
			return -1;
		}
		size_t want = cap * 2 > TOOL_MAX_FILE + 1 ? (size_t)TOOL_MAX_FILE + 1 : cap * 2;
		uint8_t *nb = realloc(b, want);
		if (!nb) {
			free(b);
			b = NULL;
			why = ENOMEM;
			break;
		}
		b = nb;
		cap = want;
	}
	int err = ferror(f);
	fclose(f);
	if (!b || err) {
		free(b);
		fprintf(stderr, "anefw-tool: cannot read %s: %s\n", path,
			why ? strerror(why) : "a read error");
		return -1;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Written to PATH.part and renamed to PATH when whole, as run writes its outputs: a write that
 * fails (a full disk, a file size limit) leaves no partial file at PATH, and a file already
 * there stays as it was. A device or a FIFO at PATH is written in place, as run's outputs
 * (app/tensorio.c write_file): the rename replaced it. A symbolic link at PATH is written
 * through (hal_file_resolve): the rename replaced the link. */
int tool_write_file(const char *given, const void *buf, size_t len)
{
	/* a symbolic link is written through, as cp and a shell's > do: PATH.part beside the file
	 * it names, renamed over that file (the rename replaced the link itself) */
	char path[PATH_MAX];
	if (hal_file_resolve(given, path, sizeof path)) {
		fprintf(stderr, "anefw-tool: cannot write %s: %s (nothing written there)\n", given,
			strerror(hal_file_open_errno()));
		return -1;
	}
	int special = hal_file_is_special(path);
	char *part = malloc(strlen(path) + sizeof ".part");
	if (!part) {
		fprintf(stderr, "anefw-tool: cannot write %s: out of memory\n", given);
		return -1;
	}
	strcpy(part, path);
	if (!special)
		strcat(part, ".part");
	FILE *f = fopen(part, "wb");
	if (!f) {
		int e = errno;
		if (strcmp(given, path))
			fprintf(stderr, "anefw-tool: cannot create %s (a symbolic link to %s): %s\n",
				given, path, strerror(e));
		else
			fprintf(stderr, "anefw-tool: cannot create %s: %s\n", given, strerror(e));
		free(part);
		return -1;
	}
	errno = 0;
	size_t put = fwrite(buf, 1, len, f);
	int e = errno;
	int bad = (put != len) | (fclose(f) != 0);
	if (!e)
		e = errno;
	if (bad || (!special && rename(part, path))) {
		if (!bad)
			e = errno;
		if (!special)
			remove(part);
		fprintf(stderr, "anefw-tool: cannot write %s: %s (nothing written there)\n", given,
			e ? strerror(e) : "a short write");
		free(part);
		return -1;
	}
	free(part);
	return 0;
}

int tool_read_raw(const char *cmd, const char *path, uint8_t **buf, size_t *len)
{
	static const uint8_t npy[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
	if (tool_read_file(path, buf, len))
		return -1;
	if (*len >= sizeof npy && !memcmp(*buf, npy, sizeof npy)) {
		fprintf(stderr, "anefw-tool %s: %s: a NumPy .npy file; the file wanted is raw "
			"little-endian values, no header (docs/codecs.md; numpy: "
			"np.load(NPY).tofile(RAW))\n", cmd, path);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}

int tool_write_raw(const char *cmd, const char *path, const void *buf, size_t len)
{
	size_t n = strlen(path);
	if (n >= 4 && !strcmp(path + n - 4, ".npy")) {
		fprintf(stderr, "anefw-tool %s: %s: an output named .npy; it is written as raw "
			"little-endian values, no header (docs/codecs.md; numpy: "
			"np.fromfile(RAW, dtype)): give another name\n", cmd, path);
		return -1;
	}
	return tool_write_file(path, buf, len);
}

int tool_take_ops_limit(const char *cmd, int argc, char **argv, int *i)
{
	uint64_t v;
	if (*i + 1 >= argc || tool_parse_u64(argv[*i + 1], APP_OPS_LIMIT_MAX, &v) || !v)
		return tool_usage_error(cmd, "--ops-limit wants 1..2^62 operations (fw/td td_ops: "
					     "multiply-accumulates and pooling taps a task; the host's "
					     "default 2^40), %s%s%s", *i + 1 < argc ? "got '" : "got nothing",
					*i + 1 < argc ? argv[*i + 1] : "", *i + 1 < argc ? "'" : "");
	static const char *given;
	if (tool_take_once(cmd, "--ops-limit", &given, argv[*i + 1]))
		return 2;
	++*i;
	app_backend_set_ops_limit(v);
	return 0;
}

int tool_take_once(const char *cmd, const char *opt, const char **given, const char *value)
{
	/* given twice with two values: which was meant is not known, so neither is taken (the
	 * last was, silently), as the firmware's keys given twice (app/job.c) */
	if (*given && strcmp(*given, value))
		return tool_usage_error(cmd, "%s given twice ('%s' and '%s'); it takes one value", opt,
					*given, value);
	*given = value;
	return 0;
}

int tool_take_timeout(const char *cmd, int argc, char **argv, int *i, unsigned *seconds)
{
	uint64_t v;
	if (*i + 1 >= argc)
		return tool_usage_error(cmd, "--timeout needs SECONDS (1..%u)", LINK_ANSWER_MAX_S);
	if (tool_parse_u64(argv[*i + 1], LINK_ANSWER_MAX_S, &v) || !v)
		return tool_usage_error(cmd, "--timeout needs SECONDS (1..%u), got '%s'",
					LINK_ANSWER_MAX_S, argv[*i + 1]);
	static const char *given; /* one command a process, as --ops-limit's */
	if (tool_take_once(cmd, "--timeout", &given, argv[*i + 1]))
		return 2;
	(*i)++;
	*seconds = (unsigned)v;
	return 0;
}

int tool_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int tool_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "anefw-tool %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 2;
}

int tool_take_tolerance(const char *cmd, int argc, char **argv, int *i, const char **rtol,
			const char **atol)
{
	const char *a = argv[*i];
	if (*i + 1 >= argc)
		return tool_usage_error(cmd, "%s needs a tolerance (a decimal 0 .. 1e6)", a);
	if (tool_take_once(cmd, a, a[2] == 'r' ? rtol : atol, argv[*i + 1]))
		return 2;
	++*i;
	return 0;
}

int tool_make_tolerance(const char *cmd, const char *rtol, const char *atol, struct tio_tol *t)
{
	if (tio_tol_make(rtol, atol, t) == TIO_OK)
		return 0;
	return tool_usage_error(cmd, "tolerance-bad: --rtol '%s', --atol '%s' (each a decimal 0 .. 1e6, e.g. 2e-2)",
				rtol ? rtol : "0", atol ? atol : "0");
}

int tool_take_format(const char *a, unsigned *flags)
{
	if (!strcmp(a, "--raw"))
		*flags |= LDR_F_RAW;
	else if (!strcmp(a, "--hwx"))
		*flags |= LDR_F_HWX;
	else
		return 0;
	return 1;
}

int tool_check_format(const char *cmd, unsigned flags)
{
	if ((flags & LDR_F_RAW) && (flags & LDR_F_HWX))
		return tool_usage_error(cmd, "--raw and --hwx exclude each other (--raw: a raw task "
					     "stream, --hwx: a .hwx container; neither: told by the magic)");
	return 0;
}

int tool_parse_grant(const char *s, struct subq_grant *g)
{
	char tmp[128];
	if (strlen(s) >= sizeof tmp)
		return -1;
	strcpy(tmp, s);
	char *f[4] = {0};
	unsigned nf = 0;
	for (char *p = tmp; nf < 4;) {
		f[nf++] = p;
		char *c = strchr(p, ':');
		if (!c)
			break;
		*c = 0;
		p = c + 1;
	}
	uint64_t bar, size;
	if (nf < 3 || tool_parse_u64(f[0], 255, &bar) || tool_parse_u64(f[1], UINT64_MAX, &size))
		return -1;
	memset(g, 0, sizeof *g);
	g->bar = (uint32_t)bar;
	g->size = size;
	if (!strcmp(f[2], "r"))
		g->access = POL_READ;
	else if (!strcmp(f[2], "w"))
		g->access = POL_WRITE;
	else if (!strcmp(f[2], "rw"))
		g->access = POL_RW;
	else
		return -1;
	if (nf == 4) {
		if (strcmp(f[3], "inplace"))
			return -1;
		g->flags = POL_FLAG_IN_PLACE;
	}
	return 0;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: anefw-tool COMMAND [ARGS...]\ncommands:\n");
	for (const struct tool_cmd *c = __start_anefw_cmds; c < __stop_anefw_cmds; c++)
		fprintf(to, "  %s\n", c->usage);
	fprintf(to, "anefw-tool COMMAND --help (or anefw-tool help COMMAND) shows one command's "
		    "help\n");
}

static const struct tool_cmd *find_cmd(const char *name)
{
	for (const struct tool_cmd *c = __start_anefw_cmds; c < __stop_anefw_cmds; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void cmd_help(const struct tool_cmd *c)
{
	printf("usage: anefw-tool %s\n", c->usage);
}

static int is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (is_help(argv[1]) || !strcmp(argv[1], "help")) {
		if (argc == 2) {
			usage(stdout);
			return 0;
		}
		const struct tool_cmd *c = find_cmd(argv[2]);
		if (!c || argc > 3) {
			fprintf(stderr, "anefw-tool help: %s '%s'\n", c ? "one command only, not" :
				"unknown command", argv[c ? 3 : 2]);
			usage(stderr);
			return 2;
		}
		cmd_help(c);
		return 0;
	}
	const struct tool_cmd *c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "anefw-tool: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	/* COMMAND --help (or -h), anywhere among its arguments: that command's help */
	for (int i = 2; i < argc; i++)
		if (is_help(argv[i])) {
			cmd_help(c);
			return 0;
		}
	return c->fn(argc - 1, argv + 1);
}
