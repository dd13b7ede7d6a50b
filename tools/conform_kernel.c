/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The real side of vmafuzz conform (conform.h): a forked child that runs
 * mmap, munmap, mprotect, madvise and page touches for real, and the reader
 * of its /proc/PID/smaps.
 */
#include "conform.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define KPAGE 4096ull

/* ---- the child ----------------------------------------------------------- */

static sigjmp_buf fault_env;

static void on_fault(int sig)
{
	(void)sig;
	siglongjmp(fault_env, 1);
}

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

/* One page: a volatile load or a store; a fault comes back here. */
static __attribute__((noinline)) int64_t touch_one(uintptr_t a, bool write)
{
	if (sigsetjmp(fault_env, 1))
		return -EFAULT;
	if (write)
		*(volatile uint8_t *)a = 1;
	else
		(void)*(volatile uint8_t *)a;
	return 0;
}

/* A read or write on every page, stopping at the first fault as the model's
 * mm_touch does. */
static int64_t child_touch(const struct kcall *c)
{
	uint64_t start = c->start & ~(KPAGE - 1), len = c->len;

	if (len > c->touch_max_pages * KPAGE)
		len = c->touch_max_pages * KPAGE;
	for (uint64_t a = start; a < c->start + len && a >= start; a += KPAGE) {
		int64_t r = touch_one((uintptr_t)a, c->write);

		if (r)
			return r;
	}
	return 0;
}

/* The child's pipes to the tool, and the grandchild of MMF_OP_FORK with the
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
	void *p;

	switch (c->code) {
	case MMF_OP_MMAP:
		p = mmap((void *)(uintptr_t)c->start, c->len, c->prot, c->flags, -1, 0);
		return p == MAP_FAILED ? -(int64_t)errno : (int64_t)(uintptr_t)p;
	case MMF_OP_MUNMAP:
		return munmap((void *)(uintptr_t)c->start, c->len) ? -(int64_t)errno : 0;
	case MMF_OP_MPROTECT:
		return mprotect((void *)(uintptr_t)c->start, c->len, c->prot) ? -(int64_t)errno : 0;
	case MMF_OP_MADVISE:
		return madvise((void *)(uintptr_t)c->start, c->len, c->advice) ? -(int64_t)errno
									       : 0;
	case MMF_OP_TOUCH:
		return child_touch(c);
	case MMF_OP_FORK:
		return child_fork();
	case MMF_OP_EXIT:
		return child_fork_end();
	}
	return -ENOSYS;
}

static _Noreturn void child_main(int in, int out, uint64_t lo, uint64_t hi)
{
	struct sigaction sa;
	struct kcall c;
	int32_t status[2] = {0, 0}; /* what failed (1 prctl, 2 the window), errno */
	void *p;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	/* one touched page is one resident page */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)) {
		status[0] = 1;
		status[1] = errno;
	}
	/* the window (with a page on either side) must be free */
	if (!status[0]) {
		p = mmap((void *)(uintptr_t)(lo - KPAGE), hi - lo + 2 * KPAGE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		status[1] = p == MAP_FAILED ? errno : 0;
		if (p != MAP_FAILED && (uintptr_t)p != lo - KPAGE)
			status[1] = EEXIST; /* a kernel without MAP_FIXED_NOREPLACE */
		if (p != MAP_FAILED && munmap(p, hi - lo + 2 * KPAGE) && !status[1])
			status[1] = errno;
		if (status[1])
			status[0] = 2;
	}
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
			snprintf(err, errlen, "prctl(PR_SET_THP_DISABLE): %s", strerror(status[1]));
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

static char *slurp(const char *path, size_t *size)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	*size = n;
	return buf;
}

/* "start-end perms ..." */
static bool vma_header(const char *line, uint64_t *start, uint64_t *end, char perm[5])
{
	char *e;
	const char *p = line;

	if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		return false;
	*start = strtoull(p, &e, 16);
	if (*e != '-')
		return false;
	*end = strtoull(e + 1, &e, 16);
	if (*e != ' ' || strlen(e) < 5)
		return false;
	memcpy(perm, e + 1, 4);
	perm[4] = 0;
	return true;
}

static bool has_flag(const char *flags, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = flags; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
			return true;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		if (*p == '\n')
			break;
	}
	return false;
}

int kproc_vmas(struct kproc *k, uint64_t lo, uint64_t hi, struct as_vma *out, unsigned max,
	       char *err, size_t errlen)
{
	return kproc_vmas_of(k->pid, lo, hi, out, max, err, errlen);
}

int kproc_vmas_of(pid_t pid, uint64_t lo, uint64_t hi, struct as_vma *out, unsigned max, char *err,
		  size_t errlen)
{
	char path[64], *buf, *line, *next;
	struct as_vma *cur = NULL;
	unsigned n = 0;
	size_t size;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	buf = slurp(path, &size);
	if (!buf) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	for (line = buf; line && *line; line = next) {
		uint64_t start, end;
		char perm[5];

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (vma_header(line, &start, &end, perm)) {
			cur = NULL;
			if (end <= lo || start >= hi)
				continue;
			if (n == max) {
				snprintf(err, errlen, "more than %u VMAs in the window", max);
				free(buf);
				return -1;
			}
			cur = &out[n++];
			memset(cur, 0, sizeof(*cur));
			cur->start = start;
			cur->end = end;
			cur->flags = (perm[0] == 'r' ? AS_VM_READ : 0) |
				     (perm[1] == 'w' ? AS_VM_WRITE : 0) |
				     (perm[2] == 'x' ? AS_VM_EXEC : 0) |
				     (perm[3] == 's' ? AS_VM_MAYSHARE : 0);
			continue;
		}
		if (!cur)
			continue;
		if (!strncmp(line, "Rss:", 4))
			cur->rss = strtoull(line + 4, NULL, 10) / (KPAGE / 1024);
		else if (!strncmp(line, "Anonymous:", 10))
			cur->anon = strtoull(line + 10, NULL, 10) / (KPAGE / 1024);
		else if (!strncmp(line, "VmFlags:", 8))
			cur->flags |= (has_flag(line + 8, "dc") ? AS_VM_DONTCOPY : 0) |
				      (has_flag(line + 8, "wf") ? AS_VM_WIPEONFORK : 0) |
				      (has_flag(line + 8, "ac") ? AS_VM_ACCOUNT : 0) |
				      (has_flag(line + 8, "sh") ? AS_VM_SHARED : 0);
	}
	free(buf);
	return (int)n;
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

#define LIVE_LO MMF_WINDOW_LO
#define LIVE_HI (MMF_WINDOW_HI + (256ull << MMF_PAGE_SHIFT))
#define LIVE_TOUCH_MAX_PAGES 256 /* the model's MM_TOUCH_MAX_PAGES */

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
		return "only mmap, munmap, mprotect, madvise, touch and fork run for real";
	}
	return p ? "only process p0 runs for real" : NULL;
}

static void live_call(void *as, struct mm_call *c)
{
	struct live *l = as;
	struct kcall k = {
	    .code = c->code,
	    .start = c->start,
	    .len = c->len,
	    .prot = mmf_prot(c->a.prot),
	    .flags = c->code == MMF_OP_MMAP ? mmf_mmap_flags(&c->a) : 0,
	    .advice = c->code == MMF_OP_MADVISE ? mmf_advice(c->a.advice) : 0,
	    .write = c->a.access == 1,
	    .touch_max_pages = LIVE_TOUCH_MAX_PAGES,
	};
	char err[256];
	int64_t r;

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
