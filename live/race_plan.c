/* SPDX-License-Identifier: GPL-2.0 */
/* A program resolved on the model into what the race runs (race_plan.h). */
#include "race_plan.h"

#include "conform_model.h"
#include "conform_ops.h"
#include "conform_probe.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "race_bounds.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define RACE_MAX_VMAS 4096
/* every racing range, and mremap's two more */
#define RACE_MAX_RANGES (3 * PROG_MAX_OPS)

struct planner {
	const struct prog_desc *d;
	void *model;
	struct race_plan *plan;
	struct race_range ranges[RACE_MAX_RANGES];
	unsigned nranges;
};

static void skip(struct race_plan *plan, const char *why)
{
	unsigned i;

	plan->nskipped++;
	for (i = 0; i < plan->nreasons; i++)
		if (!strcmp(plan->skipped[i].why, why))
			break;
	if (i == plan->nreasons) {
		if (i == RACE_REASONS)
			i--; /* the last slot takes the rest */
		else
			plan->nreasons++;
		snprintf(plan->skipped[i].why, sizeof(plan->skipped[i].why), "%s", why);
	}
	plan->skipped[i].count++;
}

/* Why the operation, before its range is resolved, does not run here. */
static const char *refuses(const struct prog_desc *d, const struct prog_op *op, unsigned thread)
{
	struct mm_call c;

	conform_op_call(d, op, &c);
	switch (c.code) {
	case MMF_OP_MMAP:
		if (c.a.kind != MMF_PRIVATE_ANON && c.a.kind != MMF_SHARED_ANON)
			return "file mappings do not run in a race (anonymous memory only)";
		break;
	case MMF_OP_MLOCKALL:
	case MMF_OP_MUNLOCKALL:
		if (thread)
			return "mlockall and munlockall in a race reach mappings outside the "
			       "window";
		break;
	case MMF_OP_MUNMAP:
	case MMF_OP_MPROTECT:
	case MMF_OP_MADVISE:
	case MMF_OP_TOUCH:
	case MMF_OP_FORK:
	case MMF_OP_MREMAP:
	case MMF_OP_MLOCK:
	case MMF_OP_MUNLOCK:
	case MMF_OP_ROLLUP:
		break;
	default:
		if (mmf_is_thread_op(c.code))
			return "delay and await order the model's threads, not real ones";
		return "only mmap, munmap, mremap, mprotect, madvise, mlock, munlock, mlockall, "
		       "munlockall, touch, fork and rollup run in a race";
	}
	if (c.a.proc % MMF_MAX_PROCS)
		return "only process p0 runs in a race";
	if (op->fail_at)
		return "fail_at (allocation failure) has no real counterpart";
	return conform_call_refuses(&c);
}

/* Why the resolved call of a racing thread does not run: it could land
 * outside the window, where the oracle does not look. */
static const char *races_outside(const struct kcall *k)
{
	if (k->code == KSYS_MMAP && !(k->flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
		return "a racing hint mapping may land outside the window";
	if (k->code == KSYS_MREMAP && (k->flags & MREMAP_MAYMOVE) && !(k->flags & MREMAP_FIXED))
		return "a racing mremap that may move may land outside the window";
	return NULL;
}

static void add_range(struct planner *pl, uint64_t start, uint64_t len)
{
	if (len && pl->nranges < RACE_MAX_RANGES)
		pl->ranges[pl->nranges++] = (struct race_range){start, start + len};
}

/* One operation resolved, run on the model and planned; false with @why
 * when the model did what the kernel would not. */
static bool plan_op(struct planner *pl, const struct prog_op *op, unsigned index, unsigned thread,
		    char *why, size_t whylen)
{
	struct race_plan *plan = pl->plan;
	struct race_op *r = &plan->ops[plan->nops];
	const char *no = refuses(pl->d, op, thread);
	struct mm_call c;

	if (no) {
		skip(plan, no);
		return true;
	}
	conform_model_resolve(pl->model, pl->d, op, &c);
	if ((no = conform_model_skip(pl->model, &c))) {
		skip(plan, no);
		return true;
	}
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->thread = thread;
	r->kind = c.code == MMF_OP_ROLLUP ? RACE_ROLLUP
		  : c.code == MMF_OP_FORK ? RACE_FORK
					  : RACE_CALL;
	if (r->kind == RACE_CALL) {
		conform_kcall(&c, &r->k);
		if (thread && (no = races_outside(&r->k))) {
			skip(plan, no);
			return true;
		}
	}
	if (!conform_model_call(pl->model, &c, index, why, whylen))
		return false;
	if (c.code == MMF_OP_FORK && c.result == 0) {
		unsigned q = conform_model_child(pl->model);

		if (q)
			conform_model_end_child(pl->model, q); /* the real child exits at once */
	}
	if (thread && r->kind == RACE_CALL) {
		add_range(pl, r->k.start, r->k.len);
		if (r->k.code == KSYS_MREMAP) {
			add_range(pl, r->k.start, r->k.new_len); /* growth in place */
			add_range(pl, r->k.new_addr, r->k.new_len);
		}
	}
	plan->nops++;
	plan->per_thread[thread]++;
	if (thread + 1 > plan->nthreads)
		plan->nthreads = thread + 1;
	return true;
}

/* The setup's VMAs and what the race can and cannot change of them. */
static bool bounds(struct planner *pl, const struct as_vma *v, int n)
{
	struct race_plan *plan = pl->plan;

	plan->stable_pages = 0;
	for (int i = 0; i < n; i++) {
		struct race_range vr = {v[i].start, v[i].end};

		if (!race_range_meets(&vr, pl->ranges, pl->nranges))
			plan->stable_pages += v[i].rss;
		add_range(pl, v[i].start, v[i].end - v[i].start);
	}
	plan->race_pages = race_union_pages(pl->ranges, pl->nranges);
	return pl->nranges < RACE_MAX_RANGES;
}

bool race_plan_make(const struct prog_desc *d, const struct prog *p, bool no_zero_page,
		    struct race_plan *plan, char *why, size_t whylen)
{
	static struct planner pl;
	static struct as_vma v[RACE_MAX_VMAS];
	bool ok = true;
	int n = -1;

	memset(plan, 0, sizeof(*plan));
	plan->nthreads = 1;
	if (p->config & ~MM_CONFIG_KERNEL) {
		snprintf(why, whylen, "config bits %#x have no real counterpart", p->config);
		return false;
	}
	memset(&pl, 0, sizeof(pl));
	pl.d = d;
	pl.plan = plan;
	pl.model = as_model.open(why, whylen);
	if (!pl.model)
		return false;
	as_model_forbid_zeropage(pl.model, no_zero_page);
	as_model_set_kver(pl.model, conform_probe_kver());
	/* the setup (t0), then the racing threads */
	for (unsigned pass = 0; pass < 2 && ok; pass++) {
		for (unsigned i = 0; i < p->nops && ok; i++) {
			unsigned thread = p->ops[i].fiber % d->nfibers;

			if ((thread == 0) == (pass == 0))
				ok = plan_op(&pl, &p->ops[i], i, thread, why, whylen);
		}
		if (ok && pass == 0 &&
		    (n = conform_model_vmas(pl.model, 0, v, RACE_MAX_VMAS, why, whylen)) < 0)
			ok = false;
	}
	if (ok && !bounds(&pl, v, n)) {
		snprintf(why, whylen, "more ranges than the plan holds");
		ok = false;
	}
	as_model.close(pl.model);
	return ok;
}
