/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MAP_GROWSDOWN stacks in the model (stack.h): growth on a fault below, the
 * stack guard gap below a stack (growth refused near an accessible VMA,
 * placement kept out of it), RLIMIT_STACK, shared stacks refused, a locked
 * stack's growth counted in locked_vm. The same cases run against this
 * machine's kernel in corpus/fuzz_mm/stack_grows.txt.
 */
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/page.h"
#include "mm/stack.h"
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

#define STACK (MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN)

/* A fault below a stack grows it down to that page; the guard gap stops it
 * near an accessible VMA, not near a PROT_NONE one or another stack. */
static bool test_growth_and_guard_gap(void)
{
	struct vma *s;

	ASSERT(setup());
	ASSERT_EQ(map(0x400, 4, RW, STACK), A(0x400));
	ASSERT_EQ(mm_touch(mm, A(0x3fe), P(1), true), 0);
	s = mm_vma_at(mm, A(0x3fe));
	ASSERT(s && s->start == A(0x3fe) && (s->flags & VM_GROWSDOWN));
	ASSERT_EQ(s->pgoff, A(0x3fe) >> PAGE_SHIFT);
	ASSERT_EQ(map(0x100, 4, RW, PRIV_ANON), A(0x100));
	ASSERT_EQ(mm_touch(mm, A(0x200), P(1), true), -EFAULT); /* 0xfc pages above it */
	ASSERT_EQ(mm_touch(mm, A(0x204), P(1), true), 0);	/* 0x100 pages: room */
	ASSERT_EQ(mm_vma_at(mm, A(0x204))->start, A(0x204));
	ASSERT_EQ(mm_mprotect(mm, A(0x100), P(4), 0), 0); /* PROT_NONE: no guard */
	ASSERT_EQ(mm_touch(mm, A(0x104), P(1), true), 0);
	ASSERT_EQ(mm_vma_at(mm, A(0x104))->start, A(0x104));
	/* read-only memory of no stack below an address: no growth there */
	ASSERT_EQ(mm_touch(mm, A(0x90), P(1), false), -EFAULT);
	return teardown();
}

/* RLIMIT_STACK bounds the stack; a locked stack's growth is counted. */
static bool test_rlimit_and_locked(void)
{
	ASSERT(setup());
	ASSERT_EQ(map(0x5000, 1, RW, STACK | MAP_LOCKED), A(0x5000));
	ASSERT_EQ(mm_touch(mm, A(0x5001) - MM_RLIMIT_STACK - P(1), P(1), true), -EFAULT);
	ASSERT_EQ(mm_touch(mm, A(0x5001) - MM_RLIMIT_STACK, P(1), true), 0);
	ASSERT_EQ(mm->locked_vm, MM_RLIMIT_STACK >> PAGE_SHIFT);
	return teardown();
}

/* mmap without MAP_FIXED keeps the guard gap free; MAP_FIXED does not; a
 * stack is private anonymous memory only. */
static bool test_placement(void)
{
	int64_t at;

	ASSERT(setup());
	ASSERT_EQ(map(0x400, 4, RW, STACK), A(0x400));
	/* a hint whose end is in the guard gap goes elsewhere */
	at = mm_mmap(mm, A(0x3f0), P(4), RW, PRIV_ANON, NULL, 0);
	ASSERT(at != (int64_t)A(0x3f0));
	ASSERT_EQ(mm_mmap(mm, A(0x2f0), P(0x10), RW, PRIV_ANON, NULL, 0), A(0x2f0));
	ASSERT_EQ(map(0x3f0, 4, RW, PRIV_ANON), A(0x3f0));
	/* top-down: a stack at the window's top pushes the search under its gap */
	ASSERT_EQ(mm_mmap(mm, A(0x3fffc), P(4), RW, STACK | MAP_FIXED, NULL, 0), A(0x3fffc));
	at = mm_mmap(mm, 0, P(4), RW, PRIV_ANON, NULL, 0);
	ASSERT_EQ(at, A(0x3fffc) - MM_STACK_GUARD_GAP - P(4));
	ASSERT_EQ(map(0x800, 1, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN), -EINVAL);
	return teardown();
}

int main(void)
{
	/* the tests read the model's state directly, outside its calls, as the
	 * checks at rest do: without the kernel's lock assertions (sync.h;
	 * test_locks.c runs these calls with them) */
	lock_asserts_off();
	TEST(test_growth_and_guard_gap);
	TEST(test_rlimit_and_locked);
	TEST(test_placement);
	return test_summary();
}
