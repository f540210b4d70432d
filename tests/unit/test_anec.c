/*
 * anec containers (fw/loader/anec.h): the header round-trips, both data offsets (0x800 as
 * libane reads, 0x1000 as newer anecc writes) are told apart by the length, every malformed
 * header gets its named error, the loader loads an anec's data as its raw stream (and names the
 * tensors from the tile table), and truncations and bit flips never crash.
 */
#include "fw/loader/anec.h"
#include "fw/loader/loader.h"
#include "fw/tensors/tensors.h"
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
