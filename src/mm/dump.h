/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address space as text, for failure reports.
 *
 * A report may follow an operation that broke the state, so the dump reads
 * no object that is not a live allocation (alloc_is_live): a freed VMA,
 * anon_vma, chain entry, file, page table or page is named as freed and
 * not read. The tree's own nodes are read as they are.
 */
#ifndef VMAFUZZ_MM_DUMP_H
#define VMAFUZZ_MM_DUMP_H

#include "mm/types.h"

#include <stdio.h>

void mm_dump(FILE *out, struct mm *mm);
/* smaps-style two-letter names of @flags ("rd wr ac"), in @buf. */
const char *vma_flags_str(uint64_t flags, char *buf, size_t len);

#endif
