/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text the written tests share (ktest_text.h).
 */
#include "ktest_text.h"

#include "runtime/check.h"

#include <stdarg.h>
#include <stdlib.h>
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

char *ktest_program_text(const struct prog_desc *d, const uint8_t *data, size_t size)
{
	static struct prog p;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	prog_decode(d, data, size, &p);
	prog_print(f, d, &p, -1);
	fclose(f);
	return text;
}

void ktest_put_head(FILE *out, const char *name, const char *kind, const char *target,
		    const char *tree_name, const char *comment, const char *ops,
		    const char *program)
{
	fprintf(out, "// SPDX-License-Identifier: GPL-2.0\n/*\n");
	fprintf(out, " * %s(): a %s regression test written by vmafuzz\n", name, kind);
	fprintf(out, " * (vmafuzz repro --ktest) from a %s program%s\n", target,
		tree_name ? ", for" : ".");
	if (tree_name)
		fprintf(out, " * %s.\n", tree_name);
	if (comment && *comment) {
		fprintf(out, " *\n");
		ktest_put_comment(out, comment, " ");
	}
	fprintf(out, " *\n * The program (%s; docs/kernel.md):\n *\n", ops);
	ktest_put_comment(out, program, "   ");
}

void ktest_refuse(struct ktest_refusal *r, const char *fmt, ...)
{
	va_list ap;

	if (r->refused)
		return;
	r->refused = true;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

bool ktest_begin_recording(FILE **body, char **buf, size_t *len, char *why, size_t whylen)
{
	*body = open_memstream(buf, len);
	if (!*body) {
		snprintf(why, whylen, "out of memory");
		return false;
	}
	check_set_mode(CHECK_COLLECT);
	check_clear();
	return true;
}

bool ktest_end_recording(struct ktest_refusal *no, FILE *body, char **buf, const char *code,
			 char *why, size_t whylen)
{
	if (check_total() && !no->refused)
		ktest_refuse(no,
			     "the model fails it too (%s): a crash of the harness or the model, "
			     "not of %s",
			     check_last_message(), code);
	check_clear();
	check_set_mode(CHECK_ABORT);
	fclose(body);
	if (!no->refused)
		return true;
	snprintf(why, whylen, "%s", no->why);
	free(*buf);
	*buf = NULL;
	return false;
}
