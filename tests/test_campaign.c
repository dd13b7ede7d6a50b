/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of `vmafuzz fuzz` (tools/campaign/) that need no engine: its
 * command line read strictly, the status line's figures from libFuzzer's
 * log and from plot_data, the engines' command lines, what the summary
 * reads from a log, the build records of a crash folder and how triage
 * reads them back (tools/triage/crash_build.h, old lines too), plot_data's
 * rows put together, the watcher that ends a run's processes and removes
 * its temporary folder when the run is killed, and the engine's output
 * read from a pipe (logged, its crashes kept, a log on a full disk).
 * tests/campaign.sh runs the whole command.
 */
#include "tools/campaign/afl_rows.h"
#include "tools/campaign/engine_cmd.h"
#include "tools/campaign/engine_out.h"
#include "tools/campaign/guard.h"
#include "tools/campaign/merge.h"
#include "tools/campaign/options.h"
#include "tools/campaign/records.h"
#include "tools/campaign/status.h"
#include "tools/campaign/summary.h"
#include "tools/file_util.h"
#include "tools/triage/crash_build.h"
#include "test.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool fake_target(const char *w)
{
	return !strcmp(w, "fuzz_mtree") || !strcmp(w, "fuzz_mm") || !strcmp(w, "kfuzz_mtree");
}

/* Parse the words of @line (split at blanks); the status, err in @err. */
static int parse(const char *line, struct campaign_opts *o, char *err, size_t len)
{
	static char buf[512];
	static char *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "fuzz %s", line);
	for (char *w = strtok(buf, " "); w && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	err[0] = 0;
	return campaign_parse(argc, argv, fake_target, o, err, len);
}

static bool test_numbers(void)
{
	long n = 0;

	ASSERT(campaign_number("1", 10, &n) && n == 1);
	ASSERT(campaign_number("600", 1000, &n) && n == 600);
	ASSERT(campaign_number("2147483647", CAMPAIGN_MAX_SECONDS, &n) && n == 2147483647L);
	ASSERT(!campaign_number("2147483648", CAMPAIGN_MAX_SECONDS, &n));
	ASSERT(!campaign_number("99999999999999999999999", CAMPAIGN_MAX_SECONDS, &n));
	ASSERT(!campaign_number("0", 10, &n));
	ASSERT(!campaign_number("00", 10, &n));
	ASSERT(!campaign_number("", 10, &n));
	ASSERT(!campaign_number("-5", 10, &n));
	ASSERT(!campaign_number("+5", 10, &n));
	ASSERT(!campaign_number("1.5", 10, &n));
	ASSERT(!campaign_number("5 ", 10, &n));
	ASSERT(!campaign_number(" 5", 10, &n));
	ASSERT(!campaign_number("1e3", 10000, &n));
	ASSERT(!campaign_number("0x10", 100, &n));
	ASSERT(!campaign_number("11", 10, &n));
	return true;
}

/* TARGET and SECONDS in either order, the defaults, the options. */
static bool test_parse_good(void)
{
	struct campaign_opts o;
	char err[256];

	ASSERT_EQ(parse("", &o, err, sizeof(err)), 0);
	ASSERT(!o.target && o.seconds == CAMPAIGN_SECONDS && o.jobs == 1 && !o.afl && !o.plain);
	ASSERT_EQ(parse("fuzz_mtree 60", &o, err, sizeof(err)), 0);
	ASSERT(!strcmp(o.target, "fuzz_mtree") && o.seconds == 60);
	ASSERT_EQ(parse("60 fuzz_mtree", &o, err, sizeof(err)), 0);
	ASSERT(!strcmp(o.target, "fuzz_mtree") && o.seconds == 60);
	ASSERT_EQ(parse("30", &o, err, sizeof(err)), 0);
	ASSERT(!o.target && o.seconds == 30);
	ASSERT_EQ(
	    parse("--afl --jobs 4 --seeds /s --bug a --bug=b kfuzz_mtree 5", &o, err, sizeof(err)),
	    0);
	ASSERT(o.afl && o.jobs == 4 && !strcmp(o.seeds, "/s") && o.nbugs == 2);
	ASSERT(!strcmp(o.bugs[0], "a") && !strcmp(o.bugs[1], "b"));
	ASSERT_EQ(parse("--jobs=3 --seeds=/x -j 2 --plain", &o, err, sizeof(err)), 0);
	ASSERT(o.jobs == 2 && !strcmp(o.seeds, "/x") && o.plain);
	/* engine flags after --, as they are, options or not */
	ASSERT_EQ(parse("fuzz_mm 9 -- -runs=5 --afl 0", &o, err, sizeof(err)), 0);
	ASSERT(o.nengine == 3 && !strcmp(o.engine[0], "-runs=5") && !strcmp(o.engine[2], "0"));
	ASSERT(!o.afl && o.seconds == 9);
	ASSERT_EQ(parse("-h", &o, err, sizeof(err)), 0);
	ASSERT(o.help);
	/* a word that names no target and is no number: the target the
	 * caller says is unknown */
	ASSERT_EQ(parse("fuzz_nope 5", &o, err, sizeof(err)), 0);
	ASSERT(!strcmp(o.target, "fuzz_nope"));
	return true;
}

/* Every bad number and option exits 2 with a message naming the word. */
static bool test_parse_bad(void)
{
	static const char *const bad[][2] = {
	    {"fuzz_mtree 0", "not '0'"},
	    {"fuzz_mtree abc", "not 'abc'"},
	    {"fuzz_mtree 1.5", "not '1.5'"},
	    {"fuzz_mtree -5", "not '-5'"},
	    {"-5", "not '-5'"},
	    {"fuzz_mtree huge", "not 'huge'"},
	    {"0", "not '0'"},
	    {".5", "not '.5'"},
	    {"fuzz_mtree 99999999999999999999", "not '99999999999999999999'"},
	    {"fuzz_mtree 2147483648", "not '2147483648'"},
	    {"fuzz_mtree 5 6", "SECONDS given twice"},
	    {"fuzz_mtree fuzz_mm", "two targets"},
	    {"abc fuzz_mtree", "'abc' is neither a target nor SECONDS"},
	    {"--jobs 0", "--jobs takes a whole number from 1 to 1024, not '0'"},
	    {"--jobs x", "not 'x'"},
	    {"--jobs -1", "not '-1'"},
	    {"--jobs 1.5", "not '1.5'"},
	    {"--jobs 1025", "not '1025'"},
	    {"--jobs=99999999999999999999", "not '99999999999999999999'"},
	    {"-j 0", "-j takes"},
	    {"--jobs", "--jobs needs a number"},
	    {"--bug", "--bug needs a planted bug"},
	    {"--seeds", "--seeds needs a directory"},
	    {"--bogus", "unknown option '--bogus' (engine flags go after '--'"},
	    {"--afl --plain", "--plain is libFuzzer's"},
	};
	struct campaign_opts o;
	char err[256];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i][0], &o, err, sizeof(err));

		if (rc != 2 || !strstr(err, bad[i][1])) {
			fprintf(stderr, "'%s': status %d, '%s' (want '%s')\n", bad[i][0], rc, err,
				bad[i][1]);
			return false;
		}
	}
	return true;
}

static const char lf_log[] = "INFO: Seed: 1\n"
			     "#2\tINITED cov: 100 ft: 200 corp: 9/120b exec/s: 0 rss: 30Mb\n"
			     "#4096\tpulse  cov: 512 ft: 1400 corp: 80/2345b lim: 64 exec/s: 2048 "
			     "rss: 60Mb\n"
			     "#4100\tNEW    cov: 513 ft: 1401 corp: 81/2400b lim: 64 exec/s: 2050 "
			     "rss: 60Mb L: 20/64 MS: 1 Custom-\n"
			     "==123==ERROR: AddressSanitizer: heap-use-after-free on address\n"
			     "    #0 0x55 in mt_walk src/tree/mtree.c:10\n";

/* The last progress line, whatever comes after it; -fork=N's form. */
static bool test_sample_libfuzzer(void)
{
	static const char fork_log[] = "#9870: cov: 775 ft: 4540 corp: 697 exec/s 1259 "
				       "oom/timeout/crash: 0/0/0 time: 9s job: 3 dft_time: 0\n"
				       "  NEW_FUNC: 0x56 in f x.c:1\n";
	struct fuzz_sample s;

	ASSERT(status_sample_libfuzzer(lf_log, strlen(lf_log), &s));
	ASSERT(s.rate == 2050 && s.edges == 513 && s.corpus == 81);
	ASSERT(status_sample_libfuzzer(fork_log, strlen(fork_log), &s));
	ASSERT(s.rate == 1259 && s.edges == 775 && s.corpus == 697);
	/* the start: a line with exec/s 0 */
	ASSERT(status_sample_libfuzzer(lf_log, 80, &s));
	ASSERT(s.rate == 0 && s.edges == 100 && s.corpus == 9);
	ASSERT(!status_sample_libfuzzer("INFO: Seed: 1\nINFO: Loaded 1 modules\n", 37, &s));
	ASSERT(s.rate == -1 && s.edges == -1 && s.corpus == -1);
	ASSERT(!status_sample_libfuzzer("", 0, &s));
	return true;
}

static const char plot_hdr[] =
    "# relative_time, cycles_done, cur_item, corpus_count, pending_total, pending_favs, "
    "map_size, saved_crashes, saved_hangs, max_depth, execs_per_sec, total_execs, "
    "edges_found\n";

static bool test_sample_plot(void)
{
	char text[1024];
	struct fuzz_sample s;

	snprintf(text, sizeof(text),
		 "%s1, 0, 1, 9, 9, 1, 1.00%%, 0, 0, 1, 9.00, 10, 10\n"
		 "5, 0, 7, 42, 30, 2, 50.00%%, 1, 0, 4, 250.50, 1000, 500\n",
		 plot_hdr);
	ASSERT(status_sample_plot(text, strlen(text), &s));
	ASSERT(s.rate == 250 && s.edges == 500 && s.corpus == 42);
	ASSERT(!status_sample_plot(plot_hdr, strlen(plot_hdr), &s));
	ASSERT(s.rate == -1);
	ASSERT(!status_sample_plot("5, 0, 7", 7, &s));
	return true;
}

static bool test_status_line(void)
{
	struct fuzz_sample s = {2048, 512, 80}, none = {-1, -1, -1};
	char line[256];

	status_format(line, sizeof(line), time(NULL), 5, 595, &s, 2);
	ASSERT(line[0] == '[' && line[9] == ']');
	ASSERT(!strcmp(line + 10,
		       " 5s elapsed, 595s left: exec/s 2048, edges 512, corpus 80, crashes 2 new"));
	status_format(line, sizeof(line), time(NULL), 700, -100, &none, 0);
	ASSERT(!strcmp(line + 10,
		       " 700s elapsed, 0s left: exec/s ?, edges ?, corpus ?, crashes 0 new"));
	/* first within seconds, then 5 s on a terminal, 30 s otherwise */
	ASSERT(STATUS_FIRST <= 5);
	ASSERT_EQ(status_every(NULL, true), 5);
	ASSERT_EQ(status_every(NULL, false), 30);
	ASSERT_EQ(status_every("2", false), 2);
	ASSERT_EQ(status_every("0", false), 0);
	ASSERT_EQ(status_every("1.5", true), 0);
	ASSERT_EQ(status_every("x", true), 0);
	return true;
}

static bool test_summary_figures(void)
{
	static const char stats[] = "Done 16776 runs in 11 second(s)\n"
				    "stat::number_of_executed_units: 16776\n"
				    "stat::average_exec_per_sec:     1525\n";
	static const char merge[] = "MERGE-OUTER: 3 files, 2 in the initial corpus\n"
				    "MERGE-OUTER: 12 new files with 345 new features added; 20 new "
				    "coverage edges\n";
	long rate, units;

	summary_rate(stats, strlen(stats), 11, &rate, &units);
	ASSERT(rate == 1525 && units == 16776);
	summary_rate("stat::number_of_executed_units: 1000\n", 37, 10, &rate, &units);
	ASSERT(rate == 100 && units == 1000);
	summary_rate(lf_log, strlen(lf_log), 0, &rate, &units);
	ASSERT(rate == 2050 && units == -1);
	ASSERT_EQ(merge_outer_count(merge, strlen(merge)), 12);
	ASSERT_EQ(merge_outer_count("MERGE-OUTER: 3 files, 2\n", 24), -1);
	ASSERT_EQ(merge_outer_count("", 0), -1);
	ASSERT_EQ((unsigned long)merge_outer_count("MERGE-OUTER: 0 new files with 0", 31), 0);
	ASSERT(!strcmp(engine_libfuzzer_status(72), "interrupted (Ctrl-C or a signal)"));
	return true;
}

static bool test_engine_lines(void)
{
	char *engine[] = {"-runs=7", "-seed=1"};
	struct campaign_opts o = {.jobs = 2, .seconds = 60, .engine = engine, .nengine = 2};
	struct campaign c = {.o = &o, .kind = CAMPAIGN_MODEL};
	struct strv v = {0};
	char line[2048], name[32];

	snprintf(c.target, sizeof(c.target), "fuzz_mtree");
	snprintf(c.build, sizeof(c.build), "bugs/x/libfuzzer");
	snprintf(c.merge_build, sizeof(c.merge_build), "libfuzzer");
	snprintf(c.work, sizeof(c.work), "w/fuzz_mtree");
	snprintf(c.seeds, sizeof(c.seeds), "s");
	snprintf(c.dict, sizeof(c.dict), "dict/fuzz_mtree.dict");
	engine_libfuzzer(&c, &v);
	strv_join(&v, line, sizeof(line));
	strv_free(&v);
	ASSERT(!strcmp(line, "out/bugs/x/libfuzzer/fuzz_mtree w/fuzz_mtree/corpus s "
			     "-dict=dict/fuzz_mtree.dict -max_total_time=60 "
			     "-artifact_prefix=w/fuzz_mtree/crashes/ -print_final_stats=1 -fork=2 "
			     "-ignore_crashes=1 -runs=7 -seed=1"));
	/* the merge: the build without the planted bug */
	engine_merge(&c, "w/fuzz_mtree/corpus.merge", &v);
	strv_join(&v, line, sizeof(line));
	strv_free(&v);
	ASSERT(!strcmp(line, "out/libfuzzer/fuzz_mtree -merge=1 "
			     "-artifact_prefix=w/fuzz_mtree/crashes/ w/fuzz_mtree/corpus.merge "
			     "w/fuzz_mtree/corpus"));
	snprintf(c.build, sizeof(c.build), "afl");
	c.dict[0] = 0;
	engine_afl(&c, "in", 0, &v);
	strv_join(&v, line, sizeof(line));
	strv_free(&v);
	ASSERT(!strcmp(line,
		       "afl-fuzz -i in -o w/fuzz_mtree/afl -M main -c "
		       "out/afl-cmplog/fuzz_mtree -V 60 -runs=7 -seed=1 -- out/afl/fuzz_mtree"));
	engine_afl(&c, "in", 1, &v);
	strv_join(&v, line, sizeof(line));
	strv_free(&v);
	ASSERT(!strcmp(line, "afl-fuzz -i in -o w/fuzz_mtree/afl -S s1 -V 60 -runs=7 -seed=1 -- "
			     "out/afl/fuzz_mtree"));
	ASSERT(!strcmp(engine_afl_name(&c, 0, name, sizeof(name)), "main"));
	o.jobs = 1;
	ASSERT(!strcmp(engine_afl_name(&c, 0, name, sizeof(name)), "default"));
	/* fuzz_conform: shorter programs, one worker */
	c.kind = CAMPAIGN_LIVE;
	o.nengine = 0;
	snprintf(c.build, sizeof(c.build), "libfuzzer");
	engine_libfuzzer(&c, &v);
	strv_join(&v, line, sizeof(line));
	strv_free(&v);
	ASSERT(strstr(line, "-print_final_stats=1 -max_len=640") && !strstr(line, "-fork"));
	return true;
}

/* .builds as triage reads it: NAME lines (the last one counts), run lines
 * by the file's time, NAME lines before run lines. */
static bool test_builds_text(void)
{
	static const char text[] = "old-crash libfuzzer\n"
				   "* bugs/a/libfuzzer from=1000.500000000\n"
				   "crash-x bugs/a/libfuzzer\n"
				   "* libfuzzer from=2000.000000001\r\n"
				   "crash-y afl\n"
				   "crash-y kernel/afl\n";
	struct timespec before = {999, 0}, in_a = {1500, 0}, at_a = {1000, 500000000};
	struct timespec just_before_b = {2000, 0}, in_b = {3000, 0};
	char b[64];

	ASSERT(crash_build_in_text(text, strlen(text), "old-crash", &in_b, b, sizeof(b)));
	ASSERT(!strcmp(b, "libfuzzer"));
	ASSERT(crash_build_in_text(text, strlen(text), "crash-x", &in_b, b, sizeof(b)));
	ASSERT(!strcmp(b, "bugs/a/libfuzzer"));
	ASSERT(crash_build_in_text(text, strlen(text), "crash-y", &before, b, sizeof(b)));
	ASSERT(!strcmp(b, "kernel/afl"));
	/* a file no line names: by its time */
	ASSERT(!crash_build_in_text(text, strlen(text), "crash-z", &before, b, sizeof(b)));
	ASSERT(crash_build_in_text(text, strlen(text), "crash-z", &at_a, b, sizeof(b)));
	ASSERT(!strcmp(b, "bugs/a/libfuzzer"));
	ASSERT(crash_build_in_text(text, strlen(text), "crash-z", &in_a, b, sizeof(b)));
	ASSERT(!strcmp(b, "bugs/a/libfuzzer"));
	ASSERT(crash_build_in_text(text, strlen(text), "crash-z", &just_before_b, b, sizeof(b)));
	ASSERT(!strcmp(b, "bugs/a/libfuzzer"));
	ASSERT(crash_build_in_text(text, strlen(text), "crash-z", &in_b, b, sizeof(b)));
	ASSERT(!strcmp(b, "libfuzzer"));
	/* without its time, only NAME lines */
	ASSERT(!crash_build_in_text(text, strlen(text), "crash-z", NULL, b, sizeof(b)));
	/* a prefix of a name is not the name */
	ASSERT(!crash_build_in_text(text, strlen(text), "crash-", NULL, b, sizeof(b)));
	return true;
}

static void put(const char *dir, const char *name, const char *data)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(data, f);
		fclose(f);
	}
}

/* The records a run writes, read back from the files: a crash found
 * before a kill (no NAME line) is placed by the run line; new files by
 * inode. */
static bool test_records(void)
{
	char dir[] = "/tmp/vmafuzz-records-XXXXXX", path[512], b[64], sub[600];
	struct crash_set before, fresh;
	struct timespec from;
	size_t len;
	char *text;

	ASSERT(mkdtemp(dir) != NULL);
	put(dir, "crash-old", "a");
	put(dir, "README.txt", "afl's");
	ASSERT(records_name_lines(dir, "libfuzzer",
				  &(struct crash_set){
				      .names = (char *[]){"crash-old"},
				      .inos = (ino_t[]){0},
				      .n = 1,
				  }));
	crash_set_take(dir, &before);
	ASSERT_EQ(before.n, 1);
	ASSERT(records_run_line(dir, "bugs/x/libfuzzer", &from));
	put(dir, "crash-new", "b");
	put(dir, "crash-old", "a"); /* written again: the same file */
	ASSERT_EQ(crash_count(dir), 2);
	ASSERT_EQ(crash_count_new(dir, &before, &fresh), 1);
	ASSERT(!strcmp(fresh.names[0], "crash-new"));
	/* the run was killed here: triage still knows */
	snprintf(path, sizeof(path), "%s/crash-new", dir);
	ASSERT(crash_build_of(path, b, sizeof(b)) && !strcmp(b, "bugs/x/libfuzzer"));
	snprintf(path, sizeof(path), "%s/crash-old", dir);
	ASSERT(crash_build_of(path, b, sizeof(b)) && !strcmp(b, "libfuzzer"));
	ASSERT_EQ(crash_builds_in(dir, b, sizeof(b)), 2);
	ASSERT(records_name_lines(dir, "bugs/x/libfuzzer", &fresh));
	snprintf(path, sizeof(path), "%s/.builds", dir);
	text = file_read(path, &len);
	ASSERT(text && !strncmp(text, "crash-old libfuzzer\n* bugs/x/libfuzzer from=", 44));
	ASSERT(len > 27 && !strcmp(text + len - 27, "crash-new bugs/x/libfuzzer\n"));
	free(text);
	crash_set_free(&fresh);
	/* a file moved aside and made again (AFL++'s resume moves the folder):
	 * new, though of the same name */
	snprintf(sub, sizeof(sub), "%s/crash-old", dir);
	snprintf(path, sizeof(path), "%s/.aside", dir);
	ASSERT_EQ(rename(sub, path), 0);
	put(dir, "crash-old", "a");
	ASSERT_EQ(crash_count_new(dir, &before, NULL), 2);
	crash_set_free(&before);
	/* no temporary file is left beside .builds */
	ASSERT_EQ(crash_count(dir), 2);
	ASSERT(tree_remove(dir));
	return true;
}

static bool test_rows(void)
{
	char pd[1024], ours[1024], *m;

	snprintf(pd, sizeof(pd), "%s60, 0, 1, 9, 9, 1, 1.00%%, 0, 0, 1, 9.00, 900, 90\n", plot_hdr);
	snprintf(ours, sizeof(ours),
		 "%s1, 0, 1, 1, 1, 1, 1.00%%, 0, 0, 1, 9.00, 10, 10\n"
		 "59, 0, 1, 8, 8, 1, 1.00%%, 0, 0, 1, 9.00, 880, 88\n"
		 "60, 0, 1, 9, 9, 1, 1.00%%, 0, 0, 1, 9.00, 890, 89\n",
		 plot_hdr);
	m = afl_rows_merged(pd, ours);
	ASSERT(!strncmp(m, plot_hdr, strlen(plot_hdr)));
	ASSERT(!strcmp(m + strlen(plot_hdr), "1, 0, 1, 1, 1, 1, 1.00%, 0, 0, 1, 9.00, 10, 10\n"
					     "59, 0, 1, 8, 8, 1, 1.00%, 0, 0, 1, 9.00, 880, 88\n"
					     "60, 0, 1, 9, 9, 1, 1.00%, 0, 0, 1, 9.00, 900, 90\n"));
	free(m);
	/* afl-fuzz wrote no row yet: all of ours */
	m = afl_rows_merged(plot_hdr, ours);
	ASSERT(!strcmp(m, ours));
	free(m);
	return true;
}

/* Processes that carry the run's mark are ended, stopped ones too, and
 * named with their state. */
static bool test_end_marked(void)
{
	char mark[64], what[256], want[64];
	pid_t pid;
	int st;

	snprintf(mark, sizeof(mark), "test-%d", (int)getpid());
	pid = fork();
	if (pid == 0) {
		setenv("VMAFUZZ_AFL_RUN", mark, 1);
		execlp("sleep", "sleep", "300", (char *)NULL);
		_exit(127);
	}
	ASSERT(pid > 0);
	usleep(300 * 1000);
	kill(pid, SIGSTOP);
	usleep(100 * 1000);
	ASSERT_EQ(guard_end_marked(mark, what, sizeof(what)), 1);
	snprintf(want, sizeof(want), "%d sleep (T)", (int)pid);
	ASSERT(!strcmp(what, want));
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	ASSERT_EQ(guard_end_marked(mark, what, sizeof(what)), 0);
	return true;
}

/* A run killed by SIGKILL: the watcher ends its group, workers too, and
 * removes its temporary folder. */
static bool test_watcher(void)
{
	int fds[2];
	pid_t run, group = 0;
	char tmp[4096] = "";
	int st;

	ASSERT_EQ(pipe(fds), 0);
	run = fork();
	if (run == 0) {
		char *argv[] = {"sh", "-c", "sleep 300 & sleep 300", NULL};
		struct guard_io io = {.null_in = true};
		pid_t pid;

		close(fds[0]);
		if (!guard_start(NULL) || (pid = guard_spawn(argv, &io)) < 0)
			_exit(1);
		dprintf(fds[1], "%d %s\n", (int)pid, guard_tmpdir());
		pause();
		_exit(0);
	}
	close(fds[1]);
	{
		FILE *f = fdopen(fds[0], "r");

		ASSERT(f && fscanf(f, "%d %4095s", &group, tmp) == 2);
		fclose(f);
	}
	usleep(300 * 1000);
	ASSERT(guard_group_alive(group));
	ASSERT(path_is_dir(tmp));
	kill(run, SIGKILL);
	ASSERT_EQ(waitpid(run, &st, 0), run);
	for (int i = 0; i < 200 && (guard_group_alive(group) || path_is_dir(tmp)); i++)
		usleep(50 * 1000);
	ASSERT(!guard_group_alive(group));
	ASSERT(!path_is_dir(tmp));
	return true;
}

/* The engine's output through a pipe: logged; a crash's program, file and
 * bytes kept; a log that cannot be written (/dev/full) noted, the output
 * still read. */
static bool test_engine_out(void)
{
	static const char out[] =
	    "INFO: Seed: 1\n"
	    "==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x6\n"
	    "--- program (fuzz_mtree), step 1 of 2, on the fiber that failed ---\n"
	    "target fuzz_mtree\n"
	    "store mt0 @0x10:4 v1    # <== step 1 failed here\n"
	    "--- threads ---\n"
	    "  t0 at step 1\n"
	    "artifact_prefix='x/'; Test unit written to x/crash-abc\n"
	    "Base64: AAECAw==\n"
	    "ALARM: working on the last Unit for 2 seconds\n"
	    "artifact_prefix='x/'; Test unit written to x/timeout-def\n"
	    "#5 NEW cov: 3";
	char dir[] = "/tmp/vmafuzz-test-out.XXXXXX", log[4096], *text;
	struct engine_out o;
	int fds[2];
	size_t len;

	ASSERT(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/engine.log", dir);
	ASSERT_EQ(pipe(fds), 0);
	ASSERT(engine_out_open(&o, fds[0], log));
	ASSERT_EQ(write(fds[1], out, sizeof(out) - 1), sizeof(out) - 1);
	engine_out_pump(&o);
	ASSERT(o.reporting); /* the last crash's report came, no progress line yet */
	close(fds[1]);
	engine_out_drain(&o, 1000);
	ASSERT(o.eof && !o.log_errno && !o.reporting);
	ASSERT_EQ(o.ncrashes, 2);
	ASSERT(!strcmp(o.crashes[0].program,
		       "target fuzz_mtree\nstore mt0 @0x10:4 v1    # <== step 1 failed here\n"));
	ASSERT(!strcmp(o.crashes[0].path, "x/crash-abc"));
	ASSERT(o.crashes[0].bytes && o.crashes[0].nbytes == 4);
	ASSERT(!memcmp(o.crashes[0].bytes, "\0\1\2\3", 4));
	/* a timeout: a file, no report */
	ASSERT(!o.crashes[1].program && !strcmp(o.crashes[1].path, "x/timeout-def"));
	engine_out_close(&o);
	text = file_read(log, &len);
	ASSERT(text && len == sizeof(out) - 1 && !memcmp(text, out, len));
	free(text);
	/* the log on a full disk */
	ASSERT_EQ(pipe(fds), 0);
	ASSERT(engine_out_open(&o, fds[0], "/dev/full"));
	ASSERT_EQ(write(fds[1], out, sizeof(out) - 1), sizeof(out) - 1);
	close(fds[1]);
	engine_out_drain(&o, 1000);
	ASSERT_EQ(o.log_errno, ENOSPC);
	ASSERT(file_error_full(o.log_errno));
	ASSERT(o.ncrashes == 2 && o.crashes[0].program && o.crashes[0].bytes);
	engine_out_close(&o);
	ASSERT(tree_remove(dir));
	return true;
}

int main(void)
{
	TEST(test_numbers);
	TEST(test_parse_good);
	TEST(test_parse_bad);
	TEST(test_sample_libfuzzer);
	TEST(test_sample_plot);
	TEST(test_status_line);
	TEST(test_summary_figures);
	TEST(test_engine_lines);
	TEST(test_builds_text);
	TEST(test_records);
	TEST(test_rows);
	TEST(test_end_marked);
	TEST(test_watcher);
	TEST(test_engine_out);
	return test_summary();
}
