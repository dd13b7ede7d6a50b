/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel versions the model follows (src/mm/kver.h): releases read as
 * uname gives them, refused when they are not versions, clamped to what
 * the model knows; a rule holds from its mainline release on and in the
 * point releases of the branches it was backported to, and nowhere else;
 * the table names every rule.
 */
#include "mm/kver.h"
#include "test.h"

#include <string.h>

static bool parses_releases(void)
{
	unsigned v = 0;
	char s[32];

	ASSERT(kver_parse("6.18.44-fc-v1300", &v));
	ASSERT_EQ(v, KVER(6, 18, 44));
	ASSERT(kver_parse("6.12", &v));
	ASSERT_EQ(v, KVER(6, 12, 0));
	ASSERT(kver_parse("7.3.4+deb13-amd64", &v));
	ASSERT_EQ(v, KVER(7, 3, 4));
	ASSERT(!kver_parse("", &v));
	ASSERT(!kver_parse("6", &v));
	ASSERT(!kver_parse("6.", &v));
	ASSERT(!kver_parse("6.x", &v));
	ASSERT(!kver_parse("0.12", &v));
	ASSERT(!kver_parse("6.12.", &v));
	ASSERT(!kver_parse("6.12rc1", &v));
	ASSERT(!kver_parse("6.1234", &v));
	kver_print(KVER(6, 12, 118), s, sizeof(s));
	ASSERT(!strcmp(s, "6.12.118"));
	kver_print(KVER_BRANCH(6, 1), s, sizeof(s));
	ASSERT(!strcmp(s, "6.1"));
	ASSERT_EQ(kver_known(KVER(5, 15, 1)), KVER_OLDEST);
	ASSERT_EQ(kver_known(KVER(9, 0, 0)), KVER_NEWEST);
	ASSERT_EQ(kver_known(KVER(6, 18, 44)), KVER(6, 18, 44));
	return true;
}

static bool rules_by_release_and_backport(void)
{
	/* mainline from 6.16 on only */
	ASSERT(!kver_has(KVER(6, 12, 118), KV_ANON_MERGE_INTO_UNFAULTED));
	ASSERT(!kver_has(KVER(6, 15, 9), KV_ANON_MERGE_INTO_UNFAULTED));
	ASSERT(kver_has(KVER(6, 16, 0), KV_ANON_MERGE_INTO_UNFAULTED));
	ASSERT(kver_has(KVER(9, 0, 0), KV_ANON_MERGE_INTO_UNFAULTED)); /* as the newest */
	/* backported to 6.1.y and 6.12.y, not (yet) in this 6.18.44 */
	ASSERT(kver_has(KVER(6, 12, 118), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(kver_has(KVER_BRANCH(6, 12), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(!kver_has(KVER(6, 12, 117), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(kver_has(KVER(6, 1, 192), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(!kver_has(KVER(6, 6, 200), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(!kver_has(KVER(6, 18, 44), KV_DONTUNMAP_UNFAULTED_PGOFF));
	ASSERT(kver_has(KVER(7, 3, 4), KV_DONTUNMAP_UNFAULTED_PGOFF));
	for (unsigned r = 0; r < KV_NRULES; r++)
		ASSERT(kver_rules[r].name && kver_rules[r].change && kver_rules[r].since);
	return true;
}

int main(void)
{
	TEST(parses_releases);
	TEST(rules_by_release_and_backport);
	return test_summary();
}
