/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the program asked of each process's window, kept beside the backend
 * and compared with it after every step: the second way of knowing an
 * operation's effect. A state can be self-consistent and wrong (an mprotect
 * that does nothing breaks no structural invariant); this says, from the
 * calls and their results alone, which pages of each process are mapped,
 * with which permissions (r w x), sharing, stack (growsdown), lock (locked,
 * lockonfault) and fork flags (dontcopy, wipeonfork) and file offset
 * (MM_EXPECTED_STATE), which userfaultfd
 * context each page is registered with and in which modes
 * (MM_EXPECTED_UFFD), and what each page holds (MM_EXPECTED_DATA: page
 * data, mm_ops.h), and reports when the backend's VMAs, resident pages or
 * a read show otherwise.
 *
 * Derived from the system calls' contracts, not from the model's code: a
 * successful mmap maps [result, result + len) as asked, replacing what was
 * there (locked with MAP_LOCKED or after mlockall(MCL_FUTURE), a stack
 * with MAP_GROWSDOWN); munmap unmaps; mremap shrinks, grows (new pages as
 * the mapping's next ones) or moves pages with what they hold and their
 * offsets (a private anonymous page's offset is then unknown: its VMA may
 * take the new place's), leaving the old range unmapped or, with
 * MREMAP_DONTUNMAP, mapped empty and unlocked; a move drops a userfaultfd
 * registration whose context lacks the remap event; mprotect sets r w x on
 * what is mapped; mlock, munlock, mlockall and munlockall set or clear the
 * lock flags; madvise's dontfork, dofork, wipeonfork and keeponfork set or
 * clear their flag, dontneed and dontneed_locked drop private data
 * (anonymous memory reads zero again, a private file page its file), free
 * leaves private anonymous data unknown (reclaim may drop it), cold,
 * pageout and the populates change nothing compared; a touch below a stack
 * grows it down to the page touched (zeros), unless the guard gap or
 * RLIMIT_STACK forbids it; fork gives the child the parent's pages but the
 * dontcopy ones, unlocked, private data copied, wipe-on-fork data zero,
 * shared data shared; userfaultfd registration keeps a context's modes where it has
 * every mode asked already, fork passes a registration on only with the
 * fork event, as a new context the parent's monitor receives in the order
 * of the pages that made it; closing a context unregisters it; exit empties
 * the process and closes its fds. Where a call's failure leaves a part open
 * (a failed MAP_FIXED may have unmapped, a failed mprotect or madvise may
 * have changed the VMAs before the one that failed, a failed touch may have
 * written some pages), the part is marked unknown and not compared until a
 * later call defines it again. Calls that run side by side on fibers and
 * touch the same part (the same pages of a process, its fd table, or shared
 * data) leave it unknown: their order is not known. A read is compared only
 * when nothing that could change what it read ran beside it.
 */
#ifndef VMAFUZZ_EXPECT_H
#define VMAFUZZ_EXPECT_H

#include "expect_state.h"
#include "fuzz/as/as_backend.h"
#include "fuzz/prog/mm_ops.h"

#include <stdbool.h>
#include <stdint.h>

/* p0 alive with nothing mapped, as every backend opens. */
void as_expect_init(struct as_expect *e);
void as_expect_free(struct as_expect *e);

/* The process c->a.proc is held for a call (just after the backend's get):
 * which process that is, for as_expect_begin. */
uint32_t as_expect_held(const struct as_expect *e, const struct mm_call *c);
/* The call starts, its range resolved (resolving may have let other calls
 * run), and the backend does not refuse it: returns what as_expect_end
 * needs back. */
unsigned as_expect_begin(struct as_expect *e, const struct mm_call *c, uint32_t held);
/* The call ended with c->result (@fired: an injected allocation failure
 * fired inside it), its process still held: what it asked is written down.
 * The backend is asked which process a fork made. A read's data is
 * compared here. */
void as_expect_end(struct as_expect *e, const struct as_backend *b, void *as,
		   const struct mm_call *c, unsigned begun, bool fired);
/* fuzz_fork's fork_every (an MMF_OP_FORK call): its child's new
 * userfaultfds reach no monitor and close at once. */
void as_expect_end_fork_nofd(struct as_expect *e, const struct as_backend *b, void *as,
			     const struct mm_call *c, unsigned begun);

/* Every followed process at rest against the backend's VMAs and pages. */
void as_expect_check(struct as_expect *e, const struct as_backend *b, void *as);

#endif
