/* SPDX-License-Identifier: GPL-2.0 */
/* The interval tree (itree.h): AVL, recursive, no parent pointers. */
#include "tree/itree.h"

#include "runtime/check.h"

#include <inttypes.h>
#include <stdio.h>

static int height(const struct itree_node *n)
{
	return n ? n->height : 0;
}

static uint64_t max_last(const struct itree_node *n)
{
	return n ? n->max_last : 0;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

/* Recompute @n's height and subtree maximum from its children. */
static void update(struct itree_node *n)
{
	int l = height(n->left), r = height(n->right);

	n->height = 1 + (l > r ? l : r);
	n->max_last = max3(n->last, max_last(n->left), max_last(n->right));
}

/* <0, 0, >0: @a's key against @b's */
static int cmp(const struct itree_node *a, const struct itree_node *b)
{
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->tie != b->tie)
		return a->tie < b->tie ? -1 : 1;
	return 0;
}

static struct itree_node *rotate_right(struct itree_node *n)
{
	struct itree_node *l = n->left;

	n->left = l->right;
	l->right = n;
	update(n);
	update(l);
	return l;
}

static struct itree_node *rotate_left(struct itree_node *n)
{
	struct itree_node *r = n->right;

	n->right = r->left;
	r->left = n;
	update(n);
	update(r);
	return r;
}

/* @n with children balanced but itself off by at most 2: rebalance it. */
static struct itree_node *balance(struct itree_node *n)
{
	int d;

	update(n);
	d = height(n->left) - height(n->right);
	if (d > 1) {
		if (height(n->left->left) < height(n->left->right))
			n->left = rotate_left(n->left);
		return rotate_right(n);
	}
	if (d < -1) {
		if (height(n->right->right) < height(n->right->left))
			n->right = rotate_right(n->right);
		return rotate_left(n);
	}
	return n;
}

static struct itree_node *insert(struct itree_node *root, struct itree_node *n)
{
	int c;

	if (!root)
		return n;
	c = cmp(n, root);
	MODEL_ASSERT(c != 0); /* keys are unique: the tie tells owners apart */
	if (c < 0)
		root->left = insert(root->left, n);
	else
		root->right = insert(root->right, n);
	return balance(root);
}

void itree_insert(struct itree *t, struct itree_node *n, uint64_t first, uint64_t last,
		  uint32_t tie)
{
	MODEL_ASSERT(first <= last && n->height == 0);
	n->left = n->right = NULL;
	n->first = first;
	n->last = last;
	n->tie = tie;
	update(n);
	t->root = insert(t->root, n);
	t->count++;
}

/* Unhook the leftmost node of @root into *@min; returns the new subtree. */
static struct itree_node *remove_min(struct itree_node *root, struct itree_node **min)
{
	if (!root->left) {
		*min = root;
		return root->right;
	}
	root->left = remove_min(root->left, min);
	return balance(root);
}

static struct itree_node *erase(struct itree_node *root, struct itree_node *n)
{
	struct itree_node *m;
	int c;

	MODEL_ASSERT(root != NULL); /* not in the tree where its key says */
	if (root != n) {
		c = cmp(n, root);
		MODEL_ASSERT(c != 0);
		if (c < 0)
			root->left = erase(root->left, n);
		else
			root->right = erase(root->right, n);
		return balance(root);
	}
	if (!n->left || !n->right)
		return n->left ? n->left : n->right;
	n->right = remove_min(n->right, &m);
	m->left = n->left;
	m->right = n->right;
	return balance(m);
}

void itree_remove(struct itree *t, struct itree_node *n)
{
	t->root = erase(t->root, n);
	t->count--;
	n->left = n->right = NULL;
	n->height = 0;
}

/* Deeper than an AVL tree of any size this model holds: a cycle. */
#define MAX_DEPTH 96

bool itree_contains(const struct itree *t, const struct itree_node *n)
{
	const struct itree_node *x = t->root;

	for (unsigned depth = 0; x && x != n; depth++) {
		int c = cmp(n, x);

		if (!c || depth > MAX_DEPTH)
			return false;
		x = c < 0 ? x->left : x->right;
	}
	return x == n;
}

static bool visit(struct itree_node *n, uint64_t first, uint64_t last, itree_fn fn, void *arg)
{
	if (!n || n->max_last < first)
		return true; /* everything here ends before the range */
	if (!visit(n->left, first, last, fn, arg))
		return false;
	if (n->first > last)
		return true; /* this node and all to its right start after it */
	if (n->last >= first && !fn(n, arg))
		return false;
	return visit(n->right, first, last, fn, arg);
}

bool itree_visit(const struct itree *t, uint64_t first, uint64_t last, itree_fn fn, void *arg)
{
	return visit(t->root, first, last, fn, arg);
}

bool itree_each(const struct itree *t, itree_fn fn, void *arg)
{
	return visit(t->root, 0, UINT64_MAX, fn, arg);
}

static char why[160];

/* Check the subtree at @n whose keys lie strictly between @lo and @hi
 * (NULL: unbounded); counts its nodes into *@count. */
static bool validate(const struct itree_node *n, const struct itree_node *lo,
		     const struct itree_node *hi, unsigned depth, unsigned *count)
{
	int l, r;

	if (!n)
		return true;
	++*count;
	if (depth > MAX_DEPTH) {
		snprintf(why, sizeof(why), "deeper than %d: a cycle", MAX_DEPTH);
		return false;
	}
	if ((lo && cmp(lo, n) >= 0) || (hi && cmp(n, hi) >= 0)) {
		snprintf(why, sizeof(why), "[%#" PRIx64 ", %#" PRIx64 "] tie %u is out of order",
			 n->first, n->last, n->tie);
		return false;
	}
	if (n->first > n->last) {
		snprintf(why, sizeof(why), "[%#" PRIx64 ", %#" PRIx64 "] is empty", n->first,
			 n->last);
		return false;
	}
	if (!validate(n->left, lo, n, depth + 1, count) ||
	    !validate(n->right, n, hi, depth + 1, count))
		return false;
	l = height(n->left);
	r = height(n->right);
	if (n->height != 1 + (l > r ? l : r) || l - r > 1 || r - l > 1) {
		snprintf(why, sizeof(why),
			 "[%#" PRIx64 ", %#" PRIx64 "] has height %d over %d and %d", n->first,
			 n->last, n->height, l, r);
		return false;
	}
	if (n->max_last != max3(n->last, max_last(n->left), max_last(n->right))) {
		snprintf(why, sizeof(why),
			 "[%#" PRIx64 ", %#" PRIx64 "] says its subtree ends at %#" PRIx64
			 ", it ends at %#" PRIx64,
			 n->first, n->last, n->max_last,
			 max3(n->last, max_last(n->left), max_last(n->right)));
		return false;
	}
	return true;
}

const char *itree_validate(const struct itree *t)
{
	unsigned count = 0;

	if (!validate(t->root, NULL, NULL, 0, &count))
		return why;
	if (count != t->count) {
		snprintf(why, sizeof(why), "holds %u nodes, counts %u", count, t->count);
		return why;
	}
	return NULL;
}
