/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own VMA code (mm/vma.c of a kernel tree given at build time,
 * with tools/testing/vma's stubs around it, kernel/vma/vma.mk) seen through
 * plain C types: one address space and the anonymous-memory system calls
 * on it. kvma_unit.c, compiled with the kernel's headers, implements this;
 * kvma_backend.c turns it into the struct as_backend `as_kernel_vma`. No
 * kernel header is needed to use it.
 *
 * The callers of vma.c live in mm/mmap.c, mm/mprotect.c and mm/madvise.c,
 * which are not compiled: the layout's callers file (kernel/vma/probe.sh
 * finds the layout) writes what they do around vma.c's calls, step for
 * step, minus pages, page tables and locks: do_mmap + mmap_region,
 * do_mprotect_pkey + mprotect_fixup, do_madvise + madvise_walk_vmas +
 * madvise_update_vma, __vm_munmap (vma-merge-api, 6.12), or only what
 * mm/vma.c does not have itself (vma-mmap-region, 7.3: its mmap_region,
 * unmapped_area_topdown and __vm_munmap are the kernel's).
 *
 * Allocations of VMAs (vm_area_alloc, vm_area_dup) and of the shmem file
 * of a shared anonymous mapping ask the runtime's failure injector
 * (alloc_fail_next), as the maple tree's nodes do (kernel/maple/kmt_unit.c).
 */
#ifndef VMAFUZZ_KVMA_H
#define VMAFUZZ_KVMA_H

#include <stdint.h>
#include <stdio.h>

struct kvma_mm;

struct kvma_vma {
	uint64_t start, end;
	uint64_t flags; /* the kernel's VM_* bits */
	uint64_t pgoff;
};

/* The layout the objects were built for (KVMA_LAYOUT of kernel/vma/probe.sh). */
const char *kvma_layout(void);

/* An empty address space whose mmap window (get_unmapped_area's
 * mmap_min_addr and mmap_end) is [lo, hi); NULL when out of memory. */
struct kvma_mm *kvma_create(uint64_t lo, uint64_t hi);
/* Every VMA and the tree freed. */
void kvma_destroy(struct kvma_mm *k);

/* The system calls, the kernel's values of prot, flags and advice;
 * anonymous mappings only (a file mapping is -EINVAL). An address or 0,
 * or -errno. */
int64_t kvma_mmap(struct kvma_mm *k, uint64_t addr, uint64_t len, int prot, int flags);
int kvma_munmap(struct kvma_mm *k, uint64_t start, uint64_t len);
int kvma_mprotect(struct kvma_mm *k, uint64_t start, uint64_t len, int prot);
int kvma_madvise(struct kvma_mm *k, uint64_t start, uint64_t len, int advice);

/* The VMAs meeting [lo, hi), at most @max: how many. */
int kvma_vmas(struct kvma_mm *k, uint64_t lo, uint64_t hi, struct kvma_vma *out, unsigned max);
int kvma_map_count(struct kvma_mm *k);

/* mm/vma.c's validate_mm (mt_validate of the tree, every VMA's range
 * against its slot, map_count against the walk), and VMAs allocated
 * against VMAs in the tree. Returns the assertions that fired meanwhile,
 * each also reported through check_fail (CK_KVMA_BUG; the count through
 * CK_MEM_LIVE_MISMATCH). */
uint64_t kvma_validate(struct kvma_mm *k);
/* Assertions of the VMA code that fired so far. */
uint64_t kvma_bugs(void);
/* VMAs allocated and not freed, over every address space. */
uint64_t kvma_live(void);

/* The VMAs and the tree (mt_dump) to @out. */
void kvma_dump(FILE *out, struct kvma_mm *k);

/* Tests: skew the mm's map_count by @delta (validate_mm must object). */
void kvma_test_skew_count(struct kvma_mm *k, int delta);

#endif
