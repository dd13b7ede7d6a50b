/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mmap lock and the per-VMA locks of sync.h, built on its rwsems, for
 * both backends (sync.c on fibers, threads/sync_threads.c on threads); what
 * must differ between them is behind the hooks of sync_backend.h.
 *
 * The sequence numbers and a VMA's detached flag are read by VMA-lock
 * readers that do not hold the mmap lock, hence the atomic loads and stores
 * (on fibers they are plain accesses in effect).
 */
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "runtime/sync_backend.h"

#include <stdint.h>

static uint64_t seq_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void seq_store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* ---- mmap lock ------------------------------------------------------------ */

void mmap_lock_init(struct mmap_lock *m, const char *name)
{
	rwsem_init(&m->sem, &lock_class_mmap, name);
	m->seq = 0;
}

void mmap_lock_destroy(struct mmap_lock *m)
{
	rwsem_destroy(&m->sem);
}

void mmap_read_lock(struct mmap_lock *m)
{
	down_read(&m->sem);
}

bool mmap_read_trylock(struct mmap_lock *m)
{
	return down_read_trylock(&m->sem);
}

void mmap_read_unlock(struct mmap_lock *m)
{
	up_read(&m->sem);
}

void mmap_write_lock(struct mmap_lock *m)
{
	down_write(&m->sem);
}

void mmap_write_lock_nested(struct mmap_lock *m, unsigned subclass)
{
	down_write_nested(&m->sem, subclass);
}

/* Ends every VMA write lock of this mm. Only the write holder may move the
 * seq; without the lock, the up_write or downgrade_write that follows
 * reports the misuse. */
static void bump_seq(struct mmap_lock *m)
{
	if (rwsem_held_write(&m->sem))
		seq_store(&m->seq, m->seq + 1);
}

void mmap_write_unlock(struct mmap_lock *m)
{
	bump_seq(m);
	up_write(&m->sem);
}

void mmap_write_downgrade(struct mmap_lock *m)
{
	bump_seq(m);
	downgrade_write(&m->sem);
}

bool mmap_lock_is_contended(struct mmap_lock *m)
{
	return rwsem_is_contended(&m->sem);
}

/* ---- per-VMA locks -------------------------------------------------------- */

void vma_lock_init(struct vma_lock *v, bool detached)
{
	rwsem_init(&v->sem, &lock_class_vma, "vma_lock");
	v->seq = UINT64_MAX; /* never equal to an mm's seq: not write-locked */
	v->detached = detached;
}

void vma_lock_destroy(struct vma_lock *v)
{
	rwsem_destroy(&v->sem);
}

bool vma_is_write_locked(const struct vma_lock *v, const struct mmap_lock *m)
{
	return seq_load(&v->seq) == seq_load(&m->seq);
}

bool sync_check_vma_lock(struct vma_lock *v, const struct mmap_lock *m)
{
	int readers;
	bool wlocked;

	/* together: while there are readers nobody can make the VMA
	 * write-locked, and under the state lock readers cannot come or go */
	rwsem_state_lock(&v->sem);
	readers = v->sem.readers;
	wlocked = vma_is_write_locked(v, m);
	rwsem_state_unlock(&v->sem);
	if (wlocked && readers > 0)
		return check_fail(CK_SYNC_VMA_LOCK,
				  "a VMA write-locked (seq %llu) has %d reader(s)",
				  (unsigned long long)seq_load(&v->seq), readers);
	return true;
}

void vma_start_write(struct vma_lock *v, struct mmap_lock *m)
{
	if (!rwsem_held_write(&m->sem))
		check_fail(CK_SYNC_VMA_LOCK, "t%u write-locks a VMA without the mmap write lock",
			   sched_self()->id);
	if (vma_is_write_locked(v, m))
		return;
	/* wait for the VMA's readers to leave; the seq is set before a new
	 * reader can take the lock, so none gets in until the mmap write lock
	 * ends */
	down_write(&v->sem);
	seq_store(&v->seq, seq_load(&m->seq));
	up_write(&v->sem);
	sync_check_vma_lock(v, m);
}

bool vma_is_detached(const struct vma_lock *v)
{
	return __atomic_load_n(&v->detached, __ATOMIC_ACQUIRE);
}

struct vma_read {
	const struct vma_lock *v;
	const struct mmap_lock *m;
};

static bool vma_readable(const void *arg)
{
	const struct vma_read *r = arg;

	return !vma_is_detached(r->v) && !vma_is_write_locked(r->v, r->m);
}

bool vma_start_read(struct vma_lock *v, struct mmap_lock *m)
{
	const struct vma_read r = {v, m};

	/* a writer may mark it while we take the lock: asked again then */
	if (!down_read_trylock_if(&v->sem, vma_readable, &r))
		return false;
	sync_check_vma_lock(v, m);
	return true;
}

void vma_end_read(struct vma_lock *v)
{
	up_read(&v->sem);
}

void vma_mark_detached(struct vma_lock *v, struct mmap_lock *m, bool detached)
{
	if (!vma_is_write_locked(v, m))
		check_fail(CK_SYNC_VMA_LOCK, "a VMA is %s without its write lock",
			   detached ? "detached" : "attached");
	__atomic_store_n(&v->detached, detached, __ATOMIC_RELEASE);
}

/* ---- the kernel's lock assertions ----------------------------------------- */

/* Checks at rest turn them off (sync.h). */
static int asserts_off;

void lock_asserts_off(void)
{
	__atomic_add_fetch(&asserts_off, 1, __ATOMIC_RELAXED);
}

void lock_asserts_on(void)
{
	__atomic_sub_fetch(&asserts_off, 1, __ATOMIC_RELAXED);
}

static bool asserting(void)
{
	return !__atomic_load_n(&asserts_off, __ATOMIC_RELAXED);
}

bool mmap_assert_locked(struct mmap_lock *m)
{
	if (!asserting() || rwsem_held(&m->sem))
		return true;
	return check_fail(CK_SYNC_MMAP_UNLOCKED, "t%u without %s (mmap_assert_locked)",
			  sched_self()->id, m->sem.name);
}

bool mmap_assert_write_locked(struct mmap_lock *m)
{
	if (!asserting() || rwsem_held_write(&m->sem))
		return true;
	return check_fail(CK_SYNC_MMAP_NOT_WRITE_LOCKED,
			  "t%u without %s for write%s (mmap_assert_write_locked)", sched_self()->id,
			  m->sem.name, rwsem_held(&m->sem) ? ", only for read" : "");
}

bool vma_assert_write_locked(struct vma_lock *v, struct mmap_lock *m)
{
	if (!asserting() || (rwsem_held_write(&m->sem) && vma_is_write_locked(v, m)))
		return true;
	return check_fail(
	    CK_SYNC_VMA_NOT_WRITE_LOCKED,
	    "t%u changes a VMA that is not write-locked (%s; vma_assert_write_locked)",
	    sched_self()->id,
	    rwsem_held_write(&m->sem) ? "no vma_start_write" : "no mmap write lock");
}

bool vma_assert_locked(struct vma_lock *v, struct mmap_lock *m)
{
	if (!asserting() || rwsem_held(&v->sem) || rwsem_held(&m->sem))
		return true;
	return check_fail(CK_SYNC_VMA_UNLOCKED,
			  "t%u reads a VMA's pages holding neither its lock nor %s "
			  "(vma_assert_locked)",
			  sched_self()->id, m->sem.name);
}

bool mmap_assert_rcu_or_locked(struct mmap_lock *m)
{
	if (!asserting() || rcu_read_held() || rwsem_held(&m->sem))
		return true;
	return check_fail(CK_SYNC_TREE_UNLOCKED,
			  "t%u reads the VMA tree outside RCU and without %s (find_vma)",
			  sched_self()->id, m->sem.name);
}

static enum check_id unlocked_id(const struct rwsem *s)
{
	if (s->cls == &lock_class_i_mmap)
		return CK_SYNC_I_MMAP_UNLOCKED;
	if (s->cls == &lock_class_anon_vma)
		return CK_SYNC_ANON_VMA_UNLOCKED;
	return s->cls == &lock_class_vma ? CK_SYNC_VMA_UNLOCKED : CK_SYNC_MMAP_UNLOCKED;
}

bool lock_assert_held(struct rwsem *s)
{
	if (!asserting() || rwsem_held(s))
		return true;
	return check_fail(unlocked_id(s), "t%u without %s (lockdep_assert_held)", sched_self()->id,
			  s->name);
}

bool lock_assert_held_write(struct rwsem *s)
{
	if (!asserting() || rwsem_held_write(s))
		return true;
	return check_fail(unlocked_id(s), "t%u without %s for write (lockdep_assert_held_write)",
			  sched_self()->id, s->name);
}
