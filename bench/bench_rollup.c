/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench rollup: the smaps_rollup latency benchmark runs on real threads, so
 * it lives in its own program built with the threads backend
 * (bench/threads/rollup_threads.c, out/threads/rollup_threads: `make
 * threads`); this entry runs it from beside the vmafuzz binary.
 */
#include "bench.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int run(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0) {
		perror("vmafuzz bench rollup: /proc/self/exe");
		return 1;
	}
	self[n] = '\0';
	snprintf(path, sizeof(path), "%s/threads/rollup_threads", dirname(self));
	if (access(path, X_OK)) {
		fprintf(stderr,
			"vmafuzz bench rollup: %s is missing (build it with 'make threads'; it "
			"needs liburcu-dev)\n",
			path);
		return 1;
	}
	argv[0] = path;
	fflush(stdout);
	execv(path, argv);
	perror(path);
	(void)argc;
	return 1;
}

const struct bench bench_rollup = {
    .name = "rollup",
    .summary = "writer latency beside smaps_rollup readers: mmap lock, per-VMA locks, this kernel",
    .run = run,
};
