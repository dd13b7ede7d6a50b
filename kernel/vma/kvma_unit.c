/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own mm/vma.c, compiled in this translation unit from the
 * kernel tree named at build time (kernel/vma/vma.mk) with the stubs of
 * tools/testing/vma/vma_internal.h, as tools/testing/vma's test program
 * includes it, and the kvma.h interface over it. What the tree does not
 * compile for us, the callers of vma.c in mm/mmap.c, mm/mprotect.c and
 * mm/madvise.c, is written after the kernel's code, step for step, minus
 * what the stubs have no state for (pages, page tables, locks, rlimits,
 * accounting of commit charge, security hooks, pkeys), in the file of the
 * tree's layout (kernel/vma/probe.sh, KVMA_CALLERS_C):
 *   vma-merge-api     kvma_callers_merge_api.c: vma.c has the merge and
 *                     split API, mmap_region lives in mm/mmap.c
 *   vma-mmap-region   kvma_callers_mmap_region.c: vma.c has mmap_region
 *                     too (and mm/vma_init.c the VMA allocator), which are
 *                     the kernel's own here
 *
 * Routing (docs/kernel.md, "The vma backend"):
 *  - the maple tree is kmt.o's (lib/maple_tree.c with its nodes failable
 *    through the runtime): kernel/vma/vma.mk renames this object's references
 *    with kmt.o's list, and its own globals kvma_k_<name>;
 *  - VMAs: where the stubs allocate them (vm_area_alloc / vm_area_dup /
 *    vm_area_free, renamed on the way in and wrapped), each allocation
 *    asks alloc_fail_next twice (the VMA and its lock, as 6.12 takes them
 *    from two slab caches); where the tree's mm/vma_init.c does
 *    (KVMA_VMA_INIT_C), its slab calls are hooked and each object asks
 *    once, as many as the kernel's code takes. Live VMAs are counted;
 *  - a shared anonymous mapping's shmem file (shmem_zero_setup) is a file
 *    of ours per mapping (its own address_space), failable, freed with the
 *    address space (the stubs' fput is empty);
 *  - assertions: kernel/vma/shim/kvma_shim.h routes VM_WARN_ON & co to
 *    kvma_warn -> check_fail(CK_KVMA_BUG).
 */
#include "runtime/alloc.h"
#include "runtime/check.h"
#include <stdarg.h>
#include <stdint.h>

#ifdef KVMA_VMA_INIT_C
#define kmem_cache_alloc_lru kvma_hook_cache_alloc
#define kmem_cache_free kvma_hook_cache_free
#else
#define vm_area_alloc kvma_stub_vm_area_alloc
#define vm_area_dup kvma_stub_vm_area_dup
#define vm_area_free kvma_stub_vm_area_free
#define __vm_area_free kvma_stub___vm_area_free
#endif
#define shmem_zero_setup kvma_stub_shmem_zero_setup

#include "maple-shared.h"

#include KVMA_INTERNAL_H

#undef vm_area_alloc
#undef vm_area_dup
#undef vm_area_free
#undef __vm_area_free
#undef shmem_zero_setup

#include "shim/kvma_shim.h"

#ifndef KVMA_VMA_INIT_C
static struct vm_area_struct *vm_area_alloc(struct mm_struct *mm);
static struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig);
static void vm_area_free(struct vm_area_struct *vma);
static void __vm_area_free(struct vm_area_struct *vma);
#endif
static int kvma_shmem_zero_setup(struct vm_area_struct *vma);
#define shmem_zero_setup kvma_shmem_zero_setup

#include KVMA_VMA_H

#ifdef KVMA_VMA_INIT_C
#include KVMA_VMA_INIT_C
#endif
#include KVMA_VMA_C

#ifdef KVMA_VMA_INIT_C
#undef kmem_cache_alloc_lru
#undef kmem_cache_free
/* The shim's allocator (kmt.o's linux.c), under its own names. */
void *kmem_cache_alloc_lru(struct kmem_cache *cachep, struct list_lru *lru, int gfp);
void kmem_cache_free(struct kmem_cache *cachep, void *objp);
#endif

#include "kvma.h"

/* ---- VMAs and assertions -------------------------------------------------- */

static uint64_t live_vmas, nbugs;

#ifdef KVMA_VMA_INIT_C
/*
 * mm/vma_init.c's vm_area_alloc, vm_area_dup and vm_area_free take VMAs
 * from their slab cache, the only one in this unit: each object is one
 * allocation for fail_at.
 */
void *kvma_hook_cache_alloc(struct kmem_cache *cachep, struct list_lru *lru, int gfp)
{
	void *p;

	if (alloc_fail_next(AK_VMA))
		return NULL;
	p = kmem_cache_alloc_lru(cachep, lru, gfp);
	MODEL_ASSERT(p != NULL);
	live_vmas++;
	return p;
}

void kvma_hook_cache_free(struct kmem_cache *cachep, void *objp)
{
	MODEL_ASSERT(live_vmas > 0);
	live_vmas--;
	kmem_cache_free(cachep, objp);
}

/* the VMA cache, made before main as the kernel makes it at boot */
__attribute__((constructor)) static void kvma_init(void)
{
	vma_state_init();
}
#else
static struct vm_area_struct *vm_area_alloc(struct mm_struct *mm)
{
	struct vm_area_struct *vma;

	if (alloc_fail_next(AK_VMA) || alloc_fail_next(AK_VMA))
		return NULL;
	vma = kvma_stub_vm_area_alloc(mm);
	MODEL_ASSERT(vma != NULL);
	live_vmas++;
	return vma;
}

static struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig)
{
	struct vm_area_struct *vma;

	if (alloc_fail_next(AK_VMA) || alloc_fail_next(AK_VMA))
		return NULL;
	vma = kvma_stub_vm_area_dup(orig);
	MODEL_ASSERT(vma != NULL);
	live_vmas++;
	return vma;
}

static void __vm_area_free(struct vm_area_struct *vma)
{
	MODEL_ASSERT(live_vmas > 0);
	live_vmas--;
	kvma_stub___vm_area_free(vma);
}

static void vm_area_free(struct vm_area_struct *vma)
{
	__vm_area_free(vma);
}
#endif

int kvma_warn(int cond, const char *file, int line, const char *expr)
{
	const char *base = file;

	if (!cond)
		return 0;
	for (const char *p = file; *p; p++)
		if (*p == '/' && p[1] && (p[1] != 'v' || p[2] != 'm' || p[3] != 'a'))
			base = p + 1;
	nbugs++;
	check_fail(CK_KVMA_BUG, "the kernel's VMA code: %s at %s:%d", expr, base, line);
	return 1;
}

uint64_t kvma_bugs(void)
{
	return nbugs;
}

uint64_t kvma_live(void)
{
	return live_vmas;
}

const char *kvma_layout(void)
{
	return KVMA_LAYOUT_NAME;
}

/* ---- the address space ---------------------------------------------------- */

#define KVMA_FAIL_FILE() alloc_fail_next(AK_FILE)
#define KVMA_ASSERT(cond) MODEL_ASSERT(cond)
#include "kvma_space.c"

/* the system calls, as the layout's callers of vma.c make them */
#include KVMA_CALLERS_C

int kvma_vmas(struct kvma_mm *k, uint64_t lo, uint64_t hi, struct kvma_vma *out, unsigned max)
{
	struct vm_area_struct *vma;
	unsigned n = 0;
	VMA_ITERATOR(vmi, &k->mm, lo);

	if (hi <= lo)
		return 0;
	for_each_vma_range(vmi, vma, hi)
	{
		if (n == max)
			break;
		out[n++] =
		    (struct kvma_vma){vma->vm_start, vma->vm_end, vma->vm_flags, vma->vm_pgoff};
	}
	return (int)n;
}

int kvma_map_count(struct kvma_mm *k)
{
	return k->mm.map_count;
}

uint64_t kvma_validate(struct kvma_mm *k)
{
	uint64_t before = nbugs;
	struct mm_struct *mm = enter(k);

	rcu_read_lock();
	validate_mm(mm);
	rcu_read_unlock();
	if (live_vmas != (uint64_t)mm->map_count)
		check_fail(CK_MEM_LIVE_MISMATCH,
			   "%llu VMAs of the kernel's VMA code alive, %d in the tree",
			   (unsigned long long)live_vmas, mm->map_count);
	return nbugs - before;
}

void kvma_dump(FILE *out, struct kvma_mm *k)
{
	struct vm_area_struct *vma;
	VMA_ITERATOR(vmi, &k->mm, 0);

	fprintf(out, "kernel vma (%s): map_count %d\n", KVMA_LAYOUT_NAME, k->mm.map_count);
	for_each_vma(vmi, vma)
	    fprintf(out, "  %#lx-%#lx flags %#lx pgoff %#lx%s%s\n", vma->vm_start, vma->vm_end,
		    vma->vm_flags, vma->vm_pgoff, vma->vm_file ? " shmem" : "",
		    vma_is_anonymous(vma) ? " anon" : "");
}

void kvma_test_skew_count(struct kvma_mm *k, int delta)
{
	k->mm.map_count += delta;
}
