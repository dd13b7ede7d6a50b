/* fork and exit (fork.h), after kernel/fork.c dup_mmap. */
#include "fork.h"

#include "alloc.h"
#include "check.h"
#include "page.h"
#include "uffd.h"
#include "vma_internal.h"

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
	f->orig = octx;
	uffd_ctx_get(octx);
	f->next = *fcs;
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

static void snap_pte(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct mm_snapshot *s = arg;
	struct page *p = pte_page(*slot);

	(void)mm;
	mt_snapshot_put(s, addr);
	mt_snapshot_put(s, p->id);
}

void mm_snapshot_take(struct mm *mm, struct mm_snapshot *s)
{
	struct mt_cursor c;
	struct vma *v;

	memset(s, 0, sizeof(*s));
	mt_snapshot_put(s, (uint64_t)mm->map_count);
	mt_snapshot_put(s, mm->rss_anon);
	mt_snapshot_put(s, mm->rss_file);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c))) {
		mt_snapshot_put(s, v->start);
		mt_snapshot_put(s, v->end);
		mt_snapshot_put(s, v->flags);
		mt_snapshot_put(s, v->pgoff);
		mt_snapshot_put(s, v->file ? v->file->id + 1u : 0);
		mt_snapshot_put(s, v->uffd ? v->uffd->id : 0);
		mt_snapshot_put(s, v->anon_vma ? v->anon_vma->id : 0);
		for (struct avc *a = v->chain; a; a = a->vma_next)
			mt_snapshot_put(s, a->av->id);
		/* which page is mapped where, but not the write bit, which fork
		 * clears; counts shared with other processes (map counts, anon_vma
		 * counts) are the global invariants' to check at rest */
		for_each_pte(mm, v->start, v->end, snap_pte, s);
	}
}

bool mm_snapshot_equal(const struct mm_snapshot *a, const struct mm_snapshot *b)
{
	return mt_snapshot_equal(a, b);
}

void mm_snapshot_free(struct mm_snapshot *s)
{
	mt_snapshot_free(s);
}

bool mm_check_unchanged(struct mm *parent, const struct mm_snapshot *before)
{
	struct mm_snapshot now;
	bool same;

	mm_snapshot_take(parent, &now);
	same = mm_snapshot_equal(before, &now);
	mm_snapshot_free(&now);
	return same ||
	       check_fail(CK_FORK_PARENT_CHANGED, "a failed fork changed mm %u", parent->id);
}

static void count_pte(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	(void)mm;
	(void)slot;
	(void)addr;
	(*(unsigned *)arg)++;
}

bool mm_check_fork(struct mm *parent, struct mm *child)
{
	struct mt_cursor pc, cc;
	struct vma *p, *c;
	bool ok = true;

	mt_cursor_init(&pc, &parent->mt, 0);
	mt_cursor_init(&cc, &child->mt, 0);
	for (;;) {
		uint64_t want;

		do
			p = mt_cursor_next(&pc);
		while (p && (p->flags & VM_DONTCOPY));
		c = mt_cursor_next(&cc);
		if (!p || !c) {
			if (p || c)
				ok = check_fail(CK_FORK_CHILD_DIFFERS,
						"mm %u has %s VMAs than mm %u", child->id,
						c ? "more" : "fewer", parent->id);
			break;
		}
		if (mt_is_zero(c) || c->mm != child || c == p) {
			ok = check_fail(CK_FORK_CHILD_POINTS_INTO_PARENT,
					"mm %u's tree at %#" PRIx64 " holds %s", child->id,
					cc.range.first,
					mt_is_zero(c) ? "the zero entry" : "a VMA of another mm");
			break;
		}
		want = p->uffd && !p->uffd->event_fork ? p->flags & ~VM_UFFD_FLAGS : p->flags;
		if (c->start != p->start || c->end != p->end || c->flags != want ||
		    c->pgoff != p->pgoff || c->file != p->file)
			ok = check_fail(
			    CK_FORK_CHILD_DIFFERS,
			    "child vma#%u %#" PRIx64 "-%#" PRIx64 " flags %#" PRIx64
			    " is not parent vma#%u %#" PRIx64 "-%#" PRIx64 " flags %#" PRIx64,
			    c->id, c->start, c->end, c->flags, p->id, p->start, p->end, want);
		if (c->uffd && c->uffd->mm != child)
			ok = check_fail(CK_FORK_CHILD_POINTS_INTO_PARENT,
					"child vma#%u has a userfaultfd context of mm %u", c->id,
					c->uffd->mm->id);
		if (c->flags & VM_WIPEONFORK) {
			unsigned n = 0;

			for_each_pte(child, c->start, c->end, count_pte, &n);
			if (n || c->anon_vma)
				ok =
				    check_fail(CK_FORK_WIPE_NOT_EMPTY,
					       "wipe-on-fork vma#%u of mm %u has %u pages%s", c->id,
					       child->id, n, c->anon_vma ? " and an anon_vma" : "");
		}
	}
	return ok;
}

bool mm_check_same_child(struct mm *a, struct mm *b)
{
	struct mm_snapshot sa, sb;
	struct mt_cursor ca, cb;
	struct vma *x, *y;
	bool ok = true;

	mt_cursor_init(&ca, &a->mt, 0);
	mt_cursor_init(&cb, &b->mt, 0);
	while ((x = mt_cursor_next(&ca)), (y = mt_cursor_next(&cb)), x || y) {
		if (!x || !y || x->start != y->start || x->end != y->end || x->flags != y->flags ||
		    !x->anon_vma != !y->anon_vma || x->file != y->file) {
			ok = check_fail(CK_FORK_ALGOS_DIFFER,
					"children mm %u and mm %u differ at %#" PRIx64, a->id,
					b->id, x ? x->start : y->start);
			break;
		}
	}
	/* same pages at the same places */
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	for_each_pte(a, 0, UINT64_MAX, snap_pte, &sa);
	for_each_pte(b, 0, UINT64_MAX, snap_pte, &sb);
	for (size_t i = 0; ok && i < sa.n && sa.n == sb.n; i += 2)
		if (sa.w[i] != sb.w[i] || sa.w[i + 1] != sb.w[i + 1])
			ok = check_fail(CK_FORK_ALGOS_DIFFER,
					"children map different pages at %#" PRIx64, sa.w[i]);
	if (ok && sa.n != sb.n)
		ok = check_fail(CK_FORK_ALGOS_DIFFER, "children map %zu and %zu pages", sa.n / 2,
				sb.n / 2);
	mm_snapshot_free(&sa);
	mm_snapshot_free(&sb);
	return ok;
}
