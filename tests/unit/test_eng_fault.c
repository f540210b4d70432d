/* The model fails loudly (issue 21 §1; docs/engine-model.md, "Faults"): a TD the model cannot
 * interpret stops the run with a structured fault (engine/engine.h, struct eng_fault) naming the
 * TD, the register field from the register map, its value and why; one test per refusal class
 * on an edited copy of a real fixture (host and target), the one formatting function, and the
 * packed form a completion carries to a remote client. */
#include "tests/harness/harness.h"

#include "tests/unit/tsession.h"
#include "drivers/dma/dma.h"
#include "engine/engine.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"
#include "tools/progdesc/benchprog.h"

#include <stdlib.h>
#include <string.h>

/* Reads a shared fixture; sets the field (lsb, width) of TD td's last write of reg to v. */
static uint8_t *ef_load(const char *path, size_t *len)
{
	uint8_t *buf;
	if (test_read_file(test_shared_path(path), &buf, len))
		return NULL;
	return buf;
}

/* TD td's last write of reg in buf: field (lsb, width) set to v (tsession's tpatch_field) */
static int ef_set(uint8_t *buf, size_t len, unsigned td, uint32_t reg, unsigned lsb,
		  unsigned width, uint32_t v)
{
	return tpatch_field(buf, len, td, reg, lsb, width, v);
}

/* The run fails with engine-fault at td, reason, and the formatted line holds want. Returns 1
 * when all of that holds (the checker: also used on wrong answers below). */
static int ef_refused(const uint8_t *buf, size_t len, int td, unsigned reason, const char *want,
		      struct session_result *res)
{
	struct tcapture cap;
	cap.n = 0;
	int rc = tsubmit(buf, len, 0, NULL, 0, 1, 0, tcapture_out, &cap, NULL, res);
	return rc == 1 && res->run == ENG_E_FAULT && res->fault.td == td &&
	       res->fault.reason == reason && strstr(res->fault_text, want) &&
	       strstr(cap.text, "submit: engine failed: engine-fault: ") && res->canaries_ok;
}

TEST(eng_fault, each_refusal_class_names_td_field_value_and_why)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixtures are not edited");
	size_t len;
	struct session_result res;
	/* an activation record the model cannot read: sigmoid.hwx's mode word (slot 42) */
	uint8_t *b = ef_load("fixtures/hwx/sigmoid.hwx", &len);
	REQUIRE(b && len > 0x4280 + 86);
	le_wr16(b + 0x4280 + 84, 0x1234);
	CHECKF(ef_refused(b, len, 0, ENG_FR_ACT_RECORD, "slot 42 = 0x1234", &res), "%s",
	       res.fault_text);
	CHECK(strstr(res.fault_text, "td 0, unit NE, KernelDMASrc.CoeffBaseAddr[0] = 0x") != NULL);
	CHECK_EQ(res.fault.slot, 42);
	CHECK_EQ(res.fault.slot_value, 0x1234u);
	free(b);
	/* a field value with no modelled meaning: relu.hwx with NE.MACCfg.NonlinearMode 3 */
	b = ef_load("fixtures/hwx/relu.hwx", &len);
	REQUIRE(b);
	REQUIRE(ef_set(b, len, 0, H13_NE_MACCFG, H13_MACCFG_NONLINEARMODE_LSB,
		       H13_MACCFG_NONLINEARMODE_W, 3) == 0);
	CHECKF(ef_refused(b, len, 0, ENG_FR_FIELD,
			  "td 0, unit NE, NE.MACCfg.NonlinearMode = 0x3: unmodelled-field: ", &res),
	       "%s", res.fault_text);
	CHECK_EQ(res.fault.reg, H13_NE_MACCFG);
	CHECK_EQ(res.fault.value, 3u);
	free(b);
	/* a combination it does not model: sigmoid.hwx writing an int8 output through a UINT8 tile
	 * DMA (as Apple's bool results leave) while L2.ResultCfg.DMAFmt stays 16-bit */
	b = ef_load("fixtures/hwx/sigmoid.hwx", &len);
	REQUIRE(b);
	REQUIRE(ef_set(b, len, 0, H13_COMMON_CHCFG, H13_CHCFG_OUTFMT_LSB, H13_CHCFG_OUTFMT_W,
		       H13_FMT_INT8) == 0);
	REQUIRE(ef_set(b, len, 0, H13_DST_FMT, 0, 14, TD_TILE_FMT_UINT8) == 0);
	CHECKF(ef_refused(b, len, 0, ENG_FR_COMBINATION,
			  "td 0, unit L2, L2.ResultCfg.DMAFmt = 0x1: unmodelled-combination: ", &res),
	       "%s", res.fault_text);
	free(b);
	/* a fault in a later TD names that TD: concat.hwx's TD 1 */
	b = ef_load("fixtures/hwx/concat.hwx", &len);
	REQUIRE(b);
	REQUIRE(ef_set(b, len, 1, H13_NE_MACCFG, H13_MACCFG_NONLINEARMODE_LSB,
		       H13_MACCFG_NONLINEARMODE_W, 3) == 0);
	CHECKF(ef_refused(b, len, 1, ENG_FR_FIELD, "td 1, unit NE, NE.MACCfg.NonlinearMode = 0x3",
			  &res), "%s", res.fault_text);
	/* the checker fails on a wrong answer: another TD, another reason, a completed run */
	CHECK(!ef_refused(b, len, 0, ENG_FR_FIELD, "td 1", &res));
	CHECK(!ef_refused(b, len, 1, ENG_FR_COMBINATION, "td 1", &res));
	free(b);
	b = ef_load("fixtures/hwx/relu.hwx", &len);
	REQUIRE(b);
	CHECK(!ef_refused(b, len, 0, ENG_FR_FIELD, "td 0", &res));
	CHECK_EQ(res.run, ENG_OK);
	CHECK_STR(res.fault_text, "");
	free(b);
}

/* The NE's and the data path's fields the model reads no meaning from are refused at any value
 * no real program holds
 * (docs/engine-model.md, "Registers the model interprets"); the values real programs hold run. */
TEST(eng_fault, unread_fields_refused_unless_at_the_real_programs_values)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixtures are not edited");
	static const struct {
		uint32_t reg;
		unsigned lsb, width;
		uint32_t v;
		const char *want;
	} cases[] = {
		{H13_NE_MACCFG, H13_MACCFG_BIASMODE_LSB, H13_MACCFG_BIASMODE_W, 1, "NE.MACCfg.BiasMode = 0x1: unmodelled-field"},
		{H13_NE_MACCFG, H13_MACCFG_MATRIXBIASEN_LSB, H13_MACCFG_MATRIXBIASEN_W, 1, "NE.MACCfg.MatrixBiasEn = 0x1: unmodelled-field"},
		{H13_NE_MACCFG, H13_MACCFG_POSTSCALEMODE_LSB, H13_MACCFG_POSTSCALEMODE_W, 1, "NE.MACCfg.PostScaleMode = 0x1: unmodelled-field"},
		{H13_NE_MACCFG, H13_MACCFG_BINARYPOINT_LSB, H13_MACCFG_BINARYPOINT_W, 5, "NE.MACCfg.BinaryPoint = 0x5: unmodelled-field"},
		{H13_NE_MACCFG, 24, 1, 1, "bits outside the fields the model knows"},
		{H13_NE_MACCFG, H13_MACCFG_KERNELMODE_LSB, H13_MACCFG_KERNELMODE_W, 0, "NE.MACCfg.KernelMode = 0x0: unmodelled-field"},
		/* what silicon did otherwise than the plain reading (allbilly/ane expt.md expt1): an
		 * infinite or NaN PostScale, TileHeight 0 (hung) */
		{H13_NE_POSTSCALE, H13_POSTSCALE_LSB, H13_POSTSCALE_W, 0xffff, "NE.PostScale.PostScale = 0xffff: unmodelled-field: NE.PostScale infinite or NaN"},
		{H13_NE_POSTSCALE, H13_POSTSCALE_LSB, H13_POSTSCALE_W, 0x7c00, "NE.PostScale.PostScale = 0x7c00: unmodelled-field: NE.PostScale infinite or NaN"},
		{H13_COMMON_TILECFG, H13_TILECFG_TILEHEIGHT_LSB, H13_TILECFG_TILEHEIGHT_W, 0, "Common.TileCfg.TileHeight = 0x0: unmodelled-field"},
		/* set by every real NE configuration; clear, silicon's sigmoid differed */
		{H13_NE_MACCFG, H13_MACCFG_BIT20_LSB, H13_MACCFG_BIT20_W, 0, "NE.MACCfg.Bit20 = 0x0: unmodelled-field: NE.MACCfg.Bit20 clear"},
		{H13_NE_MATRIXVECTORBIAS, H13_MATRIXVECTORBIAS_LSB, H13_MATRIXVECTORBIAS_W, 0x3c00, "NE.MatrixVectorBias.MatrixVectorBias = 0x3c00: unmodelled-field"},
		{H13_NE_POSTSCALE, H13_POSTSCALE_RSHIFT_LSB, H13_POSTSCALE_RSHIFT_W, 2, "NE.PostScale.PostRightShift = 0x2: unmodelled-field"},
		/* the data path's (data_unread_fields) */
		{H13_L2_CFG, H13_L2CFG_INPUTRELU_LSB, H13_L2CFG_INPUTRELU_W, 1, "L2.L2Cfg.InputReLU = 0x1: unmodelled-field"},
		{H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_ELEMMULTMODE_LSB, H13_GROUPCONV_ELEMMULTMODE_W, 1, "Common.GroupConvCfg.ElemMultMode = 0x1: unmodelled-field"},
		/* a task type no modelled program has (1, 7 and above) */
		{H13_COMMON_CFG, H13_CFG_TASKTYPE_LSB, H13_CFG_TASKTYPE_W, 7, "Common.Cfg.TaskType = 0x7: unmodelled-field"},
		/* an input depth other than the output's (Apple's layer_norm: 8 and 8 on its reductions),
		 * 0 too, and Common +0x20 (0x2041 in every real TD) */
		{H13_COMMON_INDEPTH, 0, 16, 8, "Common.InDepth = 0x8: unmodelled-field: Common.InDepth other than 1 not modelled but equal to OutDepth"},
		{H13_COMMON_OUTDEPTH, 0, 16, 2, "Common.OutDepth = 0x2: unmodelled-field: Common.OutDepth other than 1 not modelled but equal to InDepth"},
		{H13_COMMON_INDEPTH, 0, 32, 0, "Common.InDepth = 0x0: unmodelled-field: Common.InDepth other than 1 not modelled but equal to OutDepth"},
		{H13_COMMON_WORD20, 0, 32, 0x2042, "Common.Rsvd_0x020 = 0x2042: unmodelled-field: Common +0x20 other than 0x2041"},
		{H13_COMMON_WORD20, 16, 1, 1, "Common.Rsvd_0x020 = 0x12041: unmodelled-field: Common +0x20 other than 0x2041"},
		/* words the map does not name: a bit no real program sets there (tanh.bin holds 0 at
		 * TileDMASrc +0x44 and 0x100 at +0x40, as real programs do) */
		{H13_BLK_TILESRC + 0x44u, 0, 1, 1, "TileDMASrc.Rsvd_0x044 = 0x1: unmodelled-field: a word the register map does not name"},
		{H13_BLK_TILESRC + 0x40u, 9, 1, 1, "TileDMASrc.Rsvd_0x040 = 0x300: unmodelled-field: a word the register map does not name"},
		{H13_BLK_KDMA + 0xc8u, 8, 1, 1, "KernelDMASrc.Rsvd_0x0c8 = 0x180: unmodelled-field: a word the register map does not name"},
		/* the second tile source's format on a TD with no second operand by tile DMA */
		{H13_SRC2_FMT, 0, 32, TD_TILE_FMT_SRC2_FP16, "TileDMASrc.Src2Fmt = 0x2030: unmodelled-field: TileDMASrc.Src2Fmt set on a TD whose second operand does not come by the tile DMA"},
		/* the NE's channel products (Apple's pow) without their GroupConvCfg fields */
		{H13_NE_MACCFG, H13_MACCFG_OPMODE_LSB, H13_MACCFG_OPMODE_W, H13_MAC_OP_RCAS, "NE.MACCfg.OpMode = 0x2: unmodelled-field: NE.MACCfg.OpMode 2 without Common.GroupConvCfg.ElemMultMode"},
		{H13_SRC_FMT, H13_FMT_SHIFT_LSB, H13_FMT_SHIFT_W, 1, "TileDMASrc.Fmt.Shift = 0x1: unmodelled-field"},
		{H13_SRC_FMT, H13_FMT_OFFSETCH_LSB, H13_FMT_OFFSETCH_W, 2, "TileDMASrc.Fmt.OffsetCh = 0x2: unmodelled-field"},
		{H13_DST_FMT, H13_FMT_CMPVEC_LSB, H13_FMT_CMPVEC_W, 3, "TileDMADst.Fmt.CmpVec = 0x3: unmodelled-field"},
		{H13_DST_FMT, H13_DSTFMT_CMPVECFILL_LSB, H13_DSTFMT_CMPVECFILL_W, 1, "TileDMADst.Fmt.CmpVecFill = 0x1: unmodelled-field"},
		{H13_SRC_PIXELOFFSET(1), H13_PIXELOFFSET_LSB, H13_PIXELOFFSET_W, 8, "TileDMASrc.PixelOffset[1].Offset = 0x8: unmodelled-field"},
		/* found unread by anefw-tool census, one value in every real program */
		{H13_COMMON_CONVCFG, H13_CONVCFG_OX_LSB, H13_CONVCFG_OX_W, 2, "Common.ConvCfg.Ox = 0x2: unmodelled-field"},
		{H13_COMMON_CONVCFG, H13_CONVCFG_OY_LSB, H13_CONVCFG_OY_W, 3, "Common.ConvCfg.Oy = 0x3: unmodelled-field"},
		{H13_L2_SOURCECFG, H13_L2SRC_DEPENDENT_LSB, H13_L2SRC_DEPENDENT_W, 1, "L2.SourceCfg.Dependent = 0x1: unmodelled-field"},
		/* 2 only with a first operand from L2 memory (Apple's softmax), not a tile source */
		{H13_L2_SOURCECFG, H13_L2SRC_DEPENDENT_LSB, H13_L2SRC_DEPENDENT_W, 2, "L2.SourceCfg.Dependent = 0x2: unmodelled-field"},
		{H13_L2_SOURCECFG, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W, 3, "L2.SourceCfg.DMAInterleave = 0x3: unmodelled-field"},
		{H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 2, "L2.ResultCfg.DMAFmt = 0x2: unmodelled-field"},
		{H13_L2_RESULTCFG, H13_L2_DMAOFFSETCH_LSB, H13_L2_DMAOFFSETCH_W, 1, "L2.ResultCfg.DMAOffsetCh = 0x1: unmodelled-field"},
		/* the first operand from L2 memory (as Apple's macOS 26 programs read one) while
		 * tanh.bin's tile source stays enabled and bound: which one is read is not known */
		{H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W, 0, "L2.SourceCfg.SourceType = 0x0: unmodelled-field"},
		/* the result left in L2 memory while tanh.bin's tile destination stays enabled and
		 * bound, and ResultType 1, which no program has */
		{H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W, 0, "L2.ResultCfg.ResultType = 0x0: unmodelled-field"},
		{H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W, 1, "L2.ResultCfg.ResultType = 0x1: unmodelled-field"},
		/* 0 too where every real program holds another value (fw/td's td_fixed) */
		{H13_COMMON_CONVCFG, H13_CONVCFG_OX_LSB, H13_CONVCFG_OX_W, 0, "Common.ConvCfg.Ox = 0x0: unmodelled-field"},
		{H13_L2_SOURCECFG, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W, 0, "L2.SourceCfg.DMAInterleave = 0x0: unmodelled-field"},
		{H13_L2_RESULTCFG, H13_L2_DMAFMT_LSB, H13_L2_DMAFMT_W, 0, "L2.ResultCfg.DMAFmt = 0x0: unmodelled-field"},
		{H13_L2_RESULTCFG, H13_L2_DMAINTERLEAVE_LSB, H13_L2_DMAINTERLEAVE_W, 0, "L2.ResultCfg.DMAInterleave = 0x0: unmodelled-field"},
		{H13_SRC_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, 0, "TileDMASrc.Fmt.Interleave = 0x0: unmodelled-field"},
		{H13_DST_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, 0, "TileDMADst.Fmt.Interleave = 0x0: unmodelled-field"},
		{H13_SRC_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, 3, "TileDMASrc.Fmt.Interleave = 0x3: unmodelled-field"},
		{H13_SRC_FMT, H13_FMT_TRUNCATE_LSB, H13_FMT_TRUNCATE_W, 1, "unmodelled-field: TileDMASrc.Fmt's FmtMode, Truncate and MemFmt of an enabled DMA other than"},
		{H13_DST_FMT, H13_FMT_MEMFMT_LSB, H13_FMT_MEMFMT_W, 1, "unmodelled-field: TileDMADst.Fmt's FmtMode, Truncate and MemFmt of an enabled DMA other than"},
		{H13_DST_FMT, H13_FMT_FMTMODE_LSB, H13_FMT_FMTMODE_W, 0, "unmodelled-field: TileDMADst.Fmt's FmtMode, Truncate and MemFmt of an enabled DMA other than"},
		{H13_COMMON_INDIM, 15, 1, 1, "Common.InDim = 0x"},
		{H13_SRC_BASEADDR, 2, 1, 1, "TileDMASrc.BaseAddr = 0x"},
		{H13_NE_POSTSCALE, 24, 1, 1, "NE.PostScale = 0x"},
	};
	size_t len;
	struct session_result res;
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t *b = ef_load("fixtures/kernels/unary/tanh.bin", &len);
		REQUIRE(b);
		REQUIRE(ef_set(b, len, 0, cases[i].reg, cases[i].lsb, cases[i].width, cases[i].v) == 0);
		CHECKF(ef_refused(b, len, 0, ENG_FR_FIELD, cases[i].want, &res), "case %u: %s", i,
		       res.fault_text);
		CHECK_EQ(res.fault.reg, cases[i].reg);
		free(b);
	}
	/* interleave 8 on the tile source with its L2 side at 1: the two disagree (both 8 compute:
	 * model_pe.channel_interleave_written_and_read_back) */
	uint8_t *il = ef_load("fixtures/kernels/unary/tanh.bin", &len);
	REQUIRE(il);
	REQUIRE(ef_set(il, len, 0, H13_SRC_FMT, H13_FMT_INTERLEAVE_LSB, H13_FMT_INTERLEAVE_W, 8) == 0);
	CHECKF(ef_refused(il, len, 0, ENG_FR_COMBINATION, "L2.SourceCfg.DMAInterleave = 0x1: unmodelled-combination",
			  &res), "%s", res.fault_text);
	CHECK_EQ(res.fault.reg, H13_L2_SOURCECFG);
	free(il);
	/* the NE's channel maxima (Apple's reduce_max over C; tanh.bin's elementwise NE has UnicastEn
	 * 1, UnicastCin 1, so OpMode 3 there is the largest of one channel) without UnicastEn */
	uint8_t *u = ef_load("fixtures/kernels/unary/tanh.bin", &len);
	REQUIRE(u);
	REQUIRE(ef_set(u, len, 0, H13_NE_MACCFG, H13_MACCFG_OPMODE_LSB, H13_MACCFG_OPMODE_W, H13_MAC_OP_CHMAX) == 0);
	REQUIRE(ef_set(u, len, 0, H13_COMMON_GROUPCONVCFG, H13_GROUPCONV_UNICASTEN_LSB, H13_GROUPCONV_UNICASTEN_W, 0) == 0);
	CHECKF(ef_refused(u, len, 0, ENG_FR_FIELD, "NE.MACCfg.OpMode = 0x3: unmodelled-field: NE.MACCfg.OpMode 3 "
						  "without Common.GroupConvCfg.UnicastEn 1", &res),
	       "%s", res.fault_text);
	free(u);
	/* a convolution's KernelCfg beyond the fields real ones set (conv.hwx: 0x82; Align, bit 16,
	 * runs on its dense 1x1 fp16 kernels: tests/unit/test_model_bias.c) */
	static const struct {
		unsigned lsb;
		const char *want;
	} kc[] = {{H13_KERNELCFG_GROUPKERNELREUSE_LSB, "NE.KernelCfg.GroupKernelReuse = 0x1: unmodelled-field"},
		  {17, "NE.KernelCfg = 0x20082: unmodelled-field: NE.KernelCfg has bits outside"}};
	for (unsigned i = 0; i < sizeof kc / sizeof kc[0]; i++) {
		uint8_t *c = ef_load("fixtures/hwx/conv.hwx", &len);
		REQUIRE(c);
		REQUIRE(ef_set(c, len, 0, H13_NE_KERNELCFG, kc[i].lsb, 1, 1) == 0);
		CHECKF(ef_refused(c, len, 0, ENG_FR_FIELD, kc[i].want, &res), "%s", res.fault_text);
		free(c);
	}
	/* L2.PaddingMode with padding (softmax.bin's 1 pads nothing and runs) */
	uint8_t *c = ef_load("fixtures/hwx/conv.hwx", &len);
	REQUIRE(c);
	REQUIRE(ef_set(c, len, 0, H13_L2_CFG, H13_L2CFG_PADDINGMODE_LSB, H13_L2CFG_PADDINGMODE_W, 1) == 0);
	CHECK(!ef_refused(c, len, 0, ENG_FR_COMBINATION, "td 0", &res));
	CHECK_EQ(res.run, ENG_OK);
	REQUIRE(ef_set(c, len, 0, H13_COMMON_CONVCFG, H13_CONVCFG_PX_LSB, H13_CONVCFG_PX_W, 1) == 0);
	CHECKF(ef_refused(c, len, 0, ENG_FR_COMBINATION, "L2.L2Cfg.PaddingMode = 0x1: unmodelled-combination", &res),
	       "%s", res.fault_text);
	free(c);
	/* the PE's PreScale bits 0-15 (where the layer norm's epsilon goes) on add.bin */
	uint8_t *a = ef_load("fixtures/kernels/binary/add.bin", &len);
	REQUIRE(a);
	REQUIRE(ef_set(a, len, 0, H13_PLANAR_PRESCALE, 0, 16, 0x00a8u) == 0);
	CHECKF(ef_refused(a, len, 0, ENG_FR_FIELD, "Planar.PreScale bits 0-15 not modelled", &res), "%s",
	       res.fault_text);
	free(a);
	/* add.bin's second operand by tile DMA in another format than its 0x2030 (MemFmt 0), or with
	 * Src2Fmt 0: refused; its own 0x2030 runs (the first check of this test's relu.hwx style) */
	static const uint32_t f2[2] = {H13_PUT(H13_FMT_TRUNCATE, 3u), 0};
	for (unsigned i = 0; i < 2; i++) {
		a = ef_load("fixtures/kernels/binary/add.bin", &len);
		REQUIRE(a);
		CHECK(!ef_refused(a, len, 0, ENG_FR_FIELD, "td 0", &res));
		CHECK_EQ(res.run, ENG_OK);
		REQUIRE(ef_set(a, len, 0, H13_SRC2_FMT, 0, 32, f2[i]) == 0);
		CHECKF(ef_refused(a, len, 0, ENG_FR_FIELD, "TileDMASrc.Src2Fmt other than 0x2030 (fp16", &res),
		       "%u: %s", i, res.fault_text);
		free(a);
	}
	/* a bit outside every field the map names: the refusal says so */
	uint8_t *o = ef_load("fixtures/kernels/unary/tanh.bin", &len);
	REQUIRE(o);
	REQUIRE(ef_set(o, len, 0, H13_COMMON_OUTDIM, 31, 1, 1) == 0);
	CHECKF(ef_refused(o, len, 0, ENG_FR_FIELD, "a bit outside every field the register map names is set", &res),
	       "%s", res.fault_text);
	CHECK_EQ(res.fault.reg, H13_COMMON_OUTDIM);
	free(o);
	/* the source format softmax.bin TD 4 uses (1, 0, 0) runs on tanh.bin's source */
	o = ef_load("fixtures/kernels/unary/tanh.bin", &len);
	REQUIRE(o);
	REQUIRE(ef_set(o, len, 0, H13_SRC_FMT, H13_FMT_TRUNCATE_LSB, H13_FMT_TRUNCATE_W, 0) == 0);
	REQUIRE(ef_set(o, len, 0, H13_SRC_FMT, H13_FMT_MEMFMT_LSB, H13_FMT_MEMFMT_W, 0) == 0);
	CHECK(!ef_refused(o, len, 0, ENG_FR_FIELD, "td 0", &res));
	CHECK_EQ(res.run, ENG_OK);
	free(o);
	/* the values real programs hold run: BinaryPoint 0 (relu.hwx's) and 28 (tanh.bin's own) */
	uint8_t *b = ef_load("fixtures/kernels/unary/tanh.bin", &len);
	REQUIRE(b);
	CHECK(!ef_refused(b, len, 0, ENG_FR_FIELD, "td 0", &res));
	CHECK_EQ(res.run, ENG_OK);
	REQUIRE(ef_set(b, len, 0, H13_NE_MACCFG, H13_MACCFG_BINARYPOINT_LSB, H13_MACCFG_BINARYPOINT_W, 0) == 0);
	CHECK(!ef_refused(b, len, 0, ENG_FR_FIELD, "td 0", &res));
	CHECK_EQ(res.run, ENG_OK);
	free(b);
}

/* A TD that is neither a convolution nor a pooling with a window, stride or padding other than
 * 1x1/1/0 (no real one has another: Common.ConvCfg was read by nothing there), and a reduction's
 * unread fields (softmax.bin's reductions skipped the checks every other TD has) */
TEST(eng_fault, elementwise_windows_and_reductions_fields_refused)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixtures are not edited");
	static const struct {
		const char *file;
		unsigned td, lsb, width, v, reason;
		uint32_t reg;
		const char *want;
	} cases[] = {
		{"fixtures/hwx/relu.hwx", 0, H13_CONVCFG_KW_LSB, H13_CONVCFG_KW_W, 3, ENG_FR_COMBINATION, H13_COMMON_CONVCFG,
		 "td 0, unit Common, Common.ConvCfg = 0x5000a023: unmodelled-combination: an elementwise TD (no convolution, no pooling) with a window"},
		{"fixtures/kernels/unary/tanh.bin", 0, H13_CONVCFG_SX_LSB, H13_CONVCFG_SX_W, 2, ENG_FR_COMBINATION, H13_COMMON_CONVCFG,
		 "unmodelled-combination: an elementwise TD (no convolution, no pooling) with a window"},
		{"fixtures/kernels/binary/add.bin", 0, H13_CONVCFG_KH_LSB, H13_CONVCFG_KH_W, 2, ENG_FR_COMBINATION, H13_COMMON_CONVCFG,
		 "unmodelled-combination: an elementwise TD (no convolution, no pooling) with a window"},
		/* OpMode 3 on tanh.bin's UnicastCin 1: the largest of one channel by the reading, but not
		 * a copy on silicon (expt2) */
		{"fixtures/kernels/unary/tanh.bin", 0, H13_MACCFG_OPMODE_LSB, H13_MACCFG_OPMODE_W, H13_MAC_OP_CHMAX, ENG_FR_COMBINATION, H13_NE_MACCFG,
		 "td 0, unit NE, NE.MACCfg.OpMode = 0x3: unmodelled-combination: NE.MACCfg.OpMode 3 with Common.GroupConvCfg.UnicastCin 1"},
		{"fixtures/kernels/activation/softmax.bin", 0, H13_L2CFG_INPUTRELU_LSB, H13_L2CFG_INPUTRELU_W, 1, ENG_FR_FIELD, H13_L2_CFG,
		 "td 0, unit L2, L2.L2Cfg.InputReLU = 0x1: unmodelled-field"},
		{"fixtures/kernels/activation/softmax.bin", 3, H13_FMT_SHIFT_LSB, H13_FMT_SHIFT_W, 1, ENG_FR_FIELD, H13_SRC_FMT,
		 "td 3, unit TileDMASrc, TileDMASrc.Fmt.Shift = 0x1: unmodelled-field"},
	};
	size_t len;
	struct session_result res;
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t *b = ef_load(cases[i].file, &len);
		REQUIRE(b);
		CHECKF(!ef_refused(b, len, (int)cases[i].td, cases[i].reason, "td", &res) && res.run == ENG_OK,
		       "case %u unedited: %s", i, res.fault_text);
		REQUIRE(ef_set(b, len, cases[i].td, cases[i].reg, cases[i].lsb, cases[i].width, cases[i].v) == 0);
		CHECKF(ef_refused(b, len, (int)cases[i].td, cases[i].reason, cases[i].want, &res), "case %u: %s", i,
		       res.fault_text);
		CHECK_EQ(res.fault.reg, cases[i].reg);
		free(b);
	}
}

/* The PE's presence is Common.Cfg.TaskType's (fw/td td_pe_in_path): TaskType 2 with a second
 * operand or 3 without, TaskType 2 or 3 with every Planar word 0, and TaskType and the TD header's
 * ENE disagreeing where the two readings differ are refused by name (no real TD has any;
 * docs/engine-model.md, "The planar engine's presence"); a TD with neither unit: 41-loud. */
TEST(eng_fault, planar_engine_presence_by_tasktype)
{
	if (!test_shared_dir())
		SKIP("../shared absent: the fixtures are not edited");
	static const struct {
		const char *file;
		unsigned n;
		struct {
			uint32_t reg;
			unsigned lsb, width, v;
		} e[4];
		uint32_t reg;
		const char *want;
	} cases[] = {
		{"fixtures/kernels/unary/abs.bin", 1, {{H13_PLANAR_CFG, H13_PECFG_SECSRC_LSB, H13_PECFG_SECSRC_W, H13_PE_SECSRC_TILE1}},
		 H13_COMMON_CFG, "unmodelled-combination: Common.Cfg.TaskType 2 with a second PE operand"},
		{"fixtures/kernels/binary/add.bin", 1, {{H13_COMMON_CFG, H13_CFG_TASKTYPE_LSB, H13_CFG_TASKTYPE_W, 2}},
		 H13_COMMON_CFG, "unmodelled-combination: Common.Cfg.TaskType 2 with a second PE operand"},
		{"fixtures/kernels/unary/abs.bin", 1, {{H13_COMMON_CFG, H13_CFG_TASKTYPE_LSB, H13_CFG_TASKTYPE_W, 3}},
		 H13_COMMON_CFG, "Common.Cfg.TaskType 2 with a second PE operand (Planar.Cfg.SecSrc 2 or 3), or 3 without"},
		{"fixtures/kernels/binary/add.bin", 4, {{H13_PLANAR_CFG, 0, 32, 0}, {H13_PLANAR_BIASSCALE, 0, 32, 0},
							 {H13_PLANAR_PRESCALE, 0, 32, 0}, {H13_PLANAR_FINALSCALE, 0, 32, 0}},
		 H13_COMMON_CFG, "Common.Cfg.TaskType puts the planar engine in the path but Planar.Cfg, BiasScale, PreScale and FinalScale are all 0"},
		/* the header's ENE (0 in abs.bin) and TaskType disagree, and the PE's words are set */
		{"fixtures/kernels/unary/abs.bin", 1, {{H13_COMMON_CFG, H13_CFG_TASKTYPE_LSB, H13_CFG_TASKTYPE_W, 0}},
		 H13_COMMON_CFG, "Common.Cfg.TaskType and the TD header's ENE disagree on the planar engine"},
	};
	size_t len;
	struct session_result res;
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t *b = ef_load(cases[i].file, &len);
		REQUIRE(b);
		CHECKF(!ef_refused(b, len, 0, ENG_FR_COMBINATION, "td", &res) && res.run == ENG_OK,
		       "case %u unedited: %s", i, res.fault_text);
		for (unsigned k = 0; k < cases[i].n; k++)
			REQUIRE(ef_set(b, len, 0, cases[i].e[k].reg, cases[i].e[k].lsb, cases[i].e[k].width,
				       cases[i].e[k].v) == 0);
		CHECKF(ef_refused(b, len, 0, ENG_FR_COMBINATION, cases[i].want, &res), "case %u: %s", i,
		       res.fault_text);
		CHECK_EQ(res.fault.reg, cases[i].reg);
		free(b);
	}
	/* and the other way: abs.bin (TaskType 2) with its header's ENE (word 8, bits 24-26) 1, as
	 * every real TD without the PE has it; relu.hwx (ENE 1, TaskType 0, Planar words 0) runs
	 * with ENE 0 (both readings leave the PE out) */
	uint8_t *b = ef_load("fixtures/kernels/unary/abs.bin", &len);
	REQUIRE(b && len > 64);
	le_wr32(b + 4u * 8u, le_rd32(b + 4u * 8u) | H13_PUT(H13_TDH_ENE, 1));
	CHECKF(ef_refused(b, len, 0, ENG_FR_COMBINATION, "the TD header's ENE disagree", &res), "%s", res.fault_text);
	free(b);
	b = ef_load("fixtures/hwx/relu.hwx", &len);
	REQUIRE(b && len > 0x4000u + 64u);
	REQUIRE(H13_GET(le_rd32(b + 0x4000u + 4u * 8u), H13_TDH_ENE) == 1u); /* its TD at __text, 0x4000 */
	le_wr32(b + 0x4000u + 4u * 8u, le_rd32(b + 0x4000u + 4u * 8u) & ~H13_PUT(H13_TDH_ENE, ~0u));
	CHECKF(!ef_refused(b, len, 0, ENG_FR_COMBINATION, "td", &res) && res.run == ENG_OK, "%s", res.fault_text);
	/* with a Planar word set too, the two readings differ: refused */
	REQUIRE(ef_set(b, len, 0, H13_PLANAR_FINALSCALE, 0, 32, 0x3f800000u) == 0);
	CHECKF(ef_refused(b, len, 0, ENG_FR_COMBINATION, "the TD header's ENE disagree", &res), "%s", res.fault_text);
	free(b);
}

TEST(eng_fault, packed_for_a_completion_formats_the_same)
{
	const struct eng_fault f = {.reason = ENG_FR_FIELD, .err = ENG_E_FAULT, .td = 3,
				    .reg = H13_NE_MACCFG, .lsb = H13_MACCFG_NONLINEARMODE_LSB,
				    .width = H13_MACCFG_NONLINEARMODE_W, .value = 3, .slot = -1,
				    .why = NULL};
	const struct rm_gen *g = rm_gen_by_number(13);
	REQUIRE(g != NULL);
	uint32_t w[ENG_FAULT_WORDS];
	eng_fault_pack(&f, w);
	struct eng_fault u;
	eng_fault_unpack(w, ENG_E_FAULT, &u);
	char a[ENG_FAULT_TEXT_MAX], b[ENG_FAULT_TEXT_MAX];
	eng_fault_format(&f, g, a, sizeof a);
	eng_fault_format(&u, g, b, sizeof b);
	CHECK_STR(a, b);
	CHECK_STR(a, "td 3, unit NE, NE.MACCfg.NonlinearMode = 0x3: unmodelled-field: a register "
		     "field or value with no modelled meaning");
	/* a record slot survives the packing; another TD formats differently */
	struct eng_fault r = {.reason = ENG_FR_ACT_RECORD, .err = ENG_E_FAULT, .td = 0,
			      .reg = H13_COEFF_BASEADDR(2), .value = 0x40007000u, .slot = 42,
			      .slot_value = 0x1234, .why = "mode word"};
	eng_fault_pack(&r, w);
	eng_fault_unpack(w, ENG_E_FAULT, &u);
	eng_fault_format(&u, g, b, sizeof b);
	CHECK_STR(b, "td 0, unit NE, KernelDMASrc.CoeffBaseAddr[2] = 0x40007000, record slot 42 = "
		     "0x1234: unreadable-activation-record: the activation LUT is selected but its "
		     "record cannot be read");
	r.td = 1;
	eng_fault_format(&r, g, a, sizeof a);
	CHECK(strcmp(a, b) != 0);
	/* no structured record: the TD and the engine error */
	const struct eng_fault n = {.reason = ENG_FR_NONE, .err = ENG_E_DMA, .td = 2,
				    .reg = ENG_FAULT_NO_REG, .slot = -1};
	eng_fault_format(&n, g, a, sizeof a);
	CHECK_STR(a, "td 2: engine-dma-error");
	/* with the cause's name (the model's DMA error) after it */
	struct eng_fault nw = n;
	nw.why = dma_err(DMA_E_HW)->name;
	eng_fault_format(&nw, g, a, sizeof a);
	CHECK_STR(a, "td 2: engine-dma-error: dma-controller-error");
	/* every engine error is a positive code with a name and a one-line text (a completion
	 * carries it as is) */
	for (int e = 1; e < ENG_E__COUNT; e++)
		CHECK(strcmp(eng_err_name(e), "engine-unknown-error") && eng_err_text(e)[0]);
	CHECK_STR(eng_err_name(ENG_E_FAULT), "engine-fault");
	CHECK_STR(eng_err_name(-ENG_E_FAULT), "engine-unknown-error");
	/* every reason has a name and a text */
	for (unsigned k = 0; k < ENG_FR__COUNT; k++)
		CHECK(eng_fault_reason_name(k)[0] && eng_fault_reason_text(k)[0]);
	CHECK_STR(eng_fault_reason_name(ENG_FR__COUNT), "unknown-fault-reason");
}

/* KernelFmt 1 kernels (docs/engine-model.md, "Registers"): the map names 1 uint8, Apple's H13 less
 * programs (less_bool_cast_1x375, less_bool_rr_1x64x1x1 and _375x1x1) compute less only if their
 * kernel byte 0xff is -1, so its bytes are read signed. A 16 -> 16 1x1 convolution (bp_conv) with
 * KernelFmt set to 1, every input 0.5: its fp16 weight -2^-8 (bytes 0x00, 0x9c) read as bytes is 8
 * weights of 0x9c a kernel, 8 x 0.5 x -100 = -400 (0xde40, numpy's fp16; the uint8 reading would
 * give 624, 0x60e0); the same bytes as KernelFmt 0 (int8) the same, and 2^-8 (0x00, 0x1c: 28,
 * which both readings agree on) 112 (0x5700). Until 2026-12-06 a byte 0x80..0xff was refused
 * (ambiguous-value). */
static void half_fill(void *ctx, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	(void)ctx;
	for (uint64_t i = 0; !is_weights && g->bar == BP_IN0_BAR && i + 2 <= g->size; i += 2)
		le_wr16(buf + i, 0x3800u); /* 0.5 */
}

static void first_out(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	if (!is_weights && g->bar == BP_OUT_BAR && g->size >= 2)
		*(uint16_t *)ctx = le_rd16(buf);
}

TEST(eng_fault, kernelfmt_1_bytes_are_read_signed)
{
	static uint8_t p[16384];
	struct session_result res;
	static const uint16_t weight[3] = {0x1c00u, 0x9c00u, 0x9c00u}, want[3] = {0x5700u, 0xde40u, 0xde40u};
	for (unsigned k = 0; k < 3; k++) {
		size_t len = bp_conv(p, sizeof p, 16, 16, 8, weight[k]);
		REQUIRE(len > 0);
		REQUIRE(tpatch_field(p, len, 0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT_LSB,
				     H13_KERNELCFG_KERNELFMT_W,
				     k == 2 ? H13_KERNELFMT_INT8 : H13_KERNELFMT_UINT8) == 0);
		uint16_t got = 0;
		const struct session_hooks h = {half_fill, first_out, &got, 0};
		int rc = tsubmit(p, len, LDR_F_RAW, NULL, 0, 1, 0, tnull_out, NULL, &h, &res);
		CHECKF(rc == 0 && res.run == ENG_OK, "k %u: %s", k, res.fault_text);
		CHECKF(got == want[k], "k %u: 0x%04x, want 0x%04x", k, got, want[k]);
	}
}
