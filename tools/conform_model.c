/* SPDX-License-Identifier: GPL-2.0 */
/* The model's half of a step run for real (conform_model.h). */
#include "conform_model.h"
#include "as_model.h"
#include "conform_ops.h"
#include "mm/page.h"
#include "mm/rollup.h"
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
	busy = v && v->start < c->start + len;
	mmap_read_unlock(&mm->lock);
	return busy;
}

/* A hint mapping failed for a reason the kernel's would fail for too: no
 * such process, or the map count over its limit (do_mmap checks it before
 * it places anything). */
static bool hint_failed_alike(void *model, const struct mm_call *c)
{
	struct mm *mm = ((struct mmf_state *)model)->mm[c->a.proc % MMF_MAX_PROCS];

	return c->result == -ESRCH ||
	       (c->result == -ENOMEM && mm && mm->map_count > mm->max_map_count);
}

bool conform_model_call(void *model, struct mm_call *c, unsigned step, char *why, size_t whylen)
{
	if (c->code == MMF_OP_DELAY) {
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
