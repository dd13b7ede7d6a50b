/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tree duplication in one depth-first pre-order pass (the seed's __mt_dup):
 * each node is copied whole, then its children are copied in slot order, so
 * the cost is one allocation and one copy per node, with no search and no
 * rebalancing. On failure the partial copy is freed and the source is never
 * written.
 */
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"
#include "tree/mtree_internal.h"

#include <errno.h>
#include <string.h>

static struct mt_node *dup_node(const struct mt_node *src, struct mt_node *parent, unsigned slot)
{
	struct mt_node *n = mt_node_alloc(src->leaf);

	if (!n)
		return NULL;
	memcpy(n, src, sizeof(*n));
	n->parent = parent;
	n->parent_slot = (uint8_t)slot;
	if (n->leaf)
		return n;
	/* children still point into the source until copied: clear first */
	memset(n->slot, 0, sizeof(n->slot));
	for (unsigned i = 0; i <= src->end; i++) {
		n->slot[i] = dup_node(src->slot[i], n, i);
		if (!n->slot[i]) {
			mt_free_subtree(n); /* frees the children copied so far */
			return NULL;
		}
	}
	return n;
}

int mt_dup(const struct mtree *src, struct mtree *dst)
{
	MODEL_ASSERT(dst->root == NULL);
	if (!src->root)
		return 0;

	struct mt_node *root = dup_node(src->root, NULL, 0);

	if (!root)
		return -ENOMEM;
	rcu_assign_pointer(dst->root, root);
	dst->height = src->height;
	mt_gen_bump(dst);
	return 0;
}
