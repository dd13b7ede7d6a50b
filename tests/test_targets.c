/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every target replays its seed programs and its regression programs
 * (the .txt files of corpus/<target>/ and corpus/regress/<target>/) in one plain
 * binary with no fuzzing engine, the way libxml2's testFuzzer does; and a
 * failure report is readable: the invariant line first, then the program
 * with the failing step marked, then the state.
 */
#include "fuzz/prog/prog.h"
#include "fuzz/run/replay.h"
#include "fuzz/targets/exec.h"
#include "fuzz/targets/target.h"
#include "mm/uprobe.h"
#include "runtime/check.h"
#include "runtime/sync.h"
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

/*
 * An RCU reader (t1) stops inside a leaf that a writer (t0) then replaces.
 * With the round robin (no schedule bytes): t0 bulk-fills one leaf, t1
 * starts its walk and reads slot 0, t0 stores over entry 3 (the leaf is
 * rebuilt and the old one retired), t1 reads slot 1 of the old leaf.
 */
static const char early_free_prog[] = "target fuzz_mtree\n"
				      "bulk mt0 @0x10:2 n=8\n"
				      "t1: rcu_walk mt0 @0:255\n"
				      "store mt0 e3+0:1 v9\n";

/* Run a text program in a child; returns its stderr, and its status in *status. */
static bool run_in_child(const char *text, bool defer, char *out, size_t len, int *status)
{
	const struct fuzz_target *t = fuzz_target_find("fuzz_mtree");
	size_t size = strlen(text), got = 0;
	uint8_t *bin = compile_text(t, text, "inline", &size, stderr);
	int fds[2];
	pid_t pid;

	ASSERT(bin != NULL);
	ASSERT(pipe(fds) == 0);
	fflush(NULL);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		rcu_set_deferred(defer);
		t->run(bin, size);
		_exit(0);
	}
	close(fds[1]);
	for (ssize_t r; got + 1 < len && (r = read(fds[0], out + got, len - 1 - got)) > 0;)
		got += (size_t)r;
	out[got] = 0;
	close(fds[0]);
	waitpid(pid, status, 0);
	free(bin);
	return true;
}

static bool test_rcu_early_free_caught_by_asan(void)
{
	static char report[65536];
	int status;

	/* deferred free on: clean */
	ASSERT(run_in_child(early_free_prog, true, report, sizeof(report), &status));
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* switched off: AddressSanitizer catches the reader, and the report
	 * names the program and the threads */
	ASSERT(run_in_child(early_free_prog, false, report, sizeof(report), &status));
	ASSERT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
	ASSERT(strstr(report, "AddressSanitizer: heap-use-after-free"));
	ASSERT(strstr(report, "mt_rcu_walk"));
	ASSERT(strstr(report, "t1: rcu_walk mt0 @0:0xff    # <== step 1 failed here") ||
	       strstr(report, "t1: rcu_walk mt0 @0:255    # <== step 1 failed here"));
	ASSERT(strstr(report, "--- threads ---"));
	return true;
}

/* The same input takes the same interleaving every time: 100 replays of a
 * threaded program, one schedule digest; other schedule bytes, another. */
static bool test_same_input_same_interleaving(void)
{
	const struct fuzz_target *t = fuzz_target_find("fuzz_mtree");
	size_t size;
	uint8_t *bin = load_input(t, "corpus/fuzz_mtree/rcu_readers.txt", &size, stderr);
	uint64_t first = 0;

	ASSERT(bin != NULL && size > 4);
	for (int k = 0; k < 100; k++) {
		t->run(bin, size);
		if (k == 0)
			first = exec_last_digest();
		ASSERT_EQ(exec_last_digest(), first);
	}
	bin[size - 1] ^= 1; /* the last schedule byte */
	bin[size - 2] ^= 1;
	t->run(bin, size);
	ASSERT(exec_last_digest() != first);
	free(bin);
	return true;
}

static unsigned text_runs; /* programs run_text parsed and ran */

/* Run a fuzz_mm program given as text; returns its schedule digest. */
static uint64_t run_text(const char *text)
{
	const struct fuzz_target *t = fuzz_target_find("fuzz_mm");
	static struct prog p;
	static uint8_t bin[sizeof(p) + 16];
	char err[256];

	if (!prog_parse(t->desc, text, "test", &p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 0;
	}
	t->run(bin, prog_encode(&p, bin));
	text_runs++;
	return exec_last_digest();
}

/* `delay` moves a thread's later operations against the others: another
 * length gives another interleaving, the same length the same one. */
static bool test_delay_shifts_the_interleaving(void)
{
	static const char head[] = "target fuzz_mm\n"
				   "mmap p0 @0x10:4 r,w private f0 fixed\n"
				   "touch p0 e0+0:end write\n"
				   "munmap p0 e0+1:1\n";
	char a[512], b[512];
	uint64_t da, db;

	snprintf(a, sizeof(a), "%st1: delay n3\nt1: touch p0 e0+0:1 write\n", head);
	snprintf(b, sizeof(b), "%st1: delay n9\nt1: touch p0 e0+0:1 write\n", head);
	da = run_text(a);
	db = run_text(b);
	ASSERT(da != 0 && db != 0);
	ASSERT(da != db);
	ASSERT_EQ(run_text(a), da);
	return true;
}

/* `await` puts a thread right after the n-th release of a lock by the
 * others: a uprobe walk lands inside a failing fork, after the fork linked
 * its child's copy of the file's text, and meets the half-built child (the
 * walk skips it: it is marked unstable). A delay of the same count, or an
 * await that counts another file's lock, does not get there; an await of a
 * process that does not exist goes on at once. */
static bool test_await_puts_a_walk_inside_a_fork(void)
{
	static const char head[] = "target fuzz_mm\n"
				   "mmap p0 @0x10:4 r,x private_file f1 fixed\n"
				   "touch p0 e0+0:end read\n"
				   "mmap p0 @0x14:2 r,w private_file f1 fixed\n"
				   "touch p0 e1+0:1 write\n"
				   "mmap p0 @0x16:6 r,w private f0 fixed\n"
				   "touch p0 e2+0:3 write\n"
				   "fork p0 tree current nodiff fail_at=6\n";
	static const char *const waits[] = {"await i_mmap_rwsem of1 n3", "delay n3",
					    "await i_mmap_rwsem of2 n3", "await mmap_lock of5 n1"};
	uint64_t skipped[4];
	char text[1024];

	for (unsigned i = 0; i < 4; i++) {
		uint64_t before = uprobe_skipped_unstable;

		snprintf(text, sizeof(text), "%st1: %s\nt1: uprobe p0 @0x10:2\n", head, waits[i]);
		ASSERT(run_text(text) != 0);
		skipped[i] = uprobe_skipped_unstable - before;
	}
	ASSERT(skipped[0] > 0);
	ASSERT_EQ(skipped[1], 0);
	ASSERT_EQ(skipped[2], 0);
	ASSERT_EQ(skipped[3], 0);
	return true;
}

/* Switches between threads set interleaving counters; one thread sets none,
 * and two threads meeting at other places set other ones. */
static bool test_interleavings_are_feedback(void)
{
	static const char one[] = "target fuzz_mm\n"
				  "mmap p0 @0x10:4 r,w private f0 fixed\n"
				  "touch p0 e0+0:end write\n";
	static const char two[] = "target fuzz_mm\n"
				  "mmap p0 @0x10:4 r,w private f0 fixed\n"
				  "t1: touch p0 e0+0:end write\n";
	static const char fork[] = "target fuzz_mm\n"
				   "mmap p0 @0x10:4 r,w private f0 fixed\n"
				   "t1: fork p0 tree current nodiff\n"
				   "t2: rollup p0 mmap\n";
	unsigned n2, runs = text_runs;

	exec_interleave_clear();
	run_text(one);
	ASSERT_EQ(text_runs, runs + 1);
	ASSERT_EQ(exec_interleave_seen(), 0);
	run_text(two);
	n2 = exec_interleave_seen();
	ASSERT(n2 > 0);
	run_text(two);
	ASSERT_EQ(exec_interleave_seen(), n2); /* nothing new the second time */
	run_text(fork);
	ASSERT(exec_interleave_seen() > n2);
	ASSERT_EQ(text_runs, runs + 4);
	return true;
}

int main(void)
{
	TEST(test_replay_seeds_and_regressions);
	TEST(test_failure_report_is_readable);
	TEST(test_rcu_early_free_caught_by_asan);
	TEST(test_same_input_same_interleaving);
	TEST(test_delay_shifts_the_interleaving);
	TEST(test_await_puts_a_walk_inside_a_fork);
	TEST(test_interleavings_are_feedback);
	return test_summary();
}
