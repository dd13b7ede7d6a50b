/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz repro --ktest for kfuzz_vma's programs (fuzz_mm's, run on one
 * thread): the program as a test in the style of the tree's own
 * tools/testing/vma program, one function returning bool with an ASSERT_*
 * on every answer, as that program's tests are.
 *
 * kfuzz_vma runs the system calls through callers of mm/vma.c written after
 * mm/mmap.c, mm/mprotect.c and mm/madvise.c (kernel/vma/kvma_callers_<layout>.c),
 * on an address space of its own (kernel/vma/kvma_space.c). The test carries
 * both, copied as they are, with the stubs' gaps that the build's probe
 * found filled (kernel/vma/shim/kvma_shim.h) and ktest_vma_env.h: so the
 * tree's test program runs the calls as kfuzz_vma ran them. Each step is the
 * call with the model's answer expected, then the VMAs as the model has them
 * (start, end, flags, page offset), the tree's mt_validate, map_count, and no
 * assertion of the callers fired.
 *
 * The steps kfuzz_vma does not run on the kernel's code (other processes,
 * files, pages: fuzz/as/vma_stub_refusal.h) are left out, with a comment.
 * Refused with the step and the reason: a run step that carries fail_at (the
 * tree's program cannot fail an allocation), a program the model fails.
 */
#ifndef VMAFUZZ_KTEST_VMA_H
#define VMAFUZZ_KTEST_VMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The lines that begin the test's two parts: the first goes above the
 * #include of the tree's mm/ files (scripts/ktest-run.sh looks for them). */
#define KTEST_VMA_PART1                                                                            \
	"/* ---- vmafuzz: paste this part above the #include of the tree's mm/ files */"
#define KTEST_VMA_PART2 "/* ---- vmafuzz: paste the rest above main() */"

/* The kernel build the test is for (its vma_config.mk and tree record). */
struct ktest_vma_tree {
	char layout[32];  /* KVMA_LAYOUT: vma-merge-api, vma-mmap-region */
	char defs[4096];  /* KVMA_DEFS: the stubs' -DKVMA_HAVE_<name> */
	char release[64]; /* the tree's version */
};

/*
 * Write the program @data (fuzz_mm's bytes) as the function @name to @out,
 * with @comment (the program's own comment lines, or NULL) and @tree_name
 * ("Linux <version> (<path>)", or NULL) atop it. True; false with @why set
 * to the step and the reason it cannot be written.
 */
bool ktest_vma_write(FILE *out, const uint8_t *data, size_t size, const char *name,
		     const char *comment, const char *tree_name, const struct ktest_vma_tree *tree,
		     char *why, size_t whylen);

#endif
