/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crash files a list of paths names, as fuzzing engines leave them: a
 * regular file as it is; a directory as an AFL++ output folder
 * (<dir>/<instance>/crashes/id:*, or <dir>/crashes/id:*), or a libFuzzer
 * artifact folder (its crash-*, leak-*, timeout-* and oom-* files), and
 * its folders named for a target as a batch run lays them out
 * (<dir>/<target>/crash-*, ClusterFuzzLite's artifacts/<target>/<sanitizer>/
 * crash-*; in each, the same layouts or every file); a directory with none
 * of those gives every regular file in it. README.txt, hidden files and
 * ClusterFuzzLite's <crash>.summary are skipped. Directories are not
 * searched further down.
 */
#ifndef VMAFUZZ_CRASH_COLLECT_H
#define VMAFUZZ_CRASH_COLLECT_H

#include "fuzz/targets/target.h"

#include <stddef.h>

struct crash_file {
	char *path;
	size_t size;
	const struct fuzz_target *target;
};

/*
 * The crash files named by @paths, sorted by path, into *@files (free with
 * crash_files_free) and *@nfiles. The target of each file is @t, else the
 * one its path (or text) names (crash_target_of). Returns 0, or 2 after a
 * message (prefixed by "vmafuzz @cmd:") on stderr: a path that does not
 * exist or is neither file nor directory, or a file of no known target.
 */
int crash_collect(const char *cmd, int npaths, char **paths, const struct fuzz_target *t,
		  struct crash_file **files, size_t *nfiles);
void crash_files_free(struct crash_file *files, size_t n);

#endif
