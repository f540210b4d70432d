/*
 * The L2-resident tensors a submission's TDs leave (L2.ResultCfg.ResultType 3) for later TDs to
 * read (L2.SourceCfg.SourceType 3), found by their base, as the engine model holds them
 * (docs/engine-model.md, "The text and the model's refusals agree"): what TD n leaves
 * (td_resident_leave: NumGroups x Cout x Hout x Wout, the result's shape), where a result goes in
 * the model's table of ANEM_L2_TENSORS (td_resident_slot, td_resident_result_refusal: more tensors
 * than it holds, one larger than TD_L2_TENSOR_MAX) and whether TD m's read finds what it reads
 * (td_resident_source_refusal: a base no TD left, a tensor of another shape than the TD's input). The model
 * keeps the values beside the table (engine/model/compute.c l2_result); inspect carries the table
 * from TD to TD in its print walks (fw/loader/print.c, app/session.c: td_print_op_walk) and marks
 * the TD with the model's text. Pure register logic.
 */
#include "fw/td/td.h"

#define GET(a) (r->get(r->ctx, (a)))

static int type_resident(const struct td_regs *r, uint32_t cfg_reg, unsigned lsb, unsigned width)
{
	return ((GET(cfg_reg) >> lsb) & td_field_mask(width)) == H13_L2_RESIDENT;
}

const struct td_dims *td_resident_find(const struct td_residents *s, uint32_t base)
{
	for (unsigned i = 0; i < TD_RESIDENT_MAX; i++)
		if (s->t[i].on && s->t[i].base == base)
			return &s->t[i].d;
	return 0;
}

int td_resident_slot(const struct td_residents *s, uint32_t base)
{
	for (unsigned i = 0; i < TD_RESIDENT_MAX; i++)
		if (s->t[i].on && s->t[i].base == base)
			return (int)i;
	for (unsigned i = 0; i < TD_RESIDENT_MAX; i++)
		if (!s->t[i].on)
			return (int)i;
	return -1;
}

/* the result's shape, as the tile DMA's destination has it (td_tile_geom_of, the model's out tile) */
static struct td_dims result_dims(const struct td_regs *r)
{
	struct td_tile_geom o;
	td_tile_geom_of(r, TD_R_DST, &o);
	return (struct td_dims){o.w, o.h, o.c, o.g};
}

void td_resident_result_refusal(const struct td_regs *r, const struct td_residents *s, struct td_refusal *no)
{
	if (!type_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W))
		return;
	if (td_resident_slot(s, H13_GET(GET(H13_L2_RESULTBASE), H13_L2_ADDR)) < 0)
		TD_REFUSE(no, TD_RF_CAPACITY, H13_L2_RESULTBASE, H13_L2_ADDR,
			  "more L2-resident tensors than the model holds");
	const struct td_dims d = result_dims(r);
	if ((uint64_t)d.g * d.c * d.h * d.w > TD_L2_TENSOR_MAX / 2)
		TD_REFUSE(no, TD_RF_CAPACITY, H13_L2_RESULTCFG, H13_L2_RESULTTYPE,
			  "an L2-resident result (NumGroups x Cout x Hout x Wout fp16) larger than the "
			  "model holds (TD_L2_TENSOR_MAX)");
}

void td_resident_source_refusal(const struct td_regs *r, const struct td_residents *s, struct td_refusal *no)
{
	if (!type_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W))
		return;
	const struct td_dims *t = td_resident_find(s, H13_GET(GET(H13_L2_SOURCEBASE), H13_L2_ADDR));
	struct td_tile_geom in;
	td_tile_geom_of(r, TD_R_SRC0, &in);
	if (!t)
		TD_REFUSE(no, 1, H13_L2_SOURCEBASE, H13_L2_ADDR, "L2 source names no resident tensor");
	else if (t->w < in.w || t->h < in.h || t->c < in.c || t->g < in.g) /* (read as zeros past it) */
		TD_REFUSE(no, 1, H13_L2_SOURCEBASE, H13_L2_ADDR,
			  "an L2-resident source smaller than the TD's input (Cin, InDim, NumGroups) "
			  "not modelled");
	/* the model holds the tensor whole and reads no L2 stride: the part of a larger one a TD
	 * reads (its first rows, columns and channels, as the model took it) is pinned by nothing */
	else if (t->w != in.w || t->h != in.h || t->c != in.c || t->g != in.g)
		TD_REFUSE(no, 1, H13_L2_SOURCEBASE, H13_L2_ADDR,
			  "an L2-resident source larger than the TD's input (Cin, InDim, NumGroups) not "
			  "modelled (sigmoid.bin's TD 1 reads the whole tensor its TD 0 left; which part "
			  "of a larger one a TD reads, and by which L2 strides, is not known)");
}

const struct td_dims *td_resident_source(const struct td_regs *r, const struct td_residents *s)
{
	if (!s)
		return 0;
	struct td_refusal no = {0};
	td_resident_source_refusal(r, s, &no);
	if (no.why || !type_resident(r, H13_L2_SOURCECFG, H13_L2_SOURCETYPE_LSB, H13_L2_SOURCETYPE_W))
		return 0;
	return td_resident_find(s, H13_GET(GET(H13_L2_SOURCEBASE), H13_L2_ADDR));
}

int td_resident_leave(const struct td_regs *r, unsigned bar_en, struct td_residents *s)
{
	if (!type_resident(r, H13_L2_RESULTCFG, H13_L2_RESULTTYPE_LSB, H13_L2_RESULTTYPE_W))
		return -1;
	struct td_kept k;
	td_kept_of(r, bar_en, &k);
	if (k.role == TD_KEPT_MAKES) /* (a reduction leaves its values in L2 memory, not here) */
		return -1;
	const uint32_t base = H13_GET(GET(H13_L2_RESULTBASE), H13_L2_ADDR);
	const int i = td_resident_slot(s, base);
	if (i < 0)
		return -1; /* (refused: td_resident_result_refusal) */
	s->t[i].on = 1;
	s->t[i].base = base;
	s->t[i].d = result_dims(r);
	return i;
}
