/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live kernel as an address-space backend (as_backend.h), for vmafuzz
 * conform: a child process runs the resolved calls of a fuzz_mm program
 * with the real system calls, its forked grandchild stands for the model's
 * child process, and the VMAs are read from /proc/PID/smaps.
 *
 * This side knows nothing of the model: it includes fuzz_mm's operation
 * table and the seam, and system headers; flags and advice travel as the
 * kernel's values.
 */
#ifndef VMAFUZZ_CONFORM_H
#define VMAFUZZ_CONFORM_H

#include "as_backend.h"
#include "ksys.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The child runs struct kcall (ksys.h): KSYS_FORK forks it, the grandchild
 * waiting, touching nothing, until KSYS_EXIT ends it, and the result is its
 * pid, for kproc_vmas_of.
 */
struct kproc {
	pid_t pid;
	int to, from; /* pipes to and from the child */
};

/*
 * Fork the child: it switches transparent huge pages off for itself and
 * checks that [lo, hi) is free (nothing mapped there). 0, or -1 with a
 * message in @err.
 */
int kproc_start(struct kproc *k, uint64_t lo, uint64_t hi, char *err, size_t errlen);
/* Run one call in the child; its result (address, 0 or -errno) in @result.
 * False (message in @err) when the child is gone. */
bool kproc_call(struct kproc *k, const struct kcall *c, int64_t *result, char *err, size_t errlen);
/* The child's VMAs intersecting [lo, hi), in address order; at most @max.
 * -1 with a message in @err when smaps cannot be read. */
int kproc_vmas(struct kproc *k, uint64_t lo, uint64_t hi, struct as_vma *out, unsigned max,
	       char *err, size_t errlen);
/* The same for another process (the grandchild of MMF_OP_FORK). */
int kproc_vmas_of(pid_t pid, uint64_t lo, uint64_t hi, struct as_vma *out, unsigned max, char *err,
		  size_t errlen);
/* End the child (closes its pipe, waits for it). */
void kproc_stop(struct kproc *k);

/*
 * The backend over a kproc: process p0 is the child, and the process a fork
 * makes (in the model's numbering, as_live_set_child tells which) is the
 * grandchild until it exits. It runs mmap of anonymous memory, munmap,
 * mprotect, madvise, touch, fork and the exit of a forked process; resolve
 * is the reference backend's job (conform resolves on the model).
 */
extern const struct as_backend as_live;
void as_live_set_child(void *as, unsigned proc);

#endif
