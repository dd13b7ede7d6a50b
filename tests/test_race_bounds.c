/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz race's oracle (live/race_bounds.h): the union of ranges in pages,
 * which ranges meet, and the Rss bounds of a torn smaps_rollup read, firing
 * on a value below the stable VMAs' pages and on one above the rest plus
 * the race's pages, quiet on the bounds themselves.
 */
#include "live/race_bounds.h"
#include "test.h"

#include <string.h>

#define PG 4096ull

static bool union_counts_overlaps_once(void)
{
	struct race_range r[] = {{10 * PG, 20 * PG},
				 {0, 4 * PG},
				 {15 * PG, 30 * PG},
				 {5 * PG, 5 * PG},
				 {2 * PG, 3 * PG}};

	ASSERT_EQ(race_union_pages(r, 5), 24u); /* [0,4) and [10,30) */
	ASSERT_EQ(race_union_pages(r, 0), 0u);
	return true;
}

static bool meets_is_overlap(void)
{
	struct race_range r[] = {{10 * PG, 20 * PG}, {40 * PG, 40 * PG}};
	struct race_range in = {15 * PG, 16 * PG}, below = {0, 10 * PG}, above = {20 * PG, 21 * PG};
	struct race_range at_empty = {39 * PG, 41 * PG};

	ASSERT(race_range_meets(&in, r, 2));
	ASSERT(!race_range_meets(&below, r, 2));
	ASSERT(!race_range_meets(&above, r, 2));
	ASSERT(!race_range_meets(&at_empty, r, 2)); /* an empty range touches nothing */
	return true;
}

static bool bounds_fire_outside(void)
{
	struct race_bounds b = race_rss_bounds(8, 1000, 64);
	char why[256] = "";

	ASSERT_EQ(b.lo_kb, 1000u + 32u);
	ASSERT_EQ(b.hi_kb, 1000u + 256u);
	ASSERT(race_rss_check(&b, 1032, why, sizeof(why)));
	ASSERT(race_rss_check(&b, 1256, why, sizeof(why)));
	/* one page short: a VMA outside the race the reader skipped */
	ASSERT(!race_rss_check(&b, 1028, why, sizeof(why)));
	ASSERT(strstr(why, "below") != NULL);
	ASSERT(!race_rss_check(&b, 1260, why, sizeof(why)));
	ASSERT(strstr(why, "above") != NULL);
	return true;
}

int main(void)
{
	TEST(union_counts_overlaps_once);
	TEST(meets_is_overlap);
	TEST(bounds_fire_outside);
	return test_summary();
}
