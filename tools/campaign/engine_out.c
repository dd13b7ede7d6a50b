/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An engine's output, logged and read for crashes (engine_out.h).
 */
#include "engine_out.h"
#include "fuzz/prog/prog.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_KEPT (64u << 10) /* longer lines are cut for reading, logged whole */
#define PROGRAM_MAX (256u << 10)  /* a longer program is taken as cut short */
#define UNIT_WRITTEN "Test unit written to "
#define BASE64 "Base64: "

bool engine_out_open(struct engine_out *o, int fd, const char *log)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->log = log;
	o->log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->log_fd < 0)
		return false;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return true;
}

/* Append @n bytes at @s to the buffer @buf of @len bytes, room @cap, up to
 * @max bytes in all; false when that is past @max. */
static bool grow_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n, size_t max)
{
	if (*len + n + 1 > max)
		return false;
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 256;

		while (c < *len + n + 1)
			c *= 2;
		*buf = realloc(*buf, c);
		if (!*buf)
			abort();
		*cap = c;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = 0;
	return true;
}

static struct engine_crash *new_crash(struct engine_out *o)
{
	if (o->ncrashes == ENGINE_OUT_CRASHES) {
		o->lost++;
		return NULL;
	}
	return &o->crashes[o->ncrashes++];
}

/* The crash a "Test unit written" line names: the last one reported and
 * not yet saved, else a new one (an input with no report: a timeout). */
static struct engine_crash *crash_for_unit(struct engine_out *o)
{
	struct engine_crash *c = o->ncrashes ? &o->crashes[o->ncrashes - 1] : NULL;

	if (c && !c->path)
		return c;
	return new_crash(o);
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* libFuzzer's Base64 of an input into c->bytes; nothing if it is not. */
static void take_base64(struct engine_crash *c, const char *s)
{
	size_t n = strcspn(s, "\r\n"), k = 0;
	unsigned acc = 0;
	int bits = 0;
	uint8_t *out = malloc(n * 3 / 4 + 1);

	if (!out)
		abort();
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		int v = b64_value(s[i]);

		if (v < 0) {
			free(out);
			return;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (uint8_t)(acc >> bits);
		}
	}
	free(c->bytes);
	c->bytes = out;
	c->nbytes = k;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* One whole line of output (NUL-ended, its newline kept). */
static void take_line(struct engine_out *o, const char *l)
{
	struct engine_crash *c;
	const char *at;

	if (o->in_prog && !starts(l, "--- ")) {
		if (!grow_append(&o->prog, &o->nprog, &o->capprog, l, strlen(l), PROGRAM_MAX))
			o->in_prog = false; /* too long: cut short */
		return;
	}
	if (o->in_prog) {
		/* the program ends; the report goes on (threads, state) */
		c = new_crash(o);
		if (c) {
			c->program = o->prog;
			o->prog = NULL;
			o->nprog = o->capprog = 0;
		}
		o->in_prog = false;
	}
	if (starts(l, "vmafuzz: invariant ") || starts(l, "vmafuzz: model assertion ") ||
	    (starts(l, "==") && strstr(l, "ERROR: ")))
		o->reporting = true;
	/* a progress line: fuzzing goes on (-fork=N after a worker's crash) */
	if (l[0] == '#' && l[1] >= '0' && l[1] <= '9')
		o->reporting = false;
	if (starts(l, PROG_LOG_REPORT)) {
		o->reporting = true;
		o->in_prog = true;
		o->nprog = 0;
		grow_append(&o->prog, &o->nprog, &o->capprog, "", 0, PROGRAM_MAX);
	} else if ((at = strstr(l, UNIT_WRITTEN))) {
		c = crash_for_unit(o);
		at += strlen(UNIT_WRITTEN);
		if (c && !(c->path = strndup(at, strcspn(at, "\r\n"))))
			abort();
	} else if (starts(l, BASE64) && o->ncrashes && o->crashes[o->ncrashes - 1].path) {
		take_base64(&o->crashes[o->ncrashes - 1], l + strlen(BASE64));
	}
}

/* Log @n bytes at @s, unless a write of the log has failed. */
static void log_bytes(struct engine_out *o, const char *s, size_t n)
{
	while (o->log_fd >= 0 && n) {
		ssize_t k = write(o->log_fd, s, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			o->log_errno = k < 0 ? errno : ENOSPC;
			close(o->log_fd);
			o->log_fd = -1;
			return;
		}
		s += k;
		n -= (size_t)k;
	}
}

/* Cut @n bytes at @s into lines. */
static void take_bytes(struct engine_out *o, const char *s, size_t n)
{
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) + 1 : n;
		size_t room = o->nline < LINE_MAX_KEPT ? LINE_MAX_KEPT - o->nline : 0;

		grow_append(&o->line, &o->nline, &o->capline, s, k < room ? k : room,
			    LINE_MAX_KEPT + 1);
		if (nl) {
			take_line(o, o->line);
			o->nline = 0;
		}
		s += k;
		n -= k;
	}
}

/* One read of the pipe; false when there is nothing more now. */
static bool read_once(struct engine_out *o)
{
	char buf[65536];
	ssize_t n = read(o->fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return true;
	if (n == 0)
		o->eof = true;
	if (n <= 0)
		return false;
	o->bytes += (unsigned long)n;
	log_bytes(o, buf, (size_t)n);
	take_bytes(o, buf, (size_t)n);
	return true;
}

void engine_out_pump(struct engine_out *o)
{
	while (o->fd >= 0 && !o->eof && read_once(o))
		;
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void engine_out_drain(struct engine_out *o, int ms)
{
	long end = now_ms() + ms;

	while (o->fd >= 0 && !o->eof) {
		struct pollfd p = {o->fd, POLLIN, 0};
		long left = end - now_ms();

		if (left <= 0)
			break;
		if (poll(&p, 1, (int)left) > 0)
			engine_out_pump(o);
	}
	/* a last line without its newline */
	if (o->nline) {
		grow_append(&o->line, &o->nline, &o->capline, "\n", 1, LINE_MAX_KEPT + 2);
		take_line(o, o->line);
		o->nline = 0;
	}
}

void engine_out_close(struct engine_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->log_fd >= 0 && close(o->log_fd) && !o->log_errno)
		o->log_errno = errno;
	o->fd = o->log_fd = -1;
	for (int i = 0; i < o->ncrashes; i++) {
		free(o->crashes[i].program);
		free(o->crashes[i].path);
		free(o->crashes[i].bytes);
	}
	free(o->line);
	free(o->prog);
	o->ncrashes = 0;
	o->line = o->prog = NULL;
}
