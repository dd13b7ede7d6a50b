/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench mtree-dup: duplicating a tree by the seed's depth-first node copy
 * against rebuilding the same tree by appending its entries in order (bulk
 * mode: nodes preallocated, appends fill the right edge), for the VMA counts
 * of the fork-mt-dup seed. The source is itself built by appending, so both
 * sides produce the same tree node for node (checked once per size); the
 * append side is given its entries in an array, so only tree building is
 * timed. Rounds alternate dup and append; each figure is the median.
 */
#include "bench.h"
#include "tree/mtree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t sizes[] = {21, 121, 221, 421, 821, 1621, 3221, 6421, 12821, 25621, 51221};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define ROUNDS 9

struct item {
	uint64_t first, last;
	void *entry;
};

/* Like a process's VMAs: page-aligned ranges, most separated by a gap. */
static void make_items(struct item *items, uint64_t n)
{
	uint64_t at = 0x400000;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t len = (1 + i % 7) * 0x1000;

		items[i].first = at;
		items[i].last = at + len - 1;
		items[i].entry = (void *)(uintptr_t)((i + 1) << 3);
		at += len + (i % 5 ? 0x1000 : 0);
	}
}

static void append_all(struct mtree *mt, const struct item *items, uint64_t n)
{
	struct mt_bulk b;

	mt_init(mt);
	if (mt_bulk_begin(&b, mt, n))
		abort();
	for (uint64_t i = 0; i < n; i++)
		if (mt_bulk_append(&b, items[i].first, items[i].last, items[i].entry))
			abort();
	mt_bulk_end(&b);
}

static int run(int argc, char **argv)
{
	struct bench_opts opt;

	if (!bench_parse(argc, argv, &opt))
		return 2;
	bool csv = opt.csv;
	unsigned nsizes = opt.quick ? 3 : NSIZES;

	if (csv)
		printf("entries,nodes,dup_ns_per_entry,append_ns_per_entry,append_over_dup\n");
	else
		printf("%8s %7s %16s %19s %11s\n", "entries", "nodes", "dup ns/entry",
		       "append ns/entry", "append/dup");

	double dup_cost[NSIZES];

	for (unsigned s = 0; s < nsizes; s++) {
		uint64_t n = sizes[s], reps = 400000 / n + 1;
		struct item *items = malloc(n * sizeof(*items));
		uint64_t tdup[ROUNDS], tapp[ROUNDS];
		struct mtree src;

		make_items(items, n);
		append_all(&src, items, n);
		{
			struct mtree copy;

			mt_init(&copy);
			if (mt_dup(&src, &copy) || !mt_equal(&src, &copy) || !mt_validate(&copy)) {
				fprintf(stderr, "bench mtree-dup: dup differs from its source\n");
				return 1;
			}
			mt_destroy(&copy);
		}
		for (unsigned r = 0; r < ROUNDS; r++) {
			uint64_t t0, spent = 0;

			for (uint64_t k = 0; k < reps; k++) {
				struct mtree dst;

				mt_init(&dst);
				t0 = bench_now_ns();
				if (mt_dup(&src, &dst))
					abort();
				spent += bench_now_ns() - t0;
				mt_destroy(&dst);
			}
			tdup[r] = spent;
			spent = 0;
			for (uint64_t k = 0; k < reps; k++) {
				struct mtree dst;

				t0 = bench_now_ns();
				append_all(&dst, items, n);
				spent += bench_now_ns() - t0;
				mt_destroy(&dst);
			}
			tapp[r] = spent;
		}
		double d = (double)bench_median(tdup, ROUNDS) / (double)(reps * n);
		double a = (double)bench_median(tapp, ROUNDS) / (double)(reps * n);

		dup_cost[s] = d;
		if (csv)
			printf("%llu,%llu,%.2f,%.2f,%.2f\n", (unsigned long long)n,
			       (unsigned long long)mt_count_nodes(&src), d, a, a / d);
		else
			printf("%8llu %7llu %16.2f %19.2f %10.2fx\n", (unsigned long long)n,
			       (unsigned long long)mt_count_nodes(&src), d, a, a / d);
		mt_destroy(&src);
		free(items);
	}
	if (!csv && nsizes == NSIZES)
		printf("dup per-entry cost at %llu entries is %.2fx that at %llu (1.00x: linear)\n",
		       (unsigned long long)sizes[NSIZES - 1], dup_cost[NSIZES - 1] / dup_cost[4],
		       (unsigned long long)sizes[4]);
	return 0;
}

const struct bench bench_mtree_dup = {
    .name = "mtree-dup",
    .summary = "tree dup (DFS node copy) against in-order append rebuild, 21..51221 entries",
    .run = run,
};
