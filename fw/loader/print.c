/*
 * The program summary shared by `anefw-tool inspect` and the firmware: text or one JSON object,
 * written through a caller-supplied sink (stdout, the console, or nothing when fuzzing).
 */
#include "fw/loader/loader.h"
#include "fw/actlut/actlut.h"
#include "fw/common/fp16.h"
#include "fw/common/outf.h"
#include "fw/kunit/kunit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct pr {
	outf_fn out;
	void *ctx;
	int json;
	int brief; /* LDR_P_BRIEF */
};

/* LDR_P_BRIEF's note after a count it does not list */
#define BRIEF_NOTE " (listed without --brief)"

static void pf(struct pr *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pf(struct pr *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	outf_v(o->out, o->ctx, fmt, ap);
	va_end(ap);
}

/* An fp16 record value for people: fp16_format's decimal, but a subnormal exactly, "2^-N" or
 * "M x 2^-N" (fp16_format_sub: the linear records' clamps at +-2^-24 would otherwise print as 0). */
static void lut_value(uint16_t h, char *buf, size_t cap)
{
	fp16_format_sub(h, buf, cap);
}

/* What a linear-only record computes (docs/actlut.md, "Linear-only records"): x clamped to
 * [in_lo, in_hi], the left line below 0 and the right one above, the knot of index off at +-0,
 * the lines' values kept between the two end values. Words with |x| or the sign bit take other
 * routes and get no line. */
static void lut_lines(struct pr *o, const struct actlut *l)
{
	if (l->kind != ACTLUT_KIND_LINEAR || (l->mode & (ACTLUT_MB_ABS | ACTLUT_MB_SIGN)))
		return;
	static const int at[] = {ACTLUT_L_SLOPE, ACTLUT_L_ICPT, ACTLUT_R_SLOPE, ACTLUT_R_ICPT,
				 ACTLUT_IN_LO,   ACTLUT_IN_HI,  ACTLUT_OUT_LO,  ACTLUT_OUT_HI};
	char v[8][24], k[24];
	for (unsigned i = 0; i < 8; i++)
		lut_value(l->slot[at[i]], v[i], sizeof v[i]);
	lut_value(l->slot[ACTLUT_KNOT0 + l->off], k, sizeof k);
	pf(o, "    lines: y = %s x + %s for x < 0, y = %s x + %s for x > 0, y = %s at x = 0; "
	      "x clamped to [%s, %s], the lines' y to between %s and %s\n",
	   v[0], v[1], v[2], v[3], k, v[4], v[5], v[6], v[7]);
}

/* Where a table record's knots sit (docs/actlut.md, "Evaluation"): knot i at LUT input
 * v = (i - off) / 2^s, v being x or, with |x| (odd and even records), |x|; the tail lines
 * beyond. */
static void lut_knots(struct pr *o, const struct actlut *l)
{
	if (l->kind != ACTLUT_KIND_PLAIN && l->kind != ACTLUT_KIND_ODD && l->kind != ACTLUT_KIND_EVEN)
		return;
	char lo[24], hi[24], clo[24], chi[24];
	const char *v = l->kind == ACTLUT_KIND_PLAIN ? "x" : "|x|";
	lut_value(fp16_from_scaled(-l->off, -l->scale), lo, sizeof lo);
	lut_value(fp16_from_scaled(ACTLUT_KNOTS - 1 - l->off, -l->scale), hi, sizeof hi);
	lut_value(l->slot[ACTLUT_IN_LO], clo, sizeof clo);
	lut_value(l->slot[ACTLUT_IN_HI], chi, sizeof chi);
	pf(o, "    knots: %d at %s = %s .. %s, every 2^-%d, the tail lines beyond; %s clamped to "
	      "[%s, %s]\n",
	   ACTLUT_KNOTS, v, lo, hi, (int)l->scale, v, clo, chi);
}

/* How a split record computes (docs/actlut.md, "Evaluation"; fw/actlut actlut_eval): the input
 * split into parts, the table T over one part (knot i at (i / 2^s) past the part's start), the
 * other part applied to T's output; frac and int with no table. */
static void lut_split(struct pr *o, const struct actlut *l)
{
	const uint32_t op = l->mode & ACTLUT_MB_OP;
	const char *how;
	int half = 0; /* the knots start at 0.5 (the mantissa less 0.5), else at 0 */
	switch (op) {
	case ACTLUT_OP_EXP2: /* the only split that may read x itself */
		how = (l->mode & ACTLUT_MB_ABS)
			      ? "|x| = n + f (n = floor(|x|)), y = T(f) x 2^n; knots at f"
			      : "x = n + f (n = floor(x)), y = T(f) x 2^n; knots at f";
		break;
	case ACTLUT_OP_LOG2:
		how = "|x| = m x 2^e (m in [0.5, 1)), y = T(m) + e; knots at m";
		half = 1;
		break;
	case ACTLUT_OP_RECIP:
		how = "|x| = m x 2^e (m in [0.5, 1)), y = T(m) x 2^-e; knots at m";
		half = 1;
		break;
	case ACTLUT_OP_SQRT:
		how = "|x| = m x 2^e (e even, m in [0.5, 2)), y = T(m) x 2^(e/2); knots at m";
		break;
	case ACTLUT_OP_RSQRT:
		how = "|x| = m x 2^e (e even, m in [0.5, 2)), y = T(m) x 2^(-e/2); knots at m";
		break;
	case ACTLUT_OP_FRAC:
		how = "a = n + f (n = floor(a)), y = f (no table)";
		break;
	case ACTLUT_OP_INT:
		how = "a = n + f (n = floor(a)), y = n (no table)";
		break;
	default:
		return; /* the table operations: lut_knots, lut_lines */
	}
	pf(o, "    split: %s", how);
	if (op != ACTLUT_OP_FRAC && op != ACTLUT_OP_INT) {
		/* in units of 2^-(s+1): the start (0 or 0.5), and 32 knot steps of 2 units past it */
		const int64_t first = half ? (int64_t)1 << l->scale : 0;
		char lo[24], hi[24];
		lut_value(fp16_from_scaled(first, -1 - l->scale), lo, sizeof lo);
		lut_value(fp16_from_scaled(first + 2 * (ACTLUT_KNOTS - 1), -1 - l->scale), hi,
			  sizeof hi);
		pf(o, " = %s .. %s, every 2^-%d", lo, hi, (int)l->scale);
	} else {
		pf(o, "; a = %s clamped", (l->mode & ACTLUT_MB_ABS) ? "|x|" : "x");
	}
	if (l->mode & ACTLUT_MB_SIGN)
		pf(o, "; y takes the sign of x");
	if (l->mode & ACTLUT_MB_FLUSH)
		pf(o, "; x < 0 gives +0");
	pf(o, "\n");
}

/* A name from the file: printable ASCII as is, everything else escaped (JSON-safe). */
static void pname(struct pr *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			o->out(o->ctx, (const char *)&s[i], 1);
		else
			pf(o, "\\u%04x", c);
	}
}

static void pname0(struct pr *o, const char *s)
{
	pname(o, s, strnlen(s, 17));
}

static const char *win_kind(uint32_t prot)
{
	return prot == LDR_WIN_INPUT ? "input" : prot == LDR_WIN_OUTPUT ? "output" :
	       prot == LDR_WIN_INTERMEDIATE ? "intermediate" : "unknown";
}

/* The compiler line of the version note ("zin_ane_compiler v4.2.1"), else its first line. */
static void compiler_line(const struct ldr_program *p, const char **s, size_t *n)
{
	*s = NULL;
	*n = 0;
	if (!p->note)
		return;
	const char *first = NULL;
	size_t first_n = 0;
	size_t i = 0;
	while (i < p->note_len) {
		size_t j = i;
		while (j < p->note_len && p->note[j] != '\n')
			j++;
		if (!first) {
			first = p->note + i;
			first_n = j - i;
		}
		for (size_t k = i; k + 8 <= j; k++)
			if (!memcmp(p->note + k, "compiler", 8)) {
				*s = p->note + i;
				*n = j - i;
				return;
			}
		i = j + 1;
	}
	*s = first;
	*n = first_n;
}

static void reg_name(struct pr *o, const struct ldr_write *w)
{
	if (!w->loc.block) {
		pf(o, "0x%05lx", (unsigned long)w->addr);
		return;
	}
	char name[RM_NAME_MAX];
	rm_loc_name(&w->loc, name, sizeof name);
	pf(o, "%s", name);
}

static void text_write(struct pr *o, const struct ldr_write *w)
{
	const struct rm_reg *r = w->loc.reg;
	if (!r || !r->nfields) {
		pf(o, "    ");
		reg_name(o, w);
		pf(o, " = 0x%lx\n", (unsigned long)w->value);
		return;
	}
	for (unsigned f = 0; f < r->nfields; f++) {
		pf(o, "    ");
		reg_name(o, w);
		pf(o, ".%s = 0x%lx\n", r->fields[f].name,
		   (unsigned long)rm_field_get(&r->fields[f], w->value));
	}
}

static void json_write(struct pr *o, const struct ldr_program *p, const struct ldr_write *w,
		       int first)
{
	pf(o, "%s{\"reg\":\"", first ? "" : ",");
	reg_name(o, w);
	pf(o, "\",\"addr\":%lu,\"value\":%lu,\"file_off\":%lu", (unsigned long)w->addr,
	   (unsigned long)w->value, (unsigned long)p->td_area_off + w->area_off);
	const struct rm_reg *r = w->loc.reg;
	if (r && r->nfields) {
		pf(o, ",\"fields\":{");
		for (unsigned f = 0; f < r->nfields; f++)
			pf(o, "%s\"%s\":%lu", f ? "," : "", r->fields[f].name,
			   (unsigned long)rm_field_get(&r->fields[f], w->value));
		pf(o, "}");
	}
	pf(o, "}");
}

/* The container: segments and their sections, the I/O windows, the BAR table. */
static void print_container(struct pr *o, const struct ldr_program *p)
{
	pf(o, "segments: %u\n", p->nsegs);
	for (unsigned i = 0; i < p->nsegs; i++) {
		const struct ldr_segment *s = &p->segs[i];
		pf(o, "  ");
		pname0(o, s->name);
		pf(o, " vm 0x%lx+0x%lx file 0x%lx+0x%lx prot %lu/%lu\n",
		   (unsigned long)s->vmaddr, (unsigned long)s->vmsize,
		   (unsigned long)s->fileoff, (unsigned long)s->filesize,
		   (unsigned long)s->maxprot, (unsigned long)s->initprot);
		for (unsigned k = 0; k < s->nsects; k++) {
			const struct ldr_section *x = &p->sects[s->first_sect + k];
			pf(o, "    section ");
			pname0(o, x->segname);
			pf(o, ",");
			pname0(o, x->sectname);
			pf(o, " addr 0x%lx size 0x%lx", (unsigned long)x->addr,
			   (unsigned long)x->size);
			if (x->in_file)
				pf(o, " file 0x%lx", (unsigned long)x->offset);
			pf(o, " relocs %lu\n", (unsigned long)x->nreloc);
		}
	}
	pf(o, "io windows: %u\n", p->nwindows);
	for (unsigned i = 0; i < p->nwindows; i++) {
		const struct ldr_window *w = &p->windows[i];
		pf(o, "  %-12s \"", win_kind(w->initprot));
		pname(o, w->name, w->name_len);
		pf(o, "\" vm 0x%lx size 0x%lx (window 0x%lx)", (unsigned long)w->vmaddr,
		   (unsigned long)w->size, (unsigned long)w->vmsize);
		if (w->bar >= 0)
			pf(o, " bar %d", w->bar);
		pf(o, "\n");
	}
	if (p->have_thread) {
		pf(o, "bar table:");
		for (unsigned i = 0; i < LDR_NBARS; i++)
			if (p->bars[i])
				pf(o, " %u=0x%lx", i, (unsigned long)p->bars[i]);
		pf(o, "\nfirst td: 0x%lx (%lu words), td count %lu\n",
		   (unsigned long)p->td_addr, (unsigned long)p->td_first_words + 1,
		   (unsigned long)p->td_count);
	}
}

/* TD i: header, BARs, coefficient channels, what it computes (im: the register image the TDs
 * before it left, which this TD's writes update) and its writes. */
static void print_td(struct pr *o, const struct ldr_program *p, unsigned i, struct ldr_image *im,
		     struct td_residents *res)
{
	const struct ldr_td *t = &p->tds[i];
	pf(o, "td %u at 0x%lx size 0x%lx: tid %lu nid %lu lnid %lu eon %lu exe_cycles %lu "
	      "next_size %lu next_pointer 0x%lx\n",
	   i, (unsigned long)t->off, (unsigned long)t->size, (unsigned long)t->h.tid,
	   (unsigned long)t->h.nid, (unsigned long)t->h.lnid, (unsigned long)t->h.eon,
	   (unsigned long)t->h.exe_cycles, (unsigned long)t->h.next_size,
	   (unsigned long)t->h.next_ptr);
	pf(o, "  log_events 0x%lx exceptions 0x%lx debug_log_events 0x%lx "
	      "debug_exceptions 0x%lx flags 0x%08lx ene %u\n",
	   (unsigned long)t->h.log_events, (unsigned long)t->h.exceptions,
	   (unsigned long)t->h.debug_log_events, (unsigned long)t->h.debug_exceptions,
	   (unsigned long)t->h.flags, t->h.ene);
	pf(o, "  bars:");
	for (unsigned b = 0; b < 8; b++)
		if (t->h.bar_en >> b & 1) {
			pf(o, " %s=%u", ldr_bar_names[b], t->h.bar_idx[b]);
			if (p->have_thread)
				pf(o, "(0x%lx)", (unsigned long)p->bars[t->h.bar_idx[b]]);
		}
	pf(o, "\n  coefficient channels: %u", t->ncoeff);
	if (t->ncoeff && (t->h.bar_en >> H13_BAR_KBASE0 & 1u) && !ldr_td_kernels_in_weights(p, i))
		pf(o, ", read from BAR %u, a runtime tensor (not the weights)",
		   t->h.bar_idx[H13_BAR_KBASE0]);
	pf(o, "\n");
	for (unsigned k = 0; k < t->ncoeff; k++)
		pf(o, "    ch %u base 0x%lx size 0x%lx cfg 0x%lx\n", t->coeff[k].ch,
		   (unsigned long)t->coeff[k].base, (unsigned long)t->coeff[k].size,
		   (unsigned long)t->coeff[k].cfg);
	pf(o, "  activation lut: %s\n", t->lut ? "yes" : "no");
	ldr_image_apply_td(im, i);
	const struct td_regs regs = {ldr_image_reg, im};
	td_print_op_walk(&regs, &t->h, ldr_td_kunit_streams(p, i), res, o->out, o->ctx);
	pf(o, "  operations: %lu (multiply-accumulates and pooling taps, one an element otherwise: "
	      "fw/td td_ops, what the engine model's compute limit counts)\n",
	   (unsigned long)td_ops(&regs));
	if (o->brief) {
		pf(o, "  writes: %u" BRIEF_NOTE "\n", t->nwrites);
		return;
	}
	pf(o, "  writes: %u\n", t->nwrites);
	struct ldr_write_iter it;
	struct ldr_write w;
	ldr_writes_begin(p, i, &it);
	while (ldr_writes_next(&it, &w))
		text_write(o, &w);
}

static void print_relocs(struct pr *o, const struct ldr_program *p)
{
	if (o->brief) {
		pf(o, "relocations: %u%s\n", p->nrelocs, p->nrelocs ? BRIEF_NOTE : "");
		return;
	}
	pf(o, "relocations: %u\n", p->nrelocs);
	for (unsigned r = 0; r < p->nrelocs; r++) {
		const struct ldr_reloc *rl = &p->relocs[r];
		const struct ldr_section *x = &p->sects[rl->sect];
		pf(o, "  ");
		pname0(o, x->sectname);
		pf(o, "+0x%lx len %u pcrel %u type %u -> ", (unsigned long)rl->address,
		   1u << rl->length, rl->pcrel, rl->type);
		if (rl->target_sect >= 0) {
			pf(o, "section ");
			pname0(o, p->sects[rl->target_sect].segname);
			pf(o, ",");
			pname0(o, p->sects[rl->target_sect].sectname);
		} else {
			pf(o, "symbol %lu", (unsigned long)rl->symbolnum);
		}
		if (rl->td >= 0)
			pf(o, " (td %d", rl->td);
		if (rl->has_reg) {
			struct ldr_write w;
			memset(&w, 0, sizeof w);
			w.addr = rl->reg_addr;
			rm_lookup(p->gen, rl->reg_addr, &w.loc);
			pf(o, " ");
			reg_name(o, &w);
		}
		pf(o, "%s\n", rl->td >= 0 ? ")" : "");
	}
}

static void print_text(struct pr *o, const struct ldr_program *p)
{
	pf(o, "program: %s%s, generation %s",
	   p->anec_hdr ? "anec container holding a " : "",
	   p->raw ? "raw task stream" : "hwx container", p->gen ? p->gen->name : "?");
	if (p->anec_hdr)
		pf(o, " (header 0x%lx bytes)", (unsigned long)p->anec_hdr);
	if (!p->raw)
		pf(o, " (cpusubtype %lu)", (unsigned long)p->cpusubtype);
	pf(o, ", %lu bytes\n", (unsigned long)p->len);
	const char *cs;
	size_t cn;
	compiler_line(p, &cs, &cn);
	if (cs) {
		pf(o, "compiler: ");
		pname(o, cs, cn);
		pf(o, "\n");
	} else if (!p->raw) {
		pf(o, "compiler: (no version note)\n");
	}
	if (!p->raw)
		print_container(o, p);
	pf(o, "weights: file 0x%lx size 0x%lx\n", (unsigned long)p->weights_off,
	   (unsigned long)p->weights_len);
	pf(o, "tds: %u\n", p->ntds);
	struct ldr_image im; /* the register image as the TDs leave it, for td_print_op */
	memset(&im, 0, sizeof im);
	im.p = p;
	/* the L2-resident tensors the TDs leave, in order, and what they write to L2 memory
	 * (td_print_op_walk; L2 memory not followed if there is no room) */
	struct td_residents res;
	td_residents_begin(&res);
	for (unsigned i = 0; i < p->ntds; i++)
		print_td(o, p, i, &im, &res);
	td_residents_end(&res);
	print_relocs(o, p);
}

/* The kernel unit's activation-LUT stream of TD i (the unit parses, as ldr_td_kunit_streams
 * found): the engine model reads it from its section's start to its end (ku_patch's slot,
 * ku_stream_len), applies its first record (actlut_read_checked over its 0x80 bytes, zero past the
 * section's end) and refuses a further record that differs (actlut_stream_differs): printed and
 * marked with the model's text, or in --json one entry of "luts" with "stream": "kernel-unit"
 * (after a comma when comma is set). Returns 1 when it printed the stream, 0 when there is none. */
static int print_stream_lut(struct pr *o, const struct ldr_program *p, unsigned i, int comma)
{
	struct ku_unit u;
	if (ku_parse(p->buf + p->weights_off, p->weights_len, NULL, &u) != KU_OK)
		return 0;
	const struct ku_section_desc *sd = &u.sec[KU_SEC_ACTLUT];
	if (sd->size < ACTLUT_BYTES) /* (resolve_act takes no shorter stream) */
		return 0;
	const uint8_t *srec = p->buf + p->weights_off + sd->offset; /* inside the unit: ku_parse */
	uint8_t kbuf[ACTLUT_STRIDE] = {0};
	const size_t klen = sd->size < ACTLUT_STRIDE ? (size_t)sd->size : ACTLUT_STRIDE;
	memcpy(kbuf, srec, klen);
	if (o->json)
		pf(o, "%s{\"td\":%u,\"stream\":\"kernel-unit\",\"weights_offset\":%lu,\"file_offset\":%lu,"
		      "\"size\":%lu,\"entries\":[",
		   comma ? "," : "", i, (unsigned long)sd->offset, (unsigned long)(p->weights_off + sd->offset),
		   (unsigned long)sd->size);
	else
		pf(o, "  td %u: the kernel unit's activation-LUT stream at weights+0x%lx (file 0x%lx, 0x%lx bytes):",
		   i, (unsigned long)sd->offset, (unsigned long)(p->weights_off + sd->offset),
		   (unsigned long)sd->size);
	for (unsigned e = 0; e < LDR_LUT_ENTRIES; e++)
		if (o->json)
			pf(o, "%s%u", e ? "," : "", le_rd16(kbuf + 2 * e));
		else
			pf(o, "%s%04x", e % 12 ? " " : "\n    ", le_rd16(kbuf + 2 * e));
	const size_t sk = actlut_stream_differs(srec, sd->size);
	if (sk) {
		if (o->json)
			pf(o, "],\"error\":\"not-modelled\",\"record_at\":%lu,\"why\":\"", (unsigned long)sk);
		else
			pf(o, "\n    not modelled: the record at stream +0x%lx differs from the first: ",
			   (unsigned long)sk);
		o->out(o->ctx, ACTLUT_STREAM_DIFFERS_WHY, sizeof ACTLUT_STREAM_DIFFERS_WHY - 1);
		pf(o, "%s", o->json ? "\"}" : "\n");
		return 1;
	}
	struct actlut l;
	size_t pad_at = 0;
	const enum actlut_err ae = actlut_read_checked(&l, kbuf, klen, &pad_at);
	if (o->json) {
		if (ae == ACTLUT_OK)
			pf(o, "],\"reads_as\":\"%s\",\"mode\":%u,\"scale\":%d}", actlut_kind_name(l.kind),
			   (unsigned)l.mode, (int)l.scale);
		else if (ae == ACTLUT_E_PADDING)
			pf(o, "],\"error\":\"%s\",\"byte\":%lu,\"value\":%u}", actlut_err_name(ae),
			   (unsigned long)pad_at, (unsigned)kbuf[pad_at]);
		else
			pf(o, "],\"error\":\"%s\"}", actlut_err_name(ae));
		return 1;
	}
	if (ae == ACTLUT_OK) {
		pf(o, "\n    reads as: %s (mode word 0x%02x, scale slot %d)\n", actlut_kind_name(l.kind),
		   (unsigned)l.mode, (int)l.scale);
		lut_lines(o, &l);
		lut_knots(o, &l);
		lut_split(o, &l);
		return 1;
	}
	if (ae == ACTLUT_E_PADDING)
		pf(o, "\n    does not read: %s: byte %lu = 0x%02x: ", actlut_err_name(ae), (unsigned long)pad_at,
		   (unsigned)kbuf[pad_at]);
	else
		pf(o, "\n    does not read: %s: ", actlut_err_name(ae));
	const char *d = actlut_strerror(ae); /* longer than a line of pf */
	o->out(o->ctx, d, strlen(d));
	pf(o, "\n");
	return 1;
}

/* LUT records of TDs that select the LUT, where fw/td's td_lut_place says (as the engine model
 * reads them): coefficient buffers of exactly one record, or the head of a convolution's every
 * channel (printed once, from the first). */
static unsigned print_luts(struct pr *o, const struct ldr_program *p)
{
	unsigned n = 0;
	for (unsigned i = 0; i < p->ntds; i++) {
		const struct ldr_td *t = &p->tds[i];
		if (!t->lut || !ldr_td_kernels_in_weights(p, i))
			continue; /* a record in a runtime tensor: no bytes in the file */
		uint64_t len[H13_COEFF_NCH];
		unsigned nc = 0, first = 0;
		for (unsigned k = 0; k < t->ncoeff && nc < H13_COEFF_NCH; k++)
			len[nc++] = t->coeff[k].size;
		struct ldr_regimage img;
		const int conv = ldr_td_image(p, i, &img) == LDR_OK &&
				 td_conv_from_memory(ldr_image_get(p, &img, H13_NE_MACCFG),
						     ldr_image_get(p, &img, H13_NE_POSTSCALE), nc);
		/* with a kernel unit (as engine/model/model.c's resolve_act): a convolution's channel 0
		 * is its OCG, no record; the unit's activation-LUT stream feeds the TD as well */
		const unsigned ku = ldr_td_kunit_streams(p, i);
		const unsigned skip = ku && conv && nc ? 1u : 0u;
		const enum td_lut_place place = td_lut_place(len + skip, nc - skip, conv && !ku, &first);
		unsigned before = n;
		if (place == TD_LUT_MIXED) { /* the engine model refuses it with this text */
			const struct ldr_coeff *c = &t->coeff[skip + first];
			if (o->json)
				pf(o, "%s{\"td\":%u,\"ch\":%u,\"error\":\"not-modelled\",\"why\":\"", n ? "," : "", i,
				   c->ch);
			else
				pf(o, "  td %u ch %u (0x%lx bytes): not modelled: ", i, c->ch, (unsigned long)c->size);
			o->out(o->ctx, TD_LUT_MIXED_WHY, sizeof TD_LUT_MIXED_WHY - 1); /* longer than a line of pf */
			pf(o, "%s", o->json ? "\"}" : "\n");
			n++;
			continue;
		}
		for (unsigned k = skip; k < t->ncoeff; k++) {
			const struct ldr_coeff *c = &t->coeff[k];
			if (place == TD_LUT_HEADS ? k != skip : c->size != LDR_LUT_BYTES)
				continue;
			const uint8_t *rec = p->buf + p->weights_off + c->base; /* range validated */
			/* how the engine model reads it (fw/actlut, as resolve_act does) */
			struct actlut l;
			const size_t rlen = c->size < ACTLUT_STRIDE ? (size_t)c->size : ACTLUT_STRIDE;
			size_t pad_at = 0;
			/* (the slots' 86 bytes parsed whatever the channel's size, as before the padding
			 * check; its bytes past 86 checked to the channel's end) */
			enum actlut_err ae = actlut_read_checked(&l, rec, rlen < ACTLUT_BYTES ? ACTLUT_BYTES : rlen,
								 &pad_at);
			if (o->json) {
				pf(o, "%s{\"td\":%u,\"ch\":%u,\"weights_offset\":%lu,\"file_offset\":%lu,"
				      "\"entries\":[",
				   n ? "," : "", i, c->ch, (unsigned long)c->base,
				   (unsigned long)(p->weights_off + c->base));
				for (unsigned e = 0; e < LDR_LUT_ENTRIES; e++)
					pf(o, "%s%u", e ? "," : "", le_rd16(rec + 2 * e));
				if (ae == ACTLUT_OK)
					pf(o, "],\"reads_as\":\"%s\",\"mode\":%u,\"scale\":%d}",
					   actlut_kind_name(l.kind), (unsigned)l.mode, (int)l.scale);
				else if (ae == ACTLUT_E_PADDING)
					pf(o, "],\"error\":\"%s\",\"byte\":%lu,\"value\":%u}", actlut_err_name(ae),
					   (unsigned long)pad_at, (unsigned)rec[pad_at]);
				else
					pf(o, "],\"error\":\"%s\"}", actlut_err_name(ae));
			} else {
				pf(o, "  td %u ch %u at weights+0x%lx (file 0x%lx)%s:", i, c->ch,
				   (unsigned long)c->base, (unsigned long)(p->weights_off + c->base),
				   place == TD_LUT_HEADS ? ", the head of every coefficient channel, the "
							   "kernels after it" : "");
				for (unsigned e = 0; e < LDR_LUT_ENTRIES; e++)
					pf(o, "%s%04x", e % 12 ? " " : "\n    ",
					   le_rd16(rec + 2 * e));
				if (ae == ACTLUT_OK) {
					pf(o, "\n    reads as: %s (mode word 0x%02x, scale slot %d)\n",
					   actlut_kind_name(l.kind), (unsigned)l.mode, (int)l.scale);
					lut_lines(o, &l);
					lut_knots(o, &l);
					lut_split(o, &l);
				} else if (ae == ACTLUT_E_PADDING) {
					pf(o, "\n    does not read: %s: byte %lu = 0x%02x: ", actlut_err_name(ae),
					   (unsigned long)pad_at, (unsigned)rec[pad_at]);
					const char *d = actlut_strerror(ae); /* longer than a line of pf */
					o->out(o->ctx, d, strlen(d));
					pf(o, "\n");
				} else
					pf(o, "\n    does not read: %s: %s\n", actlut_err_name(ae),
					   actlut_strerror(ae));
			}
			n++;
		}
		if (n > before && (ku & (1u << H13_KSTREAM_ACTLUT)) && !o->json)
			pf(o, "  td %u: the kernel unit's activation-LUT stream feeds it too: the model applies "
			      "the stream's record, which the record%s above must equal (refused where they "
			      "differ: which one the engine reads is not pinned)\n",
			   i, n - before > 1 ? "s" : "");
		if (ku & (1u << H13_KSTREAM_ACTLUT)) { /* the stream's record itself */
			const int printed = print_stream_lut(o, p, i, n > 0);
			if (o->json ? printed : n == before)
				n++;
		}
		if (n == before && !o->json) {
			/* selected, but no coefficient channel holds a record: a kernel-unit stream
			 * (docs/kunit.md) feeds it, resolved at submission */
			pf(o, "  td %u: selected, no record in a coefficient channel (a kernel-unit "
			      "stream may feed it: see submit --trace)\n", i);
			n++;
		}
	}
	return n;
}

static void print_json(struct pr *o, const struct ldr_program *p)
{
	pf(o, "{\"format\":\"%s\",\"generation\":\"%s\",\"gen\":%u", p->raw ? "raw" : "hwx",
	   p->gen ? p->gen->name : "?", p->gen ? p->gen->gen : 0);
	if (!p->raw)
		pf(o, ",\"cpusubtype\":%lu", (unsigned long)p->cpusubtype);
	if (p->anec_hdr)
		pf(o, ",\"anec_header\":%lu", (unsigned long)p->anec_hdr);
	const char *cs;
	size_t cn;
	compiler_line(p, &cs, &cn);
	pf(o, ",\"compiler\":");
	if (cs) {
		pf(o, "\"");
		pname(o, cs, cn);
		pf(o, "\"");
	} else {
		pf(o, "null");
	}
	pf(o, ",\"segments\":[");
	for (unsigned i = 0; i < p->nsegs; i++) {
		const struct ldr_segment *s = &p->segs[i];
		pf(o, "%s{\"name\":\"", i ? "," : "");
		pname0(o, s->name);
		pf(o, "\",\"vmaddr\":%lu,\"vmsize\":%lu,\"fileoff\":%lu,\"filesize\":%lu,"
		      "\"initprot\":%lu,\"sections\":[",
		   (unsigned long)s->vmaddr, (unsigned long)s->vmsize, (unsigned long)s->fileoff,
		   (unsigned long)s->filesize, (unsigned long)s->initprot);
		for (unsigned k = 0; k < s->nsects; k++) {
			const struct ldr_section *x = &p->sects[s->first_sect + k];
			pf(o, "%s{\"name\":\"", k ? "," : "");
			pname0(o, x->sectname);
			pf(o, "\",\"addr\":%lu,\"size\":%lu,\"offset\":%lu,\"nreloc\":%lu}",
			   (unsigned long)x->addr, (unsigned long)x->size, (unsigned long)x->offset,
			   (unsigned long)x->nreloc);
		}
		pf(o, "]}");
	}
	pf(o, "],\"windows\":[");
	for (unsigned i = 0; i < p->nwindows; i++) {
		const struct ldr_window *w = &p->windows[i];
		pf(o, "%s{\"name\":\"", i ? "," : "");
		pname(o, w->name, w->name_len);
		pf(o, "\",\"kind\":\"%s\",\"vmaddr\":%lu,\"size\":%lu,\"vmsize\":%lu,\"bar\":%d}",
		   win_kind(w->initprot), (unsigned long)w->vmaddr, (unsigned long)w->size,
		   (unsigned long)w->vmsize, w->bar);
	}
	pf(o, "],\"bars\":[");
	unsigned nb = 0;
	for (unsigned i = 0; p->have_thread && i < LDR_NBARS; i++)
		if (p->bars[i])
			pf(o, "%s{\"index\":%u,\"addr\":%lu}", nb++ ? "," : "", i,
			   (unsigned long)p->bars[i]);
	pf(o, "],\"weights\":{\"offset\":%lu,\"size\":%lu},\"tds\":[",
	   (unsigned long)p->weights_off, (unsigned long)p->weights_len);
	struct ldr_image im; /* the register image as the TDs leave it, for td_ops */
	memset(&im, 0, sizeof im);
	im.p = p;
	for (unsigned i = 0; i < p->ntds; i++) {
		const struct ldr_td *t = &p->tds[i];
		ldr_image_apply_td(&im, i);
		const struct td_regs regs = {ldr_image_reg, &im};
		pf(o, "%s{\"index\":%u,\"offset\":%lu,\"size\":%lu,\"tid\":%lu,\"nid\":%lu,"
		      "\"lnid\":%lu,\"eon\":%lu,\"exe_cycles\":%lu,\"next_size\":%lu,"
		      "\"next_pointer\":%lu,",
		   i ? "," : "", i, (unsigned long)t->off, (unsigned long)t->size,
		   (unsigned long)t->h.tid, (unsigned long)t->h.nid, (unsigned long)t->h.lnid,
		   (unsigned long)t->h.eon, (unsigned long)t->h.exe_cycles,
		   (unsigned long)t->h.next_size, (unsigned long)t->h.next_ptr);
		pf(o, "\"log_events\":%lu,\"exceptions\":%lu,\"debug_log_events\":%lu,"
		      "\"debug_exceptions\":%lu,\"flags\":%lu,\"ene\":%u,\"bars\":[",
		   (unsigned long)t->h.log_events, (unsigned long)t->h.exceptions,
		   (unsigned long)t->h.debug_log_events, (unsigned long)t->h.debug_exceptions,
		   (unsigned long)t->h.flags, t->h.ene);
		unsigned nbb = 0;
		for (unsigned b = 0; b < 8; b++)
			if (t->h.bar_en >> b & 1)
				pf(o, "%s{\"field\":\"%s\",\"index\":%u}", nbb++ ? "," : "",
				   ldr_bar_names[b], t->h.bar_idx[b]);
		pf(o, "],\"coeff\":[");
		for (unsigned k = 0; k < t->ncoeff; k++)
			pf(o, "%s{\"ch\":%u,\"base\":%lu,\"size\":%lu}", k ? "," : "", t->coeff[k].ch,
			   (unsigned long)t->coeff[k].base, (unsigned long)t->coeff[k].size);
		pf(o, "],\"lut\":%s,\"operations\":%lu,\"writes\":%u,\"registers\":[",
		   t->lut ? "true" : "false", (unsigned long)td_ops(&regs), t->nwrites);
		struct ldr_write_iter it;
		struct ldr_write w;
		int first = 1;
		ldr_writes_begin(p, i, &it);
		while (ldr_writes_next(&it, &w)) {
			json_write(o, p, &w, first);
			first = 0;
		}
		pf(o, "]}");
	}
	pf(o, "],\"relocations\":[");
	for (unsigned r = 0; r < p->nrelocs; r++) {
		const struct ldr_reloc *rl = &p->relocs[r];
		pf(o, "%s{\"section\":%u,\"address\":%lu,\"length\":%u,\"pcrel\":%u,\"extern\":%u,"
		      "\"symbolnum\":%lu,\"target_section\":%d,\"td\":%d",
		   r ? "," : "", rl->sect, (unsigned long)rl->address, 1u << rl->length, rl->pcrel,
		   rl->external, (unsigned long)rl->symbolnum, rl->target_sect, rl->td);
		if (rl->has_reg)
			pf(o, ",\"reg_addr\":%lu", (unsigned long)rl->reg_addr);
		pf(o, "}");
	}
	pf(o, "],\"luts\":[");
	print_luts(o, p);
	pf(o, "]}\n");
}

void ldr_print(const struct ldr_program *p, unsigned pflags, outf_fn out, void *ctx)
{
	struct pr o = {out, ctx, (pflags & LDR_P_JSON) != 0, (pflags & LDR_P_BRIEF) != 0};
	if (o.json) {
		print_json(&o, p);
		return;
	}
	print_text(&o, p);
	pf(&o, "activation lut records:\n");
	if (!print_luts(&o, p))
		pf(&o, "  none\n");
}

static void put(outf_fn out, void *ctx, const char *s)
{
	if (out && s)
		out(ctx, s, strlen(s));
}

void ldr_print_refusal(const struct ldr_program *p, enum ldr_err e, const uint8_t *buf, size_t len,
		       unsigned flags, const char *lead, const char *lead2, const char *path,
		       outf_fn out, void *ctx)
{
	char vals[128];
	ldr_err_values(p, e, vals, sizeof vals);
	put(out, ctx, lead);
	outf(out, ctx, ERR_FMT, ERR_ARGS(ldr_err_of(p, e)));
	if (p && p->err_off)
		outf(out, ctx, " at file offset 0x%lx", (unsigned long)p->err_off);
	outf(out, ctx, "%s%s\n", vals[0] ? ": " : "", vals);
	const char *no = ldr_not_a_program(buf, len, flags, p, e);
	if (!no)
		return;
	put(out, ctx, lead2);
	if (path) {
		put(out, ctx, path);
		put(out, ctx, ": ");
	}
	put(out, ctx, no);
	put(out, ctx, "\n");
}
