/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fork and exit: a varied parent forked at every allocation that can fail,
 * under both algorithms; a failed fork leaves the parent as it was and
 * nothing behind, a successful one gives a child equal to the parent minus
 * VM_DONTCOPY (wipe-on-fork empty), and both algorithms build equal
 * children. The fork invariants fire on states broken by hand.
 */
#include "mm/anon.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/file.h"
#include "mm/fork.h"
#include "mm/fork_check.h"
#include "mm/madvise.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "mm/uprobe.h"
#include "mm/validate.h"
#include "mm/vma.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "test.h"

#include <errno.h>

#define LO 0x200000000000ull
#define P(n) ((uint64_t)(n) << PAGE_SHIFT)
#define A(n) (LO + P(n))
#define RW (PROT_READ | PROT_WRITE)
#define PRIV_ANON (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED)

static struct mm *parent;
static struct file *file;
static struct uffd_ctx *ufork, *unofork;

/* Every kind of VMA a fork treats differently. */
static bool build_parent(void)
{
	parent = mm_create(0, LO, LO + P(0x40000));
	file = file_create(1, false);
	ASSERT(parent && file);
	ASSERT_EQ(mm_mmap(parent, A(0x10), P(8), RW, PRIV_ANON, NULL, 0), A(0x10));
	ASSERT_EQ(mm_touch(parent, A(0x10), P(6), true), 0);
	ASSERT_EQ(mm_mprotect(parent, A(0x12), P(2), PROT_READ), 0); /* 3 VMAs, one anon_vma */
	ASSERT_EQ(mm_mmap(parent, A(0x20), P(4), RW, PRIV_ANON, NULL, 0), A(0x20));
	ASSERT_EQ(mm_touch(parent, A(0x20), P(4), true), 0);
	ASSERT_EQ(mm_madvise(parent, A(0x20), P(4), MADV_DONTFORK), 0);
	ASSERT_EQ(mm_mmap(parent, A(0x30), P(4), RW, PRIV_ANON, NULL, 0), A(0x30));
	ASSERT_EQ(mm_touch(parent, A(0x30), P(4), true), 0);
	ASSERT_EQ(mm_madvise(parent, A(0x30), P(4), MADV_WIPEONFORK), 0);
	ASSERT_EQ(
	    mm_mmap(parent, A(0x40), P(4), RW, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, NULL, 0),
	    A(0x40));
	ASSERT_EQ(mm_touch(parent, A(0x40), P(2), true), 0);
	ASSERT_EQ(mm_mmap(parent, A(0x50), P(4), RW, MAP_PRIVATE | MAP_FIXED, file, 0), A(0x50));
	ASSERT_EQ(mm_touch(parent, A(0x50), P(2), false), 0);
	ASSERT_EQ(mm_touch(parent, A(0x52), P(1), true), 0);
	ASSERT_EQ(mm_mmap(parent, A(0x60), P(4), RW, MAP_SHARED | MAP_FIXED, file, 0x60), A(0x60));
	ASSERT_EQ(mm_touch(parent, A(0x60), P(2), true), 0);
	ASSERT_EQ(mm_mmap(parent, A(0x70), P(4), RW, PRIV_ANON, NULL, 0), A(0x70));
	ASSERT_EQ(mm_mmap(parent, A(0x80), P(4), RW, PRIV_ANON, NULL, 0), A(0x80));
	ufork = uffd_create(parent, true);
	unofork = uffd_create(parent, false);
	ASSERT_EQ(uffd_register(ufork, A(0x70), P(4), UFFD_MODE_MISSING), 0);
	ASSERT_EQ(uffd_register(unofork, A(0x80), P(4), UFFD_MODE_WP), 0);
	ASSERT(mm_validate(parent));
	return true;
}

static bool teardown(void)
{
	uffd_put(ufork);
	uffd_put(unofork);
	ASSERT(mm_validate(parent));
	mm_destroy(parent);
	file_put(file);
	rcu_barrier();
	ASSERT(mem_check_empty());
	return true;
}

static void drop_child(struct mm *child, struct fork_uffd *fu)
{
	for (unsigned i = 0; i < fu->n; i++)
		uffd_put(fu->ctx[i]);
	mm_put(child); /* a walker may hold it a while longer */
	rcu_barrier();
}

static bool fork_every_point(enum fork_algo algo)
{
	struct fork_opts o = {.algo = algo, .policy = ANON_POLICY_CURRENT, .check = true};
	struct mm *child, *other;
	struct fork_uffd fu, fu2;
	unsigned points = 0;

	ASSERT(build_parent());
	for (uint64_t n = 1;; n++) {
		struct mm_snapshot before;
		uint64_t live = alloc_live_total();
		int err;

		mm_snapshot_take(parent, &before);
		alloc_fail_arm(n);
		err = mm_fork(parent, 1, &o, &child, &fu);
		alloc_fail_disarm();
		if (!alloc_fail_fired()) {
			struct mm *both[2] = {parent, child};
			struct fork_opts o2 = {.algo = algo == FORK_TREE_DUP ? FORK_APPEND
									     : FORK_TREE_DUP,
					       .differential = true};

			ASSERT_EQ(err, 0);
			ASSERT(mm_check_fork(parent, child));
			ASSERT(mm_validate_all(both, 2));
			ASSERT_EQ(fu.n, 1); /* the context with the fork event */
			/* the other algorithm builds the same child */
			ASSERT_EQ(mm_fork(parent, 2, &o2, &other, &fu2), 0);
			ASSERT(mm_check_same_child(child, other));
			drop_child(other, &fu2);
			drop_child(child, &fu);
			mm_snapshot_free(&before);
			break;
		}
		points++;
		ASSERT_EQ(err, -ENOMEM);
		ASSERT(child == NULL);
		rcu_barrier();
		ASSERT(mm_check_unchanged(parent, &before));
		ASSERT(mm_validate(parent));
		ASSERT_EQ(alloc_live_total(), live);
		mm_snapshot_free(&before);
	}
	ASSERT(points > 20);
	return teardown();
}

static bool test_fork_tree_dup_every_failure_point(void)
{
	return fork_every_point(FORK_TREE_DUP);
}

static bool test_fork_append_every_failure_point(void)
{
	return fork_every_point(FORK_APPEND);
}

/* After fork the pages are shared read-only; a write copies. */
static bool test_cow_after_fork(void)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .policy = ANON_POLICY_CURRENT};
	struct mm *child;
	struct fork_uffd fu;
	struct page *p;

	ASSERT(build_parent());
	ASSERT_EQ(mm_fork(parent, 1, &o, &child, &fu), 0);
	p = pte_page(mm_pte(parent, A(0x10)));
	ASSERT_EQ(p->mapcount, 2);
	ASSERT(pte_page(mm_pte(child, A(0x10))) == p);
	ASSERT(!pte_write(mm_pte(parent, A(0x10))));
	ASSERT_EQ(mm_touch(child, A(0x10), P(1), true), 0);
	ASSERT(pte_page(mm_pte(child, A(0x10))) != p);
	ASSERT_EQ(p->mapcount, 1);
	ASSERT_EQ(mm_touch(parent, A(0x10), P(1), true), 0);
	ASSERT(pte_page(mm_pte(parent, A(0x10))) == p); /* reused: ours alone now */
	/* wipe-on-fork and dontfork */
	ASSERT(mm_vma_at(child, A(0x20)) == NULL);
	ASSERT(mm_vma_at(child, A(0x30)) != NULL && mm_pte(child, A(0x30)) == 0);
	{
		struct mm *both[2] = {parent, child};

		ASSERT(mm_validate_all(both, 2));
	}
	drop_child(child, &fu);
	return teardown();
}

static bool test_fork_checks_fire(void)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .policy = ANON_POLICY_CURRENT};
	struct mm *child;
	struct fork_uffd fu;
	struct mm_snapshot s;
	struct vma *v;

	ASSERT(build_parent());
	ASSERT_EQ(mm_fork(parent, 1, &o, &child, &fu), 0);
	v = mm_vma_at(child, A(0x10));
	check_clear();
	check_set_mode(CHECK_COLLECT);
	v->flags ^= VM_EXEC;
	ASSERT(!mm_check_fork(parent, child));
	ASSERT_EQ(check_count(CK_FORK_CHILD_DIFFERS), 1);
	v->flags ^= VM_EXEC;
	v->mm = parent;
	ASSERT(!mm_check_fork(parent, child));
	ASSERT_EQ(check_count(CK_FORK_CHILD_POINTS_INTO_PARENT), 1);
	v->mm = child;
	v = mm_vma_at(child, A(0x30));
	v->anon_vma = mm_vma_at(child, A(0x10))->anon_vma;
	ASSERT(!mm_check_fork(parent, child));
	ASSERT_EQ(check_count(CK_FORK_WIPE_NOT_EMPTY), 1);
	v->anon_vma = NULL;
	/* the child's tree a VMA short, then one VMA long: fewer, more */
	{
		struct mt_cursor cur;
		struct vma *last = NULL, *w;
		uint64_t lo, hi;

		mt_cursor_init(&cur, &child->mt, 0);
		while ((w = mt_cursor_next(&cur)))
			last = w;
		ASSERT(last != NULL);
		lo = last->start;
		hi = last->end - 1;
		ASSERT_EQ(mt_store_range(&child->mt, lo, hi, NULL), 0);
		ASSERT(!mm_check_fork(parent, child));
		ASSERT_EQ(check_count(CK_FORK_CHILD_DIFFERS), 2);
		ASSERT_EQ(mt_store_range(&child->mt, lo, hi, last), 0);
		ASSERT_EQ(mt_store_range(&child->mt, hi + 1 + P(4), hi + P(5), last), 0);
		ASSERT(!mm_check_fork(parent, child));
		ASSERT_EQ(check_count(CK_FORK_CHILD_DIFFERS), 3);
		ASSERT_EQ(mt_store_range(&child->mt, hi + 1 + P(4), hi + P(5), NULL), 0);
		ASSERT(mm_check_fork(parent, child));
	}
	mm_snapshot_take(parent, &s);
	mm_vma_at(parent, A(0x10))->pgoff++;
	ASSERT(!mm_check_unchanged(parent, &s));
	ASSERT_EQ(check_count(CK_FORK_PARENT_CHANGED), 1);
	mm_vma_at(parent, A(0x10))->pgoff--;
	mm_snapshot_free(&s);
	{
		struct mm *other;
		struct fork_uffd fu2;

		ASSERT_EQ(mm_fork(parent, 2, &o, &other, &fu2), 0);
		ASSERT(mm_check_same_child(child, other));
		mm_vma_at(other, A(0x10))->flags ^= VM_EXEC;
		ASSERT(!mm_check_same_child(child, other));
		ASSERT_EQ(check_count(CK_FORK_ALGOS_DIFFER), 1);
		mm_vma_at(other, A(0x10))->flags ^= VM_EXEC;
		drop_child(other, &fu2);
	}
	check_set_mode(CHECK_ABORT);
	check_clear();
	drop_child(child, &fu);
	return teardown();
}

/*
 * The anon_vma reuse of rmap-reuse-mergeable-anon-vma-on-fork, as posted:
 * the child's VMA after one that shares the parent's anon_vma takes the
 * *parent's* anon_vma as its own (vm_prev still pointed into the parent
 * when anon_vma_fork ran). Every count stays consistent and every page
 * stays reachable, so nothing crashes, but the anon_vma tree no longer
 * follows the process tree: the child's new pages land in an anon_vma of
 * the parent. ANON_ONE_MM is what catches it, and only it.
 */
static bool test_reverted_anon_policy_caught(void)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .policy = ANON_POLICY_REUSE_MERGEABLE};
	struct mm *child, *both[2];
	struct fork_uffd fu;

	ASSERT(build_parent());
	ASSERT_EQ(mm_fork(parent, 1, &o, &child, &fu), 0);
	both[0] = parent;
	both[1] = child;
	/* A(0x12) shares A(0x10)'s anon_vma in the parent */
	ASSERT(mm_vma_at(child, A(0x12))->anon_vma == mm_vma_at(parent, A(0x12))->anon_vma);
	check_clear();
	check_set_mode(CHECK_COLLECT);
	ASSERT(!mm_validate_all(both, 2));
	ASSERT(check_count(CK_ANON_ONE_MM) >= 1);
	ASSERT_EQ(check_count(CK_ANON_NUM_ACTIVE), 0);
	ASSERT_EQ(check_count(CK_ANON_SAME_CHAIN), 0);
	ASSERT_EQ(check_count(CK_PAGE_RMAP), 0);
	check_set_mode(CHECK_ABORT);
	check_clear();
	drop_child(child, &fu);
	/* the current rule keeps the tree a tree */
	o.policy = ANON_POLICY_CURRENT;
	ASSERT_EQ(mm_fork(parent, 1, &o, &child, &fu), 0);
	both[1] = child;
	ASSERT(mm_validate_all(both, 2));
	drop_child(child, &fu);
	return teardown();
}

/*
 * A uprobe registration walking a file's private mappings races every
 * failed fork of a parent that maps the file before two anonymous VMAs, in
 * every schedule of the first 10 points: it reaches the half-built child
 * through the file's i_mmap in some, and must then skip it (unstable), never
 * meeting the zero entry (syzbot's general protection fault in
 * find_mergeable_anon_vma, with VMAFUZZ_BUG_zero_entry_walker).
 */
static int race_fail_at, race_err;

static void race_forker(void *arg)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .policy = ANON_POLICY_CURRENT};
	struct fork_uffd fu;
	struct mm *child;

	(void)arg;
	alloc_fail_arm((uint64_t)race_fail_at);
	race_err = mm_fork(parent, 1, &o, &child, &fu);
	alloc_fail_disarm();
	if (!race_err)
		drop_child(child, &fu);
}

static void race_walker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		uprobe_register(file, 0x10);
}

static bool test_uprobe_walk_skips_failed_child(void)
{
	uint64_t skipped = uprobe_skipped_unstable;
	unsigned failed = 0;

	for (race_fail_at = 1; race_fail_at < 24; race_fail_at++)
		for (unsigned bits = 0; bits < 1024; bits++) {
			uint8_t choices[10];
			struct sched s;

			for (unsigned i = 0; i < 10; i++)
				choices[i] = (uint8_t)(bits >> i & 1);
			parent = mm_create(0, LO, LO + P(0x40000));
			file = file_create(1, false);
			ASSERT(parent && file);
			parent->users = 1;
			ASSERT_EQ(
			    mm_mmap(parent, A(0x10), P(4), RW, MAP_PRIVATE | MAP_FIXED, file, 0x10),
			    A(0x10));
			ASSERT_EQ(mm_touch(parent, A(0x10), P(2), false), 0);
			ASSERT_EQ(mm_mmap(parent, A(0x14), P(4), RW, PRIV_ANON, NULL, 0), A(0x14));
			ASSERT_EQ(mm_touch(parent, A(0x14), P(4), true), 0);
			ASSERT_EQ(mm_mmap(parent, A(0x20), P(4), RW, PRIV_ANON, NULL, 0), A(0x20));
			ASSERT_EQ(mm_touch(parent, A(0x20), P(4), true), 0);
			sched_init(&s, choices, sizeof(choices));
			sched_spawn(&s, race_forker, NULL);
			sched_spawn(&s, race_walker, NULL);
			ASSERT(sched_run(&s)); /* a zero entry met aborts with its report */
			sched_destroy(&s);
			failed += race_err != 0;
			ASSERT(mm_validate(parent));
			mm_destroy(parent);
			file_put(file);
			rcu_barrier();
			ASSERT(mem_check_empty());
		}
	ASSERT(failed > 0);
	ASSERT(uprobe_skipped_unstable > skipped); /* the race did happen */
	return true;
}

int main(void)
{
	/* the tests read the model's state directly, outside its calls, as the
	 * checks at rest do: without the kernel's lock assertions (sync.h) */
	lock_asserts_off();
	TEST(test_fork_tree_dup_every_failure_point);
	TEST(test_fork_append_every_failure_point);
	TEST(test_cow_after_fork);
	TEST(test_fork_checks_fire);
	TEST(test_reverted_anon_policy_caught);
	TEST(test_uprobe_walk_skips_failed_child);
	return test_summary();
}
