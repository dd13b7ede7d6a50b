/* SPDX-License-Identifier: GPL-2.0 */
/* Growing stacks (stack.h), after mm/mmap.c expand_downwards. */
#include "mm/stack.h"

#include "mm/anon.h"
#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/sync.h"

#include <errno.h>

uint64_t vm_start_gap(const struct vma *v)
{
	uint64_t start = v->start;

	if (!(v->flags & VM_GROWSDOWN))
		return start;
	start -= MM_STACK_GUARD_GAP;
	return start > v->start ? 0 : start;
}

/* The new start, stored: the tree first (it may fail), then the keys. */
static int grow_to(struct vma *v, uint64_t addr, uint64_t grow)
{
	uint64_t start = v->start, pgoff = v->pgoff;
	int err;

	vma_assert_write_locked(&v->lock, &v->mm->lock);
	v->start = addr;
	v->pgoff -= grow;
	err = vma_tree_store(v);
	if (err) {
		v->start = start;
		v->pgoff = pgoff;
		return err;
	}
	anon_vma_interval_update(v);
	if (v->flags & VM_LOCKED)
		mlock_account(v->mm, (int64_t)grow);
	mm_note_change(v->mm, addr, start);
	return 0;
}

int expand_downwards(struct vma *v, uint64_t addr)
{
	struct vma *prev;
	int err = 0;

	/* "mm: make find_extend_vma() fail if write lock not held" (6.5) */
	mmap_assert_write_locked(&v->mm->lock);
	if (!(v->flags & VM_GROWSDOWN))
		return -EFAULT;
	addr &= PAGE_MASK;
	/* the guard gap: no stack within it of an accessible VMA below */
	prev = vma_prev(v->mm, v);
	if (prev && !(prev->flags & VM_GROWSDOWN) && (prev->flags & VM_ACCESS_FLAGS) &&
	    addr - prev->end < MM_STACK_GUARD_GAP)
		return -EFAULT;
	/* its pages need the anon_vma the growth is serialized on */
	if (anon_vma_prepare(v))
		return -ENOMEM;
	vma_start_write(&v->lock, &v->mm->lock);
	anon_vma_lock_write(v->anon_vma);
	if (addr < v->start) {
		uint64_t grow = (v->start - addr) >> PAGE_SHIFT;

		/* acct_stack_growth: RLIMIT_STACK (the rest never fails here) */
		err = -EFAULT;
		if (grow <= v->pgoff && v->end - addr <= MM_RLIMIT_STACK)
			err = grow_to(v, addr, grow);
	}
	anon_vma_unlock_write(v->anon_vma);
	return err;
}
