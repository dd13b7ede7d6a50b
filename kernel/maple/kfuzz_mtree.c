/* SPDX-License-Identifier: GPL-2.0 */
/* vmafuzz-twin: fuzz_mtree (the model target whose seeds, dictionary and mutator it uses) */
/*
 * kfuzz_mtree: fuzz_mtree's programs on the kernel's own lib/maple_tree.c
 * (tree_kernel, compiled from the kernel tree given at build time), with
 * the model's range tree as its shadow (tree_pair): after every operation
 * the kernel's answers are judged by the reference map and by the model's
 * tree, and both trees' validators run. fail_at fails the kernel's Nth node
 * allocation, through the blocking and the non-blocking paths alike.
 */
#include "fuzz/targets/mtree_run.h"
#include "fuzz/targets/target.h"
#include "kmt_backend.h"

static int kfuzz_mtree_run(const uint8_t *data, size_t size)
{
	return mtree_run(tree_pair(&tree_kernel, &tree_model), data, size);
}

const struct fuzz_target kfuzz_mtree_target = {
    .name = "kfuzz_mtree",
    .summary = "the kernel's maple tree (lib/maple_tree.c): fuzz_mtree's programs against the "
	       "reference map and the model's tree",
    .desc = &mtree_desc,
    .run = kfuzz_mtree_run,
    .kernel = true,
};
