/* SPDX-License-Identifier: GPL-2.0 */
/* VMA objects and lookups (vma.h). */
#include "mm/vma.h"

#include "mm/mm.h"
#include "mm/types.h"
#include "runtime/alloc.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

/* Creation numbers: names in reports and the tie-break of interval keys. */

struct vma *vma_alloc(struct mm *mm)
{
	struct vma *v = model_alloc(AK_VMA, sizeof(*v));

	if (!v)
		return NULL;
	v->mm = mm;
	v->id = ++mm_ids.vma;
	vma_lock_init(&v->lock, true);
	return v;
}

struct vma *vma_dup(const struct vma *v)
{
	struct vma *n = vma_alloc(v->mm);

	if (!n)
		return NULL;
	n->start = v->start;
	n->end = v->end;
	n->flags = v->flags;
	n->pgoff = v->pgoff;
	n->file = v->file;
	n->anon_vma = v->anon_vma;
	n->uffd = v->uffd;
	n->moved = v->moved;
	return n;
}

static void vma_free_cb(void *obj)
{
	struct vma *v = obj;

	vma_lock_destroy(&v->lock);
	model_free(AK_VMA, v);
}

void vma_free(struct vma *v)
{
	call_rcu_free(AK_VMA, v, vma_free_cb);
}

/* The lookups read the VMA tree: under the mmap lock (find_vma's
 * mmap_assert_locked) or RCU (the lock-free readers, as the maple tree's
 * RCU check allows). */
struct vma *mm_find_vma(struct mm *mm, uint64_t addr)
{
	struct mt_range r;

	mmap_assert_rcu_or_locked(&mm->lock);
	return mt_find(&mm->mt, addr, MT_MAX, &r);
}

struct vma *mm_vma_at(struct mm *mm, uint64_t addr)
{
	struct vma *v;

	mmap_assert_rcu_or_locked(&mm->lock);
	v = mt_load(&mm->mt, addr);

	return mt_is_zero(v) ? NULL : v;
}

struct vma *vma_prev(struct mm *mm, const struct vma *v)
{
	struct mt_range r;

	mmap_assert_rcu_or_locked(&mm->lock);
	return v->start ? mt_find_prev(&mm->mt, v->start - 1, 0, &r) : NULL;
}

struct vma *vma_next(struct mm *mm, const struct vma *v)
{
	struct mt_range r;

	mmap_assert_rcu_or_locked(&mm->lock);
	return mt_find(&mm->mt, v->end, MT_MAX, &r);
}

struct vma *mm_vma_nth(struct mm *mm, unsigned k)
{
	struct mt_cursor c;
	struct vma *v;

	mmap_assert_rcu_or_locked(&mm->lock);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c)))
		if (k-- == 0)
			return v;
	return NULL;
}

uint64_t prot_to_flags(int prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}
