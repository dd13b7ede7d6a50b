/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel caller's API of fuzz_mtree (write paths, insert, alloc,
 * alloc_cyclic, bounded find/next/prev, empty_area): the runtime's chosen
 * failures (alloc_fail_arm_then), and every new check firing on a backend
 * broken one way, while the model (and a cyclic allocator written here
 * from its contract) runs clean.
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
	AB_NEXT_SAME,	   /* next returns the entry at the index */
	AB_PREV_UNBOUNDED, /* prev ignores its bound */
	AB_INSERT_OVER,	   /* insert stores over an entry */
	AB_ALLOC_LOW,	   /* alloc always takes the lowest run */
	AB_GAP_ZERO,	   /* a gap of size 0 is -EBUSY */
	AB_NOWAIT_NULL,	   /* the non-blocking path does not erase */
	AB_CYCLIC_WRAP,	   /* the cyclic allocator forgets its wrap */
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

int main(void)
{
	TEST(test_fail_then);
	TEST(test_api_checks_fire);
	return test_summary();
}
