/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tree seam: what fuzz_mtree does to "a tree", for any implementation
 * of a range tree that maps every index of [0, UINT64_MAX] to an entry or to
 * nothing. The model's range tree (src/tree/, through mtree_backend.c) is the
 * first backend; the kernel's own lib/maple_tree.c, compiled from a kernel
 * tree, is the second. The target, the reference map's checks (mtref.h) and
 * the RCU reader's oracle reach a tree only through these operations, so they
 * do not care which one they drive.
 *
 * This header includes neither tree's headers (the two define the same
 * names: mt_find, mt_validate, mt_dump), only the plain types below.
 *
 * Entries are non-NULL pointers whose two low bits are not 0b10 (reserved
 * by both trees), or the backend's own marker `zero` (the kernel's
 * XA_ZERO_ENTRY, the model's MT_ZERO_ENTRY), which walks return like an
 * entry.
 *
 * Allocation failure: every backend takes its node allocations from the
 * runtime's allocator hooks, so that the executor's fail_at makes the Nth
 * allocation inside an operation fail (runtime/alloc.h).
 */
#ifndef VMAFUZZ_TREE_BACKEND_H
#define VMAFUZZ_TREE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TREE_MAX UINT64_MAX

struct tree_range {
	uint64_t first, last;
};

/* Visit one entry and its range; false stops the walk. */
typedef bool (*tree_visit_fn)(void *arg, const struct tree_range *r, void *entry);

/* An exact picture of a tree's layout (nodes, pivots, entries), as words:
 * equal pictures, equal trees. For "unchanged" checks after a failed write. */
struct tree_picture {
	uint64_t *w;
	size_t n, cap;
};

void tree_picture_put(struct tree_picture *p, uint64_t w);
bool tree_picture_equal(const struct tree_picture *a, const struct tree_picture *b);
void tree_picture_free(struct tree_picture *p);
/* Free the buffers tree_picture_free keeps for the next pictures: at a
 * program's end, so that nothing of it reaches the next. */
void tree_picture_spares_release(void);

/*
 * dup_mmap's tree steps (the fork member below): the caller decides, entry
 * by entry of the child's tree (still the parent's entries after the dup),
 * what the child gets, as dup_mmap decides per VMA.
 */
enum tree_fork_step {
	TREE_FORK_COPY, /* replace the entry by *child, in place */
	TREE_FORK_DROP, /* VM_DONTCOPY: erase it from the child */
	TREE_FORK_FAIL, /* the child's VMA could not be made (vm_area_dup): stop here */
};

struct tree_fork_ops {
	/* Entry @entry over @r, before the fork handles it. */
	enum tree_fork_step (*entry)(void *arg, const struct tree_range *r, void *entry,
				     void **child);
	/* After *child replaced it: false when copying its pages failed
	 * (copy_page_range); the fork stops and the next entry marks where. */
	bool (*copied)(void *arg, const struct tree_range *r, void *child);
	void *arg;
};

/* The paths by which a kernel caller writes (store_path below). */
enum tree_write_path {
	TREE_WRITE_PREALLOC, /* preallocate, then a store that cannot fail */
	TREE_WRITE_GFP,	     /* a store that allocates, may sleep (GFP_KERNEL) */
	TREE_WRITE_NOWAIT,   /* the same, must not sleep (GFP_NOWAIT) */
	TREE_WRITE_LOCKED,   /* the normal API: the tree's own lock, GFP_KERNEL */
	TREE_WRITE_NR
};

/*
 * The ways a kernel caller walks a tree besides the cursor (walk_by below),
 * over the window [from, to]. The reference map judges each
 * (mtref_check_walk_by).
 */
enum tree_walk_way {
	/* walk's entries, the cursor paused after each (mas_pause), as a
	 * caller that drops its lock between entries */
	TREE_WALK_PAUSED,
	/* the same from @to down to @from (mas_find_rev, mas_pause) */
	TREE_WALK_PAUSED_REV,
	/* mt_for_each from @from: mt_find, then mt_find_after with the index
	 * it moved past each entry (stopping once it wrapped to 0); the zero
	 * entry is skipped, and each entry's range is given from where its
	 * search started (the normal API reports only the end) */
	TREE_WALK_FIND,
	/* mas_find_range: ranges empty or not (entry NULL), from the entry
	 * holding @from or else some range after it, each starting right
	 * after the last, up to the one holding @to. An empty run may come
	 * in pieces (the kernel's leaves cut it), and the walk may stop
	 * where only empty indices are left */
	TREE_WALK_RANGES,
	/* the same from @to down to @from (mas_find_range_rev) */
	TREE_WALK_RANGES_REV,
	TREE_WALK_NR
};

struct tree_backend {
	const char *name;
	void *zero; /* the marker entry dup_mmap stores at a failure point */
	/* A failed non-blocking node allocation is retried with a blocking one
	 * (the kernel's mas_store_gfp and mas_erase): a write whose injected
	 * failure fired may still succeed, and is then judged as any write. */
	bool retries;
	/* A new empty tree, in RCU mode: NULL when out of memory. */
	void *(*create)(void);
	/* Free every node; the tree stays usable, empty. */
	void (*clear)(void *t);
	/* clear, then free the handle. */
	void (*release)(void *t);

	/* Store @entry (NULL: erase) over [first, last]: 0, -EINVAL, -ENOMEM
	 * (the tree then unchanged). */
	int (*store)(void *t, uint64_t first, uint64_t last, void *entry);
	/* store by the chosen path: the same results; a path that allocates
	 * may retry a failed allocation (`retries`). NULL: only store. */
	int (*store_path)(void *t, uint64_t first, uint64_t last, void *entry,
			  enum tree_write_path how);
	/* Store @entry over [first, last] if no entry meets it: 0, -EEXIST,
	 * -EINVAL, -ENOMEM (unchanged). NULL: not supported. */
	int (*insert)(void *t, uint64_t first, uint64_t last, void *entry);
	/* What gap finds, then @entry stored over the @size indices from
	 * *start: 0, gap's -EBUSY and -EINVAL, -ENOMEM (unchanged). NULL: not
	 * supported. */
	int (*alloc)(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, void *entry,
		     uint64_t *start);
	/*
	 * A cyclic allocator's step (mtree_alloc_cyclic): the lowest empty
	 * index of [max(lo, *next), hi], else of [lo, hi] (then 1: wrapped),
	 * gets @entry; *next becomes that index + 1, and *wrapped is set when
	 * *next wraps to 0 and turns a later 0 into 1 (then cleared). The
	 * caller keeps both, as the kernel's caller keeps next. 0, 1, -EBUSY,
	 * -EINVAL (lo > hi), -ENOMEM. NULL: not supported.
	 */
	int (*alloc_cyclic)(void *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next,
			    bool *wrapped, uint64_t *start);
	/* The first entry after the range holding @index that starts at or
	 * before @max (NULL when index >= max); prev: the last entry before
	 * it that ends at or after @min (NULL when index <= min). NULL
	 * members: not supported. */
	void *(*next)(void *t, uint64_t index, uint64_t max, struct tree_range *r);
	void *(*prev)(void *t, uint64_t index, uint64_t min, struct tree_range *r);
	/* Erase the range holding @index; *old gets what was there. */
	int (*erase)(void *t, uint64_t index, void **old);
	/* The entry (or NULL) at @index and the whole range holding it. */
	void *(*load)(void *t, uint64_t index, struct tree_range *r);
	/* First entry meeting [from, max] / last meeting [min, from], or NULL. */
	void *(*find)(void *t, uint64_t from, uint64_t max, struct tree_range *r);
	void *(*find_prev)(void *t, uint64_t from, uint64_t min, struct tree_range *r);
	/* Lowest (@highest: highest) start of @size empty indices in [lo, hi]:
	 * 0, -EBUSY (none, also when the window is smaller than @size) or
	 * -EINVAL (size 0, lo > hi). */
	int (*gap)(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, uint64_t *start);
	/* Entries meeting [from, to] in order, with the tree's cursor (the
	 * caller holds the tree's lock). */
	void (*walk)(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg);
	/* The same under rcu_read_lock alone, while a writer may change the
	 * tree; may revisit a range the tree changed meanwhile. */
	void (*rcu_walk)(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg);
	/* Duplicate @src into the empty @dst: 0, or -ENOMEM with @dst empty.
	 * NULL: not supported (nor is fork). */
	int (*dup)(void *src, void *dst);
	/*
	 * dup_mmap's tree steps (kernel/fork.c, Linux 6.12) from @src into
	 * the empty @dst: dup it, take @dst out of RCU mode, then each entry
	 * of @dst in order as @ops says: a drop erases it (an allocation that
	 * may fail), a copy replaces it over the same range (no allocation).
	 * 0: @dst back in RCU mode. -ENOMEM: after a failed dup @dst is empty;
	 * otherwise `zero` covers the range of the entry where it stopped (the
	 * failing one; after a failed page copy the next one, if any) and @dst
	 * stays out of RCU mode until fork_exit. NULL: not supported.
	 */
	int (*fork)(void *src, void *dst, const struct tree_fork_ops *ops);
	/* exit_mmap's tree steps on a failed fork's child: visit its entries
	 * from the start, up to the end or the `zero` marker, then free every
	 * node; @t is then empty and in RCU mode again, as a new tree. */
	void (*fork_exit)(void *t, tree_visit_fn visit, void *arg);
	/* Append entries in ascending order into an empty tree that no reader
	 * can see: begin with the expected count (-ENOMEM: nothing changed),
	 * append (-EINVAL out of order, -ENOMEM), end. NULL: not supported. */
	int (*bulk_begin)(void *t, uint64_t expected, void **bulk);
	int (*bulk_append)(void *bulk, uint64_t first, uint64_t last, void *entry);
	void (*bulk_end)(void *bulk);

	/*
	 * The normal API's calls (the kernel's mtree_*), which take the
	 * tree's own lock themselves (lookup reads under RCU). NULL members:
	 * not supported. lookup: the entry at @index, the zero entry read as
	 * NULL (mtree_load). erase_locked: erase's, returning the entry that
	 * was there; it cannot report a failure: under an injected one the
	 * tree may be left unchanged (mtree_erase). destroy_locked: clear
	 * (mtree_destroy). dup_locked: dup (mtree_dup).
	 */
	void *(*lookup)(void *t, uint64_t index);
	void *(*erase_locked)(void *t, uint64_t index);
	void (*destroy_locked)(void *t);
	int (*dup_locked)(void *src, void *dst);
	/* Visit [from, to] the way @how says (enum tree_walk_way), for the
	 * ways whose bit (1 << how) is set in walk_ways; NULL: none. */
	void (*walk_by)(void *t, uint64_t from, uint64_t to, enum tree_walk_way how,
			tree_visit_fn visit, void *arg);
	unsigned walk_ways;

	/* Every structural invariant of the tree (reports through check_fail). */
	bool (*validate)(void *t);
	/* @dup is a faithful duplicate of @src (as the backend's dup promises). */
	bool (*check_dup)(void *src, void *dup);
	/* The tree's exact layout. */
	void (*picture)(void *t, struct tree_picture *p);
	/* Nodes reachable from the tree. */
	uint64_t (*nodes)(void *t);
	/* The backend's live nodes are exactly @reachable (plus those waiting
	 * for an RCU grace period): false after a report. */
	bool (*check_live)(uint64_t reachable);
	/* The tree, node by node, entries printed by @print (NULL: pointers). */
	void (*dump)(FILE *out, void *t, void (*print)(FILE *out, const void *entry));
};

/* The model's range tree (src/tree/mtree.h). The kernel's maple tree is
 * another backend, declared by the part that builds it
 * (kernel/maple/kmt_backend.h). */
extern const struct tree_backend tree_model;

/*
 * Two backends in lockstep, as one (tree_pair.c): every operation runs on
 * the primary (its result is the pair's, and fail_at applies to it alone),
 * then, unless the primary's injected failure made it fail, on the shadow
 * with failure injection paused; any difference in results, entries,
 * ranges or walks is TREE_BACKENDS_DIFFER, so a walk of the whole range
 * compares the contents (validate runs both validators, nothing more).
 * RCU walks run on the primary alone: the shadow's would race other
 * writes; so do walk_by's range walks, whose empty runs the two trees cut
 * into pieces differently. Dup, fork, insert, alloc, next, prev and the
 * normal API's calls are the pair's when both backends have them, walk_by's
 * entry walks when both have the way; bulk and alloc_cyclic when the
 * primary has it (a shadow without it is given the primary's result by
 * plain stores: the caller's reference must judge that result);
 * store_path runs the shadow's store when it has no paths. A target skips
 * what its backend lacks. A fork's shadow gets the primary's answers per
 * entry and is made to stop where the primary stopped (a failed dup is not
 * replayed). One pair at a time: a later call replaces the two.
 */
const struct tree_backend *tree_pair(const struct tree_backend *primary,
				     const struct tree_backend *shadow);

#endif
