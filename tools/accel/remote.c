/*
 * The tcp backend: the submission runs on the firmware serving commands on its UART (`make
 * serve`, docs/service.md), over the framed records of fw/cmd, in the order `anefw-tool remote
 * run` uses: WINDOW, WRITE the stream, LOAD (raw), PROGRAM_INFO per BAR, WRITE every BO's
 * bytes the TDs address, CALL_BARS binding them, READ back every written one into its BO,
 * UNLOAD. One connection per submit. Nothing is printed: failures come back as a reason.
 */
#define _DEFAULT_SOURCE
#include "tools/accel/accel.h"
#include "fw/cmd/cmd.h"
#include "fw/policy/policy.h"
#include "fw/submit/queue.h"
#include "tools/link/link.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RL_CONNECT_TRIES 50 /* 50 x 100 ms */

/* The caller's buffer for the reason of a failure (the link's report context). */
struct why {
	char *s;
	size_t len;
};

static int rfail(struct link *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rfail(struct link *l, const char *fmt, ...)
{
	struct why *why = l->ctx;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why->s, why->len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The link's report (link.h): the reason, for the caller. */
static int report(struct link *l, const struct cmd *k, enum link_fail f)
{
	const char *what = cmd_id_name(k->h.id);
	switch (f) {
	case LINK_E_SEND:
		return rfail(l, "tcp backend: cannot send %s", what);
	case LINK_E_TIMEOUT:
		return rfail(l, "tcp backend: no answer to %s in %ld ms", what, l->answer_ms);
	case LINK_E_REFUSED: {
		/* the cause by name and in the local run's words, as anefw-tool remote says it */
		const char *cause = link_cause_name(l->last.domain, l->last.code);
		const char *why = link_cause_desc(l->last.domain, l->last.code);
		return rfail(l, "firmware refused %s: %s%s%s%s%s (%s)", what,
			     cmd_err_name(l->last.err), *cause ? ": " : "", cause,
			     *cause && *why ? ": " : "", *cause ? why : "",
			     cmd_status_name(l->last.status));
	}
	case LINK_E_SHORT:
		return rfail(l, "tcp backend: READ answered %u bytes at offset 0x%llx, expected %u at "
			     "0x%llx", l->ndata, (unsigned long long)(l->last.data[0] |
			     (uint64_t)l->last.data[1] << 32), k->xlen, (unsigned long long)k->off);
	case LINK_E_SEQUENCE:
		return rfail(l, "tcp backend: %s answers out of order: expected tag %u, found %u",
			     what, l->expect, l->last.tag);
	default:
		return rfail(l, "tcp backend: the link closed during %s", what);
	}
}

/* link_ask, its link failure reported */
static int ask(struct link *l, struct cmd *k, long resend_ms)
{
	enum link_fail f = link_ask_resend(l, k, resend_ms);
	return f == LINK_OK ? 0 : report(l, k, f);
}

/* The BO memory of BAR b (NULL: none). */
static uint8_t *bo_of(const struct subq_grant *g, unsigned n, uint8_t *const *mem, unsigned b,
		      uint64_t *size)
{
	for (unsigned i = 0; i < n; i++)
		if (g[i].bar == b && mem[i]) {
			*size = g[i].size;
			return mem[i];
		}
	return NULL;
}

static int run(struct link *l, const uint8_t *stream, size_t len, const struct subq_grant *g,
	       unsigned ng, uint8_t *const *mem)
{
	struct cmd k;
	link_cmd_init(&k, CMD_WINDOW, -1);
	if (link_ask_ok(l, &k))
		return -1;
	const uint64_t wdev = l->last.data[0] | (uint64_t)l->last.data[1] << 32;
	const uint64_t wsize = l->last.data[2] | (uint64_t)l->last.data[3] << 32;
	if (len > wsize)
		return rfail(l, "tcp backend: the stream (0x%zx bytes) is larger than the firmware's "
			     "data window (0x%llx)", len, (unsigned long long)wsize);
	if (link_write(l, 0, stream, len))
		return -1;
	link_cmd_init(&k, CMD_LOAD, -1);
	k.off = wdev;
	k.len = len;
	k.flags = CMD_LOAD_F_RAW;
	if (link_ask_ok(l, &k))
		return -1;
	const int32_t id = (int32_t)l->last.data[0];
	int rc = -1;
	struct link_bar_info info;
	if (link_program_info(l, id, 0, &info))
		goto out;
	const uint32_t used = info.used, fixed = info.fixed;
	struct cmd call;
	link_cmd_init(&call, CMD_CALL_BARS, id);
	uint64_t at = (len + 4095) & ~4095ull, region[CMD_NBARS] = {0}, size[CMD_NBARS] = {0};
	uint32_t acc[CMD_NBARS] = {0};
	/* a BO on a BAR the firmware fixed at load cannot be bound: its bytes would be the
	 * firmware's (reads) or never come back (writes). Refused, never skipped. */
	for (unsigned i = 0; i < ng; i++) {
		unsigned b = g[i].bar;
		if (mem[i] && b < CMD_NBARS && (used >> b & 1u) && (fixed >> b & 1u)) {
			rfail(l, "the firmware fixed BAR %u at load (it reads it as kernels or weights): "
			      "its BO cannot be bound to the call", b);
			goto out;
		}
	}
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		if (!(used >> b & 1u) || (fixed >> b & 1u))
			continue;
		if (link_program_info(l, id, b, &info))
			goto out;
		const uint32_t access = info.access;
		const uint64_t need = info.need;
		uint64_t bosize = 0;
		uint8_t *bo = bo_of(g, ng, mem, b, &bosize);
		if (!bo) {
			rfail(l, "the firmware binds BAR %u, which has no BO", b);
			goto out;
		}
		if (need > bosize) {
			rfail(l, "BO too small: the firmware needs 0x%llx bytes at BAR %u, its BO has "
			      "0x%llx", (unsigned long long)need, b, (unsigned long long)bosize);
			goto out;
		}
		if (need > wsize || at > wsize - need) {
			rfail(l, "tcp backend: the BOs' addressed bytes do not fit the firmware's data "
			      "window (0x%llx)", (unsigned long long)wsize);
			goto out;
		}
		/* the BO's bytes, as the local run fills its buffers from it */
		if (link_write(l, at, bo, need))
			goto out;
		region[b] = at;
		size[b] = need;
		acc[b] = access;
		call.ov[call.nov++] = (struct cmd_ov){b, access, wdev + at, need};
		at = (at + need + 4095) & ~4095ull;
	}
	if (link_ask_ok(l, &call))
		goto out;
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		uint64_t bosize = 0;
		uint8_t *bo = bo_of(g, ng, mem, b, &bosize);
		if (size[b] && bo && (acc[b] & CMD_ACC_WRITE) && link_read(l, region[b], bo, size[b]))
			goto out;
	}
	rc = 0;
out:
	link_cmd_init(&k, CMD_UNLOAD, id);
	if (ask(l, &k, 0) && !rc)
		rc = -1;
	return rc;
}

int acc_remote_run(const struct acc_backend *be, const uint8_t *stream, size_t len,
		   const struct subq_grant *g, unsigned ngrants, uint8_t *const *mem, char *why,
		   size_t whylen)
{
	struct link *l = calloc(1, sizeof *l);
	if (!l) {
		snprintf(why, whylen, "out-of-memory: tcp backend link");
		return ENOMEM;
	}
	const char *hostport = be->hostport;
	char host[256];
	const char *port;
	int fd = -1, gai, lerr;
	if (link_split_hostport(hostport, host, sizeof host, &port)) {
		/* acc_backend_parse refuses it first; said here too, by what is wrong */
		snprintf(why, whylen, "tcp backend: '%s': expected HOST:PORT, PORT a number 1 to "
			 "65535", hostport);
		free(l);
		return EINVAL;
	}
	fd = link_connect_tcp(host, port, RL_CONNECT_TRIES, &gai, &lerr);
	if (fd < 0) {
		snprintf(why, whylen, "tcp backend: cannot connect to %s: %s", hostport,
			 gai ? gai_strerror(gai) : strerror(lerr));
		free(l);
		return EIO;
	}
	struct why w = {why, whylen};
	link_init(l, fd, report, &w);
	if (be->timeout_s)
		l->answer_ms = (long)be->timeout_s * 1000;
	struct cmd k;
	link_cmd_init(&k, CMD_HELLO, -1);
	k.major = CMD_PROTO_MAJOR;
	k.minor = CMD_PROTO_MINOR;
	int rc = ask(l, &k, LINK_HELLO_RESEND_MS) ? -1 : run(l, stream, len, g, ngrants, mem);
	int err = 0;
	if (rc) {
		/* the firmware's refusals of the program are the caller's fault; link trouble is EIO */
		err = l->last.domain == SUBQ_DOM_LOADER || l->last.domain == SUBQ_DOM_POLICY ||
				      l->last.domain == SUBQ_DOM_CTRL || l->last.domain == SUBQ_DOM_KUNIT ||
				      l->last.domain == SUBQ_DOM_TD || l->last.err == CMD_E_FIXED_INPUT ||
				      !strncmp(why, "BO too small", 12) ||
				      !strncmp(why, "the firmware fixed BAR", 22)
			      ? EINVAL
			      : EIO;
	}
	close(l->fd);
	free(l);
	return err;
}
