/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's range tree (src/tree/mtree.h) as a tree backend
 * (tree_backend.h). A handle is a struct mtree *: tests may pass their own.
 */
#include "tree_backend.h"

#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct tree_range) == sizeof(struct mt_range) &&
		   offsetof(struct tree_range, last) == offsetof(struct mt_range, last),
	       "a tree range is the model's range");

static void *model_create(void)
{
	struct mtree *mt = malloc(sizeof(*mt));

	if (!mt)
		return NULL;
	mt_init(mt);
	mt_set_rcu(mt, true);
	return mt;
}

static void model_clear(void *t)
{
	mt_destroy(t);
}

static void model_release(void *t)
{
	mt_destroy(t);
	free(t);
}

static int model_store(void *t, uint64_t first, uint64_t last, void *entry)
{
	return mt_store_range(t, first, last, entry);
}

/* The model has one write path: every path is its store. */
static int model_store_path(void *t, uint64_t first, uint64_t last, void *entry,
			    enum tree_write_path how)
{
	(void)how;
	return mt_store_range(t, first, last, entry);
}

/* insert and alloc are the model's search, then its store. */
static int model_insert(void *t, uint64_t first, uint64_t last, void *entry)
{
	struct mt_range r;

	if (first > last || !entry || mt_is_reserved(entry))
		return -EINVAL;
	if (mt_find(t, first, last, &r))
		return -EEXIST;
	return mt_store_range(t, first, last, entry);
}

static int model_alloc_range(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
			     void *entry, uint64_t *start)
{
	uint64_t at;
	int err;

	if (!entry || mt_is_reserved(entry))
		return -EINVAL;
	err = highest ? mt_gap_highest(t, lo, hi, size, &at) : mt_gap_lowest(t, lo, hi, size, &at);
	if (!err)
		err = mt_store_range(t, at, at + (size - 1), entry);
	if (!err)
		*start = at;
	return err;
}

/* next and prev: the range holding @index, then a find beyond it. */
static void *model_next(void *t, uint64_t index, uint64_t max, struct tree_range *r)
{
	struct mt_range at;

	if (index >= max)
		return NULL;
	mt_load_range(t, index, &at);
	if (at.last == TREE_MAX)
		return NULL;
	return mt_find(t, at.last + 1, max, (struct mt_range *)(void *)r);
}

static void *model_prev(void *t, uint64_t index, uint64_t min, struct tree_range *r)
{
	struct mt_range at;

	if (index <= min)
		return NULL;
	mt_load_range(t, index, &at);
	if (at.first == 0)
		return NULL;
	return mt_find_prev(t, at.first - 1, min, (struct mt_range *)(void *)r);
}

static int model_erase(void *t, uint64_t index, void **old)
{
	return mt_erase(t, index, old);
}

static void *model_load(void *t, uint64_t index, struct tree_range *r)
{
	return mt_load_range(t, index, (struct mt_range *)(void *)r);
}

static void *model_find(void *t, uint64_t from, uint64_t max, struct tree_range *r)
{
	return mt_find(t, from, max, (struct mt_range *)(void *)r);
}

static void *model_find_prev(void *t, uint64_t from, uint64_t min, struct tree_range *r)
{
	return mt_find_prev(t, from, min, (struct mt_range *)(void *)r);
}

static int model_gap(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
		     uint64_t *start)
{
	return highest ? mt_gap_highest(t, lo, hi, size, start)
		       : mt_gap_lowest(t, lo, hi, size, start);
}

static void model_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	struct mt_cursor c;
	void *e;

	mt_cursor_init(&c, t, from);
	while ((e = mt_cursor_next(&c)) && c.range.first <= to)
		if (!visit(arg, (const struct tree_range *)(const void *)&c.range, e))
			break;
}

struct rcu_visit {
	tree_visit_fn visit;
	void *arg;
};

static bool rcu_visit(void *arg, const struct mt_range *r, void *entry)
{
	struct rcu_visit *v = arg;

	return v->visit(v->arg, (const struct tree_range *)(const void *)r, entry);
}

static void model_rcu_walk(void *t, uint64_t from, uint64_t to, tree_visit_fn visit, void *arg)
{
	struct rcu_visit v = {visit, arg};

	mt_rcu_walk(t, from, to, rcu_visit, &v);
}

static int model_dup(void *src, void *dst)
{
	return mt_dup(src, dst);
}

/* Mark where a failed fork stopped: in place over an entry, cannot fail. */
static int model_fork_mark(struct mtree *child, const struct mt_range *r)
{
	MODEL_ASSERT(mt_store_range(child, r->first, r->last, MT_ZERO_ENTRY) == 0);
	return -ENOMEM;
}

/* src/mm/fork.c's fork_tree_dup on bare entries, with the RCU mode of 6.12. */
static int model_fork(void *src, void *dst, const struct tree_fork_ops *ops)
{
	struct mtree *child = dst;
	struct mt_cursor c;
	void *e, *copy;
	int err = mt_dup(src, child);

	if (err)
		return err;
	mt_set_rcu(child, false);
	mt_cursor_init(&c, child, 0);
	while ((e = mt_cursor_next(&c))) {
		struct mt_range r = c.range;
		const struct tree_range *tr = (const struct tree_range *)(const void *)&r;

		switch (ops->entry(ops->arg, tr, e, &copy)) {
		case TREE_FORK_DROP:
			if (mt_store_range(child, r.first, r.last, NULL))
				return model_fork_mark(child, &r);
			continue;
		case TREE_FORK_FAIL:
			return model_fork_mark(child, &r);
		case TREE_FORK_COPY:
			break;
		}
		mt_cursor_replace(&c, copy);
		if (!ops->copied(ops->arg, tr, copy)) {
			if (mt_cursor_next(&c))
				model_fork_mark(child, &c.range);
			return -ENOMEM;
		}
	}
	mt_set_rcu(child, true);
	return 0;
}

/* exit_mmap (src/mm/exit.c) on bare entries. */
static void model_fork_exit(void *t, tree_visit_fn visit, void *arg)
{
	struct mt_cursor c;
	void *e;

	mt_cursor_init(&c, t, 0);
	while ((e = mt_cursor_next(&c)) && !mt_is_zero(e))
		visit(arg, (const struct tree_range *)(const void *)&c.range, e);
	mt_destroy(t);
	mt_set_rcu(t, true);
}

static int model_bulk_begin(void *t, uint64_t expected, void **bulk)
{
	struct mt_bulk *b = malloc(sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	err = mt_bulk_begin(b, t, expected);
	if (err) {
		free(b);
		return err;
	}
	*bulk = b;
	return 0;
}

static int model_bulk_append(void *bulk, uint64_t first, uint64_t last, void *entry)
{
	return mt_bulk_append(bulk, first, last, entry);
}

static void model_bulk_end(void *bulk)
{
	mt_bulk_end(bulk);
	free(bulk);
}

/* The normal API: the model's tree has no lock of its own, so these are
 * its plain calls. */
static void *model_lookup(void *t, uint64_t index)
{
	void *e = mt_load(t, index);

	return mt_is_zero(e) ? NULL : e;
}

static void *model_erase_locked(void *t, uint64_t index)
{
	void *old = NULL;

	(void)mt_erase(t, index, &old); /* a failure leaves the tree as it was */
	return old;
}

static void model_destroy_locked(void *t)
{
	mt_destroy(t);
}

static void model_walk_entries(struct mtree *mt, uint64_t from, uint64_t to, bool rev,
			       tree_visit_fn visit, void *arg)
{
	struct mt_range r;
	uint64_t at = rev ? to : from;
	void *e;

	while ((e = rev ? mt_find_prev(mt, at, from, &r) : mt_find(mt, at, to, &r))) {
		if (!visit(arg, (const struct tree_range *)(const void *)&r, e))
			return;
		if (rev ? r.first <= from : r.last >= to)
			return;
		at = rev ? r.first - 1 : r.last + 1;
	}
}

/* mt_for_each: each entry's range from where its search started. */
static void model_walk_find(struct mtree *mt, uint64_t from, uint64_t to, tree_visit_fn visit,
			    void *arg)
{
	struct mt_range r;
	uint64_t at = from;
	void *e;

	while ((e = mt_find(mt, at, to, &r))) {
		struct tree_range seen = {at, r.last};

		if (!mt_is_zero(e) && !visit(arg, &seen, e))
			return;
		if (r.last >= to)
			return;
		at = r.last + 1;
	}
}

/* Every range, empty or not, from the one holding @from (an empty one
 * skipped, as the kernel's first step skips it) up to the one holding @to. */
static void model_walk_ranges(struct mtree *mt, uint64_t from, uint64_t to, bool rev,
			      tree_visit_fn visit, void *arg)
{
	struct mt_range r;
	uint64_t at = rev ? to : from;
	bool first = true;

	for (;;) {
		void *e = mt_load_range(mt, at, &r);

		if ((e || !first) && !visit(arg, (const struct tree_range *)(const void *)&r, e))
			return;
		first = false;
		if (rev ? r.first <= from : r.last >= to)
			return;
		at = rev ? r.first - 1 : r.last + 1;
	}
}

static void model_walk_by(void *t, uint64_t from, uint64_t to, enum tree_walk_way how,
			  tree_visit_fn visit, void *arg)
{
	if (from > to)
		return;
	switch (how) {
	case TREE_WALK_PAUSED:
	case TREE_WALK_PAUSED_REV:
		model_walk_entries(t, from, to, how == TREE_WALK_PAUSED_REV, visit, arg);
		break;
	case TREE_WALK_FIND:
		model_walk_find(t, from, to, visit, arg);
		break;
	default:
		model_walk_ranges(t, from, to, how == TREE_WALK_RANGES_REV, visit, arg);
		break;
	}
}

static bool model_validate(void *t)
{
	return mt_validate(t);
}

static bool model_check_dup(void *src, void *dup)
{
	return mt_check_dup(src, dup);
}

static void model_picture(void *t, struct tree_picture *p)
{
	struct mt_snapshot s;

	mt_snapshot_take(t, &s);
	p->w = s.w;
	p->n = s.n;
	p->cap = s.cap;
}

static uint64_t model_nodes(void *t)
{
	return mt_count_nodes(t);
}

static bool model_check_live(uint64_t reachable)
{
	/* replaced nodes an RCU reader may still see are alive too */
	return mem_check_live(AK_MT_NODE, reachable + rcu_pending(AK_MT_NODE));
}

static void model_dump(FILE *out, void *t, void (*print)(FILE *out, const void *entry))
{
	mt_dump(out, t, print);
}

const struct tree_backend tree_model = {
    .name = "model",
    .zero = MT_ZERO_ENTRY,
    .create = model_create,
    .clear = model_clear,
    .release = model_release,
    .store = model_store,
    .store_path = model_store_path,
    .insert = model_insert,
    .alloc = model_alloc_range,
    .next = model_next,
    .prev = model_prev,
    .erase = model_erase,
    .load = model_load,
    .find = model_find,
    .find_prev = model_find_prev,
    .gap = model_gap,
    .walk = model_walk,
    .rcu_walk = model_rcu_walk,
    .dup = model_dup,
    .fork = model_fork,
    .fork_exit = model_fork_exit,
    .bulk_begin = model_bulk_begin,
    .bulk_append = model_bulk_append,
    .bulk_end = model_bulk_end,
    .lookup = model_lookup,
    .erase_locked = model_erase_locked,
    .destroy_locked = model_destroy_locked,
    .dup_locked = model_dup,
    .walk_by = model_walk_by,
    .walk_ways = (1u << TREE_WALK_NR) - 1,
    .validate = model_validate,
    .check_dup = model_check_dup,
    .picture = model_picture,
    .nodes = model_nodes,
    .check_live = model_check_live,
    .dump = model_dump,
};
