/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation (expect.h): what each call asks, written down when it
 * ends, and which calls ran side by side on the same part. The comparison
 * with a backend is in expect_check.c, the pieces in expect_map.c.
 */
#include "expect.h"

#include "expect_calls.h"
#include "expect_map.h"
#include "mm/kver.h"
#include "runtime/check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ALL_PROCS ((1u << MMF_MAX_PROCS) - 1)

/* The kernel's madvise advice the expectation follows. */
enum {
	ADV_DONTNEED = 4,
	ADV_FREE = 8,
	ADV_DONTFORK = 10,
	ADV_DOFORK = 11,
	ADV_WIPEONFORK = 18,
	ADV_KEEPONFORK = 19,
	ADV_COLD = 20,
	ADV_PAGEOUT = 21,
	ADV_POPULATE_READ = 22,
	ADV_POPULATE_WRITE = 23,
	ADV_DONTNEED_LOCKED = 24
};

void as_expect_init(struct as_expect *e)
{
	memset(e, 0, sizeof(*e));
	e->kver = KVER_NEWEST;
	e->live[0] = true;
	for (unsigned f = 0; f < MMF_FILES; f++)
		exp_obj_new(&e->st, MMF_FILE_DATA(f)); /* objects 1 .. MMF_FILES */
}

void as_expect_free(struct as_expect *e)
{
	for (unsigned p = 0; p < MMF_MAX_PROCS; p++)
		mtref_free(&e->map[p]);
	exp_store_free(&e->st);
	free(e->view);
	memset(e, 0, sizeof(*e));
}

static void map_clear(struct as_expect *e, unsigned p)
{
	mtref_free(&e->map[p]);
	e->mapgen[p]++;
}

/* ---- which part a call reads and writes ---------------------------------- */

/* The processes whose pages the context in @fd registers. */
static uint16_t owners(const struct as_expect *e, uint32_t fd)
{
	unsigned o;

	if (!fd)
		return 0;
	o = EXP_FD_IS_VAGUE(fd) ? fd & 0xff : e->st.ctx[fd - 1].owner;
	if (o == EXP_ANYONE)
		return ALL_PROCS;
	return o < MMF_MAX_PROCS ? (uint16_t)(1u << o) : 0;
}

/* The pages a call names: [lo, hi). */
static void call_pages(const struct mm_call *c, uint64_t *lo, uint64_t *hi)
{
	uint64_t len = c->len;

	if (c->code == MMF_OP_TOUCH && len > ((uint64_t)MMF_TOUCH_PAGES << MMF_PAGE_SHIFT))
		len = (uint64_t)MMF_TOUCH_PAGES << MMF_PAGE_SHIFT;
	*lo = PG(c->start);
	*hi = c->start + len < c->start ? WHOLE_HI : PG(c->start + len + PAGE - 1);
}

static void describe_touch(const struct as_expect *e, const struct mm_call *c, struct exp_call *x)
{
	uint16_t me = (uint16_t)(1u << proc_of(c));

	/* shared data is compared as a whole: an object's offsets need not
	 * follow the addresses that map it */
	x->rmaps = me;
	x->robj = true;
	if (c->a.access == 1) {
		x->wmaps = me;
		x->wobj = true;
	}
	/* a hole it reaches may let a stack above grow down (one that is
	 * there, or that calls beside it make, move or uncover): what anyone
	 * changes above may change that, and the growth changes the mapping
	 * up to the stack */
	x->hole = exp_touch_hole(e, proc_of(c), x->lo, x->hi);
	if (x->hole) {
		x->grow_hi = WHOLE_HI;
		x->wmaps = me;
		x->reach_lo = x->lo > EXP_GUARD_GAP ? x->lo - EXP_GUARD_GAP : 0;
	}
}

static void describe(const struct as_expect *e, const struct mm_call *c, uint32_t held,
		     struct exp_call *x)
{
	unsigned p = proc_of(c);
	uint16_t me = (uint16_t)(1u << p);
	uint32_t fd = e->fd[p][c->a.handle % MMF_FDS];

	memset(x, 0, sizeof(*x));
	x->gen = held;
	x->fds[0] = fd;		/* what a userfaultfd call takes from its slot as it starts */
	x->dirty_lo = WHOLE_HI; /* nothing */
	x->touch_lo = WHOLE_HI;
	call_pages(c, &x->lo, &x->hi);
	switch (c->code) {
	case MMF_OP_MMAP:
		x->wmaps = me;
		x->maps = true;
		if (c->a.place == MMF_HINT) { /* anywhere */
			x->lo = WHOLE_LO;
			x->hi = WHOLE_HI;
		}
		break;
	case MMF_OP_MUNMAP:
	case MMF_OP_MPROTECT:
	case MMF_OP_MADVISE:
	case MMF_OP_MLOCK:
	case MMF_OP_MUNLOCK:
		x->wmaps = me;
		break;
	case MMF_OP_MREMAP:   /* the new place may be anywhere */
	case MMF_OP_MLOCKALL: /* every mapping, and the later ones */
	case MMF_OP_MUNLOCKALL:
		x->wmaps = me;
		x->maps = c->code == MMF_OP_MREMAP;
		x->lo = WHOLE_LO;
		x->hi = WHOLE_HI;
		break;
	case MMF_OP_TOUCH:
		describe_touch(e, c, x);
		break;
	case MMF_OP_UFFD_CREATE:
		x->wfds = me;
		break;
	case MMF_OP_UFFD_REGISTER:
	case MMF_OP_UFFD_UNREGISTER:
		x->rfds = me;
		x->wmaps = owners(e, fd);
		break;
	case MMF_OP_UFFD_RELEASE:
		x->wfds = me;
		x->wmaps = owners(e, fd);
		x->lo = WHOLE_LO;
		x->hi = WHOLE_HI;
		break;
	case MMF_OP_FORK:
		x->fork = true;
		for (unsigned q = 0; q < MMF_MAX_PROCS; q++)
			x->room |= !e->live[q] && !e->alien[q];
		x->rmaps = me;
		x->wfds = me; /* the child's contexts go to the parent's fds */
		x->lo = WHOLE_LO;
		x->hi = WHOLE_HI;
		break;
	case MMF_OP_EXIT:
		x->wmaps = me;
		x->wfds = me;
		for (unsigned k = 0; k < MMF_FDS; k++)
			x->wmaps |= owners(e, e->fd[p][k]);
		x->lo = WHOLE_LO;
		x->hi = WHOLE_HI;
		break;
	default: /* rollup, uprobe, map_limit change nothing compared */
		break;
	}
	if (!x->hole)
		x->reach_lo = x->lo;
	x->me = me;
	x->touch = c->code == MMF_OP_TOUCH;
	x->unmaps = c->code == MMF_OP_MUNMAP || c->code == MMF_OP_MREMAP || c->code == MMF_OP_MMAP;
}

/* A touch beside a call that may leave a hole in its range: it may reach
 * the hole and grow a stack there, as one that reached a hole from the
 * start (describe_touch). True if it was not so already. */
static bool hole_beside(struct exp_call *t, const struct exp_call *u)
{
	if (!t->touch || t->hole || !u->unmaps || !(u->wmaps & t->me) ||
	    !(t->lo < u->hi && u->lo < t->hi))
		return false;
	t->hole = true;
	t->grow_hi = WHOLE_HI;
	t->wmaps |= t->me;
	t->reach_lo = t->lo > EXP_GUARD_GAP ? t->lo - EXP_GUARD_GAP : 0;
	return true;
}

/* Whether @b, in flight beside @a, may change what @a reads or writes. */
static bool affects(const struct exp_call *b, const struct exp_call *a)
{
	uint64_t ahi = a->grow_hi > a->hi ? a->grow_hi : a->hi;
	uint64_t bhi = b->grow_hi > b->hi ? b->grow_hi : b->hi;
	bool ranges = a->reach_lo < bhi && b->reach_lo < ahi;

	return ((b->wmaps & (a->rmaps | a->wmaps)) && ranges) || (b->wfds & (a->rfds | a->wfds)) ||
	       (b->wobj && (a->robj || a->wobj));
}

/* @a ran beside @b, which may have changed its part: a fork's child is
 * then unknown where @b wrote; any other call's outcome is unknown. */
static void mark(struct exp_call *a, const struct exp_call *b)
{
	a->beside_maps |= b->maps;
	if (b->hole && (b->wmaps & a->wmaps)) {
		if (b->lo < a->touch_lo)
			a->touch_lo = b->lo;
		if (b->hi > a->touch_hi)
			a->touch_hi = b->hi;
	}
	if (!a->fork) {
		a->conflicted = true;
		a->fork_beside |= b->fork && (b->wfds & (a->rfds | a->wfds));
		return;
	}
	if (b->wmaps & a->rmaps) {
		uint64_t bhi = b->grow_hi > b->hi ? b->grow_hi : b->hi;

		if (b->lo < a->dirty_lo)
			a->dirty_lo = b->lo;
		if (bhi > a->dirty_hi)
			a->dirty_hi = bhi;
	}
	if (b->wfds & (a->rfds | a->wfds))
		a->fds_dirty = true;
}

/* ---- what a call leaves ------------------------------------------------- */

static bool known_mapped(const struct exp_rec *r)
{
	return !(r->unknown & EU_MAP);
}

static void mmap_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	unsigned p = proc_of(c);
	uint64_t len = (c->len + PAGE - 1) & ~(PAGE - 1), at = (uint64_t)c->result;
	struct exp_rec r = {0};

	if (c->result < 0) {
		/* MAP_FIXED unmapped the old range before it failed to map */
		if (c->a.place == MMF_FIXED && c->result == -ENOMEM)
			exp_unknown(e, p, PG(c->start), PG(c->start + len), EU_MAP);
		return;
	}
	if (x->conflicted) {
		exp_unknown(e, p, PG(at), PG(at + len), EU_MAP);
		return;
	}
	r.flags = (uint64_t)mmf_prot(c->a.prot); /* PROT_* are VM_* */
	/* MAP_LOCKED, or mlockall(MCL_FUTURE) before; MAP_GROWSDOWN */
	r.flags |= (e->def_lock[p] & EXP_LOCK_FLAGS) |
		   (c->a.prot & MMF_MAP_LOCKED ? AS_VM_LOCKED : 0) |
		   (c->a.prot & MMF_MAP_GROWSDOWN ? AS_VM_GROWSDOWN : 0);
	if (e->def_lock[p] & EXP_DEF_VAGUE)
		r.unknown |= EU_ATTR;
	if (c->a.kind == MMF_PRIVATE_ANON) {
		r.data = ED_ZERO;
	} else {
		r.data = ED_OBJECT;
		if (c->a.kind == MMF_SHARED_ANON) {
			r.obj = exp_obj_new(&e->st, 0);
			r.pgdelta = -(int64_t)PG(at); /* its own memory from offset 0 */
		} else {
			/* a file at the offset the range names in the window */
			r.obj = 1 + c->a.file % MMF_FILES;
			r.pgdelta = (int64_t)(PG(c->start) - PG(MMF_WINDOW_LO)) - (int64_t)PG(at);
		}
		if (c->a.kind != MMF_PRIVATE_FILE)
			r.flags |= AS_VM_MAYSHARE;
	}
	exp_set(e, p, PG(at), PG(at + len) - 1, exp_rec_new(&e->st, &r));
	/* populated (MAP_POPULATE, locked): write faults copy private pages */
	if (mmf_populates(&c->a) || (e->def_lock[p] & (AS_VM_LOCKED | EXP_DEF_VAGUE)))
		exp_private_copies(e, p, PG(at), PG(at + len), false);
}

static void munmap_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	unsigned p = proc_of(c);

	if (c->result < 0)
		return; /* unmaps nothing when it fails */
	if (x->conflicted)
		exp_unknown(e, p, x->lo, x->hi, EU_MAP);
	else if (x->lo < x->hi)
		exp_set(e, p, x->lo, x->hi - 1, NULL);
}

static bool set_prot(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
		     void *arg)
{
	(void)e;
	(void)first;
	(void)last;
	r->flags = (r->flags & ~(AS_VM_READ | AS_VM_WRITE | AS_VM_EXEC)) | (uintptr_t)arg;
	return true;
}

/* mprotect: every page of the range (a hole: -ENOMEM, the pages before it
 * changed, none after it). */
static void mprotect_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
			 bool fired)
{
	unsigned p = proc_of(c);
	void *prot = (void *)(uintptr_t)mmf_prot(c->a.prot);
	uint64_t hole;

	if (c->result && c->result != -ENOMEM)
		return; /* refused at once */
	/* a locked mapping made writable is populated: private copies */
	if (c->a.prot & 2)
		exp_private_copies(e, p, x->lo, x->hi, true);
	if (x->conflicted) {
		exp_unknown(e, p, x->lo, x->hi, EU_ATTR);
		return;
	}
	hole = c->result ? exp_first_not(e, p, x->lo, x->hi, known_mapped) : x->hi;
	if (c->result && (fired || e->limited[p]))
		exp_unknown(e, p, x->lo, hole, EU_ATTR); /* a split failed somewhere */
	else if (x->lo < hole)
		exp_edit(e, p, x->lo, hole - 1, set_prot, prot);
	if (hole < x->hi && exp_rec_at(e, p, hole))
		exp_unknown(e, p, hole, x->hi, EU_ATTR); /* may have gone on */
}

static bool advise(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last, void *arg)
{
	int advice = (int)(uintptr_t)arg;

	(void)e;
	(void)first;
	(void)last;
	switch (advice) {
	case ADV_DONTNEED:
	case ADV_DONTNEED_LOCKED:
		/* private data goes: anonymous memory reads zero, a private
		 * file page its file; shared data stays in its object */
		if (r->flags & AS_VM_MAYSHARE)
			return false;
		r->data = r->obj ? ED_OBJECT : ED_ZERO;
		r->unknown &= (uint8_t)~EU_DATA;
		return true;
	case ADV_FREE:
		/* private anonymous pages lazily freed: reclaim may drop them
		 * (zeros) until a write keeps them */
		if (r->obj || (r->unknown & EU_DATA))
			return false;
		r->unknown |= EU_DATA;
		return true;
	case ADV_DONTFORK:
		r->flags |= AS_VM_DONTCOPY;
		return true;
	case ADV_DOFORK:
		r->flags &= ~AS_VM_DONTCOPY;
		return true;
	case ADV_WIPEONFORK:
		r->flags |= AS_VM_WIPEONFORK;
		return true;
	case ADV_KEEPONFORK:
		r->flags &= ~AS_VM_WIPEONFORK;
		return true;
	}
	return false;
}

/* Whether @advice refuses a mapped page of record @r with -EINVAL: 1 yes,
 * 0 no, -1 not known. wipeonfork takes private anonymous memory only, free
 * private anonymous memory not locked, dontneed memory not locked. */
static int refuses(const struct exp_rec *r, int advice)
{
	bool lockable = advice == ADV_DONTNEED || advice == ADV_FREE;

	if (r->unknown & EU_MAP)
		return -1;
	if ((advice == ADV_WIPEONFORK || advice == ADV_FREE) && r->obj)
		return 1;
	if (lockable && (r->unknown & EU_ATTR))
		return -1;
	return lockable && (r->flags & AS_VM_LOCKED);
}

/* Where an advice's -EINVAL stopped it in [lo, hi): the first mapped page
 * it refuses (hi: none); *@sure when known. */
static uint64_t advice_stop(const struct as_expect *e, unsigned p, uint64_t lo, uint64_t hi,
			    int advice, bool *sure)
{
	const struct mtref *m = &e->map[p];

	*sure = true;
	for (size_t i = exp_map_lower(m, lo); i < m->n && m->v[i].first < hi; i++) {
		int no = refuses(exp_rec(&e->st, m->v[i].entry), advice);
		uint64_t at = m->v[i].first > lo ? m->v[i].first : lo;

		*sure = no >= 0;
		if (no)
			return at;
	}
	return hi;
}

/* madvise: every mapped page of the range (holes: -ENOMEM after all of
 * them); wipeonfork, free and dontneed stop at the first page they cannot
 * take (-EINVAL). cold, pageout and the populates change nothing the
 * expectation says: pages reclaimed or faulted in hold what they held. */
static void madvise_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	unsigned p = proc_of(c);
	int advice = mmf_advice(c->a.advice);
	bool data = advice == ADV_DONTNEED || advice == ADV_DONTNEED_LOCKED || advice == ADV_FREE;
	uint8_t what = data ? EU_DATA : EU_ATTR;
	uint64_t stop = x->hi;
	bool sure = true;

	if (advice == ADV_POPULATE_WRITE) /* write faults copy private pages */
		exp_private_copies(e, p, x->lo, x->hi, false);
	if (advice == ADV_COLD || advice == ADV_PAGEOUT || advice == ADV_POPULATE_READ ||
	    advice == ADV_POPULATE_WRITE)
		return;
	if (c->result == -EINVAL && c->len &&
	    (advice == ADV_WIPEONFORK || advice == ADV_FREE || advice == ADV_DONTNEED)) {
		stop = advice_stop(e, p, x->lo, x->hi, advice, &sure);
		/* refused before any change, unless a call beside it made
		 * the page it refused (then it may have changed pages before) */
		if (stop == x->hi && !x->conflicted)
			return;
	} else if (c->result && c->result != -ENOMEM && c->result != -EAGAIN) {
		return;
	}
	if (x->conflicted || c->result == -EAGAIN) {
		/* -EAGAIN: a split failed after the VMAs before it changed */
		exp_unknown(e, p, x->lo, x->hi, what);
		return;
	}
	if (x->lo < stop)
		(data ? exp_edit_data : exp_edit)(e, p, x->lo, stop - 1, advise,
						  (void *)(uintptr_t)advice);
	if (!sure)
		exp_unknown(e, p, stop, x->hi, what);
}

/* ---- touch --------------------------------------------------------------- */

struct write_arg {
	uint64_t base; /* the value of page origin */
	uint64_t origin;
	bool known; /* false: the pages may or may not have been written */
};

/* A write through pages of a run: private ones hold the value, shared ones
 * write it into their object (which every mapping of it then shows). */
static bool write_run(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
		      void *arg)
{
	const struct write_arg *w = arg;

	if (r->unknown & EU_MAP) {
		exp_obj_vague(e); /* written through who knows what */
		return false;
	}
	if (r->flags & AS_VM_MAYSHARE) {
		struct exp_rec v = {
		    .data = ED_VALUE, .base = w->base, .origin = (int64_t)w->origin + r->pgdelta};

		exp_obj_set(e, r->obj, (uint64_t)((int64_t)first + r->pgdelta),
			    (uint64_t)((int64_t)last + r->pgdelta), w->known ? &v : NULL);
		return false;
	}
	if (!w->known) {
		r->unknown |= EU_DATA;
		return true;
	}
	r->unknown &= (uint8_t)~EU_DATA;
	r->data = ED_VALUE;
	r->base = w->base;
	r->origin = (int64_t)w->origin;
	return true;
}

static bool writable(const struct exp_rec *r)
{
	return !(r->unknown & (EU_MAP | EU_ATTR)) && (r->flags & AS_VM_WRITE);
}

/* A write touch: page k of the range holds value + k. It stops at the first
 * page it cannot write (-EFAULT: one not mapped writable; -EAGAIN: one a
 * userfaultfd handles; -ENOMEM): the pages before were written. */
static void touch_write_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	unsigned p = proc_of(c);
	struct write_arg w = {c->value, x->lo, true};
	uint64_t done = x->hi;

	if (!e->live[p] || x->gen != e->gen[p]) {
		exp_obj_vague(&e->st); /* wrote pages no followed process maps */
		return;
	}
	if (x->conflicted)
		done = x->lo;
	else if (c->result == -EFAULT)
		done = exp_first_not(e, p, x->lo, x->hi, writable);
	else if (c->result)
		done = x->lo;
	if (x->lo < done)
		exp_edit_data(e, p, x->lo, done - 1, write_run, &w);
	if (done == x->hi)
		return;
	/* from the page it stopped at, not known: written or not? */
	if (c->result == -EFAULT && !x->conflicted) {
		const struct exp_rec *r = exp_rec_at(e, p, done);

		if (!r || !(r->unknown & (EU_MAP | EU_ATTR)))
			return; /* surely not writable: the write stopped there */
	}
	w.known = false;
	exp_edit_data(e, p, done, x->hi - 1, write_run, &w);
	/* a call beside it may have mapped shared memory where the write went
	 * through, over a hole or over what the expectation sees there now:
	 * shared data written who knows where */
	if (x->conflicted && (x->beside_maps || exp_touch_hole(e, p, done, x->hi)))
		exp_obj_vague(&e->st);
}

static const char *value_str(uint64_t v, char *buf, size_t len)
{
	if (v >> 56 == 0xa5 && ((v >> 32) & 0xffff) == MMF_STEP_PROLOGUE)
		snprintf(buf, len, "%#" PRIx64 " (page %u of a write by p%u before the program)", v,
			 (unsigned)(v & 0xffffffff), (unsigned)(v >> 48 & 0xff));
	else if (v >> 56 == 0xa5)
		snprintf(buf, len, "%#" PRIx64 " (page %u of the write by p%u at step %u)", v,
			 (unsigned)(v & 0xffffffff), (unsigned)(v >> 48 & 0xff),
			 (unsigned)(v >> 32 & 0xffff));
	else if (v >> 56 == 0xf0)
		snprintf(buf, len, "%#" PRIx64 " (page %#" PRIx64 " of file f%u, unwritten)", v,
			 (uint64_t)(v & 0xffffffffffffull), (unsigned)(v >> 48 & 0xff) - 1);
	else
		snprintf(buf, len, "%#" PRIx64 "%s", v, v ? "" : " (zeros)");
	return buf;
}

const char *as_expect_value_str(uint64_t v, char *buf, size_t len)
{
	return value_str(v, buf, len);
}

/* A read touch: what each page it reached held, against what it must hold.
 * Only when nothing that could change it ran beside the read. */
static void touch_read_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	unsigned p = proc_of(c);
	char got[96], want[96];

	if (!c->seen || x->conflicted || !e->live[p] || x->gen != e->gen[p])
		return;
	for (uint64_t k = 0; x->lo + k < x->hi; k++) {
		const struct exp_rec *r = exp_rec_at(e, p, x->lo + k);
		uint64_t v;

		if (c->seen[k] == MMF_NOT_SEEN) {
			if (!c->result)
				check_fail(CK_MM_EXPECTED_DATA,
					   "p%u's read of @%#" PRIx64 ":%" PRIu64
					   " returned 0 but reached no page at @%#" PRIx64,
					   p, AT(x->lo), x->hi - x->lo, AT(x->lo + k));
			return;
		}
		if (!r || !exp_page_value(&e->st, r, x->lo + k, &v) || v == c->seen[k])
			continue;
		check_fail(CK_MM_EXPECTED_DATA, "p%u reads %s at @%#" PRIx64 ", which must hold %s",
			   p, value_str(c->seen[k], got, sizeof(got)), AT(x->lo + k),
			   value_str(v, want, sizeof(want)));
		return;
	}
}

/* ---- userfaultfd --------------------------------------------------------- */

static uint64_t mode_flags(uint8_t modes)
{
	return (modes & 1 ? AS_VM_UFFD_MISSING : 0) | (modes & 2 ? AS_VM_UFFD_WP : 0) |
	       (modes & 4 ? AS_VM_UFFD_MINOR : 0);
}

struct reg_arg {
	uint32_t ctx;  /* registering with (0: unregistering from) */
	uint32_t from; /* unregistering: this context's pages only */
	bool any;      /* unregistering: every context's pages (kernels before
			* KV_UFFD_UNREGISTER_OWN_CTX) */
	uint64_t modes;
	bool unknown; /* the pages' registration becomes unknown */
};

static bool reg_run(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
		    void *arg)
{
	const struct reg_arg *g = arg;

	(void)e;
	(void)first;
	(void)last;
	if (r->unknown & (EU_MAP | EU_UFFD))
		return false;
	if (!g->ctx && r->ctx != g->from && !(g->any && r->ctx))
		return false; /* another context's pages: unregister leaves them */
	if (g->unknown) {
		r->unknown |= EU_UFFD;
		return true;
	}
	/* registered already with every mode asked: "nothing to do" */
	if (g->ctx && r->ctx == g->ctx && (r->flags & g->modes) == g->modes)
		return false;
	r->ctx = g->ctx;
	r->flags = (r->flags & ~EXP_UFFD_FLAGS) | g->modes;
	return true;
}

/* What an fd slot's context registers: each owner's pages of [lo, hi) per
 * @g; for a vague slot (whose context is not known) unknown. */
static void reg_apply(struct as_expect *e, uint32_t fd, uint64_t lo, uint64_t hi,
		      const struct reg_arg *g)
{
	uint16_t who = owners(e, fd);

	for (unsigned o = 0; o < MMF_MAX_PROCS; o++) {
		if (!(who & (1u << o)) || !e->live[o] || lo >= hi)
			continue;
		if (EXP_FD_IS_VAGUE(fd))
			exp_unknown(e, o, lo, hi, EU_UFFD);
		else
			exp_edit(e, o, lo, hi - 1, reg_run, (void *)g);
	}
}

static void uffd_create_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	unsigned p = proc_of(c);

	if (c->result < 0 || c->result >= MMF_FDS)
		return;
	/* the result names the slot; the context is on the process's mm */
	if (e->live[p] && x->gen == e->gen[p])
		e->fd[p][c->result] =
		    exp_ctx_new(&e->st, p, c->a.features & 1, (c->a.features & 2) != 0);
	else
		e->fd[p][c->result] = EXP_FD_VAGUE(EXP_NOBODY);
}

static void uffd_register_end(struct as_expect *e, const struct mm_call *c,
			      const struct exp_call *x, bool reg)
{
	unsigned p = proc_of(c);
	uint32_t fd = x->fds[0];
	struct reg_arg g = {0};

	if (c->result && c->result != -ENOMEM)
		return; /* refused before any change */
	if (!fd) {
		if (!x->conflicted && !c->result)
			check_fail(CK_MM_EXPECTED_UFFD,
				   "p%u's %s through h%u succeeded, but no call opened a context "
				   "there",
				   p, reg ? "registration" : "unregistration",
				   (unsigned)(c->a.handle % MMF_FDS));
		return;
	}
	g.unknown = x->conflicted || c->result; /* -ENOMEM: a split failed midway */
	if (reg) {
		g.ctx = EXP_FD_IS_VAGUE(fd) ? 0 : fd;
		g.modes = mode_flags(c->a.modes);
	} else {
		g.from = EXP_FD_IS_VAGUE(fd) ? 0 : fd;
		g.any = !kver_has(e->kver, KV_UFFD_UNREGISTER_OWN_CTX);
	}
	reg_apply(e, fd, x->lo, x->hi, &g);
}

/* Whether an fd of some process still holds context @fd: 2 one does, 1 one
 * may (a slot whose context is not known), 0 none. */
static int held(const struct as_expect *e, uint32_t fd)
{
	int r = 0;

	for (unsigned q = 0; q < MMF_MAX_PROCS; q++)
		for (unsigned s = 0; s < MMF_FDS; s++)
			if (e->fd[q][s] == fd)
				return 2;
			else if (EXP_FD_IS_VAGUE(e->fd[q][s]))
				r = 1;
	return r;
}

/* Closing an fd of a context: when no other fd holds it (a forked child
 * keeps copies of its parent's), every page registered with it is
 * unregistered. */
static void release(struct as_expect *e, uint32_t fd, bool conflicted)
{
	struct reg_arg g = {.from = fd, .unknown = conflicted};
	int h;

	if (!fd)
		return;
	h = EXP_FD_IS_VAGUE(fd) ? 0 : held(e, fd);
	if (h == 2)
		return;
	g.unknown |= h == 1;
	reg_apply(e, fd, WHOLE_LO, WHOLE_HI, &g);
}

static void uffd_release_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	unsigned p = proc_of(c), k = c->a.handle % MMF_FDS;
	uint32_t fd = x->fds[0];

	if (c->result)
		return;
	/* the slot emptied as the call started: a call beside it may have
	 * filled it again since (a create says where; a fork does not) */
	if (e->fd[p][k] == fd)
		e->fd[p][k] = x->fork_beside ? EXP_FD_VAGUE(EXP_ANYONE) : 0;
	release(e, fd, x->conflicted);
}

/* ---- fork and exit ------------------------------------------------------- */

/* The slot of the process a fork made: the one the backend has that the
 * expectation does not know; false when there is not exactly one (*@q: how
 * many there are). The others found are not followed. */
static bool new_process(struct as_expect *e, const struct as_backend *b, void *as, unsigned *q)
{
	unsigned found[MMF_MAX_PROCS], n = 0;
	char err[128];

	for (unsigned s = 0; s < MMF_MAX_PROCS; s++)
		if (!e->live[s] && !e->alien[s] &&
		    b->vmas(as, s, 0, 0, false, NULL, 0, err, 0) >= 0)
			found[n++] = s;
	*q = n;
	if (n == 1) {
		*q = found[0];
		return true;
	}
	for (unsigned i = 0; i < n; i++)
		e->alien[found[i]] = true;
	return false;
}

struct fork_uffd {
	uint32_t old[MMF_MAX_PROCS * MMF_FDS], new[MMF_MAX_PROCS * MMF_FDS];
	unsigned n;
	bool unsure; /* pages of unknown registration: more contexts may come */
};

/* The child's record of a parent's run, or false: not copied. */
static bool child_rec(struct as_expect *e, const struct exp_rec *pr, unsigned q,
		      struct fork_uffd *fu, struct exp_rec *r)
{
	*r = *pr;
	if (pr->unknown & (EU_MAP | EU_ATTR)) { /* dontcopy or not? */
		*r = (struct exp_rec){.unknown = EU_MAP | EU_ATTR | EU_UFFD | EU_DATA};
		fu->unsure = true;
		return true;
	}
	if (pr->flags & AS_VM_DONTCOPY)
		return false;
	r->flags &= ~EXP_LOCK_FLAGS;	    /* mlock is not inherited */
	if (pr->flags & AS_VM_WIPEONFORK) { /* a clean slate: zeros */
		r->data = ED_ZERO;
		r->unknown &= (uint8_t)~EU_DATA;
	}
	if (pr->unknown & EU_UFFD) {
		fu->unsure = true;
	} else if (pr->ctx && !e->st.ctx[pr->ctx - 1].event_fork) {
		r->ctx = 0; /* no fork event: the child is not registered */
		r->flags &= ~EXP_UFFD_FLAGS;
	} else if (pr->ctx) {
		/* one new context per parent context, in the order of the
		 * pages that made them (dup_userfaultfd's list) */
		unsigned i;

		for (i = 0; i < fu->n && fu->old[i] != pr->ctx; i++)
			;
		if (i == fu->n) {
			fu->old[i] = pr->ctx;
			fu->new[i] =
			    exp_ctx_new(&e->st, q, true, e->st.ctx[pr->ctx - 1].event_remap);
			fu->n++;
		}
		r->ctx = fu->new[i];
	}
	return true;
}

static bool drop_ctx(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
		     void *arg)
{
	uint32_t only = (uint32_t)(uintptr_t)arg;

	(void)e;
	(void)first;
	(void)last;
	if (only ? r->ctx != only : !r->ctx && !(r->unknown & EU_UFFD))
		return false;
	r->ctx = 0;
	r->flags &= ~EXP_UFFD_FLAGS;
	r->unknown &= (uint8_t)~EU_UFFD;
	return true;
}

/* The parent's monitor receives the child's new contexts in its lowest free
 * fds, in order; those for which it has no fd are closed at once (with
 * @fds false, all of them). */
static void hand_out(struct as_expect *e, unsigned p, unsigned q, const struct exp_call *x,
		     const struct fork_uffd *fu, bool fds)
{
	unsigned k = 0;
	bool vague = fu->unsure || x->fds_dirty;

	if (!fds) {
		if (q < MMF_MAX_PROCS)
			exp_edit(e, q, WHOLE_LO, WHOLE_HI - 1, drop_ctx, NULL);
		return;
	}
	for (unsigned s = 0; s < MMF_FDS; s++)
		vague |= EXP_FD_IS_VAGUE(e->fd[p][s]) != 0;
	if (vague) {
		uint32_t mine = EXP_FD_VAGUE(q < MMF_MAX_PROCS ? q : EXP_NOBODY);

		for (unsigned s = 0; s < MMF_FDS; s++)
			if (!e->fd[p][s])
				e->fd[p][s] = mine;
			else if (EXP_FD_IS_VAGUE(e->fd[p][s]) && e->fd[p][s] != mine)
				e->fd[p][s] = EXP_FD_VAGUE(EXP_ANYONE);
		/* some may have been closed for want of an fd */
		if (q < MMF_MAX_PROCS && (fu->n || fu->unsure))
			exp_unknown(e, q, WHOLE_LO, WHOLE_HI, EU_UFFD);
		return;
	}
	for (unsigned i = 0; i < fu->n; i++) {
		while (k < MMF_FDS && e->fd[p][k])
			k++;
		if (k < MMF_FDS)
			e->fd[p][k] = fu->new[i];
		else if (q < MMF_MAX_PROCS) /* closed: its pages unregistered */
			exp_edit(e, q, WHOLE_LO, WHOLE_HI - 1, drop_ctx,
				 (void *)(uintptr_t)fu->new[i]);
	}
}

/* Whether pages of @p may be registered with a context that passes its
 * registrations on at fork (one of @p's with the fork event, or one not
 * known). */
static bool may_pass_on(const struct as_expect *e, unsigned p)
{
	for (unsigned i = 0; i < e->st.nctx; i++)
		if (e->st.ctx[i].event_fork && e->st.ctx[i].owner == p)
			return true;
	for (unsigned o = 0; o < MMF_MAX_PROCS; o++)
		for (unsigned s = 0; s < MMF_FDS; s++)
			if (EXP_FD_IS_VAGUE(e->fd[o][s]))
				return true;
	return false;
}

/* The child @q (EXP_NOBODY: it went at once) of @p gets a copy of what @p
 * must be. */
static void fork_copy(struct as_expect *e, unsigned p, unsigned q, const struct exp_call *x,
		      bool fds)
{
	struct fork_uffd fu = {.n = 0};
	const struct mtref *pm = &e->map[p];
	unsigned into = q < MMF_MAX_PROCS ? q : p; /* (only contexts counted) */

	/* pages others changed meanwhile (a mapping the expectation has not
	 * seen end yet) may have been registered and passed on too */
	fu.unsure = x->dirty_lo < x->dirty_hi && may_pass_on(e, p);

	for (size_t i = 0; i < pm->n; i++) {
		struct exp_rec r;

		if (child_rec(e, exp_rec(&e->st, pm->v[i].entry), into, &fu, &r) &&
		    q < MMF_MAX_PROCS)
			exp_set(e, q, pm->v[i].first, pm->v[i].last, exp_rec_new(&e->st, &r));
	}
	if (q < MMF_MAX_PROCS) {
		/* the child's fd table: the parent's as the fork found it (not
		 * known when others changed the parent's meanwhile) */
		for (unsigned s = 0; s < MMF_FDS; s++)
			e->fd[q][s] = x->fds_dirty ? EXP_FD_VAGUE(EXP_ANYONE) : e->fd[p][s];
		for (unsigned i = 0; i < fu.n; i++)
			e->st.ctx[fu.new[i] - 1].owner = (uint8_t)q;
		if (x->dirty_lo < x->dirty_hi) /* others changed the parent meanwhile */
			exp_unknown(e, q, x->dirty_lo, x->dirty_hi, EU_MAP);
	} else {
		for (unsigned i = 0; i < fu.n; i++)
			e->st.ctx[fu.new[i] - 1].owner = EXP_NOBODY;
	}
	hand_out(e, p, q, x, &fu, fds);
}

static void fork_end(struct as_expect *e, const struct as_backend *b, void *as,
		     const struct mm_call *c, const struct exp_call *x, bool fds)
{
	unsigned p = proc_of(c), q;
	bool here = e->live[p] && x->gen == e->gen[p];
	bool placed = c->result == -EAGAIN && fds; /* made, handed out, no room */

	if (c->result && !placed)
		return; /* a failed fork leaves the parent as it was */
	if (placed) {
		for (q = 0; q < MMF_MAX_PROCS && (e->live[q] || e->alien[q]); q++)
			;
		if (!here)
			return;
		if (q < MMF_MAX_PROCS) {
			fork_copy(e, p, EXP_NOBODY, x, fds);
			return;
		}
		/* no room now; if there was at the start, another fork took the
		 * last slot meanwhile, before this one looked (nothing made) or
		 * after (made, its contexts handed out, gone): the parent's
		 * empty fds may hold contexts of no process */
		for (unsigned k = 0; x->room && k < MMF_FDS; k++)
			if (!e->fd[p][k])
				e->fd[p][k] = EXP_FD_VAGUE(EXP_NOBODY);
		return;
	}
	if (!new_process(e, b, as, &q)) {
		/* fuzz_fork's fork_every lets a child with no room exit at once */
		if (fds && !q)
			check_fail(CK_MM_EXPECTED_STATE,
				   "p%u's fork returned 0, but the backend has no new process", p);
		return;
	}
	if (!here) { /* the parent changed (exited) meanwhile */
		e->alien[q] = true;
		return;
	}
	e->live[q] = true;
	e->gen[q]++;
	e->limited[q] = e->limited[p];
	e->def_lock[q] = 0; /* mlockall's is not inherited either */
	map_clear(e, q);
	memset(e->fd[q], 0, sizeof(e->fd[q]));
	fork_copy(e, p, q, x, fds);
}

static void exit_begin(struct as_expect *e, unsigned p, struct exp_call *x)
{
	if (!e->live[p] && !e->alien[p])
		return; /* another exit came first: this one finds nothing */
	memcpy(x->fds, e->fd[p], sizeof(x->fds));
	memset(e->fd[p], 0, sizeof(e->fd[p]));
	map_clear(e, p);
	/* its contexts outlive it in other processes' fds, but register no
	 * pages any more: a process that takes the slot later is not theirs
	 * (the kernel's ctx->mm is the exited mm, not the caller's) */
	for (unsigned i = 0; i < e->st.nctx; i++)
		if (e->st.ctx[i].owner == p)
			e->st.ctx[i].owner = EXP_NOBODY;
	for (unsigned q = 0; q < MMF_MAX_PROCS; q++)
		for (unsigned s = 0; s < MMF_FDS; s++)
			if (e->fd[q][s] == EXP_FD_VAGUE(p))
				e->fd[q][s] = EXP_FD_VAGUE(EXP_NOBODY);
	e->live[p] = e->alien[p] = false;
	e->gen[p]++; /* the slot is free at once: a fork may take it */
}

static void exit_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	if (c->result)
		return;
	for (unsigned k = 0; k < MMF_FDS; k++)
		release(e, x->fds[k], x->conflicted);
}

/* ---- calls --------------------------------------------------------------- */

uint32_t as_expect_held(const struct as_expect *e, const struct mm_call *c)
{
	return e->gen[proc_of(c)];
}

/* Call @k and each other under way: what one may change of the other's. */
static void meet(struct as_expect *e, unsigned k)
{
	struct exp_call *x = &e->call[k];

	for (unsigned j = 0; j < EXP_CALLS; j++) {
		struct exp_call *y = &e->call[j];

		if (j == k || !y->used)
			continue;
		if (affects(y, x))
			mark(x, y);
		if (affects(x, y))
			mark(y, x);
	}
}

unsigned as_expect_begin(struct as_expect *e, const struct mm_call *c, uint32_t held)
{
	unsigned k, p = proc_of(c);
	struct exp_call *x;

	for (k = 0; k < EXP_CALLS && e->call[k].used; k++)
		;
	MODEL_ASSERT(k < EXP_CALLS);
	x = &e->call[k];
	describe(e, c, held, x);
	x->used = true;
	for (unsigned j = 0; j < EXP_CALLS; j++)
		if (j != k && e->call[j].used)
			hole_beside(x, &e->call[j]);
	meet(e, k);
	/* a touch under way that may now meet a hole meets everyone again */
	for (unsigned j = 0; j < EXP_CALLS; j++)
		if (j != k && e->call[j].used && hole_beside(&e->call[j], x))
			meet(e, j);
	if (c->code == MMF_OP_MAP_LIMIT)
		e->limited[p] = true;
	else if (c->code == MMF_OP_EXIT && held == e->gen[p])
		exit_begin(e, p, x);
	return k;
}

/* A userfaultfd call of a process that exited meanwhile: its fds are gone,
 * which context it reached is not known. */
static void uffd_lost(struct as_expect *e, const struct mm_call *c, const struct exp_call *x)
{
	if (c->result && c->result != -ENOMEM)
		return;
	for (unsigned o = 0; o < MMF_MAX_PROCS; o++)
		if (e->live[o])
			exp_unknown(e, o, x->lo, x->hi, EU_UFFD);
}

static void end_call(struct as_expect *e, const struct as_backend *b, void *as,
		     const struct mm_call *c, unsigned k, bool fired, bool fds)
{
	struct exp_call x = e->call[k];
	unsigned p = proc_of(c);
	bool here = e->live[p] && x.gen == e->gen[p];

	e->call[k].used = false;
	if (here)
		exp_check_result(e, c, &x, fired);
	switch (c->code) {
	case MMF_OP_MMAP:
		if (here)
			mmap_end(e, c, &x);
		break;
	case MMF_OP_MUNMAP:
		if (here)
			munmap_end(e, c, &x);
		break;
	case MMF_OP_MPROTECT:
		if (here)
			mprotect_end(e, c, &x, fired);
		break;
	case MMF_OP_MADVISE:
		if (here)
			madvise_end(e, c, &x);
		break;
	case MMF_OP_TOUCH:
		if (here)
			exp_touch_stacks(e, c, &x, fired);
		if (c->a.access == 1)
			touch_write_end(e, c, &x);
		else
			touch_read_end(e, c, &x);
		break;
	case MMF_OP_MREMAP:
		if (here)
			exp_mremap_end(e, c, &x, fired);
		break;
	case MMF_OP_MLOCK:
	case MMF_OP_MUNLOCK:
		if (here)
			exp_mlock_end(e, c, &x, fired);
		break;
	case MMF_OP_MLOCKALL:
	case MMF_OP_MUNLOCKALL:
		if (here)
			exp_mlockall_end(e, c, &x, fired);
		break;
	case MMF_OP_UFFD_CREATE:
		uffd_create_end(e, c, &x);
		break;
	case MMF_OP_UFFD_REGISTER:
	case MMF_OP_UFFD_UNREGISTER:
		if (here)
			uffd_register_end(e, c, &x, c->code == MMF_OP_UFFD_REGISTER);
		else
			uffd_lost(e, c, &x);
		break;
	case MMF_OP_UFFD_RELEASE:
		if (here)
			uffd_release_end(e, c, &x);
		else
			uffd_lost(e, c, &x);
		break;
	case MMF_OP_FORK:
		fork_end(e, b, as, c, &x, fds);
		break;
	case MMF_OP_EXIT:
		exit_end(e, c, &x);
		break;
	default:
		break;
	}
	if (here && x.touch_lo < x.touch_hi && (x.wmaps & (1u << p)))
		exp_touch_beside(e, p, x.touch_lo, x.touch_hi);
}

void as_expect_end(struct as_expect *e, const struct as_backend *b, void *as,
		   const struct mm_call *c, unsigned begun, bool fired)
{
	end_call(e, b, as, c, begun, fired, true);
}

void as_expect_end_fork_nofd(struct as_expect *e, const struct as_backend *b, void *as,
			     const struct mm_call *c, unsigned begun)
{
	end_call(e, b, as, c, begun, false, false);
}
