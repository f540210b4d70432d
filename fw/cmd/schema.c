/* A loaded program's BAR schema (see schema.h). */
#include "fw/cmd/schema.h"

#include <string.h>

void svc_schema(const struct ctrl_plan *pl, struct svc_prog *info)
{
	memset(info, 0, sizeof *info);
	info->ntds = pl->ntds;
	info->procedures = 1; /* one procedure: the program's whole TD list */
	const unsigned ntds = pl->ntds < LDR_MAX_TDS ? pl->ntds : LDR_MAX_TDS;
	uint32_t kunit = 0; /* BARs holding the kernel unit */
	for (unsigned t = 0; t < ntds; t++) {
		const struct ctrl_td_plan *tp = &pl->td[t];
		const struct ldr_td *td = &pl->p->tds[t];
		for (unsigned k = H13_BAR_KBASE0; k < H13_BAR_NSLOTS; k++)
			if (td->h.bar_en >> k & 1u)
				info->fixed |= 1u << (td->h.bar_idx[k] & 31u);
		for (unsigned r = 0; r < tp->nranges && r < CTRL_MAX_RANGES; r++) {
			const struct ctrl_range *x = &tp->r[r];
			unsigned b = x->bar & 31u;
			struct svc_bar *sb = &info->bar[b];
			uint64_t end = x->off + x->len; /* inside a grant the policy proved: no overflow */
			if (x->kind == CTRL_R_COEFF || x->kind == CTRL_R_STREAM || x->kind == CTRL_R_KUNIT)
				info->fixed |= 1u << b;
			if (x->kind == CTRL_R_KUNIT)
				kunit |= 1u << b;
			info->used |= 1u << b;
			sb->flags |= SVC_BAR_USED;
			sb->access |= x->access & (CMD_ACC_READ | CMD_ACC_WRITE);
			if (end > sb->need)
				sb->need = end;
		}
	}
	/* the weights, however the TDs read them (the kernel DMA, or the tile DMA as Apple's `rb`
	 * form reads a constant): the firmware's copy comes from the program */
	for (unsigned b = 0; b < CMD_NBARS && b < LDR_NBARS; b++)
		if ((info->used >> b & 1u) && ldr_weights_bar(pl->p, b))
			info->fixed |= 1u << b;
	/* a fixed BAR a TD reads that is not the weights, not the kernel unit and not written by an
	 * earlier TD holds the host's data (a runtime kernel BAR: batched matmul's x), which no call
	 * can bind: the firmware's copy would be the fill pattern (unbound) */
	uint32_t written = 0;
	for (unsigned t = 0; t < ntds; t++) {
		const struct ctrl_td_plan *tp = &pl->td[t];
		uint32_t wrote = 0;
		for (unsigned r = 0; r < tp->nranges && r < CTRL_MAX_RANGES; r++) {
			const struct ctrl_range *x = &tp->r[r];
			unsigned b = x->bar & 31u;
			if (x->access & CMD_ACC_WRITE)
				wrote |= 1u << b;
			else if ((info->fixed >> b & 1u) && !(kunit >> b & 1u) && !(written >> b & 1u) &&
				 !ldr_weights_bar(pl->p, b))
				info->unbound |= 1u << b;
		}
		written |= wrote;
	}
	for (unsigned b = 0; b < CMD_NBARS; b++) {
		if (info->used >> b & 1u)
			info->bar[b].base = pl->bar_runtime[b];
		if (info->fixed >> b & 1u)
			info->bar[b].flags |= SVC_BAR_FIXED;
	}
	info->fixed &= info->used;
}

int svc_ku_tiles(const struct ctrl_plan *pl, const uint64_t *bar_base, uint64_t *in,
		 uint64_t *out, uint64_t *unit)
{
	*in = *out = *unit = UINT64_MAX;
	if (!pl->have_ku || !pl->ntds)
		return 0;
	const struct ctrl_td_plan *tp = &pl->td[pl->ntds - 1];
	for (unsigned r = 0; r < tp->nranges && r < CTRL_MAX_RANGES; r++) {
		const struct ctrl_range *x = &tp->r[r];
		uint64_t a = bar_base[x->bar & 31u] + x->off;
		if (x->kind == CTRL_R_SRC0)
			*in = a;
		else if (x->kind == CTRL_R_DST)
			*out = a;
		else if (x->kind == CTRL_R_KUNIT)
			*unit = x->runtime;
	}
	return 1;
}
