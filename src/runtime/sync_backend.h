/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each backend of sync.h (sync.c on fibers, threads/sync_threads.c on
 * real threads) provides to the code they share: mmap_lock.c builds the
 * mmap lock and the per-VMA locks on the rwsems with these two hooks.
 */
#ifndef VMAFUZZ_SYNC_BACKEND_H
#define VMAFUZZ_SYNC_BACKEND_H

#include <stdbool.h>

/* sync.h's; not included, as sync.c includes this header (no include
 * circles, tests/layering.sh) */
struct rwsem;

/*
 * Take @s for read without waiting, as down_read_trylock does, but only if
 * @ok(@arg) holds before and with @s taken; false, @s not held, otherwise.
 * On fibers: a trylock, then @ok again (another fiber may run at the
 * trylock's scheduling point) and an up_read if it no longer holds. On
 * threads: the trylock and the second @ok under the rwsem's mutex, so no
 * thread ever sees a reader that is about to give up.
 */
bool down_read_trylock_if(struct rwsem *s, bool (*ok)(const void *arg), const void *arg);

/* Keep @s's reader count and writer still until rwsem_state_unlock, so that
 * they can be read together with other state: the rwsem's mutex on threads,
 * nothing on fibers (which switch only at scheduling points). */
void rwsem_state_lock(struct rwsem *s);
void rwsem_state_unlock(struct rwsem *s);

#endif
