/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A touch that grows a stack (expect_edit.h): a page the touch reaches
 * where nothing is mapped, below a MAP_GROWSDOWN mapping, makes the mapping
 * grow down to it (expand_downwards), whether the access is then allowed or
 * not; the new pages are the mapping's (its flags, registration and offsets)
 * and hold zeros. It may not grow within the stack guard gap (256 pages) of
 * an accessible mapping below that is no stack, nor past RLIMIT_STACK (8 MiB
 * from the page touched to the stack's end); then the touch stops there
 * (SIGSEGV, -EFAULT). Where the expectation cannot tell (what lies below is
 * unknown, the stack's end is not known to be near enough, an allocation
 * may have failed, the touch's result leaves it open) the pages it may have
 * grown over are unknown.
 */
#include "expect_calls.h"
#include "expect_state.h"

#include <errno.h>

#define STACK_LIMIT 2048 /* pages: RLIMIT_STACK, 8 MiB, as conform sets it */

enum grow { GROW_NO, GROW_YES, GROW_MAYBE };

/* Unmapped page @x of @p lies below a mapping that may be a stack: its run
 * in *@ri. */
static bool below_stack(const struct as_expect *e, unsigned p, uint64_t x, size_t *ri)
{
	const struct mtref *m = &e->map[p];
	size_t i = exp_map_lower(m, x);
	const struct exp_rec *r;

	if (i == m->n || m->v[i].first <= x)
		return false; /* nothing above, or mapped */
	r = exp_rec(&e->st, m->v[i].entry);
	*ri = i;
	return (r->unknown & EU_MAP) || (r->flags & AS_VM_GROWSDOWN);
}

/* The page after the run of mapped page @at of @p, or @hi if sooner. */
static uint64_t run_end(const struct as_expect *e, unsigned p, uint64_t at, uint64_t hi)
{
	const struct mtref *m = &e->map[p];
	size_t i = exp_map_lower(m, at);

	return m->v[i].last >= hi - 1 ? hi : m->v[i].last + 1;
}

/* The next page of [at, hi) of @p that is unmapped (hi: none). */
static uint64_t next_hole(const struct as_expect *e, unsigned p, uint64_t at, uint64_t hi)
{
	const struct mtref *m = &e->map[p];

	while (at < hi) {
		size_t i = exp_map_lower(m, at);

		if (i == m->n || m->v[i].first > at)
			return at;
		if (m->v[i].last >= hi - 1)
			return hi;
		at = m->v[i].last + 1;
	}
	return hi;
}

/* The next page of [at, hi) of @p that may be unmapped: unmapped, or not
 * known to be mapped (hi: none). */
static uint64_t next_gap(const struct as_expect *e, unsigned p, uint64_t at, uint64_t hi)
{
	const struct mtref *m = &e->map[p];

	while (at < hi) {
		size_t i = exp_map_lower(m, at);

		if (i == m->n || m->v[i].first > at ||
		    (exp_rec(&e->st, m->v[i].entry)->unknown & EU_MAP))
			return at;
		if (m->v[i].last >= hi - 1)
			return hi;
		at = m->v[i].last + 1;
	}
	return hi;
}

/* The start of the highest mapping above page @from that may be a stack
 * (from: none). */
static uint64_t top_stack(const struct as_expect *e, unsigned p, uint64_t from)
{
	const struct mtref *m = &e->map[p];

	for (size_t i = m->n; i-- > 0 && m->v[i].first > from;) {
		const struct exp_rec *r = exp_rec(&e->st, m->v[i].entry);

		if ((r->unknown & EU_MAP) || (r->flags & AS_VM_GROWSDOWN))
			return m->v[i].first;
	}
	return from;
}

bool exp_touch_hole(const struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi)
{
	return next_gap(e, p, lo, hi) < hi;
}

uint64_t exp_touch_may_grow(const struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi)
{
	uint64_t hole = next_gap(e, p, lo, hi);

	/* a stack anywhere above may grow to it, once what lies between is
	 * gone: calls beside the touch may change that anywhere above */
	return hole < hi && top_stack(e, p, hole) > hole ? WHOLE_HI : lo;
}

/* The guard gap below a stack that would grow down to page @x (its run @i):
 * the mapping below, if within the gap, must be a stack or inaccessible. */
static enum grow guard_gap(const struct as_expect *e, unsigned p, uint64_t x, size_t i)
{
	const struct mtref *m = &e->map[p];
	const struct exp_rec *below;

	if (i == 0 || x - (m->v[i - 1].last + 1) >= EXP_GUARD_GAP)
		return GROW_YES;
	below = exp_rec(&e->st, m->v[i - 1].entry);
	if (below->unknown & EU_MAP)
		return GROW_MAYBE;
	if (below->flags & AS_VM_GROWSDOWN)
		return GROW_YES;
	if (below->unknown & EU_ATTR)
		return GROW_MAYBE;
	return below->flags & (AS_VM_READ | AS_VM_WRITE | AS_VM_EXEC) ? GROW_NO : GROW_YES;
}

/* Whether the stack above page @x (its run @i) grows down to it. Its end is
 * at least its run's end, at most where the stack pages above end. */
static enum grow grows(const struct as_expect *e, unsigned p, uint64_t x, size_t i, bool fired)
{
	const struct mtref *m = &e->map[p];
	const struct exp_rec *r = exp_rec(&e->st, m->v[i].entry);
	uint64_t end = m->v[i].last + 1;
	enum grow g;

	if (r->unknown & EU_MAP)
		return GROW_MAYBE;
	if (end - x > STACK_LIMIT)
		return GROW_NO;
	g = guard_gap(e, p, x, i);
	if (g != GROW_YES)
		return g;
	for (size_t j = i + 1; j < m->n && m->v[j].first == end; j++) {
		r = exp_rec(&e->st, m->v[j].entry);
		if (!(r->unknown & EU_MAP) && !(r->flags & AS_VM_GROWSDOWN))
			break;
		if ((r->unknown & EU_MAP) || m->v[j].last + 1 - x > STACK_LIMIT)
			return GROW_MAYBE; /* the stack may end past the limit */
		end = m->v[j].last + 1;
	}
	return fired ? GROW_MAYBE : GROW_YES; /* an allocation may have failed */
}

/* The stack at run @i grows down to page @x: zeros, as the stack is. */
static void grow(struct as_expect *e, unsigned p, uint64_t x, size_t i)
{
	const struct mtref *m = &e->map[p];
	struct exp_rec r = *exp_rec(&e->st, m->v[i].entry);

	r.data = ED_ZERO;
	r.unknown &= (uint8_t)~EU_DATA;
	exp_set(e, p, x, m->v[i].first - 1, exp_rec_new(&e->st, &r));
}

/* A touch beside others, or whose result says not where it stopped: from its
 * first hole on, every unmapped page below the highest mapping that may be
 * a stack may have been grown over (what lay between may have come and gone
 * meanwhile). */
static void maybe_all(struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi)
{
	const struct mtref *m = &e->map[p];
	uint64_t gap = next_gap(e, p, lo, hi), top;

	if (gap >= hi)
		return;
	top = top_stack(e, p, gap);
	if (e->moved_beside) /* the stack it grew may have moved away since */
		top = WHOLE_HI;
	for (uint64_t at = next_hole(e, p, gap, top); at < top; at = next_hole(e, p, at, top)) {
		size_t i = exp_map_lower(m, at);
		uint64_t end = i < m->n && m->v[i].first < top ? m->v[i].first : top;

		exp_unknown(e, p, at, end, EU_MAP);
		at = end;
	}
}

void exp_touch_beside(struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi)
{
	maybe_all(e, p, lo, hi);
}

/* Whether a touch goes through a page of record @r: 1 yes, 0 no, -1 not
 * known. */
static int passes(const struct exp_rec *r, bool write)
{
	if (r->unknown & (EU_MAP | EU_ATTR))
		return -1;
	return write ? (r->flags & AS_VM_WRITE) != 0
		     : (r->flags & (AS_VM_READ | AS_VM_WRITE | AS_VM_EXEC)) != 0;
}

void exp_touch_stacks(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		      bool fired)
{
	unsigned p = proc_of(c);
	bool write = c->a.access == 1, reached = c->result == 0;
	uint64_t at = x->lo;

	if (x->conflicted || (c->result && c->result != -EFAULT)) {
		/* where it stopped is not known */
		e->moved_beside = x->conflicted && x->beside_maps;
		maybe_all(e, p, x->lo, x->hi);
		e->moved_beside = false;
		return;
	}
	if (exp_touch_may_grow(e, p, x->lo, x->hi) == x->lo)
		return; /* no stack to grow */
	/* page by page as the touch went: where it stopped (-EFAULT), or
	 * through every page (0: every stack it met grew) */
	while (at < x->hi) {
		const struct exp_rec *r = exp_rec_at(e, p, at);
		size_t i;
		enum grow g;

		if (r) {
			/* a page that may be a hole: a stack anywhere above may
			 * have grown down over it, and over all between */
			int through = r->unknown & EU_MAP ? -1 : reached ? 1 : passes(r, write);

			if (through < 0)
				maybe_all(e, p, at, x->hi);
			if (through <= 0)
				return;
			at = run_end(e, p, at, x->hi); /* on to the next run */
			continue;
		}
		if (!below_stack(e, p, at, &i))
			return; /* SIGSEGV: the touch stopped here */
		g = grows(e, p, at, i, fired);
		/* it reached every page: the stack grew, unless what lies above
		 * is not known (the stack it grew may be further up) */
		if (g == GROW_MAYBE && reached &&
		    !(exp_rec(&e->st, e->map[p].v[i].entry)->unknown & EU_MAP))
			g = GROW_YES;
		if (g == GROW_MAYBE)
			maybe_all(e, p, at, x->hi);
		if (g != GROW_YES)
			return;
		grow(e, p, at, i);
	}
}
