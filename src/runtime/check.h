/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Invariant failures and how they are reported.
 *
 * Every check has a stable identifier (check_ids.h). A failure prints one line
 *   vmafuzz: invariant <ID> failed: <detail>
 * then calls the context hook (the harness prints the program so far and the
 * state it concerns), then aborts so that fuzzing engines record a crash.
 *
 * Unit tests switch to collect mode: failures are counted per identifier and
 * the check returns, so a test can corrupt a state by hand and assert which
 * checks fired.
 */
#ifndef VMAFUZZ_CHECK_H
#define VMAFUZZ_CHECK_H

#include <stdbool.h>
#include <stdio.h>

enum check_id {
#define CHECK_ENUM(id, what) CK_##id,
#include "runtime/check_ids.h"
	CHECK_IDS(CHECK_ENUM)
#undef CHECK_ENUM
	    CK_NR
};

enum check_mode {
	CHECK_ABORT,   /* print, call the hook, abort (fuzzing, replay) */
	CHECK_COLLECT, /* count and return (unit tests) */
};

/* Hook that prints the context of a failure (program, step, state) to @out. */
typedef void (*check_context_fn)(FILE *out, void *arg);

const char *check_name(enum check_id id);
const char *check_meaning(enum check_id id);
/* Look an identifier up by name; returns CK_NR when unknown. */
enum check_id check_by_name(const char *name);

void check_set_mode(enum check_mode mode);
void check_set_context(check_context_fn fn, void *arg);

/* Report a failed check; returns only in collect mode. Always returns false
 * so callers can write `return check_fail(...)` from a bool validator. */
bool check_fail(enum check_id id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Collect-mode counters. */
unsigned check_count(enum check_id id);
unsigned check_total(void);
void check_clear(void);
/* The message of the last failure collected ("" after check_clear). */
const char *check_last_message(void);

/* Cheap assertion for the model's own preconditions (a bug in the harness or
 * model, not an invariant of the kernel): prints file, line and expression. */
#define MODEL_ASSERT(expr)                                                                         \
	((expr) ? (void)0 : model_assert_fail(__FILE__, __LINE__, __func__, #expr))
_Noreturn void model_assert_fail(const char *file, int line, const char *func, const char *expr);

#endif
