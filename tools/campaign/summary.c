/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run says when it ends (summary.h).
 */
#include "summary.h"
#include "tools/file_util.h"
#include "engine_cmd.h"
#include "records.h"
#include "status.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after the last @key in @text, -1 if none. */
static long last_after(const char *text, size_t len, const char *key)
{
	size_t k = strlen(key);
	long v = -1;

	for (const char *p = text; p + k < text + len; p++)
		if (!memcmp(p, key, k)) {
			const char *q = p + k;

			while (*q == ' ')
				q++;
			if (*q >= '0' && *q <= '9')
				v = strtol(q, NULL, 10);
		}
	return v;
}

/*
 * The runs of all workers that -fork=N's last line counts ("#N: cov: ...",
 * at a line's start; a plain run's lines have a tab after the number), or
 * -1 if none.
 */
static long fork_runs(const char *text, size_t len)
{
	long v = -1;

	for (const char *p = text; p < text + len; p++)
		if (*p == '#' && (p == text || p[-1] == '\n') && p + 1 < text + len &&
		    p[1] >= '0' && p[1] <= '9') {
			char *end;
			long n = strtol(p + 1, &end, 10);

			if (end < text + len && *end == ':')
				v = n;
		}
	return v;
}

void summary_rate(const char *text, size_t len, long wall, long *rate, long *units)
{
	struct fuzz_sample s;

	*units = last_after(text, len, "stat::number_of_executed_units:");
	/* -fork=N's own final stats count nothing: its workers ran them, as
	 * its lines say, or nobody knows (stopped before a worker ended) */
	if (memmem(text, len, "INFO: -fork=", 12))
		*units = fork_runs(text, len);
	*rate = last_after(text, len, "stat::average_exec_per_sec:");
	if (*rate <= 0 && *units > 0 && wall > 0)
		*rate = *units / wall;
	/* -fork=N prints no final stats; its lines say "exec/s N" */
	if (*rate <= 0 && status_sample_libfuzzer(text, len, &s))
		*rate = s.rate;
}

/* The lines of @text matching @pattern (an extended regex), at most @max,
 * the first ones or (@last) the last ones, after @prefix each; the part
 * of each line after @strip when it starts so. */
static void quote(const char *text, const char *pattern, int max, bool last, const char *prefix,
		  const char *strip)
{
	const char *lines[64];
	int n = 0;
	regex_t re;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE))
		return;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t k = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)k, p);
		if (!regexec(&re, line, 0, NULL, 0)) {
			if (n < 64)
				lines[n++] = p;
			else if (last) {
				memmove(lines, lines + 1, 63 * sizeof(*lines));
				lines[63] = p;
			}
			if (!last && n == max)
				break;
		}
		p += k + (nl != NULL);
	}
	regfree(&re);
	for (int i = last && n > max ? n - max : 0; i < n; i++) {
		const char *p = lines[i];
		size_t k = strcspn(p, "\n");

		if (strip && !strncmp(p, strip, strlen(strip))) {
			p += strlen(strip);
			k -= strlen(strip);
		}
		printf("%s%.*s\n", prefix, (int)k, p);
	}
}

void summary_libfuzzer(const struct campaign *c, const struct run_tally *t,
		       const struct merge_result *m)
{
	char work[PATH_MAX], log[PATH_MAX];
	long rate = -1, units = -1;
	size_t len = 0;
	char *text = status_tail(t->log, 64 << 20, &len);

	campaign_abs(c->work, work, sizeof(work));
	campaign_abs(t->log, log, sizeof(log));
	if (text)
		summary_rate(text, len, t->seconds, &rate, &units);
	if (m->skipped)
		printf("   (the corpus is not merged: %s)\n", m->why);
	else if (!m->ok)
		printf("   (merging the corpus failed: %s; kept as it was: %s/merge.log)\n", m->why,
		       work);
	printf("\n== %s: libFuzzer exit status %d (%s) after %lds\n", c->target, t->rc,
	       engine_libfuzzer_status(t->rc), t->seconds);
	if (c->kind == CAMPAIGN_KERNEL)
		printf("   tree:    %s (Linux %s)\n", c->ktree, c->kversion);
	if (rate >= 0)
		printf("   exec/s:  %ld", rate);
	else
		printf("   exec/s:  ?");
	if (units >= 0)
		printf(" (%ld executions)", units);
	printf("\n");
	if (m->ok)
		printf("   corpus:  %ld inputs in %s/corpus (merged from %ld)\n", m->after, work,
		       m->before);
	else
		printf("   corpus:  %ld inputs in %s/corpus (not merged)\n", m->before, work);
	printf("   crashes: %ld new this run, %ld in all, in %s/crashes/\n", t->new_crashes,
	       t->all_crashes, work);
	if (t->unsaved)
		printf("   unsaved: %ld crash%s not saved, printed on stderr (vmafuzz triage reads "
		       "them back from it)\n",
		       t->unsaved, t->unsaved == 1 ? "" : "es");
	if (text && (t->new_crashes > 0 || t->unsaved))
		quote(text,
		      "^vmafuzz: (invariant|model assertion)|ERROR: "
		      "(AddressSanitizer|libFuzzer)|runtime error:|^SUMMARY:|Test unit written to",
		      8, false, "   | ", NULL);
	if (c->kind == CAMPAIGN_LIVE) {
		/* what its inputs were: how many ran for real, how many were refused */
		if (c->o->jobs > 1)
			printf("   (what the inputs were, the real and the refused, is in the "
			       "workers' "
			       "own logs, which libFuzzer's -fork deletes)\n");
		else if (text)
			quote(text, "^fuzz_conform: ", 8, true, "   ", "fuzz_conform: ");
		if (t->all_crashes > 0)
			printf(
			    "   again:   out/vmafuzz conform FILE   (a crash is a fuzz_mm program; "
			    "both views side by side)\n");
	} else if (t->all_crashes > 0) {
		printf("   triage:  out/vmafuzz triage %s/crashes   (each crash with the replay "
		       "driver of the build that found it)\n",
		       c->work);
	}
	printf("   log:     %s\n", log);
	free(text);
}

/* The value of @key in fuzzer_stats text, into @buf ("?" if none). */
static const char *stat_of(const char *text, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key);

	snprintf(buf, len, "?");
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, k) && (p[k] == ' ' || p[k] == ':')) {
			const char *v = strchr(p, ':');

			if (!v)
				continue;
			v++;
			while (*v == ' ')
				v++;
			snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
		}
	return buf;
}

void summary_afl(const struct campaign *c, const struct run_tally *t, long rows)
{
	char work[PATH_MAX], dirs[PATH_MAX + 1024], name[32], a[32], b[32], d[32], e[32];

	campaign_abs(c->work, work, sizeof(work));
	engine_afl_folders(c, work, dirs, sizeof(dirs));
	printf("\n== %s: afl-fuzz exit status %d\n", c->target, t->rc);
	if (c->kind == CAMPAIGN_KERNEL)
		printf("   tree:    %s (Linux %s)\n", c->ktree, c->kversion);
	for (int k = 0; k < c->o->jobs; k++) {
		char stats[PATH_MAX + 64], crashes[PATH_MAX + 64];
		size_t len;
		char *text;

		engine_afl_name(c, k, name, sizeof(name));
		path_fmt(stats, sizeof(stats), "%s/afl/%s/fuzzer_stats", c->work, name);
		path_fmt(crashes, sizeof(crashes), "%s/afl/%s/crashes", c->work, name);
		text = status_tail(stats, 1 << 16, &len);
		if (!text)
			continue;
		printf("   %s: exec/s %s, corpus %s, edges %s, stability %s, crashes %ld\n", name,
		       stat_of(text, "execs_per_sec", a, sizeof(a)),
		       stat_of(text, "corpus_count", b, sizeof(b)),
		       stat_of(text, "edges_found", d, sizeof(d)),
		       stat_of(text, "stability", e, sizeof(e)), crash_count(crashes));
		free(text);
	}
	printf("   queue:   %s/queue\n", dirs);
	printf("   crashes: %ld new this run, %ld in all, in %s/crashes/\n", t->new_crashes,
	       t->all_crashes, dirs);
	printf("   plot:    out/vmafuzz plot %s/afl/%s/plot_data (%ld rows)\n", c->work,
	       engine_afl_name(c, 0, name, sizeof(name)), rows);
	if (t->log)
		printf("   log:     %s\n", campaign_abs(t->log, work, sizeof(work)));
}
