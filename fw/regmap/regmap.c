/* Register-map lookups; the tables themselves are in regmap_tables.inc. */
#include "fw/regmap/regmap.h"

#include "fw/regmap/regmap_tables.inc"

#include <stdio.h>

#define NGENS (sizeof gens / sizeof gens[0])

const struct rm_gen *rm_gen_by_subtype(uint32_t cpusubtype)
{
	for (unsigned i = 0; i < NGENS; i++)
		if (gens[i].cpusubtype == cpusubtype)
			return &gens[i];
	return NULL;
}

const struct rm_gen *rm_gen_by_number(unsigned gen)
{
	for (unsigned i = 0; i < NGENS; i++)
		if (gens[i].gen == gen)
			return &gens[i];
	return NULL;
}

int rm_slot(const struct rm_gen *g, uint32_t addr, const struct rm_block **block)
{
	if (!g || !g->blocks || (addr & 3))
		return -1;
	unsigned slot = 0;
	for (unsigned b = 0; b < g->nblocks; b++) {
		const struct rm_block *blk = &g->blocks[b];
		if (addr >= blk->base && (addr - blk->base) / 4 < blk->nwords) {
			if (block)
				*block = blk;
			return (int)(slot + (addr - blk->base) / 4);
		}
		slot += blk->nwords;
	}
	return -1;
}

int rm_lookup(const struct rm_gen *g, uint32_t addr, struct rm_loc *loc)
{
	const struct rm_block *blk;
	int slot = rm_slot(g, addr, &blk);
	if (slot < 0)
		return -1;
	uint32_t off = addr - blk->base;
	loc->block = blk;
	loc->reg = NULL;
	loc->index = 0;
	loc->slot = (unsigned)slot;
	loc->block_off = off;
	for (unsigned r = 0; r < blk->nregs; r++) {
		const struct rm_reg *reg = &blk->regs[r];
		if (off >= reg->offset && (off - reg->offset) / 4 < reg->count) {
			loc->reg = reg;
			loc->index = (off - reg->offset) / 4;
			break;
		}
	}
	return 0;
}

int rm_slot_addr(const struct rm_gen *g, unsigned slot, uint32_t *addr)
{
	if (!g || !g->blocks)
		return -1;
	for (unsigned b = 0; b < g->nblocks; b++) {
		if (slot < g->blocks[b].nwords) {
			*addr = g->blocks[b].base + slot * 4;
			return 0;
		}
		slot -= g->blocks[b].nwords;
	}
	return -1;
}

uint32_t rm_field_mask(const struct rm_field *f)
{
	return (f->width >= 32 ? ~0u : (1u << f->width) - 1u) << f->lsb;
}

uint32_t rm_field_get(const struct rm_field *f, uint32_t value)
{
	if (f->width >= 32)
		return value >> f->lsb;
	return (value >> f->lsb) & ((1u << f->width) - 1);
}

void rm_loc_name(const struct rm_loc *loc, char *buf, size_t len)
{
	if (!loc->reg)
		snprintf(buf, len, "%s.Rsvd_0x%03lx", loc->block->name, (unsigned long)loc->block_off);
	else if (loc->reg->count > 1)
		snprintf(buf, len, "%s.%s[%u]", loc->block->name, loc->reg->name, loc->index);
	else
		snprintf(buf, len, "%s.%s", loc->block->name, loc->reg->name);
}
