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

/* Everything smaps shows of a VMA that the model has a meaning for: the
 * permissions and VmFlags rd wr ex sh mr mw me ms gd um uw lo ui dc lf ac wf
 * (not sd: kernels without CONFIG_MEM_SOFT_DIRTY do not show it). */
#define AS_SMAPS_FLAGS                                                                             \
	(AS_DIFF_FLAGS | AS_VM_SHARED | AS_VM_MAYREAD | AS_VM_MAYWRITE | AS_VM_MAYEXEC |           \
	 AS_VM_GROWSDOWN | AS_VM_UFFD_MISSING | AS_VM_UFFD_WP | AS_VM_UFFD_MINOR)

/* Two VMAs agree: range, the flags of @mask, resident and anonymous pages;
 * with @smaps also pgoff, Pss, Pss_Dirty and Shared/Private Clean/Dirty. */
bool as_vma_same(const struct as_vma *a, const struct as_vma *b, uint64_t mask, bool smaps);
bool as_vmas_same(const struct as_vma *a, unsigned na, const struct as_vma *b, unsigned nb,
		  uint64_t mask, bool smaps);
/* "@0x10-0x18 rw-p ac dc wf lo rss 32k anon 32k": addresses in pages from @base
 * (the window's start, as a program's @ ranges count). */
const char *as_vma_str(const struct as_vma *v, uint64_t base, char *buf, size_t len);
/* The rest of smaps' view: "pgoff 0x10 pss 16k pss_dirty 16k shared 0k/32k
 * private 0k/0k mr mw me sh gd um uw ui" (clean/dirty). */
const char *as_vma_more(const struct as_vma *v, char *buf, size_t len);
/* Both lists side by side under the headings @left and @right; with @smaps
 * 1, compared as as_vma_same does with smaps, and under each row that
 * differs the rest of both views (as_vma_more); 2: under every row. */
void as_print_views(FILE *out, const char *left, const struct as_vma *a, unsigned na,
		    const char *right, const struct as_vma *b, unsigned nb, uint64_t mask,
		    uint64_t base, int smaps);

#endif
