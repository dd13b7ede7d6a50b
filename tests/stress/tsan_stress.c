/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ThreadSanitizer stress of the model on real threads (the threads backend
 * of sync.h, src/threads/sync_threads.c, with liburcu).
 *
 *   tsan_stress [SCALE] [--no-grace]
 *
 * First the lock semantics, each checked once with helper threads: trylocks,
 * writer preference and arrival order of an rwsem, downgrade, the mmap
 * lock's seq, VMA locks (write waits for readers, write-locked and detached
 * VMAs refuse readers) and the RCU grace period before a deferred free.
 *
 * Then the stress, SCALE times longer per unit (iteration counts, no clocks):
 *   - a range tree in RCU mode, index space cut into cells of 16, each entry
 *     naming its cell; 2 writers store cells, sub-ranges of cells and erase
 *     under the tree rwsem (down_write, sometimes down_write_trylock) and
 *     keep a reference map under it;
 *   - 2 RCU readers walk it with mt_rcu_walk and check each range they see
 *     lies in the cell its entry names and ends past the previous one;
 *   - 2 locked readers (down_read) compare mt_load and mt_find with the
 *     reference map;
 *   - 2 mmap writers write-lock VMAs (vma_start_write), detach and reattach
 *     them, and end by mmap_write_unlock or mmap_write_downgrade;
 *   - 2 VMA readers take VMAs by vma_start_read under RCU, else the mmap
 *     read lock; a VMA read-locked must never be write-locked meanwhile.
 * Each thread draws from its own splitmix64, seeded by its number.
 *
 * --no-grace (test only) frees retired nodes with no grace period
 * (rcu_set_deferred(false)): ThreadSanitizer must then report the readers.
 *
 * Ends with "N passed, N failed" (one check per property); exit status 1 on
 * any failure.
 */
#include "runtime/alloc.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "runtime/threads/sync_threads.h"
#include "tree/mtree.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- splitmix64, as fuzz/prog/prng.h ----------------------------------------- */

struct prng {
	uint64_t s;
};

static uint64_t prng_next(struct prng *p)
{
	uint64_t z = (p->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t prng_below(struct prng *p, uint64_t n)
{
	return prng_next(p) % n;
}

/* ---- checks ------------------------------------------------------------- */

static int passed, failed;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	fputs("FAIL: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Errors found by the stress threads, one counter per property. */
enum prop {
	P_RCU_WALK,    /* an RCU walk sees ranges inside their entry's cell, moving on */
	P_LOCKED_READ, /* mt_load/mt_find under down_read agree with the reference */
	P_WRITER,      /* the writers' own view: results, reference, validation */
	P_TREE_LOCK,   /* ownership queries of the tree rwsem */
	P_VMA_EXCL,    /* a VMA read-locked is never write-locked meanwhile */
	P_VMA_CHECK,   /* sync_check_vma_lock holds */
	P_MMAP_SEQ,    /* the mmap seq: stable under the lock, bumped by unlock/downgrade */
	P_MMAP_LOCK,   /* ownership queries of the mmap lock */
	P_NR
};

static const char *const prop_name[P_NR] = {
    [P_RCU_WALK] = "RCU walks see every range inside its entry's cell, moving forward",
    [P_LOCKED_READ] = "mt_load/mt_find under down_read agree with the reference map",
    [P_WRITER] = "writes succeed and the tree equals the reference under the lock",
    [P_TREE_LOCK] = "tree rwsem ownership queries are right in every thread",
    [P_VMA_EXCL] = "a VMA read-locked (vma_start_read) is never write-locked meanwhile",
    [P_VMA_CHECK] = "sync_check_vma_lock never fires",
    [P_MMAP_SEQ] = "mmap seq is stable under the lock and bumped by unlock and downgrade",
    [P_MMAP_LOCK] = "mmap lock ownership queries are right in every thread",
};

static unsigned prop_errors[P_NR]; /* atomic */

static void stress_error(enum prop p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void stress_error(enum prop p, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	if (__atomic_fetch_add(&prop_errors[p], 1, __ATOMIC_RELAXED) >= 5)
		return; /* the first few are enough */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("error (%s): %s\n", prop_name[p], buf);
	fflush(stdout);
}

#define EXPECT(p, cond, ...)                                                                       \
	do {                                                                                       \
		if (!(cond))                                                                       \
			stress_error(p, __VA_ARGS__);                                              \
	} while (0)

/* ---- threads ------------------------------------------------------------ */

struct thread {
	pthread_t tid;
	void (*fn)(void *arg);
	void *arg;
};

static void *thread_main(void *p)
{
	struct thread *t = p;

	t->fn(t->arg);
	sync_thread_exit();
	return NULL;
}

static void spawn(struct thread *t, void (*fn)(void *arg), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	if (pthread_create(&t->tid, NULL, thread_main, t)) {
		perror("pthread_create");
		exit(2);
	}
}

static void join(struct thread *t)
{
	pthread_join(t->tid, NULL);
}

static int load_int(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_int(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Yield until *p == want; false if that takes absurdly long. */
static bool wait_int(const int *p, int want)
{
	for (long i = 0; i < 20000000; i++) {
		if (load_int(p) == want)
			return true;
		sched_yield();
	}
	return false;
}

/* Yield until @n threads are queued on @s. */
static bool wait_waiters(struct rwsem *s, unsigned n)
{
	for (long i = 0; i < 20000000; i++) {
		if (sync_rwsem_waiters(s) == n)
			return true;
		sched_yield();
	}
	return false;
}

/* ---- semantics, one check each ------------------------------------------ */

static struct rwsem sem;
static int order_next, order_w, order_r, flag_a, flag_b; /* atomic */

static void t_read_trylock(void *arg)
{
	int *res = arg;

	*res = down_read_trylock(&sem);
	if (*res)
		up_read(&sem);
}

static void t_write_trylock(void *arg)
{
	int *res = arg;

	*res = down_write_trylock(&sem);
	if (*res)
		up_write(&sem);
}

static void t_held(void *arg)
{
	int *res = arg;

	*res = rwsem_held(&sem) || rwsem_held_write(&sem);
}

static void t_writer_order(void *arg)
{
	(void)arg;
	down_write(&sem);
	store_int(&order_w, __atomic_add_fetch(&order_next, 1, __ATOMIC_ACQ_REL));
	up_write(&sem);
}

static void t_reader_order(void *arg)
{
	(void)arg;
	down_read(&sem);
	store_int(&order_r, __atomic_add_fetch(&order_next, 1, __ATOMIC_ACQ_REL));
	up_read(&sem);
}

static int trylock_in_thread(void (*fn)(void *), bool *okp)
{
	struct thread t;
	int res = -1;

	spawn(&t, fn, &res);
	join(&t);
	*okp = res >= 0;
	return res;
}

static void semantics_rwsem(void)
{
	struct thread w, r;
	bool ran;
	int res;

	rwsem_init(&sem, &lock_class_tree, "sem");

	down_write_nested(&sem, 1);
	check(rwsem_held_write(&sem), "down_write_nested holds it for write");
	up_write(&sem);

	/* trylocks and ownership */
	check(down_write_trylock(&sem), "down_write_trylock of a free rwsem succeeds");
	check(rwsem_held_write(&sem) && rwsem_held(&sem) && rwsem_is_write_locked(&sem),
	      "the writer holds it for write");
	res = trylock_in_thread(t_read_trylock, &ran);
	check(ran && res == 0, "down_read_trylock fails while a writer holds it");
	res = trylock_in_thread(t_held, &ran);
	check(ran && res == 0, "another thread does not hold it");
	up_write(&sem);
	check(!rwsem_held(&sem) && !rwsem_is_write_locked(&sem), "up_write releases it");
	down_read(&sem);
	check(rwsem_held(&sem) && !rwsem_held_write(&sem), "a reader holds it, not for write");
	res = trylock_in_thread(t_write_trylock, &ran);
	check(ran && res == 0, "down_write_trylock fails while a reader holds it");
	res = trylock_in_thread(t_read_trylock, &ran);
	check(ran && res == 1, "down_read_trylock succeeds beside a reader");

	/* writer preference and arrival order: with a reader in, a writer
	 * queues; then a new reader must not get in before it */
	check(!rwsem_is_contended(&sem), "not contended without waiters");
	store_int(&order_next, 0);
	spawn(&w, t_writer_order, NULL);
	check(wait_waiters(&sem, 1), "a writer queues behind a reader");
	check(rwsem_is_contended(&sem), "contended while a writer waits");
	res = trylock_in_thread(t_read_trylock, &ran);
	check(ran && res == 0, "down_read_trylock fails while a writer waits");
	spawn(&r, t_reader_order, NULL);
	check(wait_waiters(&sem, 2), "a new reader queues behind a waiting writer");
	up_read(&sem);
	join(&w);
	join(&r);
	check(load_int(&order_w) == 1 && load_int(&order_r) == 2,
	      "the waiting writer goes before the later reader (writer %d, reader %d)",
	      load_int(&order_w), load_int(&order_r));

	/* downgrade lets the queued readers in, not the writer behind them */
	down_write(&sem);
	store_int(&order_next, 0);
	store_int(&order_w, 0);
	store_int(&order_r, 0);
	spawn(&r, t_reader_order, NULL);
	check(wait_waiters(&sem, 1), "a reader queues behind a writer");
	spawn(&w, t_writer_order, NULL);
	check(wait_waiters(&sem, 2), "a writer queues behind it");
	downgrade_write(&sem);
	check(rwsem_held(&sem) && !rwsem_held_write(&sem) && !rwsem_is_write_locked(&sem),
	      "after downgrade_write the thread holds it for read");
	join(&r); /* got in beside us */
	check(load_int(&order_r) == 1 && load_int(&order_w) == 0,
	      "downgrade_write admits the queued reader and not the writer");
	check(rwsem_is_contended(&sem), "the writer still waits");
	up_read(&sem);
	join(&w);
	check(load_int(&order_w) == 2, "the writer gets it after the last reader");
	check(sync_rwsem_waiters(&sem) == 0 && !rwsem_is_contended(&sem),
	      "nobody waits at the end");
	rwsem_destroy(&sem);
}

static struct mmap_lock smm;
static struct vma_lock svma;

static void t_vma_trylock(void *arg)
{
	int *res = arg;

	*res = vma_start_read(&svma, &smm);
	if (*res)
		vma_end_read(&svma);
}

/* Holds the VMA for read until the writer queues on it. */
static void t_vma_holder(void *arg)
{
	(void)arg;
	if (!vma_start_read(&svma, &smm)) {
		store_int(&flag_a, -1);
		return;
	}
	store_int(&flag_a, 1);
	if (!wait_waiters(&svma.sem, 1))
		store_int(&flag_b, -1);
	else
		store_int(&flag_b, 1); /* leaving now: the writer still waits */
	vma_end_read(&svma);
}

static void semantics_mmap_vma(void)
{
	struct thread t;
	uint64_t s0;
	bool ran;
	int res;

	mmap_lock_init(&smm, "mm");
	vma_lock_init(&svma, false);

	s0 = smm.seq;
	mmap_write_lock(&smm);
	check(rwsem_held_write(&smm.sem), "mmap_write_lock holds the mmap lock for write");
	mmap_write_unlock(&smm);
	check(smm.seq == s0 + 1, "mmap_write_unlock bumps seq");
	mmap_write_lock(&smm);
	mmap_write_downgrade(&smm);
	check(smm.seq == s0 + 2 && rwsem_held(&smm.sem) && !rwsem_held_write(&smm.sem),
	      "mmap_write_downgrade bumps seq and keeps the lock for read");
	check(mmap_read_trylock(&smm), "mmap_read_trylock beside a reader");
	mmap_read_unlock(&smm);
	mmap_read_unlock(&smm);
	mmap_write_lock_nested(&smm, 1);
	check(rwsem_held_write(&smm.sem) && smm.seq == s0 + 2,
	      "mmap_write_lock_nested holds it for write");
	mmap_write_unlock(&smm);
	check(smm.seq == s0 + 3 && !rwsem_held(&smm.sem), "and mmap_write_unlock bumps seq");

	res = trylock_in_thread(t_vma_trylock, &ran);
	check(ran && res == 1, "vma_start_read of an unlocked VMA succeeds");
	mmap_write_lock(&smm);
	vma_start_write(&svma, &smm);
	check(vma_is_write_locked(&svma, &smm), "vma_start_write write-locks the VMA");
	res = trylock_in_thread(t_vma_trylock, &ran);
	check(ran && res == 0, "vma_start_read of a write-locked VMA fails");
	check(sync_check_vma_lock(&svma, &smm), "sync_check_vma_lock on a write-locked VMA");
	vma_mark_detached(&svma, &smm, true);
	mmap_write_unlock(&smm);
	check(!vma_is_write_locked(&svma, &smm), "mmap_write_unlock ends the VMA write lock");
	res = trylock_in_thread(t_vma_trylock, &ran);
	check(ran && res == 0, "vma_start_read of a detached VMA fails");
	mmap_write_lock(&smm);
	vma_start_write(&svma, &smm);
	vma_mark_detached(&svma, &smm, false);
	mmap_write_unlock(&smm);
	res = trylock_in_thread(t_vma_trylock, &ran);
	check(ran && res == 1, "vma_start_read succeeds again after reattaching");

	/* vma_start_write waits for a reader of the VMA */
	store_int(&flag_a, 0);
	store_int(&flag_b, 0);
	spawn(&t, t_vma_holder, NULL);
	check(wait_int(&flag_a, 1), "a reader takes the VMA");
	mmap_write_lock(&smm);
	vma_start_write(&svma, &smm);
	check(load_int(&flag_b) == 1, "vma_start_write returns only after the reader left");
	mmap_write_downgrade(&smm);
	check(!vma_is_write_locked(&svma, &smm), "mmap_write_downgrade ends the VMA write lock");
	mmap_read_unlock(&smm);
	join(&t);

	vma_lock_destroy(&svma);
	mmap_lock_destroy(&smm);
}

static int rcu_in, rcu_out, rcu_flushing, freed_after_out; /* atomic */
static int freed;

static void count_free(void *obj)
{
	model_free(AK_OTHER, obj);
	freed++;
}

static void check_free(void *obj)
{
	store_int(&freed_after_out, load_int(&rcu_out) ? 1 : -1);
	count_free(obj);
}

static void t_rcu_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	store_int(&rcu_in, 1);
	if (wait_int(&rcu_flushing, 1))
		for (int i = 0; i < 1000; i++)
			sched_yield(); /* the writer waits for us meanwhile */
	store_int(&rcu_out, 1);
	rcu_read_unlock();
}

static void semantics_rcu(void)
{
	struct rwsem lk;
	struct thread t;
	void *obj;

	rwsem_init(&lk, &lock_class_tree, "lk");
	check(!rcu_read_held(), "outside RCU at start");
	rcu_read_lock();
	rcu_read_lock();
	rcu_read_unlock();
	check(rcu_read_held(), "RCU read sections nest");
	rcu_read_unlock();
	check(!rcu_read_held(), "outside RCU after the last unlock");

	freed = 0;
	down_write(&lk);
	call_rcu_free(AK_OTHER, model_alloc(AK_OTHER, 8), count_free);
	check(rcu_pending(AK_OTHER) == 1 && freed == 0,
	      "call_rcu_free under a write lock defers the free");
	up_write(&lk);
	check(rcu_pending(AK_OTHER) == 0 && freed == 1, "up_write frees what was retired");
	call_rcu_free(AK_OTHER, model_alloc(AK_OTHER, 8), count_free);
	check(rcu_pending(AK_OTHER) == 0 && freed == 2,
	      "call_rcu_free with no write lock frees after a grace period, at once");

	/* the free waits for a reader that was inside when it was retired */
	spawn(&t, t_rcu_reader, NULL);
	check(wait_int(&rcu_in, 1), "a reader enters RCU");
	down_write(&lk);
	obj = model_alloc(AK_OTHER, 8);
	call_rcu_free(AK_OTHER, obj, check_free);
	store_int(&rcu_flushing, 1);
	up_write(&lk);
	check(load_int(&freed_after_out) == 1, "the free waits for the reader's section to end");
	join(&t);
	rcu_barrier();
	check(alloc_live(AK_OTHER) == 0, "every retired object was freed");
	rwsem_destroy(&lk);
}

static int rcu_release; /* atomic */

static void t_rcu_held(void *arg)
{
	(void)arg;
	rcu_read_lock();
	store_int(&rcu_in, 1);
	wait_int(&rcu_release, 1);
	store_int(&rcu_out, 1);
	rcu_read_unlock();
}

/* Batched frees: the writer hands them to a grace period and goes on; a
 * later write unlock frees them once every reader that could see them left. */
static void semantics_rcu_batched(void)
{
	struct rwsem lk;
	struct thread t;
	bool later = false;

	rwsem_init(&lk, &lock_class_tree, "lk");
	sync_threads_set_batch_frees(1);
	store_int(&rcu_in, 0);
	store_int(&rcu_out, 0);
	store_int(&rcu_release, 0);
	store_int(&freed_after_out, 0);
	freed = 0;
	spawn(&t, t_rcu_held, NULL);
	check(wait_int(&rcu_in, 1), "a reader enters RCU");
	down_write(&lk);
	call_rcu_free(AK_OTHER, model_alloc(AK_OTHER, 8), check_free);
	up_write(&lk); /* returns with the reader still inside */
	check(freed == 0 && rcu_pending(AK_OTHER) == 1,
	      "a batched write unlock does not wait for the reader, nor free");
	for (int i = 0; i < 1000; i++) {
		down_write(&lk);
		up_write(&lk);
	}
	check(freed == 0, "nothing is freed while the reader is inside");
	store_int(&rcu_release, 1);
	join(&t);
	for (long i = 0; i < 20000000 && !later; i++) {
		down_write(&lk);
		up_write(&lk);
		later = freed == 1;
		if (!later)
			sched_yield();
	}
	check(later && load_int(&freed_after_out) == 1,
	      "a later write unlock frees it, after the reader left");
	down_write(&lk);
	call_rcu_free(AK_OTHER, model_alloc(AK_OTHER, 8), count_free);
	up_write(&lk);
	rcu_barrier();
	check(freed == 2 && rcu_pending(AK_OTHER) == 0, "rcu_barrier waits for the batches");
	sync_threads_set_batch_frees(0);
	rwsem_destroy(&lk);
}

/* ---- the stress --------------------------------------------------------- */

#define NCELLS 256
#define CELL 16
#define SPAN ((uint64_t)NCELLS * CELL)
#define NVMAS 4

static struct mtree mt;
static struct rwsem tree_lock;
static void *ref[SPAN]; /* under tree_lock */
static unsigned long iters;

static struct mmap_lock mm;
static struct vma_lock vmas[NVMAS];
static int vma_wflag[NVMAS];   /* atomic: a writer holds the VMA write-locked */
static int vma_readers[NVMAS]; /* atomic: readers inside by vma_start_read */

static int writers_running; /* atomic: tree writers not finished */
static uint64_t n_walked, n_walks, n_vma_ok, n_vma_fail, n_contended, n_downgrades; /* atomic */

static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* An entry names its cell (and who wrote it, for the reference). */
static void *entry_of(uint64_t cell, unsigned tag)
{
	return (void *)(uintptr_t)((cell << 16) | ((uint64_t)(tag & 0x3fff) << 2) | 1);
}

static bool entry_cell(const void *e, uint64_t *cell)
{
	uintptr_t v = (uintptr_t)e;

	*cell = v >> 16;
	return (v & 3) == 1 && *cell < NCELLS;
}

static void ref_set(uint64_t first, uint64_t last, void *e)
{
	for (uint64_t i = first; i <= last; i++)
		ref[i] = e;
}

/* The tree equals the reference over one cell (writer's view). */
static void verify_cell(uint64_t c)
{
	for (uint64_t i = c * CELL; i < (c + 1) * CELL; i++) {
		void *e = mt_load(&mt, i);

		EXPECT(P_WRITER, e == ref[i], "index %#llx holds %p, reference %p",
		       (unsigned long long)i, e, ref[i]);
	}
}

static void tree_writer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct prng p = {0x1000 + id};

	for (unsigned long it = 0; it < iters; it++) {
		uint64_t c = prng_below(&p, NCELLS), base = c * CELL;
		unsigned op = (unsigned)prng_below(&p, 8);
		uint64_t a = prng_below(&p, CELL), b = prng_below(&p, CELL);
		void *e = entry_of(c, (unsigned)(id << 12 | (it & 0xfff)));
		int err = 0;

		if (a > b) {
			uint64_t x = a;
			a = b;
			b = x;
		}
		if (it % 8 != 0 || !down_write_trylock(&tree_lock))
			down_write(&tree_lock);
		EXPECT(P_TREE_LOCK,
		       rwsem_held_write(&tree_lock) && rwsem_is_write_locked(&tree_lock),
		       "writer %u does not hold the tree lock for write", id);
		switch (op) {
		case 0:
		case 1:
		case 2: /* the whole cell */
			err = mt_store_range(&mt, base, base + CELL - 1, e);
			if (!err)
				ref_set(base, base + CELL - 1, e);
			break;
		case 3:
		case 4: /* part of it */
			err = mt_store_range(&mt, base + a, base + b, e);
			if (!err)
				ref_set(base + a, base + b, e);
			break;
		case 5:
		case 6: /* erase the cell */
			err = mt_store_range(&mt, base, base + CELL - 1, NULL);
			if (!err)
				ref_set(base, base + CELL - 1, NULL);
			break;
		default: { /* erase the range at one index */
			struct mt_range r;
			void *old, *cur = mt_load_range(&mt, base + a, &r);

			err = mt_erase(&mt, base + a, &old);
			EXPECT(P_WRITER, old == cur && old == ref[base + a],
			       "mt_erase at %#llx returned %p, expected %p",
			       (unsigned long long)(base + a), old, ref[base + a]);
			if (!err && old)
				ref_set(r.first, r.last, NULL);
			break;
		}
		}
		EXPECT(P_WRITER, err == 0, "write %u on cell %llu failed: %d", op,
		       (unsigned long long)c, err);
		if (it % 16 == 0)
			verify_cell(c);
		if (it % 512 == 0)
			EXPECT(P_WRITER, mt_validate(&mt), "tree invalid after writer %u step %lu",
			       id, it);
		up_write(&tree_lock);
		EXPECT(P_TREE_LOCK, !rwsem_held(&tree_lock), "writer %u still holds the tree lock",
		       id);
	}
	__atomic_fetch_sub(&writers_running, 1, __ATOMIC_RELEASE);
}

struct walk {
	uint64_t from, to;
	bool any;
	uint64_t prev_last;
	uint64_t n;
};

static bool walk_visit(void *arg, const struct mt_range *r, void *e)
{
	struct walk *w = arg;
	uint64_t c;

	w->n++;
	if (!entry_cell(e, &c)) {
		stress_error(P_RCU_WALK, "entry %p at [%#llx, %#llx] is not one the writers store",
			     e, (unsigned long long)r->first, (unsigned long long)r->last);
		return false;
	}
	EXPECT(P_RCU_WALK, r->first >= c * CELL && r->last < (c + 1) * CELL && r->first <= r->last,
	       "range [%#llx, %#llx] of an entry of cell %llu ([%#llx, %#llx])",
	       (unsigned long long)r->first, (unsigned long long)r->last, (unsigned long long)c,
	       (unsigned long long)(c * CELL), (unsigned long long)((c + 1) * CELL - 1));
	EXPECT(P_RCU_WALK, r->last >= w->from && r->first <= w->to,
	       "range [%#llx, %#llx] outside the walk [%#llx, %#llx]", (unsigned long long)r->first,
	       (unsigned long long)r->last, (unsigned long long)w->from, (unsigned long long)w->to);
	/* a range may start before the end of the previous one: the walk
	 * re-descends after each leaf and the tree may have changed meanwhile;
	 * but it never goes back */
	EXPECT(P_RCU_WALK, !w->any || r->last > w->prev_last,
	       "range [%#llx, %#llx] after one ending at %#llx", (unsigned long long)r->first,
	       (unsigned long long)r->last, (unsigned long long)w->prev_last);
	w->any = true;
	w->prev_last = r->last;
	return true;
}

static void rcu_reader(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct prng p = {0x2000 + id};

	/* at least iters walks, and on while the writers write */
	for (unsigned long it = 0; it < iters || load_int(&writers_running); it++) {
		struct walk w = {0};

		w.from = prng_below(&p, SPAN);
		w.to = w.from + prng_below(&p, SPAN / 4);
		rcu_read_lock();
		if (it % 4 == 0)
			rcu_read_lock(); /* nested */
		mt_rcu_walk(&mt, w.from, w.to, walk_visit, &w);
		if (it % 4 == 0)
			rcu_read_unlock();
		EXPECT(P_RCU_WALK, rcu_read_held(), "reader %u left RCU too early", id);
		rcu_read_unlock();
		count(&n_walked, w.n);
		count(&n_walks, 1);
	}
}

static void locked_reader(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct prng p = {0x3000 + id};

	for (unsigned long it = 0; it < iters || load_int(&writers_running); it++) {
		uint64_t i = prng_below(&p, SPAN), from = prng_below(&p, SPAN);
		uint64_t max = from + prng_below(&p, 4 * CELL), k;
		struct mt_range r;
		void *e;

		if (max >= SPAN)
			max = SPAN - 1;
		if (it % 4 != 0 || !down_read_trylock(&tree_lock))
			down_read(&tree_lock);
		EXPECT(P_TREE_LOCK, rwsem_held(&tree_lock) && !rwsem_held_write(&tree_lock),
		       "reader %u does not hold the tree lock for read", id);
		e = mt_load(&mt, i);
		EXPECT(P_LOCKED_READ, e == ref[i], "mt_load(%#llx) = %p, reference %p",
		       (unsigned long long)i, e, ref[i]);
		for (k = from; k <= max && !ref[k]; k++)
			;
		e = mt_find(&mt, from, max, &r);
		if (k > max) {
			EXPECT(P_LOCKED_READ, e == NULL,
			       "mt_find(%#llx, %#llx) = %p, reference none",
			       (unsigned long long)from, (unsigned long long)max, e);
		} else {
			EXPECT(
			    P_LOCKED_READ, e == ref[k] && r.first <= k && k <= r.last,
			    "mt_find(%#llx, %#llx) = %p at [%#llx, %#llx], reference %p at %#llx",
			    (unsigned long long)from, (unsigned long long)max, e,
			    (unsigned long long)r.first, (unsigned long long)r.last, ref[k],
			    (unsigned long long)k);
		}
		up_read(&tree_lock);
	}
}

static void mmap_writer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct prng p = {0x4000 + id};

	for (unsigned long it = 0; it < iters / 4; it++) {
		unsigned mask = 1 + (unsigned)prng_below(&p, (1u << NVMAS) - 1);
		unsigned toggle = (unsigned)prng_below(&p, 4 * NVMAS);
		uint64_t s0;

		mmap_write_lock(&mm);
		s0 = mm.seq;
		EXPECT(P_MMAP_LOCK, rwsem_held_write(&mm.sem) && rwsem_is_write_locked(&mm.sem),
		       "mmap writer %u does not hold the lock for write", id);
		for (unsigned v = 0; v < NVMAS; v++) {
			if (!(mask & (1u << v)))
				continue;
			vma_start_write(&vmas[v], &mm);
			EXPECT(P_VMA_EXCL, vma_is_write_locked(&vmas[v], &mm),
			       "VMA %u not write-locked after vma_start_write", v);
			EXPECT(P_VMA_EXCL, load_int(&vma_readers[v]) == 0,
			       "VMA %u has %d reader(s) after vma_start_write", v,
			       load_int(&vma_readers[v]));
			store_int(&vma_wflag[v], 1);
			/* detach or reattach, the way munmap and its undo do */
			if (toggle == v)
				vma_mark_detached(&vmas[v], &mm, !vmas[v].detached);
		}
		for (int k = 0; k < 3; k++)
			sched_point("mmap writer");
		if (mmap_lock_is_contended(&mm))
			count(&n_contended, 1);
		for (unsigned v = 0; v < NVMAS; v++) {
			if (!(mask & (1u << v)))
				continue;
			EXPECT(P_VMA_EXCL, load_int(&vma_readers[v]) == 0,
			       "VMA %u has %d reader(s) while write-locked", v,
			       load_int(&vma_readers[v]));
			EXPECT(P_VMA_CHECK, sync_check_vma_lock(&vmas[v], &mm), "VMA %u", v);
			store_int(&vma_wflag[v], 0);
		}
		EXPECT(P_MMAP_SEQ, mm.seq == s0, "mmap seq moved under the write lock");
		if (it % 3 == 0) {
			mmap_write_downgrade(&mm);
			count(&n_downgrades, 1);
			EXPECT(P_MMAP_SEQ, __atomic_load_n(&mm.seq, __ATOMIC_ACQUIRE) == s0 + 1,
			       "downgrade moved seq from %llu to %llu", (unsigned long long)s0,
			       (unsigned long long)mm.seq);
			EXPECT(P_MMAP_LOCK, rwsem_held(&mm.sem) && !rwsem_held_write(&mm.sem),
			       "mmap writer %u after downgrade does not hold it for read", id);
			for (unsigned v = 0; v < NVMAS; v++)
				EXPECT(P_VMA_EXCL, !vma_is_write_locked(&vmas[v], &mm),
				       "VMA %u still write-locked after downgrade", v);
			mmap_read_unlock(&mm);
		} else {
			mmap_write_unlock(&mm);
			EXPECT(P_MMAP_SEQ, __atomic_load_n(&mm.seq, __ATOMIC_ACQUIRE) > s0,
			       "mmap_write_unlock did not bump seq");
		}
		EXPECT(P_MMAP_LOCK, !rwsem_held(&mm.sem), "mmap writer %u still holds it", id);
	}
}

static void vma_reader(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	struct prng p = {0x5000 + id};

	for (unsigned long it = 0; it < iters; it++) {
		unsigned v = (unsigned)prng_below(&p, NVMAS);
		struct vma_lock *vl = &vmas[v];
		bool ok;

		rcu_read_lock(); /* as lock_vma_under_rcu */
		ok = vma_start_read(vl, &mm);
		rcu_read_unlock();
		if (ok) {
			count(&n_vma_ok, 1);
			__atomic_fetch_add(&vma_readers[v], 1, __ATOMIC_ACQ_REL);
			for (int k = 0; k < 3; k++) {
				EXPECT(P_VMA_EXCL, load_int(&vma_wflag[v]) == 0,
				       "VMA %u read-locked while a writer has it write-locked", v);
				EXPECT(P_VMA_EXCL, !vma_is_write_locked(vl, &mm),
				       "VMA %u read-locked and write-locked", v);
				EXPECT(P_VMA_EXCL,
				       !__atomic_load_n(&vl->detached, __ATOMIC_ACQUIRE),
				       "VMA %u read-locked while detached", v);
				sched_point("vma reader");
			}
			EXPECT(P_VMA_CHECK, sync_check_vma_lock(vl, &mm), "VMA %u", v);
			__atomic_fetch_sub(&vma_readers[v], 1, __ATOMIC_ACQ_REL);
			vma_end_read(vl);
			continue;
		}
		/* the fallback: the mmap read lock */
		count(&n_vma_fail, 1);
		if (it % 2 != 0 || !mmap_read_trylock(&mm))
			mmap_read_lock(&mm);
		{
			uint64_t s = __atomic_load_n(&mm.seq, __ATOMIC_ACQUIRE);

			EXPECT(P_MMAP_LOCK,
			       rwsem_held(&mm.sem) && !rwsem_held_write(&mm.sem) &&
				   !rwsem_is_write_locked(&mm.sem),
			       "VMA reader %u: mmap read lock not held as it should", id);
			for (unsigned w = 0; w < NVMAS; w++) {
				EXPECT(P_VMA_EXCL, !vma_is_write_locked(&vmas[w], &mm),
				       "VMA %u write-locked under the mmap read lock", w);
				EXPECT(P_VMA_CHECK, sync_check_vma_lock(&vmas[w], &mm), "VMA %u",
				       w);
			}
			sched_point("mmap reader");
			EXPECT(P_MMAP_SEQ, __atomic_load_n(&mm.seq, __ATOMIC_ACQUIRE) == s,
			       "mmap seq moved under the read lock");
		}
		mmap_read_unlock(&mm);
	}
}

static void node_count(void *obj, void *arg)
{
	(void)obj;
	(*(uint64_t *)arg)++;
}

static void stress(bool no_grace)
{
	struct thread th[10];
	unsigned n = 0, fill_errors = 0;

	mt_init(&mt);
	mt_set_rcu(&mt, true);
	rwsem_init(&tree_lock, &lock_class_tree, "tree");
	mmap_lock_init(&mm, "mm");
	for (unsigned v = 0; v < NVMAS; v++)
		vma_lock_init(&vmas[v], false);
	/* every cell full to start with */
	down_write(&tree_lock);
	for (uint64_t c = 0; c < NCELLS; c++) {
		void *e = entry_of(c, 3u << 12);

		if (mt_store_range(&mt, c * CELL, (c + 1) * CELL - 1, e) == 0)
			ref_set(c * CELL, (c + 1) * CELL - 1, e);
		else
			fill_errors++;
	}
	up_write(&tree_lock);
	check(fill_errors == 0 && mt_count_entries(&mt) == NCELLS,
	      "the tree is filled with one entry per cell (%llu entries)",
	      (unsigned long long)mt_count_entries(&mt));
	store_int(&writers_running, 2);
	if (no_grace)
		rcu_set_deferred(false);

	for (unsigned i = 0; i < 2; i++)
		spawn(&th[n++], tree_writer, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < 2; i++)
		spawn(&th[n++], rcu_reader, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < 2; i++)
		spawn(&th[n++], locked_reader, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < 2; i++)
		spawn(&th[n++], mmap_writer, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < 2; i++)
		spawn(&th[n++], vma_reader, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < n; i++)
		join(&th[i]);
	rcu_set_deferred(true);

	for (unsigned pr = 0; pr < P_NR; pr++)
		check(__atomic_load_n(&prop_errors[pr], __ATOMIC_RELAXED) == 0, "%s (%u errors)",
		      prop_name[pr], prop_errors[pr]);

	/* the end state, single-threaded */
	{
		uint64_t bad = 0, nodes = 0;

		for (uint64_t i = 0; i < SPAN; i++)
			bad += mt_load(&mt, i) != ref[i];
		check(bad == 0, "the final tree equals the reference map (%llu indices differ)",
		      (unsigned long long)bad);
		check(mt_validate(&mt), "the final tree is valid");
		alloc_for_each_live(AK_MT_NODE, node_count, &nodes);
		check(nodes == mt_count_nodes(&mt),
		      "live nodes equal reachable nodes (%llu live, %llu reachable)",
		      (unsigned long long)nodes, (unsigned long long)mt_count_nodes(&mt));
		check(rcu_pending(AK_MT_NODE) == 0, "no retired node is left pending");
	}
	down_write(&tree_lock);
	mt_destroy(&mt);
	up_write(&tree_lock);
	check(alloc_live(AK_MT_NODE) == 0, "every node is freed after mt_destroy");

	for (unsigned v = 0; v < NVMAS; v++)
		vma_lock_destroy(&vmas[v]);
	mmap_lock_destroy(&mm);
	rwsem_destroy(&tree_lock);

	printf("stress: %lu iterations per thread; %llu RCU walks saw %llu entries; "
	       "vma_start_read %llu ok, %llu refused; %llu mmap downgrades; "
	       "mmap lock seen contended %llu times\n",
	       iters, (unsigned long long)n_walks, (unsigned long long)n_walked,
	       (unsigned long long)n_vma_ok, (unsigned long long)n_vma_fail,
	       (unsigned long long)n_downgrades, (unsigned long long)n_contended);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: tsan_stress [SCALE] [--no-grace]\n"
		     "  SCALE       1..1000, iterations per thread in units of 2000 (default 1)\n"
		     "  --no-grace  free retired nodes with no grace period (test only:\n"
		     "              ThreadSanitizer must report the readers)\n");
}

int main(int argc, char **argv)
{
	unsigned long scale = 1;
	bool no_grace = false;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--no-grace")) {
			no_grace = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			scale = strtoul(argv[i], &end, 10);
			if (*end || scale < 1 || scale > 1000) {
				fprintf(stderr, "tsan_stress: bad argument '%s'\n", argv[i]);
				usage(stderr);
				return 2;
			}
		}
	}
	iters = 2000 * scale;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sync_threads_set_yield(7);

	semantics_rwsem();
	semantics_mmap_vma();
	semantics_rcu();
	semantics_rcu_batched();
	stress(no_grace);

	sync_thread_exit();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
