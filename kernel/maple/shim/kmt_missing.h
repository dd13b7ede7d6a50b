/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a tree's maple tree shim may leave out although its lib/maple_tree.c
 * uses it, read after maple-shared.h (kernel/maple/kmt_unit.c and the
 * probes of kernel/maple/probe.sh alike). Each name only when undefined,
 * after the kernel's meaning of it.
 */
#ifndef VMAFUZZ_KMT_MISSING_H
#define VMAFUZZ_KMT_MISSING_H

/* include/linux/compiler_attributes.h: a stable tree's backport to
 * maple_tree.c may use it while the tree's tools/ headers (6.1's
 * tools/testing/radix-tree) lack it */
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

#endif
