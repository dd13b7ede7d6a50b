/*
 * Splitting and merging VMAs, mmap and munmap (after mm/vma.c, mm/mmap.c).
 *
 * Every change to the tree is one store (mtree.h), done after everything
 * that can fail (the new VMA, its chain) is ready, so an -ENOMEM leaves the
 * tree as it was; like the kernel, an munmap that fails after splitting
 * keeps the split.
 */
#include "alloc.h"
#include "anon.h"
#include "check.h"
#include "page.h"
#include "vma_internal.h"

#include <errno.h>
#include <stdlib.h>

static int tree_store(struct vma *v)
{
	return mt_store_range(&v->mm->mt, v->start, v->end - 1, v);
}

void vma_remove(struct vma *v)
{
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
static int vma_split_unlimited(struct vma *v, uint64_t addr, bool new_below)
{
	struct mm *mm = v->mm;
	uint64_t shift = (addr - v->start) >> PAGE_SHIFT;
	struct vma *n;
	int err;

	MODEL_ASSERT(addr > v->start && addr < v->end && !(addr & ~PAGE_MASK));
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
	err = tree_store(n);
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

/* is_mergeable_anon_vma: equal, or one side has none and @v's chain is single. */
static bool anon_mergeable(const struct anon_vma *a, const struct anon_vma *b, const struct vma *v)
{
#ifdef VMAFUZZ_BUG_merge_anon_mismatch
	/* the first version of the reuse on fork (2019) let VMAs with
	 * different anon_vmas merge */
	(void)a;
	(void)b;
	(void)v;
	return true;
#endif
	if ((!a || !b) && (!v || !v->chain || !v->chain->vma_next))
		return true;
	return a == b;
}

/* What a range would become: the properties a neighbour must share. */
struct merge_range {
	uint64_t start, end, flags, pgoff;
	struct file *file;
	struct anon_vma *anon_vma;
	struct uffd_ctx *uffd;
	const struct vma *vma; /* the VMA the range is cut from, or NULL for a new one */
};

static bool same_kind(const struct vma *n, const struct merge_range *m)
{
	return !((n->flags ^ m->flags) & ~VM_SOFTDIRTY) && n->file == m->file &&
	       n->uffd == m->uffd && anon_mergeable(n->anon_vma, m->anon_vma, m->vma);
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

/* @keep absorbs @gone's range: take its anon_vma if it has none (dup_anon_vma). */
static int take_anon(struct vma *keep, struct vma *gone)
{
	int err;

	if (keep->anon_vma || !gone->anon_vma)
		return 0;
	keep->anon_vma = gone->anon_vma;
	err = anon_vma_clone(keep, gone);
	if (err)
		keep->anon_vma = NULL;
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

	vma_start_write(&v->lock, &mm->lock);
	if (start < v->start)
		v->pgoff -= (v->start - start) >> PAGE_SHIFT;
	v->start = start;
	v->end = end;
	err = tree_store(v);
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
 * (vma_merge_new_range). Returns the VMA that now covers it, NULL when no
 * merge was possible, or sets *err.
 */
static struct vma *merge_new_range(struct mm *mm, struct merge_range *m, int *err)
{
	struct vma *prev = m->start ? mm_vma_at(mm, m->start - 1) : NULL;
	struct vma *next = mm_vma_at(mm, m->end);
	bool left = can_merge_after(prev, m);
	bool right = can_merge_before(next, m) && (!left || both_ways(prev, next));

	*err = 0;
	if (left && right) {
		*err = take_anon(prev, next);
		if (*err || (*err = expand(prev, prev->start, next->end)))
			return NULL;
		absorb(prev, next);
		return prev;
	}
	if (left) {
		*err = expand(prev, prev->start, m->end);
		return *err ? NULL : prev;
	}
	if (right) {
		*err = expand(next, m->start, next->end);
		return *err ? NULL : next;
	}
	return NULL;
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
	struct vma *prev = start == v->start ? vma_prev(mm, v) : NULL;
	struct vma *next = end == v->end ? vma_next(mm, v) : NULL;
	bool left, right;
	int err;

	*result = v;
	if (flags == v->flags && uffd == v->uffd)
		return 0;
	left = can_merge_after(prev, &m);
	right = can_merge_before(next, &m) && (!left || both_ways(prev, next));
	if (left && right) {
		/* prev takes v and next */
		if ((err = take_anon(prev, v)) || (err = take_anon(prev, next)))
			return err;
		err = expand(prev, prev->start, next->end);
		if (err)
			return err;
		absorb(prev, v);
		absorb(prev, next);
		*result = prev;
		return 0;
	}
	if (left) {
		err = take_anon(prev, v);
		if (err)
			return err;
		if (end == v->end) {
			err = expand(prev, prev->start, end);
			if (!err)
				absorb(prev, v);
		} else {
			/* prev grows over [start, end), v keeps the rest */
			vma_start_write(&v->lock, &mm->lock);
			err = expand(prev, prev->start, end);
			if (!err) {
				v->pgoff += (end - v->start) >> PAGE_SHIFT;
				v->start = end;
				vma_intervals_update(v);
			}
		}
		*result = prev;
		return err;
	}
	if (right) {
		err = take_anon(next, v);
		if (err)
			return err;
		if (start == v->start) {
			err = expand(next, start, next->end);
			if (!err)
				absorb(next, v);
		} else {
			vma_start_write(&v->lock, &mm->lock);
			v->end = start;
			vma_intervals_update(v); /* keys follow bounds at every point */
			err = expand(next, start, next->end);
			if (err) {
				v->end = end;
				vma_intervals_update(v);
			}
		}
		*result = next;
		return err;
	}
	/* no merge: split off what stays as it is, change the middle */
	if (start > v->start && (err = vma_split(v, start, true)))
		return err;
	if (end < v->end && (err = vma_split(v, end, false)))
		return err;
	vma_start_write(&v->lock, &mm->lock);
	v->flags = flags;
	v->uffd = uffd;
	return 0;
}

int do_munmap(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma *v = mm_find_vma(mm, start), *last;
	int err;

	if (!v || v->start >= end)
		return 0;
	if (v->start < start) {
		/* splitting a VMA in the middle needs room for one more */
		if (v->end > end && mm->map_count >= mm->max_map_count)
			return -ENOMEM;
		err = vma_split_unlimited(v, start, true);
		if (err)
			return err;
	}
	last = mm_vma_at(mm, end - 1);
	if (last && last->end > end) {
		err = vma_split_unlimited(last, end, true);
		if (err)
			return err;
	}
	/* lock and detach every VMA of the range, then clear it in one store */
	for (struct vma *x = mm_find_vma(mm, start); x && x->start < end; x = vma_next(mm, x))
		vma_start_write(&x->lock, &mm->lock);
	{
		struct vma **gone = NULL;
		unsigned n = 0, cap = 0;
		struct mt_cursor c;

		mt_cursor_init(&c, &mm->mt, start);
		while ((v = mt_cursor_next(&c)) && v->start < end) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				gone = realloc(gone, cap * sizeof(*gone));
				MODEL_ASSERT(gone != NULL);
			}
			gone[n++] = v;
		}
		err = mt_store_range(&mm->mt, start, end - 1, NULL);
		if (!err && n)
			mm_note_change(mm, start, end);
		for (unsigned i = 0; !err && i < n; i++) {
			vma_mark_detached(&gone[i]->lock, &mm->lock, true);
			vma_remove(gone[i]);
			mm->map_count--;
		}
		free(gone);
	}
	return err;
}

int mm_munmap(struct mm *mm, uint64_t start, uint64_t len)
{
	bool overflow;
	int err;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	len = page_align_up(len, &overflow);
	if (overflow || !len || start + len < start)
		return -EINVAL;
	mmap_write_lock(&mm->lock);
	err = do_munmap(mm, start, start + len);
	mmap_write_unlock(&mm->lock);
	return err;
}

/* A free range for a mapping without MAP_FIXED: the hint if it fits, else
 * the highest gap of the mmap window (top-down, as x86-64 does). */
static int64_t get_unmapped_area(struct mm *mm, uint64_t hint, uint64_t len)
{
	uint64_t start;

	hint &= PAGE_MASK;
	if (hint && hint >= mm->mmap_min && hint + len > hint && hint + len <= mm->mmap_max &&
	    mt_gap_lowest(&mm->mt, hint, hint + len - 1, len, &start) == 0)
		return (int64_t)hint;
	if (mm->mmap_max - mm->mmap_min < len ||
	    mt_gap_highest(&mm->mt, mm->mmap_min, mm->mmap_max - 1, len, &start))
		return -ENOMEM;
	return (int64_t)(start & PAGE_MASK);
}

int64_t mm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags, struct file *file,
		uint64_t pgoff)
{
	bool overflow, shared = flags & MAP_SHARED,
		       fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	struct merge_range m;
	struct vma *v;
	int64_t at;
	int err;

	if (!len || (shared == !!(flags & MAP_PRIVATE)))
		return -EINVAL;
	len = page_align_up(len, &overflow);
	if (overflow)
		return -ENOMEM;
	if (pgoff + (len >> PAGE_SHIFT) < pgoff)
		return -EOVERFLOW; /* the file offset would wrap */
	if (fixed && (addr & ~PAGE_MASK))
		return -EINVAL;
	if (fixed && addr + len < addr)
		return -ENOMEM;
	mmap_write_lock(&mm->lock);
	/*
	 * do_mmap's "too many mappings": '>', so a map at the limit still
	 * succeeds and leaves one above it, as this machine's kernel (6.18)
	 * does; a 2025 patch makes it '>='.
	 */
	if (mm->map_count > mm->max_map_count) {
		err = -ENOMEM;
		goto out;
	}
	if (fixed) {
		at = (int64_t)addr;
		if (flags & MAP_FIXED_NOREPLACE) {
			struct vma *x = mm_find_vma(mm, addr);

			if (x && x->start < addr + len) {
				err = -EEXIST;
				goto out;
			}
		}
	} else {
		at = get_unmapped_area(mm, addr, len);
		if (at < 0) {
			err = (int)at;
			goto out;
		}
	}
	if (shared && !file) {
		/* a shared anonymous mapping is backed by its own shmem file */
		file = file_create(0, true);
		if (!file) {
			err = -ENOMEM;
			goto out;
		}
		pgoff = 0;
	} else if (file) {
		file->refcount++; /* held for the duration of the call */
	} else {
		pgoff = (uint64_t)at >> PAGE_SHIFT;
	}
	m = (struct merge_range){
	    .start = (uint64_t)at,
	    .end = (uint64_t)at + len,
	    .pgoff = pgoff,
	    .file = file,
	    .flags = prot_to_flags(prot) | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC |
		     (shared ? VM_SHARED | VM_MAYSHARE : 0),
	};
	if ((m.flags & (VM_SHARED | VM_WRITE)) == VM_WRITE)
		m.flags |= VM_ACCOUNT; /* a private writable mapping is charged */
	m.flags |= VM_SOFTDIRTY;
	/* MAP_FIXED replaces what was there */
	err = do_munmap(mm, m.start, m.end);
	if (err)
		goto put;
	v = merge_new_range(mm, &m, &err);
	if (err)
		goto put;
	if (!v) {
		v = vma_alloc(mm);
		if (!v) {
			err = -ENOMEM;
			goto put;
		}
		v->start = m.start;
		v->end = m.end;
		v->flags = m.flags;
		v->pgoff = m.pgoff;
		v->file = m.file;
		vma_lock_init(&v->lock, false);
		vma_start_write(&v->lock, &mm->lock);
		err = tree_store(v);
		if (err) {
			vma_lock_destroy(&v->lock);
			model_free(AK_VMA, v);
			goto put;
		}
		vma_link_file(v);
		mm->map_count++;
	}
	mm_note_change(mm, m.start, m.end);
	err = 0;
put:
	if (file)
		file_put(file);
out:
	mmap_write_unlock(&mm->lock);
	return err ? err : at;
}
