/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows tools/testing/shared/linux/rcupdate.h (and kernel/shim's) when
 * mm/vma.c is compiled for the vma backend (kernel/vma/vma.mk): RCU read
 * sections and deferred frees are the runtime's (src/runtime/sync.h), as
 * for the maple tree, but without including runtime/sync.h, whose mmap and
 * VMA lock functions have the kernel's names (mmap_read_unlock,
 * vma_start_write ...) and would clash with tools/testing/vma's stubs.
 * struct rcu_head must stay the layout kernel/maple/shim/linux/rcupdate.h gives
 * it: the maple nodes of kmt.o embed it.
 */
#ifndef VMAFUZZ_KVMA_SHIM_RCUPDATE_H
#define VMAFUZZ_KVMA_SHIM_RCUPDATE_H

#include <urcu/uatomic.h>

/* src/runtime/sync.h */
void rcu_read_lock(void);
void rcu_read_unlock(void);
#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

#define rcu_dereference_check(p, cond) rcu_dereference(p)
#include "kmt_rcu_common.h" /* -Ikernel/maple/shim */

#endif
