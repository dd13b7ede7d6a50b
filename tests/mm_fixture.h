/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's unit tests' fixture: one address space over a fixed window,
 * made by setup() before a test with one user (its process, as a fork's
 * parent needs) and, by teardown() after it, validated, checked at rest and
 * put (destroyed with its last user) with nothing left allocated. Pages are
 * named by their index in the window (A(n)); map() maps at one with
 * MAP_FIXED. For tests/test_*.c only (each its own copy: static).
 */
#ifndef VMAFUZZ_TESTS_MM_FIXTURE_H
#define VMAFUZZ_TESTS_MM_FIXTURE_H

#include "mm/exit.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/validate.h"
#include "runtime/mem_check.h"
#include "runtime/sync.h"
#include "test.h"

#include <stdint.h>
#include <sys/mman.h>

#define LO 0x200000000000ull
#define P(n) ((uint64_t)(n) << PAGE_SHIFT)
#define A(n) (LO + P(n))
#define RW (PROT_READ | PROT_WRITE)
#define PRIV_ANON (MAP_PRIVATE | MAP_ANONYMOUS)

static struct mm *mm;

static inline bool setup(void)
{
	mm = mm_create(0, LO, LO + P(0x40000));
	if (mm)
		mm->users = 1;
	return mm != NULL;
}

static inline bool teardown(void)
{
	ASSERT(mm_validate(mm));
	ASSERT(mm_check_at_rest(mm));
	mm_put(mm);
	rcu_barrier();
	ASSERT(mem_check_empty());
	return true;
}

static inline int64_t map(uint64_t page, uint64_t pages, int prot, int flags)
{
	return mm_mmap(mm, A(page), P(pages), prot, flags | MAP_FIXED, NULL, 0);
}

#endif
