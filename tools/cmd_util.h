/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the subcommands of vmafuzz share: the table of commands (registered
 * by main() in tools/vmafuzz.c, so that the helpers here need nothing of
 * it but the table), usage errors naming a command's usage line, and the
 * lookup of a target named on the command line.
 */
#ifndef VMAFUZZ_CMD_UTIL_H
#define VMAFUZZ_CMD_UTIL_H

#include "fuzz/targets/target.h"

#include <stdbool.h>

struct command {
	const char *name;
	const char *usage;		   /* after "vmafuzz " */
	const char *help;		   /* for --help, below the usage */
	int (*run)(int argc, char **argv); /* argv[0] is the command's name */
};

/* The commands, ended by one with name NULL; set before any other call. */
void cmd_set_table(const struct command *table);
/* The command named @name; NULL if none. */
const struct command *cmd_find(const char *name);

/* "vmafuzz CMD: <fmt with arg>" and CMD's usage line on stderr; returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The target named @name, or NULL after listing the targets on stderr. */
const struct fuzz_target *cmd_target(const char *cmd, const char *name);
/*
 * Take every "--target T" or "-t T" out of argv (moving the rest down and
 * lowering *@argc): the target named last, NULL when none. *@bad is set
 * after a usage error.
 */
const struct fuzz_target *cmd_take_target(const char *cmd, int *argc, char **argv, bool *bad);

#endif
