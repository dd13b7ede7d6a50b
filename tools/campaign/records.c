/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's records in its crash folders (records.h).
 */
#include "records.h"
#include "tools/file_util.h"
#include "tools/triage/crash_build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool crash_name(const char *name)
{
	return name[0] != '.' && strcmp(name, "README.txt");
}

static void add(struct crash_set *s, const char *name, ino_t ino)
{
	s->names = realloc(s->names, (size_t)(s->n + 1) * sizeof(*s->names));
	s->inos = realloc(s->inos, (size_t)(s->n + 1) * sizeof(*s->inos));
	if (!s->names || !s->inos || !(s->names[s->n] = strdup(name)))
		abort();
	s->inos[s->n++] = ino;
}

static bool has(const struct crash_set *s, const char *name, ino_t ino)
{
	for (int i = 0; i < s->n; i++)
		if (s->inos[i] == ino && !strcmp(s->names[i], name))
			return true;
	return false;
}

/* The regular crash files of @dir not in @skip: their number, and each
 * added to @into when not NULL. */
static long each_crash(const char *dir, const struct crash_set *skip, struct crash_set *into)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0;

	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (!crash_name(e->d_name) ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode) ||
		    (skip && has(skip, e->d_name, st.st_ino)))
			continue;
		n++;
		if (into)
			add(into, e->d_name, st.st_ino);
	}
	if (d)
		closedir(d);
	return n;
}

void crash_set_take(const char *dir, struct crash_set *s)
{
	memset(s, 0, sizeof(*s));
	each_crash(dir, NULL, s);
}

void crash_set_free(struct crash_set *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->inos);
	memset(s, 0, sizeof(*s));
}

long crash_count(const char *dir)
{
	return each_crash(dir, NULL, NULL);
}

long crash_count_new(const char *dir, const struct crash_set *before, struct crash_set *fresh)
{
	if (fresh)
		memset(fresh, 0, sizeof(*fresh));
	return each_crash(dir, before, fresh);
}

/* @dir/.builds as it is (empty when there is none), malloc'd, with room
 * for @more bytes. */
static char *builds_text(const char *dir, size_t more, size_t *len)
{
	char path[PATH_MAX];
	struct stat st;
	char *s;
	int fd;

	*len = 0;
	path_fmt(path, sizeof(path), "%s/.builds", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0) {
		s = malloc((size_t)st.st_size + more + 1);
		if (!s)
			abort();
		while (*len < (size_t)st.st_size) {
			ssize_t n = read(fd, s + *len, (size_t)st.st_size - *len);

			if (n <= 0)
				break;
			*len += (size_t)n;
		}
		/* a line cut short by an older writer ends before ours */
		if (*len && s[*len - 1] != '\n')
			s[(*len)++] = '\n';
	} else {
		s = malloc(more + 2);
		if (!s)
			abort();
	}
	if (fd >= 0)
		close(fd);
	return s;
}

bool records_append(const char *dir, const char *lines)
{
	char path[PATH_MAX];
	size_t len, n = strlen(lines);
	char *s = builds_text(dir, n, &len);
	bool ok;

	memcpy(s + len, lines, n);
	path_fmt(path, sizeof(path), "%s/.builds", dir);
	ok = file_write_atomic(path, s, len + n);
	free(s);
	return ok;
}

bool records_clock(const char *dir, struct timespec *t)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	path_fmt(path, sizeof(path), "%s/.builds.clock-%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	if (fstat(fd, &st)) {
		close(fd);
		unlink(path);
		return false;
	}
	close(fd);
	unlink(path);
	*t = st.st_mtim;
	return true;
}

bool records_run_line(const char *dir, const char *build, struct timespec *from)
{
	struct timespec t;
	char line[1024];

	if (!records_clock(dir, &t) || !crash_build_run_line(line, sizeof(line), build, &t)) {
		fprintf(stderr, "vmafuzz fuzz: cannot record the build in %s/.builds: %s\n", dir,
			strerror(errno));
		return false;
	}
	if (from)
		*from = t;
	return records_append(dir, line);
}

bool records_name_lines(const char *dir, const char *build, const struct crash_set *fresh)
{
	size_t cap = 1, at = 0;
	char *lines;
	bool ok;

	if (!fresh->n)
		return true;
	for (int i = 0; i < fresh->n; i++)
		cap += strlen(fresh->names[i]) + strlen(build) + 2;
	lines = malloc(cap);
	if (!lines)
		abort();
	for (int i = 0; i < fresh->n; i++)
		at += (size_t)snprintf(lines + at, cap - at, "%s %s\n", fresh->names[i], build);
	ok = records_append(dir, lines);
	free(lines);
	return ok;
}

void records_forget(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[PATH_MAX];

		if (strncmp(e->d_name, ".builds", 7))
			continue;
		path_fmt(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}
