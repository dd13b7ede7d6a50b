/* SPDX-License-Identifier: GPL-2.0 */
/* madvise (madvise.h). */
#include "mm/madvise.h"

#include "mm/page.h"
#include "mm/reclaim.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/sync.h"

#include <errno.h>

static bool advice_valid(int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_DONTFORK:
	case MADV_DOFORK:
	case MADV_WIPEONFORK:
	case MADV_KEEPONFORK:
	case MADV_COLD:
	case MADV_PAGEOUT:
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
	case MADV_DONTNEED_LOCKED:
		return true;
	}
	return false;
}

/* madvise_need_mmap_write: the advices that change no VMA take it for read. */
static bool needs_write_lock(int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
	case MADV_FREE:
	case MADV_COLD:
	case MADV_PAGEOUT:
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
		return false;
	}
	return true;
}

/*
 * The advices on pages, on [start, end) of @v: 0, or -EINVAL where the VMA
 * refuses them (madvise_dontneed_free_valid_vma, can_madv_lru_vma, MADV_FREE
 * on memory that is not private anonymous); 1 when @advice changes flags.
 */
static int advise_pages(struct vma *v, uint64_t start, uint64_t end, int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
		/* not mlocked memory, unless the advice says so */
		if (advice == MADV_DONTNEED && (v->flags & VM_LOCKED))
			return -EINVAL;
		zap_range(v, start, end);
		return 0;
	case MADV_FREE:
		if (v->file || (v->flags & VM_LOCKED))
			return -EINVAL;
		lazyfree_range(v, start, end);
		return 0;
	case MADV_COLD:
	case MADV_PAGEOUT:
		if (v->flags & VM_LOCKED)
			return -EINVAL;
		if (advice == MADV_PAGEOUT)
			pageout_range(v, start, end);
		return 0; /* MADV_COLD only ages pages */
	}
	return 1;
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
	bool overflow, write = needs_write_lock(advice);
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
	if (advice == MADV_POPULATE_READ || advice == MADV_POPULATE_WRITE) {
		/* one walk of the whole range, not VMA by VMA (madvise_populate) */
		err = populate_advice(mm, start, end, advice == MADV_POPULATE_WRITE);
		goto out;
	}
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
		err = advise_pages(v, at, stop, advice);
		if (err < 0)
			break;
		if (err == 1) {
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
out:
	if (write)
		mmap_write_unlock(&mm->lock);
	else
		mmap_read_unlock(&mm->lock);
	return err ? err : unmapped;
}
