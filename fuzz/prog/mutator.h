/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A structure-aware mutator for programs (prog.h), independent of any
 * engine: libFuzzer reaches it through LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver (main_engine.c), AFL++ through a custom mutator
 * library (main_afl_mutator.c), tests call it directly.
 *
 * An input is decoded with the target's prog_desc, changed as a program
 * (insert, delete, duplicate, swap or splice operations; change one
 * argument within what its field means; move an operation to another
 * fiber; perturb the schedule; flip a config bit) and encoded again, so
 * every output is a canonical program that fits the size limit. All
 * randomness comes from the caller's seeded generator: same seed, same
 * input, same output.
 */
#ifndef VMAFUZZ_MUTATOR_H
#define VMAFUZZ_MUTATOR_H

#include "prng.h"
#include "prog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mut_kind {
	MUT_INSERT,    /* a random operation at a random place: nops + 1 */
	MUT_DELETE,    /* one operation removed: nops - 1 */
	MUT_DUPLICATE, /* a copy of one operation at another place: nops + 1 */
	MUT_SWAP,      /* two different operations exchange places: nops kept */
	MUT_SPLICE,    /* a run of operations of another program (or of this one)
			* inserted, or replacing a run of this one */
	MUT_ARG,       /* one argument of one operation, within its field's meaning */
	MUT_FAIL_AT,   /* one operation's fail_at (small values more often) */
	MUT_FIBER,     /* one operation moves to another fiber: nops kept */
	MUT_SCHED,     /* schedule bytes changed, inserted or deleted, or a run
			* inserted (one fiber on for 1..255 points, then another) */
	MUT_CONFIG,    /* one named config bit flipped */
	MUT_NR
};

const char *mut_kind_name(enum mut_kind k);

/*
 * Apply mutation @k to the canonical program @p (as prog_decode leaves it)
 * for target @d. @other is the splice source for MUT_SPLICE (NULL: @p
 * itself). Returns false, leaving @p unchanged, when @k does not apply
 * (deleting from an empty program, a fiber move with one fiber, a config
 * flip without named bits, ...). The result stays canonical and within
 * PROG_MAX_OPS and PROG_MAX_SCHED.
 */
bool mutate_prog(const struct prog_desc *d, struct prog *p, enum mut_kind k,
		 const struct prog *other, struct prng *r);

/* Drop schedule bytes, then trailing operations, until @p encodes into at
 * most @max_size bytes (or nothing is left to drop). */
void prog_fit(struct prog *p, size_t max_size);

/* The largest encoding of any program (header, PROG_MAX_OPS records and a
 * full schedule). */
#define MUT_MAX_SIZE (PROG_HEADER + PROG_MAX_OPS * PROG_RECORD + PROG_MAX_SCHED)

/* Which mutations the last mutate_bytes/crossover_bytes applied (optional). */
struct mut_log {
	unsigned n;
	enum mut_kind kind[8];
	bool crossover;
};

/*
 * Decode @in (@size bytes), apply one or a few mutations (retrying when the
 * program came out unchanged), encode into @out (room for @max_size bytes;
 * may be @in itself). @other, when not NULL, is a second input to splice
 * from. Returns the output size, at most @max_size (0 only if @max_size is
 * 0).
 */
size_t mutate_bytes(const struct prog_desc *d, const uint8_t *in, size_t size, uint8_t *out,
		    size_t max_size, const uint8_t *other, size_t other_size, struct prng *r,
		    struct mut_log *log);

/*
 * Cross two inputs over as programs: operations from @a before a cut, a run
 * of @b's operations, then the rest of @a (or @b's tail), the schedule and
 * config of either; written to @out (room for @max_size bytes, may be @a).
 */
size_t crossover_bytes(const struct prog_desc *d, const uint8_t *a, size_t asize, const uint8_t *b,
		       size_t bsize, uint8_t *out, size_t max_size, struct prng *r,
		       struct mut_log *log);

#endif
