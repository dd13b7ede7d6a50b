/* SPDX-License-Identifier: GPL-2.0 */
/* fuzz_conform's server, both sides (server.h). */
#include "server.h"
#include "real_proc_proto.h"
#include "wait.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

struct zreq {
	uint64_t lo, hi, file_size;
};

struct zrep {
	int64_t result; /* the new p0's pid, or -errno; 0 for the greeting */
};

static int zsock = -1; /* the fuzzer's end */

/* A reply from the server within the time: 1, else 0 (errno set). */
static int zwait(void)
{
	struct pollfd pf = {zsock, POLLIN, 0};
	int n;

	do
		n = poll(&pf, 1, live_timeout_ms());
	while (n < 0 && errno == EINTR);
	if (n == 0)
		errno = ETIMEDOUT;
	return n > 0;
}

int conform_zygote_start(const char *path, char *err, size_t errlen)
{
	struct zrep rep;
	char fdarg[16];
	char *argv[] = {(char *)path, "--fd", fdarg, NULL};
	int sv[2], fds[MMF_FDS], e;
	unsigned nfds;
	pid_t pid;

	if (access(path, X_OK)) {
		snprintf(err, errlen, "cannot run the server %s: %s", path, strerror(errno));
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	fcntl(sv[1], F_SETFD, 0); /* the server's end goes through exec */
	snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
	e = posix_spawn(&pid, path, NULL, NULL, argv, environ);
	close(sv[1]);
	zsock = sv[0];
	if (e || !zwait() || kmsg_recv(zsock, &rep, sizeof(rep), fds, &nfds) != 1 || rep.result) {
		snprintf(err, errlen, "the server %s did not start: %s", path,
			 strerror(e	  ? e
				  : errno ? errno
					  : EPROTO));
		close(zsock);
		zsock = -1;
		return -1;
	}
	return 0;
}

pid_t conform_zygote_spawn(uint64_t lo, uint64_t hi, uint64_t file_size, int *sock)
{
	struct zreq q = {lo, hi, file_size};
	struct zrep rep;
	int fds[MMF_FDS];
	unsigned nfds = 0;

	if (zsock < 0)
		return -ENOTCONN;
	errno = 0;
	if (!kmsg_send(zsock, &q, sizeof(q), NULL, 0) || !zwait() ||
	    kmsg_recv(zsock, &rep, sizeof(rep), fds, &nfds) != 1)
		return errno ? -errno : -EPIPE;
	if (rep.result > 0 && nfds == 1) {
		*sock = fds[0];
		return (pid_t)rep.result;
	}
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	return rep.result < 0 ? (pid_t)rep.result : -EPROTO;
}

/* ---- the server ----------------------------------------------------------- */

/* One p0: forked, serving the socket whose other end goes back. */
static bool spawn_one(int sock, const struct zreq *q)
{
	struct zrep rep = {0};
	int sv[2];
	pid_t pid;
	bool ok;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		rep.result = -errno;
		return kmsg_send(sock, &rep, sizeof(rep), NULL, 0);
	}
	pid = fork();
	if (pid == 0) {
		close(sock);
		close(sv[0]);
		kserver_main(sv[1], q->lo, q->hi, q->file_size);
	}
	close(sv[1]);
	rep.result = pid < 0 ? -errno : pid;
	ok = kmsg_send(sock, &rep, sizeof(rep), sv, pid < 0 ? 0 : 1);
	close(sv[0]);
	return ok;
}

_Noreturn void conform_zygote_serve(int sock)
{
	struct zrep hello = {0};
	struct zreq q;
	int fds[MMF_FDS];
	unsigned nfds;

	/* what p0 forks and leaves behind comes here, and is reaped at once */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (!kmsg_send(sock, &hello, sizeof(hello), NULL, 0))
		_exit(1);
	while (kmsg_recv(sock, &q, sizeof(q), fds, &nfds) == 1) {
		for (unsigned i = 0; i < nfds; i++)
			close(fds[i]);
		if (!spawn_one(sock, &q))
			break;
	}
	_exit(0);
}
