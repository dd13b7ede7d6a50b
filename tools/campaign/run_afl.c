/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An AFL++ run (run_afl.h).
 */
#include "run_afl.h"
#include "afl_rows.h"
#include "engine_cmd.h"
#include "guard.h"
#include "make.h"
#include "records.h"
#include "run_common.h"
#include "status_loop.h"
#include "summary.h"
#include "tools/file_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct instance {
	char name[32];
	char stats[PATH_MAX + 32], rows[PATH_MAX + 64];
	bool recorded; /* its run line is written */
	pid_t pid, statsd;
	char port[16];
};

struct afl_run {
	const struct campaign *c;
	int n;
	struct instance *in;
	char (*crashes)[PATH_MAX]; /* each instance's crash folder */
	struct crash_set *before;  /* and its files at the start */
	struct timespec start;	   /* on the work folder's clock */
};

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	for (const char *p = path; p && *p; p += strcspn(p, ":") + (p[strcspn(p, ":")] != 0)) {
		int k = (int)strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", k, p, prog);
		if (k && access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

static bool build(const struct campaign *c)
{
	char bin[PATH_MAX], cmplog[PATH_MAX], mutator[PATH_MAX], bug[600];
	const char *bug_goals[] = {"bug-afl", "bug-replay", bug, NULL};
	const char *goals[] = {bin, mutator, cmplog, "corpus", "tool", NULL};

	engine_afl_binaries(c, bin, cmplog, sizeof(bin));
	path_fmt(mutator, sizeof(mutator), "out/afl/%s-mutator.so", c->twin);
	snprintf(bug, sizeof(bug), "BUG=%s", c->bug);
	if (c->bug[0] && !make_goals(c->make_jobs, bug_goals))
		return false;
	return make_goals(c->make_jobs, goals);
}

/* The environment of every afl-fuzz of the run. */
static bool environment(const struct campaign *c)
{
	const char *bind = getenv("VMAFUZZ_AFL_BIND");
	char lib[PATH_MAX], rel[PATH_MAX];
	bool ui;

	/* AFL_AUTORESUME: keep the output folder (and its queue) between runs;
	 * AFL_SKIP_CRASHES: a seed that crashes (a --bug build's, often) is
	 * skipped, not the end of the run */
	setenv("AFL_SKIP_CRASHES", "1", 1);
	setenv("AFL_SKIP_CPUFREQ", "1", 1);
	setenv("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1", 1);
	setenv("AFL_AUTORESUME", "1", 1);
	path_fmt(rel, sizeof(rel), "out/afl/%s-mutator.so", c->twin);
	setenv("AFL_CUSTOM_MUTATOR_LIBRARY", campaign_abs(rel, lib, sizeof(lib)), 1);
	/* figures every second to vmafuzz statsd, untagged */
	setenv("AFL_STATSD", "1", 1);
	unsetenv("AFL_STATSD_TAGS_FLAVOR");
	unsetenv("AFL_STATSD_HOST");
	/* no pinning to a core (afl-fuzz refuses to start when every core is
	 * pinned, which other runs on a shared machine may have done) */
	if (!bind || strcmp(bind, "1"))
		setenv("AFL_NO_AFFINITY", "1", 1);
	/* the status screen on a terminal; else a log and status lines */
	ui = isatty(1) && !getenv("AFL_NO_UI");
	if (!ui)
		setenv("AFL_NO_UI", "1", 1);
	return ui;
}

/* The map size the target reports (AFL_DUMP_MAP_SIZE=1), 0 if none. */
static long map_size(const char *bin)
{
	char out[PATH_MAX];
	char *argv[] = {(char *)bin, NULL}, *env[] = {"AFL_DUMP_MAP_SIZE=1", NULL};
	struct guard_io io = {.out = out, .null_in = true, .env = env};
	size_t len;
	char *text, *last;
	long n = 0;
	pid_t pid;

	path_fmt(out, sizeof(out), "%s/map-size.out", guard_tmpdir());
	/* (it exits with 255 after saying it) */
	pid = guard_spawn(argv, &io);
	if (pid < 0 || (guard_wait(pid), !(text = file_read(out, &len))))
		return 0;
	while (len && text[len - 1] == '\n')
		text[--len] = 0;
	last = strrchr(text, '\n');
	n = strtol(last ? last + 1 : text, &last, 10);
	if (*last)
		n = 0;
	free(text);
	return n;
}

/* vmafuzz statsd for instance @i, its port into i->port ("" if none). */
static void statsd_start(const struct campaign *c, struct instance *i, long map)
{
	char portf[PATH_MAX + 80], mapsz[32], parent[32];
	char *argv[] = {(char *)c->exe, "statsd", "--port-file", portf,	 "--stats", i->stats,
			"--map-size",	mapsz,	  "--parent",	 parent, i->rows,   NULL};
	struct guard_io io = {.null_in = true, .pass = GUARD_PASS_NONE};
	size_t len;
	char *text;

	path_fmt(portf, sizeof(portf), "%s.port", i->rows);
	snprintf(mapsz, sizeof(mapsz), "%ld", map);
	snprintf(parent, sizeof(parent), "%d", (int)getpid());
	unlink(portf);
	unlink(i->rows);
	i->port[0] = 0;
	i->statsd = guard_spawn(argv, &io);
	for (int k = 0; i->statsd > 0 && k < 50 && access(portf, F_OK); k++)
		usleep(100 * 1000);
	text = file_read(portf, &len);
	if (text)
		snprintf(i->port, sizeof(i->port), "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	unlink(portf);
}

/* Start instance @k: "afl-fuzz ..." with the run's mark and its statsd's
 * port (without one, no statsd figures). */
static pid_t start(struct afl_run *r, int k, const char *in, const char *out, bool ui)
{
	struct instance *i = &r->in[k];
	char mark[96], port[48], line[8192];
	char *env[] = {mark, i->port[0] ? port : "AFL_STATSD", NULL};
	struct guard_io io = {
	    .out = out, .null_in = !ui || out, .env = env, .pass = GUARD_PASS_LEADER};
	struct strv cmd = {0};
	pid_t pid;

	snprintf(mark, sizeof(mark), "VMAFUZZ_AFL_RUN=%s", r->c->mark);
	snprintf(port, sizeof(port), "AFL_STATSD_PORT=%s", i->port);
	engine_afl(r->c, in, k, &cmd);
	strv_join(&cmd, line, sizeof(line));
	if (k > 0)
		printf("+ %s >%s &\n", line, out);
	else
		printf("+ %s\n", line);
	pid = guard_spawn(cmd.v, &io);
	strv_free(&cmd);
	return pid;
}

/* Write an instance's run line once afl-fuzz has made its folders. */
static void record(void *arg)
{
	struct afl_run *r = arg;

	for (int k = 0; k < r->n; k++) {
		struct instance *i = &r->in[k];
		struct stat st;

		if (i->recorded || stat(i->stats, &st) || !path_is_dir(r->crashes[k]) ||
		    st.st_mtim.tv_sec < r->start.tv_sec ||
		    (st.st_mtim.tv_sec == r->start.tv_sec && st.st_mtim.tv_nsec < r->start.tv_nsec))
			continue;
		i->recorded = records_run_line(r->crashes[k], r->c->build, NULL);
	}
}

/* The first instance's seeds: an empty folder gets an input, which
 * afl-fuzz needs. */
static bool input(const struct campaign *c, char *in, size_t len)
{
	char empty[PATH_MAX + 16];

	if (crash_count(c->seeds) > 0) {
		snprintf(in, len, "%s", c->seeds);
		return true;
	}
	path_fmt(in, len, "%s/afl-seed", c->work);
	path_fmt(empty, sizeof(empty), "%s/empty", in);
	return dir_make(in) && file_write_atomic(empty, "", 1);
}

/* Wait for the secondaries and the statsds, merge the rows, end what
 * afl-fuzz left. */
static void finish(struct afl_run *r)
{
	char pd[PATH_MAX + 64], what[1024];

	for (int k = 1; k < r->n; k++)
		if (r->in[k].pid > 0)
			guard_wait(r->in[k].pid);
	for (int k = 0; k < r->n; k++) {
		struct instance *i = &r->in[k];

		if (i->statsd > 0) {
			kill(i->statsd, SIGTERM);
			guard_wait(i->statsd);
		}
		path_fmt(pd, sizeof(pd), "%s/afl/%s/plot_data", r->c->work, i->name);
		afl_rows_merge(pd, i->rows);
	}
	if (guard_end_marked(r->c->mark, what, sizeof(what)))
		printf("   (ended what afl-fuzz left behind: %s)\n", what);
}

/* The instances, their folders and names. */
static void instances(struct afl_run *r)
{
	const struct campaign *c = r->c;

	r->n = (int)c->o->jobs;
	r->in = calloc((size_t)r->n, sizeof(*r->in));
	r->crashes = calloc((size_t)r->n, sizeof(*r->crashes));
	r->before = calloc((size_t)r->n, sizeof(*r->before));
	if (!r->in || !r->crashes || !r->before)
		abort();
	for (int k = 0; k < r->n; k++) {
		struct instance *i = &r->in[k];

		engine_afl_name(c, k, i->name, sizeof(i->name));
		path_fmt(r->crashes[k], sizeof(r->crashes[k]), "%s/afl/%s/crashes", c->work,
			 i->name);
		path_fmt(i->stats, sizeof(i->stats), "%s/afl/%s/fuzzer_stats", c->work, i->name);
		path_fmt(i->rows, sizeof(i->rows), "%s/afl-%s.plot", c->work, i->name);
		crash_set_take(r->crashes[k], &r->before[k]);
		/* a record of no crash would stop afl-fuzz removing the empty
		 * folder when it resumes (it moves a folder with anything in it
		 * aside, as crashes.<date>) */
		if (!r->before[k].n)
			records_forget(r->crashes[k]);
	}
}

static void free_run(struct afl_run *r)
{
	for (int k = 0; k < r->n; k++)
		crash_set_free(&r->before[k]);
	free(r->in);
	free(r->crashes);
	free(r->before);
}

/* Start the instances and wait for them; the first one's status. */
static int run_all(struct afl_run *r, const char *in, bool ui, char *log, size_t len,
		   struct run_tally *t)
{
	const struct campaign *c = r->c;
	char bin[PATH_MAX], cmplog[PATH_MAX], out[PATH_MAX + 64];
	struct status_loop l = {0};
	long map;

	engine_afl_binaries(c, bin, cmplog, sizeof(bin));
	map = map_size(bin);
	for (int k = 0; k < r->n; k++)
		statsd_start(c, &r->in[k], map);
	if (!records_clock(c->work, &r->start))
		clock_gettime(CLOCK_REALTIME, &r->start);
	for (int k = 1; k < r->n; k++) {
		path_fmt(out, sizeof(out), "%s/afl-%s.log", c->work, r->in[k].name);
		r->in[k].pid = start(r, k, in, out, ui);
	}
	log[0] = 0;
	if (!ui) {
		if (!run_log(c, c->build, false, log, len))
			return 2;
		printf("   engine log: %s\n", campaign_abs(log, out, sizeof(out)));
	}
	l.start = time(NULL);
	l.pid = start(r, 0, in, ui ? NULL : log, ui);
	l.source = r->in[0].rows;
	l.plot = true;
	l.lines = !ui;
	l.every = c->every;
	l.seconds = c->o->seconds;
	l.ndirs = r->n;
	l.dirs = r->crashes;
	l.before = r->before;
	l.tick = record;
	l.arg = r;
	t->rc = l.pid < 0 ? 2 : status_loop_run(&l);
	t->seconds = (long)(time(NULL) - l.start);
	return t->rc;
}

int run_afl(const struct campaign *c)
{
	char in[PATH_MAX], crashes[PATH_MAX], where[PATH_MAX + 1024], log[PATH_MAX], work[PATH_MAX];
	char pd[PATH_MAX + 64];
	struct afl_run r = {.c = c};
	struct run_tally t = {0};
	bool ui;

	if (!in_path("afl-fuzz") || !in_path("afl-clang-fast")) {
		fprintf(stderr,
			"vmafuzz fuzz: afl-fuzz/afl-clang-fast not found (install the afl++ "
			"package)\n");
		return 1;
	}
	if (!build(c) || !run_folders(c, crashes, sizeof(crashes)) || !input(c, in, sizeof(in)))
		return 2;
	instances(&r);
	ui = environment(c);
	engine_afl_folders(c, campaign_abs(c->work, work, sizeof(work)), where, sizeof(where));
	printf("AFL++ fuzzing %s for %lds with %d instance(s); crashes go to %s/crashes/\n",
	       c->target, c->o->seconds, r.n, where);
	if (c->kind == CAMPAIGN_KERNEL)
		printf("   kernel tree: %s (Linux %s)\n", c->ktree, c->kversion);
	printf("+ AFL_CUSTOM_MUTATOR_LIBRARY=%s\n", getenv("AFL_CUSTOM_MUTATOR_LIBRARY"));
	run_all(&r, in, ui, log, sizeof(log), &t);
	finish(&r);
	record(&r);
	for (int k = 0; k < r.n; k++) {
		struct crash_set fresh;

		t.new_crashes += crash_count_new(r.crashes[k], &r.before[k], &fresh);
		t.all_crashes += crash_count(r.crashes[k]);
		if (r.in[k].recorded)
			records_name_lines(r.crashes[k], c->build, &fresh);
		crash_set_free(&fresh);
	}
	t.log = log[0] ? log : NULL;
	path_fmt(pd, sizeof(pd), "%s/afl/%s/plot_data", c->work, r.in[0].name);
	summary_afl(c, &t, afl_rows_count(pd));
	free_run(&r);
	return t.rc;
}
