/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz replay [--in-process] [-v] TARGET FILE|DIR...: run inputs through
 * a target without an engine. The sanitized driver replay/TARGET beside
 * this binary takes over (exec) when it exists; else, or with --in-process,
 * they run in this process (replay.h).
 */
#include "cmd.h"
#include "crash_target.h"
#include "replay.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

int cmd_replay(int argc, char **argv)
{
	const struct fuzz_target *t;
	bool in_process = false, verbose = false;
	char driver[PATH_MAX];
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--in-process"))
			in_process = true;
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else
			return cmd_usage_error("replay", "unknown option '%s'", argv[i]);
	}
	if (argc - i < 2)
		return cmd_usage_error("replay", "%s",
				       "needs a target and at least one file or directory");
	t = cmd_target("replay", argv[i]);
	if (!t)
		return 2;
	if (!in_process && replay_driver(NULL, t->name, driver, sizeof(driver))) {
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
