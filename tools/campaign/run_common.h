/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer and the AFL++ runs both do to set up: the work
 * folder, the seeds in the corpus, the engine's log.
 */
#ifndef VMAFUZZ_CAMPAIGN_RUN_COMMON_H
#define VMAFUZZ_CAMPAIGN_RUN_COMMON_H

#include "plan.h"

#include <stdbool.h>
#include <stddef.h>

/* Make WORK/corpus, WORK/crashes (into @crashes) and the seeds' folder;
 * false after a message. */
bool run_folders(const struct campaign *c, char *crashes, size_t len);

/* Copy the seeds the corpus lacks into WORK/corpus (each whole). */
bool run_copy_seeds(const struct campaign *c);

/* A new log WORK/logs/<date>-<time>-<build>.log into @log; with @link,
 * WORK/fuzz.log becomes a link to it. False after a message. */
bool run_log(const struct campaign *c, const char *build, bool link, char *log, size_t len);

#endif
