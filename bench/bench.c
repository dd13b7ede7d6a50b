/* The table of benchmarks and their clock (bench.h). */
#include "bench.h"

#include <stddef.h>
#include <time.h>

const struct bench *const benches[] = {
	&bench_mtree_dup,
	NULL,
};

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
