/*
 * Bulk building by in-order append: the algorithm dup_mmap used before tree
 * duplication (mas_expected_entries, then one store per VMA). Nodes come
 * from a pool preallocated for the expected count; every level keeps its
 * rightmost ("open") node, an append fills the open leaf, and a full node is
 * closed into its parent and replaced by a new empty one. Closed nodes are
 * full, so at the end each under-filled open node takes slots from its full
 * left neighbour, and the right edge is rebalanced.
 */
#include "mtree_internal.h"

#include "check.h"
#include "sync.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int bulk_reserve(struct mt_bulk *b, unsigned need)
{
	while (b->npool < need) {
		struct mt_node *n;

		if (b->npool == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 16;
			b->pool = realloc(b->pool, b->cap * sizeof(*b->pool));
			MODEL_ASSERT(b->pool != NULL);
		}
		n = mt_node_alloc(false);
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

int mt_bulk_begin(struct mt_bulk *b, struct mtree *mt, uint64_t expected)
{
	uint64_t ranges = 2 * expected + 1, nodes = 2;

	MODEL_ASSERT(mt->root == NULL);
	memset(b, 0, sizeof(*b));
	b->mt = mt;
	do {
		ranges = ranges / MT_SLOTS + (ranges % MT_SLOTS != 0);
		nodes += ranges;
	} while (ranges > 1);
	if (bulk_reserve(b, (unsigned)nodes)) {
		bulk_release(b);
		return -ENOMEM;
	}
	return 0;
}

static void node_put(struct mt_node *n, unsigned i, void *ptr, uint64_t gap)
{
	n->slot[i] = ptr;
	if (!n->leaf) {
		struct mt_node *c = ptr;

		c->parent = n;
		c->parent_slot = (uint8_t)i;
		n->gap[i] = gap;
	}
}

/* Add (last, ptr) to the open node of @level, closing it first if full. */
static void bulk_push(struct mt_bulk *b, unsigned level, uint64_t last, void *ptr, uint64_t gap)
{
	struct mt_node *n = b->open[level];

	MODEL_ASSERT(level < MT_MAX_HEIGHT - 1 && b->npool > 0);
	if (n && n->end == MT_SLOTS - 1) {
		uint64_t min = b->open_min[level], max = b->open_last[level];

		bulk_push(b, level + 1, max, n, mt_node_max_gap(n, min, max));
		b->open_min[level] = max + 1;
		n = NULL;
	}
	if (!n) {
		n = b->pool[--b->npool];
		n->leaf = level == 0;
		b->open[level] = n;
		if (level + 1 > b->levels)
			b->levels = level + 1;
		node_put(n, 0, ptr, gap);
	} else {
		n->pivot[n->end] = b->open_last[level];
		n->end++;
		node_put(n, n->end, ptr, gap);
	}
	b->open_last[level] = last;
}

int mt_bulk_append(struct mt_bulk *b, uint64_t first, uint64_t last, void *entry)
{
	uint64_t next = b->any ? b->tail + 1 : 0;

	if (!entry || (mt_is_reserved(entry) && !mt_is_zero(entry)) || first > last)
		return -EINVAL;
	if (b->any && (b->tail == MT_MAX || first <= b->tail))
		return -EINVAL;
	/* Enough for this append's two stores and for bulk_end, each of which
	 * may close a node on every level and add a root: reserved before
	 * anything changes, so a failure leaves the build as it was. */
	if (bulk_reserve(b, 4 * (b->levels + 3)))
		return -ENOMEM;
	if (first > next)
		bulk_push(b, 0, first - 1, NULL, 0);
	bulk_push(b, 0, last, entry, 0);
	b->tail = last;
	b->any = true;
	return 0;
}

/* The node left of @n on the same level (n is not the leftmost). */
static struct mt_node *left_neighbour(struct mt_node *n)
{
	unsigned up = 0;

	while (n->parent_slot == 0) {
		n = n->parent;
		up++;
	}
	n = n->parent->slot[n->parent_slot - 1];
	while (up--)
		n = n->slot[n->end];
	return n;
}

/*
 * Move slots from the end of the full node @s to the front of its right
 * neighbour @r so both end at least half full, and move their boundary,
 * which is the pivot of their lowest common ancestor.
 */
static void take_from_left(struct mt_node *s, struct mt_node *r)
{
	unsigned total = s->end + 1u + r->end + 1u, keep = (total + 1) / 2;
	unsigned k = s->end + 1u - keep, rn = r->end + 1u;
	struct mt_node *ps = s, *pr = r;
	uint64_t old_boundary, new_boundary = s->pivot[keep - 1];

	while (ps->parent != pr->parent) {
		ps = ps->parent;
		pr = pr->parent;
	}
	old_boundary = ps->parent->pivot[ps->parent_slot];
	ps->parent->pivot[ps->parent_slot] = new_boundary;

	memmove(&r->slot[k], &r->slot[0], rn * sizeof(r->slot[0]));
	memmove(&r->gap[k], &r->gap[0], rn * sizeof(r->gap[0]));
	memmove(&r->pivot[k], &r->pivot[0], (rn - 1) * sizeof(r->pivot[0]));
	for (unsigned j = 0; j < k; j++) {
		unsigned from = keep + j;

		r->slot[j] = s->slot[from];
		r->gap[j] = s->gap[from];
		r->pivot[j] = from < s->end ? s->pivot[from] : old_boundary;
		s->slot[from] = NULL;
		s->gap[from] = 0;
		if (from < MT_PIVOTS)
			s->pivot[from] = 0;
	}
	s->pivot[keep - 1] = 0;
	s->end = (uint8_t)(keep - 1);
	r->end = (uint8_t)(rn + k - 1);
	if (!r->leaf)
		for (unsigned j = 0; j <= r->end; j++) {
			struct mt_node *c = r->slot[j];

			c->parent = r;
			c->parent_slot = (uint8_t)j;
		}
}

void mt_bulk_end(struct mt_bulk *b)
{
	struct mtree *mt = b->mt;
	struct mt_node *root;

	if (!b->any) {
		bulk_release(b);
		return;
	}
	if (b->tail != MT_MAX)
		bulk_push(b, 0, MT_MAX, NULL, 0);
	/* hand every open node to the open node above it */
	for (unsigned l = 0; l + 1 < b->levels; l++) {
		struct mt_node *n = b->open[l];

		bulk_push(b, l + 1, b->open_last[l], n,
			  mt_node_max_gap(n, b->open_min[l], b->open_last[l]));
	}
	root = b->open[b->levels - 1];
	root->parent = NULL;
	root->parent_slot = 0;
	rcu_assign_pointer(mt->root, root);
	mt->height = b->levels;
	for (unsigned l = 0; l + 1 < b->levels; l++) {
		struct mt_node *r = b->open[l];

		if (r->end + 1u < MT_MIN_SLOTS) {
			struct mt_node *s = left_neighbour(r);

			take_from_left(s, r);
			mt_gap_update_up(s);
		}
		mt_gap_update_up(r);
	}
	mt_gen_bump(mt);
	bulk_release(b);
}
