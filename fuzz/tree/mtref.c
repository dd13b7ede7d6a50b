/* SPDX-License-Identifier: GPL-2.0 */
/* The reference map: sorted array, linear everything (mtref.h). */
#include "mtref.h"

#include "runtime/check.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void mtref_init(struct mtref *r)
{
	memset(r, 0, sizeof(*r));
}

void mtref_free(struct mtref *r)
{
	free(r->v);
	mtref_init(r);
}

void mtref_clear(struct mtref *r)
{
	r->n = 0;
}

void mtref_set(struct mtref *dst, const struct mtref *src)
{
	if (dst->cap < src->n) {
		dst->cap = src->n;
		dst->v = realloc(dst->v, dst->cap * sizeof(*dst->v));
		MODEL_ASSERT(dst->v != NULL);
	}
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = src->n;
}

/* First index i with v[i].last >= index (binary search: tests build big maps). */
static size_t lower(const struct mtref *r, uint64_t index)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].last < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void mtref_range_push(struct mtref_range **v, size_t *n, size_t *cap, uint64_t first, uint64_t last,
		      void *entry)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = realloc(*v, *cap * sizeof(**v));
		MODEL_ASSERT(*v != NULL);
	}
	(*v)[(*n)++] = (struct mtref_range){first, last, entry};
}

void mtref_store(struct mtref *r, uint64_t first, uint64_t last, void *entry)
{
	struct mtref_range repl[3];
	size_t lo = lower(r, first), hi = lo, k = 0;

	while (hi < r->n && r->v[hi].first <= last)
		hi++;
	/* [lo, hi) overlap [first, last]: keep their outside parts, add entry */
	if (lo < hi && r->v[lo].first < first)
		repl[k++] = (struct mtref_range){r->v[lo].first, first - 1, r->v[lo].entry};
	if (entry)
		repl[k++] = (struct mtref_range){first, last, entry};
	if (lo < hi && r->v[hi - 1].last > last)
		repl[k++] = (struct mtref_range){last + 1, r->v[hi - 1].last, r->v[hi - 1].entry};
	while (r->n - (hi - lo) + k > r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		MODEL_ASSERT(r->v != NULL);
	}
	if (!k && lo == hi)
		return;	  /* erased nothing */
	if (lo + k != hi) /* (a range replaced by one: nothing moves) */
		memmove(&r->v[lo + k], &r->v[hi], (r->n - hi) * sizeof(*r->v));
	memcpy(&r->v[lo], repl, k * sizeof(*repl));
	r->n = r->n - (hi - lo) + k;
}

void *mtref_load(const struct mtref *r, uint64_t index)
{
	size_t i = lower(r, index);

	return i < r->n && r->v[i].first <= index ? r->v[i].entry : NULL;
}

/* Try the empty range [a, b] clipped to [lo, hi]. */
static bool try_gap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
		    uint64_t *start)
{
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	if (a > b || b - a < size - 1)
		return false;
	*start = highest ? b - (size - 1) : a;
	return true;
}

bool mtref_gap(const struct mtref *r, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
	       uint64_t *start)
{
	bool found = false;
	uint64_t next = 0; /* first index not yet known to be mapped */
	bool more = true;

	if (!size || lo > hi)
		return false;
	/* visit every empty range in order; keep the first (or last) that fits */
	for (size_t i = 0; i <= r->n && more; i++) {
		uint64_t s;

		if (i < r->n) {
			if (r->v[i].first > next &&
			    try_gap(next, r->v[i].first - 1, lo, hi, size, highest, &s)) {
				*start = s;
				found = true;
				if (!highest)
					return true;
			}
			if (r->v[i].last == TREE_MAX)
				more = false;
			else
				next = r->v[i].last + 1;
		} else if (try_gap(next, TREE_MAX, lo, hi, size, highest, &s)) {
			*start = s;
			found = true;
		}
	}
	return found;
}

void mtref_copy(struct mtref *dst, const struct mtref *src)
{
	mtref_init(dst);
	mtref_set(dst, src);
}

struct match {
	const struct mtref *r;
	size_t i;
	bool ok;
};

static bool match_one(void *arg, const struct tree_range *got, void *e)
{
	struct match *m = arg;
	const struct mtref_range *x = m->i < m->r->n ? &m->r->v[m->i] : NULL;

	if (!x)
		m->ok = check_fail(CK_MT_REF_MISMATCH,
				   "tree holds [%#" PRIx64 ", %#" PRIx64 "] -> %p, map ends",
				   got->first, got->last, e);
	else if (x->first != got->first || x->last != got->last || x->entry != e)
		m->ok = check_fail(CK_MT_REF_MISMATCH,
				   "tree holds [%#" PRIx64 ", %#" PRIx64 "] -> %p, map "
				   "[%#" PRIx64 ", %#" PRIx64 "] -> %p",
				   got->first, got->last, e, x->first, x->last, x->entry);
	m->i++;
	return m->ok;
}

bool mtref_matches(const struct mtref *r, const struct tree_backend *b, void *t)
{
	struct match m = {r, 0, true};

	b->walk(t, 0, TREE_MAX, match_one, &m);
	if (!m.ok)
		return false;
	if (m.i != r->n)
		return check_fail(CK_MT_REF_MISMATCH,
				  "tree ends, map holds [%#" PRIx64 ", %#" PRIx64 "] -> %p",
				  r->v[m.i].first, r->v[m.i].last, r->v[m.i].entry);
	return true;
}

bool mtref_check_gap(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t lo,
		     uint64_t hi, uint64_t size, bool highest)
{
	uint64_t want = 0, got = 0;
	bool found = mtref_gap(r, lo, hi, size, highest, &want);
	int err = b->gap(t, lo, hi, size, highest, &got);

	if (found ? err == 0 && got == want : err != 0)
		return true;
	return check_fail(CK_MT_GAP_SEARCH,
			  "%s gap of %#" PRIx64 " in [%#" PRIx64 ", %#" PRIx64
			  "]: tree says %s%#" PRIx64 ", brute force %s%#" PRIx64,
			  highest ? "highest" : "lowest", size, lo, hi, err ? "none " : "", got,
			  found ? "" : "none ", want);
}

/* The map's first entry meeting [from, ..] and last meeting [.., from]. */
static const struct mtref_range *ref_next(const struct mtref *r, uint64_t from)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].last >= from)
			return &r->v[i];
	return NULL;
}

static const struct mtref_range *ref_prev(const struct mtref *r, uint64_t from)
{
	for (size_t i = r->n; i-- > 0;)
		if (r->v[i].first <= from)
			return &r->v[i];
	return NULL;
}

static bool same(const struct mtref_range *x, const void *e, const struct tree_range *got)
{
	if (!x)
		return e == NULL;
	return e == x->entry && got->first == x->first && got->last == x->last;
}

bool mtref_check_find(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t index)
{
	const struct mtref_range *n = ref_next(r, index), *p = ref_prev(r, index);
	struct tree_range gn = {0, 0}, gp = {0, 0};
	void *en = b->find(t, index, TREE_MAX, &gn);
	void *ep = b->find_prev(t, index, 0, &gp);

	if (!same(n, en, &gn))
		return check_fail(CK_MT_WALK,
				  "find from %#" PRIx64 ": tree [%#" PRIx64 ", %#" PRIx64
				  "] -> %p, map %p",
				  index, gn.first, gn.last, en, n ? n->entry : NULL);
	if (!same(p, ep, &gp))
		return check_fail(CK_MT_WALK,
				  "find_prev from %#" PRIx64 ": tree [%#" PRIx64 ", %#" PRIx64
				  "] -> %p, map %p",
				  index, gp.first, gp.last, ep, p ? p->entry : NULL);
	return true;
}

void *mtref_range_of(const struct mtref *r, uint64_t index, struct tree_range *out)
{
	size_t i = lower(r, index);

	if (i < r->n && r->v[i].first <= index) {
		out->first = r->v[i].first;
		out->last = r->v[i].last;
		return r->v[i].entry;
	}
	/* empty: between entry i-1 and entry i */
	out->first = i ? r->v[i - 1].last + 1 : 0;
	out->last = i < r->n ? r->v[i].first - 1 : TREE_MAX;
	return NULL;
}

size_t mtref_gaps(const struct mtref *r)
{
	size_t n = 0;

	for (size_t i = 0; i <= r->n; i++) {
		uint64_t lo = i ? r->v[i - 1].last + 1 : 0;

		if (i && r->v[i - 1].last == TREE_MAX)
			break;
		if (i == r->n || r->v[i].first > lo)
			n++;
	}
	return n;
}

void mtref_gap_at(const struct mtref *r, size_t k, struct tree_range *out)
{
	for (size_t i = 0; i <= r->n; i++) {
		uint64_t lo = i ? r->v[i - 1].last + 1 : 0;

		if (i && r->v[i - 1].last == TREE_MAX)
			break;
		if (i == r->n || r->v[i].first > lo) {
			if (k-- == 0) {
				out->first = lo;
				out->last = i < r->n ? r->v[i].first - 1 : TREE_MAX;
				return;
			}
		}
	}
	MODEL_ASSERT(!"gap index beyond mtref_gaps()");
}

bool mtref_check_load(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t index)
{
	struct tree_range want, got;
	void *ew = mtref_range_of(r, index, &want);
	void *eg = b->load(t, index, &got);

	if (ew == eg && want.first == got.first && want.last == got.last)
		return true;
	return check_fail(CK_MT_REF_MISMATCH,
			  "load %#" PRIx64 ": tree [%#" PRIx64 ", %#" PRIx64
			  "] -> %p, map [%#" PRIx64 ", %#" PRIx64 "] -> %p",
			  index, got.first, got.last, eg, want.first, want.last, ew);
}

struct walk {
	const struct mtref *r;
	size_t i;
	uint64_t from;
	bool ok;
};

static bool walk_one(void *arg, const struct tree_range *got, void *e)
{
	struct walk *w = arg;
	const struct mtref *r = w->r;

	if (w->i >= r->n || r->v[w->i].entry != e || r->v[w->i].first != got->first ||
	    r->v[w->i].last != got->last) {
		w->ok = check_fail(CK_MT_WALK,
				   "walk from %#" PRIx64 ": cursor gives [%#" PRIx64 ", %#" PRIx64
				   "] -> %p, map %p",
				   w->from, got->first, got->last, e,
				   w->i < r->n ? r->v[w->i].entry : NULL);
		return false;
	}
	w->i++;
	return true;
}

bool mtref_check_walk(const struct mtref *r, const struct tree_backend *b, void *t, uint64_t from,
		      uint64_t to)
{
	struct walk w = {r, lower(r, from), from, true};

	b->walk(t, from, to, walk_one, &w);
	if (!w.ok)
		return false;
	if (w.i < r->n && r->v[w.i].first <= to)
		return check_fail(CK_MT_WALK,
				  "walk from %#" PRIx64 ": cursor ends, map holds [%#" PRIx64
				  ", %#" PRIx64 "]",
				  from, r->v[w.i].first, r->v[w.i].last);
	return true;
}
