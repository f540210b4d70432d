#include "tests/unit/tsession.h"
#include "hal/hal.h"
#include "plat/plat.h"

#include <stdlib.h>
#include <string.h>

struct anes *tsession(void)
{
	static struct anes *s;
	if (!s && !(s = anes_create(plat_dma()))) {
		/* nothing can run without it: a test harness abort, not a result */
		abort();
	}
	return s;
}

struct anem *anes_engine(struct anes *s)
{
	return anes_eng(s)->dev;
}

struct anem *anes_model(void)
{
	return anes_engine(tsession());
}

void tnull_out(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	(void)s;
	(void)n;
}

void tcapture_out(void *ctx, const char *s, size_t n)
{
	struct tcapture *c = ctx;
	if (c->n + n < sizeof c->text) {
		memcpy(c->text + c->n, s, n);
		c->n += n;
		c->text[c->n] = 0;
	}
}

unsigned twrite_offsets(const struct ldr_program *p, unsigned td, uint32_t addr, uint32_t *off,
			unsigned max)
{
	struct ldr_write_iter it;
	struct ldr_write w;
	unsigned n = 0;
	ldr_writes_begin(p, td, &it);
	while (ldr_writes_next(&it, &w))
		if (w.addr == addr) {
			if (n < max)
				off[n] = w.area_off;
			n++;
		}
	return n;
}

int tsubmit(const uint8_t *buf, size_t len, unsigned ldr_flags, const struct subq_grant *grants,
	    unsigned n, int use_defaults, unsigned trace, outf_fn out, void *ctx,
	    const struct anes_hooks *hooks, struct anes_result *res)
{
	const struct anes_opts o = {ldr_flags, grants, n, use_defaults, trace, out, ctx, hooks,
				    NULL, 0};
	return anes_run(tsession(), buf, len, &o, res);
}
