/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address-space seam: what a target does to "the processes and their
 * address spaces", for any implementation. The model (model_backend.c) is the
 * first backend; the live kernel, through real processes
 * (live/live_backend.c), is another; the kernel's own mm/vma.c compiled from a
 * kernel tree is the third. The executor (mm_run.h), conform and the
 * checks that compare two backends reach an address space only through
 * these operations.
 *
 * One operation of a program runs as
 *
 *   get(c)       hold the process c->a.proc (false: it does not exist)
 *   resolve(c)   the range spec c->a.range into c->start, c->len, against
 *                the process as the backend sees it (only for operations
 *                whose table entry has a range)
 *   call(c)      run it: c->result
 *   put(c)       release the hold
 *
 * so a backend can keep its own locks and references across the steps, as
 * a system call keeps the mm it works on. A backend that cannot run some
 * call says why in `refuses` (the executor then skips it, conform reports
 * it), rather than running something else.
 */
#ifndef VMAFUZZ_AS_BACKEND_H
#define VMAFUZZ_AS_BACKEND_H

#include "fuzz/prog/mm_ops.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One VMA as two backends compare it (smaps' view). The figures after
 * rss and anon are filled by backends that have pages, when asked for
 * usage: pages where smaps counts whole pages, kB (rounded down, as smaps
 * prints them) for the proportional ones. */
struct as_vma {
	uint64_t start, end;
	uint64_t flags;	    /* the kernel's VM_* bits the backend can show */
	uint64_t pgoff;	    /* in pages */
	uint64_t rss, anon; /* resident and anonymous pages */
	bool file;	    /* file-backed (shmem too): smaps shows its offset */
	uint64_t pss_kb, pss_dirty_kb;
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty; /* pages */
	/* The userfaultfd context it is registered with, as the backend names
	 * contexts (equal names, one context), or 0: none, or the backend
	 * cannot tell (its modes are in flags) */
	uint32_t uffd;
};

/* The VM_* bits an as_vma carries (the kernel's values). */
#define AS_VM_READ 0x1ull
#define AS_VM_WRITE 0x2ull
#define AS_VM_EXEC 0x4ull
#define AS_VM_SHARED 0x8ull
#define AS_VM_MAYREAD 0x10ull
#define AS_VM_MAYWRITE 0x20ull
#define AS_VM_MAYEXEC 0x40ull
#define AS_VM_MAYSHARE 0x80ull
#define AS_VM_GROWSDOWN 0x100ull
#define AS_VM_UFFD_MISSING 0x200ull
#define AS_VM_UFFD_WP 0x1000ull
#define AS_VM_LOCKED 0x2000ull
#define AS_VM_DONTCOPY 0x20000ull
#define AS_VM_LOCKONFAULT 0x80000ull
#define AS_VM_ACCOUNT 0x100000ull
#define AS_VM_WIPEONFORK 0x2000000ull
#define AS_VM_UFFD_MINOR (1ull << 41)

struct as_backend {
	const char *name;
	/* A fresh set of processes with p0 alive and nothing mapped in the
	 * window; NULL (message on stderr when @err is NULL) on failure. */
	void *(*open)(char *err, size_t errlen);
	/* Check what must hold at the end, then free everything. */
	void (*close)(void *as);

	bool (*get)(void *as, struct mm_call *c);
	void (*resolve)(void *as, struct mm_call *c);
	void (*call)(void *as, struct mm_call *c);
	void (*put)(void *as, struct mm_call *c);
	/* Whether @c may absorb an injected allocation failure and succeed
	 * (the kernel's mmap falls back to a VMA of its own when a merge's
	 * preallocation fails); NULL: no call does. */
	bool (*absorbs)(const struct mm_call *c);
	/* Why the backend cannot run @c (resolved), or NULL: it can. */
	const char *(*refuses)(void *as, const struct mm_call *c);

	/* Process @proc's VMAs meeting [lo, hi), in address order, at most
	 * @max: how many, or -1 (message in @err, unless @errlen is 0) when
	 * they cannot be read: with @max 0, whether the process exists.
	 * Resident counts only with @usage (they cost a page-table walk). */
	int (*vmas)(void *as, unsigned proc, uint64_t lo, uint64_t hi, bool usage,
		    struct as_vma *out, unsigned max, char *err, size_t errlen);
	/* Process @proc's pages present in [lo, hi), in address order, each
	 * with what it holds (page data, mm_ops.h): @fn(@arg, address, value)
	 * for each. 0, or -1 (message in @err) when they cannot be read. NULL:
	 * the backend has no pages to show. */
	int (*pages)(void *as, unsigned proc, uint64_t lo, uint64_t hi,
		     void (*fn)(void *arg, uint64_t addr, uint64_t value), void *arg, char *err,
		     size_t errlen);
	/* Counts that change whenever process @proc's VMAs (*@vmas), or the
	 * pages it maps or the data of any page (*@pages), may have changed
	 * (the same after nothing did), so that what nothing touched is not
	 * compared again; NULL: the backend cannot tell, all is compared. */
	void (*changes)(void *as, unsigned proc, uint64_t *vmas, uint64_t *pages);
	/* The lock an await of class @cls (enum mmf_lock_class) waits on when
	 * it names instance @k: file f<k>'s i_mmap lock, process p<k>'s mmap
	 * lock; NULL when there is none (the await then goes on at once).
	 * NULL hook: the backend's locks are not the scheduler's, every await
	 * counts its class. */
	const void *(*lock_of)(void *as, unsigned cls, unsigned k);
	/* Every invariant the backend knows (reports through check_fail). */
	void (*check)(void *as);
	/* The state as text, for a failure report. */
	void (*dump)(FILE *out, void *as);
};

/* The model (src/mm/). */
extern const struct as_backend as_model;

#endif
