/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splitting, merging and removing VMAs (after the kernel's mm/vma.c).
 *
 * Every change to the tree is one store (tree/mtree.h), done after
 * everything that can fail (the new VMA, its chain) is ready, so an -ENOMEM
 * leaves the tree as it was; like the kernel, an munmap that fails after
 * splitting keeps the split.
 */
#ifndef VMAFUZZ_MM_VMA_MERGE_H
#define VMAFUZZ_MM_VMA_MERGE_H

#include "mm/types.h"

/* A range to be mapped or changed, with everything a merge compares. */
struct merge_range {
	uint64_t start, end, flags, pgoff;
	struct file *file;
	struct anon_vma *anon_vma;
	struct uffd_ctx *uffd;
	const struct vma *vma; /* the VMA the range is cut from, or NULL for a new one */
	/* mremap's copy of a VMA (copy_vma): the VMA it is copied from, whose
	 * anon_vma the VMA that takes the range must share; NULL otherwise */
	struct vma *copied_from;
	/* a neighbour the range must not merge with (copy_vma keeping an
	 * unfaulted source: MREMAP_DONTUNMAP), or NULL */
	const struct vma *exclude;
	/* mmap_region before KV_NEW_RANGE_PREFERS_PREV: next is looked at
	 * first, and prev merges only if it suits next too */
	bool next_first;
};

/* Store @v over its range in its mm's tree: 0 or -ENOMEM (tree unchanged). */
int vma_tree_store(struct vma *v);
/* Split @v at @addr; the new VMA takes the lower part if @new_below. Refused
 * (-ENOMEM) at the map count limit. */
int vma_split(struct vma *v, uint64_t addr, bool new_below);
/* The same without the limit, as munmap splits (__split_vma): it may leave
 * one VMA above the limit for a moment, to free what it unmaps. */
int vma_split_unlimited(struct vma *v, uint64_t addr, bool new_below);
/* Give [start, end) of @v the flags @flags (and userfaultfd ctx @uffd),
 * merging with neighbours or splitting as the kernel's vma_modify does. */
int vma_modify(struct vma *v, uint64_t start, uint64_t end, uint64_t flags, struct uffd_ctx *uffd,
	       struct vma **result);
/* Merge the new mapping [m->start, m->end) into its neighbours if it may
 * (vma_merge_new_range): the VMA that now covers it, NULL when no merge was
 * possible (*err 0), or NULL with *err set. */
struct vma *vma_merge_new_range(struct mm *mm, struct merge_range *m, int *err);
/* Remove one VMA that is already out of the tree: pages, chain, file, free. */
void vma_remove(struct vma *v);

#endif
