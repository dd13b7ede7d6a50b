/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program minimizer (fuzz/prog/minimize.h) with in-process oracles: it
 * shrinks to what the oracle depends on and nothing more, never calls the
 * oracle beyond its budget or twice on the same program, reports a program
 * that does not fail to begin with, and stops when the oracle aborts.
 */
#include "fuzz/prog/minimize.h"
#include "fuzz/prog/prng.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/target.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SEEN 8192

/* Every encoding offered, back to back (oracle.seen points into it). */
static uint8_t arena[MAX_SEEN * 64];
static size_t arena_used;

/* An oracle: a predicate on programs, and what its calls were. */
struct oracle {
	bool (*fails)(const struct oracle *o, const struct prog *p);
	const struct prog_desc *desc;
	unsigned code;	   /* the operation some predicates look for */
	unsigned calls;	   /* oracle calls */
	unsigned abort_at; /* abort on this call (0: never) */
	bool repeated;	   /* a program was offered twice */
	unsigned nseen;	   /* encodings offered, up to MAX_SEEN */
	size_t seen_size[MAX_SEEN];
	uint8_t *seen[MAX_SEEN];
	unsigned progress_calls, progress_last_runs;
	bool progress_bad; /* runs went down or a pass had no name */
};

static enum minimize_verdict ask(void *arg, const struct prog *p)
{
	struct oracle *o = arg;
	uint8_t buf[PROG_HEADER + PROG_MAX_OPS * PROG_RECORD + PROG_MAX_SCHED];
	size_t n = prog_encode(p, buf);

	o->calls++;
	for (unsigned i = 0; i < o->nseen; i++)
		if (o->seen_size[i] == n && !memcmp(o->seen[i], buf, n))
			o->repeated = true;
	if (o->nseen < MAX_SEEN && arena_used + n <= sizeof(arena)) {
		o->seen[o->nseen] = memcpy(arena + arena_used, buf, n);
		o->seen_size[o->nseen++] = n;
		arena_used += n;
	}
	if (o->abort_at && o->calls == o->abort_at)
		return MINIMIZE_ABORT;
	return o->fails(o, p) ? MINIMIZE_STILL_FAILS : MINIMIZE_PASSES;
}

static void progress(void *arg, unsigned round, const char *pass, const struct prog *best,
		     unsigned runs)
{
	struct oracle *o = arg;

	(void)best;
	o->progress_calls++;
	if (!round || !pass || !pass[0] || runs < o->progress_last_runs || runs > o->calls)
		o->progress_bad = true;
	o->progress_last_runs = runs;
}

static enum minimize_outcome run(struct oracle *o, struct prog *p, unsigned max_runs,
				 struct minimize_stats *st)
{
	struct minimize_opts opts = {o->desc, ask, o, max_runs, progress};

	return prog_minimize(&opts, p, st);
}

static const struct prog_desc *mtree(void)
{
	return fuzz_mtree_target.desc;
}

static unsigned op_code(const struct prog_desc *d, const char *name)
{
	for (unsigned i = 0; i < d->nops; i++)
		if (!strcmp(d->ops[i].name, name))
			return i;
	abort();
}

static bool parse(const struct prog_desc *d, const char *text, struct prog *p)
{
	char err[256];

	if (prog_parse(d, text, "test", p, err, sizeof(err)))
		return true;
	fprintf(stderr, "%s\n", err);
	return false;
}

/* A program printed, into @buf. */
static const char *text_of(const struct prog_desc *d, const struct prog *p, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	prog_print(f, d, p, -1);
	fclose(f);
	return buf;
}

static const char *const busy = "bulk mt1 @0x40:3 n=10\n"
				"t1: rcu_walk mt1 @0:end\n"
				"erase mt1 e5+0:end\n"
				"store mt0 @0x8:2 v1\n"
				"walk mt0 @0:255\n"
				"t2: store mt2 g3-4:17 v200 fail_at=2\n"
				"t2: load mt0 e0+0:1\n"
				"erase mt1 top-9:4 fail_at=5\n"
				"store mt1 e2+1:1 v3\n"
				"t3: gap mt2 @0x100:end n=12 high\n"
				"dup mt0 mt3\n"
				"sched 2 5 1 7 9 3\n";

/* "store with v >= 7": the store's value is field 2, after mt (1 byte)
 * and the range (4 bytes). */
static bool store_v7(const struct oracle *o, const struct prog *p)
{
	for (unsigned i = 0; i < p->nops; i++)
		if (p->ops[i].code == o->code && p->ops[i].arg[5] >= 7)
			return true;
	return false;
}

static bool test_keeps_the_operation_that_matters(void)
{
	struct oracle o = {.fails = store_v7, .desc = mtree()};
	struct minimize_stats st;
	static struct prog p;
	char text[512];

	o.code = op_code(o.desc, "store");
	ASSERT(parse(o.desc, busy, &p));
	ASSERT_EQ(run(&o, &p, 2000, &st), MINIMIZE_FIXED_POINT);
	/* one store, every other byte as small as it goes: mt0, the first
	 * entry's first index, and v7, the least value that still fails */
	ASSERT(!strcmp(text_of(o.desc, &p, text, sizeof(text)),
		       "target fuzz_mtree\nstore mt0 e0+0:1 v7\n"));
	ASSERT_EQ(st.runs, o.calls);
	ASSERT(st.rounds >= 2); /* the last round changes nothing */
	ASSERT(!o.repeated);
	ASSERT(o.progress_calls > 0 && !o.progress_bad);
	return true;
}

/* "a load ran before a store with v >= 7": as a thread's operation it ran
 * first (the schedule put it there), in thread 0 only where it stands first. */
static bool load_then_store_v7(const struct oracle *o, const struct prog *p)
{
	unsigned load = op_code(o->desc, "load");
	bool load_before = false;

	for (unsigned i = 0; i < p->nops; i++) {
		if (p->ops[i].code == load && !p->ops[i].fiber)
			load_before = true;
		if (p->ops[i].code == o->code && p->ops[i].arg[5] >= 7)
			for (unsigned j = 0; j < p->nops; j++)
				if (p->ops[j].code == load && (p->ops[j].fiber || load_before))
					return true;
	}
	return false;
}

static bool test_thread_moves_into_t0_where_it_ran(void)
{
	struct oracle o = {.fails = load_then_store_v7, .desc = mtree()};
	struct minimize_stats st;
	static struct prog p;
	char text[512];

	o.code = op_code(o.desc, "store");
	ASSERT(parse(o.desc, "store mt1 @0x8:2 v9\nwalk mt0 @0:255\nt1: load mt0 e1+0:1\n", &p));
	ASSERT(load_then_store_v7(&o, &p));
	ASSERT_EQ(run(&o, &p, 2000, &st), MINIMIZE_FIXED_POINT);
	/* neither dropped nor left in t1, nor in t0 where it stood (last): as
	 * a block before the store */
	ASSERT(!strcmp(text_of(o.desc, &p, text, sizeof(text)),
		       "target fuzz_mtree\nload mt0 e0+0:1\nstore mt0 e0+0:1 v7\n"));
	return true;
}

/* "an allocation fails at the third or later": fail_at >= 3 anywhere. */
static bool fail_at_3(const struct oracle *o, const struct prog *p)
{
	(void)o;
	for (unsigned i = 0; i < p->nops; i++)
		if (p->ops[i].fail_at >= 3)
			return true;
	return false;
}

static bool test_fail_at_shrinks_to_its_threshold(void)
{
	struct oracle o = {.fails = fail_at_3, .desc = mtree()};
	static struct prog p;
	char text[512];

	ASSERT(parse(o.desc, busy, &p));
	ASSERT_EQ(run(&o, &p, 2000, NULL), MINIMIZE_FIXED_POINT);
	/* operations are kept as they are, not turned into others */
	ASSERT(!strcmp(text_of(o.desc, &p, text, sizeof(text)),
		       "target fuzz_mtree\nerase mt0 e0+0:1 fail_at=3\n"));
	ASSERT(!o.repeated);
	return true;
}

/* A schedule-dependent failure: the second scheduling choice is at least
 * 4, and an operation runs on a thread other than t0 for it to choose. */
static bool second_choice_4(const struct oracle *o, const struct prog *p)
{
	bool other = false;

	(void)o;
	for (unsigned i = 0; i < p->nops; i++)
		other |= p->ops[i].fiber != 0;
	return other && p->nsched >= 2 && p->sched[1] >= 4;
}

static bool test_schedule_kept_as_far_as_it_matters(void)
{
	struct oracle o = {.fails = second_choice_4, .desc = mtree()};
	static struct prog p;

	ASSERT(parse(o.desc, busy, &p));
	ASSERT_EQ(run(&o, &p, 2000, NULL), MINIMIZE_FIXED_POINT);
	ASSERT_EQ(p.nops, 1);
	ASSERT_EQ(p.ops[0].fiber, 1); /* the least thread that is not t0 */
	ASSERT_EQ(p.ops[0].fail_at, 0);
	ASSERT_EQ(p.nsched, 2);
	ASSERT_EQ(p.sched[0], 0);
	ASSERT_EQ(p.sched[1], 4);
	ASSERT(!o.repeated);
	return true;
}

static bool always(const struct oracle *o, const struct prog *p)
{
	(void)o;
	(void)p;
	return true;
}

static bool never(const struct oracle *o, const struct prog *p)
{
	(void)o;
	(void)p;
	return false;
}

/* When anything fails, the empty program does. */
static bool test_always_failing_leaves_nothing(void)
{
	struct oracle o = {.fails = always, .desc = mtree()};
	static struct prog p;

	ASSERT(parse(mtree(), busy, &p));
	ASSERT_EQ(run(&o, &p, 2000, NULL), MINIMIZE_FIXED_POINT);
	ASSERT_EQ(p.nops, 0);
	ASSERT_EQ(p.nsched, 0);
	ASSERT_EQ(p.config, 0);
	ASSERT(o.calls < 10);
	return true;
}

/* Runs the store_v7 oracle takes on the busy program to a fixed point. */
static unsigned full_runs(struct prog *p0)
{
	struct oracle o = {.fails = store_v7, .desc = mtree()};
	static struct prog p;

	o.code = op_code(o.desc, "store");
	p = *p0;
	return run(&o, &p, 100000, NULL) == MINIMIZE_FIXED_POINT ? o.calls : 0;
}

static bool test_budget_is_never_exceeded(void)
{
	static struct prog p0, p;
	unsigned full;

	ASSERT(parse(mtree(), busy, &p0));
	full = full_runs(&p0);
	ASSERT(full > 20);
	for (unsigned budget = 0; budget <= full + 1; budget++) {
		struct oracle o = {.fails = store_v7, .desc = mtree()};
		struct minimize_stats st;
		unsigned allowed = budget ? budget : 1; /* 0 counts as 1 */

		o.code = op_code(o.desc, "store");
		p = p0;
		ASSERT_EQ(run(&o, &p, budget, &st),
			  allowed < full ? MINIMIZE_CAPPED : MINIMIZE_FIXED_POINT);
		ASSERT_EQ(o.calls, allowed < full ? allowed : full);
		ASSERT_EQ(st.runs, o.calls);
		ASSERT(store_v7(&o, &p)); /* whatever it got to still fails */
	}
	return true;
}

static bool test_not_failing_is_reported(void)
{
	struct oracle o = {.fails = never, .desc = mtree()};
	struct minimize_stats st;
	static struct prog p0, p;

	ASSERT(parse(mtree(), busy, &p0));
	p = p0;
	ASSERT_EQ(run(&o, &p, 2000, &st), MINIMIZE_NOT_FAILING);
	ASSERT_EQ(o.calls, 1);
	ASSERT_EQ(st.runs, 1);
	ASSERT_EQ(st.rounds, 0);
	ASSERT(!memcmp(&p, &p0, sizeof(p)));
	ASSERT(!strcmp(minimize_outcome_name(MINIMIZE_NOT_FAILING), "does not fail"));
	return true;
}

static bool test_abort_stops_at_once(void)
{
	struct oracle o = {.fails = store_v7, .desc = mtree(), .abort_at = 6};
	struct oracle first = {.fails = store_v7, .desc = mtree(), .abort_at = 1};
	static struct prog p0, p;

	o.code = first.code = op_code(o.desc, "store");
	ASSERT(parse(mtree(), busy, &p0));
	p = p0;
	ASSERT_EQ(run(&o, &p, 2000, NULL), MINIMIZE_ABORTED);
	ASSERT_EQ(o.calls, 6);
	ASSERT(prog_encoded_size(&p) < prog_encoded_size(&p0)); /* the best before it */
	p = p0;
	ASSERT_EQ(run(&first, &p, 2000, NULL), MINIMIZE_ABORTED);
	ASSERT_EQ(first.calls, 1);
	return true;
}

/* A minimized program is a fixed point: minimizing it again changes
 * nothing. */
static bool test_minimized_is_a_fixed_point(void)
{
	struct oracle o = {.fails = store_v7, .desc = mtree()};
	struct oracle again = {.fails = store_v7, .desc = mtree()};
	static struct prog p, q;

	o.code = again.code = op_code(o.desc, "store");
	ASSERT(parse(o.desc, busy, &p));
	ASSERT_EQ(run(&o, &p, 2000, NULL), MINIMIZE_FIXED_POINT);
	q = p;
	ASSERT_EQ(run(&again, &q, 2000, NULL), MINIMIZE_FIXED_POINT);
	ASSERT_EQ(prog_encoded_size(&q), prog_encoded_size(&p));
	ASSERT(!memcmp(&q, &p, sizeof(p)));
	ASSERT_EQ(again.progress_calls, 0);
	return true;
}

/* "contains operation @code": whatever the rest, one such operation with
 * every field at its least value is left. */
static bool has_code(const struct oracle *o, const struct prog *p)
{
	for (unsigned i = 0; i < p->nops; i++)
		if (p->ops[i].code == o->code)
			return true;
	return false;
}

/* The least operation @code: fields at 0, range lengths 1. */
static void least_op(const struct prog_desc *d, unsigned code, struct prog_op *op)
{
	const struct prog_opdesc *od = &d->ops[code];
	unsigned at = 0;

	memset(op, 0, sizeof(*op));
	op->code = (uint8_t)code;
	for (unsigned k = 0; k < od->nfields; k++) {
		if (od->fields[k].kind == FK_RANGE)
			op->arg[at + 3] = 1;
		at += field_width(&od->fields[k]);
	}
}

static bool test_random_programs_every_target(void)
{
	struct prng r = {7};
	static struct prog p;
	uint8_t bytes[600];

	for (unsigned t = 0; fuzz_targets[t]; t++) {
		const struct prog_desc *d = fuzz_targets[t]->desc;

		for (unsigned k = 0; k < 20; k++) {
			struct oracle o = {.fails = has_code, .desc = d};
			struct prog_op want;
			size_t n = 40 + prng_below(&r, sizeof(bytes) - 40);

			do {
				for (size_t i = 0; i < n; i++)
					bytes[i] = (uint8_t)prng_next(&r);
				prog_decode(d, bytes, n, &p);
			} while (!p.nops);
			o.code = p.ops[prng_below(&r, p.nops)].code;
			ASSERT_EQ(run(&o, &p, 5000, NULL), MINIMIZE_FIXED_POINT);
			ASSERT_EQ(p.nops, 1);
			ASSERT_EQ(p.nsched, 0);
			ASSERT_EQ(p.config, 0);
			least_op(d, o.code, &want);
			ASSERT(!memcmp(&p.ops[0], &want, sizeof(want)));
			ASSERT(!o.repeated);
			ASSERT(o.calls <= 5000);
		}
	}
	return true;
}

int main(void)
{
	TEST(test_keeps_the_operation_that_matters);
	TEST(test_fail_at_shrinks_to_its_threshold);
	TEST(test_thread_moves_into_t0_where_it_ran);
	TEST(test_schedule_kept_as_far_as_it_matters);
	TEST(test_always_failing_leaves_nothing);
	TEST(test_budget_is_never_exceeded);
	TEST(test_not_failing_is_reported);
	TEST(test_abort_stops_at_once);
	TEST(test_minimized_is_a_fixed_point);
	TEST(test_random_programs_every_target);
	return test_summary();
}
