/*
 * anec containers (.anec/.ane): the program files of the Asahi ANE stack (eiln/ane's anecc
 * writes them, libane loads them). docs/formats.md "anec containers".
 *
 * A little-endian header, then the data: the TDs (tsk_size bytes, td_count of them, the first
 * td_size bytes), the weights from tsk_size rounded up to 16 bytes (krn_size), size bytes in
 * all. The data starts at 0x800 (as libane reads it) or 0x1000 (as newer anecc writes it); which
 * one a file uses is told by its length against size. The tile table gives every BAR's buffer
 * size in 16 KiB units: BAR 0 the commands, dst0 BAR 4, srcN BAR 4 + dst_count + N.
 *
 * anec_parse takes (buf, len), checks before reading and validates the whole header.
 */
#ifndef ANEFW_LOADER_ANEC_H
#define ANEFW_LOADER_ANEC_H

#include <stddef.h>
#include <stdint.h>

#include "fw/common/err.h"

#define ANEC_TILES 32
#define ANEC_HDR_LIBANE 0x800u  /* the data offset libane reads */
#define ANEC_HDR_ANECC 0x1000u  /* the data offset newer anecc writes */
#define ANEC_FIELDS_BYTES 0x6a8u /* the header's fields: 40 bytes, tiles[32], nchw[32][6] */
#define ANEC_TILE_SHIFT 14      /* tiles are 16 KiB units */
#define ANEC_CMD_BAR 0
#define ANEC_KRN_BAR 1
#define ANEC_DST_BAR 4          /* dst0; the sources follow the destinations */
#define ANEC_GRAN 16u           /* the weights start at tsk_size rounded up to this */
#define ANEC_MAX_SIZE 0x10000000ull /* 256 MiB of data: a documented limit */

enum anec_err {
	ANEC_OK = 0,
	ANEC_E_ARG,
	ANEC_E_TRUNCATED,  /* shorter than the header's fields */
	ANEC_E_LENGTH,     /* the file is neither 0x800 nor 0x1000 bytes of header plus size */
	ANEC_E_TDS,        /* td_count or td_size 0, td_size over tsk_size, tsk_size over size */
	ANEC_E_LAYOUT,     /* tsk_size rounded up to 16, plus krn_size, is not size */
	ANEC_E_COUNTS,     /* 4 + dst_count + src_count BARs do not fit the 32 */
	ANEC_E_TILES,      /* a tensor without tiles, or BAR 0's tiles smaller than size */
	ANEC_E_LIMIT,      /* size over ANEC_MAX_SIZE */
	ANEC_E__COUNT
};
const struct err_desc *anec_err(enum anec_err e); /* fw/common/err.h */
const char *anec_err_name(enum anec_err e);         /* "anec-length", ... */

struct anec {
	uint64_t size;
	uint32_t td_size, td_count;
	uint64_t tsk_size, krn_size;
	uint32_t src_count, dst_count;
	uint32_t tiles[ANEC_TILES];
	uint64_t nchw[ANEC_TILES][6]; /* N, C, H, W, plane stride, row stride */
	uint32_t hdr_bytes;           /* where the data starts: ANEC_HDR_LIBANE or ANEC_HDR_ANECC */
};

/* 1 when buf's length is a header (0x800 or 0x1000 bytes) plus the size its first word states:
 * the one way an anec is told from a raw task stream. */
int anec_detect(const uint8_t *buf, size_t len);
/* Parses and validates the header; the data is buf + a->hdr_bytes, a->size bytes. */
enum anec_err anec_parse(const uint8_t *buf, size_t len, struct anec *a);

/* The BAR of dst i / src i (-1 when out of range). */
int anec_dst_bar(const struct anec *a, unsigned i);
int anec_src_bar(const struct anec *a, unsigned i);
/* A BAR's name in the tile table: "cmd", "krn", "dst0", "src1", "itm3" (another tiled BAR), or
 * "" (no tiles). */
void anec_bar_name(const struct anec *a, unsigned bar, char *out, size_t cap);

/* Writes the header (ANEC_HDR_LIBANE bytes, zero-padded) into out; 0 when cap is too small. */
size_t anec_write_header(const struct anec *a, uint8_t *out, size_t cap);

#endif
