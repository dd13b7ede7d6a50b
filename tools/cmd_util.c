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

/* Edit distance of @a and @b, up to 3 (more: 3); names are short. */
static unsigned distance(const char *a, const char *b)
{
	size_t n = strlen(b);
	unsigned row[64], prev, cur;

	if (n >= sizeof(row) / sizeof(row[0]) || strlen(a) >= 64)
		return 3;
	for (size_t j = 0; j <= n; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; a[i - 1]; i++) {
		prev = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= n; j++) {
			cur = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (cur + 1 < row[j])
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[n] < 3 ? row[n] : 3;
}

/* The target whose name is nearest @name, within two edits; NULL if none. */
static const char *nearest_target(const char *name)
{
	const struct fuzz_target *const *lists[] = {fuzz_targets, kernel_targets};
	const char *best = NULL;
	unsigned d = 3;

	for (unsigned l = 0; l < 2; l++)
		for (unsigned i = 0; lists[l][i]; i++)
			if (distance(name, lists[l][i]->name) < d) {
				d = distance(name, lists[l][i]->name);
				best = lists[l][i]->name;
			}
	return best;
}

const struct fuzz_target *cmd_target(const char *cmd, const char *name)
{
	const struct fuzz_target *t = fuzz_target_find(name);
	const char *near = t ? NULL : nearest_target(name);

	if (!t) {
		fprintf(stderr, "vmafuzz %s: unknown target '%s'", cmd, name);
		if (near)
			fprintf(stderr, " (did you mean '%s'?)", near);
		fprintf(stderr, "; targets:");
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
