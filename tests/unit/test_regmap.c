/* Register maps as data: lookups, fields and coverage of the H13 task-descriptor blocks. */
#include "fw/regmap/regmap.h"
#include "fw/regmap/h13.h"
#include <stdio.h>
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
	/* the seven blocks of an H13 TD hold 62+16+28+18+4+5+7 words, and the firmware's two
	 * kernel-stream blocks 14+4 */
	CHECK_EQ(g->nslots, 140 + 18);
	/* the stored count is the sum of the blocks' words (a stale table fails here) */
	unsigned words = 0;
	for (unsigned b = 0; b < g->nblocks; b++)
		words += g->blocks[b].nwords;
	CHECK_EQ(g->nslots, words);
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
	/* slots are dense and invert, and every name fits RM_NAME_MAX */
	for (unsigned s = 0; s < g->nslots; s++) {
		uint32_t a;
		char name[RM_NAME_MAX + 8];
		REQUIRE(rm_slot_addr(g, s, &a) == 0);
		REQUIRE(rm_lookup(g, a, &l) == 0);
		CHECK_EQ(l.slot, s);
		rm_loc_name(&l, name, sizeof name);
		CHECK(strlen(name) < RM_NAME_MAX);
	}
	char nm[RM_NAME_MAX];
	REQUIRE(rm_lookup(g, H13_COEFF_BASEADDR(3), &l) == 0);
	rm_loc_name(&l, nm, sizeof nm);
	CHECK_STR(nm, "KernelDMASrc.CoeffBaseAddr[3]");
	REQUIRE(rm_lookup(g, 0x1f800, &l) == 0);
	rm_loc_name(&l, nm, sizeof nm);
	CHECK_STR(nm, "KernelDMASrc.Rsvd_0x000");
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

/* Every named address and field of fw/regmap/h13.h is the register map's: same register name,
 * same field position and width. */
static const struct rm_field *field_of(const struct rm_gen *g, uint32_t addr, const char *reg,
				       const char *field)
{
	struct rm_loc l;
	if (rm_lookup(g, addr, &l) != 0 || !l.reg || strcmp(l.reg->name, reg))
		return NULL;
	for (unsigned f = 0; f < l.reg->nfields; f++)
		if (!strcmp(l.reg->fields[f].name, field))
			return &l.reg->fields[f];
	return NULL;
}

static int h13_field_is(const struct rm_gen *g, uint32_t addr, const char *reg, const char *field,
			unsigned lsb, unsigned width)
{
	const struct rm_field *f = field_of(g, addr, reg, field);
	return f && f->lsb == lsb && f->width == width;
}

#define H13_IS(addr, reg, field, F) h13_field_is(g, addr, reg, field, F##_LSB, F##_W)

TEST(regmap, h13_names_match_the_map)
{
	const struct rm_gen *g = rm_gen_by_number(13);
	REQUIRE(g && g->blocks);
	static const struct {
		const char *name;
		uint32_t base, words;
	} blks[] = {{"Common", H13_BLK_COMMON, H13_BLK_COMMON_WORDS},
		     {"L2", H13_BLK_L2, H13_BLK_L2_WORDS},
		     {"Planar", H13_BLK_PLANAR, H13_BLK_PLANAR_WORDS},
		     {"NE", H13_BLK_NE, H13_BLK_NE_WORDS},
		     {"TileDMASrc", H13_BLK_TILESRC, H13_BLK_TILESRC_WORDS},
		     {"TileDMADst", H13_BLK_TILEDST, H13_BLK_TILEDST_WORDS},
		     {"KernelDMASrc", H13_BLK_KDMA, H13_BLK_KDMA_WORDS}};
	for (unsigned i = 0; i < sizeof blks / sizeof blks[0]; i++) {
		struct rm_loc l;
		CHECK(rm_lookup(g, blks[i].base, &l) == 0 && l.block_off == 0 &&
		      !strcmp(l.block->name, blks[i].name) && l.block->nwords == blks[i].words);
	}
	CHECK(H13_IS(H13_COMMON_INDIM, "InDim", "Win", H13_INDIM_WIN));
	CHECK(H13_IS(H13_COMMON_INDIM, "InDim", "Hin", H13_INDIM_HIN));
	CHECK(H13_IS(H13_COMMON_CHCFG, "ChCfg", "InFmt", H13_CHCFG_INFMT));
	CHECK(H13_IS(H13_COMMON_CHCFG, "ChCfg", "OutFmt", H13_CHCFG_OUTFMT));
	CHECK(H13_IS(H13_COMMON_CIN, "Cin", "Cin", H13_CIN));
	CHECK(H13_IS(H13_COMMON_INDEPTH, "InDepth", "InDepth", H13_INDEPTH));
	CHECK(H13_IS(H13_COMMON_OUTDEPTH, "OutDepth", "OutDepth", H13_OUTDEPTH));
	CHECK(H13_IS(H13_COMMON_COUT, "Cout", "Cout", H13_COUT));
	CHECK(H13_IS(H13_COMMON_OUTDIM, "OutDim", "Wout", H13_OUTDIM_WOUT));
	CHECK(H13_IS(H13_COMMON_OUTDIM, "OutDim", "Hout", H13_OUTDIM_HOUT));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Kw", H13_CONVCFG_KW));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Kh", H13_CONVCFG_KH));
	CHECK(H13_IS(H13_COMMON_GROUPCONVCFG, "GroupConvCfg", "NumGroups", H13_GROUPCONV_NUMGROUPS));
	CHECK(H13_IS(H13_COMMON_TILECFG, "TileCfg", "TileHeight", H13_TILECFG_TILEHEIGHT));
	CHECK(H13_IS(H13_COMMON_PEROUTE, "PERoute", "PERoute", H13_PEROUTE));
	CHECK(H13_IS(H13_COMMON_PECFG, "PECfg", "Src1Broadcast", H13_CPECFG_SRC1BCAST));
	CHECK(H13_IS(H13_COMMON_PECFG, "PECfg", "Src2Broadcast", H13_CPECFG_SRC2BCAST));
	CHECK(H13_IS(H13_COMMON_PECFG, "PECfg", "Src1Transpose", H13_CPECFG_SRC1TRANSPOSE));
	CHECK(H13_IS(H13_COMMON_PECFG, "PECfg", "Src2Transpose", H13_CPECFG_SRC2TRANSPOSE));
	CHECK(H13_IS(H13_COMMON_CFG, "Cfg", "OutTranspose", H13_CFG_OUTTRANSPOSE));
	CHECK(H13_IS(H13_COMMON_CFG, "Cfg", "TaskType", H13_CFG_TASKTYPE));
	CHECK(H13_IS(H13_COMMON_CFG, "Cfg", "SmallSourceMode", H13_CFG_SMALLSOURCE));
	CHECK(H13_IS(H13_NE_KERNELCFG, "KernelCfg", "SparseFmt", H13_KERNELCFG_SPARSEFMT));
	CHECK(H13_IS(H13_L2_CFG, "L2Cfg", "Src2ReLU", H13_L2CFG_SRC2RELU));
	CHECK(H13_IS(H13_COMMON_GROUPCONVCFG, "GroupConvCfg", "UnicastEn", H13_GROUPCONV_UNICASTEN));
	CHECK(H13_IS(H13_COMMON_GROUPCONVCFG, "GroupConvCfg", "UnicastCin", H13_GROUPCONV_UNICASTCIN));
	CHECK(H13_IS(H13_NE_KERNELCFG, "KernelCfg", "KernelFmt", H13_KERNELCFG_KERNELFMT));
	CHECK(H13_IS(H13_NE_KERNELCFG, "KernelCfg", "GroupKernelReuse", H13_KERNELCFG_GROUPKERNELREUSE));
	CHECK(H13_IS(H13_NE_KERNELCFG, "KernelCfg", "Align", H13_KERNELCFG_ALIGN));
	/* the datapath's fields (engine/model/compute.c, docs/engine-model.md) */
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "OCGSize", H13_CONVCFG_OCGSIZE));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Sx", H13_CONVCFG_SX));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Sy", H13_CONVCFG_SY));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Px", H13_CONVCFG_PX));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Py", H13_CONVCFG_PY));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "OpMode", H13_MACCFG_OPMODE));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "KernelMode", H13_MACCFG_KERNELMODE));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "BiasMode", H13_MACCFG_BIASMODE));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "BinaryPoint", H13_MACCFG_BINARYPOINT));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "MatrixBiasEn", H13_MACCFG_MATRIXBIASEN));
	CHECK(H13_IS(H13_NE_MATRIXVECTORBIAS, "MatrixVectorBias", "MatrixVectorBias", H13_MATRIXVECTORBIAS));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "PostScaleMode", H13_MACCFG_POSTSCALEMODE));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "Bit20", H13_MACCFG_BIT20));
	CHECK(H13_IS(H13_NE_POSTSCALE, "PostScale", "PostScale", H13_POSTSCALE));
	CHECK(H13_IS(H13_NE_POSTSCALE, "PostScale", "PostRightShift", H13_POSTSCALE_RSHIFT));
	CHECK(H13_IS(H13_NE_ACCBIAS, "AccBias", "AccBias", H13_ACCBIAS));
	CHECK(H13_IS(H13_NE_ACCBIAS, "AccBias", "AccBiasShift", H13_ACCBIAS_SHIFT));
	CHECK(H13_IS(H13_PLANAR_CFG, "Cfg", "PoolMode", H13_PECFG_POOLMODE));
	CHECK(H13_IS(H13_PLANAR_CFG, "Cfg", "OpMode", H13_PECFG_OPMODE));
	CHECK(H13_IS(H13_PLANAR_CFG, "Cfg", "ReluEn", H13_PECFG_RELUEN));
	CHECK(H13_IS(H13_PLANAR_CFG, "Cfg", "Condition", H13_PECFG_CONDITION));
	CHECK(H13_IS(H13_PLANAR_CFG, "Cfg", "NLMode", H13_PECFG_NLMODE));
	CHECK(H13_IS(H13_PLANAR_CFG, "Cfg", "FirstSrc", H13_PECFG_FIRSTSRC));
	CHECK(H13_IS(H13_PLANAR_CFG, "Cfg", "SecSrc", H13_PECFG_SECSRC));
	CHECK(H13_IS(H13_PLANAR_BIASSCALE, "BiasScale", "Bias", H13_BIASSCALE_BIAS));
	CHECK(H13_IS(H13_PLANAR_BIASSCALE, "BiasScale", "Scale", H13_BIASSCALE_SCALE));
	CHECK(H13_IS(H13_PLANAR_PRESCALE, "PreScale", "PreScale", H13_PRESCALE));
	CHECK(H13_IS(H13_PLANAR_PRESCALE, "PreScale", "Eps", H13_PRESCALE_EPS));
	CHECK(field_of(g, H13_PLANAR_FINALSCALE, "FinalScale", "FinalScale") != NULL);
	CHECK(H13_IS(H13_L2_SOURCECFG, "SourceCfg", "SourceType", H13_L2_SOURCETYPE));
	CHECK(H13_IS(H13_L2_RESULTCFG, "ResultCfg", "ResultType", H13_L2_RESULTTYPE));
	CHECK(H13_IS(H13_L2_SOURCEBASE, "SourceBase", "Addr", H13_L2_ADDR));
	CHECK(H13_IS(H13_L2_RESULTBASE, "ResultBase", "Addr", H13_L2_ADDR));
	CHECK(H13_IS(H13_L2_SOURCE2BASE, "Source2Base", "Addr", H13_L2_ADDR));
	CHECK(H13_IS(H13_SRC_FMT, "Fmt", "Interleave", H13_FMT_INTERLEAVE));
	CHECK(H13_IS(H13_DST_FMT, "Fmt", "Interleave", H13_FMT_INTERLEAVE));
	CHECK(H13_IS(H13_DST_FMT, "Fmt", "ZeroPadLast", H13_DSTFMT_ZEROPADLAST));
	CHECK(H13_IS(H13_SRC_FMT, "Fmt", "Shift", H13_FMT_SHIFT));
	CHECK(H13_IS(H13_DST_FMT, "Fmt", "Shift", H13_FMT_SHIFT));
	CHECK(H13_IS(H13_SRC_FMT, "Fmt", "OffsetCh", H13_FMT_OFFSETCH));
	CHECK(H13_IS(H13_DST_FMT, "Fmt", "OffsetCh", H13_FMT_OFFSETCH));
	CHECK(H13_IS(H13_SRC_FMT, "Fmt", "CmpVec", H13_FMT_CMPVEC));
	CHECK(H13_IS(H13_DST_FMT, "Fmt", "CmpVec", H13_FMT_CMPVEC));
	CHECK(H13_IS(H13_DST_FMT, "Fmt", "CmpVecFill", H13_DSTFMT_CMPVECFILL));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Ox", H13_CONVCFG_OX));
	CHECK(H13_IS(H13_COMMON_CONVCFG, "ConvCfg", "Oy", H13_CONVCFG_OY));
	CHECK(H13_IS(H13_L2_SOURCECFG, "SourceCfg", "Dependent", H13_L2SRC_DEPENDENT));
	CHECK(H13_IS(H13_L2_SOURCECFG, "SourceCfg", "Src2DMA", H13_L2SRC_SRC2DMA));
	CHECK(H13_IS(H13_L2_SOURCECFG, "SourceCfg", "Src2Dependent", H13_L2SRC_SRC2DEP));
	for (unsigned k = 0; k < 2; k++) {
		uint32_t a = k ? H13_L2_RESULTCFG : H13_L2_SOURCECFG;
		const char *r = k ? "ResultCfg" : "SourceCfg";
		CHECK(H13_IS(a, r, "DMAFmt", H13_L2_DMAFMT));
		CHECK(H13_IS(a, r, "DMAInterleave", H13_L2_DMAINTERLEAVE));
		CHECK(H13_IS(a, r, "DMACmpVec", H13_L2_DMACMPVEC));
		CHECK(H13_IS(a, r, "DMAOffsetCh", H13_L2_DMAOFFSETCH));
	}
	for (unsigned k = 0; k < 2; k++) {
		uint32_t a = k ? H13_DST_FMT : H13_SRC_FMT;
		CHECK(H13_IS(a, "Fmt", "FmtMode", H13_FMT_FMTMODE));
		CHECK(H13_IS(a, "Fmt", "Truncate", H13_FMT_TRUNCATE));
		CHECK(H13_IS(a, "Fmt", "MemFmt", H13_FMT_MEMFMT));
	}
	for (unsigned n = 0; n < H13_SRC_NPIXELOFFSET; n++)
		CHECK(H13_IS(H13_SRC_PIXELOFFSET(n), "PixelOffset", "Offset", H13_PIXELOFFSET));
	CHECK(!h13_field_is(g, H13_SRC_PIXELOFFSET(H13_SRC_NPIXELOFFSET), "PixelOffset", "Offset", 0, 16));
	CHECK(H13_IS(H13_L2_CFG, "L2Cfg", "InputReLU", H13_L2CFG_INPUTRELU));
	CHECK(H13_IS(H13_L2_CFG, "L2Cfg", "PaddingMode", H13_L2CFG_PADDINGMODE));
	CHECK(H13_IS(H13_COMMON_GROUPCONVCFG, "GroupConvCfg", "ElemMultMode", H13_GROUPCONV_ELEMMULTMODE));
	CHECK(H13_IS(H13_NE_KERNELCFG, "KernelCfg", "PalettizedEn", H13_KERNELCFG_PALETTIZEDEN));
	CHECK(H13_IS(H13_NE_KERNELCFG, "KernelCfg", "PalettizedBits", H13_KERNELCFG_PALETTIZEDBITS));
	CHECK(H13_IS(H13_NE_KERNELCFG, "KernelCfg", "SparseFmt", H13_KERNELCFG_SPARSEFMT));
	CHECK(H13_IS(H13_NE_MACCFG, "MACCfg", "NonlinearMode", H13_MACCFG_NONLINEARMODE));
	CHECK(H13_IS(H13_SRC_DMACONFIG, "DMAConfig", "En", H13_DMA_EN));
	CHECK(H13_IS(H13_DST_DMACONFIG, "DMAConfig", "En", H13_DMA_EN));
	CHECK(H13_IS(H13_SRC_DMACONFIG, "DMAConfig", "CacheHint", H13_DMA_CACHEHINT));
	CHECK(H13_IS(H13_DST_DMACONFIG, "DMAConfig", "CacheHint", H13_DMA_CACHEHINT));
	CHECK(H13_IS(H13_COEFF_DMACONFIG(0), "CoeffDMAConfig", "CacheHint", H13_DMA_CACHEHINT));
	{
		struct rm_loc l;
		CHECK(rm_lookup(g, H13_BLK_KDMA, &l) == 0 && !strcmp(l.block->name, "KernelDMASrc") &&
		      l.block->base == H13_BLK_KDMA);
	}
	CHECK(H13_IS(H13_SRC_BASEADDR, "BaseAddr", "Addr", H13_ADDR));
	CHECK(H13_IS(H13_DST_BASEADDR, "BaseAddr", "Addr", H13_ADDR));
	CHECK(H13_IS(H13_SRC2_BASEADDR, "Src2BaseAddr", "Addr", H13_ADDR));
	static const uint32_t src[] = {H13_SRC_ROWSTRIDE, H13_SRC_PLANESTRIDE, H13_SRC_DEPTHSTRIDE,
				       H13_SRC_GROUPSTRIDE, H13_SRC2_ROWSTRIDE, H13_SRC2_PLANESTRIDE,
				       H13_SRC2_DEPTHSTRIDE, H13_SRC2_GROUPSTRIDE};
	static const char *const srcn[] = {"RowStride", "PlaneStride", "DepthStride", "GroupStride",
					   "Src2RowStride", "Src2PlaneStride", "Src2DepthStride",
					   "Src2GroupStride"};
	for (unsigned i = 0; i < 8; i++) {
		struct rm_loc l;
		CHECK(rm_lookup(g, src[i], &l) == 0 && l.reg && !strcmp(l.reg->name, srcn[i]) &&
		      l.reg->fields[0].lsb == H13_ADDR_LSB && l.reg->fields[0].width == H13_ADDR_W);
	}
	CHECK(field_of(g, H13_DST_ROWSTRIDE, "RowStride", "RowStride") != NULL);
	CHECK(field_of(g, H13_DST_GROUPSTRIDE, "GroupStride", "GroupStride") != NULL);
	CHECK(field_of(g, H13_DST_PLANESTRIDE, "PlaneStride", "PlaneStride") != NULL);
	CHECK(field_of(g, H13_DST_DEPTHSTRIDE, "DepthStride", "DepthStride") != NULL);
	{
		struct rm_loc l;
		CHECK(rm_lookup(g, H13_SRC2_DMACONFIG, &l) == 0 && l.reg &&
		      !strcmp(l.reg->name, "Src2DMAConfig"));
	}
	for (unsigned c = 0; c < H13_COEFF_NCH; c++) {
		struct rm_loc l;
		CHECK(h13_field_is(g, H13_COEFF_DMACONFIG(c), "CoeffDMAConfig", "En", 0, 1));
		CHECK(rm_lookup(g, H13_COEFF_BASEADDR(c), &l) == 0 && l.index == c &&
		      !strcmp(l.reg->name, "CoeffBaseAddr"));
		CHECK(rm_lookup(g, H13_COEFF_BFRSIZE(c), &l) == 0 && l.index == c &&
		      !strcmp(l.reg->name, "CoeffBfrSize"));
	}
	static const char *const ks[H13_KSTREAM_N] = {"Bias", "PostScale", "Palette", "ActLUT"};
	for (unsigned s = 0; s < H13_KSTREAM_N; s++) {
		char n[40];
		struct rm_loc l;
		snprintf(n, sizeof n, "%s.Enable", ks[s]);
		CHECK(rm_lookup(g, H13_KSTREAM_ENABLE(s), &l) == 0 && l.reg && !strcmp(l.reg->name, n) &&
		      l.block->fw_only);
		snprintf(n, sizeof n, "%s.BaseOffset", ks[s]);
		CHECK(rm_lookup(g, H13_KSTREAM_BASEOFFSET(s), &l) == 0 && l.reg &&
		      !strcmp(l.reg->name, n) && l.block->fw_only);
		snprintf(n, sizeof n, "%s.Reloc", ks[s]);
		CHECK(rm_lookup(g, H13_KSTREAM_RELOC(s), &l) == 0 && l.reg && !strcmp(l.reg->name, n) &&
		      l.block->fw_only);
	}
	/* the generation's own layout fields agree */
	CHECK_EQ(g->coeff.cfg, H13_COEFF_DMACONFIG(0));
	CHECK_EQ(g->coeff.base, H13_COEFF_BASEADDR(0));
	CHECK_EQ(g->coeff.size, H13_COEFF_BFRSIZE(0));
	CHECK_EQ(g->nl_addr, H13_NE_MACCFG);
	CHECK_EQ(g->td_header_bytes, H13_TD_HEADER_BYTES);
	CHECK_EQ(g->td_default_bytes, H13_TD_DEFAULT_BYTES);
	/* negative: a wrong position is told apart */
	CHECK(!h13_field_is(g, H13_COMMON_CHCFG, "ChCfg", "OutFmt", 5, 2));
	CHECK(!h13_field_is(g, H13_NE_MACCFG, "KernelCfg", "NonlinearMode", 16, 2));
}

/* rm_field_mask: a field's bits in place; the fields of Common.InDim leave bits 15 and 31 */
TEST(regmap, field_masks_in_place)
{
	const struct rm_field whole = {"W", 0, 32}, mid = {"M", 4, 3}, top = {"T", 31, 1};
	CHECK_EQ(rm_field_mask(&whole), 0xffffffffu);
	CHECK_EQ(rm_field_mask(&mid), 0x70u);
	CHECK_EQ(rm_field_mask(&top), 0x80000000u);
	const struct rm_gen *g = rm_gen_by_number(13);
	struct rm_loc loc;
	REQUIRE(g && rm_lookup(g, H13_COMMON_INDIM, &loc) == 0 && loc.reg);
	uint32_t known = 0;
	for (unsigned f = 0; f < loc.reg->nfields; f++)
		known |= rm_field_mask(&loc.reg->fields[f]);
	CHECK_EQ(known, 0x7fff7fffu);
}

/* rm_slot (the hot paths' lookup: slot and block only) agrees with rm_lookup at every word of
 * the H13 address space, and refuses what it refuses */
TEST(regmap, slot_lookup_agrees_with_the_full_lookup)
{
	const struct rm_gen *g = rm_gen_by_number(13);
	REQUIRE(g);
	unsigned found = 0, bad = 0;
	for (uint32_t a = 0; a < 0x40000u; a += 4) {
		struct rm_loc l;
		const struct rm_block *b = NULL;
		int full = rm_lookup(g, a, &l), slot = rm_slot(g, a, &b);
		if (full != 0)
			bad += slot != -1;
		else
			bad += slot != (int)l.slot || b != l.block, found++;
	}
	CHECK_EQ(bad, 0u);
	CHECK_EQ(found, g->nslots);
	CHECK_EQ(rm_slot(g, H13_COMMON_CIN + 2, NULL), -1);
	CHECK_EQ(rm_slot(NULL, H13_COMMON_CIN, NULL), -1);
	CHECK(rm_slot(g, H13_COMMON_CIN, NULL) >= 0);
}
