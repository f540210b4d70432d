/*
 * Formatted output to a caller's sink: fw/ and the drivers print through callbacks
 * (ctx, text, length), never to a stream, so the same code serves the firmware console and
 * the host tool. One line is formatted into a bounded buffer (longer text is cut at
 * OUTF_LINE - 1 bytes, its end marked "...", and still ends with a newline when the format does)
 * and handed to the sink.
 */
#ifndef ANEFW_OUTF_H
#define ANEFW_OUTF_H

#include <stdarg.h>
#include <stddef.h>

#define OUTF_LINE 256

typedef void (*outf_fn)(void *ctx, const char *s, size_t n);

/* Formats fmt with ap and passes the text to out (nothing when out is NULL). */
void outf_v(outf_fn out, void *ctx, const char *fmt, va_list ap);
/* The same, printf-style. */
void outf(outf_fn out, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
