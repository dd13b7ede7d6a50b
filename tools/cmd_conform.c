/*
 * vmafuzz conform: the model against this machine's real kernel.
 *
 * A fuzz_mm program that the kernel can run as it is — anonymous memory
 * only: mmap (private or shared anonymous; fixed, noreplace, or a hint the
 * model honoured), munmap, mprotect, madvise, touch and fork (the current
 * anon_vma policy), all on p0 and t0, without fail_at — runs twice: in the model, resolving each
 * operation's range exactly as fuzz_mm does (mmf_resolve before the call, mmf_call), and for real
 * in a child process (conform_kernel.c) with the same arguments. After every operation the results
 * must be equal, and so must the VMAs in the window: start, end, rwx and p/s, VmFlags dc, wf and
 * ac, Rss and Anonymous (the model's vma_usage against the child's /proc/PID/smaps). The first
 * difference is printed with both views side by side. After a fork the model's child is compared
 * too, with a grandchild the real child forks and keeps waiting until its smaps is read
 * (VM_DONTCOPY VMAs gone, wipe-on-fork ones empty, pages shared copy-on-write counted); then both
 * children exit, so every fork is compared on its own.
 *
 * --random N generates programs of that kind with the seeded generator of
 * fuzz/prng.h and runs each the same way.
 */
#include "cmd.h"
#include "conform.h"
#include "mm/fault.h"
#include "mm/page.h"
#include "mm/types.h"
#include "mm/usage.h"
#include "mm/vma.h"
#include "mm_fuzz.h"
#include "prng.h"
#include "replay.h"
#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What is compared: VMAs intersecting the window, and those a mapping that
 * starts in the window can reach past its top (255 pages at most). */
#define CMP_LO MMF_WINDOW_LO
#define CMP_HI (MMF_WINDOW_HI + (256ull << PAGE_SHIFT))
#define MAX_VMAS 4096

struct opts {
	bool verbose, keep_going;
	bool flip_wf;	   /* --selftest-flip-wf: a deliberately wrong model view */
	bool flip_child;   /* --selftest-flip-child-wf: the same, of a forked child only */
	bool read_faults;  /* --compare-read-faults: run them even without a zero page */
	bool no_zero_page; /* the probe: this kernel allocates on anonymous read faults */
};

enum outcome { AGREE, DIFFER, SKIPPED, FAILED };

/* The fuzz_mm operation an operation code stands for, by its name (-1: none
 * the kernel side can run). */
static int op_kind(const struct prog_desc *d, uint8_t code)
{
	static const char *const names[] = {
	    [MMF_MMAP] = "mmap",       [MMF_MUNMAP] = "munmap", [MMF_MPROTECT] = "mprotect",
	    [MMF_MADVISE] = "madvise", [MMF_TOUCH] = "touch",	[MMF_FORK] = "fork"};

	if (code >= d->nops)
		return -1;
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (names[i] && !strcmp(d->ops[code].name, names[i]))
			return i;
	return -1;
}

static int op_code(const struct prog_desc *d, enum mmf_op kind)
{
	for (unsigned c = 0; c < d->nops; c++)
		if (op_kind(d, (uint8_t)c) == (int)kind)
			return (int)c;
	return -1;
}

/*
 * The argument bytes op_call reads, as fuzz_mm's run_op does: arg[0] the
 * process, arg[1..4] the range, then mmap's prot, kind, file and place,
 * mprotect's prot, madvise's advice, touch's access. False (with a message)
 * when fuzz_mm's operation table no longer has that layout.
 */
static bool layout_ok(const struct prog_desc *d)
{
	static const struct {
		enum mmf_op kind;
		unsigned nfields;
		const char *const *names[4]; /* of the fields after the range */
	} want[] = {
	    {MMF_MMAP, 6, {mmf_prot_names, mmf_kind_names, NULL, mmf_place_names}},
	    {MMF_MUNMAP, 2, {NULL}},
	    {MMF_MPROTECT, 3, {mmf_prot_names}},
	    {MMF_MADVISE, 3, {mmf_advice_names}},
	    {MMF_TOUCH, 3, {mmf_access_names}},
	};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int code = op_code(d, want[i].kind);
		const struct prog_opdesc *od = code < 0 ? NULL : &d->ops[code];
		bool ok = od && od->nfields == want[i].nfields && od->fields[0].kind == FK_SEL &&
			  od->fields[1].kind == FK_RANGE;

		for (unsigned f = 2; ok && f < od->nfields; f++)
			ok = field_width(&od->fields[f]) == 1 &&
			     (!want[i].names[f - 2] || od->fields[f].names == want[i].names[f - 2]);
		if (!ok) {
			fprintf(stderr,
				"vmafuzz conform: fuzz_mm's operation %s is not laid out as "
				"tools/cmd_conform.c reads it\n",
				od ? od->name : "(missing)");
			return false;
		}
	}
	/* fork: the process, then algorithm, policy and diff */
	{
		int code = op_code(d, MMF_FORK);
		const struct prog_opdesc *od = code < 0 ? NULL : &d->ops[code];

		if (!od || od->nfields != 4 || od->fields[0].kind != FK_SEL ||
		    od->fields[1].names != mmf_algo_names ||
		    od->fields[2].names != mmf_policy_names ||
		    od->fields[3].names != mmf_diff_names) {
			fprintf(stderr, "vmafuzz conform: fuzz_mm's operation fork is not laid out "
					"as tools/cmd_conform.c reads it\n");
			return false;
		}
	}
	return true;
}

/* An operation as the program text shows it. */
static const char *op_text(const struct prog_desc *d, const struct prog_op *op, char *buf,
			   size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	buf[0] = 0;
	if (f) {
		prog_print_op(f, d, op);
		fclose(f);
	}
	buf[len - 1] = 0;
	return buf;
}

/* Why @p cannot run for real, or NULL. */
static const char *not_expressible(const struct prog_desc *d, const struct prog *p, char *buf,
				   size_t len)
{
	if (p->config) {
		snprintf(buf, len, "config bits %#x have no real counterpart", p->config);
		return buf;
	}
	for (unsigned i = 0; i < p->nops; i++) {
		const struct prog_op *op = &p->ops[i];
		int kind = op_kind(d, op->code);
		const char *why = NULL;

		if (kind < 0)
			why = "only mmap, munmap, mprotect, madvise, touch and fork run for real";
		else if (op->fiber)
			why = "only thread t0 runs for real";
		else if (op->arg[0] % MMF_MAX_PROCS)
			why = "only process p0 runs for real";
		else if (op->fail_at)
			why = "fail_at (allocation failure) has no real counterpart";
		else if (kind == MMF_MMAP && op->arg[6] != MMF_PRIVATE_ANON &&
			 op->arg[6] != MMF_SHARED_ANON)
			why = "file mappings do not run for real (anonymous memory only)";
		else if (kind == MMF_FORK && op->arg[MMF_FORK_POLICY_ARG])
			why = "the reverted anon_vma policy is no kernel's";
		if (why) {
			char text[160];

			snprintf(buf, len, "operation %u (%s): %s", i,
				 op_text(d, op, text, sizeof(text)), why);
			return buf;
		}
	}
	return NULL;
}

/* The call fuzz_mm's run_op makes of @op, its range already resolved. */
static void op_call(const struct prog_desc *d, const struct prog_op *op, struct mmf_call *c)
{
	memset(c, 0, sizeof(*c));
	c->op = (enum mmf_op)op_kind(d, op->code);
	switch (c->op) {
	case MMF_MMAP:
		c->prot = op->arg[5];
		c->kind = op->arg[6];
		c->file = op->arg[7];
		c->place = op->arg[8];
		break;
	case MMF_MUNMAP:
		break;
	case MMF_MPROTECT:
		c->prot = op->arg[5];
		break;
	case MMF_MADVISE:
		c->advice = op->arg[5];
		break;
	case MMF_TOUCH:
		c->write = op->arg[5] == 1;
		break;
	case MMF_FORK:
		c->algo = op->arg[1];
		c->policy = op->arg[MMF_FORK_POLICY_ARG];
		c->diff = op->arg[3];
		break;
	default: /* not expressible: never run */
		break;
	}
}

static void kernel_call(const struct mmf_call *c, struct kcall *k)
{
	static const int op[] = {
	    [MMF_MMAP] = KC_MMAP,	[MMF_MUNMAP] = KC_MUNMAP, [MMF_MPROTECT] = KC_MPROTECT,
	    [MMF_MADVISE] = KC_MADVISE, [MMF_TOUCH] = KC_TOUCH,	  [MMF_FORK] = KC_FORK};

	memset(k, 0, sizeof(*k));
	k->op = op[c->op];
	k->start = c->start;
	k->len = c->len;
	k->prot = mmf_prot(c->prot);
	k->flags = c->op == MMF_MMAP ? mmf_mmap_flags(c) : 0;
	k->advice = c->op == MMF_MADVISE ? mmf_advice(c->advice) : 0;
	k->write = c->write;
	k->touch_max_pages = MM_TOUCH_MAX_PAGES;
}

/*
 * A read touch that faults a fresh page of private anonymous memory (before
 * the model runs it). The model maps the zero page there, as the kernel does
 * unless it is told not to: some kernels (the PVM guest kernel, booted with
 * pvm_no_zero_page=1) allocate an anonymous page instead.
 */
static bool reads_fresh_anon(struct mm *mm, const struct mmf_call *c)
{
	uint64_t start = c->start & ~(PAGE_SIZE - 1), len = c->len;

	if (c->op != MMF_TOUCH || c->write)
		return false;
	if (len > (MM_TOUCH_MAX_PAGES << PAGE_SHIFT))
		len = MM_TOUCH_MAX_PAGES << PAGE_SHIFT;
	for (uint64_t a = start; a < c->start + len && a >= start; a += PAGE_SIZE) {
		struct vma *v = mm_vma_at(mm, a);

		if (!v || !(v->flags & VM_ACCESS_FLAGS))
			return false; /* the touch stops here */
		if (!v->file && !(v->flags & VM_SHARED) && !mm_pte(mm, a))
			return true;
	}
	return false;
}

/* A hint mapping the model will not place at its hint (get_unmapped_area
 * takes a free hint inside the window, else searches top-down). */
static bool hint_refused(struct mm *mm, const struct mmf_call *c)
{
	struct vma *v;
	uint64_t len = (c->len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

	if (c->op != MMF_MMAP || c->place != MMF_HINT)
		return false;
	if (!c->start || c->start < mm->mmap_min || c->start + len < c->start ||
	    c->start + len > mm->mmap_max)
		return true;
	v = mm_find_vma(mm, c->start);
	return v && v->start < c->start + len;
}

/* Why the call (resolved, not yet run) cannot run for real, or NULL. */
static const char *skip_reason(struct mm *mm, const struct mmf_call *c, const struct opts *o)
{
	if (o->no_zero_page && !o->read_faults && reads_fresh_anon(mm, c))
		return "a read fault on private anonymous memory: this kernel allocates a page "
		       "there instead of mapping the zero page as the model does";
	if (hint_refused(mm, c))
		return "the model will not place this hint mapping at its hint; the kernel's own "
		       "placement differs";
	return NULL;
}

static unsigned model_vmas(struct mm *mm, struct cvma *out, unsigned max, const struct opts *o)
{
	unsigned n = 0;

	for (struct vma *v = mm_find_vma(mm, CMP_LO); v && v->start < CMP_HI && n < max;
	     v = mm_find_vma(mm, v->end)) {
		struct cvma *x = &out[n++];
		struct vma_usage u;

		vma_usage(mm, v, &u);
		x->start = v->start;
		x->end = v->end;
		x->perm[0] = v->flags & VM_READ ? 'r' : '-';
		x->perm[1] = v->flags & VM_WRITE ? 'w' : '-';
		x->perm[2] = v->flags & VM_EXEC ? 'x' : '-';
		x->perm[3] = v->flags & VM_MAYSHARE ? 's' : 'p';
		x->perm[4] = 0;
		x->dc = v->flags & VM_DONTCOPY;
		x->wf = (v->flags & VM_WIPEONFORK) != 0;
		x->ac = v->flags & VM_ACCOUNT;
		if (o->flip_wf)
			x->wf = !x->wf;
		x->rss_kb = u.rss * (PAGE_SIZE / 1024);
		x->anon_kb = u.anonymous * (PAGE_SIZE / 1024);
	}
	return n;
}

/* An address as a page of the window, as the program's @ ranges count. */
static uint64_t pg(uint64_t addr)
{
	return (addr - MMF_WINDOW_LO) >> PAGE_SHIFT;
}

static bool cvma_equal(const struct cvma *a, const struct cvma *b)
{
	return a->start == b->start && a->end == b->end && !strcmp(a->perm, b->perm) &&
	       a->dc == b->dc && a->wf == b->wf && a->ac == b->ac && a->rss_kb == b->rss_kb &&
	       a->anon_kb == b->anon_kb;
}

/* "@0x10-0x18 rw-p ac dc wf rss 32k anon 32k", addresses in pages from the
 * window's start (as the program's @ ranges count). */
static const char *cvma_str(const struct cvma *v, char *buf, size_t len)
{
	snprintf(buf, len,
		 "@0x%" PRIx64 "-0x%" PRIx64 " %s %s %s %s rss %" PRIu64 "k anon %" PRIu64 "k",
		 pg(v->start), pg(v->end), v->perm, v->ac ? "ac" : "--", v->dc ? "dc" : "--",
		 v->wf ? "wf" : "--", v->rss_kb, v->anon_kb);
	return buf;
}

/* The two lists side by side, rows joined by start address; '!' marks a
 * row that differs. */
static void print_views(FILE *out, const struct cvma *m, unsigned nm, const struct cvma *k,
			unsigned nk)
{
	unsigned i = 0, j = 0;
	char a[128], b[128];

	fprintf(out, "    %-50s %s\n", "model", "kernel");
	while (i < nm || j < nk) {
		const struct cvma *x = i < nm ? &m[i] : NULL, *y = j < nk ? &k[j] : NULL;

		if (x && y && x->start != y->start) {
			if (x->start < y->start)
				y = NULL;
			else
				x = NULL;
		}
		fprintf(out, "  %c %-50s %s\n", x && y && cvma_equal(x, y) ? ' ' : '!',
			x ? cvma_str(x, a, sizeof(a)) : "", y ? cvma_str(y, b, sizeof(b)) : "");
		i += x != NULL;
		j += y != NULL;
	}
	if (!nm && !nk)
		fprintf(out, "    (no VMAs on either side)\n");
}

static void print_result(FILE *out, int64_t r)
{
	if (r < 0)
		fprintf(out, "-%s", strerrorname_np((int)-r) ? strerrorname_np((int)-r) : "?");
	else if (r >= (int64_t)MMF_WINDOW_LO)
		fprintf(out, "0x%" PRIx64 " (@0x%" PRIx64 ")", (uint64_t)r, pg((uint64_t)r));
	else
		fprintf(out, "%" PRId64, r);
}

static void print_flags(FILE *out, int v, const char *const *names, const int *bits, unsigned n)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++)
		if (v & bits[i]) {
			fprintf(out, "%s%s", any ? "|" : "", names[i]);
			any = true;
		}
	if (!any)
		fprintf(out, "%s", names == NULL ? "0" : "PROT_NONE");
}

/* The resolved call in the kernel's terms. */
static void print_call(FILE *out, const struct mmf_call *c)
{
	static const char *const prots[] = {"PROT_READ", "PROT_WRITE", "PROT_EXEC"};
	static const int protb[] = {PROT_READ, PROT_WRITE, PROT_EXEC};
	static const char *const flags[] = {"MAP_SHARED", "MAP_PRIVATE", "MAP_ANONYMOUS",
					    "MAP_FIXED", "MAP_FIXED_NOREPLACE"};
	static const int flagb[] = {MAP_SHARED, MAP_PRIVATE, MAP_ANONYMOUS, MAP_FIXED,
				    MAP_FIXED_NOREPLACE};
	static const char *const advices[] = {"MADV_DONTNEED", "MADV_DONTFORK", "MADV_DOFORK",
					      "MADV_WIPEONFORK", "MADV_KEEPONFORK"};
	static const char *const names[] = {[MMF_MMAP] = "mmap",
					    [MMF_MUNMAP] = "munmap",
					    [MMF_MPROTECT] = "mprotect",
					    [MMF_MADVISE] = "madvise",
					    [MMF_TOUCH] = "touch"};

	if (c->op == MMF_FORK) {
		fprintf(out, "fork()");
		return;
	}
	fprintf(out, "%s(0x%" PRIx64 " @0x%" PRIx64 ", 0x%" PRIx64 " (%" PRIu64 " pages)",
		names[c->op], c->start, pg(c->start), c->len, c->len >> PAGE_SHIFT);
	switch (c->op) {
	case MMF_MMAP:
		fprintf(out, ", ");
		print_flags(out, mmf_prot(c->prot), prots, protb, 3);
		fprintf(out, ", ");
		print_flags(out, mmf_mmap_flags(c), flags, flagb, 5);
		break;
	case MMF_MPROTECT:
		fprintf(out, ", ");
		print_flags(out, mmf_prot(c->prot), prots, protb, 3);
		break;
	case MMF_MADVISE:
		fprintf(out, ", %s", advices[c->advice % 5]);
		break;
	case MMF_TOUCH:
		fprintf(out, ", %s", c->write ? "write" : "read");
		break;
	default:
		break;
	}
	fprintf(out, ")");
}

/* For an invariant failure inside the model: the program and the state. */
struct check_ctx {
	const struct prog_desc *d;
	const struct prog *p;
	unsigned step;
	struct mmf_state *s;
};

static void check_context(FILE *out, void *arg)
{
	struct check_ctx *x = arg;

	fprintf(out, "--- program (fuzz_mm, under vmafuzz conform), step %u of %u ---\n", x->step,
		x->p->nops);
	prog_print(out, x->d, x->p, (int)x->step);
	fprintf(out, "--- state ---\n");
	mmf_dump(out, x->s);
}

static struct cvma mview[MAX_VMAS], kview[MAX_VMAS];

/*
 * After a fork that succeeded on both sides: the model's child (the only
 * process besides p0, as each is ended after its comparison) against the
 * real grandchild, before either runs anything. Then both exit. AGREE,
 * DIFFER (printed) or FAILED.
 */
static enum outcome compare_child(struct mmf_state *s, struct kproc *k, pid_t pid, const char *name,
				  unsigned step, const struct opts *o)
{
	struct kcall end = {.op = KC_FORK_END};
	struct mmf_call exit_call = {.op = MMF_EXIT};
	unsigned q, nm;
	struct mm *child;
	char err[256];
	int64_t r = 0;
	bool same;
	int nk;

	for (q = 1; q < MMF_MAX_PROCS && !s->mm[q]; q++)
		;
	if (q == MMF_MAX_PROCS) {
		fprintf(stderr,
			"vmafuzz conform: %s: operation %u: the model's fork made no process\n",
			name, step);
		return FAILED;
	}
	nm = model_vmas(s->mm[q], mview, MAX_VMAS, o);
	for (unsigned j = 0; o->flip_child && j < nm; j++)
		mview[j].wf = !mview[j].wf;
	nk = kproc_vmas_of(pid, CMP_LO, CMP_HI, kview, MAX_VMAS, err, sizeof(err));
	if (nk < 0) {
		fprintf(stderr, "vmafuzz conform: %s: operation %u: %s\n", name, step, err);
		return FAILED;
	}
	same = nm == (unsigned)nk;
	for (unsigned j = 0; same && j < nm; j++)
		same = cvma_equal(&mview[j], &kview[j]);
	if (o->verbose || !same) {
		if (!same)
			printf("conform: %s: operation %u differs in the child\n", name, step);
		printf("  the child (model p%u, kernel: the grandchild, pid %d):\n", q, (int)pid);
		print_views(stdout, mview, nm, kview, (unsigned)nk);
	}
	if (!kproc_call(k, &end, &r, err, sizeof(err)) || r) {
		fprintf(stderr, "vmafuzz conform: %s: operation %u: ending the grandchild: %s\n",
			name, step, r ? strerror((int)-r) : err);
		return FAILED;
	}
	child = mmf_get(s, q);
	mmf_call(s, q, child, &exit_call);
	mmf_put(s, child);
	mmf_check(s);
	return same ? AGREE : DIFFER;
}

/* The generator of random programs; run_prog asks it for another
 * operation in place of one that cannot run for real. */
struct regen {
	struct prng g;
	const struct prog_desc *d;
	unsigned spread; /* @ ranges start in the first @spread pages */
};

static void regen_op(struct regen *r, struct prog_op *op);

#define REGEN_TRIES 64

/*
 * Run @p in the model and in a child. AGREE (*nops: operations compared),
 * DIFFER (first difference printed to stdout; *nops: the failing step),
 * SKIPPED (@why says why) or FAILED (message on stderr). With @regen (random
 * programs), an operation that cannot run for real is replaced by another.
 */
static enum outcome run_prog(const struct prog_desc *d, struct prog *p, const char *name,
			     const struct opts *o, struct regen *regen, unsigned *nops, char *why,
			     size_t whylen)
{
	static struct mmf_state s;
	struct check_ctx ctx = {d, p, 0, &s};
	enum outcome res = AGREE;
	char err[256];
	struct kproc k;
	pid_t grandchild = -1;

	*nops = 0;
	if (not_expressible(d, p, why, whylen))
		return SKIPPED;
	if (mmf_init(&s)) {
		fprintf(stderr, "vmafuzz conform: %s: the model cannot make its process\n", name);
		return FAILED;
	}
	if (kproc_start(&k, CMP_LO, CMP_HI, err, sizeof(err))) {
		fprintf(stderr, "vmafuzz conform: %s: %s\n", name, err);
		mmf_finish(&s);
		return FAILED;
	}
	check_set_context(check_context, &ctx);
	for (unsigned i = 0; i < p->nops && res == AGREE; i++) {
		struct prog_op *op = &p->ops[i];
		struct mm *mm = s.mm[0];
		struct mmf_call c;
		struct kcall kc;
		int64_t kres;
		unsigned nm;
		int nk;
		const char *skip;
		bool same;

		ctx.step = i;
		/* a random program gets another operation instead of one that cannot run */
		for (unsigned tries = 0;; tries++) {
			op_call(d, op, &c);
			if (c.op != MMF_FORK)
				mmf_resolve(mm, &op->arg[1], &c.start, &c.len);
			skip = skip_reason(mm, &c, o);
			if (!skip || !regen || tries == REGEN_TRIES)
				break;
			regen_op(regen, op);
		}
		if (skip) {
			char text[160];

			snprintf(why, whylen, "operation %u (%s): %s", i,
				 op_text(d, op, text, sizeof(text)), skip);
			res = SKIPPED;
			break;
		}
		mmf_call(&s, 0, s.mm[0], &c);
		if (c.op == MMF_MMAP && c.place == MMF_HINT && c.result != (int64_t)c.start) {
			char r[64];
			FILE *f = fmemopen(r, sizeof(r), "w");

			r[0] = 0;
			if (f) {
				print_result(f, c.result);
				fclose(f);
			}
			/* hint_refused() should have said so */
			snprintf(
			    why, whylen,
			    "operation %u: the model did not place the hint mapping at its hint "
			    "@0x%" PRIx64 " (it returned %s); the kernel's own placement differs",
			    i, pg(c.start), r);
			res = SKIPPED;
			break;
		}
		kernel_call(&c, &kc);
		if (!kproc_call(&k, &kc, &kres, err, sizeof(err))) {
			fprintf(stderr, "vmafuzz conform: %s: operation %u: %s\n", name, i, err);
			res = FAILED;
			break;
		}
		/* fork: the grandchild's pid for its smaps; the result compared is 0 */
		if (c.op == MMF_FORK && kres > 0) {
			grandchild = (pid_t)kres;
			kres = 0;
		}
		mmf_check(&s);
		nm = model_vmas(mm, mview, MAX_VMAS, o);
		nk = kproc_vmas(&k, CMP_LO, CMP_HI, kview, MAX_VMAS, err, sizeof(err));
		if (nk < 0) {
			fprintf(stderr, "vmafuzz conform: %s: operation %u: %s\n", name, i, err);
			res = FAILED;
			break;
		}
		same = c.result == kres && nm == (unsigned)nk;
		for (unsigned j = 0; same && j < nm; j++)
			same = cvma_equal(&mview[j], &kview[j]);
		if (o->verbose || !same) {
			FILE *out = stdout;

			if (same) {
				fprintf(out, "  %u: ", i);
				prog_print_op(out, d, op);
				fprintf(out, "\n     ");
			} else {
				fprintf(out, "conform: %s: operation %u differs: ", name, i);
				prog_print_op(out, d, op);
				fprintf(out, "\n  call: ");
			}
			print_call(out, &c);
			fprintf(out, "\n  %sresult: model ", same ? "   " : "");
			print_result(out, c.result);
			fprintf(out, ", kernel ");
			print_result(out, kres);
			fprintf(out, "%s\n", c.result == kres ? "" : "   <== differs");
			if (!same) {
				fprintf(out, "  VMAs from %#" PRIx64 " (@0x0; @ counts pages):\n",
					(uint64_t)MMF_WINDOW_LO);
				print_views(out, mview, nm, kview, (unsigned)nk);
			} else if (o->verbose) {
				print_views(out, mview, nm, kview, (unsigned)nk);
			}
		}
		if (!same) {
			res = DIFFER;
			*nops = i;
			break;
		}
		if (grandchild > 0) {
			res = compare_child(&s, &k, grandchild, name, i, o);
			grandchild = -1;
			if (res == DIFFER)
				*nops = i;
			if (res != AGREE)
				break;
		}
		*nops = i + 1;
	}
	check_set_context(NULL, NULL);
	kproc_stop(&k);
	mmf_finish(&s);
	return res;
}

/* ---- programs from files -------------------------------------------------- */

static int run_files(int n, char **files, const struct opts *o)
{
	const struct fuzz_target *t = &fuzz_mm_target;
	static struct prog p;
	int status = 0;

	for (int i = 0; i < n; i++) {
		char why[512];
		unsigned nops;
		uint8_t *data;
		size_t size;
		enum outcome r;

		data = load_input(t, files[i], &size, stderr);
		if (!data)
			return 2;
		prog_decode(t->desc, data, size, &p);
		free(data);
		r = run_prog(t->desc, &p, files[i], o, NULL, &nops, why, sizeof(why));
		switch (r) {
		case AGREE:
			printf("conform: %s: %u operations agree\n", files[i], nops);
			break;
		case SKIPPED:
			printf("conform: %s: skipped: %s\n", files[i], why);
			break;
		case DIFFER:
			status = 1;
			break;
		case FAILED:
			return 2;
		}
		fflush(stdout);
		if (status && !o->keep_going)
			break;
	}
	return status;
}

/* ---- random programs ------------------------------------------------------ */

/* A range that mostly hits a VMA, a gap or a small area of the window. */
static void gen_range(struct prng *g, unsigned spread, uint8_t b[4], bool map)
{
	struct range_spec rs;
	unsigned r = (unsigned)prng_below(g, 100);

	memset(&rs, 0, sizeof(rs));
	if (r < 45) {
		rs.mode = RS_ENTRY;
		rs.k = (uint8_t)prng_below(g, 6);
		rs.d = prng_below(g, 2) ? 0 : (int8_t)((int)prng_below(g, 20) - 4);
	} else if (r < 65) {
		rs.mode = RS_GAP;
		rs.k = (uint8_t)prng_below(g, 6);
		rs.d = prng_below(g, 2) ? 0 : (int8_t)((int)prng_below(g, 12) - 4);
	} else if (r < 95) {
		rs.mode = RS_RAW;
		rs.v = (uint16_t)prng_below(g, spread);
	} else {
		rs.mode = RS_TOP;
		rs.v = (uint16_t)prng_below(g, 16);
	}
	/* to the end of a VMA often; of a gap (up to the whole window) rarely */
	if (prng_below(g, 100) < (rs.mode == RS_ENTRY ? 25 : map ? 3 : 10))
		rs.len = 0;
	else
		rs.len = (uint8_t)(1 + prng_below(g, prng_below(g, 5) ? 12 : 80));
	range_spec_encode(&rs, b);
}

static void gen_op(struct regen *r, bool first, struct prog_op *op)
{
	const struct prog_desc *d = r->d;
	struct prng *g = &r->g;
	unsigned x = first ? 0 : (unsigned)prng_below(g, 100);
	enum mmf_op kind = x < 30   ? MMF_MMAP
			   : x < 40 ? MMF_MUNMAP
			   : x < 58 ? MMF_MPROTECT
			   : x < 77 ? MMF_MADVISE
			   : x < 95 ? MMF_TOUCH
				    : MMF_FORK;

	memset(op, 0, sizeof(*op));
	op->code = (uint8_t)op_code(d, kind);
	gen_range(g, r->spread, &op->arg[1], kind == MMF_MMAP);
	switch (kind) {
	case MMF_MMAP:
		/* mostly readable and writable, every combination sometimes */
		op->arg[5] = (uint8_t)(prng_below(g, 2) ? 3 : prng_below(g, 8));
		op->arg[6] = prng_below(g, 4) ? MMF_PRIVATE_ANON : MMF_SHARED_ANON;
		x = (unsigned)prng_below(g, 100);
		op->arg[8] = x < 75 ? MMF_FIXED : x < 95 ? MMF_NOREPLACE : MMF_HINT;
		break;
	case MMF_MPROTECT:
		op->arg[5] = (uint8_t)prng_below(g, 8);
		break;
	case MMF_MADVISE:
		op->arg[5] = (uint8_t)prng_below(g, 5);
		break;
	case MMF_TOUCH:
		op->arg[5] = (uint8_t)prng_below(g, 2);
		break;
	case MMF_FORK:
		/* either algorithm, sometimes both compared; the current policy */
		memset(&op->arg[1], 0, 4);
		op->arg[1] = (uint8_t)prng_below(g, 2);
		op->arg[3] = (uint8_t)prng_below(g, 2);
		break;
	default:
		break;
	}
}

static void regen_op(struct regen *r, struct prog_op *op)
{
	gen_op(r, false, op);
}

/* A program of @nops operations; how densely its @ ranges pack varies. */
static void gen_prog(struct regen *r, unsigned nops, struct prog *p)
{
	static const unsigned spreads[] = {0x10, 0x40, 0x40, 0x100};

	memset(p, 0, sizeof(*p));
	r->spread = spreads[prng_below(&r->g, 4)];
	p->nops = nops;
	for (unsigned i = 0; i < nops; i++)
		gen_op(r, i == 0, &p->ops[i]);
}

static int run_random(uint64_t n, uint64_t seed, unsigned nops, const struct opts *o)
{
	const struct prog_desc *d = fuzz_mm_target.desc;
	struct regen regen = {{seed}, d, 0x40};
	static struct prog p;
	uint64_t done = 0, ops = 0, skipped = 0, differ = 0;
	char name[64], why[512];

	while (done < n) {
		unsigned agreed;
		enum outcome r;

		gen_prog(&regen, nops, &p);
		snprintf(name, sizeof(name), "random program %" PRIu64 " (seed %" PRIu64 ")", done,
			 seed);
		r = run_prog(d, &p, name, o, &regen, &agreed, why, sizeof(why));
		if (r == FAILED)
			return 2;
		if (r == SKIPPED) {
			/* no operation that can run found: another program instead */
			if (o->verbose)
				printf("conform: %s: skipped: %s\n", name, why);
			if (++skipped > 10 * n + 100) {
				fprintf(stderr, "vmafuzz conform: too many skipped programs\n");
				return 2;
			}
			continue;
		}
		done++;
		if (r == DIFFER) {
			differ++;
			/* up to the step that differs: what runs the same again */
			p.nops = agreed + 1;
			printf("--- the program up to the step that differs (save it as a seed) "
			       "---\n");
			printf("# vmafuzz conform --random: %s\n", name);
			prog_print(stdout, d, &p, (int)agreed);
			printf("---\n");
			fflush(stdout);
			if (!o->keep_going)
				break;
			continue;
		}
		ops += agreed;
		if (o->verbose)
			printf("conform: %s: %u operations agree\n", name, agreed);
	}
	printf("%" PRIu64 " programs, %" PRIu64 " operations agree", done - differ, ops);
	if (differ)
		printf("; %" PRIu64 " of %" PRIu64 " programs differ", differ, done);
	if (skipped)
		printf(" (%" PRIu64 " more skipped)", skipped);
	printf("\n");
	return differ ? 1 : 0;
}

/* The kernel's command line has the word @w. */
static bool cmdline_has(const char *w)
{
	char buf[4096];
	size_t n, len = strlen(w);
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (char *p = buf; (p = strstr(p, w)); p += len)
		if ((p == buf || p[-1] == ' ') && (!p[len] || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

/*
 * Whether this kernel maps the zero page on a read fault of private
 * anonymous memory: one page mapped, read and looked at in smaps. 1 yes,
 * 0 no, -1 after a message on stderr.
 */
static int probe_zero_page(void)
{
	struct kcall c = {.op = KC_MMAP,
			  .prot = PROT_READ | PROT_WRITE,
			  .flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			  .start = CMP_LO,
			  .len = PAGE_SIZE,
			  .touch_max_pages = 1};
	struct cvma v[4];
	struct kproc k;
	char err[256];
	int64_t r;
	int n, res = -1;

	if (kproc_start(&k, CMP_LO, CMP_HI, err, sizeof(err))) {
		fprintf(stderr, "vmafuzz conform: %s\n", err);
		return -1;
	}
	if (kproc_call(&k, &c, &r, err, sizeof(err)) && r == (int64_t)CMP_LO) {
		c.op = KC_TOUCH;
		if (kproc_call(&k, &c, &r, err, sizeof(err)) && r == 0 &&
		    (n = kproc_vmas(&k, CMP_LO, CMP_HI, v, 4, err, sizeof(err))) == 1)
			res = v[0].rss_kb == 0;
	}
	if (res < 0)
		fprintf(stderr, "vmafuzz conform: the zero-page probe failed%s%s\n",
			*err ? ": " : "", err);
	kproc_stop(&k);
	return res;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *e;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &e, 0);
	return !errno && !*e && *v <= max;
}

int cmd_conform(int argc, char **argv)
{
	struct opts o = {false, false, false, false, false, false};
	uint64_t nrandom = 0, seed = 1, nops = 20;
	bool random = false;
	char **files = argv + 1;
	int nfiles = 0, zero;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-v")) {
			o.verbose = true;
		} else if (!strcmp(a, "--keep-going")) {
			o.keep_going = true;
		} else if (!strcmp(a, "--selftest-flip-wf")) {
			o.flip_wf = true;
		} else if (!strcmp(a, "--selftest-flip-child-wf")) {
			o.flip_child = true;
		} else if (!strcmp(a, "--compare-read-faults")) {
			o.read_faults = true;
		} else if (!strcmp(a, "--random") || !strcmp(a, "--seed") || !strcmp(a, "--ops")) {
			uint64_t v;
			uint64_t max = !strcmp(a, "--ops") ? PROG_MAX_OPS : UINT64_MAX;

			if (i + 1 >= argc)
				return cmd_usage_error("conform", "%s needs a number", a);
			if (!parse_u64(argv[++i], max, &v) || (v == 0 && strcmp(a, "--seed")))
				return cmd_usage_error("conform",
						       !strcmp(a, "--ops")
							   ? "--ops takes 1..128, not '%s'"
							   : "not a positive number: '%s'",
						       argv[i]);
			if (!strcmp(a, "--random")) {
				random = true;
				nrandom = v;
			} else if (!strcmp(a, "--seed")) {
				seed = v;
			} else {
				nops = v;
			}
		} else if (a[0] == '-' && a[1]) {
			return cmd_usage_error("conform", "unknown option '%s'", a);
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (random && nfiles)
		return cmd_usage_error("conform", "takes files or --random N, not both (got '%s')",
				       files[0]);
	if (!random && !nfiles)
		return cmd_usage_error("conform", "%s", "needs files or --random N");
	if (!layout_ok(fuzz_mm_target.desc))
		return 2;
	zero = probe_zero_page();
	if (zero < 0)
		return 2;
	o.no_zero_page = !zero;
	if (o.no_zero_page)
		fprintf(stderr,
			"vmafuzz conform: note: this kernel allocates a page on a read fault of "
			"private anonymous memory where the model maps the zero page%s; programs "
			"that do it are skipped%s\n",
			cmdline_has("pvm_no_zero_page=1") ? " (booted with pvm_no_zero_page=1)"
							  : "",
			o.read_faults ? " (not with --compare-read-faults: they differ)"
				      : " (--compare-read-faults runs them)");
	return random ? run_random(nrandom, seed, (unsigned)nops, &o)
		      : run_files(nfiles, files, &o);
}
