/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for stored crashes: a file-name fragment from a bucket and short
 * content hashes (FNV-1a), as in corpus/regress/<target>/<slug>-<hash32>.txt.
 * Both are stable: the same bucket or bytes give the same name everywhere.
 */
#ifndef VMAFUZZ_CRASH_NAME_H
#define VMAFUZZ_CRASH_NAME_H

#include <stddef.h>
#include <stdint.h>

/* A file-name fragment for @bucket: its runs of letters and digits, lower
 * case, joined by '-', at most 48 characters ("x" when it has none). */
void crash_slug(const char *bucket, char *buf, size_t len);

uint32_t crash_hash32(const uint8_t *data, size_t n);
uint64_t crash_hash64(const uint8_t *data, size_t n);

#endif
