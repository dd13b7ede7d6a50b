/* SPDX-License-Identifier: GPL-2.0 */
/* mlock and friends, and page table population (mlock.h), after mm/mlock.c
 * and mm/gup.c. */
#include "mm/mlock.h"

#include "mm/mm.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/sync.h"

#include <errno.h>

void mlock_account(struct mm *mm, int64_t pages)
{
	mm->locked_vm += pages;
}

void mlock_clear_vma(struct vma *v)
{
	vma_assert_write_locked(&v->lock, &v->mm->lock); /* vm_flags_clear */
	v->flags &= ~VM_LOCKED_MASK;
	mm_note_change(v->mm, v->start, v->end); /* smaps' Locked changes */
}

int populate_vma(struct vma *v, uint64_t start, uint64_t end, uint64_t *budget)
{
	bool write;

	/* "the VM_LOCKONFAULT case has never used faultin_page()" */
	if (v->flags & VM_LOCKONFAULT)
		return 0;
	if (!(v->flags & VM_ACCESS_FLAGS))
		return -EFAULT; /* never PROT_NONE pages */
	/* a write fault breaks copy-on-write where the mapping is private and
	 * writable; a (forced) read fault elsewhere */
	write = (v->flags & (VM_WRITE | VM_SHARED)) == VM_WRITE;
	for (uint64_t a = start; a < end && *budget; a += PAGE_SIZE) {
		int err = fault_page_gup(v, a, write);

		(*budget)--;
		/* faultin_page: a fault the kernel answers with SIGBUS is
		 * -EFAULT to GUP (vm_fault_to_errno) */
		if (err)
			return err == -EAGAIN ? -EFAULT : err;
	}
	return 0;
}

int mm_populate_range(struct mm *mm, uint64_t start, uint64_t len, bool ignore_errors)
{
	uint64_t end = start + len, budget = MM_POPULATE_MAX_PAGES, next;
	int ret = 0;

	if (end < start)
		end = UINT64_MAX;
	mmap_read_lock(&mm->lock);
	for (uint64_t at = start; at < end; at = next) {
		struct vma *v = mm_find_vma(mm, at);

		if (!v || v->start >= end || mt_is_zero(v))
			break;
		next = v->end < end ? v->end : end;
		ret = populate_vma(v, at > v->start ? at : v->start, next, &budget);
		if (ret && !ignore_errors)
			break;
		ret = 0; /* on with the next VMA */
	}
	mmap_read_unlock(&mm->lock);
	return ret;
}

void mm_populate(struct mm *mm, uint64_t start, uint64_t len)
{
	mm_populate_range(mm, start, len, true);
}

/* mlock_fixup: [start, end) of @v takes @newflags; *@res is the VMA that
 * holds the range afterwards. */
static int mlock_fixup(struct vma *v, uint64_t start, uint64_t end, uint64_t newflags,
		       struct vma **res)
{
	struct mm *mm = v->mm;
	uint64_t oldflags = v->flags;
	int64_t pages = (int64_t)((end - start) >> PAGE_SHIFT);
	int err;

	*res = v;
	if (newflags == oldflags)
		return 0;
	err = vma_modify(v, start, end, newflags, v->uffd, res);
	if (err)
		return err;
	if (!(newflags & VM_LOCKED))
		pages = -pages;
	else if (oldflags & VM_LOCKED)
		pages = 0;
	mlock_account(mm, pages);
	mm_note_change(mm, start, end); /* smaps' Locked changes */
	return 0;
}

/* apply_vma_lock_flags: VMA by VMA; a hole is -ENOMEM, after what came
 * before it changed. */
static int apply_lock_flags(struct mm *mm, uint64_t start, uint64_t len, uint64_t flags)
{
	uint64_t end = start + len, at = start, tmp;
	struct vma *v;

	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	v = mm_vma_at(mm, start);
	if (!v)
		return -ENOMEM;
	for (tmp = v->start; v && v->start < end; v = mm_find_vma(mm, tmp)) {
		struct vma *res;
		int err;

		if (v->start != tmp)
			return -ENOMEM;
		err = mlock_fixup(v, at, v->end < end ? v->end : end,
				  (v->flags & ~VM_LOCKED_MASK) | flags, &res);
		if (err)
			return err;
		at = tmp = res->end;
	}
	return tmp < end ? -ENOMEM : 0;
}

/* The pages of [start, start + len), start rounded down: mlock's range. */
static void lock_range(uint64_t *start, uint64_t *len)
{
	bool overflow;

	*len = page_align_up(*len + (*start & ~PAGE_MASK), &overflow);
	if (overflow)
		*len = 0; /* PAGE_ALIGN wraps */
	*start &= PAGE_MASK;
}

int mm_mlock(struct mm *mm, uint64_t start, uint64_t len, uint64_t vm_flags)
{
	int err;

	lock_range(&start, &len);
	mmap_write_lock(&mm->lock);
	err = apply_lock_flags(mm, start, len, vm_flags);
	mmap_write_unlock(&mm->lock);
	if (err)
		return err;
	err = mm_populate_range(mm, start, len, false);
	/* __mlock_posix_error_return */
	return err == -EFAULT ? -ENOMEM : err == -ENOMEM ? -EAGAIN : err;
}

int mm_munlock(struct mm *mm, uint64_t start, uint64_t len)
{
	int err;

	lock_range(&start, &len);
	mmap_write_lock(&mm->lock);
	err = apply_lock_flags(mm, start, len, 0);
	mmap_write_unlock(&mm->lock);
	return err;
}

/* apply_mlockall_flags: the default for new mappings, then every VMA
 * (errors ignored). */
static void apply_mlockall_flags(struct mm *mm, int flags)
{
	uint64_t to_add = 0;
	struct vma *v;

	mmap_assert_write_locked(&mm->lock);
	mm->def_flags &= ~VM_LOCKED_MASK;
	if (flags & MCL_FUTURE) {
		mm->def_flags |= VM_LOCKED | (flags & MCL_ONFAULT ? VM_LOCKONFAULT : 0);
		if (!(flags & MCL_CURRENT))
			return;
	}
	if (flags & MCL_CURRENT)
		to_add = VM_LOCKED | (flags & MCL_ONFAULT ? VM_LOCKONFAULT : 0);
	for (uint64_t at = 0; (v = mm_find_vma(mm, at));) {
		struct vma *res;

		if (mlock_fixup(v, v->start, v->end, (v->flags & ~VM_LOCKED_MASK) | to_add, &res))
			res = v;
		at = res->end;
	}
}

int mm_mlockall(struct mm *mm, int flags)
{
	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	mmap_write_lock(&mm->lock);
	apply_mlockall_flags(mm, flags);
	mmap_write_unlock(&mm->lock);
	if (flags & MCL_CURRENT)
		mm_populate(mm, 0, MM_TASK_SIZE);
	return 0;
}

int mm_munlockall(struct mm *mm)
{
	mmap_write_lock(&mm->lock);
	apply_mlockall_flags(mm, 0);
	mmap_write_unlock(&mm->lock);
	return 0;
}
