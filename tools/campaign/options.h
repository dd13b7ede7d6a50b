/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of `vmafuzz fuzz` (./build.sh fuzz ends in it):
 *
 *   [--bug NAME]... [--afl|--plain] [--jobs N] [--seeds DIR] [TARGET] [SECONDS]
 *   [-- ENGINE FLAGS...]
 *
 * read into a struct with no other effect, so that tests/test_campaign.c
 * can check every case. TARGET and SECONDS come in either order: a word
 * that names a target is TARGET; one that starts like a number, or comes
 * once the target is known, is SECONDS. Numbers are read strictly: digits
 * only, from 1 to their limit; anything else ("0", "1.5", "-5", "abc", an
 * overflow) is a usage error that names the word.
 */
#ifndef VMAFUZZ_CAMPAIGN_OPTIONS_H
#define VMAFUZZ_CAMPAIGN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#define CAMPAIGN_MAX_BUGS 16
#define CAMPAIGN_MAX_SECONDS 2147483647L /* libFuzzer's -max_total_time is an int */
#define CAMPAIGN_MAX_JOBS 1024L
#define CAMPAIGN_SECONDS 600L /* without SECONDS */

struct campaign_opts {
	bool help, afl, plain;
	long jobs;	    /* 1 without --jobs */
	long seconds;	    /* CAMPAIGN_SECONDS without SECONDS */
	const char *target; /* NULL: the default; maybe no target at all */
	const char *seeds;  /* --seeds DIR, else NULL */
	const char *bugs[CAMPAIGN_MAX_BUGS];
	int nbugs;
	char **engine; /* the words after "--" (into argv) */
	int nengine;
};

/* Whether @s is a whole number from 1 to @max (digits only), into *@n. */
bool campaign_number(const char *s, long max, long *n);

/*
 * Read argv[1..@argc-1] into @o. @is_target says whether a word names a
 * target. 0, or 2 with the reason (one line, no newline) in @err.
 */
int campaign_parse(int argc, char **argv, bool (*is_target)(const char *word),
		   struct campaign_opts *o, char *err, size_t len);

#endif
