/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows liburcu's <urcu/uatomic.h> for the kernel shim's counters
 * (tools/testing/shared/linux.c, linux/maple_tree.h): the few operations it
 * uses, as compiler builtins, so the kernel build needs no liburcu.
 */
#ifndef VMAFUZZ_KMT_SHIM_UATOMIC_H
#define VMAFUZZ_KMT_SHIM_UATOMIC_H

#define uatomic_inc(p) ((void)__atomic_fetch_add((p), 1, __ATOMIC_RELAXED))
#define uatomic_dec(p) ((void)__atomic_fetch_sub((p), 1, __ATOMIC_RELAXED))
#define uatomic_read(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define uatomic_set(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#endif
