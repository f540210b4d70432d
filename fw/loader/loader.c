/*
 * Program loader: the .hwx container, raw task streams, the TD chain and the H13 register-write
 * stream. See docs/formats.md for the layout as this project reads it.
 */
#include "fw/loader/loader.h"
#include "fw/common/assert.h"
#include "fw/loader/anec.h"
#include "fw/loader/hwx_format.h"
#include "fw/kunit/kunit.h"
#include "fw/td/td.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const struct err_desc errs[LDR_E__COUNT] = {
	[LDR_OK] = {"ok", "valid program"},
	[LDR_E_ARG] = {"bad_argument", "bad argument"},
	[LDR_E_TRUNCATED] = {"truncated", "file shorter than its header"},
	[LDR_E_BAD_MAGIC] = {"bad_magic", "not a .hwx container (bad magic)"},
	[LDR_E_BAD_CPUTYPE] = {"bad_cputype", "cputype is not the neural engine (0x80)"},
	[LDR_E_BAD_VERSION] = {"bad_version", "cpusubtype names no known generation"},
	[LDR_E_UNSUPPORTED] = {"unsupported_generation",
	 "generation known but its task descriptors are not decoded"},
	[LDR_E_CMD_RANGE] = {"cmd_outside_file", "load commands extend outside the file"},
	[LDR_E_CMD_SIZE] = {"bad_cmd_size",
	 "load command size too small, misaligned or past the commands"},
	[LDR_E_SEG_RANGE] = {"segment_outside_file", "segment file range outside the file"},
	[LDR_E_SECT_RANGE] = {"section_outside_file", "section file range outside the file"},
	[LDR_E_SECT_OUTSIDE_SEG] = {"section_outside_segment", "section outside its segment"},
	[LDR_E_SECT_OVERLAP] = {"sections_overlap", "sections overlap"},
	[LDR_E_NAME] = {"bad_name", "name not terminated inside its command"},
	[LDR_E_NO_TEXT] = {"no_text_section", "no __TEXT,__text section"},
	[LDR_E_THREAD] = {"bad_thread", "malformed or duplicate thread command"},
	[LDR_E_WINDOW] = {"unknown_window", "I/O name for an address with no __FVMLIB window"},
	[LDR_E_TD_RANGE] = {"td_outside_text", "task descriptor outside __text"},
	[LDR_E_TD_SIZE] = {"bad_td_size", "task descriptor size impossible"},
	[LDR_E_STREAM_OVERRUN] = {"stream_overrun",
	 "register-write stream runs past its task descriptor"},
	[LDR_E_UNKNOWN_REG] = {"unknown_register", "write to a register outside the register map"},
	[LDR_E_BAR_RANGE] = {"bar_out_of_range", "enabled BAR index names no base address"},
	[LDR_E_RELOC_RANGE] = {"reloc_outside_section", "relocation outside its section"},
	[LDR_E_RELOC_TARGET] = {"bad_reloc_target", "relocation names no section or symbol"},
	[LDR_E_CHAIN_LOOP] = {"chain_loop", "task descriptor chain loops"},
	[LDR_E_CHAIN_BREAK] = {"chain_break", "task descriptor chain ends without end-of-network"},
	[LDR_E_TD_COUNT] = {"td_count_mismatch",
	 "thread command's TD count differs from the chain"},
	[LDR_E_LIMIT] = {"over_limit", "a count over the documented limits"},
	[LDR_E_COEFF_RANGE] = {"coeff_outside_weights",
	 "enabled coefficient buffer outside the weights"},
	[LDR_E_FW_REGISTER] = {"firmware_register",
	 "a task descriptor writes a register only the firmware programs"},
	[LDR_E_ANEC] = {"bad_anec",
	 "anec container header invalid (anefw-tool inspect names the field)"},
	[LDR_E_WINDOW_PROT] = {"bad_window_prot",
	 "an I/O window's initprot is not 1 (input), 2 (output) or 3 (intermediate)"},
	[LDR_E_WINDOW_NAME] = {"bad_window_name",
	 "two I/O windows share a name, or a window is named barN but is not on BAR N"},
	[LDR_E_WEIGHTS_SECTS] = {"several_weights_sections",
	 "more than one weights section (__TEXT,__const or __KERN_n, any case)"},
	[LDR_E_TD_SIZE_STATED] = {"td_size_mismatch",
	 "the td_size stated (an anec header's, a submit's) is not the first task descriptor's size"},
	[LDR_E_ANEC_TILES] = {"anec_outside_tiles",
	 "a task descriptor reaches past its BAR's buffer in the anec tile table"},
};

const char *const ldr_bar_names[8] = {"RBase0", "RBase1", "WBase", "TBase",
				      "KBase0", "KBase1", "KBase2", "KBase3"};

const struct err_desc *ldr_err(enum ldr_err e)
{
	static const struct err_desc unknown = {"unknown_error", "unknown error"};
	return err_lookup(errs, LDR_E__COUNT, (unsigned)e, &unknown);
}

const struct err_desc *ldr_err_of(const struct ldr_program *p, enum ldr_err e)
{
	/* a raw stream (an anec's too) has no __text: its TDs lie in the stream */
	static const struct err_desc raw_td_range = {"td_outside_text",
						     "task descriptor outside the raw task stream"};
	if (p && p->raw && e == LDR_E_TD_RANGE)
		return &raw_td_range;
	return ldr_err(e);
}

const char *ldr_err_name(enum ldr_err e)
{
	return ldr_err(e)->name;
}

/* off + n <= len, without overflow */
static int in_range(uint64_t off, uint64_t n, uint64_t len)
{
	return off <= len && n <= len - off;
}

static int ranges_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	/* both ranges already known not to wrap */
	return an && bn && a < b + bn && b < a + an;
}

static void copy_name(char dst[17], const uint8_t *src)
{
	memcpy(dst, src, 16);
	dst[16] = 0;
}

/* ---- container ---- */

struct fvm_name {
	uint64_t addr;
	const char *name;
	size_t len;
};

struct pstate {
	struct ldr_program *p;
	struct fvm_name names[LDR_MAX_WINDOWS];
	unsigned nnames;
};

static enum ldr_err parse_segment(struct ldr_program *p, const uint8_t *c, uint32_t cmdsize)
{
	if (cmdsize < SEG_CMD_BYTES)
		return LDR_E_CMD_SIZE;
	uint32_t nsects = le_rd32(c + SEG_NSECTS_OFF);
	if ((uint64_t)nsects * SECT_BYTES > cmdsize - SEG_CMD_BYTES)
		return LDR_E_CMD_SIZE;
	if (p->nsegs >= LDR_MAX_SEGS || nsects > LDR_MAX_SECTS - p->nsects)
		return LDR_E_LIMIT;
	struct ldr_segment *s = &p->segs[p->nsegs];
	copy_name(s->name, c + SEG_NAME_OFF);
	s->vmaddr = le_rd64(c + SEG_VMADDR_OFF);
	s->vmsize = le_rd64(c + SEG_VMSIZE_OFF);
	s->fileoff = le_rd64(c + SEG_FILEOFF_OFF);
	s->filesize = le_rd64(c + SEG_FILESIZE_OFF);
	s->maxprot = le_rd32(c + SEG_MAXPROT_OFF);
	s->initprot = le_rd32(c + SEG_INITPROT_OFF);
	s->nsects = nsects;
	s->flags = le_rd32(c + SEG_FLAGS_OFF);
	s->first_sect = p->nsects;
	if (!in_range(s->fileoff, s->filesize, p->len))
		return LDR_E_SEG_RANGE;
	if (s->vmaddr + s->vmsize < s->vmaddr)
		return LDR_E_SEG_RANGE;
	for (uint32_t i = 0; i < nsects; i++) {
		const uint8_t *sc = c + SEG_CMD_BYTES + (size_t)i * SECT_BYTES;
		struct ldr_section *x = &p->sects[p->nsects];
		copy_name(x->sectname, sc + SECT_NAME_OFF);
		copy_name(x->segname, sc + SECT_SEGNAME_OFF);
		x->addr = le_rd64(sc + SECT_ADDR_OFF);
		x->size = le_rd64(sc + SECT_SIZE_OFF);
		x->offset = le_rd32(sc + SECT_OFFSET_OFF);
		x->align = le_rd32(sc + SECT_ALIGN_OFF);
		x->reloff = le_rd32(sc + SECT_RELOFF_OFF);
		x->nreloc = le_rd32(sc + SECT_NRELOC_OFF);
		x->flags = le_rd32(sc + SECT_FLAGS_OFF);
		x->seg = p->nsegs;
		x->in_file = s->filesize != 0 && (x->flags & SECT_TYPE_MASK) != SECT_TYPE_ZEROFILL && x->size != 0;
		if (x->size) {
			if (x->addr < s->vmaddr || !in_range(x->addr - s->vmaddr, x->size, s->vmsize))
				return LDR_E_SECT_OUTSIDE_SEG;
		}
		if (x->in_file) {
			if (!in_range(x->offset, x->size, p->len))
				return LDR_E_SECT_RANGE;
			if (x->offset < s->fileoff ||
			    !in_range(x->offset - s->fileoff, x->size, s->filesize))
				return LDR_E_SECT_OUTSIDE_SEG;
		}
		p->nsects++;
	}
	p->nsegs++;
	return LDR_OK;
}

static enum ldr_err parse_fvmlib(struct pstate *st, const uint8_t *c, uint32_t cmdsize)
{
	if (cmdsize < FVMLIB_NAME_OFF)
		return LDR_E_CMD_SIZE;
	uint32_t noff = le_rd32(c + FVMLIB_NAMEOFF_OFF);
	if (noff < FVMLIB_NAME_OFF || noff >= cmdsize)
		return LDR_E_NAME;
	const uint8_t *nm = c + noff;
	const uint8_t *nul = memchr(nm, 0, cmdsize - noff);
	if (!nul)
		return LDR_E_NAME;
	if (st->nnames >= LDR_MAX_WINDOWS)
		return LDR_E_LIMIT;
	st->names[st->nnames].addr = le_rd32(c + FVMLIB_ADDR_OFF);
	st->names[st->nnames].name = (const char *)nm;
	st->names[st->nnames].len = (size_t)(nul - nm);
	st->nnames++;
	return LDR_OK;
}

static enum ldr_err parse_thread(struct ldr_program *p, const uint8_t *c, uint32_t cmdsize)
{
	if (cmdsize < THREAD_STATE_OFF)
		return LDR_E_THREAD;
	uint32_t flavor = le_rd32(c + THREAD_FLAVOR_OFF), count = le_rd32(c + THREAD_COUNT_OFF);
	/* one flavor/state pair; what follows the state (network names) is skipped by size */
	if ((uint64_t)count * 4 > cmdsize - THREAD_STATE_OFF)
		return LDR_E_THREAD;
	const uint8_t *st = c + THREAD_STATE_OFF;
	if (flavor != THREAD_MAIN_FLAVOR) {
		p->nthreads_io++;
		return LDR_OK;
	}
	if (p->have_thread || (uint64_t)count * 4 < THREAD_MAIN_MIN)
		return LDR_E_THREAD;
	p->have_thread = 1;
	for (unsigned i = 0; i < LDR_NBARS; i++)
		p->bars[i] = le_rd64(st + THREAD_BARS_OFF + 8 * i);
	p->td_addr = le_rd64(st + THREAD_TD_ADDR_OFF);
	p->td_first_words = le_rd32(st + THREAD_TD_WORDS_OFF);
	p->td_count = le_rd32(st + THREAD_TD_COUNT_OFF);
	if (p->td_count > LDR_MAX_TDS)
		return LDR_E_LIMIT;
	return LDR_OK;
}

static enum ldr_err parse_symtab(struct ldr_program *p, const uint8_t *c, uint32_t cmdsize)
{
	if (cmdsize < SYMTAB_CMD_BYTES)
		return LDR_E_CMD_SIZE;
	uint32_t symoff = le_rd32(c + SYMTAB_SYMOFF_OFF), nsyms = le_rd32(c + SYMTAB_NSYMS_OFF);
	uint32_t stroff = le_rd32(c + SYMTAB_STROFF_OFF), strsize = le_rd32(c + SYMTAB_STRSIZE_OFF);
	if (!in_range(symoff, (uint64_t)nsyms * NLIST_BYTES, p->len) || !in_range(stroff, strsize, p->len))
		return LDR_E_CMD_RANGE;
	p->nsyms = nsyms;
	return LDR_OK;
}

static int name_is(const char *a, const char *b)
{
	return strncmp(a, b, 17) == 0;
}

static enum ldr_err parse_header(struct ldr_program *p)
{
	const uint8_t *b = p->buf;
	if (p->len < HWX_HEADER_BYTES)
		return LDR_E_TRUNCATED;
	if (le_rd32(b + HWX_H_MAGIC) != HWX_MAGIC)
		return LDR_E_BAD_MAGIC;
	p->cputype = le_rd32(b + HWX_H_CPUTYPE);
	p->cpusubtype = le_rd32(b + HWX_H_CPUSUBTYPE);
	p->filetype = le_rd32(b + HWX_H_FILETYPE);
	p->ncmds = le_rd32(b + HWX_H_NCMDS);
	p->sizeofcmds = le_rd32(b + HWX_H_SIZEOFCMDS);
	p->hflags = le_rd32(b + HWX_H_FLAGS);
	if (p->cputype != HWX_CPUTYPE)
		return LDR_E_BAD_CPUTYPE;
	p->gen = rm_gen_by_subtype(p->cpusubtype);
	if (!p->gen)
		return LDR_E_BAD_VERSION;
	if (p->ncmds > LDR_MAX_CMDS)
		return LDR_E_LIMIT;
	if (!in_range(HWX_HEADER_BYTES, p->sizeofcmds, p->len))
		return LDR_E_CMD_RANGE;
	return LDR_OK;
}

static void parse_ident(struct ldr_program *p, const uint8_t *c, uint32_t cmdsize)
{
	if (p->note)
		return;
	const uint8_t *t = c + IDENT_TEXT_OFF;
	const uint8_t *nul = memchr(t, 0, cmdsize - IDENT_TEXT_OFF);
	p->note = (const char *)t;
	p->note_len = nul ? (size_t)(nul - t) : cmdsize - IDENT_TEXT_OFF;
}

/* One load command, by its type; the types the loader does not read are skipped by size. */
static enum ldr_err parse_command(struct pstate *st, const uint8_t *c, uint32_t cmd,
				  uint32_t cmdsize)
{
	switch (cmd) {
	case LC_SEGMENT_64:
		return parse_segment(st->p, c, cmdsize);
	case LC_IDFVMLIB:
	case LC_LOADFVMLIB:
		return parse_fvmlib(st, c, cmdsize);
	case LC_THREAD:
	case LC_UNIXTHREAD:
		return parse_thread(st->p, c, cmdsize);
	case LC_IDENT:
		parse_ident(st->p, c, cmdsize);
		return LDR_OK;
	case LC_SYMTAB:
		return parse_symtab(st->p, c, cmdsize);
	default:
		return LDR_OK;
	}
}

/* The load commands, each inside the commands' area; err_off names the one refused. */
static enum ldr_err parse_commands(struct pstate *st)
{
	struct ldr_program *p = st->p;
	uint64_t off = HWX_HEADER_BYTES, end = HWX_HEADER_BYTES + (uint64_t)p->sizeofcmds;
	for (uint32_t i = 0; i < p->ncmds; i++) {
		p->err_off = (size_t)off;
		if (!in_range(off, LC_HEAD_BYTES, end))
			return LDR_E_CMD_RANGE;
		const uint8_t *c = p->buf + off;
		uint32_t cmd = le_rd32(c + LC_CMD_OFF), cmdsize = le_rd32(c + LC_CMDSIZE_OFF);
		if (cmdsize < LC_HEAD_BYTES || (cmdsize & 3) || !in_range(off, cmdsize, end))
			return LDR_E_CMD_SIZE;
		enum ldr_err e = parse_command(st, c, cmd, cmdsize);
		if (e != LDR_OK)
			return e;
		off += cmdsize;
	}
	p->err_off = 0;
	return LDR_OK;
}

/* No two sections overlap, in memory or in the file. */
static enum ldr_err check_section_overlaps(const struct ldr_program *p)
{
	for (unsigned i = 0; i < p->nsects; i++)
		for (unsigned j = i + 1; j < p->nsects; j++) {
			const struct ldr_section *x = &p->sects[i], *y = &p->sects[j];
			if (ranges_overlap(x->addr, x->size, y->addr, y->size))
				return LDR_E_SECT_OVERLAP;
			if (x->in_file && y->in_file &&
			    ranges_overlap(x->offset, x->size, y->offset, y->size))
				return LDR_E_SECT_OVERLAP;
		}
	return LDR_OK;
}

/* Whether a section name starts with "__kern" in any case: __KERN_0 (the guide) and __kern_0
 * (the newer compiler's, docs/formats.md) */
static int kern_name(const char *s)
{
	static const char k[] = "__kern";
	for (unsigned i = 0; i < sizeof k - 1; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != k[i])
			return 0;
	}
	return 1;
}

/* __text (the TD area) and the weights (__TEXT,__const or a __KERN_n / __kern_n section): one
 * weights section at most, as only one is bound to the weights BAR (several_weights_sections) */
static enum ldr_err find_text_and_weights(struct ldr_program *p)
{
	for (unsigned i = 0; i < p->nsects; i++) {
		const struct ldr_section *x = &p->sects[i];
		if (p->text_sect < 0 && name_is(x->segname, "__TEXT") && name_is(x->sectname, "__text"))
			p->text_sect = (int)i;
		else if (x->in_file &&
			 ((name_is(x->segname, "__TEXT") && name_is(x->sectname, "__const")) ||
			  kern_name(x->sectname))) {
			if (p->weights_sect >= 0)
				return LDR_E_WEIGHTS_SECTS;
			p->weights_sect = (int)i;
		}
	}
	if (p->text_sect < 0 || !p->sects[p->text_sect].in_file)
		return LDR_E_NO_TEXT;
	const struct ldr_section *text = &p->sects[p->text_sect];
	p->td_area_off = text->offset;
	p->td_area_len = (uint32_t)text->size; /* in_range against len (size_t) above */
	if (text->size > 0xffffffffu)
		return LDR_E_SECT_RANGE;
	if (p->weights_sect >= 0) {
		p->weights_off = p->sects[p->weights_sect].offset;
		p->weights_len = (uint32_t)p->sects[p->weights_sect].size;
	}
	return LDR_OK;
}

/* The BAR a name "barN" addresses (decimal, no leading zeros, as fw/tensors tns_find reads it),
 * or -1 when the name is not of that form. */
static int bar_name_index(const char *s, size_t n)
{
	if (n < 4 || n > 5 || memcmp(s, "bar", 3) || (n == 5 && s[3] == '0'))
		return -1;
	int bar = 0;
	for (size_t i = 3; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		bar = bar * 10 + (s[i] - '0');
	}
	return bar;
}

/* Names address tensors (fw/tensors tns_find): no two windows share one, and a window named
 * "barN" is on BAR N, where "barN" always addresses BAR N's tensor. */
static enum ldr_err check_window_names(const struct ldr_program *p)
{
	for (unsigned i = 0; i < p->nwindows; i++) {
		const struct ldr_window *w = &p->windows[i];
		if (!w->name_len)
			continue;
		int nb = bar_name_index(w->name, w->name_len);
		if (nb >= 0 && nb != w->bar)
			return LDR_E_WINDOW_NAME;
		for (unsigned j = i + 1; j < p->nwindows; j++)
			if (p->windows[j].name_len == w->name_len &&
			    !memcmp(p->windows[j].name, w->name, w->name_len))
				return LDR_E_WINDOW_NAME;
	}
	return LDR_OK;
}

/* The I/O windows: __FVMLIB segments without file bytes, their BAR slots, and the names the
 * fvmlib commands give their addresses. */
static enum ldr_err collect_windows(struct pstate *st)
{
	struct ldr_program *p = st->p;
	for (unsigned i = 0; i < p->nsegs; i++) {
		const struct ldr_segment *s = &p->segs[i];
		if (!name_is(s->name, "__FVMLIB") || s->filesize != 0)
			continue;
		if (p->nwindows >= LDR_MAX_WINDOWS)
			return LDR_E_LIMIT;
		if (s->initprot != LDR_WIN_INPUT && s->initprot != LDR_WIN_OUTPUT &&
		    s->initprot != LDR_WIN_INTERMEDIATE)
			return LDR_E_WINDOW_PROT; /* not one of the three directions: no tensor's */
		struct ldr_window *w = &p->windows[p->nwindows++];
		w->name = "";
		w->name_len = 0;
		w->vmaddr = s->vmaddr;
		w->vmsize = s->vmsize;
		w->size = s->nsects ? p->sects[s->first_sect].size : s->vmsize;
		w->initprot = s->initprot;
		w->seg = i;
		w->bar = -1;
		if (p->have_thread)
			for (unsigned k = 0; k < LDR_NBARS; k++)
				if (p->bars[k] == s->vmaddr) {
					w->bar = (int)k;
					break;
				}
	}
	for (unsigned n = 0; n < st->nnames; n++) {
		unsigned k;
		for (k = 0; k < p->nwindows; k++)
			if (p->windows[k].vmaddr == st->names[n].addr)
				break;
		if (k == p->nwindows)
			return LDR_E_WINDOW;
		p->windows[k].name = st->names[n].name;
		p->windows[k].name_len = st->names[n].len;
	}
	return check_window_names(p);
}

/* Section i's relocations: inside the file and the section, naming a section or a symbol. */
static enum ldr_err parse_relocs(struct ldr_program *p, unsigned i)
{
	const struct ldr_section *x = &p->sects[i];
	if (x->nreloc > LDR_MAX_RELOCS - p->nrelocs)
		return LDR_E_LIMIT;
	if (!in_range(x->reloff, (uint64_t)x->nreloc * RELOC_BYTES, p->len))
		return LDR_E_RELOC_RANGE;
	for (uint32_t r = 0; r < x->nreloc; r++) {
		const uint8_t *rb = p->buf + x->reloff + (size_t)r * RELOC_BYTES;
		uint32_t addr = le_rd32(rb + RELOC_ADDR_OFF), info = le_rd32(rb + RELOC_INFO_OFF);
		struct ldr_reloc *rl = &p->relocs[p->nrelocs];
		rl->sect = i;
		rl->address = addr;
		rl->symbolnum = RELOC_GET(info, RELOC_SYMBOLNUM);
		rl->pcrel = RELOC_GET(info, RELOC_PCREL);
		rl->length = RELOC_GET(info, RELOC_LENGTH);
		rl->external = RELOC_GET(info, RELOC_EXTERN);
		rl->type = (uint8_t)RELOC_GET(info, RELOC_TYPE);
		rl->target_sect = -1;
		rl->td = -1;
		if ((addr & RELOC_SCATTERED) || !in_range(addr, 1u << rl->length, x->size))
			return LDR_E_RELOC_RANGE;
		if (rl->external) {
			if (rl->symbolnum >= p->nsyms)
				return LDR_E_RELOC_TARGET;
		} else {
			if (rl->symbolnum == 0 || rl->symbolnum > p->nsects)
				return LDR_E_RELOC_TARGET;
			rl->target_sect = (int)rl->symbolnum - 1;
		}
		p->nrelocs++;
	}
	return LDR_OK;
}

/* The container, validated whole: header, load commands, sections, windows, relocations. */
static enum ldr_err parse_container(struct pstate *st)
{
	struct ldr_program *p = st->p;
	enum ldr_err e = parse_header(p);
	if (e == LDR_OK)
		e = parse_commands(st);
	if (e == LDR_OK)
		e = check_section_overlaps(p);
	if (e == LDR_OK)
		e = find_text_and_weights(p);
	if (e == LDR_OK)
		e = collect_windows(st);
	for (unsigned i = 0; i < p->nsects && e == LDR_OK; i++)
		if (p->sects[i].nreloc)
			e = parse_relocs(p, i);
	return e;
}

/* ---- task descriptors ---- */

static void decode_header(struct ldr_td *t, const uint8_t *h)
{
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		t->hdr[i] = le_rd32(h + 4 * i);
	td_hdr_decode(t->hdr, &t->h);
}

uint32_t ldr_td_ext_bytes(const struct ldr_program *p, unsigned td)
{
	return td < p->ntds && p->gen && p->gen->gen == 13 && td_hdr_extended(p->tds[td].hdr)
		       ? TD_HDR_EXT_WORDS * 4u
		       : 0u;
}

void ldr_writes_begin(const struct ldr_program *p, unsigned td, struct ldr_write_iter *it)
{
	memset(it, 0, sizeof *it);
	it->p = p;
	it->td = td;
	if (td >= p->ntds)
		return;
	it->pos = p->tds[td].off + p->gen->td_header_bytes + ldr_td_ext_bytes(p, td);
	it->end = p->tds[td].off + p->tds[td].size;
}

/* Raw stream step used by both validation and iteration. Returns 1 with a write, 0 at the end,
 * -1 when the stream overruns its TD. */
static int stream_step(const uint8_t *area, struct ldr_write_iter *it, uint32_t *addr,
		       uint32_t *value, uint32_t *voff)
{
	while (!it->left) {
		if (it->pos >= it->end)
			return 0;
		uint32_t h = le_rd32(area + it->pos);
		it->pos += 4;
		if (h == 0)
			continue; /* padding word */
		uint32_t start;
		unsigned cnt;
		td_cmd_decode(h, &start, &cnt);
		if ((uint64_t)cnt * 4 > it->end - it->pos)
			return -1;
		it->addr = start;
		it->left = cnt;
	}
	*addr = it->addr;
	*voff = it->pos;
	*value = le_rd32(area + it->pos);
	it->pos += 4;
	it->addr += 4;
	it->left--;
	return 1;
}

int ldr_writes_next(struct ldr_write_iter *it, struct ldr_write *w)
{
	const struct ldr_program *p = it->p;
	if (!p || it->td >= p->ntds)
		return 0;
	const uint8_t *area = p->buf + p->td_area_off;
	if (stream_step(area, it, &w->addr, &w->value, &w->area_off) != 1)
		return 0;
	int found = rm_lookup(p->gen, w->addr, &w->loc) == 0;
	ASSERT(found); /* ldr_load refused every write the register map does not resolve */
	return 1;
}

static uint32_t img_get(const struct rm_gen *g, const uint32_t *img, uint32_t addr)
{
	int slot = rm_slot(g, addr, NULL);
	return slot >= 0 && slot < RM_MAX_SLOTS ? img[slot] : 0;
}

static void td_coeffs(const struct rm_gen *g, const uint32_t *img, struct ldr_td *t)
{
	const struct rm_coeff_layout *c = &g->coeff;
	uint32_t mask = ~((1u << c->unit_shift) - 1);
	t->ncoeff = 0;
	for (unsigned ch = 0; ch < c->nch && ch < 16; ch++) {
		uint32_t cfg = img_get(g, img, c->cfg + 4 * ch);
		if (!(cfg & 1))
			continue;
		struct ldr_coeff *k = &t->coeff[t->ncoeff++];
		k->ch = (uint8_t)ch;
		k->cfg = cfg;
		k->base = img_get(g, img, c->base + 4 * ch) & mask;
		k->size = img_get(g, img, c->size + 4 * ch) & mask;
	}
	t->lut = 0;
	if (g->nl_addr) {
		uint32_t v = img_get(g, img, g->nl_addr) >> g->nl_lsb;
		t->lut = (v & ((1u << g->nl_width) - 1)) == g->nl_lut;
	}
}

static enum ldr_err walk(struct ldr_program *p, uint32_t first_off, uint32_t first_size)
{
	const struct rm_gen *g = p->gen;
	const uint8_t *area = p->buf + p->td_area_off;
	uint32_t img[RM_MAX_SLOTS];
	memset(img, 0, sizeof img);
	uint32_t off = first_off, size = first_size;
	for (;;) {
		if (p->ntds >= LDR_MAX_TDS)
			return LDR_E_LIMIT;
		p->err_off = (size_t)p->td_area_off + off;
		if ((size & 3) || size < g->td_header_bytes || size > LDR_MAX_TD_BYTES)
			return LDR_E_TD_SIZE;
		if (off & 3)
			return LDR_E_TD_RANGE;
		if (!in_range(off, size, p->td_area_len)) {
			/* past the end of the TD area (a cut file): which TD, its size (messages) */
			p->err_td = (int)p->ntds;
			p->err_found = size;
			return LDR_E_TD_RANGE;
		}
		for (unsigned i = 0; i < p->ntds; i++) {
			if (p->tds[i].off == off)
				return LDR_E_CHAIN_LOOP;
			if (ranges_overlap(off, size, p->tds[i].off, p->tds[i].size))
				return LDR_E_TD_RANGE;
		}
		struct ldr_td *t = &p->tds[p->ntds];
		memset(t, 0, sizeof *t);
		t->off = off;
		t->size = size;
		decode_header(t, area + off);
		if (g->gen == 13 && td_hdr_extended(t->hdr) && size < g->td_header_bytes + TD_HDR_EXT_WORDS * 4u)
			return LDR_E_TD_SIZE; /* no room for the extended header's word */
		if (p->have_thread)
			for (unsigned i = 0; i < 8; i++)
				if ((t->h.bar_en >> i & 1) && p->bars[t->h.bar_idx[i]] == 0)
					return LDR_E_BAR_RANGE;
		p->ntds++;
		struct ldr_write_iter it;
		ldr_writes_begin(p, p->ntds - 1, &it);
		uint32_t a, v, vo;
		int r;
		while ((r = stream_step(area, &it, &a, &v, &vo)) == 1) {
			const struct rm_block *blk;
			int slot = rm_slot(g, a, &blk);
			if (slot < 0 || slot >= RM_MAX_SLOTS) {
				p->err_off = (size_t)p->td_area_off + vo;
				return LDR_E_UNKNOWN_REG;
			}
			if (blk->fw_only) {
				p->err_off = (size_t)p->td_area_off + vo;
				return LDR_E_FW_REGISTER;
			}
			img[slot] = v;
			t->nwrites++;
		}
		if (r < 0) {
			p->err_off = (size_t)p->td_area_off + it.pos - 4;
			return LDR_E_STREAM_OVERRUN;
		}
		td_coeffs(g, img, t);
		if (t->h.eon)
			break;
		if (t->h.next_ptr == 0) {
			p->err_td = (int)p->ntds - 1; /* which TD, for the message */
			return LDR_E_CHAIN_BREAK; /* a null next pointer without end-of-network */
		}
		off = t->h.next_ptr;
		size = (t->h.next_size + 1) * 4;
	}
	p->err_off = 0;
	return LDR_OK;
}

int ldr_weights_bar(const struct ldr_program *p, unsigned bar)
{
	if (bar >= LDR_NBARS)
		return 0;
	if (p->raw)
		return bar == LDR_RAW_WEIGHTS_BAR;
	return p->weights_len && p->weights_sect >= 0 &&
	       p->bars[bar] == p->sects[p->weights_sect].addr;
}

int ldr_td_kernels_in_weights(const struct ldr_program *p, unsigned td)
{
	const struct ldr_td *t = &p->tds[td];
	return ((t->h.bar_en >> H13_BAR_KBASE0) & 1u) &&
	       ldr_weights_bar(p, t->h.bar_idx[H13_BAR_KBASE0]);
}

unsigned ldr_td_kunit_streams(const struct ldr_program *p, unsigned td)
{
	struct ku_unit u;
	if (!ldr_td_kernels_in_weights(p, td) || p->weights_len < KU_HEADER_SIZE ||
	    le_rd32(p->buf + p->weights_off) != KU_MAGIC ||
	    ku_parse(p->buf + p->weights_off, p->weights_len, NULL, &u) != KU_OK)
		return 0;
	unsigned m = TD_OP_KU;
	for (unsigned s = 0; s < KU_NSTREAMS && s < H13_KSTREAM_N; s++)
		if (u.sec[ku_stream_section[s]].size)
			m |= 1u << s;
	return m;
}

int ldr_runtime_kernel_read(const struct ldr_program *p, const struct td_range *x)
{
	return p->raw && (x->kind == TD_R_COEFF || x->kind == TD_R_STREAM) && !ldr_weights_bar(p, x->bar);
}

static enum ldr_err finish(struct ldr_program *p)
{
	/* coefficient buffers the kernel DMA reads from the weights (or from no BAR, which the TD
	 * checks refuse later) must lie in them; those of a runtime kernel BAR lie in its grant,
	 * which the control path checks */
	for (unsigned i = 0; i < p->ntds; i++)
		for (unsigned k = 0; k < p->tds[i].ncoeff; k++) {
			if (((p->tds[i].h.bar_en >> H13_BAR_KBASE0) & 1u) && !ldr_td_kernels_in_weights(p, i))
				break;
			const struct ldr_coeff *c = &p->tds[i].coeff[k];
			if (!in_range(c->base, c->size, p->weights_len)) {
				p->err_td = (int)i;
				p->err_ch = (int)k;
				return LDR_E_COEFF_RANGE;
			}
		}
	/* relocations inside __text: which TD and which register they patch */
	for (unsigned r = 0; r < p->nrelocs; r++) {
		struct ldr_reloc *rl = &p->relocs[r];
		if ((int)rl->sect != p->text_sect)
			continue;
		for (unsigned i = 0; i < p->ntds; i++) {
			if (rl->address < p->tds[i].off || rl->address - p->tds[i].off >= p->tds[i].size)
				continue;
			rl->td = (int)i;
			struct ldr_write_iter it;
			struct ldr_write w;
			ldr_writes_begin(p, i, &it);
			while (ldr_writes_next(&it, &w))
				if (w.area_off == rl->address) {
					rl->reg_addr = w.addr;
					rl->has_reg = 1;
				}
		}
	}
	return LDR_OK;
}

/* An anec's TDs inside the buffers its tile table declares: every tile range (and a runtime
 * kernel read) on a BAR but the weights' ends within tiles[bar] 16 KiB units, the buffer the
 * Asahi stack allocates for that BAR; its grant is then no larger (fw/ctrl grants a raw stream's
 * BAR its TDs' extent). A TD whose ranges do not decode is left to the control path. */
static enum ldr_err anec_tiles_hold(struct ldr_program *p)
{
	struct ldr_image im;
	memset(&im, 0, sizeof im);
	im.p = p;
	for (unsigned i = 0; i < p->ntds; i++) {
		struct td_range r[TD_MAX_RANGES];
		unsigned nr = 0;
		ldr_image_apply_td(&im, i);
		const struct td_regs regs = {ldr_image_reg, &im};
		if (td_ranges(&p->tds[i].h, &regs, NULL, r, TD_MAX_RANGES, &nr, NULL, NULL) != TD_OK)
			continue;
		for (unsigned k = 0; k < nr; k++) {
			const struct td_range *x = &r[k];
			int tile = x->kind == TD_R_SRC0 || x->kind == TD_R_SRC1 || x->kind == TD_R_DST;
			/* a runtime kernel read's base, as the file holds it, is its offset in its KBase
			 * BAR (docs/control-path.md): td_ranges marks it absolute, the engine address the
			 * control path re-bases; here, as written, it is the offset the tiles bound */
			int kern = !tile && ldr_runtime_kernel_read(p, x);
			if ((!tile && !kern) || x->whole || (x->absolute && !kern) ||
			    x->bar >= LDR_NBARS || ldr_weights_bar(p, x->bar))
				continue;
			uint64_t cap = (uint64_t)p->anec_tiles[x->bar] << ANEC_TILE_SHIFT;
			if (x->addr > cap || x->len > cap - x->addr) {
				p->err_off = (size_t)p->tds[i].off;
				p->err_stated = cap;
				p->err_found = x->addr + x->len; /* td_ranges: no wrap */
				p->err_bar = x->bar;
				p->err_td = (int)i;
				return LDR_E_ANEC_TILES;
			}
		}
	}
	return LDR_OK;
}

enum ldr_err ldr_check_td_size(struct ldr_program *p, uint32_t td_size)
{
	if (!p || !p->ntds)
		return LDR_E_ARG;
	if (p->tds[0].size == td_size)
		return LDR_OK;
	p->err_stated = td_size;
	p->err_found = p->tds[0].size;
	return LDR_E_TD_SIZE_STATED;
}

static enum ldr_err load_anec(const uint8_t *buf, size_t len, struct ldr_program *out)
{
	struct anec a;
	if (anec_parse(buf, len, &a) != ANEC_OK)
		return LDR_E_ANEC;
	/* TD 0 sized as the engine fetches it: the header's td_size */
	enum ldr_err e = ldr_load_sized(buf + a.hdr_bytes, (size_t)a.size, a.td_size, out);
	if (e != LDR_OK)
		return e;
	if (out->ntds != a.td_count)
		return LDR_E_TD_COUNT;
	/* the TDs end at tsk_size: the weights are where the header says */
	if (out->weights_off != ((a.tsk_size + ANEC_GRAN - 1) & ~(uint64_t)(ANEC_GRAN - 1)))
		return LDR_E_ANEC;
	out->anec_hdr = a.hdr_bytes;
	out->anec_dst_count = a.dst_count;
	out->anec_src_count = a.src_count;
	for (unsigned i = 0; i < LDR_NBARS && i < ANEC_TILES; i++)
		out->anec_tiles[i] = a.tiles[i];
	return anec_tiles_hold(out);
}

/* Whether a word after a raw stream's first header, up to len, is not padding (0) */
static int raw_writes_after_header(const uint8_t *buf, size_t len, uint32_t hdr)
{
	for (size_t o = hdr; o + 4 <= len; o += 4)
		if (le_rd32(buf + o))
			return 1;
	return 0;
}

/* ldr_load, a raw stream's first TD sized td_size when it is not 0 (ldr_load_sized) */
static enum ldr_err load(const uint8_t *buf, size_t len, unsigned flags, uint32_t td_size,
			 struct ldr_program *out)
{
	if (!out || (!buf && len) || (flags & ~(LDR_F_RAW | LDR_F_HWX)) ||
	    (flags & LDR_F_RAW && flags & LDR_F_HWX))
		return LDR_E_ARG;
	/* all but the TD table (512 entries, about 200 KB: clearing it was most of a small program's
	 * load); each TD's entry is cleared as the chain reaches it, and nothing reads past ntds */
	_Static_assert(offsetof(struct ldr_program, relocs) ==
			       offsetof(struct ldr_program, tds) + sizeof out->tds,
		       "the TD table is the one part of ldr_program left uncleared");
	memset(out, 0, offsetof(struct ldr_program, tds));
	memset((uint8_t *)out + offsetof(struct ldr_program, relocs), 0,
	       sizeof *out - offsetof(struct ldr_program, relocs));
	struct ldr_program *p = out;
	p->buf = buf;
	p->len = len;
	p->text_sect = -1;
	p->weights_sect = -1;
	int hwx;
	if (flags & LDR_F_RAW)
		hwx = 0;
	else if (flags & LDR_F_HWX)
		hwx = 1;
	else {
		uint32_t m = len >= 4 ? le_rd32(buf) : 0;
		/* the magic, or another Mach-O magic (which is a bad container, not a raw stream) */
		hwx = m == HWX_MAGIC || m == MACHO_MAGIC_32 || m == MACHO_MAGIC_64 ||
		      m == MACHO_CIGAM_32 || m == MACHO_CIGAM_64 || m == HWX_CIGAM;
	}
	if (hwx) {
		struct pstate st_storage; /* about 400 bytes: the window names seen so far */
		struct pstate *st = &st_storage;
		memset(st, 0, sizeof *st);
		st->p = p;
		enum ldr_err e = parse_container(st);
		if (e != LDR_OK)
			return e;
		if (!p->gen->blocks)
			return LDR_E_UNSUPPORTED;
		uint32_t first_off = 0, first_size = p->gen->td_default_bytes;
		if (p->have_thread) {
			const struct ldr_section *text = &p->sects[p->text_sect];
			if (p->td_addr < text->addr || p->td_addr - text->addr >= text->size)
				return LDR_E_TD_RANGE;
			first_off = (uint32_t)(p->td_addr - text->addr);
			if (p->td_first_words >= LDR_MAX_TD_BYTES / 4)
				return LDR_E_TD_SIZE;
			first_size = (p->td_first_words + 1) * 4;
		}
		e = walk(p, first_off, first_size);
		if (e != LDR_OK)
			return e;
		if (p->have_thread && p->td_count != p->ntds)
			return LDR_E_TD_COUNT;
		return finish(p);
	}
	/* an anec container (fw/loader/anec.h): its data is a raw task stream */
	if (!(flags & LDR_F_RAW) && anec_detect(buf, len))
		return load_anec(buf, len, out);
	/* raw task stream: H13 TDs from offset 0, weights from the 16-byte boundary after them */
	p->raw = 1;
	p->gen = rm_gen_by_number(13);
	if (len > 0xffffffffu)
		return LDR_E_LIMIT;
	p->td_area_off = 0;
	p->td_area_len = (uint32_t)len;
	if (len < p->gen->td_header_bytes)
		return LDR_E_TRUNCATED;
	/* a raw stream has no thread command to size its first TD: the full TD (0x274 bytes, eiln's
	 * streams), or up to the second when TD 0's next pointer puts it closer (Apple's compact
	 * TDs: a 504-byte first TD with the next at 0x200), or, the only TD of a stream shorter than
	 * a full one, the stream's whole words (Apple's 504-byte TD alone in 512 bytes) */
	uint32_t first_size = p->gen->td_default_bytes, hw[H13_TD_HEADER_WORDS];
	struct td_hdr h0;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		hw[i] = le_rd32(buf + 4 * i); /* len >= td_header_bytes: checked above */
	td_hdr_decode(hw, &h0);
	if (!h0.eon && h0.next_ptr >= p->gen->td_header_bytes && h0.next_ptr < first_size)
		first_size = h0.next_ptr;
	else if (h0.eon && len < first_size) {
		first_size = (uint32_t)len & ~3u; /* >= td_header_bytes, a multiple of 4: checked above */
		/* but not when nothing after the header is a write (the header alone, or padding
		 * words): the stream is cut where its only TD's writes begin, and no TD that writes no
		 * register runs (tanh.bin cut to 40 bytes loaded, and every run refused it as
		 * zero-dimension); refused as a TD the file cuts, against the full TD's size */
		if (!td_size && !raw_writes_after_header(buf, first_size, p->gen->td_header_bytes)) {
			p->err_td = 0;
			p->err_found = p->gen->td_default_bytes;
			return LDR_E_TD_RANGE;
		}
	}
	/* the size stated where the stream comes with one (an anec's td_size, a submit's): the bytes
	 * the engine fetches, when the TD's own structure allows it (a whole header, whole words, not
	 * past the next TD or the stream); else refused as stated against the rule's size */
	if (td_size && td_size != first_size) {
		if (td_size < p->gen->td_header_bytes || td_size % 4u || td_size > len ||
		    (!h0.eon && td_size > h0.next_ptr)) {
			p->err_stated = td_size;
			p->err_found = first_size;
			return LDR_E_TD_SIZE_STATED;
		}
		first_size = td_size;
	}
	enum ldr_err e = walk(p, 0, first_size);
	if (e != LDR_OK)
		return e;
	uint64_t end = 0;
	for (unsigned i = 0; i < p->ntds; i++)
		if (p->tds[i].off + (uint64_t)p->tds[i].size > end)
			end = p->tds[i].off + (uint64_t)p->tds[i].size;
	end = (end + 15) & ~(uint64_t)15;
	if (end > len)
		end = len;
	p->weights_off = (uint32_t)end;
	p->weights_len = (uint32_t)(len - end);
	return finish(p);
}

enum ldr_err ldr_load(const uint8_t *buf, size_t len, unsigned flags, struct ldr_program *out)
{
	return load(buf, len, flags, 0, out);
}

enum ldr_err ldr_load_sized(const uint8_t *buf, size_t len, uint32_t td_size, struct ldr_program *out)
{
	if (!td_size)
		return LDR_E_ARG;
	enum ldr_err e = load(buf, len, LDR_F_RAW, td_size, out);
	return e == LDR_OK ? ldr_check_td_size(out, td_size) : e;
}

/* Whether the first min(len, header) bytes of a raw stream read as an H13 TD header: every whole
 * word's bits outside the header's fields clear (word 0 above EON, word 1 above NextSize, the
 * four 24-bit masks, word 8 above ENE, word 9 above its four BAR slots), and a next pointer past
 * the header unless end-of-network is set. The fixtures' 24 TDs all read so; a text file never
 * does (its bytes set bits 29..30 of every word). For messages only (a cut stream, below). */
static int raw_header_plausible(const uint8_t *b, size_t len)
{
	const unsigned nw = len / 4 < H13_TD_HEADER_WORDS ? (unsigned)(len / 4) : H13_TD_HEADER_WORDS;
	uint32_t w[H13_TD_HEADER_WORDS];
	if (!b || !nw)
		return 0;
	for (unsigned i = 0; i < nw; i++)
		w[i] = le_rd32(b + 4 * i);
	if (w[0] >> (H13_TDH_EON_LSB + H13_TDH_EON_W))
		return 0;
	if (nw > 1 && w[1] >> (H13_TDH_NEXTSIZE_LSB + H13_TDH_NEXTSIZE_W))
		return 0;
	for (unsigned i = 2; i < 6 && i < nw; i++)
		if (w[i] >> H13_TDH_MASK24_W)
			return 0;
	if (nw > 7 && !H13_GET(w[0], H13_TDH_EON) && (w[7] < H13_TD_HEADER_BYTES || (w[7] & 3u)))
		return 0;
	if (nw > 8 && w[8] >> (H13_TDH_ENE_LSB + H13_TDH_ENE_W))
		return 0;
	if (nw > 9 && w[9] >> (4u * H13_TDH_BAR_STRIDE))
		return 0;
	return 1;
}

/* A raw stream (not an anec) that the file's end cuts: 1 inside TD 0's header (truncated, the
 * words there read as a header), 2 inside a TD's register writes or before a TD ends (the file
 * ends where the TD does not), 0 otherwise. */
static int raw_cut(const struct ldr_program *p, enum ldr_err e)
{
	if (!p || !p->raw || !p->buf || p->td_area_off || p->td_area_len != p->len ||
	    anec_detect(p->buf, p->len) || !raw_header_plausible(p->buf, p->len))
		return 0;
	if (e == LDR_E_TRUNCATED)
		return p->len >= 4 ? 1 : 0;
	if (e == LDR_E_TD_RANGE && p->err_found)
		return 2;
	if (e == LDR_E_STREAM_OVERRUN && p->ntds && p->err_off + 4 <= p->len) {
		const struct ldr_td *t = &p->tds[p->ntds - 1];
		uint32_t addr;
		unsigned cnt;
		td_cmd_decode(le_rd32(p->buf + p->err_off), &addr, &cnt);
		/* the TD ends at the file's last whole word, and the record runs past it */
		return t->off + (uint64_t)t->size >= (p->len & ~(size_t)3) &&
		       p->err_off + 4 + 4ull * cnt > p->len ? 2 : 0;
	}
	return 0;
}

void ldr_err_values(const struct ldr_program *p, enum ldr_err e, char *out, size_t cap)
{
	if (!out || !cap)
		return;
	out[0] = 0;
	if (!p)
		return;
	const unsigned long len = (unsigned long)p->len;
	if (e == LDR_E_TD_SIZE_STATED)
		snprintf(out, cap, "td_size 0x%lx, first TD 0x%lx bytes",
			 (unsigned long)p->err_stated, (unsigned long)p->err_found);
	/* what the file holds against what was expected, for the errors a cut or a wrong file
	 * gives (a truncated program: its commands, a segment or the weights past its end) */
	else if (e == LDR_E_TRUNCATED && raw_cut(p, e)) {
		const uint32_t w0 = le_rd32(p->buf);
		snprintf(out, cap, "the file is 0x%lx bytes, a task descriptor's header 0x%x; its "
			 "first word reads as one: tid %lu, %s", len, (unsigned)H13_TD_HEADER_BYTES,
			 (unsigned long)H13_GET(w0, H13_TDH_TID),
			 H13_GET(w0, H13_TDH_EON) ? "end of network" : "not the last");
	} else if (e == LDR_E_TRUNCATED)
		snprintf(out, cap, "the file is 0x%lx bytes, %s 0x%x", len,
			 p->raw ? "a task descriptor's header" : "a .hwx header",
			 p->raw && p->gen ? p->gen->td_header_bytes : (unsigned)HWX_HEADER_BYTES);
	else if (e == LDR_E_STREAM_OVERRUN && p->buf && p->ntds && p->err_off + 4 <= p->len) {
		/* the record that runs past its TD: where, how many words, where its TD ends */
		const struct ldr_td *t = &p->tds[p->ntds - 1];
		uint32_t addr;
		unsigned cnt;
		td_cmd_decode(le_rd32(p->buf + p->err_off), &addr, &cnt);
		const unsigned long end = (unsigned long)(p->td_area_off + t->off + (uint64_t)t->size);
		if (raw_cut(p, e))
			snprintf(out, cap, "td %u's record at 0x%lx writes %u registers, to 0x%lx; "
				 "the file ends at 0x%lx (a whole TD is 0x%x bytes)", p->ntds - 1,
				 (unsigned long)p->err_off, cnt,
				 (unsigned long)(p->err_off + 4 + 4ull * cnt), len,
				 (unsigned)H13_TD_DEFAULT_BYTES);
		else
			snprintf(out, cap, "td %u's record at 0x%lx writes %u registers, to 0x%lx; "
				 "the TD ends at 0x%lx", p->ntds - 1, (unsigned long)p->err_off, cnt,
				 (unsigned long)(p->err_off + 4 + 4ull * cnt), end);
	} else if (e == LDR_E_TD_RANGE && p->err_found && p->err_td >= 0) {
		/* a TD past the end of the TD area: the stream's file, or __text */
		if (p->raw && !p->td_area_off && p->td_area_len == p->len && !p->err_td && p->gen &&
		    !raw_writes_after_header(p->buf, p->len, p->gen->td_header_bytes))
			snprintf(out, cap, "td 0 at 0x0 + 0x%lx bytes, the file is 0x%lx bytes: the "
				 "task descriptor's 0x%x-byte header%s, no register written",
				 (unsigned long)p->err_found, len, (unsigned)p->gen->td_header_bytes,
				 len >= p->gen->td_header_bytes + 4u ? " and padding" : " alone");
		else if (p->raw && !p->td_area_off && p->td_area_len == p->len)
			snprintf(out, cap, "td %d at 0x%lx + 0x%lx bytes, the file is 0x%lx bytes",
				 p->err_td, (unsigned long)p->err_off, (unsigned long)p->err_found, len);
		else
			snprintf(out, cap, "td %d at 0x%lx + 0x%lx bytes, the task descriptors' area "
				 "0x%lx + 0x%lx bytes", p->err_td, (unsigned long)p->err_off,
				 (unsigned long)p->err_found, (unsigned long)p->td_area_off,
				 (unsigned long)p->td_area_len);
	} else if (e == LDR_E_CHAIN_BREAK && p->err_td >= 0 && (unsigned)p->err_td < p->ntds) {
		/* the TD the chain stops at; no writes is a buffer with no program in it (a short
		 * read of an anec left libane's command buffer zero: 'chain_break' alone before) */
		const struct ldr_td *t = &p->tds[p->err_td];
		snprintf(out, cap, "td %d at 0x%lx + 0x%lx bytes: end-of-network clear, next pointer "
			 "0, %u register writes%s", p->err_td,
			 (unsigned long)(p->td_area_off + (uint64_t)t->off),
			 (unsigned long)t->size, (unsigned)t->nwrites,
			 t->nwrites ? "" : " (an empty task descriptor: no program there)");
	} else if (e == LDR_E_BAD_MAGIC && p->buf && p->len >= 4)
		snprintf(out, cap, "magic 0x%08lx, a .hwx has 0x%08lx",
			 (unsigned long)le_rd32(p->buf + HWX_H_MAGIC), (unsigned long)HWX_MAGIC);
	else if (e == LDR_E_CMD_RANGE && HWX_HEADER_BYTES + (uint64_t)p->sizeofcmds > p->len)
		snprintf(out, cap, "the load commands end at 0x%lx (sizeofcmds 0x%lx), the file is "
			 "0x%lx bytes", (unsigned long)(HWX_HEADER_BYTES + (uint64_t)p->sizeofcmds),
			 (unsigned long)p->sizeofcmds, len);
	else if (e == LDR_E_CMD_RANGE)
		snprintf(out, cap, "%lu commands (ncmds) run past their 0x%lx bytes (sizeofcmds)",
			 (unsigned long)p->ncmds, (unsigned long)p->sizeofcmds);
	else if (e == LDR_E_SEG_RANGE && p->buf && p->err_off &&
		 in_range(p->err_off, SEG_FILESIZE_OFF + 8, p->len) &&
		 !in_range(le_rd64(p->buf + p->err_off + SEG_FILEOFF_OFF),
			   le_rd64(p->buf + p->err_off + SEG_FILESIZE_OFF), p->len)) {
		char name[17];
		copy_name(name, p->buf + p->err_off + SEG_NAME_OFF);
		snprintf(out, cap, "segment %s: file 0x%lx + 0x%lx bytes, the file is 0x%lx bytes",
			 name, (unsigned long)le_rd64(p->buf + p->err_off + SEG_FILEOFF_OFF),
			 (unsigned long)le_rd64(p->buf + p->err_off + SEG_FILESIZE_OFF), len);
	} else if (e == LDR_E_COEFF_RANGE && p->err_td >= 0 && (unsigned)p->err_td < p->ntds &&
		   p->err_ch >= 0 && (unsigned)p->err_ch < p->tds[p->err_td].ncoeff) {
		const struct ldr_coeff *c = &p->tds[p->err_td].coeff[p->err_ch];
		snprintf(out, cap, "td %d coefficient channel %u: 0x%lx + 0x%lx bytes, the weights "
			 "0x%lx bytes", p->err_td, (unsigned)c->ch, (unsigned long)c->base,
			 (unsigned long)c->size, (unsigned long)p->weights_len);
	}
	/* read as a raw stream (--raw) but a .hwx container: say so, whatever the error */
	if (!out[0] && p->raw && p->buf && p->len >= 4 && le_rd32(p->buf) == HWX_MAGIC)
		snprintf(out, cap, "the file starts with the .hwx magic 0x%08lx: a container, read "
			 "as a raw task stream (without --raw it is read as a .hwx)",
			 (unsigned long)HWX_MAGIC);
	else if (e == LDR_E_ANEC_TILES)
		snprintf(out, cap, "BAR %d: tiles 0x%lx bytes, TD %d reaches 0x%lx", p->err_bar,
			 (unsigned long)p->err_stated, p->err_td,
			 (unsigned long)p->err_found);
}

/* TD i's writes, as the file holds them, on top of img. */
static void apply_td(const struct ldr_program *p, unsigned i, struct ldr_regimage *img)
{
	struct ldr_write_iter it;
	struct ldr_write w;
	ldr_writes_begin(p, i, &it);
	while (ldr_writes_next(&it, &w))
		if (w.loc.block && w.loc.slot < RM_MAX_SLOTS) {
			img->val[w.loc.slot] = w.value;
			img->written[w.loc.slot] = 1;
		}
}

enum ldr_err ldr_td_image(const struct ldr_program *p, unsigned td, struct ldr_regimage *img)
{
	if (!p || !img || td >= p->ntds)
		return LDR_E_ARG;
	memset(img, 0, sizeof *img);
	for (unsigned i = 0; i <= td; i++)
		apply_td(p, i, img);
	return LDR_OK;
}

void ldr_image_apply_td(struct ldr_image *im, unsigned td)
{
	if (im && im->p && td < im->p->ntds)
		apply_td(im->p, td, &im->img);
}

uint32_t ldr_image_reg(const void *ctx, uint32_t addr)
{
	const struct ldr_image *im = ctx;
	return ldr_image_get(im->p, &im->img, addr);
}

uint32_t ldr_image_get(const struct ldr_program *p, const struct ldr_regimage *img, uint32_t addr)
{
	return img_get(p->gen, img->val, addr);
}

const char *ldr_not_a_program(const uint8_t *buf, size_t len, unsigned flags,
			      const struct ldr_program *p, enum ldr_err e)
{
	if (e == LDR_OK || !p || !p->raw || (flags & (LDR_F_RAW | LDR_F_HWX)) || (!buf && len))
		return NULL;
	if (!len) /* "its first task descriptor does not decode" before: there is none */
		return "an empty file (0 bytes), not an ANE program";
	/* a task descriptor the file's end cuts (the lengths in ldr_err_values) */
	int cut = raw_cut(p, e);
	if (cut == 1)
		return "a raw task stream cut short: the file ends inside its first task descriptor's "
		       "header, whose words read as one";
	if (cut == 2)
		return "a raw task stream cut short: the file ends inside a task descriptor (its "
		       "header decodes)";
	if (p->ntds > 1)
		return NULL;
	if (anec_detect(buf, len)) /* an anec container, refused for what its header states */
		return NULL;
	if (e == LDR_E_COEFF_RANGE) /* its task descriptors decoded: the weights are short */
		return NULL;
	/* its TD decoded, writes and all, and only its end-of-network bit is missing (the chain
	 * needs one): a program whose chain is broken (tanh.bin with EON cleared was "not an ANE
	 * program": its header's next pointer 0 reads as no header); ldr_err_values says it */
	if (e == LDR_E_CHAIN_BREAK && p->ntds && p->tds[0].nwrites)
		return NULL;
	static const uint8_t npy[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'}, elf[4] = {0x7f, 'E', 'L', 'F'};
	if (len >= sizeof npy && !memcmp(buf, npy, sizeof npy))
		return "this is a NumPy .npy file, not an ANE program (give it as a tensor: "
		       "in:NAME=PATH, --in NAME=FILE)";
	if (len >= sizeof elf && !memcmp(buf, elf, sizeof elf))
		return "this is an ELF file, not an ANE program";
	size_t n = len < 256 ? len : 256, text = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned c = buf[i];
		if (c < 0x80) {
			text += (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t';
			continue;
		}
		/* UTF-8 (an em dash in a README): a lead byte and its continuation bytes are text;
		 * a sequence the 256-byte window cuts counts too */
		size_t k = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 :
			   c >= 0xf0 && c <= 0xf4 ? 3 : 0, j = 1;
		while (j <= k && i + j < n && (buf[i + j] & 0xc0) == 0x80)
			j++;
		if (!k || (j <= k && (i + j < n || n == len)))
			continue; /* not UTF-8: not text */
		text += j;
		i += j - 1;
	}
	if (n && text == n)
		return "this is a text file, not an ANE program (a .hwx starts with the magic "
		       "0xbeefface; a raw task stream with a task descriptor)";
	return "not an ANE program: no .hwx magic (0xbeefface), and its first task descriptor "
	       "does not decode as a raw task stream's";
}
