/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of a run, which end with it (guard.h).
 */
#include "guard.h"
#include "tools/file_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 4096

static int watch_fd = -1; /* the pipe's write end */
static pid_t watcher;
static char tmpdir[PATH_MAX], run_mark[128];
static struct {
	pid_t pgid;
	enum guard_pass pass;
} groups[MAX_GROUPS];
static int ngroups;
static volatile sig_atomic_t caught[3];
static const int signals[3] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
	for (int i = 0; i < 3; i++)
		if (signals[i] == sig)
			caught[i] = 1;
}

/* Ctrl-Z and fg: the groups are not the terminal's, so they stop and go
 * on with this process, as one job of the shell's would. */
static void on_stop(int sig)
{
	int e = errno;

	for (int g = 0; g < ngroups; g++)
		if (groups[g].pass != GUARD_PASS_NONE || sig == SIGCONT)
			kill(-groups[g].pgid, sig == SIGCONT ? SIGCONT : SIGSTOP);
	if (sig == SIGTSTP)
		kill(getpid(), SIGSTOP);
	errno = e;
}

static void nap(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&t, NULL);
}

/* The NUL-separated environment of process @pid (malloc'd), NULL if it
 * cannot be read. */
static char *environ_of(long pid, size_t *len)
{
	char path[64];
	size_t cap = 8192;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	*len = 0;
	while (buf) {
		ssize_t n = read(fd, buf + *len, cap - *len);

		if (n <= 0)
			break;
		*len += (size_t)n;
		if (*len == cap && !(buf = realloc(buf, cap *= 2)))
			break;
	}
	close(fd);
	return buf;
}

static bool marked(long pid, const char *entry)
{
	size_t len, n = strlen(entry);
	char *env = environ_of(pid, &len);
	bool found = false;

	for (size_t at = 0; env && at < len && !found; at += strlen(env + at) + 1)
		found = len - at > n && !memcmp(env + at, entry, n + 1);
	free(env);
	return found;
}

/* "NAME (STATE)" of process @pid from /proc/PID/stat into @buf. */
static void describe(long pid, char *buf, size_t len)
{
	char path[64], stat[512] = "";
	char *open_p, *close_p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = 0;
		fclose(f);
	}
	open_p = strchr(stat, '(');
	close_p = strrchr(stat, ')');
	if (open_p && close_p && close_p > open_p && close_p[1] == ' ' && close_p[2]) {
		int n = (int)(close_p - open_p - 1);

		/* (a name is at most 16 bytes) */
		snprintf(buf, len, "%ld %.*s (%c)", pid, n < 32 ? n : 32, open_p + 1, close_p[2]);
	} else {
		snprintf(buf, len, "%ld", pid);
	}
}

long guard_end_marked(const char *mark, char *what, size_t len)
{
	char entry[160], one[128];
	DIR *d = opendir("/proc");
	struct dirent *e;
	long n = 0;
	size_t at = 0;

	if (len)
		what[0] = 0;
	snprintf(entry, sizeof(entry), "VMAFUZZ_AFL_RUN=%s", mark);
	while (d && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid() || !marked(pid, entry))
			continue;
		describe(pid, one, sizeof(one));
		kill((pid_t)pid, SIGKILL);
		if (at < len)
			at += (size_t)snprintf(what + at, len - at, "%s%s", n ? ", " : "", one);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

bool guard_group_alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool alive = false;

	while (d && !alive && (e = readdir(d))) {
		char path[64], stat[512], *p;
		long pid = strtol(e->d_name, &p, 10);
		int pgrp = 0;
		FILE *f;

		if (*p || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(stat, sizeof(stat), f) ? strrchr(stat, ')') : NULL;
		fclose(f);
		/* "pid (comm) STATE ppid pgrp ..."; a zombie runs no more */
		alive = p && sscanf(p + 1, " %*c %*d %d", &pgrp) == 1 && pgrp == pgid &&
			p[2] != 'Z' && p[2] != 'X';
	}
	if (d)
		closedir(d);
	return alive;
}

/* The watcher: read "g PGID" (a group to end) and "f PGID" (one that has
 * ended) from @fd until it ends; then end what is left. */
static void watch(int fd)
{
	static pid_t known[MAX_GROUPS];
	char buf[256], what[256];
	size_t have = 0;
	int n = 0;

	for (;;) {
		ssize_t k = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line, *nl;

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		have += (size_t)k;
		buf[have] = 0;
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			pid_t g = (pid_t)atol(line + 2);

			if (line[0] == 'g' && n < MAX_GROUPS && g > 0)
				known[n++] = g;
			for (int i = 0; line[0] == 'f' && i < n; i++)
				if (known[i] == g)
					known[i--] = known[--n];
		}
		have = strlen(line);
		memmove(buf, line, have);
	}
	for (int i = 0; i < n; i++)
		kill(-known[i], SIGKILL);
	if (run_mark[0])
		guard_end_marked(run_mark, what, sizeof(what));
	/* the folder goes once nothing can write in it */
	for (int i = 0; i < n; i++)
		for (int tries = 0; tries < 250 && guard_group_alive(known[i]); tries++)
			nap(20);
	if (tmpdir[0])
		tree_remove(tmpdir);
}

bool guard_start(const char *mark)
{
	const char *t = getenv("TMPDIR");
	struct sigaction sa = {.sa_handler = on_signal};
	int fds[2];

	snprintf(run_mark, sizeof(run_mark), "%s", mark ? mark : "");
	path_fmt(tmpdir, sizeof(tmpdir), "%s/vmafuzz-fuzz.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "vmafuzz fuzz: cannot make a folder %s: %s\n", tmpdir,
			strerror(errno));
		tmpdir[0] = 0;
		return false;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		fprintf(stderr, "vmafuzz fuzz: pipe: %s\n", strerror(errno));
		tree_remove(tmpdir);
		return false;
	}
	fflush(NULL);
	watcher = fork();
	if (watcher < 0) {
		fprintf(stderr, "vmafuzz fuzz: fork: %s\n", strerror(errno));
		tree_remove(tmpdir);
		return false;
	}
	if (watcher == 0) {
		int null = open("/dev/null", O_RDWR);

		/* out of the terminal's reach, and of the caller's pipes */
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGTSTP, SIG_IGN);
		close(fds[1]);
		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != fds[0])
				close(fd);
		watch(fds[0]);
		_exit(0);
	}
	close(fds[0]);
	watch_fd = fds[1];
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < 3; i++)
		sigaction(signals[i], &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTSTP, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
	return true;
}

const char *guard_tmpdir(void)
{
	return tmpdir;
}

static void tell(char what, pid_t g)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%c %d\n", what, (int)g);

	if (watch_fd >= 0 && write(watch_fd, line, (size_t)n) != n)
		fprintf(stderr, "vmafuzz fuzz: the watcher is gone: %s\n", strerror(errno));
}

/* In the child, before exec: its environment and files. */
static void child_setup(const struct guard_io *io)
{
	int fd;

	for (char *const *e = io->env; e && *e; e++) {
		char *eq = strchr(*e, '=');

		if (eq) {
			*eq = 0;
			setenv(*e, eq + 1, 1);
			*eq = '=';
		} else {
			unsetenv(*e);
		}
	}
	if (tmpdir[0])
		setenv("TMPDIR", tmpdir, 1);
	if (io->null_in && (fd = open("/dev/null", O_RDONLY)) >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (io->out_fd > 2) {
		dup2(io->out_fd, 1);
		dup2(io->out_fd, 2);
	} else if (io->out) {
		fd = open(io->out, O_WRONLY | O_CREAT | (io->append ? O_APPEND : O_TRUNC), 0644);
		if (fd < 0) {
			fprintf(stderr, "vmafuzz fuzz: cannot write %s: %s\n", io->out,
				strerror(errno));
			_exit(127);
		}
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
}

pid_t guard_spawn(char *const argv[], const struct guard_io *io)
{
	int sync[2];
	pid_t pid;
	char go = 1;

	if (pipe2(sync, O_CLOEXEC)) {
		fprintf(stderr, "vmafuzz fuzz: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		ssize_t k;

		setpgid(0, 0);
		for (int i = 0; i < 3; i++)
			signal(signals[i], SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGTSTP, SIG_DFL);
		signal(SIGCONT, SIG_DFL);
		close(sync[1]);
		/* run only once the watcher knows the group */
		do
			k = read(sync[0], &go, 1);
		while (k < 0 && errno == EINTR);
		if (k != 1)
			_exit(127);
		child_setup(io);
		execvp(argv[0], argv);
		fprintf(stderr, "vmafuzz fuzz: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(sync[0]);
	if (pid < 0) {
		fprintf(stderr, "vmafuzz fuzz: fork: %s\n", strerror(errno));
		close(sync[1]);
		return -1;
	}
	setpgid(pid, pid);
	tell('g', pid);
	if (ngroups < MAX_GROUPS) {
		groups[ngroups].pgid = pid;
		groups[ngroups++].pass = io->pass;
	}
	if (write(sync[1], &go, 1) != 1)
		kill(pid, SIGKILL);
	close(sync[1]);
	return pid;
}

int guard_pass_signals(void)
{
	int last = 0;

	for (int i = 0; i < 3; i++) {
		if (!caught[i])
			continue;
		caught[i] = 0;
		last = signals[i];
		for (int g = 0; g < ngroups; g++) {
			pid_t pgid = groups[g].pgid;

			if (groups[g].pass == GUARD_PASS_GROUP)
				kill(-pgid, signals[i]);
			else if (groups[g].pass == GUARD_PASS_LEADER)
				kill(pgid, signals[i]);
			else if (groups[g].pass == GUARD_PASS_TERM)
				kill(pgid, SIGTERM);
		}
	}
	return last;
}

bool guard_ended(pid_t pid, int *status)
{
	int st;
	pid_t r = waitpid(pid, &st, WNOHANG);

	if (r == 0 || (r < 0 && errno == EINTR))
		return false;
	if (r < 0)
		st = 127 << 8;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
	/* its workers, if any are left, end with it */
	kill(-pid, SIGKILL);
	for (int g = 0; g < ngroups; g++)
		if (groups[g].pgid == pid)
			groups[g--] = groups[--ngroups];
	tell('f', pid);
	return true;
}

int guard_wait(pid_t pid)
{
	int status;

	while (!guard_ended(pid, &status)) {
		guard_pass_signals();
		nap(50);
	}
	return status;
}

void guard_end(void)
{
	int st;

	if (watch_fd < 0)
		return;
	close(watch_fd);
	watch_fd = -1;
	while (waitpid(watcher, &st, 0) < 0 && errno == EINTR)
		;
	tmpdir[0] = 0;
}
