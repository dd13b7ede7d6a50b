/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A real process of a conform run (real_proc_proto.h): it makes the system
 * calls of its model process's operations, forks processes that serve as it
 * does, holds its userfaultfds in the model's fd slots and its share of the
 * model's files as memfds, and fills itself up to vm.max_map_count outside
 * the window for map_limit. Nothing here allocates after setup: the
 * process's own mappings outside the window stay as they are.
 */
#include "real_proc_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x10u
#endif

bool kmsg_send(int sock, const void *buf, size_t len, const int *fds, unsigned nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MMF_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {(void *)buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};

	if (nfds) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	for (;;) {
		ssize_t w = sendmsg(sock, &m, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		return w == (ssize_t)len;
	}
}

int kmsg_recv(int sock, void *buf, size_t len, int *fds, unsigned *nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MMF_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {buf, len};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u)};
	ssize_t r;

	*nfds = 0;
	do
		r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r < 0 ? -1 : 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			unsigned n = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));

			for (unsigned i = 0; i < n; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (*nfds < MMF_FDS)
					fds[(*nfds)++] = fd;
				else
					close(fd);
			}
		}
	if ((size_t)r != len) {
		errno = EPROTO;
		return -1;
	}
	return 1;
}

/* ---- the process's state ------------------------------------------------ */

static struct {
	int sock;
	int uffd[MMF_FDS]; /* the model's fd slots: -1 free */
	int feat[MMF_FDS];
	int file[MMF_FILES];
	uint64_t lo, hi;
	uint64_t nfill; /* map_limit fillers: one-page VMAs from CONFORM_FILL_LO */
} srv;

static int free_slot(void)
{
	for (int k = 0; k < MMF_FDS; k++)
		if (srv.uffd[k] < 0)
			return k;
	return -1;
}

static int64_t neg_errno(void)
{
	return -(int64_t)errno;
}

/* ---- userfaultfd -------------------------------------------------------- */

static int64_t uffd_create(int features)
{
	struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_SIGBUS};
	int k = free_slot(), fd;

	if (k < 0)
		return -EMFILE; /* as the model's fd table */
	if (features & KUFFD_FORK)
		api.features |= UFFD_FEATURE_EVENT_FORK;
	if (features & KUFFD_REMAP)
		api.features |= UFFD_FEATURE_EVENT_REMAP;
	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == EPERM)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		return neg_errno();
	if (ioctl(fd, UFFDIO_API, &api)) {
		int64_t r = neg_errno();

		close(fd);
		return r;
	}
	srv.uffd[k] = fd;
	srv.feat[k] = features;
	return k;
}

static int64_t uffd_range(const struct kreq *q)
{
	int fd = srv.uffd[(unsigned)q->slot % MMF_FDS];

	if (fd < 0)
		return -EBADF;
	if (q->op == KOP_UFFD_REGISTER) {
		struct uffdio_register r = {.range = {q->c.start, q->c.len},
					    .mode = (uint64_t)(uint32_t)q->modes};

		return ioctl(fd, UFFDIO_REGISTER, &r) ? neg_errno() : 0;
	}
	struct uffdio_range r = {q->c.start, q->c.len};

	return ioctl(fd, UFFDIO_UNREGISTER, &r) ? neg_errno() : 0;
}

static int64_t uffd_release(int slot)
{
	int *fd = &srv.uffd[(unsigned)slot % MMF_FDS];

	if (*fd < 0)
		return -EBADF;
	close(*fd);
	*fd = -1;
	return 0;
}

/* The fds that came with KOP_UFFD_TAKE (the new contexts of a fork, read
 * by the tool as this process's monitor) to the lowest free slots, in
 * order; closed when none is free, as the model does. */
static int64_t uffd_take(const struct kreq *q, const int *fds, unsigned nfds)
{
	int64_t taken = 0;

	for (unsigned i = 0; i < nfds; i++) {
		int k = free_slot();

		if (k < 0 || (int)i >= q->nfds) {
			close(fds[i]);
			continue;
		}
		srv.uffd[k] = fds[i];
		srv.feat[k] = q->feat[i];
		taken++;
	}
	return taken;
}

static bool uffd_dup_reply(void)
{
	struct krep r = {0};
	int fds[MMF_FDS];

	for (int k = 0; k < MMF_FDS; k++)
		if (srv.uffd[k] >= 0) {
			fds[r.nfds] = srv.uffd[k];
			r.slot[r.nfds] = k;
			r.feat[r.nfds++] = srv.feat[k];
		}
	r.result = r.nfds;
	return kmsg_send(srv.sock, &r, sizeof(r), fds, (unsigned)r.nfds);
}

/* ---- map_limit ---------------------------------------------------------- */

/* How many VMAs this process has outside [lo, hi): lines of its maps. */
static int64_t count_outside(void)
{
	static char buf[1 << 16];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int64_t n = 0;
	size_t have = 0;

	if (fd < 0)
		return neg_errno();
	for (;;) {
		ssize_t got = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		have += (size_t)got;
		buf[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			uint64_t start = strtoull(line, NULL, 16);

			/* not [vsyscall]: the gate area is no VMA of the mm */
			n += (start < srv.lo || start >= srv.hi) && start < 0xffff800000000000ull;
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
	}
	close(fd);
	return n;
}

/* Fillers [from, to) (pages from CONFORM_FILL_LO): one-page VMAs that do
 * not merge, every other one readable. */
static int64_t add_fillers(uint64_t from, uint64_t to)
{
	uint64_t lo = CONFORM_FILL_LO + from * KSYS_PAGE;
	void *p = mmap((void *)(uintptr_t)lo, (to - from) * KSYS_PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return neg_errno();
	for (uint64_t i = from | 1; i < to; i += 2)
		if (mprotect((void *)(uintptr_t)(CONFORM_FILL_LO + i * KSYS_PAGE), KSYS_PAGE,
			     PROT_READ))
			return neg_errno();
	return 0;
}

/* Exactly @want VMAs outside the window: fillers added or taken away. */
static int64_t map_limit(int64_t want)
{
	int64_t have = count_outside(), r = 0;

	if (have < 0)
		return have;
	if (want > have) {
		r = add_fillers(srv.nfill, srv.nfill + (uint64_t)(want - have));
		if (!r)
			srv.nfill += (uint64_t)(want - have);
	} else if (want < have) {
		uint64_t drop = (uint64_t)(have - want);

		if (drop > srv.nfill)
			return -ERANGE; /* more of its own than the limit leaves room for */
		srv.nfill -= drop;
		if (munmap((void *)(uintptr_t)(CONFORM_FILL_LO + srv.nfill * KSYS_PAGE),
			   drop * KSYS_PAGE))
			r = neg_errno();
	}
	if (!r && count_outside() != want)
		r = -EPROTO;
	return r;
}

/*
 * The conditions conform's agreement rests on, taken away on purpose for a
 * test (VMAFUZZ_REAL_SELFTEST, set by vmafuzz conform's --selftest-no-drain
 * and --selftest-spread-cpus; docs/fidelity.md, "The LRU batches"):
 * no-drain: the LRU batches are not drained before each call; spread-cpus:
 * each call runs on the next online CPU in turn instead of the one the
 * process was pinned to, so a page faulted in by one call waits in another
 * CPU's batch than the next call's drain empties.
 */
static enum { RS_NONE, RS_NO_DRAIN, RS_SPREAD_CPUS } real_selftest;

static void selftest_read(void)
{
	const char *v = getenv("VMAFUZZ_REAL_SELFTEST");

	real_selftest = !v			    ? RS_NONE
			: !strcmp(v, "no-drain")    ? RS_NO_DRAIN
			: !strcmp(v, "spread-cpus") ? RS_SPREAD_CPUS
						    : RS_NONE;
}

static void spread_cpu(void)
{
	static unsigned calls;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t cpus;

	if (n < 2)
		return;
	CPU_ZERO(&cpus);
	CPU_SET((int)(calls++ % (unsigned long)n), &cpus);
	(void)sched_setaffinity(0, sizeof(cpus), &cpus);
}

/* ---- the loop ----------------------------------------------------------- */

/* fork: the child goes on serving the new socket (*child set), the parent
 * answers with the child's pid and sends the tool the socket's other end. */
static bool serve_fork(bool *child)
{
	struct krep r = {0};
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		r.result = neg_errno();
		return kmsg_send(srv.sock, &r, sizeof(r), NULL, 0);
	}
	pid = fork();
	if (pid == 0) {
		close(srv.sock);
		close(sv[0]);
		srv.sock = sv[1];
		/* the child keeps its copies of the parent's userfaultfds, in
		 * the same slots, as the model's child does: a context stays
		 * open until every process holding it has closed it */
		*child = true;
		return kmsg_send(srv.sock, &r, sizeof(r), NULL, 0);
	}
	close(sv[1]);
	r.result = pid < 0 ? neg_errno() : pid;
	r.nfds = pid < 0 ? 0 : 1;
	bool ok = kmsg_send(srv.sock, &r, sizeof(r), sv, (unsigned)r.nfds);

	close(sv[0]);
	return ok;
}

/* One request; false when the tool is gone. */
static bool serve(const struct kreq *q, const int *fds, unsigned nfds)
{
	struct krep r = {0};
	struct kcall c;
	bool child = false;

	switch (q->op) {
	case KOP_SYS:
		c = q->c;
		if (c.code == KSYS_MMAP && !(c.flags & MAP_ANONYMOUS))
			c.fd = srv.file[(unsigned)q->file % MMF_FILES];
		for (unsigned k = 0; k < MMF_TOUCH_PAGES; k++)
			r.seen[k] = MMF_NOT_SEEN;
		if (c.code == KSYS_TOUCH && c.touch_max_pages > MMF_TOUCH_PAGES)
			c.touch_max_pages = MMF_TOUCH_PAGES;
		/* the tool's reads of /proc/PID/mem and other processes on
		 * this CPU leave pages in its LRU batches; the model has none */
		if (real_selftest == RS_SPREAD_CPUS)
			spread_cpu();
		if (real_selftest != RS_NO_DRAIN)
			ksys_drain();
		r.result = c.code == KSYS_TOUCH ? ksys_touch(&c, r.seen) : ksys_call(&c);
		break;
	case KOP_FORK:
		return serve_fork(&child) || child;
	case KOP_EXIT:
		_exit(0);
	case KOP_UFFD_CREATE:
		r.result = uffd_create(q->features);
		break;
	case KOP_UFFD_REGISTER:
	case KOP_UFFD_UNREGISTER:
		r.result = uffd_range(q);
		break;
	case KOP_UFFD_RELEASE:
		r.result = uffd_release(q->slot);
		break;
	case KOP_UFFD_DUP:
		return uffd_dup_reply();
	case KOP_UFFD_TAKE:
		r.result = uffd_take(q, fds, nfds);
		nfds = 0;
		break;
	case KOP_MAP_LIMIT:
		r.result = map_limit(q->n);
		break;
	case KOP_NOP:
		break;
	default:
		r.result = -ENOSYS;
	}
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	return kmsg_send(srv.sock, &r, sizeof(r), NULL, 0);
}

/* THP off, the window free, the files made: 0 or the code of what failed. */
static int64_t setup(uint64_t file_size)
{
	int e = ksys_setup();

	selftest_read();

	if (e)
		return -1000 - e;
	if ((e = ksys_window_free(srv.lo, srv.hi)))
		return -2000 - e;
	/* a process whose parent ended is the tool's; none is left a zombie */
	signal(SIGCHLD, SIG_IGN);
	for (unsigned i = 0; i < MMF_FILES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "vmafuzz-f%u", i);
		srv.file[i] = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_EXEC);
		if (srv.file[i] < 0 && errno == EINVAL)
			srv.file[i] = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);
		if (srv.file[i] < 0 || ftruncate(srv.file[i], (off_t)file_size))
			return -3000 - errno;
	}
	return 0;
}

_Noreturn void kserver_main(int sock, uint64_t lo, uint64_t hi, uint64_t file_size)
{
	struct krep r = {0};
	struct kreq q;
	int fds[MMF_FDS];
	unsigned nfds;

	srv.sock = sock;
	srv.lo = lo;
	srv.hi = hi;
	for (int k = 0; k < MMF_FDS; k++)
		srv.uffd[k] = -1;
	r.result = setup(file_size);
	if (!kmsg_send(srv.sock, &r, sizeof(r), NULL, 0) || r.result)
		_exit(1);
	while (kmsg_recv(srv.sock, &q, sizeof(q), fds, &nfds) == 1)
		if (!serve(&q, fds, nfds))
			break;
	_exit(0);
}
