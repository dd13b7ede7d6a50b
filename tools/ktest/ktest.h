/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz repro --ktest FILE [-o OUT.c] [--kernel DIR]: a kernel target's
 * program as a test in the style of the kernel tree's own userland tests
 * (ktest_mtree.h for kfuzz_mtree's). DIR is a kernel build of vmafuzz
 * (out/kernel/<version>-<hash>, default out/kernel/current beside this
 * binary): its probe says which calls the tree has, its record names the
 * tree in the test's comment.
 */
#ifndef VMAFUZZ_KTEST_H
#define VMAFUZZ_KTEST_H

/* The exit status: 0, or 2 after a message (a file that cannot be read, a
 * program of another target, one that cannot be written as a test). */
int ktest_repro(const char *file, const char *out_path, const char *kernel_dir);

#endif
