/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The invariants of the mm model: every check of the VMA, anon_vma and page
 * families, the locks at rest, and the objects reachable from the processes
 * (for the memory invariants, runtime/mem_check.h).
 */
#ifndef VMAFUZZ_MM_VALIDATE_H
#define VMAFUZZ_MM_VALIDATE_H

#include "mm/types.h"

/* Every invariant over @mm, or over a set of mms together (rmap walks reach
 * across mms after fork). */
bool mm_validate(struct mm *mm);
bool mm_validate_all(struct mm *const *mms, unsigned n);
/* Free the scratch arrays the checks keep from one call to the next, and
 * start their scan generations again (mm_between_programs). */
void mm_validate_release(void);
/* No lock of @mm or its VMAs is held, no VMA is write-locked (at rest). */
bool mm_check_at_rest(struct mm *mm);

struct mm_reach {
	uint64_t vmas, anon_vmas, avcs, pages, pgtables, nodes, files, uffd;
};
/* Objects reachable from @mms. @files: files that are alive whether mapped
 * or not (their caches count). */
void mm_reachable(struct mm *const *mms, unsigned n, struct file *const *files, unsigned nfiles,
		  struct mm_reach *r);

#endif
