/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced in (-include) ahead of every file of the kernel build (the
 * kernel's and ours alike), for what the shim leaves to its test programs:
 *  - the shim's dump_stack() (every MT_BUG_ON, MAS_WARN_ON, MT_WARN_ON of
 *    lib/maple_tree.c with CONFIG_DEBUG_MAPLE_TREE) is assert(0); here it
 *    reports through the runtime's check_fail (CK_KMT_BUG), which aborts
 *    while fuzzing and counts in a unit test;
 *  - printk is the shim's printf: here it prints to the stream kmt_dump
 *    names (stderr otherwise), so mt_dump can write where it is asked to.
 */
#ifndef VMAFUZZ_KMT_PRELUDE_H
#define VMAFUZZ_KMT_PRELUDE_H

void kmt_bug(const char *func, int line);
#define dump_stack() kmt_bug(__func__, __LINE__)

#define printf kmt_printf
int kmt_printf(const char *fmt, ...) __attribute__((format(__printf__, 1, 2)));

#endif
