/* The .hwx container writer (see hwx_write.h). */
#include "fw/loader/hwx_write.h"
#include "fw/common/le.h"
#include "fw/loader/hwx_format.h"
#include "fw/loader/loader.h"

#include <string.h>

static const struct err_desc errs[HWXW_E__COUNT] = {
	[HWXW_OK] = {"ok", "no error"},
	[HWXW_E_ARG] = {"hwx-bad-argument", "NULL pointer, empty TD area, unknown direction"},
	[HWXW_E_BAR] = {"hwx-bad-bar-slot", "a BAR slot over 31, or one slot for two buffers"},
	[HWXW_E_NAME] = {"hwx-bad-window-name", "a window name empty or longer than HWXW_MAX_NAME"},
	[HWXW_E_LIMIT] = {"hwx-over-limit",
	 "more than HWXW_MAX_WINDOWS windows or TDs over the loader's limit"},
	[HWXW_E_SIZE] = {"hwx-size-overflow", "a size that overflows the container's fields"},
	[HWXW_E_NO_ROOM] = {"hwx-no-room", "the container does not fit the output buffer"},
};

const struct err_desc *hwxw_err(enum hwxw_err e)
{
	static const struct err_desc unknown = {"hwx-unknown-error",
						  "a value this module does not define"};
	return err_lookup(errs, HWXW_E__COUNT, (unsigned)e, &unknown);
}

const char *hwxw_err_name(enum hwxw_err e)
{
	return hwxw_err(e)->name;
}

#define TEXT_CMD_BYTES (SEG_CMD_BYTES + 2 * SECT_BYTES)
#define WIN_SEG_BYTES (SEG_CMD_BYTES + SECT_BYTES)
#define THREAD_CMD_BYTES (THREAD_STATE_OFF + THREAD_MAIN_WORDS * 4 + 4) /* + the network name "net" */
#define WEIGHTS_ALIGN 64u
/* Windows' vmsize limit: keeps every address and size in 32-bit BAR-friendly range. */
#define MAX_BUF 0x40000000u

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static uint32_t fvm_cmd_bytes(const char *name)
{
	return (uint32_t)round_up(FVMLIB_NAME_OFF + strlen(name) + 1, 8);
}

static uint32_t ident_cmd_bytes(const char *note)
{
	return (uint32_t)round_up(IDENT_TEXT_OFF + strlen(note) + 1, 8);
}

/* Everything the writer needs, derived once and checked. */
struct layout {
	uint32_t ncmds, sizeofcmds;
	uint64_t weights_rel;       /* weights offset from the start of __TEXT */
	uint64_t text_filesize, text_vmsize;
	uint64_t win_addr[HWXW_MAX_WINDOWS], win_vmsize[HWXW_MAX_WINDOWS];
	uint64_t total;
};

static enum hwxw_err plan(const struct hwxw_spec *s, struct layout *L)
{
	if (!s || !s->text || !s->text_len || (!s->weights && s->weights_len) || (!s->win && s->nwin))
		return HWXW_E_ARG;
	if (s->nwin > HWXW_MAX_WINDOWS || !s->ntds || s->ntds > LDR_MAX_TDS)
		return HWXW_E_LIMIT;
	if (s->first_td_bytes < 4 || (s->first_td_bytes & 3) || s->first_td_bytes > s->text_len)
		return HWXW_E_ARG;
	if (s->text_len > MAX_BUF || s->weights_len > MAX_BUF)
		return HWXW_E_SIZE;
	uint32_t used = 0; /* BAR slots */
	unsigned slots[2 + HWXW_MAX_WINDOWS], nslots = 0;
	slots[nslots++] = s->text_bar;
	if (s->weights_len)
		slots[nslots++] = s->weights_bar;
	for (unsigned i = 0; i < s->nwin; i++) {
		const struct hwxw_window *w = &s->win[i];
		if (w->dir != LDR_WIN_INPUT && w->dir != LDR_WIN_OUTPUT &&
		    w->dir != LDR_WIN_INTERMEDIATE && w->dir != HWXW_BAR_ONLY)
			return HWXW_E_ARG;
		if (w->dir != HWXW_BAR_ONLY && (!w->name || !w->name[0] || strlen(w->name) > HWXW_MAX_NAME))
			return HWXW_E_NAME;
		if (!w->size || w->size > MAX_BUF)
			return HWXW_E_SIZE;
		slots[nslots++] = w->bar;
	}
	for (unsigned i = 0; i < nslots; i++) {
		if (slots[i] >= LDR_NBARS || (used >> slots[i]) & 1u)
			return HWXW_E_BAR;
		used |= 1u << slots[i];
	}
	if (s->note && strlen(s->note) > 256)
		return HWXW_E_ARG;

	uint64_t cmds = TEXT_CMD_BYTES + THREAD_CMD_BYTES;
	uint32_t ncmds = 2;
	for (unsigned i = 0; i < s->nwin; i++) {
		if (s->win[i].dir == HWXW_BAR_ONLY)
			continue;
		cmds += WIN_SEG_BYTES + fvm_cmd_bytes(s->win[i].name);
		ncmds += 2;
	}
	if (s->note) {
		cmds += ident_cmd_bytes(s->note);
		ncmds++;
	}
	if (HWX_HEADER_BYTES + cmds > HWX_PAGE)
		return HWXW_E_LIMIT;
	L->ncmds = ncmds;
	L->sizeofcmds = (uint32_t)cmds;
	L->weights_rel = round_up(s->text_len, WEIGHTS_ALIGN);
	L->text_filesize = s->weights_len ? L->weights_rel + s->weights_len : s->text_len;
	L->text_vmsize = round_up(L->text_filesize, HWX_PAGE);
	uint64_t addr = HWX_PAGE + L->text_vmsize;
	for (unsigned i = 0; i < s->nwin; i++) {
		L->win_addr[i] = addr;
		L->win_vmsize[i] = round_up(s->win[i].size, HWX_PAGE);
		addr += L->win_vmsize[i];
	}
	/* every address is below 2^32 + a little: text, weights and 16 windows of at most 1 GiB */
	L->total = HWX_PAGE + L->text_filesize;
	return HWXW_OK;
}

size_t hwxw_size(const struct hwxw_spec *s)
{
	struct layout L;
	return plan(s, &L) == HWXW_OK ? (size_t)L.total : 0;
}

static void wr_name16(uint8_t *b, const char *n)
{
	size_t l = strlen(n);
	memcpy(b, n, l < SEG_NAME_BYTES ? l : SEG_NAME_BYTES);
}

/* A segment command with nsects sections to follow; returns the bytes written. */
static uint32_t put_segment(uint8_t *c, const char *name, uint64_t vmaddr, uint64_t vmsize, uint64_t fileoff,
			    uint64_t filesize, uint32_t prot, uint32_t nsects)
{
	uint32_t size = SEG_CMD_BYTES + nsects * SECT_BYTES;
	le_wr32(c + LC_CMD_OFF, LC_SEGMENT_64);
	le_wr32(c + LC_CMDSIZE_OFF, size);
	wr_name16(c + SEG_NAME_OFF, name);
	le_wr64(c + SEG_VMADDR_OFF, vmaddr);
	le_wr64(c + SEG_VMSIZE_OFF, vmsize);
	le_wr64(c + SEG_FILEOFF_OFF, fileoff);
	le_wr64(c + SEG_FILESIZE_OFF, filesize);
	le_wr32(c + SEG_MAXPROT_OFF, prot);
	le_wr32(c + SEG_INITPROT_OFF, prot);
	le_wr32(c + SEG_NSECTS_OFF, nsects);
	return SEG_CMD_BYTES;
}

static uint32_t put_section(uint8_t *x, const char *sect, const char *seg, uint64_t addr, uint64_t size,
			    uint32_t offset, uint32_t align_log2)
{
	wr_name16(x + SECT_NAME_OFF, sect);
	wr_name16(x + SECT_SEGNAME_OFF, seg);
	le_wr64(x + SECT_ADDR_OFF, addr);
	le_wr64(x + SECT_SIZE_OFF, size);
	le_wr32(x + SECT_OFFSET_OFF, offset);
	le_wr32(x + SECT_ALIGN_OFF, align_log2);
	return SECT_BYTES;
}

enum hwxw_err hwxw_write(const struct hwxw_spec *s, uint8_t *out, size_t cap, size_t *len)
{
	struct layout L;
	if (!out || !len)
		return HWXW_E_ARG;
	enum hwxw_err e = plan(s, &L);
	if (e != HWXW_OK)
		return e;
	if (L.total > cap)
		return HWXW_E_NO_ROOM;
	/* the data first, weights before text: either may be moving up from the start of out */
	if (s->weights_len)
		memmove(out + HWX_PAGE + L.weights_rel, s->weights, s->weights_len);
	memmove(out + HWX_PAGE, s->text, s->text_len);
	memset(out, 0, HWX_PAGE);
	if (s->weights_len)
		memset(out + HWX_PAGE + s->text_len, 0, (size_t)(L.weights_rel - s->text_len));
	le_wr32(out + HWX_H_MAGIC, HWX_MAGIC);
	le_wr32(out + HWX_H_CPUTYPE, HWX_CPUTYPE);
	le_wr32(out + HWX_H_CPUSUBTYPE, s->cpusubtype);
	le_wr32(out + HWX_H_FILETYPE, HWX_FILETYPE);
	le_wr32(out + HWX_H_NCMDS, L.ncmds);
	le_wr32(out + HWX_H_SIZEOFCMDS, L.sizeofcmds);
	le_wr32(out + HWX_H_FLAGS, HWX_FLAGS);
	uint8_t *c = out + HWX_HEADER_BYTES;

	/* __TEXT: __text (the TDs), __const (the weights) */
	const uint64_t text_addr = HWX_PAGE, weights_addr = HWX_PAGE + L.weights_rel;
	c += put_segment(c, "__TEXT", text_addr, L.text_vmsize, HWX_PAGE, L.text_filesize, 5, 2);
	c += put_section(c, "__text", "__TEXT", text_addr, s->text_len, HWX_PAGE, 6);
	c += put_section(c, "__const", "__TEXT", weights_addr, s->weights_len,
			 s->weights_len ? (uint32_t)(HWX_PAGE + L.weights_rel) : 0, 6);

	/* the windows and their names */
	for (unsigned i = 0; i < s->nwin; i++) {
		const struct hwxw_window *w = &s->win[i];
		int in = w->dir == LDR_WIN_INPUT;
		if (w->dir == HWXW_BAR_ONLY)
			continue;
		c += put_segment(c, "__FVMLIB", L.win_addr[i], L.win_vmsize[i], 0, 0, w->dir, 1);
		c += put_section(c, in ? "__const" : "__data", "__FVMLIB", L.win_addr[i], w->size, 0, 6);
	}
	for (unsigned i = 0; i < s->nwin; i++) {
		if (s->win[i].dir == HWXW_BAR_ONLY)
			continue;
		uint32_t size = fvm_cmd_bytes(s->win[i].name);
		le_wr32(c + LC_CMD_OFF, LC_IDFVMLIB);
		le_wr32(c + LC_CMDSIZE_OFF, size);
		le_wr32(c + FVMLIB_NAMEOFF_OFF, FVMLIB_NAME_OFF);
		le_wr32(c + FVMLIB_MINOR_OFF, 1);
		le_wr32(c + FVMLIB_ADDR_OFF, (uint32_t)L.win_addr[i]);
		memcpy(c + FVMLIB_NAME_OFF, s->win[i].name, strlen(s->win[i].name));
		c += size;
	}

	/* the thread command: BAR table, first TD, TD count, then the network name */
	le_wr32(c + LC_CMD_OFF, LC_THREAD);
	le_wr32(c + LC_CMDSIZE_OFF, THREAD_CMD_BYTES);
	le_wr32(c + THREAD_FLAVOR_OFF, THREAD_MAIN_FLAVOR);
	le_wr32(c + THREAD_COUNT_OFF, THREAD_MAIN_WORDS);
	uint8_t *st = c + THREAD_STATE_OFF;
	le_wr64(st + THREAD_BARS_OFF + 8 * s->text_bar, text_addr);
	if (s->weights_len)
		le_wr64(st + THREAD_BARS_OFF + 8 * s->weights_bar, weights_addr);
	for (unsigned i = 0; i < s->nwin; i++)
		le_wr64(st + THREAD_BARS_OFF + 8 * s->win[i].bar, L.win_addr[i]);
	le_wr64(st + THREAD_TD_ADDR_OFF, text_addr);
	le_wr32(st + THREAD_TD_WORDS_OFF, s->first_td_bytes / 4 - 1);
	le_wr32(st + THREAD_TD_COUNT_OFF, s->ntds);
	memcpy(st + THREAD_MAIN_WORDS * 4, "net", 3);
	c += THREAD_CMD_BYTES;

	if (s->note) {
		uint32_t size = ident_cmd_bytes(s->note);
		le_wr32(c + LC_CMD_OFF, LC_IDENT);
		le_wr32(c + LC_CMDSIZE_OFF, size);
		memcpy(c + IDENT_TEXT_OFF, s->note, strlen(s->note));
		c += size;
	}

	*len = (size_t)L.total;
	return HWXW_OK;
}
