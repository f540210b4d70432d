/* anefw-tool inspect / validate: the program loader's view of a .hwx container or raw stream. */
#include "tools/anefw-tool/tool.h"
#include "fw/loader/loader.h"
#include "fw/tensors/tensors.h"
#include "app/session.h"
#include "app/tensorio.h"
#include "plat/plat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void to_stdout(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, (FILE *)ctx);
}

/* The JSON object ldr_print writes, collected so the tensors can join it. */
struct sbuf {
	char *b;
	size_t n, cap;
	int oom;
};

static void to_sbuf(void *ctx, const char *s, size_t n)
{
	struct sbuf *o = ctx;
	if (o->oom)
		return;
	if (o->n + n + 1 > o->cap) {
		size_t cap = (o->n + n + 1) * 2;
		char *nb = realloc(o->b, cap);
		if (!nb) {
			o->oom = 1;
			return;
		}
		o->b = nb;
		o->cap = cap;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
	o->b[o->n] = 0;
}

/* s[0..n) as the body of a JSON string: quotes and backslashes escaped, control characters as
 * \u00XX escapes. */
static void json_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
}

/* The tensors as a member of the JSON object; -1 when they cannot be derived, with the error's
 * name (tensors_error, a key for programs) and the refusal whole as inspect's text line says it
 * (tensors_error_text: the TD, the buffer and the values; the name alone before 2026-12-07). */
static int print_tensors_json(const struct ldr_program *p)
{
	static struct tns_tensor t[TNS_MAX];
	unsigned n;
	struct ctrl_status st;
	enum tns_err e = tns_describe(p, t, TNS_MAX, &n, &st);
	if (e != TNS_OK) {
		const char *why = e == TNS_E_GRANTS ? ctrl_status_name(&st) : tns_err_name(e);
		struct sbuf o = {0};
		tns_print_error(e, &st, "", to_sbuf, &o);
		printf(",\"tensors\":null,\"tensors_error\":\"%s\",\"tensors_error_text\":\"", why);
		if (o.oom || !o.b)
			json_text(why, strlen(why));
		else
			json_text(o.b, o.n && o.b[o.n - 1] == '\n' ? o.n - 1 : o.n);
		printf("\"");
		free(o.b);
		return -1;
	}
	printf(",\"tensors\":[");
	for (unsigned i = 0; i < n; i++) {
		/* names are printable ASCII without spaces (fw/tensors), escaped all the same */
		printf("%s{\"name\":\"", i ? "," : "");
		json_text(t[i].name, strlen(t[i].name));
		printf("\",\"bar\":%d,\"role\":\"%s\",\"dtype\":\"%s\",\"shape\":[", t[i].bar,
		       tns_role_name(t[i].role), tns_dtype_name(t[i].fmt));
		for (unsigned k = 0; k < t[i].ndim; k++)
			printf("%s%lu", k ? "," : "", (unsigned long)t[i].shape[k]);
		/* the axes the shape lists; bytes (= buffer_bytes) is the buffer (its default
		 * grant) in the engine's layout, row and plane padding included; logical_bytes
		 * the values alone; the layout's strides in bytes (depth: 0 without a D axis) */
		printf("],\"axes\":[");
		for (unsigned k = 0; k < t[i].ndim; k++)
			printf("%s\"%s\"", k ? "," : "", tns_axis_name(tns_axis(&t[i], k)));
		printf("],\"bytes\":%lu,\"buffer_bytes\":%lu,"
		       "\"logical_bytes\":%lu,\"layout\":{\"base\":%lu,\"row\":%lu,\"plane\":%lu,"
		       "\"depth\":%lu,\"group\":%lu,\"interleave\":%u}}",
		       (unsigned long)t[i].bytes, (unsigned long)t[i].bytes,
		       (unsigned long)(t[i].nelem * t[i].elem), (unsigned long)t[i].base,
		       (unsigned long)t[i].row, (unsigned long)t[i].plane, (unsigned long)t[i].depth,
		       (unsigned long)t[i].group, t[i].ilv ? (unsigned)t[i].ilv : 1u);
	}
	printf("]");
	return 0;
}

/* Parses FILE [--json | --brief] [--raw] [--hwx] (--json and --brief only for a listing:
 * inspect); returns 0 or a usage error status. */
static int args(const char *cmd, int argc, char **argv, int listing, const char **path,
		unsigned *flags, int *json, int *brief)
{
	*path = NULL;
	*flags = 0;
	*json = 0;
	*brief = 0;
	for (int i = 1; i < argc; i++) {
		if (listing && !strcmp(argv[i], "--json"))
			*json = 1;
		else if (listing && !strcmp(argv[i], "--brief"))
			*brief = 1;
		else if (tool_take_format(argv[i], flags))
			continue;
		else if (argv[i][0] == '-' && argv[i][1])
			return tool_usage_error(cmd, "unknown option '%s'", argv[i]);
		else if (*path)
			return tool_usage_error(cmd, "only one FILE: '%s' after '%s'", argv[i], *path);
		else
			*path = argv[i];
	}
	if (!*path)
		return tool_usage_error(cmd, "needs a FILE");
	if (tool_check_format(cmd, *flags))
		return 2;
	if (*json && *brief)
		return tool_usage_error(cmd, "--json and --brief exclude each other (the JSON lists every "
					     "register; a reader picks what it wants)");
	return 0;
}

static int load(const char *path, unsigned flags, uint8_t **buf, size_t *plen,
		struct ldr_program **p, enum ldr_err *err)
{
	size_t len;
	if (tool_read_file(path, buf, &len) != 0)
		return -1;
	*plen = len; /* the file's: p->len is the program's (an anec's is less) */
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
	int json, brief, rc = args("inspect", argc, argv, 1, &path, &flags, &json, &brief);
	if (rc)
		return rc;
	uint8_t *buf;
	size_t len;
	struct ldr_program *p;
	enum ldr_err e;
	if (load(path, flags, &buf, &len, &p, &e) != 0)
		return 1;
	if (e != LDR_OK) {
		fprintf(stderr, "anefw-tool inspect: %s: ", path);
		fflush(stderr);
		ldr_print_refusal(p, e, buf, len, flags, "", "anefw-tool inspect: ", path,
				  tool_out_file, stderr);
		rc = 1;
	} else if (json) {
		/* ldr_print's object, closed after the tensors */
		struct sbuf o = {0};
		ldr_print(p, LDR_P_JSON, to_sbuf, &o);
		if (o.oom || o.n < 2 || strcmp(o.b + o.n - 2, "}\n")) {
			fprintf(stderr, "anefw-tool inspect: out of memory\n");
			rc = 1;
		} else {
			fwrite(o.b, 1, o.n - 2, stdout);
			print_tensors_json(p);
			printf("}\n");
		}
		free(o.b);
	} else {
		ldr_print(p, brief ? LDR_P_BRIEF : 0, to_stdout, stdout);
		tns_print(p, to_stdout, stdout);
	}
	free(p);
	free(buf);
	return rc;
}

/* What run refuses after the loader and before the engine: the tensors (run's tio_prepare), the
 * default grants, their placement and the control path's plan (the session, plan_only). Until
 * 2026-12-07 validate stopped at the loader, so a program it called ok could be refused by run at
 * once. Prints ok, saying what was not checked, or the refusal: the tensors' in run's words (one
 * function, tio_print_underivable, with the TD), then the plan's when it is another; returns the
 * exit status. */
static int after_load(const struct ldr_program *p, const uint8_t *buf, size_t len, unsigned flags)
{
	static struct tns_tensor t[TNS_MAX];
	unsigned nt;
	struct ctrl_status st;
	enum tns_err te = tns_describe(p, t, TNS_MAX, &nt, &st);
	if (te != TNS_OK) /* as run says it, from the same function, with the TD */
		tio_print_underivable(te, &st, "", to_stdout, stdout);
	struct app_session *session = session_create(plat_dma());
	if (!session) {
		printf("validate: out of memory for the session\n");
		return 1;
	}
	struct session_result res;
	const struct session_opts o = {.ldr_flags = flags, .use_defaults = 1, .plan_only = 1};
	int r = session_run(session, buf, len, &o, &res);
	session_destroy(session);
	if (r && !res.loaded) /* the session's own load: what run would say */
		ldr_print_refusal(p, res.lerr, buf, len, flags, "", "", NULL, tool_out_file, stdout);
	else if (r && !(te == TNS_E_GRANTS && !res.serr && res.st.err == st.err && res.st.td == st.td))
		session_print_refusal(&res, "", to_stdout, stdout); /* unless said just above */
	if (r || te != TNS_OK)
		return 1;
	printf("ok: it loads, its tensors derive and the control path takes it with the default "
	       "grants; the engine model is not run, so its refusals (engine-fault) show only in "
	       "run and submit\n");
	return 0;
}

static int cmd_validate(int argc, char **argv)
{
	const char *path;
	unsigned flags;
	int json, brief, rc = args("validate", argc, argv, 0, &path, &flags, &json, &brief);
	if (rc)
		return rc;
	uint8_t *buf;
	size_t len;
	struct ldr_program *p;
	enum ldr_err e;
	if (load(path, flags, &buf, &len, &p, &e) != 0)
		return 1;
	if (e == LDR_OK) {
		rc = after_load(p, buf, len, flags);
	} else {
		ldr_print_refusal(p, e, buf, len, flags, "", "", path, tool_out_file, stdout);
		rc = 1;
	}
	free(p);
	free(buf);
	return rc;
}

TOOL_COMMAND(inspect, "inspect", cmd_inspect,
	     "inspect FILE [--json|--brief] [--raw|--hwx]  show a program: container, TDs, register\n"
	     "    writes (--brief: what each TD computes, its writes counted, not listed)");
TOOL_COMMAND(validate, "validate", cmd_validate,
	     "validate FILE [--raw|--hwx]   check a program as run does before the engine: it\n"
	     "    loads, its tensors derive, the control path takes it with the default grants;\n"
	     "    prints ok (and what it does not check) or the named error");
