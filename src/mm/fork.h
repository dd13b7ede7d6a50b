/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fork and exit of an address space (after kernel/fork.c dup_mmap and
 * mm/mmap.c exit_mmap), with the two algorithms of the fork-mt-dup seed:
 *
 *   FORK_TREE_DUP  duplicate the parent's whole tree in one pass (mt_dup),
 *                  then walk the copy replacing each entry by the child's
 *                  VMA; a VM_DONTCOPY range is erased from the copy (an
 *                  erase that can fail to allocate). On a failure the
 *                  failure point is marked with the zero entry: entries
 *                  after it still point to the parent's VMAs, and exit of
 *                  the half-built child stops there.
 *   FORK_APPEND    the algorithm before the seed: preallocate nodes for the
 *                  parent's VMA count, then append each child VMA in order.
 *
 * Per VMA: duplicate it, duplicate its userfaultfd state (the early return
 * for VMAs without a context, of the userfaultfd-early-return-dup seed),
 * fork its anon_vma chain (no anon_vma for wipe-on-fork), link it into its
 * file, and copy its page table entries with copy-on-write (not for
 * wipe-on-fork VMAs, nor for VMAs without an anon_vma, as the kernel's
 * vma_needs_copy decides). Any allocation can fail: fork then returns
 * -ENOMEM, and the parent is as it was, but for page table entries made
 * read-only for copy-on-write (the kernel does not undo those either).

 * The fork invariants are fork_check.h's.
 */
#ifndef VMAFUZZ_FORK_H
#define VMAFUZZ_FORK_H

#include "mm/types.h"

#include "mm/anon.h"
enum fork_algo { FORK_TREE_DUP, FORK_APPEND };

struct fork_opts {
	enum fork_algo algo;
	enum anon_policy policy;
	/* Check the fork invariants while the parent is still locked: the child
	 * against the parent, or the parent against a snapshot after failure. */
	bool check;
	/* Also build a child with the other algorithm and compare the two. */
	bool differential;
	/* dup_userfaultfd as it was before the userfaultfd-early-return-dup
	 * seed: a VMA without a context also goes through the path that clears
	 * the child's context and flags (for bench uffd-fork). */
	bool uffd_no_early_return;
};

/* New userfaultfd contexts made for the child (EVENT_FORK), for the caller
 * to hand out as fds once fork succeeded. */
#define FORK_MAX_UFFD 8
struct fork_uffd {
	struct uffd_ctx *ctx[FORK_MAX_UFFD];
	unsigned n;
};

/* Fork @parent into a new mm with @child_id. 0 with *child set, or -ENOMEM
 * (the half-built child is already gone). */
int mm_fork(struct mm *parent, unsigned child_id, const struct fork_opts *o, struct mm **child,
	    struct fork_uffd *uffd);

#endif
