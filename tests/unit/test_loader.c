/*
 * Program loader tests: every real fixture loads (TD counts, per-TD write counts, coefficient
 * channels), the generated malformed corpus is rejected with the expected named errors, and bad
 * bytes never crash the loader or the printer.
 */
#include "fw/loader/loader.h"
#include "fw/common/le.h"
#include "fw/loader/hwx_format.h"
#include "fw/loader/hwx_write.h"
#include "fw/regmap/h13.h"
#include "fw/regmap/regmap.h"
#include "fw/td/td.h"
#include "tools/progdesc/benchprog.h"
#include "tests/harness/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void null_sink(void *ctx, const char *s, size_t n)
{
	(void)s;
	*(size_t *)ctx += n;
}

static struct ldr_program *new_prog(void)
{
	return malloc(sizeof(struct ldr_program));
}

struct fixture {
	const char *path;
	unsigned ntds;
	unsigned lut_tds; /* TDs that select the activation LUT */
};

/* Facts about the fixtures from their README: one TD each except concat (several TDs) and the
 * raw sigmoid (a LUT TD then a planar TD); the activation kernels use the LUT. */
static const struct fixture fixtures[] = {
	{"fixtures/hwx/relu.hwx", 1, 0},
	{"fixtures/hwx/sigmoid.hwx", 1, 1},
	{"fixtures/hwx/conv.hwx", 1, 0},
	{"fixtures/hwx/concat.hwx", 2, 0},
	{"fixtures/kernels/unary/tanh.bin", 1, 1},
	{"fixtures/kernels/unary/sigmoid.bin", 2, 1},
	{"fixtures/kernels/unary/exp.bin", 1, 1},
	{"fixtures/kernels/unary/log2.bin", 1, 1},
	{"fixtures/kernels/unary/sqrt.bin", 1, 1},
	{"fixtures/kernels/unary/abs.bin", 1, 0},
	{"fixtures/kernels/activation/gelu.bin", 1, 1},
	{"fixtures/kernels/activation/relu6.bin", 1, 1},
	{"fixtures/kernels/activation/leakyrelu.bin", 1, 1},
	{"fixtures/kernels/activation/hardtanh.bin", 1, 1},
	{"fixtures/kernels/binary/add.bin", 1, 0},
	{"fixtures/kernels/binary/mul.bin", 1, 0},
};

TEST(loader, every_fixture_loads)
{
	if (!test_shared_dir())
		SKIP("../shared fixtures absent");
	struct ldr_program *p = new_prog();
	REQUIRE(p);
	for (unsigned i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		const struct fixture *f = &fixtures[i];
		uint8_t *buf;
		size_t len;
		if (test_read_file(test_shared_path(f->path), &buf, &len) != 0) {
			test_fail_at(__FILE__, __LINE__, "cannot read %s", f->path);
			continue;
		}
		enum ldr_err e = ldr_load(buf, len, 0, p);
		CHECKF(e == LDR_OK, "%s: %s", f->path, ldr_err_name(e));
		if (e == LDR_OK) {
			CHECK_EQ(p->ntds, f->ntds);
			CHECK_EQ(p->raw, strstr(f->path, ".bin") != NULL);
			unsigned luts = 0;
			for (unsigned t = 0; t < p->ntds; t++) {
				/* H13 TDs of these compilers program all seven blocks: 140 words */
				CHECK_EQ(p->tds[t].nwrites, 140);
				struct ldr_write_iter it;
				struct ldr_write w;
				unsigned n = 0, unnamed = 0;
				ldr_writes_begin(p, t, &it);
				while (ldr_writes_next(&it, &w)) {
					n++;
					CHECK(w.loc.block != NULL);
					unnamed += w.loc.reg == NULL;
				}
				CHECK_EQ(n, p->tds[t].nwrites);
				CHECK(unnamed < n / 2);
				luts += p->tds[t].lut;
			}
			CHECK_EQ(luts, f->lut_tds);
			size_t out = 0;
			ldr_print(p, 0, null_sink, &out);
			CHECK(out > 1000);
			out = 0;
			ldr_print(p, LDR_P_JSON, null_sink, &out);
			CHECK(out > 1000);
			/* --brief: the writes counted, not listed, so shorter than the full listing */
			size_t brief = 0, full = 0;
			ldr_print(p, LDR_P_BRIEF, null_sink, &brief);
			ldr_print(p, 0, null_sink, &full);
			CHECK(brief > 100 && brief < full);
		}
		free(buf);
	}
	free(p);
}

TEST(loader, conv_fixture_details)
{
	if (!test_shared_dir())
		SKIP("../shared fixtures absent");
	uint8_t *buf;
	size_t len;
	REQUIRE(test_read_file(test_shared_path("fixtures/hwx/conv.hwx"), &buf, &len) == 0);
	struct ldr_program *p = new_prog();
	REQUIRE(p);
	CHECK_EQ(ldr_load(buf, len, 0, p), LDR_OK);
	CHECK_EQ(p->gen->gen, 13);
	CHECK_EQ(p->nwindows, 2);
	CHECK_EQ(p->windows[0].initprot, LDR_WIN_INPUT);
	CHECK(p->windows[0].name_len == 5 && !memcmp(p->windows[0].name, "image", 5));
	CHECK_EQ(p->windows[1].initprot, LDR_WIN_OUTPUT);
	/* three fp16 weight kernels of 64 bytes, each behind an enabled coefficient channel */
	CHECK_EQ(p->tds[0].ncoeff, 3);
	for (unsigned k = 0; k < p->tds[0].ncoeff && k < 3; k++) {
		CHECK_EQ(p->tds[0].coeff[k].ch, k);
		CHECK_EQ(p->tds[0].coeff[k].base, 0x40 * k);
		CHECK_EQ(p->tds[0].coeff[k].size, 0x40);
	}
	/* each relocation patches that channel's base register */
	CHECK_EQ(p->nrelocs, 3);
	for (unsigned r = 0; r < p->nrelocs; r++) {
		CHECK(p->relocs[r].has_reg);
		CHECK_EQ(p->relocs[r].reg_addr, 0x1f848 + 4 * r);
		CHECK_EQ(p->relocs[r].target_sect, p->weights_sect);
	}
	CHECK(p->note && p->note_len > 8);
	free(p);
	free(buf);
}

/* Reads build/testdata/loader_corpus/index.txt: "FILE EXPECTED MODE" lines. */
TEST(loader, malformed_corpus_named_errors)
{
	uint8_t *idx;
	size_t idx_len;
	char path[512];
	snprintf(path, sizeof path, "%s", test_data_path("loader_corpus/index.txt"));
	REQUIRE(test_read_file(path, &idx, &idx_len) == 0);
	struct ldr_program *p = new_prog();
	REQUIRE(p);
	char *text = malloc(idx_len + 1);
	REQUIRE(text);
	memcpy(text, idx, idx_len);
	text[idx_len] = 0;
	unsigned bad = 0, good = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char file[128], expect[64], mode[16];
		if (line[0] == '#' || sscanf(line, "%127s %63s %15s", file, expect, mode) != 3)
			continue;
		char rel[200];
		snprintf(rel, sizeof rel, "loader_corpus/%s", file);
		snprintf(path, sizeof path, "%s", test_data_path(rel));
		uint8_t *buf;
		size_t len;
		if (test_read_file(path, &buf, &len) != 0) {
			test_fail_at(__FILE__, __LINE__, "cannot read %s", path);
			continue;
		}
		unsigned flags = !strcmp(mode, "raw") ? LDR_F_RAW : !strcmp(mode, "hwx") ? LDR_F_HWX : 0;
		enum ldr_err e = ldr_load(buf, len, flags, p);
		CHECKF(!strcmp(ldr_err_name(e), expect), "%s: expected %s, got %s", file, expect,
		       ldr_err_name(e));
		if (!strcmp(expect, "ok"))
			good++;
		else
			bad++;
		free(buf);
	}
	CHECK(bad >= 30);
	CHECK_EQ(good, 3); /* valid_hwx, valid_raw, raw_compact_first_td */
	free(text);
	free(idx);
	free(p);
}

static int read_corpus(const char *name, uint8_t **buf, size_t *len)
{
	char rel[128];
	snprintf(rel, sizeof rel, "loader_corpus/%s", name);
	return test_read_file(test_data_path(rel), buf, len);
}

TEST(loader, synthetic_program_api)
{
	uint8_t *buf;
	size_t len;
	REQUIRE(read_corpus("valid_hwx.bin", &buf, &len) == 0);
	struct ldr_program *p = new_prog();
	struct ldr_regimage *img = malloc(sizeof *img);
	REQUIRE(p && img);
	REQUIRE(ldr_load(buf, len, 0, p) == LDR_OK);
	CHECK_EQ(p->ntds, 2);
	CHECK_EQ(p->tds[1].off, 0x300);
	CHECK_EQ(p->tds[0].ncoeff, 2);
	CHECK_EQ(p->tds[1].ncoeff, 1);
	CHECK_EQ(p->tds[1].coeff[0].base, 0x80);
	CHECK_EQ(p->tds[1].lut, 1);
	CHECK_EQ(p->tds[0].h.bar_en, 0x15); /* RBE0, WBE, KBE0 */
	CHECK_EQ(p->tds[0].h.bar_idx[0], 5);
	CHECK_EQ(p->tds[0].h.bar_idx[2], 4);
	/* register state after TD 1 carries TD 0's writes it did not overwrite */
	REQUIRE(ldr_td_image(p, 0, img) == LDR_OK);
	CHECK_EQ(ldr_image_get(p, img, 0x1f848), 0x0);
	CHECK_EQ(ldr_image_get(p, img, 0x1f84c), 0x40);
	REQUIRE(ldr_td_image(p, 1, img) == LDR_OK);
	CHECK_EQ(ldr_image_get(p, img, 0x1f848), 0x80);
	CHECK_EQ(ldr_image_get(p, img, 0x0), 0x1004d);
	CHECK_EQ(ldr_td_image(p, 2, img), LDR_E_ARG);
	CHECK_EQ(p->nrelocs, 2);
	CHECK(p->relocs[1].has_reg && p->relocs[1].reg_addr == 0x1f84c);
	/* the same TDs without the container, as a raw stream */
	uint8_t *raw;
	size_t raw_len;
	REQUIRE(read_corpus("valid_raw.bin", &raw, &raw_len) == 0);
	CHECK_EQ(ldr_load(raw, raw_len, 0, p), LDR_OK);
	CHECK_EQ(p->raw, 1);
	CHECK_EQ(p->ntds, 2);
	CHECK_EQ(p->weights_off, 0x580);
	CHECK_EQ(p->weights_len, raw_len - 0x580);
	CHECK_EQ(ldr_load(raw, raw_len, LDR_F_HWX, p), LDR_E_BAD_MAGIC);
	CHECK_EQ(ldr_load(raw, raw_len, LDR_F_RAW | LDR_F_HWX, p), LDR_E_ARG);
	CHECK_EQ(ldr_load(NULL, 0, 0, p), LDR_E_TRUNCATED);
	/* the only TD of a stream shorter than a full TD (Apple's 504-byte TDs, one alone in 512
	 * bytes): the stream's words, its writes all read; a TD chained on (not the last) is not */
	uint8_t one[BP_WEIGHTS_OFF + 64];
	REQUIRE(bp_pe(one, sizeof one, &(struct bp_pe_spec){.c = 2, .win = 8, .hin = 2, .wout = 8, .hout = 2,
							    .kw = 1, .kh = 1, .sx = 1, .sy = 1,
							    .prescale = BP_FP16_ONE, .scale = BP_FP16_ONE,
							    .finalscale = BP_F32_ONE}) == sizeof one);
	REQUIRE(ldr_load(one, sizeof one, LDR_F_RAW, p) == LDR_OK);
	REQUIRE(ldr_td_image(p, 0, img) == LDR_OK);
	uint32_t fs = ldr_image_get(p, img, H13_PLANAR_FINALSCALE), n_full = p->tds[0].nwrites;
	size_t used = 0; /* the TD's bytes up to its last nonzero word */
	for (size_t i = 0; i + 4 <= 0x274; i += 4)
		if (le_rd32(one + i))
			used = i + 4;
	size_t short_len = (used + 15) & ~(size_t)15;
	REQUIRE(short_len < 0x274);
	CHECK_EQ(ldr_load(one, short_len, LDR_F_RAW, p), LDR_OK);
	CHECK_EQ(p->ntds, 1);
	CHECK_EQ(p->tds[0].size, short_len);
	CHECK_EQ(p->tds[0].nwrites, n_full);
	REQUIRE(ldr_td_image(p, 0, img) == LDR_OK);
	CHECK_EQ(ldr_image_get(p, img, H13_PLANAR_FINALSCALE), fs);
	CHECK_EQ(ldr_load(one, used - 4, LDR_F_RAW, p), LDR_E_STREAM_OVERRUN); /* its last write cut */
	free(raw);
	free(img);
	free(p);
	free(buf);
}

TEST(loader, truncations_and_bit_flips_never_crash)
{
	uint8_t *buf;
	size_t len;
	REQUIRE(read_corpus("valid_hwx.bin", &buf, &len) == 0);
	struct ldr_program *p = new_prog();
	uint8_t *m = malloc(len);
	REQUIRE(p && m);
	unsigned step = test_on_target() ? 61 : 1, ok = 0;
	for (size_t n = 0; n < len; n += step) {
		/* a copy of exactly n bytes so ASan sees reads past the end */
		uint8_t *t = malloc(n ? n : 1);
		REQUIRE(t);
		memcpy(t, buf, n);
		ok += ldr_load(t, n, 0, p) == LDR_OK;
		free(t);
	}
	/* the container is only whole at full length (trailing reloc padding aside) */
	CHECK(ok <= 0x100 / step + 1);
	unsigned rounds = test_on_target() ? 300 : 3000;
	for (unsigned r = 0; r < rounds; r++) {
		memcpy(m, buf, len);
		unsigned flips = 1 + (unsigned)(test_rand() % 4);
		for (unsigned f = 0; f < flips; f++) {
			/* bias toward the header, commands and TDs where the structure lives */
			size_t at = (test_rand() & 1) ? test_rand() % 0x900 : 0x1000 + test_rand() % 0x600;
			if (at < len)
				m[at] ^= (uint8_t)(1u << (test_rand() % 8));
		}
		if (ldr_load(m, len, 0, p) == LDR_OK) {
			size_t out = 0;
			ldr_print(p, LDR_P_JSON, null_sink, &out);
			ldr_print(p, 0, null_sink, &out);
			ldr_print(p, LDR_P_BRIEF, null_sink, &out);
			CHECK(out > 0);
		}
	}
	free(m);
	free(p);
	free(buf);
}

TEST(loader, error_names_are_distinct)
{
	for (int a = 0; a < LDR_E__COUNT; a++) {
		CHECK(strcmp(ldr_err_name((enum ldr_err)a), "unknown_error") != 0);
		CHECK(strcmp(ldr_err((enum ldr_err)a)->desc, "unknown error") != 0);
		for (int b = a + 1; b < LDR_E__COUNT; b++)
			CHECK(strcmp(ldr_err_name((enum ldr_err)a), ldr_err_name((enum ldr_err)b)) != 0);
	}
	CHECK_STR(ldr_err_name(LDR_E__COUNT), "unknown_error");
}

/* The chain limit: LDR_MAX_TDS (512) TDs load (benchprog's bp_bmm, one row a TD: Apple writes its
 * batched matmul over 8 batches as 208 and 209 TDs), one more is over_limit. */
TEST(loader, five_hundred_twelve_tds_load_and_one_more_is_over_the_limit)
{
	const struct bp_bmm_spec spec = {1, LDR_MAX_TDS, 16, 16, 1, 6, 1, NULL, 0};
	size_t len = bp_bmm_bytes(&spec), cap = len + 0x300;
	uint8_t *b = calloc(1, cap);
	struct ldr_program *p = new_prog();
	REQUIRE(b && p);
	REQUIRE(bp_bmm(b, cap, &spec) == len);
	CHECK_STR(ldr_err_name(ldr_load(b, len, LDR_F_RAW, p)), "ok");
	CHECK_EQ(p->ntds, (unsigned)LDR_MAX_TDS);
	/* the last TD chains on to a copy of itself, 0x300 further */
	const size_t last = (size_t)(LDR_MAX_TDS - 1) * 0x300;
	memcpy(b + last + 0x300, b + last, 0x274);
	uint32_t hw[H13_TD_HEADER_WORDS];
	struct td_hdr h;
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		hw[i] = le_rd32(b + last + 4 * i);
	td_hdr_decode(hw, &h);
	h.eon = 0;
	h.next_ptr = (uint32_t)(last + 0x300);
	h.next_size = 0x274u / 4u - 1u;
	td_hdr_encode(&h, hw);
	for (unsigned i = 0; i < H13_TD_HEADER_WORDS; i++)
		le_wr32(b + last + 4 * i, hw[i]);
	CHECK_STR(ldr_err_name(ldr_load(b, last + 0x300 + 0x280, LDR_F_RAW, p)), "over_limit");
	free(b);
	free(p);
}

/* ---- windows, names and weights sections (review fix2) ---- */

/* A container around two copies (TD 0: BAR 5 to BAR 4, TD 1: BAR 5 to BAR 6, 8 x 2 fp16)
 * with windows win and 64 bytes of weights (BAR 1) after the TDs: its
 * length, 0 when it does not build. */
static size_t two_copy_hwx(uint8_t *out, size_t cap, const struct hwxw_window *win, unsigned nwin)
{
	static uint8_t raw[0x1000];
	const struct bp_step s[2] = {
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 4},
		{.kind = BP_STEP_COPY, .cin = 1, .cout = 1, .in0 = 5, .out = 6},
	};
	size_t n = bp_chain(raw, sizeof raw, 8, 2, s, 2, NULL), woff = bp_chain_weights_off(2);
	if (!n || n < woff || woff + 64 > sizeof raw)
		return 0;
	memset(raw + woff, 0x11, 64); /* the weights: bytes no TD reads */
	struct hwxw_spec spec = {.cpusubtype = 4, .text = raw, .text_len = woff,
				 .first_td_bytes = 0x274, .ntds = 2, .weights = raw + woff,
				 .weights_len = 64, .weights_bar = 1, .win = win, .nwin = nwin};
	size_t len = 0;
	return hwxw_write(&spec, out, cap, &len) == HWXW_OK ? len : 0;
}

/* The file offset of the LC_SEGMENT_64 command whose vmaddr is addr (0: none). */
static size_t seg_cmd_at(const uint8_t *b, size_t len, uint64_t addr)
{
	size_t off = HWX_HEADER_BYTES;
	for (uint32_t i = 0; i < le_rd32(b + HWX_H_NCMDS) && off + 8 <= len; i++) {
		uint32_t cmd = le_rd32(b + off), size = le_rd32(b + off + LC_CMDSIZE_OFF);
		if (cmd == LC_SEGMENT_64 && le_rd64(b + off + SEG_VMADDR_OFF) == addr)
			return off;
		if (!size)
			break;
		off += size;
	}
	return 0;
}

/* The file offset of section seg,sect's header (0: none). */
static size_t sect_hdr_at(const uint8_t *b, size_t len, const char *seg, const char *sect)
{
	size_t off = HWX_HEADER_BYTES;
	for (uint32_t i = 0; i < le_rd32(b + HWX_H_NCMDS) && off + 8 <= len; i++) {
		uint32_t cmd = le_rd32(b + off), size = le_rd32(b + off + LC_CMDSIZE_OFF);
		if (cmd == LC_SEGMENT_64)
			for (uint32_t k = 0; k < le_rd32(b + off + SEG_NSECTS_OFF); k++) {
				size_t s = off + SEG_CMD_BYTES + (size_t)k * SECT_BYTES;
				if (!strncmp((const char *)b + s + SECT_NAME_OFF, sect, 16) &&
				    !strncmp((const char *)b + s + SECT_SEGNAME_OFF, seg, 16))
					return s;
			}
		if (!size)
			break;
		off += size;
	}
	return 0;
}

static void set_name16(uint8_t *at, const char *name)
{
	memset(at, 0, 16);
	memcpy(at, name, strlen(name));
}

/* Input x on BAR 5, outputs y and z on BARs 4 and 6, 0x80 bytes each. */
static const struct hwxw_window xyz_windows[3] = {
	{"x", 5, LDR_WIN_INPUT, 0x80}, {"y", 4, LDR_WIN_OUTPUT, 0x80}, {"z", 6, LDR_WIN_OUTPUT, 0x80}};

/* An I/O window's initprot is its direction: 1 input, 2 output, 3 intermediate. Any other value
 * (0, 4, 5, tried on a relu .hwx's output window) had been taken as an intermediate, granted read-write: a
 * window declared not writable was written. Refused (bad_window_prot); 1, 2 and 3 load. */
TEST(loader, a_window_of_another_initprot_is_refused)
{
	static uint8_t b[0x20000];
	size_t len = two_copy_hwx(b, sizeof b, xyz_windows, 3);
	REQUIRE(len);
	static struct ldr_program prog;
	struct ldr_program *p = &prog;
	REQUIRE(ldr_load(b, len, 0, p) == LDR_OK);
	size_t seg = seg_cmd_at(b, len, p->bars[4]);
	REQUIRE(seg);
	static const uint32_t bad[] = {0, 4, 5, 7, 0xffffffffu}, good[] = {1, 2, 3};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		le_wr32(b + seg + SEG_INITPROT_OFF, bad[i]);
		CHECKF(ldr_load(b, len, 0, p) == LDR_E_WINDOW_PROT, "initprot %u", bad[i]);
	}
	for (unsigned i = 0; i < sizeof good / sizeof good[0]; i++) {
		le_wr32(b + seg + SEG_INITPROT_OFF, good[i]);
		CHECKF(ldr_load(b, len, 0, p) == LDR_OK, "initprot %u", good[i]);
	}
	CHECK_STR(ldr_err_name(LDR_E_WINDOW_PROT), "bad_window_prot");
	/* a real container's output window (relu.hwx's probs@output) patched the same way */
	uint8_t *f;
	size_t flen;
	if (test_shared_dir() && !test_read_file(test_shared_path("fixtures/hwx/relu.hwx"), &f, &flen)) {
		REQUIRE(ldr_load(f, flen, 0, p) == LDR_OK);
		size_t fs = seg_cmd_at(f, flen, p->bars[4]);
		REQUIRE(fs);
		CHECK_EQ(le_rd32(f + fs + SEG_INITPROT_OFF), 2u);
		le_wr32(f + fs + SEG_INITPROT_OFF, 0);
		CHECK_EQ(ldr_load(f, flen, 0, p), LDR_E_WINDOW_PROT);
		le_wr32(f + fs + SEG_INITPROT_OFF, 2);
		CHECK_EQ(ldr_load(f, flen, 0, p), LDR_OK);
		free(f);
	}
}

/* Names address tensors (fw/tensors tns_find returns the first that matches, and "barN" always
 * addresses BAR N): two windows of one name (a two-copy .hwx, or a concat .hwx whose two
 * outputs shared a name), or a window named barN on another BAR (a concat .hwx naming BAR 4's
 * window bar6) bound a name to the wrong buffer. Refused (bad_window_name); distinct names, and barN on BAR N, load. */
TEST(loader, duplicate_and_misleading_window_names_are_refused)
{
	static uint8_t b[0x20000];
	static struct ldr_program prog;
	struct ldr_program *p = &prog;
	static const struct {
		const char *y, *z;
		enum ldr_err want;
	} cases[] = {
		{"y", "z", LDR_OK},         {"y", "y", LDR_E_WINDOW_NAME},
		{"x", "z", LDR_E_WINDOW_NAME}, /* the input's name */
		{"bar4", "z", LDR_OK},      {"bar6", "z", LDR_E_WINDOW_NAME},
		{"y", "bar4", LDR_E_WINDOW_NAME}, {"y", "bar6", LDR_OK},
		{"bar40", "z", LDR_E_WINDOW_NAME}, /* BAR 40 is no BAR: not BAR 4's either */
		{"bar04", "z", LDR_OK},     /* not barN (tns_find reads no leading zeros) */
		{"bar", "z", LDR_OK},       {"bar4x", "z", LDR_OK},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct hwxw_window win[3] = {{"x", 5, LDR_WIN_INPUT, 0x80},
						   {cases[i].y, 4, LDR_WIN_OUTPUT, 0x80},
						   {cases[i].z, 6, LDR_WIN_OUTPUT, 0x80}};
		size_t len = two_copy_hwx(b, sizeof b, win, 3);
		REQUIRE(len);
		enum ldr_err e = ldr_load(b, len, 0, p);
		CHECKF(e == cases[i].want, "%s, %s: %s", cases[i].y, cases[i].z, ldr_err_name(e));
	}
	CHECK_STR(ldr_err_name(LDR_E_WINDOW_NAME), "bad_window_name");
	/* concat.hwx's input_1 renamed input_0 (the same length: patched in place) */
	uint8_t *f;
	size_t flen;
	if (test_shared_dir() && !test_read_file(test_shared_path("fixtures/hwx/concat.hwx"), &f, &flen)) {
		REQUIRE(ldr_load(f, flen, 0, p) == LDR_OK);
		uint8_t *at = NULL;
		for (size_t i = 0; i + 8 <= flen && !at; i++)
			if (!memcmp(f + i, "input_1", 8))
				at = f + i;
		REQUIRE(at);
		at[6] = '0';
		CHECK_EQ(ldr_load(f, flen, 0, p), LDR_E_WINDOW_NAME);
		at[6] = '2'; /* a name of its own: the control */
		CHECK_EQ(ldr_load(f, flen, 0, p), LDR_OK);
		free(f);
	}
}

/* The weights section is found by name in any case: the guide's __KERN_0 and the newer
 * compiler's __kern_0 (docs/formats.md); only the upper case had been, so a __kern_0 program's
 * weights BAR was no weights BAR (conv_kern_lower.hwx refused relocation-not-applied). A second
 * weights section is refused by name (several_weights_sections): one BAR holds the weights. */
TEST(loader, weights_in_a_kern_section_of_either_case)
{
	static uint8_t b[0x20000];
	size_t len = two_copy_hwx(b, sizeof b, xyz_windows, 3);
	REQUIRE(len);
	static struct ldr_program prog;
	struct ldr_program *p = &prog;
	size_t k = sect_hdr_at(b, len, "__TEXT", "__const");
	REQUIRE(k);
	static const char *const names[] = {"__const", "__kern_0", "__KERN_0", "__Kern_1", "__kern"};
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
		set_name16(b + k + SECT_NAME_OFF, names[i]);
		enum ldr_err e = ldr_load(b, len, 0, p);
		CHECKF(e == LDR_OK, "%s: %s", names[i], ldr_err_name(e));
		CHECKF(p->weights_sect >= 0 && p->weights_len == 64 && ldr_weights_bar(p, 1), "%s",
		       names[i]);
	}
	set_name16(b + k + SECT_NAME_OFF, "__kerm_0"); /* no weights section */
	CHECK_EQ(ldr_load(b, len, 0, p), LDR_OK);
	CHECK(p->weights_sect < 0 && !ldr_weights_bar(p, 1));
	/* a second section with file bytes (the input window made a file-backed segment over the
	 * weights' own 64 bytes' file range is an overlap; over the load commands' bytes it is not) */
	set_name16(b + k + SECT_NAME_OFF, "__kern_0");
	REQUIRE(ldr_load(b, len, 0, p) == LDR_OK);
	size_t seg = seg_cmd_at(b, len, p->bars[5]);
	REQUIRE(seg);
	size_t xs = seg + SEG_CMD_BYTES, nm = HWX_HEADER_BYTES;
	for (uint32_t i = 0; i < le_rd32(b + HWX_H_NCMDS); i++) { /* x's name: a command skipped */
		if (le_rd32(b + nm) == LC_IDFVMLIB && le_rd32(b + nm + FVMLIB_ADDR_OFF) == p->bars[5])
			le_wr32(b + nm, 0x1b); /* LC_UUID, which the loader does not read */
		nm += le_rd32(b + nm + LC_CMDSIZE_OFF);
	}
	le_wr64(b + seg + SEG_FILEOFF_OFF, 0);
	le_wr64(b + seg + SEG_FILESIZE_OFF, 0x80);
	le_wr32(b + xs + SECT_OFFSET_OFF, 0);
	set_name16(b + xs + SECT_NAME_OFF, "__kern_1");
	CHECK_EQ(ldr_load(b, len, 0, p), LDR_E_WEIGHTS_SECTS);
	set_name16(b + xs + SECT_NAME_OFF, "__KERN_1");
	CHECK_EQ(ldr_load(b, len, 0, p), LDR_E_WEIGHTS_SECTS);
	set_name16(b + xs + SECT_NAME_OFF, "__data1"); /* not a weights section: the control */
	CHECK_EQ(ldr_load(b, len, 0, p), LDR_OK);
	CHECK_STR(ldr_err_name(LDR_E_WEIGHTS_SECTS), "several_weights_sections");
	/* conv.hwx with its __const renamed __kern_0: the relocations patch its weights' address */
	uint8_t *f;
	size_t flen;
	if (test_shared_dir() && !test_read_file(test_shared_path("fixtures/hwx/conv.hwx"), &f, &flen)) {
		size_t fk = sect_hdr_at(f, flen, "__TEXT", "__const");
		REQUIRE(fk);
		set_name16(f + fk + SECT_NAME_OFF, "__kern_0");
		REQUIRE(ldr_load(f, flen, 0, p) == LDR_OK);
		CHECK_EQ(p->weights_len, 0xc0u);
		CHECK(p->weights_sect >= 0);
		unsigned to_weights = 0;
		for (unsigned r = 0; r < p->nrelocs; r++)
			to_weights += p->relocs[r].target_sect == p->weights_sect;
		CHECK_EQ(to_weights, 3u);
		free(f);
	}
}
