/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Benchmarks: each prints a table of figures (or CSV with --csv). Figures
 * that are compared are measured side by side in one run, interleaved round
 * by round, so that the machine's noise falls on both alike.
 */
#ifndef VMAFUZZ_BENCH_H
#define VMAFUZZ_BENCH_H

#include <stdbool.h>
#include <stdint.h>

struct bench {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the bench name */
};

extern const struct bench bench_mtree_dup;
extern const struct bench bench_fork;
extern const struct bench bench_anon_vma;
extern const struct bench bench_uffd_fork;
extern const struct bench bench_rollup;

extern const struct bench *const benches[];

/* Options every benchmark takes: --csv, and --quick (the smallest sizes and
 * fewer rounds, for tests). Prints the usage error and returns false on
 * anything else. */
struct bench_opts {
	bool csv;
	bool quick;
};
bool bench_parse(int argc, char **argv, struct bench_opts *o);

/* A process with @nvmas one-page anonymous VMAs that do not merge, each
 * written to once when @touch (bench_mm.c). */
struct mm;
struct mm *bench_parent(uint64_t nvmas, bool touch);
/* Nanoseconds for @reps forks of @parent with @opts (a struct fork_opts),
 * each followed by the child's exit. */
struct fork_opts;
uint64_t bench_time_forks(struct mm *parent, const struct fork_opts *opts, uint64_t reps);

/* Median of @n figures (sorts them). */
uint64_t bench_median(uint64_t *v, unsigned n);

/* Allocator settings for every benchmark run (see bench.c). */
void bench_setup(void);

/* Monotonic nanoseconds (benchmarks only: never in a fuzz target). */
uint64_t bench_now_ns(void);

#endif
