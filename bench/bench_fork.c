/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench fork: fork and exit of a process with 21 ... 51221 VMAs (the sizes
 * of the fork-mt-dup seed, whose figures came from byte-unixbench's spawn:
 * fork, the child exits at once), by appending each VMA to the child's
 * tree (bulk preallocation, in-order append: the kernel before the seed)
 * and by duplicating the tree and replacing its entries (the seed). Rounds
 * alternate the two; each figure is the median round. Printed as the seed's
 * table: VMAs, forks per 10 s before, after, and the improvement.
 */
#include "bench.h"
#include "mm/anon.h"
#include "mm/exit.h"
#include "mm/fork.h"
#include "mm/types.h"
#include "mm/validate.h"

#include <stdio.h>
#include <stdlib.h>

static const uint64_t sizes[] = {21, 121, 221, 421, 821, 1621, 3221, 6421, 12821, 25621, 51221};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define ROUNDS 9

static uint64_t time_forks(struct mm *parent, enum fork_algo algo, uint64_t reps)
{
	struct fork_opts o = {.algo = algo, .policy = ANON_POLICY_CURRENT};

	return bench_time_forks(parent, &o, reps);
}

/* Both algorithms must build the same child before either is timed. */
static void check_same(struct mm *parent)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .check = true, .differential = true};
	struct fork_uffd fu;
	struct mm *child;

	if (mm_fork(parent, 1, &o, &child, &fu) || !mm_validate(child)) {
		fprintf(stderr, "bench fork: the fork is wrong\n");
		exit(1);
	}
	mm_destroy(child);
}

static int run(int argc, char **argv)
{
	struct bench_opts opt;

	if (!bench_parse(argc, argv, &opt))
		return 2;
	unsigned nsizes = opt.quick ? 3 : NSIZES, rounds = opt.quick ? 3 : ROUNDS;
	double before[NSIZES], after[NSIZES];

	for (unsigned s = 0; s < nsizes; s++) {
		uint64_t n = sizes[s], reps = (opt.quick ? 20000 : 400000) / n + 1;
		uint64_t tapp[ROUNDS], tdup[ROUNDS];
		struct mm *parent = bench_parent(n, false);

		check_same(parent);
		for (unsigned r = 0; r < rounds; r++) {
			tapp[r] = time_forks(parent, FORK_APPEND, reps);
			tdup[r] = time_forks(parent, FORK_TREE_DUP, reps);
		}
		before[s] = 1e10 * (double)reps / (double)bench_median(tapp, rounds);
		after[s] = 1e10 * (double)reps / (double)bench_median(tdup, rounds);
		mm_destroy(parent);
	}
	if (opt.csv) {
		printf("vmas,append_forks_per_10s,tree_dup_forks_per_10s,improvement_pct\n");
		for (unsigned s = 0; s < nsizes; s++)
			printf("%llu,%.0f,%.0f,%.2f\n", (unsigned long long)sizes[s], before[s],
			       after[s], 100 * (after[s] / before[s] - 1));
		return 0;
	}
	printf(
	    "forks (with the child's exit) per 10 s; row 2 appends, row 3 duplicates the tree\n");
	for (unsigned s = 0; s < nsizes; s++)
		printf("%-9llu", (unsigned long long)sizes[s]);
	printf("\n");
	for (unsigned s = 0; s < nsizes; s++)
		printf("%-9.0f", before[s]);
	printf("\n");
	for (unsigned s = 0; s < nsizes; s++)
		printf("%-9.0f", after[s]);
	printf("\n");
	for (unsigned s = 0; s < nsizes; s++) {
		char pct[16];

		snprintf(pct, sizeof(pct), "%.2f%%", 100 * (after[s] / before[s] - 1));
		printf("%-9s", pct);
	}
	printf("\n");
	return 0;
}

const struct bench bench_fork = {
    .name = "fork",
    .summary = "fork+exit by appending VMAs against tree duplication, 21..51221 VMAs",
    .run = run,
};
