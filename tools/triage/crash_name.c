/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for stored crashes (crash_name.h).
 */
#include "crash_name.h"

#include <ctype.h>
#include <stdbool.h>

void crash_slug(const char *bucket, char *buf, size_t len)
{
	size_t n = 0, max = len - 1 < 48 ? len - 1 : 48;
	bool dash = false;

	for (const char *s = bucket; *s && n < max; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c)) {
			if (dash && n && n + 1 < max)
				buf[n++] = '-';
			dash = false;
			buf[n++] = (char)tolower(c);
		} else {
			dash = true;
		}
	}
	if (!n)
		buf[n++] = 'x';
	buf[n] = 0;
}

uint32_t crash_hash32(const uint8_t *data, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}

uint64_t crash_hash64(const uint8_t *data, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	return h;
}
