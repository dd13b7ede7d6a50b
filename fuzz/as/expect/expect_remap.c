/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mremap leaves (expect_edit.h), from the call and its result:
 *
 *   - in place (the result is the old address, no MREMAP_FIXED or
 *     MREMAP_DONTUNMAP): a shrink unmaps the range's tail; a growth maps the
 *     pages after it as the mapping's next ones (its flags, registration and
 *     offsets; fresh data: zeros, or the file's);
 *   - a move (to the result): the old range's pages go there with what they
 *     hold and their file offsets, in the new length's first pages, the rest
 *     as in a growth; a private anonymous page's offset becomes unknown (an
 *     unfaulted VMA takes the new place's, a faulted one keeps its own); a
 *     userfaultfd registration stays only with a context that has the remap
 *     event. The old range is unmapped, or with MREMAP_DONTUNMAP stays mapped
 *     unlocked and empty (zeros, or the file's data);
 *   - a failure changes nothing, but: before KV_MREMAP_CHECKS_FIRST,
 *     MREMAP_FIXED unmaps the new range and the old range's tail before the
 *     checks that may still fail (since, only an -ENOMEM comes after them),
 *     and where a split may have failed (an injected allocation failure, a
 *     map_limit) what it unmapped, or a copy left behind, is unknown. A move
 *     that cannot unmap the old range (a failed split) keeps both and
 *     succeeds. A fixed move of the same size that moves many VMAs
 *     (KV_MREMAP_MOVES_MANY) moves each mapped run of the old range by the
 *     same distance, unmapping only where they go; when it fails, the VMAs
 *     before the failing one have moved: both ranges are unknown.
 */
#include "expect_calls.h"
#include "expect_state.h"
#include "mm/kver.h"
#include "runtime/check.h"

#include <errno.h>
#include <stdlib.h>

/* mremap's flags as the program names them (mm_ops.h: MREMAP_*) */
#define MAYMOVE 1
#define FIXED 2
#define DONTUNMAP 4

/* The call in pages. */
struct remap {
	unsigned p;
	uint64_t old, oldn, to, newn; /* [old, old + oldn) to [to, to + newn) */
	int flags;
	bool unsure; /* a split may have failed */
};

static uint64_t pages_of(uint64_t len)
{
	return (len + PAGE - 1) >> MMF_PAGE_SHIFT;
}

/* The checks that refuse the call before it changes anything (check_args,
 * no VMA at the address, mremap_to's overlap). */
static bool refused_early(const struct as_expect *e, const struct remap *r)
{
	const struct exp_rec *at = exp_rec_at(e, r->p, r->old);

	if ((r->flags & FIXED) && !(r->flags & MAYMOVE))
		return true;
	if ((r->flags & DONTUNMAP) && (!(r->flags & MAYMOVE) || r->oldn != r->newn))
		return true;
	if (!r->newn || !at)
		return true;
	return (r->flags & (FIXED | DONTUNMAP)) && r->old + r->oldn > r->to &&
	       r->to + r->newn > r->old;
}

/* Every unmapped page of @p: unknown (a copy may be left somewhere). */
static void unknown_holes(struct as_expect *e, unsigned p)
{
	const struct mtref *m = &e->map[p];
	uint64_t at = WHOLE_LO;

	for (;;) {
		size_t i = exp_map_lower(m, at);

		if (i < m->n && m->v[i].first <= at) { /* mapped: past its run */
			if (m->v[i].last >= WHOLE_HI - 1)
				return;
			at = m->v[i].last + 1;
			continue;
		}
		exp_unknown(e, p, at, i < m->n ? m->v[i].first : WHOLE_HI, EU_MAP);
		if (i == m->n)
			return;
	}
}

/* Pages [lo, hi) of the call's process unmapped, or unknown when unsure. */
static void unmap(struct as_expect *e, const struct remap *r, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return;
	if (r->unsure)
		exp_unknown(e, r->p, lo, hi, EU_MAP);
	else
		exp_set(e, r->p, lo, hi - 1, NULL);
}

/* A fixed move of the same size, which moves every VMA of its range
 * (KV_MREMAP_MOVES_MANY). */
static bool moves_many(const struct as_expect *e, const struct remap *r)
{
	return (r->flags & FIXED) && r->oldn == r->newn && kver_has(e->kver, KV_MREMAP_MOVES_MANY);
}

static void failed(struct as_expect *e, const struct remap *call, int64_t result)
{
	const struct exp_rec *at = exp_rec_at(e, call->p, call->old);
	struct remap q = *call, *r = &q;

	if (refused_early(e, r))
		return;
	if (kver_has(e->kver, KV_MREMAP_CHECKS_FIRST)) {
		if (moves_many(e, r)) {
			/* the VMAs before the one that failed have moved */
			exp_unknown(e, r->p, r->old, r->old + r->oldn, EU_MAP);
			exp_unknown(e, r->p, r->to, r->to + r->newn, EU_MAP);
			return;
		}
		if (result != -ENOMEM)
			return; /* the source is checked before anything is unmapped */
	}
	if (at->unknown & EU_MAP)
		q.unsure = true; /* refused at once (no VMA there), or not? */
	if (r->flags & FIXED) {
		/* unmapped before what failed: the new range, the old tail */
		unmap(e, r, r->to, r->to + r->newn);
		if (r->oldn > r->newn)
			unmap(e, r, r->old + r->newn, r->old + r->oldn);
	} else if (r->unsure && r->oldn > r->newn) {
		exp_unknown(e, r->p, r->old + r->newn, r->old + r->oldn, EU_MAP);
	} else if (r->unsure && (r->flags & MAYMOVE)) {
		unknown_holes(e, r->p); /* a copy it could not unmap again */
	}
}

/* A record of the range moved by @d pages (@cont: a page the mapping grew
 * by, after the moved ones). */
static struct exp_rec moved(const struct as_expect *e, const struct exp_rec *src, int64_t d,
			    bool cont)
{
	struct exp_rec r = *src;

	if (r.unknown & EU_MAP)
		return r;
	r.pgdelta -= d;
	if (r.data == ED_VALUE)
		r.origin += d;
	if (cont) {
		r.data = r.obj ? ED_OBJECT : ED_ZERO;
		r.unknown &= (uint8_t)~EU_DATA;
	}
	if (d && !r.obj)
		r.unknown |= EU_PGOFF;
	if (d && r.ctx && !(r.unknown & EU_UFFD) && !e->st.ctx[r.ctx - 1].event_remap) {
		r.ctx = 0; /* no remap event: the moved pages leave the context */
		r.flags &= ~EXP_UFFD_FLAGS;
	}
	return r;
}

/* MREMAP_DONTUNMAP's old range: mapped, unlocked, its pages gone. */
static bool emptied(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
		    void *arg)
{
	(void)e;
	(void)first;
	(void)last;
	(void)arg;
	r->flags &= ~EXP_LOCK_FLAGS;
	r->data = r->obj ? ED_OBJECT : ED_ZERO;
	r->unknown &= (uint8_t)~EU_DATA;
	/* an anonymous VMA taken whole gets its own offsets again */
	if (!r->obj && r->pgdelta)
		r->unknown |= EU_PGOFF;
	return true;
}

/* The runs of [old, old + n): copies, as the map changes under them. */
struct runs {
	struct mtref_range *v;
	size_t n;
};

static void take_runs(const struct as_expect *e, unsigned p, uint64_t old, uint64_t n,
		      struct runs *out)
{
	const struct mtref *m = &e->map[p];
	size_t i = exp_map_lower(m, old), k = 0;

	out->n = 0;
	out->v = malloc((m->n - i + 1) * sizeof(*out->v));
	MODEL_ASSERT(out->v != NULL);
	for (; n && i < m->n && m->v[i].first < old + n; i++, k++) {
		out->v[k] = m->v[i];
		if (out->v[k].first < old)
			out->v[k].first = old;
		if (out->v[k].last > old + n - 1)
			out->v[k].last = old + n - 1;
	}
	out->n = k;
}

/* The pages the mapping grows by, [at, top): after page @src's run. */
static void grown(struct as_expect *e, unsigned p, const struct exp_rec *src, int64_t d,
		  uint64_t at, uint64_t top)
{
	struct exp_rec r;

	if (at >= top)
		return;
	if (!src) {
		exp_unknown(e, p, at, top, EU_MAP);
		return;
	}
	r = moved(e, src, d, true);
	exp_set(e, p, at, top - 1, exp_rec_new(&e->st, &r));
	exp_private_copies(e, p, at, top, true); /* a locked mapping's growth is populated */
}

/* A neighbour the copy may merge with: registered with @ctx, or with any
 * context when @ctx is 0 (the copy's own not known), or not known itself. */
static bool same_ctx(const struct exp_rec *x, uint32_t ctx)
{
	return (x->unknown & EU_UFFD) || (ctx ? x->ctx == ctx : x->ctx != 0);
}

/* Before KV_UFFD_COPY_APART the copy of pages whose context lacks the remap
 * event may merge with a neighbour registered with that context, which then
 * loses the registration too: the registration of the runs of @ctx's pages
 * next to [lo, hi) is unknown, across the old range @r's (still mapped when
 * the copy merged: a part moved within its own VMA takes all of it). */
static void neighbours_may_lose(struct as_expect *e, const struct remap *r, uint64_t lo,
				uint64_t hi, uint32_t ctx)
{
	const struct mtref *m = &e->map[r->p];
	uint64_t a = lo, b = hi, olo = r->old, ohi = r->old + r->oldn;

	for (;;) { /* down, run by run */
		size_t i = a > WHOLE_LO ? exp_map_lower(m, a - 1) : m->n;

		if (a > olo && a <= ohi) {
			a = olo;
			continue;
		}
		if (i == m->n || m->v[i].first > a - 1 || m->v[i].last != a - 1 ||
		    !same_ctx(exp_rec(&e->st, m->v[i].entry), ctx))
			break;
		a = m->v[i].first;
	}
	for (;;) { /* up */
		size_t i = b < WHOLE_HI ? exp_map_lower(m, b) : m->n;

		if (b >= olo && b < ohi) {
			b = ohi;
			continue;
		}
		if (i == m->n || m->v[i].first != b ||
		    !same_ctx(exp_rec(&e->st, m->v[i].entry), ctx))
			break;
		b = m->v[i].last + 1;
	}
	if (a < lo)
		exp_unknown(e, r->p, a, lo, EU_UFFD);
	if (b > hi)
		exp_unknown(e, r->p, hi, b, EU_UFFD);
}

static void moved_to(struct as_expect *e, const struct remap *r, uint64_t to)
{
	uint64_t n = r->oldn < r->newn ? r->oldn : r->newn;
	int64_t d = (int64_t)(to - r->old);
	const struct exp_rec *last = exp_rec_at(e, r->p, r->old + (n ? n - 1 : 0));
	struct exp_rec tail = last ? *last : (struct exp_rec){0};
	struct runs runs;
	bool may_merge = false; /* a run's copy may take a neighbour's registration */
	uint32_t may_ctx = 0;	/* whose: one context, or 0 for any */

	take_runs(e, r->p, r->old, n, &runs);
	if (r->flags & DONTUNMAP)
		exp_edit(e, r->p, r->old, r->old + r->oldn - 1, emptied, NULL);
	else
		unmap(e, r, r->old, r->old + r->oldn); /* kept when a split fails */
	/* free, or MREMAP_FIXED unmapped it; a move of many VMAs unmaps only
	 * where each goes, the holes between them kept */
	if (!moves_many(e, r))
		exp_set(e, r->p, to, to + r->newn - 1, NULL);
	for (size_t k = 0; k < runs.n; k++) {
		/* (copied: a new record may move the store the source is in) */
		struct exp_rec src = *exp_rec(&e->st, runs.v[k].entry);
		struct exp_rec m = moved(e, &src, d, false);

		exp_set(e, r->p, runs.v[k].first + (uint64_t)d, runs.v[k].last + (uint64_t)d,
			exp_rec_new(&e->st, &m));
		/* (a context, or a registration not known, that may lack the
		 * remap event) */
		if (!kver_has(e->kver, KV_UFFD_COPY_APART) &&
		    ((src.ctx && !m.ctx) || (src.unknown & EU_UFFD))) {
			uint32_t c = src.unknown & EU_UFFD ? 0 : src.ctx;

			neighbours_may_lose(e, r, runs.v[k].first + (uint64_t)d,
					    runs.v[k].last + (uint64_t)d + 1, c);
			may_ctx = may_merge && may_ctx != c ? 0 : c;
			may_merge = true;
		}
	}
	free(runs.v);
	grown(e, r->p, last ? &tail : NULL, d, to + n, to + r->newn);
	/* the copy is one VMA with what it grew by: its neighbours too */
	if (may_merge)
		neighbours_may_lose(e, r, to, to + r->newn, may_ctx);
}

void exp_mremap_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		    bool fired)
{
	struct remap r = {
	    .p = proc_of(c),
	    .old = PG(c->start),
	    .oldn = pages_of(c->len),
	    .to = PG(c->to),
	    .newn = pages_of(c->to_len),
	    .flags = c->a.remap_flags & 7,
	    .unsure = fired || e->limited[proc_of(c)],
	};
	uint64_t at = (uint64_t)c->result >> MMF_PAGE_SHIFT;

	if (x->conflicted) {
		exp_unknown(e, r.p, r.old, r.old + r.oldn, EU_MAP);
		if (r.flags & FIXED)
			exp_unknown(e, r.p, r.to, r.to + r.newn, EU_MAP);
		if (c->result >= 0)
			exp_unknown(e, r.p, at, at + r.newn, EU_MAP);
		else if (r.flags & MAYMOVE)
			unknown_holes(e, r.p);
		return;
	}
	if (c->result < 0) {
		failed(e, &r, c->result);
	} else if ((r.flags & (FIXED | DONTUNMAP)) || at != r.old) {
		moved_to(e, &r, at);
	} else if (r.newn <= r.oldn) {
		exp_set(e, r.p, r.old + r.newn, r.old + r.oldn - 1, NULL);
	} else {
		const struct exp_rec *last = exp_rec_at(e, r.p, r.old + r.oldn - 1);
		struct exp_rec tail = last ? *last : (struct exp_rec){0};

		grown(e, r.p, last ? &tail : NULL, 0, r.old + r.oldn, r.old + r.newn);
	}
}
