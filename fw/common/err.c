#include "fw/common/err.h"

#include <string.h>

const struct err_desc *err_lookup(const struct err_desc *tab, unsigned n, unsigned e,
				  const struct err_desc *unknown)
{
	return e < n && tab[e].name && tab[e].desc ? &tab[e] : unknown;
}

size_t err_format(char *buf, size_t cap, const struct err_desc *d)
{
	size_t ln = strlen(d->name), ld = strlen(d->desc), want = ln + 2 + ld, k = 0;
	if (!cap)
		return want;
	const char *parts[3] = {d->name, ": ", d->desc};
	for (unsigned i = 0; i < 3; i++)
		for (const char *s = parts[i]; *s && k + 1 < cap; s++)
			buf[k++] = *s;
	buf[k] = 0;
	return want;
}

void err_print(outf_fn out, void *ctx, const struct err_desc *d)
{
	outf(out, ctx, ERR_FMT "\n", ERR_ARGS(d));
}
