/* One SUBMIT as an anefw submission (accel.h, docs/asahi.md "What a submit does"). */
#include "tools/accel/accel.h"
#include "app/session.h"
#include "fw/ctrl/ctrl.h"
#include "fw/loader/loader.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "tools/link/link.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int acc_log_level;

void acc_log(const char *fmt, ...)
{
	if (!acc_log_level)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "anefw-accel: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

int acc_backend_parse(const char *s, struct acc_backend *b)
{
	memset(b, 0, sizeof *b);
	if (!s || !*s || !strcmp(s, "local"))
		return 0;
	/* HOST:PORT with a port 1..65535, as anefw-tool accel --backend checks it (a port past
	 * 65535 went on to the connection and failed as "cannot connect") */
	char host[sizeof b->hostport];
	const char *port;
	if (strncmp(s, "tcp:", 4) || strlen(s + 4) >= sizeof b->hostport ||
	    link_split_hostport(s + 4, host, sizeof host, &port))
		return -1;
	b->tcp = 1;
	strcpy(b->hostport, s + 4);
	return 0;
}

int acc_timeout_parse(const char *s, struct acc_backend *b)
{
	if (!s || !*s)
		return 0;
	unsigned long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || p - s > 6)
			return -1;
		v = v * 10u + (unsigned)(*p - '0');
	}
	if (!v || v > LINK_ANSWER_MAX_S)
		return -1;
	b->timeout_s = (unsigned)v;
	return 0;
}

static int fail(char *why, size_t n, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return err;
}

/* An outf sink into the caller's why buffer: the texts the tool prints (ldr_print_refusal,
 * session_print_refusal) as one log line, each line break but the last "; ", cut at its end. */
struct why_buf {
	char *b;
	size_t n, cap;
};

static void to_why(void *ctx, const char *s, size_t n)
{
	struct why_buf *w = ctx;
	for (size_t i = 0; i < n && w->n + 1 < w->cap; i++) {
		if (s[i] != '\n') {
			w->b[w->n++] = s[i];
		} else if (w->n + 3 < w->cap) {
			w->b[w->n++] = ';';
			w->b[w->n++] = ' ';
		}
		w->b[w->n] = 0;
	}
}

static void why_end(struct why_buf *w)
{
	if (w->n >= 2 && !strcmp(w->b + w->n - 2, "; "))
		w->b[w->n -= 2] = 0;
}

/* The session's hooks: BO contents in before the run, written buffers back after it. */
struct bo_io {
	const struct acc_job *j;
};

static void fill_from_bo(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	const struct bo_io *io = ctx;
	if (is_weights || g->bar >= ACC_TILE_COUNT || !io->j->bar[g->bar].p || g->bar == ACC_CMD_BAR)
		return;
	const struct acc_mem *m = &io->j->bar[g->bar];
	memcpy(buf, m->p, (size_t)(g->size < m->size ? g->size : m->size));
}

static void back_to_bo(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	const struct bo_io *io = ctx;
	if (is_weights || !(g->access & POL_WRITE) || g->bar >= ACC_TILE_COUNT ||
	    !io->j->bar[g->bar].p || g->bar == ACC_CMD_BAR)
		return;
	const struct acc_mem *m = &io->j->bar[g->bar];
	memcpy(m->p, buf, (size_t)(g->size < m->size ? g->size : m->size));
}

static void to_stderr(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (acc_log_level >= 2)
		fwrite(s, 1, n, stderr);
}

static int run_local(const struct acc_job *j, const uint8_t *stream, size_t len,
		     const struct subq_grant *g, unsigned n, char *why, size_t whylen)
{
	struct app_session *s = session_create(plat_dma());
	if (!s)
		return fail(why, whylen, ENOMEM, "out-of-memory: no engine session");
	struct bo_io io = {j};
	const struct session_hooks hooks = {.fill = fill_from_bo, .check = back_to_bo, .ctx = &io};
	const struct session_opts o = {.ldr_flags = LDR_F_RAW, .grants = g, .ngrants = n,
				    .out = to_stderr, .hooks = &hooks};
	struct session_result res;
	int rc = session_run(s, stream, len, &o, &res);
	session_destroy(s);
	if (!rc)
		return 0;
	const char *name = session_result_name(&res);
	if (res.loaded && res.st.err != CTRL_OK) { /* as run and submit say it, with the TD */
		struct why_buf w = {why, 0, whylen};
		if (whylen)
			why[0] = 0;
		session_print_refusal(&res, "submit refused: ", to_why, &w);
		why_end(&w);
		return EINVAL;
	}
	if (!res.loaded)
		return fail(why, whylen, EINVAL, "submit refused: %s", name);
	if (res.serr == SESSION_E_NOMEM || res.serr == SESSION_E_ARENA)
		return fail(why, whylen, ENOMEM, "submit refused: %s", name);
	return fail(why, whylen, EIO, "submit failed: %s", name);
}

int acc_run(const struct acc_job *j, const struct acc_backend *be, char *why, size_t whylen)
{
	static struct ldr_program prog; /* about 40 KiB: not on the caller's stack */
	const struct acc_mem *cmd = &j->bar[ACC_CMD_BAR];
	if (!j->tsk_size || !j->td_count || !j->td_size)
		return fail(why, whylen, EINVAL,
			    "submit with no TDs: tsk_size 0x%llx, td_count %u, td_size 0x%x (none may be 0)",
			    (unsigned long long)j->tsk_size, j->td_count, j->td_size);
	if (!cmd->p)
		return fail(why, whylen, EINVAL, "submit without a command BO at BAR 0");
	if (j->bar[ACC_KRN_BAR].p)
		return fail(why, whylen, EINVAL,
			    "a BO at BAR 1: the weights BAR is derived from the command BO (tsk_size "
			    "rounded up to 16), the driver refuses a handle there");
	if (j->tsk_size >= cmd->size)
		return fail(why, whylen, EINVAL,
			    "tsk_size 0x%llx does not fit the command BO (0x%llx bytes)",
			    (unsigned long long)j->tsk_size, (unsigned long long)cmd->size);
	if (j->td_size > LDR_MAX_TD_BYTES || j->td_size % 4 || j->td_size > j->tsk_size)
		return fail(why, whylen, EINVAL,
			    "td_size 0x%x: expected a multiple of 4, at most 0x%x and at most tsk_size",
			    j->td_size, LDR_MAX_TD_BYTES);
	if (!j->btsp || j->td_size > j->btsp_size)
		return fail(why, whylen, EINVAL, "the bootstrap BO (0x%llx bytes) is smaller than td_size 0x%x",
			    (unsigned long long)j->btsp_size, j->td_size);
	if (j->td_count > LDR_MAX_TDS)
		return fail(why, whylen, EINVAL, "td_count %u: at most %u TDs", j->td_count, LDR_MAX_TDS);
	/* the stream: the TDs (the first from the bootstrap BO), then the weights from BAR 1 */
	const uint64_t kofs = (j->tsk_size + ACC_CMD_GRAN - 1) & ~(uint64_t)(ACC_CMD_GRAN - 1);
	if (cmd->size > 0xffffffffu)
		return fail(why, whylen, EINVAL, "command BO over 4 GiB");
	size_t len = (size_t)cmd->size;
	uint8_t *stream = malloc(len);
	if (!stream)
		return fail(why, whylen, ENOMEM, "out-of-memory: 0x%zx bytes for the TD stream", len);
	memcpy(stream, cmd->p, len);
	memcpy(stream, j->btsp, j->td_size);
	/* the engine fetches td_size bytes of TD 0: the loader sizes TD 0 so, or refuses */
	enum ldr_err le = j->td_size ? ldr_load_sized(stream, len, j->td_size, &prog)
				     : ldr_load(stream, len, LDR_F_RAW, &prog);
	int rc = 0;
	if (le != LDR_OK) {
		/* as every command says it (ldr_print_refusal): the name, its words, the offset in the
		 * command BO's stream, the values; then, for no program at all, what it is (the
		 * offset and that line were left out until 2026-12-07) */
		struct why_buf w = {why, 0, whylen};
		if (whylen)
			why[0] = 0;
		ldr_print_refusal(&prog, le, stream, len, LDR_F_RAW, "program rejected: ", "", NULL,
				  to_why, &w);
		why_end(&w);
		rc = EINVAL;
		goto out;
	}
	if (prog.ntds != j->td_count) {
		rc = fail(why, whylen, EINVAL,
			  "td-count: the submit says %u TDs, the chain in the command BO has %u",
			  j->td_count, prog.ntds);
		goto out;
	}
	/* the weights follow the last TD at the next 16 bytes (where the loader puts them); the
	 * driver's BAR 1 is tsk_size rounded up to 16: the two must agree */
	if (prog.weights_off != kofs) {
		rc = fail(why, whylen, EINVAL,
			  "the TDs end before 0x%x, where the weights would start, but tsk_size 0x%llx "
			  "puts BAR 1 at 0x%llx", prog.weights_off, (unsigned long long)j->tsk_size,
			  (unsigned long long)kofs);
		goto out;
	}
	/* roles from the TDs (the default grants), sizes from the BOs */
	struct subq_grant g[SESSION_MAX_GRANTS];
	struct ctrl_status st;
	unsigned n = 0;
	if (ctrl_default_grants(&prog, g, SESSION_MAX_GRANTS, &n, &st) != CTRL_OK) {
		struct why_buf w = {why, 0, whylen};
		if (whylen)
			why[0] = 0;
		ctrl_status_print(&st, "submit refused: ", to_why, &w);
		why_end(&w);
		rc = EINVAL;
		goto out;
	}
	uint8_t *mem[SESSION_MAX_GRANTS];
	for (unsigned i = 0; i < n; i++) {
		unsigned b = g[i].bar;
		const struct acc_mem *m = b < ACC_TILE_COUNT ? &j->bar[b] : NULL;
		mem[i] = NULL;
		if (ldr_weights_bar(&prog, b) || b == ACC_CMD_BAR)
			continue; /* the weights (BAR 1) and the TD area come from the command BO */
		if (!m || !m->p) {
			rc = fail(why, whylen, EINVAL,
				  "the TDs address BAR %u (0x%llx bytes, %s) but the submit gives it no BO",
				  b, (unsigned long long)g[i].size,
				  g[i].access == POL_RW ? "read and written"
				  : g[i].access & POL_WRITE ? "written" : "read");
			goto out;
		}
		if (g[i].size > m->size) {
			rc = fail(why, whylen, EINVAL,
				  "BO too small: the TDs address 0x%llx bytes of BAR %u, its BO has 0x%llx",
				  (unsigned long long)g[i].size, b, (unsigned long long)m->size);
			goto out;
		}
		g[i].size = m->size;
		mem[i] = m->p;
	}
	if (be && be->tcp)
		rc = acc_remote_run(be, stream, len, g, (unsigned)n, mem, why, whylen);
	else
		rc = run_local(j, stream, len, g, (unsigned)n, why, whylen);
out:
	free(stream);
	return rc;
}
