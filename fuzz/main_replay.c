/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Standalone replay driver for one target (no engine; builds with gcc):
 *   replay/<target> FILE|DIR...
 * Runs every input; a failing one aborts with its report, like under an
 * engine. Built with -DVMAFUZZ_TARGET=fuzz_<name>_target.
 */
#include "replay.h"

#include <stdio.h>
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
		       "Replay inputs of %s without a fuzzing engine (%s).\n"
		       "Files ending in .txt are compiled from the text form first.\n",
		       argv[0], VMAFUZZ_TARGET.name, VMAFUZZ_TARGET.summary);
		return 0;
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
