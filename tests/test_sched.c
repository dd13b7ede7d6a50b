/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fibers, locks and RCU: each check of the concurrency family fires on a
 * program made to trigger it, the schedule bytes decide the interleaving
 * and replay it exactly, lock semantics (writer preference, contention,
 * downgrade, VMA locks) hold, and RCU frees wait for the readers.
 */
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "test.h"

#include <string.h>

static struct sched S;

/* Run fibers fn[i](arg[i]) under @choices; returns whether the run ended normally. */
static bool run(unsigned n, void (*const fn[])(void *), void *const arg[], const uint8_t *choices,
		size_t nchoices)
{
	bool ok;

	sched_init(&S, choices, nchoices);
	for (unsigned i = 0; i < n; i++)
		sched_spawn(&S, fn[i], arg[i]);
	ok = sched_run(&S);
	return ok;
}

static void collect(void)
{
	check_clear();
	check_set_mode(CHECK_COLLECT);
}

static unsigned collected(enum check_id id)
{
	unsigned n = check_count(id);

	check_set_mode(CHECK_ABORT);
	check_clear();
	return n;
}

/* ---- deadlock and lock order ------------------------------------------- */

static struct rwsem A, B;

static void take_ab(void *arg)
{
	(void)arg;
	down_write(&A);
	sched_point("between");
	down_write(&B);
	up_write(&B);
	up_write(&A);
}

static void take_ba(void *arg)
{
	(void)arg;
	down_write(&B);
	sched_point("between");
	down_write(&A);
	up_write(&A);
	up_write(&B);
}

static bool test_deadlock_between_two_fibers(void)
{
	static void (*const fn[])(void *) = {take_ab, take_ba};
	static void *const arg[] = {NULL, NULL};
	/* t0 takes A, t1 takes B, then each waits for the other */
	static const uint8_t sched_bytes[] = {0, 0, 1, 1, 0, 1, 0, 1};

	/* same class: no order complaint, only the deadlock */
	rwsem_init(&A, &lock_class_mmap, "A");
	rwsem_init(&B, &lock_class_mmap, "B");
	collect();
	ASSERT(!run(2, fn, arg, sched_bytes, sizeof(sched_bytes)));
	ASSERT_EQ(collected(CK_SCHED_DEADLOCK), 1);
	sched_destroy(&S);
	return true;
}

static bool test_lock_order_ab_ba_without_deadlock(void)
{
	static void (*const fn[])(void *) = {take_ab, take_ba};
	static void *const arg[] = {NULL, NULL};

	/* A ranks below B: B then A is against the declared order */
	rwsem_init(&A, &lock_class_mmap, "A");
	rwsem_init(&B, &lock_class_anon_vma, "B");
	collect();
	/* no schedule bytes and the round robin: t0 finishes first? not needed:
	 * run the two one after the other to show no deadlock is required */
	ASSERT(run(1, fn, arg, NULL, 0));
	sched_destroy(&S);
	ASSERT(run(1, fn + 1, arg, NULL, 0));
	sched_destroy(&S);
	ASSERT_EQ(check_count(CK_SCHED_DEADLOCK), 0);
	ASSERT_EQ(collected(CK_SYNC_LOCK_ORDER), 1);
	/* the right order alone is fine */
	collect();
	ASSERT(run(1, fn, arg, NULL, 0));
	sched_destroy(&S);
	ASSERT_EQ(collected(CK_SYNC_LOCK_ORDER), 0);
	return true;
}

/* ---- held at exit, unlock not held, sleep in RCU, unbalanced RCU -------- */

static void read_and_leave(void *arg)
{
	down_read(arg);
}

static void up_without_lock(void *arg)
{
	up_read(arg);
}

static void sleep_in_rcu(void *arg)
{
	rcu_read_lock();
	down_read(arg);
	up_read(arg);
	rcu_read_unlock();
}

static void trylock_in_rcu(void *arg)
{
	rcu_read_lock();
	if (down_read_trylock(arg))
		up_read(arg);
	rcu_read_unlock();
}

static void rcu_unlock_twice(void *arg)
{
	(void)arg;
	rcu_read_lock();
	rcu_read_unlock();
	rcu_read_unlock();
}

static bool fires_alone(void (*fn)(void *), void *arg, enum check_id id)
{
	void (*const f[])(void *) = {fn};
	void *const a[] = {arg};
	unsigned n;

	collect();
	run(1, f, a, NULL, 0);
	n = check_count(id);
	collected(id);
	sched_destroy(&S);
	return n > 0;
}

static void read_trylock_once(void *arg)
{
	if (down_read_trylock(arg))
		up_read(arg);
}

/* SYNC_RWSEM_STATE on forged states: every acquisition checks the lock it
 * took, and a correct acquisition never makes one of these. */
static bool test_rwsem_state_fires(void)
{
	struct rwsem s;
	int me;

	rwsem_init(&s, &lock_class_mmap, "S");
	collect();
	ASSERT(rwsem_check(&s));
	s.readers = 2;
	ASSERT(rwsem_check(&s));
	s.writer = &me; /* a writer beside two readers */
	ASSERT(!rwsem_check(&s));
	s.readers = 0;
	ASSERT(rwsem_check(&s));
	s.writer = NULL;
	s.readers = -1;
	ASSERT(!rwsem_check(&s));
	ASSERT_EQ(check_count(CK_SYNC_RWSEM_STATE), 2);
	collected(CK_SYNC_RWSEM_STATE);
	/* and an acquisition checks the lock it took: a reader joining a count
	 * gone negative leaves it negative */
	s.readers = -2;
	ASSERT(fires_alone(read_trylock_once, &s, CK_SYNC_RWSEM_STATE));
	return true;
}

/* The trylocks refuse what the lock's holder excludes: a reader beside a
 * writer, a writer beside a writer or a reader. */
static bool trylocks_right;

static void trylocks(void *arg)
{
	struct rwsem *s = arg;

	trylocks_right = true;
	down_write(s);
	if (down_read_trylock(s)) {
		trylocks_right = false;
		up_read(s);
	}
	if (down_write_trylock(s)) {
		trylocks_right = false;
		up_write(s);
	}
	up_write(s);
	down_read(s);
	if (down_write_trylock(s)) {
		trylocks_right = false;
		up_write(s);
	}
	up_read(s);
	if (!down_write_trylock(s))
		trylocks_right = false;
	else
		up_write(s);
}

static bool test_trylocks_refuse(void)
{
	void (*const f[])(void *) = {trylocks};
	void *const a[] = {&A};

	rwsem_init(&A, &lock_class_mmap, "A");
	collect();
	ASSERT(run(1, f, a, NULL, 0));
	sched_destroy(&S);
	ASSERT_EQ(collected(CK_SYNC_RWSEM_STATE), 0);
	ASSERT(trylocks_right);
	ASSERT(!A.readers && !A.writer);
	return true;
}

static bool test_single_fiber_checks_fire(void)
{
	rwsem_init(&A, &lock_class_mmap, "A");
	ASSERT(fires_alone(read_and_leave, &A, CK_SYNC_HELD_AT_EXIT));
	rwsem_init(&A, &lock_class_mmap, "A");
	ASSERT(fires_alone(up_without_lock, &A, CK_SYNC_UNLOCK_NOT_HELD));
	ASSERT(fires_alone(sleep_in_rcu, &A, CK_SYNC_SLEEP_IN_RCU));
	ASSERT(!fires_alone(trylock_in_rcu, &A, CK_SYNC_SLEEP_IN_RCU));
	ASSERT(fires_alone(rcu_unlock_twice, NULL, CK_SYNC_RCU_UNBALANCED));
	ASSERT(!fires_alone(trylock_in_rcu, &A, CK_SYNC_RCU_UNBALANCED));
	return true;
}

/* ---- a program that never ends ---------------------------------------- */

static void spin_points(void *arg)
{
	unsigned long n = *(const unsigned long *)arg;

	for (unsigned long i = 0; i < n; i++)
		sched_point("spin");
}

static bool test_step_limit_stops_a_spinning_fiber(void)
{
	static void (*const fn[])(void *) = {spin_points};
	unsigned long forever = ~0ul, under = SCHED_MAX_POINTS - 1000;
	void *const endless[] = {&forever}, *const bounded[] = {&under};

	/* a fiber that would pass points forever is stopped once, at the limit */
	collect();
	ASSERT(!run(1, fn, endless, NULL, 0));
	ASSERT_EQ(collected(CK_SCHED_STEP_LIMIT), 1);
	sched_destroy(&S);
	/* just under the limit, the run ends normally */
	collect();
	ASSERT(run(1, fn, bounded, NULL, 0));
	ASSERT_EQ(collected(CK_SCHED_STEP_LIMIT), 0);
	sched_destroy(&S);
	return true;
}

/* ---- VMA locks ----------------------------------------------------------- */

static struct mmap_lock M;
static struct vma_lock V;
static bool read_ok_while_locked, read_ok_after;

static void vma_writer(void *arg)
{
	(void)arg;
	mmap_write_lock(&M);
	vma_start_write(&V, &M);
	sched_point("vma write-locked");
	sched_point("vma write-locked");
	mmap_write_unlock(&M);
}

static void vma_reader(void *arg)
{
	(void)arg;
	sched_point("reader waits");
	read_ok_while_locked = vma_start_read(&V, &M);
	if (read_ok_while_locked)
		vma_end_read(&V);
	sched_point("reader waits");
	sched_point("reader waits");
	sched_point("reader waits");
	read_ok_after = vma_start_read(&V, &M);
	if (read_ok_after)
		vma_end_read(&V);
}

static bool test_vma_locks(void)
{
	static void (*const fn[])(void *) = {vma_writer, vma_reader};
	static void *const arg[] = {NULL, NULL};

	mmap_lock_init(&M, "mmap_lock");
	vma_lock_init(&V, false);
	/* no bytes: round robin interleaves writer and reader point by point */
	ASSERT(run(2, fn, arg, NULL, 0));
	sched_destroy(&S);
	ASSERT(!read_ok_while_locked);
	ASSERT(read_ok_after);
	ASSERT(!vma_is_write_locked(&V, &M));

	/* a reader holding a VMA that is write-locked: the state broken by hand */
	vma_lock_init(&V, false);
	ASSERT(vma_start_read(&V, &M));
	V.seq = M.seq;
	collect();
	ASSERT(!sync_check_vma_lock(&V, &M));
	ASSERT_EQ(collected(CK_SYNC_VMA_LOCK), 1);
	V.seq = UINT64_MAX;
	vma_end_read(&V);

	/* write-locking a VMA without the mmap write lock */
	collect();
	vma_start_write(&V, &M);
	ASSERT_EQ(collected(CK_SYNC_VMA_LOCK), 1);
	/* a detached VMA cannot be read-locked */
	vma_lock_init(&V, true);
	ASSERT(!vma_start_read(&V, &M));
	return true;
}

/* ---- rwsem semantics ------------------------------------------------------ */

static struct rwsem R;
static int order[16], norder;
static bool contended_seen;

static void reader_long(void *arg)
{
	down_read(&R);
	order[norder++] = (int)(long)arg;
	for (int i = 0; i < 4; i++)
		sched_point("reading");
	contended_seen = rwsem_is_contended(&R);
	up_read(&R);
}

static void writer(void *arg)
{
	sched_point("writer arrives");
	down_write(&R);
	order[norder++] = (int)(long)arg;
	downgrade_write(&R);
	sched_point("downgraded");
	up_read(&R);
}

static void late_reader(void *arg)
{
	sched_point("late reader arrives");
	sched_point("late reader arrives");
	down_read(&R);
	order[norder++] = (int)(long)arg;
	up_read(&R);
}

static bool test_writer_preference_and_contention(void)
{
	static void (*const fn[])(void *) = {reader_long, writer, late_reader};
	static void *const arg[] = {(void *)1L, (void *)2L, (void *)3L};

	rwsem_init(&R, &lock_class_mmap, "R");
	norder = 0;
	ASSERT(run(3, fn, arg, NULL, 0));
	sched_destroy(&S);
	/* the late reader queues behind the waiting writer */
	ASSERT_EQ(norder, 3);
	ASSERT_EQ(order[0], 1);
	ASSERT_EQ(order[1], 2);
	ASSERT_EQ(order[2], 3);
	ASSERT(contended_seen);
	ASSERT(!R.readers && !R.writer);
	return true;
}

/* ---- determinism ---------------------------------------------------------- */

static char log_buf[4096];
static size_t log_len;

static void chatter(void *arg)
{
	for (int i = 0; i < 20; i++) {
		log_buf[log_len++] = (char)('a' + (long)arg);
		if (i % 3 == 0) {
			down_write(&R);
			sched_point("in lock");
			up_write(&R);
		} else {
			sched_point("chatter");
		}
	}
}

static bool test_same_bytes_same_interleaving(void)
{
	static void (*const fn[])(void *) = {chatter, chatter, chatter};
	static void *const arg[] = {(void *)0L, (void *)1L, (void *)2L};
	uint8_t bytes[40];
	char first[4096];

	for (unsigned i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 37 + 11);
	for (int k = 0; k < 100; k++) {
		rwsem_init(&R, &lock_class_mmap, "R");
		log_len = 0;
		ASSERT(run(3, fn, arg, bytes, sizeof(bytes)));
		sched_destroy(&S);
		log_buf[log_len] = 0;
		if (k == 0)
			strcpy(first, log_buf);
		else
			ASSERT(!strcmp(first, log_buf));
	}
	/* and other bytes give another interleaving */
	bytes[0] ^= 1;
	bytes[1] ^= 1;
	rwsem_init(&R, &lock_class_mmap, "R");
	log_len = 0;
	ASSERT(run(3, fn, arg, bytes, sizeof(bytes)));
	sched_destroy(&S);
	log_buf[log_len] = 0;
	ASSERT(strcmp(first, log_buf) != 0);
	return true;
}

/* ---- awaiting events ------------------------------------------------------ */

static struct rwsem L, Lm;
static bool await_ret;
static unsigned await_n;

static void releaser(void *arg)
{
	(void)arg;
	for (int i = 1; i <= 5; i++) {
		/* another class in between: not counted */
		down_write(&Lm);
		up_write(&Lm);
		down_write(&L);
		log_buf[log_len++] = (char)('0' + i);
		up_write(&L);
	}
}

static void awaiter(void *arg)
{
	(void)arg;
	await_ret = sched_await(&lock_class_i_mmap, await_n, "test await");
	log_buf[log_len++] = 'A';
}

static void await_holding(void *arg)
{
	(void)arg;
	down_read(&Lm);
	await_ret = sched_await(&lock_class_i_mmap, 1, "test await");
	up_read(&Lm);
}

static bool await_run(unsigned n, const uint8_t *bytes, size_t nbytes, const char *want)
{
	static void (*const fn[])(void *) = {releaser, awaiter};
	static void *const arg[] = {NULL, NULL};

	rwsem_init(&L, &lock_class_i_mmap, "L");
	rwsem_init(&Lm, &lock_class_mmap, "M");
	log_len = 0;
	await_n = n;
	ASSERT(run(2, fn, arg, bytes, nbytes));
	sched_destroy(&S);
	log_buf[log_len] = 0;
	if (strcmp(log_buf, want))
		fprintf(stderr, "log %s, want %s\n", log_buf, want);
	ASSERT(!strcmp(log_buf, want));
	return true;
}

/* The awaiting fiber runs right after the n-th release of the class by the
 * others, whatever the schedule bytes say; when the releases can no longer
 * come it goes on, with false, and no deadlock is reported. */
static bool test_await_runs_after_the_nth_release(void)
{
	/* the first byte starts the awaiter; then the bytes favour the releaser */
	static const uint8_t zeros[64] = {1}, ones[] = {1, 1, 1, 1, 1, 1, 1, 1},
			     mixed[] = {1, 0, 1, 0, 0, 1};

	ASSERT(await_run(3, zeros, sizeof(zeros), "123A45"));
	ASSERT(await_ret);
	ASSERT(await_run(3, ones, sizeof(ones), "123A45"));
	ASSERT(await_run(1, mixed, sizeof(mixed), "1A2345"));
	ASSERT(await_run(0, NULL, 0, "1A2345")); /* n 0 counts as 1 */
	ASSERT(await_run(5, NULL, 0, "12345A"));
	ASSERT(await_ret);
	collect();
	ASSERT(await_run(9, zeros, sizeof(zeros), "12345A"));
	ASSERT(!await_ret);
	ASSERT_EQ(collected(CK_SCHED_DEADLOCK), 0);
	/* outside any fiber there is nobody to wait for */
	ASSERT(!sched_await(&lock_class_i_mmap, 1, "main"));
	return true;
}

/* Nothing may wait on an awaiting fiber: awaiting with a lock held fires. */
static bool test_await_holding_a_lock_fires(void)
{
	static void (*const fn[])(void *) = {await_holding, releaser};
	static void *const arg[] = {NULL, NULL};

	rwsem_init(&L, &lock_class_i_mmap, "L");
	rwsem_init(&Lm, &lock_class_mmap, "M");
	log_len = 0;
	collect();
	run(2, fn, arg, NULL, 0);
	sched_destroy(&S);
	ASSERT_EQ(collected(CK_SCHED_DEADLOCK), 1);
	ASSERT(!await_ret);
	return true;
}

/* ---- RCU ------------------------------------------------------------------ */

static int *shared;
static int seen;
static bool writer_ok;

static void free_int(void *p)
{
	model_free(AK_OTHER, p);
}

static void rcu_reader(void *arg)
{
	int *p;

	(void)arg;
	rcu_read_lock();
	p = rcu_dereference(shared);
	sched_point("reader holds p");
	sched_point("reader holds p");
	seen = *p; /* freed too early: AddressSanitizer stops here */
	rcu_read_unlock();
}

static void rcu_writer(void *arg)
{
	int *old = shared, *p = model_alloc(AK_OTHER, sizeof(int));

	(void)arg;
	*p = 2;
	rcu_assign_pointer(shared, p);
	call_rcu_free(AK_OTHER, old, free_int);
	/* the reader still holds the old one */
	writer_ok = rcu_pending(AK_OTHER) == 1;
}

static bool test_rcu_free_waits_for_readers(void)
{
	static void (*const fn[])(void *) = {rcu_reader, rcu_writer};
	static void *const arg[] = {NULL, NULL};
	/* the reader takes the pointer, then the writer replaces and frees it */
	static const uint8_t bytes[] = {0, 0, 1};

	shared = model_alloc(AK_OTHER, sizeof(int));
	*shared = 1;
	seen = 0;
	ASSERT(run(2, fn, arg, bytes, sizeof(bytes)));
	sched_destroy(&S);
	ASSERT(writer_ok);
	ASSERT_EQ(seen, 1);
	ASSERT_EQ(rcu_pending(AK_OTHER), 0);
	ASSERT_EQ(alloc_live(AK_OTHER), 1);
	model_free(AK_OTHER, shared);
	return true;
}

int main(void)
{
	TEST(test_deadlock_between_two_fibers);
	TEST(test_lock_order_ab_ba_without_deadlock);
	TEST(test_single_fiber_checks_fire);
	TEST(test_step_limit_stops_a_spinning_fiber);
	TEST(test_vma_locks);
	TEST(test_rwsem_state_fires);
	TEST(test_trylocks_refuse);
	TEST(test_writer_preference_and_contention);
	TEST(test_same_bytes_same_interleaving);
	TEST(test_rcu_free_waits_for_readers);
	TEST(test_await_runs_after_the_nth_release);
	TEST(test_await_holding_a_lock_fires);
	return test_summary();
}
