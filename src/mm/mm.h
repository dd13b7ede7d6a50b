/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm life: the struct and its two counts, and the watchers of its changes.
 * mm_put, which may end the address space, is exit.h's.
 */
#ifndef VMAFUZZ_MM_MM_H
#define VMAFUZZ_MM_MM_H

#include "mm/types.h"

/* A new mm with its VMA window [mmap_min, mmap_max) for mappings without an
 * address; NULL when its allocation fails. */
struct mm *mm_create(unsigned id, uint64_t mmap_min, uint64_t mmap_max);
/* mmgrab/mmdrop: the struct outlives its address space while contexts hold it. */
void mm_grab(struct mm *mm);
void mm_drop(struct mm *mm);

/* Register and remove a watcher; report a changed range to every watcher. */
void mm_watch_add(struct mm *mm, struct mm_watch *w);
void mm_watch_del(struct mm *mm, struct mm_watch *w);
void mm_note_change(struct mm *mm, uint64_t start, uint64_t end);

/*
 * The numbers the model gives its objects (vma#N in checks and dumps; the
 * interval trees order VMAs by them after the page offset), the last given.
 */
struct mm_ids {
	unsigned vma, anon_vma, page, uffd;
};
extern struct mm_ids mm_ids; /* zeroed between programs (between.h) */

#endif
