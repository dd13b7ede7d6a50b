/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smaps_rollup: the figures of both readers on a known address space, the
 * rollup invariants firing on results broken by hand, and every schedule
 * of a reader against a writer that unmaps the VMA the reader stopped at
 * and changes another: no schedule may make a reader skip or stop early,
 * and some schedules must make each reader drop the mmap lock.
 */
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/file.h"
#include "mm/fork.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/rollup.h"
#include "mm/types.h"
#include "mm/validate.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "test.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LO 0x200000000000ull
#define P(n) ((uint64_t)(n) << PAGE_SHIFT)
#define A(n) (LO + P(n))
#define RW (PROT_READ | PROT_WRITE)
#define KB(pages) ((pages)*4ull)

static struct mm *mm;
static struct file *file;

static bool setup(void)
{
	mm = mm_create(0, LO, LO + P(0x40000));
	file = file_create(1, false);
	ASSERT(mm && file);
	ASSERT_EQ(mm_mmap(mm, A(0x10), P(8), RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0),
		  A(0x10));
	ASSERT_EQ(mm_touch(mm, A(0x10), P(6), true), 0);
	ASSERT_EQ(mm_mmap(mm, A(0x20), P(4), RW, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, NULL, 0),
		  A(0x20));
	ASSERT_EQ(mm_touch(mm, A(0x20), P(2), true), 0);
	ASSERT_EQ(mm_mmap(mm, A(0x30), P(4), PROT_READ, MAP_PRIVATE | MAP_FIXED, file, 0), A(0x30));
	ASSERT_EQ(mm_touch(mm, A(0x30), P(2), false), 0);
	return true;
}

static bool teardown(void)
{
	ASSERT(mm_validate(mm));
	mm_destroy(mm);
	file_put(file);
	rcu_barrier();
	ASSERT(mem_check_empty());
	return true;
}

static bool read_checked(enum rollup_reader reader, struct rollup *r)
{
	rollup_read(mm, reader, r);
	return rollup_check(mm, r);
}

static bool test_rollup_figures(void)
{
	struct rollup a, b;

	ASSERT(setup());
	ASSERT(read_checked(ROLLUP_MMAP_LOCK, &a));
	ASSERT(read_checked(ROLLUP_VMA_LOCK, &b));
	ASSERT(rollup_stats_equal(&a.stats, &b.stats));
	ASSERT_EQ(a.vma_start, A(0x10));
	ASSERT_EQ(a.last_end, A(0x34));
	ASSERT_EQ(a.stats.rss >> 10, KB(6 + 2 + 2));
	ASSERT_EQ(a.stats.anonymous >> 10, KB(6));
	ASSERT_EQ(a.stats.private_dirty >> 10, KB(6 + 2)); /* anon and written shmem */
	ASSERT_EQ(a.stats.private_clean >> 10, KB(2));	   /* read file pages */
	ASSERT_EQ(a.stats.pss_anon >> (10 + PSS_SHIFT), KB(6));
	/* the shared anonymous pages and the (tmpfs) file's */
	ASSERT_EQ(a.stats.pss_shmem >> (10 + PSS_SHIFT), KB(2 + 2));
	ASSERT_EQ(a.stats.pss_file >> (10 + PSS_SHIFT), 0);
	ASSERT_EQ(a.drops + a.fallbacks, 0);
	rollup_free(&a);
	rollup_free(&b);
	{
		/* after fork the anonymous pages are shared: half each */
		struct fork_opts o = {.algo = FORK_TREE_DUP};
		struct fork_uffd fu;
		struct mm *child;

		ASSERT_EQ(mm_fork(mm, 1, &o, &child, &fu), 0);
		ASSERT(read_checked(ROLLUP_VMA_LOCK, &a));
		ASSERT_EQ(a.stats.pss_anon >> (10 + PSS_SHIFT), KB(6) / 2);
		/* fork does not copy entries of shared mappings (they fault
		 * again in the child): the shmem pages stay private */
		ASSERT_EQ(a.stats.shared_dirty >> 10, KB(6));
		ASSERT_EQ(a.stats.private_dirty >> 10, KB(2));
		ASSERT_EQ(a.stats.rss >> 10, KB(10));
		rollup_free(&a);
		mm_destroy(child);
	}
	return teardown();
}

/* How many times @id fires checking @r. */
static unsigned fires(struct rollup *r, enum check_id id)
{
	unsigned n;

	check_clear();
	check_set_mode(CHECK_COLLECT);
	rollup_check(mm, r);
	check_set_mode(CHECK_ABORT);
	n = check_count(id);
	check_clear();
	if (!n)
		fprintf(stderr, "  %s did not fire\n", check_name(id));
	return n;
}

static bool test_rollup_checks_fire(void)
{
	struct rollup r;
	struct rollup_range first;

	ASSERT(setup());
	rollup_read(mm, ROLLUP_MMAP_LOCK, &r);
	ASSERT(r.gathered.n == 3);
	/* out of order */
	first = r.gathered.r[0];
	r.gathered.r[0] = r.gathered.r[1];
	r.gathered.r[1] = first;
	ASSERT(fires(&r, CK_ROLLUP_ORDER));
	r.gathered.r[1] = r.gathered.r[0];
	r.gathered.r[0] = first;
	/* the first VMA skipped */
	r.gathered.r[0].start = r.gathered.r[0].end - PAGE_SIZE;
	ASSERT(fires(&r, CK_ROLLUP_MISSED));
	r.gathered.r[0] = first;
	/* the last VMA never gathered: the report names it whole */
	{
		const struct rollup_range *last = &r.gathered.r[r.gathered.n - 1];
		char want[128];

		r.gathered.n--;
		check_clear();
		check_set_mode(CHECK_COLLECT);
		rollup_check(mm, &r);
		check_set_mode(CHECK_ABORT);
		snprintf(want, sizeof(want), "never gathered [%#" PRIx64 ", %#" PRIx64 "),",
			 last->start, last->end);
		ASSERT_EQ(check_count(CK_ROLLUP_MISSED), 1);
		ASSERT(strstr(check_last_message(), want) != NULL);
		check_clear();
		r.gathered.n++;
	}
	/* a page counted that is not there */
	r.stats.rss += PAGE_SIZE;
	ASSERT(fires(&r, CK_ROLLUP_SUM));
	ASSERT(fires(&r, CK_ROLLUP_READERS));
	r.stats.rss -= PAGE_SIZE;
	ASSERT(rollup_check(mm, &r));
	rollup_free(&r);
	return teardown();
}

/* ---- every schedule of a reader against a writer ------------------------ */

struct race {
	enum rollup_reader reader;
	struct rollup r;
};

static void reader_fiber(void *arg)
{
	struct race *x = arg;

	rollup_read(mm, x->reader, &x->r);
	rollup_check(mm, &x->r);
}

/* Unmap the first VMA (the one a reader stops at first), then write-fault
 * the shared VMA and make the file VMA writable (changes that do not touch
 * the file VMA's pages). */
static void writer_fiber(void *arg)
{
	(void)arg;
	mm_munmap(mm, A(0x10), P(8));
	mm_touch(mm, A(0x22), P(1), true);
	mm_mprotect(mm, A(0x30), P(4), PROT_READ | PROT_EXEC);
}

static bool race_all(enum rollup_reader reader, unsigned *drops, unsigned *fallbacks)
{
	/* every choice for the first 10 points where both fibers can run */
	for (unsigned bits = 0; bits < 1024; bits++) {
		uint8_t choices[10];
		struct race x = {.reader = reader};
		struct sched s;

		for (unsigned i = 0; i < 10; i++)
			choices[i] = (uint8_t)(bits >> i & 1);
		ASSERT(setup());
		check_clear();
		check_set_mode(CHECK_COLLECT);
		sched_init(&s, choices, sizeof(choices));
		sched_spawn(&s, reader_fiber, &x);
		sched_spawn(&s, writer_fiber, NULL);
		ASSERT(sched_run(&s));
		sched_destroy(&s);
		check_set_mode(CHECK_ABORT);
		if (check_total()) {
			const enum check_id ids[] = {CK_ROLLUP_ORDER, CK_ROLLUP_MISSED,
						     CK_ROLLUP_SUM, CK_ROLLUP_READERS};

			for (unsigned i = 0; i < 4; i++)
				if (check_count(ids[i]))
					fprintf(
					    stderr, "  schedule %#x: %s fired for the %s reader\n",
					    bits, check_name(ids[i]),
					    reader == ROLLUP_MMAP_LOCK ? "mmap-lock" : "VMA-lock");
			return false;
		}
		*drops += x.r.drops;
		*fallbacks += x.r.fallbacks;
		rollup_free(&x.r);
		ASSERT(teardown());
	}
	return true;
}

static bool test_rollup_against_writer(void)
{
	unsigned drops = 0, fallbacks = 0;

	ASSERT(race_all(ROLLUP_MMAP_LOCK, &drops, &fallbacks));
	ASSERT(drops > 0);
	drops = fallbacks = 0;
	ASSERT(race_all(ROLLUP_VMA_LOCK, &drops, &fallbacks));
	ASSERT(fallbacks > 0);
	return true;
}

int main(void)
{
	TEST(test_rollup_figures);
	TEST(test_rollup_checks_fire);
	TEST(test_rollup_against_writer);
	return test_summary();
}
