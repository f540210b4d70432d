/*
 * fw/td's codec: the TD header and the register-write stream's command words, checked against
 * the layout as docs/formats.md states it (written out here by hand, independently of fw/td),
 * and the writer's refusals. The loader reads back exactly what the writer wrote.
 */
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/td/td.h"
#include "tests/harness/harness.h"

#include <string.h>

TEST(td_codec, command_word_layout)
{
	/* word count - 1 in bits 26..31, the first register's byte address in bits 0..25 */
	CHECK_EQ(td_cmd_encode(0x1f800u, 62), (61u << 26) | 0x1f800u);
	CHECK_EQ(td_cmd_encode(0x0u, 16), 15u << 26);
	CHECK_EQ(td_cmd_encode(0x17800u, 7), (6u << 26) | 0x17800u);
	CHECK_EQ(td_cmd_encode(0x3ffffffu, 64), 0xffffffffu);
	uint32_t addr;
	unsigned count;
	td_cmd_decode((27u << 26) | 0x13800u, &addr, &count);
	CHECK_EQ(addr, 0x13800u);
	CHECK_EQ(count, 28u);
	td_cmd_decode(0x0c800u, &addr, &count);
	CHECK_EQ(addr, 0x0c800u);
	CHECK_EQ(count, 1u);
	td_cmd_decode(0xffffffffu, &addr, &count);
	CHECK_EQ(addr, 0x3ffffffu);
	CHECK_EQ(count, 64u);
}

TEST(td_codec, header_layout)
{
	struct td_hdr h, back;
	uint32_t w[H13_TD_HEADER_WORDS];
	memset(&h, 0, sizeof h);
	h.tid = 3;
	h.eon = 1;
	h.next_size = 0x9c;
	h.next_ptr = 0x300;
	h.bar_en = 1u << H13_BAR_RBASE0 | 1u << H13_BAR_WBASE | 1u << H13_BAR_KBASE0;
	h.bar_idx[H13_BAR_RBASE0] = 5;
	h.bar_idx[H13_BAR_WBASE] = 4;
	h.bar_idx[H13_BAR_KBASE0] = 1;
	td_hdr_encode(&h, w);
	CHECK_EQ(w[0], 3u | 1u << 25);
	CHECK_EQ(w[1], 0x9cu << 16);
	CHECK_EQ(w[7], 0x300u);
	/* four BAR slots a word, six bits apart: a 5-bit index and the enable bit above it */
	CHECK_EQ(w[8], 5u | 1u << 5 | 4u << 12 | 1u << 17);
	CHECK_EQ(w[9], 1u | 1u << 5);
	td_hdr_decode(w, &back);
	CHECK_EQ(back.tid, 3u);
	CHECK_EQ(back.eon, 1u);
	CHECK_EQ(back.next_size, 0x9cu);
	CHECK_EQ(back.next_ptr, 0x300u);
	CHECK_EQ(back.bar_en, h.bar_en);
	CHECK(memcmp(back.bar_idx, h.bar_idx, sizeof h.bar_idx) == 0);
}

TEST(td_codec, blocks_refuse_registers_outside_them)
{
	uint32_t w[64];
	struct td_writer tw;
	struct td_block b;
	struct td_hdr h;
	memset(&h, 0, sizeof h);
	/* a register inside the block: written */
	tdw_begin(&tw, w, 64, &h);
	tdb_begin(&b, H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS);
	tdb_set(&b, H13_DST_ROWSTRIDE, 64);
	tdw_put(&tw, &b);
	CHECK_EQ(tdw_end(&tw), H13_TD_HEADER_WORDS + 1 + H13_BLK_TILEDST_WORDS);
	CHECK_EQ(w[H13_TD_HEADER_WORDS], td_cmd_encode(H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS));
	CHECK_EQ(w[H13_TD_HEADER_WORDS + 1 + (H13_DST_ROWSTRIDE - H13_BLK_TILEDST) / 4], 64u);
	/* one past its end, before its start, or between words: the TD is refused */
	static const uint32_t outside[] = {H13_BLK_TILEDST + 4 * H13_BLK_TILEDST_WORDS,
					   H13_BLK_TILEDST - 4, H13_DST_ROWSTRIDE + 2};
	for (unsigned i = 0; i < sizeof outside / sizeof outside[0]; i++) {
		tdw_begin(&tw, w, 64, &h);
		tdb_begin(&b, H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS);
		tdb_set(&b, outside[i], 1);
		tdw_put(&tw, &b);
		CHECK_EQ(tdw_end(&tw), 0u);
	}
	/* a block wider than one command word, or a TD too small for it */
	tdw_begin(&tw, w, 64, &h);
	tdb_begin(&b, 0, TD_CMD_MAX_COUNT + 1);
	tdw_put(&tw, &b);
	CHECK_EQ(tdw_end(&tw), 0u);
	tdw_begin(&tw, w, H13_TD_HEADER_WORDS + H13_BLK_TILEDST_WORDS, &h);
	tdb_begin(&b, H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS);
	tdw_put(&tw, &b);
	CHECK_EQ(tdw_end(&tw), 0u);
}

TEST(td_codec, the_loader_reads_what_the_writer_wrote)
{
	static uint8_t prog[H13_TD_DEFAULT_BYTES + 64];
	uint32_t w[H13_TD_DEFAULT_BYTES / 4];
	static struct ldr_program lp;
	struct td_writer tw;
	struct td_block b;
	struct td_hdr h;
	memset(&h, 0, sizeof h);
	h.eon = 1;
	tdw_begin(&tw, w, H13_TD_DEFAULT_BYTES / 4, &h);
	tdb_begin(&b, H13_BLK_COMMON, H13_BLK_COMMON_WORDS);
	tdb_set(&b, H13_COMMON_CIN, 7);
	tdb_set(&b, H13_COMMON_TILECFG, 9);
	tdw_put(&tw, &b);
	tdw_reg(&tw, H13_NE_KERNELCFG, 2);
	REQUIRE(tdw_end(&tw) == H13_TD_HEADER_WORDS + 1 + H13_BLK_COMMON_WORDS + 2);
	memset(prog, 0, sizeof prog);
	for (unsigned i = 0; i < H13_TD_DEFAULT_BYTES / 4; i++)
		le_wr32(prog + 4 * i, w[i]);
	REQUIRE(ldr_load(prog, sizeof prog, LDR_F_RAW, &lp) == LDR_OK);
	REQUIRE(lp.ntds == 1);
	struct ldr_write_iter it;
	struct ldr_write x;
	unsigned n = 0, cin = 0, tile = 0, kcfg = 0;
	ldr_writes_begin(&lp, 0, &it);
	while (ldr_writes_next(&it, &x)) {
		if (n < H13_BLK_COMMON_WORDS)
			CHECK_EQ(x.addr, H13_BLK_COMMON + 4 * n);
		cin += x.addr == H13_COMMON_CIN && x.value == 7;
		tile += x.addr == H13_COMMON_TILECFG && x.value == 9;
		kcfg += x.addr == H13_NE_KERNELCFG && x.value == 2;
		n++;
	}
	CHECK_EQ(n, H13_BLK_COMMON_WORDS + 1);
	CHECK_EQ(cin, 1u);
	CHECK_EQ(tile, 1u);
	CHECK_EQ(kcfg, 1u);
}

/* The extended header (docs/formats.md): one word between the ten and the first record exactly when
 * header word 9's first slot (KBase0) is enabled on BAR 3 (0x23). Word 9 written out by hand: 0x23
 * extended; 0x21 (the weights), 0x26 (a runtime tensor), 0x27 (Apple's GPT-2 softmax's TD 4, a
 * constant section: no extension word, its records from word 10) and 0x03 (BAR 3, not enabled) not.
 * A TD of word 9 0x27 as Apple's compiler lays it out loads with its first record at word 10. */
TEST(td_codec, the_extension_word_only_with_kernels_on_bar_3)
{
	static const struct {
		uint32_t w9;
		int ext;
	} cases[] = {{0x23u, 1}, {0x21u, 0}, {0x26u, 0}, {0x27u, 0}, {0x03u, 0}, {0x2bu, 0}};
	uint32_t w[H13_TD_HEADER_WORDS];
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(w, 0, sizeof w);
		w[9] = cases[i].w9;
		CHECKF(td_hdr_extended(w) == cases[i].ext, "word 9 0x%02x", (unsigned)cases[i].w9);
	}
	for (unsigned k = 0; k < 2; k++) {
		static uint8_t prog[H13_TD_DEFAULT_BYTES + 64];
		static struct ldr_program lp;
		memset(prog, 0, sizeof prog);
		le_wr32(prog + 4u * 0, 1u << 25);   /* the last TD */
		le_wr32(prog + 4u * 9, k ? 0x23u : 0x27u);
		unsigned at = H13_TD_HEADER_WORDS + k; /* the first record: word 10, or 11 after the extension */
		le_wr32(prog + 4u * at, (0u << 26) | H13_COMMON_CIN);
		le_wr32(prog + 4u * (at + 1), 7u);
		REQUIRE(ldr_load(prog, sizeof prog, LDR_F_RAW, &lp) == LDR_OK);
		CHECK_EQ(ldr_td_ext_bytes(&lp, 0), k ? 4u : 0u);
		struct ldr_write_iter it;
		struct ldr_write x;
		unsigned n = 0, cin = 0;
		ldr_writes_begin(&lp, 0, &it);
		while (ldr_writes_next(&it, &x)) {
			cin += x.addr == H13_COMMON_CIN && x.value == 7u;
			n++;
		}
		CHECKF(n == 1u && cin == 1u, "word 9 0x%02x: %u writes", k ? 0x23u : 0x27u, n);
	}
}
