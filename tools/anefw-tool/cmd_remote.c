/*
 * anefw-tool remote (--connect HOST:PORT | --serial DEV) run PROGRAM [--raw|--hwx]
 *                   [--in NAME=FILE]... [--out NAME=FILE]... [--ref NAME=FILE]...
 * anefw-tool remote (--connect HOST:PORT | --serial DEV) shutdown
 *
 * Drives a firmware serving commands on its UART (`make serve`, docs/service.md "Transport 2")
 * with framed records (fw/cmd/frame.h): the program is uploaded (WRITE) into the data window and
 * loaded (LOAD); every BAR a call may rebind gets a buffer in the window, inputs placed there by
 * the same code `anefw-tool run` uses (app/tensorio.c's hooks: the .npy or raw file, or the fixed
 * seed), outputs and intermediates zero; one CALL_BARS; the requested outputs are read back (READ)
 * and written by tio_finish, exactly as the local run writes them. The program is unloaded
 * after; `shutdown` ends the service.
 */
#define _DEFAULT_SOURCE
#include "app/tensorio.h"
#include "fw/cmd/cmd.h"
#include "fw/cmd/frame.h"
#include "fw/ctrl/ctrl.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "engine/engine.h"
#include "tools/anefw-tool/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define RM_ANSWER_MS 60000   /* the longest wait for one answer */
#define RM_HELLO_RESEND_MS 1000 /* the handshake is sent again until answered: bytes that reach
				   a board before its UART is set up are lost (the framing skips
				   what is left of them) */

struct link {
	int fd;
	uint32_t tag;
	struct frame_rx rx;
	uint8_t rec[CMD_MAX_RECORD];
	uint8_t wire[FRAME_MAX_WIRE];
	struct cmd_completion last;
	uint8_t data[CMD_MAX_XFER]; /* a READ's bytes */
	uint32_t ndata;
};

/* HOST:PORT split; 0, or -1 (printed) when it is not that shape. */
static int split_hostport(const char *hostport, char *host, size_t hlen, const char **port)
{
	const char *colon = strrchr(hostport, ':');
	if (!colon || colon == hostport || (size_t)(colon - hostport) >= hlen || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1)) {
		printf("remote: --connect %s: expected HOST:PORT with a port number, e.g. "
		       "127.0.0.1:5555 (make serve's PORT)\n", hostport);
		return -1;
	}
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = 0;
	*port = colon + 1;
	return 0;
}

/* Connects to HOST:PORT; a refused connection is tried again every 100 ms for wait_s seconds
 * (0: once: a closed port fails at once). -1, printed, when it fails. */
static int open_tcp(const char *hostport, unsigned wait_s)
{
	char host[256];
	const char *port;
	if (split_hostport(hostport, host, sizeof host, &port))
		return -1;
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int gai = getaddrinfo(host, port, &hints, &res);
	if (gai) {
		printf("remote: --connect %s: %s\n", hostport, gai_strerror(gai));
		return -1;
	}
	int err = 0;
	for (unsigned t = 0; t <= wait_s * 10u; t++) {
		if (t)
			usleep(100000);
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
			if (fd < 0) {
				err = errno;
				continue;
			}
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
				freeaddrinfo(res);
				return fd;
			}
			err = errno;
			close(fd);
		}
	}
	freeaddrinfo(res);
	printf("remote: cannot connect to %s: %s%s\n", hostport, strerror(err),
	       err == ECONNREFUSED ? " (nothing listens there: start the service with make serve "
				     "PORT=N, or wait for it with --wait SECONDS)" : "");
	return -1;
}

static int open_serial(const char *dev)
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

/* Sends a command and waits for the completion with its tag (other frames and any bytes that
 * are not frames are skipped). resend_ms: 0, or how often to send the same frame again while
 * no answer came (only for the handshake, which may be repeated). Returns 0 with l->last set,
 * or -1 (the link failed or no answer in RM_ANSWER_MS). */
static int ask_resend(struct link *l, struct cmd *k, long resend_ms)
{
	k->h.tag = ++l->tag;
	size_t n = cmd_encode(l->rec, sizeof l->rec, k);
	size_t w = n ? frame_encode(l->rec, n, l->wire, sizeof l->wire) : 0;
	if (!w || send_all(l->fd, l->wire, w))
		return -1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint8_t in[4096];
	long sent_at = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms > RM_ANSWER_MS)
			return -1;
		if (resend_ms && ms - sent_at >= resend_ms) {
			if (send_all(l->fd, l->wire, w))
				return -1;
			sent_at = ms;
		}
		struct pollfd p = {l->fd, POLLIN, 0};
		if (poll(&p, 1, 1000) <= 0)
			continue;
		ssize_t r = read(l->fd, in, sizeof in);
		if (r <= 0)
			return -1;
		size_t off = 0;
		int done = 0;
		while (off < (size_t)r) {
			size_t used;
			const uint8_t *pl;
			size_t plen;
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
			return 0;
	}
}

static int ask(struct link *l, struct cmd *k)
{
	return ask_resend(l, k, 0);
}

static void cmd_init(struct cmd *k, uint32_t id, int32_t program)
{
	memset(k, 0, sizeof *k);
	k->h.id = id;
	k->h.program = program;
}

/* The name of a refusal's cause: the error of the layer its domain names (the same names the
 * local run prints), or "" when there is none. */
static const char *cause_name(uint32_t domain, uint32_t code)
{
	switch (domain) {
	case CMD_DOM_LOADER:
		return ldr_err_name((enum ldr_err)code);
	case CMD_DOM_POLICY:
		return pol_err_name((enum pol_err)code);
	case CMD_DOM_KUNIT:
		return ku_err_name((enum ku_err)code);
	case CMD_DOM_ENGINE:
		return eng_err_name((int)code);
	case CMD_DOM_SESSION:
		return anes_err_name((enum anes_err)code);
	case CMD_DOM_CTRL:
		return ctrl_err_name((enum ctrl_err)code);
	default:
		return "";
	}
}

/* "program-refused: arena-too-large (refused)": the command's error, its cause by name */
static void print_refusal(const char *what, const struct cmd_completion *c)
{
	const char *cause = cause_name(c->domain, c->code);
	printf("remote: %s: %s%s%s (%s)", what, cmd_err_name(c->err), *cause ? ": " : "", cause,
	       cmd_status_name(c->status));
	if (c->domain == CMD_DOM_SESSION && c->code == ANES_E_ARENA)
		printf("; the service's limits are in docs/service.md");
}

/* Asks and requires CMD_OK; prints the named error otherwise. */
static int ask_ok(struct link *l, struct cmd *k, const char *what)
{
	if (ask(l, k)) {
		printf("remote: %s: no answer (link closed or timed out)\n", what);
		return -1;
	}
	if (l->last.err != CMD_OK) {
		print_refusal(what, &l->last);
		printf("\n");
		return -1;
	}
	return 0;
}

static int upload(struct link *l, uint64_t off, const uint8_t *b, uint64_t n)
{
	struct cmd k;
	for (uint64_t at = 0; at < n; at += CMD_MAX_XFER) {
		cmd_init(&k, CMD_WRITE, -1);
		k.off = off + at;
		k.xlen = (uint32_t)(n - at < CMD_MAX_XFER ? n - at : CMD_MAX_XFER);
		k.xdata = b + at;
		if (ask_ok(l, &k, "write"))
			return -1;
	}
	return 0;
}

static int download(struct link *l, uint64_t off, uint8_t *b, uint64_t n)
{
	struct cmd k;
	for (uint64_t at = 0; at < n; at += CMD_MAX_XFER) {
		cmd_init(&k, CMD_READ, -1);
		k.off = off + at;
		k.xlen = (uint32_t)(n - at < CMD_MAX_XFER ? n - at : CMD_MAX_XFER);
		if (ask_ok(l, &k, "read"))
			return -1;
		if (l->ndata != k.xlen) {
			printf("remote: read: %u bytes answered, %u asked\n", l->ndata, k.xlen);
			return -1;
		}
		memcpy(b + at, l->data, k.xlen);
	}
	return 0;
}

static const struct tns_tensor *tensor_of_bar(const struct tio *x, unsigned bar)
{
	for (unsigned i = 0; i < x->nt; i++)
		if (x->t[i].bar == (int)bar)
			return &x->t[i];
	return NULL;
}

static void to_stdout(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	fwrite(s, 1, n, stdout);
}

static int remote_run(struct link *l, const uint8_t *buf, size_t len, unsigned flags, struct tio *x,
		      const struct rm_gen *gen)
{
	struct cmd k;
	cmd_init(&k, CMD_WINDOW, -1);
	if (ask_ok(l, &k, "window"))
		return 1;
	const uint64_t wdev = l->last.data[0] | (uint64_t)l->last.data[1] << 32;
	const uint64_t wsize = l->last.data[2] | (uint64_t)l->last.data[3] << 32;
	/* the program at the start of the window, then one buffer per rebindable BAR */
	if (len > wsize) {
		printf("remote: the program (%zu bytes) is larger than the data window (%llu)\n", len,
		       (unsigned long long)wsize);
		return 1;
	}
	if (upload(l, 0, buf, len))
		return 1;
	cmd_init(&k, CMD_LOAD, -1);
	k.off = wdev;
	k.len = len;
	k.flags = (flags & LDR_F_RAW) ? CMD_LOAD_F_RAW : 0;
	if (ask_ok(l, &k, "load"))
		return 1;
	const int32_t id = (int32_t)l->last.data[0];
	cmd_init(&k, CMD_PROGRAM_INFO, id);
	if (ask_ok(l, &k, "program-info"))
		return 1;
	const uint32_t used = l->last.data[0], fixed = l->last.data[1];
	struct cmd call;
	cmd_init(&call, CMD_CALL_BARS, id);
	uint64_t at = (len + 4095) & ~4095ull, region[CMD_NBARS] = {0}, size[CMD_NBARS] = {0};
	int rc = 1;
	uint8_t *tmp = NULL;
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		if (!(used >> b & 1u) || (fixed >> b & 1u))
			continue;
		cmd_init(&k, CMD_PROGRAM_INFO, id);
		k.bar = b;
		if (ask_ok(l, &k, "program-info"))
			goto out;
		const uint32_t access = l->last.data[2];
		uint64_t need = l->last.data[3] | (uint64_t)l->last.data[4] << 32;
		const struct tns_tensor *t = tensor_of_bar(x, b);
		if (t && t->bytes > need)
			need = t->bytes;
		if (need > wsize || at > wsize - need) {
			printf("remote: the buffers do not fit the data window (%llu bytes)\n",
			       (unsigned long long)wsize);
			goto out;
		}
		free(tmp);
		tmp = calloc(1, need ? (size_t)need : 1);
		if (!tmp) {
			printf("remote: out-of-memory\n");
			goto out;
		}
		/* inputs as the local run fills them; everything else zero, as there */
		if (t && t->role == TNS_INPUT) {
			const struct anes_hooks *h = tio_hooks(x);
			struct subq_grant g = {.bar = b, .access = access, .size = t->bytes};
			h->fill(h->ctx, &g, tmp, 0);
		}
		if (upload(l, at, tmp, need))
			goto out;
		region[b] = at;
		size[b] = need;
		call.ov[call.nov++] = (struct cmd_ov){b, access, wdev + at, need};
		at = (at + need + 4095) & ~4095ull;
	}
	if (ask(l, &call)) {
		printf("remote: call: no answer\n");
		goto out;
	}
	if (l->last.err != CMD_OK) {
		print_refusal("call", &l->last);
		printf(" at %d\n", (int)l->last.where);
		if (l->last.err == CMD_E_ENGINE) {
			/* the engine's fault, as the local run prints it (engine.h) */
			struct eng_fault f;
			char text[ENG_FAULT_TEXT_MAX];
			int err = (int)l->last.code;
			eng_fault_unpack(l->last.data + CMD_COMPL_FAULT, err, &f);
			eng_fault_format(&f, gen, text, sizeof text);
			printf("remote: engine failed: %s: %s\n", eng_err_name(err), text);
		}
		goto out;
	}
	/* the outputs asked for, through the local run's capture hook */
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		const struct tns_tensor *t = tensor_of_bar(x, b);
		if (!size[b] || !t)
			continue;
		int wanted = 0;
		for (unsigned i = 0; i < x->nio; i++)
			wanted |= x->io[i].out != TIO_IN && &x->t[x->io[i].ti] == t;
		if (!wanted)
			continue;
		free(tmp);
		tmp = malloc((size_t)size[b]);
		if (!tmp || download(l, region[b], tmp, size[b]))
			goto out;
		const struct anes_hooks *h = tio_hooks(x);
		struct subq_grant g = {.bar = b, .size = t->bytes};
		h->check(h->ctx, &g, tmp, 0);
	}
	rc = 0;
out:
	free(tmp);
	cmd_init(&k, CMD_UNLOAD, id);
	if (ask_ok(l, &k, "unload"))
		rc = 1;
	return rc;
}

static int cmd_remote(int argc, char **argv)
{
	static struct tio_req req[TIO_MAX_IO];
	static struct ldr_program prog;
	static struct tio x;
	static struct link l;
	const char *tcp = NULL, *dev = NULL, *what = NULL, *path = NULL;
	unsigned nreq = 0, flags = 0, wait_s = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--connect") || !strcmp(a, "--serial")) {
			if (i + 1 >= argc)
				return tool_usage_error("remote", "%s needs an argument", a);
			*(a[2] == 'c' ? &tcp : &dev) = argv[++i];
		} else if (!strcmp(a, "--wait")) {
			uint64_t v;
			if (i + 1 >= argc || tool_parse_u64(argv[i + 1], 600, &v))
				return tool_usage_error("remote", "--wait needs SECONDS (0..600)");
			wait_s = (unsigned)v;
			i++;
		} else if (!strcmp(a, "--raw")) {
			flags |= LDR_F_RAW;
		} else if (!strcmp(a, "--hwx")) {
			flags |= LDR_F_HWX;
		} else if (!strcmp(a, "--in") || !strcmp(a, "--out") || !strcmp(a, "--ref")) {
			int out = a[2] == 'o' ? TIO_OUT : a[2] == 'r' ? TIO_REF : TIO_IN;
			if (i + 1 >= argc)
				return tool_usage_error("remote", "%s needs NAME=FILE", a);
			if (nreq >= TIO_MAX_IO)
				return tool_usage_error("remote", "io-too-many: at most %u", TIO_MAX_IO);
			i++;
			if (tio_parse_req(argv[i], strlen(argv[i]), out, &req[nreq]) != TIO_OK)
				return tool_usage_error("remote", "io-bad-argument: '%s'", argv[i]);
			nreq++;
		} else if (a[0] == '-' && a[1]) {
			return tool_usage_error("remote", "unknown option '%s'", a);
		} else if (!what) {
			what = a;
		} else if (!path) {
			path = a;
		} else {
			return tool_usage_error("remote", "too many arguments");
		}
	}
	if (!!tcp == !!dev)
		return tool_usage_error("remote", "needs one of --connect HOST:PORT, --serial DEV");
	char host_check[256];
	const char *port_check;
	if (tcp && split_hostport(tcp, host_check, sizeof host_check, &port_check))
		return 2;
	if (!what || (strcmp(what, "run") && strcmp(what, "shutdown")))
		return tool_usage_error("remote", "needs run PROGRAM or shutdown");
	if (!strcmp(what, "run") && !path)
		return tool_usage_error("remote", "run needs PROGRAM");
	if ((flags & LDR_F_RAW) && (flags & LDR_F_HWX))
		return tool_usage_error("remote", "--raw and --hwx exclude each other");
	uint8_t *buf = NULL;
	size_t len = 0;
	int prepared = 0, rc = 1;
	if (path) {
		if (tool_read_file(path, &buf, &len))
			return 1;
		enum ldr_err le = ldr_load(buf, len, flags, &prog);
		if (le != LDR_OK) {
			printf("remote: program: %s (%s)\n", ldr_err_name(le), ldr_err_text(le));
			const char *no = ldr_not_a_program(buf, len, flags, &prog, le);
			if (no)
				printf("remote: %s: %s\n", path, no);
			free(buf);
			return 1;
		}
		prepared = 1;
		if (tio_prepare(&x, &prog, req, nreq, to_stdout, NULL) != TIO_OK)
			goto done;
	}
	l.fd = tcp ? open_tcp(tcp, wait_s) : open_serial(dev);
	if (l.fd < 0) {
		if (dev)
			printf("remote: cannot open %s: %s\n", dev, strerror(errno));
		goto done;
	}
	frame_rx_init(&l.rx);
	struct cmd k;
	cmd_init(&k, CMD_HELLO, -1);
	k.major = CMD_PROTO_MAJOR;
	k.minor = CMD_PROTO_MINOR;
	if (ask_resend(&l, &k, RM_HELLO_RESEND_MS) || l.last.err != CMD_OK) {
		printf("remote: hello: %s\n", l.last.err != CMD_OK ? cmd_err_name(l.last.err)
								  : "no answer (link closed or timed out)");
		goto close;
	}
	if (!strcmp(what, "shutdown")) {
		cmd_init(&k, CMD_SHUTDOWN, -1);
		rc = ask_ok(&l, &k, "shutdown") ? 1 : 0;
		if (!rc)
			printf("remote: the service is shut down\n");
		goto close;
	}
	rc = remote_run(&l, buf, len, flags, &x, prog.gen);
	if (tio_finish(&x, !rc) != TIO_OK)
		rc = 1;
close:
	close(l.fd);
done:
	if (prepared)
		tio_free(&x);
	free(buf);
	return rc;
}

TOOL_COMMAND(remote, "remote", cmd_remote,
	     "remote (--connect HOST:PORT [--wait S] | --serial DEV) run PROGRAM [--raw|--hwx]\n"
	     "    [--in NAME=FILE]... [--out NAME=FILE]... [--ref NAME=FILE]...\n"
	     "  remote (--connect HOST:PORT [--wait S] | --serial DEV) shutdown\n"
	     "    run a program on a firmware serving commands on its UART (make serve): the same\n"
	     "    arguments and files as run; shutdown ends the service. A closed port fails at\n"
	     "    once; --wait S tries again for S seconds (a service still starting)");
