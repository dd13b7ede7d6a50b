/* SPDX-License-Identifier: GPL-2.0 */
/* MADV_FREE, MADV_PAGEOUT and MADV_POPULATE_* on pages (reclaim.h). */
#include "mm/reclaim.h"

#include "mm/kver.h"

#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <errno.h>

/* madvise_free_pte_range: the anonymous folios of the range become lazily
 * freed and their entries clean (young and dirty cleared). */
static void free_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct page *p = pte_page(*slot);

	(void)arg;
	if (p == &zero_page || !p->anon_vma)
		return;
	/* a dirty page mapped elsewhere too is left as it is */
	if (p->dirty && p->mapcount != 1)
		return;
	*slot &= ~PTE_DIRTY;
	if (!p->lazyfree || p->dirty)
		page_map_changes++; /* LazyFree and Dirty change wherever it is mapped */
	p->lazyfree = true;
	p->dirty = false;
	mm_note_change(mm, addr, addr + PAGE_SIZE);
}

void lazyfree_range(struct vma *v, uint64_t start, uint64_t end)
{
	mmap_assert_locked(&v->mm->lock); /* walk_page_range */
	for_each_pte(v->mm, start, end, free_one, NULL);
}

/* Reclaim one page mapped only here, as shrink_folio_list would without
 * swap (madvise_cold_or_pageout_pte_range leaves shared folios alone). */
static void pageout_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct page *p = pte_page(*slot);

	(void)arg;
	if (p == &zero_page || p->mapcount != 1)
		return;
	if (p->anon_vma) {
		/* others would need swap: they stay as they are */
		if (!p->lazyfree)
			return;
		/* try_to_unmap_one's "MADV_FREE page check": discarded while
		 * clean; redirtied, the entry's dirty bit goes to the folio
		 * (folio_mark_dirty, before the entry is put back) and the
		 * folio is swap-backed again. A later MADV_FREE then leaves it
		 * alone while another process maps it too (found by
		 * fuzz_conform: the model had dropped the mark at the write and
		 * never dirtied the folio) */
		if (!pte_page_dirty(*slot)) {
			pte_zap(mm, slot, addr);
			return;
		}
		p->lazyfree = false;
		p->dirty |= pte_dirty(*slot);
		return;
	}
	/* a page cache page is unmapped (try_to_unmap); a clean one then
	 * leaves the cache (a shmem one never written is a hole again), while
	 * dirty ones stay there (no swap, no writeback) for the next fault to
	 * find. An erase that cannot allocate keeps the page cached (reclaim
	 * may fail). */
	if (!pte_page_dirty(*slot) && !mt_store_range(&p->file->cache, p->index, p->index, NULL))
		p->refcount--; /* the cache's reference; the unmap drops the last */
	pte_zap(mm, slot, addr);
}

void pageout_range(struct vma *v, uint64_t start, uint64_t end)
{
	mmap_assert_locked(&v->mm->lock); /* walk_page_range */
	for_each_pte(v->mm, start, end, pageout_one, NULL);
}

int populate_advice(struct mm *mm, uint64_t start, uint64_t end, bool write)
{
	uint64_t budget = MM_POPULATE_MAX_PAGES;
	/* before KV_POPULATE_STOPS_AT_HOLE, madvise_walk_vmas's visit of each
	 * VMA: a hole is noted and the walk goes on past it */
	bool past_holes = !kver_has(mm->kver, KV_POPULATE_STOPS_AT_HOLE);
	int unmapped = 0;

	for (uint64_t at = start; at < end;) {
		struct vma *v = mm_vma_at(mm, at);
		uint64_t stop;

		/* faultin_page_range with FOLL_MADV_POPULATE: no VMA is
		 * -ENOMEM, an access the VMA does not allow -EINVAL */
		if (!v && past_holes) {
			v = mm_find_vma(mm, at);
			unmapped = -ENOMEM;
			if (!v || v->start >= end)
				return unmapped;
			at = v->start;
		}
		if (!v)
			return -ENOMEM;
		if (!(v->flags & (write ? VM_WRITE : VM_READ)))
			return -EINVAL;
		stop = v->end < end ? v->end : end;
		for (; at < stop && budget; at += PAGE_SIZE, budget--) {
			int err = fault_page_gup(v, at, write);

			/* a SIGBUS is -EFAULT to GUP (vm_fault_to_errno) */
			if (err)
				return err == -EAGAIN ? -EFAULT : err;
		}
		if (!budget)
			return 0;
	}
	return unmapped;
}
