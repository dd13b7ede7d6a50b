/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The invariants of the VMA, anon_vma and page families over a set of mms
 * (rmap walks cross mms once fork exists), and the reachable-object counts
 * the memory family compares with the live ones. Each scan stamps the
 * objects it counts with a fresh generation, so no side table is needed.
 */
#include "mm/validate.h"

#include "mm/anon.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/itree.h"
#include "tree/mtree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static unsigned scan_gen;

/* @a with room for one more than @n elements of @size (scratch arrays). */
static void *room_for_one_more(void *a, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return a;
	*cap = *cap ? 2 * *cap : 256;
	a = realloc(a, *cap * size);
	MODEL_ASSERT(a != NULL);
	return a;
}

/*
 * The pages check_ptes meets, each once, for the second pass over them:
 * cheaper than walking every page table again (the first walk is whole).
 */
static struct page **pages_seen;
static size_t npages_seen, pages_seen_cap;

static void page_seen(struct page *p)
{
	pages_seen =
	    room_for_one_more(pages_seen, npages_seen, &pages_seen_cap, sizeof(*pages_seen));
	pages_seen[npages_seen++] = p;
}

static bool check_vma(struct mm *mm, struct vma *v, const struct mt_range *r)
{
	bool ok = true;

	if (r->first != v->start || r->last != v->end - 1)
		ok = check_fail(CK_VMA_TREE_INDEX,
				"vma#%u %#" PRIx64 "-%#" PRIx64 " is stored at [%#" PRIx64
				", %#" PRIx64 "]",
				v->id, v->start, v->end, r->first, r->last);
	if ((v->start | v->end) & ~PAGE_MASK)
		ok = check_fail(CK_VMA_ALIGNED, "vma#%u %#" PRIx64 "-%#" PRIx64, v->id, v->start,
				v->end);
	if (v->start >= v->end)
		ok = check_fail(CK_VMA_EMPTY, "vma#%u %#" PRIx64 "-%#" PRIx64, v->id, v->start,
				v->end);
	if (v->mm != mm)
		ok = check_fail(CK_VMA_MM, "vma#%u of mm %u names mm %u", v->id, mm->id,
				v->mm ? v->mm->id : 0);
	if ((v->flags & VM_WIPEONFORK) && (v->file || (v->flags & VM_SHARED)))
		ok = check_fail(CK_VMA_FLAGS, "vma#%u is wipe-on-fork but not private anonymous",
				v->id);
	if (!!(v->flags & VM_SHARED) != (v->file && (v->file->shmem || (v->flags & VM_MAYSHARE))))
		ok = check_fail(CK_VMA_FLAGS, "vma#%u: VM_SHARED %s a shared file", v->id,
				v->flags & VM_SHARED ? "without" : "with");
	/* (mremap moves a faulted VMA's pages with their offsets: its pgoff
	 * then stays where they were faulted, also in a wipe-on-fork child) */
	if (!v->file && !v->moved && v->pgoff != v->start >> PAGE_SHIFT)
		ok = check_fail(CK_VMA_PGOFF,
				"anonymous vma#%u at %#" PRIx64 " has pgoff %#" PRIx64
				" and was never moved",
				v->id, v->start, v->pgoff);
	if (v->file) {
		struct file *f = v->file;
		const struct itree_node *n = &v->i_mmap_node;
		const char *why;

		/* the tree once a scan, then where this VMA is in it */
		if (f->scan_gen != scan_gen + 2) {
			f->scan_gen = scan_gen + 2;
			if ((why = itree_validate(&f->i_mmap)))
				ok = check_fail(CK_VMA_I_MMAP_TREE, "file%u's i_mmap: %s", f->id,
						why);
		}
		if (!itree_contains(&f->i_mmap, n))
			ok = check_fail(CK_VMA_FILE_LINK, "vma#%u is not in file%u's i_mmap", v->id,
					f->id);
		else if (!vma_itree_keyed(n, v))
			ok = check_fail(CK_VMA_I_MMAP_TREE,
					"vma#%u pgoff %#" PRIx64 "+%" PRIu64 " is keyed [%#" PRIx64
					", %#" PRIx64 "] in file%u's i_mmap",
					v->id, v->pgoff, vma_pages(v), n->first, n->last, f->id);
	}
	return ok;
}

static bool check_chain(struct vma *v)
{
	bool ok = true, own = false;

	if (!v->anon_vma && v->chain)
		ok = check_fail(CK_ANON_VMA_IN_CHAIN, "vma#%u has a chain but no anon_vma", v->id);
	for (struct avc *c = v->chain; c; c = c->vma_next) {
		struct anon_vma *av = c->av;
		const char *why;
		bool listed;

		/* the tree once a scan, before anything searches it */
		if (av->scan_tree != scan_gen) {
			av->scan_tree = scan_gen;
			if ((why = itree_validate(&av->avcs)))
				ok = check_fail(CK_ANON_INTERVAL_TREE, "anon_vma#%u: %s", av->id,
						why);
		}
		listed = itree_contains(&av->avcs, &c->av_node);

		own |= av == v->anon_vma;
		if (c->vma != v || !listed)
			ok = check_fail(
			    CK_ANON_AVC_LISTS, "a chain entry of vma#%u (anon_vma#%u) is %s", v->id,
			    av->id, c->vma != v ? "another VMA's" : "not in the anon_vma's tree");
		if (!vma_itree_keyed(&c->av_node, v))
			ok = check_fail(CK_ANON_INTERVAL,
					"vma#%u pgoff %#" PRIx64 "+%" PRIu64 " is keyed [%#" PRIx64
					", %#" PRIx64 "] in anon_vma#%u",
					v->id, v->pgoff, vma_pages(v), c->av_node.first,
					c->av_node.last, av->id);
	}
	if (v->anon_vma && !own)
		ok = check_fail(CK_ANON_VMA_IN_CHAIN, "vma#%u's anon_vma#%u is not in its chain",
				v->id, v->anon_vma->id);
	return ok;
}

/* Do two VMAs hang off the same anon_vmas? */
static bool same_chain_set(const struct vma *a, const struct vma *b)
{
	unsigned na = 0, nb = 0;

	for (struct avc *c = a->chain; c; c = c->vma_next) {
		bool found = false;

		na++;
		for (struct avc *d = b->chain; d && !found; d = d->vma_next)
			found = d->av == c->av;
		if (!found)
			return false;
	}
	for (struct avc *d = b->chain; d; d = d->vma_next)
		nb++;
	return na == nb;
}

/* Count entries and pages of one mm; checks per mapping. */
static bool check_ptes(struct mm *mm, uint64_t *anon, uint64_t *file)
{
	struct mt_cursor c;
	struct pgtable *t;
	bool ok = true;

	struct mt_cursor vc;
	struct vma *next_vma;

	/* entries and VMAs both ascend: walk them side by side */
	mt_cursor_init(&vc, &mm->mt, 0);
	next_vma = mt_cursor_next(&vc);
	mt_cursor_init(&c, &mm->ptes, 0);
	while ((t = mt_cursor_next(&c))) {
		for (unsigned i = 0; i < PT_ENTRIES; i++) {
			uintptr_t pte;

			if (i % PT_BLOCK == 0 && pt_block_empty(t, i)) {
				i += PT_BLOCK - 1;
				continue;
			}
			pte = t->pte[i];
			uint64_t addr = ((c.range.first << PT_SHIFT) + i) << PAGE_SHIFT;
			struct page *p = pte_page(pte);
			struct vma *v;

			if (!pte)
				continue;
			while (next_vma && vc.range.last < addr)
				next_vma = mt_cursor_next(&vc);
			v = next_vma && vc.range.first <= addr && !mt_is_zero(next_vma) ? next_vma
											: NULL;
			if (!v || (pte_write(pte) && !(v->flags & VM_WRITE))) {
				ok = check_fail(
				    CK_PAGE_OUTSIDE_VMA, "mm %u maps page#%u at %#" PRIx64 " %s",
				    mm->id, p->id, addr,
				    v ? "writable in a read-only VMA" : "outside any VMA");
				continue;
			}
			if (p == &zero_page)
				continue;
			if (p->scan_gen != scan_gen) {
				p->scan_gen = scan_gen;
				p->scan_maps = 0;
				p->scan_writable = false;
				page_seen(p);
			}
			p->scan_maps++;
			p->scan_writable |= pte_write(pte);
			if (p->anon_vma) {
				(*anon)++;
				if (p->index != v->pgoff + ((addr - v->start) >> PAGE_SHIFT))
					ok = check_fail(CK_PAGE_INDEX,
							"anonymous page#%u index %#" PRIx64
							" mapped at %#" PRIx64
							" of vma#%u (pgoff %#" PRIx64 ")",
							p->id, p->index, addr, v->id, v->pgoff);
			} else {
				(*file)++;
			}
		}
	}
	return ok;
}

/* Second pass, over the pages the first met: counts against what it saw. */
static bool check_pages(void)
{
	bool ok = true;

	for (size_t k = 0; k < npages_seen; k++) {
		struct page *p = pages_seen[k];
		int want_ref;

		if (p->mapcount != p->scan_maps)
			ok = check_fail(CK_PAGE_MAPCOUNT, "page#%u map count %d, mapped %d times",
					p->id, p->mapcount, p->scan_maps);
		want_ref = p->scan_maps + (p->file && !p->anon_vma ? 1 : 0);
		if (p->refcount != want_ref)
			ok = check_fail(CK_PAGE_REFCOUNT, "page#%u refcount %d, expected %d", p->id,
					p->refcount, want_ref);
		if (p->anon_vma) {
			int found = rmap_count(p);

			if (found != p->scan_maps)
				ok = check_fail(CK_PAGE_RMAP,
						"rmap walk from page#%u (anon_vma#%u) finds %d "
						"of its %d mappings",
						p->id, p->anon_vma->id, found, p->scan_maps);
			if (p->scan_maps > 1 && p->scan_writable)
				ok = check_fail(CK_PAGE_COW,
						"page#%u is mapped %d times, once writable", p->id,
						p->scan_maps);
		}
	}
	return ok;
}

/*
 * The VMAs of the mms being checked, gathered by mm_validate_all's walk of
 * each tree (zero entries left out): the anon_vma passes go over them four
 * times, and an array is cheaper to go over than the trees.
 */
static struct vma **seen;
static size_t nseen, seen_cap;

static void seen_add(struct vma *v)
{
	seen = room_for_one_more(seen, nseen, &seen_cap, sizeof(*seen));
	seen[nseen++] = v;
}

#define FOR_EACH_SEEN(v) for (size_t k_ = 0; k_ < nseen && ((v) = seen[k_], 1); k_++)

void mm_validate_release(void)
{
	free(pages_seen);
	free(seen);
	pages_seen = NULL;
	seen = NULL;
	npages_seen = pages_seen_cap = nseen = seen_cap = 0;
	scan_gen = 0;
}

static void scratch_reset(struct anon_vma *av)
{
	for (;; av = av->parent) {
		if (av->scan_gen != scan_gen) {
			av->scan_gen = scan_gen;
			av->scan_avcs = av->scan_active = av->scan_children = av->scan_roots = 0;
			av->scan_first = NULL;
		}
		if (av->parent == av)
			break;
	}
	if (av->root->scan_gen != scan_gen)
		scratch_reset(av->root);
}

static bool check_anon_counts(void)
{
	struct vma *v;
	bool ok = true;

	FOR_EACH_SEEN(v)
	for (struct avc *a = v->chain; a; a = a->vma_next)
		scratch_reset(a->av);
	/* chain entries and VMAs pointing to each anon_vma */
	FOR_EACH_SEEN(v)
	{
		for (struct avc *a = v->chain; a; a = a->vma_next)
			a->av->scan_avcs++;
		if (!v->anon_vma)
			continue;
		v->anon_vma->scan_active++;
		if (!v->anon_vma->scan_first)
			v->anon_vma->scan_first = v;
		else if (v->anon_vma->scan_first->mm != v->mm)
			/* the anon_vma tree follows the process tree: fork gives a
			 * child VMA a new anon_vma or one no VMA uses any more */
			ok = check_fail(
			    CK_ANON_ONE_MM,
			    "vma#%u of mm %u and vma#%u of mm %u both use anon_vma#%u as "
			    "their own",
			    v->anon_vma->scan_first->id, v->anon_vma->scan_first->mm->id, v->id,
			    v->mm->id, v->anon_vma->id);
		else if (!same_chain_set(v->anon_vma->scan_first, v))
			ok = check_fail(CK_ANON_SAME_CHAIN,
					"vma#%u and vma#%u share anon_vma#%u with different chains",
					v->anon_vma->scan_first->id, v->id, v->anon_vma->id);
	}
	/* each anon_vma once: its list, and what it counts for its parent and root */
	FOR_EACH_SEEN(v)
	for (struct avc *a = v->chain; a; a = a->vma_next) {
		struct anon_vma *av = a->av;
		int listed = (int)av->avcs.count;

		if (av->scan_checked == scan_gen)
			continue;
		av->scan_checked = scan_gen;
		if (listed != av->scan_avcs)
			ok = check_fail(CK_ANON_AVC_LISTS,
					"anon_vma#%u lists %d chain entries, VMAs hold %d", av->id,
					listed, av->scan_avcs);
		if (av->num_active_vmas != av->scan_active)
			ok = check_fail(CK_ANON_NUM_ACTIVE,
					"anon_vma#%u num_active_vmas %d, VMAs pointing %d", av->id,
					av->num_active_vmas, av->scan_active);
		av->parent->scan_children++;
		if (av->root != av)
			av->root->scan_roots++;
	}
	FOR_EACH_SEEN(v)
	for (struct avc *a = v->chain; a; a = a->vma_next) {
		struct anon_vma *av = a->av;

		if (av->scan_checked == scan_gen + 1)
			continue;
		av->scan_checked = scan_gen + 1;
		if (av->num_children != av->scan_children)
			ok =
			    check_fail(CK_ANON_NUM_CHILDREN,
				       "anon_vma#%u num_children %d, anon_vmas naming it parent %d",
				       av->id, av->num_children, av->scan_children);
		if (av->refcount != 1 + av->scan_roots)
			ok = check_fail(CK_ANON_REFCOUNT, "anon_vma#%u refcount %d, expected %d",
					av->id, av->refcount, 1 + av->scan_roots);
	}
	return ok;
}

bool mm_validate_all(struct mm *const *mms, unsigned n)
{
	bool ok = true;

	scan_gen += 3;
	nseen = 0;
	npages_seen = 0;
	for (unsigned m = 0; m < n; m++) {
		struct mm *mm = mms[m];
		struct mt_cursor c;
		struct vma *v;
		int count = 0;
		int64_t locked = 0;
		uint64_t anon = 0, file = 0;

		ok &= mt_validate(&mm->mt);
		mt_cursor_init(&c, &mm->mt, 0);
		while ((v = mt_cursor_next(&c))) {
			if (mt_is_zero(v)) {
				ok = check_fail(CK_VMA_ZERO_ENTRY,
						"mm %u holds a zero entry at [%#" PRIx64
						", %#" PRIx64 "]",
						mm->id, c.range.first, c.range.last);
				continue;
			}
			count++;
			if (v->flags & VM_LOCKED)
				locked += (int64_t)vma_pages(v);
			seen_add(v);
			ok &= check_vma(mm, v, &c.range);
			ok &= check_chain(v);
			ok &= uffd_validate_vma(mm, v);
		}
		ok &= uffd_validate_ctxs(mm);
		if (count != mm->map_count)
			ok = check_fail(CK_VMA_COUNT, "mm %u: map_count %d, %d VMAs in the tree",
					mm->id, mm->map_count, count);
		if (locked != mm->locked_vm)
			ok = check_fail(CK_VMA_LOCKED_VM,
					"mm %u: locked_vm %" PRId64 ", VM_LOCKED VMAs hold %" PRId64
					" pages",
					mm->id, mm->locked_vm, locked);
		ok &= check_ptes(mm, &anon, &file);
		if (anon != mm->rss_anon || file != mm->rss_file)
			ok = check_fail(CK_PAGE_RSS,
					"mm %u counts %" PRIu64 " anon + %" PRIu64
					" file pages, maps %" PRIu64 " + %" PRIu64,
					mm->id, mm->rss_anon, mm->rss_file, anon, file);
	}
	ok &= check_pages();
	ok &= check_anon_counts();
	return ok;
}

bool mm_validate(struct mm *mm)
{
	return mm_validate_all(&mm, 1);
}

bool mm_check_at_rest(struct mm *mm)
{
	struct mt_cursor c;
	struct vma *v;
	bool ok = true;

	if (mm->lock.sem.readers || mm->lock.sem.writer)
		ok = check_fail(CK_VMA_LOCK_AT_REST, "mm %u's mmap lock is held at rest", mm->id);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c))) {
		if (mt_is_zero(v))
			continue;
		if (v->lock.sem.readers || v->lock.sem.writer ||
		    vma_is_write_locked(&v->lock, &mm->lock) || v->lock.detached)
			ok = check_fail(CK_VMA_LOCK_AT_REST, "vma#%u is %s at rest", v->id,
					v->lock.detached ? "detached" : "locked");
	}
	return ok;
}

/* Count a file once: itself, its cache's nodes and pages. */
static void reach_file(struct file *f, struct mm_reach *r)
{
	struct mt_cursor fc;
	struct page *p;

	if (f->scan_gen == scan_gen)
		return;
	f->scan_gen = scan_gen;
	r->files++;
	r->nodes += mt_count_nodes(&f->cache);
	/* cached pages nobody maps are still the file's */
	mt_cursor_init(&fc, &f->cache, 0);
	while ((p = mt_cursor_next(&fc)))
		if (p->scan_gen != scan_gen) {
			p->scan_gen = scan_gen;
			r->pages++;
		}
}

void mm_reachable(struct mm *const *mms, unsigned n, struct file *const *files, unsigned nfiles,
		  struct mm_reach *r)
{
	memset(r, 0, sizeof(*r));
	scan_gen += 3;
	for (unsigned i = 0; i < nfiles; i++)
		reach_file(files[i], r);
	for (unsigned m = 0; m < n; m++) {
		struct mt_cursor c;
		struct vma *v;
		struct pgtable *t;

		r->nodes += mt_count_nodes(&mms[m]->mt) + mt_count_nodes(&mms[m]->ptes);
		for (struct uffd_ctx *x = mms[m]->uffd_ctxs; x; x = x->next)
			r->uffd++;
		mt_cursor_init(&c, &mms[m]->ptes, 0);
		while ((t = mt_cursor_next(&c))) {
			r->pgtables++;
			for (unsigned i = 0; i < PT_ENTRIES; i++) {
				struct page *p;

				if (i % PT_BLOCK == 0 && pt_block_empty(t, i)) {
					i += PT_BLOCK - 1;
					continue;
				}
				p = pte_page(t->pte[i]);
				if (!t->pte[i] || p == &zero_page || p->scan_gen == scan_gen)
					continue;
				p->scan_gen = scan_gen;
				r->pages++;
			}
		}
		mt_cursor_init(&c, &mms[m]->mt, 0);
		while ((v = mt_cursor_next(&c))) {
			if (mt_is_zero(v))
				continue;
			r->vmas++;
			if (v->file)
				reach_file(v->file, r);
			for (struct avc *a = v->chain; a; a = a->vma_next) {
				r->avcs++;
				for (struct anon_vma *av = a->av; av->scan_gen != scan_gen;
				     av = av->parent) {
					av->scan_gen = scan_gen;
					r->anon_vmas++;
				}
			}
		}
	}
}
