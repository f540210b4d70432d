/* Running a program on data (see tensorio.h). */
#include "app/tensorio.h"
#include "fw/common/err.h"
#include "fw/common/fp16.h"
#include "fw/common/le.h"
#include "fw/common/outf.h"
#include "hal/hal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct err_desc errs[TIO_E__COUNT] = {
	[TIO_OK] = {"ok", "no error"},
	[TIO_E_ARG] = {"io-bad-argument", "not NAME=PATH, an empty name or path, or a path too long"},
	[TIO_E_TOO_MANY] = {"io-too-many", "more in/out/ref requests than a run takes"},
	[TIO_E_PROGRAM] = {"program-rejected", "the program does not load"},
	[TIO_E_TENSORS] = {"tensors-underivable", "the program's tensors cannot be derived"},
	[TIO_E_UNKNOWN] = {"unknown-tensor", "no tensor of the program has that name or BAR"},
	[TIO_E_NOT_INPUT] = {"tensor-not-an-input", "an input file given for an output or an intermediate"},
	[TIO_E_NOT_OUTPUT] = {"tensor-not-an-output", "an output file given for an input"},
	[TIO_E_TWICE] = {"tensor-given-twice", "the same tensor in two requests of one direction"},
	[TIO_E_OPEN] = {"file-cannot-open", "the file cannot be opened"},
	[TIO_E_READ] = {"file-read-failed", "a short read, or a length the HAL cannot give"},
	[TIO_E_WRITE] = {"file-write-failed", "the file cannot be written whole"},
	[TIO_E_FILE_SIZE] = {"file-too-large", "the file is over 256 MiB"},
	[TIO_E_NPY] = {"npy-unreadable", "the .npy file does not parse (its npy-* error says why)"},
	[TIO_E_DTYPE] = {"npy-dtype-mismatch", "the file's element type is not the tensor's"},
	[TIO_E_SHAPE] = {"npy-shape-mismatch",
			 "the file's shape is neither the tensor's logical shape (axes may be split) nor "
			 "1-D of its count"},
	[TIO_E_RAW_SIZE] = {"raw-size-mismatch", "a raw file not exactly the tensor buffer's size"},
	[TIO_E_NOMEM] = {"io-out-of-memory", "no memory for a tensor's file or reference"},
	[TIO_E_NOT_RUN] = {"output-not-produced", "the submission did not complete"},
	[TIO_E_MISMATCH] = {"output-mismatch", "an output differs from its reference"},
	[TIO_E_TOL] = {"tolerance-bad", "a tolerance that is not a decimal number from 0 to 1e6"},
	[TIO_E_UNWRITTEN] = {"output-not-written",
	 "an output or reference of a tensor no task descriptor writes whole (fw/tensors unwritten)"},
	[TIO_E_IS_DIR] = {"file-is-a-directory", "the path names a directory, not a file"},
};

const struct err_desc *tio_err(enum tio_err e)
{
	static const struct err_desc unknown = {"unknown-io-error",
						  "a value this module does not define"};
	return err_lookup(errs, TIO_E__COUNT, (unsigned)e, &unknown);
}

const char *tio_err_name(enum tio_err e)
{
	return tio_err(e)->name;
}

enum tio_err tio_parse_req(const char *arg, size_t len, int out, struct tio_req *r)
{
	if (!arg || !r)
		return TIO_E_ARG;
	const char *eq = memchr(arg, '=', len);
	if (!eq)
		return TIO_E_ARG;
	size_t nl = (size_t)(eq - arg), pl = len - nl - 1;
	if (!nl || nl >= sizeof r->name || !pl || pl >= sizeof r->path)
		return TIO_E_ARG;
	memcpy(r->name, arg, nl);
	r->name[nl] = 0;
	memcpy(r->path, eq + 1, pl);
	r->path[pl] = 0;
	if (strlen(r->name) != nl || strlen(r->path) != pl)
		return TIO_E_ARG; /* an embedded NUL */
	r->out = out;
	return TIO_OK;
}

void tio_req_why(const char *arg, size_t len, char *buf, size_t cap)
{
	struct tio_req r;
	const char *eq = arg ? memchr(arg, '=', len) : NULL;
	size_t nl = eq ? (size_t)(eq - arg) : 0, pl = eq ? len - nl - 1 : 0;
	if (!cap)
		return;
	buf[0] = 0;
	if (!arg)
		snprintf(buf, cap, "nothing given");
	else if (!eq)
		snprintf(buf, cap, "no '=' between the tensor's name and the file");
	else if (!nl)
		snprintf(buf, cap, "nothing before the '=' (the tensor's name)");
	else if (!pl)
		snprintf(buf, cap, "nothing after the '=' (the file)");
	else if (nl >= sizeof r.name)
		snprintf(buf, cap, "the name is %lu bytes, at most %lu", (unsigned long)nl,
			 (unsigned long)sizeof r.name - 1);
	else if (pl >= sizeof r.path)
		snprintf(buf, cap, "the file's path is %lu bytes, at most %lu", (unsigned long)pl,
			 (unsigned long)sizeof r.path - 1);
	else if (memchr(arg, 0, len))
		snprintf(buf, cap, "a NUL byte inside it");
}

static unsigned npy_of_fmt(unsigned fmt)
{
	return fmt == H13_FMT_FP16 ? NPY_F16 : fmt == H13_FMT_INT8 ? NPY_I8 : NPY_U8;
}

static int is_npy(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && (!strcmp(path + n - 4, ".npy") || !strcmp(path + n - 4, ".NPY"));
}

static void fail(struct tio *x, enum tio_err e, const char *what, const char *detail)
{
	x->err = e;
	/* in pieces, so paths and lists are not cut at outf's line */
	outf(x->out, x->ctx, "run: ");
	if (x->out) {
		x->out(x->ctx, what, strlen(what));
		x->out(x->ctx, ": ", 2);
	}
	if (e != TIO_E_NPY) /* the parser's own error says it */
		outf(x->out, x->ctx, ERR_FMT "%s", ERR_ARGS(tio_err(e)), detail ? "; " : "");
	if (x->out && detail)
		x->out(x->ctx, detail, strlen(detail));
	outf(x->out, x->ctx, "\n");
}

/* "16, 2, 8"; with paren NumPy's own spelling "(16, 2, 8)" ("(77,)" for one dimension) */
static void dims_text(const uint64_t *dims, unsigned ndim, int paren, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = 0;
	if (paren)
		k += (size_t)snprintf(buf, len, "(");
	for (unsigned i = 0; i < ndim && k + 24 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%lu", i ? ", " : "",
				      (unsigned long)dims[i]);
	if (paren && k + 3 < len)
		snprintf(buf + k, len - k, "%s)", ndim == 1 ? "," : "");
}

/* The lengths behind a truncated .npy or one whose data is not its shape's size (the name alone
 * before): what the file holds against what its preamble, header and shape ask for. */
static void npy_sizes_text(const uint8_t *b, size_t len, const struct npy_array *a, enum npy_err ne,
			   char *buf, size_t cap)
{
	buf[0] = 0;
	if (ne != NPY_E_TRUNCATED && ne != NPY_E_DATA_SIZE)
		return;
	if (len < 10) {
		snprintf(buf, cap, "the file has %lu bytes; a .npy starts with a 10-byte preamble "
			 "(magic, version, header length)", (unsigned long)len);
		return;
	}
	const size_t pre = b[6] == 1 ? 10 : 12;
	if (len < pre) {
		snprintf(buf, cap, "the file has %lu bytes; a version %u .npy's preamble is %lu",
			 (unsigned long)len, b[6], (unsigned long)pre);
		return;
	}
	const size_t hlen = pre == 10 ? (size_t)(b[8] | b[9] << 8)
				       : (size_t)(b[8] | b[9] << 8 | (uint32_t)b[10] << 16 |
						  (uint32_t)b[11] << 24);
	if (ne == NPY_E_TRUNCATED) {
		snprintf(buf, cap, "the file has %lu bytes; its preamble gives a header of %lu, to "
			 "byte %lu", (unsigned long)len, (unsigned long)hlen,
			 (unsigned long)(pre + hlen));
		return;
	}
	char dims[96];
	dims_text(a->shape, a->ndim, 1, dims, sizeof dims);
	snprintf(buf, cap, "the file has %lu bytes after its %lu-byte header, shape %s of '%s' "
		 "needs %llu", (unsigned long)(len - pre - hlen), (unsigned long)(pre + hlen), dims,
		 a->descr, (unsigned long long)a->data_len);
}

static void tensor_dims(const struct tns_tensor *t, int paren, char *buf, size_t len)
{
	uint64_t d[5];
	unsigned n = t->ndim < 5 ? t->ndim : 5;
	for (unsigned i = 0; i < n; i++)
		d[i] = t->shape[i];
	dims_text(d, n, paren, buf, len);
}

static void shape_text(const struct tns_tensor *t, char *buf, size_t len)
{
	tensor_dims(t, 0, buf, len);
}

/* A .npy 'descr' for a message: its characters (unprintable ones as '?') and, for the common
 * kinds, NumPy's name: "'<f8' (float64)". */
static void descr_text(const char *d, char *buf, size_t len)
{
	char c[sizeof ((struct npy_array *)0)->descr];
	size_t n = 0;
	for (; d[n] && n + 1 < sizeof c; n++)
		c[n] = d[n] >= 0x20 && d[n] < 0x7f && d[n] != '\'' ? d[n] : '?';
	c[n] = 0;
	const char *k = n ? c + (c[0] == '<' || c[0] == '>' || c[0] == '|' || c[0] == '=') : c;
	const char *kind = *k == 'f' ? "float" : *k == 'i' ? "int" : *k == 'u' ? "uint"
			   : *k == 'c' ? "complex" : NULL;
	unsigned bytes = 0;
	for (const char *p = k + (*k != 0); *p >= '0' && *p <= '9' && bytes < 1000; p++)
		bytes = bytes * 10 + (unsigned)(*p - '0');
	if (kind && bytes && bytes <= 16)
		snprintf(buf, len, "'%s' (%s%u%s)", c, kind, bytes * 8,
			 c[0] == '>' && bytes > 1 ? ", big-endian" : "");
	else if (*k == 'b' && !strcmp(k, "b1"))
		snprintf(buf, len, "'%s' (bool)", c);
	else
		snprintf(buf, len, "'%s'", c);
}

/* "input, output_0, bar7" : every tensor's name, for unknown-tensor */
static void names_text(const struct tio *x, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < x->nt && k + 4 < len; i++) {
		int m = snprintf(buf + k, len - k, "%s%s", i ? ", " : "", x->t[i].name);
		if (m < 0 || (size_t)m >= len - k) {
			snprintf(buf + k, len - k, ", ...");
			break;
		}
		k += (size_t)m;
	}
}

/* The names of the tensors whose role is (inputs: 1) or is not (0) an input, or "none". */
static void role_names(const struct tio *x, int inputs, char *buf, size_t len)
{
	size_t k = 0;
	snprintf(buf, len, "none");
	for (unsigned i = 0; i < x->nt && k + 4 < len; i++) {
		if ((x->t[i].role == TNS_INPUT) != inputs)
			continue;
		int m = snprintf(buf + k, len - k, "%s%s", k ? ", " : "", x->t[i].name);
		if (m < 0 || (size_t)m >= len - k) {
			snprintf(buf + k, len - k, ", ...");
			break;
		}
		k += (size_t)m;
	}
}

/* ---- files through the hal ---- */
/* Why a file did not open, in words: the host's errno (hal_file_open_errno) in Linux's
 * numbering, the host's under QEMU and natively (newlib's own numbers differ for some); NULL
 * for one not named here. */
static const char *open_why(int e)
{
	switch (e) {
	case 2: return "no such file or directory";
	case 13: return "permission denied";
	case 20: return "a part of the path is not a directory";
	case 21: return "it is a directory";
	case 24: return "too many open files";
	case 28: return "no space left on the device";
	case 30: return "a read-only file system";
	case 36: return "the name is too long";
	case 40: return "a loop of symbolic links";
	default: return NULL;
	}
}

const char *tio_open_why(void)
{
	return open_why(hal_file_open_errno());
}

/* The detail of a file error: why it did not open (for a write, of PATH.part, which is renamed
 * to PATH when whole), or NULL. */
static const char *file_detail(enum tio_err e, int writing, char *buf, size_t cap)
{
	const char *why = e == TIO_E_OPEN ? open_why(hal_file_open_errno()) : NULL;
	if (!why)
		return NULL;
	snprintf(buf, cap, "%s%s", why, writing ? " (creating PATH.part, renamed to PATH when whole)" : "");
	return buf;
}

static enum tio_err read_file(const char *path, uint8_t **buf, size_t *len)
{
	int fd = hal_file_open(path, 0);
	if (fd < 0)
		return TIO_E_OPEN;
	long n = hal_file_length(fd);
	if (n < 0) {
		hal_file_close(fd);
		return tio_is_directory(path) ? TIO_E_IS_DIR : TIO_E_READ;
	}
	if ((unsigned long)n > TIO_MAX_FILE) {
		hal_file_close(fd);
		/* a directory opens, natively and over semihosting; its length is no file's (the
		 * host's lseek past any file, or -1) and its reads fail ("short read" before) */
		return tio_is_directory(path) ? TIO_E_IS_DIR : TIO_E_FILE_SIZE;
	}
	uint8_t *b = malloc(n ? (size_t)n : 1);
	if (!b) {
		hal_file_close(fd);
		return TIO_E_NOMEM;
	}
	long got = n ? hal_file_read(fd, b, (size_t)n) : 0;
	hal_file_close(fd);
	if (got != n) {
		free(b);
		return tio_is_directory(path) ? TIO_E_IS_DIR : TIO_E_READ;
	}
	*buf = b;
	*len = (size_t)n;
	return TIO_OK;
}

/* Writes a then b to PATH.part and renames it to PATH: a file at PATH is whole or not there (a
 * failed write removes the partial one). A device or a FIFO at PATH (/dev/null, /dev/stdout) is
 * written in place: the rename replaced it with a regular file (/dev/null itself, as root) and
 * said the bytes were written where a write to it would have failed (/dev/full, exit 0). A
 * symbolic link at PATH is written through: the rename replaced the link. */
static enum tio_err write_file(const char *given, const uint8_t *a, size_t an, const uint8_t *b,
			       size_t bn)
{
	/* a symbolic link is written through, as cp and a shell's > do: PATH.part beside the file
	 * it names, renamed over that file (the rename replaced the link itself) */
	char path[TIO_MAX_PATH], part[TIO_MAX_PATH + 8];
	if (hal_file_resolve(given, path, sizeof path))
		return TIO_E_OPEN;
	int special = hal_file_is_special(path);
	snprintf(part, sizeof part, "%s%s", path, special ? "" : ".part");
	int fd = hal_file_open(part, 1);
	if (fd < 0)
		return TIO_E_OPEN;
	int bad = (an && hal_file_write(fd, a, an) != (long)an) ||
		  (bn && hal_file_write(fd, b, bn) != (long)bn);
	bad |= hal_file_close(fd) != 0;
	if (special)
		return bad ? TIO_E_WRITE : TIO_OK;
	if (!bad && hal_file_rename(part, path) == 0)
		return TIO_OK;
	hal_file_remove(part);
	return TIO_E_WRITE;
}

/* Whether the directory an output file goes to is there, asked before the run without creating
 * or truncating any file: "DIR/." opened for reading (a directory opens so, natively and over
 * semihosting; a missing one, or a file in its place, does not). 0 when it is (or the path names
 * none: the current directory), else -1 with its name in dir. */
static int out_dir_missing(const char *path, char *dir, size_t cap)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return 0;
	size_t n = slash == path ? 1 : (size_t)(slash - path); /* "/y.npy": the root */
	if (n + 3 > cap)
		return 0; /* the open says it */
	memcpy(dir, path, n);
	memcpy(dir + n, "/.", 3);
	int fd = hal_file_open(dir, 0);
	dir[n] = 0;
	if (fd < 0)
		return -1;
	hal_file_close(fd);
	return 0;
}

int tio_is_directory(const char *path)
{
	char d[TIO_MAX_PATH + 3];
	size_t n = path ? strlen(path) : 0;
	if (!n || n > TIO_MAX_PATH)
		return 0;
	memcpy(d, path, n);
	memcpy(d + n, "/.", 3); /* opens for a directory only (a file: not a directory) */
	int fd = hal_file_open(d, 0);
	if (fd < 0)
		return 0;
	hal_file_close(fd);
	return 1;
}

/* ---- layouts ---- */
/* Calls fn for every element in C order (G, C, D, H, W) with its dense index and its buffer
 * offset. */
#define FOR_EACH_ELEMENT(t, idx, off, body)                                                     \
	do {                                                                                    \
		uint64_t idx = 0;                                                               \
		for (uint32_t g_ = 0; g_ < (t)->dim[TNS_G]; g_++)                               \
			for (uint32_t c_ = 0; c_ < (t)->dim[TNS_C]; c_++)                       \
				for (uint32_t d_ = 0; d_ < (t)->dim[TNS_D]; d_++)               \
					for (uint32_t h_ = 0; h_ < (t)->dim[TNS_H]; h_++)       \
						for (uint32_t w_ = 0; w_ < (t)->dim[TNS_W];     \
						     w_++, idx++) {                             \
							uint64_t off =                          \
								tns_offset(t, g_, c_, d_, h_, w_); \
							body;                                   \
						}                                               \
	} while (0)

static uint32_t xs32(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

void tio_place(const struct tns_tensor *t, const struct npy_array *a, const uint8_t *raw,
	       size_t raw_len, uint8_t *buf, uint64_t size)
{
	if (raw && !a) {
		size_t n = raw_len < size ? raw_len : (size_t)size;
		memcpy(buf, raw, n);
		memset(buf + n, 0, (size_t)(size - n));
		return;
	}
	memset(buf, 0, (size_t)size);
	uint32_t seed = TIO_SEED + (uint32_t)(t->bar < 0 ? 0 : t->bar);
	unsigned e = t->elem;
	FOR_EACH_ELEMENT(t, i, off, {
		if (off > size || size - off < e)
			continue;
		if (a) {
			if (i < a->nelem)
				memcpy(buf + off, a->data + i * e, e);
		} else if (e == 2) {
			/* uniform on [-1, 1) in steps of 2^-10: every value exact in fp16 */
			int32_t v = (int32_t)(xs32(&seed) % 2048u) - 1024;
			le_wr16(buf + off, fp16_from_scaled(v, -10));
		} else {
			buf[off] = (uint8_t)(xs32(&seed) >> 24);
		}
	});
}

void tio_gather(const struct tns_tensor *t, const uint8_t *buf, uint64_t size, uint8_t *dense)
{
	unsigned e = t->elem;
	FOR_EACH_ELEMENT(t, i, off, {
		if (off > size || size - off < e)
			memset(dense + i * e, 0, e);
		else
			memcpy(dense + i * e, buf + off, e);
	});
}

/* ---- the hooks ---- */
static const struct tns_tensor *tensor_of(const struct tio *x, uint32_t bar, int *ti)
{
	for (unsigned i = 0; i < x->nt; i++)
		if (x->t[i].bar == (int)bar) {
			*ti = (int)i;
			return &x->t[i];
		}
	return NULL;
}

static void fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct tio *x = ctx;
	int ti;
	const struct tns_tensor *t = tensor_of(x, g->bar, &ti);
	if (is_weights || !t || t->role != TNS_INPUT)
		return; /* weights, the TD area; outputs and intermediates stay zero */
	for (unsigned k = 0; k < x->nio; k++)
		if (x->io[k].out == TIO_IN && x->io[k].ti == ti) {
			const struct tio_io *io = &x->io[k];
			tio_place(t, io->npy ? &io->a : NULL, io->file, io->file_len, buf, g->size);
			return;
		}
	tio_place(t, NULL, NULL, 0, buf, g->size);
}

static void check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct tio *x = ctx;
	int ti;
	const struct tns_tensor *t = tensor_of(x, g->bar, &ti);
	if (is_weights || !t)
		return;
	for (unsigned k = 0; k < x->nio; k++) {
		struct tio_io *io = &x->io[k];
		if (!io->out || io->ti != ti || io->captured)
			continue;
		io->captured = malloc(t->bytes ? (size_t)t->bytes : 1);
		if (!io->captured)
			continue; /* reported by tio_finish */
		size_t n = g->size < t->bytes ? (size_t)g->size : (size_t)t->bytes;
		memcpy(io->captured, buf, n);
		memset(io->captured + n, 0, (size_t)(t->bytes - n));
	}
}

const struct session_hooks *tio_hooks(struct tio *x)
{
	x->hooks = (struct session_hooks){.fill = fill, .check = check, .ctx = x};
	return &x->hooks;
}

/* ---- preparing and finishing ---- */
/* Whether array a's shape is tensor t's, each of t's axes given whole or split into consecutive
 * axes of the file (axes of 1 anywhere): a batch the compiler laid out as channels, [8, 4, 2, 3]
 * for a (2, 4, 4, 2, 3) array, reads in the same C order. A permutation ((3, 4, 40) for
 * [4, 3, 40]) is no split. */
static int splits_axes(const struct npy_array *a, const struct tns_tensor *t)
{
	if (a->nelem != t->nelem)
		return 0;
	unsigned f = 0;
	for (unsigned k = 0; k < t->ndim; k++) {
		uint64_t prod = 1;
		while (prod < t->shape[k] && f < a->ndim)
			prod *= a->shape[f++];
		if (prod != t->shape[k])
			return 0;
	}
	for (; f < a->ndim; f++)
		if (a->shape[f] != 1)
			return 0;
	return 1;
}

static enum tio_err load_input(struct tio *x, struct tio_io *io)
{
	const struct tns_tensor *t = &x->t[io->ti];
	enum tio_err e = read_file(io->path, &io->file, &io->file_len);
	if (e != TIO_OK) {
		char why[96];
		fail(x, e, io->path, file_detail(e, 0, why, sizeof why));
		return e;
	}
	if (!io->npy) {
		if (io->file_len != t->bytes) {
			char m[160];
			snprintf(m, sizeof m,
				 "the file has %lu bytes, tensor %s's buffer %lu (a file not ending in "
				 ".npy is raw bytes in the buffer's layout, padding included)",
				 (unsigned long)io->file_len, t->name, (unsigned long)t->bytes);
			fail(x, TIO_E_RAW_SIZE, io->path, m);
			return x->err;
		}
		return TIO_OK;
	}
	enum npy_err ne = npy_parse(io->file, io->file_len, &io->a);
	if (ne == NPY_E_DTYPE) {
		char m[360], d[40];
		descr_text(io->a.descr, d, sizeof d);
		snprintf(m, sizeof m,
			 ERR_FMT "; the file's dtype is %s, tensor %s is %s (numpy: a.astype(np.%s))",
			 ERR_ARGS(npy_err(ne)), d, t->name, tns_dtype_name(t->fmt), tns_dtype_name(t->fmt));
		fail(x, TIO_E_NPY, io->path, m);
		return x->err;
	}
	if (ne != NPY_OK) {
		char m[360], sz[200] = "";
		npy_sizes_text(io->file, io->file_len, &io->a, ne, sz, sizeof sz);
		snprintf(m, sizeof m, ERR_FMT "%s%s", ERR_ARGS(npy_err(ne)), sz[0] ? "; " : "", sz);
		fail(x, TIO_E_NPY, io->path, m);
		return x->err;
	}
	/* a bool array (its bytes 0 or 1: npy_parse) is a one-byte tensor's bytes as they are, as
	 * Apple's bool tensors hold them (docs/engine-model.md, "One-byte tensors through the tile
	 * DMA") */
	const int bool_ok = io->a.dtype == NPY_BOOL && t->fmt != H13_FMT_FP16;
	if (io->a.dtype != npy_of_fmt(t->fmt) && !bool_ok) {
		char m[200];
		snprintf(m, sizeof m, "the file's dtype is %s, tensor %s is %s%s", npy_dtype_name(io->a.dtype),
			 t->name, tns_dtype_name(t->fmt),
			 t->fmt != H13_FMT_FP16 ? " (a bool array is taken too)" : "");
		fail(x, TIO_E_DTYPE, io->path, m);
		return x->err;
	}
	if (!(io->a.ndim == 1 && io->a.shape[0] == t->nelem) && !splits_axes(&io->a, t)) {
		char fs[96], ts[96], m[300];
		dims_text(io->a.shape, io->a.ndim, 1, fs, sizeof fs);
		tensor_dims(t, 1, ts, sizeof ts);
		snprintf(m, sizeof m, "the file's shape is %s, tensor %s's is %s (or 1-D (%lu,))",
			 fs, t->name, ts, (unsigned long)t->nelem);
		fail(x, TIO_E_SHAPE, io->path, m);
		return x->err;
	}
	return TIO_OK;
}

void tio_print_underivable(enum tns_err te, const struct ctrl_status *st, const char *lead,
			   outf_fn out, void *ctx)
{
	outf(out, ctx, "%s" ERR_FMT "; ", lead, ERR_ARGS(tio_err(TIO_E_TENSORS)));
	tns_print_error(te, st, "", out, ctx);
}

enum tio_err tio_prepare(struct tio *x, const struct ldr_program *p, const struct tio_req *req,
			 unsigned nreq, outf_fn out, void *ctx)
{
	memset(x, 0, sizeof *x);
	x->out = out;
	x->ctx = ctx;
	x->prog = p ? p->buf : NULL;
	x->prog_len = p ? p->len : 0;
	if (nreq > TIO_MAX_IO || (nreq && !req)) {
		fail(x, TIO_E_TOO_MANY, "arguments", NULL);
		return x->err;
	}
	struct ctrl_status st;
	enum tns_err te = tns_describe(p, x->t, TNS_MAX, &x->nt, &st);
	if (te != TNS_OK) {
		x->err = TIO_E_TENSORS;
		tio_print_underivable(te, &st, "run: program: ", x->out, x->ctx);
		return x->err;
	}
	for (unsigned k = 0; k < nreq; k++) {
		const struct tio_req *r = &req[k];
		int ti = tns_find(x->t, x->nt, r->name, strlen(r->name));
		if (ti < 0) {
			char names[256], m[320];
			names_text(x, names, sizeof names);
			snprintf(m, sizeof m, "the program's tensors are %s (or barN)", names);
			fail(x, TIO_E_UNKNOWN, r->name, m);
			return x->err;
		}
		unsigned role = x->t[ti].role;
		if (r->out != TIO_IN && r->out != TIO_OUT && r->out != TIO_REF) {
			fail(x, TIO_E_ARG, r->name, NULL);
			return x->err;
		}
		if ((!r->out && role != TNS_INPUT) || (r->out && role == TNS_INPUT)) {
			/* what it is, and what the direction takes (it said the role alone) */
			char names[256], m[360];
			role_names(x, !r->out, names, sizeof names);
			snprintf(m, sizeof m, "%s is the program's %s; %s %s", x->t[ti].name,
				 tns_role_name(role),
				 r->out ? "the outputs and intermediates are" : "the inputs are", names);
			fail(x, r->out ? TIO_E_NOT_OUTPUT : TIO_E_NOT_INPUT, r->name, m);
			return x->err;
		}
		if (r->out && x->t[ti].unwritten) { /* its bytes would be zeros, not a result */
			fail(x, TIO_E_UNWRITTEN, r->name,
			     x->t[ti].unwritten == TNS_UNWRITTEN_GAP
				     ? "the channels its task descriptors write leave a gap"
				     : "no task descriptor writes it");
			return x->err;
		}
		for (unsigned j = 0; j < k; j++) /* both requests named (the name alone before) */
			if (req[j].out == r->out &&
			    tns_find(x->t, x->nt, req[j].name, strlen(req[j].name)) == ti) {
				char m[2 * TIO_MAX_PATH + 160];
				snprintf(m, sizeof m, "%s=%s and %s=%s both name tensor %s (bar %d)",
					 req[j].name, req[j].path, r->name, r->path, x->t[ti].name,
					 x->t[ti].bar);
				fail(x, TIO_E_TWICE, r->name, m);
				return x->err;
			}
		struct tio_io *io = &x->io[x->nio++];
		io->ti = ti;
		io->out = r->out;
		io->npy = is_npy(r->path);
		memcpy(io->path, r->path, sizeof io->path);
		if (io->out != TIO_OUT && load_input(x, io) != TIO_OK)
			return x->err;
		char dir[TIO_MAX_PATH + 2], real[TIO_MAX_PATH];
		if (io->out == TIO_OUT && hal_file_resolve(io->path, real, sizeof real)) {
			/* a loop of symbolic links, or a target's name too long */
			const char *why = open_why(hal_file_open_errno());
			char d[96];
			snprintf(d, sizeof d, "%s (checked before the run: nothing was run)",
				 why ? why : "its symbolic links do not resolve");
			fail(x, TIO_E_OPEN, io->path, d);
			return x->err;
		}
		/* the directory the file goes to: a link's target's */
		if (io->out == TIO_OUT && out_dir_missing(real, dir, sizeof dir)) {
			/* said before the run, not after it (its outputs would have been lost) */
			const char *why = open_why(hal_file_open_errno());
			char d[TIO_MAX_PATH + 96];
			snprintf(d, sizeof d, "its directory %s: %s (checked before the run: nothing "
				 "was run)", dir, why ? why : "it cannot be opened");
			fail(x, TIO_E_OPEN, io->path, d);
			return x->err;
		}
		if (io->out == TIO_OUT && tio_is_directory(io->path)) {
			/* a directory in the output's place: PATH.part was written after the run and
			 * its rename onto the directory failed ("file-write-failed"), the output lost */
			fail(x, TIO_E_IS_DIR, io->path, "(checked before the run: nothing was run)");
			return x->err;
		}
		if (io->out == TIO_REF && io->npy && x->t[ti].fmt != H13_FMT_FP16) {
			fail(x, TIO_E_DTYPE, io->path, "references are float16");
			return x->err;
		}
	}
	for (unsigned i = 0; i < x->nt; i++) {
		const struct tns_tensor *t = &x->t[i];
		if (t->role != TNS_INPUT)
			continue;
		int given = 0;
		for (unsigned k = 0; k < x->nio; k++)
			given |= x->io[k].out == TIO_IN && x->io[k].ti == (int)i;
		char s[64];
		shape_text(t, s, sizeof s);
		if (given)
			outf(x->out, x->ctx, "run: input %s: %s [%s] from file\n", t->name,
			     tns_dtype_name(t->fmt), s);
		else
			outf(x->out, x->ctx,
			     "run: input %s: %s [%s] not given: filled from seed 0x%lx\n", t->name,
			     tns_dtype_name(t->fmt), s, (unsigned long)(TIO_SEED + (unsigned)t->bar));
	}
	return TIO_OK;
}

void tio_fmt3(double v, char *buf, size_t len)
{
	if (v != v) {
		snprintf(buf, len, "nan");
		return;
	}
	const char *sign = v < 0 ? "-" : "";
	if (v < 0)
		v = -v;
	if (v >= 1e15) {
		snprintf(buf, len, "%sinf", sign);
		return;
	}
	uint64_t m = (uint64_t)(v * 1000.0 + 0.5); /* no float printf in the firmware's libc */
	snprintf(buf, len, "%s%lu.%03lu", sign, (unsigned long)(m / 1000), (unsigned long)(m % 1000));
}

static double h2d(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 31)
		return m ? __builtin_nan("") : (h & 0x8000) ? -__builtin_inf() : __builtin_inf();
	double v = e ? (double)(m + 1024) : (double)m;
	int sh = (e ? e : 1) - 25;
	for (; sh < 0; sh++)
		v *= 0.5;
	for (; sh > 0; sh--)
		v *= 2.0;
	return (h & 0x8000) ? -v : v;
}

/* |y - r| of one output value against its reference: 0 for NaN against NaN and for equal
 * infinities, infinite for NaN against a number and for any other pair with an infinity. */
static double pair_err(double y, double r)
{
	double d;
	if (y != y || r != r)
		d = (y != y && r != r) ? 0.0 : __builtin_inf();
	else if (y == r)
		d = 0.0; /* equal infinities too */
	else
		d = y > r ? y - r : r - y;
	return d != d ? __builtin_inf() : d;
}

void tio_compare(const uint8_t *out, const uint8_t *ref, uint64_t n, double *max_err, double *tol)
{
	double worst = 0.0, big = 1.0;
	for (uint64_t i = 0; i < n; i++) {
		double y = h2d(le_rd16(out + 2 * i)), r = h2d(le_rd16(ref + 2 * i));
		double ar = r < 0 ? -r : r, d = pair_err(y, r);
		/* the scale is the largest finite |reference|: an infinity would make the tolerance
		 * infinite and pass anything; an infinite reference is matched only by the same
		 * infinity (pair_err gives any other output an infinite error) */
		if (r == r && ar < __builtin_inf() && ar > big)
			big = ar;
		if (d > worst)
			worst = d;
	}
	*max_err = worst;
	*tol = big / 1024.0;
}

void tio_compare_tol(const uint8_t *out, const uint8_t *ref, uint64_t n, double rtol, double atol,
		     double *max_err, uint64_t *outside)
{
	double worst = 0.0;
	uint64_t bad = 0;
	for (uint64_t i = 0; i < n; i++) {
		double y = h2d(le_rd16(out + 2 * i)), r = h2d(le_rd16(ref + 2 * i));
		double ar = r < 0 ? -r : r, d = pair_err(y, r);
		if (d > worst)
			worst = d;
		/* an infinite reference allows no finite output: atol + rtol x inf is inf, so only
		 * the equal infinity (d 0) passes */
		if (d > 0.0 && !(d <= atol + rtol * ar && ar < __builtin_inf()))
			bad++;
	}
	*max_err = worst;
	*outside = bad;
}

enum tio_err tio_parse_tol(const char *s, size_t len, double *v)
{
	size_t i = 0;
	double m = 0.0;
	int digits = 0, scale = 0, e = 0, esign = 1;
	if (!s || !len || len >= TIO_TOL_TEXT)
		return TIO_E_TOL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		m = m * 10.0 + (s[i] - '0');
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++, scale--)
			m = m * 10.0 + (s[i] - '0');
	if (!digits)
		return TIO_E_TOL;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		int ed = 0;
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			esign = s[i++] == '-' ? -1 : 1;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, ed++)
			if (e < 1000)
				e = e * 10 + (s[i] - '0');
		if (!ed || e > 99) /* 1e-999999 is not a tolerance anyone means */
			return TIO_E_TOL;
	}
	if (i != len)
		return TIO_E_TOL;
	int p = scale + esign * e; /* m x 10^p: |p| under 124 (23 characters, exponent 99) */
	for (; p > 0 && m <= 1e7; p--)
		m *= 10.0;
	for (; p < 0; p++)
		m /= 10.0;
	if (p > 0 || !(m <= 1e6))
		return TIO_E_TOL;
	*v = m;
	return TIO_OK;
}

enum tio_err tio_tol_make(const char *rtol, const char *atol, struct tio_tol *t)
{
	memset(t, 0, sizeof *t);
	if (!rtol && !atol)
		return TIO_OK;
	const char *r = rtol ? rtol : "0", *a = atol ? atol : "0";
	if (tio_parse_tol(r, strlen(r), &t->rtol) || tio_parse_tol(a, strlen(a), &t->atol))
		return TIO_E_TOL;
	snprintf(t->rtol_s, sizeof t->rtol_s, "%s", r);
	snprintf(t->atol_s, sizeof t->atol_s, "%s", a);
	t->set = 1;
	return TIO_OK;
}

void tio_set_tol(struct tio *x, const struct tio_tol *t)
{
	x->tol = *t;
}

/* One reference: the captured output against the file's values, one line, MISMATCH an error. */
static void compare_ref(struct tio *x, struct tio_io *io, const struct tns_tensor *t)
{
	size_t dn = (size_t)(t->nelem * t->elem);
	uint8_t *dense = malloc(dn ? dn : 1), *ref = malloc(dn ? dn : 1);
	if (!dense || !ref || t->elem != 2) {
		fail(x, dense && ref ? TIO_E_DTYPE : TIO_E_NOMEM, t->name, NULL);
		free(dense);
		free(ref);
		return;
	}
	tio_gather(t, io->captured, t->bytes, dense);
	if (io->npy)
		memcpy(ref, io->a.data, dn);
	else
		tio_gather(t, io->file, io->file_len, ref);
	double err, tol;
	char es[32], ts[32];
	int ok;
	if (x->tol.set) {
		uint64_t outside;
		tio_compare_tol(dense, ref, t->nelem, x->tol.rtol, x->tol.atol, &err, &outside);
		tio_fmt3(err, es, sizeof es);
		ok = outside == 0;
		outf(x->out, x->ctx, "%s %s: %lu values, max abs error %s, %lu outside atol %s + rtol %s x "
		     "|ref|: %s\n", tns_role_name(t->role), t->name, (unsigned long)t->nelem, es,
		     (unsigned long)outside, x->tol.atol_s, x->tol.rtol_s, ok ? "ok" : "MISMATCH");
	} else {
		tio_compare(dense, ref, t->nelem, &err, &tol);
		tio_fmt3(err, es, sizeof es);
		tio_fmt3(tol, ts, sizeof ts);
		ok = err <= tol;
		outf(x->out, x->ctx, "%s %s: %lu values, max abs error %s vs reference (tolerance %s): %s\n",
		     tns_role_name(t->role), t->name, (unsigned long)t->nelem, es, ts, ok ? "ok" : "MISMATCH");
	}
	if (!ok)
		x->err = TIO_E_MISMATCH;
	free(dense);
	free(ref);
}

/* 1 when the file at io's path is what an earlier run wrote for io's tensor: a .npy of its dtype
 * and element count (a raw path: exactly the tensor's bytes), and not the bytes of a file this
 * run read, an input, a reference or the program (the same file may be spelled another way:
 * "./x.npy", a link). Anything else there, or a file that cannot be read whole, is left. */
static int earlier_output_at(const struct tio *x, const struct tio_io *io)
{
	const struct tns_tensor *t = &x->t[io->ti];
	const uint64_t data = t->nelem * t->elem, most = io->npy ? data + 65536u : t->bytes;
	int fd = hal_file_open(io->path, 0);
	if (fd < 0)
		return 0;
	long len = hal_file_length(fd);
	uint8_t *b = len > 0 && (uint64_t)len <= most ? malloc((size_t)len) : NULL;
	int ours = b && hal_file_read(fd, b, (size_t)len) == len;
	hal_file_close(fd);
	if (ours && io->npy) {
		struct npy_array a;
		ours = npy_parse(b, (size_t)len, &a) == NPY_OK && a.dtype == npy_of_fmt(t->fmt) &&
		       a.data_len == data;
	} else if (ours) {
		ours = (uint64_t)len == t->bytes;
	}
	for (unsigned j = 0; ours && j <= x->nio; j++) {
		const uint8_t *f = j < x->nio ? x->io[j].file : x->prog;
		size_t fl = j < x->nio ? x->io[j].file_len : x->prog_len;
		ours = !(f && fl == (size_t)len && !memcmp(b, f, fl));
	}
	free(b);
	return ours;
}

/* An output not produced leaves no file at its path: an earlier run's output there is removed,
 * so the path holds this run's output or nothing; never a file this run read (earlier_output_at). */
static void drop_stale(const struct tio *x, const struct tio_io *io)
{
	if (io->out != TIO_OUT || hal_file_is_special(io->path))
		return; /* a device or FIFO is not removed (nor a FIFO opened: it would wait) */
	for (unsigned j = 0; j < x->nio; j++)
		if (x->io[j].out != TIO_OUT && !strcmp(x->io[j].path, io->path))
			return;
	char real[TIO_MAX_PATH];
	if (earlier_output_at(x, io) && !hal_file_resolve(io->path, real, sizeof real))
		hal_file_remove(real); /* through a link, its target: the output it was written to */
}

enum tio_err tio_finish(struct tio *x, int ran)
{
	static uint8_t hdr[256];
	for (unsigned k = 0; k < x->nio; k++) {
		struct tio_io *io = &x->io[k];
		if (!io->out)
			continue;
		const struct tns_tensor *t = &x->t[io->ti];
		if (!ran || !io->captured) {
			fail(x, TIO_E_NOT_RUN, t->name,
			     io->out == TIO_REF ? "not compared" : "nothing written");
			drop_stale(x, io);
			continue;
		}
		if (io->out == TIO_REF) {
			compare_ref(x, io, t);
			continue;
		}
		enum tio_err e;
		char s[64];
		shape_text(t, s, sizeof s);
		if (io->npy) {
			uint64_t shape[5];
			size_t hl;
			for (unsigned i = 0; i < t->ndim; i++)
				shape[i] = t->shape[i];
			size_t dn = (size_t)(t->nelem * t->elem);
			uint8_t *dense = malloc(dn ? dn : 1);
			if (!dense) {
				fail(x, TIO_E_NOMEM, t->name, NULL);
				drop_stale(x, io);
				continue;
			}
			tio_gather(t, io->captured, t->bytes, dense);
			if (npy_header(npy_of_fmt(t->fmt), shape, t->ndim, hdr, sizeof hdr, &hl) != NPY_OK)
				e = TIO_E_WRITE;
			else
				e = write_file(io->path, hdr, hl, dense, (size_t)(t->nelem * t->elem));
			free(dense);
		} else {
			e = write_file(io->path, io->captured, (size_t)t->bytes, NULL, 0);
		}
		if (e != TIO_OK) {
			char why[96];
			fail(x, e, io->path, file_detail(e, 1, why, sizeof why));
			drop_stale(x, io);
			continue;
		}
		if (io->npy)
			outf(x->out, x->ctx, "run: %s %s: %s [%s] written to %s\n",
			     tns_role_name(t->role), t->name, tns_dtype_name(t->fmt), s, io->path);
		else
			outf(x->out, x->ctx, "run: %s %s: 0x%lx bytes (buffer layout) written to %s\n",
			     tns_role_name(t->role), t->name, (unsigned long)t->bytes, io->path);
	}
	return x->err;
}

void tio_free(struct tio *x)
{
	for (unsigned k = 0; k < x->nio; k++) {
		free(x->io[k].file);
		free(x->io[k].captured);
		x->io[k].file = x->io[k].captured = NULL;
	}
	x->nio = 0;
}
