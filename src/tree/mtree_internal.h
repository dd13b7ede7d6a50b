/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the files of the range tree; not for users of mtree.h. */
#ifndef VMAFUZZ_MTREE_INTERNAL_H
#define VMAFUZZ_MTREE_INTERNAL_H

/* First and last index of slot @i of a node that spans [min, max]. */
/* The layout generation: bumped by writers (under the tree's lock), read
 * by cursors that may walk under RCU alone, hence atomic. */
static inline uint64_t mt_gen(const struct mtree *mt)
{
	return __atomic_load_n(&mt->gen, __ATOMIC_RELAXED);
}

static inline void mt_gen_bump(struct mtree *mt)
{
	__atomic_store_n(&mt->gen, mt->gen + 1, __ATOMIC_RELAXED);
}

static inline uint64_t mt_slot_min(const struct mt_node *n, unsigned i, uint64_t min)
{
	return i ? n->pivot[i - 1] + 1 : min;
}

static inline uint64_t mt_slot_max(const struct mt_node *n, unsigned i, uint64_t max)
{
	return i < n->end ? n->pivot[i] : max;
}

/* Number of indices in [first, last], saturating at UINT64_MAX. */
static inline uint64_t mt_range_size(uint64_t first, uint64_t last)
{
	uint64_t d = last - first;

	return d == UINT64_MAX ? UINT64_MAX : d + 1;
}

/* Slot of a node spanning [min, max] that holds @index (linear: 16 slots). */
static inline unsigned mt_slot_of(const struct mt_node *n, uint64_t index)
{
	unsigned i = 0;

	while (i < n->end && n->pivot[i] < index)
		i++;
	return i;
}

/* Largest empty range below a node that spans [min, max]. */
uint64_t mt_node_max_gap(const struct mt_node *n, uint64_t min, uint64_t max);
/* Bounds of a node, from its ancestors' pivots. */
void mt_node_bounds(const struct mt_node *n, uint64_t *min, uint64_t *max);
/* Recompute gap[] from @n up to the root, stopping early when unchanged. */
void mt_gap_update_up(struct mt_node *n);
struct mt_node *mt_node_alloc(bool leaf);
void mt_node_free(struct mt_node *n);
void mt_free_subtree(struct mt_node *n);
/* Free nodes that readers may still see: after a grace period in RCU mode. */
void mt_retire_subtree(struct mtree *mt, struct mt_node *n);

#endif
