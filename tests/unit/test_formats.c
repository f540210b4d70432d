/* Kernel formats, feature bytes and the stream-or-fold gates against guide-07/25/36. */
#include "fw/formats/formats.h"
#include "tests/harness/harness.h"

TEST(formats, kernel_format_ranges)
{
	unsigned pal = 0, unity = 0;
	for (unsigned f = 0; f < 64; f++) {
		CHECK_EQ(kfmt_valid(f), f >= 1 && f <= 31);
		CHECK_EQ(kfmt_is_palette(f), f >= 7 && f <= 27);
		CHECK_EQ(kfmt_is_unity(f), f >= 28 && f <= 30);
		pal += kfmt_is_palette(f);
		unity += kfmt_is_unity(f);
		struct kfmt_row r;
		CHECK_EQ(kfmt_row(f, &r) == 0, kfmt_valid(f));
	}
	CHECK_EQ(pal, 21);
	CHECK_EQ(unity, 3);
	CHECK_EQ(kfmt_palette_lut_size(4, 1), 32);
	CHECK_EQ(kfmt_palette_lut_size(8, 1), 512);
	CHECK_EQ(kfmt_palette_lut_size(8, 3), 1536);
	CHECK_EQ(kfmt_palette_lut_size(9, 1), 0);
	CHECK_EQ(kfmt_palette_lut_size(8, UINT64_MAX / 100), 0);
}

TEST(formats, element_and_tensor_codes)
{
	CHECK_STR(etype_name(2), "int8");
	CHECK_STR(etype_name(3), "uint8");
	CHECK_STR(etype_name(5), "half");
	CHECK_STR(etype_name(8), "lut");
	CHECK_STR(etype_name(9), "uint4");
	CHECK_STR(etype_name(16), "fp8");
	CHECK_STR(etype_name(23), "int4");
	CHECK(etype_name(4) == NULL);
	CHECK_EQ(etype_bits(23), 4);
	CHECK_EQ(etype_bits(5), 16);
	CHECK_STR(tfmt_name(0xc), "e4m3");
	CHECK_STR(tfmt_name(0xd), "e5m2");
	CHECK_EQ(tfmt_bytes(0xb), 4);
	CHECK_EQ(tfmt_bytes(0xe), 2);
	/* (code < 0xe) & (0x2ff0 >> code): E5M2 folds by DMA conversion, E4M3 does not */
	for (unsigned c = 0; c < 32; c++) {
		int want = c < 0xe && ((0x2ff0u >> c) & 1u);
		CHECK_EQ(tfmt_dma_convertible_to_fp16(c), want);
	}
	CHECK(tfmt_dma_convertible_to_fp16(0xd));
	CHECK(!tfmt_dma_convertible_to_fp16(0xc));
	CHECK(tfmt_dma_convertible_to_fp16(0xb));
	CHECK(!tfmt_dma_convertible_to_fp16(0x3));
	/* CheckValidDMAFormat: codes below 0xb always valid; E4M3 against 0x52d */
	for (unsigned c = 0; c < CHIP__COUNT; c++) {
		CHECK_EQ(tfmt_dma_valid((enum chip)c, 0x3), 1);
		CHECK_EQ(tfmt_dma_valid((enum chip)c, 0xc), c == CHIP_H18);
		CHECK_EQ(tfmt_dma_valid((enum chip)c, 0xb), FMT_UNSPECIFIED);
	}
}

TEST(formats, feature_bytes_table_7_2)
{
	static const struct {
		unsigned off;
		int v[5]; /* H13 H14 H15 H16 H17 */
	} t72[] = {
		{0x48f, {1, 1, 1, 1, 1}}, {0x528, {0, 1, 1, 1, 1}}, {0x532, {0, 1, 1, 1, 1}},
		{0x537, {0, 1, 1, 1, 1}}, {0x520, {0, 0, 1, 1, 1}}, {0x523, {0, 0, 1, 1, 1}},
		{0x533, {0, 0, 1, 1, 1}}, {0x539, {0, 0, 1, 1, 1}}, {0x529, {1, 1, 1, 1, 1}},
	};
	for (unsigned i = 0; i < sizeof(t72) / sizeof(t72[0]); i++)
		for (unsigned c = 0; c < 5; c++) {
			int inf = -1;
			CHECK_EQ(chip_feature((enum chip)c, t72[i].off, &inf), t72[i].v[c]);
			CHECK_EQ(inf, 0);
		}
	for (unsigned c = 0; c < CHIP__COUNT; c++) {
		CHECK_EQ(chip_feature((enum chip)c, 0x52d, NULL), c == CHIP_H18);
		CHECK_EQ(chip_feature((enum chip)c, 0x48b, NULL), 0);
	}
	CHECK_EQ(chip_feature(CHIP_H13, 0x200, NULL), 65536);
	CHECK_EQ(chip_feature(CHIP_H14, 0x210, NULL), FMT_UNSPECIFIED);
	CHECK_EQ(chip_feature(CHIP_H13, 0x521, NULL), FMT_UNSPECIFIED);
	int inf = 0;
	CHECK_EQ(chip_feature(CHIP_H18, 0x528, &inf), 1);
	CHECK_EQ(inf, 1);
	CHECK_EQ(chip_td_version(CHIP_H13), 5);
	enum chip c;
	CHECK_EQ(chip_from_name("H13", &c), 0);
	CHECK_EQ(c, CHIP_H13);
	CHECK_EQ(chip_from_name("h18", &c), 0);
	CHECK_EQ(c, CHIP_H18);
	CHECK_EQ(chip_from_name("H19", &c), -1);
	CHECK_EQ(chip_from_name("H1", &c), -1);
	CHECK_EQ(chip_from_name("H130", &c), -1);
	CHECK_EQ(chip_from_name("", &c), -1);
}

TEST(formats, palette_vector_mask_0x36)
{
	for (unsigned v = 0; v < 40; v++)
		CHECK_EQ(palette_vector_legal(v), v == 1 || v == 2 || v == 4 || v == 5);
}

TEST(formats, gates_reproduce_table_7_1)
{
	/* rows: int8, int4 LUT, sparse, blockwise; columns H13 H14 H15 H16 H17 H18 (1 = stream) */
	static const enum wform forms[4] = {WFORM_INT8, WFORM_PALETTE, WFORM_SPARSE, WFORM_BLOCKWISE};
	static const int t71[4][6] = {
		{0, 1, 1, 1, 1, 1},
		{1, 1, 1, 1, 1, 1},
		{1, 1, 1, 1, 1, 1},
		{0, 0, 1, 1, 1, 1},
	};
	for (unsigned r = 0; r < 4; r++)
		for (unsigned c = 0; c < CHIP__COUNT; c++) {
			struct wdesc w = wdesc_default(forms[r]);
			struct gate_decision d = gate_decide((enum chip)c, &w);
			CHECK_EQ(d.verdict, t71[r][c] ? GATE_STREAM : GATE_FOLD);
			CHECK(d.why && d.why[0]);
		}
}

TEST(formats, gate_conditions)
{
	struct wdesc w = wdesc_default(WFORM_PALETTE);
	w.mutable_weight = 1;
	CHECK_EQ(gate_decide(CHIP_H17, &w).verdict, GATE_FOLD);
	w = wdesc_default(WFORM_SPARSE);
	w.non_unit_stride = 1;
	CHECK_EQ(gate_decide(CHIP_H13, &w).verdict, GATE_FOLD);
	w = wdesc_default(WFORM_INT8);
	w.dilated = 1;
	CHECK_EQ(gate_decide(CHIP_H15, &w).verdict, GATE_FOLD);
	w = wdesc_default(WFORM_BLOCKWISE);
	w.tile_overlap = 1;
	CHECK_EQ(gate_decide(CHIP_H15, &w).verdict, GATE_FOLD);
	/* palette widths per descriptor version */
	w = wdesc_default(WFORM_PALETTE);
	w.palette_bits = 8;
	CHECK_EQ(gate_decide(CHIP_H13, &w).verdict, GATE_STREAM);
	w.palette_bits = 6;
	CHECK_EQ(gate_decide(CHIP_H13, &w).verdict, GATE_FOLD);
	CHECK_EQ(gate_decide(CHIP_H14, &w).verdict, GATE_STREAM);
	w.palette_bits = 2;
	CHECK_EQ(gate_decide(CHIP_H15, &w).verdict, GATE_FOLD);
	w.palette_bits = 5;
	CHECK_EQ(gate_decide(CHIP_H15, &w).verdict, GATE_REFUSE);
	w.palette_bits = 4;
	w.vector = 3;
	CHECK_EQ(gate_decide(CHIP_H15, &w).verdict, GATE_REFUSE);
	w.vector = 5;
	CHECK_EQ(gate_decide(CHIP_H13, &w).verdict, GATE_STREAM);
	w.vector = 1;
	w.groups = 2;
	CHECK_EQ(gate_decide(CHIP_H13, &w).verdict, GATE_REFUSE);
	CHECK_EQ(gate_decide(CHIP_H14, &w).verdict, GATE_STREAM);
	/* asymmetric int8 on the M1; E4M3 by chip */
	w = wdesc_default(WFORM_INT8);
	w.asymmetric = 1;
	CHECK_EQ(gate_decide(CHIP_H13, &w).verdict, GATE_REFUSE);
	CHECK_EQ(gate_decide(CHIP_H14, &w).verdict, GATE_STREAM);
	w = wdesc_default(WFORM_E4M3);
	for (unsigned c = 0; c < CHIP__COUNT; c++)
		CHECK_EQ(gate_decide((enum chip)c, &w).verdict, c == CHIP_H18 ? GATE_STREAM : GATE_REFUSE);
	CHECK_EQ(gate_decide((enum chip)99, &w).verdict, GATE_REFUSE);
}

TEST(formats, bytes_moved_reproduces_guide_figures)
{
	struct bytes_out o;
	/* structured sparsity at 63% zeros: ~0.43x the dense fp16 bytes, streamed on the M1 */
	struct wdesc w = wdesc_default(WFORM_SPARSE);
	struct bytes_in in = {1000000, 370000, 0, 0};
	REQUIRE(bytes_moved(CHIP_H13, &w, &in, &o) == BYTES_OK);
	CHECK_EQ(o.gate.verdict, GATE_STREAM);
	CHECK_EQ(o.moved * 100 / o.dense_fp16, 43);
	/* int4 palette: a quarter plus the 32-byte codebook */
	w = wdesc_default(WFORM_PALETTE);
	REQUIRE(bytes_moved(CHIP_H13, &w, &in, &o) == BYTES_OK);
	CHECK_EQ(o.moved, 500000 + 32);
	/* int8 on the M1 folds: 1.0x; on the M2 it streams at about half */
	w = wdesc_default(WFORM_INT8);
	in.scales = 1000;
	REQUIRE(bytes_moved(CHIP_H13, &w, &in, &o) == BYTES_OK);
	CHECK_EQ(o.moved, o.dense_fp16);
	CHECK_EQ(o.stored, 1000000 + 2000);
	REQUIRE(bytes_moved(CHIP_H14, &w, &in, &o) == BYTES_OK);
	CHECK_EQ(o.moved, 1002000);
	/* inconsistent inputs */
	w = wdesc_default(WFORM_SPARSE);
	in.nonzeros = 2000000;
	CHECK_EQ(bytes_moved(CHIP_H13, &w, &in, &o), BYTES_E_SIZES);
	in.elements = UINT64_MAX;
	CHECK_EQ(bytes_moved(CHIP_H13, &w, &in, &o), BYTES_E_OVERFLOW);
	CHECK_EQ(bytes_moved(CHIP_H13, NULL, &in, &o), BYTES_E_ARG);
}
