/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sync.h on real threads: rwsems on a pthread mutex with a FIFO queue of
 * waiters, RCU on liburcu (urcu-memb), and the few sched.h functions the
 * model calls. See sync_threads.h for how it differs from the fiber backend
 * (sched.c, sync.c), which is never linked together with this file.
 */
#include "runtime/threads/sync_threads.h"

#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "runtime/sync_backend.h"

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <urcu/urcu-memb.h>

/* ---- ThreadSanitizer annotations ---------------------------------------- */

#if defined(__SANITIZE_THREAD__)
#define SYNC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SYNC_TSAN 1
#endif
#endif

#ifdef SYNC_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(a) __tsan_acquire(a)
#define tsan_release(a) __tsan_release(a)
#else
#define tsan_acquire(a) ((void)(a))
#define tsan_release(a) ((void)(a))
#endif

/*
 * Every read section releases this token as it ends and every grace period
 * acquires it as it ends: to ThreadSanitizer, what a reader did inside its
 * section happens before what the writer does after synchronize_rcu (the
 * free). liburcu's own synchronisation is invisible to it.
 */
static char rcu_tsan_token;

/* ---- per-thread state --------------------------------------------------- */

struct pending_free {
	enum alloc_kind kind;
	void *obj;
	void (*free_fn)(void *obj);
};

/* Objects retired together, waiting for the grace period liburcu's call_rcu
 * thread reports (batched mode, sync_threads_set_batch_frees). That thread
 * only marks the batch done: the retiring thread frees it (alloc.c is not
 * thread-safe). */
struct rcu_batch {
	struct rcu_head head;
	int done; /* atomic */
	struct rcu_batch *next;
	size_t n;
	struct pending_free items[];
};

struct thread_state {
	struct fiber f; /* id, held locks, RCU depth */
	bool init;
	bool urcu_registered;
	bool key_set;
	bool flushing;	 /* in flush_pending */
	unsigned nwrite; /* locks held for write */
	uint64_t points; /* sched_point calls, for the yield knob */
	struct pending_free *pend;
	size_t npend, cap;
	struct rcu_batch *waiting, *waiting_tail; /* oldest first */
};

static __thread struct thread_state ts;

static unsigned next_thread_id;	      /* atomic */
static unsigned yield_every;	      /* atomic */
static unsigned batch_frees;	      /* atomic; see sync_threads_set_batch_frees */
static bool deferred = true;	      /* atomic */
static uint64_t pending_count[AK_NR]; /* atomic */

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

#define PENDING_FLUSH_AT 4096

static struct thread_state *self(void)
{
	if (!ts.init) {
		ts.init = true;
		ts.f.id = __atomic_fetch_add(&next_thread_id, 1, __ATOMIC_RELAXED);
		ts.f.state = FIBER_RUNNABLE;
	}
	return &ts;
}

static void thread_exit_destructor(void *arg)
{
	(void)arg;
	sync_thread_exit();
}

static void make_exit_key(void)
{
	int err = pthread_key_create(&exit_key, thread_exit_destructor);

	MODEL_ASSERT(err == 0);
}

/* Threads that register with liburcu or keep pending frees get a
 * destructor that runs sync_thread_exit() if they forget to. */
static void arm_exit_destructor(struct thread_state *t)
{
	if (t->key_set)
		return;
	pthread_once(&exit_key_once, make_exit_key);
	pthread_setspecific(exit_key, t);
	t->key_set = true;
}

static void urcu_register(struct thread_state *t)
{
	if (t->urcu_registered)
		return;
	urcu_memb_register_thread();
	t->urcu_registered = true;
	arm_exit_destructor(t);
}

/* ---- sched.h ------------------------------------------------------------ */

struct fiber *sched_self(void)
{
	return &self()->f;
}

bool sched_in_fiber(void)
{
	return false;
}

/* Real threads always run side by side: holding is a fiber notion. */
void sched_hold(void)
{
}

void sched_unhold(void)
{
}

void sched_point(const char *what)
{
	unsigned every = __atomic_load_n(&yield_every, __ATOMIC_RELAXED);

	(void)what;
	if (every && ++ts.points % every == 0)
		sched_yield();
}

void sync_threads_set_yield(unsigned every)
{
	__atomic_store_n(&yield_every, every, __ATOMIC_RELAXED);
}

void sync_threads_set_batch_frees(unsigned n)
{
	__atomic_store_n(&batch_frees, n, __ATOMIC_RELAXED);
}

struct sched *sched_active(void)
{
	return NULL;
}

static _Noreturn void no_fibers(const char *fn)
{
	fprintf(stderr, "vmafuzz: %s: there are no fibers in the threads backend\n", fn);
	abort();
}

void sched_init(struct sched *s, const uint8_t *choices, size_t nchoices)
{
	(void)s;
	(void)choices;
	(void)nchoices;
	no_fibers(__func__);
}

unsigned sched_spawn(struct sched *s, void (*fn)(void *arg), void *arg)
{
	(void)s;
	(void)fn;
	(void)arg;
	no_fibers(__func__);
}

bool sched_run(struct sched *s)
{
	(void)s;
	no_fibers(__func__);
}

void sched_destroy(struct sched *s)
{
	(void)s;
}

void sched_block(const char *what, const void *on)
{
	(void)what;
	(void)on;
	no_fibers(__func__);
}

void sched_wake(struct fiber *f)
{
	(void)f;
	no_fibers(__func__);
}

/* No schedule to wait in: real threads await nothing (a delay's no-op). */
bool sched_await(const void *key, unsigned n, const char *what)
{
	(void)key;
	(void)n;
	sched_point(what);
	return false;
}

void sched_event(const void *what, const void *which)
{
	(void)what;
	(void)which;
}

void sched_dump(FILE *out, const struct sched *s)
{
	(void)s;
	fprintf(out, "(threads backend: no schedule; thread %u holds %u locks, rcu depth %u)\n",
		ts.f.id, ts.f.nheld, ts.f.rcu_depth);
}

/* ---- held locks --------------------------------------------------------- */

static void held_push(const struct rwsem *s, bool write, unsigned subclass)
{
	struct thread_state *t = self();
	struct held_lock *h;

	MODEL_ASSERT(t->f.nheld < SCHED_MAX_HELD);
	h = &t->f.held[t->f.nheld++];
	h->lock = s;
	h->cls = s->cls;
	h->name = s->name;
	h->write = write;
	h->subclass = (uint8_t)subclass;
	if (write)
		t->nwrite++;
}

/* The latest entry of @s in the thread's held locks, or -1. */
static int held_find(const struct rwsem *s)
{
	struct thread_state *t = self();

	for (int i = (int)t->f.nheld - 1; i >= 0; i--)
		if (t->f.held[i].lock == s)
			return i;
	return -1;
}

static void held_pop(int i)
{
	struct thread_state *t = self();

	if (t->f.held[i].write)
		t->nwrite--;
	memmove(&t->f.held[i], &t->f.held[i + 1],
		(t->f.nheld - (unsigned)i - 1) * sizeof(t->f.held[0]));
	t->f.nheld--;
}

/* ---- RCU frees ---------------------------------------------------------- */

static void grace_period(void)
{
	struct thread_state *t = self();

	if (t->f.rcu_depth) {
		/* it would wait for itself forever */
		check_fail(CK_SYNC_SLEEP_IN_RCU,
			   "thread %u waits for a grace period inside an RCU read section",
			   t->f.id);
		return;
	}
	urcu_memb_synchronize_rcu();
	tsan_acquire(&rcu_tsan_token);
}

static void free_items(const struct pending_free *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		items[i].free_fn(items[i].obj);
		__atomic_fetch_sub(&pending_count[items[i].kind], 1, __ATOMIC_RELAXED);
	}
}

static void batch_done(struct rcu_head *head)
{
	struct rcu_batch *b = (struct rcu_batch *)((char *)head - offsetof(struct rcu_batch, head));

	tsan_acquire(&b->done); /* liburcu's queue is invisible to TSan */
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
}

/* Free the batches whose grace period has ended; with @wait, all of them,
 * waiting for liburcu's call_rcu thread to report every one (polling: its
 * rcu_barrier() allocates in ways ThreadSanitizer cannot follow). */
static void reap_batches(bool wait)
{
	struct thread_state *t = &ts;

	if (!t->waiting)
		return;
	if (wait) {
		if (t->f.rcu_depth) {
			check_fail(CK_SYNC_SLEEP_IN_RCU,
				   "thread %u waits for a grace period inside an RCU read section",
				   t->f.id);
			return;
		}
		while (!__atomic_load_n(&t->waiting_tail->done, __ATOMIC_ACQUIRE))
			sched_yield(); /* batches end in order */
	}
	while (t->waiting && __atomic_load_n(&t->waiting->done, __ATOMIC_ACQUIRE)) {
		struct rcu_batch *b = t->waiting;

		t->waiting = b->next;
		if (!t->waiting)
			t->waiting_tail = NULL;
		tsan_acquire(&rcu_tsan_token);
		free_items(b->items, b->n); /* more retired now go to t->pend */
		free(b);
	}
}

/* Hand what this thread retired to a grace period and go on. */
static void submit_batch(void)
{
	struct thread_state *t = &ts;
	struct rcu_batch *b;

	if (!t->npend)
		return;
	b = malloc(sizeof(*b) + t->npend * sizeof(b->items[0]));
	MODEL_ASSERT(b != NULL);
	memcpy(b->items, t->pend, t->npend * sizeof(b->items[0]));
	b->n = t->npend;
	b->done = 0;
	b->next = NULL;
	t->npend = 0;
	if (t->waiting_tail)
		t->waiting_tail->next = b;
	else
		t->waiting = b;
	t->waiting_tail = b;
	urcu_register(t);
	tsan_release(&b->done);
	urcu_memb_call_rcu(&b->head, batch_done);
}

/* Free what this thread retired, after one grace period. */
static void flush_pending(void)
{
	struct thread_state *t = &ts;
	size_t n = t->npend;

	reap_batches(true);
	if (!n || t->flushing)
		return;
	t->flushing = true;
	grace_period();
	/* a free_fn that retires more objects appends them behind n (the list
	 * may move); they wait for the next flush */
	free_items(t->pend, n);
	memmove(t->pend, t->pend + n, (t->npend - n) * sizeof(*t->pend));
	t->npend -= n;
	t->flushing = false;
}

/* At a write unlock or downgrade: free what was retired under the lock
 * before others get it; batched, the writer never waits, it frees what an
 * earlier grace period released (the kernel's writers call_rcu and go on). */
static void release_retired(void)
{
	unsigned batch = __atomic_load_n(&batch_frees, __ATOMIC_RELAXED);

	if (!batch) {
		flush_pending();
		return;
	}
	if (ts.npend >= batch)
		submit_batch();
	reap_batches(false);
}

void call_rcu_free(enum alloc_kind kind, void *obj, void (*free_fn)(void *obj))
{
	struct thread_state *t = self();

	MODEL_ASSERT((unsigned)kind < AK_NR);
	if (!obj)
		return;
	if (!__atomic_load_n(&deferred, __ATOMIC_RELAXED)) {
		free_fn(obj); /* test only: no grace period */
		return;
	}
	if (!t->nwrite) {
		grace_period();
		free_fn(obj);
		return;
	}
	if (t->npend == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->pend = realloc(t->pend, t->cap * sizeof(*t->pend));
		MODEL_ASSERT(t->pend != NULL);
		arm_exit_destructor(t);
	}
	t->pend[t->npend++] = (struct pending_free){kind, obj, free_fn};
	__atomic_fetch_add(&pending_count[kind], 1, __ATOMIC_RELAXED);
	if (t->npend >= PENDING_FLUSH_AT)
		flush_pending();
}

void rcu_barrier(void)
{
	flush_pending();
}

uint64_t rcu_pending(enum alloc_kind kind)
{
	MODEL_ASSERT((unsigned)kind < AK_NR);
	return __atomic_load_n(&pending_count[kind], __ATOMIC_RELAXED);
}

void rcu_set_deferred(bool on)
{
	__atomic_store_n(&deferred, on, __ATOMIC_RELAXED);
}

/* ---- RCU read sections -------------------------------------------------- */

void rcu_read_lock(void)
{
	struct thread_state *t = self();

	sched_point("rcu_read_lock");
	urcu_register(t);
	urcu_memb_read_lock();
	t->f.rcu_depth++;
}

void rcu_read_unlock(void)
{
	struct thread_state *t = self();

	if (!t->f.rcu_depth) {
		check_fail(CK_SYNC_RCU_UNBALANCED, "thread %u: rcu_read_unlock outside RCU",
			   t->f.id);
		return;
	}
	t->f.rcu_depth--;
	tsan_release(&rcu_tsan_token);
	urcu_memb_read_unlock();
	sched_point("rcu_read_unlock");
}

bool rcu_read_held(void)
{
	return ts.f.rcu_depth > 0;
}

/* ---- thread exit -------------------------------------------------------- */

void sync_thread_exit(void)
{
	struct thread_state *t = self();

	if (t->f.nheld || t->f.rcu_depth)
		check_fail(CK_SYNC_HELD_AT_EXIT,
			   "thread %u ends holding %u lock(s)%s%s, rcu depth %u", t->f.id,
			   t->f.nheld, t->f.nheld ? ", first " : "",
			   t->f.nheld ? t->f.held[0].name : "", t->f.rcu_depth);
	flush_pending();
	free(t->pend);
	t->pend = NULL;
	t->npend = t->cap = 0;
	if (t->urcu_registered) {
		urcu_memb_unregister_thread();
		t->urcu_registered = false;
	}
	if (t->key_set) {
		pthread_setspecific(exit_key, NULL);
		t->key_set = false;
	}
}

/* ---- rwsem -------------------------------------------------------------- */

struct waiter {
	struct waiter *next;
	struct fiber *who;
	bool write;
	bool granted;
	pthread_cond_t cv;
};

struct rwsem_impl {
	pthread_mutex_t mu;
	struct waiter *head, *tail; /* FIFO */
};

static struct rwsem_impl *impl_of(struct rwsem *s)
{
	MODEL_ASSERT(s->impl != NULL);
	return s->impl;
}

void rwsem_init(struct rwsem *s, const struct lock_class *cls, const char *name)
{
	struct rwsem_impl *im = calloc(1, sizeof(*im));

	MODEL_ASSERT(im != NULL);
	pthread_mutex_init(&im->mu, NULL);
	memset(s, 0, sizeof(*s));
	s->cls = cls;
	s->name = name;
	s->impl = im;
}

void rwsem_destroy(struct rwsem *s)
{
	struct rwsem_impl *im = s->impl;

	if (!im)
		return;
	MODEL_ASSERT(!s->readers && !s->writer && !im->head);
	pthread_mutex_destroy(&im->mu);
	free(im);
	s->impl = NULL;
}

/* Hand the lock to the waiters at the head of the queue: one writer, or
 * every reader up to the first writer. Called with im->mu held. */
static void grant(struct rwsem *s, struct rwsem_impl *im)
{
	while (im->head) {
		struct waiter *w = im->head;

		if (s->writer || (w->write && s->readers))
			break;
		im->head = w->next;
		if (!im->head)
			im->tail = NULL;
		if (w->write) {
			s->writer = w->who;
			s->wait_writers--;
		} else {
			s->readers++;
			s->wait_readers--;
		}
		w->granted = true;
		pthread_cond_signal(&w->cv);
		if (w->write)
			break;
	}
}

/* Queue and sleep until granted. Called with im->mu held. */
static void wait_queued(struct rwsem *s, struct rwsem_impl *im, bool write)
{
	struct waiter w = {.who = sched_self(), .write = write};

	pthread_cond_init(&w.cv, NULL);
	if (im->tail)
		im->tail->next = &w;
	else
		im->head = &w;
	im->tail = &w;
	if (write)
		s->wait_writers++;
	else
		s->wait_readers++;
	while (!w.granted)
		pthread_cond_wait(&w.cv, &im->mu);
	pthread_cond_destroy(&w.cv);
}

/* A blocking acquire: not inside RCU, not of a lock already held. */
static void may_block(struct rwsem *s, const char *op)
{
	struct thread_state *t = self();

	if (t->f.rcu_depth)
		check_fail(CK_SYNC_SLEEP_IN_RCU, "thread %u: %s(%s) inside an RCU read section",
			   t->f.id, op, s->name);
	if (held_find(s) >= 0) {
		fprintf(stderr, "vmafuzz: thread %u: %s(%s) of a lock it holds: deadlock\n",
			t->f.id, op, s->name);
		abort();
	}
}

void down_read(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);

	sched_point("down_read");
	may_block(s, __func__);
	pthread_mutex_lock(&im->mu);
	/* a waiting writer stops new readers */
	if (!s->writer && !im->head)
		s->readers++;
	else
		wait_queued(s, im, false);
	pthread_mutex_unlock(&im->mu);
	held_push(s, false, 0);
}

static void down_write_sub(struct rwsem *s, unsigned subclass, const char *op)
{
	struct rwsem_impl *im = impl_of(s);

	sched_point(op);
	may_block(s, op);
	pthread_mutex_lock(&im->mu);
	if (!s->writer && !s->readers && !im->head)
		s->writer = sched_self();
	else
		wait_queued(s, im, true);
	pthread_mutex_unlock(&im->mu);
	held_push(s, true, subclass);
}

void down_write(struct rwsem *s)
{
	down_write_sub(s, 0, "down_write");
}

void down_write_nested(struct rwsem *s, unsigned subclass)
{
	down_write_sub(s, subclass, "down_write_nested");
}

bool down_read_trylock(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	bool ok;

	sched_point("down_read_trylock");
	pthread_mutex_lock(&im->mu);
	ok = !s->writer && !im->head;
	if (ok)
		s->readers++;
	pthread_mutex_unlock(&im->mu);
	if (ok)
		held_push(s, false, 0);
	return ok;
}

bool down_write_trylock(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	bool ok;

	sched_point("down_write_trylock");
	pthread_mutex_lock(&im->mu);
	ok = !s->writer && !s->readers && !im->head;
	if (ok)
		s->writer = sched_self();
	pthread_mutex_unlock(&im->mu);
	if (ok)
		held_push(s, true, 0);
	return ok;
}

void up_read(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	int i = held_find(s);

	if (i < 0 || self()->f.held[i].write) {
		check_fail(CK_SYNC_UNLOCK_NOT_HELD, "thread %u: up_read(%s) not held for read",
			   self()->f.id, s->name);
		return;
	}
	held_pop(i);
	pthread_mutex_lock(&im->mu);
	MODEL_ASSERT(s->readers > 0);
	if (--s->readers == 0)
		grant(s, im);
	pthread_mutex_unlock(&im->mu);
	sched_point("up_read");
}

/* The caller holds @s for write: returns its entry, or -1 after a report. */
static int write_held(struct rwsem *s, const char *op)
{
	int i = held_find(s);

	if (i < 0 || !self()->f.held[i].write) {
		check_fail(CK_SYNC_UNLOCK_NOT_HELD, "thread %u: %s(%s) not held for write",
			   self()->f.id, op, s->name);
		return -1;
	}
	return i;
}

void up_write(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	int i = write_held(s, __func__);

	if (i < 0)
		return;
	release_retired();
	held_pop(i);
	pthread_mutex_lock(&im->mu);
	MODEL_ASSERT(s->writer == sched_self());
	s->writer = NULL;
	grant(s, im);
	pthread_mutex_unlock(&im->mu);
	sched_point("up_write");
}

void downgrade_write(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	int i = write_held(s, __func__);

	if (i < 0)
		return;
	release_retired();
	self()->f.held[i].write = 0;
	self()->nwrite--;
	pthread_mutex_lock(&im->mu);
	MODEL_ASSERT(s->writer == sched_self());
	s->writer = NULL;
	s->readers = 1;
	grant(s, im); /* the readers at the head of the queue */
	pthread_mutex_unlock(&im->mu);
	sched_point("downgrade_write");
}

bool rwsem_is_contended(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	bool r;

	pthread_mutex_lock(&im->mu);
	r = im->head != NULL;
	pthread_mutex_unlock(&im->mu);
	return r;
}

unsigned sync_rwsem_waiters(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	unsigned n;

	pthread_mutex_lock(&im->mu);
	n = s->wait_readers + s->wait_writers;
	pthread_mutex_unlock(&im->mu);
	return n;
}

bool rwsem_is_write_locked(struct rwsem *s)
{
	struct rwsem_impl *im = impl_of(s);
	bool r;

	pthread_mutex_lock(&im->mu);
	r = s->writer != NULL;
	pthread_mutex_unlock(&im->mu);
	return r;
}

bool rwsem_held_write(struct rwsem *s)
{
	int i = held_find(s);

	return i >= 0 && self()->f.held[i].write;
}

bool rwsem_held(struct rwsem *s)
{
	return held_find(s) >= 0;
}

/* ---- hooks of the mmap and VMA locks (sync_backend.h, mmap_lock.c) ---- */

bool down_read_trylock_if(struct rwsem *s, bool (*ok)(const void *arg), const void *arg)
{
	struct rwsem_impl *im = impl_of(s);
	bool taken;

	sched_point("down_read_trylock_if");
	if (!ok(arg))
		return false;
	pthread_mutex_lock(&im->mu);
	/* down_read_trylock, then @ok again with the lock taken */
	taken = !s->writer && !im->head && ok(arg);
	if (taken)
		s->readers++;
	pthread_mutex_unlock(&im->mu);
	if (taken)
		held_push(s, false, 0);
	return taken;
}

void rwsem_state_lock(struct rwsem *s)
{
	pthread_mutex_lock(&impl_of(s)->mu);
}

void rwsem_state_unlock(struct rwsem *s)
{
	pthread_mutex_unlock(&impl_of(s)->mu);
}
