/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mt_validate: the one function that knows every invariant of the range tree
 * (listed in mtree.h). It keeps going after a failure, so in collect mode a
 * test sees every check that a hand-made corruption trips, and it never
 * follows a pointer it has found to be bad.
 */
#include "runtime/check.h"
#include "tree/mtree.h"
#include "tree/mtree_internal.h"

#include <inttypes.h>

struct vstate {
	const struct mtree *mt;
	bool ok;
	bool prev_empty; /* the previous range in index order was empty */
	bool any_entry;
	unsigned leaf_depth; /* 0 until the first leaf is seen */
};

#define VFAIL(vs, id, ...) ((vs)->ok = check_fail(CK_##id, __VA_ARGS__))

/* @n's own fields: depth, occupancy, pivots, unused slots. False when its
 * slots must not be read (too deep, or an end past the slots). */
static bool validate_fields(struct vstate *vs, const struct mt_node *n, uint64_t min, uint64_t max,
			    unsigned depth)
{
	unsigned end = n->end;

	if (depth > MT_MAX_HEIGHT) {
		VFAIL(vs, MT_LEAF_DEPTH, "node %p deeper than %d levels", (void *)n, MT_MAX_HEIGHT);
		return false;
	}
	if (end >= MT_SLOTS) {
		VFAIL(vs, MT_OCCUPANCY, "node %p end %u beyond %d slots", (void *)n, end, MT_SLOTS);
		return false;
	}
	if (n->parent && end + 1 < MT_MIN_SLOTS)
		VFAIL(vs, MT_OCCUPANCY, "node %p [%#" PRIx64 ", %#" PRIx64 "] holds %u slots, < %d",
		      (void *)n, min, max, end + 1, MT_MIN_SLOTS);
	if (!n->parent && !n->leaf && end < 1)
		VFAIL(vs, MT_OCCUPANCY, "internal root %p holds one child", (void *)n);

	for (unsigned i = 0; i < end; i++) {
		if (n->pivot[i] < min || n->pivot[i] >= max)
			VFAIL(vs, MT_PIVOT_RANGE,
			      "node %p pivot[%u] = %#" PRIx64 " outside [%#" PRIx64 ", %#" PRIx64
			      ")",
			      (void *)n, i, n->pivot[i], min, max);
		if (i && n->pivot[i] <= n->pivot[i - 1])
			VFAIL(vs, MT_PIVOT_ORDER,
			      "node %p pivot[%u] = %#" PRIx64 " <= pivot[%u] = %#" PRIx64,
			      (void *)n, i, n->pivot[i], i - 1, n->pivot[i - 1]);
	}
	for (unsigned i = end + 1; i < MT_SLOTS; i++)
		if (n->slot[i] || n->gap[i])
			VFAIL(vs, MT_SLOT_UNUSED, "node %p slot %u past end %u is not clear",
			      (void *)n, i, end);
	for (unsigned i = end; i < MT_PIVOTS; i++)
		if (n->pivot[i])
			VFAIL(vs, MT_SLOT_UNUSED, "node %p pivot[%u] past end %u is %#" PRIx64,
			      (void *)n, i, end, n->pivot[i]);
	return true;
}

/* The ranges of leaf @n spanning [min, max]; returns its largest gap. */
static uint64_t validate_leaf(struct vstate *vs, const struct mt_node *n, uint64_t min,
			      uint64_t max, unsigned depth)
{
	unsigned end = n->end;
	uint64_t best = 0;

	if (vs->leaf_depth == 0)
		vs->leaf_depth = depth;
	else if (depth != vs->leaf_depth)
		VFAIL(vs, MT_LEAF_DEPTH, "leaf %p at depth %u, another at %u", (void *)n, depth,
		      vs->leaf_depth);
	if (depth != vs->mt->height)
		VFAIL(vs, MT_LEAF_DEPTH, "leaf %p at depth %u, tree height %u", (void *)n, depth,
		      vs->mt->height);
	for (unsigned i = 0; i <= end; i++) {
		void *e = n->slot[i];
		uint64_t smin = mt_slot_min(n, i, min), smax = mt_slot_max(n, i, max);

		if (!e) {
			uint64_t g = mt_range_size(smin, smax);

			if (vs->prev_empty)
				VFAIL(vs, MT_ADJACENT_EMPTY,
				      "empty range [%#" PRIx64 ", %#" PRIx64
				      "] (leaf %p slot %u) follows another empty range",
				      smin, smax, (void *)n, i);
			if (g > best)
				best = g;
		} else {
			vs->any_entry = true;
			if (mt_is_reserved(e) && !mt_is_zero(e))
				VFAIL(vs, MT_INTERNAL_ENTRY,
				      "leaf %p slot %u holds reserved value %p", (void *)n, i, e);
		}
		vs->prev_empty = !e;
	}
	return best;
}

static uint64_t validate_node(struct vstate *vs, const struct mt_node *n, uint64_t min,
			      uint64_t max, unsigned depth);

/* The children of internal node @n spanning [min, max], their links and
 * gaps; returns the largest gap. */
static uint64_t validate_children(struct vstate *vs, const struct mt_node *n, uint64_t min,
				  uint64_t max, unsigned depth)
{
	unsigned end = n->end;
	uint64_t best = 0;

	for (unsigned i = 0; i <= end; i++) {
		const struct mt_node *c = n->slot[i];
		uint64_t smin = mt_slot_min(n, i, min), smax = mt_slot_max(n, i, max), g;

		if (!c || mt_is_reserved(c)) {
			VFAIL(vs, MT_CHILD_NULL, "internal node %p slot %u holds %p", (void *)n, i,
			      (void *)c);
			continue;
		}
		if (c->parent != n)
			VFAIL(vs, MT_PARENT_LINK, "child %p of %p (slot %u) names parent %p",
			      (void *)c, (void *)n, i, (void *)c->parent);
		if (c->parent_slot != i)
			VFAIL(vs, MT_PARENT_SLOT, "child %p in slot %u of %p names slot %u",
			      (void *)c, i, (void *)n, c->parent_slot);
		g = validate_node(vs, c, smin, smax, depth + 1);
		if (n->gap[i] != g)
			VFAIL(vs, MT_GAP,
			      "node %p gap[%u] = %#" PRIx64
			      ", child's largest empty range is %#" PRIx64,
			      (void *)n, i, n->gap[i], g);
		if (g > best)
			best = g;
	}
	return best;
}

/* Validates the subtree of @n spanning [min, max]; returns its largest gap. */
static uint64_t validate_node(struct vstate *vs, const struct mt_node *n, uint64_t min,
			      uint64_t max, unsigned depth)
{
	if (!validate_fields(vs, n, min, max, depth))
		return 0;
	if (n->leaf)
		return validate_leaf(vs, n, min, max, depth);
	return validate_children(vs, n, min, max, depth);
}

bool mt_validate(const struct mtree *mt)
{
	struct vstate vs = {.mt = mt, .ok = true};

	if (!mt->root) {
		if (mt->height)
			VFAIL(&vs, MT_EMPTY_ROOT, "empty tree has height %u", mt->height);
		return vs.ok;
	}
	if (mt->root->parent)
		VFAIL(&vs, MT_PARENT_LINK, "root %p names parent %p", (void *)mt->root,
		      (void *)mt->root->parent);
	validate_node(&vs, mt->root, 0, MT_MAX, 1);
	if (!vs.any_entry)
		VFAIL(&vs, MT_EMPTY_ROOT, "tree without entries keeps root %p", (void *)mt->root);
	return vs.ok;
}

static bool node_equal(const struct mt_node *a, const struct mt_node *b)
{
	if (a->leaf != b->leaf || a->end != b->end)
		return false;
	for (unsigned i = 0; i < MT_PIVOTS; i++)
		if (a->pivot[i] != b->pivot[i])
			return false;
	for (unsigned i = 0; i <= a->end; i++) {
		if (a->leaf) {
			if (a->slot[i] != b->slot[i])
				return false;
		} else if (a->gap[i] != b->gap[i] || !node_equal(a->slot[i], b->slot[i])) {
			return false;
		}
	}
	return true;
}

bool mt_equal(const struct mtree *a, const struct mtree *b)
{
	if (!a->root || !b->root)
		return !a->root && !b->root;
	return a->height == b->height && node_equal(a->root, b->root);
}

static uint64_t count_entries(const struct mt_node *n)
{
	uint64_t c = 0;

	for (unsigned i = 0; i <= n->end; i++)
		c += n->leaf ? n->slot[i] != NULL : count_entries(n->slot[i]);
	return c;
}

static uint64_t count_nodes(const struct mt_node *n)
{
	uint64_t c = 1;

	if (!n->leaf)
		for (unsigned i = 0; i <= n->end; i++)
			c += count_nodes(n->slot[i]);
	return c;
}

uint64_t mt_count_entries(const struct mtree *mt)
{
	return mt->root ? count_entries(mt->root) : 0;
}

uint64_t mt_count_nodes(const struct mtree *mt)
{
	return mt->root ? count_nodes(mt->root) : 0;
}

static void dump_node(FILE *out, const struct mt_node *n, uint64_t min, uint64_t max,
		      unsigned depth, void (*print_entry)(FILE *, const void *))
{
	fprintf(out, "%*s%s [%#" PRIx64 ", %#" PRIx64 "] %u slots\n", (int)depth * 2, "",
		n->leaf ? "leaf" : "node", min, max, n->end + 1u);
	for (unsigned i = 0; i <= n->end && i < MT_SLOTS; i++) {
		uint64_t smin = mt_slot_min(n, i, min), smax = mt_slot_max(n, i, max);

		if (!n->leaf) {
			fprintf(out, "%*s[%u] gap %#" PRIx64 "\n", (int)depth * 2 + 2, "", i,
				n->gap[i]);
			if (n->slot[i] && !mt_is_reserved(n->slot[i]))
				dump_node(out, n->slot[i], smin, smax, depth + 2, print_entry);
			continue;
		}
		fprintf(out, "%*s[%#" PRIx64 ", %#" PRIx64 "] ", (int)depth * 2 + 2, "", smin,
			smax);
		if (!n->slot[i])
			fputs("-", out);
		else if (mt_is_zero(n->slot[i]))
			fputs("ZERO", out);
		else if (print_entry)
			print_entry(out, n->slot[i]);
		else
			fprintf(out, "%p", n->slot[i]);
		fputc('\n', out);
	}
}

void mt_dump(FILE *out, const struct mtree *mt, void (*print_entry)(FILE *, const void *))
{
	if (!mt->root) {
		fputs("(empty tree)\n", out);
		return;
	}
	fprintf(out, "tree height %u, %" PRIu64 " entries\n", mt->height, mt_count_entries(mt));
	dump_node(out, mt->root, 0, MT_MAX, 0, print_entry);
}
