/*
 * fuzz_mm: the address-space model, the main target.
 *
 * Processes (p0 exists from the start) map, unmap, protect, advise and touch
 * memory inside a fixed window, on up to four threads interleaved by the
 * schedule bytes. Ranges are resolved against the process's live VMAs and
 * gaps, in pages, so most operations land on a VMA or next to one. Four
 * model files can be mapped privately or shared; shared anonymous mappings
 * get their own shmem file. Any operation may carry fail_at=N.
 *
 * After every operation that leaves no thread inside another one, every
 * invariant of the VMA, anon_vma and page families is checked over all
 * processes, and the live objects of every kind must equal the objects
 * reachable (plus those waiting for an RCU grace period). At the end no
 * lock may be held, and after every process is destroyed nothing may be
 * alive.
 */
#include "alloc.h"
#include "check.h"
#include "exec.h"
#include "mem_check.h"
#include "mm.h"
#include "mm_fuzz.h"
#include "target.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

enum {
	OP_MMAP,
	OP_MUNMAP,
	OP_MPROTECT,
	OP_MADVISE,
	OP_TOUCH,
	OP_UFFD_CREATE,
	OP_UFFD_REGISTER,
	OP_UFFD_UNREGISTER,
	OP_UFFD_RELEASE,
	OP_FORK,
	OP_EXIT,
	OP_NR
};

#define F_PROC { FK_SEL, "p", MMF_MAX_PROCS, NULL }
#define F_RANGE { FK_RANGE, NULL, 0, NULL }
#define F_PROT {FK_FLAGS, NULL, 0, mmf_prot_names}
#define F_UFFD {FK_SEL, "h", 8, NULL}

static const struct prog_opdesc mm_ops[OP_NR] = {
	[OP_MMAP] = { "mmap",
		      "map the range (kind: anon or file f<k>, private or shared; place: "
		      "fixed, noreplace or hint)",
		      6,
		      { F_PROC, F_RANGE, F_PROT, { FK_CHOICE, NULL, 0, mmf_kind_names },
			{ FK_SEL, "f", MMF_FILES, NULL },
			{ FK_CHOICE, NULL, 0, mmf_place_names } } },
	[OP_MUNMAP] = { "munmap", "unmap the range", 2, { F_PROC, F_RANGE } },
	[OP_MPROTECT] = { "mprotect", "change protection of the range", 3,
			  { F_PROC, F_RANGE, F_PROT } },
	[OP_MADVISE] = { "madvise", "advise the range", 3,
			 { F_PROC, F_RANGE, { FK_CHOICE, NULL, 0, mmf_advice_names } } },
	[OP_TOUCH] = { "touch", "fault every page of the range", 3,
		       { F_PROC, F_RANGE, { FK_CHOICE, NULL, 0, mmf_access_names } } },
    [OP_UFFD_CREATE] = {"uffd_create", "open a userfaultfd on the process (fork: with the fork event)",
			2, {F_PROC, {FK_CHOICE, NULL, 0, mmf_uffd_feature_names}}},
    [OP_UFFD_REGISTER] = {"uffd_register", "register the range with context h<k> in modes", 4,
			  {F_PROC, F_RANGE, {FK_FLAGS, NULL, 0, mmf_uffd_mode_names}, F_UFFD}},
    [OP_UFFD_UNREGISTER] = {"uffd_unregister", "unregister the range from context h<k>", 3,
			    {F_PROC, F_RANGE, F_UFFD}},
    [OP_UFFD_RELEASE] = {"uffd_release", "close context h<k>", 2, {F_PROC, F_UFFD}},
    [OP_FORK] = {"fork",
		 "fork the process (algorithm tree or append; anon_vma policy current or the "
		 "reverted reuse; diff: also fork by the other algorithm and compare)",
		 4,
		 {F_PROC, {FK_CHOICE, NULL, 0, mmf_algo_names}, {FK_CHOICE, NULL, 0, mmf_policy_names},
		  {FK_CHOICE, NULL, 0, mmf_diff_names}}},
    [OP_EXIT] = {"exit", "the process exits: its fds close, its mm goes with its last user", 1,
		 {F_PROC}},
};

static const char *const mm_config[] = { NULL };

static const struct prog_desc mm_desc = {
	.target = "fuzz_mm",
	.nops = OP_NR,
	.ops = mm_ops,
	.config_names = mm_config,
	.nfibers = PROG_MAX_FIBERS,
};

/* Run one operation; an errno the kernel would return is fine, the
 * invariants judge the state. */
static void run_op(void *arg, const struct prog_op *op)
{
	struct mmf_state *s = arg;
	unsigned p = op->arg[0] % MMF_MAX_PROCS;
	struct mm *mm = mmf_get(s, p);
	struct mmf_call c;

	if (!mm)
		return;
	memset(&c, 0, sizeof(c));
	if (mm_ops[op->code].nfields > 1 && mm_ops[op->code].fields[1].kind == FK_RANGE)
		mmf_resolve(mm, &op->arg[1], &c.start, &c.len);
	switch (op->code) {
	case OP_MMAP:
		c.op = MMF_MMAP;
		c.prot = op->arg[5];
		c.kind = op->arg[6];
		c.file = op->arg[7];
		c.place = op->arg[8];
		break;
	case OP_MUNMAP:
		c.op = MMF_MUNMAP;
		break;
	case OP_MPROTECT:
		c.op = MMF_MPROTECT;
		c.prot = op->arg[5];
		break;
	case OP_MADVISE:
		c.op = MMF_MADVISE;
		c.advice = op->arg[5];
		break;
	case OP_TOUCH:
		c.op = MMF_TOUCH;
		c.write = op->arg[5] == 1;
		break;
	case OP_UFFD_CREATE:
		c.op = MMF_UFFD_CREATE;
		c.modes = op->arg[1];
		break;
	case OP_UFFD_REGISTER:
		c.op = MMF_UFFD_REGISTER;
		c.modes = op->arg[5];
		c.handle = op->arg[6];
		break;
	case OP_UFFD_UNREGISTER:
		c.op = MMF_UFFD_UNREGISTER;
		c.handle = op->arg[5];
		break;
	case OP_UFFD_RELEASE:
		c.op = MMF_UFFD_RELEASE;
		c.handle = op->arg[1];
		break;
	case OP_FORK:
		c.op = MMF_FORK;
		c.algo = op->arg[1];
		c.policy = op->arg[2];
		c.diff = op->arg[3];
		break;
	case OP_EXIT:
		c.op = MMF_EXIT;
		break;
	}
	exec_arm(op);
	mmf_call(s, p, mm, &c);
	exec_disarm();
	mmf_put(s, mm);
}

static void check_all(void *arg)
{
	mmf_check(arg);
}

static void dump_state(FILE *out, void *arg)
{
	mmf_dump(out, arg);
}

static int mm_run(const uint8_t *data, size_t size)
{
	struct mmf_state s;
	struct exec x;

	if (mmf_init(&s))
		return 0;
	exec_begin(&x, &mm_desc, data, size, dump_state, &s);
	x.check_at_rest = true;
	exec_run(&x, run_op, check_all);
	mmf_finish(&s);
	exec_end(&x);
	return 0;
}

const struct fuzz_target fuzz_mm_target = {
	.name = "fuzz_mm",
	.summary = "address space: mmap, munmap, mprotect, madvise, faults, userfaultfd, on threads, "
		   "with every VMA, anon_vma, page, userfaultfd and memory invariant",
	.desc = &mm_desc,
	.run = mm_run,
};
