/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crash commands' shared options (crash_opts.h).
 */
#include "crash_opts.h"

#include "cmd_util.h"
#include "file_util.h"
#include "tools/triage/crash_build.h"
#include "tools/triage/crash_target.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int take_timeout(const char *cmd, const char *arg, struct crash_opts *o)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (!isdigit((unsigned char)arg[0]) || *end || v < 1 || v > 3600) {
		cmd_usage_error(cmd, "--timeout '%s' is not 1..3600 seconds", arg);
		return -1;
	}
	o->timeout = (unsigned)v;
	return 1;
}

static int take_replay(const char *cmd, const char *arg, struct crash_opts *o)
{
	if (!path_is_dir(arg)) {
		cmd_usage_error(cmd, "--replay %s: not a directory", arg);
		return -1;
	}
	o->replay_dir = arg;
	return 1;
}

int crash_opt(const char *cmd, int argc, char **argv, int *i, struct crash_opts *o)
{
	const char *a = argv[*i];
	bool target = !strcmp(a, "--target") || !strcmp(a, "-t");
	bool replay = !strcmp(a, "--replay");

	if (!target && !replay && strcmp(a, "--timeout"))
		return 0;
	if (*i + 1 >= argc) {
		cmd_usage_error(cmd,
				target	 ? "%s needs a target name"
				: replay ? "%s needs a directory"
					 : "%s needs a number of seconds",
				a);
		return -1;
	}
	++*i;
	if (target) {
		o->target = cmd_target(cmd, argv[*i]);
		return o->target ? 1 : -1;
	}
	return replay ? take_replay(cmd, argv[*i], o) : take_timeout(cmd, argv[*i], o);
}

/* The driver of the build recorded for @path: 1 found, 0 none recorded,
 * -1 after a message. */
static int recorded_driver(const char *cmd, const struct fuzz_target *t, const char *path,
			   char *buf, size_t len)
{
	char build[PATH_MAX], replay[PATH_MAX], dir[PATH_MAX], exe[PATH_MAX], how[128];

	if (!path || !crash_build_of(path, build, sizeof(build)))
		return 0;
	if (!crash_build_replay(build, replay, sizeof(replay))) {
		fprintf(stderr,
			"vmafuzz %s: %s: its folder's .builds names build '%s', which is none "
			"this tool knows (give --replay)\n",
			cmd, path, build);
		return -1;
	}
	if (!tool_dir(exe, sizeof(exe)) ||
	    snprintf(dir, sizeof(dir), "%s/%s", exe, replay) >= (int)sizeof(dir))
		return 0;
	if (replay_driver(dir, t->name, buf, len))
		return 1;
	fprintf(stderr,
		"vmafuzz %s: %s was found by build %s; its replay driver %s is not built "
		"(build it: %s; or give --replay)\n",
		cmd, path, build, buf, crash_build_how(replay, how, sizeof(how)));
	return -1;
}

bool crash_driver(const char *cmd, const struct crash_opts *o, const struct fuzz_target *t,
		  const char *path, char *buf, size_t len)
{
	if (!o->replay_dir) {
		int r = recorded_driver(cmd, t, path, buf, len);

		if (r)
			return r > 0;
	}
	if (replay_driver(o->replay_dir, t->name, buf, len))
		return true;
	fprintf(stderr, "vmafuzz %s: no replay driver %s (%s)\n", cmd, buf,
		o->replay_dir ? "check --replay" : "build it: ./build.sh replay");
	return false;
}
