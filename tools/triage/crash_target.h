/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which fuzz target a crash file belongs to, and where that target's
 * sanitized replay driver is. A file's target is named by a path component
 * (corpus/fuzz_mtree/, out/work/fuzz_mtree/crashes/, fuzz_mtree-x.bin) or,
 * for a text program, by its `target` line (a log's program's too, when
 * the path names none: prog_log_program). The drivers are built by
 * './build.sh replay' into replay/ beside the vmafuzz binary.
 */
#ifndef VMAFUZZ_CRASH_TARGET_H
#define VMAFUZZ_CRASH_TARGET_H

#include "fuzz/targets/target.h"

#include <stdbool.h>
#include <stddef.h>

/* The target a path component names (followed by '/', '.', '-' or the
 * end); NULL if none. */
const struct fuzz_target *target_from_path(const char *path);

/* The same, but a text program (.txt) by its `target` line first, and a
 * log whose path names no target by its program's. */
const struct fuzz_target *crash_target_of(const char *path);

/* crash_target_of for subcommand @cmd, with one message on stderr when
 * there is none: @path cannot be read, its `target` line names no target
 * (with the closest name), or nothing in it names one. */
const struct fuzz_target *cmd_file_target(const char *cmd, const char *path);

/* The folder of this binary (out/ in a build) into @buf. */
bool tool_dir(char *buf, size_t len);

/* The replay driver of @target: <dir>/<target>, or with @dir NULL the one
 * beside this binary, <dir of /proc/self/exe>/replay/<target>. False when it
 * is not there (or not executable); @buf holds the path tried. */
bool replay_driver(const char *dir, const char *target, char *buf, size_t len);

#endif
