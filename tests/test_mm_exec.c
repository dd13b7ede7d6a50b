/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mm executor over the address-space seam (fuzz/targets/mm_run.h): a call
 * whose injected allocation failure fired must fail with -ENOMEM
 * (MM_FAILED_CALL_RESULT) and change no mapping but those the kernel leaves
 * changed (MM_FAILED_CALL_CHANGED). Each check is shown quiet on the model
 * and firing on a backend broken on purpose: the model with its failed
 * calls made to report success, or to unmap a VMA they should not touch.
 */
#include "fuzz/as/as_backend.h"
#include "fuzz/as/as_pair.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/mm_run.h"
#include "fuzz/targets/target.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum breakage { SWALLOW, UNMAP_OUTSIDE, UNMAP_INSIDE };
static enum breakage breakage;

/* The model, but a call whose injected failure fired misbehaves. */
static void broken_call(void *as, struct mm_call *c)
{
	struct mm_call u;

	as_model.call(as, c);
	if (!alloc_fail_fired() || c->result != -ENOMEM)
		return;
	switch (breakage) {
	case SWALLOW:
		c->result = 0;
		break;
	case UNMAP_OUTSIDE:
	case UNMAP_INSIDE:
		u = *c;
		u.code = MMF_OP_MUNMAP;
		u.start = breakage == UNMAP_OUTSIDE ? MMF_WINDOW_LO + (0x20ull << MMF_PAGE_SHIFT)
						    : c->start;
		u.len = 1ull << MMF_PAGE_SHIFT;
		alloc_fail_disarm(); /* the damage itself must not fail */
		as_model.call(as, &u);
		break;
	}
}

static struct as_backend broken;

/* mprotect's split of the first VMA fails; a second VMA lies outside. */
static const char *const split_fails = "target fuzz_mm\n"
				       "mmap p0 @0x10:4 r,w private f0 fixed\n"
				       "mmap p0 @0x20:4 r,w private f0 fixed\n"
				       "mprotect p0 @0x11:1 r fail_at=1\n";

static bool test_model_passes(void)
{
	static const char *const progs[] = {
	    "target fuzz_mm\nmmap p0 @0x10:4 r,w private f0 fixed fail_at=1\n",
	    "target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\n"
	    "mmap p0 @0x12:2 r private f0 fixed fail_at=1\n",
	    "target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\n"
	    "munmap p0 @0x12:2 fail_at=1\n",
	    "target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\n"
	    "madvise p0 @0x12:2 dontfork fail_at=1\ntouch p0 @0x10:8 write fail_at=2\n",
	    "target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\ntouch p0 @0x10:8 write\n"
	    "fork p0 tree current nodiff fail_at=3\nuffd_create p0 fork fail_at=1\n",
	};

	check_set_mode(CHECK_COLLECT);
	check_clear();
	ASSERT_EQ(mm_run_text(&as_model, split_fails), 0);
	for (unsigned i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		ASSERT_EQ(mm_run_text(&as_model, progs[i]), 0);
	ASSERT_EQ(check_total(), 0);
	check_set_mode(CHECK_ABORT);
	return true;
}

static bool fires(enum breakage how, enum check_id id)
{
	broken = as_model;
	broken.name = "broken model";
	broken.call = broken_call;
	breakage = how;
	check_set_mode(CHECK_COLLECT);
	check_clear();
	ASSERT_EQ(mm_run_text(&broken, split_fails), 0);
	ASSERT(check_count(id) >= 1);
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

static bool test_swallowed_failure_fires(void)
{
	return fires(SWALLOW, CK_MM_FAILED_CALL_RESULT);
}

static bool test_damage_outside_fires(void)
{
	return fires(UNMAP_OUTSIDE, CK_MM_FAILED_CALL_CHANGED);
}

static bool test_unmap_inside_fires(void)
{
	/* mprotect may leave flags changed inside its range, never a hole */
	return fires(UNMAP_INSIDE, CK_MM_FAILED_CALL_CHANGED);
}

/* The model's mprotect, forgetting to change anything (and saying 0). */
static void lazy_call(void *as, struct mm_call *c)
{
	if (c->code == MMF_OP_MPROTECT) {
		c->result = 0;
		return;
	}
	as_model.call(as, c);
}

/*
 * Two backends in lockstep (as_pair.h): the model against itself agrees;
 * against a model whose mprotect does nothing but returns 0 (a state that
 * breaks no invariant), the VMAs differ after the mprotect
 * (AS_BACKENDS_DIFFER), though every result agrees.
 */
static bool test_pair_differ_fires(void)
{
	static struct as_backend lazy;
	const char *text = "target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\n"
			   "mprotect p0 @0x12:2 r\nmunmap p0 @0x11:1\n";

	check_set_mode(CHECK_COLLECT);
	check_clear();
	/* (two models in one process fail each other's memory checks, which
	 * count every live object: only the pair's own check is looked at) */
	ASSERT_EQ(mm_run_text(as_pair(&as_model, &as_model), text), 0);
	ASSERT_EQ(check_count(CK_AS_BACKENDS_DIFFER), 0);
	lazy = as_model;
	lazy.call = lazy_call;
	ASSERT_EQ(mm_run_text(as_pair(&as_model, &lazy), text), 0);
	ASSERT(check_count(CK_AS_BACKENDS_DIFFER) >= 1);
	check_set_mode(CHECK_ABORT);
	check_clear();
	return true;
}

int main(void)
{
	TEST(test_model_passes);
	TEST(test_swallowed_failure_fires);
	TEST(test_damage_outside_fires);
	TEST(test_unmap_inside_fires);
	TEST(test_pair_differ_fires);
	return test_summary();
}
