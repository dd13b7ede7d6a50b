/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What some calls must answer, from the expectation before them
 * (MM_EXPECTED_RESULT). The rest of the expectation takes a call's result
 * as given and writes down what that result leaves, so a call that does
 * its work and answers wrongly, or answers 0 for work it must refuse,
 * leaves a state the expectation agrees with. Where the pages a call
 * names are all known, and nothing ran beside it on them, no failure was
 * injected and no map_limit can fail a split, its answer follows from them:
 *
 *  - MADV_FREE whose range starts in a file or shared mapping, or in a
 *    locked one, is refused with -EINVAL (madvise_free_single_vma: only
 *    anonymous memory; madvise_dontneed_free_valid_vma: not VM_LOCKED);
 *  - mlock of readable private anonymous memory with no userfaultfd
 *    registration, every page mapped, succeeds: its population faults
 *    every page in, which nothing in such memory refuses.
 *
 * Anything less certain is not judged.
 */
#include "expect_calls.h"
#include "expect_state.h"
#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>

static bool plain_anon(const struct exp_rec *r)
{
	return !r->unknown && !r->obj && !r->ctx && (r->flags & AS_VM_READ);
}

void exp_check_result(const struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		      bool fired)
{
	unsigned p = proc_of(c);
	const struct exp_rec *r;

	if (fired || e->limited[p] || x->conflicted || x->beside_maps || x->fork_beside ||
	    x->lo >= x->hi)
		return;
	switch (c->code) {
	case MMF_OP_MADVISE:
		if (c->a.advice != MMF_ADV_FREE || c->result == -EINVAL)
			return;
		r = exp_rec_at(e, p, x->lo);
		if (!r || (r->unknown & EU_MAP))
			return;
		if (r->obj || ((r->flags & AS_VM_LOCKED) && !(r->unknown & EU_ATTR)))
			check_fail(CK_MM_EXPECTED_RESULT,
				   "p%u: madvise free @%#" PRIx64 " answers %" PRId64
				   ", but the range starts in a %s mapping: -EINVAL",
				   p, AT(x->lo), c->result, r->obj ? "file or shared" : "locked");
		return;
	case MMF_OP_MLOCK:
		if (c->result == 0 || exp_first_not(e, p, x->lo, x->hi, plain_anon) < x->hi)
			return;
		check_fail(CK_MM_EXPECTED_RESULT,
			   "p%u: mlock @%#" PRIx64 ":%" PRIu64 " answers %" PRId64
			   ", but every page is readable private anonymous memory: 0",
			   p, AT(x->lo), x->hi - x->lo, c->result);
		return;
	default:
		return;
	}
}
