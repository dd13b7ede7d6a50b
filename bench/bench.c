/* The table of benchmarks and their clock (bench.h). */
#include "bench.h"

#include <malloc.h>
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
