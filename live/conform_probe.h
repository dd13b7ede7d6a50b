/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vmafuzz conform and fuzz_conform ask of this kernel before they run
 * anything: whether a read fault of private anonymous memory maps the zero
 * page (most kernels) or allocates a page (a PVM guest booted with
 * pvm_no_zero_page=1), and its version; the model is then told to do the
 * same, and to follow that version's rules (src/mm/kver.h).
 */
#ifndef VMAFUZZ_CONFORM_PROBE_H
#define VMAFUZZ_CONFORM_PROBE_H

#include <stdbool.h>

/* One page mapped in a real process (as_live), read, and looked at in its
 * smaps: 1 the zero page, 0 a page, -1 after a message on stderr. */
int conform_probe_zero_page(void);

/* Whether the kernel refuses commitments past its commit limit
 * (vm.overcommit_memory = 2): a fork may then fail in dup_mmap at a
 * VM_ACCOUNT VMA, which the model, having no commit accounting, does not
 * foresee (conform_run follows the kernel there). */
bool conform_probe_commit_limited(void);

/* The running kernel's version (uname's release) as the model follows it
 * (kver_known); KVER_NEWEST when the release does not read as a version. */
unsigned conform_probe_kver(void);

#endif
