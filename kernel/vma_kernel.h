/* SPDX-License-Identifier: GPL-2.0 */
/*
 * as_kernel_vma: the address-space seam (fuzz/as_backend.h) over the
 * kernel's own mm/vma.c (kernel/kvma.h, docs/kernel.md "The vma backend").
 * Process p0 only, anonymous memory only: mmap (fixed, noreplace, hint),
 * munmap, mprotect, madvise dontneed (no pages: a check of the VMAs only),
 * dontfork, dofork, wipeonfork, keeponfork. Everything else is refused.
 */
#ifndef VMAFUZZ_VMA_KERNEL_H
#define VMAFUZZ_VMA_KERNEL_H

#include "as_backend.h"

extern const struct as_backend as_kernel_vma;

#endif
