/* The host's end of the command link (link.h). */
#define _DEFAULT_SOURCE
#include "tools/link/link.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
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
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = 0;
	*port = colon + 1;
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

enum link_fail link_ask_resend(struct link *l, struct cmd *k, long resend_ms)
{
	k->h.tag = ++l->tag;
	size_t n = cmd_encode(l->rec, sizeof l->rec, k);
	size_t w = n ? frame_encode(l->rec, n, l->wire, sizeof l->wire) : 0;
	if (!w || send_all(l->fd, l->wire, w))
		return LINK_E_SEND;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint8_t in[4096];
	long sent_at = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms > LINK_ANSWER_MS)
			return LINK_E_TIMEOUT;
		if (resend_ms && ms - sent_at >= resend_ms) {
			if (send_all(l->fd, l->wire, w))
				return LINK_E_SEND;
			sent_at = ms;
		}
		struct pollfd p = {l->fd, POLLIN, 0};
		if (poll(&p, 1, 1000) <= 0)
			continue;
		ssize_t r = read(l->fd, in, sizeof in);
		if (r <= 0)
			return LINK_E_CLOSED;
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
		/* bytes after the answer stay in the receiver only when they were pushed; a
		 * synchronous client has nothing after its answer */
		if (done)
			return LINK_OK;
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

int link_write(struct link *l, uint64_t off, const uint8_t *b, uint64_t n)
{
	struct cmd k;
	for (uint64_t at = 0; at < n; at += CMD_MAX_XFER) {
		link_cmd_init(&k, CMD_WRITE, -1);
		k.off = off + at;
		k.xlen = (uint32_t)(n - at < CMD_MAX_XFER ? n - at : CMD_MAX_XFER);
		k.xdata = b + at;
		if (link_ask_ok(l, &k))
			return -1;
	}
	return 0;
}

int link_read(struct link *l, uint64_t off, uint8_t *b, uint64_t n)
{
	struct cmd k;
	for (uint64_t at = 0; at < n; at += CMD_MAX_XFER) {
		link_cmd_init(&k, CMD_READ, -1);
		k.off = off + at;
		k.xlen = (uint32_t)(n - at < CMD_MAX_XFER ? n - at : CMD_MAX_XFER);
		if (link_ask_ok(l, &k))
			return -1;
		if (l->ndata != k.xlen)
			return l->report(l, &k, LINK_E_SHORT);
		memcpy(b + at, l->data, k.xlen);
	}
	return 0;
}
