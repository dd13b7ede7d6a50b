/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded string helpers (text_util.h).
 */
#include "text_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void text_copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

void text_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

const char *text_next_line(const char *s, char *line, size_t len)
{
	const char *e;

	if (!*s)
		return NULL;
	e = strchr(s, '\n');
	if (!e)
		e = s + strlen(s);
	text_copy(line, len, s, (size_t)(e - s));
	return *e ? e + 1 : e;
}
