/* SPDX-License-Identifier: GPL-2.0 */
/*
 * madvise (mm/madvise.c): MADV_DONTNEED zaps pages (MADV_DONTNEED_LOCKED also
 * of mlocked VMAs, which refuse the former with -EINVAL); MADV_FREE,
 * MADV_COLD, MADV_PAGEOUT and MADV_POPULATE_READ/WRITE act on pages
 * (reclaim.h); DONTFORK, DOFORK, WIPEONFORK and KEEPONFORK change VMA flags
 * through vma_modify, under the mmap write lock (the others take it for
 * read).
 */
#ifndef VMAFUZZ_MM_MADVISE_H
#define VMAFUZZ_MM_MADVISE_H

#include "mm/types.h"

/* 0 or a negative errno (-ENOMEM for a hole in the range, as the kernel). */
int mm_madvise(struct mm *mm, uint64_t start, uint64_t len, int advice);

#endif
