/* NumPy .npy files (see npy.h). */
#include "fw/formats/npy.h"

#include <string.h>

static const struct err_desc errs[NPY_E__COUNT] = {
	[NPY_OK] = {"ok", "no error"},
	[NPY_E_ARG] = {"npy-bad-argument", "a null pointer, or a bad dtype or shape to write"},
	[NPY_E_TRUNCATED] = {"npy-truncated", "shorter than its preamble or header"},
	[NPY_E_MAGIC] = {"npy-bad-magic", "not a .npy file (no \\x93NUMPY magic)"},
	[NPY_E_VERSION] = {"npy-bad-version", "a format version other than 1.0, 2.0, 3.0"},
	[NPY_E_HEADER] = {"npy-bad-header", "the dict is malformed, lacks a key, or repeats one"},
	[NPY_E_DTYPE] = {"npy-unsupported-dtype",
	 "an element type other than float16, int8, uint8, bool (little-endian)"},
	[NPY_E_FORTRAN] = {"npy-fortran-order",
	 "fortran_order True on an array of more than one dimension"},
	[NPY_E_SHAPE] = {"npy-bad-shape",
	 "too many dimensions, or a size that overflows"},
	[NPY_E_DATA_SIZE] = {"npy-data-size",
	 "the bytes after the header are not the array's size"},
	[NPY_E_NO_ROOM] = {"npy-no-room", "the header does not fit the output buffer"},
	[NPY_E_BOOL] = {"npy-bool-value", "a bool array holds a byte other than 0 (False) or 1 (True)"},
};

const struct err_desc *npy_err(enum npy_err e)
{
	static const struct err_desc unknown = {"npy-unknown-error",
						  "a value this module does not define"};
	return err_lookup(errs, NPY_E__COUNT, (unsigned)e, &unknown);
}

const char *npy_err_name(enum npy_err e)
{
	return npy_err(e)->name;
}

const char *npy_dtype_name(unsigned dt)
{
	return dt == NPY_F16 ? "float16" : dt == NPY_I8 ? "int8" : dt == NPY_U8 ? "uint8"
	       : dt == NPY_BOOL ? "bool" : "?";
}

unsigned npy_dtype_size(unsigned dt)
{
	return dt == NPY_F16 ? 2u : dt == NPY_I8 || dt == NPY_U8 || dt == NPY_BOOL ? 1u : 0u;
}

static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* ---- the header dict: a cursor over [s, e) ---- */
struct cur {
	const char *s, *e;
};

static void skip_ws(struct cur *c)
{
	while (c->s < c->e && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
		c->s++;
}

static int eat(struct cur *c, char ch)
{
	skip_ws(c);
	if (c->s < c->e && *c->s == ch) {
		c->s++;
		return 1;
	}
	return 0;
}

/* A quoted string ('...' or "..."), no escapes; its body in [*b, *b + *n). */
static int string(struct cur *c, const char **b, size_t *n)
{
	skip_ws(c);
	if (c->s >= c->e || (*c->s != '\'' && *c->s != '"'))
		return -1;
	char q = *c->s++;
	const char *s = c->s;
	while (c->s < c->e && *c->s != q) {
		if (*c->s == '\\')
			return -1;
		c->s++;
	}
	if (c->s >= c->e)
		return -1;
	*b = s;
	*n = (size_t)(c->s - s);
	c->s++;
	return 0;
}

static int word(struct cur *c, const char *w)
{
	size_t n = strlen(w);
	skip_ws(c);
	if ((size_t)(c->e - c->s) < n || memcmp(c->s, w, n))
		return 0;
	c->s += n;
	return 1;
}

/* A decimal integer (an optional trailing L, as Python 2 wrote them); -1 malformed, -2 too big. */
static int integer(struct cur *c, uint64_t *v)
{
	skip_ws(c);
	uint64_t x = 0;
	const char *s = c->s;
	while (c->s < c->e && *c->s >= '0' && *c->s <= '9') {
		unsigned d = (unsigned)(*c->s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -2;
		x = x * 10 + d;
		c->s++;
	}
	if (c->s == s)
		return -1;
	if (c->s < c->e && *c->s == 'L')
		c->s++;
	*v = x;
	return 0;
}

static enum npy_err parse_descr(const char *d, size_t n, unsigned *dt)
{
	if (n == 3 && (d[0] == '<' || d[0] == '=') && d[1] == 'f' && d[2] == '2') {
		*dt = NPY_F16;
		return NPY_OK;
	}
	if (n == 3 && (d[0] == '|' || d[0] == '<' || d[0] == '>' || d[0] == '=')) {
		d++;
		n--;
	}
	if (n == 2 && d[0] == 'i' && d[1] == '1') {
		*dt = NPY_I8;
		return NPY_OK;
	}
	if (n == 2 && d[0] == 'u' && d[1] == '1') {
		*dt = NPY_U8;
		return NPY_OK;
	}
	if (n == 2 && d[0] == 'b' && d[1] == '1') {
		*dt = NPY_BOOL;
		return NPY_OK;
	}
	return NPY_E_DTYPE;
}

static enum npy_err parse_shape(struct cur *c, struct npy_array *a)
{
	if (!eat(c, '('))
		return NPY_E_HEADER;
	a->ndim = 0;
	a->nelem = 1;
	while (!eat(c, ')')) {
		uint64_t v;
		int r = integer(c, &v);
		if (r == -1)
			return NPY_E_HEADER;
		if (r == -2 || a->ndim >= NPY_MAX_DIMS)
			return NPY_E_SHAPE;
		if (__builtin_mul_overflow(a->nelem, v, &a->nelem))
			return NPY_E_SHAPE;
		a->shape[a->ndim++] = v;
		if (!eat(c, ',')) {
			if (!eat(c, ')'))
				return NPY_E_HEADER;
			break;
		}
	}
	return NPY_OK;
}

enum npy_err npy_parse(const uint8_t *buf, size_t len, struct npy_array *a)
{
	if (!buf || !a)
		return NPY_E_ARG;
	memset(a, 0, sizeof *a);
	if (len < 10)
		return len >= 6 && memcmp(buf, magic, 6) ? NPY_E_MAGIC : NPY_E_TRUNCATED;
	if (memcmp(buf, magic, 6))
		return NPY_E_MAGIC;
	unsigned major = buf[6], minor = buf[7];
	if (major < 1 || major > 3 || minor != 0)
		return NPY_E_VERSION;
	size_t pre = major == 1 ? 10 : 12;
	if (len < pre)
		return NPY_E_TRUNCATED;
	uint64_t hlen = major == 1 ? (uint64_t)buf[8] | (uint64_t)buf[9] << 8
				   : (uint64_t)buf[8] | (uint64_t)buf[9] << 8 |
					     (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
	if (hlen > NPY_MAX_HEADER)
		return NPY_E_HEADER;
	if (hlen > len - pre)
		return NPY_E_TRUNCATED;
	struct cur c = {(const char *)buf + pre, (const char *)buf + pre + hlen};
	int have_descr = 0, have_fo = 0, have_shape = 0, fortran = 0;
	enum npy_err e;
	if (!eat(&c, '{'))
		return NPY_E_HEADER;
	while (!eat(&c, '}')) {
		const char *k;
		size_t kn;
		if (string(&c, &k, &kn) || !eat(&c, ':'))
			return NPY_E_HEADER;
		if (kn == 5 && !memcmp(k, "descr", 5)) {
			const char *d;
			size_t dn;
			if (have_descr++ || string(&c, &d, &dn))
				return NPY_E_HEADER;
			size_t keep = dn < sizeof a->descr ? dn : sizeof a->descr - 1;
			memcpy(a->descr, d, keep);
			a->descr[keep] = 0;
			if ((e = parse_descr(d, dn, &a->dtype)) != NPY_OK)
				return e;
		} else if (kn == 13 && !memcmp(k, "fortran_order", 13)) {
			if (have_fo++)
				return NPY_E_HEADER;
			if (word(&c, "True"))
				fortran = 1;
			else if (!word(&c, "False"))
				return NPY_E_HEADER;
		} else if (kn == 5 && !memcmp(k, "shape", 5)) {
			if (have_shape++)
				return NPY_E_HEADER;
			if ((e = parse_shape(&c, a)) != NPY_OK)
				return e;
		} else {
			return NPY_E_HEADER;
		}
		if (!eat(&c, ',')) {
			if (!eat(&c, '}'))
				return NPY_E_HEADER;
			break;
		}
	}
	skip_ws(&c);
	if (c.s != c.e || !have_descr || !have_fo || !have_shape)
		return NPY_E_HEADER;
	if (fortran && a->ndim > 1)
		return NPY_E_FORTRAN;
	if (__builtin_mul_overflow(a->nelem, (uint64_t)npy_dtype_size(a->dtype), &a->data_len))
		return NPY_E_SHAPE;
	if (a->data_len != len - pre - hlen)
		return NPY_E_DATA_SIZE;
	a->data = buf + pre + hlen;
	if (a->dtype == NPY_BOOL) /* checked whole before anyone reads it */
		for (uint64_t i = 0; i < a->data_len; i++)
			if (a->data[i] > 1u)
				return NPY_E_BOOL;
	return NPY_OK;
}

/* ---- writing ---- */
struct wr {
	uint8_t *o;
	size_t n, cap;
	int over;
};

static void put(struct wr *w, const char *s)
{
	for (; *s; s++) {
		if (w->n >= w->cap) {
			w->over = 1;
			return;
		}
		w->o[w->n++] = (uint8_t)*s;
	}
}

static void put_u64(struct wr *w, uint64_t v)
{
	char d[24];
	unsigned n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	char s[24];
	for (unsigned i = 0; i < n; i++)
		s[i] = d[n - 1 - i];
	s[n] = 0;
	put(w, s);
}

enum npy_err npy_header(unsigned dtype, const uint64_t *shape, unsigned ndim, uint8_t *out,
			size_t cap, size_t *len)
{
	if (!out || !len || !npy_dtype_size(dtype) || ndim > NPY_MAX_DIMS || (ndim && !shape))
		return NPY_E_ARG;
	struct wr w = {out, 0, cap, 0};
	put(&w, "\x93NUMPY\x01");
	if (w.n < w.cap)
		w.o[w.n++] = 0; /* minor version 0 */
	else
		w.over = 1;
	put(&w, "  "); /* the header length, filled in below */
	put(&w, "{'descr': '");
	put(&w, dtype == NPY_F16 ? "<f2" : dtype == NPY_I8 ? "|i1" : dtype == NPY_BOOL ? "|b1" : "|u1");
	put(&w, "', 'fortran_order': False, 'shape': (");
	for (unsigned i = 0; i < ndim; i++) {
		put_u64(&w, shape[i]);
		put(&w, i + 1 < ndim ? ", " : ndim == 1 ? ",)" : ")");
	}
	if (!ndim)
		put(&w, ")");
	put(&w, ", }");
	while (!w.over && (w.n + 1) % 64)
		put(&w, " ");
	put(&w, "\n");
	if (w.over)
		return NPY_E_NO_ROOM;
	size_t hlen = w.n - 10;
	if (hlen > 0xffff)
		return NPY_E_ARG;
	out[8] = (uint8_t)(hlen & 0xff);
	out[9] = (uint8_t)(hlen >> 8);
	*len = w.n;
	return NPY_OK;
}
