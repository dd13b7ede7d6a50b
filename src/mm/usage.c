/* SPDX-License-Identifier: GPL-2.0 */
/* Per-VMA resident pages (usage.h). */
#include "mm/usage.h"

#include "mm/page.h"
#include "mm/types.h"

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
