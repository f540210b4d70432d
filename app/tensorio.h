/*
 * Running a program on data: the tensors a user names (`--in NAME=FILE`, `--out NAME=FILE` of
 * `anefw-tool run`; `in:NAME=PATH`, `out:NAME=PATH` on the firmware's command line) are read
 * from and written to host files through the hal's file calls (semihosting on the target, stdio
 * on the host), so the tool and the firmware run the same code and write the same bytes.
 *
 * NAME is a tensor's name as fw/tensors gives it (the window's name, or "barN", which always
 * works). A FILE ending in ".npy" is a NumPy array: for an input, of the tensor's element type
 * and its logical shape or a 1-D array of its element count, placed into the buffer's layout
 * (padding zero); for an output, written in the logical shape with the layout padding removed.
 * Any other FILE is raw bytes in the buffer's own layout, exactly the buffer's size. An input not
 * given is filled from a fixed seed (tio_seed), which is said on the output. Intermediates are
 * never filled (the firmware zeroes them); they may be read out with an output request.
 *
 * Use: tio_prepare (names, files read and checked), session_run with tio_hooks(), then tio_finish
 * (outputs written). Every error is in one table (tio_err, fw/common/err.h) and printed as
 * "run: WHAT: NAME: DESCRIPTION; DETAIL".
 */
#ifndef ANEFW_APP_TENSORIO_H
#define ANEFW_APP_TENSORIO_H

#include <stddef.h>
#include <stdint.h>

#include "app/session.h"
#include "fw/formats/npy.h"
#include "fw/tensors/tensors.h"

#define TIO_MAX_IO 16
#define TIO_MAX_PATH 256
#define TIO_MAX_FILE (256u << 20)
#define TIO_SEED 0x5eed0000u /* an input's seed: TIO_SEED + its BAR index */

enum tio_err {
	TIO_OK = 0,
	TIO_E_ARG,         /* io-bad-argument: not NAME=PATH, an empty name or path, a path too long */
	TIO_E_TOO_MANY,    /* io-too-many: more than TIO_MAX_IO requests */
	TIO_E_PROGRAM,     /* program-rejected: the program does not load (the loader's error is printed) */
	TIO_E_TENSORS,     /* tensors-underivable: the tensors cannot be derived (the control path's error is printed) */
	TIO_E_UNKNOWN,     /* unknown-tensor: no tensor has that name or BAR */
	TIO_E_NOT_INPUT,   /* tensor-not-an-input: --in of an output or an intermediate */
	TIO_E_NOT_OUTPUT,  /* tensor-not-an-output: --out of an input */
	TIO_E_TWICE,       /* tensor-given-twice: the same tensor in two requests of one direction */
	TIO_E_OPEN,        /* file-cannot-open */
	TIO_E_READ,        /* file-read-failed: short read, or a length the hal cannot give */
	TIO_E_WRITE,       /* file-write-failed */
	TIO_E_FILE_SIZE,   /* file-too-large: over TIO_MAX_FILE */
	TIO_E_NPY,         /* npy-unreadable: the .npy does not parse (its npy-* error is printed) */
	TIO_E_DTYPE,       /* npy-dtype-mismatch: not the tensor's element type */
	TIO_E_SHAPE,       /* npy-shape-mismatch: neither the logical shape nor 1-D of its count */
	TIO_E_RAW_SIZE,    /* raw-size-mismatch: a raw file not exactly the buffer's size */
	TIO_E_NOMEM,       /* io-out-of-memory */
	TIO_E_NOT_RUN,     /* output-not-produced: the submission did not complete */
	TIO_E_MISMATCH,    /* output-mismatch: an output outside its reference's tolerance */
	TIO_E_TOL,         /* tolerance-bad: --rtol/--atol (rtol=/atol=) not a decimal 0 .. 1e6 */
	TIO_E_UNWRITTEN,   /* output-not-written: --out/ref of a tensor no TD writes (all of) */
	TIO_E_IS_DIR,      /* file-is-a-directory: an input's or a reference's path names a directory */
	TIO_E__COUNT
};
const struct err_desc *tio_err(enum tio_err e); /* fw/common/err.h */
const char *tio_err_name(enum tio_err e);

/* A request's direction: an input file, an output file, or a reference an output is compared
 * with (`--ref NAME=FILE`, the firmware's `ref:NAME=PATH`): the file, like an input's (.npy of
 * the tensor's dtype and shape, or raw bytes in the buffer's layout), holds the values the output
 * must have; after the run one line per reference,
 *   "output NAME: N values, max abs error E vs reference (tolerance T): ok" (or "MISMATCH"),
 * T = 2^-10 x max(1, max |reference|) (one fp16 ulp at the larger of 1 and the reference's
 * largest magnitude); a mismatch is TIO_E_MISMATCH. With a tolerance given (tio_set_tol: --rtol,
 * --atol; the firmware's rtol=, atol=), each value instead, as numpy's allclose:
 *   |output - reference| <= atol + rtol x |reference|,
 * and the line reads "output NAME: N values, max abs error E, K outside atol A + rtol R x |ref|:
 * ok" (or "MISMATCH"). NaN matches NaN and an infinity the same infinity, in both rules. */
#define TIO_IN 0
#define TIO_OUT 1
#define TIO_REF 2

struct tio_req {
	char name[TNS_NAME_MAX];
	char path[TIO_MAX_PATH];
	int out; /* TIO_IN, TIO_OUT or TIO_REF */
};

/* The comparison of one output with its reference (dense fp16 values, n of each): the largest
 * |output - reference| (inf when exactly one of a pair is NaN) and the tolerance. Pure. */
void tio_compare(const uint8_t *out, const uint8_t *ref, uint64_t n, double *max_err,
		 double *tol);
/* The elementwise comparison with a tolerance (atol + rtol x |reference|): the largest
 * |output - reference| and how many values lie outside. Pure. */
void tio_compare_tol(const uint8_t *out, const uint8_t *ref, uint64_t n, double rtol, double atol,
		     double *max_err, uint64_t *outside);

/* A tolerance as given: a decimal number from 0 to 1e6 ("0.02", "2e-2", ".5", "1E+3"), its text
 * kept for the report. */
#define TIO_TOL_TEXT 24
struct tio_tol {
	int set;                      /* 0: the default rule (one fp16 ulp at max(1, max |ref|)) */
	double rtol, atol;
	char rtol_s[TIO_TOL_TEXT], atol_s[TIO_TOL_TEXT];
};
/* Parses one tolerance (len characters of s) into *v; TIO_E_TOL when it is not one. Pure. */
enum tio_err tio_parse_tol(const char *s, size_t len, double *v);
/* *t from the two texts (NULL: "0"; both NULL: the default rule, t->set 0); TIO_E_TOL naming
 * neither, when one does not parse. Pure. */
enum tio_err tio_tol_make(const char *rtol, const char *atol, struct tio_tol *t);

/* "1.234" (three decimals, rounded), "inf" or "nan". */
void tio_fmt3(double v, char *buf, size_t len);

/* Splits "NAME=PATH" (at the first '='); out is the direction (TIO_IN, TIO_OUT, TIO_REF). Pure. */
enum tio_err tio_parse_req(const char *arg, size_t len, int out, struct tio_req *r);
/* Why tio_parse_req refused arg (len bytes), in words, into buf: no '=', nothing before or
 * after it, a part over its length (both lengths), an embedded NUL; "" when it parses. */
void tio_req_why(const char *arg, size_t len, char *buf, size_t cap);

struct tio_io {
	int ti;          /* tensor index */
	int out;         /* TIO_IN, TIO_OUT or TIO_REF */
	int npy;         /* the path ends in ".npy" */
	char path[TIO_MAX_PATH];
	uint8_t *file;   /* inputs and references: the file's bytes */
	size_t file_len;
	struct npy_array a;
	uint8_t *captured; /* outputs: the buffer after the run (the tensor's bytes) */
};

struct tio {
	struct tns_tensor t[TNS_MAX];
	unsigned nt;
	struct tio_io io[TIO_MAX_IO];
	unsigned nio;
	outf_fn out;
	void *ctx;
	struct session_hooks hooks;
	enum tio_err err;
	struct tio_tol tol;
	const uint8_t *prog; /* the program's bytes (never removed as a stale output) */
	size_t prog_len;
};

/* Resolves the requests against p's tensors and reads every input file. On an error it is
 * printed, x->err set, and returned; tio_free is still needed. */
/* Tensors that cannot be derived (tns_describe returned te, with the control path's status st
 * for TNS_E_GRANTS), as run, remote's firmware and validate say it, after lead:
 * "tensors-underivable: the program's tensors cannot be derived; " then the control path's
 * refusal with its TD, range and BAR (fw/ctrl ctrl_status_print), or the tensors' error name. */
void tio_print_underivable(enum tns_err te, const struct ctrl_status *st, const char *lead,
			   outf_fn out, void *ctx);
enum tio_err tio_prepare(struct tio *x, const struct ldr_program *p, const struct tio_req *req,
			 unsigned nreq, outf_fn out, void *ctx);
/* The tolerance every reference is compared with from now on (after tio_prepare, which clears
 * it to the default rule). */
void tio_set_tol(struct tio *x, const struct tio_tol *t);
/* The session hooks that place the inputs and capture the requested outputs. */
const struct session_hooks *tio_hooks(struct tio *x);
/* After session_run: ran 1 (the submission completed) writes every requested output (to PATH.part,
 * renamed to PATH when whole) and compares every reference; ran 0 writes and compares nothing
 * and reports each request output-not-produced. An output not written (not run, or its write
 * failed) leaves no file at its path: one there from before is removed (unless this run read it
 * as an input or a reference). */
enum tio_err tio_finish(struct tio *x, int ran);
void tio_free(struct tio *x);

/* Places input tensor t's data into buf (size bytes): npy (a), raw (raw, raw_len) or, with
 * neither, the fixed-seed values. Pure; exposed for the tests. */
void tio_place(const struct tns_tensor *t, const struct npy_array *a, const uint8_t *raw,
	       size_t raw_len, uint8_t *buf, uint64_t size);
/* Gathers tensor t from buf (size bytes) into dense (t->nelem x t->elem bytes, C order). Pure. */
void tio_gather(const struct tns_tensor *t, const uint8_t *buf, uint64_t size, uint8_t *dense);

/* Whether path names a directory ("PATH/." opens for reading, natively and over semihosting):
 * a directory opens as a file does, and its reads fail. */
int tio_is_directory(const char *path);
/* Why the last hal_file_open that failed failed, in words ("no such file or directory"), from
 * the host's errno; NULL when the host gave none or one not named. */
const char *tio_open_why(void);

#endif
