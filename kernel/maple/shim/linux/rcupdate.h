/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows tools/testing/shared/linux/rcupdate.h (which pulls in liburcu and
 * its call_rcu thread) when lib/maple_tree.c is compiled for vmafuzz: RCU
 * read sections and deferred frees go to the runtime's deterministic RCU
 * (src/runtime/sync.h), so there are no threads and a node is freed exactly
 * when the runtime's grace period ends (at once when no fiber reads).
 */
#ifndef VMAFUZZ_KMT_SHIM_RCUPDATE_H
#define VMAFUZZ_KMT_SHIM_RCUPDATE_H

#include "runtime/sync.h"
#include <urcu/uatomic.h>

/*
 * A reader walking under RCU alone (kmt_walk with rcu) passes a scheduling
 * point before every slot it reads, so a writer may run between any two
 * reads of a descent, as a preempted reader in the kernel would let it.
 */
extern unsigned kmt_rcu_walkers; /* fibers in such a walk, one bit per id */
void kmt_rcu_point(void);
#define kmt_rcu_step() (kmt_rcu_walkers ? kmt_rcu_point() : (void)0)

#define rcu_dereference_check(p, cond) (kmt_rcu_step(), rcu_dereference(p))
#include "kmt_rcu_common.h" /* -Ikernel/maple/shim */

#endif
