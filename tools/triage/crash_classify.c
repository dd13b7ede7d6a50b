/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A driver's stderr and wait status into a bucket (crash_classify.h).
 */
#include "crash_classify.h"

#include "crash_stack.h"
#include "tools/text_util.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The summary: one line, whitespace collapsed, "==PID==" and "ERROR: "
 * dropped, at most 160 characters. */
static void set_summary(struct crash_result *r, const char *line)
{
	const size_t max = 160;
	const char *stop, *p;
	bool space = false;
	size_t n = 0;

	if (line[0] == '=' && line[1] == '=' && (p = strstr(line + 2, "==")))
		line = p + 2;
	if (!strncmp(line, "ERROR: ", 7))
		line += 7;
	stop = line + strcspn(line, "\n");
	/* AddressSanitizer: ... on address 0x... at pc 0x... bp ... sp ... */
	if (strstr(line, "Sanitizer: ") && (p = strstr(line, " at pc ")) && p < stop)
		stop = p;
	while (line < stop && isspace((unsigned char)*line))
		line++;
	for (; line < stop && n < max; line++) {
		if (isspace((unsigned char)*line)) {
			space = true;
			continue;
		}
		if (space && n + 1 < max)
			r->summary[n++] = ' ';
		space = false;
		r->summary[n++] = *line;
	}
	if (line < stop && n >= 3)
		memcpy(r->summary + n - 3, "...", 3);
	r->summary[n] = 0;
}

static void append_frames(struct crash_result *r)
{
	for (unsigned i = 0; i < r->nframes; i++)
		text_appendf(r->bucket, sizeof(r->bucket), "%s%s", i ? " <- " : " in ",
			     r->frames[i].func);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGABRT:
		return "SIGABRT";
	case SIGBUS:
		return "SIGBUS";
	case SIGFPE:
		return "SIGFPE";
	case SIGILL:
		return "SIGILL";
	case SIGKILL:
		return "SIGKILL";
	case SIGTRAP:
		return "SIGTRAP";
	default:
		return NULL;
	}
}

/* "Tool: kind on address ..." -> "Tool: kind". */
static void sanitizer_kind(const char *s, char *buf, size_t len)
{
	const char *colon = strstr(s, ": "), *k, *e;
	static const char *const stops[] = {" on ", " (", ": ", " 0x", NULL};

	if (!colon) {
		text_copy(buf, len, s, strlen(s));
		return;
	}
	k = colon + 2;
	e = k + strlen(k);
	for (unsigned i = 0; stops[i]; i++) {
		const char *p = strstr(k, stops[i]);

		if (p && p < e)
			e = p;
	}
	while (e > k && isspace((unsigned char)e[-1]))
		e--;
	text_copy(buf, len, s, (size_t)(e - s));
}

/* "path/src/x.c:12:5" -> "src/x.c:12" */
static void short_location(const char *loc, size_t n, char *buf, size_t len)
{
	char tmp[512], *slash, *colon;
	const char *rel;
	unsigned long line;

	text_copy(tmp, sizeof(tmp), loc, n);
	slash = strrchr(tmp, '/');
	colon = strchr(slash ? slash : tmp, ':');
	buf[0] = 0;
	if (!colon) {
		text_appendf(buf, len, "%s", tmp);
		return;
	}
	*colon = 0;
	line = strtoul(colon + 1, NULL, 10);
	if (crash_source_part(tmp, &rel) == SOURCE_OTHER)
		rel = slash ? slash + 1 : tmp;
	text_appendf(buf, len, "%s:%lu", rel, line);
}

/* r->site from a report's "path/file.c:L[:C]" (@n bytes at @loc): in this
 * tree or a kernel tree's; else from the stack after it (@after). */
static void site_at(const char *loc, size_t n, const char *after, struct crash_result *r)
{
	char file[512];
	const char *colon, *rel;
	unsigned long line;

	text_copy(file, sizeof(file), loc, n);
	colon = strchr(strrchr(file, '/') ? strrchr(file, '/') : file, ':');
	line = colon ? strtoul(colon + 1, NULL, 10) : 0;
	if (colon)
		file[colon - file] = 0;
	if (line && crash_site_ours(file, (unsigned)line, &r->site))
		return;
	if (line && crash_source_part(file, &rel) == SOURCE_KERNEL) {
		r->site.tree = SITE_KERNEL;
		text_copy(r->site.at.file, sizeof(r->site.at.file), rel, strlen(rel));
		r->site.at.line = (unsigned)line;
		if (rel > file && file[0] == '/')
			text_copy(r->site.kernel_root, sizeof(r->site.kernel_root), file,
				  (size_t)(rel - file));
		return;
	}
	crash_pick_site(after, r);
}

/* "vmafuzz: invariant <ID> failed: ..." */
static bool invariant_report(const char *l, const char *after, struct crash_result *r)
{
	if (strncmp(l, "vmafuzz: invariant ", 19) || !strstr(l, " failed"))
		return false;
	text_copy(r->bucket, sizeof(r->bucket), l + 19, strcspn(l + 19, " :"));
	set_summary(r, l);
	/* only with crash_locate's stacks: the check that fired is the caller
	 * of the model's check reporting */
	crash_pick_frames(after, r);
	crash_pick_site(after, r);
	return true;
}

/* "vmafuzz: kernel report: TITLE[ at FILE:LINE]", a guest kernel's report
 * as scripts/vm.sh --replay prints it (live/vm/console.h): the bucket is
 * the title, the place the kernel's file and line */
static bool kernel_report(const char *l, struct crash_result *r)
{
	const char *at = "vmafuzz: kernel report: ", *where;
	size_t k = strlen(at), n;

	if (strncmp(l, at, k))
		return false;
	where = strstr(l + k, " at ");
	n = where ? (size_t)(where - l - k) : strlen(l + k);
	snprintf(r->bucket, sizeof(r->bucket), "KERNEL %.*s", (int)n, l + k);
	set_summary(r, l);
	if (where) {
		const char *colon = strrchr(where + 4, ':');
		struct crash_frame *f = &r->frames[0];

		snprintf(f->func, sizeof(f->func), "%.*s", (int)n, l + k);
		text_copy(f->file, sizeof(f->file), where + 4,
			  colon ? (size_t)(colon - where - 4) : strlen(where + 4));
		f->line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
		r->nframes = 1;
		if (f->line) {
			/* a path of the guest's kernel tree, whose root the line
			 * "vmafuzz: kernel tree: ROOT" before it may have named */
			r->site.tree = SITE_KERNEL;
			r->site.at = *f;
		}
	}
	return true;
}

/* "vmafuzz: kernel tree: ROOT", which scripts/vm.sh --replay prints before
 * a guest kernel's reports: the tree their files are relative to */
static bool kernel_tree(const char *l, struct crash_result *r)
{
	const char *at = "vmafuzz: kernel tree: ";
	size_t k = strlen(at), n = strlen(l);

	if (strncmp(l, at, k) || l[k] != '/' || n - k + 2 > sizeof(r->site.kernel_root))
		return false;
	memcpy(r->site.kernel_root, l + k, n - k);
	r->site.kernel_root[n - k] = 0;
	if (l[n - 1] != '/')
		strcat(r->site.kernel_root, "/");
	return true;
}

/* "vmafuzz: model assertion failed at F:L ..." */
static bool assertion_report(const char *l, const char *after, struct crash_result *r)
{
	const char *at = "vmafuzz: model assertion failed at ";
	size_t k = strlen(at);
	char loc[300];

	if (strncmp(l, at, k))
		return false;
	short_location(l + k, strcspn(l + k, " "), loc, sizeof(loc));
	snprintf(r->bucket, sizeof(r->bucket), "MODEL_ASSERT %s", loc);
	set_summary(r, l);
	crash_pick_frames(after, r);
	site_at(l + k, strcspn(l + k, " "), after, r);
	return true;
}

/* "==N==ERROR: <Tool>Sanitizer: <kind> ..." */
static bool sanitizer_report(const char *line, const char *after, struct crash_result *r)
{
	const char *p, *l;

	if (line[0] != '=' || line[1] != '=' || !(p = strstr(line + 2, "==")))
		return false;
	l = p + 2;
	if (strncmp(l, "ERROR: ", 7) || !strstr(l, "Sanitizer: "))
		return false;
	sanitizer_kind(l + 7, r->bucket, sizeof(r->bucket));
	set_summary(r, line);
	crash_pick_frames(after, r);
	crash_pick_site(after, r);
	append_frames(r);
	return true;
}

/* "F:L:C: runtime error: ..." and later "SUMMARY: UndefinedBehaviorSanitizer:
 * <check> ..." (report_error_type=1 names the check; without it the check
 * is "undefined-behavior" and the location stands in). */
static bool ubsan_report(const char *line, const char *after, struct crash_result *r)
{
	const char *p = strstr(line, ": runtime error: "), *sum;
	char check[128] = "", loc[300];

	if (!p)
		return false;
	short_location(line, (size_t)(p - line), loc, sizeof(loc));
	sum = strstr(after, "SUMMARY: UndefinedBehaviorSanitizer: ");
	if (sum) {
		sum += 37;
		text_copy(check, sizeof(check), sum, strcspn(sum, " \n"));
	}
	set_summary(r, line);
	crash_pick_frames(after, r);
	site_at(line, (size_t)(p - line), after, r);
	if (check[0] && strcmp(check, "undefined-behavior")) {
		snprintf(r->bucket, sizeof(r->bucket), "UndefinedBehaviorSanitizer: %s", check);
		if (r->nframes)
			append_frames(r);
		else
			text_appendf(r->bucket, sizeof(r->bucket), " at %s", loc);
	} else {
		snprintf(r->bucket, sizeof(r->bucket),
			 "UndefinedBehaviorSanitizer: runtime error at %s", loc);
		append_frames(r);
	}
	return true;
}

/* No report in the log: the exit status or signal decides. */
static void status_only(int wstatus, const char *lastline, struct crash_result *r)
{
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
		r->failed = false;
		snprintf(r->bucket, sizeof(r->bucket), "%s", CRASH_BUCKET_NO_FAIL);
		snprintf(r->summary, sizeof(r->summary), "exit status 0");
		return;
	}
	if (WIFSIGNALED(wstatus)) {
		const char *name = signal_name(WTERMSIG(wstatus));

		if (name)
			snprintf(r->bucket, sizeof(r->bucket), "signal %s", name);
		else
			snprintf(r->bucket, sizeof(r->bucket), "signal %d", WTERMSIG(wstatus));
	} else {
		snprintf(r->bucket, sizeof(r->bucket), "exit status %d", WEXITSTATUS(wstatus));
	}
	set_summary(r, lastline[0] ? lastline : r->bucket);
}

void crash_classify(const char *log, int wstatus, bool timed_out, struct crash_result *r)
{
	const char *s = log, *after;
	char line[1024], lastline[1024] = "";

	memset(r, 0, sizeof(*r));
	r->failed = true;
	if (timed_out) {
		snprintf(r->bucket, sizeof(r->bucket), "%s", CRASH_BUCKET_TIMEOUT);
		snprintf(r->summary, sizeof(r->summary), "killed after the timeout");
		return;
	}
	/* the first report in the log decides */
	for (; (after = text_next_line(s, line, sizeof(line))); s = after) {
		if (line[0])
			snprintf(lastline, sizeof(lastline), "%s", line);
		if (kernel_tree(line, r))
			continue;
		if (kernel_report(line, r) || invariant_report(line, after, r) ||
		    assertion_report(line, after, r) || sanitizer_report(line, after, r) ||
		    ubsan_report(line, after, r))
			return;
	}
	status_only(wstatus, lastline, r);
}
