/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel caller's API of fuzz_mtree (write paths, insert, alloc,
 * alloc_cyclic, bounded find/next/prev, empty_area, the normal API's
 * lookup, erase_locked, destroy_locked and dup_locked, walk_by's walks):
 * the runtime's chosen failures (alloc_fail_arm_then), and every new check
 * firing on a backend broken one way, while the model (and a cyclic
 * allocator written here from its contract) runs clean; and a range walk
 * that cuts empty runs into pieces, as the kernel's leaves do, judged
 * clean.
 */
#include "fuzz/targets/mtree_run.h"
#include "fuzz/tree/mtref.h"
#include "fuzz/tree/tree_backend.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "test.h"
#include "tree/mtree.h"

#include <errno.h>
#include <stdlib.h>

/* fail_at=2 then=0b101: the 2nd, 3rd and 5th allocations fail, no other;
 * a pause keeps the pattern for after it. */
static bool test_fail_then(void)
{
	static const bool fails[] = {false, true, true, false, true, false, false};
	struct alloc_fail_pause pause;

	alloc_fail_arm_then(2, 5);
	for (unsigned i = 0; i < sizeof(fails) / sizeof(fails[0]); i++) {
		void *p;

		if (i == 3) {
			alloc_fail_pause(&pause);
			ASSERT(!alloc_fail_next(AK_OTHER));
			alloc_fail_resume(&pause);
		}
		p = model_alloc(AK_OTHER, 8);
		ASSERT_EQ(p == NULL, fails[i]);
		model_free(AK_OTHER, p);
	}
	ASSERT(alloc_fail_fired());
	alloc_fail_disarm();
	alloc_fail_arm(1);
	ASSERT(alloc_fail_next(AK_OTHER));
	ASSERT(!alloc_fail_next(AK_OTHER)); /* no pattern left from before */
	alloc_fail_disarm();
	return true;
}

/*
 * A cyclic allocator over the model's tree, written from tree_backend.h's
 * contract; `cyc_forgets` makes it forget the wrap.
 */
static bool cyc_forgets;

static int cyc_alloc(void *t, uint64_t lo, uint64_t hi, void *entry, uint64_t *next, bool *wrapped,
		     uint64_t *start)
{
	uint64_t from = *next > lo ? *next : lo;
	int ret = mt_gap_lowest(t, from, hi, 1, start);

	if (ret && from > lo && !(ret = mt_gap_lowest(t, lo, hi, 1, start)))
		ret = 1;
	if (ret < 0)
		return ret;
	if (mt_store_range(t, *start, *start, entry))
		return -ENOMEM;
	if (*wrapped && !ret && !cyc_forgets) {
		*wrapped = false;
		ret = 1;
	}
	*next = *start + 1;
	*wrapped |= !*next;
	return ret;
}

enum api_breakage {
	AB_NONE,
	AB_NEXT_SAME,	    /* next returns the entry at the index */
	AB_PREV_UNBOUNDED,  /* prev ignores its bound */
	AB_INSERT_OVER,	    /* insert stores over an entry */
	AB_ALLOC_LOW,	    /* alloc always takes the lowest run */
	AB_GAP_ZERO,	    /* a gap of size 0 is -EBUSY */
	AB_NOWAIT_NULL,	    /* the non-blocking path does not erase */
	AB_CYCLIC_WRAP,	    /* the cyclic allocator forgets its wrap */
	AB_LOOKUP_NEXT,	    /* lookup reads the index after */
	AB_ERASE_KEEPS,	    /* erase_locked returns the entry and keeps it */
	AB_ERASE_NONE,	    /* erase_locked erases, returns nothing */
	AB_DESTROY_NONE,    /* destroy_locked frees nothing */
	AB_DUP_LEFTOVER,    /* a failed dup_locked leaves an entry behind */
	AB_PAUSED_TWICE,    /* a paused walk gives its first entry again */
	AB_FIND_OWN_RANGE,  /* the mt_find walk gives entries their own ranges */
	AB_RANGES_NO_EMPTY, /* a range walk leaves out the empty ranges */
	AB_RANGES_EARLY,    /* a range walk stops after its first range */
	AB_RANGES_CUT,	    /* (not broken) empty ranges come in pieces */
};
static enum api_breakage breakage;

static void *b_next(void *t, uint64_t index, uint64_t max, struct tree_range *r)
{
	if (breakage == AB_NEXT_SAME && index < max) {
		void *e = tree_model.load(t, index, r);

		if (e)
			return e;
	}
	return tree_model.next(t, index, max, r);
}

static void *b_prev(void *t, uint64_t index, uint64_t min, struct tree_range *r)
{
	return tree_model.prev(t, index, breakage == AB_PREV_UNBOUNDED ? 0 : min, r);
}

static int b_insert(void *t, uint64_t first, uint64_t last, void *entry)
{
	if (breakage == AB_INSERT_OVER)
		return tree_model.store(t, first, last, entry);
	return tree_model.insert(t, first, last, entry);
}

static int b_alloc(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, void *entry,
		   uint64_t *start)
{
	return tree_model.alloc(t, lo, hi, size, breakage == AB_ALLOC_LOW ? false : highest, entry,
				start);
}

static int b_gap(void *t, uint64_t lo, uint64_t hi, uint64_t size, bool highest, uint64_t *start)
{
	if (breakage == AB_GAP_ZERO && !size)
		return -EBUSY;
	return tree_model.gap(t, lo, hi, size, highest, start);
}

static int b_store_path(void *t, uint64_t first, uint64_t last, void *entry,
			enum tree_write_path how)
{
	if (breakage == AB_NOWAIT_NULL && how == TREE_WRITE_NOWAIT && !entry)
		return 0;
	return tree_model.store_path(t, first, last, entry, how);
}

static void *b_lookup(void *t, uint64_t index)
{
	if (breakage == AB_LOOKUP_NEXT && index < TREE_MAX)
		index++;
	return tree_model.lookup(t, index);
}

static void *b_erase_locked(void *t, uint64_t index)
{
	void *old;

	if (breakage == AB_ERASE_KEEPS)
		return tree_model.lookup(t, index);
	old = tree_model.erase_locked(t, index);
	return breakage == AB_ERASE_NONE ? NULL : old;
}

static void b_destroy_locked(void *t)
{
	if (breakage != AB_DESTROY_NONE)
		tree_model.destroy_locked(t);
}

static int b_dup_locked(void *src, void *dst)
{
	int err = tree_model.dup_locked(src, dst);
	struct alloc_fail_pause pause;

	if (err && breakage == AB_DUP_LEFTOVER) {
		alloc_fail_pause(&pause);
		tree_model.store(dst, 1, 1, (void *)(uintptr_t)0x1001);
		alloc_fail_resume(&pause);
	}
	return err;
}

/* walk_by's visits, passed on as the breakage says. */
struct b_walk {
	tree_visit_fn visit;
	void *arg;
	unsigned n;
	bool rev; /* the walk goes down */
	uint64_t from, to;
};

static unsigned cuts; /* empty ranges AB_RANGES_CUT gave in two pieces */

static bool b_walk_visit(void *arg, const struct tree_range *r, void *e)
{
	struct b_walk *w = arg;
	struct tree_range head = {r->first, r->first}, tail = {r->first + 1, r->last};
	const struct tree_range *one = w->rev ? &tail : &head, *two = w->rev ? &head : &tail;

	switch (breakage) {
	case AB_PAUSED_TWICE:
		if (!w->n++ && !w->visit(w->arg, r, e))
			return false;
		break;
	case AB_RANGES_NO_EMPTY:
		if (!e)
			return true;
		break;
	case AB_RANGES_EARLY:
		return w->visit(w->arg, r, e) && false;
	case AB_RANGES_CUT:
		/* (the second piece inside the window, as the kernel's would be) */
		if (!e && r->first < r->last && (w->rev ? r->first >= w->from : r->first < w->to)) {
			cuts++;
			return w->visit(w->arg, one, e) && w->visit(w->arg, two, e);
		}
		break;
	default:
		break;
	}
	return w->visit(w->arg, r, e);
}

static void b_walk_by(void *t, uint64_t from, uint64_t to, enum tree_walk_way how,
		      tree_visit_fn visit, void *arg)
{
	struct b_walk w = {
	    visit, arg, 0, how == TREE_WALK_PAUSED_REV || how == TREE_WALK_RANGES_REV, from, to};

	if (breakage == AB_FIND_OWN_RANGE && how == TREE_WALK_FIND)
		how = TREE_WALK_PAUSED;
	tree_model.walk_by(t, from, to, how, b_walk_visit, &w);
}

static const struct tree_backend *api_backend(enum api_breakage how)
{
	static struct tree_backend b;

	b = tree_model;
	b.name = "model with a cyclic allocator";
	b.next = b_next;
	b.prev = b_prev;
	b.insert = b_insert;
	b.alloc = b_alloc;
	b.gap = b_gap;
	b.store_path = b_store_path;
	b.alloc_cyclic = cyc_alloc;
	b.lookup = b_lookup;
	b.erase_locked = b_erase_locked;
	b.destroy_locked = b_destroy_locked;
	b.dup_locked = b_dup_locked;
	b.walk_by = b_walk_by;
	breakage = how;
	cyc_forgets = how == AB_CYCLIC_WRAP;
	return &b;
}

#define API_PROG(ops) "target fuzz_mtree\nbulk mt0 @0x40:5 n=40\n" ops

static const char *const prog_find = API_PROG("find_in mt0 e3+2:200 next\n"
					      "find_in mt0 e10+0:1 prev\n");
static const char *const prog_insert = API_PROG("insert mt0 e5+1:3 v3\n");
static const char *const prog_alloc = API_PROG("alloc mt0 @0:255 n=2 n high v6\n");
static const char *const prog_area = API_PROG("empty_area mt0 @0:255 n=0 n low\n");
static const char *const prog_write = API_PROG("write mt0 e3+0:end v1 nowait null then=0\n");
static const char *const prog_cyclic = API_PROG("alloc_cyclic mt1 top-1:2 v1\n"
						"alloc_cyclic mt1 top-1:2 v2\n"
						"erase_at mt1 top-1:1\n"
						"alloc_cyclic mt1 top-1:2 v3\n");

static const char *const prog_lookup = API_PROG("lookup mt0 e2+4:1\n");
static const char *const prog_erase_locked = API_PROG("erase_locked mt0 e3+0:1 then=0\n");
static const char *const prog_destroy = API_PROG("destroy_locked mt0\n");
static const char *const prog_dup_locked = API_PROG("dup_locked mt0 mt1 then=1 fail_at=1\n");
static const char *const prog_walks = API_PROG("erase mt0 e5+0:20\n"
					       "walk_by mt0 @0x30:100 paused\n"
					       "walk_by mt0 @0x30:100 paused_rev\n"
					       "walk_by mt0 @0x30:100 mt_find\n"
					       "walk_by mt0 @0x30:100 ranges\n"
					       "walk_by mt0 @0x30:100 ranges_rev\n");

static bool fires_on(const struct tree_backend *b, const char *prog, enum check_id id)
{
	check_clear();
	ASSERT_EQ(mtree_run_text(b, prog), 0);
	if (check_count(id) < 1) {
		fprintf(stderr, "%s did not fire (breakage %u)\n", check_name(id), breakage);
		return false;
	}
	return true;
}

static bool test_api_checks_fire(void)
{
	static const struct {
		enum api_breakage how;
		const char *const *prog;
		enum check_id id;
	} cases[] = {
	    {AB_NEXT_SAME, &prog_find, CK_MT_WALK},
	    {AB_PREV_UNBOUNDED, &prog_find, CK_MT_WALK},
	    {AB_INSERT_OVER, &prog_insert, CK_MT_OP_RESULT},
	    {AB_ALLOC_LOW, &prog_alloc, CK_MT_GAP_SEARCH},
	    {AB_GAP_ZERO, &prog_area, CK_MT_GAP_SEARCH},
	    {AB_NOWAIT_NULL, &prog_write, CK_MT_REF_MISMATCH},
	    {AB_CYCLIC_WRAP, &prog_cyclic, CK_MT_OP_RESULT},
	    {AB_LOOKUP_NEXT, &prog_lookup, CK_MT_REF_MISMATCH},
	    {AB_ERASE_KEEPS, &prog_erase_locked, CK_MT_REF_MISMATCH},
	    {AB_ERASE_NONE, &prog_erase_locked, CK_MT_OP_RESULT},
	    {AB_DESTROY_NONE, &prog_destroy, CK_MT_REF_MISMATCH},
	    {AB_DUP_LEFTOVER, &prog_dup_locked, CK_MT_FAILED_WRITE_CHANGED},
	    {AB_PAUSED_TWICE, &prog_walks, CK_MT_WALK},
	    {AB_FIND_OWN_RANGE, &prog_walks, CK_MT_WALK},
	    {AB_RANGES_NO_EMPTY, &prog_walks, CK_MT_WALK},
	    {AB_RANGES_EARLY, &prog_walks, CK_MT_WALK},
	};

	check_set_mode(CHECK_COLLECT);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_clear();
		ASSERT_EQ(mtree_run_text(api_backend(AB_NONE), *cases[i].prog), 0);
		ASSERT_EQ(check_total(), 0);
		ASSERT(fires_on(api_backend(cases[i].how), *cases[i].prog, cases[i].id));
	}
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

/*
 * The kernel's leaves may cut an empty run in two (a NULL in the last
 * slot of one leaf and the first of the next): a range walk that gives
 * every empty run of the window in pieces is judged clean, and one piece
 * still missing is not.
 */
static bool test_range_walk_pieces(void)
{
	check_set_mode(CHECK_COLLECT);
	check_clear();
	cuts = 0;
	ASSERT_EQ(mtree_run_text(api_backend(AB_RANGES_CUT), prog_walks), 0);
	ASSERT(cuts > 0);
	ASSERT_EQ(check_total(), 0);
	ASSERT(fires_on(api_backend(AB_RANGES_NO_EMPTY), prog_walks, CK_MT_WALK));
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

int main(void)
{
	TEST(test_fail_then);
	TEST(test_api_checks_fire);
	TEST(test_range_walk_pieces);
	return test_summary();
}
