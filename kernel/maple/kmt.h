/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's maple tree (lib/maple_tree.c of a kernel tree given at build
 * time, kernel/maple/maple.mk) seen through plain C types. kmt_unit.c, compiled
 * with the kernel's headers, implements this; kmt_backend.c turns it into a
 * struct tree_backend. No kernel header is needed to use it.
 *
 * Every tree is created with MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN |
 * MT_FLAGS_USE_RCU, like the VMA tree: the caller holds its own lock around
 * writes (the tree's spinlock is never taken), readers may walk it under
 * rcu_read_lock alone.
 */
#ifndef VMAFUZZ_KMT_H
#define VMAFUZZ_KMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct kmt_tree;
struct kmt_bulk;

/* XA_ZERO_ENTRY */
void *kmt_zero(void);

/* NULL when the handle's allocation fails (model_alloc, fail_at). */
struct kmt_tree *kmt_create(void);
void kmt_clear(struct kmt_tree *t);
void kmt_release(struct kmt_tree *t);

/* An entry: mas_preallocate(GFP_KERNEL) + mas_store_prealloc; NULL:
 * mas_store_gfp(GFP_KERNEL). The caller has checked first <= last and the
 * entry. 0 or -ENOMEM. */
int kmt_store(struct kmt_tree *t, uint64_t first, uint64_t last, void *entry);
/* A write by a kernel caller's path: KMT_WRITE_PREALLOC (mas_preallocate
 * + mas_store_prealloc, GFP_KERNEL), _GFP (mas_store_gfp, GFP_KERNEL),
 * _NOWAIT (mas_preallocate with GFP_NOWAIT, then with GFP_KERNEL if that
 * failed, + mas_store_prealloc), _LOCKED (mtree_store_range or
 * mtree_store, GFP_KERNEL). 0, -ENOMEM, or the kernel's -EINVAL. */
enum { KMT_WRITE_PREALLOC, KMT_WRITE_GFP, KMT_WRITE_NOWAIT, KMT_WRITE_LOCKED };
int kmt_store_path(struct kmt_tree *t, uint64_t first, uint64_t last, void *entry, int how);
/* mtree_insert_range (mtree_insert for one index), GFP_KERNEL. */
int kmt_insert(struct kmt_tree *t, uint64_t first, uint64_t last, void *entry);
/* mtree_alloc_range / mtree_alloc_rrange, GFP_KERNEL: the kernel's
 * answer unchanged. */
int kmt_alloc(struct kmt_tree *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
	      void *entry, uint64_t *start);
/* mtree_alloc_cyclic (only with KMT_HAVE_ALLOC_CYCLIC), GFP_KERNEL, with
 * the tree's MT_FLAGS_ALLOC_WRAPPED taken from *wrapped and given back
 * there (the tree keeps it only during the call). */
int kmt_alloc_cyclic(struct kmt_tree *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next,
		     bool *wrapped, uint64_t *start);
/* mas_next / mas_prev from a state set to @index (as mt_next and mt_prev,
 * which are called too and must agree), with the range found. */
void *kmt_next(struct kmt_tree *t, uint64_t index, uint64_t max, uint64_t *first, uint64_t *last);
void *kmt_prev(struct kmt_tree *t, uint64_t index, uint64_t min, uint64_t *first, uint64_t *last);
/* mas_erase: 0 (*old the entry erased, or NULL) or -ENOMEM. */
int kmt_erase(struct kmt_tree *t, uint64_t index, void **old);
/* mas_walk */
void *kmt_load(struct kmt_tree *t, uint64_t index, uint64_t *first, uint64_t *last);
/* mas_find / mas_find_rev from @from */
void *kmt_find(struct kmt_tree *t, uint64_t from, uint64_t max, uint64_t *first, uint64_t *last);
void *kmt_find_prev(struct kmt_tree *t, uint64_t from, uint64_t min, uint64_t *first,
		    uint64_t *last);
/* mas_empty_area / mas_empty_area_rev(lo, hi, size): the kernel's answer */
int kmt_gap(struct kmt_tree *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
	    uint64_t *start);

typedef bool (*kmt_visit_fn)(void *arg, uint64_t first, uint64_t last, void *entry);
/* mas_for_each over [from, to]; @rcu: under rcu_read_lock alone, with a
 * scheduling point before every slot the walk reads. */
void kmt_walk(struct kmt_tree *t, uint64_t from, uint64_t to, bool rcu, kmt_visit_fn visit,
	      void *arg);

/* The normal API: mtree_load; mtree_erase (the entry it found; it cannot
 * report a failure); mtree_destroy (6.1's zeroed flags set again, as
 * kmt_clear does); mtree_dup(GFP_KERNEL), only with KMT_HAVE_MTREE_DUP. */
void *kmt_lookup(struct kmt_tree *t, uint64_t index);
void *kmt_erase_locked(struct kmt_tree *t, uint64_t index);
void kmt_destroy_locked(struct kmt_tree *t);
int kmt_dup_locked(struct kmt_tree *src, struct kmt_tree *dst);
/*
 * A walk of [from, to] (tree_backend.h's enum tree_walk_way): _PAUSED
 * mas_find (_REV: mas_find_rev from @to) with mas_pause after each entry;
 * _FIND mt_find, then mt_find_after (each entry's range from where its
 * search started); _RANGES mas_find_range (_REV: mas_find_range_rev from
 * @to), only with KMT_HAVE_FIND_RANGE, a NULL entry for an empty range.
 */
enum { KMT_WALK_PAUSED, KMT_WALK_PAUSED_REV, KMT_WALK_FIND, KMT_WALK_RANGES, KMT_WALK_RANGES_REV };
void kmt_walk_by(struct kmt_tree *t, uint64_t from, uint64_t to, int how, kmt_visit_fn visit,
		 void *arg);

/* The next three only with KMT_HAVE_DUP (a tree with __mt_dup). */
/* __mt_dup(GFP_KERNEL) into the empty @dst: 0 or -ENOMEM. */
int kmt_dup(struct kmt_tree *src, struct kmt_tree *dst);

/*
 * dup_mmap's tree steps (kernel/fork.c of 6.12, tree_backend.h fork):
 * __mt_dup(GFP_KERNEL), mt_clear_in_rcu, then for_each_vma over @dst with
 * one iterator: @entry says, per entry, KMT_FORK_COPY (*child stored over
 * its range with mas_store: vma_iter_bulk_store), KMT_FORK_DROP
 * (vma_iter_clear_gfp: mas_store_gfp(NULL, GFP_KERNEL)) or KMT_FORK_FAIL;
 * @copied, after a copy, false for copy_page_range's failure (the next
 * entry, vma_next, is where it stopped). vma_iter_free, then mt_set_in_rcu
 * (0), or mas_store(XA_ZERO_ENTRY) over where it stopped (-ENOMEM; none
 * after a failed __mt_dup, which leaves @dst empty).
 */
enum { KMT_FORK_COPY, KMT_FORK_DROP, KMT_FORK_FAIL };
struct kmt_fork_ops {
	int (*entry)(void *arg, uint64_t first, uint64_t last, void *entry, void **child);
	bool (*copied)(void *arg, uint64_t first, uint64_t last, void *child);
	void *arg;
};
int kmt_fork(struct kmt_tree *src, struct kmt_tree *dst, const struct kmt_fork_ops *ops);
/* exit_mmap's tree steps: vma_next; unless NULL or XA_ZERO_ENTRY, the
 * unmap_vmas walk, mt_clear_in_rcu, vma_iter_set(vm_end) and the
 * remove_vma walk (@visit per entry) up to NULL or XA_ZERO_ENTRY; then
 * __mt_destroy, and mt_set_in_rcu (the handle is reused as a new tree). */
void kmt_fork_exit(struct kmt_tree *t, kmt_visit_fn visit, void *arg);

/* mas_expected_entries + mas_store out of RCU mode + mas_destroy. */
int kmt_bulk_begin(struct kmt_tree *t, uint64_t expected, struct kmt_bulk **b);
int kmt_bulk_append(struct kmt_bulk *b, uint64_t first, uint64_t last, void *entry);
void kmt_bulk_end(struct kmt_bulk *b);

/* mt_validate; returns the kernel assertions that fired meanwhile (each
 * also reported as CK_KMT_BUG). */
uint64_t kmt_validate(struct kmt_tree *t);
/* Assertions of lib/maple_tree.c that fired so far. */
uint64_t kmt_bugs(void);

/* The tree's layout, word by word (no node addresses). */
void kmt_picture(struct kmt_tree *t, void (*put)(void *arg, uint64_t w), void *arg);
/* Nodes reachable; when @addrs is not NULL the first @cap addresses. */
uint64_t kmt_nodes(struct kmt_tree *t, uintptr_t *addrs, uint64_t cap);

struct kmt_live {
	uint64_t live;	  /* nodes allocated and not freed (the hooks' count) */
	uint64_t pending; /* of those, dead or handed to call_rcu */
	int64_t shim;	  /* the shim's mt_nr_allocated, -1 without it */
};
void kmt_live(struct kmt_live *l);

/* mt_dump(mt_dump_hex) to @out. */
void kmt_dump(FILE *out, struct kmt_tree *t);

/* Tests: break the tree so that mt_validate objects (false: too small). */
bool kmt_test_corrupt(struct kmt_tree *t);
void kmt_test_restore(void);
/* Tests: geometry (slots of a leaf range64 node, node size). */
unsigned kmt_leaf_slots(void);
unsigned kmt_node_size(void);

#endif
