/* SPDX-License-Identifier: GPL-2.0 */
/* One program in the model and in real processes, compared (conform_run.h). */
#include "conform_run.h"
#include "conform_model.h"
#include "conform_ops.h"
#include "fuzz/as/as_diff.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "mm/kver.h"
#include "live_backend.h"
#include "runtime/alloc.h"
#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define MAX_VMAS 4096

/* One program's run. */
struct run {
	const struct prog_desc *d;
	const struct prog *p;
	const struct conform_opts *o;
	const char *name;
	void *model, *live;
	struct conform_tally *t;
	unsigned step;
	bool child_acted, forked;
};

static struct as_vma mview[MAX_VMAS], kview[MAX_VMAS];

/* For an invariant failure inside the model: the program and the state. */
static void check_context(FILE *out, void *arg)
{
	struct run *r = arg;

	fprintf(out, "--- program (fuzz_mm, under vmafuzz conform), step %u of %u ---\n", r->step,
		r->p->nops);
	prog_print(out, r->d, r->p, (int)r->step);
	fprintf(out, "--- state ---\n");
	as_model.dump(out, r->model);
	as_live.dump(out, r->live);
}

/* The model's view of @proc, wrong on purpose where a --selftest asks. */
static void flip(const struct conform_opts *o, unsigned proc, struct as_vma *v, int n)
{
	for (int j = 0; j < n; j++) {
		if ((o->flip_wf && proc == 0) || (o->flip_child && proc != 0))
			v[j].flags ^= AS_VM_WIPEONFORK;
		if (o->flip_pgoff && proc != 0)
			v[j].pgoff += 1;
	}
}

/* Both sides' VMAs of @proc into mview/kview: CONFORM_AGREE, DIFFER (not
 * printed) or FAILED (said on stderr). */
static enum conform_outcome read_views(struct run *r, unsigned proc, unsigned *nm, unsigned *nk)
{
	char err[256];
	int m, k;

	m = conform_model_vmas(r->model, proc, mview, MAX_VMAS, err, sizeof(err));
	k = m < 0 ? -1
		  : as_live.vmas(r->live, proc, CONFORM_LO, CONFORM_HI, true, kview, MAX_VMAS, err,
				 sizeof(err));
	if (m < 0 || k < 0) {
		fprintf(stderr, "vmafuzz conform: %s: operation %u: %s\n", r->name, r->step, err);
		return CONFORM_FAILED;
	}
	flip(r->o, proc, mview, m);
	*nm = (unsigned)m;
	*nk = (unsigned)k;
	return as_vmas_same(mview, *nm, kview, *nk, AS_SMAPS_FLAGS, true) ? CONFORM_AGREE
									  : CONFORM_DIFFER;
}

enum show { SHOW_NONE, SHOW_DIFFERENT, SHOW_ALL };

static void print_rollup(const char *who, const struct krest *x)
{
	printf("    %-6s Rss %" PRIu64 "k Pss %" PRIu64 "k Pss_Dirty %" PRIu64 "k Shared %" PRIu64
	       "k/%" PRIu64 "k Private %" PRIu64 "k/%" PRIu64 "k Anonymous %" PRIu64 "k\n",
	       who, x->rss, x->pss, x->pss_dirty, x->shared_clean, x->shared_dirty,
	       x->private_clean, x->private_dirty, x->anon);
}

/* The window's part of @proc's smaps_rollup on both sides. Pss and
 * Pss_Dirty may be off by one kB per VMA outside the window, each of which
 * smaps rounded down on its own. */
static bool same_rollup(const struct krest *m, const struct krest *k)
{
	return m->rss == k->rss && m->shared_clean == k->shared_clean &&
	       m->shared_dirty == k->shared_dirty && m->private_clean == k->private_clean &&
	       m->private_dirty == k->private_dirty && m->anon == k->anon && m->pss <= k->pss &&
	       k->pss <= m->pss + k->nvmas && m->pss_dirty <= k->pss_dirty &&
	       k->pss_dirty <= m->pss_dirty + k->nvmas;
}

/* Reads of the window's part of a rollup that differ from the model's are
 * read again, this many times: the part is the whole rollup less the VMAs
 * outside the window, and the machine's other processes change those (the
 * pages of libc, and of the tool, that they map too) between the reads it
 * is made of. A difference of the model's own stays on every read. */
#define ROLLUP_REREADS 4

static enum conform_outcome compare_rollup(struct run *r, unsigned proc, enum show show)
{
	struct krest m, k;
	char err[256];
	int got;
	bool same = false;

	if (r->o->no_rollup || (r->o->rollup_last && r->step + 1 < r->p->nops))
		return CONFORM_AGREE;
	for (unsigned read = 0; read <= ROLLUP_REREADS; read++) {
		if (read)
			sched_yield();
		got = as_live_rollup(r->live, proc, &k, err, sizeof(err));
		if (got < 0) {
			fprintf(stderr, "vmafuzz conform: %s: operation %u: %s\n", r->name, r->step,
				err);
			return CONFORM_FAILED;
		}
		if (got != 1 || !conform_model_rollup(r->model, proc, &m))
			break;
		same = same_rollup(&m, &k);
		if (same || show != SHOW_NONE)
			break;
	}
	if (r->t && got == 0 && show == SHOW_NONE)
		r->t->rollups_filled++;
	if (r->t && got == 2 && show == SHOW_NONE)
		r->t->rollups_unsteady++;
	if (got == 2 && show == SHOW_ALL)
		printf("  p%u: smaps_rollup not compared: %s\n", proc, err);
	if (got != 1 || !conform_model_rollup(r->model, proc, &m))
		return CONFORM_AGREE;
	if (r->t && show == SHOW_NONE)
		r->t->rollups++;
	if ((!same && show) || show == SHOW_ALL) {
		printf("  p%u: smaps_rollup, the window's part%s (Pss within %" PRIu64 "k):\n",
		       proc, same ? "" : "   <== differs", k.nvmas);
		print_rollup("model", &m);
		print_rollup("kernel", &k);
	}
	return same ? CONFORM_AGREE : CONFORM_DIFFER;
}

#define MAX_PAGES 65536

struct pages_list {
	uint64_t addr[MAX_PAGES], val[MAX_PAGES];
	unsigned n;
};

static void add_page(void *arg, uint64_t addr, uint64_t value)
{
	struct pages_list *l = arg;

	if (l->n < MAX_PAGES) {
		l->addr[l->n] = addr;
		l->val[l->n++] = value;
	}
}

/* What @proc's present pages hold, the model's pages against the kernel's
 * same pages (the VMAs' Rss agreed already): DIFFER printed with up to eight
 * pages that differ. */
static enum conform_outcome compare_pages(struct run *r, unsigned proc, enum show show)
{
	static struct pages_list m;
	static uint64_t kval[MAX_PAGES];
	static bool kpresent[MAX_PAGES];
	char err[256];
	unsigned bad = 0;

	m.n = 0;
	if (as_model.pages(r->model, proc, CONFORM_LO, CONFORM_HI, add_page, &m, err,
			   sizeof(err)) ||
	    as_live_page_values(r->live, proc, m.addr, m.n, kval, kpresent, err, sizeof(err))) {
		fprintf(stderr, "vmafuzz conform: %s: operation %u: %s\n", r->name, r->step, err);
		return CONFORM_FAILED;
	}
	if (r->t && show == SHOW_NONE)
		r->t->pages_compared += m.n;
	for (unsigned i = 0; i < m.n; i++) {
		uint64_t want = m.val[i] ^ (r->o->flip_data && proc != 0);

		if (kpresent[i] && kval[i] == want)
			continue;
		if (show && bad < 8) {
			printf("  p%u: page @0x%" PRIx64 " holds 0x%" PRIx64 " in the model, ",
			       proc, conform_pg(m.addr[i]), want);
			if (kpresent[i])
				printf("0x%" PRIx64 " in the kernel   <== differs\n", kval[i]);
			else
				printf("is not present in the kernel   <== differs\n");
		}
		bad++;
	}
	if (show && bad > 8)
		printf("  p%u: and %u more pages differ\n", proc, bad - 8);
	return bad ? CONFORM_DIFFER : CONFORM_AGREE;
}

/* Every process alive on either side, compared; the views of those that
 * differ printed with SHOW_DIFFERENT, all of them with SHOW_ALL. */
static enum conform_outcome compare_procs(struct run *r, enum show show)
{
	unsigned mp = conform_model_procs(r->model), kp = as_live_procs(r->live);
	enum conform_outcome res = CONFORM_AGREE;

	if (mp != kp) {
		if (show == SHOW_NONE)
			return CONFORM_DIFFER;
		printf("  processes: the model has");
		for (unsigned q = 0; q < MMF_MAX_PROCS; q++)
			if (mp & (1u << q))
				printf(" p%u", q);
		printf(", the kernel");
		for (unsigned q = 0; q < MMF_MAX_PROCS; q++)
			if (kp & (1u << q))
				printf(" p%u", q);
		printf("   <== differs\n");
		return CONFORM_DIFFER;
	}
	for (unsigned q = 0; q < MMF_MAX_PROCS; q++) {
		enum conform_outcome v;
		unsigned nm, nk;

		if (!(mp & (1u << q)))
			continue;
		v = read_views(r, q, &nm, &nk);
		if (v == CONFORM_FAILED)
			return v;
		if ((v == CONFORM_DIFFER && show) || show == SHOW_ALL) {
			printf("  p%u: VMAs from %#" PRIx64 " (@0x0; @ counts pages)%s:\n", q,
			       (uint64_t)MMF_WINDOW_LO, v == CONFORM_DIFFER ? "   <== differ" : "");
			as_print_views(stdout, "model", mview, nm, "kernel", kview, nk,
				       AS_SMAPS_FLAGS, MMF_WINDOW_LO, show == SHOW_ALL ? 2 : 1);
		}
		if (v == CONFORM_AGREE)
			v = compare_rollup(r, q, show);
		if (v == CONFORM_AGREE)
			v = compare_pages(r, q, show);
		if (v == CONFORM_FAILED)
			return v;
		if (v == CONFORM_DIFFER)
			res = v;
	}
	return res;
}

/* One more operation refused for @why (a sentence of the refusing code's;
 * the last slot takes the reasons past the others). */
static void count_refusal(struct conform_tally *t, const char *why)
{
	unsigned i;

	if (!t)
		return;
	for (i = 0; i < t->nrefused && strcmp(t->refused[i].why, why); i++)
		;
	if (i == t->nrefused) {
		if (i == CONFORM_REASONS)
			i--;
		else
			t->refused[t->nrefused++].why = why;
	}
	t->refused[i].n++;
}

/* The operation's call, resolved on the model, and why it cannot run for
 * real (NULL: it can); a random program gets another operation instead. */
static const char *resolve_op(struct run *r, struct prog_op *op, const struct conform_regen *regen,
			      struct mm_call *c)
{
	for (unsigned tries = 0;; tries++) {
		const char *skip = conform_op_refuses(r->d, op, false);

		if (!skip) {
			conform_model_resolve(r->model, r->d, op, c);
			skip = conform_model_skip(r->model, c);
		}
		if (skip)
			count_refusal(r->t, skip);
		if (!skip || !regen || tries == 64)
			return skip;
		regen->fn(regen->arg, op);
	}
}

static void count(struct run *r, const struct mm_call *c)
{
	struct conform_tally *t = r->t;
	unsigned alive = (unsigned)__builtin_popcount(conform_model_procs(r->model));

	if (!t)
		return;
	t->ops++;
	if (c->a.proc % MMF_MAX_PROCS && c->result != -ESRCH && !mmf_is_thread_op(c->code)) {
		t->child_ops++;
		r->child_acted = true;
	}
	t->errors += c->result < 0;
	t->forks += c->code == MMF_OP_FORK && !c->result;
	r->forked |= c->code == MMF_OP_FORK && !c->result;
	t->exits += c->code == MMF_OP_EXIT && !c->result;
	t->file_maps += c->code == MMF_OP_MMAP && c->a.kind >= MMF_PRIVATE_FILE;
	t->shared_anon_maps += c->code == MMF_OP_MMAP && c->a.kind == MMF_SHARED_ANON;
	t->uffd_ops += c->code >= MMF_OP_UFFD_CREATE && c->code <= MMF_OP_UFFD_RELEASE;
	t->map_limits += c->code == MMF_OP_MAP_LIMIT;
	t->touches += c->code == MMF_OP_TOUCH;
	t->remaps += c->code == MMF_OP_MREMAP && c->result >= 0;
	t->remap_moves +=
	    c->code == MMF_OP_MREMAP && c->result >= 0 && c->result != (int64_t)c->start;
	t->locks += c->code >= MMF_OP_MLOCK && c->code <= MMF_OP_MUNLOCKALL && !c->result;
	t->populating_maps += c->code == MMF_OP_MMAP && mmf_populates(&c->a);
	t->stack_maps +=
	    c->code == MMF_OP_MMAP && (c->a.prot & MMF_MAP_GROWSDOWN) && c->result >= 0;
	if (alive > t->max_procs)
		t->max_procs = alive;
}

/* Tell the real side what only the model knows: which process a fork made,
 * and the limit a map_limit set. */
static void before_real(struct run *r, const struct mm_call *c, unsigned procs_before)
{
	if (c->code == MMF_OP_FORK) {
		unsigned made = conform_model_procs(r->model) & ~procs_before;

		as_live_fork_into(r->live, made && !c->result ? (unsigned)__builtin_ctz(made)
							      : MMF_MAX_PROCS);
	} else if (c->code == MMF_OP_MAP_LIMIT) {
		as_live_map_limit(r->live,
				  (int64_t)conform_model_map_count(r->model, c->a.proc) + c->a.n);
	}
}

static void print_op(struct run *r, const struct prog_op *op, const struct mm_call *c, int64_t kres,
		     bool differs)
{
	if (differs) {
		printf("conform: %s: operation %u differs: ", r->name, r->step);
		prog_print_op(stdout, r->d, op);
		printf("\n");
	} else {
		printf("  %u: ", r->step);
		prog_print_op(stdout, r->d, op);
		printf("\n");
	}
	printf("  call: ");
	conform_print_call(stdout, c);
	printf("\n  result: model ");
	conform_print_result(stdout, c->result);
	printf(", kernel ");
	conform_print_result(stdout, kres);
	printf("%s\n", c->result == kres ? "" : "   <== differs");
}

/* A read touch's pages: what each held on both sides, the same (up to eight
 * that differ printed with SHOW_DIFFERENT). */
static bool same_reads(struct run *r, unsigned proc, const uint64_t *m, const uint64_t *k,
		       enum show show)
{
	unsigned bad = 0, n = 0;

	for (unsigned i = 0; i < MMF_TOUCH_PAGES; i++) {
		/* --selftest-flip-child-data: the model's view wrong on purpose */
		uint64_t want = m[i] ^ (m[i] != MMF_NOT_SEEN && r->o->flip_data && proc != 0);

		n += m[i] != MMF_NOT_SEEN;
		if (want == k[i])
			continue;
		if (show && bad < 8)
			printf("  the read's page %u held 0x%" PRIx64 " in the model, 0x%" PRIx64
			       " in the kernel   <== differs\n",
			       i, want, k[i]);
		bad++;
	}
	if (r->t && show == SHOW_NONE)
		r->t->reads_compared += n;
	return !bad;
}

/* After a fork: the forking process holds as many userfaultfds on both
 * sides (its monitor's new contexts, one per context with the fork event
 * that registered a VMA the child got: none when the fork failed). */
static enum conform_outcome compare_fds(struct run *r, unsigned proc, enum show show)
{
	int m = as_model_open_fds(r->model, proc), k = as_live_open_fds(r->live, proc);

	if (k < 0) {
		fprintf(stderr, "vmafuzz conform: %s: operation %u: cannot count p%u's fds\n",
			r->name, r->step, proc % MMF_MAX_PROCS);
		return CONFORM_FAILED;
	}
	if (show == SHOW_ALL || (show == SHOW_DIFFERENT && m != k))
		printf("  p%u: open userfaultfds: model %d, kernel %d%s\n", proc % MMF_MAX_PROCS, m,
		       k, m == k ? "" : "   <== differs");
	return m == k ? CONFORM_AGREE : CONFORM_DIFFER;
}

static void real_call(struct run *r, struct mm_call *k)
{
	if (as_live.get(r->live, k))
		as_live.call(r->live, k);
	else
		k->result = -ESRCH;
}

/*
 * A fork where the kernel keeps a commit limit (vm.overcommit_memory = 2):
 * dup_mmap may fail at a VM_ACCOUNT VMA, and the model has no commit
 * accounting. The kernel forks first, into the slot the model's fork takes
 * (the lowest free one); when the limit failed it (-ENOMEM), the model's
 * fork fails too, at its first allocation. What a failed fork leaves (the
 * parent's VMAs, its userfaultfds: a monitor gets no fork event from a
 * fork that failed) is then compared as after any call.
 */
static bool kernel_fork_first(struct run *r, struct mm_call *c, struct mm_call *k, unsigned before,
			      char *why, size_t whylen)
{
	unsigned free_slots = ~before & ((1u << MMF_MAX_PROCS) - 1);
	bool over;

	as_live_fork_into(r->live,
			  free_slots ? (unsigned)__builtin_ctz(free_slots) : MMF_MAX_PROCS);
	real_call(r, k);
	over = k->result == -ENOMEM;
	if (over)
		alloc_fail_arm(1);
	if (!conform_model_call(r->model, c, r->step, why, whylen)) {
		alloc_fail_disarm();
		return false;
	}
	alloc_fail_disarm();
	if (over && r->t)
		r->t->forks_over_limit++;
	return true;
}

/* One operation on both sides, compared: AGREE, DIFFER (printed), SKIPPED
 * (@why says why) or FAILED. */
static enum conform_outcome run_step(struct run *r, struct prog_op *op,
				     const struct conform_regen *regen, char *why, size_t whylen)
{
	static uint64_t mseen[MMF_TOUCH_PAGES], kseen[MMF_TOUCH_PAGES];
	struct mm_call c, k;
	const char *skip = resolve_op(r, op, regen, &c);
	enum conform_outcome res;
	unsigned before = conform_model_procs(r->model);

	if (skip) {
		char text[160];

		snprintf(why, whylen, "operation %u (%s): %s", r->step,
			 conform_op_text(r->d, op, text, sizeof(text)), skip);
		return CONFORM_SKIPPED;
	}
	if (r->o->mark) {
		/* the operation as it runs (after any regeneration): what a
		 * guest's console reader makes the crashing program of */
		char text[160];

		fprintf(stderr, "vmafuzz: op %s\n", conform_op_text(r->d, op, text, sizeof(text)));
		fflush(stderr);
	}
	/* a write stores what names the process and the step; a read says
	 * what it found */
	c.value = MMF_VALUE(c.a.proc % MMF_MAX_PROCS, r->step);
	for (unsigned i = 0; i < MMF_TOUCH_PAGES; i++)
		mseen[i] = kseen[i] = MMF_NOT_SEEN;
	c.seen = c.code == MMF_OP_TOUCH && c.a.access != 1 ? mseen : NULL;
	k = c;
	k.seen = c.seen ? kseen : NULL;
	if (c.code == MMF_OP_FORK && r->o->commit_limited) {
		/* the kernel's fork first: whether the commit limit fails it is
		 * the kernel's to say */
		if (!kernel_fork_first(r, &c, &k, before, why, whylen))
			return CONFORM_SKIPPED;
	} else {
		if (!conform_model_call(r->model, &c, r->step, why, whylen))
			return CONFORM_SKIPPED;
		before_real(r, &c, before);
		real_call(r, &k);
	}
	if (k.result == INT64_MIN)
		return CONFORM_FAILED; /* a real process is gone (said on stderr) */
	count(r, &c);
	res = c.result == k.result && same_reads(r, c.a.proc, mseen, kseen, SHOW_NONE)
		  ? CONFORM_AGREE
		  : CONFORM_DIFFER;
	if (res == CONFORM_AGREE)
		res = compare_procs(r, SHOW_NONE);
	if (res == CONFORM_AGREE && c.code == MMF_OP_FORK)
		res = compare_fds(r, c.a.proc, SHOW_NONE);
	if (res == CONFORM_FAILED)
		return res;
	if (r->o->verbose || res == CONFORM_DIFFER) {
		print_op(r, op, &c, k.result, res == CONFORM_DIFFER);
		if (c.code == MMF_OP_FORK)
			compare_fds(r, c.a.proc, SHOW_DIFFERENT);
		same_reads(r, c.a.proc, mseen, kseen, SHOW_DIFFERENT);
		if (compare_procs(r, r->o->verbose ? SHOW_ALL : SHOW_DIFFERENT) == CONFORM_FAILED)
			return CONFORM_FAILED;
	}
	if (res == CONFORM_DIFFER && r->t)
		r->t->differ_ops++;
	return res;
}

enum conform_outcome conform_run(const struct prog_desc *d, struct prog *p, const char *name,
				 const struct conform_opts *o, const struct conform_regen *regen,
				 struct conform_tally *t, unsigned *nops, char *why, size_t whylen)
{
	struct run r = {d, p, o, name, NULL, NULL, t, 0, false, false};
	enum conform_outcome res = CONFORM_AGREE, v;
	bool differed = false;
	char err[256];

	*nops = 0;
	if (conform_prog_refuses(d, p, false, why, whylen) && !regen)
		return CONFORM_SKIPPED;
	r.model = as_model.open(err, sizeof(err));
	if (r.model) {
		as_model_forbid_zeropage(r.model, o->no_zero_page);
		as_model_set_kver(r.model, o->kver ? o->kver : KVER_NEWEST);
		r.live = as_live.open(err, sizeof(err));
		if (!r.live)
			as_model.close(r.model);
	}
	if (r.model)
		as_model_files_hold_zeros(r.model); /* as the memfds */
	if (!r.model || !r.live) {
		fprintf(stderr, "vmafuzz conform: %s: %s\n", name, err);
		return CONFORM_FAILED;
	}
	check_set_context(check_context, &r);
	for (unsigned i = 0; i < p->nops && res == CONFORM_AGREE; i++) {
		r.step = i;
		v = run_step(&r, &p->ops[i], regen, why, whylen);
		if (v == CONFORM_DIFFER && o->keep_going &&
		    conform_model_procs(r.model) == as_live_procs(r.live)) {
			if (!differed)
				*nops = i;
			differed = true;
			continue; /* report every differing operation */
		}
		res = v;
		if (!differed)
			*nops = res == CONFORM_AGREE ? i + 1 : i;
	}
	check_set_context(NULL, NULL);
	as_live.close(r.live);
	as_model.close(r.model);
	if (t && res != CONFORM_SKIPPED && res != CONFORM_FAILED) {
		t->programs++;
		t->progs_fork += r.forked;
		t->progs_child_ops += r.child_acted;
	}
	return differed && res == CONFORM_AGREE ? CONFORM_DIFFER : res;
}
