/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fuzz_mm's calls the kernel's mm/vma.c cannot run in userspace (with
 * tools/testing/vma's stubs: no pages, no files, no other process): the
 * refusals of the kernel vma backend (kernel/vma/kvma_backend.c), here
 * apart from the kernel's code so that a tool with no kernel objects (vmafuzz
 * repro --ktest) skips the same calls.
 */
#ifndef VMAFUZZ_VMA_STUB_REFUSAL_H
#define VMAFUZZ_VMA_STUB_REFUSAL_H

#include "fuzz/prog/mm_ops.h"

/* Why @c (resolved) cannot run on the kernel's VMA code, or NULL: it can. */
const char *vma_stub_refusal(const struct mm_call *c);

#endif
