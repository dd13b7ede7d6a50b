/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text form of programs: one operation per line,
 *
 *   # comment
 *   target fuzz_mtree
 *   config <name> ...
 *   [t<fiber>:] <operation> <field> ... [fail_at=<n>]
 *   sched <byte> ...
 *
 * with the fields of the target's operation table (prog.h). Printing and
 * parsing are written side by side so each stays the mirror of the other.
 */
#include "prog.h"
#include "runtime/check.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ----------------------------------------------------------- */

static void print_range(FILE *out, const uint8_t *b)
{
	struct range_spec rs;

	range_spec_decode(b, &rs);
	switch (rs.mode) {
	case RS_ENTRY:
	case RS_GAP:
		fprintf(out, "%c%u%c%d", rs.mode == RS_ENTRY ? 'e' : 'g', rs.k,
			rs.d < 0 ? '-' : '+', rs.d < 0 ? -rs.d : rs.d);
		break;
	case RS_RAW:
		fprintf(out, "@%#x", rs.v);
		break;
	case RS_TOP:
		fprintf(out, "top-%u", rs.v);
		break;
	}
	if (rs.len)
		fprintf(out, ":%u", rs.len);
	else
		fputs(":end", out);
}

static void print_field(FILE *out, const struct prog_field *f, const uint8_t *b)
{
	switch (f->kind) {
	case FK_SEL:
	case FK_U8:
		fprintf(out, "%s%u", f->prefix, b[0]);
		break;
	case FK_CHOICE:
		fputs(f->names[b[0]], out);
		break;
	case FK_FLAGS: {
		bool any = false;

		for (unsigned i = 0; f->names[i]; i++)
			if (b[0] & (1u << i)) {
				fprintf(out, "%s%s", any ? "," : "", f->names[i]);
				any = true;
			}
		if (!any)
			fputc('-', out);
		break;
	}
	case FK_RANGE:
		print_range(out, b);
		break;
	}
}

FILE *prog_trace;

void prog_print_op(FILE *out, const struct prog_desc *d, const struct prog_op *op)
{
	const struct prog_opdesc *od = &d->ops[op->code];
	unsigned at = 0;

	if (op->fiber)
		fprintf(out, "t%u: ", op->fiber);
	fputs(od->name, out);
	for (unsigned i = 0; i < od->nfields; i++) {
		fputc(' ', out);
		print_field(out, &od->fields[i], &op->arg[at]);
		at += field_width(&od->fields[i]);
	}
	if (op->fail_at)
		fprintf(out, " fail_at=%u", op->fail_at);
}

void prog_print(FILE *out, const struct prog_desc *d, const struct prog *p, int mark)
{
	fprintf(out, "target %s\n", d->target);
	if (p->config) {
		fputs("config", out);
		for (unsigned i = 0; d->config_names && d->config_names[i]; i++)
			if (p->config & (1u << i))
				fprintf(out, " %s", d->config_names[i]);
		fputc('\n', out);
	}
	for (unsigned i = 0; i < p->nops; i++) {
		prog_print_op(out, d, &p->ops[i]);
		if ((int)i == mark)
			fprintf(out, "    # <== step %u failed here", i);
		fputc('\n', out);
	}
	/* schedule choices, 16 to a line; later lines append */
	for (unsigned i = 0; i < p->nsched; i++)
		fprintf(out, "%s %u%s", i % 16 ? "" : "sched", p->sched[i],
			i % 16 == 15 || i + 1 == p->nsched ? "\n" : "");
}

/* ---- parsing ------------------------------------------------------------ */

struct parser {
	const char *name;
	unsigned line;
	char *err;
	size_t errlen;
};

struct token {
	const char *s;
	size_t len;
	unsigned col;
};

static bool fail(struct parser *ps, const struct token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(struct parser *ps, const struct token *t, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->errlen, "%s:%u:%u: ", ps->name, ps->line, t ? t->col : 1);

	if (n < 0 || (size_t)n >= ps->errlen)
		return false;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

static bool tok_is(const struct token *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

/* Parse a whole unsigned number (decimal or 0x hex) in [s, end). */
static bool parse_num(const char *s, const char *end, uint64_t max, uint64_t *v)
{
	char buf[32], *stop;
	size_t len = (size_t)(end - s);

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	*v = strtoull(buf, &stop, 0);
	return !errno && *stop == 0 && *v <= max;
}

static bool parse_range(struct parser *ps, const struct token *t, uint8_t *b)
{
	const char *s = t->s, *end = t->s + t->len, *colon = memchr(s, ':', t->len);
	struct range_spec rs = {0};
	uint64_t v;

	if (!colon)
		return fail(ps, t, "range '%.*s' needs :<len> or :end", (int)t->len, t->s);
	if (end - colon == 4 && !memcmp(colon, ":end", 4))
		rs.len = 0;
	else if (parse_num(colon + 1, end, 255, &v) && v)
		rs.len = (uint8_t)v;
	else
		return fail(ps, t, "range length '%.*s' is not 1..255 or end",
			    (int)(end - colon - 1), colon + 1);
	if (*s == 'e' || *s == 'g') {
		const char *sign = s + 1;

		rs.mode = *s == 'e' ? RS_ENTRY : RS_GAP;
		while (sign < colon && isdigit((unsigned char)*sign))
			sign++;
		if (!parse_num(s + 1, sign, 255, &v))
			return fail(ps, t, "range '%.*s': index after '%c' is not 0..255",
				    (int)t->len, t->s, *s);
		rs.k = (uint8_t)v;
		if (sign == colon || (*sign != '+' && *sign != '-') ||
		    !parse_num(sign + 1, colon, *sign == '-' ? 128 : 127, &v))
			return fail(ps, t, "range '%.*s': offset must be +0..+127 or -1..-128",
				    (int)t->len, t->s);
		rs.d = (int8_t)(*sign == '-' ? -(int)v : (int)v);
	} else if (*s == '@') {
		rs.mode = RS_RAW;
		if (!parse_num(s + 1, colon, 0xffff, &v))
			return fail(ps, t, "range '%.*s': address must be 0..0xffff", (int)t->len,
				    t->s);
		rs.v = (uint16_t)v;
	} else if (t->len > 4 && !memcmp(s, "top-", 4)) {
		rs.mode = RS_TOP;
		if (!parse_num(s + 4, colon, 0xffff, &v))
			return fail(ps, t, "range '%.*s': distance must be 0..0xffff", (int)t->len,
				    t->s);
		rs.v = (uint16_t)v;
	} else {
		return fail(ps, t, "range '%.*s' must start with e<k>, g<k>, @<addr> or top-<n>",
			    (int)t->len, t->s);
	}
	range_spec_encode(&rs, b);
	return true;
}

static bool parse_field(struct parser *ps, const struct prog_field *f, const struct token *t,
			uint8_t *b)
{
	size_t plen = f->prefix ? strlen(f->prefix) : 0;
	uint64_t v;

	switch (f->kind) {
	case FK_SEL:
	case FK_U8:
		if (t->len <= plen || memcmp(t->s, f->prefix, plen) ||
		    !parse_num(t->s + plen, t->s + t->len,
			       f->kind == FK_SEL ? (uint64_t)f->max - 1 : 255, &v))
			return fail(ps, t, "expected %s<0..%u>, got '%.*s'", f->prefix,
				    f->kind == FK_SEL ? f->max - 1u : 255u, (int)t->len, t->s);
		b[0] = (uint8_t)v;
		return true;
	case FK_CHOICE:
		for (unsigned i = 0; f->names[i]; i++)
			if (tok_is(t, f->names[i])) {
				b[0] = (uint8_t)i;
				return true;
			}
		return fail(ps, t, "'%.*s' is not one of the choices (%s, ...)", (int)t->len, t->s,
			    f->names[0]);
	case FK_FLAGS: {
		const char *s = t->s, *end = t->s + t->len;

		b[0] = 0;
		if (tok_is(t, "-"))
			return true;
		while (s < end) {
			const char *comma = memchr(s, ',', (size_t)(end - s));
			size_t len = (size_t)((comma ? comma : end) - s);
			unsigned i;

			for (i = 0; f->names[i]; i++)
				if (strlen(f->names[i]) == len && !memcmp(s, f->names[i], len))
					break;
			if (!f->names[i])
				return fail(ps, t, "unknown flag '%.*s'", (int)len, s);
			b[0] |= (uint8_t)(1u << i);
			s += len + (comma != NULL);
		}
		return true;
	}
	case FK_RANGE:
		return parse_range(ps, t, b);
	}
	return false;
}

static const struct prog_opdesc *find_op(const struct prog_desc *d, const struct token *t,
					 uint8_t *code)
{
	for (unsigned i = 0; i < d->nops; i++)
		if (tok_is(t, d->ops[i].name)) {
			*code = (uint8_t)i;
			return &d->ops[i];
		}
	return NULL;
}

static bool parse_op(struct parser *ps, const struct prog_desc *d, struct token *t, unsigned n,
		     struct prog *p)
{
	struct prog_op op = {0};
	const struct prog_opdesc *od;
	unsigned i = 0, at = 0;
	uint64_t v;

	if (t[0].len >= 3 && t[0].s[0] == 't' && t[0].s[t[0].len - 1] == ':') {
		if (!parse_num(t[0].s + 1, t[0].s + t[0].len - 1, d->nfibers - 1, &v))
			return fail(ps, &t[0], "fiber '%.*s' is not t0..t%u", (int)t[0].len - 1,
				    t[0].s, d->nfibers - 1);
		op.fiber = (uint8_t)v;
		i++;
	}
	if (i == n)
		return fail(ps, &t[0], "expected an operation after '%.*s'", (int)t[0].len, t[0].s);
	od = find_op(d, &t[i], &op.code);
	if (!od)
		return fail(ps, &t[i], "unknown operation '%.*s' for %s", (int)t[i].len, t[i].s,
			    d->target);
	i++;
	for (unsigned f = 0; f < od->nfields; f++, i++) {
		if (i == n)
			return fail(ps, &t[i - 1], "%s takes %u arguments, got %u", od->name,
				    od->nfields, f);
		if (!parse_field(ps, &od->fields[f], &t[i], &op.arg[at]))
			return false;
		at += field_width(&od->fields[f]);
	}
	if (i < n && t[i].len > 8 && !memcmp(t[i].s, "fail_at=", 8)) {
		if (!parse_num(t[i].s + 8, t[i].s + t[i].len, 255, &v))
			return fail(ps, &t[i], "fail_at takes 0..255");
		op.fail_at = (uint8_t)v;
		i++;
	}
	if (i < n)
		return fail(ps, &t[i], "unexpected '%.*s' after %s", (int)t[i].len, t[i].s,
			    od->name);
	if (p->nops == PROG_MAX_OPS)
		return fail(ps, &t[0], "more than %d operations", PROG_MAX_OPS);
	p->ops[p->nops++] = op;
	return true;
}

#define MAX_TOKENS 64

bool prog_parse(const struct prog_desc *d, const char *text, const char *name, struct prog *p,
		char *err, size_t errlen)
{
	return prog_parse_at(d, text, name, 1, p, err, errlen);
}

bool prog_parse_at(const struct prog_desc *d, const char *text, const char *name,
		   unsigned first_line, struct prog *p, char *err, size_t errlen)
{
	struct parser ps = {.name = name, .line = first_line - 1, .err = err, .errlen = errlen};
	const char *line = text;

	memset(p, 0, sizeof(*p));
	while (*line) {
		const char *eol = strchr(line, '\n'), *s = line;
		struct token t[MAX_TOKENS];
		unsigned n = 0;

		if (!eol)
			eol = line + strlen(line);
		ps.line++;
		while (s < eol && *s != '#') {
			if (isspace((unsigned char)*s)) {
				s++;
				continue;
			}
			if (n == MAX_TOKENS)
				return fail(&ps, &t[n - 1], "line has more than %d words",
					    MAX_TOKENS);
			t[n].s = s;
			t[n].col = (unsigned)(s - line) + 1;
			while (s < eol && *s != '#' && !isspace((unsigned char)*s))
				s++;
			t[n].len = (size_t)(s - t[n].s);
			n++;
		}
		line = *eol ? eol + 1 : eol;
		if (!n)
			continue;
		if (tok_is(&t[0], "target")) {
			if (n != 2 || !tok_is(&t[1], d->target))
				return fail(&ps, &t[n > 1], "program is for '%.*s', not %s",
					    n > 1 ? (int)t[1].len : 0, n > 1 ? t[1].s : "",
					    d->target);
		} else if (tok_is(&t[0], "config")) {
			for (unsigned i = 1; i < n; i++) {
				unsigned b;

				for (b = 0; d->config_names && d->config_names[b]; b++)
					if (tok_is(&t[i], d->config_names[b]))
						break;
				if (!d->config_names || !d->config_names[b])
					return fail(&ps, &t[i], "unknown config '%.*s' for %s",
						    (int)t[i].len, t[i].s, d->target);
				p->config |= (uint8_t)(1u << b);
			}
		} else if (tok_is(&t[0], "sched")) {
			for (unsigned i = 1; i < n; i++) {
				uint64_t v;

				if (p->nsched == PROG_MAX_SCHED)
					return fail(&ps, &t[i], "more than %d schedule choices",
						    PROG_MAX_SCHED);
				if (!parse_num(t[i].s, t[i].s + t[i].len, 255, &v))
					return fail(&ps, &t[i],
						    "schedule choice '%.*s' is not 0..255",
						    (int)t[i].len, t[i].s);
				p->sched[p->nsched++] = (uint8_t)v;
			}
		} else if (!parse_op(&ps, d, t, n, p)) {
			return false;
		}
	}
	return true;
}

/* Whether the line at @s starts with @prefix. */
static bool line_starts(const char *s, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - s) >= n && !memcmp(s, prefix, n);
}

const char *prog_log_program(const char *text, size_t size, unsigned nth, size_t *len,
			     unsigned *line)
{
	const char *s = text, *end = text + size, *start = NULL;
	unsigned n = 1, found = 0;

	*line = 0;
	if (memchr(text, 0, size))
		return NULL;
	for (; s < end; n++) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		const char *next = eol ? eol + 1 : end;

		if (start && line_starts(s, end, "--- ")) {
			if (found++ == nth) {
				*len = (size_t)(s - start);
				return start;
			}
			start = NULL;
		}
		if (!start && (line_starts(s, end, PROG_LOG_UNSAVED) ||
			       line_starts(s, end, PROG_LOG_REPORT))) {
			start = next;
			*line = n + 1;
		}
		s = next;
	}
	if (!start || found != nth)
		*line = 0;
	return NULL;
}

const char *prog_text_target(const char *text, char *buf, size_t len)
{
	const char *s = text;

	while (s && *s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, "target", 6) && (s[6] == ' ' || s[6] == '\t')) {
			size_t n = 0;

			s += 6;
			while (*s == ' ' || *s == '\t')
				s++;
			while (s[n] && !isspace((unsigned char)s[n]) && s[n] != '#')
				n++;
			if (!n || n >= len)
				return NULL;
			memcpy(buf, s, n);
			buf[n] = 0;
			return buf;
		}
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return NULL;
}

bool prog_text_bytes(const struct prog_desc *d, const char *text, uint8_t **bytes, size_t *size)
{
	static struct prog p; /* large */
	char err[256];

	if (!prog_parse(d, text, "program", &p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return false;
	}
	*bytes = malloc(prog_encoded_size(&p));
	MODEL_ASSERT(*bytes != NULL);
	*size = prog_encode(&p, *bytes);
	return true;
}
