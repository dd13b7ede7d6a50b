/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waiting for an engine to end: the status lines (status.h) from its log
 * or plot_data rows, the signals passed on (guard.h), and a hook each
 * tick for what must happen while it runs.
 */
#ifndef VMAFUZZ_CAMPAIGN_STATUS_LOOP_H
#define VMAFUZZ_CAMPAIGN_STATUS_LOOP_H

#include "records.h"

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

struct status_loop {
	pid_t pid;
	const char *source; /* libFuzzer's log, or plot_data rows */
	bool plot;	    /* @source is plot_data rows */
	bool lines;	    /* print status lines */
	long every;	    /* seconds between them */
	time_t start;
	long seconds; /* the run's time */
	int ndirs;    /* crash folders, and their files at the start */
	char (*dirs)[PATH_MAX];
	const struct crash_set *before;
	void (*tick)(void *arg); /* NULL, or called every tick */
	void *arg;
	int pipe_fd; /* > 2: a tick comes too as soon as this pipe has data */
};

/* Until @l->pid ends; its status (guard_ended). */
int status_loop_run(const struct status_loop *l);

/* The crash files of the folders not there at the start. */
long status_new_crashes(const struct status_loop *l);

#endif
