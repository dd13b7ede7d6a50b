/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz replay [--in-process] [--replay DIR] [-v] TARGET FILE|DIR...: run
 * inputs through a target without an engine. A sanitized driver takes over
 * (exec) when it exists: DIR/TARGET with --replay, else the replay build of
 * the build that found the files (crash_build.h), else replay/TARGET beside
 * this binary; without one, or with --in-process, they run in this process
 * (replay.h).
 */
#include "cmd.h"
#include "cmd_util.h"
#include "file_util.h"
#include "fuzz/run/replay.h"
#include "tools/triage/crash_build.h"
#include "tools/triage/crash_target.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/*
 * The replay folder of the build the files were found by, into @dir: 1,
 * 0 when none is recorded, -1 after a message (builds that differ, or one
 * this tool does not know).
 */
static int recorded_replay_dir(int n, char **paths, char *dir, size_t len, char *replay,
			       size_t rlen)
{
	char seen[PATH_MAX] = "", build[PATH_MAX], exe[PATH_MAX];

	for (int i = 0; i < n; i++) {
		int k = path_is_dir(paths[i]) ? crash_builds_in(paths[i], build, sizeof(build))
					      : crash_build_of(paths[i], build, sizeof(build));

		if (!k)
			continue;
		if (k > 1 || (seen[0] && strcmp(seen, build))) {
			fprintf(stderr,
				"vmafuzz replay: the inputs were found by different builds%s%s; "
				"replay them apart or give --replay DIR\n",
				seen[0] ? ": " : "", seen);
			return -1;
		}
		snprintf(seen, sizeof(seen), "%s", build);
	}
	if (!seen[0])
		return 0;
	if (!crash_build_replay(seen, replay, rlen)) {
		fprintf(stderr,
			"vmafuzz replay: .builds names build '%s', which is none this tool "
			"knows (give --replay)\n",
			seen);
		return -1;
	}
	if (!tool_dir(exe, sizeof(exe)) || snprintf(dir, len, "%s/%s", exe, replay) >= (int)len)
		return 0;
	return 1;
}

int cmd_replay(int argc, char **argv)
{
	const struct fuzz_target *t;
	bool in_process = false, verbose = false, have;
	const char *replay_dir = NULL;
	char driver[PATH_MAX], dir[PATH_MAX], rel[PATH_MAX], how[128];
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--in-process")) {
			in_process = true;
		} else if (!strcmp(argv[i], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[i], "--replay")) {
			if (++i >= argc)
				return cmd_usage_error("replay", "%s",
						       "--replay needs a directory");
			if (!path_is_dir(argv[i]))
				return cmd_usage_error("replay", "--replay %s: not a directory",
						       argv[i]);
			replay_dir = argv[i];
		} else {
			return cmd_usage_error("replay", "unknown option '%s'", argv[i]);
		}
	}
	if (argc - i < 2)
		return cmd_usage_error("replay", "%s",
				       "needs a target and at least one file or directory");
	t = cmd_target("replay", argv[i]);
	if (!t)
		return 2;
	if (!replay_dir && !in_process) {
		int r = recorded_replay_dir(argc - i - 1, argv + i + 1, dir, sizeof(dir), rel,
					    sizeof(rel));

		if (r < 0)
			return 2;
		if (r > 0) {
			replay_dir = dir;
			if (!replay_driver(replay_dir, t->name, driver, sizeof(driver))) {
				fprintf(
				    stderr,
				    "vmafuzz replay: the files were found by a build whose replay "
				    "driver %s is not built (build it: %s; or give --replay)\n",
				    driver, crash_build_how(rel, how, sizeof(how)));
				return 2;
			}
		}
	}
	have = replay_driver(replay_dir, t->name, driver, sizeof(driver));
	if (replay_dir && !have && !in_process) {
		fprintf(stderr, "vmafuzz replay: no replay driver %s\n", driver);
		return 2;
	}
	if (!in_process && have) {
		/* argv[i] (the target name) becomes the driver's argv[0] */
		argv[i] = driver;
		if (verbose) {
			argv[i - 1] = driver;
			argv[i] = "-v";
			i--;
		}
		execv(driver, &argv[i]);
		fprintf(stderr, "vmafuzz replay: cannot run %s: %s\n", driver, strerror(errno));
		return 2;
	}
	if (!t->run) {
		fprintf(stderr,
			"vmafuzz replay: %s runs only in its driver %s, which is not built "
			"(./build.sh kernel)\n",
			t->name, driver);
		return 2;
	}
	return replay_paths(t, argc - i - 1, argv + i + 1, verbose);
}
