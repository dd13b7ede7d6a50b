/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Comparing what two address-space backends show (as_backend.h): VMA lists
 * equal on the bits both can show, and the two side by side for a report,
 * rows joined by start address, a '!' on each row that differs.
 */
#ifndef VMAFUZZ_AS_DIFF_H
#define VMAFUZZ_AS_DIFF_H

#include "as_backend.h"

#include <stdbool.h>
#include <stdio.h>

/* What the live kernel and the model both show of a VMA (smaps' perm
 * column and VmFlags dc, wf, ac, lo, lf). */
#define AS_DIFF_FLAGS                                                                              \
	(AS_VM_READ | AS_VM_WRITE | AS_VM_EXEC | AS_VM_MAYSHARE | AS_VM_DONTCOPY |                 \
	 AS_VM_WIPEONFORK | AS_VM_ACCOUNT | AS_VM_LOCKED | AS_VM_LOCKONFAULT)

/* Two VMAs agree: range, the flags of @mask, resident and anonymous pages. */
bool as_vma_same(const struct as_vma *a, const struct as_vma *b, uint64_t mask);
bool as_vmas_same(const struct as_vma *a, unsigned na, const struct as_vma *b, unsigned nb,
		  uint64_t mask);
/* "@0x10-0x18 rw-p ac dc wf lo rss 32k anon 32k": addresses in pages from @base
 * (the window's start, as a program's @ ranges count). */
const char *as_vma_str(const struct as_vma *v, uint64_t base, char *buf, size_t len);
/* Both lists side by side under the headings @left and @right. */
void as_print_views(FILE *out, const char *left, const struct as_vma *a, unsigned na,
		    const char *right, const struct as_vma *b, unsigned nb, uint64_t mask,
		    uint64_t base);

#endif
