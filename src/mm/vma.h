/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VMA objects and lookups: allocation, copies, the RCU-delayed free, and
 * finding VMAs in an mm's tree (caller holds the mmap lock, a VMA lock under
 * RCU, or is the only fiber).
 */
#ifndef VMAFUZZ_MM_VMA_H
#define VMAFUZZ_MM_VMA_H

#include "mm/types.h"

/* A new VMA of @mm, detached, with the next creation number; NULL on failure. */
struct vma *vma_alloc(struct mm *mm);
/* A copy of @v's fields (not its chain, not its lock state). */
struct vma *vma_dup(const struct vma *v);
/* Free a VMA no tree holds any more, after the RCU grace period. */
void vma_free(struct vma *v);

struct vma *mm_find_vma(struct mm *mm, uint64_t addr); /* first VMA ending above addr */
struct vma *mm_vma_at(struct mm *mm, uint64_t addr);   /* the VMA holding addr */
/* The k-th VMA in address order (k < map_count), for argument resolution. */
struct vma *mm_vma_nth(struct mm *mm, unsigned k);
/* The VMA before @v (ending at or before its start) and after it. */
struct vma *vma_prev(struct mm *mm, const struct vma *v);
struct vma *vma_next(struct mm *mm, const struct vma *v);

/* VM_READ/WRITE/EXEC of PROT_READ/WRITE/EXEC. */
uint64_t prot_to_flags(int prot);

#endif
