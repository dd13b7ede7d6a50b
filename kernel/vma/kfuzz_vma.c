/* SPDX-License-Identifier: GPL-2.0 */
/* vmafuzz-twin: fuzz_mm (the model target whose seeds, dictionary and mutator it uses) */
/*
 * kfuzz_vma: fuzz_mm's programs on the kernel's own mm/vma.c (as_kernel_vma,
 * compiled from the kernel tree given at build time, with the logic of the
 * tree's mmap, munmap, mprotect and madvise callers that vma.c lacks in
 * kernel/vma/kvma_callers_<layout>.c), with the
 * model as its shadow (as_pair): after every call the same result and the
 * same VMAs (start, end, flags, page offset), the kernel's validate_mm and
 * the model's invariants, the model following the tree's version. On one thread: the stubs' locks
 * do nothing, so the kernel's calls cannot interleave. The kernel side runs anonymous memory of p0;
 * every other operation is refused and runs on neither (docs/kernel.md).
 */
#include "fuzz/as/as_pair.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/targets/mm_run.h"
#include "fuzz/targets/target.h"
#include "kvma_backend.h"
#include "mm/kver.h"

/* The model follows the tree's version, whatever the program's config
 * names: the kernel side is that version's code. */
static void kfuzz_vma_configure(struct mm_exec *m, uint8_t config)
{
	unsigned v;

	(void)config;
	if (!kver_parse(kvma_tree_release, &v))
		v = KVER_NEWEST;
	m->kver = kver_known(v);
	as_model_set_kver(as_pair_shadow(m->as), m->kver);
}

static int kfuzz_vma_run(const uint8_t *data, size_t size)
{
	struct mm_target t = {
	    .desc = &mm_seq_desc,
	    .backend = as_pair(&as_kernel_vma, &as_model),
	    .fork_code = MMF_OP_FORK,
	    .configure = kfuzz_vma_configure,
	};

	return mm_run_program(&t, data, size);
}

const struct fuzz_target kfuzz_vma_target = {
    .name = "kfuzz_vma",
    .summary = "the kernel's mm/vma.c: fuzz_mm's anonymous-memory calls of p0 against the model",
    .desc = &mm_seq_desc,
    .run = kfuzz_vma_run,
    .kernel = true,
};
