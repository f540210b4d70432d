/*
 * The firmware's main job, the application that wires every layer together: a banner (board,
 * exception level, memory map, C library) and then the pipeline: program=PATH is read over
 * semihosting, loaded, queued as one submission on the submission queue (fw/submit), run through
 * the control path on the engine (app/session), and its completion printed (per TD a summary;
 * trace=1: every register write and move too). in:NAME=PATH and out:NAME=PATH read the program's
 * input tensors from and write its outputs to host files over semihosting, with the code
 * `anefw-tool run` uses (app/tensorio.c), so both write the same bytes; ref:NAME=PATH compares an
 * output with a reference file, one line each, and a mismatch makes the exit status 1.
 */
#include "app/job.h"
#include "app/backend.h"
#include "app/serve.h"
#include "app/session.h"
#include "app/tensorio.h"
#include "drivers/dma/dma.h"
#include "fw/common/err.h"
#include "fw/loader/loader.h"
#include "fw/submit/queue.h"
#include "fw/tensors/tensors.h"
#include "hal/hal.h"
#include "plat/plat.h"

#include <stdarg.h>
#include <stdio.h>
#include <malloc.h> /* memalign (newlib has no posix_memalign) */
#include <stdlib.h>
#include <string.h>

static void print_region(const struct hal_region *r)
{
	printf("  %-14s 0x%08lx-0x%08lx %c%c%c%s\n", r->name, (unsigned long)r->base,
	       (unsigned long)(r->base + r->size), (r->attrs & HAL_REGION_R) ? 'r' : '-',
	       (r->attrs & HAL_REGION_W) ? 'w' : '-', (r->attrs & HAL_REGION_X) ? 'x' : '-',
	       (r->attrs & HAL_REGION_DEVICE) ? " device" : "");
}

/* The board; with trace=1 its memory map too. */
static void banner(unsigned trace)
{
	const struct hal_platform *p = hal_platform();
	printf("anefw: open coprocessor firmware for ANE-class engines\n");
	printf("board: %s (%s, %u core%s)\n", p->board, p->cpu, p->ncores, p->ncores == 1 ? "" : "s");
	printf("exception level: EL%u (entered at EL%u)\n", hal_current_el(), hal_entry_el());
	printf("c library: %s\n", p->libc);
	if (!trace)
		return;
	printf("memory map:\n");
	for (unsigned i = 0; i < p->nregions; i++)
		print_region(&p->regions[i]);
	unsigned n;
	const struct hal_region *img = hal_image_regions(&n);
	for (unsigned i = 0; i < n; i++)
		print_region(&img[i]);
}

/* The next space-separated word of a command line at *s: its start, its length in *n (0 at the
 * end); *s moves past it. */
static const char *cmdline_word(const char **s, size_t *n)
{
	const char *w = *s;
	while (*w == ' ')
		w++;
	const char *e = w;
	while (*e && *e != ' ')
		e++;
	*s = e;
	*n = (size_t)(e - w);
	return w;
}

/* Value of "key=" in a "key=value ..." command line, copied into buf; 0, or -1 when absent, -2
 * when the value does not fit buf. */
static int cmdline_arg(const char *cmdline, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key), n;
	for (const char *s = cmdline; s && *s;) {
		const char *w = cmdline_word(&s, &n);
		if (n > kl && !strncmp(w, key, kl) && w[kl] == '=') {
			n -= kl + 1;
			if (n >= len)
				return -2;
			memcpy(buf, w + kl + 1, n);
			buf[n] = 0;
			return 0;
		}
	}
	return -1;
}

/* The run's verdict, the last line ("anefw: done: ok ..." or "anefw: done: FAILED: ..."): the
 * first failure, said again at the end so it is not buried in the summary. */
static char verdict[200];

static void fail_verdict(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_verdict(const char *fmt, ...)
{
	if (verdict[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(verdict, sizeof verdict, fmt, ap);
	va_end(ap);
}

/* A failure's line, printed where it happens and kept as the verdict (the first one). */
static void fail_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail_line(const char *fmt, ...)
{
	char line[sizeof verdict];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	printf("%s\n", line);
	fail_verdict("%s", line);
}

/* The command line's keys: KEY=VALUE words, and in:/out:/ref: words (cmdline_io). */
static const char *const cmdline_keys[] = {"program", "trace", "fault", "serve", "threads", "rtol",
					   "atol", "ops_limit"};
#define CMDLINE_KEYS_HELP                                                                      \
	"program=PATH in:NAME=PATH out:NAME=PATH ref:NAME=PATH rtol=R atol=A trace=1 fault=KIND " \
	"serve=1 threads=N ops_limit=N"

/* Every word of the command line is a known KEY=VALUE or an in:/out:/ref:; -1 (printed, naming
 * the word and the keys that exist) on the first that is not: a typo is an error, not ignored. */
static int cmdline_check(const char *cmdline)
{
	for (const char *s = cmdline; s && *s;) {
		size_t n;
		const char *w = cmdline_word(&s, &n);
		if (!n || (n >= 3 && !strncmp(w, "in:", 3)) || (n >= 4 && !strncmp(w, "out:", 4)) ||
		    (n >= 4 && !strncmp(w, "ref:", 4)))
			continue;
		const char *eq = memchr(w, '=', n);
		size_t kl = eq ? (size_t)(eq - w) : n;
		int known = 0;
		for (unsigned k = 0; eq && k < sizeof cmdline_keys / sizeof *cmdline_keys; k++)
			known |= strlen(cmdline_keys[k]) == kl && !strncmp(w, cmdline_keys[k], kl);
		if (!known) {
			printf("error: %s '%.*s' on the command line; the keys are: %s\n",
			       eq ? "unknown key" : "not KEY=VALUE:", (int)kl, w, CMDLINE_KEYS_HELP);
			fail_verdict("%s '%.*s' on the command line (the keys: %s)",
				     eq ? "unknown key" : "not KEY=VALUE:", (int)kl, w,
				     CMDLINE_KEYS_HELP);
			return -1;
		}
		/* a key given twice with two values (program=a program=b ran a and said nothing of
		 * b): which one was meant is not known, so neither is taken; the same word again
		 * is no question */
		for (const char *t = s; *t;) {
			size_t m;
			const char *v = cmdline_word(&t, &m);
			if (m > kl && v[kl] == '=' && !strncmp(v, w, kl) && (m != n || strncmp(v, w, n))) {
				printf("error: %.*s= given twice on the command line ('%.*s' and '%.*s'); "
				       "each key but in:, out: and ref: takes one value\n", (int)kl, w,
				       (int)n, w, (int)m, v);
				fail_verdict("%.*s= given twice on the command line", (int)kl, w);
				return -1;
			}
		}
	}
	return 0;
}

static void to_console(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	fwrite(s, 1, n, stdout);
}

#define JOB_MAX_PROGRAM (16u << 20)

/* The handler the submission queue runs: the whole control path on the engine (model), with the
 * entry's grants, or the default grants when it has none. */
struct job_run {
	struct app_session *session;
	const struct session_hooks *hooks; /* in:/out: tensors, or NULL */
	unsigned trace;
	int rc;
	const char *err; /* the named error, or "ok" */
};

static void run_entry(void *vctx, const struct subq_entry *e, struct subq_completion *c)
{
	struct job_run *j = vctx;
	struct session_result res;
	struct ctrl_limits lim = ctrl_default_limits;
	lim.max_work = hal_platform()->max_work;
	const struct session_opts o = {.grants = e->grants, .ngrants = e->ngrants,
				    .use_defaults = e->ngrants == 0, .trace = j->trace,
				    .out = to_console, .limits = &lim, .hooks = j->hooks};
	const uint8_t *buf = (const uint8_t *)(uintptr_t)e->program;
	j->rc = session_run(j->session, buf, (size_t)e->program_len, &o, &res);
	j->err = session_result_name(&res);
	session_completion(&res, c);
}

static const char *status_name(uint32_t st)
{
	return st == SUBQ_DONE ? "done" : st == SUBQ_REFUSED ? "refused" : "failed";
}

/* One submission through the queue: queued, taken, run, its completion reaped and printed. */
static int submit_via_queue(struct subq *q, struct app_session *session, const uint8_t *buf,
			    size_t len, unsigned trace, uint32_t id, const struct session_hooks *hooks)
{
	struct subq_entry e;
	subq_init(q);
	memset(&e, 0, sizeof e);
	e.id = id;
	e.program = (uint64_t)(uintptr_t)buf;
	e.program_len = len;
	enum subq_err se = subq_submit(q, &e);
	if (se != SUBQ_OK) {
		fail_line("queue: submit refused: %s", subq_err_name(se));
		return 1;
	}
	struct job_run j = {session, hooks, trace, 1, "not-run"};
	subq_run(q, run_entry, &j);
	struct subq_completion c;
	if (subq_reap(q, &c) != SUBQ_OK) {
		fail_line("queue: no completion");
		return 1;
	}
	printf("completion: id %lu %s (%s) domain %s code %lu\n", (unsigned long)c.id,
	       status_name(c.status), j.err, subq_domain_name((enum subq_domain)c.domain),
	       (unsigned long)c.code);
	if (c.status != SUBQ_DONE || j.rc)
		fail_verdict("submission %lu %s: %s", (unsigned long)c.id, status_name(c.status),
			     j.err);
	return c.status == SUBQ_DONE ? j.rc : 1;
}

/* Reads the program over semihosting, loads and validates it, prints the summary, then takes it
 * through the control path on the engine (the software model on boards without one) with the
 * default grants, printing per TD what was programmed and moved (trace=1: every write and move). */
static int run_program(const char *path, unsigned trace, int fault, const struct tio_req *req,
		       unsigned nreq, const struct tio_tol *tol)
{
	int fd = hal_file_open(path, 0);
	if (fd < 0) {
		const char *why = tio_open_why();
		fail_line("program: cannot open %s%s%s", path, why ? ": " : "", why ? why : "");
		return 1;
	}
	long n = hal_file_length(fd);
	if (n < 0 || (unsigned long)n > JOB_MAX_PROGRAM) {
		fail_line("program: %s: bad length %ld", path, n);
		hal_file_close(fd);
		return 1;
	}
	/* whole cache lines, as the arena's: the weights' copy into their grant then takes the
	 * aligned path whatever the heap's layout (docs/performance.md, twenty-third pass) */
	uint8_t *buf = memalign(64, n ? (size_t)n : 1);
	struct ldr_program *prog = malloc(sizeof *prog);
	if (!buf || !prog) {
		printf("program: out of memory for %ld bytes\n", n);
		fail_verdict("program: out of memory");
		hal_file_close(fd);
		free(buf);
		free(prog);
		return 1;
	}
	long got = n ? hal_file_read(fd, buf, (size_t)n) : 0;
	hal_file_close(fd);
	if (got != n) {
		if (tio_is_directory(path))
			fail_line("program: %s: it is a directory, not a program file", path);
		else
			fail_line("program: %s: short read", path);
		free(buf);
		free(prog);
		return 1;
	}
	enum ldr_err e = ldr_load(buf, (size_t)n, 0, prog);
	printf("program: %s (%ld bytes)", path, n);
	if (e == LDR_OK)
		printf(": %s, %u task descriptor%s, valid", prog->raw ? "raw task stream" : ".hwx container",
		       prog->ntds, prog->ntds == 1 ? "" : "s");
	printf("\n");
	int rc = 0;
	if (e != LDR_OK) {
		ldr_print_refusal(prog, e, buf, (size_t)n, 0, "program: rejected: ", "program: ", path,
				  to_console, NULL);
		const char *no = ldr_not_a_program(buf, (size_t)n, 0, prog, e);
		fail_verdict("program rejected: %s%s%s", ldr_err_name(e), no ? ": " : "", no ? no : "");
		rc = 1;
	} else {
		/* the control path first; with trace=1 the program's whole dump follows (the
		 * loader's suite counts the lines from "program: valid" to the end) */
		struct subq *q = malloc(sizeof *q);
		struct dma_dev *dma = plat_dma();
		struct app_session *session = dma ? session_create(dma) : NULL;
		if (!dma) {
			char why[160];
			err_format(why, sizeof why, dma_err((enum dma_err)plat_dma_err()));
			fail_line("dma: the board's DMA engine did not come up: %s", why);
			rc = 1;
		} else if (!q || !session) {
			printf("program: out of memory for the engine session\n");
			fail_verdict("out of memory for the engine session");
			rc = 1;
		} else if (fault > 0) {
			/* fault=KIND: submission 1 gets the fault (a named failure is expected), then
			 * submission 2 must run normally on the reset engine */
			struct eng *eng = session_eng(session);
			app_backend_inject(eng, (unsigned)fault, 1);
			int r1 = submit_via_queue(q, session, buf, (size_t)n, 0, 1, NULL);
			uint32_t fired = app_backend_injected(eng);
			app_backend_inject(eng, 0, 0);
			printf("fault: %s injected %lu time%s, submission 1 %s\n",
			       app_backend_fault_name((unsigned)fault), (unsigned long)fired,
			       fired == 1 ? "" : "s", r1 ? "failed" : "did not fail");
			if (!r1)
				fail_verdict("fault=%s: submission 1 did not fail",
					     app_backend_fault_name((unsigned)fault));
			rc = submit_via_queue(q, session, buf, (size_t)n, trace, 2, NULL);
			if (!r1)
				rc = 1;
			else if (!rc)
				snprintf(verdict, sizeof verdict, "ok: fault=%s failed submission 1, "
					 "submission 2 ran", app_backend_fault_name((unsigned)fault));
		} else if (nreq) {
			/* in:NAME=PATH / out:NAME=PATH: the tensors from and to host files, as
			 * `anefw-tool run` does (app/tensorio.c) */
			struct tio *x = malloc(sizeof *x);
			if (!x) {
				fail_line("run: out-of-memory");
				rc = 1;
			} else {
				rc = 1;
				if (tio_prepare(x, prog, req, nreq, to_console, NULL) == TIO_OK) {
					tio_set_tol(x, tol);
					rc = submit_via_queue(q, session, buf, (size_t)n, trace, 1,
							      tio_hooks(x));
					if (tio_finish(x, rc == 0) != TIO_OK)
						rc = 1;
				}
				unsigned nref = 0;
				for (unsigned k = 0; k < nreq; k++)
					nref += req[k].out == TIO_REF;
				if (x->err == TIO_E_MISMATCH)
					fail_verdict(ERR_FMT " (the MISMATCH lines above)",
						     ERR_ARGS(tio_err(x->err)));
				else if (x->err != TIO_OK)
					fail_verdict(ERR_FMT " (the run: line above)",
						     ERR_ARGS(tio_err(x->err)));
				else if (!rc && nref)
					snprintf(verdict, sizeof verdict, "ok: %u output%s within "
						 "tolerance of %s reference%s", nref,
						 nref == 1 ? "" : "s", nref == 1 ? "its" : "their",
						 nref == 1 ? "" : "s");
				tio_free(x);
				free(x);
			}
		} else {
			rc = submit_via_queue(q, session, buf, (size_t)n, trace, 1, NULL);
			if (!rc)
				snprintf(verdict, sizeof verdict, "ok: ran; no output checked "
					 "(ref:NAME=PATH compares one with a reference)");
		}
		session_destroy(session);
		free(q);
		if (trace) { /* the whole program, as `anefw-tool inspect` prints it */
			printf("program: valid\n");
			ldr_print(prog, 0, to_console, NULL);
			tns_print(prog, to_console, NULL);
		}
	}
	fflush(stdout);
	free(buf);
	free(prog);
	return rc;
}

/* Every in:NAME=PATH and out:NAME=PATH of the command line; -1 (printed) on a malformed one. */
static int cmdline_io(const char *cmdline, struct tio_req *req, unsigned *nreq)
{
	*nreq = 0;
	for (const char *s = cmdline; s && *s;) {
		size_t n;
		const char *w = cmdline_word(&s, &n);
		int out = n >= 4 && !strncmp(w, "out:", 4) ? TIO_OUT
			  : n >= 4 && !strncmp(w, "ref:", 4) ? TIO_REF : TIO_IN;
		if (out || (n >= 3 && !strncmp(w, "in:", 3))) {
			size_t k = out ? 4 : 3;
			if (*nreq >= TIO_MAX_IO) {
				printf("run: " ERR_FMT "; at most %u in:/out:/ref:\n",
				       ERR_ARGS(tio_err(TIO_E_TOO_MANY)), TIO_MAX_IO);
				return -1;
			}
			if (tio_parse_req(w + k, n - k, out, &req[*nreq]) != TIO_OK) {
				char why[96];
				tio_req_why(w + k, n - k, why, sizeof why);
				printf("run: " ERR_FMT "; %.*s: %s (in:NAME=PATH, out:NAME=PATH, "
				       "ref:NAME=PATH)\n", ERR_ARGS(tio_err(TIO_E_ARG)), (int)n, w, why);
				return -1;
			}
			(*nreq)++;
		}
	}
	return 0;
}

/* rtol=R atol=A: the references' tolerance, each value within atol + rtol x |ref| (numpy's
 * allclose; app/tensorio.h); absent, one fp16 ulp at max(1, max |ref|). Returns 0 with *t set,
 * or -1 (printed) when a value is not a decimal 0 .. 1e6. */
static int cmdline_tol(const char *cmdline, struct tio_tol *t)
{
	static char r[TIO_TOL_TEXT], a[TIO_TOL_TEXT];
	int hr = cmdline_arg(cmdline, "rtol", r, sizeof r), ha = cmdline_arg(cmdline, "atol", a, sizeof a);
	if (hr == -2)
		snprintf(r, sizeof r, "(too long)");
	if (ha == -2)
		snprintf(a, sizeof a, "(too long)");
	if (hr != -2 && ha != -2 &&
	    tio_tol_make(hr == 0 ? r : NULL, ha == 0 ? a : NULL, t) == TIO_OK)
		return 0;
	printf("error: rtol=%s atol=%s: " ERR_FMT " (e.g. rtol=2e-2 atol=1.2e-2)\n", hr == -1 ? "0" : r,
	       ha == -1 ? "0" : a, ERR_ARGS(tio_err(TIO_E_TOL)));
	fail_verdict("rtol=%s atol=%s: %s", hr == -1 ? "0" : r, ha == -1 ? "0" : a,
		     tio_err_name(TIO_E_TOL));
	return -1;
}

/* KEY=N on the command line as a count 1 .. max into *k (v, vlen: the value's text, or a note that
 * it is too long): 0 when absent, 1 when a count in range, -1 when the value is no such count. */
static int cmdline_count(const char *cmdline, const char *key, char *v, size_t vlen, uint64_t max,
			 uint64_t *k)
{
	int r = cmdline_arg(cmdline, key, v, vlen);
	*k = 0;
	if (r == -1)
		return 0;
	if (r) /* longer than any count */
		snprintf(v, vlen, "(%u characters or more)", (unsigned)vlen);
	int ok = v[0] != 0;
	for (const char *c = v; *c && ok; c++) {
		ok = *c >= '0' && *c <= '9' && *k <= UINT64_MAX / 16u; /* far from overflow */
		*k = *k * 10u + (uint64_t)(*c - '0');
	}
	return ok && *k >= 1 && *k <= max ? 1 : -1;
}

/* threads=N: the engine model's threads, one a core (hal_set_workers), 1 .. the board's cores;
 * absent, every core. Returns 0 with *n set (0: every core), or -1 (printed) when N is not that. */
static int cmdline_threads(const char *cmdline, unsigned *n)
{
	char v[24];
	unsigned ncores = hal_platform()->ncores;
	uint64_t k;
	int r = cmdline_count(cmdline, "threads", v, sizeof v, ncores, &k);
	*n = r > 0 ? (unsigned)k : 0u;
	if (r < 0) {
		printf("error: threads=%s: wants a count of cores, 1 .. %u (this board's)\n", v, ncores);
		fail_verdict("threads=%s: wants 1 .. %u", v, ncores);
		return -1;
	}
	return 0;
}

/* trace=, serve=: 0 or 1 (absent: 0), in *on. Returns 0, or -1 for another value, said when say
 * is set (trace=2 ran without the trace and serve=0 served: every value was taken, unread). */
static int cmdline_flag(const char *cmdline, const char *key, unsigned *on, int say)
{
	char v[32];
	int r = cmdline_arg(cmdline, key, v, sizeof v);
	*on = r == 0 && !strcmp(v, "1");
	if (r == -1 || (r == 0 && (!strcmp(v, "0") || !strcmp(v, "1"))))
		return 0;
	if (say) {
		if (r == -2)
			snprintf(v, sizeof v, "(over %u bytes)", (unsigned)sizeof v - 1);
		printf("error: %s=%s: takes 0 or 1\n", key, v);
		fail_verdict("%s=%s: takes 0 or 1", key, v);
	}
	return -1;
}

/* ops_limit=N: the engine model's compute limit for this job's submissions (operations a task,
 * as inspect counts them; app_backend_set_ops_limit), 1 .. 2^62; absent, the board's
 * (hal_platform()->model_ops). Returns 0, or -1 (printed) when N is not that. */
static int cmdline_ops_limit(const char *cmdline)
{
	char v[24];
	uint64_t k;
	int r = cmdline_count(cmdline, "ops_limit", v, sizeof v, APP_OPS_LIMIT_MAX, &k);
	if (r < 0) {
		printf("error: ops_limit=%s: wants 1 .. 2^62 operations a task (the model's compute limit; "
		       "this board's default %lu)\n", v, (unsigned long)hal_platform()->model_ops);
		fail_verdict("ops_limit=%s: wants 1 .. 2^62", v);
		return -1;
	}
	if (r)
		app_backend_set_ops_limit(k);
	return 0;
}

/* threads_share(0) notes each thread's count so far; threads_share(nw) then prints each one's
 * part of the model's tasks since (hal_worker_instret: instructions, or cycles where the core
 * counts no instructions), when more than one thread had any. */
#define JOB_MAX_THREADS 8u
static void threads_share(unsigned nw)
{
	static uint64_t at[JOB_MAX_THREADS];
	uint64_t part[JOB_MAX_THREADS], all = 0;
	if (nw > JOB_MAX_THREADS)
		nw = JOB_MAX_THREADS;
	for (unsigned s = 0; s < JOB_MAX_THREADS; s++) {
		part[s] = hal_worker_instret(s) - at[s];
		if (!nw)
			at[s] = hal_worker_instret(s);
	}
	for (unsigned s = 0; s < nw; s++)
		all += part[s];
	if (nw < 2 || !all || part[0] == all)
		return;
	printf("model threads: the model's tasks by thread:");
	for (unsigned s = 0; s < nw; s++)
		printf(" %u: %lu%%", s, (unsigned long)(part[s] * 100 / all));
	printf("\n");
}

/* The last line: the verdict. A failure without a named cause still says it failed. */
static int done(int rc)
{
	if (rc && (!verdict[0] || !strncmp(verdict, "ok", 2)))
		snprintf(verdict, sizeof verdict, "exit status %d", rc);
	if (rc)
		printf("anefw: done: FAILED: %s\n", verdict);
	else
		printf("anefw: done: %s\n", verdict[0] ? verdict : "ok");
	fflush(stdout);
	return rc;
}

int anefw_job(const char *cmdline)
{
	static char path[512], fl[24];
	static struct tio_req req[TIO_MAX_IO];
	unsigned nreq = 0;
	int pa;
	verdict[0] = 0;
	unsigned trace, serve;
	cmdline_flag(cmdline, "trace", &trace, 0); /* for the banner; a bad value is said below */
	banner(trace);
	printf("command line: %s\n", cmdline && cmdline[0] ? cmdline : "(none)");
	int rc = 0;
	int fault = 0;
	if (cmdline_check(cmdline))
		return done(1);
	if (cmdline_flag(cmdline, "trace", &trace, 1) || cmdline_flag(cmdline, "serve", &serve, 1))
		return done(1);
	if (cmdline_arg(cmdline, "fault", fl, sizeof fl) == 0) {
		fault = app_backend_fault_parse(fl);
		if (fault < 0 && !fl[0]) { /* "unknown kind  (...)" before */
			printf("fault: fault= with no value; expected fault=KIND, KIND one of dma-hang, "
			       "dma-error, wrong-task, readback\n");
			fail_verdict("fault= with no value (expected fault=KIND)");
			return done(1);
		}
		if (fault < 0) {
			printf("fault: unknown kind %s (dma-hang, dma-error, wrong-task, readback)\n", fl);
			fail_verdict("fault: unknown kind %s", fl);
			return done(1);
		}
	}
	if (cmdline_io(cmdline, req, &nreq)) {
		fail_verdict("a malformed in:/out:/ref: (the run: line above)");
		return done(1);
	}
	unsigned threads;
	if (cmdline_threads(cmdline, &threads))
		return done(1);
	struct tio_tol tol;
	if (cmdline_tol(cmdline, &tol))
		return done(1);
	if (cmdline_ops_limit(cmdline))
		return done(1);
	/* the model's threads: this core and helper cores (a core busy elsewhere is skipped) */
	unsigned nw = hal_set_workers(threads);
	printf("model threads: %u\n", nw);
	threads_share(0);
	if (serve)
		rc = anefw_serve(0); /* the serial transport: commands on the console's line */
	else if ((pa = cmdline_arg(cmdline, "program", path, sizeof path)) == 0 && !path[0]) {
		/* program= with nothing after it: "cannot open : ..." before */
		printf("error: program= with no value on the command line; expected program=PATH, "
		       "a .hwx or raw task stream on the host\n");
		fail_verdict("program= with no value (expected program=PATH)");
		rc = 1;
	} else if (pa == 0) {
		rc = run_program(path, trace, fault, req, nreq, &tol);
		threads_share(nw);
	} else if (pa == -2) { /* given, but longer than the path buffer: not "no program" */
		printf("error: program=PATH: the path is longer than %u bytes, the longest taken\n",
		       (unsigned)sizeof path - 1);
		fail_verdict("program=PATH: the path is longer than %u bytes", (unsigned)sizeof path - 1);
		rc = 1;
	}
	else if (!cmdline || !cmdline[0]) /* nothing asked: the banner was the job */
		printf("no program given (program=PATH); the keys are: %s\n", CMDLINE_KEYS_HELP);
	else {
		printf("error: no program given (program=PATH); the keys are: %s\n", CMDLINE_KEYS_HELP);
		fail_verdict("no program given (program=PATH)");
		rc = 1;
	}
	hal_set_workers(1); /* the helper cores stopped: free for whatever runs next */
	return done(rc);
}

int anefw_job_cmdline_unreadable(void)
{
	verdict[0] = 0;
	banner(0);
	printf("command line: (not read)\n");
	printf("error: the command line could not be read: the host refused it (semihosting "
	       "SYS_GET_CMDLINE failed; QEMU does so for a line of %u bytes or more with the program "
	       "name); nothing is run\n", (unsigned)JOB_CMDLINE_MAX);
	fail_verdict("the command line could not be read (%u bytes or more?)", (unsigned)JOB_CMDLINE_MAX);
	return done(1);
}
