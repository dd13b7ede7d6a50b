/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program minimizer (minimize.h): passes over operations, schedule,
 * threads and arguments, each candidate judged by the caller's oracle.
 */
#include "minimize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct minimizer {
	const struct minimize_opts *o;
	struct prog best;
	unsigned runs, max_runs;
	bool capped, aborted;
	uint64_t *seen; /* hashes of the encodings offered so far */
	size_t nseen, capseen;
	uint8_t buf[PROG_HEADER + PROG_MAX_OPS * PROG_RECORD + PROG_MAX_SCHED];
};

static bool stopped(const struct minimizer *m)
{
	return m->capped || m->aborted;
}

/* FNV-1a */
static uint64_t hash64(const uint8_t *data, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	return h;
}

/* Whether @c's encoding was offered before; remembers it if not. */
static bool seen_before(struct minimizer *m, const struct prog *c)
{
	uint64_t h = hash64(m->buf, prog_encode(c, m->buf));

	for (size_t i = 0; i < m->nseen; i++)
		if (m->seen[i] == h)
			return true;
	if (m->nseen == m->capseen) {
		m->capseen = m->capseen ? 2 * m->capseen : 256;
		m->seen = realloc(m->seen, m->capseen * sizeof(*m->seen));
		if (!m->seen)
			abort();
	}
	m->seen[m->nseen++] = h;
	return false;
}

/* Offer @c to the oracle; when it still fails, it becomes the best. */
static bool try(struct minimizer *m, const struct prog *c)
{
	enum minimize_verdict v;

	if (stopped(m) || seen_before(m, c))
		return false;
	if (m->runs >= m->max_runs) {
		m->capped = true;
		return false;
	}
	m->runs++;
	v = m->o->still_fails(m->o->arg, c);
	if (v == MINIMIZE_ABORT)
		m->aborted = true;
	if (v != MINIMIZE_STILL_FAILS)
		return false;
	m->best = *c;
	return true;
}

/* ---- fields: one byte (signed or not), or a big-endian u16 --------------- */

enum width { W_U8, W_S8, W_U16 };

static uint8_t *byte_at(struct prog *p, size_t off)
{
	return (uint8_t *)p + off;
}

static size_t off_of(const struct prog *p, const void *field)
{
	return (size_t)((const uint8_t *)field - (const uint8_t *)p);
}

static int get_field(const struct prog *p, size_t off, enum width w)
{
	const uint8_t *b = (const uint8_t *)p + off;

	return w == W_U16 ? (b[0] << 8 | b[1]) : w == W_S8 ? (int8_t)b[0] : b[0];
}

static void set_field(struct prog *p, size_t off, enum width w, int v)
{
	uint8_t *b = byte_at(p, off);

	if (w == W_U16) {
		b[0] = (uint8_t)(v >> 8);
		b[1] = (uint8_t)v;
	} else {
		b[0] = (uint8_t)v;
	}
}

static bool try_field(struct minimizer *m, size_t off, enum width w, int v)
{
	struct prog c = m->best;

	set_field(&c, off, w, v);
	return try(m, &c);
}

/*
 * Move a field of the best program towards @target: the target itself,
 * else a binary search between it (passes) and the current value (fails)
 * for the value nearest the target that still fails.
 */
static bool shrink_field(struct minimizer *m, size_t off, enum width w, int target)
{
	int lo = target, hi = get_field(&m->best, off, w);
	bool any = false;

	if (hi == target || stopped(m))
		return false;
	if (try_field(m, off, w, target))
		return true;
	while ((hi > lo ? hi - lo : lo - hi) > 1 && !stopped(m)) {
		int mid = lo + (hi - lo) / 2;

		if (try_field(m, off, w, mid)) {
			hi = mid;
			any = true;
		} else {
			lo = mid;
		}
	}
	return any;
}

/* Turn the set bits of the byte at @off off, one at a time. */
static bool clear_bits(struct minimizer *m, size_t off)
{
	bool any = false;

	for (unsigned bit = 0; bit < 8 && !stopped(m); bit++) {
		struct prog c = m->best;

		if (!(*byte_at(&c, off) & (1u << bit)))
			continue;
		*byte_at(&c, off) &= (uint8_t) ~(1u << bit);
		any |= try(m, &c);
	}
	return any;
}

/* ---- passes ---------------------------------------------------------------- */

/* ddmin-like: drop chunks of n/2, n/4, ..., 1 operations, from the end. */
static bool pass_ops(struct minimizer *m)
{
	bool any = false;

	for (unsigned chunk = (m->best.nops + 1) / 2; chunk && !stopped(m); chunk /= 2) {
		unsigned end = m->best.nops;

		while (end > 0 && !stopped(m)) {
			unsigned at = end >= chunk ? end - chunk : 0, n = end - at;
			struct prog c = m->best;

			memmove(&c.ops[at], &c.ops[at + n], (c.nops - at - n) * sizeof(c.ops[0]));
			c.nops -= n;
			any |= try(m, &c);
			end = at;
		}
	}
	return any;
}

/*
 * Thread @f's operations as one block of thread 0's, tried at each place
 * from the first: in the run they went where the schedule put them, often
 * before thread 0's later operations, and a program of thread 0 alone is
 * one the kernel can run (vmafuzz repro). Where they stood is the last
 * place, tried already by the caller.
 */
static bool move_block(struct minimizer *m, unsigned f)
{
	struct prog_op rest[PROG_MAX_OPS], block[PROG_MAX_OPS];
	unsigned nrest = 0, nblock = 0;

	for (unsigned i = 0; i < m->best.nops; i++) {
		if (m->best.ops[i].fiber == f) {
			block[nblock] = m->best.ops[i];
			block[nblock++].fiber = 0;
		} else {
			rest[nrest++] = m->best.ops[i];
		}
	}
	for (unsigned at = 0; at < nrest && !stopped(m); at++) {
		struct prog c = m->best;

		memcpy(c.ops, rest, at * sizeof(rest[0]));
		memcpy(c.ops + at, block, nblock * sizeof(block[0]));
		memcpy(c.ops + at + nblock, rest + at, (nrest - at) * sizeof(rest[0]));
		if (try(m, &c))
			return true;
	}
	return false;
}

/* A thread's operations: drop them all, else move them to thread 0 where
 * they stand, else as a block earlier in thread 0's. */
static bool pass_fibers(struct minimizer *m)
{
	bool any = false;

	for (unsigned f = 1; f < PROG_MAX_FIBERS && !stopped(m); f++) {
		struct prog drop = m->best, move = m->best;
		bool has = false;

		drop.nops = 0;
		for (unsigned i = 0; i < m->best.nops; i++) {
			if (m->best.ops[i].fiber != f) {
				drop.ops[drop.nops++] = m->best.ops[i];
				continue;
			}
			has = true;
			move.ops[i].fiber = 0;
		}
		if (has && !try(m, &drop) && !try(m, &move) && !move_block(m, f))
			continue;
		any |= has;
	}
	return any;
}

/* The schedule: none, chunks of it, then each byte towards 0. */
static bool pass_sched(struct minimizer *m)
{
	struct prog none = m->best;
	bool any = false;

	if (!m->best.nsched)
		return false;
	none.nsched = 0;
	if (try(m, &none))
		return true;
	for (unsigned chunk = (m->best.nsched + 1) / 2; chunk && !stopped(m); chunk /= 2) {
		unsigned end = m->best.nsched;

		while (end > 0 && !stopped(m)) {
			unsigned at = end >= chunk ? end - chunk : 0, n = end - at;
			struct prog c = m->best;

			memmove(&c.sched[at], &c.sched[at + n], c.nsched - at - n);
			c.nsched -= n;
			any |= try(m, &c);
			end = at;
		}
	}
	for (unsigned i = 0; i < m->best.nsched && !stopped(m); i++)
		any |= shrink_field(m, off_of(&m->best, &m->best.sched[i]), W_U8, 0);
	return any;
}

/* A range spec at @off (struct range_spec's four bytes): the length (0 is
 * :end) towards 1, then the mode, then where it starts. */
static bool shrink_range(struct minimizer *m, size_t off)
{
	bool any = false;
	int mode;

	any |= shrink_field(m, off + 3, W_U8, 1);
	any |= shrink_field(m, off, W_U8, 0);
	mode = *byte_at(&m->best, off) & 3;
	if (mode == RS_ENTRY || mode == RS_GAP) {
		any |= shrink_field(m, off + 1, W_U8, 0);
		any |= shrink_field(m, off + 2, W_S8, 0);
	} else {
		any |= shrink_field(m, off + 1, W_U16, 0);
	}
	return any;
}

/* One argument field at @off, by its kind. */
static bool shrink_arg(struct minimizer *m, const struct prog_field *f, size_t off)
{
	switch (f->kind) {
	case FK_SEL:
	case FK_U8:
	case FK_CHOICE:
		return shrink_field(m, off, W_U8, 0);
	case FK_FLAGS:
		return clear_bits(m, off);
	case FK_RANGE:
		return shrink_range(m, off);
	}
	return false;
}

/* Operation @i: fail_at, fiber, then its arguments. */
static bool shrink_op(struct minimizer *m, unsigned i)
{
	const struct prog_opdesc *od = &m->o->desc->ops[m->best.ops[i].code];
	bool any = false;
	unsigned at = 0;

	any |= shrink_field(m, off_of(&m->best, &m->best.ops[i].fail_at), W_U8, 0);
	any |= shrink_field(m, off_of(&m->best, &m->best.ops[i].fiber), W_U8, 0);
	for (unsigned k = 0; k < od->nfields && !stopped(m); k++) {
		any |= shrink_arg(m, &od->fields[k], off_of(&m->best, &m->best.ops[i].arg[at]));
		at += field_width(&od->fields[k]);
	}
	return any;
}

static bool pass_args(struct minimizer *m)
{
	bool any = false;

	for (unsigned i = 0; i < m->best.nops && !stopped(m); i++)
		any |= shrink_op(m, i);
	if (!stopped(m))
		any |= clear_bits(m, off_of(&m->best, &m->best.config));
	return any;
}

/* ---- rounds ---------------------------------------------------------------- */

static const struct {
	const char *name;
	bool (*run)(struct minimizer *m);
} passes[] = {
    {"ops", pass_ops},
    {"sched", pass_sched},
    {"fibers", pass_fibers},
    {"args", pass_args},
};

/* One round of every pass; true when one of them changed the best. */
static bool round_changed(struct minimizer *m, unsigned round)
{
	bool changed = false;

	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
		if (!passes[i].run(m))
			continue;
		changed = true;
		if (m->o->progress)
			m->o->progress(m->o->arg, round, passes[i].name, &m->best, m->runs);
	}
	return changed;
}

static enum minimize_outcome minimize_from(struct minimizer *m, struct minimize_stats *st)
{
	enum minimize_verdict v;

	seen_before(m, &m->best);
	m->runs = 1;
	v = m->o->still_fails(m->o->arg, &m->best);
	if (v != MINIMIZE_STILL_FAILS)
		return v == MINIMIZE_ABORT ? MINIMIZE_ABORTED : MINIMIZE_NOT_FAILING;
	while (!stopped(m) && round_changed(m, ++st->rounds))
		;
	if (m->aborted)
		return MINIMIZE_ABORTED;
	return m->capped ? MINIMIZE_CAPPED : MINIMIZE_FIXED_POINT;
}

enum minimize_outcome prog_minimize(const struct minimize_opts *opts, struct prog *p,
				    struct minimize_stats *st)
{
	struct minimizer *m = calloc(1, sizeof(*m));
	struct minimize_stats local = {0, 0};
	enum minimize_outcome out;

	if (!m)
		abort();
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	m->o = opts;
	m->best = *p;
	m->max_runs = opts->max_runs ? opts->max_runs : 1;
	out = minimize_from(m, st);
	st->runs = m->runs;
	if (out != MINIMIZE_NOT_FAILING)
		*p = m->best;
	free(m->seen);
	free(m);
	return out;
}

const char *minimize_outcome_name(enum minimize_outcome o)
{
	switch (o) {
	case MINIMIZE_FIXED_POINT:
		return "fixed point";
	case MINIMIZE_CAPPED:
		return "stopped at the run cap";
	case MINIMIZE_NOT_FAILING:
		return "does not fail";
	case MINIMIZE_ABORTED:
		return "aborted";
	}
	return "?";
}
