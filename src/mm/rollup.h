/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/PID/smaps_rollup (fs/proc/task_mmu.c show_smaps_rollup) and the
 * per-VMA smaps it sums (Locked: the Pss of VM_LOCKED VMAs), with its two
 * readers:
 *
 *   ROLLUP_MMAP_LOCK  holds the mmap read lock; when a writer waits, drops
 *                     and retakes it and resumes after the last VMA it
 *                     gathered, by the four cases of the seed: that VMA was
 *                     freed (go on with the next), it is still there (the
 *                     same), none is left (stop), or a VMA now spans the
 *                     last end (it grew or merged: gather only its rest).
 *   ROLLUP_VMA_LOCK   the smaps-rollup-per-vma-lock seed: walks under RCU
 *                     taking each VMA's read lock; falls back to the mmap
 *                     lock when a VMA cannot be locked; drops the mmap lock
 *                     when contended and resumes from the last reported
 *                     end, gathering only the rest of a VMA found again.
 *
 * Both yield at every lock operation and once per VMA, so writers on other
 * fibers interleave with them.
 *
 * The rollup invariants (rollup_check), when a reader finishes:
 *   ROLLUP_ORDER    the ranges it gathered ascend without overlap;
 *   ROLLUP_MISSED   every range mapped at its start whose mapping and page
 *                   table entries nobody changed until its end was
 *                   gathered (exactly once, with ROLLUP_ORDER);
 *   ROLLUP_SUM      if nothing changed while it ran (no mapping, no entry
 *                   of the mm, no map count anywhere), it equals the sum
 *                   of per-VMA smaps;
 *   ROLLUP_READERS  and then the other reader gives the same figures.
 * What changed is recorded exactly: the reader registers an mm_watch (mm.h)
 * for its whole run, so every change any fiber makes is known.
 */
#ifndef VMAFUZZ_ROLLUP_H
#define VMAFUZZ_ROLLUP_H

#include "mm/types.h"
#include <stdio.h>

/* Pss fields carry PSS_SHIFT fraction bits, as in the kernel. */
#define PSS_SHIFT 12

struct rollup_stats {
	uint64_t rss, pss, pss_dirty, pss_anon, pss_file, pss_shmem;
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t referenced, anonymous;
	uint64_t pss_locked; /* Locked: the Pss of VM_LOCKED VMAs */
	uint64_t lazyfree;   /* LazyFree: lazily freed pages mapped clean */
};

enum rollup_reader { ROLLUP_MMAP_LOCK, ROLLUP_VMA_LOCK };

struct rollup_range {
	uint64_t start, end;
};

/* A growing list of ranges (harness bookkeeping: plain malloc, never fails
 * the way model allocations may). */
struct rollup_ranges {
	struct rollup_range *r;
	unsigned n, cap;
};

struct rollup {
	enum rollup_reader reader;
	struct rollup_stats stats;
	uint64_t vma_start, last_end; /* what the header line prints */
	unsigned drops;		      /* times the mmap lock was dropped for a writer */
	unsigned fallbacks;	      /* times a VMA lock failed and the mmap lock was taken */
	/* for the invariants */
	struct rollup_ranges gathered; /* in gathering order */
	struct rollup_ranges mapped;   /* VMAs at the start */
	struct rollup_ranges changed;  /* changes reported while reading */
	uint64_t map_changes;	       /* page_map_changes at the start */
	struct mm_watch watch;
	bool track; /* keep the above (rollup_read); not for benchmarks */
};

/* Read @mm's rollup with @reader into @r (rollup_free it after). The caller
 * holds a user reference on @mm (mmget). */
void rollup_read(struct mm *mm, enum rollup_reader reader, struct rollup *r);
void rollup_free(struct rollup *r);
/* The read alone, with nothing kept for the invariants (benchmarks on real
 * threads: the watch would be shared with the writers). */
void rollup_read_untracked(struct mm *mm, enum rollup_reader reader, struct rollup *r);

/* The statistics of [from, v->end) of @v, added to @s (smap_gather_stats;
 * the caller holds the mmap lock or @v's lock). */
void smaps_gather(struct vma *v, uint64_t from, struct rollup_stats *s);

/* ROLLUP_ORDER, ROLLUP_MISSED, ROLLUP_SUM, ROLLUP_READERS (see above); the
 * second reader runs only when @mm's locks are all free. */
bool rollup_check(struct mm *mm, struct rollup *r);

bool rollup_stats_equal(const struct rollup_stats *a, const struct rollup_stats *b);

#endif
