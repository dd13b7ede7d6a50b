/* SPDX-License-Identifier: GPL-2.0 */
/* anon_vma and its chains (anon.h), after mm/rmap.c. */
#include "mm/anon.h"

#include "mm/mm.h"
#include "mm/types.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/itree.h"
#include "tree/mtree.h"

#include <errno.h>
#include <string.h>

void anon_vma_lock_write(struct anon_vma *av)
{
	down_write(&av->root->rwsem);
}

void anon_vma_unlock_write(struct anon_vma *av)
{
	up_write(&av->root->rwsem);
}

static struct anon_vma *anon_vma_alloc(void)
{
	struct anon_vma *av = model_alloc(AK_ANON_VMA, sizeof(*av));

	if (!av)
		return NULL;
	av->root = av;
	av->parent = av;
	av->refcount = 1;
	av->num_children = 1; /* a root counts itself */
	av->id = ++mm_ids.anon_vma;
	rwsem_init(&av->rwsem, &lock_class_anon_vma, "anon_vma");
	return av;
}

static void anon_vma_free(struct anon_vma *av)
{
	rwsem_destroy(&av->rwsem);
	model_free(AK_ANON_VMA, av);
}

static void put_anon_vma(struct anon_vma *av)
{
	if (--av->refcount > 0)
		return;
	if (av->root != av)
		put_anon_vma(av->root);
	anon_vma_free(av);
}

static void avc_link(struct avc *c, struct vma *v, struct anon_vma *av)
{
	lock_assert_held_write(&av->root->rwsem);
	c->vma = v;
	c->av = av;
	c->vma_next = v->chain;
	v->chain = c;
	vma_itree_insert(&av->avcs, &c->av_node, v);
}

/* Remove @c from its anon_vma's tree; true if the tree became empty. */
static bool avc_unlink_av(struct avc *c)
{
	lock_assert_held_write(&c->av->root->rwsem);
	itree_remove(&c->av->avcs, &c->av_node);
	return c->av->avcs.count == 0;
}

/*
 * A neighbour's anon_vma that @v may share (find_mergeable_anon_vma): the
 * neighbour continues @v (adjacent, same flags but access bits, page
 * offsets continue) and its chain holds only its own anon_vma.
 */
static bool anon_compatible(const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->file == b->file &&
	       !((a->flags ^ b->flags) & ~(VM_ACCESS_FLAGS | VM_SOFTDIRTY)) &&
	       b->pgoff == a->pgoff + vma_pages(a);
}

static struct anon_vma *reusable(const struct vma *old)
{
	if (old->anon_vma && old->chain && !old->chain->vma_next)
		return old->anon_vma;
	return NULL;
}

static struct anon_vma *find_mergeable_anon_vma(struct vma *v)
{
	struct mm *mm = v->mm;
	/* raw lookups, as vma_next/vma_prev are: they return a zero entry */
	struct vma *next = v->end ? mt_load(&mm->mt, v->end) : NULL;
	struct vma *prev = v->start ? mt_load(&mm->mt, v->start - 1) : NULL;
	struct anon_vma *av = NULL;

	/* where syzbot's "general protection fault in find_mergeable_anon_vma"
	 * was: a neighbour that is a failed fork's zero entry */
	if ((next && mt_is_zero(next)) || (prev && mt_is_zero(prev))) {
		check_fail(CK_VMA_ZERO_ENTRY,
			   "find_mergeable_anon_vma of vma#%u in mm %u meets the zero entry", v->id,
			   mm->id);
		return NULL;
	}
	if (next && anon_compatible(v, next))
		av = reusable(next);
	if (!av && prev && anon_compatible(prev, v))
		av = reusable(prev);
	return av;
}

int anon_vma_prepare(struct vma *v)
{
	struct avc *c;
	struct anon_vma *av, *fresh = NULL;

	if (v->anon_vma)
		return 0;
	mmap_assert_locked(&v->mm->lock); /* __anon_vma_prepare */
	c = model_alloc(AK_AVC, sizeof(*c));
	if (!c)
		return -ENOMEM;
	av = find_mergeable_anon_vma(v);
	if (!av) {
		av = fresh = anon_vma_alloc();
		if (!av) {
			model_free(AK_AVC, c);
			return -ENOMEM;
		}
	}
	anon_vma_lock_write(av);
	if (v->anon_vma) {
		/* another fault prepared it while we took the lock (the kernel
		 * rechecks under the page table lock for the same reason) */
		anon_vma_unlock_write(av);
		model_free(AK_AVC, c);
		if (fresh)
			anon_vma_free(fresh);
		return 0;
	}
	v->anon_vma = av;
	avc_link(c, v, av);
	av->num_active_vmas++;
	v->mm->fault_changes++;
	anon_vma_unlock_write(av);
	return 0;
}

/* Drop the chain entries of @dst down to (not including) @keep. */
static void chain_undo(struct vma *dst, struct avc *keep)
{
	while (dst->chain != keep) {
		struct avc *x = dst->chain;

		dst->chain = x->vma_next;
		avc_unlink_av(x);
		model_free(AK_AVC, x);
	}
}

/*
 * anon_vma_clone: give @dst an entry for every anon_vma of @src's chain,
 * oldest first. When @dst has no anon_vma yet (fork), it takes over an
 * anon_vma of the chain that no VMA uses and that has at most one child
 * (the current kernel's rule against endless growth of the hierarchy).
 */
static int clone_chain(struct vma *dst, struct vma *src, bool reuse)
{
	struct avc *order[256], *made = dst->chain;
	struct anon_vma *root = NULL;
	unsigned n = 0;

	for (struct avc *c = src->chain; c; c = c->vma_next) {
		MODEL_ASSERT(n < 256);
		order[n++] = c;
	}
	/*
	 * One critical section under the root's lock, as lock_anon_vma_root
	 * keeps it: the choice of an anon_vma to reuse and the count that
	 * makes it taken must not let another fork in between.
	 */
	for (unsigned i = n; i-- > 0;) {
		struct avc *c = model_alloc(AK_AVC, sizeof(*c));
		struct anon_vma *av = order[i]->av;

		if (!c) {
			/* the entries made so far leave their lists under the lock */
			chain_undo(dst, made);
			if (root)
				anon_vma_unlock_write(root);
			if (reuse)
				dst->anon_vma = NULL;
			return -ENOMEM;
		}
		if (root != av->root) {
			if (root)
				anon_vma_unlock_write(root);
			root = av->root;
			anon_vma_lock_write(root);
		}
		avc_link(c, dst, av);
#ifdef VMAFUZZ_BUG_anon_degree
		/* before "mm/rmap: Fix anon_vma->degree ambiguity leading to
		 * double-reuse" (2022): one "degree" for children and VMAs, taken
		 * to mean "no VMA and one child" when below 2 */
		if (reuse && !dst->anon_vma && av != src->anon_vma &&
		    av->num_children + av->num_active_vmas < 2)
			dst->anon_vma = av;
#else
		if (reuse && !dst->anon_vma && av->num_children < 2 && av->num_active_vmas == 0)
			dst->anon_vma = av;
#endif
	}
	if (dst->anon_vma)
		dst->anon_vma->num_active_vmas++;
	if (root)
		anon_vma_unlock_write(root);
	return 0;
}

int anon_vma_clone(struct vma *dst, struct vma *src)
{
	return clone_chain(dst, src, !dst->anon_vma && src->anon_vma);
}

int anon_vma_fork(struct vma *v, struct vma *pv, struct vma *pprev, enum anon_policy policy)
{
	struct anon_vma *av;
	struct avc *c;
	int err;

	if (!pv->anon_vma)
		return 0;
	v->anon_vma = NULL;
	/*
	 * The reverted policy (rmap-reuse-mergeable-anon-vma-on-fork), as
	 * posted: when the parent's VMA shares its anon_vma with the VMA before
	 * it, take "dst->vm_prev"'s anon_vma. In the kernel it was posted for,
	 * vm_area_dup had copied the parent's vm_prev into the child, so that
	 * is the parent's previous VMA: @pprev.
	 */
	if (policy == ANON_POLICY_REUSE_MERGEABLE && pprev && pprev->anon_vma == pv->anon_vma)
		v->anon_vma = pprev->anon_vma;
	err = clone_chain(v, pv, true);
	if (err || v->anon_vma)
		return err;
	av = anon_vma_alloc();
	if (!av)
		goto fail;
	c = model_alloc(AK_AVC, sizeof(*c));
	if (!c) {
		anon_vma_free(av);
		goto fail;
	}
	av->num_active_vmas++;
	av->root = pv->anon_vma->root;
	av->parent = pv->anon_vma;
	av->num_children = 0; /* only a root counts itself */
	av->root->refcount++; /* get_anon_vma(root) */
	v->anon_vma = av;
	anon_vma_lock_write(av);
	avc_link(c, v, av);
	av->parent->num_children++;
	anon_vma_unlock_write(av);
	return 0;
fail:
	unlink_anon_vmas(v);
	return -ENOMEM;
}

void unlink_anon_vmas(struct vma *v)
{
	struct avc *c = v->chain, *next;
	struct anon_vma *own = v->anon_vma;

	for (; c; c = next) {
		struct anon_vma *av = c->av;

		next = c->vma_next;
		anon_vma_lock_write(av);
		if (own) {
			/* under the root's lock, as reuse decisions read it */
			own->num_active_vmas--;
			own = NULL;
		}
		if (avc_unlink_av(c)) {
			/* its last VMA left: it no longer counts for its parent */
			av->parent->num_children--;
			anon_vma_unlock_write(av);
			put_anon_vma(av);
		} else {
			anon_vma_unlock_write(av);
		}
		model_free(AK_AVC, c);
	}
	if (own)
		own->num_active_vmas--;
	v->chain = NULL;
	v->anon_vma = NULL;
}

void anon_vma_interval_update(struct vma *v)
{
	for (struct avc *c = v->chain; c; c = c->vma_next) {
		itree_remove(&c->av->avcs, &c->av_node);
		vma_itree_insert(&c->av->avcs, &c->av_node, v);
	}
}
