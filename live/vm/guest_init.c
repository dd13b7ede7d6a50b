/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's /init (live/vm/vm.mk builds it static): mount what the job
 * needs, set the sysctls the job file names, run the job with its output on
 * the console, say how it ended, power the machine off. It is PID 1 of a
 * virtual machine booted from vmafuzz's initramfs and nowhere else: run
 * anywhere else (not PID 1, or /proc already there) it refuses, before it
 * touches anything.
 *
 * The job file (/job, written by vmafuzz vm) has one item a line:
 *   sysctl <path under /proc/sys> <value>
 *                             (set just before the command whose part of
 *                             the file it is in: a later command may run on
 *                             another machine setting than the first)
 *   env <NAME=value>
 *   arg <argument>            (the first is the program; a job without
 *                              one is an error)
 *   then                      (the arguments after it are the next command,
 *                              run when the one before has ended)
 *   timeout <seconds>         (the whole job is killed after it)
 * and the console gets "vmafuzz-vm: exit <status>" (the first command's
 * that was not 0, else 0; or "signal <n>", "timeout") just before the power
 * goes off.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 128
#define MAX_ENVS 32
#define MAX_CMDS 16
#define MAX_SYSCTLS 32

static void say(const char *fmt, const char *a, long n)
{
	/* straight to the console: nothing of stdio's buffering to lose at
	 * power-off */
	char buf[512];
	int len = snprintf(buf, sizeof(buf), fmt, a, n);

	if (len > 0)
		(void)!write(STDOUT_FILENO, buf,
			     (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf));
}

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void set_sysctl(const char *path, const char *value)
{
	char full[256];
	int fd;

	snprintf(full, sizeof(full), "/proc/sys/%s", path);
	fd = open(full, O_WRONLY);
	if (fd < 0 || write(fd, value, strlen(value)) < 0)
		say("vmafuzz-vm: cannot set %s (%ld)\n", full, errno);
	if (fd >= 0)
		close(fd);
}

static char *dup_str(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		say("vmafuzz-vm: %s\n", "out of memory", 0);
		power_off();
	}
	return d;
}

/* Run one command, reaping every other child that ends meanwhile (orphans
 * come to PID 1); its wait status, or -1 when the job's time ran out. */
static int run(char **args, char **envs, time_t end)
{
	int status = 0;
	pid_t pid;

	say("vmafuzz-vm: running %s (%ld arguments)\n", args[0], 0);
	pid = fork();
	if (pid == 0) {
		setsid();
		execve(args[0], args, envs);
		say("vmafuzz-vm: cannot run %s (%ld)\n", args[0], errno);
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(-1, &status, end ? WNOHANG : 0);

		if (w == pid)
			return status;
		if (w <= 0 && end) {
			if (time(NULL) >= end) {
				kill(-pid, SIGKILL);
				return -1;
			}
			usleep(100000);
		}
	}
}

int main(void)
{
	char *args[MAX_CMDS][MAX_ARGS + 1] = {{0}}, *envs[MAX_ENVS + 1] = {0}, line[4096];
	char *sysctls[MAX_CMDS][MAX_SYSCTLS][2] = {{{0}}};
	unsigned ncmds = 1, nargs = 0, nenvs = 0, nsysctls[MAX_CMDS] = {0};
	long timeout = 0, first = 0;
	FILE *job;

	/* a machine's first process finds nothing mounted yet; a container's
	 * PID 1 or a shell would find /proc */
	if (getpid() != 1 || access("/proc/self", F_OK) == 0) {
		fprintf(stderr,
			"vmafuzz guest init: not the first process of a machine that has "
			"just booted; this program runs only as a virtual machine's /init\n");
		return 2;
	}
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	mkdir("/dev/shm", 01777);
	mount("tmpfs", "/dev/shm", "tmpfs", 0, NULL);

	job = fopen("/job", "r");
	if (!job) {
		say("vmafuzz-vm: no /job%s (%ld)\n", "", errno);
		power_off();
	}
	while (fgets(line, sizeof(line), job)) {
		char *v;

		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, "then") && nargs && ncmds < MAX_CMDS) {
			ncmds++;
			nargs = 0;
			continue;
		}
		v = strchr(line, ' ');
		if (!v)
			continue;
		*v++ = 0;
		if (!strcmp(line, "arg") && nargs < MAX_ARGS) {
			args[ncmds - 1][nargs++] = dup_str(v);
		} else if (!strcmp(line, "env") && nenvs < MAX_ENVS) {
			envs[nenvs++] = dup_str(v);
		} else if (!strcmp(line, "timeout")) {
			timeout = atol(v);
		} else if (!strcmp(line, "sysctl") && nsysctls[ncmds - 1] < MAX_SYSCTLS) {
			char *value = strchr(v, ' ');

			if (value) {
				unsigned k = nsysctls[ncmds - 1]++;

				*value++ = 0;
				sysctls[ncmds - 1][k][0] = dup_str(v);
				sysctls[ncmds - 1][k][1] = dup_str(value);
			}
		}
	}
	fclose(job);
	if (!args[0][0]) {
		say("vmafuzz-vm: the job names no program%s (%ld)\n", "", 0);
		power_off();
	}
	time_t end = timeout > 0 ? time(NULL) + timeout : 0;

	for (unsigned i = 0; i < ncmds && args[i][0]; i++) {
		int st;

		for (unsigned k = 0; k < nsysctls[i]; k++)
			set_sysctl(sysctls[i][k][0], sysctls[i][k][1]);
		st = run(args[i], envs, end);

		if (st < 0) {
			say("vmafuzz-vm: %s after %ld s\n", "timeout", timeout);
			power_off();
		}
		if (!WIFEXITED(st)) {
			say("vmafuzz-vm: %s %ld\n", "signal", WTERMSIG(st));
			power_off();
		}
		if (!first)
			first = WEXITSTATUS(st);
	}
	say("vmafuzz-vm: %s %ld\n", "exit", first);
	power_off();
}
