/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tree_kernel: the tree seam (fuzz/tree/tree_backend.h) over the kernel's
 * own lib/maple_tree.c, compiled from the kernel tree given at build time
 * (kmt.h, kernel/maple/maple.mk). Only what links the kernel's objects
 * (kfuzz_mtree, the kernel tests) may name it.
 */
#ifndef VMAFUZZ_KMT_BACKEND_H
#define VMAFUZZ_KMT_BACKEND_H

#include "fuzz/tree/tree_backend.h"

extern const struct tree_backend tree_kernel;

#endif
