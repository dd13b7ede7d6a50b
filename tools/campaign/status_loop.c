/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waiting for an engine to end (status_loop.h).
 */
#include "status_loop.h"
#include "guard.h"
#include "status.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

long status_new_crashes(const struct status_loop *l)
{
	long n = 0;

	for (int i = 0; i < l->ndirs; i++)
		n += crash_count_new(l->dirs[i], &l->before[i], NULL);
	return n;
}

static void line(const struct status_loop *l, bool tty)
{
	struct fuzz_sample s = {-1, -1, -1};
	time_t now = time(NULL);
	size_t len;
	char *text = status_tail(l->source, 1 << 18, &len);
	char buf[512];

	if (text) {
		if (l->plot)
			status_sample_plot(text, len, &s);
		else
			status_sample_libfuzzer(text, len, &s);
		free(text);
	}
	status_format(buf, sizeof(buf), now, (long)(now - l->start),
		      l->seconds - (long)(now - l->start), &s, status_new_crashes(l));
	printf("%s%s", buf, tty ? "\r" : "\n");
	fflush(stdout);
}

int status_loop_run(const struct status_loop *l)
{
	struct timespec nap = {0, 100 * 1000 * 1000};
	bool tty = isatty(1);
	long next = l->every < STATUS_FIRST ? l->every : STATUS_FIRST;
	bool printed = false;
	int status;

	while (!guard_ended(l->pid, &status)) {
		int sig = guard_pass_signals();

		if (sig) {
			/* the engine stops and says why; the summary still comes */
			printf("\n(%s)\n", sig == SIGINT    ? "interrupted"
					   : sig == SIGTERM ? "terminated"
							    : "hung up");
			fflush(stdout);
		}
		if (l->tick)
			l->tick(l->arg);
		if (l->lines && time(NULL) - l->start >= next) {
			line(l, tty);
			printed = true;
			next += l->every;
		}
		if (l->pipe_fd > 2) {
			struct pollfd p = {l->pipe_fd, POLLIN, 0};

			/* an ended pipe is always "ready": wait as without one */
			if (poll(&p, 1, (int)(nap.tv_nsec / 1000000)) > 0 && !(p.revents & POLLIN))
				nanosleep(&nap, NULL);
		} else {
			nanosleep(&nap, NULL);
		}
	}
	if (printed && tty)
		printf("\n"); /* past the status line */
	return status;
}
