/* SPDX-License-Identifier: GPL-2.0 */
/* The starting programs the mutator goes back to (seed_pool.h). */
#include "seed_pool.h"

#include "fuzz/prog/mutator.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct seed {
	uint8_t *data;
	size_t size;
};

static struct seed pool[SEED_POOL_MAX];
static unsigned npool;

bool seed_pool_engine_name(const char *name)
{
	size_t n = 0;

	for (; name[n]; n++)
		if (!((name[n] >= '0' && name[n] <= '9') || (name[n] >= 'a' && name[n] <= 'f')))
			return false;
	return n == 40;
}

bool seed_pool_add(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (npool == SEED_POOL_MAX || size == 0 || size > MUT_MAX_SIZE)
		return false;
	for (unsigned i = 0; i < npool; i++)
		if (pool[i].size == size && !memcmp(pool[i].data, data, size))
			return false;
	copy = malloc(size);
	if (!copy)
		return false;
	memcpy(copy, data, size);
	pool[npool++] = (struct seed){copy, size};
	return true;
}

/* Read @path whole if it is a regular file of at most MUT_MAX_SIZE bytes. */
static bool add_file(const char *path)
{
	static uint8_t buf[MUT_MAX_SIZE + 1];
	struct stat st;
	size_t n;
	FILE *f;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MUT_MAX_SIZE)
		return false;
	f = fopen(path, "rb");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return n <= MUT_MAX_SIZE && seed_pool_add(buf, n);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_seed(const struct dirent *e)
{
	return e->d_name[0] != '.' && !seed_pool_engine_name(e->d_name);
}

unsigned seed_pool_add_dir(const char *dir)
{
	struct dirent **names;
	unsigned added = 0;
	int n = scandir(dir, &names, is_seed, by_name);

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		char path[4096];

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) <
			sizeof(path) &&
		    add_file(path))
			added++;
		free(names[i]);
	}
	free(names);
	return added;
}

unsigned seed_pool_count(void)
{
	return npool;
}

const uint8_t *seed_pool_pick(struct prng *r, size_t *size)
{
	const struct seed *s;

	if (!npool)
		return NULL;
	s = &pool[prng_below(r, npool)];
	*size = s->size;
	return s->data;
}

void seed_pool_clear(void)
{
	for (unsigned i = 0; i < npool; i++)
		free(pool[i].data);
	npool = 0;
}
