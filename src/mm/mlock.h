/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlock, mlock2, munlock, mlockall and munlockall (mm/mlock.c), and the
 * population of page tables they share with MAP_POPULATE and mremap
 * (__mm_populate and populate_vma_page_range of mm/gup.c).
 *
 * Locking a range sets VM_LOCKED (and VM_LOCKONFAULT for MLOCK_ONFAULT) on
 * its VMAs through vma_modify, splitting and merging as mprotect does, then
 * faults in every page of it: a write fault where the mapping is private
 * and writable (to break copy-on-write), a read fault elsewhere; nothing
 * for VM_LOCKONFAULT; -EFAULT for PROT_NONE and where the kernel raises
 * SIGBUS (a userfaultfd's page, past a shmem file's end: mlock then says
 * -ENOMEM, as __mlock_posix_error_return does). mlockall(MCL_FUTURE) makes
 * every later mapping locked (mm->def_flags). mm->locked_vm counts the
 * pages of VM_LOCKED VMAs (the VMA_LOCKED_VM invariant); fork gives the
 * child none. No RLIMIT_MEMLOCK: the model runs as root.
 *
 * A population faults in at most MM_POPULATE_MAX_PAGES pages per call, so
 * that programs stay bounded (the kernel has no such limit;
 * docs/fidelity.md).
 */
#ifndef VMAFUZZ_MM_MLOCK_H
#define VMAFUZZ_MM_MLOCK_H

#include "mm/types.h"

#define MLOCK_ONFAULT 0x01
#define MCL_CURRENT 1
#define MCL_FUTURE 2
#define MCL_ONFAULT 4
#define MM_POPULATE_MAX_PAGES 1024ull

/* mlock (@vm_flags VM_LOCKED), mlock2 (with VM_LOCKONFAULT) and munlock:
 * 0 or a negative errno, as the kernel's (-ENOMEM for a hole). */
int mm_mlock(struct mm *mm, uint64_t start, uint64_t len, uint64_t vm_flags);
int mm_munlock(struct mm *mm, uint64_t start, uint64_t len);
int mm_mlockall(struct mm *mm, int flags);
int mm_munlockall(struct mm *mm);

/* __mm_populate: fault in the pages of [start, start + len) (takes the mmap
 * read lock). 0, or the first error unless @ignore_errors. */
int mm_populate_range(struct mm *mm, uint64_t start, uint64_t len, bool ignore_errors);
/* mm_populate: the same, errors ignored (MAP_POPULATE, a locked mapping). */
void mm_populate(struct mm *mm, uint64_t start, uint64_t len);
/* populate_vma_page_range of [start, end) inside @v (mmap lock held); the
 * pages it may still fault in are counted down in *@budget. */
int populate_vma(struct vma *v, uint64_t start, uint64_t end, uint64_t *budget);

/* mm->locked_vm += @pages. */
void mlock_account(struct mm *mm, int64_t pages);
/* @v (write-locked) is no longer locked, and locked_vm is left as it is
 * (mremap's MREMAP_DONTUNMAP: the pages moved to a VMA that is). */
void mlock_clear_vma(struct vma *v);

#endif
