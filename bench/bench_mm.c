/* SPDX-License-Identifier: GPL-2.0 */
/* Address spaces for the fork benchmarks (bench.h). */
#include "bench.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/fork.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/types.h"

#include <stdio.h>
#include <stdlib.h>

#define PARENT_BASE 0x10000000ull

struct mm *bench_parent(uint64_t nvmas, bool touch)
{
	/* one page each, a page apart: nothing merges */
	struct mm *mm = mm_create(0, PARENT_BASE, PARENT_BASE + (2 * nvmas + 16) * PAGE_SIZE);

	if (!mm)
		abort();
	for (uint64_t i = 0; i < nvmas; i++) {
		uint64_t at = PARENT_BASE + 2 * i * PAGE_SIZE;

		if (mm_mmap(mm, at, PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (int64_t)at ||
		    (touch && mm_touch(mm, at, PAGE_SIZE, true))) {
			fprintf(stderr, "bench: cannot build a parent with %llu VMAs\n",
				(unsigned long long)nvmas);
			abort();
		}
	}
	return mm;
}

uint64_t bench_time_forks(struct mm *parent, const struct fork_opts *opts, uint64_t reps)
{
	uint64_t t0 = bench_now_ns();

	for (uint64_t k = 0; k < reps; k++) {
		struct fork_uffd fu;
		struct mm *child;

		if (mm_fork(parent, 1, opts, &child, &fu))
			abort();
		mm_destroy(child);
	}
	return bench_now_ns() - t0;
}
