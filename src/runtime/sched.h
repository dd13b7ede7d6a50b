/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic fibers.
 *
 * A program's threads are fibers on one OS thread. The model calls
 * sched_point() at every lock acquire and release, every RCU read-side
 * boundary and inside long walks; there the running fiber stops and the
 * schedule says which runnable fiber goes on. The schedule reads its
 * choices from a byte string (the program's schedule region): at a point
 * where k > 1 fibers can run, one byte picks the (byte mod k)-th of them in
 * id order; when the bytes run out the rule is round robin (the next
 * runnable fiber after the current one), which keeps every fiber moving.
 * Points where only one fiber can run consume nothing. Same bytes, same
 * interleaving, every time.
 *
 * A fiber may also wait for events rather than for points (sched_await):
 * "until the others have released an i_mmap lock twice". Counting points
 * puts a thread at one place of another's run only if the count is exact,
 * and the counts that matter grow with everything the other thread does
 * first (a fork that fails at its 40th allocation comes after 39 failed
 * forks, each with points of its own); counting the releases of one lock
 * class, or of one lock, names the same place in a handful. The fiber
 * whose count completes runs next, without a schedule byte: the place it
 * waited for is where it goes on.
 *
 * A fiber that cannot take a lock blocks (sched_block) until another fiber
 * wakes it; when every live fiber is blocked the scheduler reports
 * SCHED_DEADLOCK. Code that runs outside any fiber (the harness between
 * programs, unit tests) runs on a "main" pseudo-fiber where scheduling
 * points do nothing.
 *
 * Stack switches are announced to AddressSanitizer so its reports and its
 * fake stacks stay right on fiber stacks.
 */
#ifndef VMAFUZZ_SCHED_H
#define VMAFUZZ_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCHED_MAX_FIBERS 8
#define SCHED_MAX_HELD 16	 /* locks one fiber may hold at once */
#define SCHED_TRACE 64		 /* scheduling decisions kept for reports */
#define SCHED_MAX_POINTS 2000000 /* a program passing more is stuck (SCHED_STEP_LIMIT) */

enum fiber_state { FIBER_UNUSED, FIBER_RUNNABLE, FIBER_BLOCKED, FIBER_DONE };

struct lock_class;

struct held_lock {
	const void *lock;
	const struct lock_class *cls;
	const char *name;
	uint8_t write;
	uint8_t subclass;
};

struct fiber {
	unsigned id;
	enum fiber_state state;
	void (*fn)(void *arg);
	void *arg;
	void *ctx; /* struct fiber_ctx (fiber_ctx.h), kept out of this header */
	void *stack;
	size_t stack_size;
	void *asan_fake_stack;
	const char *wait_what; /* what a blocked fiber waits for */
	const void *wait_on;
	unsigned rcu_depth; /* nesting of rcu_read_lock */
	unsigned nheld;
	struct held_lock held[SCHED_MAX_HELD];
	/* allocation failure injection armed by this fiber (alloc.h) */
	uint64_t fail_countdown, since_arm;
	uint8_t fail_then; /* after it fired: bit i fails the (i+1)th one after */
	bool fail_fired;
	/* sched_await: the event awaited and how many more of it */
	const void *await_key;
	unsigned await_left;
};

/* A switch: at scheduling point `point`, `fiber` ran after `prev` stopped at `what`. */
struct sched_trace {
	uint64_t point;
	uint8_t fiber, prev;
	const char *what;
};

struct sched {
	struct fiber fibers[SCHED_MAX_FIBERS];
	unsigned nfibers;
	struct fiber *current; /* NULL in the scheduler loop */
	const uint8_t *choices;
	size_t nchoices, used;
	uint64_t points; /* scheduling points passed */
	uint64_t switches;
	struct sched_trace trace[SCHED_TRACE];
	unsigned ntrace;
	bool stopped;	      /* a deadlock or step limit ended the run */
	unsigned held;	      /* sched_hold depth: no scheduling point switches */
	uint64_t digest;      /* hash of every decision: equal runs, equal digests */
	struct fiber *prefer; /* an awaiting fiber whose events came: it runs next */
	/* Called at every switch from one fiber to another (@from NULL at the
	 * first): a harness may turn interleavings into feedback. */
	void (*on_switch)(void *arg, const struct fiber *to, const struct fiber *from);
	void *on_switch_arg;
};

/* Start a schedule over @choices (may be NULL). */
void sched_init(struct sched *s, const uint8_t *choices, size_t nchoices);
/* Add a fiber running fn(arg) (fn NULL: an id that runs nothing); returns its id. */
unsigned sched_spawn(struct sched *s, void (*fn)(void *arg), void *arg);
/* Run fibers until every one has ended (true) or the run was stopped by a
 * deadlock or the step limit (false; reported through check_fail). */
bool sched_run(struct sched *s);
/* Release the fibers' resources (also after a stopped run). */
void sched_destroy(struct sched *s);

/* The fiber running now: a fiber of the active schedule, or the main
 * pseudo-fiber. */
struct fiber *sched_self(void);
bool sched_in_fiber(void);
/* A scheduling point: another runnable fiber may run before this returns. */
void sched_point(const char *what);
/*
 * A stretch in which scheduling points do not switch (nested): a check that
 * must see one moment of the state though the code it calls has points in
 * it (the kernel's mt_validate takes rcu_read_lock). Nothing may block
 * inside (SCHED_DEADLOCK).
 */
void sched_hold(void);
void sched_unhold(void);
/* Block the running fiber until sched_wake(); must be in a fiber. */
void sched_block(const char *what, const void *on);
void sched_wake(struct fiber *f);
/*
 * Block the running fiber until sched_event(@key) has happened @n times
 * (n 0 counts as 1) on other fibers; the one that completes the count makes
 * it the next fiber to run. Returns true then, false when the events could
 * no longer come (every other fiber ended or is blocked) and it went on
 * anyway. Must hold no lock (nothing may wait on an awaiting fiber). Outside
 * fibers it returns false at once.
 */
bool sched_await(const void *key, unsigned n, const char *what);
/* An event for the fibers awaiting @what or @which (the lock code calls it
 * at every release with the lock's class and the lock). */
void sched_event(const void *what, const void *which);
/* Fibers of the active schedule (NULL when none is running). */
struct sched *sched_active(void);

/* The interleaving so far and where each fiber stands. */
void sched_dump(FILE *out, const struct sched *s);

#endif
