/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench anon-vma: anon_vma allocations of a fork-heavy workload under the
 * current kernel's anon_vma reuse rule and under the reverted reuse of the
 * rmap-reuse-mergeable-anon-vma-on-fork seed (whose author measured 20%
 * fewer allocations in a kernel build).
 *
 * The workload, like make running compilers: a long-lived process has
 * HEAP_VMAS anonymous VMAs that share one anon_vma (a heap split by
 * mprotect into alternating read-write and read-only pieces: mergeable but
 * for their flags) and PRIVATE_VMAS anonymous VMAs with their own anon_vma
 * each (stacks, data of libraries). JOBS times it forks a child that writes
 * to a few of its VMAs (copy-on-write), forks a grandchild that writes too,
 * and both exit. The share of VMAs that share an anon_vma decides what the
 * reverted rule saves: each forked run of sharing VMAs needs one anon_vma
 * instead of one per VMA.
 */
#include "bench.h"
#include "mm/anon.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/fork.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "runtime/alloc.h"

#include <stdio.h>
#include <stdlib.h>

#define HEAP_VMAS 16
#define PRIVATE_VMAS 48
#define JOBS 200
#define BASE 0x20000000ull
#define TOP (BASE + 0x10000000ull)

/* The heap: 2 * HEAP_VMAS pages, written, then every other page read-only. */
static void build_make(struct mm *mm)
{
	uint64_t heap = BASE, len = HEAP_VMAS * PAGE_SIZE;

	if (mm_mmap(mm, heap, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		    NULL, 0) != (int64_t)heap ||
	    mm_touch(mm, heap, len, true))
		abort();
	for (uint64_t i = 1; i < HEAP_VMAS; i += 2)
		if (mm_mprotect(mm, heap + i * PAGE_SIZE, PAGE_SIZE, PROT_READ))
			abort();
	for (uint64_t i = 0; i < PRIVATE_VMAS; i++) {
		uint64_t at = heap + len + (2 * i + 1) * PAGE_SIZE;

		if (mm_mmap(mm, at, PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (int64_t)at ||
		    mm_touch(mm, at, PAGE_SIZE, true))
			abort();
	}
}

/* Write one page in every @stride-th writable VMA, starting at @first. */
static void dirty(struct mm *mm, unsigned first, unsigned stride)
{
	for (unsigned k = first; k < (unsigned)mm->map_count; k += stride) {
		struct vma *v;
		uint64_t start;
		bool write;

		/* a lookup under the mmap lock, as find_vma's callers */
		mmap_read_lock(&mm->lock);
		v = mm_vma_nth(mm, k);
		start = v->start;
		write = v->flags & VM_WRITE;
		mmap_read_unlock(&mm->lock);
		if (write)
			mm_touch(mm, start, PAGE_SIZE, true);
	}
}

static struct mm *fork_or_die(struct mm *mm, unsigned id, enum anon_policy policy)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .policy = policy};
	struct fork_uffd fu;
	struct mm *child;

	if (mm_fork(mm, id, &o, &child, &fu))
		abort();
	return child;
}

/* anon_vmas allocated by the whole workload */
static uint64_t workload(enum anon_policy policy)
{
	uint64_t before = alloc_stats()->allocs[AK_ANON_VMA];
	struct mm *make = mm_create(0, BASE, TOP);

	if (!make)
		abort();
	build_make(make);
	for (unsigned j = 0; j < JOBS; j++) {
		struct mm *cc = fork_or_die(make, 1, policy);

		dirty(cc, j % 5, 5);
		struct mm *cc1 = fork_or_die(cc, 2, policy);

		dirty(cc1, j % 3, 3);
		mm_destroy(cc1);
		mm_destroy(cc);
	}
	mm_destroy(make);
	return alloc_stats()->allocs[AK_ANON_VMA] - before;
}

static int run(int argc, char **argv)
{
	struct bench_opts opt;

	if (!bench_parse(argc, argv, &opt))
		return 2;
	uint64_t cur = workload(ANON_POLICY_CURRENT);
	uint64_t reuse = workload(ANON_POLICY_REUSE_MERGEABLE);
	double fewer = 100.0 * (1.0 - (double)reuse / (double)cur);

	if (alloc_live_total()) {
		fprintf(stderr, "bench anon-vma: the workload leaked\n");
		return 1;
	}
	if (opt.csv) {
		printf("heap_vmas,private_vmas,jobs,current_allocs,reuse_allocs,fewer_pct\n");
		printf("%d,%d,%d,%llu,%llu,%.2f\n", HEAP_VMAS, PRIVATE_VMAS, JOBS,
		       (unsigned long long)cur, (unsigned long long)reuse, fewer);
		return 0;
	}
	printf("workload: %d jobs (fork, write, fork, write, exit, exit) of a process with\n"
	       "%d VMAs sharing one anon_vma and %d with their own\n",
	       JOBS, HEAP_VMAS, PRIVATE_VMAS);
	printf("%-30s %12s\n", "anon_vma policy", "anon_vmas");
	printf("%-30s %12llu\n", "current kernel", (unsigned long long)cur);
	printf("%-30s %12llu\n", "reuse mergeable (reverted)", (unsigned long long)reuse);
	printf("the reverted rule allocates %.2f%% fewer\n", fewer);
	return 0;
}

const struct bench bench_anon_vma = {
    .name = "anon-vma",
    .summary = "anon_vma allocations of a fork-heavy workload under both reuse policies",
    .run = run,
};
