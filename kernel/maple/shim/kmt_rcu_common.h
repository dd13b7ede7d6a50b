/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both RCU shadows (kernel/maple/shim/linux/rcupdate.h for the maple tree,
 * kernel/vma/shim/linux/rcupdate.h for mm/vma.c) give the kernel's code
 * alike: the rcu_head layout (the maple nodes of kmt.o embed it, so the two
 * must agree), the pointer accessors built on rcu_dereference, and call_rcu
 * as the runtime's deferred free. Each shadow defines rcu_dereference,
 * rcu_assign_pointer and rcu_dereference_check first.
 */
#ifndef VMAFUZZ_KMT_RCU_COMMON_H
#define VMAFUZZ_KMT_RCU_COMMON_H

/* The kernel's struct callback_head (include/linux/types.h). */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

#define rcu_dereference_raw(p) rcu_dereference(p)
#define rcu_dereference_protected(p, cond) rcu_dereference(p)
#define RCU_INIT_POINTER(p, v)                                                                     \
	do {                                                                                       \
		(p) = (v);                                                                         \
	} while (0)

/* kernel/maple/kmt_unit.c: hands @head to call_rcu_free, which calls @func. */
void kmt_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
#define call_rcu kmt_call_rcu

#endif
