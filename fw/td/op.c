/* What a TD computes, in words, from its register image (see td.h, td_print_op). */
#include "fw/common/fp16.h"
#include "fw/td/td.h"

#define GET(a) (r->get(r->ctx, (a)))

static const char *fmt_name(unsigned f)
{
	return f == H13_FMT_INT8 ? "int8" : f == H13_FMT_UINT8 ? "uint8" : f == H13_FMT_FP16 ? "fp16" : "format?";
}

/* an fp16 field as "1" or "1.442383", a subnormal exactly ("3 x 2^-24": fp16_format_sub) */
static const char *h16(uint16_t h, char *buf)
{
	fp16_format_sub(h, buf, 16);
	return buf;
}

/* an fp32 word: its decimal when it is an fp16 value, else its bits */
static const char *f32(uint32_t w, char *buf)
{
	uint32_t e = (w >> 23) & 0xffu, m = w & 0x7fffffu;
	if ((w & 0x7fffffffu) == 0) {
		buf[0] = '0';
		buf[1] = 0;
	} else if (e >= 113 && e <= 142 && (m & 0x1fffu) == 0) { /* a normal fp16's range */
		fp16_format((uint16_t)((w >> 16 & 0x8000u) | (e - 112) << 10 | m >> 13), buf, 16);
	} else if (!m && e && e < 255) { /* a power of two outside it: 2^-15 (1/32768), a mean's */
		unsigned k = 0, p = e >= 127 ? e - 127 : 127 - e;
		char digits[4];
		if (w >> 31)
			buf[k++] = '-';
		buf[k++] = '2';
		buf[k++] = '^';
		if (e < 127)
			buf[k++] = '-';
		unsigned nd = 0;
		do
			digits[nd++] = (char)('0' + p % 10u);
		while ((p /= 10u) && nd < sizeof digits);
		while (nd)
			buf[k++] = digits[--nd];
		buf[k] = 0;
	} else {
		static const char hex[] = "0123456789abcdef";
		buf[0] = '0';
		buf[1] = 'x';
		for (unsigned i = 0; i < 8; i++)
			buf[2 + i] = hex[w >> (28 - 4 * i) & 15u];
		buf[10] = 0;
	}
	return buf;
}

/* A tile channel's byte offset inside its BAR (its BaseAddr register), when it is not 0: a
 * program that writes one tensor in parts (the macOS atan2 segment's copies into channel planes)
 * shows where each part goes. */
static void print_offset(uint32_t base_reg, outf_fn out, void *ctx)
{
	uint64_t off = H13_ADDR_BYTES(base_reg);
	if (off)
		outf(out, ctx, " +0x%lx", (unsigned long)off);
}

/* The line's tail for a TD the kept-value reading refuses. */
static void kept_refused(const struct td_kept *k, outf_fn out, void *ctx)
{
	if (k->no.why)
		outf(out, ctx, " (not modelled: %s)", k->no.why);
}

static void print_l2view(const struct td_l2view *v, outf_fn out, void *ctx);

/* The PE's second operand: "RBase1 +0x..." or "L2 memory at 0x...", and ", through a ReLU" with
 * L2.L2Cfg.Src2ReLU (as engine/model/compute.c's relu_row) */
static void print_second(const struct td_l2mem *lm, const struct td_regs *r, outf_fn out, void *ctx)
{
	if (lm->src2.on) {
		print_l2view(&lm->src2, out, ctx);
	} else {
		outf(out, ctx, "RBase1");
		print_offset(GET(H13_SRC2_BASEADDR), out, ctx);
	}
	if (H13_GET(GET(H13_L2_CFG), H13_L2CFG_SRC2RELU))
		outf(out, ctx, ", through a ReLU");
}

/* "L2 memory at 0x..., broadcast along W H C" / ", kept as one row of C" / ", C and W swapped": an
 * operand or result in L2 memory */
static void print_l2view(const struct td_l2view *v, outf_fn out, void *ctx)
{
	outf(out, ctx, "L2 memory at byte 0x%lx", (unsigned long)v->base);
	if (v->bcast & (H13_BCAST_W | H13_BCAST_H | H13_BCAST_D | H13_BCAST_C))
		outf(out, ctx, ", broadcast along%s%s%s%s", v->bcast & H13_BCAST_W ? " W" : "",
		     v->bcast & H13_BCAST_H ? " H" : "", v->bcast & H13_BCAST_D ? " D" : "",
		     v->bcast & H13_BCAST_C ? " C" : "");
	if (v->transpose) /* td_l2view_addr: C and W swapped */
		outf(out, ctx, v->h == 1 && v->w == 1 ? ", kept as one row of C" : ", C and W swapped");
}

/* After a one-byte tile's format: how its DMA moves it, when its Fmt is a one-byte kind
 * (td_tile_fmt_byte), and that bytes 0x80..0xff are refused when the two disagree on the sign
 * (td_tile_sign_disagrees, as the model refuses them) */
static void print_byte_dma(uint32_t fmt, unsigned chfmt, outf_fn out, void *ctx)
{
	const int b = td_tile_fmt_byte(fmt);
	if (b < 0 || chfmt == H13_FMT_FP16)
		return;
	outf(out, ctx, ", moved as %s%s", fmt_name((unsigned)b),
	     td_tile_sign_disagrees(fmt, chfmt) ? " (bytes 0x80..0xff refused: the two formats disagree on their sign)"
						: "");
}

/* After a tile's shape: its channel interleave, when above 1 (td_tile_interleave) */
static void print_interleave(uint32_t fmt, outf_fn out, void *ctx)
{
	const unsigned i = td_tile_interleave(fmt);
	if (i > 1u)
		outf(out, ctx, ", channels interleaved by %u (rows of W x %u values, a plane a group of %u)", i, i, i);
}

/* The line's tail for a refusal fw/td/refusal.c records (the model's fault text), whole: a text
 * longer than one outf line (OUTF_LINE) is given in pieces, not cut */
static void refusal_tail(const struct td_refusal *no, outf_fn out, void *ctx)
{
	if (!no->why)
		return;
	outf(out, ctx, " (not modelled: ");
	for (const char *p = no->why; *p;) {
		int n = 0;
		while (p[n] && n < 128)
			n++;
		outf(out, ctx, "%.*s", n, p);
		p += n;
	}
	outf(out, ctx, ")");
}

void td_print_op(const struct td_regs *r, unsigned bar_en, outf_fn out, void *ctx)
{
	td_print_op_ku(r, bar_en, 0, out, ctx);
}

/* the BAR indices not known: each slot its own (no two tiles in one BAR) */
void td_print_op_ku(const struct td_regs *r, unsigned bar_en, unsigned ku, outf_fn out, void *ctx)
{
	struct td_hdr h = {0};
	h.bar_en = (uint8_t)bar_en;
	for (unsigned i = 0; i < H13_BAR_NSLOTS; i++)
		h.bar_idx[i] = (uint8_t)i;
	td_print_op_hdr(r, &h, ku, out, ctx);
}

/* A read of L2 memory no TD before wrote (fw/td l2written.c), as the walk found it */
struct l2unwritten {
	struct td_refusal no;
	long at;  /* its byte address */
	int lost; /* the walk stopped at this TD (TD_L2_WALK_MAX) */
};

static void print_op(const struct td_regs *r, const struct td_hdr *hdr, unsigned ku, const struct td_residents *rs,
		     const struct l2unwritten *uw, outf_fn out, void *ctx);

void td_print_op_hdr(const struct td_regs *r, const struct td_hdr *hdr, unsigned ku, outf_fn out, void *ctx)
{
	print_op(r, hdr, ku, NULL, NULL, out, ctx);
}

void td_print_op_walk(const struct td_regs *r, const struct td_hdr *hdr, unsigned ku, struct td_residents *res,
		      outf_fn out, void *ctx)
{
	/* what the TD reads of L2 memory against what the TDs before wrote there, and its own writes
	 * after (fw/td l2written.c, the model's rule) */
	struct l2unwritten uw = {{0}, -1, 0};
	if (res)
		uw.lost = td_l2written_walk(r, hdr->bar_en, &res->l2, &uw.no, &uw.at);
	print_op(r, hdr, ku, res, &uw, out, ctx);
	if (res) /* (what the TD leaves for the TDs after it: fw/td resident.c) */
		(void)td_resident_leave(r, hdr->bar_en, res);
}

/* rs: the L2-resident tensors the TDs before left (td_print_op_walk), NULL where not known (a TD
 * printed alone): an L2-resident source's checks and shape are then the registers' alone */
static void print_op(const struct td_regs *r, const struct td_hdr *hdr, unsigned ku, const struct td_residents *rs,
		     const struct l2unwritten *uw, outf_fn out, void *ctx)
{
	const unsigned bar_en = hdr->bar_en;
	char b1[16], b2[16], b3[16];
	struct td_kept k;
	struct td_l2mem lm;
	td_kept_of(r, bar_en, &k);
	td_l2mem_of(r, bar_en, &k, &lm);
	uint32_t in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM), ch = GET(H13_COMMON_CHCFG);
	uint32_t cin = H13_GET(GET(H13_COMMON_CIN), H13_CIN), cout = H13_GET(GET(H13_COMMON_COUT), H13_COUT);
	const struct td_window win = td_window_of(GET(H13_COMMON_CONVCFG));
	unsigned groups = H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	int l2src = H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE) == H13_L2_RESIDENT;
	int l2res = H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE) == H13_L2_RESIDENT;
	/* where the model reads a first source and its result leaves (not a reduction: compute's
	 * L2-resident checks come after it returns) */
	const int reads_res = (td_dst_writes(bar_en) || l2res || lm.res.on) && k.role != TD_KEPT_MAKES;
	/* the L2-resident tensor an L2-resident source reads, where rs is known and the read checked
	 * (td_resident_source: then its shape is the TD's input, and the checks on the source's shape,
	 * which the model makes on the tensor's, are made on the registers') */
	const struct td_dims *rsrc = l2src ? td_resident_source(r, rs) : NULL;
	/* the source tile DMA's format words, wherever the source line says the first operand comes
	 * from (the DMA may move the second alone): fw/td tiles.c, as engine/model/compute.c's
	 * data_unread_fields */
	struct td_refusal sno = {0};
	td_src_fmt_refusal(r, &sno);
	td_source_dmafmt_refusal(r, &sno);
	/* the source */
	if (l2src) {
		outf(out, ctx, "  source: the L2-resident tensor at byte 0x%lx, %u x %u x %u %s",
		     (unsigned long)H13_GET(GET(H13_L2_SOURCEBASE), H13_L2_ADDR) * H13_L2_UNIT, (unsigned)cin,
		     (unsigned)H13_GET(in, H13_INDIM_HIN), (unsigned)H13_GET(in, H13_INDIM_WIN),
		     fmt_name(H13_GET(ch, H13_CHCFG_INFMT)));
		/* the tensor there, where its shape is not the TD's input */
		const struct td_dims *there = rs ? td_resident_find(rs, H13_GET(GET(H13_L2_SOURCEBASE), H13_L2_ADDR)) : NULL;
		if (there && (there->g != groups || there->c != cin || there->h != H13_GET(in, H13_INDIM_HIN) ||
			      there->w != H13_GET(in, H13_INDIM_WIN)))
			outf(out, ctx, ", of the %u x %u x %u x %u tensor left there (G x C x H x W)", there->g,
			     there->c, there->h, there->w);
		/* a base no TD left, a tensor of another shape than the input (compute's, fw/td
		 * resident.c) */
		if (rs && reads_res)
			td_resident_source_refusal(r, rs, &sno);
		refusal_tail(&sno, out, ctx);
		outf(out, ctx, "\n");
	} else if (lm.src1.on && !lm.keep1) {
		outf(out, ctx, "  source: ");
		print_l2view(&lm.src1, out, ctx);
		outf(out, ctx, ", %u x %u x %u %s", (unsigned)cin, (unsigned)H13_GET(in, H13_INDIM_HIN),
		     (unsigned)H13_GET(in, H13_INDIM_WIN), fmt_name(H13_GET(ch, H13_CHCFG_INFMT)));
		refusal_tail(&sno, out, ctx);
		outf(out, ctx, "\n");
	} else if (H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) && (bar_en >> H13_BAR_RBASE0 & 1u)) {
		outf(out, ctx, "  source: RBase0");
		print_offset(GET(H13_SRC_BASEADDR), out, ctx);
		const uint32_t depth = td_depth(r, 0); /* above 1: a reduction's or an elementwise TD's */
		outf(out, ctx, ", %u x ", (unsigned)cin);
		if (depth > 1)
			outf(out, ctx, "%u x ", (unsigned)depth);
		outf(out, ctx, "%u x %u %s (C x %sH x W)%s", (unsigned)H13_GET(in, H13_INDIM_HIN),
		     (unsigned)H13_GET(in, H13_INDIM_WIN), fmt_name(H13_GET(ch, H13_CHCFG_INFMT)),
		     depth > 1 ? "D x " : "", groups > 1 ? " per group" : "");
		print_byte_dma(GET(H13_SRC_FMT), H13_GET(ch, H13_CHCFG_INFMT), out, ctx);
		print_interleave(GET(H13_SRC_FMT), out, ctx);
		if (lm.keep1) {
			outf(out, ctx, ", kept in ");
			print_l2view(&lm.src1, out, ctx);
		}
		refusal_tail(&sno, out, ctx);
		outf(out, ctx, "\n");
	}
	else { /* no first source (neither a bound tile source nor in L2 memory nor L2-resident: the
		* tile source's En clear, or RBase0 not bound): the model refuses such a TD where it
		* reads a source, with its path's text: td_no_first_source_refusal
		* (engine/model/compute.c, fw/td kept.c and paths.c) */
		struct td_refusal nno = {0};
		td_no_first_source_refusal(r, bar_en, &k, &lm, &nno);
		outf(out, ctx, "  source: none: %s, none in L2 memory or L2-resident",
		     H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN)
			     ? "the tile source enabled (TileDMASrc.DMAConfig.En) with RBase0 not bound"
			     : "the tile source not enabled (TileDMASrc.DMAConfig.En clear)");
		refusal_tail(&nno, out, ctx);
		outf(out, ctx, "\n");
	}
	/* what td_l2mem_of refuses, where the PE line below does not carry it (the PE out of the
	 * path, or a reduction's line): the model faults with it */
	{
		const uint32_t pw = GET(H13_PLANAR_CFG) | GET(H13_PLANAR_BIASSCALE) | GET(H13_PLANAR_PRESCALE) |
				    GET(H13_PLANAR_FINALSCALE);
		const int pe_marks = td_pe_in_path(GET(H13_COMMON_CFG)) && pw &&
				     !(k.role == TD_KEPT_MAKES && !k.no.why);
		if (lm.no.why && !pe_marks)
			outf(out, ctx, "  L2 memory: (not modelled: %s)\n", lm.no.why);
	}
	/* a read of L2 memory no TD before it wrote (the walk's, fw/td l2written.c): the model
	 * refuses it where it reads the value */
	if (uw && uw->no.why)
		outf(out, ctx, "  L2 memory: reads byte 0x%lx, which no TD before it wrote (not modelled: %s)\n",
		     (unsigned long)uw->at, uw->no.why);
	if (uw && uw->lost)
		outf(out, ctx, "  L2 memory: more than %u values read and written here: what this TD and the "
			       "TDs after it read of L2 memory is not checked against what the TDs before wrote\n",
		     (unsigned)TD_L2_WALK_MAX);
	/* the NE */
	uint32_t mac = GET(H13_NE_MACCFG), kc = GET(H13_NE_KERNELCFG);
	unsigned op = H13_GET(mac, H13_MACCFG_OPMODE), nl = H13_GET(mac, H13_MACCFG_NONLINEARMODE);
	const char *post = h16((uint16_t)H13_GET(GET(H13_NE_POSTSCALE), H13_POSTSCALE), b1);
	const unsigned coeff_en = td_coeff_enabled(r);
	if (!mac) {
		outf(out, ctx, "  NE: not in the path\n");
	} else if (td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), coeff_en)) {
		outf(out, ctx, "  NE: pass-through (a convolution with no coefficient channel)\n");
	} else if (op == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE)) {
		/* as engine/model/compute.c's ne_kernel_mode: no kernel in memory, the unit kernel */
		uint32_t ab = GET(H13_NE_ACCBIAS);
		uint32_t gc = GET(H13_COMMON_GROUPCONVCFG);
		/* marked with the model's own refusal: the shift (td_accbias_shift_refusal), then the
		 * sum over channels (1x1, stride 1, no padding: td_unit_sum; td_unit_sum_refusal) or
		 * any other shape (td_unit_kernel_refusal) */
		const int sum = td_unit_sum(cin, cout, gc) && td_window_unit(&win);
		struct td_refusal no = {0};
		td_accbias_shift_refusal(r, &no);
		if (sum)
			td_unit_sum_refusal(r, &no);
		else
			td_unit_kernel_refusal(r, cin, cout, &no);
		outf(out, ctx, "  NE: unit kernel (KernelMode 1: no kernel in memory), %s + AccBias %s, "
			       "x PostScale %s",
		     sum ? "the sum of the Cin channels" : "x", h16((uint16_t)H13_GET(ab, H13_ACCBIAS), b2), post);
		if (no.why) /* (a call of its own: the model's text is long) */
			outf(out, ctx, " (not modelled: %s)", no.why);
		outf(out, ctx, "\n");
	} else if (op == H13_MAC_OP_CONV) {
		unsigned kf = H13_GET(kc, H13_KERNELCFG_KERNELFMT);
		const char *kfn = kf == H13_KERNELFMT_INT8 ? "int8"
				  : kf == H13_KERNELFMT_UINT8 ? "int8 (KernelFmt 1, read signed)"
				  : kf == H13_KERNELFMT_FP16 ? "fp16" : "format?";
		outf(out, ctx,
		     "  NE: convolution %ux%u, stride %ux%u, padding %ux%u, %u group%s, %u -> %u channels, "
		     "kernels %s",
		     win.kw, win.kh, win.sx, win.sy, win.px, win.py, groups,
		     groups == 1 ? "" : "s", (unsigned)cin, (unsigned)cout, kfn);
		if (ku)
			outf(out, ctx, " from the kernel unit (its OCG in coefficient channel 0)");
		const uint32_t gcv = GET(H13_COMMON_GROUPCONVCFG);
		/* engine/model/compute.c's convolution: a zero window or input first (td_conv_window_refusal,
		 * an L2-resident source's Cin and Win another TD's), then, kernels not depthwise, the
		 * biases (td_conv_biases_refusal) */
		{
			struct td_refusal cno = {0};
			/* (before them, resolve_act's: an activation record at each channel's head before
			 * kernels no program shows behind one, phase-sparse aside, which the phase-sparse
			 * words carry; then compute_td's and conv_l2's kernel_not_the_record) */
			if (!H13_GET(kc, H13_KERNELCFG_SPARSEFMT))
				td_lut_heads_refusal(r, td_lut_place_of(r, ku != 0), &cno);
			td_conv_record_channel_refusal(r, ku != 0, &cno);
			td_conv_window_refusal(r, cin, H13_GET(in, H13_INDIM_WIN), l2src && !rsrc, &cno);
			if (!H13_GET(gcv, H13_GROUPCONV_UNICASTEN))
				td_conv_biases_refusal(r, ku != 0, &cno);
			refusal_tail(&cno, out, ctx);
		}
		if (H13_GET(gcv, H13_GROUPCONV_UNICASTEN) && H13_GET(gcv, H13_GROUPCONV_UNICASTCIN) > 1u)
			outf(out, ctx, ", depthwise (GroupConvCfg.UnicastEn: output channel c from input "
				       "channels cN .. cN+N-1, N = UnicastCin %u)",
			     (unsigned)H13_GET(gcv, H13_GROUPCONV_UNICASTCIN));
		else if (H13_GET(gcv, H13_GROUPCONV_UNICASTEN))
			outf(out, ctx, ", depthwise (GroupConvCfg.UnicastEn: each output channel from its "
				       "own input channel)");
		if (H13_GET(gcv, H13_GROUPCONV_UNICASTEN)) { /* engine/model/compute.c's depthwise */
			struct td_refusal dno = {0};
			td_depthwise_refusal(r, cin, cout, ku != 0, &dno);
			/* (then its biases, NE.KernelCfg with SparseBinary read, a phase-sparse record's
			 * parameters: one output a record over one input channel) */
			td_conv_biases_refusal(r, 0, &dno);
			td_kernel_cfg_refusal(r, 0, 1, &dno);
			td_pk_params_refusal(r, 1, 1, win.kh, win.kw, H13_GET(mac, H13_MACCFG_BIASMODE), &dno);
			td_pad_form_refusal(r, cout, 0, &dno); /* (the pad form's: SparseBinary) */
			td_pad_form_refusal(r, cout, 1, &dno);
			{ /* (then every dense kernel inside its lane) */
				uint64_t len[H13_COEFF_NCH];
				td_coeff_lens(r, ku != 0, len);
				if (td_coeff_sized(r))
					td_dw_lanes_inside_refusal(r, cout, td_dw_kel(r, cin), len, &dno);
			}
			refusal_tail(&dno, out, ctx);
		}
		if (H13_GET(kc, H13_KERNELCFG_PALETTIZEDEN))
			outf(out, ctx, ", palettized %u-bit",
			     (unsigned)H13_GET(kc, H13_KERNELCFG_PALETTIZEDBITS));
		if (H13_GET(kc, H13_KERNELCFG_SPARSEFMT) && ku) /* engine/model/compute.c's load_kernels_ku */
			outf(out, ctx, ", mask-and-values sparse (SparseFmt in a kernel unit: each kernel's "
				       "mask, then its nonzero values)");
		else if (H13_GET(kc, H13_KERNELCFG_SPARSEFMT)) {
			outf(out, ctx, ", phase-sparse (SparseFmt: the stride-2 kernel format)");
			/* behind an activation record at each channel's head (engine/model/model.c's
			 * resolve_act, before any kernel is read) */
			struct td_refusal hno = {0};
			td_lut_heads_refusal(r, td_lut_place_of(r, ku != 0), &hno);
			refusal_tail(&hno, out, ctx);
		}
		if (H13_GET(kc, H13_KERNELCFG_ALIGN))
			outf(out, ctx, ", KernelCfg.Align (read as no change: dense 1x1 fp16 kernels only)");
		if (H13_GET(mac, H13_MACCFG_BIASMODE))
			outf(out, ctx, ", + a bias an output (BiasMode: each kernel's first element)");
		/* NE.KernelCfg as engine/model/compute.c reads it: kernel_cfg_read's checks (a kernel
		 * unit's: no Align, then load_kernels_ku's; a depthwise convolution's: after its own,
		 * SparseBinary read), and
		 * load_kernels' for kernels in coefficient channels (palettized, KernelFmt 3, a bias
		 * before one-byte kernels: td_dense_kernels_refusal) */
		int kernels_refused = 0; /* (the model stops there: no kernel is read past it) */
		{
			struct td_refusal kno = {0};
			const int dw = H13_GET(gcv, H13_GROUPCONV_UNICASTEN) != 0;
			if (ku && !dw) { /* (load_kernels_ku's: td_kernel_cfg_refusal, then its own) */
				const uint64_t nout = (uint64_t)groups * cout, per = (uint64_t)cin * win.kh * win.kw;
				uint64_t len[H13_COEFF_NCH];
				td_coeff_lens(r, ku != 0, len);
				if (td_coeff_sized(r)) {
					td_ku_kernels_refusal(r, nout, per, len[0], 0, &kno);
					td_ku_kernels_refusal(r, nout, per, len[0], 1, &kno);
					td_ku_kernels_refusal(r, nout, per, len[0], 2, &kno);
				}
			} else if (!dw) {
				td_dense_kernels_refusal(r, &kno);
			}
			kernels_refused = kno.why != NULL;
			refusal_tail(&kno, out, ctx);
		}
		/* as engine/model/compute.c's load_kernels */
		struct td_ocg_lay lay = td_ocg_layout(GET(H13_COMMON_CONVCFG), (uint64_t)groups * cout, cout,
						      td_coeff_mask(r));
		unsigned ocg = (unsigned)H13_GET(GET(H13_COMMON_CONVCFG), H13_CONVCFG_OCGSIZE);
		if (ku) /* (its OCG in channel 0: not this layout) */
			;
		else if (lay.kind == TD_OCG_RUNS && lay.line)
			outf(out, ctx, ", %u outputs a coefficient channel a group (OCGSize %u; one pass a group, "
				       "each group's block on its own 64-byte line)", lay.g, ocg);
		else if (lay.kind == TD_OCG_RUNS && !lay.full && lay.tail != lay.g)
			outf(out, ctx, ", %u outputs a coefficient channel in all 16 (OCGSize %u; Cout / 16, "
				       "all 16 enabled)", lay.tail, ocg);
		else if (lay.kind == TD_OCG_RUNS && !lay.full && lay.g * H13_COEFF_NCH != cout)
			outf(out, ctx, ", %u outputs a coefficient channel in the first %u (OCGSize %u; "
				       "Cout / 2^OCGSize enabled)", lay.g, (unsigned)(cout / lay.g), ocg);
		else if (lay.kind == TD_OCG_RUNS && (!lay.full || (lay.full == 1 && !lay.tail)))
			outf(out, ctx, ", %u outputs a coefficient channel (OCGSize %u)", lay.g, ocg);
		else if (lay.kind == TD_OCG_RUNS)
			outf(out, ctx, ", %u outputs a coefficient channel a pass (OCGSize %u), %u pass%s", lay.g,
			     ocg, (unsigned)lay.full, lay.full > 1 ? "es" : "");
		if (lay.kind == TD_OCG_RUNS && lay.full && lay.tail)
			outf(out, ctx, " and a last of %u a channel", lay.tail);
		else if ((lay.kind == TD_OCG_UNPINNED || lay.kind == TD_OCG_CHANNELS) && !ku) {
			/* the model's own refusal (td_ocg_refusal), naming the channel */
			struct td_refusal no = {0};
			td_ocg_refusal(&lay, &no);
			outf(out, ctx, ", OCGSize %u", ocg);
			if (lay.kind == TD_OCG_CHANNELS)
				outf(out, ctx, ", coefficient channel %u", lay.ch);
			refusal_tail(&no, out, ctx);
		}
		if (lay.kind != TD_OCG_UNPINNED && lay.kind != TD_OCG_CHANNELS && !ku &&
		    !H13_GET(gcv, H13_GROUPCONV_UNICASTEN)) {
			/* one-byte kernels in runs, phase-sparse record parameters and records in a layout
			 * no program pins, CoeffBfrSize against the layout (load_kernels, in its order; the
			 * kernels' Cin an L2-resident source's, another TD's: not checked) */
			struct td_refusal no = {0};
			const unsigned bias = H13_GET(mac, H13_MACCFG_BIASMODE);
			td_kernel_bytes_refusal(r, &lay, &no);
			if (!l2src || rsrc)
				td_pk_params_refusal(r, lay.g, cin, win.kh, win.kw, bias, &no);
			td_pkern_refusal(r, &lay, (uint64_t)groups * cout, cout, &no);
			if (!l2src || rsrc) { /* (every kernel inside its channel, then the channels' sizes) */
				uint64_t len[H13_COEFF_NCH];
				td_coeff_lens(r, ku != 0, len);
				if (td_coeff_sized(r) && !kernels_refused)
					td_kernels_inside_refusal(r, &lay, (uint64_t)groups * cout,
								  (uint64_t)cin * win.kh * win.kw + bias, len, &no);
				td_coeff_sizes_refusal(r, &lay, (uint64_t)groups * cout, (uint64_t)cin * win.kh * win.kw + bias, len,
					       &no);
			}
			refusal_tail(&no, out, ctx);
		}
		/* a kernel unit's per-channel vectors (engine/model/compute.c's load_channel_vectors:
		 * 1 and 0 without the stream), applied before PostScale (conv_out_row) */
		if (ku & (1u << H13_KSTREAM_POSTSCALE))
			outf(out, ctx, ", x a post-scale an output channel (the kernel unit's post-scale stream)");
		if (ku & (1u << H13_KSTREAM_BIAS))
			outf(out, ctx, ", + a bias an output channel (the kernel unit's bias stream)");
		outf(out, ctx, ", x PostScale %s\n", post);
	} else if (op == H13_MAC_OP_ELEMWISE) {
		outf(out, ctx, "  NE: elementwise, x PostScale %s\n", post);
	} else if (op == H13_MAC_OP_RCAS || op == H13_MAC_OP_CHMAX) {
		/* what engine/model/compute.c's ne_channel_groups refuses: td_channel_groups_refusal */
		uint32_t gc = GET(H13_COMMON_GROUPCONVCFG);
		unsigned n = H13_GET(gc, H13_GROUPCONV_UNICASTCIN);
		struct td_refusal no = {0};
		td_channel_groups_refusal(r, &no);
		if (op == H13_MAC_OP_RCAS)
			outf(out, ctx, "  NE: channel products (OpMode 2, ElemMultMode): output c = input 2c x "
				       "input 2c+1");
		else
			outf(out, ctx, "  NE: channel maxima (OpMode 3): output c = the largest of inputs cN .. "
				       "cN+N-1, N = UnicastCin %u", n);
		outf(out, ctx, ", %u -> %u channels, x PostScale %s", (unsigned)cin, (unsigned)cout, post);
		refusal_tail(&no, out, ctx);
		outf(out, ctx, "\n");
	} else { /* (decode_ne's refusal: td_ne_opmode_refusal) */
		struct td_refusal no = {0};
		td_ne_opmode_refusal(r, &no);
		outf(out, ctx, "  NE: OpMode %u", op);
		refusal_tail(&no, out, ctx);
		outf(out, ctx, "\n");
	}
	/* as engine/model/compute.c's ne_kernel_mode: a convolution with kernels in memory adds it to
	 * every output */
	/* anywhere else (another OpMode, a pass-through) the model refuses it: td_ne_accbias_refusal */
	struct td_refusal abno = {0};
	td_ne_accbias_refusal(r, &abno);
	if (abno.why) {
		outf(out, ctx, "  NE.AccBias %s outside a convolution",
		     h16((uint16_t)H13_GET(GET(H13_NE_ACCBIAS), H13_ACCBIAS), b2));
		refusal_tail(&abno, out, ctx);
		outf(out, ctx, "\n");
	} else if (mac && GET(H13_NE_ACCBIAS) && op == H13_MAC_OP_CONV && !H13_GET(mac, H13_MACCFG_KERNELMODE)) {
		/* its shift, which ne_kernel_mode refuses there as on the unit kernel */
		struct td_refusal sno = {0};
		td_accbias_shift_refusal(r, &sno);
		outf(out, ctx, "  NE.AccBias %s: a bias for every output",
		     h16((uint16_t)H13_GET(GET(H13_NE_ACCBIAS), H13_ACCBIAS), b2));
		refusal_tail(&sno, out, ctx);
		outf(out, ctx, "\n");
	}
	if (mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), coeff_en)) {
		struct td_refusal nno = {0};
		td_ne_nonlinear_refusal(r, &nno); /* (mode 3: decode_ne's) */
		outf(out, ctx, "  nonlinear: %s",
		     nl == H13_NONLINEAR_NONE ? "none" : nl == H13_NONLINEAR_RELU ? "relu"
		     : nl == H13_NONLINEAR_LUT ? "the activation LUT" : "mode 3");
		refusal_tail(&nno, out, ctx);
		outf(out, ctx, "\n");
	}
	/* the PE */
	uint32_t pc = GET(H13_PLANAR_CFG), bs = GET(H13_PLANAR_BIASSCALE), pre = GET(H13_PLANAR_PRESCALE);
	uint32_t fin = GET(H13_PLANAR_FINALSCALE);
	if (!td_pe_in_path(GET(H13_COMMON_CFG))) {
		outf(out, ctx, "  PE: not in the path (Common.Cfg.TaskType 0)\n");
	} else if (!(pc | bs | pre | fin)) { /* (decode_stages's: td_pe_words_refusal) */
		struct td_refusal no = {0};
		td_pe_words_refusal(r, &no);
		outf(out, ctx, "  PE: every Planar word 0 with Common.Cfg.TaskType %u",
		     (unsigned)H13_GET(GET(H13_COMMON_CFG), H13_CFG_TASKTYPE));
		refusal_tail(&no, out, ctx);
		outf(out, ctx, "\n");
	} else if (k.role == TD_KEPT_MAKES && !k.no.why) {
		/* as engine/model/compute.c's reduce_planes */
		outf(out, ctx, "  PE: reduce %s%s%s over each plane%s%s (%u planes of ",
		     k.kind == TD_KEPT_MAX || k.kind == TD_KEPT_MIN ? td_kept_kind_name(k.kind) : "sum",
		     k.abs ? " of |.|" : "",
		     !k.two      ? (k.square ? " of squares" : "")
		     : k.product ? (lm.src2.on ? " of a x b, a the source, b from L2 memory"
					       : " of a x b, a the source, b by the second tile source (RBase1)")
		     : lm.src2.on ? " of (b - a)^2, a the source, b from L2 memory"
				  : " of (b - a)^2, a the source, b by the second tile source (RBase1)",
		     k.kind == TD_KEPT_RSUM ? ", then 1/sum" : "",
		     k.eps && k.kind == TD_KEPT_SUM ? ", + eps after the FinalScale (PreScale's low half)" : "",
		     (unsigned)k.rows);
		if (k.d > 1)
			outf(out, ctx, "%u x ", (unsigned)k.d);
		outf(out, ctx, "%u x %u%s)%s", (unsigned)k.h, (unsigned)k.w, k.d > 1 ? ", D x H x W" : "",
		     lm.keep1 ? ", kept in L2 memory as read" : "");
		if (k.kind == TD_KEPT_RSQRT)
			outf(out, ctx, ", then 1/sqrt(sum x FinalScale %s + eps %s)\n", f32(fin, b1),
			     h16(k.eps, b2));
		else
			outf(out, ctx, ", x FinalScale %s\n", f32(fin, b1));
	} else if (lm.pair && !lm.no.why) {
		/* as engine/model/compute.c's l2mem_elementwise (TaskType 4) */
		outf(out, ctx, "  PE: normalize, (a %c p0) x p1 with channel c's pair (p0, p1) at ",
		     lm.pair == TD_PAIR_ADD ? '+' : '-');
		print_l2view(&lm.src2, out, ctx);
		outf(out, ctx, " and one row stride (0x%lx bytes) after it\n", (unsigned long)lm.src2.rs);
	} else {
		static const char *const pools[] = {"", "average pool", "max pool", "min pool"};
		static const char *const ops[] = {"+", "x", "max", "min", "square"};
		unsigned pm = H13_GET(pc, H13_PECFG_POOLMODE), po = H13_GET(pc, H13_PECFG_OPMODE);
		unsigned sec = H13_GET(pc, H13_PECFG_SECSRC), cond = H13_GET(pc, H13_PECFG_CONDITION);
		outf(out, ctx, "  PE: ");
		if (pm)
			outf(out, ctx, "%s %ux%u stride %ux%u padding %ux%u, then ", pools[pm],
			     win.kw, win.kh, win.sx, win.sy, win.px, win.py);
		/* FirstSrc 1 on a product: the first operand negated (td_pe_first_negated) */
		const int neg = td_pe_first_negated(pc);
		outf(out, ctx, "%s x %s", neg ? "-a" : "a", h16((uint16_t)H13_GET(pre, H13_PRESCALE), b1));
		if (po == H13_PE_OP_ADD && sec == H13_PE_SECSRC_SUB) {
			/* 3 subtracts the second operand (Apple's H13 sub) */
			outf(out, ctx, " - b (");
			print_second(&lm, r, out, ctx);
			outf(out, ctx, ")");
		} else if (po < 5 && sec == H13_PE_SECSRC_TILE1) {
			/* OpMode 4 squares the sum: (a + b)^2 (allbilly/ane, measured on an M1) */
			outf(out, ctx, po < 2 || po == H13_PE_OP_SQ ? " %s b (" : ", %s with b (",
			     po == H13_PE_OP_SQ ? "+" : ops[po]);
			print_second(&lm, r, out, ctx);
			outf(out, ctx, po == H13_PE_OP_SQ ? "), squared" : ")");
		}
		else if (po == H13_PE_OP_SQ && sec == H13_PE_SECSRC_NONE) /* with SecSrc 1 or 3: below */
			outf(out, ctx, ", squared");
		else if (po >= 5 || sec) { /* (decode_stages's: td_pe_op_refusal) */
			struct td_refusal no = {0};
			td_pe_op_refusal(r, &no);
			outf(out, ctx, ", OpMode %u SecSrc %u", po, sec);
			refusal_tail(&no, out, ctx);
		}
		if (cond) { /* (td_pe_condition_refusal: a comparison, or |.| where its place matters) */
			struct td_refusal no = {0};
			td_pe_condition_refusal(r, &no);
			if (cond == H13_PE_COND_ABS)
				outf(out, ctx, ", |.|");
			else
				outf(out, ctx, ", Condition %u", cond);
			refusal_tail(&no, out, ctx);
		}
		/* the bias first, then the scale (engine/model/compute.c, pe_row_k) */
		outf(out, ctx, ", + %s, x %s", h16((uint16_t)H13_GET(bs, H13_BIASSCALE_BIAS), b3),
		     h16((uint16_t)H13_GET(bs, H13_BIASSCALE_SCALE), b2));
		if (H13_GET(pc, H13_PECFG_FIRSTSRC) && !neg) { /* (td_pe_firstsrc_refusal) */
			struct td_refusal no = {0};
			td_pe_firstsrc_refusal(r, &no);
			outf(out, ctx, ", FirstSrc %u", (unsigned)H13_GET(pc, H13_PECFG_FIRSTSRC));
			refusal_tail(&no, out, ctx);
		}
		if (H13_GET(pc, H13_PECFG_RELUEN))
			outf(out, ctx, ", relu");
		if (H13_GET(pc, H13_PECFG_NLMODE)) { /* (td_pe_nlmode_refusal) */
			struct td_refusal no = {0};
			td_pe_nlmode_refusal(r, &no);
			outf(out, ctx, ", NLMode %u", (unsigned)H13_GET(pc, H13_PECFG_NLMODE));
			refusal_tail(&no, out, ctx);
		}
		outf(out, ctx, ", x FinalScale %s", f32(fin, b1));
		/* what engine/model/compute.c's decode_stages and pooling refuse: td_pe_refusal, then
		 * a pooling's shape (td_pe_pool_shape_refusal, on the registers' source: the model's
		 * L2-resident source has the shape the TD that wrote it gave) */
		struct td_refusal no = {0};
		td_pe_refusal(r, &no);
		if (pm && td_pe_in_path(GET(H13_COMMON_CFG)))
			td_pe_pool_shape_refusal(r, H13_GET(in, H13_INDIM_WIN), H13_GET(in, H13_INDIM_HIN), cin, cout, &no);
		/* a second operand after a convolution with kernels in memory (engine/model/compute.c's
		 * convolution; with L2 memory, conv_l2's own) */
		if (mac && op == H13_MAC_OP_CONV && !H13_GET(mac, H13_MACCFG_KERNELMODE) &&
		    !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), coeff_en) && !lm.any)
			td_conv_second_source_refusal(r, &no);
		refusal_tail(&no, out, ctx);
		kept_refused(&k, out, ctx);
		if (lm.no.why)
			outf(out, ctx, " (not modelled: %s)", lm.no.why);
		outf(out, ctx, "\n");
	}
	/* a window on a TD that is neither a convolution nor a pooling (nor a reduction, which names
	 * its own, nor the channel groups, whose line does): the model's elementwise TDs, which refuse
	 * it (td_elementwise_window_refusal, as engine/model/compute.c's elementwise_window) */
	int conv = mac && op == H13_MAC_OP_CONV && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), coeff_en);
	int groups_op = mac && (op == H13_MAC_OP_RCAS || op == H13_MAC_OP_CHMAX);
	const int pool = td_pe_in_path(GET(H13_COMMON_CFG)) && H13_GET(pc, H13_PECFG_POOLMODE) != H13_PE_POOL_NONE;
	if (!conv && !groups_op && !pool && k.role != TD_KEPT_MAKES) {
		struct td_refusal no = {0};
		td_elementwise_window_refusal(r, &no);
		if (no.why) {
			outf(out, ctx, "  window: %ux%u, stride %ux%u, padding %ux%u", win.kw, win.kh, win.sx, win.sy,
			     win.px, win.py);
			refusal_tail(&no, out, ctx);
			outf(out, ctx, "\n");
		}
	}
	/* the result: through WBase where its DMA is enabled, and where WBase is bound with the
	 * destination DMA's En clear (fw/td td_dst_writes: silicon wrote through WBase, expt2; as
	 * engine/model/compute.c writes it), a result kept in L2 memory then kept as well */
	const int en_clear = td_dst_writes_en_clear(GET(H13_DST_DMACONFIG), bar_en);
	if (H13_GET(GET(H13_DST_DMACONFIG), H13_DMA_EN) && !td_dst_writes(bar_en)) /* (td_ranges) */
		outf(out, ctx, "  result: none (destination DMA enabled, WBase not bound: refused, %s)\n",
		     td_err_name(TD_E_DST_NO_BAR));
	else if (td_dst_dma_on(GET(H13_DST_DMACONFIG), bar_en)) {
		/* the destination's format words, and where it lies against the tile sources and
		 * itself (fw/td tiles.c: what engine/model/compute.c refuses there) */
		struct td_refusal fno = {0}, pno = {0};
		td_result_dmafmt_refusal(r, bar_en, &fno);
		td_dst_fmt_refusal(r, bar_en, &fno);
		td_tile_place_refusal(r, hdr, &k, &lm, &pno);
		outf(out, ctx, "  result: WBase");
		print_offset(GET(H13_DST_BASEADDR), out, ctx);
		if (en_clear)
			outf(out, ctx, " (TileDMADst.DMAConfig.En clear: written all the same)");
		if (k.role == TD_KEPT_MAKES && !k.no.why) { /* as engine/model/compute.c's reduce_planes */
			outf(out, ctx, ", one %s a plane %s (%u x %u planes)", td_kept_kind_name(k.kind),
			     k.out_transpose ? "at (g, 0, 0, c): a group's side by side (PECfg.OutputTranspose)"
					     : "at its first element",
			     groups, (unsigned)cout);
			refusal_tail(&fno, out, ctx);
			refusal_tail(&pno, out, ctx);
			outf(out, ctx, "\n");
		} else {
			const uint32_t odepth = td_depth(r, 1); /* above 1: an elementwise TD's depths */
			outf(out, ctx, ", %u x ", (unsigned)cout);
			if (odepth > 1)
				outf(out, ctx, "%u x ", (unsigned)odepth);
			outf(out, ctx, "%u x %u %s", (unsigned)H13_GET(od, H13_OUTDIM_HOUT),
			     (unsigned)H13_GET(od, H13_OUTDIM_WOUT), fmt_name(H13_GET(ch, H13_CHCFG_OUTFMT)));
			if (odepth > 1)
				outf(out, ctx, " (C x D x H x W)");
			print_byte_dma(GET(H13_DST_FMT), H13_GET(ch, H13_CHCFG_OUTFMT), out, ctx);
			print_interleave(GET(H13_DST_FMT), out, ctx);
			if (en_clear && lm.res.on) {
				outf(out, ctx, ", and keeps it in ");
				print_l2view(&lm.res, out, ctx);
			}
			outf(out, ctx, "%s%s", l2res ? ", and keeps it in L2" : "",
			     /* as engine/model/compute.c's write_transposed (fw/td td_dst_dims) */
			     !td_dst_cw_swapped(r) ? ""
			     : H13_GET(GET(H13_COMMON_CFG), H13_CFG_OUTTRANSPOSE)
				     ? ", written with C and W swapped (Common.Cfg.OutTranspose)"
				     : ", written with C and W swapped (Common.PECfg.OutputTranspose)");
			refusal_tail(&fno, out, ctx);
			refusal_tail(&pno, out, ctx);
			outf(out, ctx, "\n");
		}
	} else if (lm.res.on && k.role == TD_KEPT_MAKES && !k.no.why) {
		outf(out, ctx, "  result: ");
		print_l2view(&lm.res, out, ctx);
		outf(out, ctx, ", one %s a plane\n", td_kept_kind_name(k.kind));
	} else if (lm.res.on) {
		outf(out, ctx, "  result: ");
		print_l2view(&lm.res, out, ctx);
		outf(out, ctx, ", %u x %u x %u fp16", (unsigned)cout, (unsigned)H13_GET(od, H13_OUTDIM_HOUT),
		     (unsigned)lm.res.w);
		if (td_conv_ox(r, bar_en) == 2u) /* (Apple's depthwise 1x9's form: td_ox_refusal) */
			outf(out, ctx, " (Common.ConvCfg.Ox 2: two columns, 2j and 2j + 1, an output position j "
				       "of the %u)", (unsigned)H13_GET(od, H13_OUTDIM_WOUT));
		outf(out, ctx, "\n");
	} else if (l2res) {
		/* more tensors than the model holds, one larger than it holds (l2_result's: fw/td
		 * resident.c, on the tensors the TDs before left) */
		struct td_refusal no = {0};
		if (rs && reads_res)
			td_resident_result_refusal(r, rs, &no);
		outf(out, ctx, "  result: the L2-resident tensor at byte 0x%lx, %u x %u x %u",
		     (unsigned long)H13_GET(GET(H13_L2_RESULTBASE), H13_L2_ADDR) * H13_L2_UNIT, (unsigned)cout,
		     (unsigned)H13_GET(od, H13_OUTDIM_HOUT), (unsigned)H13_GET(od, H13_OUTDIM_WOUT));
		refusal_tail(&no, out, ctx);
		outf(out, ctx, "\n");
	}

	else { /* (compute's: td_result_nowhere_refusal, every Planar word 0 or not) */
		struct td_refusal no = {0};
		td_result_nowhere_refusal(r, bar_en, &lm, &no);
		outf(out, ctx, (pc | bs | pre | fin) ? "  result: stays in the engine" : "  result: nothing leaves the engine");
		refusal_tail(&no, out, ctx);
		outf(out, ctx, "\n");
	}
	/* what the model refuses on the registers alone that no line above carries (fw/td fields.c
	 * and checks.c): TaskType, the fields it reads no meaning from, OutTranspose, the sizes, the
	 * header's ENE, the PE's unread bits, Src2ReLU, the L2-resident tensors; the NE's and the PE's
	 * where the model decodes them (a TD whose result leaves, a reduction) */
	{
		struct td_outside t[TD_OUTSIDE_MAX];
		const unsigned nt = td_outside_init(t, TD_OUTSIDE_MAX, UINT32_MAX);
		struct td_refusal no = {0};
		td_registers_refusal_res(r, hdr, &k, &lm, rsrc, t, nt, &no);
		if (no.why) {
			outf(out, ctx, "  registers:");
			refusal_tail(&no, out, ctx);
			outf(out, ctx, "\n");
		}
	}
}
