/*
 * Subcommands of vmafuzz that live in their own files (tools/cmd_<name>.c),
 * and the helpers of tools/vmafuzz.c they use. Each is registered in the
 * table commands[] in vmafuzz.c with its usage and help text.
 */
#ifndef VMAFUZZ_CMD_H
#define VMAFUZZ_CMD_H

#include "target.h"

/* "vmafuzz CMD: <fmt with arg>" and CMD's usage line on stderr; returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The target named @name, or NULL after listing the targets on stderr. */
const struct fuzz_target *cmd_target(const char *cmd, const char *name);

int cmd_triage(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_conform(int argc, char **argv);

#endif
