/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running an mm program (fuzz_mm, fuzz_fork, fuzz_rollup) over an
 * address-space backend (as_backend.h): decode each operation once into a
 * call (mm_ops.h), resolve its range, arm its fail_at, run it, check what an
 * injected failure must leave, write down what it asked (expect.h),
 * trace it for replay -v; after every operation at rest, the backend's
 * invariants and the backend against what the calls asked; at the end,
 * everything gone.
 */
#ifndef VMAFUZZ_MM_RUN_H
#define VMAFUZZ_MM_RUN_H

#include "exec.h"
#include "fuzz/as/as_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "fuzz/prog/prog.h"

#include <stdint.h>

struct as_expect;

/* What a target's operations get as their state. */
struct mm_exec {
	const struct prog_desc *desc;
	const struct as_backend *b;
	void *as;		  /* the backend's state */
	struct as_expect *expect; /* what the calls asked (expect.h), or NULL */
	unsigned kver; /* the version the model follows (the config's; a target may say) */
	const struct prog_op *ops; /* the program's operations: a step's number */
};

/* How a target runs its programs. */
struct mm_target {
	const struct prog_desc *desc;
	const struct as_backend *backend;
	/* The target's own fork operation besides MMF_OP_FORK (its arguments
	 * are in struct mm_args too), or MMF_NOPS: none. Under an engine a
	 * program asking either for the reverted anon_vma policy is refused. */
	unsigned fork_code;
	/* Run on the fresh state before the program, or NULL. */
	void (*prologue)(struct mm_exec *m);
	/* One operation; NULL: mm_exec_op. */
	exec_op_fn op_fn;
	/* The program's config bits applied to the fresh state (before the
	 * prologue), or NULL: they mean nothing to the backend. */
	void (*configure)(struct mm_exec *m, uint8_t config);
};

/* Run one input; returns 0, or -1 for an input an engine must not keep. */
int mm_run_program(const struct mm_target *t, const uint8_t *data, size_t size);

/* Run one fuzz_mm operation (code < MMF_NOPS) through the backend; an errno
 * the kernel would return is fine, the invariants judge the state. */
void mm_exec_op(struct mm_exec *m, const struct prog_op *op);
/* Run a fuzz_mm program given as text on @b (tests, reproducers): 0, -1
 * when refused, -2 when the text does not parse (the message on stderr). */
int mm_run_text(const struct as_backend *b, const char *text);
/* Run one call through the backend, its range already set (c->start,
 * c->len) when @resolve is false: what a prologue uses. */
void mm_exec_call(struct mm_exec *m, struct mm_call *c, bool resolve);

#endif
