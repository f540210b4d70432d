/*
 * anefw-tool convert IN OUT.anec [--raw|--hwx]
 * Writes an anec container (fw/loader/anec.h) from a .hwx program or a raw task stream, as
 * anecc does after compiling, so the Asahi stack's libane loads it: the data is the TDs
 * (tsk_size: up to the end of the last one), then the weights from tsk_size rounded up to 16
 * bytes; the tile table sizes BAR 0 for the data and every tensor's BAR for its bytes; nchw
 * holds each tensor's N (groups), C, H, W, plane and row strides as libane's ane_tile reads
 * them (a flat tensor or one with a depth: its buffer as one dense row, P = R = its bytes).
 * libane's convention is checked: the outputs at BARs 4.., the inputs right after them; a tensor
 * libane would lay out differently from the engine, and a tensor BAR on the program's own bytes,
 * are refused by name (conv_errs).
 */
#include "fw/common/err.h"
#include "fw/loader/anec.h"
#include "fw/loader/loader.h"
#include "fw/tensors/tensors.h"
#include "tools/anefw-tool/tool.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ldr_program prog, check;

/* The tensors convert refuses, by name: what libane (ane_tile/ane_untile) cannot lay out as the
 * engine reads it, and BARs of the program's own bytes (docs/asahi.md, "What convert refuses"). */
enum conv_err {
	CONV_OK = 0,
	CONV_E_BASE,       /* the tensor starts past its BAR's address */
	CONV_E_GROUP,      /* groups not C x plane apart */
	CONV_E_PLANE,      /* plane stride not H or more whole rows, or rows shorter than W */
	CONV_E_ONE_BYTE,   /* int8/uint8 elements: libane copies fp16 */
	CONV_E_PROGRAM_DATA, /* a tensor BAR at the .hwx's __TEXT (its TDs or weights) */
	CONV_E_BAR_ORDER,  /* an input or output not where libane puts it (outputs at 4.., inputs after) */
	CONV_E_NO_BUFFER,  /* a tensor at a BAR libane has no user buffer at */
	CONV_E_INTERLEAVED, /* channels interleaved (fw/td td_tile_interleave) */
	CONV_E_OUT_NAME,   /* the output's name says another format (.npy, .hwx) */
	CONV_E__COUNT
};
static const struct err_desc conv_errs[CONV_E__COUNT] = {
	[CONV_OK] = {"ok", "no error"},
	[CONV_E_BASE] = {"convert-tensor-offset", "the tensor starts past its BAR's address; an anec "
			 "header has no offset (libane lays every tensor out from its buffer's start)"},
	[CONV_E_GROUP] = {"convert-group-stride", "the groups are not C x plane stride apart, as "
			  "libane lays them out"},
	[CONV_E_PLANE] = {"convert-plane-stride", "the plane stride is not a whole number (H or "
			  "more) of row strides, or a row is shorter than W elements; libane's planes "
			  "are P / R rows"},
	[CONV_E_ONE_BYTE] = {"convert-one-byte-tensor", "one-byte elements; libane copies every "
			     "tensor as fp16"},
	[CONV_E_PROGRAM_DATA] = {"convert-reads-program-data", "a tensor's BAR holds an address in "
				 "the .hwx's __TEXT (its TDs or weights); the anec would make it a "
				 "user buffer, so the TD would read the caller's data instead"},
	[CONV_E_BAR_ORDER] = {"convert-bar-order", "libane binds the outputs to BARs 4.. and the "
			      "inputs right after them, in the tile table's order; an anec header "
			      "cannot place a tensor elsewhere"},
	[CONV_E_NO_BUFFER] = {"convert-bar-no-buffer", "libane has no user buffer at the BAR (0 "
			      "holds the program, 1 the weights; the tile table has 32)"},
	[CONV_E_INTERLEAVED] = {"convert-interleaved-channels", "the channels are interleaved (fw/td "
				"td_tile_interleave); an anec header describes plain layouts only"},
	[CONV_E_OUT_NAME] = {"convert-output-name", "the output's name ends in another format's "
			     "extension; convert writes an anec container (OUT.anec)"},
};
static const struct err_desc *conv_err(enum conv_err e)
{
	static const struct err_desc unknown = {"convert-unknown-error", "an unknown convert error"};
	return err_lookup(conv_errs, CONV_E__COUNT, (unsigned)e, &unknown);
}

/* Whether address v lies in the segment of a .hwx section (sect an index, -1 none). */
static int in_sect_segment(const struct ldr_program *p, int sect, uint64_t v)
{
	if (sect < 0)
		return 0;
	const struct ldr_segment *g = &p->segs[p->sects[sect].seg];
	return v >= g->vmaddr && v - g->vmaddr < g->vmsize;
}

/* The anec nchw row of tensor x (libane's ane_tile: element (n, c, h, w) at
 * ((n x C + c) x P / R + h) x R + 2w bytes), or the error that says why it has none. A flat
 * tensor and one with a depth are its buffer's elements as one dense row, P = R = their bytes. */
static void dense_row(const struct tns_tensor *x, uint64_t nchw[6])
{
	nchw[0] = nchw[1] = nchw[2] = 1;
	nchw[3] = x->bytes / x->elem;
	nchw[4] = nchw[5] = nchw[3] * x->elem;
}

static enum conv_err conv_nchw(const struct tns_tensor *x, uint64_t nchw[6])
{
	if (x->elem != 2)
		return CONV_E_ONE_BYTE;
	if (x->flat || x->dim[TNS_D] > 1) {
		dense_row(x, nchw);
		return CONV_OK;
	}
	if (x->base)
		return CONV_E_BASE;
	if (!x->row || x->plane % x->row || x->row < (uint64_t)x->dim[TNS_W] * x->elem ||
	    x->plane / x->row < x->dim[TNS_H])
		return CONV_E_PLANE;
	if (x->dim[TNS_G] > 1 && x->group != (uint64_t)x->dim[TNS_C] * x->plane)
		return CONV_E_GROUP;
	nchw[0] = x->dim[TNS_G];
	nchw[1] = x->dim[TNS_C];
	nchw[2] = x->dim[TNS_H];
	nchw[3] = x->dim[TNS_W];
	nchw[4] = x->plane;
	nchw[5] = x->row;
	return CONV_OK;
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "convert: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return 1;
}

static int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	unsigned flags = 0;
	for (int i = 1; i < argc; i++) {
		if (tool_take_format(argv[i], &flags))
			continue;
		else if (argv[i][0] == '-' && argv[i][1])
			return tool_usage_error("convert", "unknown option '%s'", argv[i]);
		else if (!in)
			in = argv[i];
		else if (!out)
			out = argv[i];
		else
			return tool_usage_error("convert", "too many arguments");
	}
	if (!in || !out)
		return tool_usage_error("convert", "needs IN OUT.anec");
	if (tool_check_format("convert", flags))
		return 2;
	/* an anec under a .npy or .hwx name was written as asked (docs/tool.md, "What the tool's
	 * loose ends came to"); an .anec or .ane name, or any other, is taken */
	size_t on = strlen(out);
	static const char *const other[][2] = {{".npy", "a NumPy array's"}, {".hwx", "a .hwx container's"}};
	for (unsigned k = 0; k < sizeof other / sizeof other[0]; k++)
		if (on >= 4 && !strcmp(out + on - 4, other[k][0]))
			return bad("%s: " ERR_FMT "; %s ends in %s, %s (nothing written)", out,
				   ERR_ARGS(conv_err(CONV_E_OUT_NAME)), out, other[k][0], other[k][1]);
	uint8_t *buf, *data = NULL, *file = NULL;
	size_t len;
	if (tool_read_file(in, &buf, &len))
		return 1;
	int rc = 1;
	enum ldr_err le = ldr_load(buf, len, flags, &prog);
	if (le != LDR_OK) {
		fprintf(stderr, "convert: %s: program rejected: ", in);
		fflush(stderr);
		ldr_print_refusal(&prog, le, buf, len, flags, "", "convert: ", in, tool_out_file, stderr);
		rc = 1;
		goto out;
	}
	/* the TD area up to the end of the last TD, then the weights at the next 16 bytes */
	uint64_t tsk = 0;
	for (unsigned i = 0; i < prog.ntds; i++)
		if (prog.tds[i].off + (uint64_t)prog.tds[i].size > tsk)
			tsk = prog.tds[i].off + (uint64_t)prog.tds[i].size;
	if (prog.tds[0].off != 0) {
		rc = bad("%s: the first TD is not at the start of the TD area (offset 0x%x)", in,
			 prog.tds[0].off);
		goto out;
	}
	const uint64_t kofs = (tsk + ANEC_GRAN - 1) & ~(uint64_t)(ANEC_GRAN - 1);
	const uint64_t size = kofs + prog.weights_len;
	if (size > ANEC_MAX_SIZE) {
		rc = bad("%s: 0x%llx bytes of TDs and weights, over the anec limit (0x%llx)", in,
			 (unsigned long long)size, ANEC_MAX_SIZE);
		goto out;
	}
	data = calloc(1, (size_t)size);
	if (!data) {
		rc = bad("%s: out of memory", in);
		goto out;
	}
	memcpy(data, prog.buf + prog.td_area_off, (size_t)tsk);
	memcpy(data + kofs, prog.buf + prog.weights_off, prog.weights_len);
	/* the data must load as the same program, as the driver hands it to the engine */
	le = ldr_load(data, (size_t)size, LDR_F_RAW, &check);
	if (le != LDR_OK || check.ntds != prog.ntds || check.weights_off != kofs) {
		rc = bad("%s: its TDs do not form a raw task stream on their own (%s)", in,
			 ldr_err_name(le));
		goto out;
	}
	static struct tns_tensor t[TNS_MAX];
	unsigned nt = 0;
	struct ctrl_status st;
	enum tns_err te = tns_describe(&check, t, TNS_MAX, &nt, &st);
	if (te != TNS_OK) {
		/* the refusal whole, as inspect and run say it (the name alone before) */
		fprintf(stderr, "convert: %s: ", in);
		tns_print_error(te, &st, "the tensors cannot be derived: ", tool_out_file, stderr);
		rc = 1;
		goto out;
	}
	struct anec a;
	memset(&a, 0, sizeof a);
	a.size = size;
	a.td_size = prog.tds[0].size;
	a.td_count = prog.ntds;
	a.tsk_size = tsk;
	a.krn_size = prog.weights_len;
	a.tiles[ANEC_CMD_BAR] = (uint32_t)((size + (1u << ANEC_TILE_SHIFT) - 1) >> ANEC_TILE_SHIFT);
	for (unsigned i = 0; i < nt; i++)
		a.dst_count += t[i].role == TNS_OUTPUT;
	for (unsigned i = 0; i < nt; i++)
		a.src_count += t[i].role == TNS_INPUT;
	for (unsigned i = 0; i < nt; i++) {
		const struct tns_tensor *x = &t[i];
		if (x->bar < 0 || x->bar >= ANEC_TILES || x->bar == ANEC_CMD_BAR ||
		    x->bar == ANEC_KRN_BAR) {
			rc = bad("tensor %s at BAR %d: " ERR_FMT, x->name, x->bar,
				 ERR_ARGS(conv_err(CONV_E_NO_BUFFER)));
			goto out;
		}
		unsigned b = (unsigned)x->bar;
		int ok = x->role == TNS_OUTPUT   ? b >= ANEC_DST_BAR && b < ANEC_DST_BAR + a.dst_count
			 : x->role == TNS_INPUT ? b >= ANEC_DST_BAR + a.dst_count &&
						      b < ANEC_DST_BAR + a.dst_count + a.src_count
						: b < ANEC_DST_BAR || b >= ANEC_DST_BAR + a.dst_count + a.src_count;
		if (!ok) {
			/* what it is and where libane wants it (the rule alone before, unnamed) */
			char want[64];
			unsigned lo = ANEC_DST_BAR + (x->role == TNS_INPUT ? a.dst_count : 0);
			unsigned n = x->role == TNS_OUTPUT ? a.dst_count : a.src_count;
			if (x->role == TNS_INTERMEDIATE)
				snprintf(want, sizeof want, "a BAR outside %u..%u", ANEC_DST_BAR,
					 ANEC_DST_BAR + a.dst_count + a.src_count - 1);
			else if (n == 1)
				snprintf(want, sizeof want, "BAR %u", lo);
			else
				snprintf(want, sizeof want, "BARs %u..%u", lo, lo + n - 1);
			rc = bad("tensor %s at BAR %u: " ERR_FMT "; it is the program's %s, at BAR %u; "
				 "its %u output%s and %u input%s want it at %s", x->name, b,
				 ERR_ARGS(conv_err(CONV_E_BAR_ORDER)), tns_role_name(x->role), b,
				 a.dst_count, a.dst_count == 1 ? "" : "s", a.src_count,
				 a.src_count == 1 ? "" : "s", want);
			goto out;
		}
		if (x->ilv > 1) {
			rc = bad("tensor %s at BAR %u: " ERR_FMT "; interleaved by %u", x->name, b,
				 ERR_ARGS(conv_err(CONV_E_INTERLEAVED)), (unsigned)x->ilv);
			goto out;
		}
		if (!prog.raw && (in_sect_segment(&prog, prog.text_sect, prog.bars[b]) ||
				  in_sect_segment(&prog, prog.weights_sect, prog.bars[b]))) {
			rc = bad("tensor %s at BAR %u: " ERR_FMT "; BAR %u is 0x%llx in %s", x->name, b,
				 ERR_ARGS(conv_err(CONV_E_PROGRAM_DATA)), b,
				 (unsigned long long)prog.bars[b], in);
			goto out;
		}
		a.tiles[b] = (uint32_t)((x->bytes + (1u << ANEC_TILE_SHIFT) - 1) >> ANEC_TILE_SHIFT);
		enum conv_err ce = conv_nchw(x, a.nchw[b]);
		if (ce != CONV_OK && x->role == TNS_INTERMEDIATE) {
			/* libane never tiles an intermediate (only its size counts): a dense row */
			dense_row(x, a.nchw[b]);
			ce = CONV_OK;
		}
		if (ce != CONV_OK) {
			rc = bad("tensor %s at BAR %u: " ERR_FMT "; %u-byte elements, G %u C %u H %u W %u, "
				 "offset 0x%llx, group 0x%llx, plane 0x%llx, row 0x%llx bytes", x->name, b,
				 ERR_ARGS(conv_err(ce)), (unsigned)x->elem, (unsigned)x->dim[TNS_G],
				 (unsigned)x->dim[TNS_C], (unsigned)x->dim[TNS_H],
				 (unsigned)x->dim[TNS_W], (unsigned long long)x->base,
				 (unsigned long long)x->group, (unsigned long long)x->plane,
				 (unsigned long long)x->row);
			goto out;
		}
	}
	file = malloc(ANEC_HDR_LIBANE + (size_t)size);
	if (!file || !anec_write_header(&a, file, ANEC_HDR_LIBANE)) {
		rc = bad("%s: out of memory", in);
		goto out;
	}
	memcpy(file + ANEC_HDR_LIBANE, data, (size_t)size);
	struct anec back;
	enum anec_err ae = anec_parse(file, ANEC_HDR_LIBANE + (size_t)size, &back);
	if (ae != ANEC_OK) {
		rc = bad("%s: the written header does not validate: " ERR_FMT, in,
			 ERR_ARGS(anec_err(ae)));
		goto out;
	}
	if (tool_write_file(out, file, ANEC_HDR_LIBANE + (size_t)size))
		goto out;
	printf("convert: %s -> %s: %u TD%s (td_size 0x%x, tsk_size 0x%llx), weights 0x%llx bytes, "
	       "%u output%s, %u input%s\n", in, out, a.td_count, a.td_count == 1 ? "" : "s",
	       a.td_size, (unsigned long long)a.tsk_size, (unsigned long long)a.krn_size,
	       a.dst_count, a.dst_count == 1 ? "" : "s", a.src_count, a.src_count == 1 ? "" : "s");
	rc = 0;
out:
	free(file);
	free(data);
	free(buf);
	return rc;
}

TOOL_COMMAND(convert, "convert", cmd_convert,
	     "convert IN OUT.anec [--raw|--hwx]\n"
	     "    write an anec container (the Asahi ANE stack's program file, libane loads it)\n"
	     "    from a .hwx program or a raw task stream; an OUT named .npy or .hwx is refused\n"
	     "    (convert-output-name), as is a tensor libane cannot lay out (docs/asahi.md)");
