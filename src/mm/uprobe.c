/* SPDX-License-Identifier: GPL-2.0 */
/* uprobe registration's walk (uprobe.h). */
#include "mm/uprobe.h"

#include "mm/anon.h"
#include "mm/exit.h"
#include "mm/types.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/itree.h"
#include "tree/mtree.h"

#include <errno.h>
#include <inttypes.h>

#define UPROBE_MAX_MMS 16

uint64_t uprobe_skipped_unstable;

struct map_info {
	struct mm *mm;
	uint64_t addr;
};

struct collect {
	uint64_t pgoff;
	struct map_info *info;
	unsigned n;
};

/* A VMA of the file mapping the page: note its mm once, if private. */
static bool collect_one(struct itree_node *node, void *arg)
{
	struct collect *c = arg;
	struct vma *v = itree_entry(node, struct vma, i_mmap_node);
	bool dup = false;

	if (v->flags & VM_SHARED)
		return true;
	for (unsigned k = 0; k < c->n; k++)
		dup |= c->info[k].mm == v->mm;
	if (dup || v->mm->users == 0) /* mmget_not_zero */
		return true;
	v->mm->users++;
	c->info[c->n++] =
	    (struct map_info){v->mm, v->start + ((c->pgoff - v->pgoff) << PAGE_SHIFT)};
	return c->n < UPROBE_MAX_MMS;
}

/* build_map_info: the private mappings of the page, one per mm, found in
 * the file's i_mmap by the page's offset */
static unsigned collect(struct file *f, uint64_t pgoff, struct map_info *info)
{
	struct collect c = {pgoff, info, 0};

	down_read(&f->i_mmap_rwsem);
	lock_assert_held(&f->i_mmap_rwsem); /* vma_interval_tree_foreach */
	itree_visit(&f->i_mmap, pgoff, pgoff, collect_one, &c);
	up_read(&f->i_mmap_rwsem);
	return c.n;
}

int uprobe_register(struct file *f, uint64_t pgoff)
{
	struct map_info info[UPROBE_MAX_MMS];
	unsigned n = collect(f, pgoff, info);
	int installed = 0, err = 0;

	for (unsigned i = 0; i < n; i++) {
		struct mm *mm = info[i].mm;
		struct vma *v;

		mmap_write_lock(&mm->lock);
#ifndef VMAFUZZ_BUG_zero_entry_walker
		if (mm->unstable) { /* check_stable_address_space */
			uprobe_skipped_unstable++;
			goto unlock;
		}
#endif
		v = mt_load(&mm->mt, info[i].addr); /* find_vma: a zero entry too */
		if (v && mt_is_zero(v)) {
			check_fail(CK_VMA_ZERO_ENTRY,
				   "uprobe registration takes the zero entry at %#" PRIx64
				   " of mm %u for a VMA",
				   info[i].addr, mm->id);
			goto unlock;
		}
		if (!v || v->file != f || (v->flags & VM_SHARED))
			goto unlock;
		if (anon_vma_prepare(v))
			err = -ENOMEM;
		else
			installed++;
	unlock:
		mmap_write_unlock(&mm->lock);
		mm_put(mm);
	}
	return err ? err : installed;
}
