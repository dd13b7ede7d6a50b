/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_mtree's programs on any tree backend (tree_backend.h): the model's
 * tree for fuzz_mtree itself, the kernel's maple tree for the kernel target.
 */
#ifndef VMAFUZZ_MTREE_RUN_H
#define VMAFUZZ_MTREE_RUN_H

#include "fuzz/prog/prog.h"
#include "fuzz/tree/tree_backend.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fuzz_mtree's programs: operations, arguments, threads. */
extern const struct prog_desc mtree_desc;

/* Run one input of fuzz_mtree's programs on four trees of @b, each against
 * its reference map; 0 (failures abort with a report). */
int mtree_run(const struct tree_backend *b, const uint8_t *data, size_t size);
/*
 * A tool that watches a run (vmafuzz repro --ktest): @step before (begin)
 * and after each operation, on the fiber that runs it; @check around the
 * checks of tree @tree after a step (its validation, its contents against
 * the reference map, its node count), which call the backend too. NULL
 * members are not called.
 */
struct mtree_watch {
	void (*step)(void *arg, const struct prog_op *op, bool begin);
	void (*check)(void *arg, unsigned tree, bool begin);
	void *arg;
};

/* mtree_run with @w told of each step and check. */
int mtree_run_watched(const struct tree_backend *b, const uint8_t *data, size_t size,
		      const struct mtree_watch *w);

/* The same for a program in the text form; -2 when it does not parse. */
int mtree_run_text(const struct tree_backend *b, const char *text);

#endif
