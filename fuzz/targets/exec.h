/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every target does around its operations: decode the input, keep the
 * step being run so a failure report can print the program with that step
 * marked and the target's state beneath it (also when a sanitizer, not an
 * invariant, stops the run), and arm allocation failure for an operation's
 * fail_at.
 */
#ifndef VMAFUZZ_EXEC_H
#define VMAFUZZ_EXEC_H

#include "fuzz/prog/prog.h"

#include <stdio.h>

struct sched;

typedef void (*exec_op_fn)(void *state, const struct prog_op *op);
typedef void (*exec_check_fn)(void *state);

struct exec {
	const struct prog_desc *desc;
	struct prog prog;
	int step; /* operation being run outside fibers; -1 before the first */
	int fiber_step[PROG_MAX_FIBERS]; /* operation each fiber runs, -1: none */
	struct sched *sched;		 /* while exec_run runs fibers */
	void (*dump_state)(FILE *out, void *state);
	void *state;
	exec_op_fn op_fn;
	exec_check_fn check_fn;
	/* Checks only when no fiber is inside an operation (the state of a
	 * model whose operations yield midway is only whole then). */
	bool check_at_rest;
	unsigned in_op; /* fibers inside an operation */
};

/*
 * Set by the engine entry: a fuzzing engine installs its own sanitizer death
 * callback (libFuzzer saves the crashing input there), so the report of a
 * sanitizer failure then comes from replaying the input, not from exec.
 */
extern bool exec_under_engine;

/* Decode @data and install the failure report; the caller runs the steps. */
void exec_begin(struct exec *x, const struct prog_desc *d, const uint8_t *data, size_t size,
		void (*dump_state)(FILE *, void *), void *state);
/*
 * Run the program: one fiber per thread the program names (each runs its
 * operations in order), interleaved by the program's schedule bytes. After
 * every operation @check_fn checks every invariant (with x->check_at_rest,
 * only after those that leave no other fiber inside an operation), and once
 * more at the end. Ends with rcu_barrier().
 */
void exec_run(struct exec *x, exec_op_fn op_fn, exec_check_fn check_fn);

/* The schedule digest (sched.h) of the last program exec_run ran: tests
 * compare it across runs of the same input. */
uint64_t exec_last_digest(void);

/* Interleaving coverage (the counters libFuzzer reads): how many are set,
 * and clearing them (tests; libFuzzer clears them before every input). */
unsigned exec_interleave_seen(void);
void exec_interleave_clear(void);

/* Remove the failure report (the state is going away), and leave nothing
 * of the program behind for the next one: the layers' caches and scratch
 * arrays are freed, the model's numbering starts again. */
void exec_end(struct exec *x);
/* That last part alone, for a program run without exec (fuzz_conform). */
void exec_between_programs(void);

/* Arm allocation failure for the op about to run (fail_at = 0: none). */
void exec_arm(const struct prog_op *op);
/* Disarm; whether the armed failure fired during the operation. */
bool exec_disarm(void);

/* Print the report context: the program with the current step marked,
 * then the state. */
void exec_report(FILE *out, struct exec *x);

#endif
