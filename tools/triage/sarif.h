/* SPDX-License-Identifier: GPL-2.0 */
/*
 * triage --sarif: a SARIF 2.1.0 log for code scanning, one result per
 * bucket. Each bucket maps to a short, stable rule id ("invariant/MT_GAP",
 * "asan/heap-use-after-free", "model-assert", "signal/SIGSEGV", ...) whose
 * help comes from the invariant catalogue (check_ids.h) or says what the
 * sanitizer or the death means; the result carries a partial fingerprint
 * that is a hash of the bucket, so the same bug found again is the same
 * alert; messages carry no heap, stack or code addresses; the run names its
 * automation (a category, "vmafuzz-triage" by default).
 *
 * A result's location is its site: the check that fired or the access a
 * sanitizer caught. A file of this tree is relative to %SRCROOT% (the
 * repository, as code scanning resolves it); a kernel tree's file to a base
 * id of its own, KSRC (KSRC_2, ... for more trees), which the run's
 * originalUriBaseIds define as the tree's root, or describe when the root
 * is not known (a guest kernel's report). A result without a site has no
 * location and says why, in its message and in properties.noLocation.
 */
#ifndef VMAFUZZ_SARIF_H
#define VMAFUZZ_SARIF_H

#include "crash_result.h"

#include <stddef.h>
#include <stdio.h>

struct sarif_result {
	const char *bucket;	       /* triage's bucket */
	const char *summary;	       /* the failure line */
	const char *level;	       /* "error", "warning" or "note" */
	const struct crash_site *site; /* where it failed (crash_result.h) */
	const char *const *paths;      /* the bucket's files, smallest first */
	size_t npaths;
};

/* The rule id of @bucket into @buf. */
const char *sarif_rule_id(const char *bucket, char *buf, size_t len);

/* @s with every address a sanitizer prints (0x and 12 hex digits starting
 * 5, 6 or 7: PIE code, heap, stack and mmap on x86-64) as "<addr>". */
const char *sarif_no_addresses(const char *s, char *buf, size_t len);

/* The whole log of @n results to @out, its run's automation id
 * "@category/" (one category per kind of run: code scanning keeps one
 * analysis per category and commit). */
void sarif_print(FILE *out, const char *category, const struct sarif_result *r, size_t n);

#endif
