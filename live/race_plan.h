/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vmafuzz race runs of a fuzz_mm program: each operation resolved on
 * the model as vmafuzz repro resolves it (conform_model.h) into the system
 * call it makes, or a read of smaps_rollup, for process p0 and the thread
 * named on its line. Thread t0's operations are the setup and are resolved
 * first, in program order (the same order as the program's when, as in the
 * seeds, the setup leads); the other threads' follow in program order.
 * Operations without a real counterpart here are left out, each counted by
 * the reason.
 *
 * With the plan comes race_bounds.h's input: the resident pages of the
 * VMAs the model has after the setup that no other thread's range meets,
 * and how many pages the race can reach (those VMAs and every other
 * thread's ranges).
 */
#ifndef VMAFUZZ_RACE_PLAN_H
#define VMAFUZZ_RACE_PLAN_H

#include "fuzz/prog/prog.h"
#include "ksys.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RACE_REASONS 16

enum race_kind { RACE_CALL, RACE_ROLLUP, RACE_FORK };

struct race_op {
	unsigned index;	 /* the operation's number in the program */
	unsigned thread; /* t<thread> */
	int kind;	 /* enum race_kind */
	struct kcall k;	 /* RACE_CALL */
};

struct race_plan {
	struct race_op ops[PROG_MAX_OPS]; /* setup first, then the rest in program order */
	unsigned nops;
	unsigned nthreads; /* the highest thread with an operation, plus one */
	unsigned per_thread[PROG_MAX_FIBERS];
	struct {
		char why[160];
		unsigned count;
	} skipped[RACE_REASONS];
	unsigned nreasons, nskipped;
	uint64_t stable_pages; /* resident, in VMAs after the setup no racing range meets */
	uint64_t race_pages;   /* the setup's VMAs and the racing ranges, as one union */
};

/* The plan of @p, the model reading a private anonymous page as the zero
 * page unless @no_zero_page. False with @why when the program cannot run
 * at all (config bits the kernel has no counterpart for; the model placing
 * a mapping where the kernel would not). */
bool race_plan_make(const struct prog_desc *d, const struct prog *p, bool no_zero_page,
		    struct race_plan *plan, char *why, size_t whylen);

#endif
