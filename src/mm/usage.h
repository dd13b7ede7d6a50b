/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-VMA resident pages, as /proc/PID/smaps reports them.
 */
#ifndef VMAFUZZ_MM_USAGE_H
#define VMAFUZZ_MM_USAGE_H

#include "mm/types.h"

struct vma_usage {
	uint64_t rss, anonymous; /* pages */
};

void vma_usage(struct mm *mm, const struct vma *v, struct vma_usage *u);

#endif
