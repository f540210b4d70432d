/*
 * One error convention (fw/common/err.h): every module's table names and describes each of its
 * errors, names are distinct within a module, and "name: description" is formatted the same way
 * everywhere.
 */
#include "app/session.h"
#include "app/tensorio.h"
#include "drivers/dma/dma.h"
#include "engine/engine.h"
#include "fw/actlut/actlut.h"
#include "fw/cmd/cmd.h"
#include "fw/codec/codec.h"
#include "fw/common/err.h"
#include "fw/formats/formats.h"
#include "fw/formats/npy.h"
#include "fw/ctrl/ctrl.h"
#include "fw/kunit/kunit.h"
#include "fw/loader/anec.h"
#include "fw/loader/hwx_write.h"
#include "fw/loader/loader.h"
#include "fw/policy/policy.h"
#include "fw/submit/queue.h"
#include "fw/td/td.h"
#include "fw/tensors/tensors.h"
#include "tests/harness/harness.h"
#include "tools/progdesc/progdesc.h"

#include <stdio.h>
#include <string.h>

typedef const struct err_desc *(*err_fn)(unsigned e);

#define ADAPT(fn, type)                                                                         \
	static const struct err_desc *fn##_u(unsigned e)                                        \
	{                                                                                       \
		return fn((enum type)e);                                                        \
	}
ADAPT(ctrl_err, ctrl_err)
ADAPT(pol_err, pol_err)
ADAPT(ku_err, ku_err)
ADAPT(td_err, td_err)
ADAPT(ldr_err, ldr_err)
ADAPT(hwxw_err, hwxw_err)
ADAPT(cmd_err, cmd_err)
ADAPT(codec_err, codec_err)
ADAPT(actlut_err, actlut_err)
ADAPT(npy_err, npy_err)
ADAPT(tns_err, tns_err)
ADAPT(subq_err, subq_err)
ADAPT(dma_err, dma_err)
ADAPT(bytes_err, bytes_err)
ADAPT(session_err, session_err)
ADAPT(tio_err, tio_err)
ADAPT(anec_err, anec_err)
ADAPT(pd_err, pd_err)

static const struct err_desc *eng_err_u(unsigned e)
{
	return eng_err(e > ENG_E__COUNT ? -1 : (int)e);
}

static const struct {
	const char *module;
	err_fn fn;
	unsigned count;
} modules[] = {
	{"ctrl", ctrl_err_u, CTRL_E__COUNT}, {"policy", pol_err_u, POL_E__COUNT},
	{"kunit", ku_err_u, KU_E__COUNT},    {"td", td_err_u, TD_E__COUNT},
	{"loader", ldr_err_u, LDR_E__COUNT}, {"hwx-writer", hwxw_err_u, HWXW_E__COUNT},
	{"cmd", cmd_err_u, CMD_E__COUNT},    {"codec", codec_err_u, CODEC_E__COUNT},
	{"actlut", actlut_err_u, ACTLUT_E__COUNT}, {"npy", npy_err_u, NPY_E__COUNT},
	{"tensors", tns_err_u, TNS_E__COUNT}, {"queue", subq_err_u, SUBQ_E__COUNT},
	{"dma", dma_err_u, DMA_E__COUNT},    {"bytes-moved", bytes_err_u, BYTES_E__COUNT},
	{"engine", eng_err_u, ENG_E__COUNT}, {"session", session_err_u, SESSION_E__COUNT},
	{"tensorio", tio_err_u, TIO_E__COUNT}, {"anec", anec_err_u, ANEC_E__COUNT},
	{"progdesc", pd_err_u, PD_E__COUNT},
};

/* 1 when every value below count has a name and a one-line description, the names distinct,
 * value 0 is "ok", and count itself is no error of the table. */
static int table_complete(err_fn fn, unsigned count)
{
	const struct err_desc *unknown = fn(count);
	if (strcmp(fn(0)->name, "ok") != 0)
		return 0;
	for (unsigned e = 0; e < count; e++) {
		const struct err_desc *d = fn(e);
		if (d == unknown || !d->name[0] || !d->desc[0] || strchr(d->desc, '\n') ||
		    strchr(d->name, ' '))
			return 0;
		for (unsigned f = 0; f < e; f++)
			if (!strcmp(fn(f)->name, d->name))
				return 0;
	}
	return 1;
}

TEST(err, every_module_names_and_describes_each_error)
{
	for (unsigned m = 0; m < sizeof modules / sizeof modules[0]; m++) {
		if (!table_complete(modules[m].fn, modules[m].count))
			test_fail_at(__FILE__, __LINE__, "%s's error table is incomplete",
				     modules[m].module);
		CHECK(modules[m].fn(modules[m].count) == modules[m].fn(~0u));
	}
}

/* A name two tables share (value 0, "ok", aside), or NULL: a fact named in two places. */
static const char *shared_name(err_fn a, unsigned na, err_fn b, unsigned nb)
{
	for (unsigned e = 1; e < na; e++)
		for (unsigned f = 1; f < nb; f++)
			if (!strcmp(a(e)->name, b(f)->name))
				return a(e)->name;
	return NULL;
}

/* Each error has one home: no name stands in two modules' tables (a module that reports another
 * module's error carries that module's value, as ctrl_status does the policy's, the kernel
 * unit's and fw/td's). */
TEST(err, a_name_belongs_to_one_module)
{
	unsigned nm = sizeof modules / sizeof modules[0];
	for (unsigned m = 0; m < nm; m++)
		for (unsigned k = m + 1; k < nm; k++) {
			const char *s = shared_name(modules[m].fn, modules[m].count, modules[k].fn,
						    modules[k].count);
			CHECKF(s == NULL, "%s and %s both name an error \"%s\"", modules[m].module,
			       modules[k].module, s ? s : "");
		}
}

/* The checker fails on a table with a missing description, a repeated name, or no "ok". */
static const struct err_desc bad_tab[3] = {{"ok", "no error"}, {"a", "first"}, {"a", "again"}};
static const struct err_desc bad_unknown = {"unknown", "not in the table"};
static const struct err_desc *bad_dup(unsigned e)
{
	return err_lookup(bad_tab, 3, e, &bad_unknown);
}
static const struct err_desc hole_tab[3] = {{"ok", "no error"}, {"a", "first"}, {0, 0}};
static const struct err_desc *bad_hole(unsigned e)
{
	return err_lookup(hole_tab, 3, e, &bad_unknown);
}
static const struct err_desc nok_tab[2] = {{"fine", "no error"}, {"a", "first"}};
static const struct err_desc *bad_ok(unsigned e)
{
	return err_lookup(nok_tab, 2, e, &bad_unknown);
}

TEST(err, the_table_check_fails_on_a_bad_table)
{
	CHECK(table_complete(bad_dup, 2));
	CHECK(!table_complete(bad_dup, 3));
	CHECK(!table_complete(bad_hole, 3));
	CHECK(!table_complete(bad_ok, 2));
	CHECK(bad_hole(2) == &bad_unknown);
	/* two tables naming one error: the one-home check finds it */
	CHECK_STR(shared_name(bad_dup, 2, bad_ok, 2), "a");
	CHECK(shared_name(bad_dup, 2, bad_hole, 2) == bad_dup(1)->name);
	CHECK(shared_name(bad_ok, 1, bad_dup, 2) == NULL);
}

TEST(err, name_colon_description)
{
	char buf[128];
	const struct err_desc *d = pol_err(POL_E_OUT_OF_BUFFER);
	size_t n = err_format(buf, sizeof buf, d);
	CHECK_STR(buf, "range-outside-granted-buffer: an access that leaves its granted buffer");
	CHECK_EQ(n, strlen(buf));
	/* cut to fit, always terminated, the wanted length still reported */
	CHECK_EQ(err_format(buf, 8, d), n);
	CHECK_STR(buf, "range-o");
	CHECK_EQ(err_format(buf, 0, d), n);
	CHECK_STR(ldr_err_name(LDR_E_FW_REGISTER), "firmware_register");
	snprintf(buf, sizeof buf, ERR_FMT, ERR_ARGS(d)); /* the printf form: the same text */
	CHECK_STR(buf, "range-outside-granted-buffer: an access that leaves its granted buffer");
	struct ctrl_status st = {.err = CTRL_E_POLICY, .pol = POL_E_ALIAS};
	CHECK_STR(ctrl_status_err(&st)->name, "output-overlaps-input");
	st = (struct ctrl_status){.err = CTRL_E_KUNIT, .ku = KU_E_MAGIC};
	CHECK_STR(ctrl_status_name(&st), "kunit-bad-magic");
}
