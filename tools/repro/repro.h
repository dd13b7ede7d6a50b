/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data of a C reproducer that `vmafuzz repro --c` writes: a fuzz_mm
 * program's steps as the system calls they make, each with what the model
 * showed after it (the result and the VMAs of the window; after a fork the
 * child's too). tools/repro/repro_main.c runs the steps on the running kernel and
 * compares; tools/repro/repro_emit.c writes the data. A reproducer is one file:
 * ksys.h, this header, the data, ksys.c and main.c, in that order, with
 * their #include "..." lines dropped.
 */
#ifndef VMAFUZZ_REPRO_H
#define VMAFUZZ_REPRO_H

#include "live/ksys.h"

#include <stdint.h>
#include <sys/mman.h> /* the data names prot, flags and advice so */

struct repro_step {
	const char *op;	  /* the operation as the program says it */
	const char *text; /* its call: "mprotect(0x200000014000 @0x14, ...)" */
	struct kcall call;
	int64_t result; /* the model's: an address, 0 or -errno */
	const struct kvma *vmas;
	unsigned nvmas;
	/* fork: the child's VMAs, which it checks in its own smaps, then exits */
	const struct kvma *child;
	unsigned nchild;
};

/*
 * The steps as the model ran them for a kernel that maps the zero page on a
 * read fault of private anonymous memory ([0]) and for one that allocates a
 * page there ([1]: mm_forbids_zeropage, e.g. a PVM guest booted with
 * pvm_no_zero_page=1); the same array when the program cannot tell the two
 * apart. main() probes the kernel only when they differ.
 */
extern const struct repro_step *const repro_steps[2];
extern const unsigned repro_nsteps;
extern const int repro_tap;		  /* kselftest's TAP output and exit codes */
extern const char repro_name[];		  /* the program it was written from */
extern const uint64_t repro_lo, repro_hi; /* the window compared, free before step 0 */

#endif
