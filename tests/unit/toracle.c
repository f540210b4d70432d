/* The numpy oracles' files and the model tests' checks (see toracle.h). */
#include "tests/unit/toracle.h"
#include "fw/common/le.h"
#include "fw/policy/policy.h"
#include "tests/harness/harness.h"

#include <stdlib.h>
#include <string.h>

int orc_load(const char *rel, struct orc *o)
{
	memset(o, 0, sizeof *o);
	if (test_read_file(test_data_path(rel), &o->buf, &o->len))
		return -1;
	if (o->len < 12 || memcmp(o->buf, "ANEMORC1", 8))
		return -1;
	o->nt = le_rd32(o->buf + 8);
	if (o->nt > ORC_MAX_TENSORS)
		return -1;
	size_t p = 12;
	for (unsigned i = 0; i < o->nt; i++) {
		struct orc_tensor *t = &o->t[i];
		if (o->len - p < 32)
			return -1;
		uint32_t *f[8] = {&t->bar, &t->role, &t->c, &t->h, &t->w, &t->row, &t->plane, &t->n};
		for (unsigned k = 0; k < 8; k++)
			*f[k] = le_rd32(o->buf + p + 4 * k);
		p += 32;
		uint64_t need = t->role ? 16ull * t->n : 2ull * t->n;
		if (!t->n || o->len - p < need)
			return -1;
		if (t->role) {
			t->want = o->buf + p;
			t->tol = o->buf + p + 8ull * t->n;
		} else {
			t->in = o->buf + p;
		}
		p += need;
	}
	return p == o->len ? 0 : -1;
}

void orc_free(struct orc *o)
{
	free(o->buf);
	memset(o, 0, sizeof *o);
}

const struct orc_tensor *orc_tensor_of(const struct orc *o, uint32_t bar, uint32_t role)
{
	for (unsigned i = 0; i < o->nt; i++)
		if (o->t[i].bar == bar && o->t[i].role == role)
			return &o->t[i];
	return NULL;
}

double orc_rd_f64(const uint8_t *p)
{
	uint64_t v = (uint64_t)le_rd32(p) | (uint64_t)le_rd32(p + 4) << 32;
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* no libm on the target: scale by powers of two by hand */
double orc_f16(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 31)
		return m ? __builtin_nan("") : (h & 0x8000) ? -__builtin_inf() : __builtin_inf();
	double v = e ? m + 1024.0 : (double)m;
	for (int k = e ? e : 1; k < 25; k++)
		v *= 0.5;
	for (int k = 25; k < e; k++)
		v *= 2.0;
	return (h & 0x8000) ? -v : v;
}

static uint64_t elem_off(const struct orc_tensor *t, uint32_t c, uint32_t h, uint32_t w)
{
	return (uint64_t)c * t->plane + (uint64_t)h * t->row + 2ull * w;
}

static uint64_t sample(const struct orc_tensor *t, uint32_t c, uint32_t h, uint32_t w)
{
	return (((uint64_t)c * t->h + h) * t->w + w) % t->n;
}

void orc_fill(void *run, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct orc_run *r = run;
	const struct orc_tensor *t = is_weights ? NULL : orc_tensor_of(r->o, (uint32_t)g->bar, 0);
	if (!t)
		return;
	r->filled++;
	for (uint32_t c = 0; c < t->c; c++)
		for (uint32_t h = 0; h < t->h; h++)
			for (uint32_t w = 0; w < t->w; w++) {
				uint64_t off = elem_off(t, c, h, w);
				if (off + 2 <= g->size)
					memcpy(buf + off, t->in + 2 * sample(t, c, h, w), 2);
			}
}

void orc_check_tensor(struct orc_run *r, const struct orc_tensor *t, const uint8_t *buf,
		      uint64_t size)
{
	r->checked_tensors++;
	for (uint32_t c = 0; c < t->c; c++)
		for (uint32_t h = 0; h < t->h; h++)
			for (uint32_t w = 0; w < t->w; w++) {
				uint64_t off = elem_off(t, c, h, w), k = sample(t, c, h, w);
				if (off + 2 > size) {
					r->bad++;
					continue;
				}
				double y = orc_f16(le_rd16(buf + off)), want = orc_rd_f64(t->want + 8 * k);
				double tol = orc_rd_f64(t->tol + 8 * k), err = y > want ? y - want : want - y;
				r->checked++;
				double aw = want < 0 ? -want : want;
				if (r->rel_floor > 0 && aw >= r->rel_floor && err / aw > r->worst_rel)
					r->worst_rel = err / aw;
				if (!(err <= tol)) {
					if (!r->bad && !r->quiet)
						test_fail_at(__FILE__, __LINE__,
							     "%s: bar %u element (%u,%u,%u): model %.6g, oracle %.6g, tol %.3g",
							     r->name, (unsigned)t->bar, (unsigned)c,
							     (unsigned)h, (unsigned)w, y, want, tol);
					r->bad++;
				} else if (tol > 0 && err / tol > r->worst) {
					r->worst = err / tol;
				}
			}
}

void orc_check(void *run, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct orc_run *r = run;
	const struct orc_tensor *t = is_weights ? NULL : orc_tensor_of(r->o, (uint32_t)g->bar, 1);
	if (t && (g->access & POL_WRITE))
		orc_check_tensor(r, t, buf, g->size);
}
