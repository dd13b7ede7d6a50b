/* SPDX-License-Identifier: GPL-2.0 */
/* userfaultfd contexts (uffd.h). */
#include "mm/uffd.h"

#include "mm/kver.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/vma.h"
#include "mm/vma_merge.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"

#include <errno.h>
#include <inttypes.h>

struct uffd_ctx *uffd_create_locked(struct mm *mm, bool event_fork)
{
	struct uffd_ctx *c = model_alloc(AK_UFFD_CTX, sizeof(*c));

	if (!c)
		return NULL;
	c->mm = mm;
	mm_grab(mm);
	c->files = 1;
	c->refcount = 1;
	c->event_fork = event_fork;
	c->id = ++mm_ids.uffd;
	c->next = mm->uffd_ctxs;
	mm->uffd_ctxs = c;
	return c;
}

struct uffd_ctx *uffd_create(struct mm *mm, bool event_fork)
{
	struct uffd_ctx *c;

	mmap_write_lock(&mm->lock);
	c = uffd_create_locked(mm, event_fork);
	mmap_write_unlock(&mm->lock);
	return c;
}

static void unlist(struct uffd_ctx *ctx)
{
	for (struct uffd_ctx **pp = &ctx->mm->uffd_ctxs; *pp; pp = &(*pp)->next)
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
}

void uffd_ctx_get(struct uffd_ctx *c)
{
	c->refcount++;
}

void uffd_ctx_put(struct uffd_ctx *c)
{
	MODEL_ASSERT(c->refcount > 0);
	if (--c->refcount)
		return;
	mm_drop(c->mm);
	model_free(AK_UFFD_CTX, c);
}

void uffd_discard(struct uffd_ctx *ctx)
{
	unlist(ctx);
	ctx->released = true;
	uffd_ctx_put(ctx);
}

static uint64_t mode_flags(unsigned modes)
{
	return (modes & UFFD_MODE_MISSING ? VM_UFFD_MISSING : 0) |
	       (modes & UFFD_MODE_WP ? VM_UFFD_WP : 0) |
	       (modes & UFFD_MODE_MINOR ? VM_UFFD_MINOR : 0);
}

/* Which VMAs may be registered (vma_can_userfault): anonymous or shmem in
 * every mode but minor, which needs a page cache: shmem only. Every model
 * file is a tmpfs file (file.h), as the memfds vmafuzz conform maps. */
static bool vma_can_userfault(const struct vma *v, unsigned modes)
{
	return !(modes & UFFD_MODE_MINOR) || v->file;
}

/*
 * userfaultfd_clear_vma's uffd_wp_range(vma, start, len, false), before a
 * VMA's uffd flags go (unregister, close): change_protection with the VMA's
 * vm_page_prot, which uffd-wp still makes read-only in a shared writable
 * mapping (write notification). So its entries lose write, and the next
 * write faults and dirties the page for every process mapping it (found by
 * fuzz_conform: another process's smaps showed the page dirty). The
 * kernel's code then makes dirty entries writable again
 * (can_change_pte_writable); this machine's 6.18 does not, measured with
 * conform, and the model does as the kernel it is compared with
 * (fidelity.md). Before 6.2 (kver rule uffd_wp_resolve_page_prot) the
 * protection was that of the VMA's flags: every entry writable. In a
 * private mapping an entry stays writable exactly when it was: only
 * exclusive anonymous pages are, and they are made writable again.
 */
static void wp_resolve(struct vma *v, uint64_t start, uint64_t end)
{
	const uint64_t shared_wp = VM_UFFD_WP | VM_SHARED | VM_WRITE;

	if ((v->flags & shared_wp) != shared_wp)
		return;
	/* before uffd_wp_resolve_page_prot: vm_get_page_prot(vm_flags) */
	if (kver_has(v->mm->kver, KV_UFFD_WP_RESOLVE_PAGE_PROT))
		pte_wrprotect_range(v->mm, start, end);
	else
		pte_mkwrite_shared_range(v->mm, start, end);
}

/*
 * Set (ctx, flags) on every VMA of [start, end) (holes between them are
 * passed over), merging and splitting as vma_modify does, but for VMAs of
 * @ctx that have every flag of @set already (they keep the modes they have,
 * as the kernel's); with @only, on that context's VMAs alone, and with
 * neither @set nor @only on every registered VMA.
 */
static int apply(struct mm *mm, uint64_t start, uint64_t end, uint64_t set, uint64_t clear,
		 struct uffd_ctx *ctx, struct uffd_ctx *only)
{
	/* userfaultfd_register_range: "Assumes mmap write lock taken" */
	mmap_assert_write_locked(&mm->lock);
	for (uint64_t at = start; at < end;) {
		struct vma *v = mm_find_vma(mm, at), *res;
		uint64_t stop;
		int err;

		if (!v || v->start >= end)
			break;
		if (v->start > at)
			at = v->start;
		stop = v->end < end ? v->end : end;
		/* registering again in modes it already has changes nothing, nor
		 * splits (userfaultfd_register_range's "nothing to do") */
		if (ctx && v->uffd == ctx && (v->flags & set) == set) {
			at = stop;
			continue;
		}
		/* unregistering (no @set) passes over VMAs of no context, as
		 * the kernel's loop skips them */
		if (only ? v->uffd == only : set || v->uffd) {
			if (!set)
				wp_resolve(v, at, stop); /* unregistered */
			err = vma_modify(v, at, stop, (v->flags & ~clear) | set, ctx, &res);
			if (err)
				return err;
		}
		at = stop;
	}
	return 0;
}

int uffd_register(struct uffd_ctx *ctx, uint64_t start, uint64_t len, unsigned modes)
{
	struct mm *mm = ctx->mm;
	uint64_t end = start + len, at;
	int err = 0;

	if (!modes || (modes & ~7u) || (start | len) & ~PAGE_MASK || !len || end < start)
		return -EINVAL;
	if (mm->dead)
		return -ENOMEM; /* mmget_not_zero fails: the process has exited */
	mmap_write_lock(&mm->lock);
	/* userfaultfd_register: some VMA in the range (holes are fine), and
	 * every one there able to take it, none another context's */
	err = mm_find_vma(mm, start) && mm_find_vma(mm, start)->start < end ? 0 : -EINVAL;
	for (at = start; !err && at < end;) {
		struct vma *v = mm_find_vma(mm, at);

		if (!v || v->start >= end)
			break;
		if (!vma_can_userfault(v, modes))
			err = -EINVAL;
		else if (v->uffd && v->uffd != ctx)
			err = -EBUSY;
		at = v->end;
	}
	if (!err)
		err = apply(mm, start, end, mode_flags(modes), VM_UFFD_FLAGS, ctx, NULL);
	mmap_write_unlock(&mm->lock);
	return err;
}

int uffd_unregister(struct uffd_ctx *ctx, uint64_t start, uint64_t len)
{
	struct mm *mm = ctx->mm;
	int err;

	if ((start | len) & ~PAGE_MASK || !len || start + len < start)
		return -EINVAL;
	if (mm->dead)
		return -ENOMEM; /* mmget_not_zero fails: the process has exited */
	mmap_write_lock(&mm->lock);
	/* userfaultfd_unregister: some VMA in the range, or -EINVAL; and, where
	 * the version has that change (KV_UFFD_UNREGISTER_OWN_CTX; found by
	 * vmafuzz conform on 6.18), none another context's: before, this
	 * context unregisters the others' VMAs too */
	err = mm_find_vma(mm, start) && mm_find_vma(mm, start)->start < start + len ? 0 : -EINVAL;
	for (uint64_t at = start;
	     !err && at < start + len && kver_has(mm->kver, KV_UFFD_UNREGISTER_OWN_CTX);) {
		struct vma *v = mm_find_vma(mm, at);

		if (!v || v->start >= start + len)
			break;
		if (v->uffd && v->uffd != ctx)
			err = -EINVAL;
		at = v->end;
	}
	if (!err)
		err = apply(mm, start, start + len, 0, VM_UFFD_FLAGS, NULL,
			    kver_has(mm->kver, KV_UFFD_UNREGISTER_OWN_CTX) ? ctx : NULL);
	mmap_write_unlock(&mm->lock);
	return err;
}

void uffd_mremap_prep(struct vma *v)
{
	if (!v->uffd || v->uffd->event_remap)
		return;
	vma_start_write(&v->lock, &v->mm->lock);
	vma_assert_write_locked(&v->lock, &v->mm->lock);
#ifndef VMAFUZZ_BUG_uffd_flags_without_ctx
	/* before "userfaultfd: clear flag if remap event not enabled" (2018),
	 * the context went and its flags stayed */
	v->flags &= ~VM_UFFD_FLAGS;
#endif
	v->uffd = NULL;
}

void uffd_get(struct uffd_ctx *c)
{
	c->files++;
}

static void uffd_release(struct uffd_ctx *ctx)
{
	struct mm *mm = ctx->mm;
	struct vma *v;

	if (mm->dead) {
		/* the process exited before its context closed: no VMAs left */
		uffd_discard(ctx);
		return;
	}
	ctx->released = true; /* no new registrations; fork may still hold it */
	mmap_write_lock(&mm->lock);
	for (uint64_t at = 0; (v = mm_find_vma(mm, at));) {
		struct vma *res = v;

		if (v->uffd == ctx)
			wp_resolve(v, v->start, v->end);
		if (v->uffd == ctx &&
		    vma_modify(v, v->start, v->end, v->flags & ~VM_UFFD_FLAGS, NULL, &res)) {
			/* close cannot fail: when merging cannot allocate, clear in
			 * place and leave the neighbours unmerged */
			vma_start_write(&v->lock, &mm->lock);
			vma_assert_write_locked(&v->lock, &mm->lock);
			v->flags &= ~VM_UFFD_FLAGS;
			v->uffd = NULL;
		}
		at = res->end;
	}
	unlist(ctx);
	mmap_write_unlock(&mm->lock);
	uffd_ctx_put(ctx);
}

void uffd_put(struct uffd_ctx *c)
{
	MODEL_ASSERT(c->files > 0);
	if (--c->files == 0)
		uffd_release(c);
}

bool uffd_validate_ctxs(struct mm *mm)
{
	bool ok = true;

	for (struct uffd_ctx *x = mm->uffd_ctxs; x; x = x->next)
		if (x->refcount != 1 || x->files < 1 || x->released || x->mm != mm)
			ok = check_fail(
			    CK_UFFD_CTX_REFCOUNT, "uffd ctx#%u of mm %u: refcount %d, files %d%s",
			    x->id, mm->id, x->refcount, x->files, x->released ? ", released" : "");
	return ok;
}

bool uffd_validate_vma(struct mm *mm, struct vma *v)
{
	bool ok = true, listed = false;

	if (!!(v->flags & VM_UFFD_FLAGS) != !!v->uffd)
		ok = check_fail(CK_UFFD_FLAGS_CTX, "vma#%u has userfaultfd flags %s context", v->id,
				v->uffd ? "off but a" : "on but no");
	if (!v->uffd)
		return ok;
	for (struct uffd_ctx *x = mm->uffd_ctxs; x; x = x->next)
		listed |= x == v->uffd;
	if (!listed)
		ok = check_fail(CK_UFFD_RELEASED_CTX,
				"vma#%u points to a context that is not open on mm %u", v->id,
				mm->id);
	return ok;
}

bool uffd_check_no_fork_ctx(void)
{
	uint64_t left = alloc_live(AK_UFFD_FORK_CTX);

	if (!left)
		return true;
	return check_fail(CK_UFFD_FORK_CTX_LEFT, "%" PRIu64 " fork context(s) outlive their fork",
			  left);
}
