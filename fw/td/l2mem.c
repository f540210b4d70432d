/*
 * L2 memory: where a TD's operands and result lie when they are kept in the engine's L2 the way
 * Apple's macOS 26 H13 programs keep them (td.h, td_l2mem_of; docs/engine-model.md, "L2 memory
 * and broadcasts").
 *
 * Evidence: Apple's H13 programs in the public listings of joshuaswarren/mil-hwx-compiler
 * (research/oracles/h13): a broadcast add copies z into L2 with the NE (ResultType 0, no tile
 * destination) and the next TD adds it to x read by DMA, with source 2's base and strides equal to
 * the result base and strides the first TD wrote and PECfg's Src2Broadcast naming the axes z lacks;
 * real_div and floor keep intermediates there, floor also its input (SourceType 1, read again with
 * SourceType 0 by a later TD). softmax.bin's kept values are the same mechanism in its one-value-a-
 * row form and keep their own reading (kept.c).
 */
#include "fw/common/fp16.h"
#include "fw/td/td.h"

#include <string.h>

#define GET(a) (r->get(r->ctx, (a)))

#define refuse(l, ...) td_refuse(&(l)->no, __VA_ARGS__)
#define REFUSE(l, comb, reg, F, why) TD_REFUSE(&(l)->no, (comb), (reg), F, (why))

static uint32_t unit_bytes(uint32_t word)
{
	return (uint32_t)H13_GET(word, H13_L2_STRIDE) * H13_L2_UNIT;
}

/* A view of the tensor (g, c, d, h, w) at base_reg, with its channel, row, depth and group strides
 * from cstride_reg on: 1 along the broadcast axes. */
static void view(const struct td_regs *r, struct td_l2view *v, uint32_t base_reg, uint32_t cstride_reg,
		 uint32_t g, uint32_t c, uint32_t d, uint32_t h, uint32_t w, unsigned bcast, unsigned transpose)
{
	v->on = 1;
	v->elem = 2; /* fp16; a one-byte first operand's view is set to 1 by td_l2mem_of */
	v->bcast = (uint8_t)bcast;
	v->transpose = (uint8_t)transpose;
	v->base = (uint32_t)H13_GET(GET(base_reg), H13_L2_ADDR) * H13_L2_UNIT;
	v->cs = unit_bytes(GET(cstride_reg));
	v->rs = unit_bytes(GET(cstride_reg + 4u));
	v->ds = unit_bytes(GET(cstride_reg + 8u));
	v->gs = unit_bytes(GET(cstride_reg + 12u));
	v->g = g;
	v->c = bcast & H13_BCAST_C ? 1u : c;
	v->d = bcast & H13_BCAST_D ? 1u : d;
	v->h = bcast & H13_BCAST_H ? 1u : h;
	v->w = bcast & H13_BCAST_W ? 1u : w;
}

/* The axes a view's elements step along (count, bytes per step), innermost first as laid out. */
#define L2_AXES 5u
static unsigned axes(const struct td_l2view *v, uint64_t n[L2_AXES], uint64_t s[L2_AXES])
{
	unsigned k = 0;
	if (v->transpose) { /* C and W swapped: the C values of (g, h, w) side by side */
		n[k] = v->c, s[k++] = v->elem;
		n[k] = v->w, s[k++] = v->cs;
	} else {
		n[k] = v->w, s[k++] = v->elem;
		n[k] = v->c, s[k++] = v->cs;
	}
	n[k] = v->h, s[k++] = v->rs;
	n[k] = v->d, s[k++] = v->ds;
	n[k] = v->g, s[k++] = v->gs;
	return k;
}

void td_l2view_span(const struct td_l2view *v, uint64_t *lo, uint64_t *hi)
{
	uint64_t n[L2_AXES], s[L2_AXES], end = v->elem;
	unsigned k = axes(v, n, s);
	for (unsigned i = 0; i < k; i++) {
		if (!n[i])
			end = 0; /* no element: an empty span */
		else if (end)
			end += (n[i] - 1u) * s[i];
	}
	*lo = v->base;
	*hi = (uint64_t)v->base + end;
}

/* No two elements of a view share a byte: along the axes sorted by stride, each step clears
 * everything the axes inside it span. */
static int injective(const struct td_l2view *v)
{
	uint64_t n[L2_AXES], s[L2_AXES];
	unsigned k = axes(v, n, s), m = 0;
	uint64_t an[L2_AXES], as[L2_AXES];
	for (unsigned i = 0; i < k; i++)
		if (n[i] > 1)
			an[m] = n[i], as[m++] = s[i];
	for (unsigned i = 1; i < m; i++) /* insertion sort by stride */
		for (unsigned j = i; j > 0 && as[j] < as[j - 1]; j--) {
			uint64_t t = as[j];
			as[j] = as[j - 1], as[j - 1] = t;
			t = an[j], an[j] = an[j - 1], an[j - 1] = t;
		}
	uint64_t span = v->elem;
	for (unsigned i = 0; i < m; i++) {
		if (as[i] < span)
			return 0;
		span += (an[i] - 1u) * as[i];
	}
	return 1;
}

uint32_t td_l2view_addr(const struct td_l2view *v, uint32_t g, uint32_t c, uint32_t h, uint32_t w)
{
	if (v->bcast & H13_BCAST_C)
		c = 0;
	if (v->bcast & H13_BCAST_H)
		h = 0;
	if (v->bcast & H13_BCAST_W)
		w = 0;
	if (v->transpose) /* C with W: element (g, c, h, w) where (g, w, h, c) would lie */
		return v->base + g * v->gs + w * v->cs + h * v->rs + v->elem * c;
	return v->base + g * v->gs + c * v->cs + h * v->rs + v->elem * w;
}

struct td_l2view td_l2view_at_depth(const struct td_l2view *v, uint32_t d)
{
	struct td_l2view x = *v;
	if (v->d > 1)
		x.base += d * v->ds; /* inside L2: td_l2mem_of checks the whole span */
	x.d = 1;
	return x;
}

/* The view lies inside L2, and a transposed one is [C,1,1] (what_transposed NULL: any shape). */
static void check(struct td_l2mem *l, const struct td_l2view *v, uint32_t base_reg, uint32_t tr_reg,
		  unsigned tr_lsb, const char *what_transposed)
{
	uint64_t lo, hi;
	if (v->transpose && what_transposed && (v->h != 1 || v->w != 1))
		refuse(l, 1, tr_reg, tr_lsb, 1, what_transposed);
	if (v->transpose && v->d > 1)
		refuse(l, 1, tr_reg, tr_lsb, 1, "a transposed tensor in L2 memory with a depth not modelled");
	td_l2view_span(v, &lo, &hi);
	if (hi > H13_L2_BYTES)
		REFUSE(l, 0, base_reg, H13_L2_ADDR,
		       "a tensor in L2 memory reaching past its 2 MiB (base, strides and extent)");
}

/* A source kept in L2 memory as it is read (SourceType 1): no two of its elements share a byte. */
static void kept_apart(struct td_l2mem *l)
{
	if (!injective(&l->src1))
		REFUSE(l, 0, H13_L2_SRC_CSTRIDE, H13_L2_STRIDE,
		       "a source kept in L2 memory (SourceType 1) whose strides overlap its own elements not "
		       "modelled");
}

/* A reduction (td_kept_of): its planes from L2 memory (SourceType 0) or the tile DMA (and kept in
 * L2 as they are read, SourceType 1: Apple's layer_norm over C, H and W), each of k->d depths, one
 * value a plane into L2 memory at element (g, c, 0, 0) of its result, or (a tile destination) by
 * DMA. */
static void reduction(const struct td_regs *r, const struct td_kept *k, int dst, struct td_l2mem *l)
{
	if (k->no.why)
		return;
	uint32_t in = GET(H13_COMMON_INDIM);
	uint32_t g = H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	uint32_t cin = H13_GET(GET(H13_COMMON_CIN), H13_CIN), hin = H13_GET(in, H13_INDIM_HIN);
	uint32_t win = H13_GET(in, H13_INDIM_WIN);
	unsigned st = H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE);
	if ((st == H13_L2_MEM || st == H13_L2_KEEP) &&
	    H13_GET(GET(H13_COMMON_CHCFG), H13_CHCFG_INFMT) != H13_FMT_FP16)
		REFUSE(l, 1, H13_COMMON_CHCFG, H13_CHCFG_INFMT,
		       "a reduction of a one-byte operand in L2 memory not modelled");
	if (st == H13_L2_MEM || st == H13_L2_KEEP) {
		/* (a broadcast only with two operands, SourceType 1 only with one: td_kept_of) */
		/* (Src1Transpose only on a first operand broadcast along W and H: td_kept_of) */
		view(r, &l->src1, H13_L2_SOURCEBASE, H13_L2_SRC_CSTRIDE, g, cin, k->d, hin, win,
		     H13_GET(GET(H13_COMMON_PECFG), H13_CPECFG_SRC1BCAST),
		     H13_GET(GET(H13_COMMON_PECFG), H13_CPECFG_SRC1TRANSPOSE));
		check(l, &l->src1, H13_L2_SOURCEBASE, H13_COMMON_PECFG, H13_CPECFG_SRC1TRANSPOSE_LSB,
		      "Common.PECfg.Src1Transpose on a reduction's operand other than [C,1,1] not modelled");
		l->keep1 = st == H13_L2_KEEP;
		if (l->keep1)
			kept_apart(l);
	}
	/* the second operand of a reduction of two (TaskType 6) from L2 memory (Src2DMA 0) */
	if (k->two && !H13_GET(GET(H13_L2_SOURCECFG), H13_L2SRC_SRC2DMA)) {
		view(r, &l->src2, H13_L2_SOURCE2BASE, H13_L2_SRC2_CSTRIDE, g, cin, k->d, hin, win, 0, 0);
		check(l, &l->src2, H13_L2_SOURCE2BASE, H13_COMMON_PECFG, H13_CPECFG_SRC2TRANSPOSE_LSB, "");
	}
	l->any = l->src1.on || l->src2.on;
	if (dst)
		return;
	view(r, &l->res, H13_L2_RESULTBASE, H13_L2_RES_CSTRIDE, g, cin, 1, 1, 1, 0, k->out_transpose);
	check(l, &l->res, H13_L2_RESULTBASE, H13_COMMON_PECFG, H13_CPECFG_OUTTRANSPOSE_LSB, NULL);
	if (!injective(&l->res))
		REFUSE(l, 0, H13_L2_RES_CSTRIDE, H13_L2_STRIDE,
		       "a reduction's results in L2 memory whose strides overlap one another not modelled");
	uint64_t rlo, rhi, lo, hi;
	td_l2view_span(&l->res, &rlo, &rhi);
	for (unsigned i = 0; i < 2; i++) {
		const struct td_l2view *v = i ? &l->src2 : &l->src1;
		td_l2view_span(v, &lo, &hi);
		if (v->on && lo < rhi && rlo < hi)
			REFUSE(l, 1, H13_L2_RESULTBASE, H13_L2_ADDR,
			       "a reduction's result in L2 memory over the rows it reads not modelled");
	}
	l->any = 1;
}

/* Two views of the same elements at the same places (an elementwise TD that writes its result over
 * its operand: each element is read before it is written). */
static int same_view(const struct td_l2view *a, const struct td_l2view *b)
{
	return a->elem == b->elem && a->base == b->base && a->cs == b->cs && a->rs == b->rs && a->gs == b->gs && a->g == b->g &&
	       a->c == b->c && a->h == b->h && a->w == b->w && a->d == b->d && !a->bcast && !b->bcast &&
	       a->transpose == b->transpose;
}

/* Common.Cfg.TaskType 4 (Apple's H13 layer_norm, its last TD): y = (a - p0[c]) x p1[c], the pair
 * of channel c's values (the mean and 1/sqrt(variance + eps) kept by the reductions before) at
 * element (g, c, 0, 0) of the second operand's view in L2 memory and one Source2RowStride after it.
 * SecSrc 3 subtracts p0, as it subtracts the second operand of an elementwise add; SecSrc 2 adds it
 * (Apple's add and sub of a constant from a file: the constant, negated for a sub, as p0, and a
 * row of 1.0 as p1; docs/engine-model.md, "A normalize that adds"). Only those forms are read:
 * SecSrc 3 or 2 and nothing else in Planar.Cfg (OpMode 0), the second operand from L2, every scale
 * identity. */
static void normalize(const struct td_regs *r, struct td_l2mem *l)
{
	uint32_t cfg = GET(H13_PLANAR_CFG), scfg = GET(H13_L2_SOURCECFG);
	if (cfg != H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_SUB) && cfg != H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1))
		refuse(l, 0, H13_PLANAR_CFG, 0, 32,
		       "Common.Cfg.TaskType 4 (a normalize) with Planar.Cfg other than SecSrc 3 or 2 alone "
		       "(Apple's layer_norm: 0xc0000; its add of a constant from a file: 0x80000) not modelled");
	if (H13_GET(scfg, H13_L2SRC_SRC2DMA))
		REFUSE(l, 1, H13_L2_SOURCECFG, H13_L2SRC_SRC2DMA,
		       "Common.Cfg.TaskType 4 (a normalize) whose pair comes by the tile DMA (Src2DMA 1) not "
		       "modelled");
	/* the NE before it: a pass-through in every real normalize (Apple's layer_norm, its add, sub
	 * and mul of a constant); whether a computing NE's result is the a of (a - p0) x p1 is not
	 * pinned (a reduction refuses the same: kept.c) */
	const uint32_t mac = GET(H13_NE_MACCFG);
	if (mac && !td_ne_passthrough(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r)))
		refuse(l, 1, H13_NE_MACCFG, 0, 32,
		       "Common.Cfg.TaskType 4 (a normalize) after the NE not modelled (the NE is a "
		       "pass-through in every real normalize)");
	if (GET(H13_PLANAR_PRESCALE) != H13_PUT(H13_PRESCALE, FP16_ONE) ||
	    GET(H13_PLANAR_BIASSCALE) != H13_PUT(H13_BIASSCALE_SCALE, FP16_ONE) ||
	    GET(H13_PLANAR_FINALSCALE) != H13_FINALSCALE_ONE)
		refuse(l, 0, H13_PLANAR_PRESCALE, 0, 32,
		       "Common.Cfg.TaskType 4 (a normalize) with Planar.PreScale, BiasScale or FinalScale "
		       "other than identity: where each applies is not pinned");
	l->pair = cfg == H13_PUT(H13_PECFG_SECSRC, H13_PE_SECSRC_TILE1) ? TD_PAIR_ADD : TD_PAIR_SUB;
}

void td_l2mem_of(const struct td_regs *r, unsigned bar_en, const struct td_kept *k, struct td_l2mem *l)
{
	memset(l, 0, sizeof *l);
	l->no.reg = TD_KEPT_NO_REG;
	if (k->role == TD_KEPT_MAKES) {
		reduction(r, k, td_dst_writes(bar_en), l);
		return;
	}
	uint32_t pc = GET(H13_COMMON_PECFG), cfg = GET(H13_PLANAR_CFG), scfg = GET(H13_L2_SOURCECFG);
	unsigned b1 = H13_GET(pc, H13_CPECFG_SRC1BCAST), b2 = H13_GET(pc, H13_CPECFG_SRC2BCAST);
	unsigned t1 = H13_GET(pc, H13_CPECFG_SRC1TRANSPOSE), t2 = H13_GET(pc, H13_CPECFG_SRC2TRANSPOSE);
	unsigned otr = H13_GET(GET(H13_COMMON_CFG), H13_CFG_OUTTRANSPOSE);
	unsigned st = H13_GET(scfg, H13_L2_SOURCETYPE);
	unsigned rt = H13_GET(GET(H13_L2_RESULTCFG), H13_L2_RESULTTYPE);
	/* the tile destination writes through WBase, En set or clear (td_dst_writes) */
	int dst = td_dst_writes(bar_en);
	int dst_en = H13_GET(GET(H13_DST_DMACONFIG), H13_DMA_EN) != 0;
	/* PECfg.OutputTranspose on a result kept in L2 memory: kept with C and W swapped, as
	 * Common.Cfg.OutTranspose keeps one (Apple's layer_norm over C of [1,4096,1,1]: its copy of x
	 * into L2 is read back by the next TD as one row of 4096, and the program computes layer norm
	 * only so; docs/engine-model.md, "Apple's H13 layer_norm"). Elsewhere, or with both, refused */
	const unsigned pot = H13_GET(pc, H13_CPECFG_OUTTRANSPOSE);
	if (pot && (otr || rt != H13_L2_MEM || (dst && dst_en)))
		REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_OUTTRANSPOSE,
		       "Common.PECfg.OutputTranspose on a TD that is not a reduction, other than on a result "
		       "kept in L2 memory without Common.Cfg.OutTranspose, not modelled");
	/* ... and written through WBase with En clear as well (td_dst_writes): the tile DMA's copy
	 * with C and W swapped too (td_dst_cw_swapped), one row of C at WBase, in the one form that
	 * pins it, Apple's softmax over C of [1,C,1,1] (its TD 1: the compiler's destination strides
	 * are that row's bytes, and the intermediate it reserves holds that row and not C planes;
	 * docs/engine-model.md, "Softmax over channels"). Any other shape, several groups, a depth or
	 * a channel interleave on that write: refused */
	if (pot && dst) {
		const uint32_t odim = GET(H13_COMMON_OUTDIM);
		if (H13_GET(odim, H13_OUTDIM_WOUT) != 1u || H13_GET(odim, H13_OUTDIM_HOUT) != 1u ||
		    H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS) != 1u || td_depth(r, 1) != 1u ||
		    td_tile_interleave(GET(H13_DST_FMT)) != 1u)
			REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_OUTTRANSPOSE,
			       "Common.PECfg.OutputTranspose on a result kept in L2 memory and written through "
			       "WBase (TileDMADst.DMAConfig.En clear) other than [C,1,1] in one group, of depth 1 "
			       "and no channel interleave, not modelled (Apple's softmax over C pins one row of C "
			       "at WBase)");
	}
	/* ... and kept in L2 memory alone: the same [C,1,1] (the fourteenth review). Apple's layer_norm
	 * over C and its softmax over C pin the bit on a result that is not a reduction's at [C,1,1]
	 * only, where a swap of C and W and, say, a flattening into one row are one layout; every real
	 * TD on disk with the bit so is [C,1,1] (docs/engine-model.md, "What a fourteenth review
	 * found"). Other shapes computed as Common.Cfg.OutTranspose's swap, which nothing pins */
	if (pot && !dst) {
		const uint32_t odim = GET(H13_COMMON_OUTDIM);
		if (H13_GET(odim, H13_OUTDIM_WOUT) != 1u || H13_GET(odim, H13_OUTDIM_HOUT) != 1u ||
		    H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS) != 1u || td_depth(r, 1) != 1u)
			REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_OUTTRANSPOSE,
			       "Common.PECfg.OutputTranspose on a result kept in L2 memory (not a reduction's) "
			       "other than [C,1,1] in one group and of depth 1 not modelled (Apple's layer_norm "
			       "and softmax over C pin one row of C; elsewhere that it swaps C and W as "
			       "Common.Cfg.OutTranspose does is not pinned)");
	}
	otr |= pot;
	int pe = td_pe_in_path(GET(H13_COMMON_CFG));
	int two = pe && td_pe_two_operands(cfg);
	int src_en = H13_GET(GET(H13_SRC_DMACONFIG), H13_DMA_EN) != 0;
	int src0 = src_en && (bar_en >> H13_BAR_RBASE0 & 1u);
	int src1 = src_en && (bar_en >> H13_BAR_RBASE1 & 1u);
	uint32_t in = GET(H13_COMMON_INDIM), od = GET(H13_COMMON_OUTDIM);
	uint32_t g = H13_GET(GET(H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	uint32_t cin = H13_GET(GET(H13_COMMON_CIN), H13_CIN), cout = H13_GET(GET(H13_COMMON_COUT), H13_COUT);
	uint32_t hin = H13_GET(in, H13_INDIM_HIN), win = H13_GET(in, H13_INDIM_WIN);
	/* the first operand */
	if (st == H13_L2_MEM || st == H13_L2_KEEP) {
		view(r, &l->src1, H13_L2_SOURCEBASE, H13_L2_SRC_CSTRIDE, g, cin, 1, hin, win, b1, t1);
		/* a one-byte first operand lies in L2 a byte an element, as it is kept (Apple's H13
		 * select keeps its bool cond so and reads it back: docs/engine-model.md, "One-byte
		 * tensors through the tile DMA") */
		if (H13_GET(GET(H13_COMMON_CHCFG), H13_CHCFG_INFMT) != H13_FMT_FP16)
			l->src1.elem = 1;
		check(l, &l->src1, H13_L2_SOURCEBASE, H13_COMMON_PECFG, H13_CPECFG_SRC1TRANSPOSE_LSB,
		      "Common.PECfg.Src1Transpose on an operand other than [C,1,1] not modelled (Apple's are "
		      "[64,1,1] kept as one row)");
		if (st == H13_L2_MEM && src0)
			REFUSE(l, 0, H13_L2_SOURCECFG, H13_L2_SOURCETYPE,
			       "L2.SourceCfg.SourceType 0 (the first operand from L2 memory) with the tile source "
			       "enabled and RBase0 bound: which one the engine reads is not known (Apple's "
			       "programs disable it)");
		/* a broadcast first operand under an NE whose outputs read other elements than their
		 * own (a convolution, the channel products or maxima, the unit kernel's sum over
		 * channels): every real broadcast one has the NE a pass-through, and whether the
		 * field (the PE's) broadcasts the NE's input or the PE's operand, which differ there,
		 * is not pinned */
		const uint32_t mac = GET(H13_NE_MACCFG), post = GET(H13_NE_POSTSCALE);
		const unsigned nop = H13_GET(mac, H13_MACCFG_OPMODE);
		const int across = mac && !td_ne_passthrough(mac, post, td_coeff_enabled(r)) &&
				   (td_ne_reads_kernels(mac, post, td_coeff_enabled(r)) || nop == H13_MAC_OP_RCAS ||
				    nop == H13_MAC_OP_CHMAX ||
				    (nop == H13_MAC_OP_CONV && H13_GET(mac, H13_MACCFG_KERNELMODE) &&
				     td_unit_sum(cin, cout, GET(H13_COMMON_GROUPCONVCFG))));
		if (b1 && across)
			REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_SRC1BCAST,
			       "Common.PECfg.Src1Broadcast under an NE whose outputs read other elements (a "
			       "convolution, the channel products, maxima or sum) not modelled (every real "
			       "broadcast operand has the NE a pass-through)");
		if (st == H13_L2_KEEP) {
			l->keep1 = 1;
			if (!src0)
				REFUSE(l, 1, H13_L2_SOURCECFG, H13_L2_SOURCETYPE,
				       "L2.SourceCfg.SourceType 1 (read by tile DMA and kept in L2) with no tile "
				       "source bound (RBase0)");
			if (t1)
				refuse(l, 1, H13_COMMON_PECFG, H13_CPECFG_SRC1TRANSPOSE_LSB, 1,
				       "Common.PECfg.Src1Transpose on a source kept from the tile DMA (SourceType 1) "
				       "not modelled");
			/* read channel-interleaved: the model de-interleaves the tile and keeps it plain,
			 * under an L2 side (L2.SourceCfg.DMAInterleave) that names the interleave too.
			 * Apple's H13 batched matmul encoder_bmm_m375_k1024_n128_ty1_b8_idx pins that
			 * reading at interleave 8: each batch's first TD reads w^T, which TD 0 wrote
			 * interleaved by 8, keeps it so, and the TDs after read the copy plain
			 * (docs/engine-model.md, "a twelfth sweep"); 2 and 4 no program shows (a
			 * reduction's kept source is refused at any interleave: kept.c) */
			const unsigned ilv = td_tile_interleave(GET(H13_SRC_FMT));
			if (ilv > 1u && ilv != 8u)
				REFUSE(l, 1, H13_SRC_FMT, H13_FMT_INTERLEAVE,
				       "channel interleave 2 or 4 on a source kept in L2 memory as it is read "
				       "(L2.SourceCfg.SourceType 1) not modelled (Apple's batched matmul keeps one "
				       "read interleaved by 8; in which layout L2 keeps another is not pinned)");
			kept_apart(l);
		}
	} else if (b1) {
		REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_SRC1BCAST,
		       "Common.PECfg.Src1Broadcast on a first operand not read from L2 memory (SourceType 2 "
		       "or 3) not modelled");
	} else if (t1) {
		REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_SRC1TRANSPOSE,
		       "Common.PECfg.Src1Transpose on a first operand not read from L2 memory (SourceType 2 "
		       "or 3) not modelled");
	}
	/* a first operand from L2 memory beside a second the tile DMA reads channel-interleaved (the
	 * source side's interleave then the second's: compute.c): read plain, which Apple's softmax
	 * over 1x8x375x375 (its TD 4) pins only broadcast along W (one value a plane); otherwise
	 * whether L2.SourceCfg.DMAInterleave lays it out too is not known */
	if (st == H13_L2_MEM && two && H13_GET(scfg, H13_L2SRC_SRC2DMA) && src1 &&
	    td_tile_interleave(GET(H13_SRC_FMT)) > 1u && !(b1 & H13_BCAST_W))
		REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_SRC1BCAST,
		       "a first operand from L2 memory (SourceType 0) not broadcast along W beside a second "
		       "read channel-interleaved by the tile DMA not modelled (Apple's softmax pins the one "
		       "broadcast along W)");
	/* the second (with TaskType 4, a pair of values a channel) */
	if (H13_GET(GET(H13_COMMON_CFG), H13_CFG_TASKTYPE) == H13_TASK_NORMALIZE)
		normalize(r, l);
	if (two && !H13_GET(scfg, H13_L2SRC_SRC2DMA)) {
		if (src1)
			REFUSE(l, 1, H13_L2_SOURCECFG, H13_L2SRC_SRC2DMA,
			       "L2.SourceCfg.Src2DMA 0 (the second operand from L2) with a second tile source "
			       "(RBase1) bound: which one the PE reads is not known");
		view(r, &l->src2, H13_L2_SOURCE2BASE, H13_L2_SRC2_CSTRIDE, g, cin, 1, hin, win,
		     l->pair ? b2 | H13_BCAST_W | H13_BCAST_H : b2, t2);
		/* beside a first operand the tile DMA reads channel-interleaved: the model read the
		 * second plain under L2.SourceCfg.DMAInterleave above 1; no real program has the form
		 * (Apple's softmax pins the mirror, a first operand from L2 broadcast along W beside a
		 * second read interleaved, above), so whether that field lays it out too is not known */
		if (src0 && td_tile_interleave(GET(H13_SRC_FMT)) > 1u)
			REFUSE(l, 1, H13_SRC_FMT, H13_FMT_INTERLEAVE,
			       "a second operand from L2 memory (L2.SourceCfg.Src2DMA 0) beside a first read "
			       "channel-interleaved by the tile DMA not modelled (no real program has one; "
			       "whether L2.SourceCfg.DMAInterleave lays it out too is not known)");
		check(l, &l->src2, H13_L2_SOURCE2BASE, H13_COMMON_PECFG, H13_CPECFG_SRC2TRANSPOSE_LSB,
		      "Common.PECfg.Src2Transpose on an operand other than [C,1,1] not modelled (Apple's are "
		      "[64,1,1] kept as one row)");
		uint64_t lo, hi;
		td_l2view_span(&l->src2, &lo, &hi);
		if (l->pair && hi + l->src2.rs > H13_L2_BYTES)
			REFUSE(l, 0, H13_L2_SOURCE2BASE, H13_L2_ADDR,
			       "a normalize's pair (p1 one Source2RowStride after p0) reaching past L2 memory");
		/* a first operand kept in L2 as it is read (SourceType 1) over the second operand the
		 * same TD reads there: whether the second is read before or after the keep writes it
		 * is not known (no real program keeps a source beside a second operand in L2) */
		uint64_t klo, khi;
		td_l2view_span(&l->src1, &klo, &khi);
		if (l->keep1 && l->src1.on && lo < khi && klo < hi + (l->pair ? l->src2.rs : 0u))
			REFUSE(l, 1, H13_L2_SOURCE2BASE, H13_L2_ADDR,
			       "a second operand in L2 memory over the first operand the same TD keeps there "
			       "(L2.SourceCfg.SourceType 1) not modelled (which the engine does first is not "
			       "known)");
	} else if (b2 || t2) {
		const char *why = two ? "Common.PECfg.Src2Broadcast or Src2Transpose on a second operand that "
					"comes by tile DMA (L2.SourceCfg.Src2DMA 1) not modelled"
				      : "Common.PECfg.Src2Broadcast or Src2Transpose with no second operand "
					"(Planar.Cfg.SecSrc 0) not modelled";
		if (b2)
			REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_SRC2BCAST, why);
		else
			REFUSE(l, 1, H13_COMMON_PECFG, H13_CPECFG_SRC2TRANSPOSE, why);
	}
	/* the result */
	if (rt == H13_L2_KEEP)
		REFUSE(l, 0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
		       "L2.ResultCfg.ResultType 1 on a TD that is not a reduction not modelled (only the "
		       "reductions of Apple's reduce_sum and reduce_mean over C have it)");
	else if (rt == H13_L2_MEM && dst && dst_en)
		REFUSE(l, 0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
		       "L2.ResultCfg.ResultType 0 (the result left in L2 memory) with the tile destination "
		       "enabled and WBase bound: which one the engine writes is not known (Apple's programs "
		       "clear its En)");
	/* ResultType 0 with WBase bound and the destination's En clear (Apple's staging TDs: the
	 * eighth and ninth sweeps' matmuls): kept in L2 memory and written through WBase both
	 * (td_dst_writes), the same values, each as that path alone writes them (Common.Cfg.
	 * OutTranspose, which the M 16 matmul's TD 0 sets, on both: the view below, and compute.c's
	 * write_transposed); a convolution so is refused */
	else if (rt == H13_L2_MEM && dst &&
		 td_ne_reads_kernels(GET(H13_NE_MACCFG), GET(H13_NE_POSTSCALE), td_coeff_enabled(r)))
		REFUSE(l, 0, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
		       "a convolution whose result is kept in L2 memory (ResultType 0) and written through "
		       "WBase (TileDMADst.DMAConfig.En clear) both not modelled (Apple's staging TDs are "
		       "pass-throughs)");
	if (rt == H13_L2_MEM && !(dst && dst_en)) {
		/* Ox x Wout columns a row: Common.ConvCfg.Ox 2 (Apple's depthwise 1x9, td_conv_ox) */
		view(r, &l->res, H13_L2_RESULTBASE, H13_L2_RES_CSTRIDE, g, cout, 1, H13_GET(od, H13_OUTDIM_HOUT),
		     H13_GET(od, H13_OUTDIM_WOUT) * td_conv_ox(r, bar_en), 0, otr);
		/* OutTranspose of any shape: Apple's reductions over C write their [64,8,8] input so, C
		 * along a row, for a reduction of planes to read (docs/engine-model.md) */
		check(l, &l->res, H13_L2_RESULTBASE, H13_COMMON_CFG, H13_CFG_OUTTRANSPOSE_LSB, NULL);
		if (!injective(&l->res))
			REFUSE(l, 0, H13_L2_RES_CSTRIDE, H13_L2_STRIDE,
			       "a result in L2 memory whose strides overlap its own elements not modelled");
	} else if (otr && !dst) {
		REFUSE(l, 1, H13_COMMON_CFG, H13_CFG_OUTTRANSPOSE,
		       "Common.Cfg.OutTranspose on a result neither kept in L2 memory nor written by the "
		       "tile DMA not modelled");
	}
	l->any = l->src1.on || l->src2.on || l->res.on;
	/* an operand the TD overwrites as it reads it: the same view, element for element (a TD reads
	 * each element of its operands before it writes that element's result), or refused */
	uint64_t rlo, rhi, lo, hi;
	const uint32_t mac = GET(H13_NE_MACCFG);
	const int conv = td_ne_reads_kernels(mac, GET(H13_NE_POSTSCALE), td_coeff_enabled(r));
	if (l->res.on) {
		td_l2view_span(&l->res, &rlo, &rhi);
		for (unsigned i = 0; i < 2; i++) {
			const struct td_l2view *v = i ? &l->src2 : &l->src1;
			if (!v->on)
				continue;
			td_l2view_span(v, &lo, &hi);
			if (i == 1 && l->pair)
				hi += v->rs; /* p1 */
			/* (element for element only where each output reads its own element alone: not
			 * a convolution, whose outputs read other channels and positions) */
			/* a first operand kept in L2 as it is read (SourceType 1) is written there by this
			 * TD as well: the result in its place makes two writes of each element, the keep's
			 * and the result's, whose order no program or document pins (no real program keeps
			 * a source where it leaves its result; an overlap other than in place is refused
			 * below, as any other) */
			if (i == 0 && l->keep1 && same_view(v, &l->res))
				REFUSE(l, 1, H13_L2_RESULTBASE, H13_L2_ADDR,
				       "a result in L2 memory over the first operand the same TD keeps there "
				       "(L2.SourceCfg.SourceType 1) not modelled (which of the two writes the "
				       "engine makes last is not known)");
			else if (!(i == 1 && l->pair) && !conv && same_view(v, &l->res))
				l->inplace |= (uint8_t)(1u << i);
			else if (lo < rhi && rlo < hi)
				REFUSE(l, 1, H13_L2_RESULTBASE, H13_L2_ADDR,
				       "a result in L2 memory over an operand the same TD reads from L2 not "
				       "modelled");
		}
	}
}

unsigned td_src0_bcast(const struct td_regs *r, unsigned bar_en)
{
	const unsigned all = H13_BCAST_W | H13_BCAST_H | H13_BCAST_D | H13_BCAST_C;
	/* (a quick no: without SourceType 1 and Src1Broadcast there is no keep1 view broadcast) */
	if (H13_GET(GET(H13_L2_SOURCECFG), H13_L2_SOURCETYPE) != H13_L2_KEEP ||
	    !(H13_GET(GET(H13_COMMON_PECFG), H13_CPECFG_SRC1BCAST) & all))
		return 0;
	if (td_tile_interleave(GET(H13_SRC_FMT)) > 1u)
		return 0;
	struct td_kept k;
	struct td_l2mem l;
	td_kept_of(r, bar_en, &k);
	if (k.no.why || k.role == TD_KEPT_MAKES)
		return 0;
	td_l2mem_of(r, bar_en, &k, &l);
	if (l.no.why || !l.keep1 || !l.src1.on)
		return 0;
	return l.src1.bcast & all;
}
