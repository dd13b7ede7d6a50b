/* SPDX-License-Identifier: GPL-2.0 */
/* The table of benchmarks (bench.h), apart from the helpers they call
 * (bench.c), so that no file both calls a benchmark and is called by one. */
#include "bench.h"

#include <stddef.h>

const struct bench *const benches[] = {
    &bench_mtree_dup, &bench_fork, &bench_anon_vma, &bench_uffd_fork, &bench_rollup, NULL,
};
