/* anefw-tool mkprog [--raw] DESC OUT: a program (.hwx container, or with --raw a raw H13 task
 * stream; weights as one kernel unit) from a description. */
#include "tools/anefw-tool/tool.h"
#include "tools/progdesc/progdesc.h"
#include "fw/loader/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MKPROG_CAP (1u << 20)

#define MKPROG_GRAMMAR                                                                         \
	"input w= h= c=; layer int8|sparse|paletteN [cin=] [cout=] [density=] [seed=] "          \
	"[from=prev]; activation relu|relu6|leakyrelu|hardtanh [from=prev]; "                    \
	"pool avg|max|min [k=] [stride=] [pad=] [from=prev]; streams fp16|fp32"

/* The first byte of line `line` (1-based) before a comment that pd_parse takes for no text (a
 * control byte but tab or CR, or one above 0x7e): 1 with its column (1-based) and value, 0 when
 * there is none. */
static int bad_byte(const char *text, size_t tlen, unsigned line, unsigned *col, unsigned *byte)
{
	size_t pos = 0;
	for (unsigned ln = 1; ln < line && pos < tlen; pos++)
		if (text[pos] == '\n')
			ln++;
	for (size_t i = pos; i < tlen && text[i] != '\n' && text[i] != '#'; i++) {
		unsigned char ch = (unsigned char)text[i];
		if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch > 0x7e) {
			*col = (unsigned)(i - pos + 1);
			*byte = ch;
			return 1;
		}
	}
	return 0;
}

/* "DESC:LINE: name: description; what was found, what was expected", then the line itself. */
static void parse_error(const char *path, const char *text, size_t tlen, const struct pd_desc *d,
			unsigned line, enum pd_err e)
{
	fprintf(stderr, "anefw-tool mkprog: %s", path);
	if (line)
		fprintf(stderr, ":%u", line);
	fprintf(stderr, ": " ERR_FMT, ERR_ARGS(pd_err(e)));
	unsigned col = 0, byte = 0;
	int wn = d->err_word ? (int)(d->err_word_len > 64 ? 64 : d->err_word_len) : 0;
	if (e == PD_E_KEYWORD && d->err_word)
		fprintf(stderr, "; '%.*s' is not a word this statement takes; the statements: %s",
			wn, d->err_word, MKPROG_GRAMMAR);
	else if (e == PD_E_VALUE && d->err_word) {
		fprintf(stderr, "; at '%.*s'", wn, d->err_word);
		if (d->err_expect)
			fprintf(stderr, ", which takes %s", d->err_expect);
		else if (d->err_hi)
			fprintf(stderr, ", which takes %lu to %lu", (unsigned long)d->err_lo,
				(unsigned long)d->err_hi);
	} else if (e == PD_E_SYNTAX && !d->err_word && line && bad_byte(text, tlen, line, &col, &byte))
		fprintf(stderr, "; byte 0x%02x at column %u is no printable ASCII: a description is "
			"lines of ASCII text (docs/control-path.md, \"Program descriptions\")", byte, col);
	else if (e == PD_E_SYNTAX && d->err_word)
		fprintf(stderr, "; '%.*s' is not KEY=VALUE; the statements: %s", wn, d->err_word,
			MKPROG_GRAMMAR);
	else if (e == PD_E_CIN)
		fprintf(stderr, "; cin=%lu, but the statement reads %lu channels (the input's c=, or "
			"with from=prev the previous statement's cout)", (unsigned long)d->err_have,
			(unsigned long)d->err_want);
	fprintf(stderr, "\n");
	/* the line itself */
	size_t pos = 0;
	for (unsigned ln = 1; line && ln < line && pos < tlen; pos++)
		if (text[pos] == '\n')
			ln++;
	if (line && pos < tlen) {
		size_t end = pos;
		while (end < tlen && text[end] != '\n' && end - pos < 200)
			end++;
		/* bytes that are no printable text as \xNN (a binary file's bytes wrote themselves
		 * to the terminal, and a NUL ended the excerpt) */
		fprintf(stderr, "    %u | ", line);
		for (size_t i = pos; i < end; i++) {
			unsigned char ch = (unsigned char)text[i];
			if ((ch >= 0x20 && ch < 0x7f) || ch == '\t')
				fputc(ch, stderr);
			else
				fprintf(stderr, "\\x%02x", ch);
		}
		fputc('\n', stderr);
	}
}

static int cmd_mkprog(int argc, char **argv)
{
	int raw = argc == 4 && strcmp(argv[1], "--raw") == 0;
	if (raw) {
		argv++;
		argc--;
	}
	if (argc != 3 || argv[1][0] == '-')
		return tool_usage_error("mkprog", "expected [--raw] DESC OUT");
	uint8_t *text;
	size_t tlen;
	if (tool_read_file(argv[1], &text, &tlen))
		return 1;
	static struct pd_desc d;
	unsigned line;
	enum pd_err e = pd_parse((const char *)text, tlen, &d, &line);
	if (e != PD_OK) {
		parse_error(argv[1], (const char *)text, tlen, &d, line, e);
		free(text);
		return 1;
	}
	free(text);
	uint8_t *out = malloc(MKPROG_CAP);
	size_t len = 0;
	if (!out)
		return 1;
	e = raw ? pd_build(&d, out, MKPROG_CAP, &len) : pd_build_hwx(&d, out, MKPROG_CAP, &len);
	if (e != PD_OK) {
		fprintf(stderr, "anefw-tool mkprog: %s: " ERR_FMT "\n", argv[1], ERR_ARGS(pd_err(e)));
		free(out);
		return 1;
	}
	/* the loader must accept what was written */
	static struct ldr_program p;
	enum ldr_err le = ldr_load(out, len, raw ? LDR_F_RAW : LDR_F_HWX, &p);
	if (le != LDR_OK) {
		fprintf(stderr, "anefw-tool mkprog: internal: the loader refuses the program: %s\n",
			ldr_err_name(le));
		free(out);
		return 1;
	}
	int rc = tool_write_file(argv[2], out, len) ? 1 : 0;
	if (!rc) {
		printf("mkprog: %s: %s, %u td%s, weights 0x%lx bytes (kernel unit), %lu bytes\n", argv[2],
		       raw ? "raw task stream" : ".hwx container", d.nlayers, d.nlayers == 1 ? "" : "s",
		       (unsigned long)p.weights_len, (unsigned long)len);
		for (unsigned i = 0; i < p.nwindows; i++)
			printf("  window %.*s: %s, %lu bytes, bar %d\n", (int)p.windows[i].name_len,
			       p.windows[i].name,
			       p.windows[i].initprot == LDR_WIN_INPUT ? "input" : "output",
			       (unsigned long)p.windows[i].size, p.windows[i].bar);
		for (unsigned i = 0; i < d.nlayers; i++) {
			const struct pd_layer *L = &d.layer[i];
			if (L->kind == PD_ACT)
				printf("  td %u: activation %s (%u channels)\n", i, pd_act_name(d.act),
				       (unsigned)L->cin);
			else if (L->kind == PD_POOL)
				printf("  td %u: pool %s k=%u stride=%u pad=%u (%u channels, %ux%u -> %ux%u)\n",
				       i, L->pool == PD_POOL_AVG ? "avg" : L->pool == PD_POOL_MAX ? "max" : "min",
				       (unsigned)L->k, (unsigned)L->stride, (unsigned)L->pad, (unsigned)L->cin,
				       (unsigned)L->win, (unsigned)L->hin, (unsigned)L->wout,
				       (unsigned)L->hout);
			else if (L->kind == PD_PALETTE)
				printf("  td %u: palette%u cin=%u cout=%u\n", i, (unsigned)L->bits,
				       (unsigned)L->cin, (unsigned)L->cout);
			else if (L->kind == PD_SPARSE)
				printf("  td %u: sparse density=%u cin=%u cout=%u\n", i,
				       (unsigned)L->density, (unsigned)L->cin, (unsigned)L->cout);
			else
				printf("  td %u: int8 cin=%u cout=%u\n", i, (unsigned)L->cin,
				       (unsigned)L->cout);
		}
	}
	free(out);
	return rc;
}

TOOL_COMMAND(mkprog, "mkprog", cmd_mkprog,
	     "mkprog [--raw] DESC OUT\n"
	     "    write a program (an H13 .hwx container, or with --raw a raw task stream; weights\n"
	     "    as one kernel unit) from a text\n"
	     "    description: input w= h= c=; layer int8|sparse|paletteN [cin=] [cout=]\n"
	     "    [density=] [seed=] [from=prev]; activation relu|relu6|leakyrelu|hardtanh\n"
	     "    [from=prev]; pool avg|max|min [k=] [stride=] [pad=] [from=prev]\n"
	     "    (docs/control-path.md)");
