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
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sync.h"
#include "target.h"
#include "tree/mtree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NTREES 4

struct mtree_state {
	struct mtree mt[NTREES];
	struct mtref ref[NTREES];
	struct rwsem lock[NTREES];
	struct mtref_log log[NTREES]; /* what writers stored: the RCU readers' oracle */
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

#define F_TREE                                                                                     \
	{                                                                                          \
		FK_SEL, "mt", NTREES, NULL                                                         \
	}
#define F_RANGE                                                                                    \
	{                                                                                          \
		FK_RANGE, NULL, 0, NULL                                                            \
	}

static const char *const gap_dirs[] = {"low", "high", NULL};

static const struct prog_opdesc mtree_ops[OP_NR] = {
    [OP_STORE] = {"store",
		  "map the range to value v<n>",
		  3,
		  {F_TREE, F_RANGE, {FK_U8, "v", 0, NULL}}},
    [OP_ERASE] = {"erase", "store nothing over the range", 2, {F_TREE, F_RANGE}},
    [OP_ERASE_AT] = {"erase_at", "erase the whole range holding the start", 2, {F_TREE, F_RANGE}},
    [OP_LOAD] = {"load", "load at the start, with the range that holds it", 2, {F_TREE, F_RANGE}},
    [OP_FIND] = {"find", "find next and previous entries from the start", 2, {F_TREE, F_RANGE}},
    [OP_WALK] = {"walk", "walk entries with a cursor across the range", 2, {F_TREE, F_RANGE}},
    [OP_GAP] = {"gap",
		"search the range for n=<size> empty indices (n=0: huge)",
		4,
		{F_TREE, F_RANGE, {FK_U8, "n=", 0, NULL}, {FK_CHOICE, NULL, 0, gap_dirs}}},
    [OP_DUP] = {"dup",
		"duplicate a tree into another (emptied first; same: next)",
		2,
		{F_TREE, F_TREE}},
    [OP_BULK] = {"bulk",
		 "rebuild by appending n=<count> entries from the range's start",
		 3,
		 {F_TREE, F_RANGE, {FK_U8, "n=", 0, NULL}}},
    [OP_DESTROY] = {"destroy", "free every node of the tree", 1, {F_TREE}},
    [OP_RCU_WALK] = {"rcu_walk",
		     "walk the range under RCU alone, without the tree's lock",
		     2,
		     {F_TREE, F_RANGE}},
};

static const char *const mtree_config[] = {NULL};

static const struct prog_desc mtree_desc = {
    .target = "fuzz_mtree",
    .nops = OP_NR,
    .ops = mtree_ops,
    .config_names = mtree_config,
    .nfibers = PROG_FIBERS,
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
	return MT_MAX - base < (uint64_t)d ? MT_MAX : base + (uint64_t)d;
}

/* Resolve a range spec against a tree's map: most specs hit an entry or a gap. */
static void resolve(const struct mtref *ref, const uint8_t *b, uint64_t *first, uint64_t *last)
{
	struct range_spec rs;
	struct mt_range r;
	uint64_t start = 0;

	range_spec_decode(b, &rs);
	switch (rs.mode) {
	case RS_ENTRY:
		if (ref->n) {
			const struct mtref_range *e = &ref->v[rs.k % ref->n];

			start = add_clamped(e->first, rs.d);
		} else {
			start = rs.k;
		}
		break;
	case RS_GAP: {
		size_t gaps = mtref_gaps(ref);

		if (gaps) {
			mtref_gap_at(ref, rs.k % gaps, &r);
			start = add_clamped(r.first, rs.d);
		} else {
			start = rs.k;
		}
		break;
	}
	case RS_RAW:
		start = rs.v;
		break;
	case RS_TOP:
		start = MT_MAX - rs.v;
		break;
	}
	*first = start;
	if (rs.len) {
		*last = add_clamped(start, rs.len - 1);
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
	mt_destroy(&s->mt[t]);
	mtref_free(&s->ref[t]);
	mtref_log_add(&s->log[t], 0, MT_MAX, NULL);
}

/* A write under fail_at: fails with -ENOMEM and changes nothing, or succeeds. */
static void write_op(struct mtree_state *s, const struct prog_op *op, unsigned t, uint64_t first,
		     uint64_t last, void *entry)
{
	struct mt_snapshot before;
	bool fired;
	int err;

	mt_snapshot_take(&s->mt[t], &before);
	exec_arm(op);
	err = mt_store_range(&s->mt[t], first, last, entry);
	fired = exec_disarm();
	mt_check_write(&s->mt[t], &before, err, fired, 0, entry ? "store" : "erase");
	if (!fired)
		ref_store(s, t, first, last, entry);
	mt_snapshot_free(&before);
}

static void op_erase_at(struct mtree_state *s, const struct prog_op *op, unsigned t, uint64_t index)
{
	struct mt_range r;
	void *want = mtref_range_of(&s->ref[t], index, &r), *old = NULL;
	struct mt_snapshot before;
	bool fired;
	int err;

	mt_snapshot_take(&s->mt[t], &before);
	exec_arm(op);
	err = mt_erase(&s->mt[t], index, &old);
	fired = exec_disarm();
	mt_check_write(&s->mt[t], &before, err, fired, 0, "erase_at");
	if (old != want)
		check_fail(CK_MT_OP_RESULT, "erase at %#" PRIx64 " found %p, the map holds %p",
			   index, old, want);
	if (!fired && want)
		ref_store(s, t, r.first, r.last, NULL);
	mt_snapshot_free(&before);
}

static void op_dup(struct mtree_state *s, const struct prog_op *op)
{
	unsigned src = op->arg[0], dst = op->arg[1];
	struct mt_snapshot before, empty;
	bool fired;
	int err;

	if (dst == src)
		dst = (dst + 1) % NTREES;
	/* two locks of one class: in tree order, the second nested */
	down_write(&s->lock[src < dst ? src : dst]);
	down_write_nested(&s->lock[src < dst ? dst : src], 1);
	tree_clear(s, dst);
	mt_snapshot_take(&s->mt[src], &before);
	mt_snapshot_take(&s->mt[dst], &empty);
	exec_arm(op);
	err = mt_dup(&s->mt[src], &s->mt[dst]);
	fired = exec_disarm();
	mt_check_unchanged(&s->mt[src], &before, CK_MT_DUP_SOURCE_CHANGED, "dup");
	/* a failed dup leaves the destination empty */
	mt_check_write(&s->mt[dst], &empty, err, fired, 0, "dup");
	if (!fired) {
		mt_check_dup(&s->mt[src], &s->mt[dst]);
		ref_copy(s, dst, src);
	}
	mt_snapshot_free(&before);
	mt_snapshot_free(&empty);
	up_write(&s->lock[src < dst ? dst : src]);
	up_write(&s->lock[src < dst ? src : dst]);
}

/* Append n entries of the range's length from its start, gaps every third. */
static void op_bulk(struct mtree_state *s, const struct prog_op *op, uint64_t first, uint64_t last)
{
	unsigned t = op->arg[0], n = op->arg[5];
	uint64_t len = last - first < 255 ? last - first + 1 : 255, at = first;
	struct mt_bulk b;
	bool fired;
	int err;

	tree_clear(s, t);
	exec_arm(op);
	err = mt_bulk_begin(&b, &s->mt[t], n);
	if (!err) {
		for (unsigned i = 0; i < n && MT_MAX - at >= len - 1; i++) {
			uint64_t step = len + (i % 3 == 2);

			err = mt_bulk_append(&b, at, at + len - 1, val(i));
			if (err)
				break; /* what came before stays */
			ref_store(s, t, at, at + len - 1, val(i));
			if (MT_MAX - at < step)
				break;
			at += step;
		}
		mt_bulk_end(&b);
	}
	fired = exec_disarm();
	if (err && !(fired && err == -ENOMEM))
		check_fail(CK_MT_OP_RESULT, "bulk append returned %d", err);
}

static bool rcu_visit(void *arg, const struct mt_range *r, void *e)
{
	return mtref_reader_saw(arg, r, e);
}

static void op_rcu_walk(struct mtree_state *s, const struct prog_op *op)
{
	unsigned t = op->arg[0];
	struct mtref_reader rd;
	uint64_t first, last;

	rcu_read_lock();
	resolve(&s->ref[t], &op->arg[1], &first, &last);
	mtref_reader_begin(&rd, &s->ref[t], &s->log[t], t);
	mt_rcu_walk(&s->mt[t], first, last, rcu_visit, &rd);
	mtref_reader_end(&rd, first, last);
	rcu_read_unlock();
}

static bool op_writes(unsigned code)
{
	return code == OP_STORE || code == OP_ERASE || code == OP_ERASE_AT || code == OP_BULK ||
	       code == OP_DESTROY;
}

static void run_op(void *arg, const struct prog_op *op)
{
	struct mtree_state *s = arg;
	unsigned t = op->arg[0];
	uint64_t first = 0, last = 0;

	if (op->code == OP_RCU_WALK) {
		op_rcu_walk(s, op);
		return;
	}
	if (op->code == OP_DUP) {
		op_dup(s, op);
		return;
	}
	if (op_writes(op->code))
		down_write(&s->lock[t]);
	else
		down_read(&s->lock[t]);
	if (mtree_ops[op->code].nfields >= 2 && mtree_ops[op->code].fields[1].kind == FK_RANGE)
		resolve(&s->ref[t], &op->arg[1], &first, &last);

	switch (op->code) {
	case OP_STORE:
		write_op(s, op, t, first, last, val(op->arg[5]));
		break;
	case OP_ERASE:
		write_op(s, op, t, first, last, NULL);
		break;
	case OP_ERASE_AT:
		op_erase_at(s, op, t, first);
		break;
	case OP_LOAD:
		mtref_check_load(&s->ref[t], &s->mt[t], first);
		break;
	case OP_FIND:
		mtref_check_find(&s->ref[t], &s->mt[t], first);
		break;
	case OP_WALK:
		mtref_check_walk(&s->ref[t], &s->mt[t], first, last);
		break;
	case OP_GAP: {
		uint64_t size = op->arg[5] ? op->arg[5] : MT_MAX - 1;

		mtref_check_gap(&s->ref[t], &s->mt[t], first, last, size, op->arg[6] == 1);
		break;
	}
	case OP_BULK:
		op_bulk(s, op, first, last);
		break;
	case OP_DESTROY:
		tree_clear(s, t);
		break;
	}
	if (op_writes(op->code))
		up_write(&s->lock[t]);
	else
		up_read(&s->lock[t]);
}

static void check_all(void *arg)
{
	struct mtree_state *s = arg;
	uint64_t nodes = 0;

	for (unsigned t = 0; t < NTREES; t++) {
		mt_validate(&s->mt[t]);
		mtref_matches(&s->ref[t], &s->mt[t]);
		nodes += mt_count_nodes(&s->mt[t]);
	}
	/* replaced nodes an RCU reader may still see are alive too */
	mem_check_live(AK_MT_NODE, nodes + rcu_pending(AK_MT_NODE));
}

static void dump_state(FILE *out, void *arg)
{
	struct mtree_state *s = arg;

	for (unsigned t = 0; t < NTREES; t++) {
		fprintf(out, "mt%u: ", t);
		mt_dump(out, &s->mt[t], print_val);
	}
}

static int mtree_run(const uint8_t *data, size_t size)
{
	static const char *const lock_names[NTREES] = {"mt0 lock", "mt1 lock", "mt2 lock",
						       "mt3 lock"};
	struct mtree_state s;
	struct exec x;

	memset(&s, 0, sizeof(s));
	for (unsigned t = 0; t < NTREES; t++) {
		mt_init(&s.mt[t]);
		mt_set_rcu(&s.mt[t], true);
		mtref_init(&s.ref[t]);
		rwsem_init(&s.lock[t], &lock_class_tree, lock_names[t]);
	}
	exec_begin(&x, &mtree_desc, data, size, dump_state, &s);
	exec_run(&x, run_op, check_all);
	for (unsigned t = 0; t < NTREES; t++) {
		tree_clear(&s, t);
		mtref_log_free(&s.log[t]);
	}
	mem_check_empty();
	exec_end(&x);
	return 0;
}

const struct fuzz_target fuzz_mtree_target = {
    .name = "fuzz_mtree",
    .summary = "range tree: store, erase, find, walks (also under RCU against writers), gap "
	       "search, dup, bulk, against a reference map",
    .desc = &mtree_desc,
    .run = mtree_run,
};
