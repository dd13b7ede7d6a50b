/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mremap in the model: the kernel's cases (shrink, expand in place, move,
 * MREMAP_FIXED, MREMAP_DONTUNMAP), its errors, the pages a move carries
 * (moved, not copied: same pages, same map counts, rmap still finds them),
 * the anon_vma a copy shares, the userfaultfd remap rule, a move whose page
 * table cannot be allocated, and the map count limit. Every result here was
 * checked against this machine's kernel with vmafuzz conform (the seeds
 * corpus/fuzz_mm/mremap_*.txt hold the same cases).
 */
#include "mm/anon.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/kver.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mremap.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "mm/usage.h"
#include "mm/validate.h"
#include "mm/vma.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sync.h"
#include "mm_fixture.h"
#include "test.h"

#include <errno.h>

#define MAYMOVE MREMAP_MAYMOVE
#define FIXED (MREMAP_MAYMOVE | MREMAP_FIXED)

static struct page *page_at(uint64_t page)
{
	return pte_page(mm_pte(mm, A(page)));
}

/* Shrink, grow in place (merging with what follows), no room without
 * MREMAP_MAYMOVE, and a grow that moves to where the model places it. */
static bool test_resize_in_place(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(8), P(8), 0, 0), A(0x10));
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(8), P(4), 0, 0), A(0x10));
	ASSERT_EQ(mm_vma_at(mm, A(0x10))->end, A(0x14));
	/* grows over the hole and merges with the equal VMA after it */
	ASSERT_EQ(map(0x18, 4, RW, PRIV_ANON), A(0x18));
	ASSERT_EQ(mm->map_count, 2);
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(8), 0, 0), A(0x10));
	ASSERT_EQ(mm->map_count, 1);
	ASSERT_EQ(mm_vma_at(mm, A(0x10))->end, A(0x1c));
	/* something in the way: -ENOMEM in place, a move with MAYMOVE */
	ASSERT_EQ(map(0x20, 1, PROT_READ, PRIV_ANON), A(0x20));
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(0xc), P(0x20), 0, 0), -ENOMEM);
	ASSERT(mm_mremap(mm, A(0x10), P(0xc), P(0x20), MAYMOVE, 0) > (int64_t)A(0x20));
	ASSERT(!mm_vma_at(mm, A(0x10)));
	/* a shrink unmaps whatever lies in the tail, another VMA too */
	ASSERT_EQ(mm_mremap(mm, A(0x1f), P(4), P(1), 0, 0), -EFAULT); /* no VMA at 0x1f */
	ASSERT_EQ(map(0x1e, 2, RW, PRIV_ANON), A(0x1e));
	ASSERT_EQ(mm_mremap(mm, A(0x1e), P(4), P(1), 0, 0), A(0x1e));
	ASSERT(!mm_vma_at(mm, A(0x1f)) && !mm_vma_at(mm, A(0x20)));
	return teardown();
}

/* A fixed move carries the pages themselves: same page objects, same map
 * counts, found by the rmap walk at the new place; the VMA keeps its page
 * offset (and is marked moved), the source is gone. */
static bool test_move_carries_pages(void)
{
	struct page *p0, *p3;
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	p0 = page_at(0x10);
	p3 = page_at(0x13);
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(6), FIXED, A(0x40)), A(0x40));
	ASSERT(!mm_vma_at(mm, A(0x10)));
	ASSERT(page_at(0x40) == p0 && page_at(0x43) == p3);
	ASSERT_EQ(p0->mapcount, 1);
	ASSERT_EQ(rmap_count(p0), 1);
	ASSERT_EQ(mm->rss_anon, 4);
	v = mm_vma_at(mm, A(0x40));
	ASSERT_EQ(v->end, A(0x46));
	ASSERT_EQ(v->pgoff, A(0x10) >> PAGE_SHIFT);
	ASSERT(v->moved && v->anon_vma == p0->anon_vma);
	/* an unfaulted VMA takes the page offset of its new place */
	ASSERT_EQ(map(0x80, 2, RW, PRIV_ANON), A(0x80));
	ASSERT_EQ(mm_mremap(mm, A(0x80), P(2), P(2), FIXED, A(0x90)), A(0x90));
	ASSERT_EQ(mm_vma_at(mm, A(0x90))->pgoff, A(0x90) >> PAGE_SHIFT);
	ASSERT(!mm_vma_at(mm, A(0x90))->moved);
	return teardown();
}

/* The kernel's errors, in its order. */
static bool test_errors(void)
{
	ASSERT(setup());
	mm->kver = KVER_BRANCH(6, 12); /* the order of the checks is 6.12's */
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), 8, 0), -EINVAL); /* unknown flag */
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), MREMAP_FIXED, A(0x40)),
		  -EINVAL); /* no MAYMOVE */
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(5), MAYMOVE | MREMAP_DONTUNMAP, 0), -EINVAL);
	ASSERT_EQ(mm_mremap(mm, A(0x10) + 1, P(4), P(4), 0, 0), -EINVAL);
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), 0, 0, 0), -EINVAL);		/* new length 0 */
	ASSERT_EQ(mm_mremap(mm, A(0x8), P(4), P(8), MAYMOVE, 0), -EFAULT);	/* a hole */
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(5), P(8), MAYMOVE, 0), -EFAULT);	/* past the VMA */
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), FIXED, A(0x12)), -EINVAL); /* overlap */
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), FIXED, A(0x40) + 1), -EINVAL);
	/* a new length beyond the address space, wherever it goes */
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), MM_TASK_SIZE + P(1), FIXED, A(0x40)), -EINVAL);
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), FIXED, MM_TASK_SIZE - P(2)), -EINVAL);
	/* 6.12 unmaps the fixed destination before it looks at the source
	 * (6.17 looks first: test_checks_first) */
	ASSERT_EQ(map(0x40, 4, RW, PRIV_ANON), A(0x40));
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(5), P(6), FIXED, A(0x40)), -EFAULT);
	ASSERT(!mm_vma_at(mm, A(0x40)));
	/* ... and shrinks the old range first: past its VMA, then valid */
	ASSERT_EQ(map(0x20, 4, RW, PRIV_ANON), A(0x20));
	ASSERT_EQ(mm_mremap(mm, A(0x20), P(8), P(2), FIXED, A(0x50)), A(0x50));
	ASSERT(!mm_vma_at(mm, A(0x20)));
	/* mremap_to keeps four maps of room, move_vma three */
	mm->max_map_count = mm->map_count + 5;
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(2), P(2), FIXED, A(0x60)), -ENOMEM);
	ASSERT(mm_vma_at(mm, A(0x10)) && !mm_vma_at(mm, A(0x60)));
	mm->max_map_count = mm->map_count + 6;
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(2), P(2), FIXED, A(0x60)), A(0x60));
	return teardown();
}

/* Since 6.17 (KV_MREMAP_CHECKS_FIRST) the overlap is checked before the
 * source is looked up, and the source before anything is unmapped; the map
 * count before the lookup, and since KV_MREMAP_MAP_COUNT_SPLITS with less
 * room for a move, for every call. Each result was checked against 6.18.44
 * with vmafuzz conform; 7.3's against its mm/mremap.c. */
static bool test_checks_first(void)
{
	ASSERT(setup());
	mm->kver = KVER(6, 18, 44);
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_mremap(mm, A(0x20), P(4), P(4), FIXED, A(0x22)), -EINVAL); /* not -EFAULT */
	ASSERT_EQ(map(0x40, 4, RW, PRIV_ANON), A(0x40));
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(5), P(6), FIXED, A(0x40)), -EFAULT);
	ASSERT(mm_vma_at(mm, A(0x40))); /* the destination stays */
	/* a shrink may still leave its VMA as far as the tail it unmaps */
	ASSERT_EQ(map(0x14, 4, PROT_READ, PRIV_ANON), A(0x14));
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(8), P(2), FIXED, A(0x50)), A(0x50));
	ASSERT(!mm_vma_at(mm, A(0x10)) && !mm_vma_at(mm, A(0x14)));
	/* the map count: room for five before a move to a new address, even
	 * with no VMA at the address; none needed in place */
	mm->max_map_count = mm->map_count + 5;
	ASSERT_EQ(mm_mremap(mm, A(0x30), P(2), P(2), FIXED, A(0x60)), -ENOMEM);
	ASSERT_EQ(mm_mremap(mm, A(0x40), P(2), P(2), FIXED, A(0x60)), -ENOMEM);
	mm->max_map_count = mm->map_count + 2;
	ASSERT_EQ(mm_mremap(mm, A(0x40), P(4), P(2), 0, 0), A(0x40));
	/* 7.3: two for the move and two for the unmaps before it, for every
	 * call (three and two with MREMAP_DONTUNMAP) */
	mm->kver = KVER(7, 3, 4);
	mm->max_map_count = mm->map_count + 4;
	ASSERT_EQ(mm_mremap(mm, A(0x50), P(1), P(1), FIXED | MREMAP_DONTUNMAP, A(0x60)), -ENOMEM);
	ASSERT_EQ(mm_mremap(mm, A(0x50), P(1), P(1), FIXED, A(0x60)), A(0x60));
	ASSERT(mm_vma_at(mm, A(0x60)) && mm_vma_at(mm, A(0x51)));
	mm->max_map_count = mm->map_count + 3;
	ASSERT_EQ(mm_mremap(mm, A(0x40), P(2), P(1), 0, 0), -ENOMEM); /* in place too */
	ASSERT_EQ(mm_vma_at(mm, A(0x40))->end, A(0x42));
	return teardown();
}

/* Since 6.17 (KV_MREMAP_MOVES_MANY) a fixed move of the same size moves
 * every VMA of its range, the holes between them kept at the destination
 * (what lies there stays); a hole at the start, or a VMA armed by a
 * userfaultfd among others, is -EFAULT, the VMAs before it moved. */
static bool test_moves_many(void)
{
	struct uffd_ctx *ctx;
	struct vma *v;

	ASSERT(setup());
	mm->kver = KVER(6, 18, 44);
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x16, 2, PROT_READ, PRIV_ANON), A(0x16));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	ASSERT_EQ(map(0x34, 2, PROT_READ, PRIV_ANON), A(0x34)); /* in the hole's place */
	ASSERT_EQ(mm_mremap(mm, A(0x11), P(6), P(6), FIXED, A(0x31)), A(0x31));
	v = mm_vma_at(mm, A(0x31));
	ASSERT(v && v->start == A(0x31) && v->end == A(0x34) && page_at(0x31));
	ASSERT(mm_vma_at(mm, A(0x34)) && mm_vma_at(mm, A(0x36)));
	ASSERT(mm_vma_at(mm, A(0x10))->end == A(0x11) && !mm_vma_at(mm, A(0x16)));
	ASSERT_EQ(mm_mremap(mm, A(0x8), P(4), P(4), FIXED, A(0x50)), -EFAULT); /* a hole first */
	/* a VMA armed by a userfaultfd moves alone: after another, -EFAULT
	 * with the one before it moved; first, only if nothing follows */
	ctx = uffd_create(mm, false);
	ASSERT_EQ(map(0x70, 2, RW, PRIV_ANON), A(0x70));
	ASSERT_EQ(map(0x73, 2, RW, PRIV_ANON), A(0x73));
	ASSERT_EQ(uffd_register(ctx, A(0x73), P(2), UFFD_MODE_MISSING), 0);
	ASSERT_EQ(mm_mremap(mm, A(0x70), P(5), P(5), FIXED, A(0x90)), -EFAULT);
	ASSERT(mm_vma_at(mm, A(0x90)) && !mm_vma_at(mm, A(0x70)) && mm_vma_at(mm, A(0x73)));
	ASSERT_EQ(mm_mremap(mm, A(0x73), P(3), P(3), FIXED, A(0xa0)), -EFAULT);
	ASSERT_EQ(mm_mremap(mm, A(0x73), P(2), P(2), FIXED, A(0xa0)), A(0xa0));
	ASSERT(mm_validate(mm));
	uffd_put(ctx);
	/* 6.12: one VMA only */
	mm->kver = KVER_BRANCH(6, 12);
	ASSERT_EQ(mm_mremap(mm, A(0x31), P(6), P(6), FIXED, A(0x51)), -EFAULT);
	ASSERT(mm_vma_at(mm, A(0x31)));
	return teardown();
}

/* MREMAP_DONTUNMAP keeps the source mapped and empty; a whole source leaves
 * its anon_vma and takes its own page offset back. */
static bool test_dontunmap(void)
{
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), FIXED | MREMAP_DONTUNMAP, A(0x40)), A(0x40));
	v = mm_vma_at(mm, A(0x10));
	ASSERT(v && v->end == A(0x14) && !v->anon_vma && !v->chain);
	ASSERT_EQ(mm_pte(mm, A(0x10)), 0);
	ASSERT_EQ(mm_vma_at(mm, A(0x40))->pgoff, A(0x10) >> PAGE_SHIFT);
	ASSERT_EQ(mm->rss_anon, 4);
	/* an unfaulted source is kept apart from its copy next to it
	 * (KV_DONTUNMAP_NO_SELF_MERGE) */
	ASSERT_EQ(map(0x60, 4, RW, PRIV_ANON), A(0x60));
	ASSERT_EQ(mm_mremap(mm, A(0x60), P(2), P(2), FIXED | MREMAP_DONTUNMAP, A(0x64)), A(0x64));
	ASSERT_EQ(mm_vma_at(mm, A(0x64))->start, A(0x64));
	/* without the change (6.18.44) the copy merges with its source */
	mm->kver = KVER(6, 18, 44);
	ASSERT_EQ(map(0x80, 4, RW, PRIV_ANON), A(0x80));
	ASSERT_EQ(mm_mremap(mm, A(0x80), P(4), P(4), FIXED | MREMAP_DONTUNMAP, A(0x84)), A(0x84));
	v = mm_vma_at(mm, A(0x84));
	ASSERT(v && v->start == A(0x80) && v->end == A(0x88));
	return teardown();
}

/* A context without the remap event does not follow its VMA: the moved VMA
 * loses context and flags; one with the event keeps both. */
static bool test_uffd_remap_rule(void)
{
	struct uffd_ctx *plain, *remap;
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x20, 4, RW, PRIV_ANON), A(0x20));
	plain = uffd_create(mm, false);
	remap = uffd_create(mm, false);
	remap->event_remap = true;
	ASSERT_EQ(uffd_register(plain, A(0x10), P(4), UFFD_MODE_MISSING), 0);
	ASSERT_EQ(uffd_register(remap, A(0x20), P(4), UFFD_MODE_WP), 0);
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), FIXED, A(0x40)), A(0x40));
	ASSERT_EQ(mm_mremap(mm, A(0x20), P(4), P(4), FIXED, A(0x50)), A(0x50));
	v = mm_vma_at(mm, A(0x40));
	ASSERT(!v->uffd && !(v->flags & VM_UFFD_FLAGS));
	v = mm_vma_at(mm, A(0x50));
	ASSERT(v->uffd == remap && (v->flags & VM_UFFD_WP));
	ASSERT(mm_validate(mm));
	uffd_put(plain);
	uffd_put(remap);
	return teardown();
}

/* The page table at the new place cannot be allocated: the entries go back,
 * the copy is unmapped, -ENOMEM, the source as it was. */
static bool test_move_fails_on_page_table(void)
{
	struct page *p;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	p = page_at(0x12);
	/* the new VMA (1), its chain entry (2), then the page table (3) */
	alloc_fail_arm(3);
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), FIXED, A(0x40000)), -ENOMEM);
	ASSERT(alloc_fail_fired());
	alloc_fail_disarm();
	ASSERT(!mm_vma_at(mm, A(0x40000)));
	ASSERT(page_at(0x12) == p);
	ASSERT_EQ(mm_vma_at(mm, A(0x10))->end, A(0x14));
	ASSERT_EQ(mm->rss_anon, 4);
	return teardown();
}

/* A faulted range moved next to an unfaulted neighbour merges into it, and
 * the neighbour takes the pages' anon_vma (6.18's rule, with the fix of the
 * 2026 use-after-free): the rmap still finds every page. */
static bool test_copied_range_brings_anon_vma(void)
{
	struct page *p;
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	p = page_at(0x10);
	/* away, then back next to an unfaulted VMA whose pgoff continues */
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), FIXED, A(0x40)), A(0x40));
	ASSERT_EQ(map(0xc, 4, RW, PRIV_ANON), A(0xc));
	ASSERT_EQ(mm_mremap(mm, A(0x40), P(4), P(4), FIXED, A(0x10)), A(0x10));
	v = mm_vma_at(mm, A(0x10));
	ASSERT_EQ(v->start, A(0xc));
	ASSERT(v->anon_vma == p->anon_vma);
	ASSERT_EQ(rmap_count(p), 1);
	return teardown();
}

int main(void)
{
	/* the tests read the model's state directly, outside its calls, as the
	 * checks at rest do: without the kernel's lock assertions (sync.h;
	 * test_locks.c runs these calls with them) */
	lock_asserts_off();
	TEST(test_resize_in_place);
	TEST(test_move_carries_pages);
	TEST(test_errors);
	TEST(test_checks_first);
	TEST(test_moves_many);
	TEST(test_dontunmap);
	TEST(test_uffd_remap_rule);
	TEST(test_move_fails_on_page_table);
	TEST(test_copied_range_brings_anon_vma);
	return test_summary();
}
