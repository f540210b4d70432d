/*
 * NumPy .npy files (fw/formats/npy): headers as numpy writes them (versions 1.0, 2.0, 3.0, any
 * key order, either quote) parse to their dtype, shape and data; what npy_header writes parses
 * back; every malformed file is refused with its named error, and nothing past (buf, len) is read.
 */
#include "fw/formats/npy.h"
#include "tests/harness/harness.h"

#include <stdlib.h>
#include <string.h>

/* A file: the preamble of version major, the dict text padded to 64 with a newline, then
 * data_len bytes of data (0x11, 0x22, ...). */
static size_t mk(uint8_t *out, unsigned major, const char *dict, size_t data_len)
{
	size_t pre = major == 1 ? 10 : 12, dl = strlen(dict), hl = dl + 1;
	while ((pre + hl) % 64)
		hl++;
	memcpy(out, "\x93NUMPY", 6);
	out[6] = (uint8_t)major;
	out[7] = 0;
	out[8] = (uint8_t)hl;
	out[9] = (uint8_t)(hl >> 8);
	if (major > 1)
		out[10] = out[11] = 0;
	memcpy(out + pre, dict, dl);
	memset(out + pre + dl, ' ', hl - dl - 1);
	out[pre + hl - 1] = '\n';
	for (size_t i = 0; i < data_len; i++)
		out[pre + hl + i] = (uint8_t)(0x11 * (i + 1));
	return pre + hl + data_len;
}

static uint8_t f[4096];

/* n bytes of needle somewhere in [h, h + hl) (memmem is not in every C library) */
static int contains(const uint8_t *h, size_t hl, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= hl; i++)
		if (!memcmp(h + i, needle, n))
			return 1;
	return 0;
}

TEST(npy, numpy_headers_parse)
{
	struct npy_array a;
	size_t n = mk(f, 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3, 4), }", 48);
	REQUIRE(npy_parse(f, n, &a) == NPY_OK);
	CHECK_EQ(a.dtype, NPY_F16);
	CHECK_EQ(a.ndim, 3u);
	CHECK_EQ(a.shape[0], 2u);
	CHECK_EQ(a.shape[1], 3u);
	CHECK_EQ(a.shape[2], 4u);
	CHECK_EQ(a.nelem, 24u);
	CHECK_EQ(a.data_len, 48u);
	CHECK(a.data == f + n - 48);
	CHECK_EQ(a.data[0], 0x11u);
	/* 1-D, int8 with '|', keys in another order, double quotes, version 2 */
	n = mk(f, 2, "{\"shape\": (7,), \"fortran_order\": False, \"descr\": \"|i1\"}", 7);
	REQUIRE(npy_parse(f, n, &a) == NPY_OK);
	CHECK_EQ(a.dtype, NPY_I8);
	CHECK_EQ(a.ndim, 1u);
	CHECK_EQ(a.shape[0], 7u);
	n = mk(f, 3, "{'descr': 'u1', 'fortran_order': False, 'shape': (), }", 1);
	REQUIRE(npy_parse(f, n, &a) == NPY_OK);
	CHECK_EQ(a.dtype, NPY_U8);
	CHECK_EQ(a.ndim, 0u);
	CHECK_EQ(a.nelem, 1u);
	/* fortran order is harmless on one dimension; an empty array has no data */
	n = mk(f, 1, "{'descr': '<f2', 'fortran_order': True, 'shape': (0,), }", 0);
	REQUIRE(npy_parse(f, n, &a) == NPY_OK);
	CHECK_EQ(a.nelem, 0u);
	CHECK_STR(npy_dtype_name(NPY_F16), "float16");
	CHECK_EQ(npy_dtype_size(NPY_U8), 1u);
	CHECK_EQ(npy_dtype_size(99), 0u);
}

/* numpy's bool ('|b1'): one byte an element, each 0 or 1; any other byte is refused by name */
TEST(npy, bool_arrays_parse_and_hold_only_0_and_1)
{
	struct npy_array a;
	size_t n = mk(f, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3), }", 6);
	const size_t data = n - 6;
	for (unsigned i = 0; i < 6; i++)
		f[data + i] = (uint8_t)(i % 2u);
	REQUIRE(npy_parse(f, n, &a) == NPY_OK);
	CHECK_EQ(a.dtype, NPY_BOOL);
	CHECK_EQ(a.nelem, 6u);
	CHECK_EQ(a.data_len, 6u);
	CHECK_STR(npy_dtype_name(NPY_BOOL), "bool");
	CHECK_EQ(npy_dtype_size(NPY_BOOL), 1u);
	f[data + 5] = 2; /* not a bool */
	CHECK_EQ(npy_parse(f, n, &a), NPY_E_BOOL);
	CHECK_STR(npy_err_name(NPY_E_BOOL), "npy-bool-value");
	f[data + 5] = 0xff;
	CHECK_EQ(npy_parse(f, n, &a), NPY_E_BOOL);
	/* and npy_header writes it back */
	uint64_t shape[1] = {6};
	size_t hl = 0;
	REQUIRE(npy_header(NPY_BOOL, shape, 1, f, sizeof f, &hl) == NPY_OK);
	CHECK(contains(f, hl, "'descr': '|b1'"));
}

TEST(npy, written_headers_parse_back)
{
	static uint8_t h[256];
	const uint64_t shapes[3][4] = {{16, 2, 8}, {77}, {2, 3, 1, 5}};
	const unsigned ndims[3] = {3, 1, 4}, dts[3] = {NPY_F16, NPY_I8, NPY_U8};
	for (unsigned k = 0; k < 3; k++) {
		size_t hl = 0;
		REQUIRE(npy_header(dts[k], shapes[k], ndims[k], h, sizeof h, &hl) == NPY_OK);
		CHECK_EQ(hl % 64, 0u);
		CHECK_EQ(h[hl - 1], '\n');
		uint64_t ne = 1;
		for (unsigned i = 0; i < ndims[k]; i++)
			ne *= shapes[k][i];
		size_t dl = ne * npy_dtype_size(dts[k]);
		memcpy(f, h, hl);
		memset(f + hl, 0x5a, dl);
		struct npy_array a;
		REQUIRE(npy_parse(f, hl + dl, &a) == NPY_OK);
		CHECK_EQ(a.dtype, dts[k]);
		CHECK_EQ(a.ndim, ndims[k]);
		for (unsigned i = 0; i < ndims[k]; i++)
			CHECK_EQ(a.shape[i], shapes[k][i]);
	}
	/* the 1-D form is "(77,)", as numpy writes it */
	size_t hl = 0;
	REQUIRE(npy_header(NPY_I8, shapes[1], 1, h, sizeof h, &hl) == NPY_OK);
	CHECK(contains(h, hl, "'shape': (77,)"));
	CHECK(contains(h, hl, "'descr': '|i1'"));
	CHECK(!contains(h, hl, "'shape': (77)"));
	/* the writer's own errors */
	CHECK_EQ(npy_header(NPY_F16, shapes[0], 3, h, 40, &hl), NPY_E_NO_ROOM);
	CHECK_EQ(npy_header(0, shapes[0], 3, h, sizeof h, &hl), NPY_E_ARG);
	CHECK_EQ(npy_header(NPY_F16, shapes[0], NPY_MAX_DIMS + 1, h, sizeof h, &hl), NPY_E_ARG);
	CHECK_EQ(npy_header(NPY_F16, NULL, 2, h, sizeof h, &hl), NPY_E_ARG);
}

struct bad {
	unsigned major;
	const char *dict;
	long data; /* bytes of data, -1: one short of the shape's */
	enum npy_err want;
};

TEST(npy, malformed_files_named)
{
	static const struct bad cases[] = {
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8, NPY_E_DTYPE},
		{1, "{'descr': '>f2', 'fortran_order': False, 'shape': (2,), }", 4, NPY_E_DTYPE},
		{1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", 4, NPY_E_DTYPE},
		{1, "{'descr': '<f2', 'fortran_order': True, 'shape': (2, 2), }", 8, NPY_E_FORTRAN},
		{1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", 7, NPY_E_DATA_SIZE},
		{1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", 9, NPY_E_DATA_SIZE},
		{1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 2,
		 NPY_E_SHAPE},
		{1, "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0,
		 NPY_E_SHAPE},
		{1, "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0,
		 NPY_E_SHAPE},
		{1, "{'descr': '<f2', 'fortran_order': False, }", 0, NPY_E_HEADER},
		{1, "{'descr': '<f2', 'descr': '<f2', 'fortran_order': False, 'shape': (), }", 2,
		 NPY_E_HEADER},
		{1, "{'descr': '<f2', 'fortran_order': Maybe, 'shape': (), }", 2, NPY_E_HEADER},
		{1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), 'x': 1}", 4, NPY_E_HEADER},
		{1, "{'descr': '<f2", 0, NPY_E_HEADER},
		{1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,a), }", 4, NPY_E_HEADER},
		{1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,) } x", 4, NPY_E_HEADER},
		{1, "['descr', '<f2']", 4, NPY_E_HEADER},
		{1, "{'de\\'scr': '<f2', 'fortran_order': False, 'shape': (2,), }", 4, NPY_E_HEADER},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = mk(f, cases[i].major, cases[i].dict, (size_t)cases[i].data);
		struct npy_array a;
		enum npy_err e = npy_parse(f, n, &a);
		CHECKF(e == cases[i].want, "case %u (%s): got %s, want %s", i, cases[i].dict,
		       npy_err_name(e), npy_err_name(cases[i].want));
	}
	/* the preamble */
	const char *ok = "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }";
	size_t n = mk(f, 1, ok, 4);
	struct npy_array a;
	REQUIRE(npy_parse(f, n, &a) == NPY_OK);
	f[1] = 'n';
	CHECK_EQ(npy_parse(f, n, &a), NPY_E_MAGIC);
	CHECK_EQ(npy_parse(f, 7, &a), NPY_E_MAGIC);
	f[1] = 'N';
	f[6] = 4;
	CHECK_EQ(npy_parse(f, n, &a), NPY_E_VERSION);
	f[6] = 1;
	f[7] = 1;
	CHECK_EQ(npy_parse(f, n, &a), NPY_E_VERSION);
	f[7] = 0;
	f[9] = 0x7f; /* a header length past the end */
	CHECK_EQ(npy_parse(f, n, &a), NPY_E_TRUNCATED);
	f[9] = 0;
	n = mk(f, 2, ok, 4);
	f[10] = 0x01; /* 2.0: a 4-byte length over the limit */
	CHECK_EQ(npy_parse(f, n, &a), NPY_E_HEADER);
	CHECK_EQ(npy_parse(f, 3, &a), NPY_E_TRUNCATED);
	CHECK_EQ(npy_parse(NULL, 3, &a), NPY_E_ARG);
	CHECK_STR(npy_err_name(NPY_E_DATA_SIZE), "npy-data-size");
	CHECK_STR(npy_err_name((enum npy_err)99), "npy-unknown-error");
}

/* Every prefix of a valid file, in an exact-size heap copy: refused, and ASan sees no read past. */
TEST(npy, truncations_refused_without_overread)
{
	size_t n = mk(f, 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 2), }", 12);
	for (size_t k = 0; k < n; k++) {
		uint8_t *c = malloc(k ? k : 1);
		REQUIRE(c != NULL);
		memcpy(c, f, k);
		struct npy_array a;
		enum npy_err e = npy_parse(c, k, &a);
		CHECKF(e != NPY_OK, "prefix of %lu bytes accepted", (unsigned long)k);
		free(c);
	}
}
