/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files for the commands: whether a path is a directory, and writing bytes
 * to a new temporary file or a named one. Writers report their errors on
 * stderr ("vmafuzz: cannot write PATH: why") and return false.
 */
#ifndef VMAFUZZ_FILE_UTIL_H
#define VMAFUZZ_FILE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether @path is a directory (or a link to one). */
bool path_is_dir(const char *path);

/* Write @size bytes to a new file $TMPDIR/vmafuzz-XXXXXX (TMPDIR unset or
 * empty: /tmp); its path into @path (size @len, at least 64). */
bool crash_write_temp(const uint8_t *data, size_t size, char *path, size_t len);

/* Write @size bytes to @path ("-": stdout), replacing what was there. */
bool crash_write_file(const char *path, const uint8_t *data, size_t size);

#endif
