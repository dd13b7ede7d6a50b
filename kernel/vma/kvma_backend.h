/* SPDX-License-Identifier: GPL-2.0 */
/*
 * as_kernel_vma: the address-space seam (fuzz/as/as_backend.h) over the
 * kernel's own mm/vma.c (kernel/vma/kvma.h, docs/kernel.md "The vma backend").
 * Process p0 only, anonymous memory only: mmap (fixed, noreplace, hint),
 * munmap, mprotect, madvise dontneed (no pages: a check of the VMAs only),
 * dontfork, dofork, wipeonfork, keeponfork. Everything else is refused.
 */
#ifndef VMAFUZZ_KVMA_BACKEND_H
#define VMAFUZZ_KVMA_BACKEND_H

#include "fuzz/as/as_backend.h"

extern const struct as_backend as_kernel_vma;

#endif
