/* SPDX-License-Identifier: GPL-2.0 */
/* Running mm programs over a backend (mm_run.h). */
#include "mm_run.h"

#include "exec.h"
#include "fuzz/as/expect/expect.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/prog/prog.h"
#include "mm/kver.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE (1ull << MMF_PAGE_SHIFT)
/* What a failure check looks at: the window, and what a mapping starting in
 * it can reach past its top (255 pages). */
#define VIEW_LO MMF_WINDOW_LO
#define VIEW_HI (MMF_WINDOW_HI + (256ull << MMF_PAGE_SHIFT))
#define VIEW_MAX 1024

/* Operations in flight and started: a failure check only judges a call
 * that ran alone from its start to its end (another thread's operation may
 * change the same process meanwhile). */
static unsigned in_flight;
static uint64_t started;

/* ---- what a call under an injected failure may leave --------------------- */

/* The VMA bits a failed call must not change outside what it may change. */
#define VIEW_FLAGS                                                                                 \
	(AS_VM_READ | AS_VM_WRITE | AS_VM_EXEC | AS_VM_SHARED | AS_VM_MAYSHARE | AS_VM_DONTCOPY |  \
	 AS_VM_ACCOUNT | AS_VM_WIPEONFORK | AS_VM_LOCKED | AS_VM_LOCKONFAULT)

struct view {
	struct as_vma v[VIEW_MAX];
	int n; /* -1: not taken */
};

static void view_take(struct mm_exec *m, unsigned proc, struct view *w)
{
	char err[128];

	w->n = m->b->vmas(m->as, proc, VIEW_LO, VIEW_HI, false, w->v, VIEW_MAX, err, sizeof(err));
	if (w->n == VIEW_MAX)
		w->n = -1; /* too many to judge */
}

/* The VMA of @w holding @addr, or NULL. */
static const struct as_vma *view_at(const struct view *w, uint64_t addr)
{
	for (int i = 0; i < w->n; i++)
		if (w->v[i].start <= addr && addr < w->v[i].end)
			return &w->v[i];
	return NULL;
}

/* The next VMA boundary of @w above @addr (VIEW_HI: none). */
static uint64_t view_next(const struct view *w, uint64_t addr)
{
	uint64_t next = VIEW_HI;

	for (int i = 0; i < w->n; i++) {
		if (w->v[i].start > addr && w->v[i].start < next)
			next = w->v[i].start;
		if (w->v[i].end > addr && w->v[i].end < next)
			next = w->v[i].end;
	}
	return next;
}

/* What a call that failed on an injected allocation failure may leave
 * changed inside its range, as the kernel does. */
enum allowed { SAME, MAY_UNMAP, MAY_CHANGE_FLAGS, MAY_MOVE };

static enum allowed allowed_inside(const struct mm_call *c, unsigned kver)
{
	switch (c->code) {
	case MMF_OP_MMAP:
		/* MAP_FIXED unmapped the old range before the new VMA failed */
		return c->a.place == MMF_FIXED ? MAY_UNMAP : SAME;
	case MMF_OP_MPROTECT:
	case MMF_OP_MADVISE:
	case MMF_OP_UFFD_REGISTER:
	case MMF_OP_UFFD_UNREGISTER:
	case MMF_OP_MLOCK:
	case MMF_OP_MUNLOCK:
		/* the VMAs before the one whose split failed are changed */
		return MAY_CHANGE_FLAGS;
	case MMF_OP_MREMAP:
		/* a fixed move of the same size moved the VMAs of its range
		 * before the one that failed (since 6.17) */
		if ((c->a.remap_flags & 2) && c->len == c->to_len &&
		    kver_has(kver, KV_MREMAP_MOVES_MANY))
			return MAY_MOVE;
		/* a fixed move unmapped the new range, a shrinking one the old
		 * range's tail, before the failure */
		return MAY_UNMAP;
	default:
		return SAME;
	}
}

static bool same_page(const struct as_vma *a, uint64_t pa, const struct as_vma *b, uint64_t pb)
{
	if (!a || !b)
		return a == b;
	return (a->flags & VIEW_FLAGS) == (b->flags & VIEW_FLAGS) &&
	       a->pgoff + ((pa - a->start) >> MMF_PAGE_SHIFT) ==
		   b->pgoff + ((pb - b->start) >> MMF_PAGE_SHIFT);
}

/* The next boundary of [lo, hi) above @at into *@next. */
static void cut_at(uint64_t at, uint64_t lo, uint64_t hi, uint64_t *next)
{
	if (at<lo && * next> lo)
		*next = lo;
	if (at<hi && * next> hi)
		*next = hi;
}

/* Compare @before and @after page range by page range. */
static bool view_check(const struct mm_call *c, unsigned kver, const struct view *before,
		       const struct view *after)
{
	uint64_t lo = c->start & ~(PAGE - 1), hi = c->start + c->len;
	uint64_t lo2 = c->to, hi2 = c->to + c->to_len; /* mremap's new range */
	enum allowed inside = allowed_inside(c, kver);

	if (hi < lo || c->len == 0)
		hi = lo;
	if (c->code != MMF_OP_MREMAP || hi2 < lo2)
		lo2 = hi2 = 0;
	for (uint64_t at = VIEW_LO; at < VIEW_HI;) {
		uint64_t nb = view_next(before, at), na = view_next(after, at);
		uint64_t next = nb < na ? nb : na;
		const struct as_vma *x = view_at(before, at), *y = view_at(after, at);
		bool in = (at >= lo && at < hi) || (at >= lo2 && at < hi2);
		bool ok = same_page(x, at, y, at);

		if (!ok && in && inside == MAY_UNMAP)
			ok = !y;
		/* the VMAs moved before the failure left the old range for the
		 * new one; one whose source could not be split off kept it,
		 * without VM_ACCOUNT, as the kernel leaves it */
		if (!ok && in && inside == MAY_MOVE)
			ok = true;
		if (!ok && in && inside == MAY_CHANGE_FLAGS)
			ok = !x == !y;
		/* a stack grew down before the fault that needed it failed (the
		 * growth stays, as the kernel's does), wherever it reached */
		if (!ok && c->code == MMF_OP_TOUCH && !x && y && (y->flags & AS_VM_GROWSDOWN))
			ok = true;
		if (!ok)
			return check_fail(CK_MM_FAILED_CALL_CHANGED,
					  "the call failed on its injected allocation failure, yet "
					  "[%#" PRIx64 ", %#" PRIx64 ") was %s and is %s",
					  at, next, x ? "mapped" : "unmapped",
					  !y  ? "unmapped"
					  : x ? "mapped otherwise"
					      : "mapped");
		/* inside and outside the ranges are judged apart */
		cut_at(at, lo, hi, &next);
		cut_at(at, lo2, hi2, &next);
		at = next;
	}
	return true;
}

/* What the call returns when an injected allocation failure made it fail:
 * -ENOMEM, but -EAGAIN for madvise (madvise_vma_behavior says so; not for
 * MADV_POPULATE_*), and for mlock when the failure came in populating
 * (__mlock_posix_error_return). */
static int64_t injected_result(const struct mm_call *c)
{
	bool populate =
	    c->a.advice == MMF_ADV_POPULATE_READ || c->a.advice == MMF_ADV_POPULATE_WRITE;

	/* madvise_populate returns -ENOMEM as it is */
	if ((c->code == MMF_OP_MADVISE && !populate) ||
	    (c->code == MMF_OP_MLOCK && c->result == -EAGAIN))
		return -EAGAIN;
	return -ENOMEM;
}

/* Whether the call passes an injected allocation failure on. */
static bool reports_enomem(const struct mm_call *c)
{
	switch (c->code) {
	case MMF_OP_ROLLUP:	  /* the reader's allocations are bookkeeping */
	case MMF_OP_UPROBE:	  /* a probe that cannot be installed is skipped */
	case MMF_OP_EXIT:	  /* closing fds and exit cannot fail */
	case MMF_OP_UFFD_RELEASE: /* nor can close: a failed split keeps the flags */
	case MMF_OP_MAP_LIMIT:
		return false;
	case MMF_OP_FORK:
		/* diff: the failure may hit the second child, built only to
		 * compare the algorithms */
		return !c->a.diff;
	case MMF_OP_MADVISE:
		/* reclaim that cannot allocate leaves a page be; madvise says
		 * nothing of it */
		return c->a.advice != MMF_ADV_PAGEOUT;
	default:
		return true;
	}
}

/*
 * The call ran with fail_at armed (after libxml2's api fuzzer, and as
 * fuzz_mtree checks its writes): when the injected failure fired, the call
 * failed with -ENOMEM (madvise: -EAGAIN), and it changed no mapping of the process but those
 * the kernel also leaves changed on such a failure (the split before the
 * failing one, MAP_FIXED's unmap). When it did not fire, the call is judged
 * as any other, by the invariants.
 */
static void check_injected(const struct as_backend *b, const struct mm_call *c, unsigned kver,
			   bool fired, const struct view *before, const struct view *after)
{
	if (!fired || (c->result >= 0 && b->absorbs && b->absorbs(c)))
		return;
	/* a move of many VMAs may go on past a failure that a VMA's move
	 * absorbed (a split of its source), and fail later for its own reason */
	if (reports_enomem(c) && c->result != injected_result(c) &&
	    allowed_inside(c, kver) != MAY_MOVE)
		check_fail(CK_MM_FAILED_CALL_RESULT,
			   "an allocation failed inside the call (fail_at), but it returned "
			   "%" PRId64 ", not %" PRId64,
			   c->result, injected_result(c));
	if (before->n >= 0 && after->n >= 0)
		view_check(c, kver, before, after);
}

/* ---- one operation ------------------------------------------------------- */

/* replay -v: each operation with what the backend returned */
static void trace_result(const struct prog_desc *d, const struct prog_op *op, int64_t result)
{
	const char *name = result < 0 && result > -4096 ? strerrorname_np((int)-result) : NULL;

	fputs("  ", prog_trace);
	prog_print_op(prog_trace, d, op);
	if (name)
		fprintf(prog_trace, "  = -%s\n", name);
	else if (result < 0)
		fprintf(prog_trace, "  = %" PRId64 "\n", result);
	else
		fprintf(prog_trace, "  = %#" PRIx64 "\n", (uint64_t)result);
}

/* Run @c (of @op, when not NULL: its fail_at armed); false when its
 * process does not exist. */
static bool run_call(struct mm_exec *m, struct mm_call *c, const struct prog_op *op, bool resolve)
{
	/*
	 * The views of this call: only a call that started alone takes them,
	 * so one pair serves the program (a malloc of both for each call with
	 * fail_at outweighed what the rest of a kfuzz_vma program allocated:
	 * docs/results/benchmarks.md).
	 */
	static struct view views[2];
	struct view *before = NULL, *after = NULL;
	uint64_t seq = ++started;
	bool alone = ++in_flight == 1, fired;
	struct as_expect *expect = m->expect;
	unsigned begun = 0;
	uint32_t held = 0;

	if (!m->b->get(m->as, c)) {
		in_flight--;
		return false;
	}
	if (m->expect)
		held = as_expect_held(m->expect, c);
	if (resolve && mmf_has_range(m->desc, c->code))
		m->b->resolve(m->as, c);
	/* a call the backend refuses runs nowhere and asks nothing */
	if (m->expect && m->b->refuses && m->b->refuses(m->as, c))
		expect = NULL;
	if (expect)
		begun = as_expect_begin(expect, c, held);
	if (op && op->fail_at && alone) {
		before = &views[0];
		after = &views[1];
		view_take(m, c->a.proc, before);
	}
	if (op)
		exec_arm(op);
	m->b->call(m->as, c);
	fired = op ? exec_disarm() : false;
	if (expect)
		as_expect_end(expect, m->b, m->as, c, begun, fired);
	if (before && before->n >= 0 && started == seq && in_flight == 1) {
		view_take(m, c->a.proc, after);
		check_injected(m->b, c, m->kver, fired, before, after);
	}
	m->b->put(m->as, c);
	in_flight--;
	return true;
}

void mm_exec_call(struct mm_exec *m, struct mm_call *c, bool resolve)
{
	if (!c->value)
		c->value = MMF_VALUE(c->a.proc % MMF_MAX_PROCS, MMF_STEP_PROLOGUE);
	run_call(m, c, NULL, resolve);
}

void mm_exec_op(struct mm_exec *m, const struct prog_op *op)
{
	/* what a read reaches (on the fiber's stack: fibers read side by side) */
	uint64_t seen[MMF_TOUCH_PAGES];
	struct mm_call c;

	memset(&c, 0, sizeof(c));
	c.code = op->code;
	prog_decode_args(m->desc, op, &c.a);
	c.value = MMF_VALUE(c.a.proc % MMF_MAX_PROCS, m->ops ? (unsigned)(op - m->ops) : 0);
	if (c.code == MMF_OP_TOUCH && c.a.access != 1) {
		for (unsigned k = 0; k < MMF_TOUCH_PAGES; k++)
			seen[k] = MMF_NOT_SEEN;
		c.seen = seen;
	}
	if (c.code == MMF_OP_DELAY) {
		/* a thread busy elsewhere: the schedule passes it by at each point */
		for (unsigned i = 0; i < (c.a.n ? c.a.n : 1u); i++)
			sched_point("delay");
		return;
	}
	if (c.code == MMF_OP_AWAIT) {
		/* a thread waiting for the others to reach a place: the n-th
		 * release of the class after this point */
		static const struct lock_class *const classes[MMF_NLC] = {
		    [MMF_LC_MMAP] = &lock_class_mmap,
		    [MMF_LC_VMA] = &lock_class_vma,
		    [MMF_LC_I_MMAP] = &lock_class_i_mmap,
		    [MMF_LC_ANON_VMA] = &lock_class_anon_vma,
		    [MMF_LC_UFFD] = &lock_class_uffd};
		unsigned cls = c.a.lock_class % MMF_NLC, of = c.a.of % (MMF_MAX_PROCS + 1);
		const void *key = classes[cls];

		/* one lock of the class: counts that do not grow with what the
		 * other threads do to the rest */
		if (of && (cls == MMF_LC_MMAP || cls == MMF_LC_I_MMAP) && m->b->lock_of) {
			key = m->b->lock_of(m->as, cls, of - 1);
			if (!key)
				return;
		}
		sched_await(key, c.a.n, "await");
		return;
	}
	if (run_call(m, &c, op, true) && prog_trace)
		trace_result(m->desc, op, c.result);
}

/* ---- whole programs ------------------------------------------------------ */

static void check_cb(void *arg)
{
	struct mm_exec *m = arg;

	m->b->check(m->as);
	if (m->expect)
		as_expect_check(m->expect, m->b, m->as);
}

static void dump_cb(FILE *out, void *arg)
{
	struct mm_exec *m = arg;

	m->b->dump(out, m->as);
}

static void op_cb(void *arg, const struct prog_op *op)
{
	mm_exec_op(arg, op);
}

/*
 * The reverted anon_vma policy (rmap-reuse-mergeable-anon-vma-on-fork) breaks
 * ANON_ONE_MM by design, so an engine would stop at it at once and learn
 * nothing else: engine builds refuse programs that ask for it (libFuzzer
 * keeps no input the target returns -1 for), unless built with
 * -DVMAFUZZ_BUG_reuse_mergeable (make bug-libfuzzer BUG=reuse_mergeable),
 * which shows the harness catching it. Replays always run it.
 */
static bool refused(const struct mm_target *t, const struct prog *p)
{
#ifdef VMAFUZZ_BUG_reuse_mergeable
	(void)t;
	(void)p;
	return false;
#else
	if (!exec_under_engine)
		return false;
	for (unsigned i = 0; i < p->nops; i++) {
		struct mm_args a;

		if (p->ops[i].code != MMF_OP_FORK && p->ops[i].code != t->fork_code)
			continue;
		prog_decode_args(t->desc, &p->ops[i], &a);
		if (a.policy)
			return true;
	}
	return false;
#endif
}

int mm_run_program(const struct mm_target *t, const uint8_t *data, size_t size)
{
	struct mm_exec m = {.desc = t->desc, .b = t->backend};
	struct as_expect expect;
	struct exec x;

	m.as = m.b->open(NULL, 0);
	if (!m.as)
		return 0;
	in_flight = 0;
	started = 0;
	exec_begin(&x, t->desc, data, size, dump_cb, &m);
	if (refused(t, &x.prog)) {
		m.b->close(m.as);
		exec_end(&x);
		return -1;
	}
	m.kver = mm_config_kver(x.prog.config);
	if (t->configure)
		t->configure(&m, x.prog.config);
	as_expect_init(&expect);
	expect.kver = m.kver;
	m.expect = &expect;
	m.ops = x.prog.ops;
	if (t->prologue)
		t->prologue(&m);
	x.check_at_rest = true;
	exec_run(&x, t->op_fn ? t->op_fn : op_cb, check_cb);
	m.b->close(m.as);
	as_expect_free(&expect);
	exec_end(&x);
	return 0;
}

int mm_run_text(const struct as_backend *b, const char *text)
{
	struct mm_target t = {&mm_desc, b, MMF_OP_FORK, NULL, NULL, NULL};
	uint8_t *bytes;
	size_t n;
	int r;

	if (!prog_text_bytes(&mm_desc, text, &bytes, &n))
		return -2;
	r = mm_run_program(&t, bytes, n);
	free(bytes);
	return r;
}
