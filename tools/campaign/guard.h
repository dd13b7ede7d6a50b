/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of a run, which end with it. Every process the run starts
 * (make, an engine and its -fork workers, AFL++'s secondaries, vmafuzz
 * statsd) has a process group of its own, and a watcher process, started
 * first, knows each group before the group's first process runs: it reads
 * them from a pipe that only this process writes to. When the pipe ends
 * (this process exited, or was killed, SIGKILL included), the watcher
 * kills the groups it still knows and the processes that carry the run's
 * mark in their environment (VMAFUZZ_AFL_RUN=<mark>: AFL++'s targets are
 * in sessions of their own), and removes the run's temporary folder,
 * which every process started gets as TMPDIR (libFuzzer's -fork folder
 * libFuzzerTemp.FuzzWithFork<pid>.dir and its merge control files go
 * there). SIGINT, SIGTERM and SIGHUP to this process are passed on to the
 * groups that are running, each as its process wants them (guard_pass);
 * SIGTSTP stops them with this process, SIGCONT has them go on.
 */
#ifndef VMAFUZZ_CAMPAIGN_GUARD_H
#define VMAFUZZ_CAMPAIGN_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How a signal caught reaches a group. */
enum guard_pass {
	GUARD_PASS_GROUP,  /* to every process of the group, as a terminal's (make) */
	GUARD_PASS_LEADER, /* to its first process, which ends the rest (afl-fuzz) */
	GUARD_PASS_TERM,   /* SIGTERM to its first process: libFuzzer, whose SIGINT
			    * -fork ignores while workers run (system()), and
			    * whose workers' shells would die of it unseen */
	GUARD_PASS_NONE,   /* not at all (vmafuzz statsd: the run ends it) */
};

struct guard_io {
	const char *out;  /* stdout and stderr to this file; NULL: this process's */
	int out_fd;	  /* > 2: stdout and stderr to this descriptor instead */
	bool append;	  /* add to @out rather than replace it */
	bool null_in;	  /* stdin from /dev/null */
	char *const *env; /* "NAME=VALUE" to set, "NAME" to unset; NULL-ended */
	enum guard_pass pass;
};

/* Make the temporary folder, start the watcher, catch the signals. @mark
 * may be NULL. False after a message. */
bool guard_start(const char *mark);

/* The run's temporary folder. */
const char *guard_tmpdir(void);

/* Start @argv (found on PATH) in a group of its own; its pid, or -1 after
 * a message. */
pid_t guard_spawn(char *const argv[], const struct guard_io *io);

/* Pass the signals caught since the last call on to the running groups;
 * the last one, or 0. */
int guard_pass_signals(void);

/* Whether @pid has ended (then its status into @status: the exit status,
 * or 128 + the signal that ended it, and what is left of its group is
 * killed). Does not wait. */
bool guard_ended(pid_t pid, int *status);

/* Wait for @pid to end, passing signals on; its status as above. */
int guard_wait(pid_t pid);

/* Whether a process of group @pgid runs (zombies, which a PID 1 that does
 * not reap keeps, do not). */
bool guard_group_alive(pid_t pgid);

/* SIGKILL the processes whose environment holds VMAFUZZ_AFL_RUN=@mark;
 * how many, and "PID NAME (STATE), ..." into @what. */
long guard_end_marked(const char *mark, char *what, size_t len);

/* End the run: the watcher ends what is left and removes the temporary
 * folder; returns once it has. */
void guard_end(void);

#endif
