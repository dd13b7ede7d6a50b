/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimizing a program while an oracle says it still fails (after
 * syzkaller's prog/minimization.go). The minimizer knows programs only:
 * what "fails" means (a crash bucket, a predicate in a test) is the
 * oracle's business, so the same algorithm serves `vmafuzz minimize` and
 * in-process tests.
 *
 * Passes, repeated in this order until a round changes nothing (a fixed
 * point) or the run budget is spent:
 *
 *   ops     drop chunks of operations: halves, quarters, ..., single ones
 *   sched   drop the schedule, chunks of it, then move bytes towards 0
 *   fibers  drop a thread's operations, else move them to thread 0 (where
 *           they stand, else as a block earlier)
 *   args    by argument kind: fail_at and fiber towards 0; selectors,
 *           numbers and choices towards 0; flag bits off one by one; a
 *           range's length towards 1, its mode and offsets towards 0;
 *           then config bits off
 *
 * "Towards" is the target value itself, else a binary search for the value
 * nearest it that still fails. A candidate is kept as the best when the
 * oracle says it still fails. Every candidate is encoded (prog_encode) and
 * hashed; one whose bytes were tried before is not offered again, so the
 * oracle sees each distinct program at most once. The algorithm is
 * deterministic: it draws no randomness.
 */
#ifndef VMAFUZZ_MINIMIZE_H
#define VMAFUZZ_MINIMIZE_H

#include "prog.h"

#include <stdbool.h>

/* What the oracle says of a candidate. */
enum minimize_verdict {
	MINIMIZE_PASSES,      /* it no longer fails (as the original did) */
	MINIMIZE_STILL_FAILS, /* it does: keep it */
	MINIMIZE_ABORT,	      /* the oracle cannot go on (e.g. cannot run): stop now */
};

/* Called after a pass that changed the best program. */
typedef void minimize_progress_fn(void *arg, unsigned round, const char *pass,
				  const struct prog *best, unsigned runs);

struct minimize_opts {
	const struct prog_desc *desc; /* the target the program is for */
	enum minimize_verdict (*still_fails)(void *arg, const struct prog *p);
	void *arg; /* handed to still_fails and progress */
	/* Oracle calls allowed, the first check included (0 counts as 1). */
	unsigned max_runs;
	minimize_progress_fn *progress; /* NULL: none */
};

enum minimize_outcome {
	MINIMIZE_FIXED_POINT, /* a whole round changed nothing */
	MINIMIZE_CAPPED,      /* stopped when the budget ran out */
	MINIMIZE_NOT_FAILING, /* the program given did not fail: nothing done */
	MINIMIZE_ABORTED,     /* the oracle said MINIMIZE_ABORT */
};

struct minimize_stats {
	unsigned runs;	 /* oracle calls, the first check included */
	unsigned rounds; /* rounds of the four passes begun */
};

/*
 * Minimize *@p in place. The oracle is first asked about *@p itself: when
 * that does not fail, returns MINIMIZE_NOT_FAILING with *@p unchanged.
 * Otherwise *@p ends as the smallest program found that still fails. The
 * oracle is called at most max(opts->max_runs, 1) times. @st may be NULL.
 */
enum minimize_outcome prog_minimize(const struct minimize_opts *opts, struct prog *p,
				    struct minimize_stats *st);

/* "fixed point", "stopped at the run cap", ... */
const char *minimize_outcome_name(enum minimize_outcome o);

#endif
