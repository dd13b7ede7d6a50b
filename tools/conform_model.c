/* SPDX-License-Identifier: GPL-2.0 */
/* The model's half of a step run for real (conform_model.h). */
#include "conform_model.h"
#include "as_model.h"
#include "conform_ops.h"
#include "mm/fault.h"
#include "mm/mlock.h"
#include "mm/page.h"
#include "mm/stack.h"
#include "mm/vma.h"

#include <errno.h>
#include <inttypes.h>

void conform_model_resolve(void *model, const struct prog_desc *d, const struct prog_op *op,
			   struct mm_call *c)
{
	conform_op_call(d, op, c);
	if (c->code != MMF_OP_FORK && as_model.get(model, c)) {
		as_model.resolve(model, c);
		as_model.put(model, c);
	}
}

bool conform_reads_fresh_anon(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[0];
	uint64_t start = c->start & ~(PAGE_SIZE - 1), len = c->len;

	if (!mm || c->code != MMF_OP_TOUCH || c->a.access == 1)
		return false;
	if (len > (MM_TOUCH_MAX_PAGES << PAGE_SHIFT))
		len = MM_TOUCH_MAX_PAGES << PAGE_SHIFT;
	for (uint64_t a = start; a < c->start + len && a >= start; a += PAGE_SIZE) {
		struct vma *v = mm_vma_at(mm, a);

		if (!v) {
			/* a stack above may grow down to it: a fresh page */
			v = mm_find_vma(mm, a);
			return v && (v->flags & VM_GROWSDOWN) && (v->flags & VM_ACCESS_FLAGS);
		}
		if (!(v->flags & VM_ACCESS_FLAGS))
			return false; /* the touch stops here */
		if (!v->file && !(v->flags & VM_SHARED) && !mm_pte(mm, a))
			return true;
	}
	return false;
}

/* @v would be populated with read faults (mlock sets its lock flags
 * anew; @reads: read faults even where writable, as MADV_POPULATE_READ), some
 * page of [start, end) of it still empty. */
static bool reads_fresh(struct vma *v, uint64_t start, uint64_t end, bool reads)
{
	if (v->file || (v->flags & VM_SHARED) || ((v->flags & VM_WRITE) && !reads) ||
	    !(v->flags & VM_ACCESS_FLAGS))
		return false;
	for (uint64_t a = start < v->start ? v->start : start; a < end && a < v->end;
	     a += PAGE_SIZE)
		if (!mm_pte(v->mm, a))
			return true;
	return false;
}

/* The range a call populates: [*start, *end), or false when it populates
 * nothing (the VMAs already there tell how). */
static bool populated_range(struct mm *mm, const struct mm_call *c, uint64_t *start, uint64_t *end)
{
	struct vma *v;

	*start = c->start & PAGE_MASK;
	*end = c->start + c->len;
	switch (c->code) {
	case MMF_OP_MLOCK:
		return !c->a.lock;
	case MMF_OP_MADVISE:
		/* a read populate reads; a write one is counted for the limit */
		return c->a.advice == MMF_ADV_POPULATE_READ ||
		       c->a.advice == MMF_ADV_POPULATE_WRITE;
	case MMF_OP_MLOCKALL:
		*start = 0;
		*end = UINT64_MAX;
		return (c->a.mcl & MCL_CURRENT) && !(c->a.mcl & MCL_ONFAULT);
	case MMF_OP_MREMAP:
		/* a locked range that grows: its growth */
		v = mm_vma_at(mm, c->start);
		*end = *start + c->to_len;
		return v && (v->flags & VM_LOCKED) && c->to_len > c->len;
	default:
		return false;
	}
}

/* A new mapping that will be populated: how many pages, and whether with
 * read faults of fresh private anonymous memory. */
static bool mmap_populates(struct mm *mm, const struct mm_call *c, bool *reads)
{
	uint64_t def = mm->def_flags;

	if (c->code != MMF_OP_MMAP ||
	    !(mmf_populates(&c->a) || ((def & VM_LOCKED) && !(def & VM_LOCKONFAULT))))
		return false;
	*reads = c->a.kind == MMF_PRIVATE_ANON && !(c->a.prot & 2) && (c->a.prot & 7);
	return true;
}

bool conform_populates_fresh_anon(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[0];
	uint64_t start, end;
	bool reads;

	if (mm && mmap_populates(mm, c, &reads))
		return reads;
	if (!mm || !populated_range(mm, c, &start, &end))
		return false;
	if (c->code == MMF_OP_MREMAP) {
		struct vma *v = mm_vma_at(mm, c->start);

		return !v->file && !(v->flags & (VM_SHARED | VM_WRITE | VM_LOCKONFAULT)) &&
		       (v->flags & VM_ACCESS_FLAGS);
	}
	if (c->code == MMF_OP_MADVISE && c->a.advice != MMF_ADV_POPULATE_READ)
		return false;
	for (struct vma *v = mm_find_vma(mm, start); v && v->start < end; v = vma_next(mm, v))
		if (reads_fresh(v, start, end, c->code == MMF_OP_MADVISE))
			return true;
	return false;
}

bool conform_populates_past_cap(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[0];
	uint64_t start, end, pages = 0;
	bool reads;

	if (mm && mmap_populates(mm, c, &reads))
		return c->len > (MM_POPULATE_MAX_PAGES << PAGE_SHIFT);
	if (!mm || !populated_range(mm, c, &start, &end))
		return false;
	if (c->code == MMF_OP_MREMAP)
		return c->to_len - c->len > (MM_POPULATE_MAX_PAGES << PAGE_SHIFT);
	for (struct vma *v = mm_find_vma(mm, start); v && v->start < end; v = vma_next(mm, v)) {
		uint64_t s = start < v->start ? v->start : start, e = end < v->end ? end : v->end;

		pages += (e - s) >> PAGE_SHIFT;
	}
	return pages > MM_POPULATE_MAX_PAGES;
}

bool conform_remap_elsewhere(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[0];
	int flags = c->a.remap_flags;
	struct vma *v, *next;

	if (!mm || c->code != MMF_OP_MREMAP || !(flags & 1) || (flags & 2))
		return false; /* no move, or a fixed one */
	if (flags & 4) {
		/* MREMAP_DONTUNMAP's new address is a hint, taken when free */
		v = mm_find_vma(mm, c->to);
		return c->to + c->to_len > mm->mmap_max || (v && v->start < c->to + c->to_len);
	}
	if (c->to_len <= c->len)
		return false; /* shrinks in place */
	v = mm_vma_at(mm, c->start);
	if (!v || c->len > v->end - c->start)
		return false; /* -EFAULT */
	if (c->start + c->len != v->end)
		return true;
	next = mm_find_vma(mm, v->end);
	return next && next->start < v->end + (c->to_len - c->len);
}

bool conform_remap_618(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[0];
	struct vma *v;

	if (!mm || c->code != MMF_OP_MREMAP || !(c->a.remap_flags & 6))
		return false; /* not mremap_to */
	v = mm_vma_at(mm, c->start);
	if (!v || c->len > v->end - c->start)
		return true;
	if (!(c->a.remap_flags & 4))
		return false;
	/* 6.18 unlocks all of a locked source VMA, not only the range */
	if ((v->flags & VM_LOCKED) && (c->start != v->start || c->start + c->len != v->end))
		return true;
	/* a kept unfaulted source may merge with its copy in 6.18 (also
	 * once a fixed move unmapped the part of it the copy goes to) */
	return !v->file && !v->anon_vma && c->to <= v->end && c->to + c->to_len >= v->start;
}

bool conform_hint_refused(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[0];
	uint64_t len = (c->len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	struct vma *v;

	if (!mm || c->code != MMF_OP_MMAP || c->a.place != MMF_HINT)
		return false;
	if (!c->start || c->start < mm->mmap_min || c->start + len < c->start ||
	    c->start + len > mm->mmap_max)
		return true;
	v = mm_find_vma(mm, c->start);
	return v && vm_start_gap(v) < c->start + len; /* in the way, or its guard gap */
}

const char *conform_model_skip(void *model, const struct mm_call *c)
{
	if (conform_hint_refused(model, c))
		return "the model will not place this hint mapping at its hint; the kernel's own "
		       "placement differs";
	if (conform_remap_618(model, c))
		return "an mremap where 6.12 (the model) and 6.18 differ: a move from a range "
		       "that is not inside one VMA, a kept unfaulted source next to its copy, or "
		       "a kept part of a locked VMA (docs/fidelity.md)";
	if (conform_remap_elsewhere(model, c))
		return "mremap moves the range to an address the kernel picks itself; the model "
		       "picks another";
	if (conform_populates_past_cap(model, c))
		return "populates more pages than the model faults in at once "
		       "(MM_POPULATE_MAX_PAGES)";
	return NULL;
}

bool conform_model_call(void *model, struct mm_call *c, unsigned step, char *why, size_t whylen)
{
	if (as_model.get(model, c)) {
		as_model.call(model, c);
		as_model.put(model, c);
	} else {
		c->result = -ESRCH;
	}
	as_model.check(model);
	if (c->code == MMF_OP_MREMAP && c->result >= 0 && c->result != (int64_t)c->start &&
	    c->result != (int64_t)c->to) {
		/* conform_remap_elsewhere() should have said so */
		snprintf(why, whylen,
			 "operation %u: the model moved the range to an address of its own; the "
			 "kernel's own placement differs",
			 step);
		return false;
	}
	if (c->code == MMF_OP_MMAP && c->a.place == MMF_HINT && c->result != (int64_t)c->start) {
		char r[64];
		FILE *f = fmemopen(r, sizeof(r), "w");

		r[0] = 0;
		if (f) {
			conform_print_result(f, c->result);
			fclose(f);
		}
		/* conform_hint_refused() should have said so */
		snprintf(why, whylen,
			 "operation %u: the model did not place the hint mapping at its hint "
			 "@0x%" PRIx64 " (it returned %s); the kernel's own placement differs",
			 step, conform_pg(c->start), r);
		return false;
	}
	return true;
}

int conform_model_vmas(void *model, unsigned proc, struct as_vma *out, unsigned max, char *err,
		       size_t errlen)
{
	return as_model.vmas(model, proc, CONFORM_LO, CONFORM_HI, true, out, max, err, errlen);
}

unsigned conform_model_child(void *model)
{
	struct mmf_state *s = model;

	for (unsigned q = 1; q < MMF_MAX_PROCS; q++)
		if (s->mm[q])
			return q;
	return 0;
}

void conform_model_end_child(void *model, unsigned proc)
{
	struct mm_call end = {.code = MMF_OP_EXIT};

	end.a.proc = (uint8_t)proc;
	if (as_model.get(model, &end)) {
		as_model.call(model, &end);
		as_model.put(model, &end);
	}
	as_model.check(model);
}
