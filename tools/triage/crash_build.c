/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build that found a crash file (crash_build.h).
 */
#include "crash_build.h"
#include "fuzz/prog/prog.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Read all of @path into a malloc'd buffer (NUL-terminated); NULL if none. */
static char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "r");
	size_t cap = 4096, n = 0;
	char *s;

	if (!f)
		return NULL;
	s = malloc(cap);
	while (s) {
		size_t k = fread(s + n, 1, cap - n - 1, f);

		n += k;
		if (k == 0)
			break;
		if (n + 1 == cap) {
			char *t = realloc(s, cap * 2);

			if (!t) {
				free(s);
				s = NULL;
				break;
			}
			s = t;
			cap *= 2;
		}
	}
	fclose(f);
	if (s) {
		s[n] = 0;
		*size = n;
	}
	return s;
}

/* "S.N" (N of up to 9 digits) into @t; false if it is not that. */
static bool parse_time(const char *s, const char *end, struct timespec *t)
{
	long long sec = 0, ns = 0;
	int digits = 0;

	if (s == end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		sec = sec * 10 + (*s - '0');
	if (s < end && *s == '.')
		for (s++; s < end && *s >= '0' && *s <= '9' && digits < 9; s++, digits++)
			ns = ns * 10 + (*s - '0');
	if (s != end)
		return false;
	for (; digits < 9; digits++)
		ns *= 10;
	t->tv_sec = (time_t)sec;
	t->tv_nsec = (long)ns;
	return true;
}

static bool not_after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

/* The word at @s (ended by a blank or the end of the line) into @buf. */
static bool take_word(const char *s, const char *end, char *buf, size_t len)
{
	size_t n = 0;

	while (s + n < end && s[n] != ' ' && s[n] != '\t' && s[n] != '\r')
		n++;
	if (!n || n >= len)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	return true;
}

bool crash_build_in_text(const char *text, size_t size, const char *name,
			 const struct timespec *mtime, char *buf, size_t len)
{
	const char *line = text, *stop = text + size;
	size_t n = strlen(name);
	bool named = false, timed = false;

	while (line < stop) {
		const char *end = memchr(line, '\n', (size_t)(stop - line));
		char build[512];

		if (!end)
			end = stop;
		if (end - line > 2 && line[0] == '*' && line[1] == ' ' && !named && mtime) {
			/* "* BUILD from=S.N" */
			const char *b = line + 2, *from = memchr(b, ' ', (size_t)(end - b));
			struct timespec t;
			const char *e = end;

			if (e > line && e[-1] == '\r')
				e--;
			if (from && (size_t)(e - from) > 6 && !strncmp(from, " from=", 6) &&
			    parse_time(from + 6, e, &t) && not_after(&t, mtime) &&
			    take_word(b, from, build, sizeof(build)) && strlen(build) < len) {
				strcpy(buf, build);
				timed = true;
			}
		} else if ((size_t)(end - line) > n && !strncmp(line, name, n) && line[n] == ' ' &&
			   take_word(line + n + 1, end, build, sizeof(build)) &&
			   strlen(build) < len) {
			/* the last line for the file counts (a file saved again later) */
			strcpy(buf, build);
			named = true;
		}
		line = end + 1;
	}
	return named || timed;
}

/* The build a text program (.txt), or a log's first program, names on its
 * "# build:" line. */
static bool text_build(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path), k = strlen(CRASH_BUILD_LINE), size, plen;
	const char *prog, *stop;
	bool found = false;
	unsigned first;
	char *text = read_all(path, &size);

	if (!text)
		return false;
	if (n > 4 && !strcmp(path + n - 4, ".txt")) {
		prog = text;
		plen = size;
	} else if (!(prog = prog_log_program(text, size, 0, &plen, &first))) {
		free(text);
		return false;
	}
	stop = prog + plen;
	for (const char *line = prog; line < stop && !found;) {
		const char *end = memchr(line, '\n', (size_t)(stop - line));

		if (!end)
			end = stop;
		if ((size_t)(end - line) > k && !strncmp(line, CRASH_BUILD_LINE, k))
			found = take_word(line + k, end, buf, len);
		line = end + 1;
	}
	free(text);
	return found;
}

bool crash_build_of(const char *path, char *buf, size_t len)
{
	char dir[PATH_MAX], base[PATH_MAX], rec[PATH_MAX];
	struct stat st;
	size_t size;
	char *text;
	bool found;

	if (text_build(path, buf, len))
		return true;
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) ||
	    snprintf(base, sizeof(base), "%s", path) >= (int)sizeof(base))
		return false;
	if (snprintf(rec, sizeof(rec), "%s/.builds", dirname(dir)) >= (int)sizeof(rec))
		return false;
	text = read_all(rec, &size);
	if (!text)
		return false;
	found = crash_build_in_text(text, size, basename(base),
				    stat(path, &st) ? NULL : &st.st_mtim, buf, len);
	free(text);
	return found;
}

bool crash_build_run_line(char *buf, size_t len, const char *build, const struct timespec *from)
{
	int n = snprintf(buf, len, "* %s from=%lld.%09ld\n", build, (long long)from->tv_sec,
			 from->tv_nsec);

	return n > 0 && (size_t)n < len;
}

int crash_builds_in(const char *dir, char *buf, size_t len)
{
	char rec[PATH_MAX], path[PATH_MAX], build[PATH_MAX];
	struct dirent *e;
	size_t size;
	char *text;
	int n = 0;
	DIR *d;

	if (snprintf(rec, sizeof(rec), "%s/.builds", dir) >= (int)sizeof(rec))
		return 0;
	text = read_all(rec, &size);
	if (!text)
		return 0;
	d = opendir(dir);
	while (d && n < 2 && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.txt") ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode) ||
		    !crash_build_in_text(text, size, e->d_name, &st.st_mtim, build,
					 sizeof(build)) ||
		    strlen(build) >= len)
			continue;
		if (n == 0)
			strcpy(buf, build);
		else if (!strcmp(buf, build))
			continue;
		n++;
	}
	if (d)
		closedir(d);
	free(text);
	return n;
}

/* Whether the first @prefix characters of @build are @top and one folder
 * name after it, then a slash. */
static bool one_folder_under(const char *build, const char *top, size_t prefix)
{
	size_t t = strlen(top);

	return !strncmp(build, top, t) && prefix > t + 1 && !memchr(build + t, '/', prefix - t - 1);
}

/* Whether @s is an engine build's last component. */
static bool engine_flavor(const char *s)
{
	/* guest: a virtual machine's kernel (scripts/vm.sh) */
	static const char *const flavors[] = {"libfuzzer", "libfuzzer-plain", "afl", "afl-cmplog",
					      "guest"};

	for (unsigned i = 0; i < sizeof(flavors) / sizeof(flavors[0]); i++)
		if (!strcmp(s, flavors[i]))
			return true;
	return false;
}

bool crash_build_replay(const char *build, char *buf, size_t len)
{
	const char *last = strrchr(build, '/');
	size_t prefix = last ? (size_t)(last - build) + 1 : 0;
	int n;

	if (strstr(build, "..") || build[0] == '/' || !engine_flavor(build + prefix))
		return false;
	/* the prefix must be nothing, kernel/, kernel/<tree's key>/,
	 * bugs/<one name>/ or vm/<guest kernel's key>/ (guest alone) */
	if (prefix && strncmp(build, "kernel/", prefix) &&
	    !one_folder_under(build, "kernel/", prefix) &&
	    !one_folder_under(build, "bugs/", prefix) && !one_folder_under(build, "vm/", prefix))
		return false;
	if ((!strcmp(build + prefix, "guest")) != (prefix && !strncmp(build, "vm/", 3)))
		return false;
	n = snprintf(buf, len, "%.*sreplay", (int)prefix, build);
	return n > 0 && (size_t)n < len;
}

const char *crash_build_how(const char *replay, char *buf, size_t len)
{
	if (!strncmp(replay, "bugs/", 5)) {
		const char *end = strchr(replay + 5, '/');

		snprintf(buf, len, "make bug-replay BUG=%.*s",
			 end ? (int)(end - replay - 5) : (int)strlen(replay + 5), replay + 5);
	} else if (!strncmp(replay, "vm/", 3)) {
		const char *end = strchr(replay + 3, '/');

		snprintf(buf, len, "./build.sh vm [--bug NAME] TREE (the guest kernel %.*s)",
			 end ? (int)(end - replay - 3) : (int)strlen(replay + 3), replay + 3);
	} else if (!strncmp(replay, "kernel/", 7)) {
		/* a tree's own build: the tree it was (out/kernel/<key>/tree) */
		char rec[PATH_MAX], line[PATH_MAX + 16], path[PATH_MAX] = "";
		const char *end = strchr(replay + 7, '/');
		FILE *f = NULL;

		if (end && strncmp(replay + 7, "replay", (size_t)(end - replay - 7)) &&
		    snprintf(rec, sizeof(rec), "out/kernel/%.*s/tree", (int)(end - replay - 7),
			     replay + 7) < (int)sizeof(rec))
			f = fopen(rec, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "path ", 5))
				snprintf(path, sizeof(path), "%.*s", (int)strcspn(line + 5, "\n"),
					 line + 5);
		if (f)
			fclose(f);
		if (path[0])
			snprintf(buf, len, "KSRC=%s ./build.sh kernel", path);
		else
			snprintf(buf, len, "./build.sh kernel");
	} else {
		snprintf(buf, len, "./build.sh replay");
	}
	return buf;
}
