/* SPDX-License-Identifier: GPL-2.0 */
/* mmap and munmap (mmap.h). */
#include "mm/mmap.h"

#include "mm/file.h"
#include "mm/kver.h"
#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/stack.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <errno.h>
#include <stdlib.h>

int do_munmap(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma *v, *last;
	int err;

	mmap_assert_write_locked(&mm->lock);
	v = mm_find_vma(mm, start);
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
			if (gone[i]->flags & VM_LOCKED)
				mm->locked_vm -= (int64_t)vma_pages(gone[i]);
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

/* The range ending at @end keeps clear of the guard gap of the stack above
 * it, if any (vm_start_gap). */
static bool clear_of_stack(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma *next = mm_find_vma(mm, start);

	return !next || end <= vm_start_gap(next);
}

int64_t mm_get_unmapped_area(struct mm *mm, uint64_t hint, uint64_t len)
{
	uint64_t start, high = mm->mmap_max - 1;

	hint &= PAGE_MASK;
	if (hint && hint >= mm->mmap_min && hint + len > hint && hint + len <= mm->mmap_max &&
	    mt_gap_lowest(&mm->mt, hint, hint + len - 1, len, &start) == 0 &&
	    clear_of_stack(mm, hint, hint + len))
		return (int64_t)hint;
	/* unmapped_area_topdown: a gap under a stack ends at its guard gap */
	for (;;) {
		struct vma *next;

		if (high < mm->mmap_min || high - mm->mmap_min + 1 < len ||
		    mt_gap_highest(&mm->mt, mm->mmap_min, high, len, &start))
			return -ENOMEM;
		start &= PAGE_MASK;
		next = mm_find_vma(mm, start);
		if (!next || start + len <= vm_start_gap(next))
			return (int64_t)start;
		if (vm_start_gap(next) == 0)
			return -ENOMEM;
		high = vm_start_gap(next) - 1;
	}
}

/* The checks made before the mmap lock is taken; *@len comes back
 * page-aligned. */
static int mmap_check_args(uint64_t addr, uint64_t *len, int flags, uint64_t pgoff)
{
	bool overflow, shared = flags & MAP_SHARED,
		       fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);

	if (!*len || (shared == !!(flags & MAP_PRIVATE)))
		return -EINVAL;
	*len = page_align_up(*len, &overflow);
	if (overflow)
		return -ENOMEM;
	if (pgoff + (*len >> PAGE_SHIFT) < pgoff)
		return -EOVERFLOW; /* the file offset would wrap */
	if (fixed && (addr & ~PAGE_MASK))
		return -EINVAL;
	if (fixed && addr + *len < addr)
		return -ENOMEM;
	return 0;
}

/* Where the mapping goes (mmap write lock held): *@at, or a negative errno.
 * A MAP_FIXED address is taken as it is, however high (*@at may then be
 * negative as an int64_t), so the error is returned apart. */
static int mmap_place(struct mm *mm, uint64_t addr, uint64_t len, int flags, int64_t *at)
{
	/*
	 * do_mmap's "too many mappings": '>', so a map at the limit still
	 * succeeds and leaves one above it, as this machine's kernel (6.18)
	 * does; a 2025 patch makes it '>='.
	 */
	if (mm->map_count > mm->max_map_count)
		return -ENOMEM;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (flags & MAP_FIXED_NOREPLACE) {
			struct vma *x = mm_find_vma(mm, addr);

			if (x && x->start < addr + len)
				return -EEXIST;
		}
		*at = (int64_t)addr;
		return 0;
	}
	*at = mm_get_unmapped_area(mm, addr, len);
	return *at < 0 ? (int)*at : 0;
}

/* The file the mapping maps, held for the duration of the call, and its
 * offset: a shared anonymous mapping is backed by its own shmem file; a
 * private anonymous one's pgoff is its address's page number. */
static int mmap_get_file(struct file **file, uint64_t *pgoff, bool shared, int64_t at, uint64_t len)
{
	if (shared && !*file) {
		*file = file_create(0, true);
		if (!*file)
			return -ENOMEM;
		/* shmem_zero_setup: the file is as long as the mapping; a fault
		 * past its end (after mremap grew the mapping) is SIGBUS */
		(*file)->size = len >> PAGE_SHIFT;
		*pgoff = 0;
	} else if (*file) {
		(*file)->refcount++;
	} else {
		*pgoff = (uint64_t)at >> PAGE_SHIFT;
	}
	return 0;
}

/* The new mapping's range and flags: mlockall(MCL_FUTURE)'s default
 * (mm->def_flags) and MAP_LOCKED lock it. */
static struct merge_range mmap_range(struct mm *mm, int64_t at, uint64_t len, int prot, int flags,
				     struct file *file, uint64_t pgoff)
{
	bool shared = flags & MAP_SHARED;
	struct merge_range m = {
	    .start = (uint64_t)at,
	    .end = (uint64_t)at + len,
	    .pgoff = pgoff,
	    .file = file,
	    .flags = prot_to_flags(prot) | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC |
		     (shared ? VM_SHARED | VM_MAYSHARE : 0) | mm->def_flags |
		     (flags & MAP_LOCKED ? VM_LOCKED : 0) |
		     (flags & MAP_GROWSDOWN ? VM_GROWSDOWN : 0),
	};

	if ((m.flags & (VM_SHARED | VM_WRITE)) == VM_WRITE)
		m.flags |= VM_ACCOUNT; /* a private writable mapping is charged */
	m.flags |= VM_SOFTDIRTY;
	return m;
}

/* A VMA of its own for @m, which merged with no neighbour. */
static int mmap_new_vma(struct mm *mm, const struct merge_range *m)
{
	struct vma *v = vma_alloc(mm);
	int err;

	if (!v)
		return -ENOMEM;
	v->start = m->start;
	v->end = m->end;
	v->flags = m->flags;
	v->pgoff = m->pgoff;
	v->file = m->file;
	vma_lock_init(&v->lock, false);
	vma_start_write(&v->lock, &mm->lock);
	err = vma_tree_store(v);
	if (err) {
		vma_lock_destroy(&v->lock);
		model_free(AK_VMA, v);
		return err;
	}
	vma_link_file(v);
	mm->map_count++;
	return 0;
}

int64_t mm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags, struct file *file,
		uint64_t pgoff)
{
	bool shared = flags & MAP_SHARED;
	struct merge_range m = {0};
	struct vma *v;
	int64_t at = 0;
	int err;

	err = mmap_check_args(addr, &len, flags, pgoff);
	if (err)
		return err;
	mmap_write_lock(&mm->lock);
	err = mmap_place(mm, addr, len, flags, &at);
	if (err)
		goto out;
	/* do_mmap, once placed: a stack is private anonymous memory */
	if ((flags & MAP_GROWSDOWN) && (shared || file)) {
		err = -EINVAL;
		goto out;
	}
	err = mmap_get_file(&file, &pgoff, shared, at, len);
	if (err)
		goto out;
	m = mmap_range(mm, at, len, prot, flags, file, pgoff);
	m.next_first = !kver_has(mm->kver, KV_NEW_RANGE_PREFERS_PREV);
	/* MAP_FIXED replaces what was there */
	err = do_munmap(mm, m.start, m.end);
	if (err)
		goto put;
	v = vma_merge_new_range(mm, &m, &err);
	/*
	 * As 6.12's __mmap_region: a merge that could not allocate changed
	 * nothing, and the range gets a VMA of its own instead.
	 */
	if (!v && err == -ENOMEM)
		err = 0;
	if (err)
		goto put;
	if (!v)
		err = mmap_new_vma(mm, &m);
	if (!err)
		mm_note_change(mm, m.start, m.end);
	if (!err && (m.flags & VM_LOCKED))
		mlock_account(mm, (int64_t)(len >> PAGE_SHIFT));
put:
	if (file)
		file_put(file);
out:
	mmap_write_unlock(&mm->lock);
	if (err)
		return err;
	/* a locked or MAP_POPULATE mapping is faulted in, errors ignored */
	if ((m.flags & VM_LOCKED) || (flags & MAP_POPULATE))
		mm_populate(mm, (uint64_t)at, len);
	return at;
}
