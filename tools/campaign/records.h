/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's records in its crash folders: which crash files were there
 * when it started (to tell the new ones), and the folder's `.builds`
 * (tools/triage/crash_build.h), which says which build found each crash.
 * A run writes its "* BUILD from=TIME" line before the engine can write a
 * crash, so that a crash is placed even when the run is killed (kill -9),
 * and a "NAME BUILD" line for each new crash file when the engine ends.
 * .builds is rewritten whole (file_write_atomic), never appended to.
 */
#ifndef VMAFUZZ_CAMPAIGN_RECORDS_H
#define VMAFUZZ_CAMPAIGN_RECORDS_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/* The crash files of a folder at one time: name and inode (a file that
 * an engine writes again keeps its inode; a folder AFL++ moves aside
 * and makes again has new ones). */
struct crash_set {
	char **names;
	ino_t *inos;
	int n;
};

/* The crash files of @dir (dotfiles and AFL++'s README.txt aside; none
 * when there is no such folder). */
void crash_set_take(const char *dir, struct crash_set *s);
void crash_set_free(struct crash_set *s);
/* The crash files of @dir now. */
long crash_count(const char *dir);
/* Those of them not in @before; their names into @fresh when not NULL. */
long crash_count_new(const char *dir, const struct crash_set *before, struct crash_set *fresh);

/* Now, on the clock that stamps @dir's files (a new file's mtime). */
bool records_clock(const char *dir, struct timespec *t);

/* Append to @dir/.builds the line that @build finds the crashes written
 * from now on; the time is the folder's own clock (a new file's mtime),
 * into @from when not NULL. False after a message. */
bool records_run_line(const char *dir, const char *build, struct timespec *from);

/* Append a "NAME BUILD" line for each name of @fresh. */
bool records_name_lines(const char *dir, const char *build, const struct crash_set *fresh);

/* Append @lines (each ended by a newline) to @dir/.builds, rewritten whole;
 * false after a message naming it. */
bool records_append(const char *dir, const char *lines);

/* Remove @dir/.builds (and what a writer killed left of one). */
void records_forget(const char *dir);

#endif
