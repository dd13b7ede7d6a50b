/* SPDX-License-Identifier: GPL-2.0 */
/* What every benchmark uses: its clock, allocator settings, options and
 * median (bench.h). The table of them is bench_table.c. */
#include "bench.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <time.h>

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_setup(void)
{
	/* Keep freed memory in the process, as the kernel's slab caches do:
	 * otherwise glibc hands the top of the heap back to the kernel after
	 * each big free, and every round then pays page faults to get it back,
	 * which drowns what the benchmark measures. */
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_TOP_PAD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
}

bool bench_parse(int argc, char **argv, struct bench_opts *o)
{
	o->csv = o->quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv")) {
			o->csv = true;
		} else if (!strcmp(argv[i], "--quick")) {
			o->quick = true;
		} else {
			fprintf(stderr,
				"vmafuzz bench %s: unknown argument '%s'\n"
				"usage: vmafuzz bench %s [--csv] [--quick]\n",
				argv[0], argv[i], argv[0]);
			return false;
		}
	}
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t bench_median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}
