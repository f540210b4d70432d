/* The host's end of the command link (link.h). */
#define _DEFAULT_SOURCE
#include "tools/link/link.h"
#include "app/session.h"
#include "engine/engine.h"
#include "fw/ctrl/ctrl.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

int link_split_hostport(const char *hostport, char *host, size_t hlen, const char **port)
{
	const char *colon = strrchr(hostport, ':');
	if (!colon || colon == hostport || (size_t)(colon - hostport) >= hlen)
		return -1;
	/* a port number 1..65535 in decimal: getaddrinfo takes 99999 as 99999 mod 65536 (34463)
	 * and 65536 as 0, and a name (a service) is no port */
	const char *p = colon + 1;
	size_t n = strspn(p, "0123456789");
	if (!n || p[n] || n > 5 || atoi(p) < 1 || atoi(p) > 65535)
		return -1;
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = 0;
	*port = p;
	return 0;
}

int link_connect_tcp(const char *host, const char *port, unsigned tries, int *gai, int *err)
{
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	*err = 0;
	*gai = getaddrinfo(host, port, &hints, &res);
	if (*gai)
		return -1;
	for (unsigned t = 0; t < tries; t++) {
		if (t)
			usleep(100000);
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0) {
				*err = errno;
				continue;
			}
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
				freeaddrinfo(res);
				return fd;
			}
			*err = errno;
			close(fd);
		}
	}
	freeaddrinfo(res);
	return -1;
}

int link_open_serial(const char *dev)
{
	int fd = open(dev, O_RDWR | O_NOCTTY);
	if (fd < 0)
		return -1;
	struct termios t;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetispeed(&t, B115200);
		cfsetospeed(&t, B115200);
		t.c_cflag |= CLOCAL | CREAD;
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

void link_init(struct link *l, int fd, link_report_fn *report, void *ctx)
{
	l->fd = fd;
	l->in_pos = l->in_len = 0;
	l->up_bytes = l->down_bytes = l->up_ns = l->down_ns = 0;
	l->answer_ms = LINK_ANSWER_MS;
	l->report = report;
	l->ctx = ctx;
	frame_rx_init(&l->rx);
}

void link_cmd_init(struct cmd *k, uint32_t id, int32_t program)
{
	memset(k, 0, sizeof *k);
	k->h.id = id;
	k->h.program = program;
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

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The next completion frame into l->last (and a READ's bytes into l->data), whatever its tag;
 * bytes after it stay buffered for the next call. Waits until deadline_ms after t0; every
 * resend_ms (when not 0) the frame wire[0..w) is sent again. */
static enum link_fail next_completion(struct link *l, const struct timespec *t0, long deadline_ms,
				      long resend_ms, size_t w)
{
	long sent_at = 0;
	for (;;) {
		while (l->in_pos < l->in_len) {
			size_t used, plen;
			const uint8_t *pl;
			int got = frame_rx_push(&l->rx, l->in + l->in_pos, l->in_len - l->in_pos, &used,
						&pl, &plen);
			l->in_pos += used;
			struct cmd_completion c;
			if (!got || cmd_compl_decode(pl, plen, &c) != CMD_OK)
				continue;
			l->last = c;
			l->ndata = 0;
			if (plen > CMD_COMPL_BYTES && plen - CMD_COMPL_BYTES <= CMD_MAX_XFER) {
				l->ndata = (uint32_t)(plen - CMD_COMPL_BYTES);
				memcpy(l->data, pl + CMD_COMPL_BYTES, l->ndata);
			}
			return LINK_OK;
		}
		l->in_pos = l->in_len = 0;
		long ms = ms_since(t0);
		if (ms > deadline_ms)
			return LINK_E_TIMEOUT;
		if (resend_ms && ms - sent_at >= resend_ms) {
			if (send_all(l->fd, l->wire, w))
				return LINK_E_SEND;
			sent_at = ms;
		}
		struct pollfd p = {l->fd, POLLIN, 0};
		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t r = read(l->fd, l->in, sizeof l->in);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return LINK_E_CLOSED;
		l->in_len = (size_t)r;
	}
}

/* Encodes k with the next tag and sends it; its wire length, or 0. */
static size_t send_cmd(struct link *l, struct cmd *k)
{
	k->h.tag = ++l->tag;
	size_t n = cmd_encode(l->rec, sizeof l->rec, k);
	size_t w = n ? frame_encode(l->rec, n, l->wire, sizeof l->wire) : 0;
	if (!w || send_all(l->fd, l->wire, w))
		return 0;
	return w;
}

enum link_fail link_ask_resend(struct link *l, struct cmd *k, long resend_ms)
{
	size_t w = send_cmd(l, k);
	if (!w)
		return LINK_E_SEND;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		/* answers with other tags (a handshake sent twice, a client before) are skipped */
		enum link_fail f = next_completion(l, &t0, l->answer_ms, resend_ms, w);
		if (f != LINK_OK || l->last.tag == k->h.tag)
			return f;
	}
}

enum link_fail link_ask(struct link *l, struct cmd *k)
{
	return link_ask_resend(l, k, 0);
}

int link_ask_ok(struct link *l, struct cmd *k)
{
	enum link_fail f = link_ask(l, k);
	if (f == LINK_OK && l->last.err != CMD_OK)
		f = LINK_E_REFUSED;
	return f == LINK_OK ? 0 : l->report(l, k, f);
}

int link_program_info(struct link *l, int32_t id, unsigned bar, struct link_bar_info *out)
{
	struct cmd k;
	link_cmd_init(&k, CMD_PROGRAM_INFO, id);
	k.bar = bar;
	if (link_ask_ok(l, &k))
		return -1;
	out->used = l->last.data[0];
	out->fixed = l->last.data[1];
	out->access = l->last.data[2];
	out->need = l->last.data[3] | (uint64_t)l->last.data[4] << 32;
	return 0;
}

/* The pipelined transfer: records for [0, n) in CMD_MAX_XFER pieces, LINK_WINDOW in flight;
 * b the bytes to write (WRITE) or the place for the bytes read (READ). */
static int transfer(struct link *l, uint32_t id, uint64_t off, uint8_t *rb, const uint8_t *wb,
		    uint64_t n)
{
	struct cmd k;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	uint64_t sent = 0, done = 0;       /* bytes sent, bytes answered */
	uint32_t first = l->tag + 1;       /* the tag of the record for bytes [0, CMD_MAX_XFER) */
	const uint64_t nrec = (n + CMD_MAX_XFER - 1) / CMD_MAX_XFER;
	while (done < n) {
		while (sent < n && sent - done < (uint64_t)LINK_WINDOW * CMD_MAX_XFER) {
			link_cmd_init(&k, id, -1);
			k.off = off + sent;
			k.xlen = (uint32_t)(n - sent < CMD_MAX_XFER ? n - sent : CMD_MAX_XFER);
			k.xdata = wb ? wb + sent : NULL;
			if (!send_cmd(l, &k))
				return l->report(l, &k, LINK_E_SEND);
			sent += k.xlen;
		}
		/* the oldest record in flight: its tag, offset and length */
		link_cmd_init(&k, id, -1);
		k.h.tag = first + (uint32_t)(done / CMD_MAX_XFER);
		k.off = off + done;
		k.xlen = (uint32_t)(n - done < CMD_MAX_XFER ? n - done : CMD_MAX_XFER);
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		enum link_fail f;
		do /* answers to commands before this transfer (a handshake sent twice) are skipped */
			f = next_completion(l, &t0, l->answer_ms, 0, 0);
		while (f == LINK_OK && l->last.tag - first >= nrec);
		if (f != LINK_OK)
			return l->report(l, &k, f);
		if (l->last.tag != k.h.tag) {
			l->expect = k.h.tag;
			return l->report(l, &k, LINK_E_SEQUENCE);
		}
		if (l->last.err != CMD_OK)
			return l->report(l, &k, LINK_E_REFUSED);
		if (rb) {
			uint64_t at = l->last.data[0] | (uint64_t)l->last.data[1] << 32;
			if (l->ndata != k.xlen || l->last.data[2] != k.xlen || at != k.off)
				return l->report(l, &k, LINK_E_SHORT);
			memcpy(rb + done, l->data, k.xlen);
		}
		done += k.xlen;
	}
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	const uint64_t ns = (uint64_t)(end.tv_sec - start.tv_sec) * 1000000000u +
			    (uint64_t)end.tv_nsec - (uint64_t)start.tv_nsec;
	*(rb ? &l->down_bytes : &l->up_bytes) += n;
	*(rb ? &l->down_ns : &l->up_ns) += ns;
	return 0;
}

int link_write(struct link *l, uint64_t off, const uint8_t *b, uint64_t n)
{
	return transfer(l, CMD_WRITE, off, NULL, b, n);
}

int link_read(struct link *l, uint64_t off, uint8_t *b, uint64_t n)
{
	return transfer(l, CMD_READ, off, b, NULL, n);
}

/* A refusal's cause: the error of the layer its domain names (the same names and words the
 * local run prints), or NULL when there is none. */
static const struct err_desc *cause_err(uint32_t domain, uint32_t code)
{
	switch (domain) {
	case SUBQ_DOM_LOADER:
		return ldr_err((enum ldr_err)code);
	case SUBQ_DOM_POLICY:
		return pol_err((enum pol_err)code);
	case SUBQ_DOM_KUNIT:
		return ku_err((enum ku_err)code);
	case SUBQ_DOM_ENGINE:
		return eng_err((int)code);
	case SUBQ_DOM_SESSION:
		return session_err((enum session_err)code);
	case SUBQ_DOM_CTRL:
		return ctrl_err((enum ctrl_err)code);
	case SUBQ_DOM_TD:
		return td_err((enum td_err)code);
	default:
		return NULL;
	}
}

const char *link_cause_desc(uint32_t domain, uint32_t code)
{
	const struct err_desc *e = cause_err(domain, code);
	return e ? e->desc : "";
}

/* The name of a refusal's cause: the error of the layer its domain names (the same names the
 * local run prints), or "" when there is none. */
const char *link_cause_name(uint32_t domain, uint32_t code)
{
	switch (domain) {
	case SUBQ_DOM_LOADER:
		return ldr_err_name((enum ldr_err)code);
	case SUBQ_DOM_POLICY:
		return pol_err_name((enum pol_err)code);
	case SUBQ_DOM_KUNIT:
		return ku_err_name((enum ku_err)code);
	case SUBQ_DOM_ENGINE:
		return eng_err_name((int)code);
	case SUBQ_DOM_SESSION:
		return session_err_name((enum session_err)code);
	case SUBQ_DOM_CTRL:
		return ctrl_err_name((enum ctrl_err)code);
	case SUBQ_DOM_TD:
		return td_err_name((enum td_err)code);
	default:
		return "";
	}
}
