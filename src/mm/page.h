/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages, page tables and faults.
 *
 * The page table of an mm is a range tree (mtree.h) of page tables: index
 * vpn >> PT_SHIFT -> struct pgtable of PT_ENTRIES entries, allocated on the
 * first fault in their range (so a fault, like fork's copy, can fail with
 * -ENOMEM) and freed with the mm. An entry is a page pointer with the write
 * bit in bit 0 and the dirty bit in bit 1 (the hardware's, set by a write
 * through it): smaps counts a page dirty when its entry or the page itself
 * is; dirtiness passes from an entry to a file page when the entry is
 * unmapped (zap), and a shared write fault marks the page itself. A read
 * fault on a shared writable mapping maps the page writable and clean, as
 * shmem needs no write notification (unless uffd-wp does). The zero page
 * is mapped read-only for read faults on
 * anonymous private memory and is not resident (an mm that forbids it gets
 * a page of its own there, clean where the VMA is not writable). MADV_FREE
 * clears an entry's dirty bit and marks its page lazily freed; reclaim drops
 * such a page while neither is dirty again.
 *
 * Invariants (page family): a page's map count equals the entries mapping
 * it; its reference count equals its map count, plus one while it is in a
 * page cache; an rmap walk from an anonymous page finds every mapping of
 * it; an anonymous page mapped more than once is mapped read-only (it is
 * copied on the next write); the mm's resident counters equal its pages.
 */
#ifndef VMAFUZZ_PAGE_H
#define VMAFUZZ_PAGE_H

#include "mm/types.h"

#include <string.h>

#define PT_SHIFT 9
#define PT_ENTRIES (1u << PT_SHIFT)

struct page {
	int refcount;
	int mapcount;
	struct anon_vma *anon_vma; /* anonymous: the anon_vma it was faulted in */
	struct file *file;	   /* page cache: the file holding it */
	uint64_t index;		   /* page offset in the anon_vma's or file's space */
	bool dirty;		   /* the folio's dirty flag: a shared write fault set it,
				    * or an unmapped dirty entry passed it on */
	bool lazyfree;		   /* MADV_FREE: not swap-backed; reclaim drops it while clean */
	/* What the page holds: one 64-bit value standing for its bytes. A
	 * write (mm_access) stores it, a read returns it, copy-on-write copies
	 * it; a new anonymous page and the zero page hold 0, a page cache page
	 * its file's data when first read in (file.h). */
	uint64_t val;
	unsigned id;
	unsigned scan_gen; /* validation scratch: the walk that counted it */
	int scan_maps;
	bool scan_writable; /* one of those mappings is writable */
} __attribute__((aligned(16)));

struct pgtable {
	uintptr_t pte[PT_ENTRIES];
};

extern struct page zero_page;
/* Changes of any page's map count or dirty state, in any mm: they change
 * the smaps figures of every mm mapping the page (the rollup invariants
 * compare figures only across reads during which none happened). */
extern uint64_t page_map_changes;
/* Stores into any page's data (page_access): with the mms' fault_changes and
 * mmap lock counts, what tells a check that nothing may have changed. */
extern uint64_t page_data_changes;

/* An entry's bits besides the page pointer (pages are 16-byte aligned). */
#define PTE_WRITE ((uintptr_t)1)
#define PTE_DIRTY ((uintptr_t)2) /* written through this entry (pte_dirty) */

static inline struct page *pte_page(uintptr_t pte)
{
	return (struct page *)(pte & ~(PTE_WRITE | PTE_DIRTY));
}

static inline bool pte_write(uintptr_t pte)
{
	return pte & PTE_WRITE;
}

static inline bool pte_dirty(uintptr_t pte)
{
	return pte & PTE_DIRTY;
}

/* smaps' Dirty: the entry's dirty bit or the page's (folio) dirty flag. */
static inline bool pte_page_dirty(uintptr_t pte)
{
	return pte_dirty(pte) || pte_page(pte)->dirty;
}

/* Page tables are mostly empty: checks skip them a block at a time. */
#define PT_BLOCK 64

/*
 * The checks call this for every block of every page table after every
 * step, and most blocks are empty. Not memcmp: ASan's interceptor checks
 * both buffers first. Not instrumented either: the block lies inside the
 * table by construction, and the loop then compiles to a few vector ORs
 * instead of 64 checked loads (the callers' own reads of @t are checked).
 */
__attribute__((no_sanitize("address"))) static inline bool pt_block_empty(const struct pgtable *t,
									  unsigned first)
{
	uintptr_t any = 0;

	for (unsigned i = 0; i < PT_BLOCK; i++)
		any |= t->pte[first + i];
	return !any;
}

/* The entry for @addr, or 0. */
uintptr_t mm_pte(struct mm *mm, uint64_t addr);

/* Fault one page of @v at @addr (mmap or VMA lock held). 0, -EFAULT (no
 * access: SIGSEGV), -ENOMEM, or -EAGAIN where the kernel raises SIGBUS: a
 * userfaultfd would handle the fault (the model has no handler: its
 * contexts act as ones with UFFD_FEATURE_SIGBUS), or the page lies past the
 * end of a shmem file (a shared anonymous mapping mremap grew). */
int fault_page(struct vma *v, uint64_t addr, bool write);
/* The same for get_user_pages (population, MADV_POPULATE_*): a present
 * entry that allows the access is not faulted, but a write through it
 * marks its page dirty (follow_page_pte's FOLL_TOUCH), as every mapping of
 * the page then shows; others are faulted as by fault_page. */
int fault_page_gup(struct vma *v, uint64_t addr, bool write);
/* The access that follows a successful fault of @addr (its page present, and
 * writable for a write): a write stores *@val in the page, a read sets *@val
 * to what the page holds. False when no page is there to access. */
bool page_access(struct mm *mm, uint64_t addr, bool write, uint64_t *val);
/* Unmap and release the pages of [start, end) of @v (zap_page_range). */
void zap_range(struct vma *v, uint64_t start, uint64_t end);
/* Unmap the one page at @slot of @mm (reclaim): as zap_range does. */
void pte_zap(struct mm *mm, uintptr_t *slot, uint64_t addr);
/* Make the entries of [start, end) read-only (mprotect removing write). */
void pte_wrprotect_range(struct mm *mm, uint64_t start, uint64_t end);
/* mprotect making a shared mapping writable: its entries become writable
 * (change_protection with the new vm_page_prot). Not when uffd-wp wants
 * write notification: the kernel's code (can_change_pte_writable) would
 * make the dirty ones writable, this machine's 6.18 leaves them all
 * read-only (measured with conform; fidelity.md). */
void pte_mkwrite_shared_range(struct mm *mm, uint64_t start, uint64_t end);
/* Visit the present entries of [start, end) (only existing tables are read). */
void for_each_pte(struct mm *mm, uint64_t start, uint64_t end,
		  void (*fn)(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg), void *arg);
/* fork's copy_page_range: map @src's pages into @dst, copy-on-write for
 * private anonymous pages. 0 or -ENOMEM (part may be copied). */
int copy_ptes(struct vma *dst, struct vma *src);
/* mremap's move_page_tables: move the entries of [from, from + len) to the
 * same places of [to, to + len) (empty; the ranges do not overlap). Pages are
 * not copied: they keep their map counts, anon_vma and index. Returns the
 * bytes moved: @len, or less when a destination page table could not be
 * allocated, and then every entry below that point is moved. */
uint64_t move_ptes(struct mm *mm, uint64_t from, uint64_t to, uint64_t len);
/* Free every page table of @mm (exit, after everything was zapped). */
void free_pgtables(struct mm *mm);

/* rmap: how many mappings of @p an rmap walk finds. */
int rmap_count(struct page *p);

/* The page family of invariants over @mms (rmap walks cross mms after fork). */
bool page_validate(struct mm *const *mms, unsigned n);
uint64_t page_count_reachable(struct mm *const *mms, unsigned n);

#endif
