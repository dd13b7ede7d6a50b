/* SPDX-License-Identifier: GPL-2.0 */
/* Per-VMA resident pages (usage.h). */
#include "mm/usage.h"

#include "mm/page.h"
#include "mm/types.h"
#include "runtime/alloc.h"
#include "tree/mtree.h"

static void count_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct vma_usage *u = arg;
	struct page *p = pte_page(*slot);

	(void)mm;
	(void)addr;
	if (p == &zero_page)
		return;
	u->rss++;
	if (p->anon_vma)
		u->anonymous++;
}

void vma_usage(struct mm *mm, const struct vma *v, struct vma_usage *u)
{
	u->rss = u->anonymous = 0;
	for_each_pte(mm, v->start, v->end, count_one, u);
}

bool vma_usage_guarded(struct mm *mm, const struct vma *v, struct vma_usage *u)
{
	uint64_t first = (v->start >> PAGE_SHIFT) >> PT_SHIFT, last;
	struct mt_range r;
	struct pgtable *t;
	bool whole = true;

	u->rss = u->anonymous = 0;
	if (v->start >= v->end)
		return true;
	last = ((v->end - 1) >> PAGE_SHIFT) >> PT_SHIFT;
	/* the tables as for_each_pte finds them, each checked before it is read */
	while (first <= last && (t = mt_find(&mm->ptes, first, last, &r))) {
		uint64_t base = (r.first << PT_SHIFT) << PAGE_SHIFT;

		first = r.first + 1;
		if (!alloc_is_live(AK_PGTABLE, t)) {
			whole = false;
			continue;
		}
		for (unsigned i = 0; i < PT_ENTRIES; i++) {
			uint64_t addr = base + ((uint64_t)i << PAGE_SHIFT);
			struct page *p;

			if (!t->pte[i] || addr < v->start || addr >= v->end)
				continue;
			p = pte_page(t->pte[i]);
			if (p == &zero_page)
				continue;
			if (!alloc_is_live(AK_PAGE, p)) {
				whole = false;
				continue;
			}
			u->rss++;
			if (p->anon_vma)
				u->anonymous++;
		}
	}
	return whole;
}
