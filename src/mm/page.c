/* SPDX-License-Identifier: GPL-2.0 */
/* Pages, page tables, faults, copy-on-write and the rmap walk (page.h). */
#include "mm/page.h"

#include "mm/anon.h"
#include "mm/mm.h"
#include "mm/types.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "tree/itree.h"
#include "tree/mtree.h"

#include <errno.h>
#include <inttypes.h>

struct page zero_page = {.refcount = 1};

static struct pgtable *pgtable_of(struct mm *mm, uint64_t addr)
{
	return mt_load(&mm->ptes, (addr >> PAGE_SHIFT) >> PT_SHIFT);
}

uintptr_t mm_pte(struct mm *mm, uint64_t addr)
{
	struct pgtable *t = pgtable_of(mm, addr);

	return t ? t->pte[(addr >> PAGE_SHIFT) & (PT_ENTRIES - 1)] : 0;
}

static uintptr_t *pte_slot(struct mm *mm, uint64_t addr, bool alloc, int *err)
{
	uint64_t idx = (addr >> PAGE_SHIFT) >> PT_SHIFT;
	struct pgtable *t = mt_load(&mm->ptes, idx);

	*err = 0;
	if (!t && alloc) {
		t = model_alloc(AK_PGTABLE, sizeof(*t));
		if (!t) {
			*err = -ENOMEM;
			return NULL;
		}
		*err = mt_store_range(&mm->ptes, idx, idx, t);
		if (*err) {
			model_free(AK_PGTABLE, t);
			return NULL;
		}
	}
	return t ? &t->pte[(addr >> PAGE_SHIFT) & (PT_ENTRIES - 1)] : NULL;
}

static struct page *page_alloc(void)
{
	struct page *p = model_alloc(AK_PAGE, sizeof(*p));

	if (p)
		p->id = ++mm_ids.page;
	return p;
}

static void page_put(struct page *p)
{
	if (p == &zero_page)
		return;
	MODEL_ASSERT(p->refcount > 0);
	if (--p->refcount == 0)
		model_free(AK_PAGE, p);
}

uint64_t page_map_changes;

/* The page's own dirty flag (folio_mark_dirty): every mapping's figures. */
static void page_mark_dirty(struct page *p)
{
	if (p->dirty)
		return;
	page_map_changes++;
	p->dirty = true;
}

/* Map @p at the slot (which is empty): writable, dirty. */
static void pte_set(struct mm *mm, uintptr_t *slot, uint64_t addr, struct page *p, bool write,
		    bool dirty)
{
	*slot = (uintptr_t)p | (write ? PTE_WRITE : 0) | (dirty ? PTE_DIRTY : 0);
	mm->fault_changes++;
	mm_note_change(mm, addr, addr + PAGE_SIZE);
	if (p == &zero_page)
		return;
	page_map_changes++;
	p->mapcount++;
	p->refcount++;
	if (p->anon_vma)
		mm->rss_anon++;
	else
		mm->rss_file++;
}

static void pte_clear(struct mm *mm, uintptr_t *slot, uint64_t addr)
{
	struct page *p = pte_page(*slot);

	/* zap_present_ptes: a file page unmapped dirty stays dirty */
	if (pte_dirty(*slot) && p != &zero_page && !p->anon_vma)
		page_mark_dirty(p);
	*slot = 0;
	mm->fault_changes++;
	mm_note_change(mm, addr, addr + PAGE_SIZE);
	if (p == &zero_page)
		return;
#ifdef VMAFUZZ_BUG_test_exit_frees_shared
	/* planted for tests/crash_kept.sh, no kernel bug: exit frees every page
	 * it unmaps, one another process still maps too */
	if (mm->exiting)
		p->refcount = 1;
#endif
	page_map_changes++;
	p->mapcount--;
	if (p->anon_vma)
		mm->rss_anon--;
	else
		mm->rss_file--;
	page_put(p);
}

static uint64_t linear_index(const struct vma *v, uint64_t addr)
{
	return v->pgoff + ((addr - v->start) >> PAGE_SHIFT);
}

/* The page cache page of @f at @index, created if missing. */
static struct page *cache_page(struct file *f, uint64_t index, int *err)
{
	struct page *p = mt_load(&f->cache, index);

	*err = 0;
	if (p)
		return p;
	p = page_alloc();
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	p->file = f;
	p->index = index;
	p->val = f->data ? f->data + index : 0; /* read in from the file */
	p->refcount = 1;			/* the cache's reference */
	*err = mt_store_range(&f->cache, index, index, p);
	if (*err) {
		model_free(AK_PAGE, p);
		return NULL;
	}
	return p;
}

/* A new anonymous page for @v at @addr (the anon_vma exists), holding what
 * @from holds (copy-on-write), or zeros. */
static struct page *anon_page(struct vma *v, uint64_t addr, const struct page *from)
{
	struct page *p = page_alloc();

	if (p) {
		p->anon_vma = v->anon_vma;
		p->index = linear_index(v, addr);
		p->val = from ? from->val : 0;
	}
	return p;
}

/* A file page mapped by a read fault (vm_page_prot): writable in a shared
 * writable mapping, as shmem wants no write notification unless uffd-wp
 * does; read-only in a private one. */
static bool file_pte_writable(const struct vma *v)
{
	return (v->flags & (VM_SHARED | VM_WRITE | VM_UFFD_WP)) == (VM_SHARED | VM_WRITE);
}

/*
 * do_fault_around: a read fault on a file VMA first maps the pages of the
 * file already in its cache around @addr (filemap_map_pages), read-only:
 * fault_around_bytes (64 KiB) aligned, clamped to the VMA and the page
 * table. Found by vmafuzz conform against this machine's kernel.
 */
#define FAULT_AROUND_PAGES 16u
static int fault_around(struct vma *v, uint64_t addr)
{
	uint64_t pte_off = (addr >> PAGE_SHIFT) & (PT_ENTRIES - 1);
	uint64_t vma_off = (addr - v->start) >> PAGE_SHIFT;
	uint64_t from = pte_off & ~(uint64_t)(FAULT_AROUND_PAGES - 1), to;
	uint64_t back = pte_off < vma_off ? pte_off : vma_off;
	int err;

	if (pte_off - back > from)
		from = pte_off - back;
	to = from + FAULT_AROUND_PAGES;
	if (to > PT_ENTRIES)
		to = PT_ENTRIES;
	if (to > pte_off + vma_pages(v) - vma_off)
		to = pte_off + vma_pages(v) - vma_off;
	for (uint64_t o = from; o < to; o++) {
		uint64_t a = addr - (pte_off << PAGE_SHIFT) + (o << PAGE_SHIFT);
		struct page *p = mt_load(&v->file->cache, linear_index(v, a));
		uintptr_t *slot;

		if (!p || a == addr) /* the faulting page: the caller maps it */
			continue;
		slot = pte_slot(v->mm, a, true, &err);
		if (!slot)
			return err;
		if (!*slot)
			pte_set(v->mm, slot, a, p, file_pte_writable(v), false);
	}
	return 0;
}

/* A fault on a present entry: only a write does something. */
static int fault_present(struct vma *v, uintptr_t *slot, uint64_t addr, bool write)
{
	struct mm *mm = v->mm;
	struct page *old = pte_page(*slot), *p;

	if (!write)
		return 0;
	if (pte_write(*slot)) {
		/* no fault: the hardware sets the entry's dirty bit */
		if (!pte_dirty(*slot)) {
			*slot |= PTE_DIRTY;
			mm_note_change(mm, addr, addr + PAGE_SIZE);
		}
		return 0;
	}
	if (v->flags & VM_SHARED) {
		/* wp_page_shared: writable and dirty in place, the page too */
		*slot |= PTE_WRITE | PTE_DIRTY;
		page_mark_dirty(old);
		mm_note_change(mm, addr, addr + PAGE_SIZE);
		return 0;
	}
	/* copy-on-write, unless the anonymous page is ours alone */
	if (old != &zero_page && old->anon_vma && old->mapcount == 1) {
		*slot |= PTE_WRITE | PTE_DIRTY; /* wp_page_reuse */
		mm_note_change(mm, addr, addr + PAGE_SIZE);
		return 0;
	}
	p = anon_page(v, addr, old);
	if (!p)
		return -ENOMEM;
	pte_clear(mm, slot, addr);
	pte_set(mm, slot, addr, p, true, true);
	return 0;
}

int fault_page(struct vma *v, uint64_t addr, bool write)
{
	struct mm *mm = v->mm;
	bool shared = v->flags & VM_SHARED;
	uintptr_t *slot;
	struct page *p;
	int err;

	vma_assert_locked(&v->lock, &mm->lock); /* assert_fault_locked */
	if (write ? !(v->flags & VM_WRITE) : !(v->flags & VM_ACCESS_FLAGS))
		return -EFAULT;
	/* A private write may need the anon_vma: prepare it first, since that
	 * takes locks (scheduling points); from here on nothing yields, so the
	 * entry read below cannot change under us. */
	if ((write && !shared) ||
	    (!write && !shared && !v->file && mm->forbids_zeropage && !mm_pte(mm, addr))) {
		err = anon_vma_prepare(v);
		if (err)
			return err;
	}
	slot = pte_slot(mm, addr, true, &err);
	if (!slot)
		return err;
	if (*slot)
		return fault_present(v, slot, addr, write);
	if (!v->file) {
		if (v->uffd && (v->flags & VM_UFFD_MISSING))
			return -EAGAIN; /* the userfaultfd handler would supply the page */
		if (!write && !mm->forbids_zeropage) {
			pte_set(mm, slot, addr, &zero_page, false, false);
			return 0;
		}
		/* do_anonymous_page: a page of its own, writable and dirty where
		 * the VMA is writable (a read fault on a forbidding mm too) */
		p = anon_page(v, addr, NULL);
		if (!p)
			return -ENOMEM;
		pte_set(mm, slot, addr, p, write || (v->flags & VM_WRITE),
			write || (v->flags & VM_WRITE));
		return 0;
	}
	if (!write && !(v->flags & (VM_UFFD_WP | VM_UFFD_MINOR))) {
		err = fault_around(v, addr);
		if (err)
			return err;
	}
	/* shmem_get_folio_gfp: past the end of a shmem file is SIGBUS */
	if (v->file->size && linear_index(v, addr) >= v->file->size)
		return -EAGAIN;
	/* ... a page in the cache is a minor fault, one not there a missing
	 * one, each left to a handler registered for it */
	if (v->uffd &&
	    (v->flags &
	     (mt_load(&v->file->cache, linear_index(v, addr)) ? VM_UFFD_MINOR : VM_UFFD_MISSING)))
		return -EAGAIN;
	p = cache_page(v->file, linear_index(v, addr), &err);
	if (!p)
		return err;
	if (write && !shared) {
		/* a private write to a file page: copy it */
		p = anon_page(v, addr, p);
		if (!p)
			return -ENOMEM;
	} else if (write) {
		page_mark_dirty(p); /* do_shared_fault: fault_dirty_shared_page */
	}
	pte_set(mm, slot, addr, p, write || file_pte_writable(v), write);
	return 0;
}

int fault_page_gup(struct vma *v, uint64_t addr, bool write)
{
	uintptr_t pte = mm_pte(v->mm, addr);

	vma_assert_locked(&v->lock, &v->mm->lock);
	/* follow_page_pte: an entry that allows the access needs no fault;
	 * FOLL_TOUCH with FOLL_WRITE dirties the page, not the entry */
	if (pte && (write ? pte_write(pte) : !!(v->flags & VM_ACCESS_FLAGS))) {
		if (write && !pte_dirty(pte))
			page_mark_dirty(pte_page(pte));
		return 0;
	}
	return fault_page(v, addr, write);
}

uint64_t page_data_changes;

bool page_access(struct mm *mm, uint64_t addr, bool write, uint64_t *val)
{
	uintptr_t pte = mm_pte(mm, addr);
	struct page *p = pte_page(pte);

	if (!pte || (write && !pte_write(pte)))
		return false;
	if (!write)
		*val = p->val;
	else if (p != &zero_page) { /* never mapped writable: it stays zero */
		p->val = *val;
		page_data_changes++;
	}
	return true;
}

/*
 * Visit the present entries of [start, end): only the page tables that
 * exist are read, so a walk over a large, sparse range costs what is
 * mapped, not its size.
 */
void for_each_pte(struct mm *mm, uint64_t start, uint64_t end,
		  void (*fn)(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg), void *arg)
{
	uint64_t first = (start >> PAGE_SHIFT) >> PT_SHIFT, last;
	struct mt_range r;
	struct pgtable *t;

	if (start >= end)
		return;
	last = ((end - 1) >> PAGE_SHIFT) >> PT_SHIFT;
	while (first <= last && (t = mt_find(&mm->ptes, first, last, &r))) {
		uint64_t base = (r.first << PT_SHIFT) << PAGE_SHIFT;
		/* only the entries of [start, end) in this table */
		unsigned i = start > base ? (unsigned)((start - base) >> PAGE_SHIFT) : 0;
		unsigned stop = end - base < ((uint64_t)PT_ENTRIES << PAGE_SHIFT)
				    ? (unsigned)((end - base + PAGE_SIZE - 1) >> PAGE_SHIFT)
				    : PT_ENTRIES;

		while (i < stop) {
			/* most blocks are empty: skip them whole */
			if (!(i & (PT_BLOCK - 1)) && i + PT_BLOCK <= stop && pt_block_empty(t, i)) {
				i += PT_BLOCK;
				continue;
			}
			if (t->pte[i])
				fn(mm, &t->pte[i], base + ((uint64_t)i << PAGE_SHIFT), arg);
			i++;
		}
		first = r.first + 1;
	}
}

static void zap_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	(void)arg;
	pte_clear(mm, slot, addr);
}

void pte_zap(struct mm *mm, uintptr_t *slot, uint64_t addr)
{
	pte_clear(mm, slot, addr);
}

void zap_range(struct vma *v, uint64_t start, uint64_t end)
{
	mmap_assert_locked(&v->mm->lock);
	for_each_pte(v->mm, start, end, zap_one, NULL);
}

static void wrprotect_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	(void)mm;
	(void)addr;
	(void)arg;
	*slot &= ~PTE_WRITE;
}

void pte_wrprotect_range(struct mm *mm, uint64_t start, uint64_t end)
{
	mmap_assert_write_locked(&mm->lock); /* mprotect's change_protection */
	for_each_pte(mm, start, end, wrprotect_one, NULL);
}

struct move_ctx {
	int64_t delta;	  /* destination minus source */
	uint64_t stopped; /* the first source address not moved (0: none) */
};

static void move_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct move_ctx *mc = arg;
	uint64_t to = addr + (uint64_t)mc->delta;
	uintptr_t *dst;
	int err;

	if (mc->stopped)
		return;
	dst = pte_slot(mm, to, true, &err);
	if (!dst) {
		mc->stopped = addr;
		return;
	}
	MODEL_ASSERT(!*dst);
	/* the entry moves as it is: the page keeps its map count, anon_vma
	 * and index, so the rmap walk finds it at its new place */
	*dst = *slot;
	*slot = 0;
	mm->fault_changes++;
	mm_note_change(mm, addr, addr + PAGE_SIZE);
	mm_note_change(mm, to, to + PAGE_SIZE);
}

uint64_t move_ptes(struct mm *mm, uint64_t from, uint64_t to, uint64_t len)
{
	struct move_ctx mc = {(int64_t)(to - from), 0};

	mmap_assert_write_locked(&mm->lock); /* move_page_tables, under mremap's */
	for_each_pte(mm, from, from + len, move_one, &mc);
	return mc.stopped ? mc.stopped - from : len;
}

static void mkwrite_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	(void)mm;
	(void)addr;
	(void)arg;
	if (pte_page(*slot) != &zero_page)
		*slot |= PTE_WRITE;
}

void pte_mkwrite_shared_range(struct mm *mm, uint64_t start, uint64_t end)
{
	for_each_pte(mm, start, end, mkwrite_one, NULL);
}

struct copy_ctx {
	struct vma *dst;
	int err;
};

static void copy_one(struct mm *src_mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct copy_ctx *cc = arg;
	struct page *p = pte_page(*slot);
	bool write = pte_write(*slot), dirty = pte_dirty(*slot);
	uintptr_t *dslot;

	if (cc->err)
		return;
	dslot = pte_slot(cc->dst->mm, addr, true, &cc->err);
	if (!dslot)
		return;
	if (p != &zero_page && p->anon_vma && !(cc->dst->flags & VM_SHARED)) {
		/* copy-on-write: both sides read-only until the next write */
		*slot &= ~PTE_WRITE;
		write = false;
	}
	if (cc->dst->flags & VM_SHARED)
		dirty = false; /* copy_present_pte: clean in the child */
	(void)src_mm;
	pte_set(cc->dst->mm, dslot, addr, p, write, dirty);
}

int copy_ptes(struct vma *dst, struct vma *src)
{
	struct copy_ctx cc = {dst, 0};

	vma_assert_write_locked(&src->lock, &src->mm->lock); /* copy_page_range */
	/* vma_needs_copy: without an anon_vma the child faults pages in again,
	 * unless its VMA is uffd-wp, whose entries carry the protection (found
	 * by vmafuzz conform: a shared file VMA registered in wp mode) */
	if (!src->anon_vma && !(dst->flags & VM_UFFD_WP))
		return 0;
	for_each_pte(src->mm, src->start, src->end, copy_one, &cc);
	return cc.err;
}

static void free_table(void *t, void *arg)
{
	(void)arg;
	model_free(AK_PGTABLE, t);
}

void free_pgtables(struct mm *mm)
{
	struct mt_cursor c;
	void *t;

	mt_cursor_init(&c, &mm->ptes, 0);
	while ((t = mt_cursor_next(&c)))
		free_table(t, NULL);
	mt_destroy(&mm->ptes);
}

struct rmap_walk {
	struct page *page;
	int found;
};

/* One chain entry whose interval holds the page's index: does its VMA map it? */
static bool rmap_one(struct itree_node *n, void *arg)
{
	struct rmap_walk *w = arg;
	struct vma *v = avc_of(n)->vma;
	uint64_t addr = v->start + ((w->page->index - v->pgoff) << PAGE_SHIFT);

	if (addr >= v->start && addr < v->end && pte_page(mm_pte(v->mm, addr)) == w->page)
		w->found++;
	return true;
}

int rmap_count(struct page *p)
{
	struct rmap_walk w = {p, 0};

	if (!p->anon_vma)
		return -1;
	itree_visit(&p->anon_vma->avcs, p->index, p->index, rmap_one, &w);
	return w.found;
}
