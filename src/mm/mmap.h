/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmap and munmap (mm/mmap.c, mm/vma.c): argument checks, placement, the
 * MAP_FIXED unmap of what was there, merging the new range into its
 * neighbours, the map count limit. Each takes the mmap write lock.
 */
#ifndef VMAFUZZ_MM_MMAP_H
#define VMAFUZZ_MM_MMAP_H

#include "mm/types.h"

/* The address, or a negative errno. */
int64_t mm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags, struct file *file,
		uint64_t pgoff);
int mm_munmap(struct mm *mm, uint64_t start, uint64_t len);
/* A free range of @len bytes for a mapping without MAP_FIXED (mmap write lock
 * held): the hint if it fits, else the highest gap of the mmap window
 * (top-down, as x86-64 does); -ENOMEM when none is left. */
int64_t mm_get_unmapped_area(struct mm *mm, uint64_t hint, uint64_t len);
/* Unmap [start, end) (mmap write lock held); a failure after a split keeps it. */
int do_munmap(struct mm *mm, uint64_t start, uint64_t end);

#endif
