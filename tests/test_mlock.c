/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlock in the model: the flags it sets through splits and merges, the
 * pages it faults in (write faults where private and writable, none for
 * MLOCK_ONFAULT, -ENOMEM for PROT_NONE as __mlock_posix_error_return turns
 * -EFAULT), mlockall's default for later mappings, locked_vm through mmap,
 * munmap, mremap and fork, and VMA_LOCKED_VM firing on a count broken by
 * hand. The cases were checked against this machine's kernel with vmafuzz
 * conform (corpus/fuzz_mm/mlock_*.txt).
 */
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/fork.h"
#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/mremap.h"
#include "mm/page.h"
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

static bool present(uint64_t page)
{
	return mm_pte(mm, A(page)) != 0;
}

/* mlock splits off its range, faults it in, counts it; munlock merges it
 * back; a hole is -ENOMEM after the VMAs before it changed. */
static bool test_mlock_munlock(void)
{
	struct vma *v;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 8, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_mlock(mm, A(0x12), P(2), VM_LOCKED), 0);
	ASSERT_EQ(mm->map_count, 3);
	v = mm_vma_at(mm, A(0x12));
	ASSERT(v->start == A(0x12) && v->end == A(0x14) && (v->flags & VM_LOCKED));
	ASSERT(present(0x12) && present(0x13) && !present(0x11));
	ASSERT(pte_write(mm_pte(mm, A(0x12)))); /* a write fault: an anonymous page */
	ASSERT_EQ(mm->locked_vm, 2);
	ASSERT_EQ(mm_munlock(mm, A(0x12), P(2)), 0);
	ASSERT_EQ(mm->map_count, 1);
	ASSERT_EQ(mm->locked_vm, 0);
	/* unaligned start: the page holding it counts */
	ASSERT_EQ(mm_mlock(mm, A(0x17) + 5, 1, VM_LOCKED), 0);
	ASSERT_EQ(mm->locked_vm, 1);
	ASSERT_EQ(mm_mlock(mm, A(0x16), P(4), VM_LOCKED), -ENOMEM); /* runs into a hole */
	ASSERT_EQ(mm->locked_vm, 2);
	ASSERT_EQ(mm_mlock(mm, A(0x8), P(1), VM_LOCKED), -ENOMEM);
	return teardown();
}

/* MLOCK_ONFAULT faults nothing in; read-only private memory gets read
 * faults (the zero page); PROT_NONE is locked but cannot be populated. */
static bool test_mlock_population(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_mlock(mm, A(0x10), P(4), VM_LOCKED | VM_LOCKONFAULT), 0);
	ASSERT(!present(0x10));
	ASSERT(mm_vma_at(mm, A(0x10))->flags & VM_LOCKONFAULT);
	ASSERT_EQ(map(0x20, 2, PROT_READ, PRIV_ANON), A(0x20));
	ASSERT_EQ(mm_mlock(mm, A(0x20), P(2), VM_LOCKED), 0);
	ASSERT(pte_page(mm_pte(mm, A(0x21))) == &zero_page);
	ASSERT_EQ(map(0x30, 2, 0, PRIV_ANON), A(0x30));
	ASSERT_EQ(mm_mlock(mm, A(0x30), P(2), VM_LOCKED), -ENOMEM);
	ASSERT(mm_vma_at(mm, A(0x30))->flags & VM_LOCKED);
	ASSERT(!present(0x30));
	/* made writable, a locked private VMA breaks copy-on-write now */
	ASSERT_EQ(mm_mprotect(mm, A(0x20), P(2), RW), 0);
	ASSERT(pte_page(mm_pte(mm, A(0x21))) != &zero_page);
	ASSERT_EQ(mm->locked_vm, 8);
	/* __mm_populate stops at the first hole, with 0, whatever VMA lies
	 * past the range (the PROT_NONE one at 0x30 cannot be populated; a
	 * range can end in a hole when another thread unmaps it between
	 * mlock's two halves) */
	ASSERT_EQ(mm_populate_range(mm, A(0x20), P(0xe), false), 0);
	ASSERT_EQ(mm_populate_range(mm, A(0x28), P(4), false), 0);
	ASSERT_EQ(mm_populate_range(mm, A(0x20), P(0x12), false), -EFAULT);
	return teardown();
}

/* mlockall: every VMA now, every later mapping with MCL_FUTURE (faulted
 * in, unless MCL_ONFAULT); munlockall undoes both. Bad flags: -EINVAL. */
static bool test_mlockall(void)
{
	ASSERT(setup());
	ASSERT_EQ(mm_mlockall(mm, 0), -EINVAL);
	ASSERT_EQ(mm_mlockall(mm, MCL_ONFAULT), -EINVAL);
	ASSERT_EQ(mm_mlockall(mm, 8), -EINVAL);
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_mlockall(mm, MCL_CURRENT | MCL_FUTURE), 0);
	ASSERT(present(0x13));
	ASSERT_EQ(map(0x20, 2, RW, MAP_SHARED | MAP_ANONYMOUS), A(0x20));
	ASSERT(mm_vma_at(mm, A(0x20))->flags & VM_LOCKED);
	ASSERT(present(0x21));
	ASSERT_EQ(mm->locked_vm, 6);
	ASSERT_EQ(mm_mlockall(mm, MCL_FUTURE | MCL_ONFAULT), 0);
	ASSERT_EQ(map(0x30, 2, RW, PRIV_ANON), A(0x30));
	ASSERT(!present(0x30));
	ASSERT(mm_vma_at(mm, A(0x30))->flags & VM_LOCKONFAULT);
	ASSERT_EQ(mm_munlockall(mm), 0);
	ASSERT_EQ(mm->locked_vm, 0);
	ASSERT_EQ(mm->def_flags, 0);
	ASSERT_EQ(map(0x40, 1, RW, PRIV_ANON), A(0x40));
	ASSERT(!(mm_vma_at(mm, A(0x40))->flags & VM_LOCKED));
	/* MAP_LOCKED and MAP_POPULATE ask for the same of one mapping */
	ASSERT_EQ(map(0x50, 2, RW, PRIV_ANON | MAP_LOCKED), A(0x50));
	ASSERT(present(0x51) && mm->locked_vm == 2);
	ASSERT_EQ(map(0x60, 2, RW, PRIV_ANON | MAP_POPULATE), A(0x60));
	ASSERT(present(0x61) && mm->locked_vm == 2);
	return teardown();
}

/* locked_vm through munmap, mremap (growth populated after the lock) and
 * fork (the child locks nothing). */
static bool test_locked_vm_follows(void)
{
	struct fork_opts o = {.algo = FORK_TREE_DUP, .check = true};
	struct fork_uffd fu;
	struct mm *child;

	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON | MAP_LOCKED), A(0x10));
	ASSERT_EQ(mm_munmap(mm, A(0x11), P(1)), 0);
	ASSERT_EQ(mm->locked_vm, 3);
	ASSERT_EQ(mm_mremap(mm, A(0x12), P(2), P(6), 0, 0), A(0x12));
	ASSERT_EQ(mm->locked_vm, 7);
	ASSERT(present(0x17));
	ASSERT_EQ(mm_mremap(mm, A(0x12), P(6), P(6), MREMAP_MAYMOVE | MREMAP_FIXED, A(0x40)),
		  A(0x40));
	ASSERT_EQ(mm->locked_vm, 7);
	/* DONTUNMAP of part of a locked VMA splits it first: only the moved
	 * part is unlocked (6.18 unlocks all of it: docs/fidelity.md) */
	ASSERT_EQ(mm_mremap(mm, A(0x41), P(1), P(1),
			    MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, A(0x60)),
		  A(0x60));
	ASSERT(mm_vma_at(mm, A(0x40))->flags & VM_LOCKED);
	ASSERT(!(mm_vma_at(mm, A(0x41))->flags & VM_LOCKED));
	ASSERT_EQ(mm->locked_vm, 7);
	ASSERT_EQ(mm_fork(mm, 1, &o, &child, &fu), 0);
	ASSERT_EQ(child->locked_vm, 0);
	ASSERT(!(mm_vma_at(child, A(0x40))->flags & VM_LOCKED_MASK));
	{
		struct mm *both[2] = {mm, child};

		ASSERT(mm_validate_all(both, 2));
	}
	mm_put(child);
	return teardown();
}

/* VMA_LOCKED_VM fires when the count and the VMAs disagree. */
static bool test_locked_vm_check_fires(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x10, 4, RW, PRIV_ANON), A(0x10));
	ASSERT_EQ(mm_mlock(mm, A(0x10), P(2), VM_LOCKED), 0);
	ASSERT(mm_validate(mm));
	check_clear();
	check_set_mode(CHECK_COLLECT);
	mm->locked_vm++;
	mm_validate(mm);
	mm->locked_vm--;
	mm_vma_at(mm, A(0x12))->flags |= VM_LOCKED; /* locked, not counted */
	mm_validate(mm);
	mm_vma_at(mm, A(0x12))->flags &= ~VM_LOCKED;
	check_set_mode(CHECK_ABORT);
	ASSERT_EQ(check_count(CK_VMA_LOCKED_VM), 2);
	check_clear();
	return teardown();
}

int main(void)
{
	/* the tests read the model's state directly, outside its calls, as the
	 * checks at rest do: without the kernel's lock assertions (sync.h;
	 * test_locks.c runs these calls with them) */
	lock_asserts_off();
	TEST(test_mlock_munlock);
	TEST(test_mlock_population);
	TEST(test_mlockall);
	TEST(test_locked_vm_follows);
	TEST(test_locked_vm_check_fires);
	return test_summary();
}
