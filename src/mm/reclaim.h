/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What madvise asks of pages rather than of VMAs (mm/madvise.c's page table
 * walks, and the reclaim they feed, mm/vmscan.c and mm/rmap.c): MADV_FREE
 * marks pages lazily freed, MADV_PAGEOUT reclaims what reclaim can without
 * swap, MADV_POPULATE_READ/WRITE fault pages in. The model has no swap, no
 * LRU and no page ages, so:
 *
 *   - MADV_FREE: every anonymous page of the range becomes lazily freed
 *     (the kernel's folio_mark_lazyfree: no longer swap-backed) and its
 *     entry clean; a later write through any entry sets that entry's dirty
 *     bit, and the page stays lazily freed until reclaim looks at it.
 *   - MADV_PAGEOUT: pages mapped once only: a lazily freed page whose entry
 *     is clean is dropped (Rss goes down; a later fault finds nothing there);
 *     one written again is kept, swap-backed, and its dirty entry dirties
 *     the page (folio_mark_dirty in try_to_unmap_one);
 *     other anonymous pages stay mapped (they would need swap); a page cache
 *     page is unmapped (Rss goes down), and leaves the cache if it is
 *     clean (never written: a shmem one is a hole again); dirty ones stay
 *     cached (no swap, no writeback) and the next fault maps them again.
 *   - MADV_COLD only ages pages: nothing the model keeps changes.
 *
 * smaps' LazyFree counts the lazily freed pages whose entry is clean.
 */
#ifndef VMAFUZZ_MM_RECLAIM_H
#define VMAFUZZ_MM_RECLAIM_H

#include "mm/types.h"

/* MADV_FREE of [start, end) inside the anonymous VMA @v. */
void lazyfree_range(struct vma *v, uint64_t start, uint64_t end);
/* MADV_PAGEOUT of [start, end) inside @v. */
void pageout_range(struct vma *v, uint64_t start, uint64_t end);
/* MADV_POPULATE_READ (@write false) or _WRITE of [start, end) (mmap lock
 * held): 0, -ENOMEM for a hole or no memory, -EINVAL where the VMA does not
 * allow the access, -EFAULT where the kernel raises SIGBUS (past a shmem
 * file's end, or where a userfaultfd would supply the page: fault_page). At
 * most MM_POPULATE_MAX_PAGES pages. */
int populate_advice(struct mm *mm, uint64_t start, uint64_t end, bool write);

#endif
