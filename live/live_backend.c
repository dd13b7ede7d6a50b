/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's side of the real processes (live_backend.h): start p0, send each
 * call to the process it belongs to, follow forks (reading the fork events
 * of the parent's userfaultfds as its monitor, and handing it the new
 * contexts) and exits, read smaps and smaps_rollup.
 */
#include "live_backend.h"
#include "conform_ops.h"
#include "real_proc_proto.h"
#include "wait.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIVE_LO CONFORM_LO
#define LIVE_HI CONFORM_HI
/* The model's files as memfds: every offset a program can map (its @ page in
 * the window, plus a length) lies inside. */
#define LIVE_FILE_SIZE (CONFORM_HI - CONFORM_LO + (1ull << 20))

#define LIVE_VMAS 4096
#define LIVE_EVFDS (MMF_MAX_PROCS * MMF_FDS) /* every process's userfaultfds */

/* smaps' bits are the seam's */
_Static_assert(KVM_READ == AS_VM_READ && KVM_WRITE == AS_VM_WRITE && KVM_EXEC == AS_VM_EXEC &&
		   KVM_SHARED == AS_VM_SHARED && KVM_MAYREAD == AS_VM_MAYREAD &&
		   KVM_MAYWRITE == AS_VM_MAYWRITE && KVM_MAYEXEC == AS_VM_MAYEXEC &&
		   KVM_MAYSHARE == AS_VM_MAYSHARE && KVM_UFFD_MISSING == AS_VM_UFFD_MISSING &&
		   KVM_UFFD_WP == AS_VM_UFFD_WP && KVM_UFFD_MINOR == AS_VM_UFFD_MINOR &&
		   KVM_DONTCOPY == AS_VM_DONTCOPY && KVM_ACCOUNT == AS_VM_ACCOUNT &&
		   KVM_WIPEONFORK == AS_VM_WIPEONFORK && KVM_GROWSDOWN == AS_VM_GROWSDOWN &&
		   KVM_LOCKED == AS_VM_LOCKED && KVM_LOCKONFAULT == AS_VM_LOCKONFAULT,
	       "ksys.h's VM bits are as_backend.h's");

/* The files of /proc/PID read after every call: opened at the first read
 * and kept until the process is forgotten (an open and a close of each, for
 * each process after each call, cost fuzz_conform a visible share of its
 * time: docs/results/fidelity.md). */
enum { RP_SMAPS, RP_ROLLUP, RP_PAGEMAP, RP_MEM, RP_FILES };

/* One real process. */
struct rproc {
	pid_t pid; /* 0: none */
	int pidfd, sock;
	bool filled;	    /* holds map_limit's fillers */
	int proc[RP_FILES]; /* its /proc/PID files, -1 until read */
};

static struct rproc rproc_new(pid_t pid, int pidfd, int sock, bool filled)
{
	struct rproc r = {pid, pidfd, sock, filled, {0}};

	for (unsigned i = 0; i < RP_FILES; i++)
		r.proc[i] = -1;
	return r;
}

/* @r's /proc file @which, opened at need: the fd, or -1 (errno). */
static int rproc_file(struct rproc *r, unsigned which)
{
	static const char *const name[RP_FILES] = {"smaps", "smaps_rollup", "pagemap", "mem"};
	char path[64];

	if (r->proc[which] < 0) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)r->pid, name[which]);
		r->proc[which] = open(path, O_RDONLY | O_CLOEXEC);
	}
	return r->proc[which];
}

struct live {
	struct rproc p[MMF_MAX_PROCS];
	unsigned fork_into;
	int64_t limit;
	char err[256]; /* the last failure */
};

uint64_t conform_max_map_count(void)
{
	static uint64_t v;
	FILE *f;

	if (!v && (f = fopen("/proc/sys/vm/max_map_count", "r"))) {
		if (fscanf(f, "%" SCNu64, &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static void forget(struct rproc *r)
{
	if (r->sock >= 0)
		close(r->sock);
	if (r->pidfd >= 0)
		close(r->pidfd);
	for (unsigned i = 0; i < RP_FILES; i++)
		if (r->proc[i] >= 0)
			close(r->proc[i]);
	*r = rproc_new(0, -1, -1, false);
}

/* Reap what is ours: p0, and the processes whose parents ended before them
 * (the tool is their subreaper). */
static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Wait until @r's socket has a reply (1), the process ended (0), or the time
 * is up (-1); @more: other fds to watch, whose readiness returns 2. */
static int wait_reply(struct rproc *r, struct pollfd *more, unsigned nmore)
{
	struct pollfd pf[2 + LIVE_EVFDS];

	pf[0] = (struct pollfd){r->sock, POLLIN, 0};
	pf[1] = (struct pollfd){r->pidfd, POLLIN, 0};
	for (unsigned i = 0; i < nmore; i++)
		pf[2 + i] = more[i];
	for (;;) {
		int n = poll(pf, 2 + nmore, live_timeout_ms());

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		for (unsigned i = 0; i < nmore; i++)
			more[i].revents = pf[2 + i].revents;
		if (pf[0].revents)
			return 1;
		if (pf[1].revents)
			return 0;
		return 2;
	}
}

/* A request and its reply; false (l->err says why) when the process is gone. */
static bool request(struct live *l, struct rproc *r, const struct kreq *q, const int *fds,
		    unsigned nfds, struct krep *rep, int *rfds, unsigned *rnfds)
{
	unsigned dummy;
	int w;

	if (!kmsg_send(r->sock, q, sizeof(*q), fds, nfds)) {
		snprintf(l->err, sizeof(l->err), "real process %d is gone", (int)r->pid);
		return false;
	}
	w = wait_reply(r, NULL, 0);
	if (w != 1 || kmsg_recv(r->sock, rep, sizeof(*rep), rfds, rnfds ? rnfds : &dummy) != 1) {
		snprintf(l->err, sizeof(l->err), "real process %d %s", (int)r->pid,
			 w == -1 ? "does not answer" : "died");
		return false;
	}
	if (!rnfds)
		for (unsigned i = 0; i < dummy; i++)
			close(rfds[i]);
	return true;
}

static int pidfd_of(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static as_live_spawner spawner;

void as_live_spawn_with(as_live_spawner fn)
{
	spawner = fn;
}

/* p0 forked from this process (the spawner's job when there is one). */
static pid_t fork_p0(uint64_t lo, uint64_t hi, uint64_t file_size, int *sock)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		kserver_main(sv[1], lo, hi, file_size);
	}
	close(sv[1]);
	if (pid < 0) {
		pid = -errno;
		close(sv[0]);
	}
	*sock = sv[0];
	return pid;
}

/*
 * The tool on the CPU it runs on, as its real processes are (ksys_setup): it
 * reads their pages through /proc/PID/mem, which marks them accessed and may
 * park them, with a reference, in this CPU's batches; MADV_PAGEOUT in a real
 * process drains its own CPU's batches only, and a page held elsewhere is
 * not reclaimed (found by conform: a lazily freed page stayed).
 */
static void one_cpu(void)
{
	cpu_set_t cpus;
	int cpu = sched_getcpu();

	CPU_ZERO(&cpus);
	CPU_SET(cpu >= 0 ? cpu : 0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
}

static void *live_open(char *err, size_t errlen)
{
	struct live *l = calloc(1, sizeof(*l));
	struct krep rep = {0};
	int sock = -1, fds[MMF_FDS];
	unsigned n;
	pid_t pid;

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		l->p[i] = rproc_new(0, -1, -1, false); /* (forget() would close fd 0) */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	one_cpu();
	pid = (spawner ? spawner : fork_p0)(LIVE_LO, LIVE_HI, LIVE_FILE_SIZE, &sock);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start p0: %s", strerror((int)-pid));
		free(l);
		return NULL;
	}
	l->p[0] = rproc_new(pid, pidfd_of(pid), sock, false);
	if (l->p[0].pidfd < 0 || wait_reply(&l->p[0], NULL, 0) != 1 ||
	    kmsg_recv(sock, &rep, sizeof(rep), fds, &n) != 1 || rep.result) {
		int64_t e = -rep.result;

		if (l->p[0].pidfd < 0)
			snprintf(err, errlen, "pidfd_open: %s", strerror(errno));
		else if (e >= 2000 && e < 3000)
			snprintf(err, errlen,
				 "the window %#" PRIx64 "-%#" PRIx64
				 " is not free in the child (%s)",
				 (uint64_t)LIVE_LO, (uint64_t)LIVE_HI, strerror((int)(e - 2000)));
		else if (e >= 1000)
			snprintf(err, errlen, "the real process's setup failed: %s: %s",
				 e >= 3000 ? "memfd_create" : "one CPU, RLIMIT_STACK, no THP",
				 strerror((int)(e % 1000)));
		else
			snprintf(err, errlen, "the real process died before it started");
		forget(&l->p[0]);
		waitpid(pid, NULL, 0); /* (not ours when a spawner made it) */
		free(l);
		return NULL;
	}
	l->fork_into = MMF_MAX_PROCS;
	return l;
}

/* End real process @r and wait until it is gone (its mm too). */
static bool end_proc(struct live *l, struct rproc *r)
{
	struct kreq q = {.op = KOP_EXIT};
	struct pollfd pf = {r->pidfd, POLLIN, 0};
	int n;

	kmsg_send(r->sock, &q, sizeof(q), NULL, 0);
	do
		n = poll(&pf, 1, live_timeout_ms());
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		snprintf(l->err, sizeof(l->err), "real process %d does not exit", (int)r->pid);
		kill(r->pid, SIGKILL);
	}
	forget(r);
	reap();
	return n > 0;
}

static void live_close(void *as)
{
	struct live *l = as;

	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		if (l->p[i].pid > 0)
			end_proc(l, &l->p[i]);
	reap();
	free(l);
}

void as_live_fork_into(void *as, unsigned proc)
{
	((struct live *)as)->fork_into = proc;
}

void as_live_map_limit(void *as, int64_t limit)
{
	((struct live *)as)->limit = limit;
}

unsigned as_live_procs(void *as)
{
	struct live *l = as;
	unsigned m = 0;

	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		m |= (l->p[i].pid > 0) << i;
	return m;
}

static bool live_get(void *as, struct mm_call *c)
{
	struct live *l = as;

	return mmf_is_thread_op(c->code) || l->p[c->a.proc % MMF_MAX_PROCS].pid > 0;
}

static void live_resolve(void *as, struct mm_call *c)
{
	(void)as;
	(void)c; /* the reference backend resolved it */
}

static const char *live_refuses(void *as, const struct mm_call *c)
{
	(void)as;
	return conform_call_refuses(c);
}

/* Read the fork events of the parent's userfaultfds (@ev, the monitor's
 * copies) while it forks: the new contexts' fds, in the order the kernel
 * hands them out, into @nfd, their features into @nfeat. Returns when the
 * reply is there (1), or 0/-1 as wait_reply. */
static int fork_events(struct rproc *r, struct pollfd *ev, const int *evfeat, unsigned nev,
		       int *nfd, int *nfeat, unsigned *n)
{
	for (;;) {
		int w = wait_reply(r, ev, nev);

		if (w != 2)
			return w;
		for (unsigned i = 0; i < nev; i++) {
			struct uffd_msg msg;

			if (!(ev[i].revents & POLLIN))
				continue;
			while (read(ev[i].fd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg))
				if (msg.event == UFFD_EVENT_FORK && *n < MMF_FDS) {
					nfd[*n] = (int)msg.arg.fork.ufd;
					nfeat[(*n)++] = evfeat[i];
				} else if (msg.event == UFFD_EVENT_FORK) {
					close((int)msg.arg.fork.ufd);
				}
		}
	}
}

int as_live_open_fds(void *as, unsigned proc)
{
	struct live *l = as;
	struct kreq q = {.op = KOP_UFFD_DUP};
	struct krep rep;
	int fds[MMF_FDS];
	unsigned nfds = 0;

	proc %= MMF_MAX_PROCS;
	if (l->p[proc].pid <= 0)
		return 0;
	if (!request(l, &l->p[proc], &q, NULL, 0, &rep, fds, &nfds))
		return -1;
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	return (int)nfds;
}

/* Copies of every process's userfaultfds with the event @feature (KUFFD_*)
 * into @ev (their features in @evfeat): a fork's or an mremap's events go to
 * whoever holds the context's fd. How many, or -1 when a process is gone. */
static int event_fds(struct live *l, struct pollfd *ev, int *evfeat, int feature)
{
	struct kreq q = {.op = KOP_UFFD_DUP};
	int n = 0;

	for (unsigned p = 0; p < MMF_MAX_PROCS; p++) {
		struct krep rep;
		int fds[MMF_FDS];
		unsigned nfds = 0;

		if (l->p[p].pid <= 0)
			continue;
		if (!request(l, &l->p[p], &q, NULL, 0, &rep, fds, &nfds)) {
			for (int i = 0; i < n; i++)
				close(ev[i].fd);
			return -1;
		}
		for (unsigned i = 0; i < nfds; i++)
			if (rep.feat[i] & feature) {
				ev[n] = (struct pollfd){fds[i], POLLIN, 0};
				evfeat[n++] = rep.feat[i];
			} else {
				close(fds[i]);
			}
	}
	return n;
}

/* fork: the userfaultfds with the fork event copied here first, so that
 * their fork events can be read (the forking process waits for that); the
 * new contexts go to the forking process, as the model's parent receives its
 * child's contexts. */
static int64_t live_fork(struct live *l, struct rproc *r)
{
	struct kreq q = {.op = KOP_FORK};
	struct krep rep;
	struct pollfd ev[LIVE_EVFDS];
	int evfeat[LIVE_EVFDS], nfd[MMF_FDS], nfeat[MMF_FDS], csock[MMF_FDS];
	unsigned nnew = 0, nc = 0;
	int nev, w;

	if (l->fork_into >= MMF_MAX_PROCS || l->p[l->fork_into].pid > 0)
		return -EAGAIN; /* the model's process table is full */
	nev = event_fds(l, ev, evfeat, KUFFD_FORK);
	if (nev < 0)
		return INT64_MIN;
	if (!kmsg_send(r->sock, &q, sizeof(q), NULL, 0))
		w = 0;
	else
		w = fork_events(r, ev, evfeat, (unsigned)nev, nfd, nfeat, &nnew);
	for (int i = 0; i < nev; i++)
		close(ev[i].fd);
	if (w != 1 || kmsg_recv(r->sock, &rep, sizeof(rep), csock, &nc) != 1) {
		snprintf(l->err, sizeof(l->err), "real process %d %s in fork", (int)r->pid,
			 w == -1 ? "hangs" : "died");
		return INT64_MIN;
	}
	if (rep.result > 0 && nc == 1) {
		struct rproc *c = &l->p[l->fork_into];
		struct krep ready;
		int none[MMF_FDS];
		unsigned nr;

		*c = rproc_new((pid_t)rep.result, pidfd_of((pid_t)rep.result), csock[0], r->filled);
		/* the child is ready (it keeps its copies of the parent's fds) */
		if (c->pidfd < 0 || wait_reply(c, NULL, 0) != 1 ||
		    kmsg_recv(c->sock, &ready, sizeof(ready), none, &nr) != 1) {
			snprintf(l->err, sizeof(l->err),
				 "the child of real process %d is not ready", (int)r->pid);
			return INT64_MIN;
		}
		rep.result = 0;
	}
	if (nnew) {
		struct krep took;

		q = (struct kreq){.op = KOP_UFFD_TAKE, .nfds = (int32_t)nnew};
		memcpy(q.feat, nfeat, sizeof(int) * nnew);
		if (!request(l, r, &q, nfd, nnew, &took, NULL, NULL))
			rep.result = INT64_MIN;
		for (unsigned i = 0; i < nnew; i++)
			close(nfd[i]);
	}
	return rep.result;
}

/* mremap: the userfaultfds with the remap event copied here first, so that
 * the remap events of a moved range registered with one can be read (the
 * calling process waits for that, mremap_userfaultfd_complete); they carry
 * nothing the model needs. */
static int64_t live_remap(struct live *l, struct rproc *r, const struct kreq *q, struct krep *rep)
{
	struct pollfd ev[LIVE_EVFDS];
	int evfeat[LIVE_EVFDS], nev = event_fds(l, ev, evfeat, KUFFD_REMAP), w, fds[MMF_FDS];
	unsigned nfds;

	if (nev < 0)
		return INT64_MIN;
	if (!kmsg_send(r->sock, q, sizeof(*q), NULL, 0))
		w = 0;
	else
		for (;;) {
			w = wait_reply(r, ev, (unsigned)nev);
			if (w != 2)
				break;
			for (int i = 0; i < nev; i++) {
				struct uffd_msg msg;

				if (ev[i].revents & POLLIN)
					while (read(ev[i].fd, &msg, sizeof(msg)) ==
					       (ssize_t)sizeof(msg))
						;
			}
		}
	for (int i = 0; i < nev; i++)
		close(ev[i].fd);
	if (w != 1 || kmsg_recv(r->sock, rep, sizeof(*rep), fds, &nfds) != 1) {
		snprintf(l->err, sizeof(l->err), "real process %d %s in mremap", (int)r->pid,
			 w == -1 ? "hangs" : "died");
		return INT64_MIN;
	}
	return rep->result;
}

/* The request for a call that is not fork or exit. */
static struct kreq call_req(const struct live *l, const struct mm_call *c)
{
	struct kreq q = {.op = KOP_NOP};

	conform_kcall(c, &q.c);
	q.slot = c->a.handle;
	switch (c->code) {
	case MMF_OP_MMAP:
	case MMF_OP_MUNMAP:
	case MMF_OP_MPROTECT:
	case MMF_OP_MADVISE:
	case MMF_OP_TOUCH:
	case MMF_OP_MREMAP:
	case MMF_OP_MLOCK:
	case MMF_OP_MUNLOCK:
	case MMF_OP_MLOCKALL:
	case MMF_OP_MUNLOCKALL:
		q.op = KOP_SYS;
		q.file = c->a.file;
		break;
	case MMF_OP_UFFD_CREATE:
		q.op = KOP_UFFD_CREATE;
		q.features =
		    (c->a.features & 1 ? KUFFD_FORK : 0) | (c->a.features & 2 ? KUFFD_REMAP : 0);
		break;
	case MMF_OP_UFFD_REGISTER:
		q.op = KOP_UFFD_REGISTER;
		q.modes = c->a.modes;
		break;
	case MMF_OP_UFFD_UNREGISTER:
		q.op = KOP_UFFD_UNREGISTER;
		break;
	case MMF_OP_UFFD_RELEASE:
		q.op = KOP_UFFD_RELEASE;
		break;
	case MMF_OP_MAP_LIMIT:
		q.op = KOP_MAP_LIMIT;
		q.n = (int64_t)conform_max_map_count() - l->limit;
		break;
	}
	return q;
}

static void live_call(void *as, struct mm_call *c)
{
	struct live *l = as;
	struct rproc *r = &l->p[c->a.proc % MMF_MAX_PROCS];
	struct kreq q;
	struct krep rep;

	if (mmf_is_thread_op(c->code) || c->code == MMF_OP_ROLLUP) {
		c->result = 0; /* nothing real to do: t0 is the only thread */
		return;
	}
	if (c->code == MMF_OP_FORK) {
		c->result = live_fork(l, r);
	} else if (c->code == MMF_OP_EXIT) {
		c->result = end_proc(l, r) ? 0 : INT64_MIN;
	} else {
		q = call_req(l, c);
		if (c->code == MMF_OP_MREMAP)
			c->result = live_remap(l, r, &q, &rep);
		else
			c->result =
			    request(l, r, &q, NULL, 0, &rep, NULL, NULL) ? rep.result : INT64_MIN;
		if (c->code == MMF_OP_TOUCH && c->seen && c->result != INT64_MIN)
			memcpy(c->seen, rep.seen, sizeof(rep.seen));
		if (c->code == MMF_OP_MAP_LIMIT)
			r->filled = true;
	}
	if (c->result == INT64_MIN)
		fprintf(stderr, "vmafuzz conform: %s\n", l->err);
}

static void live_put(void *as, struct mm_call *c)
{
	(void)as;
	(void)c;
}

static int live_vmas(void *as, unsigned proc, uint64_t lo, uint64_t hi, bool usage,
		     struct as_vma *out, unsigned max, char *err, size_t errlen)
{
	static struct kvma kv[LIVE_VMAS];
	struct live *l = as;
	struct rproc *r = &l->p[proc % MMF_MAX_PROCS];
	int n, fd;

	(void)usage; /* smaps has them anyway */
	if (r->pid <= 0) {
		snprintf(err, errlen, "no real process p%u", proc);
		return -1;
	}
	if ((fd = rproc_file(r, RP_SMAPS)) < 0) {
		snprintf(err, errlen, "cannot read the smaps of %d: %s", (int)r->pid,
			 strerror(errno));
		return -1;
	}
	n = ksys_vmas_fd(fd, lo, hi, kv, max < LIVE_VMAS ? max : LIVE_VMAS, NULL, err, errlen);
	for (int i = 0; i < n; i++)
		out[i] = (struct as_vma){.start = kv[i].start,
					 .end = kv[i].end,
					 .flags = kv[i].flags,
					 .pgoff = kv[i].pgoff,
					 .rss = kv[i].rss,
					 .anon = kv[i].anon,
					 .file = true,
					 .pss_kb = kv[i].pss_kb,
					 .pss_dirty_kb = kv[i].pss_dirty_kb,
					 .shared_clean = kv[i].shared_clean,
					 .shared_dirty = kv[i].shared_dirty,
					 .private_clean = kv[i].private_clean,
					 .private_dirty = kv[i].private_dirty};
	return n;
}

/* /proc/PID/smaps_rollup's figures (kB); false (@err says why) when
 * unreadable. (Read and parsed by hand: under fuzz_conform's engine every
 * strncmp would be traced.) */
static bool read_rollup(struct rproc *p, struct krest *r, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
	    {"Rss:", offsetof(struct krest, rss)},
	    {"Pss:", offsetof(struct krest, pss)},
	    {"Pss_Dirty:", offsetof(struct krest, pss_dirty)},
	    {"Shared_Clean:", offsetof(struct krest, shared_clean)},
	    {"Shared_Dirty:", offsetof(struct krest, shared_dirty)},
	    {"Private_Clean:", offsetof(struct krest, private_clean)},
	    {"Private_Dirty:", offsetof(struct krest, private_dirty)},
	    {"Anonymous:", offsetof(struct krest, anon)},
	};
	char buf[4096];
	ssize_t n = 0, got = 0;
	int fd = rproc_file(p, RP_ROLLUP);

	if (fd >= 0 && lseek(fd, 0, SEEK_SET) != 0)
		got = -1;
	while (fd >= 0 && got >= 0 && (got = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) != 0)
		if (got > 0)
			n += got;
		else if (errno == EINTR)
			got = 0;
	if (fd < 0 || got < 0) {
		snprintf(err, errlen, "cannot read smaps_rollup of %d: %s", (int)p->pid,
			 strerror(errno));
		return false;
	}
	buf[n] = 0;
	memset(r, 0, sizeof(*r));
	for (const char *line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			const char *a = line, *b = fields[i].name;

			while (*b && *a == *b)
				a++, b++;
			if (!*b)
				*(uint64_t *)((char *)r + fields[i].off) = strtoull(a, NULL, 10);
		}
	return true;
}

int as_live_rollup(void *as, unsigned proc, struct krest *win, char *err, size_t errlen)
{
	static struct kvma kv[LIVE_VMAS];
	struct live *l = as;
	struct rproc *r = &l->p[proc % MMF_MAX_PROCS];
	struct krest a, roll, again;

	if (r->pid <= 0) {
		snprintf(err, errlen, "no real process p%u", proc);
		return -1;
	}
	if (r->filled) {
		snprintf(err, errlen, "p%u holds map_limit's fillers, whose smaps is not read",
			 proc);
		return 0;
	}
	/* the VMAs outside may change meanwhile (pages shared with a process
	 * just forked, which runs on until it waits), and so may their Pss and
	 * their shared or private count whenever any process of the machine
	 * maps or unmaps the same file pages (libc, this program): until the
	 * rollup read before and after smaps agrees (any such change moves its
	 * totals; a rollup costs a fraction of a whole smaps), letting the
	 * others run between tries */
	for (unsigned tries = 0; tries < 64; tries++) {
		if (tries >= 4)
			sched_yield();
		if (!read_rollup(r, &roll, err, errlen) ||
		    ksys_vmas_fd(rproc_file(r, RP_SMAPS), LIVE_LO, LIVE_HI, kv, LIVE_VMAS, &a, err,
				 errlen) < 0 ||
		    !read_rollup(r, &again, err, errlen))
			return -1;
		if (memcmp(&roll, &again, sizeof(roll)))
			continue;
		*win = (struct krest){roll.rss - a.rss,
				      roll.pss - a.pss,
				      roll.pss_dirty - a.pss_dirty,
				      roll.shared_clean - a.shared_clean,
				      roll.shared_dirty - a.shared_dirty,
				      roll.private_clean - a.private_clean,
				      roll.private_dirty - a.private_dirty,
				      roll.anon - a.anon,
				      a.nvmas};
		return 1;
	}
	snprintf(err, errlen, "the VMAs outside the window kept changing while p%u was read", proc);
	return 2;
}

/* The run of pages [addr[i], addr[i] + n pages) of @pid: present bits from
 * its pagemap, then the present sub-runs read whole from its mem. */
static int run_values(int pagemap, int mem, const uint64_t *addr, unsigned n, uint64_t *vals,
		      bool *present)
{
	static uint64_t ent[256];
	static unsigned char buf[256 * KSYS_PAGE];
	uint64_t first = addr[0] / KSYS_PAGE;

	if (pread(pagemap, ent, n * sizeof(ent[0]), (off_t)(first * sizeof(ent[0]))) !=
	    (ssize_t)(n * sizeof(ent[0])))
		return -1;
	for (unsigned i = 0; i < n;) {
		unsigned j = i;

		present[i] = ent[i] >> 63;
		if (!present[i]) {
			i++;
			continue;
		}
		while (j < n && ent[j] >> 63)
			present[j++] = true;
		if (pread(mem, buf, (j - i) * KSYS_PAGE, (off_t)addr[i]) !=
		    (ssize_t)((j - i) * KSYS_PAGE))
			return -1;
		for (unsigned k = i; k < j; k++)
			memcpy(&vals[k], buf + (k - i) * KSYS_PAGE, sizeof(vals[k]));
		i = j;
	}
	return 0;
}

int as_live_page_values(void *as, unsigned proc, const uint64_t *addr, unsigned n, uint64_t *vals,
			bool *present, char *err, size_t errlen)
{
	struct rproc *r = &((struct live *)as)->p[proc % MMF_MAX_PROCS];
	int pagemap, mem, res = 0;

	if (r->pid <= 0) {
		snprintf(err, errlen, "no real process p%u", proc);
		return -1;
	}
	pagemap = rproc_file(r, RP_PAGEMAP);
	mem = rproc_file(r, RP_MEM);
	for (unsigned i = 0, j; i < n && !res && pagemap >= 0 && mem >= 0; i = j) {
		/* a run of consecutive pages, at most 256 */
		for (j = i + 1; j < n && j - i < 256 && addr[j] == addr[j - 1] + KSYS_PAGE; j++)
			;
		res = run_values(pagemap, mem, addr + i, j - i, vals + i, present + i);
	}
	if (pagemap < 0 || mem < 0 || res)
		snprintf(err, errlen, "cannot read the pages of %d: %s%s", (int)r->pid,
			 strerror(errno),
			 errno == EIO ? " (/proc/PID/mem refuses pages the process cannot read"
					" itself: a kernel built with PROC_MEM_FORCE_PTRACE or"
					" PROC_MEM_NO_FORCE, or booted with proc_mem.force_override"
					" other than always)"
				      : "");
	return pagemap < 0 || mem < 0 || res ? -1 : 0;
}

static void live_check(void *as)
{
	(void)as; /* the kernel keeps its own invariants */
}

static void live_dump(FILE *out, void *as)
{
	struct live *l = as;

	fprintf(out, "live kernel:");
	for (unsigned i = 0; i < MMF_MAX_PROCS; i++)
		if (l->p[i].pid > 0)
			fprintf(out, " p%u = pid %d%s", i, (int)l->p[i].pid,
				l->p[i].filled ? " (filled)" : "");
	fprintf(out, "\n");
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
