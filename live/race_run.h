/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One round of vmafuzz race: a plan (race_plan.h) run with real threads of
 * one real process, the subject, forked for the round. The subject runs
 * thread t0's operations in order (the setup), then starts one pthread per
 * other thread; a barrier releases them together, each runs its operations
 * in program order, and the subject joins them and exits 0. What a call
 * returns during the race is not checked (a touch that faults because
 * another thread unmapped its range is one legal outcome); each racing read
 * of /proc/self/smaps_rollup is checked against race_bounds.h's bounds,
 * with the rest of the process's Rss read from smaps outside the window
 * just before the release. Racing threads run on stacks faulted in
 * beforehand and allocate nothing, so the rest does not grow.
 *
 * The subject is not pinned to one CPU (as conform's processes are): the
 * threads run in parallel wherever there are CPUs.
 */
#ifndef VMAFUZZ_RACE_RUN_H
#define VMAFUZZ_RACE_RUN_H

#include "race_plan.h"

#include <stddef.h>

struct race_round {
	unsigned checked; /* racing rollup reads checked */
	unsigned reads;	  /* all rollup reads, the setup's too */
};

/* Run one round of @plan. 0 when the subject exited 0; 1 when it was
 * killed by a signal or exited otherwise, what went wrong in @why; 2 when
 * no subject could be started (@why). */
int race_round_run(const struct race_plan *plan, struct race_round *out, char *why, size_t whylen);

#endif
