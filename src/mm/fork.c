/* SPDX-License-Identifier: GPL-2.0 */
/* fork and exit (fork.h), after kernel/fork.c dup_mmap. */
#include "mm/fork.h"

#include "mm/anon.h"
#include "mm/exit.h"
#include "mm/file.h"
#include "mm/fork_check.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "mm/vma.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A context the child needs for a parent context with the fork event. */
struct fork_ctx {
	struct uffd_ctx *orig, *new;
	struct fork_ctx *next;
};

/* dup_userfaultfd */
static int dup_uffd(struct vma *tmp, struct mm *child, bool early_return, struct fork_ctx **fcs)
{
	struct uffd_ctx *octx = tmp->uffd;
	struct fork_ctx *f;

	/* the seed's early return: right only while no context means no flags */
	if (!octx && early_return)
		return 0;
	if (!octx || !octx->event_fork) {
		tmp->uffd = NULL;
		tmp->flags &= ~VM_UFFD_FLAGS;
		return 0;
	}
	for (f = *fcs; f; f = f->next)
		if (f->orig == octx) {
			tmp->uffd = f->new;
			return 0;
		}
	f = model_alloc(AK_UFFD_FORK_CTX, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->new = uffd_create_locked(child, true);
	if (!f->new) {
		model_free(AK_UFFD_FORK_CTX, f);
		return -ENOMEM;
	}
	f->new->event_remap = octx->event_remap; /* the child's context has its features */
	f->orig = octx;
	uffd_ctx_get(octx);
	/* at the tail, as dup_userfaultfd's list_add_tail: the fork events
	 * reach the monitor in the order of the VMAs that made them */
	f->next = NULL;
	while (*fcs)
		fcs = &(*fcs)->next;
	*fcs = f;
	tmp->uffd = f->new;
	return 0;
}

static void free_unlinked(struct vma *tmp)
{
	vma_lock_destroy(&tmp->lock);
	model_free(AK_VMA, tmp);
}

/* Duplicate one parent VMA for the child (not yet in the child's tree). */
static int dup_one(struct mm *child, struct vma *mpnt, struct vma *pprev, const struct fork_opts *o,
		   struct fork_ctx **fcs, struct vma **out)
{
	struct vma *tmp = vma_dup(mpnt);
	int err;

	if (!tmp)
		return -ENOMEM;
	tmp->mm = child;
	tmp->flags &= ~VM_LOCKED_MASK; /* mlock is not inherited */
	vma_lock_init(&tmp->lock, false);
	err = dup_uffd(tmp, child, !o->uffd_no_early_return, fcs);
	if (err) {
		free_unlinked(tmp);
		return err;
	}
	if (tmp->flags & VM_WIPEONFORK) {
		/* a clean slate: no anon_vma until the child faults */
		tmp->anon_vma = NULL;
#ifdef VMAFUZZ_BUG_wipe_anon_prepare
		/* before "mm: don't prepare anon_vma if vma has VM_WIPEONFORK"
		 * (2020): prepare one now, sharing a neighbour's found by address
		 * in the child's tree, whose entries past this one are still the
		 * parent's VMAs while the tree is being duplicated */
		err = anon_vma_prepare(tmp);
		if (err) {
			free_unlinked(tmp);
			return err;
		}
#endif
	} else {
		err = anon_vma_fork(tmp, mpnt, pprev, o->policy);
		if (err) {
			free_unlinked(tmp);
			return err;
		}
	}
	vma_link_file(tmp);
	*out = tmp;
	return 0;
}

/* Copy the pages of @tmp unless it starts clean. */
static int copy_pages(struct vma *tmp, struct vma *mpnt)
{
	return tmp->flags & VM_WIPEONFORK ? 0 : copy_ptes(tmp, mpnt);
}

/* Mark the failure point: exit of the child stops there. */
static void mark_failure(struct mm *child, struct vma *mpnt)
{
	if (mpnt)
		MODEL_ASSERT(
		    mt_store_range(&child->mt, mpnt->start, mpnt->end - 1, MT_ZERO_ENTRY) == 0);
}

static int fork_tree_dup(struct mm *parent, struct mm *child, const struct fork_opts *o,
			 struct fork_ctx **fcs)
{
	struct vma *mpnt, *pprev = NULL, *tmp;
	struct mt_cursor c;
	int err = mt_dup(&parent->mt, &child->mt);

	if (err)
		return err;
	mt_cursor_init(&c, &child->mt, 0);
	while ((mpnt = mt_cursor_next(&c))) {
		vma_start_write(&mpnt->lock, &parent->lock);
		if (mpnt->flags & VM_DONTCOPY) {
			err = mt_store_range(&child->mt, mpnt->start, mpnt->end - 1, NULL);
			if (err) {
				mark_failure(child, mpnt);
				return err;
			}
			pprev = mpnt;
			continue;
		}
		err = dup_one(child, mpnt, pprev, o, fcs, &tmp);
		if (err) {
			mark_failure(child, mpnt);
			return err;
		}
		/* replace the parent's VMA by the child's, in place */
		mt_cursor_replace(&c, tmp);
		child->map_count++;
		err = copy_pages(tmp, mpnt);
		if (err) {
			mark_failure(child, mm_find_vma(parent, mpnt->end));
			return err;
		}
		pprev = mpnt;
	}
	return 0;
}

static int fork_append(struct mm *parent, struct mm *child, const struct fork_opts *o,
		       struct fork_ctx **fcs)
{
	struct vma *mpnt, *pprev = NULL, *tmp;
	struct mt_cursor c;
	struct mt_bulk b;
	int err = mt_bulk_begin(&b, &child->mt, (uint64_t)parent->map_count);

	if (err)
		return err;
	mt_cursor_init(&c, &parent->mt, 0);
	while ((mpnt = mt_cursor_next(&c))) {
		vma_start_write(&mpnt->lock, &parent->lock);
		if (mpnt->flags & VM_DONTCOPY) {
			pprev = mpnt;
			continue;
		}
		err = dup_one(child, mpnt, pprev, o, fcs, &tmp);
		if (err)
			break;
		err = mt_bulk_append(&b, tmp->start, tmp->end - 1, tmp);
		if (err) {
			/* not in the tree: undo it whole */
			unlink_anon_vmas(tmp);
			vma_unlink_file(tmp);
			free_unlinked(tmp);
			break;
		}
		child->map_count++;
		err = copy_pages(tmp, mpnt);
		if (err)
			break;
		pprev = mpnt;
	}
	mt_bulk_end(&b);
	return err;
}

/*
 * Build @child from @parent (locked) with one algorithm. On failure the
 * child's new contexts are dropped (they never became files) and the
 * half-built child is destroyed. The fork contexts come back in *fcs: the
 * references they hold on the parent's contexts are dropped only after the
 * parent's lock, as dup_userfaultfd_complete/fail run after dup_mmap.
 * *built is the child's fault_changes as it was built, before anyone else
 * could take its lock.
 */
static int build_child(struct mm *parent, struct mm *child, enum fork_algo algo,
		       const struct fork_opts *o, unsigned subclass, struct fork_ctx **fcs,
		       uint64_t *built)
{
	int err;

	mmap_write_lock_nested(&child->lock, subclass);
	err = algo == FORK_TREE_DUP ? fork_tree_dup(parent, child, o, fcs)
				    : fork_append(parent, child, o, fcs);
	if (err)
		child->unstable = true; /* before anyone else can take its lock */
	*built = child->fault_changes;
	mmap_write_unlock(&child->lock);
	if (err) {
#ifndef VMAFUZZ_BUG_uffd_fork_fail_leak
		for (struct fork_ctx *f = *fcs; f; f = f->next) {
			uffd_discard(f->new);
			f->new = NULL;
		}
#endif
		/* mmput: a walker that reached the child through a file's
		 * i_mmap may still hold it; the last user ends it */
		if (--child->users == 0)
			mm_destroy_nested(child, subclass); /* stops at the failure mark */
	}
	return err;
}

/* After the locks: hand the child's new contexts out (or close them), drop
 * the references on the parent's, free the fork contexts. */
static void finish_fork_ctxs(struct fork_ctx *fcs, struct fork_uffd *uffd)
{
	for (struct fork_ctx *f = fcs, *next; f; f = next) {
		next = f->next;
		if (f->new &&uffd && uffd->n < FORK_MAX_UFFD)
			uffd->ctx[uffd->n++] = f->new;
		else if (f->new)
			uffd_put(f->new); /* nobody receives it: closed at once */
		uffd_ctx_put(f->orig);
		model_free(AK_UFFD_FORK_CTX, f);
	}
}

int mm_fork(struct mm *parent, unsigned child_id, const struct fork_opts *o, struct mm **out,
	    struct fork_uffd *uffd)
{
	struct mm *child = mm_create(child_id, parent->mmap_min, parent->mmap_max);
	struct fork_ctx *fcs = NULL, *other_fcs = NULL;
	struct mm_snapshot before;
	uint64_t faults, built, other_built;
	int err;

	*out = NULL;
	uffd->n = 0;
	if (!child)
		return -ENOMEM;
	/* the new process's user, as mm_alloc gives it; one sysctl for both */
	child->users = 1;
	child->max_map_count = parent->max_map_count;
	child->forbids_zeropage = parent->forbids_zeropage;
	child->kver = parent->kver;
	mmap_write_lock(&parent->lock);
	if (o->check)
		mm_snapshot_take(parent, &before);
	faults = parent->fault_changes;
	err = build_child(parent, child, o->algo, o, 1, &fcs, &built);
	if (o->check && err) {
		/* faults on VMAs the fork had not reached yet may run beside it
		 * (only the VMAs it reached are write-locked): what they change is
		 * theirs, so the parent is compared only when none ran */
		if (parent->fault_changes == faults)
			mm_check_unchanged(parent, &before);
	} else if (o->check) {
		/* the other invariants need every mm that shares pages: the
		 * caller checks them */
		mm_check_fork(parent, child);
	}
	if (!err && o->differential) {
		/* the same fork by the other algorithm must build the same child */
		struct mm *other = mm_create(child_id, parent->mmap_min, parent->mmap_max);

		if (other) {
			other->users = 1;
			other->max_map_count = parent->max_map_count;
			other->forbids_zeropage = parent->forbids_zeropage;
			other->kver = parent->kver;
		}

		if (other && !build_child(parent, other,
					  o->algo == FORK_TREE_DUP ? FORK_APPEND : FORK_TREE_DUP, o,
					  1, &other_fcs, &other_built)) {
			/* both children are in their files' i_mmap once built: a
			 * uprobe walk may prepare an anon_vma in one, and a fault
			 * may change the parent between the two builds; then
			 * they may differ, and are compared only when none did */
			if (parent->fault_changes == faults && child->fault_changes == built &&
			    other->fault_changes == other_built)
				mm_check_same_child(child, other);
			/* its contexts never became files: gone with it */
			for (struct fork_ctx *f = other_fcs; f; f = f->next) {
				uffd_discard(f->new);
				f->new = NULL;
			}
			if (--other->users == 0) /* a walker may hold it too */
				mm_destroy_nested(other, 1);
		}
	}
	if (o->check)
		mm_snapshot_free(&before);
	mmap_write_unlock(&parent->lock);
	finish_fork_ctxs(other_fcs, NULL);
#ifdef VMAFUZZ_BUG_uffd_fork_fail_leak
	/* before "fork: do not invoke uffd on fork if error occurs" (2024):
	 * dup_userfaultfd_complete ran whatever dup_mmap returned, signalling
	 * the fork event with contexts of the half-built child */
	finish_fork_ctxs(fcs, uffd);
#else
	finish_fork_ctxs(fcs, err ? NULL : uffd);
#endif
	if (err)
		return err;
	*out = child;
	return 0;
}

/* ---- snapshots and the fork invariants ---------------------------------- */
