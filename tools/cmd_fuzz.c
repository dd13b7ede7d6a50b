/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz fuzz [--bug NAME]... [--afl|--plain] [--jobs N] [--seeds DIR]
 *              [TARGET] [SECONDS] [-- ENGINE FLAGS...]
 *
 * A fuzzing run, as ./build.sh fuzz starts it: from the source tree (the
 * current directory when it holds corpus/, else the one above this
 * binary's), it builds what the run needs with make and runs libFuzzer
 * (tools/campaign/run_libfuzzer.h) or AFL++ (run_afl.h). The parts are in
 * tools/campaign/: the options, what the run is (plan.h), the engines'
 * command lines, the processes and their end (guard.h), the engine's
 * output (engine_out.h), the status line, the build records in the crash
 * folders, a full disk (disk.h, unsaved.h), the corpus merge, the summary.
 */
#include "cmd.h"
#include "file_util.h"
#include "tools/campaign/guard.h"
#include "tools/campaign/make.h"
#include "tools/campaign/options.h"
#include "tools/campaign/plan.h"
#include "tools/campaign/run_afl.h"
#include "tools/campaign/run_libfuzzer.h"
#include "tools/campaign/status.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Into the source tree; @cwd keeps where this started ("" when that is
 * the tree, so that paths stay as they were written). */
static bool enter_tree(char *cwd, size_t len)
{
	char root[PATH_MAX], here[PATH_MAX], there[PATH_MAX];

	if (!getcwd(cwd, len) || !source_root(root, sizeof(root)) || chdir(root) ||
	    access("Makefile", R_OK)) {
		fprintf(stderr, "vmafuzz fuzz: cannot find the source tree (a folder with corpus/ "
				"and the Makefile: here, or above this binary's)\n");
		return false;
	}
	if (realpath(cwd, here) && getcwd(there, sizeof(there)) && !strcmp(here, there))
		cwd[0] = 0;
	return true;
}

int cmd_fuzz(int argc, char **argv)
{
	char cwd[PATH_MAX], err[512], mark[64];
	struct campaign_opts o;
	struct campaign c;
	struct timespec now;
	char *planted = NULL;
	long jobs, every;
	int rc;

	if (!enter_tree(cwd, sizeof(cwd)))
		return 2;
	rc = campaign_parse(argc, argv, campaign_is_target, &o, err, sizeof(err));
	if (rc)
		return cmd_usage_error("fuzz", "%s", err);
	if (o.help) {
		const struct command *cmd = cmd_find("fuzz");

		printf("usage: vmafuzz %s\n\n%s\n", cmd->usage, cmd->help);
		return 0;
	}
	jobs = make_jobs(getenv("JOBS"));
	every = status_every(getenv("VMAFUZZ_STATUS_EVERY"), isatty(1));
	if (!jobs || !every)
		return 2;
	/* the run's mark: this process and when it started */
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(mark, sizeof(mark), "%d-%lld%09ld", (int)getpid(), (long long)now.tv_sec,
		 now.tv_nsec);
	if (!guard_start(mark))
		return 2;
	if (o.nbugs && !(planted = make_say("list-planted"))) {
		guard_end();
		return 2;
	}
	rc = campaign_plan(&o, planted, cwd[0] ? cwd : NULL, &c);
	free(planted);
	if (!rc) {
		snprintf(c.mark, sizeof(c.mark), "%s", mark);
		c.make_jobs = jobs;
		c.every = every;
		rc = o.afl ? run_afl(&c) : run_libfuzzer(&c);
	}
	fflush(stdout);
	guard_end();
	return rc;
}
