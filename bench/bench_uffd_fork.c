/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench uffd-fork: fork and exit of processes without userfaultfd, with
 * dup_userfaultfd's early return for VMAs without a context (the
 * userfaultfd-early-return-dup seed) and without it (every VMA clears its
 * context and userfaultfd flags, as before the seed). The seed measured
 * lmbench's fork_prot: 419.1 us before, 413.5 after. Rounds alternate the
 * two; each figure is the median round.
 */
#include "bench.h"
#include "mm/exit.h"
#include "mm/fork.h"
#include "mm/types.h"

#include <stdio.h>
#include <stdlib.h>

static const uint64_t sizes[] = {21, 421, 6421};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define ROUNDS 15

static uint64_t time_forks(struct mm *parent, bool early_return, uint64_t reps)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .uffd_no_early_return = !early_return};

	return bench_time_forks(parent, &o, reps);
}

static int run(int argc, char **argv)
{
	struct bench_opts opt;

	if (!bench_parse(argc, argv, &opt))
		return 2;
	unsigned nsizes = opt.quick ? 1 : NSIZES, rounds = opt.quick ? 3 : ROUNDS;

	if (opt.csv)
		printf("vmas,without_early_return_ns,early_return_ns,improvement_pct\n");
	else
		printf("%8s %24s %18s %12s\n", "vmas", "no early return ns/fork", "early return ns",
		       "improvement");
	for (unsigned s = 0; s < nsizes; s++) {
		uint64_t n = sizes[s], reps = (opt.quick ? 20000 : 800000) / n + 1;
		uint64_t tbase[ROUNDS], tearly[ROUNDS];
		struct mm *parent = bench_parent(n, true);

		for (unsigned r = 0; r < rounds; r++) {
			tbase[r] = time_forks(parent, false, reps);
			tearly[r] = time_forks(parent, true, reps);
		}
		double b = (double)bench_median(tbase, rounds) / (double)reps;
		double e = (double)bench_median(tearly, rounds) / (double)reps;

		if (opt.csv)
			printf("%llu,%.0f,%.0f,%.2f\n", (unsigned long long)n, b, e,
			       100 * (b / e - 1));
		else
			printf("%8llu %24.0f %18.0f %11.2f%%\n", (unsigned long long)n, b, e,
			       100 * (b / e - 1));
		mm_destroy(parent);
	}
	return 0;
}

const struct bench bench_uffd_fork = {
    .name = "uffd-fork",
    .summary = "fork+exit with and without dup_userfaultfd's early return",
    .run = run,
};
