/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle of vmafuzz race for a read of smaps_rollup while other threads
 * of the process map, unmap, split, merge and fault: which Rss it may show.
 * The reader walks the VMAs and may drop the mmap lock between them, so it
 * can see some VMAs before a change and others after it (the tearing
 * rules). Whatever it sees, it counts every VMA once: at least what is
 * resident outside the race's pages, which stays as it was, plus the
 * resident pages of the VMAs no racing operation's range touches (nothing
 * can change them), and at most that outside part plus every page the race
 * can reach (the VMAs after the setup and the racing operations' ranges,
 * mremap's destinations included). A reader that skips a VMA it did not
 * see change falls below.
 *
 * Pure arithmetic on page ranges: no system call, no model.
 */
#ifndef VMAFUZZ_RACE_BOUNDS_H
#define VMAFUZZ_RACE_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A byte range [start, end) (page aligned by the caller's rounding). */
struct race_range {
	uint64_t start, end;
};

/* What Rss (kB) a read may show. */
struct race_bounds {
	uint64_t lo_kb, hi_kb;
};

/* Pages covered by the union of @n ranges (sorted in place; empty ones
 * count nothing). */
uint64_t race_union_pages(struct race_range *r, unsigned n);
/* The range meets one of @n ranges. */
bool race_range_meets(const struct race_range *a, const struct race_range *r, unsigned n);
/* The bounds: @stable_pages resident in VMAs no racing range touches,
 * @rest_kb resident outside the race's pages (smaps, summed), @race_pages
 * the pages the race can reach. */
struct race_bounds race_rss_bounds(uint64_t stable_pages, uint64_t rest_kb, uint64_t race_pages);
/* @rss_kb is inside @b; else false with "Rss 12 kB below the 16 kB ..." in
 * @why. */
bool race_rss_check(const struct race_bounds *b, uint64_t rss_kb, char *why, size_t whylen);

#endif
