/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_fork: fork under allocation failure at every point.
 *
 * A program builds a parent with fuzz_mm's operations (any mix of VMA
 * flags, files, userfaultfd contexts, pages), then `fork_every` forks it
 * with the Nth allocation failing for N = 1, 2, ... until a fork gets
 * through: every failed fork must leave the parent as it was and nothing
 * behind (the check runs inside mm_fork while the parent is locked, and
 * every invariant runs after the operation), the one that succeeds must
 * give a child equal to the parent minus VM_DONTCOPY, and the child joins
 * the processes (or exits at once when there is no room). Meanwhile reader threads can walk the
 * parent's VMA tree under RCU alone (`rcu_walk`), touching every VMA they meet, so a VMA or tree
 * node freed too early is caught by AddressSanitizer.
 */
#include "exec.h"
#include "fuzz/as/expect/expect.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "mm/anon.h"
#include "mm/fork.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "mm_run.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "target.h"
#include "tree/mtree.h"

#include <inttypes.h>
#include <string.h>

enum { OP_FORK_EVERY = MMF_NOPS, OP_RCU_WALK, OP_NR };

/* At most this many failure points per fork_every (a parent of a program's
 * size needs far fewer). */
#define FORK_EVERY_MAX 4096

static const struct prog_opdesc fork_ops[OP_NR] = {
    MMF_OPDESCS[OP_FORK_EVERY] =
	{"fork_every",
	 "fork with allocation N failing, N = 1, 2, ... until one succeeds",
	 3,
	 {MMF_F_PROC, MMF_F_CHOICE(mmf_algo_names, algo), MMF_F_CHOICE(mmf_policy_names, policy)}},
    [OP_RCU_WALK] = {"rcu_walk", "walk the process's VMAs under RCU alone", 1, {MMF_F_PROC}},
};

static const char *const fork_config[] = {NULL};

static const struct prog_desc fork_desc = {
    .target = "fuzz_fork",
    .nops = OP_NR,
    .ops = fork_ops,
    .config_names = fork_config,
    .nfibers = PROG_FIBERS,
    .args_size = sizeof(struct mm_args),
};

static void fork_every(struct mmf_state *s, struct mm *parent, const struct mm_args *a)
{
	struct fork_opts o = {
	    .algo = a->algo ? FORK_APPEND : FORK_TREE_DUP,
	    .policy = a->policy ? ANON_POLICY_REUSE_MERGEABLE : ANON_POLICY_CURRENT,
	    .check = true,
	};

	for (uint64_t n = 1; n <= FORK_EVERY_MAX; n++) {
		struct fork_uffd fu;
		struct mm *child;
		bool fired;
		int err;

		alloc_fail_arm(n);
		err = mm_fork(parent, MMF_MAX_PROCS, &o, &child, &fu);
		fired = alloc_fail_fired();
		alloc_fail_disarm();
		/* fork fails only when an allocation does */
		MODEL_ASSERT(!err || fired);
		if (err)
			continue;
		/* the child joins the process table, where the checks at rest see it
		 * with every process it shares pages with; no room: it exits */
		for (unsigned i = 0; i < fu.n; i++)
			uffd_put(fu.ctx[i]);
		for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
			if (!s->mm[i]) {
				child->id = i;
				s->mm[i] = child;
				mmf_copy_fds(s, parent, i);
				return;
			}
		mmf_put(s, child);
		return;
	}
}

static bool walk_visit(void *arg, const struct mt_range *r, void *entry)
{
	struct mm *mm = arg;
	struct vma *v = entry;

	/* reading the VMA: freed too early, AddressSanitizer stops here */
	if (!mt_is_zero(v) && (v->mm != mm || v->start >= v->end))
		check_fail(CK_VMA_MM,
			   "an RCU walk of mm %u at [%#" PRIx64 ", %#" PRIx64
			   "] meets vma#%u of mm %u",
			   mm->id, r->first, r->last, v->id, v->mm ? v->mm->id : 0);
	return true;
}

/* fuzz_mm's operations through the seam; the two of this target are the
 * model's own (fork with failure at every point, a reader of its tree). */
static void run_op(void *arg, const struct prog_op *op)
{
	struct mm_exec *m = arg;
	struct mmf_state *s = m->as;
	struct mm_args a;
	struct mm *mm;

	if (op->code < MMF_NOPS) {
		mm_exec_op(m, op);
		return;
	}
	prog_decode_args(m->desc, op, &a);
	mm = mmf_get(s, a.proc);
	if (!mm)
		return;
	if (op->code == OP_FORK_EVERY) {
		/* to the expectation, a fork whose child's contexts reach nobody */
		struct mm_call c = {.code = MMF_OP_FORK, .a = a};
		unsigned begun =
		    m->expect ? as_expect_begin(m->expect, &c, as_expect_held(m->expect, &c)) : 0;

		fork_every(s, mm, &a);
		if (m->expect)
			as_expect_end_fork_nofd(m->expect, m->b, m->as, &c, begun);
	} else {
		rcu_read_lock();
		mt_rcu_walk(&mm->mt, 0, MT_MAX, walk_visit, mm);
		rcu_read_unlock();
	}
	mmf_put(s, mm);
}

static const struct mm_target fork_target = {
    .desc = &fork_desc,
    .backend = &as_model, /* fork_every and rcu_walk reach into the model */
    .fork_code = OP_FORK_EVERY,
    .op_fn = run_op,
};

static int fork_run(const uint8_t *data, size_t size)
{
	return mm_run_program(&fork_target, data, size);
}

const struct fuzz_target fuzz_fork_target = {
    .name = "fuzz_fork",
    .summary = "fork of a varied parent with allocation failure at every point, beside RCU "
	       "readers of the parent's VMA tree",
    .desc = &fork_desc,
    .run = fork_run,
    /* With the scaling, the programs whose forks fail around a file VMA
     * while a walker waits got little energy, and zero_entry_walker was
     * missed in runs that found it without the scaling (docs/benchmarks.md,
     * docs/results/benchmarks.md) */
    .flat_energy = true,
};
