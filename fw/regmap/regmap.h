/*
 * Register maps as data: generation -> blocks -> registers -> fields.
 * A block is a contiguous run of 32-bit register words starting at its base byte address; every
 * word in that run belongs to the block (words the references do not name are reported as
 * reserved). A write anywhere else is a write to an unknown register.
 * Adding a generation means adding tables (see regmap_tables.inc), not code.
 */
#ifndef ANEFW_REGMAP_H
#define ANEFW_REGMAP_H

#include <stddef.h>
#include <stdint.h>

struct rm_field {
	const char *name;
	uint8_t lsb;
	uint8_t width; /* 1..32 */
};

struct rm_reg {
	const char *name;
	uint32_t offset;   /* byte offset of element 0 inside the block */
	uint8_t count;     /* array length (elements 4 bytes apart); 1 for a plain register */
	const struct rm_field *fields;
	uint8_t nfields;
};

struct rm_block {
	const char *name;
	uint32_t base;     /* byte address of the block's first word */
	uint16_t nwords;   /* words in the block */
	const struct rm_reg *regs;
	uint16_t nregs;
	uint8_t fw_only;   /* 1: only the firmware programs these registers; a TD may not write them */
};

/* Where a generation keeps its kernel-DMA coefficient channels (byte addresses). */
struct rm_coeff_layout {
	uint32_t cfg;      /* first CoeffDMAConfig register (enable in bit 0) */
	uint32_t base;     /* first CoeffBaseAddr register */
	uint32_t size;     /* first CoeffBfrSize register */
	uint8_t nch;       /* channels */
	uint8_t unit_shift; /* base and size fields count 2^unit_shift-byte units from bit unit_shift */
};

struct rm_gen {
	unsigned gen;        /* 13 for H13 ... */
	const char *name;    /* "H13" */
	unsigned cpusubtype; /* Mach-O cpusubtype naming it */
	const struct rm_block *blocks; /* NULL when no map is known yet */
	unsigned nblocks;
	unsigned nslots;     /* total words over all blocks (size of a register image) */
	uint32_t td_header_bytes;  /* fixed header before the register-write stream */
	uint32_t td_default_bytes; /* TD size when nothing in the file gives it */
	struct rm_coeff_layout coeff;
	uint32_t nl_addr;    /* register holding the non-linear mode (0 when unknown) */
	uint8_t nl_lsb, nl_width, nl_lut; /* field position and the value selecting the LUT */
};

/* Every register image is at most this many words. */
#define RM_MAX_SLOTS 256

/* Generation for a Mach-O cpusubtype, or NULL when unknown. */
const struct rm_gen *rm_gen_by_subtype(uint32_t cpusubtype);
/* Generation by number (13 = H13), or NULL. */
const struct rm_gen *rm_gen_by_number(unsigned gen);

struct rm_loc {
	const struct rm_block *block;
	const struct rm_reg *reg; /* NULL for a word of the block the references do not name */
	unsigned index;           /* element of an array register */
	unsigned slot;            /* index of the word in a register image (0 .. nslots-1) */
	uint32_t block_off;       /* byte offset inside the block */
};

/* Finds a byte address; returns 0 and fills loc, or -1 when the address is not in the map. */
int rm_lookup(const struct rm_gen *g, uint32_t addr, struct rm_loc *loc);
/* The same address's image slot only (and its block when block is not NULL), without looking up
 * the register: the slot (0 .. nslots-1), or -1 when the address is not in the map. */
int rm_slot(const struct rm_gen *g, uint32_t addr, const struct rm_block **block);
/* Byte address of image slot `slot`; returns 0 or -1 when out of range. */
int rm_slot_addr(const struct rm_gen *g, unsigned slot, uint32_t *addr);
/* Extracts a field from a register value. */
uint32_t rm_field_get(const struct rm_field *f, uint32_t value);
/* A field's bits in place in the register word; the union over a register's fields is every bit
 * the map names. */
uint32_t rm_field_mask(const struct rm_field *f);
#define RM_NAME_MAX 64 /* every name fits */
/* A located register's name: "Block.Reg", "Block.Reg[i]" for an array element, or
 * "Block.Rsvd_0x..." for a block word the references do not name. */
void rm_loc_name(const struct rm_loc *loc, char *buf, size_t len);

#endif
