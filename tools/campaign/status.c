/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The status line (status.h).
 */
#include "status.h"
#include "options.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The number after @key in [@s, @end) ("cov: 12" with key "cov: "); -1. */
static long after(const char *s, const char *end, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = s; p + k <= end; p++)
		if (!memcmp(p, key, k) && p + k < end && p[k] >= '0' && p[k] <= '9') {
			long v = 0;

			for (p += k; p < end && *p >= '0' && *p <= '9' && v < 1000000000000L; p++)
				v = v * 10 + (*p - '0');
			return v;
		}
	return -1;
}

/* The previous line before @end in @text: its start. */
static const char *line_start(const char *text, const char *end)
{
	while (end > text && end[-1] != '\n')
		end--;
	return end;
}

bool status_sample_libfuzzer(const char *text, size_t len, struct fuzz_sample *s)
{
	const char *end = text + len;

	s->rate = s->edges = s->corpus = -1;
	while (end > text) {
		const char *start = line_start(text, end);
		long cov = after(start, end, "cov: ");
		long rate = after(start, end, "exec/s: ");

		if (rate < 0)
			rate = after(start, end, "exec/s ");
		if (cov >= 0 && rate >= 0) {
			s->edges = cov;
			s->rate = rate;
			s->corpus = after(start, end, "corp: ");
			return true;
		}
		end = start > text ? start - 1 : text;
	}
	return false;
}

bool status_sample_plot(const char *text, size_t len, struct fuzz_sample *s)
{
	const char *end = text + len, *start;
	double col[13];
	int n = 0;
	char row[512];

	s->rate = s->edges = s->corpus = -1;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = line_start(text, end);
	if (start == end || *start == '#' || (size_t)(end - start) >= sizeof(row))
		return false;
	memcpy(row, start, (size_t)(end - start));
	row[end - start] = 0;
	for (char *p = row, *q; n < 13; n++, p = q + 1) {
		col[n] = strtod(p, &q);
		if (q == p)
			return false;
		if (*q == '%')
			q++;
		if (*q != ',')
			break;
	}
	if (n < 12)
		return false;
	s->corpus = (long)col[3];
	s->rate = (long)col[10];
	s->edges = (long)col[12];
	return true;
}

char *status_tail(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	off_t from;
	ssize_t n;
	char *buf;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	from = st.st_size > (off_t)max ? st.st_size - (off_t)max : 0;
	buf = malloc(max + 1);
	if (!buf)
		abort();
	n = pread(fd, buf, max, from);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

long status_every(const char *env, bool tty)
{
	long every;

	if (!env)
		return tty ? 5 : 30;
	if (campaign_number(env, 86400, &every))
		return every;
	fprintf(stderr,
		"vmafuzz fuzz: VMAFUZZ_STATUS_EVERY takes whole seconds from 1 to 86400, not "
		"'%s'\n",
		env);
	return 0;
}

/* @v, or "?" when not known, into @buf. */
static const char *fig(long v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%ld", v);
	return buf;
}

void status_format(char *buf, size_t len, time_t now, long elapsed, long left,
		   const struct fuzz_sample *s, long new_crashes)
{
	char r[24], e[24], c[24], clock[16];
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	snprintf(buf, len,
		 "[%s] %lds elapsed, %lds left: exec/s %s, edges %s, corpus %s, "
		 "crashes %ld new",
		 clock, elapsed, left < 0 ? 0 : left, fig(s->rate, r, sizeof(r)),
		 fig(s->edges, e, sizeof(e)), fig(s->corpus, c, sizeof(c)), new_crashes);
}
