/* fuzz_mm's state, resolution, calls and checks (mm_fuzz.h). */
#include "mm_fuzz.h"

#include "exec.h"
#include "mm/anon.h"
#include "mm/dump.h"
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/file.h"
#include "mm/fork.h"
#include "mm/madvise.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/mprotect.h"
#include "mm/rollup.h"
#include "mm/types.h"
#include "mm/uffd.h"
#include "mm/uprobe.h"
#include "mm/validate.h"
#include "mm/vma.h"
#include "prog.h"
#include "runtime/check.h"
#include "runtime/mem_check.h"
#include "runtime/sched.h"
#include "runtime/sync.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *const mmf_prot_names[] = {"r", "w", "x", NULL};
const char *const mmf_kind_names[] = {"private", "shared", "private_file", "shared_file", NULL};
const char *const mmf_place_names[] = {"fixed", "noreplace", "hint", NULL};
const char *const mmf_advice_names[] = {"dontneed",   "dontfork",   "dofork",
					"wipeonfork", "keeponfork", NULL};
const char *const mmf_access_names[] = {"read", "write", NULL};
const char *const mmf_uffd_mode_names[] = {"missing", "wp", "minor", NULL};
const char *const mmf_uffd_feature_names[] = {"nofork", "fork", NULL};
const char *const mmf_algo_names[] = {"tree", "append", NULL};
const char *const mmf_policy_names[] = {"current", "reuse", NULL};
const char *const mmf_diff_names[] = {"nodiff", "diff", NULL};
const char *const mmf_reader_names[] = {"mmap", "vma", NULL};

struct mm *mmf_get(struct mmf_state *s, unsigned p)
{
	struct mm *mm = s->mm[p % MMF_MAX_PROCS];

	if (mm)
		mm->users++;
	return mm;
}

static void close_fds(struct mmf_state *s, unsigned p)
{
	for (unsigned k = 0; k < MMF_FDS; k++)
		if (s->fd[p][k]) {
			struct uffd_ctx *x = s->fd[p][k];

			s->fd[p][k] = NULL;
			uffd_put(x);
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

/* fork: the child takes a free process slot; the parent (as the monitor)
 * receives the child's new userfaultfds in free fd slots. */
static void fork_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mmf_call *c)
{
	struct fork_opts o = {
	    .algo = c->algo ? FORK_APPEND : FORK_TREE_DUP,
	    .policy = c->policy ? ANON_POLICY_REUSE_MERGEABLE : ANON_POLICY_CURRENT,
	    .check = true,
	    .differential = c->diff,
	};
	struct fork_uffd fu;
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
	for (unsigned i = 0; i < fu.n; i++) {
		unsigned k = free_fd(s, p);

		if (k < MMF_FDS)
			s->fd[p][k] = fu.ctx[i];
		else
			uffd_put(fu.ctx[i]);
	}
	/* another thread may have taken the slot while we forked */
	for (slot = 0; slot < MMF_MAX_PROCS && s->mm[slot]; slot++)
		;
	if (slot == MMF_MAX_PROCS) {
		mmf_put(s, child);
		c->result = -EAGAIN;
		return;
	}
	child->id = slot;
	s->mm[slot] = child;
}

int mmf_init(struct mmf_state *s)
{
	memset(s, 0, sizeof(*s));
	s->mm[0] = mm_create(0, MMF_WINDOW_LO, MMF_WINDOW_HI);
	if (!s->mm[0])
		return -ENOMEM;
	s->mm[0]->users = 1;
	for (unsigned i = 0; i < MMF_FILES; i++) {
		s->files[i] = file_create(i, false);
		MODEL_ASSERT(s->files[i] != NULL);
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

void mmf_finish(struct mmf_state *s)
{
	struct mm *mms[MMF_MAX_PROCS];
	unsigned n = live_mms(s, mms);

	for (unsigned i = 0; i < n; i++)
		mm_check_at_rest(mms[i]);
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

static void resolve_range(struct mm *mm, const uint8_t *spec, uint64_t *start, uint64_t *len,
			  bool locked);

/* What the program saw when it computed its arguments: a consistent view,
 * under the mmap read lock. */
void mmf_resolve(struct mm *mm, const uint8_t *spec, uint64_t *start, uint64_t *len)
{
	mmap_read_lock(&mm->lock);
	resolve_range(mm, spec, start, len, true);
	mmap_read_unlock(&mm->lock);
}

/* Without the mmap lock (@locked false: under RCU, for operations that take
 * no lock of the process) the VMA count may be ahead of the tree, as another
 * thread may be inside an operation. */
static void resolve_range(struct mm *mm, const uint8_t *spec, uint64_t *start, uint64_t *len,
			  bool locked)
{
	struct range_spec rs;
	uint64_t first = MMF_WINDOW_LO, last = MMF_WINDOW_HI - 1;
	bool found = false;

	range_spec_decode(spec, &rs);
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

int mmf_prot(uint8_t prot)
{
	return (prot & 1 ? PROT_READ : 0) | (prot & 2 ? PROT_WRITE : 0) |
	       (prot & 4 ? PROT_EXEC : 0);
}

int mmf_mmap_flags(const struct mmf_call *c)
{
	int flags =
	    c->kind == MMF_SHARED_ANON || c->kind == MMF_SHARED_FILE ? MAP_SHARED : MAP_PRIVATE;

	if (c->kind == MMF_PRIVATE_ANON || c->kind == MMF_SHARED_ANON)
		flags |= MAP_ANONYMOUS;
	if (c->place == MMF_FIXED)
		flags |= MAP_FIXED;
	else if (c->place == MMF_NOREPLACE)
		flags |= MAP_FIXED_NOREPLACE;
	return flags;
}

int mmf_advice(uint8_t advice)
{
	static const int map[] = {MADV_DONTNEED, MADV_DONTFORK, MADV_DOFORK, MADV_WIPEONFORK,
				  MADV_KEEPONFORK};

	return map[advice % 5];
}

/* The process's fd table: a slot read and cleared with no scheduling point
 * in between, and a reference held across the call, as fdget() does. */
static void uffd_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mmf_call *c)
{
	struct uffd_ctx **slot = &s->fd[p][c->handle % MMF_FDS], *x = *slot;

	if (c->op == MMF_UFFD_CREATE) {
		/* the new context goes in the lowest free slot, as a new fd
		 * does; the result is the slot, h<k> for later operations */
		unsigned k = free_fd(s, p);

		if (k == MMF_FDS) {
			c->result = -EMFILE;
			return;
		}
		x = uffd_create(mm, c->modes == 1);
		c->result = x ? 0 : -ENOMEM;
		if (!x)
			return;
		k = free_fd(s, p); /* other threads may have taken slots meanwhile */
		if (k == MMF_FDS) {
			uffd_put(x);
			c->result = -EMFILE;
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
	if (c->op == MMF_UFFD_RELEASE) {
		*slot = NULL;
		uffd_put(x);
		c->result = 0;
		return;
	}
	uffd_get(x);
	if (c->op == MMF_UFFD_REGISTER)
		c->result = uffd_register(x, c->start, c->len, c->modes);
	else
		c->result = uffd_unregister(x, c->start, c->len);
	uffd_put(x);
}

void mmf_call(struct mmf_state *s, unsigned p, struct mm *mm, struct mmf_call *c)
{
	switch (c->op) {
	case MMF_MMAP: {
		int flags = mmf_mmap_flags(c);
		struct file *f = flags & MAP_ANONYMOUS ? NULL : s->files[c->file % MMF_FILES];
		/* file offset: the page's place in the window, so neighbours continue */
		uint64_t pgoff = (c->start - MMF_WINDOW_LO) >> PAGE_SHIFT;

		c->result = mm_mmap(mm, c->start, c->len, mmf_prot(c->prot), flags, f, pgoff);
		break;
	}
	case MMF_MUNMAP:
		c->result = mm_munmap(mm, c->start, c->len);
		break;
	case MMF_MPROTECT:
		c->result = mm_mprotect(mm, c->start, c->len, mmf_prot(c->prot));
		break;
	case MMF_MADVISE:
		c->result = mm_madvise(mm, c->start, c->len, mmf_advice(c->advice));
		break;
	case MMF_TOUCH:
		c->result = mm_touch(mm, c->start, c->len, c->write);
		break;
	case MMF_UFFD_CREATE:
	case MMF_UFFD_REGISTER:
	case MMF_UFFD_UNREGISTER:
	case MMF_UFFD_RELEASE:
		uffd_call(s, p, mm, c);
		break;
	case MMF_FORK:
		fork_call(s, p, mm, c);
		break;
	case MMF_EXIT:
		/* the process leaves the table; its mm goes with its last user */
		if (s->mm[p] != mm) {
			c->result = -ESRCH; /* another thread's exit came first */
			break;
		}
		s->mm[p] = NULL;
		close_fds(s, p);
		mmf_put(s, mm);
		c->result = 0;
		break;
	case MMF_MAP_LIMIT:
		/* a sysctl write: no lock, read by each later mmap and split */
		mm->max_map_count = mm->map_count + c->limit;
		c->result = 0;
		break;
	case MMF_UPROBE:
		c->result = 0;
		for (uint64_t k = 0; k < c->len >> PAGE_SHIFT && k < MMF_UPROBE_MAX; k++) {
			/* the file and offset the process maps there now, looked
			 * up under RCU alone; the probe holds the inode (a shared
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
		break;
	case MMF_ROLLUP: {
		struct rollup r;

		rollup_read(mm, c->reader ? ROLLUP_VMA_LOCK : ROLLUP_MMAP_LOCK, &r);
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

void mmf_check(struct mmf_state *s)
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

void mmf_dump(FILE *out, struct mmf_state *s)
{
	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		if (s->mm[i]) {
			fprintf(out, "p%u: ", i);
			mm_dump(out, s->mm[i]);
		}
}

const struct prog_opdesc mmf_ops[MMF_NOPS] = {MMF_OPDESCS};

/* replay -v: each operation with what the model returned */
static void trace_result(const struct prog_op *op, int64_t result)
{
	static const struct prog_desc d = {.target = "fuzz_mm", .nops = MMF_NOPS, .ops = mmf_ops};
	const char *name = result < 0 && result > -4096 ? strerrorname_np((int)-result) : NULL;

	fputs("  ", prog_trace);
	prog_print_op(prog_trace, &d, op);
	if (name)
		fprintf(prog_trace, "  = -%s\n", name);
	else if (result < 0)
		fprintf(prog_trace, "  = %" PRId64 "\n", result);
	else
		fprintf(prog_trace, "  = %#" PRIx64 "\n", (uint64_t)result);
}

void mmf_run_op(struct mmf_state *s, const struct prog_op *op)
{
	unsigned p = op->arg[0] % MMF_MAX_PROCS;
	struct mm *mm;
	struct mmf_call c;

	if (op->code == MMF_OP_DELAY) {
		/* a thread busy elsewhere: the schedule passes it by at each point */
		for (unsigned i = 0; i < (op->arg[0] ? op->arg[0] : 1u); i++)
			sched_point("delay");
		return;
	}
	mm = mmf_get(s, p);
	if (!mm)
		return;
	memset(&c, 0, sizeof(c));
	if (op->code == MMF_OP_UPROBE) {
		/* a probe names a file and offset, and registration takes no lock
		 * of the process: the range is only how the program names them */
		rcu_read_lock();
		resolve_range(mm, &op->arg[1], &c.start, &c.len, false);
		rcu_read_unlock();
	} else if (mmf_ops[op->code].nfields > 1 && mmf_ops[op->code].fields[1].kind == FK_RANGE) {
		mmf_resolve(mm, &op->arg[1], &c.start, &c.len);
	}
	switch (op->code) {
	case MMF_OP_MMAP:
		c.op = MMF_MMAP;
		c.prot = op->arg[5];
		c.kind = op->arg[6];
		c.file = op->arg[7];
		c.place = op->arg[8];
		break;
	case MMF_OP_MUNMAP:
		c.op = MMF_MUNMAP;
		break;
	case MMF_OP_MPROTECT:
		c.op = MMF_MPROTECT;
		c.prot = op->arg[5];
		break;
	case MMF_OP_MADVISE:
		c.op = MMF_MADVISE;
		c.advice = op->arg[5];
		break;
	case MMF_OP_TOUCH:
		c.op = MMF_TOUCH;
		c.write = op->arg[5] == 1;
		break;
	case MMF_OP_UFFD_CREATE:
		c.op = MMF_UFFD_CREATE;
		c.modes = op->arg[1];
		break;
	case MMF_OP_UFFD_REGISTER:
		c.op = MMF_UFFD_REGISTER;
		c.modes = op->arg[5];
		c.handle = op->arg[6];
		break;
	case MMF_OP_UFFD_UNREGISTER:
		c.op = MMF_UFFD_UNREGISTER;
		c.handle = op->arg[5];
		break;
	case MMF_OP_UFFD_RELEASE:
		c.op = MMF_UFFD_RELEASE;
		c.handle = op->arg[1];
		break;
	case MMF_OP_FORK:
		c.op = MMF_FORK;
		c.algo = op->arg[1];
		c.policy = op->arg[MMF_FORK_POLICY_ARG];
		c.diff = op->arg[3];
		break;
	case MMF_OP_EXIT:
		c.op = MMF_EXIT;
		break;
	case MMF_OP_UPROBE:
		c.op = MMF_UPROBE;
		break;
	case MMF_OP_ROLLUP:
		c.op = MMF_ROLLUP;
		c.reader = op->arg[1];
		break;
	case MMF_OP_MAP_LIMIT:
		c.op = MMF_MAP_LIMIT;
		c.limit = op->arg[1];
		break;
	}
	exec_arm(op);
	mmf_call(s, p, mm, &c);
	exec_disarm();
	mmf_put(s, mm);
	if (prog_trace)
		trace_result(op, c.result);
}

static void check_cb(void *arg)
{
	mmf_check(arg);
}

static void dump_cb(FILE *out, void *arg)
{
	mmf_dump(out, arg);
}

/*
 * The reverted anon_vma policy (rmap-reuse-mergeable-anon-vma-on-fork) breaks
 * ANON_ONE_MM by design, so an engine would stop at it at once and learn
 * nothing else: engine builds refuse programs that ask for it (libFuzzer
 * keeps no input the target returns -1 for), unless built with
 * -DVMAFUZZ_BUG_reuse_mergeable (make bug-libfuzzer BUG=reuse_mergeable),
 * which shows the harness catching it. Replays always run it.
 */
static bool refused(const struct prog *p, unsigned fork_code)
{
#ifdef VMAFUZZ_BUG_reuse_mergeable
	(void)p;
	(void)fork_code;
	return false;
#else
	if (!exec_under_engine)
		return false;
	for (unsigned i = 0; i < p->nops; i++)
		if ((p->ops[i].code == MMF_OP_FORK || p->ops[i].code == fork_code) &&
		    p->ops[i].arg[MMF_FORK_POLICY_ARG])
			return true;
	return false;
#endif
}

int mmf_run_program(const struct prog_desc *d, unsigned fork_code, exec_op_fn op_fn,
		    const uint8_t *data, size_t size)
{
	return mmf_run_program_after(d, fork_code, NULL, op_fn, data, size);
}

int mmf_run_program_after(const struct prog_desc *d, unsigned fork_code,
			  void (*prologue)(struct mmf_state *s), exec_op_fn op_fn,
			  const uint8_t *data, size_t size)
{
	struct mmf_state s;
	struct exec x;

	if (mmf_init(&s))
		return 0;
	exec_begin(&x, d, data, size, dump_cb, &s);
	if (refused(&x.prog, fork_code)) {
		mmf_finish(&s);
		exec_end(&x);
		return -1;
	}
	if (prologue)
		prologue(&s);
	x.check_at_rest = true;
	exec_run(&x, op_fn, check_cb);
	mmf_finish(&s);
	exec_end(&x);
	return 0;
}
