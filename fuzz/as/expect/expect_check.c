/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation against a backend (expect.h): each followed process's
 * VMAs, run by run of pages (MM_EXPECTED_STATE, MM_EXPECTED_UFFD), and its
 * present pages' data (MM_EXPECTED_DATA).
 */
#include "expect.h"

#include "expect_map.h"
#include "mm/kver.h"
#include "runtime/check.h"

#include <inttypes.h>
#include <stdlib.h>

#define PG(addr) ((addr) >> MMF_PAGE_SHIFT)
/* What a check looks at: the window, and what a mapping starting in it can
 * reach past its top (255 pages). */
#define VIEW_LO MMF_WINDOW_LO
#define VIEW_HI (MMF_WINDOW_HI + (256ull << MMF_PAGE_SHIFT))
#define VIEW_MAX 1024

/* Pages as a program names them: from the window's start. */
#define AT(x) ((uint64_t)((x)-PG(MMF_WINDOW_LO)))

/* What EU_ATTR leaves unknown; sharing and growsdown are the mapping's
 * from its mmap on. */
#define ATTR_FLAGS                                                                                 \
	(AS_VM_READ | AS_VM_WRITE | AS_VM_EXEC | AS_VM_LOCKED | AS_VM_LOCKONFAULT |                \
	 AS_VM_DONTCOPY | AS_VM_WIPEONFORK)

/* "rw-s gd lo lf dc wf um uw ui" */
static const char *flags_str(uint64_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%c%c%c%c%s%s%s%s%s%s%s%s", f & AS_VM_READ ? 'r' : '-',
		 f & AS_VM_WRITE ? 'w' : '-', f & AS_VM_EXEC ? 'x' : '-',
		 f & AS_VM_MAYSHARE ? 's' : 'p', f & AS_VM_GROWSDOWN ? " gd" : "",
		 f & AS_VM_LOCKED ? " lo" : "", f & AS_VM_LOCKONFAULT ? " lf" : "",
		 f & AS_VM_DONTCOPY ? " dc" : "", f & AS_VM_WIPEONFORK ? " wf" : "",
		 f & AS_VM_UFFD_MISSING ? " um" : "", f & AS_VM_UFFD_WP ? " uw" : "",
		 f & AS_VM_UFFD_MINOR ? " ui" : "");
	return buf;
}

/* "missing wp minor" */
static const char *modes_str(uint64_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", f & AS_VM_UFFD_MISSING ? " missing" : "",
		 f & AS_VM_UFFD_WP ? " wp" : "", f & AS_VM_UFFD_MINOR ? " minor" : "");
	return buf[0] ? buf + 1 : buf;
}

/* A context as the program names it: the fd that holds it. */
static const char *ctx_str(const struct as_expect *e, uint32_t ctx, char *buf, size_t len)
{
	if (!ctx)
		return "no context";
	for (unsigned p = 0; p < MMF_MAX_PROCS; p++)
		for (unsigned k = 0; k < MMF_FDS; k++)
			if (e->fd[p][k] == ctx) {
				snprintf(buf, len, "the context in p%u's h%u%s", p, k,
					 e->st.ctx[ctx - 1].token ? "" : " (not seen yet)");
				return buf;
			}
	snprintf(buf, len, "a context of p%u no fd holds", e->st.ctx[ctx - 1].owner);
	return buf;
}

/* The context the backend names @token, once seen (0: none). */
static uint32_t token_of(const struct as_expect *e, uint32_t token)
{
	for (unsigned i = 0; token && i < e->st.nctx; i++)
		if (e->st.ctx[i].token == token)
			return i + 1;
	return 0;
}

/* The context a page is registered with and the backend's name for it
 * agree: each context has one name, each name one context. */
static bool same_ctx(struct as_expect *e, uint32_t ctx, uint32_t token)
{
	struct exp_ctx *x;

	if (!ctx || !token)
		return !ctx == !token || !token; /* a backend may not tell */
	x = &e->st.ctx[ctx - 1];
	if (x->token)
		return x->token == token;
	for (unsigned i = 0; i < e->st.nctx; i++)
		if (e->st.ctx[i].token == token)
			return false; /* another context's name */
	x->token = token;
	return true;
}

/* Pages [at, next) of @p: record @r against VMA @v. */
static bool compare_run(struct as_expect *e, unsigned p, const struct exp_rec *r,
			const struct as_vma *v, uint64_t at, uint64_t next)
{
	uint64_t mask = AS_VM_MAYSHARE | AS_VM_GROWSDOWN | (r->unknown & EU_ATTR ? 0 : ATTR_FLAGS);

	/* smaps names lf only from KV_SMAPS_SHOWS_LF on */
	if (!kver_has(e->kver, KV_SMAPS_SHOWS_LF))
		mask &= ~AS_VM_LOCKONFAULT;
	uint64_t pgoff = v->pgoff + (at - PG(v->start));
	bool offset = !(r->unknown & EU_PGOFF);
	char have[48], want[48], ctx[64], other[64];

	if ((v->flags ^ r->flags) & mask ||
	    (offset && pgoff != (uint64_t)((int64_t)at + r->pgdelta)))
		return check_fail(CK_MM_EXPECTED_STATE,
				  "p%u @%#" PRIx64 ":%" PRIu64 " is %s at offset %#" PRIx64
				  ", the calls asked %s at offset %#" PRIx64 "%s",
				  p, AT(at), next - at,
				  flags_str(v->flags & mask, have, sizeof(have)), pgoff,
				  flags_str(r->flags & mask, want, sizeof(want)),
				  (uint64_t)((int64_t)at + r->pgdelta),
				  r->unknown & EU_ATTR	  ? " (permissions unknown)"
				  : r->unknown & EU_PGOFF ? " (offset unknown)"
							  : "");
	if (r->unknown & EU_UFFD)
		return true;
	if ((v->flags ^ r->flags) & EXP_UFFD_FLAGS || !same_ctx(e, r->ctx, v->uffd))
		return check_fail(
		    CK_MM_EXPECTED_UFFD,
		    "p%u @%#" PRIx64 ":%" PRIu64
		    " is registered in modes [%s] with the backend's context #%u%s%s, "
		    "the calls asked modes [%s] with %s",
		    p, AT(at), next - at, modes_str(v->flags, have, sizeof(have)), v->uffd,
		    token_of(e, v->uffd) ? ", which is " : "",
		    token_of(e, v->uffd) ? ctx_str(e, token_of(e, v->uffd), other, sizeof(other))
					 : "",
		    modes_str(r->flags, want, sizeof(want)), ctx_str(e, r->ctx, ctx, sizeof(ctx)));
	return true;
}

/* Walk the expected runs and the VMAs side by side; the first difference. */
static bool compare_vmas(struct as_expect *e, unsigned p, const struct as_vma *view, unsigned n)
{
	const struct mtref *m = &e->map[p];
	uint64_t at = PG(VIEW_LO), hi = PG(VIEW_HI);
	size_t i = exp_map_lower(m, at);
	unsigned j = 0;

	while (at < hi) {
		const struct mtref_range *r = i < m->n ? &m->v[i] : NULL;
		const struct as_vma *v;
		uint64_t next = hi;
		bool in = r && r->first <= at;

		while (j < n && PG(view[j].end) <= at)
			j++;
		v = j < n && PG(view[j].start) <= at ? &view[j] : NULL;
		if (r)
			next = in ? r->last + 1 : r->first;
		if (j < n) {
			uint64_t b = v ? PG(v->end) : PG(view[j].start);

			if (b < next)
				next = b;
		}
		if (in) {
			const struct exp_rec *x = exp_rec(&e->st, r->entry);

			if (!(x->unknown & EU_MAP) && !v)
				return check_fail(CK_MM_EXPECTED_STATE,
						  "p%u @%#" PRIx64 ":%" PRIu64
						  " is not mapped, the calls mapped it",
						  p, AT(at), next - at);
			if (!(x->unknown & EU_MAP) && !compare_run(e, p, x, v, at, next))
				return false;
		} else if (v) {
			return check_fail(CK_MM_EXPECTED_STATE,
					  "p%u @%#" PRIx64 ":%" PRIu64
					  " is mapped, no call mapped it (or one unmapped it)",
					  p, AT(at), next - at);
		}
		if (in && next > r->last)
			i++;
		at = next;
	}
	return true;
}

struct data_walk {
	struct as_expect *e;
	unsigned p;
	size_t i; /* the run at or after the last page */
	bool failed;
};

static void data_one(void *arg, uint64_t addr, uint64_t value)
{
	struct data_walk *w = arg;
	const struct mtref *m = &w->e->map[w->p];
	uint64_t x = PG(addr), want;
	char have[96], must[96];

	if (w->failed)
		return;
	while (w->i < m->n && m->v[w->i].last < x)
		w->i++;
	if (w->i == m->n || m->v[w->i].first > x)
		return; /* a page outside any mapping is the page checks' */
	if (!exp_page_value(&w->e->st, exp_rec(&w->e->st, m->v[w->i].entry), x, &want) ||
	    want == value)
		return;
	w->failed = true;
	check_fail(CK_MM_EXPECTED_DATA, "p%u @%#" PRIx64 " holds %s, but must hold %s", w->p, AT(x),
		   as_expect_value_str(value, have, sizeof(have)),
		   as_expect_value_str(want, must, sizeof(must)));
}

/* Whether process @p's VMAs and data need comparing: not when nothing
 * changed on either side since they last were (the backend's counts, the
 * expectation's). */
static void what_changed(struct as_expect *e, const struct as_backend *b, void *as, unsigned p,
			 bool *vmas, bool *data)
{
	struct exp_compared *c = &e->compared[p];
	uint64_t vc = 0, pc = 0;

	if (b->changes)
		b->changes(as, p, &vc, &pc);
	*vmas = !b->changes || !c->vmas || vc != c->vma_changes || e->mapgen[p] != c->mapgen;
	*data = !b->changes || !c->data || pc != c->page_changes || e->mapgen[p] != c->mapgen ||
		e->datagen[p] != c->datagen || e->st.objgen != c->objgen;
	*c = (struct exp_compared){true, true, e->mapgen[p], e->datagen[p], e->st.objgen, vc, pc};
}

void as_expect_check(struct as_expect *e, const struct as_backend *b, void *as)
{
	char err[128];

	if (!e->view) {
		e->view = malloc(VIEW_MAX * sizeof(*e->view));
		MODEL_ASSERT(e->view != NULL);
	}
	for (unsigned p = 0; p < MMF_MAX_PROCS; p++) {
		struct data_walk w = {e, p, 0, false};
		bool vmas, data;
		int n;

		if (!e->live[p]) {
			e->compared[p].vmas = e->compared[p].data = false;
			if (!e->alien[p] && b->vmas(as, p, 0, 0, false, NULL, 0, err, 0) >= 0)
				check_fail(CK_MM_EXPECTED_STATE,
					   "p%u exists, but no call made it (or an exit ended it)",
					   p);
			continue;
		}
		what_changed(e, b, as, p, &vmas, &data);
		n = !vmas ? 0
			  : b->vmas(as, p, VIEW_LO, VIEW_HI, false, e->view, VIEW_MAX, err,
				    sizeof(err));
		if (n < 0) {
			check_fail(CK_MM_EXPECTED_STATE, "p%u must exist, a fork made it: %s", p,
				   err);
			continue;
		}
		if (vmas && n < VIEW_MAX) /* else too many to judge */
			compare_vmas(e, p, e->view, (unsigned)n);
		if (data && b->pages)
			b->pages(as, p, VIEW_LO, VIEW_HI, data_one, &w, err, sizeof(err));
	}
}
