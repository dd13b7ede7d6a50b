/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_rollup: smaps_rollup readers racing writers on one process.
 *
 * Every program starts from the same process p0 (built before the first
 * operation): sixteen VMAs of every kind (private and shared anonymous,
 * private and shared file, read-only neighbours that an mprotect can merge
 * into their writable neighbour) with pages in most of them, so a reader
 * always has VMAs to walk and places to drop the lock. The program's
 * threads (five) then run fuzz_mm's operations: `rollup` on one or two
 * threads (either reader), writers on the others (mmap, munmap, mprotect, madvise,
 * touch, userfaultfd, fork of p0 and exit of its children), interleaved by
 * the input's schedule. Each reader checks the rollup invariants when it
 * finishes (rollup.h), every other invariant runs at rest.
 */
#include "fuzz/as/as_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "mm_run.h"
#include "target.h"

static const struct prog_opdesc rollup_ops[MMF_NOPS] = {MMF_OPDESCS};

static const char *const rollup_config[] = {NULL};

static const struct prog_desc rollup_desc = {
    .target = "fuzz_rollup",
    .nops = MMF_NOPS,
    .ops = rollup_ops,
    .config_names = rollup_config,
    .nfibers = PROG_MAX_FIBERS, /* one or two readers, up to three writers */
    .args_size = sizeof(struct mm_args),
};

/*
 * p0: kinds in turn, every fourth VMA a read-only neighbour of the one
 * before it (an mprotect to read-write merges the two), pages in all but
 * the last page of each; mapped and touched through the seam as a program's
 * operations would be, with their ranges given.
 */
static void build_p0(struct mm_exec *m)
{
	static const uint8_t kinds[] = {MMF_PRIVATE_ANON, MMF_SHARED_ANON, MMF_SHARED_FILE,
					MMF_PRIVATE_FILE};
	uint64_t at = 0x10;

	for (unsigned k = 0; k < 16; k++) {
		unsigned pages = 2 + k % 3;
		bool neighbour = k % 4 == 3;
		struct mm_call c = {.code = MMF_OP_MMAP};

		c.a.prot = neighbour ? 1 : 3;
		c.a.kind = kinds[k % 4];
		c.a.file = (uint8_t)(k % MMF_FILES);
		c.a.place = MMF_FIXED;
		c.start = MMF_WINDOW_LO + (at << MMF_PAGE_SHIFT);
		c.len = (uint64_t)pages << MMF_PAGE_SHIFT;
		mm_exec_call(m, &c, false);
		if (c.result < 0)
			return; /* allocation failure here is not the program's */
		c = (struct mm_call){.code = MMF_OP_TOUCH};
		c.a.access = !neighbour;
		c.start = MMF_WINDOW_LO + (at << MMF_PAGE_SHIFT);
		c.len = (uint64_t)(pages - 1) << MMF_PAGE_SHIFT;
		mm_exec_call(m, &c, false);
		at += pages + (neighbour ? 2 : 0);
	}
}

static const struct mm_target rollup_target = {
    .desc = &rollup_desc,
    .backend = &as_model,
    .fork_code = MMF_OP_FORK,
    .prologue = build_p0,
};

static int rollup_run(const uint8_t *data, size_t size)
{
	return mm_run_program(&rollup_target, data, size);
}

const struct fuzz_target fuzz_rollup_target = {
    .name = "fuzz_rollup",
    .summary = "smaps_rollup readers (mmap lock or per-VMA locks) racing writers on a varied "
	       "process",
    .desc = &rollup_desc,
    .run = rollup_run,
};
