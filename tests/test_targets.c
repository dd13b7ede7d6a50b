/*
 * Every target replays its seed programs and its regression programs
 * (the .txt files of corpus/<target>/ and corpus/regress/<target>/) in one plain
 * binary with no fuzzing engine, the way libxml2's testFuzzer does; and a
 * failure report is readable: the invariant line first, then the program
 * with the failing step marked, then the state.
 */
#include "check.h"
#include "exec.h"
#include "replay.h"
#include "target.h"
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Replay every .txt of @dir through @t; counts inputs in *n. */
static bool replay_dir_txt(const struct fuzz_target *t, const char *dir, unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return true; /* no regressions yet is fine */
	while ((e = readdir(d))) {
		char path[1024];
		size_t size, len = strlen(e->d_name);
		uint8_t *data;

		if (len < 5 || strcmp(e->d_name + len - 4, ".txt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		data = load_input(t, path, &size, stderr);
		ASSERT(data != NULL);
		t->run(data, size); /* a failure aborts with its report */
		free(data);
		(*n)++;
	}
	closedir(d);
	return true;
}

static bool test_replay_seeds_and_regressions(void)
{
	for (unsigned i = 0; fuzz_targets[i]; i++) {
		const struct fuzz_target *t = fuzz_targets[i];
		char dir[256];
		unsigned seeds = 0, regress = 0;

		snprintf(dir, sizeof(dir), "corpus/%s", t->name);
		ASSERT(replay_dir_txt(t, dir, &seeds));
		snprintf(dir, sizeof(dir), "corpus/regress/%s", t->name);
		ASSERT(replay_dir_txt(t, dir, &regress));
		printf("%s: %u seeds, %u regressions replayed\n", t->name, seeds, regress);
		ASSERT(seeds > 0);
	}
	return true;
}

static void dump_marker(FILE *out, void *arg)
{
	fprintf(out, "STATE %s\n", (const char *)arg);
}

/* A failed check in a child: its stderr is the report. */
static bool test_failure_report_is_readable(void)
{
	const struct fuzz_target *t = fuzz_target_find("fuzz_mtree");
	const char *text = "target fuzz_mtree\nstore mt0 @0x10:4 v1\nload mt0 @0x10:1\n";
	char report[8192] = {0};
	int fds[2], status;
	size_t size, got = 0;
	uint8_t *bin = compile_text(t, text, "inline", &(size_t){strlen(text)}, stderr);
	pid_t pid;

	ASSERT(bin != NULL);
	size = 2 + 2 * PROG_RECORD;
	ASSERT(pipe(fds) == 0);
	fflush(NULL);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		struct exec x;

		dup2(fds[1], 2);
		exec_begin(&x, t->desc, bin, size, dump_marker, "of the model");
		x.step = 1;
		check_fail(CK_MT_GAP, "made up for the test");
		_exit(0); /* not reached */
	}
	close(fds[1]);
	for (ssize_t r; (r = read(fds[0], report + got, sizeof(report) - 1 - got)) > 0;)
		got += (size_t)r;
	close(fds[0]);
	waitpid(pid, &status, 0);
	free(bin);
	ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	ASSERT(!strncmp(report, "vmafuzz: invariant MT_GAP failed: made up for the test\n", 55));
	ASSERT(strstr(report, "--- program (fuzz_mtree), step 1 of 2 ---"));
	ASSERT(
	    strstr(report, "store mt0 @0x10:4 v1\nload mt0 @0x10:1    # <== step 1 failed here"));
	ASSERT(strstr(report, "--- state ---\nSTATE of the model\n"));
	return true;
}

int main(void)
{
	TEST(test_replay_seeds_and_regressions);
	TEST(test_failure_report_is_readable);
	return test_summary();
}
