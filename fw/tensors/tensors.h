/*
 * The tensors of a program: for every buffer a submission's default grants give it that is not
 * the weights or the TD area, its name, role, element format, logical shape and layout. Pure
 * logic over a loaded program: the roles and byte sizes are ctrl_default_grants', the geometry
 * comes from the registers of the TDs that use the BAR (the cumulative image, as the control
 * path checks it), read with fw/regmap/h13.h's named fields.
 *
 * name: the I/O window's name in a container; "barN" (N = the BAR index) for raw streams,
 * unnamed windows and BARs no window declares. "barN" always addresses a tensor (tns_find).
 * role: the window's direction; for an undeclared BAR, what its TDs do (read: input, write:
 * output, both: intermediate). shape: [C, H, W], with G first when there is more than one
 * group and D after C when the TDs walk it at more than one depth (Common.InDepth/OutDepth):
 * [G, C, D, H, W] at most. Layout: element (g, c, d, h, w) is at byte
 * base + g*group + c*plane + d*depth + h*row + w*elem of the buffer (channel interleave as
 * fw/td's td_tile_off). A BAR that some TD uses at depth 1 takes its geometry from those TDs
 * (Apple's layer_norm reads its input both ways).
 * When the TDs using a BAR disagree about its geometry (other than by whole planes, as a
 * channel concatenation does, or by registers that walk the same bytes in the same order, as
 * softmax.bin's groups of one row and rows do: then the view with the fewest axes), when their
 * geometry has more elements than the buffer has room for (strides that make elements share
 * bytes), or when no TD uses it as a tile, the tensor is
 * `flat`: a 1-D run of bytes/elem elements from offset 0.
 * unwritten: an output (or intermediate) no TD writes, or one whose TDs write channels with a gap
 * between them (channel 0 and channel 2, none channel 1): described, with its whole shape, but
 * no computed result (app/tensorio refuses --out and ref of it). A flat tensor that some TD
 * writes is taken as written.
 */
#ifndef ANEFW_TENSORS_H
#define ANEFW_TENSORS_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#include "fw/ctrl/ctrl.h"
#include "fw/common/outf.h"
#include "fw/loader/loader.h"

#define TNS_MAX 32
#define TNS_NAME_MAX 64

enum tns_role { TNS_INPUT = 1, TNS_OUTPUT = 2, TNS_INTERMEDIATE = 3 };
enum tns_unwritten { TNS_UNWRITTEN_ALL = 1, TNS_UNWRITTEN_GAP = 2 };
const char *tns_role_name(unsigned role); /* "input", "output", "intermediate" */

/* Element formats (Common.ChCfg InFmt / OutFmt values) */
const char *tns_dtype_name(unsigned fmt); /* "int8", "uint8", "float16" */

/* The axes a tensor may have, in the layout's order (dim[] of struct tns_tensor). */
enum tns_axis_id { TNS_G, TNS_C, TNS_D, TNS_H, TNS_W, TNS_AXES };

struct tns_tensor {
	char name[TNS_NAME_MAX]; /* printable ASCII; a window name that does not fit is "barN" */
	int bar;                 /* BAR index, -1 for a window without one */
	uint8_t role;            /* enum tns_role */
	uint8_t fmt;             /* H13_FMT_* */
	uint8_t elem;            /* bytes per element */
	uint8_t ndim;            /* 3 to 5: the axes shape lists */
	uint8_t flat;            /* 1: no register geometry; shape [1, 1, bytes / elem] */
	uint8_t ilv;             /* channel interleave (fw/td td_tile_interleave): 1 plain */
	uint8_t unwritten;       /* 0, or an output or intermediate some of whose elements no TD
				    writes (its bytes there the firmware's zeros, nothing computed):
				    TNS_UNWRITTEN_ALL no TD writes its BAR, TNS_UNWRITTEN_GAP the
				    channels its TDs write leave a gap */
	uint32_t shape[5];       /* [G,] C, [D,] H, W: the axes of dim that are listed */
	uint32_t dim[TNS_AXES];  /* every axis, G C D H W (TNS_G ..), 1 where shape lists none */
	uint64_t nelem;
	uint64_t bytes;          /* the buffer's size (its default grant) */
	uint64_t base, row, plane, depth, group; /* layout in bytes */
};

/* The axis (TNS_G .. TNS_W) that shape[k] gives, and its one-letter name ("G" .. "W"). */
unsigned tns_axis(const struct tns_tensor *t, unsigned k);
const char *tns_axis_name(unsigned axis);

enum tns_err {
	TNS_OK = 0,
	TNS_E_ARG,       /* null pointer */
	TNS_E_GRANTS,    /* the default grants could not be derived: see the ctrl_status */
	TNS_E_TOO_MANY,  /* more tensors than the caller's array */
	TNS_E__COUNT
};
/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *tns_err(enum tns_err e);
const char *tns_err_name(enum tns_err e);

/*
 * Describes p's tensors into t[0..max), in BAR order; *n their count. On TNS_E_GRANTS, *st (may
 * be NULL) holds the control path's error.
 */
enum tns_err tns_describe(const struct ldr_program *p, struct tns_tensor *t, unsigned max,
			  unsigned *n, struct ctrl_status *st);

/* The tensor a name addresses (its name, or "barN"), or -1. */
int tns_find(const struct tns_tensor *t, unsigned n, const char *name, size_t len);

/* Why the tensors cannot be derived (tns_describe returned e, with the control path's status st),
 * one line after lead: the control path's refusal whole (ctrl_status_print) when the default grants
 * cannot be derived, the error's name otherwise; inspect's line, run's and validate's, and
 * inspect --json's tensors_error_text. */
void tns_print_error(enum tns_err e, const struct ctrl_status *st, const char *lead,
		     outf_fn out, void *ctx);

/* The tensors as text lines ("tensors: N", then one line each: role, name, BAR, dtype, shape,
 * bytes, layout), or "tensors: cannot be derived: ERROR" (the control path's refusal whole,
 * ctrl_status_print, when the default grants cannot be derived); shared by `anefw-tool inspect`
 * and the firmware's program summary. */
void tns_print(const struct ldr_program *p, outf_fn out, void *ctx);

/* Byte offset of element (g, c, d, h, w) in the buffer; the caller keeps indices in dim[]. */
uint64_t tns_offset(const struct tns_tensor *t, uint32_t g, uint32_t c, uint32_t d, uint32_t h,
		    uint32_t w);

#endif
