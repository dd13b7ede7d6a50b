/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run of `vmafuzz fuzz` is, worked out from its options and the
 * source tree (the current directory) before anything is built: the
 * target and its kind, its twin (the model target whose seeds, dictionary
 * and mutator it uses: itself for a model target), the engine build and
 * the folders. Targets are found as the Makefile finds them:
 * fuzz/targets/fuzz_*.c (the model's), kernel/<backend>/kfuzz_*.c (built
 * by ./build.sh kernel into out/kernel/<tree's key>/, the tree in use's:
 * its builds are named so, and stay that tree's when another is chosen
 * later) and live/fuzz_*.c (fuzz_conform,
 * libFuzzer only); a kernel or live target's source names its twin in a
 * line "vmafuzz-twin: NAME".
 */
#ifndef VMAFUZZ_CAMPAIGN_PLAN_H
#define VMAFUZZ_CAMPAIGN_PLAN_H

#include "options.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

enum campaign_kind { CAMPAIGN_MODEL, CAMPAIGN_KERNEL, CAMPAIGN_LIVE };

struct campaign {
	const struct campaign_opts *o;
	enum campaign_kind kind;
	char target[64], twin[64];
	char bug[512];	      /* planted bugs' build: sorted, joined by '+'; "" for none */
	char build[600];      /* engine build under out/: libfuzzer, bugs/<bug>/afl, ... */
	char merge_build[96]; /* the build without planted bugs that merges the corpus */
	char ktree[PATH_MAX]; /* a kernel target: the tree in use's path, and its version */
	char kversion[64];
	char work[PATH_MAX];  /* <work root>/<target> */
	char seeds[PATH_MAX]; /* the seeds' folder */
	char dict[PATH_MAX];  /* dict/<twin>.dict, "" when there is none */
	char exe[PATH_MAX];   /* this binary, for vmafuzz statsd */
	char mark[64];	      /* the run's mark (guard.h), set by the caller */
	long make_jobs;	      /* make -j */
	long every;	      /* seconds between status lines */
};

/* Whether @name is a target of the source tree. */
bool campaign_is_target(const char *name);

/* The targets of the source tree, after a blank each, onto @f. */
void campaign_list_targets(FILE *f);

/*
 * Fill @c from @o (all but mark, make_jobs and every). @planted is the planted bugs' names, one per
 * blank (only read when --bug is given); @cwd is where relative paths of the command line and
 * VMAFUZZ_WORK_ROOT start. 0, or 2 after a message on stderr.
 */
int campaign_plan(const struct campaign_opts *o, const char *planted, const char *cwd,
		  struct campaign *c);

/* @path from / (the current directory's when relative) into @buf. */
const char *campaign_abs(const char *path, char *buf, size_t len);

/* The engine binary, out/<build>/<target>, into @buf. */
void campaign_binary(const struct campaign *c, const char *build, char *buf, size_t len);

#endif
