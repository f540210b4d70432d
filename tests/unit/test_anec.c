/*
 * anec containers (fw/loader/anec.h): the header round-trips, both data offsets (0x800 as
 * libane reads, 0x1000 as newer anecc writes) are told apart by the length, every malformed
 * header gets its named error, the loader loads an anec's data as its raw stream (and names the
 * tensors from the tile table), and truncations and bit flips never crash.
 */
#include "fw/loader/anec.h"
#include "fw/loader/loader.h"
#include "fw/tensors/tensors.h"
#include "tools/progdesc/benchprog.h"
#include "tests/harness/harness.h"

#include <stdlib.h>
#include <string.h>

/* An anec around a real raw stream (eiln's add kernel: 1 TD of 0x274 bytes, weights at 0x280,
 * dst0 BAR 4, src0 BAR 5, src1 BAR 6), with header bytes hdr. */
static uint8_t *make(const uint8_t *raw, size_t rawlen, uint32_t hdr, struct anec *a, size_t *len)
{
	memset(a, 0, sizeof *a);
	a->size = rawlen;
	a->td_size = 0x274;
	a->td_count = 1;
	a->tsk_size = 0x274;
	a->krn_size = rawlen - 0x280;
	a->dst_count = 1;
	a->src_count = 2;
	a->tiles[0] = 2;
	a->tiles[4] = a->tiles[5] = a->tiles[6] = 500;
	a->nchw[4][0] = 1;
	a->nchw[4][1] = 1;
	a->nchw[4][2] = 2560;
	a->nchw[4][3] = 1600;
	uint8_t *b = calloc(1, hdr + rawlen);
	if (!b)
		return NULL;
	if (anec_write_header(a, b, hdr) != ANEC_HDR_LIBANE) {
		free(b);
		return NULL;
	}
	memcpy(b + hdr, raw, rawlen);
	*len = hdr + rawlen;
	return b;
}

static uint8_t *raw_add(size_t *len)
{
	uint8_t *raw;
	if (!test_shared_dir() ||
	    test_read_file(test_shared_path("fixtures/kernels/binary/add.bin"), &raw, len))
		return NULL;
	return raw;
}

TEST(anec, header_round_trip_and_both_offsets)
{
	size_t rawlen, len;
	uint8_t *raw = raw_add(&rawlen);
	if (!raw)
		SKIP("../shared fixtures absent");
	struct anec a, back;
	for (unsigned k = 0; k < 2; k++) {
		uint32_t hdr = k ? ANEC_HDR_ANECC : ANEC_HDR_LIBANE;
		uint8_t *b = make(raw, rawlen, hdr, &a, &len);
		REQUIRE(b);
		CHECK(anec_detect(b, len));
		CHECK_EQ(anec_parse(b, len, &back), ANEC_OK);
		CHECK_EQ(back.hdr_bytes, hdr);
		CHECK_EQ(back.size, a.size);
		CHECK_EQ(back.krn_size, a.krn_size);
		CHECK_EQ(back.tiles[5], 500);
		CHECK_EQ(back.nchw[4][3], 1600);
		CHECK_EQ(anec_dst_bar(&back, 0), 4);
		CHECK_EQ(anec_src_bar(&back, 1), 6);
		CHECK_EQ(anec_src_bar(&back, 2), -1);
		char nm[16];
		anec_bar_name(&back, 6, nm, sizeof nm);
		CHECK_STR(nm, "src1");
		anec_bar_name(&back, 4, nm, sizeof nm);
		CHECK_STR(nm, "dst0");
		anec_bar_name(&back, 0, nm, sizeof nm);
		CHECK_STR(nm, "cmd");
		/* the loader loads its data as the raw stream, tensors named by the tile table */
		static struct ldr_program p;
		CHECK_EQ(ldr_load(b, len, 0, &p), LDR_OK);
		CHECK_EQ(p.anec_hdr, hdr);
		CHECK_EQ(p.raw, 1);
		CHECK_EQ(p.ntds, 1);
		CHECK_EQ(p.weights_off, 0x280);
		static struct tns_tensor t[TNS_MAX];
		unsigned nt = 0;
		CHECK_EQ(tns_describe(&p, t, TNS_MAX, &nt, NULL), TNS_OK);
		CHECK_EQ(nt, 3);
		CHECK(tns_find(t, nt, "src1", 4) >= 0 && t[tns_find(t, nt, "src1", 4)].bar == 6);
		CHECK(tns_find(t, nt, "dst0", 4) >= 0 && t[tns_find(t, nt, "dst0", 4)].bar == 4);
		CHECK(tns_find(t, nt, "bar5", 4) >= 0);
		/* one byte more or less: not an anec (a raw stream, which this is not) */
		CHECK(!anec_detect(b, len - 1));
		CHECK(!anec_detect(b, len + 1));
		free(b);
	}
	free(raw);
}

TEST(anec, malformed_headers_named_errors)
{
	size_t rawlen, len;
	uint8_t *raw = raw_add(&rawlen);
	if (!raw)
		SKIP("../shared fixtures absent");
	struct anec a, back;
	static struct ldr_program p;
	uint8_t *b = make(raw, rawlen, ANEC_HDR_LIBANE, &a, &len);
	REQUIRE(b);
	/* each case: one field changed, the error it must get */
#define CASE(want_, stmt)                                                                       \
	do {                                                                                    \
		struct anec m = a;                                                              \
		stmt;                                                                           \
		anec_write_header(&m, b, ANEC_HDR_LIBANE);                                      \
		CHECKF(anec_parse(b, len, &back) == (want_), "%s: got %s", #stmt,               \
		       anec_err_name(anec_parse(b, len, &back)));                               \
		/* the loader names it too, once it is taken for an anec */                     \
		if (anec_detect(b, len))                                                        \
			CHECK_EQ(ldr_load(b, len, 0, &p), (want_) == ANEC_OK ? LDR_OK : LDR_E_ANEC); \
	} while (0)
	CASE(ANEC_OK, (void)0);
	CASE(ANEC_E_TDS, m.td_count = 0);
	CASE(ANEC_E_TDS, m.td_size = 0);
	CASE(ANEC_E_TDS, m.td_size = 0x278);
	CASE(ANEC_E_TDS, m.tsk_size = m.size + 1);
	CASE(ANEC_E_LAYOUT, m.krn_size -= 16);
	CASE(ANEC_E_LAYOUT, m.tsk_size = 0x290);
	CASE(ANEC_E_COUNTS, m.src_count = 28);
	CASE(ANEC_E_COUNTS, m.dst_count = 0xffffffffu);
	CASE(ANEC_E_TILES, m.tiles[0] = 1);
	CASE(ANEC_E_TILES, m.tiles[6] = 0);
	CASE(ANEC_E_LENGTH, m.size += 1);
	CASE(ANEC_E_LIMIT, m.size = ANEC_MAX_SIZE + 1);
#undef CASE
	/* the td count must match the chain, and the TDs must end at tsk_size */
	struct anec m = a;
	m.td_count = 2;
	anec_write_header(&m, b, ANEC_HDR_LIBANE);
	CHECK_EQ(anec_parse(b, len, &back), ANEC_OK);
	CHECK_EQ(ldr_load(b, len, 0, &p), LDR_E_TD_COUNT);
	CHECK_EQ(anec_parse(b, 100, &back), ANEC_E_TRUNCATED);
	CHECK_EQ(anec_parse(NULL, len, &back), ANEC_E_ARG);
	CHECK_STR(anec_err_name(ANEC_E_LENGTH), "anec-length");
	CHECK_STR(anec_err_name((enum anec_err)99), "anec-unknown-error");
	CHECK_STR(ldr_err_name(LDR_E_ANEC), "bad_anec");
	free(b);
	free(raw);
}

TEST(anec, truncations_and_bit_flips_never_crash)
{
	size_t rawlen, len;
	uint8_t *raw = raw_add(&rawlen);
	if (!raw)
		SKIP("../shared fixtures absent");
	struct anec a, back;
	static struct ldr_program p;
	uint8_t *b = make(raw, rawlen, ANEC_HDR_LIBANE, &a, &len);
	REQUIRE(b);
	for (size_t n = 0; n < ANEC_FIELDS_BYTES + 16; n += 7) {
		uint8_t *c = malloc(n ? n : 1);
		REQUIRE(c);
		memcpy(c, b, n);
		(void)anec_parse(c, n, &back);
		(void)ldr_load(c, n, 0, &p);
		free(c);
	}
	for (unsigned k = 0; k < 400; k++) {
		size_t at = (size_t)(test_rand() % ANEC_FIELDS_BYTES);
		uint8_t old = b[at];
		b[at] ^= (uint8_t)(1u << (test_rand() % 8));
		(void)anec_parse(b, len, &back);
		(void)ldr_load(b, len, 0, &p);
		b[at] = old;
	}
	CHECK_EQ(anec_parse(b, len, &back), ANEC_OK);
	free(b);
	free(raw);
}

/* ---- td_size and the tile table (review fix2) ---- */

/* An anec (0x800 header) around a one-TD copy of 8 x 2 fp16 from src0 (BAR 5, at in_off) to dst0
 * (BAR 4, at out_off), with td_size and dst0's and src0's tiles as given: its length, 0 when it
 * does not build. */
static size_t copy_anec(uint8_t *out, size_t cap, uint32_t in_off, uint32_t out_off,
			uint32_t td_size, uint32_t dst_tiles, uint32_t src_tiles)
{
	static uint8_t raw[0x1000];
	static struct ldr_program p;
	const struct bp_step s = {.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 4,
				  .in0_off = in_off, .out_off = out_off};
	size_t n = bp_chain(raw, sizeof raw, 8, 2, &s, 1, NULL);
	if (!n || ldr_load(raw, n, LDR_F_RAW, &p) != LDR_OK || ANEC_HDR_LIBANE + n > cap)
		return 0;
	struct anec a;
	memset(&a, 0, sizeof a);
	a.size = n;
	a.td_size = td_size;
	a.td_count = 1;
	a.tsk_size = p.weights_off; /* the TDs' end, 16-byte aligned already */
	a.krn_size = n - p.weights_off;
	a.dst_count = a.src_count = 1;
	a.tiles[0] = 1;
	a.tiles[4] = dst_tiles;
	a.tiles[5] = src_tiles;
	memset(out, 0, ANEC_HDR_LIBANE);
	if (anec_write_header(&a, out, ANEC_HDR_LIBANE) != ANEC_HDR_LIBANE)
		return 0;
	memcpy(out + ANEC_HDR_LIBANE, raw, n);
	return ANEC_HDR_LIBANE + n;
}

/* A batched matmul's x, read by the kernel DMA from runtime BAR 6 (bp_bmm: 20 batches of 16 rows
 * of 32 fp16, 0x5000 bytes): the tile table bounds it as it bounds the tiles. The check had
 * skipped every coefficient range (td_ranges marks them absolute), so one tile (16 KiB) of
 * BAR 6 ran with a 0x5000-byte grant (a review found it); two tiles load. */
TEST(anec, a_kernel_read_past_its_bars_tiles_is_refused)
{
	static uint8_t raw[0x20000], b[0x20000 + ANEC_HDR_LIBANE];
	static struct ldr_program p;
	const struct bp_bmm_spec bs = {20, 16, 32, 32, 16, 6, 0, NULL, 0};
	size_t n = bp_bmm(raw, sizeof raw, &bs);
	REQUIRE(n && n + ANEC_HDR_LIBANE <= sizeof b);
	REQUIRE(ldr_load(raw, n, LDR_F_RAW, &p) == LDR_OK);
	for (unsigned t6 = 1; t6 <= 2; t6++) {
		struct anec a;
		memset(&a, 0, sizeof a);
		a.size = n;
		a.td_size = p.tds[0].size;
		a.td_count = p.ntds;
		a.tsk_size = p.weights_off;
		a.krn_size = n - p.weights_off;
		a.dst_count = 1;
		a.src_count = 2;
		a.tiles[0] = 1;
		a.tiles[1] = 64;
		a.tiles[4] = a.tiles[5] = 64;
		a.tiles[6] = t6;
		memset(b, 0, ANEC_HDR_LIBANE);
		REQUIRE(anec_write_header(&a, b, ANEC_HDR_LIBANE) == ANEC_HDR_LIBANE);
		memcpy(b + ANEC_HDR_LIBANE, raw, n);
		static struct ldr_program q;
		enum ldr_err e = ldr_load(b, ANEC_HDR_LIBANE + n, 0, &q);
		CHECK_STR(ldr_err_name(e), t6 == 1 ? "anec_outside_tiles" : "ok");
		if (t6 == 1)
			CHECK_EQ(q.err_bar, 6);
	}
}

/* The Asahi driver has the engine fetch td_size bytes of TD 0; the loader sizes a raw stream's
 * TD 0 by its own rule (0x274 here). A header stating 0x26c had been loaded whole (a relu .anec
 * whose TD sets PostScale 2 in its last two words, header td_size 0x26c: the model ran the TD's last two words, PostScale 2, which the engine
 * does not fetch, and gave 2 relu(x) for relu(x)). Refused, naming both values; the TD's own
 * size loads. ldr_check_td_size is the same check for a submit (tools/accel/submit.c). */
TEST(anec, td_size_must_be_the_first_tds_size)
{
	static uint8_t b[0x2000];
	static struct ldr_program p;
	char vals[128];
	size_t len = copy_anec(b, sizeof b, 0, 0, 0x274, 1, 1);
	REQUIRE(len);
	CHECK_STR(ldr_err_name(ldr_load(b, len, 0, &p)), "ok");
	CHECK_EQ(p.tds[0].size, 0x274u);
	/* TD 0 sized as stated (the bytes the engine fetches): a size the header's tsk_size then
	 * contradicts (the TDs would end before it) is a bad header, never the 0x274 bytes run */
	static const uint32_t shorter[] = {0x26c, 0x270, 0x200, 0x28};
	for (unsigned i = 0; i < sizeof shorter / sizeof shorter[0]; i++) {
		REQUIRE(copy_anec(b, sizeof b, 0, 0, shorter[i], 1, 1) == len);
		enum ldr_err e = ldr_load(b, len, 0, &p);
		CHECKF(e == LDR_E_ANEC || e == LDR_E_TD_SIZE_STATED, "td_size 0x%x: %s", shorter[i],
		       ldr_err_name(e));
	}
	/* a size TD 0's structure forbids (not whole words, past the stream): refused as stated */
	static const uint32_t bad[] = {0x276, 0x27a};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		REQUIRE(copy_anec(b, sizeof b, 0, 0, bad[i], 1, 1) == len);
		enum ldr_err e = ldr_load(b, len, 0, &p);
		CHECKF(e == LDR_E_TD_SIZE_STATED, "td_size 0x%x: %s", bad[i], ldr_err_name(e));
	}
	REQUIRE(copy_anec(b, sizeof b, 0, 0, 0x276, 1, 1) == len);
	REQUIRE(ldr_load(b, len, 0, &p) == LDR_E_TD_SIZE_STATED);
	ldr_err_values(&p, LDR_E_TD_SIZE_STATED, vals, sizeof vals);
	CHECK_STR(vals, "td_size 0x276, first TD 0x274 bytes");
	/* an anec refused for its header is no "not an ANE program" */
	CHECK(ldr_not_a_program(b, len, 0, &p, LDR_E_TD_SIZE_STATED) == NULL);
	CHECK_STR(ldr_err_name(LDR_E_TD_SIZE_STATED), "td_size_mismatch");
	/* the submit's form, on the stream itself: TD 0 sized as stated where its words allow */
	REQUIRE(ldr_load(b + ANEC_HDR_LIBANE, len - ANEC_HDR_LIBANE, LDR_F_RAW, &p) == LDR_OK);
	CHECK_EQ(ldr_check_td_size(&p, 0x274), LDR_OK);
	CHECK_EQ(ldr_check_td_size(&p, 0x26c), LDR_E_TD_SIZE_STATED);
	CHECK_STR(ldr_err_name(ldr_load_sized(b + ANEC_HDR_LIBANE, len - ANEC_HDR_LIBANE, 0x274, &p)), "ok");
	CHECK_STR(ldr_err_name(ldr_load_sized(b + ANEC_HDR_LIBANE, len - ANEC_HDR_LIBANE, 0x276, &p)),
		  "td_size_mismatch");
	/* two TDs 0x300 apart (the rule gives TD 0 0x274 bytes): stated 0x278, as the macOS
	 * compiler's 632-byte TDs (convert writes the .hwx's size), TD 0 is 0x278 bytes; past the
	 * next TD, refused (a review found convert's anecs of such programs refused by the check) */
	const struct bp_step two[2] = {
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 3},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 3, .out = 4},
	};
	size_t rl = bp_chain(b, sizeof b, 8, 2, two, 2, NULL);
	REQUIRE(rl);
	CHECK_STR(ldr_err_name(ldr_load_sized(b, rl, 0x278, &p)), "ok");
	CHECK_EQ(p.tds[0].size, 0x278u);
	CHECK_EQ(p.ntds, 2u);
	CHECK_STR(ldr_err_name(ldr_load_sized(b, rl, 0x304, &p)), "td_size_mismatch");
	ldr_err_values(&p, LDR_E_WINDOW_NAME, vals, sizeof vals); /* an error with no values */
	CHECK_STR(vals, "");
}

/* The tile table gives each BAR's buffer (tiles << 14 bytes): the Asahi stack allocates that
 * much. A TD reaching past it had run with a grant of its own extent (a concat
 * .anec with dst0 given one tile, 16 KiB, the TDs write 0x100400 bytes). Refused
 * (anec_outside_tiles, naming the BAR, the buffer and the reach), for a destination and a
 * source; the same TDs with one more tile load. */
TEST(anec, a_td_past_its_bars_tiles_is_refused)
{
	static uint8_t b[0x2000];
	static struct ldr_program p;
	char vals[128];
	/* dst0 written at [0x4000, 0x4080): 0x80 bytes past one tile */
	size_t len = copy_anec(b, sizeof b, 0, 0x4000, 0x274, 1, 1);
	REQUIRE(len);
	CHECK_STR(ldr_err_name(ldr_load(b, len, 0, &p)), "anec_outside_tiles");
	ldr_err_values(&p, LDR_E_ANEC_TILES, vals, sizeof vals);
	CHECK_STR(vals, "BAR 4: tiles 0x4000 bytes, TD 0 reaches 0x4080");
	REQUIRE(copy_anec(b, sizeof b, 0, 0x4000, 0x274, 2, 1) == len);
	CHECK_STR(ldr_err_name(ldr_load(b, len, 0, &p)), "ok");
	/* at the end of the tile exactly: [0x3f80, 0x4000) */
	REQUIRE(copy_anec(b, sizeof b, 0, 0x3f80, 0x274, 1, 1) == len);
	CHECK_STR(ldr_err_name(ldr_load(b, len, 0, &p)), "ok");
	/* src0 read at [0x4000, 0x4080) */
	REQUIRE(copy_anec(b, sizeof b, 0x4000, 0, 0x274, 1, 1) == len);
	CHECK_STR(ldr_err_name(ldr_load(b, len, 0, &p)), "anec_outside_tiles");
	ldr_err_values(&p, LDR_E_ANEC_TILES, vals, sizeof vals);
	CHECK_STR(vals, "BAR 5: tiles 0x4000 bytes, TD 0 reaches 0x4080");
	REQUIRE(copy_anec(b, sizeof b, 0x4000, 0, 0x274, 1, 2) == len);
	CHECK_STR(ldr_err_name(ldr_load(b, len, 0, &p)), "ok");
	CHECK_EQ(p.anec_tiles[5], 2u);
	/* the same stream alone (no tile table) loads whatever its extent */
	REQUIRE(copy_anec(b, sizeof b, 0x4000, 0x4000, 0x274, 1, 1) == len);
	CHECK_STR(ldr_err_name(ldr_load(b + ANEC_HDR_LIBANE, len - ANEC_HDR_LIBANE, LDR_F_RAW, &p)), "ok");
	CHECK_STR(ldr_err_name(LDR_E_ANEC_TILES), "anec_outside_tiles");
}
