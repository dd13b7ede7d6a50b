/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crashes a run's engine reported but did not save whole (a full
 * disk). Each crash of the engine's output (engine_out.h) whose file is
 * missing, empty or not the input libFuzzer printed, is written again
 * where libFuzzer meant it (else as crashes/crash-unsaved-<hash>), whole or
 * not at all: its input from libFuzzer's Base64 line, else the report's
 * program compiled. When that fails too, its program is printed on stderr,
 * the run's log of last resort, between two marker lines,
 *
 *   --- vmafuzz: unsaved crash NAME (TARGET): its program ---
 *   # build: BUILD
 *   target TARGET
 *   ...
 *   --- vmafuzz: end of unsaved crash NAME ---
 *
 * which vmafuzz print, triage, minimize, regress and repro read back from
 * the file that holds them (PROG_LOG_UNSAVED, fuzz/prog/prog.h), on the
 * build that found it (crash_build.h: the "# build:" line). An empty
 * crash file left behind is removed: it holds nothing, and would pass for
 * a crash; one the output says nothing of is named as lost.
 */
#ifndef VMAFUZZ_CAMPAIGN_UNSAVED_H
#define VMAFUZZ_CAMPAIGN_UNSAVED_H

#include "engine_out.h"
#include "plan.h"
#include "records.h"

struct unsaved_tally {
	int saved_again; /* written again whole */
	int printed;	 /* printed on stderr */
	int lost;	 /* neither: nothing of the input is known */
};

/* Go through the crashes of @o and the files of crash folder @crashes not
 * in @before; what became of them into @t. */
void unsaved_crashes(const struct campaign *c, const struct engine_out *o, const char *crashes,
		     const struct crash_set *before, struct unsaved_tally *t);

#endif
