/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine a crash needs: a guest's crash (scripts/vm.sh) carries the
 * settings its run had as lines "# vm: sysctl PATH=VALUE" atop its text,
 * and, when the guest's job that found it was not conform, a line
 * "# vm: job NAME" (race: vmafuzz race, real threads). Files made from it
 * (a minimized program, a regression entry) keep those lines, and the runs
 * that replay it get them in VMAFUZZ_VM_SYSCTLS and VMAFUZZ_VM_JOB, since
 * the candidates a minimizer runs are bytes without comments.
 */
#ifndef VMAFUZZ_CRASH_MACHINE_H
#define VMAFUZZ_CRASH_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct crash_machine {
	char lines[2048];   /* the "# vm: " lines as they were, each ending in \n */
	char sysctls[1024]; /* their PATH=VALUE words, space-separated */
	char job[32];	    /* the job's name, or "" (conform) */
};

/* The "# vm: sysctl" and "# vm: job" lines of the file at @path (none for
 * a binary file or one without them); false when it has no such lines. */
bool crash_machine_read(const char *path, struct crash_machine *m);

/* Put @m's settings after VMAFUZZ_VM_SYSCTLS's own, for the runs to come. */
void crash_machine_export(const struct crash_machine *m);

/* Write @m's lines to @f (nothing when it has none). */
void crash_machine_print(FILE *f, const struct crash_machine *m);

#endif
