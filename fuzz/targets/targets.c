/* SPDX-License-Identifier: GPL-2.0 */
/* The table of all targets (target.h). */
#include "mm_run.h"
#include "mtree_run.h"
#include "target.h"

#include <string.h>

/* clang-format off: one target a line */
const struct fuzz_target *const fuzz_targets[] = {
    &fuzz_mm_target, &fuzz_fork_target, &fuzz_rollup_target, &fuzz_mtree_target, NULL,
};
/* clang-format on */

/* What the tool knows of the kernel targets: their programs and where
 * their drivers are (kernel/kfuzz_*.c define the runnable ones). */
static const struct fuzz_target kfuzz_mtree_info = {
    .name = "kfuzz_mtree",
    .summary = "the kernel's maple tree (lib/maple_tree.c): fuzz_mtree's programs against the "
	       "reference map and the model's tree (./build.sh kernel)",
    .desc = &mtree_desc,
    .run = NULL,
    .kernel = true,
};

static const struct fuzz_target kfuzz_vma_info = {
    .name = "kfuzz_vma",
    .summary = "the kernel's mm/vma.c: fuzz_mm's anonymous-memory calls of p0 against the "
	       "model (./build.sh kernel)",
    .desc = &mm_seq_desc,
    .run = NULL,
    .kernel = true,
};

const struct fuzz_target *const kernel_targets[] = {&kfuzz_mtree_info, &kfuzz_vma_info, NULL};

const struct fuzz_target *fuzz_target_find(const char *name)
{
	for (unsigned i = 0; fuzz_targets[i]; i++)
		if (!strcmp(fuzz_targets[i]->name, name))
			return fuzz_targets[i];
	for (unsigned i = 0; kernel_targets[i]; i++)
		if (!strcmp(kernel_targets[i]->name, name))
			return kernel_targets[i];
	return NULL;
}
