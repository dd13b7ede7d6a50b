/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mprotect (mm/mprotect.c): the new flags through vma_modify, VM_ACCOUNT as
 * the kernel charges it, write permission removed from the page table.
 */
#ifndef VMAFUZZ_MM_MPROTECT_H
#define VMAFUZZ_MM_MPROTECT_H

#include "mm/types.h"

/* 0 or a negative errno. */
int mm_mprotect(struct mm *mm, uint64_t start, uint64_t len, int prot);

#endif
