/*
 * mprotect, madvise and faults from the touch operation (after
 * mm/mprotect.c, mm/madvise.c and the fault path of arch/x86/mm/fault.c).
 */
#include "anon.h"
#include "check.h"
#include "page.h"
#include "vma_internal.h"

#include <errno.h>

int mm_mprotect(struct mm *mm, uint64_t start, uint64_t len, int prot)
{
	uint64_t end, at;
	bool overflow;
	struct vma *v;
	int err = 0;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	len = page_align_up(len, &overflow);
	end = start + len;
	if (overflow || end < start)
		return -ENOMEM;
	if (!len)
		return 0;
	mmap_write_lock(&mm->lock);
	v = mm_find_vma(mm, start);
	if (!v || v->start > start || v->start >= end) {
		err = -ENOMEM;
		goto out;
	}
	/* VMA by VMA; a hole ends it with -ENOMEM after what came before changed */
	for (at = start; at < end;) {
		uint64_t flags, stop;
		struct vma *res;

		v = mm_vma_at(mm, at);
		if (!v) {
			err = -ENOMEM;
			break;
		}
		flags = (v->flags & ~VM_ACCESS_FLAGS) | prot_to_flags(prot);
		/* a private mapping made writable is charged; one made read-only
		 * that never had a page is uncharged (mprotect_fixup, since 6.7) */
		if ((flags & VM_WRITE) && !(v->flags & (VM_ACCOUNT | VM_WRITE | VM_SHARED)))
			flags |= VM_ACCOUNT;
		else if (!(flags & VM_WRITE) && (v->flags & VM_ACCOUNT) && vma_is_anonymous(v) &&
			 !v->anon_vma)
			flags &= ~VM_ACCOUNT;
		stop = v->end < end ? v->end : end;
		err = vma_modify(v, at, stop, flags, v->uffd, &res);
		if (err)
			break;
		if (!(flags & VM_WRITE))
			pte_wrprotect_range(mm, at, stop);
		at = stop;
	}
out:
	mmap_write_unlock(&mm->lock);
	return err;
}

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
			zap_range(v, at, stop);
		} else {
			flags = advised_flags(v, advice);
			if (flags < 0) {
				err = (int)flags;
				break;
			}
			err = vma_modify(v, at, stop, (uint64_t)flags, v->uffd, &res);
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

/* Whether the fault needs an anon_vma that @v lacks (it must then retry
 * under the mmap lock, as vmf_anon_prepare makes the per-VMA path do). */
static bool needs_anon_vma(const struct vma *v, uint64_t addr, bool write)
{
	uintptr_t pte = mm_pte(v->mm, addr);

	if (v->anon_vma || !write || (v->flags & VM_SHARED))
		return false;
	return !pte || !pte_write(pte);
}

/* One page: the per-VMA-lock path first, the mmap lock if that fails. */
static int touch_page(struct mm *mm, uint64_t addr, bool write)
{
	struct vma *v;
	int err;

	rcu_read_lock();
	v = mm_vma_at(mm, addr);
	if (v && vma_start_read(&v->lock, &mm->lock)) {
		rcu_read_unlock();
		/* lock_vma_under_rcu: the VMA may have changed before we locked it */
		if (addr >= v->start && addr < v->end && !needs_anon_vma(v, addr, write)) {
			err = fault_page(v, addr, write);
			vma_end_read(&v->lock);
			return err;
		}
		vma_end_read(&v->lock);
	} else {
		rcu_read_unlock();
	}
	mmap_read_lock(&mm->lock);
	v = mm_vma_at(mm, addr);
	err = v ? fault_page(v, addr, write) : -EFAULT;
	mmap_read_unlock(&mm->lock);
	return err;
}

int mm_touch(struct mm *mm, uint64_t start, uint64_t len, bool write)
{
	if (len > (MM_TOUCH_MAX_PAGES << PAGE_SHIFT))
		len = MM_TOUCH_MAX_PAGES << PAGE_SHIFT;
	for (uint64_t a = start & PAGE_MASK; a < start + len && a >= (start & PAGE_MASK);
	     a += PAGE_SIZE) {
		int err = touch_page(mm, a, write);

		if (err)
			return err;
	}
	return 0;
}
