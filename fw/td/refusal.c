/*
 * What the engine model refuses on a TD's registers alone, where inspect marks it too: each
 * condition and its text in one place (docs/engine-model.md, "The text and the model's refusals
 * agree"). engine/model/compute.c faults with the refusal recorded here (td_refusal_fault: the TD,
 * its unit and register field, this text); fw/td/op.c prints "(not modelled: <text>)". Each
 * function records the first refusal of its conditions, in the model's order, into no unless no
 * holds one already (td_refuse).
 */
#include "fw/codec/codec.h"
#include "fw/common/fp16.h"
#include "fw/td/td.h"

#define GET(a) (r->get(r->ctx, (a)))
#define TD_NOT_INSIDE_TEXT "an output channel's kernel is not inside its coefficient channel"

/* decode_stages: Common.Cfg.TaskType 2 goes with one PE operand, 3 with two */
void td_pe_task_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const unsigned task = H13_GET(GET(H13_COMMON_CFG), H13_CFG_TASKTYPE);
	if ((task == H13_TASK_PE_ONE || task == H13_TASK_PE_TWO) && task != td_pe_task(GET(H13_PLANAR_CFG)))
		TD_REFUSE(no, 1, H13_COMMON_CFG, H13_CFG_TASKTYPE,
			  "Common.Cfg.TaskType 2 with a second PE operand (Planar.Cfg.SecSrc 2 or 3), or 3 "
			  "without, not modelled (every real TD has 2 with one operand, 3 with two)");
}

/* decode_stages, with the PE in the path (a reduction, which reads FinalScale, goes elsewhere):
 * where silicon contradicts the plain reading and no real program gives another value
 * (docs/engine-model.md, "Planar.FinalScale and BiasScale on silicon") */
void td_pe_scale_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (!td_pe_in_path(GET(H13_COMMON_CFG)))
		return;
	const uint32_t pc = GET(H13_PLANAR_CFG), bs = GET(H13_PLANAR_BIASSCALE);
	if (GET(H13_PLANAR_FINALSCALE) != H13_FINALSCALE_ONE)
		td_refuse(no, 0, H13_PLANAR_FINALSCALE, 0, 32,
			  "Planar.FinalScale other than 1.0 outside a reduction not modelled (1.0 in every "
			  "real elementwise or pooling TD; on silicon FinalScale 0 left an add and a product "
			  "unchanged, so it is not a plain multiplier there)");
	if (td_pe_two_operands(pc) && H13_GET(pc, H13_PECFG_OPMODE) == H13_PE_OP_MUL &&
	    (H13_GET(bs, H13_BIASSCALE_SCALE) != FP16_ONE || (H13_GET(bs, H13_BIASSCALE_BIAS) & 0x7fffu)))
		td_refuse(no, 0, H13_PLANAR_BIASSCALE, 0, 32,
			  "Planar.BiasScale other than Scale 1, Bias 0 on a product of two operands not "
			  "modelled (every real product has them so; on silicon Scale 0 and Bias 0 left a "
			  "product unchanged)");
	/* the same on the maximum and minimum of two operands: every real one (Apple's H13 maximum
	 * and minimum, of two inputs or with a constant) has Scale 1 and Bias 0, and where they apply
	 * there is pinned nowhere (review S2, 2026-12-06) */
	const unsigned op = H13_GET(pc, H13_PECFG_OPMODE);
	if (td_pe_two_operands(pc) && (op == H13_PE_OP_MAX || op == H13_PE_OP_MIN) &&
	    (H13_GET(bs, H13_BIASSCALE_SCALE) != FP16_ONE || (H13_GET(bs, H13_BIASSCALE_BIAS) & 0x7fffu)))
		td_refuse(no, 0, H13_PLANAR_BIASSCALE, 0, 32,
			  "Planar.BiasScale other than Scale 1, Bias 0 on a maximum or minimum of two "
			  "operands not modelled (every real one has them so; whether they apply after the "
			  "comparison is not pinned)");
}

/* Planar.Cfg.PoolMode where the PE pools over a window above 1 x 1 (Common.ConvCfg), the pools
 * whose place among the PE's other steps can change the value; H13_PE_POOL_NONE otherwise */
static unsigned pe_window_pool(const struct td_regs *r)
{
	const struct td_window w = td_window_of(GET(H13_COMMON_CONVCFG));
	return w.kw * w.kh > 1u ? H13_GET(GET(H13_PLANAR_CFG), H13_PECFG_POOLMODE) : H13_PE_POOL_NONE;
}

/* pooling: a PE pooling (Planar.Cfg.PoolMode, the PE in the path) reads the source alone */
void td_pe_pool_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t pc = GET(H13_PLANAR_CFG), mac = GET(H13_NE_MACCFG);
	if (!td_pe_in_path(GET(H13_COMMON_CFG)) || H13_GET(pc, H13_PECFG_POOLMODE) == H13_PE_POOL_NONE)
		return;
	if (mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r)))
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_POOLMODE, "PE pooling after the NE not modelled");
	if (H13_GET(pc, H13_PECFG_SECSRC) != H13_PE_SECSRC_NONE)
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC, "PE pooling with a second source not modelled");
	/* a maximum or minimum over a window above 1 x 1 with a negative PreScale or Scale: the model
	 * pools and then scales (p max x), where scaling first gives max (x p) = p min x; nothing
	 * pins the order (no H13 program pools in the PE), and only the sign tells them apart (a
	 * positive scale, a Bias and the ReLU are monotone, every order one value) */
	const unsigned pm = pe_window_pool(r);
	if (pm == H13_PE_POOL_MAX || pm == H13_PE_POOL_MIN) {
		if (H13_GET(GET(H13_PLANAR_PRESCALE), H13_PRESCALE) & FP16_SIGN)
			TD_REFUSE(no, 1, H13_PLANAR_PRESCALE, H13_PRESCALE, TD_PE_POOL_SIGN_WHY);
		else if (H13_GET(GET(H13_PLANAR_BIASSCALE), H13_BIASSCALE_SCALE) & FP16_SIGN)
			TD_REFUSE(no, 1, H13_PLANAR_BIASSCALE, H13_BIASSCALE_SCALE, TD_PE_POOL_SIGN_WHY);
	}
	/* an average over a window above 1 x 1 with ReluEn (the fifteenth review): the model pools and
	 * then takes the ReLU, relu(avg x), where the ReLU first gives avg relu(x) (a window {-1, 3}:
	 * 1 or 1.5); the ReLU commutes with a maximum and a minimum only */
	if (pm == H13_PE_POOL_AVG && H13_GET(pc, H13_PECFG_RELUEN))
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_RELUEN, TD_PE_AVG_ORDER_WHY);
}

/* pooling, its shape: a window, stride and input of at least one, over as many channels out as in;
 * win, hin and cin the source's (the tile's, or the L2-resident tensor's), cout the result's */
void td_pe_pool_shape_refusal(const struct td_regs *r, unsigned win, unsigned hin, unsigned cin, unsigned cout,
			      struct td_refusal *no)
{
	const struct td_window w = td_window_of(GET(H13_COMMON_CONVCFG));
	if (!w.kw || !w.kh || !w.sx || !w.sy || !win || !hin)
		td_refuse(no, 0, H13_COMMON_CONVCFG, 0, 32, "PE pooling with a zero window, stride or input not modelled");
	if (cin != cout)
		TD_REFUSE(no, 1, H13_COMMON_CIN, H13_CIN, "PE pooling with Cin different from Cout not modelled");
	/* an average with a Bias whose windows reach outside the input (padding, or a last window
	 * past the input's end; the fifteenth review): the model counts those positions as zeros in
	 * the sum and adds the Bias after the pool, avg(x) + b, where a Bias added to the input first
	 * gives (sum x + n b) / (Kw Kh) with n the positions inside; nothing pins which */
	const uint32_t od = GET(H13_COMMON_OUTDIM);
	const unsigned wout = H13_GET(od, H13_OUTDIM_WOUT), hout = H13_GET(od, H13_OUTDIM_HOUT);
	if (H13_GET(GET(H13_PLANAR_CFG), H13_PECFG_POOLMODE) == H13_PE_POOL_AVG &&
	    (H13_GET(GET(H13_PLANAR_BIASSCALE), H13_BIASSCALE_BIAS) & ~FP16_SIGN) && w.sx && w.sy && wout && hout &&
	    (w.px || w.py || (uint64_t)(wout - 1u) * w.sx + w.kw > win || (uint64_t)(hout - 1u) * w.sy + w.kh > hin))
		TD_REFUSE(no, 1, H13_PLANAR_BIASSCALE, H13_BIASSCALE_BIAS, TD_PE_AVG_ORDER_WHY);
}

/* load_kernels: a kernel layout td_ocg_layout does not pin, or one that leaves an enabled
 * coefficient channel unread or reads one not enabled (the model never computes with an enabled
 * channel it does not read: Apple's 96-output TDs spread 6 a channel over all 16; read as 8 over
 * the first 12 they computed wrong numbers) */
void td_ocg_refusal(const struct td_ocg_lay *l, struct td_refusal *no)
{
	if (l->kind == TD_OCG_UNPINNED)
		TD_REFUSE(no, 0, H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE,
			  "Common.ConvCfg.OCGSize above 0 with several groups not each one pass of 16 x "
			  "2^OCGSize outputs, a count not a multiple of 2^OCGSize, or a last partial pass "
			  "not a multiple of 16 outputs: no real program pins that kernel layout");
	else if (l->kind == TD_OCG_CHANNELS)
		td_refuse(no, 1, H13_COEFF_DMACONFIG(l->ch), H13_DMA_EN_LSB, H13_DMA_EN_W,
			  l->unread ? "a coefficient channel enabled that the kernel layout "
				      "(Common.ConvCfg.OCGSize, Common.Cout) does not read"
				    : "a coefficient channel the kernel layout (Common.ConvCfg.OCGSize, "
				      "Common.Cout) reads is not enabled");
}

/* inspect's general PE line: the three above, in the model's order; a Planar.Cfg the model
 * refuses before the scales (OpMode above 4, SecSrc 1, SecSrc 3 on other than an add) is named on
 * the line already, and marks nothing more */
void td_pe_refusal(const struct td_regs *r, struct td_refusal *no)
{
	td_pe_task_refusal(r, no);
	const uint32_t pc = GET(H13_PLANAR_CFG);
	const unsigned po = H13_GET(pc, H13_PECFG_OPMODE), sec = H13_GET(pc, H13_PECFG_SECSRC);
	if (po > H13_PE_OP_SQ || sec == 1u || (sec == H13_PE_SECSRC_SUB && po != H13_PE_OP_ADD))
		return;
	td_pe_scale_refusal(r, no);
	td_pe_pool_refusal(r, no);
}

/* elementwise_window: a TD that is neither a convolution nor a pooling (nor a reduction) reads
 * Common.ConvCfg's window nowhere; every real one (all 132 TDs of the fixtures and Apple's 64
 * rebuilt programs) has 1x1, stride 1, no padding. Which TDs are elementwise is the caller's
 * (the model's dispatch, inspect's line). */
void td_elementwise_window_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	if (!td_window_unit(&win))
		td_refuse(no, 1, H13_COMMON_CONVCFG, 0, 32,
			  "an elementwise TD (no convolution, no pooling) with a window, stride or padding "
			  "other than 1x1/1/0 not modelled (1x1/1/0 in every real one)");
}

/* The conditions ne_channel_groups's two forms share: the output plane is the input's (InDim,
 * OutDim; NumGroups is one register for both), the PE alone after them (no second operand, no
 * pooling), fp16 in and out. */
static int plane_differs(uint32_t indim, uint32_t outdim)
{
	return H13_GET(indim, H13_INDIM_WIN) != H13_GET(outdim, H13_OUTDIM_WOUT) ||
	       H13_GET(indim, H13_INDIM_HIN) != H13_GET(outdim, H13_OUTDIM_HOUT);
}

static int pe_not_alone(uint32_t planar_cfg)
{
	return td_pe_two_operands(planar_cfg) || H13_GET(planar_cfg, H13_PECFG_POOLMODE) != H13_PE_POOL_NONE;
}

static int not_fp16(uint32_t chcfg)
{
	return H13_GET(chcfg, H13_CHCFG_INFMT) != H13_FMT_FP16 || H13_GET(chcfg, H13_CHCFG_OUTFMT) != H13_FMT_FP16;
}

/* ne_channel_groups: NE.MACCfg.OpMode 2 or 3 (the NE in the path) in Apple's pow's and
 * reduce_max's forms only */
void td_channel_groups_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t gc = GET(H13_COMMON_GROUPCONVCFG), mac = GET(H13_NE_MACCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	if (!mac || (op != H13_MAC_OP_RCAS && op != H13_MAC_OP_CHMAX))
		return;
	const int prod = op == H13_MAC_OP_RCAS;
	const unsigned n = H13_GET(gc, H13_GROUPCONV_UNICASTCIN);
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	const uint32_t in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM), ch = GET(H13_COMMON_CHCFG);
	const uint64_t cin = H13_GET(GET(H13_COMMON_CIN), H13_CIN), cout = H13_GET(GET(H13_COMMON_COUT), H13_COUT);
	const uint32_t pc = td_pe_in_path(GET(H13_COMMON_CFG)) ? GET(H13_PLANAR_CFG) : 0u;
	if (prod && !H13_GET(gc, H13_GROUPCONV_ELEMMULTMODE))
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_OPMODE,
			  "NE.MACCfg.OpMode 2 without Common.GroupConvCfg.ElemMultMode (a sum over "
			  "channels?) not modelled");
	if (prod && (!H13_GET(gc, H13_GROUPCONV_UNICASTEN) || n != H13_RCAS_UNICASTCIN))
		td_refuse(no, 0, H13_COMMON_GROUPCONVCFG, 0, 32,
			  "NE.MACCfg.OpMode 2 with ElemMultMode: only UnicastEn 1 and UnicastCin 2 (a "
			  "product of two channels, Apple's pow) are pinned");
	if (!prod && (!H13_GET(gc, H13_GROUPCONV_UNICASTEN) || !n))
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_OPMODE,
			  "NE.MACCfg.OpMode 3 without Common.GroupConvCfg.UnicastEn 1 and a UnicastCin "
			  "above 0 (Apple's reduce_max over C: the largest of UnicastCin channels) not "
			  "modelled");
	/* the largest of one channel would be a copy, but on an M1 relu's TD with OpMode 3 (MACCfg
	 * 0x11000b: UnicastCin 1, BinaryPoint 0) gave 0 for 5 (allbilly/ane experimental/expt.md,
	 * expt2): only Apple's reduce_max's form, UnicastCin 2 or more and BinaryPoint 0x1c */
	if (!prod && (n < 2 || H13_GET(mac, H13_MACCFG_BINARYPOINT) != H13_BINARYPOINT_FP16))
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_OPMODE,
			  "NE.MACCfg.OpMode 3 with Common.GroupConvCfg.UnicastCin 1 or NE.MACCfg.BinaryPoint "
			  "other than 0x1c not modelled (Apple's reduce_max over C: 64 and 0x1c; on silicon "
			  "OpMode 3 with UnicastCin 1 and BinaryPoint 0 was no copy)");
	if (!H13_GET(mac, H13_MACCFG_KERNELMODE) || H13_GET(GET(H13_NE_POSTSCALE), H13_POSTSCALE) != FP16_ONE)
		td_refuse(no, 0, H13_NE_MACCFG, 0, 32,
			  "NE.MACCfg.OpMode 2 or 3 with a kernel from memory (KernelMode 0) or "
			  "NE.PostScale other than 1 not modelled (whether the result is rounded before "
			  "the scale is not pinned)");
	if (!td_window_unit(&win))
		td_refuse(no, 1, H13_COMMON_CONVCFG, 0, 32,
			  "NE.MACCfg.OpMode 2 or 3 with a window, stride or padding other than 1x1/1/0 "
			  "not modelled");
	/* the tiles' shapes are the registers' (Cin x InDim in, Cout x OutDim out, NumGroups both) */
	if (cin != (uint64_t)n * cout || plane_differs(in, od))
		td_refuse(no, 1, H13_COMMON_CIN, 0, 32,
			  "NE.MACCfg.OpMode 2 or 3 whose Cin is not UnicastCin times its Cout, or whose "
			  "output is not its input's size, not modelled");
	if (pe_not_alone(pc))
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			  "NE.MACCfg.OpMode 2 or 3 with a second PE operand or pooling not modelled");
	if (not_fp16(ch))
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
			  "NE.MACCfg.OpMode 2 or 3 with a format other than fp16 not modelled");
}

/* ne_channel_groups, the unit kernel's sum over channels (NE.MACCfg.OpMode 0, KernelMode 1, Cin
 * -> 1 without UnicastEn, 1x1, stride 1, no padding: td_unit_sum; Apple's H13 softmax over C and
 * over H, TD 3) in that form only */
void td_unit_sum_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM), ch = GET(H13_COMMON_CHCFG);
	const uint32_t pc = td_pe_in_path(GET(H13_COMMON_CFG)) ? GET(H13_PLANAR_CFG) : 0u;
	if (H13_GET(GET(H13_NE_ACCBIAS), H13_ACCBIAS)) /* (-0 too) */
		TD_REFUSE(no, 1, H13_NE_ACCBIAS, H13_ACCBIAS,
			  "the unit kernel's sum over channels (MACCfg.KernelMode 1, Cin -> 1, no "
			  "UnicastEn) with NE.AccBias other than 0 not modelled (Apple's softmax: 0)");
	if (H13_GET(GET(H13_NE_POSTSCALE), H13_POSTSCALE) != FP16_ONE)
		TD_REFUSE(no, 1, H13_NE_POSTSCALE, H13_POSTSCALE,
			  "the unit kernel's sum over channels with NE.PostScale other than 1 not "
			  "modelled (whether the sum is rounded before the scale is not pinned)");
	/* the tiles' shapes are the registers' (InDim in, OutDim out, NumGroups both) */
	if (plane_differs(in, od))
		td_refuse(no, 1, H13_COMMON_OUTDIM, 0, 32,
			  "the unit kernel's sum over channels whose output is not its input's size "
			  "not modelled");
	if (pe_not_alone(pc))
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			  "the unit kernel's sum over channels with a second PE operand or pooling "
			  "not modelled");
	if (not_fp16(ch))
		TD_REFUSE(no, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
			  "the unit kernel's sum over channels with a format other than fp16 not "
			  "modelled");
}

/* ne_kernel_mode: NE.AccBias's shift, wherever AccBias is read (the unit kernel, a convolution's
 * one bias) */
void td_accbias_shift_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (H13_GET(GET(H13_NE_ACCBIAS), H13_ACCBIAS_SHIFT))
		TD_REFUSE(no, 0, H13_NE_ACCBIAS, H13_ACCBIAS_SHIFT, "NE.AccBias.AccBiasShift not modelled");
}

/* unit_kernel_shape: a convolution with no kernel in memory (MACCfg.KernelMode 1) other than the
 * sum over channels (td_unit_sum_refusal): 1x1, stride 1, no padding, over 1 -> 1 channel (inv.bin)
 * or C -> C channel by channel (td_unit_channels_ok: Apple's rsqrt); cin and cout the tiles' */
void td_unit_kernel_refusal(const struct td_regs *r, unsigned cin, unsigned cout, struct td_refusal *no)
{
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	if (!td_window_unit(&win))
		td_refuse(no, 1, H13_COMMON_CONVCFG, 0, 32,
			  "a convolution with no kernel in memory (MACCfg.KernelMode 1) and a window, "
			  "stride or padding other than 1x1/1/0 not modelled");
	if (!td_unit_channels_ok(cin, cout, GET(H13_COMMON_GROUPCONVCFG)))
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_KERNELMODE,
			  "a convolution with no kernel in memory (MACCfg.KernelMode 1) over more "
			  "than 1 -> 1 channel, other than C -> C channel by channel (GroupConvCfg "
			  "UnicastEn 1, UnicastCin 1) or Cin -> 1 summed (no UnicastEn), not modelled");
}

/* depthwise: a convolution with kernels in memory and GroupConvCfg.UnicastEn, in the forms Apple's
 * programs pin (docs/engine-model.md, "Depthwise convolutions"): NumGroups 1, UnicastCin 1 or 2,
 * no ElemMultMode, kernels in coefficient channels (ku: a kernel unit's OCG instead); Cin
 * UnicastCin x Cout (with UnicastCin 1 and more than 16 channels, a multiple of 16); UnicastCin 2
 * only 1x1 without a bias or sparse kernels (Apple's less); OCGSize 0 and kernels plain fp16,
 * plain KernelFmt 1 bytes or Apple's pad form whole (NE.KernelCfg 0x8116); a bias only before fp16
 * taps (as load_kernels); KernelFmt 1 only in the less's form (UnicastCin 2, 1x1). cin and cout the tiles' (the model's) or the registers' (inspect). */
void td_depthwise_refusal(const struct td_regs *r, unsigned cin, unsigned cout, unsigned ku,
			  struct td_refusal *no)
{
	const uint32_t gc = GET(H13_COMMON_GROUPCONVCFG), kc = GET(H13_NE_KERNELCFG);
	const unsigned n = H13_GET(gc, H13_GROUPCONV_UNICASTCIN);
	if (!n || n > TD_DW_UNICASTCIN_MAX || H13_GET(gc, H13_GROUPCONV_NUMGROUPS) != 1u ||
	    H13_GET(gc, H13_GROUPCONV_ELEMMULTMODE) || ku)
		td_refuse(no, 0, H13_COMMON_GROUPCONVCFG, 0, 32, TD_DW_GROUPCONV_TEXT);
	if ((uint64_t)cin != (uint64_t)n * cout || (n == 1u && cout > H13_COEFF_NCH && cout % H13_COEFF_NCH))
		td_refuse(no, 1, H13_COMMON_CIN, 0, 32,
			  "a depthwise convolution whose Cin is not GroupConvCfg.UnicastCin times its "
			  "Cout, or with UnicastCin 1 over more than 16 channels not a multiple of 16 "
			  "(the kernels' lanes not pinned), not modelled");
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	const unsigned bias = H13_GET(GET(H13_NE_MACCFG), H13_MACCFG_BIASMODE);
	if (n > 1u && (win.kw != 1u || win.kh != 1u || bias || H13_GET(kc, H13_KERNELCFG_SPARSEFMT)))
		TD_REFUSE(no, 1, H13_COMMON_CONVCFG, H13_CONVCFG_KW,
			  "a depthwise convolution with GroupConvCfg.UnicastCin above 1 and a window "
			  "other than 1x1, NE.MACCfg.BiasMode or sparse kernels not modelled (Apple's "
			  "less pins a plain 1x1 kernel without a bias; the order of N x Kh x Kw taps "
			  "is not pinned)");
	/* plain fp16 kernels (dense or phase-sparse), plain KernelFmt 1 bytes (Apple's less), or
	 * Apple's pad form whole (fp16, PalettizedEn with a 1-bit palette, SparseFmt, SparseBinary);
	 * a palette with stored indices, or SparseBinary with any other field, has no program that
	 * pins it */
	const unsigned kfmt = H13_GET(kc, H13_KERNELCFG_KERNELFMT);
	const uint32_t pad_form = H13_PUT(H13_KERNELCFG_KERNELFMT, H13_KERNELFMT_FP16) |
				  H13_PUT(H13_KERNELCFG_PALETTIZEDEN, 1u) | H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, 1u) |
				  H13_PUT(H13_KERNELCFG_SPARSEFMT, 1u) | H13_PUT(H13_KERNELCFG_SPARSEBINARY, 1u);
	const uint32_t plain = H13_PUT(H13_KERNELCFG_KERNELFMT, ~0u) | H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, ~0u) |
			       H13_PUT(H13_KERNELCFG_SPARSEFMT, ~0u);
	if (H13_GET(GET(H13_COMMON_CONVCFG), H13_CONVCFG_OCGSIZE) ||
	    (kfmt != H13_KERNELFMT_FP16 && (kfmt != H13_KERNELFMT_UINT8 || H13_GET(kc, H13_KERNELCFG_SPARSEFMT))) ||
	    (H13_GET(kc, H13_KERNELCFG_SPARSEBINARY) ? kc != pad_form : (kc & ~plain) != 0))
		td_refuse(no, 1, H13_NE_KERNELCFG, 0, 32,
			  "a depthwise convolution with Common.ConvCfg.OCGSize above 0 or kernels "
			  "other than plain fp16, plain KernelFmt 1 bytes (Apple's less) or Apple's "
			  "pad form whole (NE.KernelCfg 0x8116: a 1-bit palette, SparseFmt, "
			  "SparseBinary) not modelled");
	/* as load_kernels: a bias only before fp16 taps (KernelFmt 1's would be its first byte:
	 * no program pins that) */
	if (bias && kfmt != H13_KERNELFMT_FP16)
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_BIASMODE,
			  "NE.MACCfg.BiasMode with kernels other than fp16 not modelled (every real "
			  "convolution with a bias has fp16 kernels and an fp16 bias)");
	/* one-byte kernels as Apple's less lays them out only: two bytes an output, back to back
	 * (UnicastCin 2, 1x1); a kernel of another length (9 bytes for a 3x3: at odd offsets, or
	 * padded?) no program shows */
	if (kfmt == H13_KERNELFMT_UINT8 && (n != 2u || win.kw != 1u || win.kh != 1u))
		TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT,
			  "a depthwise convolution with KernelFmt 1 kernels other than Apple's less's "
			  "(UnicastCin 2, 1x1: two bytes an output, back to back) not modelled: where "
			  "one-byte kernels of another length lie in a lane is not pinned");
}

/*
 * Common.ConvCfg.Ox: 1 in every real program but Apple's depthwise 1x9 and 9x9 "same" over 1024
 * channels, which set 2. The 1x9 (encoder_conv_idx_c1024_n1024_k1x9_s1_g1024_bias1_same_wmaj, its
 * constant rebuilt to Apple's SHA-256 and its output compared with numpy: docs/engine-model.md,
 * "Ox 2 computes") pins one form: a depthwise convolution (kernels in memory, GroupConvCfg.UnicastEn,
 * UnicastCin 1) of plain fp16 kernels, Sx 2, Sy 1, Kh 1, no Py, its result kept in L2 memory
 * alone (ResultType 0, no tile destination, not transposed); Kw 2 or more (Kw 1: the eighth
 * review). There output position j computes Ox = 2
 * columns, 2j and 2j + 1, from inputs 2j - Px + p, p = 0 .. Kw (td_dw_kel: the record). Any other
 * Ox, or Ox 2 in any other form, is refused naming the field (Oy stays td_fixed's).
 */
static const char *ox_unpinned(const struct td_regs *r, unsigned bar_en)
{
	const uint32_t cc = GET(H13_COMMON_CONVCFG), mac = GET(H13_NE_MACCFG), gc = GET(H13_COMMON_GROUPCONVCFG);
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	const unsigned ox = H13_GET(cc, H13_CONVCFG_OX);
	if (ox == 1u)
		return 0;
	if (ox != 2u)
		return "Common.ConvCfg.Ox other than 1 or 2 not modelled (1 in every real program but "
		       "Apple's depthwise 1x9 and 9x9 over 1024 channels, which set 2)";
	if (!td_ne_reads_kernels(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r)) ||
	    H13_GET(mac, H13_MACCFG_OPMODE) != H13_MAC_OP_CONV || H13_GET(mac, H13_MACCFG_KERNELMODE) ||
	    !H13_GET(gc, H13_GROUPCONV_UNICASTEN) || H13_GET(gc, H13_GROUPCONV_UNICASTCIN) != 1u)
		return "Common.ConvCfg.Ox 2 other than on a depthwise convolution (kernels in memory, "
		       "GroupConvCfg.UnicastEn, UnicastCin 1) not modelled (Apple's depthwise 1x9 pins "
		       "that form only)";
	const struct td_window win = td_window_of(cc);
	if (win.sx != 2u || win.sy != 1u)
		return "Common.ConvCfg.Ox 2 without Sx 2 and Sy 1 not modelled (Apple's depthwise 1x9 "
		       "pins Ox 2 with Sx 2: two columns a position, the positions two columns apart)";
	if (win.kh != 1u || win.py)
		return "Common.ConvCfg.Ox 2 with Kh other than 1 or Py above 0 not modelled (Apple's "
		       "depthwise 1x9 pins Kh 1; its 9x9, phase-sparse over a W of 1, is not pinned)";
	/* (the eighth review: dw_ox2_row counted Kw taps a column for the port's 2^15 saturation) */
	if (win.kw < 2u)
		return "Common.ConvCfg.Ox 2 with Kw 1 not modelled (a column's one tap among the record's two "
		       "positions: whether the MAC's 2^15 port saturation applies, as to two taps, or not, as "
		       "to a one-channel 1x1, is not pinned; Apple's depthwise 1x9 pins Kw 9)";
	if (H13_GET(kc, H13_KERNELCFG_KERNELFMT) != H13_KERNELFMT_FP16 || H13_GET(kc, H13_KERNELCFG_SPARSEFMT) ||
	    H13_GET(kc, H13_KERNELCFG_PALETTIZEDEN) || H13_GET(kc, H13_KERNELCFG_SPARSEBINARY))
		return "Common.ConvCfg.Ox 2 with kernels other than plain fp16 not modelled (Apple's "
		       "depthwise 1x9 pins the record of plain fp16 kernels only)";
	if (H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) != H13_L2_MEM || td_dst_writes(bar_en) ||
	    H13_GET(GET(H13_COMMON_CFG), H13_CFG_OUTTRANSPOSE) ||
	    H13_GET(GET(H13_COMMON_PECFG), H13_CPECFG_OUTTRANSPOSE))
		return "Common.ConvCfg.Ox 2 with the result other than kept in L2 memory alone "
		       "(L2.ResultCfg.ResultType 0, WBase unbound, not transposed) not modelled (Apple's "
		       "depthwise 1x9 leaves its Ox x Wout columns there; how the tile DMA would write "
		       "them is not pinned)";
	return 0;
}

void td_ox_refusal(const struct td_regs *r, unsigned bar_en, struct td_refusal *no)
{
	const char *why = ox_unpinned(r, bar_en);
	if (why)
		TD_REFUSE(no, 0, H13_COMMON_CONVCFG, H13_CONVCFG_OX, why);
	/* Ox x Wout columns a row, where Wout alone is a 15-bit field: past TD_ROW_MAX the model's
	 * rows (and inspect's) cannot hold it (the eighth review: the row was written past them) */
	else if (td_conv_ox(r, bar_en) * (uint64_t)H13_GET(GET(H13_COMMON_OUTDIM), H13_OUTDIM_WOUT) > TD_ROW_MAX)
		TD_REFUSE(no, TD_RF_CAPACITY, H13_COMMON_OUTDIM, H13_OUTDIM_WOUT,
			  "Common.ConvCfg.Ox 2 with Ox x Common.OutDim.Wout over 32768 columns a row: beyond "
			  "the model's rows (32768 values, any Win or Wout alone)");
}

unsigned td_conv_ox(const struct td_regs *r, unsigned bar_en)
{
	return H13_GET(GET(H13_COMMON_CONVCFG), H13_CONVCFG_OX) == 2u && !ox_unpinned(r, bar_en) ? 2u : 1u;
}

uint64_t td_dw_kel(const struct td_regs *r, uint32_t cin)
{
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	const uint64_t bias = H13_GET(GET(H13_NE_MACCFG), H13_MACCFG_BIASMODE);
	if (H13_GET(GET(H13_COMMON_CONVCFG), H13_CONVCFG_OX) == 2u) /* (any other form refused) */
		return 2u * bias + (uint64_t)win.kh * (win.kw + 1u) * 2u;
	return (uint64_t)td_kernel_cin(GET(H13_COMMON_GROUPCONVCFG), cin) * win.kh * win.kw + bias;
}

/* load_kernels, phase-sparse kernels (NE.KernelCfg.SparseFmt) in coefficient channels: fp16 only,
 * and in the layouts whose records a program pins (docs/engine-model.md, "Stride-2 convolutions"):
 * one group or OCGSize 0, or several groups each one whole pass; no last partial pass after whole
 * ones; a partial pass only over the first Cout / 2^OCGSize channels. l: td_ocg_layout's, nout
 * NumGroups x Cout. Nothing without SparseFmt. */
void td_pkern_refusal(const struct td_regs *r, const struct td_ocg_lay *l, uint64_t nout, uint64_t cout,
		      struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	if (!H13_GET(kc, H13_KERNELCFG_SPARSEFMT))
		return;
	if (H13_GET(kc, H13_KERNELCFG_KERNELFMT) != H13_KERNELFMT_FP16)
		TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_SPARSEFMT,
			  "phase-sparse kernels other than fp16 not modelled");
	if ((nout != cout && l->kind != TD_OCG_MOD16 && !l->line) || (l->full && l->tail) ||
	    (l->tail && l->tail != l->g))
		TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_SPARSEFMT,
			  "phase-sparse kernels over several groups with OCGSize above 0 and other than "
			  "one whole pass a group, with a last partial pass after whole ones, or Cout / 16 "
			  "a channel, not modelled (no real program pins their records)");
}

/* load_kernels, dense kernels in coefficient channels: every kernel-reading TD with OCGSize above
 * 0 that a real program holds (the fixtures and the seven sweeps' 320 streams: 136 TDs with
 * OCGSize 1 to 5) has fp16 kernels, and runs of 2^OCGSize outputs (element i of output o at
 * element i x g + o mod g of its pass) are pinned by fp16 elements only; one-byte kernels
 * (KernelFmt 0, and 1, which Apple's less carries at OCGSize 0) in such runs, whether silicon
 * interleaves them by bytes or by pairs, no program shows */
void td_kernel_bytes_refusal(const struct td_regs *r, const struct td_ocg_lay *l, struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	const unsigned kfmt = H13_GET(kc, H13_KERNELCFG_KERNELFMT);
	if (l->kind == TD_OCG_RUNS && !H13_GET(kc, H13_KERNELCFG_SPARSEFMT) &&
	    (kfmt == H13_KERNELFMT_INT8 || kfmt == H13_KERNELFMT_UINT8))
		TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT,
			  "one-byte kernels (NE.KernelCfg.KernelFmt 0 or 1) with Common.ConvCfg.OCGSize "
			  "above 0 not modelled: every real program with OCGSize above 0 has fp16 kernels, "
			  "and where a run's one-byte elements lie is not pinned");
}

/* convolution (kernels in memory, no operand or result in L2 memory): the PE after it with one
 * operand only */
void td_conv_second_source_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (td_pe_in_path(GET(H13_COMMON_CFG)) && H13_GET(GET(H13_PLANAR_CFG), H13_PECFG_SECSRC) != H13_PE_SECSRC_NONE)
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC, "a second PE source after a convolution not modelled");
}

/* load_kernels: kernels in coefficient channels are never palettized (a kernel unit's are, and
 * Apple's depthwise pad form, td_depthwise_refusal) */
void td_palette_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (H13_GET(GET(H13_NE_KERNELCFG), H13_KERNELCFG_PALETTIZEDEN))
		td_refuse(no, 1, H13_NE_KERNELCFG, 0, 32, "palettized coefficient channels not modelled");
}

/* kernel_cfg_read: NE.KernelCfg on a convolution that reads kernels (coefficient channels, a
 * kernel unit, a depthwise convolution): GroupKernelReuse 0 (every real convolution); Align only
 * where align_ok (dense 1x1 fp16 kernels without a bias: Apple's batched matmul, attention and
 * linears); no bit outside the fields a real convolution sets (SparseBinary but where binary_ok,
 * the depthwise pad form, which reads it) */
void td_kernel_cfg_refusal(const struct td_regs *r, int align_ok, int binary_ok, struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	if (H13_GET(kc, H13_KERNELCFG_GROUPKERNELREUSE))
		TD_REFUSE(no, 0, H13_NE_KERNELCFG, H13_KERNELCFG_GROUPKERNELREUSE,
			  "NE.KernelCfg.GroupKernelReuse not modelled (0 in every real convolution)");
	if (H13_GET(kc, H13_KERNELCFG_ALIGN) && !align_ok)
		TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_ALIGN,
			  "NE.KernelCfg.Align on other than dense 1x1 fp16 kernels without a bias not "
			  "modelled (the only kernels Apple's batched matmul, attention and linears set "
			  "it on)");
	const uint32_t kknown = H13_PUT(H13_KERNELCFG_KERNELFMT, ~0u) | H13_PUT(H13_KERNELCFG_PALETTIZEDEN, ~0u) |
				H13_PUT(H13_KERNELCFG_PALETTIZEDBITS, ~0u) | H13_PUT(H13_KERNELCFG_SPARSEFMT, ~0u) |
				H13_PUT(H13_KERNELCFG_ALIGN, ~0u) |
				(binary_ok ? H13_PUT(H13_KERNELCFG_SPARSEBINARY, ~0u) : 0u);
	if (kc & ~kknown)
		td_refuse(no, 0, H13_NE_KERNELCFG, 0, 32, "NE.KernelCfg has bits outside the fields the model knows");
}

/* load_kernels, kernels in coefficient channels (not a kernel unit's, not a depthwise
 * convolution's), before their layout: kernel_cfg_read's (Align where the kernels are dense 1x1
 * fp16 without a bias), then PalettizedEn, KernelFmt 3 and a bias before one-byte kernels */
void td_dense_kernels_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	const unsigned kfmt = H13_GET(kc, H13_KERNELCFG_KERNELFMT);
	const unsigned bias = H13_GET(GET(H13_NE_MACCFG), H13_MACCFG_BIASMODE);
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	td_kernel_cfg_refusal(r, kfmt == H13_KERNELFMT_FP16 && !H13_GET(kc, H13_KERNELCFG_SPARSEFMT) && !bias &&
					 win.kh == 1u && win.kw == 1u,
			      0, no);
	td_palette_refusal(r, no);
	if (kfmt != H13_KERNELFMT_FP16 && kfmt > H13_KERNELFMT_UINT8)
		TD_REFUSE(no, 0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT, "NE.KernelCfg.KernelFmt 3 has no element size");
	if (bias && kfmt != H13_KERNELFMT_FP16)
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_BIASMODE,
			  "NE.MACCfg.BiasMode with kernels other than fp16 not modelled (every real "
			  "convolution with a bias has fp16 kernels and an fp16 bias)");
}

/* convolution, before anything else it reads: a window, stride and input of at least one. cin and
 * win the source's (the tile's, or an L2-resident tensor's: the model's); resident_unknown: the
 * source is an L2-resident tensor whose shape another TD gave (inspect), its Cin and Win not
 * checked */
void td_conv_window_refusal(const struct td_regs *r, unsigned cin, unsigned win, int resident_unknown,
			    struct td_refusal *no)
{
	const struct td_window w = td_window_of(GET(H13_COMMON_CONVCFG));
	if (!w.kw || !w.kh || !w.sx || !w.sy || (!resident_unknown && (!cin || !win)))
		td_refuse(no, 0, H13_COMMON_CONVCFG, 0, 32, "a convolution with a zero kernel size, stride or input");
}

/* conv_biases_modelled: a convolution's biases (NE.MACCfg.BiasMode's, in the kernels; NE.AccBias,
 * one for every output) only where they are pinned: with PostScale 1 (no program shows whether a
 * bias is scaled), not with a kernel unit (ku), and not both at once */
void td_conv_biases_refusal(const struct td_regs *r, int ku, struct td_refusal *no)
{
	const unsigned bias = H13_GET(GET(H13_NE_MACCFG), H13_MACCFG_BIASMODE);
	const int post1 = H13_GET(GET(H13_NE_POSTSCALE), H13_POSTSCALE) == FP16_ONE;
	if (bias && (ku || !post1))
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_BIASMODE,
			  "NE.MACCfg.BiasMode with a kernel unit, or with NE.PostScale other than 1, "
			  "not modelled (no real program pins whether the bias comes before the "
			  "scale)");
	if (GET(H13_NE_ACCBIAS) && (bias || ku || !post1))
		TD_REFUSE(no, 1, H13_NE_ACCBIAS, H13_ACCBIAS,
			  "NE.AccBias on a convolution with BiasMode, a kernel unit or NE.PostScale "
			  "other than 1 not modelled (no real program pins how they combine)");
}

/* pk_params: phase-sparse kernels (NE.KernelCfg.SparseFmt) with KernelDMASrc +0x00 bit 5, and a
 * record's parameters fw/codec decodes (g outputs a record, a tap's slots at least 4 with
 * Common.Cfg.SmallSourceMode, else 2; the window and Cin) */
void td_pk_params_refusal(const struct td_regs *r, unsigned g, unsigned cin, unsigned kh, unsigned kw,
			  unsigned bias, struct td_refusal *no)
{
	if (!H13_GET(GET(H13_NE_KERNELCFG), H13_KERNELCFG_SPARSEFMT))
		return;
	if (!(GET(H13_KDMA_WORD0) & H13_KDMA_WORD0_SPARSE))
		td_refuse(no, 1, H13_KDMA_WORD0, 0, 32, TD_PK_BIT5_TEXT);
	const unsigned lmin = H13_GET(GET(H13_COMMON_CFG), H13_CFG_SMALLSOURCE) ? 4u : 2u;
	const struct codec_pkern pk = {g, g > lmin ? g : lmin, kh, kw, cin, bias, 0, 0};
	if (!codec_pkern_slots(&pk))
		td_refuse(no, 1, H13_NE_KERNELCFG, 0, 32, "phase-sparse kernels of this window, OCGSize or Cin not modelled");
}

/* load_kernels, dense kernels in runs or in OCGSize 0 blocks (l: td_ocg_layout's; nout NumGroups x
 * Cout; kel the elements of a kernel, its bias first with BiasMode; len each coefficient channel's
 * bytes, 0 for one not read: the model's ranges, or CoeffBfrSize where enabled, which td_ranges
 * makes them): a channel longer than the kernels the layout puts in it, rounded up to 64 bytes (in
 * runs the channel's whole; with OCGSize 0 each of its blocks, output o block o / 16 of channel o
 * mod 16, every channel taking up to channel 0's ceil(nout / 16) blocks). Where a channel is shorter than the kernels it holds the model refuses that first ("not
 * inside its coefficient channel", a data refusal), and nothing is recorded. With OCGSize 0 every
 * real program sizes its channels exactly so (conv.hwx's one block, Apple's H13 grouped 3x3 over 4
 * groups of 16 -> 16, conv_known_k3_c64_n64_s16_st1_g4_bias1_same: four 320-byte blocks in 0x500,
 * and its depthwise 1x9, whose channels hold more than its lanes under a layout the model refuses,
 * Ox 2); a sixth review found a channel longer than its blocks computing, the bytes past them
 * unread. */
void td_coeff_sizes_refusal(const struct td_regs *r, const struct td_ocg_lay *l, uint64_t nout, uint64_t kel,
			    const uint64_t len[H13_COEFF_NCH], struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	if ((l->kind != TD_OCG_RUNS && l->kind != TD_OCG_MOD16) || H13_GET(kc, H13_KERNELCFG_SPARSEFMT))
		return;
	const uint64_t elem = H13_GET(kc, H13_KERNELCFG_KERNELFMT) == H13_KERNELFMT_FP16 ? 2u : 1u;
	uint64_t need[H13_COEFF_NCH];
	if (l->kind == TD_OCG_MOD16) {
		const uint64_t blk = (kel * elem + 63u) & ~(uint64_t)63u;
		for (unsigned c = 0; c < H13_COEFF_NCH; c++)
			if (len[c] && len[c] < (c < nout ? (nout - 1u - c) / H13_COEFF_NCH + 1u : 0u) * blk)
				return;
		/* (a channel of fewer blocks than channel 0, nout not a multiple of 16, may be sized
		 * as channel 0 is: whether Apple sizes it to its own blocks is not pinned, and the
		 * bytes after its last block are a block's place, not a layout's) */
		for (unsigned c = 0; c < H13_COEFF_NCH; c++)
			need[c] = (nout + H13_COEFF_NCH - 1u) / H13_COEFF_NCH * blk;
	} else {
		uint64_t blk = l->g * kel * elem;
		if (l->line) /* (over several groups each group's block padded to 64 bytes) */
			blk = (blk + 63u) & ~(uint64_t)63u;
		const uint64_t held = l->full * blk + l->tail * kel * elem;
		for (unsigned c = 0; c < H13_COEFF_NCH; c++)
			if (len[c] && len[c] < held)
				return;
		for (unsigned c = 0; c < H13_COEFF_NCH; c++)
			need[c] = (held + 63u) & ~(uint64_t)63u;
	}
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		if (len[c] > need[c]) {
			td_refuse(no, 1, H13_COEFF_BFRSIZE(c), 0, 32,
				  "a coefficient channel's CoeffBfrSize larger than the kernels the "
				  "layout (Common.ConvCfg.OCGSize, Common.Cout) puts in it, rounded up "
				  "to 64 bytes: the sizes disagree with the layout");
			return;
		}
}

/* depthwise, dense kernels (not phase-sparse): channel c's kernel (kel elements of KernelFmt, its
 * bias first) in lane c mod 16 at (c / 16) x kel elements, inside it (len: the channels' bytes, 0
 * for none); the last 16 channels hold each lane's farthest. Then no lane longer than lane 0's
 * kernels rounded up to 64 bytes. */
void td_dw_lanes_inside_refusal(const struct td_regs *r, unsigned C, uint64_t kel, const uint64_t len[H13_COEFF_NCH],
				struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	if (H13_GET(kc, H13_KERNELCFG_SPARSEFMT))
		return;
	const uint64_t elem = H13_GET(kc, H13_KERNELCFG_KERNELFMT) == H13_KERNELFMT_FP16 ? 2u : 1u;
	for (unsigned c = C > H13_COEFF_NCH ? C - H13_COEFF_NCH : 0u; c < C; c++) {
		const uint64_t l = len[c % H13_COEFF_NCH], off = (uint64_t)(c / H13_COEFF_NCH) * kel * elem;
		if (!l || off > l || kel * elem > l - off) {
			td_refuse(no, TD_RF_DATA, TD_KEPT_NO_REG, 0, 0, TD_NOT_INSIDE_TEXT);
			return;
		}
	}
	/* then no lane longer than lane 0's kernels, rounded up to 64 bytes: every real depthwise
	 * convolution sizes its lanes so (Apple's H13 3x3 over 64 channels, 0x80 for 4 x 18 bytes,
	 * and over 1024, conv_probe_k3_c1024_n1024_s16_st1_g1024_bias0_same: 0x480 for 64 x 18; the
	 * less, 0x40 after its record); a longer lane holds bytes the layout leaves unread, as a
	 * dense channel's (td_coeff_sizes_refusal; a sixth review found it computing) */
	const uint64_t need = (((uint64_t)C + H13_COEFF_NCH - 1u) / H13_COEFF_NCH * kel * elem + 63u) & ~(uint64_t)63u;
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		if (len[c] > need) {
			td_refuse(no, 1, H13_COEFF_BFRSIZE(c), 0, 32,
				  "a coefficient channel's CoeffBfrSize larger than the kernels the "
				  "layout (Common.ConvCfg.OCGSize, Common.Cout) puts in it, rounded up "
				  "to 64 bytes: the sizes disagree with the layout");
			return;
		}
}

/* every enabled coefficient channel sized: an enabled channel of CoeffBfrSize 0 is td_ranges's
 * TD_E_EMPTY, which the control path refuses before the model reads a kernel, so inspect marks no
 * kernel against it (read from the register, not from td_coeff_lens, which takes a channel's
 * record off its length) */
int td_coeff_sized(const struct td_regs *r)
{
	const unsigned en = td_coeff_mask(r);
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		if ((en >> c & 1u) && !H13_ADDR_BYTES(GET(H13_COEFF_BFRSIZE(c))))
			return 0;
	return 1;
}

/* the coefficient channels' bytes as load_kernels and load_kernels_ku read them: as td_ranges
 * gives them (CoeffBfrSize where enabled), less the activation record at each channel's head where
 * the NE selects the LUT and td_lut_place puts it there (TD_LUT_HEADS: engine/model/model.c
 * resolve_act moves every channel past its record before the kernels are read). Never on a TD
 * that reads a kernel unit (ku: the program's unit feeds it; the control path writes its stream
 * words, which the file's TD does not hold): resolve_act takes its channel 0 for the OCG whole and
 * reads no record at the channels' heads (td_lut_place's conv flag clear there). A fifth review
 * found a kernel-unit convolution with the LUT marked "not one OCG" by inspect, 0x80 taken off its
 * channel 0, where the model computed it. */
void td_coeff_lens(const struct td_regs *r, int ku, uint64_t len[H13_COEFF_NCH])
{
	const unsigned en = td_coeff_mask(r);
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		len[c] = (en >> c & 1u) ? H13_ADDR_BYTES(GET(H13_COEFF_BFRSIZE(c))) : 0u;
	if (td_lut_place_of(r, ku) == TD_LUT_HEADS)
		for (unsigned c = 0; c < H13_COEFF_NCH; c++)
			if (en >> c & 1u)
				len[c] -= ACTLUT_STRIDE;
}

/* Where a TD that selects the LUT finds its record among its coefficient channels, as
 * engine/model/model.c's resolve_act asks td_lut_place: over the enabled channels' CoeffBfrSize
 * (the lengths td_ranges gives them), a convolution from memory's conv flag clear with a kernel
 * unit (ku; its channel 0 the OCG, no record: skipped); TD_LUT_NONE where the LUT is not
 * selected. */
enum td_lut_place td_lut_place_of(const struct td_regs *r, int ku)
{
	const unsigned en = td_coeff_mask(r);
	const uint32_t mac = GET(H13_NE_MACCFG);
	uint64_t on[H13_COEFF_NCH];
	unsigned n = 0, ch = 0;
	if (H13_GET(mac, H13_MACCFG_NONLINEARMODE) != H13_NONLINEAR_LUT)
		return TD_LUT_NONE;
	for (unsigned c = 0; c < H13_COEFF_NCH; c++)
		if (en >> c & 1u)
			on[n++] = H13_ADDR_BYTES(GET(H13_COEFF_BFRSIZE(c)));
	const int conv = td_conv_from_memory(mac, GET(H13_NE_POSTSCALE), n);
	const unsigned skip = ku && conv && n ? 1u : 0u;
	return td_lut_place(on + skip, n - skip, conv && !ku, &ch);
}

/* compute.c's kernel_not_the_record: a convolution that reads its kernels from memory (the NE in
 * the path, KernelMode 0, not a pass-through; no kernel unit) whose record is a coefficient
 * channel of exactly one record (td_lut_place's TD_LUT_CHANNEL) would convolve with the record's
 * bytes: that channel holds no kernel. The model refuses it once the record has applied (a record
 * that does not read is refused first, by its own error, which inspect's record line shows). */
void td_conv_record_channel_refusal(const struct td_regs *r, int ku, struct td_refusal *no)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	if (mac && !ku && td_conv_from_memory(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r)) &&
	    td_lut_place_of(r, 0) == TD_LUT_CHANNEL)
		TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_KERNELMODE, TD_CONV_RECORD_WHY);
}

/* resolve_act: the activation record at each coefficient channel's head with the kernels after it
 * (TD_LUT_HEADS, place as td_lut_place gives it) is pinned on dense kernels only: Apple's H13
 * matmuls with a fused gelu or silu (fp16, in OCGSize runs) and its less (KernelFmt 1 bytes,
 * depthwise). Phase-sparse records (NE.KernelCfg.SparseFmt: Apple's stride-2 convolutions and its
 * depthwise pad form) behind a record no program shows: where their records, each on its own
 * 64-byte line of the channel, start then is not pinned (a fifth review found them computing, the
 * records read from +0x80). Dense fp16 kernels in OCGSize-0 blocks and depthwise lanes of
 * other than KernelFmt 1 bytes behind a record: no program shows them either (a sixth review
 * found both computing). */
void td_lut_heads_refusal(const struct td_regs *r, enum td_lut_place place, struct td_refusal *no)
{
	if (place != TD_LUT_HEADS)
		return;
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	if (H13_GET(kc, H13_KERNELCFG_SPARSEFMT))
		TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_SPARSEFMT, TD_LUT_HEADS_SPARSE_WHY);
	/* a sixth review's: the census of the real programs (the fixtures, the sweeps' streams, the
	 * sweeps' notes of Apple's matmuls and less) finds the record at the heads before dense fp16
	 * kernels in OCGSize runs (OCGSize 4 and 5) and before the less's KernelFmt 1 depthwise lanes
	 * only; before depthwise lanes of other kernels, or dense kernels in OCGSize-0 blocks, the
	 * model computed on the pinned forms' reading, which no program shows */
	else if (H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_UNICASTEN)) {
		if (H13_GET(kc, H13_KERNELCFG_KERNELFMT) != H13_KERNELFMT_UINT8)
			TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT, TD_LUT_HEADS_DW_WHY);
	} else if (!H13_GET(GET(H13_COMMON_CONVCFG), H13_CONVCFG_OCGSIZE))
		TD_REFUSE(no, 1, H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE, TD_LUT_HEADS_OCG0_WHY);
}

/* load_kernels_ku, a kernel-unit TD's OCG in coefficient channel 0 (nout outputs, per weights a
 * kernel; len0 channel 0's bytes: the model's range, or the CoeffBfrSize td_ranges makes it, 0
 * without one), at the model's three points: before the weights are sized (stage 0:
 * kernel_cfg_read's, td_kernel_cfg_refusal with Align refused, OCGSize 0, channel 0 one OCG of
 * nout channels, palettized or sparse only fp16 and not both, at least a bit of the OCG a weight),
 * at the palette (stage 1: a width fw/codec decodes), and after the palette stream (stage 2: the
 * sparse masks inside the OCG, a kernel's palette indices or its weights inside its OCG channel;
 * the first output's, which every output shares). The sizes are unreadable weights (TD_RF_DATA),
 * as the model has always named them, on Common's CoeffBfrSize of channel 0. */
void td_ku_kernels_refusal(const struct td_regs *r, uint64_t nout, uint64_t per, uint64_t len0, int stage,
			   struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	const unsigned kfmt = H13_GET(kc, H13_KERNELCFG_KERNELFMT), pal = H13_GET(kc, H13_KERNELCFG_PALETTIZEDEN);
	const unsigned sparse = H13_GET(kc, H13_KERNELCFG_SPARSEFMT), bits = H13_GET(kc, H13_KERNELCFG_PALETTIZEDBITS);
	const uint64_t len = len0;
	if (!stage) {
		td_kernel_cfg_refusal(r, 0, 0, no);
		if (H13_GET(GET(H13_COMMON_CONVCFG), H13_CONVCFG_OCGSIZE))
			TD_REFUSE(no, 1, H13_COMMON_CONVCFG, H13_CONVCFG_OCGSIZE,
				  "Common.ConvCfg.OCGSize above 0 on a kernel-unit TD not modelled");
		if (!len || !nout || len % nout)
			td_refuse(no, TD_RF_DATA, H13_COEFF_BFRSIZE(0), 0, 32,
				  "coefficient channel 0 is not one OCG of the TD's output channels");
	}
	if (no->why || !len || !nout || len % nout)
		return;
	const uint64_t S = len / nout;
	if (!stage) {
		if ((pal || sparse) && kfmt != H13_KERNELFMT_FP16)
			TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT,
				  "palettized or sparse weights that are not fp16");
		if (pal && sparse)
			TD_REFUSE(no, 1, H13_NE_KERNELCFG, H13_KERNELCFG_SPARSEFMT,
				  "palettized and sparse weights at once not modelled");
		/* every weight takes at least one bit of the OCG (palette indices of 1 bit, sparse masks) */
		if (per > S * 8u)
			td_refuse(no, TD_RF_DATA, H13_COEFF_BFRSIZE(0), 0, 32,
				  "an OCG channel smaller than one bit per weight of its kernel");
		return;
	}
	if (per > S * 8u || ((pal || sparse) && kfmt != H13_KERNELFMT_FP16) || (pal && sparse))
		return;
	if (stage == 1) {
		if (pal && !codec_palette_bits_ok(bits))
			TD_REFUSE(no, 0, H13_NE_KERNELCFG, H13_KERNELCFG_PALETTIZEDBITS,
				  "NE.KernelCfg.PalettizedBits not a palette width");
		return;
	}
	if (pal && !codec_palette_bits_ok(bits))
		return;
	const uint64_t M = (per + 7u) / 8u;
	if (sparse && (M > S || nout * M > len))
		td_refuse(no, TD_RF_DATA, H13_COEFF_BFRSIZE(0), 0, 32, "sparse masks do not fit the OCG");
	else if (pal && (per * bits + 7u) / 8u > S)
		td_refuse(no, TD_RF_DATA, H13_COEFF_BFRSIZE(0), 0, 32, "palette indices larger than an OCG channel");
	else if (!pal && !sparse) {
		const unsigned elem = kfmt == H13_KERNELFMT_FP16 ? 2u : kfmt <= H13_KERNELFMT_UINT8 ? 1u : 0u;
		if (!elem)
			TD_REFUSE(no, 0, H13_NE_KERNELCFG, H13_KERNELCFG_KERNELFMT, "NE.KernelCfg.KernelFmt 3 has no element size");
		else if (per * elem > S)
			td_refuse(no, TD_RF_DATA, H13_COEFF_BFRSIZE(0), 0, 32, "a kernel larger than an OCG channel");
	}
}

/* load_kernels, dense kernels in coefficient channels (not phase-sparse, which are decoded first,
 * and not a kernel unit's or a depthwise convolution's): every output's kernel (kel elements, its
 * bias first) inside the channel the layout l puts it in, len each channel's bytes (0: none; the
 * model's ranges, or the CoeffBfrSize td_ranges makes them, td_coeff_lens). An unreadable-weights
 * refusal naming no register, as the model has always named it. Each channel's farthest kernel
 * lies in the last whole pass or in the last partial one (MOD16: the last 16 outputs), so those
 * are the outputs checked. */
void td_kernels_inside_refusal(const struct td_regs *r, const struct td_ocg_lay *l, uint64_t nout, uint64_t kel,
			       const uint64_t len[H13_COEFF_NCH], struct td_refusal *no)
{
	const uint32_t kc = GET(H13_NE_KERNELCFG);
	if (H13_GET(kc, H13_KERNELCFG_SPARSEFMT) || (l->kind != TD_OCG_MOD16 && l->kind != TD_OCG_RUNS) || !kel)
		return;
	const unsigned elem = H13_GET(kc, H13_KERNELCFG_KERNELFMT) == H13_KERNELFMT_FP16 ? 2u : 1u;
	const uint64_t pass = l->kind == TD_OCG_RUNS ? (uint64_t)H13_COEFF_NCH * l->g : H13_COEFF_NCH;
	const uint64_t whole = l->kind == TD_OCG_RUNS ? l->full : nout / pass;
	uint64_t from = whole ? (whole - 1u) * pass : 0u;
	if (l->kind != TD_OCG_RUNS)
		from = nout > pass ? nout - pass : 0u;
	for (uint64_t o = from; o < nout; o++) {
		unsigned ch;
		uint64_t off, step;
		td_ocg_locate(l, o, kel, elem, &ch, &off, &step);
		if (ch >= H13_COEFF_NCH || !len[ch] || off > len[ch] || (kel - 1u) * step + elem > len[ch] - off) {
			td_refuse(no, TD_RF_DATA, TD_KEPT_NO_REG, 0, 0, TD_NOT_INSIDE_TEXT);
			return;
		}
	}
}

/*
 * decode_ne's and decode_stages's own checks of a field's value, which inspect named in its own
 * words ("OpMode 7 (not modelled)") and now marks with the model's text: each of the NE's on a TD
 * whose NE is in the path (MACCfg nonzero), each of the PE's with the PE in the path.
 */
/* decode_ne: NE.MACCfg.OpMode other than 0, 2, 3 and 4 */
void td_ne_opmode_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	const unsigned op = H13_GET(mac, H13_MACCFG_OPMODE);
	if (mac && op != H13_MAC_OP_ELEMWISE && op != H13_MAC_OP_CONV && op != H13_MAC_OP_RCAS && op != H13_MAC_OP_CHMAX)
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_OPMODE, "NE.MACCfg.OpMode not modelled");
}

/* decode_ne: NE.MACCfg.NonlinearMode 3 */
void td_ne_nonlinear_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (H13_GET(GET(H13_NE_MACCFG), H13_MACCFG_NONLINEARMODE) == 3u)
		TD_REFUSE(no, 0, H13_NE_MACCFG, H13_MACCFG_NONLINEARMODE, "NE.MACCfg.NonlinearMode 3 not modelled");
}

/* ne_kernel_mode: NE.AccBias is read by a convolution of the NE (kernels in memory: one bias for
 * every output; KernelMode 1: the unit kernel's), nowhere else: not on another OpMode, nor on a
 * pass-through (no kernel) */
void td_ne_accbias_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t mac = GET(H13_NE_MACCFG);
	const int conv = mac && H13_GET(mac, H13_MACCFG_OPMODE) == H13_MAC_OP_CONV &&
			 !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r));
	if (mac && GET(H13_NE_ACCBIAS) && !conv)
		TD_REFUSE(no, 0, H13_NE_ACCBIAS, H13_ACCBIAS, "NE.AccBias outside a convolution (MACCfg OpMode 0) not modelled");
}

/* decode_stages: the PE in the path (Common.Cfg.TaskType) with every Planar word 0 */
void td_pe_words_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (td_pe_in_path(GET(H13_COMMON_CFG)) &&
	    !(GET(H13_PLANAR_CFG) | GET(H13_PLANAR_BIASSCALE) | GET(H13_PLANAR_PRESCALE) | GET(H13_PLANAR_FINALSCALE)))
		TD_REFUSE(no, 1, H13_COMMON_CFG, H13_CFG_TASKTYPE,
			  "Common.Cfg.TaskType puts the planar engine in the path but Planar.Cfg, "
			  "BiasScale, PreScale and FinalScale are all 0 not modelled (no real TD)");
}

/* decode_stages: Planar.Cfg.Condition other than 0 and 1 (|.|); and 1 on an elementwise TD where
 * the place of the |.| among the PE's steps changes the value. abs.bin and Apple's unary_abs (one
 * operand, PreScale 1, Bias 0, Scale 1) pin |x|, where every order agrees; the model takes |.|
 * after the operation and before the Bias (pe_val), which no program pins where they differ: with
 * a second operand (|a + b| or |a| + |b|), a negative PreScale or Scale (|a x p| or |a| x p), or
 * a Bias (|r + b| or |r| + b), ReluEn (relu(|r|) or |relu(r)|), or a pool window above 1 x 1
 * (|max x| or max |x|). A reduction's |.| (the maximum of |x|) is td_kept_of's. */
void td_pe_condition_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t pc = GET(H13_PLANAR_CFG), cfg = GET(H13_COMMON_CFG);
	const unsigned cond = H13_GET(pc, H13_PECFG_CONDITION), task = H13_GET(cfg, H13_CFG_TASKTYPE);
	if (!td_pe_in_path(cfg))
		return;
	if (cond > H13_PE_COND_ABS)
		TD_REFUSE(no, 0, H13_PLANAR_CFG, H13_PECFG_CONDITION, "Planar.Cfg.Condition (a comparison) not modelled");
	if (cond != H13_PE_COND_ABS || task == H13_TASK_REDUCE || task == H13_TASK_REDUCE2)
		return;
	const uint32_t bs = GET(H13_PLANAR_BIASSCALE);
	const uint32_t pre = H13_GET(GET(H13_PLANAR_PRESCALE), H13_PRESCALE);
	/* (the fourteenth review: with ReluEn, relu(|r|) = |r| where |relu(r)| = relu(r); over a pool
	 * window above 1 x 1, |max x| where max |x| (pooling's |.| is taken after the pool) */
	const int pooled = pe_window_pool(r) != H13_PE_POOL_NONE;
	if (td_pe_two_operands(pc) || (pre & FP16_SIGN) || /* (FirstSrc's negation: two operands) */
	    (H13_GET(bs, H13_BIASSCALE_SCALE) & FP16_SIGN) || (H13_GET(bs, H13_BIASSCALE_BIAS) & ~FP16_SIGN) ||
	    H13_GET(pc, H13_PECFG_RELUEN) || pooled)
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_CONDITION, TD_PE_ABS_ORDER_WHY);
}

/* decode_stages: Planar.Cfg.NLMode outside a reduction */
void td_pe_nlmode_refusal(const struct td_regs *r, struct td_refusal *no)
{
	if (td_pe_in_path(GET(H13_COMMON_CFG)) && H13_GET(GET(H13_PLANAR_CFG), H13_PECFG_NLMODE))
		TD_REFUSE(no, 0, H13_PLANAR_CFG, H13_PECFG_NLMODE, "Planar.Cfg.NLMode not modelled");
}

/* decode_stages: Planar.Cfg.OpMode above 4, SecSrc 1, SecSrc 3 (subtracted) on other than an add */
void td_pe_op_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t pc = GET(H13_PLANAR_CFG);
	const unsigned op = H13_GET(pc, H13_PECFG_OPMODE), sec = H13_GET(pc, H13_PECFG_SECSRC);
	if (!td_pe_in_path(GET(H13_COMMON_CFG)))
		return;
	if (op > H13_PE_OP_SQ)
		TD_REFUSE(no, 0, H13_PLANAR_CFG, H13_PECFG_OPMODE, "Planar.Cfg.OpMode not modelled");
	if (sec != H13_PE_SECSRC_NONE && sec != H13_PE_SECSRC_TILE1 && sec != H13_PE_SECSRC_SUB)
		TD_REFUSE(no, 0, H13_PLANAR_CFG, H13_PECFG_SECSRC, "Planar.Cfg.SecSrc 1 not modelled (never seen)");
	/* 3 subtracts the second operand: seen with add only (binary_sub, floor, softmax.bin TD 1) */
	if (sec == H13_PE_SECSRC_SUB && op != H13_PE_OP_ADD)
		TD_REFUSE(no, 1, H13_PLANAR_CFG, H13_PECFG_SECSRC,
			  "Planar.Cfg.SecSrc 3 (the second operand subtracted) with an operation other "
			  "than add not modelled");
}

/* decode_stages: Planar.Cfg.FirstSrc 1 but on a product of two operands (the first negated) */
void td_pe_firstsrc_refusal(const struct td_regs *r, struct td_refusal *no)
{
	const uint32_t pc = GET(H13_PLANAR_CFG);
	if (td_pe_in_path(GET(H13_COMMON_CFG)) && H13_GET(pc, H13_PECFG_FIRSTSRC) && !td_pe_first_negated(pc))
		TD_REFUSE(no, 0, H13_PLANAR_CFG, H13_PECFG_FIRSTSRC,
			  "Planar.Cfg.FirstSrc 1 not modelled but on a product of two operands (the first "
			  "negated)");
}

/* compute: a TD whose result leaves nowhere (no destination written through WBase, no L2-resident
 * or L2-memory result). With Planar words set its result would stay in the engine (the second
 * review). With every Planar word 0 it completed writing nothing until the fourteenth review: the
 * census's ResultType 0 -> 2 on the softmaxes' NE TDs (no WBase bound) then left the L2 memory an
 * earlier TD wrote for the next TD to read, a run exiting 0 with numbers nothing pins. What silicon
 * does with such a TD (drops the result, writes it at ResultBase anyway, hangs) is not measured,
 * and no program on disk holds one (docs/engine-model.md, "What a fourteenth review found"). */
void td_result_nowhere_refusal(const struct td_regs *r, unsigned bar_en, const struct td_l2mem *lm,
			       struct td_refusal *no)
{
	const unsigned rt = H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE);
	if (td_dst_writes(bar_en) || rt == H13_L2_RESIDENT || lm->res.on)
		return;
	if (GET(H13_PLANAR_CFG) | GET(H13_PLANAR_BIASSCALE) | GET(H13_PLANAR_PRESCALE) | GET(H13_PLANAR_FINALSCALE))
		td_refuse(no, 1, H13_DST_DMACONFIG, 0, 32,
			  "a TD whose result leaves nowhere (the destination DMA off, no L2-resident "
			  "or L2-memory result) with Planar words set not modelled (its result would "
			  "stay in the engine; no real TD has one)");
	else
		TD_REFUSE(no, 1, H13_L2_RESULTCFG, H13_L2_RESULTTYPE, TD_RESULT_NOWHERE_WHY);
}

/*
 * Apple's depthwise pad form (NE.KernelCfg.SparseBinary, docs/engine-model.md "Apple's pad form"),
 * over c output channels: stage 0 (pad_form_palettes, first): no bias, at most 16 channels (one
 * record a lane); stage 1 (pad_form_small_source, after the palettes' bytes, data): under
 * Common.Cfg.SmallSourceMode, a window whose record is one mask byte at 2 slots a tap (Apple's
 * pad with the bit set pins that). Nothing without SparseBinary.
 */
void td_pad_form_refusal(const struct td_regs *r, unsigned c, int stage, struct td_refusal *no)
{
	if (!H13_GET(GET(H13_NE_KERNELCFG), H13_KERNELCFG_SPARSEBINARY))
		return;
	if (!stage) {
		if (H13_GET(GET(H13_NE_MACCFG), H13_MACCFG_BIASMODE))
			TD_REFUSE(no, 1, H13_NE_MACCFG, H13_MACCFG_BIASMODE,
				  "NE.MACCfg.BiasMode with SparseBinary kernels (Apple's pad form) not "
				  "modelled: no program pins where the bias lies");
		if (c > H13_COEFF_NCH)
			td_refuse(no, 1, H13_COMMON_CIN, 0, 32,
				  "SparseBinary kernels (Apple's pad form) over more than 16 channels not "
				  "modelled: no program pins where a lane's second record and its palette lie");
		return;
	}
	const struct td_window w = td_window_of(GET(H13_COMMON_CONVCFG));
	const struct codec_pkern pk = {1, TD_PF_SSM_LANES, w.kh, w.kw, 1, 0, 1, FP16_ONE};
	if (H13_GET(GET(H13_COMMON_CFG), H13_CFG_SMALLSOURCE) && codec_pkern_slots(&pk) != 8u)
		TD_REFUSE(no, 1, H13_COMMON_CFG, H13_CFG_SMALLSOURCE,
			  "SparseBinary kernels (Apple's pad form) under Common.Cfg.SmallSourceMode "
			  "with a window whose record is more than one mask byte not modelled: no "
			  "program pins how many slots a tap takes there");
}
