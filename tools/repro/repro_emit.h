/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a C reproducer: one standalone file (system headers only) that
 * makes a fuzz_mm program's system calls on the running kernel and checks
 * after each that /proc/self/smaps shows what the model showed. The steps
 * come recorded (cmd_repro.c runs the model); this file only writes them
 * as data (tools/repro/repro.h) around the embedded text of tools/ksys.[ch]
 * and tools/repro/repro_main.c, which the build turns into strings.
 */
#ifndef VMAFUZZ_REPRO_EMIT_H
#define VMAFUZZ_REPRO_EMIT_H

#include "live/ksys.h"

#include <stdbool.h>
#include <stdio.h>

/* One step as the model ran it. */
struct repro_rec {
	char op[160];	/* the operation as the program says it */
	char text[256]; /* the resolved call (conform_print_call) */
	struct kcall call;
	int64_t result;
	struct kvma *vmas; /* p0's, in the window, after the step */
	unsigned nvmas;
	struct kvma *child; /* a fork's child, before it runs anything */
	unsigned nchild;
};

/*
 * The program's C text on @out: @steps[0] as the model ran it mapping the
 * zero page on anonymous read faults, @steps[1] allocating pages there
 * (mm_forbids_zeropage); @name is where the program came from, @program its
 * text (for the comment atop), @tap the kselftest form. False when @out
 * fails.
 */
bool repro_emit(FILE *out, const struct repro_rec *const steps[2], unsigned n, const char *name,
		const char *program, bool tap);
/* The two recordings of a step are the same (call, result and views). */
bool repro_rec_same(const struct repro_rec *a, const struct repro_rec *b);

#endif
