/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text the written tests share (ktest_text.h).
 */
#include "ktest_text.h"

#include <string.h>

void ktest_put_comment(FILE *out, const char *text, const char *lead)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		fprintf(out, " *%s", len ? lead : "");
		for (int k = 0; k < len; k++)
			fputc(p[k] == '/' && k && p[k - 1] == '*' ? ' ' : p[k], out);
		fputc('\n', out);
		p = nl ? nl + 1 : NULL;
	}
}
