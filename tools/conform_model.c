/* SPDX-License-Identifier: GPL-2.0 */
/* The model's half of a step run for real (conform_model.h). */
#include "conform_model.h"
#include "as_model.h"
#include "conform_ops.h"
#include "mm/page.h"
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
	return v && v->start < c->start + len;
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
