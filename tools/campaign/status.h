/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The status line of a run, and the figures in it: exec/s, edges and
 * corpus size, read from libFuzzer's log (its last progress line) or from
 * the plot_data rows vmafuzz statsd writes for AFL++ (the last row).
 *
 *   [12:00:05] 5s elapsed, 595s left: exec/s 2048, edges 512, corpus 80, crashes 0 new
 *
 * The first line comes a few seconds into the run, then one every 5 s on
 * a terminal (rewritten in place) or every 30 s otherwise;
 * VMAFUZZ_STATUS_EVERY=S says every S seconds.
 */
#ifndef VMAFUZZ_CAMPAIGN_STATUS_H
#define VMAFUZZ_CAMPAIGN_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* when the first line comes, at the latest */
#define STATUS_FIRST 3

struct fuzz_sample {
	long rate, edges, corpus; /* -1: not known yet */
};

/*
 * The figures of libFuzzer's last progress line in @text (@len bytes):
 * "#N <what> cov: C ft: F corp: K/B ... exec/s: R ...", or under -fork=N
 * "#N: cov: C ft: F corp: K exec/s R ...". False (all -1) if none.
 */
bool status_sample_libfuzzer(const char *text, size_t len, struct fuzz_sample *s);

/* The same from plot_data's last row (columns: time, cycles, item,
 * corpus, ..., exec/s (11th), executions, edges (13th)). */
bool status_sample_plot(const char *text, size_t len, struct fuzz_sample *s);

/* The last @max bytes of file @path, NUL-terminated, malloc'd; NULL when
 * it cannot be read. */
char *status_tail(const char *path, size_t max, size_t *len);

/* Seconds between lines: VMAFUZZ_STATUS_EVERY (@env, NULL when unset),
 * else 5 on a terminal and 30 otherwise; 0 after a message when @env is
 * not whole seconds. */
long status_every(const char *env, bool tty);

/* The line, without its end, into @buf. */
void status_format(char *buf, size_t len, time_t now, long elapsed, long left,
		   const struct fuzz_sample *s, long new_crashes);

#endif
