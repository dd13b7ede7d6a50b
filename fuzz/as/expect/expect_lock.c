/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mlock, mlock2, munlock, mlockall and munlockall leave
 * (expect_edit.h): the lock flags of the pages they reach, from the call
 * and its result. mlock sets VM_LOCKED on every page of its range (and
 * VM_LOCKONFAULT with MLOCK_ONFAULT, clearing it without), munlock clears
 * both; a hole ends them with -ENOMEM after the pages before it changed, and
 * a range that starts in a hole changes nothing. Population comes after the
 * flags: its failures (mlock's -ENOMEM for a page it cannot fault in,
 * -EAGAIN for no memory) leave every page locked. mlockall(MCL_CURRENT)
 * locks every mapping, MCL_FUTURE every later one (mmap takes the flags),
 * munlockall undoes both. A split that fails (an injected allocation
 * failure, a map_limit) leaves the range unknown.
 */
#include "expect_calls.h"
#include "expect_state.h"

#include <errno.h>

/* mlockall's flags as the program names them (mm_ops.h: MCL_*) */
#define MCL_CURRENT 1
#define MCL_FUTURE 2
#define MCL_ONFAULT 4

static bool set_lock(struct exp_store *e, struct exp_rec *r, uint64_t first, uint64_t last,
		     void *arg)
{
	uint64_t flags = (r->flags & ~EXP_LOCK_FLAGS) | (uint64_t)(uintptr_t)arg;

	(void)e;
	(void)first;
	(void)last;
	if (flags == r->flags)
		return false;
	r->flags = flags;
	return true;
}

static bool known_mapped(const struct exp_rec *r)
{
	return !(r->unknown & EU_MAP);
}

void exp_mlock_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		   bool fired)
{
	unsigned p = proc_of(c);
	uint64_t flags = 0, hole = x->hi;
	bool unsure = fired || e->limited[p];
	void *arg;

	if (c->code == MMF_OP_MLOCK)
		flags = AS_VM_LOCKED | (c->a.lock ? AS_VM_LOCKONFAULT : 0); /* mlock2(ONFAULT) */
	arg = (void *)(uintptr_t)flags;
	if (x->lo >= x->hi || c->result == -EINVAL)
		return;				   /* nothing to do, or refused at once */
	if (c->code == MMF_OP_MLOCK && !c->a.lock) /* populated: private copies */
		exp_private_copies(e, p, x->lo, x->hi, false);
	if (x->conflicted || (c->result && c->result != -ENOMEM && c->result != -EAGAIN)) {
		exp_unknown(e, p, x->lo, x->hi, EU_ATTR);
		return;
	}
	if (c->result == -ENOMEM) {
		/* a hole (the pages before it changed), a split that failed, or
		 * mlock's population after every page was locked */
		hole = exp_first_not(e, p, x->lo, x->hi, known_mapped);
		if (hole < x->hi && exp_rec_at(e, p, hole)) {
			exp_unknown(e, p, x->lo, x->hi, EU_ATTR); /* a hole, or not? */
			return;
		}
		if (unsure) {
			exp_unknown(e, p, x->lo, hole, EU_ATTR);
			return;
		}
	}
	if (x->lo < hole)
		exp_edit(e, p, x->lo, hole - 1, set_lock, arg);
}

void exp_mlockall_end(struct as_expect *e, const struct mm_call *c, const struct exp_call *x,
		      bool fired)
{
	unsigned p = proc_of(c);
	unsigned mcl = c->code == MMF_OP_MLOCKALL ? c->a.mcl & 7 : 0;
	uint64_t flags = AS_VM_LOCKED | (mcl & MCL_ONFAULT ? AS_VM_LOCKONFAULT : 0);

	if (c->result)
		return; /* -EINVAL: flags mlockall does not take */
	/* beside another: which one set the default last is not known */
	e->def_lock[p] = x->conflicted ? EXP_DEF_VAGUE : mcl & MCL_FUTURE ? flags : 0;
	if (c->code == MMF_OP_MLOCKALL && !(mcl & MCL_CURRENT))
		return;		    /* MCL_FUTURE alone: the mappings there stay as they are */
	if (x->conflicted || fired) /* a merge that could not allocate: left as it was */
		exp_unknown(e, p, WHOLE_LO, WHOLE_HI, EU_ATTR);
	else
		exp_edit(e, p, WHOLE_LO, WHOLE_HI - 1, set_lock,
			 (void *)(uintptr_t)(c->code == MMF_OP_MLOCKALL ? flags : 0));
	if (c->code == MMF_OP_MLOCKALL && !(mcl & MCL_ONFAULT)) /* populated */
		exp_private_copies(e, p, WHOLE_LO, WHOLE_HI, false);
}
