/* SPDX-License-Identifier: GPL-2.0 */
/* exit_mmap and mmput (exit.h). */
#include "mm/exit.h"

#include "mm/mm.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma_merge.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

/*
 * exit_mmap: unmap and free every VMA, page and page table. After a failed
 * fork the tree holds the zero entry at the failure point and the parent's
 * VMAs after it: the walk stops at the marker, as the kernel's does.
 */
void mm_destroy(struct mm *mm)
{
	mm_destroy_nested(mm, 0);
}

void mm_destroy_nested(struct mm *mm, unsigned subclass)
{
	struct mt_cursor c;
	struct vma *v;

	mm->exiting = true;
	mmap_write_lock_nested(&mm->lock, subclass);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c)) && !mt_is_zero(v)) {
		vma_start_write(&v->lock, &mm->lock);
		zap_range(v, v->start, v->end);
	}
	mt_cursor_reset(&c, 0);
	while ((v = mt_cursor_next(&c)) && !mt_is_zero(v)) {
		vma_mark_detached(&v->lock, &mm->lock, true);
		vma_remove(v);
		mm->map_count--;
	}
	MODEL_ASSERT(mm->map_count == 0);
	mt_destroy(&mm->mt);
	free_pgtables(mm);
	mm->dead = true;
	mmap_write_unlock(&mm->lock);
	mm_drop(mm);
}

void mm_put(struct mm *mm)
{
	MODEL_ASSERT(mm->users > 0);
	if (--mm->users == 0)
		mm_destroy(mm);
}
