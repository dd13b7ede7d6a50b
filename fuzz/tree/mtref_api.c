/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference map's answers for the calls of a kernel caller's API that
 * the tree seam has besides store, load and walks (mtref.h): insert's
 * test, the gap search with its errors, the cyclic allocator, the
 * bounded searches find, find_prev, next and prev, and walk_by's walks. Written from the
 * contracts in tree_backend.h, the obvious way, over the sorted array.
 */
#include "mtref.h"

#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

bool mtref_any(const struct mtref *r, uint64_t first, uint64_t last)
{
	for (size_t i = 0; i < r->n && r->v[i].first <= last; i++)
		if (r->v[i].last >= first)
			return true;
	return false;
}

int mtref_gap_err(const struct mtref *r, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
		  uint64_t *start)
{
	if (!size || lo > hi)
		return -EINVAL;
	return mtref_gap(r, lo, hi, size, highest, start) ? 0 : -EBUSY;
}

/*
 * From *next on, else from lo again (wrapped: 1); a success moves *next
 * past the index, and when that wraps to 0 the next success that did not
 * wrap says 1 instead of 0 (the tree's MT_FLAGS_ALLOC_WRAPPED).
 */
int mtref_alloc_cyclic(const struct mtref *r, uint64_t lo, uint64_t hi, uint64_t *next,
		       bool *wrapped, uint64_t *start)
{
	uint64_t from = *next > lo ? *next : lo;
	int ret = mtref_gap_err(r, from, hi, 1, false, start);

	if (ret < 0 && from > lo) {
		ret = mtref_gap_err(r, lo, hi, 1, false, start);
		if (!ret)
			ret = 1;
	}
	if (ret < 0)
		return ret;
	if (*wrapped && !ret) {
		*wrapped = false;
		ret = 1;
	}
	*next = *start + 1;
	if (!*next)
		*wrapped = true;
	return ret;
}

const struct mtref_range *mtref_bounded(const struct mtref *r, enum mtref_find how, uint64_t index,
					uint64_t bound)
{
	struct tree_range at;

	switch (how) {
	case MTREF_FIND: /* the first entry meeting [index, bound] */
		for (size_t i = 0; index <= bound && i < r->n && r->v[i].first <= bound; i++)
			if (r->v[i].last >= index)
				return &r->v[i];
		return NULL;
	case MTREF_FIND_PREV: /* the last meeting [bound, index] */
		for (size_t i = r->n; index >= bound && i-- > 0 && r->v[i].last >= bound;)
			if (r->v[i].first <= index)
				return &r->v[i];
		return NULL;
	case MTREF_NEXT: /* after the range holding index, starting by bound */
		if (index >= bound)
			return NULL;
		mtref_range_of(r, index, &at);
		for (size_t i = 0; i < r->n && r->v[i].first <= bound; i++)
			if (r->v[i].first > at.last)
				return &r->v[i];
		return NULL;
	default: /* before the range holding index, ending from bound */
		if (index <= bound)
			return NULL;
		mtref_range_of(r, index, &at);
		for (size_t i = r->n; i-- > 0 && r->v[i].last >= bound;)
			if (r->v[i].last < at.first)
				return &r->v[i];
		return NULL;
	}
}

bool mtref_check_bounded(const struct mtref *r, const struct tree_backend *b, void *t,
			 enum mtref_find how, uint64_t index, uint64_t bound)
{
	static const char *const names[MTREF_FIND_NR] = {"find", "find_prev", "next", "prev"};
	const struct mtref_range *x = mtref_bounded(r, how, index, bound);
	struct tree_range got = {0, 0};
	void *e;

	switch (how) {
	case MTREF_FIND:
		e = b->find(t, index, bound, &got);
		break;
	case MTREF_FIND_PREV:
		e = b->find_prev(t, index, bound, &got);
		break;
	case MTREF_NEXT:
		e = b->next(t, index, bound, &got);
		break;
	default:
		e = b->prev(t, index, bound, &got);
		break;
	}
	if (x ? e == x->entry && got.first == x->first && got.last == x->last : !e)
		return true;
	return check_fail(CK_MT_WALK,
			  "%s from %#" PRIx64 " to %#" PRIx64 ": tree [%#" PRIx64 ", %#" PRIx64
			  "] -> %p, map [%#" PRIx64 ", %#" PRIx64 "] -> %p",
			  names[how], index, bound, got.first, got.last, e, x ? x->first : 0,
			  x ? x->last : 0, x ? x->entry : NULL);
}

/* walk_by's visits, kept to be judged whole; a walk that would not end is
 * cut at `max`. */
struct walk_by_seen {
	struct mtref_range *v;
	size_t n, cap, max;
	bool cut;
};

static bool walk_by_add(void *arg, const struct tree_range *r, void *e)
{
	struct walk_by_seen *s = arg;

	if (s->n == s->max) {
		s->cut = true;
		return false;
	}
	mtref_range_push(&s->v, &s->n, &s->cap, r->first, r->last, e);
	return true;
}

/* The k-th visit an entry walk must make (TREE_WALK_PAUSED, _PAUSED_REV,
 * _FIND), or false after the last: *at is the next map entry to look at,
 * *from where the next mt_find starts. */
static bool entry_walk_next(const struct mtref *r, enum tree_walk_way how, const void *zero,
			    uint64_t to, size_t *at, uint64_t *from, struct mtref_range *want)
{
	bool rev = how == TREE_WALK_PAUSED_REV;

	while (rev ? *at > 0 : *at < r->n) {
		const struct mtref_range *x = &r->v[rev ? --*at : (*at)++];

		if (rev ? x->last < *from : x->first > to)
			return false;
		if (rev ? x->first > to : x->last < *from)
			continue;
		if (how == TREE_WALK_FIND && x->entry == zero)
			continue; /* mt_find passes over the zero entry */
		*want = *x;
		if (how == TREE_WALK_FIND) {
			want->first = *from; /* from where the search started */
			if (x->last == TREE_MAX)
				*at = r->n; /* the index wrapped to 0: mt_find_after stops */
			else
				*from = x->last + 1;
		}
		return true;
	}
	return false;
}

static const char *const walk_way_names[TREE_WALK_NR] = {"paused", "paused_rev", "mt_find",
							 "ranges", "ranges_rev"};

static bool walk_by_fail(enum tree_walk_way how, uint64_t from, uint64_t to, size_t k,
			 const struct mtref_range *got, const char *why)
{
	return check_fail(CK_MT_WALK,
			  "%s walk of [%#" PRIx64 ", %#" PRIx64 "]: visit %zu [%#" PRIx64
			  ", %#" PRIx64 "] -> %p: %s",
			  walk_way_names[how], from, to, k, got ? got->first : 0,
			  got ? got->last : 0, got ? got->entry : NULL, why);
}

static bool entry_walk_judge(const struct mtref *r, enum tree_walk_way how, const void *zero,
			     uint64_t from, uint64_t to, const struct walk_by_seen *s)
{
	size_t at = how == TREE_WALK_PAUSED_REV ? r->n : 0, k;
	uint64_t next = from;
	struct mtref_range want;
	char why[160];

	for (k = 0; k < s->n; k++) {
		const struct mtref_range *got = &s->v[k];

		if (!entry_walk_next(r, how, zero, to, &at, &next, &want))
			return walk_by_fail(how, from, to, k, got, "the map has no more entries");
		if (got->first != want.first || got->last != want.last ||
		    got->entry != want.entry) {
			snprintf(why, sizeof(why),
				 "the map's is [%#" PRIx64 ", %#" PRIx64 "] -> %p", want.first,
				 want.last, want.entry);
			return walk_by_fail(how, from, to, k, got, why);
		}
	}
	if (entry_walk_next(r, how, zero, to, &at, &next, &want)) {
		snprintf(why, sizeof(why),
			 "the walk ends there, the map holds [%#" PRIx64 ", %#" PRIx64 "] -> %p",
			 want.first, want.last, want.entry);
		return walk_by_fail(how, from, to, k, k ? &s->v[k - 1] : NULL, why);
	}
	return true;
}

/* A range walk's visit is a range of the map with its entry, or a piece of
 * an empty run. */
static bool range_piece_ok(const struct mtref *r, const struct mtref_range *p)
{
	struct tree_range at;

	if (p->first > p->last)
		return false;
	if (!p->entry)
		return !mtref_any(r, p->first, p->last);
	return mtref_range_of(r, p->first, &at) == p->entry && at.first == p->first &&
	       at.last == p->last;
}

/*
 * TREE_WALK_RANGES (@rev: _RANGES_REV), from @from up to @to (or down):
 * the first visit is the entry holding the start, or lies past it with
 * only empty indices between; each next one starts right after the last
 * (before, in reverse); every visit meets the window and the last is the
 * first to reach its far end; after the last, no entry is left in the
 * window. So every entry of the window is visited once, and an empty run
 * may come in pieces.
 */
static bool range_walk_judge(const struct mtref *r, bool rev, uint64_t from, uint64_t to,
			     const struct walk_by_seen *s)
{
	enum tree_walk_way how = rev ? TREE_WALK_RANGES_REV : TREE_WALK_RANGES;
	uint64_t start = rev ? to : from;
	size_t k;

	for (k = 0; k < s->n; k++) {
		const struct mtref_range *p = &s->v[k], *q = k ? &s->v[k - 1] : NULL;
		uint64_t near = rev ? p->last : p->first, far = rev ? p->first : p->last;

		if (!range_piece_ok(r, p))
			return walk_by_fail(how, from, to, k, p,
					    "neither a range of the map nor inside an empty run");
		if (q && (rev ? q->first == 0 || p->last != q->first - 1
			      : q->last == TREE_MAX || p->first != q->last + 1))
			return walk_by_fail(how, from, to, k, p, "not next to the visit before");
		if (!q && p->first <= start && start <= p->last && !p->entry)
			return walk_by_fail(how, from, to, k, p,
					    "the empty range holding the start, which is skipped");
		if (!q && !(p->first <= start && start <= p->last) &&
		    ((rev ? near >= start : near <= start) ||
		     mtref_any(r, rev ? near + 1 : start, rev ? start : near - 1)))
			return walk_by_fail(how, from, to, k, p,
					    "not the first range after the start");
		if (rev ? near < from : near > to)
			return walk_by_fail(how, from, to, k, p, "outside the window");
		if ((rev ? far <= from : far >= to) && k + 1 < s->n)
			return walk_by_fail(how, from, to, k + 1, &s->v[k + 1],
					    "after the end of the window");
	}
	if (k && (rev ? s->v[k - 1].first <= from : s->v[k - 1].last >= to))
		return true;
	if (k ? mtref_any(r, rev ? from : s->v[k - 1].last + 1, rev ? s->v[k - 1].first - 1 : to)
	      : mtref_any(r, from, to))
		return walk_by_fail(how, from, to, k, k ? &s->v[k - 1] : NULL,
				    "the walk ends before an entry of the window");
	return true;
}

bool mtref_check_walk_by(const struct mtref *r, const struct tree_backend *b, void *t,
			 enum tree_walk_way how, uint64_t from, uint64_t to)
{
	/* the kernel's leaves may cut each empty run: a run per entry and a
	 * piece per leaf at most */
	struct walk_by_seen s = {NULL, 0, 0, 4 * r->n + 64, false};
	bool ok;

	b->walk_by(t, from, to, how, walk_by_add, &s);
	if (s.cut)
		ok = walk_by_fail(how, from, to, s.max, NULL, "the walk goes on past every range");
	else if (from > to)
		ok = !s.n || walk_by_fail(how, from, to, 0, &s.v[0], "a visit of an empty window");
	else if (how == TREE_WALK_RANGES || how == TREE_WALK_RANGES_REV)
		ok = range_walk_judge(r, how == TREE_WALK_RANGES_REV, from, to, &s);
	else
		ok = entry_walk_judge(r, how, b->zero, from, to, &s);
	free(s.v);
	return ok;
}
