/* Helpers shared by the files of the address-space model; not for users of mm.h. */
#ifndef VMAFUZZ_VMA_INTERNAL_H
#define VMAFUZZ_VMA_INTERNAL_H

#include "mm.h"

#define PAGE_MASK (~(PAGE_SIZE - 1))

static inline uint64_t page_align_up(uint64_t len, bool *overflow)
{
	*overflow = len > UINT64_MAX - (PAGE_SIZE - 1);
	return (len + PAGE_SIZE - 1) & PAGE_MASK;
}

/* The VMA before @v (ending at or before its start) and after it. */
struct vma *vma_prev(struct mm *mm, const struct vma *v);
struct vma *vma_next(struct mm *mm, const struct vma *v);

struct vma *vma_alloc(struct mm *mm);
/* A copy of @v's fields (not its chain, not its lock state). */
struct vma *vma_dup(const struct vma *v);
/* Free a VMA no tree holds any more, after the RCU grace period. */
void vma_free(struct vma *v);
void vma_link_file(struct vma *v);
void vma_unlink_file(struct vma *v);
/* The same as vma_link_file, with the file's i_mmap_rwsem already held. */
void vma_link_file_locked(struct vma *v);
/* @v's interval changed: key it again in its file's i_mmap (no lock taken:
 * the update has no scheduling point, so no walk sees it half done). */
void vma_file_interval_update(struct vma *v);

/* Split @v at @addr; the new VMA takes the lower part if @new_below. */
int vma_split(struct vma *v, uint64_t addr, bool new_below);
/* Give [start, end) of @v the flags @flags (and userfaultfd ctx @uffd),
 * merging with neighbours or splitting as the kernel's vma_modify does. */
int vma_modify(struct vma *v, uint64_t start, uint64_t end, uint64_t flags, struct uffd_ctx *uffd,
	       struct vma **result);
/* Unmap [start, end) (mmap write lock held). */
int do_munmap(struct mm *mm, uint64_t start, uint64_t end);
/* Remove one VMA that is already out of the tree: pages, chain, file, free. */
void vma_remove(struct vma *v);

uint64_t prot_to_flags(int prot);

#endif
