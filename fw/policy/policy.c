#include "fw/policy/policy.h"

#include <string.h>

static const struct err_desc errs[POL_E__COUNT] = {
	[POL_OK] = {"ok", "no error"},
	[POL_E_BAR_INDEX] = {"bar-index-out-of-range", "BAR index outside the table (>= 32)"},
	[POL_E_BAR_ABSENT] = {"bar-not-granted", "nothing granted at that BAR index"},
	[POL_E_GRANT] = {"bad-grant",
	 "a grant with zero size, bad access bits, or a wrapping range"},
	[POL_E_GRANT_TWICE] = {"bar-granted-twice", "the same BAR index granted twice"},
	[POL_E_REACH] = {"address-beyond-engine-reach",
	 "a mapped range beyond the engine's address reach"},
	[POL_E_FORBIDDEN] = {"address-in-firmware-memory",
	 "a mapped range overlapping memory the firmware keeps"},
	[POL_E_OUT_OF_BUFFER] = {"range-outside-granted-buffer",
	 "an access that leaves its granted buffer"},
	[POL_E_OVERFLOW] = {"address-arithmetic-overflow",
	 "size or address arithmetic that overflows"},
	[POL_E_ACCESS] = {"access-not-granted",
	 "a write into a read-only buffer, or a read of a write-only one"},
	[POL_E_ALIAS] = {"output-overlaps-input",
	 "an output overlapping an input not declared in place"},
	[POL_E_TOO_MANY] = {"too-many-accesses",
	 "more accesses in one submission than the policy tracks"},
	[POL_E_EMPTY] = {"empty-range", "a zero-length access or a zero dimension"},
	[POL_E_GRANT_TOO_LARGE] = {"grant-too-large",
	 "a grant larger than a submission may hold (max_grant)"},
	[POL_E_WEIGHTS_WRITTEN] = {"output-overlaps-weights",
	 "a write into a buffer the program reads as weights"},
};

const struct err_desc *pol_err(enum pol_err e)
{
	static const struct err_desc unknown = {"unknown-policy-error",
						  "a value this module does not define"};
	return err_lookup(errs, POL_E__COUNT, (unsigned)e, &unknown);
}

const char *pol_err_name(enum pol_err e)
{
	return pol_err(e)->name;
}

void pol_init(struct pol_table *t, unsigned reach_bits)
{
	memset(t, 0, offsetof(struct pol_table, acc));
	t->reach = reach_bits >= 64 ? UINT64_MAX : (1ull << reach_bits);
	t->max_grant = UINT64_MAX;
	t->td = -1;
}

static int overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	/* both ranges are known not to wrap */
	return a < b + bn && b < a + an;
}

enum pol_err pol_forbid(struct pol_table *t, uint64_t base, uint64_t size)
{
	uint64_t end;
	if (!size || pol_add_ovf(base, size, &end))
		return POL_E_GRANT;
	if (t->nforbidden >= POL_MAX_FORBIDDEN)
		return POL_E_TOO_MANY;
	t->forbidden[t->nforbidden++] = (struct pol_range){base, size, 0, 0};
	return POL_OK;
}

enum pol_err pol_grant(struct pol_table *t, unsigned bar, uint64_t dva, uint64_t size,
		       uint64_t mapped, unsigned access, unsigned flags)
{
	uint64_t end;
	if (bar >= POL_MAX_BUFFERS)
		return POL_E_BAR_INDEX;
	if (t->present & (1u << bar))
		return POL_E_GRANT_TWICE;
	if (!size || !access || (access & ~POL_RW) || pol_add_ovf(dva, size, &end) ||
	    pol_add_ovf(mapped, size, &end))
		return POL_E_GRANT;
	if (size > t->max_grant)
		return POL_E_GRANT_TOO_LARGE;
	if (end > t->reach)
		return POL_E_REACH;
	for (unsigned i = 0; i < t->nforbidden; i++)
		if (overlaps(mapped, size, t->forbidden[i].base, t->forbidden[i].size))
			return POL_E_FORBIDDEN;
	t->buf[bar] = (struct pol_buffer){dva, size, mapped, access, flags};
	t->present |= 1u << bar;
	return POL_OK;
}

static enum pol_err check(struct pol_table *t, unsigned bar, uint64_t offset, uint64_t len,
			  unsigned access, uint64_t *runtime)
{
	uint64_t end;
	if (bar >= POL_MAX_BUFFERS)
		return POL_E_BAR_INDEX;
	if (!(t->present & (1u << bar)))
		return POL_E_BAR_ABSENT;
	if (!len)
		return POL_E_EMPTY;
	const struct pol_buffer *b = &t->buf[bar];
	if (pol_add_ovf(offset, len, &end))
		return POL_E_OVERFLOW;
	if (end > b->size)
		return POL_E_OUT_OF_BUFFER;
	unsigned rw = access & POL_RW;
	if ((rw & b->access) != rw || !rw)
		return POL_E_ACCESS;
	if (t->nacc >= POL_MAX_ACCESSES)
		return POL_E_TOO_MANY;
	uint64_t rt = b->mapped + offset; /* cannot overflow: mapped + size was checked */
	/* access holds POL_READ/WRITE/WEIGHTS, bar is below POL_MAX_BUFFERS (check_from), td a TD
	 * index or -1 */
	t->acc[t->nacc++] = (struct pol_access){rt, len, (uint8_t)access, (uint8_t)bar, (int16_t)t->td};
	*runtime = rt;
	return POL_OK;
}

/* [addr, addr + len) where addr counts in the grant's device-virtual range (by_mapped 0) or its
 * engine range (by_mapped 1). */
static enum pol_err check_from(struct pol_table *t, unsigned bar, uint64_t addr, int by_mapped,
			       uint64_t len, unsigned access, uint64_t *runtime)
{
	if (bar >= POL_MAX_BUFFERS)
		return POL_E_BAR_INDEX;
	if (!(t->present & (1u << bar)))
		return POL_E_BAR_ABSENT;
	uint64_t base = by_mapped ? t->buf[bar].mapped : t->buf[bar].dva;
	if (addr < base)
		return POL_E_OUT_OF_BUFFER;
	return check(t, bar, addr - base, len, access, runtime);
}

enum pol_err pol_rebase(struct pol_table *t, unsigned bar, uint64_t iova, uint64_t len,
			unsigned access, uint64_t *runtime)
{
	return check_from(t, bar, iova, 0, len, access, runtime);
}

enum pol_err pol_check_offset(struct pol_table *t, unsigned bar, uint64_t offset, uint64_t len,
			      unsigned access, uint64_t *runtime)
{
	return check(t, bar, offset, len, access, runtime);
}

enum pol_err pol_check_runtime(struct pol_table *t, unsigned bar, uint64_t runtime, uint64_t len,
			       unsigned access, uint64_t *out)
{
	return check_from(t, bar, runtime, 1, len, access, out);
}

enum pol_err pol_strided_extent(const uint64_t *dims, const uint64_t *strides, unsigned naxes,
				uint64_t elem, uint64_t *extent)
{
	uint64_t total = elem;
	if (!elem)
		return POL_E_EMPTY;
	for (unsigned i = 0; i < naxes; i++) {
		uint64_t span;
		if (!dims[i])
			return POL_E_EMPTY;
		if (pol_mul_ovf(dims[i] - 1, strides[i], &span) || pol_add_ovf(total, span, &total))
			return POL_E_OVERFLOW;
	}
	*extent = total;
	return POL_OK;
}

static enum pol_err refuse_alias(enum pol_err e, const struct pol_access *w, struct pol_alias *why)
{
	if (why)
		*why = (struct pol_alias){w->bar, w->td};
	return e;
}

enum pol_err pol_check_aliasing(const struct pol_table *t, struct pol_alias *why)
{
	/* weights are read-only: no write may land in a buffer read as weights, in place or not */
	for (unsigned i = 0; i < t->nacc; i++) {
		const struct pol_access *w = &t->acc[i];
		if (!(w->access & POL_WRITE))
			continue;
		for (unsigned j = 0; j < t->nacc; j++) {
			const struct pol_access *r = &t->acc[j];
			if ((r->access & POL_WEIGHTS) &&
			    (r->bar == w->bar || overlaps(w->base, w->size, r->base, r->size)))
				return refuse_alias(POL_E_WEIGHTS_WRITTEN, w, why);
		}
	}
	for (unsigned i = 0; i < t->nacc; i++) {
		const struct pol_access *w = &t->acc[i];
		if (!(w->access & POL_WRITE))
			continue;
		for (unsigned j = 0; j < t->nacc; j++) {
			const struct pol_access *r = &t->acc[j];
			if (i == j || !(r->access & POL_READ))
				continue;
			if (!overlaps(w->base, w->size, r->base, r->size))
				continue;
			/* the same buffer declared in place may be read and written */
			if (w->bar == r->bar && (t->buf[w->bar].flags & POL_FLAG_IN_PLACE))
				continue;
			return refuse_alias(POL_E_ALIAS, w, why);
		}
	}
	return POL_OK;
}
