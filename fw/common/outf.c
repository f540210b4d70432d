/* Formatted output to a callback sink (see outf.h). */
#include "fw/common/outf.h"

#include <stdio.h>
#include <string.h>

void outf_v(outf_fn out, void *ctx, const char *fmt, va_list ap)
{
	char line[OUTF_LINE];
	if (!out)
		return;
	int n = vsnprintf(line, sizeof line, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line) { /* cut: marked, and a line still ends its line */
		n = sizeof line - 1;
		size_t f = strlen(fmt);
		int nl = f && fmt[f - 1] == '\n';
		memcpy(line + n - 3 - nl, "...", 3);
		if (nl)
			line[n - 1] = '\n';
	}
	out(ctx, line, (size_t)n);
}

void outf(outf_fn out, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	outf_v(out, ctx, fmt, ap);
	va_end(ap);
}
