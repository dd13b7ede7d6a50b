/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interval tree: closed intervals [first, last] in a balanced search
 * tree, ordered by first and then by a tie value the owner gives (an id,
 * never an address, so the order is the same in every run). Each node
 * keeps the largest last of its subtree, so an overlap query skips every
 * subtree that ends before the range it asks for.
 *
 * The kernel keeps a file's i_mmap and an anon_vma's chain entries in
 * such trees (augmented red-black trees, interval_tree_generic.h); this
 * one is an AVL tree. Nodes are embedded in their owners. An owner whose
 * interval changes is removed and inserted again, as the kernel's
 * pre/post update of a VMA does. No operation has a scheduling point.
 */
#ifndef VMAFUZZ_ITREE_H
#define VMAFUZZ_ITREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct itree_node {
	struct itree_node *left, *right;
	uint64_t first, last; /* the interval, closed */
	uint64_t max_last;    /* the largest last in this subtree */
	uint32_t tie;	      /* orders equal firsts */
	int height;	      /* of this subtree; 0: not in a tree */
};

struct itree {
	struct itree_node *root;
	unsigned count;
};

#define itree_entry(n, type, member) ((type *)((char *)(n)-offsetof(type, member)))

void itree_insert(struct itree *t, struct itree_node *n, uint64_t first, uint64_t last,
		  uint32_t tie);
/* @n must be in @t, found by its key as inserted. */
void itree_remove(struct itree *t, struct itree_node *n);
/* Is @n in @t where its key says it is? */
bool itree_contains(const struct itree *t, const struct itree_node *n);

/* fn(n, arg) for every node overlapping [first, last], in key order, until
 * it returns false; returns false when it was stopped so. */
typedef bool (*itree_fn)(struct itree_node *n, void *arg);
bool itree_visit(const struct itree *t, uint64_t first, uint64_t last, itree_fn fn, void *arg);
/* Every node, in key order (the same contract). */
bool itree_each(const struct itree *t, itree_fn fn, void *arg);

/* NULL when @t is sound (order, subtree maxima, heights, balance, count),
 * else what is wrong, in a static buffer. */
const char *itree_validate(const struct itree *t);

#endif
