/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address-space model: the kernel's merge and split cases, accounting,
 * faults and resident counts, madvise rules, and every invariant of the
 * VMA, anon_vma and page families firing on a state broken by hand.
 */
#include "mm/anon.h"
#include "mm/dump.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/fork.h"
#include "mm/madvise.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/page.h"
#include "mm/rollup.h"
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
#include "tree/itree.h"
#include "tree/mtree.h"

#include <errno.h>
#include <string.h>

static bool test_new_mapping_merges(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(2), true), 0);
	ASSERT(mm_vma_at(mm, A(0x10))->anon_vma != NULL);
	/* after and before: both merge into the VMA that has an anon_vma */
	ASSERT_EQ(map(0x18, 4, RW, PRIV_ANON), A(0x18));
	ASSERT_EQ(map(0x8, 8, RW, PRIV_ANON), A(0x8));
	ASSERT_EQ(mm->map_count, 1);
	ASSERT_EQ(mm_vma_at(mm, A(0x8))->end, A(0x1c));
	/* different protection: no merge */
	ASSERT_EQ(map(0x1c, 4, PROT_READ, PRIV_ANON), A(0x1c));
	ASSERT_EQ(mm->map_count, 2);
	ASSERT(mm_validate(mm));
	return teardown();
}

/*
 * A merge that cannot allocate leaves the new range to a VMA of its own, as
 * 6.12's __mmap_region does (vma_merge_new_range fails, vm_area_alloc
 * follows): the first allocation of an mmap next to a VMA it would merge
 * with is the merge's, so failing it gives two VMAs and success.
 */
static bool test_failed_merge_maps_unmerged(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	alloc_fail_arm(1);
	ASSERT_EQ(map(0x18, 4, RW, PRIV_ANON), A(0x18));
	ASSERT(alloc_fail_fired());
	alloc_fail_disarm();
	ASSERT_EQ(mm->map_count, 2);
	ASSERT_EQ(mm_vma_at(mm, A(0x10))->end, A(0x18));
	ASSERT_EQ(mm_vma_at(mm, A(0x18))->start, A(0x18));
	ASSERT(mm_validate(mm));
	return teardown();
}

static bool test_mprotect_splits_and_merges_back(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x12), P(1), true), 0);
	ASSERT_EQ(mm_mprotect(mm, A(0x12), P(2), PROT_READ), 0);
	ASSERT_EQ(mm->map_count, 3);
	/* faulted: VM_ACCOUNT stays, so making it writable again merges both ways */
	ASSERT(mm_vma_at(mm, A(0x12))->flags & VM_ACCOUNT);
	ASSERT_EQ(mm_mprotect(mm, A(0x12), P(2), RW), 0);
	ASSERT_EQ(mm->map_count, 1);
	/* a hole: -ENOMEM, after changing what came before it */
	ASSERT_EQ(mm_mprotect(mm, A(0x10), P(0x10), PROT_READ), -ENOMEM);
	ASSERT(!(mm_vma_at(mm, A(0x10))->flags & VM_WRITE));
	return teardown();
}

static bool test_account_flag_blocks_merge(void)
{
	ASSERT(setup());
	/* read-only private: not charged; made writable: charged */
	ASSERT_EQ(map(0x10, 4, PROT_READ, PRIV_ANON), A(0x10));
	ASSERT(!(mm_vma_at(mm, A(0x10))->flags & VM_ACCOUNT));
	ASSERT_EQ(mm_mprotect(mm, A(0x10), P(4), RW), 0);
	ASSERT(mm_vma_at(mm, A(0x10))->flags & VM_ACCOUNT);
	/* never faulted, read-only again: uncharged (since 6.7), so it merges */
	ASSERT_EQ(mm_mprotect(mm, A(0x10), P(4), PROT_READ), 0);
	ASSERT(!(mm_vma_at(mm, A(0x10))->flags & VM_ACCOUNT));
	ASSERT_EQ(map(0x14, 4, PROT_READ, PRIV_ANON), A(0x14));
	ASSERT_EQ(mm->map_count, 1);
	/* charged and faulted, then read-only: stays charged, no merge */
	ASSERT_EQ(mm_mprotect(mm, A(0x10), P(8), RW), 0);
	ASSERT_EQ(mm_touch(mm, A(0x10), P(1), true), 0);
	ASSERT_EQ(mm_mprotect(mm, A(0x10), P(8), PROT_READ), 0);
	ASSERT(mm_vma_at(mm, A(0x10))->flags & VM_ACCOUNT);
	ASSERT_EQ(map(0x18, 4, PROT_READ, PRIV_ANON), A(0x18));
	ASSERT_EQ(mm->map_count, 2);
	/* charged, read-only, no anon_vma (as a forked child's wipe-on-fork
	 * copy): the same protection again changes nothing, not even the
	 * charge (mprotect_fixup returns first) */
	ASSERT_EQ(map(0x30, 4, RW, PRIV_ANON), A(0x30));
	mm_vma_at(mm, A(0x30))->flags &= ~VM_WRITE;
	ASSERT_EQ(mm_mprotect(mm, A(0x30), P(4), PROT_READ), 0);
	ASSERT(mm_vma_at(mm, A(0x30))->flags & VM_ACCOUNT);
	return teardown();
}

static bool test_incompatible_anon_vmas_do_not_merge(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x18, 4, RW, PRIV_ANON), A(0x18));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(1), true), 0);
	ASSERT_EQ(mm_touch(mm, A(0x18), P(1), true), 0);
	ASSERT(mm_vma_at(mm, A(0x10))->anon_vma != mm_vma_at(mm, A(0x18))->anon_vma);
	/* filling the hole merges with one side only */
	ASSERT_EQ(map(0x14, 4, RW, PRIV_ANON), A(0x14));
	ASSERT_EQ(mm->map_count, 2);
	ASSERT_EQ(mm_vma_at(mm, A(0x10))->end, A(0x18));
	return teardown();
}

static bool test_faults_and_resident_pages(void)
{
	struct vma_usage u;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	/* reads map the zero page: nothing resident */
	ASSERT_EQ(mm_touch(mm, A(0x10), P(8), false), 0);
	vma_usage(mm, mm_vma_at(mm, A(0x10)), &u);
	ASSERT_EQ(u.rss, 0);
	ASSERT_EQ(mm_touch(mm, A(0x10), P(3), true), 0);
	vma_usage(mm, mm_vma_at(mm, A(0x10)), &u);
	ASSERT_EQ(u.rss, 3);
	ASSERT_EQ(u.anonymous, 3);
	ASSERT_EQ(mm->rss_anon, 3);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(2), MADV_DONTNEED), 0);
	ASSERT_EQ(mm->rss_anon, 1);
	/* shared anonymous: resident but not Anonymous */
	ASSERT_EQ(map(0x20, 2, RW, MAP_SHARED | MAP_ANONYMOUS), A(0x20));
	ASSERT_EQ(mm_touch(mm, A(0x20), P(2), true), 0);
	vma_usage(mm, mm_vma_at(mm, A(0x20)), &u);
	ASSERT_EQ(u.rss, 2);
	ASSERT_EQ(u.anonymous, 0);
	/* no access */
	ASSERT_EQ(mm_mprotect(mm, A(0x20), P(2), 0), 0);
	ASSERT_EQ(mm_touch(mm, A(0x20), P(1), false), -EFAULT);
	ASSERT_EQ(mm_touch(mm, A(0x30), P(1), false), -EFAULT);
	return teardown();
}

/* smaps' figures of the VMA at page @page of @m. */
static struct rollup_stats smaps_at(struct mm *m, uint64_t page)
{
	struct rollup_stats s = {0};

	smaps_gather(mm_vma_at(m, A(page)), 0, &s);
	return s;
}

/*
 * mm_forbids_zeropage (a PVM guest booted with pvm_no_zero_page=1, where
 * vmafuzz conform and CI run): a read fault of private anonymous memory
 * allocates a page, prepares the anon_vma (so merges change), and maps it
 * writable and dirty where the VMA is writable, clean and read-only where
 * not; a fork passes the switch on. Measured on that kernel's smaps: rw-p
 * Private_Dirty 4 kB, r--p Private_Clean 4 kB, both Anonymous; after fork
 * Shared_Dirty and Shared_Clean 4 kB, Pss 2 kB. The same reads on an mm
 * that maps the zero page leave nothing resident and merge otherwise.
 */
static bool test_no_zero_page(void)
{
	struct fork_opts fo = {.algo = FORK_TREE_DUP, .policy = ANON_POLICY_CURRENT, .check = true};
	struct rollup_stats s;
	struct fork_uffd fu;
	struct mm *child;
	struct page *pg;

	for (int forbid = 0; forbid < 2; forbid++) {
		ASSERT(setup());
		mm->forbids_zeropage = forbid;
		/* a read, then a written neighbour, then the hole filled */
		ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
		ASSERT_EQ(mm_touch(mm, A(0x10), P(1), false), 0);
		ASSERT_EQ(map(0x18, 4, RW, PRIV_ANON), A(0x18));
		ASSERT_EQ(mm_touch(mm, A(0x18), P(1), true), 0);
		ASSERT_EQ(map(0x14, 4, RW, PRIV_ANON), A(0x14));
		s = smaps_at(mm, 0x10);
		if (!forbid) {
			/* the zero page: nothing resident, no anon_vma, one VMA */
			ASSERT_EQ(mm->map_count, 1);
			ASSERT_EQ(s.rss, P(1)); /* the written page alone */
			ASSERT_EQ(mm_vma_at(mm, A(0x10))->end, A(0x1c));
			ASSERT(teardown());
			continue;
		}
		/* two anon_vmas: the hole merges with one side only */
		ASSERT_EQ(mm->map_count, 2);
		ASSERT_EQ(mm_vma_at(mm, A(0x10))->end, A(0x18));
		ASSERT_EQ(s.rss, P(1));
		ASSERT_EQ(s.anonymous, P(1));
		ASSERT_EQ(s.private_dirty, P(1)); /* writable VMA: dirty */
		ASSERT(pte_write(mm_pte(mm, A(0x10))));
		/* a read-only VMA: a clean, read-only page */
		ASSERT_EQ(map(0x30, 2, PROT_READ, PRIV_ANON), A(0x30));
		ASSERT_EQ(mm_touch(mm, A(0x30), P(1), false), 0);
		s = smaps_at(mm, 0x30);
		ASSERT_EQ(s.rss, P(1));
		ASSERT_EQ(s.anonymous, P(1));
		ASSERT_EQ(s.private_clean, P(1));
		ASSERT_EQ(s.private_dirty, 0);
		ASSERT(!pte_write(mm_pte(mm, A(0x30))));
		ASSERT(mm_vma_at(mm, A(0x30))->anon_vma != NULL);
		/* fork: shared clean, Pss halved; the child forbids too */
		ASSERT_EQ(mm_fork(mm, 1, &fo, &child, &fu), 0);
		ASSERT(child->forbids_zeropage);
		s = smaps_at(child, 0x30);
		ASSERT_EQ(s.shared_clean, P(1));
		ASSERT_EQ(s.pss, (P(1) << PSS_SHIFT) / 2);
		ASSERT_EQ(smaps_at(child, 0x10).shared_dirty, P(1));
		ASSERT_EQ(mm_touch(child, A(0x31), P(1), false), 0); /* the child's own */
		ASSERT_EQ(smaps_at(child, 0x30).private_clean, P(1));
		mm_put(child);
		/* writable again and written: the same page, now dirty */
		pg = pte_page(mm_pte(mm, A(0x30)));
		ASSERT_EQ(mm_mprotect(mm, A(0x30), P(2), RW), 0);
		ASSERT_EQ(mm_touch(mm, A(0x30), P(1), true), 0);
		ASSERT(pte_page(mm_pte(mm, A(0x30))) == pg);
		s = smaps_at(mm, 0x30);
		ASSERT_EQ(s.private_dirty, P(1));
		ASSERT_EQ(s.private_clean, 0);
		ASSERT(teardown());
	}
	return true;
}

static bool test_madvise_rules(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x20, 4, RW, MAP_SHARED | MAP_ANONYMOUS), A(0x20));
	ASSERT_EQ(mm_madvise(mm, A(0x20), P(4), MADV_WIPEONFORK), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x11), P(2), MADV_WIPEONFORK), 0);
	ASSERT_EQ(mm->map_count, 4);
	ASSERT(mm_vma_at(mm, A(0x11))->flags & VM_WIPEONFORK);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(4), MADV_KEEPONFORK), 0);
	ASSERT_EQ(mm->map_count, 2);
	/* a hole: the mapped parts change, the call says -ENOMEM */
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(0x14), MADV_DONTFORK), -ENOMEM);
	ASSERT(mm_vma_at(mm, A(0x20))->flags & VM_DONTCOPY);
	ASSERT_EQ(mm_madvise(mm, A(0x10) + 1, P(1), MADV_DONTFORK), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(1), 1234), -EINVAL);
	return teardown();
}

static bool test_munmap_and_mmap_errors(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_munmap(mm, A(0x12), P(2)), 0);
	ASSERT_EQ(mm->map_count, 2);
	ASSERT_EQ(mm_munmap(mm, A(0x12) + 5, P(1)), -EINVAL);
	ASSERT_EQ(mm_munmap(mm, A(0x12), 0), -EINVAL);
	ASSERT_EQ(mm_mmap(mm, A(0x10), P(1), RW, PRIV_ANON | MAP_FIXED_NOREPLACE, NULL, 0),
		  -EEXIST);
	ASSERT_EQ(mm_mmap(mm, A(0x10) + 1, P(1), RW, PRIV_ANON | MAP_FIXED, NULL, 0), -EINVAL);
	ASSERT_EQ(mm_mmap(mm, 0, 0, RW, PRIV_ANON, NULL, 0), -EINVAL);
	ASSERT_EQ(mm_mmap(mm, 0, P(1), RW, MAP_ANONYMOUS, NULL, 0), -EINVAL);
	/* no address: top-down from the top of the window */
	ASSERT_EQ(mm_mmap(mm, 0, P(1), RW, PRIV_ANON, NULL, 0), (int64_t)(LO + P(0x40000 - 1)));
	/* MAP_FIXED over the middle replaces it */
	ASSERT_EQ(map(0x10, 8, PROT_READ, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm->map_count, 2);
	return teardown();
}

/*
 * The map count limit where this machine's kernel (6.18) puts it, found by
 * filling a real process to vm.max_map_count: mmap refuses only above the
 * limit (so one map at it succeeds), splits by mprotect, madvise and a hole
 * punched by munmap refuse at it, and munmap of a VMA's head or tail never
 * does.
 */
static bool test_max_map_count(void)
{
	ASSERT(setup());
	ASSERT_EQ(mm->max_map_count, 65530);
	ASSERT_EQ(map(0x10, 8, PROT_READ, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x1a, 1, PROT_READ, PRIV_ANON), A(0x1a));
	mm->max_map_count = mm->map_count;

	/* at the limit: a split is refused, a new map is not; madvise says
	 * -EAGAIN (madvise_vma_behavior turns -ENOMEM into it: measured on
	 * this machine's 6.18 kernel, a real process filled to 65530 maps) */
	ASSERT_EQ(mm_mprotect(mm, A(0x10), P(1), RW), -ENOMEM);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(1), MADV_DONTFORK), -EAGAIN);
	ASSERT_EQ(mm_munmap(mm, A(0x12), P(1)), -ENOMEM);
	ASSERT_EQ(map(0x30, 1, PROT_READ, PRIV_ANON), A(0x30));
	ASSERT_EQ(mm->map_count, mm->max_map_count + 1);

	/* above it: every mmap is refused, even one that would merge or replace */
	ASSERT_EQ(map(0x18, 1, PROT_READ, PRIV_ANON), -ENOMEM);
	ASSERT_EQ(map(0x1a, 1, RW, PRIV_ANON), -ENOMEM);
	ASSERT_EQ(mm_mprotect(mm, A(0x10), P(1), RW), -ENOMEM);
	ASSERT_EQ(mm_munmap(mm, A(0x12), P(1)), -ENOMEM);
	/* munmap of a tail or a head splits anyway */
	ASSERT_EQ(mm_munmap(mm, A(0x17), P(1)), 0);
	ASSERT_EQ(mm_munmap(mm, A(0x10), P(1)), 0);
	ASSERT_EQ(mm->map_count, mm->max_map_count + 1);
	ASSERT(mm_vma_at(mm, A(0x11))->start == A(0x11) && mm_vma_at(mm, A(0x11))->end == A(0x17));

	/* back under it, all works again */
	ASSERT_EQ(mm_munmap(mm, A(0x30), P(1)), 0);
	ASSERT_EQ(mm_munmap(mm, A(0x1a), P(1)), 0);
	ASSERT_EQ(mm_mprotect(mm, A(0x11), P(1), RW), 0);
	ASSERT_EQ(mm->map_count, 2);
	return teardown();
}

/* ---- every invariant fires on a state broken by hand ---------------------- */

static bool fires(enum check_id id)
{
	unsigned n;

	check_clear();
	check_set_mode(CHECK_COLLECT);
	mm_validate(mm);
	check_set_mode(CHECK_ABORT);
	n = check_count(id);
	check_clear();
	if (!n)
		fprintf(stderr, "  %s did not fire\n", check_name(id));
	return n > 0;
}

/*
 * Every VMA invariant fires on a broken state. One piece on purpose: each
 * step damages the same address space in one way, shows its check firing,
 * and restores it for the next.
 */
static bool test_vma_checks_fire(void)
{
	struct vma *v;
	uint64_t saved;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x20, 4, RW, MAP_SHARED | MAP_ANONYMOUS), A(0x20));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	v = mm_vma_at(mm, A(0x10));
	ASSERT(mm_validate(mm));

	saved = v->end;
	v->end = A(0x13);
	ASSERT(fires(CK_VMA_TREE_INDEX));
	v->end = A(0x13) + 8;
	ASSERT(fires(CK_VMA_ALIGNED));
	v->end = v->start;
	ASSERT(fires(CK_VMA_EMPTY));
	v->end = saved;

	{
		struct mm *other = mm_create(1, LO, LO + P(0x40000));

		v->mm = other;
		ASSERT(fires(CK_VMA_MM));
		v->mm = mm;
		mm_destroy(other);
	}

	mm->map_count++;
	ASSERT(fires(CK_VMA_COUNT));
	mm->map_count--;

	v->flags |= VM_SHARED;
	ASSERT(fires(CK_VMA_FLAGS));
	v->flags &= ~VM_SHARED;
	mm_vma_at(mm, A(0x20))->flags |= VM_WIPEONFORK;
	ASSERT(fires(CK_VMA_FLAGS));
	mm_vma_at(mm, A(0x20))->flags &= ~VM_WIPEONFORK;

	v->pgoff++;
	ASSERT(fires(CK_VMA_PGOFF));
	v->pgoff--;

	{
		struct vma *s = mm_vma_at(mm, A(0x20));
		struct file *f = s->file;
		struct itree_node *n = &s->i_mmap_node;
		uint64_t first = n->first, last = n->last;

		/* out of its file's i_mmap */
		itree_remove(&f->i_mmap, n);
		ASSERT(fires(CK_VMA_FILE_LINK));
		/* in it, under the wrong interval */
		itree_insert(&f->i_mmap, n, first, last + 1, s->id);
		ASSERT(fires(CK_VMA_I_MMAP_TREE));
		itree_remove(&f->i_mmap, n);
		itree_insert(&f->i_mmap, n, first, last, s->id);
		/* the tree itself damaged */
		f->i_mmap.root->max_last++;
		ASSERT(fires(CK_VMA_I_MMAP_TREE));
		f->i_mmap.root->max_last--;
		ASSERT(mm_validate(mm));
	}
	/* a zero entry in the tree, over a hole */
	ASSERT_EQ(mt_store_range(&mm->mt, A(0x40), A(0x41) - 1, MT_ZERO_ENTRY), 0);
	ASSERT(fires(CK_VMA_ZERO_ENTRY));
	ASSERT_EQ(mt_store_range(&mm->mt, A(0x40), A(0x41) - 1, NULL), 0);

	/* a VMA left write-locked at rest */
	check_clear();
	check_set_mode(CHECK_COLLECT);
	vma_start_write(&v->lock, &mm->lock); /* no mmap lock: also SYNC_VMA_LOCK */
	mm_check_at_rest(mm);
	check_set_mode(CHECK_ABORT);
	ASSERT(check_count(CK_VMA_LOCK_AT_REST) > 0);
	check_clear();
	mm->lock.seq++;
	/* a VMA of another size than its anon intervals */
	ASSERT(mm_validate(mm));
	return teardown();
}

/* The anon_vma and page invariants, the same way (one piece for the same
 * reason as test_vma_checks_fire). */
static bool test_anon_and_page_checks_fire(void)
{
	struct vma *v, *w;
	struct avc *c;
	struct page *p;
	uintptr_t *slot;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x20, 4, RW, PRIV_ANON), A(0x20));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	ASSERT_EQ(mm_touch(mm, A(0x20), P(1), true), 0);
	v = mm_vma_at(mm, A(0x10));
	w = mm_vma_at(mm, A(0x20));
	c = v->chain;
	ASSERT(mm_validate(mm));

	/* keyed by a stale interval, as a missed pre/post update leaves it */
	itree_remove(&c->av->avcs, &c->av_node);
	itree_insert(&c->av->avcs, &c->av_node, v->pgoff, v->pgoff + vma_pages(v), v->id);
	ASSERT(fires(CK_ANON_INTERVAL));
	anon_vma_interval_update(v);
	ASSERT(mm_validate(mm));

	c->av->avcs.root->height++;
	ASSERT(fires(CK_ANON_INTERVAL_TREE));
	c->av->avcs.root->height--;

	v->anon_vma->num_active_vmas++;
	ASSERT(fires(CK_ANON_NUM_ACTIVE));
	v->anon_vma->num_active_vmas--;

	v->anon_vma->num_children++;
	ASSERT(fires(CK_ANON_NUM_CHILDREN));
	v->anon_vma->num_children--;

	v->anon_vma->refcount++;
	ASSERT(fires(CK_ANON_REFCOUNT));
	v->anon_vma->refcount--;

	/* the chain entry out of its anon_vma's tree */
	itree_remove(&c->av->avcs, &c->av_node);
	ASSERT(fires(CK_ANON_AVC_LISTS));
	vma_itree_insert(&c->av->avcs, &c->av_node, v);
	/* w points at v's anon_vma but keeps its own chain */
	{
		struct anon_vma *own = w->anon_vma;

		w->anon_vma = v->anon_vma;
		ASSERT(fires(CK_ANON_VMA_IN_CHAIN));
		ASSERT(fires(CK_ANON_SAME_CHAIN));
		w->anon_vma = own;
	}

	/* pages */
	p = pte_page(mm_pte(mm, A(0x10)));
	p->mapcount++;
	ASSERT(fires(CK_PAGE_MAPCOUNT));
	p->mapcount--;
	p->refcount++;
	ASSERT(fires(CK_PAGE_REFCOUNT));
	p->refcount--;
	p->index++;
	ASSERT(fires(CK_PAGE_INDEX));
	ASSERT(fires(CK_PAGE_RMAP));
	p->index--;
	mm->rss_anon++;
	ASSERT(fires(CK_PAGE_RSS));
	mm->rss_anon--;
	/* the same page mapped twice, once writable */
	{
		struct pgtable *t = mt_load(&mm->ptes, (A(0x11) >> PAGE_SHIFT) >> PT_SHIFT);
		uintptr_t saved;

		slot = &t->pte[(A(0x11) >> PAGE_SHIFT) & (PT_ENTRIES - 1)];
		saved = *slot;
		pte_page(saved)->mapcount--;
		pte_page(saved)->refcount--;
		*slot = (uintptr_t)p; /* read-only second mapping of p */
		p->mapcount++;
		p->refcount++;
		ASSERT(fires(CK_PAGE_COW));
		p->mapcount--;
		p->refcount--;
		*slot = saved;
		pte_page(saved)->mapcount++;
		pte_page(saved)->refcount++;
	}
	/* writable in a read-only VMA */
	ASSERT_EQ(mm_mprotect(mm, A(0x20), P(4), PROT_READ), 0);
	{
		struct pgtable *t = mt_load(&mm->ptes, (A(0x20) >> PAGE_SHIFT) >> PT_SHIFT);

		t->pte[(A(0x20) >> PAGE_SHIFT) & (PT_ENTRIES - 1)] |= 1;
		ASSERT(fires(CK_PAGE_OUTSIDE_VMA));
		t->pte[(A(0x20) >> PAGE_SHIFT) & (PT_ENTRIES - 1)] &= ~(uintptr_t)1;
	}
	return teardown();
}

/* The kinds of object an anonymous mm reaches, in mm_reach's order. */
static const enum alloc_kind reach_kinds[] = {AK_VMA,  AK_ANON_VMA, AK_AVC,
					      AK_PAGE, AK_PGTABLE,  AK_MT_NODE};
#define NREACH (sizeof(reach_kinds) / sizeof(reach_kinds[0]))

/* How many kinds' live counts differ from what @mm reaches (memory family). */
static unsigned live_mismatches(void)
{
	struct mm_reach r;
	unsigned n;

	rcu_barrier(); /* what waits for a grace period is gone */
	mm_reachable(&mm, 1, NULL, 0, &r);
	const uint64_t reach[] = {r.vmas, r.anon_vmas, r.avcs, r.pages, r.pgtables, r.nodes};

	check_clear();
	check_set_mode(CHECK_COLLECT);
	for (unsigned k = 0; k < NREACH; k++)
		mem_check_live(reach_kinds[k], reach[k]);
	check_set_mode(CHECK_ABORT);
	n = check_count(CK_MEM_LIVE_MISMATCH);
	check_clear();
	return n;
}

static bool test_memory_checks_fire(void)
{
	struct mm_reach r;
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(map(0x20, 4, PROT_READ, PRIV_ANON), A(0x20));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(3), true), 0);
	rcu_barrier();
	mm_reachable(&mm, 1, NULL, 0, &r);
	ASSERT_EQ(r.vmas, 2);
	ASSERT_EQ(r.anon_vmas, 1);
	ASSERT_EQ(r.avcs, 1);
	ASSERT_EQ(r.pages, 3);
	ASSERT(r.pgtables > 0 && r.nodes > 0);
	ASSERT_EQ(live_mismatches(), 0);

	/* one object of each kind that nothing references */
	for (unsigned k = 0; k < NREACH; k++) {
		void *stray = model_alloc(reach_kinds[k], 64);

		ASSERT(stray);
		ASSERT_EQ(live_mismatches(), 1);
		model_free(reach_kinds[k], stray);
	}
	/* a VMA dropped from the tree but never freed: it, its chain entry
	 * and its pages are alive and unreachable */
	v = mm_vma_at(mm, A(0x10));
	ASSERT_EQ(mt_store_range(&mm->mt, v->start, v->end - 1, NULL), 0);
	ASSERT(live_mismatches() >= 3);
	ASSERT_EQ(mt_store_range(&mm->mt, v->start, v->end - 1, v), 0);
	ASSERT_EQ(live_mismatches(), 0);
	return teardown();
}

static bool test_userfaultfd(void)
{
	struct uffd_ctx *a, *b;
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	a = uffd_create(mm, true);
	b = uffd_create(mm, false);
	ASSERT(a && b);
	ASSERT_EQ(uffd_register(a, A(0x12), P(2), UFFD_MODE_MISSING), 0);
	ASSERT_EQ(mm->map_count, 3);
	v = mm_vma_at(mm, A(0x12));
	ASSERT(v->uffd == a && (v->flags & VM_UFFD_MISSING));
	/* another context: busy; nothing mapped: invalid; a minor fault needs
	 * a page cache; a hole beside a VMA is fine (userfaultfd_register) */
	ASSERT_EQ(uffd_register(b, A(0x12), P(1), UFFD_MODE_WP), -EBUSY);
	ASSERT_EQ(uffd_register(b, A(0x18), P(2), UFFD_MODE_WP), -EINVAL);
	ASSERT_EQ(uffd_register(b, A(0x17), P(2), UFFD_MODE_MINOR), -EINVAL);
	ASSERT_EQ(uffd_unregister(b, A(0x18), P(2)), -EINVAL);
	ASSERT_EQ(uffd_unregister(b, A(0x11), P(2)), -EINVAL); /* a's VMA there */
	ASSERT_EQ(uffd_register(b, A(0x17), P(2), UFFD_MODE_WP), 0);
	ASSERT(mm_vma_at(mm, A(0x17))->uffd == b);
	ASSERT_EQ(uffd_unregister(b, A(0x16), P(4)), 0);
	ASSERT(mm_vma_at(mm, A(0x17))->uffd == NULL);
	/* a missing fault waits for the handler */
	ASSERT_EQ(mm_touch(mm, A(0x12), P(1), true), -EAGAIN);
	ASSERT(mm_validate(mm));
	/* the "no context, no flags" invariant, broken both ways */
	v->uffd = NULL;
	ASSERT(fires(CK_UFFD_FLAGS_CTX));
	v->uffd = b;
	v->flags &= ~VM_UFFD_FLAGS;
	ASSERT(fires(CK_UFFD_FLAGS_CTX));
	v->flags |= VM_UFFD_MISSING;
	v->uffd = a;
	a->refcount++;
	ASSERT(fires(CK_UFFD_CTX_REFCOUNT));
	a->refcount--;
	/* the last reference's release clears its VMAs, which merge back */
	uffd_put(a);
	ASSERT_EQ(mm->map_count, 1);
	ASSERT(!(mm_vma_at(mm, A(0x12))->flags & VM_UFFD_FLAGS));
	ASSERT_EQ(uffd_register(b, A(0x10), P(8), UFFD_MODE_WP), 0);
	{
		/* a VMA pointing to a context that is gone */
		struct uffd_ctx *gone = b;

		mm->uffd_ctxs = NULL;
		ASSERT(fires(CK_UFFD_RELEASED_CTX));
		mm->uffd_ctxs = gone;
	}
	uffd_put(b);
	{
		/* a fork context that outlives its fork, as a failed fork that
		 * forgot to release it would leave */
		void *fc;

		ASSERT(uffd_check_no_fork_ctx());
		fc = model_alloc(AK_UFFD_FORK_CTX, 16);
		ASSERT(fc);
		check_clear();
		check_set_mode(CHECK_COLLECT);
		uffd_check_no_fork_ctx();
		check_set_mode(CHECK_ABORT);
		ASSERT_EQ(check_count(CK_UFFD_FORK_CTX_LEFT), 1);
		check_clear();
		model_free(AK_UFFD_FORK_CTX, fc);
		ASSERT(uffd_check_no_fork_ctx());
	}
	return teardown();
}

/* The state in a report reads no freed object: a VMA whose anon_vma or
 * file is gone says so instead of reading it. */
static bool test_dump_names_freed_objects(void)
{
	static char buf[4096];
	struct anon_vma gone = {0};
	struct vma *v;
	FILE *f;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 2, RW, PRIV_ANON), (int64_t)A(0x10));
	v = mm_vma_at(mm, A(0x10));
	ASSERT(v != NULL && !v->anon_vma && !v->chain);
	v->anon_vma = &gone; /* not an object alive: as if freed */
	f = fmemopen(buf, sizeof(buf), "w");
	ASSERT(f != NULL);
	mm_dump(f, mm);
	fclose(f);
	v->anon_vma = NULL;
	ASSERT(strstr(buf, " anon_vma(freed anon_vma) chain"));
	return teardown();
}

int main(void)
{
	/* the tests read the model's state directly, outside its calls, as the
	 * checks at rest do: without the kernel's lock assertions (sync.h) */
	lock_asserts_off();
	TEST(test_new_mapping_merges);
	TEST(test_failed_merge_maps_unmerged);
	TEST(test_mprotect_splits_and_merges_back);
	TEST(test_account_flag_blocks_merge);
	TEST(test_incompatible_anon_vmas_do_not_merge);
	TEST(test_faults_and_resident_pages);
	TEST(test_no_zero_page);
	TEST(test_madvise_rules);
	TEST(test_munmap_and_mmap_errors);
	TEST(test_max_map_count);
	TEST(test_vma_checks_fire);
	TEST(test_anon_and_page_checks_fire);
	TEST(test_memory_checks_fire);
	TEST(test_userfaultfd);
	TEST(test_dump_names_freed_objects);
	return test_summary();
}
