/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address space as text, for failure reports.
 */
#ifndef VMAFUZZ_MM_DUMP_H
#define VMAFUZZ_MM_DUMP_H

#include "mm/types.h"

#include <stdio.h>

void mm_dump(FILE *out, struct mm *mm);
/* smaps-style two-letter names of @flags ("rd wr ac"), in @buf. */
const char *vma_flags_str(uint64_t flags, char *buf, size_t len);

#endif
