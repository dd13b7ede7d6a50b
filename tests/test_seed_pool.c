/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seeds the mutator goes back to (fuzz/run/seed_pool.h): which files of a
 * directory are seeds (named ones, not the engine's hashes, not too large,
 * not twice), and that a pick is as likely to be any of them.
 */
#include "fuzz/prog/mutator.h"
#include "fuzz/run/seed_pool.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const void *data, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
}

static bool test_engine_names(void)
{
	ASSERT(seed_pool_engine_name("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
	ASSERT(!seed_pool_engine_name("da39a3ee5e6b4b0d3255bfef95601890afd8070"));
	ASSERT(!seed_pool_engine_name("da39a3ee5e6b4b0d3255bfef95601890afd807090"));
	ASSERT(!seed_pool_engine_name("DA39A3EE5E6B4B0D3255BFEF95601890AFD80709"));
	ASSERT(!seed_pool_engine_name("walkers_in_forks"));
	ASSERT(!seed_pool_engine_name(""));
	return true;
}

/* Named files once each, in name order; hashes, dot files, directories
 * and files larger than a program are not seeds. */
static bool test_named_files_are_seeds(void)
{
	char dir[] = "/tmp/vmafuzz-seeds-XXXXXX";
	static uint8_t big[MUT_MAX_SIZE + 1];
	size_t size;
	const uint8_t *s;
	char cmd[600];

	ASSERT(mkdtemp(dir) != NULL);
	put(dir, "b_seed", "bbbb", 4);
	put(dir, "a_seed", "aa", 2);
	put(dir, "c_same_as_a", "aa", 2);
	put(dir, "da39a3ee5e6b4b0d3255bfef95601890afd80709", "hash", 4);
	put(dir, ".hidden", "dot", 3);
	put(dir, "too_big", big, sizeof(big));
	put(dir, "empty", "", 0);
	snprintf(cmd, sizeof(cmd), "%s/subdir", dir);
	ASSERT_EQ(mkdir(cmd, 0700), 0);

	seed_pool_clear();
	ASSERT(seed_pool_pick(&(struct prng){1}, &size) == NULL);
	ASSERT_EQ(seed_pool_add_dir(dir), 2);
	ASSERT_EQ(seed_pool_count(), 2);
	ASSERT_EQ(seed_pool_add_dir(dir), 0); /* the same bytes again */
	ASSERT_EQ(seed_pool_add_dir("/nonexistent/vmafuzz"), 0);
	{
		struct prng r = {7};
		bool a = false, b = false;

		for (unsigned i = 0; i < 64; i++) {
			s = seed_pool_pick(&r, &size);
			ASSERT(s != NULL);
			a |= size == 2 && !memcmp(s, "aa", 2);
			b |= size == 4 && !memcmp(s, "bbbb", 4);
			ASSERT(size == 2 || size == 4);
		}
		ASSERT(a && b);
	}
	seed_pool_clear();
	ASSERT_EQ(seed_pool_count(), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT_EQ(system(cmd), 0);
	return true;
}

/* Each seed about as often as the next, and no more than the pool holds. */
static bool test_picks_are_even(void)
{
	unsigned seen[8] = {0};
	struct prng r = {11};
	uint8_t b;

	seed_pool_clear();
	for (unsigned i = 0; i < 8; i++) {
		b = (uint8_t)i;
		ASSERT(seed_pool_add(&b, 1));
	}
	ASSERT(!seed_pool_add(&b, 1)); /* already there */
	for (unsigned i = 0; i < 8000; i++) {
		size_t size;
		const uint8_t *s = seed_pool_pick(&r, &size);

		ASSERT_EQ(size, 1);
		seen[*s]++;
	}
	for (unsigned i = 0; i < 8; i++)
		ASSERT(seen[i] > 850 && seen[i] < 1150);
	for (unsigned i = 8; i < SEED_POOL_MAX + 10; i++) {
		uint8_t two[2] = {(uint8_t)i, (uint8_t)(i >> 8)};

		ASSERT_EQ(seed_pool_add(two, 2), i < SEED_POOL_MAX);
	}
	ASSERT_EQ(seed_pool_count(), SEED_POOL_MAX);
	seed_pool_clear();
	return true;
}

int main(void)
{
	TEST(test_engine_names);
	TEST(test_named_files_are_seeds);
	TEST(test_picks_are_even);
	return test_summary();
}
