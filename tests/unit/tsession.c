#include "tests/unit/tsession.h"
#include "hal/hal.h"
#include "plat/plat.h"
#include "fw/common/le.h"
#include "fw/td/td.h"
#include "fw/loader/loader.h"
#include "tests/harness/harness.h"
#include "tests/unit/toracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct app_session *tsession(void)
{
	static struct app_session *s;
	if (!s && !(s = session_create(plat_dma()))) {
		/* nothing can run without it: a test harness abort, not a result */
		abort();
	}
	return s;
}

struct anem *tsession_model_of(struct app_session *s)
{
	return session_eng(s)->dev;
}

struct anem *tsession_model(void)
{
	return tsession_model_of(tsession());
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

static char tinspect_text[1 << 16];
static size_t tinspect_len;
static void tinspect_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (tinspect_len + n < sizeof tinspect_text) {
		memcpy(tinspect_text + tinspect_len, s, n);
		tinspect_len += n;
		tinspect_text[tinspect_len] = 0;
	}
}

const char *tinspect_as(const uint8_t *buf, size_t len, unsigned flags)
{
	static struct ldr_program q;
	tinspect_len = 0;
	tinspect_text[0] = 0;
	if (ldr_load(buf, len, flags, &q) == LDR_OK)
		ldr_print(&q, LDR_P_BRIEF, tinspect_sink, NULL);
	return tinspect_text;
}

const char *tinspect(const uint8_t *buf, size_t len)
{
	return tinspect_as(buf, len, LDR_F_RAW);
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

int tpatch_field(uint8_t *buf, size_t len, unsigned td, uint32_t reg, unsigned lsb, unsigned width,
		 uint32_t v)
{
	static struct ldr_program p;
	uint32_t off[4];
	if (ldr_load(buf, len, 0, &p) != LDR_OK)
		return -1;
	unsigned n = twrite_offsets(&p, td, reg, off, 4);
	if (!n || n > 4)
		return -1;
	uint8_t *w = buf + p.td_area_off + off[n - 1];
	uint32_t mask = td_field_mask(width) << lsb;
	le_wr32(w, (le_rd32(w) & ~mask) | ((v << lsb) & mask));
	return 0;
}

int tsubmit(const uint8_t *buf, size_t len, unsigned ldr_flags, const struct subq_grant *grants,
	    unsigned n, int use_defaults, unsigned trace, outf_fn out, void *ctx,
	    const struct session_hooks *hooks, struct session_result *res)
{
	const struct session_opts o = {.ldr_flags = ldr_flags, .grants = grants, .ngrants = n,
				    .use_defaults = use_defaults, .trace = trace, .out = out,
				    .ctx = ctx, .hooks = hooks};
	return session_run(tsession(), buf, len, &o, res);
}

int trun_orc(const char *orcname, const uint8_t *prog, size_t len, int quiet, struct orc_run *r,
	     char *fault, size_t fault_len)
{
	return trun_orc_granted(orcname, prog, len, NULL, 0, quiet, r, fault, fault_len);
}

int trun_orc_granted(const char *orcname, const uint8_t *prog, size_t len, const struct subq_grant *g,
		     unsigned ng, int quiet, struct orc_run *r, char *fault, size_t fault_len)
{
	struct orc o;
	char rel[64];
	snprintf(rel, sizeof rel, "model/%s.orc", orcname);
	memset(r, 0, sizeof *r);
	if (orc_load(rel, &o)) {
		CHECKF(0, "%s: no oracle", rel);
		return -1;
	}
	r->o = &o;
	r->name = orcname;
	r->quiet = quiet;
	struct session_hooks h = {.fill = orc_fill, .check = orc_check, .ctx = r};
	struct session_result res;
	int rc = len ? tsubmit(prog, len, LDR_F_RAW, g, ng, g == NULL, 0, tnull_out, NULL, &h, &res) : -1;
	CHECK(!len || res.canaries_ok);
	if (fault && len) { /* the engine's fault, else the session's result name (a refusal) */
		snprintf(fault, fault_len, "%s", res.fault_text[0] ? res.fault_text : session_result_name(&res));
	}
	orc_free(&o);
	r->o = NULL;
	return rc == 0 && len && res.run == ENG_OK ? 0 : -1;
}
