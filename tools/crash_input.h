/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program a command reads from a file (print, triage, minimize,
 * regress, repro): a fuzz input's bytes, a text program (.txt), or the
 * program a log holds (what vmafuzz fuzz printed of a crash it could not
 * save, or a failure report: prog_log_program). A file that holds no
 * program is refused by name rather than run as an empty one: an empty
 * file, a text program of nothing but blank lines and comments. So is a
 * text program that does not parse (file, line and column). Each refusal
 * is one message on stderr, and the command exits 2.
 */
#ifndef VMAFUZZ_CRASH_INPUT_H
#define VMAFUZZ_CRASH_INPUT_H

#include "fuzz/targets/target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a log's program was: its first line and how many the log holds
 * (0 and 0 for a file that is no log). */
struct crash_input_log {
	unsigned line, programs;
};

/* The bytes of the program in @path for target @t (malloc'd), their number
 * into *@size, and where it was into *@log (may be NULL); NULL after a
 * message naming @path and its line, prefixed by "vmafuzz @cmd:" where the
 * message is not a parse error's own. */
uint8_t *crash_input_load(const char *cmd, const struct fuzz_target *t, const char *path,
			  size_t *size, struct crash_input_log *log);

/* The file a replay driver runs for @path into @run (@len bytes): @path
 * itself, or for a log a new temporary file of its program's bytes (*@temp
 * set: the caller removes it); false after crash_input_load's message. */
bool crash_input_runnable(const char *cmd, const struct fuzz_target *t, const char *path, char *run,
			  size_t len, bool *temp);

#endif
