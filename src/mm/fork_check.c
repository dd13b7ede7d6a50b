/* SPDX-License-Identifier: GPL-2.0 */
/* The fork invariants and mm snapshots (fork_check.h). */
#include "mm/fork_check.h"

#include "mm/anon.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "runtime/check.h"
#include "tree/mtree.h"

#include <inttypes.h>
#include <string.h>

static void snap_pte(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct mm_snapshot *s = arg;
	struct page *p = pte_page(*slot);

	(void)mm;
	mt_snapshot_put(s, addr);
	mt_snapshot_put(s, p->id);
}

void mm_snapshot_take(struct mm *mm, struct mm_snapshot *s)
{
	struct mt_cursor c;
	struct vma *v;

	memset(s, 0, sizeof(*s));
	mt_snapshot_put(s, (uint64_t)mm->map_count);
	mt_snapshot_put(s, mm->rss_anon);
	mt_snapshot_put(s, mm->rss_file);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c))) {
		mt_snapshot_put(s, v->start);
		mt_snapshot_put(s, v->end);
		mt_snapshot_put(s, v->flags);
		mt_snapshot_put(s, v->pgoff);
		mt_snapshot_put(s, v->file ? v->file->id + 1u : 0);
		mt_snapshot_put(s, v->uffd ? v->uffd->id : 0);
		mt_snapshot_put(s, v->anon_vma ? v->anon_vma->id : 0);
		for (struct avc *a = v->chain; a; a = a->vma_next)
			mt_snapshot_put(s, a->av->id);
		/* which page is mapped where, but not the write bit, which fork
		 * clears; counts shared with other processes (map counts, anon_vma
		 * counts) are the global invariants' to check at rest */
		for_each_pte(mm, v->start, v->end, snap_pte, s);
	}
}

bool mm_snapshot_equal(const struct mm_snapshot *a, const struct mm_snapshot *b)
{
	return mt_snapshot_equal(a, b);
}

void mm_snapshot_free(struct mm_snapshot *s)
{
	mt_snapshot_free(s);
}

bool mm_check_unchanged(struct mm *parent, const struct mm_snapshot *before)
{
	struct mm_snapshot now;
	bool same;

	mm_snapshot_take(parent, &now);
	same = mm_snapshot_equal(before, &now);
	mm_snapshot_free(&now);
	return same ||
	       check_fail(CK_FORK_PARENT_CHANGED, "a failed fork changed mm %u", parent->id);
}

static void count_pte(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	(void)mm;
	(void)slot;
	(void)addr;
	(*(unsigned *)arg)++;
}

bool mm_check_fork(struct mm *parent, struct mm *child)
{
	struct mt_cursor pc, cc;
	struct vma *p, *c;
	bool ok = true;

	mt_cursor_init(&pc, &parent->mt, 0);
	mt_cursor_init(&cc, &child->mt, 0);
	for (;;) {
		uint64_t want;

		do
			p = mt_cursor_next(&pc);
		while (p && (p->flags & VM_DONTCOPY));
		c = mt_cursor_next(&cc);
		if (!p || !c) {
			if (p || c)
				ok = check_fail(CK_FORK_CHILD_DIFFERS,
						"mm %u has %s VMAs than mm %u", child->id,
						c ? "more" : "fewer", parent->id);
			break;
		}
		if (mt_is_zero(c) || c->mm != child || c == p) {
			ok = check_fail(CK_FORK_CHILD_POINTS_INTO_PARENT,
					"mm %u's tree at %#" PRIx64 " holds %s", child->id,
					cc.range.first,
					mt_is_zero(c) ? "the zero entry" : "a VMA of another mm");
			break;
		}
		want = p->uffd && !p->uffd->event_fork ? p->flags & ~VM_UFFD_FLAGS : p->flags;
		want &= ~VM_LOCKED_MASK; /* mlock is not inherited */
		if (c->start != p->start || c->end != p->end || c->flags != want ||
		    c->pgoff != p->pgoff || c->file != p->file)
			ok = check_fail(
			    CK_FORK_CHILD_DIFFERS,
			    "child vma#%u %#" PRIx64 "-%#" PRIx64 " flags %#" PRIx64
			    " is not parent vma#%u %#" PRIx64 "-%#" PRIx64 " flags %#" PRIx64,
			    c->id, c->start, c->end, c->flags, p->id, p->start, p->end, want);
		if (c->uffd && c->uffd->mm != child)
			ok = check_fail(CK_FORK_CHILD_POINTS_INTO_PARENT,
					"child vma#%u has a userfaultfd context of mm %u", c->id,
					c->uffd->mm->id);
		if (c->flags & VM_WIPEONFORK) {
			unsigned n = 0;

			for_each_pte(child, c->start, c->end, count_pte, &n);
			if (n || c->anon_vma)
				ok =
				    check_fail(CK_FORK_WIPE_NOT_EMPTY,
					       "wipe-on-fork vma#%u of mm %u has %u pages%s", c->id,
					       child->id, n, c->anon_vma ? " and an anon_vma" : "");
		}
	}
	return ok;
}

bool mm_check_same_child(struct mm *a, struct mm *b)
{
	struct mm_snapshot sa, sb;
	struct mt_cursor ca, cb;
	struct vma *x, *y;
	bool ok = true;

	mt_cursor_init(&ca, &a->mt, 0);
	mt_cursor_init(&cb, &b->mt, 0);
	while ((x = mt_cursor_next(&ca)), (y = mt_cursor_next(&cb)), x || y) {
		if (!x || !y || x->start != y->start || x->end != y->end || x->flags != y->flags ||
		    !x->anon_vma != !y->anon_vma || x->file != y->file) {
			ok = check_fail(CK_FORK_ALGOS_DIFFER,
					"children mm %u and mm %u differ at %#" PRIx64, a->id,
					b->id, x ? x->start : y->start);
			break;
		}
	}
	/* same pages at the same places */
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	for_each_pte(a, 0, UINT64_MAX, snap_pte, &sa);
	for_each_pte(b, 0, UINT64_MAX, snap_pte, &sb);
	for (size_t i = 0; ok && i < sa.n && sa.n == sb.n; i += 2)
		if (sa.w[i] != sb.w[i] || sa.w[i + 1] != sb.w[i + 1])
			ok = check_fail(CK_FORK_ALGOS_DIFFER,
					"children map different pages at %#" PRIx64, sa.w[i]);
	if (ok && sa.n != sb.n)
		ok = check_fail(CK_FORK_ALGOS_DIFFER, "children map %zu and %zu pages", sa.n / 2,
				sb.n / 2);
	mm_snapshot_free(&sa);
	mm_snapshot_free(&sb);
	return ok;
}
