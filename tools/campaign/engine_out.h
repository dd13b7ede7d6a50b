/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An engine's output as it comes, through a pipe: every byte is written on
 * to the run's log, and what a crash leaves in it is kept in memory, so
 * that a crash the engine could not save (a full disk) is not lost with
 * the log: each failure report's program (the lines after a line starting
 * PROG_LOG_REPORT up to the next line starting "--- ", fuzz/prog/prog.h),
 * the file libFuzzer then says it wrote ("Test unit written to PATH") and
 * the input's bytes, which libFuzzer prints when they are few
 * ("Base64: ..."); and whether a crash is under way (from its report's
 * first line, a sanitizer's "==N==ERROR:" or a check's "vmafuzz: invariant
 * ...", to the engine's end or its next progress line "#N ..."). A write
 * of the log that fails is
 * noted with its errno,
 * and the log is written no further (a log with a hole in it would
 * mislead); the output is still read and kept.
 */
#ifndef VMAFUZZ_CAMPAIGN_ENGINE_OUT_H
#define VMAFUZZ_CAMPAIGN_ENGINE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENGINE_OUT_CRASHES 64 /* kept; later ones are only counted */

/* One crash as the output tells it; any part may be missing. */
struct engine_crash {
	char *program;	/* the report's program, as text; NULL: none, or cut short */
	char *path;	/* the file libFuzzer wrote it to; NULL: none said */
	uint8_t *bytes; /* the input, from libFuzzer's Base64 line; NULL: none */
	size_t nbytes;
};

struct engine_out {
	int fd;		     /* the pipe's read end (non-blocking) */
	int log_fd;	     /* the log; -1 once a write of it failed */
	const char *log;     /* its path */
	int log_errno;	     /* 0, or why a write of the log failed */
	unsigned long bytes; /* read so far */
	char *line;	     /* the line being read */
	size_t nline, capline;
	char *prog; /* the report's program being read, when in_prog */
	size_t nprog, capprog;
	bool in_prog, eof;
	bool reporting; /* a crash is under way: its input may not be written yet */
	struct engine_crash crashes[ENGINE_OUT_CRASHES];
	int ncrashes, lost; /* kept; met beyond ENGINE_OUT_CRASHES */
};

/* Start reading pipe @fd into a new log @log (replaced); false with errno
 * when the log cannot be made. */
bool engine_out_open(struct engine_out *o, int fd, const char *log);

/* Read what the pipe holds now. */
void engine_out_pump(struct engine_out *o);

/* Read until the pipe ends (every writer gone) or @ms milliseconds pass. */
void engine_out_drain(struct engine_out *o, int ms);

/* Close the pipe and the log, free what was kept. */
void engine_out_close(struct engine_out *o);

#endif
