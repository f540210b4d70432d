/*
 * The address policy: the buffers a host granted to one submission, and the checks every device
 * address a program uses must pass before any register is written.
 *
 * A grant binds a BAR index (0..31) to a device-virtual range [dva, dva + size) that the engine
 * reaches at [mapped, mapped + size), with an access (read, write or both). An address is
 * re-based as  runtime = mapped + (iova - dva)  only after the whole range [iova, iova + len)
 * is proven to lie inside one grant with the right access, inside the engine's address reach,
 * and outside every range the firmware keeps for itself. All arithmetic is overflow-checked.
 */
#ifndef ANEFW_POLICY_H
#define ANEFW_POLICY_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#define POL_MAX_BUFFERS 32
#define POL_MAX_FORBIDDEN 8
/* every range of every TD: LDR_MAX_TDS (512) x CTRL_MAX_RANGES (32; fw/ctrl) */
#define POL_MAX_ACCESSES 16384

#define POL_READ 1u
#define POL_WRITE 2u
#define POL_RW (POL_READ | POL_WRITE)
#define POL_WEIGHTS 4u /* with POL_READ in a check: the range is read as weights (read-only) */

/* grant flags */
#define POL_FLAG_IN_PLACE 1u /* the program declares this buffer is read and written in place */

enum pol_err {
	POL_OK = 0,
	POL_E_BAR_INDEX,      /* BAR index outside the table (>= 32) */
	POL_E_BAR_ABSENT,     /* nothing granted at that BAR index */
	POL_E_GRANT,          /* a grant with zero size, bad access bits, or a wrapping range */
	POL_E_GRANT_TWICE,    /* the same BAR index granted twice */
	POL_E_REACH,          /* a mapped range beyond the engine's address reach */
	POL_E_FORBIDDEN,      /* a mapped range overlapping memory the firmware keeps */
	POL_E_OUT_OF_BUFFER,  /* an access that leaves its granted buffer */
	POL_E_OVERFLOW,       /* size or address arithmetic that overflows */
	POL_E_ACCESS,         /* a write into a read-only buffer, or a read of a write-only one */
	POL_E_ALIAS,          /* an output overlapping an input not declared in place */
	POL_E_TOO_MANY,       /* more accesses in one submission than the policy tracks */
	POL_E_EMPTY,          /* a zero-length access or a zero dimension */
	POL_E_GRANT_TOO_LARGE, /* a grant larger than a submission may hold (max_grant) */
	POL_E_WEIGHTS_WRITTEN, /* a write into a buffer the program reads as weights */
	POL_E__COUNT
};

/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *pol_err(enum pol_err e);
const char *pol_err_name(enum pol_err e);

struct pol_buffer {
	uint64_t dva;
	uint64_t size;
	uint64_t mapped;
	unsigned access;
	unsigned flags;
};

struct pol_range {
	uint64_t base, size; /* runtime addresses */
	unsigned access;
	unsigned bar;
};

/* One access the rebasing checked, kept for the alias check: the range, as pol_range, and the
 * TD it was checked for (pol_table.td when it was recorded). */
struct pol_access {
	uint64_t base, size; /* runtime addresses */
	uint8_t access;      /* POL_READ, POL_WRITE, POL_WEIGHTS */
	uint8_t bar;         /* below POL_MAX_BUFFERS */
	int16_t td;          /* below LDR_MAX_TDS (512); -1 when not recorded for a TD */
};                           /* 24 bytes, as a pol_range: the table stays 384 KiB */

/* What the alias check refused: the offending write's BAR and TD. */
struct pol_alias {
	unsigned bar;
	int td;
};

struct pol_table {
	struct pol_buffer buf[POL_MAX_BUFFERS];
	uint32_t present;           /* bit i: BAR i granted */
	uint64_t reach;             /* addresses must be below this (2^32 on H13) */
	uint64_t max_grant;         /* largest grant (UINT64_MAX after pol_init) */
	struct pol_range forbidden[POL_MAX_FORBIDDEN];
	unsigned nforbidden;
	unsigned nacc;
	int td;                     /* the TD the next accesses are checked for; -1 (pol_init) none */
	/* last: pol_init clears the table up to it (384 KiB a submission saved); only acc[0 ..
	 * nacc) is read */
	struct pol_access acc[POL_MAX_ACCESSES]; /* accesses recorded for the alias check */
};

/* reach_bits: 32 on H13. */
void pol_init(struct pol_table *t, unsigned reach_bits);
/* Memory no grant may map (the firmware's own text, data, stacks). */
enum pol_err pol_forbid(struct pol_table *t, uint64_t base, uint64_t size);
enum pol_err pol_grant(struct pol_table *t, unsigned bar, uint64_t dva, uint64_t size,
		       uint64_t mapped, unsigned access, unsigned flags);

/*
 * Checks [iova, iova + len) against the grant at bar for the access, records it for the alias
 * check, and gives the runtime address.
 */
enum pol_err pol_rebase(struct pol_table *t, unsigned bar, uint64_t iova, uint64_t len,
			unsigned access, uint64_t *runtime);
/* The same with an offset from the start of the grant rather than a device address. */
enum pol_err pol_check_offset(struct pol_table *t, unsigned bar, uint64_t offset, uint64_t len,
			      unsigned access, uint64_t *runtime);

/* The same for an absolute engine address, which must lie inside the grant at bar. */
enum pol_err pol_check_runtime(struct pol_table *t, unsigned bar, uint64_t runtime, uint64_t len,
			       unsigned access, uint64_t *out);

/*
 * Extent in bytes of a strided tensor: elem + sum over axes of (dim[i] - 1) * stride[i]
 * (the last byte touched, plus one). Every dimension must be nonzero.
 */
enum pol_err pol_strided_extent(const uint64_t *dims, const uint64_t *strides, unsigned naxes,
				uint64_t elem, uint64_t *extent);

/* After all accesses of a submission are recorded: no write may touch a buffer read as weights
 * (output-overlaps-weights), and outputs must not overlap inputs unless granted in place. On a
 * refusal *why (may be NULL) names the offending write: its BAR and the TD it was recorded for
 * (t->td then, -1 when none). */
enum pol_err pol_check_aliasing(const struct pol_table *t, struct pol_alias *why);

/* Overflow-checked helpers */
static inline int pol_add_ovf(uint64_t a, uint64_t b, uint64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}

static inline int pol_mul_ovf(uint64_t a, uint64_t b, uint64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

#endif
