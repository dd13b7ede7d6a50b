/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free-range search over the gap metadata: a child whose largest gap is
 * smaller than the request is skipped without being visited. Only the (at
 * most two) children per level that straddle the window's ends can be
 * visited without success, so a search costs O(height * slots).
 */
#include "tree/mtree.h"
#include "tree/mtree_internal.h"

#include <errno.h>

struct gap_query {
	uint64_t lo, hi, size;
	bool highest;
	uint64_t start;
};

/* Empty range [a, b] of a leaf, clipped to the window: does it hold the request? */
static bool gap_fits(struct gap_query *q, uint64_t a, uint64_t b)
{
	if (a < q->lo)
		a = q->lo;
	if (b > q->hi)
		b = q->hi;
	if (a > b || b - a < q->size - 1)
		return false;
	q->start = q->highest ? b - (q->size - 1) : a;
	return true;
}

static bool gap_search(struct gap_query *q, const struct mt_node *n, uint64_t min, uint64_t max)
{
	for (unsigned k = 0; k <= n->end; k++) {
		unsigned i = q->highest ? n->end - k : k;
		uint64_t smin = mt_slot_min(n, i, min), smax = mt_slot_max(n, i, max);

		if (smax < q->lo || smin > q->hi)
			continue;
		if (n->leaf) {
			if (!n->slot[i] && gap_fits(q, smin, smax))
				return true;
		} else if (n->gap[i] >= q->size && gap_search(q, n->slot[i], smin, smax)) {
			return true;
		}
	}
	return false;
}

static int gap_find(const struct mtree *mt, struct gap_query *q, uint64_t *start)
{
	if (!q->size || q->lo > q->hi)
		return -EINVAL;
	if (!mt->root) {
		if (!gap_fits(q, q->lo, q->hi))
			return -EBUSY;
	} else if (!gap_search(q, mt->root, 0, MT_MAX)) {
		return -EBUSY;
	}
	*start = q->start;
	return 0;
}

int mt_gap_lowest(const struct mtree *mt, uint64_t lo, uint64_t hi, uint64_t size, uint64_t *start)
{
	struct gap_query q = {.lo = lo, .hi = hi, .size = size, .highest = false};

	return gap_find(mt, &q, start);
}

int mt_gap_highest(const struct mtree *mt, uint64_t lo, uint64_t hi, uint64_t size, uint64_t *start)
{
	struct gap_query q = {.lo = lo, .hi = hi, .size = size, .highest = true};

	return gap_find(mt, &q, start);
}
