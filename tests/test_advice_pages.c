/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The madvise advices on pages in the model (reclaim.h): MADV_FREE and what
 * a later write, a fork and MADV_PAGEOUT do with lazily freed pages;
 * MADV_PAGEOUT of page cache pages; MADV_POPULATE_READ/WRITE and their
 * errors; mlocked memory and MADV_DONTNEED(_LOCKED); smaps_rollup's
 * LazyFree and Locked; a shmem mapping grown past its file. The same cases
 * run against this machine's kernel in corpus/fuzz_mm/advice_*.txt.
 */
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/fork.h"
#include "mm/madvise.h"
#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mremap.h"
#include "mm/page.h"
#include "mm/rollup.h"
#include "mm/types.h"
#include "mm/validate.h"
#include "mm/vma.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sync.h"
#include "mm_fixture.h"
#include "test.h"

#include <errno.h>

static struct page *page_at(struct mm *m, uint64_t page)
{
	return pte_page(mm_pte(m, A(page)));
}

/* MADV_FREE: clean lazily freed pages; a write keeps one; pageout drops
 * the clean ones and keeps the rest, the one written again swap-backed and
 * its folio dirty (try_to_unmap_one). */
static bool test_free_then_pageout(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(3), MADV_FREE), 0);
	ASSERT(page_at(mm, 0x10)->lazyfree && !page_at(mm, 0x10)->dirty);
	ASSERT(!pte_dirty(mm_pte(mm, A(0x10))));
	ASSERT(!page_at(mm, 0x13)->lazyfree);
	ASSERT_EQ(mm_touch(mm, A(0x11), P(1), true), 0); /* written again: kept */
	ASSERT(page_at(mm, 0x11)->lazyfree && pte_dirty(mm_pte(mm, A(0x11))));
	ASSERT(!page_at(mm, 0x11)->dirty);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(4), MADV_PAGEOUT), 0);
	ASSERT(!mm_pte(mm, A(0x10)) && !mm_pte(mm, A(0x12)));
	ASSERT(mm_pte(mm, A(0x11)) && mm_pte(mm, A(0x13)));
	ASSERT(!page_at(mm, 0x11)->lazyfree && page_at(mm, 0x11)->dirty);
	ASSERT(!page_at(mm, 0x13)->lazyfree && !page_at(mm, 0x13)->dirty);
	ASSERT_EQ(mm->rss_anon, 2);
	/* MADV_FREE is for private anonymous memory only, not mlocked */
	ASSERT_EQ(map(0x20, 2, RW, MAP_SHARED | MAP_ANONYMOUS), A(0x20));
	ASSERT_EQ(mm_madvise(mm, A(0x20), P(2), MADV_FREE), -EINVAL);
	ASSERT_EQ(mm_mlock(mm, A(0x10), P(4), VM_LOCKED), 0);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(4), MADV_FREE), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(4), MADV_COLD), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(4), MADV_PAGEOUT), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(4), MADV_DONTNEED), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(4), MADV_DONTNEED_LOCKED), 0);
	ASSERT_EQ(mm->rss_anon, 0);
	return teardown();
}

/* Two pages written, lazily freed (MADV_FREE), then shared with a child. */
static bool free_then_fork(struct mm **child)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .check = true};
	struct fork_uffd fu;

	ASSERT_EQ(map(0x10, 2, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(2), true), 0);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(2), MADV_FREE), 0);
	ASSERT_EQ(mm_fork(mm, 1, &o, child, &fu), 0);
	return true;
}

/* Shared with a child, a lazily freed page is not paged out; the child's
 * entry stays as fork copied it (clean here, so both count LazyFree). */
static bool test_free_and_fork(void)
{
	struct rollup r;
	struct mm *child;

	ASSERT(setup());
	ASSERT(free_then_fork(&child));
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(2), MADV_PAGEOUT), 0);
	ASSERT_EQ(mm->rss_anon, 2); /* mapped twice: left alone */
	rollup_read(child, ROLLUP_MMAP_LOCK, &r);
	ASSERT_EQ(r.stats.lazyfree, P(2));
	rollup_free(&r);
	mm_put(child);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(2), MADV_PAGEOUT), 0);
	ASSERT_EQ(mm->rss_anon, 0); /* ours alone now: dropped */
	return teardown();
}

struct heard {
	struct mm_watch w;
	uint64_t start, end;
	unsigned n;
};

static void heard_change(struct mm_watch *w, uint64_t start, uint64_t end)
{
	struct heard *h = (struct heard *)w;

	h->start = start;
	h->end = end;
	h->n++;
}

/* A write fault that reuses the page (ours alone again once the child
 * exits) makes the entry writable and dirty, which ends its lazy freeing:
 * the mm's watchers (a rollup reading meanwhile) are told of the page. */
static bool test_reuse_tells_the_watchers(void)
{
	struct heard h = {.w = {.changed = heard_change}};
	struct rollup r;
	struct mm *child;

	ASSERT(setup());
	ASSERT(free_then_fork(&child));
	mm_put(child);
	mm_watch_add(mm, &h.w);
	ASSERT_EQ(mm_touch(mm, A(0x11), P(1), true), 0);
	mm_watch_del(mm, &h.w);
	ASSERT(page_at(mm, 0x11) != NULL);
	ASSERT_EQ(h.n, 1);
	ASSERT_EQ(h.start, A(0x11));
	ASSERT_EQ(h.end, A(0x12));
	rollup_read(mm, ROLLUP_MMAP_LOCK, &r);
	ASSERT_EQ(r.stats.lazyfree, P(1));
	rollup_free(&r);
	return teardown();
}

/* Page cache pages: pageout unmaps them; clean ones leave the cache, dirty
 * shmem pages stay for the next fault. */
static bool test_pageout_page_cache(void)
{
	struct file *f;
	struct page *p;

	ASSERT(setup());
	ASSERT_EQ(map(0x20, 2, RW, MAP_SHARED | MAP_ANONYMOUS), A(0x20));
	ASSERT_EQ(mm_touch(mm, A(0x20), P(1), true), 0);
	ASSERT_EQ(mm_touch(mm, A(0x21), P(1), false), 0);
	f = mm_vma_at(mm, A(0x20))->file;
	p = page_at(mm, 0x20);
	ASSERT_EQ(mm_madvise(mm, A(0x20), P(2), MADV_PAGEOUT), 0);
	ASSERT(!mm_pte(mm, A(0x20)) && !mm_pte(mm, A(0x21)));
	ASSERT(mt_load(&f->cache, 0) == p && !mt_load(&f->cache, 1));
	ASSERT_EQ(mm_touch(mm, A(0x20), P(1), false), 0);
	ASSERT(page_at(mm, 0x20) == p);
	return teardown();
}

/* MADV_POPULATE_*: the access must be allowed (-EINVAL), a hole is -ENOMEM;
 * a read populate maps the zero page, a write one anonymous pages. */
static bool test_populate(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 2, PROT_READ, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(2), MADV_POPULATE_WRITE), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(2), MADV_POPULATE_READ), 0);
	ASSERT(page_at(mm, 0x11) == &zero_page);
	ASSERT_EQ(map(0x12, 2, PROT_WRITE, PRIV_ANON), A(0x12));
	ASSERT_EQ(mm_madvise(mm, A(0x12), P(2), MADV_POPULATE_READ), -EINVAL);
	ASSERT_EQ(mm_madvise(mm, A(0x12), P(3), MADV_POPULATE_WRITE), -ENOMEM);
	ASSERT(page_at(mm, 0x13)->anon_vma); /* done before the hole */
	return teardown();
}

/* A write populate through an entry that is writable already (a shared page
 * read-faulted: writable, clean) faults nothing: it marks the page dirty,
 * not the entry (follow_page_pte's FOLL_TOUCH), so every mapping of the
 * page counts it dirty (corpus/fuzz_mm/conform_populate_dirty.txt). A touch
 * dirties the entry alone. */
static bool test_populate_dirties_the_page(void)
{
	uintptr_t pte;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 2, RW, MAP_SHARED | MAP_ANONYMOUS), A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(2), false), 0);
	pte = mm_pte(mm, A(0x10));
	ASSERT(pte_write(pte) && !pte_dirty(pte) && !pte_page(pte)->dirty);
	ASSERT_EQ(mm_madvise(mm, A(0x10), P(1), MADV_POPULATE_WRITE), 0);
	pte = mm_pte(mm, A(0x10));
	ASSERT(!pte_dirty(pte) && pte_page(pte)->dirty);
	ASSERT_EQ(mm_touch(mm, A(0x11), P(1), true), 0);
	pte = mm_pte(mm, A(0x11));
	ASSERT(pte_dirty(pte) && !pte_page(pte)->dirty);
	return teardown();
}

/* A shared anonymous mapping grown by mremap past the length it was made
 * with: faults past the file's end are SIGBUS (a touch's -EAGAIN, as
 * conform counts a real SIGBUS; MADV_POPULATE_* say -EFAULT, as GUP does),
 * a locked one is populated up to the end only. Locked in the rollup is the
 * locked Pss. */
static bool test_shmem_end_and_locked(void)
{
	struct rollup r;

	ASSERT(setup());
	ASSERT_EQ(map(0x20, 2, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_LOCKED), A(0x20));
	ASSERT_EQ(mm_mremap(mm, A(0x20), P(2), P(4), 0, 0), A(0x20));
	ASSERT(mm_pte(mm, A(0x21)) && !mm_pte(mm, A(0x22)));
	ASSERT_EQ(mm_touch(mm, A(0x22), P(1), true), -EAGAIN);
	ASSERT_EQ(mm_madvise(mm, A(0x21), P(2), MADV_POPULATE_READ), -EFAULT);
	rollup_read(mm, ROLLUP_MMAP_LOCK, &r);
	ASSERT_EQ(r.stats.pss_locked, P(2) << PSS_SHIFT);
	rollup_free(&r);
	return teardown();
}

int main(void)
{
	/* the tests read the model's state directly, outside its calls, as the
	 * checks at rest do: without the kernel's lock assertions (sync.h;
	 * test_locks.c runs these calls with them) */
	lock_asserts_off();
	TEST(test_free_then_pageout);
	TEST(test_free_and_fork);
	TEST(test_reuse_tells_the_watchers);
	TEST(test_pageout_page_cache);
	TEST(test_populate);
	TEST(test_populate_dirties_the_page);
	TEST(test_shmem_end_and_locked);
	return test_summary();
}
