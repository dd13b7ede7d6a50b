/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of `vmafuzz fuzz` (options.h).
 */
#include "options.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool campaign_number(const char *s, long max, long *n)
{
	long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (v < 1)
		return false;
	*n = v;
	return true;
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return 2;
}

/* The value of option @name: "--name=V" in @a, else the next word. */
static const char *value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

/* Whether @a is option @name, alone or as "--name=V". */
static bool is_opt(const char *a, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(a, name, n) && (a[n] == 0 || a[n] == '=');
}

/* Whether @w starts like a number (a sign, a digit or a point). */
static bool numeric(const char *w)
{
	return (*w >= '0' && *w <= '9') || *w == '+' || *w == '-' || *w == '.';
}

static int take_seconds(struct campaign_opts *o, const char *w, bool *given, char *err, size_t len)
{
	if (*given)
		return fail(err, len, "SECONDS given twice ('%ld' and '%s')", o->seconds, w);
	if (!campaign_number(w, CAMPAIGN_MAX_SECONDS, &o->seconds))
		return fail(err, len, "SECONDS takes whole seconds from 1 to %ld, not '%s'",
			    CAMPAIGN_MAX_SECONDS, w);
	*given = true;
	return 0;
}

int campaign_parse(int argc, char **argv, bool (*is_target)(const char *word),
		   struct campaign_opts *o, char *err, size_t len)
{
	bool secs_given = false;

	memset(o, 0, sizeof(*o));
	o->jobs = 1;
	o->seconds = CAMPAIGN_SECONDS;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "--")) {
			o->engine = argv + i + 1;
			o->nengine = argc - i - 1;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
		} else if (!strcmp(a, "--afl")) {
			o->afl = true;
		} else if (!strcmp(a, "--plain")) {
			o->plain = true;
		} else if (is_opt(a, "--seeds")) {
			if (!(v = value(argc, argv, &i, "--seeds")) || !*v)
				return fail(err, len, "--seeds needs a directory");
			o->seeds = v;
		} else if (is_opt(a, "--bug")) {
			if (!(v = value(argc, argv, &i, "--bug")) || !*v)
				return fail(err, len,
					    "--bug needs a planted bug's name (make list-bugs)");
			if (o->nbugs == CAMPAIGN_MAX_BUGS)
				return fail(err, len, "more than %d --bug", CAMPAIGN_MAX_BUGS);
			o->bugs[o->nbugs++] = v;
		} else if (is_opt(a, "--jobs") || !strcmp(a, "-j")) {
			const char *name = a[1] == 'j' ? "-j" : "--jobs";

			if (!(v = value(argc, argv, &i, name)))
				return fail(err, len, "%s needs a number", name);
			if (!campaign_number(v, CAMPAIGN_MAX_JOBS, &o->jobs))
				return fail(err, len,
					    "%s takes a whole number from 1 to %ld, not '%s'", name,
					    CAMPAIGN_MAX_JOBS, v);
		} else if (a[0] == '-' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.') {
			return fail(err, len,
				    "unknown option '%s' (engine flags go after '--'; see --help)",
				    a);
		} else if (is_target(a)) {
			if (o->target && !is_target(o->target))
				return fail(err, len, "'%s' is neither a target nor SECONDS",
					    o->target);
			if (o->target)
				return fail(err, len, "two targets, '%s' and '%s'", o->target, a);
			o->target = a;
		} else if (numeric(a) || (o->target && is_target(o->target))) {
			int rc = take_seconds(o, a, &secs_given, err, len);

			if (rc)
				return rc;
		} else if (o->target) {
			return fail(err, len, "'%s' is neither a target nor SECONDS", a);
		} else {
			o->target = a; /* no target: the caller names the targets there are */
		}
	}
	if (o->afl && o->plain)
		return fail(err, len, "--plain is libFuzzer's: not with --afl");
	return 0;
}
