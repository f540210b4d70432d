/*
 * The bridge from a checked plan (fw/ctrl) to the service: what a call must bind for each BAR of
 * a loaded program (built once, at load), and what a call that rebinds BARs changes in the
 * firmware's own copy of the kernel unit. Pure logic.
 */
#ifndef ANEFW_CMD_SCHEMA_H
#define ANEFW_CMD_SCHEMA_H

#include "fw/cmd/svc.h"
#include "fw/ctrl/ctrl.h"

/*
 * Fills *info from a plan that passed (ctrl_plan returned CTRL_OK): for every BAR the program
 * uses, its engine base, the bytes from that base its TDs touch (the whole grant for a BAR whose
 * extent the control path does not decode) and the access they need. A BAR read as weights, a
 * kernel BAR (KBase0..3) of any TD, or a BAR holding the kernel unit is fixed: a call cannot
 * rebind it (its addresses are baked into TD memory and the unit at load).
 */
void svc_schema(const struct ctrl_plan *pl, struct svc_prog *info);

/*
 * The input and output tile bases the kernel unit holds for a BAR table (the last TD's, as
 * ctrl_plan leaves the unit): *in and *out UINT64_MAX when the TD has no such tile. Returns 1
 * when the program has a kernel unit.
 */
int svc_ku_tiles(const struct ctrl_plan *pl, const uint64_t *bar_base, uint64_t *in,
		 uint64_t *out, uint64_t *unit);

#endif
