/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz print [--target T] FILE: decode a fuzz input (or compile a text
 * program, or take a log's: crash_input.h) and print it as a text program,
 * headed by a comment with its number of operations and size.
 */
#include "cmd.h"
#include "crash_input.h"
#include "tools/triage/crash_target.h"

#include <stdlib.h>

int cmd_print(int argc, char **argv)
{
	static struct prog p; /* large */
	const struct fuzz_target *t;
	struct crash_input_log log;
	uint8_t *data;
	size_t size;
	bool bad;

	t = cmd_take_target("print", &argc, argv, &bad);
	if (bad)
		return 2;
	if (argc != 2)
		return cmd_usage_error("print", "%s", argc < 2 ? "needs a file" : "takes one file");
	if (argv[1][0] == '-' && argv[1][1])
		return cmd_usage_error("print", "unknown option '%s'", argv[1]);
	if (!t)
		t = cmd_file_target("print", argv[1]);
	if (!t)
		return 2;
	data = crash_input_load("print", t, argv[1], &size, &log);
	if (!data)
		return 2;
	prog_decode(t->desc, data, size, &p);
	free(data);
	if (log.programs > 1)
		printf("# %s:%u: %u operations, %zu bytes (the first of %u programs in this log)\n",
		       argv[1], log.line, p.nops, size, log.programs);
	else if (log.programs)
		printf("# %s:%u: %u operations, %zu bytes (the program in this log)\n", argv[1],
		       log.line, p.nops, size);
	else
		printf("# %s: %u operations, %zu bytes\n", argv[1], p.nops, size);
	prog_print(stdout, t->desc, &p, -1);
	return 0;
}
