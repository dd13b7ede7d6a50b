/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The builds a run needs, by the Makefile of the source tree (the current
 * directory): make -j$JOBS (default: the cores) --no-print-directory, -s
 * unless V=1, in a group of the run's (guard.h).
 */
#ifndef VMAFUZZ_CAMPAIGN_MAKE_H
#define VMAFUZZ_CAMPAIGN_MAKE_H

#include <stdbool.h>

/* JOBS from the environment (@env, NULL when unset), else the cores; 0
 * after a message when it is not a whole number from 1 to 1024. */
long make_jobs(const char *env);

/* Build @goals (NULL-ended; "BUG=x" and the like too); false after a
 * message. */
bool make_goals(long jobs, const char *const goals[]);

/* make -s @goal's output (its first line), malloc'd; NULL after a message. */
char *make_say(const char *goal);

#endif
