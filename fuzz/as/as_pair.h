/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two address-space backends as one (as_pair.c): every call runs on the
 * primary, whose answer is the program's, and on the shadow, which resolves
 * the ranges; results and VMAs must agree after every call
 * (AS_BACKENDS_DIFFER). The kernel target kfuzz_vma is the kernel's
 * mm/vma.c shadowed by the model. One pair at a time: a later call replaces
 * the two.
 */
#ifndef VMAFUZZ_AS_PAIR_H
#define VMAFUZZ_AS_PAIR_H

#include "as_backend.h"

const struct as_backend *as_pair(const struct as_backend *primary, const struct as_backend *shadow);
/* The shadow's state of an open pair @as (to configure it). */
void *as_pair_shadow(void *as);

#endif
