/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the calls that have a file of their own leave (expect.c calls them
 * when such a call ends): mremap (expect_remap.c), the mlock family
 * (expect_lock.c), the answers that the expectation decides
 * (expect_result.c) and a touch that grows a stack (expect_stack.c). They
 * change the expectation only through expect_edit.h.
 */
#ifndef VMAFUZZ_EXPECT_CALLS_H
#define VMAFUZZ_EXPECT_CALLS_H

#include "expect_edit.h"

/* What the calls of the other files leave, their process still held (as
 * as_expect_end; @x is what as_expect_begin noted of the call). */
void exp_mremap_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		    bool fired);
void exp_mlock_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		   bool fired);
void exp_mlockall_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		      bool fired);
/* The answer @c must have given, where the expectation before it (still
 * unchanged by it) decides it (expect_result.c): MM_EXPECTED_RESULT. */
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
