/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two tree backends in lockstep (tree_backend.h: tree_pair): the primary's
 * answers are the pair's, the shadow's are compared with them. Used by the
 * kernel target, the kernel's maple tree shadowed by the model's tree, so
 * the same program is judged by the reference map and by the other tree.
 */
#include "tree_backend.h"

#include "runtime/alloc.h"
#include "runtime/sched.h"
#include "runtime/check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const struct tree_backend *P, *S;

struct pair {
	void *p, *s;
	uint64_t snodes; /* the shadow's nodes at the last count (pair_nodes) */
};

struct pair_bulk {
	void *p, *s;
};

/* Live pairs: the shadow's live-node check needs all of its trees. */
#define PAIRS_MAX 16
static struct pair *pairs[PAIRS_MAX];

static bool differ(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* TREE_BACKENDS_DIFFER: what the primary said, and the shadow. */
static bool differ(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return check_fail(CK_TREE_BACKENDS_DIFFER, "%s (the shadow: %s): %s", P->name, S->name,
			  msg);
}

/* Whether the shadow runs after the primary's write returned @err. */
static bool shadow_runs(int err)
{
	return !(err == -ENOMEM && alloc_fail_fired());
}

/* The same entry: each backend marks a failed fork with its own `zero`. */
static bool same_entry(const void *e, const void *se)
{
	return e == se || (e == P->zero && se == S->zero);
}

static bool same_range(const struct tree_range *a, const struct tree_range *b)
{
	return a->first == b->first && a->last == b->last;
}

/* one walk's buffer kept for the next (seen_init) */
static struct seen_entry *seen_spare;
static size_t seen_spare_cap;
static bool seen_spare_taken;

static void *pair_create(void)
{
	struct pair *x = calloc(1, sizeof(*x));
	struct alloc_fail_pause pause;
	unsigned i;

	for (i = 0; i < PAIRS_MAX && pairs[i]; i++)
		;
	MODEL_ASSERT(x != NULL && i < PAIRS_MAX);
	x->p = P->create();
	alloc_fail_pause(&pause);
	x->s = S->create();
	alloc_fail_resume(&pause);
	if (!x->p || !x->s) {
		if (x->p)
			P->release(x->p);
		if (x->s)
			S->release(x->s);
		free(x);
		return NULL;
	}
	x->snodes = S->nodes(x->s);
	pairs[i] = x;
	return x;
}

static void pair_clear(void *t)
{
	struct pair *x = t;

	P->clear(x->p);
	S->clear(x->s);
}

static void pair_release(void *t)
{
	struct pair *x = t;

	for (unsigned i = 0; i < PAIRS_MAX; i++)
		if (pairs[i] == x)
			pairs[i] = NULL;
	P->release(x->p);
	S->release(x->s);
	free(x);
	/* the last pair gone (a program's end): its walks' spare goes too, so
	 * that the next program grows it as this one did (tests/stable.sh) */
	for (unsigned i = 0; i < PAIRS_MAX; i++)
		if (pairs[i])
			return;
	MODEL_ASSERT(!seen_spare_taken);
	free(seen_spare);
	seen_spare = NULL;
	seen_spare_cap = 0;
}

static int pair_store(void *t, uint64_t first, uint64_t last, void *entry)
{
	struct pair *x = t;
	int err = P->store(x->p, first, last, entry), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	serr = S->store(x->s, first, last, entry);
	alloc_fail_resume(&pause);
	if (serr != err)
		differ("store [%#" PRIx64 ", %#" PRIx64 "] returned %d, the shadow %d", first, last,
		       err, serr);
	return err;
}

static int pair_store_path(void *t, uint64_t first, uint64_t last, void *entry,
			   enum tree_write_path how)
{
	struct pair *x = t;
	int err = P->store_path(x->p, first, last, entry, how), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	serr = S->store_path ? S->store_path(x->s, first, last, entry, how)
			     : S->store(x->s, first, last, entry);
	alloc_fail_resume(&pause);
	if (serr != err)
		differ("store by path %d over [%#" PRIx64 ", %#" PRIx64 "] returned %d, the shadow "
		       "%d",
		       (int)how, first, last, err, serr);
	return err;
}

static int pair_insert(void *t, uint64_t first, uint64_t last, void *entry)
{
	struct pair *x = t;
	int err = P->insert(x->p, first, last, entry), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	serr = S->insert(x->s, first, last, entry);
	alloc_fail_resume(&pause);
	if (serr != err)
		differ("insert [%#" PRIx64 ", %#" PRIx64 "] returned %d, the shadow %d", first,
		       last, err, serr);
	return err;
}

static int pair_alloc(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, void *entry,
		      uint64_t *start)
{
	struct pair *x = t;
	uint64_t ss = 0;
	int err = P->alloc(x->p, lo, hi, size, highest, entry, start), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	serr = S->alloc(x->s, lo, hi, size, highest, entry, &ss);
	alloc_fail_resume(&pause);
	if (serr != err || (!err && ss != *start))
		differ("%s alloc of %#" PRIx64 " in [%#" PRIx64 ", %#" PRIx64 "]: %d at %#" PRIx64
		       ", the shadow %d at %#" PRIx64,
		       highest ? "highest" : "lowest", size, lo, hi, err, err ? 0 : *start, serr,
		       serr ? 0 : ss);
	return err;
}

/* A shadow without a cyclic allocator is given the primary's index. */
static int pair_alloc_cyclic(void *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next,
			     bool *wrapped, uint64_t *start)
{
	struct pair *x = t;
	uint64_t snext = *next, ss = 0;
	bool swrapped = *wrapped;
	int err = P->alloc_cyclic(x->p, lo, hi, entry, next, wrapped, start), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	if (S->alloc_cyclic) {
		serr = S->alloc_cyclic(x->s, lo, hi, entry, &snext, &swrapped, &ss);
		if (serr != err || (err >= 0 && (ss != *start || snext != *next)))
			differ("alloc_cyclic in [%#" PRIx64 ", %#" PRIx64 "]: %d at %#" PRIx64
			       ", the shadow %d at %#" PRIx64,
			       lo, hi, err, err >= 0 ? *start : 0, serr, serr >= 0 ? ss : 0);
	} else if (err >= 0 && (serr = S->store(x->s, *start, *start, entry)) != 0) {
		differ("alloc_cyclic gave %#" PRIx64 ", the shadow's store of it returned %d",
		       *start, serr);
	}
	alloc_fail_resume(&pause);
	return err;
}

/* next and prev: equal entries, and equal ranges for an entry. */
static void *pair_step(void *t, uint64_t index, uint64_t bound, struct tree_range *r, bool prev)
{
	struct pair *x = t;
	struct tree_range sr = {0, 0};
	void *e = prev ? P->prev(x->p, index, bound, r) : P->next(x->p, index, bound, r);
	void *se = prev ? S->prev(x->s, index, bound, &sr) : S->next(x->s, index, bound, &sr);

	if (!same_entry(e, se) || (e && !same_range(r, &sr)))
		differ("%s from %#" PRIx64 " to %#" PRIx64 " gives %p at [%#" PRIx64 ", %#" PRIx64
		       "], the shadow %p at [%#" PRIx64 ", %#" PRIx64 "]",
		       prev ? "prev" : "next", index, bound, e, r->first, r->last, se, sr.first,
		       sr.last);
	return e;
}

static void *pair_next(void *t, uint64_t index, uint64_t max, struct tree_range *r)
{
	return pair_step(t, index, max, r, false);
}

static void *pair_prev(void *t, uint64_t index, uint64_t min, struct tree_range *r)
{
	return pair_step(t, index, min, r, true);
}

static int pair_erase(void *t, uint64_t index, void **old)
{
	struct pair *x = t;
	void *sold = NULL;
	int err = P->erase(x->p, index, old), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	serr = S->erase(x->s, index, &sold);
	alloc_fail_resume(&pause);
	if (serr != err || (!err && !same_entry(*old, sold)))
		differ("erase at %#" PRIx64 " returned %d (%p), the shadow %d (%p)", index, err,
		       *old, serr, sold);
	return err;
}

static void *pair_load(void *t, uint64_t index, struct tree_range *r)
{
	struct pair *x = t;
	struct tree_range sr;
	void *e = P->load(x->p, index, r), *se = S->load(x->s, index, &sr);

	if (!same_entry(e, se) || !same_range(r, &sr))
		differ("load %#" PRIx64 " gives [%#" PRIx64 ", %#" PRIx64 "] -> %p, the shadow "
		       "[%#" PRIx64 ", %#" PRIx64 "] -> %p",
		       index, r->first, r->last, e, sr.first, sr.last, se);
	return e;
}

/* find and find_prev: equal entries, and equal ranges for an entry. */
static void *pair_find_either(void *t, uint64_t from, uint64_t bound, struct tree_range *r,
			      bool prev)
{
	struct pair *x = t;
	struct tree_range sr = {0, 0};
	void *e = prev ? P->find_prev(x->p, from, bound, r) : P->find(x->p, from, bound, r);
	void *se = prev ? S->find_prev(x->s, from, bound, &sr) : S->find(x->s, from, bound, &sr);

	if (!same_entry(e, se) || (e && !same_range(r, &sr)))
		differ("%s from %#" PRIx64 " gives %p at [%#" PRIx64 ", %#" PRIx64 "], the shadow "
		       "%p at [%#" PRIx64 ", %#" PRIx64 "]",
		       prev ? "find_prev" : "find", from, e, r->first, r->last, se, sr.first,
		       sr.last);
	return e;
}

static void *pair_find(void *t, uint64_t from, uint64_t max, struct tree_range *r)
{
	return pair_find_either(t, from, max, r, false);
}

static void *pair_find_prev(void *t, uint64_t from, uint64_t min, struct tree_range *r)
{
	return pair_find_either(t, from, min, r, true);
}

static int pair_gap(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, uint64_t *start)
{
	struct pair *x = t;
	uint64_t ss = 0;
	int err = P->gap(x->p, lo, hi, size, highest, start);
	int serr = S->gap(x->s, lo, hi, size, highest, &ss);

	if (err != serr || (!err && *start != ss))
		differ("%s gap of %#" PRIx64 " in [%#" PRIx64 ", %#" PRIx64 "]: %d at %#" PRIx64
		       ", the shadow %d at %#" PRIx64,
		       highest ? "highest" : "lowest", size, lo, hi, err, err ? 0 : *start, serr,
		       serr ? 0 : ss);
	return err;
}

/*
 * The primary's walk written down, to compare the shadow's with it as the
 * shadow walks. The buffer is kept from one walk to the next (a walk of a
 * few hundred entries after every step made a malloc and a free of up to
 * tens of KiB each time, the most bytes the pair allocated); a walk while
 * it is taken (none today: checks hold the scheduler) gets its own.
 */
struct seen_entry {
	struct tree_range r;
	void *e;
};

struct seen {
	struct seen_entry *v;
	size_t n, cap;
	bool spare; /* v is seen_spare */
	bool rev;   /* a reverse walk: each entry below the one before */
};

static void seen_init(struct seen *s)
{
	s->n = 0;
	s->rev = false;
	s->spare = !seen_spare_taken;
	if (s->spare) {
		seen_spare_taken = true;
		s->v = seen_spare;
		s->cap = seen_spare_cap;
	} else {
		s->v = NULL;
		s->cap = 0;
	}
}

static bool seen_add(void *arg, const struct tree_range *r, void *e)
{
	struct seen *s = arg;
	const struct seen_entry *prev = s->n ? &s->v[s->n - 1] : NULL;
	/* a walk that goes back (or round) on a tree that holds few
	 * entries would never end: keep the entry that went back, for the
	 * comparison to name, and stop */
	bool back = prev && (s->rev ? r->last >= prev->r.first : r->first <= prev->r.last);

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		MODEL_ASSERT(s->v != NULL);
		if (s->spare) {
			seen_spare = s->v;
			seen_spare_cap = s->cap;
		}
	}
	s->v[s->n++] = (struct seen_entry){*r, e};
	return !back;
}

static void seen_free(struct seen *s)
{
	if (s->spare)
		seen_spare_taken = false;
	else
		free(s->v);
}

/* The shadow's walk against the primary's, entry by entry. */
struct seen_cmp {
	const struct seen *a;
	size_t n;		/* the shadow's entries */
	long at;		/* the first that differs, or -1 */
	struct seen_entry b_at; /* the shadow's entry there */
};

static bool seen_cmp_add(void *arg, const struct tree_range *r, void *e)
{
	struct seen_cmp *c = arg;
	const struct seen_entry *x = c->n < c->a->n ? &c->a->v[c->n] : NULL;

	if (c->at < 0 && (!x || !same_entry(x->e, e) || !same_range(&x->r, r))) {
		c->at = (long)c->n;
		c->b_at = (struct seen_entry){*r, e};
	}
	c->n++;
	return true;
}

/* The shadow's walk must have seen what the primary's did (@what and its
 * range name it); the primary's entries are then visited. */
static void seen_judge(struct seen *a, const struct seen_cmp *c, const char *what, uint64_t from,
		       uint64_t to, tree_visit_fn visit, void *arg)
{
	/* the first entry that differs, or the first only one side has */
	long at = c->at >= 0 ? c->at : a->n == c->n ? -1 : (long)(a->n < c->n ? a->n : c->n);

	if (at >= 0) {
		const struct seen_entry *pa = (size_t)at < a->n ? &a->v[at] : NULL;
		const struct seen_entry *pb = (size_t)at < c->n ? &c->b_at : NULL;
		char ea[64] = "none", eb[64] = "none";

		if (pa)
			snprintf(ea, sizeof(ea), "[%#" PRIx64 ", %#" PRIx64 "] -> %p", pa->r.first,
				 pa->r.last, pa->e);
		if (pb)
			snprintf(eb, sizeof(eb), "[%#" PRIx64 ", %#" PRIx64 "] -> %p", pb->r.first,
				 pb->r.last, pb->e);
		differ("%s [%#" PRIx64 ", %#" PRIx64 "] differs at entry %ld (%zu entries, the "
		       "shadow %zu): %s, the shadow's %s",
		       what, from, to, at, a->n, c->n, ea, eb);
	}
	for (size_t i = 0; i < a->n; i++)
		if (!visit(arg, &a->v[i].r, a->v[i].e))
			break;
	seen_free(a);
}

/*
 * Both walk, and must have seen the same. A walk of the whole range
 * compares the trees' whole contents (the targets' checks do one after
 * every step, against the reference map).
 */
static void pair_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	struct pair *x = t;
	struct seen a;
	struct seen_cmp c = {&a, 0, -1, {{0, 0}, NULL}};

	seen_init(&a);
	P->walk(x->p, from, to, seen_add, &a);
	S->walk(x->s, from, to, seen_cmp_add, &c);
	seen_judge(&a, &c, "walk", from, to, visit, arg);
}

static void pair_rcu_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	struct pair *x = t;

	P->rcu_walk(x->p, from, to, visit, arg);
}

/* dup or dup_locked (@what) on the primary, then, when it did something,
 * the same on the shadow with failures paused: the same answer. */
static int dup_both(void *src, void *dst, int (*pdup)(void *, void *), int (*sdup)(void *, void *),
		    const char *what)
{
	struct pair *a = src, *b = dst;
	int err = pdup(a->p, b->p), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	serr = sdup(a->s, b->s);
	alloc_fail_resume(&pause);
	if (serr != err)
		differ("%s returned %d, the shadow %d", what, err, serr);
	return err;
}

static int pair_dup(void *src, void *dst)
{
	return dup_both(src, dst, P->dup, S->dup, "dup");
}

/*
 * A fork: the primary's, with the caller's answers written down per entry;
 * then the shadow's, with failure injection paused and those answers
 * replayed, so that it stops where the primary stopped: at an entry the
 * caller failed, or whose erase failed in the primary's tree (the shadow's
 * is then failed by the caller's answer, which marks the same range). A
 * dup that failed is not replayed: the shadow's child stays empty.
 */
struct fork_rec {
	struct tree_range r;
	void *entry, *child;
	enum tree_fork_step step;
	bool copied; /* a copy's page copy succeeded */
};

struct pair_fork {
	const struct tree_fork_ops *ops; /* the caller's */
	struct fork_rec *v;
	size_t n, cap;
	size_t at;	  /* the shadow's next entry */
	bool tree_failed; /* the primary's last erase failed */
};

static enum tree_fork_step rec_entry(void *arg, const struct tree_range *r, void *e, void **child)
{
	struct pair_fork *f = arg;
	struct fork_rec *x;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 32;
		f->v = realloc(f->v, f->cap * sizeof(*f->v));
		MODEL_ASSERT(f->v != NULL);
	}
	x = &f->v[f->n++];
	*x = (struct fork_rec){*r, e, NULL, TREE_FORK_FAIL, true};
	x->step = f->ops->entry(f->ops->arg, r, e, &x->child);
	*child = x->child;
	return x->step;
}

static bool rec_copied(void *arg, const struct tree_range *r, void *child)
{
	struct pair_fork *f = arg;

	return f->v[f->n - 1].copied = f->ops->copied(f->ops->arg, r, child);
}

static enum tree_fork_step replay_entry(void *arg, const struct tree_range *r, void *e,
					void **child)
{
	struct pair_fork *f = arg;
	const struct fork_rec *x = f->at < f->n ? &f->v[f->at] : NULL;

	f->at++;
	if (!x) {
		differ("the shadow's fork went on to [%#" PRIx64 ", %#" PRIx64 "] -> %p after "
		       "the primary's had stopped",
		       r->first, r->last, e);
		return TREE_FORK_FAIL;
	}
	if (!same_range(r, &x->r) || e != x->entry) {
		differ("fork's entry %zu is [%#" PRIx64 ", %#" PRIx64 "] -> %p, the shadow's "
		       "[%#" PRIx64 ", %#" PRIx64 "] -> %p",
		       f->at - 1, x->r.first, x->r.last, x->entry, r->first, r->last, e);
		return TREE_FORK_FAIL;
	}
	*child = x->child;
	return f->tree_failed && f->at == f->n ? TREE_FORK_FAIL : x->step;
}

static bool replay_copied(void *arg, const struct tree_range *r, void *child)
{
	struct pair_fork *f = arg;

	(void)r;
	(void)child;
	return f->v[f->at - 1].copied;
}

static int pair_fork(void *src, void *dst, const struct tree_fork_ops *ops)
{
	struct pair *a = src, *b = dst;
	struct pair_fork f = {ops, NULL, 0, 0, 0, false};
	const struct tree_fork_ops rec = {rec_entry, rec_copied, &f};
	const struct tree_fork_ops replay = {replay_entry, replay_copied, &f};
	struct alloc_fail_pause pause;
	int err = P->fork(a->p, b->p, &rec), serr;

	if (!err || f.n || !alloc_fail_fired()) {
		f.tree_failed = err && f.n && f.v[f.n - 1].step == TREE_FORK_DROP;
		alloc_fail_pause(&pause);
		serr = S->fork(a->s, b->s, &replay);
		alloc_fail_resume(&pause);
		if (serr != err || f.at != f.n)
			differ("fork returned %d after %zu entries, the shadow %d after %zu", err,
			       f.n, serr, f.at);
	}
	free(f.v);
	return err;
}

static void pair_fork_exit(void *t, tree_visit_fn visit, void *arg)
{
	struct pair *x = t;
	struct seen a;
	struct seen_cmp c = {&a, 0, -1, {{0, 0}, NULL}};

	seen_init(&a);
	P->fork_exit(x->p, seen_add, &a);
	S->fork_exit(x->s, seen_cmp_add, &c);
	seen_judge(&a, &c, "fork_exit's walk of", 0, TREE_MAX, visit, arg);
}

static int pair_bulk_begin(void *t, uint64_t expected, void **bulk)
{
	struct pair *x = t;
	struct pair_bulk *pb = calloc(1, sizeof(*pb));
	struct alloc_fail_pause pause;
	int err;

	MODEL_ASSERT(pb != NULL);
	err = P->bulk_begin(x->p, expected, &pb->p);
	if (err) {
		free(pb);
		return err;
	}
	alloc_fail_pause(&pause);
	if (S->bulk_begin && S->bulk_begin(x->s, expected, &pb->s))
		differ("bulk_begin of %" PRIu64 " succeeded, not the shadow's", expected);
	alloc_fail_resume(&pause);
	pb->s = S->bulk_begin ? pb->s : x->s; /* no bulk: the shadow stores */
	*bulk = pb;
	return 0;
}

static int pair_bulk_append(void *bulk, uint64_t first, uint64_t last, void *entry)
{
	struct pair_bulk *pb = bulk;
	int err = P->bulk_append(pb->p, first, last, entry), serr;
	struct alloc_fail_pause pause;

	if (!shadow_runs(err))
		return err;
	alloc_fail_pause(&pause);
	serr = S->bulk_begin ? S->bulk_append(pb->s, first, last, entry)
			     : S->store(pb->s, first, last, entry);
	alloc_fail_resume(&pause);
	if (serr != err)
		differ("bulk append [%#" PRIx64 ", %#" PRIx64 "] returned %d, the shadow %d", first,
		       last, err, serr);
	return err;
}

static void pair_bulk_end(void *bulk)
{
	struct pair_bulk *pb = bulk;

	P->bulk_end(pb->p);
	if (S->bulk_begin)
		S->bulk_end(pb->s);
	free(pb);
}

static void *pair_lookup(void *t, uint64_t index)
{
	struct pair *x = t;
	void *e = P->lookup(x->p, index), *se = S->lookup(x->s, index);

	if (!same_entry(e, se))
		differ("lookup %#" PRIx64 " gives %p, the shadow %p", index, e, se);
	return e;
}

/*
 * mtree_erase cannot say that it failed: after an injected failure the
 * shadow erases only if the primary's entry is gone (the caller's map
 * judges which the primary did).
 */
static void *pair_erase_locked(void *t, uint64_t index)
{
	struct pair *x = t;
	struct tree_range r;
	void *old = P->erase_locked(x->p, index), *sold;
	bool fired = alloc_fail_fired();
	struct alloc_fail_pause pause;

	/* the primary's load passes scheduling points (rcu_read_lock): no
	 * other fiber's check may see the primary erased and the shadow not */
	sched_hold();
	alloc_fail_pause(&pause);
	if (!fired || !old || P->load(x->p, index, &r) != old) {
		sold = S->erase_locked(x->s, index);
		if (!same_entry(old, sold))
			differ("erase_locked at %#" PRIx64 " gave %p, the shadow %p", index, old,
			       sold);
	}
	alloc_fail_resume(&pause);
	sched_unhold();
	return old;
}

static void pair_destroy_locked(void *t)
{
	struct pair *x = t;

	P->destroy_locked(x->p);
	S->destroy_locked(x->s);
}

static int pair_dup_locked(void *src, void *dst)
{
	return dup_both(src, dst, P->dup_locked, S->dup_locked, "dup_locked");
}

/* Entry walks on both, compared as walk's; range walks on the primary
 * alone (tree_pair in tree_backend.h). */
static void pair_walk_by(void *t, uint64_t from, uint64_t to, enum tree_walk_way how,
			 tree_visit_fn visit, void *arg)
{
	static const char *const names[TREE_WALK_NR] = {"paused walk", "paused reverse walk",
							"mt_find walk"};
	struct pair *x = t;
	struct seen a;
	struct seen_cmp c = {&a, 0, -1, {{0, 0}, NULL}};

	if (how >= TREE_WALK_RANGES || !(S->walk_ways & (1u << how))) {
		P->walk_by(x->p, from, to, how, visit, arg);
		return;
	}
	seen_init(&a);
	a.rev = how == TREE_WALK_PAUSED_REV;
	P->walk_by(x->p, from, to, how, seen_add, &a);
	S->walk_by(x->s, from, to, how, seen_cmp_add, &c);
	seen_judge(&a, &c, names[how], from, to, visit, arg);
}

/* Both trees sound (their contents are compared by a walk: pair_walk). */
static bool pair_validate(void *t)
{
	struct pair *x = t;
	bool ok = P->validate(x->p);

	return S->validate(x->s) && ok; /* both, whatever the first says */
}

static bool pair_check_dup(void *src, void *dup)
{
	struct pair *a = src, *b = dup;

	bool ok = P->check_dup(a->p, b->p);

	return S->check_dup(a->s, b->s) && ok;
}

static void pair_picture(void *t, struct tree_picture *p)
{
	P->picture(((struct pair *)t)->p, p);
}

/* The primary's count; the shadow's is kept for pair_check_live. */
static uint64_t pair_nodes(void *t)
{
	struct pair *x = t;

	x->snodes = S->nodes(x->s);
	return P->nodes(x->p);
}

/*
 * The shadow's live nodes against its trees' counts as pair_nodes last
 * took them: the caller's `reachable` is the primary's side of the same
 * counts (a tree no step touched since is as it was then).
 */
static bool pair_check_live(uint64_t reachable)
{
	uint64_t shadow = 0;
	bool ok;

	for (unsigned i = 0; i < PAIRS_MAX; i++)
		if (pairs[i])
			shadow += pairs[i]->snodes;
	ok = P->check_live(reachable);
	return S->check_live(shadow) && ok;
}

static void pair_dump(FILE *out, void *t, void (*print)(FILE *out, const void *entry))
{
	struct pair *x = t;

	fprintf(out, "(%s) ", P->name);
	P->dump(out, x->p, print);
	fprintf(out, "  (%s) ", S->name);
	S->dump(out, x->s, print);
}

static struct tree_backend pair = {
    .name = "pair",
    .create = pair_create,
    .clear = pair_clear,
    .release = pair_release,
    .store = pair_store,
    .store_path = pair_store_path,
    .insert = pair_insert,
    .alloc = pair_alloc,
    .alloc_cyclic = pair_alloc_cyclic,
    .next = pair_next,
    .prev = pair_prev,
    .erase = pair_erase,
    .load = pair_load,
    .find = pair_find,
    .find_prev = pair_find_prev,
    .gap = pair_gap,
    .walk = pair_walk,
    .rcu_walk = pair_rcu_walk,
    .dup = pair_dup,
    .fork = pair_fork,
    .fork_exit = pair_fork_exit,
    .bulk_begin = pair_bulk_begin,
    .bulk_append = pair_bulk_append,
    .bulk_end = pair_bulk_end,
    .lookup = pair_lookup,
    .erase_locked = pair_erase_locked,
    .destroy_locked = pair_destroy_locked,
    .dup_locked = pair_dup_locked,
    .walk_by = pair_walk_by,
    .validate = pair_validate,
    .check_dup = pair_check_dup,
    .picture = pair_picture,
    .nodes = pair_nodes,
    .check_live = pair_check_live,
    .dump = pair_dump,
};

const struct tree_backend *tree_pair(const struct tree_backend *primary,
				     const struct tree_backend *shadow)
{
	P = primary;
	S = shadow;
	pair.zero = primary->zero;
	pair.retries = primary->retries;
	pair.dup = primary->dup && shadow->dup ? pair_dup : NULL;
	pair.fork = primary->fork && shadow->fork ? pair_fork : NULL;
	pair.fork_exit = pair.fork ? pair_fork_exit : NULL;
	pair.store_path = primary->store_path ? pair_store_path : NULL;
	pair.insert = primary->insert && shadow->insert ? pair_insert : NULL;
	pair.alloc = primary->alloc && shadow->alloc ? pair_alloc : NULL;
	pair.alloc_cyclic = primary->alloc_cyclic ? pair_alloc_cyclic : NULL;
	pair.next = primary->next && shadow->next ? pair_next : NULL;
	pair.prev = primary->prev && shadow->prev ? pair_prev : NULL;
	pair.lookup = primary->lookup && shadow->lookup ? pair_lookup : NULL;
	pair.erase_locked =
	    primary->erase_locked && shadow->erase_locked ? pair_erase_locked : NULL;
	pair.destroy_locked =
	    primary->destroy_locked && shadow->destroy_locked ? pair_destroy_locked : NULL;
	pair.dup_locked = primary->dup_locked && shadow->dup_locked ? pair_dup_locked : NULL;
	pair.walk_by = primary->walk_by ? pair_walk_by : NULL;
	pair.walk_ways = primary->walk_by ? primary->walk_ways : 0;
	if (!primary->bulk_begin) {
		/* the target then stores entry by entry, on both */
		pair.bulk_begin = NULL;
		pair.bulk_append = NULL;
		pair.bulk_end = NULL;
	}
	return &pair;
}
