/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz list: the fuzz targets, one a line with its summary.
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
	return 0;
}
