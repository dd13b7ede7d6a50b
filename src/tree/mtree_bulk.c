/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bulk building by in-order append: how dup_mmap filled the child's tree
 * before tree duplication. mas_expected_entries preallocated nodes for the
 * parent's VMA count, then each VMA went in by the tree's ordinary store
 * (vma_iter_bulk_store, that is mas_store), one at a time, with the tree
 * out of RCU mode (mt_clear_in_rcu: no reader can reach the child yet).
 * This file does what that store did, step for step, on this tree:
 *
 *   - the store starts from the rightmost leaf, where the last one ended,
 *     and finds the slot of each end of the new range by scanning pivots;
 *   - an entry right after the last one is appended in place (mas_wr_append);
 *     otherwise, if the leaf has room, its new contents are built in a
 *     scratch node and copied back (mas_wr_node_store out of RCU mode);
 *   - either way the leaf's largest gap is recomputed and handed up while it
 *     changes (mas_update_gap);
 *   - a full leaf is split the way bulk mode splits (mas_split with
 *     MA_STATE_BULK): the left node keeps all but the minimum, the right one
 *     gets the minimum (one more if the left leaf would end in an empty
 *     range), both are new nodes, and the parent is rebuilt as a
 *     new node holding one more child (mas_split_final_node), which adopts
 *     its children; a full parent splits the same way, up to a new root;
 *   - a replaced node goes back to the preallocated pool for the next split
 *     (mas_push_node, as the tree is not in RCU mode).
 *
 * The tree is valid after every append. Every node an append may need is
 * reserved before it changes anything, so a failed append leaves the tree
 * as the previous one left it.
 */
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"
#include "tree/mtree_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One slot's worth: the range's last index, the entry or child, its gap. */
struct bulk_item {
	uint64_t last;
	void *ptr;
	uint64_t gap;
};

static void pool_grow(struct mt_bulk *b, unsigned need)
{
	if (need <= b->cap)
		return;
	while (b->cap < need)
		b->cap = b->cap ? 2 * b->cap : 16;
	b->pool = realloc(b->pool, b->cap * sizeof(*b->pool));
	MODEL_ASSERT(b->pool != NULL);
}

static int bulk_reserve(struct mt_bulk *b, unsigned need)
{
	pool_grow(b, need);
	while (b->npool < need) {
		struct mt_node *n = mt_node_alloc(false);

		if (!n)
			return -ENOMEM;
		b->pool[b->npool++] = n;
	}
	return 0;
}

static void bulk_release(struct mt_bulk *b)
{
	while (b->npool)
		mt_node_free(b->pool[--b->npool]);
	free(b->pool);
	b->pool = NULL;
	b->cap = 0;
}

static struct mt_node *pool_take(struct mt_bulk *b)
{
	MODEL_ASSERT(b->npool > 0);
	return b->pool[--b->npool];
}

static void pool_put(struct mt_bulk *b, struct mt_node *n)
{
	memset(n, 0, sizeof(*n));
	pool_grow(b, b->npool + 1);
	b->pool[b->npool++] = n;
}

int mt_bulk_begin(struct mt_bulk *b, struct mtree *mt, uint64_t expected)
{
	/* as mas_expected_entries: a gap beside every entry, leaves two
	 * slots short of full, the levels above, and room for a split */
	uint64_t ranges = 2 * expected + 1, nodes = 3;

	MODEL_ASSERT(mt->root == NULL);
	memset(b, 0, sizeof(*b));
	b->mt = mt;
	ranges = ranges / (MT_SLOTS - 2) + (ranges % (MT_SLOTS - 2) != 0);
	nodes += ranges;
	while (ranges > 1) {
		ranges = ranges / (MT_SLOTS - 2) + (ranges % (MT_SLOTS - 2) != 0);
		nodes += ranges;
	}
	if (bulk_reserve(b, (unsigned)nodes)) {
		bulk_release(b);
		return -ENOMEM;
	}
	return 0;
}

/* Fill the clean node @n with @cnt items; an internal node adopts them. */
static void fill_node(struct mt_node *n, bool leaf, const struct bulk_item *it, unsigned cnt)
{
	MODEL_ASSERT(cnt >= 1 && cnt <= MT_SLOTS);
	n->leaf = leaf;
	n->end = (uint8_t)(cnt - 1);
	for (unsigned i = 0; i < cnt; i++) {
		n->slot[i] = it[i].ptr;
		if (i + 1 < cnt)
			n->pivot[i] = it[i].last;
		if (!leaf) {
			struct mt_node *c = it[i].ptr;

			c->parent = n;
			c->parent_slot = (uint8_t)i;
			n->gap[i] = it[i].gap;
		}
	}
}

/* The items of @n's slots before @upto (the rightmost node: no max needed). */
static unsigned node_items(const struct mt_node *n, unsigned upto, struct bulk_item *it)
{
	for (unsigned i = 0; i < upto; i++) {
		it[i].last = n->pivot[i];
		it[i].ptr = n->slot[i];
		it[i].gap = n->leaf ? 0 : n->gap[i];
	}
	return upto;
}

/*
 * @old, a node on the right edge, is to hold @it[0..cnt), one item too many:
 * split it into two new nodes and give its parent one more child, splitting
 * upwards while the parent is full too.
 */
static void split_up(struct mt_bulk *b, struct mt_node *old, struct bulk_item *it, unsigned cnt)
{
	struct mtree *mt = b->mt;
	struct bulk_item up[MT_SLOTS + 1];

	for (;;) {
		struct mt_node *parent = old->parent, *l, *r;
		unsigned ps = old->parent_slot, split = cnt - MT_MIN_SLOTS;
		bool leaf = old->leaf;
		uint64_t min, max;

		mt_node_bounds(old, &min, &max);
		/* a left leaf does not end in an empty range (mab_calc_split) */
		if (leaf && !it[split - 1].ptr)
			split--;
		l = pool_take(b);
		fill_node(l, leaf, it, split);
		r = pool_take(b);
		fill_node(r, leaf, it + split, cnt - split);
		if (leaf) {
			b->leaf = r;
			b->leaf_min = it[split - 1].last + 1;
		}
		pool_put(b, old);

		if (!parent) {
			struct mt_node *root = pool_take(b);
			struct bulk_item two[2] = {
			    {it[split - 1].last, l, mt_node_max_gap(l, min, it[split - 1].last)},
			    {max, r, mt_node_max_gap(r, it[split - 1].last + 1, max)},
			};

			fill_node(root, false, two, 2);
			rcu_assign_pointer(mt->root, root);
			mt->height++;
			return;
		}
		/* the parent's children up to the split one, then the two halves */
		cnt = node_items(parent, ps, up);
		up[cnt++] = (struct bulk_item){it[split - 1].last, l,
					       mt_node_max_gap(l, min, it[split - 1].last)};
		up[cnt++] =
		    (struct bulk_item){max, r, mt_node_max_gap(r, it[split - 1].last + 1, max)};
		if (cnt <= MT_SLOTS) {
			struct mt_node *np = pool_take(b), *gp = parent->parent;

			fill_node(np, false, up, cnt);
			np->parent = gp;
			np->parent_slot = parent->parent_slot;
			if (gp)
				rcu_assign_pointer(gp->slot[np->parent_slot], np);
			else
				rcu_assign_pointer(mt->root, np);
			pool_put(b, parent);
			mt_gap_update_up(np);
			return;
		}
		memcpy(it, up, cnt * sizeof(*it));
		old = parent;
	}
}

/* The first store: a leaf root holding the range and the empty ones around it. */
static void store_first(struct mt_bulk *b, uint64_t first, uint64_t last, void *entry)
{
	struct bulk_item it[3];
	unsigned cnt = 0;
	struct mt_node *n = pool_take(b);

	if (first)
		it[cnt++] = (struct bulk_item){first - 1, NULL, 0};
	it[cnt++] = (struct bulk_item){last, entry, 0};
	if (last != MT_MAX)
		it[cnt++] = (struct bulk_item){MT_MAX, NULL, 0};
	fill_node(n, true, it, cnt);
	rcu_assign_pointer(b->mt->root, n);
	b->mt->height = 1;
	b->leaf = n;
	b->leaf_min = 0;
}

/* The leaf's largest gap to its parent, and up while it changes. Like the
 * store's state, the build knows the leaf's bounds: [leaf_min, MT_MAX]. */
static void leaf_gap_update(struct mt_bulk *b)
{
	struct mt_node *leaf = b->leaf;
	uint64_t g;

	if (!leaf->parent)
		return;
	g = mt_node_max_gap(leaf, b->leaf_min, MT_MAX);
	if (leaf->parent->gap[leaf->parent_slot] == g)
		return;
	leaf->parent->gap[leaf->parent_slot] = g;
	mt_gap_update_up(leaf->parent);
}

int mt_bulk_append(struct mt_bulk *b, uint64_t first, uint64_t last, void *entry)
{
	struct mt_node *leaf = b->leaf;
	struct bulk_item it[MT_SLOTS + 3];
	unsigned off, cnt;

	if (!entry || (mt_is_reserved(entry) && !mt_is_zero(entry)) || first > last)
		return -EINVAL;
	if (b->any && (b->tail == MT_MAX || first <= b->tail))
		return -EINVAL;
	/* a split may renew two nodes a level and add a root */
	if (bulk_reserve(b, 2 * (b->mt->height + 1) + 1))
		return -ENOMEM;
	b->any = true;
	b->tail = last;
	mt_gen_bump(b->mt);
	if (!leaf) {
		store_first(b, first, last, entry);
		return 0;
	}

	/* the walk: both ends fall in the leaf's last slot, the empty tail */
	off = mt_slot_of(leaf, first);
	MODEL_ASSERT(off == leaf->end && !leaf->slot[off] && mt_slot_of(leaf, last) == off);
	cnt = node_items(leaf, off, it);
	if (first > mt_slot_min(leaf, off, b->leaf_min))
		it[cnt++] = (struct bulk_item){first - 1, NULL, 0};
	it[cnt++] = (struct bulk_item){last, entry, 0};
	if (last != MT_MAX)
		it[cnt++] = (struct bulk_item){MT_MAX, NULL, 0};

	if (cnt > MT_SLOTS) {
		split_up(b, leaf, it, cnt);
	} else if (cnt == leaf->end + 2u) {
		/* one slot more: written past the end, in place */
		leaf->slot[cnt - 1] = it[cnt - 1].ptr;
		leaf->pivot[cnt - 2] = it[cnt - 2].last;
		leaf->slot[cnt - 2] = it[cnt - 2].ptr;
		leaf->end = (uint8_t)(cnt - 1);
		leaf_gap_update(b);
	} else {
		/* built in a scratch node, then copied over the leaf */
		struct mt_node scratch;

		memset(&scratch, 0, sizeof(scratch));
		scratch.parent = leaf->parent;
		scratch.parent_slot = leaf->parent_slot;
		fill_node(&scratch, true, it, cnt);
		memcpy(leaf, &scratch, sizeof(scratch));
		leaf_gap_update(b);
	}
	return 0;
}

void mt_bulk_end(struct mt_bulk *b)
{
	bulk_release(b);
}
