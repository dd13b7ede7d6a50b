/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fork invariants, checked by mm_fork while the parent is still locked:
 * the child equals the parent minus VM_DONTCOPY; wipe-on-fork ranges of the
 * child are empty; no child object points into the parent; a failed fork
 * left the parent as a snapshot taken before it; both algorithms build equal
 * children.
 */
#ifndef VMAFUZZ_MM_FORK_CHECK_H
#define VMAFUZZ_MM_FORK_CHECK_H

#include "mm/types.h"

/* A snapshot of what a failed fork must leave as it was (the words of an
 * mt_snapshot, mtree.h). */
#define mm_snapshot mt_snapshot

void mm_snapshot_take(struct mm *mm, struct mm_snapshot *s);
bool mm_snapshot_equal(const struct mm_snapshot *a, const struct mm_snapshot *b);
void mm_snapshot_free(struct mm_snapshot *s);

/* FORK_PARENT_CHANGED, FORK_CHILD_DIFFERS, FORK_WIPE_NOT_EMPTY, FORK_CHILD_POINTS_INTO_PARENT */
bool mm_check_fork(struct mm *parent, struct mm *child);
bool mm_check_unchanged(struct mm *parent, const struct mm_snapshot *before);
/* FORK_ALGOS_DIFFER: two children of one parent are equal. */
bool mm_check_same_child(struct mm *a, struct mm *b);

#endif
