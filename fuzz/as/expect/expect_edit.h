/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation's edit API (expect.h; expect_edit.c): how the files that
 * write down what calls leave read and change a process's expected pages:
 * expect.c (mmap, munmap, mprotect, madvise, touch, userfaultfd, fork,
 * exit) and those of expect_calls.h (mremap, the mlock family, the
 * answers, a touch that grows a stack). Pages are numbered
 * address >> MMF_PAGE_SHIFT; a range [lo, hi) of them is a call's.
 */
#ifndef VMAFUZZ_EXPECT_EDIT_H
#define VMAFUZZ_EXPECT_EDIT_H

#include "expect_map.h"
#include "fuzz/prog/mm_ops.h"

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
 * compares it again (expect_check.c): pages [first, last] of @p become
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

#endif
