/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options every crash command (triage, minimize, regress) takes:
 *
 *   --target T, -t T   the target of the files (default: from each path)
 *   --replay DIR       the replay drivers to use: DIR/<target> (default:
 *                      the replay build of the build that found the file,
 *                      as its folder records it (crash_build.h), else
 *                      replay/ beside the vmafuzz binary)
 *   --timeout S        kill a driver run after S seconds, 1..3600 (20)
 *
 * Errors are usage errors of the command (cmd_util.h), exit status 2.
 */
#ifndef VMAFUZZ_CRASH_OPTS_H
#define VMAFUZZ_CRASH_OPTS_H

#include "fuzz/targets/target.h"

#include <stdbool.h>
#include <stddef.h>

#define CRASH_DEFAULT_TIMEOUT 20 /* seconds */

struct crash_opts {
	const struct fuzz_target *target; /* NULL: from the path */
	const char *replay_dir;		  /* NULL: replay/ beside this binary */
	unsigned timeout;		  /* seconds */
};

/* Take one shared option at argv[*i] (advancing *i past its argument):
 * 1 if taken, 0 if argv[*i] is not one, -1 after a usage error of @cmd. */
int crash_opt(const char *cmd, int argc, char **argv, int *i, struct crash_opts *o);

/* The replay driver for crash file @path (NULL: none in particular) of
 * target @t under @o into @buf; false after a message naming the path
 * tried, and how to build it, on stderr. */
bool crash_driver(const char *cmd, const struct crash_opts *o, const struct fuzz_target *t,
		  const char *path, char *buf, size_t len);

#endif
