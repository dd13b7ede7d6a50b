/* SPDX-License-Identifier: GPL-2.0 */
/*
 * as_kernel_vma: the address-space seam (fuzz/as/as_backend.h) over the
 * kernel's own mm/vma.c (kernel/vma/kvma.h, docs/kernel.md "The vma backend").
 * Process p0 only, anonymous memory only: mmap (fixed, noreplace, hint),
 * munmap, mprotect, madvise dontneed (no pages: a check of the VMAs only),
 * dontfork, dofork, wipeonfork, keeponfork. Everything else is refused.
 * The model that shadows it follows the tree's version (kfuzz_vma.c).
 */
#ifndef VMAFUZZ_KVMA_BACKEND_H
#define VMAFUZZ_KVMA_BACKEND_H

#include "fuzz/as/as_backend.h"

extern const struct as_backend as_kernel_vma;

/* The release of the tree this backend was built from ("6.12.118"). */
extern const char kvma_tree_release[];

#endif
