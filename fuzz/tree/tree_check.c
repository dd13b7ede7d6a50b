/* SPDX-License-Identifier: GPL-2.0 */
/* Checks of a tree's writes through the seam (tree_check.h). */
#include "tree_check.h"

#include "runtime/check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The buffers of freed pictures, for the next ones: a kernel target takes
 * a picture or two of a tree for every write with fail_at, dup and fork,
 * and allocating them anew (growing from 4 KiB) was most of the bytes its
 * steps allocated.
 */
#define PICTURE_SPARES 4
static struct {
	uint64_t *w;
	size_t cap;
} spares[PICTURE_SPARES];
static unsigned nspares;

void tree_picture_put(struct tree_picture *p, uint64_t w)
{
	if (p->n == p->cap && !p->w && nspares) {
		nspares--;
		p->w = spares[nspares].w;
		p->cap = spares[nspares].cap;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 512;
		p->w = realloc(p->w, p->cap * sizeof(*p->w));
		MODEL_ASSERT(p->w != NULL);
	}
	p->w[p->n++] = w;
}

bool tree_picture_equal(const struct tree_picture *a, const struct tree_picture *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->w, b->w, a->n * sizeof(*a->w)));
}

void tree_picture_free(struct tree_picture *p)
{
	if (p->w && nspares < PICTURE_SPARES) {
		spares[nspares].w = p->w;
		spares[nspares].cap = p->cap;
		nspares++;
	} else {
		free(p->w);
	}
	memset(p, 0, sizeof(*p));
}

void tree_picture_spares_release(void)
{
	while (nspares)
		free(spares[--nspares].w);
}

bool tree_check_unchanged(const struct tree_backend *b, void *t, const struct tree_picture *before,
			  enum check_id id, const char *what)
{
	struct tree_picture now = {NULL, 0, 0};
	bool same;

	b->picture(t, &now);
	same = tree_picture_equal(before, &now);
	tree_picture_free(&now);
	if (same)
		return true;
	return check_fail(id, "%s changed the tree", what);
}

bool tree_check_write(const struct tree_backend *b, void *t, const struct tree_picture *before,
		      int err, bool alloc_failed, int want, const char *what)
{
	/* a retried failure may end in any answer but -ENOMEM (an insert
	 * allocates before it finds the range taken: -EEXIST) */
	if (!alloc_failed || (b->retries && err != -ENOMEM))
		return err == want ||
		       check_fail(CK_MT_OP_RESULT, "%s returned %d, expected %d", what, err, want);
	if (err != -ENOMEM)
		return check_fail(CK_MT_OP_RESULT, "%s returned %d after its allocation failed",
				  what, err);
	return tree_check_unchanged(b, t, before, CK_MT_FAILED_WRITE_CHANGED, what);
}
