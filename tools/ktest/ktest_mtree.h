/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz repro --ktest for fuzz_mtree's programs (kfuzz_mtree's crash
 * files): the program as a regression test in the style of the kernel's own
 * userland maple tree tests (tools/testing/radix-tree/maple.c, which
 * includes lib/test_maple_tree.c): one function that makes the calls the
 * kernel target made, in the order they ran, with an MT_BUG_ON on every
 * answer, and after each step that changed a tree a check of that tree
 * (mt_validate, then its whole contents).
 *
 * The answers are the model's: the program runs here on the model's tree
 * (the kernel target's shadow) through a backend that passes each call on
 * and writes the kernel's call beside it. A tree that has the bug fails an
 * MT_BUG_ON (in userland, an assertion); a fixed one passes.
 *
 * What a sequential test in that harness cannot express is refused with the
 * step and the reason: calls of two threads that overlap, an injected
 * allocation failure that fired (the harness cannot fail a GFP_KERNEL
 * allocation), a fork that fails.
 */
#ifndef VMAFUZZ_KTEST_MTREE_H
#define VMAFUZZ_KTEST_MTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the tree's maple tree has (the kernel build's probe, KMT_HAVE_*):
 * the kernel target skipped or replaced the calls a tree lacks, and so does
 * the test. */
struct ktest_caps {
	bool bulk;	   /* mas_expected_entries (to 6.7) */
	bool dup;	   /* __mt_dup (6.8) */
	bool alloc_cyclic; /* mtree_alloc_cyclic (6.10) */
	bool mtree_dup;	   /* mtree_dup (6.8) */
	bool find_range;   /* mas_find_range (6.6) */
	bool alloc;	   /* mtree_alloc_range searching as mas_empty_area (6.5) */
};

/* Every call (no probe to read). */
extern const struct ktest_caps ktest_caps_all;

/*
 * Write the program @data (fuzz_mtree's bytes) as the function @name to
 * @out, with @comment (the program's own comment lines, or NULL) and
 * @tree_name (the tree it is for, or NULL) atop it. True; false with
 * @why set to the step and the reason it cannot be written.
 */
bool ktest_mtree_write(FILE *out, const uint8_t *data, size_t size, const char *name,
		       const char *comment, const char *tree_name, const struct ktest_caps *caps,
		       char *why, size_t whylen);

#endif
