/*
 * Writes a .hwx container (docs/formats.md, section 1) around a TD area and its weights: the
 * layout of the compiler's files, which fw/loader reads back. Used by `anefw-tool mkprog`.
 * Pure logic: everything is checked before the first byte is written to out.
 *
 * File: header and load commands, then at HWX_PAGE the __TEXT segment (__text = the TD area,
 * __const = the weights at the next 64-byte boundary). Every I/O window is an __FVMLIB segment
 * with no file bytes and one section the size of its tensor, named by an LC_IDFVMLIB command.
 * The flavor-1 thread command's BAR table gives __text, the weights and each window the slot
 * the TDs select.
 */
#ifndef ANEFW_HWX_WRITE_H
#define ANEFW_HWX_WRITE_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#define HWXW_MAX_WINDOWS 16
#define HWXW_MAX_NAME 63

enum hwxw_err {
	HWXW_OK = 0,
	HWXW_E_ARG,       /* NULL pointer, empty TD area, unknown direction */
	HWXW_E_BAR,       /* a BAR slot over 31, or one slot for two buffers */
	HWXW_E_NAME,      /* a window name empty or longer than HWXW_MAX_NAME */
	HWXW_E_LIMIT,     /* more than HWXW_MAX_WINDOWS windows or TDs over the loader's limit */
	HWXW_E_SIZE,      /* a size that overflows the container's fields */
	HWXW_E_NO_ROOM,   /* the container does not fit the output buffer */
	HWXW_E__COUNT
};
/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *hwxw_err(enum hwxw_err e);
const char *hwxw_err_name(enum hwxw_err e);

/* A buffer the BAR table addresses but no window declares (no segment, no name): an
 * intermediate the firmware allocates, as in the newer compiler's files. */
#define HWXW_BAR_ONLY 0u

struct hwxw_window {
	const char *name; /* unused for HWXW_BAR_ONLY */
	unsigned bar;     /* BAR slot the TDs select for it */
	unsigned dir;     /* LDR_WIN_INPUT, LDR_WIN_OUTPUT, LDR_WIN_INTERMEDIATE or HWXW_BAR_ONLY */
	uint64_t size;    /* tensor bytes */
};

struct hwxw_spec {
	uint32_t cpusubtype;          /* generation, as the loader's register maps know it */
	const uint8_t *text;          /* the TD area: TDs chained from offset 0 */
	size_t text_len;
	uint32_t first_td_bytes, ntds;
	unsigned text_bar;            /* slot holding the __text address (0 in the fixtures) */
	const uint8_t *weights;       /* may be NULL when weights_len is 0 */
	size_t weights_len;
	unsigned weights_bar;
	const struct hwxw_window *win;
	unsigned nwin;
	const char *note;             /* LC_IDENT text, or NULL */
};

/* The container's size for spec s (0 on any error the writer would report). */
size_t hwxw_size(const struct hwxw_spec *s);

/* Writes the container into out (cap bytes); *len its size. The text and the weights are
 * separate buffers, or lie inside out as a raw stream does (text first, from out + 0, the
 * weights after it): they are moved to their places before the header is written. */
enum hwxw_err hwxw_write(const struct hwxw_spec *s, uint8_t *out, size_t cap, size_t *len);

#endif
