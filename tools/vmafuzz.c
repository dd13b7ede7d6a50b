/*
 * The vmafuzz command: one front end for programs, replays and benchmarks.
 *
 *   vmafuzz list                          targets
 *   vmafuzz ops TARGET                    operations of a target's programs
 *   vmafuzz print [--target T] FILE       a program as text
 *   vmafuzz compile [--target T] FILE.txt -o OUT
 *   vmafuzz replay [--in-process] TARGET FILE|DIR...
 *   vmafuzz bench [NAME [ARGS]]
 *   vmafuzz triage [--target T] [--json|--sarif] DIR|FILE...    (cmd_triage.c)
 *   vmafuzz minimize [--target T] [-o OUT] FILE                  (cmd_minimize.c)
 *   vmafuzz regress [--target T] [--why TEXT] FILE               (cmd_regress.c)
 *   vmafuzz plot [-o PNG] LOG|PLOT_DATA... | --bench CSV           (cmd_plot.c)
 *   vmafuzz conform [-v] [--keep-going] FILE... | --random N [--seed S] [--ops K]
 *                                                                (cmd_conform.c)
 *
 * Each subcommand answers --help. Errors go to stderr with exit status 2.
 */
#include "bench.h"
#include "cmd.h"
#include "crash.h"
#include "replay.h"
#include "target.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct command {
	const char *name;
	const char *usage;
	const char *help;
	int (*run)(int argc, char **argv);
};

static const struct command commands[];

static int usage_error(const struct command *c, const char *fmt, const char *arg)
{
	fprintf(stderr, "vmafuzz %s: ", c->name);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: vmafuzz %s\n", c->usage);
	return 2;
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static const struct command *command_find(const char *name);

static void print_help(const struct command *c)
{
	printf("usage: vmafuzz %s\n\n%s\n", c->usage, c->help);
}

static const struct fuzz_target *target_or_error(const struct command *c, const char *name)
{
	const struct fuzz_target *t = fuzz_target_find(name);

	if (!t) {
		fprintf(stderr, "vmafuzz %s: unknown target '%s'; targets:", c->name, name);
		for (unsigned i = 0; fuzz_targets[i]; i++)
			fprintf(stderr, " %s", fuzz_targets[i]->name);
		fputc('\n', stderr);
	}
	return t;
}

/* For the subcommands in their own files (cmd.h). */
int cmd_usage_error(const char *cmd, const char *fmt, const char *arg)
{
	return usage_error(command_find(cmd), fmt, arg);
}

const struct fuzz_target *cmd_target(const char *cmd, const char *name)
{
	return target_or_error(command_find(cmd), name);
}

/* ---- list, ops ---------------------------------------------------------- */

static int cmd_list(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return usage_error(command_find("list"), "unexpected argument '%s'", argv[1]);
	for (unsigned i = 0; fuzz_targets[i]; i++)
		printf("%-12s %s\n", fuzz_targets[i]->name, fuzz_targets[i]->summary);
	return 0;
}

static void print_field_syntax(const struct prog_field *f)
{
	switch (f->kind) {
	case FK_SEL:
		printf(" %s<0..%u>", f->prefix, f->max - 1u);
		break;
	case FK_U8:
		printf(" %s<0..255>", f->prefix);
		break;
	case FK_RANGE:
		printf(" RANGE");
		break;
	case FK_CHOICE:
	case FK_FLAGS:
		printf(" ");
		for (unsigned i = 0; f->names[i]; i++)
			printf("%s%s", i ? (f->kind == FK_CHOICE ? "|" : ",") : "", f->names[i]);
		break;
	}
}

static int cmd_ops(int argc, char **argv)
{
	const struct command *c = command_find("ops");
	const struct fuzz_target *t;
	const struct prog_desc *d;

	if (argc != 2)
		return usage_error(c, "%s", argc < 2 ? "needs a target" : "takes one target");
	t = target_or_error(c, argv[1]);
	if (!t)
		return 2;
	d = t->desc;
	printf("%s programs: one operation per line, '[t<fiber>:] OP ARGS [fail_at=N]'\n\n",
	       t->name);
	for (unsigned i = 0; i < d->nops; i++) {
		printf("  %s", d->ops[i].name);
		for (unsigned f = 0; f < d->ops[i].nfields; f++)
			print_field_syntax(&d->ops[i].fields[f]);
		printf("\n      %s\n", d->ops[i].help);
	}
	printf("\nRANGE: e<k>+<d> (k-th entry), g<k>+<d> (k-th empty range), @<addr>, top-<n>;\n"
	       "       then :<len> (1..255) or :end (to the end of the range holding the start)\n"
	       "fail_at=N: the Nth allocation inside the operation fails\n");
	if (d->config_names && d->config_names[0]) {
		printf("config:");
		for (unsigned i = 0; d->config_names[i]; i++)
			printf(" %s", d->config_names[i]);
		printf("\n");
	}
	printf("fibers: t0..t%u   schedule: 'sched <byte> ...'\n", d->nfibers - 1);
	return 0;
}

/* ---- print, compile ----------------------------------------------------- */

/* Parse "[--target T] ARGS..." leaving the rest in argv order. */
static const struct fuzz_target *take_target_option(const struct command *c, int *argc, char **argv,
						    bool *bad)
{
	const struct fuzz_target *t = NULL;

	*bad = false;
	for (int i = 1; i < *argc; i++) {
		if (strcmp(argv[i], "--target") && strcmp(argv[i], "-t"))
			continue;
		if (i + 1 >= *argc) {
			usage_error(c, "%s needs a target name", argv[i]);
			*bad = true;
			return NULL;
		}
		t = target_or_error(c, argv[i + 1]);
		if (!t) {
			*bad = true;
			return NULL;
		}
		memmove(&argv[i], &argv[i + 2], (size_t)(*argc - i - 2) * sizeof(*argv));
		*argc -= 2;
		i--;
	}
	return t;
}

static int cmd_print(int argc, char **argv)
{
	const struct command *c = command_find("print");
	const struct fuzz_target *t;
	static struct prog p;
	uint8_t *data;
	size_t size;
	bool bad;

	t = take_target_option(c, &argc, argv, &bad);
	if (bad)
		return 2;
	if (argc != 2)
		return usage_error(c, "%s", argc < 2 ? "needs a file" : "takes one file");
	if (argv[1][0] == '-' && argv[1][1])
		return usage_error(c, "unknown option '%s'", argv[1]);
	if (!t)
		t = target_from_path(argv[1]);
	if (!t) {
		fprintf(stderr,
			"vmafuzz print: cannot tell which target %s is for; "
			"use --target (see 'vmafuzz list')\n",
			argv[1]);
		return 2;
	}
	data = load_input(t, argv[1], &size, stderr);
	if (!data)
		return 2;
	prog_decode(t->desc, data, size, &p);
	free(data);
	printf("# %s: %u operations, %zu bytes\n", argv[1], p.nops, size);
	prog_print(stdout, t->desc, &p, -1);
	return 0;
}

static int cmd_compile(int argc, char **argv)
{
	const struct command *c = command_find("compile");
	const struct fuzz_target *t;
	const char *in = NULL, *out = NULL;
	char name[64];
	uint8_t *text, *bin;
	size_t size;
	bool bad;
	FILE *f;

	t = take_target_option(c, &argc, argv, &bad);
	if (bad)
		return 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc)
				return usage_error(c, "%s needs a file name", "-o");
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error(c, "unknown option '%s'", argv[i]);
		} else if (in) {
			return usage_error(c, "takes one input, got also '%s'", argv[i]);
		} else {
			in = argv[i];
		}
	}
	if (!in || !out)
		return usage_error(c, "%s", !in ? "needs an input file" : "needs -o OUT");
	text = read_file(in, &size, stderr);
	if (!text)
		return 2;
	if (!t && prog_text_target((const char *)text, name, sizeof(name)))
		t = target_or_error(c, name);
	if (!t)
		t = target_from_path(in);
	if (!t) {
		fprintf(stderr,
			"vmafuzz compile: %s names no target; add a line "
			"'target NAME' or use --target\n",
			in);
		free(text);
		return 2;
	}
	bin = compile_text(t, (const char *)text, in, &size, stderr);
	free(text);
	if (!bin)
		return 2;
	f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	if (!f || fwrite(bin, 1, size, f) != size || (f != stdout && fclose(f))) {
		fprintf(stderr, "vmafuzz compile: cannot write %s: %s\n", out, strerror(errno));
		free(bin);
		return 2;
	}
	free(bin);
	return 0;
}

/* ---- replay ------------------------------------------------------------- */

static int cmd_replay(int argc, char **argv)
{
	const struct command *c = command_find("replay");
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
			return usage_error(c, "unknown option '%s'", argv[i]);
	}
	if (argc - i < 2)
		return usage_error(c, "%s", "needs a target and at least one file or directory");
	t = target_or_error(c, argv[i]);
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
	return replay_paths(t, argc - i - 1, argv + i + 1, verbose);
}

/* ---- bench -------------------------------------------------------------- */

static int cmd_bench(int argc, char **argv)
{
	if (argc < 2) {
		printf("benchmarks (vmafuzz bench NAME [--csv]):\n");
		for (unsigned i = 0; benches[i]; i++)
			printf("  %-12s %s\n", benches[i]->name, benches[i]->summary);
		return 0;
	}
	for (unsigned i = 0; benches[i]; i++)
		if (!strcmp(benches[i]->name, argv[1])) {
			bench_setup();
			return benches[i]->run(argc - 1, argv + 1);
		}
	return usage_error(command_find("bench"), "unknown benchmark '%s' (list: vmafuzz bench)",
			   argv[1]);
}

/* ---- main --------------------------------------------------------------- */

static const struct command commands[] = {
    {"list", "list", "List the fuzz targets.", cmd_list},
    {"ops", "ops TARGET", "Describe the operations of TARGET's programs and their arguments.",
     cmd_ops},
    {"print", "print [--target T] FILE",
     "Decode FILE (a fuzz input, crash or seed) and print it as a text program.\n"
     "The target is taken from --target or from a path component naming one.",
     cmd_print},
    {"compile", "compile [--target T] FILE.txt -o OUT",
     "Compile a text program into the bytes a fuzz target reads ('-o -': stdout).\n"
     "The target is taken from --target, the program's 'target' line, or the path.\n"
     "Errors name the file, line and column.",
     cmd_compile},
    {"replay", "replay [--in-process] [-v] TARGET FILE|DIR...",
     "Run inputs through TARGET without a fuzzing engine (.txt files are compiled\n"
     "first). Uses the sanitized driver replay/TARGET beside this binary when it\n"
     "exists, else runs in this process (--in-process forces that). A failing input\n"
     "aborts with its report.",
     cmd_replay},
    {"bench", "bench [NAME [--csv]]", "Run a benchmark; without NAME, list them.", cmd_bench},
    {"triage", "triage [--target T] [--replay DIR] [--timeout S] [--json|--sarif] DIR|FILE...",
     "Replay every crash file in the sanitized driver (replay/TARGET beside this\n"
     "binary, or DIR/TARGET with --replay), each in a subprocess killed after S\n"
     "seconds (default 20), and group them in buckets: the invariant that failed\n"
     "(MT_GAP, ...), 'MODEL_ASSERT file:line', else the sanitizer's kind of error\n"
     "and the top three stack frames in the model (function names), 'timeout',\n"
     "or 'no longer fails'. A DIR is a libFuzzer artifact folder (crash-*, leak-*,\n"
     "timeout-*, oom-*; else every file) or an AFL++ output folder\n"
     "(<out>/*/crashes/id:*). Prints bucket, count, smallest reproducer and the\n"
     "failure line; --json: every bucket with all its files; --sarif: SARIF 2.1.0,\n"
     "one result per bucket. Exit status 0 when it ran, crashes or not.",
     cmd_triage},
    {"minimize", "minimize [--target T] [--replay DIR] [--max-runs N] [-o OUT] FILE",
     "Shrink a crash as a program, keeping its bucket (as triage computes it):\n"
     "drop chunks of operations, a thread's operations or move them to t0, drop\n"
     "or zero schedule bytes, then simplify arguments (fail_at, range lengths,\n"
     "other bytes towards 0, config bits), repeated to a fixed point or N runs of\n"
     "the driver (default 2000). Prints the program as text, writes its bytes to\n"
     "OUT ('-': stdout), and reports runs and sizes on stderr.",
     cmd_minimize},
    {"regress", "regress [--target T] [--replay DIR] [--why TEXT] [--root DIR] FILE",
     "Store a crash (minimize it first) as a text program in\n"
     "corpus/regress/TARGET/<bucket>-<hash>.txt of the source tree (--root, else\n"
     "the current directory or the tree this binary was built in), with its\n"
     "bucket, the date and its cause (--why, else the failure line) as comments.\n"
     "'./build.sh test' replays these files: each must pass once its bug is fixed.\n"
     "The input must still fail with the driver used (see --replay).",
     cmd_regress},
    {"plot",
     "plot [-o OUT.png] [--time|--execs] [--title T] [--script] LOG|PLOT_DATA...\n"
     "       vmafuzz plot --bench FILE.csv [-o OUT.png] [--title T] [--script]",
     "Draw coverage (edges; libFuzzer's features dashed, right axis) and corpus size\n"
     "of fuzzing runs as a PNG with gnuplot, one line per input file: libFuzzer logs\n"
     "(lines '#N ... cov: C ft: F corp: K ...'; ./build.sh fuzz writes\n"
     "out/work/TARGET/fuzz.log) or AFL++ plot_data files. libFuzzer logs have no\n"
     "clock: their x axis is executions; --time estimates seconds as N / exec/s\n"
     "(libFuzzer's exec/s is executions over whole seconds since start). AFL++ and\n"
     "libFuzzer -fork logs carry time and use it; mixing them with plain libFuzzer\n"
     "logs plots executions (AFL++'s total_execs) unless --time is given.\n"
     "--bench: a CSV of 'vmafuzz bench NAME --csv', first column on a log x axis,\n"
     "*ns* columns on the left axis, *_over_* / ratio columns on the right.\n"
     "OUT defaults to the first input with its extension replaced by .png;\n"
     "--script prints the gnuplot script instead of running gnuplot.",
     cmd_plot},
    {"conform",
     "conform [-v] [--keep-going] [--compare-read-faults] FILE...\n"
     "       vmafuzz conform [-v] [--keep-going] --random N [--seed S] [--ops K]",
     "Run fuzz_mm programs (text or bytes) in the model and, for real, in a child\n"
     "process of this machine's kernel, and compare after every operation: the\n"
     "result (address or errno) and the VMAs in the window as /proc/PID/smaps shows\n"
     "them (start, end, rwx and p/s, VmFlags dc wf ac, Rss, Anonymous). Only\n"
     "anonymous memory runs for real: mmap private or shared (fixed, noreplace, or a\n"
     "hint the model honoured), munmap, mprotect, madvise, touch and fork (current\n"
     "anon_vma policy) on p0 and t0, without fail_at; other programs are reported\n"
     "as 'skipped: <why>'. After a fork, the model's child is compared with a\n"
     "grandchild the real child forks and holds still, then both exit. The first\n"
     "difference prints both views side by side and the status is 1 (--keep-going:\n"
     "go on with the other files or programs). --random N: N generated programs of\n"
     "K operations (default 20) from seed S (default 1); a differing one is printed\n"
     "as a program to save as a seed. -v: every operation and both views.\n"
     "A kernel that maps no zero page on a read fault of private anonymous memory\n"
     "(probed first) allocates a page there: programs doing that are skipped (random\n"
     "ones draw another operation); --compare-read-faults runs them anyway.",
     cmd_conform},
    {NULL, NULL, NULL, NULL},
};

static const struct command *command_find(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: vmafuzz COMMAND [ARGS]   (vmafuzz COMMAND --help for more)\n\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  vmafuzz %s\n", c->usage);
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	c = command_find(argv[1]);
	if (!c) {
		fprintf(stderr, "vmafuzz: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	/* bench NAME --help is the benchmark's own business */
	if (wants_help(strcmp(c->name, "bench") ? argc - 1 : (argc > 2 ? 1 : argc - 1), argv + 1)) {
		print_help(c);
		return 0;
	}
	return c->run(argc - 1, argv + 1);
}
