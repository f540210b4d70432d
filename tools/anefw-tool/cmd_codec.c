/*
 * anefw-tool decode / encode / gates / bytes-moved: the weight codecs and format gates of
 * fw/codec and fw/formats on raw little-endian files (see docs/codecs.md).
 */
#include "fw/codec/codec.h"
#include "fw/common/le.h"
#include "fw/formats/formats.h"
#include "tools/anefw-tool/tool.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COUNT (1ull << 28)

/* ---- option parsing: --name VALUE or --flag, then positionals ---- */
struct opt {
	const char *name;
	int flag;          /* takes no value */
	const char *value; /* set when given ("" for a flag) */
};

static struct opt *find_opt(struct opt *opts, const char *name)
{
	for (struct opt *o = opts; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* Returns the number of positionals (into pos[]), or -1 after printing a usage error. */
static int parse_opts(const char *cmd, int argc, char **argv, struct opt *opts, char **pos, int max_pos)
{
	int npos = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			struct opt *o = find_opt(opts, a + 2);
			if (!o) {
				tool_usage_error(cmd, "unknown option %s", a);
				return -1;
			}
			if (o->value) {
				tool_usage_error(cmd, "option %s given twice", a);
				return -1;
			}
			if (o->flag) {
				o->value = "";
			} else {
				if (i + 1 >= argc) {
					tool_usage_error(cmd, "option %s needs a value", a);
					return -1;
				}
				o->value = argv[++i];
			}
		} else {
			if (npos >= max_pos) {
				tool_usage_error(cmd, "unexpected argument '%s'", a);
				return -1;
			}
			pos[npos++] = argv[i];
		}
	}
	return npos;
}

static int get_u64(const char *cmd, struct opt *opts, const char *name, uint64_t max, uint64_t dflt,
		   int required, uint64_t *out)
{
	struct opt *o = find_opt(opts, name);
	if (!o || !o->value) {
		if (required) {
			tool_usage_error(cmd, "missing --%s", name);
			return -1;
		}
		*out = dflt;
		return 0;
	}
	if (tool_parse_u64(o->value, max, out)) {
		tool_usage_error(cmd, "--%s: '%s' is not an integer in 0..%lu", name, o->value, (unsigned long)max);
		return -1;
	}
	return 0;
}

static const char *get_str(struct opt *opts, const char *name)
{
	struct opt *o = find_opt(opts, name);
	return o ? o->value : NULL;
}

/* Reads a file of fp16 values (little-endian). */
static int read_fp16(const char *cmd, const char *path, uint16_t **v, size_t *n)
{
	uint8_t *b;
	size_t len;
	if (tool_read_raw(cmd, path, &b, &len))
		return -1;
	if (len % 2) {
		free(b);
		tool_usage_error(cmd, "%s: odd size %lu for fp16 data", path, (unsigned long)len);
		return -1;
	}
	uint16_t *o = malloc(len ? len : 2);
	if (!o) {
		free(b);
		tool_usage_error(cmd, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < len / 2; i++)
		o[i] = le_rd16(b + 2 * i);
	free(b);
	*v = o;
	*n = len / 2;
	return 0;
}

static int write_fp16(const char *cmd, const char *path, const uint16_t *v, size_t n)
{
	uint8_t *b = malloc(n * 2 + 1);
	if (!b)
		return -1;
	for (size_t i = 0; i < n; i++)
		le_wr16(b + 2 * i, v[i]);
	int r = tool_write_raw(cmd, path, b, n * 2);
	free(b);
	return r;
}

static int parse_qtype(const char *cmd, const char *s, enum codec_qtype *t)
{
	if (s && !strcmp(s, "int8"))
		*t = CODEC_Q_INT8;
	else if (s && !strcmp(s, "uint8"))
		*t = CODEC_Q_UINT8;
	else
		return tool_usage_error(cmd, "--type must be int8 or uint8"), -1;
	return 0;
}

static int codec_fail(const char *cmd, enum codec_err e)
{
	fprintf(stderr, "anefw-tool %s: " ERR_FMT "\n", cmd, ERR_ARGS(codec_err(e)));
	return 1;
}

/* A decode's error with what it was given and what its parameters want (the error's name and
 * words alone said neither: "codec-table-size: codebook, value table, scale or offset size
 * mismatch", which file and how far off left to the reader). */
static int codec_fail_given(const char *cmd, enum codec_err e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int codec_fail_given(const char *cmd, enum codec_err e, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "anefw-tool %s: " ERR_FMT "; given ", cmd, ERR_ARGS(codec_err(e)));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* Everything a decode run allocates, freed in one place. */
struct bufs {
	uint8_t *in, *aux8;
	uint16_t *lut, *scale, *offset, *out16;
	uint8_t *out8;
};

static void free_bufs(struct bufs *b)
{
	free(b->in);
	free(b->aux8);
	free(b->lut);
	free(b->scale);
	free(b->offset);
	free(b->out16);
	free(b->out8);
}

static uint16_t *alloc16(size_t n)
{
	return malloc(n ? n * 2 : 2);
}

/* The end every fp16-producing decode shares: a named error, or the output file written. */
static int decode_finish(const char *cmd, enum codec_err e, const char *path, const uint16_t *out,
			 uint64_t count)
{
	if (e)
		return codec_fail(cmd, e);
	return write_fp16(cmd, path, out, count) ? 1 : 0;
}

static int decode_palette(int argc, char **argv)
{
	const char *cmd = "decode palette";
	struct opt opts[] = {{"bits", 0, 0}, {"count", 0, 0}, {"lut", 0, 0}, {"vector", 0, 0}, {"groups", 0, 0}, {0, 0, 0}};
	char *pos[2];
	uint64_t bits, count, vector, groups;
	if (parse_opts(cmd, argc, argv, opts, pos, 2) != 2)
		return tool_usage_error(cmd, "usage: decode palette --bits N --count E --lut LUT [--vector V] [--groups G] IN OUT");
	if (get_u64(cmd, opts, "bits", 8, 0, 1, &bits) || get_u64(cmd, opts, "count", MAX_COUNT, 0, 1, &count) ||
	    get_u64(cmd, opts, "vector", 64, 1, 0, &vector) || get_u64(cmd, opts, "groups", MAX_COUNT, 1, 0, &groups))
		return 2;
	if (!get_str(opts, "lut"))
		return tool_usage_error(cmd, "missing --lut");
	struct bufs b = {0};
	size_t in_len, lut_n;
	int rc = 1;
	if (tool_read_raw(cmd, pos[0], &b.in, &in_len) || read_fp16(cmd, get_str(opts, "lut"), &b.lut, &lut_n))
		goto out;
	if (!(b.out16 = alloc16(count)))
		goto out;
	struct codec_palette p = {(unsigned)bits, (unsigned)vector, (unsigned)groups};
	enum codec_err e = codec_palette_decode(&p, b.in, in_len, b.lut, lut_n, b.out16, count);
	if (e)
		rc = codec_fail_given(cmd, e, "IN %lu bytes, --lut %lu fp16 values, --bits %lu --count %lu "
				      "--vector %lu --groups %lu; these want IN of ceil(count/vector x bits / 8) "
				      "= %lu bytes, a LUT of groups x 2^bits x vector = %llu values (bits 1, 2, 3, "
				      "4, 6 or 8; vector 1, 2, 4 or 5 dividing count; groups dividing count/vector)",
				      (unsigned long)in_len, (unsigned long)lut_n, (unsigned long)bits,
				      (unsigned long)count, (unsigned long)vector, (unsigned long)groups,
				      (unsigned long)(vector ? codec_packed_bytes(count / vector, (unsigned)bits) : 0),
				      (unsigned long long)(groups << bits) * vector);
	else
		rc = decode_finish(cmd, e, pos[1], b.out16, count);
out:
	free_bufs(&b);
	return rc;
}

static int decode_sparse(int argc, char **argv)
{
	const char *cmd = "decode sparse";
	struct opt opts[] = {{"count", 0, 0}, {0, 0, 0}};
	char *pos[3];
	uint64_t count;
	if (parse_opts(cmd, argc, argv, opts, pos, 3) != 3)
		return tool_usage_error(cmd, "usage: decode sparse --count E MASK VALUES OUT");
	if (get_u64(cmd, opts, "count", MAX_COUNT, 0, 1, &count))
		return 2;
	struct bufs b = {0};
	size_t mask_len, nvals;
	int rc = 1;
	if (tool_read_raw(cmd, pos[0], &b.in, &mask_len) || read_fp16(cmd, pos[1], &b.scale, &nvals))
		goto out;
	if (!(b.out16 = alloc16(count)))
		goto out;
	enum codec_err e = codec_sparse_decode(b.in, mask_len, b.scale, nvals, b.out16, count);
	unsigned long kept = 0;
	for (size_t i = 0; e && i < mask_len; i++)
		kept += (unsigned long)__builtin_popcount(b.in[i]);
	if (e)
		rc = codec_fail_given(cmd, e, "MASK %lu bytes (%lu bits set), VALUES %lu fp16 values, --count %lu; "
				      "these want MASK of ceil(count/8) = %lu bytes, no bit set past the count, "
				      "and one value a set bit", (unsigned long)mask_len, kept,
				      (unsigned long)nvals, (unsigned long)count, (unsigned long)((count + 7) / 8));
	else
		rc = decode_finish(cmd, e, pos[2], b.out16, count);
out:
	free_bufs(&b);
	return rc;
}

static int decode_affine(int argc, char **argv)
{
	const char *cmd = "decode affine";
	struct opt opts[] = {{"type", 0, 0}, {"count", 0, 0}, {"scale", 0, 0}, {"zero-point", 0, 0}, {"channels", 0, 0}, {0, 0, 0}};
	char *pos[2];
	uint64_t count, channels;
	enum codec_qtype t;
	if (parse_opts(cmd, argc, argv, opts, pos, 2) != 2)
		return tool_usage_error(cmd, "usage: decode affine --type int8|uint8 --count E --scale S [--zero-point Z] [--channels C] IN OUT");
	if (parse_qtype(cmd, get_str(opts, "type"), &t) || get_u64(cmd, opts, "count", MAX_COUNT, 0, 1, &count) ||
	    get_u64(cmd, opts, "channels", MAX_COUNT, 1, 0, &channels))
		return 2;
	if (!get_str(opts, "scale"))
		return tool_usage_error(cmd, "missing --scale");
	struct bufs b = {0};
	size_t q_len, nscale, nzp = 0;
	int rc = 1;
	if (tool_read_raw(cmd, pos[0], &b.in, &q_len) || read_fp16(cmd, get_str(opts, "scale"), &b.scale, &nscale))
		goto out;
	if (get_str(opts, "zero-point") && tool_read_raw(cmd, get_str(opts, "zero-point"), &b.aux8, &nzp))
		goto out;
	if (!(b.out16 = alloc16(count)))
		goto out;
	struct codec_affine a = {t, (size_t)channels};
	enum codec_err e = codec_affine_decode(&a, b.in, q_len, b.scale, nscale, b.aux8, nzp, b.out16, count);
	if (e)
		rc = codec_fail_given(cmd, e, "IN %lu bytes, --scale %lu fp16 values, --zero-point %lu bytes, "
				      "--count %lu --channels %lu; these want IN of count = %lu bytes, 1 or "
				      "channels scales and 0, 1 or channels zero points (channels dividing count), "
				      "every scale finite", (unsigned long)q_len, (unsigned long)nscale,
				      (unsigned long)nzp, (unsigned long)count, (unsigned long)channels,
				      (unsigned long)count);
	else
		rc = decode_finish(cmd, e, pos[1], b.out16, count);
out:
	free_bufs(&b);
	return rc;
}

/* --offset-type: fp16, int8 or uint8; absent = the data's own type (Core ML's layout). */
static int parse_offset_type(const char *cmd, const char *v, enum codec_qtype data, enum codec_offset_type *out)
{
	if (!v)
		*out = data == CODEC_Q_INT8 ? CODEC_OFF_INT8 : CODEC_OFF_UINT8;
	else if (!strcmp(v, "fp16"))
		*out = CODEC_OFF_FP16;
	else if (!strcmp(v, "int8"))
		*out = CODEC_OFF_INT8;
	else if (!strcmp(v, "uint8"))
		*out = CODEC_OFF_UINT8;
	else
		return tool_usage_error(cmd, "--offset-type must be int8, uint8 or fp16");
	return 0;
}

static int decode_blockwise(int argc, char **argv)
{
	const char *cmd = "decode blockwise";
	struct opt opts[] = {{"type", 0, 0}, {"count", 0, 0}, {"block", 0, 0}, {"scale", 0, 0}, {"offset", 0, 0},
			     {"offset-type", 0, 0}, {0, 0, 0}};
	char *pos[2];
	uint64_t count, block;
	enum codec_qtype t;
	enum codec_offset_type ot = CODEC_OFF_FP16;
	if (parse_opts(cmd, argc, argv, opts, pos, 2) != 2)
		return tool_usage_error(cmd, "usage: decode blockwise --type int8|uint8 --count E --block B --scale S [--offset O [--offset-type int8|uint8|fp16]] IN OUT");
	if (parse_qtype(cmd, get_str(opts, "type"), &t) || get_u64(cmd, opts, "count", MAX_COUNT, 0, 1, &count) ||
	    get_u64(cmd, opts, "block", MAX_COUNT, 0, 1, &block) ||
	    parse_offset_type(cmd, get_str(opts, "offset-type"), t, &ot))
		return 2;
	if (!get_str(opts, "scale"))
		return tool_usage_error(cmd, "missing --scale");
	if (get_str(opts, "offset-type") && !get_str(opts, "offset"))
		return tool_usage_error(cmd, "--offset-type without --offset");
	struct bufs b = {0};
	size_t q_len, nscale, noff = 0;
	const void *off = NULL;
	int rc = 1;
	if (tool_read_raw(cmd, pos[0], &b.in, &q_len) || read_fp16(cmd, get_str(opts, "scale"), &b.scale, &nscale))
		goto out;
	if (get_str(opts, "offset")) {
		if (ot == CODEC_OFF_FP16) {
			if (read_fp16(cmd, get_str(opts, "offset"), &b.offset, &noff))
				goto out;
			off = b.offset;
		} else {
			/* one byte per block */
			if (tool_read_raw(cmd, get_str(opts, "offset"), &b.aux8, &noff))
				goto out;
			off = b.aux8 ? (const void *)b.aux8 : (const void *)"";
		}
	}
	if (!(b.out16 = alloc16(count)))
		goto out;
	struct codec_blockwise bw = {t, (size_t)block};
	enum codec_err e = codec_blockwise_decode_typed(&bw, b.in, q_len, b.scale, nscale, off, ot, noff, b.out16, count);
	if (e)
		rc = codec_fail_given(cmd, e, "IN %lu bytes, --scale %lu fp16 values, --offset %lu %s, "
				      "--count %lu --block %lu; these want IN of count = %lu bytes and count/block "
				      "= %lu scales and (with --offset) as many offsets (block dividing count, "
				      "every scale and offset finite)", (unsigned long)q_len, (unsigned long)nscale,
				      (unsigned long)noff, ot == CODEC_OFF_FP16 ? "fp16 values" : "bytes",
				      (unsigned long)count, (unsigned long)block, (unsigned long)count,
				      (unsigned long)(block ? count / block : 0));
	else
		rc = decode_finish(cmd, e, pos[1], b.out16, count);
out:
	free_bufs(&b);
	return rc;
}

static int decode_fp8(int argc, char **argv, int e5)
{
	const char *cmd = e5 ? "decode e5m2" : "decode e4m3";
	struct opt opts[] = {{0, 0, 0}};
	char *pos[2];
	if (parse_opts(cmd, argc, argv, opts, pos, 2) != 2)
		return tool_usage_error(cmd, "usage: decode %s IN OUT", e5 ? "e5m2" : "e4m3");
	struct bufs b = {0};
	size_t n;
	int rc = 1;
	if (tool_read_raw(cmd, pos[0], &b.in, &n))
		goto out;
	if (!(b.out16 = alloc16(n)))
		goto out;
	enum codec_err e = e5 ? codec_e5m2_decode(b.in, n, b.out16, n) : codec_e4m3_decode(b.in, n, b.out16, n);
	if (e) {
		rc = codec_fail(cmd, e);
		goto out;
	}
	rc = write_fp16(cmd, pos[1], b.out16, n) ? 1 : 0;
out:
	free_bufs(&b);
	return rc;
}

static int decode_tflm(int argc, char **argv)
{
	const char *cmd = "decode tflm";
	struct opt opts[] = {{"bits", 0, 0}, {"count", 0, 0}, {"type", 0, 0}, {"table", 0, 0}, {"channels", 0, 0}, {"alt-axis", 1, 0}, {0, 0, 0}};
	char *pos[2];
	uint64_t bits, count, channels;
	if (parse_opts(cmd, argc, argv, opts, pos, 2) != 2)
		return tool_usage_error(cmd, "usage: decode tflm --bits N --count E --type int8|int16|int32|int64|float32|bool --table T [--channels C] [--alt-axis] IN OUT");
	if (get_u64(cmd, opts, "bits", 7, 0, 1, &bits) || get_u64(cmd, opts, "count", MAX_COUNT, 0, 1, &count) ||
	    get_u64(cmd, opts, "channels", MAX_COUNT, 1, 0, &channels))
		return 2;
	const char *ts = get_str(opts, "type");
	/* in enum codec_tflm_type order */
	static const char *const names[6] = {"int8", "int16", "int32", "float32", "int64", "bool"};
	int type = -1;
	for (int i = 0; i < 6 && ts; i++)
		if (!strcmp(ts, names[i]))
			type = i;
	if (type < 0)
		return tool_usage_error(cmd, "--type must be int8, int16, int32, int64, float32 or bool");
	if (!get_str(opts, "table"))
		return tool_usage_error(cmd, "missing --table");
	struct bufs b = {0};
	size_t in_len, table_len;
	int rc = 1;
	if (tool_read_raw(cmd, pos[0], &b.in, &in_len) || tool_read_raw(cmd, get_str(opts, "table"), &b.aux8, &table_len))
		goto out;
	struct codec_tflm t = {(unsigned)bits, (enum codec_tflm_type)type, (size_t)channels, get_str(opts, "alt-axis") != NULL};
	size_t out_len = (size_t)count * codec_tflm_elem_size(t.type);
	if (!(b.out8 = malloc(out_len ? out_len : 1)))
		goto out;
	enum codec_err e = codec_tflm_decode(&t, b.in, in_len, b.aux8, table_len, b.out8, out_len, count);
	if (e) {
		rc = codec_fail_given(cmd, e, "IN %lu bytes, --table %lu bytes (%s elements of %lu bytes), "
				      "--bits %lu --count %lu --channels %lu; these want IN of ceil(count x bits "
				      "/ 8) = %lu bytes, a table of channels equal tables of at most %u elements "
				      "each, every index below its table's length", (unsigned long)in_len,
				      (unsigned long)table_len, names[type],
				      (unsigned long)codec_tflm_elem_size(t.type), (unsigned long)bits,
				      (unsigned long)count, (unsigned long)channels,
				      (unsigned long)codec_packed_bytes(count, (unsigned)bits), CODEC_TFLM_MAX_STRIDE);
		goto out;
	}
	rc = tool_write_raw(cmd, pos[1], b.out8, out_len) ? 1 : 0;
out:
	free_bufs(&b);
	return rc;
}

static int cmd_decode(int argc, char **argv)
{
	if (argc < 2)
		return tool_usage_error("decode", "usage: decode palette|sparse|affine|blockwise|e4m3|e5m2|tflm ARGS...");
	const char *k = argv[1];
	if (!strcmp(k, "palette"))
		return decode_palette(argc - 2, argv + 2);
	if (!strcmp(k, "sparse"))
		return decode_sparse(argc - 2, argv + 2);
	if (!strcmp(k, "affine"))
		return decode_affine(argc - 2, argv + 2);
	if (!strcmp(k, "blockwise"))
		return decode_blockwise(argc - 2, argv + 2);
	if (!strcmp(k, "e4m3"))
		return decode_fp8(argc - 2, argv + 2, 0);
	if (!strcmp(k, "e5m2"))
		return decode_fp8(argc - 2, argv + 2, 1);
	if (!strcmp(k, "tflm"))
		return decode_tflm(argc - 2, argv + 2);
	return tool_usage_error("decode", "unknown codec '%s' (palette, sparse, affine, blockwise, e4m3, e5m2, tflm)", k);
}

static int cmd_encode(int argc, char **argv)
{
	if (argc < 2)
		return tool_usage_error("encode", "usage: encode e4m3|e5m2 [--saturate] IN OUT");
	if (strcmp(argv[1], "e4m3") && strcmp(argv[1], "e5m2"))
		return tool_usage_error("encode", "unknown format '%s' (e4m3, e5m2)", argv[1]);
	int e5 = !strcmp(argv[1], "e5m2");
	const char *cmd = e5 ? "encode e5m2" : "encode e4m3";
	struct opt opts[] = {{"saturate", 1, 0}, {0, 0, 0}};
	char *pos[2];
	if (parse_opts(cmd, argc - 2, argv + 2, opts, pos, 2) != 2)
		return tool_usage_error(cmd, "usage: encode %s [--saturate] IN OUT", argv[1]);
	int sat = get_str(opts, "saturate") != NULL;
	uint16_t *in;
	size_t n;
	if (read_fp16(cmd, pos[0], &in, &n))
		return 1;
	uint8_t *out = malloc(n ? n : 1);
	int rc = 1;
	if (out) {
		enum codec_err e = e5 ? codec_e5m2_encode(in, n, out, n, sat) : codec_e4m3_encode(in, n, out, n, sat);
		rc = e ? codec_fail(cmd, e) : tool_write_raw(cmd, pos[1], out, n) ? 1 : 0;
	}
	free(in);
	free(out);
	return rc;
}

static void print_feature(enum chip c, unsigned off)
{
	int inferred;
	long v = chip_feature(c, off, &inferred);
	if (v == FMT_UNSPECIFIED)
		printf(" 0x%03x=unspecified", off);
	else
		printf(" 0x%03x=%ld%s", off, v, inferred ? "(inferred)" : "");
}

static int cmd_gates(int argc, char **argv)
{
	struct opt opts[] = {{"chip", 0, 0}, {0, 0, 0}};
	char *pos[1];
	if (parse_opts("gates", argc - 1, argv + 1, opts, pos, 0) != 0)
		return tool_usage_error("gates", "usage: gates --chip H13|H14|H15|H16|H17|H18");
	enum chip c;
	const char *name = get_str(opts, "chip");
	if (!name)
		return tool_usage_error("gates", "missing --chip (H13, H14, H15, H16, H17, H18)");
	if (chip_from_name(name, &c))
		return tool_usage_error("gates", "unknown chip '%s' (H13, H14, H15, H16, H17, H18)", name);
	int v = chip_td_version(c);
	printf("chip %s (%s), table descriptor %s\n", chip_name(c), chip_family(c), v == 5 ? "version 5" : "later than version 5");
	static const unsigned bytes[] = {0x48f, 0x529, 0x528, 0x532, 0x537, 0x520, 0x523, 0x533, 0x539, 0x52d, 0x200, 0x210};
	printf("feature bytes:");
	for (unsigned i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++)
		print_feature(c, bytes[i]);
	printf("\n%-10s %-7s %s\n", "form", "verdict", "why");
	for (unsigned f = 0; f < WFORM__COUNT; f++) {
		struct wdesc w = wdesc_default((enum wform)f);
		struct gate_decision d = gate_decide(c, &w);
		printf("%-10s %-7s %s\n", wform_name((enum wform)f), gate_verdict_name(d.verdict), d.why);
	}
	return 0;
}

static int cmd_bytes_moved(int argc, char **argv)
{
	const char *cmd = "bytes-moved";
	struct opt opts[] = {{"chip", 0, 0}, {"form", 0, 0}, {"count", 0, 0}, {"nonzeros", 0, 0}, {"scales", 0, 0},
			     {"bits", 0, 0}, {"vector", 0, 0}, {"groups", 0, 0}, {"offset", 1, 0}, {"asymmetric", 1, 0}, {0, 0, 0}};
	char *pos[1];
	if (parse_opts(cmd, argc - 1, argv + 1, opts, pos, 0) != 0)
		return tool_usage_error(cmd, "usage: bytes-moved --chip C --form int8|palette|sparse|blockwise|e4m3 --count E [--nonzeros N] [--scales S] [--bits B] [--vector V] [--groups G] [--offset] [--asymmetric]");
	enum chip c;
	if (!get_str(opts, "chip") || chip_from_name(get_str(opts, "chip"), &c))
		return tool_usage_error(cmd, "--chip must be one of H13, H14, H15, H16, H17, H18");
	const char *fs = get_str(opts, "form");
	int form = -1;
	for (unsigned f = 0; f < WFORM__COUNT && fs; f++)
		if (!strcmp(fs, wform_name((enum wform)f)))
			form = (int)f;
	if (form < 0)
		return tool_usage_error(cmd, "--form must be int8, palette, sparse, blockwise or e4m3");
	uint64_t count, nz, scales, bits, vector, groups;
	if (get_u64(cmd, opts, "count", UINT64_MAX / 4, 0, 1, &count) || get_u64(cmd, opts, "nonzeros", UINT64_MAX / 4, 0, 0, &nz) ||
	    get_u64(cmd, opts, "scales", UINT64_MAX / 8, 1, 0, &scales) || get_u64(cmd, opts, "bits", 8, 4, 0, &bits) ||
	    get_u64(cmd, opts, "vector", 64, 1, 0, &vector) || get_u64(cmd, opts, "groups", 1u << 20, 1, 0, &groups))
		return 2;
	struct wdesc w = wdesc_default((enum wform)form);
	w.palette_bits = (unsigned)bits;
	w.vector = (unsigned)vector;
	w.groups = (unsigned)groups;
	w.asymmetric = get_str(opts, "asymmetric") != NULL;
	/* a weight the gates refuse (the compiler asserts: no descriptor encodes it) moves no bytes;
	 * it printed "moved bytes 0" with exit 0, a number where there is none. Its verdict line,
	 * with the parameters that decide it, and exit 1, as a codec refuses bad data. */
	struct gate_decision d = gate_decide(c, &w);
	if (d.verdict == GATE_REFUSE) {
		printf("%s on %s: %s (%s)", wform_name(w.form), chip_name(c), gate_verdict_name(d.verdict), d.why);
		if (w.form == WFORM_PALETTE)
			printf("; given --bits %lu --vector %lu --groups %lu", (unsigned long)bits,
			       (unsigned long)vector, (unsigned long)groups);
		else if (w.asymmetric)
			printf("; given --asymmetric");
		printf(": no bytes move (the weight cannot be compiled for %s)\n", chip_name(c));
		return 1;
	}
	struct bytes_in in = {count, nz, scales, get_str(opts, "offset") != NULL};
	struct bytes_out o;
	enum bytes_err be = bytes_moved(c, &w, &in, &o);
	if (be == BYTES_E_SIZES && w.form == WFORM_SPARSE) /* the error's causes alone before */
		return tool_usage_error(cmd, "%s: --nonzeros %lu is over --count %lu; a weight of %lu "
					"elements holds 0..%lu nonzeros", bytes_err(be)->name,
					(unsigned long)nz, (unsigned long)count, (unsigned long)count,
					(unsigned long)count);
	if (be != BYTES_OK)
		return tool_usage_error(cmd, ERR_FMT "; given --count %lu --nonzeros %lu --scales %lu",
					ERR_ARGS(bytes_err(be)), (unsigned long)count, (unsigned long)nz,
					(unsigned long)scales);
	unsigned long milli = o.dense_fp16 ? (unsigned long)(o.moved * 1000 / o.dense_fp16) : 0;
	printf("%s on %s: %s (%s)\n", wform_name(w.form), chip_name(c), gate_verdict_name(o.gate.verdict), o.gate.why);
	printf("dense fp16 bytes %lu, stored bytes %lu, moved bytes %lu, moved/dense %lu.%03lu\n",
	       (unsigned long)o.dense_fp16, (unsigned long)o.stored, (unsigned long)o.moved, milli / 1000, milli % 1000);
	return 0;
}

TOOL_COMMAND(decode, "decode", cmd_decode,
	     "decode palette|sparse|affine|blockwise|e4m3|e5m2|tflm ...  decode a compressed weight file to fp16 (tflm: its type)\n"
	     "    decode palette --bits N --count E --lut LUT [--vector V] [--groups G] IN OUT\n"
	     "    decode sparse --count E MASK VALUES OUT\n"
	     "    decode affine --type int8|uint8 --count E --scale S [--zero-point Z] [--channels C] IN OUT\n"
	     "    decode blockwise --type int8|uint8 --count E --block B --scale S\n"
	     "                     [--offset O [--offset-type int8|uint8|fp16]] IN OUT\n"
	     "    decode e4m3 IN OUT; decode e5m2 IN OUT\n"
	     "    decode tflm --bits N --count E --type int8|int16|int32|int64|float32|bool --table T\n"
	     "                [--channels C] [--alt-axis] IN OUT\n"
	     "    every file raw little-endian values (LUT, S, VALUES, fp16 O: fp16), not .npy\n"
	     "    (docs/codecs.md)");
TOOL_COMMAND(encode, "encode", cmd_encode, "encode e4m3|e5m2 [--saturate] IN OUT  fp16 file to fp8 (raw little-endian, not .npy)");
TOOL_COMMAND(gates, "gates", cmd_gates, "gates --chip H13|H14|H15|H16|H17|H18  per form: stream, fold or refuse, and why");
TOOL_COMMAND(bytes_moved, "bytes-moved", cmd_bytes_moved,
	     "bytes-moved --chip C --form F --count E [...]  bytes a weight moves across DMA\n"
	     "    bytes-moved --chip H13|H14|H15|H16|H17|H18 --form int8|palette|sparse|blockwise|e4m3\n"
	     "                --count E [--nonzeros N] [--scales S] [--bits B] [--vector V]\n"
	     "                [--groups G] [--offset] [--asymmetric]\n"
	     "    exit 0: streams or folds, then the bytes; exit 1: the gates refuse the weight\n"
	     "    (no descriptor encodes it), its verdict and why, no bytes (docs/codecs.md)");
