/*
 * H13 (M1 / A14) register addresses and fields the firmware reads or writes, by name.
 *
 * The register map (regmap_tables.inc) is the one source of these facts: every macro here names
 * a register or field that the table also names, at the same address and position, and
 * tests/unit/test_regmap.c proves each one against the table. Logic uses these names, never raw
 * addresses or masks.
 */
#ifndef ANEFW_REGMAP_H13_H
#define ANEFW_REGMAP_H13_H

/* Field helpers: a field is (lsb, width). */
#define H13_FIELD_MASK(w) ((w) >= 32 ? 0xffffffffu : ((1u << (w)) - 1u))
#define H13_GET(v, f) (((uint32_t)(v) >> f##_LSB) & H13_FIELD_MASK(f##_W))
#define H13_PUT(f, x) (((uint32_t)(x) & H13_FIELD_MASK(f##_W)) << f##_LSB)

/* ---- Common ---- */
#define H13_COMMON_INDIM 0x00000u
#define H13_INDIM_WIN_LSB 0
#define H13_INDIM_WIN_W 15
#define H13_INDIM_HIN_LSB 16
#define H13_INDIM_HIN_W 15
#define H13_COMMON_CHCFG 0x00008u
#define H13_CHCFG_INFMT_LSB 0
#define H13_CHCFG_INFMT_W 2
#define H13_CHCFG_OUTFMT_LSB 4
#define H13_CHCFG_OUTFMT_W 2
#define H13_FMT_INT8 0u   /* 0 and 1: one-byte formats */
#define H13_FMT_UINT8 1u
#define H13_FMT_FP16 2u
#define H13_COMMON_CIN 0x0000cu
#define H13_CIN_LSB 0
#define H13_CIN_W 17
#define H13_COMMON_COUT 0x00010u
#define H13_COUT_LSB 0
#define H13_COUT_W 17
#define H13_COMMON_OUTDIM 0x00014u
#define H13_OUTDIM_WOUT_LSB 0
#define H13_OUTDIM_WOUT_W 15
#define H13_OUTDIM_HOUT_LSB 16
#define H13_OUTDIM_HOUT_W 15
#define H13_COMMON_CONVCFG 0x0001cu
#define H13_CONVCFG_KW_LSB 0
#define H13_CONVCFG_KW_W 5
#define H13_CONVCFG_KH_LSB 5
#define H13_CONVCFG_KH_W 5
#define H13_CONVCFG_OCGSIZE_LSB 10 /* log2 of the output channels a coefficient channel holds */
#define H13_CONVCFG_OCGSIZE_W 3
#define H13_CONVCFG_SX_LSB 13
#define H13_CONVCFG_SX_W 2
#define H13_CONVCFG_SY_LSB 15
#define H13_CONVCFG_SY_W 2
#define H13_CONVCFG_PX_LSB 17
#define H13_CONVCFG_PX_W 5
#define H13_CONVCFG_PY_LSB 22
#define H13_CONVCFG_PY_W 5
#define H13_CONVCFG_OX_LSB 28 /* 1 in every real program; unread, refused otherwise */
#define H13_CONVCFG_OX_W 2
#define H13_CONVCFG_OY_LSB 30
#define H13_CONVCFG_OY_W 2
/* Common+0x04 and +0x18 (pad0 and pad1 in the H13 map): 1 in every real program but Apple's H13
 * layer_norm over C, H and W, which has 8 in both where it reads its 64 x 8 x 8 input as 8 x 64 x
 * 8: an input and output depth, as the H16 map has (InDepth, OutDepth; fw/td td_depth). The model
 * computes a depth above 1 on reductions only (fw/td td_kept_of); elsewhere it is refused */
#define H13_COMMON_INDEPTH 0x00004u
#define H13_COMMON_OUTDEPTH 0x00018u
#define H13_INDEPTH_LSB 0
#define H13_INDEPTH_W 32
#define H13_OUTDEPTH_LSB 0
#define H13_OUTDEPTH_W 32
/* Common+0x20 (pad2 in the H13 map): 0x2041 in every real program (the fixtures' 29 TDs, Apple's
 * 63 in 64 programs rebuilt from a public listing, allbilly/ane's macOS streams). Its fields are
 * not known (the H14 map puts a 3-D window, ConvCfg3d, in the word after ConvCfg); the model reads
 * none and refuses any other value (fw/td's td_fixed) */
#define H13_COMMON_WORD20 0x00020u
#define H13_COMMON_WORD20_REAL 0x2041u
#define H13_COMMON_GROUPCONVCFG 0x00024u
#define H13_GROUPCONV_NUMGROUPS_LSB 0
#define H13_GROUPCONV_NUMGROUPS_W 13
/* UnicastEn, ElemMultMode, UnicastCin: with NE.MACCfg.OpMode 2, the product of each UnicastCin
 * consecutive input channels (Apple's H13 pow: 1, 1, 2); ElemMultMode 0 in every other program */
#define H13_GROUPCONV_UNICASTEN_LSB 14
#define H13_GROUPCONV_UNICASTEN_W 1
#define H13_GROUPCONV_ELEMMULTMODE_LSB 15
#define H13_GROUPCONV_ELEMMULTMODE_W 1
#define H13_GROUPCONV_UNICASTCIN_LSB 16
#define H13_GROUPCONV_UNICASTCIN_W 16
#define H13_COMMON_TILECFG 0x00028u
#define H13_TILECFG_TILEHEIGHT_LSB 0
#define H13_TILECFG_TILEHEIGHT_W 15
/*
 * Common+0x2c: no public map names it on H13; named from softmax.bin (docs/engine-model.md,
 * "Reductions into L2 memory"). PERoute (whole word): 9 on softmax.bin's two reductions (TDs 0
 * and 3), 0x44 on PE TDs with one source (abs.bin, sigmoid.bin TD 1, softmax.bin TD 1), 0x59 on PE
 * TDs with two (add.bin, mul.bin, softmax.bin TD 4), 4 on the macOS 14/26 a*b, 0 on NE-only TDs; 9
 * also on the macOS atan2 segment's two-source PE TDs that write by DMA; Apple's H13 softmax's
 * reductions have 6 (rows of 64). The H16 map's word before PECfg is PatchCfg (PatchWidth 0-3,
 * PatchHeight 4-8), and the values above read as log2 patch sizes: a tiling of the work, which the
 * model does not read (it computes whole rows).
 *
 * Common+0x30: PECfg, the fields the H16 map gives its PECfg word (freedomtan's H16 map, Common
 * +0x48: Src1Broadcast 0-3, Src2Broadcast 4-7, Src1Transpose 8, Src2Transpose 9), on the evidence
 * of Apple's H13 programs (docs/engine-model.md, "L2 memory and broadcasts"): a broadcast bit per
 * axis, W H D C from bit 0 (x[1,64,8,8] + z[1,64,1,1] sets Src2Broadcast W|H = 0x30, + z[1,1,8,8]
 * C = 0x80, + z[1,1,1,1] W|H|C = 0xb0, a tile along H Src1Broadcast H = 2); the transposes where a
 * [C,1,1] value is kept in L2 as one row of C (real_div and floor at 64x1x1). softmax.bin's
 * kept-value users are the W broadcasts: 0x10 on TD 1 (the row maximum, the second operand), 1 on
 * TD 4 (the row's 1/sum, the first).
 */
#define H13_COMMON_PEROUTE 0x0002cu
#define H13_PEROUTE_LSB 0
#define H13_PEROUTE_W 32
#define H13_PEROUTE_REDUCE 0x9u   /* on softmax.bin's reductions (TDs 0, 3), the atan2 segment's PE TDs */
#define H13_PEROUTE_ONE_SRC 0x44u /* the PE with one source (softmax.bin TD 1) */
#define H13_PEROUTE_TWO_SRC 0x59u /* the PE with two sources (softmax.bin TD 4, add, mul) */
#define H13_COMMON_PECFG 0x00030u
#define H13_CPECFG_SRC1BCAST_LSB 0
#define H13_CPECFG_SRC1BCAST_W 4
#define H13_CPECFG_SRC2BCAST_LSB 4
#define H13_CPECFG_SRC2BCAST_W 4
#define H13_CPECFG_SRC1TRANSPOSE_LSB 8
#define H13_CPECFG_SRC1TRANSPOSE_W 1
#define H13_CPECFG_SRC2TRANSPOSE_LSB 9
#define H13_CPECFG_SRC2TRANSPOSE_W 1
/* OutputTranspose (the H16 map's name, bit 10): the PE's result with C and W swapped. Set on the
 * reduction of Apple's reduce_sum and reduce_mean over C (0x400): its one value a plane (g, c)
 * leaves at element (g, 0, 0, c), the planes' values of a group side by side in one row. Read on
 * reductions only */
#define H13_CPECFG_OUTTRANSPOSE_LSB 10
#define H13_CPECFG_OUTTRANSPOSE_W 1
#define H13_BCAST_W 0x1u          /* broadcast axes, in Src1Broadcast and Src2Broadcast */
#define H13_BCAST_H 0x2u
#define H13_BCAST_D 0x4u
#define H13_BCAST_C 0x8u
/* softmax.bin's users of its reductions: the row's value broadcast along W as the second operand
 * (TD 1, PECfg 0x10) or the first (TD 4, PECfg 1) */
#define H13_PECFG_SRC2_BCAST_W (H13_BCAST_W << H13_CPECFG_SRC2BCAST_LSB)
#define H13_PECFG_SRC1_BCAST_W (H13_BCAST_W << H13_CPECFG_SRC1BCAST_LSB)
/* Common.Cfg: OutTranspose (bit 28) where Apple's H13 real_div and floor keep a [C,1,1] result in
 * L2 as one row of C (result channel stride 0x80 for 64 values); no map names the bit */
#define H13_COMMON_CFG 0x00034u
/* Common.Cfg.TaskType (bits 4-7, the H16 map's MacCfg TaskType): 0 on every NE TD, 2 on PE TDs
 * with one operand (abs.bin, sigmoid.bin TD 1), 3 with two (add.bin, mul.bin, softmax.bin TDs 1
 * and 4), 5 on every reduction (softmax.bin TDs 0 and 3; Apple's softmaxes and reduce_sum, mean,
 * max over H and W, whose results leave by DMA): 5 marks a reduction */
#define H13_CFG_TASKTYPE_LSB 4
#define H13_CFG_TASKTYPE_W 4
#define H13_TASK_REDUCE 5u
#define H13_TASK_PE_ONE 2u /* an elementwise PE TD with one operand */
#define H13_TASK_PE_TWO 3u /* with two (Planar.Cfg.SecSrc 2 or 3) */
/* 6: a reduction of two operands, each element (b - a) squared before the sum (Apple's H13
 * layer_norm, its variance: FirstSrc 1, SecSrc 2, OpMode 4); 4: a normalize, (a - p0) x p1 with
 * the pair (p0, p1) of each channel one Source2RowStride apart in L2 memory (layer_norm's last TD;
 * docs/engine-model.md, "Apple's H13 layer_norm") */
#define H13_TASK_NORMALIZE 4u
#define H13_TASK_REDUCE2 6u
#define H13_CFG_OUTTRANSPOSE_LSB 28
#define H13_CFG_OUTTRANSPOSE_W 1
/* Common.Cfg.SmallSourceMode (bit 2): with phase-sparse kernels (NE.KernelCfg.SparseFmt) a tap
 * takes at least 4 slots when set, 2 when clear (Apple's H13 stride-2 convolutions, their
 * constant sections rebuilt byte for byte: docs/codecs.md, "Phase-sparse kernels") */
#define H13_CFG_SMALLSOURCE_LSB 2
#define H13_CFG_SMALLSOURCE_W 1

/* ---- NE ---- */
#define H13_NE_KERNELCFG 0x0c800u
#define H13_KERNELCFG_KERNELFMT_LSB 0
#define H13_KERNELCFG_KERNELFMT_W 2
#define H13_KERNELCFG_PALETTIZEDEN_LSB 2
#define H13_KERNELCFG_PALETTIZEDEN_W 1
#define H13_KERNELCFG_PALETTIZEDBITS_LSB 4
#define H13_KERNELCFG_PALETTIZEDBITS_W 4
/* SparseFmt: the coefficient channels hold phase-sparse kernels (fw/codec's codec_pkern), as
 * Apple's H13 compiler writes every stride-2 convolution (KernelCfg 0x182) */
#define H13_KERNELCFG_SPARSEFMT_LSB 8
#define H13_KERNELCFG_SPARSEFMT_W 1
/* SparseBinary: bit 15, named as the M4 map and the compiler's setter (SetKernelSparseBinary:
 * 0x8000) name it. Apple's H13 pad (a depthwise 2x1 TD, KernelCfg 0x8116) sets it with SparseFmt
 * and a 1-bit palette: phase-sparse records of mask bytes alone (docs/engine-model.md,
 * "Depthwise convolutions") */
#define H13_KERNELCFG_SPARSEBINARY_LSB 15
#define H13_KERNELCFG_SPARSEBINARY_W 1
#define H13_KERNELCFG_GROUPKERNELREUSE_LSB 10 /* 0 in every real convolution; refused when set */
#define H13_KERNELCFG_GROUPKERNELREUSE_W 1
/* Align: bit 16, named as the H16 map names it. Apple's H13 compiler sets it on fp16 kernels it
 * does not carry: rows of a runtime tensor (its batched matmul's KBase0 input) and a kernel an
 * earlier TD wrote (the macOS linears); those compute with the kernels read as without it */
#define H13_KERNELCFG_ALIGN_LSB 16
#define H13_KERNELCFG_ALIGN_W 1
/* KernelFmt values (freedomtan's H13 unpacking; conv.hwx's fp16 weights carry 2) */
#define H13_KERNELFMT_INT8 0u
#define H13_KERNELFMT_UINT8 1u
#define H13_KERNELFMT_FP16 2u
#define H13_NE_MACCFG 0x0c804u
#define H13_MACCFG_NONLINEARMODE_LSB 16
#define H13_MACCFG_NONLINEARMODE_W 2
#define H13_NONLINEAR_LUT 2u
#define H13_NONLINEAR_NONE 0u
#define H13_NONLINEAR_RELU 1u
#define H13_MACCFG_OPMODE_LSB 0
#define H13_MACCFG_OPMODE_W 3
#define H13_MACCFG_KERNELMODE_LSB 3
#define H13_MACCFG_KERNELMODE_W 1
#define H13_MACCFG_BIASMODE_LSB 4
#define H13_MACCFG_BIASMODE_W 1
#define H13_MACCFG_MATRIXBIASEN_LSB 6
#define H13_MACCFG_MATRIXBIASEN_W 1
#define H13_MACCFG_BINARYPOINT_LSB 8
#define H13_MACCFG_BINARYPOINT_W 5
#define H13_BINARYPOINT_FP16 0x1cu /* BinaryPoint in every real NE program that sets one (all fp16) */
#define H13_MACCFG_POSTSCALEMODE_LSB 14
#define H13_MACCFG_POSTSCALEMODE_W 1
#define H13_MACCFG_BIT20_LSB 20   /* set by Apple's compilers in every NE configuration; required */
#define H13_MACCFG_BIT20_W 1
#define H13_MAC_OP_CONV 0u        /* MACCfg.OpMode: convolution / matrix multiply (conv.hwx) */
#define H13_MAC_OP_ELEMWISE 4u    /* MACCfg.OpMode: element by element (every NE kernel) */
/* MACCfg.OpMode 2 (the H16 map's "RCAS"): with Common.GroupConvCfg.ElemMultMode, UnicastEn and
 * UnicastCin 2, output channel c is the product of input channels 2c and 2c + 1 (Apple's H13 pow:
 * z and log2 x interleaved in L2, their product through the exp2 record) */
#define H13_MAC_OP_RCAS 2u
#define H13_RCAS_UNICASTCIN 2u
/* MACCfg.OpMode 3 with GroupConvCfg.UnicastEn and no ElemMultMode: output channel c is the
 * largest of input channels cN .. cN + N - 1, N = UnicastCin (Apple's H13 reduce_max over C: one
 * TD, Cin 64 -> Cout 1, UnicastCin 64, KernelMode 1, PostScale 1, no PE; the channels of a group
 * lie side by side as pow's pairs do). The H16 map gives OpMode 3 another name; the H13 program
 * decides here. */
#define H13_MAC_OP_CHMAX 3u
#define H13_NE_MATRIXVECTORBIAS 0x0c808u
#define H13_MATRIXVECTORBIAS_LSB 0
#define H13_MATRIXVECTORBIAS_W 16
#define H13_NE_ACCBIAS 0x0c80cu
#define H13_ACCBIAS_LSB 0        /* fp16, added in the accumulator (unary/inv.bin: 0x068e = 1e-4) */
#define H13_ACCBIAS_W 16
#define H13_ACCBIAS_SHIFT_LSB 16
#define H13_ACCBIAS_SHIFT_W 5
#define H13_NE_POSTSCALE 0x0c810u
#define H13_POSTSCALE_LSB 0      /* fp16 */
#define H13_POSTSCALE_W 16
#define H13_POSTSCALE_RSHIFT_LSB 16
#define H13_POSTSCALE_RSHIFT_W 5

/* ---- Planar (PE) ---- */
#define H13_PLANAR_CFG 0x08800u
#define H13_PECFG_POOLMODE_LSB 0
#define H13_PECFG_POOLMODE_W 2
#define H13_PECFG_OPMODE_LSB 2
#define H13_PECFG_OPMODE_W 3
#define H13_PECFG_RELUEN_LSB 5
#define H13_PECFG_RELUEN_W 1
#define H13_PECFG_CONDITION_LSB 6
#define H13_PECFG_CONDITION_W 4
#define H13_PECFG_NLMODE_LSB 12
#define H13_PECFG_NLMODE_W 2
#define H13_PECFG_FIRSTSRC_LSB 16
#define H13_PECFG_FIRSTSRC_W 1
#define H13_PECFG_SECSRC_LSB 18
#define H13_PECFG_SECSRC_W 2
#define H13_PE_POOL_NONE 0u
#define H13_PE_POOL_AVG 1u
#define H13_PE_POOL_MAX 2u
#define H13_PE_POOL_MIN 3u
#define H13_PE_COND_NONE 0u
#define H13_PE_COND_ABS 1u
#define H13_PE_OP_ADD 0u          /* PE OpMode (allbilly/ane measured: 0 add .. 4 square) */
#define H13_PE_OP_MUL 1u
#define H13_PE_OP_MAX 2u
#define H13_PE_OP_MIN 3u
#define H13_PE_OP_SQ 4u
#define H13_PE_SECSRC_NONE 0u
/* SecSrc on H13: 2 takes a second operand, 3 takes it negated (a - b). Apple's H13 binary_add and
 * binary_sub differ in this field alone, 2 and 3 (docs/engine-model.md, "Planar.Cfg: one
 * reading"); the H15/H16 maps' "RegSource" reading of 3 does not hold here. The second operand is
 * the second tile source (RBase1: add.bin, mul.bin, ceil.bin TD 3) with L2.SourceCfg.Src2DMA, or
 * L2 memory at Source2Base without (Apple's broadcasts), or the value a reduction kept where
 * Common.PECfg says so (softmax.bin TD 1: x - max) */
#define H13_PE_SECSRC_TILE1 2u
#define H13_PE_SECSRC_SUB 3u
/* Planar.Cfg.NLMode on a reduction: 1 leaves the reciprocal of the sum
 * (softmax.bin TD 3, consumed by TD 4's multiply); elsewhere the H15/H16 maps call it ReLU */
#define H13_PE_NL_NONE 0u
#define H13_PE_NL_RECIP 1u
/* 2 on a reduction: 1/sqrt(sum x FinalScale + eps), eps Planar.PreScale's low half (fp16): Apple's
 * H13 layer_norm, and a macOS compile of reduce_mean(d.d) + 1e-5 then rsqrt (allbilly/ane gpt2) */
#define H13_PE_NL_RSQRT 2u
#define H13_PLANAR_BIASSCALE 0x08804u
#define H13_BIASSCALE_BIAS_LSB 0  /* fp16 */
#define H13_BIASSCALE_BIAS_W 16
#define H13_BIASSCALE_SCALE_LSB 16 /* fp16 */
#define H13_BIASSCALE_SCALE_W 16
#define H13_PLANAR_PRESCALE 0x08808u
#define H13_PRESCALE_LSB 16   /* fp16 multiplier of the first operand */
#define H13_PRESCALE_W 16
#define H13_PRESCALE_EPS_LSB 0 /* fp16: the eps of a reduction's NLMode 2 (0 everywhere else) */
#define H13_PRESCALE_EPS_W 16
#define H13_PLANAR_FINALSCALE 0x0880cu /* fp32, the whole word */
#define H13_FINALSCALE_ONE 0x3f800000u /* fp32 1.0, as every real PE program writes */

/* ---- L2 ---- */
#define H13_L2_CFG 0x04800u
#define H13_L2CFG_INPUTRELU_LSB 0 /* 0 in every real program; unread, refused when set */
#define H13_L2CFG_INPUTRELU_W 1
#define H13_L2CFG_PADDINGMODE_LSB 2 /* 1 in softmax.bin (no padding there); refused with padding */
#define H13_L2CFG_PADDINGMODE_W 2
/* L2Cfg bit 4: the H14/H16 maps' Src2ReLU (their Src1ReLU and PaddingMode sit where H13's InputReLU
 * and PaddingMode do); Apple's H13 x + relu(x) sets it: the PE's second operand through a ReLU */
#define H13_L2CFG_SRC2RELU_LSB 4
#define H13_L2CFG_SRC2RELU_W 1
#define H13_L2_SOURCECFG 0x04804u
#define H13_L2_SOURCETYPE_LSB 0
#define H13_L2_SOURCETYPE_W 2
#define H13_L2_SOURCEBASE 0x04808u
#define H13_L2_RESULTCFG 0x04830u
#define H13_L2_RESULTTYPE_LSB 0
#define H13_L2_RESULTTYPE_W 2
#define H13_L2_RESULTBASE 0x04834u
/* SourceCfg.Src2DMA (bit 24; no map names it): the PE's second operand comes through the tile DMA
 * (RBase1). Set in add.bin, mul.bin, softmax.bin TD 4 and Apple's two-input binary ops; clear where
 * it is read from L2 (softmax.bin TD 1's kept maximum, Apple's broadcasts and real_div) */
#define H13_L2SRC_SRC2DMA_LSB 24
#define H13_L2SRC_SRC2DMA_W 1
/* SourceCfg.Src2Dependent (bit 26; no map names it): set in Apple's macOS GPT-2 gelu (allbilly/ane
 * gpt2/training/aneforge/kernels/gelu_32_3072_forward, TDs 2 and 5) exactly where the second
 * operand, read from L2 memory, is the TD before's result, and clear in its TD 1, whose second
 * operand TD 0 kept from its source: read as Dependent for the second operand, a wait that changes
 * nothing where each TD runs to its end before the next (docs/engine-model.md) */
#define H13_L2SRC_SRC2DEP_LSB 26
#define H13_L2SRC_SRC2DEP_W 1
/* L2 memory (docs/engine-model.md, "L2 memory and broadcasts"): bases and strides in 16-byte
 * units (the Addr and Stride fields), an fp16 tensor's row of W values contiguous from its
 * address; the fields' 17 bits address 2 MiB */
#define H13_L2_SOURCE2BASE 0x0481cu
#define H13_L2_SRC_CSTRIDE 0x0480cu   /* SourceChannelStride, then Row, Depth, Group strides */
#define H13_L2_SRC2_CSTRIDE 0x04820u  /* Source2ChannelStride, then Row, Depth, Group */
#define H13_L2_RES_CSTRIDE 0x04838u   /* ConvResultChannelStride, ConvResultRowStride, then Depth, Group */
#define H13_L2_STRIDE_LSB 4
#define H13_L2_STRIDE_W 17
#define H13_L2_UNIT 16u               /* bytes per unit of a base or stride */
#define H13_L2_BYTES (1u << 21)       /* 2^17 units of 16 bytes */
/* Source/ResultCfg fields every real program holds at one value (1, 1, 0, 0; SourceCfg's
 * Dependent 0; ResultCfg's DMAFmt 1): unread by the model, refused at any other */
#define H13_L2SRC_DEPENDENT_LSB 2
#define H13_L2SRC_DEPENDENT_W 2
#define H13_L2SRC_DEPENDENT_L2 2u /* Apple's softmax TD 3: its operand, from L2 memory, the TD before's result */
#define H13_L2SRC_DEPENDENT_PREV 1u /* Apple's select TD 1: the same, read by the PE */
#define H13_L2_DMAFMT_LSB 6
#define H13_L2_DMAFMT_W 2
#define H13_L2_DMAINTERLEAVE_LSB 8
#define H13_L2_DMAINTERLEAVE_W 4
#define H13_L2_DMACMPVEC_LSB 12
#define H13_L2_DMACMPVEC_W 4
#define H13_L2_DMAOFFSETCH_LSB 16
#define H13_L2_DMAOFFSETCH_W 3
#define H13_L2_ADDR_LSB 4         /* L2 base and stride fields: 17 bits at bit 4 */
#define H13_L2_ADDR_W 17
#define H13_L2_RESIDENT 3u        /* Source/ResultType 3: the tensor stays in L2 (sigmoid.bin) */
#define H13_L2_DMA 2u             /* 2: through the tile DMA (every eiln fixture, Apple's binary ops) */
/* SourceType 1: read through the tile DMA and kept in L2 memory at SourceBase (Apple's floor TD 0,
 * read again by its TD 2); 0: read from L2 memory (Apple's macOS 26 programs, softmax.bin TD 4's
 * kept first operand); ResultType 0 with no tile destination: the result stays in L2 memory */
#define H13_L2_KEEP 1u
#define H13_L2_MEM 0u

/* ---- tile DMA formats ---- */
#define H13_SRC_FMT 0x13838u
#define H13_DST_FMT 0x17818u
/* TileDMASrc+0x3c (pad in the H13 map): the second tile source's Fmt. 0x2030 (Truncate 3, MemFmt 2,
 * FmtMode 0) in each of the 31 real TDs whose second operand comes by the tile DMA
 * (L2.SourceCfg.Src2DMA 1: add.bin, mul.bin, ceil.bin TD 3, softmax.bin TD 4, Apple's binary
 * programs), 0 in the 61 others; the model reads the operand as fp16 and refuses any other value */
#define H13_SRC2_FMT 0x1383cu
#define H13_FMT_INTERLEAVE_LSB 24
#define H13_FMT_INTERLEAVE_W 4
#define H13_DSTFMT_ZEROPADLAST_LSB 20
#define H13_DSTFMT_ZEROPADLAST_W 1
/* FmtMode, Truncate, MemFmt: (1, 3, 2) in every real program's enabled tile DMA, and (1, 0, 0) in
 * softmax.bin TD 4's source; unread by the model, refused at any other combination */
#define H13_FMT_FMTMODE_LSB 0
#define H13_FMT_FMTMODE_W 2
#define H13_FMT_TRUNCATE_LSB 4
#define H13_FMT_TRUNCATE_W 2
#define H13_FMT_MEMFMT_LSB 12
#define H13_FMT_MEMFMT_W 2
/* Fmt fields 0 in every real program, unread by the model and refused when set */
#define H13_FMT_SHIFT_LSB 8
#define H13_FMT_SHIFT_W 1
#define H13_FMT_OFFSETCH_LSB 16
#define H13_FMT_OFFSETCH_W 3
#define H13_FMT_CMPVEC_LSB 28
#define H13_FMT_CMPVEC_W 4
#define H13_DSTFMT_CMPVECFILL_LSB 22
#define H13_DSTFMT_CMPVECFILL_W 1
#define H13_SRC_PIXELOFFSET(n) (0x13850u + 4u * (n)) /* n < 4; 0 in every real program */
#define H13_SRC_NPIXELOFFSET 4u
#define H13_PIXELOFFSET_LSB 0
#define H13_PIXELOFFSET_W 16

/* ---- TileDMASrc: the first source, and the second source's words (+0x04, +0x1c..+0x2c) ---- */
#define H13_SRC_DMACONFIG 0x13800u
#define H13_SRC2_DMACONFIG 0x13804u
#define H13_SRC_BASEADDR 0x13808u
#define H13_SRC_ROWSTRIDE 0x1380cu
#define H13_SRC_PLANESTRIDE 0x13810u
#define H13_SRC_DEPTHSTRIDE 0x13814u
#define H13_SRC_GROUPSTRIDE 0x13818u
#define H13_SRC2_BASEADDR 0x1381cu
#define H13_SRC2_ROWSTRIDE 0x13820u
#define H13_SRC2_PLANESTRIDE 0x13824u
#define H13_SRC2_DEPTHSTRIDE 0x13828u
#define H13_SRC2_GROUPSTRIDE 0x1382cu
#define H13_DMA_EN_LSB 0     /* DMAConfig.En, every DMA channel */
#define H13_DMA_EN_W 1
#define H13_DMA_CACHEHINT_LSB 6 /* DMAConfig.CacheHint, every DMA channel */
#define H13_DMA_CACHEHINT_W 4
#define H13_ADDR_LSB 6       /* base and stride fields: 26 bits at bit 6, byte values */
#define H13_ADDR_W 26
#define H13_ADDR_BYTES(v) ((uint64_t)((v) & 0xffffffc0u))
/* The engine's address reach: what a base field can name (bits 6..31, so 4 GiB). The one
 * definition the control path's policy and the command service's overlay checks use. */
#define H13_ADDR_REACH_BITS (H13_ADDR_LSB + H13_ADDR_W)

/* ---- TileDMADst ---- */
#define H13_DST_DMACONFIG 0x17800u
#define H13_DST_BASEADDR 0x17804u
#define H13_DST_ROWSTRIDE 0x17808u
#define H13_DST_PLANESTRIDE 0x1780cu
#define H13_DST_DEPTHSTRIDE 0x17810u
#define H13_DST_GROUPSTRIDE 0x17814u

/* ---- KernelDMASrc: 16 coefficient channels (the block starts at H13_BLK_KDMA) ---- */
#define H13_COEFF_NCH 16u
#define H13_COEFF_DMACONFIG(n) (0x1f808u + 4u * (n))
#define H13_COEFF_BASEADDR(n) (0x1f848u + 4u * (n))
#define H13_COEFF_BFRSIZE(n) (0x1f888u + 4u * (n))
/* KernelDMASrc +0x00, a word the map does not name: 0x40 in every real program, 0x60 in every
 * one with phase-sparse kernels (Apple's H13 stride-2 convolutions): bit 5 goes with
 * NE.KernelCfg.SparseFmt, and the model refuses either without the other */
#define H13_KDMA_WORD0 0x1f800u
#define H13_KDMA_WORD0_SPARSE 0x20u

/* ---- KStream: the four guide-25 kernel coefficient streams (bias, post-scale, palette LUT,
 * activation LUT). Enable and base offset in one block, the relocations (absolute engine
 * addresses) in another. The firmware programs these; a TD may not write them. ---- */
#define H13_KSTREAM_N 4u
#define H13_KSTREAM_ENABLE(s) (0x5548u + 0x10u * (s))
#define H13_KSTREAM_BASEOFFSET(s) (0x554cu + 0x10u * (s))
#define H13_KSTREAM_RELOC(s) (0x1554u + 4u * (s))
enum h13_kstream { H13_KSTREAM_BIAS, H13_KSTREAM_POSTSCALE, H13_KSTREAM_PALETTE,
		   H13_KSTREAM_ACTLUT };

/* ---- the TD header (10 words before the register-write stream) ---- */
#define H13_TD_HEADER_WORDS 10u
#define H13_TD_HEADER_BYTES 0x28u
#define H13_TD_DEFAULT_BYTES 0x274u
/* word 0 */
#define H13_TDH_TID_LSB 0
#define H13_TDH_TID_W 16
#define H13_TDH_NID_LSB 16
#define H13_TDH_NID_W 8
#define H13_TDH_LNID_LSB 24
#define H13_TDH_LNID_W 1
#define H13_TDH_EON_LSB 25
#define H13_TDH_EON_W 1
/* word 1 */
#define H13_TDH_EXECYCLES_LSB 0
#define H13_TDH_EXECYCLES_W 16
#define H13_TDH_NEXTSIZE_LSB 16
#define H13_TDH_NEXTSIZE_W 9
/* words 2..5: 24-bit event and exception masks; word 6 flags; word 7 next pointer */
#define H13_TDH_MASK24_LSB 0
#define H13_TDH_MASK24_W 24
/* words 8 and 9: four BAR slots each, 5-bit index and an enable bit, 6 bits apart; ENE in
 * word 8 bits 24-26 */
#define H13_TDH_BAR_STRIDE 6u
#define H13_TDH_BARIDX_W 5
#define H13_TDH_BAREN_BIT 5u
#define H13_TDH_ENE_LSB 24
#define H13_TDH_ENE_W 3
/* The register-write stream: a command word (word count - 1 at bit 26, start address below)
 * then the values. */
#define H13_TDW_COUNT_LSB 26
#define H13_TDW_COUNT_W 6
#define H13_TDW_ADDR_LSB 0
#define H13_TDW_ADDR_W 26

/* ---- register blocks as a TD writes them whole (h13_blocks in regmap_tables.inc): the first
 * word's address and the words the block spans ---- */
#define H13_BLK_COMMON H13_COMMON_INDIM
#define H13_BLK_COMMON_WORDS 16u
#define H13_BLK_L2 H13_L2_CFG
#define H13_BLK_L2_WORDS 18u
#define H13_BLK_PLANAR H13_PLANAR_CFG
#define H13_BLK_PLANAR_WORDS 4u
#define H13_BLK_NE H13_NE_KERNELCFG
#define H13_BLK_NE_WORDS 5u
#define H13_BLK_TILESRC H13_SRC_DMACONFIG
#define H13_BLK_TILESRC_WORDS 28u
#define H13_BLK_TILEDST H13_DST_DMACONFIG
#define H13_BLK_TILEDST_WORDS 7u
#define H13_BLK_KDMA 0x1f800u
#define H13_BLK_KDMA_WORDS 62u

/* BAR slots of a TD (bit i of bar_en, bar_idx[i]) */
enum h13_bar_slot { H13_BAR_RBASE0, H13_BAR_RBASE1, H13_BAR_WBASE, H13_BAR_TBASE, H13_BAR_KBASE0,
		    H13_BAR_KBASE1, H13_BAR_KBASE2, H13_BAR_KBASE3, H13_BAR_NSLOTS };

#endif
