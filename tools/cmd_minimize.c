/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz minimize: shrink a crash at the level of the program with the
 * minimizer of fuzz/prog/minimize.h, whose oracle here is the crash's bucket:
 * a candidate still fails when the replay driver, run on it as triage runs
 * a file (crash_run.h), puts it in the same bucket as the crash. The crash
 * file itself is run first for its bucket; the minimizer then checks that
 * the program decoded from it (its canonical encoding) lands there too.
 * Progress goes to stderr, the program (text) to stdout, its bytes to -o.
 */
#include "cmd.h"
#include "crash_input.h"
#include "crash_opts.h"
#include "file_util.h"
#include "fuzz/prog/minimize.h"
#include "tools/triage/crash_build.h"
#include "tools/triage/crash_machine.h"
#include "tools/triage/crash_run.h"
#include "tools/triage/crash_target.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MAX_RUNS 2000

struct args {
	struct crash_opts o;
	const char *in, *out;
	unsigned max_runs; /* driver runs, the crash file's own included */
};

/* The oracle's state: the bucket to keep, the temporary file candidates
 * are written to, and the bucket the last candidate landed in. */
struct bucket_oracle {
	const char *driver;
	unsigned timeout;
	char bucket[512], last[512];
	char tmp[PATH_MAX];
	struct crash_machine machine; /* a guest crash's settings, kept */
	uint8_t buf[PROG_HEADER + PROG_MAX_OPS * PROG_RECORD + PROG_MAX_SCHED];
};

static enum minimize_verdict same_bucket(void *arg, const struct prog *p)
{
	struct bucket_oracle *b = arg;
	size_t size = prog_encode(p, b->buf);
	struct crash_result r;

	if (!crash_write_file(b->tmp, b->buf, size) ||
	    !crash_run(b->driver, b->tmp, b->timeout, &r, NULL))
		return MINIMIZE_ABORT;
	snprintf(b->last, sizeof(b->last), "%s", r.bucket);
	return strcmp(r.bucket, b->bucket) ? MINIMIZE_PASSES : MINIMIZE_STILL_FAILS;
}

/* @runs counts the minimizer's oracle calls; the crash file's run is one more. */
static void progress(void *arg, unsigned round, const char *pass, const struct prog *best,
		     unsigned runs)
{
	(void)arg;
	fprintf(stderr, "minimize: round %u %-6s %3u ops, %3u sched bytes, %5zu bytes (run %u)\n",
		round, pass, best->nops, best->nsched, prog_encoded_size(best), runs + 1);
}

static int take_max_runs(const char *arg, unsigned *max_runs)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (*end || !*arg || arg[0] == '-' || v < 1 || v > 1000000)
		return cmd_usage_error("minimize", "--max-runs '%s' is not 1..1000000", arg);
	*max_runs = (unsigned)v;
	return 0;
}

/* 0, or the exit status after a usage error. */
static int parse_args(int argc, char **argv, struct args *a)
{
	for (int i = 1; i < argc; i++) {
		int k = crash_opt("minimize", argc, argv, &i, &a->o);

		if (k < 0)
			return 2;
		if (k)
			continue;
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--max-runs")) {
			if (i + 1 >= argc)
				return cmd_usage_error("minimize",
						       argv[i][1] == 'o' ? "%s needs a file name"
									 : "%s needs a number",
						       argv[i]);
			if (argv[i++][1] == 'o')
				a->out = argv[i];
			else if (take_max_runs(argv[i], &a->max_runs))
				return 2;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cmd_usage_error("minimize", "unknown option '%s'", argv[i]);
		} else if (a->in) {
			return cmd_usage_error("minimize", "takes one file, got also '%s'",
					       argv[i]);
		} else {
			a->in = argv[i];
		}
	}
	return a->in ? 0 : cmd_usage_error("minimize", "%s", "needs a crash file");
}

/* The crash's target and driver, its program into *@p and its size. */
static int load_crash(const struct args *a, const struct fuzz_target **t, char *driver,
		      struct prog *p, size_t *size)
{
	uint8_t *data;

	*t = a->o.target ? a->o.target : cmd_file_target("minimize", a->in);
	if (!*t)
		return 2;
	if (!crash_driver("minimize", &a->o, *t, a->in, driver, PATH_MAX))
		return 2;
	data = crash_input_load("minimize", *t, a->in, size, NULL);
	if (!data)
		return 2;
	prog_decode((*t)->desc, data, *size, p);
	free(data);
	return 0;
}

/* Run the crash file itself for the bucket to keep; 0, or the exit status. */
static int first_bucket(const struct args *a, const struct fuzz_target *t, const struct prog *p,
			size_t size, struct bucket_oracle *b)
{
	struct crash_result r;
	char run[PATH_MAX];
	bool temp, ran;

	/* the file as it is (a log's program: as it will be run from now on) */
	if (!crash_input_runnable("minimize", t, a->in, run, sizeof(run), &temp))
		return 2;
	ran = crash_run(b->driver, run, b->timeout, &r, NULL);
	if (temp)
		unlink(run);
	if (!ran)
		return 2;
	if (!r.failed) {
		fprintf(stderr, "vmafuzz minimize: %s does not fail with %s: nothing to keep\n",
			a->in, b->driver);
		return 1;
	}
	snprintf(b->bucket, sizeof(b->bucket), "%s", r.bucket);
	fprintf(stderr, "minimize: %s: %s; %u ops, %u sched bytes, %zu bytes\n", a->in, b->bucket,
		p->nops, p->nsched, size);
	/* the temporary file every candidate goes to */
	return crash_write_temp(b->buf, prog_encode(p, b->buf), b->tmp, sizeof(b->tmp)) ? 0 : 2;
}

/* Whether -o names a text program (FILE.txt): the text goes there, not the
 * bytes; it names its target, so the commands after need no --target. */
static bool is_text(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".txt");
}

/*
 * The build that found the crash (crash_build.h: its folder's .builds, or
 * a text program's "# build:" line) into @buf, for the text to name it, so
 * that triage, replay and regress run the minimized program on that build
 * as they do the crash; false when none is recorded, or when --replay
 * chose the driver (the user names it again).
 */
static bool found_by(const struct args *a, char *buf, size_t len)
{
	return !a->o.replay_dir && crash_build_of(a->in, buf, len);
}

static void print_text(FILE *f, const struct args *a, const struct fuzz_target *t,
		       const struct bucket_oracle *b, const struct prog *p, size_t size0,
		       unsigned nops0, size_t size, unsigned runs)
{
	char build[PATH_MAX];

	fprintf(f, "# minimized from %s: %zu bytes (%u ops) -> %zu bytes (%u ops), %u runs\n",
		a->in, size0, nops0, size, p->nops, runs);
	fprintf(f, "# bucket: %s\n", b->bucket);
	if (found_by(a, build, sizeof(build)))
		fprintf(f, "%s%s\n", CRASH_BUILD_LINE, build);
	crash_machine_print(f, &b->machine);
	prog_print(f, t->desc, p, -1);
}

/*
 * -o OUT, and nothing else: the text for OUT.txt (with the build), else the
 * bytes, each whole or not at all (file_write_atomic). Bytes cannot name
 * the build that found the crash, so the commands after need --replay:
 * said on stderr.
 */
static bool write_out(const struct args *a, const struct fuzz_target *t,
		      const struct bucket_oracle *b, const struct prog *p, size_t size0,
		      unsigned nops0, size_t size, unsigned runs)
{
	char build[PATH_MAX], replay[PATH_MAX];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	bool ok;

	if (!strcmp(a->out, "-"))
		return crash_write_file(a->out, b->buf, size);
	if (!is_text(a->out)) {
		ok = file_write_atomic(a->out, b->buf, size);
		if (ok && found_by(a, build, sizeof(build)) &&
		    crash_build_replay(build, replay, sizeof(replay)))
			fprintf(stderr,
				"minimize: %s holds bytes, which cannot name the build that found "
				"the crash (%s): give the commands after --replay out/%s, or write "
				"-o FILE.txt, whose text names it\n",
				a->out, build, replay);
		return ok;
	}
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	print_text(f, a, t, b, p, size0, nops0, size, runs);
	if (fclose(f))
		abort();
	ok = file_write_atomic(a->out, text, len);
	free(text);
	return ok;
}

/* The summary on stderr, the bytes to -o, the text on stdout. */
static int report(const struct args *a, const struct fuzz_target *t, struct bucket_oracle *b,
		  const struct prog *p, size_t size0, unsigned nops0, unsigned runs, bool capped)
{
	size_t size = prog_encode(p, b->buf);

	fprintf(stderr,
		"minimize: %s after %u runs: %zu bytes (%u ops) -> %zu bytes (%u ops), %s\n",
		minimize_outcome_name(capped ? MINIMIZE_CAPPED : MINIMIZE_FIXED_POINT), runs, size0,
		nops0, size, p->nops, b->bucket);
	if (a->out && !write_out(a, t, b, p, size0, nops0, size, runs))
		return 2;
	if (!a->out || strcmp(a->out, "-"))
		print_text(stdout, a, t, b, p, size0, nops0, size, runs);
	return 0;
}

int cmd_minimize(int argc, char **argv)
{
	struct args a = {{NULL, NULL, CRASH_DEFAULT_TIMEOUT}, NULL, NULL, DEFAULT_MAX_RUNS};
	static struct bucket_oracle b; /* large, as is p */
	static struct prog p;
	const struct fuzz_target *t;
	struct minimize_stats st;
	enum minimize_outcome out;
	char driver[PATH_MAX];
	size_t size0;
	unsigned nops0;
	int rc;

	memset(&b, 0, sizeof(b));
	rc = parse_args(argc, argv, &a);
	if (!rc)
		rc = load_crash(&a, &t, driver, &p, &size0);
	if (rc)
		return rc;
	b.driver = driver;
	b.timeout = a.o.timeout;
	if (crash_machine_read(a.in, &b.machine))
		crash_machine_export(&b.machine); /* the candidates are bytes */
	nops0 = p.nops;
	rc = first_bucket(&a, t, &p, size0, &b);
	if (rc)
		return rc;
	out = prog_minimize(&(struct minimize_opts){t->desc, same_bucket, &b,
						    a.max_runs > 1 ? a.max_runs - 1 : 1, progress},
			    &p, &st);
	unlink(b.tmp);
	if (out == MINIMIZE_NOT_FAILING)
		fprintf(stderr,
			"vmafuzz minimize: the program decoded from %s lands in '%s', not '%s'\n",
			a.in, b.last, b.bucket);
	if (out == MINIMIZE_NOT_FAILING || out == MINIMIZE_ABORTED)
		return out == MINIMIZE_ABORTED ? 2 : 1;
	return report(&a, t, &b, &p, size0, nops0, st.runs + 1, out == MINIMIZE_CAPPED);
}
