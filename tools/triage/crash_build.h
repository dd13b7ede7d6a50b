/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which build found a crash file. `./build.sh fuzz` writes, into each crash
 * folder it fuzzes into, a file `.builds` with one line per crash file it
 * saw appear: "NAME BUILD", BUILD the engine build's folder under out/
 * (libfuzzer, libfuzzer-plain, afl, kernel/libfuzzer, kernel/afl,
 * bugs/<bug>/libfuzzer, bugs/<bug>/afl). Each such build has a replay
 * build beside it (replay, kernel/replay, bugs/<bug>/replay), which the
 * crash commands use for that file unless --replay says otherwise.
 */
#ifndef VMAFUZZ_CRASH_BUILD_H
#define VMAFUZZ_CRASH_BUILD_H

#include <stdbool.h>
#include <stddef.h>

/* The build recorded for the crash file at @path into @buf; false if its
 * folder records none for it. */
bool crash_build_of(const char *path, char *buf, size_t len);

/* Record in @path's folder's .builds that @build found it (a file made from
 * a crash, such as its minimized form, keeps the crash's build); false if
 * that file cannot be written. */
bool crash_build_record(const char *path, const char *build);

/* The builds recorded in folder @dir's .builds: 0 (none), 1 (one, into
 * @buf) or 2 (more than one; the first into @buf). */
int crash_builds_in(const char *dir, char *buf, size_t len);

/* The replay build's folder under out/ for engine build @build into @buf
 * ("bugs/x/afl" -> "bugs/x/replay"); false if @build is not one of the
 * forms above. */
bool crash_build_replay(const char *build, char *buf, size_t len);

/* How to build that replay build, for a message ("make bug-replay BUG=x"). */
const char *crash_build_how(const char *replay, char *buf, size_t len);

#endif
