/* SPDX-License-Identifier: GPL-2.0 */
/* The expectation's records, maps, objects and contexts (expect_map.h). */
#include "expect_map.h"

#include "runtime/check.h"

#include <stdlib.h>
#include <string.h>

/* Grow *@v (of @size-byte elements) to hold @n + 1. */
static void grow(void **v, unsigned *cap, unsigned n, size_t size)
{
	if (n < *cap)
		return;
	*cap = *cap ? 2 * *cap : 64;
	*v = realloc(*v, *cap * size);
	MODEL_ASSERT(*v != NULL);
}

void *exp_rec_new(struct exp_store *e, const struct exp_rec *r)
{
	grow((void **)&e->rec, &e->caprec, e->nrec, sizeof(*e->rec));
	e->rec[e->nrec++] = *r;
	return (void *)(uintptr_t)e->nrec;
}

void exp_map_set(struct mtref *m, uint64_t first, uint64_t last, void *entry)
{
	if (first <= last)
		mtref_store(m, first, last, entry);
}

size_t exp_map_lower(const struct mtref *m, uint64_t x)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].last < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void exp_map_edit(struct exp_store *e, struct mtref *m, uint64_t first, uint64_t last,
		  exp_edit_fn fn, void *arg)
{
	uint64_t at = first;

	while (at <= last) {
		size_t i = exp_map_lower(m, at);
		uint64_t a, b;
		struct exp_rec r;

		if (i == m->n || m->v[i].first > last)
			return;
		a = m->v[i].first > at ? m->v[i].first : at;
		b = m->v[i].last < last ? m->v[i].last : last;
		r = *exp_rec(e, m->v[i].entry);
		if (fn(e, &r, a, b, arg))
			exp_map_set(m, a, b, exp_rec_new(e, &r));
		if (b == UINT64_MAX)
			return;
		at = b + 1;
	}
}

uint32_t exp_obj_new(struct exp_store *e, uint64_t fill)
{
	grow((void **)&e->obj, &e->capobj, e->nobj, sizeof(*e->obj));
	mtref_init(&e->obj[e->nobj].data);
	e->obj[e->nobj].fill = fill;
	return ++e->nobj;
}

bool exp_obj_value(const struct exp_store *e, uint32_t obj, uint64_t pgoff, uint64_t *value)
{
	const struct exp_obj *o = &e->obj[obj - 1];
	size_t i = exp_map_lower(&o->data, pgoff);
	const struct exp_rec *r;

	if (e->obj_vague)
		return false;
	if (i == o->data.n || o->data.v[i].first > pgoff) {
		*value = o->fill ? o->fill + pgoff : 0;
		return true;
	}
	r = exp_rec(e, o->data.v[i].entry);
	if (r->unknown & EU_DATA)
		return false;
	*value = r->base + (uint64_t)((int64_t)pgoff - r->origin);
	return true;
}

void exp_obj_set(struct exp_store *e, uint32_t obj, uint64_t first, uint64_t last,
		 const struct exp_rec *r)
{
	struct exp_rec unknown = {.unknown = EU_DATA};

	exp_map_set(&e->obj[obj - 1].data, first, last, exp_rec_new(e, r ? r : &unknown));
	e->objgen++;
}

void exp_obj_vague(struct exp_store *e)
{
	e->obj_vague = true;
	e->objgen++;
}

void exp_store_free(struct exp_store *e)
{
	for (unsigned i = 0; i < e->nobj; i++)
		mtref_free(&e->obj[i].data);
	free(e->rec);
	free(e->obj);
	free(e->ctx);
	memset(e, 0, sizeof(*e));
}

uint32_t exp_ctx_new(struct exp_store *e, unsigned owner, bool event_fork, bool event_remap)
{
	grow((void **)&e->ctx, &e->capctx, e->nctx, sizeof(*e->ctx));
	e->ctx[e->nctx] = (struct exp_ctx){(uint8_t)owner, event_fork, event_remap, 0};
	return ++e->nctx;
}

bool exp_page_value(const struct exp_store *e, const struct exp_rec *r, uint64_t x, uint64_t *value)
{
	if (r->unknown & (EU_MAP | EU_DATA))
		return false;
	switch (r->data) {
	case ED_ZERO:
		*value = 0;
		return true;
	case ED_VALUE:
		*value = r->base + (uint64_t)((int64_t)x - r->origin);
		return true;
	default:
		return exp_obj_value(e, r->obj, (uint64_t)((int64_t)x + r->pgdelta), value);
	}
}
