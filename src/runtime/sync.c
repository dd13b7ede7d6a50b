/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks and RCU on the deterministic fibers (sync.h), with the checks of
 * the concurrency family. Each fiber keeps the locks it holds (struct
 * fiber.held), which is what the lock-order, held-at-exit and unlock checks
 * read. A blocked waiter is woken by every release of its lock and tries
 * again; which waiter wins is the schedule's choice.
 */
#include "runtime/sync.h"

#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync_backend.h"

#include <stdlib.h>
#include <string.h>

/* ---- lock tracking -------------------------------------------------------- */

static struct held_lock *held_find(struct fiber *f, const void *lock)
{
	for (unsigned i = 0; i < f->nheld; i++)
		if (f->held[i].lock == lock)
			return &f->held[i];
	return NULL;
}

/* The declared order: everything held ranks lower, or is the same class at
 * a lower subclass. Trylocks cannot deadlock and are not checked. */
static void check_order(struct fiber *f, const struct rwsem *s, unsigned subclass)
{
	for (unsigned i = 0; i < f->nheld; i++) {
		const struct held_lock *h = &f->held[i];

		if (h->cls->rank < s->cls->rank || (h->cls == s->cls && h->subclass < subclass))
			continue;
		check_fail(CK_SYNC_LOCK_ORDER, "t%u takes %s (%s) while holding %s (%s)", f->id,
			   s->name, s->cls->name, h->name, h->cls->name);
		return;
	}
}

bool rwsem_check(const struct rwsem *s)
{
	if ((s->writer && s->readers) || s->readers < 0)
		return check_fail(CK_SYNC_RWSEM_STATE, "%s is held by %s and %d readers", s->name,
				  s->writer ? "a writer" : "no writer", s->readers);
	return true;
}

static void held_add(struct fiber *f, const struct rwsem *s, bool write, unsigned subclass)
{
	struct held_lock *h;

	rwsem_check(s);

	MODEL_ASSERT(f->nheld < SCHED_MAX_HELD);
	h = &f->held[f->nheld++];
	h->lock = s;
	h->cls = s->cls;
	h->name = s->name;
	h->write = write;
	h->subclass = (uint8_t)subclass;
}

static void held_del(struct fiber *f, struct held_lock *h)
{
	*h = f->held[--f->nheld];
}

static void before_sleeping_lock(struct fiber *f, struct rwsem *s, unsigned subclass)
{
	if (f->rcu_depth)
		check_fail(CK_SYNC_SLEEP_IN_RCU, "t%u takes %s inside an RCU read section", f->id,
			   s->name);
	check_order(f, s, subclass);
}

/* Wake every fiber blocked on @s; they try again. */
static void wake_waiters(struct rwsem *s)
{
	struct sched *sc = sched_active();

	if (!sc || !(s->wait_readers + s->wait_writers))
		return;
	for (unsigned i = 0; i < sc->nfibers; i++)
		if (sc->fibers[i].state == FIBER_BLOCKED && sc->fibers[i].wait_on == s)
			sched_wake(&sc->fibers[i]);
}

/* ---- rwsem ---------------------------------------------------------------- */

void rwsem_init(struct rwsem *s, const struct lock_class *cls, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->cls = cls;
	s->name = name;
}

void rwsem_destroy(struct rwsem *s)
{
	MODEL_ASSERT(!s->readers && !s->writer);
}

static bool read_free(const struct rwsem *s)
{
	return !s->writer && !s->wait_writers;
}

void down_read(struct rwsem *s)
{
	struct fiber *f = sched_self();

	before_sleeping_lock(f, s, 0);
	sched_point(s->name);
	while (!read_free(s)) {
		s->wait_readers++;
		sched_block(s->name, s);
		s->wait_readers--;
		if (sched_active() && sched_active()->stopped)
			return;
	}
	s->readers++;
	held_add(f, s, false, 0);
}

static void write_lock(struct rwsem *s, unsigned subclass)
{
	struct fiber *f = sched_self();

	before_sleeping_lock(f, s, subclass);
	sched_point(s->name);
	while (s->writer || s->readers) {
		s->wait_writers++;
		sched_block(s->name, s);
		s->wait_writers--;
		if (sched_active() && sched_active()->stopped)
			return;
	}
	s->writer = f;
	held_add(f, s, true, subclass);
}

void down_write(struct rwsem *s)
{
	write_lock(s, 0);
}

void down_write_nested(struct rwsem *s, unsigned subclass)
{
	write_lock(s, subclass);
}

bool down_read_trylock(struct rwsem *s)
{
	struct fiber *f = sched_self();

	sched_point(s->name);
	if (!read_free(s))
		return false;
	s->readers++;
	held_add(f, s, false, 0);
	return true;
}

bool down_write_trylock(struct rwsem *s)
{
	struct fiber *f = sched_self();

	sched_point(s->name);
	if (s->writer || s->readers)
		return false;
	s->writer = f;
	held_add(f, s, true, 0);
	return true;
}

void up_read(struct rwsem *s)
{
	struct fiber *f = sched_self();
	struct held_lock *h = held_find(f, s);

	if (!h || h->write || s->readers <= 0) {
		check_fail(CK_SYNC_UNLOCK_NOT_HELD, "t%u releases %s for read, holding it %s",
			   f->id, s->name,
			   !h	      ? "not at all"
			   : h->write ? "for write"
				      : "(count 0)");
		return;
	}
	held_del(f, h);
	s->readers--;
	wake_waiters(s);
	sched_event(s->cls, s);
	sched_point(s->name);
}

void up_write(struct rwsem *s)
{
	struct fiber *f = sched_self();
	struct held_lock *h = held_find(f, s);

	if (!h || !h->write || s->writer != f) {
		check_fail(CK_SYNC_UNLOCK_NOT_HELD, "t%u releases %s for write, holding it %s",
			   f->id, s->name, !h ? "not at all" : "for read");
		return;
	}
	held_del(f, h);
	s->writer = NULL;
	wake_waiters(s);
	sched_event(s->cls, s);
	sched_point(s->name);
}

void downgrade_write(struct rwsem *s)
{
	struct fiber *f = sched_self();
	struct held_lock *h = held_find(f, s);

	if (!h || !h->write || s->writer != f) {
		check_fail(CK_SYNC_UNLOCK_NOT_HELD,
			   "t%u downgrades %s without holding it for write", f->id, s->name);
		return;
	}
	h->write = false;
	s->writer = NULL;
	s->readers++;
	wake_waiters(s);
	sched_event(s->cls, s);
	sched_point(s->name);
}

bool rwsem_is_contended(struct rwsem *s)
{
	return s->wait_readers + s->wait_writers > 0;
}

bool rwsem_is_write_locked(struct rwsem *s)
{
	return s->writer != NULL;
}

bool rwsem_held_write(struct rwsem *s)
{
	return s->writer == sched_self();
}

bool rwsem_held(struct rwsem *s)
{
	return held_find(sched_self(), s) != NULL;
}

/* ---- hooks of the mmap and VMA locks (sync_backend.h, mmap_lock.c) ------ */

bool down_read_trylock_if(struct rwsem *s, bool (*ok)(const void *arg), const void *arg)
{
	if (!ok(arg) || !down_read_trylock(s))
		return false;
	/* another fiber may have run at the trylock's scheduling point */
	if (!ok(arg)) {
		up_read(s);
		return false;
	}
	return true;
}

/* Fibers switch only at scheduling points: nothing to hold still. */
void rwsem_state_lock(struct rwsem *s)
{
	(void)s;
}

void rwsem_state_unlock(struct rwsem *s)
{
	(void)s;
}

/* ---- RCU ------------------------------------------------------------------ */

/* A free waiting for the readers in `readers` (one bit per fiber id). */
struct rcu_cb {
	void *obj;
	void (*free_fn)(void *obj);
	enum alloc_kind kind;
	uint32_t readers;
};

static struct rcu_cb *pending;
static size_t npending, cap_pending;
static uint64_t pending_by_kind[AK_NR];
static bool deferred = true;

static uint32_t readers_now(void)
{
	struct sched *s = sched_active();
	uint32_t mask = sched_self()->id == SCHED_MAX_FIBERS && sched_self()->rcu_depth
			    ? 1u << SCHED_MAX_FIBERS
			    : 0;

	for (unsigned i = 0; s && i < s->nfibers; i++)
		if (s->fibers[i].rcu_depth && s->fibers[i].state != FIBER_DONE)
			mask |= 1u << i;
	return mask;
}

/* Run the callbacks no reader holds up any more. */
static void rcu_run_ready(uint32_t left)
{
	size_t keep = 0;

	for (size_t i = 0; i < npending; i++) {
		struct rcu_cb cb = pending[i];

		cb.readers &= ~left;
		if (cb.readers) {
			pending[keep++] = cb;
			continue;
		}
		pending_by_kind[cb.kind]--;
		cb.free_fn(cb.obj);
	}
	npending = keep;
}

void rcu_read_lock(void)
{
	sched_self()->rcu_depth++;
	sched_point("rcu_read_lock");
}

void rcu_read_unlock(void)
{
	struct fiber *f = sched_self();

	if (!f->rcu_depth) {
		check_fail(CK_SYNC_RCU_UNBALANCED, "t%u leaves an RCU read section it is not in",
			   f->id);
		return;
	}
	if (--f->rcu_depth == 0 && npending)
		rcu_run_ready(1u << f->id);
	sched_point("rcu_read_unlock");
}

bool rcu_read_held(void)
{
	return sched_self()->rcu_depth > 0;
}

void call_rcu_free(enum alloc_kind kind, void *obj, void (*free_fn)(void *obj))
{
	uint32_t readers = deferred ? readers_now() : 0;

	if (!readers) {
		free_fn(obj);
		return;
	}
	if (npending == cap_pending) {
		cap_pending = cap_pending ? 2 * cap_pending : 64;
		pending = realloc(pending, cap_pending * sizeof(*pending));
		MODEL_ASSERT(pending != NULL);
	}
	pending[npending++] = (struct rcu_cb){obj, free_fn, kind, readers};
	pending_by_kind[kind]++;
}

void rcu_barrier(void)
{
	rcu_run_ready(UINT32_MAX);
}

void rcu_between_programs(void)
{
	rcu_barrier();
	free(pending);
	pending = NULL;
	cap_pending = 0;
}

uint64_t rcu_pending(enum alloc_kind kind)
{
	return pending_by_kind[kind];
}

void rcu_set_deferred(bool on)
{
	deferred = on;
}
