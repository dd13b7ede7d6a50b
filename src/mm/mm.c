/* SPDX-License-Identifier: GPL-2.0 */
/* mm and VMA objects, lookups, usage and the dump (mm.h). */
#include "mm/mm.h"

#include "mm/kver.h"
#include "mm/types.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct mm_ids mm_ids;

struct mm *mm_create(unsigned id, uint64_t mmap_min, uint64_t mmap_max)
{
	struct mm *mm = model_alloc(AK_MM, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->id = id;
	mt_init(&mm->mt);
	mt_set_rcu(&mm->mt, true);
	mt_init(&mm->ptes);
	mmap_lock_init(&mm->lock, "mmap_lock");
	mm->max_map_count = MM_MAX_MAP_COUNT;
	mm->kver = KVER_NEWEST;
	mm->count = 1;
	mm->mmap_min = mmap_min;
	mm->mmap_max = mmap_max;
	return mm;
}

void mm_watch_add(struct mm *mm, struct mm_watch *w)
{
	w->next = mm->watchers;
	mm->watchers = w;
}

void mm_watch_del(struct mm *mm, struct mm_watch *w)
{
	for (struct mm_watch **p = &mm->watchers; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			return;
		}
	MODEL_ASSERT(!"watcher not registered");
}

void mm_note_change(struct mm *mm, uint64_t start, uint64_t end)
{
	for (struct mm_watch *w = mm->watchers; w; w = w->next)
		w->changed(w, start, end);
}

void mm_grab(struct mm *mm)
{
	mm->count++;
}

void mm_drop(struct mm *mm)
{
	MODEL_ASSERT(mm->count > 0);
	if (--mm->count)
		return;
	MODEL_ASSERT(mm->dead && !mm->uffd_ctxs);
	mmap_lock_destroy(&mm->lock);
	model_free(AK_MM, mm);
}
