/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Standalone replay driver for one target (no engine; builds with gcc):
 *   replay/<target> FILE|DIR...
 *   replay/<target> --mutants N [--seed S] FILE   (mutant_odds.h)
 * Runs every input; a failing one aborts with its report, like under an
 * engine. Built with -DVMAFUZZ_TARGET=fuzz_<name>_target.
 */
#include "mutant_odds.h"
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef VMAFUZZ_TARGET
#error "build with -DVMAFUZZ_TARGET=fuzz_<name>_target"
#endif

int main(int argc, char **argv)
{
	bool verbose = false;
	int first = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s [-v] FILE|DIR...\n"
		       "       %s --mutants N [--seed S] FILE\n"
		       "Replay inputs of %s without a fuzzing engine (%s).\n"
		       "Files ending in .txt are compiled from the text form first.\n"
		       "--mutants: run N mutants of FILE (one mutation each, generator\n"
		       "seeds S.., default 1) in child processes and count the failing ones.\n",
		       argv[0], argv[0], VMAFUZZ_TARGET.name, VMAFUZZ_TARGET.summary);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--mutants")) {
		unsigned long n = 0, seed = 1;
		char *end = NULL;
		int i = 2;

		if (i < argc)
			n = strtoul(argv[i++], &end, 10);
		if (!end || *end || n == 0 || n > 10000000) {
			fprintf(stderr, "%s: --mutants N: N a number from 1\n", argv[0]);
			return 2;
		}
		if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
			seed = strtoul(argv[i + 1], &end, 10);
			if (*end || !*argv[i + 1]) {
				fprintf(stderr, "%s: --seed S: S a number\n", argv[0]);
				return 2;
			}
			i += 2;
		}
		if (i + 1 != argc) {
			fprintf(stderr, "usage: %s --mutants N [--seed S] FILE\n", argv[0]);
			return 2;
		}
		return mutant_odds(&VMAFUZZ_TARGET, argv[i], (unsigned)n, seed);
	}
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = true;
		first++;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: %s [-v] FILE|DIR...  (--help for more)\n", argv[0]);
		return 2;
	}
	return replay_paths(&VMAFUZZ_TARGET, argc - first, argv + first, verbose);
}
