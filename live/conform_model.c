/* SPDX-License-Identifier: GPL-2.0 */
/* The model's half of a step run for real (conform_model.h). */
#include "conform_model.h"
#include "conform_ops.h"
#include "fuzz/as/model_backend.h"
#include "mm/kver.h"
#include "mm/mlock.h"
#include "mm/page.h"
#include "mm/rollup.h"
#include "mm/stack.h"
#include "mm/vma.h"
#include "runtime/sync.h"

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

bool conform_hint_refused(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[c->a.proc % MMF_MAX_PROCS];
	uint64_t len = (c->len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	struct vma *v;
	bool busy;

	if (!mm || c->code != MMF_OP_MMAP || c->a.place != MMF_HINT)
		return false;
	if (!c->start || c->start < mm->mmap_min || c->start + len < c->start ||
	    c->start + len > mm->mmap_max)
		return true;
	/* what get_unmapped_area looks at, under the mmap lock as it is */
	mmap_read_lock(&mm->lock);
	v = mm_find_vma(mm, c->start);
	busy = v && vm_start_gap(v) < c->start + len; /* in the way, or its guard gap */
	mmap_read_unlock(&mm->lock);
	return busy;
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

/* A new mapping that will be populated (MAP_POPULATE, MAP_LOCKED, or
 * mlockall's MCL_FUTURE without MCL_ONFAULT). */
static bool mmap_populates(struct mm *mm, const struct mm_call *c)
{
	uint64_t def = mm->def_flags;

	if (c->code != MMF_OP_MMAP ||
	    !(mmf_populates(&c->a) || ((def & VM_LOCKED) && !(def & VM_LOCKONFAULT))))
		return false;
	return true;
}

/* The call would fault in more pages than the model populates in one call
 * (MM_POPULATE_MAX_PAGES). */
static bool populates_past_cap(struct mm *mm, const struct mm_call *c)
{
	uint64_t start, end, pages = 0;

	if (mmap_populates(mm, c))
		return c->len > (MM_POPULATE_MAX_PAGES << PAGE_SHIFT);
	if (!populated_range(mm, c, &start, &end))
		return false;
	if (c->code == MMF_OP_MREMAP)
		return c->to_len - c->len > (MM_POPULATE_MAX_PAGES << PAGE_SHIFT);
	for (struct vma *v = mm_find_vma(mm, start); v && v->start < end; v = vma_next(mm, v)) {
		uint64_t s = start < v->start ? v->start : start, e = end < v->end ? end : v->end;

		pages += (e - s) >> PAGE_SHIFT;
	}
	return pages > MM_POPULATE_MAX_PAGES;
}

/* The mremap would move the range to an address of the model's choosing:
 * MREMAP_MAYMOVE growing a range that cannot grow in place (the model
 * searches its window top-down, the kernel from its mmap base), or a
 * MREMAP_DONTUNMAP hint the model would not take. */
static bool remap_elsewhere(struct mm *mm, const struct mm_call *c)
{
	int flags = c->a.remap_flags;
	struct vma *v, *next;

	if (c->code != MMF_OP_MREMAP || !(flags & 1) || (flags & 2))
		return false; /* no move, or a fixed one */
	if (flags & 4) {
		/* MREMAP_DONTUNMAP's new address is a hint, taken when free,
		 * a stack's guard gap counting as taken (vm_start_gap) */
		v = mm_find_vma(mm, c->to);
		return c->to + c->to_len > mm->mmap_max ||
		       (v && vm_start_gap(v) < c->to + c->to_len);
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

/* An MREMAP_DONTUNMAP move of a locked VMA that leaks locked_vm on a kernel
 * of the version the model follows, which the model does not follow
 * (kver.h): of part of it without KV_DONTUNMAP_LOCKED_SPLIT (the whole VMA
 * is unlocked), or of an unfaulted one next to itself without
 * KV_DONTUNMAP_NO_SELF_MERGE (the copy merges with it). Each VMA of the
 * range is asked, as a fixed move of many VMAs moves each
 * (KV_MREMAP_MOVES_MANY), to its place in the new range. The reason, or
 * NULL. */
static const char *dontunmap_locked_leak(struct mm *mm, const struct mm_call *c)
{
	uint64_t end = c->start + c->len;
	struct vma *v;

	if (c->code != MMF_OP_MREMAP || !(c->a.remap_flags & 4) || c->len != c->to_len)
		return NULL;
	/* a range that leaves its VMA is -EFAULT but for a move of many */
	v = mm_vma_at(mm, c->start);
	if (!v ||
	    (end > v->end && !((c->a.remap_flags & 2) && kver_has(mm->kver, KV_MREMAP_MOVES_MANY))))
		return NULL;
	for (v = mm_find_vma(mm, c->start); v && v->start < end; v = vma_next(mm, v)) {
		uint64_t from = v->start > c->start ? v->start : c->start;
		uint64_t to = v->end < end ? v->end : end;
		uint64_t at = c->to + (from - c->start);

		if (!(v->flags & VM_LOCKED))
			continue;
		if (!kver_has(mm->kver, KV_DONTUNMAP_LOCKED_SPLIT) &&
		    (from != v->start || to != v->end))
			return "an MREMAP_DONTUNMAP move of part of a locked VMA, which this "
			       "kernel "
			       "unlocks whole, leaking locked_vm (rule dontunmap_locked_split, not "
			       "followed: docs/fidelity.md)";
		if (!kver_has(mm->kver, KV_DONTUNMAP_NO_SELF_MERGE) && !v->file && !v->anon_vma &&
		    at <= v->end && at + (to - from) >= v->start)
			return "an MREMAP_DONTUNMAP move of a locked unfaulted VMA next to itself, "
			       "whose copy this kernel merges with it, leaking locked_vm (rule "
			       "dontunmap_no_self_merge, not followed for a locked VMA: "
			       "docs/fidelity.md)";
	}
	return NULL;
}

const char *conform_model_skip(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[c->a.proc % MMF_MAX_PROCS];
	const char *why = NULL;

	if (conform_hint_refused(model, c))
		return "the model will not place this hint mapping at its hint; the kernel's own "
		       "placement differs";
	if (!mm)
		return NULL;
	/* what the calls will look at, under the mmap lock as they do */
	mmap_read_lock(&mm->lock);
	why = dontunmap_locked_leak(mm, c);
	if (!why && remap_elsewhere(mm, c))
		why = "mremap moves the range to an address the kernel picks itself; the model "
		      "picks another";
	else if (!why && populates_past_cap(mm, c))
		why = "populates more pages than the model faults in at once "
		      "(MM_POPULATE_MAX_PAGES)";
	mmap_read_unlock(&mm->lock);
	return why;
}

/* A hint mapping failed for a reason the kernel's would fail for too: no
 * such process, the map count over its limit (do_mmap checks it before it
 * places anything), or a stack that is no private anonymous memory
 * (-EINVAL wherever it is placed). */
static bool hint_failed_alike(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[c->a.proc % MMF_MAX_PROCS];

	return c->result == -ESRCH ||
	       (c->result == -ENOMEM && mm && mm->map_count > mm->max_map_count) ||
	       (c->result == -EINVAL && (c->a.prot & MMF_MAP_GROWSDOWN) &&
		c->a.kind != MMF_PRIVATE_ANON);
}

bool conform_model_call(void *model, struct mm_call *c, unsigned step, char *why, size_t whylen)
{
	if (mmf_is_thread_op(c->code)) {
		/* a thread busy elsewhere, no call of a process (as fuzz_mm runs
		 * it): 0 also when the process it names is gone, as on the real
		 * side (found by fuzz_conform) */
		c->result = 0;
	} else if (as_model.get(model, c)) {
		as_model.call(model, c);
		as_model.put(model, c);
	} else {
		c->result = -ESRCH;
	}
	as_model.check(model);
	if (c->code == MMF_OP_MREMAP && c->result >= 0 && c->result != (int64_t)c->start &&
	    c->result != (int64_t)c->to) {
		/* conform_model_skip() should have said so */
		snprintf(why, whylen,
			 "operation %u: the model moved the range to an address of its own; the "
			 "kernel's own placement differs",
			 step);
		return false;
	}
	if (c->code == MMF_OP_MMAP && c->a.place == MMF_HINT && c->result != (int64_t)c->start &&
	    !hint_failed_alike(model, c)) {
		char r[64];
		FILE *f = fmemopen(r, sizeof(r), "w");

		r[0] = 0;
		if (f) {
			conform_print_result(f, c->result);
			fclose(f);
		}
		/* conform_hint_refused() should have said so */
		snprintf(why, whylen,
			 "operation %u (mmap hint @0x%" PRIx64
			 "): the model did not place a hint mapping at its hint (it returned %s); "
			 "the kernel's own placement differs",
			 step, conform_pg(c->start), r);
		return false;
	}
	return true;
}

int conform_model_vmas(void *model, unsigned proc, struct as_vma *out, unsigned max, char *err,
		       size_t errlen)
{
	int n = as_model.vmas(model, proc, CONFORM_LO, CONFORM_HI, true, out, max, err, errlen);

	/* smaps' offset column: 0 for anonymous memory (its pgoff is the
	 * address's page number, which smaps does not show) */
	for (int i = 0; i < n; i++)
		if (!out[i].file)
			out[i].pgoff = 0;
	return n;
}

unsigned conform_model_procs(void *model)
{
	struct mmf_state *s = model;
	unsigned m = 0;

	for (unsigned q = 0; q < MMF_MAX_PROCS; q++)
		m |= (s->mm[q] != NULL) << q;
	return m;
}

int conform_model_map_count(void *model, unsigned proc)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[proc % MMF_MAX_PROCS];

	return mm ? mm->map_count : -1;
}

bool conform_model_rollup(void *model, unsigned proc, struct krest *out)
{
	struct mmf_state *s = model;
	struct mm *mm = mmf_get(s, proc);
	struct rollup r[2];

	if (!mm)
		return false;
	/* both readers, each checked against the VMAs' sum (rollup_check) */
	for (int k = 0; k < 2; k++) {
		rollup_read(mm, k ? ROLLUP_VMA_LOCK : ROLLUP_MMAP_LOCK, &r[k]);
		rollup_check(mm, &r[k]);
	}
	mmf_put(s, mm);
	*out = (struct krest){r[0].stats.rss >> 10,
			      r[0].stats.pss >> (PSS_SHIFT + 10),
			      r[0].stats.pss_dirty >> (PSS_SHIFT + 10),
			      r[0].stats.shared_clean >> 10,
			      r[0].stats.shared_dirty >> 10,
			      r[0].stats.private_clean >> 10,
			      r[0].stats.private_dirty >> 10,
			      r[0].stats.anonymous >> 10,
			      0};
	rollup_free(&r[0]);
	rollup_free(&r[1]);
	return true;
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
