/* SPDX-License-Identifier: GPL-2.0 */
/*
 * anon_vma and anon_vma_chain: the reverse map of anonymous pages.
 *
 * Every anonymous page points to one anon_vma (the one of the VMA it was
 * faulted in); the anon_vma lists, through chain entries (AVCs), every VMA
 * that may map its pages. A VMA has one AVC per anon_vma it hangs off (its
 * own, and after fork its ancestors'). Invariants (anon family):
 *   - every AVC is on both its VMA's chain and its anon_vma's list, and its
 *     cached page-offset interval is its VMA's;
 *   - num_children equals the anon_vmas whose parent it is (a root counts
 *     itself) and num_active_vmas the VMAs whose anon_vma it is;
 *   - VMAs that share an anon_vma have equal chain sets;
 *   - refcount is one while the anon_vma has AVCs, plus one per other
 *     anon_vma whose root it is; nothing is alive that nothing references.
 */
#ifndef VMAFUZZ_ANON_H
#define VMAFUZZ_ANON_H

#include "mm/types.h"

#include "runtime/sync.h"
#include "tree/itree.h"
struct avc {
	struct vma *vma;
	struct anon_vma *av;
	struct avc *vma_next;	   /* the VMA's chain, newest first */
	struct itree_node av_node; /* in av->avcs: the VMA's pgoff interval */
};

#define avc_of(n) itree_entry(n, struct avc, av_node)

struct anon_vma {
	struct anon_vma *root, *parent;
	int refcount;
	int num_children;
	int num_active_vmas;
	struct itree avcs; /* its chain entries (the kernel's rb_root) */
	unsigned id;
	struct rwsem rwsem; /* the root's is the one taken */
	/* validation scratch */
	unsigned scan_gen, scan_checked, scan_tree;
	int scan_avcs, scan_active, scan_children, scan_roots;
	struct vma *scan_first; /* the first VMA seen pointing to it */
};

/* First anonymous fault of @v: find a neighbour's anon_vma it may share, or
 * make one, and link @v to it. 0 or -ENOMEM (nothing changed). */
int anon_vma_prepare(struct vma *v);
/* Give @dst the chain of @src (split, merge): 0 or -ENOMEM (nothing changed). */
int anon_vma_clone(struct vma *dst, struct vma *src);
/*
 * How fork links a child VMA: the current kernel's rule, or the reuse of
 * the reverted rmap-reuse-mergeable-anon-vma-on-fork seed, kept so the
 * harness can show what goes wrong with it.
 */
enum anon_policy { ANON_POLICY_CURRENT, ANON_POLICY_REUSE_MERGEABLE };

/* anon_vma_fork: link the child VMA @v to the parent VMA @pv's anon_vmas and
 * give it its own (or a reused) anon_vma. @pprev: the parent's VMA before
 * @pv. 0 or -ENOMEM (@v then has no chain). */
int anon_vma_fork(struct vma *v, struct vma *pv, struct vma *pprev, enum anon_policy policy);
/* Drop all of @v's chain; anon_vmas nothing references any more are freed. */
void unlink_anon_vmas(struct vma *v);
/* After @v's start, end or pgoff changed: key its chain entries again. */
void anon_vma_interval_update(struct vma *v);
/* The anon_vma and its root's lock. */
void anon_vma_lock_write(struct anon_vma *av);
void anon_vma_unlock_write(struct anon_vma *av);

/* The anon family of invariants for @mm's VMAs. */
bool anon_validate(struct mm *mm);

#endif
