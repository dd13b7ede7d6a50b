/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock classes and their order (sync.h), once for both lock backends:
 * the fibers' (sync.c) and real threads' (threads/sync_threads.c).
 */
#include "runtime/sync.h"

const struct lock_class lock_class_tree = {"tree_lock", 5};
const struct lock_class lock_class_mmap = {"mmap_lock", 10};
const struct lock_class lock_class_vma = {"vma_lock", 20};
const struct lock_class lock_class_i_mmap = {"i_mmap_rwsem", 30};
const struct lock_class lock_class_anon_vma = {"anon_vma_rwsem", 40};
const struct lock_class lock_class_uffd = {"uffd_ctx_lock", 50};
