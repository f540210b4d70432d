/*
 * One error convention for fw/ and the drivers. A module's errors are a positive enum (0 is
 * success, X_E__COUNT ends it) with one table that gives each value its name (a stable word that
 * tests, docs and users match on) and a one-line description; X_err(e) looks a value up and
 * X_err_name(e) is its name. Everything prints an error the same way: "name: description" --
 * ERR_FMT with ERR_ARGS(d) inside any printf-style format (printf, outf, snprintf), err_format
 * into a buffer, err_print to a sink.
 */
#ifndef ANEFW_ERR_H
#define ANEFW_ERR_H

#include <stddef.h>

#include "fw/common/outf.h"

struct err_desc {
	const char *name; /* e.g. "range-outside-granted-buffer" */
	const char *desc; /* one line, no final full stop */
};

/* tab[e] (n entries), or unknown when e is out of range or has no entry. */
const struct err_desc *err_lookup(const struct err_desc *tab, unsigned n, unsigned e,
				  const struct err_desc *unknown);
/* "name: description" into buf (cap bytes, NUL-terminated, cut to fit); the length it wanted. */
size_t err_format(char *buf, size_t cap, const struct err_desc *d);
/* "name: description" and a newline to out. */
void err_print(outf_fn out, void *ctx, const struct err_desc *d);

#define ERR_FMT "%s: %s"
#define ERR_ARGS(d) (d)->name, (d)->desc

#define ERR_TABLE_LEN(t) ((unsigned)(sizeof(t) / sizeof((t)[0])))

#endif
