/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An AFL++ run (--afl): afl-fuzz on the AFL++ build with the dictionary,
 * the CmpLog binary (-c) and the structure-aware mutator library
 * (AFL_CUSTOM_MUTATOR_LIBRARY). One instance is "default"; with --jobs N,
 * "main" (-M, with CmpLog) and s1..s<N-1> (-S), all on WORK/afl, the
 * secondaries' output in WORK/afl-<name>.log. On a terminal afl-fuzz draws
 * its status screen; otherwise its output goes to WORK/logs/ and status
 * lines come. Each instance has a vmafuzz statsd whose rows go into its
 * plot_data (afl_rows.h). Every afl-fuzz carries the run's mark in its
 * environment (VMAFUZZ_AFL_RUN), and so do its targets: afl-fuzz 4.04c
 * can leave its persistent-mode child behind, stopped (AFLplusplus issues
 * 610 and 2577), and what carries the mark is ended with the run.
 *
 * afl-fuzz resuming a run (AFL_AUTORESUME) moves a crash folder with
 * anything in it aside (crashes.<date>), and refuses to start when a
 * crash folder it must clean holds a file it does not know; so a crash
 * folder's .builds is written once afl-fuzz has made its folders (its
 * fuzzer_stats is there), before it can have found a crash.
 */
#ifndef VMAFUZZ_CAMPAIGN_RUN_AFL_H
#define VMAFUZZ_CAMPAIGN_RUN_AFL_H

#include "plan.h"

/* afl-fuzz's exit status (the first instance's), 1 without afl++, or 2
 * when the run could not start. */
int run_afl(const struct campaign *c);

#endif
