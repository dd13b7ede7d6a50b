/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation's edits (expect_edit.h): the one way the files that write
 * down what a call leaves change a process's expected pages, so that the
 * next check compares them again.
 */
#include "expect_edit.h"

#include "expect_state.h"

/* Changes of a process's expected pages go through these: a check compares
 * it again (expect_check.c). */
void exp_set(struct as_expect *e, unsigned p, uint64_t first, uint64_t last, void *entry)
{
	exp_map_set(&e->map[p], first, last, entry);
	e->mapgen[p]++;
}

void exp_edit(struct as_expect *e, unsigned p, uint64_t first, uint64_t last, exp_edit_fn fn,
	      void *arg)
{
	exp_map_edit(&e->st, &e->map[p], first, last, fn, arg);
	e->mapgen[p]++;
}

/* ... and those that change only what pages hold, not their mapping. */
void exp_edit_data(struct as_expect *e, unsigned p, uint64_t first, uint64_t last, exp_edit_fn fn,
		   void *arg)
{
	exp_map_edit(&e->st, &e->map[p], first, last, fn, arg);
	e->datagen[p]++;
}

static bool set_unknown(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
			void *arg)
{
	uint8_t what = (uint8_t)(uintptr_t)arg;

	(void)e;
	(void)first;
	(void)last;
	if ((r->unknown & what) == what)
		return false;
	r->unknown |= what;
	return true;
}

/* Pages [lo, hi) of @p: @what becomes unknown where they are mapped; with
 * EU_MAP, unmapped pages too. */
void exp_unknown(struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi, uint8_t what)
{
	if (lo >= hi)
		return;
	if (what & EU_MAP) {
		struct exp_rec r = {.unknown = EU_MAP | EU_ATTR | EU_UFFD | EU_DATA | EU_PGOFF};

		exp_set(e, p, lo, hi - 1, exp_rec_new(&e->st, &r));
		return;
	}
	exp_edit(e, p, lo, hi - 1, set_unknown, (void *)(uintptr_t)what);
}

/* The record of page @x of @p, or NULL: unmapped. */
const struct exp_rec *exp_rec_at(const struct as_expect *e, unsigned p, uint64_t x)
{
	const struct mtref *m = &e->map[p];
	size_t i = exp_map_lower(m, x);

	return i < m->n && m->v[i].first <= x ? exp_rec(&e->st, m->v[i].entry) : NULL;
}

/* The first page of [lo, hi) of @p whose record @ok refuses (hi: none). */
uint64_t exp_first_not(const struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi,
		       bool (*ok)(const struct exp_rec *r))
{
	const struct mtref *m = &e->map[p];

	for (uint64_t at = lo; at < hi;) {
		size_t i = exp_map_lower(m, at);

		if (i == m->n || m->v[i].first > at || !ok(exp_rec(&e->st, m->v[i].entry)))
			return at;
		at = m->v[i].last + 1;
	}
	return hi;
}

static bool private_copy(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
			 void *arg)
{
	bool only_locked = arg != NULL;

	(void)e;
	(void)first;
	(void)last;
	if ((r->unknown & (EU_MAP | EU_DATA)) || (r->flags & AS_VM_MAYSHARE) || !r->obj)
		return false;
	if (!(r->unknown & EU_ATTR) &&
	    (!(r->flags & AS_VM_WRITE) || (only_locked && !(r->flags & AS_VM_LOCKED))))
		return false;
	r->unknown |= EU_DATA;
	return true;
}

void exp_private_copies(struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi, bool only_locked)
{
	if (lo < hi)
		exp_edit_data(e, p, lo, hi - 1, private_copy, only_locked ? (void *)1 : NULL);
}
