/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program of a file, or why there is none (crash_input.h).
 */
#include "crash_input.h"

#include "file_util.h"
#include "fuzz/run/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether every line of @s (@n bytes) is blank or a comment. */
static bool no_words(const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));

		while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s < end && *s != '\n' && *s != '#')
			return false;
		if (!eol)
			break;
		s = eol + 1;
	}
	return true;
}

/* The text of the program @data holds (@size bytes, NUL-ended), as
 * load_input reads it: the whole file for a .txt, a log's first program,
 * else NULL (bytes); its first line into *@line. */
static const char *text_of(const char *path, const char *data, size_t size, size_t *len,
			   unsigned *line)
{
	size_t n = strlen(path);

	if (n > 4 && !strcmp(path + n - 4, ".txt")) {
		*len = size;
		*line = 1;
		return data;
	}
	return prog_log_program(data, size, 0, len, line);
}

/* How many programs the log @data holds (0: no log). */
static unsigned programs_in(const char *data, size_t size)
{
	unsigned n = 0, line;
	size_t len;

	while (prog_log_program(data, size, n, &len, &line))
		n++;
	return n;
}

uint8_t *crash_input_load(const char *cmd, const struct fuzz_target *t, const char *path,
			  size_t *size, struct crash_input_log *log)
{
	uint8_t *data = read_file(path, size, stderr);
	const char *text;
	unsigned first;
	size_t len;

	if (log)
		memset(log, 0, sizeof(*log));
	if (!data)
		return NULL;
	if (*size == 0) {
		fprintf(stderr, "vmafuzz %s: %s:1: the file is empty: it holds no program\n", cmd,
			path);
		free(data);
		return NULL;
	}
	text = text_of(path, (const char *)data, *size, &len, &first);
	if (text && no_words(text, len)) {
		if (first == 1)
			fprintf(stderr,
				"vmafuzz %s: %s:1: no program in it, only blank lines and "
				"comments\n",
				cmd, path);
		else
			fprintf(stderr,
				"vmafuzz %s: %s:%u: the program from this line on is empty\n", cmd,
				path, first);
		free(data);
		return NULL;
	}
	if (log && text && first && (log->programs = programs_in((const char *)data, *size)))
		log->line = first;
	free(data);
	return load_input(t, path, size, stderr);
}

bool crash_input_runnable(const char *cmd, const struct fuzz_target *t, const char *path, char *run,
			  size_t len, bool *temp)
{
	struct crash_input_log log;
	size_t size;
	uint8_t *data = crash_input_load(cmd, t, path, &size, &log);
	bool ok = data != NULL;

	*temp = false;
	if (ok && log.programs)
		ok = *temp = crash_write_temp(data, size, run, len);
	else if (ok)
		ok = snprintf(run, len, "%s", path) < (int)len;
	free(data);
	return ok;
}
