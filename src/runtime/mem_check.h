/* SPDX-License-Identifier: GPL-2.0 */
/* The memory family of invariants: what is alive is what is reachable. */
#ifndef VMAFUZZ_MEM_CHECK_H
#define VMAFUZZ_MEM_CHECK_H

#include "runtime/alloc.h"
#include <stdbool.h>

/* Live objects of @kind equal @reachable, the count the caller walked. */
bool mem_check_live(enum alloc_kind kind, uint64_t reachable);
/* No object of any kind is alive (the end of a program). */
bool mem_check_empty(void);

#endif
