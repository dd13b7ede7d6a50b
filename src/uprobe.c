/* uprobe registration's walk (uprobe.h). */
#include "uprobe.h"

#include "anon.h"
#include "check.h"

#include <errno.h>
#include <inttypes.h>

#define UPROBE_MAX_MMS 16

uint64_t uprobe_skipped_unstable;

struct map_info {
	struct mm *mm;
	uint64_t addr;
};

/* build_map_info: the private mappings of the page, one per mm */
static unsigned collect(struct file *f, uint64_t pgoff, struct map_info *info)
{
	unsigned n = 0;

	down_read(&f->i_mmap_rwsem);
	for (unsigned i = 0; i < f->n_mmap && n < UPROBE_MAX_MMS; i++) {
		struct vma *v = f->i_mmap[i];
		bool dup = false;

		if ((v->flags & VM_SHARED) || pgoff < v->pgoff || pgoff >= v->pgoff + vma_pages(v))
			continue;
		for (unsigned k = 0; k < n; k++)
			dup |= info[k].mm == v->mm;
		if (dup || v->mm->users == 0) /* mmget_not_zero */
			continue;
		v->mm->users++;
		info[n++] = (struct map_info){v->mm, v->start + ((pgoff - v->pgoff) << PAGE_SHIFT)};
	}
	up_read(&f->i_mmap_rwsem);
	return n;
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
