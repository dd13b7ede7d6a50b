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
 * After every operation every tree is validated, compared with its map, and
 * the live tree nodes must be exactly the nodes reachable from the trees or
 * waiting for an RCU grace period. At the end all trees are destroyed and
 * nothing may be left alive.
 */
#include "exec.h"
#include "mtref.h"
#include "mtref_rcu.h"
#include "mtree_fuzz.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "target.h"
#include "tree_backend.h"
#include "tree_check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#define NTREES 4

struct mtree_state {
	const struct tree_backend *b;
	void *mt[NTREES]; /* the backend's trees */
	struct mtref ref[NTREES];
	struct rwsem lock[NTREES];
	struct mtref_log log[NTREES]; /* what writers stored: the RCU readers' oracle */
	unsigned named;		      /* trees named by steps since the last check */
	unsigned active[NTREES];      /* steps naming the tree under way */
	uint64_t nodes[NTREES];	      /* each tree's nodes at its last check */
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
	OP_NR
};

/* An operation's arguments, by name (prog_decode_args fills them). */
struct mtree_args {
	uint8_t tree;		 /* mt<k> */
	struct range_spec range; /* resolved against the tree's map */
	uint8_t value;		 /* store: v<n> */
	uint8_t n;		 /* gap: size; bulk: count */
	uint8_t dir;		 /* gap: low or high */
	uint8_t other;		 /* dup: the destination tree */
};

#define MT_ARG(kind, prefix, max, names, field)                                                    \
	{                                                                                          \
		kind, prefix, max, names, #field, offsetof(struct mtree_args, field)               \
	}
#define F_TREE MT_ARG(FK_SEL, "mt", NTREES, NULL, tree)
#define F_RANGE MT_ARG(FK_RANGE, NULL, 0, NULL, range)

static const char *const gap_dirs[] = {"low", "high", NULL};

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

static void print_val(FILE *out, const void *e)
{
	fprintf(out, "v%u", (unsigned)((uintptr_t)e >> 2) - 1);
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

/* Every change of a tree's contents goes through these, map and log alike. */
static void ref_store(struct mtree_state *s, unsigned t, uint64_t first, uint64_t last, void *entry)
{
	mtref_store(&s->ref[t], first, last, entry);
	mtref_log_add(&s->log[t], first, last, entry);
}

static void ref_copy(struct mtree_state *s, unsigned dst, unsigned src)
{
	mtref_free(&s->ref[dst]);
	for (size_t i = 0; i < s->ref[src].n; i++) {
		const struct mtref_range *r = &s->ref[src].v[i];

		ref_store(s, dst, r->first, r->last, r->entry);
	}
}

static void tree_clear(struct mtree_state *s, unsigned t)
{
	s->b->clear(s->mt[t]);
	mtref_free(&s->ref[t]);
	mtref_log_add(&s->log[t], 0, TREE_MAX, NULL);
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

static void op_dup(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a)
{
	unsigned src = a->tree, dst = a->other;
	struct tree_picture before = {NULL, 0, 0}, empty = {NULL, 0, 0};
	bool fired;
	int err;

	if (dst == src)
		dst = (dst + 1) % NTREES;
	/* two locks of one class: in tree order, the second nested */
	down_write(&s->lock[src < dst ? src : dst]);
	down_write_nested(&s->lock[src < dst ? dst : src], 1);
	tree_clear(s, dst);
	s->b->picture(s->mt[src], &before);
	picture_before(s, op, dst, &empty);
	exec_arm(op);
	err = s->b->dup(s->mt[src], s->mt[dst]);
	fired = exec_disarm();
	tree_check_unchanged(s->b, s->mt[src], &before, CK_MT_DUP_SOURCE_CHANGED, "dup");
	/* a failed dup leaves the destination empty */
	tree_check_write(s->b, s->mt[dst], &empty, err, fired, 0, "dup");
	if (!fired || !err) {
		s->b->check_dup(s->mt[src], s->mt[dst]);
		ref_copy(s, dst, src);
	}
	tree_picture_free(&before);
	tree_picture_free(&empty);
	up_write(&s->lock[src < dst ? dst : src]);
	up_write(&s->lock[src < dst ? src : dst]);
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
	mtref_reader_begin(&rd, &s->ref[t], &s->log[t], t);
	s->b->rcu_walk(s->mt[t], first, last, rcu_visit, &rd);
	mtref_reader_end(&rd, first, last);
	rcu_read_unlock();
}

static bool op_writes(unsigned code)
{
	return code == OP_STORE || code == OP_ERASE || code == OP_ERASE_AT || code == OP_BULK ||
	       code == OP_DESTROY;
}

/* The operations that run under the tree's lock, their range resolved. */
static void locked_op(struct mtree_state *s, const struct prog_op *op, const struct mtree_args *a,
		      uint64_t first, uint64_t last)
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
	}
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

static void run_op(void *arg, const struct prog_op *op)
{
	struct mtree_state *s = arg;
	struct mtree_args a;
	uint64_t first = 0, last = 0;
	unsigned named;

	prog_decode_args(&mtree_desc, op, &a);
	/*
	 * The trees a step names are checked from its start to its end:
	 * another fiber's step may end, and check, while this one waits for a
	 * lock, before or after a write.
	 */
	named = 1u << a.tree;
	if (op->code == OP_DUP)
		named |= 1u << (a.other == a.tree ? (a.other + 1) % NTREES : a.other);
	step_begin(s, named);
	if (op->code == OP_RCU_WALK) {
		op_rcu_walk(s, &a);
		step_end(s, named);
		return;
	}
	if (op->code == OP_DUP) {
		op_dup(s, op, &a);
		step_end(s, named);
		return;
	}
	if (op_writes(op->code))
		down_write(&s->lock[a.tree]);
	else
		down_read(&s->lock[a.tree]);
	if (mtree_ops[op->code].nfields >= 2 && mtree_ops[op->code].fields[1].kind == FK_RANGE)
		resolve(&s->ref[a.tree], &a.range, &first, &last);
	locked_op(s, op, &a, first, last);
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
			s->b->validate(s->mt[t]);
			mtref_matches(&s->ref[t], s->b, s->mt[t]);
			s->nodes[t] = s->b->nodes(s->mt[t]);
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
		mtref_log_free(&s.log[t]);
		b->release(s.mt[t]);
	}
	mem_check_empty();
	b->check_live(0);
	exec_end(&x);
	return 0;
}

static int mtree_run_model(const uint8_t *data, size_t size)
{
	return mtree_run(&tree_model, data, size);
}

const struct fuzz_target fuzz_mtree_target = {
    .name = "fuzz_mtree",
    .summary = "range tree: store, erase, find, walks (also under RCU against writers), gap "
	       "search, dup, bulk, against a reference map",
    .desc = &mtree_desc,
    .run = mtree_run_model,
};
