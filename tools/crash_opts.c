/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crash commands' shared options (crash_opts.h).
 */
#include "crash_opts.h"

#include "cmd_util.h"
#include "crash_target.h"
#include "file_util.h"

#include <ctype.h>
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

bool crash_driver(const char *cmd, const struct crash_opts *o, const struct fuzz_target *t,
		  char *buf, size_t len)
{
	if (replay_driver(o->replay_dir, t->name, buf, len))
		return true;
	fprintf(stderr, "vmafuzz %s: no replay driver %s (%s)\n", cmd, buf,
		o->replay_dir ? "check --replay" : "build it: ./build.sh replay");
	return false;
}
