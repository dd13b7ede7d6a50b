/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the subcommands share (cmd_util.h).
 */
#include "cmd_util.h"

#include <stdio.h>
#include <string.h>

static const struct command *table;

void cmd_set_table(const struct command *t)
{
	table = t;
}

const struct command *cmd_find(const char *name)
{
	for (const struct command *c = table; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cmd_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	const struct command *c = cmd_find(cmd);

	fprintf(stderr, "vmafuzz %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: vmafuzz %s\n", c ? c->usage : cmd);
	return 2;
}

const struct fuzz_target *cmd_target(const char *cmd, const char *name)
{
	const struct fuzz_target *t = fuzz_target_find(name);

	if (!t) {
		fprintf(stderr, "vmafuzz %s: unknown target '%s'; targets:", cmd, name);
		for (unsigned i = 0; fuzz_targets[i]; i++)
			fprintf(stderr, " %s", fuzz_targets[i]->name);
		for (unsigned i = 0; kernel_targets[i]; i++)
			fprintf(stderr, " %s", kernel_targets[i]->name);
		fputc('\n', stderr);
	}
	return t;
}

const struct fuzz_target *cmd_take_target(const char *cmd, int *argc, char **argv, bool *bad)
{
	const struct fuzz_target *t = NULL;

	*bad = false;
	for (int i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--target") && strcmp(argv[i], "-t"))
			continue;
		if (i + 1 >= *argc) {
			cmd_usage_error(cmd, "%s needs a target name", argv[i]);
			*bad = true;
			return NULL;
		}
		t = cmd_target(cmd, argv[i + 1]);
		if (!t) {
			*bad = true;
			return NULL;
		}
		memmove(&argv[i], &argv[i + 2], (size_t)(*argc - i - 2) * sizeof(*argv));
		*argc -= 2;
		i--;
	}
	return t;
}
