/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The real side of vmafuzz conform (conform.h): a forked child that runs
 * mmap, munmap, mprotect, madvise and page touches for real (ksys.h), and
 * its forked grandchild held still; their VMAs from /proc/PID/smaps.
 */
#include "conform.h"
#include "conform_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the child ----------------------------------------------------------- */

static bool full_write(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* 1: got it, 0: end of file, -1: error */
static int full_read(int fd, void *buf, size_t n)
{
	char *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return got ? -1 : 0;
		got += (size_t)r;
	}
	return 1;
}

/* The child's pipes to the tool, and the grandchild of KSYS_FORK with the
 * pipe it waits on. */
static int child_in = -1, child_out = -1;
static pid_t grandchild = -1;
static int grandchild_pipe = -1;

/* fork: the grandchild keeps the mappings as fork left them until the tool
 * has read its smaps, then exits without touching anything */
static int64_t child_fork(void)
{
	int fds[2];
	char b;

	if (grandchild > 0)
		return -EBUSY;
	if (pipe(fds))
		return -(int64_t)errno;
	grandchild = fork();
	if (grandchild < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		return -(int64_t)e;
	}
	if (grandchild == 0) {
		close(fds[1]);
		close(child_in);
		close(child_out);
		while (read(fds[0], &b, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(fds[0]);
	grandchild_pipe = fds[1];
	return grandchild;
}

static int64_t child_fork_end(void)
{
	int st;

	if (grandchild <= 0)
		return -ECHILD;
	close(grandchild_pipe);
	grandchild_pipe = -1;
	while (waitpid(grandchild, &st, 0) < 0)
		if (errno != EINTR)
			return -(int64_t)errno;
	grandchild = -1;
	return 0;
}

static int64_t child_run(const struct kcall *c)
{
	switch (c->code) {
	case KSYS_FORK:
		return child_fork();
	case KSYS_EXIT:
		return child_fork_end();
	}
	return ksys_call(c);
}

static _Noreturn void child_main(int in, int out, uint64_t lo, uint64_t hi)
{
	struct kcall c;
	int32_t status[2] = {0, 0}; /* what failed (1 prctl, 2 the window), errno */

	status[1] = ksys_setup();
	if (status[1])
		status[0] = 1;
	else if ((status[1] = ksys_window_free(lo, hi)))
		status[0] = 2;
	if (!full_write(out, status, sizeof(status)) || status[0])
		_exit(1);
	child_in = in;
	child_out = out;
	while (full_read(in, &c, sizeof(c)) == 1) {
		int64_t r = child_run(&c);

		if (!full_write(out, &r, sizeof(r)))
			_exit(1);
	}
	/* the tool is gone: a grandchild still waiting is ended and reaped,
	 * not left to init */
	child_fork_end();
	_exit(0);
}

/* ---- the parent ---------------------------------------------------------- */

static void died(struct kproc *k, char *err, size_t errlen)
{
	int st = 0;

	if (k->pid > 0 && waitpid(k->pid, &st, 0) == k->pid) {
		if (WIFSIGNALED(st))
			snprintf(err, errlen, "the kernel-side child died of signal %d",
				 WTERMSIG(st));
		else
			snprintf(err, errlen, "the kernel-side child exited with status %d",
				 WEXITSTATUS(st));
	} else {
		snprintf(err, errlen, "the kernel-side child is gone");
	}
	k->pid = -1;
}

int kproc_start(struct kproc *k, uint64_t lo, uint64_t hi, char *err, size_t errlen)
{
	int to[2], from[2];
	int32_t status[2];

	k->pid = -1;
	k->to = k->from = -1;
	/* a child that dies must not take us with it */
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	k->pid = fork();
	if (k->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(to[0]), close(to[1]), close(from[0]), close(from[1]);
		return -1;
	}
	if (k->pid == 0) {
		close(to[1]);
		close(from[0]);
		child_main(to[0], from[1], lo, hi);
	}
	close(to[0]);
	close(from[1]);
	k->to = to[1];
	k->from = from[0];
	if (full_read(k->from, status, sizeof(status)) != 1) {
		died(k, err, errlen);
		kproc_stop(k);
		return -1;
	}
	if (status[0]) {
		if (status[0] == 2)
			snprintf(err, errlen,
				 "the window %#" PRIx64 "-%#" PRIx64
				 " is not free in the child (%s)",
				 lo, hi, strerror(status[1]));
		else
			snprintf(err, errlen,
				 "setting up the child (one CPU, RLIMIT_STACK, no THP): %s",
				 strerror(status[1]));
		kproc_stop(k);
		return -1;
	}
	return 0;
}

bool kproc_call(struct kproc *k, const struct kcall *c, int64_t *result, char *err, size_t errlen)
{
	if (k->pid <= 0) {
		snprintf(err, errlen, "the kernel-side child is gone");
		return false;
	}
	if (!full_write(k->to, c, sizeof(*c)) || full_read(k->from, result, sizeof(*result)) != 1) {
		died(k, err, errlen);
		return false;
	}
	return true;
}

int kproc_vmas(struct kproc *k, uint64_t lo, uint64_t hi, struct as_vma *out, unsigned max,
	       char *err, size_t errlen)
{
	return kproc_vmas_of(k->pid, lo, hi, out, max, err, errlen);
}

int kproc_vmas_of(pid_t pid, uint64_t lo, uint64_t hi, struct as_vma *out, unsigned max, char *err,
		  size_t errlen)
{
	struct kvma *kv = calloc(max ? max : 1, sizeof(*kv));
	int n;

	if (!kv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = ksys_vmas(pid, lo, hi, kv, max, err, errlen);
	for (int i = 0; i < n; i++)
		out[i] = (struct as_vma){.start = kv[i].start,
					 .end = kv[i].end,
					 .flags = kv[i].flags,
					 .rss = kv[i].rss,
					 .anon = kv[i].anon};
	free(kv);
	return n;
}

void kproc_stop(struct kproc *k)
{
	if (k->to >= 0)
		close(k->to);
	if (k->from >= 0)
		close(k->from);
	k->to = k->from = -1;
	if (k->pid > 0) {
		int st;

		while (waitpid(k->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	k->pid = -1;
}

/* ---- the backend --------------------------------------------------------- */

#define LIVE_LO CONFORM_LO
#define LIVE_HI CONFORM_HI

/* smaps' bits are the seam's */
_Static_assert(KVM_READ == AS_VM_READ && KVM_WRITE == AS_VM_WRITE && KVM_EXEC == AS_VM_EXEC &&
		   KVM_SHARED == AS_VM_SHARED && KVM_MAYSHARE == AS_VM_MAYSHARE &&
		   KVM_DONTCOPY == AS_VM_DONTCOPY && KVM_ACCOUNT == AS_VM_ACCOUNT &&
		   KVM_WIPEONFORK == AS_VM_WIPEONFORK && KVM_LOCKED == AS_VM_LOCKED &&
		   KVM_LOCKONFAULT == AS_VM_LOCKONFAULT,
	       "ksys.h's VM bits are as_backend.h's");

struct live {
	struct kproc k;
	pid_t grandchild;    /* the forked process, or -1 */
	unsigned child_proc; /* its number in the model */
};

static void *live_open(char *err, size_t errlen)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->grandchild = -1;
	if (kproc_start(&l->k, LIVE_LO, LIVE_HI, err, errlen)) {
		free(l);
		return NULL;
	}
	return l;
}

static void live_close(void *as)
{
	struct live *l = as;

	kproc_stop(&l->k);
	free(l);
}

void as_live_set_child(void *as, unsigned proc)
{
	((struct live *)as)->child_proc = proc;
}

static bool live_get(void *as, struct mm_call *c)
{
	struct live *l = as;

	return c->a.proc % MMF_MAX_PROCS == 0 ||
	       (l->grandchild > 0 && c->a.proc % MMF_MAX_PROCS == l->child_proc);
}

static void live_resolve(void *as, struct mm_call *c)
{
	(void)as;
	(void)c; /* the reference backend resolved it */
}

static const char *live_refuses(void *as, const struct mm_call *c)
{
	struct live *l = as;
	unsigned p = c->a.proc % MMF_MAX_PROCS;

	switch (c->code) {
	case MMF_OP_MMAP:
		if (c->a.kind != MMF_PRIVATE_ANON && c->a.kind != MMF_SHARED_ANON)
			return "file mappings do not run for real (anonymous memory only)";
		break;
	case MMF_OP_MUNMAP:
	case MMF_OP_MPROTECT:
	case MMF_OP_MADVISE:
	case MMF_OP_TOUCH:
	case MMF_OP_MREMAP:
	case MMF_OP_MLOCK:
	case MMF_OP_MUNLOCK:
	case MMF_OP_MLOCKALL:
	case MMF_OP_MUNLOCKALL:
		break;
	case MMF_OP_FORK:
		if (c->a.policy)
			return "the reverted anon_vma policy is no kernel's";
		break;
	case MMF_OP_EXIT:
		if (!l || !(l->grandchild > 0 && p == l->child_proc))
			return "only a forked process exits for real";
		return NULL;
	default:
		return CONFORM_ONLY_REAL;
	}
	return p ? "only process p0 runs for real" : NULL;
}

static void live_call(void *as, struct mm_call *c)
{
	struct live *l = as;
	struct kcall k;
	char err[256];
	int64_t r;

	conform_kcall(c, &k);
	if (!kproc_call(&l->k, &k, &r, err, sizeof(err))) {
		fprintf(stderr, "vmafuzz conform: %s\n", err);
		r = INT64_MIN; /* differs from every result */
	}
	if (c->code == MMF_OP_FORK && r > 0) {
		/* the grandchild's pid for its smaps; the result compared is 0 */
		l->grandchild = (pid_t)r;
		r = 0;
	} else if (c->code == MMF_OP_EXIT && r == 0) {
		l->grandchild = -1;
	}
	c->result = r;
}

static void live_put(void *as, struct mm_call *c)
{
	(void)as;
	(void)c;
}

static int live_vmas(void *as, unsigned proc, uint64_t lo, uint64_t hi, bool usage,
		     struct as_vma *out, unsigned max, char *err, size_t errlen)
{
	struct live *l = as;

	(void)usage; /* smaps has them anyway */
	if (proc % MMF_MAX_PROCS == 0)
		return kproc_vmas(&l->k, lo, hi, out, max, err, errlen);
	if (l->grandchild > 0 && proc % MMF_MAX_PROCS == l->child_proc)
		return kproc_vmas_of(l->grandchild, lo, hi, out, max, err, errlen);
	snprintf(err, errlen, "no real process p%u", proc);
	return -1;
}

static void live_check(void *as)
{
	(void)as; /* the kernel keeps its own invariants */
}

static void live_dump(FILE *out, void *as)
{
	struct live *l = as;

	fprintf(out, "live kernel: child pid %d, grandchild pid %d (p%u)\n", (int)l->k.pid,
		(int)l->grandchild, l->child_proc);
}

const struct as_backend as_live = {
    .name = "kernel",
    .open = live_open,
    .close = live_close,
    .get = live_get,
    .resolve = live_resolve,
    .call = live_call,
    .put = live_put,
    .refuses = live_refuses,
    .vmas = live_vmas,
    .check = live_check,
    .dump = live_dump,
};
