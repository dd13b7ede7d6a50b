/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which build found a crash file. `vmafuzz fuzz` (./build.sh fuzz) keeps, in
 * each crash folder it fuzzes into, a file `.builds` of two kinds of lines:
 *
 *   NAME BUILD              BUILD found the crash file NAME
 *   * BUILD from=S.N        BUILD found the crash files written (their
 *                           mtime) at S seconds and N nanoseconds since the
 *                           epoch or later
 *
 * BUILD is the engine build's folder under out/ (libfuzzer, libfuzzer-plain,
 * afl, kernel/libfuzzer, kernel/afl, bugs/<bug>/libfuzzer, bugs/<bug>/afl).
 * A run writes its "*" line before the engine starts, so that a crash is
 * placed even when the run is killed, and a NAME line for each crash file
 * new when it ends. For a file, the last NAME line naming it counts; a file
 * no NAME line names has the build of the last "*" line whose time is not
 * after the file's. Each build has a replay build beside it (replay,
 * kernel/replay, bugs/<bug>/replay), which the crash commands use for that
 * file unless --replay says otherwise.
 *
 * A text program names its build itself, in a comment line
 * "# build: BUILD" (vmafuzz minimize -o FILE.txt writes it; so does
 * vmafuzz fuzz in a crash it prints because it could not save it), which
 * wins over its folder's .builds: a program made from a crash keeps the
 * crash's build wherever it is saved, and nothing is written beside it. In
 * a log, the line counts in its first program (prog_log_program).
 */
#ifndef VMAFUZZ_CRASH_BUILD_H
#define VMAFUZZ_CRASH_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* The build recorded for the crash file at @path into @buf (its own
 * "# build:" line for a text program, else its folder's .builds); false if
 * none is recorded for it. */
bool crash_build_of(const char *path, char *buf, size_t len);

/* The same for a file named @name whose mtime is @mtime, from the text of
 * a .builds file (@text, @size bytes). */
bool crash_build_in_text(const char *text, size_t size, const char *name,
			 const struct timespec *mtime, char *buf, size_t len);

/* The comment line of a text program that names its build. */
#define CRASH_BUILD_LINE "# build: "

/* The "*" line for @build from time @from, with its newline, into @buf. */
bool crash_build_run_line(char *buf, size_t len, const char *build, const struct timespec *from);

/* The builds of the crash files in folder @dir (dotfiles and AFL++'s
 * README.txt aside): 0 (none), 1 (one, into @buf) or 2 (more than one;
 * the first into @buf). */
int crash_builds_in(const char *dir, char *buf, size_t len);

/* The replay build's folder under out/ for engine build @build into @buf
 * ("bugs/x/afl" -> "bugs/x/replay"); false if @build is not one of the
 * forms above. */
bool crash_build_replay(const char *build, char *buf, size_t len);

/* How to build that replay build, for a message ("make bug-replay BUG=x"). */
const char *crash_build_how(const char *replay, char *buf, size_t len);

#endif
