/* SPDX-License-Identifier: GPL-2.0 */
/* Splitting, merging and removing VMAs (vma_merge.h). */
#include "mm/vma_merge.h"

#include "mm/anon.h"
#include "mm/file.h"
#include "mm/kver.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <errno.h>
#include <stdlib.h>

int vma_tree_store(struct vma *v)
{
	mmap_assert_write_locked(&v->mm->lock); /* vma_iter_store */
	return mt_store_range(&v->mm->mt, v->start, v->end - 1, v);
}

void vma_remove(struct vma *v)
{
	mmap_assert_write_locked(&v->mm->lock);
	zap_range(v, v->start, v->end);
	unlink_anon_vmas(v);
	vma_unlink_file(v);
	vma_free(v);
}

/* @v's bounds or pgoff changed: key it again in its anon_vmas' trees and in
 * its file's i_mmap, as vma_prepare and vma_complete's updates do. */
static void vma_intervals_update(struct vma *v)
{
	anon_vma_interval_update(v);
	vma_file_interval_update(v);
}

/*
 * Split without the map count limit, as munmap splits (__split_vma): it may
 * leave one VMA above the limit for a moment, to free what it unmaps.
 */
int vma_split_unlimited(struct vma *v, uint64_t addr, bool new_below)
{
	struct mm *mm = v->mm;
	uint64_t shift = (addr - v->start) >> PAGE_SHIFT;
	struct vma *n;
	int err;

	MODEL_ASSERT(addr > v->start && addr < v->end && !(addr & ~PAGE_MASK));
	mmap_assert_write_locked(&mm->lock);
	n = vma_dup(v);
	if (!n)
		return -ENOMEM;
	if (new_below) {
		n->end = addr;
	} else {
		n->start = addr;
		n->pgoff += shift;
	}
	err = anon_vma_clone(n, v);
	if (err)
		goto free;
	vma_start_write(&v->lock, &mm->lock);
	vma_lock_init(&n->lock, false);
	vma_start_write(&n->lock, &mm->lock);
	/* vma_prepare to vma_complete: the file's i_mmap changes under one hold
	 * of its lock, so no walk finds the pages in neither half */
	if (v->file)
		down_write(&v->file->i_mmap_rwsem);
	err = vma_tree_store(n);
	if (err) {
		if (v->file)
			up_write(&v->file->i_mmap_rwsem);
		unlink_anon_vmas(n);
		goto free;
	}
	if (new_below) {
		v->start = addr;
		v->pgoff += shift;
	} else {
		v->end = addr;
	}
	vma_intervals_update(v);
	if (v->file) {
		vma_link_file_locked(n);
		up_write(&v->file->i_mmap_rwsem);
	}
	mm->map_count++;
	return 0;
free:
	vma_lock_destroy(&n->lock);
	model_free(AK_VMA, n);
	return err;
}

/* split_vma: mprotect, madvise and userfaultfd refuse a split at the limit. */
int vma_split(struct vma *v, uint64_t addr, bool new_below)
{
	if (v->mm->map_count >= v->mm->max_map_count)
		return -ENOMEM;
	return vma_split_unlimited(v, addr, new_below);
}

/* A VMA with an anon_vma it shares with a parent (vma_is_fork_child,
 * vma_had_uncowed_parents): its chain has more than its own entry. */
static bool fork_child(const struct vma *v)
{
	return v && v->anon_vma && v->chain && v->chain->vma_next;
}

/*
 * is_mergeable_anon_vma, as this machine's kernel (6.18) decides it since
 * "mm/vma: fix incorrectly disallowed anonymous VMA merges" (6.16) and its
 * mremap fix: a neighbour @tgt without an anon_vma may take a range that has
 * one (it will share it) unless the range's VMA or the VMA it is copied from
 * is a fork child; a neighbour with one may take a range without one unless
 * it is a fork child itself; two anon_vmas must be the same. Kernels
 * before 6.16 refuse the first case (kver.h's KV_ANON_MERGE_INTO_UNFAULTED;
 * docs/fidelity.md). vmafuzz conform found
 * the second case (a new mapping next to a forked child's VMA) merging in
 * the model.
 */
static bool anon_mergeable(const struct vma *tgt, const struct merge_range *m)
{
#ifdef VMAFUZZ_BUG_merge_anon_mismatch
	/* the first version of the reuse on fork (2019) let VMAs with
	 * different anon_vmas merge */
	(void)tgt;
	(void)m;
	return true;
#endif
	if (!tgt->anon_vma && m->anon_vma)
		return kver_has(tgt->mm->kver, KV_ANON_MERGE_INTO_UNFAULTED) &&
		       !fork_child(m->vma) && !fork_child(m->copied_from);
	if (tgt->anon_vma && !m->anon_vma)
		return !fork_child(tgt);
	return tgt->anon_vma == m->anon_vma;
}

/* What a range would become: the properties a neighbour must share. */
static bool same_kind(const struct vma *n, const struct merge_range *m)
{
	return !((n->flags ^ m->flags) & ~VM_SOFTDIRTY) && n->file == m->file &&
	       n->uffd == m->uffd && anon_mergeable(n, m);
}

static bool can_merge_after(const struct vma *prev, const struct merge_range *m)
{
	return prev && prev->end == m->start && same_kind(prev, m) &&
	       prev->pgoff + vma_pages(prev) == m->pgoff;
}

static bool can_merge_before(const struct vma *next, const struct merge_range *m)
{
	return next && next->start == m->end && same_kind(next, m) &&
	       next->pgoff == m->pgoff + ((m->end - m->start) >> PAGE_SHIFT);
}

/* Neighbours that merge on both sides must also suit each other. */
static bool both_ways(const struct vma *prev, const struct vma *next)
{
	return !prev->anon_vma || !next->anon_vma || prev->anon_vma == next->anon_vma;
}

/* @keep absorbs @gone's range: take its anon_vma if it has none
 * (dup_anon_vma). *@dup is set to @keep when it took one, so that a later
 * failure can undo it (the kernel unlinks anon_dup on its failure paths). */
static int take_anon(struct vma *keep, struct vma *gone, struct vma **dup)
{
	int err;

	if (keep->anon_vma || !gone->anon_vma)
		return 0;
	/* as vma_merge_existing_range write-locks what it merges before
	 * dup_anon_vma (which asserts it) */
	vma_start_write(&keep->lock, &keep->mm->lock);
	vma_assert_write_locked(&keep->lock, &keep->mm->lock);
	keep->anon_vma = gone->anon_vma;
	err = anon_vma_clone(keep, gone);
	if (err)
		keep->anon_vma = NULL;
	else
		*dup = keep;
	return err;
}

/* A merge failed after take_anon: give back what it took. */
static int untake_anon(struct vma *dup, int err)
{
	if (dup)
		unlink_anon_vmas(dup);
	return err;
}

/* Take @gone (adjacent, already covered by @keep's new range) out. */
static void absorb(struct vma *keep, struct vma *gone)
{
	struct mm *mm = keep->mm;

	(void)keep;
	vma_start_write(&gone->lock, &mm->lock);
	vma_mark_detached(&gone->lock, &mm->lock, true);
	/* its pages stay: they are mapped in the same mm at the same place */
	unlink_anon_vmas(gone);
	vma_unlink_file(gone);
	vma_free(gone);
	mm->map_count--;
}

/* Grow @v to [start, end) (already checked mergeable) with one tree store. */
static int expand(struct vma *v, uint64_t start, uint64_t end)
{
	struct mm *mm = v->mm;
	uint64_t ostart = v->start, oend = v->end, opgoff = v->pgoff;
	int err;

	mmap_assert_write_locked(&mm->lock); /* vma_expand */
	vma_start_write(&v->lock, &mm->lock);
	if (start < v->start)
		v->pgoff -= (v->start - start) >> PAGE_SHIFT;
	v->start = start;
	v->end = end;
	err = vma_tree_store(v);
	if (err) {
		v->start = ostart;
		v->end = oend;
		v->pgoff = opgoff;
		return err;
	}
	v->flags |= VM_SOFTDIRTY;
	vma_intervals_update(v);
	return 0;
}

/*
 * Merge a new mapping [m->start, m->end) into its neighbours if it may
 * (vma_merge_new_range, vma_expand). Returns the VMA that now covers it,
 * NULL when no merge was possible, or sets *err.
 */
struct vma *vma_merge_new_range(struct mm *mm, struct merge_range *m, int *err)
{
	struct vma *prev, *next;
	bool left, right;
	struct vma *target, *dup = NULL;
	uint64_t start;

	mmap_assert_write_locked(&mm->lock);
	prev = m->start ? mm_vma_at(mm, m->start - 1) : NULL;
	next = mm_vma_at(mm, m->end);
	if (prev && prev == m->exclude)
		prev = NULL;
	if (next && next == m->exclude)
		next = NULL;
	right = can_merge_before(next, m);
	if (m->next_first && right) {
		/* prev is asked whether it takes next's anon_vma */
		struct merge_range mn = *m;

		mn.anon_vma = next->anon_vma;
		left = can_merge_after(prev, &mn);
	} else {
		left = can_merge_after(prev, m);
		right = right && (!left || both_ways(prev, next));
	}
	target = left ? prev : right ? next : NULL;
	start = left ? prev->start : m->start;
	*err = 0;
	if (!target)
		return NULL;
	if (left && right)
		*err = take_anon(prev, next, &dup);
		/* an mremap'd range takes its pages' anon_vma along (the fix of the
		 * anon_vma use-after-free of 2026: vma_expand always dups from the
		 * VMA copied from) */
#ifndef VMAFUZZ_BUG_copied_anon_merge
	if (!*err && m->copied_from)
		*err = take_anon(target, m->copied_from, &dup);
#endif
	if (!*err)
		*err = expand(target, start, right ? next->end : m->end);
	if (*err)
		return untake_anon(dup, *err), NULL;
#ifdef VMAFUZZ_BUG_merge_case3_pgoff
	/* "mm/mremap: fix vm_pgoff in vma_merge() case 3" (2023): a range
	 * copied by mremap into next left next's pgoff as it was while next
	 * grew down over the range */
	if (!left && m->copied_from) {
		target->pgoff += (m->end - m->start) >> PAGE_SHIFT;
		vma_intervals_update(target);
	}
#endif
	if (left && right)
		absorb(prev, next);
	return target;
}

/* vma_modify's merge with both neighbours: prev takes v and next. */
static int modify_merge_both(struct vma *prev, struct vma *v, struct vma *next, struct vma **result)
{
	struct vma *dup = NULL;
	int err;

	if ((err = take_anon(prev, v, &dup)) || (err = take_anon(prev, next, &dup)))
		return err;
	err = expand(prev, prev->start, next->end);
	if (err)
		return untake_anon(dup, err);
	absorb(prev, v);
	absorb(prev, next);
	*result = prev;
	return 0;
}

/* vma_modify's merge of [v->start, end) into prev: all of v, or its head.
 * *@result is prev, even after a failure. */
static int modify_merge_left(struct vma *prev, struct vma *v, uint64_t end, struct vma **result)
{
	struct vma *dup = NULL;
	int err = take_anon(prev, v, &dup);

	if (err)
		return err;
	if (end == v->end) {
		err = expand(prev, prev->start, end);
		if (!err)
			absorb(prev, v);
	} else {
		/* prev grows over [start, end), v keeps the rest */
		vma_start_write(&v->lock, &v->mm->lock);
		err = expand(prev, prev->start, end);
		if (!err) {
			v->pgoff += (end - v->start) >> PAGE_SHIFT;
			v->start = end;
			vma_intervals_update(v);
		}
	}
	*result = prev;
	return err ? untake_anon(dup, err) : 0;
}

/* vma_modify's merge of [start, v->end) into next: all of v, or its tail.
 * *@result is next, even after a failure. */
static int modify_merge_right(struct vma *next, struct vma *v, uint64_t start, struct vma **result)
{
	uint64_t end = v->end;
	struct vma *dup = NULL;
	int err = 0;

#ifdef VMAFUZZ_BUG_merge_case4_anon
	/* "mm/mremap: fix dup_anon_vma() in vma_merge() case 4" (2023): when v's
	 * tail moved into next, next did not take v's anon_vma */
	if (start == v->start)
#endif
		err = take_anon(next, v, &dup);
	if (err)
		return err;
	if (start == v->start) {
		err = expand(next, start, next->end);
		if (!err)
			absorb(next, v);
	} else {
		vma_start_write(&v->lock, &v->mm->lock);
		v->end = start;
		vma_intervals_update(v); /* keys follow bounds at every point */
		err = expand(next, start, next->end);
		if (err) {
			v->end = end;
			vma_intervals_update(v);
		}
	}
	*result = next;
	return err ? untake_anon(dup, err) : 0;
}

int vma_modify(struct vma *v, uint64_t start, uint64_t end, uint64_t flags, struct uffd_ctx *uffd,
	       struct vma **result)
{
	struct mm *mm = v->mm;
	struct merge_range m = {
	    .start = start,
	    .end = end,
	    .flags = flags,
	    .pgoff = v->pgoff + ((start - v->start) >> PAGE_SHIFT),
	    .file = v->file,
	    .anon_vma = v->anon_vma,
	    .uffd = uffd,
	    .vma = v,
	};
	struct vma *prev, *next;
	bool left, right;
	int err;

	mmap_assert_write_locked(&mm->lock); /* vma_merge_existing_range */
	prev = start == v->start ? vma_prev(mm, v) : NULL;
	next = end == v->end ? vma_next(mm, v) : NULL;
	*result = v;
	if (flags == v->flags && uffd == v->uffd)
		return 0;
	left = can_merge_after(prev, &m);
	right = can_merge_before(next, &m) && (!left || both_ways(prev, next));
	if (left && right)
		return modify_merge_both(prev, v, next, result);
	if (left)
		return modify_merge_left(prev, v, end, result);
	if (right)
		return modify_merge_right(next, v, start, result);
	/* no merge: split off what stays as it is, change the middle */
	if (start > v->start && (err = vma_split(v, start, true)))
		return err;
	if (end < v->end && (err = vma_split(v, end, false)))
		return err;
	vma_start_write(&v->lock, &mm->lock);
	vma_assert_write_locked(&v->lock, &mm->lock); /* vm_flags_reset */
	v->flags = flags;
	v->uffd = uffd;
	return 0;
}
