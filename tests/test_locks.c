/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's lock assertions in the model (sync.h): each fires when a
 * model function whose kernel counterpart asserts a lock runs without it,
 * and stays quiet with it held: a tree lookup outside RCU and the mmap lock,
 * a VMA change under the mmap read lock, a zap or an anon_vma_prepare with
 * no lock, a fault and a rollup reader's walk of a VMA's pages holding
 * neither the VMA's lock nor the mmap lock (a reader with its locking
 * removed), a page copy from a VMA not write-locked, an i_mmap insertion
 * without the file's lock, an anon_vma chain change without its root's;
 * mremap, the mlock calls, a stack's growth and the advices on pages hold
 * what they assert, and their pieces fire without it (a stack grown or
 * page tables moved under the mmap read lock, MADV_FREE's walk unlocked).
 */
#include "mm/anon.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/file.h"
#include "mm/madvise.h"
#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mremap.h"
#include "mm/page.h"
#include "mm/reclaim.h"
#include "mm/rollup.h"
#include "mm/stack.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sync.h"
#include "test.h"

#define LO 0x200000000000ull
#define P(n) ((uint64_t)(n) << PAGE_SHIFT)
#define A(n) (LO + P(n))
#define RW (PROT_READ | PROT_WRITE)

static struct mm *mm;
static struct file *file;

/* p: a private anonymous VMA at 0x10 with pages, a shared file VMA at 0x20. */
static bool setup(void)
{
	mm = mm_create(0, LO, LO + P(0x40000));
	file = file_create(1, false);
	ASSERT(mm && file);
	ASSERT_EQ(mm_mmap(mm, A(0x10), P(4), RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0),
		  A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(4), true), 0);
	ASSERT_EQ(mm_mmap(mm, A(0x20), P(2), RW, MAP_SHARED | MAP_FIXED, file, 0), A(0x20));
	ASSERT_EQ(mm_touch(mm, A(0x20), P(2), false), 0);
	check_set_mode(CHECK_COLLECT);
	check_clear();
	return true;
}

static bool teardown(void)
{
	check_set_mode(CHECK_ABORT);
	check_clear();
	mm_destroy(mm);
	file_put(file);
	rcu_barrier();
	ASSERT(mem_check_empty());
	return true;
}

/* The VMAs of the setup, read as a check would (the assertions off). */
static struct vma *vma_of(uint64_t page)
{
	struct vma *v;

	lock_asserts_off();
	v = mm_vma_at(mm, A(page));
	lock_asserts_on();
	return v;
}

static bool test_tree_read_unlocked(void)
{
	ASSERT(setup());
	mm_find_vma(mm, A(0x10));
	ASSERT_EQ(check_count(CK_SYNC_TREE_UNLOCKED), 1);
	rcu_read_lock();
	mm_find_vma(mm, A(0x10));
	rcu_read_unlock();
	mmap_read_lock(&mm->lock);
	mm_vma_at(mm, A(0x10));
	mmap_read_unlock(&mm->lock);
	ASSERT_EQ(check_total(), 1);
	return teardown();
}

static bool test_modify_under_read_lock(void)
{
	struct vma *v, *res;

	ASSERT(setup());
	v = vma_of(0x10);
	mmap_read_lock(&mm->lock);
	vma_modify(v, v->start, v->end, v->flags | VM_EXEC, v->uffd, &res);
	mmap_read_unlock(&mm->lock);
	ASSERT(check_count(CK_SYNC_MMAP_NOT_WRITE_LOCKED) >= 1);
	ASSERT(check_count(CK_SYNC_VMA_NOT_WRITE_LOCKED) >= 1);
	check_clear();
	mmap_write_lock(&mm->lock);
	vma_modify(v, v->start, v->end, v->flags & ~VM_EXEC, v->uffd, &res);
	mmap_write_unlock(&mm->lock);
	ASSERT_EQ(check_total(), 0);
	return teardown();
}

static bool test_zap_and_prepare_unlocked(void)
{
	struct vma *v;

	ASSERT(setup());
	v = vma_of(0x10);
	zap_range(v, v->start, v->end);
	ASSERT_EQ(check_count(CK_SYNC_MMAP_UNLOCKED), 1);
	ASSERT_EQ(mm_mmap(mm, A(0x30), P(1), RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0),
		  A(0x30));
	v = vma_of(0x30);
	anon_vma_prepare(v); /* __anon_vma_prepare's mmap_assert_locked */
	ASSERT_EQ(check_count(CK_SYNC_MMAP_UNLOCKED), 2);
	mmap_read_lock(&mm->lock);
	zap_range(v, v->start, v->end);
	mmap_read_unlock(&mm->lock);
	ASSERT_EQ(check_total(), 2);
	return teardown();
}

static bool test_fault_unlocked(void)
{
	struct vma *v;

	ASSERT(setup());
	v = vma_of(0x20);
	fault_page(v, A(0x21), true);
	ASSERT_EQ(check_count(CK_SYNC_VMA_UNLOCKED), 1);
	/* with the VMA's read lock (the per-VMA path) or the mmap lock */
	ASSERT(vma_start_read(&v->lock, &mm->lock));
	fault_page(v, A(0x21), true);
	vma_end_read(&v->lock);
	mmap_read_lock(&mm->lock);
	fault_page(v, A(0x20), true);
	mmap_read_unlock(&mm->lock);
	ASSERT_EQ(check_total(), 1);
	return teardown();
}

/* The per-VMA-lock reader with its locking removed: it walks a VMA's pages
 * found under RCU without read-locking the VMA. */
static bool test_rollup_reader_unlocked(void)
{
	struct rollup_stats s = {0};
	struct rollup r;
	struct vma *v;

	ASSERT(setup());
	rcu_read_lock();
	v = mm_find_vma(mm, 0);
	smaps_gather(v, v->start, &s);
	rcu_read_unlock();
	ASSERT_EQ(check_count(CK_SYNC_VMA_UNLOCKED), 1);
	/* both readers as they are */
	rollup_read(mm, ROLLUP_VMA_LOCK, &r);
	rollup_free(&r);
	rollup_read(mm, ROLLUP_MMAP_LOCK, &r);
	rollup_free(&r);
	ASSERT_EQ(check_total(), 1);
	return teardown();
}

static bool test_copy_not_write_locked(void)
{
	struct mm *child;
	struct vma *v, *cv;

	ASSERT(setup());
	child = mm_create(1, LO, LO + P(0x40000));
	ASSERT(child != NULL);
	ASSERT_EQ(
	    mm_mmap(child, A(0x10), P(4), RW, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, NULL, 0),
	    A(0x10));
	v = vma_of(0x10);
	lock_asserts_off();
	cv = mm_vma_at(child, A(0x10));
	lock_asserts_on();
	mmap_write_lock(&mm->lock);
	mmap_write_lock_nested(&child->lock, 1);
	copy_ptes(cv, v); /* copy_page_range: the source not write-locked */
	ASSERT_EQ(check_count(CK_SYNC_VMA_NOT_WRITE_LOCKED), 1);
	zap_range(cv, cv->start, cv->end);
	vma_start_write(&v->lock, &mm->lock);
	copy_ptes(cv, v);
	mmap_write_unlock(&child->lock);
	mmap_write_unlock(&mm->lock);
	ASSERT_EQ(check_total(), 1);
	mm_destroy(child);
	return teardown();
}

static bool test_i_mmap_unlocked(void)
{
	struct vma *n;

	ASSERT(setup());
	n = vma_dup(vma_of(0x20));
	ASSERT(n != NULL);
	vma_link_file_locked(n);
	ASSERT_EQ(check_count(CK_SYNC_I_MMAP_UNLOCKED), 1);
	vma_unlink_file(n);
	down_write(&file->i_mmap_rwsem);
	vma_link_file_locked(n);
	up_write(&file->i_mmap_rwsem);
	vma_unlink_file(n);
	vma_free(n);
	ASSERT_EQ(check_total(), 1);
	return teardown();
}

/* avc_link and avc_unlink_av (anon.c) assert their anon_vma's root lock:
 * the assertion on an anon_vma of the setup, without and with it. */
static bool test_anon_vma_unlocked(void)
{
	struct anon_vma *av;

	ASSERT(setup());
	av = vma_of(0x10)->anon_vma;
	ASSERT(av != NULL);
	ASSERT(!lock_assert_held_write(&av->root->rwsem));
	ASSERT_EQ(check_count(CK_SYNC_ANON_VMA_UNLOCKED), 1);
	anon_vma_lock_write(av);
	ASSERT(lock_assert_held_write(&av->root->rwsem));
	anon_vma_unlock_write(av);
	ASSERT_EQ(check_total(), 1);
	return teardown();
}

/* The calls of mremap, mlock and friends, stacks and the page advices. */
static bool test_breadth_calls(void)
{
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(mm_mremap(mm, A(0x10), P(4), P(4), MREMAP_MAYMOVE | MREMAP_FIXED, A(0x40)),
		  (int64_t)A(0x40));
	ASSERT_EQ(mm_mlock(mm, A(0x40), P(4), VM_LOCKED), 0);
	ASSERT_EQ(mm_munlock(mm, A(0x40), P(2)), 0);
	ASSERT_EQ(mm_mlockall(mm, MCL_CURRENT | MCL_FUTURE), 0);
	ASSERT_EQ(mm_munlockall(mm), 0);
	ASSERT_EQ(mm_madvise(mm, A(0x40), P(4), MADV_FREE), 0);
	ASSERT_EQ(mm_madvise(mm, A(0x40), P(4), MADV_PAGEOUT), 0);
	ASSERT_EQ(mm_madvise(mm, A(0x40), P(4), MADV_POPULATE_WRITE), 0);
	ASSERT_EQ(mm_mmap(mm, A(0x300), P(2), RW,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, NULL, 0),
		  A(0x300));
	ASSERT_EQ(mm_touch(mm, A(0x2fe), P(1), true), 0); /* grows */
	ASSERT_EQ(check_total(), 0);
	/* a stack grown, page tables moved under the read lock */
	v = vma_of(0x2fe);
	mmap_read_lock(&mm->lock);
	ASSERT_EQ(expand_downwards(v, A(0x2fc)), 0);
	ASSERT(check_count(CK_SYNC_MMAP_NOT_WRITE_LOCKED) >= 1);
	move_ptes(mm, A(0x40), A(0x60), P(4));
	mmap_read_unlock(&mm->lock);
	ASSERT(check_count(CK_SYNC_MMAP_NOT_WRITE_LOCKED) >= 2);
	mmap_write_lock(&mm->lock);
	move_ptes(mm, A(0x60), A(0x40), P(4)); /* back where their VMA is */
	mmap_write_unlock(&mm->lock);
	check_clear();
	/* MADV_FREE's walk with no lock */
	lazyfree_range(vma_of(0x40), A(0x40), A(0x44));
	ASSERT_EQ(check_count(CK_SYNC_MMAP_UNLOCKED), 1);
	ASSERT_EQ(check_total(), 1);
	return teardown();
}

int main(void)
{
	TEST(test_tree_read_unlocked);
	TEST(test_modify_under_read_lock);
	TEST(test_zap_and_prepare_unlocked);
	TEST(test_fault_unlocked);
	TEST(test_rollup_reader_unlocked);
	TEST(test_copy_not_write_locked);
	TEST(test_i_mmap_unlocked);
	TEST(test_anon_vma_unlocked);
	TEST(test_breadth_calls);
	return test_summary();
}
