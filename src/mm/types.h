/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types every file of the mm model shares. An mm holds its VMAs in a range tree (mtree.h) keyed
 * by [vm_start, vm_end - 1], its page table, its locks and counters. A VMA holds flags with the
 * kernel's bit values, a page offset, an optional file, an anon_vma with its chain, an optional
 * userfaultfd context and a per-VMA lock.
 *
 * Operations follow the kernel (mm/vma.c, mm/mmap.c, mm/mprotect.c,
 * mm/madvise.c, mm/memory.c) in their argument checks, their errors, the
 * locks they take, and above all in when VMAs split and merge:
 *   - two neighbours merge only if their flags are equal (VM_SOFTDIRTY
 *     aside), their file and page offsets continue, their userfaultfd
 *     contexts are equal and their anon_vmas are compatible (equal, or one
 *     side has none and the other's chain is a single entry);
 *   - a new anonymous mapping next to a VMA with an anon_vma merges into it;
 *   - mprotect adds VM_ACCOUNT when a private mapping becomes writable, and
 *     removes it only from an anonymous VMA that never had a page (6.7);
 *   - a read fault on a file VMA maps the cached pages around it;
 *   - a read fault on private anonymous memory maps the zero page, or, on an
 *     mm that forbids it, allocates a page (do_anonymous_page).
 * Addresses are bytes, as in the kernel; page offsets are in pages.
 */
#ifndef VMAFUZZ_MM_TYPES_H
#define VMAFUZZ_MM_TYPES_H

#include "runtime/sync.h"
#include "tree/itree.h"
#include "tree/mtree.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ull << PAGE_SHIFT)

/* VMA flags, with the kernel's values */
#define VM_READ 0x1ull
#define VM_WRITE 0x2ull
#define VM_EXEC 0x4ull
#define VM_SHARED 0x8ull
#define VM_MAYREAD 0x10ull
#define VM_MAYWRITE 0x20ull
#define VM_MAYEXEC 0x40ull
#define VM_MAYSHARE 0x80ull
#define VM_GROWSDOWN 0x100ull
#define VM_UFFD_MISSING 0x200ull
#define VM_UFFD_WP 0x1000ull
#define VM_LOCKED 0x2000ull
#define VM_DONTCOPY 0x20000ull
#define VM_LOCKONFAULT 0x80000ull
#define VM_ACCOUNT 0x100000ull
#define VM_WIPEONFORK 0x2000000ull
#define VM_SOFTDIRTY 0x8000000ull
#define VM_UFFD_MINOR (1ull << 41)
#define VM_UFFD_FLAGS (VM_UFFD_MISSING | VM_UFFD_WP | VM_UFFD_MINOR)
#define VM_ACCESS_FLAGS (VM_READ | VM_WRITE | VM_EXEC)
#define VM_LOCKED_MASK (VM_LOCKED | VM_LOCKONFAULT)

/* mmap prot and flags, madvise advice: the kernel's values */
#define PROT_READ 0x1
#define PROT_WRITE 0x2
#define PROT_EXEC 0x4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_GROWSDOWN 0x100
#define MAP_LOCKED 0x2000
#define MAP_POPULATE 0x8000
#define MAP_FIXED_NOREPLACE 0x100000
#define MADV_DONTNEED 4
#define MADV_FREE 8
#define MADV_DONTFORK 10
#define MADV_DOFORK 11
#define MADV_WIPEONFORK 18
#define MADV_KEEPONFORK 19
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#define MADV_DONTNEED_LOCKED 24

#define MM_MAX_MAP_COUNT 65530
/* x86-64's TASK_SIZE: the top of user space (mremap's bound, what
 * mlockall(MCL_CURRENT) populates up to). */
#define MM_TASK_SIZE 0x7ffffffff000ull

struct mm;
struct vma;
struct anon_vma;
struct page;
struct uffd_ctx;

/* A model file: its page cache (pgoff -> page) and the VMAs mapping it. */
struct file {
	unsigned id;
	bool shmem;    /* backs a shared anonymous mapping */
	uint64_t size; /* pages, for a shmem file (its mapping's length); 0: no end */
	uint64_t data; /* its page at index i holds data + i until written (0: zeros) */
	int refcount;  /* VMAs mapping it, plus one for its owner */
	struct mtree cache;
	struct itree i_mmap; /* VMAs mapping it, by their pgoff interval */
	struct rwsem i_mmap_rwsem;
	unsigned scan_gen; /* validation scratch */
};

struct vma {
	struct mm *mm;
	uint64_t start, end; /* [start, end) */
	uint64_t flags;
	uint64_t pgoff; /* file offset in pages; start >> PAGE_SHIFT if anonymous */
	struct file *file;
	struct anon_vma *anon_vma;
	struct avc *chain; /* this VMA's anon_vma_chain entries */
	struct uffd_ctx *uffd;
	struct vma_lock lock;
	unsigned id; /* creation number, for reports */
	/* mremap moved its pages here with their page offsets, so an anonymous
	 * VMA's pgoff need not be its start page (bookkeeping for VMA_PGOFF; it
	 * stays through splits and fork, as the offsets do) */
	bool moved;
	struct itree_node i_mmap_node; /* in file->i_mmap: [pgoff, last page's pgoff] */
};

struct mm {
	unsigned id;
	struct mtree mt;   /* the VMAs */
	struct mtree ptes; /* page table: virtual page -> pte (mm_pte_*) */
	struct mmap_lock lock;
	int map_count;
	int max_map_count;
	int64_t locked_vm;	     /* pages of its VM_LOCKED VMAs, as the kernel counts them */
	uint64_t def_flags;	     /* flags every new mapping takes (mlockall's MCL_FUTURE) */
	uint64_t rss_anon, rss_file; /* resident pages, as MM_ANONPAGES/MM_FILEPAGES */
	uint64_t mmap_min, mmap_max; /* window for mappings without an address */
	bool exiting;
	struct uffd_ctx *uffd_ctxs; /* contexts created on this mm */
	int users;		    /* mmget/mmput: the process and calls in flight */
	int count;		    /* mmgrab/mmdrop: the struct itself (users, uffd contexts) */
	bool dead;		    /* the address space is gone, the struct not yet */
	bool unstable;		    /* a failed fork's half-built child (MMF_UNSTABLE) */
	/* mm_forbids_zeropage(): a read fault of private anonymous memory
	 * allocates a page (as a write would, but clean unless the VMA is
	 * writable) instead of mapping the zero page. Some kernels do this (a
	 * PVM guest booted with pvm_no_zero_page=1; s390 with KVM guests); a
	 * fork passes it on. */
	bool forbids_zeropage;
	unsigned kver;		/* the kernel version it behaves as (kver.h); a fork passes it on */
	uint64_t fault_changes; /* changes made by faults (they run beside fork) */
	struct mm_watch *watchers; /* told of every change to a mapping or entry */
};

/*
 * A watcher of an mm's changes (the rollup invariants, rollup.h): while it
 * is registered, every range whose mapping or page table entries change is
 * reported to it, by whichever fiber changes it.
 */
struct mm_watch {
	void (*changed)(struct mm_watch *w, uint64_t start, uint64_t end);
	struct mm_watch *next;
};

static inline uint64_t vma_pages(const struct vma *v)
{
	return (v->end - v->start) >> PAGE_SHIFT;
}

/* A VMA's key in its file's i_mmap and its anon_vmas' trees: the page
 * offsets it maps, then its creation number. */
static inline void vma_itree_insert(struct itree *t, struct itree_node *n, const struct vma *v)
{
	itree_insert(t, n, v->pgoff, v->pgoff + vma_pages(v) - 1, v->id);
}

static inline bool vma_itree_keyed(const struct itree_node *n, const struct vma *v)
{
	return n->first == v->pgoff && n->last == v->pgoff + vma_pages(v) - 1;
}

static inline bool vma_is_anonymous(const struct vma *v)
{
	return !v->file;
}

#define PAGE_MASK (~(PAGE_SIZE - 1))

/* @len rounded up to whole pages; *overflow when that wraps. */
static inline uint64_t page_align_up(uint64_t len, bool *overflow)
{
	*overflow = len > UINT64_MAX - (PAGE_SIZE - 1);
	return (len + PAGE_SIZE - 1) & PAGE_MASK;
}

#endif
