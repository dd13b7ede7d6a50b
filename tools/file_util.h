/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files for the commands: whether a path is a directory, the source tree,
 * writing bytes to a new temporary file or a named one (in place, or whole
 * or not at all), and removing a folder with all in it. Writers report
 * their errors on stderr ("vmafuzz: cannot write PATH: why") and return
 * false.
 */
#ifndef VMAFUZZ_FILE_UTIL_H
#define VMAFUZZ_FILE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A path from @fmt into @buf; a path longer than @len cannot be used, and
 * ends the program (status 2) with a message. */
void path_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether @path is a directory (or a link to one). */
bool path_is_dir(const char *path);

/* Write @size bytes to a new file $TMPDIR/vmafuzz-XXXXXX (TMPDIR unset or
 * empty: /tmp); its path into @path (size @len, at least 64). */
bool crash_write_temp(const uint8_t *data, size_t size, char *path, size_t len);

/* Write @size bytes to @path ("-": stdout), replacing what was there. */
bool crash_write_file(const char *path, const uint8_t *data, size_t size);

/*
 * Replace @path by @size bytes so that a crash at any moment leaves either
 * the old file or the new one whole: they go to a dotfile beside it, which
 * is flushed to the disk (fsync) and renamed over @path, and the rename is
 * flushed too. A failure leaves @path as it was, removes the dotfile and
 * keeps errno (ENOSPC: the disk is full).
 */
bool file_write_atomic(const char *path, const void *data, size_t size);

/* Whether errno value @e says the disk (or the user's quota) is full. */
bool file_error_full(int e);

/* The bytes of @path (NUL-terminated, malloc'd), their number into
 * @size; NULL when it cannot be read. */
char *file_read(const char *path, size_t *size);

/* Make folder @path and those above it that are missing (mkdir -p). */
bool dir_make(const char *path);

/* Flush folder @dir's entries (a rename or a new file in it) to the disk. */
bool dir_sync(const char *dir);

/* Remove @path and, for a folder, all in it (links are not followed);
 * true when nothing of it is left. */
bool tree_remove(const char *path);

/* The source tree into @buf: the current directory when it holds corpus/,
 * else the folder above this binary's (out/vmafuzz -> .) when that does. */
bool source_root(char *buf, size_t len);

#endif
