/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fuzz_mtree program written as a kernel maple tree regression test
 * (ktest_mtree.h). The recorder is a tree backend: each call goes to the
 * model's tree, and the same call on the kernel's API is written with the
 * model's answer as the expected one, in the form kernel/maple/kmt_unit.c
 * makes it (the kernel target's calls, without its sidesteps of known
 * findings: those are what a test is for).
 */
#include "ktest_mtree.h"
#include "ktest_text.h"

#include "fuzz/prog/prog.h"
#include "fuzz/targets/mtree_run.h"
#include "fuzz/tree/tree_backend.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "fuzz/tree/mtref.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define KT_TREES 4
#define KT_FLAGS "MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN | MT_FLAGS_USE_RCU"

const struct ktest_caps ktest_caps_all = {true, true, true, true, true, true};

/* A walk as the model made it: what the test expects to be visited. */
struct kt_walk {
	struct tree_range *r;
	void **e;
	size_t n, cap;
	bool stopped; /* the caller stopped it after the last one */
	tree_visit_fn visit;
	void *arg;
};

/* Variables the test's function uses (declared atop it). */
enum {
	KV_ENTRY = 1,
	KV_RET = 2,
	KV_AT = 4,
	KV_I = 8,
	KV_INDEX = 16,
	KV_START = 32,
	KV_FIRST = 64,
	KV_NEXT = 128,
};

static struct kt {
	FILE *body; /* the function's statements */
	char *buf;
	size_t len;
	const struct ktest_caps *caps;
	void *tree[KT_TREES];
	unsigned ntrees;
	/* each fiber's step under way (NULL: none), its number, and whether
	 * its comment was written since another step's call */
	const struct prog_op *step[PROG_MAX_FIBERS];
	unsigned stepno[PROG_MAX_FIBERS];
	unsigned steps;
	int in_call;	 /* the fiber inside a call of the tree, or -1 */
	int commented;	 /* the fiber whose step the last comment named, or -1 */
	unsigned fibers; /* the fibers that called the tree (bits) */
	bool in_check;
	bool dirty[KT_TREES];	 /* written since its last check */
	bool checked[KT_TREES];	 /* checked once */
	struct ktest_refusal no; /* why it cannot be a test */
	unsigned vars;
	unsigned arrays;
	/* a bulk load under way (kmt_bulk_*) */
	unsigned bulk_tree;
	uint64_t bulk_expected, bulk_appended;
} K;

#define refuse(...) ktest_refuse(&K.no, __VA_ARGS__)

/* A statement of the test (nothing once refused, nothing for the target's
 * own checks, which are written as vmafuzz_check). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	if (K.no.refused || K.in_check)
		return;
	va_start(ap, fmt);
	vfprintf(K.body, fmt, ap);
	va_end(ap);
}

static bool quiet(void)
{
	return K.no.refused || K.in_check;
}

static unsigned tix(void *t)
{
	for (unsigned i = 0; i < K.ntrees; i++)
		if (K.tree[i] == t)
			return i;
	refuse("a tree the program did not make");
	return 0;
}

/* An entry as the test names it: fuzz_mtree's values are tagged, so each
 * is an xarray value entry. */
static const char *ent(const void *e, char *buf, size_t len)
{
	uintptr_t v = (uintptr_t)e;

	if (!e)
		snprintf(buf, len, "NULL");
	else if (e == tree_model.zero)
		snprintf(buf, len, "XA_ZERO_ENTRY");
	else if (v & 1)
		snprintf(buf, len, "xa_mk_value(%" PRIuPTR ")", v >> 1);
	else {
		refuse("an entry (%p) that is not a value entry", e);
		snprintf(buf, len, "NULL");
	}
	return buf;
}

#define ENT(e) ent((e), (char[48]){0}, 48)

/* After a call of the step: an injected failure has no counterpart in the
 * tree's harness, whose GFP_KERNEL allocations never fail. */
/* The running fiber; 0 outside them (the run's start and end). */
static unsigned self(void)
{
	return sched_in_fiber() ? sched_self()->id % PROG_MAX_FIBERS : 0;
}

/*
 * After a call of the step that allocates: fail_at counts the kernel's
 * allocations in the kernel run (its preallocation takes several nodes
 * where the model's takes one), so whether and where it failed there is
 * not known here; and the tree's harness cannot fail a GFP_KERNEL
 * allocation. Such a step is refused, fired here or not.
 */
static void after_call(const char *what)
{
	const struct prog_op *op = K.step[self()];

	if (op && op->fail_at)
		refuse("step %u carries fail_at=%u and makes %s: an injected allocation failure "
		       "cannot be made in the tree's userland harness (drop fail_at to write the "
		       "step without it)",
		       K.stepno[self()], op->fail_at, what);
}

static void wrote(unsigned t)
{
	K.dirty[t] = true;
}

/* ---- the watch: steps and checks ---------------------------------------- */

static void step_text(const struct prog_op *op, char *buf, size_t len)
{
	FILE *f = op ? fmemopen(buf, len, "w") : NULL;

	snprintf(buf, len, "the end");
	if (!f)
		return;
	prog_print_op(f, &mtree_desc, op);
	fclose(f);
	buf[len - 1] = 0;
	for (char *c = buf; *c; c++)
		if (*c == '\n' || (c[0] == '*' && c[1] == '/'))
			*c = ' ';
}

static void watch_step(void *arg, const struct prog_op *op, bool begin)
{
	unsigned f = op->fiber % PROG_MAX_FIBERS;

	(void)arg;
	if (!begin) {
		K.step[f] = NULL;
		return;
	}
	K.step[f] = op;
	K.stepno[f] = ++K.steps;
	if (K.commented == (int)f)
		K.commented = -1;
}

/*
 * A call of the tree begins: calls of two threads must not overlap (a
 * thread that yields inside one, an RCU walk or a write waiting for a
 * lock, lets another's call run in its middle, which a test in the tree's
 * harness cannot do); the step's comment goes before its first statement.
 */
static void call_begin(void)
{
	unsigned f = self();
	char text[160];

	if (K.in_check || K.no.refused)
		return;
	if (K.in_call >= 0 && K.in_call != (int)f) {
		char other[160];

		step_text(K.step[K.in_call], other, sizeof(other));
		step_text(K.step[f], text, sizeof(text));
		refuse("step %u (%s) runs in the middle of step %u (%s), another thread's: a test "
		       "in the tree's harness makes one call at a time",
		       K.stepno[f], text, K.stepno[K.in_call], other);
		return;
	}
	K.in_call = (int)f;
	if (K.step[f])
		K.fibers |= 1u << f;
	if (!K.step[f] || K.commented == (int)f)
		return;
	step_text(K.step[f], text, sizeof(text));
	say("\n\t/* %u: %s */\n", K.stepno[f], text);
	K.commented = (int)f;
}

static void call_end(void)
{
	if (!K.in_check)
		K.in_call = -1;
}

static bool collect(void *arg, const struct tree_range *r, void *e);

/* An array of the walk's ranges, named want<N>; its name. */
static unsigned want_array(const struct kt_walk *w)
{
	unsigned id = ++K.arrays;

	say("\t\tconst struct vmafuzz_range want%u[] = {\n", id);
	for (size_t i = 0; i < w->n; i++)
		say("\t\t\t{%#" PRIx64 ", %#" PRIx64 ", %s},\n", w->r[i].first, w->r[i].last,
		    ENT(w->e[i]));
	if (!w->n)
		say("\t\t\t{0, 0, NULL},\n");
	say("\t\t};\n");
	return id;
}

static void walk_free(struct kt_walk *w)
{
	free(w->r);
	free(w->e);
}

static void watch_check(void *arg, unsigned t, bool begin)
{
	struct kt_walk w = {0};
	unsigned id;

	(void)arg;
	if (!begin) {
		K.in_check = false;
		return;
	}
	/* a tree no step wrote to is as it was made, empty */
	if (t >= K.ntrees || K.no.refused || !K.dirty[t]) {
		K.in_check = true;
		return;
	}
	tree_model.walk(K.tree[t], 0, TREE_MAX, collect, &w);
	say("\t{\n");
	id = want_array(&w);
	say("\n\t\tvmafuzz_check(&mt[%u], want%u, %zu);\n\t}\n", t, id, w.n);
	walk_free(&w);
	K.checked[t] = true;
	K.dirty[t] = false;
	K.in_check = true;
}

/* ---- the backend: the model's answer, the kernel's call ---------------- */

static bool collect(void *arg, const struct tree_range *r, void *e)
{
	struct kt_walk *w = arg;
	bool go = true;

	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->r = realloc(w->r, w->cap * sizeof(*w->r));
		w->e = realloc(w->e, w->cap * sizeof(*w->e));
		if (!w->r || !w->e) {
			fprintf(stderr, "vmafuzz repro: out of memory\n");
			exit(2);
		}
	}
	w->r[w->n] = *r;
	w->e[w->n++] = e;
	if (w->visit)
		go = w->visit(w->arg, r, e);
	w->stopped = !go;
	return go;
}

static void *kt_create(void)
{
	void *t = tree_model.create();

	if (t && K.ntrees < KT_TREES)
		K.tree[K.ntrees++] = t;
	else if (t)
		refuse("more than %d trees", KT_TREES);
	return t;
}

/* __mt_destroy, or mtree_destroy (@locked); the test's tree is then made
 * again as the harness's is (6.1's destroy clears the flags). */
static void destroyed(void *t, bool locked)
{
	unsigned i = tix(t);

	if (K.step[self()])
		say("\t%s(&mt[%u]);\n\tmt_init_flags(&mt[%u], " KT_FLAGS ");\n",
		    locked ? "mtree_destroy" : "__mt_destroy", i, i);
	wrote(i);
}

static void kt_clear(void *t)
{
	call_begin();
	tree_model.clear(t);
	destroyed(t, false);
	call_end();
}

static void kt_release(void *t)
{
	tree_model.release(t);
}

/* MT_BUG_ON(&mt[t], ret != @want), the error by its name */
static void expect_ret(unsigned t, int want)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {{-EBUSY, "-EBUSY"},
		     {-EINVAL, "-EINVAL"},
		     {-ENOMEM, "-ENOMEM"},
		     {-EEXIST, "-EEXIST"},
		     {-ENOENT, "-ENOENT"}};

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (names[k].e == want) {
			say("\t\tMT_BUG_ON(&mt[%u], ret != %s);\n", t, names[k].name);
			K.vars |= KV_RET;
			return;
		}
	say("\t\tMT_BUG_ON(&mt[%u], ret != %d);\n", t, want);
	K.vars |= KV_RET;
}

static int kt_store(void *t, uint64_t first, uint64_t last, void *entry)
{
	int err = (call_begin(), tree_model.store(t, first, last, entry));
	unsigned i = tix(t);

	call_end();
	after_call("a store");
	if (first > last)
		return err; /* refused before the tree (kmt_backend.c) */
	say("\t{\n\t\tMA_STATE(mas, &mt[%u], %#" PRIx64 ", %#" PRIx64 ");\n\n", i, first, last);
	if (!entry) {
		say("\t\tret = mas_store_gfp(&mas, NULL, GFP_KERNEL);\n");
	} else {
		say("\t\tret = mas_preallocate(&mas, %s, GFP_KERNEL);\n", ENT(entry));
		say("\t\tif (!ret)\n\t\t\tmas_store_prealloc(&mas, %s);\n", ENT(entry));
	}
	expect_ret(i, err);
	say("\t}\n");
	wrote(i);
	return err;
}

static int kt_store_path(void *t, uint64_t first, uint64_t last, void *entry,
			 enum tree_write_path how)
{
	int err = (call_begin(), tree_model.store_path(t, first, last, entry, how));
	unsigned i = tix(t);

	call_end();
	after_call("a store");
	if (first > last)
		return err; /* refused before the tree (kmt_backend.c) */
	say("\t{\n\t\tMA_STATE(mas, &mt[%u], %#" PRIx64 ", %#" PRIx64 ");\n\n", i, first, last);
	switch (how) {
	case TREE_WRITE_PREALLOC:
		say("\t\tret = mas_preallocate(&mas, %s, GFP_KERNEL);\n", ENT(entry));
		say("\t\tif (!ret)\n\t\t\tmas_store_prealloc(&mas, %s);\n", ENT(entry));
		break;
	case TREE_WRITE_GFP:
		say("\t\tret = mas_store_gfp(&mas, %s, GFP_KERNEL);\n", ENT(entry));
		break;
	case TREE_WRITE_NOWAIT:
		/* kmt_store_path's non-blocking store, as it makes it */
		say("\t\tret = mas_preallocate(&mas, %s, GFP_NOWAIT);\n", ENT(entry));
		say("\t\tif (ret)\n\t\t\tret = mas_preallocate(&mas, %s, GFP_KERNEL);\n",
		    ENT(entry));
		say("\t\tif (!ret)\n\t\t\tmas_store_prealloc(&mas, %s);\n", ENT(entry));
		break;
	default:
		if (first == last)
			say("\t\tret = mtree_store(&mt[%u], %#" PRIx64 ", %s, GFP_KERNEL);\n", i,
			    first, ENT(entry));
		else
			say("\t\tret = mtree_store_range(&mt[%u], %#" PRIx64 ", %#" PRIx64
			    ", %s, GFP_KERNEL);\n",
			    i, first, last, ENT(entry));
		break;
	}
	expect_ret(i, err);
	say("\t}\n");
	wrote(i);
	return err;
}

static int kt_insert(void *t, uint64_t first, uint64_t last, void *entry)
{
	int err = (call_begin(), tree_model.insert(t, first, last, entry));
	unsigned i = tix(t);

	call_end();
	after_call("an insert");
	say("\t{\n");
	if (first == last)
		say("\t\tret = mtree_insert(&mt[%u], %#" PRIx64 ", %s, GFP_KERNEL);\n", i, first,
		    ENT(entry));
	else
		say("\t\tret = mtree_insert_range(&mt[%u], %#" PRIx64 ", %#" PRIx64
		    ", %s, GFP_KERNEL);\n",
		    i, first, last, ENT(entry));
	expect_ret(i, err);
	say("\t}\n");
	wrote(i);
	return err;
}

static int kernel_gap_err(int err, uint64_t lo, uint64_t hi, uint64_t size);

static int kt_alloc(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, void *entry,
		    uint64_t *start)
{
	int err = (call_begin(), tree_model.alloc(t, lo, hi, size, highest, entry, start));
	unsigned i = tix(t);

	call_end();
	after_call("an alloc");
	say("\t{\n\t\tret = mtree_alloc_%s(&mt[%u], &at, %s, %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64
	    ", GFP_KERNEL);\n",
	    highest ? "rrange" : "range", i, ENT(entry), size, lo, hi);
	expect_ret(i, kernel_gap_err(err, lo, hi, size));
	if (!err)
		say("\t\tMT_BUG_ON(&mt[%u], at != %#" PRIx64 ");\n", i, *start);
	say("\t}\n");
	K.vars |= KV_AT;
	wrote(i);
	return err;
}

static bool ref_add(void *arg, const struct tree_range *r, void *e)
{
	mtref_store(arg, r->first, r->last, e);
	return true;
}

/*
 * The model's tree has no cyclic allocator (the kernel target's pair gives
 * it the kernel's answer): the reference map's answer, from the model's
 * contents, then stored in the model.
 */
static int model_alloc_cyclic(void *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next,
			      bool *wrapped, uint64_t *start)
{
	struct mtref ref;
	int err;

	mtref_init(&ref);
	tree_model.walk(t, 0, TREE_MAX, ref_add, &ref);
	err = mtref_alloc_cyclic(&ref, lo, hi, next, wrapped, start);
	mtref_free(&ref);
	if (err >= 0) {
		int serr = tree_model.store(t, *start, *start, entry);

		if (serr)
			return serr;
	}
	return err;
}

/* as kmt_alloc_cyclic: the wrap flag held by the caller between calls */
static int kt_alloc_cyclic(void *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next,
			   bool *wrapped, uint64_t *start)
{
	uint64_t nx = *next;
	bool w = *wrapped;
	int err = (call_begin(), model_alloc_cyclic(t, lo, hi, entry, next, wrapped, start));
	unsigned i = tix(t);

	call_end();
	after_call("a cyclic alloc");
	say("\t{\n\t\tnext = %#" PRIx64 ";\n", nx);
	if (w)
		say("\t\tmt[%u].ma_flags |= MT_FLAGS_ALLOC_WRAPPED;\n", i);
	say("\t\tret = mtree_alloc_cyclic(&mt[%u], &at, %s, %#" PRIx64 ", %#" PRIx64
	    ", &next, GFP_KERNEL);\n",
	    i, ENT(entry), lo, hi);
	expect_ret(i, err);
	if (err >= 0)
		say("\t\tMT_BUG_ON(&mt[%u], at != %#" PRIx64 " || next != %#" PRIx64 ");\n", i,
		    *start, *next);
	say("\t\tMT_BUG_ON(&mt[%u], !(mt[%u].ma_flags & MT_FLAGS_ALLOC_WRAPPED) != %d);\n", i, i,
	    !*wrapped);
	say("\t\tmt[%u].ma_flags &= ~MT_FLAGS_ALLOC_WRAPPED;\n\t}\n", i);
	K.vars |= KV_AT | KV_NEXT;
	wrote(i);
	return err;
}

/* An entry and, for an entry, its range (mas.index, mas.last). */
static void expect_entry(unsigned t, const void *e, const struct tree_range *r, bool range_always)
{
	say("\t\tMT_BUG_ON(&mt[%u], entry != %s);\n", t, ENT(e));
	if (e || range_always)
		say("\t\tMT_BUG_ON(&mt[%u], mas.index != %#" PRIx64 " || mas.last != %#" PRIx64
		    ");\n",
		    t, r->first, r->last);
	K.vars |= KV_ENTRY;
}

/* A read through a state set to @index: entry = @fn(&mas[, bound]) under
 * RCU, then the entry (and its range) checked; the block is left open. */
static void read_at(unsigned t, uint64_t index, const char *fn, const uint64_t *bound,
		    const void *e, const struct tree_range *r, bool range_always)
{
	say("\t{\n\t\tMA_STATE(mas, &mt[%u], %#" PRIx64 ", %#" PRIx64 ");\n\n", t, index, index);
	if (bound)
		say("\t\trcu_read_lock();\n\t\tentry = %s(&mas, %#" PRIx64
		    ");\n\t\trcu_read_unlock();\n",
		    fn, *bound);
	else
		say("\t\trcu_read_lock();\n\t\tentry = %s(&mas);\n\t\trcu_read_unlock();\n", fn);
	expect_entry(t, e, r, range_always);
}

static void *kt_step(void *t, uint64_t index, uint64_t bound, struct tree_range *r, bool prev)
{
	void *e = (call_begin(), prev ? tree_model.prev(t, index, bound, r)
				      : tree_model.next(t, index, bound, r));
	unsigned i = tix(t);

	call_end();
	read_at(i, index, prev ? "mas_prev" : "mas_next", &bound, e, r, false);
	/* the normal API's step must say the same (kmt_step) */
	say("\t\tMT_BUG_ON(&mt[%u], mt_%s(&mt[%u], %#" PRIx64 ", %#" PRIx64 ") != %s);\n", i,
	    prev ? "prev" : "next", i, index, bound, ENT(e));
	say("\t}\n");
	return e;
}

static void *kt_next(void *t, uint64_t index, uint64_t max, struct tree_range *r)
{
	return kt_step(t, index, max, r, false);
}

static void *kt_prev(void *t, uint64_t index, uint64_t min, struct tree_range *r)
{
	return kt_step(t, index, min, r, true);
}

static int kt_erase(void *t, uint64_t index, void **old)
{
	int err = (call_begin(), tree_model.erase(t, index, old));
	unsigned i = tix(t);

	call_end();
	after_call("an erase");
	say("\t{\n\t\tMA_STATE(mas, &mt[%u], %#" PRIx64 ", %#" PRIx64 ");\n\n", i, index, index);
	say("\t\tentry = mas_erase(&mas);\n");
	say("\t\tMT_BUG_ON(&mt[%u], mas_is_err(&mas));\n", i);
	say("\t\tMT_BUG_ON(&mt[%u], entry != %s);\n\t}\n", i, ENT(err ? NULL : *old));
	K.vars |= KV_ENTRY;
	wrote(i);
	return err;
}

static void *kt_load(void *t, uint64_t index, struct tree_range *r)
{
	void *e = (call_begin(), tree_model.load(t, index, r));
	unsigned i = tix(t);

	call_end();
	read_at(i, index, "mas_walk", NULL, e, r, true);
	say("\t}\n");
	return e;
}

static void *kt_find_either(void *t, uint64_t from, uint64_t bound, struct tree_range *r, bool rev)
{
	void *e = (call_begin(), rev ? tree_model.find_prev(t, from, bound, r)
				     : tree_model.find(t, from, bound, r));
	unsigned i = tix(t);

	call_end();
	if (rev ? from < bound : from > bound)
		return e; /* kmt_find and kmt_find_prev call nothing */
	read_at(i, from, rev ? "mas_find_rev" : "mas_find", &bound, e, r, false);
	say("\t}\n");
	return e;
}

static void *kt_find(void *t, uint64_t from, uint64_t max, struct tree_range *r)
{
	return kt_find_either(t, from, max, r, false);
}

static void *kt_find_prev(void *t, uint64_t from, uint64_t min, struct tree_range *r)
{
	return kt_find_either(t, from, min, r, true);
}

/*
 * The kernel's answer where the seam's differs (kmt_backend.c): a window
 * smaller than the size is the seam's -EBUSY and the kernel's -EINVAL
 * (mas_empty_area checks max - min < size - 1 first).
 */
static int kernel_gap_err(int err, uint64_t lo, uint64_t hi, uint64_t size)
{
	if (err == -EBUSY && size && lo <= hi && hi - lo < size - 1)
		return -EINVAL;
	return err;
}

static int kt_gap(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, uint64_t *start)
{
	int err = (call_begin(), tree_model.gap(t, lo, hi, size, highest, start));
	unsigned i = tix(t);

	call_end();
	say("\t{\n\t\tMA_STATE(mas, &mt[%u], 0, 0);\n\n", i);
	say("\t\trcu_read_lock();\n\t\tret = mas_empty_area%s(&mas, %#" PRIx64 ", %#" PRIx64
	    ", %#" PRIx64 ");\n\t\trcu_read_unlock();\n",
	    highest ? "_rev" : "", lo, hi, size);
	if (lo == hi && size == 1) {
		/* 6.1's searches want min < max and refuse a window of one index */
		say("\t\tMT_BUG_ON(&mt[%u], ret != %s && ret != -EINVAL);\n", i,
		    err ? "-EBUSY" : "0");
		if (!err)
			say("\t\tMT_BUG_ON(&mt[%u], !ret && mas.index != %#" PRIx64 ");\n", i,
			    *start);
		say("\t}\n");
		K.vars |= KV_RET;
		return err;
	}
	expect_ret(i, kernel_gap_err(err, lo, hi, size));
	if (!err)
		say("\t\tMT_BUG_ON(&mt[%u], mas.index != %#" PRIx64 ");\n", i, *start);
	say("\t}\n");
	return err;
}

/*
 * A walk's loop checks each entry visited against want<id> and the count
 * at the end; where the caller stopped the model's walk, the test's stops
 * there too.
 */
static void walk_tail(unsigned t, const struct kt_walk *w, const char *first, const char *last)
{
	say("\t\t\tMT_BUG_ON(&mt[%u], !vmafuzz_seen(want%u, %zu, i, %s, %s, entry));\n", t,
	    K.arrays, w->n, first, last);
	if (w->stopped)
		say("\t\t\tif (++i == %zu)\n\t\t\t\tbreak;\n", w->n);
	else
		say("\t\t\ti++;\n");
}

static void walk_either(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg,
			bool rcu)
{
	struct kt_walk w = {.visit = visit, .arg = arg};
	unsigned i = tix(t);

	call_begin();
	if (rcu)
		tree_model.rcu_walk(t, from, to, collect, &w);
	else
		tree_model.walk(t, from, to, collect, &w);
	call_end();
	if (from > to || quiet()) {
		walk_free(&w);
		return;
	}
	say("\t{\n");
	want_array(&w);
	say("\t\tMA_STATE(mas, &mt[%u], %#" PRIx64 ", %#" PRIx64 ");\n\n\t\ti = 0;\n", i, from,
	    from);
	if (rcu)
		say("\t\trcu_read_lock();\n");
	say("\t\tmas_for_each(&mas, entry, %#" PRIx64 ") {\n", to);
	walk_tail(i, &w, "mas.index", "mas.last");
	say("\t\t}\n");
	if (rcu)
		say("\t\trcu_read_unlock();\n");
	say("\t\tMT_BUG_ON(&mt[%u], i != %zu);\n\t}\n", i, w.n);
	K.vars |= KV_ENTRY | KV_I;
	walk_free(&w);
}

static void kt_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	walk_either(t, from, to, visit, arg, false);
}

static void kt_rcu_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	walk_either(t, from, to, visit, arg, true);
}

static int dup_either(void *src, void *dst, bool locked)
{
	int err =
	    (call_begin(), locked ? tree_model.dup_locked(src, dst) : tree_model.dup(src, dst));
	unsigned s = tix(src), d = tix(dst);

	call_end();
	after_call("a dup");
	say("\t{\n\t\tret = %s(&mt[%u], &mt[%u], GFP_KERNEL);\n", locked ? "mtree_dup" : "__mt_dup",
	    s, d);
	expect_ret(d, err);
	say("\t}\n");
	wrote(d);
	wrote(s); /* checked unchanged, as the target checks it */
	return err;
}

static int kt_dup(void *src, void *dst)
{
	return dup_either(src, dst, false);
}

static int kt_dup_locked(void *src, void *dst)
{
	return dup_either(src, dst, true);
}

/* A fork as the model made it: each parent entry, and what the child got
 * (NULL: dropped). */
struct kt_fork {
	const struct tree_fork_ops *ops;
	struct kt_walk parent;
	void **child;
	size_t cap;
};

static enum tree_fork_step kt_fork_entry(void *arg, const struct tree_range *r, void *e,
					 void **child)
{
	struct kt_fork *f = arg;
	enum tree_fork_step step = f->ops->entry(f->ops->arg, r, e, child);

	if (f->parent.n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->child = realloc(f->child, f->cap * sizeof(*f->child));
		if (!f->child) {
			fprintf(stderr, "vmafuzz repro: out of memory\n");
			exit(2);
		}
	}
	f->child[f->parent.n] = step == TREE_FORK_COPY ? *child : NULL;
	collect(&f->parent, r, e);
	if (step == TREE_FORK_FAIL)
		refuse("step %u: the fork fails at an entry, which the tree's harness cannot make "
		       "happen",
		       K.stepno[self()]);
	return step;
}

static bool kt_fork_copied(void *arg, const struct tree_range *r, void *child)
{
	struct kt_fork *f = arg;
	bool ok = f->ops->copied(f->ops->arg, r, child);

	if (!ok)
		refuse("step %u: the fork's page copy fails, which the tree's harness cannot make "
		       "happen",
		       K.stepno[self()]);
	return ok;
}

/*
 * dup_mmap's tree steps as kmt_fork makes them: __mt_dup, out of RCU mode,
 * then for_each_vma on the child's tree, each entry replaced in place by
 * the child's (vma_iter_bulk_store) or cleared (VM_DONTCOPY:
 * vma_iter_clear_gfp), back in RCU mode. The loop checks it is handed the
 * parent's entries in order, each once.
 */
static int kt_fork(void *src, void *dst, const struct tree_fork_ops *ops)
{
	struct kt_fork f = {.ops = ops};
	const struct tree_fork_ops wrap = {kt_fork_entry, kt_fork_copied, &f};
	int err = (call_begin(), tree_model.fork(src, dst, &wrap));
	unsigned s = tix(src), d = tix(dst);

	call_end();
	after_call("a fork");
	say("\t{\n");
	want_array(&f.parent);
	say("\t\tvoid *const child[] = {\n");
	for (size_t k = 0; k < f.parent.n; k++)
		say("\t\t\t%s,\n", ENT(f.child[k]));
	if (!f.parent.n)
		say("\t\t\tNULL,\n");
	say("\t\t};\n\t\tMA_STATE(mas, &mt[%u], 0, 0);\n\n", d);
	say("\t\tret = __mt_dup(&mt[%u], &mt[%u], GFP_KERNEL);\n", s, d);
	expect_ret(d, err);
	say("\t\tmt_clear_in_rcu(&mt[%u]);\n\t\ti = 0;\n", d);
	say("\t\twhile ((entry = mas_find(&mas, ULONG_MAX)) != NULL) {\n");
	say("\t\t\tindex = mas.index;\n\t\t\tlast = mas.last;\n");
	say("\t\t\tMT_BUG_ON(&mt[%u], !vmafuzz_seen(want%u, %zu, i, index, last, entry));\n", d,
	    K.arrays, f.parent.n);
	say("\t\t\tif (!child[i]) {\n\t\t\t\t__mas_set_range(&mas, index, last);\n"
	    "\t\t\t\tmas_store_gfp(&mas, NULL, GFP_KERNEL);\n"
	    "\t\t\t\tMT_BUG_ON(&mt[%u], mas_is_err(&mas));\n\t\t\t} else {\n"
	    "\t\t\t\tmas.index = index;\n\t\t\t\tmas.last = last;\n"
	    "\t\t\t\tmas_store(&mas, child[i]);\n\t\t\t}\n\t\t\ti++;\n\t\t}\n",
	    d);
	say("\t\tmas_destroy(&mas);\n\t\tmt_set_in_rcu(&mt[%u]);\n", d);
	say("\t\tMT_BUG_ON(&mt[%u], i != %zu);\n\t}\n", d, f.parent.n);
	K.vars |= KV_ENTRY | KV_RET | KV_I | KV_INDEX | KV_FIRST;
	wrote(d);
	wrote(s);
	walk_free(&f.parent);
	free(f.child);
	return err;
}

static void kt_fork_exit(void *t, tree_visit_fn visit, void *arg)
{
	tree_model.fork_exit(t, visit, arg);
}

/* as kmt_bulk_*: dup_mmap's bulk store of 6.4 to 6.7 */
static int kt_bulk_begin(void *t, uint64_t expected, void **bulk)
{
	int err = (call_begin(), tree_model.bulk_begin(t, expected, bulk));
	unsigned i = tix(t);

	call_end();
	after_call("a bulk load");
	K.bulk_tree = i;
	K.bulk_expected = expected;
	K.bulk_appended = 0;
	say("\t{\n\t\tMA_STATE(mas, &mt[%u], 0, 0);\n\n", i);
	say("\t\tmt_clear_in_rcu(&mt[%u]);\n\t\tret = mas_expected_entries(&mas, %" PRIu64 ");\n",
	    i, expected);
	expect_ret(i, err);
	if (err)
		say("\t\tmt_set_in_rcu(&mt[%u]);\n\t}\n", i);
	wrote(i);
	return err;
}

static int kt_bulk_append(void *bulk, uint64_t first, uint64_t last, void *entry)
{
	int err = (call_begin(), tree_model.bulk_append(bulk, first, last, entry));
	unsigned i = K.bulk_tree;

	call_end();
	after_call("a bulk append");
	if (K.bulk_appended++ >= K.bulk_expected)
		say("\t\tmas.mas_flags &= ~MA_STATE_PREALLOC;\n");
	wrote(i);
	say("\t\tmas.index = %#" PRIx64 ";\n\t\tmas.last = %#" PRIx64 ";\n", first, last);
	say("\t\tif (mas.mas_flags & MA_STATE_PREALLOC) {\n\t\t\tmas_store(&mas, %s);\n"
	    "\t\t\tret = mas_is_err(&mas) ? xa_err(mas.node) : 0;\n\t\t} else {\n"
	    "\t\t\tret = mas_store_gfp(&mas, %s, GFP_KERNEL);\n\t\t}\n",
	    ENT(entry), ENT(entry));
	expect_ret(i, err);
	return err;
}

static void kt_bulk_end(void *bulk)
{
	call_begin();
	tree_model.bulk_end(bulk);
	call_end();
	say("\t\tmas_destroy(&mas);\n\t\tmt_set_in_rcu(&mt[%u]);\n\t}\n", K.bulk_tree);
}

static void *kt_lookup(void *t, uint64_t index)
{
	void *e = (call_begin(), tree_model.lookup(t, index));
	unsigned i = tix(t);

	call_end();
	say("\t{\n\t\tentry = mtree_load(&mt[%u], %#" PRIx64 ");\n", i, index);
	say("\t\tMT_BUG_ON(&mt[%u], entry != %s);\n\t}\n", i, ENT(e));
	K.vars |= KV_ENTRY;
	return e;
}

static void *kt_erase_locked(void *t, uint64_t index)
{
	void *e = (call_begin(), tree_model.erase_locked(t, index));
	unsigned i = tix(t);

	call_end();
	after_call("an erase");
	say("\t{\n\t\tentry = mtree_erase(&mt[%u], %#" PRIx64 ");\n", i, index);
	say("\t\tMT_BUG_ON(&mt[%u], entry != %s);\n\t}\n", i, ENT(e));
	K.vars |= KV_ENTRY;
	wrote(i);
	return e;
}

static void kt_destroy_locked(void *t)
{
	call_begin();
	tree_model.destroy_locked(t);
	destroyed(t, true);
	call_end();
}

/* walk_by's loops, as kmt_walk_by makes them */
static void walk_by_paused(unsigned i, uint64_t from, uint64_t to, bool rev,
			   const struct kt_walk *w)
{
	say("\t\tMA_STATE(mas, &mt[%u], %#" PRIx64 ", %#" PRIx64 ");\n\n", i, rev ? to : from,
	    rev ? to : from);
	say("\t\tfor (i = 0;;) {\n\t\t\trcu_read_lock();\n");
	say("\t\t\tentry = mas_find%s(&mas, %#" PRIx64 ");\n", rev ? "_rev" : "", rev ? from : to);
	say("\t\t\tindex = mas.index;\n\t\t\tlast = mas.last;\n");
	say("\t\t\tmas_pause(&mas);\n\t\t\trcu_read_unlock();\n\t\t\tif "
	    "(!entry)\n\t\t\t\tbreak;\n");
	walk_tail(i, w, "index", "last");
	say("\t\t}\n");
	K.vars |= KV_INDEX | KV_FIRST;
}

static void walk_by_find(unsigned i, uint64_t from, uint64_t to, const struct kt_walk *w)
{
	say("\t\tindex = %#" PRIx64 ";\n\t\tstart = index;\n\t\ti = 0;\n", from);
	say("\t\tfor (entry = mt_find(&mt[%u], &index, %#" PRIx64 "); entry;\n"
	    "\t\t     entry = mt_find_after(&mt[%u], &index, %#" PRIx64 ")) {\n",
	    i, to, i, to);
	walk_tail(i, w, "start", "index - 1");
	say("\t\t\tstart = index;\n\t\t}\n");
	K.vars |= KV_INDEX | KV_START;
}

/*
 * Range walks are judged as the kernel target judges them: the two trees
 * cut an empty run into pieces differently, so the test checks the entries
 * (want<id> holds only those) and that the pieces follow each other (the
 * first may begin past the window's start: an empty range holding it is
 * passed over). `start` counts the pieces.
 */
static void walk_by_ranges(unsigned i, uint64_t from, uint64_t to, bool rev,
			   const struct kt_walk *ents)
{
	say("\t\tMA_STATE(mas, &mt[%u], %#" PRIx64 ", %#" PRIx64 ");\n\n", i, rev ? to : from,
	    rev ? to : from);
	say("\t\tindex = %#" PRIx64 ";\n\t\tstart = 0;\n\t\ti = 0;\n\t\trcu_read_lock();\n"
	    "\t\tfor (;;) {\n",
	    rev ? to : from);
	say("\t\t\tentry = mas_find_range%s(&mas, %#" PRIx64 ");\n", rev ? "_rev" : "",
	    rev ? from : to);
	say("\t\t\tif (!entry && !mas_is_active(&mas))\n\t\t\t\tbreak;\n");
	if (rev) {
		say("\t\t\tif (!entry && mas.index <= %#" PRIx64 ")\n\t\t\t\tbreak;\n", from);
		say("\t\t\tMT_BUG_ON(&mt[%u], start && mas.last != index);\n", i);
	} else {
		say("\t\t\tif (!entry && mas.last >= %#" PRIx64 ")\n\t\t\t\tbreak;\n", to);
		say("\t\t\tMT_BUG_ON(&mt[%u], start && mas.index != index);\n", i);
	}
	say("\t\t\tstart++;\n\t\t\tif (entry) {\n");
	say("\t\t\t\tMT_BUG_ON(&mt[%u], !vmafuzz_seen(want%u, %zu, i, mas.index, mas.last, "
	    "entry));\n\t\t\t\ti++;\n\t\t\t}\n",
	    i, K.arrays, ents->n);
	if (rev)
		say("\t\t\tif (mas.index <= %#" PRIx64 ")\n\t\t\t\tbreak;\n\t\t\tindex = "
		    "mas.index - 1;\n",
		    from);
	else
		say("\t\t\tif (mas.last >= %#" PRIx64 ")\n\t\t\t\tbreak;\n\t\t\tindex = "
		    "mas.last + 1;\n",
		    to);
	say("\t\t}\n\t\trcu_read_unlock();\n");
	K.vars |= KV_INDEX | KV_START;
}

static void kt_walk_by(void *t, uint64_t from, uint64_t to, enum tree_walk_way how,
		       tree_visit_fn visit, void *arg)
{
	struct kt_walk w = {.visit = visit, .arg = arg}, ents = {0};
	bool ranges = how == TREE_WALK_RANGES || how == TREE_WALK_RANGES_REV;
	bool rev = how == TREE_WALK_PAUSED_REV || how == TREE_WALK_RANGES_REV;
	unsigned i = tix(t);

	call_begin();
	tree_model.walk_by(t, from, to, how, collect, &w);
	call_end();
	if (from > to || quiet()) {
		walk_free(&w);
		return;
	}
	if (ranges) {
		/* the entries alone, and whether the caller stopped at one */
		for (size_t k = 0; k < w.n; k++)
			if (w.e[k]) {
				struct tree_range r = w.r[k];

				collect(&ents, &r, w.e[k]);
			}
		ents.stopped = false;
	}
	say("\t{\n");
	want_array(ranges ? &ents : &w);
	if (how == TREE_WALK_FIND) {
		walk_by_find(i, from, to, &w);
	} else if (!ranges) {
		walk_by_paused(i, from, to, rev, &w);
	} else {
		walk_by_ranges(i, from, to, rev, &ents);
	}
	say("\t\tMT_BUG_ON(&mt[%u], i != %zu);\n\t}\n", i, ranges ? ents.n : w.n);
	K.vars |= KV_ENTRY | KV_I;
	walk_free(&w);
	walk_free(&ents);
}

static bool kt_validate(void *t)
{
	return tree_model.validate(t);
}

static const struct tree_backend *kt_backend(const struct ktest_caps *c)
{
	static struct tree_backend b;

	b = tree_model;
	b.name = "ktest";
	b.create = kt_create;
	b.clear = kt_clear;
	b.release = kt_release;
	b.store = kt_store;
	b.store_path = kt_store_path;
	b.insert = kt_insert;
	b.alloc = c->alloc ? kt_alloc : NULL;
	b.alloc_cyclic = c->alloc_cyclic ? kt_alloc_cyclic : NULL;
	b.next = kt_next;
	b.prev = kt_prev;
	b.erase = kt_erase;
	b.load = kt_load;
	b.find = kt_find;
	b.find_prev = kt_find_prev;
	b.gap = kt_gap;
	b.walk = kt_walk;
	b.rcu_walk = kt_rcu_walk;
	b.dup = c->dup ? kt_dup : NULL;
	b.fork = c->dup ? kt_fork : NULL;
	b.fork_exit = c->dup ? kt_fork_exit : NULL;
	b.bulk_begin = c->bulk ? kt_bulk_begin : NULL;
	b.bulk_append = c->bulk ? kt_bulk_append : NULL;
	b.bulk_end = c->bulk ? kt_bulk_end : NULL;
	b.lookup = kt_lookup;
	b.erase_locked = kt_erase_locked;
	b.destroy_locked = kt_destroy_locked;
	b.dup_locked = c->mtree_dup ? kt_dup_locked : NULL;
	b.walk_by = kt_walk_by;
	b.walk_ways = (1u << TREE_WALK_PAUSED) | (1u << TREE_WALK_PAUSED_REV) |
		      (1u << TREE_WALK_FIND) |
		      (c->find_range ? (1u << TREE_WALK_RANGES) | (1u << TREE_WALK_RANGES_REV) : 0);
	b.validate = kt_validate;
	return &b;
}

/* ---- the file ------------------------------------------------------------ */

/* The helpers every test of this kind shares, once per file they are
 * pasted into. */
static const char helpers[] =
    "#ifndef VMAFUZZ_KTEST_HELPERS\n"
    "#define VMAFUZZ_KTEST_HELPERS\n"
    "struct vmafuzz_range {\n"
    "\tunsigned long first, last;\n"
    "\tvoid *entry;\n"
    "};\n"
    "\n"
    "/* Entry @i of a walk is want[@i], and there are @n. */\n"
    "static bool vmafuzz_seen(const struct vmafuzz_range *want, unsigned int n,\n"
    "\t\t\t unsigned int i, unsigned long first, unsigned long last,\n"
    "\t\t\t void *entry)\n"
    "{\n"
    "\treturn i < n && want[i].first == first && want[i].last == last &&\n"
    "\t       want[i].entry == entry;\n"
    "}\n"
    "\n"
    "/* The tree is valid and holds the @n ranges of @want, no more. */\n"
    "static void vmafuzz_check(struct maple_tree *mt,\n"
    "\t\t\t  const struct vmafuzz_range *want, unsigned int n)\n"
    "{\n"
    "\tMA_STATE(mas, mt, 0, 0);\n"
    "\tunsigned int i = 0;\n"
    "\tvoid *entry;\n"
    "\n"
    "\trcu_read_lock();\n"
    "\tmt_validate(mt);\n"
    "\tmas_for_each(&mas, entry, ULONG_MAX) {\n"
    "\t\tMT_BUG_ON(mt, !vmafuzz_seen(want, n, i, mas.index, mas.last,\n"
    "\t\t\t\t\t     entry));\n"
    "\t\ti++;\n"
    "\t}\n"
    "\trcu_read_unlock();\n"
    "\tMT_BUG_ON(mt, i != n);\n"
    "}\n"
    "#endif\n";

static void declare(FILE *out)
{
	static const struct {
		unsigned bit;
		const char *decl;
	} vars[] = {
	    {KV_FIRST, "\tunsigned long last;\n"},  {KV_INDEX, "\tunsigned long index;\n"},
	    {KV_START, "\tunsigned long start;\n"}, {KV_AT, "\tunsigned long at;\n"},
	    {KV_NEXT, "\tunsigned long next;\n"},   {KV_I, "\tunsigned int i;\n"},
	    {KV_ENTRY, "\tvoid *entry;\n"},	    {KV_RET, "\tint ret;\n"},
	};

	fprintf(out, "\tstruct maple_tree mt[%d];\n", KT_TREES);
	for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++)
		if (K.vars & vars[k].bit)
			fputs(vars[k].decl, out);
	fputs("\tunsigned int t;\n", out);
}

bool ktest_mtree_write(FILE *out, const uint8_t *data, size_t size, const char *name,
		       const char *comment, const char *tree_name, const struct ktest_caps *caps,
		       char *why, size_t whylen)
{
	const struct mtree_watch w = {watch_step, watch_check, NULL};
	char *text = NULL;

	memset(&K, 0, sizeof(K));
	K.caps = caps;
	K.in_call = -1;
	K.commented = -1;
	if (!ktest_begin_recording(&K.body, &K.buf, &K.len, why, whylen))
		return false;
	mtree_run_watched(kt_backend(caps), data, size, &w);
	if (!ktest_end_recording(&K.no, K.body, &K.buf, "the kernel's tree", why, whylen))
		return false;
	text = ktest_program_text(&mtree_desc, data, size);
	ktest_put_head(out, name, "maple tree", "kfuzz_mtree", tree_name, comment,
		       "fuzz_mtree's operations", text);
	if (K.fibers & (K.fibers - 1)) {
		fprintf(out, " *\n * Several threads call the tree: the test makes their calls in\n"
			     " * the order they ran against the model. The kernel run passes\n"
			     " * more scheduling points (every RCU read), so its order may\n"
			     " * have been another.\n");
		fprintf(stderr,
			"vmafuzz repro: note: several threads call the tree; the test makes "
			"their calls in the order they ran against the model, which may not "
			"be the kernel run's\n");
	}
	fprintf(out,
		" *\n"
		" * Each MT_BUG_ON holds what vmafuzz's model of the tree answered;\n"
		" * vmafuzz_check() validates a tree and compares its whole contents after\n"
		" * each step that wrote to it. To run it, paste this file into\n"
		" * tools/testing/radix-tree/maple.c above maple_tree_tests(), call\n"
		" * %s() from there (first, or from regression_tests()), and\n"
		" * make -C tools/testing/radix-tree maple && tools/testing/radix-tree/maple\n"
		" */\n",
		name);
	fputs(helpers, out);
	fprintf(out, "\nstatic void %s(void)\n{\n", name);
	declare(out);
	/* the trees' spinlocks zeroed (an external lock's tree does not
	 * initialise it, and the normal API takes it), and non-blocking node
	 * allocations left to succeed, as in the kernel target */
	fprintf(out,
		"\n\tmemset(mt, 0, sizeof(mt));\n\tfor (t = 0; t < %d; t++)\n"
		"\t\tmt_init_flags(&mt[t], %s);\n\tmt_set_non_kernel(100000);\n",
		KT_TREES, KT_FLAGS);
	fwrite(K.buf, 1, K.len, out);
	fprintf(out,
		"\n\tfor (t = 0; t < %d; t++)\n\t\t__mt_destroy(&mt[t]);\n"
		"\tmt_set_non_kernel(0);\n}\n",
		KT_TREES);
	free(K.buf);
	free(text);
	return !ferror(out);
}
