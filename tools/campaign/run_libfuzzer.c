/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A libFuzzer run (run_libfuzzer.h).
 */
#include "run_libfuzzer.h"
#include "disk.h"
#include "engine_cmd.h"
#include "engine_out.h"
#include "fuzz/prog/prog.h"
#include "guard.h"
#include "make.h"
#include "merge.h"
#include "records.h"
#include "run_common.h"
#include "status.h"
#include "status_loop.h"
#include "summary.h"
#include "tools/file_util.h"
#include "unsaved.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static bool build(const struct campaign *c)
{
	char bin[PATH_MAX], merge_bin[PATH_MAX], bug[600];
	const char *bug_goals[] = {"bug-libfuzzer", "bug-replay", bug, NULL};
	const char *goals[] = {bin, merge_bin, "corpus", NULL};

	campaign_binary(c, c->build, bin, sizeof(bin));
	campaign_binary(c, c->merge_build, merge_bin, sizeof(merge_bin));
	snprintf(bug, sizeof(bug), "BUG=%s", c->bug);
	/* a planted bug's build (and its replay build, for triage) */
	if (c->bug[0] && !make_goals(c->make_jobs, bug_goals))
		return false;
	return make_goals(c->make_jobs, goals);
}

/* Why this build, for the first line. */
static const char *what(const struct campaign *c, char *buf, size_t len)
{
	if (c->bug[0])
		snprintf(buf, len, "planted bug %s, structure-aware mutator on", c->bug);
	else if (c->o->plain)
		snprintf(buf, len, "libFuzzer's own mutations only (--plain)");
	else
		snprintf(buf, len, "structure-aware mutator on; --plain: off");
	return buf;
}

/* What the loop watches while the engine runs: its output (logged, its
 * crashes kept) and the disk. */
struct watch {
	struct engine_out out;
	struct disk_watch disk;
	pid_t pid;
	bool stopped; /* SIGTERM sent */
	long full_at; /* ms: when the disk was found full */
};

/* When the disk is full, the engine is stopped at once, unless it is in
 * the middle of a crash's report, which comes before its input is written
 * (or not): then once the report is done, or STOP_LATEST ms at the latest. */
#define STOP_LATEST 5000

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void tick(void *arg)
{
	struct watch *w = arg;
	long now = now_ms();

	engine_out_pump(&w->out);
	if (!w->disk.full) {
		if (!disk_watch_full(&w->disk, w->out.log_errno))
			return;
		w->full_at = now;
		printf("\n(the disk is full: %s; the run stops)\n", strerror(w->disk.why));
		fflush(stdout);
	}
	/* libFuzzer writes on without looking: stop it, as a SIGTERM would */
	if (!w->stopped && (!w->out.reporting || now - w->full_at >= STOP_LATEST)) {
		kill(w->pid, SIGTERM);
		w->stopped = true;
	}
}

/* The exit status after a write failed with @e: DISK_FULL_EXIT, with what
 * it means, for a full disk; else 2. */
static int write_failed(const struct campaign *c, int e)
{
	char abs[PATH_MAX];

	if (!file_error_full(e))
		return 2;
	fprintf(stderr,
		"vmafuzz fuzz: the disk holding %s is full (%s): the run does not start; "
		"what was there is untouched. Free some space and run again (exit status "
		"%d)\n",
		campaign_abs(c->work, abs, sizeof(abs)), strerror(e), DISK_FULL_EXIT);
	return DISK_FULL_EXIT;
}

/* The engine with its output on a pipe that @w reads into @log; its pid,
 * or -1 (errno) when the log cannot be made. */
static pid_t spawn(struct strv *cmd, const char *log, struct watch *w)
{
	struct guard_io io = {.null_in = true, .pass = GUARD_PASS_TERM};
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	if (!engine_out_open(&w->out, fds[0], log)) {
		int e = errno;

		fprintf(stderr, "vmafuzz fuzz: cannot write %s: %s\n", log, strerror(e));
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	io.out_fd = fds[1];
	w->pid = guard_spawn(cmd->v, &io);
	close(fds[1]);
	return w->pid;
}

/* The end of a run stopped by a full disk: what is kept, what is not. */
static void disk_full_end(const struct campaign *c, const struct watch *w, long cut,
			  const struct unsaved_tally *u)
{
	char abs[PATH_MAX];

	fprintf(stderr,
		"vmafuzz fuzz: the run stopped: the disk holding %s is full (%s). The corpus "
		"is as it was, with the whole inputs found before the disk filled (%ld cut "
		"short by the engine taken out), and is not merged",
		campaign_abs(c->work, abs, sizeof(abs)), strerror(w->disk.why), cut);
	if (u->printed)
		fprintf(stderr,
			"; %d crash%s could not be saved and %s printed above between "
			"'%s' lines",
			u->printed, u->printed == 1 ? "" : "es", u->printed == 1 ? "is" : "are",
			PROG_LOG_UNSAVED);
	if (w->out.log_errno)
		fprintf(stderr, "; the engine's log %s ends where the disk filled", w->out.log);
	fprintf(stderr, ". Free some space and run again (exit status %d).\n", DISK_FULL_EXIT);
}

int run_libfuzzer(const struct campaign *c)
{
	char crashes[PATH_MAX], corpus[PATH_MAX], log[PATH_MAX], abs[PATH_MAX], line[8192],
	    why[600];
	struct status_loop l = {.lines = true};
	static struct watch w; /* large */
	struct crash_set before, corpus_before, fresh;
	struct unsaved_tally u;
	struct merge_result m;
	struct run_tally t = {0};
	struct strv cmd = {0};
	long cut = 0;

	memset(&w, 0, sizeof(w));
	if (!build(c))
		return 2;
	if (!run_folders(c, crashes, sizeof(crashes)) || !run_copy_seeds(c))
		return write_failed(c, errno);
	printf("Fuzzing %s for %lds (%s); crashes go to %s/\n", c->target, c->o->seconds,
	       what(c, why, sizeof(why)), campaign_abs(crashes, abs, sizeof(abs)));
	if (c->kind == CAMPAIGN_KERNEL)
		printf("   kernel tree: %s (Linux %s)\n", c->ktree, c->kversion);
	/* AddressSanitizer keeps 256 MB of freed memory by default to catch
	 * late uses; a quarter of that still catches them in programs this
	 * small and keeps a run well under libFuzzer's RSS limit. */
	setenv("ASAN_OPTIONS", "quarantine_size_mb=64", 0);
	/* where a target keeps a finding's report that its worker's log,
	 * which -fork deletes, would take with it (fuzz_conform does) */
	path_fmt(abs, sizeof(abs), "%s/reports", c->work);
	if (mkdir(abs, 0755) == 0 || errno == EEXIST)
		setenv("VMAFUZZ_REPORTS", campaign_abs(abs, log, sizeof(log)), 1);
	engine_libfuzzer(c, &cmd);
	strv_join(&cmd, line, sizeof(line));
	printf("+ ASAN_OPTIONS=%s %s\n", getenv("ASAN_OPTIONS"), line);
	crash_set_take(crashes, &before);
	path_fmt(corpus, sizeof(corpus), "%s/corpus", c->work);
	crash_set_take(corpus, &corpus_before);
	disk_watch_start(&w.disk, corpus, &corpus_before);
	if (run_log(c, c->build, true, log, sizeof(log)) &&
	    records_run_line(crashes, c->build, NULL)) {
		printf("   engine log: %s\n", campaign_abs(log, abs, sizeof(abs)));
		l.start = time(NULL);
		l.pid = spawn(&cmd, log, &w);
	}
	strv_free(&cmd);
	if (l.pid <= 0) {
		int e = errno;

		engine_out_close(&w.out);
		crash_set_free(&before);
		crash_set_free(&corpus_before);
		return write_failed(c, e);
	}
	l.source = log;
	l.seconds = c->o->seconds;
	l.every = c->every;
	l.ndirs = 1;
	l.dirs = &crashes;
	l.before = &before;
	l.tick = tick;
	l.arg = &w;
	l.pipe_fd = w.out.fd;
	t.rc = status_loop_run(&l);
	t.seconds = (long)(time(NULL) - l.start);
	/* what is left in the pipe (every writer is gone once the group is) */
	engine_out_drain(&w.out, 2000);
	disk_watch_full(&w.disk, w.out.log_errno);
	unsaved_crashes(c, &w.out, crashes, &before, &u);
	if (w.disk.full)
		cut = disk_drop_cut(&w.disk);
	t.new_crashes = crash_count_new(crashes, &before, &fresh);
	records_name_lines(crashes, c->build, &fresh);
	crash_set_free(&fresh);

	if (w.disk.full) {
		memset(&m, 0, sizeof(m));
		m.before = crash_count(corpus);
		m.skipped = true;
		snprintf(m.why, sizeof(m.why), "the disk is full");
	} else {
		corpus_merge(c, &m);
	}
	/* what the merge found is new too */
	t.new_crashes = crash_count_new(crashes, &before, NULL);
	t.all_crashes = crash_count(crashes);
	t.unsaved = u.printed;
	t.log = log;
	crash_set_free(&before);
	crash_set_free(&corpus_before);
	summary_libfuzzer(c, &t, &m);
	if (w.out.log_errno && !w.disk.full)
		fprintf(stderr, "vmafuzz fuzz: the engine's log %s is cut short: %s\n", log,
			strerror(w.out.log_errno));
	if (w.disk.full)
		disk_full_end(c, &w, cut, &u);
	engine_out_close(&w.out);
	return w.disk.full ? DISK_FULL_EXIT : t.rc;
}
