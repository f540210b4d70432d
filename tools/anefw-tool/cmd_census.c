/*
 * anefw-tool census PROGRAM [--raw|--hwx] [--td N] [--quiet]
 * Which register bits a program's values depend on, as the engine model reads them: the program
 * runs once as it is (inputs finite fp16 from a fixed seed, the default grants), then once for
 * every bit of every register word each TD writes, that bit flipped in the file. Each flip is
 * refused (by name: the loader, the control path or the engine), changes the outputs, or changes
 * nothing. A field of which no flipped bit changes or is refused is one the model reads no
 * meaning from at that TD: on silicon it might matter, so it is listed ("unread") for a reader
 * to account for (docs/engine-model.md, "The register census"). A measurement tool: its verdict
 * is the listing, the exit status says only whether it ran (0), the program did not run as it is
 * (1) or the arguments were wrong (2).
 */
#include "app/session.h"
#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "fw/regmap/regmap.h"
#include "plat/plat.h"
#include "tools/anefw-tool/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cctx {
	uint8_t *base[SESSION_MAX_GRANTS];   /* the first run's outputs, per grant */
	uint64_t size[SESSION_MAX_GRANTS];
	uint32_t bar[SESSION_MAX_GRANTS];
	unsigned n, first, differs;
	unsigned flags; /* the loader's: LDR_F_RAW, LDR_F_HWX or neither (run's --raw, --hwx) */
	uint64_t seed;
};

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* inputs (granted buffers only read): finite fp16 in about [-4, 4], the same every run */
static void fill(void *vc, const struct subq_grant *g, uint8_t *buf, int is_weights)
{
	struct cctx *c = vc;
	if (is_weights || (g->access & POL_WRITE))
		return;
	uint64_t s = c->seed ^ (0x9e3779b97f4a7c15ull * (g->bar + 1u));
	for (uint64_t k = 0; k + 1 < g->size; k += 2) {
		uint64_t r = next_rand(&s);
		/* sign, exponent 2^-6 .. 2^1, any mantissa: never a NaN or an infinity */
		uint16_t v = (uint16_t)((r & 0x8000u) | (((9u + (r >> 16) % 8u) & 0x1fu) << 10) |
					((r >> 24) & 0x3ffu));
		le_wr16(buf + k, v);
	}
}

/* the first run keeps every written buffer; later runs compare with it */
static void check(void *vc, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct cctx *c = vc;
	if (is_weights || !(g->access & POL_WRITE))
		return;
	if (c->first) {
		if (c->n < SESSION_MAX_GRANTS && (c->base[c->n] = malloc((size_t)g->size ? (size_t)g->size : 1))) {
			memcpy(c->base[c->n], buf, (size_t)g->size);
			c->size[c->n] = g->size;
			c->bar[c->n++] = g->bar;
		}
		return;
	}
	for (unsigned i = 0; i < c->n; i++)
		if (c->bar[i] == g->bar)
			c->differs |= c->size[i] != g->size || memcmp(c->base[i], buf, (size_t)g->size) != 0;
}

static void no_out(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	(void)s;
	(void)n;
}

enum { C_REFUSED, C_CHANGED, C_SAME };

struct tally {
	unsigned n[3];
	char why[80]; /* the first refusal's name */
};

/* A field (or a register's bits outside every field) over every TD: read when some flip at some
 * TD was refused or changed the outputs. */
#define CENSUS_MAX_KEYS 2048u
struct agg {
	const void *reg; /* the register (or, for a word the map does not name, its block) */
	uint32_t off;    /* the word's offset in its block */
	int field;       /* index in the register, -1: the bits outside every field */
	char name[RM_NAME_MAX + 40];
	unsigned read;
	uint32_t vals[4];
	unsigned nv;
};

static struct agg *agg_find(struct agg *a, unsigned *n, const struct rm_loc *loc, int field,
			    const char *name)
{
	const void *reg = loc->reg ? (const void *)loc->reg : (const void *)loc->block;
	uint32_t off = loc->reg ? loc->reg->offset : loc->block_off; /* array elements share one */
	for (unsigned i = 0; i < *n; i++)
		if (a[i].reg == reg && a[i].off == off && a[i].field == field)
			return &a[i];
	if (*n >= CENSUS_MAX_KEYS)
		return NULL;
	struct agg *x = &a[(*n)++];
	memset(x, 0, sizeof *x);
	x->reg = reg;
	x->off = off;
	x->field = field;
	snprintf(x->name, sizeof x->name, "%s", name);
	return x;
}

static void agg_add(struct agg *x, int read, uint32_t v)
{
	if (!x)
		return;
	x->read |= read;
	for (unsigned i = 0; i < x->nv; i++)
		if (x->vals[i] == v)
			return;
	if (x->nv < 4)
		x->vals[x->nv++] = v;
}

/* One run of buf; C_REFUSED (why: its name), C_CHANGED or C_SAME against the first run. */
/* The last run's result: the refusal of the program as it is, said whole */
static struct session_result res;

static int run_once(struct app_session *s, const uint8_t *buf, size_t len, struct cctx *c, char *why,
		    size_t whylen)
{
	struct session_hooks hk = {.fill = fill, .check = check, .ctx = c, .whole_bars = 0};
	struct session_opts o = {.ldr_flags = c->flags, .use_defaults = 1, .out = no_out, .hooks = &hk};
	c->differs = 0;
	int rc = session_run(s, buf, len, &o, &res);
	if (rc) {
		snprintf(why, whylen, "%s", session_result_name(&res));
		return C_REFUSED;
	}
	return c->differs ? C_CHANGED : C_SAME;
}

static void print_tally(unsigned td, const char *what, const struct tally *ty, int quiet)
{
	int none = !ty->n[C_REFUSED] && !ty->n[C_CHANGED];
	if (quiet && !none)
		return;
	printf("td %u %s: refused %u, changed %u, same %u%s%s%s\n", td, what, ty->n[C_REFUSED],
	       ty->n[C_CHANGED], ty->n[C_SAME], none ? ": unread" : "", ty->why[0] ? ": " : "", ty->why);
}

static int cmd_census(int argc, char **argv)
{
	const char *path = NULL;
	int only = -1, quiet = 0;
	unsigned flags = 0;
	for (int i = 1; i < argc; i++) {
		uint64_t v;
		if (tool_take_format(argv[i], &flags)) {
			continue;
		} else if (!strcmp(argv[i], "--td") && i + 1 >= argc) {
			return tool_usage_error("census", "--td wants 0..%u, got nothing", LDR_MAX_TDS - 1);
		} else if (!strcmp(argv[i], "--td")) {
			if (tool_parse_u64(argv[++i], LDR_MAX_TDS - 1, &v))
				return tool_usage_error("census", "--td wants 0..%u, got '%s'", LDR_MAX_TDS - 1,
							argv[i]);
			only = (int)v;
		} else if (!strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else if (argv[i][0] == '-') {
			return tool_usage_error("census", "unknown argument '%s'", argv[i]);
		} else if (path) {
			return tool_usage_error("census", "one PROGRAM: '%s' after '%s'", argv[i], path);
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return tool_usage_error("census", "wants a PROGRAM");
	if (tool_check_format("census", flags))
		return 2;
	uint8_t *buf;
	size_t len;
	if (tool_read_file(path, &buf, &len))
		return 1;
	static struct ldr_program p;
	enum ldr_err le = ldr_load(buf, len, flags, &p);
	if (le != LDR_OK) {
		/* as validate says it: the name, its words, where, the values; what the file is */
		fprintf(stderr, "anefw-tool census: %s: not loaded: ", path);
		fflush(stderr);
		ldr_print_refusal(&p, le, buf, len, flags, "", "anefw-tool census: ", path, tool_out_file,
				  stderr);
		free(buf);
		return 1;
	}
	if (only >= 0 && (unsigned)only >= p.ntds) {
		fprintf(stderr, "anefw-tool census: %s has %u TD%s, no TD %d (--td takes 0 to %u)\n",
			path, p.ntds, p.ntds == 1 ? "" : "s", only, p.ntds - 1);
		free(buf);
		return 2;
	}
	struct app_session *s = session_create(plat_dma());
	struct cctx c = {.first = 1, .flags = flags, .seed = 0x2545f4914f6cdd1dull};
	static struct agg agg[CENSUS_MAX_KEYS];
	unsigned nagg = 0;
	char why[80];
	int rc = 0;
	if (!s) {
		fprintf(stderr, "anefw-tool census: out of memory\n");
		free(buf);
		return 1;
	}
	if (run_once(s, buf, len, &c, why, sizeof why) != C_SAME) {
		/* as run says it: the refusal with its TD and particulars, or the engine's fault (the
		 * name alone before) */
		fprintf(stderr, "anefw-tool census: %s does not run as it is: ", path);
		fflush(stderr);
		if (res.loaded && res.run == ENG_OK && (res.serr || res.st.err))
			session_print_refusal(&res, "", tool_out_file, stderr);
		else if (res.loaded && res.fault_text[0])
			fprintf(stderr, "%s: %s\n", why, res.fault_text);
		else
			fprintf(stderr, "%s\n", why);
		rc = 1;
		goto out;
	}
	c.first = 0;
	unsigned flips = 0, tot[3] = {0, 0, 0};
	for (unsigned t = 0; t < p.ntds; t++) {
		if (only >= 0 && t != (unsigned)only)
			continue;
		struct ldr_write_iter it;
		struct ldr_write w;
		ldr_writes_begin(&p, t, &it);
		while (ldr_writes_next(&it, &w) == 1) {
			char rname[RM_NAME_MAX], bname[RM_NAME_MAX], what[RM_NAME_MAX + 80];
			if (!w.loc.block)
				continue; /* a write outside the map: the loader refuses the program */
			rm_loc_name(&w.loc, rname, sizeof rname);
			/* merged over a register's elements: its name without the index */
			if (w.loc.reg)
				snprintf(bname, sizeof bname, "%s.%s%s", w.loc.block->name, w.loc.reg->name,
					 w.loc.reg->count > 1 ? "[]" : "");
			else
				snprintf(bname, sizeof bname, "%s", rname);
			uint8_t *word = buf + p.td_area_off + w.area_off;
			const struct rm_reg *reg = w.loc.reg;
			unsigned nf = reg ? reg->nfields : 0;
			struct tally tf[33]; /* [nf]: the bits outside every field */
			int field_of[32];
			uint32_t outside = 0;
			memset(tf, 0, sizeof tf);
			for (unsigned b = 0; b < 32; b++) {
				field_of[b] = (int)nf;
				for (unsigned f = 0; f < nf; f++)
					if (rm_field_mask(&reg->fields[f]) >> b & 1u)
						field_of[b] = (int)f;
				if (field_of[b] == (int)nf)
					outside |= 1u << b;
			}
			for (unsigned b = 0; b < 32; b++) {
				word[b / 8] ^= (uint8_t)(1u << (b % 8));
				int k = run_once(s, buf, len, &c, why, sizeof why);
				word[b / 8] ^= (uint8_t)(1u << (b % 8));
				flips++;
				tot[k]++;
				struct tally *ty = &tf[field_of[b]];
				if (k == C_REFUSED && !ty->why[0])
					snprintf(ty->why, sizeof ty->why, "%s", why);
				ty->n[k]++;
			}
			for (unsigned f = 0; f < nf; f++) {
				const struct rm_field *fd = &reg->fields[f];
				uint32_t v = rm_field_get(fd, w.value);
				snprintf(what, sizeof what, "%s.%s (bits %u..%u, value %u)", rname, fd->name, fd->lsb,
					 fd->lsb + fd->width - 1, (unsigned)v);
				print_tally(t, what, &tf[f], quiet);
				char key[RM_NAME_MAX + 40];
				snprintf(key, sizeof key, "%s.%s", bname, fd->name);
				agg_add(agg_find(agg, &nagg, &w.loc, (int)f, key), tf[f].n[C_REFUSED] || tf[f].n[C_CHANGED], v);
			}
			if (outside) {
				snprintf(what, sizeof what, "%s %s (mask 0x%08x, value 0x%08x)", rname,
					 reg ? "bits outside every field" : "(a word the map does not name)",
					 (unsigned)outside, (unsigned)w.value);
				print_tally(t, what, &tf[nf], quiet);
				char key[RM_NAME_MAX + 40];
				snprintf(key, sizeof key, "%s%s", bname, reg ? " bits outside every field" : "");
				agg_add(agg_find(agg, &nagg, &w.loc, -1, key), tf[nf].n[C_REFUSED] || tf[nf].n[C_CHANGED],
					w.value & outside);
			}
		}
	}
	unsigned unread = 0;
	for (unsigned i = 0; i < nagg; i++) {
		if (agg[i].read)
			continue;
		unread++;
		printf("unread at every TD: %s, values", agg[i].name);
		for (unsigned v = 0; v < agg[i].nv; v++)
			printf(" 0x%x", (unsigned)agg[i].vals[v]);
		printf("%s\n", agg[i].nv == 4 ? " ..." : "");
	}
	printf("census %s: %u flips: refused %u, changed %u, same %u; %u of %u fields (or a register's "
	       "other bits) unread at every TD\n", path, flips, tot[C_REFUSED], tot[C_CHANGED], tot[C_SAME],
	       unread, nagg);
out:
	for (unsigned i = 0; i < c.n; i++)
		free(c.base[i]);
	session_destroy(s);
	free(buf);
	return rc;
}

TOOL_COMMAND(census, "census", cmd_census,
	     "census PROGRAM [--raw|--hwx] [--td N] [--quiet]\n"
	     "                             flips every bit of every register word the TDs write and\n"
	     "                             says which are refused, change the outputs or change nothing");
