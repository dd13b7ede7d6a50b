/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The real-thread backend of sync.h (sync_threads.c): pthreads for the
 * locks, liburcu (the urcu-memb flavour) for RCU. Used by ThreadSanitizer
 * stress runs and latency benchmarks; fuzz targets never link it. It is
 * linked instead of sched.c and sync.c, never together with them.
 *
 * What differs from the fiber backend:
 *   - sched_point() does nothing, or calls sched_yield() every Nth call of
 *     the calling thread (sync_threads_set_yield) to shake interleavings;
 *     sched_self() is a per-thread struct fiber (id, held locks, RCU depth,
 *     and so alloc.c's failure injector is per thread);
 *     sched_in_fiber() is false; the fiber scheduler itself (sched_init,
 *     sched_spawn, sched_run, sched_block, ...) aborts if called;
 *     sched_await() is a scheduling point that waits for nothing.
 *   - No lock-order (class rank) checks and no deadlock detection. Misuse
 *     that would hang or corrupt is still reported through check_fail():
 *     unlock of a lock not held, blocking lock (or a grace-period wait)
 *     inside an RCU read section, VMA write lock without the mmap write
 *     lock, locks or RCU held at sync_thread_exit().
 *   - Threads register with liburcu on their first RCU use; a thread that
 *     used RCU or call_rcu_free must call sync_thread_exit() before it ends
 *     (a thread-specific-data destructor does it otherwise).
 *   - call_rcu_free() does not hand the object to another thread: alloc.c is
 *     not thread-safe, so the object is freed by the thread that retired it,
 *     while it still holds the writer's lock. Objects retired while the
 *     thread holds a lock for write are kept on a per-thread list and freed
 *     after one synchronize_rcu() just before that thread releases (or
 *     downgrades) any lock it holds for write (batched, see
 *     sync_threads_set_batch_frees, the thread does not wait); retired with no write lock
 *     held, an object is freed at once after a synchronize_rcu(). With
 *     rcu_set_deferred(false) (test only) objects are freed at once with no
 *     grace period, as in the fiber backend: a racing reader is then a bug
 *     ThreadSanitizer reports.
 *   - rcu_barrier() flushes the calling thread's list only (others flush
 *     theirs at their next write unlock or at sync_thread_exit());
 *     rcu_pending(kind) counts the objects on every thread's list.
 *   - Grace periods are announced to ThreadSanitizer (rcu_read_unlock
 *     releases, the end of synchronize_rcu acquires, on one token), which
 *     liburcu's own synchronisation does not do.
 */
#ifndef VMAFUZZ_SYNC_THREADS_H
#define VMAFUZZ_SYNC_THREADS_H

#include "runtime/sync.h"

/* Flush the calling thread's pending frees, check it holds no lock and is
 * outside RCU (SYNC_HELD_AT_EXIT), unregister it from liburcu. */
void sync_thread_exit(void);

/* sched_point() calls sched_yield() on every @every-th call in each thread
 * (a per-thread counter, no clock or random source); 0, the default, makes
 * it a no-op. */
void sync_threads_set_yield(unsigned every);

/*
 * Keep up to @n retired objects per thread across write unlocks; the write
 * unlock that reaches @n hands them to a grace period (liburcu's call_rcu
 * thread marks it ended) without waiting, and every write unlock frees the
 * batches whose grace period has ended. So, as in the kernel, whose writers
 * call_rcu and go on, a writer never waits for a reader's RCU section.
 * sync_thread_exit() and rcu_barrier() wait for the thread's batches. Only
 * for programs whose allocating threads all write under one lock (alloc.c
 * is not thread-safe): latency benchmarks. 0, the default, frees at every
 * write unlock after a synchronize_rcu().
 */
void sync_threads_set_batch_frees(unsigned n);

/* Threads queued on @s (readers + writers), read under its lock: tests use
 * it to wait until a thread they started is blocked. */
unsigned sync_rwsem_waiters(struct rwsem *s);

#endif
