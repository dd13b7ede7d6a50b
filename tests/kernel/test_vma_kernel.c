/* SPDX-License-Identifier: GPL-2.0 */
/*
 * as_kernel_vma (kernel/vma/kvma_backend.c: the kernel's own mm/vma.c behind the
 * address-space seam) against the model (as_model): hand-written programs
 * and seeded random anonymous programs, the result and the VMAs (range,
 * the flags both show, pgoff) compared after every call, every difference
 * printed with both views; the kernel's injected allocation failures
 * (fail_at) through the executor; validate_mm firing (CK_KVMA_BUG) on a
 * broken map_count. Built by make kernel-vma-check (kernel/vma/vma.mk).
 */
#include "fuzz/as/as_diff.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/prog/prng.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/mm_run.h"
#include "fuzz/targets/target.h"
#include "kernel/vma/kvma.h"
#include "kernel/vma/kvma_backend.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "tests/test.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PG (1ull << MMF_PAGE_SHIFT)
#define AT(p) (MMF_WINDOW_LO + (uint64_t)(p)*PG)
#define VLO MMF_WINDOW_LO
#define VHI (MMF_WINDOW_HI + 256 * PG)
#define VMAX 1024
/* what both show of a VMA; the model's VM_SOFTDIRTY and VM_MAY* bits aside */
#define MASK AS_DIFF_FLAGS

struct pair {
	void *m, *k;
	unsigned diffs;	  /* calls whose result or VMAs differed */
	unsigned printed; /* differences printed (the first few) */
	const char *what; /* the program's name, for reports */
};

static struct as_vma va[VMAX], vb[VMAX];
/* what the comparisons saw: calls, calls that succeeded, VMAs compared */
static uint64_t ncalls, nok, nvmas;

static bool views_same(const struct as_vma *a, int na, const struct as_vma *b, int nb)
{
	if (!as_vmas_same(a, (unsigned)na, b, (unsigned)nb, MASK, false))
		return false;
	for (int i = 0; i < na; i++)
		if (a[i].pgoff != b[i].pgoff)
			return false;
	return true;
}

static const char *op_name(const struct mm_call *c)
{
	static const char *const n[] = {"mmap", "munmap", "mprotect", "madvise"};

	return c->code < 4 ? n[c->code] : "?";
}

static void print_call(FILE *out, const struct mm_call *c)
{
	fprintf(out, "  %s @%#" PRIx64 ":%" PRIu64, op_name(c), (uint64_t)((c->start - VLO) / PG),
		(uint64_t)(c->len / PG));
	if (c->code == MMF_OP_MMAP)
		fprintf(out, " prot %u %s %s", c->a.prot, mmf_kind_names[c->a.kind],
			mmf_place_names[c->a.place]);
	else if (c->code == MMF_OP_MPROTECT)
		fprintf(out, " prot %u", c->a.prot);
	else if (c->code == MMF_OP_MADVISE)
		fprintf(out, " %s", mmf_advice_names[c->a.advice]);
}

/* One call on both, its range set; false when they differ (printed). */
static bool both(struct pair *p, const struct mm_call *call)
{
	struct mm_call a = *call, b = *call;
	char err[128];
	int na, nb;

	if (!as_model.get(p->m, &a) || !as_kernel_vma.get(p->k, &b))
		return false;
	as_model.call(p->m, &a);
	as_kernel_vma.call(p->k, &b);
	as_model.put(p->m, &a);
	as_kernel_vma.put(p->k, &b);
	check_clear();
	as_model.check(p->m);
	as_kernel_vma.check(p->k);
	na = as_model.vmas(p->m, 0, VLO, VHI, false, va, VMAX, err, sizeof(err));
	nb = as_kernel_vma.vmas(p->k, 0, VLO, VHI, false, vb, VMAX, err, sizeof(err));
	ncalls++;
	nok += a.result >= 0;
	nvmas += na > 0 ? (uint64_t)na : 0;
	if (a.result == b.result && views_same(va, na, vb, nb) && !check_total())
		return true;
	p->diffs++;
	if (p->printed++ < 12) {
		fprintf(stderr, "DIFF in %s:", p->what);
		print_call(stderr, call);
		fprintf(stderr, "\n  model = %" PRId64 ", kernel vma = %" PRId64 "%s\n", a.result,
			b.result, check_total() ? " (and a check failed)" : "");
		as_print_views(stderr, "model", va, (unsigned)na, "kernel vma", vb, (unsigned)nb,
			       MASK, VLO, 0);
	}
	return false;
}

static void pair_open(struct pair *p, const char *what)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->m = as_model.open(NULL, 0);
	p->k = as_kernel_vma.open(NULL, 0);
}

static void pair_close(struct pair *p)
{
	as_model.close(p->m);
	as_kernel_vma.close(p->k);
}

static struct mm_call mk(unsigned code, uint64_t page, uint64_t pages)
{
	struct mm_call c;

	memset(&c, 0, sizeof(c));
	c.code = (uint8_t)code;
	c.start = AT(page);
	c.len = pages * PG;
	return c;
}

static struct mm_call mmap_c(uint64_t page, uint64_t pages, unsigned prot, unsigned kind,
			     unsigned place)
{
	struct mm_call c = mk(MMF_OP_MMAP, page, pages);

	c.a.prot = (uint8_t)prot;
	c.a.kind = (uint8_t)kind;
	c.a.place = (uint8_t)place;
	return c;
}

static struct mm_call prot_c(uint64_t page, uint64_t pages, unsigned prot)
{
	struct mm_call c = mk(MMF_OP_MPROTECT, page, pages);

	c.a.prot = (uint8_t)prot;
	return c;
}

static struct mm_call adv_c(uint64_t page, uint64_t pages, unsigned advice)
{
	struct mm_call c = mk(MMF_OP_MADVISE, page, pages);

	c.a.advice = (uint8_t)advice;
	return c;
}

enum { R = 1, W = 2, X = 4 };
enum { DONTNEED, DONTFORK, DOFORK, WIPE, KEEP };

/* The comparison sees a difference of pgoff, range or a compared flag. */
static bool test_compare_sees(void)
{
	struct as_vma a = {.start = AT(0x10), .end = AT(0x14), .flags = AS_VM_READ, .pgoff = 0x10},
		      b = a;

	ASSERT(views_same(&a, 1, &b, 1));
	b.pgoff++;
	ASSERT(!views_same(&a, 1, &b, 1));
	b = a;
	b.flags |= AS_VM_ACCOUNT;
	ASSERT(!views_same(&a, 1, &b, 1));
	b = a;
	b.end += PG;
	ASSERT(!views_same(&a, 1, &b, 1));
	return true;
}

/* one of the layouts kernel/vma/probe.sh knows, as the objects were built */
static bool test_layout(void)
{
	ASSERT(!strcmp(kvma_layout(), "vma-merge-api") ||
	       !strcmp(kvma_layout(), "vma-mmap-region"));
	return true;
}

static unsigned hand_diffs;

/* Hand-written programs: merges, splits, accounting, errors. */
static bool test_hand_programs(void)
{
	const struct {
		const char *name;
		struct mm_call calls[12];
		unsigned n;
	} progs[] = {
	    {"merge on mmap",
	     {mmap_c(0x10, 4, R | W, MMF_PRIVATE_ANON, MMF_FIXED),
	      mmap_c(0x14, 4, R | W, MMF_PRIVATE_ANON, MMF_FIXED),
	      mmap_c(0x0c, 4, R | W, MMF_PRIVATE_ANON, MMF_FIXED),
	      mmap_c(0x20, 4, R, MMF_PRIVATE_ANON, MMF_FIXED),
	      mmap_c(0x18, 8, R | W, MMF_PRIVATE_ANON, MMF_FIXED)},
	     5},
	    {"mprotect split and merge",
	     {mmap_c(0x10, 8, R | W, MMF_PRIVATE_ANON, MMF_FIXED), prot_c(0x12, 2, R),
	      prot_c(0x12, 2, R | W), prot_c(0x10, 8, R), prot_c(0x10, 4, R | W | X),
	      prot_c(0x0e, 4, R), prot_c(0x10, 9, R), prot_c(0x10, 0, R), prot_c(0x17, 1, 0)},
	     9},
	    {"madvise flags",
	     {mmap_c(0x10, 8, R | W, MMF_PRIVATE_ANON, MMF_FIXED), adv_c(0x11, 2, DONTFORK),
	      adv_c(0x11, 2, DOFORK), adv_c(0x14, 4, WIPE), adv_c(0x10, 8, KEEP),
	      adv_c(0x0e, 12, DONTNEED), adv_c(0x0e, 4, DONTFORK), adv_c(0x30, 1, WIPE)},
	     8},
	    {"munmap",
	     {mmap_c(0x10, 8, R | W, MMF_PRIVATE_ANON, MMF_FIXED), mk(MMF_OP_MUNMAP, 0x12, 2),
	      mk(MMF_OP_MUNMAP, 0x0f, 2), mk(MMF_OP_MUNMAP, 0x40, 1), mk(MMF_OP_MUNMAP, 0x10, 0),
	      mk(MMF_OP_MUNMAP, 0x00, 0x100)},
	     6},
	    {"hint and noreplace",
	     {mmap_c(0x10, 4, R | W, MMF_PRIVATE_ANON, MMF_FIXED),
	      mmap_c(0x12, 4, R | W, MMF_PRIVATE_ANON, MMF_NOREPLACE),
	      mmap_c(0x14, 4, R | W, MMF_PRIVATE_ANON, MMF_NOREPLACE),
	      mmap_c(0x12, 4, R | W, MMF_PRIVATE_ANON, MMF_HINT),
	      mmap_c(0x30, 4, R | W, MMF_PRIVATE_ANON, MMF_HINT),
	      mmap_c(0x3ffff, 4, R, MMF_PRIVATE_ANON, MMF_HINT)},
	     6},
	    {"shared anonymous",
	     {mmap_c(0x10, 4, R | W, MMF_SHARED_ANON, MMF_FIXED),
	      mmap_c(0x14, 4, R | W, MMF_SHARED_ANON, MMF_FIXED), adv_c(0x10, 8, WIPE),
	      prot_c(0x11, 1, R), prot_c(0x11, 1, R | W), adv_c(0x12, 1, DONTFORK),
	      mmap_c(0x11, 1, R | W, MMF_PRIVATE_ANON, MMF_FIXED), mk(MMF_OP_MUNMAP, 0x10, 8)},
	     8},
	    {"accounting",
	     {mmap_c(0x10, 4, R, MMF_PRIVATE_ANON, MMF_FIXED), prot_c(0x10, 4, R | W),
	      prot_c(0x11, 1, R), mmap_c(0x14, 4, R | W, MMF_PRIVATE_ANON, MMF_FIXED),
	      prot_c(0x10, 8, R), mmap_c(0x20, 4, R | W, MMF_SHARED_ANON, MMF_FIXED),
	      prot_c(0x20, 4, R)},
	     7},
	};

	check_set_mode(CHECK_COLLECT);
	for (unsigned i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct pair p;

		pair_open(&p, progs[i].name);
		for (unsigned j = 0; j < progs[i].n; j++)
			both(&p, &progs[i].calls[j]);
		hand_diffs += p.diffs;
		pair_close(&p);
	}
	ASSERT_EQ(check_total(), 0);
	check_set_mode(CHECK_ABORT);
	ASSERT_EQ(hand_diffs, 0);
	return true;
}

/* A random anonymous call of fuzz_mm's kinds, its range resolved by the model. */
static struct mm_call random_call(struct prng *g, void *model)
{
	static const unsigned codes[] = {MMF_OP_MMAP,	  MMF_OP_MMAP,	   MMF_OP_MUNMAP,
					 MMF_OP_MPROTECT, MMF_OP_MPROTECT, MMF_OP_MADVISE};
	struct mm_call c;

	memset(&c, 0, sizeof(c));
	c.code = (uint8_t)codes[prng_below(g, 6)];
	c.a.range.mode = (enum range_mode)prng_below(g, 4);
	c.a.range.k = (uint8_t)prng_below(g, 8);
	c.a.range.d = (int8_t)((int)prng_below(g, 9) - 4);
	c.a.range.v = (uint16_t)prng_below(g, 0x40);
	c.a.range.len = (uint8_t)(prng_below(g, 4) ? prng_below(g, 12) : 0);
	c.a.prot = (uint8_t)prng_below(g, 8);
	c.a.kind = (uint8_t)(prng_below(g, 5) ? MMF_PRIVATE_ANON : MMF_SHARED_ANON);
	c.a.place = (uint8_t)prng_below(g, 3);
	c.a.advice = (uint8_t)prng_below(g, 5);
	if (as_model.get(model, &c)) {
		as_model.resolve(model, &c);
		as_model.put(model, &c);
	}
	return c;
}

static unsigned random_diffs, random_progs_differing;

static uint64_t ncalls_total(void)
{
	return ncalls;
}

static bool test_random_programs(void)
{
	const unsigned nprogs = 3000, ncalls = 24;

	check_set_mode(CHECK_COLLECT);
	for (unsigned i = 0; i < nprogs; i++) {
		struct prng g = {0x5eed0000ull + i};
		char name[32];
		struct pair p;

		snprintf(name, sizeof(name), "random program %u", i);
		pair_open(&p, name);
		for (unsigned j = 0; j < ncalls; j++) {
			struct mm_call c = random_call(&g, p.m);

			if (!both(&p, &c))
				break; /* the states part: the rest would differ too */
		}
		random_diffs += p.diffs;
		random_progs_differing += p.diffs > 0;
		pair_close(&p);
	}
	check_set_mode(CHECK_ABORT);
	fprintf(stderr,
		"random: %u programs of up to %u calls, %u differ (%" PRIu64 " calls, %" PRIu64
		" succeeded, %" PRIu64 " VMAs compared)\n",
		nprogs, ncalls, random_progs_differing, ncalls_total(), nok, nvmas);
	ASSERT_EQ(random_progs_differing, 0);
	return true;
}

/* ---- through the executor: fail_at on the kernel's allocations ------------ */

/*
 * Every allocation position of mmap, munmap and mprotect splits: the
 * executor's checks of a failed call (MM_FAILED_CALL_RESULT: -ENOMEM;
 * MM_FAILED_CALL_CHANGED) hold on the kernel's code.
 */
static unsigned fail_at_absorbed;

static bool test_fail_at(void)
{
	static const char *const ops[] = {
	    "mmap p0 @0x14:4 r,w private f0 fixed",
	    "mmap p0 @0x30:4 r private f0 fixed",
	    "mmap p0 @0x12:2 r private f0 fixed",
	    "mmap p0 @0x12:2 r,w shared f0 fixed",
	    "mmap p0 @0x40:4 r,w private f0 noreplace",
	    "munmap p0 @0x12:2",
	    "mprotect p0 @0x11:2 r",
	    "mprotect p0 @0x10:12 r",
	};
	char text[512];

	check_set_mode(CHECK_COLLECT);
	check_clear();
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (unsigned at = 1; at <= 8; at++) {
			snprintf(text, sizeof(text),
				 "target fuzz_mm\nmmap p0 @0x10:8 r,w private f0 fixed\n"
				 "mmap p0 @0x20:4 r,w private f0 fixed\n%s fail_at=%u\n",
				 ops[i], at);
			ASSERT_EQ(mm_run_text(&as_kernel_vma, text), 0);
			/* a failed allocation the kernel absorbs (below) is a
			 * difference with the model, not a failure here */
			fail_at_absorbed += check_count(CK_MM_FAILED_CALL_RESULT);
			if (check_total() != check_count(CK_MM_FAILED_CALL_RESULT)) {
				fprintf(stderr, "fail_at: %s fail_at=%u: %u checks failed:", ops[i],
					at, check_total());
				for (unsigned id = 0; id < CK_NR; id++)
					if (check_count((enum check_id)id))
						fprintf(stderr, " %s",
							check_name((enum check_id)id));
				fprintf(stderr, "\n");
				check_set_mode(CHECK_ABORT);
				return false;
			}
			if (check_count(CK_MM_FAILED_CALL_RESULT))
				fprintf(stderr, "fail_at: %s fail_at=%u: the call succeeds\n",
					ops[i], at);
			check_clear();
		}
	check_set_mode(CHECK_ABORT);
	return true;
}

/*
 * madvise's failed split: the kernel's madvise turns -ENOMEM into -EAGAIN
 * (madvise_vma_behavior), the model returns -ENOMEM and the executor
 * expects it (MM_FAILED_CALL_RESULT fires on the kernel's code).
 */
static unsigned madvise_eagain;

static bool test_madvise_fail_at(void)
{
	struct kvma_mm *k = kvma_create(MMF_WINDOW_LO, MMF_WINDOW_HI);
	int r;

	ASSERT(k != NULL);
	ASSERT_EQ(kvma_mmap(k, AT(0x10), 8 * PG, 3, 0x22 | 0x10), AT(0x10));
	alloc_fail_arm(1);
	r = kvma_madvise(k, AT(0x11), 2 * PG, 10 /* MADV_DONTFORK */);
	ASSERT(alloc_fail_fired());
	alloc_fail_disarm();
	ASSERT_EQ(r, -EAGAIN);
	madvise_eagain = 1;
	ASSERT_EQ(kvma_validate(k), 0);
	kvma_destroy(k);
	ASSERT_EQ(kvma_live(), 0);
	return true;
}

/*
 * MAP_FIXED over the tail of a VMA of the same flags: the merge with the
 * head (vma_merge_new_range -> vma_expand) fails on its preallocation,
 * and __mmap_region goes on to a VMA of its own: the call succeeds with
 * the range in two VMAs, where the model fails it with -ENOMEM. Which
 * allocation that is depends on the tree (6.12: the 4th), so every
 * position is tried until the call allocates no more.
 */
static bool test_mmap_merge_nomem(void)
{
	unsigned absorbed = 0;

	for (uint64_t n = 1;; n++) {
		struct kvma_mm *k = kvma_create(MMF_WINDOW_LO, MMF_WINDOW_HI);
		struct kvma_vma v[4];
		bool fired;
		int64_t r;

		ASSERT(k != NULL);
		ASSERT_EQ(kvma_mmap(k, AT(0x10), 8 * PG, 3, 0x22 | 0x10), AT(0x10));
		alloc_fail_arm(n);
		r = kvma_mmap(k, AT(0x14), 4 * PG, 3, 0x22 | 0x10);
		fired = alloc_fail_fired();
		alloc_fail_disarm();
		if (fired && r == AT(0x14) && kvma_vmas(k, 0, UINT64_MAX, v, 4) == 2) {
			ASSERT_EQ(v[0].end, AT(0x14));
			ASSERT_EQ(v[1].start, AT(0x14));
			absorbed++;
		}
		ASSERT_EQ(kvma_validate(k), 0);
		kvma_destroy(k);
		ASSERT_EQ(kvma_live(), 0);
		if (!fired)
			break;
		ASSERT(n < 64);
	}
	ASSERT(absorbed > 0);
	return true;
}

/* validate_mm objects to a map_count the tree does not have. */
static bool test_checks_fire(void)
{
	struct kvma_mm *k = kvma_create(MMF_WINDOW_LO, MMF_WINDOW_HI);

	ASSERT(k != NULL);
	ASSERT_EQ(kvma_mmap(k, AT(0x10), 4 * PG, 3, 0x22 | 0x10), AT(0x10));
	check_set_mode(CHECK_COLLECT);
	check_clear();
	ASSERT_EQ(kvma_validate(k), 0);
	ASSERT_EQ(check_total(), 0);
	kvma_test_skew_count(k, 1);
	ASSERT(kvma_validate(k) > 0);
	ASSERT(check_count(CK_KVMA_BUG) > 0);
	kvma_test_skew_count(k, -1);
	check_clear();
	ASSERT_EQ(kvma_validate(k), 0);
	check_set_mode(CHECK_ABORT);
	kvma_destroy(k);
	return true;
}

int main(void)
{
	TEST(test_compare_sees);
	TEST(test_layout);
	TEST(test_hand_programs);
	TEST(test_random_programs);
	TEST(test_fail_at);
	TEST(test_madvise_fail_at);
	TEST(test_mmap_merge_nomem);
	TEST(test_checks_fire);
	fprintf(stderr,
		"differences: hand-written %u, random %u (in %u programs); fail_at: %u calls "
		"succeed on a failed allocation, madvise -EAGAIN %u\n",
		hand_diffs, random_diffs, random_progs_differing, fail_at_absorbed, madvise_eagain);
	return test_summary();
}
