/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plot_data with a row a second (afl_rows.h).
 */
#include "afl_rows.h"
#include "tools/file_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Append the line at @p (with its newline) to @out at *@at. */
static const char *copy_line(const char *p, char *out, size_t *at)
{
	size_t k = strcspn(p, "\n");

	memcpy(out + *at, p, k);
	*at += k;
	out[(*at)++] = '\n';
	return p[k] ? p + k + 1 : p + k;
}

char *afl_rows_merged(const char *pd, const char *rows)
{
	char *out = malloc(strlen(pd) + strlen(rows) + 2);
	const char *p = pd, *first = NULL;
	size_t at = 0;

	if (!out)
		abort();
	/* afl-fuzz's first row */
	for (const char *q = pd; *q; q += strcspn(q, "\n") + (q[strcspn(q, "\n")] != 0))
		if (*q != '#' && *q != '\n') {
			first = q;
			break;
		}
	if (*p)
		p = copy_line(p, out, &at);
	for (const char *q = rows; *q;) {
		if (*q != '#' && *q != '\n' && (!first || strtod(q, NULL) < strtod(first, NULL)))
			q = copy_line(q, out, &at);
		else
			q += strcspn(q, "\n") + (q[strcspn(q, "\n")] != 0);
	}
	while (*p)
		p = copy_line(p, out, &at);
	out[at] = 0;
	return out;
}

bool afl_rows_merge(const char *plot_data, const char *rows)
{
	size_t n;
	char *pd = file_read(plot_data, &n), *ours = file_read(rows, &n), *merged;
	bool ok = true;

	if (pd && ours) {
		merged = afl_rows_merged(pd, ours);
		ok = file_write_atomic(plot_data, merged, strlen(merged));
		free(merged);
	}
	free(pd);
	free(ours);
	unlink(rows);
	return ok;
}

long afl_rows_count(const char *path)
{
	size_t n;
	char *text = file_read(path, &n);
	long rows = 0;

	for (const char *p = text; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
		rows += *p != '#' && *p != '\n';
	free(text);
	return rows;
}
