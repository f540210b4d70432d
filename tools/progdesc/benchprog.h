/*
 * The benchmark programs (raw H13 task streams, one TD, written with fw/td's TD writer): a 1x1
 * convolution of the shape of a real gemm and an elementwise add through the planar engine. The
 * target's `make bench` and the host tool's `bench-model` run the same bytes.
 *
 * Grants: input BAR 5 (and BAR 6, the add's second source), output BAR 4, weights BAR 1. Every
 * fp16 row is a whole number of 64-byte lines.
 */
#ifndef ANEFW_BENCHPROG_H
#define ANEFW_BENCHPROG_H

#include <stddef.h>
#include <stdint.h>

#define BP_WEIGHTS_OFF 0x280u
#define BP_IN0_BAR 5u
#define BP_IN1_BAR 6u
#define BP_OUT_BAR 4u
#define BP_FP16_ONE 0x3c00u

/* Bytes bp_conv needs: the TD and cin x cout fp16 weights in 64-byte blocks. */
size_t bp_conv_bytes(unsigned cin, unsigned cout);
/* cin -> cout 1x1 convolution over w positions (one row), fp16 in and out, every weight the
 * fp16 `weight`; output channel o's kernel is block o/16 of coefficient channel o mod 16
 * (docs/engine-model.md). cout a multiple of 16. Returns the length, 0 when it does not fit. */
size_t bp_conv(uint8_t *buf, size_t cap, unsigned cin, unsigned cout, unsigned w, uint16_t weight);
/* The same with a k x k window (k odd, stride 1, padding k / 2) over w x h positions: cin x k
 * x k weights per output channel, each channel's block rounded up to 64 bytes. */
size_t bp_convk_bytes(unsigned cin, unsigned cout, unsigned k);
size_t bp_convk(uint8_t *buf, size_t cap, unsigned cin, unsigned cout, unsigned w, unsigned h,
		unsigned k, uint16_t weight);
/* A k x k convolution (k odd, stride 1 or 2, padding k / 2) cin -> cout over w x h with the fp16
 * kernels wts (cout x cin x k x k, (ci, ky, kx) order; depthwise: cout x k x k; stride 0 is 1) and, when bias is
 * given, NE.MACCfg.BiasMode with bias[o] as each kernel's first element; the kernels laid out as
 * Apple's H13 compiler lays them for Common.ConvCfg.OCGSize ocg (docs/engine-model.md, "Kernel
 * layout"), every coefficient channel the same size, or with sparse as phase-sparse records
 * (docs/codecs.md, "Phase-sparse kernels"; ssm: Common.Cfg.SmallSourceMode, at least 4 slots a
 * tap; sparse 2: Apple's pad form, NE.KernelCfg 0x8116, each lane a 64-byte palette line (1.0,
 * +0) then records of mask bytes alone, every nonzero weight marked and read as 1.0; dw: a
 * depthwise convolution, GroupConvCfg UnicastEn, only with sparse). relu: the NE's
 * NonlinearMode ReLU. bias_last, phase_swap: wrong layouts for negative tests (the bias after the
 * taps; the two middle phases swapped). Returns the length, 0 when it does not fit. */
struct bp_conv_spec {
	unsigned cin, cout, w, h, k, ocg, relu, bias_last;
	const uint16_t *wts, *bias;
	unsigned stride, sparse, ssm, dw, phase_swap;
	uint16_t accbias; /* NE.AccBias: one bias for every output (fp16; 0: none) */
	unsigned l2split; /* bp_matmul: three TDs, the convolution's result kept in L2 memory
			   * transposed and copied out by a third (Apple's splits of larger matmuls) */
	/* bp_convb: groups > 1 is NumGroups (cin and cout a group's; wts and bias groups x cout
	 * outputs; the tiles groups x cin and groups x cout planes one after another), laid out as
	 * Apple's grouped 3x3 convolutions: with OCGSize 0 (phase-sparse or dense) output o (over all
	 * groups) record or block o / 16 of channel o mod 16, each on its own 64-byte line; with
	 * OCGSize k (cout 16 x 2^k, one pass a group) channel c holds for each group, one block after
	 * another, its outputs c 2^k .. c 2^k + 2^k - 1 input-major (dense) or their one record
	 * (phase-sparse), each block or record on its own 64-byte line. grp_wrong: a wrong layout for
	 * the tests' negatives (1: OCGSize 0, channel c the block of outputs c n .. c n + n - 1, n
	 * records a channel; dense OCGSize k, channel c the group's outputs c, c + 16, ...; 2: the
	 * records or blocks back to back, not on lines) */
	unsigned groups, grp_wrong;
};
size_t bp_convb_bytes(const struct bp_conv_spec *s);
size_t bp_convb(uint8_t *buf, size_t cap, const struct bp_conv_spec *s);
/* Apple's H13 matmul with a constant second operand (x [M, K] times W^T, W [N, K]; transpose_y),
 * (with s->l2split, in three TDs: TD 1 keeps its result in L2 memory transposed, TD 2 copies it
 * out by the tile DMA, the weights at bp_chain_weights_off(3)),
 * as its compiler writes it: TD 0 copies x (BAR 5, M channels of 1 x K) by the planar engine into
 * L2 memory with Common.Cfg.OutTranspose (K channels of M); TD 1 is the 1x1 convolution K -> N
 * (s->cin = K, s->cout = N, s->w = M, s->h = s->k = 1; wts, bias, relu and ocg as bp_convb) over
 * those M positions, its result leaving by the tile DMA with OutTranspose: M rows of N at BAR 4
 * ([M, 1, N], rows bp_row(N) apart). TD 1 at BP_CHAIN_STRIDE, the weights at
 * bp_chain_weights_off(2). Returns the length, 0 when it does not fit. */
size_t bp_matmul_bytes(const struct bp_conv_spec *s);
size_t bp_matmul(uint8_t *buf, size_t cap, const struct bp_conv_spec *s);
/* A 1x1 convolution s->cin -> s->cout (even) over s->w positions (one row; no bias, OCGSize 0) in
 * two TDs, as Apple's H13 batched matmul splits its output rows and shares its tile operand: TD 0
 * computes outputs [0, cout/2), reading x (BAR 5) by the tile DMA and keeping it in L2 memory at 0
 * as it reads it (L2.SourceCfg.SourceType 1); TD 1 (at BP_CHAIN_STRIDE) computes [cout/2, cout),
 * reading x from there; each writes its channels of BAR 4 (rows of bp_row(w)). The kernels of
 * each half from bp_chain_weights_off(2), TD 1's after TD 0's. Returns the length, 0 when it does
 * not fit. */
size_t bp_convkeep_bytes(const struct bp_conv_spec *s);
size_t bp_convkeep(uint8_t *buf, size_t cap, const struct bp_conv_spec *s);
/* A batched matmul y[b] = x[b] w[b] (x [B, M, K], w [B, K, N]) as Apple's H13 compiler writes one
 * with both operands at run time: each output row m is a 1x1 convolution K -> 1 over N positions
 * whose kernel is row m of x, read by the kernel DMA from BAR kbar (a runtime tensor, not the
 * weights: row (b, m) at (b M + m) x bp_row(K)), one coefficient channel a row, `group` rows a TD
 * (1..16; 0: 16), NE.KernelCfg.Align as `align`. w comes by the tile DMA from BAR 5 (channel
 * (b, k) at (b K + k) x bp_row(N)); each batch's first TD keeps w[b] in L2 memory at 0 as it reads
 * it (SourceType 1), its others read it there. y row (b, m) to BAR 4 at (b M + m) x bp_row(N).
 * TD i at i x BP_CHAIN_STRIDE; no weights. With wconst (w as B K rows of N fp16), w is the
 * program's constant instead, Apple's `rb` form: the weights at bp_chain_weights_off(TDs), rows
 * of bp_row(N), which the tile DMA reads through BAR 1 (a raw stream's weights). With xcopy (a
 * BAR), a first TD copies x by the planar engine from BAR kbar to BAR xcopy, the same rows, and
 * the kernel DMA reads them there (a kernel an earlier TD wrote, as Apple's transpose_x form
 * does); the other TDs one on. Returns the length, 0 when it does not fit. */
struct bp_bmm_spec {
	unsigned b, m, k, n, group, kbar, align;
	const uint16_t *wconst;
	unsigned xcopy;
};
size_t bp_bmm_bytes(const struct bp_bmm_spec *s);
size_t bp_bmm(uint8_t *buf, size_t cap, const struct bp_bmm_spec *s);
/* A depthwise k x k convolution (stride 1, padding k / 2) over c channels of w x h, as Apple's H13
 * compiler writes one (GroupConvCfg UnicastEn 1, UnicastCin 1, NumGroups 1): channel o's k x k
 * fp16 kernel (wts[o k k ..], ky-major), after its bias bias[o] when bias is given
 * (NE.MACCfg.BiasMode), at (o / 16) x (k x k + 1 with a bias) x 2 bytes in coefficient channel
 * o mod 16, each lane padded to 64 bytes. c at most 16 or a multiple of 16. */
size_t bp_dwconv_bytes(unsigned c, unsigned k, int bias);
size_t bp_dwconv(uint8_t *buf, size_t cap, unsigned c, unsigned w, unsigned h, unsigned k,
		 const uint16_t *wts, const uint16_t *bias);
/* The same with GroupConvCfg.UnicastCin n: c outputs over n x c input channels, output o from
 * input channels o n .. o n + n - 1 through wts[o n k k ..] ((ci, ky, kx) order), any c (lanes
 * o mod 16, slots o / 16, as Apple's H13 less over 375 channels lays them out). */
/* Apple's depthwise 1x9 form with Common.ConvCfg.Ox 2 (docs/engine-model.md, "Ox 2 computes"), two
 * TDs: TD 0 a depthwise 1 x kw convolution over x [c, 1, w] (BP_IN0_BAR) with Sx 2, Px px, Ox 2,
 * Wout (w + 2 px - kw) / 2 + 1, its 2 x Wout columns a channel kept in L2 memory at 0 (a row of
 * 16-byte lines a channel); TD 1 copies the first w of them to BP_OUT_BAR. rec: c records of
 * 2 bias + 2 (kw + 1) fp16 values as given (the caller lays out Apple's record), channel o's in
 * lane o mod 16 at (o / 16) records. */
size_t bp_dwox2_bytes(unsigned c, unsigned kw, int bias);
size_t bp_dwox2(uint8_t *buf, size_t cap, unsigned c, unsigned w, unsigned kw, unsigned px, const uint16_t *rec,
		int bias);
size_t bp_dwconv_n_bytes(unsigned c, unsigned n, unsigned k, int bias);
size_t bp_dwconv_n(uint8_t *buf, size_t cap, unsigned c, unsigned n, unsigned w, unsigned h, unsigned k,
		   const uint16_t *wts, const uint16_t *bias);
/* a + b of two w x h x c fp16 tiles through the planar engine (as add.bin). */
size_t bp_add(uint8_t *buf, size_t cap, unsigned w, unsigned h, unsigned c);
/* tanh of a w x h x c fp16 tile through the NE's activation LUT (MACCfg elementwise,
 * NonlinearMode LUT, PostScale 1, no planar engine): the record is an odd table of tanh at
 * |x| = i/8 (the knots of kernels/unary/tanh.bin), coefficient channel 0 at the weights. */
size_t bp_act(uint8_t *buf, size_t cap, unsigned w, unsigned h, unsigned c);
/* bp_act with its record in nch coefficient channels (1..16), channel k's copy at weights +
 * k x 0x80 (Apple's select enables 8 channels, each a copy of its record). */
size_t bp_act_n(uint8_t *buf, size_t cap, unsigned w, unsigned h, unsigned c, unsigned nch);
#define BP_ACT_BYTES (BP_WEIGHTS_OFF + 0x80u)
/* One planar-engine TD (the NE off): c channels of win x hin fp16 from BAR 5 (and BAR 6 with
 * secsrc H13_PE_SECSRC_TILE1, the same geometry) to c channels of wout x hout at BAR 4, with the
 * window, strides and padding of Common.ConvCfg and the Planar.* fields below (fp16 scales and
 * bias, FinalScale fp32 bits). Returns the length, 0 when a size is zero or it does not fit. */
struct bp_pe_spec {
	unsigned win, hin, c, wout, hout, kw, kh, sx, sy, px, py;
	unsigned pool, op, cond, relu, secsrc, nlmode;
	unsigned ne_pass; /* 1: the NE in the path as a pass-through, as the macOS 14 and 26
			   * compilers emit a*b (MACCfg Bit20 alone, KernelCfg PalettizedBits 8,
			   * PostScale 0, no coefficient channel; fw/td td_ne_passthrough) */
	uint16_t ne_post; /* with ne_pass: NE.PostScale (nonzero: no pass-through) */
	uint16_t prescale, scale, bias;
	uint32_t finalscale;
	/* L2 memory (fw/td td_l2mem_of; docs/engine-model.md, "L2 memory and broadcasts"), all 0 for
	 * tile DMA only: the first operand from L2 (BP_L2_READ: SourceType 0, tile source off) or by
	 * tile DMA and kept in L2 (BP_L2_KEEP: SourceType 1) at src_l2; the second from L2 (src2_l2.on:
	 * Src2DMA 0, no RBase1); the result into L2 (res_l2.on: ResultType 0, no tile destination).
	 * Bases and strides in bytes (multiples of 16); Common.PECfg and Cfg.OutTranspose as given. */
	unsigned l2_src;
	struct bp_l2 {
		unsigned on;
		uint32_t base, cs, rs;
		uint32_t gs; /* the group stride (0: not written) */
		uint32_t ds; /* the depth stride (0: not written) */
	} src_l2, src2_l2, res_l2;
	uint32_t pecfg;
	unsigned out_transpose;
	unsigned dependent;               /* L2.SourceCfg.Dependent (with an L2 operand) */
	unsigned src2_dependent;          /* L2.SourceCfg.Src2Dependent (with a second operand in L2) */
	unsigned reduce;                  /* 1: Common.Cfg.TaskType 5, a reduction of each plane */
	uint32_t dst_plane;               /* the destination's plane stride (0: its rows x hout) */
	unsigned ne_rcas;                 /* 1: the NE's channel products (MACCfg.OpMode 2, KernelMode 1,
					   * PostScale 1; GroupConvCfg ElemMultMode, UnicastEn, UnicastCin
					   * 2): c input channels give c / 2 (c is the input's count), no PE */
	uint8_t bar_in0, bar_in1, bar_out; /* bp_pen: the TD's BARs */
	uint32_t src_plane;                /* the first tile source's plane stride (0: its rows x hin) */
	unsigned groups;                   /* GroupConvCfg.NumGroups (0: 1) */
	unsigned ne_unit;                  /* 1: the NE's unit kernel channel by channel (MACCfg.OpMode 0,
					    * KernelMode 1, PostScale 1; GroupConvCfg UnicastEn 1,
					    * UnicastCin 1), as Apple's rsqrt and reductions over C */
	unsigned res_keep;                 /* 1: L2.ResultCfg.ResultType 1 (by the tile DMA, and kept) */
	uint32_t dst_group;                /* the destination's group stride (0: not written) */
	unsigned coeff_off;                /* 1: the 16 coefficient channels written disabled (a TD after
					    * a convolution: registers keep what a TD does not write) */
	unsigned ne_chmax;                 /* N above 0: the NE's channel maxima (MACCfg.OpMode 3,
					    * KernelMode 1, PostScale 1; GroupConvCfg UnicastEn, UnicastCin
					    * N): c input channels give c / N, as Apple's reduce_max over C */
	unsigned tasktype;                 /* Common.Cfg.TaskType when above 0 (over reduce): 6, a
					    * reduction of two operands; 4, a normalize (Apple's layer_norm) */
	unsigned firstsrc;                 /* Planar.Cfg.FirstSrc */
	uint16_t eps;                      /* Planar.PreScale's low half (NLMode 2's eps, fp16) */
	unsigned depth;                    /* Common InDepth and OutDepth (0: 1) */
	uint32_t src_depth;                /* the first tile source's depth stride (0: not written) */
	uint32_t src2_depth, dst_depth;    /* the second tile source's and the destination's (0: not
					    * written) */
	uint32_t src_group, src2_group;    /* the tile sources' group strides (0: not written) */
	uint32_t dst_off;                  /* the destination's byte offset in its BAR (a multiple
					    * of 64: a channel offset, as a concatenation writes) */
	unsigned res_wbase;                /* with res_l2: WBase bound as well (bar_out) and the tile
					    * destination written with DMAConfig 0xc0, En clear: Apple's
					    * staging TDs (fw/td td_dst_writes: kept in L2 memory and
					    * written through WBase both) */
	unsigned src_rbase;                /* with l2_src BP_L2_READ: RBase0 bound as well (bar_in0) and
					    * TileDMASrc.DMAConfig written 0x80, En clear (Apple's TDs
					    * that read a staged operand from L2 memory) */
	unsigned nx;                       /* registers written last, as given (up to BP_PE_EXTRA):
					    * words the spec does not name, or a named one changed */
	uint32_t xreg[4], xval[4];
};
#define BP_PE_EXTRA 4u
#define BP_L2_READ 1u
#define BP_L2_KEEP 2u
#define BP_F32_ONE 0x3f800000u
/* A PE TD that copies c channels of h x w from BAR in0 to BAR out: identity scales, no second
 * operand, everything else 0 (the tests' and the builders' starting point). */
struct bp_pe_spec bp_pe_copy(unsigned c, unsigned h, unsigned w, uint8_t in0, uint8_t out);
size_t bp_pe(uint8_t *buf, size_t cap, const struct bp_pe_spec *p);
/* n (1..LDR_MAX_TDS) planar-engine TDs in one raw stream, TD i at i x BP_CHAIN_STRIDE with its own BARs
 * (bar_in0, bar_in1, bar_out), the weights at bp_chain_weights_off(n). Returns the length, 0 when
 * a size is zero or it does not fit. */
size_t bp_pen(uint8_t *buf, size_t cap, const struct bp_pe_spec *const *p, unsigned n);
/* Two planar-engine TDs in one raw stream (TD 1 at BP2_TD1_OFF): `first` from BAR 5 (one source)
 * to the intermediate BAR 3, then `second` with BAR 3 as its first source and BAR 6 as its second
 * (a program that takes its input through two BARs, as frac's does) to BAR 4. The geometry of
 * `second`'s input must be `first`'s output. Returns the length, 0 when it does not fit. */
#define BP_MID_BAR 3u
#define BP2_TD1_OFF 0x300u
#define BP2_WEIGHTS_OFF 0x580u
size_t bp_pe2(uint8_t *buf, size_t cap, const struct bp_pe_spec *first, const struct bp_pe_spec *second);
/* A chain of TDs through the intermediate BAR 3, the shape the macOS compiler gives a
 * multi-input elementwise expression (docs/engine-model.md, "Real programs from allbilly/ane":
 * its 8-TD atan2 segment): copies of inputs into channel planes of one intermediate tensor, a
 * convolution over those channels, then planar-engine operations with a second tile source. Every
 * step's tiles are w x h fp16 with rows of bp_row(w) bytes; TD i sits at i x BP_CHAIN_STRIDE, the
 * weights (BAR 1) at bp_chain_weights_off(n). */
enum bp_step_kind {
	BP_STEP_COPY, /* the NE as an elementwise pass (OpMode 4, KernelMode 1, PostScale 1) */
	BP_STEP_CONV, /* a 1x1 convolution, cin -> cout (cout <= 16, cin <= 32): output channel o's
		       * cin fp16 weights are coefficient channel o (64 bytes at o x 64) */
	BP_STEP_PE    /* the NE as a pass-through (as bp_pe's ne_pass), the PE's op with RBase1 */
};
struct bp_step {
	unsigned kind, cin, cout; /* copy and PE: cout = cin */
	uint8_t in0, in1, out;    /* BARs: first source, second source (PE), result */
	uint32_t in0_off, in1_off, out_off; /* byte offsets in them (multiples of 64) */
	uint32_t in_plane, out_plane;       /* plane strides (bytes; 0: bp_row(w) x h) */
	unsigned op;              /* PE: H13_PE_OP_ADD or _MUL (PreScale, Scale, FinalScale 1) */
	uint32_t peroute;         /* Common.PERoute as written */
};
#define BP_CHAIN_STRIDE 0x300u
#define BP_CHAIN_MAX 8u
size_t bp_chain_weights_off(unsigned n);
/* n steps (1..BP_CHAIN_MAX) into buf; every convolution step reads the same weights[] (cout x
 * cin fp16, row-major; output channel o's at o x 64 in the weights area). Returns the length, 0
 * when a step is malformed or it does not fit. */
size_t bp_chain(uint8_t *buf, size_t cap, unsigned w, unsigned h, const struct bp_step *s,
		unsigned n, const uint16_t *weights);
/* The row stride (bytes) of w fp16 values. */
uint32_t bp_row(unsigned w);

/* The benchmarks' hooks, one home for the target's `make bench` (tests/bench/bench_model.c) and
 * the host's bench-model: the expected outputs and the two hook bodies (each caller times them
 * with its own counter and leaves that time out). */
struct bp_expect {
	uint16_t in0, in1;  /* every fp16 of input BAR 5, of BAR 6 */
	uint16_t want;      /* every output (k <= 1) */
	uint32_t row, w;    /* the output's rows: row bytes apart, the first w fp16 of each checked */
	unsigned k, h;      /* a k x k convolution over w x h (k > 1): wantk by the taps inside */
	uint16_t wantk[16][16]; /* [taps in y][taps in x] */
};
/* Fills an input grant (BAR 5 or 6; others left as the session filled them): every fp16 in0 or
 * in1, an odd last byte 0 (every byte written: the hooks' whole_bars). */
void bp_fill_input(const struct bp_expect *e, unsigned bar, uint8_t *buf, uint64_t size);
/* Checks the output grant (BAR 4; others not read): adds its outputs to *outputs and those that
 * differ from the expected to *bad. */
void bp_check_output(const struct bp_expect *e, unsigned bar, const uint8_t *buf, uint64_t size,
		     uint64_t *outputs, uint64_t *bad);

#endif
