/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buckets: what a run of the sanitized replay driver on one crash file
 * says, read from its stderr and wait status. The bucket is the identifier
 * crash files are grouped by (triage), kept while shrinking (minimize) and
 * named after (regress):
 *
 *   vmafuzz: kernel report: <title> at F:L       KERNEL <title> (a guest's kernel)
 *   vmafuzz: invariant <ID> failed: ...          <ID>
 *   vmafuzz: model assertion failed at F:L ...   MODEL_ASSERT F:L
 *   ==N==ERROR: AddressSanitizer: <kind> ...     AddressSanitizer: <kind> in f0 <- f1 <- f2
 *   F:L:C: runtime error: ...                    UndefinedBehaviorSanitizer: <check> in ...
 *   ==N==ERROR: LeakSanitizer: ...               LeakSanitizer: detected memory leaks in ...
 *   killed after the timeout                     timeout
 *   exit status 0                                no longer fails
 *   a signal or exit status, nothing else        signal SIGSEGV, exit status 1, ...
 *
 * where f0..f2 are the names of the top three stack frames in the model
 * (crash_stack.h says which those are), so a bucket is the same across
 * builds. F is a path from src/ or fuzz/ on.
 */
#ifndef VMAFUZZ_CRASH_CLASSIFY_H
#define VMAFUZZ_CRASH_CLASSIFY_H

#include "crash_result.h"

#include <stdbool.h>

/* Bucket a driver's stderr @log, its wait status and whether it was killed
 * after the timeout. */
void crash_classify(const char *log, int wstatus, bool timed_out, struct crash_result *r);

#endif
