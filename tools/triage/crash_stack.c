/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack frames of sanitizer reports and the ones a bucket names
 * (crash_stack.h).
 */
#include "crash_stack.h"

#include "tools/text_util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Whether the path component ending just before @end (a '/' in @file) is
 * @dir; *@start gets where it begins. */
static bool component_is(const char *file, const char *end, const char *dir, const char **start)
{
	const char *c = end;
	size_t n = strlen(dir);

	while (c > file && c[-1] != '/')
		c--;
	*start = c;
	return (size_t)(end - c) == n && !strncmp(c, dir, n);
}

enum source_part crash_source_part(const char *file, const char **rel)
{
	const char *end = strrchr(file, '/');

	/* the directory holding the file, then the one above it */
	for (int up = 0; up < 2 && end; up++) {
		const char *c;

		if (component_is(file, end, "src", &c) || component_is(file, end, "fuzz", &c)) {
			if (rel)
				*rel = c;
			return *c == 's' ? SOURCE_MODEL : SOURCE_HARNESS;
		}
		if (c == file)
			break;
		end = c - 1;
	}
	/* not ours: a kernel tree's lib/ or mm/ (its src/ would be ours) */
	end = strrchr(file, '/');
	if (end) {
		const char *c;

		if (component_is(file, end, "lib", &c) || component_is(file, end, "mm", &c)) {
			if (rel)
				*rel = c;
			return SOURCE_KERNEL;
		}
	}
	return SOURCE_OTHER;
}

/* The model's check reporting: a check.c anywhere under src/. */
static bool is_reporting(const char *rel)
{
	const char *base = strrchr(rel, '/');

	return base && !strcmp(base + 1, "check.c");
}

/* "file:line[:col]" between @loc and @e into f->file and f->line: the line
 * is after the first ':' followed by a digit past the last '/'. */
static void parse_location(const char *loc, const char *e, struct crash_frame *f)
{
	const char *slash = NULL, *colon = NULL;

	for (const char *p = loc; p < e; p++)
		if (*p == '/')
			slash = p;
	for (const char *p = slash ? slash : loc; p < e; p++)
		if (*p == ':' && isdigit((unsigned char)p[1])) {
			colon = p;
			break;
		}
	if (!colon) {
		text_copy(f->file, sizeof(f->file), loc, (size_t)(e - loc));
		return;
	}
	text_copy(f->file, sizeof(f->file), loc, (size_t)(colon - loc));
	f->line = (unsigned)strtoul(colon + 1, NULL, 10);
}

bool crash_parse_frame(const char *line, struct crash_frame *f)
{
	const char *s = line, *in, *fn, *loc, *e;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '#' || !isdigit((unsigned char)s[1]))
		return false;
	in = strstr(s, " in ");
	memset(f, 0, sizeof(*f));
	if (!in)
		return true; /* a frame without a name */
	fn = in + 4;
	e = fn + strcspn(fn, " \n");
	text_copy(f->func, sizeof(f->func), fn, (size_t)(e - fn));
	loc = e;
	while (*loc == ' ')
		loc++;
	if (*loc == '(' || !*loc || *loc == '\n')
		return true; /* module+offset only */
	parse_location(loc, loc + strcspn(loc, " \n"), f);
	return true;
}

struct frames {
	struct crash_frame v[CRASH_FRAMES];
	unsigned n;
};

static void keep_frame(struct frames *fs, struct crash_frame *f, const char *rel)
{
	if (fs->n == CRASH_FRAMES)
		return;
	memmove(f->file, rel, strlen(rel) + 1);
	fs->v[fs->n++] = *f;
}

/* The next frame of the first stack in @text into @f; the text after it,
 * or NULL when that stack has ended (*@started: a frame was met). */
static const char *next_frame(const char *text, bool *started, struct crash_frame *f)
{
	char line[1024];

	while ((text = text_next_line(text, line, sizeof(line)))) {
		if (crash_parse_frame(line, f)) {
			*started = true;
			return text;
		}
		if (*started)
			return NULL;
	}
	return NULL;
}

void crash_pick_frames(const char *text, struct crash_result *r)
{
	struct frames model = {.n = 0}, harness = {.n = 0}, kernel = {.n = 0};
	const struct frames *pick;
	bool started = false;
	struct crash_frame f;

	while ((text = next_frame(text, &started, &f))) {
		const char *rel;

		if (!f.func[0])
			continue;
		switch (crash_source_part(f.file, &rel)) {
		case SOURCE_MODEL:
			if (!is_reporting(rel))
				keep_frame(&model, &f, rel);
			break;
		case SOURCE_HARNESS:
			keep_frame(&harness, &f, rel);
			break;
		case SOURCE_KERNEL:
			/* the kernel's name, not the one our build renamed it to */
			for (const char *pfx = "kmt_k_\0kvma_k_\0"; *pfx; pfx += strlen(pfx) + 1)
				if (!strncmp(f.func, pfx, strlen(pfx)))
					memmove(f.func, f.func + strlen(pfx),
						strlen(f.func) - strlen(pfx) + 1);
			keep_frame(&kernel, &f, rel);
			break;
		case SOURCE_OTHER:
			break;
		}
	}
	pick = kernel.n ? &kernel : model.n ? &model : &harness;
	memcpy(r->frames, pick->v, pick->n * sizeof(pick->v[0]));
	r->nframes = pick->n;
}

/* Whether the folder holding @file, or one of the @levels - 1 above it, is
 * @dir; *@rel points at that folder's name in @file. */
static bool under(const char *file, const char *dir, int levels, const char **rel)
{
	const char *end = strrchr(file, '/');

	for (int up = 0; up < levels && end; up++) {
		const char *c;

		if (component_is(file, end, dir, &c)) {
			*rel = c;
			return true;
		}
		if (c == file)
			break;
		end = c - 1;
	}
	return false;
}

/* Our kernel backends: kernel/maple/x.c, kernel/vma/x.c (a kernel tree has
 * kernel/ too, but no maple/ or vma/ in it). */
static bool kernel_backend(const char *file, const char **rel)
{
	const char *end = strrchr(file, '/'), *c, *k;

	if (!end ||
	    (!component_is(file, end, "maple", &c) && !component_is(file, end, "vma", &c)) ||
	    c == file || !component_is(file, c - 1, "kernel", &k))
		return false;
	*rel = k;
	return true;
}

bool crash_site_ours(const char *file, unsigned line, struct crash_site *s)
{
	const char *rel;
	enum source_part part = crash_source_part(file, &rel);

	/* the harness goes a level deeper than crash_source_part looks
	 * (fuzz/as/expect/), and live/ and the kernel backends are ours too */
	if (part != SOURCE_MODEL && part != SOURCE_HARNESS && !under(file, "fuzz", 3, &rel) &&
	    !under(file, "live", 2, &rel) && !kernel_backend(file, &rel))
		return false;
	memset(s, 0, sizeof(*s));
	s->tree = SITE_OURS;
	text_copy(s->at.file, sizeof(s->at.file), rel, strlen(rel));
	s->at.line = line;
	return true;
}

void crash_pick_site(const char *text, struct crash_result *r)
{
	bool started = false;
	struct crash_frame f;

	while ((text = next_frame(text, &started, &f))) {
		struct crash_site s;
		const char *rel;

		if (!f.file[0] || !f.line)
			continue;
		if (crash_site_ours(f.file, f.line, &s)) {
			if (is_reporting(s.at.file))
				continue;
			text_copy(s.at.func, sizeof(s.at.func), f.func, strlen(f.func));
			r->site = s;
			return;
		}
		if (crash_source_part(f.file, &rel) == SOURCE_KERNEL) {
			memset(&r->site, 0, sizeof(r->site));
			r->site.tree = SITE_KERNEL;
			r->site.at = f;
			memmove(r->site.at.file, rel, strlen(rel) + 1);
			if (rel > f.file && f.file[0] == '/')
				text_copy(r->site.kernel_root, sizeof(r->site.kernel_root), f.file,
					  (size_t)(rel - f.file));
			return;
		}
	}
}
