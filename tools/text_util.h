/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded string helpers for reading logs line by line into fixed buffers.
 * Every function leaves a NUL-terminated string and truncates what does
 * not fit; none allocates.
 */
#ifndef VMAFUZZ_TEXT_UTIL_H
#define VMAFUZZ_TEXT_UTIL_H

#include <stddef.h>

/* The first @n bytes of @src (or as many as fit in @len - 1) into @dst. */
void text_copy(char *dst, size_t len, const char *src, size_t n);

/* Append a formatted string to the string in @buf (size @len). */
void text_appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The line starting at @s, without its newline, into @line; returns where
 * the next line starts, or NULL at the end of the text. */
const char *text_next_line(const char *s, char *line, size_t len);

#endif
