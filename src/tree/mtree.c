/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Range tree: lookups, cursors, and writes by subtree rebuild.
 *
 * A write gathers the ranges of the lowest node whose span holds the whole
 * written range, applies the write to that flat sequence, and rebuilds the
 * subtree at the same height if the new sequence fits one (between
 * MT_MIN_SLOTS^h and MT_SLOTS^h ranges); otherwise it widens to the parent,
 * up to the root, where the height may change. The rebuilt subtree is built
 * aside and published with one pointer store, then the old nodes are freed.
 * Nodes are packed to MT_FILL so the next writes mostly stay in one leaf.
 */
#include "tree/mtree.h"

#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "tree/mtree_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A range of the flat sequence: [previous last + 1, last] -> ptr. */
struct mt_item {
	uint64_t last;
	void *ptr;
};

struct mt_items {
	struct mt_item *v;
	size_t n, cap;
};

/*
 * The scratch arrays of a write (the ranges of the subtree it rebuilds, their
 * gaps) come from a small cache of this thread's instead of malloc: a write
 * makes several, and under ASan every malloc and free unwinds the stack
 * (docs/results/benchmarks.md). They are the harness's memory, not the
 * model's (never failed).
 * Which writes find one there depends on the writes before, so the cache is
 * emptied between programs (mt_scratch_release).
 */
struct scratch_hdr {
	size_t cap;
	size_t pad; /* keeps the array 16-byte aligned */
};

#define SCRATCH_CACHED 8
static _Thread_local struct scratch_hdr *scratch_cache[SCRATCH_CACHED];
static _Thread_local unsigned scratch_cached;

static void scratch_free(void *p)
{
	struct scratch_hdr *h = p ? (struct scratch_hdr *)p - 1 : NULL;

	if (!h)
		return;
	if (scratch_cached < SCRATCH_CACHED)
		scratch_cache[scratch_cached++] = h;
	else
		free(h);
}

void mt_scratch_release(void)
{
	while (scratch_cached)
		free(scratch_cache[--scratch_cached]);
}

static void *scratch_realloc(void *p, size_t bytes)
{
	struct scratch_hdr *old = p ? (struct scratch_hdr *)p - 1 : NULL, *h = NULL;
	size_t cap = 1024;

	if (old && old->cap >= bytes)
		return p;
	while (cap < bytes)
		cap *= 2;
	for (unsigned i = 0; i < scratch_cached; i++)
		if (scratch_cache[i]->cap >= cap) {
			h = scratch_cache[i];
			scratch_cache[i] = scratch_cache[--scratch_cached];
			break;
		}
	if (!h) {
		h = malloc(sizeof(*h) + cap);
		MODEL_ASSERT(h != NULL);
		h->cap = cap;
	}
	if (old) {
		memcpy(h + 1, p, old->cap);
		scratch_free(p);
	}
	return h + 1;
}

static void items_push(struct mt_items *s, uint64_t last, void *ptr)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = scratch_realloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n].last = last;
	s->v[s->n].ptr = ptr;
	s->n++;
}

void mt_init(struct mtree *mt)
{
	memset(mt, 0, sizeof(*mt));
}

bool mt_empty(const struct mtree *mt)
{
	return mt->root == NULL;
}

struct mt_node *mt_node_alloc(bool leaf)
{
	struct mt_node *n = model_alloc(AK_MT_NODE, sizeof(*n));

	if (n)
		n->leaf = leaf;
	return n;
}

void mt_node_free(struct mt_node *n)
{
	model_free(AK_MT_NODE, n);
}

void mt_free_subtree(struct mt_node *n)
{
	if (!n)
		return;
	if (!n->leaf)
		for (unsigned i = 0; i <= n->end; i++)
			mt_free_subtree(n->slot[i]);
	mt_node_free(n);
}

void mt_set_rcu(struct mtree *mt, bool on)
{
	mt->rcu = on;
}

static void node_free_cb(void *obj)
{
	mt_node_free(obj);
}

void mt_retire_subtree(struct mtree *mt, struct mt_node *n)
{
	if (!mt->rcu) {
		mt_free_subtree(n);
		return;
	}
	if (!n)
		return;
	if (!n->leaf)
		for (unsigned i = 0; i <= n->end; i++)
			mt_retire_subtree(mt, n->slot[i]);
#ifdef VMAFUZZ_BUG_mt_free_early
	/* planted bug (tests only): no grace period for RCU readers */
	node_free_cb(n);
#else
	call_rcu_free(AK_MT_NODE, n, node_free_cb);
#endif
}

void mt_destroy(struct mtree *mt)
{
	struct mt_node *old = mt->root;

	rcu_assign_pointer(mt->root, NULL);
	mt->height = 0;
	mt_gen_bump(mt);
	mt_retire_subtree(mt, old);
}

uint64_t mt_node_max_gap(const struct mt_node *n, uint64_t min, uint64_t max)
{
	uint64_t best = 0;

	for (unsigned i = 0; i <= n->end; i++) {
		uint64_t g;

		if (n->leaf) {
			if (n->slot[i])
				continue;
			g = mt_range_size(mt_slot_min(n, i, min), mt_slot_max(n, i, max));
		} else {
			g = n->gap[i];
		}
		if (g > best)
			best = g;
	}
	return best;
}

void mt_node_bounds(const struct mt_node *n, uint64_t *min, uint64_t *max)
{
	uint64_t lo = 0, hi = MT_MAX;
	const struct mt_node *path[MT_MAX_HEIGHT];
	unsigned depth = 0;

	for (const struct mt_node *p = n; p->parent; p = p->parent)
		path[depth++] = p;
	while (depth--) {
		const struct mt_node *c = path[depth];
		uint64_t cmin = mt_slot_min(c->parent, c->parent_slot, lo);
		uint64_t cmax = mt_slot_max(c->parent, c->parent_slot, hi);

		lo = cmin;
		hi = cmax;
	}
	*min = lo;
	*max = hi;
}

void mt_gap_update_up(struct mt_node *n)
{
	while (n->parent) {
		uint64_t min, max, g;

		mt_node_bounds(n, &min, &max);
		g = mt_node_max_gap(n, min, max);
		if (n->parent->gap[n->parent_slot] == g)
			return;
		n->parent->gap[n->parent_slot] = g;
#ifdef VMAFUZZ_BUG_mt_gap_stale
		/* planted bug (tests only): the grandparent's gap goes stale */
		return;
#endif
		n = n->parent;
	}
}

/* Descend to the leaf that holds @index; its bounds in *min, *max. */
static const struct mt_node *leaf_of(const struct mtree *mt, uint64_t index, uint64_t *min,
				     uint64_t *max)
{
	const struct mt_node *n = rcu_dereference(mt->root);
	uint64_t lo = 0, hi = MT_MAX;

	while (n && !n->leaf) {
		unsigned i = mt_slot_of(n, index);
		uint64_t cmin = mt_slot_min(n, i, lo), cmax = mt_slot_max(n, i, hi);

		lo = cmin;
		hi = cmax;
		n = rcu_dereference(n->slot[i]);
	}
	*min = lo;
	*max = hi;
	return n;
}

void *mt_load_range(const struct mtree *mt, uint64_t index, struct mt_range *r)
{
	uint64_t min, max;
	const struct mt_node *n = leaf_of(mt, index, &min, &max);
	unsigned i;

	if (!n) {
		r->first = 0;
		r->last = MT_MAX;
		return NULL;
	}
	i = mt_slot_of(n, index);
	r->first = mt_slot_min(n, i, min);
	r->last = mt_slot_max(n, i, max);
	return n->slot[i];
}

void *mt_load(const struct mtree *mt, uint64_t index)
{
	struct mt_range r;

	return mt_load_range(mt, index, &r);
}

void mt_cursor_init(struct mt_cursor *c, struct mtree *mt, uint64_t index)
{
	c->mt = mt;
	c->range.first = c->range.last = 0;
	c->leaf_min = c->leaf_max = c->gen = 0;
	c->slot = 0;
	mt_cursor_reset(c, index); /* index, done, leaf */
}

void mt_cursor_reset(struct mt_cursor *c, uint64_t index)
{
	c->index = index;
	c->done = false;
	c->leaf = NULL;
}

void *mt_cursor_next(struct mt_cursor *c)
{
	while (!c->done) {
		unsigned from;

		if (!c->leaf || c->gen != mt_gen(c->mt) || c->index < c->leaf_min ||
		    c->index > c->leaf_max) {
			c->leaf = leaf_of(c->mt, c->index, &c->leaf_min, &c->leaf_max);
			c->gen = mt_gen(c->mt);
			if (!c->leaf) {
				c->done = true;
				return NULL;
			}
			from = mt_slot_of(c->leaf, c->index);
		} else if (c->slot < c->leaf->end && c->index == c->leaf->pivot[c->slot] + 1) {
			from = c->slot + 1; /* the common step: the slot after the last */
		} else {
			from = mt_slot_of(c->leaf, c->index);
		}
		for (unsigned i = from; i <= c->leaf->end; i++) {
			void *e = c->leaf->slot[i];

			if (!e)
				continue;
			c->range.first = mt_slot_min(c->leaf, i, c->leaf_min);
			c->range.last = mt_slot_max(c->leaf, i, c->leaf_max);
			c->slot = i;
			if (c->range.last == MT_MAX)
				c->done = true;
			else
				c->index = c->range.last + 1;
			return e;
		}
		if (c->leaf_max == MT_MAX)
			c->done = true;
		else
			c->index = c->leaf_max + 1;
	}
	return NULL;
}

void mt_cursor_replace(struct mt_cursor *c, void *entry)
{
	struct mt_node *leaf = (struct mt_node *)c->leaf;

	MODEL_ASSERT(leaf && c->gen == mt_gen(c->mt));
	MODEL_ASSERT(entry && (!mt_is_reserved(entry) || mt_is_zero(entry)));
	MODEL_ASSERT(leaf->slot[c->slot] != NULL);
	rcu_assign_pointer(leaf->slot[c->slot], entry);
}

void *mt_find(const struct mtree *mt, uint64_t from, uint64_t max, struct mt_range *r)
{
	struct mt_cursor c;
	void *e;

	if (from > max)
		return NULL;
	mt_cursor_init(&c, (struct mtree *)mt, from);
	e = mt_cursor_next(&c);
	if (!e || c.range.first > max)
		return NULL;
	*r = c.range;
	return e;
}

void *mt_find_prev(const struct mtree *mt, uint64_t from, uint64_t min, struct mt_range *r)
{
	uint64_t index = from;

	if (from < min)
		return NULL;
	for (;;) {
		uint64_t lo, hi;
		const struct mt_node *n = leaf_of(mt, index, &lo, &hi);

		if (!n)
			return NULL;
		for (int i = (int)mt_slot_of(n, index); i >= 0; i--) {
			uint64_t smin = mt_slot_min(n, (unsigned)i, lo);

			if (mt_slot_max(n, (unsigned)i, hi) < min)
				return NULL;
			if (n->slot[i]) {
				r->first = smin;
				r->last = mt_slot_max(n, (unsigned)i, hi);
				return n->slot[i];
			}
		}
		if (lo == 0 || lo - 1 < min)
			return NULL;
		index = lo - 1;
	}
}

void mt_rcu_walk(const struct mtree *mt, uint64_t from, uint64_t to, mt_visit_fn visit, void *arg)
{
	uint64_t index = from;

	while (index <= to) {
		const struct mt_node *n = rcu_dereference(mt->root);
		uint64_t lo = 0, hi = MT_MAX;

		while (n && !n->leaf) {
			unsigned i;

			sched_point("rcu walk: descend");
			i = mt_slot_of(n, index);
			lo = mt_slot_min(n, i, lo);
			hi = mt_slot_max(n, i, hi);
			n = rcu_dereference(n->slot[i]);
		}
		if (!n)
			return;
		for (unsigned i = mt_slot_of(n, index); i <= n->end; i++) {
			struct mt_range r;
			void *e;

			sched_point("rcu walk: slot");
			e = rcu_dereference(n->slot[i]);
			r.first = mt_slot_min(n, i, lo);
			r.last = mt_slot_max(n, i, hi);
			if (r.first > to)
				return;
			if (e && !visit(arg, &r, e))
				return;
		}
		if (hi == MT_MAX)
			return;
		index = hi + 1;
	}
}

/* ---- writes ------------------------------------------------------------ */

/* Append the ranges below @n (spanning [.., max]) to @s in order. */
static void collect(const struct mt_node *n, uint64_t max, struct mt_items *s)
{
	for (unsigned i = 0; i <= n->end; i++) {
		uint64_t smax = mt_slot_max(n, i, max);

		if (n->leaf)
			items_push(s, smax, n->slot[i]);
		else
			collect(n->slot[i], smax, s);
	}
}

static uint64_t ipow(uint64_t b, unsigned e)
{
	uint64_t r = 1;

	while (e--)
		r = r > UINT64_MAX / b ? UINT64_MAX : r * b;
	return r;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/*
 * How many nodes level @level (1 = leaves) of a subtree of height @h gets
 * when it holds @count items: aim for MT_FILL per node, within what keeps
 * every node between MT_MIN_SLOTS (2 children for an internal root) and
 * MT_SLOTS and still lets the levels above end in one node. 0: impossible.
 */
static uint64_t level_nodes(uint64_t count, unsigned level, unsigned h, bool root)
{
	unsigned above = h - level;
	uint64_t lo, hi, want;

	if (above == 0) {
		uint64_t least = root ? (h == 1 ? 1 : 2) : MT_MIN_SLOTS;

		return count >= least && count <= MT_SLOTS ? 1 : 0;
	}
	lo = div_up(count, MT_SLOTS);
	hi = count / MT_MIN_SLOTS;
	/* the nodes of this level must fit in `above` more levels */
	want = root ? 2 * ipow(MT_MIN_SLOTS, above - 1) : ipow(MT_MIN_SLOTS, above);
	if (lo < want)
		lo = want;
	if (hi > ipow(MT_SLOTS, above))
		hi = ipow(MT_SLOTS, above);
	if (lo > hi)
		return 0;
	want = div_up(count, MT_FILL);
	return want < lo ? lo : want > hi ? hi : want;
}

static bool fits(uint64_t count, unsigned h, bool root)
{
	for (unsigned level = 1; level <= h; level++) {
		count = level_nodes(count, level, h, root);
		if (!count)
			return false;
	}
	return true;
}

/* Smallest height at which a root holds @count ranges. */
static unsigned root_height(uint64_t count)
{
	unsigned h = 1;

	while (!fits(count, h, true))
		h++;
	return h;
}

/*
 * Build a subtree of height @h from the ranges @s that starts at @min. On
 * success returns its top node and stores its largest gap in *gap; on
 * allocation failure frees what it built and returns NULL.
 */
static struct mt_node *build(const struct mt_items *s, uint64_t min, unsigned h, bool root,
			     uint64_t *gap)
{
	struct mt_items cur = *s, next = {0};
	uint64_t *gaps = NULL, *next_gaps = NULL;
	struct mt_node *top = NULL;
	bool owned = false; /* cur.v is ours to free */

	for (unsigned level = 1; level <= h; level++) {
		uint64_t nodes = level_nodes(cur.n, level, h, root);
		uint64_t lo = min;
		size_t at = 0;

		MODEL_ASSERT(nodes > 0);
		next.n = 0;
		next_gaps = scratch_realloc(next_gaps, nodes * sizeof(*next_gaps));
		for (uint64_t k = 0; k < nodes; k++) {
			size_t take = cur.n / nodes + (k < cur.n % nodes);
			struct mt_node *n = mt_node_alloc(level == 1);

			if (!n) {
				/* free the nodes of this level and everything below them */
				for (size_t j = 0; j < next.n; j++)
					mt_free_subtree(next.v[j].ptr);
				for (size_t j = at; j < cur.n && level > 1; j++)
					mt_free_subtree(cur.v[j].ptr);
				top = NULL;
				goto out;
			}
			n->end = (uint8_t)(take - 1);
			for (size_t j = 0; j < take; j++) {
				struct mt_item *it = &cur.v[at + j];

				n->slot[j] = it->ptr;
				if (j < take - 1)
					n->pivot[j] = it->last;
				if (level > 1) {
					struct mt_node *c = it->ptr;

					c->parent = n;
					c->parent_slot = (uint8_t)j;
					n->gap[j] = gaps[at + j];
				}
			}
			at += take;
			next_gaps[next.n] = mt_node_max_gap(n, lo, cur.v[at - 1].last);
			lo = cur.v[at - 1].last + 1;
			items_push(&next, cur.v[at - 1].last, n);
		}
		if (owned)
			scratch_free(cur.v);
		cur = next;
		owned = true;
		next = (struct mt_items){0};
		scratch_free(gaps);
		gaps = next_gaps;
		next_gaps = NULL;
	}
	top = cur.v[0].ptr;
	*gap = gaps[0];
out:
	if (owned)
		scratch_free(cur.v);
	scratch_free(next.v);
	scratch_free(gaps);
	scratch_free(next_gaps);
	return top;
}

/* Put ranges into an empty tree. */
static int store_empty(struct mtree *mt, uint64_t first, uint64_t last, void *entry)
{
	struct mt_items s = {0};
	struct mt_node *root;
	uint64_t gap;

	if (first)
		items_push(&s, first - 1, NULL);
	items_push(&s, last, entry);
	if (last != MT_MAX)
		items_push(&s, MT_MAX, NULL);
	root = build(&s, 0, 1, true, &gap);
	scratch_free(s.v);
	if (!root)
		return -ENOMEM;
	rcu_assign_pointer(mt->root, root);
	mt->height = 1;
	mt_gen_bump(mt);
	return 0;
}

/*
 * Replace in @s (ranges starting at @min) whatever [first, last] overlaps by
 * one range [first, last] -> entry.
 */
static void splice(const struct mt_items *s, uint64_t min, uint64_t first, uint64_t last,
		   void *entry, struct mt_items *out)
{
	uint64_t lo = min;
	bool placed = false;

	for (size_t i = 0; i < s->n; i++) {
		const struct mt_item *it = &s->v[i];

		if (it->last < first) {
			items_push(out, it->last, it->ptr);
		} else if (lo > last) {
			items_push(out, it->last, it->ptr);
		} else {
			/* overlaps: keep the parts outside [first, last] */
			if (lo < first)
				items_push(out, first - 1, it->ptr);
			if (!placed) {
				items_push(out, last, entry);
				placed = true;
			}
			if (it->last > last)
				items_push(out, it->last, it->ptr);
		}
		lo = it->last + 1;
	}
}

/* Where a store rewrites the tree: a node, its span [min, max], its height. */
struct store_pos {
	struct mt_node *n;
	uint64_t min, max;
	unsigned h;
};

/* An erase takes in the empty ranges beside it: no adjacent empties. */
static void erase_take_empties(const struct mtree *mt, uint64_t *first, uint64_t *last)
{
	struct mt_range r;

	if (*first && !mt_load_range(mt, *first - 1, &r))
		*first = r.first;
	if (*last != MT_MAX && !mt_load_range(mt, *last + 1, &r))
		*last = r.last;
}

/* Lowest node whose span holds [first, last]. */
static struct store_pos store_find(const struct mtree *mt, uint64_t first, uint64_t last)
{
	struct store_pos pos = {mt->root, 0, MT_MAX, mt->height};

	while (!pos.n->leaf) {
		unsigned i = mt_slot_of(pos.n, first);

		if (i != mt_slot_of(pos.n, last))
			break;
		pos.min = mt_slot_min(pos.n, i, pos.min);
		pos.max = mt_slot_max(pos.n, i, pos.max);
		pos.n = pos.n->slot[i];
		pos.h--;
	}
	return pos;
}

/* Same range, same shape: replace in place (cannot fail). False when the
 * store is not such a one. */
static bool store_in_place(const struct store_pos *pos, uint64_t first, uint64_t last, void *entry)
{
	struct mt_node *n = pos->n;
	unsigned i;

	if (!n->leaf || !entry)
		return false;
	i = mt_slot_of(n, first);
	if (mt_slot_min(n, i, pos->min) != first || mt_slot_max(n, i, pos->max) != last)
		return false;
	rcu_assign_pointer(n->slot[i], entry);
	if (n->parent)
		mt_gap_update_up(n);
	return true;
}

/* Widen until the new sequence @s fits a subtree of the same height: the
 * parent's span, its other children's ranges around @s. */
static void store_widen(struct store_pos *pos, struct mt_items *s)
{
	while (pos->n->parent && !fits(s->n, pos->h, false)) {
		struct mt_node *p = pos->n->parent;
		unsigned slot = pos->n->parent_slot;
		struct mt_items wide = {0};
		uint64_t pmin, pmax;

		mt_node_bounds(p, &pmin, &pmax);
		for (unsigned i = 0; i < slot; i++)
			collect(p->slot[i], mt_slot_max(p, i, pmax), &wide);
		for (size_t i = 0; i < s->n; i++)
			items_push(&wide, s->v[i].last, s->v[i].ptr);
		for (unsigned i = slot + 1; i <= p->end; i++)
			collect(p->slot[i], mt_slot_max(p, i, pmax), &wide);
		scratch_free(s->v);
		*s = wide;
		pos->n = p;
		pos->min = pmin;
		pos->max = pmax;
		pos->h++;
	}
}

/* Build the new sequence @s (freed here) into a subtree that takes pos->n's
 * place: the new root, or a child of pos->n's parent of the same height. */
static int store_rebuild(struct mtree *mt, const struct store_pos *pos, struct mt_items *s)
{
	struct mt_node *built, *p = pos->n->parent;
	uint64_t gap;

	if (!p) {
		unsigned h = root_height(s->n);

		built = build(s, 0, h, true, &gap);
		scratch_free(s->v);
		if (!built)
			return -ENOMEM;
		rcu_assign_pointer(mt->root, built);
		mt->height = h;
		return 0;
	}
	built = build(s, pos->min, pos->h, false, &gap);
	scratch_free(s->v);
	if (!built)
		return -ENOMEM;
	built->parent = p;
	built->parent_slot = pos->n->parent_slot;
	rcu_assign_pointer(p->slot[pos->n->parent_slot], built);
	p->gap[pos->n->parent_slot] = gap;
	mt_gap_update_up(p);
	return 0;
}

int mt_store_range(struct mtree *mt, uint64_t first, uint64_t last, void *entry)
{
	struct mt_items old = {0}, s = {0};
	struct store_pos pos;
	int err;

	if (first > last || (mt_is_reserved(entry) && !mt_is_zero(entry)))
		return -EINVAL;
	if (!mt->root)
		return entry ? store_empty(mt, first, last, entry) : 0;
	if (!entry)
		erase_take_empties(mt, &first, &last);
	pos = store_find(mt, first, last);
	if (store_in_place(&pos, first, last, entry))
		return 0;

	collect(pos.n, pos.max, &old);
	splice(&old, pos.min, first, last, entry, &s);
	store_widen(&pos, &s);
	scratch_free(old.v);

	if (!pos.n->parent && s.n == 1 && !s.v[0].ptr) {
		/* nothing left */
		scratch_free(s.v);
		mt_destroy(mt);
		return 0;
	}
	err = store_rebuild(mt, &pos, &s);
	if (err)
		return err;
	mt_gen_bump(mt);
	mt_retire_subtree(mt, pos.n);
	return 0;
}

int mt_erase(struct mtree *mt, uint64_t index, void **old)
{
	struct mt_range r;
	void *e = mt_load_range(mt, index, &r);

	if (old)
		*old = e;
	if (!e)
		return 0;
	return mt_store_range(mt, r.first, r.last, NULL);
}
