/*
 * Golden vectors from tests/oracle/gen_codecs.py (an independent numpy oracle written from the
 * documents): every case must decode bit for bit, without writing past the output it needs.
 * Runs natively and on the target (files over semihosting).
 */
#include "fw/codec/codec.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct acv {
	uint8_t *buf;
	size_t len, pos;
	uint32_t ncases;
};

struct acv_case {
	uint32_t np, nb;
	uint32_t p[8];
	const uint8_t *b[6];
	uint32_t bl[6];
};

/* 0, or -1 when the file cannot be read, -2 when it is not an ACV1 file (make test generates
 * every one of them: both are failures). */
static int acv_open(struct acv *a, const char *rel)
{
	memset(a, 0, sizeof(*a));
	const char *path = test_data_path(rel);
	if (!path || test_read_file(path, &a->buf, &a->len))
		return -1;
	if (a->len < 8 || memcmp(a->buf, "ACV1", 4))
		return -2;
	memcpy(&a->ncases, a->buf + 4, 4);
	a->pos = 8;
	return 0;
}

static int acv_u32(struct acv *a, uint32_t *v)
{
	if (a->len - a->pos < 4)
		return -1;
	memcpy(v, a->buf + a->pos, 4);
	a->pos += 4;
	return 0;
}

/* Reads one case; -1 on a malformed file. Blob pointers are 4-byte aligned. */
static int acv_next(struct acv *a, struct acv_case *c)
{
	if (acv_u32(a, &c->np) || c->np > 8)
		return -1;
	for (uint32_t i = 0; i < c->np; i++)
		if (acv_u32(a, &c->p[i]))
			return -1;
	if (acv_u32(a, &c->nb) || c->nb > 6 || c->nb == 0)
		return -1;
	for (uint32_t i = 0; i < c->nb; i++) {
		if (acv_u32(a, &c->bl[i]))
			return -1;
		size_t padded = ((size_t)c->bl[i] + 3) & ~(size_t)3;
		if (a->len - a->pos < padded)
			return -1;
		c->b[i] = a->buf + a->pos;
		a->pos += padded;
	}
	return 0;
}

#define GUARD 16
static uint8_t *out_buf(size_t n)
{
	uint8_t *o = malloc(n + GUARD);
	if (o)
		memset(o, 0xa5, n + GUARD);
	return o;
}

static int guard_intact(const uint8_t *o, size_t n)
{
	for (size_t i = 0; i < GUARD; i++)
		if (o[n + i] != 0xa5)
			return 0;
	return 1;
}

static void report(const char *what, uint32_t ncases, unsigned bad, unsigned first_bad)
{
	CHECKF(!bad, "%s: %u of %lu cases differ (first: case %u)", what, bad, (unsigned long)ncases,
	       first_bad);
}

/* One kind of golden vector: cases in codecs/<name>.cases with np parameters and nb blobs, the
 * last blob the expected output (out_bytes(c) bytes); decode writes one case's output into o.
 * extra, when set, runs further checks on a case and returns nonzero when one fails. */
struct vec_kind {
	const char *name;
	uint32_t np, nb;
	size_t (*out_bytes)(const struct acv_case *c);
	enum codec_err (*decode)(const struct acv_case *c, uint8_t *o, size_t n);
	int (*extra)(const struct acv_case *c, uint8_t *o);
};

/* Decodes every case of a kind and compares it bit for bit, guard bytes untouched. */
static void run_vectors(const struct vec_kind *v)
{
	char rel[64];
	struct acv a;
	snprintf(rel, sizeof rel, "codecs/%s.cases", v->name);
	int open_rc = acv_open(&a, rel);
	if (open_rc) {
		free(a.buf);
		FAIL("%s: %s (make test generates it with tests/oracle)", rel,
		     open_rc == -1 ? "cannot be read" : "not an ACV1 vector file (bad magic or short)");
	}
	CHECK(a.ncases >= 10000);
	unsigned bad = 0, first = 0;
	for (uint32_t k = 0; k < a.ncases; k++) {
		struct acv_case c;
		if (acv_next(&a, &c) || c.np != v->np || c.nb != v->nb) {
			test_fail_at(__FILE__, __LINE__, "%s: malformed case %u", v->name, k);
			break;
		}
		size_t n = v->out_bytes(&c);
		uint8_t *o = out_buf(n);
		REQUIRE(o);
		enum codec_err e = v->decode(&c, o, n);
		int fail = e != CODEC_OK || c.bl[v->nb - 1] != n || memcmp(o, c.b[v->nb - 1], n) || !guard_intact(o, n);
		if (v->extra && v->extra(&c, o))
			fail = 1;
		if (fail && !bad++)
			first = k;
		free(o);
	}
	report(v->name, a.ncases, bad, first);
	free(a.buf);
}

/* palette: bits, vector, groups, count; indices, codebooks, expected */
static size_t palette_bytes(const struct acv_case *c)
{
	return (size_t)c->p[3] * 2;
}

static enum codec_err palette_one(const struct acv_case *c, uint8_t *o, size_t n)
{
	struct codec_palette p = {c->p[0], c->p[1], c->p[2]};
	return codec_palette_decode(&p, c->b[0], c->bl[0], (const uint16_t *)c->b[1], c->bl[1] / 2, (uint16_t *)o,
				    n / 2);
}

TEST(codec_vectors, palette)
{
	static const struct vec_kind v = {"palette", 4, 3, palette_bytes, palette_one, NULL};
	run_vectors(&v);
}

/* sparse: count; mask, values, expected */
static size_t sparse_bytes(const struct acv_case *c)
{
	return (size_t)c->p[0] * 2;
}

static enum codec_err sparse_one(const struct acv_case *c, uint8_t *o, size_t n)
{
	return codec_sparse_decode(c->b[0], c->bl[0], (const uint16_t *)c->b[1], c->bl[1] / 2, (uint16_t *)o, n / 2);
}

/* one value too many is a count error */
static int sparse_count_refused(const struct acv_case *c, uint8_t *o)
{
	return codec_sparse_decode(c->b[0], c->bl[0], (const uint16_t *)c->b[1], c->bl[1] / 2 + 1, (uint16_t *)o,
				   c->p[0]) != CODEC_E_COUNT;
}

TEST(codec_vectors, sparse)
{
	static const struct vec_kind v = {"sparse", 1, 3, sparse_bytes, sparse_one, sparse_count_refused};
	run_vectors(&v);
}

/* affine and blockwise: type, channels or block, count, has zero points / offsets;
 * q, scales, zero points / offsets, expected */
static size_t quant_bytes(const struct acv_case *c)
{
	return (size_t)c->p[2] * 2;
}

static enum codec_err affine_one(const struct acv_case *c, uint8_t *o, size_t n)
{
	struct codec_affine p = {(enum codec_qtype)c->p[0], c->p[1]};
	return codec_affine_decode(&p, c->b[0], c->bl[0], (const uint16_t *)c->b[1], c->bl[1] / 2,
				   c->p[3] ? c->b[2] : NULL, c->bl[2], (uint16_t *)o, n / 2);
}

TEST(codec_vectors, affine)
{
	static const struct vec_kind v = {"affine", 4, 4, quant_bytes, affine_one, NULL};
	run_vectors(&v);
}

static enum codec_err blockwise_one(const struct acv_case *c, uint8_t *o, size_t n)
{
	struct codec_blockwise p = {(enum codec_qtype)c->p[0], c->p[1]};
	if (c->p[3] >= 2) /* offsets in a quantized type: 2 int8, 3 uint8, one byte each */
		return codec_blockwise_decode_typed(&p, c->b[0], c->bl[0], (const uint16_t *)c->b[1], c->bl[1] / 2,
						    c->b[2], c->p[3] == 2 ? CODEC_OFF_INT8 : CODEC_OFF_UINT8,
						    c->bl[2], (uint16_t *)o, n / 2);
	return codec_blockwise_decode(&p, c->b[0], c->bl[0], (const uint16_t *)c->b[1], c->bl[1] / 2,
				      c->p[3] ? (const uint16_t *)c->b[2] : NULL, c->bl[2] / 2, (uint16_t *)o,
				      n / 2);
}

TEST(codec_vectors, blockwise)
{
	static const struct vec_kind v = {"blockwise", 4, 4, quant_bytes, blockwise_one, NULL};
	run_vectors(&v);
}

/* tflm: bits, type, channels, alternate axis, count; indices, value table, expected */
static size_t tflm_bytes(const struct acv_case *c)
{
	return (size_t)c->p[4] * codec_tflm_elem_size((enum codec_tflm_type)c->p[1]);
}

static enum codec_err tflm_one(const struct acv_case *c, uint8_t *o, size_t n)
{
	struct codec_tflm p = {c->p[0], (enum codec_tflm_type)c->p[1], c->p[2], (int)c->p[3]};
	return codec_tflm_decode(&p, c->b[0], c->bl[0], c->b[1], c->bl[1], o, n, c->p[4]);
}

/* Negative control: a vector file with the wrong magic is refused (run_vectors then fails the
 * test, where it once skipped it). */
TEST(codec_vectors, bad_magic_refused)
{
	const char *path = test_data_path("codecs/bad_magic.cases");
	REQUIRE(path != NULL);
	static const uint8_t bad[12] = {'A', 'C', 'V', '0', 1, 0, 0, 0};
	REQUIRE(test_write_file(path, bad, sizeof bad) == 0);
	struct acv a;
	CHECK_EQ(acv_open(&a, "codecs/bad_magic.cases"), -2);
	free(a.buf);
	CHECK_EQ(acv_open(&a, "codecs/no_such_file.cases"), -1);
	free(a.buf);
}

TEST(codec_vectors, tflm)
{
	static const struct vec_kind v = {"tflm", 5, 3, tflm_bytes, tflm_one, NULL};
	run_vectors(&v);
}

static int read_data(const char *rel, uint8_t **buf, size_t *len, size_t want)
{
	if (test_read_file(test_data_path(rel), buf, len))
		return -1;
	if (*len != want) {
		free(*buf);
		*buf = NULL;
		return -2;
	}
	return 0;
}

TEST(codec_vectors, fp8_decode_all_codes)
{
	uint8_t *e4 = NULL, *e5 = NULL;
	size_t l4, l5;
	int r4 = read_data("codecs/e4m3_to_fp16.bin", &e4, &l4, 512);
	if (r4 == -1)
		FAIL("codecs/e4m3_to_fp16.bin cannot be read (make test generates it)");
	REQUIRE(r4 == 0 && e4);
	REQUIRE(read_data("codecs/e5m2_to_fp16.bin", &e5, &l5, 512) == 0);
	uint8_t codes[256];
	uint16_t out[256];
	for (unsigned i = 0; i < 256; i++)
		codes[i] = (uint8_t)i;
	unsigned bad = 0;
	for (unsigned i = 0; i < 256; i++) {
		uint16_t w4 = (uint16_t)(e4[2 * i] | e4[2 * i + 1] << 8), w5 = (uint16_t)(e5[2 * i] | e5[2 * i + 1] << 8);
		bad += codec_e4m3_to_fp16((uint8_t)i) != w4;
		bad += codec_e5m2_to_fp16((uint8_t)i) != w5;
	}
	CHECK_EQ(codec_e4m3_decode(codes, 256, out, 256), CODEC_OK);
	CHECK_MEM(out, e4, 512);
	CHECK_EQ(codec_e5m2_decode(codes, 256, out, 256), CODEC_OK);
	CHECK_MEM(out, e5, 512);
	CHECK_EQ(bad, 0);
	free(e4);
	free(e5);
}

TEST(codec_vectors, fp8_encode_all_fp16)
{
	static const char *const files[4] = {"codecs/fp16_to_e4m3_nan.bin", "codecs/fp16_to_e4m3_sat.bin",
					     "codecs/fp16_to_e5m2_nan.bin", "codecs/fp16_to_e5m2_sat.bin"};
	uint16_t *in = malloc(65536 * 2);
	uint8_t *out = malloc(65536);
	REQUIRE(in && out);
	for (uint32_t h = 0; h < 65536; h++)
		in[h] = (uint16_t)h;
	for (unsigned f = 0; f < 4; f++) {
		uint8_t *want = NULL;
		size_t len;
		int r = read_data(files[f], &want, &len, 65536);
		if (r == -1) {
			free(in);
			free(out);
			FAIL("%s cannot be read (make test generates it)", files[f]);
		}
		REQUIRE(r == 0);
		int sat = f & 1;
		enum codec_err e = f < 2 ? codec_e4m3_encode(in, 65536, out, 65536, sat)
					 : codec_e5m2_encode(in, 65536, out, 65536, sat);
		CHECK_EQ(e, CODEC_OK);
		size_t at = test_mem_diff(out, want, 65536);
		CHECKF(at == (size_t)-1, "%s: fp16 0x%04lx gives 0x%02x, oracle 0x%02x", files[f],
		       (unsigned long)at, out[at], want[at]);
		free(want);
	}
	free(in);
	free(out);
}
