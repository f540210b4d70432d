/* The tensors of a program (see tensors.h). */
#include "fw/tensors/tensors.h"
#include "fw/loader/anec.h"
#include "fw/policy/policy.h"
#include "fw/td/td.h"

#include <string.h>

static const struct err_desc errs[TNS_E__COUNT] = {
	[TNS_OK] = {"ok", "no error"},
	[TNS_E_ARG] = {"tensors-bad-argument", "null pointer"},
	[TNS_E_GRANTS] = {"tensors-without-grants",
	 "the default grants could not be derived: see the ctrl_status"},
	[TNS_E_TOO_MANY] = {"too-many-tensors", "more tensors than the caller's array"},
};

const struct err_desc *tns_err(enum tns_err e)
{
	static const struct err_desc unknown = {"unknown-tensors-error",
						  "a value this module does not define"};
	return err_lookup(errs, TNS_E__COUNT, (unsigned)e, &unknown);
}

const char *tns_err_name(enum tns_err e)
{
	return tns_err(e)->name;
}

const char *tns_role_name(unsigned role)
{
	return role == TNS_INPUT ? "input" : role == TNS_OUTPUT ? "output"
					   : role == TNS_INTERMEDIATE ? "intermediate" : "?";
}

const char *tns_dtype_name(unsigned fmt)
{
	return fmt == H13_FMT_INT8 ? "int8" : fmt == H13_FMT_UINT8 ? "uint8"
					    : fmt == H13_FMT_FP16 ? "float16" : "?";
}

/* One TD's use of a tile BAR, with the geometry its registers give. */
struct access {
	uint8_t bar, write, fmt, ilv;
	uint32_t w, h, c, g, d; /* d: the depth (fw/td td_depth); 0 for a kernel read */
	uint64_t base, row, plane, depth, group;
};

struct tile_regs {
	uint32_t base, row, plane, depth, group;
};
static const struct tile_regs src_regs[2] = {
	{H13_SRC_BASEADDR, H13_SRC_ROWSTRIDE, H13_SRC_PLANESTRIDE, H13_SRC_DEPTHSTRIDE,
	 H13_SRC_GROUPSTRIDE},
	{H13_SRC2_BASEADDR, H13_SRC2_ROWSTRIDE, H13_SRC2_PLANESTRIDE, H13_SRC2_DEPTHSTRIDE,
	 H13_SRC2_GROUPSTRIDE},
};
static const struct tile_regs dst_regs = {H13_DST_BASEADDR, H13_DST_ROWSTRIDE, H13_DST_PLANESTRIDE,
					  H13_DST_DEPTHSTRIDE, H13_DST_GROUPSTRIDE};

static void geometry(const struct td_regs *r, const struct td_range *x, struct access *a)
{
	int out = x->kind == TD_R_DST;
	const struct tile_regs *tr = out ? &dst_regs : &src_regs[x->kind == TD_R_SRC1];
	uint32_t dim = r->get(r->ctx, out ? H13_COMMON_OUTDIM : H13_COMMON_INDIM);
	uint32_t chcfg = r->get(r->ctx, H13_COMMON_CHCFG);
	a->bar = x->bar;
	a->write = out;
	a->fmt = (uint8_t)(out ? H13_GET(chcfg, H13_CHCFG_OUTFMT) : H13_GET(chcfg, H13_CHCFG_INFMT));
	a->w = H13_GET(dim, H13_INDIM_WIN);
	a->h = H13_GET(dim, H13_INDIM_HIN);
	a->c = H13_GET(r->get(r->ctx, H13_COMMON_CIN), H13_CIN);
	if (out) /* as the tile DMA writes it (fw/td) */
		td_dst_dims(r, &a->w, &a->h, &a->c);
	a->g = H13_GET(r->get(r->ctx, H13_COMMON_GROUPCONVCFG), H13_GROUPCONV_NUMGROUPS);
	a->d = td_depth(r, out);
	/* a source the engine reads at index 0 along its broadcast axes (fw/td td_src0_bcast, the
	 * range's bcast): the tensor is what it reads, one along each (Apple's tile: [8,1,375]) */
	uint64_t w = a->w, h = a->h, d = a->d, c = a->c;
	td_bcast_dims(x->bcast, &w, &h, &d, &c);
	a->w = (uint32_t)w, a->h = (uint32_t)h, a->d = (uint32_t)d, a->c = (uint32_t)c;
	a->ilv = (uint8_t)td_tile_interleave(r->get(r->ctx, out ? H13_DST_FMT : H13_SRC_FMT));
	a->base = x->addr;
	a->row = H13_ADDR_BYTES(r->get(r->ctx, tr->row));
	a->plane = H13_ADDR_BYTES(r->get(r->ctx, tr->plane));
	a->depth = a->d > 1 ? H13_ADDR_BYTES(r->get(r->ctx, tr->depth)) : 0;
	a->group = H13_ADDR_BYTES(r->get(r->ctx, tr->group));
}

/* A raw stream's kernels read from a runtime tensor: rows of kernels at the coefficient bases,
 * in the kernel's element format, with no tile geometry (d 0: the tensor is flat). */
static void kernel_read(const struct td_regs *r, const struct td_range *x, struct access *a)
{
	unsigned kf = H13_GET(r->get(r->ctx, H13_NE_KERNELCFG), H13_KERNELCFG_KERNELFMT);
	memset(a, 0, sizeof *a);
	a->bar = x->bar;
	a->fmt = (uint8_t)(kf == H13_KERNELFMT_FP16   ? H13_FMT_FP16
			   : kf == H13_KERNELFMT_INT8 ? H13_FMT_INT8
						      : H13_FMT_UINT8);
	a->base = x->addr;
}

/* up to three tile accesses a TD, and one kernel read a BAR (the first: a flat tensor) */
#define TNS_MAX_ACCESSES (LDR_MAX_TDS * 3 + LDR_NBARS)

struct scan {
	struct ldr_image im;
	unsigned na;
	struct access a[TNS_MAX_ACCESSES];
	struct subq_grant g[SUBQ_MAX_GRANTS];
};

static int kernel_seen(const struct scan *s, unsigned bar)
{
	for (unsigned i = 0; i < s->na; i++)
		if (s->a[i].bar == bar && !s->a[i].d)
			return 1;
	return 0;
}

static int same_geometry(const struct access *a, const struct access *b)
{
	return a->fmt == b->fmt && a->ilv == b->ilv && a->w == b->w && a->h == b->h && a->g == b->g &&
	       a->d == b->d && a->row == b->row && a->plane == b->plane && a->depth == b->depth &&
	       a->group == b->group;
}

/* An access's walk over its bytes: (count, stride) per axis, G C D H W, outermost first, with
 * the axes of one element dropped and an axis merged into the next inner one when it continues
 * it (its stride the inner one's count times its stride). */
struct walk {
	unsigned n;
	uint64_t cnt[TNS_AXES], stride[TNS_AXES];
};

static void walk_of(const struct access *a, struct walk *k)
{
	const uint64_t cnt[TNS_AXES] = {a->g, a->c, a->d, a->h, a->w};
	const uint64_t str[TNS_AXES] = {a->group, a->plane, a->depth, a->row, td_fmt_bytes(a->fmt)};
	k->n = 0;
	for (unsigned i = TNS_AXES; i-- > 0;) {
		if (cnt[i] == 1)
			continue;
		uint64_t span;
		if (k->n && !pol_mul_ovf(k->cnt[k->n - 1], k->stride[k->n - 1], &span) &&
		    span == str[i] && !pol_mul_ovf(k->cnt[k->n - 1], cnt[i], &span)) {
			k->cnt[k->n - 1] = span; /* this axis continues the inner one */
			continue;
		}
		k->cnt[k->n] = cnt[i];
		k->stride[k->n++] = str[i];
	}
}

/* Whether two tile accesses with different registers read or write the same bytes in the same
 * order: softmax.bin's TD 0 reads its input as 2560 groups of 1 x 1 x 1600, TD 1 as
 * 1 x 2560 x 1600, both rows of 1600 elements 3200 bytes apart. Plain layouts only (no channel
 * interleave), from the same base. */
static int same_walk(const struct access *a, const struct access *b)
{
	if (a->fmt != b->fmt || a->ilv != 1 || b->ilv != 1 || a->base != b->base || !a->d || !b->d ||
	    !td_fmt_bytes(a->fmt))
		return 0;
	struct walk x, y;
	walk_of(a, &x);
	walk_of(b, &y);
	if (x.n != y.n)
		return 0;
	for (unsigned i = 0; i < x.n; i++)
		if (x.cnt[i] != y.cnt[i] || x.stride[i] != y.stride[i])
			return 0;
	return 1;
}

/* Axes beyond C, H and W an access lists: the fewer, the plainer its view of a tensor. */
static unsigned extra_axes(const struct access *a)
{
	return (a->g > 1) + (a->d > 1);
}

/* Whether shape[] lists axis a: G and D when above 1, C, H and W always. */
static int listed(const struct tns_tensor *t, unsigned a)
{
	return (a != TNS_G && a != TNS_D) || t->dim[a] > 1;
}

/* shape[] and ndim from dim[] */
static void list_axes(struct tns_tensor *t)
{
	unsigned k = 0;
	for (unsigned a = 0; a < TNS_AXES; a++)
		if (listed(t, a))
			t->shape[k++] = t->dim[a];
	t->ndim = (uint8_t)k;
	for (; k < sizeof t->shape / sizeof t->shape[0]; k++)
		t->shape[k] = 0;
}

unsigned tns_axis(const struct tns_tensor *t, unsigned k)
{
	unsigned n = 0;
	for (unsigned a = 0; a < TNS_AXES; a++)
		if (listed(t, a)) {
			if (n == k)
				return a;
			n++;
		}
	return TNS_W;
}

const char *tns_axis_name(unsigned axis)
{
	static const char *const names[TNS_AXES] = {"G", "C", "D", "H", "W"};
	return axis < TNS_AXES ? names[axis] : "?";
}

static void set_flat(struct tns_tensor *t, unsigned fmt)
{
	t->flat = 1;
	t->fmt = (uint8_t)(td_fmt_bytes(fmt) ? fmt : H13_FMT_UINT8);
	t->elem = (uint8_t)td_fmt_bytes(t->fmt);
	uint64_t ne = t->bytes / t->elem;
	for (unsigned a = 0; a < TNS_AXES; a++)
		t->dim[a] = 1;
	t->dim[TNS_W] = ne > UINT32_MAX ? UINT32_MAX : (uint32_t)ne;
	list_axes(t);
	t->nelem = t->dim[TNS_W];
	t->ilv = 1;
	t->base = t->row = t->plane = t->depth = t->group = 0;
}

/* Whether access a is one of those layout() takes with ref (its BAR, direction and depth). */
static int same_view(const struct tns_tensor *t, const struct access *a, const struct access *ref)
{
	return a->bar == (unsigned)t->bar && a->write == ref->write &&
	       (ref->d == 1 ? a->d == 1 : a->d != 0);
}

/* Whether the channels [first, first + c) of the accesses layout() took, first their plane from
 * minbase, cover [0, cmax) with no gap: the lowest uncovered channel advanced through every
 * access that reaches it, until none does. */
static int channels_covered(const struct tns_tensor *t, const struct scan *s,
			    const struct access *ref, uint64_t minbase, uint64_t cmax)
{
	uint64_t lo = 0;
	for (;;) {
		int moved = 0;
		for (unsigned i = 0; i < s->na && lo < cmax; i++) {
			const struct access *a = &s->a[i];
			if (!same_view(t, a, ref))
				continue;
			/* layout() checked every base whole planes from minbase, and first + c */
			uint64_t first = ref->plane ? (a->base - minbase) / ref->plane : 0;
			if (first <= lo && first + a->c > lo) {
				lo = first + a->c;
				moved = 1;
			}
		}
		if (lo >= cmax)
			return 1;
		if (!moved)
			return 0;
	}
}

/* The logical layout of tensor t from the tile accesses in its direction (writes for outputs and
 * intermediates, reads for inputs; any, when there are none of those). Accesses at depth 1 come
 * first: an access with a depth is another view of the same bytes when there are those (Apple's
 * layer_norm over C, H and W reads its [64, 8, 8] input as 1 x 8 x 64 x 8, and as [64, 8, 8] in
 * its last TD). Without them, the accesses at one depth D give the layout, D an axis of its own
 * (a rank-5 tensor, G x C x D x H x W, as the tile DMA walks it); a kernel read alone leaves the
 * tensor flat. */
static void layout(struct tns_tensor *t, const struct scan *s)
{
	const struct access *ref = NULL;
	int want_write = t->role != TNS_INPUT;
	unsigned kernel_fmt = H13_FMT_UINT8;
	for (int deep = 0; deep < 2 && !ref; deep++)
		for (int pass = 0; pass < 2 && !ref; pass++)
			for (unsigned i = 0; i < s->na && !ref; i++) {
				const struct access *a = &s->a[i];
				if (a->bar != (unsigned)t->bar || (!pass && a->write != want_write))
					continue;
				if (!a->d)
					kernel_fmt = a->fmt;
				else if (deep ? a->d > 1 : a->d == 1)
					ref = a;
			}
	if (!ref) {
		set_flat(t, kernel_fmt);
		return;
	}
	/* of the views that walk the same bytes in the same order, the one with the fewest axes:
	 * softmax.bin's input is [1, 2560, 1600] as TD 1 reads it, not 2560 groups (it was flat,
	 * [1, 1, 4096000], until 2026-12-07, and any split of 4096000 was taken as its shape) */
	for (unsigned i = 0; i < s->na; i++) {
		const struct access *a = &s->a[i];
		if (same_view(t, a, ref) && extra_axes(a) < extra_axes(ref) && same_walk(a, ref))
			ref = a;
	}
	int dir = ref->write;
	uint64_t minbase = ref->base, cmax = 0;
	unsigned count = 0;
	for (unsigned i = 0; i < s->na; i++) {
		const struct access *a = &s->a[i];
		if (a->bar != (unsigned)t->bar || a->write != dir || (ref->d == 1 ? a->d != 1 : !a->d))
			continue;
		if (!same_geometry(a, ref) && !same_walk(a, ref)) {
			set_flat(t, ref->fmt);
			return;
		}
		if (a->base < minbase)
			minbase = a->base;
		count++;
	}
	/* several accesses: whole planes apart (a concatenation along channels); with groups (a
	 * batch), each group's channels still short of the next group's */
	int spans = 0;
	for (unsigned i = 0; i < s->na; i++) {
		const struct access *a = &s->a[i];
		if (a->bar != (unsigned)t->bar || a->write != dir || (ref->d == 1 ? a->d != 1 : !a->d))
			continue;
		uint64_t d = a->base - minbase, first = 0, end;
		/* a view walking ref's bytes (same_walk) covers ref's channels */
		uint32_t c = same_geometry(a, ref) ? a->c : ref->c;
		if (d) {
			if (count < 2 || ref->ilv != 1 || !ref->plane || d % ref->plane) {
				set_flat(t, ref->fmt);
				return;
			}
			first = d / ref->plane;
			spans = 1;
		}
		if (pol_add_ovf(first, c, &end)) {
			set_flat(t, ref->fmt);
			return;
		}
		if (end > cmax)
			cmax = end;
	}
	uint64_t cbytes;
	if (spans && ref->g > 1 &&
	    (pol_mul_ovf(cmax, ref->plane, &cbytes) || cbytes > ref->group)) {
		set_flat(t, ref->fmt);
		return;
	}
	/* inside the buffer, and no more elements than the buffer has room for: a layout whose
	 * strides make elements share bytes (a stride of 0 over a broadcast axis, or a hostile
	 * program's 2^31 depths 0 bytes apart) is no tensor of its own, and run would otherwise walk
	 * every one of those elements */
	unsigned elem = td_fmt_bytes(ref->fmt);
	uint64_t ext, last, ne, nb;
	if (!elem || cmax > UINT32_MAX ||
	    td_tile_extent(ref->w, ref->h, ref->d, cmax, ref->g, elem, ref->ilv, ref->row, ref->plane,
			   ref->depth, ref->group, &ext) != TD_OK ||
	    pol_add_ovf(minbase, ext, &last) || last > t->bytes ||
	    pol_mul_ovf((uint64_t)ref->w * ref->h, cmax, &ne) || pol_mul_ovf(ne, ref->g, &ne) ||
	    pol_mul_ovf(ne, ref->d, &ne) || pol_mul_ovf(ne, elem, &nb) || nb > t->bytes) {
		set_flat(t, ref->fmt);
		return;
	}
	t->flat = 0;
	t->ilv = ref->ilv;
	t->fmt = ref->fmt;
	t->elem = (uint8_t)elem;
	t->base = minbase;
	t->row = ref->row;
	t->plane = ref->plane;
	t->depth = ref->depth;
	t->group = ref->group;
	t->nelem = ne;
	t->dim[TNS_G] = ref->g;
	t->dim[TNS_C] = (uint32_t)cmax;
	t->dim[TNS_D] = ref->d;
	t->dim[TNS_H] = ref->h;
	t->dim[TNS_W] = ref->w;
	list_axes(t);
	if (ref->write && !channels_covered(t, s, ref, minbase, cmax))
		t->unwritten = TNS_UNWRITTEN_GAP; /* a channel between written ones no TD writes */
}

static void bar_name(char *out, unsigned bar)
{
	char d[4];
	unsigned n = 0;
	do {
		d[n++] = (char)('0' + bar % 10);
		bar /= 10;
	} while (bar && n < sizeof d);
	memcpy(out, "bar", 3);
	for (unsigned i = 0; i < n; i++)
		out[3 + i] = d[n - 1 - i];
	out[3 + n] = 0;
}

static int printable_name(const char *s, size_t n)
{
	if (!s || !n || n >= TNS_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	return 1;
}

enum tns_err tns_describe(const struct ldr_program *p, struct tns_tensor *t, unsigned max,
			  unsigned *n, struct ctrl_status *st)
{
	static struct scan s;
	struct ctrl_status cst;
	if (!p || !n || (max && !t))
		return TNS_E_ARG;
	*n = 0;
	unsigned ng = 0;
	enum ctrl_err ce = ctrl_default_grants(p, s.g, SUBQ_MAX_GRANTS, &ng, &cst);
	if (st)
		*st = cst;
	if (ce != CTRL_OK)
		return TNS_E_GRANTS;
	/* every TD's tile accesses, on the image ctrl_default_grants sized them on */
	memset(&s.im, 0, sizeof s.im);
	s.im.p = p;
	s.na = 0;
	for (unsigned i = 0; i < p->ntds; i++) {
		struct td_range r[TD_MAX_RANGES];
		unsigned nr = 0;
		ldr_image_apply_td(&s.im, i);
		const struct td_regs regs = {ldr_image_reg, &s.im};
		if (td_ranges(&p->tds[i].h, &regs, NULL, r, TD_MAX_RANGES, &nr, NULL, NULL) != TD_OK)
			return TNS_E_GRANTS; /* ctrl_default_grants derived the same ranges */
		for (unsigned k = 0; k < nr && s.na < TNS_MAX_ACCESSES; k++)
			if (r[k].kind == TD_R_SRC0 || r[k].kind == TD_R_SRC1 || r[k].kind == TD_R_DST)
				geometry(&regs, &r[k], &s.a[s.na++]);
			else if (ldr_runtime_kernel_read(p, &r[k]) && !kernel_seen(&s, r[k].bar))
				kernel_read(&regs, &r[k], &s.a[s.na++]);
	}
	for (unsigned bar = 0; bar < LDR_NBARS; bar++) {
		const struct subq_grant *g = NULL;
		for (unsigned i = 0; i < ng; i++)
			if (s.g[i].bar == bar)
				g = &s.g[i];
		if (!g)
			continue;
		const struct ldr_window *win = NULL;
		for (unsigned i = 0; !p->raw && i < p->nwindows; i++)
			if (p->windows[i].bar == (int)bar)
				win = &p->windows[i];
		int used = 0;
		for (unsigned i = 0; i < s.na; i++)
			used |= s.a[i].bar == bar;
		if (!win && (!used || ldr_weights_bar(p, bar)))
			continue; /* the weights, the TD area */
		if (*n >= max)
			return TNS_E_TOO_MANY;
		struct tns_tensor *x = &t[(*n)++];
		memset(x, 0, sizeof *x);
		x->bar = (int)bar;
		x->bytes = g->size;
		if (win)
			x->role = (uint8_t)(win->initprot == LDR_WIN_INPUT    ? TNS_INPUT
					    : win->initprot == LDR_WIN_OUTPUT ? TNS_OUTPUT
									      : TNS_INTERMEDIATE);
		else
			x->role = (uint8_t)(g->access == POL_READ    ? TNS_INPUT
					    : g->access == POL_WRITE ? TNS_OUTPUT
								     : TNS_INTERMEDIATE);
		if (win && printable_name(win->name, win->name_len)) {
			memcpy(x->name, win->name, win->name_len);
			x->name[win->name_len] = 0;
		} else {
			bar_name(x->name, bar);
		}
		if (p->anec_hdr) { /* an anec's tile table names them: dst0, src1, ... */
			struct anec a = {0};
			a.dst_count = p->anec_dst_count;
			a.src_count = p->anec_src_count;
			a.tiles[bar % ANEC_TILES] = 1;
			char nm[TNS_NAME_MAX];
			anec_bar_name(&a, bar, nm, sizeof nm);
			if (nm[0] && bar < ANEC_TILES)
				memcpy(x->name, nm, strlen(nm) + 1);
		}
		layout(x, &s);
		if (x->role != TNS_INPUT) { /* an output no TD writes at all */
			int written = 0;
			for (unsigned i = 0; i < s.na; i++)
				written |= s.a[i].bar == bar && s.a[i].write;
			if (!written)
				x->unwritten = TNS_UNWRITTEN_ALL;
		}
	}
	return TNS_OK;
}

int tns_find(const struct tns_tensor *t, unsigned n, const char *name, size_t len)
{
	if (!t || !name)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (strlen(t[i].name) == len && !memcmp(t[i].name, name, len))
			return (int)i;
	/* barN: decimal, no leading zeros */
	if (len < 4 || len > 5 || memcmp(name, "bar", 3) || (len == 5 && name[3] == '0'))
		return -1;
	unsigned bar = 0;
	for (size_t i = 3; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		bar = bar * 10 + (unsigned)(name[i] - '0');
	}
	for (unsigned i = 0; i < n; i++)
		if (t[i].bar == (int)bar)
			return (int)i;
	return -1;
}

uint64_t tns_offset(const struct tns_tensor *t, uint32_t g, uint32_t c, uint32_t d, uint32_t h,
		    uint32_t w)
{
	return t->base + (uint64_t)d * t->depth +
	       td_tile_off(g, c, h, w, t->ilv ? t->ilv : 1u, t->elem, t->row, t->plane, t->group);
}

void tns_print_error(enum tns_err e, const struct ctrl_status *st, const char *lead,
		     outf_fn out, void *ctx)
{
	/* with the control path's refusal whole, as run and validate say it (the name alone
	 * until 2026-12-07) */
	if (e == TNS_E_GRANTS)
		ctrl_status_print(st, lead, out, ctx);
	else
		outf(out, ctx, "%s%s\n", lead, tns_err_name(e));
}

void tns_print(const struct ldr_program *p, outf_fn out, void *ctx)
{
	static struct tns_tensor t[TNS_MAX];
	unsigned n;
	struct ctrl_status st;
	enum tns_err e = tns_describe(p, t, TNS_MAX, &n, &st);
	if (e != TNS_OK) {
		tns_print_error(e, &st, "tensors: cannot be derived: ", out, ctx);
		return;
	}
	outf(out, ctx, "tensors: %u\n", n);
	for (unsigned i = 0; i < n; i++) {
		const struct tns_tensor *x = &t[i];
		char shape[64];
		unsigned k = 0;
		for (unsigned d = 0; d < x->ndim && k < sizeof shape - 16; d++) {
			char num[12];
			unsigned nd = 0;
			uint32_t v = x->shape[d];
			do {
				num[nd++] = (char)('0' + v % 10);
				v /= 10;
			} while (v);
			if (d) {
				shape[k++] = ',';
				shape[k++] = ' ';
			}
			while (nd)
				shape[k++] = num[--nd];
		}
		shape[k] = 0;
		outf(out, ctx, "  %-12s %-20s bar %-2d %-7s [%s] 0x%lx bytes", tns_role_name(x->role),
		     x->name, x->bar, tns_dtype_name(x->fmt), shape, (unsigned long)x->bytes);
		if (x->flat)
			outf(out, ctx, " (flat: no single geometry)");
		else if (x->dim[TNS_D] > 1)
			outf(out, ctx, " (base 0x%lx, row 0x%lx, plane 0x%lx, depth 0x%lx%s)",
			     (unsigned long)x->base, (unsigned long)x->row, (unsigned long)x->plane,
			     (unsigned long)x->depth, x->dim[TNS_G] > 1 ? ", grouped" : "");
		else
			outf(out, ctx, " (base 0x%lx, row 0x%lx, plane 0x%lx%s)",
			     (unsigned long)x->base, (unsigned long)x->row, (unsigned long)x->plane,
			     x->dim[TNS_G] > 1 ? ", grouped" : "");
		if (x->unwritten == TNS_UNWRITTEN_GAP)
			outf(out, ctx, " (unwritten: a channel between written ones no TD writes)");
		else if (x->unwritten)
			outf(out, ctx, " (unwritten: no TD writes it)");
		outf(out, ctx, "\n");
	}
}
