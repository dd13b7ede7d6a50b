/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks and RCU of the model, with the kernel's semantics where the seeds
 * depend on them. Two backends implement this interface:
 *   - sync.c: on the fibers of sched.h, with checks (deadlock, declared lock
 *     order, lock held when a fiber ends, sleeping lock inside an RCU read
 *     section, unlock of a lock not held, VMA lock misuse). Fuzz targets use
 *     only this one.
 *   - threads/sync_threads.c: on real threads (pthreads, liburcu), for
 *     ThreadSanitizer stress runs and latency benchmarks.
 * The mmap lock and the per-VMA locks below are built on the rwsems once,
 * for both (mmap_lock.c, with the backend hooks of sync_backend.h).
 *
 * Every acquire, release and RCU boundary is a scheduling point.
 */
#ifndef VMAFUZZ_SYNC_H
#define VMAFUZZ_SYNC_H

#include "runtime/alloc.h"
#include <stdbool.h>
#include <stdint.h>

/*
 * Lock classes and their declared order: a lock may be taken only while
 * every lock held is of a lower rank, as in mm/rmap.c's ordering comment
 * (mmap_lock, then a VMA's lock, then i_mmap, then anon_vma). A second lock
 * of the same class needs a higher subclass (fork takes the parent's and
 * the child's mmap_lock).
 */
struct lock_class {
	const char *name;
	unsigned rank;
};

extern const struct lock_class lock_class_mmap;
extern const struct lock_class lock_class_vma;
extern const struct lock_class lock_class_i_mmap;
extern const struct lock_class lock_class_anon_vma;
extern const struct lock_class lock_class_uffd;
extern const struct lock_class lock_class_tree; /* fuzz_mtree's tree lock */

/* A reader/writer semaphore (the kernel's rwsem): writers exclude everyone;
 * a reader waits while a writer holds it or waits for it (no writer
 * starvation); waiters are served in arrival order. */
struct rwsem {
	const struct lock_class *cls;
	const char *name;
	int readers;  /* readers holding it */
	void *writer; /* struct fiber * holding it for write */
	unsigned wait_readers, wait_writers;
	void *impl; /* backend data (threads backend) */
};

void rwsem_init(struct rwsem *s, const struct lock_class *cls, const char *name);
/* SYNC_RWSEM_STATE: @s is held by one writer or by readers, never both, and
 * by no negative count of readers. Every acquisition checks it after it
 * takes the lock (a trylock that let a reader in beside a writer breaks no
 * other check until two of them touch the same data). */
bool rwsem_check(const struct rwsem *s);
void rwsem_destroy(struct rwsem *s);
void down_read(struct rwsem *s);
void up_read(struct rwsem *s);
void down_write(struct rwsem *s);
void down_write_nested(struct rwsem *s, unsigned subclass);
void up_write(struct rwsem *s);
bool down_read_trylock(struct rwsem *s);
bool down_write_trylock(struct rwsem *s);
void downgrade_write(struct rwsem *s);
/* Someone is waiting for it (the rollup reader drops the mmap lock then). */
bool rwsem_is_contended(struct rwsem *s);
bool rwsem_is_write_locked(struct rwsem *s);
/* The running fiber holds it (for write / at all). */
bool rwsem_held_write(struct rwsem *s);
bool rwsem_held(struct rwsem *s);

/*
 * The mmap lock with the sequence number that ends per-VMA write locks: a
 * VMA is write-locked while its seq equals the mm's, and releasing (or
 * downgrading) the mmap write lock bumps the mm's seq, ending them all.
 */
struct mmap_lock {
	struct rwsem sem;
	uint64_t seq;
};

void mmap_lock_init(struct mmap_lock *m, const char *name);
void mmap_lock_destroy(struct mmap_lock *m);
void mmap_read_lock(struct mmap_lock *m);
bool mmap_read_trylock(struct mmap_lock *m);
void mmap_read_unlock(struct mmap_lock *m);
void mmap_write_lock(struct mmap_lock *m);
void mmap_write_lock_nested(struct mmap_lock *m, unsigned subclass);
void mmap_write_unlock(struct mmap_lock *m);
void mmap_write_downgrade(struct mmap_lock *m);
bool mmap_lock_is_contended(struct mmap_lock *m);

/*
 * Per-VMA locks. vma_start_write (mmap write lock held) waits for the
 * VMA's readers and marks it write-locked until the mmap write lock ends;
 * vma_start_read is a trylock that fails if the VMA is write-locked,
 * detached, or its lock is taken.
 */
struct vma_lock {
	struct rwsem sem;
	uint64_t seq;
	bool detached;
};

void vma_lock_init(struct vma_lock *v, bool detached);
void vma_lock_destroy(struct vma_lock *v);
void vma_start_write(struct vma_lock *v, struct mmap_lock *m);
bool vma_start_read(struct vma_lock *v, struct mmap_lock *m);
void vma_end_read(struct vma_lock *v);
bool vma_is_write_locked(const struct vma_lock *v, const struct mmap_lock *m);
void vma_mark_detached(struct vma_lock *v, struct mmap_lock *m, bool detached);
/* Whether the VMA was detached (readable without its lock). */
bool vma_is_detached(const struct vma_lock *v);
/* No reader holds a VMA that is write-locked (SYNC_VMA_LOCK). */
bool sync_check_vma_lock(struct vma_lock *v, const struct mmap_lock *m);

/*
 * The kernel's lock assertions (mmap_assert_locked, mmap_assert_write_locked,
 * vma_assert_locked, vma_assert_write_locked, lockdep_assert_held): the
 * running fiber holds what the model's counterpart of a kernel function that
 * asserts it needs; false (after check_fail, SYNC_* family) otherwise.
 *   mmap_assert_locked          the mmap lock, read or write
 *   mmap_assert_write_locked    the mmap write lock
 *   vma_assert_locked           the VMA's read lock, or the mmap lock (a fault
 *                               takes one or the other: assert_fault_locked)
 *   vma_assert_write_locked     the mmap write lock and the VMA write-locked
 *   mmap_assert_rcu_or_locked   RCU or the mmap lock (reading the VMA tree)
 *   lock_assert_held[_write]    any rwsem (i_mmap, anon_vma), by its class
 * Checks that read the whole state at rest, when no fiber is inside an
 * operation, take no lock (it would let fibers run): they turn the
 * assertions off around them.
 */
bool mmap_assert_locked(struct mmap_lock *m);
bool mmap_assert_write_locked(struct mmap_lock *m);
bool vma_assert_locked(struct vma_lock *v, struct mmap_lock *m);
bool vma_assert_write_locked(struct vma_lock *v, struct mmap_lock *m);
bool mmap_assert_rcu_or_locked(struct mmap_lock *m);
bool lock_assert_held(struct rwsem *s);
bool lock_assert_held_write(struct rwsem *s);
void lock_asserts_off(void);
void lock_asserts_on(void);

/*
 * RCU. Read sections nest per fiber. call_rcu_free() defers freeing an
 * object until every fiber that was inside a read section when it was
 * called has left it; the object is then freed for real, so a reader that
 * touches it later is caught by AddressSanitizer.
 */
void rcu_read_lock(void);
void rcu_read_unlock(void);
bool rcu_read_held(void);
void call_rcu_free(enum alloc_kind kind, void *obj, void (*free_fn)(void *obj));
/* Run every pending callback (no reader may remain). */
void rcu_barrier(void);
/*
 * Between two programs (fuzz/targets/exec.c): rcu_barrier(), then free the list of
 * pending callbacks, which otherwise keeps the size the busiest program
 * before gave it (fiber backend only).
 */
void rcu_between_programs(void);
/* Objects of @kind waiting for a grace period. */
uint64_t rcu_pending(enum alloc_kind kind);
/* Test-only: with deferral off, call_rcu_free frees at once. */
void rcu_set_deferred(bool on);

/* Publication and reading of RCU-protected pointers. */
#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

#endif
