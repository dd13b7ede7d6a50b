/* SPDX-License-Identifier: GPL-2.0 */
/* Stack switching (fiber_ctx.h). */
#include "runtime/fiber_ctx.h"

#include "runtime/check.h"

#include <stdint.h>

#if defined(__x86_64__)

/* vmafuzz_stack_switch(void **save_sp, void *to_sp): push the registers the
 * System V ABI makes callee-saved, store the stack pointer, load the other
 * one, pop its registers and return into it. */
void vmafuzz_stack_switch(void **save_sp, void *to_sp);
__asm__(".text\n"
	".globl vmafuzz_stack_switch\n"
	".hidden vmafuzz_stack_switch\n"
	".type vmafuzz_stack_switch, @function\n"
	"vmafuzz_stack_switch:\n"
	"\tpushq %rbp\n"
	"\tpushq %rbx\n"
	"\tpushq %r12\n"
	"\tpushq %r13\n"
	"\tpushq %r14\n"
	"\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n"
	"\tpopq %r14\n"
	"\tpopq %r13\n"
	"\tpopq %r12\n"
	"\tpopq %rbx\n"
	"\tpopq %rbp\n"
	"\tret\n"
	".size vmafuzz_stack_switch, .-vmafuzz_stack_switch\n");

void fiber_ctx_make(struct fiber_ctx *c, void *stack, size_t size, void (*entry)(void))
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
	void **sp = (void **)top;

	/* entered by `ret` as if called: rsp + 8 aligned to 16 at entry */
	*--sp = NULL;		    /* no return address: entry never returns */
	*--sp = (void *)entry;	    /* where the first switch returns to */
	for (int i = 0; i < 6; i++) /* rbp rbx r12 r13 r14 r15 */
		*--sp = NULL;
	c->sp = sp;
}

void fiber_ctx_switch(struct fiber_ctx *from, struct fiber_ctx *to)
{
	vmafuzz_stack_switch(&from->sp, to->sp);
}

#else

void fiber_ctx_make(struct fiber_ctx *c, void *stack, size_t size, void (*entry)(void))
{
	MODEL_ASSERT(getcontext(&c->uc) == 0);
	c->uc.uc_stack.ss_sp = stack;
	c->uc.uc_stack.ss_size = size;
	c->uc.uc_link = NULL;
	makecontext(&c->uc, entry, 0);
}

void fiber_ctx_switch(struct fiber_ctx *from, struct fiber_ctx *to)
{
	swapcontext(&from->uc, &to->uc);
}

#endif
