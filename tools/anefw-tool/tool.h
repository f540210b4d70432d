/*
 * anefw-tool: host tools built from the same fw/ sources as the firmware.
 * Each subcommand lives in its own file and registers itself with TOOL_COMMAND; main.c
 * dispatches on argv[1]. A command returns the process exit status (0 on success).
 */
#ifndef ANEFW_TOOL_H
#define ANEFW_TOOL_H

#include <stddef.h>
#include <stdint.h>

struct tool_cmd {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the subcommand name */
	const char *usage;                /* one or more lines, without the program name */
};

#define TOOL_COMMAND(id, name_, fn_, usage_)                                                    \
	static const struct tool_cmd tool_cmd_##id                                              \
		__attribute__((used, section("anefw_cmds"), aligned(8))) = {name_, fn_, usage_}

/* Helpers shared by subcommands. */
/* Reads a whole file; returns 0 and a malloc'd buffer, or -1 with a message printed. */
int tool_read_file(const char *path, uint8_t **buf, size_t *len);
/* Writes a whole file; returns 0, or -1 with a message printed. */
int tool_write_file(const char *path, const void *buf, size_t len);
/* The codec and LUT commands' files are raw little-endian values (docs/codecs.md), never .npy:
 * tool_read_raw is tool_read_file that refuses a file starting with the .npy magic (read whole,
 * its header would be taken as values), tool_write_raw tool_write_file that refuses a path
 * ending in .npy (raw bytes there would not load in numpy); each returns 0, or -1 with
 * "anefw-tool CMD: PATH: ..." printed, saying what was expected and the numpy call that converts. */
int tool_read_raw(const char *cmd, const char *path, uint8_t **buf, size_t *len);
int tool_write_raw(const char *cmd, const char *path, const void *buf, size_t len);
/* An outf sink (fw/common/outf.h) writing to the FILE * ctx (stdout, stderr). */
void tool_out_file(void *ctx, const char *s, size_t n);
/* Parses an unsigned integer (decimal or 0x hex) with range check; returns 0 or -1. */
int tool_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* --ops-limit N at argv[*i] (run, submit): the engine model's compute limit for this command's
 * submissions (app_backend_set_ops_limit), 1 .. 2^62; *i moves past N. Returns 0, or the usage
 * error's status. */
int tool_take_ops_limit(const char *cmd, int argc, char **argv, int *i);
/* An option that takes one value (--threads, --ops-limit, --rtol, --atol, --timeout, --wait),
 * given again: the same value again is taken, another is a usage error naming both (the last
 * was taken, silently). *given is the value given before (NULL: none), value this one; returns
 * 0 with *given = value, or 2 with the usage error printed. */
int tool_take_once(const char *cmd, const char *opt, const char **given, const char *value);
/* --timeout S at argv[*i] (remote, accel): the command link's wait for each answer, seconds
 * 1 .. LINK_ANSWER_MAX_S, into *seconds; *i moves past S. Returns 0, or the usage error's status. */
int tool_take_timeout(const char *cmd, int argc, char **argv, int *i, unsigned *seconds);
/* The program-format options every command that loads a program takes (run, submit, inspect,
 * validate, census, remote): --raw (a raw task stream) or --hwx (a container), LDR_F_RAW or
 * LDR_F_HWX into *flags. tool_take_format returns 1 when a is one of them, 0 otherwise;
 * tool_check_format returns 0, or the usage error's status when both were given. */
int tool_take_format(const char *a, unsigned *flags);
int tool_check_format(const char *cmd, unsigned flags);
/* Parses a grant BAR:SIZE:r|w|rw[:inplace] (dva and mapped 0); returns 0 or -1. */
struct subq_grant;
int tool_parse_grant(const char *s, struct subq_grant *g);
/* Prints "anefw-tool NAME: message" to stderr and returns 2 (bad usage) */
int tool_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* argv[*i] is --rtol or --atol (run, remote): its value into *rtol or *atol, *i past it;
 * returns 0, or 2 with the usage error printed when the value is missing. */
int tool_take_tolerance(const char *cmd, int argc, char **argv, int *i, const char **rtol,
			const char **atol);
/* *t from --rtol/--atol's values (app/tensorio.h's tio_tol_make; NULL: not given); returns 0,
 * or 2 with the usage error (tolerance-bad) printed. */
struct tio_tol;
int tool_make_tolerance(const char *cmd, const char *rtol, const char *atol, struct tio_tol *t);

#endif
