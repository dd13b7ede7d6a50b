/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mprotect, madvise and faults from the touch operation (after
 * mm/mprotect.c, mm/madvise.c and the fault path of arch/x86/mm/fault.c).
 */
#include "mm/mprotect.h"

#include "mm/kver.h"
#include "mm/mlock.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/sync.h"

#include <errno.h>

int mm_mprotect(struct mm *mm, uint64_t start, uint64_t len, int prot)
{
	uint64_t end, at, oldflags, budget = MM_POPULATE_MAX_PAGES;
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
		bool changed;

		v = mm_vma_at(mm, at);
		if (!v) {
			err = -ENOMEM;
			break;
		}
		flags = (v->flags & ~VM_ACCESS_FLAGS) | prot_to_flags(prot);
		/* a private mapping made writable is charged; one made read-only
		 * that never had a page is uncharged where the version does that
		 * (KV_MPROTECT_UNACCOUNT_UNFAULTED), but only when the protection
		 * changes: mprotect_fixup returns first when it does not (found
		 * by vmafuzz conform: a read-only VMA without an anon_vma kept
		 * VM_ACCOUNT in the kernel) */
		if (flags == v->flags)
			;
		else if ((flags & VM_WRITE) && !(v->flags & (VM_ACCOUNT | VM_WRITE | VM_SHARED)))
			flags |= VM_ACCOUNT;
		else if (!(flags & VM_WRITE) && (v->flags & VM_ACCOUNT) && vma_is_anonymous(v) &&
			 !v->anon_vma && kver_has(mm->kver, KV_MPROTECT_UNACCOUNT_UNFAULTED))
			flags &= ~VM_ACCOUNT;
		stop = v->end < end ? v->end : end;
		oldflags = v->flags;
		changed = flags != v->flags;
		err = vma_modify(v, at, stop, flags, v->uffd, &res);
		if (err)
			break;
		/* change_protection, when the flags change (mprotect_fixup), with
		 * the new vm_page_prot: read-only without VM_WRITE, and in a
		 * shared mapping that uffd-wp wants write notification for (then
		 * no entry is made writable again on this machine's 6.18, dirty
		 * or not: found by fuzz_conform; page.h) */
		if (!(flags & VM_WRITE) || (changed && (flags & VM_SHARED) && (flags & VM_UFFD_WP)))
			pte_wrprotect_range(mm, at, stop);
		else if (changed && (flags & VM_SHARED))
			pte_mkwrite_shared_range(mm, at, stop);
		/* a private locked VMA becoming writable breaks copy-on-write now,
		 * to spare a major fault later (mprotect_fixup; errors ignored) */
		if ((oldflags & (VM_WRITE | VM_SHARED | VM_LOCKED)) == VM_LOCKED &&
		    (flags & VM_WRITE))
			populate_vma(res, at, stop, &budget);
		at = stop;
	}
out:
	mmap_write_unlock(&mm->lock);
	return err;
}
