/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit tests of the range tree: writes against the reference map, every
 * validate check firing on a tree corrupted by hand, dup at every failure
 * point for heights 1 to 4, gap search against brute force, bulk append,
 * cursors and the zero entry; fuzz_mtree's fork at every failure point,
 * each of its checks firing on a backend broken on purpose.
 */
#include "fuzz/prog/prng.h"
#include "fuzz/targets/mtree_run.h"
#include "fuzz/tree/mtref.h"
#include "fuzz/tree/mtref_rcu.h"
#include "fuzz/tree/tree_backend.h"
#include "fuzz/tree/tree_check.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "test.h"
#include "tree/mtree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Entries are tagged integers: never NULL, never reserved. */
static void *val(uint64_t k)
{
	return (void *)(uintptr_t)(k << 2 | 1);
}

/* A random range: mostly small indices so writes collide, sometimes the edges. */
static void rand_range(struct prng *p, uint64_t span, uint64_t *first, uint64_t *last)
{
	switch (prng_below(p, 16)) {
	case 0:
		*first = MT_MAX - prng_below(p, 8);
		*last = *first + prng_below(p, MT_MAX - *first + 1);
		return;
	case 1:
		*first = prng_below(p, 4);
		break;
	default:
		*first = prng_below(p, span);
	}
	*last = *first + prng_below(p, prng_below(p, 4) ? 8 : 64);
}

static bool tree_ok(struct mtree *mt, struct mtref *ref)
{
	return mt_validate(mt) && mtref_matches(ref, &tree_model, mt);
}

static bool test_store_random(void)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct prng p = {seed};
		struct mtree mt;
		struct mtref ref;
		uint64_t span = seed * 300;

		mt_init(&mt);
		mtref_init(&ref);
		for (int i = 0; i < 1500; i++) {
			uint64_t first, last;
			void *e = prng_below(&p, 3) ? val(prng_below(&p, 50) + 1) : NULL;

			rand_range(&p, span, &first, &last);
			ASSERT_EQ(mt_store_range(&mt, first, last, e), 0);
			mtref_store(&ref, first, last, e);
			ASSERT(tree_ok(&mt, &ref));
			for (int k = 0; k < 4; k++) {
				uint64_t at = prng_below(&p, span + 64);

				ASSERT(mt_load(&mt, at) == mtref_load(&ref, at));
				ASSERT(mtref_check_find(&ref, &tree_model, &mt, at));
			}
		}
		mt_destroy(&mt);
		mtref_free(&ref);
		ASSERT(mem_check_empty());
	}
	return true;
}

static bool test_height_grows_and_shrinks(void)
{
	struct mtree mt;
	unsigned top = 0;

	mt_init(&mt);
	for (uint64_t i = 0; i < 5000; i++) {
		/* 2 (i + 1) ranges, each entry and the gap after it: no taller
		 * than the fewest levels of 16 slots that hold them (a root
		 * rebuilt at 198 ranges needs two) */
		uint64_t ranges = 2 * (i + 1), cap = MT_SLOTS;
		unsigned least = 1;

		while (cap < ranges) {
			cap *= MT_SLOTS;
			least++;
		}
		ASSERT_EQ(mt_store_range(&mt, 10 * i, 10 * i + 4, val(i + 1)), 0);
		ASSERT(mt.height <= least);
		if (mt.height > top)
			top = mt.height;
	}
	ASSERT(mt_validate(&mt));
	ASSERT(top >= 4);
	/* erase from the middle outwards so both merges and root collapses happen */
	for (uint64_t k = 0; k < 5000; k++) {
		uint64_t i = (k * 2654435761u) % 5000;
		void *old = NULL;

		ASSERT_EQ(mt_erase(&mt, 10 * i + 2, &old), 0);
		ASSERT(old == val(i + 1));
		if (k % 97 == 0)
			ASSERT(mt_validate(&mt));
	}
	ASSERT(mt_empty(&mt));
	ASSERT_EQ(mt.height, 0);
	ASSERT_EQ(alloc_live(AK_MT_NODE), 0);
	return true;
}

static bool test_reserved_and_zero_entry(void)
{
	struct mtree mt;
	struct mt_range r;

	mt_init(&mt);
	ASSERT_EQ(mt_store_range(&mt, 5, 4, val(1)), -EINVAL);
	ASSERT_EQ(mt_store_range(&mt, 0, 4, (void *)(uintptr_t)0x12), -EINVAL);
	ASSERT_EQ(mt_store_range(&mt, 0, 9, val(1)), 0);
	ASSERT_EQ(mt_store_range(&mt, 10, 19, MT_ZERO_ENTRY), 0);
	ASSERT(mt_is_zero(mt_load(&mt, 15)));
	ASSERT(mt_find(&mt, 10, MT_MAX, &r) == MT_ZERO_ENTRY);
	ASSERT_EQ(r.first, 10);
	ASSERT(!mt_is_zero(mt_load(&mt, 5)));
	ASSERT(mt_validate(&mt));
	mt_destroy(&mt);
	return true;
}

static bool test_cursor_replace(void)
{
	struct mtree mt;
	struct mt_cursor c;
	uint64_t n = 0;
	void *e;

	mt_init(&mt);
	for (uint64_t i = 0; i < 400; i++)
		ASSERT_EQ(mt_store_range(&mt, 3 * i, 3 * i + 1, val(i + 1)), 0);
	mt_cursor_init(&c, &mt, 0);
	while ((e = mt_cursor_next(&c))) {
		ASSERT(e == val(n + 1));
		ASSERT_EQ(c.range.first, 3 * n);
		mt_cursor_replace(&c, val(n + 1000));
		n++;
	}
	ASSERT_EQ(n, 400);
	for (uint64_t i = 0; i < 400; i++)
		ASSERT(mt_load(&mt, 3 * i + 1) == val(i + 1000));
	ASSERT(mt_validate(&mt));
	/* an entry at MT_MAX ends the walk */
	ASSERT_EQ(mt_store_range(&mt, MT_MAX - 1, MT_MAX, val(7)), 0);
	mt_cursor_reset(&c, MT_MAX - 3);
	ASSERT(mt_cursor_next(&c) == val(7));
	ASSERT(mt_cursor_next(&c) == NULL);
	mt_destroy(&mt);
	return true;
}

/* Build a tree of roughly @entries entries with gaps, by ordinary stores. */
static void build_tree(struct mtree *mt, struct mtref *ref, uint64_t entries, uint64_t seed)
{
	struct prng p = {seed};
	uint64_t at = prng_below(&p, 4);

	mt_init(mt);
	if (ref)
		mtref_init(ref);
	for (uint64_t i = 0; i < entries; i++) {
		uint64_t len = 1 + prng_below(&p, 5);

		mt_store_range(mt, at, at + len - 1, val(i + 1));
		if (ref)
			mtref_store(ref, at, at + len - 1, val(i + 1));
		at += len + prng_below(&p, 3); /* 0: adjacent entries */
	}
}

static bool test_dup_every_failure_point(void)
{
	static const uint64_t sizes[] = {5, 60, 900, 3000}; /* heights 1..4 */

	for (unsigned s = 0; s < 4; s++) {
		struct mtree src, dst;
		struct mt_snapshot before, after;
		uint64_t live = 0, points = 0;

		build_tree(&src, NULL, sizes[s], s + 1);
		ASSERT_EQ(src.height, s + 1);
		mt_snapshot_take(&src, &before);
		live = alloc_live(AK_MT_NODE);
		for (uint64_t n = 1;; n++) {
			int err;

			mt_init(&dst);
			alloc_fail_arm(n);
			err = mt_dup(&src, &dst);
			alloc_fail_disarm();
			mt_snapshot_take(&src, &after);
			ASSERT(mt_snapshot_equal(&before, &after));
			mt_snapshot_free(&after);
			if (!alloc_fail_fired()) {
				ASSERT_EQ(err, 0);
				ASSERT(mt_equal(&src, &dst));
				ASSERT(mt_validate(&dst));
				ASSERT_EQ(alloc_live(AK_MT_NODE), 2 * live);
				mt_destroy(&dst);
				break;
			}
			points++;
			ASSERT_EQ(err, -ENOMEM);
			ASSERT(mt_empty(&dst));
			ASSERT_EQ(alloc_live(AK_MT_NODE), live);
		}
		ASSERT_EQ(points, mt_count_nodes(&src));
		mt_snapshot_free(&before);
		mt_destroy(&src);
		ASSERT(mem_check_empty());
	}
	return true;
}

/*
 * The picture behind "a failed write leaves the tree as it was" sees every
 * part of the tree: an entry replaced in place (same ranges, same nodes), a
 * pivot moved, a gap changed, each makes it differ.
 */
static bool test_snapshot_sees_every_change(void)
{
	struct mtree mt;
	struct mtref ref;
	struct mt_snapshot before, after;
	struct mt_node *leaf;

	build_tree(&mt, &ref, 200, 3);
	ASSERT(mt.height >= 2);
	leaf = mt.root;
	while (!leaf->leaf)
		leaf = leaf->slot[0];
	ASSERT(leaf->end >= 1);
	for (int part = 0; part < 3; part++) {
		void *slot = leaf->slot[0];
		uint64_t pivot = leaf->pivot[0], gap = mt.root->gap[0];

		mt_snapshot_take(&mt, &before);
		if (part == 0)
			leaf->slot[0] = slot == val(5) ? val(6) : val(5);
		else if (part == 1)
			leaf->pivot[0] = pivot - 1;
		else
			mt.root->gap[0] = gap + 1;
		mt_snapshot_take(&mt, &after);
		ASSERT(!mt_snapshot_equal(&before, &after));
		leaf->slot[0] = slot;
		leaf->pivot[0] = pivot;
		mt.root->gap[0] = gap;
		mt_snapshot_free(&after);
		mt_snapshot_take(&mt, &after);
		ASSERT(mt_snapshot_equal(&before, &after));
		mt_snapshot_free(&before);
		mt_snapshot_free(&after);
	}
	ASSERT(tree_ok(&mt, &ref));
	mt_destroy(&mt);
	mtref_free(&ref);
	return true;
}

/* A store that must allocate leaves the tree as it was when it fails. */
static bool test_store_failure_leaves_tree(void)
{
	struct prng p = {99};
	struct mtree mt;
	struct mtref ref;

	build_tree(&mt, &ref, 700, 5);
	for (int i = 0; i < 300; i++) {
		struct mt_snapshot before, after;
		uint64_t first, last, live = alloc_live(AK_MT_NODE);
		void *e = prng_below(&p, 2) ? val(77) : NULL;
		int err;

		rand_range(&p, 3000, &first, &last);
		mt_snapshot_take(&mt, &before);
		alloc_fail_arm(1 + prng_below(&p, 3));
		err = mt_store_range(&mt, first, last, e);
		alloc_fail_disarm();
		if (err) {
			ASSERT_EQ(err, -ENOMEM);
			mt_snapshot_take(&mt, &after);
			ASSERT(mt_snapshot_equal(&before, &after));
			ASSERT_EQ(alloc_live(AK_MT_NODE), live);
			mt_snapshot_free(&after);
		} else {
			mtref_store(&ref, first, last, e);
		}
		mt_snapshot_free(&before);
		ASSERT(tree_ok(&mt, &ref));
	}
	mt_destroy(&mt);
	mtref_free(&ref);
	return true;
}

static bool test_gap_search_brute_force(void)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct prng p = {seed * 7};
		struct mtree mt;
		struct mtref ref;

		build_tree(&mt, &ref, seed * 150, seed);
		for (int i = 0; i < 3000; i++) {
			uint64_t lo = prng_below(&p, seed * 700), hi = lo + prng_below(&p, 2000);
			uint64_t size = 1 + prng_below(&p, prng_below(&p, 4) ? 4 : 40);

			if (i % 50 == 0)
				hi = MT_MAX;
			if (i % 70 == 0)
				size = MT_MAX - prng_below(&p, 2);
			ASSERT(mtref_check_gap(&ref, &tree_model, &mt, lo, hi, size, false));
			ASSERT(mtref_check_gap(&ref, &tree_model, &mt, lo, hi, size, true));
		}
		mt_destroy(&mt);
		mtref_free(&ref);
	}
	/* the empty tree is one gap of the whole space */
	{
		struct mtree mt;
		uint64_t start;

		mt_init(&mt);
		ASSERT_EQ(mt_gap_highest(&mt, 0, MT_MAX, MT_MAX, &start), 0);
		ASSERT_EQ(start, 1);
		ASSERT_EQ(mt_gap_lowest(&mt, 5, 4, 1, &start), -EINVAL);
		ASSERT_EQ(mt_gap_lowest(&mt, 5, 9, 0, &start), -EINVAL);
		ASSERT_EQ(mt_gap_lowest(&mt, 5, 9, 6, &start), -EBUSY);
	}
	return true;
}

/* Leaves, left to right, that end in an empty range, the last leaf apart
 * (bulk mode never splits there: mab_calc_split). */
static unsigned leaves_ending_empty(const struct mt_node *n, bool rightmost)
{
	unsigned k = 0;

	if (n->leaf)
		return !rightmost && !n->slot[n->end];
	for (unsigned i = 0; i <= n->end; i++)
		k += leaves_ending_empty(n->slot[i], rightmost && i == n->end);
	return k;
}

static bool test_bulk_append(void)
{
	static const uint64_t counts[] = {0, 1, 2, 7, 16, 17, 40, 241, 256, 257, 4097, 51221};

	for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct mtree mt;
		struct mtref ref;
		struct mt_bulk b;
		uint64_t at = k & 1;

		mt_init(&mt);
		mtref_init(&ref);
		ASSERT_EQ(mt_bulk_begin(&b, &mt, counts[k]), 0);
		for (uint64_t i = 0; i < counts[k]; i++) {
			uint64_t len = 1 + (i % 3);

			ASSERT_EQ(mt_bulk_append(&b, at, at + len - 1, val(i + 1)), 0);
			mtref_store(&ref, at, at + len - 1, val(i + 1));
			at += len + (i % 4 == 0);
		}
		if (counts[k]) /* out of order */
			ASSERT_EQ(mt_bulk_append(&b, 0, 0, val(1)), -EINVAL);
		mt_bulk_end(&b);
		ASSERT(tree_ok(&mt, &ref));
		ASSERT_EQ(mt.root ? leaves_ending_empty(mt.root, true) : 0, 0);
		mt_destroy(&mt);
		mtref_free(&ref);
		ASSERT_EQ(alloc_live(AK_MT_NODE), 0);
	}
	/* an empty range after every entry, from 0 or from 1: splits that
	 * would end the left leaf in one move a slot to the right */
	for (uint64_t start = 0; start < 2; start++) {
		struct mtree mt;
		struct mtref ref;
		struct mt_bulk b;

		mt_init(&mt);
		mtref_init(&ref);
		ASSERT_EQ(mt_bulk_begin(&b, &mt, 300), 0);
		for (uint64_t i = 0; i < 300; i++) {
			ASSERT_EQ(mt_bulk_append(&b, start + 3 * i, start + 3 * i + 1, val(i + 1)),
				  0);
			mtref_store(&ref, start + 3 * i, start + 3 * i + 1, val(i + 1));
		}
		mt_bulk_end(&b);
		ASSERT(tree_ok(&mt, &ref));
		ASSERT_EQ(leaves_ending_empty(mt.root, true), 0);
		mt_destroy(&mt);
		mtref_free(&ref);
	}
	return true;
}

/* A failed append leaves what was appended before it, as a valid tree. */
static bool test_bulk_failure_points(void)
{
	for (uint64_t n = 1; n < 80; n++) {
		struct mtree mt;
		struct mtref ref;
		struct mt_bulk b;
		int err;

		mt_init(&mt);
		mtref_init(&ref);
		alloc_fail_arm(n);
		err = mt_bulk_begin(&b, &mt, 50);
		if (!err) {
			for (uint64_t i = 0; i < 400; i++) {
				err = mt_bulk_append(&b, 4 * i, 4 * i + 2, val(i + 1));
				if (err)
					break;
				mtref_store(&ref, 4 * i, 4 * i + 2, val(i + 1));
			}
			mt_bulk_end(&b);
		}
		alloc_fail_disarm();
		ASSERT(err == 0 || err == -ENOMEM);
		ASSERT(tree_ok(&mt, &ref));
		mt_destroy(&mt);
		mtref_free(&ref);
		ASSERT_EQ(alloc_live(AK_MT_NODE), 0);
	}
	return true;
}

/* ---- every check of the tree family fires on a hand-made corruption --- */

static struct mt_node *first_leaf(struct mtree *mt)
{
	struct mt_node *n = mt->root;

	while (!n->leaf)
		n = n->slot[0];
	return n;
}

/* Run validate in collect mode and report whether @id fired. */
static bool fires(struct mtree *mt, enum check_id id)
{
	bool fired;

	check_clear();
	check_set_mode(CHECK_COLLECT);
	mt_validate(mt);
	check_set_mode(CHECK_ABORT);
	fired = check_count(id) > 0;
	check_clear();
	return fired;
}

/*
 * Every tree invariant fires on a damaged node. One piece on purpose: each
 * step breaks one field of the same tree, checks that exactly its
 * invariant fires, and mends it for the next, as a table of cases would but
 * with the damage written where it is read.
 */
static bool test_validate_fires(void)
{
	struct mtree mt;
	struct mt_node *root, *leaf, *c0, *c1;
	uint64_t saved;
	void *sv;

	build_tree(&mt, NULL, 200, 3);
	ASSERT(mt.height >= 2);
	ASSERT(mt_validate(&mt));
	root = mt.root;
	leaf = first_leaf(&mt);
	c0 = root->slot[0];
	c1 = root->slot[1];

	saved = leaf->pivot[1];
	leaf->pivot[1] = leaf->pivot[0];
	ASSERT(check_total() == 0 && fires(&mt, CK_MT_PIVOT_ORDER));
	leaf->pivot[1] = saved;

	saved = root->pivot[0];
	root->pivot[0] = MT_MAX;
	ASSERT(fires(&mt, CK_MT_PIVOT_RANGE));
	root->pivot[0] = saved;

	leaf->slot[MT_SLOTS - 1] = val(3);
	ASSERT(fires(&mt, CK_MT_SLOT_UNUSED));
	leaf->slot[MT_SLOTS - 1] = NULL;
	leaf->pivot[MT_PIVOTS - 1] = 5;
	ASSERT(fires(&mt, CK_MT_SLOT_UNUSED));
	leaf->pivot[MT_PIVOTS - 1] = 0;

	c0->parent = c1;
	ASSERT(fires(&mt, CK_MT_PARENT_LINK));
	c0->parent = root;

	c1->parent_slot = 0;
	ASSERT(fires(&mt, CK_MT_PARENT_SLOT));
	c1->parent_slot = 1;

	mt.height++;
	ASSERT(fires(&mt, CK_MT_LEAF_DEPTH));
	mt.height--;

	{
		uint8_t end = leaf->end;

		leaf->end = 2; /* drops slots past 2, below MT_MIN_SLOTS */
		ASSERT(fires(&mt, CK_MT_OCCUPANCY));
		leaf->end = end;
	}

	saved = root->gap[0];
	root->gap[0] = saved + 1;
	ASSERT(fires(&mt, CK_MT_GAP));
	root->gap[0] = saved;

	/* two adjacent empty ranges: empty a slot next to an empty one */
	for (unsigned i = 0; i < leaf->end; i++) {
		if (!leaf->slot[i] && leaf->slot[i + 1]) {
			sv = leaf->slot[i + 1];
			leaf->slot[i + 1] = NULL;
			ASSERT(fires(&mt, CK_MT_ADJACENT_EMPTY));
			leaf->slot[i + 1] = sv;
			break;
		}
		ASSERT(i + 1 < leaf->end);
	}

	root->slot[1] = NULL;
	ASSERT(fires(&mt, CK_MT_CHILD_NULL));
	root->slot[1] = c1;

	sv = leaf->slot[1];
	leaf->slot[1] = (void *)(uintptr_t)0x802;
	ASSERT(fires(&mt, CK_MT_INTERNAL_ENTRY));
	leaf->slot[1] = sv;

	mt.height = 3;
	{
		struct mtree empty;

		mt_init(&empty);
		empty.height = 2;
		ASSERT(fires(&empty, CK_MT_EMPTY_ROOT));
	}
	mt.height = root->leaf ? 1 : 0;
	ASSERT(fires(&mt, CK_MT_LEAF_DEPTH));
	mt_destroy(&mt);

	/* a root leaf holding nothing but the empty range */
	{
		struct mtree one;

		mt_init(&one);
		mt_store_range(&one, 0, 5, val(1));
		one.root->slot[0] = NULL;
		ASSERT(fires(&one, CK_MT_EMPTY_ROOT));
		mt_destroy(&one);
	}
	ASSERT(!fires(&mt, CK_MT_EMPTY_ROOT)); /* and a clean tree fires nothing */
	return true;
}

/* The oracle checks fire when tree and map disagree. */
static bool test_oracle_checks_fire(void)
{
	struct mtree mt;
	struct mtref ref, other;
	struct mt_snapshot a, b;

	build_tree(&mt, &ref, 100, 4);
	mtref_copy(&other, &ref);
	mtref_store(&other, 3, 3, val(999));
	mtref_store(&other, 50, 60, NULL);

	check_set_mode(CHECK_COLLECT);
	check_clear();
	ASSERT(mtref_matches(&ref, &tree_model, &mt));
	ASSERT(!mtref_matches(&other, &tree_model, &mt));
	ASSERT_EQ(check_count(CK_MT_REF_MISMATCH), 1);
	ASSERT(!mtref_check_find(&other, &tree_model, &mt, 3));
	ASSERT(check_count(CK_MT_WALK) > 0);
	/* a map with a hole the tree lacks: searches disagree */
	mtref_store(&other, 0, 400, NULL);
	ASSERT(!mtref_check_gap(&other, &tree_model, &mt, 0, 400, 100, false));
	ASSERT(check_count(CK_MT_GAP_SEARCH) > 0);
	ASSERT(!mem_check_live(AK_MT_NODE, mt_count_nodes(&mt) + 1));
	ASSERT_EQ(check_count(CK_MEM_LIVE_MISMATCH), 1);
	ASSERT(!mem_check_empty());
	ASSERT(check_count(CK_MEM_LEAK_AT_END) > 0);
	ASSERT(!mtref_check_load(&other, &tree_model, &mt, 3));
	ASSERT_EQ(check_count(CK_MT_REF_MISMATCH), 2);
	ASSERT(!mtref_check_walk(&other, &tree_model, &mt, 0, MT_MAX));
	ASSERT_EQ(check_count(CK_MT_WALK), 2);
	check_set_mode(CHECK_ABORT);
	check_clear();

	/* snapshots see a changed entry */
	mt_snapshot_take(&mt, &a);
	mt_store_range(&mt, 3, 3, val(999));
	mt_snapshot_take(&mt, &b);
	ASSERT(!mt_snapshot_equal(&a, &b));
	mt_snapshot_free(&a);
	mt_snapshot_free(&b);

	mt_destroy(&mt);
	mtref_free(&ref);
	mtref_free(&other);
	return true;
}

/* The outcome checks of writes and dups fire on outcomes made up to be wrong. */
static bool test_outcome_checks_fire(void)
{
	struct mtree a, b;
	struct tree_picture snap = {NULL, 0, 0};

	build_tree(&a, NULL, 50, 8);
	build_tree(&b, NULL, 50, 9);
	tree_model.picture(&a, &snap);
	check_set_mode(CHECK_COLLECT);
	check_clear();
	ASSERT(tree_check_write(&tree_model, &a, &snap, 0, false, 0, "ok"));
	ASSERT(tree_check_write(&tree_model, &a, &snap, -ENOMEM, true, 0, "ok"));
	ASSERT_EQ(check_total(), 0);
	ASSERT(!tree_check_write(&tree_model, &a, &snap, -ENOMEM, false, 0, "store"));
	ASSERT(!tree_check_write(&tree_model, &a, &snap, 0, true, 0, "store"));
	ASSERT_EQ(check_count(CK_MT_OP_RESULT), 2);
	ASSERT(!tree_check_write(&tree_model, &b, &snap, -ENOMEM, true, 0, "store"));
	ASSERT_EQ(check_count(CK_MT_FAILED_WRITE_CHANGED), 1);
	ASSERT(mt_check_dup(&a, &a));
	ASSERT(!mt_check_dup(&a, &b));
	ASSERT_EQ(check_count(CK_MT_DUP_MISMATCH), 1);
	ASSERT(!tree_check_unchanged(&tree_model, &b, &snap, CK_MT_DUP_SOURCE_CHANGED, "dup"));
	ASSERT_EQ(check_count(CK_MT_DUP_SOURCE_CHANGED), 1);
	check_set_mode(CHECK_ABORT);
	check_clear();
	tree_picture_free(&snap);
	mt_destroy(&a);
	mt_destroy(&b);
	return true;
}

/* The RCU reader's oracle fires on a reader that saw what no index held,
 * saw ranges out of order, or missed a range no write touched. */
static bool test_rcu_reader_oracle_fires(void)
{
	struct mtref now;
	struct mtref_log log = {0};
	struct mtref_reader rd;
	struct tree_range r0 = {0, 9}, r1 = {20, 29};

	mtref_init(&now);
	mtref_store(&now, 0, 9, val(1));
	mtref_store(&now, 20, 29, val(2));
	check_set_mode(CHECK_COLLECT);
	check_clear();

	/* a clean walk, and one that saw a write made during it */
	mtref_reader_begin(&rd, &now, &log, 0);
	mtref_log_add(&log, 20, 29, val(3));
	ASSERT(mtref_reader_saw(&rd, &r0, val(1)));
	ASSERT(mtref_reader_saw(&rd, &r1, val(3)));
	ASSERT(mtref_reader_end(&rd, 0, 100));
	ASSERT_EQ(check_total(), 0);

	/* a value the index never held */
	mtref_reader_begin(&rd, &now, &log, 0);
	ASSERT(!mtref_reader_saw(&rd, &r0, val(7)));
	ASSERT(mtref_reader_end(&rd, 30, 40));
	ASSERT_EQ(check_count(CK_MT_RCU_TORN), 1);
	/* out of order */
	mtref_reader_begin(&rd, &now, &log, 0);
	ASSERT(mtref_reader_saw(&rd, &r1, val(2)));
	ASSERT(!mtref_reader_saw(&rd, &r0, val(1)));
	ASSERT(mtref_reader_end(&rd, 30, 40));
	ASSERT_EQ(check_count(CK_MT_RCU_TORN), 2);
	/* a range nobody touched, not seen */
	mtref_reader_begin(&rd, &now, &log, 0);
	ASSERT(!mtref_reader_end(&rd, 0, 100));
	ASSERT_EQ(check_count(CK_MT_RCU_TORN), 3);

	check_set_mode(CHECK_ABORT);
	check_clear();
	mtref_free(&now);
	mtref_log_free(&log);
	return true;
}

/* Every identifier of the tree and memory families has a test above that
 * makes it fire; this keeps the list and the catalogue in step. */
/* A model tree whose find forgets everything past its first entry. */
static void *forgetful_find(void *t, uint64_t from, uint64_t max, struct tree_range *r)
{
	void *e = tree_model.find(t, from, max, r);

	return e && r->first > 0 ? NULL : e;
}

/* A store that does nothing from index 100 on, and says it did. */
static int dropping_store(void *t, uint64_t first, uint64_t last, void *entry)
{
	return first >= 100 ? 0 : tree_model.store(t, first, last, entry);
}

static bool count_visit(void *arg, const struct tree_range *r, void *e)
{
	(void)r;
	(void)e;
	++*(unsigned *)arg;
	return true;
}

/*
 * Two backends in lockstep: the model against itself agrees on random
 * writes and reads; against a copy whose find is broken, the pair reports
 * TREE_BACKENDS_DIFFER on the first find that tells them apart, and only
 * then; contents that differ (a store the shadow drops but reports done)
 * are caught by a walk of the whole range, not by validate.
 */
static bool test_pair_differ_fires(void)
{
	static struct tree_backend broken;
	const struct tree_backend *b;
	struct tree_range r;
	struct prng p = {5};
	void *t;

	b = tree_pair(&tree_model, &tree_model);
	t = b->create();
	check_set_mode(CHECK_COLLECT);
	check_clear();
	for (unsigned i = 0; i < 300; i++) {
		uint64_t first = prng_below(&p, 500), len = 1 + prng_below(&p, 20);

		b->store(t, first, first + len - 1, prng_below(&p, 4) ? val((unsigned)i) : NULL);
		b->find(t, prng_below(&p, 520), TREE_MAX, &r);
		b->load(t, prng_below(&p, 520), &r);
		ASSERT(b->validate(t));
	}
	ASSERT_EQ(check_total(), 0);
	b->release(t);

	broken = tree_model;
	broken.find = forgetful_find;
	b = tree_pair(&tree_model, &broken);
	t = b->create();
	b->store(t, 0, 9, val(1));
	b->store(t, 30, 39, val(2));
	b->find(t, 0, TREE_MAX, &r);
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 0);
	ASSERT(b->find(t, 25, TREE_MAX, &r) == val(2)); /* the primary's answer */
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 1);
	b->release(t);

	broken = tree_model;
	broken.store = dropping_store;
	b = tree_pair(&tree_model, &broken);
	t = b->create();
	ASSERT_EQ(b->store(t, 0, 9, val(1)), 0);
	ASSERT_EQ(b->store(t, 200, 209, val(2)), 0); /* dropped by the shadow */
	ASSERT(b->validate(t));
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 1);
	b->walk(t, 0, 99, count_visit, &(unsigned){0});
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 1);
	b->walk(t, 0, TREE_MAX, count_visit, &(unsigned){0});
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 2);
	b->release(t);
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

/* A walk that goes round: each time it ends it starts again from the
 * beginning (6.1's paused reverse walk past 0 did), at most 100 times. */
struct going_round {
	tree_visit_fn visit;
	void *arg;
	unsigned visits;
	bool stopped;
};

static struct going_round round_walk;

static bool round_visit(void *arg, const struct tree_range *r, void *e)
{
	struct going_round *g = arg;

	g->visits++;
	if (!g->visit(g->arg, r, e))
		g->stopped = true;
	return !g->stopped;
}

static void round_walk_by(void *t, uint64_t from, uint64_t to, enum tree_walk_way how,
			  tree_visit_fn visit, void *arg)
{
	round_walk = (struct going_round){visit, arg, 0, false};
	for (unsigned i = 0; i < 100 && !round_walk.stopped; i++)
		tree_model.walk_by(t, from, to, how, round_visit, &round_walk);
}

/* The pair cuts a primary's walk where it goes back (an entry not past the
 * one before, in the walk's direction) and reports the entry it went back
 * to; a walk in order is not cut. */
static bool test_pair_cuts_walk_going_back(void)
{
	static struct tree_backend broken;
	const struct tree_backend *b;
	unsigned n = 0;
	void *t;

	broken = tree_model;
	broken.walk_by = round_walk_by;
	b = tree_pair(&broken, &tree_model);
	t = b->create();
	check_set_mode(CHECK_COLLECT);
	check_clear();
	b->store(t, 0, 0, val(1));
	b->store(t, 0x20, 0x20, val(2));
	b->walk_by(t, 0, 0x2f, TREE_WALK_PAUSED_REV, count_visit, &n);
	ASSERT_EQ(round_walk.visits, 3); /* [0x20], [0], then [0x20] again: cut */
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 1);
	b->walk_by(t, 0, 0x2f, TREE_WALK_PAUSED, count_visit, &n);
	ASSERT_EQ(round_walk.visits, 3); /* forward: [0], [0x20], then [0] again */
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 2);
	b->release(t);

	b = tree_pair(&tree_model, &tree_model);
	t = b->create();
	b->store(t, 0, 0, val(1));
	b->store(t, 0x20, 0x20, val(2));
	n = 0;
	b->walk_by(t, 0, 0x2f, TREE_WALK_PAUSED_REV, count_visit, &n);
	b->walk_by(t, 0, 0x2f, TREE_WALK_PAUSED, count_visit, &n);
	ASSERT_EQ(n, 4);
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 2);
	b->release(t);
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

/* ---- fork (fuzz_mtree's fork: dup_mmap's tree steps) ---- */

/* Three entries in one leaf: the dup is allocation 1, then per copied entry
 * vm_area_dup and copy_page_range, per dropped one its erase's. */
#define FORK_PROG(ops)                                                                             \
	"target fuzz_mtree\nstore mt0 @0x10:4 v1\nstore mt0 @0x20:4 v2\nstore mt0 @0x30:4 "        \
	"v3\n" ops

static const char *const fork_ok = FORK_PROG("fork mt0 mt1 dontcopy=0\n");
/* entry 1's vm_area_dup fails: the marker over it, entry 0 torn down */
static const char *const fork_fails = FORK_PROG("fork mt0 mt1 dontcopy=0 fail_at=4\n");
/* the one after: entry 1's vm_area_dup succeeds */
static const char *const fork_fails_later = FORK_PROG("fork mt0 mt1 dontcopy=0 fail_at=5\n");

/* The model's fork runs clean at every failure point, dropped entries or not,
 * in a tree of one leaf and in one of three levels, beside RCU readers. */
static bool test_fork_every_failure_point(void)
{
	static const char *const trees[] = {"store mt0 @0x10:4 v1\nstore mt0 @0x20:4 v2\n"
					    "store mt0 @0x30:4 v3\nstore mt2 @0:end v4\n",
					    "bulk mt0 @0x40:3 n=200\nstore mt2 @0:end v4\n"};
	char text[512];

	check_set_mode(CHECK_COLLECT);
	check_clear();
	for (unsigned t = 0; t < 2; t++)
		for (unsigned n = 0; n < 256; n += t ? 7 : 1)
			for (unsigned mask = 0; mask < 3; mask++) {
				snprintf(text, sizeof(text),
					 "target fuzz_mtree\n%st1: rcu_walk mt1 @0:end\n"
					 "fork mt0 mt1 dontcopy=%u fail_at=%u\n"
					 "fork mt1 mt2 dontcopy=%u fail_at=%u\nsched 1 0 1 0 0\n",
					 trees[t], mask ? 0x5a >> mask : 0, n, mask, 255 - n);
				ASSERT_EQ(mtree_run_text(&tree_model, text), 0);
				ASSERT_EQ(check_total(), 0);
			}
	check_set_mode(CHECK_ABORT);
	return true;
}

/* The ways a backend's fork or fork_exit is broken on purpose below. */
enum fork_breakage {
	FB_SKIP_COPY,	    /* entry 1 keeps the parent's value */
	FB_BAD_RANGE,	    /* entry 1 is handed over with a wrong range */
	FB_ALLOC,	    /* a copy allocates */
	FB_NO_WALK,	    /* dup only, and 0 */
	FB_OWN_FAIL,	    /* stops at entry 1 by itself */
	FB_FAIL_AT_COPY,    /* stops at entry 1, answered a copy, after an allocation failed */
	FB_GO_ON,	    /* goes on past a failed entry (dropping it) */
	FB_SWALLOW,	    /* returns 0 whatever happened */
	FB_NO_MARKER,	    /* erases its marker */
	FB_WRITE_SOURCE,    /* writes into the parent */
	FB_EXIT_PAST_MARK,  /* fork_exit: visits the parent's entries after the marker */
	FB_EXIT_SHORT,	    /* fork_exit: visits nothing */
	FB_EXIT_KEEPS_TREE, /* fork_exit: leaves the tree as it was */
};
static enum fork_breakage breakage;

struct broken_fork {
	const struct tree_fork_ops *ops;
	unsigned k;
};

static enum tree_fork_step broken_entry(void *arg, const struct tree_range *r, void *e,
					void **child)
{
	struct broken_fork *b = arg;
	struct tree_range seen = *r;
	unsigned k = b->k++;
	enum tree_fork_step step;

	if (breakage == FB_BAD_RANGE && k == 1)
		seen.last++;
	if (breakage == FB_OWN_FAIL && k == 1)
		return TREE_FORK_FAIL;
	step = b->ops->entry(b->ops->arg, &seen, e, child);
	if (step == TREE_FORK_COPY && k == 1 && breakage == FB_SKIP_COPY)
		*child = e;
	if (step == TREE_FORK_COPY && breakage == FB_ALLOC)
		alloc_fail_next(AK_MT_NODE);
	if (step == TREE_FORK_COPY && k == 1 && breakage == FB_FAIL_AT_COPY &&
	    alloc_fail_next(AK_MT_NODE))
		return TREE_FORK_FAIL;
	if (step == TREE_FORK_FAIL && breakage == FB_GO_ON)
		return TREE_FORK_DROP;
	return step;
}

static bool broken_copied(void *arg, const struct tree_range *r, void *child)
{
	struct broken_fork *b = arg;

	return b->ops->copied(b->ops->arg, r, child);
}

static bool find_zero(void *arg, const struct tree_range *r, void *e)
{
	if (e != MT_ZERO_ENTRY)
		return true;
	*(struct tree_range *)arg = *r;
	return false;
}

static int broken_fork(void *src, void *dst, const struct tree_fork_ops *ops)
{
	struct broken_fork b = {ops, 0};
	const struct tree_fork_ops wrap = {broken_entry, broken_copied, &b};
	struct tree_range mark = {1, 0};
	int err;

	if (breakage == FB_NO_WALK)
		return tree_model.dup(src, dst);
	err = tree_model.fork(src, dst, &wrap);
	alloc_fail_disarm(); /* the damage itself must not fail */
	if (breakage == FB_WRITE_SOURCE)
		tree_model.store(src, 0, 0, val(77));
	tree_model.walk(dst, 0, TREE_MAX, find_zero, &mark);
	if (breakage == FB_NO_MARKER && mark.first <= mark.last)
		tree_model.store(dst, mark.first, mark.last, NULL);
	return breakage == FB_SWALLOW ? 0 : err;
}

struct visit_to_mark {
	tree_visit_fn visit;
	void *arg;
	bool past; /* go on after the marker */
};

static bool visit_to_mark(void *arg, const struct tree_range *r, void *e)
{
	struct visit_to_mark *v = arg;

	if (e == MT_ZERO_ENTRY)
		return v->past;
	return v->visit(v->arg, r, e);
}

static void broken_fork_exit(void *t, tree_visit_fn visit, void *arg)
{
	struct visit_to_mark v = {visit, arg, breakage == FB_EXIT_PAST_MARK};

	if (breakage < FB_EXIT_PAST_MARK) {
		tree_model.fork_exit(t, visit, arg);
		return;
	}
	if (breakage != FB_EXIT_SHORT)
		tree_model.walk(t, 0, TREE_MAX, visit_to_mark, &v);
	if (breakage != FB_EXIT_KEEPS_TREE)
		tree_model.clear(t);
	mt_set_rcu(t, true);
}

static const struct tree_backend *broken_backend(enum fork_breakage how)
{
	static struct tree_backend broken;

	broken = tree_model;
	broken.name = "broken model";
	broken.fork = broken_fork;
	broken.fork_exit = broken_fork_exit;
	breakage = how;
	return &broken;
}

/* Program @prog runs on @b (in collect mode) and check @id fires. */
static bool fires_on(const struct tree_backend *b, const char *prog, enum check_id id)
{
	check_clear();
	ASSERT_EQ(mtree_run_text(b, prog), 0);
	if (check_count(id) < 1) {
		fprintf(stderr, "%s did not fire on backend %s\n", check_name(id), b->name);
		return false;
	}
	return true;
}

/*
 * Every check of the fork operation fires on a backend broken one way:
 * the child's contents after a fork and after its teardown, the entries
 * handed over, the result, the marker, the exit walk, the source.
 */
static bool test_fork_checks_fire(void)
{
	static const struct {
		enum fork_breakage how;
		const char *const *prog;
		enum check_id id;
	} cases[] = {
	    {FB_SKIP_COPY, &fork_ok, CK_MT_REF_MISMATCH},
	    {FB_BAD_RANGE, &fork_ok, CK_MT_WALK},
	    {FB_ALLOC, &fork_ok, CK_MT_OP_RESULT},
	    {FB_NO_WALK, &fork_ok, CK_MT_WALK},
	    {FB_OWN_FAIL, &fork_ok, CK_MT_OP_RESULT},
	    {FB_FAIL_AT_COPY, &fork_fails_later, CK_MT_OP_RESULT},
	    {FB_GO_ON, &fork_fails, CK_MT_OP_RESULT},
	    {FB_SWALLOW, &fork_fails, CK_MT_OP_RESULT},
	    {FB_NO_MARKER, &fork_fails, CK_MT_REF_MISMATCH},
	    {FB_WRITE_SOURCE, &fork_ok, CK_MT_DUP_SOURCE_CHANGED},
	    {FB_EXIT_PAST_MARK, &fork_fails, CK_MT_WALK},
	    {FB_EXIT_SHORT, &fork_fails, CK_MT_WALK},
	    {FB_EXIT_KEEPS_TREE, &fork_fails, CK_MT_REF_MISMATCH},
	};

	check_set_mode(CHECK_COLLECT);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_clear();
		ASSERT_EQ(mtree_run_text(&tree_model, *cases[i].prog), 0);
		ASSERT_EQ(check_total(), 0);
		if (!fires_on(broken_backend(cases[i].how), *cases[i].prog, cases[i].id)) {
			fprintf(stderr, "(breakage %u)\n", cases[i].how);
			return false;
		}
	}
	/* a dup whose failure the fork swallows */
	ASSERT(fires_on(broken_backend(FB_SWALLOW),
			FORK_PROG("fork mt0 mt1 dontcopy=0 fail_at=1\n"), CK_MT_OP_RESULT));
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

/*
 * The pair replays the primary's fork on the shadow: the model against
 * itself agrees at every failure point (a failed erase included), and a
 * shadow whose fork hands over another entry, keeps a parent's entry, stops
 * by itself or whose exit walk goes past the marker differs. (Two models in
 * one process fail each other's live-node checks: only the pair's own check
 * is looked at.)
 */
static bool test_pair_fork_differ_fires(void)
{
	static const enum fork_breakage shadows[] = {FB_BAD_RANGE, FB_SKIP_COPY, FB_OWN_FAIL,
						     FB_EXIT_PAST_MARK};
	char text[256];

	check_set_mode(CHECK_COLLECT);
	check_clear();
	for (unsigned n = 0; n < 12; n++)
		for (unsigned mask = 0; mask < 4; mask++) {
			snprintf(text, sizeof(text),
				 FORK_PROG("fork mt0 mt1 dontcopy=%u fail_at=%u\n"), mask, n);
			ASSERT_EQ(mtree_run_text(tree_pair(&tree_model, &tree_model), text), 0);
		}
	ASSERT_EQ(check_count(CK_TREE_BACKENDS_DIFFER), 0);
	for (unsigned i = 0; i < sizeof(shadows) / sizeof(shadows[0]); i++)
		ASSERT(fires_on(tree_pair(&tree_model, broken_backend(shadows[i])),
				shadows[i] == FB_EXIT_PAST_MARK ? fork_fails : fork_ok,
				CK_TREE_BACKENDS_DIFFER));
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

static bool test_every_check_is_covered(void)
{
	static const enum check_id covered[] = {
	    CK_MT_PIVOT_ORDER,
	    CK_MT_PIVOT_RANGE,
	    CK_MT_SLOT_UNUSED,
	    CK_MT_PARENT_LINK,
	    CK_MT_PARENT_SLOT,
	    CK_MT_LEAF_DEPTH,
	    CK_MT_OCCUPANCY,
	    CK_MT_GAP,
	    CK_MT_ADJACENT_EMPTY,
	    CK_MT_CHILD_NULL,
	    CK_MT_EMPTY_ROOT,
	    CK_MT_INTERNAL_ENTRY,
	    CK_MT_REF_MISMATCH,
	    CK_MT_DUP_MISMATCH,
	    CK_MT_DUP_SOURCE_CHANGED,
	    CK_MT_GAP_SEARCH,
	    CK_MT_WALK,
	    CK_MT_OP_RESULT,
	    CK_MT_FAILED_WRITE_CHANGED,
	    CK_MEM_LIVE_MISMATCH,
	    CK_MEM_LEAK_AT_END,
	    CK_MT_RCU_TORN,
	    CK_TREE_BACKENDS_DIFFER,
	};

	for (unsigned id = 0; id < CK_NR; id++) {
		bool found = false;

		for (unsigned i = 0; i < sizeof(covered) / sizeof(covered[0]); i++)
			found |= covered[i] == id;
		if (!found &&
		    (!strncmp(check_name(id), "MT_", 3) || !strncmp(check_name(id), "MEM_", 4) ||
		     !strncmp(check_name(id), "TREE_", 5))) {
			fprintf(stderr, "%s has no test that makes it fire\n", check_name(id));
			return false;
		}
	}
	return true;
}

int main(void)
{
	TEST(test_store_random);
	TEST(test_height_grows_and_shrinks);
	TEST(test_reserved_and_zero_entry);
	TEST(test_cursor_replace);
	TEST(test_dup_every_failure_point);
	TEST(test_snapshot_sees_every_change);
	TEST(test_store_failure_leaves_tree);
	TEST(test_gap_search_brute_force);
	TEST(test_bulk_append);
	TEST(test_bulk_failure_points);
	TEST(test_validate_fires);
	TEST(test_oracle_checks_fire);
	TEST(test_outcome_checks_fire);
	TEST(test_pair_cuts_walk_going_back);
	TEST(test_rcu_reader_oracle_fires);
	TEST(test_pair_differ_fires);
	TEST(test_fork_every_failure_point);
	TEST(test_fork_checks_fire);
	TEST(test_pair_fork_differ_fires);
	TEST(test_every_check_is_covered);
	return test_summary();
}
