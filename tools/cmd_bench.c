/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz bench [NAME [ARGS]]: run one of the benchmarks (bench/bench.h)
 * with its own arguments; without NAME, list them.
 */
#include "bench/bench.h"
#include "cmd.h"

#include <stdio.h>
#include <string.h>

int cmd_bench(int argc, char **argv)
{
	if (argc < 2) {
		printf("benchmarks (vmafuzz bench NAME [--csv]):\n");
		for (unsigned i = 0; benches[i]; i++)
			printf("  %-12s %s\n", benches[i]->name, benches[i]->summary);
		return 0;
	}
	for (unsigned i = 0; benches[i]; i++)
		if (!strcmp(benches[i]->name, argv[1])) {
			bench_setup();
			return benches[i]->run(argc - 1, argv + 1);
		}
	return cmd_usage_error("bench", "unknown benchmark '%s' (list: vmafuzz bench)", argv[1]);
}
