/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run says when it ends. libFuzzer:
 *
 *   == TARGET: libFuzzer exit status RC (what it means) after Ns
 *      exec/s:  R (N executions)
 *      corpus:  K inputs in WORK/corpus (merged from G)
 *      crashes: N new this run, M in all, in WORK/crashes/
 *      | the log's lines about the first crash
 *      triage:  how to look at them
 *      log:     the engine's log
 *
 * AFL++: the exit status, each instance's figures (fuzzer_stats), its
 * queues, crashes new and in all, plot_data's rows and the log. A crash
 * is new when its file was not in the folder when the run began.
 */
#ifndef VMAFUZZ_CAMPAIGN_SUMMARY_H
#define VMAFUZZ_CAMPAIGN_SUMMARY_H

#include "merge.h"
#include "plan.h"

struct run_tally {
	int rc;
	long seconds;
	long new_crashes, all_crashes;
	long unsaved; /* crashes that could not be saved, printed on stderr */
	const char *log;
};

/* Executions and exec/s of a libFuzzer run from its log @text: its final
 * stats (stat::...), else executions over @wall seconds, else its last
 * progress line; -1 when not known. */
void summary_rate(const char *text, size_t len, long wall, long *rate, long *units);

void summary_libfuzzer(const struct campaign *c, const struct run_tally *t,
		       const struct merge_result *m);

/* @rows: the first instance's plot_data rows. */
void summary_afl(const struct campaign *c, const struct run_tally *t, long rows);

#endif
