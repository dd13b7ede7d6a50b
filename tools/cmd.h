/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands of vmafuzz, one file each (tools/cmd_<name>.c), with the
 * helpers they share (cmd_util.h). Each is registered in the table
 * commands[] in tools/vmafuzz.c with its usage and help text, and runs with
 * argv[0] its own name; it returns the exit status: 0, 1 for a negative
 * answer (no longer fails, a difference), 2 for a usage or I/O error.
 */
#ifndef VMAFUZZ_CMD_H
#define VMAFUZZ_CMD_H

#include "cmd_util.h"

int cmd_list(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_triage(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_conform(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_race(int argc, char **argv);
int cmd_statsd(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);

#endif
