/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's half of a step of a fuzz_mm program run for real: resolve
 * the operation's range on the model (as fuzz_mm does), say why the kernel
 * would not do the same with it, run it, and read the VMAs of the compared
 * window, of p0 and, after a fork, of the child, which then exits. vmafuzz
 * conform runs the kernel's half beside each step; vmafuzz repro records
 * the model's for a C program that runs the kernel's half later.
 *
 * @model is as_model's handle (as_model.open).
 */
#ifndef VMAFUZZ_CONFORM_MODEL_H
#define VMAFUZZ_CONFORM_MODEL_H

#include "fuzz/as/as_backend.h"
#include "ksys.h"

#include <stdbool.h>

/* The operation's call, its range resolved on the model (not yet run). */
void conform_model_resolve(void *model, const struct prog_desc *d, const struct prog_op *op,
			   struct mm_call *c);
/* The resolved call is a hint mapping the model will not place at its hint
 * (get_unmapped_area takes a free hint inside the window, else searches
 * top-down; the kernel's own placement differs). */
bool conform_hint_refused(void *model, const struct mm_call *c);
/* Why the kernel would not do with the resolved call what the model does,
 * whatever the kernel, or NULL: a hint the model will not take
 * (conform_hint_refused); an mremap the model would place itself
 * (MREMAP_MAYMOVE growing a range that cannot grow in place, a
 * MREMAP_DONTUNMAP hint the model would not take), or a kernel bug of the
 * version the model follows that the model does not follow (an
 * MREMAP_DONTUNMAP move of part of a locked VMA without
 * KV_DONTUNMAP_LOCKED_SPLIT; docs/fidelity.md); a call that would populate more pages than the
 * model does in one call (MM_POPULATE_MAX_PAGES). conform draws another operation or skips the
 * program; repro refuses it. */
const char *conform_model_skip(void *model, const struct mm_call *c);
/* The resolved call populates private anonymous pages with read faults
 * where nothing is mapped yet (mlock, mlockall(MCL_CURRENT): of mappings
 * that are not private and writable), as a read touch would. */
bool conform_populates_fresh_anon(void *model, const struct mm_call *c);
/* The resolved call would fault in more pages than the model populates in
 * one call (MM_POPULATE_MAX_PAGES). */
bool conform_populates_past_cap(void *model, const struct mm_call *c);
/* Run the call on the model (-ESRCH when its process is not there), then
 * check every invariant. False with the reason in @why when the model put a
 * hint mapping elsewhere than its hint after all, or moved an mremap's range
 * to an address of its own. */
bool conform_model_call(void *model, struct mm_call *c, unsigned step, char *why, size_t whylen);
/* Process @proc's VMAs in the compared window with their usage, as smaps
 * shows them (the offset column 0 for anonymous memory): how many, or -1
 * with a message in @err. */
int conform_model_vmas(void *model, unsigned proc, struct as_vma *out, unsigned max, char *err,
		       size_t errlen);
/* The model's processes, as a mask of their numbers. */
unsigned conform_model_procs(void *model);
/* Process @proc's VMA count (-1: no such process). */
int conform_model_map_count(void *model, unsigned proc);
/* Process @proc's smaps_rollup in kB, read by both of the model's readers
 * and checked (rollup_check); false when there is no such process. */
bool conform_model_rollup(void *model, unsigned proc, struct krest *out);
/* For a reproducer, whose forked children end at once: the process a fork
 * made (the only one besides p0), or 0 when there is none. */
unsigned conform_model_child(void *model);
/* That process exits; every invariant is checked. */
void conform_model_end_child(void *model, unsigned proc);

#endif
