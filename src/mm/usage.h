/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-VMA resident pages, as /proc/PID/smaps reports them.
 */
#ifndef VMAFUZZ_MM_USAGE_H
#define VMAFUZZ_MM_USAGE_H

#include "mm/types.h"

#include <stdbool.h>

struct vma_usage {
	uint64_t rss, anonymous; /* pages */
};

void vma_usage(struct mm *mm, const struct vma *v, struct vma_usage *u);
/*
 * For failure reports: as vma_usage, but no page table or page is read
 * that is not a live allocation (a broken operation may have freed it);
 * false, with @u counting what could be read, when one was met.
 */
bool vma_usage_guarded(struct mm *mm, const struct vma *v, struct vma_usage *u);

#endif
