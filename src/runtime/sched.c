/* SPDX-License-Identifier: GPL-2.0 */
/* Deterministic fibers (sched.h), switched by fiber_ctx.h. */
#include "runtime/sched.h"

#include "runtime/check.h"
#include "runtime/fiber_ctx.h"

#include <inttypes.h>
#include <string.h>

#define STACK_SIZE (256u * 1024)

/* AddressSanitizer's fiber interface; absent (NULL) without ASan. */
extern void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size)
    __attribute__((weak));
extern void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
					    size_t *size_old) __attribute__((weak));
extern void __asan_unpoison_memory_region(void const volatile *addr, size_t size)
    __attribute__((weak));

static struct sched *active;
static struct fiber main_fiber = {.id = SCHED_MAX_FIBERS, .state = FIBER_RUNNABLE};
static struct fiber_ctx loop_ctx;
static struct fiber_ctx fiber_ctxs[SCHED_MAX_FIBERS];
/* In .bss, the same for every program from the process's start: mapping
 * them at first use made the first program that ran a fiber take a branch
 * no later one takes (a difference AFL++ counts as instability). */
static _Alignas(4096) unsigned char stacks[SCHED_MAX_FIBERS][STACK_SIZE];
static void *loop_fake_stack;
static const void *loop_stack_bottom;
static size_t loop_stack_size;
static unsigned runnable; /* fibers of the active schedule that can run */

static void start_switch(void **save, const void *bottom, size_t size)
{
	if (__sanitizer_start_switch_fiber)
		__sanitizer_start_switch_fiber(save, bottom, size);
}

static void finish_switch(void *save, const void **bottom_old, size_t *size_old)
{
	if (__sanitizer_finish_switch_fiber)
		__sanitizer_finish_switch_fiber(save, bottom_old, size_old);
}

struct sched *sched_active(void)
{
	return active;
}

struct fiber *sched_self(void)
{
	return active && active->current ? active->current : &main_fiber;
}

bool sched_in_fiber(void)
{
	return active && active->current;
}

void sched_init(struct sched *s, const uint8_t *choices, size_t nchoices)
{
	memset(s, 0, sizeof(*s));
	s->choices = choices;
	s->nchoices = nchoices;
}

static void fiber_entry(void)
{
	struct fiber *f = active->current;

	finish_switch(NULL, &loop_stack_bottom, &loop_stack_size);
	f->fn(f->arg);
	f->state = FIBER_DONE;
	runnable--;
	/* leave for good: NULL lets ASan drop this fiber's fake stack */
	start_switch(NULL, loop_stack_bottom, loop_stack_size);
	fiber_ctx_switch(f->ctx, &loop_ctx);
	MODEL_ASSERT(!"a finished fiber was resumed");
}

unsigned sched_spawn(struct sched *s, void (*fn)(void *arg), void *arg)
{
	unsigned id = s->nfibers;
	struct fiber *f = &s->fibers[id];
	struct fiber_ctx *ctx = &fiber_ctxs[id];

	MODEL_ASSERT(id < SCHED_MAX_FIBERS && !active);
	s->nfibers++;
	memset(f, 0, sizeof(*f));
	f->id = id;
	if (!fn) {
		/* a placeholder that keeps ids equal to the program's thread numbers */
		f->state = FIBER_DONE;
		return id;
	}
	/* an earlier program may have left ASan's marks on the stack */
	if (__asan_unpoison_memory_region)
		__asan_unpoison_memory_region(stacks[id], STACK_SIZE);
	f->state = FIBER_RUNNABLE;
	f->fn = fn;
	f->arg = arg;
	f->ctx = ctx;
	f->stack = stacks[id];
	f->stack_size = STACK_SIZE;
	fiber_ctx_make(ctx, f->stack, STACK_SIZE, fiber_entry);
	return id;
}

/* Whom the schedule runs next; NULL when nobody can run. */
static struct fiber *pick(struct sched *s, const struct fiber *last)
{
	struct fiber *can[SCHED_MAX_FIBERS], *want = s->prefer;
	unsigned k = 0, at = 0;

	s->prefer = NULL; /* good for the next decision only */
	for (unsigned i = 0; i < s->nfibers; i++)
		if (s->fibers[i].state == FIBER_RUNNABLE)
			can[k++] = &s->fibers[i];
	if (k <= 1)
		return k ? can[0] : NULL;
	if (want && want->state == FIBER_RUNNABLE)
		return want;
	if (s->used < s->nchoices)
		return can[s->choices[s->used++] % k];
	/* round robin: the first runnable fiber after the last one */
	while (at < k && last && can[at]->id <= last->id)
		at++;
	return can[at % k];
}

static void trace(struct sched *s, const struct fiber *f, const struct fiber *prev)
{
	struct sched_trace *t = &s->trace[s->ntrace++ % SCHED_TRACE];

	t->point = s->points;
	t->fiber = (uint8_t)f->id;
	t->prev = prev ? (uint8_t)prev->id : (uint8_t)f->id;
	t->what = prev ? prev->wait_what : "the start";
}

static void report_fibers(FILE *out, const struct sched *s)
{
	for (unsigned i = 0; i < s->nfibers; i++) {
		const struct fiber *f = &s->fibers[i];
		static const char *const states[] = {"unused", "runnable", "blocked", "done"};

		fprintf(out, "  t%u: %s", f->id, states[f->state]);
		if (f->state == FIBER_BLOCKED)
			fprintf(out, " in %s", f->wait_what);
		for (unsigned h = 0; h < f->nheld; h++)
			fprintf(out, "%s %s(%s)", h ? "," : ", holds", f->held[h].name,
				f->held[h].write ? "write" : "read");
		if (f->rcu_depth)
			fprintf(out, ", in RCU read section (depth %u)", f->rcu_depth);
		fputc('\n', out);
	}
}

void sched_dump(FILE *out, const struct sched *s)
{
	unsigned n = s->ntrace < SCHED_TRACE ? s->ntrace : SCHED_TRACE;

	fprintf(out, "fibers (%" PRIu64 " scheduling points, %zu of %zu schedule bytes used):\n",
		s->points, s->used, s->nchoices);
	report_fibers(out, s);
	fprintf(out, "last %u switches:\n", n);
	for (unsigned i = s->ntrace - n; i < s->ntrace; i++) {
		const struct sched_trace *t = &s->trace[i % SCHED_TRACE];

		if (t->prev == t->fiber)
			fprintf(out, "  point %" PRIu64 ": t%u starts\n", t->point, t->fiber);
		else
			fprintf(out, "  point %" PRIu64 ": t%u runs, t%u stopped at %s\n", t->point,
				t->fiber, t->prev, t->what ? t->what : "?");
	}
}

/* Nobody can run: fibers awaiting events go on without them (the events
 * could only come from a fiber that runs). */
static bool wake_awaiting(struct sched *s)
{
	bool woke = false;

	for (unsigned i = 0; i < s->nfibers; i++) {
		struct fiber *f = &s->fibers[i];

		if (f->state == FIBER_BLOCKED && f->await_key) {
			f->await_key = NULL;
			sched_wake(f);
			woke = true;
		}
	}
	return woke;
}

bool sched_run(struct sched *s)
{
	struct fiber *last = NULL;

	MODEL_ASSERT(!active);
	active = s;
	runnable = 0;
	for (unsigned i = 0; i < s->nfibers; i++)
		runnable += s->fibers[i].state == FIBER_RUNNABLE;
	while (!s->stopped) {
		struct fiber *f = pick(s, last);

		if (!f && wake_awaiting(s))
			continue;
		if (!f) {
			for (unsigned i = 0; i < s->nfibers; i++)
				if (s->fibers[i].state == FIBER_BLOCKED) {
					s->stopped = true;
					check_fail(CK_SCHED_DEADLOCK,
						   "every live fiber is blocked; "
						   "t%u waits in %s",
						   i, s->fibers[i].wait_what);
					break;
				}
			break;
		}
		s->digest = (s->digest ^ (s->points << 8 | f->id)) * 0x100000001b3ull;
		if (f != last) {
			s->switches++;
			trace(s, f, last);
			if (s->on_switch)
				s->on_switch(s->on_switch_arg, f, last);
		}
		last = f;
		s->current = f;
		start_switch(&loop_fake_stack, f->stack, f->stack_size);
		fiber_ctx_switch(&loop_ctx, f->ctx);
		finish_switch(loop_fake_stack, NULL, NULL);
		s->current = NULL;
		if (f->state == FIBER_DONE && (f->nheld || f->rcu_depth))
			check_fail(CK_SYNC_HELD_AT_EXIT, "t%u ended holding %u lock(s)%s%s", f->id,
				   f->nheld, f->nheld ? ", first " : "",
				   f->nheld ? f->held[0].name
					    : (f->rcu_depth ? " inside RCU" : ""));
	}
	active = NULL;
	return !s->stopped;
}

void sched_destroy(struct sched *s)
{
	MODEL_ASSERT(active != s);
	memset(s, 0, sizeof(*s));
}

/* Back to the scheduler loop from the running fiber. */
static void to_loop(struct fiber *f)
{
	start_switch(&f->asan_fake_stack, loop_stack_bottom, loop_stack_size);
	fiber_ctx_switch(f->ctx, &loop_ctx);
	finish_switch(f->asan_fake_stack, &loop_stack_bottom, &loop_stack_size);
}

void sched_hold(void)
{
	if (active)
		active->held++;
}

void sched_unhold(void)
{
	if (active) {
		MODEL_ASSERT(active->held > 0);
		active->held--;
	}
}

void sched_point(const char *what)
{
	struct sched *s = active;
	struct fiber *f;

	if (!s || !s->current || s->held)
		return;
	f = s->current;
	if (++s->points > SCHED_MAX_POINTS && !s->stopped) {
		s->stopped = true;
		check_fail(CK_SCHED_STEP_LIMIT, "more than %d scheduling points, last at %s",
			   SCHED_MAX_POINTS, what);
	}
	if (s->stopped) {
		/* a stopped run never resumes its fibers */
		f->state = FIBER_BLOCKED;
		f->wait_what = "a stopped schedule";
		to_loop(f);
		return;
	}
	if (runnable <= 1)
		return; /* nobody else could run: no choice to make */
	f->wait_what = what;
	to_loop(f);
}

void sched_block(const char *what, const void *on)
{
	struct sched *s = active;
	struct fiber *f = sched_self();

	if (!s || !s->current) {
		check_fail(CK_SCHED_DEADLOCK, "code outside any fiber would block in %s", what);
		return;
	}
	if (s->held)
		check_fail(CK_SCHED_DEADLOCK, "a fiber would block in %s inside sched_hold", what);
	s->points++;
	f->state = FIBER_BLOCKED;
	f->wait_what = what;
	f->wait_on = on;
	runnable--;
	to_loop(f);
	f->wait_on = NULL;
}

void sched_wake(struct fiber *f)
{
	if (f->state != FIBER_BLOCKED)
		return;
	f->state = FIBER_RUNNABLE;
	runnable++;
}

bool sched_await(const void *key, unsigned n, const char *what)
{
	struct fiber *f = sched_self();

	if (!sched_in_fiber() || active->stopped)
		return false;
	if (f->nheld || f->rcu_depth) {
		check_fail(CK_SCHED_DEADLOCK, "t%u awaits %s holding a lock or inside RCU", f->id,
			   what);
		return false;
	}
	f->await_key = key;
	f->await_left = n ? n : 1;
	sched_block(what, key);
	/* woken by sched_event (the count completed) or by wake_awaiting
	 * (which gave up on it); both cleared the key */
	return f->await_left == 0;
}

void sched_event(const void *what, const void *which)
{
	struct sched *s = active;

	if (!s || !s->current)
		return;
	for (unsigned i = 0; i < s->nfibers; i++) {
		struct fiber *f = &s->fibers[i];

		if (f->state != FIBER_BLOCKED || !f->await_key ||
		    (f->await_key != what && f->await_key != which) || --f->await_left)
			continue;
		f->await_key = NULL;
		sched_wake(f);
		if (!s->prefer)
			s->prefer = f;
	}
}
