/* SPDX-License-Identifier: GPL-2.0 */
/* The RCU reader's oracle (mtref_rcu.h). */
#include "mtref_rcu.h"

#include "runtime/check.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void mtref_log_add(struct mtref_log *l, uint64_t first, uint64_t last, void *entry)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		MODEL_ASSERT(l->v != NULL);
	}
	l->v[l->n++] = (struct mtref_range){first, last, entry};
}

void mtref_log_free(struct mtref_log *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void mtref_reader_begin(struct mtref_reader *rd, const struct mtref *now,
			const struct mtref_log *log, unsigned tree)
{
	memset(rd, 0, sizeof(*rd));
	rd->log = log;
	rd->tree = tree;
	mtref_copy(&rd->start, now);
	rd->log_from = log->n;
}

/* Did index x hold e at some moment of the walk so far? */
static bool may_see(const struct mtref_reader *rd, uint64_t x, void *e)
{
	if (mtref_load(&rd->start, x) == e)
		return true;
	for (size_t i = rd->log_from; i < rd->log->n; i++) {
		const struct mtref_range *w = &rd->log->v[i];

		if (w->first <= x && x <= w->last && w->entry == e)
			return true;
	}
	return false;
}

bool mtref_reader_saw(struct mtref_reader *rd, const struct tree_range *r, void *e)
{
	uint64_t x = may_see(rd, r->first, e) ? r->last : r->first;

	if (!may_see(rd, x, e))
		return check_fail(CK_MT_RCU_TORN,
				  "an RCU reader of tree %u saw %#" PRIx64 " -> %p in [%#" PRIx64
				  ", %#" PRIx64 "], which that index never held during the walk",
				  rd->tree, x, e, r->first, r->last);
	/* After a writer replaced a leaf, the reader resumes in the new tree at
	 * the index after the last range it saw; the range holding that index
	 * may start earlier (a write widened it), so ranges ascend by their
	 * last index, and may overlap the one before. */
	if (rd->nseen && rd->seen[rd->nseen - 1].last >= r->last)
		return check_fail(CK_MT_RCU_TORN,
				  "an RCU reader of tree %u saw [%#" PRIx64 ", %#" PRIx64
				  "] after [..., %#" PRIx64 "]: not ascending",
				  rd->tree, r->first, r->last, rd->seen[rd->nseen - 1].last);
	mtref_range_push(&rd->seen, &rd->nseen, &rd->cap, r->first, r->last, e);
	return true;
}

bool mtref_reader_end(struct mtref_reader *rd, uint64_t first, uint64_t last)
{
	bool ok = true;
	size_t k = 0;

	for (size_t i = 0; i < rd->start.n && ok; i++) {
		const struct mtref_range *r = &rd->start.v[i];
		bool touched = false;

		if (r->last < first || r->first > last)
			continue;
		for (size_t w = rd->log_from; w < rd->log->n && !touched; w++)
			touched = rd->log->v[w].first <= r->last && r->first <= rd->log->v[w].last;
		if (touched)
			continue;
		while (k < rd->nseen && rd->seen[k].last < r->first)
			k++;
		if (k == rd->nseen || rd->seen[k].first != r->first ||
		    rd->seen[k].last != r->last || rd->seen[k].entry != r->entry)
			ok = check_fail(CK_MT_RCU_TORN,
					"an RCU reader of tree %u missed [%#" PRIx64 ", %#" PRIx64
					"] -> %p, which no write touched during the walk",
					rd->tree, r->first, r->last, r->entry);
	}
	mtref_free(&rd->start);
	free(rd->seen);
	rd->seen = NULL;
	rd->nseen = rd->cap = 0;
	return ok;
}
