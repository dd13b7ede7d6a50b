/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The builds a run needs (make.h).
 */
#include "make.h"
#include "guard.h"
#include "options.h"
#include "strv.h"
#include "tools/file_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long make_jobs(const char *env)
{
	long n, cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (!env)
		return cores > 0 ? cores : 2;
	if (campaign_number(env, CAMPAIGN_MAX_JOBS, &n))
		return n;
	fprintf(stderr, "vmafuzz fuzz: JOBS takes a whole number from 1 to %ld, not '%s'\n",
		CAMPAIGN_MAX_JOBS, env);
	return 0;
}

static int run_make(struct strv *v, const char *out)
{
	struct guard_io io = {.out = out, .null_in = true};
	pid_t pid = guard_spawn(v->v, &io);

	return pid < 0 ? 127 : guard_wait(pid);
}

bool make_goals(long jobs, const char *const goals[])
{
	const char *v = getenv("V");
	struct strv cmd = {0};
	char line[2048];
	int rc;

	strv_add(&cmd, "make");
	strv_addf(&cmd, "-j%ld", jobs);
	strv_add(&cmd, "--no-print-directory");
	/* make's own progress lines are short; V=1 shows the commands */
	if (!v || strcmp(v, "1"))
		strv_add(&cmd, "-s");
	for (int i = 0; goals[i]; i++)
		strv_add(&cmd, goals[i]);
	rc = run_make(&cmd, NULL);
	if (rc) {
		strv_join(&cmd, line, sizeof(line));
		fprintf(stderr, "vmafuzz fuzz: %s failed (status %d)\n", line, rc);
	}
	strv_free(&cmd);
	return rc == 0;
}

char *make_say(const char *goal)
{
	struct strv cmd = {0};
	char out[PATH_MAX];
	size_t len;
	char *text = NULL;

	path_fmt(out, sizeof(out), "%s/make-%s.out", guard_tmpdir(), goal);
	strv_add(&cmd, "make");
	strv_add(&cmd, "-s");
	strv_add(&cmd, "--no-print-directory");
	strv_add(&cmd, goal);
	if (run_make(&cmd, out) == 0)
		text = file_read(out, &len);
	else
		fprintf(stderr, "vmafuzz fuzz: make %s failed\n", goal);
	strv_free(&cmd);
	unlink(out);
	if (text)
		text[strcspn(text, "\n")] = 0;
	return text;
}
