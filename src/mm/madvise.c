/* SPDX-License-Identifier: GPL-2.0 */
/* madvise (madvise.h). */
#include "mm/madvise.h"

#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/sync.h"

#include <errno.h>

static bool advice_valid(int advice)
{
	return advice == MADV_DONTNEED || advice == MADV_DONTFORK || advice == MADV_DOFORK ||
	       advice == MADV_WIPEONFORK || advice == MADV_KEEPONFORK;
}

/* The new flags of @v under @advice, or -EINVAL. */
static int64_t advised_flags(const struct vma *v, int advice)
{
	switch (advice) {
	case MADV_DONTFORK:
		return (int64_t)(v->flags | VM_DONTCOPY);
	case MADV_DOFORK:
		return (int64_t)(v->flags & ~VM_DONTCOPY);
	case MADV_WIPEONFORK:
		/* private anonymous memory only */
		if (v->file || (v->flags & VM_SHARED))
			return -EINVAL;
		return (int64_t)(v->flags | VM_WIPEONFORK);
	case MADV_KEEPONFORK:
		return (int64_t)(v->flags & ~VM_WIPEONFORK);
	}
	return (int64_t)v->flags;
}

int mm_madvise(struct mm *mm, uint64_t start, uint64_t len, int advice)
{
	bool overflow, write = advice != MADV_DONTNEED;
	int err = 0, unmapped = 0;
	uint64_t end, at;

	if (start & ~PAGE_MASK || !advice_valid(advice))
		return -EINVAL;
	len = page_align_up(len, &overflow);
	end = start + len;
	if (overflow || end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	if (write)
		mmap_write_lock(&mm->lock);
	else
		mmap_read_lock(&mm->lock);
	for (at = start; at < end;) {
		struct vma *v = mm_find_vma(mm, at), *res;
		uint64_t stop;
		int64_t flags;

		if (!v || v->start >= end) {
			unmapped = -ENOMEM;
			break;
		}
		if (v->start > at) {
			unmapped = -ENOMEM; /* a hole: note it and go on */
			at = v->start;
		}
		stop = v->end < end ? v->end : end;
		if (advice == MADV_DONTNEED) {
			/* madvise_dontneed_free_valid_vma: not mlocked memory */
			if (v->flags & VM_LOCKED) {
				err = -EINVAL;
				break;
			}
			zap_range(v, at, stop);
		} else {
			flags = advised_flags(v, advice);
			if (flags < 0) {
				err = (int)flags;
				break;
			}
			err = vma_modify(v, at, stop, (uint64_t)flags, v->uffd, &res);
			/* madvise_vma_behavior: "kernel resources temporarily
			 * unavailable" is -EAGAIN to the caller */
			if (err == -ENOMEM)
				err = -EAGAIN;
			if (err)
				break;
		}
		at = stop;
	}
	if (write)
		mmap_write_unlock(&mm->lock);
	else
		mmap_read_unlock(&mm->lock);
	return err ? err : unmapped;
}
