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
 * after; `shutdown` ends the service. Each answer is waited for 60 s (LINK_ANSWER_MS), or
 * --timeout SECONDS: a served program the firmware computes for longer (a job's ops_limit= above
 * its default) needs a longer wait.
 */
#define _DEFAULT_SOURCE
#include "app/tensorio.h"
#include "fw/cmd/cmd.h"
#include "fw/cmd/svc.h"
#include "fw/ctrl/ctrl.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "engine/engine.h"
#include "tools/anefw-tool/tool.h"
#include "tools/link/link.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HOST:PORT split; 0, or -1 (printed) when it is not that shape. */
static int split_hostport(const char *hostport, char *host, size_t hlen, const char **port)
{
	if (link_split_hostport(hostport, host, hlen, port)) {
		printf("remote: --connect %s: expected HOST:PORT with a port number 1 to 65535, e.g. "
		       "127.0.0.1:5555 (make serve's PORT)\n", hostport);
		return -1;
	}
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
	int gai, err;
	int fd = link_connect_tcp(host, port, wait_s * 10u + 1u, &gai, &err);
	if (fd >= 0)
		return fd;
	if (gai)
		printf("remote: --connect %s: %s\n", hostport, gai_strerror(gai));
	else if (err == ECONNREFUSED && wait_s)
		printf("remote: cannot connect to %s: %s (nothing listened there in the %u s of "
		       "--wait: start the service with make serve PORT=N, or wait longer)\n",
		       hostport, strerror(err), wait_s);
	else
		printf("remote: cannot connect to %s: %s%s\n", hostport, strerror(err),
		       err == ECONNREFUSED ? " (nothing listens there: start the service with make "
					     "serve PORT=N, or wait for it with --wait SECONDS)" : "");
	return -1;
}

/* "program-refused: bar-not-granted: nothing granted at that BAR index (refused)": the command's
 * error, its cause by name and in words (the name alone before: the words are the local run's) */
static void print_refusal(const char *what, const struct cmd_completion *c)
{
	const char *cause = link_cause_name(c->domain, c->code);
	const char *why = link_cause_desc(c->domain, c->code);
	printf("remote: %s: %s%s%s%s%s (%s)", what, cmd_err_name(c->err), *cause ? ": " : "", cause,
	       *cause && *why ? ": " : "", *cause ? why : "", cmd_status_name(c->status));
	if (c->id == CMD_LOAD && c->err == CMD_E_FIXED_INPUT)
		printf(": the program reads bar %d as kernels that no call can bind (not the weights, "
		       "not written by an earlier TD: docs/service.md, \"Fixed BARs\")", (int)c->where);
	if (c->id == CMD_LOAD && c->domain == SUBQ_DOM_SESSION && c->code == SESSION_E_ARENA) {
		const uint32_t *d = c->data + CMD_COMPL_FAULT;
		printf(": the program needs %llu bytes of device memory, a program slot of this "
		       "service holds %llu (docs/service.md, \"Limits\")",
		       (unsigned long long)(d[SVC_DETAIL_FOUND] |
					    (uint64_t)d[SVC_DETAIL_FOUND + 1] << 32),
		       (unsigned long long)(d[SVC_DETAIL_LIMIT] |
					    (uint64_t)d[SVC_DETAIL_LIMIT + 1] << 32));
	}
}

/* A command that got no answer: the link closed, the wait ran out (answer_ms: --timeout), or the
 * command could not be sent. */
static void no_answer(const struct link *l, const char *what, enum link_fail f)
{
	if (f == LINK_E_TIMEOUT)
		printf("remote: %s: no answer in %ld s (the service may still be working: --timeout "
		       "SECONDS waits longer)\n", what, l->answer_ms / 1000);
	else if (f == LINK_E_CLOSED)
		printf("remote: %s: the link closed before the answer came\n", what);
	else
		printf("remote: %s: the command could not be sent\n", what);
}

/* The link's report (link.h): the named error, the command named as the firmware names it. */
static int report(struct link *l, const struct cmd *k, enum link_fail f)
{
	const char *what = cmd_id_name(k->h.id);
	if (f == LINK_E_REFUSED) {
		print_refusal(what, &l->last);
		printf("\n");
	} else if (f == LINK_E_SHORT) {
		printf("remote: %s: expected %u bytes at window offset 0x%llx, found %u bytes at "
		       "0x%llx\n", what, k->xlen, (unsigned long long)k->off, l->ndata,
		       (unsigned long long)(l->last.data[0] | (uint64_t)l->last.data[1] << 32));
	} else if (f == LINK_E_SEQUENCE) {
		printf("remote: %s: answers out of order: expected tag %u, found %u (an answer was "
		       "lost on the line)\n", what, l->expect, l->last.tag);
	} else {
		no_answer(l, what, f);
	}
	return -1;
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

/* What tio_prepare says of the inputs ("filled from seed"), kept until the service has loaded the
 * program and every buffer fits: a run that cannot connect, or whose LOAD is refused, fills
 * nothing, and said so before it said it could not connect (and, until 2026-12-07, before the
 * LOAD's refusal). */
struct held {
	char *b;
	size_t n;
};

static void to_held(void *ctx, const char *s, size_t n)
{
	struct held *h = ctx;
	char *nb = realloc(h->b, h->n + n);
	if (!nb) { /* not kept: said at once */
		fwrite(s, 1, n, stdout);
		return;
	}
	memcpy(nb + h->n, s, n);
	h->b = nb;
	h->n += n;
}

static int remote_run(struct link *l, const uint8_t *buf, size_t len, unsigned flags, struct tio *x,
		      const struct rm_gen *gen, const struct held *held)
{
	struct cmd k;
	link_cmd_init(&k, CMD_WINDOW, -1);
	if (link_ask_ok(l, &k))
		return 1;
	const uint64_t wdev = l->last.data[0] | (uint64_t)l->last.data[1] << 32;
	const uint64_t wsize = l->last.data[2] | (uint64_t)l->last.data[3] << 32;
	/* the program at the start of the window, then one buffer per rebindable BAR */
	if (len > wsize) {
		printf("remote: the program (%zu bytes) is larger than the data window (%llu)\n", len,
		       (unsigned long long)wsize);
		return 1;
	}
	if (link_write(l, 0, buf, len))
		return 1;
	link_cmd_init(&k, CMD_LOAD, -1);
	k.off = wdev;
	k.len = len;
	k.flags = (flags & LDR_F_RAW) ? CMD_LOAD_F_RAW : 0;
	if (link_ask_ok(l, &k))
		return 1;
	const int32_t id = (int32_t)l->last.data[0];
	struct link_bar_info info;
	if (link_program_info(l, id, 0, &info))
		return 1;
	const uint32_t used = info.used, fixed = info.fixed;
	struct cmd call;
	link_cmd_init(&call, CMD_CALL_BARS, id);
	uint64_t at = (len + 4095) & ~4095ull, region[CMD_NBARS] = {0}, size[CMD_NBARS] = {0};
	int rc = 1;
	uint8_t *tmp = NULL;
	/* a tensor of the run on a BAR the service fixed at load cannot be bound: an input's bytes
	 * would be the firmware's, an output's never read back. Refused, never skipped. */
	for (unsigned i = 0; i < x->nt; i++) {
		const struct tns_tensor *t = &x->t[i];
		int asked = 0;
		for (unsigned j = 0; j < x->nio; j++)
			asked |= &x->t[x->io[j].ti] == t;
		if (t->bar < 0 || t->bar >= (int)CMD_NBARS || !(used >> t->bar & 1u) ||
		    !(fixed >> t->bar & 1u) || (t->role != TNS_INPUT && !asked))
			continue;
		printf("remote: fixed-bar: %s %s is on bar %d, which the served program fixed at load "
		       "(it reads it as kernels or weights): a call cannot bind it "
		       "(docs/service.md, \"Fixed BARs\")\n",
		       t->role == TNS_INPUT ? "input" : "tensor", t->name, t->bar);
		goto out;
	}
	/* every buffer placed and checked first: the inputs are filled only for a run that goes on */
	uint32_t access[CMD_NBARS] = {0}, placed = 0;
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		if (!(used >> b & 1u) || (fixed >> b & 1u))
			continue;
		if (link_program_info(l, id, b, &info))
			goto out;
		access[b] = info.access;
		uint64_t need = info.need;
		const struct tns_tensor *t = tensor_of_bar(x, b);
		if (t && t->bytes > need)
			need = t->bytes;
		if (need > wsize || at > wsize - need) {
			printf("remote: bar %u's buffer (%llu bytes) does not fit the data window: "
			       "%llu of its %llu bytes hold the program and the buffers before it "
			       "(docs/service.md, \"Limits\")\n", b, (unsigned long long)need,
			       (unsigned long long)at, (unsigned long long)wsize);
			goto out;
		}
		region[b] = at;
		size[b] = need;
		placed |= 1u << b;
		at = (at + need + 4095) & ~4095ull;
	}
	/* what was said of the inputs ("filled from seed"), now that they are filled */
	if (held->n)
		fwrite(held->b, 1, held->n, stdout);
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		if (!(placed >> b & 1u))
			continue;
		const uint32_t acc = access[b];
		const uint64_t need = size[b];
		const struct tns_tensor *t = tensor_of_bar(x, b);
		free(tmp);
		tmp = calloc(1, need ? (size_t)need : 1);
		if (!tmp) {
			printf("remote: out-of-memory\n");
			goto out;
		}
		/* inputs as the local run fills them; everything else zero, as there */
		if (t && t->role == TNS_INPUT) {
			const struct session_hooks *h = tio_hooks(x);
			struct subq_grant g = {.bar = b, .access = acc, .size = t->bytes};
			h->fill(h->ctx, &g, tmp, 0);
		}
		if (link_write(l, region[b], tmp, need))
			goto out;
		call.ov[call.nov++] = (struct cmd_ov){b, acc, wdev + region[b], need};
	}
	enum link_fail cf = link_ask(l, &call);
	if (cf != LINK_OK) {
		no_answer(l, "call", cf);
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
		if (!tmp || link_read(l, region[b], tmp, size[b]))
			goto out;
		const struct session_hooks *h = tio_hooks(x);
		struct subq_grant g = {.bar = b, .size = t->bytes};
		h->check(h->ctx, &g, tmp, 0);
	}
	rc = 0;
out:
	free(tmp);
	link_cmd_init(&k, CMD_UNLOAD, id);
	if (link_ask_ok(l, &k))
		rc = 1;
	return rc;
}

static int cmd_remote(int argc, char **argv)
{
	static struct tio_req req[TIO_MAX_IO];
	static struct ldr_program prog;
	static struct tio x;
	static struct link l;
	const char *tcp = NULL, *dev = NULL, *what = NULL, *path = NULL, *rtol = NULL, *atol = NULL;
	const char *wait_given = NULL;
	unsigned nreq = 0, flags = 0, wait_s = 0, stats = 0, timeout_s = 0; /* 0: the link's wait */
	struct tio_tol tol;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--connect") || !strcmp(a, "--serial")) {
			if (i + 1 >= argc)
				return tool_usage_error("remote", "%s needs an argument", a);
			if (tool_take_once("remote", a, a[2] == 'c' ? &tcp : &dev, argv[i + 1]))
				return 2;
			i++;
		} else if (!strcmp(a, "--wait")) {
			uint64_t v;
			if (i + 1 >= argc)
				return tool_usage_error("remote", "--wait needs SECONDS (0..600)");
			if (tool_parse_u64(argv[i + 1], 600, &v))
				return tool_usage_error("remote", "--wait needs SECONDS (0..600), got '%s'",
							argv[i + 1]);
			if (tool_take_once("remote", "--wait", &wait_given, argv[i + 1]))
				return 2;
			wait_s = (unsigned)v;
			i++;
		} else if (!strcmp(a, "--timeout")) {
			if (tool_take_timeout("remote", argc, argv, &i, &timeout_s))
				return 2;
		} else if (!strcmp(a, "--stats")) {
			stats = 1;
		} else if (tool_take_format(a, &flags)) {
			continue;
		} else if (!strcmp(a, "--rtol") || !strcmp(a, "--atol")) {
			if (tool_take_tolerance("remote", argc, argv, &i, &rtol, &atol))
				return 2;
		} else if (!strcmp(a, "--in") || !strcmp(a, "--out") || !strcmp(a, "--ref")) {
			int out = a[2] == 'o' ? TIO_OUT : a[2] == 'r' ? TIO_REF : TIO_IN;
			if (i + 1 >= argc)
				return tool_usage_error("remote", "%s needs NAME=FILE", a);
			if (nreq >= TIO_MAX_IO)
				return tool_usage_error("remote", "io-too-many: at most %u", TIO_MAX_IO);
			i++;
			if (tio_parse_req(argv[i], strlen(argv[i]), out, &req[nreq]) != TIO_OK) {
				char why[96];
				tio_req_why(argv[i], strlen(argv[i]), why, sizeof why);
				return tool_usage_error("remote", "io-bad-argument: '%s': %s (%s NAME=FILE)",
							argv[i], why, a);
			}
			nreq++;
		} else if (a[0] == '-' && a[1]) {
			return tool_usage_error("remote", "unknown option '%s'", a);
		} else if (!what) {
			what = a;
		} else if (!path) {
			path = a;
		} else {
			return tool_usage_error("remote", "too many arguments: '%s' after %s %s", a, what,
						path);
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
	if (!strcmp(what, "shutdown") && path) /* it read and loaded the file, then shut down */
		return tool_usage_error("remote", "shutdown takes no PROGRAM, got '%s'", path);
	if (tool_check_format("remote", flags))
		return 2;
	if (tool_make_tolerance("remote", rtol, atol, &tol))
		return 2;
	uint8_t *buf = NULL;
	size_t len = 0;
	int prepared = 0, rc = 1;
	struct held held = {0};
	if (path) {
		if (tool_read_file(path, &buf, &len))
			return 1;
		enum ldr_err le = ldr_load(buf, len, flags, &prog);
		if (le != LDR_OK) {
			ldr_print_refusal(&prog, le, buf, len, flags, "remote: program: ", "remote: ",
					  path, tool_out_file, stdout);
			free(buf);
			return 1;
		}
		prepared = 1;
		/* the files are read and checked before connecting; what is said of them waits */
		if (tio_prepare(&x, &prog, req, nreq, to_held, &held) != TIO_OK) {
			fwrite(held.b, 1, held.n, stdout);
			goto done;
		}
		x.out = to_stdout;
		x.ctx = NULL;
		tio_set_tol(&x, &tol);
	}
	int fd = tcp ? open_tcp(tcp, wait_s) : link_open_serial(dev);
	if (fd < 0) {
		if (dev)
			printf("remote: cannot open %s: %s\n", dev, strerror(errno));
		goto done;
	}
	link_init(&l, fd, report, NULL);
	if (timeout_s)
		l.answer_ms = (long)timeout_s * 1000;
	struct cmd k;
	link_cmd_init(&k, CMD_HELLO, -1);
	k.major = CMD_PROTO_MAJOR;
	k.minor = CMD_PROTO_MINOR;
	enum link_fail hf = link_ask_resend(&l, &k, LINK_HELLO_RESEND_MS);
	if (hf != LINK_OK) {
		no_answer(&l, "hello", hf);
		goto close;
	}
	if (l.last.err != CMD_OK) {
		printf("remote: hello: %s\n", cmd_err_name(l.last.err));
		goto close;
	}
	if (!strcmp(what, "shutdown")) {
		link_cmd_init(&k, CMD_SHUTDOWN, -1);
		rc = link_ask_ok(&l, &k) ? 1 : 0;
		if (!rc)
			printf("remote: the service is shut down\n");
		goto close;
	}
	rc = remote_run(&l, buf, len, flags, &x, prog.gen, &held);
	if (stats) /* MB/s: bytes per microsecond */
		printf("remote: moved %llu bytes up in %.2f s (%.2f MB/s), %llu bytes down in %.2f s "
		       "(%.2f MB/s)\n", (unsigned long long)l.up_bytes, l.up_ns / 1e9,
		       l.up_ns ? l.up_bytes * 1e3 / l.up_ns : 0.0, (unsigned long long)l.down_bytes,
		       l.down_ns / 1e9, l.down_ns ? l.down_bytes * 1e3 / l.down_ns : 0.0);
	if (tio_finish(&x, !rc) != TIO_OK)
		rc = 1;
close:
	close(l.fd);
done:
	if (prepared)
		tio_free(&x);
	free(held.b);
	free(buf);
	return rc;
}

TOOL_COMMAND(remote, "remote", cmd_remote,
	     "remote (--connect HOST:PORT [--wait S] | --serial DEV) run PROGRAM [--raw|--hwx]\n"
	     "    [--in NAME=FILE]... [--out NAME=FILE]... [--ref NAME=FILE]... [--rtol R]\n"
	     "    [--atol A] [--stats] [--timeout S]\n"
	     "  remote (--connect HOST:PORT [--wait S] | --serial DEV) shutdown [--timeout S]\n"
	     "    run a program on a firmware serving commands on its link (make serve): the\n"
	     "    tensors and files as run takes them (the grants, threads and compute limit are\n"
	     "    the firmware's own); shutdown ends the service. A closed port fails at\n"
	     "    once; --wait S tries again for S seconds (a service still starting); --stats\n"
	     "    prints the bytes moved each way and the rate; --timeout S waits up to S\n"
	     "    seconds for each answer (60 unless given)");
