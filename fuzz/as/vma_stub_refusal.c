/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calls the kernel's VMA code cannot run here (vma_stub_refusal.h).
 */
#include "vma_stub_refusal.h"

const char *vma_stub_refusal(const struct mm_call *c)
{
	if (c->a.proc % MMF_MAX_PROCS)
		return "the kernel's VMA code runs process p0 only (no fork)";
	switch (c->code) {
	case MMF_OP_MMAP:
		if (c->a.kind != MMF_PRIVATE_ANON && c->a.kind != MMF_SHARED_ANON)
			return "no files in the kernel's VMA stubs (anonymous memory only)";
		if (mmf_populates(&c->a))
			return "the kernel's VMA stubs have no pages to populate or lock";
		if (c->a.prot & MMF_MAP_GROWSDOWN)
			return "no stacks in the kernel's VMA stubs (MAP_GROWSDOWN)";
		return NULL;
	case MMF_OP_MUNMAP:
	case MMF_OP_MPROTECT:
		return NULL;
	case MMF_OP_MADVISE:
		if (c->a.advice > MMF_ADV_KEEPONFORK)
			return "the kernel's VMA stubs take the advices on VMA flags and dontneed "
			       "only";
		return NULL;
	case MMF_OP_TOUCH:
		return "the kernel's VMA stubs have no pages or page tables";
	case MMF_OP_FORK:
		return "no fork over the kernel's VMA code (dup_mmap is not in mm/vma.c)";
	case MMF_OP_MAP_LIMIT:
		return "the VMA stubs fix sysctl_max_map_count";
	default:
		return "only mmap, munmap, mprotect and madvise of anonymous memory run on the "
		       "kernel's VMA code";
	}
}
