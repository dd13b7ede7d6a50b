/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets of crash files and their replay drivers (crash_target.h).
 */
#include "crash_target.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A path component (or its start, before '.' or '-') naming a target of @list. */
static const struct fuzz_target *named_in(const char *path, const struct fuzz_target *const *list)
{
	for (unsigned i = 0; list[i]; i++) {
		const char *name = list[i]->name, *s = path;
		size_t n = strlen(name);

		while ((s = strstr(s, name))) {
			bool start = s == path || s[-1] == '/';
			bool end = s[n] == '/' || s[n] == 0 || s[n] == '.' || s[n] == '-';

			if (start && end)
				return list[i];
			s += n;
		}
	}
	return NULL;
}

const struct fuzz_target *target_from_path(const char *path)
{
	const struct fuzz_target *t = named_in(path, fuzz_targets);

	return t ? t : named_in(path, kernel_targets);
}

/* Whether the text program at @path has a `target` line; *@t is the target
 * it names (NULL: none of ours). */
static bool target_line(const char *path, const struct fuzz_target **t)
{
	FILE *f = fopen(path, "r");
	char text[4096], name[64];
	size_t got;

	if (!f)
		return false;
	got = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[got] = 0;
	if (!prog_text_target(text, name, sizeof(name)))
		return false;
	*t = fuzz_target_find(name);
	return true;
}

const struct fuzz_target *crash_target_of(const char *path)
{
	const struct fuzz_target *t;
	size_t n = strlen(path);

	if (n > 4 && !strcmp(path + n - 4, ".txt") && target_line(path, &t))
		return t;
	return target_from_path(path);
}

bool replay_driver(const char *dir, const char *target, char *buf, size_t len)
{
	char self[PATH_MAX], *exe_dir;
	int n;

	if (dir) {
		n = snprintf(buf, len, "%s/%s", dir, target);
	} else {
		ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (k <= 0) {
			snprintf(buf, len, "replay/%s", target);
			return false;
		}
		self[k] = 0;
		exe_dir = dirname(self);
		n = snprintf(buf, len, "%s/replay/%s", exe_dir, target);
		if (n >= 0 && (size_t)n < len && access(buf, X_OK) != 0)
			/* a kernel target's driver: out/kernel/replay/ */
			n = snprintf(buf, len, "%s/kernel/replay/%s", exe_dir, target);
	}
	if (n < 0 || (size_t)n >= len)
		return false;
	return access(buf, X_OK) == 0;
}
