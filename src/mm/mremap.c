/* SPDX-License-Identifier: GPL-2.0 */
/* mremap (mremap.h), after mm/mremap.c and copy_vma of mm/vma.c. */
#include "mm/mremap.h"

#include "mm/anon.h"
#include "mm/file.h"
#include "mm/kver.h"
#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"

#include <errno.h>

/* One call, as the kernel's vma_remap_struct threads it through. */
struct remap {
	struct mm *mm;
	uint64_t addr, old_len, new_len, new_addr;
	int flags;
	bool populate; /* a VM_LOCKED range grew: populate the growth after unlocking */
};

/* vma_to_resize: the VMA holding [addr, addr + old_len) if it may become
 * new_len long, or a negative errno. */
static int to_resize(struct remap *r, struct vma **out)
{
	struct vma *v = mm_vma_at(r->mm, r->addr);
	uint64_t pgoff;

	if (!v)
		return -EFAULT;
	/* old_len 0 duplicates a shared mapping; private ones refuse */
	if (!r->old_len && !(v->flags & (VM_SHARED | VM_MAYSHARE)))
		return -EINVAL;
	if (r->old_len > v->end - r->addr)
		return -EFAULT; /* across a VMA boundary */
	*out = v;
	if (r->new_len == r->old_len)
		return 0;
	pgoff = v->pgoff + ((r->addr - v->start) >> PAGE_SHIFT);
	if (pgoff + (r->new_len >> PAGE_SHIFT) < pgoff)
		return -EINVAL;
	/* mlock_future_ok and may_expand_vm: no rlimit in the model */
	return 0;
}

/* copy_vma: the VMA that will hold [addr, addr + len) for @*vp's pages, merged
 * with its new neighbours when they allow it, else a new VMA sharing the
 * source's anon_vma. NULL on allocation failure. *@vp becomes the merged VMA
 * when an unfaulted source merged with its own copy. */
static struct vma *copy_vma(struct vma **vp, uint64_t addr, uint64_t len, uint64_t pgoff,
			    bool keep_source, bool *need_rmap_locks)
{
	struct vma *v = *vp, *nv = NULL;
	struct mm *mm = v->mm;
	uint64_t vma_start = v->start; /* v may be merged away */
	bool faulted = true, apart;
	struct merge_range m;
	int err;

	if (vma_is_anonymous(v) && !v->anon_vma) {
		/* no page yet: take the page offset of the new place, to merge */
		pgoff = addr >> PAGE_SHIFT;
		faulted = false;
	}
	/* a kept source and its copy stay two VMAs (KV_DONTUNMAP_NO_SELF_MERGE);
	 * a locked one whatever the version: merged, the kernels without the
	 * change leak locked_vm, which the model does not follow */
	apart = !faulted && keep_source &&
		(kver_has(mm->kver, KV_DONTUNMAP_NO_SELF_MERGE) || (v->flags & VM_LOCKED));
	m = (struct merge_range){
	    .start = addr,
	    .end = addr + len,
	    .flags = v->flags,
	    .pgoff = pgoff,
	    .file = v->file,
	    .anon_vma = v->anon_vma,
	    .uffd = v->uffd,
	    .copied_from = v,
	    .exclude = apart ? v : NULL,
	};
	/* a context that loses the VMA (no remap event) keeps it from merging
	 * (KV_UFFD_COPY_APART; before, it merged with neighbours of that
	 * context, and uffd_mremap_prep cleared theirs with it) */
	if (!v->uffd || v->uffd->event_remap || !kver_has(mm->kver, KV_UFFD_COPY_APART))
		nv = vma_merge_new_range(mm, &m, &err);
	if (nv) {
		if (vma_start >= nv->start && vma_start < nv->end) {
			MODEL_ASSERT(!faulted); /* only an unfaulted source merges with its copy */
			*vp = v = nv;
		}
		*need_rmap_locks = nv->pgoff <= v->pgoff;
		return nv;
	}
	/* a merge that could not allocate falls back to a VMA of its own */
	nv = vma_dup(v);
	if (!nv)
		return NULL;
	nv->start = addr;
	nv->end = addr + len;
	nv->pgoff = pgoff;
	nv->moved |= pgoff != addr >> PAGE_SHIFT;
	vma_lock_init(&nv->lock, false);
	if (anon_vma_clone(nv, v))
		goto free;
	vma_start_write(&nv->lock, &mm->lock);
	if (vma_tree_store(nv)) {
		unlink_anon_vmas(nv);
		goto free;
	}
	vma_link_file(nv);
	mm->map_count++;
	*need_rmap_locks = false;
	return nv;
free:
	vma_lock_destroy(&nv->lock);
	model_free(AK_VMA, nv);
	return NULL;
}

/* move_page_tables, under the source's rmap locks when the kernel takes them
 * (a merged destination may come before the source in rmap order). */
static uint64_t move_entries(struct vma *src, uint64_t from, uint64_t to, uint64_t len,
			     bool rmap_locks)
{
	uint64_t moved;

	if (rmap_locks && src->file)
		down_write(&src->file->i_mmap_rwsem);
	if (rmap_locks && src->anon_vma)
		anon_vma_lock_write(src->anon_vma);
	moved = move_ptes(src->mm, from, to, len);
	if (rmap_locks && src->anon_vma)
		anon_vma_unlock_write(src->anon_vma);
	if (rmap_locks && src->file)
		up_write(&src->file->i_mmap_rwsem);
	return moved;
}

/* MREMAP_DONTUNMAP's end: the source, now empty, is unlocked and, when it is
 * the whole range, leaves its anon_vmas. An anonymous one is then unfaulted
 * and takes the pgoff of its start where the version has that change
 * (KV_DONTUNMAP_UNFAULTED_PGOFF); elsewhere its pgoff stays what it was,
 * even where an earlier move made it differ from its start, so it merges
 * with a new neighbour only where that pgoff follows on
 * (corpus/fuzz_mm/conform_dontunmap_pgoff.txt shows both). */
static void dontunmap_complete(struct vma *v, uint64_t start, uint64_t end)
{
	vma_start_write(&v->lock, &v->mm->lock);
	mlock_clear_vma(v);
	if (v->start == start && v->end == end) {
		unlink_anon_vmas(v);
		if (!v->file && kver_has(v->mm->kver, KV_DONTUNMAP_UNFAULTED_PGOFF))
			v->pgoff = v->start >> PAGE_SHIFT;
	}
}

/* The source's VM_ACCOUNT goes while it is unmapped and comes back on the
 * pieces left of it (move_vma's "conceal VM_ACCOUNT"). */
static void unmap_source(struct remap *r, struct vma *v, uint64_t vm_flags)
{
	struct mm *mm = r->mm;
	uint64_t start = r->addr, end = r->addr + r->old_len;
	bool account = (vm_flags & VM_ACCOUNT) && !(r->flags & MREMAP_DONTUNMAP);
	bool head = false, tail = false;

	if (account) {
		vma_start_write(&v->lock, &mm->lock);
		v->flags &= ~VM_ACCOUNT;
		head = v->start < start;
		tail = v->end > end;
	}
	/* a split that fails leaves both: "just get accounts right" */
	if (do_munmap(mm, start, end) < 0)
		head = tail = false;
	if (vm_flags & VM_LOCKED)
		mlock_account(mm, (int64_t)(r->new_len >> PAGE_SHIFT));
	if (head && (v = mm_vma_at(mm, start - 1))) {
		vma_start_write(&v->lock, &mm->lock);
		v->flags |= VM_ACCOUNT;
	}
	if (tail && (v = mm_vma_at(mm, end))) {
		vma_start_write(&v->lock, &mm->lock);
		v->flags |= VM_ACCOUNT;
	}
}

/* The map count headroom a move needs. Since KV_MREMAP_MAP_COUNT_SPLITS:
 * the copy and a split at each end of the source, and one more when a kept
 * locked source is split first; before: room for the splits of a later
 * munmap (four VMAs). */
static bool room_to_move(const struct remap *r, const struct vma *v)
{
	const struct mm *mm = r->mm;
	int presplit = (r->flags & MREMAP_DONTUNMAP) && (v->flags & VM_LOCKED);

	if (kver_has(mm->kver, KV_MREMAP_MAP_COUNT_SPLITS))
		return mm->map_count + 2 + presplit <= mm->max_map_count;
	return mm->map_count < mm->max_map_count - 3;
}

/* The headroom checked before the source is looked up (KV_MREMAP_CHECKS_FIRST):
 * since KV_MREMAP_MAP_COUNT_SPLITS, for every call, what a move needs plus a
 * split by each of the two unmaps that may come first; before, for a move to
 * a new address only, mremap_to's room of five VMAs. */
static bool room_before(const struct remap *r)
{
	const struct mm *mm = r->mm;

	if (kver_has(mm->kver, KV_MREMAP_MAP_COUNT_SPLITS))
		return mm->map_count + 4 + !!(r->flags & MREMAP_DONTUNMAP) <= mm->max_map_count;
	return !(r->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) ||
	       mm->map_count + 2 < mm->max_map_count - 3;
}

/* move_vma: copy, move the entries, unmap the source (or, failing, the copy). */
static int64_t move_vma(struct remap *r, struct vma *v)
{
	struct mm *mm = r->mm;
	uint64_t vm_flags = v->flags, start = r->addr, len = r->old_len;
	bool dontunmap = r->flags & MREMAP_DONTUNMAP, rmap_locks = false;
	struct vma *nv;
	int64_t ret = (int64_t)r->new_addr;
	int err;

	if (!room_to_move(r, v))
		return -ENOMEM;
#ifndef VMAFUZZ_BUG_dontunmap_locked_split
	if (dontunmap && (v->flags & VM_LOCKED)) {
		/* the locked source is split first, to account it right
		 * (whatever the version: KV_DONTUNMAP_LOCKED_SPLIT) */
		if (v->start != start && (err = vma_split(v, start, true)))
			return err;
		if (v->end != start + len && (err = vma_split(v, start + len, false)))
			return err;
	}
#endif
	vma_start_write(&v->lock, &mm->lock);
	nv = copy_vma(&v, r->new_addr, r->new_len, v->pgoff + ((start - v->start) >> PAGE_SHIFT),
		      dontunmap, &rmap_locks);
	if (!nv)
		return -ENOMEM;
	mm_note_change(mm, r->new_addr, r->new_addr + r->new_len);
	if (move_entries(v, start, r->new_addr, len, rmap_locks) < len) {
		/* entries go back (their tables exist), the copy is unmapped */
		move_entries(nv, r->new_addr, start, len, true);
		ret = -ENOMEM;
		v = nv;
		r->addr = r->new_addr;
		r->old_len = r->new_len;
	} else {
		uffd_mremap_prep(nv);
	}
	if (ret >= 0 && dontunmap) {
		dontunmap_complete(v, start, start + len);
		return ret;
	}
	unmap_source(r, v, vm_flags);
	if (vm_flags & VM_LOCKED)
		r->populate = true;
	return ret;
}

/* vma_expandable: nothing mapped in [v->end, v->end + delta). */
static bool expandable(struct vma *v, uint64_t delta)
{
	uint64_t end = v->end + delta;
	struct vma *next;

	if (end < v->end || end > MM_TASK_SIZE)
		return false;
	next = mm_find_vma(v->mm, v->end);
	return !next || next->start >= end;
}

/* vma_merge_extend: the range after @v becomes part of it (and of the next
 * VMA, when it may merge too). */
static int64_t expand_in_place(struct remap *r, struct vma *v)
{
	uint64_t delta = r->new_len - r->old_len;
	struct merge_range m = {
	    .start = v->end,
	    .end = v->end + delta,
	    .flags = v->flags,
	    .pgoff = v->pgoff + vma_pages(v),
	    .file = v->file,
	    .anon_vma = v->anon_vma,
	    .uffd = v->uffd,
	};
	int err;

	if (!vma_merge_new_range(r->mm, &m, &err))
		return -ENOMEM; /* it can always merge with v: only a failure stops it */
	mm_note_change(r->mm, m.start, m.end);
	if (v->flags & VM_LOCKED) {
		mlock_account(r->mm, (int64_t)(delta >> PAGE_SHIFT));
		r->populate = true;
		r->new_addr = r->addr;
	}
	return (int64_t)r->addr;
}

/* The new range's checks: its alignment, its end, and no overlap with the
 * old range. */
static int check_new_range(const struct remap *r)
{
	if (r->new_addr & ~PAGE_MASK)
		return -EINVAL;
	if (r->new_len > MM_TASK_SIZE || r->new_addr > MM_TASK_SIZE - r->new_len)
		return -EINVAL;
	if (r->addr + r->old_len > r->new_addr && r->new_addr + r->new_len > r->addr)
		return -EINVAL; /* overlap */
	return 0;
}

/* check_prep_vma (KV_MREMAP_CHECKS_FIRST): the source as to_resize checks
 * it, before anything is unmapped; a shrink's range may leave its VMA as
 * far as the tail it unmaps. */
static int check_source(struct remap *r)
{
	uint64_t old_len = r->old_len;
	struct vma *v;
	int err;

	if (r->old_len > r->new_len)
		r->old_len = r->new_len;
	err = to_resize(r, &v);
	r->old_len = old_len;
	return err;
}

/* mremap_to: MREMAP_FIXED, or MREMAP_DONTUNMAP (its new address a hint).
 * Before KV_MREMAP_CHECKS_FIRST, the new range and the room for splits are
 * checked here, and the source only once the fixed destination and the
 * shrunk tail are unmapped; since, all of it before. */
static int64_t mremap_to(struct remap *r)
{
	struct mm *mm = r->mm;
	struct vma *v;
	int64_t at;
	int err;

	if (kver_has(mm->kver, KV_MREMAP_CHECKS_FIRST)) {
		if ((err = check_source(r)))
			return err;
	} else {
		if ((err = check_new_range(r)))
			return err;
		/* both ranges may split in three before anything can be undone */
		if (mm->map_count + 2 >= mm->max_map_count - 3)
			return -ENOMEM;
	}
	if ((r->flags & MREMAP_FIXED) &&
	    (err = do_munmap(mm, r->new_addr, r->new_addr + r->new_len)))
		return err;
	if (r->old_len > r->new_len) {
		err = do_munmap(mm, r->addr + r->new_len, r->addr + r->old_len);
		if (err)
			return err;
		r->old_len = r->new_len;
	}
	err = to_resize(r, &v);
	if (err)
		return err;
	at = r->flags & MREMAP_FIXED ? (int64_t)r->new_addr
				     : mm_get_unmapped_area(mm, r->new_addr, r->new_len);
	if (at < 0)
		return at;
	r->new_addr = (uint64_t)at;
	return move_vma(r, v);
}

/* remap_move (KV_MREMAP_MOVES_MANY): a MREMAP_FIXED move of the same size
 * moves each VMA of [addr, addr + len) in turn, cut at the range's ends, to
 * the new address plus its distance from where the one before it ended, so
 * the gaps between them stay. A hole at the start is -EFAULT, and so is a
 * VMA armed by a userfaultfd among others (its remap event would need the
 * lock dropped); a failure leaves the VMAs moved before it where they went.
 * The first VMA's new address, or the error. */
static int64_t remap_move(struct remap *r)
{
	uint64_t start = r->addr, end = r->addr + r->old_len, target = r->new_addr;
	uint64_t last_end = start;
	int64_t res = -EFAULT, got;
	bool seen = false;
	struct vma *v;

	/* the VMA at or after where the last one ended, as the kernel's
	 * iterator goes on, while that is inside the range: the moved ones lie
	 * outside it, but one may have merged with what is left of its source
	 * VMA past the range (when a split fails, the source itself) */
	while (last_end < end && (v = mm_find_vma(r->mm, last_end)) && v->start < end) {
		struct remap piece = *r;
		uint64_t from = v->start > start ? v->start : start;
		uint64_t to = v->end < end ? v->end : end;

		if (!seen && start < v->start)
			return -EFAULT;
		if ((v->flags & VM_UFFD_FLAGS) && (seen || v->end < end))
			return -EFAULT;
		piece.addr = from;
		piece.old_len = piece.new_len = to - from;
		piece.new_addr = target + (seen ? v->start - last_end : 0);
		last_end = v->end;
		got = mremap_to(&piece);
		if (got < 0)
			return got;
		if (!seen)
			res = got;
		seen = true;
		target = (uint64_t)got + piece.new_len;
	}
	return res;
}

/* Grow in place when the range ends its VMA and nothing follows it, else
 * move it (MREMAP_MAYMOVE) to an address the kernel picks. */
static int64_t grow(struct remap *r)
{
	struct vma *v;
	int64_t at;
	int err = to_resize(r, &v);

	if (err)
		return err;
	if (r->old_len == v->end - r->addr && expandable(v, r->new_len - r->old_len))
		return expand_in_place(r, v);
	if (!(r->flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	at = mm_get_unmapped_area(r->mm, 0, r->new_len);
	if (at < 0)
		return at;
	r->new_addr = (uint64_t)at;
	return move_vma(r, v);
}

/* Unmap the tail the range loses; the VMAs of the rest stay as they are. */
static int64_t shrink(struct remap *r)
{
	int err = do_munmap(r->mm, r->addr + r->new_len, r->addr + r->old_len);

	return err ? err : (int64_t)r->addr;
}

/* The checks made before the mmap lock is taken. */
static int check_args(struct remap *r)
{
	bool overflow;

	if (r->flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((r->flags & MREMAP_FIXED) && !(r->flags & MREMAP_MAYMOVE))
		return -EINVAL;
	/* DONTUNMAP is a move of the same size */
	if ((r->flags & MREMAP_DONTUNMAP) &&
	    (!(r->flags & MREMAP_MAYMOVE) || r->old_len != r->new_len))
		return -EINVAL;
	if (r->addr & ~PAGE_MASK)
		return -EINVAL;
	/* PAGE_ALIGN wraps to 0 */
	r->old_len = page_align_up(r->old_len, &overflow);
	if (overflow)
		r->old_len = 0;
	r->new_len = page_align_up(r->new_len, &overflow);
	if (overflow || !r->new_len)
		return -EINVAL;
	return 0;
}

int64_t mm_mremap(struct mm *mm, uint64_t addr, uint64_t old_len, uint64_t new_len, int flags,
		  uint64_t new_addr)
{
	struct remap r = {mm, addr, old_len, new_len, new_addr, flags, false};
	bool first = kver_has(mm->kver, KV_MREMAP_CHECKS_FIRST);
	int64_t ret = check_args(&r);

	if (!ret && first && r.new_len > MM_TASK_SIZE)
		ret = -EINVAL;
	if (!ret && first && (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)))
		ret = check_new_range(&r);
	if (ret)
		return ret;
	mmap_write_lock(&mm->lock);
	if (first && !room_before(&r))
		ret = -ENOMEM;
	else if (first && kver_has(mm->kver, KV_MREMAP_MOVES_MANY) && (flags & MREMAP_FIXED) &&
		 r.old_len == r.new_len)
		ret = remap_move(&r);
	else if (!mm_vma_at(mm, r.addr))
		ret = -EFAULT;
	else if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
		ret = mremap_to(&r);
	else if (r.old_len == r.new_len)
		ret = (int64_t)r.addr;
	else if (r.old_len > r.new_len)
		/* a shrink always succeeds in place, whatever lies in the range */
		ret = shrink(&r);
	else
		ret = grow(&r);
	mmap_write_unlock(&mm->lock);
	/* a locked range that grew is populated, as mlock would have it */
	if (ret >= 0 && r.populate && r.new_len > r.old_len)
		mm_populate(mm, r.new_addr + r.old_len, r.new_len - r.old_len);
	return ret;
}
