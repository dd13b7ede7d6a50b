/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_mtree: the range tree against its reference map.
 *
 * Four trees, each shadowed by a reference map. Operations name a tree and
 * a range spec (prog.h) resolved against that tree's entries and empty
 * ranges, so most writes land on something. Any operation may carry
 * fail_at=N: the Nth allocation inside it fails, and the operation must
 * then fail with -ENOMEM and leave its tree exactly as it was (libxml2's
 * api fuzzer checks its calls the same way).
 *
 * Up to four threads (fibers, sched.h) run the operations, interleaved by
 * the program's schedule bytes. Writers take the tree's lock for write and
 * ordinary readers for read; rcu_walk readers take no lock at all, only
 * rcu_read_lock, and walk the tree (in RCU mode) while writers change it.
 * Every index such a reader sees must hold what the index held when the
 * reader started or what a write during the walk put there, and every
 * range that no write touched during the walk must be seen exactly once.
 *
 * fork runs dup_mmap's tree steps from one tree into another: the copy,
 * then each entry dropped (VM_DONTCOPY) or replaced by the child's, and on
 * a failure the marker where the copy stopped and exit_mmap's teardown.
 *
 * The rest of a kernel caller's API (write paths, insert, alloc, cyclic
 * alloc, bounded searches, the normal API's mtree_* calls, paused and
 * range walks) has an operation each, judged by the reference map; a
 * backend without the call skips the step.
 *
 * After every operation every tree is validated, compared with its map, and
 * the live tree nodes must be exactly the nodes reachable from the trees or
 * waiting for an RCU grace period. At the end all trees are destroyed and
 * nothing may be left alive.
 */
#include "exec.h"
#include "fuzz/tree/mtref.h"
#include "fuzz/tree/mtref_rcu.h"
#include "fuzz/tree/tree_backend.h"
#include "fuzz/tree/tree_check.h"
#include "mtree_run.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "target.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NTREES 4

struct mtree_state {
	const struct tree_backend *b;
	void *mt[NTREES]; /* the backend's trees */
	struct mtref ref[NTREES];
	struct rwsem lock[NTREES];
	struct mtref_log log[NTREES]; /* what writers stored: the RCU readers' oracle */
	unsigned readers[NTREES];     /* RCU walks of the tree under way */
	unsigned named;		      /* trees named by steps since the last check */
	unsigned active[NTREES];      /* steps naming the tree under way */
	uint64_t nodes[NTREES];	      /* each tree's nodes at its last check */
	uint64_t cyc_next[NTREES];    /* alloc_cyclic: the caller's next index */
	bool cyc_wrapped[NTREES];     /* and whether it wrapped (the kernel's flag) */
};

enum {
	OP_STORE,
	OP_ERASE,
	OP_ERASE_AT,
	OP_LOAD,
	OP_FIND,
	OP_WALK,
	OP_GAP,
	OP_DUP,
	OP_BULK,
	OP_DESTROY,
	OP_RCU_WALK,
	OP_FORK,
	OP_WRITE,
	OP_INSERT,
	OP_ALLOC,
	OP_ALLOC_CYCLIC,
	OP_FIND_IN,
	OP_EMPTY_AREA,
	OP_LOOKUP,
	OP_ERASE_LOCKED,
	OP_DESTROY_LOCKED,
	OP_DUP_LOCKED,
	OP_WALK_BY,
	OP_NR
};

/* An operation's arguments, by name (prog_decode_args fills them). */
struct mtree_args {
	uint8_t tree;		 /* mt<k> */
	struct range_spec range; /* resolved against the tree's map */
	uint8_t value;		 /* store: v<n> */
	uint8_t n;		 /* gap: size; bulk: count */
	uint8_t dir;		 /* gap: low or high; alloc, empty_area: bit 1 swaps the bounds */
	uint8_t other;		 /* dup, fork: the destination tree */
	uint8_t dontcopy;	 /* fork: entry i is VM_DONTCOPY if bit i % 8 is set */
	uint8_t path;		 /* write: enum tree_write_path */
	uint8_t erase;		 /* write: NULL instead of the value */
	uint8_t then;		 /* write, erase_locked, dup_locked: after fail_at, these
				    allocations fail too */
	uint8_t sz;		 /* alloc, empty_area: how n gives the size */
	uint8_t how;		 /* find_in: enum mtref_find, bit 2 swaps the bounds */
	uint8_t way;		 /* walk_by: enum tree_walk_way */
};

#define MT_ARG(kind, prefix, max, names, field)                                                    \
	{                                                                                          \
		kind, prefix, max, names, #field, offsetof(struct mtree_args, field)               \
	}
#define F_TREE MT_ARG(FK_SEL, "mt", NTREES, NULL, tree)
#define F_RANGE MT_ARG(FK_RANGE, NULL, 0, NULL, range)

static const char *const gap_dirs[] = {"low", "high", NULL};
static const char *const write_paths[] = {"prealloc", "gfp", "nowait", "locked", NULL};
static const char *const write_what[] = {"entry", "null", NULL};
/* a size from n: n itself (0 included), ULONG_MAX - n, the window's
 * length - n or + n (a window of every index has length 0) */
static const char *const size_kinds[] = {"n", "max-n", "win-n", "win+n", NULL};
static const char *const area_dirs[] = {"low", "high", "low-desc", "high-desc", NULL};
/* the range's first index and last, as index and bound; _x: swapped */
static const char *const find_hows[] = {"find",	      "find_rev", "next",   "prev", "find_x",
					"find_rev_x", "next_x",	  "prev_x", NULL};
/* enum tree_walk_way */
static const char *const walk_ways[] = {"paused", "paused_rev", "mt_find",
					"ranges", "ranges_rev", NULL};
#define F_SIZE MT_ARG(FK_U8, "n=", 0, NULL, n), MT_ARG(FK_CHOICE, NULL, 0, size_kinds, sz)
#define F_THEN MT_ARG(FK_U8, "then=", 0, NULL, then)

static const struct prog_opdesc mtree_ops[OP_NR] = {
    [OP_STORE] = {"store",
		  "map the range to value v<n>",
		  3,
		  {F_TREE, F_RANGE, MT_ARG(FK_U8, "v", 0, NULL, value)}},
    [OP_ERASE] = {"erase", "store nothing over the range", 2, {F_TREE, F_RANGE}},
    [OP_ERASE_AT] = {"erase_at", "erase the whole range holding the start", 2, {F_TREE, F_RANGE}},
    [OP_LOAD] = {"load", "load at the start, with the range that holds it", 2, {F_TREE, F_RANGE}},
    [OP_FIND] = {"find", "find next and previous entries from the start", 2, {F_TREE, F_RANGE}},
    [OP_WALK] = {"walk", "walk entries with a cursor across the range", 2, {F_TREE, F_RANGE}},
    [OP_GAP] = {"gap",
		"search the range for n=<size> empty indices (n=0: huge)",
		4,
		{F_TREE, F_RANGE, MT_ARG(FK_U8, "n=", 0, NULL, n),
		 MT_ARG(FK_CHOICE, NULL, 0, gap_dirs, dir)}},
    [OP_DUP] = {"dup",
		"duplicate a tree into another (emptied first; same: next)",
		2,
		{F_TREE, MT_ARG(FK_SEL, "mt", NTREES, NULL, other)}},
    [OP_BULK] = {"bulk",
		 "rebuild by appending n=<count> entries from the range's start",
		 3,
		 {F_TREE, F_RANGE, MT_ARG(FK_U8, "n=", 0, NULL, n)}},
    [OP_DESTROY] = {"destroy", "free every node of the tree", 1, {F_TREE}},
    [OP_RCU_WALK] = {"rcu_walk",
		     "walk the range under RCU alone, without the tree's lock",
		     2,
		     {F_TREE, F_RANGE}},
    [OP_FORK] = {"fork",
		 "dup_mmap's tree steps into another tree (same: next); entry i is "
		 "VM_DONTCOPY if bit i%8 of dontcopy=<mask> is set",
		 3,
		 {F_TREE, MT_ARG(FK_SEL, "mt", NTREES, NULL, other),
		  MT_ARG(FK_U8, "dontcopy=", 0, NULL, dontcopy)}},
    [OP_WRITE] = {"write",
		  "store v<n> (or null) over the range by a kernel caller's path; after "
		  "fail_at, bit i of then=<mask> fails the (i+1)th allocation after it too",
		  6,
		  {F_TREE, F_RANGE, MT_ARG(FK_U8, "v", 0, NULL, value),
		   MT_ARG(FK_CHOICE, NULL, 0, write_paths, path),
		   MT_ARG(FK_CHOICE, NULL, 0, write_what, erase), F_THEN}},
    [OP_INSERT] = {"insert",
		   "store v<n> over the range unless an entry meets it (-EEXIST)",
		   3,
		   {F_TREE, F_RANGE, MT_ARG(FK_U8, "v", 0, NULL, value)}},
    [OP_ALLOC] = {"alloc",
		  "store v<n> over the lowest (high: highest) empty run of the size in the "
		  "range (-desc: its ends swapped)",
		  6,
		  {F_TREE, F_RANGE, F_SIZE, MT_ARG(FK_CHOICE, NULL, 0, area_dirs, dir),
		   MT_ARG(FK_U8, "v", 0, NULL, value)}},
    [OP_ALLOC_CYCLIC] = {"alloc_cyclic",
			 "store v<n> at the tree's next free index in the range, cyclically",
			 3,
			 {F_TREE, F_RANGE, MT_ARG(FK_U8, "v", 0, NULL, value)}},
    [OP_FIND_IN] = {"find_in",
		    "find, find_rev, next or prev with the range's ends as index and bound",
		    3,
		    {F_TREE, F_RANGE, MT_ARG(FK_CHOICE, NULL, 0, find_hows, how)}},
    [OP_EMPTY_AREA] = {"empty_area",
		       "search the range for an empty run of any size (-desc: its ends "
		       "swapped), its errors checked",
		       5,
		       {F_TREE, F_RANGE, F_SIZE, MT_ARG(FK_CHOICE, NULL, 0, area_dirs, dir)}},
    [OP_LOOKUP] = {"lookup",
		   "load at the start by the normal API (mtree_load: the zero entry reads as none)",
		   2,
		   {F_TREE, F_RANGE}},
    [OP_ERASE_LOCKED] = {"erase_locked",
			 "erase the range holding the start by the normal API (mtree_erase), "
			 "which cannot say it failed; then=<mask> as write's",
			 3,
			 {F_TREE, F_RANGE, F_THEN}},
    [OP_DESTROY_LOCKED] = {"destroy_locked",
			   "free every node of the tree by the normal API (mtree_destroy)",
			   1,
			   {F_TREE}},
    [OP_DUP_LOCKED] = {"dup_locked",
		       "dup by the normal API (mtree_dup, taking both trees' locks); then=<mask> "
		       "as write's",
		       3,
		       {F_TREE, MT_ARG(FK_SEL, "mt", NTREES, NULL, other), F_THEN}},
    [OP_WALK_BY] = {"walk_by",
		    "walk the range paused after each entry (forward or back), by mt_find, or "
		    "range by range, empty ones too (forward or back)",
		    3,
		    {F_TREE, F_RANGE, MT_ARG(FK_CHOICE, NULL, 0, walk_ways, way)}},
};

static const char *const mtree_config[] = {NULL};

const struct prog_desc mtree_desc = {
    .target = "fuzz_mtree",
    .nops = OP_NR,
    .ops = mtree_ops,
    .config_names = mtree_config,
    .nfibers = PROG_FIBERS,
    .args_size = sizeof(struct mtree_args),
};

/* Entries are tagged values, never NULL and never reserved. */
static void *val(unsigned v)
{
	return (void *)(uintptr_t)((uintptr_t)(v + 1) << 2 | 1);
}

/* A fork's child gets the parent's value with this bit flipped: an entry
 * the fork failed to replace shows. */
#define CHILD_TAG ((uintptr_t)1 << 20)

static void *child_of(const void *e)
{
	return (void *)((uintptr_t)e ^ CHILD_TAG);
}

static void print_val(FILE *out, const void *e)
{
	uintptr_t v = (uintptr_t)e;

	if ((v & 3) == 2)
		fprintf(out, "zero");
	else
		fprintf(out, "%s%u", v & CHILD_TAG ? "c" : "v",
			(unsigned)((v & ~CHILD_TAG) >> 2) - 1);
}

static uint64_t add_clamped(uint64_t base, int64_t d)
{
	if (d < 0)
		return base < (uint64_t)-d ? 0 : base - (uint64_t)-d;
	return TREE_MAX - base < (uint64_t)d ? TREE_MAX : base + (uint64_t)d;
}

/* Resolve a range spec against a tree's map: most specs hit an entry or a gap. */
static void resolve(const struct mtref *ref, const struct range_spec *rs, uint64_t *first,
		    uint64_t *last)
{
	struct tree_range r;
	uint64_t start = 0;

	switch (rs->mode) {
	case RS_ENTRY:
		if (ref->n) {
			const struct mtref_range *e = &ref->v[rs->k % ref->n];

			start = add_clamped(e->first, rs->d);
		} else {
			start = rs->k;
		}
		break;
	case RS_GAP: {
		size_t gaps = mtref_gaps(ref);

		if (gaps) {
			mtref_gap_at(ref, rs->k % gaps, &r);
			start = add_clamped(r.first, rs->d);
		} else {
			start = rs->k;
		}
		break;
	}
	case RS_RAW:
		start = rs->v;
		break;
	case RS_TOP:
		start = TREE_MAX - rs->v;
		break;
	}
	*first = start;
	if (rs->len) {
		*last = add_clamped(start, rs->len - 1);
	} else {
		mtref_range_of(ref, start, &r);
		*last = r.last;
	}
}

/*
 * Every change of a tree's contents goes through these, map and log alike.
 * A reader reads only the log written while it walks, so with no reader of
 * the tree under way nothing is written to it (it is emptied when the last
 * reader leaves): most programs have no reader at most steps, and the log
 * of every store was most of the bytes a program wrote.
 */
static void ref_log(struct mtree_state *s, unsigned t, uint64_t first, uint64_t last, void *entry)
{
	if (s->readers[t])
		mtref_log_add(&s->log[t], first, last, entry);
}

static void ref_store(struct mtree_state *s, unsigned t, uint64_t first, uint64_t last, void *entry)
{
	mtref_store(&s->ref[t], first, last, entry);
	ref_log(s, t, first, last, entry);
}

static void ref_copy(struct mtree_state *s, unsigned dst, unsigned src)
{
	mtref_set(&s->ref[dst], &s->ref[src]);
	for (size_t i = 0; s->readers[dst] && i < s->ref[src].n; i++) {
		const struct mtref_range *r = &s->ref[src].v[i];

		mtref_log_add(&s->log[dst], r->first, r->last, r->entry);
	}
}

/* The tree was emptied: so are its map and its allocator's state. */
static void ref_cleared(struct mtree_state *s, unsigned t)
{
	s->cyc_next[t] = 0; /* a new tree, a new allocator */
	s->cyc_wrapped[t] = false;
	mtref_clear(&s->ref[t]);
	ref_log(s, t, 0, TREE_MAX, NULL);
}

static void tree_clear(struct mtree_state *s, unsigned t)
{
	s->b->clear(s->mt[t]);
	ref_cleared(s, t);
}

/*
 * The picture a failed write must leave (tree_check_write): only a write
 * whose allocation failed is compared with it, and only fail_at fails one,
 * so a write without fail_at takes none.
 */
static void picture_before(struct mtree_state *s, const struct prog_op *op, unsigned t,
			   struct tree_picture *before)
{
	if (op->fail_at)
		s->b->picture(s->mt[t], before);
}

/* A write under fail_at: fails with -ENOMEM and changes nothing, or succeeds. */
static void write_op(struct mtree_state *s, const struct prog_op *op, unsigned t, uint64_t first,
		     uint64_t last, void *entry)
{
	struct tree_picture before = {NULL, 0, 0};
	bool fired;
	int err;

	picture_before(s, op, t, &before);
	exec_arm(op);
	err = s->b->store(s->mt[t], first, last, entry);
	fired = exec_disarm();
	tree_check_write(s->b, s->mt[t], &before, err, fired, 0, entry ? "store" : "erase");
	if (!fired || !err) /* a retrying backend may succeed after its failure */
		ref_store(s, t, first, last, entry);
	tree_picture_free(&before);
}

static void op_erase_at(struct mtree_state *s, const struct prog_op *op, unsigned t, uint64_t index)
{
	struct tree_range r;
	void *want = mtref_range_of(&s->ref[t], index, &r), *old = NULL;
	struct tree_picture before = {NULL, 0, 0};
	bool fired;
	int err;

	picture_before(s, op, t, &before);
	exec_arm(op);
	err = s->b->erase(s->mt[t], index, &old);
	fired = exec_disarm();
	tree_check_write(s->b, s->mt[t], &before, err, fired, 0, "erase_at");
	if (old != want)
		check_fail(CK_MT_OP_RESULT, "erase at %#" PRIx64 " found %p, the map holds %p",
			   index, old, want);
	if ((!fired || !err) && want)
		ref_store(s, t, r.first, r.last, NULL);
	tree_picture_free(&before);
}

/* dup's and fork's destination: another tree than the source. */
static unsigned other_tree(const struct mtree_args *a)
{
	return a->other == a->tree ? (a->other + 1) % NTREES : a->other;
}

/* Two locks of one class: in tree order, the second nested. */
static void lock_two(struct mtree_state *s, unsigned a, unsigned b)
{
	down_write(&s->lock[a < b ? a : b]);
	down_write_nested(&s->lock[a < b ? b : a], 1);
}

static void unlock_two(struct mtree_state *s, unsigned a, unsigned b)
{
	up_write(&s->lock[a < b ? b : a]);
	up_write(&s->lock[a < b ? a : b]);
}

/* dup, or dup_locked (the normal API's, with then=) when @locked. */
static void op_dup(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		   bool locked)
{
	unsigned src = a->tree, dst = other_tree(a);
	struct tree_picture before = {NULL, 0, 0}, empty = {NULL, 0, 0};
	int (*dup)(void *src, void *dst) = locked ? s->b->dup_locked : s->b->dup;
	const char *what = locked ? "dup_locked" : "dup";
	bool fired;
	int err;

	if (!dup)
		return; /* a backend without dup (kernel trees before 6.8) */
	lock_two(s, src, dst);
	tree_clear(s, dst);
	s->b->picture(s->mt[src], &before);
	picture_before(s, op, dst, &empty);
	alloc_fail_arm_then(op->fail_at, locked ? a->then : 0);
	err = dup(s->mt[src], s->mt[dst]);
	fired = exec_disarm();
	tree_check_unchanged(s->b, s->mt[src], &before, CK_MT_DUP_SOURCE_CHANGED, what);
	/* a failed dup leaves the destination empty */
	tree_check_write(s->b, s->mt[dst], &empty, err, fired, 0, what);
	if (!fired || !err) {
		s->b->check_dup(s->mt[src], s->mt[dst]);
		ref_copy(s, dst, src);
	}
	tree_picture_free(&before);
	tree_picture_free(&empty);
	unlock_two(s, src, dst);
}

/*
 * fork: dup_mmap's tree steps (tree_backend.h fork), the backend calling
 * back per entry as dup_mmap handles each VMA. The answers are this file's:
 * VM_DONTCOPY by the mask, and the two allocations of a copied VMA outside
 * the tree, vm_area_dup before its store and copy_page_range after it,
 * counted by fail_at like the tree's own (alloc_fail_next), so that fail_at
 * stops a fork at a dup, an erase, or either allocation of any entry.
 */
#define FORK_NONE SIZE_MAX

struct fork_run {
	struct mtree_state *s;
	unsigned src, dst;
	uint8_t dontcopy;
	size_t i;		  /* entries handed over so far */
	size_t stop;		  /* the entry an answer failed, or FORK_NONE */
	bool pages_failed;	  /* that failure was copy_page_range's */
	enum tree_fork_step last; /* the answer for the last entry */
	uint64_t allocs;	  /* allocations of the step when a copy was answered */
};

static bool fork_dropped(const struct fork_run *f, size_t k)
{
	return (f->dontcopy >> (k % 8)) & 1;
}

static enum tree_fork_step fork_entry(void *arg, const struct tree_range *r, void *e, void **child)
{
	struct fork_run *f = arg;
	const struct mtref *src = &f->s->ref[f->src];
	size_t k = f->i++;

	if (f->stop != FORK_NONE)
		check_fail(CK_MT_OP_RESULT, "fork went on to entry %zu after entry %zu failed", k,
			   f->stop);
	if (k >= src->n || src->v[k].first != r->first || src->v[k].last != r->last ||
	    src->v[k].entry != e) {
		check_fail(CK_MT_WALK,
			   "fork's entry %zu is [%#" PRIx64 ", %#" PRIx64 "] -> %p, not the "
			   "source's (%zu entries)",
			   k, r->first, r->last, e, src->n);
		f->stop = k;
		return f->last = TREE_FORK_FAIL;
	}
	if (fork_dropped(f, k))
		return f->last = TREE_FORK_DROP;
	if (alloc_fail_next(AK_VMA)) { /* vm_area_dup */
		f->stop = k;
		return f->last = TREE_FORK_FAIL;
	}
	*child = child_of(e);
	f->allocs = alloc_since_arm();
	return f->last = TREE_FORK_COPY;
}

static bool fork_copied(void *arg, const struct tree_range *r, void *child)
{
	struct fork_run *f = arg;

	/* dup_mmap ignores the store's result: it must not need memory */
	if (alloc_since_arm() != f->allocs)
		check_fail(CK_MT_OP_RESULT,
			   "replacing entry %zu [%#" PRIx64 ", %#" PRIx64 "] by %p allocated",
			   f->i - 1, r->first, r->last, child);
	if (alloc_fail_next(AK_PGTABLE)) { /* copy_page_range */
		f->stop = f->i - 1;
		f->pages_failed = true;
		return false;
	}
	return true;
}

/* The result of a fork against the answers it was given. */
static void fork_judge(const struct fork_run *f, int err, bool fired)
{
	const struct mtree_state *s = f->s;

	if (!err) {
		if (f->stop != FORK_NONE)
			check_fail(CK_MT_OP_RESULT, "fork returned 0, entry %zu failed", f->stop);
		else if (fired && !s->b->retries)
			check_fail(CK_MT_OP_RESULT, "fork returned 0 after its allocation failed");
		else if (f->i != s->ref[f->src].n)
			check_fail(CK_MT_WALK, "fork handled %zu of the source's %zu entries", f->i,
				   s->ref[f->src].n);
		return;
	}
	if (err != -ENOMEM || !fired)
		check_fail(CK_MT_OP_RESULT, "fork returned %d%s", err,
			   fired ? "" : " and no allocation failed");
	else if (f->stop == FORK_NONE && f->i && f->last != TREE_FORK_DROP)
		check_fail(CK_MT_OP_RESULT, "fork failed at entry %zu, whose copy needs no memory",
			   f->i - 1);
}

/*
 * The child's map after the fork: the source's entries, each handled one
 * dropped or replaced by its child value; on a failure, the marker over
 * the entry where it stopped (the failing one, or after a failed page copy
 * the next one, if any) and the parent's entries after it. Nothing after a
 * failed dup.
 */
static void fork_expect(struct fork_run *f, int err)
{
	struct mtree_state *s = f->s;
	const struct mtref *src = &s->ref[f->src];
	size_t done = f->i, mark = FORK_NONE;

	if (err && !f->i)
		return;
	ref_copy(s, f->dst, f->src);
	if (err) {
		size_t at = f->stop != FORK_NONE ? f->stop : f->i - 1;

		done = at + f->pages_failed;
		mark = done < src->n ? done : FORK_NONE;
	}
	for (size_t k = 0; k < done && k < src->n; k++)
		ref_store(s, f->dst, src->v[k].first, src->v[k].last,
			  fork_dropped(f, k) ? NULL : child_of(src->v[k].entry));
	if (mark != FORK_NONE)
		ref_store(s, f->dst, src->v[mark].first, src->v[mark].last, s->b->zero);
}

/* exit_mmap's walk of a failed child visits the map's entries before the marker. */
struct fork_exit_walk {
	const struct mtref *ref;
	const void *zero;
	size_t i;
};

static bool fork_exit_visit(void *arg, const struct tree_range *r, void *e)
{
	struct fork_exit_walk *w = arg;
	const struct mtref_range *x = w->i < w->ref->n ? &w->ref->v[w->i] : NULL;

	if (!x || x->entry == w->zero || x->first != r->first || x->last != r->last ||
	    x->entry != e)
		check_fail(CK_MT_WALK,
			   "fork_exit's entry %zu is [%#" PRIx64 ", %#" PRIx64 "] -> %p, the map "
			   "holds %s there",
			   w->i, r->first, r->last, e,
			   !x			 ? "nothing"
			   : x->entry == w->zero ? "the marker"
						 : "another");
	w->i++;
	return true;
}

/* A failed fork's child: as the fork left it, then torn down to nothing. */
static void fork_teardown(struct fork_run *f)
{
	struct mtree_state *s = f->s;
	struct fork_exit_walk w = {&s->ref[f->dst], s->b->zero, 0};
	size_t copies = 0;

	s->b->validate(s->mt[f->dst]);
	mtref_matches(&s->ref[f->dst], s->b, s->mt[f->dst]);
	while (copies < w.ref->n && w.ref->v[copies].entry != w.zero)
		copies++;
	s->b->fork_exit(s->mt[f->dst], fork_exit_visit, &w);
	if (w.i != copies)
		check_fail(CK_MT_WALK, "fork_exit visited %zu entries, %zu lie before the marker",
			   w.i, copies);
	mtref_clear(&s->ref[f->dst]);
	ref_log(s, f->dst, 0, TREE_MAX, NULL);
}

/* replay -v: what the fork did. */
static void fork_trace(const struct fork_run *f, const struct prog_op *op, int err)
{
	const struct mtref *child = &f->s->ref[f->dst];
	size_t k = 0;

	fputs("  ", prog_trace);
	prog_print_op(prog_trace, &mtree_desc, op);
	fprintf(prog_trace, "  = %d after %zu of %zu entries", err, f->i, f->s->ref[f->src].n);
	while (k < child->n && child->v[k].entry != f->s->b->zero)
		k++;
	if (k < child->n)
		fprintf(prog_trace, ", the marker over [%#" PRIx64 ", %#" PRIx64 "]",
			child->v[k].first, child->v[k].last);
	fputc('\n', prog_trace);
}

/*
 * The child is no one else's until the fork ends: dup_mmap writes it out
 * of RCU mode (freeing replaced nodes at once), so no other fiber runs
 * meanwhile, and an RCU reader that was in the tree before finds it whole.
 */
static void op_fork(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a)
{
	struct fork_run f = {
	    s, a->tree, other_tree(a), a->dontcopy, 0, FORK_NONE, false, TREE_FORK_COPY, 0};
	const struct tree_fork_ops ops = {fork_entry, fork_copied, &f};
	struct tree_picture before = {NULL, 0, 0};
	bool fired;
	int err;

	if (!s->b->fork)
		return;
	lock_two(s, f.src, f.dst);
	sched_hold();
	tree_clear(s, f.dst);
	s->b->picture(s->mt[f.src], &before);
	exec_arm(op);
	err = s->b->fork(s->mt[f.src], s->mt[f.dst], &ops);
	fired = exec_disarm();
	tree_check_unchanged(s->b, s->mt[f.src], &before, CK_MT_DUP_SOURCE_CHANGED, "fork");
	fork_judge(&f, err, fired);
	fork_expect(&f, err);
	if (prog_trace)
		fork_trace(&f, op, err);
	if (err)
		fork_teardown(&f);
	sched_unhold();
	unlock_two(s, f.src, f.dst);
	tree_picture_free(&before);
}

/* Append n entries of the range's length from its start, gaps every third;
 * a backend without the bulk interface stores them one by one. */
static int bulk_fill(struct mtree_state *s, unsigned t, void *bulk, unsigned n, uint64_t first,
		     uint64_t len)
{
	uint64_t at = first;
	int err = 0;

	for (unsigned i = 0; i < n && TREE_MAX - at >= len - 1; i++) {
		uint64_t step = len + (i % 3 == 2);

		err = bulk ? s->b->bulk_append(bulk, at, at + len - 1, val(i))
			   : s->b->store(s->mt[t], at, at + len - 1, val(i));
		if (err)
			break; /* what came before stays */
		ref_store(s, t, at, at + len - 1, val(i));
		if (TREE_MAX - at < step)
			break;
		at += step;
	}
	return err;
}

static void op_bulk(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		    uint64_t first, uint64_t last)
{
	unsigned t = a->tree, n = a->n;
	uint64_t len = last - first < 255 ? last - first + 1 : 255;
	void *bulk = NULL;
	bool fired;
	int err = 0;

	tree_clear(s, t);
	exec_arm(op);
	if (s->b->bulk_begin)
		err = s->b->bulk_begin(s->mt[t], n, &bulk);
	if (!err) {
		err = bulk_fill(s, t, bulk, n, first, len);
		if (bulk)
			s->b->bulk_end(bulk);
	}
	fired = exec_disarm();
	if (err && !(fired && err == -ENOMEM))
		check_fail(CK_MT_OP_RESULT, "bulk append returned %d", err);
}

static bool rcu_visit(void *arg, const struct tree_range *r, void *e)
{
	return mtref_reader_saw(arg, r, e);
}

static void op_rcu_walk(struct mtree_state *s, const struct mtree_args *a)
{
	unsigned t = a->tree;
	struct mtref_reader rd;
	uint64_t first, last;

	rcu_read_lock();
	resolve(&s->ref[t], &a->range, &first, &last);
	s->readers[t]++;
	mtref_reader_begin(&rd, &s->ref[t], &s->log[t], t);
	s->b->rcu_walk(s->mt[t], first, last, rcu_visit, &rd);
	mtref_reader_end(&rd, first, last);
	if (--s->readers[t] == 0)
		s->log[t].n = 0; /* no reader reads what was written */
	rcu_read_unlock();
}

/* What a step of a kernel caller's API answered, for replay -v (trace_op). */
struct op_res {
	bool ran; /* the backend has the call */
	int err;
	bool has_at; /* at and size mean something */
	uint64_t at, size;
};

/*
 * The rest of a kernel caller's API. Each is judged by the reference map
 * (mtref_api.c) and, under fail_at, as any write (tree_check_write): a
 * failure changes nothing, a retried one may succeed. A backend without
 * the call (tree_backend.h) skips the step.
 */
static void op_write(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		     uint64_t first, uint64_t last, struct op_res *res)
{
	unsigned t = a->tree;
	void *entry = a->erase ? NULL : val(a->value);
	struct tree_picture before = {NULL, 0, 0};
	bool fired;
	int err;

	picture_before(s, op, t, &before);
	alloc_fail_arm_then(op->fail_at, a->then);
	err = s->b->store_path
		  ? s->b->store_path(s->mt[t], first, last, entry, (enum tree_write_path)a->path)
		  : s->b->store(s->mt[t], first, last, entry);
	fired = exec_disarm();
	tree_check_write(s->b, s->mt[t], &before, err, fired, 0, write_paths[a->path]);
	*res = (struct op_res){.ran = true, .err = err};
	if (!err)
		ref_store(s, t, first, last, entry);
	tree_picture_free(&before);
}

static void op_insert(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		      uint64_t first, uint64_t last, struct op_res *res)
{
	unsigned t = a->tree;
	int want = mtref_any(&s->ref[t], first, last) ? -EEXIST : 0, err;
	struct tree_picture before = {NULL, 0, 0};
	bool fired;

	if (!s->b->insert)
		return;
	picture_before(s, op, t, &before);
	exec_arm(op);
	err = s->b->insert(s->mt[t], first, last, val(a->value));
	fired = exec_disarm();
	tree_check_write(s->b, s->mt[t], &before, err, fired, want, "insert");
	*res = (struct op_res){.ran = true, .err = err};
	if (!err)
		ref_store(s, t, first, last, val(a->value));
	tree_picture_free(&before);
}

/* alloc's and empty_area's size and window (tree_check.h's arguments). */
static uint64_t area_size(const struct mtree_args *a, uint64_t lo, uint64_t hi)
{
	uint64_t win = hi - lo + 1;

	switch (a->sz) {
	case 0:
		return a->n;
	case 1:
		return TREE_MAX - a->n;
	case 2:
		return win - a->n;
	default:
		return win + a->n;
	}
}

static void area_window(const struct mtree_args *a, uint64_t *lo, uint64_t *hi)
{
	uint64_t x = *lo;

	if (a->dir & 2) {
		*lo = *hi;
		*hi = x;
	}
}

static void op_alloc(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		     uint64_t lo, uint64_t hi, struct op_res *res)
{
	unsigned t = a->tree;
	bool highest = a->dir & 1, fired;
	struct tree_picture before = {NULL, 0, 0};
	uint64_t size, want_at = 0, at = 0;
	int want, err;

	if (!s->b->alloc)
		return;
	area_window(a, &lo, &hi);
	size = area_size(a, lo, hi);
	want = mtref_gap_err(&s->ref[t], lo, hi, size, highest, &want_at);
	picture_before(s, op, t, &before);
	exec_arm(op);
	err = s->b->alloc(s->mt[t], lo, hi, size, highest, val(a->value), &at);
	fired = exec_disarm();
	tree_check_write(s->b, s->mt[t], &before, err, fired, want, "alloc");
	if (!err && !want && at != want_at)
		check_fail(CK_MT_GAP_SEARCH,
			   "%s alloc of %#" PRIx64 " in [%#" PRIx64 ", %#" PRIx64 "] at %#" PRIx64
			   ", brute force %#" PRIx64,
			   highest ? "highest" : "lowest", size, lo, hi, at, want_at);
	*res = (struct op_res){.ran = true, .err = err, .has_at = !err, .at = at, .size = size};
	if (!err)
		ref_store(s, t, at, at + (size - 1), val(a->value));
	tree_picture_free(&before);
}

static void op_alloc_cyclic(struct mtree_state *s, const struct prog_op *op,
			    const struct mtree_args *a, uint64_t lo, uint64_t hi,
			    struct op_res *res)
{
	unsigned t = a->tree;
	uint64_t want_next = s->cyc_next[t], want_at = 0, at = 0;
	bool want_wrapped = s->cyc_wrapped[t], fired;
	struct tree_picture before = {NULL, 0, 0};
	int want, err;

	if (!s->b->alloc_cyclic)
		return;
	want = mtref_alloc_cyclic(&s->ref[t], lo, hi, &want_next, &want_wrapped, &want_at);
	picture_before(s, op, t, &before);
	exec_arm(op);
	err = s->b->alloc_cyclic(s->mt[t], lo, hi, val(a->value), &s->cyc_next[t],
				 &s->cyc_wrapped[t], &at);
	fired = exec_disarm();
	if (err >= 0 && (err != want || at != want_at || s->cyc_next[t] != want_next ||
			 s->cyc_wrapped[t] != want_wrapped))
		check_fail(CK_MT_OP_RESULT,
			   "alloc_cyclic in [%#" PRIx64 ", %#" PRIx64 "] gave %d at %#" PRIx64
			   " (next %#" PRIx64 "%s), the map %d at %#" PRIx64 " (next %#" PRIx64
			   "%s)",
			   lo, hi, err, at, s->cyc_next[t], s->cyc_wrapped[t] ? ", wrapped" : "",
			   want, want_at, want_next, want_wrapped ? ", wrapped" : "");
	else if (err < 0)
		tree_check_write(s->b, s->mt[t], &before, err, fired, want, "alloc_cyclic");
	*res = (struct op_res){.ran = true, .err = err, .has_at = err >= 0, .at = at, .size = 1};
	if (err >= 0)
		ref_store(s, t, at, at, val(a->value));
	tree_picture_free(&before);
}

/* find_in's index and bound from the range and the choice. */
static enum mtref_find find_in_args(const struct mtree_args *a, uint64_t first, uint64_t last,
				    uint64_t *index, uint64_t *bound)
{
	enum mtref_find how = (enum mtref_find)(a->how & 3);
	bool ahead = how == MTREF_FIND || how == MTREF_NEXT;
	bool swap = a->how & 4;

	*index = ahead != swap ? first : last;
	*bound = ahead != swap ? last : first;
	return how;
}

static void op_find_in(struct mtree_state *s, const struct mtree_args *a, uint64_t first,
		       uint64_t last, struct op_res *res)
{
	uint64_t index, bound;
	enum mtref_find how = find_in_args(a, first, last, &index, &bound);

	if ((how == MTREF_NEXT && !s->b->next) || (how == MTREF_PREV && !s->b->prev))
		return;
	mtref_check_bounded(&s->ref[a->tree], s->b, s->mt[a->tree], how, index, bound);
	res->ran = true;
}

static void op_empty_area(struct mtree_state *s, const struct mtree_args *a, uint64_t lo,
			  uint64_t hi, struct op_res *res)
{
	unsigned t = a->tree;
	bool highest = a->dir & 1;
	uint64_t size, want_at = 0, at = 0;
	int want, err;

	area_window(a, &lo, &hi);
	size = area_size(a, lo, hi);
	want = mtref_gap_err(&s->ref[t], lo, hi, size, highest, &want_at);
	err = s->b->gap(s->mt[t], lo, hi, size, highest, &at);
	if (err != want || (!err && at != want_at))
		check_fail(CK_MT_GAP_SEARCH,
			   "%s gap of %#" PRIx64 " in [%#" PRIx64 ", %#" PRIx64
			   "]: tree says %d at "
			   "%#" PRIx64 ", brute force %d at %#" PRIx64,
			   highest ? "highest" : "lowest", size, lo, hi, err, err ? 0 : at, want,
			   want ? 0 : want_at);
	*res = (struct op_res){.ran = true, .err = err, .has_at = !err, .at = at, .size = size};
}

/*
 * The normal API's calls (tree_backend.h: lookup, erase_locked,
 * destroy_locked; dup_locked is op_dup's) and walk_by's walks, each
 * judged by the map. A backend without the call skips the step.
 */
static void op_lookup(struct mtree_state *s, const struct mtree_args *a, uint64_t index,
		      struct op_res *res)
{
	unsigned t = a->tree;
	void *want = mtref_load(&s->ref[t], index), *got;

	if (!s->b->lookup)
		return;
	if (want == s->b->zero)
		want = NULL; /* the normal API hides the zero entry */
	got = s->b->lookup(s->mt[t], index);
	if (got != want)
		check_fail(CK_MT_REF_MISMATCH, "lookup %#" PRIx64 ": tree %p, map %p", index, got,
			   want);
	res->ran = true;
}

/*
 * mtree_erase returns the entry it found and has no way to say that its
 * allocation failed: after an injected failure the tree is either as it
 * was (then the map keeps the entry too) or erased, as without one; the
 * step's checks compare the contents either way.
 */
static void op_erase_locked(struct mtree_state *s, const struct prog_op *op,
			    const struct mtree_args *a, uint64_t index, struct op_res *res)
{
	unsigned t = a->tree;
	struct tree_range r;
	void *want = mtref_range_of(&s->ref[t], index, &r), *old;
	struct tree_picture before = {NULL, 0, 0}, after = {NULL, 0, 0};
	bool fired, kept = false;

	if (!s->b->erase_locked)
		return;
	picture_before(s, op, t, &before);
	alloc_fail_arm_then(op->fail_at, a->then);
	old = s->b->erase_locked(s->mt[t], index);
	fired = exec_disarm();
	if (old != want)
		check_fail(CK_MT_OP_RESULT,
			   "erase_locked at %#" PRIx64 " found %p, the map holds %p", index, old,
			   want);
	if (fired && want) {
		s->b->picture(s->mt[t], &after);
		kept = tree_picture_equal(&before, &after);
		tree_picture_free(&after);
	}
	if (want && !kept)
		ref_store(s, t, r.first, r.last, NULL);
	*res = (struct op_res){.ran = true, .err = kept ? -ENOMEM : 0, .size = want != NULL};
	tree_picture_free(&before);
}

static void op_destroy_locked(struct mtree_state *s, unsigned t, struct op_res *res)
{
	if (!s->b->destroy_locked)
		return;
	s->b->destroy_locked(s->mt[t]);
	ref_cleared(s, t);
	res->ran = true;
}

static void op_walk_by(struct mtree_state *s, const struct mtree_args *a, uint64_t first,
		       uint64_t last, struct op_res *res)
{
	enum tree_walk_way how = (enum tree_walk_way)(a->way % TREE_WALK_NR);

	if (!s->b->walk_by || !(s->b->walk_ways & (1u << how)))
		return;
	mtref_check_walk_by(&s->ref[a->tree], s->b, s->mt[a->tree], how, first, last);
	res->ran = true;
}

static bool op_writes(unsigned code)
{
	return code == OP_STORE || code == OP_ERASE || code == OP_ERASE_AT || code == OP_BULK ||
	       code == OP_DESTROY || code == OP_WRITE || code == OP_INSERT || code == OP_ALLOC ||
	       code == OP_ALLOC_CYCLIC || code == OP_ERASE_LOCKED || code == OP_DESTROY_LOCKED;
}

/* The operations that run under the tree's lock, their range resolved. */
static void locked_op(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		      uint64_t first, uint64_t last, struct op_res *res)
{
	unsigned t = a->tree;
	void *mt = s->mt[t];

	switch (op->code) {
	case OP_STORE:
		write_op(s, op, t, first, last, val(a->value));
		break;
	case OP_ERASE:
		write_op(s, op, t, first, last, NULL);
		break;
	case OP_ERASE_AT:
		op_erase_at(s, op, t, first);
		break;
	case OP_LOAD:
		mtref_check_load(&s->ref[t], s->b, mt, first);
		break;
	case OP_FIND:
		mtref_check_find(&s->ref[t], s->b, mt, first);
		break;
	case OP_WALK:
		mtref_check_walk(&s->ref[t], s->b, mt, first, last);
		break;
	case OP_GAP:
		mtref_check_gap(&s->ref[t], s->b, mt, first, last, a->n ? a->n : TREE_MAX - 1,
				a->dir == 1);
		break;
	case OP_BULK:
		op_bulk(s, op, a, first, last);
		break;
	case OP_DESTROY:
		tree_clear(s, t);
		break;
	case OP_WRITE:
		op_write(s, op, a, first, last, res);
		break;
	case OP_INSERT:
		op_insert(s, op, a, first, last, res);
		break;
	case OP_ALLOC:
		op_alloc(s, op, a, first, last, res);
		break;
	case OP_ALLOC_CYCLIC:
		op_alloc_cyclic(s, op, a, first, last, res);
		break;
	case OP_FIND_IN:
		op_find_in(s, a, first, last, res);
		break;
	case OP_EMPTY_AREA:
		op_empty_area(s, a, first, last, res);
		break;
	case OP_LOOKUP:
		op_lookup(s, a, first, res);
		break;
	case OP_ERASE_LOCKED:
		op_erase_locked(s, op, a, first, res);
		break;
	case OP_DESTROY_LOCKED:
		op_destroy_locked(s, t, res);
		break;
	case OP_WALK_BY:
		op_walk_by(s, a, first, last, res);
		break;
	}
}

/*
 * replay -v: the operation, its range as resolved, and what the reference
 * map (which the tree was just checked against) says it answered or holds.
 */
static void trace_op(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		     uint64_t first, uint64_t last, const struct op_res *res)
{
	const struct mtref *r = &s->ref[a->tree];
	const struct mtref_range *x;
	struct tree_range at;
	uint64_t start, index, bound;
	enum mtref_find how;
	void *e;

	fputs("  ", prog_trace);
	prog_print_op(prog_trace, &mtree_desc, op);
	if (op->code != OP_RCU_WALK && op->code != OP_DUP && op->code != OP_DUP_LOCKED &&
	    op->code != OP_DESTROY_LOCKED)
		fprintf(prog_trace, "  [%#" PRIx64 ", %#" PRIx64 "]", first, last);
	switch (op->code) {
	case OP_LOAD:
		fputs(" = ", prog_trace);
		print_val(prog_trace, mtref_load(r, first));
		break;
	case OP_LOOKUP:
		if (!res->ran) {
			fputs(" skipped (the backend lacks it)", prog_trace);
			break;
		}
		e = mtref_load(r, first);
		fputs(" = ", prog_trace);
		if (e && e != s->b->zero)
			print_val(prog_trace, e);
		else
			fputs("none", prog_trace);
		break;
	case OP_FIND:
		e = mtref_range_of(r, first, &at);
		fputs(" = ", prog_trace);
		print_val(prog_trace, e);
		if (e)
			fprintf(prog_trace, " at [%#" PRIx64 ", %#" PRIx64 "]", at.first, at.last);
		break;
	case OP_GAP:
		if (mtref_gap(r, first, last, a->n ? a->n : TREE_MAX - 1, a->dir == 1, &start))
			fprintf(prog_trace, " = %#" PRIx64, start);
		else
			fputs(" = -EBUSY", prog_trace);
		break;
	case OP_WRITE:
	case OP_INSERT:
	case OP_ALLOC:
	case OP_ALLOC_CYCLIC:
	case OP_EMPTY_AREA:
		if (!res->ran) {
			fputs(" skipped (the backend lacks it)", prog_trace);
			break;
		}
		fprintf(prog_trace, " = %d", res->err);
		if (res->has_at)
			fprintf(prog_trace, " at [%#" PRIx64 ", %#" PRIx64 "]", res->at,
				res->at + (res->size - 1));
		break;
	case OP_ERASE_LOCKED:
		fputs(!res->ran	   ? " skipped (the backend lacks it)"
		      : !res->size ? " = nothing there"
		      : res->err   ? " = nothing erased (its allocation failed)"
				   : " = erased",
		      prog_trace);
		break;
	case OP_DESTROY_LOCKED:
	case OP_DUP_LOCKED:
	case OP_WALK_BY:
		if (!res->ran)
			fputs(" skipped (the backend lacks it)", prog_trace);
		break;
	case OP_FIND_IN:
		if (!res->ran) {
			fputs(" skipped (the backend lacks it)", prog_trace);
			break;
		}
		/* the tree was just checked against this */
		how =
		    find_in_args(a, first, last, &index, &bound); /* before index, bound are read */
		x = mtref_bounded(r, how, index, bound);
		fputs(" = ", prog_trace);
		if (x) {
			print_val(prog_trace, x->entry);
			fprintf(prog_trace, " at [%#" PRIx64 ", %#" PRIx64 "]", x->first, x->last);
		} else {
			fputs("none", prog_trace);
		}
		break;
	default:
		break;
	}
	fprintf(prog_trace, ", mt%u holds %zu range%s\n", a->tree, r->n, r->n == 1 ? "" : "s");
}

static void step_begin(struct mtree_state *s, unsigned trees)
{
	for (unsigned t = 0; t < NTREES; t++)
		s->active[t] += (trees >> t) & 1;
}

static void step_end(struct mtree_state *s, unsigned trees)
{
	for (unsigned t = 0; t < NTREES; t++)
		s->active[t] -= (trees >> t) & 1;
	s->named |= trees;
}

/* The tool watching the run (mtree_run_watched), or NULL. */
static const struct mtree_watch *watch;

static void run_op_body(void *arg, const struct prog_op *op);

static void run_op(void *arg, const struct prog_op *op)
{
	if (watch && watch->step)
		watch->step(watch->arg, op, true);
	run_op_body(arg, op);
	if (watch && watch->step)
		watch->step(watch->arg, op, false);
}

static void run_op_body(void *arg, const struct prog_op *op)
{
	struct mtree_state *s = arg;
	struct mtree_args a;
	struct op_res res = {false, 0, false, 0, 0};
	uint64_t first = 0, last = 0;
	unsigned named;

	prog_decode_args(&mtree_desc, op, &a);
	/*
	 * The trees a step names are checked from its start to its end:
	 * another fiber's step may end, and check, while this one waits for a
	 * lock, before or after a write.
	 */
	named = 1u << a.tree;
	if (op->code == OP_DUP || op->code == OP_DUP_LOCKED || op->code == OP_FORK)
		named |= 1u << other_tree(&a);
	step_begin(s, named);
	if (op->code == OP_RCU_WALK) {
		op_rcu_walk(s, &a);
		if (prog_trace)
			trace_op(s, op, &a, 0, 0, &res);
		step_end(s, named);
		return;
	}
	if (op->code == OP_DUP || op->code == OP_DUP_LOCKED) {
		op_dup(s, op, &a, op->code == OP_DUP_LOCKED);
		res.ran = (op->code == OP_DUP ? s->b->dup : s->b->dup_locked) != NULL;
		if (prog_trace)
			trace_op(s, op, &a, 0, 0, &res);
		step_end(s, named);
		return;
	}
	if (op->code == OP_FORK) {
		op_fork(s, op, &a);
		step_end(s, named);
		return;
	}
	if (op_writes(op->code))
		down_write(&s->lock[a.tree]);
	else
		down_read(&s->lock[a.tree]);
	if (mtree_ops[op->code].nfields >= 2 && mtree_ops[op->code].fields[1].kind == FK_RANGE)
		resolve(&s->ref[a.tree], &a.range, &first, &last);
	locked_op(s, op, &a, first, last, &res);
	if (prog_trace)
		trace_op(s, op, &a, first, last, &res);
	if (op_writes(op->code))
		up_write(&s->lock[a.tree]);
	else
		up_read(&s->lock[a.tree]);
	step_end(s, named);
}

/*
 * After every step, the trees the steps since the last check named and
 * those a step under way names: both validators, the contents against the reference map, the node
 * count; and every backend's live nodes against the trees' counts (kept from each tree's last
 * check: a tree no step named is as it was then, and a node freed or leaked from it still shows in
 * the live count). mtree_run checks every tree once more at the end. With scheduling held: a
 * backend's checks may pass scheduling points (the kernel's mt_validate takes rcu_read_lock), and
 * another fiber's operation must not run in the middle of them.
 */
static void check_all(void *arg)
{
	struct mtree_state *s = arg;
	uint64_t nodes = 0;

	sched_hold();
	for (unsigned t = 0; t < NTREES; t++) {
		if ((s->named & (1u << t)) || s->active[t]) {
			if (watch && watch->check)
				watch->check(watch->arg, t, true);
			s->b->validate(s->mt[t]);
			mtref_matches(&s->ref[t], s->b, s->mt[t]);
			s->nodes[t] = s->b->nodes(s->mt[t]);
			if (watch && watch->check)
				watch->check(watch->arg, t, false);
		}
		nodes += s->nodes[t];
	}
	s->named = 0;
	s->b->check_live(nodes);
	sched_unhold();
}

static void dump_state(FILE *out, void *arg)
{
	struct mtree_state *s = arg;

	for (unsigned t = 0; t < NTREES; t++) {
		fprintf(out, "mt%u: ", t);
		s->b->dump(out, s->mt[t], print_val);
	}
}

int mtree_run(const struct tree_backend *b, const uint8_t *data, size_t size)
{
	static const char *const lock_names[NTREES] = {"mt0 lock", "mt1 lock", "mt2 lock",
						       "mt3 lock"};
	struct mtree_state s;
	struct exec x;

	memset(&s, 0, sizeof(s));
	s.b = b;
	for (unsigned t = 0; t < NTREES; t++) {
		s.mt[t] = b->create();
		MODEL_ASSERT(s.mt[t] != NULL);
		mtref_init(&s.ref[t]);
		rwsem_init(&s.lock[t], &lock_class_tree, lock_names[t]);
	}
	exec_begin(&x, &mtree_desc, data, size, dump_state, &s);
	exec_run(&x, run_op, check_all);
	s.named = (1u << NTREES) - 1;
	check_all(&s);
	for (unsigned t = 0; t < NTREES; t++) {
		tree_clear(&s, t);
		mtref_free(&s.ref[t]);
		mtref_log_free(&s.log[t]);
		b->release(s.mt[t]);
	}
	tree_picture_spares_release();
	mem_check_empty();
	b->check_live(0);
	exec_end(&x);
	return 0;
}

int mtree_run_watched(const struct tree_backend *b, const uint8_t *data, size_t size,
		      const struct mtree_watch *w)
{
	int r;

	watch = w;
	r = mtree_run(b, data, size);
	watch = NULL;
	return r;
}

int mtree_run_text(const struct tree_backend *b, const char *text)
{
	uint8_t *bytes;
	size_t n;
	int r;

	if (!prog_text_bytes(&mtree_desc, text, &bytes, &n))
		return -2;
	r = mtree_run(b, bytes, n);
	free(bytes);
	return r;
}

static int mtree_run_model(const uint8_t *data, size_t size)
{
	return mtree_run(&tree_model, data, size);
}

const struct fuzz_target fuzz_mtree_target = {
    .name = "fuzz_mtree",
    .summary = "range tree: store, erase, find, walks (also under RCU against writers), gap "
	       "search, dup, bulk, fork, and a kernel caller's API (write paths, insert, alloc, "
	       "cyclic alloc, bounded next/prev, the normal API's load, erase, destroy and dup, "
	       "paused and range walks), against a reference map",
    .desc = &mtree_desc,
    .run = mtree_run_model,
};
