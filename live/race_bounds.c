/* SPDX-License-Identifier: GPL-2.0 */
/* The Rss a torn smaps_rollup read may show (race_bounds.h). */
#include "race_bounds.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define RACE_PAGE 4096ull
#define RACE_PAGE_KB (RACE_PAGE / 1024)

static int by_start(const void *a, const void *b)
{
	const struct race_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

uint64_t race_union_pages(struct race_range *r, unsigned n)
{
	uint64_t pages = 0, end = 0;

	qsort(r, n, sizeof(*r), by_start);
	for (unsigned i = 0; i < n; i++) {
		uint64_t s = r[i].start / RACE_PAGE * RACE_PAGE;
		uint64_t e = (r[i].end + RACE_PAGE - 1) / RACE_PAGE * RACE_PAGE;

		if (e <= s)
			continue;
		if (s < end)
			s = end; /* the part already counted */
		if (e > s) {
			pages += (e - s) / RACE_PAGE;
			end = e;
		}
	}
	return pages;
}

bool race_range_meets(const struct race_range *a, const struct race_range *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (r[i].start < r[i].end && a->start < r[i].end && r[i].start < a->end)
			return true;
	return false;
}

struct race_bounds race_rss_bounds(uint64_t stable_pages, uint64_t rest_kb, uint64_t race_pages)
{
	return (struct race_bounds){.lo_kb = rest_kb + stable_pages * RACE_PAGE_KB,
				    .hi_kb = rest_kb + race_pages * RACE_PAGE_KB};
}

bool race_rss_check(const struct race_bounds *b, uint64_t rss_kb, char *why, size_t whylen)
{
	if (rss_kb < b->lo_kb) {
		snprintf(
		    why, whylen,
		    "Rss %" PRIu64 " kB below the %" PRIu64
		    " kB resident outside the race and in the VMAs no racing operation touches",
		    rss_kb, b->lo_kb);
		return false;
	}
	if (rss_kb > b->hi_kb) {
		snprintf(why, whylen,
			 "Rss %" PRIu64 " kB above the %" PRIu64
			 " kB of the rest and every page the race can reach",
			 rss_kb, b->hi_kb);
		return false;
	}
	return true;
}
