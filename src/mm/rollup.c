/* SPDX-License-Identifier: GPL-2.0 */
/* smaps_rollup readers and their invariants (rollup.h). */
#include "mm/rollup.h"

#include "mm/mm.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- ranges ------------------------------------------------------------ */

static void ranges_add(struct rollup_ranges *l, uint64_t start, uint64_t end)
{
	if (l->n && l->r[l->n - 1].end == start && l->r[l->n - 1].start < start) {
		/* the common case of a walk: extend the last range */
		l->r[l->n - 1].end = end;
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->r = realloc(l->r, l->cap * sizeof(*l->r));
		MODEL_ASSERT(l->r != NULL);
	}
	l->r[l->n++] = (struct rollup_range){start, end};
}

static void ranges_free(struct rollup_ranges *l)
{
	free(l->r);
	memset(l, 0, sizeof(*l));
}

static void note_change(struct mm_watch *w, uint64_t start, uint64_t end)
{
	struct rollup *r = (struct rollup *)((char *)w - offsetof(struct rollup, watch));

	ranges_add(&r->changed, start, end);
}

/* ---- statistics -------------------------------------------------------- */

static void account_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct rollup_stats *s = arg;
	struct page *p = pte_page(*slot);
	bool dirty = pte_page_dirty(*slot);
	uint64_t pss;

	(void)mm;
	(void)addr;
	if (p == &zero_page) /* not a normal page: smaps does not see it */
		return;
	s->rss += PAGE_SIZE;
	s->referenced += PAGE_SIZE; /* the model does not age pages */
	if (p->lazyfree && !dirty)  /* smaps_account: neither entry nor folio dirty */
		s->lazyfree += PAGE_SIZE;
	if (p->anon_vma)
		s->anonymous += PAGE_SIZE;
	pss = (PAGE_SIZE << PSS_SHIFT) / (uint64_t)(p->mapcount > 1 ? p->mapcount : 1);
	s->pss += pss;
	if (dirty)
		s->pss_dirty += pss;
	if (p->anon_vma)
		s->pss_anon += pss;
	else /* every model file is a tmpfs file (file.h) */
		s->pss_shmem += pss;
	if (p->mapcount > 1) {
		if (dirty)
			s->shared_dirty += PAGE_SIZE;
		else
			s->shared_clean += PAGE_SIZE;
	} else if (dirty) {
		s->private_dirty += PAGE_SIZE;
	} else {
		s->private_clean += PAGE_SIZE;
	}
}

void smaps_gather(struct vma *v, uint64_t from, struct rollup_stats *s)
{
	uint64_t pss = s->pss;

	/* walk_page_vma's check of the walk's lock: the mmap lock, or (the
	 * seed) the VMA's read lock */
	vma_assert_locked(&v->lock, &v->mm->lock);
	for_each_pte(v->mm, from > v->start ? from : v->start, v->end, account_one, s);
	if (v->flags & VM_LOCKED)
		s->pss_locked += s->pss - pss; /* smaps_account: locked pages' Pss */
}

static void gather(struct rollup *r, struct vma *v, uint64_t from)
{
	if (from < v->start)
		from = v->start;
	smaps_gather(v, from, &r->stats);
	if (r->track && from < v->end)
		ranges_add(&r->gathered, from, v->end);
}

static const char *reader_name(const struct rollup *r)
{
	return r->reader == ROLLUP_MMAP_LOCK ? "mmap-lock" : "VMA-lock";
}

/* ---- the mmap-lock reader ---------------------------------------------- */

static void read_mmap_locked(struct mm *mm, struct rollup *r)
{
	struct vma *v;
	uint64_t from = 0;

	mmap_read_lock(&mm->lock);
	v = mm_find_vma(mm, 0);
	if (v)
		r->vma_start = v->start;
	while (v) {
		gather(r, v, from);
		r->last_end = v->end;
		sched_point("rollup: next VMA");
		if (mmap_lock_is_contended(&mm->lock)) {
			/* let the writer in */
			mmap_read_unlock(&mm->lock);
			r->drops++;
			mmap_read_lock(&mm->lock);
#ifdef VMAFUZZ_BUG_rollup_stop_on_freed
			/* the 2020 version: look up the VMA we stopped at and give
			 * up when it is gone */
			v = mm_find_vma(mm, r->last_end - 1);
			if (!v || v->start >= r->last_end)
				break;
			if (v->end <= r->last_end)
				v = vma_next(mm, v);
			from = r->last_end;
			continue;
#endif
			v = mm_find_vma(mm, r->last_end);
			if (!v) /* case 3: none left */
				break;
			if (v->start >= r->last_end) {
				/* cases 1 and 2: the next VMA, whole */
#ifdef VMAFUZZ_BUG_rollup_skip_after_relock
				/* before "avoid skipping vma after getting mmap_lock
				 * again": the loop moved on past it */
				v = vma_next(mm, v);
#endif
				from = 0;
				continue;
			}
			/* case 4: a VMA spans the last end (it grew or merged) */
			from = r->last_end;
			continue;
		}
		from = 0;
		v = vma_next(mm, v);
	}
	mmap_read_unlock(&mm->lock);
}

/* ---- the per-VMA-lock reader (the seed) -------------------------------- */

struct vma_walk {
	struct mm *mm;
	bool mmap_locked;
	struct vma *locked; /* holding its read lock */
};

/* lock_next_vma: under RCU, the first VMA ending above @pos, read-locked;
 * NULL with *again set when a VMA is being written (fall back). */
static struct vma *lock_next(struct vma_walk *w, uint64_t pos, bool *again)
{
	for (unsigned tries = 0; tries < 4; tries++) {
		struct vma *v = mm_find_vma(w->mm, pos);

		if (!v)
			return NULL;
		if (!vma_start_read(&v->lock, &w->mm->lock)) {
			if (vma_is_detached(&v->lock))
				continue; /* gone under us: look again */
			*again = true;
			return NULL;
		}
		/* it may have changed before we locked it: it must still end
		 * after @pos, and if it starts after @pos, no VMA may have come
		 * between (it shrank and a split installed one before it, as
		 * lock_next_vma verifies) */
		if (v->mm == w->mm && v->end > pos &&
		    (pos >= v->start || mm_find_vma(w->mm, pos) == v))
			return v;
		vma_end_read(&v->lock);
		if (v->mm == w->mm && v->end > pos) {
			*again = true; /* fall back to the mmap lock */
			return NULL;
		}
	}
	*again = true;
	return NULL;
}

/* proc_get_vma: the next VMA from *pos; *pos becomes its end. */
static struct vma *get_vma(struct vma_walk *w, struct rollup *r, uint64_t *pos)
{
	struct vma *v;
	bool again = false;

	if (w->mmap_locked) {
		v = mm_find_vma(w->mm, *pos);
	} else {
		if (w->locked) {
			vma_end_read(&w->locked->lock);
			w->locked = NULL;
		}
		v = lock_next(w, *pos, &again);
		if (v) {
			w->locked = v;
		} else if (again) {
			/* fall back to the mmap lock */
			rcu_read_unlock();
			mmap_read_lock(&w->mm->lock);
			w->mmap_locked = true;
			r->fallbacks++;
			v = mm_find_vma(w->mm, *pos);
		}
	}
	if (v)
		*pos = v->end;
	return v;
}

static void read_vma_locked(struct mm *mm, struct rollup *r)
{
	struct vma_walk w = {.mm = mm};
	uint64_t pos = 0;
	struct vma *v;

	rcu_read_lock();
	v = get_vma(&w, r, &pos);
	if (v)
		r->vma_start = v->start;
	while (v) {
		/* found again after it grew or merged: only the rest */
		gather(r, v, v->start < r->last_end ? r->last_end : v->start);
		r->last_end = v->end;
		sched_point("rollup: next VMA");
		if (w.mmap_locked && mmap_lock_is_contended(&mm->lock)) {
			mmap_read_unlock(&mm->lock);
			r->drops++;
			/* try the VMA locks again from where we were */
			rcu_read_lock();
			w.mmap_locked = false;
			w.locked = NULL;
			pos = r->last_end;
		}
		v = get_vma(&w, r, &pos);
	}
	if (w.mmap_locked) {
		mmap_read_unlock(&mm->lock);
	} else {
		if (w.locked)
			vma_end_read(&w.locked->lock);
		rcu_read_unlock();
	}
}

/* ---- reading ----------------------------------------------------------- */

/* Start @r for @reader; rollup_read adds what the checks need. */
static void read_begin(struct rollup *r, enum rollup_reader reader)
{
	memset(r, 0, sizeof(*r));
	r->reader = reader;
}

static void read_with(struct mm *mm, struct rollup *r)
{
	if (r->reader == ROLLUP_MMAP_LOCK)
		read_mmap_locked(mm, r);
	else
		read_vma_locked(mm, r);
}

void rollup_read(struct mm *mm, enum rollup_reader reader, struct rollup *r)
{
	struct mt_cursor c;
	struct vma *v;

	read_begin(r, reader);
	r->track = true;
	/* what was mapped as the read starts (the checker's view, lock-free:
	 * fibers do not preempt each other) */
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c)))
		if (!mt_is_zero(v))
			ranges_add(&r->mapped, v->start, v->end);
	r->map_changes = page_map_changes;
	r->watch.changed = note_change;
	mm_watch_add(mm, &r->watch);
	read_with(mm, r);
	mm_watch_del(mm, &r->watch);
}

void rollup_read_untracked(struct mm *mm, enum rollup_reader reader, struct rollup *r)
{
	read_begin(r, reader);
	read_with(mm, r);
}

void rollup_free(struct rollup *r)
{
	ranges_free(&r->gathered);
	ranges_free(&r->mapped);
	ranges_free(&r->changed);
}

bool rollup_stats_equal(const struct rollup_stats *a, const struct rollup_stats *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* ---- the invariants ---------------------------------------------------- */

static int cmp_range(const void *a, const void *b)
{
	const struct rollup_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * ROLLUP_MISSED in one sweep: what was mapped at the start (ascending, from
 * the tree) minus what changed (sorted here), each stretch of it covered by
 * the gathered ranges (ascending and disjoint: ROLLUP_ORDER held).
 */
static bool check_missed(struct mm *mm, struct rollup *r)
{
	const struct rollup_ranges *g = &r->gathered, *c = &r->changed;
	unsigned ci = 0, gi = 0;

	if (c->n)
		qsort(c->r, c->n, sizeof(*c->r), cmp_range);
	for (unsigned i = 0; i < r->mapped.n; i++) {
		uint64_t at = r->mapped.r[i].start, end = r->mapped.r[i].end;

		while (at < end) {
			uint64_t stop = end;

			/* skip what changed at or before @at */
			while (ci < c->n && c->r[ci].end <= at)
				ci++;
			if (ci < c->n && c->r[ci].start <= at) {
				at = c->r[ci].end;
				continue;
			}
			if (ci < c->n && c->r[ci].start < stop)
				stop = c->r[ci].start;
			/* [at, stop) was mapped and unchanged: gathered? */
			while (gi < g->n && g->r[gi].end <= at)
				gi++;
			while (at < stop) {
				if (gi >= g->n || g->r[gi].start > at) {
					uint64_t miss = gi < g->n && g->r[gi].start < stop
							    ? g->r[gi].start
							    : stop;

					return check_fail(
					    CK_ROLLUP_MISSED,
					    "mm %u: the %s reader never gathered [%#" PRIx64
					    ", %#" PRIx64
					    "), mapped and unchanged all through its read "
					    "(%u drops, %u fallbacks)",
					    mm->id, reader_name(r), at, miss, r->drops,
					    r->fallbacks);
				}
				at = g->r[gi].end < stop ? g->r[gi].end : stop;
				if (at == g->r[gi].end)
					gi++;
			}
		}
	}
	return true;
}

bool rollup_check(struct mm *mm, struct rollup *r)
{
	const struct rollup_ranges *g = &r->gathered;
	struct rollup_stats sum = {0};
	struct rollup other;
	struct mt_cursor c;
	struct vma *v;
	bool ok = true, same;

	for (unsigned i = 0; i < g->n; i++)
		if (g->r[i].start >= g->r[i].end || (i && g->r[i].start < g->r[i - 1].end))
			return check_fail(CK_ROLLUP_ORDER,
					  "mm %u: gathered [%#" PRIx64 ", %#" PRIx64
					  ") after [%#" PRIx64 ", %#" PRIx64 ")",
					  mm->id, g->r[i].start, g->r[i].end,
					  i ? g->r[i - 1].start : 0, i ? g->r[i - 1].end : 0);
	if (!check_missed(mm, r))
		return false;
	if (r->changed.n || r->map_changes != page_map_changes)
		return true; /* the figures moved while it read */
	if (mm->lock.sem.readers || mm->lock.sem.writer || mm->lock.sem.wait_readers ||
	    mm->lock.sem.wait_writers)
		return true; /* a writer is inside an operation: the tree may be between states */
	/* a check with nothing moving: it takes no lock */
	lock_asserts_off();
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c)))
		if (!mt_is_zero(v))
			smaps_gather(v, v->start, &sum);
	lock_asserts_on();
	if (!rollup_stats_equal(&sum, &r->stats))
		ok = check_fail(CK_ROLLUP_SUM,
				"mm %u: rollup Rss %" PRIu64 " kB Pss %" PRIu64
				" kB, the VMAs sum to Rss %" PRIu64 " kB Pss %" PRIu64
				" kB; the %s reader gathered %u range(s) from %#" PRIx64
				" to %#" PRIx64,
				mm->id, r->stats.rss >> 10, r->stats.pss >> (10 + PSS_SHIFT),
				sum.rss >> 10, sum.pss >> (10 + PSS_SHIFT), reader_name(r),
				r->gathered.n, r->gathered.n ? r->gathered.r[0].start : 0,
				r->gathered.n ? r->gathered.r[r->gathered.n - 1].end : 0);
	rollup_read(mm, r->reader == ROLLUP_MMAP_LOCK ? ROLLUP_VMA_LOCK : ROLLUP_MMAP_LOCK, &other);
	same = other.changed.n || other.map_changes != page_map_changes ||
	       rollup_stats_equal(&other.stats, &r->stats);
	rollup_free(&other);
	if (!same)
		ok = check_fail(CK_ROLLUP_READERS,
				"mm %u: the two readers disagree with nothing changing (Rss "
				"%" PRIu64 " kB from the %s reader)",
				mm->id, r->stats.rss >> 10, reader_name(r));
	return ok;
}
