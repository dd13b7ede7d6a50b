/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crashes the engine did not save whole (unsaved.h).
 */
#include "unsaved.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/target.h"
#include "tools/file_util.h"
#include "tools/triage/crash_build.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the file at @path holds @n bytes @b (NULL: any, but some). */
static bool whole(const char *path, const uint8_t *b, size_t n)
{
	size_t size;
	char *have = file_read(path, &size);
	bool ok = have && size > 0 && (!b || (size == n && !memcmp(have, b, n)));

	free(have);
	return ok;
}

/* The input of crash @e for target @t: its bytes, else its program
 * compiled (malloc'd into *@bytes); false when neither is there. */
static bool input_of(const struct fuzz_target *t, const struct engine_crash *e, uint8_t **bytes,
		     size_t *n)
{
	static struct prog p; /* large */
	char err[512];

	if (e->bytes) {
		*bytes = malloc(e->nbytes ? e->nbytes : 1);
		if (!*bytes)
			abort();
		memcpy(*bytes, e->bytes, e->nbytes);
		*n = e->nbytes;
		return true;
	}
	if (!e->program || !t || !prog_parse(t->desc, e->program, "report", &p, err, sizeof(err)))
		return false;
	*bytes = malloc(prog_encoded_size(&p));
	if (!*bytes)
		abort();
	*n = prog_encode(&p, *bytes);
	return true;
}

/* FNV-1a, 64 bits: a name for an input libFuzzer named nowhere. */
static uint64_t fnv64(const uint8_t *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* The program of crash @e as text on stderr, between the marker lines. */
static void print_block(const struct campaign *c, const struct fuzz_target *t,
			const struct engine_crash *e, const uint8_t *bytes, size_t n,
			const char *name)
{
	static struct prog p; /* large */

	fprintf(stderr, "%s%s (%s): its program ---\n", PROG_LOG_UNSAVED, name, c->target);
	/* the build that found it, as a minimized program names it (crash_build.h) */
	fprintf(stderr, "%s%s\n", CRASH_BUILD_LINE, c->build);
	if (bytes && t) {
		prog_decode(t->desc, bytes, n, &p);
		prog_print(stderr, t->desc, &p, -1);
	} else {
		fputs(e->program, stderr);
	}
	fprintf(stderr, "--- vmafuzz: end of unsaved crash %s ---\n", name);
}

/* Crash @e of the output: saved whole, written again, or printed. */
static void one(const struct campaign *c, const struct fuzz_target *t, const struct engine_crash *e,
		const char *crashes, struct unsaved_tally *tally)
{
	char path[PATH_MAX], base[PATH_MAX];
	uint8_t *bytes = NULL;
	size_t n = 0;
	bool have = input_of(t, e, &bytes, &n);
	int why;

	if (e->path && whole(e->path, e->bytes, e->nbytes)) {
		free(bytes);
		return;
	}
	if (!have && !e->program) {
		fprintf(stderr,
			"vmafuzz fuzz: %s is not saved whole, and the engine's output holds "
			"neither its bytes nor its program: that crash is lost\n",
			e->path ? e->path : "a crash");
		tally->lost++;
		return;
	}
	if (e->path)
		path_fmt(path, sizeof(path), "%s", e->path);
	else
		path_fmt(path, sizeof(path), "%s/crash-unsaved-%016" PRIx64, crashes,
			 fnv64(bytes, n));
	if (have && file_write_atomic(path, bytes, n)) {
		fprintf(stderr, "vmafuzz fuzz: %s written again whole, from the engine's output\n",
			path);
		tally->saved_again++;
		free(bytes);
		return;
	}
	why = have ? errno : EINVAL;
	snprintf(base, sizeof(base), "%s", path);
	fprintf(stderr,
		"vmafuzz fuzz: %s could not be saved (%s); its program follows, between "
		"marker lines: vmafuzz print, triage, minimize and repro read it back from "
		"this log\n",
		path, have ? strerror(why) : "its report does not parse");
	print_block(c, t, e, have ? bytes : NULL, n, basename(base));
	fflush(stderr);
	tally->printed++;
	/* an empty file left behind would pass for the crash */
	if (e->path && !whole(e->path, NULL, 0))
		unlink(e->path);
	free(bytes);
}

/* Whether @name is the last component of a crash's path in @o. */
static bool reported(const struct engine_out *o, const char *name)
{
	size_t k = strlen(name);

	for (int i = 0; i < o->ncrashes; i++) {
		const char *p = o->crashes[i].path;
		size_t n = p ? strlen(p) : 0;

		if (n >= k && !strcmp(p + n - k, name) && (n == k || p[n - k - 1] == '/'))
			return true;
	}
	return false;
}

void unsaved_crashes(const struct campaign *c, const struct engine_out *o, const char *crashes,
		     const struct crash_set *before, struct unsaved_tally *t)
{
	const struct fuzz_target *target = fuzz_target_find(c->target);
	struct crash_set fresh;

	memset(t, 0, sizeof(*t));
	if (!target)
		target = fuzz_target_find(c->twin);
	for (int i = 0; i < o->ncrashes; i++)
		one(c, target, &o->crashes[i], crashes, t);
	if (o->lost) {
		fprintf(stderr,
			"vmafuzz fuzz: %d more crashes in the engine's output than are kept; "
			"the log has them\n",
			o->lost);
	}
	/* empty crash files the output says nothing of */
	crash_count_new(crashes, before, &fresh);
	for (int i = 0; i < fresh.n; i++) {
		char path[PATH_MAX];
		struct stat st;

		path_fmt(path, sizeof(path), "%s/%s", crashes, fresh.names[i]);
		if (stat(path, &st) || st.st_size || reported(o, fresh.names[i]))
			continue;
		fprintf(stderr,
			"vmafuzz fuzz: %s is empty (a full disk) and the engine's output says "
			"nothing of its input: that crash is lost; the file is removed\n",
			path);
		unlink(path);
		t->lost++;
	}
	crash_set_free(&fresh);
}
