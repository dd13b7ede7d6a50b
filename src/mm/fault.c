/* SPDX-License-Identifier: GPL-2.0 */
/* Touching memory: the fault path above fault_page (fault.h). */
#include "mm/fault.h"

#include "mm/page.h"
#include "mm/stack.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "runtime/sync.h"

#include <errno.h>

/* Whether the fault needs an anon_vma that @v lacks (it must then retry
 * under the mmap lock, as vmf_anon_prepare makes the per-VMA path do): a
 * private write that finds no writable entry, and a read of a missing
 * anonymous page where the mm forbids the zero page. */
static bool needs_anon_vma(const struct vma *v, uint64_t addr, bool write)
{
	uintptr_t pte = mm_pte(v->mm, addr);

	if (v->anon_vma || (v->flags & VM_SHARED))
		return false;
	if (!write) /* a page of its own instead of the zero page */
		return !pte && !v->file && v->mm->forbids_zeropage;
	return !pte || !pte_write(pte);
}

/* Fault the page in, then the access itself, under the same lock: nothing
 * yields between the two. */
static int fault_access(struct vma *v, uint64_t addr, bool write, uint64_t *val)
{
	int err = fault_page(v, addr, write);

	if (!err)
		page_access(v->mm, addr, write, val);
	return err;
}

/*
 * lock_mm_and_find_vma for an address no VMA holds (mmap read lock held,
 * dropped here): a stack above it grows down to it under the write lock,
 * taken anew, and the VMA looked up again; then the fault goes on under
 * the read lock the write lock is downgraded to. -EFAULT (SIGSEGV) when
 * nothing may grow there.
 */
static int stack_fault(struct mm *mm, uint64_t addr, bool write, uint64_t *val)
{
	struct vma *v = mm_find_vma(mm, addr);
	int err;

	if (!v || !(v->flags & VM_GROWSDOWN)) {
		mmap_read_unlock(&mm->lock);
		return -EFAULT;
	}
	mmap_read_unlock(&mm->lock);
	mmap_write_lock(&mm->lock);
	v = mm_find_vma(mm, addr);
	err = !v ? -EFAULT : v->start > addr ? expand_downwards(v, addr) : 0;
	if (err) {
		mmap_write_unlock(&mm->lock);
		return err;
	}
	mmap_write_downgrade(&mm->lock);
	err = fault_access(v, addr, write, val);
	mmap_read_unlock(&mm->lock);
	return err;
}

/* One page: the per-VMA-lock path first, the mmap lock if that fails. */
static int touch_page(struct mm *mm, uint64_t addr, bool write, uint64_t *val)
{
	struct vma *v;
	int err;

	rcu_read_lock();
	v = mm_vma_at(mm, addr);
	if (v && vma_start_read(&v->lock, &mm->lock)) {
		rcu_read_unlock();
		/* lock_vma_under_rcu: the VMA may have changed before we locked it */
		if (addr >= v->start && addr < v->end && !needs_anon_vma(v, addr, write)) {
			err = fault_access(v, addr, write, val);
			vma_end_read(&v->lock);
			return err;
		}
		vma_end_read(&v->lock);
	} else {
		rcu_read_unlock();
	}
	mmap_read_lock(&mm->lock);
	v = mm_vma_at(mm, addr);
	if (!v)
		return stack_fault(mm, addr, write, val);
	err = fault_access(v, addr, write, val);
	mmap_read_unlock(&mm->lock);
	return err;
}

int mm_access(struct mm *mm, uint64_t start, uint64_t len, bool write, uint64_t val, uint64_t *seen)
{
	uint64_t k = 0, scratch;

	if (len > (MM_TOUCH_MAX_PAGES << PAGE_SHIFT))
		len = MM_TOUCH_MAX_PAGES << PAGE_SHIFT;
	for (uint64_t a = start & PAGE_MASK; a < start + len && a >= (start & PAGE_MASK);
	     a += PAGE_SIZE, k++) {
		uint64_t *at = write ? &scratch : seen ? &seen[k] : &scratch;
		int err;

		scratch = val + k;
		err = touch_page(mm, a, write, at);
		if (err)
			return err;
	}
	return 0;
}

int mm_touch(struct mm *mm, uint64_t start, uint64_t len, bool write)
{
	return mm_access(mm, start, len, write, 0, NULL);
}
