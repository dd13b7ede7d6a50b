/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fuzz target: a program description and a function that runs one input.
 * The engine entry (main_engine.c), the standalone replay driver
 * (main_replay.c), the vmafuzz tool and the regression tests all reach the
 * targets through this table, so each target is written once.
 */
#ifndef VMAFUZZ_TARGET_H
#define VMAFUZZ_TARGET_H

#include "fuzz/prog/prog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fuzz_target {
	const char *name;
	const char *summary; /* one line */
	const struct prog_desc *desc;
	/* Run one input; returns 0, or -1 for an input an engine must not keep
	 * (libFuzzer's convention). Failures abort with a report. */
	int (*run)(const uint8_t *data, size_t size);
	/* Built from a kernel tree (kernel/, ./build.sh kernel): its binaries
	 * are in out/kernel/<flavor>/, and a binary without the kernel's code
	 * knows it by name only (run is NULL there). */
	bool kernel;
	/* libFuzzer's energy not scaled by an input's running time
	 * (main_engine.c): the target's programs are costly by design and the
	 * cost is where its bugs are (fuzz_fork forks at every failure point) */
	bool flat_energy;
};

extern const struct fuzz_target fuzz_mm_target;
extern const struct fuzz_target fuzz_fork_target;
extern const struct fuzz_target fuzz_rollup_target;
extern const struct fuzz_target fuzz_mtree_target;

/* in the kernel binaries only */
extern const struct fuzz_target kfuzz_mtree_target;
extern const struct fuzz_target kfuzz_vma_target;

/* in fuzz_conform's binaries only (live/fuzz_conform.c: the model against
 * this machine's kernel; built by live/live.mk) */
extern const struct fuzz_target fuzz_conform_target;

/* Every target of the model, NULL-terminated. */
extern const struct fuzz_target *const fuzz_targets[];
/* The kernel targets by name (run NULL: they run in their own drivers). */
extern const struct fuzz_target *const kernel_targets[];
/* Either kind, by name. */
const struct fuzz_target *fuzz_target_find(const char *name);

#endif
