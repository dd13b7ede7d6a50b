/* SPDX-License-Identifier: GPL-2.0 */
/* Running programs: the failure report and fail_at (exec.h). */
#include "exec.h"

#include "mm/between.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"
#include "tree/mtree.h"

#include <string.h>

/* Present when a sanitizer runtime is linked: lets the report follow an
 * AddressSanitizer or UndefinedBehaviorSanitizer report too. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
/* Called by AddressSanitizer with its report, before it dies: under a
 * fuzzing engine (whose death callback must stay) this is where the
 * program and state are printed for an ASan failure. */
extern void __asan_set_error_report_callback(void (*callback)(const char *)) __attribute__((weak));

static struct exec *current;
bool exec_under_engine;
static uint64_t last_digest;

uint64_t exec_last_digest(void)
{
	return last_digest;
}

/* The step that failed: the running fiber's, else the one run outside fibers. */
static int failing_step(const struct exec *x)
{
	if (x->sched && sched_in_fiber()) {
		unsigned id = sched_self()->id;

		return id < PROG_MAX_FIBERS ? x->fiber_step[id] : -1;
	}
	return x->step;
}

/* A report under way: a sanitizer's report of a fault inside it must not
 * start a second one (AddressSanitizer would call that a nested bug and
 * exit before the engine saved the input). */
static bool reporting;

void exec_report(FILE *out, struct exec *x)
{
	int step = failing_step(x);

	reporting = true;

	fprintf(out, "--- program (%s), ", x->desc->target);
	if (step < 0)
		fprintf(out, "outside any step ---\n");
	else
		fprintf(out, "step %d of %u%s ---\n", step, x->prog.nops,
			x->sched && sched_in_fiber() ? ", on the fiber that failed" : "");
	prog_print(out, x->desc, &x->prog, step);
	if (x->sched) {
		fprintf(out, "--- threads ---\n");
		for (unsigned i = 0; i < x->sched->nfibers; i++) {
			int s = x->fiber_step[i];

			fprintf(out, "  t%u %s", i, s < 0 ? "has no step running" : "at step");
			if (s >= 0) {
				fprintf(out, " %d: ", s);
				prog_print_op(out, x->desc, &x->prog.ops[s]);
			}
			fputc('\n', out);
		}
		sched_dump(out, x->sched);
	}
	if (x->dump_state) {
		fprintf(out, "--- state ---\n");
		x->dump_state(out, x->state);
	}
	fprintf(out, "--- end of report ---\n");
	reporting = false;
}

static void report_hook(FILE *out, void *arg)
{
	exec_report(out, arg);
}

static void death_hook(void)
{
	if (reporting) {
		fprintf(stderr, "--- the program's report was cut short: the sanitizer's report "
				"just above is of a fault in the report itself ---\n");
		return;
	}
	if (current)
		exec_report(stderr, current);
}

static void asan_report_hook(const char *report)
{
	(void)report;
	death_hook();
}

void exec_begin(struct exec *x, const struct prog_desc *d, const uint8_t *data, size_t size,
		void (*dump_state)(FILE *, void *), void *state)
{
#ifdef VMAFUZZ_BUG_test_carry_over
	/* planted for tests/stable.sh, no kernel bug: a count kept from one
	 * program to the next, which takes a branch in every second program
	 * (as a cache emptied every other time would) */
	static unsigned programs;
	static volatile unsigned sink;

	if (++programs % 2 == 0)
		sink++;
#endif
	memset(x, 0, sizeof(*x));
	x->desc = d;
	x->step = -1;
	x->dump_state = dump_state;
	x->state = state;
	prog_decode(d, data, size, &x->prog);
	current = x;
	check_set_context(report_hook, x);
	/* for every program, not once: the first program of a process must
	 * run the same code as the next ones */
	if (!exec_under_engine && __sanitizer_set_death_callback)
		__sanitizer_set_death_callback(death_hook);
	else if (__asan_set_error_report_callback)
		__asan_set_error_report_callback(asan_report_hook);
}

/*
 * Interleaving coverage: at each switch, the pair (operation and point the
 * resumed fiber continues from, operation and point the other one stopped
 * at) sets a counter libFuzzer reads besides edge coverage. A schedule that
 * brings two operations together at new places is then kept and mutated
 * further, as an edge would be: a reader starting in the middle of a fork
 * rather than between two. Other engines and builds ignore the section.
 */
#define INTERLEAVE_COUNTERS 4096
__attribute__((
    used,
    section("__libfuzzer_extra_counters"))) static uint8_t interleave_counters[INTERLEAVE_COUNTERS];

static uint32_t mix_str(uint32_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h * 16777619u;
}

static void on_switch(void *arg, const struct fiber *to, const struct fiber *from)
{
	const struct exec *x = arg;
	uint32_t h = 2166136261u;
	const struct fiber *f[2] = {to, from};

	if (!from)
		return;
	for (unsigned i = 0; i < 2; i++) {
		int step = x->fiber_step[f[i]->id];

		h = (h ^ (step >= 0 ? x->prog.ops[step].code : 0xffu)) * 16777619u;
		h = mix_str(h, f[i]->wait_what);
	}
	/* seen or not: with hit counts (8 buckets per counter to libFuzzer)
	 * the corpus grew with no new pairs, and the engine slowed with it
	 * (docs/results/benchmarks.md) */
	interleave_counters[h % INTERLEAVE_COUNTERS] = 1;
}

unsigned exec_interleave_seen(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < INTERLEAVE_COUNTERS; i++)
		n += interleave_counters[i] != 0;
	return n;
}

void exec_interleave_clear(void)
{
	memset(interleave_counters, 0, sizeof(interleave_counters));
}

struct fiber_arg {
	struct exec *x;
	unsigned id;
};

static void fiber_main(void *arg)
{
	struct fiber_arg *fa = arg;
	struct exec *x = fa->x;

	for (unsigned i = 0; i < x->prog.nops; i++) {
		if (x->prog.ops[i].fiber != fa->id)
			continue;
		x->fiber_step[fa->id] = (int)i;
		x->in_op++;
		x->op_fn(x->state, &x->prog.ops[i]);
		x->in_op--;
		if (!x->check_at_rest || x->in_op == 0)
			x->check_fn(x->state);
	}
	x->fiber_step[fa->id] = -1;
}

void exec_run(struct exec *x, exec_op_fn op_fn, exec_check_fn check_fn)
{
	struct fiber_arg args[PROG_MAX_FIBERS];
	static struct sched s; /* holds fiber contexts; one program at a time */
	bool used[PROG_MAX_FIBERS] = {false};

	x->op_fn = op_fn;
	x->check_fn = check_fn;
	for (unsigned i = 0; i < x->prog.nops; i++)
		used[x->prog.ops[i].fiber] = true;
	sched_init(&s, x->prog.sched, x->prog.nsched);
	s.on_switch = on_switch;
	s.on_switch_arg = x;
	for (unsigned id = 0; id < PROG_MAX_FIBERS; id++) {
		x->fiber_step[id] = -1;
		if (!used[id])
			continue;
		args[id] = (struct fiber_arg){x, id};
		/* fiber ids follow thread numbers so reports agree with the program */
		while (s.nfibers < id)
			sched_spawn(&s, NULL, NULL);
		sched_spawn(&s, fiber_main, &args[id]);
	}
	x->sched = &s;
	sched_run(&s);
	last_digest = s.digest;
	x->sched = NULL;
	sched_destroy(&s);
	rcu_barrier();
	x->check_fn(x->state);
}

/*
 * Nothing of this program may reach the next one run in the same process
 * (AFL++'s persistent mode, libFuzzer): the caches and scratch arrays the
 * layers keep from one call to the next, and the model's numbering, start
 * again as at the process's start. tests/stable.sh checks it.
 */
void exec_between_programs(void)
{
	rcu_between_programs();
	mt_scratch_release();
	mm_between_programs();
}

void exec_end(struct exec *x)
{
	(void)x;
	current = NULL;
	check_set_context(NULL, NULL);
	alloc_fail_disarm();
	exec_between_programs();
}

void exec_arm(const struct prog_op *op)
{
	alloc_fail_arm(op->fail_at);
}

bool exec_disarm(void)
{
	bool fired = alloc_fail_fired();

	alloc_fail_disarm();
	return fired;
}
