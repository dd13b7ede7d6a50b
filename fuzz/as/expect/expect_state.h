/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectation's state (expect.h says what it is for): the expected
 * pages of each followed process, the calls in flight and what the last
 * comparison saw. Its users allocate it; expect_edit.h is how the files
 * that write down what calls leave change it.
 */
#ifndef VMAFUZZ_EXPECT_STATE_H
#define VMAFUZZ_EXPECT_STATE_H

#include "expect_map.h"
#include "fuzz/as/as_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/tree/mtref.h"

#include <stdbool.h>
#include <stdint.h>

/* A process's default lock flags that are not known (mlockall calls that
 * ran side by side). */
#define EXP_DEF_VAGUE (1ull << 63)

/* Calls in flight at once, at most (fibers, and a prologue's). */
#define EXP_CALLS 8

/* A call in flight: what it reads and writes of the expectation. */
struct exp_call {
	bool used, conflicted;
	uint16_t rmaps, wmaps;	     /* processes whose pages it reads, writes */
	uint16_t rfds, wfds;	     /* processes whose fd table it reads, writes */
	bool robj, wobj;	     /* shared data it reads, writes */
	uint64_t lo, hi;	     /* the pages it reads and writes: [lo, hi) */
	uint64_t grow_hi;	     /* a touch: the pages a stack growth may map end here */
	uint64_t reach_lo;	     /* the lowest page it looks at: lo, or for a touch with a
				      * hole the guard gap below it (what lies there decides
				      * whether a stack grows) */
	uint64_t touch_lo, touch_hi; /* the pages of touches with a hole that ran beside it
				      * (a stack it left may have grown to them) */
	bool hole;		     /* a touch that reaches a hole (a stack may grow there) */
	bool maps;		     /* an mmap or mremap: may map new memory in its range */
	bool touch, unmaps;	     /* a touch; a call that may leave a hole in its range */
	uint16_t me;		     /* its process, as a bit */
	bool beside_maps;	     /* such a call ran beside it */
	uint32_t gen;		     /* its process's generation when it began */
	bool fork;		     /* a fork: reads the parent, writes only its fds */
	bool fork_beside;	     /* a fork that hands out fds ran beside it */
	uint64_t dirty_lo, dirty_hi; /* fork: what others changed in the parent */
	bool fds_dirty;		     /* fork: others changed the parent's fds */
	bool room;		     /* fork: a process slot was free when it began */
	uint32_t fds[MMF_FDS];	     /* exit: the fds it closes; userfaultfd calls:
				      * fds[0], what their slot held */
};

struct as_expect {
	struct mtref map[MMF_MAX_PROCS];     /* page number -> record (expect_map.h) */
	bool live[MMF_MAX_PROCS];	     /* followed: known to exist */
	bool alien[MMF_MAX_PROCS];	     /* exists, not followed (its fork was unclear) */
	uint32_t gen[MMF_MAX_PROCS];	     /* changes when a slot's process does */
	bool limited[MMF_MAX_PROCS];	     /* map_limit ran: splits may fail */
	uint64_t def_lock[MMF_MAX_PROCS];    /* mlockall(MCL_FUTURE): later mappings' lock flags,
					      * or EXP_DEF_VAGUE: not known */
	uint32_t fd[MMF_MAX_PROCS][MMF_FDS]; /* a context, 0, or vague (expect_map.h) */
	unsigned kver;	     /* the kernel version the model follows (src/mm/kver.h) */
	struct exp_store st; /* records, objects, contexts */
	struct exp_call call[EXP_CALLS];
	struct as_vma *view; /* scratch for a check */
	bool moved_beside;   /* a touch's end: an mmap or mremap ran beside it */
	unsigned nview;
	/* what a process's last comparison saw: nothing changed on either side
	 * since, it is not compared again (expect_check.c) */
	uint64_t mapgen[MMF_MAX_PROCS];	 /* changes of its expected pages */
	uint64_t datagen[MMF_MAX_PROCS]; /* ... of what they hold alone */
	struct exp_compared {
		bool vmas, data; /* compared; then the counts: */
		uint64_t mapgen, datagen, objgen;
		uint64_t vma_changes, page_changes; /* the backend's */
	} compared[MMF_MAX_PROCS];
};

#endif
