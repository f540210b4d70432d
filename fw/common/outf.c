/* Formatted output to a callback sink (see outf.h). */
#include "fw/common/outf.h"

#include <stdio.h>

void outf_v(outf_fn out, void *ctx, const char *fmt, va_list ap)
{
	char line[OUTF_LINE];
	if (!out)
		return;
	int n = vsnprintf(line, sizeof line, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	out(ctx, line, (size_t)n);
}

void outf(outf_fn out, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	outf_v(out, ctx, fmt, ap);
	va_end(ap);
}
