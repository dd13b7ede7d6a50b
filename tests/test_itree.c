/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interval tree against a brute force: inserts, removals and overlap
 * queries in a seeded random order, the tree validated after every change,
 * and the validator shown to catch each kind of damage.
 */
#include "test.h"
#include "tree/itree.h"

#include <string.h>

#define N 600

static struct itree_node nodes[N];
static bool in[N];
static struct itree t;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct query {
	bool seen[N];
	unsigned n;
	uint64_t prev_first;
	uint32_t prev_tie;
	bool ordered;
	unsigned stop_after; /* 0: never stop */
};

static bool collect(struct itree_node *n, void *arg)
{
	struct query *q = arg;
	unsigned i = (unsigned)(n - nodes);

	if (q->n &&
	    (n->first < q->prev_first || (n->first == q->prev_first && n->tie <= q->prev_tie)))
		q->ordered = false;
	q->prev_first = n->first;
	q->prev_tie = n->tie;
	q->seen[i] = true;
	q->n++;
	return !q->stop_after || q->n < q->stop_after;
}

/* The query [a, b] finds exactly the overlapping nodes, in key order. */
static bool query_matches(uint64_t a, uint64_t b)
{
	static struct query q;

	memset(&q, 0, sizeof(q));
	q.ordered = true;
	itree_visit(&t, a, b, collect, &q);
	if (!q.ordered)
		return false;
	for (unsigned i = 0; i < N; i++) {
		bool want = in[i] && nodes[i].first <= b && nodes[i].last >= a;

		if (want != q.seen[i])
			return false;
	}
	return true;
}

static bool test_against_brute_force(void)
{
	memset(&t, 0, sizeof(t));
	for (unsigned step = 0; step < 20000; step++) {
		unsigned i = (unsigned)(next_rand() % N);

		if (in[i]) {
			itree_remove(&t, &nodes[i]);
			in[i] = false;
			ASSERT(!itree_contains(&t, &nodes[i]));
		} else {
			/* few distinct starts, so equal firsts are common */
			uint64_t first = next_rand() % 64, len = next_rand() % 16;

			itree_insert(&t, &nodes[i], first, first + len, i);
			in[i] = true;
			ASSERT(itree_contains(&t, &nodes[i]));
		}
		ASSERT(itree_validate(&t) == NULL);
		if (step % 16 == 0) {
			uint64_t a = next_rand() % 90, b = a + next_rand() % 20;

			ASSERT(query_matches(a, b));
		}
	}
	ASSERT(query_matches(0, UINT64_MAX));
	/* an AVL tree of n nodes is at most about 1.44 log2(n) high */
	ASSERT(t.count < 2 || (t.root->height <= 15));
	return true;
}

static bool test_stop_early(void)
{
	struct query q;

	memset(&q, 0, sizeof(q));
	q.ordered = true;
	q.stop_after = 3;
	ASSERT(t.count >= 3);
	ASSERT(!itree_each(&t, collect, &q));
	ASSERT_EQ(q.n, 3);
	return true;
}

static bool test_validate_catches_damage(void)
{
	struct itree_node *r = t.root;
	uint64_t saved;
	int h;

	ASSERT(r && r->left && r->right);
	ASSERT(itree_validate(&t) == NULL);

	saved = r->max_last;
	r->max_last = saved + 1;
	ASSERT(itree_validate(&t) != NULL);
	r->max_last = saved;

	saved = r->left->first;
	r->left->first = r->first + 1000; /* now sorts after the root */
	ASSERT(itree_validate(&t) != NULL);
	r->left->first = saved;

	h = r->height;
	r->height = h + 1;
	ASSERT(itree_validate(&t) != NULL);
	r->height = h;

	t.count++;
	/* the report says what is wrong, with both counts */
	{
		const char *why = itree_validate(&t);
		char want[64];

		snprintf(want, sizeof(want), "holds %u nodes, counts %u", t.count - 1, t.count);
		ASSERT(why != NULL && strcmp(why, want) == 0);
	}
	t.count--;

	/* a cycle: reported, and a search through it ends */
	{
		struct itree_node *leaf = r->left, *saved_child;
		struct itree_node probe = {.first = 0, .tie = 0};

		while (leaf->left)
			leaf = leaf->left;
		saved_child = leaf->left;
		leaf->left = r;
		ASSERT(itree_validate(&t) != NULL);
		ASSERT(!itree_contains(&t, &probe));
		leaf->left = saved_child;
		ASSERT(itree_validate(&t) == NULL);
	}

	/* a node missing from where its key says is not contained */
	saved = r->right->first;
	r->right->first = 0;
	ASSERT(!itree_contains(&t, r->right));
	r->right->first = saved;
	ASSERT(itree_contains(&t, r->right));
	ASSERT(itree_validate(&t) == NULL);
	return true;
}

int main(void)
{
	TEST(test_against_brute_force);
	TEST(test_stop_early);
	TEST(test_validate_catches_damage);
	return test_summary();
}
