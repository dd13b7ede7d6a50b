/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack switching for the fibers of sched.c. On x86-64 a few instructions
 * save the callee-saved registers and swap stack pointers: unlike
 * swapcontext, no system call (it saves and restores the signal mask), and
 * unlike _longjmp, no sanitizer interceptor (ASan's makes one sigaltstack
 * call per jump): a program switches at every lock and RCU boundary, so
 * either was a large share of a run (docs/results/benchmarks.md).
 * Elsewhere ucontext.
 * AddressSanitizer is told of every switch by the caller (sched.c).
 */
#ifndef VMAFUZZ_FIBER_CTX_H
#define VMAFUZZ_FIBER_CTX_H

#include <stddef.h>

#if defined(__x86_64__)
struct fiber_ctx {
	void *sp;
};
#else
#include <ucontext.h>
struct fiber_ctx {
	ucontext_t uc;
};
#endif

/* Make @c start @entry (which must never return) on [stack, stack + size). */
void fiber_ctx_make(struct fiber_ctx *c, void *stack, size_t size, void (*entry)(void));
/* Save the running context in @from and continue @to. */
void fiber_ctx_switch(struct fiber_ctx *from, struct fiber_ctx *to);

#endif
