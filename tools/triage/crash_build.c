/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build that found a crash file (crash_build.h).
 */
#include "crash_build.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

bool crash_build_of(const char *path, char *buf, size_t len)
{
	char dir[PATH_MAX], base[PATH_MAX], line[PATH_MAX + 64], rec[PATH_MAX];
	bool found = false;
	FILE *f;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) ||
	    snprintf(base, sizeof(base), "%s", path) >= (int)sizeof(base))
		return false;
	if (snprintf(rec, sizeof(rec), "%s/.builds", dirname(dir)) >= (int)sizeof(rec))
		return false;
	f = fopen(rec, "r");
	if (!f)
		return false;
	const char *name = basename(base);
	size_t n = strlen(name);

	/* the last line for the file counts (a file saved again by a later run) */
	while (fgets(line, sizeof(line), f)) {
		char *build = line + n + 1, *end;

		if (strncmp(line, name, n) || line[n] != ' ')
			continue;
		end = build + strcspn(build, " \t\r\n");
		*end = 0;
		if (*build && (size_t)(end - build) < len) {
			memcpy(buf, build, (size_t)(end - build) + 1);
			found = true;
		}
	}
	fclose(f);
	return found;
}

bool crash_build_record(const char *path, const char *build)
{
	char dir[PATH_MAX], base[PATH_MAX], rec[PATH_MAX];
	FILE *f;
	bool ok;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) ||
	    snprintf(base, sizeof(base), "%s", path) >= (int)sizeof(base) ||
	    snprintf(rec, sizeof(rec), "%s/.builds", dirname(dir)) >= (int)sizeof(rec))
		return false;
	f = fopen(rec, "a");
	if (!f)
		return false;
	ok = fprintf(f, "%s %s\n", basename(base), build) > 0;
	return fclose(f) == 0 && ok;
}

int crash_builds_in(const char *dir, char *buf, size_t len)
{
	char rec[PATH_MAX], line[PATH_MAX + 64];
	int n = 0;
	FILE *f;

	if (snprintf(rec, sizeof(rec), "%s/.builds", dir) >= (int)sizeof(rec) ||
	    !(f = fopen(rec, "r")))
		return 0;
	while (n < 2 && fgets(line, sizeof(line), f)) {
		char *build = strchr(line, ' '), *end;

		if (!build)
			continue;
		build++;
		end = build + strcspn(build, " \t\r\n");
		*end = 0;
		if (!*build || (size_t)(end - build) >= len)
			continue;
		if (n == 0)
			memcpy(buf, build, (size_t)(end - build) + 1);
		else if (!strcmp(buf, build))
			continue;
		n++;
	}
	fclose(f);
	return n;
}

/* Whether @s is an engine build's last component. */
static bool engine_flavor(const char *s)
{
	static const char *const flavors[] = {"libfuzzer", "libfuzzer-plain", "afl", "afl-cmplog"};

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
	/* the prefix must be nothing, kernel/ or bugs/<one name>/ */
	if (prefix && strncmp(build, "kernel/", prefix) &&
	    (strncmp(build, "bugs/", 5) || prefix <= 6 || memchr(build + 5, '/', prefix - 6)))
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
	} else if (!strncmp(replay, "kernel/", 7)) {
		snprintf(buf, len, "./build.sh kernel");
	} else {
		snprintf(buf, len, "./build.sh replay");
	}
	return buf;
}
