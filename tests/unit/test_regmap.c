/* Register maps as data: lookups, fields and coverage of the H13 task-descriptor blocks. */
#include "fw/regmap/regmap.h"
#include "tests/harness/harness.h"

#include <string.h>

TEST(regmap, generations_by_subtype)
{
	static const unsigned sub[] = {4, 5, 6, 7, 9, 10}, gen[] = {13, 14, 15, 16, 17, 18};
	for (unsigned i = 0; i < 6; i++) {
		const struct rm_gen *g = rm_gen_by_subtype(sub[i]);
		CHECK(g != NULL);
		if (g)
			CHECK_EQ(g->gen, gen[i]);
	}
	CHECK(rm_gen_by_subtype(8) == NULL);
	CHECK(rm_gen_by_subtype(0) == NULL);
	CHECK(rm_gen_by_number(13) == rm_gen_by_subtype(4));
}

TEST(regmap, h13_lookups)
{
	const struct rm_gen *g = rm_gen_by_number(13);
	REQUIRE(g && g->blocks);
	/* the seven blocks of an H13 TD hold 62+16+28+18+4+5+7 words */
	CHECK_EQ(g->nslots, 140);
	struct rm_loc l;
	REQUIRE(rm_lookup(g, 0x1f848 + 4 * 3, &l) == 0);
	CHECK_STR(l.block->name, "KernelDMASrc");
	CHECK(l.reg && !strcmp(l.reg->name, "CoeffBaseAddr"));
	CHECK_EQ(l.index, 3);
	REQUIRE(rm_lookup(g, 0xc804, &l) == 0);
	CHECK_STR(l.block->name, "NE");
	CHECK(l.reg && !strcmp(l.reg->name, "MACCfg"));
	REQUIRE(rm_lookup(g, 0x8800, &l) == 0);
	CHECK_STR(l.block->name, "Planar");
	REQUIRE(rm_lookup(g, 0x17818, &l) == 0);
	CHECK(l.reg && !strcmp(l.reg->name, "Fmt"));
	/* a block word the references leave unnamed is known but has no register */
	REQUIRE(rm_lookup(g, 0x1f800, &l) == 0);
	CHECK(l.reg == NULL);
	/* outside every block, misaligned, or past a block's last word */
	CHECK(rm_lookup(g, 0x8810, &l) != 0);
	CHECK(rm_lookup(g, 0xc814, &l) != 0);
	CHECK(rm_lookup(g, 0x2, &l) != 0);
	CHECK(rm_lookup(g, 0x3ffffff, &l) != 0);
	CHECK(rm_lookup(rm_gen_by_number(14), 0x0, &l) != 0);
	/* slots are dense and invert */
	for (unsigned s = 0; s < g->nslots; s++) {
		uint32_t a;
		REQUIRE(rm_slot_addr(g, s, &a) == 0);
		REQUIRE(rm_lookup(g, a, &l) == 0);
		CHECK_EQ(l.slot, s);
	}
	uint32_t a;
	CHECK(rm_slot_addr(g, g->nslots, &a) != 0);
}

TEST(regmap, fields_fit_their_register)
{
	const struct rm_gen *g = rm_gen_by_number(13);
	REQUIRE(g);
	for (unsigned b = 0; b < g->nblocks; b++)
		for (unsigned r = 0; r < g->blocks[b].nregs; r++) {
			const struct rm_reg *reg = &g->blocks[b].regs[r];
			CHECK(reg->offset / 4 + reg->count <= g->blocks[b].nwords);
			uint32_t used = 0;
			for (unsigned f = 0; f < reg->nfields; f++) {
				const struct rm_field *fl = &reg->fields[f];
				CHECK(fl->width >= 1 && fl->lsb + fl->width <= 32);
				uint32_t m = (fl->width >= 32 ? 0xffffffffu : ((1u << fl->width) - 1)) << fl->lsb;
				CHECK((used & m) == 0); /* fields do not overlap */
				used |= m;
			}
		}
	struct rm_field f = {"x", 6, 26};
	CHECK_EQ(rm_field_get(&f, 0xffffffc0), 0x3ffffff);
	struct rm_field w = {"w", 0, 32};
	CHECK_EQ(rm_field_get(&w, 0x89abcdef), 0x89abcdef);
}
