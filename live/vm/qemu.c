/* SPDX-License-Identifier: GPL-2.0 */
/* A guest under qemu, its console read as it runs (qemu.h). */
#include "qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A KVM that takes the guest has it print its first line well within this. */
#define KVM_FIRST_LINE_S 20

bool vm_kvm_present(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pid_t spawn(const struct vm_opts *o, const char *accel, int *out_fd)
{
	char mem[16], cpus[16], append[1024];
	int p[2];
	pid_t pid;

	snprintf(mem, sizeof(mem), "%u", o->mem_mb ? o->mem_mb : 2048);
	snprintf(cpus, sizeof(cpus), "%u", o->cpus ? o->cpus : 2);
	/* panic=-1: a panic ends the machine at once (-no-reboot makes qemu
	 * exit); oops=panic: an Oops is where the report ends */
	snprintf(append, sizeof(append),
		 "console=ttyS0 rdinit=/init panic=-1 oops=panic "
		 "loglevel=7 printk.time=1 %s",
		 o->append ? o->append : "");
	const char *argv[] = {"qemu-system-x86_64", "-accel",
			      strcmp(accel, "kvm") ? "tcg,thread=multi" : "kvm", "-cpu",
			      /* no protection keys: with them PROT_EXEC alone is
			       * execute-only, which the model (and a host without
			       * them) is not */
			      strcmp(accel, "kvm") ? "max,pku=off" : "host", "-m", mem, "-smp",
			      cpus, "-kernel", o->kernel, "-initrd", o->initramfs, "-append",
			      append, "-nodefaults", "-no-reboot", "-display", "none", "-serial",
			      "stdio", "-monitor", "none", "-net", "none", NULL};

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		/* qemu goes when we go, however we go */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(null, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "vmafuzz vm: cannot run qemu-system-x86_64: %s\n", strerror(errno));
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*out_fd = p[0];
	return pid;
}

struct reader {
	char buf[CONSOLE_LINE_MAX];
	size_t n;
	FILE *log;
	bool echo;
	struct console con;
	bool any_line, job_started, ended;
	enum vm_end end;
	int status;
	double t0, started_at;
	void (*on_report)(void *arg, struct console_report *r);
	void *arg;
	const char *stop_at;
	unsigned reports;
	bool stop; /* a report the options stop at came */
};

static void deliver(struct reader *r)
{
	struct console_report rep;

	while (console_take(&r->con, &rep)) {
		r->reports++;
		rep.at_s = now_s() - r->t0;
		if (r->stop_at && strstr(rep.title, r->stop_at))
			r->stop = true;
		if (r->on_report) {
			r->on_report(r->arg, &rep);
		} else {
			free(rep.text);
			free(rep.prog);
		}
	}
}

static void one_line(struct reader *r, char *line)
{
	const char *s = console_strip(line);
	long v;

	/* qemu's own messages come on the same pipe and are not the guest's: a
	 * KVM that refuses the guest says so in them ("failed to set MSR"),
	 * and TCG is tried next */
	if (strncmp(s, "qemu-system-", 12))
		r->any_line = true;
	if (r->log)
		fprintf(r->log, "%s\n", line);
	if (r->echo) {
		printf("%s\n", line);
		fflush(stdout);
	}
	if (!strncmp(s, "vmafuzz-vm: running ", 20) && !r->job_started) {
		r->job_started = true;
		r->started_at = now_s();
	} else if (sscanf(s, "vmafuzz-vm: exit %ld", &v) == 1) {
		r->ended = true, r->end = VM_EXITED, r->status = (int)v;
	} else if (sscanf(s, "vmafuzz-vm: signal %ld", &v) == 1) {
		r->ended = true, r->end = VM_SIGNALED, r->status = (int)v;
	} else if (!strncmp(s, "vmafuzz-vm: timeout", 19)) {
		r->ended = true, r->end = VM_TIMEOUT;
	}
	console_line(&r->con, line);
	deliver(r);
}

static void feed(struct reader *r, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char ch = data[i];

		if (ch == '\r')
			continue;
		if (ch == '\n' || r->n == sizeof(r->buf) - 1) {
			r->buf[r->n] = 0;
			one_line(r, r->buf);
			r->n = 0;
			if (ch == '\n')
				continue;
		}
		r->buf[r->n++] = ch;
	}
}

/* One boot under @accel; false when KVM gave no line in time (try TCG). */
static bool boot(const struct vm_opts *o, const char *accel, struct reader *r,
		 struct vm_result *res)
{
	int fd;
	pid_t pid = spawn(o, accel, &fd);
	double limit = o->timeout_s ? o->timeout_s : 600;
	bool timed_out = false;

	if (pid < 0) {
		res->end = VM_NO_BOOT;
		snprintf(res->err, sizeof(res->err), "cannot start qemu: %s", strerror(errno));
		return true;
	}
	for (;;) {
		struct pollfd pfd = {fd, POLLIN, 0};
		char data[4096];
		double t = now_s() - r->t0;
		int rc;

		if (t >= limit) {
			timed_out = true;
			break;
		}
		if (!strcmp(accel, "kvm") && !r->any_line && t >= KVM_FIRST_LINE_S) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(fd);
			return false;
		}
		rc = poll(&pfd, 1, 500);
		if (rc < 0 && errno != EINTR)
			break;
		if (rc > 0) {
			ssize_t got = read(fd, data, sizeof(data));

			if (got <= 0)
				break; /* qemu has gone */
			feed(r, data, (size_t)got);
			if (r->stop)
				break;
		}
	}
	if (r->n) {
		r->buf[r->n] = 0;
		one_line(r, r->buf);
		r->n = 0;
	}
	kill(pid, SIGKILL);
	int wst = 0;

	waitpid(pid, &wst, 0);
	close(fd);
	if (!strcmp(accel, "kvm") && !r->any_line)
		return false;
	console_end(&r->con);
	deliver(r);
	if (r->stop) {
		res->end = VM_STOPPED;
	} else if (r->ended) {
		res->end = r->end;
		res->status = r->status;
	} else if (timed_out) {
		res->end = VM_TIMEOUT;
	} else if (r->any_line) {
		res->end = VM_CRASHED;
	} else {
		res->end = VM_NO_BOOT;
		snprintf(res->err, sizeof(res->err),
			 "qemu ended (status %d) before the guest said "
			 "anything",
			 WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
	}
	return true;
}

void vm_run(const struct vm_opts *o, void (*on_report)(void *arg, struct console_report *r),
	    void *arg, struct vm_result *res)
{
	static struct reader r;
	const char *accels[2];
	unsigned n = 0;

	memset(res, 0, sizeof(*res));
	if (o->accel) {
		accels[n++] = o->accel;
	} else {
		if (vm_kvm_present())
			accels[n++] = "kvm";
		accels[n++] = "tcg";
	}
	for (unsigned i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		console_init(&r.con);
		r.on_report = on_report;
		r.arg = arg;
		r.echo = o->echo;
		r.stop_at = o->stop_at;
		r.t0 = now_s();
		if (o->log && !(r.log = fopen(o->log, "w"))) {
			res->end = VM_NO_BOOT;
			snprintf(res->err, sizeof(res->err), "cannot write %s: %s", o->log,
				 strerror(errno));
			return;
		}
		snprintf(res->accel, sizeof(res->accel), "%s", accels[i]);
		bool done = boot(o, accels[i], &r, res);

		if (r.log)
			fclose(r.log);
		res->reports = r.reports;
		res->run_s = now_s() - r.t0;
		res->boot_s = r.job_started ? r.started_at - r.t0 : 0;
		console_free(&r.con);
		if (done)
			return;
	}
}
