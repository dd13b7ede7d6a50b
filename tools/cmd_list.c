/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz list: the fuzz targets, one a line with its summary: the model's,
 * the kernel targets, fuzz_conform.
 */
#include "cmd.h"

#include <stdio.h>

int cmd_list(int argc, char **argv)
{
	if (argc > 1)
		return cmd_usage_error("list", "unexpected argument '%s'", argv[1]);
	for (unsigned i = 0; fuzz_targets[i]; i++)
		printf("%-12s %s\n", fuzz_targets[i]->name, fuzz_targets[i]->summary);
	for (unsigned i = 0; kernel_targets[i]; i++)
		printf("%-12s %s\n", kernel_targets[i]->name, kernel_targets[i]->summary);
	/* (its programs are fuzz_mm's: print, compile and ops take --target fuzz_mm) */
	printf("%-12s %s\n", fuzz_conform_target.name, fuzz_conform_target.summary);
	return 0;
}
