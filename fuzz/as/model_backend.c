/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model as an address-space backend (as_backend.h): the process table
 * of a program (mms, the model files, each process's userfaultfd fds), the
 * resolution of range specs against a process's live VMAs, one call of the
 * model's system calls, and every invariant of the model over all
 * processes.
 */
#include "model_backend.h"

#include "mm/anon.h"
#include "mm/dump.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/file.h"
#include "mm/fork.h"
#include "mm/madvise.h"
#include "mm/mlock.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/mremap.h"
#include "mm/page.h"
#include "mm/rollup.h"
#include "mm/types.h"
#include "mm/kver.h"
#include "mm/uffd.h"
#include "mm/uprobe.h"
#include "mm/usage.h"
#include "mm/validate.h"
#include "mm/vma.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sync.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(MMF_TOUCH_PAGES == MM_TOUCH_MAX_PAGES, "a touch reaches as many pages everywhere");

struct mm *mmf_get(struct mmf_state *s, unsigned p)
{
	struct mm *mm = s->mm[p % MMF_MAX_PROCS];

	if (mm)
		mm->users++;
	return mm;
}

/* The table empties first: a release may wait for an mmap lock, and a fork
 * on another thread may meanwhile give the free slot to its child, whose
 * copies of its parent's fds are not this process's to close. */
static void close_fds(struct mmf_state *s, unsigned p)
{
	struct uffd_ctx *fds[MMF_FDS];

	memcpy(fds, s->fd[p], sizeof(fds));
	memset(s->fd[p], 0, sizeof(s->fd[p]));
	for (unsigned k = 0; k < MMF_FDS; k++)
		if (fds[k])
			uffd_put(fds[k]);
}

void mmf_copy_fds(struct mmf_state *s, struct mm *parent, unsigned child)
{
	for (unsigned p = 0; p < MMF_MAX_PROCS; p++)
		if (s->mm[p] == parent && p != child) {
			for (unsigned k = 0; k < MMF_FDS; k++)
				if ((s->fd[child][k] = s->fd[p][k]))
					uffd_get(s->fd[child][k]);
			return;
		}
}

void mmf_put(struct mmf_state *s, struct mm *mm)
{
	(void)s;
	mm_put(mm);
}

/* The lowest free slot of process @p's fd table (MMF_FDS: none). */
static unsigned free_fd(const struct mmf_state *s, unsigned p)
{
	unsigned k;

	for (k = 0; k < MMF_FDS && s->fd[p][k]; k++)
		;
	return k;
}

/* fork: the child takes a free process slot and a copy of the parent's fd
 * table; the parent (as the monitor) receives the child's new userfaultfds
 * in free fd slots. */
static void fork_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mm_call *c)
{
	struct fork_opts o = {
	    .algo = c->a.algo ? FORK_APPEND : FORK_TREE_DUP,
	    .policy = c->a.policy ? ANON_POLICY_REUSE_MERGEABLE : ANON_POLICY_CURRENT,
	    .check = true,
	    .differential = c->a.diff,
	};
	struct fork_uffd fu;
	struct uffd_ctx *child_fd[MMF_FDS] = {0};
	struct mm *child;
	unsigned slot;

	for (slot = 0; slot < MMF_MAX_PROCS && s->mm[slot]; slot++)
		;
	if (slot == MMF_MAX_PROCS) {
		c->result = -EAGAIN;
		return;
	}
	c->result = mm_fork(mm, slot, &o, &child, &fu);
	if (c->result)
		return;
	/* the child's fd table is a copy of the parent's as it was (copy_files
	 * comes before the new contexts reach the monitor): the same contexts,
	 * one file reference more each, so a close in one process alone does
	 * not release them */
	if (s->mm[p] == mm)
		for (unsigned k = 0; k < MMF_FDS; k++)
			if ((child_fd[k] = s->fd[p][k]))
				uffd_get(child_fd[k]);
	for (unsigned i = 0; i < fu.n; i++) {
		/* the parent's fd table, unless it exited meanwhile (the slot
		 * may be another process's now) */
		unsigned k = s->mm[p] == mm ? free_fd(s, p) : MMF_FDS;
		struct alloc_fail_pause pause;

		if (k < MMF_FDS) {
			s->fd[p][k] = fu.ctx[i];
			continue;
		}
		/* no fd for it: the monitor closes it, after the fork (a close
		 * cannot fail, and an allocation failing in it is not the
		 * fork's) */
		alloc_fail_pause(&pause);
		uffd_put(fu.ctx[i]);
		alloc_fail_resume(&pause);
	}
	/* another thread may have taken the slot while we forked */
	for (slot = 0; slot < MMF_MAX_PROCS && s->mm[slot]; slot++)
		;
	if (slot == MMF_MAX_PROCS) {
		for (unsigned k = 0; k < MMF_FDS; k++)
			if (child_fd[k])
				uffd_put(child_fd[k]);
		mmf_put(s, child);
		c->result = -EAGAIN;
		return;
	}
	child->id = slot;
	s->mm[slot] = child;
	memcpy(s->fd[slot], child_fd, sizeof(child_fd));
}

static int model_init(struct mmf_state *s)
{
	memset(s, 0, sizeof(*s));
	s->mm[0] = mm_create(0, MMF_WINDOW_LO, MMF_WINDOW_HI);
	if (!s->mm[0])
		return -ENOMEM;
	s->mm[0]->users = 1;
	for (unsigned i = 0; i < MMF_FILES; i++) {
		s->files[i] = file_create(i, false);
		MODEL_ASSERT(s->files[i] != NULL);
		s->files[i]->data = MMF_FILE_DATA(i);
	}
	return 0;
}

static unsigned live_mms(struct mmf_state *s, struct mm **out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		if (s->mm[i])
			out[n++] = s->mm[i];
	return n;
}

static void model_finish(struct mmf_state *s)
{
	struct mm *mms[MMF_MAX_PROCS];
	unsigned n = live_mms(s, mms);

	lock_asserts_off(); /* a check at rest (sync.h) */
	for (unsigned i = 0; i < n; i++)
		mm_check_at_rest(mms[i]);
	lock_asserts_on();
	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		close_fds(s, i);
	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		if (s->mm[i]) {
			struct mm *mm = s->mm[i];

			s->mm[i] = NULL;
			mmf_put(s, mm);
		}
	rcu_barrier();
	for (unsigned i = 0; i < MMF_FILES; i++)
		file_put(s->files[i]);
	mem_check_empty();
}

/* The k-th gap (mod their number) of @mm inside the window. */
static bool nth_gap(struct mm *mm, unsigned k, uint64_t *first, uint64_t *last)
{
	uint64_t lo[64], hi[64], at = MMF_WINDOW_LO;
	unsigned n = 0;
	struct vma *v = mm_find_vma(mm, at);

	for (; n < 64; v = mm_find_vma(mm, at)) {
		uint64_t stop = v && v->start < MMF_WINDOW_HI ? v->start : MMF_WINDOW_HI;

		if (stop > at) {
			lo[n] = at;
			hi[n++] = stop - 1;
		}
		/* (read without the mmap lock, a VMA being changed may end
		 * where we are: stop rather than go round) */
		if (!v || v->end >= MMF_WINDOW_HI || v->end <= at)
			break;
		at = v->end;
	}
	if (!n)
		return false;
	*first = lo[k % n];
	*last = hi[k % n];
	return true;
}

static void resolve_range(struct mm *mm, const struct range_spec *spec, uint64_t *start,
			  uint64_t *len, bool locked);

/* What the program saw when it computed its arguments: a consistent view,
 * under the mmap read lock. */
void mmf_resolve(struct mm *mm, const struct range_spec *spec, uint64_t *start, uint64_t *len)
{
	mmap_read_lock(&mm->lock);
	resolve_range(mm, spec, start, len, true);
	mmap_read_unlock(&mm->lock);
}

/* Without the mmap lock (@locked false: under RCU, for operations that take
 * no lock of the process) the VMA count may be ahead of the tree, as another
 * thread may be inside an operation. */
static void resolve_range(struct mm *mm, const struct range_spec *spec, uint64_t *start,
			  uint64_t *len, bool locked)
{
	struct range_spec rs = *spec;
	uint64_t first = MMF_WINDOW_LO, last = MMF_WINDOW_HI - 1;
	bool found = false;

	switch (rs.mode) {
	case RS_ENTRY:
		if (mm->map_count > 0) {
			struct vma *v = mm_vma_nth(mm, rs.k % (unsigned)mm->map_count);

			MODEL_ASSERT(v != NULL || !locked);
			if (!v)
				break;
			first = v->start;
			last = v->end - 1;
			found = true;
		}
		break;
	case RS_GAP:
		found = nth_gap(mm, rs.k, &first, &last);
		break;
	case RS_RAW:
		first = MMF_WINDOW_LO + ((uint64_t)rs.v << PAGE_SHIFT);
		break;
	case RS_TOP:
		first = MMF_WINDOW_HI - ((uint64_t)(rs.v + 1) << PAGE_SHIFT);
		break;
	}
	if (!found && (rs.mode == RS_ENTRY || rs.mode == RS_GAP))
		first = MMF_WINDOW_LO + ((uint64_t)rs.k << PAGE_SHIFT);
	*start = first + (uint64_t)((int64_t)rs.d * (int64_t)PAGE_SIZE);
	if (*start < MMF_WINDOW_LO || *start >= MMF_WINDOW_HI)
		*start = first;
	if (rs.len) {
		*len = (uint64_t)rs.len << PAGE_SHIFT;
	} else {
		/* to the end of the VMA or gap holding the start */
		struct vma *v = mm_vma_at(mm, *start);

		if (v) {
			*len = v->end - *start;
		} else {
			struct vma *next = mm_find_vma(mm, *start);
			uint64_t stop =
			    next && next->start < MMF_WINDOW_HI ? next->start : MMF_WINDOW_HI;

			*len = stop - *start;
		}
		(void)last;
	}
}

/* mremap's new address and length (c->to, c->to_len; mmap read lock held):
 * where the program's to and k say, kept inside the window. */
static void resolve_dest(struct mm *mm, struct mm_call *c)
{
	uint64_t at = MMF_WINDOW_LO + ((uint64_t)c->a.k << PAGE_SHIFT), last;
	uint64_t step = (uint64_t)c->a.k << PAGE_SHIFT;

	switch (c->a.to) {
	case MMF_TO_GAP:
		nth_gap(mm, c->a.k, &at, &last);
		break;
	case MMF_TO_VMA:
		if (mm->map_count > 0)
			at = mm_vma_nth(mm, c->a.k % (unsigned)mm->map_count)->start;
		break;
	case MMF_TO_UP:
		at = c->start + step;
		break;
	case MMF_TO_DOWN:
		at = c->start - step;
		break;
	case MMF_TO_HOME: {
		struct vma *v = mm_vma_at(mm, c->start);
		uint64_t pgoff;

		if (!v || mt_is_zero(v))
			break; /* no VMA there: the window's start, as for k pages */
		pgoff = v->pgoff + ((c->start - v->start) >> PAGE_SHIFT);
		at = v->file ? MMF_WINDOW_LO + (pgoff << PAGE_SHIFT) : pgoff << PAGE_SHIFT;
		break;
	}
	}
	if (at < MMF_WINDOW_LO || at >= MMF_WINDOW_HI)
		at = c->start; /* overlaps the old range: -EINVAL for a move */
	c->to = at;
	c->to_len = (uint64_t)c->a.n << PAGE_SHIFT;
}

/* The process's fd table: a slot read and cleared with no scheduling point
 * in between, and a reference held across the call, as fdget() does. */
static void uffd_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mm_call *c)
{
	struct uffd_ctx **slot = &s->fd[p][c->a.handle % MMF_FDS], *x = *slot;

	if (c->code == MMF_OP_UFFD_CREATE) {
		/* the new context goes in the lowest free slot, as a new fd
		 * does; the result is the slot, h<k> for later operations */
		unsigned k = free_fd(s, p);

		if (k == MMF_FDS) {
			c->result = -EMFILE;
			return;
		}
		x = uffd_create(mm, c->a.features & 1);
		c->result = x ? 0 : -ENOMEM;
		if (!x)
			return;
		x->event_remap = c->a.features & 2;
		k = free_fd(s, p); /* other threads may have taken slots meanwhile */
		if (k == MMF_FDS || s->mm[p] != mm) {
			/* no room, or the process exited meanwhile (its slot may be
			 * another process's now) */
			uffd_put(x);
			c->result = s->mm[p] != mm ? -ESRCH : -EMFILE;
			return;
		}
		s->fd[p][k] = x;
		c->result = k;
		return;
	}
	if (!x) {
		c->result = -EBADF;
		return;
	}
	if (c->code == MMF_OP_UFFD_RELEASE) {
		*slot = NULL;
		uffd_put(x);
		c->result = 0;
		return;
	}
	uffd_get(x);
	if (c->code == MMF_OP_UFFD_REGISTER)
		c->result = uffd_register(x, c->start, c->len, c->a.modes);
	else
		c->result = uffd_unregister(x, c->start, c->len);
	uffd_put(x);
}

/* uprobe: a probe on each page of the range, in turn (the first
 * MMF_UPROBE_MAX): the number installed, or the first error. */
static void uprobe_call(struct mm *mm, struct mm_call *c)
{
	c->result = 0;
	for (uint64_t k = 0; k < c->len >> PAGE_SHIFT && k < MMF_UPROBE_MAX; k++) {
		/* the file and offset the process maps there now, looked up
		 * under RCU alone; the probe holds the inode (a shared
		 * anonymous mapping's file may go with its VMA meanwhile) */
		uint64_t at = c->start + (k << PAGE_SHIFT), pgoff = 0;
		struct file *f = NULL;
		struct vma *v;
		int r;

		rcu_read_lock();
		v = mm_find_vma(mm, at);
		if (v && v->start <= at && v->file) {
			f = file_get(v->file);
			pgoff = v->pgoff + ((at - v->start) >> PAGE_SHIFT);
		}
		rcu_read_unlock();
		if (f) {
			r = uprobe_register(f, pgoff);
			file_put(f);
		} else {
			r = -EINVAL;
		}
		if (c->result >= 0) /* probes installed, or the first error */
			c->result = r < 0 ? r : c->result + r;
	}
}

/* exit: the process leaves the table; its mm goes with its last user. */
static void exit_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mm_call *c)
{
	if (s->mm[p] != mm) {
		c->result = -ESRCH; /* another thread's exit came first */
		return;
	}
	s->mm[p] = NULL;
	close_fds(s, p);
	mmf_put(s, mm);
	c->result = 0;
}

/* One call of the model's system calls, its range resolved. */
static void model_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mm_call *c)
{
	switch (c->code) {
	case MMF_OP_MMAP: {
		int flags = mmf_mmap_flags(&c->a);
		struct file *f = flags & MAP_ANONYMOUS ? NULL : s->files[c->a.file % MMF_FILES];
		/* file offset: the page's place in the window, so neighbours continue */
		uint64_t pgoff = (c->start - MMF_WINDOW_LO) >> PAGE_SHIFT;

		c->result = mm_mmap(mm, c->start, c->len, mmf_prot(c->a.prot), flags, f, pgoff);
		break;
	}
	case MMF_OP_MUNMAP:
		c->result = mm_munmap(mm, c->start, c->len);
		break;
	case MMF_OP_MPROTECT:
		c->result = mm_mprotect(mm, c->start, c->len, mmf_prot(c->a.prot));
		break;
	case MMF_OP_MADVISE:
		c->result = mm_madvise(mm, c->start, c->len, mmf_advice(c->a.advice));
		break;
	case MMF_OP_TOUCH:
		c->result = mm_access(mm, c->start, c->len, c->a.access == 1, c->value, c->seen);
		break;
	case MMF_OP_UFFD_CREATE:
	case MMF_OP_UFFD_REGISTER:
	case MMF_OP_UFFD_UNREGISTER:
	case MMF_OP_UFFD_RELEASE:
		uffd_call(s, p, mm, c);
		break;
	case MMF_OP_FORK:
		fork_call(s, p, mm, c);
		break;
	case MMF_OP_EXIT:
		exit_call(s, p, mm, c);
		break;
	case MMF_OP_MREMAP:
		c->result = mm_mremap(mm, c->start, c->len, c->to_len, c->a.remap_flags & 7, c->to);
		break;
	case MMF_OP_MLOCK:
		c->result =
		    mm_mlock(mm, c->start, c->len, VM_LOCKED | (c->a.lock ? VM_LOCKONFAULT : 0));
		break;
	case MMF_OP_MUNLOCK:
		c->result = mm_munlock(mm, c->start, c->len);
		break;
	case MMF_OP_MLOCKALL:
		c->result = mm_mlockall(mm, c->a.mcl & 7);
		break;
	case MMF_OP_MUNLOCKALL:
		c->result = mm_munlockall(mm);
		break;
	case MMF_OP_MAP_LIMIT:
		/* a sysctl write: no lock, read by each later mmap and split */
		mm->max_map_count = mm->map_count + c->a.n;
		c->result = 0;
		break;
	case MMF_OP_UPROBE:
		uprobe_call(mm, c);
		break;
	case MMF_OP_ROLLUP: {
		struct rollup r;

		rollup_read(mm, c->a.reader ? ROLLUP_VMA_LOCK : ROLLUP_MMAP_LOCK, &r);
		rollup_check(mm, &r);
		rollup_free(&r);
		c->result = 0;
		break;
	}
	}
}

/* Distinct dead mms held by open userfaultfds. */
static unsigned dead_mms(struct mmf_state *s)
{
	struct mm *seen[MMF_MAX_PROCS * MMF_FDS];
	unsigned n = 0;

	for (unsigned p = 0; p < MMF_MAX_PROCS; p++)
		for (unsigned k = 0; k < MMF_FDS; k++) {
			struct uffd_ctx *x = s->fd[p][k];
			bool dup = false;

			if (!x || !x->mm->dead)
				continue;
			for (unsigned i = 0; i < n && !dup; i++)
				dup = seen[i] == x->mm;
			if (!dup)
				seen[n++] = x->mm;
		}
	return n;
}

static void model_check(struct mmf_state *s)
{
	struct mm *mms[MMF_MAX_PROCS];
	unsigned n = live_mms(s, mms);
	struct mm_reach r;

	mm_validate_all(mms, n);
	uffd_check_no_fork_ctx(); /* at rest no fork is in flight */
	mm_reachable(mms, n, s->files, MMF_FILES, &r);
	/* exited processes whose mm a still open userfaultfd holds */
	{
		uint64_t ctxs = 0, dead = 0;

		for (unsigned p = 0; p < MMF_MAX_PROCS; p++)
			for (unsigned k = 0; k < MMF_FDS; k++) {
				struct uffd_ctx *x = s->fd[p][k];
				bool seen = false;

				if (!x)
					continue;
				for (unsigned q = 0; q <= p && !seen; q++)
					for (unsigned j = 0; j < (q == p ? k : MMF_FDS) && !seen;
					     j++)
						seen = s->fd[q][j] == x;
				if (seen)
					continue;
				ctxs++;
				dead += x->mm->dead;
			}
		mem_check_live(AK_MM, n + dead_mms(s));
		mem_check_live(AK_UFFD_CTX, ctxs);
		(void)dead;
	}
	mem_check_live(AK_VMA, r.vmas + rcu_pending(AK_VMA));
	mem_check_live(AK_ANON_VMA, r.anon_vmas);
	mem_check_live(AK_AVC, r.avcs);
	mem_check_live(AK_PAGE, r.pages);
	mem_check_live(AK_PGTABLE, r.pgtables);
	mem_check_live(AK_FILE, r.files);
	mem_check_live(AK_MT_NODE, r.nodes + rcu_pending(AK_MT_NODE));
}

static void model_dump(FILE *out, struct mmf_state *s)
{
	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		if (s->mm[i]) {
			fprintf(out, "p%u: ", i);
			mm_dump(out, s->mm[i]);
		}
}

/* ---- the backend --------------------------------------------------------- */

static void *as_open(char *err, size_t errlen)
{
	struct mmf_state *s = malloc(sizeof(*s));

	if (s && !model_init(s))
		return s;
	free(s);
	if (err)
		snprintf(err, errlen, "the model cannot make its first process");
	return NULL;
}

void as_model_forbid_zeropage(void *as, bool on)
{
	struct mmf_state *s = as;

	if (s->mm[0])
		s->mm[0]->forbids_zeropage = on;
}

int as_model_open_fds(void *as, unsigned proc)
{
	struct mmf_state *s = as;
	int n = 0;

	proc %= MMF_MAX_PROCS;
	for (unsigned k = 0; s->mm[proc] && k < MMF_FDS; k++)
		n += s->fd[proc][k] != NULL;
	return n;
}

void as_model_set_kver(void *as, unsigned kver)
{
	struct mmf_state *s = as;

	if (s->mm[0])
		s->mm[0]->kver = kver;
}

void as_model_files_hold_zeros(void *as)
{
	struct mmf_state *s = as;

	for (unsigned i = 0; i < MMF_FILES; i++)
		s->files[i]->data = 0;
}

static void as_close(void *as)
{
	model_finish(as);
	free(as);
}

/* The process's mm with a user reference (mmget), as a system call holds it. */
static bool as_get(void *as, struct mm_call *c)
{
	c->proc = mmf_get(as, c->a.proc);
	return c->proc != NULL;
}

static void as_resolve(void *as, struct mm_call *c)
{
	struct mm *mm = c->proc;

	(void)as;
	if (c->code == MMF_OP_UPROBE) {
		/* a probe names a file and offset, and registration takes no
		 * lock of the process: the range is only how the program names
		 * them */
		rcu_read_lock();
		resolve_range(mm, &c->a.range, &c->start, &c->len, false);
		rcu_read_unlock();
	} else {
		mmf_resolve(mm, &c->a.range, &c->start, &c->len);
	}
	if (c->code == MMF_OP_MREMAP) {
		mmap_read_lock(&mm->lock);
		resolve_dest(mm, c);
		mmap_read_unlock(&mm->lock);
	}
}

static void as_call(void *as, struct mm_call *c)
{
	model_call(as, c->a.proc % MMF_MAX_PROCS, c->proc, c);
}

static void as_put(void *as, struct mm_call *c)
{
	mmf_put(as, c->proc);
	c->proc = NULL;
}

static const char *as_refuses(void *as, const struct mm_call *c)
{
	(void)as;
	(void)c;
	return NULL; /* the model runs every operation */
}

static int as_vmas(void *as, unsigned proc, uint64_t lo, uint64_t hi, bool usage,
		   struct as_vma *out, unsigned max, char *err, size_t errlen)
{
	struct mmf_state *s = as;
	struct mm *mm = s->mm[proc % MMF_MAX_PROCS];
	struct mt_cursor cur;
	struct vma *v;
	unsigned n = 0;

	if (!mm) {
		if (errlen) /* (a caller asking whether it exists wants no words) */
			snprintf(err, errlen, "the model has no process p%u", proc);
		return -1;
	}
	lock_asserts_off();
	mt_cursor_init(&cur, &mm->mt, lo);
	while (n < max && (v = mt_cursor_next(&cur)) && v->start < hi) {
		struct vma_usage u = {0, 0};
		struct rollup_stats st = {0};

		if (mt_is_zero(v))
			break;
		if (usage) {
			vma_usage(mm, v, &u);
			smaps_gather(v, v->start, &st);
		}
		out[n++] = (struct as_vma){
		    .start = v->start,
		    .end = v->end,
		    /* what smaps says of it: VmFlags without lf before the
		     * version that names it */
		    .flags =
			v->flags & ~(kver_has(mm->kver, KV_SMAPS_SHOWS_LF) ? 0 : VM_LOCKONFAULT),
		    .pgoff = v->pgoff,
		    .rss = u.rss,
		    .anon = u.anonymous,
		    .file = v->file != NULL,
		    .pss_kb = st.pss >> (PSS_SHIFT + 10),
		    .pss_dirty_kb = st.pss_dirty >> (PSS_SHIFT + 10),
		    .shared_clean = st.shared_clean >> PAGE_SHIFT,
		    .shared_dirty = st.shared_dirty >> PAGE_SHIFT,
		    .private_clean = st.private_clean >> PAGE_SHIFT,
		    .private_dirty = st.private_dirty >> PAGE_SHIFT,
		    .uffd = v->uffd ? v->uffd->id : 0,
		};
	}
	lock_asserts_on();
	return (int)n;
}

struct pages_walk {
	void (*fn)(void *arg, uint64_t addr, uint64_t value);
	void *arg;
};

static void page_one(struct mm *mm, uintptr_t *slot, uint64_t addr, void *arg)
{
	struct pages_walk *w = arg;

	(void)mm;
	w->fn(w->arg, addr, pte_page(*slot)->val);
}

static int as_pages(void *as, unsigned proc, uint64_t lo, uint64_t hi,
		    void (*fn)(void *arg, uint64_t addr, uint64_t value), void *arg, char *err,
		    size_t errlen)
{
	struct mmf_state *s = as;
	struct mm *mm = s->mm[proc % MMF_MAX_PROCS];
	struct pages_walk w = {fn, arg};

	if (!mm) {
		snprintf(err, errlen, "the model has no process p%u", proc);
		return -1;
	}
	lock_asserts_off();
	for_each_pte(mm, lo, hi, page_one, &w);
	lock_asserts_on();
	return 0;
}

/* The checks and views below read the model at rest (or, for a report,
 * wherever it stopped) and take no lock: the kernel's lock assertions are
 * off for them (sync.h). */
/* What a process's VMAs, page table and the pages' data owe their state to:
 * VMAs change only under the mmap write lock (the lock assertions hold the
 * model to it), whose count its seq is; entries only through pte_set and
 * pte_clear, which count in fault_changes; data only through page_access. */
static const void *as_lock_of(void *as, unsigned cls, unsigned k)
{
	struct mmf_state *s = as;
	struct mm *mm;

	if (cls == MMF_LC_I_MMAP)
		return &s->files[k % MMF_FILES]->i_mmap_rwsem;
	mm = cls == MMF_LC_MMAP ? s->mm[k % MMF_MAX_PROCS] : NULL;
	return mm ? &mm->lock.sem : NULL;
}

static void as_changes(void *as, unsigned proc, uint64_t *vmas, uint64_t *pages)
{
	struct mm *mm = ((struct mmf_state *)as)->mm[proc % MMF_MAX_PROCS];

	*vmas = mm ? mm->lock.seq : UINT64_MAX;
	*pages = mm ? mm->fault_changes + page_data_changes : UINT64_MAX;
}

static void as_check(void *as)
{
	lock_asserts_off();
	model_check(as);
	lock_asserts_on();
}

static void as_dump(FILE *out, void *as)
{
	lock_asserts_off();
	model_dump(out, as);
	lock_asserts_on();
}

/* Calls that may succeed although an allocation inside them failed: mmap
 * falls back to a VMA of its own when a merge cannot allocate (as 6.12's
 * __mmap_region; src/mm/mmap.c), population errors are ignored (mmap,
 * mprotect of a locked mapping, mlockall), and a move by mremap keeps both
 * ranges when the old one cannot be split. */
static bool as_absorbs(const struct mm_call *c)
{
	switch (c->code) {
	case MMF_OP_MPROTECT:
		return c->a.prot & 2; /* populating what becomes writable */
	case MMF_OP_MADVISE:
		return c->a.advice == MMF_ADV_PAGEOUT; /* reclaim may fail */
	case MMF_OP_MMAP:
	case MMF_OP_MREMAP:
	case MMF_OP_MLOCKALL:
	case MMF_OP_MUNLOCKALL:
		return true;
	default:
		return false;
	}
}

const struct as_backend as_model = {
    .name = "model",
    .absorbs = as_absorbs,
    .open = as_open,
    .close = as_close,
    .get = as_get,
    .resolve = as_resolve,
    .call = as_call,
    .put = as_put,
    .refuses = as_refuses,
    .vmas = as_vmas,
    .pages = as_pages,
    .changes = as_changes,
    .lock_of = as_lock_of,
    .check = as_check,
    .dump = as_dump,
};
