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

static int acv_open(struct acv *a, const char *rel)
{
	memset(a, 0, sizeof(*a));
	const char *path = test_data_path(rel);
	if (test_read_file(path, &a->buf, &a->len))
		return -1;
	if (a->len < 8 || memcmp(a->buf, "ACV1", 4))
		return -1;
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

#define OPEN_OR_SKIP(a, rel)                                                                    \
	do {                                                                                    \
		if (acv_open(a, rel)) {                                                         \
			free((a)->buf);                                                         \
			SKIP("no generated vectors (" rel "): run make with the oracle");       \
		}                                                                               \
	} while (0)

static void report(const char *what, uint32_t ncases, unsigned bad, unsigned first_bad)
{
	if (bad)
		test_fail_at(__FILE__, __LINE__, "%s: %u of %lu cases differ (first: case %u)", what, bad,
			     (unsigned long)ncases, first_bad);
}

#define CASE_FAIL()                                                                             \
	do {                                                                                    \
		if (!bad++)                                                                     \
			first = k;                                                              \
	} while (0)

TEST(codec_vectors, palette)
{
	struct acv a;
	OPEN_OR_SKIP(&a, "codecs/palette.cases");
	CHECK(a.ncases >= 10000);
	unsigned bad = 0, first = 0;
	for (uint32_t k = 0; k < a.ncases; k++) {
		struct acv_case c;
		if (acv_next(&a, &c) || c.np != 4 || c.nb != 3) {
			test_fail_at(__FILE__, __LINE__, "malformed case %u", k);
			break;
		}
		struct codec_palette p = {c.p[0], c.p[1], c.p[2]};
		size_t count = c.p[3];
		uint8_t *o = out_buf(count * 2);
		REQUIRE(o);
		enum codec_err e = codec_palette_decode(&p, c.b[0], c.bl[0], (const uint16_t *)c.b[1], c.bl[1] / 2,
						       (uint16_t *)o, count);
		if (e != CODEC_OK || c.bl[2] != count * 2 || memcmp(o, c.b[2], count * 2) || !guard_intact(o, count * 2))
			CASE_FAIL();
		free(o);
	}
	report("palette", a.ncases, bad, first);
	free(a.buf);
}

TEST(codec_vectors, sparse)
{
	struct acv a;
	OPEN_OR_SKIP(&a, "codecs/sparse.cases");
	CHECK(a.ncases >= 10000);
	unsigned bad = 0, first = 0;
	for (uint32_t k = 0; k < a.ncases; k++) {
		struct acv_case c;
		if (acv_next(&a, &c) || c.np != 1 || c.nb != 3) {
			test_fail_at(__FILE__, __LINE__, "malformed case %u", k);
			break;
		}
		size_t count = c.p[0];
		uint8_t *o = out_buf(count * 2);
		REQUIRE(o);
		enum codec_err e = codec_sparse_decode(c.b[0], c.bl[0], (const uint16_t *)c.b[1], c.bl[1] / 2,
						      (uint16_t *)o, count);
		if (e != CODEC_OK || c.bl[2] != count * 2 || memcmp(o, c.b[2], count * 2) || !guard_intact(o, count * 2))
			CASE_FAIL();
		/* one value too many or too few is a count error */
		if (codec_sparse_decode(c.b[0], c.bl[0], (const uint16_t *)c.b[1], c.bl[1] / 2 + 1, (uint16_t *)o, count) !=
		    CODEC_ERR_COUNT)
			CASE_FAIL();
		free(o);
	}
	report("sparse", a.ncases, bad, first);
	free(a.buf);
}

TEST(codec_vectors, affine)
{
	struct acv a;
	OPEN_OR_SKIP(&a, "codecs/affine.cases");
	CHECK(a.ncases >= 10000);
	unsigned bad = 0, first = 0;
	for (uint32_t k = 0; k < a.ncases; k++) {
		struct acv_case c;
		if (acv_next(&a, &c) || c.np != 4 || c.nb != 4) {
			test_fail_at(__FILE__, __LINE__, "malformed case %u", k);
			break;
		}
		struct codec_affine p = {(enum codec_qtype)c.p[0], c.p[1]};
		size_t count = c.p[2];
		uint8_t *o = out_buf(count * 2);
		REQUIRE(o);
		enum codec_err e = codec_affine_decode(&p, c.b[0], c.bl[0], (const uint16_t *)c.b[1], c.bl[1] / 2,
						      c.p[3] ? c.b[2] : NULL, c.bl[2], (uint16_t *)o, count);
		if (e != CODEC_OK || c.bl[3] != count * 2 || memcmp(o, c.b[3], count * 2) || !guard_intact(o, count * 2))
			CASE_FAIL();
		free(o);
	}
	report("affine", a.ncases, bad, first);
	free(a.buf);
}

TEST(codec_vectors, blockwise)
{
	struct acv a;
	OPEN_OR_SKIP(&a, "codecs/blockwise.cases");
	CHECK(a.ncases >= 10000);
	unsigned bad = 0, first = 0;
	for (uint32_t k = 0; k < a.ncases; k++) {
		struct acv_case c;
		if (acv_next(&a, &c) || c.np != 4 || c.nb != 4) {
			test_fail_at(__FILE__, __LINE__, "malformed case %u", k);
			break;
		}
		struct codec_blockwise p = {(enum codec_qtype)c.p[0], c.p[1]};
		size_t count = c.p[2];
		uint8_t *o = out_buf(count * 2);
		REQUIRE(o);
		enum codec_err e = codec_blockwise_decode(&p, c.b[0], c.bl[0], (const uint16_t *)c.b[1], c.bl[1] / 2,
							 c.p[3] ? (const uint16_t *)c.b[2] : NULL, c.bl[2] / 2,
							 (uint16_t *)o, count);
		if (e != CODEC_OK || c.bl[3] != count * 2 || memcmp(o, c.b[3], count * 2) || !guard_intact(o, count * 2))
			CASE_FAIL();
		free(o);
	}
	report("blockwise", a.ncases, bad, first);
	free(a.buf);
}

TEST(codec_vectors, tflm)
{
	struct acv a;
	OPEN_OR_SKIP(&a, "codecs/tflm.cases");
	CHECK(a.ncases >= 10000);
	unsigned bad = 0, first = 0;
	for (uint32_t k = 0; k < a.ncases; k++) {
		struct acv_case c;
		if (acv_next(&a, &c) || c.np != 5 || c.nb != 3) {
			test_fail_at(__FILE__, __LINE__, "malformed case %u", k);
			break;
		}
		struct codec_tflm p = {c.p[0], (enum codec_tflm_type)c.p[1], c.p[2], (int)c.p[3]};
		size_t count = c.p[4], n = count * codec_tflm_elem_size(p.type);
		uint8_t *o = out_buf(n);
		REQUIRE(o);
		enum codec_err e = codec_tflm_decode(&p, c.b[0], c.bl[0], c.b[1], c.bl[1], o, n, count);
		if (e != CODEC_OK || c.bl[2] != n || memcmp(o, c.b[2], n) || !guard_intact(o, n))
			CASE_FAIL();
		free(o);
	}
	report("tflm", a.ncases, bad, first);
	free(a.buf);
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
	if (read_data("codecs/e4m3_to_fp16.bin", &e4, &l4, 512) == -1)
		SKIP("no generated vectors (codecs/e4m3_to_fp16.bin)");
	REQUIRE(e4);
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
			SKIP("no generated vectors (codecs/fp16_to_*.bin)");
		}
		REQUIRE(r == 0);
		int sat = f & 1;
		enum codec_err e = f < 2 ? codec_e4m3_encode(in, 65536, out, 65536, sat)
					 : codec_e5m2_encode(in, 65536, out, 65536, sat);
		CHECK_EQ(e, CODEC_OK);
		size_t at = test_mem_diff(out, want, 65536);
		if (at != (size_t)-1)
			test_fail_at(__FILE__, __LINE__, "%s: fp16 0x%04lx gives 0x%02x, oracle 0x%02x", files[f],
				     (unsigned long)at, out[at], want[at]);
		free(want);
	}
	free(in);
	free(out);
}
