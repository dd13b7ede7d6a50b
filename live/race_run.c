/* SPDX-License-Identifier: GPL-2.0 */
/* A plan run on real threads of a subject process (race_run.h). */
#include "race_run.h"

#include "conform_ops.h"
#include "race_bounds.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define RACE_STACK (256u << 10)
#define RACE_WHY 512
#define RACE_MAX_KVMAS 4096
#define RACE_HANG_S 120 /* a round that takes longer hangs */

/* What the subject tells the tool through its pipe. */
struct race_report {
	unsigned checked, reads;
	char why[RACE_WHY];
};

struct racer {
	const struct race_plan *plan;
	unsigned thread;
	pthread_barrier_t *go;
	struct race_bounds bounds;
	unsigned checked, reads;
	char why[RACE_WHY]; /* the first failed check */
};

/* smaps_rollup's Rss in kB, read with system calls only (no allocation);
 * false when it cannot be read or has no Rss line. */
static bool rollup_rss(uint64_t *kb)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	int fd = open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);
	const char *rss;

	if (fd < 0)
		return false;
	while (len + 1 < sizeof(buf) &&
	       ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	close(fd);
	buf[len] = 0;
	rss = strstr(buf, "\nRss:");
	if (!rss)
		return false;
	*kb = strtoull(rss + 5, NULL, 10);
	return true;
}

/* A fork: the child exits at once, the thread waits for it. */
static void fork_once(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(0);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* One operation; a racing rollup read checked against @x's bounds. */
static void run_op(struct racer *x, const struct race_op *op, bool check)
{
	uint64_t kb;

	switch (op->kind) {
	case RACE_FORK:
		fork_once();
		break;
	case RACE_ROLLUP:
		x->reads++;
		if (!rollup_rss(&kb)) {
			if (!x->why[0])
				snprintf(x->why, sizeof(x->why),
					 "operation %u (t%u): no Rss in /proc/self/smaps_rollup",
					 op->index, op->thread);
			break;
		}
		if (check) {
			char why[RACE_WHY - 64];

			x->checked++;
			if (!race_rss_check(&x->bounds, kb, why, sizeof(why)) && !x->why[0])
				snprintf(x->why, sizeof(x->why), "operation %u (t%u rollup): %s",
					 op->index, op->thread, why);
		}
		break;
	default:
		(void)ksys_call(&op->k);
	}
}

static void *racer_main(void *arg)
{
	struct racer *x = arg;

	pthread_barrier_wait(x->go);
	for (unsigned i = 0; i < x->plan->nops; i++)
		if (x->plan->ops[i].thread == x->thread)
			run_op(x, &x->plan->ops[i], true);
	return NULL;
}

/* The racing threads' stacks, faulted in now. */
static void *stack_new(void)
{
	void *s = mmap(NULL, RACE_STACK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return s == MAP_FAILED ? NULL : s;
}

/* Every page outside the window that the race could fault in, faulted in
 * now, so that the rest's Rss stays as measured: the code and data of the
 * binary and its libraries (read faults of file pages as new code runs),
 * and every private writable page (written, as a first write would). */
static void warm(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
		    (hi > CONFORM_LO && lo < CONFORM_HI))
			continue;
		/* not shared ones: a write would dirty their file */
		(void)madvise((void *)(uintptr_t)lo, hi - lo,
			      perms[1] == 'w' && perms[3] == 'p' ? MADV_POPULATE_WRITE
								 : MADV_POPULATE_READ);
	}
	fclose(f);
}

/* The subject's body; its report into @r, the exit status returned. */
static int subject(const struct race_plan *plan, struct race_report *r)
{
	static struct kvma v[RACE_MAX_KVMAS];
	static struct racer x[PROG_MAX_FIBERS];
	pthread_t tid[PROG_MAX_FIBERS];
	pthread_barrier_t go;
	struct krest rest;
	cpu_set_t cpus;
	char err[256];
	int e = 0;

	/* ksys_setup's fault handlers, stack limit and THP off, not its one CPU */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) || (e = ksys_setup()) ||
	    sched_setaffinity(0, sizeof(cpus), &cpus)) {
		snprintf(r->why, sizeof(r->why), "setup: %s", strerror(e ? e : errno));
		return 3;
	}
	if ((e = ksys_window_free(CONFORM_LO, CONFORM_HI))) {
		snprintf(r->why, sizeof(r->why), "the window is not free: %s", strerror(e));
		return 3;
	}
	x[0].plan = plan;
	for (unsigned i = 0; i < plan->nops; i++)
		if (plan->ops[i].thread == 0)
			run_op(&x[0], &plan->ops[i], false);
	r->reads = x[0].reads;
	if (pthread_barrier_init(&go, NULL, plan->nthreads)) {
		snprintf(r->why, sizeof(r->why), "pthread_barrier_init failed");
		return 3;
	}
	for (unsigned t = 1; t < plan->nthreads; t++) {
		pthread_attr_t attr;
		void *stack = stack_new();

		x[t] = (struct racer){.plan = plan, .thread = t, .go = &go};
		if (!stack || pthread_attr_init(&attr) ||
		    pthread_attr_setstack(&attr, stack, RACE_STACK) ||
		    pthread_create(&tid[t], &attr, racer_main, &x[t])) {
			snprintf(r->why, sizeof(r->why), "cannot start thread t%u", t);
			return 3; /* the started ones wait at the barrier until the exit */
		}
		pthread_attr_destroy(&attr);
	}
	warm();
	/* twice: the first read's own buffers are resident by the second */
	for (int k = 0; k < 2; k++)
		if (ksys_vmas(0, CONFORM_LO, CONFORM_HI, v, RACE_MAX_KVMAS, &rest, err,
			      sizeof(err)) < 0) {
			snprintf(r->why, sizeof(r->why), "smaps: %s", err);
			return 3;
		}
	for (unsigned t = 1; t < plan->nthreads; t++)
		x[t].bounds = race_rss_bounds(plan->stable_pages, rest.rss, plan->race_pages);
	pthread_barrier_wait(&go);
	for (unsigned t = 1; t < plan->nthreads; t++) {
		pthread_join(tid[t], NULL);
		r->checked += x[t].checked;
		r->reads += x[t].reads;
		if (x[t].why[0] && !r->why[0])
			snprintf(r->why, sizeof(r->why), "%s", x[t].why);
	}
	return r->why[0] ? 1 : 0;
}

int race_round_run(const struct race_plan *plan, struct race_round *out, char *why, size_t whylen)
{
	struct race_report r;
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return 2;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 2;
	}
	if (pid == 0) {
		static struct race_report mine;
		int status;

		close(fds[0]);
		alarm(RACE_HANG_S);
		status = subject(plan, &mine);
		if (write(fds[1], &mine, sizeof(mine)) != (ssize_t)sizeof(mine))
			status = status ? status : 3;
		_exit(status);
	}
	close(fds[1]);
	memset(&r, 0, sizeof(r));
	n = read(fds[0], &r, sizeof(r));
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(r)) {
		out->checked = r.checked;
		out->reads = r.reads;
	}
	r.why[sizeof(r.why) - 1] = 0;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
		snprintf(why, whylen, "the subject did not finish in %d s (a hang)", RACE_HANG_S);
		return 1;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, whylen, "the subject was killed by signal %d (%s)%s%s", WTERMSIG(st),
			 strsignal(WTERMSIG(st)), r.why[0] ? ": " : "", r.why);
		return 1;
	}
	if (WEXITSTATUS(st)) {
		snprintf(why, whylen, "the subject exited %d: %s", WEXITSTATUS(st),
			 r.why[0] ? r.why : "(no report)");
		return 1;
	}
	return 0;
}
