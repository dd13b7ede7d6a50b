/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the sanitized replay driver on one crash file, as a subprocess
 * in its own process group: stdin and stdout on /dev/null, stderr captured
 * (at most 4 MiB kept), the whole group killed after a timeout. What it
 * printed is bucketed by crash_classify. UBSan is asked for stacks and the
 * name of its check; options in the environment (UBSAN_OPTIONS,
 * ASAN_OPTIONS) come after those and win.
 */
#ifndef VMAFUZZ_CRASH_RUN_H
#define VMAFUZZ_CRASH_RUN_H

#include "crash_classify.h"

#include <stdbool.h>

/*
 * Run @driver on @file and bucket it into @r, killing it after @timeout
 * seconds. Returns false, with a message on stderr, when the driver cannot
 * be run at all. With @log non-NULL, *log receives the captured stderr
 * (caller frees).
 */
bool crash_run(const char *driver, const char *file, unsigned timeout, struct crash_result *r,
	       char **log);

/* An invariant or assertion failure has no stack; run @file again with
 * AddressSanitizer handling the abort to find r->frames and, unless the
 * report named it, r->site (where the check fired, below the reporting
 * code; crash_stack.h). Nothing when @r has frames already, does not
 * fail, or the second run lands elsewhere. */
void crash_locate(const char *driver, const char *file, unsigned timeout, struct crash_result *r);

#endif
