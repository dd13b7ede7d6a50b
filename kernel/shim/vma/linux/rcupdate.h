/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows tools/testing/shared/linux/rcupdate.h (and kernel/shim's) when
 * mm/vma.c is compiled for the vma backend (kernel/vma.mk): RCU read
 * sections and deferred frees are the runtime's (src/runtime/sync.h), as
 * for the maple tree, but without including runtime/sync.h, whose mmap and
 * VMA lock functions have the kernel's names (mmap_read_unlock,
 * vma_start_write ...) and would clash with tools/testing/vma's stubs.
 * struct rcu_head must stay the layout kernel/shim/linux/rcupdate.h gives
 * it: the maple nodes of kmt.o embed it.
 */
#ifndef VMAFUZZ_KVMA_SHIM_RCUPDATE_H
#define VMAFUZZ_KVMA_SHIM_RCUPDATE_H

#include <urcu/uatomic.h>

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

/* src/runtime/sync.h */
void rcu_read_lock(void);
void rcu_read_unlock(void);
#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

#define rcu_dereference_raw(p) rcu_dereference(p)
#define rcu_dereference_protected(p, cond) rcu_dereference(p)
#define rcu_dereference_check(p, cond) rcu_dereference(p)
#define RCU_INIT_POINTER(p, v)                                                                     \
	do {                                                                                       \
		(p) = (v);                                                                         \
	} while (0)

/* kernel/kmt_maple.c: the callback deferred by the runtime's RCU. */
void kmt_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
#define call_rcu kmt_call_rcu

#endif
