/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replaying inputs without a fuzzing engine: files or directories (every
 * regular file inside, sorted by name, not recursive). Text programs
 * (name ending in .txt) are compiled first. Used by the standalone replay
 * driver and by `vmafuzz replay`.
 */
#ifndef VMAFUZZ_REPLAY_H
#define VMAFUZZ_REPLAY_H

#include "fuzz/targets/target.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Read a whole file; NULL with a message on @err_out on error. Caller frees. */
uint8_t *read_file(const char *path, size_t *size, FILE *err_out);

/* Compile a text program for target @t into bytes (caller frees); NULL with a
 * message naming file, line and column on @err_out on error. */
uint8_t *compile_text(const struct fuzz_target *t, const char *text, const char *name, size_t *size,
		      FILE *err_out);

/* Load an input: bytes as they are, a compiled .txt program, or the first
 * program of a log (prog_log_program: what vmafuzz fuzz printed of a crash
 * it could not save, or a failure report), compiled; errors name the
 * file's line. */
uint8_t *load_input(const struct fuzz_target *t, const char *path, size_t *size, FILE *err_out);

/* Run every input named by @paths; returns 0, or 2 when a path is unusable.
 * A failing input aborts with its report, as under an engine. */
int replay_paths(const struct fuzz_target *t, int npaths, char **paths, bool verbose);

#endif
