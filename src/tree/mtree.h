/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A range tree shaped like the kernel's maple tree: a B-tree that maps every
 * index of [0, UINT64_MAX] to an entry or to nothing (NULL), as a sequence of
 * ranges.
 *
 * Node layout (one node type, sizes beside the constants):
 *
 *          slot[0]    slot[1]    slot[2]   ...   slot[end]
 *       |----------|----------|----------|     |------------|
 *      min     pivot[0]   pivot[1]   pivot[2]               max
 *
 *   slot i covers [pivot[i-1] + 1, pivot[i]], slot 0 starts at the node's
 *   min and slot `end` ends at the node's max. A node does not store its own
 *   min and max: they are the bounds of the parent's slot that holds it, and
 *   [0, UINT64_MAX] for the root. So moving the boundary between two
 *   subtrees is one pivot write in their lowest common ancestor.
 *   In a leaf a slot is an entry or NULL; in an internal node it is a child,
 *   and gap[i] is the size of the largest empty range below that child.
 *
 * Invariants (checked by mt_validate, each with its own identifier):
 *   - pivots strictly ascend and lie inside [min, max) of their node;
 *   - slots, pivots and gaps past `end` are clear;
 *   - every child's parent pointer and parent slot name where it is held;
 *   - all leaves are at the same depth, the tree's height;
 *   - nodes other than the root hold at least MT_MIN_SLOTS slots; an internal
 *     root holds at least two;
 *   - gap[] equals the largest empty range of each child (saturating at
 *     UINT64_MAX for the whole space);
 *   - no two adjacent ranges are both empty, across leaves too: each maximal
 *     range of the sequence is exactly one slot, so a leaf boundary is always
 *     a range boundary;
 *   - a tree with no entries has no nodes.
 *
 * Writes never change a node in place except to replace one entry by another
 * over the same range: a write builds the new nodes of the smallest subtree
 * that can absorb the change and swaps them in, so a concurrent reader sees
 * either the old or the new subtree (the RCU discipline of the kernel). The
 * bulk append (mtree_bulk.c) is the exception, as the kernel's store out of
 * RCU mode is: it fills a tree no reader can reach yet.
 *
 * Entries are any non-NULL pointer whose two low bits are not 0b10; values
 * with those bits are reserved, and MT_ZERO_ENTRY is the only one a caller
 * may store: it is a marker, returned by walks like an entry and never equal
 * to a real one (the kernel's XA_ZERO_ENTRY).
 */
#ifndef VMAFUZZ_MTREE_H
#define VMAFUZZ_MTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/check.h"
#define MT_SLOTS 16    /* slots per node */
#define MT_PIVOTS 15   /* stored pivots per node: the last slot's end is implied */
#define MT_MIN_SLOTS 6 /* minimum occupancy of a non-root node */
#define MT_FILL 12     /* slots per node when a subtree is (re)built: room to grow */
#define MT_MAX_HEIGHT 24

#define MT_MAX UINT64_MAX

#define MT_ZERO_ENTRY ((void *)(uintptr_t)0x402)

static inline bool mt_is_reserved(const void *entry)
{
	return ((uintptr_t)entry & 3) == 2;
}

static inline bool mt_is_zero(const void *entry)
{
	return entry == MT_ZERO_ENTRY;
}

struct mt_node {
	struct mt_node *parent; /* NULL for the root */
	uint8_t parent_slot;
	uint8_t leaf;
	uint8_t end; /* index of the last used slot */
	uint64_t pivot[MT_PIVOTS];
	void *slot[MT_SLOTS];
	uint64_t gap[MT_SLOTS]; /* internal nodes only */
};

struct mtree {
	struct mt_node *root; /* NULL: no entries */
	unsigned height;      /* levels of nodes; 0 when empty */
	uint64_t gen;	      /* bumped by every change of layout */
	bool rcu;	      /* replaced nodes go through call_rcu_free */
};

struct mt_range {
	uint64_t first, last;
};

void mt_init(struct mtree *mt);
/*
 * RCU mode (the kernel's MT_FLAGS_USE_RCU): nodes a write replaces are freed
 * only after a grace period, so readers inside rcu_read_lock() may walk the
 * tree while one writer (holding the tree's lock) changes it.
 */
void mt_set_rcu(struct mtree *mt, bool on);
bool mt_empty(const struct mtree *mt);

/*
 * Map [first, last] to @entry, overwriting whatever the range overlaps; a
 * NULL entry erases. Returns 0, -EINVAL (first > last, or a reserved entry
 * other than MT_ZERO_ENTRY) or -ENOMEM (the tree is then unchanged).
 */
int mt_store_range(struct mtree *mt, uint64_t first, uint64_t last, void *entry);
/* Erase the range that holds @index; *old gets the erased entry. */
int mt_erase(struct mtree *mt, uint64_t index, void **old);

void *mt_load(const struct mtree *mt, uint64_t index);
/* Entry (or NULL) at @index, and in *r the whole range holding it. */
void *mt_load_range(const struct mtree *mt, uint64_t index, struct mt_range *r);
/* First entry whose range meets [from, max], or NULL; its range in *r. */
void *mt_find(const struct mtree *mt, uint64_t from, uint64_t max, struct mt_range *r);
/* Last entry whose range meets [min, from], or NULL; its range in *r. */
void *mt_find_prev(const struct mtree *mt, uint64_t from, uint64_t min, struct mt_range *r);

/*
 * Lowest (highest) start of an empty range of @size indices inside [lo, hi].
 * Returns 0 with *start set, -EBUSY when there is none, -EINVAL when size is
 * 0 or lo > hi. Logarithmic: subtrees whose gap is too small are skipped.
 */
int mt_gap_lowest(const struct mtree *mt, uint64_t lo, uint64_t hi, uint64_t size, uint64_t *start);
int mt_gap_highest(const struct mtree *mt, uint64_t lo, uint64_t hi, uint64_t size,
		   uint64_t *start);

/*
 * Walk the entries meeting [from, to] under RCU (the caller holds
 * rcu_read_lock and no lock of the tree), with a scheduling point before
 * each node is read, as a reader that is preempted mid-walk. It keeps
 * reading the node it reached even if a writer replaced it meanwhile: that
 * node stays valid until the grace period, and holds the entries before the
 * write. From one leaf to the next it descends again from the root at the
 * index after the leaf, so in a tree changed meanwhile the next range may
 * start before that index: ranges ascend by their last index. @visit
 * returns false to stop.
 */
typedef bool (*mt_visit_fn)(void *arg, const struct mt_range *r, void *entry);
void mt_rcu_walk(const struct mtree *mt, uint64_t from, uint64_t to, mt_visit_fn visit, void *arg);

/*
 * Cursor over the entries in index order. It caches the leaf it is in and
 * re-walks from the root when the tree's layout changed in between.
 */
struct mt_cursor {
	struct mtree *mt;
	uint64_t index;	       /* where the next search starts */
	bool done;	       /* walked past MT_MAX */
	struct mt_range range; /* range of the entry last returned */
	/* cache */
	const struct mt_node *leaf;
	uint64_t leaf_min, leaf_max, gen;
	unsigned slot; /* slot of the entry last returned */
};

void mt_cursor_init(struct mt_cursor *c, struct mtree *mt, uint64_t index);
void mt_cursor_reset(struct mt_cursor *c, uint64_t index);
/* Next entry at or after the cursor's index, or NULL at the end. */
void *mt_cursor_next(struct mt_cursor *c);
/*
 * Replace the entry last returned by a non-NULL @entry over the same range,
 * in place (no allocation, cannot fail). The layout must not have changed
 * since that entry was returned.
 */
void mt_cursor_replace(struct mt_cursor *c, void *entry);

/*
 * Duplicate @src into the empty tree @dst in one depth-first pre-order pass
 * that copies nodes: O(nodes), no re-insertion. On allocation failure frees
 * everything it built, leaves @dst empty and returns -ENOMEM.
 */
int mt_dup(const struct mtree *src, struct mtree *dst);

/*
 * Bulk building by appending in ascending order, the way dup_mmap filled the
 * child's tree before tree duplication: nodes for @expected entries are
 * preallocated, then each append is the tree's store at the right edge,
 * as mas_store did it out of RCU mode (mtree_bulk.c). Only for a tree no
 * reader can reach until mt_bulk_end, whatever its RCU flag: the rightmost
 * leaf is written in place and replaced nodes are reused at once. Fork
 * builds a child no one can look up yet; fuzz_mtree's bulk operation has no
 * scheduling point between begin and end.
 */
struct mt_bulk {
	struct mtree *mt;
	struct mt_node *leaf; /* the rightmost leaf: where the next store starts */
	uint64_t leaf_min;    /* its first index (its last is MT_MAX) */
	bool any;	      /* something was appended */
	uint64_t tail;	      /* last index appended */
	struct mt_node **pool;
	unsigned npool, cap;
};

/* @mt must be empty. -ENOMEM if the preallocation fails (nothing changed). */
int mt_bulk_begin(struct mt_bulk *b, struct mtree *mt, uint64_t expected);
/* Append [first, last] -> entry above everything appended so far.
 * -EINVAL when out of order or entry is NULL/reserved; -ENOMEM. */
int mt_bulk_append(struct mt_bulk *b, uint64_t first, uint64_t last, void *entry);
/* Finish: the tree holds everything appended; unused nodes are freed. */
void mt_bulk_end(struct mt_bulk *b);

/* Free every node (not the entries). */
void mt_destroy(struct mtree *mt);
/*
 * Free the scratch arrays this thread's writes keep for the next write.
 * Between two programs (fuzz/targets/exec.c): the first writes of a program then
 * allocate as they did in the process's first program, whatever ran before.
 */
void mt_scratch_release(void);

/* Check every invariant above; reports through check_fail(), true if valid. */
bool mt_validate(const struct mtree *mt);
/* Node-for-node equality (shape, pivots, entries, gaps). */
bool mt_equal(const struct mtree *a, const struct mtree *b);

/*
 * A snapshot is the tree written out node by node in pre-order (shape,
 * pivots, gaps, entries), so that "unchanged" can be checked exactly after
 * an operation that must not write the tree (a failed dup or store).
 */
struct mt_snapshot {
	uint64_t *w;
	size_t n, cap;
};

void mt_snapshot_take(const struct mtree *mt, struct mt_snapshot *s);
/* Append one word (other snapshots of the model are built the same way). */
void mt_snapshot_put(struct mt_snapshot *s, uint64_t w);
bool mt_snapshot_equal(const struct mt_snapshot *a, const struct mt_snapshot *b);
void mt_snapshot_free(struct mt_snapshot *s);

/* A duplicate equals its source node for node (MT_DUP_MISMATCH). */
bool mt_check_dup(const struct mtree *src, const struct mtree *dup);
uint64_t mt_count_entries(const struct mtree *mt);
uint64_t mt_count_nodes(const struct mtree *mt);

/* Print the tree, node by node; @print_entry may be NULL (prints pointers). */
void mt_dump(FILE *out, const struct mtree *mt, void (*print_entry)(FILE *out, const void *entry));

#endif
