/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay driver as a subprocess with a timeout (crash_run.h).
 */
#include "crash_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOG_MAX (4u << 20)

/* Prepend @opts to the sanitizer options variable @var: the user's own
 * options come last and win. */
static void env_prepend(const char *var, const char *opts)
{
	const char *old = getenv(var);
	char *v;

	if (asprintf(&v, "%s%s%s", opts, old ? ":" : "", old ? old : "") >= 0)
		setenv(var, v, 1);
}

static void child_env(bool abort_stack)
{
	/* stacks for UBSan reports and the check's name in its SUMMARY line */
	env_prepend("UBSAN_OPTIONS", "print_stacktrace=1:report_error_type=1");
	/* a stack for the abort() after an invariant or assertion report */
	if (abort_stack)
		env_prepend("ASAN_OPTIONS", "handle_abort=1");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* In the child: /dev/null for stdin and stdout, @err_fd for stderr. */
static _Noreturn void exec_driver(const char *driver, const char *arg, int err_fd, int other_fd,
				  bool abort_stack)
{
	int null = open("/dev/null", O_RDWR);

	setpgid(0, 0);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
	}
	dup2(err_fd, 2);
	close(err_fd);
	close(other_fd);
	child_env(abort_stack);
	execl(driver, driver, arg, (char *)NULL);
	fprintf(stderr, "vmafuzz: cannot run %s: %s\n", driver, strerror(errno));
	_exit(127);
}

/* Start @driver on @file with its stderr on a pipe; the pid, and the read
 * end in *@err_fd. -1 after a message on stderr. */
static pid_t spawn_driver(const char *driver, const char *file, bool abort_stack, int *err_fd)
{
	int fds[2];
	char *arg = NULL;
	pid_t pid;

	if (pipe(fds)) {
		fprintf(stderr, "vmafuzz: pipe: %s\n", strerror(errno));
		return -1;
	}
	/* a file name starting with '-' is not an option */
	if (file[0] == '-' && asprintf(&arg, "./%s", file) < 0)
		abort();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "vmafuzz: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		free(arg);
		return -1;
	}
	if (pid == 0)
		exec_driver(driver, arg ? arg : file, fds[1], fds[0], abort_stack);
	free(arg);
	setpgid(pid, pid); /* both sides, so a kill of the group cannot miss */
	close(fds[1]);
	*err_fd = fds[0];
	return pid;
}

struct log {
	char *buf;
	size_t n, cap;
};

/* Read once from @fd into @l (past LOG_MAX: read and drop); false at the
 * end of the output. */
static bool read_some(int fd, struct log *l)
{
	char sink[4096];
	ssize_t got;

	if (l->n == l->cap && l->cap < LOG_MAX) {
		l->cap *= 2;
		l->buf = realloc(l->buf, l->cap + 1);
		if (!l->buf)
			abort();
	}
	do
		got = l->n < l->cap ? read(fd, l->buf + l->n, l->cap - l->n)
				    : read(fd, sink, sizeof(sink));
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return false;
	if (l->n < l->cap)
		l->n += (size_t)got;
	return true;
}

/* Everything @pid writes on @fd until it closes it or @timeout seconds
 * pass; then the process group is killed and *@timed_out set. */
static char *read_until(pid_t pid, int fd, unsigned timeout, bool *timed_out)
{
	struct log l = {malloc(65536 + 1), 0, 65536};
	double deadline = now() + timeout;

	if (!l.buf)
		abort();
	*timed_out = false;
	for (;;) {
		struct pollfd pfd = {fd, POLLIN, 0};
		double left = deadline - now();
		int k;

		if (left <= 0) {
			*timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		k = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (k <= 0)
			continue; /* EINTR, or the deadline */
		if (!read_some(fd, &l))
			break;
	}
	close(fd);
	l.buf[l.n] = 0;
	return l.buf;
}

static bool run_driver(const char *driver, const char *file, unsigned timeout, bool abort_stack,
		       struct crash_result *r, char **log_out)
{
	int fd, status = 0;
	bool timed_out;
	pid_t pid = spawn_driver(driver, file, abort_stack, &fd);
	char *buf;

	if (pid < 0)
		return false;
	buf = read_until(pid, fd, timeout, &timed_out);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && strstr(buf, "cannot run")) {
		fputs(buf, stderr);
		free(buf);
		return false;
	}
	crash_classify(buf, status, timed_out, r);
	if (log_out)
		*log_out = buf;
	else
		free(buf);
	return true;
}

bool crash_run(const char *driver, const char *file, unsigned timeout, struct crash_result *r,
	       char **log_out)
{
	return run_driver(driver, file, timeout, false, r, log_out);
}

void crash_locate(const char *driver, const char *file, unsigned timeout, struct crash_result *r)
{
	struct crash_result again;

	if (r->nframes || !r->failed)
		return;
	if (run_driver(driver, file, timeout, true, &again, NULL) &&
	    !strcmp(again.bucket, r->bucket)) {
		r->nframes = again.nframes;
		memcpy(r->frames, again.frames, sizeof(r->frames));
		if (r->site.tree == SITE_NONE)
			r->site = again.site;
	}
}
