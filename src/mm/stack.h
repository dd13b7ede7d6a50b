/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MAP_GROWSDOWN stacks (mm/mmap.c expand_downwards, and the fault path of
 * mm/memory.c lock_mm_and_find_vma): a fault below a VM_GROWSDOWN VMA, in
 * the gap under it, grows the VMA down to the faulting page, unless that
 * comes within stack_guard_gap (256 pages) of an accessible VMA below that
 * is no stack itself, or the stack would exceed RLIMIT_STACK (8 MiB, as on
 * this machine). mmap without MAP_FIXED keeps the guard gap free: a hint
 * or a free range ending inside it is not taken (vm_start_gap); MAP_FIXED
 * and MAP_FIXED_NOREPLACE may map there.
 */
#ifndef VMAFUZZ_MM_STACK_H
#define VMAFUZZ_MM_STACK_H

#include "mm/types.h"

#define MM_STACK_GUARD_GAP (256ull << PAGE_SHIFT)
#define MM_RLIMIT_STACK (8ull << 20)

/* Where @v's range begins for placement: its start, less the guard gap
 * under a stack. */
uint64_t vm_start_gap(const struct vma *v);
/* expand_downwards: @v grows down to the page of @addr (mmap write lock
 * held). 0; -EFAULT when it may not (no stack, the guard gap, past
 * RLIMIT_STACK: SIGSEGV; the kernel says -ENOMEM for the last two, and its
 * fault path makes every error a SIGSEGV); -ENOMEM when an allocation
 * fails, as the model's faults say. */
int expand_downwards(struct vma *v, uint64_t addr);

#endif
