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
#include "mm/fault.h"
#include "mm/mmap.h"
#include "mm/types.h"
#include "mm_fuzz.h"
#include "target.h"

static const struct prog_opdesc rollup_ops[MMF_NOPS] = {MMF_OPDESCS};

static const char *const rollup_config[] = {NULL};

static const struct prog_desc rollup_desc = {
    .target = "fuzz_rollup",
    .nops = MMF_NOPS,
    .ops = rollup_ops,
    .config_names = rollup_config,
    .nfibers = PROG_MAX_FIBERS, /* one or two readers, up to three writers */
};

#define PG(n) (MMF_WINDOW_LO + ((uint64_t)(n) << PAGE_SHIFT))

/* p0: kinds in turn, every fourth VMA a read-only neighbour of the one
 * before it (an mprotect to read-write merges the two). */
static void build_p0(struct mmf_state *s)
{
	struct mm *mm = s->mm[0];
	uint64_t at = 0x10;

	for (unsigned k = 0; k < 16; k++) {
		unsigned kind = k % 4, pages = 2 + k % 3;
		bool neighbour = k % 4 == 3;
		int prot = neighbour ? PROT_READ : PROT_READ | PROT_WRITE;
		int flags = MAP_FIXED | (kind == 1 || kind == 2 ? MAP_SHARED : MAP_PRIVATE);
		struct file *f = kind >= 2 ? s->files[k % MMF_FILES] : NULL;

		if (!f)
			flags |= MAP_ANONYMOUS;
		if (mm_mmap(mm, PG(at), (uint64_t)pages << PAGE_SHIFT, prot, flags, f, at) < 0)
			return; /* allocation failure here is not the program's */
		mm_touch(mm, PG(at), (uint64_t)(pages - 1) << PAGE_SHIFT, !neighbour);
		at += pages + (neighbour ? 2 : 0);
	}
}

static void run_op(void *arg, const struct prog_op *op)
{
	mmf_run_op(arg, op);
}

static int rollup_run(const uint8_t *data, size_t size)
{
	return mmf_run_program_after(&rollup_desc, MMF_OP_FORK, build_p0, run_op, data, size);
}

const struct fuzz_target fuzz_rollup_target = {
    .name = "fuzz_rollup",
    .summary = "smaps_rollup readers (mmap lock or per-VMA locks) racing writers on a varied "
	       "process",
    .desc = &rollup_desc,
    .run = rollup_run,
};
