/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference map's answers for the calls of a kernel caller's API that
 * the tree seam has besides store, load and walks (mtref.h): insert's
 * test, the gap search with its errors, the cyclic allocator, and the
 * bounded searches find, find_prev, next and prev. Written from the
 * contracts in tree_backend.h, the obvious way, over the sorted array.
 */
#include "mtref.h"

#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>

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
