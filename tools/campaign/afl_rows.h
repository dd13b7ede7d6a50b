/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plot_data with a row a second from the start: afl-fuzz writes its own
 * rows only after its first minute and when it ends, vmafuzz statsd one a
 * second (tools/cmd_statsd.c). When afl-fuzz has ended, the statsd rows
 * from before afl-fuzz's first row go in front of it.
 */
#ifndef VMAFUZZ_CAMPAIGN_AFL_ROWS_H
#define VMAFUZZ_CAMPAIGN_AFL_ROWS_H

#include <stdbool.h>
#include <stddef.h>

/* plot_data's text @pd with the rows of @rows put in: pd's header, the
 * rows of @rows whose time is before pd's first row, pd's rows. Malloc'd. */
char *afl_rows_merged(const char *pd, const char *rows);

/* Merge file @rows into file @plot_data (rewritten whole) and remove it;
 * a plot_data that is not there takes nothing. */
bool afl_rows_merge(const char *plot_data, const char *rows);

/* The rows of plot_data file @path (not its header). */
long afl_rows_count(const char *path);

#endif
