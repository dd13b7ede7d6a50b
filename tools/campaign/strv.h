/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growing list of strings ended by NULL, as execv wants it: the command
 * lines and environments the runner builds. Out of memory aborts.
 */
#ifndef VMAFUZZ_CAMPAIGN_STRV_H
#define VMAFUZZ_CAMPAIGN_STRV_H

#include <stddef.h>

struct strv {
	char **v; /* v[n] is NULL */
	int n, cap;
};

/* Append a copy of @s. */
void strv_add(struct strv *s, const char *str);
/* Append a formatted string. */
void strv_addf(struct strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The strings joined by single blanks into @buf (cut to fit). */
void strv_join(const struct strv *s, char *buf, size_t len);
/* Free the strings and the list; @s is empty again. */
void strv_free(struct strv *s);

#endif
