/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Smoke test of tree_kernel, the tree seam over the kernel's own
 * lib/maple_tree.c (kernel/): every operation once, allocation failure in
 * store and dup, an RCU walk against a writer on fibers, and a few hundred
 * random writes against a plain array. Built by kernel/maple/maple.mk
 * (make kernel-test KSRC=...), never by the normal build.
 */
#include "kernel/maple/kmt.h"
#include "kernel/maple/kmt_backend.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "tests/test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct tree_backend *B = &tree_kernel;

/* The harness defines these (fuzz/); weak so that a link with it wins. */
__attribute__((weak)) void tree_picture_put(struct tree_picture *p, uint64_t w)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->w = realloc(p->w, p->cap * sizeof(*p->w));
		if (!p->w)
			abort();
	}
	p->w[p->n++] = w;
}

__attribute__((weak)) bool tree_picture_equal(const struct tree_picture *a,
					      const struct tree_picture *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->w, b->w, a->n * sizeof(*a->w)));
}

__attribute__((weak)) void tree_picture_free(struct tree_picture *p)
{
	free(p->w);
	*p = (struct tree_picture){0};
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : rng;
}

/* entry number i: a pointer-like value the trees accept */
static void *ent(unsigned i)
{
	return (void *)(uintptr_t)(0x10000 + 8 * (uintptr_t)i);
}

static bool live_ok(void *const *trees, unsigned n)
{
	uint64_t reach = 0;

	for (unsigned i = 0; i < n; i++)
		reach += B->nodes(trees[i]);
	return B->check_live(reach);
}

static bool test_geometry(void)
{
	/* 64-bit nodes: 16 slots a leaf, 256 bytes (the autoconf quirk gives
	 * 32 and 512 when it is not handled) */
	ASSERT_EQ(kmt_leaf_slots(), sizeof(void *) == 8 ? 16 : 32);
	ASSERT_EQ(kmt_node_size(), 256);
	ASSERT(B->zero == kmt_zero());
	return true;
}

static bool test_every_operation(void)
{
	void *t = B->create(), *old = NULL;
	struct tree_range r;
	uint64_t start;

	ASSERT(t);
	ASSERT_EQ(B->nodes(t), 0);
	ASSERT(B->load(t, 5, &r) == NULL);
	ASSERT_EQ(r.first, 0);
	ASSERT_EQ(r.last, TREE_MAX);
	ASSERT_EQ(B->store(t, 10, 19, ent(1)), 0);
	ASSERT_EQ(B->store(t, 30, 39, ent(2)), 0);
	ASSERT_EQ(B->store(t, 50, 50, B->zero), 0);
	ASSERT_EQ(B->store(t, 9, 3, ent(3)), -EINVAL);
	ASSERT_EQ(B->store(t, 0, 3, (void *)(uintptr_t)0x1002), -EINVAL);
	ASSERT(B->validate(t));
	ASSERT(B->nodes(t) >= 1);

	ASSERT(B->load(t, 15, &r) == ent(1));
	ASSERT_EQ(r.first, 10);
	ASSERT_EQ(r.last, 19);
	ASSERT(B->load(t, 25, &r) == NULL);
	ASSERT_EQ(r.first, 20);
	ASSERT_EQ(r.last, 29);
	ASSERT(B->load(t, 50, &r) == B->zero);

	ASSERT(B->find(t, 20, 100, &r) == ent(2));
	ASSERT_EQ(r.first, 30);
	ASSERT(B->find(t, 40, 100, &r) == B->zero); /* walks return the zero entry */
	ASSERT(B->find(t, 51, TREE_MAX, &r) == NULL);
	ASSERT(B->find_prev(t, 29, 0, &r) == ent(1));
	ASSERT_EQ(r.last, 19);
	ASSERT(B->find_prev(t, 9, 0, &r) == NULL);

	ASSERT_EQ(B->gap(t, 0, 100, 10, false, &start), 0);
	ASSERT_EQ(start, 0);
	ASSERT_EQ(B->gap(t, 5, 100, 10, false, &start), 0);
	ASSERT_EQ(start, 20);
	ASSERT_EQ(B->gap(t, 0, 49, 10, true, &start), 0);
	ASSERT_EQ(start, 40);
	ASSERT_EQ(B->gap(t, 10, 39, 11, false, &start), -EBUSY);
	ASSERT_EQ(B->gap(t, 10, 9, 1, false, &start), -EINVAL);

	ASSERT_EQ(B->erase(t, 33, &old), 0);
	ASSERT(old == ent(2));
	ASSERT(B->load(t, 30, &r) == NULL);
	ASSERT_EQ(r.first, 20);
	ASSERT_EQ(r.last, 49);
	ASSERT_EQ(B->erase(t, 33, &old), 0);
	ASSERT(old == NULL);
	ASSERT(B->validate(t));
	ASSERT(live_ok(&t, 1));

	{
		FILE *f = tmpfile();
		char buf[256] = "";

		ASSERT(f);
		B->dump(f, t, NULL);
		rewind(f);
		ASSERT(fgets(buf, sizeof(buf), f) != NULL);
		ASSERT(strstr(buf, "maple_tree(") != NULL);
		fclose(f);
	}

	B->clear(t);
	ASSERT_EQ(B->nodes(t), 0);
	ASSERT(B->load(t, 15, NULL) == NULL);
	ASSERT_EQ(B->store(t, 1, 2, ent(4)), 0); /* usable after clear */
	B->release(t);
	rcu_barrier();
	ASSERT(B->check_live(0));
	ASSERT_EQ(alloc_live(AK_OTHER), 0);
	return true;
}

/* A tree of @n ranges of random widths with holes, in [0, 10 * n]. */
static void *random_tree(unsigned n)
{
	void *t = B->create();

	for (unsigned i = 0; i < n; i++) {
		uint64_t a = 10 * (uint64_t)i + rnd(5);

		if (B->store(t, a, a + rnd(5), ent(i + 1)))
			return NULL;
	}
	return t;
}

struct collect {
	struct tree_range r[2048];
	void *e[2048];
	unsigned n;
};

static bool collect_one(void *arg, const struct tree_range *r, void *entry)
{
	struct collect *c = arg;

	if (c->n < 2048) {
		c->r[c->n] = *r;
		c->e[c->n] = entry;
	}
	c->n++;
	return true;
}

static bool test_store_fail_at(void)
{
	unsigned fired = 0, enomem = 0, retried = 0;

	for (unsigned round = 0; round < 12; round++) {
		uint64_t seed = rng;

		/* the same tree and store each time, the nth allocation failing */
		for (uint64_t n = 1;; n++) {
			struct tree_picture before = {0}, after = {0};
			void *t, *e;
			uint64_t a, b;
			int ret;

			rng = seed;
			t = random_tree(40 + 30 * round);
			ASSERT(t);
			a = rnd(400);
			b = a + rnd(round % 2 ? 300 : 3);
			e = round % 3 ? ent(999) : NULL;
			B->picture(t, &before);
			alloc_fail_arm(n);
			ret = B->store(t, a, b, e);
			alloc_fail_disarm();
			B->picture(t, &after);
			ASSERT(B->validate(t));
			ASSERT(live_ok(&t, 1));
			if (ret == -ENOMEM) {
				ASSERT(alloc_fail_fired());
				/* a failed store leaves the tree as it was */
				ASSERT(tree_picture_equal(&before, &after));
				enomem++;
			} else {
				/* GFP_NOWAIT failed, mas_nomem retried with GFP_KERNEL */
				ASSERT_EQ(ret, 0);
				for (uint64_t i = a; i <= b; i++)
					ASSERT(B->load(t, i, NULL) == e);
				if (alloc_fail_fired())
					retried++;
			}
			tree_picture_free(&before);
			tree_picture_free(&after);
			B->release(t);
			if (!alloc_fail_fired())
				break;
			fired++;
		}
	}
	printf("store fail_at: %u failures injected, %u -ENOMEM, %u retried and stored\n", fired,
	       enomem, retried);
	ASSERT(fired > 0);
	ASSERT(enomem > 0);
	ASSERT(B->check_live(0));
	return true;
}

static bool test_dup_fail_at(void)
{
	void *src;
	unsigned enomem = 0;
	uint64_t n;

	if (!B->dup) {
		printf("dup: not in this kernel (no __mt_dup)\n");
		return true;
	}
	src = random_tree(300);
	ASSERT(src);
	ASSERT(B->nodes(src) > 10);
	for (n = 1;; n++) {
		void *dst = B->create();
		void *trees[2] = {src, dst};
		int ret;

		ASSERT(dst);
		alloc_fail_arm(n);
		ret = B->dup(src, dst);
		alloc_fail_disarm();
		if (ret == -ENOMEM) {
			/* a failed __mt_dup leaves an empty tree and no node of its own */
			ASSERT(alloc_fail_fired());
			ASSERT_EQ(B->nodes(dst), 0);
			ASSERT(B->find(dst, 0, TREE_MAX, NULL) == NULL);
			rcu_barrier();
			ASSERT(live_ok(trees, 2));
			enomem++;
		} else {
			ASSERT_EQ(ret, 0);
			ASSERT(!alloc_fail_fired());
			ASSERT(B->validate(dst));
			ASSERT(B->check_dup(src, dst));
			ASSERT(live_ok(trees, 2));
		}
		B->release(dst);
		if (ret == 0)
			break;
	}
	ASSERT(enomem > 0);
	ASSERT_EQ(enomem, n - 1);
	printf("dup fail_at: %u -ENOMEM before a dup of %llu nodes went through\n", enomem,
	       (unsigned long long)B->nodes(src));
	B->release(src);
	rcu_barrier();
	ASSERT(B->check_live(0));
	return true;
}

#define NIDX 300

static void *ref[NIDX + 40];

static bool same_as_ref(void *t)
{
	struct collect c = {.n = 0};
	unsigned k = 0;

	for (unsigned i = 0; i < NIDX + 40; i++) {
		struct tree_range r;
		void *e = B->load(t, i, &r);

		ASSERT(e == ref[i]);
		ASSERT(r.first <= i && i <= r.last);
		for (uint64_t j = r.first; j <= r.last && j < NIDX + 40; j++)
			ASSERT(ref[j] == e);
	}
	/* the walk meets the non-empty indices in order, each once */
	B->walk(t, 0, TREE_MAX, collect_one, &c);
	for (unsigned i = 0; i < c.n; i++) {
		ASSERT(c.e[i] != NULL);
		ASSERT(i == 0 || c.r[i].first > c.r[i - 1].last);
		for (uint64_t j = c.r[i].first; j <= c.r[i].last; j++, k++)
			ASSERT(ref[j] == c.e[i]);
	}
	for (unsigned i = 0; i < NIDX + 40; i++)
		if (ref[i])
			k--;
	ASSERT_EQ(k, 0);
	return true;
}

/* brute force: lowest (highest) start of @size empty indices in [lo, hi] */
static int brute_gap(uint64_t lo, uint64_t hi, uint64_t size, bool highest, uint64_t *start)
{
	int64_t best = -1;

	if (hi - lo < size - 1)
		return -EBUSY;
	for (uint64_t s = lo; s + size - 1 <= hi; s++) {
		bool empty = true;

		for (uint64_t j = s; j < s + size && empty; j++)
			empty = ref[j] == NULL;
		if (empty) {
			best = (int64_t)s;
			if (!highest)
				break;
		}
	}
	if (best < 0)
		return -EBUSY;
	*start = (uint64_t)best;
	return 0;
}

static bool test_random_against_array(void)
{
	void *t = B->create();
	unsigned gaps = 0, gap_mismatch = 0;

	memset(ref, 0, sizeof(ref));
	for (unsigned op = 0; op < 600; op++) {
		uint64_t a = rnd(NIDX), b = a + (rnd(4) ? rnd(8) : rnd(60));
		/* one entry per store: a run of one entry in @ref is one range */
		void *e = rnd(3) ? ent(1 + op) : NULL;

		if (b >= NIDX)
			b = NIDX - 1;
		if (rnd(5) == 0) {
			void *old = NULL, *want = ref[a];

			ASSERT_EQ(B->erase(t, a, &old), 0);
			ASSERT(old == want);
			if (want) {
				/* the whole range that held @a */
				struct tree_range r;

				(void)r;
				for (uint64_t j = a; j < NIDX && ref[j] == want; j++)
					ref[j] = NULL;
				for (int64_t j = (int64_t)a - 1; j >= 0 && ref[j] == want; j--)
					ref[j] = NULL;
			}
		} else {
			ASSERT_EQ(B->store(t, a, b, e), 0);
			for (uint64_t j = a; j <= b; j++)
				ref[j] = e;
		}
		ASSERT(B->validate(t));
		if (op % 10 == 0 || op > 590)
			ASSERT(same_as_ref(t));
		ASSERT(live_ok(&t, 1));
		/* gap searches against the brute force */
		for (unsigned g = 0; g < 4; g++) {
			uint64_t lo = rnd(NIDX), hi = lo + rnd(NIDX + 39 - lo), size = 1 + rnd(12);
			bool highest = rnd(2);
			uint64_t s1 = 0, s2 = 0;
			int r1 = B->gap(t, lo, hi, size, highest, &s1);
			int r2 = brute_gap(lo, hi, size, highest, &s2);

			gaps++;
			if (r1 != r2 || (!r1 && s1 != s2)) {
				if (gap_mismatch++ < 5)
					fprintf(
					    stderr,
					    "gap [%llu, %llu] size %llu %s: kernel %d %llu, brute "
					    "force %d %llu\n",
					    (unsigned long long)lo, (unsigned long long)hi,
					    (unsigned long long)size, highest ? "high" : "low", r1,
					    (unsigned long long)s1, r2, (unsigned long long)s2);
			}
		}
		/* the entries do not mean the ranges: adjacent equal entries stay apart,
		 * so the ref's runs of one entry are checked index by index above */
	}
	printf("random: 600 writes, %u gap searches, %u differ from the brute force\n", gaps,
	       gap_mismatch);
	ASSERT_EQ(gap_mismatch, 0);
	B->release(t);
	rcu_barrier();
	ASSERT(B->check_live(0));
	return true;
}

static bool test_bulk(void)
{
	void *t, *bulk = NULL;
	unsigned n = 200;

	if (!B->bulk_begin) {
		printf("bulk: not in this kernel (no mas_expected_entries)\n");
		return true;
	}
	t = B->create();

	ASSERT_EQ(B->bulk_begin(t, n, &bulk), 0);
	for (unsigned i = 0; i < n; i++)
		ASSERT_EQ(B->bulk_append(bulk, 10 * (uint64_t)i, 10 * (uint64_t)i + 4, ent(i + 1)),
			  0);
	ASSERT_EQ(B->bulk_append(bulk, 5, 6, ent(1)), -EINVAL);
	/* past the expected count */
	ASSERT_EQ(B->bulk_append(bulk, 5000, 5001, ent(7)), 0);
	B->bulk_end(bulk);
	ASSERT(B->validate(t));
	for (unsigned i = 0; i < n; i++)
		ASSERT(B->load(t, 10 * (uint64_t)i + 2, NULL) == ent(i + 1));
	ASSERT(B->load(t, 5001, NULL) == ent(7));
	ASSERT(live_ok(&t, 1));
	/* the tree is back in RCU mode: a store still works */
	ASSERT_EQ(B->store(t, 3, 1003, NULL), 0);
	ASSERT(B->validate(t));
	B->release(t);

	/* a failed preallocation changes nothing */
	t = B->create();
	alloc_fail_arm(2);
	ASSERT_EQ(B->bulk_begin(t, 500, &bulk), -ENOMEM);
	alloc_fail_disarm();
	ASSERT_EQ(B->nodes(t), 0);
	ASSERT(live_ok(&t, 1));
	B->release(t);
	ASSERT(B->check_live(0));
	ASSERT_EQ(alloc_live(AK_OTHER), 0);
	return true;
}

/* ---- an RCU reader against a writer, on fibers --------------------------- */

static void *rcu_tree;
static struct collect rcu_seen;
static uint64_t max_pending;
static struct sched S;

static void reader(void *arg)
{
	(void)arg;
	rcu_seen.n = 0;
	B->rcu_walk(rcu_tree, 0, TREE_MAX, collect_one, &rcu_seen);
}

static void writer(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < 60; i++) {
		uint64_t a = rnd(3000);
		struct kmt_live l;

		B->store(rcu_tree, a, a + rnd(40), rnd(4) ? ent(1000 + i) : NULL);
		kmt_live(&l);
		if (l.pending > max_pending)
			max_pending = l.pending;
		sched_point("writer");
	}
}

static bool test_rcu_walk(void)
{
	unsigned runs = 0, visits = 0;

	for (unsigned seed = 0; seed < 20; seed++) {
		uint8_t bytes[4096];

		for (unsigned i = 0; i < sizeof(bytes); i++)
			bytes[i] = (uint8_t)rnd(256);
		rcu_tree = random_tree(300);
		ASSERT(rcu_tree);
		sched_init(&S, bytes, sizeof(bytes));
		sched_spawn(&S, reader, NULL);
		sched_spawn(&S, writer, NULL);
		ASSERT(sched_run(&S));
		sched_destroy(&S);
		ASSERT(rcu_seen.n > 0);
		/* ranges ascend by their last index, entries are ones stored */
		for (unsigned i = 0; i < rcu_seen.n && i < 2048; i++) {
			uintptr_t v = (uintptr_t)rcu_seen.e[i];

			ASSERT(v >= 0x10000 && v < 0x10000 + 8 * 1100 && v % 8 == 0);
			ASSERT(i == 0 || rcu_seen.r[i].last > rcu_seen.r[i - 1].last);
		}
		visits += rcu_seen.n;
		ASSERT(B->validate(rcu_tree));
		rcu_barrier();
		ASSERT(live_ok(&rcu_tree, 1));
		B->release(rcu_tree);
		runs++;
	}
	rcu_barrier();
	ASSERT(B->check_live(0));
	printf("rcu walk: %u runs, %u entries seen, up to %llu nodes waited for the reader\n", runs,
	       visits, (unsigned long long)max_pending);
	/* the reader held replaced nodes alive: frees did wait */
	ASSERT(max_pending > 0);
	return true;
}

/* ---- the checks fire ------------------------------------------------------ */

static bool test_checks_fire(void)
{
	void *t = random_tree(100);
	bool ok;

	ASSERT(t);
	check_clear();
	check_set_mode(CHECK_COLLECT);
	ASSERT(kmt_test_corrupt(t));
	ok = B->validate(t);
	kmt_test_restore();
	ASSERT(!ok);
	ASSERT(check_count(CK_KMT_BUG) > 0);
	ASSERT(B->validate(t));
	ASSERT(!B->check_live(B->nodes(t) + 1));
	ASSERT(check_count(CK_MEM_LIVE_MISMATCH) == 1);
	/* a "duplicate" made of the source's own nodes: alike, but shared */
	ASSERT(!B->check_dup(t, t));
	ASSERT(check_count(CK_MT_DUP_MISMATCH) == 1);
	/*
	 * The tree's WARN_ON_ONCE reports, and each time: an advanced entry
	 * (an internal value the tree keeps for itself), which the backend
	 * refuses before the tree sees it, handed to mtree_insert_range.
	 */
	check_clear();
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(kmt_insert(t, 5000, 5010, (void *)(uintptr_t)0x402), -EINVAL);
	ASSERT(check_count(CK_KMT_BUG) == 2);
	ASSERT(B->validate(t));
	check_clear();
	check_set_mode(CHECK_ABORT);
	B->release(t);
	ASSERT(B->check_live(0));
	return true;
}

int main(void)
{
	TEST(test_geometry);
	TEST(test_every_operation);
	TEST(test_store_fail_at);
	TEST(test_dup_fail_at);
	TEST(test_random_against_array);
	TEST(test_bulk);
	TEST(test_rcu_walk);
	TEST(test_checks_fire);
	return test_summary();
}
