/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Touching memory: the VMA lookup and access checks of a page fault
 * (mm/memory.c handle_mm_fault's callers), page by page, then the access
 * itself (a page's data is one value, page.h); page.h faults one.
 */
#ifndef VMAFUZZ_MM_FAULT_H
#define VMAFUZZ_MM_FAULT_H

#include "mm/types.h"

/* Touch [start, start + len): a read or write fault on every page, at most
 * MM_TOUCH_MAX_PAGES of them (programs stay bounded). */
#define MM_TOUCH_MAX_PAGES 256ull
int mm_touch(struct mm *mm, uint64_t start, uint64_t len, bool write);
/* The same, with the accesses' data: a write stores @val + i in the i-th
 * page of the range; a read sets @seen[i] (when @seen is not NULL) to what
 * the i-th page holds, for each page it reached. */
int mm_access(struct mm *mm, uint64_t start, uint64_t len, bool write, uint64_t val,
	      uint64_t *seen);

#endif
