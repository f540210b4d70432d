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
#include "fw/cmd/frame.h"
#include "fw/policy/policy.h"
#include "fw/submit/queue.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RL_ANSWER_MS 60000 /* the longest wait for one answer */
#define RL_CONNECT_TRIES 50 /* 50 x 100 ms */

struct rlink {
	int fd;
	uint32_t tag;
	struct frame_rx rx;
	uint8_t rec[CMD_MAX_RECORD];
	uint8_t wire[FRAME_MAX_WIRE];
	struct cmd_completion last;
	uint8_t data[CMD_MAX_XFER];
	uint32_t ndata;
	char *why;
	size_t whylen;
};

static int rfail(struct rlink *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rfail(struct rlink *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->why, l->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static int connect_tcp(const char *hostport)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host)
		return -1;
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = 0;
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, colon + 1, &hints, &res) || !res)
		return -1;
	int fd = -1;
	for (int t = 0; t < RL_CONNECT_TRIES && fd < 0; t++) {
		fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
		if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen)) {
			close(fd);
			fd = -1;
			usleep(100000);
		}
	}
	freeaddrinfo(res);
	return fd;
}

static int send_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Sends k and waits (bounded) for the completion with its tag; -1 when the link failed.
 * resend_ms: 0, or how often the same frame goes again while unanswered (the handshake only:
 * bytes that reach a board before its UART is set up are lost). */
static int ask_resend(struct rlink *l, struct cmd *k, long resend_ms)
{
	k->h.tag = ++l->tag;
	size_t n = cmd_encode(l->rec, sizeof l->rec, k);
	size_t w = n ? frame_encode(l->rec, n, l->wire, sizeof l->wire) : 0;
	if (!w || send_all(l->fd, l->wire, w))
		return rfail(l, "tcp backend: cannot send %s", cmd_id_name(k->h.id));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint8_t in[4096];
	long sent_at = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms > RL_ANSWER_MS)
			return rfail(l, "tcp backend: no answer to %s in %d ms", cmd_id_name(k->h.id),
				     RL_ANSWER_MS);
		if (resend_ms && ms - sent_at >= resend_ms) {
			if (send_all(l->fd, l->wire, w))
				return rfail(l, "tcp backend: cannot send %s", cmd_id_name(k->h.id));
			sent_at = ms;
		}
		struct pollfd p = {l->fd, POLLIN, 0};
		if (poll(&p, 1, 1000) <= 0)
			continue;
		ssize_t r = read(l->fd, in, sizeof in);
		if (r <= 0)
			return rfail(l, "tcp backend: the link closed during %s", cmd_id_name(k->h.id));
		size_t off = 0;
		int done = 0;
		while (off < (size_t)r) {
			size_t used, plen;
			const uint8_t *pl;
			int got = frame_rx_push(&l->rx, in + off, (size_t)r - off, &used, &pl, &plen);
			off += used;
			if (!got)
				break;
			struct cmd_completion c;
			if (cmd_compl_decode(pl, plen, &c) != CMD_OK || c.tag != k->h.tag)
				continue;
			l->last = c;
			l->ndata = 0;
			if (plen > CMD_COMPL_BYTES && plen - CMD_COMPL_BYTES <= CMD_MAX_XFER) {
				l->ndata = (uint32_t)(plen - CMD_COMPL_BYTES);
				memcpy(l->data, pl + CMD_COMPL_BYTES, l->ndata);
			}
			done = 1;
		}
		if (done)
			return 0;
	}
}

static int ask(struct rlink *l, struct cmd *k)
{
	return ask_resend(l, k, 0);
}

static void cmd_init(struct cmd *k, uint32_t id, int32_t program)
{
	memset(k, 0, sizeof *k);
	k->h.id = id;
	k->h.program = program;
}

static int ask_ok(struct rlink *l, struct cmd *k)
{
	if (ask(l, k))
		return -1;
	if (l->last.err != CMD_OK)
		return rfail(l, "firmware refused %s: %s (%s, domain %u code %u)", cmd_id_name(k->h.id),
			     cmd_err_name(l->last.err), cmd_status_name(l->last.status),
			     l->last.domain, l->last.code);
	return 0;
}

static int upload(struct rlink *l, uint64_t off, const uint8_t *b, uint64_t n)
{
	struct cmd k;
	for (uint64_t at = 0; at < n; at += CMD_MAX_XFER) {
		cmd_init(&k, CMD_WRITE, -1);
		k.off = off + at;
		k.xlen = (uint32_t)(n - at < CMD_MAX_XFER ? n - at : CMD_MAX_XFER);
		k.xdata = b + at;
		if (ask_ok(l, &k))
			return -1;
	}
	return 0;
}

static int download(struct rlink *l, uint64_t off, uint8_t *b, uint64_t n)
{
	struct cmd k;
	for (uint64_t at = 0; at < n; at += CMD_MAX_XFER) {
		cmd_init(&k, CMD_READ, -1);
		k.off = off + at;
		k.xlen = (uint32_t)(n - at < CMD_MAX_XFER ? n - at : CMD_MAX_XFER);
		if (ask_ok(l, &k))
			return -1;
		if (l->ndata != k.xlen)
			return rfail(l, "tcp backend: READ answered %u bytes of %u", l->ndata, k.xlen);
		memcpy(b + at, l->data, k.xlen);
	}
	return 0;
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

static int run(struct rlink *l, const uint8_t *stream, size_t len, const struct subq_grant *g,
	       unsigned ng, uint8_t *const *mem)
{
	struct cmd k;
	cmd_init(&k, CMD_WINDOW, -1);
	if (ask_ok(l, &k))
		return -1;
	const uint64_t wdev = l->last.data[0] | (uint64_t)l->last.data[1] << 32;
	const uint64_t wsize = l->last.data[2] | (uint64_t)l->last.data[3] << 32;
	if (len > wsize)
		return rfail(l, "tcp backend: the stream (0x%zx bytes) is larger than the firmware's "
			     "data window (0x%llx)", len, (unsigned long long)wsize);
	if (upload(l, 0, stream, len))
		return -1;
	cmd_init(&k, CMD_LOAD, -1);
	k.off = wdev;
	k.len = len;
	k.flags = CMD_LOAD_F_RAW;
	if (ask_ok(l, &k))
		return -1;
	const int32_t id = (int32_t)l->last.data[0];
	int rc = -1;
	cmd_init(&k, CMD_PROGRAM_INFO, id);
	if (ask_ok(l, &k))
		goto out;
	const uint32_t used = l->last.data[0], fixed = l->last.data[1];
	struct cmd call;
	cmd_init(&call, CMD_CALL_BARS, id);
	uint64_t at = (len + 4095) & ~4095ull, region[CMD_NBARS] = {0}, size[CMD_NBARS] = {0};
	uint32_t acc[CMD_NBARS] = {0};
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		if (!(used >> b & 1u) || (fixed >> b & 1u))
			continue;
		cmd_init(&k, CMD_PROGRAM_INFO, id);
		k.bar = b;
		if (ask_ok(l, &k))
			goto out;
		const uint32_t access = l->last.data[2];
		const uint64_t need = l->last.data[3] | (uint64_t)l->last.data[4] << 32;
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
		if (upload(l, at, bo, need))
			goto out;
		region[b] = at;
		size[b] = need;
		acc[b] = access;
		call.ov[call.nov++] = (struct cmd_ov){b, access, wdev + at, need};
		at = (at + need + 4095) & ~4095ull;
	}
	if (ask_ok(l, &call))
		goto out;
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		uint64_t bosize = 0;
		uint8_t *bo = bo_of(g, ng, mem, b, &bosize);
		if (size[b] && bo && (acc[b] & CMD_ACC_WRITE) && download(l, region[b], bo, size[b]))
			goto out;
	}
	rc = 0;
out:
	cmd_init(&k, CMD_UNLOAD, id);
	if (ask(l, &k) && !rc)
		rc = -1;
	return rc;
}

int acc_remote_run(const char *hostport, const uint8_t *stream, size_t len,
		   const struct subq_grant *g, unsigned ngrants, uint8_t *const *mem, char *why,
		   size_t whylen)
{
	struct rlink *l = calloc(1, sizeof *l);
	if (!l) {
		snprintf(why, whylen, "out-of-memory: tcp backend link");
		return ENOMEM;
	}
	l->why = why;
	l->whylen = whylen;
	frame_rx_init(&l->rx);
	l->fd = connect_tcp(hostport);
	if (l->fd < 0) {
		snprintf(why, whylen, "tcp backend: cannot connect to %s", hostport);
		free(l);
		return EIO;
	}
	struct cmd k;
	cmd_init(&k, CMD_HELLO, -1);
	k.major = CMD_PROTO_MAJOR;
	k.minor = CMD_PROTO_MINOR;
	int rc = ask_resend(l, &k, 1000) ? -1 : run(l, stream, len, g, ngrants, mem);
	int err = 0;
	if (rc) {
		/* the firmware's refusals of the program are the caller's fault; link trouble is EIO */
		err = l->last.domain == CMD_DOM_LOADER || l->last.domain == CMD_DOM_POLICY ||
				      l->last.domain == CMD_DOM_CTRL || l->last.domain == CMD_DOM_KUNIT ||
				      !strncmp(why, "BO too small", 12)
			      ? EINVAL
			      : EIO;
	}
	close(l->fd);
	free(l);
	return err;
}
