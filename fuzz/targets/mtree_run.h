/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_mtree's programs on any tree backend (tree_backend.h): the model's
 * tree for fuzz_mtree itself, the kernel's maple tree for the kernel target.
 */
#ifndef VMAFUZZ_MTREE_RUN_H
#define VMAFUZZ_MTREE_RUN_H

#include "fuzz/prog/prog.h"
#include "fuzz/tree/tree_backend.h"

#include <stddef.h>
#include <stdint.h>

/* fuzz_mtree's programs: operations, arguments, threads. */
extern const struct prog_desc mtree_desc;

/* Run one input of fuzz_mtree's programs on four trees of @b, each against
 * its reference map; 0 (failures abort with a report). */
int mtree_run(const struct tree_backend *b, const uint8_t *data, size_t size);
/* The same for a program in the text form; -2 when it does not parse. */
int mtree_run_text(const struct tree_backend *b, const char *text);

#endif
