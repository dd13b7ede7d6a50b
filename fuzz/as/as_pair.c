/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two address-space backends in lockstep (as_pair.h): the primary runs each
 * call the program makes and its answer is the program's; the shadow, the
 * model, resolves the ranges and runs the same call with failure injection
 * paused; results and the process's VMAs (range, the flags both show, page
 * offset) must agree after every call (AS_BACKENDS_DIFFER). A call the
 * primary refuses runs on neither. Once an injected allocation failure
 * fired in the primary's call, the two are no longer compared for the rest
 * of the program: a failed call may leave changes behind (MAP_FIXED's
 * unmap, a split before the one that failed), and one that absorbed the
 * failure (the kernel's mmap falling back to an unmerged VMA) a different
 * layout, that the shadow, which did not fail, cannot have; the executor's
 * own failure checks still judge the primary.
 */
#include "as_pair.h"

#include "as_diff.h"
#include "runtime/alloc.h"
#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define PAIR_LO MMF_WINDOW_LO
#define PAIR_HI (MMF_WINDOW_HI + (256ull << MMF_PAGE_SHIFT))
#define PAIR_VMAS 1024
/* What both show of a VMA when neither has pages (no rss, no anon). */
#define PAIR_FLAGS AS_DIFF_FLAGS

static const struct as_backend *P, *S;

struct pair {
	void *p, *s;
	bool diverged; /* a failed call left the two apart */
	/* the two views of one check, written before read (pair_views) */
	struct as_vma *pv, *sv;
};

/*
 * The scratch for the two views of a check, one for the program: zeroed or
 * allocated per input, it was the pair's largest allocation and a visible
 * share of a kfuzz_vma run (docs/results/benchmarks.md).
 */
static struct as_vma pair_views[2 * PAIR_VMAS];

/* The two holds of a process, between get and put. */
struct holds {
	void *p, *s;
};

static void *pair_open(char *err, size_t errlen)
{
	struct pair *x = calloc(1, sizeof(*x));
	struct alloc_fail_pause pause;

	if (!x)
		return NULL;
	x->pv = pair_views;
	x->sv = pair_views + PAIR_VMAS;
	x->p = P->open(err, errlen);
	alloc_fail_pause(&pause);
	x->s = x->p ? S->open(err, errlen) : NULL;
	alloc_fail_resume(&pause);
	if (!x->s) {
		if (x->p)
			P->close(x->p);
		free(x);
		return NULL;
	}
	return x;
}

static void pair_close(void *as)
{
	struct pair *x = as;

	P->close(x->p);
	S->close(x->s);
	free(x);
}

static bool pair_get(void *as, struct mm_call *c)
{
	struct pair *x = as;
	struct holds *h = malloc(sizeof(*h));
	bool got;

	MODEL_ASSERT(h != NULL);
	got = P->get(x->p, c);
	h->p = c->proc;
	if (got && !S->get(x->s, c)) {
		c->proc = h->p;
		P->put(x->p, c);
		got = false;
	}
	h->s = c->proc;
	if (!got) {
		free(h);
		c->proc = NULL;
		return false;
	}
	c->proc = h;
	return true;
}

/* The shadow resolves: both then run the same range. */
static void pair_resolve(void *as, struct mm_call *c)
{
	struct pair *x = as;
	struct holds *h = c->proc;

	c->proc = h->s;
	S->resolve(x->s, c);
	c->proc = h;
}

/* The processes' VMAs on both sides agree. */
static void compare_views(struct pair *x, const struct mm_call *c)
{
	char err[128];
	int np =
	    P->vmas(x->p, c->a.proc, PAIR_LO, PAIR_HI, false, x->pv, PAIR_VMAS, err, sizeof(err));
	int ns =
	    S->vmas(x->s, c->a.proc, PAIR_LO, PAIR_HI, false, x->sv, PAIR_VMAS, err, sizeof(err));
	bool same = np >= 0 && ns >= 0 && np == ns;

	for (int i = 0; same && i < np; i++)
		same = x->pv[i].start == x->sv[i].start && x->pv[i].end == x->sv[i].end &&
		       (x->pv[i].flags & PAIR_FLAGS) == (x->sv[i].flags & PAIR_FLAGS) &&
		       x->pv[i].pgoff == x->sv[i].pgoff;
	if (same)
		return;
	fprintf(stderr, "--- VMAs of p%u after %s ---\n", c->a.proc, mmf_ops[c->code].name);
	if (np >= 0 && ns >= 0)
		as_print_views(stderr, P->name, x->pv, (unsigned)np, S->name, x->sv, (unsigned)ns,
			       PAIR_FLAGS, MMF_WINDOW_LO, 0);
	check_fail(CK_AS_BACKENDS_DIFFER,
		   "%s and %s hold different VMAs after %s [%#" PRIx64 ", +%#" PRIx64 ")", P->name,
		   S->name, mmf_ops[c->code].name, c->start, c->len);
}

static void pair_call(void *as, struct mm_call *c)
{
	struct pair *x = as;
	struct holds *h = c->proc;
	struct alloc_fail_pause pause;
	struct mm_call sc;

	if (P->refuses(x->p, c)) {
		c->result = -ENOSYS; /* run on neither */
		return;
	}
	sc = *c;
	c->proc = h->p;
	P->call(x->p, c);
	c->proc = h;
	if (x->diverged)
		return;
	if (alloc_fail_fired()) {
		/* failed, or absorbed the failure its own way (the kernel's mmap
		 * maps an unmerged VMA when a merge's preallocation fails) */
		x->diverged = true;
		return;
	}
	alloc_fail_pause(&pause);
	sc.proc = h->s;
	S->call(x->s, &sc);
	alloc_fail_resume(&pause);
	if (sc.result != c->result)
		check_fail(CK_AS_BACKENDS_DIFFER,
			   "%s [%#" PRIx64 ", +%#" PRIx64 "): %s returned %" PRId64 ", %s %" PRId64,
			   mmf_ops[c->code].name, c->start, c->len, P->name, c->result, S->name,
			   sc.result);
	compare_views(x, c);
}

static void pair_put(void *as, struct mm_call *c)
{
	struct pair *x = as;
	struct holds *h = c->proc;

	c->proc = h->p;
	P->put(x->p, c);
	c->proc = h->s;
	S->put(x->s, c);
	c->proc = NULL;
	free(h);
}

static const char *pair_refuses(void *as, const struct mm_call *c)
{
	return P->refuses(((struct pair *)as)->p, c);
}

static int pair_vmas(void *as, unsigned proc, uint64_t lo, uint64_t hi, bool usage,
		     struct as_vma *out, unsigned max, char *err, size_t errlen)
{
	return P->vmas(((struct pair *)as)->p, proc, lo, hi, usage, out, max, err, errlen);
}

/* The primary's pages; the shadow's when the primary has none to show (the
 * kernel's mm/vma.c has no pages: the calls that make them run on neither). */
static int pair_pages(void *as, unsigned proc, uint64_t lo, uint64_t hi,
		      void (*fn)(void *arg, uint64_t addr, uint64_t value), void *arg, char *err,
		      size_t errlen)
{
	struct pair *x = as;

	if (P->pages)
		return P->pages(x->p, proc, lo, hi, fn, arg, err, errlen);
	return S->pages(x->s, proc, lo, hi, fn, arg, err, errlen);
}

static void pair_check(void *as)
{
	struct pair *x = as;

	P->check(x->p);
	S->check(x->s);
}

static void pair_dump(FILE *out, void *as)
{
	struct pair *x = as;

	fprintf(out, "(%s)%s\n", P->name,
		x->diverged ? " (apart from the shadow since a failed call)" : "");
	P->dump(out, x->p);
	fprintf(out, "(%s)\n", S->name);
	S->dump(out, x->s);
}

static struct as_backend pair = {
    .open = pair_open,
    .close = pair_close,
    .get = pair_get,
    .resolve = pair_resolve,
    .call = pair_call,
    .put = pair_put,
    .refuses = pair_refuses,
    .vmas = pair_vmas,
    .check = pair_check,
    .dump = pair_dump,
};

void *as_pair_shadow(void *as)
{
	return ((struct pair *)as)->s;
}

const struct as_backend *as_pair(const struct as_backend *primary, const struct as_backend *shadow)
{
	P = primary;
	S = shadow;
	pair.name = primary->name;
	pair.absorbs = primary->absorbs;
	pair.pages = primary->pages || shadow->pages ? pair_pages : NULL;
	return &pair;
}
