/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A libFuzzer run (the default): build the engine build and the one that
 * merges, copy the seeds into WORK/corpus, record the build in
 * WORK/crashes/.builds, run the engine with its whole output in
 * WORK/logs/<time>-<build>.log (WORK/fuzz.log: a link to the last) while
 * status lines come, record the crashes it found, merge the corpus and
 * say how it went (summary.h). ASAN_OPTIONS defaults to a smaller
 * quarantine.
 */
#ifndef VMAFUZZ_CAMPAIGN_RUN_LIBFUZZER_H
#define VMAFUZZ_CAMPAIGN_RUN_LIBFUZZER_H

#include "plan.h"

/* The engine's exit status, or 2 when the run could not start. */
int run_libfuzzer(const struct campaign *c);

#endif
