/* SPDX-License-Identifier: GPL-2.0 */
/* Exact snapshots of a tree's layout and contents (mtree.h). */
#include "runtime/check.h"
#include "tree/mtree.h"

#include <errno.h>
#include <inttypes.h>

#include <stdlib.h>
#include <string.h>

void mt_snapshot_put(struct mt_snapshot *s, uint64_t w)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->w = realloc(s->w, s->cap * sizeof(*s->w));
		MODEL_ASSERT(s->w != NULL);
	}
	s->w[s->n++] = w;
}

static void snap_node(const struct mt_node *n, struct mt_snapshot *s)
{
	mt_snapshot_put(s, (uint64_t)n->leaf << 8 | n->end);
	for (unsigned i = 0; i < MT_PIVOTS; i++)
		mt_snapshot_put(s, n->pivot[i]);
	for (unsigned i = 0; i <= n->end; i++) {
		if (n->leaf) {
			mt_snapshot_put(s, (uint64_t)(uintptr_t)n->slot[i]);
		} else {
			mt_snapshot_put(s, n->gap[i]);
			snap_node(n->slot[i], s);
		}
	}
}

void mt_snapshot_take(const struct mtree *mt, struct mt_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	mt_snapshot_put(s, mt->height);
	if (mt->root)
		snap_node(mt->root, s);
}

bool mt_snapshot_equal(const struct mt_snapshot *a, const struct mt_snapshot *b)
{
	return a->n == b->n && !memcmp(a->w, b->w, a->n * sizeof(*a->w));
}

void mt_snapshot_free(struct mt_snapshot *s)
{
	free(s->w);
	memset(s, 0, sizeof(*s));
}

bool mt_check_dup(const struct mtree *src, const struct mtree *dup)
{
	if (mt_equal(src, dup))
		return true;
	return check_fail(CK_MT_DUP_MISMATCH,
			  "duplicate (%" PRIu64 " nodes, height %u) differs "
			  "from its source (%" PRIu64 " nodes, height %u)",
			  mt_count_nodes(dup), dup->height, mt_count_nodes(src), src->height);
}
