/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growing list of strings (strv.h).
 */
#include "strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push(struct strv *s, char *str)
{
	if (!str)
		abort();
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = realloc(s->v, (size_t)s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
}

void strv_add(struct strv *s, const char *str)
{
	push(s, strdup(str));
}

void strv_addf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str;

	va_start(ap, fmt);
	if (vasprintf(&str, fmt, ap) < 0)
		str = NULL;
	va_end(ap);
	push(s, str);
}

void strv_join(const struct strv *s, char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (int i = 0; i < s->n && at < len; i++) {
		int k = snprintf(buf + at, len - at, "%s%s", i ? " " : "", s->v[i]);

		if (k < 0)
			break;
		at += (size_t)k;
	}
}

void strv_free(struct strv *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
