/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe registration's walk of the processes mapping a file
 * (kernel/events/uprobes.c register_for_each_vma): the one walker besides
 * exit that can reach an address space a failed fork left half-built.
 *
 * From the file's i_mmap (under its lock) it collects every private
 * mapping of the probed page, taking a user reference on each mm that has
 * users left (mmget_not_zero); then in each mm, under its mmap write lock,
 * it looks up the VMA at the page's address and gives it an anon_vma, as
 * install_breakpoint does before it copies the page. After a failed fork
 * the half-built child stays in i_mmap until its last user goes, with the
 * zero entry at the failure point: since "fork: avoid inappropriate uprobe
 * access to invalid mm" (2024) the walk skips address spaces marked
 * unstable, which a failed fork does before it lets go of the child.
 */
#ifndef VMAFUZZ_UPROBE_H
#define VMAFUZZ_UPROBE_H

#include "mm/types.h"

/* Probe page @pgoff of @f in every process: the number of VMAs it was
 * installed in, or -ENOMEM. */
int uprobe_register(struct file *f, uint64_t pgoff);

/* Address spaces the walk skipped as unstable (tests: the race happened). */
extern uint64_t uprobe_skipped_unstable;

#endif
