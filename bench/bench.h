/*
 * Benchmarks: each prints a table of figures (or CSV with --csv). Figures
 * that are compared are measured side by side in one run, interleaved round
 * by round, so that the machine's noise falls on both alike.
 */
#ifndef VMAFUZZ_BENCH_H
#define VMAFUZZ_BENCH_H

#include <stdint.h>

struct bench {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the bench name */
};

extern const struct bench bench_mtree_dup;

extern const struct bench *const benches[];

/* Allocator settings for every benchmark run (see bench.c). */
void bench_setup(void);

/* Monotonic nanoseconds (benchmarks only: never in a fuzz target). */
uint64_t bench_now_ns(void);

#endif
