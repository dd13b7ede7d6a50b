/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A libFuzzer run (run_libfuzzer.h).
 */
#include "run_libfuzzer.h"
#include "engine_cmd.h"
#include "guard.h"
#include "make.h"
#include "merge.h"
#include "records.h"
#include "run_common.h"
#include "status.h"
#include "status_loop.h"
#include "summary.h"
#include "tools/file_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool build(const struct campaign *c)
{
	char bin[PATH_MAX], merge_bin[PATH_MAX], bug[600];
	const char *bug_goals[] = {"bug-libfuzzer", "bug-replay", bug, NULL};
	const char *goals[] = {bin, merge_bin, "corpus", NULL};

	campaign_binary(c, c->build, bin, sizeof(bin));
	campaign_binary(c, c->merge_build, merge_bin, sizeof(merge_bin));
	snprintf(bug, sizeof(bug), "BUG=%s", c->bug);
	/* a planted bug's build (and its replay build, for triage) */
	if (c->bug[0] && !make_goals(c->make_jobs, bug_goals))
		return false;
	return make_goals(c->make_jobs, goals);
}

/* Why this build, for the first line. */
static const char *what(const struct campaign *c, char *buf, size_t len)
{
	if (c->bug[0])
		snprintf(buf, len, "planted bug %s, structure-aware mutator on", c->bug);
	else if (c->o->plain)
		snprintf(buf, len, "libFuzzer's own mutations only (--plain)");
	else
		snprintf(buf, len, "structure-aware mutator on; --plain: off");
	return buf;
}

int run_libfuzzer(const struct campaign *c)
{
	char crashes[PATH_MAX], log[PATH_MAX], abs[PATH_MAX], line[8192], why[600];
	struct status_loop l = {.lines = true};
	struct guard_io io = {.null_in = true, .pass = GUARD_PASS_TERM};
	struct crash_set before, fresh;
	struct merge_result m;
	struct run_tally t = {0};
	struct strv cmd = {0};

	if (!build(c) || !run_folders(c, crashes, sizeof(crashes)) || !run_copy_seeds(c))
		return 2;
	printf("Fuzzing %s for %lds (%s); crashes go to %s/\n", c->target, c->o->seconds,
	       what(c, why, sizeof(why)), campaign_abs(crashes, abs, sizeof(abs)));
	if (c->kind == CAMPAIGN_KERNEL)
		printf("   kernel tree: %s (Linux %s)\n", c->ktree, c->kversion);
	/* AddressSanitizer keeps 256 MB of freed memory by default to catch
	 * late uses; a quarter of that still catches them in programs this
	 * small and keeps a run well under libFuzzer's RSS limit. */
	setenv("ASAN_OPTIONS", "quarantine_size_mb=64", 0);
	engine_libfuzzer(c, &cmd);
	strv_join(&cmd, line, sizeof(line));
	printf("+ ASAN_OPTIONS=%s %s\n", getenv("ASAN_OPTIONS"), line);
	crash_set_take(crashes, &before);
	if (run_log(c, c->build, true, log, sizeof(log)) &&
	    records_run_line(crashes, c->build, NULL)) {
		printf("   engine log: %s\n", campaign_abs(log, abs, sizeof(abs)));
		io.out = log;
		l.start = time(NULL);
		l.pid = guard_spawn(cmd.v, &io);
	}
	strv_free(&cmd);
	if (l.pid <= 0) {
		crash_set_free(&before);
		return 2;
	}
	l.source = log;
	l.seconds = c->o->seconds;
	l.every = c->every;
	l.ndirs = 1;
	l.dirs = &crashes;
	l.before = &before;
	t.rc = status_loop_run(&l);
	t.seconds = (long)(time(NULL) - l.start);
	t.new_crashes = crash_count_new(crashes, &before, &fresh);
	records_name_lines(crashes, c->build, &fresh);
	crash_set_free(&fresh);

	corpus_merge(c, &m);
	/* what the merge found is new too */
	t.new_crashes = crash_count_new(crashes, &before, NULL);
	t.all_crashes = crash_count(crashes);
	t.log = log;
	crash_set_free(&before);
	summary_libfuzzer(c, &t, &m);
	return t.rc;
}
