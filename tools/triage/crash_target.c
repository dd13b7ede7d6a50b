/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets of crash files and their replay drivers (crash_target.h).
 */
#include "crash_target.h"

#include "tools/cmd_util.h"
#include "tools/file_util.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The name on the `target` line of the text program (.txt) at @path, if
 * it has one. */
static bool target_line(const char *path, char *name, size_t len)
{
	size_t n = strlen(path), got;
	char text[4096];
	FILE *f;

	if (n <= 4 || strcmp(path + n - 4, ".txt") || !(f = fopen(path, "r")))
		return false;
	got = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[got] = 0;
	return prog_text_target(text, name, len);
}

/* The name on the `target` line of the first program of the log at @path,
 * if it is a log and its program has one. */
static bool log_target_line(const char *path, char *name, size_t len)
{
	size_t size, n;
	unsigned line;
	char *text = file_read(path, &size), *prog;
	const char *at = text ? prog_log_program(text, size, 0, &n, &line) : NULL;
	bool found = false;

	if (at && (prog = strndup(at, n))) {
		found = prog_text_target(prog, name, len) != NULL;
		free(prog);
	}
	free(text);
	return found;
}

const struct fuzz_target *crash_target_of(const char *path)
{
	const struct fuzz_target *t;
	char name[64];

	if (target_line(path, name, sizeof(name)))
		return fuzz_target_find(name);
	t = target_from_path(path);
	if (!t && log_target_line(path, name, sizeof(name)))
		t = fuzz_target_find(name);
	return t;
}

const struct fuzz_target *cmd_file_target(const char *cmd, const char *path)
{
	const struct fuzz_target *t;
	char name[64];

	if (access(path, R_OK)) {
		fprintf(stderr, "vmafuzz %s: cannot read %s: %s\n", cmd, path, strerror(errno));
		return NULL;
	}
	if (target_line(path, name, sizeof(name)))
		return cmd_target(cmd, name);
	t = target_from_path(path);
	if (!t && log_target_line(path, name, sizeof(name)))
		return cmd_target(cmd, name);
	if (!t)
		fprintf(stderr,
			"vmafuzz %s: cannot tell which target %s is for; "
			"use --target (see 'vmafuzz list')\n",
			cmd, path);
	return t;
}

bool tool_dir(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int n;

	if (k <= 0)
		return false;
	self[k] = 0;
	n = snprintf(buf, len, "%s", dirname(self));
	return n > 0 && (size_t)n < len;
}

bool replay_driver(const char *dir, const char *target, char *buf, size_t len)
{
	char exe_dir[PATH_MAX];
	int n;

	if (dir) {
		n = snprintf(buf, len, "%s/%s", dir, target);
	} else {
		if (!tool_dir(exe_dir, sizeof(exe_dir))) {
			snprintf(buf, len, "replay/%s", target);
			return false;
		}
		n = snprintf(buf, len, "%s/replay/%s", exe_dir, target);
		if (n >= 0 && (size_t)n < len && access(buf, X_OK) != 0)
			/* a kernel target's driver: out/kernel/replay/ */
			n = snprintf(buf, len, "%s/kernel/replay/%s", exe_dir, target);
	}
	if (n < 0 || (size_t)n >= len)
		return false;
	return access(buf, X_OK) == 0;
}
