/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation's inside (as_expect.h), shared by the files that write
 * down what calls leave: as_expect.c (mmap, munmap, mprotect, madvise,
 * touch, userfaultfd, fork, exit), as_expect_remap.c (mremap),
 * as_expect_lock.c (mlock, munlock, mlockall, munlockall) and
 * as_expect_stack.c (a touch that grows a stack). Pages are numbered
 * address >> MMF_PAGE_SHIFT; a range [lo, hi) of them is a call's.
 */
#ifndef VMAFUZZ_AS_EXPECT_EDIT_H
#define VMAFUZZ_AS_EXPECT_EDIT_H

#include "as_expect_map.h"
#include "mm_ops.h"

#include <stdbool.h>
#include <stdint.h>

struct as_expect;
struct exp_call;

#define PG(addr) ((addr) >> MMF_PAGE_SHIFT)
#define PAGE (1ull << MMF_PAGE_SHIFT)
/* Pages as a program names them: from the window's start. */
#define AT(x) ((uint64_t)((x)-PG(MMF_WINDOW_LO)))
#define WHOLE_LO 0ull
#define WHOLE_HI UINT64_MAX

static inline unsigned proc_of(const struct mm_call *c)
{
	return c->a.proc % MMF_MAX_PROCS;
}

/* Changes of a process's expected pages go through these, so that a check
 * compares it again (as_expect_check.c): pages [first, last] of @p become
 * @entry (NULL: unmapped), or each mapped run of them goes through @fn
 * (exp_map_edit); exp_edit_data when only what pages hold changes. */
void exp_set(struct as_expect *e, unsigned p, uint64_t first, uint64_t last, void *entry);
void exp_edit(struct as_expect *e, unsigned p, uint64_t first, uint64_t last, exp_edit_fn fn,
	      void *arg);
void exp_edit_data(struct as_expect *e, unsigned p, uint64_t first, uint64_t last, exp_edit_fn fn,
		   void *arg);
/* Pages [lo, hi) of @p: @what (EU_*) becomes unknown where they are mapped;
 * with EU_MAP, unmapped pages too. */
void exp_unknown(struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi, uint8_t what);
/* The record of page @x of @p, or NULL: unmapped. */
const struct exp_rec *exp_rec_at(const struct as_expect *e, unsigned p, uint64_t x);
/* The first page of [lo, hi) of @p whose record @ok refuses, unmapped
 * pages included (hi: none). */
uint64_t exp_first_not(const struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi,
		       bool (*ok)(const struct exp_rec *r));

/* The private file pages of [lo, hi) of @p that are writable (@only_locked:
 * and locked) may have been copied by a population's write fault (which
 * breaks copy-on-write): what they hold no longer follows the file, and is
 * unknown. */
void exp_private_copies(struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi,
			bool only_locked);

/* What the calls of the other files leave, their process still held (as
 * as_expect_end; @x is what as_expect_begin noted of the call). */
void exp_mremap_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		    bool fired);
void exp_mlock_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		   bool fired);
void exp_mlockall_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		      bool fired);
/* The answer @c must have given, where the expectation before it (still
 * unchanged by it) decides it (as_expect_result.c): MM_EXPECTED_RESULT. */
void exp_check_result(const struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		      bool fired);
/* Pages below a stack that it may not grow into when a mapping below them
 * is accessible and no stack (stack_guard_gap's default). */
#define EXP_GUARD_GAP 256
/* A touch of pages [lo, hi) of @p reaches a hole. */
bool exp_touch_hole(const struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi);
/* ... and may grow a stack below which it faults: where what it may map
 * ends (WHOLE_HI: a stack may be anywhere above; lo: it grows none). */
uint64_t exp_touch_may_grow(const struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi);
/* Touches of pages [lo, hi) of @p with a hole ran beside a call that has
 * just ended and may have made, moved or uncovered a stack: from their
 * first hole up to the highest mapping that may be a stack, what is
 * unmapped may have been grown over (the touches may have ended first). */
void exp_touch_beside(struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi);
/* The stacks the touch @c grew, written down before its data (@x). */
void exp_touch_stacks(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		      bool fired);

#endif
