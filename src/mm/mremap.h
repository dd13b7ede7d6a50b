/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mremap (mm/mremap.c, and copy_vma of mm/vma.c): shrink in place, expand in
 * place (merging the extension with the next VMA), or move the range to a
 * new VMA (MREMAP_MAYMOVE, at MREMAP_FIXED's address, keeping the source
 * with MREMAP_DONTUNMAP), with the kernel's errors, its map count limits,
 * its anon_vma handling and its userfaultfd rule: a VMA whose context does
 * not want the remap event loses context and flags once moved.
 *
 * A move copies the VMA to the new range (merging it with the neighbours
 * there when they allow it: the copy shares the source's anon_vma), moves
 * the page table entries (pages are not copied: they keep their anon_vma and
 * index, which the new VMA's page offset keeps valid), then unmaps the
 * source. If a page table cannot be allocated, the entries moved so far go
 * back and the new range is unmapped instead: -ENOMEM. Takes the mmap write
 * lock; write-locks each VMA it changes, the source first.
 *
 * Where kernels differ it follows the mm's version (kver.h): the order of
 * the checks and the map count headroom, a fixed move of many VMAs since
 * 6.17, and whether a kept source may merge with its copy.
 */
#ifndef VMAFUZZ_MM_MREMAP_H
#define VMAFUZZ_MM_MREMAP_H

#include "mm/types.h"

#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED 2
#define MREMAP_DONTUNMAP 4

/* The new address, or a negative errno (-EINVAL, -EFAULT, -ENOMEM). */
int64_t mm_mremap(struct mm *mm, uint64_t addr, uint64_t old_len, uint64_t new_len, int flags,
		  uint64_t new_addr);

#endif
