/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The end of an address space (mm/mmap.c exit_mmap, kernel/fork.c mmput):
 * every VMA, page and page table freed; after a failed fork the walk stops at
 * the failure mark (the zero entry), as the kernel's does.
 */
#ifndef VMAFUZZ_MM_EXIT_H
#define VMAFUZZ_MM_EXIT_H

#include "mm/types.h"

/* Unmap everything and free the mm. The _nested form takes the mmap lock at
 * @subclass, for a child destroyed while its parent's lock is held. */
void mm_destroy(struct mm *mm);
void mm_destroy_nested(struct mm *mm, unsigned subclass);
/* mmput: drop a user; the last one ends the address space (mm_destroy). */
void mm_put(struct mm *mm);

#endif
