/* SPDX-License-Identifier: GPL-2.0 */
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
#include "as_backend.h"
#include "as_diff.h"
#include "as_model.h"
#include "cmd.h"
#include "conform.h"
#include "conform_model.h"
#include "conform_ops.h"
#include "mm_ops.h"
#include "prng.h"
#include "replay.h"
#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* What is compared: VMAs intersecting the window, and those a mapping that
 * starts in the window can reach past its top (255 pages at most). */
#define CMP_LO CONFORM_LO
#define CMP_HI CONFORM_HI
#define MAX_VMAS 4096

struct opts {
	bool verbose, keep_going;
	bool flip_wf;	   /* --selftest-flip-wf: a deliberately wrong model view */
	bool flip_child;   /* --selftest-flip-child-wf: the same, of a forked child only */
	bool read_faults;  /* --compare-read-faults: run them even without a zero page */
	bool no_zero_page; /* the probe: this kernel allocates on anonymous read faults */
};

enum outcome { AGREE, DIFFER, SKIPPED, FAILED };

/* Why the call (resolved, not yet run) cannot run for real, or NULL. */
static const char *skip_reason(void *model, const struct mm_call *c, const struct opts *o)
{
	if (o->no_zero_page && !o->read_faults && conform_reads_fresh_anon(model, c))
		return "a read fault on private anonymous memory: this kernel allocates a page "
		       "there instead of mapping the zero page as the model does";
	if (o->no_zero_page && !o->read_faults && conform_populates_fresh_anon(model, c))
		return "populates private anonymous memory with read faults: this kernel "
		       "allocates pages there instead of mapping the zero page as the model does";
	return conform_model_skip(model, c);
}

/* For an invariant failure inside the model: the program and the state. */
struct check_ctx {
	const struct prog_desc *d;
	const struct prog *p;
	unsigned step;
	void *model;
};

static void check_context(FILE *out, void *arg)
{
	struct check_ctx *x = arg;

	fprintf(out, "--- program (fuzz_mm, under vmafuzz conform), step %u of %u ---\n", x->step,
		x->p->nops);
	prog_print(out, x->d, x->p, (int)x->step);
	fprintf(out, "--- state ---\n");
	as_model.dump(out, x->model);
}

static struct as_vma mview[MAX_VMAS], kview[MAX_VMAS];

/* The two sides of a run: the model (the reference: it resolves every
 * range) and the live kernel. */
struct sides {
	void *model, *live;
	const struct opts *o;
	const char *name;
};

/* Both sides' VMAs of process @proc: AGREE, DIFFER (not printed) or FAILED
 * (message on stderr); *nm and *nk how many. */
static enum outcome read_views(struct sides *sd, unsigned proc, unsigned step, unsigned *nm,
			       unsigned *nk)
{
	char err[256];
	int m, k;

	m = conform_model_vmas(sd->model, proc, mview, MAX_VMAS, err, sizeof(err));
	k = m < 0 ? -1
		  : as_live.vmas(sd->live, proc, CMP_LO, CMP_HI, true, kview, MAX_VMAS, err,
				 sizeof(err));
	if (m < 0 || k < 0) {
		fprintf(stderr, "vmafuzz conform: %s: operation %u: %s\n", sd->name, step, err);
		return FAILED;
	}
	for (int j = 0; sd->o->flip_wf && proc == 0 && j < m; j++)
		mview[j].flags ^= AS_VM_WIPEONFORK;
	for (int j = 0; sd->o->flip_child && proc != 0 && j < m; j++)
		mview[j].flags ^= AS_VM_WIPEONFORK;
	*nm = (unsigned)m;
	*nk = (unsigned)k;
	return as_vmas_same(mview, *nm, kview, *nk, AS_DIFF_FLAGS) ? AGREE : DIFFER;
}

static void print_views(FILE *out, unsigned nm, unsigned nk)
{
	as_print_views(out, "model", mview, nm, "kernel", kview, nk, AS_DIFF_FLAGS, MMF_WINDOW_LO);
}

/* Run @c on one side; false (message on stderr) when the side is gone. */
static void side_call(const struct as_backend *b, void *as, struct mm_call *c)
{
	if (b->get(as, c)) {
		b->call(as, c);
		b->put(as, c);
	} else {
		c->result = -ESRCH;
	}
}

/*
 * After a fork that succeeded on both sides: the model's child (the only
 * process besides p0, as each is ended after its comparison) against the
 * real grandchild, before either runs anything. Then both exit. AGREE,
 * DIFFER (printed) or FAILED.
 */
static enum outcome compare_child(struct sides *sd, unsigned step)
{
	struct mm_call end = {.code = MMF_OP_EXIT};
	unsigned q = conform_model_child(sd->model), nm, nk;
	enum outcome r;

	if (!q) {
		fprintf(stderr,
			"vmafuzz conform: %s: operation %u: the model's fork made no process\n",
			sd->name, step);
		return FAILED;
	}
	as_live_set_child(sd->live, q);
	r = read_views(sd, q, step, &nm, &nk);
	if (r == FAILED)
		return FAILED;
	if (sd->o->verbose || r == DIFFER) {
		if (r == DIFFER)
			printf("conform: %s: operation %u differs in the child\n", sd->name, step);
		printf("  the child (model p%u, kernel: the grandchild):\n", q);
		print_views(stdout, nm, nk);
	}
	end.a.proc = (uint8_t)q;
	side_call(&as_live, sd->live, &end);
	if (end.result) {
		fprintf(stderr, "vmafuzz conform: %s: operation %u: ending the grandchild: %s\n",
			sd->name, step, strerror((int)-end.result));
		return FAILED;
	}
	conform_model_end_child(sd->model, q);
	return r;
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

/* The operation's call, resolved on the model, and why it cannot run for
 * real (NULL: it can); a random program gets another operation instead. */
static const char *resolve_op(struct sides *sd, const struct prog_desc *d, struct prog_op *op,
			      struct regen *regen, struct mm_call *c)
{
	const char *skip;

	for (unsigned tries = 0;; tries++) {
		conform_model_resolve(sd->model, d, op, c);
		skip = skip_reason(sd->model, c, sd->o);
		if (!skip || !regen || tries == REGEN_TRIES)
			return skip;
		regen_op(regen, op);
	}
}

/* Print one compared operation: the call, both results, the views. */
static void print_step(const struct prog_desc *d, const struct prog_op *op, const char *name,
		       unsigned i, const struct mm_call *c, int64_t kres, bool same, unsigned nm,
		       unsigned nk, bool verbose)
{
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
	conform_print_call(out, c);
	fprintf(out, "\n  %sresult: model ", same ? "   " : "");
	conform_print_result(out, c->result);
	fprintf(out, ", kernel ");
	conform_print_result(out, kres);
	fprintf(out, "%s\n", c->result == kres ? "" : "   <== differs");
	if (!same) {
		fprintf(out, "  VMAs from %#" PRIx64 " (@0x0; @ counts pages):\n",
			(uint64_t)MMF_WINDOW_LO);
		print_views(out, nm, nk);
	} else if (verbose) {
		print_views(out, nm, nk);
	}
}

/* One operation on both sides, compared: AGREE, DIFFER (printed), SKIPPED
 * (@why says why) or FAILED. */
static enum outcome run_step(struct sides *sd, const struct prog_desc *d, struct prog_op *op,
			     unsigned i, struct regen *regen, char *why, size_t whylen)
{
	struct mm_call c, k;
	const char *skip = resolve_op(sd, d, op, regen, &c);
	unsigned nm, nk;
	enum outcome r;

	if (skip) {
		char text[160];

		snprintf(why, whylen, "operation %u (%s): %s", i,
			 conform_op_text(d, op, text, sizeof(text)), skip);
		return SKIPPED;
	}
	k = c;
	if (!conform_model_call(sd->model, &c, i, why, whylen))
		return SKIPPED;
	side_call(&as_live, sd->live, &k);
	if (k.result == INT64_MIN)
		return FAILED; /* the child is gone (said on stderr) */
	r = read_views(sd, 0, i, &nm, &nk);
	if (r == FAILED)
		return FAILED;
	if (c.result != k.result)
		r = DIFFER;
	if (sd->o->verbose || r == DIFFER)
		print_step(d, op, sd->name, i, &c, k.result, r == AGREE, nm, nk, sd->o->verbose);
	if (r == AGREE && c.code == MMF_OP_FORK && c.result == 0 && k.result == 0)
		r = compare_child(sd, i);
	return r;
}

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
	struct sides sd = {NULL, NULL, o, name};
	struct check_ctx ctx = {d, p, 0, NULL};
	enum outcome res = AGREE;
	char err[256];

	*nops = 0;
	if (conform_prog_refuses(d, p, why, whylen))
		return SKIPPED;
	sd.model = as_model.open(err, sizeof(err));
	if (!sd.model) {
		fprintf(stderr, "vmafuzz conform: %s: %s\n", name, err);
		return FAILED;
	}
	sd.live = as_live.open(err, sizeof(err));
	if (!sd.live) {
		fprintf(stderr, "vmafuzz conform: %s: %s\n", name, err);
		as_model.close(sd.model);
		return FAILED;
	}
	ctx.model = sd.model;
	check_set_context(check_context, &ctx);
	for (unsigned i = 0; i < p->nops && res == AGREE; i++) {
		ctx.step = i;
		res = run_step(&sd, d, &p->ops[i], i, regen, why, whylen);
		*nops = res == AGREE ? i + 1 : i;
	}
	check_set_context(NULL, NULL);
	as_live.close(sd.live);
	as_model.close(sd.model);
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
static void gen_range(struct prng *g, unsigned spread, struct range_spec *out, bool map)
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
	*out = rs;
}

/* mremap's arguments: a new length near the old one, flags mostly valid,
 * a new address near the old range or at a gap or VMA. */
static void gen_mremap(struct prng *g, struct mm_args *a)
{
	static const uint8_t flags[] = {0, 1, 1, 3, 3, 3, 5, 7, 7, 2, 4, 6};
	unsigned x = (unsigned)prng_below(g, 100);

	a->remap_flags = flags[prng_below(g, sizeof(flags))];
	a->n = (uint8_t)(x < 10 ? 0 : 1 + prng_below(g, x < 80 ? 16 : 40));
	a->to = (uint8_t)prng_below(g, 4);
	a->k = (uint8_t)prng_below(g, a->to < MMF_TO_UP ? 6 : 32);
}

static unsigned gen_code(struct prng *g, bool first)
{
	unsigned x = first ? 0 : (unsigned)prng_below(g, 100);

	return x < 25	? MMF_OP_MMAP
	       : x < 33 ? MMF_OP_MUNMAP
	       : x < 46 ? MMF_OP_MPROTECT
	       : x < 60 ? MMF_OP_MADVISE
	       : x < 75 ? MMF_OP_TOUCH
	       : x < 85 ? MMF_OP_MREMAP
	       : x < 89 ? MMF_OP_MLOCK
	       : x < 92 ? MMF_OP_MUNLOCK
	       : x < 94 ? MMF_OP_MLOCKALL
	       : x < 95 ? MMF_OP_MUNLOCKALL
			: MMF_OP_FORK;
}

static void gen_op(struct regen *r, bool first, struct prog_op *op)
{
	struct prng *g = &r->g;
	unsigned code = gen_code(g, first), x;
	struct mm_args a;

	memset(op, 0, sizeof(*op));
	memset(&a, 0, sizeof(a));
	gen_range(g, r->spread, &a.range, code == MMF_OP_MMAP);
	switch (code) {
	case MMF_OP_MMAP:
		/* mostly readable and writable, every combination sometimes;
		 * now and then populated, locked or a stack */
		a.prot = (uint8_t)(prng_below(g, 2) ? 3 : prng_below(g, 8));
		x = (unsigned)prng_below(g, 100);
		a.prot |= x < 5	   ? MMF_MAP_POPULATE
			  : x < 8  ? MMF_MAP_LOCKED
			  : x < 14 ? MMF_MAP_GROWSDOWN
				   : 0;
		a.kind = prng_below(g, 4) ? MMF_PRIVATE_ANON : MMF_SHARED_ANON;
		x = (unsigned)prng_below(g, 100);
		a.place = x < 75 ? MMF_FIXED : x < 95 ? MMF_NOREPLACE : MMF_HINT;
		break;
	case MMF_OP_MPROTECT:
		a.prot = (uint8_t)prng_below(g, 8);
		break;
	case MMF_OP_MADVISE:
		a.advice = (uint8_t)prng_below(g, MMF_NADVICE);
		break;
	case MMF_OP_TOUCH:
		a.access = (uint8_t)prng_below(g, 2);
		break;
	case MMF_OP_MREMAP:
		gen_mremap(g, &a);
		break;
	case MMF_OP_MLOCK:
		a.lock = (uint8_t)prng_below(g, 2);
		break;
	case MMF_OP_MLOCKALL:
		a.mcl = (uint8_t)prng_below(g, 8); /* 0 and onfault alone: -EINVAL */
		break;
	case MMF_OP_FORK:
		/* either algorithm, sometimes both compared; the current policy */
		a.algo = (uint8_t)prng_below(g, 2);
		a.diff = (uint8_t)prng_below(g, 2);
		break;
	}
	prog_encode_args(r->d, code, &a, op);
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
	struct kcall c = {.code = KSYS_MMAP,
			  .prot = PROT_READ | PROT_WRITE,
			  .flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			  .start = CMP_LO,
			  .len = KSYS_PAGE,
			  .touch_max_pages = 1};
	struct as_vma v[4];
	struct kproc k;
	char err[256];
	int64_t r;
	int n, res = -1;

	if (kproc_start(&k, CMP_LO, CMP_HI, err, sizeof(err))) {
		fprintf(stderr, "vmafuzz conform: %s\n", err);
		return -1;
	}
	if (kproc_call(&k, &c, &r, err, sizeof(err)) && r == (int64_t)CMP_LO) {
		c.code = KSYS_TOUCH;
		if (kproc_call(&k, &c, &r, err, sizeof(err)) && r == 0 &&
		    (n = kproc_vmas(&k, CMP_LO, CMP_HI, v, 4, err, sizeof(err))) == 1)
			res = v[0].rss == 0;
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
